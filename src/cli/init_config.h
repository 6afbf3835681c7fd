/*
 * init_config.h - the configuration `airspace init` merges into each agent
 * client's files: hook entries and MCP server entries in JSON settings
 * (Claude Code, Codex, Gemini CLI), the MCP server table in Codex's
 * config.toml, and the git hook scripts.
 *
 * Transformations of file contents; the only I/O is looking a program up
 * (on $PATH, or whether it is executable). Merging keeps every key
 * the user had, in its order, and adds only what is missing, so merging
 * twice changes nothing.
 */
#ifndef AIRSPACE_CLI_INIT_CONFIG_H
#define AIRSPACE_CLI_INIT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

enum init_client {
    INIT_CLAUDE_CODE,
    INIT_CODEX,
    INIT_GEMINI,
};

/* The real path of the executable `name` the shell would run from $PATH,
 * or NULL (a new string). */
char *init_on_path(const char *name);

/*
 * Programs are named as a command's first word, unquoted ("airspace",
 * "/opt/x/airspace-hook"). gone lists the programs, NULL-terminated (or
 * NULL for none), that an earlier `airspace init` of this repository wrote
 * into commands and that no longer exist: such a command of airspace's is
 * updated to this binary. Any other existing command of airspace's is left
 * as it is, whatever path it names: it may be another machine's.
 */

/* Whether program prog (a path, or a name looked up on $PATH) cannot be
 * run: it is missing or not executable. */
bool init_program_gone(const char *prog);

/*
 * Merge the client's hook entries (command `<bin> hook <client>`) into the
 * JSON settings text old (NULL or empty: a new file); with mcp, also an
 * "airspace" entry under mcpServers. like is NULL or the text of another
 * settings file the client reads in the same session: an event that runs
 * airspace's hook there gets the very same command here, because Claude
 * Code runs a command once however many of its files name it, but two
 * spellings of airspace's hook twice. *out is the new text (new string,
 * free()), byte-identical to old when nothing was missing; when rewritten,
 * indented by 2, with each real number spelled as in old. Returns 0, or
 * AS_EPARSE when old is not a JSON object (e names the file).
 */
int init_merge_hooks(const char *old, const char *file, enum init_client c,
    const char *bin, const char *like, bool mcp, const char *const *gone,
    char **out, struct as_err *e);

/* Whether the JSON settings text runs airspace's hook for client c on any
 * event (false for NULL or text that does not parse). */
bool init_has_hooks(const char *text, enum init_client c);

/* Merge only an mcpServers.airspace entry (for .mcp.json). */
int init_merge_mcp(const char *old, const char *file, const char *bin,
    const char *const *gone, char **out, struct as_err *e);

/*
 * Take out of JSON settings text old what init added: every hook entry
 * running `... airspace ... hook <client>` and the mcpServers.airspace
 * entry, dropping containers left empty; but not those orig has (the text
 * before init, NULL when init created the file): they were the user's.
 * *out is new: old itself when *changed is false (nothing to take out);
 * *empty tells whether nothing but an empty object is left.
 */
int init_unmerge_json(const char *old, const char *orig, const char *file,
    char **out, bool *empty, bool *changed, struct as_err *e);

/*
 * Whether TOML text defines mcp_servers.airspace in any spelling (a table
 * header, spaced or quoted; dotted keys; an inline table), or makes
 * mcp_servers an inline table, which takes no further table. Text the
 * scan cannot read counts as defining it when it names both.
 */
bool init_toml_has_airspace(const char *text);

/*
 * The text to append to Codex's config.toml for the MCP server (new
 * string), or NULL when init_toml_has_airspace(old).
 */
char *init_codex_toml_block(const char *old, const char *bin);

/* The line telling where Gemini CLI must start for airspace's hooks in
 * the worktree whose top is top to run (new string, free()). */
char *init_gemini_note(const char *top);

/* The git hook names airspace installs, NULL-terminated. */
extern const char *const init_git_hooks[];

/* The script installed as git hook name (new string, free()). With the
 * binary gone, the script does nothing (pre-commit says so on stderr)
 * instead of failing every commit. */
char *init_git_hook_script(const char *name, const char *bin);

/* Whether a hook file's text is one airspace installed. */
bool init_git_hook_is_ours(const char *text);

/* The program an airspace git hook's text runs (new string, free()), or
 * NULL. */
char *init_git_hook_program(const char *text);

#endif

/*
 * init_config.h - the configuration `airspace init` merges into each agent
 * client's files: hook entries and MCP server entries in JSON settings
 * (Claude Code, Codex, Gemini CLI), the MCP server table in Codex's
 * config.toml, and the git hook scripts.
 *
 * Pure transformations of file contents: no I/O. Merging keeps every key
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
 * Merge the client's hook entries (command `<bin> hook <client>`) into the
 * JSON settings text old (NULL or empty: a new file); with mcp, also an
 * "airspace" entry under mcpServers. like is NULL or the text of another
 * settings file the client reads in the same session: an event that runs
 * airspace's hook there gets the very same command here, because Claude
 * Code runs a command once however many of its files name it, but two
 * spellings of airspace's hook twice. *out is the new text (new string,
 * free()), byte-identical to old when nothing was missing. Returns 0, or
 * AS_EPARSE when old is not a JSON object (e names the file).
 */
int init_merge_hooks(const char *old, const char *file, enum init_client c,
    const char *bin, const char *like, bool mcp, char **out, struct as_err *e);

/* Whether the JSON settings text runs airspace's hook for client c on any
 * event (false for NULL or text that does not parse). */
bool init_has_hooks(const char *text, enum init_client c);

/* Merge only an mcpServers.airspace entry (for .mcp.json). */
int init_merge_mcp(const char *old, const char *file, const char *bin,
    char **out, struct as_err *e);

/*
 * Take out of JSON settings text old every hook entry running
 * `... airspace ... hook <client>` and the mcpServers.airspace entry,
 * dropping containers left empty. *out is new; *empty tells whether
 * nothing but an empty object is left.
 */
int init_unmerge_json(const char *old, const char *file, char **out,
    bool *empty, struct as_err *e);

/*
 * The text to append to Codex's config.toml for the MCP server (new
 * string), or NULL when old already has an [mcp_servers.airspace] table.
 */
char *init_codex_toml_block(const char *old, const char *bin);

/* The line telling where Gemini CLI must start for airspace's hooks in
 * the worktree whose top is top to run (new string, free()). */
char *init_gemini_note(const char *top);

/* The git hook names airspace installs, NULL-terminated. */
extern const char *const init_git_hooks[];

/* The script installed as git hook name (new string, free()). */
char *init_git_hook_script(const char *name, const char *bin);

/* Whether a hook file's text is one airspace installed. */
bool init_git_hook_is_ours(const char *text);

#endif

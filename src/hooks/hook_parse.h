/*
 * hook_parse.h - the paths a tool call will write, from what agents send:
 * Codex apply_patch bodies and shell commands (best effort). Pure text
 * work; every function returns new strings (free each and the array).
 */
#ifndef AIRSPACE_HOOKS_HOOK_PARSE_H
#define AIRSPACE_HOOKS_HOOK_PARSE_H

#include <stdbool.h>
#include <stddef.h>

/* "*** Update File: x", "*** Add File:", "*** Delete File:", "*** Move to:" */
size_t hook_patch_paths(const char *patch, char ***out);

/*
 * The files a shell command obviously writes (see hook_parse.c), each
 * absolute or relative to the directory the command starts in, following
 * its cd, pushd and popd: "cd sub && rm x.c" gives "sub/x.c". A relative
 * path written where the directory cannot be known ("cd $D && rm x.c") is
 * left out and counted in *unknown (when unknown is not NULL), as is the
 * rest of a command too long or too deeply nested to read.
 */
size_t hook_shell_scan(const char *cmd, char ***out, size_t *unknown);

/*
 * A command that throws away uncommitted changes: `git stash`, `git reset
 * --hard`, `git checkout [REV] [--] PATH...`, `git checkout -f`, `git
 * restore PATH...`, `git switch -f`, `git clean -f [PATH...]`, `git
 * worktree remove --force PATH`, and `rm PATH...` (a file or, with -r, a
 * directory: what is changed there goes with it).
 */
enum {
    HOOK_DISCARD_TRACKED = 1,  /* changes to tracked files (and the index) */
    HOOK_DISCARD_UNTRACKED = 2 /* untracked files */
};

struct hook_discard {
    char *dir;     /* where git runs, absolute or relative to the start */
    char *command; /* "git stash", for the reader */
    char **spec;   /* its pathspecs, as given; none: the whole worktree */
    size_t nspec, aspec;
    unsigned what; /* HOOK_DISCARD_* */
    bool maybe;    /* a checkout's words: each a path only if one exists */
    bool plain;    /* plain paths (rm, git worktree remove), not pathspecs
                    * of the worktree git runs in: they may name another */
};

/*
 * The discards of a shell command (new array, hook_discards_free), read
 * as hook_shell_scan reads its writes: in every command of its lists,
 * following cd, pushd, popd and `git -C`. A discard whose directory or
 * paths cannot be read is left out (hook_shell_scan counts it unknown).
 */
size_t hook_shell_discards(const char *cmd, struct hook_discard **out);
void hook_discards_free(struct hook_discard *d, size_t n);

/*
 * The user's words in a prompt the client passes to its prompt hook: the
 * prompt past the <hook_context>...</hook_context> Gemini CLI puts before a
 * headless one, or NULL when the prompt is the client's own and not the
 * user's: Claude Code's background-task notification, which opens (after
 * a <tools-used-before-summary> line and a <system-reminder> tag, if any)
 * with "[SYSTEM NOTIFICATION - NOT USER INPUT]" or <task-notification>; a
 * leading <tools-used-before-summary> line is not the user's either.
 * Points into prompt.
 */
const char *hook_prompt_words(const char *prompt);

/* hook_shell_scan without the count. */
size_t hook_shell_writes(const char *cmd, char ***out);

#endif

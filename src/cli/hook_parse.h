/*
 * hook_parse.h - the paths a tool call will write, from what agents send:
 * Codex apply_patch bodies and shell commands (best effort). Pure text
 * work; every function returns new strings (free each and the array).
 */
#ifndef AIRSPACE_CLI_HOOK_PARSE_H
#define AIRSPACE_CLI_HOOK_PARSE_H

#include <stddef.h>

/* "*** Update File: x", "*** Add File:", "*** Delete File:", "*** Move to:" */
size_t hook_patch_paths(const char *patch, char ***out);

/* The files a shell command obviously writes (see hook_parse.c). */
size_t hook_shell_writes(const char *cmd, char ***out);

#endif

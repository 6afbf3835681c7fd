/*
 * agents_json.h - read agents and their working sets from a JSON document.
 *
 * The format of `airspace scan --agents FILE` (docs/cli.md): a JSON array of
 *   {"agentId": str, "kind"?: "agent"|"human", "label"?: str,
 *    "startedAt"?: ms-number | ISO-8601 string, "branch"?: str,
 *    "commitsAhead"?: int, "committedLines"?: int,
 *    "files": [{"path": str, "lines"?: [[start,end],...], "weight"?: (0,1],
 *               "status"?: "modified"|"added"|"deleted"|"renamed"|"binary"|
 *                          "mode"}],
 *    "intent"?: [glob-or-path, ...]}
 * A file without "lines" counts as a whole-file change. Unknown keys, bad
 * types, empty ids, duplicate ids, ranges below line 1 and paths escaping the
 * repository are errors naming the agent and the field; nothing is returned
 * then.
 */
#ifndef AIRSPACE_CLI_AGENTS_JSON_H
#define AIRSPACE_CLI_AGENTS_JSON_H

#include <stddef.h>

#include "core/workset.h"
#include "util/error.h"

/* Largest agents document accepted, in bytes. */
#define AGENTS_JSON_MAX_BYTES (64u << 20)

/*
 * Parse the NUL-terminated text (name is used in messages) into a new array
 * of *n agents (free with agents_free()). Returns 0 or AS_EPARSE/AS_EINVAL
 * with e filled.
 */
int agents_json_parse(const char *text, size_t len, const char *name,
    struct agent **out, size_t *n, struct as_err *e);

/* Read path ("-" is stdin) and parse it. */
int agents_json_load(
    const char *path, struct agent **out, size_t *n, struct as_err *e);

void agents_free(struct agent *agents, size_t n);

#endif

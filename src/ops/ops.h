/*
 * ops.h - the operations that change a repository after asking the
 * daemon: a scoped commit (commit.c) and a land (land.c). Shared by the
 * CLI (`airspace commit`, `airspace land`) and the MCP tools of the same
 * names; they print nothing: messages come back as strings.
 */
#ifndef AIRSPACE_OPS_OPS_H
#define AIRSPACE_OPS_OPS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A scoped commit (commit.c, docs/cli.md "airspace commit"), shared by
 * `airspace commit` and the MCP tool `commit`.
 */
struct client;
struct json_t;

struct scoped_commit {
    const char *dir;     /* where paths are relative to; in the working tree */
    const char *agent;   /* NULL: $AIRSPACE_AGENT, else the tree's agent */
    const char *message; /* the commit message */
    char *const *paths;  /* as given: relative to dir, or absolute */
    size_t npaths;       /* 0: the agent's own changes */
    bool force;          /* commit paths other agents hold */
    struct client *cl;   /* a connected daemon, or NULL: none */
    const char *no_daemon; /* why there is none (for the note) */
};

/*
 * Commit as described in docs/cli.md. Returns the exit code: 0 with
 * *result (a new JSON object: commit, branch, parent, files, retries,
 * index_updated, agent); otherwise *error (a new string). *notes (new
 * string, or NULL) holds the warnings, one per line, either way.
 */
int scoped_commit_run(const struct scoped_commit *sc, struct json_t **result,
    char **notes, char **error);

/*
 * A land (land.c, docs/cli.md "airspace land"), shared by `airspace
 * land` and the MCP tool `land`.
 */
struct land_request {
    const char *dir;       /* in the repository; the working tree whose
                              branch lands when neither name nor branch */
    const char *name;      /* the agent whose branch lands, or NULL */
    const char *branch;    /* or the branch, or NULL */
    const char *into;      /* NULL: the integration branch */
    const char *message;   /* NULL: "Land SOURCE into TARGET" */
    bool force;            /* land outside the agent's scope */
    bool dry_run;          /* every check, nothing landed */
    bool tool;             /* messages name the MCP tool's arguments
                              (force), not the options (--force) */
    struct client *cl;     /* a connected daemon, or NULL: none */
    const char *no_daemon; /* why there is none (for the messages) */
};

/*
 * Land as described in docs/cli.md. Returns the exit code. *result (a new
 * JSON object: the `--json` document) when the land ran or the merge
 * check, the scope check or the land itself refused it; NULL when it
 * stopped earlier (bad input, a scope that cannot be checked, the
 * daemon failing). *error (a new string) when the code is not 0; *notes
 * (new string, or NULL) holds the warnings, one per line.
 */
int land_run(const struct land_request *rq, struct json_t **result,
    char **notes, char **error);

#endif

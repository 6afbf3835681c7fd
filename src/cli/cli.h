/*
 * cli.h - subcommands of the airspace binary.
 *
 * Each subcommand is a function taking (argc, argv) with argv[0] the command
 * name, returning the process exit status: 0 ok, 1 refused or an advisory
 * found with --fail-on, 2 usage error, 3 daemon unreachable, 4 runtime
 * error.
 */
#ifndef AIRSPACE_CLI_CLI_H
#define AIRSPACE_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FAIL = 1,
    CLI_EXIT_USAGE = 2,
    CLI_EXIT_UNREACHABLE = 3,
    CLI_EXIT_ERROR = 4, /* runtime error: repository unreadable, ... */
};

/* The exit status for a status code of util/error.h: bad input (AS_EINVAL,
 * AS_ENOENT) is usage, a refusal (AS_ECONFLICT) is 1, the rest runtime. */
static inline int
cli_exit_for(int as_status)
{
    switch (as_status) {
    case 0:
        return CLI_EXIT_OK;
    case AS_EINVAL:
    case AS_ENOENT:
        return CLI_EXIT_USAGE;
    case AS_ECONFLICT:
        return CLI_EXIT_FAIL;
    default:
        return CLI_EXIT_ERROR;
    }
}

#define AIRSPACE_VERSION "0.1.0"

typedef int cli_fn(int argc, char **argv);

struct cli_command {
    const char *name;
    const char *summary;
    cli_fn *run;
};

/* cmd_agent.c: copy into worktree `to` each agent client's settings that
 * worktree `top` has and `to` lacks (not committed, so not checked out);
 * the paths copied, a new JSON array (`agent new`, `fleet up`). */
struct json_t *copy_client_config(const char *top, const char *to);

cli_fn cmd_advisories;
cli_fn cmd_alerts;
cli_fn cmd_agent;
cli_fn cmd_agents;
cli_fn cmd_api;
cli_fn cmd_claim;
cli_fn cmd_commit;
cli_fn cmd_conflicts;
cli_fn cmd_fleet;
cli_fn cmd_hook;
cli_fn cmd_inbox;
cli_fn cmd_intent;
cli_fn cmd_land;
cli_fn cmd_log;
cli_fn cmd_msg;
cli_fn cmd_contest;
cli_fn cmd_lock;
cli_fn cmd_locks;
cli_fn cmd_mcp;
cli_fn cmd_init;
cli_fn cmd_release;
cli_fn cmd_unlock;
cli_fn cmd_replay;
cli_fn cmd_scan;
cli_fn cmd_serve;
cli_fn cmd_status;
cli_fn cmd_stop;
cli_fn cmd_top;
cli_fn cmd_open;
cli_fn cmd_version;
cli_fn cmd_watch;

/*
 * A scoped commit (cmd_commit.c, docs/cli.md "airspace commit"), shared by
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
 * A land (cmd_land.c, docs/cli.md "airspace land"), shared by `airspace
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

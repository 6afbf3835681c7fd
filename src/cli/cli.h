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

#include "util/exitcode.h"

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

#endif

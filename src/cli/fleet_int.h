/*
 * fleet_int.h - what `airspace fleet`'s commands (cmd_fleet.c) and an
 * agent's supervisor (fleet_sup.c) share: the repository and its fleet
 * file, the state files, an agent's lane. Internal to src/cli.
 */
#ifndef AIRSPACE_CLI_FLEET_INT_H
#define AIRSPACE_CLI_FLEET_INT_H

#include <limits.h>

#include <jansson.h>

#include "git/fleet.h"
#include "git/repo.h"

/* Everything a fleet command needs to know of the repository. */
struct fctx {
    struct repo *repo;
    const char *main;   /* the main worktree */
    char *fleet_path;   /* <main>/.airspace/fleet */
    char *include_path; /* <main>/.airspace/worktreeinclude */
    char *dir;          /* <common>/airspace/fleet: state files, slots */
    char *session;      /* the tmux session */
    struct fleet f;
    char exe[PATH_MAX];
};

/* Open the repository at "." and read its fleet file. 0 or an exit code
 * (printed). */
int fctx_open(struct fctx *x, const char *cmd);
void fctx_release(struct fctx *x);

/* The state file of agent name (new string). */
char *fctx_state_path(const struct fctx *x, const char *name);

/* Agent a's lane as a JSON array of its patterns (new reference). */
json_t *fleet_lanes_json(const struct fleet_agent *a);

/* `fleet run-agent NAME`: the supervisor of agent name, in its window. */
int fleet_run_agent(const char *name);

#endif

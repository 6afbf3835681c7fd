/*
 * fleet_int.h - what `airspace fleet`'s commands (cmd_fleet.c) and an
 * agent's supervisor (fleet_sup.c) share: the repository and its fleet
 * file, the state files, the saved environment, an agent's lane, and
 * their processes (fleet_proc.c). Internal to src/cli.
 */
#ifndef AIRSPACE_CLI_FLEET_INT_H
#define AIRSPACE_CLI_FLEET_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

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

/* The file holding the environment of the last `fleet up` (new string):
 * its agents get it, not the tmux server's. */
char *fctx_env_path(const struct fctx *x);

/*
 * Processes (fleet_proc.c, Linux's /proc). A process is known by its pid
 * and its start time: a pid is reused once its process is gone (pid_max
 * wraps within minutes on a busy machine), and what is signalled must be
 * the process that was recorded, not one that got its pid since.
 */
struct fleet_proc {
    pid_t pid, ppid, pgrp;
    unsigned long long start; /* clock ticks after boot (stat field 22) */
    bool zombie;
};

/* Read /proc/PID/stat into p. 0, or -1 when there is no such process. */
int fleet_proc_read(pid_t pid, struct fleet_proc *p);

/* Whether pid is a live process (not a zombie) that started at start
 * (non-zero): the very process recorded then. */
bool fleet_proc_same(pid_t pid, unsigned long long start);

/* This boot's id ("" when it cannot be read): start times count from the
 * boot. A static string. */
const char *fleet_boot_id(void);

/* A set of processes; zero it to start; fleet_procs_release() it. */
struct fleet_procs {
    struct fleet_proc *v;
    size_t n, cap;
};
void fleet_procs_release(struct fleet_procs *s);

/* Add p to s; whether s holds p (the same pid and start time). */
void fleet_procs_add(struct fleet_procs *s, const struct fleet_proc *p);
bool fleet_procs_has(const struct fleet_procs *s, const struct fleet_proc *p);

/* Add to s every live member of process group pgid. */
void fleet_procs_group(struct fleet_procs *s, pid_t pgid);

/* Add to s every live descendant of root, by parent links, but an
 * airspace daemon (`airspace serve`: it serves the whole repository,
 * even when an agent started it) and what runs below it. */
void fleet_procs_descendants(struct fleet_procs *s, pid_t root);

/* Add to s every live process but this one whose environment carries
 * AIRSPACE_FLEET=dir, the fleet's marker (/proc/PID/environ: the user's
 * own processes), but an airspace daemon. */
void fleet_procs_marked(struct fleet_procs *s, const char *dir);

/* Send sig to each process of s that is still the same one
 * (fleet_proc_same), SIGCONT after it unless sig is SIGKILL or 0.
 * Returns how many got it. */
size_t fleet_procs_signal(const struct fleet_procs *s, int sig);

#endif

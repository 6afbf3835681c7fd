/*
 * fleet_sup.c - `airspace fleet run-agent NAME`: the supervisor of one
 * agent of a fleet, in its tmux window (docs/fleet.md). It waits for a
 * slot, runs the agent's command in a process group of its own, with the
 * environment `fleet up` ran in, reports each state to the daemon and to
 * a state file, restarts a crash after a doubling backoff up to the
 * fleet's limit, then gives up and stays, reporting, until stopped.
 *
 * It is a child subreaper: whatever the command starts stays below it,
 * also a process that left the command's process group and session and
 * whose parent died (a client's shell commands, run with setsid), so
 * that when a run ends every process of it is found and stopped before
 * the next run starts.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "cli/fleet_int.h"
#include "client/client.h"
#include "cli/dcli.h"
#include "git/fleet.h"
#include "git/worktree.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/clock.h"
#include "util/banned.h"

/* ---- run-agent: one agent's supervisor ---- */

/* A run this long resets the restart count. */
#define FLEET_STABLE_MS (60 * 1000)

static volatile sig_atomic_t stop_sig;

static void
on_stop(int sig)
{
    stop_sig = sig;
}

struct sup {
    struct fctx *x;
    const struct fleet_agent *a;
    struct client cl;
    bool have;
    char *state;
    unsigned restarts;
    char *why;
    pid_t child; /* the running command's process (group), or 0 */
    unsigned long long self_start, child_start; /* fleet_proc_read() */
    char **env; /* the environment of `fleet up`, or NULL: our own */
    int64_t reported_at;
};

/* Write the state file and tell the daemon (best effort). */
static void
report(struct sup *s, const char *state, const char *why)
{
    if (state) {
        free(s->state);
        s->state = xstrdup(state);
        free(s->why);
        s->why = why ? xstrdup(why) : NULL;
        printf("[airspace fleet] %s: %s%s%s\n", s->a->name, state,
            s->why ? ": " : "", s->why ? s->why : "");
        fflush(stdout);
    }
    /* the processes with their start times, so that `fleet down` signals
     * only these, never a process that got one of their pids since */
    json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:s, s:I, "
                          "s:o}",
        "name", s->a->name, "state", s->state, "restarts",
        (json_int_t)s->restarts, "pid", (json_int_t)getpid(), "pidStart",
        (json_int_t)s->self_start, "pgid", (json_int_t)s->child, "pgidStart",
        (json_int_t)(s->child ? s->child_start : 0), "boot", fleet_boot_id(),
        "at", (json_int_t)clock_wall_ms(), "lane", fleet_lanes_json(s->a));
    if (s->why)
        json_object_set_new(o, "why", json_string(s->why));
    char *text = json_dumps(o, JSON_COMPACT);
    char *p = fctx_state_path(s->x, s->a->name);
    struct as_err e;
    if (file_write_atomic(p, text, strlen(text), &e))
        fprintf(stderr, "[airspace fleet] %s\n", e.msg);
    free(p);
    free(text);
    json_decref(o);
    if (!s->have) {
        s->have = dcli_client_open(&s->cl, s->x->main, true, &e) == 0;
        if (!s->have)
            client_close(&s->cl);
        else
            s->cl.timeout_ms = 3000;
    }
    if (!s->have)
        return;
    struct strbuf lane = STRBUF_INIT;
    for (size_t k = 0; k < s->a->nlanes; k++)
        strbuf_addf(&lane, "%s%s", k ? " " : "", s->a->lanes[k]);
    json_t *body = json_pack("{s:s, s:I, s:I}", "state", s->state, "restarts",
        (json_int_t)s->restarts, "pid", (json_int_t)getpid());
    if (lane.s)
        json_object_set_new(body, "lane", json_string(lane.s));
    if (s->why)
        json_object_set_new(body, "why", json_string(s->why));
    free(lane.s);
    long status;
    json_t *reply = NULL;
    if (client_call(
            &s->cl, api_fleet_report(s->a->name, body), &status, &reply, &e)) {
        client_close(&s->cl);
        s->have = false;
    }
    if (reply)
        json_decref(reply);
    reply = NULL;
    if (s->have &&
        (!strcmp(s->state, "running") || !strcmp(s->state, "queued"))) {
        /* its process is alive, or it waits its turn: not silent */
        client_call(&s->cl, api_heartbeat(s->a->name), &status, &reply, &e);
        if (reply)
            json_decref(reply);
    }
    s->reported_at = clock_wall_ms();
}

/* The command is done for good (exited, or given up: no restart comes):
 * its session is over, as a client's SessionEnd tells the daemon (POST
 * /v1/agents/{id}/exit), so its work is parked now rather than counted
 * active until the agent falls silent. Best effort. */
static void
session_over(struct sup *s)
{
    if (!s->have)
        return;
    long status;
    json_t *reply = NULL;
    struct as_err e;
    client_call(&s->cl, api_exit(s->a->name), &status, &reply, &e);
    if (reply)
        json_decref(reply);
}

/* The command while it runs (0 between runs); its wait status once
 * reaped. */
static pid_t run_pid;
static bool run_reaped;
static int run_status;

/* Reap every child that ended, at once: the command, and what its
 * processes left behind, which comes back to the supervisor (a
 * subreaper) when its parent dies; a daemon one of them started among
 * them, whose zombie would pass for a daemon still running. */
static void
reap(void)
{
    int w;
    pid_t r;
    while ((r = waitpid(-1, &w, WNOHANG)) > 0)
        if (run_pid > 0 && r == run_pid) {
            run_status = w;
            run_reaped = true;
        }
}

/* Sleep ms, in small steps, until stopped; reaping. */
static void
nap(int64_t ms)
{
    for (int64_t t = 0; t < ms && !stop_sig; t += 50) {
        reap();
        struct timespec ts = { 0, 50 * 1000000L };
        nanosleep(&ts, NULL);
    }
    reap();
}

/* Wait for one of the concurrency slots: its locked fd, or -1 stopped. */
static int
take_slot(struct sup *s)
{
    bool queued = false;
    while (!stop_sig) {
        for (unsigned k = 0; k < s->x->f.concurrency; k++) {
            char *p = xasprintf("%s/slot.%u", s->x->dir, k);
            int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
            free(p);
            if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
                return fd;
            if (fd >= 0)
                close(fd);
        }
        if (!queued) {
            report(s, "queued", "waiting for a slot ([fleet] concurrency)");
            queued = true;
        }
        nap(200);
        if (clock_wall_ms() - s->reported_at > 5000)
            report(s, NULL, NULL);
    }
    return -1;
}

/*
 * Stop what a run started: the command's process group while the command
 * is not reaped (its pid cannot be another's then), and every process
 * below the supervisor, however it left the group (the daemon spared):
 * TERM, then KILL after 3 s.
 */
static void
stop_run(void)
{
    struct fleet_procs told = { 0 };
    double until = clock_mono_ms() + 3000, gone_by = 0;
    for (bool first = true;; first = false) {
        reap();
        struct fleet_procs now = { 0 };
        fleet_procs_descendants(&now, getpid());
        size_t left = now.n;
        if (!gone_by && clock_mono_ms() > until) {
            if (!run_reaped)
                kill(-run_pid, SIGKILL);
            fleet_procs_signal(&now, SIGKILL);
            /* killed: what still does not go (uninterruptible) stays */
            gone_by = clock_mono_ms() + 1000;
        } else if (!gone_by) {
            if (first && !run_reaped) {
                kill(-run_pid, SIGTERM);
                kill(-run_pid, SIGCONT);
            }
            for (size_t i = 0; i < now.n; i++)
                if (!fleet_procs_has(&told, &now.v[i])) {
                    fleet_procs_add(&told, &now.v[i]);
                    struct fleet_procs one = { &now.v[i], 1, 1 };
                    fleet_procs_signal(&one, SIGTERM);
                }
        }
        fleet_procs_release(&now);
        if ((run_reaped && !left) || (gone_by && clock_mono_ms() > gone_by))
            break;
        struct timespec ts = { 0, 50 * 1000000L };
        nanosleep(&ts, NULL);
    }
    fleet_procs_release(&told);
}

/* Whether the environment entry e describes the window the supervisor
 * runs in (its terminal, its tmux pane, its directory). */
static bool
window_var(const char *e)
{
    static const char *const window[] = { "TMUX=", "TMUX_PANE=", "TERM=",
        "TERM_PROGRAM=", "TERM_PROGRAM_VERSION=", "PWD=", "OLDPWD=", NULL };
    for (size_t k = 0; window[k]; k++)
        if (!strncmp(e, window[k], strlen(window[k])))
            return true;
    return false;
}

/*
 * The environment of `fleet up` (fctx_env_path()): a tmux server that ran
 * before gives its windows its own, not that of the shell that ran `fleet
 * up`. What describes the window itself stays the supervisor's. A new
 * NULL-terminated array of new strings, or NULL when there is none.
 */
static char **
up_env(const struct fctx *x)
{
    char *p = fctx_env_path(x), *buf = NULL;
    size_t len = 0;
    int rc = file_read_max(p, 4 << 20, true, &buf, &len);
    free(p);
    if (rc)
        return NULL;
    extern char **environ;
    size_t n = 0, cap = 64;
    char **v = xcalloc(cap, sizeof(*v));
    for (size_t off = 0; off < len; off += strlen(buf + off) + 1) {
        if (window_var(buf + off) || !strchr(buf + off, '='))
            continue;
        if (n + 2 > cap)
            v = xrealloc(v, (cap *= 2) * sizeof(*v));
        v[n++] = xstrdup(buf + off);
    }
    for (char **e = environ; *e; e++) {
        if (!window_var(*e))
            continue;
        if (n + 2 > cap)
            v = xrealloc(v, (cap *= 2) * sizeof(*v));
        v[n++] = xstrdup(*e);
    }
    v[n] = NULL;
    free(buf);
    return v;
}

/* Run the command once: its wait status, or -1 when it could not start. */
static int
run_once(struct sup *s, bool tty)
{
    fflush(NULL);
    /* its environment, made before fork: AIRSPACE_AGENT names it for the
     * hooks and commands it runs; AIRSPACE_FLEET marks every process of
     * this fleet, so that down finds one that left its process group */
    extern char **environ;
    char **base = s->env ? s->env : environ;
    size_t ne = 0;
    while (base[ne])
        ne++;
    char **envp = xcalloc(ne + 4, sizeof(*envp));
    size_t k = 0;
    for (size_t i = 0; i < ne; i++)
        if (strncmp(base[i], "AIRSPACE_AGENT=", 15) &&
            strncmp(base[i], "AIRSPACE_FLEET_AGENT=", 21) &&
            strncmp(base[i], "AIRSPACE_FLEET=", 15))
            envp[k++] = base[i];
    char *e1 = xasprintf("AIRSPACE_AGENT=%s", s->a->name);
    char *e2 = xasprintf("AIRSPACE_FLEET_AGENT=%s", s->a->name);
    char *e3 = xasprintf("AIRSPACE_FLEET=%s", s->x->dir);
    envp[k++] = e1;
    envp[k++] = e2;
    envp[k] = e3;
    char *const argv[] = { "sh", "-c", s->a->command, NULL };
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        if (tty)
            tcsetpgrp(0, getpid());
        signal(SIGTTOU, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        execve("/bin/sh", argv, envp);
        _exit(127);
    }
    free(envp);
    free(e1);
    free(e2);
    free(e3);
    if (pid < 0)
        return -1;
    run_pid = pid;
    run_reaped = false;
    run_status = 0;
    setpgid(pid, pid);
    if (tty)
        tcsetpgrp(0, pid);
    struct fleet_proc cp;
    s->child = pid;
    s->child_start = fleet_proc_read(pid, &cp) == 0 ? cp.start : 0;
    report(s, "running", NULL);
    for (reap(); !run_reaped && !stop_sig; reap()) {
        nap(100);
        if (clock_wall_ms() - s->reported_at > 5000)
            report(s, NULL, NULL);
    }
    /* anything it started goes with it: its group, and what left it */
    stop_run();
    int st = run_status;
    if (!run_reaped)
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    run_pid = 0;
    s->child = 0;
    if (tty)
        tcsetpgrp(0, getpgrp());
    return st;
}

int
fleet_run_agent(const char *name)
{
    struct fctx x;
    int rc;
    if ((rc = fctx_open(&x, "fleet run-agent"))) {
        fctx_release(&x);
        return rc;
    }
    const struct fleet_agent *a = fleet_find(&x.f, name);
    if (!a) {
        fprintf(stderr, "airspace fleet run-agent: no agent '%s' in %s\n", name,
            x.fleet_path);
        fctx_release(&x);
        return CLI_EXIT_USAGE;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGTTOU, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    bool tty = isatty(0) && tcgetpgrp(0) == getpgrp();
    /* what the command starts stays below us, however it detaches */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    struct sup s;
    memset(&s, 0, sizeof(s));
    s.x = &x;
    s.a = a;
    s.env = up_env(&x);
    struct fleet_proc self;
    if (fleet_proc_read(getpid(), &self) == 0)
        s.self_start = self.start;
    report(&s, "starting", NULL);
    for (;;) {
        int slot = take_slot(&s);
        if (slot < 0)
            break;
        int64_t started = clock_wall_ms();
        int st = run_once(&s, tty);
        close(slot);
        if (stop_sig)
            break;
        /* a run of a minute or more was no crash loop: the count starts
         * again */
        if (clock_wall_ms() - started >= FLEET_STABLE_MS)
            s.restarts = 0;
        if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
            report(&s, "exited", "exit 0");
            session_over(&s);
            break;
        }
        char why[64];
        if (st < 0)
            snprintf(why, sizeof(why), "could not start");
        else if (WIFEXITED(st))
            snprintf(why, sizeof(why), "exit %d", WEXITSTATUS(st));
        else
            snprintf(why, sizeof(why), "signal %d", WTERMSIG(st));
        if (s.restarts >= x.f.restarts) {
            report(&s, "given-up", why);
            session_over(&s);
            /* stays, so the window says so and the daemon keeps hearing
             * it (a restarted daemon too) */
            while (!stop_sig) {
                nap(1000);
                if (clock_wall_ms() - s.reported_at > 5000)
                    report(&s, NULL, NULL);
            }
            break;
        }
        s.restarts++;
        int64_t wait = x.f.backoff_ms;
        for (unsigned k = 1; k < s.restarts && wait < 300000; k++)
            wait *= 2;
        if (wait > 300000)
            wait = 300000;
        char *w = xasprintf("%s; restart %u of %u in %.1fs", why, s.restarts,
            x.f.restarts, (double)wait / 1000);
        report(&s, "restarting", w);
        free(w);
        nap(wait);
        if (stop_sig)
            break;
    }
    if (stop_sig || !strcmp(s.state, "given-up"))
        report(&s, "stopped", stop_sig ? "fleet down" : NULL);
    if (s.have)
        client_close(&s.cl);
    free(s.state);
    free(s.why);
    for (size_t k = 0; s.env && s.env[k]; k++)
        free(s.env[k]);
    free(s.env);
    fctx_release(&x);
    return CLI_EXIT_OK;
}

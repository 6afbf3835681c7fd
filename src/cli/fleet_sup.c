/*
 * fleet_sup.c - `airspace fleet run-agent NAME`: the supervisor of one
 * agent of a fleet, in its tmux window (docs/fleet.md). It waits for a
 * slot, runs the agent's command in a process group of its own, reports
 * each state to the daemon and to a state file, restarts a crash after a
 * doubling backoff up to the fleet's limit, then gives up and stays,
 * reporting, until stopped.
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
    pid_t child;
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
    json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:o}", "name",
        s->a->name, "state", s->state, "restarts", (json_int_t)s->restarts,
        "pid", (json_int_t)getpid(), "pgid", (json_int_t)s->child, "at",
        (json_int_t)clock_wall_ms(), "lane", fleet_lanes_json(s->a));
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

/* Sleep ms, in small steps, until stopped. */
static void
nap(int64_t ms)
{
    for (int64_t t = 0; t < ms && !stop_sig; t += 50) {
        struct timespec ts = { 0, 50 * 1000000L };
        nanosleep(&ts, NULL);
    }
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

/* Stop the child's process group: TERM, then KILL after 3 s. */
static void
stop_child(pid_t pgid)
{
    kill(-pgid, SIGTERM);
    kill(-pgid, SIGCONT);
    for (int k = 0; k < 60; k++) {
        if (kill(-pgid, 0) < 0 && errno == ESRCH)
            return;
        int st;
        waitpid(pgid, &st, WNOHANG);
        struct timespec ts = { 0, 50 * 1000000L };
        nanosleep(&ts, NULL);
    }
    kill(-pgid, SIGKILL);
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
    size_t ne = 0;
    while (environ[ne])
        ne++;
    char **envp = xcalloc(ne + 4, sizeof(*envp));
    size_t k = 0;
    for (size_t i = 0; i < ne; i++)
        if (strncmp(environ[i], "AIRSPACE_AGENT=", 15) &&
            strncmp(environ[i], "AIRSPACE_FLEET_AGENT=", 21) &&
            strncmp(environ[i], "AIRSPACE_FLEET=", 15))
            envp[k++] = environ[i];
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
    setpgid(pid, pid);
    if (tty)
        tcsetpgrp(0, pid);
    s->child = pid;
    report(s, "running", NULL);
    int st = 0;
    for (;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR) {
            st = -1;
            break;
        }
        if (stop_sig) {
            stop_child(pid);
            waitpid(pid, &st, 0);
            break;
        }
        nap(100);
        if (clock_wall_ms() - s->reported_at > 5000)
            report(s, NULL, NULL);
    }
    /* anything it left in its group goes with it */
    if (kill(-pid, 0) == 0)
        stop_child(pid);
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
    struct sup s;
    memset(&s, 0, sizeof(s));
    s.x = &x;
    s.a = a;
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
    fctx_release(&x);
    return CLI_EXIT_OK;
}

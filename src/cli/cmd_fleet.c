/*
 * cmd_fleet.c - `airspace fleet up|down|status|attach|run-agent`: a fleet
 * of agents, each in its own worktree and lane, in one tmux session
 * (docs/fleet.md).
 *
 * Who does what:
 *   up         reads .airspace/fleet, makes or reuses each agent's
 *              worktree (git/worktree.h; the .airspace/worktreeinclude
 *              files copied, setup run until it succeeded there),
 *              registers each agent with its lane as an intent (a refusal
 *              starts nothing), saves its environment for the agents,
 *              and starts a tmux session named for the repository: a
 *              window "top" (`airspace top`) and one window per agent
 *              running its supervisor.
 *   run-agent  the supervisor of one agent, in its window (fleet_sup.c).
 *   down       stops every supervisor and its agent's process group
 *              (TERM, then KILL after 3 s) when they are provably the
 *              processes the state files recorded (fleet_proc.c), and
 *              what carries the fleet's marker, kills the session, tells
 *              the daemon each agent exited, and says which worktrees
 *              keep uncommitted work or commits not landed (none is
 *              removed).
 *
 * The commands come from the fleet file, as make's come from a Makefile:
 * `fleet up` runs what the repository's fleet file says. No string an
 * agent chose reaches a shell here.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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
#include "client/client.h"
#include "cli/dcli.h"
#include "cli/fleet_int.h"
#include "cli/opts.h"
#include "git/fleet.h"
#include "git/repo.h"
#include "git/worktree.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char usage[] =
    "usage: airspace fleet up [--json]\n"
    "       airspace fleet status [--json]\n"
    "       airspace fleet down [--json]\n"
    "       airspace fleet attach\n"
    "       airspace fleet run-agent NAME   (run by 'up' in NAME's window)\n\n"
    "A fleet of agents from .airspace/fleet (docs/fleet.md), each in its\n"
    "own worktree and lane, in one tmux session: 'up' starts it, 'status'\n"
    "lists agents, state, restarts, lanes and advisories, 'down' stops\n"
    "every agent and its children and says which worktrees keep\n"
    "uncommitted work or commits not landed, 'attach' attaches to the\n"
    "session.\n";

void
fctx_release(struct fctx *x)
{
    fleet_release(&x->f);
    free(x->fleet_path);
    free(x->include_path);
    free(x->dir);
    free(x->session);
    if (x->repo)
        repo_free(x->repo);
}

/* Open the repository at "." and read its fleet file. 0 or an exit code
 * (printed). */
int
fctx_open(struct fctx *x, const char *cmd)
{
    struct as_err e;
    memset(x, 0, sizeof(*x));
    int rc = repo_open(".", &x->repo, &e);
    if (rc) {
        fprintf(stderr, "airspace %s: %s\n", cmd, e.msg);
        return cli_exit_for(rc);
    }
    x->main = repo_main_workdir(x->repo);
    if (!x->main) {
        fprintf(stderr, "airspace %s: a bare repository has no fleet\n", cmd);
        return CLI_EXIT_USAGE;
    }
    x->fleet_path = xasprintf("%s/.airspace/fleet", x->main);
    x->include_path = xasprintf("%s/.airspace/worktreeinclude", x->main);
    char *air = xasprintf("%s/airspace", repo_common_dir(x->repo));
    mkdir(air, 0700);
    x->dir = xasprintf("%s/fleet", air);
    free(air);
    mkdir(x->dir, 0700);
    /* the session: the repository's name and a hash of where it is */
    const char *base = strrchr(x->main, '/');
    base = base ? base + 1 : x->main;
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "airspace-");
    for (const char *p = base; *p && sb.len < 40; p++)
        strbuf_addf(&sb, "%c",
            (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'
                ? *p
                : '_');
    strbuf_addf(
        &sb, "-%04x", (unsigned)(fnv1a_str(FNV1A_INIT, x->main) & 0xffff));
    x->session = sb.s;
    ssize_t n = readlink("/proc/self/exe", x->exe, sizeof(x->exe) - 1);
    if (n <= 0) {
        fprintf(stderr, "airspace %s: cannot find this program: %s\n", cmd,
            strerror(errno));
        return CLI_EXIT_ERROR;
    }
    x->exe[n] = '\0';
    if ((rc = fleet_read(x->fleet_path, &x->f, &e))) {
        fprintf(stderr, "airspace %s: %s%s\n", cmd, e.msg,
            rc == AS_ENOENT ? " (docs/fleet.md says what to write there)" : "");
        return rc == AS_ENOENT ? CLI_EXIT_USAGE : cli_exit_for(rc);
    }
    return 0;
}

/* Run argv (no shell) in dir (NULL: here), quiet: output to /dev/null.
 * Its exit status, or -1 when it could not run. */
static int
run(char *const argv[], const char *dir, bool quiet)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (quiet) {
            int fd = open("/dev/null", O_RDWR);
            if (fd >= 0) {
                dup2(fd, 1);
                dup2(fd, 2);
            }
        }
        if (dir && chdir(dir) < 0)
            _exit(126);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static bool
session_up(const struct fctx *x)
{
    char *target = xasprintf("=%s", x->session);
    char *argv[] = { "tmux", "has-session", "-t", target, NULL };
    bool up = run(argv, NULL, true) == 0;
    free(target);
    return up;
}

char *
fctx_state_path(const struct fctx *x, const char *name)
{
    return xasprintf("%s/%s.json", x->dir, name);
}

char *
fctx_env_path(const struct fctx *x)
{
    return xasprintf("%s/env", x->dir);
}

/* The state file of agent name, or NULL. */
static json_t *
state_read(const struct fctx *x, const char *name)
{
    char *p = fctx_state_path(x, name);
    json_t *j = json_load_file(p, 0, NULL);
    free(p);
    return json_is_object(j) ? j : (j ? (json_decref(j), NULL) : NULL);
}

/*
 * The pid of the supervisor that wrote the state file st, when that very
 * process still runs (its start time and the boot match); else 0. The
 * pid of one that exited may be another process's by now.
 */
static pid_t
state_supervisor(json_t *st)
{
    pid_t pid = (pid_t)json_integer_value(json_object_get(st, "pid"));
    json_int_t start = json_integer_value(json_object_get(st, "pidStart"));
    const char *boot = json_string_value(json_object_get(st, "boot"));
    if (!boot || strcmp(boot, fleet_boot_id()) || start <= 0 ||
        !fleet_proc_same(pid, (unsigned long long)start))
        return 0;
    return pid;
}

/* The process group of the command the state file st names, when its
 * leader still runs, is the one recorded and still leads it; else 0. */
static pid_t
state_group(json_t *st)
{
    pid_t pgid = (pid_t)json_integer_value(json_object_get(st, "pgid"));
    json_int_t start = json_integer_value(json_object_get(st, "pgidStart"));
    const char *boot = json_string_value(json_object_get(st, "boot"));
    struct fleet_proc p;
    if (!boot || strcmp(boot, fleet_boot_id()) || start <= 0 ||
        !fleet_proc_same(pgid, (unsigned long long)start) ||
        fleet_proc_read(pgid, &p) || p.pgrp != pgid)
        return 0;
    return pgid;
}

json_t *
fleet_lanes_json(const struct fleet_agent *a)
{
    json_t *v = json_array();
    for (size_t k = 0; k < a->nlanes; k++)
        json_array_append_new(v, json_string(a->lanes[k]));
    return v;
}

/* An agent's lanes (a JSON array) as one line, "a b", or "-" (new). */
static char *
lanes_text(json_t *lanes)
{
    struct strbuf sb = STRBUF_INIT;
    size_t k;
    json_t *l;
    json_array_foreach(lanes, k, l)
        strbuf_addf(&sb, "%s%s", k ? " " : "", json_string_value(l));
    return sb.s ? sb.s : xstrdup("-");
}

/* ---- up ---- */

/* The options of up, status and down: --json. */
static bool
opt_json(int argc, char **argv, const char *cmd, int *rc)
{
    bool json = false;
    const struct opt table[] = { OPT_JSON(&json), OPT_TABLE_END };
    *rc = opts_parse(argc, argv, table, cmd, usage, OPTS_NO_OPERANDS);
    return json;
}

/* The file that says an agent's setup succeeded in the worktree at dir:
 * in that worktree's git directory, so it goes with the worktree (new
 * string); NULL when dir/.git names none. */
static char *
setup_marker(const char *dir)
{
    char *dotgit = xasprintf("%s/.git", dir), *buf = NULL, *out = NULL;
    size_t len;
    if (file_read_max(dotgit, 4096, true, &buf, &len) == 0 &&
        !strncmp(buf, "gitdir: ", 8)) {
        char *g = buf + 8;
        g[strcspn(g, "\r\n")] = '\0';
        if (*g == '/')
            out = xasprintf("%s/airspace-setup-done", g);
        else if (*g)
            out = xasprintf("%s/%s/airspace-setup-done", dir, g);
    }
    free(buf);
    free(dotgit);
    return out;
}

/* Make or reuse agent a's worktree: its path (new string) or NULL after
 * printing why. Setup runs until it has succeeded once in that worktree
 * (a marker written on success): a reused worktree whose setup failed
 * gets it again, not an agent started without it. */
static char *
agent_worktree(struct fctx *x, const struct fleet_agent *a, json_t *out)
{
    struct as_err e;
    char *dir = worktree_default_dir(x->main, a->name);
    char *dotgit = xasprintf("%s/.git", dir);
    struct stat st;
    bool exists = stat(dotgit, &st) == 0;
    free(dotgit);
    if (exists) {
        json_object_set_new(out, "made", json_false());
    } else {
        struct worktree_info w;
        int rc = worktree_new(x->main, a->name, NULL, dir, &w, &e);
        if (rc) {
            fprintf(
                stderr, "airspace fleet up: agent '%s': %s\n", a->name, e.msg);
            free(dir);
            return NULL;
        }
        worktree_info_release(&w);
        json_object_set_new(out, "made", json_true());
    }
    char **copied;
    size_t n;
    if (fleet_include_copy(x->main, dir, x->include_path, &copied, &n, &e)) {
        fprintf(stderr, "airspace fleet up: %s\n", e.msg);
        free(dir);
        return NULL;
    }
    /* the agent clients' settings, as `agent new` copies them */
    json_t *cv = copy_client_config(x->main, dir);
    for (size_t k = 0; k < n; k++) {
        json_array_append_new(cv, json_string(copied[k]));
        free(copied[k]);
    }
    free(copied);
    json_object_set_new(out, "copied", cv);
    char *marker = a->setup ? setup_marker(dir) : NULL;
    if (a->setup && (!exists || !marker || access(marker, F_OK) != 0)) {
        if (marker)
            unlink(marker);
        fprintf(
            stderr, "airspace fleet up: %s: setup: %s\n", a->name, a->setup);
        char *argv[] = { "/bin/sh", "-c", a->setup, NULL };
        int st2 = run(argv, dir, false);
        if (st2) {
            fprintf(stderr,
                "airspace fleet up: agent '%s': setup '%s' failed (exit %d); "
                "its worktree is at %s (the next 'fleet up' runs setup "
                "again)\n",
                a->name, a->setup, st2, dir);
            free(marker);
            free(dir);
            return NULL;
        }
        if (marker &&
            file_write_atomic(marker, a->setup, strlen(a->setup), &e) < 0)
            fprintf(stderr,
                "airspace fleet up: %s (the next 'fleet up' runs setup "
                "again)\n",
                e.msg);
        json_object_set_new(out, "setup", json_true());
    }
    free(marker);
    return dir;
}

/* Drop agent a's intents that are its lanes (declared by a former up):
 * each up declares them afresh, down drops them. */
static void
drop_lane_intents(struct client *cl, const struct fleet_agent *a)
{
    long status;
    json_t *reply = NULL, *lanes = fleet_lanes_json(a);
    struct as_err e;
    if (client_call(cl, api_intents(a->name), &status, &reply, &e) == 0 &&
        status == 200) {
        size_t k;
        json_t *in;
        json_array_foreach(json_object_get(reply, "intents"), k, in)
        {
            if (!json_equal(json_object_get(in, "files"), lanes) ||
                strcmp(dcli_str(in, "agent"), a->name))
                continue;
            json_t *r2 = NULL;
            client_call(cl,
                api_intent_drop(
                    json_integer_value(json_object_get(in, "id")), a->name),
                &status, &r2, &e);
            if (r2)
                json_decref(r2);
        }
    }
    if (reply)
        json_decref(reply);
    json_decref(lanes);
}

/*
 * Register agent a and its lane (an intent) with the daemon. Returns
 * whether both were taken (said on stderr when not); *registered says
 * whether the agent itself was, so that a failed `up` can take it back.
 */
static bool
agent_register(struct client *cl, const struct fleet_agent *a, const char *dir,
    json_t *out, bool *registered)
{
    long status;
    json_t *reply = NULL;
    struct as_err e;
    char *branch = xasprintf("%s%s", WORKTREE_BRANCH_PREFIX, a->name);
    json_t *body =
        json_pack("{s:s, s:s, s:s, s:s, s:o}", "id", a->name, "client", "fleet",
            "worktree", dir, "branch", branch, "lanes", fleet_lanes_json(a));
    free(branch);
    bool ok = client_call(cl, api_register(body), &status, &reply, &e) == 0 &&
              status == 200;
    *registered = ok;
    if (!ok)
        fprintf(stderr,
            "airspace fleet up: the daemon did not register '%s': %s\n",
            a->name, reply ? client_error_message(reply) : e.msg);
    if (reply)
        json_decref(reply);
    reply = NULL;
    if (ok)
        drop_lane_intents(cl, a);
    if (ok && a->nlanes) {
        /* no summary: the same words for every lane would read as one
         * task declared twice (the detector's duplicate check) */
        body = json_pack("{s:s, s:o, s:I}", "agent", a->name, "files",
            fleet_lanes_json(a), "ttlMs", (json_int_t)7 * 24 * 3600 * 1000);
        ok = client_call(cl, api_intent(body), &status, &reply, &e) == 0 &&
             status == 200;
        if (!ok)
            fprintf(stderr,
                "airspace fleet up: the lane of '%s' is not declared: %s\n",
                a->name, reply ? client_error_message(reply) : e.msg);
        if (reply)
            json_decref(reply);
    }
    json_object_set_new(out, "registered", json_boolean(ok));
    return ok;
}

/* Take back what a failed `up` registered: agent a leaves as at `down`
 * (its lane intents dropped, its exit told). */
static void
agent_unregister(struct client *cl, const struct fleet_agent *a)
{
    long status;
    json_t *reply = NULL;
    struct as_err e;
    drop_lane_intents(cl, a);
    client_call(cl, api_exit(a->name), &status, &reply, &e);
    if (reply)
        json_decref(reply);
}

/*
 * Refuse fleet agents whose names other agents fly under, as `agent new`
 * does: the agent of a worktree on a branch other than airspace/NAME is
 * named for that branch (the main worktree on `main` is agent "main"),
 * and the daemon would register the fleet agent's worktree under another
 * name, which its supervisor, its lane and `down` do not know. The
 * daemon's agents when it answers, and the worktrees either way (the
 * daemon may not have read them yet). 0, or CLI_EXIT_FAIL (printed).
 */
static int
names_free(struct fctx *x, struct client *cl)
{
    struct repo_worktree *wts = NULL;
    size_t nwts = 0;
    struct as_err e;
    json_t *reply = NULL;
    long status;
    if (cl && (client_call(cl, api_agents(false), &status, &reply, &e) ||
                  status != 200)) {
        if (reply)
            json_decref(reply);
        reply = NULL;
    }
    if (repo_worktrees(x->repo, &wts, &nwts, &e))
        nwts = 0;
    int rc = 0;
    for (size_t i = 0; !rc && i < x->f.nagents; i++) {
        const char *name = x->f.agents[i].name, *st = NULL, *wt = NULL;
        char *dir = worktree_default_dir(x->main, name);
        size_t k;
        json_t *a;
        json_array_foreach(json_object_get(reply, "agents"), k, a)
        {
            const char *id = json_string_value(json_object_get(a, "id"));
            const char *ast = json_string_value(json_object_get(a, "status"));
            const char *awt = json_string_value(json_object_get(a, "worktree"));
            if (!id || strcmp(id, name) || (ast && !strcmp(ast, "exited")) ||
                file_same_dir(awt, dir))
                continue;
            st = ast ? ast : "active";
            wt = awt;
        }
        for (k = 0; !st && k < nwts; k++) {
            if (wts[k].prunable ||
                strcmp(worktree_agent_name(wts[k].branch, wts[k].name), name) ||
                file_same_dir(wts[k].path, dir))
                continue;
            st = wts[k].branch ? "its worktree is on that branch"
                               : "its worktree has that name";
            wt = wts[k].path;
        }
        if (st) {
            fprintf(stderr,
                "airspace fleet up: agent '%s' already flies (%s%s%s): "
                "pick another name in '%s'; nothing started\n",
                name, st, wt ? ", in " : "", wt ? wt : "", x->fleet_path);
            rc = CLI_EXIT_FAIL;
        }
        free(dir);
    }
    repo_worktrees_free(wts, nwts);
    if (reply)
        json_decref(reply);
    return rc;
}

/*
 * Save this environment for the agents' supervisors (fctx_env_path(),
 * mode 0600 in the fleet's directory; `down` removes it): a tmux server
 * that runs already gives its windows its own environment, not this one,
 * and tmux's command line (-e) would show every value, keys too, to
 * anyone who lists processes.
 */
static void
env_save(const struct fctx *x)
{
    extern char **environ;
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; environ[i]; i++)
        if (strncmp(environ[i], "TMUX=", 5) &&
            strncmp(environ[i], "TMUX_PANE=", 10))
            strbuf_addf(&sb, "%s%c", environ[i], '\0');
    char *p = fctx_env_path(x);
    struct as_err e;
    if (file_write_atomic(p, sb.s ? sb.s : "", sb.len, &e))
        fprintf(stderr,
            "airspace fleet up: the agents get the tmux server's environment, "
            "not this one: %s\n",
            e.msg);
    free(p);
    free(sb.s);
}

static int
fleet_up(int argc, char **argv)
{
    int rc;
    bool json = opt_json(argc, argv, "fleet up", &rc);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    struct fctx x;
    if ((rc = fctx_open(&x, "fleet up"))) {
        fctx_release(&x);
        return rc;
    }
    char *version[] = { "tmux", "-V", NULL };
    if (run(version, NULL, true) != 0) {
        fprintf(stderr, "airspace fleet up: tmux is not installed (or does "
                        "not run): the fleet runs in a tmux session\n");
        fctx_release(&x);
        return CLI_EXIT_ERROR;
    }
    if (session_up(&x)) {
        fprintf(stderr,
            "airspace fleet up: the fleet is up already (tmux session '%s'): "
            "'airspace fleet down' first\n",
            x.session);
        fctx_release(&x);
        return CLI_EXIT_FAIL;
    }
    struct client cl;
    struct as_err e;
    int orc = dcli_client_open(&cl, x.main, true, &e);
    if (orc == AS_EINVAL) { /* the daemon would not start: nothing done */
        fprintf(stderr, "airspace fleet up: %s\n", e.msg);
        fctx_release(&x);
        return CLI_EXIT_USAGE;
    }
    bool have = orc == 0;
    if (!have)
        fprintf(stderr,
            "airspace fleet up: the daemon cannot be reached (%s): lanes are "
            "not declared\n",
            e.msg);
    else
        cl.timeout_ms = 10000;
    if ((rc = names_free(&x, have ? &cl : NULL))) {
        if (have)
            client_close(&cl);
        fctx_release(&x);
        return rc;
    }
    json_t *agents = json_array();
    char **dirs = xcalloc(x.f.nagents, sizeof(*dirs));
    rc = CLI_EXIT_OK;
    for (size_t i = 0; i < x.f.nagents && !rc; i++) {
        const struct fleet_agent *a = &x.f.agents[i];
        json_t *o = json_pack(
            "{s:s, s:o}", "name", a->name, "lane", fleet_lanes_json(a));
        if (!(dirs[i] = agent_worktree(&x, a, o))) {
            json_decref(o);
            rc = CLI_EXIT_FAIL;
            break;
        }
        json_object_set_new(o, "worktree", json_string(dirs[i]));
        /* a fresh start: no state left from a former run */
        char *sp = fctx_state_path(&x, a->name);
        unlink(sp);
        free(sp);
        json_array_append_new(agents, o);
    }
    /* Every worktree is ready: the agents and their lanes, all or none.
     * An agent the daemon refused would run unregistered, laneless and
     * unseen by the others: nothing is started, and those registered
     * here leave again. */
    bool *reg = xcalloc(x.f.nagents + 1, sizeof(*reg));
    for (size_t i = 0; have && !rc && i < x.f.nagents; i++)
        if (!agent_register(&cl, &x.f.agents[i], dirs[i],
                json_array_get(agents, i), &reg[i]))
            rc = CLI_EXIT_FAIL;
    if (rc && have) {
        for (size_t i = 0; i < x.f.nagents; i++)
            if (reg[i])
                agent_unregister(&cl, &x.f.agents[i]);
        fprintf(stderr, "airspace fleet up: nothing started (the worktrees "
                        "are kept for the next 'fleet up')\n");
    }
    free(reg);
    if (have)
        client_close(&cl);
    if (!rc)
        env_save(&x);
    if (!rc) {
        /* the session: the live view, then one window per agent */
        char *target = xasprintf("=%s:", x.session);
        char *top[] = { "tmux", "new-session", "-d", "-s", x.session, "-n",
            "top", "-c", (char *)x.main, "-x", "200", "-y", "50", x.exe, "top",
            NULL };
        if (run(top, NULL, false) != 0) {
            fprintf(stderr,
                "airspace fleet up: tmux cannot start session "
                "'%s'\n",
                x.session);
            rc = CLI_EXIT_ERROR;
            char *envp = fctx_env_path(&x); /* nothing runs to read it */
            unlink(envp);
            free(envp);
        }
        for (size_t i = 0; !rc && i < x.f.nagents; i++) {
            char *name = x.f.agents[i].name;
            char *win[] = { "tmux", "new-window", "-d", "-t", target, "-n",
                name, "-c", dirs[i], x.exe, "fleet", "run-agent", name, NULL };
            if (run(win, NULL, false) != 0) {
                fprintf(stderr,
                    "airspace fleet up: tmux cannot open the window of '%s'\n",
                    name);
                rc = CLI_EXIT_ERROR;
            }
            char *wt = xasprintf("=%s:%s", x.session, name);
            char *keep[] = { "tmux", "set-option", "-w", "-t", wt,
                "remain-on-exit", "on", NULL };
            run(keep, NULL, true);
            free(wt);
        }
        free(target);
    }
    if (json) {
        json_t *o =
            json_pack("{s:s, s:b, s:I, s:O}", "session", x.session, "up", !rc,
                "concurrency", (json_int_t)x.f.concurrency, "agents", agents);
        dcli_print_json(o);
        json_decref(o);
    } else if (!rc) {
        size_t i;
        json_t *o;
        json_array_foreach(agents, i, o)
        {
            char *lanes = lanes_text(json_object_get(o, "lane"));
            printf("%-16s %s worktree %s, lane %s\n", dcli_str(o, "name"),
                json_is_true(json_object_get(o, "made")) ? "new" : "reused",
                dcli_str(o, "worktree"),
                x.f.agents[i].nlanes ? lanes : "(none)");
            free(lanes);
        }
        printf("fleet up: %zu agents in tmux session '%s' (at most %u at "
               "once); 'airspace fleet attach' to watch\n",
            x.f.nagents, x.session, x.f.concurrency);
    }
    json_decref(agents);
    for (size_t i = 0; i < x.f.nagents; i++)
        free(dirs[i]);
    free(dirs);
    fctx_release(&x);
    return rc;
}

/* ---- status ---- */

/* Each agent: the fleet file, its state file, the daemon's advisories. */
static json_t *
status_json(struct fctx *x, struct client *cl, bool have)
{
    json_t *v = json_array();
    for (size_t i = 0; i < x->f.nagents; i++) {
        const struct fleet_agent *a = &x->f.agents[i];
        json_t *st = state_read(x, a->name);
        pid_t pid = state_supervisor(st);
        const char *state = json_string_value(json_object_get(st, "state"));
        if (!state)
            state = "down";
        else if (strcmp(state, "stopped") && strcmp(state, "exited") && !pid)
            state = "gone"; /* its supervisor died */
        char *dir = worktree_default_dir(x->main, a->name);
        json_t *o = json_pack("{s:s, s:s, s:I, s:o, s:s}", "name", a->name,
            "state", state, "restarts",
            (json_int_t)json_integer_value(json_object_get(st, "restarts")),
            "lane", fleet_lanes_json(a), "worktree", dir);
        free(dir);
        if (json_object_get(st, "why"))
            json_object_set(o, "why", json_object_get(st, "why"));
        if (pid)
            json_object_set_new(o, "pid", json_integer(pid));
        json_t *adv = json_array();
        if (have) {
            long status;
            json_t *reply = NULL;
            struct as_err e;
            if (client_call(cl, api_advisories(a->name), &status, &reply, &e) ==
                    0 &&
                status == 200) {
                size_t k;
                json_t *ad;
                json_array_foreach(json_object_get(reply, "advisories"), k, ad)
                {
                    const char *pa = dcli_str(ad, "a"), *pb = dcli_str(ad, "b");
                    json_array_append_new(
                        adv, json_pack("{s:s, s:s, s:O}", "with",
                                 strcmp(pa, a->name) ? pa : pb, "level",
                                 dcli_str(ad, "level"), "risk",
                                 json_object_get(ad, "risk")));
                }
            }
            if (reply)
                json_decref(reply);
        }
        json_object_set_new(o, "advisories", adv);
        json_array_append_new(v, o);
        if (st)
            json_decref(st);
    }
    return v;
}

static int
fleet_status(int argc, char **argv)
{
    int rc;
    bool json = opt_json(argc, argv, "fleet status", &rc);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    struct fctx x;
    if ((rc = fctx_open(&x, "fleet status"))) {
        fctx_release(&x);
        return rc;
    }
    struct client cl;
    struct as_err e;
    bool have = client_open(&cl, x.main, false, &e) == 0;
    if (have)
        cl.timeout_ms = 5000;
    json_t *agents = status_json(&x, &cl, have);
    client_close(&cl);
    bool up = session_up(&x);
    if (json) {
        json_t *o = json_pack("{s:s, s:b, s:I, s:I, s:I, s:o}", "session",
            x.session, "up", up, "concurrency", (json_int_t)x.f.concurrency,
            "restarts", (json_int_t)x.f.restarts, "backoffMs",
            (json_int_t)x.f.backoff_ms, "agents", agents);
        dcli_print_json(o);
        json_decref(o);
    } else {
        printf(
            "fleet %s (tmux session '%s')\n\n", up ? "up" : "down", x.session);
        /* every lane, in columns as wide as the longest */
        size_t i, wname = 16, wlane = 24;
        json_t *a;
        char **lanes = xcalloc(json_array_size(agents) + 1, sizeof(*lanes));
        json_array_foreach(agents, i, a)
        {
            lanes[i] = lanes_text(json_object_get(a, "lane"));
            if (strlen(lanes[i]) > wlane)
                wlane = strlen(lanes[i]);
            if (strlen(dcli_str(a, "name")) > wname)
                wname = strlen(dcli_str(a, "name"));
        }
        printf("%-*s %-11s %8s  %-*s %s\n", (int)wname, "AGENT", "STATE",
            "RESTARTS", (int)wlane, "LANE", "ADVISORIES");
        json_array_foreach(agents, i, a)
        {
            struct strbuf adv = STRBUF_INIT;
            size_t k;
            json_t *d;
            json_array_foreach(json_object_get(a, "advisories"), k, d)
                strbuf_addf(&adv, "%s%s with %s", k ? ", " : "",
                    dcli_str(d, "level"), dcli_str(d, "with"));
            printf("%-*s %-11s %8lld  %-*s %s\n", (int)wname,
                dcli_str(a, "name"), dcli_str(a, "state"),
                (long long)json_integer_value(json_object_get(a, "restarts")),
                (int)wlane, lanes[i], adv.s ? adv.s : "-");
            free(adv.s);
            free(lanes[i]);
        }
        free(lanes);
        json_decref(agents);
    }
    fctx_release(&x);
    return CLI_EXIT_OK;
}

/* ---- down ---- */

/*
 * Stop every process that carries the fleet's marker (AIRSPACE_FLEET=dir
 * in its environment): an agent's process that left its process group
 * and its supervisor (setsid, a daemonizing tool, a supervisor killed)
 * still inherited it. TERM, up to 3 s, KILL; each process known by its
 * start time, so that a pid reused meanwhile is not signalled.
 */
static void
stop_marked(const char *dir)
{
    struct fleet_procs told = { 0 };
    for (int t = 0; t <= 10; t++) {
        struct fleet_procs now = { 0 };
        fleet_procs_marked(&now, dir);
        size_t left = now.n;
        for (size_t i = 0; i < now.n; i++)
            if (t == 10 || !fleet_procs_has(&told, &now.v[i])) {
                struct fleet_procs one = { &now.v[i], 1, 1 };
                fleet_procs_signal(&one, t == 10 ? SIGKILL : SIGTERM);
                fleet_procs_add(&told, &now.v[i]);
            }
        fleet_procs_release(&now);
        if (!left)
            break;
        struct timespec ts = { 0, 300 * 1000000L };
        if (t < 10)
            nanosleep(&ts, NULL);
    }
    fleet_procs_release(&told);
}

static int
fleet_down(int argc, char **argv)
{
    int rc;
    bool json = opt_json(argc, argv, "fleet down", &rc);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    struct fctx x;
    if ((rc = fctx_open(&x, "fleet down"))) {
        fctx_release(&x);
        return rc;
    }
    /* Only the processes the state files name that are provably those:
     * a supervisor, and the leader of its command's group, that run and
     * started when recorded. An agent that exited or was given up long
     * ago left pids that may be anybody's by now. */
    size_t n = x.f.nagents;
    struct fleet_procs sups = { 0 }, grps = { 0 }, members = { 0 };
    for (size_t i = 0; i < n; i++) {
        json_t *st = state_read(&x, x.f.agents[i].name);
        struct fleet_proc p;
        pid_t sup = state_supervisor(st), grp = state_group(st);
        if (sup && fleet_proc_read(sup, &p) == 0) {
            fleet_procs_add(&sups, &p);
            kill(sup, SIGTERM);
        }
        if (grp && fleet_proc_read(grp, &p) == 0) {
            /* its members now, by their start times too: for the KILL,
             * when the leader may be gone */
            fleet_procs_add(&grps, &p);
            fleet_procs_group(&members, grp);
            kill(-grp, SIGTERM);
            kill(-grp, SIGCONT);
        }
        if (st)
            json_decref(st);
    }
    /* the supervisors stop their commands and report; then the rest */
    for (int t = 0; t < 80; t++) {
        if (!fleet_procs_signal(&sups, 0) && !fleet_procs_signal(&members, 0))
            break;
        struct timespec ts = { 0, 50 * 1000000L };
        nanosleep(&ts, NULL);
    }
    for (size_t i = 0; i < grps.n; i++) {
        struct fleet_proc p;
        if (fleet_proc_same(grps.v[i].pid, grps.v[i].start) &&
            fleet_proc_read(grps.v[i].pid, &p) == 0 && p.pgrp == p.pid)
            kill(-p.pid, SIGKILL);
    }
    fleet_procs_signal(&members, SIGKILL);
    fleet_procs_signal(&sups, SIGKILL);
    fleet_procs_release(&sups);
    fleet_procs_release(&grps);
    fleet_procs_release(&members);
    /* what left its group and its supervisor */
    stop_marked(x.dir);
    char *envp = fctx_env_path(&x);
    unlink(envp);
    free(envp);
    bool was_up = session_up(&x);
    if (was_up) {
        char *target = xasprintf("=%s", x.session);
        char *kill_argv[] = { "tmux", "kill-session", "-t", target, NULL };
        run(kill_argv, NULL, true);
        free(target);
    }
    /* the daemon: each agent exited (its locks, claims and lane go) */
    struct client cl;
    struct as_err e;
    bool have = client_open(&cl, x.main, false, &e) == 0;
    json_t *agents = json_array();
    char *into = NULL;
    if (repo_integration_branch(x.repo, &into, &e))
        into = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct fleet_agent *a = &x.f.agents[i];
        if (have) {
            drop_lane_intents(&cl, a);
            long status;
            json_t *reply = NULL;
            client_call(&cl, api_exit(a->name), &status, &reply, &e);
            if (reply)
                json_decref(reply);
        }
        char *dir = worktree_default_dir(x.main, a->name);
        size_t dirty = 0;
        char *some = NULL;
        struct stat stt;
        bool exists = stat(dir, &stt) == 0;
        if (exists && fleet_worktree_dirty(dir, &dirty, &some, &e))
            dirty = 0;
        /* committed is not landed: a worktree is clean when neither */
        size_t ahead = 0;
        if (exists && into)
            fleet_worktree_unlanded(dir, into, &ahead, &e);
        json_t *o = json_pack("{s:s, s:s, s:b, s:I, s:I}", "name", a->name,
            "worktree", dir, "exists", exists, "uncommitted", (json_int_t)dirty,
            "notLanded", (json_int_t)ahead);
        if (some)
            json_object_set_new(o, "files", json_string(some));
        json_array_append_new(agents, o);
        if (!json && exists) {
            struct strbuf what = STRBUF_INIT;
            if (dirty)
                strbuf_addf(&what, "uncommitted work (%zu file%s: %s)", dirty,
                    dirty == 1 ? "" : "s", some);
            if (ahead)
                strbuf_addf(&what, "%s%zu commit%s not landed on %s",
                    dirty ? " and " : "", ahead, ahead == 1 ? "" : "s", into);
            if (what.s)
                printf(
                    "%-16s left in place with %s: %s\n", a->name, what.s, dir);
            else
                printf("%-16s clean, left in place: %s\n", a->name, dir);
            free(what.s);
        }
        free(some);
        free(dir);
    }
    free(into);
    client_close(&cl);
    if (json) {
        json_t *o = json_pack("{s:s, s:b, s:o}", "session", x.session, "wasUp",
            was_up, "agents", agents);
        dcli_print_json(o);
        json_decref(o);
    } else {
        json_decref(agents);
        printf("fleet down: %s\n", was_up ? "every agent stopped, session "
                                            "closed"
                                          : "no session was up");
    }
    fctx_release(&x);
    return CLI_EXIT_OK;
}

/* ---- attach ---- */

static int
fleet_attach(int argc, char **argv)
{
    const struct opt none[] = { OPT_TABLE_END };
    int rc =
        opts_parse(argc, argv, none, "fleet attach", usage, OPTS_NO_OPERANDS);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    struct fctx x;
    if ((rc = fctx_open(&x, "fleet attach"))) {
        fctx_release(&x);
        return rc;
    }
    if (!session_up(&x)) {
        fprintf(stderr, "airspace fleet attach: the fleet is not up ('airspace "
                        "fleet up' starts it)\n");
        fctx_release(&x);
        return CLI_EXIT_FAIL;
    }
    char *target = xasprintf("=%s", x.session);
    const char *tmux_env = getenv("TMUX");
    char *argv2[] = { "tmux",
        tmux_env && *tmux_env ? "switch-client" : "attach-session", "-t",
        target, NULL };
    fflush(NULL);
    execvp("tmux", argv2);
    fprintf(stderr, "airspace fleet attach: cannot run tmux: %s\n",
        strerror(errno));
    free(target);
    fctx_release(&x);
    return CLI_EXIT_ERROR;
}

/* run-agent NAME: the supervisor (fleet_sup.c). */
static int
fleet_run(int argc, char **argv)
{
    const struct opt none[] = { OPT_TABLE_END };
    int rc = opts_parse(argc, argv, none, "fleet run-agent", usage, 0);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if (optind + 1 != argc)
        return dcli_usage("fleet run-agent", "expected the agent's NAME");
    return fleet_run_agent(argv[optind]);
}

int
cmd_fleet(int argc, char **argv)
{
    static const struct opt_sub subs[] = {
        { "up", fleet_up },
        { "down", fleet_down },
        { "status", fleet_status },
        { "attach", fleet_attach },
        { "run-agent", fleet_run },
        { NULL, NULL },
    };
    return opts_dispatch(argc, argv, subs, "fleet", usage);
}

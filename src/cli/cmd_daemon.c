/*
 * cmd_daemon.c - the commands that run or talk to the daemon: serve, stop,
 * status, agents, advisories, watch, and `api` for raw requests.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "broker/broker.h"
#include "cli/cli.h"
#include "client/client.h"
#include "client/session.h"
#include "cli/dcli.h"
#include "cli/opts.h"
#include "cli/event_text.h"
#include "git/config.h"
#include "git/paths.h"
#include "git/repo.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Options every client command takes. */
struct copts {
    const char *repo;
    bool json, no_start;
};

/* Parse --repo, --json, --no-start and -h; leave the rest at optind. */
static int
client_opts(int argc, char **argv, struct copts *o, const char *usage)
{
    const struct opt table[] = {
        OPT_REPO(&o->repo),
        OPT_JSON(&o->json),
        OPT_NO_START(&o->no_start),
        OPT_TABLE_END,
    };
    o->repo = ".";
    return opts_parse(argc, argv, table, argv[0], usage, OPTS_IN_ORDER);
}

/* ---- serve ---- */

static const char serve_usage[] =
    "usage: airspace serve [--repo DIR] [--tcp PORT] [--stale-ms MS]\n"
    "                      [--rescan-ms MS] [--debounce-ms MS] [--tick-ms MS]\n"
    "                      [--threads N] [--window-ms MS] [--set "
    "KEY=VALUE]...\n"
    "                      [--idle-exit-ms MS] [--agent-timeout-ms MS]\n"
    "                      [--request-timeout-ms MS] [--conn-idle-ms MS]\n"
    "                      [--merge-budget-ms MS] [--store URL]\n"
    "                      [--max-connections N] [--max-peer-connections N]\n"
    "                      [--log-stderr]\n"
    "\n"
    "Run the repository's daemon in the foreground until SIGTERM,\n"
    "'airspace stop', its repository is gone, or --idle-exit-ms (default\n"
    "1800000, 0: never) pass with no active agent and no client.\n"
    "Commands that need it start it on demand. A registered agent silent\n"
    "for --agent-timeout-ms (default 3600000, 0: never) is forgotten.\n"
    "A request must arrive whole within --request-timeout-ms (default\n"
    "10000) of its first byte; a connection with no request in it closes\n"
    "after --conn-idle-ms (default 60000). At most --max-connections\n"
    "(default 512) are served at once, --max-peer-connections (default 64)\n"
    "of them from one process; more are answered 503.\n"
    "The config files' [daemon] and [risk] settings (docs/config.md) apply\n"
    "under these options.\n"
    "--store URL (or store.url) names the store: a path, sqlite:PATH, or\n"
    "a postgresql:// URL shared by a team's daemons (docs/team.md).\n";

static bool
parse_ms(const char *s, int64_t min, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || end == s || v < min)
        return false;
    *out = v;
    return true;
}

/*
 * Put the configuration files of the repository at o->repo_path under the
 * options given: each timer not given on the command line, and the [risk]
 * settings ahead of the --set ones (*sets, a new array of *nset strings
 * that owns the file's entries: free with free_sets()). A path outside any
 * repository reads the user file only; broker_run() reports that.
 */
static int
serve_config(struct broker_options *o, const bool given[CONFIG_NTIMERS],
    const char *const *cli_sets, size_t ncli, char ***sets, size_t *nset,
    size_t *nfile, struct as_err *e)
{
    int64_t *timer[CONFIG_NTIMERS] = {
        [CONFIG_STALE_MS] = &o->stale_ms,
        [CONFIG_RESCAN_MS] = &o->rescan_ms,
        [CONFIG_DEBOUNCE_MS] = &o->debounce_ms,
        [CONFIG_TICK_MS] = &o->tick_ms,
        [CONFIG_WINDOW_MS] = &o->window_ms,
        [CONFIG_IDLE_EXIT_MS] = &o->idle_exit_ms,
        [CONFIG_AGENT_TIMEOUT_MS] = &o->agent_timeout_ms,
        [CONFIG_REQUEST_TIMEOUT_MS] = &o->req_timeout_ms,
        [CONFIG_CONN_IDLE_MS] = &o->conn_idle_ms,
        [CONFIG_MERGE_BUDGET_MS] = &o->merge_budget_ms,
    };
    struct repo *repo = NULL;
    struct config c;
    struct as_err ignored;
    config_init(&c);
    if (repo_open(o->repo_path, &repo, &ignored))
        repo = NULL;
    int rc = config_read(&c, repo, e);
    if (repo)
        repo_free(repo);
    if (rc) {
        config_release(&c);
        return rc;
    }
    /* the model's thresholds in order, checked here where it is known
     * which file or --set gave each (a bad --set is the daemon's to
     * refuse) */
    struct risk_config cfg;
    risk_config_default(&cfg);
    config_apply_risk(&c, &cfg);
    bool sets_ok = true;
    for (size_t i = 0; i < ncli && sets_ok; i++) {
        const char *eq = strchr(cli_sets[i], '=');
        char *key =
            eq ? xstrndup(cli_sets[i], (size_t)(eq - cli_sets[i])) : NULL;
        sets_ok = key && !risk_config_set(&cfg, key, eq + 1, NULL);
        free(key);
    }
    if (sets_ok && (rc = config_check_risk(&c, cli_sets, ncli, &cfg, e))) {
        config_release(&c);
        return rc;
    }
    if (c.alerts_warning)
        fprintf(stderr, "airspace serve: warning: %s\n", c.alerts_warning);
    /* [store]: the daemon's for its whole life */
    if (!o->store_url && c.store_url)
        o->store_url = xstrdup(c.store_url);
    if (c.store_airspace)
        o->store_airspace = xstrdup(c.store_airspace);
    if (c.store_node)
        o->store_node = xstrdup(c.store_node);
    if (c.store_wip_remote)
        o->store_wip_remote = xstrdup(c.store_wip_remote);
    for (int t = 0; t < CONFIG_NTIMERS; t++)
        if (!given[t] && c.timer[t] >= 0)
            *timer[t] = c.timer[t];
    if (c.alerts_silent_ms > 0)
        o->alerts_silent_ms = c.alerts_silent_ms;
    if (c.alerts_waiting_ms > 0)
        o->alerts_waiting_ms = c.alerts_waiting_ms;
    if (c.alerts_repeat_ms >= 0)
        o->alerts_repeat_ms = c.alerts_repeat_ms;
    if (c.alerts_cap >= 0)
        o->alerts_cap = c.alerts_cap;
    if (c.alerts_command) { /* the daemon's: kept for its whole life */
        static char *command;
        free(command);
        o->alerts_command = command = xstrdup(c.alerts_command);
    }
    *nfile = c.nrisk;
    *nset = c.nrisk + ncli;
    *sets = xcalloc(*nset + 1, sizeof(**sets));
    for (size_t i = 0; i < c.nrisk; i++)
        (*sets)[i] = xasprintf("%s=%s", c.risk[i].key, c.risk[i].value);
    for (size_t i = 0; i < ncli; i++)
        (*sets)[c.nrisk + i] = (char *)cli_sets[i];
    config_release(&c);
    return 0;
}

static void
free_sets(char **sets, size_t nfile)
{
    for (size_t i = 0; i < nfile; i++)
        free(sets[i]);
    free(sets);
}

static int
set_store(void *target, const char *arg, const char *cmd)
{
    const char *why = config_store_url_check(arg);
    if (why)
        return dcli_usage(cmd, "--store '%s': %s", arg, why);
    *(const char **)target = arg;
    return 0;
}

int
cmd_serve(int argc, char **argv)
{
    struct broker_options o;
    broker_options_init(&o);
    struct opt_list sets = { .n = 0 };
    bool given[CONFIG_NTIMERS] = { false };
    long tcp = o.tcp_port;
    int64_t threads = o.threads, ready_fd = o.ready_fd, max_conns = o.max_conns,
            max_peer_conns = o.max_peer_conns;
#define SERVE_MS(opt, field, timer, least, msg)                                \
    {                                                                          \
        .name = opt, .kind = OPT_INT64, .target = &o.field,                    \
        .given = &given[timer], .min = least, .bad = msg                       \
    }
    const struct opt table[] = {
        { .name = "repo", .kind = OPT_STRING, .target = &o.repo_path },
        { .name = "tcp",
            .kind = OPT_NUMBER,
            .target = &tcp,
            .min = 1,
            .max = 65535,
            .bad = "--tcp takes a port" },
        SERVE_MS("stale-ms", stale_ms, CONFIG_STALE_MS, 1,
            "--stale-ms takes ms > 0"),
        SERVE_MS("rescan-ms", rescan_ms, CONFIG_RESCAN_MS, 10,
            "--rescan-ms takes ms >= 10"),
        SERVE_MS("debounce-ms", debounce_ms, CONFIG_DEBOUNCE_MS, 0,
            "--debounce-ms takes ms >= 0"),
        SERVE_MS("merge-budget-ms", merge_budget_ms, CONFIG_MERGE_BUDGET_MS, 0,
            "--merge-budget-ms takes ms >= 0"),
        SERVE_MS(
            "tick-ms", tick_ms, CONFIG_TICK_MS, 10, "--tick-ms takes ms >= 10"),
        { .name = "threads",
            .kind = OPT_INT64,
            .target = &threads,
            .min = 1,
            .max = 64,
            .bad = "--threads takes 1..64" },
        { .name = "log-stderr", .kind = OPT_FLAG, .target = &o.log_stderr },
        { .name = "ready-fd",
            .kind = OPT_INT64,
            .target = &ready_fd,
            .min = 0,
            .max = 1 << 20,
            .bad = "--ready-fd takes a descriptor" },
        { .name = "set", .kind = OPT_LIST, .target = &sets },
        { .name = "store",
            .kind = OPT_CALL,
            .target = &o.store_url,
            .fn = set_store },
        SERVE_MS("window-ms", window_ms, CONFIG_WINDOW_MS, 1,
            "--window-ms takes ms > 0"),
        SERVE_MS("idle-exit-ms", idle_exit_ms, CONFIG_IDLE_EXIT_MS, 0,
            "--idle-exit-ms takes ms >= 0"),
        SERVE_MS("agent-timeout-ms", agent_timeout_ms, CONFIG_AGENT_TIMEOUT_MS,
            0, "--agent-timeout-ms takes ms >= 0"),
        SERVE_MS("request-timeout-ms", req_timeout_ms,
            CONFIG_REQUEST_TIMEOUT_MS, 100,
            "--request-timeout-ms takes ms >= 100"),
        SERVE_MS("conn-idle-ms", conn_idle_ms, CONFIG_CONN_IDLE_MS, 100,
            "--conn-idle-ms takes ms >= 100"),
        { .name = "max-connections",
            .kind = OPT_INT64,
            .target = &max_conns,
            .min = 1,
            .max = 1 << 20,
            .bad = "--max-connections takes 1..1048576" },
        { .name = "max-peer-connections",
            .kind = OPT_INT64,
            .target = &max_peer_conns,
            .min = 1,
            .max = 1 << 20,
            .bad = "--max-peer-connections takes 1..1048576" },
        OPT_TABLE_END,
    };
#undef SERVE_MS
    int rc = opts_parse(argc, argv, table, "serve", serve_usage, 0);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    o.tcp_port = (int)tcp;
    o.threads = (unsigned)threads;
    o.ready_fd = (int)ready_fd;
    o.max_conns = (int)max_conns;
    o.max_peer_conns = (int)max_peer_conns;
    if (optind < argc)
        return dcli_usage("serve", "unexpected argument '%s'", argv[optind]);
    struct as_err e;
    char **all_sets;
    size_t nall, nfile;
    if (serve_config(&o, given, sets.v, sets.n, &all_sets, &nall, &nfile, &e)) {
        fprintf(stderr, "airspace serve: %s\n", e.msg);
        broker_not_serving(&o, e.msg, true);
        free((char *)o.store_wip_remote);
        return CLI_EXIT_USAGE;
    }
    o.set = (const char *const *)all_sets;
    o.nset = nall;
    {
        /* what sessions that ended without a word left behind */
        struct broker_paths p;
        struct as_err pe;
        if (broker_paths_resolve(o.repo_path, false, &p, &pe) == 0) {
            session_prune(p.dir, (long long)time(NULL));
            broker_paths_release(&p);
        }
    }
    rc = broker_run(&o, &e);
    free_sets(all_sets, nfile);
    free((char *)o.store_wip_remote);
    if (rc) {
        fprintf(stderr, "airspace serve: %s\n", e.msg);
        return rc == AS_ECONFLICT ? CLI_EXIT_FAIL
               : rc == AS_EINVAL  ? CLI_EXIT_USAGE
                                  : CLI_EXIT_ERROR;
    }
    return CLI_EXIT_OK;
}

/* ---- stop / status ---- */

/* Attempts to reach a daemon that holds the repository but is busy (each
 * waits up to the client's 2 s answer time, then a quarter second). */
#define STOP_TRIES 8

int
cmd_stop(int argc, char **argv)
{
    struct copts o = { 0 };
    int rc = client_opts(argc, argv, &o,
        "usage: airspace stop [--repo DIR] [--json] [--no-start]\n\n"
        "Stop the repository's daemon and wait until it is gone. With no\n"
        "daemon running it says so and exits 0. It never starts one\n"
        "(--no-start changes nothing). --json prints {\"stopped\": true,\n"
        "\"pid\": N}, or {\"stopped\": false} when none ran.\n");
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    o.no_start = true;
    struct client cl;
    struct as_err e;
    /* a daemon alive but busy (a long request, a rescan): wait for it,
     * bounded, rather than say none runs */
    int tries = 0;
    int orc;
    while ((orc = client_open(&cl, o.repo, false, &e))) {
        if (orc == AS_ENOENT) { /* not a repository: as every command */
            fprintf(stderr, "airspace stop: %s\n", e.msg);
            return CLI_EXIT_USAGE;
        }
        if (!client_daemon_alive(o.repo)) {
            fprintf(stderr, "airspace stop: no daemon is running\n");
            if (o.json) {
                json_t *out = json_pack("{s:b}", "stopped", 0);
                dcli_print_json(out);
                json_decref(out);
            }
            return CLI_EXIT_OK;
        }
        if (++tries >= STOP_TRIES) {
            fprintf(stderr,
                "airspace stop: a daemon holds the repository but does "
                "not answer (%s); not stopped\n",
                e.msg);
            return CLI_EXIT_ERROR;
        }
        usleep(250 * 1000);
    }
    json_t *reply = NULL;
    long long pid = 0;
    long status;
    if (o.json && !client_call(&cl, api_status(), &status, &reply, &e) &&
        status == 200)
        pid = json_integer_value(json_object_get(reply, "pid"));
    if (reply)
        json_decref(reply);
    reply = NULL;
    rc = dcli_call(&cl, "stop", api_stop(), &reply);
    /* Wait until the socket stops answering (bounded). */
    for (int i = 0; i < 100 && !rc && client_ping(&cl); i++)
        usleep(50000);
    if (reply)
        json_decref(reply);
    client_close(&cl);
    if (!rc && o.json) {
        json_t *out =
            pid ? json_pack("{s:b, s:I}", "stopped", 1, "pid", (json_int_t)pid)
                : json_pack("{s:b}", "stopped", 1);
        dcli_print_json(out);
        json_decref(out);
    }
    return rc;
}

/* What the daemon's import graph is doing, unless it is ready. */
static void
print_index(json_t *ix)
{
    const char *state = dcli_str(ix, "state");
    long long done = json_integer_value(json_object_get(ix, "done"));
    long long total = json_integer_value(json_object_get(ix, "total"));
    if (!strcmp(state, "indexing") && total)
        printf("indexing %lld/%lld files (the dependency and symbol channels "
               "wait for it)\n",
            done, total);
    else if (!strcmp(state, "indexing"))
        printf("indexing: listing the files (the dependency and symbol "
               "channels wait for it)\n");
    else if (!strcmp(state, "failed"))
        printf("no import graph: %s (dependency and symbol channels off)\n",
            dcli_str(ix, "error"));
}

/* The store, when it is not the default or not taking writes: a team
 * store (docs/team.md) with its airspace, or what refuses writes. */
static void
print_store(json_t *store)
{
    const char *backend = dcli_str(store, "backend");
    const char *state = dcli_str(store, "state");
    if (!strcmp(backend, "postgresql"))
        printf("team store: airspace %s, node %s: %s\n",
            dcli_str(store, "airspace"), dcli_str(store, "node"), state);
    if (strcmp(state, "ok") && json_object_get(store, "error"))
        printf("store %s: %s\n", state, dcli_str(store, "error"));
}

int
cmd_status(int argc, char **argv)
{
    struct copts o = { 0 };
    int rc = client_opts(argc, argv, &o,
        "usage: airspace status [--repo DIR] [--json] [--no-start]\n\n"
        "One screen: the daemon, agents, advisories, conflicts, escalations\n"
        "waiting for a human, alerts (what needs a person now), and locks.\n");
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    struct client cl;
    if ((rc = dcli_open(&cl, o.repo, o.no_start, "status")))
        return rc;
    json_t *st = NULL, *ag = NULL, *adv = NULL, *lk = NULL, *cf = NULL;
    if (!(rc = dcli_call(&cl, "status", api_status(), &st)) &&
        !(rc = dcli_call(&cl, "status", api_agents(false), &ag)) &&
        !(rc = dcli_call(&cl, "status", api_advisories(NULL), &adv)) &&
        !(rc = dcli_call(&cl, "status", api_locks(NULL), &lk)) &&
        !(rc = dcli_call(&cl, "status", api_conflicts(), &cf))) {
        /* the advisories' reply carries the escalations */
        json_t *esc = json_object_get(adv, "escalations");
        if (!json_is_array(esc))
            esc = NULL;
        if (o.json) {
            json_t *all = json_pack("{s:O, s:O, s:O, s:O, s:O, s:o}", "daemon",
                st, "agents", json_object_get(ag, "agents"), "advisories",
                json_object_get(adv, "advisories"), "locks",
                json_object_get(lk, "locks"), "conflicts",
                json_object_get(cf, "conflicts"), "escalations",
                esc ? json_incref(esc) : json_array());
            json_object_set(all, "alerts", json_object_get(adv, "alerts"));
            dcli_print_json(all);
            json_decref(all);
        } else {
            printf("airspace daemon pid %lld on %s (integration %s)\n",
                (long long)json_integer_value(json_object_get(st, "pid")),
                dcli_str(st, "repository"), dcli_str(st, "integration"));
            print_index(json_object_get(st, "index"));
            print_store(json_object_get(st, "store"));
            size_t i;
            json_t *a;
            printf("\n%-20s %-8s %-12s %-8s %5s  %s\n", "AGENT", "KIND",
                "CLIENT", "STATUS", "FILES", "WORKTREE");
            /* what agents sent (ids, clients, texts) is shown escaped */
            struct event_texts t = { 0 };
            json_array_foreach(json_object_get(ag, "agents"), i, a) printf(
                "%-20s %-8s %-12s %-8s %5lld  %s\n",
                event_text_show(&t, dcli_str(a, "id"), NULL),
                event_text_show(&t, dcli_str(a, "kind"), NULL),
                event_text_show(&t, dcli_str(a, "client"), NULL),
                event_text_show(&t, dcli_agent_state(a), NULL),
                (long long)json_integer_value(json_object_get(a, "fileCount")),
                event_text_show(&t, dcli_str(a, "worktree"), NULL));
            json_t *list = json_object_get(adv, "advisories");
            if (!json_array_size(list))
                printf("\nno advisories\n");
            else
                printf("\n%-10s %5s  %-20s %-20s %s\n", "LEVEL", "RISK", "HOLD",
                    "STEER", "PAIR");
            json_array_foreach(list, i, a) printf(
                "%-10s %5.2f  %-20s %-20s %s ~ %s\n", dcli_str(a, "level"),
                json_real_value(json_object_get(a, "risk")),
                event_text_show(&t, dcli_str(a, "hold"), NULL),
                event_text_show(&t, dcli_str(a, "steer"), NULL),
                event_text_show(&t, dcli_str(a, "a"), NULL),
                event_text_show(&t, dcli_str(a, "b"), NULL));
            list = json_object_get(cf, "conflicts");
            if (json_array_size(list))
                printf("\n%-11s %-20s %-20s %s\n", "CONFLICT", "AGENT", "WITH",
                    "FILE");
            json_array_foreach(list, i, a)
            {
                json_t *pair = json_object_get(a, "agents");
                char other[256];
                dcli_conflict_with(a, other, sizeof(other));
                printf("%-11s %-20s %-20s %s%s\n", dcli_str(a, "shape"),
                    event_text_show(
                        &t, json_string_value(json_array_get(pair, 0)), NULL),
                    event_text_show(&t, other, NULL),
                    event_text_show(&t, dcli_str(a, "file"), NULL),
                    json_is_true(json_object_get(a, "escalated"))
                        ? "  (escalated)"
                        : "");
            }
            if (json_array_size(esc))
                printf("\n%zu escalation%s wait%s for a human (read them with "
                       "'airspace inbox --agent supervisor'):\n",
                    json_array_size(esc), json_array_size(esc) == 1 ? "" : "s",
                    json_array_size(esc) == 1 ? "s" : "");
            json_array_foreach(esc, i, a) printf(
                "  %s\n", event_text_show(&t, dcli_str(a, "text"), "      "));
            list = json_object_get(adv, "alerts");
            if (json_array_size(list))
                printf("\n%zu alert%s (airspace alerts):\n",
                    json_array_size(list),
                    json_array_size(list) == 1 ? "" : "s");
            json_array_foreach(list, i, a) printf("  %-15s %s\n",
                event_text_show(&t, dcli_str(a, "kind"), NULL),
                event_text_show(&t, dcli_str(a, "text"), "      "));
            list = json_object_get(lk, "locks");
            if (json_array_size(list))
                printf("\n%-40s %-20s %-6s %s\n", "LOCK", "HOLDER", "KIND",
                    "EXPIRES IN");
            json_array_foreach(list, i, a) printf("%-40s %-20s %-6s %llds\n",
                event_text_show(&t, dcli_str(a, "pattern"), NULL),
                event_text_show(&t, dcli_str(a, "holder"), NULL),
                dcli_str(a, "kind"),
                (long long)json_integer_value(
                    json_object_get(a, "expiresInMs")) /
                    1000);
            event_texts_release(&t);
        }
    }
    if (lk)
        json_decref(lk);
    if (cf)
        json_decref(cf);
    if (st)
        json_decref(st);
    if (ag)
        json_decref(ag);
    if (adv)
        json_decref(adv);
    client_close(&cl);
    return rc;
}

/* ---- agents / advisories ---- */

static int
simple_get(int argc, char **argv, const char *cmd, const char *usage)
{
    struct copts o = { 0 };
    int rc = client_opts(argc, argv, &o, usage);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if (optind < argc)
        return dcli_usage(cmd, "unexpected argument '%s'", argv[optind]);
    struct client cl;
    if ((rc = dcli_open(&cl, o.repo, o.no_start, cmd)))
        return rc;
    json_t *reply = NULL;
    rc = dcli_call(&cl, cmd,
        strcmp(cmd, "agents") ? api_advisories(NULL) : api_agents(false),
        &reply);
    if (!rc) {
        if (o.json) {
            dcli_print_json(reply);
        } else {
            json_t *list = json_object_get(reply, cmd);
            size_t i;
            json_t *a;
            if (!strcmp(cmd, "agents"))
                json_array_foreach(list, i, a)
                {
                    long long n =
                        json_integer_value(json_object_get(a, "fileCount"));
                    printf("%-20s %-8s %-8s %3lld %-5s  %s\n",
                        dcli_str(a, "id"), dcli_str(a, "kind"),
                        dcli_agent_state(a), n, n == 1 ? "file" : "files",
                        dcli_str(a, "worktree"));
                }
            else
                json_array_foreach(list, i, a)
                    printf("%-10s %5.2f  hold %-16s steer %-16s\n",
                        dcli_str(a, "level"),
                        json_real_value(json_object_get(a, "risk")),
                        dcli_str(a, "hold"), dcli_str(a, "steer"));
            if (!json_array_size(list))
                printf("no %s\n", cmd);
        }
    }
    if (reply)
        json_decref(reply);
    client_close(&cl);
    return rc;
}

int
cmd_agents(int argc, char **argv)
{
    return simple_get(argc, argv, "agents",
        "usage: airspace agents [--repo DIR] [--json] [--no-start]\n\n"
        "List the agents flying in this repository.\n");
}

int
cmd_advisories(int argc, char **argv)
{
    return simple_get(argc, argv, "advisories",
        "usage: airspace advisories [--repo DIR] [--json] [--no-start]\n\n"
        "List the pairs with a traffic or resolution advisory.\n");
}

/* ---- watch ---- */

struct watch {
    bool json;
    long remaining; /* -1: forever */
};

static int
on_event(void *ctx, const char *id, const char *type, const char *data)
{
    struct watch *w = ctx;
    if (w->json) {
        printf("%s\n", data);
    } else {
        json_t *ev = json_loads(data, 0, NULL);
        if (ev) {
            struct strbuf line = STRBUF_INIT;
            event_text_line(&line, ev, false);
            printf("%s\n", line.s);
            free(line.s);
            json_decref(ev);
        } else {
            printf("%s %s (unreadable event)\n", id, type);
        }
    }
    fflush(stdout);
    if (w->remaining > 0 && --w->remaining == 0)
        return 1;
    return 0;
}

/* --after ID: the events after ID */
static int
opt_after(void *target, const char *arg, const char *cmd)
{
    int64_t v;
    if (!parse_ms(arg, 0, &v))
        return dcli_usage(cmd, "--after takes an event id");
    *(long *)target = (long)v;
    return 0;
}

/* --since ID: the events from ID on, so those after ID - 1 */
static int
opt_since(void *target, const char *arg, const char *cmd)
{
    int64_t v;
    if (!parse_ms(arg, 1, &v))
        return dcli_usage(cmd, "--since takes an event id >= 1");
    *(long *)target = (long)v - 1;
    return 0;
}

static int
opt_count(void *target, const char *arg, const char *cmd)
{
    int64_t v;
    if (!parse_ms(arg, 1, &v))
        return dcli_usage(cmd, "--count takes a number > 0");
    *(long *)target = (long)v;
    return 0;
}

int
cmd_watch(int argc, char **argv)
{
    static const char usage[] =
        "usage: airspace watch [--repo DIR] [--json] [--no-start]\n"
        "                      [--since ID | --after ID] [--count N]\n\n"
        "Follow the events of the airspace from now on, one line each with\n"
        "what happened (--json: the event objects). --since ID first\n"
        "replays the recorded events from ID on, --after ID those after ID.\n";
    struct copts o = { 0 };
    o.repo = ".";
    long after = -1, since = -1, count = -1;
    const struct opt table[] = {
        OPT_REPO(&o.repo),
        OPT_JSON(&o.json),
        OPT_NO_START(&o.no_start),
        { .name = "after",
            .kind = OPT_CALL,
            .target = &after,
            .fn = opt_after },
        { .name = "since",
            .kind = OPT_CALL,
            .target = &since,
            .fn = opt_since },
        { .name = "count",
            .kind = OPT_CALL,
            .target = &count,
            .fn = opt_count },
        OPT_TABLE_END,
    };
    int prc = opts_parse(argc, argv, table, "watch", usage, 0);
    if (prc)
        return prc < 0 ? CLI_EXIT_OK : prc;
    if (optind < argc)
        return dcli_usage("watch", "unexpected '%s'", argv[optind]);
    if (after >= 0 && since >= 0)
        return dcli_usage("watch", "--since and --after exclude each other");
    if (since >= 0)
        after = since;
    struct client cl;
    int rc;
    if ((rc = dcli_open(&cl, o.repo, o.no_start, "watch")))
        return rc;
    cl.timeout_ms = 0;
    /* without after the daemon replays nothing: from now on */
    char *path = api_events_path(after);
    struct watch w = { o.json, count };
    struct as_err e;
    rc = client_stream(&cl, path, on_event, &w, &e);
    free(path);
    client_close(&cl);
    if (rc) {
        fprintf(stderr, "airspace watch: %s\n", e.msg);
        return CLI_EXIT_UNREACHABLE;
    }
    return CLI_EXIT_OK;
}

/* ---- api: a raw request ---- */

int
cmd_api(int argc, char **argv)
{
    struct copts o = { 0 };
    int rc = client_opts(argc, argv, &o,
        "usage: airspace api [--repo DIR] [--no-start] METHOD PATH [JSON]\n\n"
        "Send one request to the daemon and print the JSON reply; the exit\n"
        "code follows the HTTP status (docs/cli.md).\n");
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if (argc - optind < 2 || argc - optind > 3)
        return dcli_usage("api", "expected METHOD PATH [JSON]");
    const char *method = argv[optind], *path = argv[optind + 1];
    if (strcmp(method, "GET") && strcmp(method, "POST") &&
        strcmp(method, "DELETE") && strcmp(method, "PUT"))
        return dcli_usage("api", "unknown method '%s'", method);
    if (path[0] != '/')
        return dcli_usage("api", "the path must start with '/'");
    json_t *body = NULL;
    if (argc - optind == 3) {
        json_error_t je;
        body = json_loads(argv[optind + 2], 0, &je);
        if (!body)
            return dcli_usage("api", "malformed JSON: %s", je.text);
    }
    struct client cl;
    if ((rc = dcli_open(&cl, o.repo, o.no_start, "api"))) {
        if (body)
            json_decref(body);
        return rc;
    }
    long status;
    json_t *reply = NULL;
    struct as_err e;
    if (client_request(&cl, method, path, body, &status, &reply, &e)) {
        fprintf(stderr, "airspace api: %s\n", e.msg);
        rc = CLI_EXIT_UNREACHABLE;
    } else {
        if (reply)
            dcli_print_json(reply);
        rc = client_exit_code(status);
    }
    if (reply)
        json_decref(reply);
    if (body)
        json_decref(body);
    client_close(&cl);
    return rc;
}

/*
 * cmd_scan.c - `airspace scan`: score every pair of agents once and print
 * the advisories. Agents come from the repository's worktrees (and, with
 * --branches, its local branches) or from an --agents JSON file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "view/gitview.h"
#include "cli/agents_json.h"
#include "cli/cli.h"
#include "cli/dcli.h"
#include "cli/opts.h"
#include "cli/progress.h"
#include "view/scan.h"
#include "cli/scan_print.h"
#include "git/align.h"
#include "git/config.h"
#include "git/fleet.h"
#include "git/files.h"
#include "git/merge.h"
#include "git/repo.h"
#include "git/worktree.h"
#include "git/workset.h"
#include "lang/lang.h"
#include "lang/repograph.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include "util/clock.h"
#include "util/banned.h"

struct scan_opts {
    bool json, explain, branches, no_merge, no_graph;
    bool model_given;     /* --model: the files' [risk] settings do not apply */
    struct opt_list sets; /* --set KEY=VALUE, checked, in order */
    const char *agents_path, *repo_dir, *integration, *fail_on;
    int color; /* -1 auto, 0 never, 1 always */
    int64_t now_ms;
    unsigned threads;
    bool progress;      /* stderr is a terminal, and no --json; or --progress */
    bool progress_flag; /* --progress */
};

static const char scan_usage[] =
    "usage: airspace scan [options]\n"
    "\n"
    "Score every pair of agents flying in this repository and print the\n"
    "advisories. Agents are the repository's worktrees (each one's work is\n"
    "the diff from its base to its working tree, uncommitted work included),\n"
    "or the agents of an --agents file.\n"
    "\n"
    "options:\n"
    "  --json                 print the report as JSON (docs/cli.md)\n"
    "  --explain              per-channel breakdown and evidence per pair\n"
    "  --agents FILE          score the working sets in FILE ('-' = stdin)\n"
    "  --repo DIR             repository or directory to read (default: .)\n"
    "  --branches             also fly every local branch not checked out\n"
    "  --integration BRANCH   branch agents are based on (default:\n"
    "                         airspace.integration from the configuration\n"
    "                         (docs/config.md), else the main worktree's\n"
    "                         branch)\n"
    "  --fail-on LEVEL        exit 1 when a 'traffic' or 'resolution'\n"
    "                         advisory (or worse) exists\n"
    "  --model NAME           'airspace' (default) or 'ecc' (compatible\n"
    "                         settings of the reference model); either\n"
    "                         ignores the [risk] settings of config files\n"
    "  --set KEY=VALUE        override a model constant (docs/risk-model.md),\n"
    "                         over the config files (docs/config.md)\n"
    "  --no-merge             skip the speculative merge channel\n"
    "  --no-graph             skip the import graph (no dependency/symbol)\n"
    "  --now MS               evaluate at this time (ms since the epoch)\n"
    "  --threads N            threads for parsing and scoring (default 2)\n"
    "  --progress             show the first index's progress on stderr\n"
    "                         even when it is not a terminal (or --json)\n"
    "  --color WHEN           auto (default), always or never; NO_COLOR is\n"
    "                         honoured\n"
    "  -h, --help             show this help\n";

/* ---- graph sources ---- */

static void
take_stats(struct scan_report *r, const struct repograph_stats *st, double t0)
{
    r->gstats.files = st->files;
    r->gstats.source_files = st->source_files;
    r->gstats.parsed = st->parsed;
    r->gstats.cached = st->cached;
    r->gstats.edges = st->edges;
    r->gstats.build_ms = clock_mono_ms() - t0;
    r->have_graph = true;
}

/* The whole repository at the integration branch's tip, and (base not
 * NULL) where every agent's view starts (gitview_agent_view()). */
static int
graph_from_git(struct scan_report *r, struct repo *repo,
    const struct scan_opts *o, struct gitview_base *base, struct as_err *e)
{
    double t0 = clock_mono_ms();
    struct repograph_stats st = { 0 };
    struct progress_line pl = { "airspace scan: indexing", "files", 0, 0 };
    int rc = gitview_graph_snap(repo, r->integration, o->threads, &r->graph,
        base, o->progress ? progress_draw : NULL, &pl, &st, e);
    progress_erase(&pl);
    if (!rc)
        take_stats(r, &st, t0);
    return rc;
}

/* Where the facts of a plain directory are cached:
 * $XDG_CACHE_HOME/airspace (or ~/.cache/airspace), one file per directory
 * named by a hash of its real path; NULL (no cache) when neither is set
 * or the directory cannot be made. */
static char *
dir_cache_path(const char *dir)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char *base;
    if (xdg && *xdg == '/')
        base = xasprintf("%s/airspace", xdg);
    else if (home && *home == '/')
        base = xasprintf("%s/.cache/airspace", home);
    else
        return NULL;
    char *real = realpath(dir, NULL);
    if (!real) {
        free(base);
        return NULL;
    }
    /* mkdir -p of the last two components is enough: ~/.cache may be new */
    char *parent = xstrndup(base, (size_t)(strrchr(base, '/') - base));
    if ((mkdir(parent, 0700) < 0 && errno != EEXIST) ||
        (mkdir(base, 0700) < 0 && errno != EEXIST)) {
        free(parent);
        free(base);
        free(real);
        return NULL;
    }
    uint64_t h = fnv1a_str(FNV1A_INIT, real);
    char *path = xasprintf("%s/dir-%016llx.cache", base, (unsigned long long)h);
    free(parent);
    free(base);
    free(real);
    return path;
}

/* A plain directory (for --agents with --repo DIR outside git). */
static int
graph_from_dir(struct scan_report *r, const char *dir,
    const struct scan_opts *o, struct as_err *e)
{
    double t0 = clock_mono_ms();
    struct repograph_file *files;
    size_t n;
    int rc = repograph_scan_dir(dir, &files, &n, e);
    if (rc)
        return rc;
    struct repograph_options ro = { 0 };
    ro.threads = o->threads;
    char *cache = dir_cache_path(dir);
    ro.cache_path = cache;
    /* the built graph is kept next to the facts: dir-HASH.snap */
    char *snap =
        cache ? xasprintf("%.*s.snap", (int)(strlen(cache) - 6), cache) : NULL;
    ro.snapshot_path = snap;
    struct progress_line pl = { "airspace scan: indexing", "files", 0, 0 };
    ro.progress = o->progress ? progress_draw : NULL;
    ro.progress_ctx = &pl;
    struct repograph_stats st = { 0 };
    graph_init(&r->graph);
    rc = repograph_build(
        &r->graph, files, n, repograph_read_dir, (void *)dir, &ro, &st, e);
    progress_erase(&pl);
    free(cache);
    free(snap);
    if (!rc)
        take_stats(r, &st, t0);
    else
        graph_release(&r->graph);
    repograph_scan_dir_free(files, n);
    return rc;
}

/* ---- agents from git ---- */

/* Told by the git layer about a file kept without its content. */
static void
warn_uncaptured(void *ctx, const char *msg)
{
    fprintf(stderr,
        "airspace scan: warning: worktree '%s': %s; counted as a whole-file "
        "change\n",
        (const char *)ctx, msg);
}

/* Leave out the agent just added (r->agents[r->nagents - 1]), which could
 * not be read, with a warning: one unreadable worktree or branch must not
 * hide every other pair. */
static void
skip_agent(struct scan_report *r, const char *worktree, const char *branch,
    const struct as_err *e)
{
    if (worktree)
        fprintf(stderr, "airspace scan: warning: skipping worktree '%s': %s\n",
            worktree, e->msg);
    else
        fprintf(stderr, "airspace scan: warning: skipping branch '%s': %s\n",
            branch, e->msg);
    scan_report_skip(r, worktree, branch, e->msg);
    r->nagents--;
    agent_release(&r->agents[r->nagents]);
    memset(&r->agents[r->nagents], 0, sizeof(r->agents[r->nagents]));
}

/* Fail unless the integration branch names a commit: without it no agent
 * has a base, and that is no partial result. from: where the name came
 * from, for the message. */
static int
check_integration(
    struct repo *repo, const char *integ, const char *from, struct as_err *e)
{
    const char *name = strncmp(integ, "refs/heads/", 11) ? integ : integ + 11;
    char *full = xasprintf("refs/heads/%s", name);
    git_oid oid;
    int rc = repo_resolve_commit(repo, full, &oid, NULL);
    free(full);
    if (rc < 0 && repo_resolve_commit(repo, integ, &oid, NULL) < 0)
        return as_errorf(e, AS_ENOENT,
            "integration branch '%s' (from %s) does not name a commit", integ,
            from);
    return 0;
}

static int
agents_from_git(struct scan_report *r, struct repo *repo,
    const struct scan_opts *o, struct as_err *e)
{
    struct repo_worktree *wts;
    size_t nwt;
    int rc = repo_worktrees(repo, &wts, &nwt, e);
    if (rc)
        return rc;
    char **branches = NULL;
    size_t nbr = 0;
    if (o->branches && (rc = repo_branches(repo, &branches, &nbr, e))) {
        repo_worktrees_free(wts, nwt);
        return rc;
    }
    r->agents = xcalloc(nwt + nbr + 1, sizeof(*r->agents));
    struct workset_options wo;
    workset_options_init(&wo);
    wo.integration = r->integration;
    wo.now_ms = r->now_ms;
    wo.untracked = true;
    wo.warn = warn_uncaptured;
    for (size_t i = 0; i < nwt && !rc; i++) {
        if (wts[i].prunable)
            continue;
        const char *name = worktree_agent_name(wts[i].branch, wts[i].name);
        char *id = gitview_unique_id(r->agents, r->nagents, name);
        struct agent *a = &r->agents[r->nagents];
        agent_init(a, id);
        free(id);
        r->nagents++;
        if (!a->worktree)
            a->worktree = xstrdup(wts[i].path);
        wo.warn_ctx = wts[i].path;
        if (workset_from_worktree(repo, wts[i].path, &wo, a, e) < 0)
            skip_agent(r, wts[i].path, wts[i].branch, e);
        else
            gitview_recency(&r->cfg, a, r->now_ms);
    }
    for (size_t i = 0; i < nbr && !rc; i++) {
        bool checked_out = false;
        for (size_t j = 0; j < nwt && !checked_out; j++)
            checked_out = wts[j].branch && !strcmp(wts[j].branch, branches[i]);
        if (checked_out)
            continue;
        /* named as the daemon and `agent new` name it: airspace/NAME is
         * NAME */
        char *id = gitview_unique_id(r->agents, r->nagents,
            worktree_agent_name(branches[i], branches[i]));
        struct agent *a = &r->agents[r->nagents];
        agent_init(a, id);
        free(id);
        r->nagents++;
        if (workset_from_branch(repo, branches[i], &wo, a, e) < 0)
            skip_agent(r, NULL, branches[i], e);
        else
            gitview_recency(&r->cfg, a, r->now_ms);
    }
    repo_branches_free(branches, nbr);
    repo_worktrees_free(wts, nwt);
    return rc;
}

/* Told by the git layer about an agent left on its own base. */
static void
warn_unaligned(void *ctx, const struct agent *a, const char *msg)
{
    (void)ctx;
    fprintf(stderr,
        "airspace scan: warning: agent '%s' stays on its own base (lines in "
        "its numbering): %s\n",
        a->id, msg);
}

/* Bring agents on different bases onto the newest one (git/align.h), so
 * pairs compare ranges in one numbering and the merge channel merges over
 * one base. Before agents_add_names(), whose names it would drop. */
static void
agents_align(struct scan_report *r, struct repo *repo)
{
    struct align_cache *cache = align_cache_new();
    struct align_stats st;
    struct as_err e;

    if (align_agents(
            repo, cache, r->agents, r->nagents, warn_unaligned, NULL, &st, &e))
        fprintf(stderr,
            "airspace scan: warning: %s; agents stay on their own bases\n",
            e.msg);
    else if (!st.linear)
        fprintf(stderr,
            "airspace scan: warning: no agent's base descends from every "
            "other's; agents stay on their own bases\n");
    align_cache_free(cache);
}

/* Parse each agent's own copy of its changed source files so the symbol
 * channel sees the uses and definitions it adds, and the dependency and
 * symbol channels the imports it adds (the graph holds the integration
 * branch's version only), each in that agent's view of the graph: the
 * daemon's gitview_agent_view(), which puts the base resolver back after
 * each agent, so no agent's files or configuration resolve another's
 * imports. */
static void
agents_add_names(
    struct scan_report *r, struct gitview_base *base, struct repo *repo)
{
    size_t failed = 0;
    for (size_t i = 0; i < r->nagents; i++)
        failed += gitview_agent_view(&r->graph, base, repo, &r->agents[i]);
    if (failed)
        fprintf(stderr,
            "airspace scan: %zu changed files could not be parsed; their "
            "new uses are not seen\n",
            failed);
}

/* ---- the options that check their value (opts.h's OPT_CALL) ---- */

static int
opt_fail_on(void *target, const char *v, const char *cmd)
{
    if (strcmp(v, "traffic") && strcmp(v, "resolution"))
        return dcli_usage(
            cmd, "--fail-on takes 'traffic' or 'resolution', not '%s'", v);
    *(const char **)target = v;
    return 0;
}

/* --set KEY=VALUE: checked now, applied over the config files later. */
static int
opt_set(void *target, const char *v, const char *cmd)
{
    struct scan_opts *o = target;
    const char *eq = strchr(v, '=');
    if (!eq)
        return dcli_usage(cmd, "--set takes KEY=VALUE, not '%s'", v);
    struct risk_config scratch;
    struct as_err e;
    risk_config_default(&scratch);
    char *key = xstrndup(v, (size_t)(eq - v));
    int rc = risk_config_set(&scratch, key, eq + 1, &e);
    free(key);
    if (rc)
        return dcli_usage(cmd, "--set: %s", e.msg);
    return opts_list_add(&o->sets, v, "set", cmd);
}

static int
opt_now(void *target, const char *v, const char *cmd)
{
    char *end;
    errno = 0;
    long long ms = strtoll(v, &end, 10);
    if (errno || *end || end == v || ms < 0)
        return dcli_usage(
            cmd, "--now takes milliseconds since the epoch, not '%s'", v);
    *(int64_t *)target = ms;
    return 0;
}

static int
opt_color(void *target, const char *v, const char *cmd)
{
    int *color = target;
    if (!strcmp(v, "auto"))
        *color = -1;
    else if (!strcmp(v, "always"))
        *color = 1;
    else if (!strcmp(v, "never"))
        *color = 0;
    else
        return dcli_usage(
            cmd, "--color takes auto, always or never, not '%s'", v);
    return 0;
}

static int
parse_opts(int argc, char **argv, struct scan_opts *o, struct risk_config *cfg)
{
    /* --model must apply before any --set, whatever the order given. */
    for (int i = 1; i < argc; i++) {
        const char *m = NULL;
        if (!strcmp(argv[i], "--model") && i + 1 < argc)
            m = argv[i + 1];
        else if (!strncmp(argv[i], "--model=", 8))
            m = argv[i] + 8;
        if (m)
            o->model_given = true;
        if (m && !strcmp(m, "ecc"))
            risk_config_ecc(cfg);
        else if (m && strcmp(m, "airspace"))
            return dcli_usage("scan", "unknown model '%s' (airspace, ecc)", m);
    }
    const char *model = NULL; /* taken above */
    long threads = o->threads;
    const struct opt table[] = {
        OPT_JSON(&o->json),
        { .name = "explain", .kind = OPT_FLAG, .target = &o->explain },
        { .name = "agents", .kind = OPT_STRING, .target = &o->agents_path },
        OPT_REPO(&o->repo_dir),
        { .name = "branches", .kind = OPT_FLAG, .target = &o->branches },
        { .name = "integration",
            .kind = OPT_STRING,
            .target = &o->integration },
        { .name = "fail-on",
            .kind = OPT_CALL,
            .target = &o->fail_on,
            .fn = opt_fail_on },
        { .name = "model", .kind = OPT_STRING, .target = &model },
        { .name = "set", .kind = OPT_CALL, .target = o, .fn = opt_set },
        { .name = "no-merge", .kind = OPT_FLAG, .target = &o->no_merge },
        { .name = "no-graph", .kind = OPT_FLAG, .target = &o->no_graph },
        { .name = "progress", .kind = OPT_FLAG, .target = &o->progress_flag },
        { .name = "now",
            .kind = OPT_CALL,
            .target = &o->now_ms,
            .fn = opt_now },
        { .name = "threads",
            .kind = OPT_NUMBER,
            .target = &threads,
            .min = 1,
            .max = 64,
            .bad = "--threads takes 1..64" },
        { .name = "color",
            .kind = OPT_CALL,
            .target = &o->color,
            .fn = opt_color },
        OPT_TABLE_END,
    };
    int rc =
        opts_parse(argc, argv, table, "scan", scan_usage, OPTS_NO_OPERANDS);
    o->threads = (unsigned)threads;
    return rc;
}

/* The model: --model's or the built-in defaults, then the config files'
 * [risk] settings (not with --model), then --set; checked as a whole. */
static int
scan_config(const struct scan_opts *o, struct repo *repo,
    struct risk_config *cfg, struct as_err *e)
{
    struct config c;
    config_init(&c);
    int rc = config_read(&c, repo, e);
    if (!rc && !o->model_given)
        config_apply_risk(&c, cfg);
    for (size_t i = 0; !rc && i < o->sets.n; i++) {
        const char *eq = strchr(o->sets.v[i], '=');
        char *key = xstrndup(o->sets.v[i], (size_t)(eq - o->sets.v[i]));
        rc = risk_config_set(cfg, key, eq + 1, e);
        free(key);
    }
    if (!rc)
        rc = config_check_risk(
            o->model_given ? NULL : &c, o->sets.v, o->sets.n, cfg, e);
    config_release(&c);
    return rc;
}

/*
 * The lanes of the fleet file (.airspace/fleet in the main worktree) for
 * right of way, on the agents named as its agents (an agent's worktree
 * and branch are named for it): what the daemon has from `fleet up`. A
 * missing or unreadable file gives none (`fleet up` says what is wrong
 * with it). f keeps the strings r->lanes borrows.
 */
static void
lanes_from_fleet(struct scan_report *r, struct repo *repo, struct fleet *f)
{
    const char *top = repo_main_workdir(repo);
    if (!top || !r->nagents)
        return;
    char *path = xasprintf("%s/.airspace/fleet", top);
    struct as_err e;
    int rc = fleet_read(path, f, &e);
    free(path);
    if (rc)
        return;
    for (size_t i = 0; i < r->nagents; i++) {
        const struct fleet_agent *a = fleet_find(f, r->agents[i].id);
        if (!a || !a->nlanes)
            continue;
        if (!r->lanes)
            r->lanes = xcalloc(r->nagents, sizeof(*r->lanes));
        r->lanes[i] =
            (struct advisory_lanes){ (const char *const *)a->lanes, a->nlanes };
    }
}

int
cmd_scan(int argc, char **argv)
{
    struct scan_opts o = { 0 };
    o.color = -1;
    o.threads = 2;
    struct scan_report r;
    memset(&r, 0, sizeof(r));
    risk_config_default(&r.cfg);
    int rc = parse_opts(argc, argv, &o, &r.cfg);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    r.now_ms = o.now_ms ? o.now_ms : clock_wall_ms();
    o.progress = o.progress_flag || (!o.json && isatty(STDERR_FILENO));
    if (!o.no_graph) {
        struct as_err ae;
        if (lang_check_abi(&ae)) {
            fprintf(stderr, "airspace scan: %s (rebuild airspace)\n", ae.msg);
            return CLI_EXIT_ERROR;
        }
    }

    struct as_err e = { { 0 } };
    struct repo *repo = NULL;
    struct merge_cache *mcache = NULL;
    struct gitview_base vbase = { 0 };
    struct fleet fleet = { 0 };
    int exit_code = CLI_EXIT_OK;

    if (o.agents_path) {
        rc = agents_json_load(o.agents_path, &r.agents, &r.nagents, &e);
        if (rc) {
            fprintf(stderr, "airspace scan: %s\n", e.msg);
            return CLI_EXIT_USAGE;
        }
        if (o.repo_dir && !o.no_graph) {
            struct stat sb;
            if (stat(o.repo_dir, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
                fprintf(stderr,
                    "airspace scan: --repo '%s' is not a "
                    "directory\n",
                    o.repo_dir);
                exit_code = CLI_EXIT_USAGE;
                goto out;
            }
        }
        /* A plain directory (or none) has the user file only. */
        if (o.repo_dir && repo_open(o.repo_dir, &repo, &e))
            repo = NULL;
        if (scan_config(&o, repo, &r.cfg, &e)) {
            fprintf(stderr, "airspace scan: %s\n", e.msg);
            exit_code = CLI_EXIT_USAGE;
            goto out;
        }
        if (o.repo_dir && !o.no_graph) {
            r.repository = realpath(o.repo_dir, NULL);
            if (repo) {
                if (o.integration)
                    r.integration = xstrdup(o.integration);
                else if (repo_integration_branch(repo, &r.integration, &e))
                    r.integration = xstrdup("HEAD");
                rc = graph_from_git(&r, repo, &o, NULL, &e);
            } else {
                rc = graph_from_dir(&r, o.repo_dir, &o, &e);
            }
            if (rc) {
                fprintf(stderr, "airspace scan: %s\n", e.msg);
                exit_code = CLI_EXIT_ERROR;
                goto out;
            }
        }
    } else {
        rc = repo_open(o.repo_dir ? o.repo_dir : ".", &repo, &e);
        if (rc) {
            fprintf(stderr, "airspace scan: %s\n", e.msg);
            exit_code = CLI_EXIT_USAGE;
            goto out;
        }
        if (scan_config(&o, repo, &r.cfg, &e)) {
            fprintf(stderr, "airspace scan: %s\n", e.msg);
            exit_code = CLI_EXIT_USAGE;
            goto out;
        }
        r.repository = xstrdup(repo_common_dir(repo));
        char *from = NULL;
        if (o.integration) {
            r.integration = xstrdup(o.integration);
            from = xstrdup("--integration");
        } else if ((rc = repo_integration_branch_from(
                        repo, &r.integration, &from, &e))) {
            fprintf(stderr, "airspace scan: %s\n", e.msg);
            exit_code = CLI_EXIT_ERROR;
            goto out;
        }
        rc = check_integration(repo, r.integration, from, &e);
        free(from);
        if (!rc)
            rc = agents_from_git(&r, repo, &o, &e);
        if (!rc)
            agents_align(&r, repo);
        if (!rc && !o.no_graph)
            rc = graph_from_git(&r, repo, &o, &vbase, &e);
        if (!rc && r.have_graph)
            agents_add_names(&r, &vbase, repo);
        if (rc) {
            fprintf(stderr, "airspace scan: %s\n", e.msg);
            exit_code = CLI_EXIT_ERROR;
            goto out;
        }
    }

    /* the forward channel's past, as the daemon's (its cache makes a
     * warm scan cheap) */
    if (repo && r.integration && r.cfg.weight[RISK_FORWARD] > 0) {
        struct as_err fe;
        if (gitview_forward(
                repo, r.integration, &vbase.fhist, &vbase.forward, &fe))
            fprintf(stderr, "airspace scan: forward channel: %s\n", fe.msg);
        r.forward = vbase.forward;
    }

    struct gitview_merge mctx = { 0 };
    if (repo && !o.agents_path && !o.no_merge) {
        mcache = merge_cache_new();
        mctx.repo = repo;
        mctx.cache = mcache;
    }
    if (repo)
        lanes_from_fleet(&r, repo, &fleet);
    r.threads = o.threads;
    scan_score(&r, mcache ? gitview_merge_pair : NULL, &mctx);
    if (mctx.failures)
        fprintf(
            stderr, "airspace scan: merge channel: %s\n", mctx.first_error.msg);

    bool color = o.color == 1 || (o.color == -1 && isatty(STDOUT_FILENO) &&
                                     !getenv("NO_COLOR"));
    if (o.color == 1 && getenv("NO_COLOR"))
        color = false;
    if (o.json)
        scan_print_json(&r, o.explain, stdout);
    else
        scan_print_table(&r, o.explain, color, stdout);

    if (o.fail_on) {
        bool ra = !strcmp(o.fail_on, "resolution");
        if (r.nresolution || (!ra && r.ntraffic))
            exit_code = CLI_EXIT_FAIL;
    }
out:
    if (mcache)
        merge_cache_free(mcache);
    gitview_base_release(&vbase);
    scan_report_release(&r);
    fleet_release(&fleet);
    if (repo)
        repo_free(repo);
    return exit_code;
}

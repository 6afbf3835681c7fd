/*
 * bench_scan.c - the cost of scoring every pair of agents (`airspace scan`
 * without git: risk engine set-up, every pair scored, classified, given
 * right of way and sorted) over a real graph of several thousand files, on
 * reproducibly generated agents, at two sizes in one run.
 *
 *   bench_scan [--seed N] [--runs N] [--threads N] [--emit-prefix P]
 *              [--set K=V]... DIR
 *
 * DIR's graph is built first (cached in /tmp between runs; not timed here,
 * see bench_graph), then timed as a warm scan gets it: rebuilt from the
 * facts cache, and mapped from a snapshot (lang/graphsnap.h), --runs times
 * each (medians). Agents work in a neighbourhood of the sorted path list
 * (60% of their files within 50 paths of a centre, the rest anywhere), 1-3
 * hunks of 1-40 lines per file. Sizes: 64 agents x 20 files and 256 x 50.
 * With --emit-prefix, each size's agents are also written as an --agents
 * file P64x20.json / P256x50.json for timing the command end to end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "view/scan.h"
#include "lang/graphsnap.h"
#include "lang/lang.h"
#include "lang/repograph.h"
#include "util/xalloc.h"
#include "util/banned.h"

static uint64_t rng;

static uint64_t
next(void)
{
    /* xorshift64* */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ULL;
}

static uint32_t
below(uint32_t n)
{
    return (uint32_t)(next() % n);
}

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Source files of the graph (the ones agents edit), as graph paths. */
static const char **sources;
static uint32_t nsources;

static struct agent *
make_agents(size_t n, size_t k)
{
    struct agent *v = xcalloc(n, sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        char id[32];
        snprintf(id, sizeof(id), "agent-%03zu", i);
        agent_init(&v[i], id);
        v[i].started_at_ms = 1767225600000LL + (int64_t)i * 1000;
        uint32_t centre = below(nsources);
        for (size_t f = 0; f < k; f++) {
            uint32_t at;
            if (below(10) < 6) {
                int64_t x = (int64_t)centre + (int64_t)below(101) - 50;
                at = (uint32_t)(x < 0 ? 0 : x >= nsources ? nsources - 1 : x);
            } else {
                at = below(nsources);
            }
            struct ws_file *wf =
                agent_add_file(&v[i], sources[at], WS_MODIFIED);
            uint32_t hunks = 1 + below(3);
            for (uint32_t h = 0; h < hunks; h++) {
                uint32_t s = 1 + below(400);
                range_set_add(&wf->ranges, s, s + below(40));
            }
            wf->weight = 0.5 + (double)below(501) / 1000.0;
        }
        agent_sort(&v[i]);
    }
    return v;
}

static void
emit(const char *path, const struct agent *v, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    fputs("[\n", f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "  {\"agentId\": \"%s\", \"startedAt\": %lld, \"files\": [",
            v[i].id, (long long)v[i].started_at_ms);
        for (size_t k = 0; k < v[i].nfiles; k++) {
            const struct ws_file *wf = &v[i].files[k];
            fprintf(f,
                "%s\n    {\"path\": \"%s\", \"weight\": %.3f, \"lines\": [",
                k ? "," : "", wf->path, wf->weight);
            for (size_t r = 0; r < wf->ranges.n; r++)
                fprintf(f, "%s[%u, %u]", r ? ", " : "", wf->ranges.v[r].start,
                    wf->ranges.v[r].end);
            fputs("]}", f);
        }
        fprintf(f, "]}%s\n", i + 1 < n ? "," : "");
    }
    fputs("]\n", f);
    fclose(f);
}

/* The warm graph two ways: rebuilt from the facts cache, and mapped from a
 * snapshot of it (the listing of DIR, which both need, not included). */
static void
time_warm(const struct graph *g, const struct repograph_file *files,
    size_t nfiles, const char *dir, const struct repograph_options *o, int runs)
{
    double *tb = xcalloc((size_t)runs, sizeof(*tb));
    double *tl = xcalloc((size_t)runs, sizeof(*tl));
    const char *snap = "/tmp/airspace-bench-scan.snap";
    static const uint8_t key[GRAPHSNAP_KEY_BYTES] = { 1 };
    struct as_err e;
    double t0 = now_ms();
    if (graphsnap_write(g, key, NULL, snap, &e)) {
        fprintf(stderr, "bench_scan: %s\n", e.msg);
        return;
    }
    double write_ms = now_ms() - t0;
    for (int r = 0; r < runs; r++) {
        struct graph w;
        graph_init(&w);
        struct repograph_stats st;
        t0 = now_ms();
        repograph_build(
            &w, files, nfiles, repograph_read_dir, (void *)dir, o, &st, &e);
        tb[r] = now_ms() - t0;
        graph_release(&w);
        graph_init(&w);
        t0 = now_ms();
        if (graphsnap_load(&w, key, snap, NULL, &e))
            fprintf(stderr, "bench_scan: %s\n", e.msg);
        tl[r] = now_ms() - t0;
        graph_release(&w);
    }
    qsort(tb, (size_t)runs, sizeof(*tb), cmp_double);
    qsort(tl, (size_t)runs, sizeof(*tl), cmp_double);
    struct stat sb;
    printf("warm_graph rebuild_ms=%.1f snapshot_load_ms=%.1f "
           "snapshot_write_ms=%.1f snapshot_bytes=%lld names=%zu\n",
        tb[runs / 2], tl[runs / 2], write_ms,
        stat(snap, &sb) == 0 ? (long long)sb.st_size : -1LL, g->nnames);
    unlink(snap);
    free(tb);
    free(tl);
}

struct result {
    size_t agents, files, pairs, traffic, resolution;
    double median_ms, engine_ms; /* all; the engine's set-up alone */
};

static struct risk_config model;
static unsigned nthreads = 2;

static struct result
run(struct graph *g, size_t n, size_t k, int runs, const char *emit_prefix)
{
    struct agent *agents = make_agents(n, k);
    if (emit_prefix) {
        char *p = xasprintf("%s%zux%zu.json", emit_prefix, n, k);
        emit(p, agents, n);
        free(p);
    }
    double *t = xcalloc((size_t)runs, sizeof(*t));
    struct result res = { n, k, 0, 0, 0, 0, 0 };
    struct risk_config cfg = model;
    double *te = xcalloc((size_t)runs, sizeof(*te));
    for (int r = 0; r < runs; r++) {
        double t0 = now_ms();
        struct risk_engine *en =
            risk_engine_new_mt(&cfg, g, agents, n, nthreads);
        te[r] = now_ms() - t0;
        risk_engine_free(en);
    }
    qsort(te, (size_t)runs, sizeof(*te), cmp_double);
    res.engine_ms = te[runs / 2];
    free(te);
    for (int r = 0; r < runs; r++) {
        struct scan_report rep;
        memset(&rep, 0, sizeof(rep));
        rep.cfg = model;
        rep.threads = nthreads;
        rep.agents = agents;
        rep.nagents = n;
        rep.graph = *g;
        rep.have_graph = true;
        double t0 = now_ms();
        scan_score(&rep, NULL, NULL);
        t[r] = now_ms() - t0;
        res.pairs = rep.npairs;
        res.traffic = rep.ntraffic;
        res.resolution = rep.nresolution;
        /* The report borrows agents and graph here. */
        rep.agents = NULL;
        rep.nagents = 0;
        rep.have_graph = false;
        scan_report_release(&rep);
    }
    qsort(t, (size_t)runs, sizeof(*t), cmp_double);
    res.median_ms = t[runs / 2];
    free(t);
    for (size_t i = 0; i < n; i++)
        agent_release(&agents[i]);
    free(agents);
    return res;
}

int
main(int argc, char **argv)
{
    uint64_t seed = 1;
    int runs = 5;
    const char *emit_prefix = NULL;
    risk_config_default(&model);
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = (int)strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            nthreads = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--emit-prefix") && i + 1 < argc)
            emit_prefix = argv[++i];
        else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
            char *kv = argv[++i], *eq = strchr(kv, '=');
            struct as_err se;
            if (!eq)
                break;
            *eq = '\0';
            if (risk_config_set(&model, kv, eq + 1, &se)) {
                fprintf(stderr, "bench_scan: %s\n", se.msg);
                return 2;
            }
        } else
            break;
    }
    if (i + 1 != argc || runs < 1 || nthreads < 1 || nthreads > 64) {
        fprintf(stderr,
            "usage: bench_scan [--seed N] [--runs N] "
            "[--threads N] [--emit-prefix P] [--set KEY=VALUE]... DIR\n");
        return 2;
    }
    const char *dir = argv[i];
    rng = seed * 0x9E3779B97F4A7C15ULL + 1;

    struct repograph_file *files;
    size_t nfiles;
    struct as_err e;
    if (repograph_scan_dir(dir, &files, &nfiles, &e)) {
        fprintf(stderr, "bench_scan: %s\n", e.msg);
        return 1;
    }
    struct graph g;
    graph_init(&g);
    struct repograph_options o = { 0 };
    o.cache_path = "/tmp/airspace-bench-scan.cache";
    o.threads = 2;
    struct repograph_stats st;
    double t0 = now_ms();
    if (repograph_build(
            &g, files, nfiles, repograph_read_dir, (void *)dir, &o, &st, &e)) {
        fprintf(stderr, "bench_scan: %s\n", e.msg);
        return 1;
    }
    printf("graph files=%zu source_files=%zu edges=%zu build_ms=%.1f\n",
        st.files, st.source_files, st.edges, now_ms() - t0);
    time_warm(&g, files, nfiles, dir, &o, runs);
    repograph_scan_dir_free(files, nfiles);
    sources = xcalloc(g.nfiles ? g.nfiles : 1, sizeof(*sources));
    for (uint32_t f = 0; f < g.nfiles; f++)
        if (g.files[f].parsed)
            sources[nsources++] = g.files[f].path;
    if (nsources < 100) {
        fprintf(stderr, "bench_scan: %s has too few source files\n", dir);
        return 1;
    }

    struct result small = run(&g, 64, 20, runs, emit_prefix);
    /* BENCH_SMALL_ONLY=1: profile the small size alone. */
    const char *only = getenv("BENCH_SMALL_ONLY");
    struct result large =
        only && *only == '1' ? small : run(&g, 256, 50, runs, emit_prefix);
    const struct result *rs[2] = { &small, &large };
    for (int k = 0; k < 2; k++)
        printf("size=%zux%zu pairs=%zu traffic=%zu resolution=%zu "
               "median_ms=%.2f engine_ms=%.2f us_per_pair=%.2f\n",
            rs[k]->agents, rs[k]->files, rs[k]->pairs, rs[k]->traffic,
            rs[k]->resolution, rs[k]->median_ms, rs[k]->engine_ms,
            (rs[k]->median_ms - rs[k]->engine_ms) * 1e3 / (double)rs[k]->pairs);
    printf("summary threads=%u seed=%llu time_ratio=%.1f pair_ratio=%.1f "
           "work_ratio=%.1f\n",
        nthreads, (unsigned long long)seed, large.median_ms / small.median_ms,
        (double)large.pairs / (double)small.pairs,
        (double)(large.pairs * 50) / (double)(small.pairs * 20));
    free(sources);
    graph_release(&g);
    return 0;
}

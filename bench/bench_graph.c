/*
 * bench_graph.c - build the import graph of a large real tree cold (no
 * cache: every source file parsed) and warm (every file's facts taken from
 * the blob-id cache), in one run, and print the ratio.
 *
 *   bench_graph [--threads N] [--warm-runs N] DIR...
 *
 * Each DIR is scanned as a plain directory (files hashed as git blobs); the
 * files of all DIRs form one graph, paths prefixed by the DIR's index.
 * Output: one line per phase and a summary line, all key=value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lang/repograph.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct source {
    const char *dir;
    struct repograph_file *files;
    size_t n;
};

struct all {
    struct source *src;
    size_t nsrc;
    struct repograph_file *files; /* prefixed paths */
    size_t *owner;                /* index of the source of each file */
    size_t *local;                /* index within that source */
    size_t n;
};

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int
read_any(void *ctx, const struct repograph_file *f, char **buf, size_t *len)
{
    struct all *a = ctx;
    size_t i = (size_t)(f - a->files);
    const struct source *s = &a->src[a->owner[i]];
    return repograph_read_dir((void *)s->dir, &s->files[a->local[i]], buf, len);
}

static int
build(struct all *a, const char *cache, unsigned threads,
    struct repograph_stats *st, double *ms)
{
    struct graph g;
    struct repograph_options o = { 0 };
    o.cache_path = cache;
    o.threads = threads;
    struct as_err e;
    graph_init(&g);
    memset(st, 0, sizeof(*st));
    double t0 = now_ms();
    int rc = repograph_build(&g, a->files, a->n, read_any, a, &o, st, &e);
    *ms = now_ms() - t0;
    if (rc)
        fprintf(stderr, "bench_graph: %s\n", e.msg);
    graph_release(&g);
    return rc;
}

static int
cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

int
main(int argc, char **argv)
{
    unsigned threads = 2;
    int warm_runs = 3;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--warm-runs") && i + 1 < argc)
            warm_runs = (int)strtol(argv[++i], NULL, 10);
        else {
            fprintf(stderr,
                "usage: bench_graph [--threads N] [--warm-runs N] DIR...\n");
            return 2;
        }
    }
    if (i == argc || warm_runs < 1 || threads < 1) {
        fprintf(stderr,
            "usage: bench_graph [--threads N] [--warm-runs N] DIR...\n");
        return 2;
    }
    struct all a = { 0 };
    a.nsrc = (size_t)(argc - i);
    a.src = xcalloc(a.nsrc, sizeof(*a.src));
    for (size_t k = 0; k < a.nsrc; k++) {
        struct as_err e;
        a.src[k].dir = argv[i + (int)k];
        if (repograph_scan_dir(
                a.src[k].dir, &a.src[k].files, &a.src[k].n, &e)) {
            fprintf(stderr, "bench_graph: %s\n", e.msg);
            return 1;
        }
        a.n += a.src[k].n;
    }
    a.files = xcalloc(a.n ? a.n : 1, sizeof(*a.files));
    a.owner = xcalloc(a.n ? a.n : 1, sizeof(*a.owner));
    a.local = xcalloc(a.n ? a.n : 1, sizeof(*a.local));
    size_t at = 0;
    for (size_t k = 0; k < a.nsrc; k++)
        for (size_t j = 0; j < a.src[k].n; j++, at++) {
            a.files[at] = a.src[k].files[j];
            a.files[at].path =
                a.nsrc == 1 ? xstrdup(a.src[k].files[j].path)
                            : xasprintf("%zu/%s", k, a.src[k].files[j].path);
            a.owner[at] = k;
            a.local[at] = j;
        }

    char cache[] = "/tmp/airspace-bench-graph-XXXXXX";
    int fd = mkstemp(cache);
    if (fd < 0) {
        perror("mkstemp");
        return 1;
    }
    close(fd);
    unlink(cache);

    struct repograph_stats st;
    double cold;
    if (build(&a, cache, threads, &st, &cold))
        return 1;
    printf("phase=cold files=%zu source_files=%zu parsed=%zu cached=%zu "
           "edges=%zu ms=%.1f\n",
        st.files, st.source_files, st.parsed, st.cached, st.edges, cold);
    double *warm = xcalloc((size_t)warm_runs, sizeof(*warm));
    for (int r = 0; r < warm_runs; r++) {
        if (build(&a, cache, threads, &st, &warm[r]))
            return 1;
        printf("phase=warm run=%d parsed=%zu cached=%zu edges=%zu ms=%.1f\n",
            r + 1, st.parsed, st.cached, st.edges, warm[r]);
    }
    qsort(warm, (size_t)warm_runs, sizeof(*warm), cmp_double);
    double med = warm[warm_runs / 2];
    printf("summary files=%zu edges=%zu cold_ms=%.1f warm_median_ms=%.1f "
           "speedup=%.1fx threads=%u\n",
        st.files, st.edges, cold, med, cold / med, threads);
    unlink(cache);
    char *stat_cache = xasprintf("%s.stat", cache);
    unlink(stat_cache);
    free(stat_cache);
    free(warm);
    for (size_t k = 0; k < a.n; k++)
        free((char *)a.files[k].path);
    free(a.files);
    free(a.owner);
    free(a.local);
    for (size_t k = 0; k < a.nsrc; k++)
        repograph_scan_dir_free(a.src[k].files, a.src[k].n);
    free(a.src);
    return 0;
}

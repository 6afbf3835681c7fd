/*
 * leadtime.c - lead fractions of the first warnings and their quartiles.
 */
#include <math.h>
#include <stdlib.h>

#include "core/leadtime.h"
#include "util/xalloc.h"
#include "util/banned.h"

double
lead_fraction(int64_t start_ms, int64_t merge_ms, int64_t first_ms)
{
    if (merge_ms <= start_ms)
        return NAN;
    if (first_ms < 0)
        return 0;
    double f = (double)(merge_ms - first_ms) / (double)(merge_ms - start_ms);
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

static int
cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The p-quantile of sorted v[0..n), n > 0, interpolated. */
static double
quantile(const double *v, size_t n, double p)
{
    double pos = p * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo + 1 >= n)
        return v[n - 1];
    return v[lo] + (pos - (double)lo) * (v[lo + 1] - v[lo]);
}

struct lead_quartiles
lead_summary(const struct lead_merge *m, size_t n, enum lead_kind kind)
{
    struct lead_quartiles q = { 0, 0, NAN, NAN, NAN };
    double *v = xcalloc(n + 1, sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        int64_t first = kind == LEAD_TRAFFIC ? m[i].first_traffic_ms
                                             : m[i].first_resolution_ms;
        double f = lead_fraction(m[i].start_ms, m[i].merge_ms, first);
        if (isnan(f))
            continue;
        v[q.n++] = f;
        q.raised += first >= 0;
    }
    if (q.n) {
        qsort(v, q.n, sizeof(*v), cmp_double);
        q.q1 = quantile(v, q.n, 0.25);
        q.median = quantile(v, q.n, 0.5);
        q.q3 = quantile(v, q.n, 0.75);
    }
    free(v);
    return q;
}

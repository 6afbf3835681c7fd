#include <math.h>

#include "core/proximity.h"
#include "util/banned.h"

static uint32_t
range_dist(const struct range *x, const struct range *y)
{
    if (x->end < y->start)
        return y->start - x->end;
    if (y->end < x->start)
        return x->start - y->end;
    return 0;
}

uint32_t
prox_gap(const struct range *a, size_t na, bool whole_a, const struct range *b,
    size_t nb, bool whole_b)
{
    if (whole_a || whole_b)
        return 0;
    if (!na || !nb)
        return PROX_GAP_NONE;
    /* Merge walk: the nearest pair is always met when advancing the range
     * that ends first. */
    uint32_t best = PROX_GAP_NONE;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        uint32_t d = range_dist(&a[i], &b[j]);
        if (d < best)
            best = d;
        if (!best)
            break;
        if (a[i].end < b[j].end)
            i++;
        else
            j++;
    }
    return best;
}

size_t
prox_near_pairs(const struct range *a, size_t na, bool whole_a,
    const struct range *b, size_t nb, bool whole_b, uint32_t within)
{
    if (whole_a || whole_b)
        return 1;
    size_t count = 0, j0 = 0;
    for (size_t i = 0; i < na; i++) {
        /* Skip b ranges that end too far before a[i]; they stay behind for
         * every later a range too. */
        while (j0 < nb && (uint64_t)b[j0].end + within < a[i].start)
            j0++;
        for (size_t j = j0; j < nb; j++) {
            if ((uint64_t)a[i].end + within < b[j].start)
                break;
            count++;
        }
    }
    return count;
}

double
prox_term(uint32_t gap, uint32_t margin, double scale)
{
    if (gap == PROX_GAP_NONE)
        return 0;
    if (gap <= margin)
        return 1;
    if (scale <= 0)
        return 0;
    return exp(-(double)(gap - margin) / scale);
}

double
prox_hotspot(uint32_t h, double k)
{
    if (!h || k <= 0)
        return 0;
    return (double)h / ((double)h + k);
}

double
prox_combine(const double *v, size_t n, enum prox_agg agg)
{
    double out = 0, keep = 1;
    for (size_t i = 0; i < n; i++) {
        if (agg == PROX_AGG_MAX) {
            if (v[i] > out)
                out = v[i];
        } else {
            keep *= 1 - v[i];
        }
    }
    return agg == PROX_AGG_MAX ? out : 1 - keep;
}

double
prox_saturate(double x, double k)
{
    if (x <= 0 || k <= 0)
        return 0;
    return 1 - exp(-x / k);
}

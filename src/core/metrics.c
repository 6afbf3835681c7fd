#include <math.h>
#include <stdlib.h>

#include "core/metrics.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct scored {
    double score;
    bool label;
};

static int
cmp_scored(const void *pa, const void *pb)
{
    const struct scored *a = pa, *b = pb;
    return (a->score > b->score) - (a->score < b->score);
}

static int
cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

double
metrics_auc(const double *score, const bool *label, size_t n)
{
    size_t npos = 0, nneg = 0;
    for (size_t i = 0; i < n; i++) {
        if (label[i])
            npos++;
        else
            nneg++;
    }
    if (!npos || !nneg)
        return NAN;

    struct scored *v = xmalloc(n * sizeof(*v));
    for (size_t i = 0; i < n; i++)
        v[i] = (struct scored){ score[i], label[i] };
    qsort(v, n, sizeof(*v), cmp_scored);

    /* Sum of positive ranks, tied groups taking their average rank. */
    double rank_sum = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        size_t pos = 0;
        while (j < n && v[j].score == v[i].score) {
            pos += v[j].label;
            j++;
        }
        double avg_rank = (double)(i + 1 + j) / 2.0;
        rank_sum += avg_rank * (double)pos;
        i = j;
    }
    free(v);
    double u = rank_sum - (double)npos * (double)(npos + 1) / 2.0;
    return u / ((double)npos * (double)nneg);
}

struct metrics_budget
metrics_at_budget(
    const double *score, const bool *label, size_t n, size_t budget)
{
    struct metrics_budget b = { 0, 0, NAN };
    if (!n)
        return b;
    struct scored *v = xmalloc(n * sizeof(*v));
    for (size_t i = 0; i < n; i++)
        v[i] = (struct scored){ score[i], label[i] };
    qsort(v, n, sizeof(*v), cmp_scored);
    /* Ascending order: walk tie groups from the top down. */
    for (size_t j = n; j > 0 && v[j - 1].score > 0;) {
        size_t i = j - 1, tp = v[i].label;
        while (i > 0 && v[i - 1].score == v[j - 1].score)
            tp += v[--i].label;
        if (b.flagged + (j - i) > budget)
            break;
        b.flagged += j - i;
        b.tp += tp;
        b.cut = v[i].score;
        j = i;
    }
    free(v);
    return b;
}

void
metrics_confusion_add(struct metrics_confusion *c, bool flagged, bool label)
{
    if (flagged && label)
        c->tp++;
    else if (flagged)
        c->fp++;
    else if (label)
        c->fn++;
    else
        c->tn++;
}

double
metrics_precision(const struct metrics_confusion *c)
{
    if (!(c->tp + c->fp))
        return NAN;
    return (double)c->tp / (double)(c->tp + c->fp);
}

double
metrics_recall(const struct metrics_confusion *c)
{
    if (!(c->tp + c->fn))
        return NAN;
    return (double)c->tp / (double)(c->tp + c->fn);
}

double
metrics_flagged_share(const struct metrics_confusion *c)
{
    size_t total = c->tp + c->fp + c->fn + c->tn;
    if (!total)
        return NAN;
    return (double)(c->tp + c->fp) / (double)total;
}

double
metrics_median(double *v, size_t n)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof(*v), cmp_double);
    if (n % 2)
        return v[n / 2];
    return (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

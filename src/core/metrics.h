/*
 * metrics.h - evaluation statistics for scored, labelled samples.
 *
 * Pure: no I/O, no clock. Used by `airspace replay` to say how well a score
 * separates merges that conflicted from merges that did not. Functions borrow
 * their arrays; metrics_median() reorders the array it is given. Undefined
 * statistics (no positives, nothing flagged, empty input) are NAN, never 0,
 * so a report can print "n/a" instead of a misleading number.
 */
#ifndef AIRSPACE_CORE_METRICS_H
#define AIRSPACE_CORE_METRICS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * ROC AUC of score against label: the Mann-Whitney statistic
 * P(score of a positive > score of a negative), ties counted as one half.
 * O(n log n). NAN when there is no positive or no negative sample.
 */
double metrics_auc(const double *score, const bool *label, size_t n);

/* Counts of a binary decision ("flagged") against the label. */
struct metrics_confusion {
    size_t tp, fp, fn, tn;
};

/* Count one sample. */
void metrics_confusion_add(
    struct metrics_confusion *c, bool flagged, bool label);

/* tp / (tp + fp); NAN when nothing was flagged. */
double metrics_precision(const struct metrics_confusion *c);

/* tp / (tp + fn); NAN when there is no positive. */
double metrics_recall(const struct metrics_confusion *c);

/* (tp + fp) / total; NAN when there is no sample. */
double metrics_flagged_share(const struct metrics_confusion *c);

/*
 * The operating point of a score held to a flag budget: flag every sample
 * whose score is at least cut, where cut is the lowest score that flags no
 * more than budget samples and is above 0 (a zero score is no warning).
 * Tied scores are flagged together or not at all, so flagged can fall short
 * of budget. cut is NAN when nothing can be flagged (budget 0, no positive
 * score, or the highest tie group alone exceeds the budget). O(n log n).
 */
struct metrics_budget {
    size_t flagged, tp;
    double cut;
};

struct metrics_budget metrics_at_budget(
    const double *score, const bool *label, size_t n, size_t budget);

/*
 * Median of v[0..n) (mean of the two middle values for even n); sorts v in
 * place. NAN when n is 0.
 */
double metrics_median(double *v, size_t n);

#endif

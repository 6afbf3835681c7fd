/*
 * leadtime.h - how early the first warnings about a conflicting merge came,
 * as a share of the time the two sides were in flight.
 *
 * Pure: no I/O, no clock. A merge's window runs from the later side's first
 * commit (start) to the merge; a warning first raised at t leaves
 * (merge - t) / (merge - start) of it, clamped to [0, 1]: 1 when the warning
 * came before the later side's first commit was made (it reached an earlier
 * point), 0 when it came with the merge. A merge the warning never reached
 * counts 0 (no lead at all), so the summary is over every conflicted merge,
 * not only the ones caught.
 */
#ifndef AIRSPACE_CORE_LEADTIME_H
#define AIRSPACE_CORE_LEADTIME_H

#include <stddef.h>
#include <stdint.h>

/* One conflicted merge; times in ms, a first_* of -1 = never raised. */
struct lead_merge {
    int64_t start_ms, merge_ms;
    int64_t first_traffic_ms, first_resolution_ms;
};

/* The share of the window a warning first raised at first_ms leaves:
 * 0 when first_ms < 0 (never), NAN when the window is empty
 * (merge_ms <= start_ms). */
double lead_fraction(int64_t start_ms, int64_t merge_ms, int64_t first_ms);

/* Quartiles of the lead fractions of one warning over a set of merges. */
struct lead_quartiles {
    size_t n;              /* merges with a window (the ones summarized) */
    size_t raised;         /* of them, the ones the warning reached at all */
    double q1, median, q3; /* NAN when n is 0 */
};

enum lead_kind { LEAD_TRAFFIC, LEAD_RESOLUTION };

/*
 * Quartiles of lead_fraction over m[0..n) for the first traffic or the
 * first resolution advisory, by linear interpolation between order
 * statistics (position p·(n−1), as R's default and numpy's): q1 at p 0.25,
 * median 0.5, q3 0.75. Merges without a window are left out.
 */
struct lead_quartiles lead_summary(
    const struct lead_merge *m, size_t n, enum lead_kind kind);

#endif

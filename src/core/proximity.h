/*
 * proximity.h - graded closeness of two working sets that are still growing.
 *
 * Pure: no I/O, no clock. The overlap channel of the risk model (DESIGN.md
 * §3) is 0 until two agents' changed ranges actually meet, so two agents
 * editing the same file 20 lines apart look exactly like two agents in
 * different files. This module supplies the missing gradient:
 *
 *   gap(f)   distance in lines between the nearest changed ranges of the two
 *            agents in shared file f (0 when they intersect, 1 for adjacent
 *            lines; 0 when either side changed the whole file)
 *   term(f)  1 when gap <= margin, else exp(-(gap - margin) / scale)
 *   exposure 1 - exp(-x / k) of the working-set sizes or of the number of
 *            directories both changed in (prox_saturate): a prior for pairs
 *            that share no file yet
 *   hot(f)   h / (h + k) where h counts earlier conflicts on f (learned
 *            hotspots; the caller must count only merges that were already
 *            known at the time being scored)
 *
 * A caller combines per-file terms with recency weights into a channel value
 * in [0, 1] (prox_combine). Ranges are inclusive, sorted and disjoint, in base
 * coordinates, as in intervals.h; this module only reads them.
 */
#ifndef AIRSPACE_CORE_PROXIMITY_H
#define AIRSPACE_CORE_PROXIMITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/intervals.h"

/* No line ranges to compare (one side has none and neither is whole). */
#define PROX_GAP_NONE UINT32_MAX

/*
 * Lines between the nearest ranges of a[0..na) and b[0..nb): 0 when some
 * ranges intersect or when whole_a or whole_b is set, PROX_GAP_NONE when
 * either array is empty otherwise. O(na + nb).
 */
uint32_t prox_gap(const struct range *a, size_t na, bool whole_a,
    const struct range *b, size_t nb, bool whole_b);

/*
 * Number of pairs (ra, rb) whose distance is at most within lines (a
 * whole-file side counts as one pair). O(na + nb + pairs).
 */
size_t prox_near_pairs(const struct range *a, size_t na, bool whole_a,
    const struct range *b, size_t nb, bool whole_b, uint32_t within);

/*
 * Graded proximity of one shared file from its gap: 1 when gap <= margin,
 * exp(-(gap - margin) / scale) beyond, 0 for PROX_GAP_NONE or scale <= 0.
 */
double prox_term(uint32_t gap, uint32_t margin, double scale);

/* Learned hotspot term h / (h + k) in [0, 1); 0 when h is 0 or k <= 0. */
double prox_hotspot(uint32_t h, double k);

/*
 * Saturating count 1 - exp(-x / k) in [0, 1); 0 when x <= 0 or k <= 0.
 * Used for the exposure of two growing working sets that share nothing yet:
 * x = |W_a| * |W_b| (more files on both sides, more chances to meet), or
 * x = the number of directories both sides have changed files in.
 */
double prox_saturate(double x, double k);

/* How per-file values v[i] (already weighted) become one channel value. */
enum prox_agg {
    PROX_AGG_MAX = 0,  /* max_i v_i, as the overlap channel does */
    PROX_AGG_NOISY_OR, /* 1 - prod_i (1 - v_i): more shared files, more risk */
};

/* Combine n per-file values in [0, 1]; 0 when n is 0. */
double prox_combine(const double *v, size_t n, enum prox_agg agg);

#endif

/*
 * intervals.h - sorted sets of closed line ranges.
 *
 * Pure: no I/O. A range_set owns its array; functions borrow their arguments
 * unless they say otherwise. All arithmetic is on range endpoints: nothing
 * ever enumerates the lines of a range, so [1, 5000000] costs what [1, 2] does.
 *
 * Lines are 1-based. A pure insertion (zero lines of the base replaced) is
 * recorded at its position as the one-line range [k, k], where k is the base
 * line it follows (1 when it is inserted at the top); widening by the default
 * margin then makes it collide with a change to either neighbouring line,
 * as git's merge does.
 */
#ifndef AIRSPACE_CORE_INTERVALS_H
#define AIRSPACE_CORE_INTERVALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct range {
    uint32_t start, end; /* inclusive, start <= end */
};

struct range_set {
    struct range *v; /* sorted, disjoint, non-touching */
    size_t n, alloc;
};

#define RANGE_SET_INIT                                                         \
    {                                                                          \
        NULL, 0, 0                                                             \
    }

void range_set_init(struct range_set *s);
void range_set_release(struct range_set *s);
void range_set_clear(struct range_set *s);
void range_set_copy(struct range_set *dst, const struct range_set *src);

/* Add [start, end] (either order); merges overlapping and touching ranges. */
void range_set_add(struct range_set *s, uint32_t start, uint32_t end);

/* Number of lines covered (sum of lengths). */
uint64_t range_set_size(const struct range_set *s);

/* Whether line lies inside the set. O(log n). */
bool range_set_contains(const struct range_set *s, uint32_t line);

/* Whether [start, end] intersects the set. O(log n). */
bool range_set_intersects(
    const struct range_set *s, uint32_t start, uint32_t end);

/* |a ∩ b| in lines, by a merge walk. */
uint64_t range_set_intersection_size(
    const struct range_set *a, const struct range_set *b);

/* dst = a ∩ b (dst must be distinct from a and b). */
void range_set_intersect(struct range_set *dst, const struct range_set *a,
    const struct range_set *b);

/* dst = a \ b: the lines of a not in b (dst must be distinct from a and
 * b), by a merge walk. */
void range_set_subtract(struct range_set *dst, const struct range_set *a,
    const struct range_set *b);

/* dst = s with every range widened by margin lines on both sides (start
 * clamped at 1), re-merged. dst may not alias s. */
void range_set_widen(
    struct range_set *dst, const struct range_set *s, uint32_t margin);

/*
 * Return |A ∩ B| / min(|A|, |B|) where A and B are a and b after widening
 * every range by margin lines. 0 when either set is empty.
 */
double range_set_overlap(
    const struct range_set *a, const struct range_set *b, uint32_t margin);

/*
 * The overlap coefficient of two sets that are already widened, given their
 * sizes (range_set_size), so callers that score one set against many widen
 * and measure it once. 0 when either size is 0.
 */
double range_set_overlap_widened(const struct range_set *a, uint64_t size_a,
    const struct range_set *b, uint64_t size_b);

#endif

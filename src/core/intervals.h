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
 *
 * A set may also remember which of its lines stand for a pure insertion
 * alone (range_set_add_insertion): every query below treats them as the
 * lines they are recorded at, and only range_set_replaced() and
 * range_set_inserts_within() tell them apart (which definitions a change
 * touches: lines appended after a function are no change to it).
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
    /* The pure insertions: sorted, unique k, lines inserted after base
     * line k (0: at the top); line max(k, 1) is in v for them alone. */
    uint32_t *ins;
    size_t nins, ains;
};

#define RANGE_SET_INIT                                                         \
    {                                                                          \
        NULL, 0, 0, NULL, 0, 0                                                 \
    }

void range_set_init(struct range_set *s);
void range_set_release(struct range_set *s);
void range_set_clear(struct range_set *s);
void range_set_copy(struct range_set *dst, const struct range_set *src);

/* Add [start, end] (either order); merges overlapping and touching ranges.
 * Its lines count as replaced, even where an insertion was recorded. */
void range_set_add(struct range_set *s, uint32_t start, uint32_t end);

/* Record a pure insertion after base line k (0: at the top): adds the line
 * max(k, 1) as range_set_add() would, remembering that no base line
 * changed there (unless one already did). */
void range_set_add_insertion(struct range_set *s, uint32_t k);

/* Add every line of src to s, src's insertions as insertions. */
void range_set_add_set(struct range_set *s, const struct range_set *src);

/* dst = the lines of s a change replaced or deleted: s without the lines
 * that stand for an insertion alone. dst must be distinct from s and
 * records no insertion. */
void range_set_replaced(struct range_set *dst, const struct range_set *s);

/* Whether an insertion of s lands strictly inside [start, end]: after a
 * line k with start <= k < end. */
bool range_set_inserts_within(
    const struct range_set *s, uint32_t start, uint32_t end);

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

/* dst = a ∩ b (dst must be distinct from a and b); dst records no
 * insertion, nor does range_set_widen()'s. */
void range_set_intersect(struct range_set *dst, const struct range_set *a,
    const struct range_set *b);

/* dst = a \ b: the lines of a not in b (dst must be distinct from a and
 * b), by a merge walk; a's insertions at the lines kept stay insertions. */
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

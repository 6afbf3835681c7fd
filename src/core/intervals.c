#include "core/intervals.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

void
range_set_init(struct range_set *s)
{
    s->v = NULL;
    s->n = 0;
    s->alloc = 0;
    s->ins = NULL;
    s->nins = 0;
    s->ains = 0;
}

void
range_set_release(struct range_set *s)
{
    free(s->v);
    free(s->ins);
    range_set_init(s);
}

void
range_set_clear(struct range_set *s)
{
    s->n = 0;
    s->nins = 0;
}

void
range_set_copy(struct range_set *dst, const struct range_set *src)
{
    dst->n = 0;
    dst->nins = 0;
    if (!src->n)
        return;
    ALLOC_GROW(dst->v, src->n, dst->alloc);
    memcpy(dst->v, src->v, src->n * sizeof(*src->v));
    dst->n = src->n;
    if (src->nins) {
        ALLOC_GROW(dst->ins, src->nins, dst->ains);
        memcpy(dst->ins, src->ins, src->nins * sizeof(*src->ins));
        dst->nins = src->nins;
    }
}

/* The line an insertion after line k is recorded at. */
static uint32_t
ins_line(uint32_t k)
{
    return k ? k : 1;
}

/* Index of the first insertion recorded at a line >= line. */
static size_t
first_ins(const struct range_set *s, uint32_t line)
{
    size_t lo = 0, hi = s->nins;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ins_line(s->ins[mid]) < line)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Index of the first range whose end + 1 >= line (the first that could touch
 * or follow line); s->n when none. */
static size_t
first_reaching(const struct range_set *s, uint32_t line)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uint64_t)s->v[mid].end + 1 < line)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Add [start, end], start <= end, to the ranges only. */
static void
add_range(struct range_set *s, uint32_t start, uint32_t end)
{
    size_t i = first_reaching(s, start);
    /* Ranges i..j-1 overlap or touch [start, end]: fold them in. */
    size_t j = i;
    while (j < s->n && (uint64_t)s->v[j].start <= (uint64_t)end + 1) {
        if (s->v[j].start < start)
            start = s->v[j].start;
        if (s->v[j].end > end)
            end = s->v[j].end;
        j++;
    }
    if (j == i) {
        ALLOC_GROW(s->v, s->n + 1, s->alloc);
        memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof(*s->v));
        s->n++;
    } else if (j > i + 1) {
        memmove(s->v + i + 1, s->v + j, (s->n - j) * sizeof(*s->v));
        s->n -= j - i - 1;
    }
    s->v[i].start = start;
    s->v[i].end = end;
}

void
range_set_add(struct range_set *s, uint32_t start, uint32_t end)
{
    if (start > end) {
        uint32_t t = start;
        start = end;
        end = t;
    }
    if (s->nins) {
        /* lines replaced now: no longer insertions alone */
        size_t i = first_ins(s, start), j = i;
        while (j < s->nins && ins_line(s->ins[j]) <= end)
            j++;
        memmove(s->ins + i, s->ins + j, (s->nins - j) * sizeof(*s->ins));
        s->nins -= j - i;
    }
    add_range(s, start, end);
}

void
range_set_add_insertion(struct range_set *s, uint32_t k)
{
    uint32_t line = ins_line(k);
    size_t i = first_ins(s, line);
    bool alone = i < s->nins && ins_line(s->ins[i]) == line;
    if (range_set_contains(s, line) && !alone)
        return; /* the line itself changed */
    add_range(s, line, line);
    while (i < s->nins && s->ins[i] < k)
        i++;
    if (i < s->nins && s->ins[i] == k)
        return;
    ALLOC_GROW(s->ins, s->nins + 1, s->ains);
    memmove(s->ins + i + 1, s->ins + i, (s->nins - i) * sizeof(*s->ins));
    s->ins[i] = k;
    s->nins++;
}

void
range_set_add_set(struct range_set *s, const struct range_set *src)
{
    struct range_set rep = RANGE_SET_INIT;
    range_set_replaced(&rep, src);
    for (size_t i = 0; i < rep.n; i++)
        range_set_add(s, rep.v[i].start, rep.v[i].end);
    for (size_t i = 0; i < src->nins; i++)
        range_set_add_insertion(s, src->ins[i]);
    range_set_release(&rep);
}

void
range_set_replaced(struct range_set *dst, const struct range_set *s)
{
    struct range_set alone = RANGE_SET_INIT;
    for (size_t i = 0; i < s->nins; i++)
        add_range(&alone, ins_line(s->ins[i]), ins_line(s->ins[i]));
    range_set_subtract(dst, s, &alone);
    dst->nins = 0;
    range_set_release(&alone);
}

bool
range_set_inserts_within(
    const struct range_set *s, uint32_t start, uint32_t end)
{
    /* the first insertion after a line >= start */
    size_t lo = 0, hi = s->nins;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->ins[mid] < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nins && s->ins[lo] < end;
}

uint64_t
range_set_size(const struct range_set *s)
{
    uint64_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += (uint64_t)s->v[i].end - s->v[i].start + 1;
    return n;
}

bool
range_set_contains(const struct range_set *s, uint32_t line)
{
    return range_set_intersects(s, line, line);
}

bool
range_set_intersects(const struct range_set *s, uint32_t start, uint32_t end)
{
    if (start > end) {
        uint32_t t = start;
        start = end;
        end = t;
    }
    /* First range ending at or after start. */
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid].end < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->v[lo].start <= end;
}

uint64_t
range_set_intersection_size(
    const struct range_set *a, const struct range_set *b)
{
    uint64_t n = 0;
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        uint32_t lo =
            a->v[i].start > b->v[j].start ? a->v[i].start : b->v[j].start;
        uint32_t hi = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
        if (lo <= hi)
            n += (uint64_t)hi - lo + 1;
        if (a->v[i].end < b->v[j].end)
            i++;
        else
            j++;
    }
    return n;
}

void
range_set_intersect(
    struct range_set *dst, const struct range_set *a, const struct range_set *b)
{
    dst->n = 0;
    dst->nins = 0;
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        uint32_t lo =
            a->v[i].start > b->v[j].start ? a->v[i].start : b->v[j].start;
        uint32_t hi = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
        /* Pieces come out sorted and disjoint; they may touch only when
         * both inputs touch, which they never do. */
        if (lo <= hi) {
            ALLOC_GROW(dst->v, dst->n + 1, dst->alloc);
            dst->v[dst->n].start = lo;
            dst->v[dst->n].end = hi;
            dst->n++;
        }
        if (a->v[i].end < b->v[j].end)
            i++;
        else
            j++;
    }
}

void
range_set_widen(
    struct range_set *dst, const struct range_set *s, uint32_t margin)
{
    dst->n = 0;
    dst->nins = 0;
    for (size_t i = 0; i < s->n; i++) {
        uint32_t lo = s->v[i].start > margin ? s->v[i].start - margin : 1;
        uint32_t hi = s->v[i].end > UINT32_MAX - margin ? UINT32_MAX
                                                        : s->v[i].end + margin;
        if (lo == 0)
            lo = 1;
        /* Input is sorted, so a widened range can only reach back into the
         * last output range. */
        if (dst->n && (uint64_t)dst->v[dst->n - 1].end + 1 >= lo) {
            if (hi > dst->v[dst->n - 1].end)
                dst->v[dst->n - 1].end = hi;
            continue;
        }
        ALLOC_GROW(dst->v, dst->n + 1, dst->alloc);
        dst->v[dst->n].start = lo;
        dst->v[dst->n].end = hi;
        dst->n++;
    }
}

double
range_set_overlap(
    const struct range_set *a, const struct range_set *b, uint32_t margin)
{
    if (!a->n || !b->n)
        return 0.0;
    if (!margin)
        return range_set_overlap_widened(
            a, range_set_size(a), b, range_set_size(b));
    struct range_set wa = RANGE_SET_INIT, wb = RANGE_SET_INIT;
    range_set_widen(&wa, a, margin);
    range_set_widen(&wb, b, margin);
    double oc = range_set_overlap_widened(
        &wa, range_set_size(&wa), &wb, range_set_size(&wb));
    range_set_release(&wa);
    range_set_release(&wb);
    return oc;
}

double
range_set_overlap_widened(const struct range_set *a, uint64_t size_a,
    const struct range_set *b, uint64_t size_b)
{
    uint64_t m = size_a < size_b ? size_a : size_b;
    if (!m)
        return 0.0;
    return (double)range_set_intersection_size(a, b) / (double)m;
}

void
range_set_subtract(
    struct range_set *dst, const struct range_set *a, const struct range_set *b)
{
    range_set_clear(dst);
    size_t j = 0;
    for (size_t i = 0; i < a->n; i++) {
        uint64_t start = a->v[i].start, end = a->v[i].end;
        /* skip b's ranges wholly before this one */
        while (j < b->n && b->v[j].end < start)
            j++;
        size_t k = j;
        while (start <= end && k < b->n && b->v[k].start <= end) {
            if (b->v[k].start > start)
                range_set_add(dst, (uint32_t)start, b->v[k].start - 1);
            if ((uint64_t)b->v[k].end + 1 > start)
                start = (uint64_t)b->v[k].end + 1;
            k++;
        }
        if (start <= end)
            range_set_add(dst, (uint32_t)start, (uint32_t)end);
    }
    for (size_t i = 0; i < a->nins; i++) {
        if (!range_set_contains(dst, ins_line(a->ins[i])))
            continue;
        ALLOC_GROW(dst->ins, dst->nins + 1, dst->ains);
        dst->ins[dst->nins++] = a->ins[i];
    }
}

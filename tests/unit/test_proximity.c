/* test_proximity.c - gap, near pairs, graded term, hotspot and combination. */
#include <math.h>

#include "core/proximity.h"
#include "test.h"

#define R(s, e)                                                                \
    {                                                                          \
        (s), (e)                                                               \
    }

struct gap_case {
    const char *name;
    struct range a[4];
    size_t na;
    bool wa;
    struct range b[4];
    size_t nb;
    bool wb;
    uint32_t gap;
    size_t near3;
};

static const struct gap_case gap_cases[] = {
    { "intersecting", { R(1, 10) }, 1, false, { R(5, 14) }, 1, false, 0, 1 },
    { "adjacent lines", { R(1, 5) }, 1, false, { R(6, 8) }, 1, false, 1, 1 },
    { "three apart", { R(10, 10) }, 1, false, { R(13, 20) }, 1, false, 3, 1 },
    { "four apart", { R(10, 10) }, 1, false, { R(14, 20) }, 1, false, 4, 0 },
    { "nearest of many", { R(1, 2), R(50, 60), R(100, 101) }, 3, false,
        { R(20, 30), R(64, 70) }, 2, false, 4, 0 },
    { "b before a", { R(40, 41) }, 1, false, { R(1, 2), R(38, 38) }, 2, false,
        2, 1 },
    { "two near pairs", { R(10, 10), R(30, 30) }, 2, false,
        { R(12, 12), R(31, 40) }, 2, false, 1, 2 },
    { "whole side", { R(1, 1) }, 1, true, { R(900, 901) }, 1, false, 0, 1 },
    { "no ranges", { R(0, 0) }, 0, false, { R(5, 5) }, 1, false, PROX_GAP_NONE,
        0 },
};

static void
test_gap_table(void)
{
    for (size_t i = 0; i < sizeof(gap_cases) / sizeof(gap_cases[0]); i++) {
        const struct gap_case *c = &gap_cases[i];
        TEST_BEGIN(c->name);
        CHECK_INT(prox_gap(c->a, c->na, c->wa, c->b, c->nb, c->wb), c->gap);
        CHECK_INT(prox_gap(c->b, c->nb, c->wb, c->a, c->na, c->wa), c->gap);
        CHECK_INT(prox_near_pairs(c->a, c->na, c->wa, c->b, c->nb, c->wb, 3),
            c->near3);
        CHECK_INT(prox_near_pairs(c->b, c->nb, c->wb, c->a, c->na, c->wa, 3),
            c->near3);
        TEST_END();
    }
}

static void
test_term(void)
{
    CHECK_NEAR(prox_term(0, 1, 20), 1, 0);
    CHECK_NEAR(prox_term(1, 1, 20), 1, 0);
    CHECK_NEAR(prox_term(21, 1, 20), exp(-1), 1e-12);
    CHECK_NEAR(prox_term(5, 1, 0), 0, 0);
    CHECK_NEAR(prox_term(PROX_GAP_NONE, 1, 20), 0, 0);
}

static void
test_hotspot_and_combine(void)
{
    CHECK_NEAR(prox_hotspot(0, 1), 0, 0);
    CHECK_NEAR(prox_hotspot(1, 1), 0.5, 1e-12);
    CHECK_NEAR(prox_hotspot(3, 1), 0.75, 1e-12);
    CHECK_NEAR(prox_hotspot(3, 0), 0, 0);
    double v[] = { 0.5, 0.2, 0.5 };
    CHECK_NEAR(prox_combine(v, 3, PROX_AGG_MAX), 0.5, 0);
    CHECK_NEAR(
        prox_combine(v, 3, PROX_AGG_NOISY_OR), 1 - 0.5 * 0.8 * 0.5, 1e-12);
    CHECK_NEAR(prox_combine(v, 0, PROX_AGG_NOISY_OR), 0, 0);
}

int
main(void)
{
    test_gap_table();
    TEST_RUN("graded term", test_term);
    TEST_RUN("hotspot and combination", test_hotspot_and_combine);
    return test_done();
}

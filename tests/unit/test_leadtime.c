/* test_leadtime.c - lead fractions of the first warnings (clamped, never
 * raised = 0, empty windows left out) and their quartiles, on
 * hand-computed cases. */
#include <math.h>

#include "core/leadtime.h"
#include "test.h"

static void
test_fraction(void)
{
    /* window 1000..5000 ms: raised at 2000 leaves 3000 of 4000 */
    CHECK_NEAR(lead_fraction(1000, 5000, 2000), 0.75, 1e-12);
    CHECK_NEAR(lead_fraction(1000, 5000, 5000), 0, 0);
    /* raised before the later side started (an earlier point): all of it */
    CHECK_NEAR(lead_fraction(1000, 5000, 500), 1, 0);
    /* after the merge (a skewed clock): none, never negative */
    CHECK_NEAR(lead_fraction(1000, 5000, 6000), 0, 0);
    CHECK_NEAR(lead_fraction(1000, 5000, -1), 0, 0);
    CHECK(isnan(lead_fraction(5000, 5000, 4000)));
    CHECK(isnan(lead_fraction(6000, 5000, -1)));
}

static void
test_quartiles(void)
{
    /* fractions 0 (never), 0.25, 0.5, 1 and one merge without a window */
    const struct lead_merge m[] = {
        { 0, 100, -1, -1 },
        { 0, 100, 75, -1 },
        { 0, 100, 50, 90 },
        { 0, 100, 0, 0 },
        { 100, 100, 50, 50 },
    };
    struct lead_quartiles q = lead_summary(m, 5, LEAD_TRAFFIC);
    CHECK_INT(q.n, 4);
    CHECK_INT(q.raised, 3);
    /* sorted 0, .25, .5, 1: positions .75, 1.5, 2.25 */
    CHECK_NEAR(q.q1, 0.1875, 1e-12);
    CHECK_NEAR(q.median, 0.375, 1e-12);
    CHECK_NEAR(q.q3, 0.625, 1e-12);
    q = lead_summary(m, 5, LEAD_RESOLUTION);
    CHECK_INT(q.n, 4);
    CHECK_INT(q.raised, 2);
    /* 0, 0, .1, 1 */
    CHECK_NEAR(q.q1, 0, 1e-12);
    CHECK_NEAR(q.median, 0.05, 1e-12);
    CHECK_NEAR(q.q3, 0.325, 1e-12);
}

static void
test_one_and_none(void)
{
    const struct lead_merge one[] = { { 0, 10, 4, -1 } };
    struct lead_quartiles q = lead_summary(one, 1, LEAD_TRAFFIC);
    CHECK_INT(q.n, 1);
    CHECK_NEAR(q.q1, 0.6, 1e-12);
    CHECK_NEAR(q.median, 0.6, 1e-12);
    CHECK_NEAR(q.q3, 0.6, 1e-12);
    q = lead_summary(NULL, 0, LEAD_TRAFFIC);
    CHECK_INT(q.n, 0);
    CHECK_INT(q.raised, 0);
    CHECK(isnan(q.median) && isnan(q.q1) && isnan(q.q3));
}

int
main(void)
{
    TEST_RUN(
        "fraction of the window: clamped, never raised is 0", test_fraction);
    TEST_RUN("quartiles over every conflicted merge", test_quartiles);
    TEST_RUN("one merge, no merge", test_one_and_none);
    return test_done();
}

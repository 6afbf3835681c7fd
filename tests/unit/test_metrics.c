/* test_metrics.c - AUC (Mann-Whitney, ties as halves), precision/recall,
 * flagged share, the operating point at a flag budget and median on
 * hand-computed cases. */
#include <math.h>
#include <stdbool.h>

#include "core/metrics.h"
#include "test.h"

#define MAXN 8

struct auc_case {
    const char *name;
    size_t n;
    double score[MAXN];
    bool label[MAXN];
    double want; /* NAN: undefined */
};

static const struct auc_case auc_cases[] = {
    { "textbook four points", 4, { 0.1, 0.4, 0.35, 0.8 }, { 0, 0, 1, 1 },
        0.75 },
    { "perfect separation", 4, { 0, 1, 2, 3 }, { 0, 0, 1, 1 }, 1.0 },
    { "inverted", 4, { 3, 2, 1, 0 }, { 0, 0, 1, 1 }, 0.0 },
    { "all tied is one half", 5, { 2, 2, 2, 2, 2 }, { 1, 0, 0, 1, 0 }, 0.5 },
    /* pos {1,0} vs neg {1,0}: 0.5 + 1 + 0 + 0.5 over 4 pairs */
    { "ties across classes", 4, { 1, 1, 0, 0 }, { 1, 0, 1, 0 }, 0.5 },
    /* pos {3,3} vs neg {3,1,1}: each pos: 0.5 + 1 + 1 = 2.5; 5 / 6 */
    { "tie at the top", 5, { 3, 3, 3, 1, 1 }, { 1, 1, 0, 0, 0 }, 5.0 / 6.0 },
    /* pos {2} vs neg {0,2,5}: 1 + 0.5 + 0 = 1.5 / 3 */
    { "one positive in the middle", 4, { 0, 2, 2, 5 }, { 0, 1, 0, 0 }, 0.5 },
    { "no positive is undefined", 3, { 1, 2, 3 }, { 0, 0, 0 }, NAN },
    { "no negative is undefined", 2, { 1, 2 }, { 1, 1 }, NAN },
    { "empty is undefined", 0, { 0 }, { 0 }, NAN },
};

static void
test_auc_table(void)
{
    for (size_t i = 0; i < sizeof(auc_cases) / sizeof(auc_cases[0]); i++) {
        const struct auc_case *c = &auc_cases[i];
        TEST_BEGIN(c->name);
        double got = metrics_auc(c->score, c->label, c->n);
        if (isnan(c->want))
            CHECK(isnan(got));
        else
            CHECK_NEAR(got, c->want, 1e-12);
        TEST_END();
    }
}

static void
test_confusion(void)
{
    struct metrics_confusion c = { 0 };
    CHECK(isnan(metrics_precision(&c)));
    CHECK(isnan(metrics_recall(&c)));
    CHECK(isnan(metrics_flagged_share(&c)));

    metrics_confusion_add(&c, true, true);
    metrics_confusion_add(&c, true, false);
    metrics_confusion_add(&c, true, false);
    metrics_confusion_add(&c, false, true);
    metrics_confusion_add(&c, false, false);
    CHECK_INT(c.tp, 1);
    CHECK_INT(c.fp, 2);
    CHECK_INT(c.fn, 1);
    CHECK_INT(c.tn, 1);
    CHECK_NEAR(metrics_precision(&c), 1.0 / 3.0, 1e-12);
    CHECK_NEAR(metrics_recall(&c), 0.5, 1e-12);
    CHECK_NEAR(metrics_flagged_share(&c), 0.6, 1e-12);
}

static void
test_confusion_nothing_flagged(void)
{
    struct metrics_confusion c = { 0 };
    metrics_confusion_add(&c, false, true);
    metrics_confusion_add(&c, false, false);
    CHECK(isnan(metrics_precision(&c)));
    CHECK_NEAR(metrics_recall(&c), 0.0, 0);
    CHECK_NEAR(metrics_flagged_share(&c), 0.0, 0);
}

static void
test_confusion_no_positive(void)
{
    struct metrics_confusion c = { 0 };
    metrics_confusion_add(&c, true, false);
    CHECK(isnan(metrics_recall(&c)));
    CHECK_NEAR(metrics_precision(&c), 0.0, 0);
    CHECK_NEAR(metrics_flagged_share(&c), 1.0, 0);
}

struct budget_case {
    const char *name;
    size_t n, budget;
    double score[MAXN];
    bool label[MAXN];
    size_t flagged, tp;
    double cut; /* NAN: nothing flagged */
};

static const struct budget_case budget_cases[] = {
    { "top two of five", 5, 2, { 0.1, 0.9, 0.5, 0.7, 0.3 }, { 1, 0, 1, 1, 0 },
        2, 1, 0.7 },
    { "budget larger than the positive scores", 4, 4, { 0, 0.2, 0, 0.4 },
        { 1, 1, 0, 0 }, 2, 1, 0.2 },
    /* 0.8 fits; the tie at 0.5 would make 3 > 2, so it stays out */
    { "a tie group that does not fit stays out", 4, 2, { 0.5, 0.8, 0.5, 0.1 },
        { 1, 0, 1, 1 }, 1, 0, 0.8 },
    { "a tie group that fits goes in whole", 4, 3, { 0.5, 0.8, 0.5, 0.1 },
        { 1, 0, 1, 1 }, 3, 2, 0.5 },
    { "the top tie alone exceeds the budget", 3, 1, { 0.6, 0.6, 0.1 },
        { 1, 1, 0 }, 0, 0, NAN },
    { "budget 0", 2, 0, { 0.6, 0.2 }, { 1, 0 }, 0, 0, NAN },
    { "no positive score", 2, 2, { 0, 0 }, { 1, 0 }, 0, 0, NAN },
    { "empty", 0, 3, { 0 }, { 0 }, 0, 0, NAN },
};

static void
test_budget_table(void)
{
    for (size_t i = 0; i < sizeof(budget_cases) / sizeof(budget_cases[0]);
         i++) {
        const struct budget_case *c = &budget_cases[i];
        TEST_BEGIN(c->name);
        struct metrics_budget b =
            metrics_at_budget(c->score, c->label, c->n, c->budget);
        CHECK_INT(b.flagged, c->flagged);
        CHECK_INT(b.tp, c->tp);
        if (isnan(c->cut))
            CHECK(isnan(b.cut));
        else
            CHECK_NEAR(b.cut, c->cut, 0);
        TEST_END();
    }
}

static void
test_median(void)
{
    double odd[] = { 5, 1, 3 };
    CHECK_NEAR(metrics_median(odd, 3), 3, 0);
    double even[] = { 4, 1, 3, 10 };
    CHECK_NEAR(metrics_median(even, 4), 3.5, 0);
    double one[] = { -2 };
    CHECK_NEAR(metrics_median(one, 1), -2, 0);
    CHECK(isnan(metrics_median(NULL, 0)));
}

int
main(void)
{
    test_auc_table();
    TEST_RUN("confusion counts and ratios", test_confusion);
    TEST_RUN(
        "nothing flagged: precision undefined", test_confusion_nothing_flagged);
    TEST_RUN("no positive: recall undefined", test_confusion_no_positive);
    test_budget_table();
    TEST_RUN("median odd, even, one, empty", test_median);
    return test_done();
}

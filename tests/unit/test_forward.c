/* test_forward.c - the forward channel: rates from past merges' sides, the
 * noisy-OR over the paths one agent changed, the threshold, and the
 * channel through the one pair pipeline. */
#include <math.h>
#include <stdlib.h>

#include "core/forward.h"
#include "core/pair.h"
#include "test.h"

#define EPS 1e-12

static void
edit(struct agent *a, const char *path)
{
    struct ws_file *f = agent_add_file(a, path, WS_MODIFIED);
    range_set_add(&f->ranges, 1, 1);
    f->weight = 1;
}

/* Three past merges (2n + 2 = 8):
 *   1: CHANGELOG on both sides; x.c on one, y.c on the other
 *   2: CHANGELOG on both; x.c on both
 *   3: CHANGELOG (listed twice: counted once) and z.c on one side, none
 *      on the other
 * s: CHANGELOG 5/8, x.c 3/8, y.c and z.c 1/8; side sizes 2 2 2 2 2 0:
 * median F = 2. */
static const char *const m1a[] = { "CHANGELOG", "x.c" };
static const char *const m1b[] = { "y.c", "CHANGELOG" };
static const char *const m2a[] = { "CHANGELOG", "x.c" };
static const char *const m2b[] = { "x.c", "CHANGELOG" };
static const char *const m3a[] = { "CHANGELOG", "z.c", "CHANGELOG" };

static void
build(struct forward_table *t)
{
    const struct forward_merge m[] = {
        { { { m1a, 2 }, { m1b, 2 } } },
        { { { m2a, 2 }, { m2b, 2 } } },
        { { { m3a, 3 }, { NULL, 0 } } },
    };
    forward_table_build(t, m, 3, NULL);
}

/* The same merges with each path numbered (CHANGELOG 0, x.c 1, y.c 2,
 * z.c 3): the same table, twice from the same counts (each build leaves
 * them as it found them), and a third build of the first merge alone. */
static void
test_ids(void)
{
    static const uint32_t i1a[] = { 0, 1 }, i1b[] = { 2, 0 }, i2a[] = { 0, 1 },
                          i2b[] = { 1, 0 }, i3a[] = { 0, 3, 0 };
    const struct forward_merge m[] = {
        { { { m1a, 2, i1a }, { m1b, 2, i1b } } },
        { { { m2a, 2, i2a }, { m2b, 2, i2b } } },
        { { { m3a, 3, i3a }, { NULL, 0, NULL } } },
    };
    struct forward_table a, b;
    forward_table_init(&a);
    forward_table_init(&b);
    build(&a);
    struct forward_counts *c = forward_counts_new();
    for (int round = 0; round < 2; round++) {
        forward_table_build(&b, m, 3, c);
        CHECK_INT(b.n, a.n);
        CHECK_INT(b.merges, a.merges);
        CHECK_NEAR(b.median_side, a.median_side, 0);
        for (size_t i = 0; i < a.n && i < b.n; i++) {
            CHECK_STR(b.paths[i], a.paths[i]);
            CHECK_NEAR(b.rate[i], a.rate[i], 0);
            CHECK_NEAR(forward_rate(&b, a.paths[i]), a.rate[i], 0);
        }
    }
    forward_table_build(&b, m, 1, c); /* 2n + 2 = 4 */
    CHECK_INT(b.n, 3);
    CHECK_NEAR(forward_rate(&b, "CHANGELOG"), 2.0 / 4, EPS);
    CHECK_NEAR(forward_rate(&b, "x.c"), 1.0 / 4, EPS);
    CHECK_NEAR(forward_rate(&b, "z.c"), 0, 0);
    forward_counts_free(c);
    forward_table_release(&a);
    forward_table_release(&b);
}

static void
test_rates(void)
{
    struct forward_table t;
    forward_table_init(&t);
    build(&t);
    CHECK_INT(t.merges, 3);
    CHECK_INT(t.n, 4);
    CHECK_NEAR(t.median_side, 2, 0);
    CHECK_NEAR(forward_rate(&t, "CHANGELOG"), 5.0 / 8, EPS);
    CHECK_NEAR(forward_rate(&t, "x.c"), 3.0 / 8, EPS);
    CHECK_NEAR(forward_rate(&t, "y.c"), 1.0 / 8, EPS);
    CHECK_NEAR(forward_rate(&t, "z.c"), 1.0 / 8, EPS);
    CHECK_NEAR(forward_rate(&t, "nowhere"), 0, 0);
    /* highest first, ties by path */
    CHECK_STR(t.paths[0], "CHANGELOG");
    CHECK_STR(t.paths[1], "x.c");
    CHECK_STR(t.paths[2], "y.c");
    /* built again: the old table is released (ASan would see a leak) */
    build(&t);
    CHECK_INT(t.n, 4);
    /* no merges: an empty table, F 1 */
    forward_table_build(&t, NULL, 0, NULL);
    CHECK_INT(t.n, 0);
    CHECK_INT(t.merges, 0);
    CHECK_NEAR(t.median_side, 1, 0);
    forward_table_release(&t);
}

/* an agent named id that changed the n paths given */
static void
agent_of(struct agent *a, const char *id, const char *const *paths, size_t n)
{
    agent_init(a, id);
    for (size_t i = 0; i < n; i++)
        edit(a, paths[i]);
    agent_sort(a);
}

static double
meet(const struct forward_table *t, const char *const *pa, size_t na,
    const char *const *pb, size_t nb, double min_rate)
{
    struct agent a, b;
    agent_of(&a, "a", pa, na);
    agent_of(&b, "b", pb, nb);
    double r = forward_meet(t, &a, &b, min_rate);
    CHECK_NEAR(forward_meet(t, &b, &a, min_rate), r, EPS); /* symmetric */
    agent_release(&a);
    agent_release(&b);
    return r;
}

static void
test_meet(void)
{
    struct forward_table t;
    forward_table_init(&t);
    build(&t);
    static const char *const cm[] = { "CHANGELOG", "m.c" };
    static const char *const mn[] = { "m.c", "n.c" };
    static const char *const op[] = { "o.c", "p.c" };
    static const char *const opqr[] = { "o.c", "p.c", "q.c", "r.c" };
    static const char *const o1[] = { "o.c" };
    static const char *const co[] = { "CHANGELOG", "o.c" };
    /* min_rate 0.5: CHANGELOG only. a changed it; b, as large as the
     * median side (f/F = 1), reaches it with 5/8 */
    CHECK_NEAR(meet(&t, cm, 2, op, 2, 0.5), 5.0 / 8, EPS);
    /* twice the median: 1 - (3/8)^2; half of it: 1 - (3/8)^(1/2) */
    CHECK_NEAR(meet(&t, cm, 2, opqr, 4, 0.5), 1 - 9.0 / 64, EPS);
    CHECK_NEAR(meet(&t, cm, 2, o1, 1, 0.5), 1 - sqrt(3.0 / 8), EPS);
    /* neither changed it: both may come to it */
    CHECK_NEAR(meet(&t, mn, 2, op, 2, 0.5), 25.0 / 64, EPS);
    /* min_rate 0.3 adds x.c, which neither changed: (3/8)^2 */
    CHECK_NEAR(
        meet(&t, cm, 2, op, 2, 0.3), 1 - (3.0 / 8) * (1 - 9.0 / 64), EPS);
    /* both changed CHANGELOG: already shared, not a forward meeting */
    CHECK_NEAR(meet(&t, cm, 2, co, 2, 0.5), 0, 0);
    /* an agent with no files reaches nothing */
    CHECK_NEAR(meet(&t, cm, 2, NULL, 0, 0.5), 0, 0);
    /* a threshold above every rate: 0 */
    CHECK_NEAR(meet(&t, cm, 2, op, 2, 0.9), 0, 0);
    /* no table, an empty one: 0 */
    struct agent a, b;
    agent_of(&a, "a", cm, 2);
    agent_of(&b, "b", op, 2);
    CHECK_NEAR(forward_meet(NULL, &a, &b, 0), 0, 0);
    struct forward_table empty;
    forward_table_init(&empty);
    CHECK_NEAR(forward_meet(&empty, &a, &b, 0), 0, 0);
    agent_release(&a);
    agent_release(&b);
    forward_table_release(&t);
}

/* Through pair_score: the channel is r_forward, weighted in R; weight 0 or
 * no table leaves it 0; the config keys parse and refuse bad values. */
static void
test_pair(void)
{
    struct forward_table t;
    forward_table_init(&t);
    build(&t);
    struct risk_config cfg;
    risk_config_default(&cfg);
    /* off by default since the activity channel (docs/risk-model.md) */
    CHECK_NEAR(cfg.weight[RISK_FORWARD], 0, 0);
    CHECK_NEAR(cfg.forward_min_rate, 0.1, 0);
    cfg.weight[RISK_FORWARD] = 0.1;
    CHECK_STR(risk_channel_name(RISK_FORWARD), "forward");
    struct agent ag[2];
    agent_init(&ag[0], "a");
    agent_init(&ag[1], "b");
    edit(&ag[0], "CHANGELOG");
    edit(&ag[0], "doc/m.c");
    edit(&ag[1], "lib/o.c"); /* tree: no shared directory */
    edit(&ag[1], "lib/p.c");
    agent_sort(&ag[0]);
    agent_sort(&ag[1]);
    struct risk_engine *e = risk_engine_new(&cfg, NULL, ag, 2);
    struct pair_input in = { .engine = e,
        .cfg = &cfg,
        .ea = 0,
        .eb = 1,
        .a = &ag[0],
        .b = &ag[1],
        .forward = &t };
    struct pair_score ps;
    CHECK_INT(pair_score(&in, &ps), 0);
    /* min_rate 0.1: CHANGELOG (5/8, a changed it) and x.c (3/8, neither)
     * count; y.c and z.c (1/8) too: f/F = 1 for both */
    double fw =
        1 - (3.0 / 8) * (1 - 9.0 / 64) * (1 - 1.0 / 64) * (1 - 1.0 / 64);
    CHECK_NEAR(ps.res.r[RISK_FORWARD], fw, EPS);
    double want =
        1 - (1 - 0.1 * fw) * (1 - cfg.weight[RISK_TREE] * ps.res.r[RISK_TREE]);
    CHECK_NEAR(ps.res.risk, want, EPS);
    /* each agent's reach worked out once (a crowd's scoring) gives the
     * same value to the bit, and the pipeline takes it */
    struct forward_reach ra, rb;
    forward_reach_init(&ra, &t, &ag[0], cfg.forward_min_rate);
    forward_reach_init(&rb, &t, &ag[1], cfg.forward_min_rate);
    CHECK_INT((int)ra.n, 4);
    CHECK(ra.had[0] && !rb.had[0]); /* CHANGELOG: a's, not b's */
    in.reach_a = &ra;
    in.reach_b = &rb;
    CHECK_INT(pair_score(&in, &ps), 0);
    CHECK(ps.res.r[RISK_FORWARD] == fw ||
          fabs(ps.res.r[RISK_FORWARD] - fw) < EPS);
    CHECK(ps.res.r[RISK_FORWARD] ==
          forward_meet(&t, &ag[0], &ag[1], cfg.forward_min_rate));
    forward_reach_release(&rb);
    forward_reach_init(&rb, &t, &ag[1], 0.5); /* CHANGELOG only */
    CHECK_INT(pair_score(&in, &ps), 0);
    CHECK_NEAR(ps.res.r[RISK_FORWARD], 5.0 / 8, EPS);
    forward_reach_release(&ra);
    forward_reach_release(&rb);
    in.reach_a = in.reach_b = NULL;
    in.forward = NULL;
    CHECK_INT(pair_score(&in, &ps), 0);
    CHECK_NEAR(ps.res.r[RISK_FORWARD], 0, 0);
    in.forward = &t;
    struct as_err err;
    CHECK_INT(risk_config_set(&cfg, "weight.forward", "0", &err), 0);
    CHECK_INT(pair_score(&in, &ps), 0);
    CHECK_NEAR(ps.res.r[RISK_FORWARD], 0, 0);
    CHECK_INT(risk_config_set(&cfg, "weight.forward", "1", &err), 0);
    CHECK_INT(risk_config_set(&cfg, "forward.min_rate", "0.7", &err), 0);
    CHECK_INT(pair_score(&in, &ps), 0);
    CHECK_NEAR(ps.res.r[RISK_FORWARD], 0, 0); /* 5/8 is below the floor */
    CHECK_INT(
        risk_config_set(&cfg, "forward.min_rate", "1.5", &err), AS_EINVAL);
    CHECK(strstr(err.msg, "forward.min_rate") != NULL);
    CHECK_NEAR(cfg.forward_min_rate, 0.7, 0); /* unchanged */
    risk_config_ecc(&cfg);
    CHECK_NEAR(cfg.weight[RISK_FORWARD], 0, 0);
    risk_engine_free(e);
    agent_release(&ag[0]);
    agent_release(&ag[1]);
    forward_table_release(&t);
}

int
main(void)
{
    TEST_RUN("rates: sides over 2n + 2, median side, rebuild", test_rates);
    TEST_RUN("numbered paths", test_ids);
    TEST_RUN("meeting: noisy-OR, working-set size, threshold", test_meet);
    TEST_RUN("the channel through pair_score and the config", test_pair);
    return test_done();
}

/* test_pair.c - the one pair pipeline: the channels only the caller has,
 * the merge channel's callback, noisy-OR once, right of way, and the state
 * machine's step as the daemon and replay take it. */
#include <stdlib.h>

#include "core/pair.h"
#include "test.h"

#define EPS 1e-12

/* Add path to a: lines [s, e], or the whole file when s == 0. */
static void
edit(struct agent *a, const char *path, uint32_t s, uint32_t e)
{
    struct ws_file *f = agent_add_file(a, path, WS_MODIFIED);
    if (s)
        range_set_add(&f->ranges, s, e);
    else
        f->whole = true;
    f->weight = 1;
}

/* A merge function that answers verdict and counts its calls. */
struct fake_merge {
    int verdict; /* 1 conflict, 0 clean, < 0 undecided */
    int calls;
};

static int
fake_merge(void *ctx, const struct agent *a, const struct agent *b,
    char ***paths, size_t *npaths)
{
    struct fake_merge *m = ctx;
    (void)a;
    (void)b;
    m->calls++;
    *paths = NULL;
    *npaths = 0;
    if (m->verdict > 0) {
        *paths = malloc(sizeof(**paths));
        (*paths)[0] = malloc(4);
        memcpy((*paths)[0], "s/f", 4);
        *npaths = 1;
    }
    return m->verdict;
}

struct score_case {
    const char *name;
    /* a edits pa lines [sa, ea], b edits pb lines [sb, eb] */
    const char *pa;
    uint32_t sa, ea;
    const char *pb;
    uint32_t sb, eb;
    double context;
    bool topic;
    bool merge;      /* give the merge function */
    int verdict;     /* its answer */
    double w_merge;  /* weight.merge */
    uint32_t ca, cb; /* a's and b's commits since their base */
    int want_calls;  /* times it runs */
    int want_rc;     /* pair_score's return */
    double want_r[RISK_NCHANNELS];
    double want; /* R, by hand */
    enum advisory_level want_level;
};

/* Default weights: overlap 1, merge 1, context 0.5, topic 0.4, tree 0.25.
 * Files in different top directories share no prefix: tree 0. */
static const struct score_case score_cases[] = {
    { .name = "nothing in common",
        .pa = "a/x.c",
        .sa = 1,
        .ea = 2,
        .pb = "b/y.c",
        .sb = 1,
        .eb = 2,
        .w_merge = 1,
        .want = 0,
        .want_level = ADVISORY_CLEAR },
    { .name = "stale context alone",
        .pa = "a/x.c",
        .sa = 1,
        .ea = 2,
        .pb = "b/y.c",
        .sb = 1,
        .eb = 2,
        .context = 0.5,
        .w_merge = 1,
        .want_r = { [RISK_CONTEXT] = 0.5 },
        .want = 0.25,
        .want_level = ADVISORY_CLEAR },
    { .name = "converging topics alone are traffic",
        .pa = "a/x.c",
        .sa = 1,
        .ea = 2,
        .pb = "b/y.c",
        .sb = 1,
        .eb = 2,
        .topic = true,
        .w_merge = 1,
        .want_r = { [RISK_TOPIC] = 1 },
        .want = 0.4,
        .want_level = ADVISORY_TRAFFIC },
    { .name = "context and topic combine once",
        .pa = "a/x.c",
        .sa = 1,
        .ea = 2,
        .pb = "b/y.c",
        .sb = 1,
        .eb = 2,
        .context = 0.5,
        .topic = true,
        .w_merge = 1,
        .want_r = { [RISK_CONTEXT] = 0.5, [RISK_TOPIC] = 1 },
        .want = 1 - 0.75 * 0.6,
        .want_level = ADVISORY_TRAFFIC },
    { .name = "no shared path: the merge is not run",
        .pa = "a/x.c",
        .sa = 1,
        .ea = 2,
        .pb = "b/y.c",
        .sb = 1,
        .eb = 2,
        .merge = true,
        .verdict = 1,
        .w_merge = 1,
        .want = 0,
        .want_level = ADVISORY_CLEAR },
    { .name = "shared file, far apart, clean merge",
        .pa = "s/f",
        .sa = 1,
        .ea = 2,
        .pb = "s/f",
        .sb = 100,
        .eb = 101,
        .merge = true,
        .verdict = 0,
        .w_merge = 1,
        .want_calls = 1,
        .want_r = { [RISK_TREE] = 1 },
        .want = 0, /* the tree channel is measured, weight 0 */
        .want_level = ADVISORY_CLEAR },
    { .name = "shared file, far apart, conflicting merge",
        .pa = "s/f",
        .sa = 1,
        .ea = 2,
        .pb = "s/f",
        .sb = 100,
        .eb = 101,
        .merge = true,
        .verdict = 1,
        .w_merge = 1,
        .want_calls = 1,
        .want_r = { [RISK_TREE] = 1, [RISK_MERGE] = 1 },
        .want = 1,
        .want_level = ADVISORY_RESOLUTION },
    { .name = "merge weight 0: the merge is not run",
        .pa = "s/f",
        .sa = 1,
        .ea = 2,
        .pb = "s/f",
        .sb = 100,
        .eb = 101,
        .merge = true,
        .verdict = 1,
        .w_merge = 0,
        .want_r = { [RISK_TREE] = 1 },
        .want = 0,
        .want_level = ADVISORY_CLEAR },
    { .name = "undecided merge: channel 0, its code returned",
        .pa = "s/f",
        .sa = 1,
        .ea = 2,
        .pb = "s/f",
        .sb = 100,
        .eb = 101,
        .context = 0.5,
        .merge = true,
        .verdict = -4,
        .w_merge = 1,
        .want_calls = 1,
        .want_rc = -4,
        .want_r = { [RISK_TREE] = 1, [RISK_CONTEXT] = 0.5 },
        .want = 0.25,
        .want_level = ADVISORY_CLEAR },
    { .name = "same lines, clean merge: overlap capped at overlap.merged",
        .pa = "s/f",
        .sa = 5,
        .ea = 5,
        .pb = "s/f",
        .sb = 5,
        .eb = 5,
        .merge = true,
        .verdict = 0,
        .w_merge = 1,
        .want_calls = 1,
        .want_r = { [RISK_OVERLAP] = 0.4, [RISK_TREE] = 1 },
        .want = 0.4, /* the same edit twice: both told, neither holds */
        .want_level = ADVISORY_TRAFFIC },
    { .name = "same lines, conflicting merge: overlap whole",
        .pa = "s/f",
        .sa = 5,
        .ea = 5,
        .pb = "s/f",
        .sb = 5,
        .eb = 5,
        .merge = true,
        .verdict = 1,
        .w_merge = 1,
        .want_calls = 1,
        .want_r = { [RISK_OVERLAP] = 1, [RISK_TREE] = 1, [RISK_MERGE] = 1 },
        .want = 1,
        .want_level = ADVISORY_RESOLUTION },
    { .name = "same lines, undecided merge: overlap whole",
        .pa = "s/f",
        .sa = 5,
        .ea = 5,
        .pb = "s/f",
        .sb = 5,
        .eb = 5,
        .merge = true,
        .verdict = -4,
        .w_merge = 1,
        .want_calls = 1,
        .want_rc = -4,
        .want_r = { [RISK_OVERLAP] = 1, [RISK_TREE] = 1 },
        .want = 1,
        .want_level = ADVISORY_RESOLUTION },
    { .name = "same lines, no merge function: overlap whole",
        .pa = "s/f",
        .sa = 5,
        .ea = 5,
        .pb = "s/f",
        .sb = 5,
        .eb = 5,
        .w_merge = 1,
        .want_r = { [RISK_OVERLAP] = 1, [RISK_TREE] = 1 },
        .want = 1,
        .want_level = ADVISORY_RESOLUTION },
    { .name = "near lines, clean merge: a quarter, under the cap, is clear",
        .pa = "s/f",
        .sa = 5,
        .ea = 10,
        .pb = "s/f",
        .sb = 12,
        .eb = 13,
        .merge = true,
        .verdict = 0,
        .w_merge = 1,
        .want_calls = 1,
        .want_r = { [RISK_OVERLAP] = 0.25, [RISK_TREE] = 1 },
        .want = 0.25,
        .want_level = ADVISORY_CLEAR },
    { .name = "a near miss of two committing agents is traffic",
        .pa = "s/f",
        .sa = 5,
        .ea = 10,
        .pb = "s/f",
        .sb = 12,
        .eb = 13,
        .ca = 10,
        .cb = 10,
        .merge = true,
        .verdict = 0,
        .w_merge = 1,
        .want_calls = 1,
        /* activity 1 - e^(-100/50) */
        .want_r = { [RISK_OVERLAP] = 0.25,
            [RISK_TREE] = 1,
            [RISK_ACTIVITY] = 0.8646647167633873 },
        .want = 1 - 0.75 * (1 - 0.3 * 0.8646647167633873),
        .want_level = ADVISORY_TRAFFIC },
    { .name = "two committing agents, nothing shared: activity alone is clear",
        .pa = "a/x.c",
        .sa = 1,
        .ea = 2,
        .pb = "b/y.c",
        .sb = 1,
        .eb = 2,
        .ca = 200,
        .cb = 200,
        .w_merge = 1,
        .want_r = { [RISK_ACTIVITY] = 1 }, /* 1 - e^-800, within EPS */
        .want = 0.3,
        .want_level = ADVISORY_CLEAR },
    { .name = "one agent without commits: no activity",
        .pa = "a/x.c",
        .sa = 1,
        .ea = 2,
        .pb = "b/y.c",
        .sb = 1,
        .eb = 2,
        .ca = 0,
        .cb = 40,
        .w_merge = 1,
        .want = 0,
        .want_level = ADVISORY_CLEAR },
    { .name = "adjacent lines overlap a third",
        .pa = "s/f",
        .sa = 5,
        .ea = 5,
        .pb = "s/f",
        .sb = 7,
        .eb = 7,
        .w_merge = 1,
        .want_r = { [RISK_OVERLAP] = 1.0 / 3, [RISK_TREE] = 1 },
        .want = 1.0 / 3,
        .want_level = ADVISORY_CLEAR },
};

static void
test_score(void)
{
    for (size_t i = 0; i < sizeof(score_cases) / sizeof(score_cases[0]); i++) {
        const struct score_case *c = &score_cases[i];
        TEST_BEGIN(c->name);
        struct risk_config cfg;
        risk_config_default(&cfg);
        cfg.weight[RISK_MERGE] = c->w_merge;
        struct agent ag[2];
        agent_init(&ag[0], "a");
        agent_init(&ag[1], "b");
        edit(&ag[0], c->pa, c->sa, c->ea);
        edit(&ag[1], c->pb, c->sb, c->eb);
        ag[0].commits_ahead = c->ca;
        ag[1].commits_ahead = c->cb;
        agent_sort(&ag[0]);
        agent_sort(&ag[1]);
        struct risk_engine *e = risk_engine_new(&cfg, NULL, ag, 2);
        struct fake_merge fm = { .verdict = c->verdict };
        struct pair_input in = { .engine = e,
            .cfg = &cfg,
            .ea = 0,
            .eb = 1,
            .a = &ag[0],
            .b = &ag[1],
            .context = c->context,
            .topic = c->topic,
            .merge = c->merge ? fake_merge : NULL,
            .merge_ctx = &fm };
        struct pair_score ps;
        CHECK_INT(pair_score(&in, &ps), c->want_rc);
        CHECK_INT(fm.calls, c->want_calls);
        CHECK_INT(ps.merge_checked, c->want_calls > 0);
        for (int k = 0; k < RISK_NCHANNELS; k++)
            CHECK_NEAR(ps.res.r[k], c->want_r[k], EPS);
        CHECK_NEAR(ps.res.risk, c->want, EPS);
        /* R is the noisy-OR of the final channels, bit for bit */
        CHECK(ps.res.risk == risk_combine(&cfg, ps.res.r));
        CHECK_INT(pair_level(&cfg, ps.res.risk), c->want_level);
        CHECK_INT(ps.nmerge_paths, c->verdict > 0 ? (size_t)c->want_calls : 0);
        for (size_t k = 0; k < ps.nmerge_paths; k++)
            free(ps.merge_paths[k]);
        free(ps.merge_paths);

        /* the two halves (scan's threads) give the same */
        struct fake_merge fm2 = { .verdict = c->verdict };
        in.merge_ctx = &fm2;
        struct pair_score half;
        pair_channels(&in, &half);
        CHECK_INT(pair_finish(&in, &half), c->want_rc);
        CHECK(memcmp(&half.res, &ps.res, sizeof(ps.res)) == 0);
        CHECK_INT(half.hold, ps.hold);
        for (size_t k = 0; k < half.nmerge_paths; k++)
            free(half.merge_paths[k]);
        free(half.merge_paths);

        risk_engine_free(e);
        agent_release(&ag[0]);
        agent_release(&ag[1]);
        TEST_END();
    }
}

/* Without caller inputs R is the engine's own, and hold is right of way. */
static void
test_engine_and_hold(void)
{
    TEST_BEGIN("engine R and right of way");
    struct risk_config cfg;
    risk_config_default(&cfg);
    struct agent ag[2];
    agent_init(&ag[0], "a");
    agent_init(&ag[1], "b");
    edit(&ag[0], "s/f", 5, 9);
    edit(&ag[0], "s/g", 1, 1);
    edit(&ag[1], "s/f", 8, 8);
    ag[1].commits_ahead = 2; /* b holds: more commits */
    agent_sort(&ag[0]);
    agent_sort(&ag[1]);
    struct risk_engine *e = risk_engine_new(&cfg, NULL, ag, 2);
    struct risk_result direct;
    risk_engine_score(e, 0, 1, &direct);
    CHECK_NEAR(direct.risk, 0, 0); /* the engine gives channels only */
    direct.risk = risk_combine(&cfg, direct.r);
    struct pair_input in = {
        .engine = e, .cfg = &cfg, .ea = 0, .eb = 1, .a = &ag[0], .b = &ag[1]
    };
    struct pair_score ps;
    CHECK_INT(pair_score(&in, &ps), 0);
    CHECK(memcmp(&direct, &ps.res, sizeof(direct)) == 0);
    CHECK_INT(ps.hold, 1);
    CHECK_INT(ps.hold, advisory_right_of_way(&ag[0], &ag[1]));
    in.a = &ag[1];
    in.b = &ag[0];
    CHECK_INT(pair_score(&in, &ps), 0);
    CHECK_INT(ps.hold, 0);
    risk_engine_free(e);
    agent_release(&ag[0]);
    agent_release(&ag[1]);
    TEST_END();
}

/* The contested files are explain's; lanes decide right of way in the
 * pipeline when they own every one of them. */
static void
test_lane_hold(void)
{
    TEST_BEGIN("lanes in the pipeline");
    struct risk_config cfg;
    risk_config_default(&cfg);
    struct agent ag[2];
    agent_init(&ag[0], "alice");
    agent_init(&ag[1], "bob");
    edit(&ag[0], "src/alice/x.c", 11, 11);
    edit(&ag[0], "src/alice/y.c", 1, 3);
    edit(&ag[0], "src/common.c", 20, 20);
    edit(&ag[0], "src/alice/w.c", 50, 50);
    edit(&ag[1], "src/alice/x.c", 10, 12);
    edit(&ag[1], "src/alice/y.c", 5, 9);  /* 4-10 meets 1-3 widened: 0-4 */
    edit(&ag[1], "src/common.c", 40, 40); /* shared, apart: not contested */
    edit(&ag[1], "src/bob/z.c", 0, 0);
    edit(&ag[1], "src/alice/w.c", 0, 0); /* whole: contested */
    ag[1].commits_ahead = 2;             /* bob holds without lanes */
    ag[1].committed_lines = 90;
    agent_sort(&ag[0]);
    agent_sort(&ag[1]);
    struct risk_engine *e = risk_engine_new(&cfg, NULL, ag, 2);
    const char **paths;
    size_t n = pair_contested(&cfg, &ag[0], &ag[1], &paths);
    struct risk_evidence ev;
    risk_engine_explain(e, 0, 1, &ev);
    CHECK_INT(n, 3);
    CHECK_INT(ev.ncontested, n);
    for (size_t i = 0; i < n && i < ev.ncontested; i++)
        CHECK_STR(paths[i], ev.contested[i].path);
    CHECK_STR(n ? paths[0] : NULL, "src/alice/w.c");
    free(paths);
    risk_evidence_release(&ev);
    cfg.margin = 0; /* 4-10 and 1-3 apart now */
    n = pair_contested(&cfg, &ag[0], &ag[1], &paths);
    CHECK_INT(n, 2);
    free(paths);
    cfg.margin = 1;

    const char *al[] = { "src/alice" }, *bl[] = { "src/bob" };
    struct advisory_lanes la = { al, 1 }, lb = { bl, 1 };
    struct pair_input in = {
        .engine = e, .cfg = &cfg, .ea = 0, .eb = 1, .a = &ag[0], .b = &ag[1]
    };
    struct pair_score ps;
    CHECK_INT(pair_score(&in, &ps), 0);
    CHECK_INT(ps.hold, 1);
    CHECK_INT(ps.lane_owner, -1);
    struct risk_result nolanes = ps.res;
    in.lanes_a = &la;
    in.lanes_b = &lb;
    CHECK_INT(pair_score(&in, &ps), 0);
    CHECK_INT(ps.lane_owner, 0);
    CHECK_INT(ps.hold, 0); /* alice: the contested files are her lane's */
    CHECK(memcmp(&nolanes, &ps.res, sizeof(nolanes)) == 0); /* R is not */
    /* asked the other way round: the same holder */
    struct pair_input rev = { .engine = e,
        .cfg = &cfg,
        .ea = 1,
        .eb = 0,
        .a = &ag[1],
        .b = &ag[0],
        .lanes_a = &lb,
        .lanes_b = &la };
    CHECK_INT(pair_score(&rev, &ps), 0);
    CHECK_INT(ps.lane_owner, 1);
    CHECK_INT(ps.hold, 1);
    /* bob's lanes cover the file too: no owner, commits decide */
    const char *wide[] = { "src/bob", "src/alice/x.c" };
    struct advisory_lanes lw = { wide, 2 };
    in.lanes_b = &lw;
    CHECK_INT(pair_score(&in, &ps), 0);
    CHECK_INT(ps.lane_owner, -1);
    CHECK_INT(ps.hold, 1);
    /* alice's lane without y.c: not every contested file is hers */
    const char *narrow[] = { "src/alice/x.c" };
    struct advisory_lanes ln = { narrow, 1 };
    in.lanes_a = &ln;
    in.lanes_b = &lb;
    CHECK_INT(pair_score(&in, &ps), 0);
    CHECK_INT(ps.hold, 1);
    /* lanes on bob's side only: bob's lane is not where they meet */
    in.lanes_a = NULL;
    CHECK_INT(pair_score(&in, &ps), 0);
    CHECK_INT(ps.lane_owner, -1);
    CHECK_INT(ps.hold, 1);
    risk_engine_free(e);
    agent_release(&ag[0]);
    agent_release(&ag[1]);
    TEST_END();
}

/* A fresh pair's level is advisory_classify's, at every threshold. */
static void
test_level(void)
{
    TEST_BEGIN("fresh level is the classification");
    struct risk_config cfg;
    risk_config_default(&cfg);
    const double taus[][2] = { { 0.35, 0.70 }, { 0.1, 0.2 }, { 0.5, 0.5 },
        { 0, 1 } };
    for (size_t t = 0; t < sizeof(taus) / sizeof(taus[0]); t++) {
        cfg.tau_ta = taus[t][0];
        cfg.tau_ra = taus[t][1];
        for (int k = 0; k <= 1000; k++) {
            double r = k / 1000.0;
            CHECK_INT(pair_level(&cfg, r), advisory_classify(&cfg, r));
        }
        CHECK_INT(
            pair_level(&cfg, cfg.tau_ta), advisory_classify(&cfg, cfg.tau_ta));
        CHECK_INT(
            pair_level(&cfg, cfg.tau_ra), advisory_classify(&cfg, cfg.tau_ra));
    }
    TEST_END();
}

/* The step reports transitions and when the level began; leaving resets
 * the machine and keeps since. */
struct step_case {
    double risk;
    int64_t t;
    bool changed;
    enum advisory_level was, level;
    int64_t since;
};

static const struct step_case steps[] = {
    { 0.10, 1000, false, ADVISORY_CLEAR, ADVISORY_CLEAR, 0 },
    { 0.40, 61000, true, ADVISORY_CLEAR, ADVISORY_TRAFFIC, 61000 },
    { 0.75, 121000, true, ADVISORY_TRAFFIC, ADVISORY_RESOLUTION, 121000 },
    { 0.50, 122000, false, ADVISORY_RESOLUTION, ADVISORY_RESOLUTION, 121000 },
    { 0.50, 151000, false, ADVISORY_RESOLUTION, ADVISORY_RESOLUTION, 121000 },
    { 0.50, 152000, true, ADVISORY_RESOLUTION, ADVISORY_TRAFFIC, 152000 },
    { 0.20, 212000, false, ADVISORY_TRAFFIC, ADVISORY_TRAFFIC, 152000 },
    { 0.20, 242000, true, ADVISORY_TRAFFIC, ADVISORY_CLEAR, 242000 },
};

static void
test_step(void)
{
    TEST_BEGIN("step and transitions");
    struct risk_config cfg;
    risk_config_default(&cfg);
    struct pair_advisory p;
    struct advisory_state ref; /* advisory_update alone */
    pair_advisory_init(&p);
    advisory_state_init(&ref);
    CHECK_INT(p.st.level, ADVISORY_CLEAR);
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        const struct step_case *s = &steps[i];
        enum advisory_level was = ADVISORY_RESOLUTION + 1;
        CHECK_INT(
            pair_advisory_step(&cfg, &p, s->risk, s->t, &was), s->changed);
        CHECK_INT(was, s->was);
        CHECK_INT(p.st.level, s->level);
        CHECK_INT(p.since, s->since);
        CHECK_INT(advisory_update(&cfg, &ref, s->risk, s->t), s->level);
        CHECK(memcmp(&ref, &p.st, sizeof(ref)) == 0);
    }
    CHECK_INT(pair_advisory_step(&cfg, &p, 0.9, 300000, NULL), true);
    CHECK_INT(pair_advisory_leave(&p), ADVISORY_RESOLUTION);
    CHECK_INT(p.st.level, ADVISORY_CLEAR);
    CHECK_INT(p.st.n, 0);
    CHECK_INT(p.since, 300000);
    TEST_END();
}

/* A pair with a parked agent: the same samples, never above traffic;
 * a resolution in progress comes down to traffic at the next step. */
static void
test_step_max(void)
{
    TEST_BEGIN("step at most traffic");
    struct risk_config cfg;
    risk_config_default(&cfg);
    struct pair_advisory p;
    enum advisory_level was;
    pair_advisory_init(&p);
    CHECK_INT(
        pair_advisory_step_max(&cfg, &p, 0.40, 61000, ADVISORY_TRAFFIC, &was),
        true);
    CHECK_INT(p.st.level, ADVISORY_TRAFFIC);
    CHECK_INT(
        pair_advisory_step_max(&cfg, &p, 0.75, 121000, ADVISORY_TRAFFIC, &was),
        false);
    CHECK_INT(p.st.level, ADVISORY_TRAFFIC);
    CHECK_INT(p.since, 61000);
    /* it leaves traffic as any pair does: below for the dwell */
    CHECK_INT(
        pair_advisory_step_max(&cfg, &p, 0.20, 122000, ADVISORY_TRAFFIC, &was),
        false);
    CHECK_INT(
        pair_advisory_step_max(&cfg, &p, 0.20, 182000, ADVISORY_TRAFFIC, &was),
        true);
    CHECK_INT(p.st.level, ADVISORY_CLEAR);
    /* in resolution when its agent parked: traffic at once */
    pair_advisory_init(&p);
    CHECK_INT(pair_advisory_step(&cfg, &p, 0.9, 200000, NULL), true);
    CHECK_INT(p.st.level, ADVISORY_RESOLUTION);
    CHECK_INT(
        pair_advisory_step_max(&cfg, &p, 0.9, 201000, ADVISORY_TRAFFIC, &was),
        true);
    CHECK_INT(was, ADVISORY_RESOLUTION);
    CHECK_INT(p.st.level, ADVISORY_TRAFFIC);
    CHECK_INT(p.since, 201000);
    /* back in flight: resolution again */
    CHECK_INT(pair_advisory_step(&cfg, &p, 0.9, 202000, &was), true);
    CHECK_INT(p.st.level, ADVISORY_RESOLUTION);
    TEST_END();
}

int
main(void)
{
    TEST_RUN("score", test_score);
    TEST_RUN("engine and hold", test_engine_and_hold);
    TEST_RUN("lanes and hold", test_lane_hold);
    TEST_RUN("level", test_level);
    TEST_RUN("step", test_step);
    TEST_RUN("step at most traffic", test_step_max);
    return test_done();
}

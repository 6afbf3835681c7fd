/* test_advisory.c - levels, the per-pair state machine on synthetic time
 * series, closure rate, right of way and steer guidance. */
#include <stdlib.h>

#include "core/advisory.h"
#include "test.h"

static enum advisory_level
feed(const struct risk_config *c, struct advisory_state *s, double r, int64_t t)
{
    return advisory_update(c, s, r, t);
}

static void
test_names(void)
{
    CHECK_STR(advisory_level_name(ADVISORY_CLEAR), "clear");
    CHECK_STR(advisory_level_name(ADVISORY_TRAFFIC), "traffic");
    CHECK_STR(advisory_level_name(ADVISORY_RESOLUTION), "resolution");
    struct risk_config c;
    risk_config_default(&c);
    CHECK_INT(advisory_classify(&c, 0.34), ADVISORY_CLEAR);
    CHECK_INT(advisory_classify(&c, 0.35), ADVISORY_TRAFFIC);
    CHECK_INT(advisory_classify(&c, 0.69), ADVISORY_TRAFFIC);
    CHECK_INT(advisory_classify(&c, 0.70), ADVISORY_RESOLUTION);
}

/* Enter at the thresholds; leave only after dwell below the lower value. */
static void
test_hysteresis_dwell(void)
{
    struct risk_config c;
    risk_config_default(&c);
    struct advisory_state s;
    advisory_state_init(&s);
    int64_t t = 0;
    CHECK_INT(feed(&c, &s, 0.10, t += 1000), ADVISORY_CLEAR);
    CHECK_INT(feed(&c, &s, 0.10, t += 1000), ADVISORY_CLEAR);
    CHECK_INT(feed(&c, &s, 0.40, t += 60000), ADVISORY_TRAFFIC);
    CHECK_INT(feed(&c, &s, 0.75, t += 60000), ADVISORY_RESOLUTION);
    /* 0.65 is below 0.70 but above leave 0.60: stays */
    CHECK_INT(feed(&c, &s, 0.65, t += 60000), ADVISORY_RESOLUTION);
    /* below 0.60 but not for dwell yet */
    CHECK_INT(feed(&c, &s, 0.50, t += 1000), ADVISORY_RESOLUTION);
    CHECK_INT(feed(&c, &s, 0.50, t += 29000), ADVISORY_RESOLUTION);
    CHECK_INT(feed(&c, &s, 0.50, t += 1000), ADVISORY_TRAFFIC);
    /* 0.32: below enter 0.35, above leave 0.30: traffic holds */
    CHECK_INT(feed(&c, &s, 0.32, t += 60000), ADVISORY_TRAFFIC);
    CHECK_INT(feed(&c, &s, 0.20, t += 60000), ADVISORY_TRAFFIC);
    CHECK_INT(feed(&c, &s, 0.20, t += 29999), ADVISORY_TRAFFIC);
    CHECK_INT(feed(&c, &s, 0.20, t += 1), ADVISORY_CLEAR);
    /* A dip that comes back resets the dwell clock. */
    CHECK_INT(feed(&c, &s, 0.80, t += 60000), ADVISORY_RESOLUTION);
    CHECK_INT(feed(&c, &s, 0.10, t += 60000), ADVISORY_RESOLUTION);
    CHECK_INT(feed(&c, &s, 0.62, t += 20000), ADVISORY_RESOLUTION);
    CHECK_INT(feed(&c, &s, 0.10, t += 20000), ADVISORY_RESOLUTION);
    CHECK_INT(feed(&c, &s, 0.10, t += 20000), ADVISORY_RESOLUTION);
    /* 30 s after the second dip: straight to clear (both held) */
    CHECK_INT(feed(&c, &s, 0.10, t += 10000), ADVISORY_CLEAR);
}

/* Deterministic noise around each boundary never flaps. */
static void
test_no_flapping(void)
{
    struct risk_config c;
    risk_config_default(&c);
    static const double noise[] = { 0.02, -0.03, 0.01, -0.01, 0.03, -0.02, 0.0,
        0.025, -0.025, 0.015 };
    const double centres[] = { 0.35, 0.30, 0.70, 0.60 };
    for (size_t k = 0; k < 4; k++) {
        struct advisory_state s;
        advisory_state_init(&s);
        int64_t t = 0;
        /* start clearly inside the upper level for the 0.30/0.60 cases */
        if (k == 1)
            feed(&c, &s, 0.40, t += 1000);
        if (k == 3)
            feed(&c, &s, 0.80, t += 1000);
        int changes = 0;
        enum advisory_level prev = s.level;
        for (int i = 0; i < 600; i++) {
            enum advisory_level l =
                feed(&c, &s, centres[k] + noise[i % 10], t += 1000);
            if (l != prev)
                changes++;
            prev = l;
        }
        CHECK(changes <= 1);
    }
}

/* Rising fast below tau_ta: early traffic, flagged closing fast. */
static void
test_early_traffic(void)
{
    struct risk_config c;
    risk_config_default(&c);
    struct advisory_state s;
    advisory_state_init(&s);
    int64_t t = 0;
    CHECK_INT(feed(&c, &s, 0.05, t += 1000), ADVISORY_CLEAR);
    CHECK_INT(feed(&c, &s, 0.10, t += 1000), ADVISORY_CLEAR);
    CHECK_INT(feed(&c, &s, 0.15, t += 1000), ADVISORY_CLEAR); /* < 0.2 */
    CHECK(s.closing_fast == false);
    CHECK_INT(feed(&c, &s, 0.20, t += 1000), ADVISORY_TRAFFIC);
    CHECK(s.closing_fast);
    CHECK_NEAR(s.closure, 0.05, 1e-9);
    CHECK_NEAR(s.tau_s, 10, 1e-6);
    /* The same rise spread over an hour is not closing fast. */
    advisory_state_init(&s);
    t = 0;
    for (int i = 0; i < 6; i++)
        feed(&c, &s, 0.05 + 0.05 * i, t += 600000);
    CHECK_INT(s.level, ADVISORY_CLEAR);
    CHECK(!s.closing_fast);
    CHECK(s.tau_s > 120);
    /* Falling: no tau. */
    advisory_state_init(&s);
    t = 0;
    for (int i = 0; i < 5; i++)
        feed(&c, &s, 0.3 - 0.05 * i, t += 1000);
    CHECK_NEAR(s.tau_s, -1, 0);
    CHECK(s.closure < 0);
}

static void
test_time_backwards(void)
{
    struct risk_config c;
    risk_config_default(&c);
    struct advisory_state s;
    advisory_state_init(&s);
    feed(&c, &s, 0.8, 10000);
    CHECK_INT(feed(&c, &s, 0.1, 5000), ADVISORY_RESOLUTION);
    CHECK_INT(s.n, 1);
}

struct rate_case {
    const char *name;
    double r0;
    int64_t t0;
    double r1;
    int64_t t1;
    double want;
};

static const struct rate_case rate_cases[] = {
    { "ecc-25 rising", 0.2, 0, 0.5, 1000, 0.3 },
    { "ecc-25 falling", 0.6, 0, 0.3, 1000, -0.3 },
    { "ecc-25 fast", 0.2, 0, 0.5, 500, 0.6 },
    { "no time", 0.2, 1000, 0.5, 1000, 0 },
};

static void
test_closure_rate(void)
{
    for (size_t i = 0; i < sizeof(rate_cases) / sizeof(rate_cases[0]); i++) {
        const struct rate_case *c = &rate_cases[i];
        TEST_BEGIN(c->name);
        CHECK_NEAR(
            advisory_closure_rate(c->r0, c->t0, c->r1, c->t1), c->want, 1e-12);
        TEST_END();
    }
}

static struct ws_file *
edit(struct agent *a, const char *path, uint32_t s, uint32_t e)
{
    struct ws_file *f = agent_add_file(a, path, WS_MODIFIED);
    if (s)
        range_set_add(&f->ranges, s, e);
    else
        f->whole = true;
    return f;
}

/* Each case: b holds (want 1) or a holds (0); checked both ways. */
static void
test_right_of_way(void)
{
    struct agent a, b;
    /* human over agent, whatever the work */
    agent_init(&a, "a");
    agent_init(&b, "b");
    a.commits_ahead = 9;
    b.kind = AGENT_HUMAN;
    CHECK_INT(advisory_right_of_way(&a, &b), 1);
    CHECK_INT(advisory_right_of_way(&b, &a), 0);
    /* more commits */
    b.kind = AGENT_AGENT;
    b.commits_ahead = 10;
    CHECK_INT(advisory_right_of_way(&a, &b), 1);
    CHECK_INT(advisory_right_of_way(&b, &a), 0);
    /* equal commits: more committed lines */
    b.commits_ahead = 9;
    a.committed_lines = 40;
    b.committed_lines = 4;
    CHECK_INT(advisory_right_of_way(&a, &b), 0);
    CHECK_INT(advisory_right_of_way(&b, &a), 1);
    /* with commits, working-set size is not consulted: start time is */
    b.committed_lines = 40;
    edit(&b, "x.c", 1, 500);
    a.started_at_ms = 100;
    b.started_at_ms = 200;
    CHECK_INT(advisory_right_of_way(&a, &b), 0);
    CHECK_INT(advisory_right_of_way(&b, &a), 1);
    agent_release(&a);
    agent_release(&b);

    /* no commits: more work holds; stats count over ranges */
    agent_init(&a, "a");
    agent_init(&b, "b");
    edit(&a, "x.c", 1, 10);
    struct ws_file *f = edit(&b, "x.c", 5, 5);
    f->added_lines = 30;
    CHECK_INT(advisory_work(&a), 10);
    CHECK_INT(advisory_work(&b), 30);
    CHECK_INT(advisory_right_of_way(&a, &b), 1);
    CHECK_INT(advisory_right_of_way(&b, &a), 0);
    /* unknown start sorts last */
    agent_release(&a);
    agent_release(&b);
    agent_init(&a, "a");
    agent_init(&b, "b");
    b.started_at_ms = 5;
    CHECK_INT(advisory_right_of_way(&a, &b), 1);
    CHECK_INT(advisory_right_of_way(&b, &a), 0);
    agent_release(&a);
    agent_release(&b);
}

static void
test_ecc22(void)
{
    struct agent lead, worker;
    agent_init(&lead, "lead");
    agent_init(&worker, "worker");
    edit(&lead, "users.js", 1, 80);
    edit(&lead, "posts.js", 0, 0);
    edit(&lead, "auth.js", 0, 0);
    edit(&worker, "users.js", 1, 80);
    CHECK_INT(advisory_right_of_way(&lead, &worker), 0);
    CHECK_INT(advisory_right_of_way(&worker, &lead), 1);
    agent_release(&lead);
    agent_release(&worker);
}

static void
test_ecc23(void)
{
    struct agent a, b;
    agent_init(&a, "a");
    agent_init(&b, "b");
    edit(&a, "x/y.js", 1, 20);
    edit(&b, "x/y.js", 1, 20);
    a.started_at_ms = b.started_at_ms = 36000000;
    CHECK_INT(advisory_right_of_way(&a, &b), 0);
    CHECK_INT(advisory_right_of_way(&b, &a), 1);
    /* evaluated again later: nothing depends on the time */
    CHECK_INT(advisory_right_of_way(&a, &b), 0);
    agent_release(&a);
    agent_release(&b);
}

static void
test_ecc24(void)
{
    struct agent a, z;
    agent_init(&a, "a");
    agent_init(&z, "z");
    edit(&a, "x/y.js", 1, 20);
    edit(&z, "x/y.js", 1, 20);
    z.started_at_ms = 36000000; /* 10:00 */
    a.started_at_ms = 36300000; /* 10:05 */
    CHECK_INT(advisory_right_of_way(&a, &z), 1);
    CHECK_INT(advisory_right_of_way(&z, &a), 0);
    agent_release(&a);
    agent_release(&z);
}

/* Lanes: who owns the contested files. */
static void
test_lane_owner(void)
{
    const char *alice[] = { "src/alice", "*.sql" }, *bob[] = { "src/bob/**" };
    struct advisory_lanes la = { alice, 2 }, lb = { bob, 1 };
    const char *one[] = { "src/alice/x.c" };
    CHECK_INT(advisory_lane_owner(&la, &lb, one, 1), 0);
    CHECK_INT(advisory_lane_owner(&lb, &la, one, 1), 1);
    /* every path in a's lanes, deep or by a name at any depth */
    const char *all[] = { "src/alice/x.c", "src/alice/d/y.c", "db/q.sql" };
    CHECK_INT(advisory_lane_owner(&la, &lb, all, 3), 0);
    CHECK_INT(advisory_lane_owner(&lb, &la, all, 3), 1);
    CHECK_STR(advisory_lane_of(&la, "src/alice/d/y.c"), "src/alice");
    CHECK_STR(advisory_lane_of(&la, "db/q.sql"), "*.sql");
    CHECK(advisory_lane_of(&la, "src/alicex/y.c") == NULL);
    CHECK(advisory_lane_of(NULL, "src/alice/x.c") == NULL);
    /* one path in neither's lanes, or split between them: no owner */
    const char *out[] = { "src/alice/x.c", "README" };
    CHECK_INT(advisory_lane_owner(&la, &lb, out, 2), -1);
    CHECK_INT(advisory_lane_owner(&lb, &la, out, 2), -1);
    const char *split[] = { "src/alice/x.c", "src/bob/y.c" };
    CHECK_INT(advisory_lane_owner(&la, &lb, split, 2), -1);
    CHECK_INT(advisory_lane_owner(&lb, &la, split, 2), -1);
    /* in both agents' lanes: no owner */
    const char *wide[] = { "src" };
    struct advisory_lanes lw = { wide, 1 };
    CHECK_INT(advisory_lane_owner(&la, &lw, one, 1), -1);
    CHECK_INT(advisory_lane_owner(&lw, &la, one, 1), -1);
    /* no path, no lanes, lanes on one side only */
    CHECK_INT(advisory_lane_owner(&la, &lb, one, 0), -1);
    CHECK_INT(advisory_lane_owner(NULL, NULL, one, 1), -1);
    struct advisory_lanes none = { NULL, 0 };
    CHECK_INT(advisory_lane_owner(&none, &none, one, 1), -1);
    CHECK_INT(advisory_lane_owner(&la, NULL, one, 1), 0);
    CHECK_INT(advisory_lane_owner(NULL, &la, one, 1), 1);
    CHECK_INT(advisory_lane_owner(&none, &lb, one, 1), -1);
    /* "@name" names an owner for the ownership file: it covers no path */
    const char *named[] = { "@core" }, *at[] = { "@core" };
    struct advisory_lanes ln = { named, 1 };
    CHECK(advisory_lane_of(&ln, "@core") == NULL);
    CHECK_INT(advisory_lane_owner(&ln, NULL, at, 1), -1);
}

/* The owner of the lane holds after a human, whatever the commits; the
 * same holder whichever way round the pair is asked. */
static void
test_right_of_way_lanes(void)
{
    struct agent alice, bob;
    agent_init(&alice, "alice");
    agent_init(&bob, "bob");
    /* bob committed more, in alice's lane */
    bob.commits_ahead = 3;
    bob.committed_lines = 200;
    alice.committed_lines = 0;
    edit(&bob, "src/alice/x.c", 10, 12);
    edit(&alice, "src/alice/x.c", 11, 11);
    CHECK_INT(advisory_right_of_way(&alice, &bob), 1); /* no lanes: bob */
    CHECK_INT(advisory_right_of_way_owner(&alice, &bob, -1), 1);
    CHECK_INT(advisory_right_of_way_owner(&bob, &alice, -1), 0);
    const char *al[] = { "src/alice" }, *bl[] = { "src/bob" };
    struct advisory_lanes la = { al, 1 }, lb = { bl, 1 };
    const char *contested[] = { "src/alice/x.c" };
    int o = advisory_lane_owner(&la, &lb, contested, 1);
    CHECK_INT(advisory_right_of_way_owner(&alice, &bob, o), 0);
    o = advisory_lane_owner(&lb, &la, contested, 1);
    CHECK_INT(advisory_right_of_way_owner(&bob, &alice, o), 1);
    /* a person still holds over the lane's owner */
    bob.kind = AGENT_HUMAN;
    CHECK_INT(advisory_right_of_way_owner(&alice, &bob, 0), 1);
    CHECK_INT(advisory_right_of_way_owner(&bob, &alice, 1), 0);
    /* two people: the lane decides between them too */
    alice.kind = AGENT_HUMAN;
    CHECK_INT(advisory_right_of_way_owner(&alice, &bob, 0), 0);
    CHECK_INT(advisory_right_of_way_owner(&bob, &alice, 1), 1);
    agent_release(&alice);
    agent_release(&bob);

    /* antisymmetry over every combination of the facts */
    for (int m = 0; m < 3 * 2 * 2 * 2 * 2 * 2 * 3; m++) {
        int v = m;
        int owner = v % 3 - 1;
        v /= 3;
        struct agent a, b;
        agent_init(&a, "a");
        agent_init(&b, "b");
        a.kind = v % 2 ? AGENT_HUMAN : AGENT_AGENT;
        v /= 2;
        b.kind = v % 2 ? AGENT_HUMAN : AGENT_AGENT;
        v /= 2;
        a.commits_ahead = (uint32_t)(v % 2);
        v /= 2;
        b.commits_ahead = (uint32_t)(v % 2) * 2;
        v /= 2;
        a.committed_lines = (uint32_t)(v % 2) * 7;
        v /= 2;
        a.started_at_ms = v % 3 * 100;
        b.started_at_ms = 100;
        int ab = advisory_right_of_way_owner(&a, &b, owner);
        int ba =
            advisory_right_of_way_owner(&b, &a, owner < 0 ? -1 : 1 - owner);
        CHECK_INT(ab, 1 - ba);
        /* the owner holds unless the other alone is a person */
        if (owner >= 0 && a.kind == b.kind)
            CHECK_INT(ab, owner);
        if (owner < 0)
            CHECK_INT(ab, advisory_right_of_way(&a, &b));
        agent_release(&a);
        agent_release(&b);
    }
}

static void
test_steer_text(void)
{
    struct agent hold, steer;
    agent_init(&hold, "alice");
    agent_init(&steer, "bob");
    struct risk_evidence ev;
    memset(&ev, 0, sizeof(ev));
    struct risk_contested c[2];
    memset(c, 0, sizeof(c));
    c[0].path = "src/a.c";
    range_set_add(&c[0].ranges, 12, 13);
    range_set_add(&c[0].ranges, 40, 40);
    c[1].path = "src/z.c";
    c[1].whole = true;
    ev.contested = c;
    ev.ncontested = 2;
    struct advisory_alt alts[] = { { "src/q.c", 0.3 }, { "src/p.c", 0.1 },
        { "src/r.c", 0.2 }, { "src/s.c", 0.9 } };
    char *txt = advisory_steer_text(&steer, &hold, 0.94, &ev, alts, 4);
    CHECK(strstr(txt, "'bob'") != NULL);
    CHECK(strstr(txt, "'alice' has right of way") != NULL);
    CHECK(strstr(txt, "src/a.c lines 12-13, 40") != NULL);
    CHECK(strstr(txt, "src/z.c (whole file)") != NULL);
    CHECK(strstr(txt, "switch to src/p.c (risk 0.10), src/r.c (risk 0.20), "
                      "src/q.c (risk 0.30)") != NULL);
    CHECK(strstr(txt, "src/s.c") == NULL);
    CHECK(strstr(txt, "wait until 'alice' commits or lands") != NULL);
    CHECK(strstr(txt, "message 'alice'") != NULL);
    free(txt);
    txt = advisory_steer_text(&steer, &hold, 0.9, NULL, NULL, 0);
    CHECK(strstr(txt, "switch") == NULL);
    CHECK(strstr(txt, "1. wait") != NULL);
    free(txt);
    range_set_release(&c[0].ranges);
    agent_release(&hold);
    agent_release(&steer);
}

/* Files in the holder's lane: leave them, do not wait. */
static void
test_steer_text_lane(void)
{
    struct agent hold, steer;
    agent_init(&hold, "alice");
    agent_init(&steer, "bob");
    struct risk_evidence ev;
    memset(&ev, 0, sizeof(ev));
    struct risk_contested c[2];
    memset(c, 0, sizeof(c));
    c[0].path = "src/alice/x.c";
    range_set_add(&c[0].ranges, 10, 12);
    c[1].path = "src/alice/y.c";
    c[1].whole = true;
    ev.contested = c;
    ev.ncontested = 2;
    const char *al[] = { "docs/a.md", "src/alice" }, *bl[] = { "src/bob" };
    struct advisory_lanes la = { al, 2 }, lb = { bl, 1 };
    char *txt =
        advisory_steer_text_lanes(&steer, &hold, 0.9, &ev, NULL, 0, &lb, &la);
    CHECK(strstr(txt, "'alice' has right of way: the contested files are in "
                      "its lane (src/alice).\n") != NULL);
    CHECK(strstr(txt, "src/alice/x.c lines 10-12") != NULL);
    CHECK(strstr(txt, "1. leave these files to 'alice': they are in its lane "
                      "(src/alice), not yours") != NULL);
    CHECK(
        strstr(txt, "airspace land refuses files outside your lanes") != NULL);
    CHECK(strstr(txt, "2. message 'alice'") != NULL);
    CHECK(strstr(txt, "wait until") == NULL);
    free(txt);
    /* a steering agent without lanes: land would not refuse it */
    txt =
        advisory_steer_text_lanes(&steer, &hold, 0.9, &ev, NULL, 0, NULL, &la);
    CHECK(strstr(txt, "leave these files to 'alice'") != NULL);
    CHECK(strstr(txt, "airspace land") == NULL);
    free(txt);
    /* a contested file outside the lane, or the steering agent's own
     * lane over one: the guidance without lanes */
    char *plain = advisory_steer_text(&steer, &hold, 0.9, &ev, NULL, 0);
    c[1].path = "src/common.c";
    char *mixed = advisory_steer_text(&steer, &hold, 0.9, &ev, NULL, 0);
    txt = advisory_steer_text_lanes(&steer, &hold, 0.9, &ev, NULL, 0, &lb, &la);
    CHECK_STR(txt, mixed);
    free(txt);
    c[1].path = "src/alice/y.c";
    const char *wide[] = { "src" };
    struct advisory_lanes lw = { wide, 1 };
    txt = advisory_steer_text_lanes(&steer, &hold, 0.9, &ev, NULL, 0, &lw, &la);
    CHECK_STR(txt, plain);
    free(txt);
    CHECK(strstr(plain, "wait until 'alice' commits or lands") != NULL);
    free(plain);
    free(mixed);
    range_set_release(&c[0].ranges);
    agent_release(&hold);
    agent_release(&steer);
}

int
main(void)
{
    TEST_RUN("levels", test_names);
    TEST_RUN("hysteresis and dwell", test_hysteresis_dwell);
    TEST_RUN("no flapping on noise", test_no_flapping);
    TEST_RUN("early traffic when closing fast", test_early_traffic);
    TEST_RUN("time going backwards", test_time_backwards);
    test_closure_rate();
    TEST_RUN("right of way order", test_right_of_way);
    TEST_RUN("ecc-22", test_ecc22);
    TEST_RUN("ecc-23", test_ecc23);
    TEST_RUN("ecc-24", test_ecc24);
    TEST_RUN("steer guidance", test_steer_text);
    TEST_RUN("lane owner", test_lane_owner);
    TEST_RUN("right of way with lanes", test_right_of_way_lanes);
    TEST_RUN("steer guidance in a lane", test_steer_text_lane);
    return test_done();
}

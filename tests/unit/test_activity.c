/*
 * test_activity.c - the activity CRDT: the worked timeline of conformance §3
 * ("c3-..."), tie-breaks, sequence numbers, decay, snapshots, and a seeded
 * property test of order-, grouping- and duplication-independence.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/activity.h"

static int
delta(struct activity *t, const char *agent, uint64_t seq, const char *file,
    double heat, bool ctx, enum activity_action act, int64_t act_at, int64_t at)
{
    char session[64];
    snprintf(session, sizeof(session), "%s-s1", agent);
    struct activity_delta d = { .agent = agent,
        .session = session,
        .seq = seq,
        .file = file,
        .e = { heat, ctx, act, act_at, at } };
    return activity_apply(t, &d, NULL);
}

#define API "/src/api.ts"

static void
check_view(struct activity *t, double heat, bool ctx, enum activity_action act,
    const char *agent)
{
    struct activity_view v;
    CHECK(activity_view(t, API, 0, 0, &v));
    CHECK_NEAR(v.heat, heat, 1e-12);
    CHECK_INT(v.in_context, ctx);
    CHECK_INT(v.action, act);
    CHECK_STR(v.agent, agent);
}

static void
test_timeline(void)
{
    struct activity *t = activity_new();
    TEST_BEGIN("c3-1000 A reads");
    CHECK_INT(delta(t, "A", 1, API, 1.0, true, ACTIVITY_READ, 1000, 1000),
        ACTIVITY_APPLIED);
    check_view(t, 1.0, true, ACTIVITY_READ, "A");
    TEST_END();
    TEST_BEGIN("c3-1005 B writes");
    delta(t, "B", 1, API, 1.0, true, ACTIVITY_WRITE, 1005, 1005);
    check_view(t, 1.0, true, ACTIVITY_WRITE, "B");
    TEST_END();
    TEST_BEGIN("c3-1100 A's heat to 0.9");
    delta(t, "A", 2, API, 0.9, true, ACTIVITY_READ, 1000, 1100);
    check_view(t, 1.0, true, ACTIVITY_WRITE, "B");
    TEST_END();
    TEST_BEGIN("c3-1200 A evicts from context");
    delta(t, "A", 3, API, 0.9, false, ACTIVITY_READ, 1000, 1200);
    check_view(t, 1.0, true, ACTIVITY_WRITE, "B");
    TEST_END();
    TEST_BEGIN("c3-1300 B evicts; heats 0.85 / 0.9");
    delta(t, "B", 2, API, 0.85, false, ACTIVITY_WRITE, 1005, 1300);
    check_view(t, 0.9, false, ACTIVITY_WRITE, "B");
    TEST_END();
    TEST_BEGIN("c3-2000 B disconnects");
    activity_disconnect(t, "B", "B-s1");
    check_view(t, 0.9, false, ACTIVITY_READ, "A");
    struct activity_entry e;
    CHECK(!activity_get(t, API, "B", &e));
    CHECK(activity_get(t, API, "A", &e));
    struct activity_view v;
    activity_view(t, API, 0, 0, &v);
    CHECK_INT(v.nagents, 1);
    /* B's late delta from the closed session is ignored */
    CHECK_INT(delta(t, "B", 3, API, 1.0, true, ACTIVITY_WRITE, 1900, 1900),
        ACTIVITY_CLOSED);
    check_view(t, 0.9, false, ACTIVITY_READ, "A");
    TEST_END();
    activity_free(t);
}

static void
test_ties(void)
{
    /* same action time: the stronger action, then the smaller id, in
     * either delivery order */
    for (int order = 0; order < 2; order++) {
        struct activity *t = activity_new();
        const char *first = order ? "zed" : "amy";
        const char *second = order ? "amy" : "zed";
        delta(t, first, 1, "f", 0.5, false, ACTIVITY_READ, 50, 50);
        delta(t, second, 1, "f", 0.5, false, ACTIVITY_READ, 50, 50);
        struct activity_view v;
        activity_view(t, "f", 0, 0, &v);
        CHECK_STR(v.agent, "amy");
        delta(t, "zed", 2, "f", 0.5, false, ACTIVITY_SEARCH, 50, 60);
        activity_view(t, "f", 0, 0, &v);
        CHECK_STR(v.agent, "zed");
        CHECK_INT(v.action, ACTIVITY_SEARCH);
        activity_free(t);
    }
}

static void
test_sequence(void)
{
    struct activity *t = activity_new();
    CHECK_INT(
        delta(t, "A", 1, "f", 1, true, ACTIVITY_READ, 1, 1), ACTIVITY_APPLIED);
    CHECK_INT(
        delta(t, "A", 2, "f", 1, true, ACTIVITY_READ, 2, 2), ACTIVITY_APPLIED);
    CHECK_INT(delta(t, "A", 2, "f", 1, true, ACTIVITY_READ, 2, 2),
        ACTIVITY_DUPLICATE);
    CHECK_INT(
        delta(t, "A", 5, "g", 1, true, ACTIVITY_READ, 5, 5), ACTIVITY_GAP);
    /* the late 3 is merged (and is older, so changes nothing on f) */
    CHECK_INT(delta(t, "A", 3, "f", 0.1, false, ACTIVITY_WRITE, 0, 0),
        ACTIVITY_DUPLICATE);
    struct activity_entry e;
    CHECK(activity_get(t, "f", "A", &e));
    CHECK_INT(e.action, ACTIVITY_READ);
    CHECK_INT(
        delta(t, "A", 6, "g", 1, true, ACTIVITY_READ, 6, 6), ACTIVITY_APPLIED);
    /* the first number of a session must be 1 */
    CHECK_INT(
        delta(t, "B", 3, "g", 1, true, ACTIVITY_READ, 6, 6), ACTIVITY_GAP);
    activity_free(t);
}

static void
test_resync(void)
{
    struct activity *t = activity_new();
    delta(t, "A", 1, "f", 1, true, ACTIVITY_READ, 1, 1);
    delta(t, "A", 2, "g", 1, true, ACTIVITY_WRITE, 2, 2);
    delta(t, "B", 1, "g", 0.5, true, ACTIVITY_READ, 3, 3);
    static const char *const files[] = { "h" };
    static const struct activity_entry ent[] = { { 0.7, true, ACTIVITY_SEARCH,
        9, 9 } };
    CHECK_INT(activity_resync(t, "A", "A-s1", 10, files, ent, 1, NULL), 0);
    struct activity_entry e;
    CHECK(!activity_get(t, "f", "A", &e));
    CHECK(!activity_get(t, "g", "A", &e));
    CHECK(activity_get(t, "g", "B", &e)); /* others untouched */
    CHECK(activity_get(t, "h", "A", &e));
    CHECK_NEAR(e.heat, 0.7, 1e-12);
    CHECK_INT(delta(t, "A", 11, "h", 1, true, ACTIVITY_WRITE, 11, 11),
        ACTIVITY_APPLIED);
    CHECK_INT(
        activity_resync(t, "B", "A-s1", 10, files, ent, 1, NULL), AS_EINVAL);
    activity_free(t);
}

static void
test_decay(void)
{
    CHECK_NEAR(activity_decay(1.0, 0, 1000), 1.0, 1e-12);
    CHECK_NEAR(activity_decay(1.0, 1000, 1000), 0.5, 1e-12);
    CHECK_NEAR(activity_decay(0.8, 3000, 1000), 0.1, 1e-12);
    CHECK_NEAR(activity_decay(0.8, -5, 1000), 0.8, 1e-12);
    CHECK_NEAR(activity_decay(0.8, 5000, 0), 0.8, 1e-12);
    struct activity *t = activity_new();
    delta(t, "A", 1, "f", 1.0, true, ACTIVITY_READ, 0, 0);
    delta(t, "B", 1, "f", 0.6, true, ACTIVITY_READ, 0, 2000);
    struct activity_view v;
    /* at 2000 with half-life 1000: A 0.25, B 0.6 */
    activity_view(t, "f", 2000, 1000, &v);
    CHECK_NEAR(v.heat, 0.6, 1e-12);
    activity_view(t, "f", 2000, 0, &v);
    CHECK_NEAR(v.heat, 1.0, 1e-12);
    activity_free(t);
}

static void
test_errors(void)
{
    struct activity *t = activity_new();
    struct as_err e;
    CHECK_INT(delta(t, "A", 0, "f", 1, true, ACTIVITY_READ, 1, 1), AS_EINVAL);
    CHECK_INT(delta(t, "A", 1, "", 1, true, ACTIVITY_READ, 1, 1), AS_EINVAL);
    CHECK_INT(delta(t, "A", 1, "f", -1, true, ACTIVITY_READ, 1, 1), AS_EINVAL);
    CHECK_INT(delta(t, "A", 1, "f", NAN, true, ACTIVITY_READ, 1, 1), AS_EINVAL);
    CHECK_INT(delta(t, "A", 1, "f", 1, true, (enum activity_action)9, 1, 1),
        AS_EINVAL);
    struct activity_delta d = { .agent = "B",
        .session = "A-s1",
        .seq = 1,
        .file = "f",
        .e = { 1, true, ACTIVITY_READ, 1, 1 } };
    delta(t, "A", 1, "f", 1, true, ACTIVITY_READ, 1, 1);
    CHECK_INT(activity_apply(t, &d, &e), AS_EINVAL);
    CHECK(strstr(e.msg, "another agent") != NULL);
    CHECK_INT(activity_nfiles(t), 1);
    activity_free(t);
}

/* --- property test --- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t
rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

struct event {
    bool disconnect;
    struct activity_delta d;
};

static const char *const AGENTS[] = { "A", "A", "B", "C" };
static const char *const SESSIONS[] = { "A1", "A2", "B1", "C1" };
static const char *const FILES[] = { "x.c", "y.c", "z.c" };
static const double HEATS[] = { 0, 0.25, 0.5, 1.0 };

static size_t
gen_events(struct event *ev)
{
    size_t n = 0;
    for (uint32_t s = 0; s < 4; s++) {
        for (uint64_t seq = 1; seq <= 6; seq++) {
            struct event *x = &ev[n++];
            memset(x, 0, sizeof(*x));
            int64_t at = rnd(30);
            x->d = (struct activity_delta){ .agent = AGENTS[s],
                .session = SESSIONS[s],
                .seq = seq,
                .file = FILES[rnd(3)],
                .e = { HEATS[rnd(4)], rnd(2), (enum activity_action)rnd(4),
                    at - rnd(4), at } };
        }
        if (rnd(3) == 0) {
            struct event *x = &ev[n++];
            memset(x, 0, sizeof(*x));
            x->disconnect = true;
            x->d.agent = AGENTS[s];
            x->d.session = SESSIONS[s];
        }
    }
    return n;
}

static void
deliver(struct activity *t, const struct event *x)
{
    if (x->disconnect)
        activity_disconnect(t, x->d.agent, x->d.session);
    else
        CHECK(activity_apply(t, &x->d, NULL) >= 0);
}

/* Everything observable about a table, as text. */
static void
signature(const struct activity *t, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t f = 0; f < 3; f++) {
        struct activity_view v;
        bool has = activity_view(t, FILES[f], 40, 7, &v);
        o +=
            (size_t)snprintf(buf + o, len - o, "%s:%d %.17g %d %d %lld %s %zu;",
                FILES[f], has, v.heat, v.in_context, v.action,
                (long long)v.action_at, v.agent ? v.agent : "-", v.nagents);
        for (size_t a = 1; a < 4; a++) {
            struct activity_entry e;
            if (activity_get(t, FILES[f], AGENTS[a], &e))
                o += (size_t)snprintf(buf + o, len - o,
                    "%s=%.17g/%d/%d/%lld/%lld;", AGENTS[a], e.heat,
                    e.in_context, e.action, (long long)e.action_at,
                    (long long)e.at);
        }
    }
}

static void
test_property(void)
{
    enum { TRIALS = 300, ORDERS = 8 };
    struct event ev[40], seqv[160];
    char want[2048], got[2048];
    for (int trial = 0; trial < TRIALS; trial++) {
        size_t n = gen_events(ev);
        struct activity *ref = activity_new();
        for (size_t i = 0; i < n; i++)
            deliver(ref, &ev[i]);
        signature(ref, want, sizeof(want));
        /* any order, any duplication */
        for (int k = 0; k < ORDERS; k++) {
            size_t m = 0;
            for (size_t i = 0; i < n; i++)
                for (uint32_t c = 1 + rnd(3); c > 0; c--)
                    seqv[m++] = ev[i];
            for (size_t i = m; i > 1; i--) {
                size_t j = rnd((uint32_t)i);
                struct event tmp = seqv[i - 1];
                seqv[i - 1] = seqv[j];
                seqv[j] = tmp;
            }
            struct activity *t = activity_new();
            for (size_t i = 0; i < m; i++)
                deliver(t, &seqv[i]);
            signature(t, got, sizeof(got));
            CHECK_STR(got, want);
            activity_free(t);
        }
        /* any grouping of replicas: (X+Y)+Z, X+(Y+Z), (Z+X)+Y, and again */
        struct activity *r[3] = { activity_new(), activity_new(),
            activity_new() };
        for (size_t i = 0; i < n; i++) {
            uint32_t mask = 1 + rnd(7);
            for (int k = 0; k < 3; k++)
                if (mask & (1u << k))
                    deliver(r[k], &ev[i]);
        }
        struct activity *m1 = activity_new(), *m2 = activity_new(),
                        *m3 = activity_new(), *yz = activity_new();
        activity_merge(m1, r[0]);
        activity_merge(m1, r[1]);
        activity_merge(m1, r[2]);
        activity_merge(yz, r[1]);
        activity_merge(yz, r[2]);
        activity_merge(m2, r[0]);
        activity_merge(m2, yz);
        activity_merge(m3, r[2]);
        activity_merge(m3, r[0]);
        activity_merge(m3, r[1]);
        signature(m1, got, sizeof(got));
        CHECK_STR(got, want);
        signature(m2, got, sizeof(got));
        CHECK_STR(got, want);
        signature(m3, got, sizeof(got));
        CHECK_STR(got, want);
        activity_merge(m1, r[1]); /* idempotent */
        activity_merge(m1, m2);
        signature(m1, got, sizeof(got));
        CHECK_STR(got, want);
        for (int k = 0; k < 3; k++)
            activity_free(r[k]);
        activity_free(m1);
        activity_free(m2);
        activity_free(m3);
        activity_free(yz);
        activity_free(ref);
        if (test_case_failed)
            break; /* one report is enough */
    }
}

int
main(void)
{
    test_timeline();
    TEST_RUN("ties broken by action then smaller id", test_ties);
    TEST_RUN("sequence numbers: gap, duplicate, late", test_sequence);
    TEST_RUN("snapshot resync", test_resync);
    TEST_RUN("heat decay", test_decay);
    TEST_RUN("bad deltas refused", test_errors);
    TEST_RUN(
        "c3-property: commutative, associative, idempotent", test_property);
    return test_done();
}

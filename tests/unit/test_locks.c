/* test_locks.c - the lock and claim table: grants, conflicts, expiry,
 * claims, events, normalisation, restore, and the prefix index. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/locks.h"
#include "test.h"

#define MIN 60000
#define DEF LOCK_DEFAULT_TTL_MS

/* --- scenarios: a table of steps, each with its expected result --------- */

enum op {
    ACQ = 0,
    REL,
    RELALL,
    RENEW,
    TOUCH,
    EXPIRE,
    CONTEST,
    FORCE,
    FORCE_STALE,
    CHECK,
};

/* Expected counts are stored +1 so that 0 means "not checked". */
#define N(x) ((x) + 1)

struct step {
    enum op op;
    const char *agent, *pattern;
    int64_t now;
    bool shared, claim;
    int64_t ttl; /* 0: LOCK_TTL_DEFAULT */
    const char *reason;
    int rc;             /* expected return (counts for RELALL, ...) */
    int outcome;        /* N(enum lock_outcome) for ACQ */
    const char *holder; /* holder of the lock the call returns */
    const char *events; /* expected event names, space-separated */
    int live;           /* N(live locks after the step) */
    const char *err;    /* a substring of the error message */
    int64_t expires;    /* expected expires_at of the returned lock */
};

struct scenario {
    const char *name;
    const char *root;
    int64_t contest_timeout; /* 0: default */
    struct step steps[14];
};

static void
events_str(const struct lock_events *ev, char *buf, size_t n)
{
    buf[0] = '\0';
    size_t len = 0;
    for (size_t i = 0; i < ev->n && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? " " : "",
            lock_event_name(&ev->v[i]));
}

static void
run_scenario(const struct scenario *sc)
{
    TEST_BEGIN(sc->name);
    struct lock_config cfg;
    lock_config_default(&cfg);
    cfg.root = sc->root;
    if (sc->contest_timeout)
        cfg.contest_timeout_ms = sc->contest_timeout;
    struct lock_table *t = lock_table_new(&cfg);
    struct lock_events ev;
    lock_events_init(&ev);
    for (size_t k = 0; k < sizeof(sc->steps) / sizeof(sc->steps[0]); k++) {
        const struct step *s = &sc->steps[k];
        if (!s->agent && s->op != EXPIRE && !s->now)
            break;
        struct as_err e = { "" };
        const struct lock *got = NULL;
        struct lock_result res = { LOCK_REFUSED, NULL };
        int64_t ttl = s->ttl ? s->ttl : LOCK_TTL_DEFAULT;
        enum lock_mode mode = s->shared ? LOCK_SHARED : LOCK_EXCLUSIVE;
        int rc = 0;
        lock_events_clear(&ev);
        switch (s->op) {
        case ACQ: {
            struct lock_request r = { s->pattern, s->agent, mode,
                s->claim ? LOCK_KIND_CLAIM : LOCK_KIND_LOCK, ttl, s->reason,
                false };
            rc = lock_table_acquire(t, &r, s->now, &res, &ev, &e);
            got = res.lock;
            if (s->outcome)
                CHECK_INT(res.outcome, s->outcome - 1);
            break;
        }
        case REL:
            rc = lock_table_release(t, s->agent, s->pattern, s->now, &ev, &e);
            break;
        case RELALL:
            rc = (int)lock_table_release_all(t, s->agent, s->now, &ev);
            break;
        case RENEW:
            rc = lock_table_renew(
                t, s->agent, s->pattern, ttl, s->now, &got, &ev, &e);
            break;
        case TOUCH:
            rc = lock_table_touch(t, s->agent, s->pattern, s->now, &ev, &e);
            break;
        case EXPIRE:
            rc = (int)lock_table_expire(t, s->now, &ev);
            break;
        case CONTEST:
            rc = lock_table_contest(
                t, s->agent, s->pattern, s->now, &got, &ev, &e);
            break;
        case FORCE:
        case FORCE_STALE:
            rc = lock_table_force_release(
                t, s->agent, s->pattern, s->now, s->op == FORCE_STALE, &ev, &e);
            break;
        case CHECK:
            rc = lock_table_check(
                t, s->agent, s->pattern, mode, s->now, &got, &e);
            break;
        }
        if (rc != s->rc)
            fprintf(stderr, "  step %zu: rc %d want %d (%s)\n", k, rc, s->rc,
                e.msg);
        CHECK_INT(rc, s->rc);
        if (s->holder) {
            CHECK(got != NULL);
            if (got)
                CHECK_STR(got->holder, s->holder);
        }
        if (s->expires && got)
            CHECK_INT(got->expires_at, s->expires);
        if (s->events) {
            char buf[512];
            events_str(&ev, buf, sizeof(buf));
            if (strcmp(buf, s->events))
                fprintf(stderr, "  step %zu: events\n", k);
            CHECK_STR(buf, s->events);
        }
        if (s->err) {
            if (!strstr(e.msg, s->err))
                fprintf(stderr, "  step %zu: message '%s' lacks '%s'\n", k,
                    e.msg, s->err);
            CHECK(strstr(e.msg, s->err) != NULL);
        }
        if (s->live) {
            size_t n;
            lock_table_list(t, s->now, &n);
            CHECK_INT(n, s->live - 1);
        }
    }
    lock_events_release(&ev);
    lock_table_free(t);
    TEST_END();
}

static const struct scenario scenarios[] = {
    /* Conformance §2 (file locks). */
    { "flightdeck-1 acquire free path is granted",
        .steps = {
            { ACQ, "alice", "src/a.ts", 1000, .outcome = N(LOCK_GRANTED),
                .holder = "alice", .events = "lock.granted", .live = N(1),
                .expires = 1000 + DEF },
        } },
    { "flightdeck-2 second agent is refused, naming the holder",
        .steps = {
            { ACQ, "alice", "src/a.ts", 1000, .reason = "refactor" },
            { ACQ, "bob", "src/a.ts", 2000, .rc = AS_ECONFLICT,
                .outcome = N(LOCK_REFUSED), .holder = "alice", .events = "",
                .live = N(1),
                .err = "'src/a.ts' is locked by 'alice' (exclusive lock on "
                       "'src/a.ts', reason 'refactor'; expires in 4 min 59 s, at 1970-01-01T00:05:01Z" },
        } },
    { "flightdeck-3 holder re-acquiring refreshes, not refused",
        .steps = {
            { ACQ, "alice", "src/a.ts", 1000 },
            { ACQ, "alice", "src/a.ts", 5000, .outcome = N(LOCK_REFRESHED),
                .holder = "alice", .events = "lock.refreshed", .live = N(1),
                .expires = 5000 + DEF },
        } },
    { "flightdeck-4 release by holder frees",
        .steps = {
            { ACQ, "alice", "src/a.ts", 1000 },
            { REL, "alice", "src/a.ts", 2000, .events = "lock.released",
                .live = N(0) },
            { ACQ, "bob", "src/a.ts", 3000, .outcome = N(LOCK_GRANTED) },
        } },
    { "flightdeck-5 release by non-holder is refused, lock kept",
        .steps = {
            { ACQ, "alice", "src/a.ts", 1000 },
            { REL, "bob", "src/a.ts", 2000, .rc = AS_ECONFLICT, .events = "",
                .live = N(1), .err = "held by 'alice', not 'bob'" },
            { ACQ, "bob", "src/a.ts", 3000, .rc = AS_ECONFLICT },
        } },
    { "release of an unheld pattern is not found",
        .steps = {
            { REL, "bob", "src/a.ts", 2000, .rc = AS_ENOENT, .events = "" },
        } },
    { "flightdeck-6 release-all counts, other agents kept",
        .steps = {
            { ACQ, "alice", "src/a.ts", 1000 },
            { ACQ, "alice", "docs/**", 1000 },
            { ACQ, "alice", "src/b.ts", 1000, .claim = true },
            { ACQ, "bob", "lib/x.c", 1000 },
            { RELALL, "alice", NULL, 2000, .rc = 3,
                .events = "lock.released_all lock.released_all "
                          "claim.released_all",
                .live = N(1) },
            { RELALL, "alice", NULL, 2000, .rc = 0, .events = "" },
            { CHECK, "carol", "lib/x.c", 2000, .rc = AS_ECONFLICT,
                .holder = "bob" },
        } },
    { "flightdeck-7 expired lock is gone for reads and acquire",
        .steps = {
            { ACQ, "alice", "src/a.ts", 0, .ttl = 1000 },
            { CHECK, "bob", "src/a.ts", 999, .rc = AS_ECONFLICT,
                .holder = "alice", .live = N(1) },
            /* At expires_at it is gone, before expire() runs. */
            { CHECK, "bob", "src/a.ts", 1000, .rc = 0, .live = N(0) },
            { EXPIRE, NULL, NULL, 1500, .rc = 1, .events = "lock.expired" },
            { EXPIRE, NULL, NULL, 1600, .rc = 0, .events = "" },
        } },
    { "flightdeck-8 acquire over an expired lock retires it with an event",
        .steps = {
            { ACQ, "alice", "src/a.ts", 0, .ttl = 1000 },
            { ACQ, "bob", "src/a.ts", 2000, .outcome = N(LOCK_GRANTED),
                .holder = "bob", .events = "lock.expired lock.granted",
                .live = N(1) },
        } },
    { "flightdeck-9 src/auth/* blocks login.ts and deeper paths",
        .steps = {
            { ACQ, "alice", "src/auth/*", 0 },
            { ACQ, "bob", "src/auth/login.ts", 1, .rc = AS_ECONFLICT,
                .holder = "alice" },
            { ACQ, "bob", "src/auth/oauth/google.ts", 1, .rc = AS_ECONFLICT,
                .holder = "alice" },
            { ACQ, "bob", "src/authz.ts", 1, .outcome = N(LOCK_GRANTED) },
            { ACQ, "bob", "src/**", 1, .rc = AS_ECONFLICT },
            { ACQ, "bob", "src", 1, .rc = AS_ECONFLICT },
            { ACQ, "bob", "**/*.ts", 1, .rc = AS_ECONFLICT },
            { ACQ, "bob", "/*.go", 1, .outcome = N(LOCK_GRANTED) },
            /* src/auth/x/y.go is covered by both. */
            { ACQ, "bob", "*.go", 1, .rc = AS_ECONFLICT, .holder = "alice" },
        } },
    { "flightdeck-10 ./ // and absolute spellings are one lock",
        .root = "/home/u/repo",
        .steps = {
            { ACQ, "alice", "src/a.ts", 0 },
            { ACQ, "alice", "./src/a.ts", 1, .outcome = N(LOCK_REFRESHED) },
            { ACQ, "alice", "src//a.ts", 2, .outcome = N(LOCK_REFRESHED) },
            { ACQ, "alice", "/home/u/repo/src/a.ts", 3,
                .outcome = N(LOCK_REFRESHED), .live = N(1) },
            { ACQ, "bob", "/home/u/repo/./src//a.ts", 4,
                .rc = AS_ECONFLICT, .holder = "alice" },
            { REL, "alice", "/home/u/repo/src/a.ts/", 5,
                .events = "lock.released", .live = N(0) },
        } },
    { "flightdeck-11 escapes are refused",
        .root = "/home/u/repo",
        .steps = {
            { ACQ, "alice", "../etc/passwd", 0, .rc = AS_EINVAL,
                .err = "pattern '../etc/passwd' escapes the repository",
                .live = N(0) },
            { ACQ, "alice", "src/../../x", 0, .rc = AS_EINVAL,
                .err = "escapes" },
            { ACQ, "alice", "/etc/passwd", 0, .rc = AS_EINVAL,
                .err = "outside the repository '/home/u/repo'" },
            { ACQ, "alice", "/home/u/repo2/a", 0, .rc = AS_EINVAL,
                .err = "outside" },
            { ACQ, "alice", "src/../a.ts", 0, .outcome = N(LOCK_GRANTED) },
            { CHECK, "bob", "a.ts", 1, .rc = AS_ECONFLICT, .holder = "alice" },
        } },
    { "flightdeck-12 default ttl is 300 s",
        .steps = {
            { ACQ, "alice", "a", 7, .expires = 7 + 300000 },
            { CHECK, "bob", "a", 300006, .rc = AS_ECONFLICT },
            { CHECK, "bob", "a", 300007, .rc = 0 },
        } },

    { "huge ttl and times saturate instead of overflowing",
        .steps = {
            { ACQ, "alice", "a", 1000, .ttl = INT64_MAX - 5,
                .expires = INT64_MAX },
            { CHECK, "bob", "a", INT64_MAX - 1, .rc = AS_ECONFLICT,
                .err = "expires in 1 s, at 9223372036854775807 ms" },
            { RENEW, "alice", "a", INT64_MAX - 1, .expires = INT64_MAX },
            { ACQ, "alice", "b", INT64_MIN + 1, .claim = true,
                .ttl = INT64_MAX },
            { CONTEST, "bob", "b", INT64_MIN + 1 },
            { ACQ, "alice", "b", -1, .claim = true, .ttl = INT64_MAX,
                .outcome = N(LOCK_REFRESHED), .expires = INT64_MAX - 1 },
            { FORCE, "bob", "b", INT64_MAX - 2, .rc = 0,
                .events = "claim.force_released" },
        } },

    /* Modes and overlap rules. */
    { "shared locks coexist, exclusive is refused by shared",
        .steps = {
            { ACQ, "alice", "src/a.ts", 0, .shared = true },
            { ACQ, "bob", "src/a.ts", 1, .shared = true,
                .outcome = N(LOCK_GRANTED), .live = N(2) },
            { ACQ, "carol", "src/a.ts", 2, .rc = AS_ECONFLICT,
                .holder = "alice" },
            { ACQ, "carol", "src/*", 2, .rc = AS_ECONFLICT },
            { CHECK, "carol", "src/a.ts", 2, .shared = true, .rc = 0 },
        } },
    { "shared request refused by an exclusive lock",
        .steps = {
            { ACQ, "alice", "src/**", 0 },
            { ACQ, "bob", "src/x/y.c", 1, .shared = true,
                .rc = AS_ECONFLICT, .holder = "alice" },
        } },
    { "an agent may hold overlapping locks of its own",
        .steps = {
            { ACQ, "alice", "src/**", 0 },
            { ACQ, "alice", "src/a.ts", 1, .outcome = N(LOCK_GRANTED) },
            { ACQ, "alice", "*.ts", 2, .outcome = N(LOCK_GRANTED),
                .live = N(3) },
            { ACQ, "bob", "lib/a.ts", 3, .rc = AS_ECONFLICT,
                .holder = "alice" },
        } },
    { "refresh upgrades shared to exclusive only without other holders",
        .steps = {
            { ACQ, "alice", "a.c", 0, .shared = true },
            { ACQ, "bob", "a.c", 0, .shared = true },
            { ACQ, "alice", "a.c", 1, .rc = AS_ECONFLICT, .holder = "bob" },
            { REL, "bob", "a.c", 2 },
            { ACQ, "alice", "a.c", 3, .outcome = N(LOCK_REFRESHED) },
            { ACQ, "bob", "a.c", 4, .shared = true, .rc = AS_ECONFLICT },
        } },
    { "refusal names the lowest-token holder",
        .steps = {
            { ACQ, "bob", "src/*.c", 0 },
            { ACQ, "alice", "src/a.c", 0, .rc = AS_ECONFLICT },
            { ACQ, "carol", "lib/**", 0 },
            { ACQ, "dave", "**/*.c", 1, .rc = AS_ECONFLICT, .holder = "bob" },
        } },
    { "a path is anchored at the root, so is a ./ glob",
        .steps = {
            { ACQ, "alice", "Makefile", 0 },
            { ACQ, "bob", "lib/Makefile", 0, .outcome = N(LOCK_GRANTED) },
            { ACQ, "carol", "./*.md", 0, .outcome = N(LOCK_GRANTED) },
            { CHECK, "dave", "docs/README.md", 1, .rc = 0 },
            { CHECK, "dave", "README.md", 1, .rc = AS_ECONFLICT,
                .holder = "carol" },
        } },
    { "an unanchored glob applies at any depth",
        .steps = {
            { ACQ, "carol", "*.md", 0 },
            { CHECK, "dave", "docs/deep/README.md", 1, .rc = AS_ECONFLICT,
                .holder = "carol" },
            { ACQ, "dave", "docs/deep/README.md", 1, .shared = true,
                .rc = AS_ECONFLICT, .holder = "carol" },
            { ACQ, "carol", "docs/deep/README.md", 1,
                .outcome = N(LOCK_GRANTED) },
        } },
    { "a path may be a directory: its inside overlaps deeper globs",
        .steps = {
            /* Known pessimism: Makefile/x.h would be covered by both. */
            { ACQ, "alice", "Makefile", 0 },
            { ACQ, "erin", "*.h", 0, .rc = AS_ECONFLICT, .holder = "alice" },
            { ACQ, "erin", "src/x.c", 0 },
            { CHECK, "bob", "src/**/*.ts", 1, .rc = AS_ECONFLICT,
                .holder = "erin" },
        } },

    /* Renewal. */
    { "renew extends by the lock's ttl or a new one",
        .steps = {
            { ACQ, "alice", "a", 0, .ttl = 1000 },
            { RENEW, "alice", "./a", 500, .holder = "alice",
                .events = "lock.renewed", .expires = 1500 },
            { RENEW, "alice", "a", 600, .ttl = 5000, .expires = 5600 },
            { RENEW, "alice", "a", 700, .expires = 5700 },
            { RENEW, "bob", "a", 700, .rc = AS_ENOENT, .events = "" },
            { RENEW, "alice", "a", 700, .ttl = -5, .rc = AS_EINVAL,
                .err = "ttl must be positive" },
            { RENEW, "alice", "a", 5700, .rc = AS_ENOENT,
                .events = "lock.expired" },
        } },
    { "touch renews every covering lock of the agent",
        .steps = {
            { ACQ, "alice", "src/**", 0, .ttl = 1000 },
            { ACQ, "alice", "src/auth/login.ts", 0, .ttl = 2000 },
            { ACQ, "alice", "src/auth/*.ts", 0, .ttl = 3000 },
            { ACQ, "alice", "lib/**", 0, .ttl = 1000 },
            { ACQ, "bob", "src/auth/login.ts", 0, .shared = true,
                .rc = AS_ECONFLICT },
            { TOUCH, "alice", "./src/auth//login.ts", 900, .rc = 3,
                .events = "lock.touched lock.touched lock.touched" },
            /* The lib lock was not touched: it expires at 1000, the src one at 1900. */
            { CHECK, "bob", "lib/x", 1000, .rc = 0 },
            { CHECK, "bob", "src/x", 1899, .rc = AS_ECONFLICT },
            { CHECK, "bob", "src/x", 1900, .rc = 0 },
            { TOUCH, "bob", "src/auth/login.ts", 1000, .rc = 0,
                .events = "lock.expired" },
            { TOUCH, "alice", "../x", 1000, .rc = AS_EINVAL },
        } },

    /* Conformance §5 (claims). */
    { "pane-1 claim granted, second holder refused, same holder refreshed",
        .steps = {
            { ACQ, "alice", "src/api", 0, .claim = true,
                .events = "claim.granted", .outcome = N(LOCK_GRANTED) },
            { ACQ, "bob", "src/api/routes.ts", 1, .claim = true,
                .rc = AS_ECONFLICT, .holder = "alice",
                .err = "'src/api/routes.ts' is claimed by 'alice'" },
            { ACQ, "alice", "src/api", 2, .claim = true,
                .outcome = N(LOCK_REFRESHED), .events = "claim.refreshed" },
        } },
    { "pane-2 contest, force-release before and after the timeout",
        .steps = {
            { ACQ, "alice", "src/api", 0, .claim = true },
            { FORCE, "bob", "src/api", 10, .rc = AS_ECONFLICT,
                .err = "has not been contested" },
            { CONTEST, "bob", "src/api", 1000, .holder = "alice",
                .events = "claim.contested" },
            { FORCE, "bob", "src/api", 1000 + 119999, .rc = AS_ECONFLICT,
                .events = "", .live = N(1),
                .err = "force-release is allowed after 120000 ms (in 1 ms)" },
            { FORCE, "bob", "src/api", 1000 + 120000,
                .events = "claim.force_released", .live = N(0) },
            { ACQ, "bob", "src/api", 121001, .claim = true,
                .outcome = N(LOCK_GRANTED) },
        } },
    { "pane-3 stale holder can be force-released without waiting",
        .steps = {
            { ACQ, "alice", "src/api", 0, .claim = true },
            { FORCE_STALE, "bob", "src/api/x.ts", 5,
                .events = "claim.force_released", .live = N(0) },
        } },
    { "pane-4 claim release by a non-holder is refused",
        .steps = {
            { ACQ, "alice", "src/api", 0, .claim = true },
            { REL, "bob", "src/api", 1, .rc = AS_ECONFLICT, .live = N(1) },
        } },
    { "pane-5 the claims log records claim and release",
        .steps = {
            { ACQ, "alice", "src/api", 0, .claim = true,
                .events = "claim.granted" },
            { REL, "alice", "src/api", 1, .events = "claim.released" },
        } },
    { "contest timeout is configurable",
        .contest_timeout = 5000,
        .steps = {
            { ACQ, "alice", "a", 0, .claim = true },
            { CONTEST, "bob", "a", 100 },
            { FORCE, "bob", "a", 5099, .rc = AS_ECONFLICT },
            { FORCE, "bob", "a", 5100, .live = N(0) },
        } },
    { "contest by a path inside the claim, timer kept on re-contest",
        .contest_timeout = 5000,
        .steps = {
            { ACQ, "alice", "src/**", 0, .claim = true },
            { CONTEST, "bob", "src/a/b.c", 100, .holder = "alice" },
            { CONTEST, "carol", "src/a/b.c", 3000,
                .events = "claim.contested" },
            { FORCE, "carol", "src/a/b.c", 5100,
                .events = "claim.force_released" },
        } },
    { "only claims of others can be contested",
        .steps = {
            { ACQ, "alice", "a", 0 },
            { CONTEST, "bob", "a", 1, .rc = AS_EINVAL,
                .err = "only claims can be contested" },
            { ACQ, "bob", "b", 0, .claim = true },
            { CONTEST, "bob", "b", 1, .rc = AS_EINVAL, .err = "its own" },
            { CONTEST, "bob", "c", 1, .rc = AS_ENOENT },
            { FORCE_STALE, "bob", "a", 1, .rc = AS_EINVAL, .live = N(2) },
        } },
    { "locks and claims block each other",
        .steps = {
            { ACQ, "alice", "src/api", 0, .claim = true },
            { ACQ, "bob", "src/api/x.ts", 1, .rc = AS_ECONFLICT },
            { ACQ, "alice", "src/api", 1, .outcome = N(LOCK_GRANTED),
                .live = N(2) },
        } },
};

static void
test_scenarios(void)
{
    for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
        run_scenario(&scenarios[i]);
}

/* --- normalisation ------------------------------------------------------ */

struct norm_case {
    const char *name, *root, *in, *want; /* want NULL: AS_EINVAL */
    const char *err;
};

static const struct norm_case norm_cases[] = {
    { "plain path", NULL, "src/a.ts", "src/a.ts", NULL },
    { "dot slash", NULL, "./src/a.ts", "src/a.ts", NULL },
    { "double slash", NULL, "src//a.ts", "src/a.ts", NULL },
    { "trailing slash", NULL, "src/", "src", NULL },
    { "dot dot inside", NULL, "src/x/../a.ts", "src/a.ts", NULL },
    { "absolute under root", "/r/repo", "/r/repo/src/a.ts", "src/a.ts", NULL },
    { "absolute without root", NULL, "/src/a.ts", "src/a.ts", NULL },
    { "glob kept", NULL, "src/**/*.ts", "src/**/*.ts", NULL },
    { "unanchored glob", NULL, "*.c", "*.c", NULL },
    { "anchored glob by dot slash", NULL, "./*.c", "/*.c", NULL },
    { "anchored glob by slash", NULL, "/*.c", "/*.c", NULL },
    { "anchored glob under root", "/r", "/r/*.c", "/*.c", NULL },
    { "empty", NULL, "", NULL, "pattern is empty" },
    { "root itself", NULL, "./", NULL, "names the repository root" },
    { "escape", NULL, "../x", NULL, "escapes the repository" },
    { "outside root", "/r/repo", "/etc/x", NULL, "outside the repository" },
    { "bad class", NULL, "src/[ab", NULL, "pattern 'src/[ab' is invalid" },
    { "trailing backslash", NULL, "src/a\\", NULL, "is invalid" },
};

static void
test_normalize(void)
{
    for (size_t i = 0; i < sizeof(norm_cases) / sizeof(norm_cases[0]); i++) {
        const struct norm_case *c = &norm_cases[i];
        TEST_BEGIN(c->name);
        struct lock_config cfg;
        lock_config_default(&cfg);
        cfg.root = c->root;
        struct lock_table *t = lock_table_new(&cfg);
        char *out = NULL;
        struct as_err e = { "" };
        int rc = lock_table_normalize(t, c->in, &out, &e);
        if (c->want) {
            CHECK_INT(rc, 0);
            CHECK_STR(out, c->want);
        } else {
            CHECK_INT(rc, AS_EINVAL);
            CHECK(out == NULL);
            CHECK(strstr(e.msg, c->err) != NULL);
        }
        free(out);
        lock_table_free(t);
        TEST_END();
    }
}

/* --- bad input leaves the table unchanged ------------------------------- */

struct bad_case {
    const char *name;
    struct lock_request r;
    const char *err;
};

static const struct bad_case bad_cases[] = {
    { "empty pattern",
        { "", "bob", LOCK_EXCLUSIVE, LOCK_KIND_LOCK, 1000, NULL, false },
        "pattern is empty" },
    { "null pattern",
        { NULL, "bob", LOCK_EXCLUSIVE, LOCK_KIND_LOCK, 1000, NULL, false },
        "pattern is empty" },
    { "glob that does not compile",
        { "src/[a", "bob", LOCK_EXCLUSIVE, LOCK_KIND_LOCK, 1000, NULL, false },
        "pattern 'src/[a' is invalid" },
    { "unknown mode",
        { "x", "bob", (enum lock_mode)7, LOCK_KIND_LOCK, 1000, NULL, false },
        "unknown mode 7" },
    { "unknown kind",
        { "x", "bob", LOCK_SHARED, (enum lock_kind)3, 1000, NULL, false },
        "unknown kind 3" },
    { "zero ttl",
        { "x", "bob", LOCK_EXCLUSIVE, LOCK_KIND_LOCK, 0, NULL, false },
        "ttl must be positive, got 0 ms" },
    { "negative ttl",
        { "x", "bob", LOCK_EXCLUSIVE, LOCK_KIND_LOCK, -1, NULL, false },
        "ttl must be positive" },
    { "escaping path",
        { "a/../../b", "bob", LOCK_EXCLUSIVE, LOCK_KIND_LOCK, 1000, NULL,
            false },
        "pattern 'a/../../b' escapes" },
    { "empty holder",
        { "x", "", LOCK_EXCLUSIVE, LOCK_KIND_LOCK, 1000, NULL, false },
        "holder is empty" },
};

static void
test_bad_input(void)
{
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        const struct bad_case *c = &bad_cases[i];
        TEST_BEGIN(c->name);
        struct lock_table *t = lock_table_new(NULL);
        struct lock_request ok = { "src/a.ts", "alice", LOCK_EXCLUSIVE,
            LOCK_KIND_LOCK, 100, NULL, false };
        CHECK_INT(lock_table_acquire(t, &ok, 0, NULL, NULL, NULL), 0);
        struct lock_stats before, after;
        lock_table_stats(t, &before);
        uint64_t next = lock_table_next_token(t);
        struct lock_events ev;
        lock_events_init(&ev);
        struct as_err e = { "" };
        struct lock_result res;
        /* Even at a time when alice's lock has expired, bad input must not
         * retire it. */
        int rc = lock_table_acquire(t, &c->r, 500, &res, &ev, &e);
        CHECK_INT(rc, AS_EINVAL);
        CHECK(res.lock == NULL);
        CHECK(strstr(e.msg, c->err) != NULL);
        if (!strstr(e.msg, c->err))
            fprintf(stderr, "  message: %s\n", e.msg);
        CHECK_INT(ev.n, 0);
        lock_table_stats(t, &after);
        CHECK_INT(after.locks, before.locks);
        CHECK_INT(after.nodes, before.nodes);
        CHECK_INT(lock_table_next_token(t), next);
        lock_events_release(&ev);
        lock_table_free(t);
        TEST_END();
    }
    TEST_BEGIN("overlong reason and holder are refused");
    struct lock_table *t = lock_table_new(NULL);
    char big[LOCK_REASON_MAX + 2];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    struct lock_request r = { "a", "bob", LOCK_EXCLUSIVE, LOCK_KIND_LOCK,
        LOCK_TTL_DEFAULT, big, false };
    struct as_err e = { "" };
    CHECK_INT(lock_table_acquire(t, &r, 0, NULL, NULL, &e), AS_EINVAL);
    CHECK(strstr(e.msg, "reason is longer") != NULL);
    r.reason = NULL;
    r.holder = big;
    CHECK_INT(lock_table_acquire(t, &r, 0, NULL, NULL, &e), AS_EINVAL);
    CHECK(strstr(e.msg, "holder is longer") != NULL);
    struct lock_stats st;
    lock_table_stats(t, &st);
    CHECK_INT(st.locks, 0);
    lock_table_free(t);
    TEST_END();
}

/* --- names -------------------------------------------------------------- */

static void
test_names(void)
{
    enum lock_mode m;
    enum lock_kind k;
    struct as_err e = { "" };
    CHECK_INT(lock_mode_parse("shared", &m, &e), 0);
    CHECK_INT(m, LOCK_SHARED);
    CHECK_INT(lock_mode_parse("exclusive", &m, &e), 0);
    CHECK_INT(m, LOCK_EXCLUSIVE);
    CHECK_INT(lock_mode_parse("write", &m, &e), AS_EINVAL);
    CHECK(strstr(e.msg, "unknown mode 'write'") != NULL);
    CHECK_INT(lock_kind_parse("claim", &k, &e), 0);
    CHECK_INT(k, LOCK_KIND_CLAIM);
    CHECK_INT(lock_kind_parse(NULL, &k, &e), AS_EINVAL);
    CHECK_STR(lock_mode_name(LOCK_SHARED), "shared");
    CHECK_STR(lock_kind_name(LOCK_KIND_LOCK), "lock");
    CHECK_STR(lock_event_type_name(LOCK_EV_FORCE_RELEASED), "force_released");
    CHECK_STR(lock_event_type_name((enum lock_event_type)99), "?");
}

/* --- tokens, list, find, events' copies --------------------------------- */

static const struct lock *
acquire(struct lock_table *t, const char *agent, const char *pattern,
    int64_t now, struct lock_events *ev)
{
    struct lock_request r = { pattern, agent, LOCK_EXCLUSIVE, LOCK_KIND_LOCK,
        LOCK_TTL_DEFAULT, NULL, false };
    struct lock_result res;
    int rc = lock_table_acquire(t, &r, now, &res, ev, NULL);
    return rc == 0 ? res.lock : NULL;
}

static void
test_tokens(void)
{
    struct lock_table *t = lock_table_new(NULL);
    const struct lock *a = acquire(t, "alice", "a", 0, NULL);
    CHECK(a && a->token == 1);
    const struct lock *b = acquire(t, "bob", "b", 0, NULL);
    CHECK(b && b->token == 2);
    /* A refresh keeps the token. */
    const struct lock *a2 = acquire(t, "alice", "a", 10, NULL);
    CHECK(a2 && a2->token == 1 && a2->acquired_at == 0);
    /* A re-grant after release takes a new, higher token. */
    CHECK_INT(lock_table_release(t, "alice", "a", 20, NULL, NULL), 0);
    const struct lock *a3 = acquire(t, "alice", "a", 30, NULL);
    CHECK(a3 && a3->token == 3 && a3->acquired_at == 30);
    /* A refused acquire consumes no token. */
    CHECK(acquire(t, "carol", "a", 40, NULL) == NULL);
    CHECK_INT(lock_table_next_token(t), 4);
    /* Re-grant after expiry: new token too. */
    CHECK(acquire(t, "bob", "b", DEF + 1, NULL) != NULL);
    const struct lock *bl = lock_table_find(t, 4, DEF + 1);
    CHECK(bl && !strcmp(bl->holder, "bob") && !strcmp(bl->pattern, "b"));
    CHECK(lock_table_find(t, 2, DEF + 1) == NULL);
    lock_table_free(t);
}

static void
test_list_find(void)
{
    struct lock_table *t = lock_table_new(NULL);
    struct lock_events ev;
    lock_events_init(&ev);
    acquire(t, "zed", "b/x", 0, &ev);
    acquire(t, "amy", "a/**", 0, &ev);
    acquire(t, "bob", "c", 0, &ev);
    struct lock_request cl = { "b/x", "zed", LOCK_EXCLUSIVE, LOCK_KIND_CLAIM,
        10, "why", false };
    CHECK_INT(lock_table_acquire(t, &cl, 0, NULL, &ev, NULL), 0);
    size_t n;
    const struct lock *const *v = lock_table_list(t, 5, &n);
    CHECK_INT(n, 4);
    if (n == 4) {
        CHECK_STR(v[0]->pattern, "a/**");
        CHECK_STR(v[1]->pattern, "b/x");
        CHECK_INT(v[1]->kind, LOCK_KIND_LOCK);
        CHECK_INT(v[2]->kind, LOCK_KIND_CLAIM);
        CHECK_STR(v[2]->reason, "why");
        CHECK_STR(v[3]->pattern, "c");
    }
    /* The claim's ttl of 10 ms has run out at 10. */
    lock_table_list(t, 10, &n);
    CHECK_INT(n, 3);
    const struct lock *f = lock_table_find(t, 3, 10);
    CHECK(f && !strcmp(f->holder, "bob"));
    CHECK(lock_table_find(t, 4, 10) == NULL);
    CHECK(lock_table_find(t, 4, 9) != NULL);
    CHECK(lock_table_find(t, 99, 0) == NULL);
    /* Events are copies: they outlive the locks. */
    CHECK_INT(lock_table_release_all(t, "zed", 11, &ev), 1);
    lock_table_free(t);
    CHECK_INT(ev.n, 6);
    CHECK_STR(ev.v[3].lock.reason, "why");
    CHECK_STR(lock_event_name(&ev.v[3]), "claim.granted");
    CHECK_STR(lock_event_name(&ev.v[4]), "claim.expired");
    CHECK(ev.v[4].actor == NULL);
    CHECK_STR(ev.v[4].lock.holder, "zed");
    CHECK_STR(ev.v[4].lock.pattern, "b/x");
    CHECK_INT(ev.v[4].at_ms, 11);
    CHECK_STR(lock_event_name(&ev.v[5]), "lock.released_all");
    CHECK_STR(ev.v[5].actor, "zed");
    lock_events_release(&ev);
}

/* --- restore after restart ---------------------------------------------- */

static void
test_restore(void)
{
    struct lock_table *t = lock_table_new(NULL);
    struct lock s = { .token = 41,
        .pattern = "./src//a.c",
        .holder = "alice",
        .reason = "r",
        .mode = LOCK_EXCLUSIVE,
        .kind = LOCK_KIND_CLAIM,
        .acquired_at = 5,
        .expires_at = 200000,
        .ttl_ms = 995,
        .contested_by = "bob",
        .contested_at = 7 };
    struct as_err e = { "" };
    CHECK_INT(lock_table_restore(t, &s, &e), 0);
    struct lock s2 = s;
    s2.token = 12;
    s2.pattern = "lib/*";
    s2.contested_by = NULL;
    s2.expires_at = 1000;
    CHECK_INT(lock_table_restore(t, &s2, &e), 0);
    /* next = max(stored next, max restored token + 1). */
    CHECK_INT(lock_table_next_token(t), 42);
    lock_table_set_next_token(t, 40);
    CHECK_INT(lock_table_next_token(t), 42);
    lock_table_set_next_token(t, 50);
    CHECK_INT(lock_table_next_token(t), 50);

    const struct lock *r = lock_table_find(t, 41, 0);
    CHECK(r != NULL);
    if (r) {
        CHECK_STR(r->pattern, "src/a.c");
        CHECK_STR(r->contested_by, "bob");
        CHECK_INT(r->contested_at, 7);
        CHECK_INT(r->acquired_at, 5);
        CHECK_INT(r->kind, LOCK_KIND_CLAIM);
    }
    r = lock_table_find(t, 12, 0);
    CHECK(r && r->contested_at == -1 && r->contested_by == NULL);

    /* Restored locks conflict and are contestable like any other. */
    const struct lock *c = NULL;
    CHECK_INT(lock_table_check(t, "carol", "src/a.c", LOCK_SHARED, 10, &c, &e),
        AS_ECONFLICT);
    CHECK(c && c->token == 41);
    CHECK_INT(lock_table_force_release(
                  t, "bob", "src/a.c", 7 + 119999, false, NULL, &e),
        AS_ECONFLICT);
    const struct lock *x = acquire(t, "alice", "x", 0, NULL);
    CHECK(x && x->token == 50);

    /* Bad records are refused. */
    struct lock bad = s;
    CHECK_INT(lock_table_restore(t, &bad, &e), AS_EINVAL);
    CHECK(strstr(e.msg, "token 41 is already") != NULL);
    bad.token = 0;
    CHECK_INT(lock_table_restore(t, &bad, &e), AS_EINVAL);
    bad.token = 60;
    bad.ttl_ms = 0;
    CHECK_INT(lock_table_restore(t, &bad, &e), AS_EINVAL);
    bad.ttl_ms = 10;
    bad.pattern = "../x";
    CHECK_INT(lock_table_restore(t, &bad, &e), AS_EINVAL);
    bad.pattern = "y";
    bad.holder = "";
    CHECK_INT(lock_table_restore(t, &bad, &e), AS_EINVAL);
    CHECK_INT(lock_table_next_token(t), 51);

    /* An expired restored lock is retired, with its event, by the next
     * mutating call. */
    struct lock_events ev;
    lock_events_init(&ev);
    acquire(t, "dave", "zzz", 200000, &ev);
    CHECK_INT(ev.n, 2);
    CHECK_STR(lock_event_name(&ev.v[0]), "claim.expired");
    CHECK_STR(ev.v[0].lock.pattern, "src/a.c");
    CHECK_STR(lock_event_name(&ev.v[1]), "lock.granted");
    lock_events_release(&ev);
    lock_table_free(t);
}

/* --- the prefix index bounds the work of an acquire --------------------- */

static void
test_index_bounded(void)
{
    struct lock_table *t = lock_table_new(NULL);
    char pat[64], who[32];
    for (int i = 0; i < 10000; i++) {
        snprintf(pat, sizeof(pat), "pkg%05d/src/*.c", i);
        snprintf(who, sizeof(who), "agent%d", i % 50);
        CHECK(acquire(t, who, pat, 0, NULL) != NULL);
    }
    CHECK(acquire(t, "docs", "/*.md", 0, NULL) != NULL);
    struct lock_stats st;
    lock_table_stats(t, &st);
    CHECK_INT(st.locks, 10001);

    /* A conflict is still found, after at most the global lock and the one
     * in its own directory. */
    struct as_err e = { "" };
    struct lock_request r = { "pkg04242/src/main.c", "intruder", LOCK_EXCLUSIVE,
        LOCK_KIND_LOCK, LOCK_TTL_DEFAULT, NULL, false };
    struct lock_result res;
    CHECK_INT(lock_table_acquire(t, &r, 1, &res, NULL, &e), AS_ECONFLICT);
    CHECK(res.lock && !strcmp(res.lock->pattern, "pkg04242/src/*.c"));
    lock_table_stats(t, &st);
    CHECK(st.last_compared <= 2);
    CHECK(st.last_compared >= 1);

    /* A free path in a new directory compares only with the global lock. */
    r.pattern = "newpkg/src/main.c";
    CHECK_INT(lock_table_acquire(t, &r, 1, &res, NULL, &e), 0);
    lock_table_stats(t, &st);
    CHECK_INT(st.last_compared, 1);

    /* A directory finds locks below it, and only those. */
    r.pattern = "pkg00005";
    CHECK_INT(lock_table_acquire(t, &r, 1, &res, NULL, &e), AS_ECONFLICT);
    CHECK(res.lock && !strcmp(res.lock->pattern, "pkg00005/src/*.c"));
    lock_table_stats(t, &st);
    CHECK(st.last_compared <= 2);

    /* check() is bounded the same way. */
    CHECK_INT(lock_table_check(
                  t, "x", "pkg00007/src/deep/y.h", LOCK_SHARED, 1, NULL, &e),
        0);
    lock_table_stats(t, &st);
    CHECK(st.last_compared <= 2);

    /* A pattern over the whole tree is related to everything: all are
     * candidates (the lowest-token conflict wins). */
    r.pattern = "**/*.c";
    CHECK_INT(lock_table_acquire(t, &r, 1, &res, NULL, &e), AS_ECONFLICT);
    CHECK(res.lock && res.lock->token == 1);

    /* Release-all of one agent among 50 and expiry keep the index sound. */
    CHECK_INT(lock_table_release_all(t, "agent2", 2, NULL), 200);
    r.pattern = "pkg00002/src/a.c";
    CHECK_INT(lock_table_acquire(t, &r, 3, &res, NULL, &e), 0);
    r.pattern = "pkg00003/src/a.c";
    CHECK_INT(lock_table_acquire(t, &r, 3, &res, NULL, &e), AS_ECONFLICT);
    CHECK_INT(lock_table_expire(t, DEF, NULL), 9800 + 1);
    lock_table_stats(t, &st);
    CHECK_INT(st.locks, 2);
    lock_table_free(t);
}

/* --- expiry order and heap soundness under renewals --------------------- */

static void
test_expiry_order(void)
{
    struct lock_table *t = lock_table_new(NULL);
    char pat[32];
    /* ttl descending with i, then renew some: expiry must follow the new
     * times. */
    for (int i = 0; i < 40; i++) {
        snprintf(pat, sizeof(pat), "f%02d", i);
        struct lock_request r = { pat, "a", LOCK_EXCLUSIVE, LOCK_KIND_LOCK,
            1000 - i * 10, NULL, false };
        CHECK_INT(lock_table_acquire(t, &r, 0, NULL, NULL, NULL), 0);
    }
    for (int i = 0; i < 40; i += 3) {
        snprintf(pat, sizeof(pat), "f%02d", i);
        CHECK_INT(
            lock_table_renew(t, "a", pat, 5000 + i, 0, NULL, NULL, NULL), 0);
    }
    struct lock_events ev;
    lock_events_init(&ev);
    CHECK_INT(lock_table_expire(t, 100000, &ev), 40);
    for (size_t i = 1; i < ev.n; i++)
        CHECK(ev.v[i - 1].lock.expires_at <= ev.v[i].lock.expires_at);
    CHECK_STR(ev.v[0].lock.pattern, "f38");
    CHECK_STR(ev.v[39].lock.pattern, "f39");
    lock_events_release(&ev);
    lock_table_free(t);
}

/* A wildcard-free pattern known to be a file covers only itself: "Makefile"
 * no longer collides with "*.h" (which it would as a directory), while a
 * directory lock or a glob that matches the file still does. */
static void
test_file_patterns(void)
{
    struct lock_table *t = lock_table_new(NULL);
    struct as_err e;
    struct lock_result res;
    struct lock_request hdr = { "*.h", "a", LOCK_EXCLUSIVE, LOCK_KIND_LOCK,
        LOCK_TTL_DEFAULT, NULL, false };
    CHECK_INT(lock_table_acquire(t, &hdr, 0, &res, NULL, &e), 0);
    struct lock_request mk = { "Makefile", "b", LOCK_EXCLUSIVE, LOCK_KIND_LOCK,
        LOCK_TTL_DEFAULT, NULL, false };
    /* Not known to be a file: it might be a directory holding x.h. */
    CHECK_INT(lock_table_acquire(t, &mk, 0, &res, NULL, &e), AS_ECONFLICT);
    mk.file = true;
    CHECK_INT(lock_table_acquire(t, &mk, 0, &res, NULL, &e), 0);
    CHECK_INT(res.outcome, LOCK_GRANTED);
    CHECK(res.lock && res.lock->file);
    /* A header file is matched by *.h: refused. */
    struct lock_request h = { "src/conn.h", "c", LOCK_EXCLUSIVE, LOCK_KIND_LOCK,
        LOCK_TTL_DEFAULT, NULL, true };
    CHECK_INT(lock_table_acquire(t, &h, 0, &res, NULL, &e), AS_ECONFLICT);
    /* A directory lock covers a file inside it, file or not (a holds it:
     * "src/auth" might hold headers, so nobody else could take it). */
    struct lock_request dir = { "src/auth", "a", LOCK_EXCLUSIVE, LOCK_KIND_LOCK,
        LOCK_TTL_DEFAULT, NULL, false };
    CHECK_INT(lock_table_acquire(t, &dir, 0, &res, NULL, &e), 0);
    struct lock_request in = { "src/auth/login.ts", "c", LOCK_EXCLUSIVE,
        LOCK_KIND_LOCK, LOCK_TTL_DEFAULT, NULL, true };
    CHECK_INT(lock_table_acquire(t, &in, 0, &res, NULL, &e), AS_ECONFLICT);
    /* A file lock is checked exactly against a later glob too. */
    const struct lock *who = NULL;
    CHECK_INT(lock_table_check(t, "z", "*.md", LOCK_EXCLUSIVE, 0, &who, &e),
        AS_ECONFLICT); /* "*.h" of a: "*.md" vs "*.h" may meet in a dir */
    CHECK_INT(lock_table_check_file(
                  t, "z", "README.md", true, LOCK_EXCLUSIVE, 0, &who, &e),
        0);
    CHECK_INT(lock_table_check_file(
                  t, "z", "Makefile", true, LOCK_EXCLUSIVE, 0, &who, &e),
        AS_ECONFLICT);
    CHECK(who && !strcmp(who->holder, "b"));
    lock_table_free(t);
}

/* A file's name may hold '[', ']', '*', '?' or '\\' (app/[locale]/page.tsx):
 * checked escaped, it is matched as a name against each lock's glob, not
 * intersected with it as a glob. An escaped lock pattern names that file,
 * from the top. */
static void
test_glob_names(void)
{
    struct lock_table *t = lock_table_new(NULL);
    struct as_err e;
    struct lock_result res;
    const struct lock *who = NULL;
    struct lock_request md = { "*.md", "racer", LOCK_EXCLUSIVE, LOCK_KIND_LOCK,
        LOCK_TTL_DEFAULT, NULL, false };
    CHECK_INT(lock_table_acquire(t, &md, 0, &res, NULL, &e), 0);
    struct lock_request q = { "q\\[1\\].txt", "racer", LOCK_EXCLUSIVE,
        LOCK_KIND_LOCK, LOCK_TTL_DEFAULT, NULL, true };
    CHECK_INT(lock_table_acquire(t, &q, 0, &res, NULL, &e), 0);
    CHECK(res.lock && res.lock->file);
    /* a Next.js route is no Markdown file; star*.txt is not q[1].txt */
    CHECK_INT(lock_table_check_file(t, "carol", "app/\\[locale\\]/page.tsx",
                  true, LOCK_SHARED, 0, &who, &e),
        0);
    CHECK(who == NULL);
    CHECK_INT(lock_table_check_file(
                  t, "carol", "star\\*.txt", true, LOCK_SHARED, 0, &who, &e),
        0);
    /* the file itself is held, and named as spelled */
    CHECK_INT(lock_table_check_file(
                  t, "carol", "q\\[1\\].txt", true, LOCK_SHARED, 0, &who, &e),
        AS_ECONFLICT);
    CHECK(who && !strcmp(who->pattern, "q\\[1\\].txt"));
    CHECK(strstr(e.msg, "'q[1].txt' is locked by 'racer'") != NULL);
    CHECK_INT(lock_table_check_file(t, "carol", "docs/a\\[1\\].md", true,
                  LOCK_SHARED, 0, &who, &e),
        AS_ECONFLICT);
    CHECK(who && !strcmp(who->pattern, "*.md"));
    /* an escaped path is anchored: sub/q[1].txt is another file */
    CHECK_INT(lock_table_check_file(t, "carol", "sub/q\\[1\\].txt", true,
                  LOCK_SHARED, 0, &who, &e),
        0);
    /* a directory so named still covers what lies inside it */
    struct lock_request in = { "app/\\[locale\\]/page.tsx", "racer",
        LOCK_EXCLUSIVE, LOCK_KIND_LOCK, LOCK_TTL_DEFAULT, NULL, true };
    CHECK_INT(lock_table_acquire(t, &in, 0, &res, NULL, &e), 0);
    CHECK_INT(lock_table_check_file(t, "carol", "app/\\[locale\\]", false,
                  LOCK_SHARED, 0, &who, &e),
        AS_ECONFLICT);
    CHECK_INT(lock_table_check_file(
                  t, "carol", "app/l/page.tsx", true, LOCK_SHARED, 0, &who, &e),
        0);
    /* as a glob, the same text is a class: app/l/page.tsx, not the file */
    struct lock_request cls = { "app/[locale]/page.tsx", "racer",
        LOCK_EXCLUSIVE, LOCK_KIND_LOCK, LOCK_TTL_DEFAULT, NULL, false };
    CHECK_INT(lock_table_acquire(t, &cls, 0, &res, NULL, &e), 0);
    CHECK_INT(lock_table_check_file(
                  t, "carol", "app/l/page.tsx", true, LOCK_SHARED, 0, &who, &e),
        AS_ECONFLICT);
    CHECK(who && !strcmp(who->pattern, "app/[locale]/page.tsx"));
    lock_table_free(t);
}

static const struct lock *
claim(struct lock_table *t, const char *agent, const char *pattern)
{
    struct lock_request r = { pattern, agent, LOCK_EXCLUSIVE, LOCK_KIND_CLAIM,
        LOCK_TTL_DEFAULT, NULL, true };
    struct lock_result res;
    return lock_table_acquire(t, &r, 0, &res, NULL, NULL) == 0 ? res.lock
                                                               : NULL;
}

/* claim_for names the claim force_release would take, changing nothing. */
static void
test_claim_for(void)
{
    struct lock_table *t = lock_table_new(NULL);
    struct as_err e;
    const struct lock *x = NULL;
    claim(t, "alice", "src/a.c");
    claim(t, "bob", "src/b.c");
    CHECK_INT(lock_table_contest(t, "carol", "src/b.c", 1, NULL, NULL, &e), 0);
    CHECK_INT(lock_table_claim_for(t, "carol", "src/a.c", 2, &x, &e), 0);
    CHECK(x && !strcmp(x->holder, "alice") && x->contested_by == NULL);
    CHECK_INT(lock_table_claim_for(t, "carol", "src/b.c", 2, &x, &e), 0);
    CHECK(x && !strcmp(x->holder, "bob") && x->contested_by &&
          !strcmp(x->contested_by, "carol"));
    CHECK_INT(
        lock_table_claim_for(t, "carol", "src/z.c", 2, &x, &e), AS_ENOENT);
    CHECK(x == NULL);
    CHECK_INT(
        lock_table_claim_for(t, "alice", "src/a.c", 2, &x, &e), AS_EINVAL);
    CHECK_INT(lock_table_claim_for(t, "carol", "../x", 2, &x, &e), AS_EINVAL);
    size_t n;
    lock_table_list(t, 2, &n);
    CHECK_INT(n, 2);
    lock_table_free(t);
}

/* reassign moves a holder's locks to a new id, tokens kept. */
static void
test_reassign(void)
{
    struct lock_table *t = lock_table_new(NULL);
    struct as_err e;
    struct lock_events ev;
    lock_events_init(&ev);
    uint64_t tok = acquire(t, "master", "src/a.c", 0, NULL)->token;
    claim(t, "master", "src/c.c");
    claim(t, "alice", "src/d.c"); /* alice already holds src/d.c */
    claim(t, "bob", "src/e.c");
    /* master contests bob's claim and alice's: the contests follow */
    CHECK_INT(lock_table_contest(t, "master", "src/e.c", 1, NULL, NULL, &e), 0);
    CHECK_INT(lock_table_contest(t, "master", "src/d.c", 1, NULL, NULL, &e), 0);
    CHECK_INT(lock_table_reassign(t, "master", "alice", 2, &ev), 2);
    /* the two contests changed (alice's dropped, bob's now alice's), then
     * master's lock and claim moved: every change is an event */
    CHECK_INT(ev.n, 4);
    CHECK_STR(lock_event_name(&ev.v[0]), "claim.reassigned");
    CHECK_STR(ev.v[0].lock.holder, "alice");
    CHECK(ev.v[0].lock.contested_by == NULL);
    CHECK_STR(ev.v[1].lock.holder, "bob");
    CHECK_STR(ev.v[1].lock.contested_by, "alice");
    CHECK_STR(lock_event_name(&ev.v[2]), "lock.reassigned");
    CHECK_STR(ev.v[2].lock.holder, "alice");
    CHECK_STR(ev.v[2].actor, "alice");
    CHECK_STR(lock_event_name(&ev.v[3]), "claim.reassigned");
    const struct lock *x = lock_table_find(t, tok, 2);
    CHECK(x && !strcmp(x->holder, "alice"));
    CHECK_INT(lock_table_release(t, "alice", "src/a.c", 3, NULL, &e), 0);
    CHECK_INT(
        lock_table_release(t, "master", "src/c.c", 3, NULL, &e), AS_ECONFLICT);
    const struct lock *y = NULL;
    CHECK_INT(lock_table_claim_for(t, "carol", "src/e.c", 3, &y, &e), 0);
    CHECK(y && y->contested_by && !strcmp(y->contested_by, "alice"));
    CHECK_INT(lock_table_claim_for(t, "carol", "src/d.c", 3, &y, &e), 0);
    CHECK(y && y->contested_by == NULL && y->contested_at == -1);
    /* a lock the new id holds already stays; the old one goes */
    lock_events_clear(&ev);
    claim(t, "x", "src/f.c");
    claim(t, "y", "src/g.c");
    CHECK_INT(lock_table_reassign(t, "y", "y", 4, &ev), 0);
    CHECK_INT(lock_table_reassign(t, "nobody", "y", 4, &ev), 0);
    CHECK_INT(ev.n, 0);
    lock_events_release(&ev);
    lock_table_free(t);
}

static void
test_reassign_duplicate(void)
{
    struct lock_table *t = lock_table_new(NULL);
    struct lock_events ev;
    lock_events_init(&ev);
    struct lock_request r = { "src/s.c", "old", LOCK_SHARED, LOCK_KIND_LOCK,
        LOCK_TTL_DEFAULT, NULL, true };
    CHECK_INT(lock_table_acquire(t, &r, 0, NULL, NULL, NULL), 0);
    r.holder = "new";
    CHECK_INT(lock_table_acquire(t, &r, 0, NULL, NULL, NULL), 0);
    CHECK_INT(lock_table_reassign(t, "old", "new", 1, &ev), 0);
    CHECK_INT(ev.n, 1);
    CHECK_STR(lock_event_name(&ev.v[0]), "lock.released_all");
    size_t n;
    const struct lock *const *v = lock_table_list(t, 1, &n);
    CHECK_INT(n, 1);
    CHECK(n == 1 && !strcmp(v[0]->holder, "new"));
    lock_events_release(&ev);
    lock_table_free(t);
}

int
main(void)
{
    test_scenarios();
    test_normalize();
    test_bad_input();
    TEST_RUN("mode, kind and event names", test_names);
    TEST_RUN("fencing tokens: new grant new token, refresh keeps", test_tokens);
    TEST_RUN("list sorted, find by id, events are copies", test_list_find);
    TEST_RUN("restore and next token after restart", test_restore);
    TEST_RUN("10000 unrelated locks: acquire compares a bounded few",
        test_index_bounded);
    TEST_RUN("expiry follows renewed times", test_expiry_order);
    TEST_RUN("patterns known to be files are exact", test_file_patterns);
    TEST_RUN("file names with glob characters are names", test_glob_names);
    TEST_RUN("claim_for picks the claim, changes nothing", test_claim_for);
    TEST_RUN("reassign moves locks and contests to a new id", test_reassign);
    TEST_RUN("reassign keeps the new id's own copy", test_reassign_duplicate);
    return test_done();
}

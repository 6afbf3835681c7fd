/*
 * test_conflicts.c - the conflict detector against conformance §4
 * (cases named "c4-...") plus expiry, window timing and errors.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/conflicts.h"

#define NOW 1000000

static struct conflict_msgs msgs;

/* Put an intent on paths (NULL-terminated) without regions. */
static int
put(struct conflicts *d, uint64_t id, const char *agent, int64_t expires,
    int64_t now, const char *const *paths)
{
    struct conflict_intent_file f[16];
    size_t n = 0;
    for (; paths[n]; n++)
        f[n] = (struct conflict_intent_file){ .path = paths[n] };
    struct conflict_intent in = { .id = id,
        .agent = agent,
        .files = f,
        .nfiles = n,
        .summary = "work",
        .expires_at = expires };
    return conflicts_intent_put(d, &in, now, &msgs, NULL);
}

/* Put an intent on one file with regions. */
static int
put_regions(struct conflicts *d, uint64_t id, const char *agent,
    const char *path, const struct conflict_region *r, size_t nr, int64_t now)
{
    struct conflict_intent_file f = { path, r, nr };
    struct conflict_intent in = { .id = id,
        .agent = agent,
        .files = &f,
        .nfiles = 1,
        .expires_at = now + 3600000 };
    return conflicts_intent_put(d, &in, now, &msgs, NULL);
}

static void
modify(struct conflicts *d, const char *agent, const char *const *paths,
    int64_t now)
{
    size_t n = 0;
    while (paths[n])
        n++;
    conflicts_set_modified(d, agent, paths, n, now, &msgs);
}

/* Messages of a shape to a recipient (escalations: to == supervisor). */
static size_t
count(enum conflict_shape s, const char *to, bool escalation)
{
    size_t n = 0;
    for (size_t i = 0; i < msgs.n; i++)
        if (msgs.v[i].shape == s && !strcmp(msgs.v[i].to, to) &&
            msgs.v[i].escalation == escalation)
            n++;
    return n;
}

static bool
all_tagged(void)
{
    for (size_t i = 0; i < msgs.n; i++)
        if (strncmp(msgs.v[i].text, "[conflict] ", 11) ||
            strcmp(msgs.v[i].from, "supervisor"))
            return false;
    return true;
}

static size_t
listed(struct conflicts *d, int64_t now, enum conflict_shape s)
{
    struct conflict_list l;
    conflict_list_init(&l);
    conflicts_list(d, now, &l);
    size_t n = 0;
    for (size_t i = 0; i < l.n; i++)
        n += l.v[i].shape == s;
    conflict_list_release(&l);
    return n;
}

static const char *const A_FILES[] = { "src/a.c", NULL };
static const char *const B_FILES[] = { "src/a.c", "src/b.c", NULL };
static const char *const X_C[] = { "x.c", NULL };
static const char *const NONE[] = { NULL };

static void
test_forward_both_once(void)
{
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    CHECK_INT(put(d, 1, "alice", NOW + 60000, NOW, A_FILES), 0);
    CHECK_INT(msgs.n, 0);
    CHECK_INT(put(d, 2, "bob", NOW + 60000, NOW, B_FILES), 0);
    CHECK_INT(msgs.n, 2);
    CHECK_INT(count(CONFLICT_FORWARD, "alice", false), 1);
    CHECK_INT(count(CONFLICT_FORWARD, "bob", false), 1);
    CHECK(all_tagged());
    if (msgs.n == 2) {
        CHECK_STR(msgs.v[0].file, "src/a.c");
        CHECK_STR(msgs.v[0].a, "alice");
        CHECK_STR(msgs.v[0].b, "bob");
    }
    /* later calls, ticks and the window do not repeat it */
    conflict_msgs_clear(&msgs);
    conflicts_tick(d, NOW + 1, &msgs);
    modify(d, "carol", X_C, NOW + 2);
    conflicts_tick(d, NOW + 59999, &msgs);
    CHECK_INT(msgs.n, 0); /* forward conflicts never escalate */
    CHECK_INT(listed(d, NOW + 59999, CONFLICT_FORWARD), 1);
    conflicts_free(d);
}

static void
test_forward_glob(void)
{
    static const char *const a[] = { "src/auth/*", NULL };
    static const char *const b[] = { "src/auth/login.ts", NULL };
    static const char *const c[] = { "docs/*.md", NULL };
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    put(d, 1, "alice", NOW + 60000, NOW, a);
    put(d, 2, "carol", NOW + 60000, NOW, c);
    CHECK_INT(msgs.n, 0);
    put(d, 3, "bob", NOW + 60000, NOW, b);
    CHECK_INT(msgs.n, 2);
    if (msgs.n)
        CHECK_STR(msgs.v[0].file, "src/auth/login.ts"); /* the specific one */
    conflicts_free(d);
}

/* Plain paths are paths from the top: a.c and z.md never meet (as
 * gitignore patterns both would cover a.c/z.md). */
static void
test_forward_plain_paths(void)
{
    static const char *const a[] = { "a.c", NULL };
    static const char *const b[] = { "z.md", NULL };
    static const char *const c[] = { "src/a.c", NULL };
    static const char *const e[] = { "a.c", NULL };
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    put(d, 1, "alice", NOW + 60000, NOW, a);
    put(d, 2, "bob", NOW + 60000, NOW, b);
    put(d, 3, "carol", NOW + 60000, NOW, c);
    CHECK_INT(msgs.n, 0);
    put(d, 4, "dave", NOW + 60000, NOW, e);
    CHECK_INT(msgs.n, 2); /* dave and alice, both told */
    conflicts_free(d);
}

static void
test_forward_republish(void)
{
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    put(d, 1, "alice", NOW + 60000, NOW, A_FILES);
    put(d, 2, "bob", NOW + 60000, NOW, B_FILES);
    conflict_msgs_clear(&msgs);
    /* the same intent again, same id and under a new id */
    put(d, 1, "alice", NOW + 90000, NOW + 10, A_FILES);
    put(d, 3, "alice", NOW + 90000, NOW + 20, A_FILES);
    CHECK_INT(msgs.n, 0);
    conflicts_free(d);
}

static void
test_forward_change_clears(void)
{
    static const char *const more[] = { "src/a.c", "src/c.c", NULL };
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    put(d, 1, "alice", NOW + 60000, NOW, A_FILES);
    put(d, 2, "bob", NOW + 60000, NOW, B_FILES);
    conflict_msgs_clear(&msgs);
    put(d, 1, "alice", NOW + 60000, NOW + 10, more);
    CHECK_INT(count(CONFLICT_FORWARD, "alice", false), 1);
    CHECK_INT(count(CONFLICT_FORWARD, "bob", false), 1);
    conflicts_free(d);
}

static void
test_forward_expired(void)
{
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    put(d, 1, "alice", NOW + 5000, NOW, A_FILES);
    /* alice's intent is dead at exactly its expiry */
    put(d, 2, "bob", NOW + 60000, NOW + 5000, B_FILES);
    CHECK_INT(msgs.n, 0);
    CHECK_INT(listed(d, NOW + 5000, CONFLICT_FORWARD), 0);
    /* an expired intent put fresh (already past) is inert too */
    put(d, 3, "carol", NOW, NOW + 6000, A_FILES);
    CHECK_INT(msgs.n, 0);
    conflicts_free(d);

    /* a live conflict ends when one side expires, without messages */
    d = conflicts_new(NULL);
    put(d, 1, "alice", NOW + 5000, NOW, A_FILES);
    put(d, 2, "bob", NOW + 60000, NOW, B_FILES);
    CHECK_INT(listed(d, NOW + 4999, CONFLICT_FORWARD), 1);
    conflict_msgs_clear(&msgs);
    conflicts_tick(d, NOW + 5000, &msgs);
    CHECK_INT(msgs.n, 0);
    CHECK_INT(listed(d, NOW + 5000, CONFLICT_FORWARD), 0);
    conflicts_free(d);
}

static void
test_forward_self(void)
{
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    put(d, 1, "alice", NOW + 60000, NOW, A_FILES);
    put(d, 2, "alice", NOW + 60000, NOW, B_FILES);
    CHECK_INT(msgs.n, 0);
    conflicts_free(d);
}

struct norm_case {
    const char *in, *want;
};

static const struct norm_case norms[] = {
    { "fn Parse-Config()", "parse_config" },
    { "parse_config", "parse_config" },
    { "def  parse__config", "parse_config" },
    { "function handleClick()", "handleclick" },
    { "class  User Model", "user_model" },
    { "  -x- ", "x" },
    { "fnord", "fnord" }, /* a keyword only as a word */
    { "definitely", "definitely" },
    { "Class", "class" }, /* a bare keyword is the name */
    { "()", "" },
};

static void
test_region_names(void)
{
    for (size_t i = 0; i < sizeof(norms) / sizeof(norms[0]); i++) {
        TEST_BEGIN(norms[i].in);
        char *s = conflicts_region_name_normalize(norms[i].in);
        CHECK_STR(s, norms[i].want);
        free(s);
        TEST_END();
    }
}

struct region_case {
    const char *name;
    struct conflict_region a[2], b[2];
    size_t na, nb;
    enum conflict_region_rel want;
    const char *detail; /* prefix */
};

static const struct region_case regions[] = {
    { "c4-same name after normalisation", { { "fn Parse_Config()", 0, 0 } },
        { { "parse-config", 0, 0 } }, 1, 1, CONFLICT_REGIONS_SAME_NAME,
        "both name 'parse_config'" },
    { "c4-overlapping line ranges conflict on the overlap",
        { { NULL, 10, 20 } }, { { NULL, 25, 15 } }, 1, 1,
        CONFLICT_REGIONS_LINES, "lines 15-20" },
    { "c4-named region vs line range is conservative", { { "render", 0, 0 } },
        { { NULL, 1, 40 } }, 1, 1, CONFLICT_REGIONS_UNSURE,
        "hint: 'render' against lines 1-40" },
    { "c4-distinct names do not conflict", { { "render", 0, 0 } },
        { { "parse", 0, 0 } }, 1, 1, CONFLICT_REGIONS_DISJOINT, "" },
    { "disjoint line ranges do not conflict", { { NULL, 1, 9 } },
        { { NULL, 10, 12 } }, 1, 1, CONFLICT_REGIONS_DISJOINT, "" },
    { "no regions is the whole file", { { NULL, 1, 9 } }, { { NULL, 0, 0 } }, 1,
        0, CONFLICT_REGIONS_WHOLE, "" },
    { "a definite match beats a hint", { { "render", 0, 0 }, { NULL, 5, 6 } },
        { { NULL, 6, 8 }, { "other", 0, 0 } }, 2, 2, CONFLICT_REGIONS_LINES,
        "lines 6-6" },
};

static void
test_regions(void)
{
    for (size_t i = 0; i < sizeof(regions) / sizeof(regions[0]); i++) {
        const struct region_case *c = &regions[i];
        TEST_BEGIN(c->name);
        char buf[256];
        CHECK_INT(conflicts_regions_compare(
                      c->a, c->na, c->b, c->nb, buf, sizeof(buf)),
            c->want);
        CHECK(!strncmp(buf, c->detail, strlen(c->detail)));
        TEST_END();
    }
}

/* Regions through the detector: forward notices follow the relation. */
static void
test_forward_regions(void)
{
    static const struct conflict_region parse[] = { { "def parse()", 0, 0 } };
    static const struct conflict_region parse2[] = { { "Parse", 0, 0 } };
    static const struct conflict_region render[] = { { "render", 0, 0 } };
    static const struct conflict_region lines[] = { { NULL, 100, 120 } };
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    put_regions(d, 1, "alice", "ui.py", parse, 1, NOW);
    put_regions(d, 2, "bob", "ui.py", render, 1, NOW);
    CHECK_INT(msgs.n, 0); /* distinct names */
    put_regions(d, 3, "carol", "ui.py", parse2, 1, NOW);
    CHECK_INT(count(CONFLICT_FORWARD, "alice", false), 1);
    CHECK_INT(count(CONFLICT_FORWARD, "carol", false), 1);
    CHECK_INT(count(CONFLICT_FORWARD, "bob", false), 0);
    conflict_msgs_clear(&msgs);
    put_regions(d, 4, "dave", "ui.py", lines, 1, NOW);
    /* a line range against three names: conservative, with a hint */
    CHECK_INT(count(CONFLICT_FORWARD, "dave", false), 3);
    CHECK(msgs.n && strstr(msgs.v[0].text, "hint:"));
    conflicts_free(d);
}

static void
test_in_flight_window(void)
{
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    modify(d, "alice", X_C, NOW);
    CHECK_INT(msgs.n, 0);
    modify(d, "bob", X_C, NOW + 1000);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "alice", false), 1);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "bob", false), 1);
    CHECK_INT(msgs.n, 2);
    CHECK(all_tagged());
    conflict_msgs_clear(&msgs);
    /* the same sets again: nothing new */
    modify(d, "alice", X_C, NOW + 2000);
    conflicts_tick(d, NOW + 1000 + 119999, &msgs);
    CHECK_INT(msgs.n, 0);
    conflicts_tick(d, NOW + 1000 + 120000, &msgs);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "supervisor", true), 1);
    CHECK_INT(msgs.n, 1);
    if (msgs.n)
        CHECK(strstr(msgs.v[0].text, "unresolved for 120 s") != NULL);
    conflict_msgs_clear(&msgs);
    conflicts_tick(d, NOW + 500000, &msgs);
    CHECK_INT(msgs.n, 0); /* one escalation only */
    conflicts_free(d);
}

static void
test_in_flight_ends(void)
{
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    modify(d, "alice", X_C, NOW);
    modify(d, "bob", X_C, NOW);
    CHECK_INT(listed(d, NOW, CONFLICT_IN_FLIGHT), 1);
    modify(d, "bob", NONE, NOW + 60000); /* bob committed or reverted */
    CHECK_INT(listed(d, NOW + 60000, CONFLICT_IN_FLIGHT), 0);
    conflict_msgs_clear(&msgs);
    conflicts_tick(d, NOW + 200000, &msgs);
    CHECK_INT(msgs.n, 0); /* the dropped record never escalates */
    /* it comes back: told again, with a fresh window */
    modify(d, "bob", X_C, NOW + 200000);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "alice", false), 1);
    conflict_msgs_clear(&msgs);
    conflicts_tick(d, NOW + 200000 + 119999, &msgs);
    CHECK_INT(msgs.n, 0);
    conflicts_tick(d, NOW + 200000 + 120000, &msgs);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "supervisor", true), 1);
    conflicts_free(d);
}

static void
test_in_flight_window_config(void)
{
    struct conflicts_config c;
    conflicts_config_init(&c);
    CHECK_INT(c.window_ms, 120000);
    c.window_ms = 30000;
    c.supervisor = "lead";
    struct conflicts *d = conflicts_new(&c);
    conflict_msgs_clear(&msgs);
    modify(d, "alice", X_C, NOW);
    modify(d, "bob", X_C, NOW);
    conflicts_tick(d, NOW + 29999, &msgs);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "lead", true), 0);
    conflicts_tick(d, NOW + 30000, &msgs);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "lead", true), 1);
    for (size_t i = 0; i < msgs.n; i++)
        CHECK_STR(msgs.v[i].from, "lead");
    conflicts_free(d);
}

static void
test_additive(void)
{
    static const struct conflict_region parse[] = { { "parse", 0, 0 } };
    static const struct conflict_region render[] = { { "render", 0, 0 } };
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    put_regions(d, 1, "alice", "x.c", parse, 1, NOW);
    put_regions(d, 2, "bob", "x.c", render, 1, NOW);
    CHECK_INT(msgs.n, 0);
    modify(d, "alice", X_C, NOW);
    modify(d, "bob", X_C, NOW);
    CHECK_INT(msgs.n, 2);
    for (size_t i = 0; i < msgs.n; i++) {
        CHECK(msgs.v[i].additive);
        CHECK(strstr(msgs.v[i].text, "additive") != NULL);
    }
    conflict_msgs_clear(&msgs);
    conflicts_tick(d, NOW + 10 * 120000, &msgs);
    CHECK_INT(msgs.n, 0); /* never escalated */
    conflicts_free(d);

    /* only one side declared regions: an ordinary in-flight conflict */
    d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    put_regions(d, 1, "alice", "x.c", parse, 1, NOW);
    modify(d, "alice", X_C, NOW);
    modify(d, "bob", X_C, NOW);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "bob", false), 1);
    CHECK(msgs.n && !msgs.v[0].additive);
    conflict_msgs_clear(&msgs);
    conflicts_tick(d, NOW + 120000, &msgs);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "supervisor", true), 1);
    conflicts_free(d);
}

static void
test_in_flight_intent(void)
{
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    put(d, 1, "bob", NOW + 600000, NOW, B_FILES);
    modify(d, "alice", A_FILES, NOW + 10);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "alice", false), 1);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "bob", false), 1);
    /* alice declared nothing there: she is inside bob's intent */
    CHECK_INT(count(CONFLICT_OWNERSHIP, "alice", false), 1);
    CHECK_INT(count(CONFLICT_OWNERSHIP, "bob", false), 0);
    CHECK_INT(count(CONFLICT_OWNERSHIP, "supervisor", true), 1);
    conflicts_free(d);

    /* alice declared it too: forward and in-flight, no trespass */
    d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    put(d, 1, "bob", NOW + 600000, NOW, B_FILES);
    put(d, 2, "alice", NOW + 600000, NOW, A_FILES);
    modify(d, "alice", A_FILES, NOW + 10);
    CHECK_INT(count(CONFLICT_FORWARD, "alice", false), 1);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "alice", false), 1);
    CHECK_INT(count(CONFLICT_OWNERSHIP, "alice", false), 0);
    conflicts_free(d);

    /* alice was changing it before bob declared his intent: both are told
     * of the overlap, nobody trespassed, nothing waits for a human */
    d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    modify(d, "alice", A_FILES, NOW);
    put(d, 1, "bob", NOW + 600000, NOW + 10, B_FILES);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "alice", false), 1);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "bob", false), 1);
    CHECK_INT(count(CONFLICT_OWNERSHIP, "alice", false), 0);
    CHECK_INT(count(CONFLICT_OWNERSHIP, "supervisor", true), 0);
    /* her next change of the same file is still the same change; bob
     * re-publishing his intent does not make it older */
    modify(d, "alice", A_FILES, NOW + 20);
    put(d, 1, "bob", NOW + 600000, NOW + 30, B_FILES);
    CHECK_INT(count(CONFLICT_OWNERSHIP, "alice", false), 0);
    /* a file she starts changing after the intent is a trespass */
    static const char *const A_MORE[] = { "src/a.c", "src/b.c", NULL };
    modify(d, "alice", A_MORE, NOW + 40);
    CHECK_INT(count(CONFLICT_OWNERSHIP, "alice", false), 1);
    CHECK(msgs.n && strstr(msgs.v[msgs.n - 1].text, "src/b.c") != NULL);
    conflicts_free(d);
}

static void
test_ownership_lane(void)
{
    static const char *const lanes[] = { "src/db", "@storage" };
    static const char *const db1[] = { "src/db/x.sql", NULL };
    static const char *const db2[] = { "src/db/x.sql", "src/db/y.sql", NULL };
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    CHECK_INT(
        conflicts_agent_set(d, "bob", NULL, lanes, 2, NOW, &msgs, NULL), 0);
    modify(d, "bob", db1, NOW); /* the owner itself */
    CHECK_INT(msgs.n, 0);
    modify(d, "alice", db1, NOW);
    /* in-flight with bob (both modified) and ownership for alice */
    CHECK_INT(count(CONFLICT_OWNERSHIP, "alice", false), 1);
    CHECK_INT(count(CONFLICT_OWNERSHIP, "bob", false), 0);
    CHECK_INT(count(CONFLICT_OWNERSHIP, "supervisor", true), 1);
    conflict_msgs_clear(&msgs);
    modify(d, "alice", db2, NOW + 10);
    /* once per (violator, file): only the new file */
    CHECK_INT(count(CONFLICT_OWNERSHIP, "alice", false), 1);
    for (size_t i = 0; i < msgs.n; i++)
        CHECK_STR(msgs.v[i].file, "src/db/y.sql");
    conflicts_free(d);

    /* escalation off */
    struct conflicts_config c;
    conflicts_config_init(&c);
    c.escalate_ownership = false;
    d = conflicts_new(&c);
    conflict_msgs_clear(&msgs);
    conflicts_agent_set(d, "bob", NULL, lanes, 2, NOW, &msgs, NULL);
    modify(d, "alice", db1, NOW);
    CHECK_INT(count(CONFLICT_OWNERSHIP, "alice", false), 1);
    CHECK_INT(count(CONFLICT_OWNERSHIP, "supervisor", true), 0);
    conflicts_free(d);
}

/* A file whose start is not known (a worktree read after a restart)
 * trespasses on no intent; a file begun after the intent does. */
static void
test_ownership_since_unknown(void)
{
    static const char *const u[] = { "u.h", NULL };
    static const char *const uv[] = { "u.h", "v.h", NULL };
    static const char *const both[] = { "u.h", "v.h", NULL };
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    CHECK_INT(put(d, 1, "fay", NOW + 3600000, NOW, both), 0);
    conflict_msgs_clear(&msgs);
    conflicts_set_modified_since(d, "erin", u, 1, INT64_MIN, NOW + 10, &msgs);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "erin", false), 1);
    CHECK_INT(count(CONFLICT_OWNERSHIP, "erin", false), 0);
    CHECK_INT(count(CONFLICT_OWNERSHIP, "supervisor", true), 0);
    conflict_msgs_clear(&msgs);
    /* told again as now: u.h keeps its unknown start, v.h begins now */
    conflicts_set_modified(d, "erin", uv, 2, NOW + 20, &msgs);
    CHECK_INT(count(CONFLICT_OWNERSHIP, "erin", false), 1);
    for (size_t i = 0; i < msgs.n; i++)
        if (msgs.v[i].shape == CONFLICT_OWNERSHIP)
            CHECK_STR(msgs.v[i].file, "v.h");
    conflicts_free(d);
}

static void
test_ownership_owners_file(void)
{
    static const char text[] = "src/api/ @api\n"
                               "docs/ writer\n";
    static const char *const lanes[] = { "@api" };
    static const char *const api[] = { "src/api/h.c", NULL };
    static const char *const doc[] = { "docs/x.md", NULL };
    struct owners *o;
    CHECK_INT(owners_parse(text, strlen(text), &o, NULL), 0);
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    conflicts_set_owners(d, o, NOW, &msgs);
    conflicts_agent_set(d, "bob", NULL, lanes, 1, NOW, &msgs, NULL);
    conflicts_agent_set(d, "w1", "writer", NULL, 0, NOW, &msgs, NULL);
    modify(d, "bob", api, NOW);
    modify(d, "w1", doc, NOW);
    CHECK_INT(msgs.n, 0); /* owners through a lane name and a label */
    modify(d, "alice", api, NOW);
    CHECK_INT(count(CONFLICT_OWNERSHIP, "alice", false), 1);
    bool named = false;
    for (size_t i = 0; i < msgs.n; i++)
        if (msgs.v[i].shape == CONFLICT_OWNERSHIP)
            named = !strcmp(msgs.v[i].b, "bob") &&
                    strstr(msgs.v[i].text, "owners file line 1");
    CHECK(named);
    conflicts_free(d);
}

static void
test_committed(void)
{
    static const char *const paths[] = { "a.c", "b.c" };
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    conflicts_report_merge(d, "bob", "alice", paths, 2, NOW, &msgs);
    CHECK_INT(count(CONFLICT_COMMITTED, "alice", false), 2);
    CHECK_INT(count(CONFLICT_COMMITTED, "bob", false), 2);
    conflict_msgs_clear(&msgs);
    conflicts_report_merge(d, "alice", "bob", paths, 2, NOW + 10, &msgs);
    CHECK_INT(msgs.n, 0);
    conflicts_tick(d, NOW + 120000, &msgs);
    CHECK_INT(count(CONFLICT_COMMITTED, "supervisor", true), 2);
    conflicts_report_merge(d, "alice", "bob", NULL, 0, NOW + 130000, &msgs);
    CHECK_INT(listed(d, NOW + 130000, CONFLICT_COMMITTED), 0);
    conflicts_free(d);
}

static void
test_integration(void)
{
    static const char *const paths[] = { "b.c", "a.c", "b.c" };
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    conflicts_report_integration(d, "alice", "main", paths, 3, NOW, &msgs);
    /* told to alice alone, once per path, naming the branch */
    CHECK_INT(msgs.n, 2);
    CHECK_INT(count(CONFLICT_INTEGRATION, "alice", false), 2);
    CHECK(all_tagged());
    CHECK(msgs.n && strstr(msgs.v[0].text, "integration: the work of 'alice' "
                                           "conflicts in a.c with what "
                                           "'main' changed") != NULL);
    CHECK_STR(msgs.n ? msgs.v[0].b : "", "main");
    CHECK_STR(conflict_shape_name(CONFLICT_INTEGRATION), "integration");
    struct conflict_list l;
    conflict_list_init(&l);
    conflicts_list(d, NOW + 1, &l);
    CHECK_INT(l.n, 2);
    if (l.n == 2) {
        CHECK_INT(l.v[0].shape, CONFLICT_INTEGRATION);
        CHECK_STR(l.v[0].a, "alice");
        CHECK_STR(l.v[0].b, "main");
        CHECK_STR(l.v[0].file, "a.c");
        CHECK_STR(l.v[1].file, "b.c");
    }
    conflict_list_release(&l);
    /* told again: nothing new; never escalated, however long it lasts */
    conflict_msgs_clear(&msgs);
    conflicts_report_integration(d, "alice", "main", paths, 2, NOW + 10, &msgs);
    conflicts_tick(d, NOW + 10 * 120000, &msgs);
    CHECK_INT(msgs.n, 0);
    /* settled (she merged main): gone; back: told again */
    conflicts_report_integration(d, "alice", "main", NULL, 0, NOW + 20, &msgs);
    CHECK_INT(listed(d, NOW + 20, CONFLICT_INTEGRATION), 0);
    conflicts_report_integration(d, "alice", "main", paths, 1, NOW + 30, &msgs);
    CHECK_INT(count(CONFLICT_INTEGRATION, "alice", false), 1);
    /* the supervisor's own are ignored; a removed agent's end */
    conflict_msgs_clear(&msgs);
    conflicts_report_integration(
        d, "supervisor", "main", paths, 1, NOW + 40, &msgs);
    CHECK_INT(msgs.n, 0);
    conflicts_agent_remove(d, "alice", NOW + 50);
    CHECK_INT(listed(d, NOW + 50, CONFLICT_INTEGRATION), 0);
    /* an unnamed branch is still named in the notice */
    conflicts_report_integration(d, "bob", NULL, paths, 1, NOW + 60, &msgs);
    CHECK(msgs.n == 1 && strstr(msgs.v[0].text, "'the integration branch'"));
    conflicts_free(d);
}

static void
test_supervisor_ignored(void)
{
    static const char *const p[] = { "x.c" };
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    put(d, 1, "supervisor", NOW + 60000, NOW, X_C);
    put(d, 2, "alice", NOW + 60000, NOW, X_C);
    modify(d, "supervisor", X_C, NOW);
    conflicts_report_merge(d, "supervisor", "alice", p, 1, NOW, &msgs);
    modify(d, "bob", NONE, NOW);
    CHECK_INT(msgs.n, 0);
    conflicts_free(d);
}

/* The first in-flight conflict listed: its since and whether escalated. */
static bool
in_flight_view(struct conflicts *d, int64_t now, int64_t *since, bool *esc)
{
    struct conflict_list l;
    conflict_list_init(&l);
    conflicts_list(d, now, &l);
    bool found = false;
    for (size_t i = 0; i < l.n && !found; i++)
        if (l.v[i].shape == CONFLICT_IN_FLIGHT) {
            *since = l.v[i].since;
            *esc = l.v[i].escalated;
            found = true;
        }
    conflict_list_release(&l);
    return found;
}

/* alice comes back, told again whole: no lanes, the intent she had (id 1,
 * on x.c when intent), her files; then she is back. */
static void
come_back(
    struct conflicts *d, const char *const *files, bool intent, int64_t now)
{
    conflicts_agent_set(d, "alice", NULL, NULL, 0, now, &msgs, NULL);
    if (intent)
        put(d, 1, "alice", NOW + 3600000, now, X_C);
    modify(d, "alice", files, now);
    conflicts_agent_back(d, "alice", now, &msgs);
}

/* An agent that leaves and comes back with what it had is not told again:
 * its conflicts are held meanwhile (not listed, not escalated) and go on
 * with their since and escalation; a committed one is settled by the
 * pair's next merge. */
static void
test_absence_lasting(void)
{
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    put(d, 1, "alice", NOW + 3600000, NOW, X_C);
    put(d, 2, "bob", NOW + 3600000, NOW, X_C);
    modify(d, "alice", X_C, NOW);
    modify(d, "bob", X_C, NOW);
    conflicts_report_merge(d, "alice", "bob", X_C, 1, NOW, &msgs);
    CHECK_INT(count(CONFLICT_FORWARD, "alice", false), 1);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "alice", false), 1);
    CHECK_INT(count(CONFLICT_COMMITTED, "alice", false), 1);
    conflicts_tick(d, NOW + 120000, &msgs);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "supervisor", true), 1);
    CHECK_INT(count(CONFLICT_COMMITTED, "supervisor", true), 1);
    conflict_msgs_clear(&msgs);
    for (int k = 0; k < 3; k++) {
        int64_t t = NOW + 200000 + k * 100000;
        conflicts_agent_leave(d, "alice", t);
        CHECK_INT(listed(d, t, CONFLICT_IN_FLIGHT), 0);
        CHECK_INT(listed(d, t, CONFLICT_FORWARD), 0);
        CHECK_INT(listed(d, t, CONFLICT_COMMITTED), 0);
        conflicts_tick(d, t + 50000, &msgs);
        come_back(d, X_C, true, t + 50000);
        conflicts_report_merge(d, "alice", "bob", X_C, 1, t + 50000, &msgs);
        conflicts_tick(d, t + 60000, &msgs);
        CHECK_INT(msgs.n, 0);
        CHECK_INT(listed(d, t + 60000, CONFLICT_FORWARD), 1);
        CHECK_INT(listed(d, t + 60000, CONFLICT_COMMITTED), 1);
        int64_t since = 0;
        bool esc = false;
        CHECK(in_flight_view(d, t + 60000, &since, &esc));
        CHECK_INT(since, NOW);
        CHECK(esc);
    }
    /* held through the absence, not yet escalated: escalated once back */
    put(d, 3, "carol", NOW + 3600000, NOW + 600000, X_C);
    modify(d, "carol", X_C, NOW + 600000);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "carol", false), 2);
    conflict_msgs_clear(&msgs);
    conflicts_agent_leave(d, "carol", NOW + 610000);
    conflicts_tick(d, NOW + 800000, &msgs);
    CHECK_INT(msgs.n, 0);
    conflicts_agent_set(d, "carol", NULL, NULL, 0, NOW + 800000, &msgs, NULL);
    put(d, 3, "carol", NOW + 3600000, NOW + 800000, X_C);
    modify(d, "carol", X_C, NOW + 800000);
    conflicts_agent_back(d, "carol", NOW + 800000, &msgs);
    CHECK_INT(msgs.n, 0);
    conflicts_tick(d, NOW + 800001, &msgs);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "supervisor", true), 2);
    CHECK_INT(msgs.n, 2);
    conflicts_free(d);
}

/* What ended while an agent was away is told again when it starts again:
 * back without the conflict, a clean merge, the agent removed. */
static void
test_absence_ended(void)
{
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    modify(d, "alice", X_C, NOW);
    modify(d, "bob", X_C, NOW);
    conflicts_report_merge(d, "alice", "bob", X_C, 1, NOW, &msgs);
    conflict_msgs_clear(&msgs);
    /* bob drops x.c while alice is away: back, it has ended */
    conflicts_agent_leave(d, "alice", NOW + 10);
    modify(d, "bob", NONE, NOW + 20);
    come_back(d, X_C, false, NOW + 30);
    CHECK_INT(msgs.n, 0);
    CHECK_INT(listed(d, NOW + 30, CONFLICT_IN_FLIGHT), 0);
    modify(d, "bob", X_C, NOW + 40);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "alice", false), 1);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "bob", false), 1);
    /* back without the file herself */
    conflict_msgs_clear(&msgs);
    conflicts_agent_leave(d, "alice", NOW + 50);
    come_back(d, NONE, false, NOW + 60);
    CHECK_INT(listed(d, NOW + 60, CONFLICT_IN_FLIGHT), 0);
    modify(d, "alice", X_C, NOW + 70);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "alice", false), 1);
    /* the held committed conflict: a clean merge ends it, the next
     * conflicting one is told */
    conflict_msgs_clear(&msgs);
    conflicts_report_merge(d, "alice", "bob", NULL, 0, NOW + 80, &msgs);
    CHECK_INT(listed(d, NOW + 80, CONFLICT_COMMITTED), 0);
    conflicts_report_merge(d, "alice", "bob", X_C, 1, NOW + 90, &msgs);
    CHECK_INT(count(CONFLICT_COMMITTED, "alice", false), 1);
    /* removed while away: what it was told ends with it */
    conflict_msgs_clear(&msgs);
    conflicts_agent_leave(d, "alice", NOW + 100);
    conflicts_agent_remove(d, "alice", NOW + 110);
    come_back(d, X_C, false, NOW + 120);
    CHECK_INT(count(CONFLICT_IN_FLIGHT, "alice", false), 1);
    conflicts_free(d);
}

/* Both left: the first back keeps what it shares with the other, who is
 * not told again either when it is back with it. */
static void
test_absence_both(void)
{
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    modify(d, "alice", X_C, NOW);
    modify(d, "bob", X_C, NOW);
    conflict_msgs_clear(&msgs);
    conflicts_agent_leave(d, "alice", NOW + 10);
    conflicts_agent_leave(d, "bob", NOW + 20);
    come_back(d, X_C, false, NOW + 30);
    CHECK_INT(listed(d, NOW + 30, CONFLICT_IN_FLIGHT), 0);
    conflicts_agent_set(d, "bob", NULL, NULL, 0, NOW + 40, &msgs, NULL);
    modify(d, "bob", X_C, NOW + 40);
    conflicts_agent_back(d, "bob", NOW + 40, &msgs);
    CHECK_INT(msgs.n, 0);
    CHECK_INT(listed(d, NOW + 40, CONFLICT_IN_FLIGHT), 1);
    /* back is a no-op for an agent that never left */
    conflicts_agent_back(d, "bob", NOW + 50, &msgs);
    conflicts_agent_back(d, "nobody", NOW + 50, &msgs);
    CHECK_INT(msgs.n, 0);
    CHECK_INT(listed(d, NOW + 50, CONFLICT_IN_FLIGHT), 1);
    conflicts_free(d);
}

static void
test_list_and_remove(void)
{
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    modify(d, "bob", X_C, NOW);
    modify(d, "alice", X_C, NOW);
    put(d, 1, "carol", NOW + 60000, NOW, X_C);
    struct conflict_list l;
    conflict_list_init(&l);
    conflicts_list(d, NOW + 5, &l);
    /* in-flight alice-bob, alice-carol, bob-carol; ownership alice, bob */
    CHECK_INT(l.n, 5);
    if (l.n == 5) {
        CHECK_INT(l.v[0].shape, CONFLICT_IN_FLIGHT);
        CHECK_STR(l.v[0].a, "alice");
        CHECK_STR(l.v[0].b, "bob");
        CHECK_STR(l.v[0].why, "both modified it");
        CHECK_INT(l.v[0].since, NOW);
        CHECK_INT(l.v[3].shape, CONFLICT_OWNERSHIP);
    }
    conflict_list_release(&l);
    conflicts_agent_remove(d, "carol", NOW + 6);
    conflict_list_init(&l);
    conflicts_list(d, NOW + 6, &l);
    CHECK_INT(l.n, 1);
    conflict_list_release(&l);
    conflicts_free(d);
}

static void
test_errors(void)
{
    struct conflicts *d = conflicts_new(NULL);
    conflict_msgs_clear(&msgs);
    static const char *const bad[] = { "src/[a", NULL };
    CHECK_INT(put(d, 1, "alice", NOW + 1000, NOW, bad), AS_EINVAL);
    static const char *const up[] = { "../x", NULL };
    CHECK_INT(put(d, 1, "alice", NOW + 1000, NOW, up), AS_EINVAL);
    CHECK_INT(put(d, 1, "", NOW + 1000, NOW, X_C), AS_EINVAL);
    static const struct conflict_region empty[] = { { "()", 0, 0 } };
    static const struct conflict_region zero[] = { { NULL, 0, 4 } };
    struct as_err e;
    struct conflict_intent_file f = { "x.c", empty, 1 };
    struct conflict_intent in = { .id = 1,
        .agent = "alice",
        .files = &f,
        .nfiles = 1,
        .expires_at = NOW + 1000 };
    CHECK_INT(conflicts_intent_put(d, &in, NOW, &msgs, &e), AS_EINVAL);
    CHECK(strstr(e.msg, "region name") != NULL);
    f.regions = zero;
    CHECK_INT(conflicts_intent_put(d, &in, NOW, &msgs, &e), AS_EINVAL);
    static const char *const badlane[] = { "a/../../b" };
    CHECK_INT(conflicts_agent_set(d, "bob", NULL, badlane, 1, NOW, &msgs, &e),
        AS_EINVAL);
    /* nothing was stored: bob's intent meets nobody */
    put(d, 2, "bob", NOW + 1000, NOW, X_C);
    CHECK_INT(msgs.n, 0);
    conflicts_free(d);
}

int
main(void)
{
    conflict_msgs_init(&msgs);
    TEST_RUN(
        "c4-forward notice to both, once per pair", test_forward_both_once);
    TEST_RUN("ownership: a file of unknown start trespasses on none",
        test_ownership_since_unknown);
    TEST_RUN("c4-forward via glob overlap", test_forward_glob);
    TEST_RUN("c4-forward: plain paths from the top", test_forward_plain_paths);
    TEST_RUN(
        "c4-identical re-publish does not re-warn", test_forward_republish);
    TEST_RUN("c4-changing the file set clears the dedup",
        test_forward_change_clears);
    TEST_RUN("c4-expired intent never conflicts", test_forward_expired);
    TEST_RUN("an agent never conflicts with itself", test_forward_self);
    test_region_names();
    test_regions();
    TEST_RUN("c4-regions through the detector", test_forward_regions);
    TEST_RUN("c4-in-flight notice then one escalation after the window",
        test_in_flight_window);
    TEST_RUN("c4-in-flight record dropped when the overlap ends",
        test_in_flight_ends);
    TEST_RUN(
        "window and supervisor are configurable", test_in_flight_window_config);
    TEST_RUN(
        "c4-disjoint declared regions: additive, no escalation", test_additive);
    TEST_RUN("in-flight against an intent", test_in_flight_intent);
    TEST_RUN(
        "c4-ownership by lane, once per (violator, file)", test_ownership_lane);
    TEST_RUN("ownership from the owners file", test_ownership_owners_file);
    TEST_RUN("committed: merge conflicts reported, escalated, cleared",
        test_committed);
    TEST_RUN("integration: told to the agent, never escalated, cleared",
        test_integration);
    TEST_RUN(
        "c4-the detector ignores its own identity", test_supervisor_ignored);
    TEST_RUN("an agent away and back with its conflicts: not told again",
        test_absence_lasting);
    TEST_RUN(
        "what ended while an agent was away is told again", test_absence_ended);
    TEST_RUN("both agents away and back", test_absence_both);
    TEST_RUN("list and agent removal", test_list_and_remove);
    TEST_RUN("bad input is refused and changes nothing", test_errors);
    conflict_msgs_release(&msgs);
    return test_done();
}

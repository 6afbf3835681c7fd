/* test_intervals.c - range sets: merging, queries, widening, overlap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/intervals.h"
#include "core/workset.h"
#include "test.h"

static void
set_of(struct range_set *s, const uint32_t *pairs, size_t n)
{
    range_set_init(s);
    for (size_t i = 0; i < n; i++)
        range_set_add(s, pairs[2 * i], pairs[2 * i + 1]);
}

struct add_case {
    const char *name;
    uint32_t in[8];
    size_t nin;
    uint32_t want[8];
    size_t nwant;
};

static const struct add_case add_cases[] = {
    { "single", { 3, 5 }, 1, { 3, 5 }, 1 },
    { "reversed", { 9, 2 }, 1, { 2, 9 }, 1 },
    { "disjoint sorted", { 10, 12, 1, 2 }, 2, { 1, 2, 10, 12 }, 2 },
    { "touching merge", { 1, 4, 5, 8 }, 2, { 1, 8 }, 1 },
    { "overlap merge", { 1, 6, 4, 9 }, 2, { 1, 9 }, 1 },
    { "bridge three", { 1, 2, 8, 9, 20, 21, 3, 7 }, 4, { 1, 9, 20, 21 }, 2 },
    { "swallow", { 5, 6, 8, 9, 11, 12, 1, 100 }, 4, { 1, 100 }, 1 },
    { "gap of one kept", { 1, 3, 5, 7 }, 2, { 1, 3, 5, 7 }, 2 },
    { "max line", { 4294967290u, 4294967295u, 1, 4294967289u }, 2,
        { 1, 4294967295u }, 1 },
};

static void
test_add(void)
{
    for (size_t k = 0; k < sizeof(add_cases) / sizeof(add_cases[0]); k++) {
        const struct add_case *c = &add_cases[k];
        TEST_BEGIN(c->name);
        struct range_set s;
        set_of(&s, c->in, c->nin);
        CHECK_INT(s.n, c->nwant);
        for (size_t i = 0; i < s.n && i < c->nwant; i++) {
            CHECK_INT(s.v[i].start, c->want[2 * i]);
            CHECK_INT(s.v[i].end, c->want[2 * i + 1]);
        }
        range_set_release(&s);
        TEST_END();
    }
}

static void
test_queries(void)
{
    uint32_t p[] = { 10, 20, 30, 30, 50, 60 };
    struct range_set s;
    set_of(&s, p, 3);
    CHECK_INT(range_set_size(&s), 11 + 1 + 11);
    CHECK(range_set_contains(&s, 10));
    CHECK(range_set_contains(&s, 20));
    CHECK(!range_set_contains(&s, 21));
    CHECK(range_set_contains(&s, 30));
    CHECK(!range_set_contains(&s, 9));
    CHECK(!range_set_contains(&s, 61));
    CHECK(range_set_intersects(&s, 21, 30));
    CHECK(!range_set_intersects(&s, 21, 29));
    CHECK(range_set_intersects(&s, 70, 55));
    CHECK(!range_set_intersects(&s, 61, 1000));
    CHECK(range_set_intersects(&s, 1, 1000));
    struct range_set e = RANGE_SET_INIT;
    CHECK(!range_set_contains(&e, 1));
    CHECK_INT(range_set_size(&e), 0);
    struct range_set c = RANGE_SET_INIT;
    range_set_copy(&c, &s);
    CHECK_INT(c.n, 3);
    range_set_clear(&c);
    CHECK_INT(c.n, 0);
    range_set_release(&c);
    range_set_release(&s);
}

static void
test_intersect_widen(void)
{
    uint32_t pa[] = { 1, 10, 20, 30 }, pb[] = { 5, 22, 29, 40 };
    struct range_set a, b, d = RANGE_SET_INIT;
    set_of(&a, pa, 2);
    set_of(&b, pb, 2);
    range_set_intersect(&d, &a, &b);
    CHECK_INT(d.n, 3);
    CHECK_INT(d.v[0].start, 5);
    CHECK_INT(d.v[0].end, 10);
    CHECK_INT(d.v[1].start, 20);
    CHECK_INT(d.v[1].end, 22);
    CHECK_INT(d.v[2].start, 29);
    CHECK_INT(d.v[2].end, 30);
    CHECK_INT(range_set_intersection_size(&a, &b), 6 + 3 + 2);
    range_set_widen(&d, &a, 5);
    CHECK_INT(d.n, 1); /* [1,15] and [15,35] merge */
    CHECK_INT(d.v[0].start, 1);
    CHECK_INT(d.v[0].end, 35);
    range_set_widen(&d, &a, 4);
    CHECK_INT(d.n, 2); /* [1,14] and [16,34] leave line 15 between */
    range_set_widen(&d, &a, 3);
    CHECK_INT(d.n, 2);
    CHECK_INT(d.v[0].end, 13);
    CHECK_INT(d.v[1].start, 17);
    range_set_release(&a);
    range_set_release(&b);
    range_set_release(&d);
}

struct oc_case {
    const char *name;
    uint32_t a[4];
    size_t na;
    uint32_t b[4];
    size_t nb;
    uint32_t margin;
    double want;
};

static const struct oc_case oc_cases[] = {
    { "ecc-5", { 1, 10 }, 1, { 5, 14 }, 1, 0, 0.6 },
    { "ecc-6", { 1, 200 }, 1, { 40, 60 }, 1, 0, 1.0 },
    { "ecc-7", { 1, 5 }, 1, { 20, 25 }, 1, 0, 0.0 },
    { "ecc-8", { 1, 50 }, 1, { 5, 55 }, 1, 0, 0.92 },
    { "ecc-9", { 1, 50 }, 1, { 40, 90 }, 1, 0, 0.22 },
    { "ecc-10", { 10, 1 }, 1, { 5, 5 }, 1, 0, 1.0 },
    { "ecc-11", { 1, 5000000 }, 1, { 2, 3 }, 1, 0, 1.0 },
    { "adjacent margin 0", { 10, 12 }, 1, { 13, 15 }, 1, 0, 0.0 },
    /* widened [9,13] and [12,16]: 2 shared of min 5 */
    { "adjacent margin 1", { 10, 12 }, 1, { 13, 15 }, 1, 1, 0.4 },
    /* insertions at the same spot: [4,6] and [4,6] */
    { "same insertion point", { 5, 5 }, 1, { 5, 5 }, 1, 1, 1.0 },
    { "empty side", { 1, 5 }, 1, { 0, 0 }, 0, 1, 0.0 },
};

static void
test_overlap(void)
{
    for (size_t k = 0; k < sizeof(oc_cases) / sizeof(oc_cases[0]); k++) {
        const struct oc_case *c = &oc_cases[k];
        TEST_BEGIN(c->name);
        struct range_set a, b;
        set_of(&a, c->a, c->na);
        set_of(&b, c->b, c->nb);
        CHECK_NEAR(range_set_overlap(&a, &b, c->margin), c->want, 1e-12);
        CHECK_NEAR(range_set_overlap(&b, &a, c->margin), c->want, 1e-12);
        range_set_release(&a);
        range_set_release(&b);
        TEST_END();
    }
}

static void
test_workset(void)
{
    struct agent a;
    agent_init(&a, "alice");
    struct ws_file *f = agent_add_file(&a, "src/b.c", WS_MODIFIED);
    range_set_add(&f->ranges, 3, 4);
    f = agent_add_file(&a, "src/a.c", WS_ADDED);
    CHECK(agent_add_file(&a, "src/a.c", WS_MODIFIED) == f);
    CHECK_INT(f->status, WS_ADDED);
    CHECK_NEAR(f->weight, 1.0, 0);
    agent_add_intent(&a, "src/**");
    agent_sort(&a);
    CHECK_INT(a.nfiles, 2);
    CHECK_STR(a.files[0].path, "src/a.c");
    CHECK_STR(a.files[1].path, "src/b.c");
    CHECK_INT(a.files[1].ranges.n, 1);
    CHECK_STR(a.intent[0], "src/**");
    CHECK_STR(ws_status_name(WS_RENAMED), "renamed");
    enum ws_status st;
    CHECK_INT(ws_status_parse("binary", &st), 0);
    CHECK_INT(st, WS_BINARY);
    CHECK_INT(ws_status_parse("nope", &st), -1);
    CHECK(!ws_status_whole(WS_MODIFIED));
    CHECK(ws_status_whole(WS_MODE));
    agent_release(&a);
}

/* Two agents from path lists ("old>new": a rename, "+path": added,
 * "-path": deleted). */
static bool
shares(const char *const *pa, size_t na, const char *const *pb, size_t nb)
{
    struct agent ag[2];
    const char *const *lists[2] = { pa, pb };
    size_t ns[2] = { na, nb };
    for (int s = 0; s < 2; s++) {
        agent_init(&ag[s], s ? "b" : "a");
        for (size_t i = 0; i < ns[s]; i++) {
            const char *arrow = strchr(lists[s][i], '>');
            if (lists[s][i][0] == '+' || lists[s][i][0] == '-') {
                agent_add_file(&ag[s], lists[s][i] + 1,
                    lists[s][i][0] == '+' ? WS_ADDED : WS_DELETED);
                continue;
            }
            if (!arrow) {
                agent_add_file(&ag[s], lists[s][i], WS_MODIFIED);
                continue;
            }
            char old[64];
            snprintf(old, sizeof(old), "%.*s", (int)(arrow - lists[s][i]),
                lists[s][i]);
            struct ws_file *f = agent_add_file(&ag[s], old, WS_RENAMED);
            f->new_path = strdup(arrow + 1);
        }
        agent_sort(&ag[s]);
    }
    bool out = agent_shares_path(&ag[0], &ag[1]);
    agent_release(&ag[0]);
    agent_release(&ag[1]);
    return out;
}

static void
test_shares_path(void)
{
    const char *same[] = { "src/a.c" }, *other[] = { "src/b.c" };
    CHECK(shares(same, 1, same, 1));
    CHECK(!shares(same, 1, other, 1));
    /* file/directory: "d" on one side, "d/x.c" on the other, both ways */
    const char *file[] = { "a.c", "d" }, *under[] = { "b.c", "d/x.c" };
    CHECK(shares(file, 2, under, 2));
    CHECK(shares(under, 2, file, 2));
    /* prefixes that are not a directory: "d-x/y.c", "d.c", "dx/y" */
    const char *near[] = { "d-x/y.c", "d.c", "dx/y" };
    CHECK(!shares(file, 2, near, 3));
    CHECK(!shares(near, 3, file, 2));
    /* a rename into the directory "d" and a file "d" */
    const char *ren[] = { "old.c>d/x.c" }, *d[] = { "d" };
    CHECK(shares(ren, 1, d, 1));
    CHECK(shares(d, 1, ren, 1));
    /* renamed onto the other's path */
    const char *onto[] = { "old.c>src/a.c" };
    CHECK(shares(onto, 1, same, 1));
    /* directory renames: d's files moved away, a file added in d */
    const char *moved[] = { "d/a.c>e/a.c" }, *added[] = { "+d/c.c" };
    CHECK(shares(moved, 1, added, 1));
    CHECK(shares(added, 1, moved, 1));
    const char *nested[] = { "d/sub/s.c>g/sub/s.c" };
    CHECK(shares(nested, 1, added, 1));
    const char *into[] = { "top.c>d/top.c" };
    CHECK(shares(moved, 1, into, 1));
    /* a move too large for rename detection: deletions and additions */
    const char *gone[] = { "-d/a.c", "+e/a.c" };
    CHECK(shares(gone, 2, added, 1));
    const char *modified[] = { "d/b.c" }, *beside[] = { "+dx/c.c" };
    CHECK(!shares(moved, 1, modified, 1));
    CHECK(!shares(moved, 1, beside, 1));
}

struct sub_case {
    const char *name;
    uint32_t a[8];
    size_t na;
    uint32_t b[8];
    size_t nb;
    uint32_t want[8];
    size_t nwant;
};

static const struct sub_case sub_cases[] = {
    { "disjoint", { 1, 5 }, 1, { 7, 9 }, 1, { 1, 5 }, 1 },
    { "hole", { 1, 10 }, 1, { 4, 6 }, 1, { 1, 3, 7, 10 }, 2 },
    { "left cut", { 5, 10 }, 1, { 1, 6 }, 1, { 7, 10 }, 1 },
    { "right cut", { 5, 10 }, 1, { 9, 20 }, 1, { 5, 8 }, 1 },
    { "all gone", { 5, 10 }, 1, { 1, 20 }, 1, { 0 }, 0 },
    { "two holes across two", { 1, 10, 20, 30 }, 2, { 5, 22, 25, 25 }, 2,
        { 1, 4, 23, 24, 26, 30 }, 3 },
    { "empty b", { 3, 4 }, 1, { 0 }, 0, { 3, 4 }, 1 },
    { "max line", { 1, 4294967295u }, 1, { 4294967295u, 4294967295u }, 1,
        { 1, 4294967294u }, 1 },
};

static void
test_subtract(void)
{
    for (size_t k = 0; k < sizeof(sub_cases) / sizeof(sub_cases[0]); k++) {
        const struct sub_case *c = &sub_cases[k];
        TEST_BEGIN(c->name);
        struct range_set a, b, d;
        set_of(&a, c->a, c->na);
        set_of(&b, c->b, c->nb);
        range_set_init(&d);
        range_set_subtract(&d, &a, &b);
        CHECK_INT(d.n, c->nwant);
        for (size_t i = 0; i < d.n && i < c->nwant; i++) {
            CHECK_INT(d.v[i].start, c->want[2 * i]);
            CHECK_INT(d.v[i].end, c->want[2 * i + 1]);
        }
        /* (a \ b) and b never meet; with a ∩ b they give back a */
        CHECK_INT(range_set_intersection_size(&d, &b), 0);
        CHECK_INT(range_set_size(&d) + range_set_intersection_size(&a, &b),
            range_set_size(&a));
        range_set_release(&a);
        range_set_release(&b);
        range_set_release(&d);
        TEST_END();
    }
}

/* The lines of s as pairs, for comparison. */
static void
check_ranges(const struct range_set *s, const uint32_t *want, size_t n)
{
    CHECK_INT(s->n, n);
    for (size_t i = 0; i < s->n && i < n; i++) {
        CHECK_INT(s->v[i].start, want[2 * i]);
        CHECK_INT(s->v[i].end, want[2 * i + 1]);
    }
}

/* Pure insertions: recorded at their line, told apart only by
 * range_set_replaced() and range_set_inserts_within(). */
static void
test_insertions(void)
{
    struct range_set s = RANGE_SET_INIT, r = RANGE_SET_INIT;
    range_set_add_insertion(&s, 0); /* at the top: line 1 */
    range_set_add_insertion(&s, 5);
    range_set_add(&s, 6, 8);
    range_set_add_insertion(&s, 20);
    static const uint32_t all[] = { 1, 1, 5, 8, 20, 20 };
    check_ranges(&s, all, 3);
    CHECK(range_set_contains(&s, 5));
    CHECK_INT(s.nins, 3);
    range_set_replaced(&r, &s);
    static const uint32_t rep6[] = { 6, 8 };
    check_ranges(&r, rep6, 1);
    CHECK_INT(r.nins, 0);
    /* inside [start, end]: after a line k with start <= k < end */
    CHECK(range_set_inserts_within(&s, 3, 6));  /* after 5 */
    CHECK(range_set_inserts_within(&s, 5, 9));  /* after 5 */
    CHECK(!range_set_inserts_within(&s, 1, 5)); /* ends at 5 */
    CHECK(!range_set_inserts_within(&s, 6, 19));
    CHECK(range_set_inserts_within(&s, 19, 21));
    CHECK(!range_set_inserts_within(&s, 1, 1)); /* top: inside nothing */
    CHECK(!range_set_inserts_within(&s, 21, 30));
    /* a replaced line stays replaced; an insertion's line replaced later
     * is no insertion alone any more */
    range_set_add_insertion(&s, 7);
    CHECK_INT(s.nins, 3);
    range_set_add(&s, 20, 20);
    CHECK_INT(s.nins, 2);
    range_set_replaced(&r, &s);
    static const uint32_t rep20[] = { 6, 8, 20, 20 };
    check_ranges(&r, rep20, 2);
    /* two insertions at line 1 (top and after 1) */
    range_set_add_insertion(&s, 1);
    CHECK_INT(s.nins, 3);
    CHECK(range_set_inserts_within(&s, 1, 4));
    range_set_replaced(&r, &s);
    check_ranges(&r, rep20, 2);
    /* copy, subtract and union keep insertions; widen drops them */
    struct range_set c = RANGE_SET_INIT, d = RANGE_SET_INIT;
    range_set_copy(&c, &s);
    CHECK_INT(c.nins, 3);
    uint32_t cut[] = { 1, 1 };
    struct range_set b;
    set_of(&b, cut, 1);
    range_set_subtract(&d, &s, &b);
    CHECK_INT(d.nins, 1); /* after 5 */
    CHECK(range_set_inserts_within(&d, 5, 6));
    range_set_widen(&d, &s, 1);
    CHECK_INT(d.nins, 0);
    struct range_set u = RANGE_SET_INIT;
    range_set_add(&u, 5, 5); /* replaces line 5 */
    range_set_add_insertion(&u, 30);
    range_set_add_set(&u, &s);
    range_set_replaced(&r, &u);
    static const uint32_t repu[] = { 5, 8, 20, 20 };
    check_ranges(&r, repu, 2);
    CHECK(range_set_inserts_within(&u, 30, 31));
    CHECK(range_set_inserts_within(&u, 1, 2));
    range_set_clear(&u);
    CHECK_INT(u.nins, 0);
    range_set_release(&u);
    range_set_release(&b);
    range_set_release(&c);
    range_set_release(&d);
    range_set_release(&r);
    range_set_release(&s);
}

int
main(void)
{
    test_add();
    TEST_RUN("queries", test_queries);
    TEST_RUN("intersect and widen", test_intersect_widen);
    TEST_RUN("pure insertions", test_insertions);
    test_subtract();
    test_overlap();
    TEST_RUN("workset", test_workset);
    TEST_RUN("shares a path: same, rename, file/directory", test_shares_path);
    return test_done();
}

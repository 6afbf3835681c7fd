/*
 * test_git_align.c - agents on different bases moved onto the newest one:
 * the choice of the newest base (pure, table-driven), and in-memory rebases
 * of real branches: ranges in the new base's numbering, conflicts settled
 * for the agent, files the integration branch deleted or renamed, change
 * times carried over, the cache, and bases with no newest one.
 */
#include "test.h"
#include "test_git_fixture.h"

#include <git2.h>

#include "core/workset.h"
#include "git/align.h"
#include "git/repo.h"
#include "git/workset.h"
#include "util/error.h"
#include "util/xalloc.h"

/* ---- align_newest ---- */

#define MAXB 5

struct newest_case {
    const char *name;
    size_t n;
    /* desc[i][j]: base i descends from base j (an ancestry, transitive) */
    bool desc[MAXB][MAXB];
    long want;
};

struct dag {
    const struct newest_case *c;
    unsigned calls;
};

static bool
dag_descends(void *ctx, size_t i, size_t j)
{
    struct dag *d = ctx;

    d->calls++;
    return d->c->desc[i][j];
}

static const struct newest_case newest_cases[] = {
    { .name = "one base", .n = 1, .want = 0 },
    { .name = "newest last",
        .n = 3,
        .desc = { [1] = { [0] = true }, [2] = { [0] = true, [1] = true } },
        .want = 2 },
    { .name = "newest first",
        .n = 3,
        .desc = { [0] = { [1] = true, [2] = true }, [1] = { [2] = true } },
        .want = 0 },
    { .name = "newest in the middle",
        .n = 3,
        .desc = { [1] = { [0] = true, [2] = true }, [0] = { [2] = true } },
        .want = 1 },
    { .name = "two sides of a fork, nothing on top",
        .n = 3,
        .desc = { [1] = { [0] = true }, [2] = { [0] = true } },
        .want = -1 },
    { .name = "two sides of a merge and the merge",
        .n = 3,
        /* 0 and 1 unrelated, 2 merges them */
        .desc = { [2] = { [0] = true, [1] = true } },
        .want = 2 },
    { .name = "merge first, sides after",
        .n = 4,
        .desc = { [0] = { [1] = true, [2] = true, [3] = true },
            [2] = { [3] = true },
            [1] = { [3] = true } },
        .want = 0 },
    { .name = "unrelated histories", .n = 2, .want = -1 },
};

static void
test_newest(void)
{
    for (size_t k = 0; k < sizeof(newest_cases) / sizeof(newest_cases[0]);
         k++) {
        const struct newest_case *c = &newest_cases[k];
        struct dag d = { c, 0 };

        TEST_BEGIN(c->name);
        CHECK_INT(align_newest(c->n, dag_descends, &d), c->want);
        CHECK(d.calls <= 2 * (c->n - 1));
        TEST_END();
    }
    TEST_BEGIN("no bases");
    CHECK_INT(align_newest(0, dag_descends, NULL), -1);
    TEST_END();
}

/* ---- rebases of real branches ---- */

static char dir[600];

static void
rev(const char *name, char out[41])
{
    char buf[128];
    char *argv[] = { "git", "rev-parse", (char *)name, NULL };

    buf[0] = '\0';
    fx_runv(dir, argv, buf, sizeof(buf));
    memcpy(out, buf, 40);
    out[40] = '\0';
}

static const struct ws_file *
find_file(const struct agent *a, const char *path)
{
    for (size_t i = 0; i < a->nfiles; i++)
        if (!strcmp(a->files[i].path, path))
            return &a->files[i];
    return NULL;
}

static const char *
ranges_str(const struct ws_file *f)
{
    static char buf[256];
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; f && i < f->ranges.n && len < sizeof(buf); i++)
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u-%u",
            i ? "," : "", f->ranges.v[i].start, f->ranges.v[i].end);
    return buf;
}

/*
 * C0 on main: t.txt (L1..L100), d.txt (L1..L20), a.txt and r.txt (10
 * lines each, unlike the others).
 * alice (C0 + 1): t.txt line 10 -> A10, line 30 -> A30, a.txt line 5,
 *   d.txt deleted, r.txt line 5.
 * main C1: 50 lines at the top of t.txt, line 30 (old numbering) -> M30,
 *   a.txt deleted, d.txt line 3, r.txt renamed to s.txt.
 * bob (C1 + 1): t.txt line 60 (old line 10) -> B10.
 * side (C0 + 1, never merged): x.txt added.
 */
static void
build(void)
{
    char buf[4096], top[8192];

    fx_init("align", dir, sizeof(dir));
    fx_write(dir, "t.txt", fx_lines(buf, sizeof(buf), 100, 0, NULL));
    fx_write(dir, "a.txt", "a1\na2\na3\na4\na5\na6\na7\na8\na9\na10\n");
    fx_write(dir, "d.txt", fx_lines(buf, sizeof(buf), 20, 0, NULL));
    fx_write(dir, "r.txt", "r1\nr2\nr3\nr4\nr5\nr6\nr7\nr8\nr9\nr10\n");
    fx_git(dir, "add", "-A", NULL);
    fx_commit(dir, "C0");

    fx_git(dir, "checkout", "-q", "-b", "alice", NULL);
    fx_lines(buf, sizeof(buf), 100, 10, "A10");
    memcpy(strstr(buf, "\nL30\n") + 1, "A30", 3);
    fx_write(dir, "t.txt", buf);
    fx_write(dir, "a.txt", "a1\na2\na3\na4\nA5\na6\na7\na8\na9\na10\n");
    fx_git(dir, "rm", "-q", "d.txt", NULL);
    fx_write(dir, "r.txt", "r1\nr2\nr3\nr4\nalice r5\nr6\nr7\nr8\nr9\nr10\n");
    fx_git(dir, "add", "-A", NULL);
    fx_commit(dir, "alice");

    fx_git(dir, "checkout", "-q", "-b", "side", "main", NULL);
    fx_write(dir, "x.txt", "x\n");
    fx_git(dir, "add", "-A", NULL);
    fx_commit(dir, "side");

    fx_git(dir, "checkout", "-q", "main", NULL);
    top[0] = '\0';
    for (int i = 1; i <= 50; i++) {
        snprintf(buf, sizeof(buf), "N%d\n", i);
        strcat(top, buf);
    }
    fx_lines(buf, sizeof(buf), 100, 30, "M30");
    strcat(top, buf);
    fx_write(dir, "t.txt", top);
    fx_git(dir, "rm", "-q", "a.txt", NULL);
    fx_write(dir, "d.txt", fx_lines(buf, sizeof(buf), 20, 3, "M3"));
    fx_git(dir, "mv", "r.txt", "s.txt", NULL);
    fx_git(dir, "add", "-A", NULL);
    fx_commit(dir, "C1");

    fx_git(dir, "checkout", "-q", "-b", "bob", NULL);
    {
        char *p;

        fx_lines(buf, sizeof(buf), 100, 10, "B10");
        snprintf(top, sizeof(top), "%s", "");
        for (int i = 1; i <= 50; i++) {
            char l[16];
            snprintf(l, sizeof(l), "N%d\n", i);
            strcat(top, l);
        }
        strcat(top, buf);
        p = strstr(top, "\nL30\n");
        memcpy(p + 1, "M30", 3);
        fx_write(dir, "t.txt", top);
    }
    fx_git(dir, "add", "-A", NULL);
    fx_commit(dir, "bob");
    fx_git(dir, "checkout", "-q", "main", NULL);
}

/* An agent's onto_conflicts, comma-separated. */
static const char *
onto_str(const struct agent *a)
{
    static char buf[256];
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < a->nonto_conflicts && len < sizeof(buf); i++)
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
            i ? "," : "", a->onto_conflicts[i]);
    return buf;
}

static int
read_branch(struct repo *r, const char *branch, struct agent *a)
{
    struct workset_options o;
    struct as_err e;

    workset_options_init(&o);
    o.integration = "main";
    agent_init(a, branch);
    return workset_from_branch(r, branch, &o, a, &e);
}

static void
test_align_pair(void)
{
    struct repo *r = NULL;
    struct align_cache *cache = align_cache_new();
    struct align_stats st;
    struct agent ag[2];
    struct as_err e;
    const struct ws_file *f;
    char c0[41], c1[41], alice_tree[41];

    CHECK_INT(repo_open(dir, &r, &e), 0);
    if (!r)
        goto out_cache;
    rev("main~1", c0);
    rev("main", c1);
    CHECK_INT(read_branch(r, "alice", &ag[0]), 0);
    CHECK_INT(read_branch(r, "bob", &ag[1]), 0);
    CHECK_STR(ag[0].base_oid, c0);
    CHECK_STR(ag[1].base_oid, c1);
    CHECK_STR(ranges_str(find_file(&ag[0], "t.txt")), "10-10,30-30");
    for (size_t i = 0; i < ag[0].nfiles; i++)
        ag[0].files[i].changed_at_ms = 1000 + (int64_t)i;
    snprintf(alice_tree, sizeof(alice_tree), "%s", ag[0].tree_oid);

    CHECK_INT(align_agents(r, cache, ag, 2, NULL, NULL, &st, &e), 0);
    CHECK(st.linear);
    CHECK_STR(st.newest, c1);
    CHECK_INT(st.moved, 1);
    CHECK_INT(st.failed, 0);

    /* alice on C1: her line 10 is line 60; line 30 (also changed on main)
     * is hers, at line 80 */
    CHECK_STR(ag[0].base_oid, c1);
    CHECK(strcmp(ag[0].tree_oid, alice_tree) != 0);
    CHECK_INT(ag[0].commits_ahead, 1);
    f = find_file(&ag[0], "t.txt");
    CHECK(f && f->status == WS_MODIFIED);
    CHECK_STR(ranges_str(f), "60-60,80-80");
    /* the changed time of the same path is kept (files were a, d, r, t) */
    CHECK(f && f->changed_at_ms == 1003);
    /* a.txt, deleted on main: hers again, added */
    f = find_file(&ag[0], "a.txt");
    CHECK(f && f->status == WS_ADDED && f->changed_at_ms == 1000);
    /* d.txt, changed on main: her deletion */
    f = find_file(&ag[0], "d.txt");
    CHECK(f && f->status == WS_DELETED);
    /* r.txt, renamed on main: her line 5 of s.txt */
    CHECK(find_file(&ag[0], "r.txt") == NULL);
    f = find_file(&ag[0], "s.txt");
    CHECK(f && f->status == WS_MODIFIED);
    CHECK_STR(ranges_str(f), "5-5");
    /* ... with the time of her latest-changed file (t.txt, the last) */
    CHECK(f && f->changed_at_ms == 1003);
    CHECK_INT(ag[0].nfiles, 4);

    /* where her work conflicts with C1, settled above for her: line 30 of
     * t.txt (both changed it), a.txt (she changed it, main deleted it),
     * d.txt (she deleted it, main changed it); not r.txt, which git
     * follows to s.txt */
    CHECK_STR(onto_str(&ag[0]), "a.txt,d.txt,t.txt");

    /* bob was on C1 already */
    CHECK_STR(ag[1].base_oid, c1);
    CHECK_STR(ranges_str(find_file(&ag[1], "t.txt")), "60-60");
    CHECK_STR(onto_str(&ag[1]), "");

    /* aligning again moves nothing, and she still conflicts there */
    CHECK_INT(align_agents(r, cache, ag, 2, NULL, NULL, &st, &e), 0);
    CHECK_INT(st.moved, 0);
    CHECK_STR(onto_str(&ag[0]), "a.txt,d.txt,t.txt");

    agent_release(&ag[0]);
    agent_release(&ag[1]);
    repo_free(r);
out_cache:
    align_cache_free(cache);
}

static void
test_align_cache(void)
{
    struct repo *r = NULL;
    struct align_cache *cache = align_cache_new();
    struct agent ag[3];
    struct as_err e;
    struct align_stats st;

    CHECK_INT(repo_open(dir, &r, &e), 0);
    if (!r)
        goto out_cache;
    /* two agents with the same base and tree: one rebase */
    CHECK_INT(read_branch(r, "alice", &ag[0]), 0);
    CHECK_INT(read_branch(r, "alice", &ag[1]), 0);
    CHECK_INT(read_branch(r, "bob", &ag[2]), 0);
    CHECK_INT(align_agents(r, cache, ag, 3, NULL, NULL, &st, &e), 0);
    CHECK_INT(st.moved, 2);
    CHECK_INT(align_cache_hits(cache), 1);
    CHECK_STR(ag[0].tree_oid, ag[1].tree_oid);
    CHECK_STR(ranges_str(find_file(&ag[1], "t.txt")), "60-60,80-80");
    /* the cached rebase tells its conflicts too */
    CHECK_STR(onto_str(&ag[0]), "a.txt,d.txt,t.txt");
    CHECK_STR(onto_str(&ag[1]), "a.txt,d.txt,t.txt");
    for (int i = 0; i < 3; i++)
        agent_release(&ag[i]);
    repo_free(r);
out_cache:
    align_cache_free(cache);
}

/* A clean rebase adds no conflict; a move adds to what an earlier move of
 * the same agent found (its tree holds those settled already). */
static void
test_align_conflicts(void)
{
    struct repo *r = NULL;
    struct agent ag[3];
    struct as_err e;
    struct align_stats st;

    CHECK_INT(repo_open(dir, &r, &e), 0);
    if (!r)
        return;
    CHECK_INT(read_branch(r, "side", &ag[0]), 0);
    CHECK_INT(read_branch(r, "alice", &ag[1]), 0);
    CHECK_INT(read_branch(r, "bob", &ag[2]), 0);
    ag[1].onto_conflicts = xcalloc(2, sizeof(char *));
    ag[1].onto_conflicts[0] = xstrdup("b.txt");
    ag[1].onto_conflicts[1] = xstrdup("t.txt");
    ag[1].nonto_conflicts = 2;
    CHECK_INT(align_agents(r, NULL, ag, 3, NULL, NULL, &st, &e), 0);
    CHECK_INT(st.moved, 2);
    CHECK_STR(onto_str(&ag[0]), "");
    CHECK_STR(onto_str(&ag[1]), "a.txt,b.txt,d.txt,t.txt");
    CHECK_STR(onto_str(&ag[2]), "");
    for (int i = 0; i < 3; i++)
        agent_release(&ag[i]);
    repo_free(r);
}

struct warned {
    unsigned n;
};

static void
count_warn(void *ctx, const struct agent *a, const char *msg)
{
    (void)a;
    (void)msg;
    ((struct warned *)ctx)->n++;
}

static void
test_align_not_linear(void)
{
    struct repo *r = NULL;
    struct agent ag[2];
    struct as_err e;
    struct align_stats st;
    char side[41], c1[41];

    CHECK_INT(repo_open(dir, &r, &e), 0);
    if (!r)
        return;
    /* side's tip and main's tip as bases: neither descends from the other */
    CHECK_INT(read_branch(r, "alice", &ag[0]), 0);
    CHECK_INT(read_branch(r, "bob", &ag[1]), 0);
    rev("side", side);
    rev("main", c1);
    free(ag[0].base_oid);
    ag[0].base_oid = strdup(side);
    CHECK_INT(align_agents(r, NULL, ag, 2, NULL, NULL, &st, &e), 0);
    CHECK(!st.linear);
    CHECK_STR(st.newest, "");
    CHECK_INT(st.moved, 0);
    CHECK_STR(ag[0].base_oid, side);
    CHECK_STR(ranges_str(find_file(&ag[0], "t.txt")), "10-10,30-30");
    agent_release(&ag[0]);
    agent_release(&ag[1]);

    /* an agent whose tree is gone is left on its base, and warn is told */
    {
        struct warned w = { 0 };

        CHECK_INT(read_branch(r, "alice", &ag[0]), 0);
        CHECK_INT(read_branch(r, "bob", &ag[1]), 0);
        free(ag[0].tree_oid);
        ag[0].tree_oid = strdup("0123456789012345678901234567890123456789");
        CHECK_INT(align_agents(r, NULL, ag, 2, count_warn, &w, &st, &e), 0);
        CHECK(st.linear);
        CHECK_INT(st.failed, 1);
        CHECK_INT(w.n, 1);
        CHECK(strcmp(ag[0].base_oid, c1) != 0);
        CHECK_STR(ranges_str(find_file(&ag[0], "t.txt")), "10-10,30-30");
        agent_release(&ag[0]);
        agent_release(&ag[1]);
    }
    repo_free(r);
}

int
main(void)
{
    TEST_RUN("newest base", test_newest);
    fx_setup();
    build();
    TEST_RUN("agents on two bases aligned", test_align_pair);
    TEST_RUN("rebases cached", test_align_cache);
    TEST_RUN("conflicts with the newer base", test_align_conflicts);
    TEST_RUN("no newest base, a tree missing", test_align_not_linear);
    fx_teardown();
    return test_done();
}

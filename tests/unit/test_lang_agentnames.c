/*
 * test_lang_agentnames.c - the uses and definitions an agent's own version
 * of a file adds over the base version in the graph, and the symbol channel
 * that they feed.
 */
#include <stdlib.h>
#include <string.h>

#include "core/risk.h"
#include "lang/agentnames.h"
#include "lang/repograph.h"
#include "util/xalloc.h"
#include "test.h"
#include "util/banned.h"

static const char base_c[] = "int\n"
                             "compute(int x)\n"
                             "{\n"
                             "    return x * 2;\n"
                             "}\n"
                             "\n"
                             "int\n"
                             "tail(int y)\n"
                             "{\n"
                             "    return compute(y) + 1;\n"
                             "}\n";

static int
read_mem(void *ctx, const struct repograph_file *f, char **buf, size_t *len)
{
    (void)f;
    *buf = xstrdup(ctx);
    *len = strlen(ctx);
    return 0;
}

static void
build_file(struct graph *g, const char *path, const char *text)
{
    struct repograph_file file = { .path = path };
    struct repograph_options o = { 0 };
    o.threads = 1;
    struct repograph_stats st;
    struct as_err e;
    graph_init(g);
    CHECK_INT(
        repograph_build(g, &file, 1, read_mem, (void *)text, &o, &st, &e), 0);
}

static void
build(struct graph *g)
{
    struct repograph_file file = { .path = "lib/big.c" };
    struct repograph_options o = { 0 };
    o.threads = 1;
    struct repograph_stats st;
    struct as_err e;
    graph_init(g);
    CHECK_INT(
        repograph_build(g, &file, 1, read_mem, (void *)base_c, &o, &st, &e), 0);
}

static bool
has_name(const struct ws_name *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].name, name))
            return true;
    return false;
}

static void
test_new_uses_and_defs(void)
{
    struct graph g;
    build(&g);
    struct agent a;
    agent_init(&a, "frank");
    struct ws_file *f = agent_add_file(&a, "lib/big.c", WS_MODIFIED);
    /* One more call of compute, a new helper and a call of it. */
    const char *mine = "int\n"
                       "compute(int x)\n"
                       "{\n"
                       "    return x * 2;\n"
                       "}\n"
                       "\n"
                       "int\n"
                       "helper(int z)\n"
                       "{\n"
                       "    return z;\n"
                       "}\n"
                       "\n"
                       "int\n"
                       "tail(int y)\n"
                       "{\n"
                       "    int k = compute(helper(1));\n"
                       "    return compute(y) + k;\n"
                       "}\n";
    struct as_err e;
    CHECK_INT(agentnames_fill(&g, f, "lib/big.c", mine, strlen(mine), &e), 0);
    CHECK(has_name(f->new_uses, f->nnew_uses, "compute"));
    CHECK(has_name(f->new_uses, f->nnew_uses, "helper"));
    CHECK(has_name(f->new_defs, f->nnew_defs, "helper"));
    CHECK(!has_name(f->new_defs, f->nnew_defs, "compute"));
    CHECK(!has_name(f->new_defs, f->nnew_defs, "tail"));
    CHECK(graph_find_name(&g, "helper", 6) != GRAPH_NONE);
    agent_release(&a);
    graph_release(&g);
}

static void
test_unchanged_adds_nothing(void)
{
    struct graph g;
    build(&g);
    struct agent a;
    agent_init(&a, "x");
    struct ws_file *f = agent_add_file(&a, "lib/big.c", WS_MODIFIED);
    struct as_err e;
    CHECK_INT(
        agentnames_fill(&g, f, "lib/big.c", base_c, strlen(base_c), &e), 0);
    CHECK_INT(f->nnew_uses, 0);
    CHECK_INT(f->nnew_defs, 0);
    /* A file in no parsed language is left alone. */
    struct ws_file *t = agent_add_file(&a, "README", WS_MODIFIED);
    CHECK_INT(agentnames_fill(&g, t, "README", "compute()\n", 10, &e), 0);
    CHECK_INT(t->nnew_uses, 0);
    /* Nor is a minified one (lang.h): 20 KB of calls on one line is not
     * parsed, and that is not an error. */
    size_t n = 20 * 1024;
    char *min = xmalloc(n + 1);
    for (size_t i = 0; i < n; i += 10)
        memcpy(min + i, "compute();", 10);
    min[n] = '\0';
    struct ws_file *m = agent_add_file(&a, "lib/min.c", WS_ADDED);
    CHECK_INT(agentnames_fill(&g, m, "lib/min.c", min, n, &e), 0);
    CHECK_INT(m->nnew_uses, 0);
    /* the same calls one to a line are parsed: new uses */
    for (size_t i = 9; i < n; i += 10)
        min[i] = '\n';
    CHECK_INT(agentnames_fill(&g, m, "lib/min.c", min, n, &e), 0);
    CHECK(m->nnew_uses > 0);
    free(min);
    agent_release(&a);
    graph_release(&g);
}

/* erin changes compute's body (line 4); frank changes tail, which calls
 * compute (an enclosing use), then adds a call of its own that the base
 * version does not have: a direct use, seen only through frank's copy. */
static void
test_symbol_channel_through_new_use(void)
{
    struct graph g;
    build(&g);
    struct agent ag[2];
    agent_init(&ag[0], "erin");
    agent_init(&ag[1], "frank");
    struct ws_file *fe = agent_add_file(&ag[0], "lib/big.c", WS_MODIFIED);
    range_set_add(&fe->ranges, 4, 4);
    struct ws_file *ff = agent_add_file(&ag[1], "lib/big.c", WS_MODIFIED);
    range_set_add(&ff->ranges, 9, 9);
    struct risk_config c;
    risk_config_default(&c);
    struct risk_result res;

    struct risk_engine *en = risk_engine_new(&c, &g, ag, 2);
    risk_engine_score(en, 0, 1, &res);
    /* Before: frank's line is only inside tail, which uses compute. */
    CHECK_NEAR(res.r[RISK_SYMBOL], c.symbol_enclosing, 1e-12);
    risk_engine_free(en);

    const char *mine = "int\ncompute(int x)\n{\n    return x * 2;\n}\n\n"
                       "int\ntail(int y)\n{\n    int k = compute(2);\n"
                       "    return compute(y) + k;\n}\n";
    struct as_err e;
    CHECK_INT(agentnames_fill(&g, ff, "lib/big.c", mine, strlen(mine), &e), 0);
    en = risk_engine_new(&c, &g, ag, 2);
    risk_engine_score(en, 0, 1, &res);
    CHECK_NEAR(res.r[RISK_SYMBOL], 1, 1e-12);
    struct risk_evidence ev;
    risk_engine_explain(en, 0, 1, &ev);
    CHECK(ev.nsymbols >= 1);
    if (ev.nsymbols)
        CHECK_STR(ev.symbols[0].name, "compute");
    risk_evidence_release(&ev);
    risk_engine_free(en);
    agent_release(&ag[0]);
    agent_release(&ag[1]);
    graph_release(&g);
}

/* ---- a new call among calls of the same name ---- */

/* A test module shaped like sympy's utilities/tests/test_misc.py: the
 * function under test is called on line after line. */
static const char misc_py[] =
    "from sympy.utilities.misc import ordinal, replace\n" /* 1 */
    "\n"                                                  /* 2 */
    "\n"                                                  /* 3 */
    "def test_replace():\n"                               /* 4 */
    "    assert replace('abc', ('a', 'b')) == 'bbc'\n"    /* 5 */
    "    assert replace('abc', {'a': 'Aa'}) == 'Aabc'\n"  /* 6 */
    "\n"                                                  /* 7 */
    "\n"                                                  /* 8 */
    "def test_ordinal():\n"                               /* 9 */
    "    assert ordinal(-1) == '-1st'\n"                  /* 10 */
    "    assert ordinal(0) == '0th'\n"                    /* 11 */
    "    assert ordinal(1) == '1st'\n"                    /* 12 */
    "    assert ordinal(2) == '2nd'\n"                    /* 13 */
    "    assert ordinal(3) == '3rd'\n"                    /* 14 */
    "    assert all(ordinal(i).endswith('th') for i in range(4, 21))\n"
    "    assert ordinal(100) == '100th'\n"                          /* 16 */
    "    assert ordinal(101) == '101st'\n"                          /* 17 */
    "    assert ordinal(102) == '102nd'\n"                          /* 18 */
    "    assert ordinal(103) == '103rd'\n"                          /* 19 */
    "    assert ordinal(104) == '104th'\n"                          /* 20 */
    "    assert ordinal(200) == '200th'\n"                          /* 21 */
    "\n"                                                            /* 22 */
    "\n"                                                            /* 23 */
    "def test_replace_many():\n"                                    /* 24 */
    "    assert replace('abc', ('a', 'b'), ('c', 'C')) == 'bbC'\n"; /* 25 */

#define MISC_PATH "sympy/utilities/tests/test_misc.py"

/* base with text inserted after its line k (0: at the top), as a new
 * string */
static char *
insert_after(const char *base, uint32_t k, const char *text)
{
    const char *at = base;
    for (uint32_t i = 0; i < k; i++)
        at = strchr(at, '\n') + 1;
    size_t n = strlen(base), h = (size_t)(at - base), t = strlen(text);
    char *s = xmalloc(n + t + 1);
    memcpy(s, base, h);
    memcpy(s + h, text, t);
    memcpy(s + h + t, at, n - h + 1);
    return s;
}

/* The line of the one new use of name in f (0: none or several). */
static uint32_t
new_use_line(const struct ws_file *f, const char *name)
{
    uint32_t line = 0;
    size_t n = 0;
    for (size_t i = 0; i < f->nnew_uses; i++)
        if (!strcmp(f->new_uses[i].name, name)) {
            line = f->new_uses[i].line;
            n++;
        }
    return n == 1 ? line : 0;
}

/* carol inserts one call of ordinal after line k of the base file, as git
 * reports it (a pure insertion after base line k): the new use is the
 * inserted line, k + 1 of her version, not one of the calls already
 * there. */
static void
check_insert_ordinal(uint32_t k)
{
    struct graph g;
    build_file(&g, MISC_PATH, misc_py);
    struct agent a;
    agent_init(&a, "carol");
    struct ws_file *f = agent_add_file(&a, MISC_PATH, WS_MODIFIED);
    range_set_add_insertion(&f->ranges, k);
    f->added_lines = 1;
    char *mine = insert_after(misc_py, k, "    assert ordinal(4) == '4th'\n");
    struct as_err e;
    CHECK_INT(agentnames_fill(&g, f, MISC_PATH, mine, strlen(mine), &e), 0);
    CHECK_INT(f->nnew_uses, 1);
    CHECK_INT(new_use_line(f, "ordinal"), k + 1);
    CHECK_INT(f->nnew_defs, 0);
    free(mine);
    agent_release(&a);
    graph_release(&g);
}

static void
test_new_call_above_calls(void)
{
    check_insert_ordinal(9); /* first line of test_ordinal */
}

static void
test_new_call_between_calls(void)
{
    check_insert_ordinal(14); /* the sympy report: after ordinal(3) */
    check_insert_ordinal(17);
}

static void
test_new_call_after_calls(void)
{
    check_insert_ordinal(21); /* after the last call */
    check_insert_ordinal(22);
}

/* Several hunks: a replaced line above (same names: no new use), a call
 * inserted at the top of test_ordinal, a call of ordinal replaced by one of
 * replace, and below it a second ordinal call and a call of a name the base
 * file does not use. One more ordinal than the base: the first written. */
static void
test_new_calls_several_hunks(void)
{
    struct graph g;
    build_file(&g, MISC_PATH, misc_py);
    struct agent a;
    agent_init(&a, "carol");
    struct ws_file *f = agent_add_file(&a, MISC_PATH, WS_MODIFIED);
    range_set_add(&f->ranges, 5, 5);
    range_set_add_insertion(&f->ranges, 9);
    range_set_add(&f->ranges, 18, 18);
    range_set_add_insertion(&f->ranges, 19);
    f->added_lines = 5;
    f->deleted_lines = 2;
    const char *mine =
        "from sympy.utilities.misc import ordinal, replace\n" /* 1 */
        "\n"                                                  /* 2 */
        "\n"                                                  /* 3 */
        "def test_replace():\n"                               /* 4 */
        "    assert replace('abd', ('a', 'b')) == 'bbd'\n"    /* 5 */
        "    assert replace('abc', {'a': 'Aa'}) == 'Aabc'\n"  /* 6 */
        "\n"                                                  /* 7 */
        "\n"                                                  /* 8 */
        "def test_ordinal():\n"                               /* 9 */
        "    assert ordinal(-2) == '-2nd'\n"                  /* 10 */
        "    assert ordinal(-1) == '-1st'\n"                  /* 11 */
        "    assert ordinal(0) == '0th'\n"                    /* 12 */
        "    assert ordinal(1) == '1st'\n"                    /* 13 */
        "    assert ordinal(2) == '2nd'\n"                    /* 14 */
        "    assert ordinal(3) == '3rd'\n"                    /* 15 */
        "    assert all(ordinal(i).endswith('th') for i in range(4, 21))\n"
        "    assert ordinal(100) == '100th'\n"             /* 17 */
        "    assert ordinal(101) == '101st'\n"             /* 18 */
        "    assert replace('102', ('2', 'x')) == '10x'\n" /* 19 */
        "    assert ordinal(103) == '103rd'\n"             /* 20 */
        "    assert ordinal(1000) == '1000th'\n"           /* 21 */
        "    assert as_int(7) == 7\n"                      /* 22 */
        "    assert ordinal(104) == '104th'\n"             /* 23 */
        "    assert ordinal(200) == '200th'\n"             /* 24 */
        "\n"                                               /* 25 */
        "\n"                                               /* 26 */
        "def test_replace_many():\n"                       /* 27 */
        "    assert replace('abc', ('a', 'b'), ('c', 'C')) == 'bbC'\n";
    struct as_err e;
    CHECK_INT(agentnames_fill(&g, f, MISC_PATH, mine, strlen(mine), &e), 0);
    /* ordinal: 13 calls where the base has 12; replace: 4 where it has 3 */
    CHECK_INT(f->nnew_uses, 3);
    CHECK_INT(new_use_line(f, "ordinal"), 10);
    CHECK_INT(new_use_line(f, "replace"), 19);
    CHECK_INT(new_use_line(f, "as_int"), 22);
    agent_release(&a);
    graph_release(&g);
}

/* A call deleted and one written elsewhere: as many uses as the base
 * file's, so no new one; a deletion alone adds nothing either. */
static void
test_moved_call_adds_nothing(void)
{
    struct graph g;
    build_file(&g, MISC_PATH, misc_py);
    struct agent a;
    agent_init(&a, "carol");
    struct ws_file *f = agent_add_file(&a, MISC_PATH, WS_MODIFIED);
    range_set_add(&f->ranges, 12, 12);
    range_set_add_insertion(&f->ranges, 20);
    f->added_lines = 1;
    f->deleted_lines = 1;
    char *moved = insert_after(misc_py, 20, "    assert ordinal(1) == '1st'\n");
    char *cut = strstr(moved, "    assert ordinal(1) == '1st'\n");
    memmove(cut, strchr(cut, '\n') + 1, strlen(strchr(cut, '\n') + 1) + 1);
    struct as_err e;
    CHECK_INT(agentnames_fill(&g, f, MISC_PATH, moved, strlen(moved), &e), 0);
    CHECK_INT(f->nnew_uses, 0);
    free(moved);

    struct ws_file *d = agent_add_file(&a, "lib/other.py", WS_MODIFIED);
    graph_release(&g);
    build_file(&g, "lib/other.py", misc_py);
    range_set_add(&d->ranges, 12, 13);
    d->deleted_lines = 2;
    char *fewer = xstrdup(misc_py);
    cut = strstr(fewer, "    assert ordinal(1) == '1st'\n");
    const char *rest = strstr(fewer, "    assert ordinal(3)");
    memmove(cut, rest, strlen(rest) + 1);
    CHECK_INT(
        agentnames_fill(&g, d, "lib/other.py", fewer, strlen(fewer), &e), 0);
    CHECK_INT(d->nnew_uses, 0);
    free(fewer);
    agent_release(&a);
    graph_release(&g);
}

int
main(void)
{
    TEST_RUN("new uses and definitions", test_new_uses_and_defs);
    TEST_RUN("unchanged content adds nothing", test_unchanged_adds_nothing);
    TEST_RUN("symbol channel through a new use",
        test_symbol_channel_through_new_use);
    TEST_RUN(
        "a new call above calls of the same name", test_new_call_above_calls);
    TEST_RUN("a new call between calls of the same name",
        test_new_call_between_calls);
    TEST_RUN(
        "a new call after calls of the same name", test_new_call_after_calls);
    TEST_RUN("new calls in several hunks", test_new_calls_several_hunks);
    TEST_RUN(
        "a moved or deleted call adds nothing", test_moved_call_adds_nothing);
    return test_done();
}

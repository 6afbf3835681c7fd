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

int
main(void)
{
    TEST_RUN("new uses and definitions", test_new_uses_and_defs);
    TEST_RUN("unchanged content adds nothing", test_unchanged_adds_nothing);
    TEST_RUN("symbol channel through a new use",
        test_symbol_channel_through_new_use);
    return test_done();
}

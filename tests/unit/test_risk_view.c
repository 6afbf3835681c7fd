/* test_risk_view.c - the dependency and symbol channels over an agent's own
 * view of the graph: the files it adds, the imports its versions add and
 * the names they newly use (docs/risk-model.md, "The agent's view"). */
#include <stdlib.h>
#include <string.h>

#include "core/graph.h"
#include "core/risk.h"
#include "core/workset.h"
#include "test.h"

#define EPS 1e-9

/*
 * src/util.h declares add (line 3) and sub (line 4); src/util.c includes it
 * and defines add (3-6) and sub (8-11); the header links to its source
 * (util.h -> util.c, as repograph does). src/main.c imports nothing.
 */
static void
util_graph(struct graph *g)
{
    graph_init(g);
    uint32_t h = graph_intern_file(g, "src/util.h");
    uint32_t c = graph_intern_file(g, "src/util.c");
    uint32_t m = graph_intern_file(g, "src/main.c");
    graph_set_imports(g, c, &h, 1);
    graph_set_imports(g, h, &c, 1);
    uint32_t add = graph_intern_name(g, "add", 3);
    uint32_t sub = graph_intern_name(g, "sub", 3);
    uint32_t main_ = graph_intern_name(g, "main", 4);
    struct graph_def hd[] = { { add, 3, 3, GRAPH_SYM_FUNCTION },
        { sub, 4, 4, GRAPH_SYM_FUNCTION } };
    graph_set_symbols(g, h, hd, 2, NULL, 0);
    struct graph_def cd[] = { { add, 3, 6, GRAPH_SYM_FUNCTION },
        { sub, 8, 11, GRAPH_SYM_FUNCTION } };
    graph_set_symbols(g, c, cd, 2, NULL, 0);
    struct graph_def md[] = { { main_, 1, 5, GRAPH_SYM_FUNCTION } };
    graph_set_symbols(g, m, md, 1, NULL, 0);
}

static struct ws_file *
edit(struct agent *a, const char *path, enum ws_status st, uint32_t s,
    uint32_t e)
{
    struct ws_file *f = agent_add_file(a, path, st);
    if (s)
        range_set_add(&f->ranges, s, e);
    else
        f->whole = true;
    f->weight = 1;
    return f;
}

/* The agent's version of f was parsed: it imports path (NULL: nothing new)
 * and newly uses name (NULL: nothing) at line. */
static void
view(struct ws_file *f, const char *path, const char *name, uint32_t line)
{
    f->parsed = true;
    if (path)
        ws_file_add_import(f, path);
    if (name)
        ws_file_add_name(f, false, name, strlen(name), line);
}

enum { ALICE, BOB, CAROL, ERIN, DAVE, FRED, NAGENTS };

static void
agents(struct agent *ag)
{
    agent_init(&ag[ALICE], "alice");
    agent_init(&ag[BOB], "bob");
    agent_init(&ag[CAROL], "carol");
    agent_init(&ag[ERIN], "erin");
    agent_init(&ag[DAVE], "dave");
    agent_init(&ag[FRED], "fred");
    /* alice changes add()'s body */
    edit(&ag[ALICE], "src/util.c", WS_MODIFIED, 4, 5);
    /* bob adds src/extra.c: includes util.h, calls add */
    view(edit(&ag[BOB], "src/extra.c", WS_ADDED, 0, 0), "src/util.h", "add", 6);
    /* carol adds the include and a call of add to main.c */
    view(edit(&ag[CAROL], "src/main.c", WS_MODIFIED, 1, 6), "src/util.h", "add",
        5);
    /* erin adds the include to main.c but calls only sub */
    view(edit(&ag[ERIN], "src/main.c", WS_MODIFIED, 1, 6), "src/util.h", "sub",
        5);
    /* dave edits main.c with no new import */
    edit(&ag[DAVE], "src/main.c", WS_MODIFIED, 3, 3);
    /* fred adds src/new.h (including util.h) and includes it from main.c,
     * where he calls add: main.c -> new.h -> util.h -> util.c */
    view(edit(&ag[FRED], "src/new.h", WS_ADDED, 0, 0), "src/util.h", NULL, 0);
    view(edit(&ag[FRED], "src/main.c", WS_MODIFIED, 1, 6), "src/new.h", "add",
        5);
    for (size_t i = 0; i < NAGENTS; i++)
        agent_sort(&ag[i]);
}

static struct risk_result
score(struct risk_engine *e, size_t a, size_t b)
{
    struct risk_result r, r2;
    risk_engine_score(e, a, b, &r);
    risk_engine_score(e, b, a, &r2);
    for (int i = 0; i < RISK_NCHANNELS; i++)
        CHECK_NEAR(r2.r[i], r.r[i], 1e-12); /* symmetric */
    return r;
}

static void
test_new_file_and_include(void)
{
    struct risk_config cfg;
    risk_config_default(&cfg);
    struct graph g;
    util_graph(&g);
    struct agent ag[NAGENTS];
    agents(ag);
    struct risk_engine *e = risk_engine_new(&cfg, &g, ag, NAGENTS);

    /* extra.c -> util.h -> util.c: d = 2, sigma 1 (calls add) */
    struct risk_result r = score(e, ALICE, BOB);
    CHECK_NEAR(r.r[RISK_DEPENDENCY], 0.5, EPS);
    CHECK_NEAR(r.r[RISK_SYMBOL], 0.5, EPS);
    /* the same through a new include in an existing file */
    r = score(e, ALICE, CAROL);
    CHECK_NEAR(r.r[RISK_DEPENDENCY], 0.5, EPS);
    CHECK_NEAR(r.r[RISK_SYMBOL], 0.5, EPS);
    /* includes util.h but uses only sub: sigma0, no symbol hit */
    r = score(e, ALICE, ERIN);
    CHECK_NEAR(r.r[RISK_DEPENDENCY], 0.5 * 0.3, EPS);
    CHECK_NEAR(r.r[RISK_SYMBOL], 0, 0);
    /* the new edges are carol's and erin's own: dave's main.c still
     * imports nothing */
    r = score(e, ALICE, DAVE);
    CHECK_NEAR(r.r[RISK_DEPENDENCY], 0, 0);
    CHECK_NEAR(r.r[RISK_SYMBOL], 0, 0);
    /* nobody imports bob's new file */
    r = score(e, BOB, CAROL);
    CHECK_NEAR(r.r[RISK_DEPENDENCY], 0, 0);
    /* through fred's own new header: d = 3 */
    r = score(e, ALICE, FRED);
    CHECK_NEAR(r.r[RISK_DEPENDENCY], 0.25, EPS);
    CHECK_NEAR(r.r[RISK_SYMBOL], 0.25, EPS);

    /* the evidence: chain, sigma, the symbol used */
    struct risk_evidence ev;
    risk_engine_explain(e, ALICE, BOB, &ev);
    CHECK(ev.dep.present);
    CHECK_INT(ev.dep.up_agent, ALICE);
    CHECK_INT(ev.dep.down_agent, BOB);
    CHECK_STR(ev.dep.upstream, "src/util.c");
    CHECK_STR(ev.dep.downstream, "src/extra.c");
    CHECK_INT(ev.dep.nchain, 3);
    if (ev.dep.nchain == 3) {
        CHECK_STR(ev.dep.chain[0], "src/extra.c");
        CHECK_STR(ev.dep.chain[1], "src/util.h");
        CHECK_STR(ev.dep.chain[2], "src/util.c");
    }
    CHECK_NEAR(ev.dep.sigma, 1, 0);
    CHECK_INT(ev.dep.nsymbols, 1);
    if (ev.dep.nsymbols)
        CHECK_STR(ev.dep.symbols[0], "add");
    CHECK_INT(ev.nsymbols, 1);
    if (ev.nsymbols) {
        CHECK_STR(ev.symbols[0].name, "add");
        CHECK_STR(ev.symbols[0].def_path, "src/util.c");
        CHECK_STR(ev.symbols[0].use_path, "src/extra.c");
        CHECK_INT(ev.symbols[0].use_line, 6);
        CHECK_INT(ev.symbols[0].use_agent, BOB);
    }
    risk_evidence_release(&ev);
    risk_engine_explain(e, FRED, ALICE, &ev);
    CHECK_INT(ev.dep.nchain, 4);
    if (ev.dep.nchain == 4) {
        CHECK_STR(ev.dep.chain[0], "src/main.c");
        CHECK_STR(ev.dep.chain[1], "src/new.h");
        CHECK_STR(ev.dep.chain[2], "src/util.h");
        CHECK_STR(ev.dep.chain[3], "src/util.c");
    }
    risk_evidence_release(&ev);
    risk_engine_explain(e, ALICE, ERIN, &ev);
    CHECK_NEAR(ev.dep.sigma, 0.3, EPS);
    CHECK_INT(ev.dep.nsymbols, 0);
    risk_evidence_release(&ev);

    /* the result does not depend on the threads preparing it */
    struct risk_engine *e3 = risk_engine_new_mt(&cfg, &g, ag, NAGENTS, 3);
    for (size_t a = 0; a < NAGENTS; a++)
        for (size_t b = a + 1; b < NAGENTS; b++) {
            struct risk_result x, y;
            risk_engine_score(e, a, b, &x);
            risk_engine_score(e3, a, b, &y);
            CHECK_NEAR(x.risk, y.risk, 0);
        }
    risk_engine_free(e3);
    risk_engine_free(e);

    /* symbols off: sigma 1, no symbol channel, the edges still count */
    cfg.use_symbols = false;
    e = risk_engine_new(&cfg, &g, ag, NAGENTS);
    r = score(e, ALICE, ERIN);
    CHECK_NEAR(r.r[RISK_DEPENDENCY], 0.5, EPS);
    CHECK_NEAR(r.r[RISK_SYMBOL], 0, 0);
    risk_engine_free(e);
    for (size_t i = 0; i < NAGENTS; i++)
        agent_release(&ag[i]);
    graph_release(&g);
}

/* A name the agent's version newly uses counts for sigma too: main.c
 * already includes util.h and calls sub; the agent adds a call of add. */
static void
test_new_use_sigma(void)
{
    struct risk_config cfg;
    risk_config_default(&cfg);
    struct graph g;
    util_graph(&g);
    uint32_t h = graph_find_file(&g, "src/util.h");
    uint32_t m = graph_find_file(&g, "src/main.c");
    graph_set_imports(&g, m, &h, 1);
    uint32_t sub = graph_find_name(&g, "sub", 3);
    uint32_t main_ = graph_find_name(&g, "main", 4);
    struct graph_def md[] = { { main_, 1, 5, GRAPH_SYM_FUNCTION } };
    struct graph_ref mr[] = { { sub, 4 } };
    graph_set_symbols(&g, m, md, 1, mr, 1);
    struct agent ag[3];
    agent_init(&ag[0], "alice");
    agent_init(&ag[1], "bob");
    agent_init(&ag[2], "carl");
    edit(&ag[0], "src/util.c", WS_MODIFIED, 4, 5);
    view(edit(&ag[1], "src/main.c", WS_MODIFIED, 2, 2), NULL, "add", 2);
    edit(&ag[2], "src/main.c", WS_MODIFIED, 2, 2);
    struct risk_engine *e = risk_engine_new(&cfg, &g, ag, 3);
    struct risk_result r = score(e, 0, 1);
    CHECK_NEAR(r.r[RISK_DEPENDENCY], 0.5, EPS);
    CHECK_NEAR(r.r[RISK_SYMBOL], 0.5, EPS);
    r = score(e, 0, 2); /* the base view: sigma0 */
    CHECK_NEAR(r.r[RISK_DEPENDENCY], 0.5 * 0.3, EPS);
    risk_engine_free(e);
    for (size_t i = 0; i < 3; i++)
        agent_release(&ag[i]);
    graph_release(&g);
}

int
main(void)
{
    TEST_RUN("new file and new include are the agent's edges",
        test_new_file_and_include);
    TEST_RUN("newly used names give sigma", test_new_use_sigma);
    return test_done();
}

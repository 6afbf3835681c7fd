/* test_risk.c - the channel engine: conformance vectors and airspace
 * defaults (margin, recency, symbol evidence, intent, config keys). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/advisory.h"
#include "core/graph.h"
#include "core/risk.h"
#include "core/workset.h"
#include "test.h"

#define EPS 1e-9

/* Add path to a: ranges [s, e], or the whole file when s == 0. */
static struct ws_file *
edit(struct agent *a, const char *path, uint32_t s, uint32_t e, double w)
{
    struct ws_file *f = agent_add_file(a, path, WS_MODIFIED);
    if (s)
        range_set_add(&f->ranges, s, e);
    else
        f->whole = true;
    f->weight = w;
    return f;
}

static void
release_agents(struct agent *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        agent_release(&v[i]);
}

/* Score agents 0 and 1 with cfg over g (may be NULL). */
static struct risk_result
score2(const struct risk_config *cfg, const struct graph *g, struct agent *ag,
    size_t n, size_t a, size_t b)
{
    for (size_t i = 0; i < n; i++)
        agent_sort(&ag[i]);
    struct risk_engine *e = risk_engine_new(cfg, g, ag, n);
    struct risk_result r;
    risk_engine_score(e, a, b, &r);
    struct risk_result r2;
    risk_engine_score(e, b, a, &r2);
    for (int i = 0; i < RISK_NCHANNELS; i++)
        CHECK_NEAR(r2.r[i], r.r[i], 1e-12); /* symmetric */
    CHECK_NEAR(r.risk, 0, 0); /* combined by pair_finish(), not here */
    r.risk = risk_combine(cfg, r.r);
    risk_engine_free(e);
    return r;
}

/* ---- ecc-1 .. ecc-3: tree distance ---- */

struct tree_case {
    const char *name, *a, *b;
    double want;
};

static const struct tree_case tree_cases[] = {
    { "ecc-1", "a/b/c.js", "a/b/c.js", 0 },
    { "ecc-2 siblings", "src/api/users.js", "src/api/posts.js", 1.0 / 3 },
    { "ecc-2 cousins", "src/api/users.js", "src/db/schema.js", 2.0 / 3 },
    { "ecc-2 strangers", "src/api/users.js", "docs/guide.md", 1 },
    { "ecc-3 nested", "a/b", "a/b/c", 0.2 },
    { "ecc-3 normalised", "./x/y.js", "x/y.js/", 0 },
    { "ecc-3 empty", "", "x", 1 },
    { "both empty", "", "", 0 },
};

static void
test_tree_distance(void)
{
    for (size_t i = 0; i < sizeof(tree_cases) / sizeof(tree_cases[0]); i++) {
        const struct tree_case *c = &tree_cases[i];
        TEST_BEGIN(c->name);
        CHECK_NEAR(risk_tree_distance(c->a, c->b), c->want, EPS);
        CHECK_NEAR(risk_tree_distance(c->b, c->a), c->want, EPS);
        TEST_END();
    }
}

/* ---- ecc-4 .. ecc-18: one shared or nearby file, no graph ---- */

struct pair_case {
    const char *name;
    const char *pa, *pb;
    uint32_t a0, a1, b0, b1; /* 0: whole file */
    double wa, wb;
    double overlap, tree, risk;
    enum advisory_level level;
};

static const struct pair_case pair_cases[] = {
    { "ecc-4", "x.js", "x.js", 0, 0, 0, 0, 1, 1, 1, 1, 1, ADVISORY_RESOLUTION },
    { "ecc-5", "x/y.js", "x/y.js", 1, 10, 5, 14, 1, 1, 0.6, 1, 0.7,
        ADVISORY_RESOLUTION },
    { "ecc-6", "x/y.js", "x/y.js", 1, 200, 40, 60, 1, 1, 1, 1, 1,
        ADVISORY_RESOLUTION },
    { "ecc-7", "x/y.js", "x/y.js", 1, 5, 20, 25, 1, 1, 0, 1, 0.25,
        ADVISORY_CLEAR },
    { "ecc-8", "x/y.js", "x/y.js", 1, 50, 5, 55, 1, 1, 0.92, 1, 0.94,
        ADVISORY_RESOLUTION },
    { "ecc-9", "x/y.js", "x/y.js", 1, 50, 40, 90, 1, 1, 0.22, 1, 0.415,
        ADVISORY_TRAFFIC },
    { "ecc-10", "x/y.js", "x/y.js", 10, 1, 5, 5, 1, 1, 1, 1, 1,
        ADVISORY_RESOLUTION },
    { "ecc-11", "x/y.js", "x/y.js", 1, 5000000, 2, 3, 1, 1, 1, 1, 1,
        ADVISORY_RESOLUTION },
    { "ecc-12", "src/a.js", "src/a.js", 0, 0, 0, 0, 1, 1, 1, 1, 1,
        ADVISORY_RESOLUTION },
    { "ecc-13", "src/a.js", "src/a.js", 1, 50, 5, 55, 1, 1, 0.92, 1, 0.94,
        ADVISORY_RESOLUTION },
    { "ecc-14", "src/a.js", "src/a.js", 1, 50, 40, 90, 1, 1, 0.22, 1, 0.415,
        ADVISORY_TRAFFIC },
    { "ecc-15", "src/a.js", "src/a.js", 1, 20, 500, 540, 1, 1, 0, 1, 0.25,
        ADVISORY_CLEAR },
    { "ecc-16", "src/a.js", "src/a.js", 0, 0, 0, 0, 0.5, 0.5, 0.25, 1, 0.4375,
        ADVISORY_TRAFFIC },
    { "ecc-17", "src/api/users.js", "docs/guide.md", 0, 0, 0, 0, 1, 1, 0, 0, 0,
        ADVISORY_CLEAR },
    { "ecc-18", "src/api/users.js", "src/api/posts.js", 0, 0, 0, 0, 1, 1, 0,
        2.0 / 3, 1.0 / 6, ADVISORY_CLEAR },
};

static void
test_pairs_ecc(void)
{
    struct risk_config cfg;
    risk_config_ecc(&cfg);
    for (size_t i = 0; i < sizeof(pair_cases) / sizeof(pair_cases[0]); i++) {
        const struct pair_case *c = &pair_cases[i];
        TEST_BEGIN(c->name);
        struct agent ag[2];
        agent_init(&ag[0], "a");
        agent_init(&ag[1], "b");
        edit(&ag[0], c->pa, c->a0, c->a1, c->wa);
        edit(&ag[1], c->pb, c->b0, c->b1, c->wb);
        struct risk_result r = score2(&cfg, NULL, ag, 2, 0, 1);
        CHECK_NEAR(r.r[RISK_OVERLAP], c->overlap, EPS);
        CHECK_NEAR(r.r[RISK_TREE], c->tree, EPS);
        CHECK_NEAR(r.r[RISK_DEPENDENCY], 0, 0);
        CHECK_NEAR(r.risk, c->risk, 1e-6);
        CHECK_INT(advisory_classify(&cfg, r.risk), c->level);
        release_agents(ag, 2);
        TEST_END();
    }
}

/* ---- ecc-19 .. ecc-21: dependency over the import graph ---- */

static void
chain_graph(struct graph *g, const char *const *paths, size_t n)
{
    graph_init(g);
    for (size_t i = 0; i < n; i++)
        graph_intern_file(g, paths[i]);
    for (size_t i = 0; i + 1 < n; i++) {
        uint32_t to = (uint32_t)(i + 1);
        graph_set_imports(g, (uint32_t)i, &to, 1);
    }
}

struct dep_case {
    const char *name;
    const char *chain[5];
    size_t nchain;
    const char *pa, *pb;
    bool edge;
    double dep, risk;
    enum advisory_level level;
};

static const struct dep_case dep_cases[] = {
    { "ecc-19", { "apps/web/page.js", "packages/core/util.js" }, 2,
        "packages/core/util.js", "apps/web/page.js", true, 1, 0.9,
        ADVISORY_RESOLUTION },
    { "ecc-19 without the edge",
        { "apps/web/page.js", "packages/core/util.js" }, 2,
        "packages/core/util.js", "apps/web/page.js", false, 0, 0,
        ADVISORY_CLEAR },
    { "ecc-20", { "a/x.js", "b/y.js", "c/z.js" }, 3, "a/x.js", "c/z.js", true,
        0.5, 0.45, ADVISORY_TRAFFIC },
    { "ecc-21", { "a/x.js", "b/y.js", "c/z.js", "d/w.js" }, 4, "a/x.js",
        "d/w.js", true, 0.25, 0.225, ADVISORY_CLEAR },
};

static void
test_dependency_ecc(void)
{
    struct risk_config cfg;
    risk_config_ecc(&cfg);
    for (size_t i = 0; i < sizeof(dep_cases) / sizeof(dep_cases[0]); i++) {
        const struct dep_case *c = &dep_cases[i];
        TEST_BEGIN(c->name);
        struct graph g;
        if (c->edge) {
            chain_graph(&g, c->chain, c->nchain);
        } else {
            graph_init(&g);
            for (size_t k = 0; k < c->nchain; k++)
                graph_intern_file(&g, c->chain[k]);
        }
        struct agent ag[2];
        agent_init(&ag[0], "A");
        agent_init(&ag[1], "B");
        edit(&ag[0], c->pa, 1, 10, 1);
        edit(&ag[1], c->pb, 1, 10, 1);
        struct risk_result r = score2(&cfg, &g, ag, 2, 0, 1);
        CHECK_NEAR(r.r[RISK_DEPENDENCY], c->dep, EPS);
        CHECK_NEAR(r.r[RISK_TREE], 0, EPS);
        CHECK_NEAR(r.risk, c->risk, 1e-6);
        CHECK_INT(advisory_classify(&cfg, r.risk), c->level);
        release_agents(ag, 2);
        graph_release(&g);
        TEST_END();
    }
}

/* ---- ecc-22 .. ecc-26: scans with right of way ---- */

static void
test_ecc22(void)
{
    struct risk_config cfg;
    risk_config_ecc(&cfg);
    struct agent ag[2];
    agent_init(&ag[0], "worker");
    agent_init(&ag[1], "lead");
    edit(&ag[0], "users.js", 1, 80, 1);
    edit(&ag[1], "users.js", 1, 80, 1);
    edit(&ag[1], "posts.js", 0, 0, 1);
    edit(&ag[1], "auth.js", 0, 0, 1);
    struct risk_result r = score2(&cfg, NULL, ag, 2, 0, 1);
    CHECK_NEAR(r.risk, 1, EPS);
    CHECK_INT(advisory_classify(&cfg, r.risk), ADVISORY_RESOLUTION);
    CHECK_INT(advisory_right_of_way(&ag[0], &ag[1]), 1); /* lead holds */
    CHECK_INT(advisory_right_of_way(&ag[1], &ag[0]), 0);
    release_agents(ag, 2);
}

static void
test_ecc23(void)
{
    struct risk_config cfg;
    risk_config_ecc(&cfg);
    struct agent ag[2];
    agent_init(&ag[0], "b");
    agent_init(&ag[1], "a");
    edit(&ag[0], "x/y.js", 1, 20, 1);
    edit(&ag[1], "x/y.js", 1, 20, 1);
    ag[0].started_at_ms = ag[1].started_at_ms = 1000;
    struct risk_result r = score2(&cfg, NULL, ag, 2, 0, 1);
    CHECK_INT(advisory_classify(&cfg, r.risk), ADVISORY_RESOLUTION);
    CHECK_INT(advisory_right_of_way(&ag[0], &ag[1]), 1); /* a holds */
    CHECK_INT(advisory_right_of_way(&ag[1], &ag[0]), 0);
    release_agents(ag, 2);
}

static void
test_ecc24(void)
{
    struct agent ag[2];
    agent_init(&ag[0], "a");
    agent_init(&ag[1], "z");
    edit(&ag[0], "x/y.js", 1, 20, 1);
    edit(&ag[1], "x/y.js", 1, 20, 1);
    ag[0].started_at_ms = 36300000;                      /* 10:05 */
    ag[1].started_at_ms = 36000000;                      /* 10:00 */
    CHECK_INT(advisory_right_of_way(&ag[0], &ag[1]), 1); /* z holds */
    CHECK_INT(advisory_right_of_way(&ag[1], &ag[0]), 0);
    release_agents(ag, 2);
}

static void
test_ecc26(void)
{
    struct risk_config cfg;
    risk_config_ecc(&cfg);
    struct agent ag[3];
    agent_init(&ag[0], "a");
    agent_init(&ag[1], "b");
    agent_init(&ag[2], "c");
    edit(&ag[0], "users.js", 1, 50, 1);
    edit(&ag[1], "users.js", 1, 50, 1);
    edit(&ag[2], "docs/guide.md", 0, 0, 1);
    struct risk_engine *e = risk_engine_new(&cfg, NULL, ag, 3);
    int advisories = 0;
    for (size_t i = 0; i < 3; i++)
        for (size_t j = i + 1; j < 3; j++) {
            struct risk_result r;
            risk_engine_score(e, i, j, &r);
            r.risk = risk_combine(&cfg, r.r);
            enum advisory_level l = advisory_classify(&cfg, r.risk);
            if (l != ADVISORY_CLEAR)
                advisories++;
            if (i == 0 && j == 1) {
                CHECK_NEAR(r.risk, 1, EPS);
                CHECK_INT(l, ADVISORY_RESOLUTION);
                CHECK_INT(advisory_right_of_way(&ag[0], &ag[1]), 0);
            } else {
                CHECK_NEAR(r.risk, 0, EPS);
            }
        }
    CHECK_INT(advisories, 1);
    risk_engine_free(e);
    release_agents(ag, 3);
}

/* ---- airspace defaults ---- */

static void
test_margin(void)
{
    struct risk_config def, ecc;
    risk_config_default(&def);
    risk_config_ecc(&ecc);
    struct agent ag[2];
    agent_init(&ag[0], "a");
    agent_init(&ag[1], "b");
    edit(&ag[0], "src/a.c", 10, 12, 1);
    edit(&ag[1], "src/a.c", 13, 15, 1);
    struct risk_result r = score2(&def, NULL, ag, 2, 0, 1);
    CHECK_NEAR(r.r[RISK_OVERLAP], 0.4, EPS); /* [9,13] vs [12,16] */
    r = score2(&ecc, NULL, ag, 2, 0, 1);
    CHECK_NEAR(r.r[RISK_OVERLAP], 0, 0);
    release_agents(ag, 2);
}

static void
test_whole_status(void)
{
    struct risk_config cfg;
    risk_config_default(&cfg);
    struct agent ag[2];
    agent_init(&ag[0], "a");
    agent_init(&ag[1], "b");
    struct ws_file *f = agent_add_file(&ag[0], "src/a.c", WS_DELETED);
    f->weight = 1;
    edit(&ag[1], "src/a.c", 500, 500, 0.5);
    struct risk_result r = score2(&cfg, NULL, ag, 2, 0, 1);
    CHECK_NEAR(r.r[RISK_OVERLAP], 0.5, EPS);
    release_agents(ag, 2);
}

static void
test_recency(void)
{
    struct risk_config cfg;
    risk_config_default(&cfg);
    CHECK_NEAR(risk_recency_weight(&cfg, 0), 1, EPS);
    CHECK_NEAR(risk_recency_weight(&cfg, -5), 1, EPS);
    CHECK_NEAR(risk_recency_weight(&cfg, 30 * 60 * 1000), 0.575, EPS);
    CHECK_NEAR(risk_recency_weight(&cfg, 60 * 60 * 1000), 0.3625, EPS);
    CHECK_NEAR(risk_recency_weight(&cfg, INT64_C(1) << 50), 0.15, EPS);
    risk_config_ecc(&cfg);
    CHECK_NEAR(risk_recency_weight(&cfg, 60 * 60 * 1000), 1, EPS);
}

static void
test_combine(void)
{
    struct risk_config cfg;
    risk_config_default(&cfg);
    double r[RISK_NCHANNELS] = { 0 };
    CHECK_NEAR(risk_combine(&cfg, r), 0, 0);
    r[RISK_TREE] = 1; /* measured, weight 0 by default */
    CHECK_NEAR(risk_combine(&cfg, r), 0, 0);
    r[RISK_ACTIVITY] = 1;
    CHECK_NEAR(risk_combine(&cfg, r), 0.3, EPS);
    r[RISK_ACTIVITY] = 0;
    cfg.weight[RISK_TREE] = 0.25;
    r[RISK_DEPENDENCY] = 1;
    CHECK_NEAR(risk_combine(&cfg, r), 1 - 0.1 * 0.75, EPS);
    r[RISK_MERGE] = 1;
    CHECK_NEAR(risk_combine(&cfg, r), 1, EPS);

    /* why: weight * value > 0, largest first, ties in channel order */
    enum risk_channel why[RISK_NCHANNELS];
    CHECK_INT(risk_why(&cfg, r, why), 3);
    CHECK_INT(why[0], RISK_MERGE);      /* 1 */
    CHECK_INT(why[1], RISK_DEPENDENCY); /* 0.9 */
    CHECK_INT(why[2], RISK_TREE);       /* 0.25 */
    r[RISK_OVERLAP] = 1; /* ties with merge: overlap comes first */
    r[RISK_ACTIVITY] = 0.5;
    cfg.weight[RISK_TREE] = 0; /* measured, not weighted: not a reason */
    CHECK_INT(risk_why(&cfg, r, why), 4);
    CHECK_INT(why[0], RISK_OVERLAP);
    CHECK_INT(why[1], RISK_MERGE);
    CHECK_INT(why[2], RISK_DEPENDENCY);
    CHECK_INT(why[3], RISK_ACTIVITY); /* 0.15 */
    double none[RISK_NCHANNELS] = { 0 };
    CHECK_INT(risk_why(&cfg, none, why), 0);
}

/*
 * A hub header defines foo (lines 1-5) and bar (10-15). caller.c imports it
 * and calls foo; other.c imports it and uses bar only. Agent A changes foo.
 */
static void
hub_graph(struct graph *g)
{
    graph_init(g);
    uint32_t hub = graph_intern_file(g, "lib/hub.h");
    uint32_t caller = graph_intern_file(g, "app/caller.c");
    uint32_t other = graph_intern_file(g, "app/other.c");
    uint32_t deep = graph_intern_file(g, "app/deep.c");
    graph_set_imports(g, caller, &hub, 1);
    graph_set_imports(g, other, &hub, 1);
    graph_set_imports(g, deep, &caller, 1);
    uint32_t foo = graph_intern_name(g, "foo", 3);
    uint32_t bar = graph_intern_name(g, "bar", 3);
    uint32_t main_ = graph_intern_name(g, "main", 4);
    struct graph_def hdefs[] = { { foo, 1, 5, GRAPH_SYM_FUNCTION },
        { bar, 10, 15, GRAPH_SYM_FUNCTION } };
    graph_set_symbols(g, hub, hdefs, 2, NULL, 0);
    struct graph_def cdef[] = { { main_, 1, 20, GRAPH_SYM_FUNCTION } };
    struct graph_ref cref[] = { { foo, 7 } };
    graph_set_symbols(g, caller, cdef, 1, cref, 1);
    struct graph_ref oref[] = { { bar, 7 } };
    graph_set_symbols(g, other, cdef, 1, oref, 1);
    graph_set_symbols(g, deep, cdef, 1, NULL, 0);
}

static void
test_sigma(void)
{
    struct risk_config cfg;
    risk_config_default(&cfg);
    struct graph g;
    hub_graph(&g);
    struct agent ag[4];
    agent_init(&ag[0], "A");
    agent_init(&ag[1], "caller");
    agent_init(&ag[2], "other");
    agent_init(&ag[3], "deep");
    edit(&ag[0], "lib/hub.h", 2, 3, 1);
    edit(&ag[1], "app/caller.c", 30, 31, 1);
    edit(&ag[2], "app/other.c", 30, 31, 1);
    edit(&ag[3], "app/deep.c", 30, 31, 1);
    struct risk_result rc = score2(&cfg, &g, ag, 4, 0, 1);
    struct risk_result ro = score2(&cfg, &g, ag, 4, 0, 2);
    struct risk_result rd = score2(&cfg, &g, ag, 4, 0, 3);
    CHECK_NEAR(rc.r[RISK_DEPENDENCY], 1, EPS);
    CHECK_NEAR(ro.r[RISK_DEPENDENCY], 0.3, EPS);
    /* deep.c reaches hub.h through caller.c, the first hop, which calls
     * foo: sigma 1, one extra hop */
    CHECK_NEAR(rd.r[RISK_DEPENDENCY], 0.5, EPS);
    CHECK(rc.risk > ro.risk);

    /* Explain names the chain and the symbol that gave sigma. */
    struct risk_engine *e = risk_engine_new(&cfg, &g, ag, 4);
    struct risk_evidence ev;
    risk_engine_explain(e, 3, 0, &ev);
    CHECK(ev.dep.present);
    CHECK_INT(ev.dep.up_agent, 0);
    CHECK_INT(ev.dep.down_agent, 3);
    CHECK_STR(ev.dep.upstream, "lib/hub.h");
    CHECK_STR(ev.dep.downstream, "app/deep.c");
    CHECK_INT(ev.dep.nchain, 3);
    if (ev.dep.nchain == 3) {
        CHECK_STR(ev.dep.chain[0], "app/deep.c");
        CHECK_STR(ev.dep.chain[1], "app/caller.c");
        CHECK_STR(ev.dep.chain[2], "lib/hub.h");
    }
    CHECK_NEAR(ev.dep.sigma, 1, 0);
    CHECK_INT(ev.dep.nsymbols, 1);
    if (ev.dep.nsymbols)
        CHECK_STR(ev.dep.symbols[0], "foo");
    risk_evidence_release(&ev);
    risk_engine_explain(e, 0, 2, &ev);
    CHECK_NEAR(ev.dep.sigma, 0.3, EPS);
    CHECK_INT(ev.dep.nsymbols, 0);
    risk_evidence_release(&ev);
    risk_engine_free(e);

    /* Symbols off: sigma 1 everywhere. */
    cfg.use_symbols = false;
    ro = score2(&cfg, &g, ag, 4, 0, 2);
    CHECK_NEAR(ro.r[RISK_DEPENDENCY], 1, EPS);
    /* An unparsed upstream file gives no evidence: sigma 1. */
    risk_config_default(&cfg);
    uint32_t hub = graph_find_file(&g, "lib/hub.h");
    graph_set_symbols(&g, hub, NULL, 0, NULL, 0);
    ro = score2(&cfg, &g, ag, 4, 0, 2);
    CHECK_NEAR(ro.r[RISK_DEPENDENCY], 1, EPS);
    release_agents(ag, 4);
    graph_release(&g);
}

/* A pure insertion after line k (as the git layer records it). */
static void
insert(struct agent *a, const char *path, uint32_t k)
{
    struct ws_file *f = agent_add_file(a, path, WS_MODIFIED);
    range_set_add_insertion(&f->ranges, k);
}

/*
 * Lines inserted after a definition's last line, or before its first, are
 * no change to it: only an insertion that lands inside a body is. In the
 * hub graph foo spans 1-5 and bar 10-15; caller.c calls foo.
 */
static void
test_insertion_dependency(void)
{
    struct risk_config cfg;
    risk_config_default(&cfg);
    struct graph g;
    hub_graph(&g);
    static const struct {
        const char *name;
        uint32_t k;
        double dep;
    } cases[] = {
        { "at the top", 0, 0.3 },
        { "after foo's first line", 1, 1 },
        { "inside foo", 4, 1 },
        { "after foo's last line", 5, 0.3 },
        { "before bar", 9, 0.3 },
        { "after bar", 15, 0.3 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        TEST_BEGIN(cases[i].name);
        struct agent ag[2];
        agent_init(&ag[0], "A");
        agent_init(&ag[1], "caller");
        insert(&ag[0], "lib/hub.h", cases[i].k);
        edit(&ag[1], "app/caller.c", 30, 31, 1);
        struct risk_result r = score2(&cfg, &g, ag, 2, 0, 1);
        CHECK_NEAR(r.r[RISK_DEPENDENCY], cases[i].dep, EPS);
        release_agents(ag, 2);
        TEST_END();
    }
    graph_release(&g);
}

/* The same for the overlap and symbol channels. */
static void
test_insertion_symbols(void)
{
    struct risk_config cfg;
    risk_config_default(&cfg);
    struct graph g;
    hub_graph(&g);

    /* Overlap keeps the recorded line: after 5 collides with line 6. */
    struct agent ag[2];
    agent_init(&ag[0], "A");
    agent_init(&ag[1], "B");
    insert(&ag[0], "lib/hub.h", 5);
    edit(&ag[1], "lib/hub.h", 6, 6, 1);
    struct risk_result r = score2(&cfg, &g, ag, 2, 0, 1);
    CHECK_NEAR(r.r[RISK_OVERLAP], 2.0 / 3, EPS); /* [4,6] vs [5,7] */
    release_agents(ag, 2);
    graph_release(&g);

    /* One file: helper() at 1-10, caller() at 200-230 calling helper on
     * line 210. A changes helper. Lines inserted after line 210 change
     * caller (a use inside it) but not line 210 itself; lines appended
     * after caller change nothing A uses. */
    graph_init(&g);
    uint32_t sf = graph_intern_file(&g, "src/s.c");
    uint32_t helper = graph_intern_name(&g, "helper", 6);
    uint32_t caller = graph_intern_name(&g, "caller", 6);
    struct graph_def defs[] = { { helper, 1, 10, GRAPH_SYM_FUNCTION },
        { caller, 200, 230, GRAPH_SYM_FUNCTION } };
    struct graph_ref refs[] = { { helper, 210 } };
    graph_set_symbols(&g, sf, defs, 2, refs, 1);
    struct agent bg[3];
    agent_init(&bg[0], "A");
    agent_init(&bg[1], "inside");
    agent_init(&bg[2], "after");
    edit(&bg[0], "src/s.c", 3, 4, 1);
    insert(&bg[1], "src/s.c", 210);
    insert(&bg[2], "src/s.c", 230);
    r = score2(&cfg, &g, bg, 3, 0, 1);
    CHECK_NEAR(r.r[RISK_SYMBOL], 0.6, EPS); /* enclosing, not on the line */
    r = score2(&cfg, &g, bg, 3, 0, 2);
    CHECK_NEAR(r.r[RISK_SYMBOL], 0, 0);
    release_agents(bg, 3);
    graph_release(&g);
}

/*
 * One file: helper() at lines 1-10, caller() at 200-230 calling helper at
 * line 210, other() at 290-310 calling nothing. A changes helper.
 */
static void
test_symbol_same_file(void)
{
    struct risk_config cfg;
    risk_config_default(&cfg);
    struct graph g;
    graph_init(&g);
    uint32_t s = graph_intern_file(&g, "src/s.c");
    uint32_t u = graph_intern_file(&g, "src/u.c");
    graph_set_imports(&g, u, &s, 1);
    uint32_t helper = graph_intern_name(&g, "helper", 6);
    uint32_t caller = graph_intern_name(&g, "caller", 6);
    uint32_t other = graph_intern_name(&g, "other", 5);
    struct graph_def defs[] = { { helper, 1, 10, GRAPH_SYM_FUNCTION },
        { caller, 200, 230, GRAPH_SYM_FUNCTION },
        { other, 290, 310, GRAPH_SYM_FUNCTION } };
    struct graph_ref refs[] = { { helper, 210 } };
    graph_set_symbols(&g, s, defs, 3, refs, 1);
    struct graph_def udefs[] = { { other, 1, 9, GRAPH_SYM_FUNCTION } };
    struct graph_ref urefs[] = { { helper, 7 } };
    graph_set_symbols(&g, u, udefs, 1, urefs, 1);

    struct agent ag[5];
    agent_init(&ag[0], "A");
    agent_init(&ag[1], "calls");
    agent_init(&ag[2], "inside");
    agent_init(&ag[3], "unrelated");
    agent_init(&ag[4], "remote");
    edit(&ag[0], "src/s.c", 3, 4, 1);
    edit(&ag[1], "src/s.c", 210, 210, 1);
    edit(&ag[2], "src/s.c", 205, 205, 1);
    edit(&ag[3], "src/s.c", 300, 301, 1);
    edit(&ag[4], "src/u.c", 7, 7, 0.5);
    struct risk_result rb = score2(&cfg, &g, ag, 5, 0, 1);
    struct risk_result ri = score2(&cfg, &g, ag, 5, 0, 2);
    struct risk_result ru = score2(&cfg, &g, ag, 5, 0, 3);
    struct risk_result rr = score2(&cfg, &g, ag, 5, 0, 4);
    CHECK_NEAR(rb.r[RISK_OVERLAP], 0, 0);
    CHECK_NEAR(rb.r[RISK_SYMBOL], 1, EPS);
    CHECK_NEAR(ri.r[RISK_SYMBOL], 0.6, EPS);
    CHECK_NEAR(ru.r[RISK_SYMBOL], 0, 0);
    CHECK_NEAR(rr.r[RISK_SYMBOL], 0.5, EPS); /* one hop, w 0.5 */
    CHECK(rb.risk > ru.risk);
    CHECK_NEAR(ru.r[RISK_TREE], 1, EPS);
    CHECK_NEAR(ru.risk, 0, 0); /* tree only, weight 0 */

    struct risk_engine *e = risk_engine_new(&cfg, &g, ag, 5);
    struct risk_evidence ev;
    risk_engine_explain(e, 1, 0, &ev);
    CHECK_INT(ev.nsymbols, 1);
    if (ev.nsymbols) {
        CHECK_STR(ev.symbols[0].name, "helper");
        CHECK_STR(ev.symbols[0].def_path, "src/s.c");
        CHECK_INT(ev.symbols[0].def_agent, 0);
        CHECK_INT(ev.symbols[0].use_agent, 1);
        CHECK_INT(ev.symbols[0].use_line, 210);
        CHECK(!ev.symbols[0].enclosing);
        CHECK_NEAR(ev.symbols[0].value, 1, EPS);
    }
    CHECK_INT(ev.ncontested, 0);
    CHECK_STR(ev.tree_a, "src/s.c");
    CHECK_NEAR(ev.tree_distance, 0, 0);
    risk_evidence_release(&ev);
    risk_engine_free(e);
    release_agents(ag, 5);
    graph_release(&g);
}

static void
test_intent(void)
{
    struct risk_config cfg;
    risk_config_default(&cfg);
    struct agent ag[4];
    agent_init(&ag[0], "a");
    agent_init(&ag[1], "b");
    agent_init(&ag[2], "c");
    agent_init(&ag[3], "d");
    agent_add_intent(&ag[0], "src/auth/*");
    edit(&ag[1], "src/auth/login.ts", 3, 4, 1);
    agent_add_intent(&ag[2], "src/**/*.ts");
    agent_add_intent(&ag[3], "docs/*");
    struct risk_result r = score2(&cfg, NULL, ag, 4, 0, 1);
    CHECK_NEAR(r.r[RISK_INTENT], 1, 0);
    CHECK_NEAR(r.risk, 0.8, EPS);
    r = score2(&cfg, NULL, ag, 4, 0, 2);
    CHECK_NEAR(r.r[RISK_INTENT], 1, 0); /* intents overlap */
    r = score2(&cfg, NULL, ag, 4, 0, 3);
    CHECK_NEAR(r.r[RISK_INTENT], 0, 0);
    r = score2(&cfg, NULL, ag, 4, 1, 3);
    CHECK_NEAR(r.r[RISK_INTENT], 0, 0);

    struct risk_engine *e = risk_engine_new(&cfg, NULL, ag, 4);
    struct risk_evidence ev;
    risk_engine_explain(e, 1, 0, &ev);
    CHECK_INT(ev.nintents, 1);
    if (ev.nintents) {
        CHECK_INT(ev.intents[0].agent, 0);
        CHECK_STR(ev.intents[0].glob, "src/auth/*");
        CHECK_STR(ev.intents[0].path, "src/auth/login.ts");
        CHECK(!ev.intents[0].path_is_intent);
    }
    risk_evidence_release(&ev);
    risk_engine_free(e);
    release_agents(ag, 4);
}

/* Plain intent paths are paths from the top: a.c and z.md never meet,
 * a.c and the top's a.c do, src/a.c is another file. */
static void
test_intent_plain_paths(void)
{
    struct risk_config cfg;
    risk_config_default(&cfg);
    struct agent ag[4];
    agent_init(&ag[0], "a");
    agent_init(&ag[1], "b");
    agent_init(&ag[2], "c");
    agent_init(&ag[3], "d");
    agent_add_intent(&ag[0], "a.c");
    agent_add_intent(&ag[1], "z.md");
    edit(&ag[2], "src/a.c", 3, 4, 1);
    agent_add_intent(&ag[3], "a.c");
    struct risk_result r = score2(&cfg, NULL, ag, 4, 0, 1);
    CHECK_NEAR(r.r[RISK_INTENT], 0, 0);
    r = score2(&cfg, NULL, ag, 4, 0, 2);
    CHECK_NEAR(r.r[RISK_INTENT], 0, 0);
    r = score2(&cfg, NULL, ag, 4, 0, 3);
    CHECK_NEAR(r.r[RISK_INTENT], 1, 0);
    release_agents(ag, 4);
}

static void
test_contested_evidence(void)
{
    struct risk_config cfg;
    risk_config_default(&cfg);
    struct agent ag[2];
    agent_init(&ag[0], "a");
    agent_init(&ag[1], "b");
    edit(&ag[0], "src/a.c", 10, 12, 1);
    edit(&ag[0], "src/z.c", 0, 0, 1);
    edit(&ag[1], "src/a.c", 13, 15, 1);
    edit(&ag[1], "src/z.c", 4, 4, 1);
    agent_sort(&ag[0]);
    agent_sort(&ag[1]);
    struct risk_engine *e = risk_engine_new(&cfg, NULL, ag, 2);
    struct risk_evidence ev;
    risk_engine_explain(e, 0, 1, &ev);
    CHECK_INT(ev.ncontested, 2);
    if (ev.ncontested == 2) {
        CHECK_STR(ev.contested[0].path, "src/a.c");
        CHECK(!ev.contested[0].whole);
        CHECK_INT(ev.contested[0].ranges.n, 1);
        CHECK_INT(ev.contested[0].ranges.v[0].start, 12);
        CHECK_INT(ev.contested[0].ranges.v[0].end, 13);
        CHECK_STR(ev.contested[1].path, "src/z.c");
        CHECK(ev.contested[1].whole);
    }
    CHECK_NEAR(risk_combine(&cfg, ev.result.r), 1, EPS);
    CHECK(!ev.dep.present);
    risk_evidence_release(&ev);
    risk_engine_free(e);
    release_agents(ag, 2);
}

static void
test_config_set(void)
{
    struct risk_config c, before;
    risk_config_default(&c);
    struct as_err e;
    CHECK_INT(risk_config_set(&c, "weight.overlap", "0.5", &e), 0);
    CHECK_NEAR(c.weight[RISK_OVERLAP], 0.5, 0);
    CHECK_INT(risk_config_set(&c, "margin", "3", &e), 0);
    CHECK_INT(c.margin, 3);
    CHECK_INT(risk_config_set(&c, "cap", "4", &e), 0);
    CHECK_INT(c.cap, 4);
    CHECK_INT(risk_config_set(&c, "dwell_ms", "1000", &e), 0);
    CHECK_INT(c.dwell_ms, 1000);
    CHECK_INT(risk_config_set(&c, "symbols", "off", &e), 0);
    CHECK(!c.use_symbols);
    CHECK_INT(risk_config_set(&c, "tau.traffic", "0.4", &e), 0);
    CHECK_NEAR(c.tau_ta, 0.4, 0);
    CHECK_INT(risk_config_set(&c, "closure.window", "8", &e), 0);
    CHECK_INT(c.closure_window, 8);
    CHECK_INT(risk_config_set(&c, "activity.k", "75.5", &e), 0);
    CHECK_NEAR(c.activity_k, 75.5, 0);
    before = c;
    struct {
        const char *key, *value, *msg;
    } bad[] = {
        { "weight.nope", "1", "unknown model key 'weight.nope'" },
        { "margn", "1", "unknown model key 'margn'" },
        { "gamma", "0", "bad value '0' for 'gamma'" },
        { "gamma", "1.5", "bad value '1.5' for 'gamma'" },
        { "margin", "-1", "bad value '-1' for 'margin'" },
        { "margin", "2.5", "bad value '2.5' for 'margin'" },
        { "cap", "0", "bad value '0' for 'cap'" },
        { "weight.tree", "abc", "bad value 'abc' for 'weight.tree'" },
        { "weight.tree", "", "bad value '' for 'weight.tree'" },
        { "weight.tree", "nan", "bad value 'nan' for 'weight.tree'" },
        { "symbols", "maybe", "bad value 'maybe' for 'symbols'" },
        { "recency.half_life_ms", "0", "bad value '0'" },
        { "activity.k", "0",
            "bad value '0' for 'activity.k': want a number "
            "in (0, 1e+12]" },
        { "activity.k", "-3", "bad value '-3' for 'activity.k'" },
        { "activity.k", "1e13", "bad value '1e13' for 'activity.k'" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        e.msg[0] = '\0';
        CHECK_INT(risk_config_set(&c, bad[i].key, bad[i].value, &e), AS_EINVAL);
        CHECK(strstr(e.msg, bad[i].msg) != NULL);
        CHECK(!memcmp(&c, &before, sizeof(c)));
    }
    risk_config_default(&c);
    CHECK_INT(risk_config_check(&c, &e), 0);
    c.leave_ra = 0.8;
    CHECK_INT(risk_config_check(&c, &e), AS_EINVAL);
    CHECK(strstr(e.msg, "leave.resolution") != NULL);
    const char *above = NULL, *below = NULL;
    double va = 0, vb = 0;
    CHECK(risk_config_misorder(&c, &above, &va, &below, &vb));
    CHECK_STR(above, "leave.resolution");
    CHECK_STR(below, "tau.resolution");
    CHECK_NEAR(va, 0.8, 1e-12);
    CHECK_NEAR(vb, 0.7, 1e-12);
    risk_config_default(&c);
    CHECK(!risk_config_misorder(&c, &above, &va, &below, &vb));
    c.tau_ta = 0.75;
    CHECK(risk_config_misorder(&c, &above, &va, &below, &vb));
    CHECK_STR(above, "tau.traffic");
    CHECK_STR(below, "tau.resolution");

    enum risk_channel ch;
    CHECK_INT(risk_channel_parse("symbol", &ch), 0);
    CHECK_INT(ch, RISK_SYMBOL);
    CHECK_INT(risk_channel_parse("bogus", &ch), AS_EINVAL);
    CHECK_STR(risk_channel_name(RISK_TREE), "tree");
    for (int i = 0; i < RISK_NCHANNELS; i++) {
        char key[64];
        snprintf(key, sizeof(key), "weight.%s",
            risk_channel_name((enum risk_channel)i));
        CHECK_INT(risk_config_set(&c, key, "0.25", &e), 0);
        CHECK_NEAR(c.weight[i], 0.25, 0);
    }
}

static void
test_ecc_config(void)
{
    struct risk_config c;
    risk_config_ecc(&c);
    CHECK_INT(c.margin, 0);
    CHECK(!c.use_symbols);
    CHECK_NEAR(c.weight[RISK_OVERLAP], 1, 0);
    CHECK_NEAR(c.weight[RISK_DEPENDENCY], 0.9, 0);
    CHECK_NEAR(c.weight[RISK_TREE], 0.25, 0);
    CHECK_NEAR(c.weight[RISK_MERGE] + c.weight[RISK_SYMBOL] +
                   c.weight[RISK_INTENT] + c.weight[RISK_CONTEXT] +
                   c.weight[RISK_TOPIC],
        0, 0);
    CHECK_NEAR(c.gamma, 0.5, 0);
    CHECK_INT(c.cap, 6);
}

/* Many agents over a large graph: scores stay in range and symmetric. */
static void
test_scale(void)
{
    struct risk_config cfg;
    risk_config_default(&cfg);
    struct graph g;
    graph_init(&g);
    char path[64];
    for (int i = 0; i < 5000; i++) {
        snprintf(path, sizeof(path), "d%d/s%d/f%d.c", i % 17, i % 5, i);
        graph_intern_file(&g, path);
    }
    for (uint32_t i = 0; i < 5000; i++) {
        uint32_t t[3] = { (i * 7 + 1) % 5000, (i * 13 + 2) % 5000, 0 };
        graph_set_imports(&g, i, t, 3);
    }
    enum { NA = 64, NF = 20 };
    struct agent ag[NA];
    for (int a = 0; a < NA; a++) {
        snprintf(path, sizeof(path), "agent%d", a);
        agent_init(&ag[a], path);
        for (int k = 0; k < NF; k++) {
            int f = (a * 37 + k * 101) % 5000;
            snprintf(path, sizeof(path), "d%d/s%d/f%d.c", f % 17, f % 5, f);
            edit(&ag[a], path, (uint32_t)(k + 1), (uint32_t)(k + 5), 0.9);
        }
        agent_sort(&ag[a]);
    }
    struct risk_engine *e = risk_engine_new(&cfg, &g, ag, NA);
    int bad = 0;
    for (size_t a = 0; a < NA; a++)
        for (size_t b = a + 1; b < NA; b++) {
            struct risk_result x, y;
            risk_engine_score(e, a, b, &x);
            risk_engine_score(e, b, a, &y);
            x.risk = risk_combine(&cfg, x.r);
            y.risk = risk_combine(&cfg, y.r);
            if (x.risk < 0 || x.risk > 1 || x.risk != y.risk)
                bad++;
        }
    CHECK_INT(bad, 0);
    risk_engine_free(e);
    release_agents(ag, NA);
    graph_release(&g);
}

/* Engines built one after another with a prep cache (replay's walk: one
 * side moves at a time) score exactly as engines built afresh, and the
 * cache is used. */
static void
test_prep_cache(void)
{
    struct risk_config cfg;
    risk_config_default(&cfg);
    struct graph g;
    graph_init(&g);
    char path[64];
    enum { NF = 400, NN = 8 };
    uint32_t names[NN];
    for (int k = 0; k < NN; k++) {
        snprintf(path, sizeof(path), "n%d", k);
        names[k] = graph_intern_name(&g, path, strlen(path));
    }
    for (int i = 0; i < NF; i++) {
        snprintf(path, sizeof(path), "d%d/f%d.js", i % 7, i);
        graph_intern_file(&g, path);
    }
    for (uint32_t i = 0; i < NF; i++) {
        uint32_t t[2] = { (i * 7 + 1) % NF, (i * 13 + 2) % NF };
        graph_set_imports(&g, i, t, 2);
        /* two functions and a class with a method; uses of two names */
        struct graph_def defs[] = {
            { names[i % NN], 1, 10, GRAPH_SYM_FUNCTION },
            { names[(i + 1) % NN], 12, 40, GRAPH_SYM_TYPE },
            { names[(i + 2) % NN], 15, 25, GRAPH_SYM_METHOD },
            { names[(i + 3) % NN], 45, 60, GRAPH_SYM_FUNCTION },
        };
        struct graph_ref refs[] = { { names[(i * 5 + 7) % NN], 5 },
            { names[(i * 3 + 11) % NN], 50 } };
        if (i % 5)
            graph_set_symbols(&g, i, defs, 4, refs, 2);
    }
    struct risk_prep_cache *pc = risk_prep_cache_new();
    struct agent ag[2];
    int bad = 0;
    size_t nhits = 0;
    for (int step = 0; step < 40; step++) {
        /* side step % 2 moves: files (a, b, ...) with ranges that change
         * now and then; the other keeps its files */
        for (int s = 0; s < 2; s++) {
            agent_init(&ag[s], s ? "b" : "a");
            int upto = s == step % 2 ? step : step - 1;
            for (int k = 0; k <= (upto < 0 ? 0 : upto) % 9 + 3; k++) {
                int f = (s * 7 + k * 31) % NF;
                snprintf(path, sizeof(path), "d%d/f%d.js", f % 7, f);
                uint32_t lo = (uint32_t)(1 + (k * 11 + upto / 3) % 55);
                edit(&ag[s], path, k % 4 ? lo : 0, lo + 3,
                    0.3 + 0.07 * k + 0.01 * (upto % 7));
            }
            agent_sort(&ag[s]);
        }
        struct risk_engine *e1 = risk_engine_new(&cfg, &g, ag, 2);
        struct risk_engine *e2 = risk_engine_new_cached(&cfg, &g, ag, 2, 1, pc);
        struct risk_result x, y;
        risk_engine_score(e1, 0, 1, &x);
        risk_engine_score(e2, 0, 1, &y);
        for (int c = 0; c < RISK_NCHANNELS; c++)
            if (x.r[c] != y.r[c])
                bad++;
        /* and the evidence behind them: every symbol hit, the chain */
        struct risk_evidence v1, v2;
        risk_engine_explain(e1, 0, 1, &v1);
        risk_engine_explain(e2, 0, 1, &v2);
        if (v1.nsymbols != v2.nsymbols || v1.dep.value != v2.dep.value ||
            v1.dep.sigma != v2.dep.sigma || v1.dep.nchain != v2.dep.nchain)
            bad++;
        for (size_t k = 0; k < v1.nsymbols && k < v2.nsymbols; k++)
            if (strcmp(v1.symbols[k].name, v2.symbols[k].name) ||
                strcmp(v1.symbols[k].use_path, v2.symbols[k].use_path) ||
                v1.symbols[k].use_line != v2.symbols[k].use_line ||
                v1.symbols[k].enclosing != v2.symbols[k].enclosing ||
                v1.symbols[k].value != v2.symbols[k].value)
                bad++;
        nhits += v1.nsymbols;
        risk_evidence_release(&v1);
        risk_evidence_release(&v2);
        risk_engine_free(e1);
        risk_engine_free(e2);
        release_agents(ag, 2);
    }
    CHECK_INT(bad, 0);
    CHECK(nhits > 0); /* the symbol channel was exercised */
    size_t hits, misses;
    risk_prep_cache_stats(pc, &hits, &misses);
    CHECK(hits > misses);
    CHECK(misses > 0);
    risk_prep_cache_free(pc);
    graph_release(&g);
}

int
main(void)
{
    test_tree_distance();
    test_pairs_ecc();
    test_dependency_ecc();
    TEST_RUN("ecc-22", test_ecc22);
    TEST_RUN("ecc-23", test_ecc23);
    TEST_RUN("ecc-24", test_ecc24);
    TEST_RUN("ecc-26", test_ecc26);
    TEST_RUN("margin 1 makes adjacent edits collide", test_margin);
    TEST_RUN("whole-file status gives oc 1", test_whole_status);
    TEST_RUN("recency weights", test_recency);
    TEST_RUN("noisy-or", test_combine);
    TEST_RUN("sigma: caller vs mere importer of a hub", test_sigma);
    TEST_RUN("symbol channel in one file and across", test_symbol_same_file);
    test_insertion_dependency();
    TEST_RUN("insertions: overlap and symbol", test_insertion_symbols);
    TEST_RUN("intent channel with globs", test_intent);
    TEST_RUN(
        "intent channel: plain paths from the top", test_intent_plain_paths);
    TEST_RUN("contested evidence", test_contested_evidence);
    TEST_RUN("config keys and errors", test_config_set);
    TEST_RUN("ecc-compatible settings", test_ecc_config);
    TEST_RUN("64 agents over 5000 files", test_scale);
    TEST_RUN("engines with a prep cache score as without", test_prep_cache);
    return test_done();
}

/*
 * test_scan_threads.c - scoring on two threads (engine set-up and pairs)
 * gives exactly what one thread gives, on a generated graph and agents
 * that exercise every graph channel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/scan.h"
#include "util/xalloc.h"
#include "test.h"
#include "util/banned.h"

#define NFILES 400
#define NNAMES 60

static uint64_t rng = 12345;

static uint32_t
below(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static void
make_graph(struct graph *g)
{
    graph_init(g);
    char path[64];
    for (uint32_t i = 0; i < NFILES; i++) {
        snprintf(path, sizeof(path), "d%u/e%u/f%u.c", i % 7, i % 5, i);
        graph_intern_file(g, path);
    }
    uint32_t names[NNAMES];
    for (uint32_t k = 0; k < NNAMES; k++) {
        char nm[16];
        snprintf(nm, sizeof(nm), "sym%u", k);
        names[k] = graph_intern_name(g, nm, strlen(nm));
    }
    for (uint32_t i = 0; i < NFILES; i++) {
        uint32_t out[4];
        for (int k = 0; k < 4; k++)
            out[k] = below(NFILES);
        graph_set_imports(g, i, out, 4);
        struct graph_def defs[3];
        struct graph_ref refs[12];
        for (uint32_t k = 0; k < 3; k++) {
            defs[k].name = names[below(NNAMES)];
            defs[k].start = 1 + 40 * k;
            defs[k].end = 30 + 40 * k;
            defs[k].kind = 0;
        }
        for (uint32_t k = 0; k < 12; k++) {
            refs[k].name = names[below(NNAMES)];
            refs[k].line = 1 + 10 * k;
        }
        graph_set_symbols(g, i, defs, 3, refs, 12);
    }
}

static struct agent *
make_agents(const struct graph *g, size_t n)
{
    struct agent *v = xcalloc(n, sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        char id[32];
        snprintf(id, sizeof(id), "a%02zu", i);
        agent_init(&v[i], id);
        v[i].started_at_ms = (int64_t)(1000 + i);
        for (int k = 0; k < 8; k++) {
            struct ws_file *f = agent_add_file(
                &v[i], g->files[below(NFILES)].path, WS_MODIFIED);
            uint32_t s = 1 + below(120);
            range_set_add(&f->ranges, s, s + below(15));
        }
        agent_sort(&v[i]);
    }
    return v;
}

static void
score(struct scan_report *r, struct graph *g, struct agent *agents, size_t n,
    unsigned threads)
{
    memset(r, 0, sizeof(*r));
    risk_config_default(&r->cfg);
    r->agents = agents;
    r->nagents = n;
    r->graph = *g;
    r->have_graph = true;
    r->threads = threads;
    scan_score(r, NULL, NULL);
}

static void
test_same_results(void)
{
    struct graph g;
    make_graph(&g);
    size_t n = 40; /* 780 pairs: enough to use the second thread */
    struct agent *agents = make_agents(&g, n);
    struct scan_report one, two;
    score(&one, &g, agents, n, 1);
    score(&two, &g, agents, n, 2);
    CHECK_INT(one.npairs, two.npairs);
    size_t nonzero = 0;
    bool same = true;
    for (size_t k = 0; k < one.npairs; k++) {
        const struct scan_pair *p = &one.pairs[k], *q = &two.pairs[k];
        same = same && p->a == q->a && p->b == q->b && p->level == q->level &&
               p->hold == q->hold && !memcmp(&p->res, &q->res, sizeof(p->res));
        nonzero += p->res.r[RISK_DEPENDENCY] > 0 || p->res.r[RISK_SYMBOL] > 0;
    }
    CHECK(same);
    CHECK(nonzero > 10); /* the graph channels were exercised */
    CHECK_INT(one.ntraffic, two.ntraffic);
    CHECK_INT(one.nresolution, two.nresolution);
    one.agents = two.agents = NULL;
    one.nagents = two.nagents = 0;
    one.have_graph = two.have_graph = false;
    scan_report_release(&one);
    scan_report_release(&two);
    for (size_t i = 0; i < n; i++)
        agent_release(&agents[i]);
    free(agents);
    graph_release(&g);
}

int
main(void)
{
    TEST_RUN("two threads score exactly as one", test_same_results);
    return test_done();
}

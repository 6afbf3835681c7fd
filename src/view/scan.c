#include "view/scan.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/pair.h"
#include "util/xalloc.h"
#include "util/banned.h"

static int
cmp_pair(const void *x, const void *y)
{
    const struct scan_pair *p = x, *q = y;
    if (p->level != q->level)
        return p->level > q->level ? -1 : 1;
    if (p->res.risk != q->res.risk)
        return p->res.risk > q->res.risk ? -1 : 1;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

struct score_part {
    struct scan_report *r;
    size_t first, step;
};

/* What pair p is scored from (scan has no context or topic input). */
static struct pair_input
pair_in(struct scan_report *r, const struct scan_pair *p, scan_merge_fn *merge,
    void *ctx)
{
    return (struct pair_input){ .engine = r->engine,
        .cfg = &r->cfg,
        .ea = p->a,
        .eb = p->b,
        .a = &r->agents[p->a],
        .b = &r->agents[p->b],
        .merge = merge,
        .merge_ctx = ctx,
        .forward = r->forward,
        .reach_a = r->reach ? &r->reach[p->a] : NULL,
        .reach_b = r->reach ? &r->reach[p->b] : NULL,
        .lanes_a = r->lanes ? &r->lanes[p->a] : NULL,
        .lanes_b = r->lanes ? &r->lanes[p->b] : NULL };
}

/* The engine's part of pairs first, first + step, ... (it is read-only
 * here). */
static void *
score_run(void *arg)
{
    struct score_part *sp = arg;
    struct scan_report *r = sp->r;
    for (size_t k = sp->first; k < r->npairs; k += sp->step) {
        struct scan_pair *p = &r->pairs[k];
        struct pair_input in = pair_in(r, p, NULL, NULL);
        struct pair_score ps;
        pair_channels(&in, &ps);
        p->res = ps.res;
    }
    return NULL;
}

static void
score_all(struct scan_report *r)
{
    unsigned t = r->threads ? r->threads : 1;
    if (r->npairs < 256) /* not worth a thread */
        t = 1;
    struct score_part *sp = xcalloc(t, sizeof(*sp));
    pthread_t *tid = xcalloc(t, sizeof(*tid));
    unsigned started = 1;
    for (unsigned i = 0; i < t; i++) {
        sp[i].r = r;
        sp[i].first = i;
        sp[i].step = t;
    }
    for (unsigned i = 1; i < t; i++) {
        if (pthread_create(&tid[i], NULL, score_run, &sp[i]))
            break;
        started++;
    }
    score_run(&sp[0]);
    for (unsigned i = 1; i < started; i++)
        pthread_join(tid[i], NULL);
    for (unsigned i = started; i < t; i++)
        score_run(&sp[i]);
    free(tid);
    free(sp);
}

void
scan_score(struct scan_report *r, scan_merge_fn *merge, void *ctx)
{
    size_t n = r->nagents;
    r->engine = risk_engine_new_mt(&r->cfg, r->have_graph ? &r->graph : NULL,
        r->agents, n, r->threads ? r->threads : 1);
    r->npairs = n < 2 ? 0 : n * (n - 1) / 2;
    r->pairs = xcalloc(r->npairs ? r->npairs : 1, sizeof(*r->pairs));
    r->merge_channel = merge != NULL;
    if (r->forward && r->cfg.weight[RISK_FORWARD] > 0 && n) {
        r->reach = xcalloc(n, sizeof(*r->reach));
        for (size_t i = 0; i < n; i++)
            forward_reach_init(&r->reach[i], r->forward, &r->agents[i],
                r->cfg.forward_min_rate);
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++, k++) {
            r->pairs[k].a = (uint32_t)i;
            r->pairs[k].b = (uint32_t)j;
        }
    score_all(r);
    for (k = 0; k < r->npairs; k++) {
        struct scan_pair *p = &r->pairs[k];
        struct pair_input in = pair_in(r, p, merge, ctx);
        struct pair_score ps = { .res = p->res };
        /* an undecided merge leaves the channel 0 */
        int rc = pair_finish(&in, &ps);
        p->res = ps.res;
        p->merge_checked = ps.merge_checked;
        p->merge_clean =
            ps.merge_checked && rc == 0 && ps.res.r[RISK_MERGE] == 0;
        p->merge_paths = ps.merge_paths;
        p->nmerge_paths = ps.nmerge_paths;
        p->level = pair_level(&r->cfg, p->res.risk);
        p->hold = ps.hold == 0 ? p->a : p->b;
        p->steer = ps.hold == 0 ? p->b : p->a;
        if (p->level == ADVISORY_TRAFFIC)
            r->ntraffic++;
        else if (p->level == ADVISORY_RESOLUTION)
            r->nresolution++;
    }
    qsort(r->pairs, r->npairs, sizeof(*r->pairs), cmp_pair);
}

void
scan_report_skip(struct scan_report *r, const char *worktree,
    const char *branch, const char *reason)
{
    r->skipped = xrealloc(r->skipped, (r->nskipped + 1) * sizeof(*r->skipped));
    struct scan_skipped *s = &r->skipped[r->nskipped++];
    s->worktree = worktree ? xstrdup(worktree) : NULL;
    s->branch = branch ? xstrdup(branch) : NULL;
    s->reason = xstrdup(reason);
}

void
scan_report_release(struct scan_report *r)
{
    for (size_t i = 0; i < r->npairs; i++) {
        for (size_t j = 0; j < r->pairs[i].nmerge_paths; j++)
            free(r->pairs[i].merge_paths[j]);
        free(r->pairs[i].merge_paths);
    }
    free(r->pairs);
    if (r->engine)
        risk_engine_free(r->engine);
    for (size_t i = 0; r->reach && i < r->nagents; i++)
        forward_reach_release(&r->reach[i]);
    free(r->reach);
    free(r->lanes);
    for (size_t i = 0; i < r->nagents; i++)
        agent_release(&r->agents[i]);
    free(r->agents);
    for (size_t i = 0; i < r->nskipped; i++) {
        free(r->skipped[i].worktree);
        free(r->skipped[i].branch);
        free(r->skipped[i].reason);
    }
    free(r->skipped);
    if (r->have_graph)
        graph_release(&r->graph);
    free(r->repository);
    free(r->integration);
    memset(r, 0, sizeof(*r));
}

/*
 * score.c - scoring the pairs of agents: the risk engine over the active
 * agents' working sets, each pair through core/pair with the stale
 * context, topics and the merge channel (src/view), its advisory state
 * machine stepped and its changes published.
 */
#include "broker/agents.h"
#include "broker/detect.h"
#include "broker/events.h"
#include "broker/score.h"

#include <stdlib.h>
#include <string.h>

#include "broker/team.h"
#include "util/clock.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* ---- scoring ---- */

static size_t
pair_index(struct broker *b, const char *x, const char *y)
{
    const char *a = strcmp(x, y) < 0 ? x : y, *c = a == x ? y : x;
    char *key = xasprintf("%s\t%s", a, c);
    uint32_t at;
    if (strmap_get(&b->pair_idx, key, strlen(key), &at)) {
        free(key);
        return at;
    }
    ALLOC_GROW(b->pairs, b->npairs + 1, b->apairs);
    struct bpair *p = &b->pairs[b->npairs];
    memset(p, 0, sizeof(*p));
    p->a = xstrdup(a);
    p->b = xstrdup(c);
    pair_advisory_init(&p->adv);
    strmap_put(&b->pair_idx, key, strlen(key), (uint32_t)b->npairs, NULL);
    free(key);
    return b->npairs++;
}

void
broker_clear_merge(struct bpair *p)
{
    strv_free(p->merge_paths, p->nmerge_paths);
    p->merge_paths = NULL;
    p->nmerge_paths = 0;
    p->merge_checked = false;
}

/* Feed pair k a risk sample and publish a level change. */
static void
feed_pair(struct broker *b, size_t k, double risk, int64_t now)
{
    struct bpair *p = &b->pairs[k];
    enum advisory_level was;
    if (!pair_advisory_step_max(&b->cfg, &p->adv, risk, now,
            p->parked ? ADVISORY_TRAFFIC : ADVISORY_RESOLUTION, &was))
        return;
    json_t *d = broker_pair_json(b, k, p->adv.st.level == ADVISORY_RESOLUTION);
    json_object_set_new(d, "from", json_string(advisory_level_name(was)));
    broker_emit(b, "advisory", NULL, d);
}

/* How stale agent i's context is through agent j's changes: the highest
 * decayed heat of a file i holds in its context and j has changed. */
#define CONTEXT_HALF_LIFE_MS (10 * 60 * 1000)

static double
stale_context(struct broker *b, size_t i, size_t j, int64_t now)
{
    double best = 0;
    const struct agent *bj = &b->ag[j];
    for (size_t k = 0; k < bj->nfiles; k++) {
        struct activity_entry en;
        if (!activity_get(b->activity, bj->files[k].path, b->ag[i].id, &en) ||
            !en.in_context)
            continue;
        double h = activity_decay(en.heat, now - en.at, CONTEXT_HALF_LIFE_MS);
        if (h > 1)
            h = 1;
        if (h > best)
            best = h;
    }
    return best;
}

/* Agent i's lanes, borrowed, as right of way reads them. */
static struct advisory_lanes
lanes_of(const struct broker *b, size_t i)
{
    const struct as_agent *w = broker_who(b, i);
    return (struct advisory_lanes){ (const char *const *)w->lanes, w->nlanes };
}

size_t
broker_pair_at(struct broker *b, const char *x, const char *y)
{
    return pair_index(b, x, y);
}

void
broker_pair_feed(struct broker *b, size_t k, int64_t now)
{
    feed_pair(b, k, b->pairs[k].res.risk, now);
}

void
broker_drop_engine(struct broker *b)
{
    if (b->engine)
        risk_engine_free(b->engine);
    b->engine = NULL;
    free(b->eng_agents);
    free(b->eng_pos);
    b->eng_agents = NULL;
    b->eng_pos = NULL;
    b->eng_n = 0;
}

/*
 * A rescore runs speculative merges for --merge-budget-ms (default 50),
 * then leaves the rest for a later round. Every request waits while the
 * loop scores: with 25 agents on
 * libgit2, an edit cost 0.2 s of merges (one per agent sharing a path),
 * and a big rename or checkout seconds, so a hook's lock check, which
 * must not wait more than 3 s, timed out and let an edit through. A
 * merge left for later keeps its last outcome until its round, which
 * comes after the requests that arrived meanwhile.
 */

static void
on_merges_later(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct broker *b = arg;
    b->merges_armed = false;
    broker_rescore(b, SIZE_MAX); /* the merges run already are cached */
}

static void
merges_later(struct broker *b)
{
    if (b->merges_armed || !b->base)
        return;
    if (!b->merges_ev)
        b->merges_ev = evtimer_new(b->base, on_merges_later, b);
    struct timeval now = { 0, 0 };
    if (b->merges_ev && evtimer_add(b->merges_ev, &now) == 0)
        b->merges_armed = true;
}

void
broker_rescore(struct broker *b, size_t changed)
{
    /* the time new merges took this round (one answered from the cache
     * does not count): each round runs at least one new merge */
    double merging = 0;
    bool later = false;
    int64_t now = broker_now();
    if (b->realigned || b->reshared) /* every pair's coordinates, or
                                          several agents, changed */
        changed = SIZE_MAX;
    b->realigned = b->reshared = false;
    broker_drop_engine(b);
    /* The engine scores active and parked agents; index map back to
     * ours. */
    size_t *idx = xcalloc(b->nagents + 1, sizeof(*idx));
    struct agent *v = xcalloc(b->nagents + 1, sizeof(*v));
    b->eng_pos = xmalloc((b->nagents + 1) * sizeof(*b->eng_pos));
    size_t n = 0;
    for (size_t i = 0; i < b->nagents; i++) {
        b->eng_pos[i] = SIZE_MAX;
        if (broker_who(b, i)->status == AS_AGENT_ACTIVE ||
            broker_parked(b, i)) {
            idx[n] = i;
            b->eng_pos[i] = n;
            v[n++] = b->ag[i]; /* shallow: the engine only reads */
        }
    }
    /* A second thread pays off only for a large crowd: starting it costs
     * more than preparing a hundred small working sets. */
    size_t work = 0;
    for (size_t x = 0; x < n; x++)
        work += v[x].nfiles;
    struct risk_engine *en = risk_engine_new_mt(&b->cfg,
        b->have_graph ? &b->graph : NULL, v, n, work > 4000 ? b->o.threads : 1);
    b->engine = en;
    b->eng_agents = v;
    b->eng_n = n;
    struct gitview_merge mctx = { .repo = b->repo, .cache = b->mcache };
    /* each active agent's reach of the forward table, once for its pairs */
    struct forward_reach *reach = NULL;
    if (b->view_base.forward && b->cfg.weight[RISK_FORWARD] > 0 && n) {
        reach = xcalloc(n, sizeof(*reach));
        for (size_t x = 0; x < n; x++)
            forward_reach_init(&reach[x], b->view_base.forward, &v[x],
                b->cfg.forward_min_rate);
    }
    bool *parked = xcalloc(n + 1, sizeof(*parked));
    for (size_t x = 0; x < n; x++)
        parked[x] = broker_who(b, idx[x])->status != AS_AGENT_ACTIVE;
    for (size_t x = 0; x < n; x++)
        for (size_t y = x + 1; y < n; y++) {
            size_t i = idx[x], j = idx[y];
            if (changed != SIZE_MAX && i != changed && j != changed)
                continue;
            if (parked[x] && parked[y])
                continue; /* neither can act: no pair */
            /* a pair with other daemons' agents: scored once, by one of
             * its daemons (the other mirrors the result, team.c) */
            if (!team_scores_pair(b, i, j))
                continue;
            size_t k = pair_index(b, b->ag[i].id, b->ag[j].id);
            struct bpair *p = &b->pairs[k];
            bool swapped = strcmp(b->ag[i].id, b->ag[j].id) > 0;
            /* context: a file one agent holds in its context (read, hot)
             * that the other has changed is stale for the first */
            double stale = stale_context(b, i, j, now);
            double stale2 = stale_context(b, j, i, now);
            /* topic: their prompts are converging on the same subject */
            struct topic_set conv;
            /* their lanes: a file in the lane of one only is its own */
            struct advisory_lanes li = lanes_of(b, i), lj = lanes_of(b, j);
            struct pair_input in = { .engine = en,
                .cfg = &b->cfg,
                .ea = swapped ? y : x,
                .eb = swapped ? x : y,
                .a = &b->ag[i],
                .b = &b->ag[j],
                .context = stale2 > stale ? stale2 : stale,
                .topic = topics_converge(
                             &b->meta[i].topics, &b->meta[j].topics, &conv) > 0,
                .merge = gitview_merge_pair,
                .merge_ctx = &mctx,
                .forward = b->view_base.forward,
                .reach_a = reach ? &reach[x] : NULL,
                .reach_b = reach ? &reach[y] : NULL,
                .merge_later = merging > (double)b->o.merge_budget_ms,
                .merge_last = p->merge_checked ? p->nmerge_paths > 0 : -1,
                .lanes_a = &li,
                .lanes_b = &lj };
            struct pair_score ps;
            if (!in.merge_later)
                broker_clear_merge(p);
            double t0 = clock_mono_ms();
            size_t hits = merge_cache_hits(b->mcache);
            pair_score(&in, &ps); /* an undecided merge is counted in mctx */
            if (ps.merge_checked) {
                if (merge_cache_hits(b->mcache) == hits)
                    merging += clock_mono_ms() - t0; /* a new one */
                b->stat_merges++;
            }
            b->stat_merges_later += ps.merge_later;
            p->res = ps.res;
            if (ps.merge_later) {
                later = true; /* its last merge stands until then */
            } else {
                p->merge_checked = ps.merge_checked;
                p->merge_paths = ps.merge_paths;
                p->nmerge_paths = ps.nmerge_paths;
            }
            /* (the detector forgot a parked agent when it left) */
            if (!ps.merge_later && !parked[x] && !parked[y] &&
                (p->nmerge_paths || p->merge_reported)) {
                /* committed conflicts: tell the detector of a conflict,
                 * and of the clean merge that ends it (it recomputes its
                 * facts on every call, so clean pairs are not repeated) */
                p->merge_reported = p->nmerge_paths > 0;
                struct conflict_msgs cm;
                conflict_msgs_init(&cm);
                conflicts_report_merge(b->conflicts, p->a, p->b,
                    (const char *const *)p->merge_paths, p->nmerge_paths, now,
                    &cm);
                broker_conflict_msgs(b, &cm);
                conflict_msgs_release(&cm);
            }
            p->hold = (uint32_t)(ps.hold == 0 ? i : j);
            p->steer = (uint32_t)(ps.hold == 0 ? j : i);
            p->parked = parked[x] || parked[y];
            if (p->parked) { /* it stays where it is: the other steers */
                p->hold = (uint32_t)(parked[x] ? i : j);
                p->steer = (uint32_t)(parked[x] ? j : i);
            }
            p->live = true;
            feed_pair(b, k, p->res.risk, now);
            team_pair_scored(b, k, i, j); /* the other daemon's copy */
        }
    for (size_t x = 0; reach && x < n; x++)
        forward_reach_release(&reach[x]);
    free(reach);
    /* Pairs with an agent gone fade out through the state machine. An
     * agent leaves with a rescore of its own: an active `changed` ended
     * no pair (the walk over every pair is the cost of a big airspace). */
    bool fade = changed == SIZE_MAX ||
                broker_who(b, changed)->status != AS_AGENT_ACTIVE;
    /* an agent that was parked may not be now (an agent took over its
     * worktree, its work landed): its pairs may have ended too */
    for (size_t i = 0; !fade && i < b->nagents; i++)
        fade = broker_who(b, i)->status != AS_AGENT_ACTIVE && b->ag[i].nfiles &&
               broker_who(b, i)->from_worktree;
    struct strmap active; /* id -> 1 + parked */
    strmap_init(&active);
    for (size_t x = 0; fade && x < n; x++)
        strmap_put(&active, b->ag[idx[x]].id, strlen(b->ag[idx[x]].id),
            1 + parked[x], NULL);
    for (size_t k = 0; fade && k < b->npairs; k++) {
        struct bpair *p = &b->pairs[k];
        uint32_t ia, ib;
        bool live = strmap_get(&active, p->a, strlen(p->a), &ia) &&
                    strmap_get(&active, p->b, strlen(p->b), &ib) &&
                    !(ia == 2 && ib == 2);
        if (!live && p->live) {
            p->live = false;
            p->parked = false;
            memset(&p->res, 0, sizeof(p->res));
            broker_clear_merge(p);
            /* a pair with another daemon's agent that this daemon scores:
             * that daemon's copy ends too (its own agent may fly on) */
            ssize_t xa = broker_find_agent(b, p->a);
            ssize_t xb = broker_find_agent(b, p->b);
            if (xa >= 0 && xb >= 0 && team_scores_pair(b, xa, xb))
                team_pair_scored(b, k, (size_t)xa, (size_t)xb);
            enum advisory_level was = pair_advisory_leave(&p->adv);
            if (was != ADVISORY_CLEAR) {
                json_t *d = broker_pair_json(b, k, false);
                json_object_set_new(
                    d, "from", json_string(advisory_level_name(was)));
                json_object_set_new(d, "reason", json_string("agent left"));
                broker_emit(b, "advisory", NULL, d);
            }
        }
    }
    strmap_release(&active);
    for (size_t x = 0; x < n; x++)
        if (!parked[x] && (changed == SIZE_MAX || idx[x] == changed))
            broker_conflicts_modified(b, idx[x]);
    if (mctx.failures)
        broker_log(b, "merge channel: %s", mctx.first_error.msg);
    free(idx);
    free(parked);
    if (later)
        merges_later(b);
}

/* Forget every pair of agent id; a live one above clear is announced
 * clear first, with reason why. */
void
broker_drop_pairs(struct broker *b, const char *id, const char *why)
{
    size_t o = 0;
    for (size_t k = 0; k < b->npairs; k++) {
        struct bpair *p = &b->pairs[k];
        if (strcmp(p->a, id) && strcmp(p->b, id)) {
            b->pairs[o++] = *p;
            continue;
        }
        if (p->live && p->adv.st.level != ADVISORY_CLEAR) {
            json_t *d = broker_pair_json(b, k, false);
            json_object_set_new(
                d, "from", json_string(advisory_level_name(p->adv.st.level)));
            json_object_set_new(d, "level", json_string("clear"));
            json_object_set_new(d, "reason", json_string(why));
            broker_emit(b, "advisory", NULL, d);
        }
        broker_clear_merge(p);
        free(p->a);
        free(p->b);
    }
    if (o != b->npairs) {
        b->npairs = o;
        strmap_release(&b->pair_idx);
        strmap_init(&b->pair_idx);
        for (size_t k = 0; k < b->npairs; k++) {
            char *key = xasprintf("%s\t%s", b->pairs[k].a, b->pairs[k].b);
            strmap_put(&b->pair_idx, key, strlen(key), (uint32_t)k, NULL);
            free(key);
        }
    }
}

json_t *
broker_pair_json(struct broker *b, size_t k, bool evidence)
{
    struct bpair *p = &b->pairs[k];
    json_t *o = json_object();
    json_object_set_new(o, "a", json_string(p->a));
    json_object_set_new(o, "b", json_string(p->b));
    json_object_set_new(
        o, "level", json_string(advisory_level_name(p->adv.st.level)));
    json_object_set_new(o, "risk", json_real(p->res.risk));
    json_object_set_new(o, "since", json_integer((json_int_t)p->adv.since));
    bool ids_ok = p->hold < b->nagents && p->steer < b->nagents;
    if (ids_ok) {
        json_object_set_new(o, "hold", json_string(b->ag[p->hold].id));
        json_object_set_new(o, "steer", json_string(b->ag[p->steer].id));
        if (p->parked) /* the one that holds */
            json_object_set_new(o, "parked", json_string(b->ag[p->hold].id));
    }
    json_t *ch = json_object();
    for (int c = 0; c < RISK_NCHANNELS; c++)
        json_object_set_new(ch, risk_channel_name((enum risk_channel)c),
            json_real(p->res.r[c]));
    json_object_set_new(o, "channels", ch);
    enum risk_channel why[RISK_NCHANNELS];
    size_t nwhy = risk_why(&b->cfg, p->res.r, why);
    json_t *wj = json_array();
    for (size_t i = 0; i < nwhy; i++)
        json_array_append_new(wj, json_string(risk_channel_name(why[i])));
    json_object_set_new(o, "why", wj);
    if (p->nmerge_paths) {
        json_t *mp = json_array();
        for (size_t i = 0; i < p->nmerge_paths; i++)
            json_array_append_new(mp, json_string(p->merge_paths[i]));
        json_object_set_new(o, "mergeConflicts", mp);
    }
    if (evidence && ids_ok && b->engine && b->eng_pos[p->hold] != SIZE_MAX &&
        b->eng_pos[p->steer] != SIZE_MAX) {
        struct risk_evidence ev;
        risk_engine_explain(
            b->engine, b->eng_pos[p->hold], b->eng_pos[p->steer], &ev);
        ev.result = p->res;
        json_t *cont = json_array();
        for (size_t i = 0; i < ev.ncontested; i++) {
            json_t *jc = json_object();
            json_object_set_new(jc, "path", json_string(ev.contested[i].path));
            json_object_set_new(
                jc, "whole", json_boolean(ev.contested[i].whole));
            json_t *rs = json_array();
            for (size_t r = 0; r < ev.contested[i].ranges.n; r++)
                json_array_append_new(
                    rs, json_pack("[I,I]",
                            (json_int_t)ev.contested[i].ranges.v[r].start,
                            (json_int_t)ev.contested[i].ranges.v[r].end));
            json_object_set_new(jc, "ranges", rs);
            json_array_append_new(cont, jc);
        }
        json_object_set_new(o, "contested", cont);
        if (p->adv.st.level == ADVISORY_RESOLUTION) {
            /* files in the holder's lane: the guidance says to leave them */
            struct advisory_lanes ls = lanes_of(b, p->steer),
                                  lh = lanes_of(b, p->hold);
            char *g = advisory_steer_text_lanes(&b->ag[p->steer],
                &b->ag[p->hold], p->res.risk, &ev, NULL, 0, &ls, &lh);
            json_object_set_new(o, "guidance", json_string(g));
            free(g);
        }
        risk_evidence_release(&ev);
    }
    return o;
}

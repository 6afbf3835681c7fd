#include "core/pair.h"

#include <stdlib.h>
#include <string.h>

#include "core/proximity.h"
#include "util/xalloc.h"

#include "util/banned.h"

/*
 * The activity channel: 1 - exp(-(c_a * c_b) / activity.k) of the two
 * agents' commits since their base (commits_ahead); 0 when either has none.
 * Two lines of work that both keep committing come to meet.
 */
static double
pair_activity(
    const struct risk_config *c, const struct agent *a, const struct agent *b)
{
    return prox_saturate(
        (double)a->commits_ahead * (double)b->commits_ahead, c->activity_k);
}

void
pair_channels(const struct pair_input *in, struct pair_score *out)
{
    memset(out, 0, sizeof(*out));
    risk_engine_score(in->engine, in->ea, in->eb, &out->res);
    if (in->context > 0)
        out->res.r[RISK_CONTEXT] = in->context;
    if (in->topic)
        out->res.r[RISK_TOPIC] = 1.0;
    if (in->forward && in->cfg->weight[RISK_FORWARD] > 0)
        out->res.r[RISK_FORWARD] =
            in->reach_a && in->reach_b
                ? forward_reach_meet(in->reach_a, in->reach_b)
                : forward_meet(
                      in->forward, in->a, in->b, in->cfg->forward_min_rate);
    if (in->cfg->weight[RISK_ACTIVITY] > 0)
        out->res.r[RISK_ACTIVITY] = pair_activity(in->cfg, in->a, in->b);
}

int
pair_finish(const struct pair_input *in, struct pair_score *out)
{
    int rc = 0;
    if (in->merge && in->cfg->weight[RISK_MERGE] > 0 &&
        agent_shares_path(in->a, in->b)) {
        int c;
        if (in->merge_later) {
            out->merge_later = true;
            c = in->merge_last;
        } else {
            out->merge_checked = true;
            c = in->merge(in->merge_ctx, in->a, in->b, &out->merge_paths,
                &out->nmerge_paths);
            if (c < 0)
                rc = c;
        }
        if (c > 0)
            out->res.r[RISK_MERGE] = 1.0;
        else if (c == 0 && out->res.r[RISK_OVERLAP] > in->cfg->overlap_merged)
            out->res.r[RISK_OVERLAP] = in->cfg->overlap_merged; /* clean */
    }
    out->res.risk = risk_combine(in->cfg, out->res.r);
    out->lane_owner = -1;
    if ((in->lanes_a && in->lanes_a->n) || (in->lanes_b && in->lanes_b->n)) {
        const char **paths;
        size_t n = pair_contested(in->cfg, in->a, in->b, &paths);
        out->lane_owner =
            advisory_lane_owner(in->lanes_a, in->lanes_b, paths, n);
        free(paths);
    }
    out->hold = advisory_right_of_way_owner(in->a, in->b, out->lane_owner);
    return rc;
}

/* As the engine takes a file whole (risk.c). */
static bool
file_whole(const struct ws_file *f)
{
    return ws_status_whole(f->status) || f->whole || !f->ranges.n;
}

size_t
pair_contested(const struct risk_config *c, const struct agent *a,
    const struct agent *b, const char ***paths)
{
    size_t n = 0, alloc = 0, i = 0, j = 0;
    *paths = NULL;
    while (i < a->nfiles && j < b->nfiles) {
        const struct ws_file *x = &a->files[i], *y = &b->files[j];
        int d = strcmp(x->path, y->path);
        if (d < 0) {
            i++;
            continue;
        }
        if (d > 0) {
            j++;
            continue;
        }
        bool hit = file_whole(x) || file_whole(y);
        if (!hit) {
            struct range_set wx, wy;
            range_set_init(&wx);
            range_set_init(&wy);
            range_set_widen(&wx, &x->ranges, c->margin);
            range_set_widen(&wy, &y->ranges, c->margin);
            hit = range_set_overlap_widened(
                      &wx, range_set_size(&wx), &wy, range_set_size(&wy)) > 0;
            range_set_release(&wx);
            range_set_release(&wy);
        }
        if (hit) {
            ALLOC_GROW(*paths, n + 1, alloc);
            (*paths)[n++] = x->path;
        }
        i++;
        j++;
    }
    return n;
}

int
pair_score(const struct pair_input *in, struct pair_score *out)
{
    pair_channels(in, out);
    return pair_finish(in, out);
}

void
pair_advisory_init(struct pair_advisory *p)
{
    advisory_state_init(&p->st);
    p->since = 0;
}

bool
pair_advisory_step(const struct risk_config *c, struct pair_advisory *p,
    double risk, int64_t now_ms, enum advisory_level *was)
{
    return pair_advisory_step_max(c, p, risk, now_ms, ADVISORY_RESOLUTION, was);
}

bool
pair_advisory_step_max(const struct risk_config *c, struct pair_advisory *p,
    double risk, int64_t now_ms, enum advisory_level max,
    enum advisory_level *was)
{
    enum advisory_level before = p->st.level;
    if (was)
        *was = before;
    if (advisory_update(c, &p->st, risk, now_ms) > max)
        p->st.level = max; /* the next step starts from max */
    if (p->st.level == before)
        return false;
    p->since = now_ms;
    return true;
}

enum advisory_level
pair_advisory_leave(struct pair_advisory *p)
{
    enum advisory_level before = p->st.level;
    advisory_state_init(&p->st);
    return before;
}

enum advisory_level
pair_level(const struct risk_config *c, double risk)
{
    struct pair_advisory p;
    pair_advisory_init(&p);
    pair_advisory_step(c, &p, risk, 0, NULL);
    return p.st.level;
}

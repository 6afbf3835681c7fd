#include "core/advisory.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/glob.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

const char *
advisory_level_name(enum advisory_level l)
{
    switch (l) {
    case ADVISORY_CLEAR:
        return "clear";
    case ADVISORY_TRAFFIC:
        return "traffic";
    case ADVISORY_RESOLUTION:
        return "resolution";
    }
    return "unknown";
}

enum advisory_level
advisory_classify(const struct risk_config *c, double risk)
{
    if (risk >= c->tau_ra)
        return ADVISORY_RESOLUTION;
    if (risk >= c->tau_ta)
        return ADVISORY_TRAFFIC;
    return ADVISORY_CLEAR;
}

void
advisory_state_init(struct advisory_state *s)
{
    memset(s, 0, sizeof(*s));
    s->level = ADVISORY_CLEAR;
    s->tau_s = -1;
    s->below_ra_since = -1;
    s->below_ta_since = -1;
}

double
advisory_closure_rate(double r0, int64_t t0_ms, double r1, int64_t t1_ms)
{
    if (t1_ms <= t0_ms)
        return 0.0;
    return (r1 - r0) / ((double)(t1_ms - t0_ms) / 1000.0);
}

/* Least-squares slope of the recent samples, per second: one noisy sample
 * moves it little. 0 with fewer than 3 samples or no time span. */
static double
smoothed_rate(const struct advisory_state *s)
{
    if (s->n < 3)
        return 0.0;
    double mt = 0, mr = 0;
    for (unsigned i = 0; i < s->n; i++) {
        mt += (double)(s->t[i] - s->t[0]) / 1000.0;
        mr += s->r[i];
    }
    mt /= s->n;
    mr /= s->n;
    double num = 0, den = 0;
    for (unsigned i = 0; i < s->n; i++) {
        double dt = (double)(s->t[i] - s->t[0]) / 1000.0 - mt;
        num += dt * (s->r[i] - mr);
        den += dt * dt;
    }
    return den > 0 ? num / den : 0.0;
}

static void
push_sample(const struct risk_config *c, struct advisory_state *s, double r,
    int64_t now)
{
    unsigned win = c->closure_window;
    if (win < 2)
        win = 2;
    if (win > RISK_CLOSURE_WINDOW_MAX)
        win = RISK_CLOSURE_WINDOW_MAX;
    if (s->n && now <= s->t[s->n - 1]) {
        /* Same instant (or a clock step back): the newer value wins. */
        s->r[s->n - 1] = r;
        return;
    }
    while (s->n >= win) {
        memmove(s->r, s->r + 1, (s->n - 1) * sizeof(*s->r));
        memmove(s->t, s->t + 1, (s->n - 1) * sizeof(*s->t));
        s->n--;
    }
    s->r[s->n] = r;
    s->t[s->n] = now;
    s->n++;
}

static bool
held(int64_t since, int64_t now, int64_t dwell)
{
    return since >= 0 && now - since >= dwell;
}

enum advisory_level
advisory_update(const struct risk_config *c, struct advisory_state *s,
    double risk, int64_t now_ms)
{
    if (s->n && now_ms < s->t[s->n - 1])
        now_ms = s->t[s->n - 1];
    push_sample(c, s, risk, now_ms);
    s->closure = smoothed_rate(s);
    s->tau_s = -1;
    if (s->closure > 0 && risk < c->tau_ra)
        s->tau_s = (c->tau_ra - risk) / s->closure;
    s->closing_fast = s->tau_s >= 0 &&
                      s->tau_s * 1000.0 < (double)c->tau_min_ms &&
                      risk >= c->early_min;

    if (risk < c->leave_ra) {
        if (s->below_ra_since < 0)
            s->below_ra_since = now_ms;
    } else {
        s->below_ra_since = -1;
    }
    if (risk < c->leave_ta && !s->closing_fast) {
        if (s->below_ta_since < 0)
            s->below_ta_since = now_ms;
    } else {
        s->below_ta_since = -1;
    }

    enum advisory_level l;
    if (risk >= c->tau_ra || (s->level == ADVISORY_RESOLUTION &&
                                 !held(s->below_ra_since, now_ms, c->dwell_ms)))
        l = ADVISORY_RESOLUTION;
    else if (risk >= c->tau_ta || s->closing_fast ||
             (s->level >= ADVISORY_TRAFFIC &&
                 !held(s->below_ta_since, now_ms, c->dwell_ms)))
        l = ADVISORY_TRAFFIC;
    else
        l = ADVISORY_CLEAR;
    s->level = l;
    return l;
}

uint64_t
advisory_work(const struct agent *a)
{
    uint64_t w = 0;
    for (size_t i = 0; i < a->nfiles; i++) {
        const struct ws_file *f = &a->files[i];
        uint64_t stat = (uint64_t)f->added_lines + f->deleted_lines;
        uint64_t lines = range_set_size(&f->ranges);
        w += stat ? stat : lines ? lines : 1;
    }
    return w;
}

/* -1 when a holds, 1 when b holds, 0 when the facts tie. */
static int
cmp_more(uint64_t x, uint64_t y)
{
    return x > y ? -1 : x < y ? 1 : 0;
}

const char *
advisory_lane_of(const struct advisory_lanes *l, const char *path)
{
    for (size_t i = 0; l && i < l->n; i++) {
        const char *g = l->v[i];
        if (!g || (g[0] == '@' && g[1])) /* a name, not a glob */
            continue;
        if (glob_match(g, path))
            return g;
    }
    return NULL;
}

int
advisory_lane_owner(const struct advisory_lanes *la,
    const struct advisory_lanes *lb, const char *const *paths, size_t n)
{
    if (!n || (!(la && la->n) && !(lb && lb->n)))
        return -1;
    int owner = -1;
    for (size_t i = 0; i < n; i++) {
        bool ina = advisory_lane_of(la, paths[i]) != NULL;
        bool inb = advisory_lane_of(lb, paths[i]) != NULL;
        if (ina == inb)
            return -1; /* both own it, or neither */
        int o = ina ? 0 : 1;
        if (owner >= 0 && o != owner)
            return -1; /* split between the two */
        owner = o;
    }
    return owner;
}

int
advisory_right_of_way(const struct agent *a, const struct agent *b)
{
    return advisory_right_of_way_owner(a, b, -1);
}

int
advisory_right_of_way_owner(
    const struct agent *a, const struct agent *b, int owner)
{
    int c = 0;
    if (a->kind != b->kind)
        c = a->kind == AGENT_HUMAN ? -1 : b->kind == AGENT_HUMAN ? 1 : 0;
    /* the owner of the lane the contested files lie in: the other cannot
     * land them there (docs/fleet.md), so waiting for it would not end */
    if (!c && (owner == 0 || owner == 1))
        c = owner == 0 ? -1 : 1;
    if (!c)
        c = cmp_more(a->commits_ahead, b->commits_ahead);
    if (!c)
        c = cmp_more(a->committed_lines, b->committed_lines);
    if (!c && !a->commits_ahead && !b->commits_ahead) {
        c = cmp_more(advisory_work(a), advisory_work(b));
        if (!c)
            c = cmp_more(a->nfiles, b->nfiles);
    }
    if (!c && a->started_at_ms != b->started_at_ms) {
        /* Earlier start holds; an unknown start (0) sorts last. */
        if (!a->started_at_ms)
            c = 1;
        else if (!b->started_at_ms)
            c = -1;
        else
            c = a->started_at_ms < b->started_at_ms ? -1 : 1;
    }
    if (!c)
        c = strcmp(a->id ? a->id : "", b->id ? b->id : "");
    return c <= 0 ? 0 : 1;
}

/* A growable string. */
static int
cmp_alt(const void *x, const void *y)
{
    const struct advisory_alt *a = x, *b = y;
    if (a->risk != b->risk)
        return a->risk < b->risk ? -1 : 1;
    return strcmp(a->path, b->path);
}

static const char *
who(const struct agent *a)
{
    return a->label && *a->label ? a->label : a->id;
}

char *
advisory_steer_text(const struct agent *steer, const struct agent *hold,
    double risk, const struct risk_evidence *ev,
    const struct advisory_alt *alts, size_t nalts)
{
    return advisory_steer_text_lanes(
        steer, hold, risk, ev, alts, nalts, NULL, NULL);
}

/* Whether ev's contested files are the holder's by its lanes; its lanes
 * that cover them, distinct, to *names ("a, b"). */
static bool
held_by_lane(const struct risk_evidence *ev,
    const struct advisory_lanes *steer_lanes,
    const struct advisory_lanes *hold_lanes, struct strbuf *names)
{
    if (!ev || !ev->ncontested || !hold_lanes || !hold_lanes->n)
        return false;
    const char **paths = xmalloc(ev->ncontested * sizeof(*paths));
    for (size_t i = 0; i < ev->ncontested; i++)
        paths[i] = ev->contested[i].path;
    bool held = advisory_lane_owner(
                    hold_lanes, steer_lanes, paths, ev->ncontested) == 0;
    const char **seen = xmalloc(ev->ncontested * sizeof(*seen));
    size_t nseen = 0;
    for (size_t i = 0; held && i < ev->ncontested; i++) {
        const char *l = advisory_lane_of(hold_lanes, paths[i]);
        bool dup = false;
        for (size_t k = 0; k < nseen && !dup; k++)
            dup = seen[k] == l;
        if (!dup) {
            strbuf_addf(names, "%s%s", nseen ? ", " : "", l);
            seen[nseen++] = l;
        }
    }
    free(seen);
    free(paths);
    return held;
}

char *
advisory_steer_text_lanes(const struct agent *steer, const struct agent *hold,
    double risk, const struct risk_evidence *ev,
    const struct advisory_alt *alts, size_t nalts,
    const struct advisory_lanes *steer_lanes,
    const struct advisory_lanes *hold_lanes)
{
    struct strbuf t = STRBUF_INIT, lanes = STRBUF_INIT;
    bool lane = held_by_lane(ev, steer_lanes, hold_lanes, &lanes);
    strbuf_addf(&t,
        "resolution advisory for '%s': your work collides with '%s' "
        "(risk %.2f); '%s' has right of way",
        who(steer), who(hold), risk, who(hold));
    if (lane)
        strbuf_addf(&t, ": the contested files are in its lane (%s)", lanes.s);
    strbuf_addf(&t, ".\n");
    bool any = false;
    for (size_t i = 0; ev && i < ev->ncontested; i++) {
        const struct risk_contested *c = &ev->contested[i];
        if (!any)
            strbuf_addf(&t, "contested:\n");
        any = true;
        strbuf_addf(&t, "  %s", c->path);
        if (c->whole) {
            strbuf_addf(&t, " (whole file)");
        } else {
            strbuf_addf(&t, " lines");
            for (size_t k = 0; k < c->ranges.n; k++) {
                const struct range *r = &c->ranges.v[k];
                if (r->start == r->end)
                    strbuf_addf(&t, "%s %u", k ? "," : "", r->start);
                else
                    strbuf_addf(&t, "%s %u-%u", k ? "," : "", r->start, r->end);
            }
        }
        strbuf_addf(&t, "\n");
    }
    if (ev && ev->dep.present) {
        strbuf_addf(&t, "coupled: %s depends on %s", ev->dep.downstream,
            ev->dep.upstream);
        if (ev->dep.nchain > 2)
            strbuf_addf(&t, " through %zu file%s", ev->dep.nchain - 2,
                ev->dep.nchain == 3 ? "" : "s");
        for (size_t i = 0; i < ev->dep.nsymbols; i++)
            strbuf_addf(&t, "%s%s", i ? ", " : "; uses ", ev->dep.symbols[i]);
        strbuf_addf(&t, "\n");
    }
    for (size_t i = 0; ev && i < ev->nsymbols && i < 3; i++) {
        const struct risk_symbol_hit *h = &ev->symbols[i];
        strbuf_addf(&t, "symbol: %s (defined in %s) is used at %s:%u\n",
            h->name, h->def_path, h->use_path, h->use_line);
    }
    strbuf_addf(&t, "options:\n");
    int opt = 1;
    if (nalts) {
        struct advisory_alt *v = xmalloc(nalts * sizeof(*v));
        memcpy(v, alts, nalts * sizeof(*v));
        qsort(v, nalts, sizeof(*v), cmp_alt);
        strbuf_addf(&t, "  %d. switch to", opt++);
        for (size_t i = 0; i < nalts && i < 3; i++)
            strbuf_addf(
                &t, "%s %s (risk %.2f)", i ? "," : "", v[i].path, v[i].risk);
        strbuf_addf(&t, " from your own work\n");
        free(v);
    }
    if (lane) {
        /* it owns them: it may never "commit or land" them away */
        strbuf_addf(&t,
            "  %d. leave these files to '%s': they are in its lane (%s), "
            "not yours; waiting for it to commit or land will not free "
            "them%s\n",
            opt++, who(hold), lanes.s,
            steer_lanes && steer_lanes->n
                ? " (and airspace land refuses files outside your lanes)"
                : "");
        strbuf_addf(&t,
            "  %d. message '%s' to hand it your changes to them, or to "
            "agree who changes what\n",
            opt++, who(hold));
    } else {
        strbuf_addf(&t,
            "  %d. wait until '%s' commits or lands; you will be told\n", opt++,
            who(hold));
        strbuf_addf(&t, "  %d. message '%s' to agree who changes what\n", opt++,
            who(hold));
    }
    free(lanes.s);
    return t.s;
}

/*
 * conflicts.c - the conflict detector.
 *
 * Every change re-derives the full set of conflict facts from the current
 * state and reconciles it with the records of conflicts already reported:
 * a fact without a record is new (notify), a record without a fact has
 * ended (drop). Deduplication is therefore exactly "once while it lasts",
 * whatever order the facts arrive in. A record of an agent that left is
 * held instead of dropped, until its facts are found again or the agent
 * is back without them.
 *
 * Longer than 1,000 lines on purpose: the derivation of the facts and the
 * reconciliation with the records read the same private state (files,
 * regions, claims, intents) and must agree on one notion of overlap; kept
 * in one unit, no part of that state is exported.
 */
#include "core/conflicts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/glob.h"
#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct region {
    char *name; /* normalised; NULL for a line range */
    uint32_t start, end;
};

struct ifile {
    char *path;
    struct glob *g;
    struct region *r;
    size_t nr;
};

struct intent {
    uint64_t id;
    char *agent;
    struct ifile *f;
    size_t nf;
    char *summary;
    int64_t created_at; /* when it was first put (ms) */
    int64_t expires_at;
};

struct lane {
    char *pattern;  /* a glob, or "@name" */
    struct glob *g; /* NULL for "@name" */
};

struct agent {
    char *id, *label;
    struct lane *lanes;
    size_t nlanes;
    char **mod;         /* sorted, unique */
    int64_t *mod_since; /* when each of mod first appeared in its list */
    size_t nmod;
    char *branch; /* the integration branch its onto paths conflict with */
    char **onto;  /* sorted, unique */
    size_t nonto;
    bool away; /* left (conflicts_agent_leave), not back yet */
};

struct merge {
    char *a, *b; /* a < b */
    char **paths;
    size_t n;
};

struct rec {
    enum conflict_shape shape;
    char *a, *b, *file, *why;
    int64_t since;
    bool escalated, additive, seen;
    bool held; /* told, and one side left: kept, neither listed nor told */
};

struct conflicts {
    struct conflicts_config cfg;
    char *supervisor;
    struct agent *ag;
    size_t nag, aag;
    struct intent *in;
    size_t nin, ain;
    struct merge *mg;
    size_t nmg, amg;
    struct rec *rec;
    size_t nrec, arec;
    struct owners *owners;
    struct strmap index; /* record key -> rec index, during reconcile */
    bool quiet;          /* reconcile may only drop records (nobody to tell) */
};

static const char *const shape_names[] = { "forward", "in-flight", "committed",
    "ownership", "integration" };

const char *
conflict_shape_name(enum conflict_shape s)
{
    return (unsigned)s < sizeof(shape_names) / sizeof(*shape_names)
               ? shape_names[s]
               : "?";
}

void
conflicts_config_init(struct conflicts_config *c)
{
    c->window_ms = CONFLICTS_DEFAULT_WINDOW_MS;
    c->supervisor = CONFLICTS_DEFAULT_SUPERVISOR;
    c->warn_forward = true;
    c->escalate_ownership = true;
    c->escalate_committed = true;
}

void
conflict_msgs_init(struct conflict_msgs *m)
{
    m->v = NULL;
    m->n = m->alloc = 0;
}

void
conflict_msgs_clear(struct conflict_msgs *m)
{
    for (size_t i = 0; i < m->n; i++) {
        struct conflict_msg *x = &m->v[i];
        free(x->to);
        free(x->from);
        free(x->a);
        free(x->b);
        free(x->file);
        free(x->text);
    }
    m->n = 0;
}

void
conflict_msgs_release(struct conflict_msgs *m)
{
    conflict_msgs_clear(m);
    free(m->v);
    conflict_msgs_init(m);
}

void
conflict_list_init(struct conflict_list *l)
{
    l->v = NULL;
    l->n = l->alloc = 0;
}

void
conflict_list_release(struct conflict_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].a);
        free(l->v[i].b);
        free(l->v[i].file);
        free(l->v[i].why);
    }
    free(l->v);
    conflict_list_init(l);
}

/* --- region names and comparison --- */

static bool
is_sep(char c)
{
    return c == ' ' || c == '\t' || c == '_' || c == '-';
}

char *
conflicts_region_name_normalize(const char *name)
{
    size_t n = strlen(name);
    char *s = xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        s[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    s[n] = '\0';
    char *p = s;
    while (*p == ' ' || *p == '\t')
        p++;
    n = strlen(p);
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    if (n >= 2 && p[n - 2] == '(' && p[n - 1] == ')')
        n -= 2;
    p[n] = '\0';
    static const char *const kw[] = { "fn", "def", "function", "class" };
    for (size_t k = 0; k < 4; k++) {
        size_t kl = strlen(kw[k]);
        if (!strncmp(p, kw[k], kl) && (p[kl] == ' ' || p[kl] == '\t')) {
            p += kl;
            break;
        }
    }
    /* collapse separator runs into one '_', trimmed at both ends */
    char *out = xmalloc(strlen(p) + 1);
    size_t o = 0;
    bool pending = false;
    for (; *p; p++) {
        if (is_sep(*p)) {
            pending = o > 0;
            continue;
        }
        if (pending)
            out[o++] = '_';
        pending = false;
        out[o++] = *p;
    }
    out[o] = '\0';
    free(s);
    return out;
}

static enum conflict_region_rel
regions_rel(const struct region *a, size_t na, const struct region *b,
    size_t nb, char *buf, size_t buflen)
{
    if (buf && buflen)
        buf[0] = '\0';
    if (!na || !nb)
        return CONFLICT_REGIONS_WHOLE;
    enum conflict_region_rel best = CONFLICT_REGIONS_DISJOINT;
    for (size_t i = 0; i < na; i++) {
        for (size_t j = 0; j < nb; j++) {
            const struct region *x = &a[i], *y = &b[j];
            if (x->name && y->name) {
                if (strcmp(x->name, y->name))
                    continue;
                if (buf)
                    snprintf(buf, buflen, "both name '%s'", x->name);
                return CONFLICT_REGIONS_SAME_NAME;
            }
            if (!x->name && !y->name) {
                uint32_t lo = x->start > y->start ? x->start : y->start;
                uint32_t hi = x->end < y->end ? x->end : y->end;
                if (lo > hi)
                    continue;
                if (buf)
                    snprintf(buf, buflen, "lines %u-%u", lo, hi);
                return CONFLICT_REGIONS_LINES;
            }
            if (best == CONFLICT_REGIONS_DISJOINT) {
                const struct region *nm = x->name ? x : y;
                const struct region *ln = x->name ? y : x;
                best = CONFLICT_REGIONS_UNSURE;
                if (buf)
                    snprintf(buf, buflen,
                        "hint: '%s' against lines %u-%u cannot be told "
                        "apart; declare both as names or both as lines",
                        nm->name, ln->start, ln->end);
            }
        }
    }
    return best;
}

/* Copy regions into normalised form; AS_EINVAL on an empty name or line 0. */
static int
regions_copy(const struct conflict_region *in, size_t n, struct region **out,
    struct as_err *e)
{
    *out = NULL;
    if (!n)
        return 0;
    struct region *r = xcalloc(n, sizeof(*r));
    for (size_t i = 0; i < n; i++) {
        if (in[i].name) {
            r[i].name = conflicts_region_name_normalize(in[i].name);
            if (!r[i].name[0]) {
                for (size_t k = 0; k <= i; k++)
                    free(r[k].name);
                free(r);
                return as_errorf(
                    e, AS_EINVAL, "region name '%s' is empty", in[i].name);
            }
            continue;
        }
        if (!in[i].start || !in[i].end) {
            for (size_t k = 0; k < i; k++)
                free(r[k].name);
            free(r);
            return as_errorf(e, AS_EINVAL, "region lines start at 1");
        }
        r[i].start = in[i].start < in[i].end ? in[i].start : in[i].end;
        r[i].end = in[i].start < in[i].end ? in[i].end : in[i].start;
    }
    *out = r;
    return 0;
}

static void
regions_free(struct region *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(r[i].name);
    free(r);
}

enum conflict_region_rel
conflicts_regions_compare(const struct conflict_region *a, size_t na,
    const struct conflict_region *b, size_t nb, char *buf, size_t buflen)
{
    struct region *ra = NULL, *rb = NULL;
    enum conflict_region_rel rel = CONFLICT_REGIONS_WHOLE;
    if (regions_copy(a, na, &ra, NULL) < 0 ||
        regions_copy(b, nb, &rb, NULL) < 0) {
        /* an unusable region says nothing precise: the whole file */
        if (buf && buflen)
            buf[0] = '\0';
        goto out;
    }
    rel = regions_rel(ra, na, rb, nb, buf, buflen);
out:
    regions_free(ra, ra ? na : 0);
    regions_free(rb, rb ? nb : 0);
    return rel;
}

/* --- state --- */

struct conflicts *
conflicts_new(const struct conflicts_config *c)
{
    struct conflicts *d = xcalloc(1, sizeof(*d));
    if (c)
        d->cfg = *c;
    else
        conflicts_config_init(&d->cfg);
    if (d->cfg.window_ms <= 0)
        d->cfg.window_ms = CONFLICTS_DEFAULT_WINDOW_MS;
    d->supervisor = xstrdup(
        d->cfg.supervisor ? d->cfg.supervisor : CONFLICTS_DEFAULT_SUPERVISOR);
    d->cfg.supervisor = d->supervisor;
    strmap_init(&d->index);
    return d;
}

static void
intent_clear(struct intent *in)
{
    for (size_t i = 0; i < in->nf; i++) {
        free(in->f[i].path);
        glob_free(in->f[i].g);
        regions_free(in->f[i].r, in->f[i].nr);
    }
    free(in->f);
    free(in->agent);
    free(in->summary);
}

static void
lanes_free(struct lane *l, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(l[i].pattern);
        glob_free(l[i].g);
    }
    free(l);
}

static void
agent_clear(struct agent *a)
{
    free(a->id);
    free(a->label);
    lanes_free(a->lanes, a->nlanes);
    strv_free(a->mod, a->nmod);
    free(a->mod_since);
    free(a->branch);
    strv_free(a->onto, a->nonto);
}

static void
rec_clear(struct rec *r)
{
    free(r->a);
    free(r->b);
    free(r->file);
    free(r->why);
}

void
conflicts_free(struct conflicts *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nag; i++)
        agent_clear(&d->ag[i]);
    for (size_t i = 0; i < d->nin; i++)
        intent_clear(&d->in[i]);
    for (size_t i = 0; i < d->nmg; i++) {
        free(d->mg[i].a);
        free(d->mg[i].b);
        strv_free(d->mg[i].paths, d->mg[i].n);
    }
    for (size_t i = 0; i < d->nrec; i++)
        rec_clear(&d->rec[i]);
    free(d->ag);
    free(d->in);
    free(d->mg);
    free(d->rec);
    owners_free(d->owners);
    strmap_release(&d->index);
    free(d->supervisor);
    free(d);
}

static bool
is_super(const struct conflicts *d, const char *id)
{
    return !strcmp(id, d->supervisor);
}

static struct agent *
agent_find(struct conflicts *d, const char *id)
{
    for (size_t i = 0; i < d->nag; i++)
        if (!strcmp(d->ag[i].id, id))
            return &d->ag[i];
    return NULL;
}

static struct agent *
agent_get(struct conflicts *d, const char *id)
{
    struct agent *a = agent_find(d, id);
    if (a)
        return a;
    ALLOC_GROW(d->ag, d->nag + 1, d->aag);
    a = &d->ag[d->nag++];
    memset(a, 0, sizeof(*a));
    a->id = xstrdup(id);
    return a;
}

static bool
intent_live(const struct intent *in, int64_t now)
{
    return now < in->expires_at;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A sorted, unique copy of n strings; *outn gets the count. */
static char **
strv_sorted_copy(const char *const *v, size_t n, size_t *outn)
{
    char **c = n ? xcalloc(n, sizeof(*c)) : NULL;
    for (size_t i = 0; i < n; i++)
        c[i] = xstrdup(v[i]);
    if (n)
        qsort(c, n, sizeof(*c), cmp_str);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && !strcmp(c[k - 1], c[i])) {
            free(c[i]);
            continue;
        }
        c[k++] = c[i];
    }
    *outn = k;
    return c;
}

/* The agent's live intended paths, sorted and joined (its "file set"). */
static char *
intent_signature(const struct conflicts *d, const char *agent, int64_t now)
{
    const char **v = NULL;
    size_t n = 0, alloc = 0;
    for (size_t i = 0; i < d->nin; i++) {
        const struct intent *in = &d->in[i];
        if (strcmp(in->agent, agent) || !intent_live(in, now))
            continue;
        for (size_t k = 0; k < in->nf; k++) {
            ALLOC_GROW(v, n + 1, alloc);
            v[n++] = in->f[k].path;
        }
    }
    size_t m;
    char **s = strv_sorted_copy(v, n, &m);
    free(v);
    size_t len = 1;
    for (size_t i = 0; i < m; i++)
        len += strlen(s[i]) + 1;
    char *out = xmalloc(len), *p = out;
    for (size_t i = 0; i < m; i++) {
        size_t l = strlen(s[i]);
        memcpy(p, s[i], l);
        p[l] = '\n';
        p += l + 1;
    }
    *p = '\0';
    strv_free(s, m);
    return out;
}

/* --- reconciliation --- */

static void
fmt_window(const struct conflicts *d, char *buf, size_t len)
{
    if (d->cfg.window_ms % 1000 == 0)
        snprintf(buf, len, "%lld s", (long long)(d->cfg.window_ms / 1000));
    else
        snprintf(buf, len, "%lld ms", (long long)d->cfg.window_ms);
}

static void
emit(struct conflicts *d, struct conflict_msgs *out, const struct rec *r,
    const char *to, bool escalation, char *text)
{
    if (!out) {
        free(text);
        return;
    }
    ALLOC_GROW(out->v, out->n + 1, out->alloc);
    struct conflict_msg *m = &out->v[out->n++];
    m->escalation = escalation;
    m->to = xstrdup(to);
    m->from = xstrdup(d->supervisor);
    m->shape = r->shape;
    m->a = xstrdup(r->a);
    m->b = xstrdup(r->b);
    m->file = xstrdup(r->file);
    m->additive = r->additive;
    m->text = text;
}

static char *
paren(const char *why)
{
    return why && *why ? xasprintf(" (%s)", why) : xstrdup("");
}

/* Tell the agents about a conflict that has just appeared. */
static void
notify_new(struct conflicts *d, struct rec *r, struct conflict_msgs *out)
{
    char win[32];
    fmt_window(d, win, sizeof(win));
    char *w = paren(r->why);
    switch (r->shape) {
    case CONFLICT_FORWARD:
        if (d->cfg.warn_forward) {
            emit(d, out, r, r->a, false,
                xasprintf(CONFLICTS_TAG " forward: '%s' and '%s' both intend "
                                        "to touch %s%s",
                    r->a, r->b, r->file, w));
            emit(d, out, r, r->b, false,
                xasprintf(CONFLICTS_TAG " forward: '%s' and '%s' both intend "
                                        "to touch %s%s",
                    r->a, r->b, r->file, w));
        }
        break;
    case CONFLICT_IN_FLIGHT:
        for (int k = 0; k < 2; k++) {
            const char *to = k ? r->b : r->a;
            char *t = r->additive ? xasprintf(CONFLICTS_TAG
                                        " additive: '%s' and '%s' are both "
                                        "changing %s in disjoint declared "
                                        "regions%s; not escalated",
                                        r->a, r->b, r->file, w)
                                  : xasprintf(CONFLICTS_TAG
                                        " in-flight: '%s' and '%s' overlap "
                                        "on %s%s; escalated to the "
                                        "supervisor if unresolved in %s",
                                        r->a, r->b, r->file, w, win);
            emit(d, out, r, to, false, t);
        }
        break;
    case CONFLICT_COMMITTED:
        for (int k = 0; k < 2; k++)
            emit(d, out, r, k ? r->b : r->a, false,
                xasprintf(CONFLICTS_TAG " committed: merging the work of '%s' "
                                        "and '%s' conflicts in %s",
                    r->a, r->b, r->file));
        break;
    case CONFLICT_INTEGRATION:
        emit(d, out, r, r->a, false,
            xasprintf(CONFLICTS_TAG " integration: the work of '%s' conflicts "
                                    "in %s with what '%s' changed since it "
                                    "began; merge or rebase onto '%s' to "
                                    "settle it",
                r->a, r->file, r->b, r->b));
        break;
    case CONFLICT_OWNERSHIP:
        emit(d, out, r, r->a, false,
            xasprintf(CONFLICTS_TAG " ownership: '%s' modified %s, which "
                                    "belongs to '%s'%s",
                r->a, r->file, r->b, w));
        if (d->cfg.escalate_ownership) {
            emit(d, out, r, d->supervisor, true,
                xasprintf(CONFLICTS_TAG " escalation: ownership: '%s' "
                                        "modified %s, which belongs to "
                                        "'%s'%s",
                    r->a, r->file, r->b, w));
            r->escalated = true;
        }
        break;
    }
    free(w);
}

static char *
rec_key(enum conflict_shape s, const char *a, const char *b, const char *file,
    size_t *len)
{
    char *k = xasprintf("%d\x1f%s\x1f%s\x1f%s", (int)s, a,
        s == CONFLICT_OWNERSHIP ? "" : b, file);
    *len = strlen(k);
    return k;
}

static void
index_rebuild(struct conflicts *d)
{
    strmap_release(&d->index);
    strmap_init(&d->index);
    for (size_t i = 0; i < d->nrec; i++) {
        size_t len;
        char *k = rec_key(
            d->rec[i].shape, d->rec[i].a, d->rec[i].b, d->rec[i].file, &len);
        strmap_put(&d->index, k, len, (uint32_t)i, NULL);
        free(k);
    }
}

/*
 * Record one fact found by reconcile. For pair shapes a and b are ordered
 * here; for ownership a is the violator. A fact seen twice in one pass keeps
 * the first detail.
 */
static void
fact(struct conflicts *d, enum conflict_shape s, const char *a, const char *b,
    const char *file, const char *why, bool additive, int64_t now,
    struct conflict_msgs *out)
{
    if (s != CONFLICT_OWNERSHIP && s != CONFLICT_INTEGRATION &&
        strcmp(a, b) > 0) {
        const char *t = a;
        a = b;
        b = t;
    }
    size_t len;
    char *k = rec_key(s, a, b, file, &len);
    uint32_t idx;
    if (strmap_get(&d->index, k, len, &idx)) {
        struct rec *r = &d->rec[idx];
        free(k);
        if (r->seen)
            return;
        r->seen = true;
        r->held = false; /* found again: it lasted through an absence */
        r->additive = additive;
        free(r->why);
        r->why = why && *why ? xstrdup(why) : NULL;
        return;
    }
    if (d->quiet) {
        /* left for the next call that can deliver its notices */
        free(k);
        return;
    }
    ALLOC_GROW(d->rec, d->nrec + 1, d->arec);
    struct rec *r = &d->rec[d->nrec];
    memset(r, 0, sizeof(*r));
    r->shape = s;
    r->a = xstrdup(a);
    r->b = xstrdup(b);
    r->file = xstrdup(file);
    r->why = why && *why ? xstrdup(why) : NULL;
    r->since = now;
    r->additive = additive;
    r->seen = true;
    strmap_put(&d->index, k, len, (uint32_t)d->nrec, NULL);
    d->nrec++;
    free(k);
    notify_new(d, r, out);
}

/* The pattern to name for two overlapping intent paths: the more specific
 * (a plain path over a glob, then the longer), independent of order. */
static const char *
pick_file(const char *p, const char *q)
{
    bool mp = glob_has_magic(p), mq = glob_has_magic(q);
    if (mp != mq)
        return mp ? q : p;
    size_t lp = strlen(p), lq = strlen(q);
    if (lp != lq)
        return lp > lq ? p : q;
    return strcmp(p, q) <= 0 ? p : q;
}

static void
forward_facts(struct conflicts *d, int64_t now, struct conflict_msgs *out)
{
    char why[256];
    for (size_t i = 0; i < d->nin; i++) {
        const struct intent *x = &d->in[i];
        if (!intent_live(x, now) || is_super(d, x->agent))
            continue;
        for (size_t j = i + 1; j < d->nin; j++) {
            const struct intent *y = &d->in[j];
            if (!intent_live(y, now) || is_super(d, y->agent) ||
                !strcmp(x->agent, y->agent))
                continue;
            for (size_t p = 0; p < x->nf; p++) {
                for (size_t q = 0; q < y->nf; q++) {
                    const struct ifile *fx = &x->f[p], *fy = &y->f[q];
                    if (!glob_overlap_compiled(fx->g, fy->g))
                        continue;
                    enum conflict_region_rel rel = regions_rel(
                        fx->r, fx->nr, fy->r, fy->nr, why, sizeof(why));
                    if (rel == CONFLICT_REGIONS_DISJOINT)
                        continue;
                    fact(d, CONFLICT_FORWARD, x->agent, y->agent,
                        pick_file(fx->path, fy->path), why, false, now, out);
                }
            }
        }
    }
}

/*
 * The regions agent declared for file in its live intents, appended to *v.
 * Returns false when some live intent covers file without regions (the
 * whole file), or none covers it.
 */
static bool
declared_regions(const struct conflicts *d, const char *agent, const char *file,
    int64_t now, struct region **v, size_t *n, size_t *alloc)
{
    bool any = false;
    for (size_t i = 0; i < d->nin; i++) {
        const struct intent *in = &d->in[i];
        if (strcmp(in->agent, agent) || !intent_live(in, now))
            continue;
        for (size_t k = 0; k < in->nf; k++) {
            if (!glob_matches(in->f[k].g, file))
                continue;
            if (!in->f[k].nr)
                return false;
            any = true;
            for (size_t r = 0; r < in->f[k].nr; r++) {
                ALLOC_GROW(*v, *n + 1, *alloc);
                (*v)[(*n)++] = in->f[k].r[r];
            }
        }
    }
    return any;
}

/* Whether both agents declared regions in file and they are disjoint. */
static bool
additive(const struct conflicts *d, const char *a, const char *b,
    const char *file, int64_t now)
{
    struct region *ra = NULL, *rb = NULL;
    size_t na = 0, aa = 0, nb = 0, ab = 0;
    bool ok = declared_regions(d, a, file, now, &ra, &na, &aa) &&
              declared_regions(d, b, file, now, &rb, &nb, &ab) &&
              regions_rel(ra, na, rb, nb, NULL, 0) == CONFLICT_REGIONS_DISJOINT;
    free(ra); /* shallow copies: names belong to the intents */
    free(rb);
    return ok;
}

static bool
has_intent_on(
    const struct conflicts *d, const char *agent, const char *file, int64_t now)
{
    for (size_t i = 0; i < d->nin; i++) {
        const struct intent *in = &d->in[i];
        if (strcmp(in->agent, agent) || !intent_live(in, now))
            continue;
        for (size_t k = 0; k < in->nf; k++)
            if (glob_matches(in->f[k].g, file))
                return true;
    }
    return false;
}

/* Whether who is one of the owners in list (by id, label or "@lane"). */
static bool
agent_is_owner(const struct agent *a, const char *tok)
{
    if (!strcmp(tok, a->id) || (a->label && !strcmp(tok, a->label)))
        return true;
    for (size_t i = 0; i < a->nlanes; i++)
        if (!a->lanes[i].g && !strcmp(a->lanes[i].pattern, tok))
            return true;
    return false;
}

/* Whether agent a owns file through a lane glob or the ownership file. */
static bool
agent_owns(const struct conflicts *d, const struct agent *a, const char *file)
{
    for (size_t i = 0; i < a->nlanes; i++)
        if (a->lanes[i].g && glob_matches(a->lanes[i].g, file))
            return true;
    const char *const *list;
    size_t n = owners_of(d->owners, file, &list, NULL);
    for (size_t i = 0; i < n; i++)
        if (agent_is_owner(a, list[i]))
            return true;
    return false;
}

static void
modified_facts(struct conflicts *d, int64_t now, struct conflict_msgs *out)
{
    char why[320];
    /* Who modified each file: a map file -> a chain of agent indices, built
     * once per call, so the pairs sharing a file are found without
     * comparing every agent with every other. */
    struct strmap byfile;
    strmap_init(&byfile);
    size_t total = 0;
    for (size_t i = 0; i < d->nag; i++)
        total += d->ag[i].nmod;
    uint32_t *who = xmalloc((total + 1) * sizeof(*who));
    uint32_t *next = xmalloc((total + 1) * sizeof(*next));
    uint32_t *tail = xmalloc((total + 1) * sizeof(*tail));
    size_t ne = 0;
    for (size_t i = 0; i < d->nag; i++) {
        const struct agent *a = &d->ag[i];
        if (is_super(d, a->id))
            continue;
        for (size_t m = 0; m < a->nmod; m++) {
            bool added;
            uint32_t head = strmap_put(
                &byfile, a->mod[m], strlen(a->mod[m]), (uint32_t)ne, &added);
            who[ne] = (uint32_t)i;
            next[ne] = UINT32_MAX;
            if (added) {
                tail[ne] = (uint32_t)ne;
            } else {
                next[tail[head]] = (uint32_t)ne;
                tail[head] = (uint32_t)ne;
            }
            ne++;
        }
    }
    for (size_t i = 0; i < d->nag; i++) {
        const struct agent *a = &d->ag[i];
        if (is_super(d, a->id))
            continue;
        for (size_t m = 0; m < a->nmod; m++) {
            const char *f = a->mod[m];
            bool owns = agent_owns(d, a, f);
            bool intends = has_intent_on(d, a->id, f, now);
            /* modified by another agent too */
            uint32_t at;
            if (strmap_get(&byfile, f, strlen(f), &at))
                for (; at != UINT32_MAX; at = next[at]) {
                    size_t j = who[at];
                    if (j <= i)
                        continue;
                    const struct agent *b = &d->ag[j];
                    fact(d, CONFLICT_IN_FLIGHT, a->id, b->id, f,
                        "both modified it", additive(d, a->id, b->id, f, now),
                        now, out);
                }
            /* inside another agent's live intent */
            for (size_t k = 0; k < d->nin; k++) {
                const struct intent *in = &d->in[k];
                if (!intent_live(in, now) || !strcmp(in->agent, a->id) ||
                    is_super(d, in->agent))
                    continue;
                bool hit = false;
                for (size_t q = 0; q < in->nf && !hit; q++)
                    hit = glob_matches(in->f[q].g, f);
                if (!hit)
                    continue;
                snprintf(
                    why, sizeof(why), "'%s' intends to touch it", in->agent);
                fact(d, CONFLICT_IN_FLIGHT, a->id, in->agent, f, why,
                    additive(d, a->id, in->agent, f, now), now, out);
                /* a violation only of an intent declared before it began
                 * changing the file: one declared on a file another is
                 * already changing is an overlap, not a trespass */
                if (!owns && !intends && a->mod_since[m] >= in->created_at)
                    fact(d, CONFLICT_OWNERSHIP, a->id, in->agent, f,
                        "inside its intent", false, now, out);
            }
            if (owns)
                continue;
            /* inside another agent's lane */
            for (size_t j = 0; j < d->nag; j++) {
                const struct agent *b = &d->ag[j];
                if (j == i || is_super(d, b->id))
                    continue;
                for (size_t l = 0; l < b->nlanes; l++) {
                    if (!b->lanes[l].g || !glob_matches(b->lanes[l].g, f))
                        continue;
                    snprintf(
                        why, sizeof(why), "lane '%s'", b->lanes[l].pattern);
                    fact(d, CONFLICT_OWNERSHIP, a->id, b->id, f, why, false,
                        now, out);
                    break;
                }
            }
            /* owned by others in the ownership file */
            const char *const *list;
            unsigned line;
            size_t n = owners_of(d->owners, f, &list, &line);
            if (n) {
                const char *owner = list[0];
                for (size_t j = 0; j < d->nag; j++)
                    if (j != i && agent_is_owner(&d->ag[j], owner)) {
                        owner = d->ag[j].id;
                        break;
                    }
                snprintf(why, sizeof(why), "owners file line %u", line);
                fact(d, CONFLICT_OWNERSHIP, a->id, owner, f, why, false, now,
                    out);
            }
        }
    }
    free(who);
    free(next);
    free(tail);
    strmap_release(&byfile);
}

static void
committed_facts(struct conflicts *d, int64_t now, struct conflict_msgs *out)
{
    for (size_t i = 0; i < d->nmg; i++) {
        const struct merge *m = &d->mg[i];
        if (is_super(d, m->a) || is_super(d, m->b))
            continue;
        for (size_t k = 0; k < m->n; k++)
            fact(d, CONFLICT_COMMITTED, m->a, m->b, m->paths[k],
                "speculative merge", false, now, out);
    }
}

static void
integration_facts(struct conflicts *d, int64_t now, struct conflict_msgs *out)
{
    for (size_t i = 0; i < d->nag; i++) {
        const struct agent *a = &d->ag[i];
        if (is_super(d, a->id))
            continue;
        for (size_t k = 0; k < a->nonto; k++)
            fact(d, CONFLICT_INTEGRATION, a->id, a->branch, a->onto[k], NULL,
                false, now, out);
    }
}

static void
retire_intents(struct conflicts *d, int64_t now)
{
    size_t k = 0;
    for (size_t i = 0; i < d->nin; i++) {
        if (!intent_live(&d->in[i], now)) {
            intent_clear(&d->in[i]);
            continue;
        }
        d->in[k++] = d->in[i];
    }
    d->nin = k;
}

static void
reconcile(struct conflicts *d, int64_t now, struct conflict_msgs *out)
{
    retire_intents(d, now);
    /* The index maps every record's key to its place; it stays valid from
     * one call to the next and is rebuilt only when records go away. */
    for (size_t i = 0; i < d->nrec; i++)
        d->rec[i].seen = false;
    forward_facts(d, now, out);
    modified_facts(d, now, out);
    committed_facts(d, now, out);
    integration_facts(d, now, out);
    size_t k = 0;
    for (size_t i = 0; i < d->nrec; i++) {
        if (!d->rec[i].seen && !d->rec[i].held) {
            rec_clear(&d->rec[i]);
            continue;
        }
        d->rec[k++] = d->rec[i];
    }
    if (k != d->nrec) {
        d->nrec = k;
        index_rebuild(d);
    }
}

/* Whether record r involves agent id (an integration record's b is a
 * branch, never an agent). */
static bool
rec_involves(const struct rec *r, const char *id)
{
    return !strcmp(r->a, id) ||
           (r->shape != CONFLICT_INTEGRATION && !strcmp(r->b, id));
}

/* Whether the side of r other than id is an agent that left and is not
 * back. */
static bool
other_away(struct conflicts *d, const struct rec *r, const char *id)
{
    const char *o = strcmp(r->a, id)                   ? r->a
                    : r->shape == CONFLICT_INTEGRATION ? NULL
                                                       : r->b;
    const struct agent *x = o ? agent_find(d, o) : NULL;
    return x && x->away;
}

/* Forget what agent id said: its intents and the merges of its pairs
 * (its own facts are the caller's to forget). */
static void
forget_facts(struct conflicts *d, const char *id)
{
    size_t k = 0;
    for (size_t i = 0; i < d->nin; i++) {
        if (!strcmp(d->in[i].agent, id)) {
            intent_clear(&d->in[i]);
            continue;
        }
        d->in[k++] = d->in[i];
    }
    d->nin = k;
    k = 0;
    for (size_t i = 0; i < d->nmg; i++) {
        struct merge *m = &d->mg[i];
        if (!strcmp(m->a, id) || !strcmp(m->b, id)) {
            free(m->a);
            free(m->b);
            strv_free(m->paths, m->n);
            continue;
        }
        d->mg[k++] = *m;
    }
    d->nmg = k;
}

/* --- the public calls --- */

int
conflicts_agent_set(struct conflicts *d, const char *id, const char *label,
    const char *const *lanes, size_t nlanes, int64_t now_ms,
    struct conflict_msgs *out, struct as_err *e)
{
    if (!id || !*id)
        return as_errorf(e, AS_EINVAL, "agent id is empty");
    struct lane *l = nlanes ? xcalloc(nlanes, sizeof(*l)) : NULL;
    for (size_t i = 0; i < nlanes; i++) {
        l[i].pattern = xstrdup(lanes[i]);
        if (lanes[i][0] == '@' && lanes[i][1])
            continue;
        struct as_err ge;
        if (glob_compile(lanes[i], &l[i].g, &ge) < 0) {
            lanes_free(l, i + 1);
            return as_errorf(e, AS_EINVAL, "lane '%s': %s", lanes[i], ge.msg);
        }
    }
    struct agent *a = agent_get(d, id);
    lanes_free(a->lanes, a->nlanes);
    a->lanes = l;
    a->nlanes = nlanes;
    free(a->label);
    a->label = label ? xstrdup(label) : NULL;
    reconcile(d, now_ms, out);
    return 0;
}

void
conflicts_agent_remove(struct conflicts *d, const char *id, int64_t now_ms)
{
    forget_facts(d, id);
    struct agent *a = agent_find(d, id);
    if (a) {
        agent_clear(a);
        *a = d->ag[--d->nag];
    }
    for (size_t i = 0; i < d->nrec; i++)
        if (rec_involves(&d->rec[i], id))
            d->rec[i].held = false; /* they end with it */
    d->quiet = true;
    reconcile(d, now_ms, NULL);
    d->quiet = false;
}

void
conflicts_agent_leave(struct conflicts *d, const char *id, int64_t now_ms)
{
    forget_facts(d, id);
    struct agent *a = agent_get(d, id);
    char *keep = a->id;
    a->id = NULL;
    agent_clear(a);
    memset(a, 0, sizeof(*a));
    a->id = keep;
    a->away = true;
    for (size_t i = 0; i < d->nrec; i++)
        if (rec_involves(&d->rec[i], id))
            d->rec[i].held = true;
    d->quiet = true;
    reconcile(d, now_ms, NULL);
    d->quiet = false;
}

void
conflicts_agent_back(struct conflicts *d, const char *id, int64_t now_ms,
    struct conflict_msgs *out)
{
    struct agent *a = agent_find(d, id);
    if (!a || !a->away)
        return;
    a->away = false;
    /* what was not found again has ended; a committed conflict waits for
     * the pair's next merge, one with an agent still away for its return */
    for (size_t i = 0; i < d->nrec; i++) {
        struct rec *r = &d->rec[i];
        if (r->held && r->shape != CONFLICT_COMMITTED && rec_involves(r, id) &&
            !other_away(d, r, id))
            r->held = false;
    }
    reconcile(d, now_ms, out);
}

void
conflicts_set_owners(struct conflicts *d, struct owners *o, int64_t now_ms,
    struct conflict_msgs *out)
{
    owners_free(d->owners);
    d->owners = o;
    reconcile(d, now_ms, out);
}

int
conflicts_intent_put(struct conflicts *d, const struct conflict_intent *ci,
    int64_t now_ms, struct conflict_msgs *out, struct as_err *e)
{
    if (!ci->agent || !*ci->agent)
        return as_errorf(e, AS_EINVAL, "intent %llu has no agent",
            (unsigned long long)ci->id);
    struct intent in = { .id = ci->id,
        .created_at = ci->created_at ? ci->created_at : now_ms,
        .expires_at = ci->expires_at };
    in.f = ci->nfiles ? xcalloc(ci->nfiles, sizeof(*in.f)) : NULL;
    int rc = 0;
    for (size_t i = 0; i < ci->nfiles; i++) {
        const struct conflict_intent_file *src = &ci->files[i];
        struct ifile *f = &in.f[in.nf];
        struct as_err ge;
        if (!src->path || !*src->path) {
            rc = as_errorf(e, AS_EINVAL, "intent file %zu is empty", i);
            goto out_free;
        }
        if (glob_compile_path(src->path, &f->g, &ge) < 0) {
            rc = as_errorf(
                e, AS_EINVAL, "intent file '%s': %s", src->path, ge.msg);
            goto out_free;
        }
        if ((rc = regions_copy(src->regions, src->nregions, &f->r, e)) < 0) {
            glob_free(f->g);
            goto out_free;
        }
        f->nr = src->nregions;
        f->path = xstrdup(src->path);
        in.nf++;
    }
    in.agent = xstrdup(ci->agent);
    in.summary = ci->summary ? xstrdup(ci->summary) : NULL;

    char *before = intent_signature(d, in.agent, now_ms);
    bool replaced = false;
    for (size_t i = 0; i < d->nin; i++) {
        if (d->in[i].id != in.id)
            continue;
        if (!ci->created_at) /* the same intent, declared when it was */
            in.created_at = d->in[i].created_at;
        intent_clear(&d->in[i]);
        d->in[i] = in;
        replaced = true;
        break;
    }
    if (!replaced) {
        ALLOC_GROW(d->in, d->nin + 1, d->ain);
        d->in[d->nin++] = in;
    }
    bool away = agent_get(d, ci->agent)->away;
    char *after = intent_signature(d, ci->agent, now_ms);
    if (!away && strcmp(before, after)) {
        /* a new plan: its pairs' forward conflicts are told again (an
         * agent away is being told again what it had) */
        size_t k = 0;
        for (size_t i = 0; i < d->nrec; i++) {
            struct rec *r = &d->rec[i];
            if (r->shape == CONFLICT_FORWARD &&
                (!strcmp(r->a, ci->agent) || !strcmp(r->b, ci->agent))) {
                rec_clear(r);
                continue;
            }
            d->rec[k++] = *r;
        }
        if (k != d->nrec) {
            d->nrec = k;
            index_rebuild(d);
        }
    }
    free(before);
    free(after);
    reconcile(d, now_ms, out);
    return 0;

out_free:
    intent_clear(&in);
    return rc;
}

void
conflicts_intent_drop(
    struct conflicts *d, uint64_t id, int64_t now_ms, struct conflict_msgs *out)
{
    for (size_t i = 0; i < d->nin; i++) {
        if (d->in[i].id != id)
            continue;
        intent_clear(&d->in[i]);
        d->in[i] = d->in[--d->nin];
        break;
    }
    reconcile(d, now_ms, out);
}

void
conflicts_set_modified(struct conflicts *d, const char *agent,
    const char *const *paths, size_t n, int64_t now_ms,
    struct conflict_msgs *out)
{
    conflicts_set_modified_since(d, agent, paths, n, now_ms, now_ms, out);
}

void
conflicts_set_modified_since(struct conflicts *d, const char *agent,
    const char *const *paths, size_t n, int64_t since_ms, int64_t now_ms,
    struct conflict_msgs *out)
{
    struct agent *a = agent_get(d, agent);
    size_t nmod;
    char **mod = strv_sorted_copy(paths, n, &nmod);
    int64_t *since = xcalloc(nmod + 1, sizeof(*since));
    /* both sorted: a path still there keeps when it first appeared */
    size_t j = 0;
    for (size_t i = 0; i < nmod; i++) {
        while (j < a->nmod && strcmp(a->mod[j], mod[i]) < 0)
            j++;
        since[i] = j < a->nmod && !strcmp(a->mod[j], mod[i]) ? a->mod_since[j]
                                                             : since_ms;
    }
    strv_free(a->mod, a->nmod);
    free(a->mod_since);
    a->mod = mod;
    a->mod_since = since;
    a->nmod = nmod;
    reconcile(d, now_ms, out);
}

void
conflicts_report_merge(struct conflicts *d, const char *a, const char *b,
    const char *const *paths, size_t n, int64_t now_ms,
    struct conflict_msgs *out)
{
    if (strcmp(a, b) > 0) {
        const char *t = a;
        a = b;
        b = t;
    }
    struct merge *m = NULL;
    for (size_t i = 0; i < d->nmg; i++)
        if (!strcmp(d->mg[i].a, a) && !strcmp(d->mg[i].b, b))
            m = &d->mg[i];
    if (!m) {
        ALLOC_GROW(d->mg, d->nmg + 1, d->amg);
        m = &d->mg[d->nmg++];
        m->a = xstrdup(a);
        m->b = xstrdup(b);
        m->paths = NULL;
        m->n = 0;
    }
    strv_free(m->paths, m->n);
    m->paths = strv_sorted_copy(paths, n, &m->n);
    /* the pair's committed conflicts held through an absence end unless
     * this merge finds them again */
    const struct agent *x = agent_find(d, a), *y = agent_find(d, b);
    if (!(x && x->away) && !(y && y->away))
        for (size_t i = 0; i < d->nrec; i++) {
            struct rec *r = &d->rec[i];
            if (r->held && r->shape == CONFLICT_COMMITTED && !strcmp(r->a, a) &&
                !strcmp(r->b, b))
                r->held = false;
        }
    reconcile(d, now_ms, out);
}

void
conflicts_report_integration(struct conflicts *d, const char *agent,
    const char *branch, const char *const *paths, size_t n, int64_t now_ms,
    struct conflict_msgs *out)
{
    struct agent *a = agent_get(d, agent);
    const char *name = branch && *branch ? branch : "the integration branch";
    size_t nonto;
    char **onto = strv_sorted_copy(paths, n, &nonto);
    bool same = nonto == a->nonto && a->branch && !strcmp(a->branch, name);
    for (size_t i = 0; same && i < nonto; i++)
        same = !strcmp(onto[i], a->onto[i]);
    if (same) { /* told with every working set: mostly nothing new */
        strv_free(onto, nonto);
        return;
    }
    strv_free(a->onto, a->nonto);
    a->onto = onto;
    a->nonto = nonto;
    free(a->branch);
    a->branch = xstrdup(name);
    reconcile(d, now_ms, out);
}

void
conflicts_tick(struct conflicts *d, int64_t now_ms, struct conflict_msgs *out)
{
    reconcile(d, now_ms, out);
    char win[32];
    fmt_window(d, win, sizeof(win));
    for (size_t i = 0; i < d->nrec; i++) {
        struct rec *r = &d->rec[i];
        bool eligible =
            (r->shape == CONFLICT_IN_FLIGHT && !r->additive) ||
            (r->shape == CONFLICT_COMMITTED && d->cfg.escalate_committed);
        if (!eligible || r->held || r->escalated ||
            now_ms - r->since < d->cfg.window_ms)
            continue;
        r->escalated = true;
        emit(d, out, r, d->supervisor, true,
            xasprintf(CONFLICTS_TAG " escalation: %s conflict between '%s' "
                                    "and '%s' on %s unresolved for %s",
                conflict_shape_name(r->shape), r->a, r->b, r->file, win));
    }
}

static int
cmp_view(const void *x, const void *y)
{
    const struct conflict_view *a = x, *b = y;
    int c;
    if (a->shape != b->shape)
        return a->shape < b->shape ? -1 : 1;
    if ((c = strcmp(a->a, b->a)))
        return c;
    if ((c = strcmp(a->b, b->b)))
        return c;
    return strcmp(a->file, b->file);
}

void
conflicts_list(struct conflicts *d, int64_t now_ms, struct conflict_list *l)
{
    d->quiet = true;
    reconcile(d, now_ms, NULL);
    d->quiet = false;
    size_t first = l->n;
    for (size_t i = 0; i < d->nrec; i++) {
        const struct rec *r = &d->rec[i];
        if (r->held)
            continue;
        ALLOC_GROW(l->v, l->n + 1, l->alloc);
        struct conflict_view *v = &l->v[l->n++];
        v->shape = r->shape;
        v->a = xstrdup(r->a);
        v->b = xstrdup(r->b);
        v->file = xstrdup(r->file);
        v->why = r->why ? xstrdup(r->why) : NULL;
        v->since = r->since;
        v->additive = r->additive;
        v->escalated = r->escalated;
    }
    if (l->n > first)
        qsort(l->v + first, l->n - first, sizeof(*l->v), cmp_view);
}

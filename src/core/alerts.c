/*
 * alerts.c - the alert engine (alerts.h).
 */
#include "core/alerts.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "util/glob.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *const kind_names[ALERT_NKINDS] = {
    [ALERT_STALE_LOCK] = "stale-lock",
    [ALERT_SILENT_AGENT] = "silent-agent",
    [ALERT_WAITING] = "waiting",
    [ALERT_UNADVISED_EDIT] = "unadvised-edit",
    [ALERT_FLEET_GIVEN_UP] = "fleet-given-up",
    [ALERT_STORE_FAILING] = "store-failing",
};

const char *
alert_kind_name(enum alert_kind k)
{
    return (int)k >= 0 && k < ALERT_NKINDS ? kind_names[k] : NULL;
}

bool
alert_kind_parse(const char *name, enum alert_kind *k)
{
    for (int i = 0; i < ALERT_NKINDS; i++)
        if (!strcmp(name, kind_names[i])) {
            *k = (enum alert_kind)i;
            return true;
        }
    return false;
}

void
alerts_config_default(struct alerts_config *c)
{
    c->silent_ms = 10 * 60 * 1000;
    c->waiting_ms = 5 * 60 * 1000;
    c->repeat_ms = 10 * 60 * 1000;
    c->cap = 10;
    c->cap_window_ms = 60 * 1000;
}

/* ---- one alert ---- */

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
alert_copy(struct alert *dst, const struct alert *src)
{
    dst->kind = src->kind;
    dst->subject = xstrdup(src->subject);
    dst->text = xstrdup(src->text);
    dst->nagents = src->nagents;
    dst->agents = src->nagents ? xcalloc(src->nagents, sizeof(char *)) : NULL;
    for (size_t i = 0; i < src->nagents; i++)
        dst->agents[i] = xstrdup(src->agents[i]);
    dst->since = src->since;
}

static void
alert_clear(struct alert *a)
{
    free(a->subject);
    free(a->text);
    for (size_t i = 0; i < a->nagents; i++)
        free(a->agents[i]);
    free(a->agents);
    memset(a, 0, sizeof(*a));
}

bool
alert_concerns(const struct alert *a, const char *id)
{
    for (size_t i = 0; i < a->nagents; i++)
        if (!strcmp(a->agents[i], id))
            return true;
    return false;
}

void
alert_changes_init(struct alert_changes *ch)
{
    memset(ch, 0, sizeof(*ch));
}

void
alert_changes_release(struct alert_changes *ch)
{
    for (size_t i = 0; i < ch->nraised; i++)
        alert_clear(&ch->raised[i]);
    for (size_t i = 0; i < ch->ncleared; i++)
        alert_clear(&ch->cleared[i]);
    free(ch->raised);
    free(ch->cleared);
    alert_changes_init(ch);
}

/* ---- the engine ---- */

/* A notification sent: (kind, subject) at. */
struct sent {
    enum alert_kind kind;
    char *subject;
    int64_t at;
};

struct alerts {
    struct alerts_config c;
    struct alert *v; /* the alerts that hold, in the order raised */
    size_t n, a;
    struct alert *want; /* scratch: what holds at this evaluation */
    size_t nwant, awant;
    struct sent *sent; /* the last notification of each (kind, subject) */
    size_t nsent, asent;
    int64_t *recent; /* the times of the latest notifications (<= cap) */
    size_t nrecent;
    /* the (kind, subject) of each alert of s->v restored (alerts_restore)
     * and not found since (at unused): kept until settle_until */
    struct sent *restored;
    size_t nrestored, arestored;
    int64_t settle_until;
    /* scratch of one evaluation: agent id -> index into the input's
     * agents, and which pairs of them are advised (n * n) */
    struct strmap idx;
    struct strmap heldmap; /* "kind\tsubject" of the alerts held */
    struct strbuf key;
    bool *advised;
    size_t nadv_alloc;
};

struct alerts *
alerts_new(const struct alerts_config *c)
{
    struct alerts *s = xcalloc(1, sizeof(*s));
    s->c = *c;
    strmap_init(&s->idx);
    strmap_init(&s->heldmap);
    if (s->c.cap)
        s->recent = xcalloc(s->c.cap, sizeof(*s->recent));
    return s;
}

void
alerts_free(struct alerts *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        alert_clear(&s->v[i]);
    free(s->v);
    free(s->want);
    for (size_t i = 0; i < s->nsent; i++)
        free(s->sent[i].subject);
    free(s->sent);
    for (size_t i = 0; i < s->nrestored; i++)
        free(s->restored[i].subject);
    free(s->restored);
    free(s->recent);
    strmap_release(&s->idx);
    strmap_release(&s->heldmap);
    free(s->key.s);
    free(s->advised);
    free(s);
}

const struct alert *
alerts_list(const struct alerts *s, size_t *n)
{
    *n = s->n;
    return s->v;
}

/* A list of agent ids being built (sorted, unique at the end). */
struct idlist {
    char **v;
    size_t n, a;
};

static void
ids_add(struct idlist *l, const char *id)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i], id))
            return;
    l->v = xgrow(l->v, sizeof(*l->v), l->n + 1, &l->a);
    l->v[l->n++] = xstrdup(id);
}

/* Add to the wanted set: takes subject, text and the ids. */
static void
want(struct alerts *s, enum alert_kind k, char *subject, char *text,
    struct idlist *ids)
{
    s->want = xgrow(s->want, sizeof(*s->want), s->nwant + 1, &s->awant);
    struct alert *a = &s->want[s->nwant++];
    a->kind = k;
    a->subject = subject;
    a->text = text;
    if (ids && ids->n)
        qsort(ids->v, ids->n, sizeof(*ids->v), cmp_str);
    a->agents = ids ? ids->v : NULL;
    a->nagents = ids ? ids->n : 0;
    a->since = 0;
}

static bool
silent(const struct alerts *s, const struct alert_agent *ag, int64_t now)
{
    return ag->registered && !ag->human && !ag->exited &&
           now - ag->last_seen >= s->c.silent_ms;
}

static const struct alert_agent *
find_agent(
    const struct alerts *s, const struct alerts_input *in, const char *id)
{
    uint32_t i;
    return strmap_get(&s->idx, id, strlen(id), &i) ? &in->agents[i] : NULL;
}

/* The evaluation's scratch: the agents by id, the advised pairs. */
static void
index_input(struct alerts *s, const struct alerts_input *in)
{
    strmap_release(&s->idx);
    strmap_init(&s->idx);
    for (size_t i = 0; i < in->nagents; i++)
        strmap_put(&s->idx, in->agents[i].id, strlen(in->agents[i].id),
            (uint32_t)i, NULL);
    size_t nn = in->nagents * in->nagents;
    if (nn > s->nadv_alloc) {
        free(s->advised);
        s->advised = xcalloc(nn, sizeof(*s->advised));
        s->nadv_alloc = nn;
    }
    if (nn)
        memset(s->advised, 0, nn * sizeof(*s->advised));
    for (size_t k = 0; k < in->nadvised; k++) {
        uint32_t a, b;
        const char *x = in->advised[k].a, *y = in->advised[k].b;
        if (strmap_get(&s->idx, x, strlen(x), &a) &&
            strmap_get(&s->idx, y, strlen(y), &b)) {
            s->advised[(size_t)a * in->nagents + b] = true;
            s->advised[(size_t)b * in->nagents + a] = true;
        }
    }
}

/* A lock's pattern (canonical: locks.h) ready to test paths: a path
 * without wildcards is anchored and covers what lies under it; a glob with
 * a '/' is anchored too, so its literal directories must lead a path it
 * matches (a cheap test first: most locks are far from most files). */
struct cover {
    const char *pattern, *p;
    bool magic;
    size_t n; /* the literal part that must lead the path */
};

static void
cover_init(struct cover *c, const char *pattern)
{
    c->pattern = pattern;
    c->p = *pattern == '/' ? pattern + 1 : pattern;
    c->magic = glob_has_magic(c->p);
    if (!c->magic) {
        c->n = strlen(c->p);
        return;
    }
    size_t lit = strcspn(c->p, "*?[\\");
    c->n = 0;
    for (size_t k = 0; k < lit; k++)
        if (c->p[k] == '/')
            c->n = k + 1;
}

static bool
covers(const struct cover *c, const char *path)
{
    if (strncmp(c->p, path, c->n))
        return false;
    if (!c->magic)
        return !path[c->n] || path[c->n] == '/';
    return glob_match(c->pattern, path);
}

static const char *
key_of(struct alerts *s, enum alert_kind k, const char *subject)
{
    s->key.len = 0;
    strbuf_addf(&s->key, "%d\t%s", (int)k, subject);
    return s->key.s;
}

static bool
held(struct alerts *s, enum alert_kind k, const char *subject)
{
    key_of(s, k, subject);
    return strmap_get(&s->heldmap, s->key.s, s->key.len, NULL);
}

static void
want_locks(struct alerts *s, const struct alerts_input *in, int64_t now)
{
    for (size_t i = 0; i < in->nlocks; i++) {
        const struct alert_lock *l = &in->locks[i];
        const struct alert_agent *h = find_agent(s, in, l->holder);
        if (!h || h->exited || !(h->stale || silent(s, h, now)))
            continue;
        char *subject = xasprintf("%" PRIu64, l->token);
        if (held(s, ALERT_STALE_LOCK, subject)) {
            want(s, ALERT_STALE_LOCK, subject, xstrdup(""), NULL);
            continue;
        }
        struct idlist ids = { 0 };
        ids_add(&ids, l->holder);
        struct cover cv;
        cover_init(&cv, l->pattern);
        for (size_t k = 0; k < in->nagents; k++) {
            const struct alert_agent *o = &in->agents[k];
            if (o->exited || !strcmp(o->id, l->holder))
                continue;
            for (size_t f = 0; f < o->nfiles; f++)
                if (covers(&cv, o->files[f])) {
                    ids_add(&ids, o->id);
                    break;
                }
        }
        want(s, ALERT_STALE_LOCK, subject,
            xasprintf("%s '%s' is held by '%s', silent for %llds",
                l->claim ? "claim" : "lock", l->pattern, l->holder,
                (long long)((now - h->last_seen) / 1000)),
            &ids);
    }
}

static void
want_silent(struct alerts *s, const struct alerts_input *in, int64_t now)
{
    for (size_t i = 0; i < in->nagents; i++) {
        const struct alert_agent *ag = &in->agents[i];
        if (!silent(s, ag, now))
            continue;
        struct idlist ids = { 0 };
        ids_add(&ids, ag->id);
        want(s, ALERT_SILENT_AGENT, xstrdup(ag->id),
            xasprintf("agent '%s' has been silent for %llds", ag->id,
                (long long)((now - ag->last_seen) / 1000)),
            &ids);
    }
}

static void
want_waiting(struct alerts *s, const struct alerts_input *in, int64_t now)
{
    for (size_t i = 0; i < in->nwaits; i++) {
        const struct alert_wait *w = &in->waits[i];
        if (now - w->since < s->c.waiting_ms)
            continue;
        struct idlist ids = { 0 };
        for (size_t k = 0; k < w->nagents; k++)
            if (w->agents[k])
                ids_add(&ids, w->agents[k]);
        want(s, ALERT_WAITING, xstrdup(w->key),
            xasprintf("waiting for a person for %llds: %s",
                (long long)((now - w->since) / 1000), w->text),
            &ids);
    }
}

/* A path and the agents changing it (indices into the input's agents). */
struct pathgroup {
    const char *path;
    size_t *who;
    size_t n, a;
};

static void
want_unadvised(struct alerts *s, const struct alerts_input *in)
{
    /* each path's agents, in one pass */
    struct strmap paths;
    strmap_init(&paths);
    struct pathgroup *g = NULL;
    size_t ng = 0, ag = 0;
    for (size_t i = 0; i < in->nagents; i++) {
        const struct alert_agent *x = &in->agents[i];
        if (x->exited)
            continue;
        for (size_t f = 0; f < x->nfiles; f++) {
            bool added;
            uint32_t k = strmap_put(
                &paths, x->files[f], strlen(x->files[f]), (uint32_t)ng, &added);
            if (added) {
                g = xgrow(g, sizeof(*g), ng + 1, &ag);
                memset(&g[ng], 0, sizeof(g[ng]));
                g[ng++].path = x->files[f];
            }
            struct pathgroup *pg = &g[k];
            if (pg->n && pg->who[pg->n - 1] == i)
                continue; /* a path listed twice */
            pg->who = xgrow(pg->who, sizeof(*pg->who), pg->n + 1, &pg->a);
            pg->who[pg->n++] = i;
        }
    }
    for (size_t k = 0; k < ng; k++) {
        struct pathgroup *pg = &g[k];
        bool unadvised = false;
        for (size_t x = 0; x < pg->n && !unadvised; x++)
            for (size_t y = x + 1; y < pg->n && !unadvised; y++)
                unadvised = !s->advised[pg->who[x] * in->nagents + pg->who[y]];
        if (unadvised && held(s, ALERT_UNADVISED_EDIT, pg->path)) {
            want(s, ALERT_UNADVISED_EDIT, xstrdup(pg->path), xstrdup(""), NULL);
        } else if (unadvised) {
            struct idlist ids = { 0 };
            for (size_t x = 0; x < pg->n; x++)
                ids_add(&ids, in->agents[pg->who[x]].id);
            qsort(ids.v, ids.n, sizeof(*ids.v), cmp_str);
            struct strbuf t = STRBUF_INIT;
            strbuf_addf(&t, "%s is changed by", pg->path);
            for (size_t x = 0; x < ids.n; x++)
                strbuf_addf(&t, "%s '%s'",
                    x == 0           ? ""
                    : x + 1 == ids.n ? " and"
                                     : ",",
                    ids.v[x]);
            strbuf_addf(&t, " with no advisory between them");
            want(s, ALERT_UNADVISED_EDIT, xstrdup(pg->path), t.s, &ids);
        }
        free(pg->who);
    }
    free(g);
    strmap_release(&paths);
}

static void
want_fleet(struct alerts *s, const struct alerts_input *in)
{
    for (size_t i = 0; i < in->nfleet; i++) {
        const struct alert_fleet *f = &in->fleet[i];
        if (!f->given_up)
            continue;
        struct idlist ids = { 0 };
        ids_add(&ids, f->name);
        want(s, ALERT_FLEET_GIVEN_UP, xstrdup(f->name),
            xasprintf("fleet agent '%s' was given up after %u restart%s%s%s",
                f->name, f->restarts, f->restarts == 1 ? "" : "s",
                f->why && *f->why ? ": " : "", f->why ? f->why : ""),
            &ids);
    }
}

static void
push(struct alert **v, size_t *n, struct alert *a)
{
    *v = xrealloc(*v, (*n + 1) * sizeof(**v));
    (*v)[(*n)++] = *a;
}

/* Where (k, subject) is in s->restored; s->nrestored when it is not. */
static size_t
restored_find(const struct alerts *s, enum alert_kind k, const char *subject)
{
    size_t i = 0;
    while (i < s->nrestored && (s->restored[i].kind != k ||
                                   strcmp(s->restored[i].subject, subject)))
        i++;
    return i;
}

size_t
alerts_eval(struct alerts *s, const struct alerts_input *in, int64_t now,
    struct alert_changes *ch)
{
    s->nwant = 0;
    index_input(s, in);
    strmap_release(&s->heldmap);
    strmap_init(&s->heldmap);
    for (size_t i = 0; i < s->n; i++) {
        key_of(s, s->v[i].kind, s->v[i].subject);
        strmap_put(&s->heldmap, s->key.s, s->key.len, 0, NULL);
    }
    want_locks(s, in, now);
    want_silent(s, in, now);
    want_waiting(s, in, now);
    want_unadvised(s, in);
    want_fleet(s, in);
    if (in->store_error && *in->store_error)
        want(s, ALERT_STORE_FAILING, xstrdup("store"),
            xasprintf("the store refuses writes: %s", in->store_error), NULL);
    size_t changed = 0;
    struct strmap wanted;
    strmap_init(&wanted);
    for (size_t i = 0; i < s->nwant; i++) {
        key_of(s, s->want[i].kind, s->want[i].subject);
        strmap_put(&wanted, s->key.s, s->key.len, 0, NULL);
    }
    /* cleared: held, no longer wanted (kept in order); a restored one
     * not found yet waits until settle_until */
    size_t kept = 0;
    for (size_t i = 0; i < s->n; i++) {
        key_of(s, s->v[i].kind, s->v[i].subject);
        bool holds = strmap_get(&wanted, s->key.s, s->key.len, NULL);
        size_t r = restored_find(s, s->v[i].kind, s->v[i].subject);
        if (r < s->nrestored && (holds || now >= s->settle_until)) {
            free(s->restored[r].subject);
            s->restored[r] = s->restored[--s->nrestored];
        } else if (r < s->nrestored) {
            holds = true;
        }
        if (holds) {
            s->v[kept++] = s->v[i];
            continue;
        }
        push(&ch->cleared, &ch->ncleared, &s->v[i]);
        changed++;
    }
    s->n = kept;
    /* raised: wanted, not held */
    for (size_t i = 0; i < s->nwant; i++) {
        struct alert *w = &s->want[i];
        bool added;
        key_of(s, w->kind, w->subject);
        strmap_put(&s->heldmap, s->key.s, s->key.len, 0, &added);
        if (!added) { /* held already (or wanted twice) */
            alert_clear(w);
            continue;
        }
        w->since = now;
        struct alert copy;
        alert_copy(&copy, w);
        push(&ch->raised, &ch->nraised, &copy);
        s->v = xgrow(s->v, sizeof(*s->v), s->n + 1, &s->a);
        s->v[s->n++] = *w;
        changed++;
    }
    s->nwant = 0;
    strmap_release(&wanted);
    return changed;
}

/* The last notification of (k, subject) remembered, or NULL. */
static struct sent *
sent_find(const struct alerts *s, enum alert_kind k, const char *subject)
{
    for (size_t i = 0; i < s->nsent; i++)
        if (s->sent[i].kind == k && !strcmp(s->sent[i].subject, subject))
            return &s->sent[i];
    return NULL;
}

int64_t
alerts_notified_at(
    const struct alerts *s, enum alert_kind k, const char *subject)
{
    const struct sent *x = sent_find(s, k, subject);
    return x ? x->at : 0;
}

void
alerts_restore(struct alerts *s, const struct alert *a, bool held,
    int64_t notified_at, int64_t settle_until)
{
    bool known = false;
    for (size_t i = 0; i < s->n && !known; i++)
        known = s->v[i].kind == a->kind && !strcmp(s->v[i].subject, a->subject);
    if (held && !known) {
        s->v = xgrow(s->v, sizeof(*s->v), s->n + 1, &s->a);
        alert_copy(&s->v[s->n++], a);
        s->restored = xgrow(
            s->restored, sizeof(*s->restored), s->nrestored + 1, &s->arestored);
        s->restored[s->nrestored++] =
            (struct sent){ a->kind, xstrdup(a->subject), 0 };
        if (settle_until > s->settle_until)
            s->settle_until = settle_until;
    }
    if (notified_at <= 0)
        return;
    struct sent *x = sent_find(s, a->kind, a->subject);
    if (!x) {
        s->sent = xgrow(s->sent, sizeof(*s->sent), s->nsent + 1, &s->asent);
        x = &s->sent[s->nsent++];
        *x = (struct sent){ a->kind, xstrdup(a->subject), notified_at };
    } else if (notified_at > x->at) {
        x->at = notified_at;
    }
    /* the cap's window: recent keeps the latest cap times, oldest first */
    if (!s->c.cap || (s->nrecent == s->c.cap && notified_at <= s->recent[0]))
        return;
    if (s->nrecent == s->c.cap)
        memmove(s->recent, s->recent + 1, --s->nrecent * sizeof(*s->recent));
    size_t k = s->nrecent;
    while (k && s->recent[k - 1] > notified_at) {
        s->recent[k] = s->recent[k - 1];
        k--;
    }
    s->recent[k] = notified_at;
    s->nrecent++;
}

bool
alerts_notify_take(
    struct alerts *s, const struct alert *a, int64_t now, const char **why)
{
    struct sent *last = sent_find(s, a->kind, a->subject);
    if (last && now - last->at < s->c.repeat_ms) {
        *why = "repeat";
        return false;
    }
    /* recent holds up to cap times, oldest first */
    size_t k = 0;
    while (k < s->nrecent && now - s->recent[k] >= s->c.cap_window_ms)
        k++;
    memmove(s->recent, s->recent + k, (s->nrecent - k) * sizeof(*s->recent));
    s->nrecent -= k;
    if (s->nrecent >= s->c.cap) {
        *why = "cap";
        return false;
    }
    s->recent[s->nrecent++] = now;
    if (!last) {
        /* forget (kind, subject)s older than repeat_ms: they may go again */
        for (size_t i = 0; i < s->nsent;)
            if (now - s->sent[i].at >= s->c.repeat_ms) {
                free(s->sent[i].subject);
                s->sent[i] = s->sent[--s->nsent];
            } else {
                i++;
            }
        s->sent = xgrow(s->sent, sizeof(*s->sent), s->nsent + 1, &s->asent);
        last = &s->sent[s->nsent++];
        last->kind = a->kind;
        last->subject = xstrdup(a->subject);
    }
    last->at = now;
    *why = NULL;
    return true;
}

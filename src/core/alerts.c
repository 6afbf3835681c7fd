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

void
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

void
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
};

struct alerts *
alerts_new(const struct alerts_config *c)
{
    struct alerts *s = xcalloc(1, sizeof(*s));
    s->c = *c;
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
    free(s->recent);
    free(s);
}

const struct alerts_config *
alerts_config(const struct alerts *s)
{
    return &s->c;
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
    return ag->registered && !ag->exited &&
           now - ag->last_seen >= s->c.silent_ms;
}

static const struct alert_agent *
find_agent(const struct alerts_input *in, const char *id)
{
    for (size_t i = 0; i < in->nagents; i++)
        if (!strcmp(in->agents[i].id, id))
            return &in->agents[i];
    return NULL;
}

static bool
has_file(const struct alert_agent *ag, const char *path)
{
    for (size_t i = 0; i < ag->nfiles; i++)
        if (!strcmp(ag->files[i], path))
            return true;
    return false;
}

static bool
advised(const struct alerts_input *in, const char *x, const char *y)
{
    for (size_t i = 0; i < in->nadvised; i++) {
        const struct alert_pair *p = &in->advised[i];
        if ((!strcmp(p->a, x) && !strcmp(p->b, y)) ||
            (!strcmp(p->a, y) && !strcmp(p->b, x)))
            return true;
    }
    return false;
}

/* Whether pattern (a lock's) covers path: the glob, or a directory it
 * names. */
static bool
covers(const char *pattern, const char *path)
{
    if (glob_match(pattern, path))
        return true;
    size_t n = strlen(pattern);
    return !glob_has_magic(pattern) && !strncmp(pattern, path, n) &&
           path[n] == '/';
}

static void
want_locks(struct alerts *s, const struct alerts_input *in, int64_t now)
{
    for (size_t i = 0; i < in->nlocks; i++) {
        const struct alert_lock *l = &in->locks[i];
        const struct alert_agent *h = find_agent(in, l->holder);
        if (!h || h->exited || !(h->stale || silent(s, h, now)))
            continue;
        struct idlist ids = { 0 };
        ids_add(&ids, l->holder);
        for (size_t k = 0; k < in->nagents; k++) {
            const struct alert_agent *o = &in->agents[k];
            if (o->exited || !strcmp(o->id, l->holder))
                continue;
            for (size_t f = 0; f < o->nfiles; f++)
                if (covers(l->pattern, o->files[f])) {
                    ids_add(&ids, o->id);
                    break;
                }
        }
        want(s, ALERT_STALE_LOCK, xasprintf("%" PRIu64, l->token),
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

static void
want_unadvised(struct alerts *s, const struct alerts_input *in)
{
    for (size_t i = 0; i < in->nagents; i++) {
        const struct alert_agent *x = &in->agents[i];
        if (x->exited)
            continue;
        for (size_t f = 0; f < x->nfiles; f++) {
            const char *path = x->files[f];
            /* once per path: at its first agent */
            bool earlier = false;
            for (size_t j = 0; j < i && !earlier; j++)
                earlier =
                    !in->agents[j].exited && has_file(&in->agents[j], path);
            if (earlier)
                continue;
            struct idlist ids = { 0 };
            bool unadvised = false;
            ids_add(&ids, x->id);
            for (size_t j = i + 1; j < in->nagents; j++) {
                const struct alert_agent *y = &in->agents[j];
                if (y->exited || !has_file(y, path))
                    continue;
                for (size_t k = 0; k < ids.n && !unadvised; k++)
                    unadvised = !advised(in, ids.v[k], y->id);
                ids_add(&ids, y->id);
            }
            if (!unadvised) {
                for (size_t k = 0; k < ids.n; k++)
                    free(ids.v[k]);
                free(ids.v);
                continue;
            }
            struct strbuf t = STRBUF_INIT;
            strbuf_addf(&t, "%s is changed by", path);
            for (size_t k = 0; k < ids.n; k++)
                strbuf_addf(&t, "%s '%s'",
                    k == 0           ? ""
                    : k + 1 == ids.n ? " and"
                                     : ",",
                    ids.v[k]);
            strbuf_addf(&t, " with no advisory between them");
            want(s, ALERT_UNADVISED_EDIT, xstrdup(path), t.s, &ids);
        }
    }
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

static ssize_t
find_alert(const struct alert *v, size_t n, enum alert_kind k, const char *subj)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].kind == k && !strcmp(v[i].subject, subj))
            return (ssize_t)i;
    return -1;
}

static void
push(struct alert **v, size_t *n, struct alert *a)
{
    *v = xrealloc(*v, (*n + 1) * sizeof(**v));
    (*v)[(*n)++] = *a;
}

size_t
alerts_eval(struct alerts *s, const struct alerts_input *in, int64_t now,
    struct alert_changes *ch)
{
    s->nwant = 0;
    want_locks(s, in, now);
    want_silent(s, in, now);
    want_waiting(s, in, now);
    want_unadvised(s, in);
    want_fleet(s, in);
    if (in->store_error && *in->store_error)
        want(s, ALERT_STORE_FAILING, xstrdup("store"),
            xasprintf("the store refuses writes: %s", in->store_error), NULL);
    size_t changed = 0;
    /* cleared: held, no longer wanted */
    for (size_t i = 0; i < s->n;) {
        if (find_alert(s->want, s->nwant, s->v[i].kind, s->v[i].subject) >= 0) {
            i++;
            continue;
        }
        push(&ch->cleared, &ch->ncleared, &s->v[i]);
        memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof(*s->v));
        s->n--;
        changed++;
    }
    /* raised: wanted, not held */
    for (size_t i = 0; i < s->nwant; i++) {
        struct alert *w = &s->want[i];
        if (find_alert(s->v, s->n, w->kind, w->subject) >= 0) {
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
    return changed;
}

bool
alerts_notify_take(
    struct alerts *s, const struct alert *a, int64_t now, const char **why)
{
    struct sent *last = NULL;
    for (size_t i = 0; i < s->nsent && !last; i++)
        if (s->sent[i].kind == a->kind &&
            !strcmp(s->sent[i].subject, a->subject))
            last = &s->sent[i];
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

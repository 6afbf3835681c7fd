/*
 * airspace.c - the daemon's domain as a pure state machine (airspace.h).
 *
 * Longer than 1,000 lines on purpose: every operation (agents, locks and
 * fencing, intents, messages, advisories, alerts) reads and writes the one
 * private state and emits its events through the same helpers; split
 * files would have to share that state through a header of internals.
 */
#include "airspace/airspace.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/similar.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *const message_types[] = { "info", "question", "claim",
    "release", "delegate", "handoff", "ack", "block", NULL };

static char *
dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

static bool
str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

const char *
as_event_kind_name(enum as_event_kind k)
{
    static const char *const names[] = { "agent.registered", "agent.status",
        "agent.seen", "agent.gone", "lock", "intent.declared", "intent.dropped",
        "intent.expired", "message", "message.delivered", "message.read",
        "message.dropped", "inbox.moved", "intent.changed", "agent.renamed",
        "agent.shared" };
    return (size_t)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

void
as_config_default(struct as_config *c)
{
    memset(c, 0, sizeof(*c));
    lock_config_default(&c->locks);
    c->stale_ms = 120000;
    c->inbox_max = AS_INBOX_MAX;
}

struct airspace *
as_new(const struct as_config *c)
{
    struct airspace *as = xcalloc(1, sizeof(*as));
    if (c)
        as->cfg = *c;
    else
        as_config_default(&as->cfg);
    if (!as->cfg.inbox_max || as->cfg.inbox_max > AS_INBOX_MAX)
        as->cfg.inbox_max = AS_INBOX_MAX;
    as->locks = lock_table_new(&as->cfg.locks);
    as->own_locks = true;
    as->cfg.locks.root = NULL; /* the table keeps its own copy */
    as->next_intent_id = 1;
    as->next_message_id = 1;
    strmap_init(&as->inbox_idx);
    return as;
}

static void
intent_clear(struct as_intent *in)
{
    free(in->agent);
    for (size_t k = 0; k < in->nfiles; k++)
        free(in->files[k]);
    free(in->files);
    free(in->regions);
    free(in->summary);
    memset(in, 0, sizeof(*in));
}

static void
intent_copy(struct as_intent *dst, const struct as_intent *src)
{
    *dst = *src;
    dst->agent = dup_or_null(src->agent);
    dst->files = xcalloc(src->nfiles ? src->nfiles : 1, sizeof(*dst->files));
    for (size_t k = 0; k < src->nfiles; k++)
        dst->files[k] = xstrdup(src->files[k]);
    dst->regions = dup_or_null(src->regions);
    dst->summary = dup_or_null(src->summary);
}

static void
message_clear(struct as_message *m)
{
    free(m->from);
    free(m->to);
    free(m->type);
    free(m->body);
    memset(m, 0, sizeof(*m));
}

static void
message_copy(struct as_message *dst, const struct as_message *src)
{
    *dst = *src;
    dst->from = dup_or_null(src->from);
    dst->to = dup_or_null(src->to);
    dst->type = dup_or_null(src->type);
    dst->body = dup_or_null(src->body);
}

static void
lanes_clear(struct as_agent *a)
{
    for (size_t k = 0; k < a->nlanes; k++)
        free(a->lanes[k]);
    free(a->lanes);
    a->lanes = NULL;
    a->nlanes = 0;
}

static void
lanes_set(struct as_agent *a, const char *const *v, size_t n)
{
    lanes_clear(a);
    a->nlanes = n;
    a->lanes = xcalloc(n ? n : 1, sizeof(*a->lanes));
    for (size_t k = 0; k < n; k++)
        a->lanes[k] = xstrdup(v[k] ? v[k] : "");
}

static void
agent_clear(struct as_agent *a)
{
    free(a->id);
    free(a->label);
    free(a->client);
    free(a->worktree);
    lanes_clear(a);
    memset(a, 0, sizeof(*a));
}

static void
agent_copy(struct as_agent *dst, const struct as_agent *src)
{
    *dst = *src;
    dst->id = dup_or_null(src->id);
    dst->label = dup_or_null(src->label);
    dst->client = dup_or_null(src->client);
    dst->worktree = dup_or_null(src->worktree);
    dst->lanes = NULL;
    dst->nlanes = 0;
    lanes_set(dst, (const char *const *)src->lanes, src->nlanes);
}

static void
inbox_clear(struct as_inbox *x)
{
    for (size_t k = 0; k < x->n; k++)
        message_clear(&x->v[k]);
    free(x->v);
    x->v = NULL;
    x->n = x->a = 0;
}

void
as_use_locks(struct airspace *as, struct lock_table *t)
{
    if (as->own_locks && as->locks != t)
        lock_table_free(as->locks);
    as->locks = t;
    as->own_locks = false;
}

void
as_free(struct airspace *as)
{
    if (!as)
        return;
    for (size_t i = 0; i < as->nagents; i++)
        agent_clear(&as->agents[i]);
    free(as->agents);
    if (as->own_locks)
        lock_table_free(as->locks);
    for (size_t k = 0; k < as->nintents; k++)
        intent_clear(&as->intents[k]);
    free(as->intents);
    for (size_t k = 0; k < as->ninboxes; k++) {
        inbox_clear(&as->inboxes[k]);
        free(as->inboxes[k].owner);
    }
    free(as->inboxes);
    strmap_release(&as->inbox_idx);
    free(as);
}

/* ---- events and results ---- */

void
as_events_init(struct as_events *ev)
{
    memset(ev, 0, sizeof(*ev));
}

static void
event_clear(struct as_event *x)
{
    free(x->agent);
    free(x->label);
    agent_clear(&x->who);
    free(x->lock.actor);
    lock_clear(&x->lock.lock);
    intent_clear(&x->intent);
    free(x->owner);
    free(x->other);
    message_clear(&x->msg);
}

void
as_events_clear(struct as_events *ev)
{
    for (size_t k = 0; k < ev->n; k++)
        event_clear(&ev->v[k]);
    ev->n = 0;
}

void
as_events_release(struct as_events *ev)
{
    as_events_clear(ev);
    free(ev->v);
    as_events_init(ev);
}

/* A new zeroed event of kind at now, about agent (copied); NULL when out
 * is NULL (events discarded). */
static struct as_event *
push(struct as_events *out, enum as_event_kind kind, int64_t now,
    const char *agent)
{
    if (!out)
        return NULL;
    ALLOC_GROW(out->v, out->n + 1, out->a);
    struct as_event *x = &out->v[out->n++];
    memset(x, 0, sizeof(*x));
    x->kind = kind;
    x->at = now;
    x->agent = dup_or_null(agent);
    return x;
}

/* Move core/locks' events into out (one AS_EV_LOCK each); empties lev. */
static size_t
take_lock_events(struct as_events *out, struct lock_events *lev)
{
    size_t n = lev->n;
    for (size_t k = 0; k < lev->n; k++) {
        struct as_event *x =
            push(out, AS_EV_LOCK, lev->v[k].at_ms, lev->v[k].lock.holder);
        if (x) {
            x->lock = lev->v[k];
            memset(&lev->v[k], 0, sizeof(lev->v[k]));
        }
    }
    lock_events_release(lev);
    return n;
}

void
as_result_init(struct as_result *r)
{
    memset(r, 0, sizeof(*r));
}

void
as_result_release(struct as_result *r)
{
    if (r->have_lock)
        lock_clear(&r->lock);
    for (size_t k = 0; k < r->nmsgs; k++)
        message_clear(&r->msgs[k]);
    free(r->msgs);
    free(r->agent);
    free(r->renamed_from);
    as_result_init(r);
}

__attribute__((format(printf, 4, 5))) static int
fail(struct as_result *res, int rc, const char *code, const char *fmt, ...)
{
    res->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->err.msg, sizeof(res->err.msg), fmt, ap);
    va_end(ap);
    return rc;
}

static void
set_lock(struct as_result *res, const struct lock *l)
{
    if (res->have_lock)
        lock_clear(&res->lock);
    res->have_lock = l != NULL;
    if (l)
        lock_copy(&res->lock, l);
}

/* ---- agents ---- */

static struct as_agent *
find_agent(const struct airspace *as, const char *id)
{
    for (size_t i = 0; id && i < as->nagents; i++)
        if (!strcmp(as->agents[i].id, id))
            return &as->agents[i];
    return NULL;
}

const struct as_agent *
as_agent_find(const struct airspace *as, const char *id)
{
    return find_agent(as, id);
}

static struct as_agent *
need_agent(const struct airspace *as, const char *id, struct as_result *res)
{
    struct as_agent *a = find_agent(as, id);
    if (!a)
        fail(res, AS_ENOENT, "unknown_agent", "no agent '%s'", id ? id : "");
    return a;
}

static void
set_status(struct as_agent *a, enum as_agent_status s, int64_t now,
    const char *why, struct as_events *out)
{
    if (a->status == s)
        return;
    a->status = s;
    struct as_event *x = push(out, AS_EV_AGENT_STATUS, now, a->id);
    if (x) {
        x->status = s;
        x->reason = why;
    }
}

/* An event about agent a carrying a copy of it. */
static struct as_event *
agent_event(struct as_events *out, enum as_event_kind kind, int64_t now,
    const struct as_agent *a)
{
    struct as_event *x = push(out, kind, now, a->id);
    if (x) {
        agent_copy(&x->who, a);
        x->label = dup_or_null(a->label);
        x->registered = a->registered;
    }
    return x;
}

/* A new agent with this id (the caller made sure it is free), heard from
 * at now. */
static struct as_agent *
add_agent(struct airspace *as, const char *id, int64_t now)
{
    ALLOC_GROW(as->agents, as->nagents + 1, as->aagents);
    struct as_agent *a = &as->agents[as->nagents++];
    memset(a, 0, sizeof(*a));
    a->id = xstrdup(id);
    a->registered_at = a->last_seen = now;
    return a;
}

/* want, else want-2, want-3, ...: the first id no agent has. */
static char *
unique_id(const struct airspace *as, const char *want)
{
    for (unsigned k = 1;; k++) {
        char *id = k == 1 ? xstrdup(want) : xasprintf("%s-%u", want, k);
        if (!find_agent(as, id))
            return id;
        free(id);
    }
}

static void release_locks_of(
    struct airspace *as, const char *id, int64_t now, struct as_events *out);
static void forget(struct airspace *as, struct as_agent *a, int64_t now,
    const char *why, struct as_events *out);
static void drop_intents_of(
    struct airspace *as, const char *id, int64_t now, struct as_events *out);

/* Agent a was heard from at now. */
static void
heard(struct as_agent *a, int64_t now, struct as_events *out)
{
    a->last_seen = now;
    push(out, AS_EV_AGENT_SEEN, now, a->id);
}

static void share_follow(
    struct airspace *as, const char *wt, int64_t now, struct as_events *out);

/* Agent a stops flying (stale or exited): what it locked goes first, each
 * lock evented, then its status; an agent that exits may leave its
 * worktree to one agent (share_follow), which may forget that worktree's
 * human: a is not to be used after. */
static void
ground(struct airspace *as, struct as_agent *a, enum as_agent_status s,
    int64_t now, const char *why, struct as_events *out)
{
    /* A copy of another daemon's agent (a peer) holds its leases there:
     * gone or silent here, they stay until their daemon releases them or
     * their TTL runs out (docs/team.md, "Failure modes") */
    if (!a->peer)
        release_locks_of(as, a->id, now, out); /* touches no agent */
    set_status(a, s, now, why, out);
    if (s == AS_AGENT_EXITED && a->registered && !a->human_residual &&
        a->worktree) {
        char *wt = xstrdup(a->worktree);
        share_follow(as, wt, now, out);
        free(wt);
    }
}

int
as_register(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    if (!req->agent || !*req->agent || strlen(req->agent) > LOCK_HOLDER_MAX)
        return fail(res, AS_EINVAL, "bad_field",
            "'id' must be a non-empty id of at most %d bytes", LOCK_HOLDER_MAX);
    if (!strcmp(req->agent, AS_SUPERVISOR) || !strcmp(req->agent, "all"))
        return fail(
            res, AS_EINVAL, "bad_field", "'%s' is a reserved id", req->agent);
    struct as_agent *a = find_agent(as, req->agent);
    if (!a)
        a = add_agent(as, req->agent, now);
    free(a->label);
    a->label = dup_or_null(req->label);
    a->registered = req->registered;
    a->last_seen = now;
    agent_event(out, AS_EV_AGENT_REGISTERED, now, a);
    set_status(a, AS_AGENT_ACTIVE, now, "registered", out);
    return 0;
}

static void
set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = xstrdup(s);
}

/* The human of worktree wt, made unless it is there; whether it was made. */
static bool
human_of(struct airspace *as, const char *wt, int64_t now,
    struct as_result *res, struct as_events *out)
{
    for (size_t j = 0; j < as->nagents; j++)
        if (as->agents[j].human_residual && as->agents[j].worktree &&
            !strcmp(as->agents[j].worktree, wt))
            return false;
    const char *slash = strrchr(wt, '/');
    char *want = xasprintf("human@%s", slash ? slash + 1 : wt);
    char *id = unique_id(as, want);
    free(want);
    struct as_agent *h = add_agent(as, id, now);
    free(id);
    h->human = true;
    h->worktree = xstrdup(wt);
    h->client = xstrdup("human");
    h->from_worktree = true;
    h->human_residual = true;
    agent_event(out, AS_EV_AGENT_REGISTERED, now, h);
    if (res) {
        free(res->agent);
        res->agent = xstrdup(h->id);
    }
    return true;
}

/* Whether agent id holds a live lock or claim at now. */
static bool
holds_any(const struct airspace *as, const char *id, int64_t now)
{
    size_t n;
    const struct lock *const *v = lock_table_list(as->locks, now, &n);
    for (size_t k = 0; k < n; k++)
        if (!strcmp(v[k]->holder, id))
            return true;
    return false;
}

/*
 * Worktree wt is no longer shared (one registered agent flies there, or
 * none): the agents there that have not exited (and agent joining,
 * whatever its status; SIZE_MAX: none) read their working sets from it
 * again, everything its change holds (shared false, from_worktree:
 * AS_EV_AGENT_SHARED each), and its human leaves (forget), unless the
 * person holds a lock or a claim under it. An exited agent keeps its
 * flags: it owns none of that work.
 */
static void
unshare_worktree(struct airspace *as, const char *wt, size_t joining,
    int64_t now, struct as_events *out)
{
    for (size_t j = 0; j < as->nagents; j++) {
        struct as_agent *o = &as->agents[j];
        if (!o->shared || o->human_residual || !o->worktree ||
            strcmp(o->worktree, wt) ||
            (j != joining && o->status == AS_AGENT_EXITED))
            continue;
        o->shared = false;
        o->from_worktree = true;
        agent_event(out, AS_EV_AGENT_SHARED, now, o);
    }
    for (size_t j = 0; j < as->nagents;) {
        struct as_agent *h = &as->agents[j];
        if (h->human_residual && h->worktree && !strcmp(h->worktree, wt) &&
            !holds_any(as, h->id, now))
            forget(as, h, now, "not shared", out); /* j is the next now */
        else
            j++;
    }
}

/* How many registered agents other than agent i (SIZE_MAX: none) fly in
 * worktree wt: with active, those active, else those not exited. */
static size_t
flying_in(const struct airspace *as, const char *wt, size_t i, bool active)
{
    size_t n = 0;
    for (size_t j = 0; j < as->nagents; j++) {
        const struct as_agent *o = &as->agents[j];
        n += j != i && o->registered && o->worktree && !o->human_residual &&
             (active ? o->status == AS_AGENT_ACTIVE
                     : o->status != AS_AGENT_EXITED) &&
             !strcmp(o->worktree, wt);
    }
    return n;
}

/* A registered agent of worktree wt exited or was forgotten: with one
 * registered agent left flying there, or none, it is no longer shared. */
static void
share_follow(
    struct airspace *as, const char *wt, int64_t now, struct as_events *out)
{
    if (flying_in(as, wt, SIZE_MAX, false) <= 1)
        unshare_worktree(as, wt, SIZE_MAX, now, out);
}

/* Agent i registers in its worktree: shared when another registered,
 * active agent flies there (as_join); no longer shared when no other
 * registered agent flies there (a visitor that left, a session after
 * them). */
static void
share_worktree(
    struct airspace *as, size_t i, int64_t now, struct as_events *out)
{
    char *wt = xstrdup(as->agents[i].worktree);
    if (!flying_in(as, wt, i, false))
        unshare_worktree(as, wt, i, now, out);
    else if (flying_in(as, wt, i, true)) {
        for (size_t j = 0; j < as->nagents; j++) {
            struct as_agent *o = &as->agents[j];
            /* (agent i is being registered right now) */
            if ((!o->registered && j != i) || o->human_residual ||
                !o->worktree || strcmp(o->worktree, wt) || o->shared)
                continue;
            o->shared = true;
            o->from_worktree = false;
            agent_event(out, AS_EV_AGENT_SHARED, now, o);
        }
        human_of(as, wt, now, NULL, out);
    }
    free(wt);
}

int
as_join(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    const char *id = req->agent;
    if (id && !*id)
        return fail(res, AS_EINVAL, "bad_field", "'id' must not be empty");
    struct as_agent *a = find_agent(as, id);
    /* a registration naming a discovered worktree takes that agent over */
    for (size_t i = 0;
         !a && req->worktree && req->worktree_real && i < as->nagents; i++) {
        struct as_agent *o = &as->agents[i];
        if (o->worktree && !strcmp(o->worktree, req->worktree) &&
            !o->registered && !o->human_residual)
            a = o;
    }
    res->created = !a;
    res->taken = a && !a->registered;
    if (a && id && strcmp(a->id, id)) {
        size_t i = (size_t)(a - as->agents);
        char *old = xstrdup(a->id);
        struct as_req rr = { .agent = old, .to = id };
        as_rename(as, now, &rr, res, out); /* locks, inbox, intents */
        a = &as->agents[i];
        set_str(&a->id, id);
        struct as_event *x = agent_event(out, AS_EV_AGENT_RENAMED, now, a);
        if (x)
            x->other = xstrdup(old);
        res->renamed_from = old;
    } else if (!a) {
        char *gen = id ? xstrdup(id)
                       : unique_id(as, req->client ? req->client : "agent");
        a = add_agent(as, gen, now);
        free(gen);
    }
    size_t i = (size_t)(a - as->agents);
    if (req->agent_kind)
        a->human = !strcmp(req->agent_kind, "human");
    if (req->client)
        set_str(&a->client, req->client);
    if (req->label)
        set_str(&a->label, req->label);
    if (req->worktree && !a->worktree) {
        a->worktree = xstrdup(req->worktree);
        a->from_worktree = true;
        res->new_worktree = true;
    }
    if (a->worktree) {
        /* the worktree's human, made or forgotten, moves the table */
        char *keep = xstrdup(a->id);
        share_worktree(as, i, now, out);
        a = find_agent(as, keep);
        i = (size_t)(a - as->agents);
        free(keep);
    }
    if (req->set_lanes)
        lanes_set(a, req->lanes, req->nlanes);
    a->registered = true;
    a->status = AS_AGENT_ACTIVE;
    a->last_seen = now;
    struct as_event *x = agent_event(out, AS_EV_AGENT_REGISTERED, now, a);
    if (x && res->renamed_from)
        x->other = xstrdup(res->renamed_from);
    free(res->agent);
    res->agent = xstrdup(a->id);
    return 0;
}

int
as_discover(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    if (!req->agent || !*req->agent || !req->worktree || !*req->worktree)
        return fail(res, AS_EINVAL, "bad_field",
            "a discovered worktree needs a name and a path");
    char *id = unique_id(as, req->agent);
    struct as_agent *a = add_agent(as, id, now);
    free(id);
    a->worktree = xstrdup(req->worktree);
    a->from_worktree = true;
    a->client = xstrdup("worktree");
    agent_event(out, AS_EV_AGENT_REGISTERED, now, a);
    res->created = true;
    free(res->agent);
    res->agent = xstrdup(a->id);
    return 0;
}

int
as_human(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    if (!req->worktree || !*req->worktree)
        return fail(res, AS_EINVAL, "bad_field", "a human needs a worktree");
    res->created = human_of(as, req->worktree, now, res, out);
    return 0;
}

int
as_peer(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    if (!req->agent || !*req->agent)
        return fail(res, AS_EINVAL, "bad_field", "a peer needs an id");
    if (find_agent(as, req->agent))
        return fail(
            res, AS_ECONFLICT, "refused", "agent '%s' exists", req->agent);
    struct as_agent *a = add_agent(as, req->agent, now);
    a->registered = a->peer = true;
    a->client = dup_or_null(req->client);
    a->label = dup_or_null(req->label);
    agent_event(out, AS_EV_AGENT_REGISTERED, now, a);
    res->created = true;
    free(res->agent);
    res->agent = xstrdup(a->id);
    return 0;
}

int
as_seen(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    struct as_agent *a = need_agent(as, req->agent, res);
    if (!a)
        return AS_ENOENT;
    heard(a, now, out);
    if (a->status == AS_AGENT_STALE) /* contact: it is back */
        set_status(a, AS_AGENT_ACTIVE, now, "contact", out);
    return 0;
}

int
as_set_status(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    struct as_agent *a = need_agent(as, req->agent, res);
    if (!a)
        return AS_ENOENT;
    if (req->status != AS_AGENT_ACTIVE && req->status != AS_AGENT_EXITED &&
        req->status != AS_AGENT_STALE)
        return fail(res, AS_EINVAL, "bad_field", "no such status");
    if (req->seen)
        heard(a, now, out);
    if (a->status == req->status)
        return 0;
    if (req->status != AS_AGENT_ACTIVE)
        ground(as, a, req->status, now, req->reason, out);
    else
        set_status(a, req->status, now, req->reason, out);
    return 0;
}

/* Whether worktree paths x and y name one directory (either may end in
 * '/'; the directory may be gone, so they are compared as written). */
static bool
same_dir(const char *x, const char *y)
{
    size_t nx = strlen(x), ny = strlen(y);
    while (nx > 1 && x[nx - 1] == '/')
        nx--;
    while (ny > 1 && y[ny - 1] == '/')
        ny--;
    return nx == ny && !memcmp(x, y, nx);
}

int
as_worktree_gone(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    if (!req->worktree || !*req->worktree)
        return fail(res, AS_EINVAL, "bad_field", "a worktree is needed");
    for (size_t i = 0; i < as->nagents; i++) {
        struct as_agent *a = &as->agents[i];
        if (!a->worktree || a->status == AS_AGENT_EXITED ||
            !same_dir(a->worktree, req->worktree))
            continue;
        ground(as, a, AS_AGENT_EXITED, now,
            req->reason ? req->reason : "worktree pruned", out);
        res->changed++;
        i = (size_t)-1; /* the table may have lost the human: look again */
    }
    return 0;
}

bool
as_flies_shared(const struct airspace *as, const struct as_agent *a)
{
    for (size_t j = 0; a->worktree && j < as->nagents; j++) {
        const struct as_agent *o = &as->agents[j];
        if (strcmp(o->id, a->id) && o->worktree &&
            !strcmp(o->worktree, a->worktree) &&
            (o->human_residual ? a->shared || a->human_residual
                               : o->status != AS_AGENT_EXITED))
            return true;
    }
    return false;
}

int
as_heartbeat(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    struct as_agent *a = need_agent(as, req->agent, res);
    if (!a)
        return AS_ENOENT;
    bool back = a->status == AS_AGENT_EXITED;
    heard(a, now, out);
    set_status(a, AS_AGENT_ACTIVE, now, "heartbeat", out);
    /* back in its worktree: shared again, or its own again */
    if (back && a->registered && !a->human_residual && a->worktree)
        share_worktree(as, (size_t)(a - as->agents), now, out);
    return 0;
}

int
as_exit(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    struct as_agent *a = need_agent(as, req->agent, res);
    if (!a)
        return AS_ENOENT;
    heard(a, now, out); /* its last word */
    if (a->status == AS_AGENT_EXITED)
        return 0;
    ground(as, a, AS_AGENT_EXITED, now, "exit", out);
    return 0;
}

int
as_forget(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    struct as_agent *a = need_agent(as, req->agent, res);
    if (!a)
        return AS_ENOENT;
    forget(as, a, now, req->reason, out);
    return 0;
}

/* Agent a leaves the machine: what it held goes (a peer's leases stay),
 * then AS_EV_AGENT_GONE. */
static void
forget(struct airspace *as, struct as_agent *a, int64_t now, const char *why,
    struct as_events *out)
{
    char *id = xstrdup(a->id);
    if (!a->peer) /* a peer's leases are its daemon's (ground) */
        release_locks_of(as, id, now, out);
    drop_intents_of(as, id, now, out);
    uint32_t at;
    if (strmap_get(&as->inbox_idx, id, strlen(id), &at))
        inbox_clear(&as->inboxes[at]);
    a = find_agent(as, id);
    size_t i = (size_t)(a - as->agents);
    struct as_event *x = agent_event(out, AS_EV_AGENT_GONE, now, a);
    if (x)
        x->reason = why;
    char *wt = a->registered && !a->human_residual && a->worktree
                   ? xstrdup(a->worktree)
                   : NULL;
    agent_clear(a);
    memmove(a, a + 1, (as->nagents - i - 1) * sizeof(*a));
    as->nagents--;
    if (wt) /* its worktree may have one agent left */
        share_follow(as, wt, now, out);
    free(wt);
    free(id);
}

/* ---- locks ---- */

static void
release_locks_of(
    struct airspace *as, const char *id, int64_t now, struct as_events *out)
{
    struct lock_events lev;
    lock_events_init(&lev);
    lock_table_release_all(as->locks, id, now, &lev);
    take_lock_events(out, &lev);
}

/* The code of a core/locks failure: held, not_held, bad_path, bad_field. */
static const char *
lock_code(int rc, const char *msg)
{
    if (rc == AS_ECONFLICT)
        return "held";
    if (rc == AS_ENOENT)
        return "not_held";
    if (strstr(msg, "' escapes the repository") ||
        strstr(msg, "' is outside the repository"))
        return "bad_path";
    return "bad_field";
}

/* An acting agent must be here and not exited; a stale one is back. */
static int
acting_agent(struct airspace *as, const struct as_req *req, int64_t now,
    struct as_result *res, struct as_events *out)
{
    struct as_agent *a = need_agent(as, req->agent, res);
    if (!a)
        return AS_ENOENT;
    if (a->status == AS_AGENT_EXITED)
        return fail(res, AS_ECONFLICT, "refused",
            "agent '%s' has exited; register it again first", a->id);
    if (a->status == AS_AGENT_STALE) {
        heard(a, now, out);
        set_status(a, AS_AGENT_ACTIVE, now, "contact", out);
    }
    return 0;
}

int
as_contact(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    return acting_agent(as, req, now, res, out);
}

int
as_lock(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    int rc = acting_agent(as, req, now, res, out);
    if (rc)
        return rc;
    struct lock_request r = { .pattern = req->pattern,
        .holder = req->agent,
        .mode = req->mode,
        .kind = req->kind,
        .ttl_ms = req->ttl_ms,
        .reason = req->reason,
        .file = req->file };
    struct lock_events lev;
    lock_events_init(&lev);
    struct lock_result lr = { 0 };
    rc = lock_table_acquire(as->locks, &r, now, &lr, &lev, &res->err);
    take_lock_events(out, &lev);
    set_lock(res, lr.lock);
    if (rc)
        return res->code = lock_code(rc, res->err.msg), rc;
    res->outcome = lr.outcome;
    return 0;
}

/*
 * The fencing rule of release and renew: when agent holds a live lock on
 * exactly pattern, req->token must be one of them.
 */
static int
check_token(struct airspace *as, const struct as_req *req, int64_t now,
    const char *verb, struct as_result *res)
{
    char *norm = NULL;
    struct as_err e;
    if (lock_table_normalize(as->locks, req->pattern, &norm, &e))
        return 0; /* the operation says why */
    size_t n;
    const struct lock *const *v = lock_table_list(as->locks, now, &n);
    const struct lock *mine = NULL;
    bool match = false;
    for (size_t k = 0; k < n; k++)
        if (!strcmp(v[k]->holder, req->agent) && !strcmp(v[k]->pattern, norm)) {
            mine = mine ? mine : v[k];
            match = match || v[k]->token == req->token;
        }
    free(norm);
    if (!mine || match)
        return 0;
    set_lock(res, mine);
    if (!req->token)
        return fail(res, AS_EINVAL, "token_required",
            "'token' is required to %s '%s': the fencing token of your "
            "grant (in the grant's reply, and in GET /v1/locks)",
            verb, req->pattern);
    if (req->token > mine->token)
        return fail(res, AS_ECONFLICT, "stale_token",
            "your lock on '%s' has token %" PRIu64 "; %" PRIu64
            " was never a grant of yours on it",
            req->pattern, mine->token, req->token);
    return fail(res, AS_ECONFLICT, "stale_token",
        "your lock on '%s' has token %" PRIu64 ", not %" PRIu64
        ": that grant was lost (expired or released) and this is a later one",
        req->pattern, mine->token, req->token);
}

int
as_release(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    if (!need_agent(as, req->agent, res))
        return AS_ENOENT;
    int rc = check_token(as, req, now, "release", res);
    if (rc)
        return rc;
    struct lock_events lev;
    lock_events_init(&lev);
    rc = lock_table_release(
        as->locks, req->agent, req->pattern, now, &lev, &res->err);
    take_lock_events(out, &lev);
    if (rc)
        res->code = lock_code(rc, res->err.msg);
    return rc;
}

int
as_renew(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    if (!need_agent(as, req->agent, res))
        return AS_ENOENT;
    int rc = check_token(as, req, now, "renew", res);
    if (rc)
        return rc;
    struct lock_events lev;
    lock_events_init(&lev);
    const struct lock *l = NULL;
    rc = lock_table_renew(as->locks, req->agent, req->pattern, req->ttl_ms, now,
        &l, &lev, &res->err);
    set_lock(res, l);
    take_lock_events(out, &lev);
    if (rc)
        res->code = lock_code(rc, res->err.msg);
    return rc;
}

static int
contest_or_force(struct airspace *as, int64_t now, const struct as_req *req,
    bool force, struct as_result *res, struct as_events *out)
{
    if (req->token)
        return fail(res, AS_EINVAL, "bad_field",
            "'token' is for release and renew (the token of your grant)");
    int rc = acting_agent(as, req, now, res, out);
    if (rc)
        return rc;
    struct lock_events lev;
    lock_events_init(&lev);
    const struct lock *l = NULL;
    if (!force) {
        rc = lock_table_contest(
            as->locks, req->agent, req->pattern, now, &l, &lev, &res->err);
        set_lock(res, l);
    } else {
        /* the holder's liveness is the machine's knowledge: judged for the
         * very claim that would go, and only once it was contested */
        bool stale = false;
        struct as_err e;
        if (!lock_table_claim_for(
                as->locks, req->agent, req->pattern, now, &l, &e) &&
            l->contested_by) {
            const struct as_agent *h = find_agent(as, l->holder);
            stale = !h || h->status != AS_AGENT_ACTIVE;
        }
        rc = lock_table_force_release(
            as->locks, req->agent, req->pattern, now, stale, &lev, &res->err);
    }
    take_lock_events(out, &lev);
    if (rc)
        res->code = lock_code(rc, res->err.msg);
    return rc;
}

int
as_contest(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    return contest_or_force(as, now, req, false, res, out);
}

int
as_force(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    return contest_or_force(as, now, req, true, res, out);
}

int
as_touch(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    struct lock_events lev;
    lock_events_init(&lev);
    int rc = lock_table_touch(
        as->locks, req->agent, req->pattern, now, &lev, &res->err);
    take_lock_events(out, &lev);
    if (rc < 0)
        res->code = "bad_path";
    return rc;
}

int
as_check(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res)
{
    const struct lock *who = NULL;
    int rc = lock_table_check_file(as->locks, req->agent, req->pattern,
        req->file, req->mode, now, &who, &res->err);
    set_lock(res, who);
    if (rc)
        res->code = rc == AS_ECONFLICT ? "held" : "bad_field";
    return rc;
}

size_t
as_locks_expire(struct airspace *as, int64_t now, struct as_events *out)
{
    struct lock_events lev;
    lock_events_init(&lev);
    lock_table_expire(as->locks, now, &lev);
    return take_lock_events(out, &lev);
}

/* ---- intents ---- */

static void
intent_event(struct as_events *out, enum as_event_kind kind, int64_t now,
    const struct as_intent *in)
{
    struct as_event *x = push(out, kind, now, in->agent);
    if (x)
        intent_copy(&x->intent, in);
}

/* Task dedup: the live intent of another agent whose summary is closest
 * to in's, when close enough. */
static void
closest_intent(const struct airspace *as, const struct as_intent *in,
    int64_t now, struct as_result *res)
{
    const char **sums = xcalloc(as->nintents + 1, sizeof(*sums));
    size_t *who = xcalloc(as->nintents + 1, sizeof(*who));
    size_t n = 0;
    for (size_t k = 0; k < as->nintents; k++) {
        const struct as_intent *x = &as->intents[k];
        if (x->id != in->id && x->summary && strcmp(x->agent, in->agent) &&
            x->expires_at > now) {
            who[n] = k;
            sums[n++] = x->summary;
        }
    }
    double score = 0;
    long at = similar_closest(
        in->summary, sums, n, SIMILAR_DEFAULT_THRESHOLD, &score);
    if (at >= 0) {
        res->similar_id = as->intents[who[at]].id;
        res->similar_score = score;
    }
    free(sums);
    free(who);
}

int
as_intent_declare(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    if (!need_agent(as, req->agent, res))
        return AS_ENOENT;
    if (!req->nfiles || req->nfiles > 256)
        return fail(res, AS_EINVAL, "bad_field",
            "'files' must be a non-empty array of at most 256 paths or globs");
    for (size_t k = 0; k < req->nfiles; k++)
        if (!req->files[k] || !*req->files[k])
            return fail(res, AS_EINVAL, "bad_path",
                "files[%zu] '' is not a path or glob inside the repository", k);
    int64_t ttl =
        req->ttl_ms == LOCK_TTL_DEFAULT ? AS_INTENT_TTL_MS : req->ttl_ms;
    if (ttl <= 0)
        return fail(res, AS_EINVAL, "bad_field",
            "'ttlMs' must be a positive integer (milliseconds)");
    ALLOC_GROW(as->intents, as->nintents + 1, as->aintents);
    struct as_intent *in = &as->intents[as->nintents++];
    memset(in, 0, sizeof(*in));
    in->id = as->next_intent_id++;
    in->agent = xstrdup(req->agent);
    in->files = xcalloc(req->nfiles, sizeof(*in->files));
    for (size_t k = 0; k < req->nfiles; k++)
        in->files[in->nfiles++] = xstrdup(req->files[k]);
    in->regions = dup_or_null(req->regions);
    in->summary = dup_or_null(req->summary);
    in->created_at = now;
    /* a huge ttl saturates: the intent lives "forever" */
    in->expires_at = ttl > INT64_MAX - now ? INT64_MAX : now + ttl;
    res->intent_id = in->id;
    intent_event(out, AS_EV_INTENT_DECLARED, now, in);
    if (in->summary)
        closest_intent(as, in, now, res);
    return 0;
}

static void
remove_intent(struct airspace *as, size_t k)
{
    intent_clear(&as->intents[k]);
    memmove(&as->intents[k], &as->intents[k + 1],
        (as->nintents - k - 1) * sizeof(*as->intents));
    as->nintents--;
}

int
as_intent_drop(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    if (!need_agent(as, req->agent, res))
        return AS_ENOENT;
    for (size_t k = 0; k < as->nintents; k++) {
        struct as_intent *in = &as->intents[k];
        if (in->id != req->intent_id)
            continue;
        if (strcmp(in->agent, req->agent))
            return fail(res, AS_ECONFLICT, "refused",
                "intent %" PRIu64 " belongs to '%s'", in->id, in->agent);
        intent_event(out, AS_EV_INTENT_DROPPED, now, in);
        remove_intent(as, k);
        return 0;
    }
    return fail(res, AS_ENOENT, "unknown_intent", "no intent '%" PRIu64 "'",
        req->intent_id);
}

static void
drop_intents_of(
    struct airspace *as, const char *id, int64_t now, struct as_events *out)
{
    for (size_t k = 0; k < as->nintents;) {
        if (strcmp(as->intents[k].agent, id)) {
            k++;
            continue;
        }
        intent_event(out, AS_EV_INTENT_DROPPED, now, &as->intents[k]);
        remove_intent(as, k);
    }
}

int
as_intent_drop_all(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    (void)res;
    if (req->agent)
        drop_intents_of(as, req->agent, now, out);
    return 0;
}

size_t
as_intents_expire(struct airspace *as, int64_t now, struct as_events *out)
{
    size_t n = 0;
    for (size_t k = 0; k < as->nintents;) {
        if (as->intents[k].expires_at > now) {
            k++;
            continue;
        }
        intent_event(out, AS_EV_INTENT_EXPIRED, now, &as->intents[k]);
        remove_intent(as, k);
        n++;
    }
    return n;
}

static void move_inbox(struct airspace *as, const char *from, const char *to,
    int64_t now, struct as_events *out);

int
as_rename(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    const char *from = req->agent, *to = req->to;
    if (!from || !to || !*from || !*to)
        return fail(res, AS_EINVAL, "bad_field",
            "a rename needs the old id and the new one");
    if (!strcmp(from, to))
        return 0;
    struct lock_events lev;
    lock_events_init(&lev);
    lock_table_reassign(as->locks, from, to, now, &lev);
    take_lock_events(out, &lev);
    move_inbox(as, from, to, now, out);
    for (size_t k = 0; k < as->nintents; k++) {
        struct as_intent *in = &as->intents[k];
        if (strcmp(in->agent, from))
            continue;
        free(in->agent);
        in->agent = xstrdup(to);
        intent_event(out, AS_EV_INTENT_CHANGED, now, in);
    }
    return 0;
}

const struct as_intent *
as_intent_find(const struct airspace *as, uint64_t id, int64_t now)
{
    for (size_t k = 0; k < as->nintents; k++)
        if (as->intents[k].id == id && as->intents[k].expires_at > now)
            return &as->intents[k];
    return NULL;
}

/* ---- messages ---- */

static struct as_inbox *
inbox_get(struct airspace *as, const char *owner)
{
    uint32_t at;
    if (strmap_get(&as->inbox_idx, owner, strlen(owner), &at))
        return &as->inboxes[at];
    ALLOC_GROW(as->inboxes, as->ninboxes + 1, as->ainboxes);
    struct as_inbox *x = &as->inboxes[as->ninboxes];
    memset(x, 0, sizeof(*x));
    x->owner = xstrdup(owner);
    strmap_put(
        &as->inbox_idx, owner, strlen(owner), (uint32_t)as->ninboxes, NULL);
    as->ninboxes++;
    return x;
}

const struct as_inbox *
as_inbox_find(const struct airspace *as, const char *owner)
{
    uint32_t at;
    if (!owner || !strmap_get(&as->inbox_idx, owner, strlen(owner), &at))
        return NULL;
    return &as->inboxes[at];
}

/* The index of the message a full inbox drops first: the oldest read
 * one, else the oldest. */
static size_t
inbox_victim(const struct as_inbox *x)
{
    for (size_t k = 0; k < x->n; k++)
        if (x->v[k].read)
            return k;
    return 0;
}

/* Drop message k of inbox x, never silently. */
static void
inbox_drop(struct as_inbox *x, size_t k, int64_t now, struct as_events *out)
{
    struct as_message *m = &x->v[k];
    if (!m->read)
        x->dropped++;
    struct as_event *ev = push(out, AS_EV_MESSAGE_DROPPED, now, x->owner);
    if (ev) {
        ev->owner = xstrdup(x->owner);
        message_copy(&ev->msg, m);
        ev->unread = !m->read;
        ev->dropped = x->dropped;
    }
    message_clear(m);
    memmove(m, m + 1, (x->n - k - 1) * sizeof(*x->v));
    x->n--;
}

static void
deliver(struct airspace *as, const char *owner, const struct as_message *tmpl,
    int64_t now, struct as_events *out)
{
    struct as_inbox *x = inbox_get(as, owner);
    while (x->n >= as->cfg.inbox_max)
        inbox_drop(x, inbox_victim(x), now, out);
    ALLOC_GROW(x->v, x->n + 1, x->a);
    struct as_message *m = &x->v[x->n++];
    message_copy(m, tmpl);
    m->read = false;
    struct as_event *ev = push(out, AS_EV_MESSAGE_DELIVERED, now, owner);
    if (ev) {
        ev->owner = xstrdup(owner);
        message_copy(&ev->msg, m);
    }
}

int
as_message_send(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    const char *from = req->agent, *to = req->to;
    if (!from || (strcmp(from, AS_SUPERVISOR) && !find_agent(as, from)))
        return fail(
            res, AS_ENOENT, "unknown_agent", "no agent '%s'", from ? from : "");
    if (!to || !*to)
        return fail(res, AS_EINVAL, "bad_field", "'to' must be a string");
    if (!req->body)
        return fail(res, AS_EINVAL, "bad_field", "'body' must be a string");
    const char *type = req->type ? req->type : "info";
    bool known = false;
    for (const char *const *t = message_types; *t && !known; t++)
        known = !strcmp(*t, type);
    if (!known)
        return fail(res, AS_EINVAL, "bad_field",
            "'type' must be one of info, question, claim, release, delegate, "
            "handoff, ack, block; not '%s'",
            type);
    struct as_message m = { as->next_message_id, (char *)from, (char *)to,
        (char *)type, (char *)req->body, now, false };
    size_t n = 0;
    if (!strcmp(to, AS_SUPERVISOR)) {
        deliver(as, AS_SUPERVISOR, &m, now, out);
        n = 1;
    } else {
        for (size_t i = 0; i < as->nagents; i++) {
            const struct as_agent *a = &as->agents[i];
            /* "all": every registered, active agent but the sender
             * (discovered worktrees have no session to read an inbox); a
             * label names this daemon's agents: another daemon's copy
             * (peer) reads no inbox here */
            bool hit =
                !strcmp(to, "all")
                    ? a->status == AS_AGENT_ACTIVE && a->registered &&
                          !a->peer && strcmp(a->id, from)
                    : !strcmp(a->id, to) || (!a->peer && str_eq(a->label, to));
            if (hit) {
                deliver(as, a->id, &m, now, out);
                n++;
            }
        }
    }
    res->delivered = n;
    if (!n && !strcmp(to, "all"))
        return fail(res, AS_ENOENT, "unknown_recipient",
            "no registered, active agent besides '%s' can receive 'all' "
            "(a worktree found without a client session has no inbox; "
            "agents register through their client's hooks or "
            "`airspace agent new`)",
            from);
    if (!n)
        return fail(res, AS_ENOENT, "unknown_recipient",
            "no agent, label or active crew matches '%s'", to);
    as->next_message_id++;
    struct as_event *ev = push(out, AS_EV_MESSAGE_SENT, now, from);
    if (ev) {
        message_copy(&ev->msg, &m);
        ev->recipients = n;
    }
    return 0;
}

int
as_inbox_read(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    const char *owner = req->owner;
    if (!owner || (strcmp(owner, AS_SUPERVISOR) && !find_agent(as, owner)))
        return fail(res, AS_ENOENT, "unknown_agent", "no agent '%s'",
            owner ? owner : "");
    uint32_t at;
    if (!strmap_get(&as->inbox_idx, owner, strlen(owner), &at))
        return 0; /* nothing was ever sent there */
    struct as_inbox *x = &as->inboxes[at];
    res->dropped = x->dropped;
    res->msgs = xcalloc(x->n ? x->n : 1, sizeof(*res->msgs));
    for (size_t k = 0; k < x->n; k++) {
        if (x->v[k].read)
            continue;
        message_copy(&res->msgs[res->nmsgs++], &x->v[k]);
        if (req->peek)
            continue;
        x->v[k].read = true;
        struct as_event *ev = push(out, AS_EV_MESSAGE_READ, now, owner);
        if (ev) {
            ev->owner = xstrdup(owner);
            ev->msg.id = x->v[k].id;
        }
    }
    return 0;
}

/* Merge inbox `from` into inbox `to` (both in id order; a message in both
 * is kept once, the moved copy), then keep the cap. */
static void
move_inbox(struct airspace *as, const char *from, const char *to, int64_t now,
    struct as_events *out)
{
    uint32_t at;
    if (!strmap_get(&as->inbox_idx, from, strlen(from), &at) ||
        !as->inboxes[at].n)
        return;
    struct as_inbox *dst = inbox_get(as, to); /* may move the inboxes */
    struct as_inbox *src = &as->inboxes[at];
    size_t n = src->n + dst->n, i = 0, j = 0, o = 0;
    struct as_message *v = xcalloc(n, sizeof(*v));
    while (i < src->n || j < dst->n) {
        if (j == dst->n || (i < src->n && src->v[i].id <= dst->v[j].id)) {
            if (j < dst->n && src->v[i].id == dst->v[j].id)
                message_clear(&dst->v[j++]);
            v[o++] = src->v[i++];
        } else {
            v[o++] = dst->v[j++];
        }
    }
    free(src->v);
    src->v = NULL;
    src->n = src->a = 0;
    free(dst->v);
    dst->v = v;
    dst->n = o;
    dst->a = n;
    struct as_event *ev = push(out, AS_EV_INBOX_MOVED, now, to);
    if (ev) {
        ev->owner = xstrdup(from);
        ev->other = xstrdup(to);
    }
    while (dst->n > as->cfg.inbox_max)
        inbox_drop(dst, inbox_victim(dst), now, out);
}

int
as_inbox_move(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out)
{
    if (!req->owner || !req->to || !*req->owner || !*req->to)
        return fail(res, AS_EINVAL, "bad_field",
            "an inbox move needs owner "
            "and to");
    if (strcmp(req->owner, req->to))
        move_inbox(as, req->owner, req->to, now, out);
    return 0;
}

/* ---- time ---- */

size_t
as_expire(struct airspace *as, int64_t now, struct as_events *out)
{
    size_t before = out ? out->n : 0;
    as_locks_expire(as, now, out);
    as_intents_expire(as, now, out);
    as_agents_expire(as, now, out);
    return out ? out->n - before : 0;
}

size_t
as_agents_expire(struct airspace *as, int64_t now, struct as_events *out)
{
    size_t n = 0;
    for (size_t i = 0; as->cfg.stale_ms > 0 && i < as->nagents; i++) {
        struct as_agent *a = &as->agents[i];
        int64_t since = a->last_seen > as->cfg.silence_from
                            ? a->last_seen
                            : as->cfg.silence_from;
        if (a->registered && a->status == AS_AGENT_ACTIVE &&
            now - since > as->cfg.stale_ms) {
            ground(as, a, AS_AGENT_STALE, now, "silent", out);
            n++;
        }
    }
    /* gone: by its last word, the daemon's downtime included */
    for (size_t i = 0; as->cfg.gone_ms > 0 && i < as->nagents;) {
        struct as_agent *a = &as->agents[i];
        if (a->registered && now - a->last_seen > as->cfg.gone_ms) {
            forget(as, a, now, "silent", out);
            n++;
            i = 0; /* a human before it may have left with it */
        } else {
            i++;
        }
    }
    return n;
}

/* ---- replay ---- */

static int
apply_lock(struct airspace *as, const struct lock_event *x, struct as_err *e)
{
    switch (x->type) {
    case LOCK_EV_RELEASED:
    case LOCK_EV_RELEASED_ALL:
    case LOCK_EV_EXPIRED:
    case LOCK_EV_FORCE_RELEASED:
        if (lock_table_remove(as->locks, x->lock.token))
            return as_errorf(e, AS_EINVAL, "%s: no lock %" PRIu64,
                lock_event_name(x), x->lock.token);
        return 0;
    case LOCK_EV_GRANTED:
        return lock_table_restore(as->locks, &x->lock, e);
    default: /* the lock after the change replaces the one before */
        if (lock_table_remove(as->locks, x->lock.token))
            return as_errorf(e, AS_EINVAL, "%s: no lock %" PRIu64,
                lock_event_name(x), x->lock.token);
        return lock_table_restore(as->locks, &x->lock, e);
    }
}

int
as_apply(struct airspace *as, const struct as_event *ev, struct as_err *e)
{
    struct as_agent *a = find_agent(as, ev->agent);
    switch (ev->kind) {
    case AS_EV_AGENT_REGISTERED:
    case AS_EV_AGENT_SHARED:
        if (!ev->who.id)
            return as_errorf(e, AS_EINVAL, "%s without its agent",
                as_event_kind_name(ev->kind));
        if (!a) /* (a joining agent shares before it registers) */
            a = add_agent(as, ev->who.id, ev->at);
        agent_clear(a);
        agent_copy(a, &ev->who);
        return 0;
    case AS_EV_AGENT_RENAMED:
        a = find_agent(as, ev->other);
        if (!a || !ev->who.id || find_agent(as, ev->who.id))
            return as_errorf(e, AS_EINVAL, "no agent '%s' to rename to '%s'",
                ev->other ? ev->other : "", ev->agent ? ev->agent : "");
        agent_clear(a);
        agent_copy(a, &ev->who);
        return 0;
    case AS_EV_AGENT_STATUS:
    case AS_EV_AGENT_SEEN:
        if (!a)
            return as_errorf(e, AS_EINVAL, "no agent '%s'", ev->agent);
        if (ev->kind == AS_EV_AGENT_SEEN)
            a->last_seen = ev->at;
        else
            a->status = ev->status;
        return 0;
    case AS_EV_AGENT_GONE: {
        if (!a)
            return as_errorf(e, AS_EINVAL, "no agent '%s'", ev->agent);
        uint32_t at;
        if (strmap_get(&as->inbox_idx, a->id, strlen(a->id), &at))
            inbox_clear(&as->inboxes[at]);
        size_t i = (size_t)(a - as->agents);
        agent_clear(a);
        memmove(a, a + 1, (as->nagents - i - 1) * sizeof(*a));
        as->nagents--;
        return 0;
    }
    case AS_EV_LOCK:
        return apply_lock(as, &ev->lock, e);
    case AS_EV_INTENT_DECLARED:
        ALLOC_GROW(as->intents, as->nintents + 1, as->aintents);
        intent_copy(&as->intents[as->nintents++], &ev->intent);
        if (ev->intent.id >= as->next_intent_id)
            as->next_intent_id = ev->intent.id + 1;
        return 0;
    case AS_EV_INTENT_DROPPED:
    case AS_EV_INTENT_EXPIRED:
    case AS_EV_INTENT_CHANGED:
        for (size_t k = 0; k < as->nintents; k++)
            if (as->intents[k].id == ev->intent.id) {
                if (ev->kind == AS_EV_INTENT_CHANGED) {
                    intent_clear(&as->intents[k]);
                    intent_copy(&as->intents[k], &ev->intent);
                } else {
                    remove_intent(as, k);
                }
                return 0;
            }
        return as_errorf(
            e, AS_EINVAL, "no intent %" PRIu64 " to drop", ev->intent.id);
    case AS_EV_MESSAGE_SENT:
        if (ev->msg.id >= as->next_message_id)
            as->next_message_id = ev->msg.id + 1;
        return 0;
    case AS_EV_MESSAGE_DELIVERED: {
        struct as_inbox *x = inbox_get(as, ev->owner);
        ALLOC_GROW(x->v, x->n + 1, x->a);
        message_copy(&x->v[x->n++], &ev->msg);
        return 0;
    }
    case AS_EV_MESSAGE_READ:
    case AS_EV_MESSAGE_DROPPED: {
        uint32_t at;
        if (ev->owner &&
            strmap_get(&as->inbox_idx, ev->owner, strlen(ev->owner), &at)) {
            struct as_inbox *x = &as->inboxes[at];
            for (size_t k = 0; k < x->n; k++) {
                if (x->v[k].id != ev->msg.id)
                    continue;
                if (ev->kind == AS_EV_MESSAGE_READ) {
                    x->v[k].read = true;
                } else {
                    message_clear(&x->v[k]);
                    memmove(
                        &x->v[k], &x->v[k + 1], (x->n - k - 1) * sizeof(*x->v));
                    x->n--;
                    x->dropped = ev->dropped;
                }
                return 0;
            }
        }
        return as_errorf(e, AS_EINVAL, "no message %" PRIu64 " in '%s'",
            ev->msg.id, ev->owner ? ev->owner : "");
    }
    case AS_EV_INBOX_MOVED: {
        /* the drops that kept the cap follow as their own events */
        size_t max = as->cfg.inbox_max;
        as->cfg.inbox_max = SIZE_MAX;
        move_inbox(as, ev->owner, ev->other, ev->at, NULL);
        as->cfg.inbox_max = max;
        return 0;
    }
    }
    return as_errorf(e, AS_EINVAL, "unknown event kind %d", (int)ev->kind);
}

/* ---- equality ---- */

__attribute__((format(printf, 3, 4))) static bool
differ(char *why, size_t len, const char *fmt, ...)
{
    if (why && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
    return false;
}

static bool
lock_eq(const struct lock *x, const struct lock *y)
{
    return x->token == y->token && str_eq(x->pattern, y->pattern) &&
           str_eq(x->holder, y->holder) && str_eq(x->reason, y->reason) &&
           x->mode == y->mode && x->kind == y->kind &&
           x->acquired_at == y->acquired_at && x->expires_at == y->expires_at &&
           x->ttl_ms == y->ttl_ms && str_eq(x->contested_by, y->contested_by) &&
           (!x->contested_by || x->contested_at == y->contested_at) &&
           x->file == y->file;
}

static bool
intent_eq(const struct as_intent *x, const struct as_intent *y)
{
    if (x->id != y->id || !str_eq(x->agent, y->agent) ||
        x->nfiles != y->nfiles || !str_eq(x->regions, y->regions) ||
        !str_eq(x->summary, y->summary) || x->created_at != y->created_at ||
        x->expires_at != y->expires_at)
        return false;
    for (size_t k = 0; k < x->nfiles; k++)
        if (strcmp(x->files[k], y->files[k]))
            return false;
    return true;
}

static bool
message_eq(const struct as_message *x, const struct as_message *y)
{
    return x->id == y->id && str_eq(x->from, y->from) && str_eq(x->to, y->to) &&
           str_eq(x->type, y->type) && str_eq(x->body, y->body) &&
           x->at == y->at && x->read == y->read;
}

static bool
inboxes_eq(
    const struct airspace *a, const struct airspace *b, char *why, size_t len)
{
    for (int pass = 0; pass < 2; pass++) {
        const struct airspace *p = pass ? b : a, *q = pass ? a : b;
        for (size_t k = 0; k < p->ninboxes; k++) {
            const struct as_inbox *x = &p->inboxes[k];
            const struct as_inbox *y = as_inbox_find(q, x->owner);
            size_t yn = y ? y->n : 0;
            if (x->n != yn)
                return differ(why, len, "inbox '%s': %zu vs %zu messages",
                    x->owner, pass ? yn : x->n, pass ? x->n : yn);
            if ((x->dropped || (y && y->dropped)) &&
                (!y || x->dropped != y->dropped))
                return differ(
                    why, len, "inbox '%s': dropped differs", x->owner);
            for (size_t m = 0; m < x->n; m++)
                if (!message_eq(&x->v[m], &y->v[m]))
                    return differ(why, len, "inbox '%s': message %zu differs",
                        x->owner, m);
        }
    }
    return true;
}

bool
as_equal(const struct airspace *a, const struct airspace *b, int64_t now,
    char *why, size_t len)
{
    if (a->nagents != b->nagents)
        return differ(why, len, "%zu vs %zu agents", a->nagents, b->nagents);
    for (size_t i = 0; i < a->nagents; i++) {
        const struct as_agent *x = &a->agents[i], *y = &b->agents[i];
        bool same = x->nlanes == y->nlanes;
        for (size_t k = 0; same && k < x->nlanes; k++)
            same = !strcmp(x->lanes[k], y->lanes[k]);
        if (!same || strcmp(x->id, y->id) || !str_eq(x->label, y->label) ||
            !str_eq(x->client, y->client) ||
            !str_eq(x->worktree, y->worktree) || x->human != y->human ||
            x->status != y->status || x->registered != y->registered ||
            x->from_worktree != y->from_worktree || x->shared != y->shared ||
            x->human_residual != y->human_residual || x->peer != y->peer ||
            x->registered_at != y->registered_at ||
            x->last_seen != y->last_seen)
            return differ(why, len, "agent %zu ('%s') differs", i, x->id);
    }
    size_t na, nb;
    const struct lock *const *la = lock_table_list(a->locks, now, &na);
    /* lock_table_list's array is per table: read b's after a's */
    struct lock *ca = xcalloc(na ? na : 1, sizeof(*ca));
    for (size_t k = 0; k < na; k++)
        lock_copy(&ca[k], la[k]);
    const struct lock *const *lb = lock_table_list(b->locks, now, &nb);
    bool same = na == nb;
    size_t k = 0;
    for (; same && k < na; k++)
        same = lock_eq(&ca[k], lb[k]);
    for (size_t j = 0; j < na; j++)
        lock_clear(&ca[j]);
    free(ca);
    if (!same)
        return differ(why, len, "locks differ (%zu vs %zu, at %zu)", na, nb,
            k ? k - 1 : 0);
    if (lock_table_next_token(a->locks) != lock_table_next_token(b->locks))
        return differ(why, len, "next token %" PRIu64 " vs %" PRIu64,
            lock_table_next_token(a->locks), lock_table_next_token(b->locks));
    if (a->nintents != b->nintents)
        return differ(why, len, "%zu vs %zu intents", a->nintents, b->nintents);
    for (size_t j = 0; j < a->nintents; j++)
        if (!intent_eq(&a->intents[j], &b->intents[j]))
            return differ(why, len, "intent %zu differs", j);
    if (a->next_intent_id != b->next_intent_id)
        return differ(why, len, "next intent id differs");
    if (a->next_message_id != b->next_message_id)
        return differ(why, len, "next message id %" PRIu64 " vs %" PRIu64,
            a->next_message_id, b->next_message_id);
    return inboxes_eq(a, b, why, len);
}

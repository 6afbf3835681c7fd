/*
 * collab.c - the daemon's side of the airspace state machine
 * (src/airspace): handing it the current lock table, keeping the daemon's
 * agent slots (working sets, reports) in step with its agent table, and
 * turning its events into store writes, published events and what the
 * conflict detector is told; intents fed into the risk engine's intent
 * channel.
 */
#include "broker/agents.h"
#include "broker/collab.h"
#include "broker/detect.h"
#include "broker/events.h"
#include "broker/score.h"
#include "broker/team.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

/* Persist and publish the lock table's events (touches are persisted but
 * not published). */
static void broker_lock_events(struct broker *b, struct lock_events *ev);

struct airspace *
broker_airspace(struct broker *b)
{
    if (!b->as) {
        struct as_config cfg;
        as_config_default(&cfg);
        cfg.stale_ms = 0; /* silence is judged by the tick (broker.c) */
        b->as = as_new(&cfg);
    }
    as_use_locks(b->as, b->locks);
    return b->as;
}

int
broker_airspace_status(const struct as_result *res)
{
    static const struct {
        const char *code;
        int status;
    } map[] = { { "unknown_agent", 404 }, { "unknown_recipient", 404 },
        { "unknown_intent", 404 }, { "not_held", 404 }, { "refused", 409 },
        { "held", 409 }, { "stale_token", 409 }, { "store_unreachable", 503 } };
    for (size_t k = 0; res->code && k < sizeof(map) / sizeof(map[0]); k++)
        if (!strcmp(map[k].code, res->code))
            return map[k].status;
    return 400;
}

json_t *
broker_intent_json(const struct as_intent *in)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer((json_int_t)in->id));
    json_object_set_new(o, "agent", json_string(in->agent));
    json_t *f = json_array();
    for (size_t k = 0; k < in->nfiles; k++)
        json_array_append_new(f, json_string(in->files[k]));
    json_object_set_new(o, "files", f);
    if (in->regions) {
        json_t *r = json_loads(in->regions, 0, NULL);
        if (r)
            json_object_set_new(o, "regions", r);
    }
    if (in->summary)
        json_object_set_new(o, "summary", json_string(in->summary));
    json_object_set_new(
        o, "createdAt", json_integer((json_int_t)in->created_at));
    json_object_set_new(
        o, "expiresAt", json_integer((json_int_t)in->expires_at));
    return o;
}

static void
broker_persist_intent(struct broker *b, const struct as_intent *in)
{
    json_t *f = json_array();
    for (size_t k = 0; k < in->nfiles; k++)
        json_array_append_new(f, json_string(in->files[k]));
    char *files = json_dumps(f, JSON_COMPACT);
    json_decref(f);
    struct db_intent di = { in->id, in->agent, files, in->regions, in->summary,
        in->created_at, in->expires_at };
    struct as_err e;
    if (db_intent_put(b->db, &di, &e))
        broker_log(b, "store: %s", e.msg);
    free(files);
}

json_t *
broker_message_json(const struct as_message *m)
{
    return json_pack("{s:I, s:s, s:s, s:s, s:s, s:I, s:b}", "id",
        (json_int_t)m->id, "from", m->from, "to", m->to, "type", m->type,
        "body", m->body, "at", (json_int_t)m->at, "read", m->read);
}

static void
store_err(struct broker *b, int rc, const struct as_err *e)
{
    if (rc)
        broker_log(b, "store: %s", e->msg);
}

/* The detector forgets intent id; what it says is delivered. */
static void
detector_drop(struct broker *b, uint64_t id, int64_t now)
{
    struct conflict_msgs cm;
    conflict_msgs_init(&cm);
    conflicts_intent_drop(b->conflicts, id, now, &cm);
    broker_conflict_msgs(b, &cm);
    conflict_msgs_release(&cm);
}

static void
message_dropped(struct broker *b, const struct as_event *x)
{
    struct as_err e;
    store_err(b, db_message_drop(b->db, x->owner, x->msg.id, &e), &e);
    json_t *d = broker_message_json(&x->msg);
    json_object_set_new(d, "owner", json_string(x->owner));
    json_object_set_new(d, "unread", json_boolean(x->unread));
    json_object_set_new(
        d, "droppedUnread", json_integer((json_int_t)x->dropped));
    json_object_set_new(d, "reason",
        json_string(!x->unread ? "the inbox was full: its oldest read message "
                                 "made room"
                               : "the inbox was full of unread messages: its "
                                 "oldest made room"));
    broker_emit(b, "message.dropped", x->owner, d);
}

/*
 * The daemon's agent slots follow the machine's agent table before the
 * events are told: a renamed agent's working set takes its new id, an
 * agent the machine made gets a slot (the machine appends, so the slots
 * stay in its order), and one it forgot keeps the machine's last copy
 * until the daemon lets it go (AS_EV_AGENT_GONE below).
 */
static void
follow_agents(struct broker *b, struct as_events *ev)
{
    for (size_t k = 0; k < ev->n; k++) {
        struct as_event *x = &ev->v[k];
        ssize_t i;
        if (x->kind == AS_EV_AGENT_RENAMED &&
            (i = broker_find_agent(b, x->other)) >= 0) {
            broker_drop_engine(b); /* it borrows the agents' ids */
            free(b->ag[i].id);
            b->ag[i].id = xstrdup(x->agent);
        } else if (x->kind == AS_EV_AGENT_GONE &&
                   (i = broker_find_agent(b, x->agent)) >= 0) {
            b->meta[i].gone = &x->who;
        }
    }
    const struct airspace *as = b->as;
    for (size_t j = 0; as && j < as->nagents; j++)
        if (broker_find_agent(b, as->agents[j].id) < 0)
            broker_slot_add(b, as->agents[j].id);
}

/* The events' meaning for the daemon. */
static void
translate(struct broker *b, struct as_events *ev)
{
    struct as_err e;
    follow_agents(b, ev);
    bool intents = false; /* an agent gone took intents with it */
    for (size_t k = 0; k < ev->n; k++) {
        struct as_event *x = &ev->v[k];
        switch (x->kind) {
        case AS_EV_LOCK: {
            struct lock_events lev = { &x->lock, 1, 1 };
            broker_lock_events(b, &lev);
            break;
        }
        case AS_EV_INTENT_DECLARED:
            broker_persist_intent(b, &x->intent);
            broker_emit(b, "intent.declared", x->intent.agent,
                broker_intent_json(&x->intent));
            break;
        case AS_EV_INTENT_CHANGED:
            broker_persist_intent(b, &x->intent);
            break;
        case AS_EV_INTENT_DROPPED:
            if (team_intent_left(b, x->intent.id)) { /* another daemon's */
                detector_drop(b, x->intent.id, x->at);
                break;
            }
            store_err(b, db_intent_delete(b->db, x->intent.id, &e), &e);
            broker_emit(b, "intent.dropped", x->intent.agent,
                broker_intent_json(&x->intent));
            detector_drop(b, x->intent.id, x->at);
            break;
        case AS_EV_INTENT_EXPIRED:
            if (team_intent_left(b, x->intent.id)) {
                detector_drop(b, x->intent.id, x->at);
                break;
            }
            store_err(b, db_intent_delete(b->db, x->intent.id, &e), &e);
            detector_drop(b, x->intent.id, x->at);
            broker_emit(b, "intent.expired", x->intent.agent,
                broker_intent_json(&x->intent));
            break;
        case AS_EV_MESSAGE_DELIVERED: {
            const struct as_message *m = &x->msg;
            struct db_message dm = { m->id, x->owner, m->from, m->to, m->type,
                m->body, m->at, false };
            store_err(b, db_message_put(b->db, &dm, &e), &e);
            break;
        }
        case AS_EV_MESSAGE_READ:
            store_err(b, db_message_read(b->db, x->owner, x->msg.id, &e), &e);
            break;
        case AS_EV_MESSAGE_DROPPED:
            message_dropped(b, x);
            break;
        case AS_EV_MESSAGE_SENT: {
            json_t *d = broker_message_json(&x->msg);
            json_object_set_new(
                d, "recipients", json_integer((json_int_t)x->recipients));
            broker_emit(b, "message", x->msg.from, d);
            break;
        }
        case AS_EV_INBOX_MOVED:
            store_err(b, db_messages_move(b->db, x->owner, x->other, &e), &e);
            break;
        case AS_EV_AGENT_STATUS: {
            /* agents.c: stored, announced, the detector and the scoring
             * told */
            ssize_t i = broker_find_agent(b, x->agent);
            if (i >= 0)
                broker_agent_status_changed(b, (size_t)i, x->status, x->reason);
            break;
        }
        case AS_EV_AGENT_SEEN: /* stored with the agent when it is due */
            break;
        case AS_EV_AGENT_GONE: {
            ssize_t i = broker_find_agent(b, x->agent);
            if (i >= 0)
                broker_forget_agent(
                    b, (size_t)i, &x->who, x->reason ? x->reason : "forgotten");
            intents = true;
            break;
        }
        case AS_EV_AGENT_RENAMED: {
            ssize_t i = broker_find_agent(b, x->agent);
            if (i >= 0)
                broker_agent_renamed(b, (size_t)i, x->other);
            break;
        }
        case AS_EV_AGENT_SHARED: {
            ssize_t i = broker_find_agent(b, x->agent);
            if (i >= 0)
                broker_agent_shared(b, (size_t)i);
            break;
        }
        case AS_EV_AGENT_REGISTERED: {
            /* a shared worktree's human is made inside a registration or
             * a restore; every other agent's caller tells it */
            ssize_t i = broker_find_agent(b, x->agent);
            if (i >= 0 && x->who.human_residual && !x->who.registered)
                broker_agent_human(b, (size_t)i);
            break;
        }
        }
    }
    as_events_clear(ev);
    if (intents)
        broker_sync_intents(b);
}

void
broker_airspace_events(struct broker *b, struct as_events *ev)
{
    translate(b, ev);
}

void
broker_sync_intents(struct broker *b)
{
    broker_drop_engine(b); /* the engine borrows the intent lists */
    for (size_t i = 0; i < b->nagents; i++) {
        struct agent *a = &b->ag[i];
        for (size_t k = 0; k < a->nintent; k++)
            free(a->intent[k]);
        a->nintent = 0;
    }
    const struct airspace *as = b->as;
    for (size_t k = 0; as && k < as->nintents; k++) {
        ssize_t i = broker_find_agent(b, as->intents[k].agent);
        if (i < 0)
            continue;
        for (size_t f = 0; f < as->intents[k].nfiles; f++)
            agent_add_intent(&b->ag[i], as->intents[k].files[f]);
    }
}

void
broker_expire_intents(struct broker *b, int64_t now)
{
    struct as_events ev;
    as_events_init(&ev);
    size_t n = as_intents_expire(broker_airspace(b), now, &ev);
    broker_airspace_events(b, &ev);
    as_events_release(&ev);
    if (n) {
        broker_sync_intents(b);
        broker_rescore(b, SIZE_MAX);
    }
}

void
broker_expire_agents(struct broker *b, int64_t now)
{
    struct airspace *as = broker_airspace(b);
    as->cfg.stale_ms = b->o.stale_ms;
    as->cfg.gone_ms = b->o.agent_timeout_ms;
    as->cfg.silence_from = b->started_at;
    struct as_events ev;
    as_events_init(&ev);
    if (as_agents_expire(as, now, &ev)) {
        struct as_err e;
        bool tx = db_begin(b->db, &e) == 0;
        broker_airspace_events(b, &ev);
        if (tx && db_commit(b->db, &e))
            broker_log(b, "store: %s", e.msg);
    }
    as_events_release(&ev);
}

int
broker_message(struct broker *b, const struct as_req *r, struct as_result *res)
{
    struct as_events ev;
    as_events_init(&ev);
    struct as_err te;
    bool tx = db_begin(b->db, &te) == 0;
    int rc = as_message_send(broker_airspace(b), broker_now(), r, res, &ev);
    /* the inboxes' writes in one transaction, then the announcement */
    size_t sent = ev.n;
    while (sent && ev.v[sent - 1].kind == AS_EV_MESSAGE_SENT)
        sent--;
    struct as_events head = { ev.v, sent, sent };
    /* no event at all (a refused message): ev.v is NULL */
    struct as_events tail = { ev.v ? ev.v + sent : NULL, ev.n - sent,
        ev.n - sent };
    broker_airspace_events(b, &head);
    if (tx && db_commit(b->db, &te))
        broker_log(b, "store: %s", te.msg);
    broker_airspace_events(b, &tail);
    ev.n = 0; /* cleared above, in two parts */
    as_events_release(&ev);
    return rc;
}

size_t
broker_send(struct broker *b, const char *from, const char *to,
    const char *type, const char *body)
{
    struct as_req r = { .agent = from, .to = to, .type = type, .body = body };
    struct as_result res;
    as_result_init(&res);
    broker_message(b, &r, &res);
    size_t n = res.delivered;
    as_result_release(&res);
    return n;
}

void
broker_collab_release(struct broker *b)
{
    as_free(b->as);
    b->as = NULL;
}

/* ---- locks ---- */

json_t *
broker_lock_json(const struct lock *l, int64_t now)
{
    json_t *o = json_object();
    json_object_set_new(o, "token", json_integer((json_int_t)l->token));
    json_object_set_new(o, "pattern", json_string(l->pattern));
    json_object_set_new(o, "holder", json_string(l->holder));
    json_object_set_new(o, "mode", json_string(lock_mode_name(l->mode)));
    json_object_set_new(o, "kind", json_string(lock_kind_name(l->kind)));
    json_object_set_new(
        o, "acquiredAt", json_integer((json_int_t)l->acquired_at));
    json_object_set_new(
        o, "expiresAt", json_integer((json_int_t)l->expires_at));
    json_object_set_new(o, "ttlMs", json_integer((json_int_t)l->ttl_ms));
    json_object_set_new(o, "expiresInMs",
        json_integer(
            (json_int_t)(l->expires_at > now ? l->expires_at - now : 0)));
    if (l->reason)
        json_object_set_new(o, "reason", json_string(l->reason));
    if (l->contested_by) {
        json_object_set_new(o, "contestedBy", json_string(l->contested_by));
        json_object_set_new(
            o, "contestedAt", json_integer((json_int_t)l->contested_at));
    }
    json_object_set_new(o, "file", json_boolean(l->file));
    return o;
}

static void
broker_lock_events(struct broker *b, struct lock_events *ev)
{
    int64_t now = broker_now();
    for (size_t k = 0; k < ev->n; k++) {
        const struct lock_event *x = &ev->v[k];
        struct as_err e;
        int rc = 0;
        switch (x->type) {
        case LOCK_EV_EXPIRED: /* announced once, by the daemon retiring it */
            if (!team_lock_expired(b, x->lock.token))
                continue;
            break;
        case LOCK_EV_RELEASED:
        case LOCK_EV_RELEASED_ALL:
        case LOCK_EV_FORCE_RELEASED:
            rc = db_lock_delete(b->db, x->lock.token, &e);
            break;
        default: {
            struct lock out = x->lock;
            char *by = team_contester_out(b, out.contested_by);
            if (by)
                out.contested_by = by;
            rc = db_lock_put(b->db, &out, lock_table_next_token(b->locks), &e);
            free(by);
            break;
        }
        }
        if (rc)
            broker_log(b, "store: %s", e.msg);
        if (x->type == LOCK_EV_TOUCHED)
            continue; /* routine activity: kept, not announced */
        json_t *d = broker_lock_json(&x->lock, now);
        if (x->actor)
            json_object_set_new(d, "actor", json_string(x->actor));
        broker_emit(b, lock_event_name(x), x->lock.holder, d);
    }
}

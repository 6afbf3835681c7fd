/*
 * collab.c - declared intents and messages: the state, delivery to
 * inboxes, and feeding intents into the risk engine's intent channel.
 */
#include "broker/internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

json_t *
broker_intent_json(const struct bintent *in)
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

void
broker_persist_intent(struct broker *b, const struct bintent *in)
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

void
broker_forget_intent(struct broker *b, uint64_t id)
{
    struct as_err e;
    if (db_intent_delete(b->db, id, &e))
        broker_log(b, "store: %s", e.msg);
}

static void
intent_release(struct bintent *in)
{
    free(in->agent);
    for (size_t k = 0; k < in->nfiles; k++)
        free(in->files[k]);
    free(in->files);
    free(in->regions);
    free(in->summary);
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
    for (size_t k = 0; k < b->nintents; k++) {
        ssize_t i = broker_find_agent(b, b->intents[k].agent);
        if (i < 0)
            continue;
        for (size_t f = 0; f < b->intents[k].nfiles; f++)
            agent_add_intent(&b->ag[i], b->intents[k].files[f]);
    }
}

void
broker_expire_intents(struct broker *b, int64_t now)
{
    size_t o = 0;
    bool changed = false;
    for (size_t k = 0; k < b->nintents; k++) {
        struct bintent *in = &b->intents[k];
        if (in->expires_at <= now) {
            broker_forget_intent(b, in->id);
            struct conflict_msgs cm;
            conflict_msgs_init(&cm);
            conflicts_intent_drop(b->conflicts, in->id, now, &cm);
            broker_conflict_msgs(b, &cm);
            conflict_msgs_release(&cm);
            broker_emit(b, "intent.expired", in->agent, broker_intent_json(in));
            intent_release(in);
            changed = true;
            continue;
        }
        b->intents[o++] = *in;
    }
    b->nintents = o;
    if (changed) {
        broker_sync_intents(b);
        broker_rescore(b, SIZE_MAX);
    }
}

void
broker_drop_intents_of(struct broker *b, const char *agent)
{
    size_t o = 0;
    bool changed = false;
    for (size_t k = 0; k < b->nintents; k++) {
        struct bintent *in = &b->intents[k];
        if (strcmp(in->agent, agent)) {
            b->intents[o++] = *in;
            continue;
        }
        broker_forget_intent(b, in->id);
        broker_emit(b, "intent.dropped", in->agent, broker_intent_json(in));
        struct conflict_msgs cm;
        conflict_msgs_init(&cm);
        conflicts_intent_drop(b->conflicts, in->id, broker_now(), &cm);
        broker_conflict_msgs(b, &cm);
        conflict_msgs_release(&cm);
        intent_release(in);
        changed = true;
    }
    b->nintents = o;
    if (changed)
        broker_sync_intents(b);
}

struct binbox *
broker_inbox(struct broker *b, const char *owner)
{
    uint32_t at;
    if (strmap_get(&b->inbox_idx, owner, strlen(owner), &at))
        return &b->inboxes[at];
    ALLOC_GROW(b->inboxes, b->ninboxes + 1, b->ainboxes);
    struct binbox *x = &b->inboxes[b->ninboxes];
    memset(x, 0, sizeof(*x));
    x->owner = xstrdup(owner);
    strmap_put(
        &b->inbox_idx, owner, strlen(owner), (uint32_t)b->ninboxes, NULL);
    b->ninboxes++;
    return x;
}

json_t *
broker_message_json(const struct bmessage *m)
{
    return json_pack("{s:I, s:s, s:s, s:s, s:s, s:I, s:b}", "id",
        (json_int_t)m->id, "from", m->from, "to", m->to, "type", m->type,
        "body", m->body, "at", (json_int_t)m->at, "read", m->read);
}

static void
message_release(struct bmessage *m)
{
    free(m->from);
    free(m->to);
    free(m->type);
    free(m->body);
}

/* The index of the message an inbox of BROKER_INBOX_MAX drops first: the
 * oldest read one, else the oldest. */
static size_t
inbox_victim(const struct binbox *x)
{
    for (size_t k = 0; k < x->n; k++)
        if (x->v[k].read)
            return k;
    return 0;
}

/*
 * Drop message k of inbox x (owner's) to keep it within BROKER_INBOX_MAX:
 * never silently — `message.dropped` names it, and an unread one counts in
 * x->dropped (the next inbox read says how many were lost).
 */
static void
inbox_drop(struct broker *b, struct binbox *x, const char *owner, size_t k)
{
    struct as_err e;
    struct bmessage *m = &x->v[k];
    if (db_message_drop(b->db, owner, m->id, &e))
        broker_log(b, "store: %s", e.msg);
    if (!m->read)
        x->dropped++;
    json_t *d = broker_message_json(m);
    json_object_set_new(d, "owner", json_string(owner));
    json_object_set_new(d, "unread", json_boolean(!m->read));
    json_object_set_new(
        d, "droppedUnread", json_integer((json_int_t)x->dropped));
    json_object_set_new(d, "reason",
        json_string(m->read ? "the inbox was full: its oldest read message "
                              "made room"
                            : "the inbox was full of unread messages: its "
                              "oldest made room"));
    broker_emit(b, "message.dropped", owner, d);
    message_release(m);
    memmove(m, m + 1, (x->n - k - 1) * sizeof(*x->v));
    x->n--;
}

static void
deliver(struct broker *b, const char *owner, const struct bmessage *tmpl)
{
    struct binbox *x = broker_inbox(b, owner);
    struct as_err e;
    if (x->n == BROKER_INBOX_MAX) /* bounded: the oldest read, else oldest */
        inbox_drop(b, x, owner, inbox_victim(x));
    ALLOC_GROW(x->v, x->n + 1, x->a);
    struct bmessage *m = &x->v[x->n++];
    m->id = tmpl->id;
    m->from = xstrdup(tmpl->from);
    m->to = xstrdup(tmpl->to);
    m->type = xstrdup(tmpl->type);
    m->body = xstrdup(tmpl->body);
    m->at = tmpl->at;
    m->read = false;
    struct db_message dm = { m->id, owner, m->from, m->to, m->type, m->body,
        m->at, false };
    if (db_message_put(b->db, &dm, &e))
        broker_log(b, "store: %s", e.msg);
}

void
broker_inbox_forget(struct broker *b, const char *owner)
{
    uint32_t at;
    if (!strmap_get(&b->inbox_idx, owner, strlen(owner), &at))
        return;
    struct binbox *x = &b->inboxes[at];
    for (size_t k = 0; k < x->n; k++)
        message_release(&x->v[k]);
    free(x->v);
    x->v = NULL;
    x->n = x->a = 0;
}

void
broker_inbox_move(struct broker *b, const char *from, const char *to)
{
    uint32_t at;
    if (!strmap_get(&b->inbox_idx, from, strlen(from), &at) ||
        !b->inboxes[at].n)
        return;
    struct as_err e;
    if (db_messages_move(b->db, from, to, &e))
        broker_log(b, "store: %s", e.msg);
    struct binbox *dst = broker_inbox(b, to); /* may move the inboxes */
    struct binbox *src = &b->inboxes[at];
    /* both are in id order: merge them; a message in both (one id) is
     * kept once, the moved copy, as the store keeps it */
    size_t n = src->n + dst->n, a = n, i = 0, j = 0, o = 0;
    struct bmessage *v = xcalloc(a, sizeof(*v));
    while (i < src->n || j < dst->n) {
        if (j == dst->n || (i < src->n && src->v[i].id <= dst->v[j].id)) {
            if (j < dst->n && src->v[i].id == dst->v[j].id)
                message_release(&dst->v[j++]);
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
    dst->a = a;
    while (dst->n > BROKER_INBOX_MAX)
        inbox_drop(b, dst, to, inbox_victim(dst));
}

size_t
broker_send(struct broker *b, const char *from, const char *to,
    const char *type, const char *body)
{
    struct bmessage m = { b->next_message_id++, (char *)from, (char *)to,
        (char *)type, (char *)body, broker_now(), false };
    size_t n = 0;
    struct as_err te;
    bool tx = db_begin(b->db, &te) == 0;
    if (!strcmp(to, "supervisor")) {
        deliver(b, "supervisor", &m);
        n = 1;
    } else {
        for (size_t i = 0; i < b->nagents; i++) {
            const struct agent *a = &b->ag[i];
            /* "all": every registered, active agent but the sender
             * (discovered worktrees have no session to read an inbox) */
            bool hit =
                !strcmp(to, "all")
                    ? b->meta[i].status == BAGENT_ACTIVE &&
                          b->meta[i].registered && strcmp(a->id, from)
                    : !strcmp(a->id, to) || (a->label && !strcmp(a->label, to));
            if (hit) {
                deliver(b, a->id, &m);
                n++;
            }
        }
    }
    if (tx && db_commit(b->db, &te))
        broker_log(b, "store: %s", te.msg);
    if (n) {
        json_t *d = broker_message_json(&m);
        json_object_set_new(d, "recipients", json_integer((json_int_t)n));
        broker_emit(b, "message", from, d);
    }
    return n;
}

void
broker_collab_release(struct broker *b)
{
    for (size_t k = 0; k < b->nintents; k++)
        intent_release(&b->intents[k]);
    free(b->intents);
    for (size_t k = 0; k < b->ninboxes; k++) {
        struct binbox *x = &b->inboxes[k];
        for (size_t j = 0; j < x->n; j++)
            message_release(&x->v[j]);
        free(x->v);
        free(x->owner);
    }
    free(b->inboxes);
    strmap_release(&b->inbox_idx);
}

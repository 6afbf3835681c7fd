/*
 * events.c - the daemon's event stream: every event gets the next id, is
 * kept in a ring of recent events, stored in the ledger (secrets redacted)
 * and sent to every Server-Sent Events client. A client reconnecting with
 * Last-Event-ID gets what it missed from the ring, and what the ring does
 * not hold (older events, those before a restart) from the ledger.
 */
#include "broker/conns.h"
#include "broker/fence.h"
#include "broker/events.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/keyvalq_struct.h>

#include "broker/team.h"
#include "util/redact.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void
sse_write(struct evhttp_request *req, const struct bevent *ev)
{
    struct evbuffer *buf = evbuffer_new();
    evbuffer_add_printf(buf, "id: %llu\nevent: %s\ndata: %s\n\n",
        (unsigned long long)ev->id, ev->type, ev->json);
    evhttp_send_reply_chunk(req, buf);
    evbuffer_free(buf);
}

/* The bytes queued for c that its connection has not written yet. */
static size_t
sse_pending(const struct sse_client *c)
{
    struct evhttp_connection *conn = evhttp_request_get_connection(c->req);
    struct bufferevent *bev =
        conn ? evhttp_connection_get_bufferevent(conn) : NULL;
    return bev ? evbuffer_get_length(bufferevent_get_output(bev)) : 0;
}

/* Forget c and close its connection, whatever it has not read. */
static void
sse_close(struct sse_client *c)
{
    struct broker *b = c->b;
    for (struct sse_client **p = &b->sse; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    struct evhttp_connection *conn = evhttp_request_get_connection(c->req);
    if (c->drop)
        event_free(c->drop);
    free(c);
    if (conn) {
        broker_conn_closecb(conn, NULL, NULL);
        evhttp_connection_free(conn); /* frees the request too */
    }
}

/* A dropped client's connection closes once it has read what was queued,
 * the notice last, or after SSE_DROP_TICKS ticks at most. */
#define SSE_DROP_TICK_MS 200
#define SSE_DROP_TICKS 25

static void
on_sse_drop(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct sse_client *c = arg;
    if (!sse_pending(c) || ++c->drop_ticks >= SSE_DROP_TICKS)
        sse_close(c);
}

/* c fell too far behind: queue (if there is room) a notice naming the last
 * event it was sent, send it nothing more, and close it soon. */
static void
sse_drop(struct sse_client *c, size_t pending)
{
    struct broker *b = c->b;
    char *note = xasprintf("event: stream.dropped\ndata: {\"type\":"
                           "\"stream.dropped\",\"ts\":%lld,\"data\":{"
                           "\"after\":%llu,\"reason\":\"the client fell "
                           "more than %u bytes behind\"}}\n\n",
        (long long)broker_now(), (unsigned long long)c->last_id,
        BROKER_SSE_MAX_PENDING);
    if (pending + strlen(note) <= BROKER_SSE_MAX_PENDING) {
        struct evbuffer *buf = evbuffer_new();
        evbuffer_add(buf, note, strlen(note));
        evhttp_send_reply_chunk(c->req, buf);
        evbuffer_free(buf);
    }
    free(note);
    broker_log(b,
        "events: dropped a client %zu bytes behind (resume after %llu)",
        pending, (unsigned long long)c->last_id);
    c->drop = event_new(b->base, -1, EV_PERSIST, on_sse_drop, c);
    struct timeval tv = { 0, SSE_DROP_TICK_MS * 1000 };
    event_add(c->drop, &tv);
}

/* Queue ev for c unless that would leave more than BROKER_SSE_MAX_PENDING
 * bytes unread: then c is dropped. */
static void
sse_send(struct sse_client *c, const struct bevent *ev)
{
    if (c->drop)
        return;
    size_t pending = sse_pending(c);
    size_t size = strlen(ev->type) + strlen(ev->json) + 48;
    if (pending + size > BROKER_SSE_MAX_PENDING) {
        sse_drop(c, pending);
        return;
    }
    sse_write(c->req, ev);
    c->last_id = ev->id;
}

/* Whether an object member named key holds a secret (a name such as
 * "password" or "client_secret"), as the redactor judges "key": "v". */
static bool
secret_key(const char *key)
{
    /* every name the redactor knows ends so (the probe is slow) */
    static const char *const ends[] = { "password", "passwd", "secret", "token",
        "key", "credentials" };
    size_t len = strlen(key);
    bool may = false;
    for (size_t k = 0; k < sizeof(ends) / sizeof(ends[0]) && !may; k++) {
        size_t n = strlen(ends[k]);
        may = len >= n && !strcasecmp(key + len - n, ends[k]);
    }
    if (!may)
        return false;
    json_t *probe = json_pack("{s:s}", key, "v");
    char *text = json_dumps(probe, JSON_COMPACT);
    json_decref(probe);
    size_t n = 0;
    free(redact_string(text, &n));
    free(text);
    return n > 0;
}

/* A copy of v for the ledger: every string (values and member names)
 * redacted; numbers, such as a lock's fencing token, kept. Redacting the
 * values of the tree, not its JSON text, keeps the result valid JSON. */
static json_t *
redact_json(json_t *v)
{
    if (json_is_string(v)) {
        size_t n = 0;
        char *clean =
            redact_text(json_string_value(v), json_string_length(v), &n);
        json_t *r = n ? json_string(clean) : json_incref(v);
        free(clean);
        return r ? r : json_string(REDACT_MARK);
    }
    if (json_is_array(v)) {
        json_t *r = json_array();
        size_t k;
        json_t *x;
        json_array_foreach(v, k, x)
        {
            json_array_append_new(r, redact_json(x));
        }
        return r;
    }
    if (json_is_object(v)) {
        json_t *r = json_object();
        const char *key;
        json_t *x;
        json_object_foreach(v, key, x)
        {
            char *k = redact_string(key, NULL);
            json_object_set_new(r, k,
                json_is_string(x) && secret_key(key) ? json_string(REDACT_MARK)
                                                     : redact_json(x));
            free(k);
        }
        return r;
    }
    return json_incref(v);
}

void
broker_emit(struct broker *b, const char *type, const char *agent, json_t *data)
{
    uint64_t id = b->next_event_id++;
    broker_fence_note(b); /* the id, and a token it announces */
    json_t *ev = json_object();
    json_object_set_new(ev, "id", json_integer((json_int_t)id));
    json_object_set_new(ev, "type", json_string(type));
    json_object_set_new(ev, "ts", json_integer((json_int_t)broker_now()));
    if (agent)
        json_object_set_new(ev, "agent", json_string(agent));
    json_object_set_new(ev, "data", data ? data : json_object());
    struct bevent *slot = &b->ring[id % BROKER_EVENT_RING];
    free(slot->type);
    free(slot->json);
    slot->id = id;
    slot->type = xstrdup(type);
    slot->json = json_dumps(ev, JSON_COMPACT);
    if (b->db) {
        /* secrets in messages, reasons or summaries never reach the disk */
        json_t *safe = redact_json(ev);
        char *clean = json_dumps(safe, JSON_COMPACT);
        json_decref(safe);
        struct db_event de = { id, broker_now(), type, agent, clean };
        struct as_err e;
        if (db_ledger_append(b->db, &de, &e))
            broker_log(b, "ledger: %s", e.msg);
        team_publish(b, clean);
        free(clean);
    }
    json_decref(ev);
    for (struct sse_client *c = b->sse, *next; c; c = next) {
        next = c->next;
        sse_send(c, slot);
    }
}

static void
on_sse_close(struct evhttp_connection *conn, void *arg)
{
    (void)conn;
    struct sse_client *me = arg;
    struct broker *b = me->b;
    if (me->drop)
        event_free(me->drop);
    for (struct sse_client **p = &b->sse; *p; p = &(*p)->next)
        if (*p == me) {
            *p = me->next;
            break;
        }
    /* The client hung up on an unfinished reply: libevent detached the
     * request from its connection and leaves freeing it to us. */
    if (!evhttp_request_get_connection(me->req))
        evhttp_request_free(me->req);
    free(me);
}

struct sse_replay {
    struct sse_client *c;
    uint64_t below; /* the ring holds this id and later */
};

static void
replay_one(void *ctx, const struct db_event *de)
{
    struct sse_replay *r = ctx;
    if (de->seq >= r->below)
        return;
    struct bevent ev = { de->seq, (char *)de->type, (char *)de->json };
    sse_send(r->c, &ev);
}

void
broker_sse_attach(
    struct broker *b, struct evhttp_request *req, bool replay, uint64_t after)
{
    struct evkeyvalq *h = evhttp_request_get_output_headers(req);
    evhttp_add_header(h, "Content-Type", "text/event-stream");
    evhttp_add_header(h, "Cache-Control", "no-cache");
    evhttp_send_reply_start(req, 200, "OK");
    broker_conn_stream(req);
    struct sse_client *c = xcalloc(1, sizeof(*c));
    c->req = req;
    c->b = b;
    c->last_id = replay ? after : b->next_event_id - 1;
    c->next = b->sse;
    b->sse = c;
    broker_conn_closecb(evhttp_request_get_connection(req), on_sse_close, c);
    /* What the client missed, oldest first: the ring holds the ids from
     * lo on (those of this process, at most the last BROKER_EVENT_RING);
     * older ones come from the ledger. An id at or past the last one
     * (2^64 - 1 included) has missed nothing. */
    uint64_t next = b->next_event_id;
    if (replay && after < next - 1) {
        uint64_t lo = next > BROKER_EVENT_RING ? next - BROKER_EVENT_RING : 1;
        if (lo < b->ring_first)
            lo = b->ring_first;
        if (b->db && after + 1 < lo) {
            struct sse_replay r = { c, lo };
            struct as_err e;
            /* ids are unique: (after, lo) holds at most this many */
            uint64_t n = lo - 1 - after;
            struct db_ledger_filter f = { .after = after,
                .limit = n < LONG_MAX ? (long)n : LONG_MAX };
            if (db_ledger_query(b->db, &f, replay_one, &r, &e))
                broker_log(b, "ledger: %s", e.msg);
        }
        for (uint64_t id = after + 1 > lo ? after + 1 : lo; id < next; id++) {
            const struct bevent *ev = &b->ring[id % BROKER_EVENT_RING];
            if (ev->id == id)
                sse_send(c, ev);
        }
    }
    if (c->drop)
        return;
    /* A comment so the client sees the stream is open. */
    struct evbuffer *buf = evbuffer_new();
    evbuffer_add_printf(buf, ": airspace events\n\n");
    evhttp_send_reply_chunk(req, buf);
    evbuffer_free(buf);
}

void
broker_events_release(struct broker *b)
{
    while (b->sse) {
        struct sse_client *c = b->sse;
        b->sse = c->next;
        broker_conn_closecb(evhttp_request_get_connection(c->req), NULL, NULL);
        evhttp_send_reply_end(c->req);
        if (c->drop)
            event_free(c->drop);
        free(c);
    }
    for (size_t i = 0; i < BROKER_EVENT_RING; i++) {
        free(b->ring[i].type);
        free(b->ring[i].json);
        b->ring[i].type = b->ring[i].json = NULL;
    }
}

/*
 * events.c - the daemon's event stream: every event gets the next id, is
 * kept in a ring of recent events and is sent to every Server-Sent Events
 * client. A client reconnecting with Last-Event-ID gets what it missed
 * from the ring.
 */
#include "broker/internal.h"

#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/keyvalq_struct.h>

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

void
broker_emit(struct broker *b, const char *type, const char *agent, json_t *data)
{
    uint64_t id = b->next_event_id++;
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
    json_decref(ev);
    if (b->db) {
        /* secrets in messages, reasons or summaries never reach the disk */
        char *clean = redact_string(slot->json, NULL);
        struct db_event de = { id, broker_now(), type, agent, clean };
        struct as_err e;
        if (db_ledger_append(b->db, &de, &e))
            broker_log(b, "ledger: %s", e.msg);
        free(clean);
    }
    for (struct sse_client *c = b->sse; c; c = c->next)
        sse_write(c->req, slot);
}

static void
on_sse_close(struct evhttp_connection *conn, void *arg)
{
    (void)conn;
    struct sse_client *me = arg;
    struct broker *b = me->b;
    for (struct sse_client **p = &b->sse; *p; p = &(*p)->next)
        if (*p == me) {
            *p = me->next;
            break;
        }
    free(me);
}

struct sse_replay {
    struct evhttp_request *req;
    uint64_t below; /* the ring holds this id and later */
};

static void
replay_one(void *ctx, const struct db_event *de)
{
    struct sse_replay *r = ctx;
    if (de->seq >= r->below)
        return;
    struct bevent ev = { de->seq, (char *)de->type, (char *)de->json };
    sse_write(r->req, &ev);
}

void
broker_sse_attach(
    struct broker *b, struct evhttp_request *req, bool replay, uint64_t after)
{
    struct evkeyvalq *h = evhttp_request_get_output_headers(req);
    evhttp_add_header(h, "Content-Type", "text/event-stream");
    evhttp_add_header(h, "Cache-Control", "no-cache");
    evhttp_send_reply_start(req, 200, "OK");
    /* What the client missed, oldest first, as far as the ring reaches. */
    uint64_t first = b->next_event_id > BROKER_EVENT_RING
                         ? b->next_event_id - BROKER_EVENT_RING
                         : 1;
    if (replay && b->db && after + 1 < first) {
        struct sse_replay r = { req, first };
        struct as_err e;
        struct db_ledger_filter f = { .after = after };
        db_ledger_query(b->db, &f, replay_one, &r, &e);
    }
    if (after + 1 > first)
        first = after + 1;
    if (replay)
        for (uint64_t id = first; id < b->next_event_id; id++) {
            const struct bevent *ev = &b->ring[id % BROKER_EVENT_RING];
            if (ev->id == id)
                sse_write(req, ev);
        }
    /* A comment so the client sees the stream is open. */
    struct evbuffer *buf = evbuffer_new();
    evbuffer_add_printf(buf, ": airspace events\n\n");
    evhttp_send_reply_chunk(req, buf);
    evbuffer_free(buf);
    struct sse_client *c = xcalloc(1, sizeof(*c));
    c->req = req;
    c->b = b;
    c->next = b->sse;
    b->sse = c;
    evhttp_connection_set_closecb(
        evhttp_request_get_connection(req), on_sse_close, c);
}

void
broker_events_release(struct broker *b)
{
    while (b->sse) {
        struct sse_client *c = b->sse;
        b->sse = c->next;
        evhttp_connection_set_closecb(
            evhttp_request_get_connection(c->req), NULL, NULL);
        evhttp_send_reply_end(c->req);
        free(c);
    }
    for (size_t i = 0; i < BROKER_EVENT_RING; i++) {
        free(b->ring[i].type);
        free(b->ring[i].json);
        b->ring[i].type = b->ring[i].json = NULL;
    }
}

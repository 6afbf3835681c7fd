/*
 * conns.h - the daemon's connections: how many it keeps and for how long.
 *
 * Every connection the HTTP layer accepts is tracked from its bufferevent
 * (evhttp's bevcb) to its close. The limits (struct broker_options):
 *
 *   max_conns            connections served at once, all listeners together
 *   max_peer_conns       of them, from one peer: on the Unix socket a
 *                        process of the user's (by pid), or all processes
 *                        of another uid together; TCP counts globally only
 *   req_timeout_ms       from a request's first byte to its last (line,
 *                        headers and body): a client that trickles is cut
 *                        off, answered 408, however often it sends a byte
 *   conn_idle_ms         an open connection with no request in it
 *                        (before the first, between keep-alive requests)
 *
 * A connection over a cap is answered 503 `too_many_connections` (JSON,
 * Connection: close) when its request arrives, or closed if none comes
 * within a second. A request being handled has no deadline here, and an
 * event stream (broker_conn_stream) none either: it counts in the caps,
 * and its backlog is bounded in events.c. Internal to src/broker.
 */
#ifndef AIRSPACE_BROKER_CONNS_H
#define AIRSPACE_BROKER_CONNS_H

#include <event2/bufferevent.h>
#include <event2/http.h>

struct broker;

/* Track connections for b from now on / forget them all (at exit). */
void broker_conns_init(struct broker *b);
void broker_conns_release(void);

/* A new connection's bufferevent, just made for evhttp (its fd not set
 * yet). */
void broker_conn_track(struct bufferevent *bev);

/* A request of req's connection is complete and about to be handled: 0
 * when it may be, or -1 when its connection is over a cap, with why (the
 * caller answers 503 too_many_connections; the reply's headers close the
 * connection). */
int broker_conn_request(struct evhttp_request *req, char *why, size_t len);

/* The reply to req's request is an open-ended stream. */
void broker_conn_stream(struct evhttp_request *req);

/* evhttp_connection_set_closecb() for code that is not conns.c: the
 * connection's own close callback (the count) runs after cb. */
void broker_conn_closecb(struct evhttp_connection *evcon,
    void (*cb)(struct evhttp_connection *, void *), void *arg);

#endif

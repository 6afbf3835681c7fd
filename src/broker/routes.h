/*
 * routes.h - the HTTP API's entry points for the loop (api.c): the loop hands
 * requests and connections to them; routes use the daemon's modules, none of
 * those use routes. Internal to src/broker.
 */
#ifndef AIRSPACE_BROKER_ROUTES_H
#define AIRSPACE_BROKER_ROUTES_H

#include "broker/internal.h"

void broker_api_handle(struct evhttp_request *req, void *arg);
/* A connection's bufferevent (evhttp_set_bevcb): the errors libevent's HTTP
 * layer answers itself (malformed request, too large, unknown method) leave
 * it as the JSON error envelope, not as HTML. */
struct bufferevent *broker_api_bev_new(struct event_base *base, void *arg);
/* Commit and answer what waits for the group commit; free its event. */
void broker_api_release(struct broker *b);

#endif

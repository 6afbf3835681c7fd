/*
 * events.h - the event log (events.c): numbered events, their ring, the ledger
 * and Server-Sent Events. Internal to src/broker.
 */
#ifndef AIRSPACE_BROKER_EVENTS_H
#define AIRSPACE_BROKER_EVENTS_H

#include "broker/internal.h"

/* Events: publish (takes ownership of data). */
void broker_emit(
    struct broker *b, const char *type, const char *agent, json_t *data);
/* Attach an SSE client; with replay, first send the events after `after`
 * still in the ring. */
void broker_sse_attach(
    struct broker *b, struct evhttp_request *req, bool replay, uint64_t after);
void broker_events_release(struct broker *b);

#endif

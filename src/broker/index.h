/*
 * index.h - the import graph's build thread (index.c). Internal to src/broker.
 */
#ifndef AIRSPACE_BROKER_INDEX_H
#define AIRSPACE_BROKER_INDEX_H

#include "broker/internal.h"

/* The graph's build for GET /v1/status: {state: "indexing", done, total,
 * startedAt}, {state: "ready", files, edges, parsed, cached, ms} or
 * {state: "failed", error, ms}. */
json_t *broker_index_json(const struct broker *b);
/* The graph's build thread (index.c): start it, stop and join it. */
void broker_index_start(struct broker *b);
void broker_index_stop(struct broker *b);

#endif

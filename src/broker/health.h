/*
 * health.h - the store's health (health.c). Internal to src/broker.
 */
#ifndef AIRSPACE_BROKER_HEALTH_H
#define AIRSPACE_BROKER_HEALTH_H

#include "broker/internal.h"

/* 0 when the store takes writes; else the HTTP status refusing one (507
 * when its disk is full, else 503) with why in e, logged when it changes.
 * A write is never acknowledged while this is not 0. */
int broker_store_refusal(struct broker *b, struct as_err *e);
/* The commit of requests failed (code rc, why in e): writes are refused,
 * and unless the store file is gone the daemon starts again from its
 * store (what memory holds of those requests is dropped), keeping the
 * ids it gave (fencing tokens, events) from being given again. */
void broker_store_failed(struct broker *b, int rc, const struct as_err *e);
/* {state: "ok"|"full"|"failed", error?} for GET /v1/status. */
json_t *broker_store_json(struct broker *b);
/* At every tick: a store that refused writes is tried again (a disk with
 * room again, a failure gone), unless its file is gone. */
void broker_store_check(struct broker *b);

#endif

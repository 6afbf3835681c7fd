/*
 * alerting.h - alerts and the fleet's reports (alerting.c). Internal to
 * src/broker.
 */
#ifndef AIRSPACE_BROKER_ALERTING_H
#define AIRSPACE_BROKER_ALERTING_H

#include "broker/internal.h"

void broker_alerts_init(struct broker *b);
void broker_alerts_release(struct broker *b);
/* Hand the engine what the store kept of the alerts (start-up, before
 * the first evaluation): those that held and the last notifications. */
int broker_alerts_restore(struct broker *b, struct as_err *e);
/* Evaluate the alerts now: publish each raised and cleared, notify. */
void broker_alerts_check(struct broker *b);
/* The alerts that hold (those concerning agent, when not NULL). */
json_t *broker_alerts_json(struct broker *b, const char *agent);
/* {count, command, notified, suppressed, dropped} for GET /v1/status. */
json_t *broker_alerts_status(struct broker *b);
/* A fleet agent's supervisor reports its state (fleet.state events; a
 * given-up agent is an alert). */
int broker_fleet_report(struct broker *b, const char *name, const char *state,
    unsigned restarts, const char *lane, const char *why, int64_t pid,
    struct as_err *e);
json_t *broker_fleet_json(struct broker *b);

#endif

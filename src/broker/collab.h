/*
 * collab.h - the airspace machine's side in the daemon (collab.c): its lock
 * table, its events into store writes, published events and the detector,
 * intents and messages. Internal to src/broker.
 */
#ifndef AIRSPACE_BROKER_COLLAB_H
#define AIRSPACE_BROKER_COLLAB_H

#include "broker/internal.h"

json_t *broker_lock_json(const struct lock *l, int64_t now);
/* The machine, its lock table b->locks (a team's store may have replaced
 * it). Call before each operation. */
struct airspace *broker_airspace(struct broker *b);
/*
 * What the machine's events mean for the daemon, in order: store writes,
 * published events, the conflict detector told of dropped and expired
 * intents; lock events go through broker_lock_events. Intents declared
 * are stored and published (the detector is the caller's: it answers
 * with the conflicts). Clears ev.
 */
void broker_airspace_events(struct broker *b, struct as_events *ev);
/* The HTTP answer of a refused operation: status from res->code. */
int broker_airspace_status(const struct as_result *res);
/* Registered agents silent for stale_ms (from the daemon's start at the
 * earliest) turn stale, and those silent for agent_timeout_ms are gone
 * (as_agents_expire), in one transaction. */
void broker_expire_agents(struct broker *b, int64_t now);
void broker_sync_intents(struct broker *b); /* into agents' intent lists */
void broker_expire_intents(struct broker *b, int64_t now);
json_t *broker_intent_json(const struct as_intent *in);
/* Send message r (as_message_send) with its store writes in one
 * transaction; returns as_message_send's answer. */
int broker_message(
    struct broker *b, const struct as_req *r, struct as_result *res);
/* Deliver to an id, a label, "all" (every active agent but the sender) or
 * "supervisor"; returns how many inboxes got it. */
size_t broker_send(struct broker *b, const char *from, const char *to,
    const char *type, const char *body);
json_t *broker_message_json(const struct as_message *m);
void broker_collab_release(struct broker *b);

#endif

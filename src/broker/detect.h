/*
 * detect.h - the conflict detector's side in the daemon (detect.c). Internal to
 * src/broker.
 */
#ifndef AIRSPACE_BROKER_DETECT_H
#define AIRSPACE_BROKER_DETECT_H

#include "broker/internal.h"

/* The conflict detector's messages: deliver each (from the supervisor)
 * and publish it; clears m. */
void broker_conflict_msgs(struct broker *b, struct conflict_msgs *m);
/* Tell the detector agent i's current working set, and where it conflicts
 * with what the integration branch changed after its base. */
void broker_conflicts_modified(struct broker *b, size_t i);
/* Tell the detector agent i whole: its label and lanes, its live intents
 * and its working set (at registration, and when it is active again after
 * it left the detector), then that it is back: a conflict it was told
 * before it left and still has is not told again. */
void broker_conflicts_agent(struct broker *b, size_t i);
/* The escalations waiting for a human: every conflict escalated to the
 * supervisor that still holds (by shape, pair and file), then every unread
 * message an agent sent the supervisor (oldest first); with agent not
 * NULL, those involving it. A new array of escalation objects
 * (docs/protocol.md). */
json_t *broker_escalations_json(struct broker *b, const char *agent);
/* An intent as the detector takes it (regions parsed from its JSON). */
void broker_conflicts_intent(
    struct broker *b, const struct as_intent *in, struct conflict_msgs *out);

#endif

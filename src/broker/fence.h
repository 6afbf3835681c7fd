/*
 * fence.h - the fencing token's and the event id's high-water marks, kept
 * in <airspace dir>/fence beside the store: a store put back from an older
 * copy (a backup restored while the daemon was down) cannot make tokens or
 * event ids go backwards. SQLite stores only (a team's tokens come from
 * its database's sequence). Internal to src/broker.
 */
#ifndef AIRSPACE_BROKER_FENCE_H
#define AIRSPACE_BROKER_FENCE_H

#include <stdint.h>

struct broker;

/* At start, after the store is read: raise *next_token and *next_event
 * (the store's) to the recorded marks when they are below, saying so in
 * the log. */
void broker_fence_load(
    struct broker *b, uint64_t *next_token, uint64_t *next_event);

/* After a token or event id was handed out and before it is acknowledged:
 * when a counter reached its mark, write a new mark a block ahead
 * (fsynced). A failure is logged; the store's own marks still hold. */
void broker_fence_note(struct broker *b);

/* At a clean stop: write the counters themselves as the marks (the next
 * start goes on from them, no jump); forget the file. */
void broker_fence_release(struct broker *b);

#endif

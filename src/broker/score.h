/*
 * score.h - scoring (score.c): the risk engine over the agents' working sets,
 * pairs and their advisories. Internal to src/broker.
 */
#ifndef AIRSPACE_BROKER_SCORE_H
#define AIRSPACE_BROKER_SCORE_H

#include "broker/internal.h"

/* Drop the evidence engine (before any working set changes). */
void broker_drop_engine(struct broker *b);
/* Re-score every pair involving agent `changed` (SIZE_MAX: all pairs). */
void broker_rescore(struct broker *b, size_t changed);
/* The pair of agents x and y (ids), made when new: its index. */
size_t broker_pair_at(struct broker *b, const char *x, const char *y);
/* Feed pair k's risk (res.risk, set by its scorer) to its advisory. */
void broker_pair_feed(struct broker *b, size_t k, int64_t now);
/* Pairs (score.c): forget every pair of agent id, a live one above clear
 * announced clear first with reason why; free a pair's merge paths. */
void broker_drop_pairs(struct broker *b, const char *id, const char *why);
void broker_clear_merge(struct bpair *p);
json_t *broker_pair_json(struct broker *b, size_t k, bool evidence);

#endif

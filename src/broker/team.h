/*
 * team.h - the daemon's side of a shared store (docs/team.md): which
 * store it opens (store.url, serve --store), the airspace and node it is
 * in there, lock decisions made in the database, events to and from the
 * other daemons of the airspace, and the peers' agents. With the SQLite
 * store every call is a no-op that changes nothing.
 */
#ifndef AIRSPACE_BROKER_TEAM_H
#define AIRSPACE_BROKER_TEAM_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "util/error.h"

struct broker;
struct as_req;
struct as_result;

/* Open b->db: o.store_url when given, else the file at b->paths.db. A
 * shared store is opened in the airspace o.store_airspace, else the
 * repository's origin URL normalised (host/path: the clones of one
 * repository agree), else its common directory; as node o.store_node,
 * else hostname:common directory. */
int team_open(struct broker *b, struct as_err *e);
void team_close(struct broker *b);

/* Before a lock decision: within a transaction (the request's, or one
 * begun here), take the airspace's decision lock and load its live locks
 * into b->locks (a fresh table), with the fencing sequence's next token;
 * *now is the database's clock. team_locks_end after the decision and
 * its writes (commits the transaction begun here). AS_EIO with the
 * message when the store cannot decide (unreachable): no lease may be
 * granted then. Not shared: *now = broker_now(), nothing else. */
int team_locks_begin(struct broker *b, int64_t *now, struct as_err *e);
void team_locks_end(struct broker *b);

/* Lock token expired in this daemon's table (at a tick, or retired by a
 * decision): retired in the store (db_lock_expire). Whether the daemon
 * announces it: always on SQLite; on a shared store only when its own
 * delete retired it, so every daemon's stream has it once (the others
 * relay that one). Not retired here (another daemon did, or the lease was
 * renewed there): the lock table is reloaded at the next tick. */
bool team_lock_expired(struct broker *b, uint64_t token);

/* A lock's contester as the store keeps it: one of this daemon's agents
 * under its name in the airspace (id@daemon, as the others name its copy),
 * so no other daemon takes it for an agent of its own; a new string, or
 * NULL to keep id as it is (not shared, or already another daemon's). */
char *team_contester_out(struct broker *b, const char *id);

/* Whether this daemon scores the pair of agents i and j: always with
 * the SQLite store and for two of its own; never for two other daemons'
 * agents; for one of its own and another daemon's, when it is the pair's
 * owner, one of the two daemons chosen by a hash of the pair (both
 * compute the same), which publishes the result for the other. */
bool team_scores_pair(struct broker *b, size_t i, size_t j);
/* Pair k (agents i and j) was scored here: a pair with another daemon's
 * agent has its result published to that daemon when it changed (at the
 * next tick, with the others of that tick); that daemon mirrors it into
 * its own pair and advisory. */
void team_pair_scored(struct broker *b, size_t k, size_t i, size_t j);

/* Whether id has the shape this daemon names another daemon's agent by
 * on a shared store (<id>@<6 hex digits of its node>): no agent of its
 * own may take it (it would be taken for that agent's copy: its
 * leases, its work). False without a shared store. */
bool team_copy_name(const struct broker *b, const char *id);

/* Intent id (in the machine here) left it: true when it was another
 * daemon's (declared here from its event), which this daemon neither
 * stores nor announces; forgotten. */
bool team_intent_left(struct broker *b, uint64_t id);
/* A message to another daemon's agent (r->to: its id when no agent or
 * label here has it, or agent@daemon): relayed to its daemon, which
 * delivers it (*sent, res->delivered = 1). 0 and !*sent: for this
 * daemon to deliver; else an error in res (AS_EIO, AS_EINVAL). */
int team_message_route(struct broker *b, const struct as_req *r,
    struct as_result *res, bool *sent);

/* now on the database's clock (the offset seen at the last decision). */
int64_t team_clock(struct broker *b, int64_t now);

/* An event the daemon emitted (its redacted JSON): to the other daemons
 * (not one relayed from them). */
void team_publish(struct broker *b, const char *json);

/* At every flush tick: watch the store's event descriptor (again after a
 * reconnection) and read what arrived. */
void team_tick(struct broker *b);

/* The store took writes again after being unreachable: the daemon's
 * agents are stored again and its lock table reloaded. */
void team_reconnected(struct broker *b);

/* Add the shared store's fields to the status' "store" object. */
void team_status_json(struct broker *b, json_t *store);
/* GET /v1/team: {store, airspace?, node?, peers: [{node, agents}]} (the
 * other daemons' agents as their store rows say), or NULL with why in e
 * when the store is unreachable. */
json_t *team_json(struct broker *b, struct as_err *e);

#endif

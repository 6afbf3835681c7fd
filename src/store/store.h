/*
 * store.h - the daemon's durable state: agents, the edits they report, locks
 * and claims (with the fencing counter), intents, messages, the ledger of
 * events and the alerts.
 *
 * Every write function commits before it returns (durable across a crash
 * of the process: WAL with synchronous=NORMAL; synchronous=FULL on request
 * for power loss), except ledger appends, which are batched: they are
 * written at 64 queued entries, on db_ledger_flush() (the daemon calls it
 * every 250 ms), before every ledger query and on the outermost
 * db_commit (in its transaction). A crash loses at most the queued ledger
 * entries, never an acknowledged lock, intent or message; the daemon
 * commits what a request queued before it replies. Event ids are never
 * given twice: a high-water mark reserved in blocks (like the fencing
 * counter) is stored before an id above it is queued.
 *
 * The schema is versioned (table meta, key schema_version) and migrated in
 * order on open; a database from a newer airspace is refused. The file is
 * created 0600. Callers never see SQL.
 *
 * Two backends (store.c dispatches): the embedded SQLite file of one
 * daemon (sqlite.c, the default) and a PostgreSQL database shared by the
 * daemons of a team (pg.c, docs/team.md). In PostgreSQL every row carries
 * its airspace (the clones of one repository) and, except locks, the node
 * (the daemon) that wrote it: a daemon restores only its own agents,
 * reports, intents, messages and ledger, while locks are the airspace's,
 * decided under a per-airspace lock on the database's clock with fencing
 * tokens from a sequence (db_locks_sync). The functions below behave the
 * same on both (tests/unit/test_store_conformance.c).
 */
#ifndef AIRSPACE_STORE_STORE_H
#define AIRSPACE_STORE_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/locks.h"
#include "core/workset.h"
#include "util/error.h"

#define DB_SCHEMA_VERSION 4 /* one migration each (sqlite.c) */
#define DB_LEDGER_BATCH 64
#define DB_TOKEN_BLOCK 1024 /* fencing tokens reserved per counter write */
#define DB_EVENT_BLOCK 1024 /* event ids reserved per counter write */

struct db;

struct db_options {
    bool sync_full;       /* synchronous=FULL (power-loss durable) */
    bool exclusive;       /* this process is the only one using the file: keep
                             the lock (no lock syscalls per transaction) */
    const char *airspace; /* shared stores: the airspace (NULL: "default") */
    const char *node;     /* shared stores: this daemon (NULL: "default") */
};

/* Open the store at `where`: a file path or "sqlite:PATH" (SQLite), or a
 * libpq URL "postgresql://..." / "postgres://..." (PostgreSQL; the
 * schema is created or migrated under an advisory lock). */
int db_open(const char *where, const struct db_options *o, struct db **out,
    struct as_err *e);
/* Whether `where` names a PostgreSQL store. */
bool db_url_is_shared(const char *where);
/* Flush the ledger queue and close (lowering the stored event-id mark to
 * just above the last id queued: a clean stop leaves no gap in ids). */
void db_close(struct db *d);

/* Group writes: one transaction until db_commit. Calls nest: only the
 * outermost pair begins and commits (flushing the ledger queue into the
 * transaction first); an inner db_commit returns 0. */
int db_begin(struct db *d, struct as_err *e);
/* A commit that fails rolls the transaction back (the store is as before
 * db_begin); so does a write the store begins and commits itself. */
int db_commit(struct db *d, struct as_err *e);
/* Abandon the open transaction (every nesting level) and the queued
 * ledger entries: nothing of it is stored. */
void db_rollback(struct db *d);

/* Whether the store takes writes: 0, or the code of what stopped it
 * (AS_ENOSPC: the disk is full; AS_EIO: another failure; AS_ENOENT: the
 * file at its path was deleted or replaced since db_open, by device and
 * inode, checked here) with its message in e. A failed write is the
 * answer until db_probe() succeeds; a deleted or replaced file, until
 * db_close, as whatever is written to the open file would be lost. */
int db_health(struct db *d, struct as_err *e);
/* Try one small write in a transaction of its own; on success a failed
 * write no longer counts (db_health is 0 again). Not within db_begin. */
int db_probe(struct db *d, struct as_err *e);

/* ---- agents (registered ones; discovered worktrees are not stored) ---- */

struct db_agent {
    const char *id, *kind, *client, *label, *worktree, *branch;
    const char *lanes; /* JSON array text, or NULL */
    const char *status;
    bool shared, human_residual;
    int64_t registered_at, last_seen;
};

int db_agent_put(struct db *d, const struct db_agent *a, struct as_err *e);
/* Forget agent id: its row, its reports and its inbox's messages, in one
 * transaction (or the caller's). An unknown id is no error. */
int db_agent_drop(struct db *d, const char *id, struct as_err *e);
typedef void db_agent_fn(void *ctx, const struct db_agent *a);
int db_agents_load(struct db *d, db_agent_fn *fn, void *ctx, struct as_err *e);

/* ---- reported edits: one per agent and path (POST .../edits) ---- */

struct db_report {
    const char *agent, *path;
    enum ws_status status;
    bool whole;
    const struct range_set *ranges; /* its lines, pure insertions marked */
    int64_t changed_at;
    double weight;
};

/* Store r (replacing the agent's report on that path). */
int db_report_put(struct db *d, const struct db_report *r, struct as_err *e);
/* Forget every report of agent. */
int db_reports_drop(struct db *d, const char *agent, struct as_err *e);
/* Every report of agent `from` becomes agent `to`'s (one of `to`'s on the
 * same path is replaced). */
int db_reports_move(
    struct db *d, const char *from, const char *to, struct as_err *e);
/* Every report, by agent then path; r->ranges is borrowed for the call. A
 * row that does not parse is skipped. */
typedef void db_report_fn(void *ctx, const struct db_report *r);
int db_reports_load(
    struct db *d, db_report_fn *fn, void *ctx, struct as_err *e);

/* ---- locks ---- */

/* Store l, and in the same transaction, when next_token passes the
 * stored high-water mark, a new mark DB_TOKEN_BLOCK above it: after a
 * restart db_locks_load's next_token is above every token ever granted. */
int db_lock_put(
    struct db *d, const struct lock *l, uint64_t next_token, struct as_err *e);
int db_lock_delete(struct db *d, uint64_t token, struct as_err *e);
/* Retire an expired lock: *retired says whether this call did. SQLite:
 * deleted, always retired (one daemon's table decided). A shared store:
 * deleted only when it has expired on the database's clock and is still
 * there, so of the daemons that saw it expire exactly one retires it
 * (and announces it); a lease renewed meanwhile stays. */
int db_lock_expire(
    struct db *d, uint64_t token, bool *retired, struct as_err *e);
typedef void db_lock_fn(void *ctx, const struct lock *l);
int db_locks_load(struct db *d, db_lock_fn *fn, void *ctx, uint64_t *next_token,
    struct as_err *e);

/* ---- intents ---- */

struct db_intent {
    uint64_t id;
    const char *agent;
    const char *files; /* JSON array text */
    const char *regions, *summary;
    int64_t created_at, expires_at;
};

int db_intent_put(struct db *d, const struct db_intent *in, struct as_err *e);
int db_intent_delete(struct db *d, uint64_t id, struct as_err *e);
typedef void db_intent_fn(void *ctx, const struct db_intent *in);
int db_intents_load(
    struct db *d, db_intent_fn *fn, void *ctx, struct as_err *e);

/* ---- messages (one row per recipient inbox) ---- */

struct db_message {
    uint64_t id;
    const char *owner, *from, *to, *type, *body;
    int64_t at;
    bool read;
};

int db_message_put(struct db *d, const struct db_message *m, struct as_err *e);
int db_message_read(
    struct db *d, const char *owner, uint64_t id, struct as_err *e);
int db_message_drop(
    struct db *d, const char *owner, uint64_t id, struct as_err *e);
/* Every message of inbox `from` moves to inbox `to`, read or not (one
 * already there with the same id is replaced). */
int db_messages_move(
    struct db *d, const char *from, const char *to, struct as_err *e);
typedef void db_message_fn(void *ctx, const struct db_message *m);
int db_messages_load(
    struct db *d, db_message_fn *fn, void *ctx, struct as_err *e);

/* ---- ledger ---- */

struct db_event {
    uint64_t seq;
    int64_t ts;
    const char *type, *agent; /* agent may be NULL */
    const char *json;         /* the whole event object */
};

/* Queue one event (copied); writes the batch when it reaches
 * DB_LEDGER_BATCH. When ev->seq reaches the stored event-id mark, first
 * stores a new mark DB_EVENT_BLOCK above it (see db_ledger_next). */
int db_ledger_append(struct db *d, const struct db_event *ev, struct as_err *e);
int db_ledger_flush(struct db *d, struct as_err *e);
/* A ledger query: events with seq > after, of type prefix and agent
 * (NULL: any), at times in [since, until] (0: unbounded), oldest first, at
 * most limit (<= 0: all). */
struct db_ledger_filter {
    uint64_t after;
    const char *type_prefix, *agent;
    int64_t since, until;
    long limit;
};

/* Run a query (flushing the queue first). */
typedef void db_event_fn(void *ctx, const struct db_event *ev);
int db_ledger_query(struct db *d, const struct db_ledger_filter *f,
    db_event_fn *fn, void *ctx, struct as_err *e);
/* The highest seq stored (0 when none). Flushes first. */
int db_ledger_last(struct db *d, uint64_t *seq, struct as_err *e);
/* The id for the next event: above every seq stored and every id ever
 * queued (the stored mark), even when a crash lost queued entries. */
int db_ledger_next(struct db *d, uint64_t *next, struct as_err *e);
/* Keep at most max_count events and none older than min_ts. */
int db_ledger_prune(
    struct db *d, long max_count, int64_t min_ts, struct as_err *e);

/* ---- alerts (core/alerts.h): one row per kind and subject ---- */

struct db_alert {
    const char *kind, *subject;
    const char *text;    /* as raised */
    const char *agents;  /* as raised: JSON array text */
    bool held;           /* it holds; else kept for notified_at alone */
    int64_t since;       /* when it was raised */
    int64_t notified_at; /* its last notification (0: none) */
};

/* Store a (replacing the row of its kind and subject). */
int db_alert_put(struct db *d, const struct db_alert *a, struct as_err *e);
/* Forget every alert that no longer holds and was last notified before
 * `before` (never notified: 0). */
int db_alerts_prune(struct db *d, int64_t before, struct as_err *e);
/* Every alert, oldest raised first. */
typedef void db_alert_fn(void *ctx, const struct db_alert *a);
int db_alerts_load(struct db *d, db_alert_fn *fn, void *ctx, struct as_err *e);

/* ---- shared stores (PostgreSQL); SQLite: not shared, no-ops ---- */

/* "sqlite" or "postgresql". */
const char *db_backend(const struct db *d);
/* Whether other daemons share this store (locks are decided in it). */
bool db_shared(const struct db *d);
/* Whether the database cannot be reached (the connection is down; writes
 * fail with AS_EIO until db_probe reconnects). */
bool db_unreachable(const struct db *d);

/* Whether a shared store's transaction (db_begin) is open. */
bool db_in_transaction(const struct db *d);

/* The airspace's lock decision point. Within db_begin: takes the
 * airspace's transaction-scoped advisory lock (held to db_commit, so no
 * other daemon decides meanwhile) and calls fn for every lock (by token,
 * with the node of the daemon that granted it: its holder is an agent
 * there;
 * expired ones too, which the decision retires with db_lock_expire, so
 * their expiry is announced); *now_ms is the database's clock and
 * *next_token the next value of the fencing sequence (never given twice).
 * AS_EUNSUP on a store that is not shared; AS_EINVAL outside db_begin. */
typedef void db_node_lock_fn(void *ctx, const char *node, const struct lock *l);
int db_locks_sync(struct db *d, db_node_lock_fn *fn, void *ctx, int64_t *now_ms,
    uint64_t *next_token, struct as_err *e);

/* The airspace's locks as they are (expired ones included: the lock
 * table hides them), and the database's clock in *now_ms, without the
 * decision lock: a cache refresh, not a decision. AS_EUNSUP when not
 * shared. */
int db_locks_peek(struct db *d, db_node_lock_fn *fn, void *ctx, int64_t *now_ms,
    struct as_err *e);

/* The working sets a daemon publishes for the others to score: one row
 * per agent, its files as JSON ([{path, status, whole, lines: [[s, e]]}]),
 * with the node's heartbeat (db_worksets_seen) to tell a live daemon's
 * rows from a dead one's. */
struct db_workset {
    const char *agent, *kind, *client, *branch, *status;
    const char *files;
    int64_t updated_at; /* read: when its daemon last changed it (the
                           database's clock, ms); ignored by put */
};

int db_workset_put(struct db *d, const struct db_workset *w, struct as_err *e);
/* Withdraw agent's row (NULL: every row of this daemon). */
int db_workset_drop(struct db *d, const char *agent, struct as_err *e);
/* The heartbeat: every row of this daemon is fresh again. */
int db_worksets_seen(struct db *d, struct as_err *e);
/* The other daemons' rows, of those whose heartbeat is within fresh_ms,
 * changed after `since` (updated_at, ms; 0: every one). */
typedef void db_workset_fn(
    void *ctx, const char *node, const struct db_workset *w);
int db_peer_worksets(struct db *d, int64_t fresh_ms, int64_t since,
    db_workset_fn *fn, void *ctx, struct as_err *e);
/* The other nodes' intents in the airspace not expired at now_ms (their
 * expires_at), each with its node; shared stores only (else none). */
typedef void db_peer_intent_fn(
    void *ctx, const char *node, const struct db_intent *in);
int db_peer_intents(struct db *d, int64_t now_ms, db_peer_intent_fn *fn,
    void *ctx, struct as_err *e);

/* Publish an event (its JSON) to every daemon of the airspace (NOTIFY,
 * delivered at commit when within db_begin; an event over 7 900 bytes is
 * sent without its data). */
int db_publish(struct db *d, const char *json, struct as_err *e);
/* A message to another daemon's agent, kept in the shared store until
 * that daemon takes it (docs/team.md). put: to_node, recipient, sender,
 * type, body (id and at ignored); the row's id in *id. */
struct db_relay {
    uint64_t id;
    const char *to_node; /* put: the recipient's daemon; take: the sender's */
    const char *sender, *recipient, *type, *body;
    int64_t at; /* when it was relayed (the database's clock, ms) */
};
int db_relay_put(
    struct db *d, const struct db_relay *m, uint64_t *id, struct as_err *e);
/* Take (delete, within the caller's transaction when there is one) every
 * message kept for this daemon, oldest first; first drop any kept longer
 * than keep_ms. Shared stores only (else none). */
typedef void db_relay_fn(void *ctx, const struct db_relay *m);
int db_relay_take(struct db *d, int64_t keep_ms, db_relay_fn *fn, void *ctx,
    struct as_err *e);
/* The descriptor to watch for published events (-1: none); it changes
 * when the store reconnects. */
int db_events_fd(struct db *d);
/* Every event published by another daemon since the last call. */
typedef void db_notice_fn(void *ctx, const char *node, const char *json);
void db_events_poll(struct db *d, db_notice_fn *fn, void *ctx);
/* The agents other daemons of the airspace stored, with their node. */
typedef void db_peer_fn(void *ctx, const char *node, const struct db_agent *a);
int db_peers_load(struct db *d, db_peer_fn *fn, void *ctx, struct as_err *e);

#endif

/*
 * backend.h - what each store backend provides (store.c dispatches the
 * db_* functions of store.h to them): the same functions, named
 * sqlite_db_* (sqlite.c) and pg_db_* (pg.c), on their own handle types.
 */
#ifndef AIRSPACE_STORE_BACKEND_H
#define AIRSPACE_STORE_BACKEND_H

#include "store/store.h"

#define DB_BACKEND_DECLS(P, T)                                                 \
    int P##_db_open(const char *where, const struct db_options *o,             \
        struct T **out, struct as_err *e);                                     \
    void P##_db_close(struct T *d);                                            \
    int P##_db_begin(struct T *d, struct as_err *e);                           \
    int P##_db_commit(struct T *d, struct as_err *e);                          \
    void P##_db_rollback(struct T *d);                                         \
    int P##_db_health(struct T *d, struct as_err *e);                          \
    int P##_db_probe(struct T *d, struct as_err *e);                           \
    int P##_db_agent_put(                                                      \
        struct T *d, const struct db_agent *a, struct as_err *e);              \
    int P##_db_agent_drop(struct T *d, const char *id, struct as_err *e);      \
    int P##_db_agents_load(                                                    \
        struct T *d, db_agent_fn *fn, void *ctx, struct as_err *e);            \
    int P##_db_report_put(                                                     \
        struct T *d, const struct db_report *r, struct as_err *e);             \
    int P##_db_reports_drop(struct T *d, const char *agent, struct as_err *e); \
    int P##_db_reports_move(                                                   \
        struct T *d, const char *from, const char *to, struct as_err *e);      \
    int P##_db_reports_load(                                                   \
        struct T *d, db_report_fn *fn, void *ctx, struct as_err *e);           \
    int P##_db_lock_put(struct T *d, const struct lock *l,                     \
        uint64_t next_token, struct as_err *e);                                \
    int P##_db_lock_delete(struct T *d, uint64_t token, struct as_err *e);     \
    int P##_db_locks_load(struct T *d, db_lock_fn *fn, void *ctx,              \
        uint64_t *next_token, struct as_err *e);                               \
    int P##_db_intent_put(                                                     \
        struct T *d, const struct db_intent *in, struct as_err *e);            \
    int P##_db_intent_delete(struct T *d, uint64_t id, struct as_err *e);      \
    int P##_db_intents_load(                                                   \
        struct T *d, db_intent_fn *fn, void *ctx, struct as_err *e);           \
    int P##_db_message_put(                                                    \
        struct T *d, const struct db_message *m, struct as_err *e);            \
    int P##_db_message_read(                                                   \
        struct T *d, const char *owner, uint64_t id, struct as_err *e);        \
    int P##_db_message_drop(                                                   \
        struct T *d, const char *owner, uint64_t id, struct as_err *e);        \
    int P##_db_messages_move(                                                  \
        struct T *d, const char *from, const char *to, struct as_err *e);      \
    int P##_db_messages_load(                                                  \
        struct T *d, db_message_fn *fn, void *ctx, struct as_err *e);          \
    int P##_db_ledger_append(                                                  \
        struct T *d, const struct db_event *ev, struct as_err *e);             \
    int P##_db_ledger_flush(struct T *d, struct as_err *e);                    \
    int P##_db_ledger_query(struct T *d, const struct db_ledger_filter *f,     \
        db_event_fn *fn, void *ctx, struct as_err *e);                         \
    int P##_db_ledger_last(struct T *d, uint64_t *seq, struct as_err *e);      \
    int P##_db_ledger_next(struct T *d, uint64_t *next, struct as_err *e);     \
    int P##_db_ledger_prune(                                                   \
        struct T *d, long max_count, int64_t min_ts, struct as_err *e);        \
    int P##_db_alert_put(                                                      \
        struct T *d, const struct db_alert *a, struct as_err *e);              \
    int P##_db_alerts_prune(struct T *d, int64_t before, struct as_err *e);    \
    int P##_db_alerts_load(                                                    \
        struct T *d, db_alert_fn *fn, void *ctx, struct as_err *e);

struct sqlite_db;
struct pg_db;
DB_BACKEND_DECLS(sqlite, sqlite_db)
DB_BACKEND_DECLS(pg, pg_db)

/* PostgreSQL only (store.h's shared-store functions). */
bool pg_db_unreachable(const struct pg_db *d);
bool pg_db_in_transaction(const struct pg_db *d);
int pg_db_locks_sync(struct pg_db *d, db_node_lock_fn *fn, void *ctx,
    int64_t *now_ms, uint64_t *next_token, struct as_err *e);
int pg_db_lock_expire(
    struct pg_db *d, uint64_t token, bool *retired, struct as_err *e);
int pg_db_locks_peek(struct pg_db *d, db_node_lock_fn *fn, void *ctx,
    int64_t *now_ms, struct as_err *e);
int pg_db_workset_put(
    struct pg_db *d, const struct db_workset *w, struct as_err *e);
int pg_db_workset_drop(struct pg_db *d, const char *agent, struct as_err *e);
int pg_db_worksets_seen(struct pg_db *d, struct as_err *e);
int pg_db_peer_worksets(struct pg_db *d, int64_t fresh_ms, int64_t since,
    db_workset_fn *fn, void *ctx, struct as_err *e);
int pg_db_peer_intents(struct pg_db *d, int64_t now_ms, db_peer_intent_fn *fn,
    void *ctx, struct as_err *e);
int pg_db_publish(struct pg_db *d, const char *json, struct as_err *e);
int pg_db_relay_put(
    struct pg_db *d, const struct db_relay *m, uint64_t *id, struct as_err *e);
int pg_db_relay_take(struct pg_db *d, int64_t keep_ms, db_relay_fn *fn,
    void *ctx, struct as_err *e);
int pg_db_events_fd(struct pg_db *d);
void pg_db_events_poll(struct pg_db *d, db_notice_fn *fn, void *ctx);
int pg_db_peers_load(
    struct pg_db *d, db_peer_fn *fn, void *ctx, struct as_err *e);

#endif

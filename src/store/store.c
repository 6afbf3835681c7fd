/*
 * store.c - the db_* functions of store.h, dispatched to the backend the
 * store was opened with: SQLite (sqlite.c) for a path or "sqlite:PATH",
 * PostgreSQL (pg.c) for a "postgresql://" or "postgres://" URL.
 */
#include "store/store.h"

#include <stdlib.h>
#include <string.h>

#include "store/backend.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct db {
    struct sqlite_db *s; /* exactly one of the two */
    struct pg_db *p;
};

#define CALL(fn, ...)                                                          \
    (d->p ? pg_##fn(d->p, __VA_ARGS__) : sqlite_##fn(d->s, __VA_ARGS__))

bool
db_url_is_shared(const char *where)
{
    return where && (!strncmp(where, "postgresql://", 13) ||
                        !strncmp(where, "postgres://", 11));
}

int
db_open(const char *where, const struct db_options *o, struct db **out,
    struct as_err *e)
{
    *out = NULL;
    struct db *d = xcalloc(1, sizeof(*d));
    int rc;
    if (db_url_is_shared(where))
        rc = pg_db_open(where, o, &d->p, e);
    else
        rc = sqlite_db_open(
            !strncmp(where, "sqlite:", 7) ? where + 7 : where, o, &d->s, e);
    if (rc) {
        free(d);
        return rc;
    }
    *out = d;
    return 0;
}

void
db_close(struct db *d)
{
    if (!d)
        return;
    if (d->p)
        pg_db_close(d->p);
    else
        sqlite_db_close(d->s);
    free(d);
}

int
db_begin(struct db *d, struct as_err *e)
{
    return CALL(db_begin, e);
}

int
db_commit(struct db *d, struct as_err *e)
{
    return CALL(db_commit, e);
}

void
db_rollback(struct db *d)
{
    if (d->p)
        pg_db_rollback(d->p);
    else
        sqlite_db_rollback(d->s);
}

int
db_health(struct db *d, struct as_err *e)
{
    return CALL(db_health, e);
}

int
db_probe(struct db *d, struct as_err *e)
{
    return CALL(db_probe, e);
}

int
db_agent_put(struct db *d, const struct db_agent *a, struct as_err *e)
{
    return CALL(db_agent_put, a, e);
}

int
db_agent_drop(struct db *d, const char *id, struct as_err *e)
{
    return CALL(db_agent_drop, id, e);
}

int
db_agents_load(struct db *d, db_agent_fn *fn, void *ctx, struct as_err *e)
{
    return CALL(db_agents_load, fn, ctx, e);
}

int
db_report_put(struct db *d, const struct db_report *r, struct as_err *e)
{
    return CALL(db_report_put, r, e);
}

int
db_reports_drop(struct db *d, const char *agent, struct as_err *e)
{
    return CALL(db_reports_drop, agent, e);
}

int
db_reports_move(
    struct db *d, const char *from, const char *to, struct as_err *e)
{
    return CALL(db_reports_move, from, to, e);
}

int
db_reports_load(struct db *d, db_report_fn *fn, void *ctx, struct as_err *e)
{
    return CALL(db_reports_load, fn, ctx, e);
}

int
db_lock_put(
    struct db *d, const struct lock *l, uint64_t next_token, struct as_err *e)
{
    return CALL(db_lock_put, l, next_token, e);
}

int
db_lock_delete(struct db *d, uint64_t token, struct as_err *e)
{
    return CALL(db_lock_delete, token, e);
}

int
db_lock_expire(struct db *d, uint64_t token, bool *retired, struct as_err *e)
{
    if (d->p)
        return pg_db_lock_expire(d->p, token, retired, e);
    *retired = true; /* one daemon: its table decided */
    return sqlite_db_lock_delete(d->s, token, e);
}

int
db_locks_load(struct db *d, db_lock_fn *fn, void *ctx, uint64_t *next_token,
    struct as_err *e)
{
    return CALL(db_locks_load, fn, ctx, next_token, e);
}

int
db_intent_put(struct db *d, const struct db_intent *in, struct as_err *e)
{
    return CALL(db_intent_put, in, e);
}

int
db_intent_delete(struct db *d, uint64_t id, struct as_err *e)
{
    return CALL(db_intent_delete, id, e);
}

int
db_intents_load(struct db *d, db_intent_fn *fn, void *ctx, struct as_err *e)
{
    return CALL(db_intents_load, fn, ctx, e);
}

int
db_message_put(struct db *d, const struct db_message *m, struct as_err *e)
{
    return CALL(db_message_put, m, e);
}

int
db_message_read(struct db *d, const char *owner, uint64_t id, struct as_err *e)
{
    return CALL(db_message_read, owner, id, e);
}

int
db_message_drop(struct db *d, const char *owner, uint64_t id, struct as_err *e)
{
    return CALL(db_message_drop, owner, id, e);
}

int
db_messages_move(
    struct db *d, const char *from, const char *to, struct as_err *e)
{
    return CALL(db_messages_move, from, to, e);
}

int
db_messages_load(struct db *d, db_message_fn *fn, void *ctx, struct as_err *e)
{
    return CALL(db_messages_load, fn, ctx, e);
}

int
db_ledger_append(struct db *d, const struct db_event *ev, struct as_err *e)
{
    return CALL(db_ledger_append, ev, e);
}

int
db_ledger_flush(struct db *d, struct as_err *e)
{
    return CALL(db_ledger_flush, e);
}

int
db_ledger_query(struct db *d, const struct db_ledger_filter *f, db_event_fn *fn,
    void *ctx, struct as_err *e)
{
    return CALL(db_ledger_query, f, fn, ctx, e);
}

int
db_ledger_last(struct db *d, uint64_t *seq, struct as_err *e)
{
    return CALL(db_ledger_last, seq, e);
}

int
db_ledger_next(struct db *d, uint64_t *next, struct as_err *e)
{
    return CALL(db_ledger_next, next, e);
}

int
db_ledger_prune(struct db *d, long max_count, int64_t min_ts, struct as_err *e)
{
    return CALL(db_ledger_prune, max_count, min_ts, e);
}

int
db_alert_put(struct db *d, const struct db_alert *a, struct as_err *e)
{
    return CALL(db_alert_put, a, e);
}

int
db_alerts_prune(struct db *d, int64_t before, struct as_err *e)
{
    return CALL(db_alerts_prune, before, e);
}

int
db_alerts_load(struct db *d, db_alert_fn *fn, void *ctx, struct as_err *e)
{
    return CALL(db_alerts_load, fn, ctx, e);
}

/* ---- shared stores ---- */

const char *
db_backend(const struct db *d)
{
    return d->p ? "postgresql" : "sqlite";
}

bool
db_shared(const struct db *d)
{
    return d && d->p;
}

bool
db_unreachable(const struct db *d)
{
    return d && d->p && pg_db_unreachable(d->p);
}

bool
db_in_transaction(const struct db *d)
{
    return d && d->p && pg_db_in_transaction(d->p);
}

int
db_locks_sync(struct db *d, db_node_lock_fn *fn, void *ctx, int64_t *now_ms,
    uint64_t *next_token, struct as_err *e)
{
    if (!d->p)
        return as_errorf(e, AS_EUNSUP, "the store is not shared");
    return pg_db_locks_sync(d->p, fn, ctx, now_ms, next_token, e);
}

int
db_locks_peek(struct db *d, db_node_lock_fn *fn, void *ctx, int64_t *now_ms,
    struct as_err *e)
{
    if (!d->p)
        return as_errorf(e, AS_EUNSUP, "the store is not shared");
    return pg_db_locks_peek(d->p, fn, ctx, now_ms, e);
}

int
db_workset_put(struct db *d, const struct db_workset *w, struct as_err *e)
{
    return d->p ? pg_db_workset_put(d->p, w, e) : 0;
}

int
db_workset_drop(struct db *d, const char *agent, struct as_err *e)
{
    return d->p ? pg_db_workset_drop(d->p, agent, e) : 0;
}

int
db_worksets_seen(struct db *d, struct as_err *e)
{
    return d->p ? pg_db_worksets_seen(d->p, e) : 0;
}

int
db_peer_worksets(struct db *d, int64_t fresh_ms, int64_t since,
    db_workset_fn *fn, void *ctx, struct as_err *e)
{
    return d->p ? pg_db_peer_worksets(d->p, fresh_ms, since, fn, ctx, e) : 0;
}

int
db_peer_intents(struct db *d, int64_t now_ms, db_peer_intent_fn *fn, void *ctx,
    struct as_err *e)
{
    return d->p ? pg_db_peer_intents(d->p, now_ms, fn, ctx, e) : 0;
}

int
db_relay_put(
    struct db *d, const struct db_relay *m, uint64_t *id, struct as_err *e)
{
    *id = 0;
    return d->p ? pg_db_relay_put(d->p, m, id, e) : 0;
}

int
db_relay_take(
    struct db *d, int64_t keep_ms, db_relay_fn *fn, void *ctx, struct as_err *e)
{
    return d->p ? pg_db_relay_take(d->p, keep_ms, fn, ctx, e) : 0;
}

int
db_publish(struct db *d, const char *json, struct as_err *e)
{
    return d->p ? pg_db_publish(d->p, json, e) : 0;
}

int
db_events_fd(struct db *d)
{
    return d && d->p ? pg_db_events_fd(d->p) : -1;
}

void
db_events_poll(struct db *d, db_notice_fn *fn, void *ctx)
{
    if (d && d->p)
        pg_db_events_poll(d->p, fn, ctx);
}

int
db_peers_load(struct db *d, db_peer_fn *fn, void *ctx, struct as_err *e)
{
    return d->p ? pg_db_peers_load(d->p, fn, ctx, e) : 0;
}

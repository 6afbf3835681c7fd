/*
 * sqlite.c - the daemon's store in an embedded SQLite database: schema
 * migrations, transactions, and one group of statements per table
 * (agents, reported edits, locks, intents, messages, ledger, alerts).
 *
 * Slightly over 1,000 lines: one short group per table, behind one set of
 * binding and error helpers.
 */
#include "store/backend.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void bind_text(sqlite3_stmt *s, int i, const char *v);
static int run(
    struct sqlite_db *d, sqlite3_stmt *s, struct as_err *e, const char *what);
static void write_back(struct sqlite_db *d);

/* Ordered migrations: migrations[k] takes schema k to k + 1. */
static const char *const migrations[] = {
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;"
    "CREATE TABLE agents (id TEXT PRIMARY KEY, kind TEXT NOT NULL,"
    " client TEXT, label TEXT, worktree TEXT, branch TEXT, lanes TEXT,"
    " status TEXT NOT NULL, shared INTEGER NOT NULL,"
    " human_residual INTEGER NOT NULL, registered_at INTEGER NOT NULL,"
    " last_seen INTEGER NOT NULL) STRICT;"
    "CREATE TABLE locks (token INTEGER PRIMARY KEY, pattern TEXT NOT NULL,"
    " holder TEXT NOT NULL, mode TEXT NOT NULL, kind TEXT NOT NULL,"
    " acquired_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,"
    " ttl_ms INTEGER NOT NULL, reason TEXT, contested_by TEXT,"
    " contested_at INTEGER NOT NULL, file INTEGER NOT NULL) STRICT;"
    "CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)"
    " STRICT;"
    "CREATE TABLE intents (id INTEGER PRIMARY KEY, agent TEXT NOT NULL,"
    " files TEXT NOT NULL, regions TEXT, summary TEXT,"
    " created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL) STRICT;"
    "CREATE TABLE messages (owner TEXT NOT NULL, id INTEGER NOT NULL,"
    " sender TEXT NOT NULL, recipient TEXT NOT NULL, type TEXT NOT NULL,"
    " body TEXT NOT NULL, at INTEGER NOT NULL, read INTEGER NOT NULL,"
    " PRIMARY KEY (owner, id)) STRICT;"
    "CREATE TABLE ledger (seq INTEGER PRIMARY KEY, ts INTEGER NOT NULL,"
    " type TEXT NOT NULL, agent TEXT, json TEXT NOT NULL) STRICT;"
    "CREATE INDEX ledger_type ON ledger (type);"
    "CREATE INDEX ledger_agent ON ledger (agent);"
    "CREATE INDEX ledger_ts ON ledger (ts);",
    /* The ledger query walks seq in order and filters type and agent as it
     * goes (a prefix and an optional match use no index), so those two
     * indexes only cost every append two more pages; ts serves retention. */
    "DROP INDEX ledger_type; DROP INDEX ledger_agent;",
    /* The edits agents report (POST .../edits), one row per agent and path:
     * lines are the replaced ranges ("s-e,s-e"), ins the pure insertions
     * ("k,k"), as range_set keeps them. */
    "CREATE TABLE reports (agent TEXT NOT NULL, path TEXT NOT NULL,"
    " status TEXT NOT NULL, whole INTEGER NOT NULL, lines TEXT NOT NULL,"
    " ins TEXT NOT NULL, changed_at INTEGER NOT NULL, weight REAL NOT NULL,"
    " PRIMARY KEY (agent, path)) STRICT, WITHOUT ROWID;",
    /* The alerts (core/alerts.h) across a restart: those that hold, as
     * raised (agents: a JSON array), and the last notification of each,
     * kept after it cleared while the rate limit remembers it. */
    "CREATE TABLE alerts (kind TEXT NOT NULL, subject TEXT NOT NULL,"
    " held INTEGER NOT NULL, since INTEGER NOT NULL,"
    " notified_at INTEGER NOT NULL, text TEXT NOT NULL, agents TEXT NOT NULL,"
    " PRIMARY KEY (kind, subject)) STRICT, WITHOUT ROWID;",
};

_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == DB_SCHEMA_VERSION,
    "one migration per schema version");

enum stmt_id {
    S_AGENT_PUT,
    S_AGENT_DROP,
    S_LOCK_PUT,
    S_LOCK_DEL,
    S_COUNTER_PUT,
    S_INTENT_PUT,
    S_INTENT_DEL,
    S_MSG_PUT,
    S_MSG_READ,
    S_MSG_DROP,
    S_MSG_MOVE,
    S_MSG_DROP_ALL,
    S_LEDGER_PUT,
    S_REPORT_PUT,
    S_REPORT_DROP,
    S_REPORT_MOVE,
    S_ALERT_PUT,
    S_ALERT_PRUNE,
    S_COUNT
};

static const char *const stmt_sql[S_COUNT] = {
    [S_AGENT_PUT] = "INSERT OR REPLACE INTO agents VALUES "
                    "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    [S_AGENT_DROP] = "DELETE FROM agents WHERE id = ?1",
    [S_LOCK_PUT] = "INSERT OR REPLACE INTO locks VALUES "
                   "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    [S_LOCK_DEL] = "DELETE FROM locks WHERE token = ?1",
    [S_COUNTER_PUT] = "INSERT OR REPLACE INTO counters VALUES (?1, ?2)",
    [S_INTENT_PUT] = "INSERT OR REPLACE INTO intents VALUES "
                     "(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [S_INTENT_DEL] = "DELETE FROM intents WHERE id = ?1",
    [S_MSG_PUT] = "INSERT OR REPLACE INTO messages VALUES "
                  "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [S_MSG_READ] = "UPDATE messages SET read = 1 WHERE owner = ?1 AND id = ?2",
    [S_MSG_DROP] = "DELETE FROM messages WHERE owner = ?1 AND id = ?2",
    [S_MSG_MOVE] = "UPDATE OR REPLACE messages SET owner = ?2 WHERE owner = ?1",
    [S_MSG_DROP_ALL] = "DELETE FROM messages WHERE owner = ?1",
    [S_LEDGER_PUT] =
        "INSERT OR REPLACE INTO ledger VALUES (?1, ?2, ?3, ?4, ?5)",
    [S_REPORT_PUT] = "INSERT OR REPLACE INTO reports VALUES "
                     "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [S_REPORT_DROP] = "DELETE FROM reports WHERE agent = ?1",
    [S_REPORT_MOVE] =
        "UPDATE OR REPLACE reports SET agent = ?2 WHERE agent = ?1",
    [S_ALERT_PUT] = "INSERT OR REPLACE INTO alerts VALUES "
                    "(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [S_ALERT_PRUNE] = "DELETE FROM alerts WHERE held = 0 AND notified_at < ?1",
};

struct qevent {
    uint64_t seq;
    int64_t ts;
    char *type, *agent, *json;
};

struct sqlite_db {
    sqlite3 *h;
    char *path;
    sqlite3_stmt *st[S_COUNT];
    int depth;          /* open db_begin calls (0: none) */
    bool in_tx;         /* a transaction of db_begin is open */
    uint64_t token_hwm; /* the stored fencing high-water mark */
    uint64_t event_hwm; /* the stored event-id high-water mark */
    uint64_t last_seq;  /* the highest seq queued since the open */
    dev_t dev;          /* the file opened, to notice it replaced */
    ino_t ino;
    int fault;   /* a write failed: its code, until db_probe */
    bool gone;   /* the file was deleted or replaced */
    bool orphan; /* deleted: to be written back there (write_back) */
    char fault_msg[sizeof(((struct as_err *)0)->msg)];
    struct qevent q[DB_LEDGER_BATCH];
    size_t nq;
};

/* The code of SQLite's last error: a full disk is told apart. */
static int
err_code(struct sqlite_db *d)
{
    return sqlite3_errcode(d->h) == SQLITE_FULL ? AS_ENOSPC : AS_EIO;
}

/* A write failed: remembered until sqlite_db_probe() (db_health). */
static int
fault(struct sqlite_db *d, int rc, const char *msg)
{
    if (!d->fault) {
        d->fault = rc;
        snprintf(d->fault_msg, sizeof(d->fault_msg), "%s", msg);
    }
    return rc;
}

static int
sql_err(struct sqlite_db *d, struct as_err *e, const char *what)
{
    return as_errorf(e, err_code(d), "store '%s': %s: %s", d->path, what,
        sqlite3_errmsg(d->h));
}

static int
exec(struct sqlite_db *d, const char *sql, struct as_err *e)
{
    char *msg = NULL;
    if (sqlite3_exec(d->h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        struct as_err me;
        int rc = as_errorf(&me, err_code(d), "store '%s': %s", d->path,
            msg ? msg : sqlite3_errmsg(d->h));
        sqlite3_free(msg);
        fault(d, rc, me.msg);
        if (e)
            *e = me;
        return rc;
    }
    return 0;
}

/* After a failed or abandoned write: no transaction stays open, and the
 * cached marks are the stored ones again (a mark written in a transaction
 * that did not commit was never stored). */
static void
tx_abandon(struct sqlite_db *d)
{
    if (!sqlite3_get_autocommit(d->h))
        sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
    d->depth = 0;
    d->in_tx = false;
    d->token_hwm = d->event_hwm = 0; /* unknown: the next write stores one */
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(d->h, "SELECT name, value FROM counters", -1, &s,
            NULL) != SQLITE_OK)
        return;
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *n = (const char *)sqlite3_column_text(s, 0);
        uint64_t v = (uint64_t)sqlite3_column_int64(s, 1);
        if (n && !strcmp(n, "next_token"))
            d->token_hwm = v;
        else if (n && !strcmp(n, "next_event"))
            d->event_hwm = v;
    }
    sqlite3_finalize(s);
}

/* End a transaction of the store's own: commit, or roll back when rc. */
static int
tx_end(struct sqlite_db *d, int rc, struct as_err *e)
{
    if (!rc && !(rc = exec(d, "COMMIT", e)))
        return 0;
    tx_abandon(d);
    return rc;
}

/* The counter name into *v (0 when it was never stored). */
static int
counter_get(
    struct sqlite_db *d, const char *name, uint64_t *v, struct as_err *e)
{
    sqlite3_stmt *s;
    *v = 0;
    if (sqlite3_prepare_v2(d->h, "SELECT value FROM counters WHERE name = ?1",
            -1, &s, NULL) != SQLITE_OK)
        return sql_err(d, e, "cannot read a counter");
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    if (sqlite3_step(s) == SQLITE_ROW)
        *v = (uint64_t)sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return 0;
}

static int
schema_version(struct sqlite_db *d, int *v, struct as_err *e)
{
    sqlite3_stmt *s;
    *v = 0;
    if (sqlite3_prepare_v2(d->h,
            "SELECT count(*) FROM sqlite_master WHERE name = 'meta'", -1, &s,
            NULL) != SQLITE_OK)
        return sql_err(d, e, "cannot read the schema");
    int has = sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    if (!has)
        return 0;
    if (sqlite3_prepare_v2(d->h,
            "SELECT value FROM meta WHERE key = 'schema_version'", -1, &s,
            NULL) != SQLITE_OK)
        return sql_err(d, e, "cannot read the schema version");
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
        *v = (int)strtol((const char *)sqlite3_column_text(s, 0), NULL, 10);
    sqlite3_finalize(s);
    return 0;
}

static int
migrate(struct sqlite_db *d, struct as_err *e)
{
    int v, rc;
    if ((rc = schema_version(d, &v, e)))
        return rc;
    int want = (int)(sizeof(migrations) / sizeof(migrations[0]));
    if (v > want)
        return as_errorf(e, AS_EUNSUP,
            "store '%s' has schema %d, newer than this airspace (%d); "
            "upgrade airspace",
            d->path, v, want);
    for (; v < want; v++) {
        if ((rc = exec(d, "BEGIN IMMEDIATE", e)))
            return rc;
        char ver[96];
        snprintf(ver, sizeof(ver),
            "INSERT OR REPLACE INTO meta VALUES ('schema_version', '%d')",
            v + 1);
        if ((rc = exec(d, migrations[v], e)) || (rc = exec(d, ver, e))) {
            exec(d, "ROLLBACK", NULL);
            return rc;
        }
        if ((rc = exec(d, "COMMIT", e)))
            return rc;
    }
    return 0;
}

int
sqlite_db_open(const char *path, const struct db_options *o,
    struct sqlite_db **out, struct as_err *e)
{
    *out = NULL;
    /* Create it private before SQLite opens it. */
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return as_errorf(
            e, AS_EIO, "cannot open store '%s': %s", path, strerror(errno));
    close(fd);
    struct sqlite_db *d = xcalloc(1, sizeof(*d));
    d->path = xstrdup(path);
    int rc = 0;
    if (sqlite3_open_v2(path, &d->h,
            SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
            NULL) != SQLITE_OK) {
        rc = sql_err(d, e, "cannot open");
        goto fail;
    }
    sqlite3_busy_timeout(d->h, 5000);
    char pragmas[256];
    /* (the locking mode first: WAL then keeps its index in heap memory;
     * small pages: every commit appends whole pages to the WAL, and our
     * rows are small) */
    snprintf(pragmas, sizeof(pragmas),
        "%sPRAGMA page_size=1024; PRAGMA journal_mode=WAL; PRAGMA "
        "synchronous=%s; "
        "PRAGMA foreign_keys=ON;",
        o && o->exclusive ? "PRAGMA locking_mode=EXCLUSIVE; " : "",
        o && o->sync_full ? "FULL" : "NORMAL");
    if ((rc = exec(d, pragmas, e)))
        goto fail;
    /* a file that is not a database fails here with a clear message */
    if ((rc = migrate(d, e)))
        goto fail;
    for (int k = 0; k < S_COUNT; k++)
        if (sqlite3_prepare_v3(d->h, stmt_sql[k], -1, SQLITE_PREPARE_PERSISTENT,
                &d->st[k], NULL) != SQLITE_OK) {
            rc = sql_err(d, e, "cannot prepare a statement");
            goto fail;
        }
    if ((rc = counter_get(d, "next_event", &d->event_hwm, e)))
        goto fail;
    struct stat st;
    if (stat(path, &st) == 0) {
        d->dev = st.st_dev;
        d->ino = st.st_ino;
    }
    *out = d;
    return 0;
fail:
    for (int k = 0; k < S_COUNT; k++)
        sqlite3_finalize(d->st[k]);
    sqlite3_close(d->h);
    free(d->path);
    free(d);
    return rc;
}

void
sqlite_db_close(struct sqlite_db *d)
{
    if (!d)
        return;
    struct as_err e;
    /* all written: the next start may continue right after the last id */
    if (!sqlite_db_ledger_flush(d, &e) && d->last_seq &&
        d->event_hwm > d->last_seq + 1) {
        sqlite3_stmt *c = d->st[S_COUNTER_PUT];
        bind_text(c, 1, "next_event");
        sqlite3_bind_int64(c, 2, (sqlite3_int64)(d->last_seq + 1));
        run(d, c, &e, "cannot store the event counter");
    }
    for (int k = 0; k < S_COUNT; k++)
        sqlite3_finalize(d->st[k]);
    sqlite3_close(d->h);
    free(d->path);
    free(d);
}

int
sqlite_db_begin(struct sqlite_db *d, struct as_err *e)
{
    if (d->depth) {
        d->depth++;
        return 0;
    }
    int rc = exec(d, "BEGIN IMMEDIATE", e);
    if (!rc) {
        d->in_tx = true;
        d->depth = 1;
    }
    return rc;
}

int
sqlite_db_commit(struct sqlite_db *d, struct as_err *e)
{
    if (!d->depth || --d->depth)
        return 0;
    /* the queued ledger entries go in the same transaction */
    int rc = sqlite_db_ledger_flush(d, e);
    d->in_tx = false;
    return tx_end(d, rc, e);
}

void
sqlite_db_rollback(struct sqlite_db *d)
{
    for (size_t k = 0; k < d->nq; k++) {
        free(d->q[k].type);
        free(d->q[k].agent);
        free(d->q[k].json);
    }
    d->nq = 0;
    tx_abandon(d);
    write_back(d);
}

/* The store's file was deleted: what it held (every committed write) is
 * written back at its path, once and outside a transaction, so the next
 * start finds it. Writes to the open file would still be lost: db_health
 * goes on refusing them. */
static void
write_back(struct sqlite_db *d)
{
    if (!d->orphan || d->depth)
        return;
    d->orphan = false;
    const char *how = "written back there";
    struct stat st;
    int fd = open(d->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        how = "another file is there now";
    } else {
        bool made = fstat(fd, &st) == 0;
        close(fd);
        char *sql = sqlite3_mprintf("VACUUM INTO %Q", d->path);
        if (sqlite3_exec(d->h, sql, NULL, NULL, NULL) != SQLITE_OK) {
            how = "it could not be written back there";
            struct stat now;
            if (made && stat(d->path, &now) == 0 && now.st_dev == st.st_dev &&
                now.st_ino == st.st_ino)
                unlink(d->path); /* our partial copy: no store is better */
        }
        sqlite3_free(sql);
    }
    snprintf(d->fault_msg, sizeof(d->fault_msg),
        "store '%s' was deleted while in use (what it held: %s); writes "
        "are refused until the daemon starts again",
        d->path, how);
}

int
sqlite_db_health(struct sqlite_db *d, struct as_err *e)
{
    struct stat st;
    int missing = d->gone ? 0 : stat(d->path, &st) < 0 ? errno : 0;
    if (!d->gone && (missing || st.st_dev != d->dev || st.st_ino != d->ino)) {
        d->gone = true;
        d->orphan = missing == ENOENT;
        d->fault = AS_ENOENT;
        snprintf(d->fault_msg, sizeof(d->fault_msg),
            "store '%s' was %s while in use; writes are refused until the "
            "daemon starts again",
            d->path, d->orphan ? "deleted" : "replaced by another file");
    }
    write_back(d);
    if (d->fault)
        as_errorf(e, d->fault, "%s", d->fault_msg);
    return d->fault;
}

int
sqlite_db_probe(struct sqlite_db *d, struct as_err *e)
{
    if (d->gone || d->depth)
        return sqlite_db_health(d, e);
    char sql[128];
    snprintf(sql, sizeof(sql),
        "BEGIN IMMEDIATE; INSERT OR REPLACE INTO meta VALUES ('probe', "
        "'%lld'); COMMIT",
        (long long)time(NULL));
    int saved = d->fault;
    d->fault = 0;
    int rc = exec(d, sql, e);
    if (rc) {
        tx_abandon(d);
        d->fault = saved ? saved : rc;
    }
    return rc;
}

/* ---- binding helpers ---- */

static void
bind_text(sqlite3_stmt *s, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, i);
}

static int
run(struct sqlite_db *d, sqlite3_stmt *s, struct as_err *e, const char *what)
{
    int r = sqlite3_step(s);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    if (r != SQLITE_DONE) {
        struct as_err me;
        int rc = sql_err(d, &me, what);
        fault(d, rc, me.msg);
        if (e)
            *e = me;
        return rc;
    }
    return 0;
}

static const char *
col(sqlite3_stmt *s, int i)
{
    return (const char *)sqlite3_column_text(s, i);
}

/* ---- agents ---- */

int
sqlite_db_agent_put(
    struct sqlite_db *d, const struct db_agent *a, struct as_err *e)
{
    sqlite3_stmt *s = d->st[S_AGENT_PUT];
    bind_text(s, 1, a->id);
    bind_text(s, 2, a->kind);
    bind_text(s, 3, a->client);
    bind_text(s, 4, a->label);
    bind_text(s, 5, a->worktree);
    bind_text(s, 6, a->branch);
    bind_text(s, 7, a->lanes);
    bind_text(s, 8, a->status);
    sqlite3_bind_int(s, 9, a->shared);
    sqlite3_bind_int(s, 10, a->human_residual);
    sqlite3_bind_int64(s, 11, a->registered_at);
    sqlite3_bind_int64(s, 12, a->last_seen);
    return run(d, s, e, "cannot store an agent");
}

int
sqlite_db_agent_drop(struct sqlite_db *d, const char *id, struct as_err *e)
{
    int rc = sqlite_db_begin(d, e);
    if (rc)
        return rc;
    sqlite3_stmt *st[] = { d->st[S_AGENT_DROP], d->st[S_REPORT_DROP],
        d->st[S_MSG_DROP_ALL] };
    for (size_t k = 0; k < sizeof(st) / sizeof(st[0]) && !rc; k++) {
        bind_text(st[k], 1, id);
        rc = run(d, st[k], e, "cannot forget an agent");
    }
    /* deletions only: what ran before an error may stay */
    int crc = sqlite_db_commit(d, rc ? NULL : e);
    return rc ? rc : crc;
}

int
sqlite_db_agents_load(
    struct sqlite_db *d, db_agent_fn *fn, void *ctx, struct as_err *e)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(d->h, "SELECT * FROM agents ORDER BY registered_at",
            -1, &s, NULL) != SQLITE_OK)
        return sql_err(d, e, "cannot read agents");
    while (sqlite3_step(s) == SQLITE_ROW) {
        struct db_agent a = { col(s, 0), col(s, 1), col(s, 2), col(s, 3),
            col(s, 4), col(s, 5), col(s, 6), col(s, 7),
            sqlite3_column_int(s, 8) != 0, sqlite3_column_int(s, 9) != 0,
            sqlite3_column_int64(s, 10), sqlite3_column_int64(s, 11) };
        fn(ctx, &a);
    }
    sqlite3_finalize(s);
    return 0;
}

/* ---- reported edits ---- */

/* A report's lines as text: the replaced ranges ("s-e,s-e") into *lines,
 * the pure insertions ("k,k") into *ins; re-adding them in that order
 * (range_set_add, then range_set_add_insertion) gives the same set. */
static void
ranges_text(
    const struct range_set *rs, struct strbuf *lines, struct strbuf *ins)
{
    struct range_set rep = RANGE_SET_INIT;
    range_set_replaced(&rep, rs);
    for (size_t k = 0; k < rep.n; k++)
        strbuf_addf(
            lines, "%s%u-%u", k ? "," : "", rep.v[k].start, rep.v[k].end);
    for (size_t k = 0; k < rs->nins; k++)
        strbuf_addf(ins, "%s%u", k ? "," : "", rs->ins[k]);
    range_set_release(&rep);
}

/* One number of a list in *p (advanced past it): -1 when there is none. */
static int64_t
list_number(const char **p)
{
    if (**p < '0' || **p > '9')
        return -1;
    char *end;
    unsigned long long v = strtoull(*p, &end, 10);
    *p = end;
    return v > UINT32_MAX ? -1 : (int64_t)v;
}

/* Past the separator after an item of a list: false when none follows
 * where one must (the list goes on) or something else is there. */
static bool
list_next(const char **p)
{
    if (!**p)
        return true;
    return *(*p)++ == ',' && **p;
}

/* Parse ranges_text()'s lines and ins into rs: 0, or -1 on bad text. */
static int
ranges_parse(struct range_set *rs, const char *lines, const char *ins)
{
    for (const char *p = lines; p && *p;) {
        int64_t s = list_number(&p), e = s;
        if (s >= 0 && *p == '-') {
            p++;
            e = list_number(&p);
        }
        if (s < 1 || e < s || !list_next(&p))
            return -1;
        range_set_add(rs, (uint32_t)s, (uint32_t)e);
    }
    for (const char *p = ins; p && *p;) {
        int64_t k = list_number(&p);
        if (k < 0 || !list_next(&p))
            return -1;
        range_set_add_insertion(rs, (uint32_t)k);
    }
    return 0;
}

int
sqlite_db_report_put(
    struct sqlite_db *d, const struct db_report *r, struct as_err *e)
{
    struct strbuf lines = STRBUF_INIT, ins = STRBUF_INIT;
    ranges_text(r->ranges, &lines, &ins);
    sqlite3_stmt *s = d->st[S_REPORT_PUT];
    bind_text(s, 1, r->agent);
    bind_text(s, 2, r->path);
    bind_text(s, 3, ws_status_name(r->status));
    sqlite3_bind_int(s, 4, r->whole);
    sqlite3_bind_text(s, 5, lines.s ? lines.s : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 6, ins.s ? ins.s : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 7, r->changed_at);
    sqlite3_bind_double(s, 8, r->weight);
    int rc = run(d, s, e, "cannot store a report");
    free(lines.s);
    free(ins.s);
    return rc;
}

int
sqlite_db_reports_drop(struct sqlite_db *d, const char *agent, struct as_err *e)
{
    sqlite3_stmt *s = d->st[S_REPORT_DROP];
    bind_text(s, 1, agent);
    return run(d, s, e, "cannot drop reports");
}

int
sqlite_db_reports_move(
    struct sqlite_db *d, const char *from, const char *to, struct as_err *e)
{
    sqlite3_stmt *s = d->st[S_REPORT_MOVE];
    bind_text(s, 1, from);
    bind_text(s, 2, to);
    return run(d, s, e, "cannot move reports");
}

int
sqlite_db_reports_load(
    struct sqlite_db *d, db_report_fn *fn, void *ctx, struct as_err *e)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(d->h, "SELECT * FROM reports ORDER BY agent, path",
            -1, &s, NULL) != SQLITE_OK)
        return sql_err(d, e, "cannot read reports");
    while (sqlite3_step(s) == SQLITE_ROW) {
        struct range_set rs = RANGE_SET_INIT;
        struct db_report r = { col(s, 0), col(s, 1), WS_MODIFIED,
            sqlite3_column_int(s, 3) != 0, &rs, sqlite3_column_int64(s, 6),
            sqlite3_column_double(s, 7) };
        if (r.agent && r.path && col(s, 2) &&
            ws_status_parse(col(s, 2), &r.status) == 0 &&
            ranges_parse(&rs, col(s, 4), col(s, 5)) == 0)
            fn(ctx, &r);
        range_set_release(&rs);
    }
    sqlite3_finalize(s);
    return 0;
}

/* ---- alerts ---- */

int
sqlite_db_alert_put(
    struct sqlite_db *d, const struct db_alert *a, struct as_err *e)
{
    sqlite3_stmt *s = d->st[S_ALERT_PUT];
    bind_text(s, 1, a->kind);
    bind_text(s, 2, a->subject);
    sqlite3_bind_int(s, 3, a->held);
    sqlite3_bind_int64(s, 4, a->since);
    sqlite3_bind_int64(s, 5, a->notified_at);
    bind_text(s, 6, a->text ? a->text : "");
    bind_text(s, 7, a->agents ? a->agents : "[]");
    return run(d, s, e, "cannot store an alert");
}

int
sqlite_db_alerts_prune(struct sqlite_db *d, int64_t before, struct as_err *e)
{
    sqlite3_stmt *s = d->st[S_ALERT_PRUNE];
    sqlite3_bind_int64(s, 1, before);
    return run(d, s, e, "cannot forget alerts");
}

int
sqlite_db_alerts_load(
    struct sqlite_db *d, db_alert_fn *fn, void *ctx, struct as_err *e)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(d->h,
            "SELECT kind, subject, held, since, notified_at, text, agents"
            " FROM alerts ORDER BY since, kind, subject",
            -1, &s, NULL) != SQLITE_OK)
        return sql_err(d, e, "cannot read alerts");
    while (sqlite3_step(s) == SQLITE_ROW) {
        struct db_alert a = { col(s, 0), col(s, 1), col(s, 5), col(s, 6),
            sqlite3_column_int(s, 2) != 0, sqlite3_column_int64(s, 3),
            sqlite3_column_int64(s, 4) };
        if (a.kind && a.subject && a.text && a.agents)
            fn(ctx, &a);
    }
    sqlite3_finalize(s);
    return 0;
}

/* ---- locks ---- */

int
sqlite_db_lock_put(struct sqlite_db *d, const struct lock *l,
    uint64_t next_token, struct as_err *e)
{
    int rc;
    bool own = !d->in_tx;
    if (own && (rc = exec(d, "BEGIN IMMEDIATE", e)))
        return rc;
    sqlite3_stmt *s = d->st[S_LOCK_PUT];
    sqlite3_bind_int64(s, 1, (sqlite3_int64)l->token);
    bind_text(s, 2, l->pattern);
    bind_text(s, 3, l->holder);
    bind_text(s, 4, lock_mode_name(l->mode));
    bind_text(s, 5, lock_kind_name(l->kind));
    sqlite3_bind_int64(s, 6, l->acquired_at);
    sqlite3_bind_int64(s, 7, l->expires_at);
    sqlite3_bind_int64(s, 8, l->ttl_ms);
    bind_text(s, 9, l->reason);
    bind_text(s, 10, l->contested_by);
    sqlite3_bind_int64(s, 11, l->contested_at);
    sqlite3_bind_int(s, 12, l->file);
    rc = run(d, s, e, "cannot store a lock");
    /* The stored counter is a high-water mark reserved in blocks: it is
     * always above every token handed out, so tokens keep increasing
     * across a crash (skipping at most a block), and most grants write
     * one row instead of two. */
    if (!rc && next_token > d->token_hwm) {
        uint64_t hwm = next_token + DB_TOKEN_BLOCK;
        sqlite3_stmt *c = d->st[S_COUNTER_PUT];
        bind_text(c, 1, "next_token");
        sqlite3_bind_int64(c, 2, (sqlite3_int64)hwm);
        rc = run(d, c, e, "cannot store the fencing counter");
        if (!rc)
            d->token_hwm = hwm;
    }
    if (own)
        rc = tx_end(d, rc, e);
    return rc;
}

int
sqlite_db_lock_delete(struct sqlite_db *d, uint64_t token, struct as_err *e)
{
    sqlite3_stmt *s = d->st[S_LOCK_DEL];
    sqlite3_bind_int64(s, 1, (sqlite3_int64)token);
    return run(d, s, e, "cannot delete a lock");
}

int
sqlite_db_locks_load(struct sqlite_db *d, db_lock_fn *fn, void *ctx,
    uint64_t *next_token, struct as_err *e)
{
    sqlite3_stmt *s;
    *next_token = 1;
    if (sqlite3_prepare_v2(d->h,
            "SELECT value FROM counters WHERE name = 'next_token'", -1, &s,
            NULL) != SQLITE_OK)
        return sql_err(d, e, "cannot read the fencing counter");
    if (sqlite3_step(s) == SQLITE_ROW)
        *next_token = (uint64_t)sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    d->token_hwm = *next_token;
    if (sqlite3_prepare_v2(d->h, "SELECT * FROM locks ORDER BY token", -1, &s,
            NULL) != SQLITE_OK)
        return sql_err(d, e, "cannot read locks");
    while (sqlite3_step(s) == SQLITE_ROW) {
        struct lock l;
        memset(&l, 0, sizeof(l));
        l.token = (uint64_t)sqlite3_column_int64(s, 0);
        l.pattern = (char *)col(s, 1);
        l.holder = (char *)col(s, 2);
        struct as_err pe;
        if (lock_mode_parse(col(s, 3), &l.mode, &pe) ||
            lock_kind_parse(col(s, 4), &l.kind, &pe))
            continue;
        l.acquired_at = sqlite3_column_int64(s, 5);
        l.expires_at = sqlite3_column_int64(s, 6);
        l.ttl_ms = sqlite3_column_int64(s, 7);
        l.reason = (char *)col(s, 8);
        l.contested_by = (char *)col(s, 9);
        l.contested_at = sqlite3_column_int64(s, 10);
        l.file = sqlite3_column_int(s, 11) != 0;
        fn(ctx, &l);
    }
    sqlite3_finalize(s);
    return 0;
}

/* ---- intents ---- */

int
sqlite_db_intent_put(
    struct sqlite_db *d, const struct db_intent *in, struct as_err *e)
{
    sqlite3_stmt *s = d->st[S_INTENT_PUT];
    sqlite3_bind_int64(s, 1, (sqlite3_int64)in->id);
    bind_text(s, 2, in->agent);
    bind_text(s, 3, in->files);
    bind_text(s, 4, in->regions);
    bind_text(s, 5, in->summary);
    sqlite3_bind_int64(s, 6, in->created_at);
    sqlite3_bind_int64(s, 7, in->expires_at);
    return run(d, s, e, "cannot store an intent");
}

int
sqlite_db_intent_delete(struct sqlite_db *d, uint64_t id, struct as_err *e)
{
    sqlite3_stmt *s = d->st[S_INTENT_DEL];
    sqlite3_bind_int64(s, 1, (sqlite3_int64)id);
    return run(d, s, e, "cannot delete an intent");
}

int
sqlite_db_intents_load(
    struct sqlite_db *d, db_intent_fn *fn, void *ctx, struct as_err *e)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(d->h, "SELECT * FROM intents ORDER BY id", -1, &s,
            NULL) != SQLITE_OK)
        return sql_err(d, e, "cannot read intents");
    while (sqlite3_step(s) == SQLITE_ROW) {
        struct db_intent in = { (uint64_t)sqlite3_column_int64(s, 0), col(s, 1),
            col(s, 2), col(s, 3), col(s, 4), sqlite3_column_int64(s, 5),
            sqlite3_column_int64(s, 6) };
        fn(ctx, &in);
    }
    sqlite3_finalize(s);
    return 0;
}

/* ---- messages ---- */

int
sqlite_db_message_put(
    struct sqlite_db *d, const struct db_message *m, struct as_err *e)
{
    sqlite3_stmt *s = d->st[S_MSG_PUT];
    bind_text(s, 1, m->owner);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)m->id);
    bind_text(s, 3, m->from);
    bind_text(s, 4, m->to);
    bind_text(s, 5, m->type);
    bind_text(s, 6, m->body);
    sqlite3_bind_int64(s, 7, m->at);
    sqlite3_bind_int(s, 8, m->read);
    return run(d, s, e, "cannot store a message");
}

int
sqlite_db_message_read(
    struct sqlite_db *d, const char *owner, uint64_t id, struct as_err *e)
{
    sqlite3_stmt *s = d->st[S_MSG_READ];
    bind_text(s, 1, owner);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)id);
    return run(d, s, e, "cannot mark a message read");
}

int
sqlite_db_message_drop(
    struct sqlite_db *d, const char *owner, uint64_t id, struct as_err *e)
{
    sqlite3_stmt *s = d->st[S_MSG_DROP];
    bind_text(s, 1, owner);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)id);
    return run(d, s, e, "cannot drop a message");
}

int
sqlite_db_messages_move(
    struct sqlite_db *d, const char *from, const char *to, struct as_err *e)
{
    sqlite3_stmt *s = d->st[S_MSG_MOVE];
    bind_text(s, 1, from);
    bind_text(s, 2, to);
    return run(d, s, e, "cannot move an inbox");
}

int
sqlite_db_messages_load(
    struct sqlite_db *d, db_message_fn *fn, void *ctx, struct as_err *e)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(d->h, "SELECT * FROM messages ORDER BY owner, id",
            -1, &s, NULL) != SQLITE_OK)
        return sql_err(d, e, "cannot read messages");
    while (sqlite3_step(s) == SQLITE_ROW) {
        struct db_message m = { (uint64_t)sqlite3_column_int64(s, 1), col(s, 0),
            col(s, 2), col(s, 3), col(s, 4), col(s, 5),
            sqlite3_column_int64(s, 6), sqlite3_column_int(s, 7) != 0 };
        fn(ctx, &m);
    }
    sqlite3_finalize(s);
    return 0;
}

/* ---- ledger ---- */

int
sqlite_db_ledger_flush(struct sqlite_db *d, struct as_err *e)
{
    if (!d->nq)
        return 0;
    int rc = 0;
    bool own = !d->in_tx;
    if (own && (rc = exec(d, "BEGIN IMMEDIATE", e)))
        return rc;
    sqlite3_stmt *s = d->st[S_LEDGER_PUT];
    for (size_t k = 0; k < d->nq && !rc; k++) {
        sqlite3_bind_int64(s, 1, (sqlite3_int64)d->q[k].seq);
        sqlite3_bind_int64(s, 2, d->q[k].ts);
        bind_text(s, 3, d->q[k].type);
        bind_text(s, 4, d->q[k].agent);
        bind_text(s, 5, d->q[k].json);
        rc = run(d, s, e, "cannot append to the ledger");
    }
    if (own)
        rc = tx_end(d, rc, e);
    for (size_t k = 0; k < d->nq; k++) {
        free(d->q[k].type);
        free(d->q[k].agent);
        free(d->q[k].json);
    }
    d->nq = 0;
    return rc;
}

int
sqlite_db_ledger_append(
    struct sqlite_db *d, const struct db_event *ev, struct as_err *e)
{
    /* Like the fencing counter: a mark reserved in blocks, always above
     * every id handed out, so a crash that loses queued entries never
     * lets their ids be given again. */
    if (ev->seq >= d->event_hwm) {
        uint64_t hwm = ev->seq + 1 + DB_EVENT_BLOCK;
        sqlite3_stmt *c = d->st[S_COUNTER_PUT];
        bind_text(c, 1, "next_event");
        sqlite3_bind_int64(c, 2, (sqlite3_int64)hwm);
        int rc = run(d, c, e, "cannot store the event counter");
        if (rc)
            return rc;
        d->event_hwm = hwm;
    }
    if (ev->seq > d->last_seq)
        d->last_seq = ev->seq;
    struct qevent *q = &d->q[d->nq++];
    q->seq = ev->seq;
    q->ts = ev->ts;
    q->type = xstrdup(ev->type);
    q->agent = ev->agent ? xstrdup(ev->agent) : NULL;
    q->json = xstrdup(ev->json);
    if (d->nq == DB_LEDGER_BATCH)
        return sqlite_db_ledger_flush(d, e);
    return 0;
}

int
sqlite_db_ledger_query(struct sqlite_db *d, const struct db_ledger_filter *f,
    db_event_fn *fn, void *ctx, struct as_err *e)
{
    int rc = sqlite_db_ledger_flush(d, e);
    if (rc)
        return rc;
    if (f->after >= (uint64_t)INT64_MAX)
        return 0; /* nothing is after it (seq is a signed 64-bit integer) */
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(d->h,
            "SELECT seq, ts, type, agent, json FROM ledger WHERE seq > ?1"
            " AND (?2 IS NULL OR substr(type, 1, length(?2)) = ?2)"
            " AND (?3 IS NULL OR agent = ?3) AND ts >= ?5 AND ts <= ?6"
            " ORDER BY seq LIMIT ?4",
            -1, &s, NULL) != SQLITE_OK)
        return sql_err(d, e, "cannot query the ledger");
    sqlite3_bind_int64(s, 1, (sqlite3_int64)f->after);
    bind_text(s, 2, f->type_prefix);
    bind_text(s, 3, f->agent);
    sqlite3_bind_int64(s, 4, f->limit > 0 ? f->limit : -1);
    sqlite3_bind_int64(s, 5, f->since);
    sqlite3_bind_int64(s, 6, f->until > 0 ? f->until : INT64_MAX);
    while (sqlite3_step(s) == SQLITE_ROW) {
        struct db_event ev = { (uint64_t)sqlite3_column_int64(s, 0),
            sqlite3_column_int64(s, 1), col(s, 2), col(s, 3), col(s, 4) };
        fn(ctx, &ev);
    }
    sqlite3_finalize(s);
    return 0;
}

int
sqlite_db_ledger_last(struct sqlite_db *d, uint64_t *seq, struct as_err *e)
{
    int rc = sqlite_db_ledger_flush(d, e);
    if (rc)
        return rc;
    sqlite3_stmt *s;
    *seq = 0;
    if (sqlite3_prepare_v2(d->h, "SELECT max(seq) FROM ledger", -1, &s, NULL) !=
        SQLITE_OK)
        return sql_err(d, e, "cannot read the ledger");
    if (sqlite3_step(s) == SQLITE_ROW)
        *seq = (uint64_t)sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return 0;
}

int
sqlite_db_ledger_next(struct sqlite_db *d, uint64_t *next, struct as_err *e)
{
    uint64_t last;
    int rc = sqlite_db_ledger_last(d, &last, e);
    if (rc)
        return rc;
    *next = last + 1 > d->event_hwm ? last + 1 : d->event_hwm;
    return 0;
}

int
sqlite_db_ledger_prune(
    struct sqlite_db *d, long max_count, int64_t min_ts, struct as_err *e)
{
    int rc = sqlite_db_ledger_flush(d, e);
    if (rc)
        return rc;
    char sql[256];
    snprintf(sql, sizeof(sql),
        "DELETE FROM ledger WHERE ts < %lld OR seq <= "
        "(SELECT max(seq) FROM ledger) - %ld",
        (long long)min_ts, max_count);
    return exec(d, sql, e);
}

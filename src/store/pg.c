/*
 * pg.c - the store over a PostgreSQL database shared by the daemons of a
 * team (libpq; docs/team.md, decision 0017).
 *
 * Every table is prefixed airspace_ (the database may hold other things)
 * and every row carries its airspace; all but locks also the node (the
 * daemon) that wrote it, so a daemon restores only what it wrote. Locks
 * are the airspace's: db_locks_sync decides under a transaction-scoped
 * advisory lock per airspace, on the database's clock, with tokens from
 * the sequence airspace_fencing. Events go to the other daemons with
 * NOTIFY on a channel per airspace (payload: node, newline, event JSON).
 *
 * The connection is synchronous (the daemon's calls block as SQLite's
 * do), with a connect timeout of 3 s, TCP keepalives, and at most
 * PG_CALL_MS awaited for a statement's answer. When it breaks
 * the store is unreachable: every write fails with AS_EIO and a message
 * that says so, until db_probe reconnects (at most once a second).
 *
 * Longer than 1,000 lines: the same tables as sqlite.c plus the shared
 * lock decisions and the notifications, behind one connection whose
 * failure handling every statement shares.
 */
#include "store/backend.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

#include "util/hash.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Ordered migrations: migrations[k] takes schema k to k + 1. */
static const char *const migrations[] = {
    "CREATE TABLE airspace_agents (airspace text NOT NULL,"
    " node text NOT NULL, id text NOT NULL, kind text NOT NULL,"
    " client text, label text, worktree text, branch text, lanes text,"
    " status text NOT NULL, shared boolean NOT NULL,"
    " human_residual boolean NOT NULL, registered_at bigint NOT NULL,"
    " last_seen bigint NOT NULL, PRIMARY KEY (airspace, node, id));"
    "CREATE TABLE airspace_reports (airspace text NOT NULL,"
    " node text NOT NULL, agent text NOT NULL, path text NOT NULL,"
    " status text NOT NULL, whole boolean NOT NULL, lines text NOT NULL,"
    " ins text NOT NULL, changed_at bigint NOT NULL,"
    " weight double precision NOT NULL,"
    " PRIMARY KEY (airspace, node, agent, path));"
    "CREATE TABLE airspace_locks (airspace text NOT NULL,"
    " token bigint NOT NULL, node text NOT NULL, pattern text NOT NULL,"
    " holder text NOT NULL, mode text NOT NULL, kind text NOT NULL,"
    " acquired_at bigint NOT NULL, expires_at bigint NOT NULL,"
    " ttl_ms bigint NOT NULL, reason text, contested_by text,"
    " contested_at bigint NOT NULL, file boolean NOT NULL,"
    " PRIMARY KEY (airspace, token));"
    "CREATE SEQUENCE airspace_fencing;"
    "CREATE TABLE airspace_counters (airspace text NOT NULL,"
    " node text NOT NULL, name text NOT NULL, value bigint NOT NULL,"
    " PRIMARY KEY (airspace, node, name));"
    "CREATE TABLE airspace_intents (airspace text NOT NULL,"
    " node text NOT NULL, id bigint NOT NULL, agent text NOT NULL,"
    " files text NOT NULL, regions text, summary text,"
    " created_at bigint NOT NULL, expires_at bigint NOT NULL,"
    " PRIMARY KEY (airspace, node, id));"
    "CREATE TABLE airspace_messages (airspace text NOT NULL,"
    " node text NOT NULL, owner text NOT NULL, id bigint NOT NULL,"
    " sender text NOT NULL, recipient text NOT NULL, type text NOT NULL,"
    " body text NOT NULL, at bigint NOT NULL, read boolean NOT NULL,"
    " PRIMARY KEY (airspace, node, owner, id));"
    "CREATE TABLE airspace_ledger (airspace text NOT NULL,"
    " node text NOT NULL, seq bigint NOT NULL, ts bigint NOT NULL,"
    " type text NOT NULL, agent text, json text NOT NULL,"
    " PRIMARY KEY (airspace, node, seq));"
    "CREATE INDEX airspace_ledger_ts ON airspace_ledger (airspace, node, ts);",
    /* The working sets each daemon publishes for the others to score
     * (files: JSON, docs/team.md); seen_at is the node's heartbeat. */
    "CREATE TABLE airspace_worksets (airspace text NOT NULL,"
    " node text NOT NULL, agent text NOT NULL, kind text NOT NULL,"
    " client text, branch text, status text NOT NULL, files text NOT NULL,"
    " updated_at bigint NOT NULL, seen_at bigint NOT NULL,"
    " PRIMARY KEY (airspace, node, agent));",
    /* Messages relayed to another daemon's agent, kept until that daemon
     * takes them into the inbox (docs/team.md): node is the recipient's
     * daemon, from_node the sender's. */
    "CREATE TABLE airspace_relayed (airspace text NOT NULL,"
    " id bigserial NOT NULL, node text NOT NULL, recipient text NOT NULL,"
    " from_node text NOT NULL, sender text NOT NULL, type text NOT NULL,"
    " body text NOT NULL, at bigint NOT NULL, PRIMARY KEY (airspace, id));"
    "CREATE INDEX airspace_relayed_node ON airspace_relayed (airspace, node);",
    /* Each daemon's alerts across a restart (store.h, struct db_alert). */
    "CREATE TABLE airspace_alerts (airspace text NOT NULL,"
    " node text NOT NULL, kind text NOT NULL, subject text NOT NULL,"
    " held boolean NOT NULL, since bigint NOT NULL,"
    " notified_at bigint NOT NULL, text text NOT NULL, agents text NOT NULL,"
    " PRIMARY KEY (airspace, node, kind, subject));",
};

#define PG_SCHEMA_VERSION ((int)(sizeof(migrations) / sizeof(migrations[0])))
#define PG_MIGRATE_LOCK "7346012011" /* advisory lock key of migrations */
#define PG_RETRY_MS 1000             /* reconnect at most this often */
#define PG_NOTIFY_MAX 7900           /* NOTIFY payloads stay under 8000 */
/* a statement's answer is awaited this long (lock_timeout, 5 s, bounds
 * the wait for another daemon's decision inside it); then the connection
 * is given up: a hung server or a silent network */
#define PG_CALL_MS 8000
#define PG_CONNECT_MS 3000 /* a reconnection gets this long */

struct qevent {
    uint64_t seq;
    int64_t ts;
    char *type, *agent, *json;
};

struct pg_db {
    PGconn *c;
    char *url;
    char *where; /* for messages: the database and host, no password */
    char *air, *node;
    char channel[40];
    int depth;
    bool in_tx;
    bool down;       /* the connection broke: until db_probe reconnects */
    int64_t tried;   /* the last reconnection attempt (ms) */
    PGconn *pending; /* a reconnection under way */
    PostgresPollingStatusType pstate; /* its state */
    int fault;     /* a write failed: its code, until db_probe */
    char lost[80]; /* why the connection was given up, when it was */
    char fault_msg[sizeof(((struct as_err *)0)->msg)];
    uint64_t event_hwm, last_seq;
    bool synced;         /* db_locks_sync was called: lock writes guarded */
    bool node_held;      /* this daemon's node is its own (hold_node) */
    uint64_t sync_token; /* the token the last one gave (this transaction) */
    struct qevent q[DB_LEDGER_BATCH];
    size_t nq;
};

static int64_t
mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- parameters: text values for PQexecParams ---- */

#define NP 16
struct params {
    const char *v[NP];
    char num[NP][24];
    int n;
};

/* Every statement's $1 is the airspace and $2 the node. */
static void
p_init(struct params *p, const struct pg_db *d)
{
    p->v[0] = d->air;
    p->v[1] = d->node;
    p->n = 2;
}

static void
p_str(struct params *p, const char *s)
{
    p->v[p->n++] = s;
}

static void
p_i64(struct params *p, int64_t v)
{
    snprintf(p->num[p->n], sizeof(p->num[0]), "%lld", (long long)v);
    p->v[p->n] = p->num[p->n];
    p->n++;
}

static void
p_bool(struct params *p, bool v)
{
    p->v[p->n++] = v ? "t" : "f";
}

static void
p_double(struct params *p, double v)
{
    snprintf(p->num[p->n], sizeof(p->num[0]), "%.17g", v);
    p->v[p->n] = p->num[p->n];
    p->n++;
}

/* ---- errors ---- */

static int
fault(struct pg_db *d, int rc, const char *msg)
{
    if (!d->fault) {
        d->fault = rc;
        snprintf(d->fault_msg, sizeof(d->fault_msg), "%s", msg);
    }
    return rc;
}

/* libpq's message on one line. */
static void
one_line(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
        s[--n] = '\0';
    for (char *p = s; *p; p++)
        if (*p == '\n')
            *p = ' ';
}

/* A failed statement: the connection's state decides whether the store
 * is unreachable (every write fails until db_probe) or the write failed. */
static int
pg_err(struct pg_db *d, struct as_err *e, const char *what)
{
    char msg[400];
    snprintf(msg, sizeof(msg), "%s", d->c ? PQerrorMessage(d->c) : d->lost);
    one_line(msg);
    struct as_err me;
    int rc;
    if (!d->c || PQstatus(d->c) == CONNECTION_BAD) {
        d->down = true;
        rc = as_errorf(&me, AS_EIO,
            "store %s is unreachable (%s); new leases are refused until it "
            "is back",
            d->where, msg[0] ? msg : "no connection");
        /* the reachable store's earlier fault no longer says why */
        d->fault = 0;
    } else {
        rc = as_errorf(&me, AS_EIO, "store %s: %s: %s", d->where, what, msg);
    }
    fault(d, rc, me.msg);
    if (e)
        *e = me;
    return rc;
}

/* Send sql and wait at most PG_CALL_MS for its result (the last one, or
 * the first error); NULL when none came: on a timeout the connection is
 * closed and the store unreachable (d->lost says why). */
static PGresult *
exec_timed(struct pg_db *d, const char *sql, const struct params *p)
{
    if (!PQsendQueryParams(
            d->c, sql, p ? p->n : 0, NULL, p ? p->v : NULL, NULL, NULL, 0))
        return NULL;
    int64_t deadline = mono_ms() + PG_CALL_MS;
    PGresult *last = NULL;
    for (;;) {
        if (PQisBusy(d->c)) {
            int64_t left = deadline - mono_ms();
            struct pollfd pfd = { .fd = PQsocket(d->c), .events = POLLIN };
            int n = left > 0 ? poll(&pfd, 1, (int)left) : 0;
            if (n < 0 && errno == EINTR)
                continue;
            if (n == 0) {
                PQclear(last);
                snprintf(d->lost, sizeof(d->lost),
                    "no answer within %d s: connection closed",
                    PG_CALL_MS / 1000);
                PQfinish(d->c);
                d->c = NULL;
                d->down = true;
                return NULL;
            }
            if (!PQconsumeInput(d->c)) {
                PQclear(last);
                return NULL;
            }
            continue;
        }
        PGresult *r = PQgetResult(d->c);
        if (!r)
            return last;
        if (last && PQresultStatus(last) == PGRES_FATAL_ERROR) {
            PQclear(r); /* the first error is the answer */
            continue;
        }
        PQclear(last);
        last = r;
    }
}

/* Run sql with p's values (p NULL: no parameters); the result when its
 * status is want, else NULL with the error in e (and remembered). */
static PGresult *
q(struct pg_db *d, const char *sql, const struct params *p, ExecStatusType want,
    struct as_err *e, const char *what)
{
    if (d->down) {
        pg_err(d, e, what);
        return NULL;
    }
    PGresult *r = exec_timed(d, sql, p);
    if (r && PQresultStatus(r) == want)
        return r;
    if (r && d->c && PQresultErrorMessage(r)[0] &&
        PQstatus(d->c) == CONNECTION_OK) {
        char msg[400];
        snprintf(msg, sizeof(msg), "%s", PQresultErrorMessage(r));
        one_line(msg);
        struct as_err me;
        int rc =
            as_errorf(&me, AS_EIO, "store %s: %s: %s", d->where, what, msg);
        fault(d, rc, me.msg);
        if (e)
            *e = me;
    } else {
        pg_err(d, e, what);
    }
    PQclear(r);
    return NULL;
}

/* A statement that returns no rows. */
static int
cmd(struct pg_db *d, const char *sql, const struct params *p, struct as_err *e,
    const char *what)
{
    PGresult *r = q(d, sql, p, PGRES_COMMAND_OK, e, what);
    if (!r)
        return AS_EIO;
    PQclear(r);
    return 0;
}

static const char *
val(PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? NULL : PQgetvalue(r, row, col);
}

static int64_t
ival(PGresult *r, int row, int col)
{
    const char *v = val(r, row, col);
    return v ? strtoll(v, NULL, 10) : 0;
}

static bool
bval(PGresult *r, int row, int col)
{
    const char *v = val(r, row, col);
    return v && *v == 't';
}

/* ---- connection ---- */

static void
quiet(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* a dead peer is noticed in ~5 s, idle (keepalives) or with data
 * unacknowledged (tcp_user_timeout); the URL may override these */
static const char *const conn_keys[] = { "connect_timeout", "keepalives_idle",
    "keepalives_interval", "keepalives_count", "tcp_user_timeout",
    "application_name", "dbname", NULL };

static void
conn_vals(const struct pg_db *d, const char **vals)
{
    static const char *const fixed[] = { "3", "3", "1", "2", "5000",
        "airspace" };
    for (size_t k = 0; k < 6; k++)
        vals[k] = fixed[k];
    vals[6] = d->url;
    vals[7] = NULL;
}

static int
connect_failed(struct pg_db *d, PGconn *c, struct as_err *e)
{
    d->down = true;
    char msg[400];
    snprintf(msg, sizeof(msg), "%s", c ? PQerrorMessage(c) : "out of memory");
    one_line(msg);
    return as_errorf(
        e, AS_EIO, "cannot connect to store %s: %s", d->where, msg);
}

/*
 * One daemon a node: the connection holds a session lock on (airspace,
 * node) for as long as it lasts, and a second daemon with the same node
 * (two clones given one store.node) is refused at its start: the two
 * would be one agent table to the others, each one's stop withdrawing the
 * other's rows. Taken again at a reconnection, where it is not asked for:
 * the server may not have dropped the connection cut a moment ago yet.
 */
static int
hold_node(struct pg_db *d, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    PGresult *r = q(d,
        "SELECT pg_try_advisory_lock(hashtext('airspace.node:' || $1),"
        " hashtext($2))",
        &p, PGRES_TUPLES_OK, e, "cannot take the node's lock");
    if (!r)
        return AS_EIO;
    bool held = PQntuples(r) == 1 && !strcmp(PQgetvalue(r, 0, 0), "t");
    PQclear(r);
    d->node_held = held;
    if (!held)
        return as_errorf(e, AS_ECONFLICT,
            "another daemon serves node '%s' of airspace '%s' in store %s: "
            "store.node names one daemon (are two clones given the same "
            "one?); a daemon whose network was cut a moment ago is dropped "
            "by the server within seconds",
            d->node, d->air, d->where);
    return 0;
}

/* d->c is connected: its settings, and the events' channel. */
static int
conn_ready(struct pg_db *d, struct as_err *e)
{
    d->down = false;
    PQsetNoticeProcessor(d->c, quiet, NULL); /* no NOTICE lines on stderr */
    char listen[64];
    snprintf(listen, sizeof(listen), "LISTEN %s", d->channel);
    /* a lease waits at most this long for another daemon's decision; the
     * server drops this connection within seconds once it is cut (over
     * TCP), and with it the node's lock (hold_node) */
    if (cmd(d, "SET lock_timeout = '5s'", NULL, e, "cannot configure") ||
        cmd(d, "SET tcp_keepalives_idle = 3", NULL, e, "cannot configure") ||
        cmd(d, "SET tcp_keepalives_interval = 1", NULL, e,
            "cannot configure") ||
        cmd(d, "SET tcp_keepalives_count = 3", NULL, e, "cannot configure") ||
        cmd(d, listen, NULL, e, "cannot listen for events"))
        return AS_EIO;
    if (d->node_held) { /* a reconnection: taken again if it can be */
        struct as_err he;
        hold_node(d, &he);
        d->node_held = true;
    }
    return 0;
}

/* Connect, waiting (at open). */
static int
connect_db(struct pg_db *d, struct as_err *e)
{
    const char *vals[8];
    conn_vals(d, vals);
    if (d->c)
        PQfinish(d->c);
    d->c = PQconnectdbParams(conn_keys, vals, 1);
    if (!d->c || PQstatus(d->c) != CONNECTION_OK)
        return connect_failed(d, d->c, e);
    return conn_ready(d, e);
}

/* A reconnection that never blocks the daemon: begun (at most every
 * PG_RETRY_MS) and taken as far as the socket allows at each call. 0:
 * connected; 1: under way; else failed (refused, or no answer within
 * PG_CONNECT_MS), with the message in e. */
static int
reconnect_step(struct pg_db *d, struct as_err *e)
{
    if (!d->pending) {
        int64_t now = mono_ms();
        if (d->tried && now - d->tried < PG_RETRY_MS)
            return 1;
        d->tried = now;
        const char *vals[8];
        conn_vals(d, vals);
        d->pending = PQconnectStartParams(conn_keys, vals, 1);
        d->pstate = PGRES_POLLING_WRITING;
        if (!d->pending || PQstatus(d->pending) == CONNECTION_BAD)
            d->pstate = PGRES_POLLING_FAILED;
    }
    for (;;) {
        if (d->pstate == PGRES_POLLING_OK) {
            if (d->c)
                PQfinish(d->c);
            d->c = d->pending;
            d->pending = NULL;
            return conn_ready(d, e);
        }
        int rc = 0;
        if (d->pstate == PGRES_POLLING_FAILED)
            rc = connect_failed(d, d->pending, e);
        else if (mono_ms() - d->tried > PG_CONNECT_MS)
            rc = as_errorf(e, AS_EIO,
                "cannot connect to store %s: no answer within %d s", d->where,
                PG_CONNECT_MS / 1000);
        if (rc) {
            PQfinish(d->pending);
            d->pending = NULL;
            return rc;
        }
        struct pollfd pfd = { .fd = PQsocket(d->pending),
            .events = d->pstate == PGRES_POLLING_READING ? POLLIN : POLLOUT };
        if (poll(&pfd, 1, 0) <= 0)
            return 1; /* the next call goes on */
        d->pstate = PQconnectPoll(d->pending);
    }
}

/* The database and host of url, without user or password. */
static char *
describe(const char *url)
{
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    const char *at = strchr(p, '@'), *slash = strchr(p, '/');
    if (at && (!slash || at < slash))
        p = at + 1;
    return xasprintf("'postgresql://%.*s'", (int)strcspn(p, "?"), p);
}

static int
migrate(struct pg_db *d, struct as_err *e)
{
    int rc;
    if ((rc = cmd(d, "BEGIN", NULL, e, "cannot begin")))
        return rc;
    PGresult *r = q(d, "SELECT pg_advisory_xact_lock(" PG_MIGRATE_LOCK ")",
        NULL, PGRES_TUPLES_OK, e, "cannot lock the schema");
    if (!r)
        goto fail;
    PQclear(r);
    if ((rc = cmd(d,
             "CREATE TABLE IF NOT EXISTS airspace_meta (key text PRIMARY KEY,"
             " value text NOT NULL)",
             NULL, e, "cannot create the schema")))
        goto fail;
    r = q(d, "SELECT value FROM airspace_meta WHERE key = 'schema_version'",
        NULL, PGRES_TUPLES_OK, e, "cannot read the schema version");
    if (!r)
        goto fail;
    int v = PQntuples(r) ? (int)ival(r, 0, 0) : 0;
    PQclear(r);
    if (v > PG_SCHEMA_VERSION) {
        rc = as_errorf(e, AS_EUNSUP,
            "store %s has schema %d, newer than this airspace (%d); upgrade "
            "airspace",
            d->where, v, PG_SCHEMA_VERSION);
        goto fail;
    }
    for (; v < PG_SCHEMA_VERSION; v++) {
        char ver[128];
        snprintf(ver, sizeof(ver),
            "INSERT INTO airspace_meta VALUES ('schema_version', '%d') ON "
            "CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            v + 1);
        /* several statements: the simple query protocol */
        PGresult *m = PQexec(d->c, migrations[v]);
        bool ok = m && PQresultStatus(m) == PGRES_COMMAND_OK;
        if (!ok) {
            char msg[400];
            snprintf(msg, sizeof(msg), "%s", PQerrorMessage(d->c));
            one_line(msg);
            rc = as_errorf(
                e, AS_EIO, "store %s: migration %d: %s", d->where, v + 1, msg);
        }
        PQclear(m);
        if (!ok || (rc = cmd(d, ver, NULL, e, "cannot store the version")))
            goto fail;
    }
    return cmd(d, "COMMIT", NULL, e, "cannot commit the schema");
fail:
    PQclear(PQexec(d->c, "ROLLBACK"));
    return rc ? rc : AS_EIO;
}

static int
counter_get(struct pg_db *d, const char *name, uint64_t *v, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_str(&p, name);
    PGresult *r = q(d,
        "SELECT value FROM airspace_counters WHERE airspace = $1 AND node = $2"
        " AND name = $3",
        &p, PGRES_TUPLES_OK, e, "cannot read a counter");
    if (!r)
        return AS_EIO;
    *v = PQntuples(r) ? (uint64_t)ival(r, 0, 0) : 0;
    PQclear(r);
    return 0;
}

static int
counter_put(struct pg_db *d, const char *name, uint64_t v, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_str(&p, name);
    p_i64(&p, (int64_t)v);
    return cmd(d,
        "INSERT INTO airspace_counters VALUES ($1, $2, $3, $4) ON CONFLICT"
        " (airspace, node, name) DO UPDATE SET value = EXCLUDED.value",
        &p, e, "cannot store a counter");
}

int
pg_db_open(const char *where, const struct db_options *o, struct pg_db **out,
    struct as_err *e)
{
    *out = NULL;
    struct pg_db *d = xcalloc(1, sizeof(*d));
    d->url = xstrdup(where);
    d->where = describe(where);
    d->air = xstrdup(o && o->airspace ? o->airspace : "default");
    d->node = xstrdup(o && o->node ? o->node : "default");
    snprintf(d->channel, sizeof(d->channel), "airspace_%016llx",
        (unsigned long long)fnv1a_str(FNV1A_INIT, d->air));
    int rc;
    if ((rc = connect_db(d, e)) || (rc = migrate(d, e)) ||
        (rc = hold_node(d, e)) ||
        (rc = counter_get(d, "next_event", &d->event_hwm, e))) {
        pg_db_close(d);
        return rc;
    }
    d->fault = 0;
    *out = d;
    return 0;
}

void
pg_db_close(struct pg_db *d)
{
    if (!d)
        return;
    struct as_err e;
    if (d->c && !d->down && !pg_db_ledger_flush(d, &e) && d->last_seq &&
        d->event_hwm > d->last_seq + 1)
        counter_put(d, "next_event", d->last_seq + 1, &e);
    for (size_t k = 0; k < d->nq; k++) {
        free(d->q[k].type);
        free(d->q[k].agent);
        free(d->q[k].json);
    }
    if (d->c)
        PQfinish(d->c);
    if (d->pending)
        PQfinish(d->pending);
    free(d->url);
    free(d->where);
    free(d->air);
    free(d->node);
    free(d);
}

/* ---- transactions and health ---- */

static void
tx_abandon(struct pg_db *d)
{
    if (d->c && !d->down && PQtransactionStatus(d->c) != PQTRANS_IDLE)
        PQclear(PQexec(d->c, "ROLLBACK"));
    d->depth = 0;
    d->in_tx = false;
    d->sync_token = 0;
    uint64_t hwm = 0;
    struct as_err e;
    /* a mark written in a transaction that did not commit was not stored */
    if (!d->down && !counter_get(d, "next_event", &hwm, &e))
        d->event_hwm = hwm;
    else
        d->event_hwm = 0;
}

int
pg_db_begin(struct pg_db *d, struct as_err *e)
{
    if (d->depth) {
        d->depth++;
        return 0;
    }
    int rc = cmd(d, "BEGIN", NULL, e, "cannot begin");
    if (!rc) {
        d->in_tx = true;
        d->depth = 1;
    }
    return rc;
}

int
pg_db_commit(struct pg_db *d, struct as_err *e)
{
    if (!d->depth || --d->depth)
        return 0;
    int rc = pg_db_ledger_flush(d, e);
    d->in_tx = false;
    d->sync_token = 0;
    if (!rc && !(rc = cmd(d, "COMMIT", NULL, e, "cannot commit")))
        return 0;
    tx_abandon(d);
    return rc;
}

void
pg_db_rollback(struct pg_db *d)
{
    for (size_t k = 0; k < d->nq; k++) {
        free(d->q[k].type);
        free(d->q[k].agent);
        free(d->q[k].json);
    }
    d->nq = 0;
    tx_abandon(d);
}

int
pg_db_health(struct pg_db *d, struct as_err *e)
{
    if (d->down && !d->fault)
        pg_err(d, NULL, "unreachable");
    if (d->fault)
        as_errorf(e, d->fault, "%s", d->fault_msg);
    return d->fault;
}

bool
pg_db_unreachable(const struct pg_db *d)
{
    return d->down;
}

bool
pg_db_in_transaction(const struct pg_db *d)
{
    return d->in_tx;
}

int
pg_db_probe(struct pg_db *d, struct as_err *e)
{
    if (d->depth)
        return pg_db_health(d, e);
    if (d->down) {
        int rc = reconnect_step(d, e);
        if (rc == 1)
            return pg_db_health(d, e);
        if (rc) {
            fault(d, rc, e->msg);
            return rc;
        }
    }
    int saved = d->fault;
    d->fault = 0;
    PGresult *r = q(d, "SELECT 1", NULL, PGRES_TUPLES_OK, e, "cannot probe");
    if (!r) {
        if (!d->fault)
            d->fault = saved;
        return AS_EIO;
    }
    PQclear(r);
    return 0;
}

/* Run a write in a transaction of its own when none is open. */
static int
own_begin(struct pg_db *d, bool *own, struct as_err *e)
{
    *own = !d->in_tx;
    return *own ? pg_db_begin(d, e) : 0;
}

static int
own_end(struct pg_db *d, bool own, int rc, struct as_err *e)
{
    if (!own)
        return rc;
    if (rc) {
        pg_db_rollback(d);
        return rc;
    }
    return pg_db_commit(d, e);
}

/* ---- agents ---- */

static const char AGENT_COLS[] =
    "id, kind, client, label, worktree, branch, lanes, status, shared,"
    " human_residual, registered_at, last_seen";

static void
agent_row(PGresult *r, int i, int c0, struct db_agent *a)
{
    *a = (struct db_agent){ val(r, i, c0), val(r, i, c0 + 1), val(r, i, c0 + 2),
        val(r, i, c0 + 3), val(r, i, c0 + 4), val(r, i, c0 + 5),
        val(r, i, c0 + 6), val(r, i, c0 + 7), bval(r, i, c0 + 8),
        bval(r, i, c0 + 9), ival(r, i, c0 + 10), ival(r, i, c0 + 11) };
}

int
pg_db_agent_put(struct pg_db *d, const struct db_agent *a, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_str(&p, a->id);
    p_str(&p, a->kind);
    p_str(&p, a->client);
    p_str(&p, a->label);
    p_str(&p, a->worktree);
    p_str(&p, a->branch);
    p_str(&p, a->lanes);
    p_str(&p, a->status);
    p_bool(&p, a->shared);
    p_bool(&p, a->human_residual);
    p_i64(&p, a->registered_at);
    p_i64(&p, a->last_seen);
    return cmd(d,
        "INSERT INTO airspace_agents VALUES ($1, $2, $3, $4, $5, $6, $7, $8,"
        " $9, $10, $11, $12, $13, $14) ON CONFLICT (airspace, node, id) DO"
        " UPDATE SET kind = $4, client = $5, label = $6, worktree = $7,"
        " branch = $8, lanes = $9, status = $10, shared = $11,"
        " human_residual = $12, registered_at = $13, last_seen = $14",
        &p, e, "cannot store an agent");
}

int
pg_db_agent_drop(struct pg_db *d, const char *id, struct as_err *e)
{
    static const char *const sql[] = {
        "DELETE FROM airspace_agents WHERE airspace = $1 AND node = $2"
        " AND id = $3",
        "DELETE FROM airspace_reports WHERE airspace = $1 AND node = $2"
        " AND agent = $3",
        "DELETE FROM airspace_messages WHERE airspace = $1 AND node = $2"
        " AND owner = $3",
    };
    bool own;
    int rc = own_begin(d, &own, e);
    if (rc)
        return rc;
    struct params p;
    p_init(&p, d);
    p_str(&p, id);
    for (size_t k = 0; k < sizeof(sql) / sizeof(sql[0]) && !rc; k++)
        rc = cmd(d, sql[k], &p, e, "cannot forget an agent");
    return own_end(d, own, rc, e);
}

static int
agents_query(struct pg_db *d, bool peers, db_agent_fn *fn, db_peer_fn *pfn,
    void *ctx, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    char *sql = xasprintf("SELECT node, %s FROM airspace_agents WHERE"
                          " airspace = $1 AND node %s $2 ORDER BY %s"
                          "registered_at, id",
        AGENT_COLS, peers ? "<>" : "=", peers ? "node, " : "");
    PGresult *r = q(d, sql, &p, PGRES_TUPLES_OK, e, "cannot read agents");
    free(sql);
    if (!r)
        return AS_EIO;
    for (int i = 0; i < PQntuples(r); i++) {
        struct db_agent a;
        agent_row(r, i, 1, &a);
        if (peers)
            pfn(ctx, val(r, i, 0), &a);
        else
            fn(ctx, &a);
    }
    PQclear(r);
    return 0;
}

int
pg_db_agents_load(struct pg_db *d, db_agent_fn *fn, void *ctx, struct as_err *e)
{
    return agents_query(d, false, fn, NULL, ctx, e);
}

int
pg_db_peers_load(struct pg_db *d, db_peer_fn *fn, void *ctx, struct as_err *e)
{
    return agents_query(d, true, NULL, fn, ctx, e);
}

/* ---- reported edits (lines as sqlite.c keeps them) ---- */

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

static bool
list_next(const char **p)
{
    if (!**p)
        return true;
    return *(*p)++ == ',' && **p;
}

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
pg_db_report_put(struct pg_db *d, const struct db_report *r, struct as_err *e)
{
    struct strbuf lines = STRBUF_INIT, ins = STRBUF_INIT;
    ranges_text(r->ranges, &lines, &ins);
    struct params p;
    p_init(&p, d);
    p_str(&p, r->agent);
    p_str(&p, r->path);
    p_str(&p, ws_status_name(r->status));
    p_bool(&p, r->whole);
    p_str(&p, lines.s ? lines.s : "");
    p_str(&p, ins.s ? ins.s : "");
    p_i64(&p, r->changed_at);
    p_double(&p, r->weight);
    int rc = cmd(d,
        "INSERT INTO airspace_reports VALUES ($1, $2, $3, $4, $5, $6, $7, $8,"
        " $9, $10) ON CONFLICT (airspace, node, agent, path) DO UPDATE SET"
        " status = $5, whole = $6, lines = $7, ins = $8, changed_at = $9,"
        " weight = $10",
        &p, e, "cannot store a report");
    free(lines.s);
    free(ins.s);
    return rc;
}

int
pg_db_reports_drop(struct pg_db *d, const char *agent, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_str(&p, agent);
    return cmd(d,
        "DELETE FROM airspace_reports WHERE airspace = $1 AND node = $2"
        " AND agent = $3",
        &p, e, "cannot drop reports");
}

int
pg_db_reports_move(
    struct pg_db *d, const char *from, const char *to, struct as_err *e)
{
    if (!strcmp(from, to))
        return 0;
    bool own;
    int rc = own_begin(d, &own, e);
    if (rc)
        return rc;
    struct params p;
    p_init(&p, d);
    p_str(&p, from);
    p_str(&p, to);
    /* one of `to`'s on the same path is replaced */
    rc = cmd(d,
        "DELETE FROM airspace_reports WHERE airspace = $1 AND node = $2"
        " AND agent = $4 AND path IN (SELECT path FROM airspace_reports"
        " WHERE airspace = $1 AND node = $2 AND agent = $3)",
        &p, e, "cannot move reports");
    if (!rc)
        rc = cmd(d,
            "UPDATE airspace_reports SET agent = $4 WHERE airspace = $1"
            " AND node = $2 AND agent = $3",
            &p, e, "cannot move reports");
    return own_end(d, own, rc, e);
}

int
pg_db_reports_load(
    struct pg_db *d, db_report_fn *fn, void *ctx, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    PGresult *r = q(d,
        "SELECT agent, path, status, whole, lines, ins, changed_at, weight"
        " FROM airspace_reports WHERE airspace = $1 AND node = $2"
        " ORDER BY agent, path",
        &p, PGRES_TUPLES_OK, e, "cannot read reports");
    if (!r)
        return AS_EIO;
    for (int i = 0; i < PQntuples(r); i++) {
        struct range_set rs = RANGE_SET_INIT;
        struct db_report x = { val(r, i, 0), val(r, i, 1), WS_MODIFIED,
            bval(r, i, 3), &rs, ival(r, i, 6),
            val(r, i, 7) ? strtod(val(r, i, 7), NULL) : 0 };
        if (x.agent && x.path && val(r, i, 2) &&
            ws_status_parse(val(r, i, 2), &x.status) == 0 &&
            ranges_parse(&rs, val(r, i, 4), val(r, i, 5)) == 0)
            fn(ctx, &x);
        range_set_release(&rs);
    }
    PQclear(r);
    return 0;
}

/* ---- locks ---- */

static const char LOCK_COLS[] =
    "token, pattern, holder, mode, kind, acquired_at, expires_at, ttl_ms,"
    " reason, contested_by, contested_at, file, node";

int
pg_db_lock_put(struct pg_db *d, const struct lock *l, uint64_t next_token,
    struct as_err *e)
{
    (void)next_token; /* tokens come from the sequence airspace_fencing */
    struct params p;
    p_init(&p, d);
    p_i64(&p, (int64_t)l->token);
    p_str(&p, l->pattern);
    p_str(&p, l->holder);
    p_str(&p, lock_mode_name(l->mode));
    p_str(&p, lock_kind_name(l->kind));
    p_i64(&p, l->acquired_at);
    p_i64(&p, l->expires_at);
    p_i64(&p, l->ttl_ms);
    p_str(&p, l->reason);
    p_str(&p, l->contested_by);
    p_i64(&p, l->contested_at);
    p_bool(&p, l->file);
    /* Once this handle decides locks (db_locks_sync), a lock is inserted
     * only as the grant of the token its decision gave; any other write
     * updates a live row and nothing else: a renewal or touch from a
     * table that missed another daemon's decision never brings back a
     * lease the database retired or gave away. */
    /* (the holder is an agent of the row's node: only that daemon names
     * it anew, when its agent is renamed; another daemon's write, a
     * contest, leaves it) */
    if (d->synced && l->token != d->sync_token)
        return cmd(d,
            "UPDATE airspace_locks SET pattern = $4,"
            " holder = CASE WHEN node = $2 THEN $5 ELSE holder END, mode = $6,"
            " kind = $7, acquired_at = $8, expires_at = $9, ttl_ms = $10,"
            " reason = $11, contested_by = $12, contested_at = $13,"
            " file = $14 WHERE airspace = $1 AND token = $3 AND expires_at >"
            " (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
            &p, e, "cannot store a lock");
    int rc = cmd(d,
        "INSERT INTO airspace_locks (airspace, node, token, pattern, holder,"
        " mode, kind, acquired_at, expires_at, ttl_ms, reason, contested_by,"
        " contested_at, file) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,"
        " $10, $11, $12, $13, $14) ON CONFLICT (airspace, token) DO UPDATE"
        " SET pattern = $4, holder = $5, mode = $6, kind = $7,"
        " acquired_at = $8, expires_at = $9, ttl_ms = $10, reason = $11,"
        " contested_by = $12, contested_at = $13, file = $14",
        &p, e, "cannot store a lock");
    if (rc || l->token == d->sync_token)
        return rc;
    /* a token the sequence did not give: it gives none at or below it */
    struct params t = { .n = 0 };
    p_i64(&t, (int64_t)l->token);
    PGresult *r = q(d,
        "SELECT setval('airspace_fencing', $1::bigint) FROM airspace_fencing"
        " WHERE (CASE WHEN is_called THEN last_value ELSE last_value - 1 END)"
        " < $1::bigint",
        &t, PGRES_TUPLES_OK, e, "cannot raise the fencing sequence");
    if (!r)
        return AS_EIO;
    PQclear(r);
    return 0;
}

int
pg_db_lock_delete(struct pg_db *d, uint64_t token, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_i64(&p, (int64_t)token);
    return cmd(d,
        "DELETE FROM airspace_locks WHERE airspace = $1 AND token = $3"
        " AND $2::text IS NOT NULL",
        &p, e, "cannot delete a lock");
}

int
pg_db_lock_expire(
    struct pg_db *d, uint64_t token, bool *retired, struct as_err *e)
{
    *retired = false;
    struct params p;
    p_init(&p, d);
    p_i64(&p, (int64_t)token);
    /* the row's delete decides: one daemon's finds it, every other's
     * finds none; and a lease renewed meanwhile is not expired */
    PGresult *r = q(d,
        "DELETE FROM airspace_locks WHERE airspace = $1 AND token = $3"
        " AND $2::text IS NOT NULL AND expires_at <="
        " (extract(epoch FROM clock_timestamp()) * 1000)::bigint"
        " RETURNING token",
        &p, PGRES_TUPLES_OK, e, "cannot retire a lock");
    if (!r)
        return AS_EIO;
    *retired = PQntuples(r) > 0;
    PQclear(r);
    return 0;
}

/* Call fn (or nfn, with the row's node) for every lock row of r. */
static void
each_lock(PGresult *r, db_lock_fn *fn, db_node_lock_fn *nfn, void *ctx)
{
    for (int i = 0; i < PQntuples(r); i++) {
        struct lock l;
        memset(&l, 0, sizeof(l));
        l.token = (uint64_t)ival(r, i, 0);
        l.pattern = (char *)val(r, i, 1);
        l.holder = (char *)val(r, i, 2);
        struct as_err pe;
        if (!l.pattern || !l.holder ||
            lock_mode_parse(val(r, i, 3), &l.mode, &pe) ||
            lock_kind_parse(val(r, i, 4), &l.kind, &pe))
            continue;
        l.acquired_at = ival(r, i, 5);
        l.expires_at = ival(r, i, 6);
        l.ttl_ms = ival(r, i, 7);
        l.reason = (char *)val(r, i, 8);
        l.contested_by = (char *)val(r, i, 9);
        l.contested_at = ival(r, i, 10);
        l.file = bval(r, i, 11);
        if (nfn)
            nfn(ctx, val(r, i, 12), &l);
        else
            fn(ctx, &l);
    }
}

/* The airspace's locks (mine: only this daemon's, whose holders are its
 * agents), to fn or, with each row's node, to nfn. */
static int
locks_select(struct pg_db *d, bool mine, db_lock_fn *fn, db_node_lock_fn *nfn,
    void *ctx, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    char *sql = xasprintf("SELECT %s FROM airspace_locks WHERE airspace = $1"
                          " AND %s ORDER BY token",
        LOCK_COLS, mine ? "node = $2" : "$2::text IS NOT NULL");
    PGresult *r = q(d, sql, &p, PGRES_TUPLES_OK, e, "cannot read locks");
    free(sql);
    if (!r)
        return AS_EIO;
    each_lock(r, fn, nfn, ctx);
    PQclear(r);
    return 0;
}

int
pg_db_locks_load(struct pg_db *d, db_lock_fn *fn, void *ctx,
    uint64_t *next_token, struct as_err *e)
{
    PGresult *r = q(d,
        "SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END"
        " FROM airspace_fencing",
        NULL, PGRES_TUPLES_OK, e, "cannot read the fencing sequence");
    if (!r)
        return AS_EIO;
    *next_token = PQntuples(r) ? (uint64_t)ival(r, 0, 0) : 1;
    PQclear(r);
    /* the others' come with the first db_locks_sync or db_locks_peek, which
     * say whose agents hold them */
    return locks_select(d, true, fn, NULL, ctx, e);
}

int
pg_db_locks_sync(struct pg_db *d, db_node_lock_fn *fn, void *ctx,
    int64_t *now_ms, uint64_t *next_token, struct as_err *e)
{
    if (!d->in_tx)
        return as_errorf(e, AS_EINVAL,
            "store %s: a lock decision needs a "
            "transaction",
            d->where);
    struct params p;
    p_init(&p, d);
    /* the airspace's decision point: held until the commit */
    PGresult *r = q(d,
        "SELECT pg_advisory_xact_lock(hashtext('airspace.locks:' || $1))"
        " WHERE $2::text IS NOT NULL",
        &p, PGRES_TUPLES_OK, e, "cannot take the airspace's lock");
    if (!r)
        return AS_EIO;
    PQclear(r);
    r = q(d,
        "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint,"
        " nextval('airspace_fencing')",
        NULL, PGRES_TUPLES_OK, e, "cannot read the database's clock");
    if (!r)
        return AS_EIO;
    *now_ms = ival(r, 0, 0);
    *next_token = (uint64_t)ival(r, 0, 1);
    d->synced = true;
    d->sync_token = *next_token;
    PQclear(r);
    /* expired ones too: the decision retires them (db_lock_expire), so
     * their holders hear of it */
    return locks_select(d, false, NULL, fn, ctx, e);
}

int
pg_db_locks_peek(struct pg_db *d, db_node_lock_fn *fn, void *ctx,
    int64_t *now_ms, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    char *sql = xasprintf("SELECT %s FROM airspace_locks WHERE airspace = $1"
                          " AND $2::text IS NOT NULL ORDER BY token",
        LOCK_COLS);
    PGresult *r = q(d, sql, &p, PGRES_TUPLES_OK, e, "cannot read locks");
    free(sql);
    if (!r)
        return AS_EIO;
    d->synced = true; /* a daemon that follows the locks: writes guarded */
    PGresult *c =
        q(d, "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
            NULL, PGRES_TUPLES_OK, e, "cannot read the database's clock");
    if (!c) {
        PQclear(r);
        return AS_EIO;
    }
    *now_ms = ival(c, 0, 0);
    PQclear(c);
    each_lock(r, NULL, fn, ctx);
    PQclear(r);
    return 0;
}

/* ---- intents ---- */

int
pg_db_intent_put(struct pg_db *d, const struct db_intent *in, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_i64(&p, (int64_t)in->id);
    p_str(&p, in->agent);
    p_str(&p, in->files);
    p_str(&p, in->regions);
    p_str(&p, in->summary);
    p_i64(&p, in->created_at);
    p_i64(&p, in->expires_at);
    return cmd(d,
        "INSERT INTO airspace_intents VALUES ($1, $2, $3, $4, $5, $6, $7, $8,"
        " $9) ON CONFLICT (airspace, node, id) DO UPDATE SET agent = $4,"
        " files = $5, regions = $6, summary = $7, created_at = $8,"
        " expires_at = $9",
        &p, e, "cannot store an intent");
}

int
pg_db_intent_delete(struct pg_db *d, uint64_t id, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_i64(&p, (int64_t)id);
    return cmd(d,
        "DELETE FROM airspace_intents WHERE airspace = $1 AND node = $2"
        " AND id = $3",
        &p, e, "cannot delete an intent");
}

int
pg_db_intents_load(
    struct pg_db *d, db_intent_fn *fn, void *ctx, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    PGresult *r = q(d,
        "SELECT id, agent, files, regions, summary, created_at, expires_at"
        " FROM airspace_intents WHERE airspace = $1 AND node = $2 ORDER BY id",
        &p, PGRES_TUPLES_OK, e, "cannot read intents");
    if (!r)
        return AS_EIO;
    for (int i = 0; i < PQntuples(r); i++) {
        struct db_intent in = { (uint64_t)ival(r, i, 0), val(r, i, 1),
            val(r, i, 2), val(r, i, 3), val(r, i, 4), ival(r, i, 5),
            ival(r, i, 6) };
        fn(ctx, &in);
    }
    PQclear(r);
    return 0;
}

int
pg_db_peer_intents(struct pg_db *d, int64_t now_ms, db_peer_intent_fn *fn,
    void *ctx, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_i64(&p, now_ms);
    PGresult *r = q(d,
        "SELECT node, id, agent, files, regions, summary, created_at,"
        " expires_at FROM airspace_intents WHERE airspace = $1"
        " AND node <> $2 AND expires_at > $3 ORDER BY node, id",
        &p, PGRES_TUPLES_OK, e, "cannot read the other daemons' intents");
    if (!r)
        return AS_EIO;
    for (int i = 0; i < PQntuples(r); i++) {
        struct db_intent in = { (uint64_t)ival(r, i, 1), val(r, i, 2),
            val(r, i, 3), val(r, i, 4), val(r, i, 5), ival(r, i, 6),
            ival(r, i, 7) };
        fn(ctx, val(r, i, 0), &in);
    }
    PQclear(r);
    return 0;
}

/* ---- messages ---- */

int
pg_db_message_put(struct pg_db *d, const struct db_message *m, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_str(&p, m->owner);
    p_i64(&p, (int64_t)m->id);
    p_str(&p, m->from);
    p_str(&p, m->to);
    p_str(&p, m->type);
    p_str(&p, m->body);
    p_i64(&p, m->at);
    p_bool(&p, m->read);
    return cmd(d,
        "INSERT INTO airspace_messages VALUES ($1, $2, $3, $4, $5, $6, $7,"
        " $8, $9, $10) ON CONFLICT (airspace, node, owner, id) DO UPDATE SET"
        " sender = $5, recipient = $6, type = $7, body = $8, at = $9,"
        " read = $10",
        &p, e, "cannot store a message");
}

int
pg_db_message_read(
    struct pg_db *d, const char *owner, uint64_t id, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_str(&p, owner);
    p_i64(&p, (int64_t)id);
    return cmd(d,
        "UPDATE airspace_messages SET read = true WHERE airspace = $1"
        " AND node = $2 AND owner = $3 AND id = $4",
        &p, e, "cannot mark a message read");
}

int
pg_db_message_drop(
    struct pg_db *d, const char *owner, uint64_t id, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_str(&p, owner);
    p_i64(&p, (int64_t)id);
    return cmd(d,
        "DELETE FROM airspace_messages WHERE airspace = $1 AND node = $2"
        " AND owner = $3 AND id = $4",
        &p, e, "cannot drop a message");
}

int
pg_db_messages_move(
    struct pg_db *d, const char *from, const char *to, struct as_err *e)
{
    if (!strcmp(from, to))
        return 0;
    bool own;
    int rc = own_begin(d, &own, e);
    if (rc)
        return rc;
    struct params p;
    p_init(&p, d);
    p_str(&p, from);
    p_str(&p, to);
    rc = cmd(d,
        "DELETE FROM airspace_messages WHERE airspace = $1 AND node = $2"
        " AND owner = $4 AND id IN (SELECT id FROM airspace_messages"
        " WHERE airspace = $1 AND node = $2 AND owner = $3)",
        &p, e, "cannot move an inbox");
    if (!rc)
        rc = cmd(d,
            "UPDATE airspace_messages SET owner = $4 WHERE airspace = $1"
            " AND node = $2 AND owner = $3",
            &p, e, "cannot move an inbox");
    return own_end(d, own, rc, e);
}

int
pg_db_messages_load(
    struct pg_db *d, db_message_fn *fn, void *ctx, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    PGresult *r = q(d,
        "SELECT owner, id, sender, recipient, type, body, at, read FROM"
        " airspace_messages WHERE airspace = $1 AND node = $2"
        " ORDER BY owner, id",
        &p, PGRES_TUPLES_OK, e, "cannot read messages");
    if (!r)
        return AS_EIO;
    for (int i = 0; i < PQntuples(r); i++) {
        struct db_message m = { (uint64_t)ival(r, i, 1), val(r, i, 0),
            val(r, i, 2), val(r, i, 3), val(r, i, 4), val(r, i, 5),
            ival(r, i, 6), bval(r, i, 7) };
        fn(ctx, &m);
    }
    PQclear(r);
    return 0;
}

/* ---- ledger ---- */

int
pg_db_ledger_flush(struct pg_db *d, struct as_err *e)
{
    if (!d->nq)
        return 0;
    bool own;
    int rc = own_begin(d, &own, e);
    for (size_t k = 0; k < d->nq && !rc; k++) {
        struct params p;
        p_init(&p, d);
        p_i64(&p, (int64_t)d->q[k].seq);
        p_i64(&p, d->q[k].ts);
        p_str(&p, d->q[k].type);
        p_str(&p, d->q[k].agent);
        p_str(&p, d->q[k].json);
        rc = cmd(d,
            "INSERT INTO airspace_ledger VALUES ($1, $2, $3, $4, $5, $6, $7)"
            " ON CONFLICT (airspace, node, seq) DO UPDATE SET ts = $4,"
            " type = $5, agent = $6, json = $7",
            &p, e, "cannot append to the ledger");
    }
    for (size_t k = 0; k < d->nq; k++) {
        free(d->q[k].type);
        free(d->q[k].agent);
        free(d->q[k].json);
    }
    d->nq = 0;
    return own_end(d, own, rc, e);
}

int
pg_db_ledger_append(
    struct pg_db *d, const struct db_event *ev, struct as_err *e)
{
    if (ev->seq >= d->event_hwm) {
        uint64_t hwm = ev->seq + 1 + DB_EVENT_BLOCK;
        int rc = counter_put(d, "next_event", hwm, e);
        if (rc)
            return rc;
        d->event_hwm = hwm;
    }
    if (ev->seq > d->last_seq)
        d->last_seq = ev->seq;
    struct qevent *x = &d->q[d->nq++];
    x->seq = ev->seq;
    x->ts = ev->ts;
    x->type = xstrdup(ev->type);
    x->agent = ev->agent ? xstrdup(ev->agent) : NULL;
    x->json = xstrdup(ev->json);
    if (d->nq == DB_LEDGER_BATCH)
        return pg_db_ledger_flush(d, e);
    return 0;
}

int
pg_db_ledger_query(struct pg_db *d, const struct db_ledger_filter *f,
    db_event_fn *fn, void *ctx, struct as_err *e)
{
    int rc = pg_db_ledger_flush(d, e);
    if (rc)
        return rc;
    if (f->after >= (uint64_t)INT64_MAX)
        return 0;
    struct params p;
    p_init(&p, d);
    p_i64(&p, (int64_t)f->after);
    p_str(&p, f->type_prefix);
    p_str(&p, f->agent);
    p_i64(&p, f->limit > 0 ? f->limit : INT64_MAX);
    p_i64(&p, f->since);
    p_i64(&p, f->until > 0 ? f->until : INT64_MAX);
    PGresult *r = q(d,
        "SELECT seq, ts, type, agent, json FROM airspace_ledger WHERE"
        " airspace = $1 AND node = $2 AND seq > $3 AND ($4::text IS NULL OR"
        " left(type, length($4)) = $4) AND ($5::text IS NULL OR agent = $5)"
        " AND ts >= $7 AND ts <= $8 ORDER BY seq LIMIT $6",
        &p, PGRES_TUPLES_OK, e, "cannot query the ledger");
    if (!r)
        return AS_EIO;
    for (int i = 0; i < PQntuples(r); i++) {
        struct db_event ev = { (uint64_t)ival(r, i, 0), ival(r, i, 1),
            val(r, i, 2), val(r, i, 3), val(r, i, 4) };
        fn(ctx, &ev);
    }
    PQclear(r);
    return 0;
}

int
pg_db_ledger_last(struct pg_db *d, uint64_t *seq, struct as_err *e)
{
    int rc = pg_db_ledger_flush(d, e);
    if (rc)
        return rc;
    struct params p;
    p_init(&p, d);
    PGresult *r = q(d,
        "SELECT coalesce(max(seq), 0) FROM airspace_ledger WHERE"
        " airspace = $1 AND node = $2",
        &p, PGRES_TUPLES_OK, e, "cannot read the ledger");
    if (!r)
        return AS_EIO;
    *seq = (uint64_t)ival(r, 0, 0);
    PQclear(r);
    return 0;
}

int
pg_db_ledger_next(struct pg_db *d, uint64_t *next, struct as_err *e)
{
    uint64_t last;
    int rc = pg_db_ledger_last(d, &last, e);
    if (rc)
        return rc;
    *next = last + 1 > d->event_hwm ? last + 1 : d->event_hwm;
    return 0;
}

int
pg_db_ledger_prune(
    struct pg_db *d, long max_count, int64_t min_ts, struct as_err *e)
{
    int rc = pg_db_ledger_flush(d, e);
    if (rc)
        return rc;
    struct params p;
    p_init(&p, d);
    p_i64(&p, min_ts);
    p_i64(&p, max_count);
    return cmd(d,
        "DELETE FROM airspace_ledger WHERE airspace = $1 AND node = $2 AND"
        " (ts < $3 OR seq <= (SELECT max(seq) FROM airspace_ledger WHERE"
        " airspace = $1 AND node = $2) - $4)",
        &p, e, "cannot prune the ledger");
}

/* ---- alerts ---- */

int
pg_db_alert_put(struct pg_db *d, const struct db_alert *a, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_str(&p, a->kind);
    p_str(&p, a->subject);
    p_bool(&p, a->held);
    p_i64(&p, a->since);
    p_i64(&p, a->notified_at);
    p_str(&p, a->text ? a->text : "");
    p_str(&p, a->agents ? a->agents : "[]");
    return cmd(d,
        "INSERT INTO airspace_alerts VALUES ($1, $2, $3, $4, $5, $6, $7, $8,"
        " $9) ON CONFLICT (airspace, node, kind, subject) DO UPDATE SET"
        " held = $5, since = $6, notified_at = $7, text = $8, agents = $9",
        &p, e, "cannot store an alert");
}

int
pg_db_alerts_prune(struct pg_db *d, int64_t before, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_i64(&p, before);
    return cmd(d,
        "DELETE FROM airspace_alerts WHERE airspace = $1 AND node = $2"
        " AND NOT held AND notified_at < $3",
        &p, e, "cannot forget alerts");
}

int
pg_db_alerts_load(struct pg_db *d, db_alert_fn *fn, void *ctx, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    PGresult *r = q(d,
        "SELECT kind, subject, held, since, notified_at, text, agents"
        " FROM airspace_alerts WHERE airspace = $1 AND node = $2"
        " ORDER BY since, kind, subject",
        &p, PGRES_TUPLES_OK, e, "cannot read alerts");
    if (!r)
        return AS_EIO;
    for (int i = 0; i < PQntuples(r); i++) {
        struct db_alert a = { val(r, i, 0), val(r, i, 1), val(r, i, 5),
            val(r, i, 6), bval(r, i, 2), ival(r, i, 3), ival(r, i, 4) };
        if (a.kind && a.subject && a.text && a.agents)
            fn(ctx, &a);
    }
    PQclear(r);
    return 0;
}

/* ---- working sets shared with the other daemons ---- */

#define PG_NOW_MS "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

int
pg_db_workset_put(struct pg_db *d, const struct db_workset *w, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_str(&p, w->agent);
    p_str(&p, w->kind);
    p_str(&p, w->client);
    p_str(&p, w->branch);
    p_str(&p, w->status);
    p_str(&p, w->files);
    return cmd(d,
        "INSERT INTO airspace_worksets VALUES ($1, $2, $3, $4, $5, $6, $7, $8,"
        " " PG_NOW_MS ", " PG_NOW_MS ") ON CONFLICT (airspace, node, agent)"
        " DO UPDATE SET kind = $4, client = $5, branch = $6, status = $7,"
        " files = $8, updated_at = " PG_NOW_MS ", seen_at = " PG_NOW_MS,
        &p, e, "cannot publish a working set");
}

int
pg_db_workset_drop(struct pg_db *d, const char *agent, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_str(&p, agent);
    return cmd(d,
        "DELETE FROM airspace_worksets WHERE airspace = $1 AND node = $2 AND"
        " ($3::text IS NULL OR agent = $3)",
        &p, e, "cannot withdraw a working set");
}

int
pg_db_worksets_seen(struct pg_db *d, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    return cmd(d,
        "UPDATE airspace_worksets SET seen_at = " PG_NOW_MS
        " WHERE airspace = $1 AND node = $2",
        &p, e, "cannot refresh the working sets");
}

int
pg_db_peer_worksets(struct pg_db *d, int64_t fresh_ms, int64_t since,
    db_workset_fn *fn, void *ctx, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_i64(&p, fresh_ms);
    p_i64(&p, since);
    PGresult *r = q(d,
        "SELECT node, agent, kind, client, branch, status, files, updated_at"
        " FROM airspace_worksets WHERE airspace = $1 AND node <> $2 AND"
        " seen_at > " PG_NOW_MS " - $3 AND updated_at > $4 ORDER BY node,"
        " agent",
        &p, PGRES_TUPLES_OK, e, "cannot read the working sets");
    if (!r)
        return AS_EIO;
    for (int i = 0; i < PQntuples(r); i++) {
        struct db_workset w = { val(r, i, 1), val(r, i, 2), val(r, i, 3),
            val(r, i, 4), val(r, i, 5), val(r, i, 6), ival(r, i, 7) };
        fn(ctx, val(r, i, 0), &w);
    }
    PQclear(r);
    return 0;
}

/* ---- messages relayed between daemons ---- */

int
pg_db_relay_put(
    struct pg_db *d, const struct db_relay *m, uint64_t *id, struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p_str(&p, m->to_node);
    p_str(&p, m->recipient);
    p_str(&p, m->sender);
    p_str(&p, m->type);
    p_str(&p, m->body);
    PGresult *r = q(d,
        "INSERT INTO airspace_relayed (airspace, node, recipient, from_node,"
        " sender, type, body, at) VALUES ($1, $3, $4, $2, $5, $6, "
        "$7, " PG_NOW_MS ") RETURNING id",
        &p, PGRES_TUPLES_OK, e, "cannot relay a message");
    if (!r)
        return AS_EIO;
    *id = (uint64_t)ival(r, 0, 0);
    PQclear(r);
    return 0;
}

static int
relay_cmp(const void *x, const void *y)
{
    uint64_t a = ((const struct db_relay *)x)->id;
    uint64_t b = ((const struct db_relay *)y)->id;
    return (a > b) - (a < b);
}

int
pg_db_relay_take(struct pg_db *d, int64_t keep_ms, db_relay_fn *fn, void *ctx,
    struct as_err *e)
{
    struct params p;
    p_init(&p, d);
    p.n = 1; /* the airspace's, any daemon's */
    p_i64(&p, keep_ms);
    /* kept for a daemon that never takes them (gone for good, or of a
     * release that reads the notification only): dropped after keep_ms */
    if (cmd(d,
            "DELETE FROM airspace_relayed WHERE airspace = $1 AND"
            " at < " PG_NOW_MS " - $2",
            &p, e, "cannot drop old relayed messages"))
        return AS_EIO;
    p_init(&p, d);
    PGresult *r = q(d,
        "DELETE FROM airspace_relayed WHERE airspace = $1 AND node = $2"
        " RETURNING id, from_node, sender, recipient, type, body, at",
        &p, PGRES_TUPLES_OK, e, "cannot take relayed messages");
    if (!r)
        return AS_EIO;
    size_t n = (size_t)PQntuples(r);
    struct db_relay *v = xcalloc(n + 1, sizeof(*v));
    for (size_t i = 0; i < n; i++)
        v[i] = (struct db_relay){ (uint64_t)ival(r, (int)i, 0),
            val(r, (int)i, 1), val(r, (int)i, 2), val(r, (int)i, 3),
            val(r, (int)i, 4), val(r, (int)i, 5), ival(r, (int)i, 6) };
    qsort(v, n, sizeof(*v), relay_cmp); /* in the order they were sent */
    for (size_t i = 0; i < n; i++)
        fn(ctx, &v[i]);
    free(v);
    PQclear(r);
    return 0;
}

/* ---- events between daemons ---- */

int
pg_db_publish(struct pg_db *d, const char *json, struct as_err *e)
{
    size_t n = strlen(json);
    char *payload = n + strlen(d->node) + 1 <= PG_NOTIFY_MAX
                        ? xasprintf("%s\n%s", d->node, json)
                        : NULL;
    if (!payload)
        return 0; /* too big to publish: the other daemons miss it */
    const char *v[] = { d->channel, payload };
    struct params p = { .n = 2 };
    p.v[0] = v[0];
    p.v[1] = v[1];
    PGresult *r = q(d, "SELECT pg_notify($1, $2)", &p, PGRES_TUPLES_OK, e,
        "cannot publish an event");
    free(payload);
    if (!r)
        return AS_EIO;
    PQclear(r);
    return 0;
}

int
pg_db_events_fd(struct pg_db *d)
{
    return d->c && !d->down ? PQsocket(d->c) : -1;
}

void
pg_db_events_poll(struct pg_db *d, db_notice_fn *fn, void *ctx)
{
    if (!d->c || d->down)
        return;
    if (!d->in_tx && !PQconsumeInput(d->c)) {
        pg_err(d, NULL, "cannot read events");
        return;
    }
    PGnotify *n;
    while ((n = PQnotifies(d->c))) {
        char *nl = strchr(n->extra, '\n');
        if (nl) {
            *nl = '\0';
            if (strcmp(n->extra, d->node))
                fn(ctx, n->extra, nl + 1);
        }
        PQfreemem(n);
    }
}

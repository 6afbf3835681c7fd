/*
 * test_store_db.c - the SQLite store: round trips, the fencing counter
 * across reopen, an agent forgotten (its row, reports and inbox), ledger
 * batching (not on disk before a flush, visible after; queries flush
 * first), retention, reported edits (round trip with their lines and
 * insertions, move, drop, a bad row skipped), schema versions and the
 * migrations from schemas 1, 2 and 3, alerts kept and pruned; a
 * transaction abandoned, the file
 * deleted (written back) or replaced under the open store.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store/store.h"
#include "util/xalloc.h"
#include "test.h"
#include "util/banned.h"

static char dir[64];

static char *
dbpath(const char *name)
{
    return xasprintf("%s/%s", dir, name);
}

static int
count_on_disk(const char *path, const char *table)
{
    sqlite3 *h;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        return -1;
    char *sql = xasprintf("SELECT count(*) FROM %s", table);
    sqlite3_stmt *s;
    int n = -1;
    if (sqlite3_prepare_v2(h, sql, -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        n = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(h);
    free(sql);
    return n;
}

struct seen {
    int n;
    uint64_t last;
    char what[256];
};

static void
on_lock(void *ctx, const struct lock *l)
{
    struct seen *s = ctx;
    s->n++;
    s->last = l->token;
    snprintf(s->what, sizeof(s->what), "%s %s %s %s", l->pattern, l->holder,
        lock_mode_name(l->mode), l->reason ? l->reason : "-");
}

static void
on_event(void *ctx, const struct db_event *ev)
{
    struct seen *s = ctx;
    s->n++;
    s->last = ev->seq;
}

static void
on_agent(void *ctx, const struct db_agent *a)
{
    struct seen *s = ctx;
    s->n++;
    snprintf(s->what, sizeof(s->what), "%s %s %s %d", a->id, a->client,
        a->status, a->shared);
}

static void
on_message(void *ctx, const struct db_message *m)
{
    struct seen *s = ctx;
    s->n += !m->read;
}

static void
test_round_trips(void)
{
    char *p = dbpath("a.db");
    struct db *d;
    struct as_err e;
    CHECK_INT(db_open(p, NULL, &d, &e), 0);
    struct lock l = { 0 };
    l.token = 7;
    l.pattern = "src/a.c";
    l.holder = "alice";
    l.reason = "fix";
    l.mode = LOCK_EXCLUSIVE;
    l.kind = LOCK_KIND_LOCK;
    l.expires_at = 1000;
    l.ttl_ms = 300;
    l.contested_at = -1;
    CHECK_INT(db_lock_put(d, &l, 8, &e), 0);
    struct db_agent a = { "alice", "agent", "claude-code", NULL, "/w", NULL,
        "[]", "active", true, false, 1, 2 };
    CHECK_INT(db_agent_put(d, &a, &e), 0);
    struct db_message m = { 3, "bob", "alice", "bob", "info", "hi", 5, false };
    CHECK_INT(db_message_put(d, &m, &e), 0);
    db_close(d);

    CHECK_INT(db_open(p, NULL, &d, &e), 0);
    struct seen s = { 0 };
    uint64_t next;
    CHECK_INT(db_locks_load(d, on_lock, &s, &next, &e), 0);
    CHECK_INT(s.n, 1);
    /* the stored mark is a block above the next token: never below it */
    CHECK_INT(next, 8 + DB_TOKEN_BLOCK);
    CHECK_STR(s.what, "src/a.c alice exclusive fix");
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_agents_load(d, on_agent, &s, &e), 0);
    CHECK_STR(s.what, "alice claude-code active 1");
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_messages_load(d, on_message, &s, &e), 0);
    CHECK_INT(s.n, 1);
    CHECK_INT(db_message_read(d, "bob", 3, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_messages_load(d, on_message, &s, &e), 0);
    CHECK_INT(s.n, 0);
    CHECK_INT(db_lock_delete(d, 7, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_locks_load(d, on_lock, &s, &next, &e), 0);
    CHECK_INT(s.n, 0);
    CHECK_INT(next, 8 + DB_TOKEN_BLOCK); /* the mark outlives the lock */
    /* grants below the mark write no counter; past it, a new mark */
    l.token = 9;
    CHECK_INT(db_lock_put(d, &l, 10, &e), 0);
    CHECK_INT(db_locks_load(d, on_lock, &s, &next, &e), 0);
    CHECK_INT(next, 8 + DB_TOKEN_BLOCK);
    l.token = 8 + DB_TOKEN_BLOCK;
    CHECK_INT(db_lock_put(d, &l, 9 + DB_TOKEN_BLOCK, &e), 0);
    CHECK_INT(db_locks_load(d, on_lock, &s, &next, &e), 0);
    CHECK_INT(next, 9 + 2 * DB_TOKEN_BLOCK);
    /* an agent forgotten: its row, its reports and its inbox go; another
     * agent's stay, and an unknown id is no error */
    struct db_agent b = { "bob", "agent", "codex", NULL, NULL, NULL, "[]",
        "exited", false, false, 3, 4 };
    CHECK_INT(db_agent_put(d, &b, &e), 0);
    struct range_set none = RANGE_SET_INIT;
    struct db_report r = { "bob", "b.c", WS_ADDED, true, &none, 7, 1.0 };
    CHECK_INT(db_report_put(d, &r, &e), 0);
    struct db_message m2 = { 4, "alice", "bob", "bob", "info", "yo", 6, false };
    CHECK_INT(db_message_put(d, &m2, &e), 0);
    CHECK_INT(db_agent_drop(d, "bob", &e), 0);
    CHECK_INT(db_agent_drop(d, "nobody", &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_agents_load(d, on_agent, &s, &e), 0);
    CHECK_INT(s.n, 1);
    CHECK_STR(s.what, "alice claude-code active 1");
    CHECK_INT(count_on_disk(p, "reports"), 0);
    CHECK_INT(count_on_disk(p, "messages"), 1); /* bob's message to alice */
    db_close(d);
    free(p);
}

static void
test_ledger_batching(void)
{
    char *p = dbpath("b.db");
    struct db *d;
    struct as_err e;
    CHECK_INT(db_open(p, NULL, &d, &e), 0);
    for (uint64_t k = 1; k <= 10; k++) {
        struct db_event ev = { k, (int64_t)k * 100,
            k % 2 ? "lock.granted" : "intent.declared", k % 3 ? "alice" : "bob",
            "{}" };
        CHECK_INT(db_ledger_append(d, &ev, &e), 0);
    }
    CHECK_INT(count_on_disk(p, "ledger"), 0); /* queued, not yet written */
    struct seen s = { 0 };
    struct db_ledger_filter f = { 0, "lock.", NULL, 0, 0, -1 };
    CHECK_INT(db_ledger_query(d, &f, on_event, &s, &e), 0);
    CHECK_INT(s.n, 5); /* a query flushes first */
    CHECK_INT(count_on_disk(p, "ledger"), 10);
    memset(&s, 0, sizeof(s));
    struct db_ledger_filter g = { 6, NULL, "bob", 0, 0, -1 };
    CHECK_INT(db_ledger_query(d, &g, on_event, &s, &e), 0);
    CHECK_INT(s.n, 1); /* seq 9 */
    CHECK_INT(s.last, 9);
    memset(&s, 0, sizeof(s));
    struct db_ledger_filter h = { 0, NULL, NULL, 300, 500, -1 };
    CHECK_INT(db_ledger_query(d, &h, on_event, &s, &e), 0);
    CHECK_INT(s.n, 3); /* ts 300, 400, 500 */
    CHECK_INT(s.last, 5);
    /* 64 queued entries write themselves */
    for (uint64_t k = 11; k < 11 + DB_LEDGER_BATCH; k++) {
        struct db_event ev = { k, 5000, "x", NULL, "{}" };
        CHECK_INT(db_ledger_append(d, &ev, &e), 0);
    }
    CHECK_INT(count_on_disk(p, "ledger"), 10 + DB_LEDGER_BATCH);
    CHECK_INT(db_ledger_prune(d, 20, 0, &e), 0);
    CHECK_INT(count_on_disk(p, "ledger"), 20);
    uint64_t last;
    CHECK_INT(db_ledger_last(d, &last, &e), 0);
    CHECK_INT(last, 10 + DB_LEDGER_BATCH);
    CHECK_INT(db_ledger_prune(d, 1000, 5001, &e), 0); /* by age */
    CHECK_INT(count_on_disk(p, "ledger"), 0);
    db_close(d);
    free(p);
}

/* The ledger keeps only its ts index; a schema-1 store loses the other two
 * on open and keeps its rows (and gains schema 3's reports and schema 4's
 * alerts). */
static void
test_ledger_indexes(void)
{
    static const char ours[] = "sqlite_master WHERE type = 'index' AND "
                               "name IN ('ledger_type', 'ledger_agent')";
    char *p = dbpath("i.db");
    struct db *d;
    struct as_err e;
    CHECK_INT(db_open(p, NULL, &d, &e), 0);
    db_close(d);
    CHECK_INT(count_on_disk(p, ours), 0);
    CHECK_INT(count_on_disk(p, "sqlite_master WHERE name = 'ledger_ts'"), 1);
    sqlite3 *h;
    sqlite3_open(p, &h);
    CHECK_INT(sqlite3_exec(h,
                  "CREATE INDEX ledger_type ON ledger (type);"
                  "CREATE INDEX ledger_agent ON ledger (agent);"
                  "INSERT INTO ledger VALUES (7, 1, 'lock.granted', 'a', '{}');"
                  "DROP TABLE reports;" /* schema 3's */
                  "DROP TABLE alerts;"  /* schema 4's */
                  "UPDATE meta SET value = '1' WHERE key = 'schema_version'",
                  NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(h);
    CHECK_INT(count_on_disk(p, ours), 2);
    CHECK_INT(db_open(p, NULL, &d, &e), 0);
    db_close(d);
    CHECK_INT(count_on_disk(p, ours), 0);
    CHECK_INT(count_on_disk(p, "ledger"), 1);
    CHECK_INT(count_on_disk(p, "sqlite_master WHERE name = 'reports'"), 1);
    CHECK_INT(count_on_disk(p, "sqlite_master WHERE name = 'alerts'"), 1);
    free(p);
}

static void
test_schema(void)
{
    char *p = dbpath("c.db");
    struct db *d;
    struct as_err e;
    CHECK_INT(db_open(p, NULL, &d, &e), 0);
    db_close(d);
    /* a newer schema is refused with a clear message */
    sqlite3 *h;
    sqlite3_open(p, &h);
    sqlite3_exec(h, "UPDATE meta SET value = '99' WHERE key = 'schema_version'",
        NULL, NULL, NULL);
    sqlite3_close(h);
    CHECK_INT(db_open(p, NULL, &d, &e), AS_EUNSUP);
    CHECK(strstr(e.msg, "schema 99") != NULL);
    /* a file that is not a database is refused, naming it */
    char *q = dbpath("junk.db");
    FILE *f = fopen(q, "w");
    fputs("this is not a database, but it is long enough to look like one "
          "to a careless reader of headers ...............................",
        f);
    fclose(f);
    CHECK(db_open(q, NULL, &d, &e) < 0);
    CHECK(strstr(e.msg, "junk.db") != NULL);
    free(q);
    free(p);
}

/* What db_reports_load gave: "agent path status whole lines|ins changed
 * weight;" per row. */
static void
on_report(void *ctx, const struct db_report *r)
{
    struct seen *s = ctx;
    size_t n = strlen(s->what);
    int w = snprintf(s->what + n, sizeof(s->what) - n, "%s %s %s %d ", r->agent,
        r->path, ws_status_name(r->status), r->whole);
    for (size_t k = 0; w > 0 && k < r->ranges->n; k++) {
        n = strlen(s->what);
        w = snprintf(s->what + n, sizeof(s->what) - n, "%u-%u,",
            r->ranges->v[k].start, r->ranges->v[k].end);
    }
    n = strlen(s->what);
    snprintf(s->what + n, sizeof(s->what) - n, "|");
    for (size_t k = 0; k < r->ranges->nins; k++) {
        n = strlen(s->what);
        snprintf(s->what + n, sizeof(s->what) - n, "%u,", r->ranges->ins[k]);
    }
    n = strlen(s->what);
    snprintf(s->what + n, sizeof(s->what) - n, " %lld %.2f;",
        (long long)r->changed_at, r->weight);
    s->n++;
}

static void
test_reports(void)
{
    char *p = dbpath("r.db");
    struct db *d;
    struct as_err e;
    CHECK_INT(db_open(p, NULL, &d, &e), 0);
    struct range_set rs = RANGE_SET_INIT;
    range_set_add(&rs, 3, 5);
    range_set_add_insertion(&rs, 9); /* line 9 stands for an insertion */
    range_set_add_insertion(&rs, 0); /* at the top: line 1 */
    range_set_add(&rs, 20, 20);
    struct db_report r = { "alice", "src/a.c", WS_MODIFIED, false, &rs, 1234,
        0.5 };
    CHECK_INT(db_report_put(d, &r, &e), 0);
    struct range_set none = RANGE_SET_INIT;
    struct db_report w = { "bob", "b.c", WS_ADDED, true, &none, 7, 1.0 };
    CHECK_INT(db_report_put(d, &w, &e), 0);
    db_close(d);

    CHECK_INT(db_open(p, NULL, &d, &e), 0);
    struct seen s = { 0 };
    CHECK_INT(db_reports_load(d, on_report, &s, &e), 0);
    CHECK_INT(s.n, 2);
    CHECK_STR(s.what, "alice src/a.c modified 0 1-1,3-5,9-9,20-20,|0,9, "
                      "1234 0.50;bob b.c added 1 | 7 1.00;");
    /* the same path again replaces it */
    range_set_clear(&rs);
    range_set_add(&rs, 4, 4);
    r.changed_at = 99;
    CHECK_INT(db_report_put(d, &r, &e), 0);
    /* a takeover: bob's become carol's; alice leaves */
    CHECK_INT(db_reports_move(d, "bob", "carol", &e), 0);
    CHECK_INT(db_reports_drop(d, "nobody", &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_reports_load(d, on_report, &s, &e), 0);
    CHECK_STR(s.what, "alice src/a.c modified 0 4-4,| 99 0.50;"
                      "carol b.c added 1 | 7 1.00;");
    CHECK_INT(db_reports_drop(d, "alice", &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_reports_load(d, on_report, &s, &e), 0);
    CHECK_STR(s.what, "carol b.c added 1 | 7 1.00;");
    db_close(d);
    /* rows that do not parse are skipped, not fatal */
    sqlite3 *h;
    sqlite3_open(p, &h);
    CHECK_INT(sqlite3_exec(h,
                  "INSERT INTO reports VALUES "
                  "('x', 'a', 'modified', 0, '5-2', '', 0, 1.0),"
                  "('x', 'b', 'modified', 0, '1-2,', '', 0, 1.0),"
                  "('x', 'c', 'mangled', 0, '', '', 0, 1.0),"
                  "('x', 'd', 'modified', 0, '0-1', '', 0, 1.0),"
                  "('x', 'e', 'modified', 0, '1-99999999999', '', 0, 1.0),"
                  "('x', 'f', 'modified', 0, '', 'z', 0, 1.0)",
                  NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(h);
    CHECK_INT(db_open(p, NULL, &d, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_reports_load(d, on_report, &s, &e), 0);
    CHECK_STR(s.what, "carol b.c added 1 | 7 1.00;");
    db_close(d);
    range_set_release(&rs);
    free(p);
}

/* A schema-2 store (no reports) opens as schema 3, keeping its rows, and
 * then stores reports. */
static void
test_reports_migration(void)
{
    char *p = dbpath("m.db");
    struct db *d;
    struct as_err e;
    CHECK_INT(db_open(p, NULL, &d, &e), 0);
    struct db_agent a = { "alice", "agent", "claude-code", NULL, "/w", NULL,
        "[]", "active", true, false, 1, 2 };
    CHECK_INT(db_agent_put(d, &a, &e), 0);
    db_close(d);
    CHECK_INT(count_on_disk(p, "sqlite_master WHERE name = 'reports'"), 1);
    sqlite3 *h;
    sqlite3_open(p, &h);
    CHECK_INT(sqlite3_exec(h,
                  "DROP TABLE reports;"
                  "DROP TABLE alerts;" /* schema 4's */
                  "UPDATE meta SET value = '2' WHERE key = 'schema_version'",
                  NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(h);
    CHECK_INT(count_on_disk(p, "sqlite_master WHERE name = 'reports'"), 0);
    CHECK_INT(db_open(p, NULL, &d, &e), 0);
    struct range_set rs = RANGE_SET_INIT;
    range_set_add(&rs, 2, 3);
    struct db_report r = { "alice", "a.c", WS_MODIFIED, false, &rs, 5, 1.0 };
    CHECK_INT(db_report_put(d, &r, &e), 0);
    struct seen s = { 0 };
    CHECK_INT(db_agents_load(d, on_agent, &s, &e), 0);
    CHECK_STR(s.what, "alice claude-code active 1");
    db_close(d);
    range_set_release(&rs);
    CHECK_INT(count_on_disk(p, "reports"), 1);
    CHECK_INT(count_on_disk(p, "meta WHERE key = 'schema_version' AND "
                               "value = '4'"),
        1);
    free(p);
}

static void
on_alert(void *ctx, const struct db_alert *a)
{
    struct seen *s = ctx;
    s->n++;
    snprintf(s->what, sizeof(s->what), "%s %s %d %lld %lld %s %s", a->kind,
        a->subject, a->held, (long long)a->since, (long long)a->notified_at,
        a->text, a->agents);
}

/* A schema-3 store (no alerts) opens as schema 4, keeping its rows, and
 * then keeps alerts: put, replaced, pruned when they no longer hold and
 * their last notification is old. */
static void
test_alerts_migration(void)
{
    char *p = dbpath("al.db");
    struct db *d;
    struct as_err e;
    CHECK_INT(db_open(p, NULL, &d, &e), 0);
    struct db_agent a = { "alice", "agent", "claude-code", NULL, "/w", NULL,
        "[]", "active", true, false, 1, 2 };
    CHECK_INT(db_agent_put(d, &a, &e), 0);
    db_close(d);
    sqlite3 *h;
    sqlite3_open(p, &h);
    CHECK_INT(sqlite3_exec(h,
                  "DROP TABLE alerts;"
                  "UPDATE meta SET value = '3' WHERE key = 'schema_version'",
                  NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(h);
    CHECK_INT(db_open(p, NULL, &d, &e), 0);
    struct seen s = { 0 };
    CHECK_INT(db_agents_load(d, on_agent, &s, &e), 0);
    CHECK_INT(s.n, 1);
    struct db_alert x = { "waiting", "message:7", "waiting: may I?",
        "[\"bob\"]", true, 1000, 1500 };
    CHECK_INT(db_alert_put(d, &x, &e), 0);
    struct db_alert y = { "fleet-given-up", "crashy", "given up", "[]", false,
        900, 0 };
    CHECK_INT(db_alert_put(d, &y, &e), 0);
    x.held = false; /* cleared, notified at 1500: kept past 1500 */
    CHECK_INT(db_alert_put(d, &x, &e), 0);
    CHECK_INT(db_alerts_prune(d, 1500, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_alerts_load(d, on_alert, &s, &e), 0);
    CHECK_INT(s.n, 1);
    CHECK_STR(
        s.what, "waiting message:7 0 1000 1500 waiting: may I? [\"bob\"]");
    CHECK_INT(db_alerts_prune(d, 1501, &e), 0);
    db_close(d);
    CHECK_INT(count_on_disk(p, "alerts"), 0);
    CHECK_INT(count_on_disk(p, "meta WHERE key = 'schema_version' AND "
                               "value = '4'"),
        1);
    free(p);
}

/* A transaction abandoned takes its fencing mark with it (the cached mark
 * is the stored one again, so the next grant stores one); the file deleted
 * under the open store is noticed, written back, and writes are refused;
 * a file put in its place is noticed and left alone. */
static void
test_health(void)
{
    char *p = dbpath("health.db");
    struct db *d;
    struct as_err e;
    CHECK_INT(db_open(p, NULL, &d, &e), 0);
    struct seen s = { 0 };
    uint64_t next;
    CHECK_INT(db_locks_load(d, on_lock, &s, &next, &e), 0);
    CHECK_INT(next, 1);
    CHECK_INT(db_health(d, &e), 0);
    struct lock l;
    memset(&l, 0, sizeof(l));
    l.pattern = "a.c";
    l.holder = "alice";
    l.mode = LOCK_EXCLUSIVE;
    l.kind = LOCK_KIND_LOCK;
    l.token = 1;
    CHECK_INT(db_begin(d, &e), 0);
    CHECK_INT(db_lock_put(d, &l, 2, &e), 0);
    db_rollback(d);
    CHECK_INT(count_on_disk(p, "locks"), 0);
    l.token = 2;
    CHECK_INT(db_lock_put(d, &l, 3, &e), 0); /* stores a mark again */
    CHECK_INT(db_locks_load(d, on_lock, &s, &next, &e), 0);
    CHECK_INT(next, 3 + DB_TOKEN_BLOCK);
    CHECK_INT(db_probe(d, &e), 0);
    /* deleted: written back, and refused from then on */
    char *wal = xasprintf("%s-wal", p);
    unlink(p);
    unlink(wal);
    CHECK_INT(db_health(d, &e), AS_ENOENT);
    CHECK(strstr(e.msg, "was deleted while in use (what it held: written "
                        "back there)") != NULL);
    CHECK_INT(db_probe(d, &e), AS_ENOENT);
    CHECK_INT(count_on_disk(p, "locks"), 1);
    CHECK_INT(count_on_disk(p, "counters WHERE name = 'next_token'"), 1);
    db_close(d);
    /* replaced: noticed, and the file there left as it is */
    CHECK_INT(db_open(p, NULL, &d, &e), 0);
    char *other = dbpath("other.db");
    FILE *f = fopen(other, "w");
    fputs("not a store", f);
    fclose(f);
    CHECK_INT(rename(other, p), 0);
    CHECK_INT(db_health(d, &e), AS_ENOENT);
    CHECK(strstr(e.msg, "replaced by another file") != NULL);
    db_close(d);
    f = fopen(p, "r");
    char got[32] = "";
    CHECK(f && fgets(got, sizeof(got), f));
    fclose(f);
    CHECK_STR(got, "not a store");
    unlink(p);
    unlink(wal);
    free(wal);
    free(other);
    free(p);
}

int
main(void)
{
    snprintf(dir, sizeof(dir), "/tmp/airspace-db-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    TEST_RUN("round trips and the fencing counter", test_round_trips);
    TEST_RUN("ledger batching, queries, retention", test_ledger_batching);
    TEST_RUN("schema versions and bad files", test_schema);
    TEST_RUN("ledger indexes, and the migration that drops two",
        test_ledger_indexes);
    TEST_RUN("reported edits: round trip, move, drop", test_reports);
    TEST_RUN("the migration that adds reports", test_reports_migration);
    TEST_RUN("the migration that adds alerts; alerts kept and pruned",
        test_alerts_migration);
    TEST_RUN("failures: rollback, a deleted or replaced file", test_health);
    /* every database the tests made, with its -wal and -shm */
    DIR *dh = opendir(dir);
    for (struct dirent *de; dh && (de = readdir(dh));) {
        if (de->d_name[0] == '.')
            continue;
        char *p = dbpath(de->d_name);
        unlink(p);
        free(p);
    }
    if (dh)
        closedir(dh);
    rmdir(dir);
    return test_done();
}

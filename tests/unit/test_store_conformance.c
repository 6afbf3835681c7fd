/*
 * test_store_conformance.c - one suite, every store backend: the same
 * calls give the same answers on SQLite (always) and on PostgreSQL (a
 * throwaway server started by tests/pg/pgtemp.sh; skipped, and said so,
 * when the server programs are not installed). Round trips of agents,
 * reports, locks (tokens above every one granted after a reopen),
 * intents, messages (an inbox moved onto one with the same id), alerts, the
 * ledger (filters, last, next, retention) and transactions (rollback,
 * nesting). PostgreSQL also: two daemons (nodes) of one airspace see
 * their own rows and each other's agents and locks, another airspace
 * nothing; lock decisions on the database's clock with tokens that
 * increase across daemons; an expired lock retired by one daemon only;
 * working sets published by one read by the other (all, or those changed
 * after a time); events published by one reach the other only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "util/xalloc.h"
#include "test.h"
#include "util/banned.h"

static char tmp[64];
static const char *where; /* the store under test */
static bool is_pg;
static int serial;

/* A store of its own for one case: a new file, or a new airspace. */
static struct db *
open_store(const char *air, const char *node)
{
    struct db_options o = { .airspace = air, .node = node };
    struct as_err e;
    struct db *d = NULL;
    char *w = is_pg ? xstrdup(where) : xasprintf("%s/%s.db", tmp, air);
    if (db_open(w, &o, &d, &e))
        fprintf(stderr, "open %s: %s\n", w, e.msg);
    free(w);
    return d;
}

static char *
fresh_name(const char *what)
{
    return xasprintf("%s-%d-%ld", what, ++serial, (long)getpid());
}

/* ---- collectors ---- */

struct seen {
    int n;
    char text[1024];
    uint64_t max;
};

/* Append "a<sep>b " to s->text. */
static void
add_text(struct seen *s, const char *sep, const char *a, const char *b)
{
    size_t k = strlen(s->text);
    snprintf(s->text + k, sizeof(s->text) - k, "%s%s%s ", a ? a : "-", sep,
        b ? b : "-");
}

/* Run a shell command, its output discarded: its exit status. */
static int
sh(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char buf[256];
    while (fgets(buf, sizeof(buf), p))
        ;
    return pclose(p);
}

static void
on_agent(void *ctx, const struct db_agent *a)
{
    struct seen *s = ctx;
    s->n++;
    add_text(s, ":", a->id, a->status);
}

static void
on_report(void *ctx, const struct db_report *r)
{
    struct seen *s = ctx;
    s->n++;
    char lines[64] = "";
    for (size_t k = 0; k < r->ranges->n; k++) {
        size_t n = strlen(lines);
        snprintf(lines + n, sizeof(lines) - n, "%u-%u;", r->ranges->v[k].start,
            r->ranges->v[k].end);
    }
    char who[128];
    snprintf(who, sizeof(who), "%s/%s", r->agent, r->path);
    add_text(s, "=", who, lines);
}

static void
on_lock(void *ctx, const struct lock *l)
{
    struct seen *s = ctx;
    s->n++;
    if (l->token > s->max)
        s->max = l->token;
    add_text(s, "@", l->pattern, l->holder);
}

/* A lock with the node that granted it: pattern@holder/node. */
static void
on_node_lock(void *ctx, const char *node, const struct lock *l)
{
    struct seen *s = ctx;
    char who[128];
    snprintf(who, sizeof(who), "%s/%s", l->holder, node ? node : "?");
    s->n++;
    if (l->token > s->max)
        s->max = l->token;
    add_text(s, "@", l->pattern, who);
}

static void
on_intent(void *ctx, const struct db_intent *in)
{
    struct seen *s = ctx;
    s->n++;
    add_text(s, ":", in->agent, in->files);
}

static void
on_message(void *ctx, const struct db_message *m)
{
    struct seen *s = ctx;
    s->n++;
    char id[32];
    snprintf(id, sizeof(id), "%llu%s", (unsigned long long)m->id,
        m->read ? "r" : "");
    add_text(s, "#", m->owner, id);
}

static void
on_event(void *ctx, const struct db_event *ev)
{
    struct seen *s = ctx;
    s->n++;
    if (ev->seq > s->max)
        s->max = ev->seq;
    add_text(s, ":", ev->type, ev->agent);
}

/* ---- the suite ---- */

static struct db_agent
agent(const char *id, const char *status, int64_t at)
{
    return (struct db_agent){ id, "agent", "cli", NULL, "/w", "main", NULL,
        status, false, false, at, at };
}

static void
test_agents(void)
{
    char *air = fresh_name("agents");
    struct db *d = open_store(air, "n1");
    CHECK(d != NULL);
    if (!d)
        goto out;
    struct as_err e;
    struct db_agent a = agent("a", "active", 10), b = agent("b", "idle", 20);
    CHECK_INT(db_agent_put(d, &a, &e), 0);
    CHECK_INT(db_agent_put(d, &b, &e), 0);
    a.status = "stale"; /* stored again: replaced */
    CHECK_INT(db_agent_put(d, &a, &e), 0);
    struct range_set rs = RANGE_SET_INIT;
    range_set_add(&rs, 3, 5);
    struct db_report r = { "b", "x.c", WS_MODIFIED, false, &rs, 5, 1.0 };
    CHECK_INT(db_report_put(d, &r, &e), 0);
    struct db_message m = { 1, "b", "a", "b", "note", "hi", 7, false };
    CHECK_INT(db_message_put(d, &m, &e), 0);
    struct seen s = { 0 };
    CHECK_INT(db_agents_load(d, on_agent, &s, &e), 0);
    CHECK_STR(s.text, "a:stale b:idle ");
    CHECK_INT(db_agent_drop(d, "b", &e), 0);
    CHECK_INT(db_agent_drop(d, "nobody", &e), 0);
    db_close(d);
    d = open_store(air, "n1");
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_agents_load(d, on_agent, &s, &e), 0);
    CHECK_STR(s.text, "a:stale ");
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_reports_load(d, on_report, &s, &e), 0);
    CHECK_INT(db_messages_load(d, on_message, &s, &e), 0);
    CHECK_INT(s.n, 0); /* b's reports and inbox went with it */
    range_set_release(&rs);
    db_close(d);
out:
    free(air);
}

static void
test_reports(void)
{
    char *air = fresh_name("reports");
    struct db *d = open_store(air, "n1");
    CHECK(d != NULL);
    if (!d)
        goto out;
    struct as_err e;
    struct range_set rs = RANGE_SET_INIT, one = RANGE_SET_INIT;
    range_set_add(&rs, 1, 2);
    range_set_add(&rs, 10, 12);
    range_set_add(&one, 7, 7);
    struct db_report r1 = { "old", "a.c", WS_MODIFIED, false, &rs, 5, 0.5 };
    struct db_report r2 = { "old", "b.c", WS_ADDED, true, &one, 6, 1 };
    struct db_report r3 = { "new", "a.c", WS_MODIFIED, false, &one, 7, 1 };
    CHECK_INT(db_report_put(d, &r1, &e), 0);
    CHECK_INT(db_report_put(d, &r2, &e), 0);
    CHECK_INT(db_report_put(d, &r3, &e), 0);
    struct seen s = { 0 };
    CHECK_INT(db_reports_load(d, on_report, &s, &e), 0);
    CHECK_STR(s.text, "new/a.c=7-7; old/a.c=1-2;10-12; old/b.c=7-7; ");
    /* old's reports become new's; new's own on a.c is replaced */
    CHECK_INT(db_reports_move(d, "old", "new", &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_reports_load(d, on_report, &s, &e), 0);
    CHECK_STR(s.text, "new/a.c=1-2;10-12; new/b.c=7-7; ");
    CHECK_INT(db_reports_move(d, "new", "new", &e), 0);
    CHECK_INT(db_reports_drop(d, "new", &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_reports_load(d, on_report, &s, &e), 0);
    CHECK_INT(s.n, 0);
    range_set_release(&rs);
    range_set_release(&one);
    db_close(d);
out:
    free(air);
}

static void
on_alert(void *ctx, const struct db_alert *a)
{
    struct seen *s = ctx;
    s->n++;
    char who[128], v[256];
    snprintf(who, sizeof(who), "%s:%s", a->kind, a->subject);
    snprintf(v, sizeof(v), "%d/%lld/%lld/%s/%s", a->held, (long long)a->since,
        (long long)a->notified_at, a->text, a->agents);
    add_text(s, "=", who, v);
}

static void
test_alerts(void)
{
    char *air = fresh_name("alerts");
    struct db *d = open_store(air, "n1");
    CHECK(d != NULL);
    if (!d)
        goto out;
    struct as_err e;
    struct db_alert w = { "waiting", "message:7", "w", "[\"bob\"]", true, 2000,
        2500 };
    struct db_alert f = { "fleet-given-up", "crashy", "f", "[]", true, 1000,
        0 };
    CHECK_INT(db_alert_put(d, &w, &e), 0);
    CHECK_INT(db_alert_put(d, &f, &e), 0);
    struct seen s = { 0 };
    CHECK_INT(db_alerts_load(d, on_alert, &s, &e), 0);
    CHECK_STR(s.text, "fleet-given-up:crashy=1/1000/0/f/[] "
                      "waiting:message:7=1/2000/2500/w/[\"bob\"] ");
    /* cleared: a row stays while its last notification is not older
     * than the prune's time */
    w.held = f.held = false;
    CHECK_INT(db_alert_put(d, &w, &e), 0);
    CHECK_INT(db_alert_put(d, &f, &e), 0);
    CHECK_INT(db_alerts_prune(d, 2500, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_alerts_load(d, on_alert, &s, &e), 0);
    CHECK_STR(s.text, "waiting:message:7=0/2000/2500/w/[\"bob\"] ");
    /* held ones are never pruned */
    f.held = true;
    CHECK_INT(db_alert_put(d, &f, &e), 0);
    CHECK_INT(db_alerts_prune(d, 9999, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_alerts_load(d, on_alert, &s, &e), 0);
    CHECK_STR(s.text, "fleet-given-up:crashy=1/1000/0/f/[] ");
    if (is_pg) { /* another daemon of the airspace keeps its own */
        struct db *d2 = open_store(air, "n2");
        CHECK(d2 != NULL);
        if (d2) {
            memset(&s, 0, sizeof(s));
            CHECK_INT(db_alerts_load(d2, on_alert, &s, &e), 0);
            CHECK_INT(s.n, 0);
            CHECK_INT(db_alerts_prune(d2, 9999, &e), 0);
            db_close(d2);
        }
    }
    db_close(d);
out:
    free(air);
}

static struct lock
a_lock(uint64_t token, char *pattern, char *holder, int64_t expires)
{
    struct lock l;
    memset(&l, 0, sizeof(l));
    l.token = token;
    l.pattern = pattern;
    l.holder = holder;
    l.acquired_at = 1;
    l.expires_at = expires;
    l.ttl_ms = 1000;
    l.contested_at = -1;
    return l;
}

static void
test_locks(void)
{
    char *air = fresh_name("locks");
    struct db *d = open_store(air, "n1");
    CHECK(d != NULL);
    if (!d)
        goto out;
    struct as_err e;
    uint64_t next;
    struct seen s = { 0 };
    CHECK_INT(db_locks_load(d, on_lock, &s, &next, &e), 0);
    CHECK_INT(s.n, 0);
    uint64_t t1 = next, t2 = next + 1;
    struct lock l1 = a_lock(t1, "src/a.c", "alice", INT64_MAX / 2);
    struct lock l2 = a_lock(t2, "docs/**", "bob", INT64_MAX / 2);
    CHECK_INT(db_lock_put(d, &l1, t2, &e), 0);
    CHECK_INT(db_lock_put(d, &l2, t2 + 1, &e), 0);
    l1.reason = "renewed"; /* stored again under its token: replaced */
    CHECK_INT(db_lock_put(d, &l1, t2 + 1, &e), 0);
    db_close(d);
    d = open_store(air, "n1");
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_locks_load(d, on_lock, &s, &next, &e), 0);
    CHECK_STR(s.text, "src/a.c@alice docs/**@bob ");
    CHECK(next > t2); /* above every token granted */
    CHECK_INT(db_lock_delete(d, t1, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_locks_load(d, on_lock, &s, &next, &e), 0);
    CHECK_STR(s.text, "docs/**@bob ");
    /* an expired lock retired: gone, and this call retired it */
    struct lock old = a_lock(t2 + 1, "src/old.c", "carol", 1);
    CHECK_INT(db_lock_put(d, &old, t2 + 2, &e), 0);
    bool retired = false;
    CHECK_INT(db_lock_expire(d, old.token, &retired, &e), 0);
    CHECK(retired);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_locks_load(d, on_lock, &s, &next, &e), 0);
    CHECK_STR(s.text, "docs/**@bob ");
    int64_t now;
    uint64_t tok;
    int rc = db_locks_sync(d, on_node_lock, &s, &now, &tok, &e);
    CHECK_INT(rc, db_shared(d) ? AS_EINVAL : AS_EUNSUP); /* no transaction */
    db_close(d);
out:
    free(air);
}

static void
on_peer_intent(void *ctx, const char *node, const struct db_intent *in)
{
    struct seen *s = ctx;
    s->n++;
    char who[128];
    snprintf(who, sizeof(who), "%s/%s#%llu", node, in->agent,
        (unsigned long long)in->id);
    add_text(s, "=", who, in->files);
}

static void
test_intents_messages(void)
{
    char *air = fresh_name("collab");
    struct db *d = open_store(air, "n1");
    CHECK(d != NULL);
    if (!d)
        goto out;
    struct as_err e;
    struct db_intent i1 = { 1, "a", "[\"x.c\"]", NULL, "fix", 1, 100 };
    struct db_intent i2 = { 2, "b", "[\"y.c\"]", "10-20", NULL, 2, 200 };
    CHECK_INT(db_intent_put(d, &i1, &e), 0);
    CHECK_INT(db_intent_put(d, &i2, &e), 0);
    CHECK_INT(db_intent_delete(d, 1, &e), 0);
    struct seen s = { 0 };
    CHECK_INT(db_intents_load(d, on_intent, &s, &e), 0);
    CHECK_STR(s.text, "b:[\"y.c\"] ");
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_peer_intents(d, 0, on_peer_intent, &s, &e), 0);
    CHECK_INT(s.n, 0); /* no other daemon's */
    struct db_message m1 = { 1, "old", "x", "old", "note", "one", 1, false };
    struct db_message m2 = { 2, "old", "x", "old", "note", "two", 2, false };
    struct db_message m3 = { 1, "new", "x", "new", "note", "mine", 3, true };
    CHECK_INT(db_message_put(d, &m1, &e), 0);
    CHECK_INT(db_message_put(d, &m2, &e), 0);
    CHECK_INT(db_message_put(d, &m3, &e), 0);
    CHECK_INT(db_message_read(d, "old", 2, &e), 0);
    /* old's inbox moves onto new's: the same id is replaced */
    CHECK_INT(db_messages_move(d, "old", "new", &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_messages_load(d, on_message, &s, &e), 0);
    CHECK_STR(s.text, "new#1 new#2r ");
    CHECK_INT(db_message_drop(d, "new", 1, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_messages_load(d, on_message, &s, &e), 0);
    CHECK_STR(s.text, "new#2r ");
    db_close(d);
out:
    free(air);
}

static void
test_ledger(void)
{
    char *air = fresh_name("ledger");
    struct db *d = open_store(air, "n1");
    CHECK(d != NULL);
    if (!d)
        goto out;
    struct as_err e;
    uint64_t next = 0, last = 9;
    CHECK_INT(db_ledger_next(d, &next, &e), 0);
    CHECK_INT(next, 1);
    CHECK_INT(db_ledger_last(d, &last, &e), 0);
    CHECK_INT(last, 0);
    static const char *const types[] = { "lock.granted", "agent.joined",
        "lock.released", "message.sent" };
    for (uint64_t k = 1; k <= 4; k++) {
        struct db_event ev = { k, (int64_t)k * 1000, types[k - 1],
            k % 2 ? "a" : "b", "{}" };
        CHECK_INT(db_ledger_append(d, &ev, &e), 0);
    }
    struct seen s = { 0 };
    struct db_ledger_filter all = { 0 };
    CHECK_INT(db_ledger_query(d, &all, on_event, &s, &e), 0); /* flushes */
    CHECK_INT(s.n, 4);
    memset(&s, 0, sizeof(s));
    struct db_ledger_filter f = { .after = 1, .type_prefix = "lock." };
    CHECK_INT(db_ledger_query(d, &f, on_event, &s, &e), 0);
    CHECK_STR(s.text, "lock.released:a ");
    memset(&s, 0, sizeof(s));
    struct db_ledger_filter g = { .agent = "b", .limit = 1 };
    CHECK_INT(db_ledger_query(d, &g, on_event, &s, &e), 0);
    CHECK_STR(s.text, "agent.joined:b ");
    memset(&s, 0, sizeof(s));
    struct db_ledger_filter h = { .since = 2000, .until = 3000 };
    CHECK_INT(db_ledger_query(d, &h, on_event, &s, &e), 0);
    CHECK_INT(s.n, 2);
    CHECK_INT(db_ledger_last(d, &last, &e), 0);
    CHECK_INT(last, 4);
    db_close(d);
    d = open_store(air, "n1");
    CHECK_INT(db_ledger_next(d, &next, &e), 0);
    CHECK_INT(next, 5); /* a clean close leaves no gap */
    CHECK_INT(db_ledger_prune(d, 2, 0, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_ledger_query(d, &all, on_event, &s, &e), 0);
    CHECK_STR(s.text, "lock.released:a message.sent:b ");
    db_close(d);
out:
    free(air);
}

static void
test_transactions(void)
{
    char *air = fresh_name("tx");
    struct db *d = open_store(air, "n1");
    CHECK(d != NULL);
    if (!d)
        goto out;
    struct as_err e;
    struct db_agent a = agent("a", "active", 1), b = agent("b", "active", 2);
    CHECK_INT(db_begin(d, &e), 0);
    CHECK_INT(db_agent_put(d, &a, &e), 0);
    struct db_event ev = { 1, 1, "agent.joined", "a", "{}" };
    CHECK_INT(db_ledger_append(d, &ev, &e), 0);
    db_rollback(d);
    struct seen s = { 0 };
    CHECK_INT(db_agents_load(d, on_agent, &s, &e), 0);
    struct db_ledger_filter all = { 0 };
    CHECK_INT(db_ledger_query(d, &all, on_event, &s, &e), 0);
    CHECK_INT(s.n, 0); /* nothing of it stored */
    CHECK_INT(db_begin(d, &e), 0);
    CHECK_INT(db_begin(d, &e), 0);
    CHECK_INT(db_agent_put(d, &a, &e), 0);
    CHECK_INT(db_commit(d, &e), 0); /* inner: nothing yet */
    CHECK_INT(db_agent_put(d, &b, &e), 0);
    CHECK_INT(db_commit(d, &e), 0);
    CHECK_INT(db_health(d, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_agents_load(d, on_agent, &s, &e), 0);
    CHECK_STR(s.text, "a:active b:active ");
    CHECK_INT(db_probe(d, &e), 0);
    db_close(d);
out:
    free(air);
}

/* ---- PostgreSQL: daemons sharing an airspace ---- */

static void
on_peer(void *ctx, const char *node, const struct db_agent *a)
{
    struct seen *s = ctx;
    s->n++;
    add_text(s, "/", node, a->id);
}

static void
on_workset(void *ctx, const char *node, const struct db_workset *w)
{
    struct seen *s = ctx;
    s->n++;
    char who[128];
    snprintf(who, sizeof(who), "%s/%s", node, w->agent);
    add_text(s, "=", who, w->files);
    if (w->updated_at > 0 && (uint64_t)w->updated_at > s->max)
        s->max = (uint64_t)w->updated_at;
}

static void
on_notice(void *ctx, const char *node, const char *json)
{
    struct seen *s = ctx;
    s->n++;
    add_text(s, ":", node, json);
}

static void
on_relay(void *ctx, const struct db_relay *m)
{
    struct seen *s = ctx;
    s->n++;
    char who[128];
    snprintf(who, sizeof(who), "%s/%s>%s", m->to_node, m->sender, m->recipient);
    add_text(s, ":", who, m->body);
    if (m->at <= 0)
        s->max = 1; /* no time */
}

static void
test_shared(void)
{
    char *air = fresh_name("team"), *other = fresh_name("elsewhere");
    struct db *d1 = open_store(air, "n1"), *d2 = open_store(air, "n2"),
              *d3 = open_store(other, "n1");
    CHECK(d1 && d2 && d3);
    if (!d1 || !d2 || !d3)
        goto out;
    CHECK(db_shared(d1));
    CHECK_STR(db_backend(d1), "postgresql");
    struct as_err e;
    struct db_agent a = agent("a", "active", 1), b = agent("b", "active", 2),
                    c = agent("c", "active", 3);
    CHECK_INT(db_agent_put(d1, &a, &e), 0);
    CHECK_INT(db_agent_put(d2, &b, &e), 0);
    CHECK_INT(db_agent_put(d3, &c, &e), 0);
    struct seen s = { 0 };
    CHECK_INT(db_agents_load(d1, on_agent, &s, &e), 0);
    CHECK_STR(s.text, "a:active "); /* its own only */
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_peers_load(d1, on_peer, &s, &e), 0);
    CHECK_STR(s.text, "n2/b "); /* not the other airspace's c */

    /* lock decisions: under the transaction, on the database's clock */
    int64_t now1 = 0, now2 = 0;
    uint64_t tok1 = 0, tok2 = 0;
    CHECK_INT(db_begin(d1, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_locks_sync(d1, on_node_lock, &s, &now1, &tok1, &e), 0);
    CHECK_INT(s.n, 0);
    int64_t wall = (int64_t)time(NULL) * 1000;
    CHECK(now1 > wall - 60000 && now1 < wall + 60000);
    struct lock live = a_lock(tok1, "src/a.c", "a", now1 + 60000);
    CHECK_INT(db_lock_put(d1, &live, 0, &e), 0);
    CHECK_INT(db_commit(d1, &e), 0);
    /* one that has expired by the database's clock is retired */
    struct lock dead = a_lock(tok1 + 1000000, "src/b.c", "a", now1 - 1);
    CHECK_INT(db_lock_put(d2, &dead, 0, &e), 0); /* (d2 decides nothing yet) */
    CHECK_INT(db_begin(d2, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_locks_sync(d2, on_node_lock, &s, &now2, &tok2, &e), 0);
    /* the other daemon's lease, and the expired one: the decision
     * retires it, and only one daemon's retirement finds it */
    CHECK_STR(s.text, "src/a.c@a/n1 src/b.c@a/n2 ");
    bool retired = false;
    CHECK_INT(db_lock_expire(d2, dead.token, &retired, &e), 0);
    CHECK(retired);
    CHECK_INT(db_commit(d2, &e), 0);
    CHECK_INT(db_lock_expire(d1, dead.token, &retired, &e), 0);
    CHECK(!retired);
    CHECK_INT(db_lock_expire(d1, live.token, &retired, &e), 0);
    CHECK(!retired); /* live on the database's clock: stays */
    CHECK(tok2 > tok1);
    CHECK(now2 >= now1);
    CHECK_INT(db_begin(d3, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_locks_sync(d3, on_node_lock, &s, &now2, &tok2, &e), 0);
    CHECK_INT(db_commit(d3, &e), 0);
    CHECK_INT(s.n, 0); /* another airspace: not its lock */
    /* a daemon that decides locks cannot store one it did not grant (a
     * lease retired or given away meanwhile stays so) */
    struct lock ghost = a_lock(tok2 + 1000, "src/b.c", "a", now2 + 60000);
    CHECK_INT(db_lock_put(d1, &ghost, 0, &e), 0);
    CHECK_INT(db_begin(d2, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_locks_sync(d2, on_node_lock, &s, &now2, &tok2, &e), 0);
    CHECK_INT(db_commit(d2, &e), 0);
    CHECK_STR(s.text, "src/a.c@a/n1 ");
    /* another daemon's write of that lease (a contest) changes neither
     * whose it is nor the daemon that granted it */
    struct lock contested = live;
    contested.holder = "a@elsewhere";
    contested.contested_by = "c@n2";
    contested.contested_at = now2;
    CHECK_INT(db_lock_put(d2, &contested, 0, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_locks_peek(d2, on_node_lock, &s, &now2, &e), 0);
    CHECK_STR(s.text, "src/a.c@a/n1 ");
    /* its own daemon names its holder anew (an agent renamed) */
    contested.holder = "a2";
    CHECK_INT(db_lock_put(d1, &contested, 0, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_locks_peek(d2, on_node_lock, &s, &now2, &e), 0);
    CHECK_STR(s.text, "src/a.c@a2/n1 ");
    /* a daemon restoring its locks at start reads its own grants only (the
     * others' come with the decisions, which say whose they are) */
    uint64_t next2 = 0;
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_locks_load(d2, on_lock, &s, &next2, &e), 0);
    CHECK_INT(s.n, 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_locks_load(d1, on_lock, &s, &next2, &e), 0);
    CHECK_STR(s.text, "src/a.c@a2 ");

    /* working sets: each daemon's rows, read by the others */
    struct db_workset ws = { "a", "agent", "cli", "main", "active",
        "[{\"path\":\"src/a.c\"}]" };
    CHECK_INT(db_workset_put(d1, &ws, &e), 0);
    ws.files = "[]";
    CHECK_INT(db_workset_put(d1, &ws, &e), 0); /* replaced */
    ws.agent = "b";
    CHECK_INT(db_workset_put(d2, &ws, &e), 0);
    CHECK_INT(db_worksets_seen(d1, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_peer_worksets(d2, 60000, 0, on_workset, &s, &e), 0);
    CHECK_STR(s.text, "n1/a=[] ");
    /* those changed after a time: none, then the one changed since */
    int64_t since = (int64_t)s.max;
    CHECK(since > 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_peer_worksets(d2, 60000, since, on_workset, &s, &e), 0);
    CHECK_INT(s.n, 0);
    usleep(5000);
    ws.agent = "a";
    ws.files = "[{\"path\":\"src/c.c\"}]";
    CHECK_INT(db_workset_put(d1, &ws, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_peer_worksets(d2, 60000, since, on_workset, &s, &e), 0);
    CHECK_STR(s.text, "n1/a=[{\"path\":\"src/c.c\"}] ");
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_peer_worksets(d3, 60000, 0, on_workset, &s, &e), 0);
    CHECK_INT(s.n, 0); /* another airspace */
    CHECK_INT(db_workset_drop(d1, NULL, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_peer_worksets(d2, 60000, 0, on_workset, &s, &e), 0);
    CHECK_INT(s.n, 0);

    /* intents: the other nodes' live rows, of this airspace */
    struct db_intent live_in = { 7, "a", "[\"src/a.c\"]", NULL, NULL, now2,
        now2 + 60000 };
    struct db_intent dead_in = { 8, "a", "[\"src/b.c\"]", NULL, NULL, 1, 2 };
    CHECK_INT(db_intent_put(d1, &live_in, &e), 0);
    CHECK_INT(db_intent_put(d1, &dead_in, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_peer_intents(d2, now2, on_peer_intent, &s, &e), 0);
    CHECK_STR(s.text, "n1/a#7=[\"src/a.c\"] ");
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_peer_intents(d1, now2, on_peer_intent, &s, &e), 0);
    CHECK_INT(db_peer_intents(d3, now2, on_peer_intent, &s, &e), 0);
    CHECK_INT(s.n, 0); /* its own node's; another airspace */
    CHECK_INT(db_intent_delete(d1, 7, &e), 0);
    CHECK_INT(db_peer_intents(d2, now2, on_peer_intent, &s, &e), 0);
    CHECK_INT(s.n, 0);

    /* events: published by one daemon, read by the other only */
    CHECK_INT(db_publish(d1, "{\"type\":\"x\"}", &e), 0);
    CHECK_INT(db_begin(d2, &e), 0);
    CHECK_INT(db_publish(d2, "{\"type\":\"y\"}", &e), 0);
    db_rollback(d2); /* not published */
    memset(&s, 0, sizeof(s));
    for (int k = 0; k < 100 && !s.n; k++) {
        usleep(10000);
        db_events_poll(d2, on_notice, &s);
    }
    CHECK_STR(s.text, "n1:{\"type\":\"x\"} ");
    memset(&s, 0, sizeof(s));
    usleep(50000);
    db_events_poll(d1, on_notice, &s);
    db_events_poll(d3, on_notice, &s);
    CHECK_INT(s.n, 0);

    /* relayed messages: kept for the recipient's daemon until it takes
     * them, oldest first, once; a rolled-back take leaves them there */
    uint64_t id1 = 0, id2 = 0, id3 = 0;
    struct db_relay m1 = { .to_node = "n2",
        .recipient = "b",
        .sender = "a",
        .type = "info",
        .body = "first" };
    struct db_relay m2 = m1, m3 = m1;
    m2.body = "second";
    m3.to_node = "n3";
    m3.body = "elsewhere";
    CHECK_INT(db_relay_put(d1, &m1, &id1, &e), 0);
    CHECK_INT(db_relay_put(d1, &m2, &id2, &e), 0);
    CHECK_INT(db_relay_put(d1, &m3, &id3, &e), 0);
    CHECK(id1 > 0 && id2 > id1 && id3 > id2);
    CHECK_INT(db_begin(d2, &e), 0);
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_relay_take(d2, 60000, on_relay, &s, &e), 0);
    db_rollback(d2);
    CHECK_STR(s.text, "n1/a>b:first n1/a>b:second ");
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_relay_take(d1, 60000, on_relay, &s, &e), 0);
    CHECK_INT(db_relay_take(d3, 60000, on_relay, &s, &e), 0);
    CHECK_INT(s.n, 0); /* another daemon's; another airspace's */
    CHECK_INT(db_relay_take(d2, 60000, on_relay, &s, &e), 0);
    CHECK_STR(s.text, "n1/a>b:first n1/a>b:second ");
    CHECK_INT((int)s.max, 0); /* each with its time */
    memset(&s, 0, sizeof(s));
    CHECK_INT(db_relay_take(d2, 60000, on_relay, &s, &e), 0);
    CHECK_INT(s.n, 0); /* taken once */
    /* kept past keep_ms: dropped, by any daemon of the airspace */
    usleep(20000);
    CHECK_INT(db_relay_take(d2, 10, on_relay, &s, &e), 0);
    struct db *d4 = open_store(air, "n3");
    CHECK(d4);
    if (d4) {
        CHECK_INT(db_relay_take(d4, 60000, on_relay, &s, &e), 0);
        CHECK_INT(s.n, 0);
        db_close(d4);
    }
out:
    db_close(d1);
    db_close(d2);
    db_close(d3);
    free(air);
    free(other);
}

static void
run_suite(void)
{
    TEST_RUN("agents: round trip, drop with reports and inbox", test_agents);
    TEST_RUN("reports: lines, move, drop", test_reports);
    TEST_RUN(
        "alerts: round trip, pruned once they no longer hold", test_alerts);
    TEST_RUN("locks: round trip, tokens above every grant", test_locks);
    TEST_RUN("intents and messages", test_intents_messages);
    TEST_RUN("ledger: filters, last, next, retention", test_ledger);
    TEST_RUN("transactions: rollback and nesting", test_transactions);
}

int
main(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/airspace-conf-XXXXXX");
    if (!mkdtemp(tmp))
        return 1;
    fprintf(stderr, "store conformance: sqlite\n");
    where = tmp;
    run_suite();

    const char *src = getenv("AIRSPACE_SOURCE_DIR");
    char *script = xasprintf("%s/tests/pg/pgtemp.sh", src ? src : ".");
    char *check = xasprintf("sh '%s' check", script);
    /* its own directory: the server's user must reach it */
    char pgtmp[64];
    snprintf(pgtmp, sizeof(pgtmp), "/tmp/airspace-pg-XXXXXX");
    char *pgdir = xstrdup(mkdtemp(pgtmp) ? pgtmp : "/nonexistent");
    char *start = xasprintf("sh '%s' start '%s'", script, pgdir);
    if (sh(check) != 0) {
        fprintf(stderr, "store conformance: postgresql SKIPPED (no server "
                        "programs; scripts/setup.sh installs postgresql)\n");
    } else {
        FILE *p = popen(start, "r");
        char url[512] = "";
        if (p && fgets(url, sizeof(url), p))
            url[strcspn(url, "\n")] = '\0';
        int st = p ? pclose(p) : -1;
        TEST_BEGIN("a throwaway PostgreSQL server starts");
        CHECK(st == 0 && url[0]);
        TEST_END();
        if (st == 0 && url[0]) {
            fprintf(stderr, "store conformance: postgresql (%s)\n", url);
            where = url;
            is_pg = true;
            run_suite();
            TEST_RUN("postgresql: daemons sharing an airspace", test_shared);
        }
        char *stop = xasprintf("sh '%s' stop '%s'", script, pgdir);
        if (sh(stop) != 0)
            fprintf(stderr, "could not stop the server\n");
        free(stop);
    }
    char *rm = xasprintf("rm -rf '%s' '%s'", tmp, pgdir);
    if (sh(rm) != 0)
        fprintf(stderr, "could not remove %s\n", tmp);
    free(rm);
    free(check);
    free(start);
    free(pgdir);
    free(script);
    return test_done();
}

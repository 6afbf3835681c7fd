/* test_alerts.c - the alert engine: each kind raised and cleared once, the
 * agents concerned, the notification rate limit, and what a restart hands
 * back. */
#include <stdlib.h>
#include <string.h>

#include "core/alerts.h"
#include "test.h"

#define S 1000

static struct alerts *
engine(void)
{
    struct alerts_config c;
    alerts_config_default(&c);
    c.silent_ms = 60 * S;
    c.waiting_ms = 30 * S;
    c.repeat_ms = 100 * S;
    c.cap = 3;
    c.cap_window_ms = 60 * S;
    return alerts_new(&c);
}

/* Evaluate; the number raised and cleared, and the first of each kept in
 * *r / *c (kind and subject checked by the caller). */
static size_t
eval(struct alerts *s, const struct alerts_input *in, int64_t now,
    struct alert_changes *ch)
{
    alert_changes_release(ch);
    return alerts_eval(s, in, now, ch);
}

static void
test_silent_agent_and_lock(void)
{
    struct alerts *s = engine();
    const char *af[] = { "src/a.c" };
    const char *bf[] = { "src/net/x.c" };
    struct alert_agent ag[] = {
        { "alice", true, false, false, 0, af, 1 },
        { "bob", true, false, false, 0, bf, 1 },
        { "carol", false, false, false, 0, NULL, 0 }, /* discovered */
        /* a person registered to answer messages (the map's reply box):
         * never heard of again, never silent */
        { "human", true, false, false, 0, NULL, 0, true },
    };
    struct alert_lock lk[] = { { 7, "src/net", "alice", false } };
    struct alerts_input in = { 0 };
    in.agents = ag;
    in.nagents = 4;
    in.locks = lk;
    in.nlocks = 1;
    struct alert_changes ch;
    alert_changes_init(&ch);
    ag[1].last_seen = 50 * S;
    CHECK_INT(eval(s, &in, 59 * S, &ch), 0);
    /* alice silent for 60 s: her agent alert and her lock's */
    CHECK_INT(eval(s, &in, 60 * S, &ch), 2);
    CHECK_INT(ch.nraised, 2);
    CHECK_STR(alert_kind_name(ch.raised[0].kind), "stale-lock");
    CHECK_STR(ch.raised[0].subject, "7");
    CHECK_INT(ch.raised[0].nagents, 2); /* the holder and bob, under src/net */
    CHECK_STR(ch.raised[0].agents[0], "alice");
    CHECK_STR(ch.raised[0].agents[1], "bob");
    CHECK(strstr(ch.raised[0].text, "src/net") != NULL);
    CHECK_INT(ch.raised[0].since, 60 * S);
    CHECK_STR(alert_kind_name(ch.raised[1].kind), "silent-agent");
    CHECK_STR(ch.raised[1].subject, "alice");
    CHECK(alert_concerns(&ch.raised[1], "alice"));
    CHECK(!alert_concerns(&ch.raised[1], "bob"));
    /* held: not raised again */
    CHECK_INT(eval(s, &in, 70 * S, &ch), 0);
    size_t n;
    CHECK_INT((alerts_list(s, &n), n), 2);
    /* the daemon's own staleness raises the lock alert before silent_ms */
    ag[0].last_seen = 69 * S;
    CHECK_INT(eval(s, &in, 70 * S, &ch), 2);
    CHECK_INT(ch.ncleared, 2);
    ag[0].stale = true;
    CHECK_INT(eval(s, &in, 71 * S, &ch), 1);
    CHECK_STR(alert_kind_name(ch.raised[0].kind), "stale-lock");
    /* exited: nothing */
    ag[0].exited = true;
    CHECK_INT(eval(s, &in, 500 * S, &ch), 2); /* lock cleared; bob silent */
    CHECK_INT(ch.ncleared, 1);
    CHECK_INT(ch.nraised, 1);
    CHECK_STR(ch.raised[0].subject, "bob");
    alert_changes_release(&ch);
    alerts_free(s);
}

/* Whom a lock concerns: its holder and those changing a file it covers
 * (a directory path covers what is under it, an anchored glob its
 * directory's files, an unanchored one any depth). */
static void
test_lock_cover(void)
{
    struct alerts *s = engine();
    const char *bf[] = { "src/netx/a.c", "include/a.h" };
    const char *cf[] = { "src/net/deep/b.c" };
    const char *df[] = { "lib/src/net/c.c", "src/net" };
    struct alert_agent ag[] = {
        { "alice", true, false, true, 0, NULL, 0 },
        { "bob", true, false, false, 100 * S, bf, 2 },
        { "carol", false, false, false, 0, cf, 1 },
        { "dave", false, false, false, 0, df, 2 },
    };
    struct alert_lock lk[] = { { 1, "src/net", "alice", false },
        { 2, "/src/*/deep/*.c", "alice", true }, { 3, "*.h", "alice", false },
        { 4, "src/net/**", "alice", false } };
    struct alerts_input in = { 0 };
    in.agents = ag;
    in.nagents = 4;
    in.locks = lk;
    in.nlocks = 4;
    struct alert_changes ch;
    alert_changes_init(&ch);
    /* alice silent: her 4 locks, then her own alert */
    CHECK_INT(eval(s, &in, 101 * S, &ch), 5);
    const char *want[][3] = { { "alice", "carol", "dave" },
        { "alice", "carol", NULL }, { "alice", "bob", NULL },
        { "alice", "carol", NULL } };
    for (size_t k = 0; k < 4; k++) {
        size_t n = want[k][2] ? 3 : 2;
        CHECK_INT(ch.raised[k].nagents, n);
        for (size_t j = 0; j < n && j < ch.raised[k].nagents; j++)
            CHECK_STR(ch.raised[k].agents[j], want[k][j]);
    }
    CHECK(strstr(ch.raised[1].text, "claim '/src/*/deep/*.c'") != NULL);
    alert_changes_release(&ch);
    alerts_free(s);
}

static void
test_waiting(void)
{
    struct alerts *s = engine();
    const char *who[] = { "alice", "bob" };
    struct alert_wait w[] = { { "message:4", "question from 'alice': why?", who,
        2, 100 * S } };
    struct alerts_input in = { 0 };
    in.waits = w;
    in.nwaits = 1;
    struct alert_changes ch;
    alert_changes_init(&ch);
    CHECK_INT(eval(s, &in, 129 * S, &ch), 0);
    CHECK_INT(eval(s, &in, 130 * S, &ch), 1);
    CHECK_STR(alert_kind_name(ch.raised[0].kind), "waiting");
    CHECK_STR(ch.raised[0].subject, "message:4");
    CHECK_INT(ch.raised[0].nagents, 2);
    CHECK(strstr(ch.raised[0].text, "why?") != NULL);
    in.nwaits = 0; /* read */
    CHECK_INT(eval(s, &in, 131 * S, &ch), 1);
    CHECK_INT(ch.ncleared, 1);
    CHECK_STR(ch.cleared[0].subject, "message:4");
    CHECK_INT(ch.cleared[0].since, 130 * S);
    alert_changes_release(&ch);
    alerts_free(s);
}

static void
test_unadvised(void)
{
    struct alerts *s = engine();
    const char *af[] = { "a.c", "b.c" };
    const char *bf[] = { "b.c" };
    const char *cf[] = { "b.c", "c.c" };
    struct alert_agent ag[] = {
        { "alice", false, false, false, 0, af, 2 },
        { "bob", false, false, false, 0, bf, 1 },
        { "carol", false, true, false, 0, cf, 2 }, /* exited */
    };
    struct alert_pair adv[] = { { "bob", "alice" } };
    struct alerts_input in = { 0 };
    in.agents = ag;
    in.nagents = 3;
    in.advised = adv;
    in.nadvised = 1;
    struct alert_changes ch;
    alert_changes_init(&ch);
    /* an advisory covers the shared file; an exited agent counts not */
    CHECK_INT(eval(s, &in, 1, &ch), 0);
    in.nadvised = 0;
    CHECK_INT(eval(s, &in, 2, &ch), 1);
    CHECK_STR(alert_kind_name(ch.raised[0].kind), "unadvised-edit");
    CHECK_STR(ch.raised[0].subject, "b.c");
    CHECK_INT(ch.raised[0].nagents, 2);
    CHECK_STR(ch.raised[0].text,
        "b.c is changed by 'alice' and 'bob' with no advisory between them");
    /* carol back: three on b.c, still one alert (held) */
    ag[2].exited = false;
    CHECK_INT(eval(s, &in, 3, &ch), 0);
    /* an advisory between alice and bob, none with carol: still held */
    in.advised = adv;
    in.nadvised = 1;
    CHECK_INT(eval(s, &in, 4, &ch), 0);
    ag[2].nfiles = 0;
    CHECK_INT(eval(s, &in, 5, &ch), 1);
    CHECK_INT(ch.ncleared, 1);
    alert_changes_release(&ch);
    alerts_free(s);
}

/* 100 agents sharing 100 files, every pair advised but one: one alert
 * per file naming all 100 (a hash of pairs, not a scan per pair). */
static void
test_unadvised_many(void)
{
    enum { NA = 100, NF = 100 };
    static char names[NA][8], paths[NF][8];
    static const char *files[NF];
    static struct alert_agent ag[NA];
    static struct alert_pair adv[NA * (NA - 1) / 2];
    for (int f = 0; f < NF; f++) {
        snprintf(paths[f], sizeof(paths[f]), "f%03d", f);
        files[f] = paths[f];
    }
    for (int i = 0; i < NA; i++) {
        snprintf(names[i], sizeof(names[i]), "a%03d", i);
        ag[i] =
            (struct alert_agent){ names[i], false, false, false, 0, files, NF };
    }
    size_t n = 0;
    for (int i = 0; i < NA; i++)
        for (int j = i + 1; j < NA; j++)
            if (!(i == 17 && j == 42))
                adv[n++] = (struct alert_pair){ names[j], names[i] };
    struct alerts *s = engine();
    struct alerts_input in = { 0 };
    in.agents = ag;
    in.nagents = NA;
    in.advised = adv;
    in.nadvised = n;
    struct alert_changes ch;
    alert_changes_init(&ch);
    CHECK_INT(eval(s, &in, 1, &ch), NF);
    CHECK_STR(ch.raised[0].subject, "f000");
    CHECK_INT(ch.raised[0].nagents, NA);
    adv[n++] = (struct alert_pair){ names[17], names[42] };
    in.nadvised = n;
    CHECK_INT(eval(s, &in, 2, &ch), NF);
    CHECK_INT(ch.ncleared, NF);
    alert_changes_release(&ch);
    alerts_free(s);
}

static void
test_fleet_and_store(void)
{
    struct alerts *s = engine();
    struct alert_fleet f[] = { { "crashy", false, 2, NULL },
        { "fine", false, 0, NULL } };
    struct alerts_input in = { 0 };
    in.fleet = f;
    in.nfleet = 2;
    struct alert_changes ch;
    alert_changes_init(&ch);
    CHECK_INT(eval(s, &in, 1, &ch), 0);
    f[0].given_up = true;
    f[0].why = "exit 3";
    in.store_error = "database or disk is full";
    CHECK_INT(eval(s, &in, 2, &ch), 2);
    CHECK_STR(alert_kind_name(ch.raised[0].kind), "fleet-given-up");
    CHECK_STR(ch.raised[0].subject, "crashy");
    CHECK_STR(ch.raised[0].text,
        "fleet agent 'crashy' was given up after 2 restarts: exit 3");
    CHECK_STR(alert_kind_name(ch.raised[1].kind), "store-failing");
    CHECK_INT(ch.raised[1].nagents, 0);
    in.store_error = "";
    f[0].given_up = false;
    CHECK_INT(eval(s, &in, 3, &ch), 2);
    CHECK_INT(ch.ncleared, 2);
    size_t n;
    CHECK_INT((alerts_list(s, &n), n), 0);
    CHECK(alert_kind_name(ALERT_NKINDS) == NULL);
    alert_changes_release(&ch);
    alerts_free(s);
}

static void
test_rate_limit(void)
{
    struct alerts *s = engine(); /* repeat 100 s, cap 3 per 60 s */
    struct alert a = { ALERT_SILENT_AGENT, "alice", "t", NULL, 0, 0 };
    struct alert b = { ALERT_SILENT_AGENT, "bob", "t", NULL, 0, 0 };
    struct alert c = { ALERT_STALE_LOCK, "alice", "t", NULL, 0, 0 };
    struct alert d = { ALERT_WAITING, "m", "t", NULL, 0, 0 };
    const char *why;
    CHECK(alerts_notify_take(s, &a, 0, &why));
    CHECK(!alerts_notify_take(s, &a, 99 * S, &why));
    CHECK_STR(why, "repeat");
    CHECK(alerts_notify_take(s, &b, 1 * S, &why));
    CHECK(alerts_notify_take(s, &c, 2 * S, &why)); /* another kind */
    CHECK(!alerts_notify_take(s, &d, 3 * S, &why));
    CHECK_STR(why, "cap");
    /* the window moves on: the first left it at 60 s */
    CHECK(alerts_notify_take(s, &d, 60 * S, &why));
    CHECK(!alerts_notify_take(s, &a, 60 * S, &why));
    CHECK_STR(why, "repeat");
    CHECK(alerts_notify_take(s, &a, 100 * S, &why));
    alerts_free(s);
}

/* What a daemon kept before a restart: an alert that held holds again
 * with its since, is neither raised nor notified again when it is found,
 * is cleared once the settling time passed without it; the rate limits
 * go on. */
static void
test_restore(void)
{
    struct alerts *s = engine(); /* repeat 100 s, cap 3 per 60 s */
    const char *ids[] = { "crashy" };
    struct alert crashy = { ALERT_FLEET_GIVEN_UP, "crashy",
        "fleet agent 'crashy' was given up after 2 restarts", (char **)ids, 1,
        2 * S };
    struct alert gone = { ALERT_WAITING, "message:9", "waiting", NULL, 0,
        4 * S };
    struct alert bob = { ALERT_SILENT_AGENT, "bob", "", NULL, 0, 0 };
    alerts_restore(s, &crashy, true, 2 * S, 20 * S);
    alerts_restore(s, &crashy, true, 2 * S, 20 * S); /* once */
    alerts_restore(s, &gone, true, 0, 20 * S);
    alerts_restore(s, &bob, false, 3 * S, 20 * S); /* cleared, notified */
    size_t n;
    const struct alert *l = alerts_list(s, &n);
    CHECK_INT(n, 2);
    CHECK_STR(l[0].subject, "crashy");
    CHECK_INT(l[0].since, 2 * S);
    CHECK_INT(l[0].nagents, 1);
    CHECK_INT(alerts_notified_at(s, ALERT_FLEET_GIVEN_UP, "crashy"), 2 * S);
    CHECK_INT(alerts_notified_at(s, ALERT_SILENT_AGENT, "bob"), 3 * S);
    CHECK_INT(alerts_notified_at(s, ALERT_WAITING, "message:9"), 0);
    /* not found yet (the fleet has not reported): held while settling */
    struct alert_fleet f[] = { { "crashy", true, 2, NULL } };
    struct alerts_input in = { 0 };
    struct alert_changes ch;
    alert_changes_init(&ch);
    CHECK_INT(eval(s, &in, 10 * S, &ch), 0);
    /* found: goes on, not raised again */
    in.fleet = f;
    in.nfleet = 1;
    CHECK_INT(eval(s, &in, 11 * S, &ch), 0);
    const char *why;
    CHECK(!alerts_notify_take(s, &crashy, 12 * S, &why));
    CHECK_STR(why, "repeat");
    CHECK(!alerts_notify_take(s, &bob, 50 * S, &why));
    /* settled: what was not found is cleared, as raised */
    CHECK_INT(eval(s, &in, 20 * S, &ch), 1);
    CHECK_INT(ch.ncleared, 1);
    CHECK_STR(ch.cleared[0].subject, "message:9");
    CHECK_INT(ch.cleared[0].since, 4 * S);
    l = alerts_list(s, &n);
    CHECK_INT(n, 1);
    CHECK_INT(l[0].since, 2 * S);
    /* found before settling, it is any alert: cleared when it stops */
    f[0].given_up = false;
    CHECK_INT(eval(s, &in, 21 * S, &ch), 1);
    CHECK_STR(ch.cleared[0].subject, "crashy");
    alert_changes_release(&ch);
    alerts_free(s);

    /* the cap's window goes on too: three within the last minute */
    s = engine();
    struct alert m1 = { ALERT_WAITING, "m1", "", NULL, 0, 0 };
    struct alert m2 = { ALERT_WAITING, "m2", "", NULL, 0, 0 };
    struct alert m3 = { ALERT_WAITING, "m3", "", NULL, 0, 0 };
    struct alert m4 = { ALERT_WAITING, "m4", "", NULL, 0, 0 };
    alerts_restore(s, &m3, false, 30 * S, 0);
    alerts_restore(s, &m1, false, 10 * S, 0);
    alerts_restore(s, &m2, false, 20 * S, 0);
    CHECK(!alerts_notify_take(s, &m4, 65 * S, &why));
    CHECK_STR(why, "cap");
    CHECK(alerts_notify_take(s, &m4, 70 * S, &why)); /* m1 left it */
    alerts_free(s);

    enum alert_kind k;
    CHECK(alert_kind_parse("fleet-given-up", &k) && k == ALERT_FLEET_GIVEN_UP);
    CHECK(!alert_kind_parse("bogus", &k));
}

int
main(void)
{
    TEST_RUN("silent agent and the lock it holds", test_silent_agent_and_lock);
    TEST_RUN("whom a stale lock concerns", test_lock_cover);
    TEST_RUN("escalations and messages waiting", test_waiting);
    TEST_RUN("one file, several agents, no advisory", test_unadvised);
    TEST_RUN(
        "100 agents on 100 files, one pair unadvised", test_unadvised_many);
    TEST_RUN("fleet agent given up, store failing", test_fleet_and_store);
    TEST_RUN("notifications: per subject and a global cap", test_rate_limit);
    TEST_RUN("restored after a restart: held, since, limits", test_restore);
    return test_done();
}

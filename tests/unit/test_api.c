/*
 * test_api.c - the typed API requests (src/client/api.h): each builder's
 * method, path and body, with odd agent ids and paths percent-encoded in
 * the path and carried as they are in the body; every byte of an id
 * encodes and decodes back to itself.
 */
#include <stdlib.h>
#include <string.h>

#include "client/api.h"
#include "test.h"
#include "util/banned.h"

/* The body as sorted compact JSON, or "-" without one: a new string. */
static char *
body_text(const struct api_req *r)
{
    return r->body ? json_dumps(r->body, JSON_COMPACT | JSON_SORT_KEYS)
                   : strdup("-");
}

static void
check_req(const char *name, struct api_req r, const char *method,
    const char *path, const char *body)
{
    TEST_BEGIN(name);
    char *b = body_text(&r);
    CHECK_STR(r.method, method);
    CHECK_STR(r.path, path);
    CHECK_STR(b, body);
    free(b);
    api_req_release(&r);
    CHECK(r.path == NULL && r.body == NULL);
    TEST_END();
}

static int
hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* What a server's decoding of one segment gives back (no '+' rule). */
static char *
decode(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    for (; *s; s++) {
        if (*s == '%' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
            *o++ = (char)(hexval(s[1]) * 16 + hexval(s[2]));
            s += 2;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
    return out;
}

static void
test_escape(void)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        { "alice", "alice" },
        { "cc-1a2b3c4d", "cc-1a2b3c4d" },
        { "v1.2_x", "v1.2_x" },
        { "human@/home/me/repo", "human%40%2Fhome%2Fme%2Frepo" },
        { "a b", "a%20b" },
        { "a+b", "a%2Bb" },
        { "x?y=1&z#w", "x%3Fy%3D1%26z%23w" },
        { "100%", "100%25" },
        { "../..", "..%2F.." },
        { "\xc3\xa9t\xc3\xa9", "%C3%A9t%C3%A9" },
        { "", "" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *e = api_escape(cases[i].in);
        CHECK_STR(e, cases[i].want);
        char *d = decode(e);
        CHECK_STR(d, cases[i].in);
        for (const char *p = e; *p; p++)
            CHECK(!strchr("/?&=#+ @", *p));
        free(d);
        free(e);
    }
    /* every byte but NUL round-trips */
    char all[256];
    for (int c = 1; c < 256; c++)
        all[c - 1] = (char)c;
    all[255] = '\0';
    char *e = api_escape(all);
    char *d = decode(e);
    CHECK(!strcmp(d, all));
    free(d);
    free(e);
}

int
main(void)
{
    TEST_RUN("escaping", test_escape);

    check_req("status", api_status(), "GET", "/v1/status", "-");
    check_req("stop", api_stop(), "POST", "/v1/stop", "-");
    check_req("refresh", api_refresh(), "POST", "/v1/refresh", "-");
    check_req("agents", api_agents(false), "GET", "/v1/agents", "-");
    check_req("agents with files", api_agents(true), "GET",
        "/v1/agents?files=1", "-");
    check_req("register: the description is the body",
        api_register(json_pack("{s:s, s:s}", "id", "a b", "client", "fleet")),
        "POST", "/v1/agents", "{\"client\":\"fleet\",\"id\":\"a b\"}");
    check_req("exit of a shared tree's person", api_exit("human@/tmp/r x"),
        "POST", "/v1/agents/human%40%2Ftmp%2Fr%20x/exit", "-");
    check_req("heartbeat: a slash does not add a segment", api_heartbeat("a/b"),
        "POST", "/v1/agents/a%2Fb/heartbeat", "-");
    check_req(
        "inbox", api_inbox("bob", false), "GET", "/v1/agents/bob/inbox", "-");
    check_req("inbox peek: the query stays a query",
        api_inbox("x?peek=0", true), "GET",
        "/v1/agents/x%3Fpeek%3D0/inbox?peek=1", "-");
    check_req("edit without lines", api_edit("bob", "src/a b.c", NULL), "POST",
        "/v1/agents/bob/edits", "{\"path\":\"src/a b.c\"}");
    check_req("edit with lines",
        api_edit("bob", "src/%x.c", json_pack("[[i,i]]", 3, 9)), "POST",
        "/v1/agents/bob/edits", "{\"lines\":[[3,9]],\"path\":\"src/%x.c\"}");
    check_req("prompt", api_prompt("bob", "fix \"it\""), "POST",
        "/v1/agents/bob/prompt", "{\"prompt\":\"fix \\\"it\\\"\"}");
    check_req("commit made",
        api_commit_made("b&b", json_pack("{s:s}", "commit", "abc")), "POST",
        "/v1/agents/b%26b/commits", "{\"commit\":\"abc\"}");
    check_req("advisories", api_advisories(NULL), "GET", "/v1/advisories", "-");
    check_req("advisories of an agent with '&'", api_advisories("a&agent=b"),
        "GET", "/v1/advisories?agent=a%26agent%3Db", "-");
    check_req("locks", api_locks(NULL), "GET", "/v1/locks", "-");
    check_req(
        "locks of one", api_locks("c d"), "GET", "/v1/locks?agent=c%20d", "-");
    check_req("intents of one", api_intents("x+y"), "GET",
        "/v1/intents?agent=x%2By", "-");
    check_req("alerts", api_alerts(NULL), "GET", "/v1/alerts", "-");
    check_req(
        "alerts of one", api_alerts("bob"), "GET", "/v1/alerts?agent=bob", "-");
    check_req("conflicts", api_conflicts(), "GET", "/v1/conflicts", "-");
    check_req("ledger", api_ledger(0, 20, NULL, NULL), "GET",
        "/v1/ledger?after=0&limit=20", "-");
    check_req("ledger filtered", api_ledger(41, 5, "lock.", "a b"), "GET",
        "/v1/ledger?after=41&limit=5&type=lock.&agent=a%20b", "-");

    struct api_lock l = { "alice", "src/**/*.c", "claim", "shared", "why",
        30000, 7 };
    check_req("take: kind, mode, reason and ttl, no token",
        api_lock(API_LOCK_TAKE, &l), "POST", "/v1/locks",
        "{\"agent\":\"alice\",\"kind\":\"claim\",\"mode\":\"shared\","
        "\"pattern\":\"src/**/*.c\",\"reason\":\"why\",\"ttlMs\":30000}");
    check_req("release: the token only", api_lock(API_LOCK_RELEASE, &l), "POST",
        "/v1/locks/release",
        "{\"agent\":\"alice\",\"pattern\":\"src/**/*.c\",\"token\":7}");
    check_req("renew: token and ttl", api_lock(API_LOCK_RENEW, &l), "POST",
        "/v1/locks/renew",
        "{\"agent\":\"alice\",\"pattern\":\"src/**/*.c\",\"token\":7,"
        "\"ttlMs\":30000}");
    check_req("contest: agent and pattern", api_lock(API_LOCK_CONTEST, &l),
        "POST", "/v1/locks/contest",
        "{\"agent\":\"alice\",\"pattern\":\"src/**/*.c\"}");
    check_req("force release", api_lock(API_LOCK_FORCE_RELEASE, &l), "POST",
        "/v1/locks/force-release",
        "{\"agent\":\"alice\",\"pattern\":\"src/**/*.c\"}");
    struct api_lock bare = { "bob", "a b/c", NULL, NULL, NULL, 0, 0 };
    check_req("take with nothing optional", api_lock(API_LOCK_TAKE, &bare),
        "POST", "/v1/locks", "{\"agent\":\"bob\",\"pattern\":\"a b/c\"}");
    check_req("release without a token", api_lock(API_LOCK_RELEASE, &bare),
        "POST", "/v1/locks/release",
        "{\"agent\":\"bob\",\"pattern\":\"a b/c\"}");
    check_req("lock check", api_lock_check("bob", "x.c", NULL), "POST",
        "/v1/locks/check", "{\"agent\":\"bob\",\"path\":\"x.c\"}");
    check_req("lock check, shared", api_lock_check("bob", "x.c", "shared"),
        "POST", "/v1/locks/check",
        "{\"agent\":\"bob\",\"mode\":\"shared\",\"path\":\"x.c\"}");
    check_req("intent",
        api_intent(json_pack("{s:s, s:[s]}", "agent", "bob", "files", "a")),
        "POST", "/v1/intents", "{\"agent\":\"bob\",\"files\":[\"a\"]}");
    check_req("intent drop", api_intent_drop(12, "bob"), "POST",
        "/v1/intents/12/drop", "{\"agent\":\"bob\"}");
    check_req("message: info by default",
        api_message("alice", "@crew", NULL, "hi"), "POST", "/v1/messages",
        "{\"body\":\"hi\",\"from\":\"alice\",\"to\":\"@crew\",\"type\":"
        "\"info\"}");
    check_req("message typed", api_message("a", "b", "question", "?"), "POST",
        "/v1/messages",
        "{\"body\":\"?\",\"from\":\"a\",\"to\":\"b\",\"type\":\"question\"}");
    check_req("fleet report",
        api_fleet_report("w 1", json_pack("{s:s}", "state", "running")), "POST",
        "/v1/fleet/w%201", "{\"state\":\"running\"}");
    check_req(
        "map open", api_map_open(json_object()), "POST", "/v1/map/open", "{}");

    TEST_BEGIN("the token of a grant in a locks reply");
    json_t *locks = json_loads(
        "{\"locks\":[{\"holder\":\"bob\",\"pattern\":\"a/*\",\"token\":3},"
        "{\"holder\":\"alice\",\"pattern\":\"a/*\",\"token\":9},"
        "{\"holder\":\"alice\",\"pattern\":\"a/b\",\"token\":11},"
        "{\"pattern\":\"x\",\"token\":5}]}",
        0, NULL);
    CHECK_INT(api_locks_token(locks, "alice", "a/*"), 9);
    CHECK_INT(api_locks_token(locks, "alice", "a/b"), 11);
    CHECK_INT(api_locks_token(locks, "bob", "a/b"), 0);
    CHECK_INT(api_locks_token(locks, "carol", "x"), 0);
    CHECK_INT(api_locks_token(NULL, "alice", "a/*"), 0);
    json_decref(locks);
    TEST_END();

    TEST_BEGIN("event stream paths");
    char *p = api_events_path(-1);
    CHECK_STR(p, "/v1/events");
    free(p);
    p = api_events_path(0);
    CHECK_STR(p, "/v1/events?after=0");
    free(p);
    p = api_events_path(1234567890123LL);
    CHECK_STR(p, "/v1/events?after=1234567890123");
    free(p);
    TEST_END();
    return test_done();
}

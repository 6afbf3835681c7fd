/*
 * test_event_text.c - the readable line of an event: each kind of event
 * with its details, free text kept on one line and cut, unknown events as
 * key=value, the date for the log. Times are UTC (TZ is set).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/event_text.h"
#include "test.h"
#include "util/banned.h"

/* 2026-01-01T10:00:00Z */
#define TS "1767261600000"

static const struct {
    const char *name, *event, *want;
    bool with_date;
} cases[] = {
    { .name = "lock granted",
        .event = "{\"id\":7,\"type\":\"lock.granted\",\"ts\":" TS
                 ",\"agent\":\"alice\",\"data\":{\"token\":3,\"pattern\":"
                 "\"src/a.c\",\"holder\":\"alice\",\"mode\":\"exclusive\","
                 "\"kind\":\"lock\",\"reason\":\"token refresh\","
                 "\"actor\":\"alice\"}}",
        .want = "     7 10:00:00 lock.granted       alice          src/a.c "
                "(exclusive lock, token 3): token refresh" },
    { .name = "claim released by someone else, contested",
        .event = "{\"id\":8,\"type\":\"claim.force_released\",\"ts\":" TS
                 ",\"agent\":\"bob\",\"data\":{\"token\":4,\"pattern\":"
                 "\"docs/**\",\"holder\":\"bob\",\"mode\":\"exclusive\","
                 "\"kind\":\"claim\",\"contestedBy\":\"alice\","
                 "\"actor\":\"alice\"}}",
        .want = "     8 10:00:00 claim.force_released bob            docs/** "
                "(exclusive claim, token 4) by alice, contested by alice" },
    { .name = "lock reassigned names the new holder",
        .event = "{\"id\":9,\"type\":\"lock.reassigned\",\"ts\":" TS
                 ",\"agent\":\"carol\",\"data\":{\"token\":5,\"pattern\":"
                 "\"x\",\"holder\":\"carol\",\"mode\":\"shared\","
                 "\"kind\":\"lock\"}}",
        .want = "     9 10:00:00 lock.reassigned    carol          x (shared "
                "lock, token 5) now held by carol" },
    { .name = "advisory: the pair, the levels, who holds",
        .event = "{\"id\":10,\"type\":\"advisory\",\"ts\":" TS
                 ",\"data\":{\"a\":\"alice\",\"b\":\"bob\",\"level\":"
                 "\"resolution\",\"risk\":0.8125,\"from\":\"traffic\","
                 "\"hold\":\"alice\",\"steer\":\"bob\",\"contested\":[{"
                 "\"path\":\"src/a.c\"},{\"path\":\"src/b.c\"}]}}",
        .want = "    10 10:00:00 advisory           -              alice ~ "
                "bob: traffic -> resolution (risk 0.81), alice holds, bob "
                "steers; contested: src/a.c, src/b.c" },
    { .name = "advisory with a parked agent: it is named parked",
        .event = "{\"id\":10,\"type\":\"advisory\",\"ts\":" TS
                 ",\"data\":{\"a\":\"alice\",\"b\":\"bob\",\"level\":"
                 "\"traffic\",\"risk\":1,\"from\":\"resolution\","
                 "\"hold\":\"bob\",\"steer\":\"alice\",\"parked\":"
                 "\"bob\"}}",
        .want = "    10 10:00:00 advisory           -              alice ~ "
                "bob: resolution -> traffic (risk 1.00), bob parked" },
    { .name = "agent exited: client, worktree, reason",
        .event = "{\"id\":11,\"type\":\"agent.exited\",\"ts\":" TS
                 ",\"agent\":\"alice\",\"data\":{\"id\":\"alice\","
                 "\"client\":\"claude-code\",\"worktree\":\"/r\","
                 "\"status\":\"exited\",\"reason\":\"exit\"}}",
        .want = "    11 10:00:00 agent.exited       alice          client "
                "claude-code, worktree /r, reason: exit" },
    { .name = "commit: short id, branch, subject, files",
        .event = "{\"id\":12,\"type\":\"git.commit\",\"ts\":" TS
                 ",\"agent\":\"alice\",\"data\":{\"commit\":"
                 "\"1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d\",\"branch\":"
                 "null,\"parent\":null,\"files\":[{\"path\":\"a\","
                 "\"status\":\"added\"}],\"subject\":\"first\"}}",
        .want = "    12 10:00:00 git.commit         alice          1a2b3c4 "
                "on a detached HEAD: first (1 file: a)" },
    { .name = "message: newlines and escapes stay off the terminal",
        .event = "{\"id\":13,\"type\":\"message\",\"ts\":" TS
                 ",\"agent\":\"alice\",\"data\":{\"from\":\"alice\",\"to\":"
                 "\"bob\",\"type\":\"question\",\"body\":\"two\\nlines\\u001b"
                 "[31m\"}}",
        .want = "    13 10:00:00 message            alice          alice -> "
                "bob [question]: two\\nlines\\x1b[31m" },
    { .name = "intent with a summary",
        .event = "{\"id\":14,\"type\":\"intent.declared\",\"ts\":" TS
                 ",\"agent\":\"bob\",\"data\":{\"id\":2,\"agent\":\"bob\","
                 "\"files\":[\"src/*.c\",\"README\"],\"summary\":\"rename\"}}",
        .want = "    14 10:00:00 intent.declared    bob            src/*.c, "
                "README: rename" },
    { .name = "workset changed: a count",
        .event = "{\"id\":15,\"type\":\"workset.changed\",\"ts\":" TS
                 ",\"agent\":\"bob\",\"data\":{\"files\":1}}",
        .want = "    15 10:00:00 workset.changed    bob            1 changed "
                "file" },
    { .name = "conflict",
        .event = "{\"id\":16,\"type\":\"conflict\",\"ts\":" TS
                 ",\"agent\":\"bob\",\"data\":{\"to\":\"bob\",\"shape\":"
                 "\"in-flight\",\"a\":\"alice\",\"b\":\"bob\",\"file\":"
                 "\"src/a.c\",\"additive\":false,\"text\":\"both edit it\"}}",
        .want = "    16 10:00:00 conflict           bob            in-flight "
                "alice ~ bob on src/a.c, to bob: both edit it" },
    { .name = "an alert",
        .event = "{\"id\":18,\"type\":\"alert.raised\",\"ts\":" TS
                 ",\"data\":{\"kind\":\"silent-agent\",\"subject\":"
                 "\"bob\",\"text\":\"agent 'bob' has been silent for 600s\","
                 "\"agents\":[\"bob\"],\"since\":1}}",
        .want = "    18 10:00:00 alert.raised       -              "
                "silent-agent: agent 'bob' has been silent for 600s" },
    { .name = "a fleet agent's state",
        .event = "{\"id\":19,\"type\":\"fleet.state\",\"ts\":" TS
                 ",\"agent\":\"bob\",\"data\":{\"name\":\"bob\","
                 "\"state\":\"restarting\",\"restarts\":1,\"why\":"
                 "\"exit 3; restart 1 of 3 in 5.0s\"}}",
        .want = "    19 10:00:00 fleet.state        bob            restarting, "
                "1 restart: exit 3; restart 1 of 3 in 5.0s" },
    { .name = "a fleet agent given up",
        .event = "{\"id\":20,\"type\":\"fleet.given_up\",\"ts\":" TS
                 ",\"agent\":\"bob\",\"data\":{\"name\":\"bob\","
                 "\"restarts\":3}}",
        .want = "    20 10:00:00 fleet.given_up     bob            given-up, 3 "
                "restarts" },
    { .name = "an unknown event: its members",
        .event = "{\"id\":17,\"type\":\"worktree.pruned\",\"ts\":" TS
                 ",\"agent\":\"feat\",\"data\":{\"agent\":\"feat\","
                 "\"worktree\":\"/r.airspace/feat\",\"tip\":null,"
                 "\"branchDeleted\":true,\"exited\":[\"feat\"],\"n\":2,"
                 "\"x\":{\"y\":1}}}",
        .want = "    17 10:00:00 worktree.pruned    feat           agent=feat "
                "worktree=/r.airspace/feat branchDeleted=true exited=feat "
                "n=2" },
    { .name = "no data, no agent",
        .event = "{\"id\":18,\"type\":\"agent.gone\",\"ts\":" TS "}",
        .want = "    18 10:00:00 agent.gone         -" },
    { .name = "the log's date",
        .event = "{\"id\":19,\"type\":\"workset.edit\",\"ts\":" TS
                 ",\"agent\":\"bob\",\"data\":{\"path\":\"src/a.c\"}}",
        .want = "    19 2026-01-01 10:00:00 workset.edit       bob         "
                "   src/a.c",
        .with_date = true },
};

static void
test_long_text_cut(void)
{
    /* 300 bytes of text, "é" (2 bytes) straddling the cut */
    char body[400];
    memset(body, 'x', 199);
    memcpy(body + 199, "\xc3\xa9", 2);
    memset(body + 201, 'y', 99);
    body[300] = '\0';
    json_t *ev = json_pack("{s:i, s:s, s:I, s:{s:s, s:s, s:s, s:s}}", "id", 1,
        "type", "message", "ts", (json_int_t)1767261600000, "data", "from", "a",
        "to", "b", "type", "info", "body", body);
    struct strbuf sb = STRBUF_INIT;
    event_text_line(&sb, ev, false);
    const char *text = strstr(sb.s, "[info]: ");
    CHECK(text != NULL);
    if (text) {
        text += strlen("[info]: ");
        /* cut before the two-byte character, not inside it */
        CHECK_INT(strlen(text), 199 + 3);
        CHECK(!strcmp(text + 199, "..."));
    }
    free(sb.s);
    json_decref(ev);
}

/* Text from agents as every command shows it: escaped, and a line break
 * either shown (one line) or indented under its line. */
static const struct {
    const char *name, *text, *indent, *want;
    size_t max;
} add_cases[] = {
    { .name = "plain text and UTF-8 unchanged",
        .text = "caf\xc3\xa9 \xe2\x9c\x93 ok",
        .want = "caf\xc3\xa9 \xe2\x9c\x93 ok" },
    { .name = "ESC, BEL, CR, tab and DEL escaped",
        .text = "a\033]0;owned\007b\rc\td\177",
        .want = "a\\x1b]0;owned\\x07b\\rc\\td\\x7f" },
    { .name = "one line: a line break is shown",
        .text = "hi\n[info] supervisor: go",
        .want = "hi\\n[info] supervisor: go" },
    { .name = "indented: a line break stays under its line",
        .text = "hi\n[info] supervisor: go\r\nend",
        .indent = "    ",
        .want = "hi\n    [info] supervisor: go\n    end" },
    { .name = "a lone CR is shown even indented",
        .text = "a\rb",
        .indent = "  ",
        .want = "a\\rb" },
    { .name = "C1 controls, as UTF-8 or as stray bytes",
        .text = "x\xc2\x9b"
                "31my\x9bz",
        .want = "x\\u009b31my\\x9bz" },
    { .name = "bidirectional overrides and line separators",
        .text = "a\xe2\x80\xae"
                "b\xe2\x80\xa8"
                "c",
        .want = "a\\u202eb\\u2028c" },
    { .name = "invalid UTF-8 bytes escaped",
        .text = "\xff\xc3(\xe0\x80\x80",
        .want = "\\xff\\xc3(\\xe0\\x80\\x80" },
    { .name = "cut at a character boundary",
        .text = "ab\xc3\xa9"
                "cd",
        .max = 3,
        .want = "ab..." },
};

static void
test_add(void)
{
    for (size_t i = 0; i < sizeof(add_cases) / sizeof(add_cases[0]); i++) {
        TEST_BEGIN(add_cases[i].name);
        struct strbuf sb = STRBUF_INIT;
        event_text_add(
            &sb, add_cases[i].text, add_cases[i].max, add_cases[i].indent);
        CHECK_STR(sb.s ? sb.s : "", add_cases[i].want);
        free(sb.s);
        TEST_END();
    }
}

int
main(void)
{
    setenv("TZ", "UTC", 1);
    tzset();
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        TEST_BEGIN(cases[i].name);
        json_error_t je;
        json_t *ev = json_loads(cases[i].event, 0, &je);
        CHECK(ev != NULL);
        if (ev) {
            struct strbuf sb = STRBUF_INIT;
            event_text_line(&sb, ev, cases[i].with_date);
            CHECK_STR(sb.s, cases[i].want);
            free(sb.s);
            json_decref(ev);
        } else {
            fprintf(stderr, "  bad case JSON: %s\n", je.text);
        }
        TEST_END();
    }
    TEST_RUN("long text cut at a character boundary", test_long_text_cut);
    test_add();
    return test_done();
}

/* test_init_config.c - init's merging: which hook commands are airspace's
 * (whatever the install path and its shell quoting), merging twice, and a
 * second file the client reads taking the first one's spelling. */
#include <stdbool.h>
#include <stdlib.h>

#include <jansson.h>

#include "cli/init_config.h"
#include "test.h"

struct ours_case {
    const char *name, *command;
    bool want;
};

static const struct ours_case ours_cases[] = {
    { "lean, plain path", "/usr/bin/airspace-hook claude-code", true },
    { "lean, single-quoted path", "'/tmp/my bin/airspace-hook' claude-code",
        true },
    { "lean, quote inside the path",
        "'/tmp/my bin'\\''s/airspace-hook' claude-code", true },
    { "lean, double-quoted path", "\"/tmp/my bin/airspace-hook\" codex", true },
    { "lean, backslash-escaped space", "/tmp/my\\ bin/airspace-hook gemini",
        true },
    { "binary, quoted path", "'/tmp/my bin/airspace' hook claude-code", true },
    { "binary, plain path", "/usr/bin/airspace hook codex", true },
    { "someone else's command", "echo airspace", false },
    { "unbalanced quote", "'/tmp/x/airspace-hook claude-code", false },
    { "more arguments", "/usr/bin/airspace-hook claude-code --x", false },
    { "another client name", "/usr/bin/airspace-hook claude-codex", false },
};

/* Whether init_unmerge_json takes command out as airspace's. */
static bool
unmerged(const char *command)
{
    json_t *root = json_pack("{s:{s:[{s:[{s:s, s:s}]}]}}", "hooks", "Stop",
        "hooks", "type", "command", "command", command);
    char *text = json_dumps(root, 0), *out = NULL;
    bool empty = false;
    struct as_err e;
    int rc = init_unmerge_json(text, "settings.json", &out, &empty, &e);
    CHECK_INT(rc, 0);
    free(out);
    free(text);
    json_decref(root);
    return empty;
}

static void
test_ours(void)
{
    for (size_t i = 0; i < sizeof(ours_cases) / sizeof(ours_cases[0]); i++) {
        const struct ours_case *c = &ours_cases[i];
        TEST_BEGIN(c->name);
        CHECK_INT(unmerged(c->command), c->want);
        TEST_END();
    }
}

/* A binary whose path needs quoting: the second merge changes nothing. */
static void
test_merge_quoted_twice(void)
{
    static const char *const bins[] = { "/tmp/my bin/airspace",
        "/tmp/it's/airspace", "/tmp/plain/airspace" };
    for (size_t i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
        char *once = NULL, *twice = NULL;
        struct as_err e;
        CHECK_INT(init_merge_hooks("{}", "s.json", INIT_CLAUDE_CODE, bins[i],
                      NULL, true, &once, &e),
            0);
        CHECK_INT(init_merge_hooks(once, "s.json", INIT_CLAUDE_CODE, bins[i],
                      NULL, true, &twice, &e),
            0);
        CHECK_STR(twice, once);
        free(once);
        free(twice);
    }
}

struct like_case {
    const char *name;
    const char *old, *like; /* settings texts */
    const char *want;       /* the Stop hook's command in the result */
};

#define STOP_RUNS(cmd)                                                         \
    "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", "            \
    "\"command\": \"" cmd "\"}]}]}}"

static const struct like_case like_cases[] = {
    { "nothing to match: this binary", NULL, NULL,
        "/opt/new/airspace hook claude-code" },
    { "the other file's spelling", NULL,
        STOP_RUNS("/opt/old/airspace-hook claude-code"),
        "/opt/old/airspace-hook claude-code" },
    { "an own entry is kept", STOP_RUNS("airspace hook claude-code"),
        STOP_RUNS("/opt/old/airspace-hook claude-code"),
        "airspace hook claude-code" },
    { "another client's entry is no match", NULL,
        STOP_RUNS("/opt/old/airspace-hook codex"),
        "/opt/new/airspace hook claude-code" },
    { "someone else's command is no match", NULL, STOP_RUNS("echo airspace"),
        "/opt/new/airspace hook claude-code" },
    { "a file that does not parse is no match", NULL,
        "{\"hooks\":", "/opt/new/airspace hook claude-code" },
};

/* The Stop event runs the command of the file the client also reads, so
 * that a session reading both runs it once. */
static void
test_like(void)
{
    for (size_t i = 0; i < sizeof(like_cases) / sizeof(like_cases[0]); i++) {
        const struct like_case *c = &like_cases[i];
        TEST_BEGIN(c->name);
        char *out = NULL;
        struct as_err e;
        CHECK_INT(init_merge_hooks(c->old, "s.json", INIT_CLAUDE_CODE,
                      "/opt/new/airspace", c->like, false, &out, &e),
            0);
        json_t *root = json_loads(out, 0, NULL);
        json_t *stop = json_object_get(json_object_get(root, "hooks"), "Stop");
        CHECK_INT((int)json_array_size(stop), 1);
        CHECK_STR(json_string_value(json_object_get(
                      json_array_get(
                          json_object_get(json_array_get(stop, 0), "hooks"), 0),
                      "command")),
            c->want);
        CHECK_INT(init_has_hooks(out, INIT_CLAUDE_CODE), true);
        CHECK_INT(init_has_hooks(out, INIT_GEMINI), false);
        json_decref(root);
        free(out);
        TEST_END();
    }
}

int
main(void)
{
    test_ours();
    TEST_RUN("merging twice with a quoted binary", test_merge_quoted_twice);
    test_like();
    return test_done();
}

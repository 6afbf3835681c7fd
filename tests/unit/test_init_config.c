/* test_init_config.c - init's merging: which hook commands are airspace's
 * (whatever the install path and its shell quoting), merging twice, a
 * second file the client reads taking the first one's spelling, numbers
 * kept as written, commands of a binary that is gone, taking out only
 * what init added, config.toml's spellings of mcp_servers.airspace, and
 * git hooks that do nothing once the binary is gone. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
    bool empty = false, changed = false;
    struct as_err e;
    int rc = init_unmerge_json(
        text, NULL, "settings.json", &out, &empty, &changed, &e);
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
                      NULL, true, NULL, &once, &e),
            0);
        CHECK_INT(init_merge_hooks(once, "s.json", INIT_CLAUDE_CODE, bins[i],
                      NULL, true, NULL, &twice, &e),
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
                      "/opt/new/airspace", c->like, false, NULL, &out, &e),
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

/* The Stop command of JSON settings text (a new string), or NULL. */
static char *
stop_command(const char *text)
{
    json_t *root = json_loads(text, 0, NULL);
    json_t *stop = json_object_get(json_object_get(root, "hooks"), "Stop");
    const char *cmd = json_string_value(json_object_get(
        json_array_get(json_object_get(json_array_get(stop, 0), "hooks"), 0),
        "command"));
    char *out = cmd ? strdup(cmd) : NULL;
    json_decref(root);
    return out;
}

/* A rewritten file keeps the user's numbers as they were written. */
static void
test_numbers_kept(void)
{
    static const char *const kept[] = { "\"temperature\": 0.1",
        "\"ratio\": 1.1", "\"exp\": 1e3", "\"trail\": 2.50", "\"neg\": -0.0",
        "\"n\": 7", "\"s\": \"0.1\"" };
    char *out = NULL;
    struct as_err e;
    CHECK_INT(init_merge_hooks("{\"temperature\": 0.1, \"ratio\": 1.1, "
                               "\"exp\": 1e3, \"trail\": 2.50, \"neg\": -0.0, "
                               "\"n\": 7, \"s\": \"0.1\"}",
                  "s.json", INIT_CLAUDE_CODE, "/opt/new/airspace", NULL, false,
                  NULL, &out, &e),
        0);
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
        CHECK(out && strstr(out, kept[i]) != NULL);
    CHECK(out && strstr(out, "\"timeout\": 5") != NULL);
    free(out);
}

struct gone_case {
    const char *name, *command;
    const char *want; /* the Stop command after the merge */
};

static const struct gone_case gone_cases[] = {
    { "init's own, binary gone: this binary",
        "/gone/bin/airspace-hook claude-code",
        "/opt/new/airspace hook claude-code" },
    { "init's own, the full binary gone", "/gone/bin/airspace hook claude-code",
        "/opt/new/airspace hook claude-code" },
    { "another install's path is kept",
        "/opt/elsewhere/airspace-hook claude-code",
        "/opt/elsewhere/airspace-hook claude-code" },
};

/* A command init wrote for a binary that is gone is updated in place; any
 * other spelling is left as it is. */
static void
test_gone(void)
{
    static const char *const gone[] = { "/gone/bin/airspace",
        "/gone/bin/airspace-hook", NULL };
    for (size_t i = 0; i < sizeof(gone_cases) / sizeof(gone_cases[0]); i++) {
        const struct gone_case *c = &gone_cases[i];
        TEST_BEGIN(c->name);
        json_t *root = json_pack("{s:{s:[{s:[{s:s, s:s, s:i}]}]}}", "hooks",
            "Stop", "hooks", "type", "command", "command", c->command,
            "timeout", 7);
        char *text = json_dumps(root, 0), *out = NULL;
        struct as_err e;
        CHECK_INT(init_merge_hooks(text, "s.json", INIT_CLAUDE_CODE,
                      "/opt/new/airspace", NULL, false, gone, &out, &e),
            0);
        char *cmd = stop_command(out);
        CHECK_STR(cmd, c->want);
        CHECK(strstr(out, "\"timeout\": 7") != NULL);
        free(cmd);
        free(out);
        free(text);
        json_decref(root);
        TEST_END();
    }
    TEST_BEGIN("mcp entry of a binary that is gone");
    char *out = NULL;
    struct as_err e;
    CHECK_INT(init_merge_mcp("{\"mcpServers\": {\"airspace\": {\"command\": "
                             "\"/gone/bin/airspace\", \"args\": [\"mcp\"]}}}",
                  ".mcp.json", "/opt/new/airspace", gone, &out, &e),
        0);
    CHECK(strstr(out, "\"/opt/new/airspace\"") != NULL);
    free(out);
    CHECK_INT(init_merge_mcp("{\"mcpServers\": {\"airspace\": {\"command\": "
                             "\"/gone/bin/airspace\", \"args\": [\"mcp\", "
                             "\"--agent\", \"me\"]}}}",
                  ".mcp.json", "/opt/new/airspace", gone, &out, &e),
        0);
    CHECK(strstr(out, "/opt/new") == NULL); /* the user's own shape */
    free(out);
    TEST_END();
}

struct unmerge_case {
    const char *name, *old, *orig;
    bool changed;
    const char *want; /* the text left, compact and key-sorted */
};

#define MCP_OWN                                                                \
    "\"mcpServers\": {\"airspace\": {\"command\": \"/opt/a/airspace\", "       \
    "\"args\": [\"mcp\", \"--agent\", \"me\"]}}"

static const struct unmerge_case unmerge_cases[] = {
    { "the user's own mcpServers.airspace stays",
        "{\"theme\": \"Light\", " MCP_OWN
        ", \"hooks\": {\"Stop\": [{\"hooks\": "
        "[{\"type\": \"command\", \"command\": \"airspace-hook gemini\"}]}]}}",
        "{\"theme\": \"Dark\", " MCP_OWN "}", true,
        "{\"mcpServers\":{\"airspace\":{\"args\":[\"mcp\",\"--agent\",\"me\"],"
        "\"command\":\"/opt/a/airspace\"}},\"theme\":\"Light\"}" },
    { "init's mcpServers.airspace goes",
        "{\"mcpServers\": {\"airspace\": {\"command\": \"airspace\"}}}",
        "{\"mcpServers\": {}}", true, "{}" },
    { "an event the user wired to airspace before stays",
        "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", "
        "\"command\": \"/opt/a/airspace-hook claude-code\"}]}]}}",
        "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", "
        "\"command\": \"/opt/a/airspace-hook claude-code\"}]}]}}",
        false, NULL },
    { "nothing of airspace's: left as it is",
        "{\"model\":\"opus\",   \"hooks\": {}}", NULL, false, NULL },
};

/* --remove takes out only what init added, and nothing else changes. */
static void
test_unmerge(void)
{
    for (size_t i = 0; i < sizeof(unmerge_cases) / sizeof(unmerge_cases[0]);
         i++) {
        const struct unmerge_case *c = &unmerge_cases[i];
        TEST_BEGIN(c->name);
        char *out = NULL;
        bool empty = false, changed = true;
        struct as_err e;
        CHECK_INT(init_unmerge_json(
                      c->old, c->orig, "s.json", &out, &empty, &changed, &e),
            0);
        CHECK_INT(changed, c->changed);
        if (!c->changed) {
            CHECK_STR(out, c->old);
        } else {
            json_t *root = json_loads(out, 0, NULL);
            char *compact = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
            CHECK_STR(compact, c->want);
            free(compact);
            json_decref(root);
        }
        free(out);
        TEST_END();
    }
}

struct toml_case {
    const char *name, *text;
    bool has;
};

static const struct toml_case toml_cases[] = {
    { "table header", "[mcp_servers.airspace]\ncommand = \"a\"\n", true },
    { "header with spaces", "[ mcp_servers . airspace ]\ncommand = \"a\"\n",
        true },
    { "quoted key", "[mcp_servers.'airspace']\ncommand = \"a\"\n", true },
    { "double-quoted key", "[\"mcp_servers\".\"airspace\"]\n", true },
    { "inline table under [mcp_servers]",
        "[mcp_servers]\nairspace = { command = \"a\", args = [\"mcp\"] }\n",
        true },
    { "dotted keys", "mcp_servers.airspace.command = \"a\"\n", true },
    { "dotted keys under [mcp_servers]",
        "[mcp_servers]\nairspace.command = \"a\"\n", true },
    { "a sub-table", "[mcp_servers.airspace.env]\nA = \"1\"\n", true },
    { "mcp_servers inline at the top",
        "mcp_servers = { other = { command = \"x\" } }\n", true },
    { "another server", "[mcp_servers.other]\ncommand = \"airspace\"\n",
        false },
    { "in a comment", "# [mcp_servers.airspace]\nmodel = \"o3\"\n", false },
    { "in a multi-line string",
        "notes = \"\"\"\n[mcp_servers.airspace]\n\"\"\"\n[mcp_servers.x]\n",
        false },
    { "in a multi-line array",
        "a = [\n  \"mcp_servers.airspace\", # x\n  1,\n]\n"
        "[mcp_servers.airspace2]\n",
        false },
    { "airspace under another table",
        "[profiles]\nmcp_servers.airspace.command = \"a\"\n", false },
    { "empty", "", false },
};

static void
test_toml(void)
{
    for (size_t i = 0; i < sizeof(toml_cases) / sizeof(toml_cases[0]); i++) {
        const struct toml_case *c = &toml_cases[i];
        TEST_BEGIN(c->name);
        CHECK_INT(init_toml_has_airspace(c->text), c->has);
        char *block = init_codex_toml_block(c->text, "airspace");
        CHECK_INT(block == NULL, c->has);
        free(block);
        TEST_END();
    }
}

/* The git hooks name the binary they run, and do nothing without it. */
static void
test_git_hook(void)
{
    static const char *const bins[] = { "/opt/my bin/airspace", "airspace" };
    for (size_t b = 0; b < 2; b++)
        for (size_t i = 0; init_git_hooks[i]; i++) {
            char *script = init_git_hook_script(init_git_hooks[i], bins[b]);
            char *prog = init_git_hook_program(script);
            CHECK_STR(prog, bins[b]);
            CHECK(init_git_hook_is_ours(script));
            CHECK(strstr(script, b ? "command -v airspace"
                                   : "[ -x '/opt/my bin/airspace' ]") != NULL);
            free(prog);
            free(script);
        }
    /* as an earlier release wrote it */
    char *prog = init_git_hook_program(
        "#!/bin/sh\n# airspace-hook: pre-commit\nexec '/a b/airspace' init "
        "--git-hook pre-commit\n");
    CHECK_STR(prog, "/a b/airspace");
    free(prog);
}

int
main(void)
{
    test_ours();
    TEST_RUN("merging twice with a quoted binary", test_merge_quoted_twice);
    test_like();
    TEST_RUN("numbers kept as written", test_numbers_kept);
    test_gone();
    test_unmerge();
    test_toml();
    TEST_RUN("git hooks name their binary", test_git_hook);
    return test_done();
}

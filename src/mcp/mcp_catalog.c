/*
 * mcp_catalog.c - the tools `airspace mcp` offers: each one's name,
 * description, input and output schemas and hints, as tools/list gives
 * them; and tools/call: the arguments checked against the input schema
 * (the subset of JSON Schema the tools use), then the tool run.
 */
#include "mcp/mcp_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

/* ---- argument checking (the subset of JSON Schema the tools use) ---- */

/* The characters of the UTF-8 string s (n bytes), as JSON Schema's
 * minLength and maxLength count them (jansson has checked the encoding):
 * every byte but a continuation byte starts one. */
static size_t
utf8_chars(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k;
}

static bool
check_value(json_t *schema, json_t *v, const char *name, struct strbuf *err)
{
    const char *type = str(schema, "type");
    if (!strcmp(type, "string")) {
        if (!json_is_string(v)) {
            strbuf_addf(err, "'%s' must be a string", name);
            return false;
        }
        json_int_t max = num(schema, "maxLength");
        size_t chars = utf8_chars(json_string_value(v), json_string_length(v));
        if (chars < (size_t)num(schema, "minLength") ||
            (max && chars > (size_t)max)) {
            strbuf_addf(err, "'%s' must be %lld to %lld characters long", name,
                (long long)num(schema, "minLength"), (long long)max);
            return false;
        }
        json_t *en = json_object_get(schema, "enum");
        if (en) {
            size_t i;
            json_t *x;
            json_array_foreach(en, i, x) if (json_equal(x, v)) return true;
            strbuf_addf(err, "'%s' must be one of", name);
            json_array_foreach(en, i, x) strbuf_addf(
                err, "%s'%s'", i ? ", " : " ", json_string_value(x));
            return false;
        }
        return true;
    }
    if (!strcmp(type, "integer")) {
        json_t *min = json_object_get(schema, "minimum"),
               *max = json_object_get(schema, "maximum");
        if (!json_is_integer(v) ||
            (min && json_integer_value(v) < json_integer_value(min)) ||
            (max && json_integer_value(v) > json_integer_value(max))) {
            strbuf_addf(err, "'%s' must be an integer from %lld to %lld", name,
                (long long)json_integer_value(min),
                (long long)json_integer_value(max));
            return false;
        }
        return true;
    }
    if (!strcmp(type, "boolean")) {
        if (!json_is_boolean(v)) {
            strbuf_addf(err, "'%s' must be true or false", name);
            return false;
        }
        return true;
    }
    if (!strcmp(type, "array")) {
        size_t n = json_array_size(v);
        json_int_t max = num(schema, "maxItems");
        if (!json_is_array(v) || n < (size_t)num(schema, "minItems") ||
            (max && n > (size_t)max)) {
            strbuf_addf(err, "'%s' must be an array of %lld to %lld items",
                name, (long long)num(schema, "minItems"), (long long)max);
            return false;
        }
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x)
        {
            char *sub = xasprintf("%s[%zu]", name, i);
            bool ok =
                check_value(json_object_get(schema, "items"), x, sub, err);
            free(sub);
            if (!ok)
                return false;
        }
        return true;
    }
    if (!strcmp(type, "object")) {
        if (!json_is_object(v)) {
            strbuf_addf(err, "'%s' must be an object", name);
            return false;
        }
        json_t *props = json_object_get(schema, "properties");
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x)
        {
            json_t *ps = json_object_get(props, k);
            if (!ps) {
                strbuf_addf(err, "unknown argument '%s%s%s'", *name ? name : "",
                    *name ? "." : "", k);
                return false;
            }
            char *sub = *name ? xasprintf("%s.%s", name, k) : xstrdup(k);
            bool ok = check_value(ps, x, sub, err);
            free(sub);
            if (!ok)
                return false;
        }
        size_t i;
        json_t *r;
        json_array_foreach(json_object_get(schema, "required"), i, r)
        {
            if (!json_object_get(v, json_string_value(r))) {
                strbuf_addf(err, "missing argument '%s%s%s'", *name ? name : "",
                    *name ? "." : "", json_string_value(r));
                return false;
            }
        }
        return true;
    }
    return true;
}

typedef json_t *tool_fn(struct mcp_session *s, const char *self, json_t *args);

#define PATTERNS                                                               \
    "\"patterns\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":64,"         \
    "\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096},"      \
    "\"description\":\"repository-relative paths or gitignore-style globs "    \
    "(** supported)\"}"
#define TTL                                                                    \
    "\"ttlSeconds\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":86400,"    \
    "\"description\":\"how long it lasts, in seconds\"}"
#define REASON                                                                 \
    "\"reason\":{\"type\":\"string\",\"maxLength\":512,"                       \
    "\"description\":\"why, shown to whoever is refused\"}"

/* Output schemas: what structuredContent holds. The daemon's objects are
 * described by the members the tools and their readers rely on; members
 * added later are allowed. */
#define STR "{\"type\":\"string\"}"
#define INT "{\"type\":\"integer\"}"
#define NUM "{\"type\":\"number\"}"
#define BOOL "{\"type\":\"boolean\"}"
#define STR_OR_NULL "{\"type\":[\"string\",\"null\"]}"
#define STRS "{\"type\":\"array\",\"items\":" STR "}"
#define ARRAY(items) "{\"type\":\"array\",\"items\":" items "}"
#define OBJECT(props, required)                                                \
    "{\"type\":\"object\",\"properties\":{" props "},\"required\":[" required  \
    "]}"

#define OUT_FILE                                                               \
    OBJECT("\"path\":" STR ",\"status\":" STR ",\"newPath\":" STR, "\"path\"")
#define OUT_FILES ARRAY(OUT_FILE)
#define OUT_LOCK                                                               \
    OBJECT("\"token\":" INT ",\"pattern\":" STR ",\"holder\":" STR             \
           ",\"mode\":{\"enum\":[\"exclusive\",\"shared\"]},"                  \
           "\"kind\":{\"enum\":[\"lock\",\"claim\"]},\"expiresInMs\":" INT     \
           ",\"reason\":" STR ",\"contestedBy\":" STR,                         \
        "\"token\",\"pattern\",\"holder\",\"mode\",\"kind\"")
#define OUT_AGENT                                                              \
    OBJECT("\"id\":" STR ",\"kind\":{\"enum\":[\"agent\",\"human\"]},"         \
           "\"status\":" STR ",\"client\":" STR ",\"branch\":" STR             \
           ",\"worktree\":" STR ",\"files\":" OUT_FILES,                       \
        "\"id\",\"kind\",\"status\"")
#define OUT_PAIR                                                               \
    OBJECT("\"a\":" STR ",\"b\":" STR                                          \
           ",\"level\":{\"enum\":[\"clear\",\"traffic\",\"resolution\"]},"     \
           "\"risk\":" NUM ",\"hold\":" STR ",\"steer\":" STR,                 \
        "\"a\",\"b\",\"level\",\"risk\"")
#define OUT_INTENT                                                             \
    OBJECT("\"id\":" INT ",\"agent\":" STR ",\"files\":" STRS                  \
           ",\"summary\":" STR ",\"createdAt\":" INT ",\"expiresAt\":" INT,    \
        "\"id\",\"agent\",\"files\"")
#define OUT_MESSAGE                                                            \
    OBJECT("\"id\":" INT ",\"from\":" STR ",\"to\":" STR ",\"type\":" STR      \
           ",\"body\":" STR ",\"at\":" INT,                                    \
        "\"id\",\"from\",\"to\",\"type\",\"body\"")
#define OUT_CHANGE                                                             \
    OBJECT("\"path\":" STR ",\"status\":{\"enum\":[\"added\",\"modified\","    \
           "\"deleted\",\"mode\",\"typechange\"]}",                            \
        "\"path\",\"status\"")
#define OUT_NEAR_AGENT                                                         \
    OBJECT("\"agent\":" STR ",\"file\":" OUT_FILE, "\"agent\",\"file\"")
#define OUT_CONFLICT                                                           \
    OBJECT("\"shape\":" STR ",\"with\":" STR ",\"file\":" STR                  \
           ",\"text\":" STR,                                                   \
        "\"shape\",\"with\",\"file\",\"text\"")
#define OUT_SIMILAR                                                            \
    OBJECT("\"agent\":" STR ",\"summary\":" STR ",\"intent\":" INT             \
           ",\"score\":" NUM,                                                  \
        "\"agent\",\"summary\",\"intent\",\"score\"")
#define OUT_PATTERN_RESULT                                                     \
    OBJECT("\"pattern\":" STR ",\"status\":" INT                               \
           ",\"reply\":{\"type\":[\"object\",\"null\"]}",                      \
        "\"pattern\",\"status\",\"reply\"")

#define OUT_AGENTS ARRAY(OUT_AGENT)
#define OUT_PAIRS ARRAY(OUT_PAIR)
#define OUT_LOCKS ARRAY(OUT_LOCK)
#define OUT_INTENTS ARRAY(OUT_INTENT)
#define OUT_NEAR_AGENTS ARRAY(OUT_NEAR_AGENT)
#define OUT_CONFLICTS ARRAY(OUT_CONFLICT)
#define OUT_CHANGES ARRAY(OUT_CHANGE)
#define OUT_MESSAGES ARRAY(OUT_MESSAGE)
#define OUT_PATTERN_RESULTS ARRAY(OUT_PATTERN_RESULT)

#define OUT_STATUS                                                             \
    OBJECT("\"agent\":" STR ",\"status\":{\"type\":\"object\"}"                \
           ",\"agents\":" OUT_AGENTS ",\"advisories\":" OUT_PAIRS              \
           ",\"locks\":" OUT_LOCKS ",\"intents\":" OUT_INTENTS,                \
        "\"agent\",\"status\",\"agents\",\"advisories\",\"locks\"")
#define OUT_NEAR                                                               \
    OBJECT("\"path\":" STR ",\"agents\":" OUT_NEAR_AGENTS                      \
           ",\"locks\":" OUT_LOCKS ",\"advisories\":" OUT_PAIRS                \
           ",\"intents\":" OUT_INTENTS,                                        \
        "\"path\",\"agents\",\"locks\",\"advisories\",\"intents\"")
#define OUT_INTENT_DECLARED                                                    \
    OBJECT("\"id\":" INT ",\"agent\":" STR ",\"files\":" STRS                  \
           ",\"summary\":" STR ",\"expiresAt\":" INT                           \
           ",\"conflicts\":" OUT_CONFLICTS ",\"similar\":" OUT_SIMILAR,        \
        "\"id\",\"agent\",\"files\",\"conflicts\"")
/* lock, claim, contest, release: one result per pattern. */
#define OUT_EACH_PATTERN                                                       \
    OBJECT("\"results\":" OUT_PATTERN_RESULTS, "\"results\"")
#define OUT_ADVISORIES                                                         \
    OBJECT("\"agent\":" STR ",\"advisories\":" OUT_PAIRS,                      \
        "\"agent\",\"advisories\"")
#define OUT_SENT OBJECT("\"delivered\":" INT, "\"delivered\"")
#define OUT_INBOX OBJECT("\"messages\":" OUT_MESSAGES, "\"messages\"")
/* the --json documents of airspace commit and airspace land */
#define OUT_COMMIT                                                             \
    OBJECT("\"commit\":{\"type\":\"string\",\"pattern\":"                      \
           "\"^[0-9a-f]{40}([0-9a-f]{24})?$\"},\"branch\":" STR_OR_NULL        \
           ",\"parent\":" STR_OR_NULL ",\"files\":" OUT_CHANGES                \
           ",\"retries\":" INT ",\"index_updated\":" BOOL                      \
           ",\"index_note\":" STR ",\"agent\":" STR_OR_NULL                    \
           ",\"subject\":" STR,                                                \
        "\"commit\",\"branch\",\"parent\",\"files\",\"retries\","              \
        "\"index_updated\",\"agent\",\"subject\"")
#define OUT_LAND                                                               \
    OBJECT(                                                                    \
        "\"landed\":" BOOL ",\"dry_run\":" BOOL ",\"target\":" STR             \
        ",\"from\":" STR ",\"agent\":" STR_OR_NULL ",\"commit\":" STR_OR_NULL  \
        ",\"parent\":" STR ",\"fast_forward\":" BOOL ",\"up_to_date\":" BOOL   \
        ",\"files\":" STRS ",\"changed\":" OUT_CHANGES ",\"conflicts\":" STRS  \
        ",\"out_of_scope\":" STRS ",\"worktree\":" STR                         \
        ",\"worktree_updated\":" BOOL ",\"retries\":" INT,                     \
        "\"landed\",\"dry_run\",\"target\",\"from\",\"agent\",\"commit\","     \
        "\"parent\",\"fast_forward\",\"up_to_date\",\"files\",\"changed\","    \
        "\"conflicts\",\"out_of_scope\",\"worktree_updated\",\"retries\"")

/* Annotations (hints for the client; every tool also sends a heartbeat and
 * may register the session's agent, which they do not count). */
enum {
    T_READ_ONLY = 1 << 0,   /* changes nothing */
    T_DESTRUCTIVE = 1 << 1, /* may change or remove what exists */
    T_IDEMPOTENT = 1 << 2,  /* the same call again changes nothing more */
};

static const struct tool {
    const char *name, *title, *description, *schema, *output;
    unsigned hints;
    tool_fn *run;                /* or: */
    const struct mcp_call *call; /* one request and its answer */
} tools[] = {
    { "status", "Crew status",
        "Crew update: every agent flying in this repository (with the files "
        "it changed), the live traffic and resolution advisories, locks and "
        "declared intents.",
        "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":"
        "false}",
        OUT_STATUS, T_READ_ONLY | T_IDEMPOTENT, mcp_tool_status },
    { "near", "Who is near a file",
        "Who is near a file or a line range: other agents whose changes "
        "touch it, locks covering it, declared intents and advisories about "
        "it. Call it before editing a file.",
        "{\"type\":\"object\",\"properties\":{"
        "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
        "\"description\":\"file path, repository-relative or absolute\"},"
        "\"startLine\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":"
        "100000000,\"description\":\"first line of the range (1-based)\"},"
        "\"endLine\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":"
        "100000000,\"description\":\"last line of the range (inclusive)\"}},"
        "\"required\":[\"path\"],\"additionalProperties\":false}",
        OUT_NEAR, T_READ_ONLY | T_IDEMPOTENT, mcp_tool_near },
    { "intent", "Declare an intent",
        "Declare the files (paths or globs) you are about to work on, with "
        "optional line regions and a one-line summary, so others are warned "
        "before they collide with you.",
        "{\"type\":\"object\",\"properties\":{"
        "\"files\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":256,"
        "\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096},"
        "\"description\":\"paths or gitignore-style globs\"},"
        "\"regions\":{\"type\":\"array\",\"maxItems\":256,\"items\":{"
        "\"type\":\"object\",\"properties\":{"
        "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096},"
        "\"startLine\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":"
        "100000000},"
        "\"endLine\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":"
        "100000000}},"
        "\"required\":[\"path\",\"startLine\",\"endLine\"],"
        "\"additionalProperties\":false},"
        "\"description\":\"line ranges you will change\"},"
        "\"summary\":{\"type\":\"string\",\"maxLength\":512,"
        "\"description\":\"what you are about to do, in one line\"}," TTL
        "},\"required\":[\"files\"],\"additionalProperties\":false}",
        OUT_INTENT_DECLARED, 0, NULL, &mcp_call_intent },
    { "lock", "Lock files",
        "Lock paths or globs so nobody else edits them (exclusive unless "
        "mode is shared). Refused when another agent holds them; the "
        "holder is named.",
        "{\"type\":\"object\",\"properties\":{" PATTERNS ","
        "\"mode\":{\"type\":\"string\",\"enum\":[\"exclusive\",\"shared\"]}"
        "," TTL "," REASON "},\"required\":[\"patterns\"],"
        "\"additionalProperties\":false}",
        OUT_EACH_PATTERN, T_IDEMPOTENT, mcp_tool_lock },
    { "claim", "Claim files",
        "Claim paths or globs: like a lock, but another agent may contest "
        "it and, after the contest timeout, take it over.",
        "{\"type\":\"object\",\"properties\":{" PATTERNS "," TTL "," REASON
        "},\"required\":[\"patterns\"],\"additionalProperties\":false}",
        OUT_EACH_PATTERN, T_IDEMPOTENT, mcp_tool_claim },
    { "contest", "Contest a claim",
        "Contest another agent's claim; its holder is told. After the "
        "contest timeout, 'release' with force takes it over.",
        "{\"type\":\"object\",\"properties\":{" PATTERNS
        "},\"required\":[\"patterns\"],\"additionalProperties\":false}",
        OUT_EACH_PATTERN, T_IDEMPOTENT, mcp_tool_contest },
    { "release", "Release locks and claims",
        "Release locks or claims you hold; with force, take away a claim "
        "you contested once its contest timeout has passed.",
        "{\"type\":\"object\",\"properties\":{" PATTERNS ","
        "\"force\":{\"type\":\"boolean\",\"description\":\"force-release a "
        "contested claim\"}},\"required\":[\"patterns\"],"
        "\"additionalProperties\":false}",
        OUT_EACH_PATTERN, T_IDEMPOTENT, mcp_tool_release },
    { "advisories", "Your advisories",
        "The traffic and resolution advisories involving you, with the "
        "contested files and, for a resolution, who holds and who steers.",
        "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":"
        "false}",
        OUT_ADVISORIES, T_READ_ONLY | T_IDEMPOTENT, NULL,
        &mcp_call_advisories },
    { "send_message", "Send a message",
        "Send a message to another agent (by id or label) or to everyone "
        "('all').",
        "{\"type\":\"object\",\"properties\":{"
        "\"to\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":128,"
        "\"description\":\"agent id, label, or 'all'\"},"
        "\"type\":{\"type\":\"string\",\"enum\":[\"info\",\"question\","
        "\"claim\",\"release\",\"delegate\",\"handoff\",\"ack\","
        "\"block\"],\"description\":\"kind of message (default info)\"},"
        "\"body\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":8192}},"
        "\"required\":[\"to\",\"body\"],\"additionalProperties\":false}",
        OUT_SENT, 0, NULL, &mcp_call_message },
    { "commit", "Commit your files",
        "Commit only your own files, without touching .git/index.lock, so "
        "agents sharing a working tree never block each other: the given "
        "paths (files, or directories for the changed files under them), "
        "else your changes (every change of a worktree only you use; in a "
        "shared working tree, the files you reported editing). Refused "
        "when another agent holds one of them (unless force) or committed "
        "it meanwhile.",
        "{\"type\":\"object\",\"properties\":{"
        "\"message\":{\"type\":\"string\",\"minLength\":1,"
        "\"maxLength\":65536,\"description\":\"the commit message\"},"
        "\"paths\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":1024,"
        "\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":"
        "4096},\"description\":\"repository-relative (or absolute) paths "
        "to commit; default: your own changes\"},"
        "\"force\":{\"type\":\"boolean\",\"description\":\"commit paths "
        "another agent holds\"}},"
        "\"required\":[\"message\"],\"additionalProperties\":false}",
        OUT_COMMIT, 0, mcp_tool_commit },
    { "land", "Land your branch",
        "Land your branch (your worktree's airspace/NAME) on the integration "
        "branch, or into: refused when the merge conflicts or when it "
        "changes files you hold no lock, claim or intent on (unless "
        "force). A fast-forward when it can be, else a merge commit; the "
        "target's checked-out worktree follows.",
        "{\"type\":\"object\",\"properties\":{"
        "\"into\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":"
        "256,\"description\":\"the branch to land on (default: the "
        "integration branch)\"},"
        "\"message\":{\"type\":\"string\",\"minLength\":1,"
        "\"maxLength\":65536,\"description\":\"the merge commit's message "
        "(default: Land SOURCE into TARGET)\"},"
        "\"force\":{\"type\":\"boolean\",\"description\":\"land files "
        "outside your locks, claims and intents\"},"
        "\"dry_run\":{\"type\":\"boolean\",\"description\":\"every "
        "check, nothing landed\"}},"
        "\"additionalProperties\":false}",
        OUT_LAND, 0, mcp_tool_land },
    { "inbox", "Read your inbox", "Read the messages other agents sent you.",
        "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":"
        "false}",
        OUT_INBOX, T_IDEMPOTENT, NULL, &mcp_call_inbox },
};

#define NTOOLS (sizeof(tools) / sizeof(tools[0]))

static json_t *
parse_schema(const char *name, const char *text)
{
    json_error_t je;
    json_t *s = json_loads(text, JSON_PRESERVE_ORDER, &je);
    if (!s) {
        fprintf(
            stderr, "airspace mcp: bad schema for '%s': %s\n", name, je.text);
        abort();
    }
    return s;
}

static json_t *
schema_of(const struct tool *t)
{
    return parse_schema(t->name, t->schema);
}

json_t *
mcp_tools_list(const char *version)
{
    /* title and outputSchema came with 2025-06-18, annotations with
     * 2025-03-26; an older client is not told to expect them */
    bool v0618 = strcmp(version, "2025-06-18") >= 0,
         v0326 = strcmp(version, "2025-03-26") >= 0;
    json_t *list = json_array();
    for (size_t i = 0; i < NTOOLS; i++) {
        const struct tool *t = &tools[i];
        json_t *o = json_pack("{s:s}", "name", t->name);
        if (v0618)
            json_object_set_new(o, "title", json_string(t->title));
        json_object_set_new(o, "description", json_string(t->description));
        json_object_set_new(o, "inputSchema", schema_of(t));
        if (v0618)
            json_object_set_new(
                o, "outputSchema", parse_schema(t->name, t->output));
        if (v0326)
            json_object_set_new(o, "annotations",
                json_pack("{s:s, s:b, s:b, s:b, s:b}", "title", t->title,
                    "readOnlyHint", (t->hints & T_READ_ONLY) != 0,
                    "destructiveHint", (t->hints & T_DESTRUCTIVE) != 0,
                    "idempotentHint", (t->hints & T_IDEMPOTENT) != 0,
                    "openWorldHint", 0));
        json_array_append_new(list, o);
    }
    return list;
}

bool
mcp_tools_has(const char *name)
{
    for (size_t i = 0; i < NTOOLS; i++)
        if (!strcmp(tools[i].name, name))
            return true;
    return false;
}

json_t *
mcp_tools_call(struct mcp_session *s, const char *name, json_t *args)
{
    for (size_t i = 0; i < NTOOLS; i++) {
        if (strcmp(tools[i].name, name))
            continue;
        json_t *schema = schema_of(&tools[i]);
        json_t *empty = args ? NULL : json_object();
        struct strbuf err = { 0 };
        json_t *r = NULL;
        const char *self;
        if (!check_value(schema, args ? args : empty, "", &err)) {
            strbuf_addf(&err, " (tool '%s')", name);
            r = mcp_result(s, true, &err, NULL);
        } else if ((self = mcp_me(s, &r))) {
            json_t *a = args ? args : empty;
            r = tools[i].call ? mcp_call_run(s, self, a, tools[i].call)
                              : tools[i].run(s, self, a);
        }
        json_decref(schema);
        if (empty)
            json_decref(empty);
        return r;
    }
    return mcp_fail(s, "unknown tool '%s'", name);
}

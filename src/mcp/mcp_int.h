/*
 * mcp_int.h - what the parts of the MCP server share (internal to
 * src/mcp): replies an agent can read, one daemon request with its
 * failure as a tool error, the session's identity (mcp_session.c), and
 * the tools themselves (mcp_tools.c) that the catalog (mcp_catalog.c)
 * lists, checks the arguments of and runs.
 */
#ifndef AIRSPACE_MCP_MCP_INT_H
#define AIRSPACE_MCP_MCP_INT_H

#include <stdbool.h>

#include <jansson.h>

#include "client/api.h"
#include "mcp/mcp_tools.h"
#include "util/strbuf.h"

/* A string member, or "". */
static inline const char *
str(json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v ? v : "";
}

/* An integer member, or 0. */
static inline json_int_t
num(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

/* ---- mcp_session.c ---- */

/* A CallToolResult; takes t's text and structured (may be NULL). */
json_t *mcp_result(
    struct mcp_session *s, bool is_error, struct strbuf *t, json_t *structured);

/* A tool error with a formatted text. */
json_t *mcp_fail(struct mcp_session *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* One request (r released): 0 with *status and *reply, or -1 with a tool
 * error in *err when the daemon cannot be reached. */
int mcp_request(struct mcp_session *s, struct api_req r, long *status,
    json_t **reply, json_t **err);

/* A new tool error for a refused request (what: "sending a message"):
 * "not available" when the daemon lacks the route (a 404 with code
 * no_code, when not NULL, says so too). */
json_t *mcp_refused(struct mcp_session *s, const char *what,
    const char *no_code, long status, json_t *reply);

/* The session's agent (registered on first use; a heartbeat each call),
 * or NULL with a tool error in *err. */
const char *mcp_me(struct mcp_session *s, json_t **err);

/* The git toplevel of the current directory, or NULL. */
const char *mcp_toplevel(struct mcp_session *s);

/* ---- mcp_tools.c: one function per tool (args checked against its
 * schema; borrowed), run for the session's agent self (mcp_me()), each
 * returning a CallToolResult ---- */

json_t *mcp_tool_status(struct mcp_session *s, const char *self, json_t *args);
json_t *mcp_tool_near(struct mcp_session *s, const char *self, json_t *args);
json_t *mcp_tool_lock(struct mcp_session *s, const char *self, json_t *args);
json_t *mcp_tool_claim(struct mcp_session *s, const char *self, json_t *args);
json_t *mcp_tool_contest(struct mcp_session *s, const char *self, json_t *args);
json_t *mcp_tool_release(struct mcp_session *s, const char *self, json_t *args);
json_t *mcp_tool_commit(struct mcp_session *s, const char *self, json_t *args);
json_t *mcp_tool_land(struct mcp_session *s, const char *self, json_t *args);

/* A tool that is one request and its answer. */
struct mcp_call {
    const char *what;    /* what a refusal calls it: "sending a message" */
    bool only_200;       /* an answer is 200, not any 2xx */
    const char *no_code; /* a 404 with this code: the route is missing */
    struct api_req (*req)(const char *self, json_t *args);
    /* the text of an answer, and its structuredContent (new reference) */
    json_t *(*answer)(
        struct strbuf *t, const char *self, json_t *args, json_t *reply);
};

/* Run tool c: the request, then the answer, a refusal, or why the daemon
 * cannot be reached. */
json_t *mcp_call_run(struct mcp_session *s, const char *self, json_t *args,
    const struct mcp_call *c);

extern const struct mcp_call mcp_call_intent, mcp_call_advisories,
    mcp_call_message, mcp_call_inbox;

#endif

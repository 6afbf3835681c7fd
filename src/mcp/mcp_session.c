/*
 * mcp_session.c - the MCP server's side of the daemon: connecting on first
 * use, one request with its failure as a tool error, the session's agent
 * (the client session's, or one registered here and exited at the end),
 * and the replies an agent reads.
 */
#include "mcp/mcp_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/session.h"
#include "git/init_git.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* ---- text replies ---- */

/* A CallToolResult; takes t's text and structured (may be NULL). */
json_t *
mcp_result(
    struct mcp_session *s, bool is_error, struct strbuf *t, json_t *structured)
{
    while (t->len && t->s[t->len - 1] == '\n')
        t->s[--t->len] = '\0';
    json_t *r = json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text",
        "text", t->s ? t->s : "", "isError", is_error);
    free(t->s);
    memset(t, 0, sizeof(*t));
    if (structured && json_is_object(structured) && s->structured)
        json_object_set_new(r, "structuredContent", structured);
    else if (structured)
        json_decref(structured);
    return r;
}

json_t *
mcp_fail(struct mcp_session *s, const char *fmt, ...)
{
    struct strbuf t = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&t, fmt, ap);
    va_end(ap);
    return mcp_result(s, true, &t, NULL);
}

/* ---- the daemon ---- */

static int
connect_daemon(struct mcp_session *s, struct as_err *e)
{
    if (s->connected)
        return 0;
    int rc = client_open(&s->cl, s->repo, true, e);
    if (rc) {
        client_close(&s->cl);
        return rc;
    }
    s->cl.timeout_ms = 10000;
    s->connected = true;
    return 0;
}

/* Whether a reply says the daemon has no such route (a newer feature):
 * also a 404 with code no_code (not NULL). */
static bool
no_route(long status, json_t *reply, const char *no_code)
{
    const char *code = json_string_value(
        json_object_get(json_object_get(reply, "error"), "code"));
    return status == 405 ||
           (status == 404 && (!code || !strcmp(code, "unknown_route") ||
                                 (no_code && !strcmp(code, no_code))));
}

/*
 * One request. Returns 0 with *status and *reply, or a tool error result in
 * *err when the daemon cannot be reached. A daemon that went away during
 * the session (stopped, crashed, its socket gone) is started again and
 * the request sent to it, once: the request never left, so sending it
 * again does nothing twice. One that does not answer in time is not: it
 * may have acted on it.
 */
int
mcp_request(struct mcp_session *s, struct api_req r, long *status,
    json_t **reply, json_t **err)
{
    struct as_err e;
    int rc = 0;
    *reply = NULL;
    for (int attempt = 0; attempt < 2; attempt++) {
        if ((rc = connect_daemon(s, &e)))
            break;
        rc =
            client_request(&s->cl, r.method, r.path, r.body, status, reply, &e);
        if (!rc || !s->cl.unsent || attempt)
            break;
        client_close(&s->cl);
        s->connected = false;
    }
    api_req_release(&r);
    if (rc)
        *err = mcp_fail(s, "the airspace daemon cannot be reached: %s", e.msg);
    return rc ? -1 : 0;
}

/* A new tool error for a refused request. */
json_t *
mcp_refused(struct mcp_session *s, const char *what, const char *no_code,
    long status, json_t *reply)
{
    if (no_route(status, reply, no_code))
        return mcp_fail(s,
            "%s is not available: this airspace daemon does not offer it "
            "(HTTP %ld)",
            what, status);
    return mcp_fail(s, "%s refused (HTTP %ld): %s", what, status,
        client_error_message(reply));
}

static char *
sanitize_client(const char *name)
{
    char buf[33];
    size_t n = 0;
    for (const char *p = name; p && *p && n < sizeof(buf) - 1; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        buf[n++] = ok ? c : '-';
    }
    buf[n] = '\0';
    return xstrdup(n ? buf : "mcp");
}

const char *
mcp_toplevel(struct mcp_session *s)
{
    if (!s->toplevel) {
        struct init_git g;
        struct as_err e;
        if (!init_git_resolve(&g, &e)) {
            s->toplevel = g.toplevel;
            g.toplevel = NULL;
            init_git_release(&g);
        }
    }
    return s->toplevel;
}

/* The airspace directory of the current worktree's repository, or NULL. */
static char *
airspace_dir(struct mcp_session *s)
{
    struct init_git g;
    struct as_err e;
    if (init_git_resolve(&g, &e))
        return NULL;
    char *dir = xasprintf("%s/airspace", g.common_dir);
    if (!s->toplevel) {
        s->toplevel = g.toplevel;
        g.toplevel = NULL;
    }
    init_git_release(&g);
    return dir;
}

/*
 * The agent of the client session that started this server (cli/session.h):
 * the one its hooks registered. With Claude Code's session id and no
 * record yet (a tool call before the session's first hook), the id the
 * hooks will take, recorded now. NULL: not in a session.
 */
static char *
session_of(struct mcp_session *s, bool *ours)
{
    char *dir = airspace_dir(s);
    char *id = session_lookup(dir);
    *ours = false;
    const char *cc = getenv("CLAUDE_CODE_SESSION_ID");
    if (!id && dir && cc && *cc) {
        id = session_agent(dir, "cc", cc, s->toplevel, NULL);
        *ours = true; /* registered below, as the hooks would */
    }
    free(dir);
    return id;
}

/*
 * Make sure the session has an agent: the one it was given, or a new one
 * registered with the daemon (client from client_name, worktree the git
 * toplevel of the current directory). Returns 0, or AS_EIO with e filled.
 */
static int
mcp_session_agent(struct mcp_session *s, struct as_err *e)
{
    if (s->agent && s->follows) {
        /* Codex's and Gemini CLI's /resume go on as another session in
         * the same process, with no hook: its records say so at the
         * next hook, and this server follows them */
        if (!s->sdir)
            s->sdir = airspace_dir(s);
        char *now = session_lookup(s->sdir);
        if (now && strcmp(now, s->agent)) {
            free(s->agent);
            s->agent = now;
            now = NULL;
            s->registered = false; /* the session's hooks registered it */
            if (s->tokens)         /* the locks taken here were the other's */
                json_decref(s->tokens);
            s->tokens = NULL;
        }
        free(now);
    }
    if (s->agent)
        return 0;
    int rc = connect_daemon(s, e);
    if (rc)
        return rc;
    bool ours;
    char *sid = session_of(s, &ours);
    if (sid) /* the session's agent, as its records say from now on */
        s->follows = true;
    if (sid && !ours) {
        s->agent = sid; /* the session's hooks registered it */
        return 0;
    }
    if (!sid) {
        /* no session to name it (a client without airspace's hooks): in
         * a worktree made by `agent new NAME` it is NAME, as a hooked
         * session there would be, unless a live session is NAME */
        char *dir = airspace_dir(s);
        sid = session_claim_worktree(dir, mcp_toplevel(s));
        free(dir);
    }
    char *client = sanitize_client(s->client_name);
    json_t *body =
        json_pack("{s:s}", "client", sid && ours ? "claude-code" : client);
    free(client);
    if (sid)
        json_object_set_new(body, "id", json_string(sid));
    json_object_set_new(body, "kind", json_string("agent"));
    free(sid);
    if (mcp_toplevel(s))
        json_object_set_new(body, "worktree", json_string(s->toplevel));
    long status;
    json_t *reply = NULL;
    rc = client_call(&s->cl, api_register(body), &status, &reply, e);
    const char *id = json_string_value(json_object_get(reply, "id"));
    if (!rc && status == 200 && id) {
        s->agent = xstrdup(id);
        /* A worktree agent taken over (a person's, say) stays when we go. */
        s->registered = json_is_true(json_object_get(reply, "created"));
    } else if (!rc) {
        rc = as_errorf(e, AS_EIO, "registering with the daemon: %s",
            client_error_message(reply));
    }
    if (reply)
        json_decref(reply);
    return rc;
}

void
mcp_session_release(struct mcp_session *s)
{
    if (s->connected && s->agent && s->registered) {
        long status;
        json_t *reply = NULL;
        struct as_err e;
        s->cl.timeout_ms = 2000;
        client_call(&s->cl, api_exit(s->agent), &status, &reply, &e);
        if (reply)
            json_decref(reply);
    }
    if (s->tokens)
        json_decref(s->tokens);
    s->tokens = NULL;
    if (s->connected)
        client_close(&s->cl);
    free(s->agent);
    free(s->client_name);
    free(s->toplevel);
    free(s->sdir);
    memset(s, 0, sizeof(*s));
}

/* The session's agent, or a tool error in *err. */
const char *
mcp_me(struct mcp_session *s, json_t **err)
{
    struct as_err e;
    if (mcp_session_agent(s, &e)) {
        *err = mcp_fail(s, "no airspace identity: %s", e.msg);
        return NULL;
    }
    /* an identity given up front has not connected yet */
    if (connect_daemon(s, &e)) {
        *err = mcp_fail(s, "the daemon cannot be reached: %s", e.msg);
        return NULL;
    }
    long status;
    json_t *reply = NULL;
    client_call(&s->cl, api_heartbeat(s->agent), &status, &reply, &e);
    if (reply)
        json_decref(reply);
    return s->agent;
}

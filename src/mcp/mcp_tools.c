/*
 * mcp_tools.c - the MCP tools: argument checking against each tool's input
 * schema, daemon requests, and replies an agent can read.
 */
#include "mcp/mcp_tools.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "git/init_git.h"
#include "client/session.h"
#include "util/glob.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* ---- text replies ---- */

/* A CallToolResult; takes t's text and structured (may be NULL). */
static json_t *
result(
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

__attribute__((format(printf, 2, 3))) static json_t *
fail(struct mcp_session *s, const char *fmt, ...)
{
    struct strbuf t = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&t, fmt, ap);
    va_end(ap);
    return result(s, true, &t, NULL);
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

static const char *
reply_code(json_t *reply)
{
    return json_string_value(
        json_object_get(json_object_get(reply, "error"), "code"));
}

/* Whether a reply says the daemon has no such route (a newer feature). */
static bool
no_route(long status, json_t *reply)
{
    const char *code = reply_code(reply);
    return status == 405 ||
           (status == 404 && (!code || !strcmp(code, "unknown_route")));
}

/*
 * One request. Returns 0 with *status and *reply, or a tool error result in
 * *err when the daemon cannot be reached.
 */
static int
request(struct mcp_session *s, const char *method, const char *path,
    json_t *body, long *status, json_t **reply, json_t **err)
{
    struct as_err e;
    *reply = NULL;
    if (connect_daemon(s, &e) ||
        client_request(&s->cl, method, path, body, status, reply, &e)) {
        *err = fail(s, "the airspace daemon cannot be reached: %s", e.msg);
        return -1;
    }
    return 0;
}

/* A new tool error for a refused request. */
static json_t *
refused(struct mcp_session *s, const char *what, long status, json_t *reply)
{
    if (no_route(status, reply))
        return fail(s,
            "%s is not available: this airspace daemon does not offer it "
            "(HTTP %ld)",
            what, status);
    return fail(s, "%s refused (HTTP %ld): %s", what, status,
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

static const char *
toplevel(struct mcp_session *s)
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
        id = session_agent(dir, "cc", cc, s->toplevel);
        *ours = true; /* registered below, as the hooks would */
    }
    free(dir);
    return id;
}

int
mcp_session_agent(struct mcp_session *s, struct as_err *e)
{
    if (s->agent)
        return 0;
    int rc = connect_daemon(s, e);
    if (rc)
        return rc;
    bool ours;
    char *sid = session_of(s, &ours);
    if (sid && !ours) {
        s->agent = sid; /* the session's hooks registered it */
        return 0;
    }
    char *client = sanitize_client(s->client_name);
    json_t *body = json_pack("{s:s}", "client", sid ? "claude-code" : client);
    free(client);
    if (sid)
        json_object_set_new(body, "id", json_string(sid));
    json_object_set_new(body, "kind", json_string("agent"));
    free(sid);
    if (toplevel(s))
        json_object_set_new(body, "worktree", json_string(s->toplevel));
    long status;
    json_t *reply = NULL;
    rc = client_request(&s->cl, "POST", "/v1/agents", body, &status, &reply, e);
    json_decref(body);
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
        char *path = xasprintf("/v1/agents/%s/exit", s->agent);
        long status;
        json_t *reply = NULL;
        struct as_err e;
        s->cl.timeout_ms = 2000;
        client_request(&s->cl, "POST", path, NULL, &status, &reply, &e);
        if (reply)
            json_decref(reply);
        free(path);
    }
    if (s->tokens)
        json_decref(s->tokens);
    s->tokens = NULL;
    if (s->connected)
        client_close(&s->cl);
    free(s->agent);
    free(s->client_name);
    free(s->toplevel);
    memset(s, 0, sizeof(*s));
}

/* The session's agent, or a tool error in *err. */
static const char *
me(struct mcp_session *s, json_t **err)
{
    struct as_err e;
    if (mcp_session_agent(s, &e)) {
        *err = fail(s, "no airspace identity: %s", e.msg);
        return NULL;
    }
    /* an identity given up front has not connected yet */
    if (connect_daemon(s, &e)) {
        *err = fail(s, "the daemon cannot be reached: %s", e.msg);
        return NULL;
    }
    char *path = xasprintf("/v1/agents/%s/heartbeat", s->agent);
    long status;
    json_t *reply = NULL;
    client_request(&s->cl, "POST", path, NULL, &status, &reply, &e);
    if (reply)
        json_decref(reply);
    free(path);
    return s->agent;
}

/* ---- formatting ---- */

static const char *
str(json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v ? v : "";
}

static json_int_t
num(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

static void
add_lock(struct strbuf *t, json_t *l)
{
    const char *reason = str(l, "reason"), *by = str(l, "contestedBy");
    strbuf_addf(t, "  %s held by %s (%s %s, token %lld, %lld s left)%s%s%s%s\n",
        str(l, "pattern"), str(l, "holder"), str(l, "mode"), str(l, "kind"),
        (long long)num(l, "token"), (long long)num(l, "expiresInMs") / 1000,
        *by ? ", contested by " : "", by, *reason ? ": " : "", reason);
}

static void
add_agent(struct strbuf *t, json_t *a, const char *self)
{
    const char *id = str(a, "id");
    strbuf_addf(t, "  %s%s [%s %s, %s]", id, !strcmp(id, self) ? " (you)" : "",
        str(a, "kind"), str(a, "client"), str(a, "status"));
    if (*str(a, "branch"))
        strbuf_addf(t, " branch %s", str(a, "branch"));
    json_t *files = json_object_get(a, "files");
    size_t n = json_array_size(files);
    if (!files)
        n = (size_t)num(a, "fileCount");
    strbuf_addf(t, ", %zu changed file%s", n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n && i < 6 && files; i++)
        strbuf_addf(
            t, "%s%s", i ? ", " : ": ", str(json_array_get(files, i), "path"));
    if (files && n > 6)
        strbuf_addf(t, ", ...");
    strbuf_addf(t, "\n");
}

static void
add_pair(struct strbuf *t, json_t *p)
{
    const char *level = str(p, "level");
    strbuf_addf(t, "  %s %s <-> %s, risk %.2f", level, str(p, "a"), str(p, "b"),
        json_number_value(json_object_get(p, "risk")));
    if (*str(p, "steer"))
        strbuf_addf(
            t, " (hold: %s, steer: %s)", str(p, "hold"), str(p, "steer"));
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(p, "contested"), i, c)
        strbuf_addf(t, "%s%s", i ? ", " : "; contested: ", str(c, "path"));
    if (*str(p, "guidance"))
        strbuf_addf(t, "; guidance: %s", str(p, "guidance"));
    strbuf_addf(t, "\n");
}

static void
add_intent(struct strbuf *t, json_t *in)
{
    strbuf_addf(t, "  %s:", str(in, "agent"));
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(in, "files"), i, f)
        strbuf_addf(t, "%s%s", i ? ", " : " ", json_string_value(f));
    if (*str(in, "summary"))
        strbuf_addf(t, " - %s", str(in, "summary"));
    strbuf_addf(t, "\n");
}

/* ---- argument checking (the subset of JSON Schema the tools use) ---- */

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
        if (json_string_length(v) < (size_t)num(schema, "minLength") ||
            (max && json_string_length(v) > (size_t)max)) {
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

/* ---- the tools ---- */

typedef json_t *tool_fn(struct mcp_session *s, json_t *args);

static json_t *
get_optional(struct mcp_session *s, const char *path, const char *key)
{
    long status;
    json_t *reply = NULL, *err = NULL;
    if (request(s, "GET", path, NULL, &status, &reply, &err)) {
        json_decref(err);
        return NULL;
    }
    json_t *v = status == 200 ? json_incref(json_object_get(reply, key)) : NULL;
    if (reply)
        json_decref(reply);
    return v;
}

static json_t *
t_status(struct mcp_session *s, json_t *args)
{
    (void)args;
    json_t *err = NULL;
    const char *self = me(s, &err);
    if (!self)
        return err;
    long status;
    json_t *st = NULL;
    if (request(s, "GET", "/v1/status", NULL, &status, &st, &err))
        return err;
    json_t *agents = get_optional(s, "/v1/agents?files=1", "agents");
    json_t *adv = get_optional(s, "/v1/advisories", "advisories");
    json_t *locks = get_optional(s, "/v1/locks", "locks");
    json_t *intents = get_optional(s, "/v1/intents", "intents");
    struct strbuf t = { 0 };
    json_t *adv_st = json_object_get(st, "advisories");
    strbuf_addf(&t,
        "airspace crew update for %s: %lld agents (%lld active), %lld "
        "traffic and %lld resolution advisories, %zu locks\n",
        self, (long long)num(json_object_get(st, "agents"), "total"),
        (long long)num(json_object_get(st, "agents"), "active"),
        (long long)num(adv_st, "traffic"), (long long)num(adv_st, "resolution"),
        json_array_size(locks));
    size_t i;
    json_t *x;
    strbuf_addf(&t, "agents:\n");
    json_array_foreach(agents, i, x) add_agent(&t, x, self);
    if (json_array_size(adv)) {
        strbuf_addf(&t, "advisories:\n");
        json_array_foreach(adv, i, x) add_pair(&t, x);
    }
    if (json_array_size(locks)) {
        strbuf_addf(&t, "locks:\n");
        json_array_foreach(locks, i, x) add_lock(&t, x);
    }
    if (json_array_size(intents)) {
        strbuf_addf(&t, "intents:\n");
        json_array_foreach(intents, i, x) add_intent(&t, x);
    }
    json_t *sc = json_pack("{s:s, s:O, s:o, s:o, s:o}", "agent", self, "status",
        st, "agents", agents ? agents : json_array(), "advisories",
        adv ? adv : json_array(), "locks", locks ? locks : json_array());
    if (intents)
        json_object_set_new(sc, "intents", intents);
    json_decref(st);
    return result(s, false, &t, sc);
}

static bool
lines_touch(json_t *lines, json_int_t start, json_int_t end)
{
    if (!json_array_size(lines) || start <= 0)
        return true; /* whole file, or no range asked */
    size_t i;
    json_t *r;
    json_array_foreach(lines, i, r)
    {
        json_int_t a = json_integer_value(json_array_get(r, 0)),
                   b = json_integer_value(json_array_get(r, 1));
        if (a <= end && start <= b)
            return true;
    }
    return false;
}

static json_t *
t_near(struct mcp_session *s, json_t *args)
{
    json_t *err = NULL;
    const char *self = me(s, &err);
    if (!self)
        return err;
    char *path = NULL;
    if (path_normalize(str(args, "path"), toplevel(s), &path) || !*path) {
        free(path);
        return fail(
            s, "'%s' is not a path inside the repository", str(args, "path"));
    }
    json_int_t start = num(args, "startLine"), end = num(args, "endLine");
    if (start > 0 && end <= 0)
        end = start;
    if (end > 0 && start <= 0)
        start = 1;
    if (start > end) {
        free(path);
        return fail(s, "'startLine' must not be after 'endLine'");
    }
    json_t *agents = get_optional(s, "/v1/agents?files=1", "agents");
    json_t *adv = get_optional(s, "/v1/advisories", "advisories");
    json_t *locks = get_optional(s, "/v1/locks", "locks");
    json_t *intents = get_optional(s, "/v1/intents", "intents");
    json_t *near_agents = json_array(), *near_locks = json_array(),
           *near_adv = json_array(), *near_intents = json_array();
    struct strbuf t = { 0 };
    if (start > 0)
        strbuf_addf(&t, "near %s lines %lld-%lld:\n", path, (long long)start,
            (long long)end);
    else
        strbuf_addf(&t, "near %s:\n", path);
    size_t i, k;
    json_t *x, *f;
    json_array_foreach(agents, i, x)
    {
        const char *id = str(x, "id");
        if (!strcmp(id, self))
            continue;
        json_array_foreach(json_object_get(x, "files"), k, f)
        {
            if ((strcmp(str(f, "path"), path) &&
                    strcmp(str(f, "newPath"), path)) ||
                !lines_touch(json_object_get(f, "lines"), start, end))
                continue;
            strbuf_addf(&t, "  agent %s changed it (%s)", id, str(f, "status"));
            size_t r;
            json_t *rg;
            json_array_foreach(json_object_get(f, "lines"), r, rg)
                strbuf_addf(&t, "%s%lld-%lld", r ? ", " : ", lines ",
                    (long long)json_integer_value(json_array_get(rg, 0)),
                    (long long)json_integer_value(json_array_get(rg, 1)));
            strbuf_addf(&t, "\n");
            json_array_append_new(
                near_agents, json_pack("{s:s, s:O}", "agent", id, "file", f));
            break;
        }
    }
    json_array_foreach(locks, i, x)
    {
        if (!glob_match(str(x, "pattern"), path))
            continue;
        add_lock(&t, x);
        json_array_append(near_locks, x);
    }
    json_array_foreach(intents, i, x)
    {
        bool hit = false;
        json_array_foreach(json_object_get(x, "files"), k, f) hit =
            hit || glob_match(json_string_value(f), path);
        if (hit && strcmp(str(x, "agent"), self)) {
            strbuf_addf(&t, "  intent");
            add_intent(&t, x);
            json_array_append(near_intents, x);
        }
    }
    json_array_foreach(adv, i, x)
    {
        bool hit = false;
        json_array_foreach(json_object_get(x, "contested"), k, f) hit =
            hit || !strcmp(str(f, "path"), path);
        json_array_foreach(json_object_get(x, "mergeConflicts"), k, f) hit =
            hit || !strcmp(json_string_value(f), path);
        const char *a = str(x, "a"), *b = str(x, "b");
        json_array_foreach(near_agents, k, f)
        {
            const char *o = str(f, "agent");
            hit = hit || (!strcmp(a, o) && !strcmp(b, self)) ||
                  (!strcmp(b, o) && !strcmp(a, self));
        }
        if (hit) {
            add_pair(&t, x);
            json_array_append(near_adv, x);
        }
    }
    if (!json_array_size(near_agents) && !json_array_size(near_locks) &&
        !json_array_size(near_adv) && !json_array_size(near_intents))
        strbuf_addf(&t, "  clear: nobody else is working there\n");
    json_t *sc = json_pack("{s:s, s:o, s:o, s:o, s:o}", "path", path, "agents",
        near_agents, "locks", near_locks, "advisories", near_adv, "intents",
        near_intents);
    free(path);
    json_decref(agents);
    json_decref(adv);
    json_decref(locks);
    json_decref(intents);
    return result(s, false, &t, sc);
}

static json_t *
t_intent(struct mcp_session *s, json_t *args)
{
    json_t *err = NULL;
    const char *self = me(s, &err);
    if (!self)
        return err;
    json_t *body = json_pack(
        "{s:s, s:O}", "agent", self, "files", json_object_get(args, "files"));
    /* the daemon takes regions per file: {path: [{lines: [s, e]}]} */
    json_t *regions = json_object_get(args, "regions");
    if (json_array_size(regions)) {
        json_t *byfile = json_object();
        size_t k;
        json_t *r;
        json_array_foreach(regions, k, r)
        {
            const char *p = str(r, "path");
            json_t *list = json_object_get(byfile, p);
            if (!list) {
                list = json_array();
                json_object_set_new(byfile, p, list);
            }
            json_array_append_new(list,
                json_pack("{s:[I,I]}", "lines", (json_int_t)num(r, "startLine"),
                    (json_int_t)num(r, "endLine")));
        }
        json_object_set_new(body, "regions", byfile);
    }
    if (json_object_get(args, "summary"))
        json_object_set(body, "summary", json_object_get(args, "summary"));
    if (json_object_get(args, "ttlSeconds"))
        json_object_set_new(
            body, "ttlMs", json_integer(num(args, "ttlSeconds") * 1000));
    long status;
    json_t *reply = NULL;
    int rc = request(s, "POST", "/v1/intents", body, &status, &reply, &err);
    json_decref(body);
    if (rc)
        return err;
    json_t *r;
    if (status / 100 != 2) {
        r = refused(s, "declaring an intent", status, reply);
    } else {
        struct strbuf t = { 0 };
        strbuf_addf(&t, "intent declared for %s:", self);
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(args, "files"), i, f)
            strbuf_addf(&t, "%s%s", i ? ", " : " ", json_string_value(f));
        strbuf_addf(&t, "\n");
        r = result(s, false, &t, json_incref(reply));
    }
    if (reply)
        json_decref(reply);
    return r;
}

/*
 * The fencing token of self's live lock or claim spelled pattern (GET
 * /v1/locks), for a release this session holds no grant for (taken
 * before it started, or by another client of the same agent); 0 if none.
 */
static json_int_t
held_token(struct mcp_session *s, const char *self, const char *pattern)
{
    long status;
    json_t *reply = NULL, *err = NULL;
    json_int_t tok = 0;
    if (request(s, "GET", "/v1/locks", NULL, &status, &reply, &err)) {
        json_decref(err);
        return 0;
    }
    size_t k;
    json_t *l;
    json_array_foreach(json_object_get(reply, "locks"), k, l)
    {
        if (!strcmp(str(l, "holder"), self) &&
            !strcmp(str(l, "pattern"), pattern))
            tok = json_integer_value(json_object_get(l, "token"));
    }
    if (reply)
        json_decref(reply);
    return tok;
}

/* lock, claim, contest, release: one request per pattern. */
static json_t *
each_pattern(struct mcp_session *s, json_t *args, const char *path,
    const char *kind, const char *verb)
{
    json_t *err = NULL;
    const char *self = me(s, &err);
    if (!self)
        return err;
    struct strbuf t = { 0 };
    json_t *results = json_array();
    bool failed = false;
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(args, "patterns"), i, p)
    {
        const char *pattern = json_string_value(p);
        json_t *body =
            json_pack("{s:s, s:s}", "agent", self, "pattern", pattern);
        if (kind) {
            json_object_set_new(body, "kind", json_string(kind));
            if (json_object_get(args, "mode"))
                json_object_set(body, "mode", json_object_get(args, "mode"));
            if (json_object_get(args, "reason"))
                json_object_set(
                    body, "reason", json_object_get(args, "reason"));
            if (json_object_get(args, "ttlSeconds"))
                json_object_set_new(body, "ttlMs",
                    json_integer(num(args, "ttlSeconds") * 1000));
        }
        /* a release carries the token this session was granted: a grant
         * lost since (and made again) is not released by mistake */
        bool release = !strcmp(path, "/v1/locks/release");
        json_t *held = s->tokens ? json_object_get(s->tokens, pattern) : NULL;
        if (release && held) {
            json_object_set(body, "token", held);
        } else if (release) {
            json_int_t tok = held_token(s, self, pattern);
            if (tok)
                json_object_set_new(body, "token", json_integer(tok));
        }
        long status;
        json_t *reply = NULL;
        int rc = request(s, "POST", path, body, &status, &reply, &err);
        json_decref(body);
        if (rc) {
            json_decref(results);
            free(t.s);
            return err;
        }
        if (kind && status / 100 == 2 && json_object_get(reply, "token")) {
            if (!s->tokens)
                s->tokens = json_object();
            json_object_set(
                s->tokens, pattern, json_object_get(reply, "token"));
        } else if (release && held && status != 503 && status != 507) {
            json_object_del(s->tokens, pattern);
        }
        if (status / 100 == 2) {
            strbuf_addf(&t, "%s '%s'", verb, pattern);
            if (json_object_get(reply, "token"))
                strbuf_addf(&t, " (%s %s, token %lld, %lld s)%s%s",
                    str(reply, "mode"), str(reply, "kind"),
                    (long long)num(reply, "token"),
                    (long long)num(reply, "expiresInMs") / 1000,
                    *str(reply, "outcome") ? ", " : "", str(reply, "outcome"));
            strbuf_addf(&t, "\n");
        } else {
            failed = true;
            json_t *h =
                json_object_get(json_object_get(reply, "error"), "holder");
            strbuf_addf(
                &t, "refused '%s': %s\n", pattern, client_error_message(reply));
            if (json_is_object(h))
                strbuf_addf(&t, "  holder: %s (%s %s '%s', %lld s left)%s%s\n",
                    str(h, "holder"), str(h, "mode"), str(h, "kind"),
                    str(h, "pattern"), (long long)num(h, "expiresInMs") / 1000,
                    *str(h, "reason") ? ", reason: " : "", str(h, "reason"));
        }
        json_array_append_new(results,
            json_pack("{s:s, s:I, s:O}", "pattern", pattern, "status",
                (json_int_t)status, "reply", reply ? reply : json_null()));
        if (reply)
            json_decref(reply);
    }
    return result(s, failed, &t, json_pack("{s:o}", "results", results));
}

static json_t *
t_lock(struct mcp_session *s, json_t *args)
{
    return each_pattern(s, args, "/v1/locks", "lock", "locked");
}

static json_t *
t_claim(struct mcp_session *s, json_t *args)
{
    return each_pattern(s, args, "/v1/locks", "claim", "claimed");
}

static json_t *
t_contest(struct mcp_session *s, json_t *args)
{
    return each_pattern(s, args, "/v1/locks/contest", NULL, "contested");
}

static json_t *
t_release(struct mcp_session *s, json_t *args)
{
    bool force = json_is_true(json_object_get(args, "force"));
    return each_pattern(s, args,
        force ? "/v1/locks/force-release" : "/v1/locks/release", NULL,
        force ? "force-released" : "released");
}

static json_t *
t_advisories(struct mcp_session *s, json_t *args)
{
    (void)args;
    json_t *err = NULL;
    const char *self = me(s, &err);
    if (!self)
        return err;
    long status;
    json_t *reply = NULL;
    if (request(s, "GET", "/v1/advisories", NULL, &status, &reply, &err))
        return err;
    if (status != 200) {
        json_t *r = refused(s, "listing advisories", status, reply);
        json_decref(reply);
        return r;
    }
    json_t *mine = json_array();
    struct strbuf t = { 0 };
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(reply, "advisories"), i, x)
    {
        if (strcmp(str(x, "a"), self) && strcmp(str(x, "b"), self))
            continue;
        add_pair(&t, x);
        json_array_append(mine, x);
    }
    if (!json_array_size(mine))
        strbuf_addf(&t, "no advisories involve %s: clear of traffic\n", self);
    json_decref(reply);
    return result(s, false, &t,
        json_pack("{s:s, s:o}", "agent", self, "advisories", mine));
}

static json_t *
t_send_message(struct mcp_session *s, json_t *args)
{
    json_t *err = NULL;
    const char *self = me(s, &err);
    if (!self)
        return err;
    const char *type = str(args, "type");
    json_t *body = json_pack("{s:s, s:O, s:s, s:O}", "from", self, "to",
        json_object_get(args, "to"), "type", *type ? type : "info", "body",
        json_object_get(args, "body"));
    long status;
    json_t *reply = NULL;
    int rc = request(s, "POST", "/v1/messages", body, &status, &reply, &err);
    json_decref(body);
    if (rc)
        return err;
    json_t *r;
    if (status / 100 != 2) {
        r = refused(s, "sending a message", status, reply);
    } else {
        struct strbuf t = { 0 };
        strbuf_addf(&t, "message sent to %s\n", str(args, "to"));
        r = result(s, false, &t, json_incref(reply));
    }
    if (reply)
        json_decref(reply);
    return r;
}

static json_t *
t_inbox(struct mcp_session *s, json_t *args)
{
    (void)args;
    json_t *err = NULL;
    const char *self = me(s, &err);
    if (!self)
        return err;
    char *path = xasprintf("/v1/agents/%s/inbox", self);
    long status;
    json_t *reply = NULL;
    int rc = request(s, "GET", path, NULL, &status, &reply, &err);
    free(path);
    if (rc)
        return err;
    json_t *r;
    if (status != 200) {
        /* Without the route the agent pattern answers unknown_agent. */
        const char *code = reply_code(reply);
        if (status == 404 && code && !strcmp(code, "unknown_agent"))
            r = fail(s, "reading the inbox is not available: this airspace "
                        "daemon does not offer it (HTTP 404)");
        else
            r = refused(s, "reading the inbox", status, reply);
    } else {
        struct strbuf t = { 0 };
        json_t *msgs = json_object_get(reply, "messages");
        if (!json_array_size(msgs))
            strbuf_addf(&t, "no messages for %s\n", self);
        size_t i;
        json_t *m;
        json_array_foreach(msgs, i, m)
            strbuf_addf(&t, "from %s to %s [%s]: %s\n", str(m, "from"),
                str(m, "to"), str(m, "type"), str(m, "body"));
        r = result(s, false, &t, json_incref(reply));
    }
    if (reply)
        json_decref(reply);
    return r;
}

static json_t *
t_commit(struct mcp_session *s, json_t *args)
{
    json_t *err = NULL;
    const char *self = me(s, &err);
    if (!self)
        return err;
    if (!toplevel(s))
        return fail(s, "the MCP server is not running inside a git working "
                       "tree: nothing to commit");
    json_t *jp = json_object_get(args, "paths");
    size_t n = json_array_size(jp);
    char **paths = xcalloc(n + 1, sizeof(*paths));
    for (size_t i = 0; i < n; i++)
        paths[i] = (char *)json_string_value(json_array_get(jp, i));
    struct scoped_commit sc = {
        .dir = s->toplevel,
        .agent = self,
        .message = str(args, "message"),
        .paths = paths,
        .npaths = n,
        .force = json_is_true(json_object_get(args, "force")),
        .cl = &s->cl,
    };
    json_t *res = NULL;
    char *notes = NULL, *error = NULL;
    int code = scoped_commit_run(&sc, &res, &notes, &error);
    free(paths);
    struct strbuf t = { 0 };
    if (code) {
        strbuf_addf(&t,
            "commit refused (nothing committed unless said "
            "otherwise): %s\n",
            error ? error : "?");
    } else {
        strbuf_addf(&t, "committed %.7s on %s: %s\n", str(res, "commit"),
            *str(res, "branch") ? str(res, "branch") : "a detached HEAD",
            str(res, "subject"));
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(res, "files"), i, f)
            strbuf_addf(&t, "  %s %s\n", str(f, "status"), str(f, "path"));
    }
    if (notes)
        strbuf_addf(&t, "%s", notes);
    free(notes);
    free(error);
    return result(s, code != 0, &t, res);
}

/* A land of this session's agent's branch (cmd_land.c: the merge check,
 * the scope check, the land, the daemon told). */
static json_t *
t_land(struct mcp_session *s, json_t *args)
{
    json_t *err = NULL;
    const char *self = me(s, &err);
    if (!self)
        return err;
    bool dry_run = json_is_true(json_object_get(args, "dry_run"));
    struct land_request rq = {
        .dir = s->repo,
        .name = self,
        .into = json_string_value(json_object_get(args, "into")),
        .message = json_string_value(json_object_get(args, "message")),
        .force = json_is_true(json_object_get(args, "force")),
        .dry_run = dry_run,
        .tool = true,
        .cl = s->connected ? &s->cl : NULL,
        .no_daemon = "not connected",
    };
    json_t *res = NULL;
    char *notes = NULL, *error = NULL;
    int code = land_run(&rq, &res, &notes, &error);
    struct strbuf t = { 0 };
    const char *target = str(res, "target"), *from = str(res, "from");
    if (code) {
        strbuf_addf(&t, "land refused: %s\n", error ? error : "?");
    } else if (json_is_true(json_object_get(res, "up_to_date"))) {
        strbuf_addf(
            &t, "'%s' already contains '%s': nothing to land\n", target, from);
    } else {
        const char *commit = str(res, "commit");
        bool ff = json_is_true(json_object_get(res, "fast_forward"));
        size_t nchanged = json_array_size(json_object_get(res, "changed"));
        strbuf_addf(&t, "%s %s into %s: ", dry_run ? "would land" : "landed",
            from, target);
        if (ff)
            strbuf_addf(&t, "fast-forward to %.7s", commit);
        else if (*commit)
            strbuf_addf(&t, "merge %.7s", commit);
        else
            strbuf_addf(&t, "a merge commit");
        strbuf_addf(
            &t, " (%zu file%s changed)\n", nchanged, nchanged == 1 ? "" : "s");
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(res, "changed"), i, f)
            strbuf_addf(&t, "  %s %s\n", str(f, "status"), str(f, "path"));
        if (json_is_true(json_object_get(res, "worktree_updated")))
            strbuf_addf(&t, "updated the checkout of %s in %s\n", target,
                str(res, "worktree"));
    }
    if (notes)
        strbuf_addf(&t, "%s", notes);
    free(notes);
    free(error);
    return result(s, code != 0, &t, res);
}

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
    tool_fn *run;
} tools[] = {
    { "status", "Crew status",
        "Crew update: every agent flying in this repository (with the files "
        "it changed), the live traffic and resolution advisories, locks and "
        "declared intents.",
        "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":"
        "false}",
        OUT_STATUS, T_READ_ONLY | T_IDEMPOTENT, t_status },
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
        OUT_NEAR, T_READ_ONLY | T_IDEMPOTENT, t_near },
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
        OUT_INTENT_DECLARED, 0, t_intent },
    { "lock", "Lock files",
        "Lock paths or globs so nobody else edits them (exclusive unless "
        "mode is shared). Refused when another agent holds them; the "
        "holder is named.",
        "{\"type\":\"object\",\"properties\":{" PATTERNS ","
        "\"mode\":{\"type\":\"string\",\"enum\":[\"exclusive\",\"shared\"]}"
        "," TTL "," REASON "},\"required\":[\"patterns\"],"
        "\"additionalProperties\":false}",
        OUT_EACH_PATTERN, T_IDEMPOTENT, t_lock },
    { "claim", "Claim files",
        "Claim paths or globs: like a lock, but another agent may contest "
        "it and, after the contest timeout, take it over.",
        "{\"type\":\"object\",\"properties\":{" PATTERNS "," TTL "," REASON
        "},\"required\":[\"patterns\"],\"additionalProperties\":false}",
        OUT_EACH_PATTERN, T_IDEMPOTENT, t_claim },
    { "contest", "Contest a claim",
        "Contest another agent's claim; its holder is told. After the "
        "contest timeout, 'release' with force takes it over.",
        "{\"type\":\"object\",\"properties\":{" PATTERNS
        "},\"required\":[\"patterns\"],\"additionalProperties\":false}",
        OUT_EACH_PATTERN, T_IDEMPOTENT, t_contest },
    { "release", "Release locks and claims",
        "Release locks or claims you hold; with force, take away a claim "
        "you contested once its contest timeout has passed.",
        "{\"type\":\"object\",\"properties\":{" PATTERNS ","
        "\"force\":{\"type\":\"boolean\",\"description\":\"force-release a "
        "contested claim\"}},\"required\":[\"patterns\"],"
        "\"additionalProperties\":false}",
        OUT_EACH_PATTERN, T_IDEMPOTENT, t_release },
    { "advisories", "Your advisories",
        "The traffic and resolution advisories involving you, with the "
        "contested files and, for a resolution, who holds and who steers.",
        "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":"
        "false}",
        OUT_ADVISORIES, T_READ_ONLY | T_IDEMPOTENT, t_advisories },
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
        OUT_SENT, 0, t_send_message },
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
        OUT_COMMIT, 0, t_commit },
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
        OUT_LAND, 0, t_land },
    { "inbox", "Read your inbox", "Read the messages other agents sent you.",
        "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":"
        "false}",
        OUT_INBOX, T_IDEMPOTENT, t_inbox },
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
        json_t *r;
        if (!check_value(schema, args ? args : empty, "", &err)) {
            strbuf_addf(&err, " (tool '%s')", name);
            r = result(s, true, &err, NULL);
        } else {
            r = tools[i].run(s, args ? args : empty);
        }
        json_decref(schema);
        if (empty)
            json_decref(empty);
        return r;
    }
    return fail(s, "unknown tool '%s'", name);
}

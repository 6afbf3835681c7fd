#include "client/api.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

void
api_req_release(struct api_req *r)
{
    free(r->path);
    if (r->body)
        json_decref(r->body);
    r->path = NULL;
    r->body = NULL;
}

char *
api_escape(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    char *out = xmalloc(strlen(s) * 3 + 1), *o = out;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
            (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-') {
            *o++ = (char)*p;
        } else {
            *o++ = '%';
            *o++ = hex[*p >> 4];
            *o++ = hex[*p & 15];
        }
    }
    *o = '\0';
    return out;
}

static struct api_req
req(const char *method, char *path, json_t *body)
{
    struct api_req r = { method, path, body };
    return r;
}

/* "/v1/<what>" or "/v1/<what>?<key>=<escaped value>" (value NULL: none). */
static char *
with_query(const char *what, const char *key, const char *value)
{
    if (!value)
        return xasprintf("/v1/%s", what);
    char *esc = api_escape(value);
    char *p = xasprintf("/v1/%s?%s=%s", what, key, esc);
    free(esc);
    return p;
}

/* "/v1/agents/<escaped id>/<what>" */
static char *
agent_path(const char *id, const char *what)
{
    char *esc = api_escape(id);
    char *p = xasprintf("/v1/agents/%s/%s", esc, what);
    free(esc);
    return p;
}

/* ---- the daemon ---- */

struct api_req
api_status(void)
{
    return req("GET", xstrdup("/v1/status"), NULL);
}

struct api_req
api_stop(void)
{
    return req("POST", xstrdup("/v1/stop"), NULL);
}

struct api_req
api_refresh(void)
{
    return req("POST", xstrdup("/v1/refresh"), NULL);
}

struct api_req
api_refresh_git(void)
{
    return req("POST", xstrdup("/v1/refresh"), json_pack("{s:b}", "git", 1));
}

char *
api_events_path(long long after)
{
    return after >= 0 ? xasprintf("/v1/events?after=%lld", after)
                      : xstrdup("/v1/events");
}

struct api_req
api_ledger(long long after, long limit, const char *type, const char *agent)
{
    struct strbuf q = STRBUF_INIT;
    strbuf_addf(&q, "/v1/ledger?after=%lld&limit=%ld", after, limit);
    if (type) {
        char *t = api_escape(type);
        strbuf_addf(&q, "&type=%s", t);
        free(t);
    }
    if (agent) {
        char *a = api_escape(agent);
        strbuf_addf(&q, "&agent=%s", a);
        free(a);
    }
    return req("GET", q.s, NULL);
}

/* ---- agents ---- */

struct api_req
api_agents(bool files)
{
    return req(
        "GET", xstrdup(files ? "/v1/agents?files=1" : "/v1/agents"), NULL);
}

struct api_req
api_register(json_t *agent)
{
    return req("POST", xstrdup("/v1/agents"), agent);
}

struct api_req
api_person(const char *worktree)
{
    return api_register(
        json_pack("{s:s, s:s}", "kind", "human", "worktree", worktree));
}

struct api_req
api_exit(const char *id)
{
    return req("POST", agent_path(id, "exit"), NULL);
}

struct api_req
api_heartbeat(const char *id)
{
    return req("POST", agent_path(id, "heartbeat"), NULL);
}

struct api_req
api_inbox(const char *id, bool peek)
{
    return req("GET", agent_path(id, peek ? "inbox?peek=1" : "inbox"), NULL);
}

struct api_req
api_edit(const char *id, const char *path, json_t *ranges)
{
    json_t *body = json_pack("{s:s}", "path", path);
    if (ranges)
        json_object_set_new(body, "lines", ranges);
    return req("POST", agent_path(id, "edits"), body);
}

struct api_req
api_prompt(const char *id, const char *prompt)
{
    return req(
        "POST", agent_path(id, "prompt"), json_pack("{s:s}", "prompt", prompt));
}

struct api_req
api_commit_made(const char *id, json_t *commit)
{
    return req("POST", agent_path(id, "commits"), commit);
}

struct api_req
api_advisories(const char *agent)
{
    return req("GET", with_query("advisories", "agent", agent), NULL);
}

/* ---- locks and claims ---- */

struct api_req
api_locks(const char *agent)
{
    return req("GET", with_query("locks", "agent", agent), NULL);
}

struct api_req
api_lock(enum api_lock_op op, const struct api_lock *l)
{
    static const char *const paths[] = {
        [API_LOCK_TAKE] = "/v1/locks",
        [API_LOCK_RELEASE] = "/v1/locks/release",
        [API_LOCK_RENEW] = "/v1/locks/renew",
        [API_LOCK_CONTEST] = "/v1/locks/contest",
        [API_LOCK_FORCE_RELEASE] = "/v1/locks/force-release",
    };
    json_t *body =
        json_pack("{s:s, s:s}", "agent", l->agent, "pattern", l->pattern);
    if (op == API_LOCK_TAKE) {
        if (l->kind)
            json_object_set_new(body, "kind", json_string(l->kind));
        if (l->mode)
            json_object_set_new(body, "mode", json_string(l->mode));
        if (l->reason)
            json_object_set_new(body, "reason", json_string(l->reason));
    }
    if ((op == API_LOCK_RELEASE || op == API_LOCK_RENEW) && l->token)
        json_object_set_new(body, "token", json_integer(l->token));
    if ((op == API_LOCK_TAKE || op == API_LOCK_RENEW) && l->ttl_ms)
        json_object_set_new(body, "ttlMs", json_integer(l->ttl_ms));
    return req("POST", xstrdup(paths[op]), body);
}

long long
api_locks_token(json_t *reply, const char *agent, const char *pattern)
{
    long long tok = 0;
    size_t k;
    json_t *l;
    json_array_foreach(json_object_get(reply, "locks"), k, l)
    {
        const char *h = json_string_value(json_object_get(l, "holder"));
        const char *p = json_string_value(json_object_get(l, "pattern"));
        if (h && p && !strcmp(h, agent) && !strcmp(p, pattern))
            tok = json_integer_value(json_object_get(l, "token"));
    }
    return tok;
}

struct api_req
api_lock_check(const char *agent, const char *path, const char *mode)
{
    json_t *body = json_pack("{s:s, s:s}", "agent", agent, "path", path);
    if (mode)
        json_object_set_new(body, "mode", json_string(mode));
    return req("POST", xstrdup("/v1/locks/check"), body);
}

/* ---- collaboration ---- */

struct api_req
api_intents(const char *agent)
{
    return req("GET", with_query("intents", "agent", agent), NULL);
}

struct api_req
api_intent(json_t *intent)
{
    return req("POST", xstrdup("/v1/intents"), intent);
}

struct api_req
api_intent_drop(long long id, const char *agent)
{
    return req("POST", xasprintf("/v1/intents/%lld/drop", id),
        json_pack("{s:s}", "agent", agent));
}

struct api_req
api_message(
    const char *from, const char *to, const char *type, const char *body)
{
    return req("POST", xstrdup("/v1/messages"),
        json_pack("{s:s, s:s, s:s, s:s}", "from", from, "to", to, "type",
            type ? type : "info", "body", body));
}

struct api_req
api_conflicts(void)
{
    return req("GET", xstrdup("/v1/conflicts"), NULL);
}

/* ---- alerts, fleet, map ---- */

struct api_req
api_alerts(const char *agent)
{
    return req("GET", with_query("alerts", "agent", agent), NULL);
}

struct api_req
api_fleet_report(const char *name, json_t *report)
{
    char *esc = api_escape(name);
    char *p = xasprintf("/v1/fleet/%s", esc);
    free(esc);
    return req("POST", p, report);
}

struct api_req
api_map_open(json_t *options)
{
    return req("POST", xstrdup("/v1/map/open"), options);
}

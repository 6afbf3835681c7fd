/*
 * mcp_tools.c - the MCP tools themselves: the daemon requests each makes
 * and the replies an agent can read (the catalog, mcp_catalog.c, checks
 * their arguments first).
 */
#include "mcp/mcp_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "client/session.h"
#include "util/glob.h"
#include "util/path.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* ---- formatting ---- */

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
        str(a, "kind"), str(a, "client"),
        json_is_true(json_object_get(a, "parked"))
            ? "parked: not active now, its work not landed"
            : str(a, "status"));
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
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(p, "why"), i, c)
    {
        const char *ch = json_string_value(c);
        strbuf_addf(t, "%s%s", i ? ", " : " from ", ch ? ch : "?");
    }
    if (*str(p, "parked"))
        strbuf_addf(t, " (%s parked: not active now, its work not landed)",
            str(p, "parked"));
    else if (*str(p, "steer"))
        strbuf_addf(
            t, " (hold: %s, steer: %s)", str(p, "hold"), str(p, "steer"));
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

/* ---- the tools ---- */

/* key of what the daemon answers r, or NULL; a failure (the daemon
 * unreachable, or a refusal) goes to *fail as a tool error, and once one
 * is there no more is asked. */
static json_t *
crew_part(struct mcp_session *s, struct api_req r, const char *what,
    const char *key, json_t **fail)
{
    long status;
    json_t *reply = NULL, *v = NULL;
    if (*fail) { /* one wait for a daemon that does not answer is enough */
        api_req_release(&r);
        return NULL;
    }
    if (mcp_request(s, r, &status, &reply, fail))
        return NULL;
    if (status == 200)
        v = json_incref(json_object_get(reply, key));
    else
        *fail = mcp_refused(s, what, NULL, status, reply);
    json_decref(reply);
    return v;
}

/* What status and near read of the airspace. */
struct crew {
    json_t *agents, *adv, *locks, *intents;
};

static void
crew_release(struct crew *c)
{
    json_decref(c->agents);
    json_decref(c->adv);
    json_decref(c->locks);
    json_decref(c->intents);
}

/*
 * Read the crew: NULL, or a tool error when any part could not be read.
 * Half of it is no answer: an all-clear from what the daemon did not
 * say (a lock it could not list) would send an agent into a held file.
 */
static json_t *
crew_get(struct mcp_session *s, struct crew *c)
{
    json_t *fail = NULL;
    c->agents =
        crew_part(s, api_agents(true), "reading the agents", "agents", &fail);
    c->adv = crew_part(
        s, api_advisories(NULL), "reading the advisories", "advisories", &fail);
    c->locks =
        crew_part(s, api_locks(NULL), "reading the locks", "locks", &fail);
    c->intents = crew_part(
        s, api_intents(NULL), "reading the intents", "intents", &fail);
    if (fail) {
        crew_release(c);
        memset(c, 0, sizeof(*c));
    }
    return fail;
}

json_t *
mcp_tool_status(struct mcp_session *s, const char *self, json_t *args)
{
    (void)args;
    long status;
    json_t *st = NULL, *err = NULL;
    if (mcp_request(s, api_status(), &status, &st, &err))
        return err;
    struct crew c;
    if ((err = crew_get(s, &c))) {
        json_decref(st);
        return err;
    }
    struct strbuf t = { 0 };
    json_t *adv_st = json_object_get(st, "advisories");
    long long nagents = (long long)num(json_object_get(st, "agents"), "total");
    long long ntraffic = (long long)num(adv_st, "traffic");
    long long nresolution = (long long)num(adv_st, "resolution");
    size_t nlocks = json_array_size(c.locks);
    strbuf_addf(&t,
        "airspace crew update for %s: %lld agent%s (%lld active), %lld "
        "traffic and %lld resolution advisor%s, %zu lock%s\n",
        self, nagents, nagents == 1 ? "" : "s",
        (long long)num(json_object_get(st, "agents"), "active"), ntraffic,
        nresolution, ntraffic + nresolution == 1 ? "y" : "ies", nlocks,
        nlocks == 1 ? "" : "s");
    size_t i;
    json_t *x;
    strbuf_addf(&t, "agents:\n");
    json_array_foreach(c.agents, i, x) add_agent(&t, x, self);
    if (json_array_size(c.adv)) {
        strbuf_addf(&t, "advisories:\n");
        json_array_foreach(c.adv, i, x) add_pair(&t, x);
    }
    if (json_array_size(c.locks)) {
        strbuf_addf(&t, "locks:\n");
        json_array_foreach(c.locks, i, x) add_lock(&t, x);
    }
    if (json_array_size(c.intents)) {
        strbuf_addf(&t, "intents:\n");
        json_array_foreach(c.intents, i, x) add_intent(&t, x);
    }
    json_t *sc = json_pack("{s:s, s:O, s:o, s:o, s:o}", "agent", self, "status",
        st, "agents", c.agents ? c.agents : json_array(), "advisories",
        c.adv ? c.adv : json_array(), "locks",
        c.locks ? c.locks : json_array());
    if (c.intents)
        json_object_set_new(sc, "intents", c.intents);
    json_decref(st);
    return mcp_result(s, false, &t, sc);
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

json_t *
mcp_tool_near(struct mcp_session *s, const char *self, json_t *args)
{
    char *path = NULL;
    if (path_normalize(str(args, "path"), mcp_toplevel(s), &path) || !*path) {
        free(path);
        return mcp_fail(
            s, "'%s' is not a path inside the repository", str(args, "path"));
    }
    json_int_t start = num(args, "startLine"), end = num(args, "endLine");
    if (start > 0 && end <= 0)
        end = start;
    if (end > 0 && start <= 0)
        start = 1;
    if (start > end) {
        free(path);
        return mcp_fail(s, "'startLine' must not be after 'endLine'");
    }
    struct crew c;
    json_t *fail = crew_get(s, &c);
    if (fail) {
        free(path);
        return fail;
    }
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
    json_array_foreach(c.agents, i, x)
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
    json_array_foreach(c.locks, i, x)
    {
        if (!glob_match(str(x, "pattern"), path))
            continue;
        add_lock(&t, x);
        json_array_append(near_locks, x);
    }
    json_array_foreach(c.intents, i, x)
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
    json_array_foreach(c.adv, i, x)
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
    json_decref(c.agents);
    json_decref(c.adv);
    json_decref(c.locks);
    json_decref(c.intents);
    return mcp_result(s, false, &t, sc);
}

/* ---- the tools of one request ---- */

json_t *
mcp_call_run(struct mcp_session *s, const char *self, json_t *args,
    const struct mcp_call *c)
{
    long status;
    json_t *reply = NULL, *err = NULL;
    if (mcp_request(s, c->req(self, args), &status, &reply, &err))
        return err;
    json_t *r;
    if (c->only_200 ? status == 200 : status / 100 == 2) {
        struct strbuf t = { 0 };
        json_t *sc = c->answer(&t, self, args, reply);
        r = mcp_result(s, false, &t, sc);
    } else {
        r = mcp_refused(s, c->what, c->no_code, status, reply);
    }
    if (reply)
        json_decref(reply);
    return r;
}

static struct api_req
intent_req(const char *self, json_t *args)
{
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
    return api_intent(body);
}

static json_t *
intent_answer(struct strbuf *t, const char *self, json_t *args, json_t *reply)
{
    strbuf_addf(t, "intent declared for %s:", self);
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(args, "files"), i, f)
        strbuf_addf(t, "%s%s", i ? ", " : " ", json_string_value(f));
    strbuf_addf(t, "\n");
    /* what the daemon found, in the words the model reads */
    json_t *c;
    json_array_foreach(json_object_get(reply, "conflicts"), i, c)
        strbuf_addf(t, "%s\n", str(c, "text"));
    json_t *twin = json_object_get(reply, "similar");
    if (twin)
        strbuf_addf(t,
            "[duplicate?] '%s' is already on it: \"%s\" (intent %lld)\n",
            str(twin, "agent"), str(twin, "summary"),
            (long long)json_integer_value(json_object_get(twin, "intent")));
    return json_incref(reply);
}

static struct api_req
advisories_req(const char *self, json_t *args)
{
    (void)self;
    (void)args;
    return api_advisories(NULL);
}

static json_t *
advisories_answer(
    struct strbuf *t, const char *self, json_t *args, json_t *reply)
{
    (void)args;
    json_t *mine = json_array();
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(reply, "advisories"), i, x)
    {
        if (strcmp(str(x, "a"), self) && strcmp(str(x, "b"), self))
            continue;
        add_pair(t, x);
        json_array_append(mine, x);
    }
    if (!json_array_size(mine))
        strbuf_addf(t, "no advisories involve %s: clear of traffic\n", self);
    return json_pack("{s:s, s:o}", "agent", self, "advisories", mine);
}

static struct api_req
message_req(const char *self, json_t *args)
{
    const char *type = str(args, "type");
    return api_message(
        self, str(args, "to"), *type ? type : NULL, str(args, "body"));
}

static json_t *
message_answer(struct strbuf *t, const char *self, json_t *args, json_t *reply)
{
    (void)self;
    strbuf_addf(t, "message sent to %s\n", str(args, "to"));
    return json_incref(reply);
}

static struct api_req
inbox_req(const char *self, json_t *args)
{
    (void)args;
    return api_inbox(self, false);
}

static json_t *
inbox_answer(struct strbuf *t, const char *self, json_t *args, json_t *reply)
{
    (void)args;
    json_t *msgs = json_object_get(reply, "messages");
    if (!json_array_size(msgs))
        strbuf_addf(t, "no messages for %s\n", self);
    size_t i;
    json_t *m;
    json_array_foreach(msgs, i, m) strbuf_addf(t, "from %s to %s [%s]: %s\n",
        str(m, "from"), str(m, "to"), str(m, "type"), str(m, "body"));
    return json_incref(reply);
}

const struct mcp_call mcp_call_intent = { "declaring an intent", false, NULL,
    intent_req, intent_answer };
const struct mcp_call mcp_call_advisories = { "listing advisories", true, NULL,
    advisories_req, advisories_answer };
const struct mcp_call mcp_call_message = { "sending a message", false, NULL,
    message_req, message_answer };
/* without the route, the agent pattern answers unknown_agent */
const struct mcp_call mcp_call_inbox = { "reading the inbox", true,
    "unknown_agent", inbox_req, inbox_answer };

/* ---- locks and claims ---- */

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
    if (mcp_request(s, api_locks(NULL), &status, &reply, &err)) {
        json_decref(err);
        return 0;
    }
    json_int_t tok = api_locks_token(reply, self, pattern);
    if (reply)
        json_decref(reply);
    return tok;
}

/* lock, claim, contest, release: one request per pattern. */
static json_t *
each_pattern(struct mcp_session *s, const char *self, json_t *args,
    enum api_lock_op op, const char *kind, const char *verb)
{
    json_t *err = NULL;
    struct strbuf t = { 0 };
    json_t *results = json_array();
    bool failed = false;
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(args, "patterns"), i, p)
    {
        const char *pattern = json_string_value(p);
        struct api_lock l = { self, pattern, kind, NULL, NULL, 0, 0 };
        if (kind) {
            l.mode = json_string_value(json_object_get(args, "mode"));
            l.reason = json_string_value(json_object_get(args, "reason"));
            l.ttl_ms = (long long)num(args, "ttlSeconds") * 1000;
        }
        /* a release carries the token this session was granted: a grant
         * lost since (and made again) is not released by mistake */
        bool release = op == API_LOCK_RELEASE;
        json_t *held = s->tokens ? json_object_get(s->tokens, pattern) : NULL;
        if (release && held)
            l.token = json_integer_value(held);
        else if (release)
            l.token = held_token(s, self, pattern);
        long status;
        json_t *reply = NULL;
        int rc = mcp_request(s, api_lock(op, &l), &status, &reply, &err);
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
    return mcp_result(s, failed, &t, json_pack("{s:o}", "results", results));
}

json_t *
mcp_tool_lock(struct mcp_session *s, const char *self, json_t *args)
{
    return each_pattern(s, self, args, API_LOCK_TAKE, "lock", "locked");
}

json_t *
mcp_tool_claim(struct mcp_session *s, const char *self, json_t *args)
{
    return each_pattern(s, self, args, API_LOCK_TAKE, "claim", "claimed");
}

json_t *
mcp_tool_contest(struct mcp_session *s, const char *self, json_t *args)
{
    return each_pattern(s, self, args, API_LOCK_CONTEST, NULL, "contested");
}

json_t *
mcp_tool_release(struct mcp_session *s, const char *self, json_t *args)
{
    bool force = json_is_true(json_object_get(args, "force"));
    return each_pattern(s, self, args,
        force ? API_LOCK_FORCE_RELEASE : API_LOCK_RELEASE, NULL,
        force ? "force-released" : "released");
}

/* ---- commit and land: an operation of src/ops ---- */

/* The result of an operation (code, res, notes and error as it gave
 * them; all taken): "<refused>: why", or the text describe writes of
 * res; then the operation's notes. */
static json_t *
ops_result(struct mcp_session *s, int code, json_t *res, char *notes,
    char *error, const char *refused, json_t *args,
    void (*describe)(struct strbuf *t, json_t *res, json_t *args))
{
    struct strbuf t = { 0 };
    if (code)
        strbuf_addf(&t, "%s: %s\n", refused, error ? error : "?");
    else
        describe(&t, res, args);
    if (notes)
        strbuf_addf(&t, "%s", notes);
    free(notes);
    free(error);
    return mcp_result(s, code != 0, &t, res);
}

/* A file of a result's list: "  status path". */
static void
add_files(struct strbuf *t, json_t *files)
{
    size_t i;
    json_t *f;
    json_array_foreach(files, i, f)
        strbuf_addf(t, "  %s %s\n", str(f, "status"), str(f, "path"));
}

static void
describe_commit(struct strbuf *t, json_t *res, json_t *args)
{
    (void)args;
    strbuf_addf(t, "committed %.7s on %s: %s\n", str(res, "commit"),
        *str(res, "branch") ? str(res, "branch") : "a detached HEAD",
        str(res, "subject"));
    add_files(t, json_object_get(res, "files"));
}

json_t *
mcp_tool_commit(struct mcp_session *s, const char *self, json_t *args)
{
    if (!mcp_toplevel(s))
        return mcp_fail(s, "the MCP server is not running inside a git working "
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
    return ops_result(s, code, res, notes, error,
        "commit refused (nothing committed unless said otherwise)", args,
        describe_commit);
}

static void
describe_land(struct strbuf *t, json_t *res, json_t *args)
{
    const char *target = str(res, "target"), *from = str(res, "from");
    if (json_is_true(json_object_get(res, "up_to_date"))) {
        strbuf_addf(
            t, "'%s' already contains '%s': nothing to land\n", target, from);
        return;
    }
    const char *commit = str(res, "commit");
    bool ff = json_is_true(json_object_get(res, "fast_forward"));
    size_t nchanged = json_array_size(json_object_get(res, "changed"));
    strbuf_addf(t, "%s %s into %s: ",
        json_is_true(json_object_get(args, "dry_run")) ? "would land"
                                                       : "landed",
        from, target);
    if (ff)
        strbuf_addf(t, "fast-forward to %.7s", commit);
    else if (*commit)
        strbuf_addf(t, "merge %.7s", commit);
    else
        strbuf_addf(t, "a merge commit");
    strbuf_addf(
        t, " (%zu file%s changed)\n", nchanged, nchanged == 1 ? "" : "s");
    add_files(t, json_object_get(res, "changed"));
    if (json_is_true(json_object_get(res, "worktree_updated")))
        strbuf_addf(t, "updated the checkout of %s in %s\n", target,
            str(res, "worktree"));
}

/* A land of this session's agent's branch (cmd_land.c: the merge check,
 * the scope check, the land, the daemon told). */
json_t *
mcp_tool_land(struct mcp_session *s, const char *self, json_t *args)
{
    struct land_request rq = {
        .dir = s->repo,
        .name = self,
        .into = json_string_value(json_object_get(args, "into")),
        .message = json_string_value(json_object_get(args, "message")),
        .force = json_is_true(json_object_get(args, "force")),
        .dry_run = json_is_true(json_object_get(args, "dry_run")),
        .tool = true,
        .cl = s->connected ? &s->cl : NULL,
        .no_daemon = "not connected",
    };
    json_t *res = NULL;
    char *notes = NULL, *error = NULL;
    int code = land_run(&rq, &res, &notes, &error);
    return ops_result(
        s, code, res, notes, error, "land refused", args, describe_land);
}

/*
 * api.c - the HTTP/JSON API of the daemon (docs/protocol.md): routing,
 * request checks (peer uid on the Unix socket, bearer token on TCP), JSON
 * bodies and errors.
 *
 * Longer than 1,000 lines: one short route per endpoint of
 * docs/protocol.md (parse, call one operation, answer) beside the route
 * table, so the table and every route's checks read in one place.
 */
#define _GNU_SOURCE /* struct ucred */
#include "broker/api.h"
#include "broker/agents.h"
#include "broker/alerting.h"
#include "broker/collab.h"
#include "broker/detect.h"
#include "broker/events.h"
#include "broker/index.h"
#include "broker/health.h"
#include "broker/routes.h"
#include "broker/score.h"
#include "broker/conns.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/keyvalq_struct.h>

#include "broker/team.h"
#include "util/glob.h"
#include "util/path.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* ---- the requests' transaction (group commit) ---- */

/*
 * What a request changes, its ledger events included, is in a store
 * transaction committed before its reply is sent: an acknowledged change is
 * on disk (DESIGN §7). Requests handled in one turn of the event loop share
 * that transaction: the first opens it, replies wait in `pending`, and an
 * event made active with the first reply commits once and then sends them
 * all, after the loop has handled every request that was ready. With N
 * clients that is up to N requests per commit instead of one.
 */
struct pending_reply {
    struct evhttp_request *req; /* NULL when its connection closed */
    int code;
    struct evbuffer *buf;
    bool writes; /* its request may change state: refused when the
                    commit fails */
};

static struct {
    struct broker *b;
    bool open;    /* the group's db_begin is held */
    bool writing; /* the request being handled may change state */
    struct event *ev;
    struct pending_reply *v;
    size_t n, cap;
} grp;

static void group_flush(void);

static void
on_group(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    group_flush();
}

static void
request_begin(struct broker *b)
{
    if (!b->db || grp.open)
        return;
    if (!grp.ev)
        grp.ev = event_new(b->base, -1, 0, on_group, NULL);
    struct as_err e;
    grp.b = b;
    grp.open = !db_begin(b->db, &e);
    if (!grp.open)
        broker_log(b, "store: %s", e.msg);
}

/* A connection with a reply waiting closed: its request is gone. */
static void
on_pending_close(struct evhttp_connection *evcon, void *arg)
{
    (void)arg;
    for (size_t k = 0; k < grp.n; k++)
        if (grp.v[k].req &&
            evhttp_request_get_connection(grp.v[k].req) == evcon)
            grp.v[k].req = NULL;
}

static const char *
reason_of(int code)
{
    return code == 200   ? "OK"
           : code == 201 ? "Created"
           : code < 500  ? "Client Error"
                         : "Server Error";
}

/* The error envelope refusing a write the store cannot keep. */
static struct evbuffer *
store_error_body(int status, const struct as_err *e)
{
    json_t *doc = json_pack("{s:{s:s, s:s}}", "error", "code",
        status == 507               ? "store_full"
        : db_unreachable(grp.b->db) ? "store_unreachable"
                                    : "store_failed",
        "message", e->msg);
    char *s = json_dumps(doc, JSON_COMPACT);
    struct evbuffer *buf = evbuffer_new();
    evbuffer_add(buf, s, strlen(s));
    evbuffer_add(buf, "\n", 1);
    free(s);
    json_decref(doc);
    return buf;
}

/* Commit the group's transaction, then send the replies that waited. A
 * store that cannot keep it (a failed write or commit, its file gone):
 * the transaction is rolled back and every request that may have changed
 * something is answered 507/503 instead (broker_store_failed). */
static void
group_flush(void)
{
    if (grp.open) {
        struct as_err e;
        struct db *db = grp.b->db;
        grp.open = false;
        int rc = db_health(db, &e);
        if (rc)
            db_rollback(db);
        else
            rc = db_commit(db, &e);
        bool refused = false;
        for (size_t k = 0; rc && k < grp.n; k++) {
            struct pending_reply *p = &grp.v[k];
            if (!p->writes || p->code >= 400)
                continue;
            p->code = rc == AS_ENOSPC ? 507 : 503;
            evbuffer_free(p->buf);
            p->buf = store_error_body(p->code, &e);
            refused = true;
        }
        if (refused)
            broker_store_failed(grp.b, rc, &e);
        else if (rc)
            broker_store_refusal(grp.b, &e); /* logged once */
    }
    for (size_t k = 0; k < grp.n; k++) {
        struct pending_reply *p = &grp.v[k];
        if (p->req) {
            broker_conn_closecb(
                evhttp_request_get_connection(p->req), NULL, NULL);
            evhttp_send_reply(p->req, p->code, reason_of(p->code), p->buf);
        }
        evbuffer_free(p->buf);
    }
    grp.n = 0;
}

void
broker_api_release(struct broker *b)
{
    (void)b;
    group_flush();
    if (grp.ev)
        event_free(grp.ev);
    free(grp.v);
    memset(&grp, 0, sizeof(grp));
}

/* ---- replies ---- */

void
api_reply_json(struct evhttp_request *req, int code, json_t *doc)
{
    struct evbuffer *buf = evbuffer_new();
    char *s = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    if (!s) { /* a reply that could not be made (our bug): say so */
        code = 500;
        s = xstrdup("{\"error\":{\"code\":\"internal\",\"message\":"
                    "\"the reply could not be encoded\"}}");
    }
    evbuffer_add(buf, s, strlen(s));
    evbuffer_add(buf, "\n", 1);
    free(s);
    json_decref(doc);
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
        "application/json");
    if (!grp.open) {
        evhttp_send_reply(req, code, reason_of(code), buf);
        evbuffer_free(buf);
        return;
    }
    /* After the commit (group_flush), with the other requests of this turn. */
    if (grp.n == grp.cap) {
        grp.cap = grp.cap ? 2 * grp.cap : 16;
        grp.v = xrealloc(grp.v, grp.cap * sizeof(*grp.v));
    }
    grp.v[grp.n++] = (struct pending_reply){ req, code, buf, grp.writing };
    broker_conn_closecb(
        evhttp_request_get_connection(req), on_pending_close, NULL);
    if (grp.n == 1)
        event_active(grp.ev, EV_TIMEOUT, 1);
}

/* Whether s is valid UTF-8 (what a JSON string must be). */
static bool
utf8_valid(const unsigned char *s)
{
    while (*s) {
        size_t n = *s < 0x80             ? 0
                   : (*s & 0xe0) == 0xc0 ? 1
                   : (*s & 0xf0) == 0xe0 ? 2
                   : (*s & 0xf8) == 0xf0 ? 3
                                         : 4;
        if (n == 4 || (n == 1 && *s < 0xc2) || (n == 3 && *s > 0xf4))
            return false;
        for (size_t k = 1; k <= n; k++)
            if ((s[k] & 0xc0) != 0x80)
                return false;
        s += n + 1;
    }
    return true;
}

void
api_reply_error(struct evhttp_request *req, int code, const char *kind,
    const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    /* a client's bytes quoted (a path segment), or a character cut at
     * the end: JSON cannot carry them, so they become '?' */
    if (!utf8_valid((const unsigned char *)msg))
        for (char *p = msg; *p; p++)
            if ((unsigned char)*p >= 0x80)
                *p = '?';
    api_reply_json(req, code,
        json_pack("{s:{s:s, s:s}}", "error", "code", kind, "message", msg));
}

/* ---- errors of the HTTP layer ---- */

/* The error code of a status libevent answers on its own. */
static const char *
http_error_code(int status, const char **message)
{
    switch (status) {
    case 400:
        *message = "malformed request (or headers over 64 KiB)";
        return "bad_request";
    case 413:
        *message = "request body over 1 MiB";
        return "too_large";
    case 417:
        *message = "unsupported Expect header";
        return "bad_request";
    case 501:
        *message = "method not implemented";
        return "not_implemented";
    default:
        *message = "refused by the HTTP layer";
        return "http_error";
    }
}

/*
 * libevent answers some errors itself, before a request reaches
 * broker_api_handle, with an HTML page (evhttp_send_error). Each such page
 * is written whole into the connection's output, which nothing else shares
 * at that time; it is replaced there by the JSON envelope. Our own replies
 * never carry text/html, so nothing else matches.
 */
static void
on_reply_out(
    struct evbuffer *out, const struct evbuffer_cb_info *info, void *arg)
{
    (void)arg;
    static bool busy; /* our own rewrite calls back */
    char page[1024];
    size_t len = evbuffer_get_length(out);
    if (busy || !info->n_added || len < 16 || len >= sizeof(page))
        return;
    /* what it copies, which may be less than it holds (a file's bytes
     * not read yet): the rest of page is not the reply's */
    ev_ssize_t got = evbuffer_copyout(out, page, len);
    if (got < 16)
        return;
    page[got] = '\0';
    char *end = strstr(page, "\r\n\r\n");
    if (strncmp(page, "HTTP/1.", 7) || !end)
        return;
    *end = '\0';
    const char *body = end + 4, *cl = strstr(page, "\r\nContent-Length: ");
    if (!strstr(page, "\r\nContent-Type: text/html\r\n") || !cl ||
        strtoul(cl + 18, NULL, 10) != strlen(body) ||
        strncmp(body, "<HTML><HEAD>", 12))
        return;
    int status = (int)strtol(page + 9, NULL, 10);
    if (status < 400 || status > 599)
        return;
    const char *message, *code = http_error_code(status, &message);
    json_t *doc =
        json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", message);
    char *s = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    busy = true;
    evbuffer_drain(out, len);
    evbuffer_add_printf(out,
        "HTTP/1.%c %d %s\r\nContent-Type: application/json\r\n"
        "Connection: close\r\nContent-Length: %zu\r\n\r\n%s\n",
        page[7], status, reason_of(status), strlen(s) + 1, s);
    busy = false;
    free(s);
}

struct bufferevent *
broker_api_bev_new(struct event_base *base, void *arg)
{
    (void)arg;
    struct bufferevent *bev =
        bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
    evbuffer_add_cb(bufferevent_get_output(bev), on_reply_out, NULL);
    broker_conn_track(bev);
    return bev;
}

/* ---- request checks ---- */

/* 0 when the request may proceed; else an error reply was sent. */
static int
check_peer(struct api_ctx *c)
{
    struct evhttp_connection *conn = evhttp_request_get_connection(c->req);
    struct bufferevent *bev = evhttp_connection_get_bufferevent(conn);
    int fd = bev ? bufferevent_getfd(bev) : -1;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    if (fd < 0 || getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
        api_reply_error(
            c->req, 500, "internal", "cannot inspect the connection");
        return -1;
    }
    if (ss.ss_family == AF_UNIX) {
        struct ucred cred;
        socklen_t cl = sizeof(cred);
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 ||
            cred.uid != getuid()) {
            api_reply_error(c->req, 403, "forbidden",
                "the daemon serves its own user only");
            return -1;
        }
        return 0;
    }
    /* TCP (loopback): Host and Origin, and a token for all but the map's
     * page (api_map.c) */
    return api_map_check_tcp(c, &ss);
}

static int
read_body(struct api_ctx *c)
{
    struct evbuffer *in = evhttp_request_get_input_buffer(c->req);
    size_t len = evbuffer_get_length(in);
    if (!len) {
        c->body = json_object();
        return 0;
    }
    char *data = xmalloc(len + 1);
    evbuffer_remove(in, data, len);
    data[len] = '\0';
    json_error_t je;
    c->body = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    free(data);
    if (!c->body) {
        api_reply_error(c->req, 400, "bad_json",
            "malformed JSON at line %d: %s", je.line, je.text);
        return -1;
    }
    if (!json_is_object(c->body)) {
        api_reply_error(
            c->req, 400, "bad_json", "the body must be a JSON object");
        return -1;
    }
    return 0;
}

/* Unknown keys in a body are refused: a typo must not pass silently. */
int
api_check_keys(struct api_ctx *c, const char *const *allowed)
{
    const char *key;
    json_t *v;
    json_object_foreach(c->body, key, v)
    {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = !strcmp(*a, key);
        if (!ok) {
            api_reply_error(
                c->req, 400, "bad_field", "unknown field '%s'", key);
            return -1;
        }
    }
    return 0;
}

int
api_want_string(
    struct api_ctx *c, const char *key, bool required, size_t maxlen)
{
    json_t *v = json_object_get(c->body, key);
    if (!v) {
        if (required) {
            api_reply_error(c->req, 400, "bad_field", "'%s' is required", key);
            return -1;
        }
        return 0;
    }
    if (!json_is_string(v) || !json_string_length(v) ||
        json_string_length(v) > maxlen) {
        api_reply_error(c->req, 400, "bad_field",
            "'%s' must be a non-empty string of at most %zu bytes", key,
            maxlen);
        return -1;
    }
    return 0;
}

static bool
valid_id(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > 64)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                (*s >= '0' && *s <= '9') || strchr("._-@:+", *s)))
            return false;
    return true;
}

ssize_t
api_agent_arg(struct api_ctx *c, size_t seg)
{
    ssize_t i = broker_find_agent(c->b, c->seg[seg]);
    if (i < 0)
        api_reply_error(
            c->req, 404, "unknown_agent", "no agent '%s'", c->seg[seg]);
    return i;
}

/* -1, with the reply sent, when agent i is another daemon's copy: what it
 * does is done through its own daemon, which stores and announces it. */
static ssize_t
local_only(struct api_ctx *c, ssize_t i)
{
    if (i < 0 || !broker_who(c->b, (size_t)i)->peer)
        return i;
    const char *label = broker_who(c->b, (size_t)i)->label; /* its node */
    api_reply_error(c->req, 409, "refused",
        "'%s' is an agent of another daemon of the airspace (%s): it acts "
        "through its own daemon",
        c->b->ag[i].id, label ? label : "its node");
    return -1;
}

ssize_t
api_local_agent_arg(struct api_ctx *c, size_t seg)
{
    return local_only(c, api_agent_arg(c, seg));
}

/* ---- handlers ---- */

static void
h_status(struct api_ctx *c)
{
    struct broker *b = c->b;
    size_t active = 0, traffic = 0, resolution = 0;
    for (size_t i = 0; i < b->nagents; i++)
        active += broker_who(b, i)->status == AS_AGENT_ACTIVE;
    for (size_t k = 0; k < b->npairs; k++) {
        traffic +=
            b->pairs[k].live && b->pairs[k].adv.st.level == ADVISORY_TRAFFIC;
        resolution +=
            b->pairs[k].live && b->pairs[k].adv.st.level == ADVISORY_RESOLUTION;
    }
    json_t *esc = broker_escalations_json(b, NULL);
    json_t *st = json_pack("{s:s, s:I, s:I, s:s, s:s?, s:s, s:{s:I, s:I}, "
                           "s:{s:I, s:I}, s:I, s:I}",
        "version", "1", "pid", (json_int_t)getpid(), "startedAt",
        (json_int_t)b->started_at, "repository", b->paths.common_dir,
        "integration", b->integration, "socket", b->paths.socket, "agents",
        "total", (json_int_t)b->nagents, "active", (json_int_t)active,
        "advisories", "traffic", (json_int_t)traffic, "resolution",
        (json_int_t)resolution, "escalations", (json_int_t)json_array_size(esc),
        "lastEventId", (json_int_t)(b->next_event_id - 1));
    json_object_set_new(st, "index", broker_index_json(b));
    json_object_set_new(st, "store", broker_store_json(b));
    json_object_set_new(st, "watch",
        json_pack("{s:s, s:I, s:I, s:I, s:I}", "state",
            b->inotify_fd < 0     ? "off"
            : b->watch_incomplete ? "incomplete"
            : b->watch_overflow   ? "overflowed"
                                  : "complete",
            "reads", (json_int_t)b->stat_reads, "limitedReads",
            (json_int_t)b->stat_limited_reads, "rescans",
            (json_int_t)b->stat_rescans, "fullRescans",
            (json_int_t)b->stat_full_rescans));
    json_object_set_new(st, "merges",
        json_pack("{s:I, s:I}", "run", (json_int_t)b->stat_merges, "later",
            (json_int_t)b->stat_merges_later));
    json_object_set_new(st, "alerts", broker_alerts_status(b));
    api_reply_json(c->req, 200, st);
    json_decref(esc);
}

static void
h_agents(struct api_ctx *c)
{
    json_t *v = json_array();
    const char *files = evhttp_find_header(&c->query, "files");
    for (size_t i = 0; i < c->b->nagents; i++)
        json_array_append_new(
            v, broker_agent_json(c->b, i, files && !strcmp(files, "1")));
    api_reply_json(c->req, 200, json_pack("{s:o}", "agents", v));
}

static void
h_agent(struct api_ctx *c)
{
    ssize_t i = api_agent_arg(c, 2);
    if (i < 0)
        return;
    json_t *o = broker_agent_json(c->b, (size_t)i, true);
    json_object_set_new(
        o, "escalations", broker_escalations_json(c->b, c->b->ag[i].id));
    api_reply_json(c->req, 200, o);
}

static void
h_register(struct api_ctx *c)
{
    static const char *const keys[] = { "id", "kind", "client", "label",
        "worktree", "branch", "lanes", NULL };
    if (api_check_keys(c, keys) || api_want_string(c, "id", false, 64) ||
        api_want_string(c, "client", false, 64) ||
        api_want_string(c, "label", false, 128) ||
        api_want_string(c, "worktree", false, 4096) ||
        api_want_string(c, "branch", false, 256) ||
        api_want_string(c, "kind", false, 16))
        return;
    const char *id = json_string_value(json_object_get(c->body, "id"));
    if (id && !valid_id(id)) {
        api_reply_error(c->req, 400, "bad_field",
            "'id' may hold letters, digits and ._-@:+ (at most 64)");
        return;
    }
    if (id && team_copy_name(c->b, id)) {
        api_reply_error(c->req, 409, "refused",
            "'%s' has the shape of another daemon's agent on this shared "
            "store (<id>@<6 hex digits of its node>): an agent here cannot "
            "take it",
            id);
        return;
    }
    const char *kind = json_string_value(json_object_get(c->body, "kind"));
    if (kind && strcmp(kind, "agent") && strcmp(kind, "human")) {
        api_reply_error(c->req, 400, "bad_field",
            "'kind' must be 'agent' or 'human', not '%s'", kind);
        return;
    }
    json_t *lanes = json_object_get(c->body, "lanes");
    if (lanes) {
        bool ok = json_is_array(lanes) && json_array_size(lanes) <= 64;
        size_t k;
        json_t *l;
        json_array_foreach(lanes, k, l) ok =
            ok && json_is_string(l) && json_string_length(l) > 0;
        if (!ok) {
            api_reply_error(c->req, 400, "bad_field",
                "'lanes' must be an array of at most 64 globs");
            return;
        }
        /* as the conflict detector takes them: "@name" or a glob */
        json_array_foreach(lanes, k, l)
        {
            const char *lane = json_string_value(l);
            struct glob *g;
            struct as_err ge;
            if (lane[0] == '@' && lane[1])
                continue;
            if (glob_compile(lane, &g, &ge) < 0) {
                api_reply_error(c->req, 400, "bad_field",
                    "lanes[%zu] '%s' is not a glob: %s", k, lane, ge.msg);
                return;
            }
            glob_free(g);
        }
    }
    const char *wt = json_string_value(json_object_get(c->body, "worktree"));
    if (wt && wt[0] != '/') {
        api_reply_error(
            c->req, 400, "bad_field", "'worktree' must be an absolute path");
        return;
    }
    /* a worktree of this repository, at its top: what the daemon reads the
     * agent's work from (nothing else could be read, now or later) */
    if (wt) {
        char *real = realpath(wt, NULL);
        git_repository *g = NULL;
        struct as_err we;
        if (!real || repo_open_worktree(c->b->repo, real, &g, &we) < 0) {
            api_reply_error(c->req, 400, "bad_path",
                "'worktree' '%s' is not the top of a worktree of this "
                "repository%s%s",
                wt, real ? ": " : " (no such directory)", real ? we.msg : "");
            free(real);
            return;
        }
        git_repository_free(g);
        free(real);
    }
    size_t i;
    bool created;
    struct as_err e;
    int rc = broker_register(c->b, c->body, &i, &created, &e);
    if (rc) {
        api_reply_error(
            c->req, rc == AS_ECONFLICT ? 409 : 400, "refused", "%s", e.msg);
        return;
    }
    json_t *doc = broker_agent_json(c->b, i, false);
    json_object_set_new(doc, "created", json_boolean(created));
    api_reply_json(c->req, 200, doc);
}

static void
h_heartbeat(struct api_ctx *c)
{
    ssize_t i = api_local_agent_arg(c, 2);
    if (i < 0)
        return;
    struct as_req r = { .agent = c->b->ag[i].id };
    struct as_result res;
    as_result_init(&res);
    struct as_events ev;
    as_events_init(&ev);
    char *id = xstrdup(r.agent);
    as_heartbeat(broker_airspace(c->b), broker_now(), &r, &res, &ev);
    bool back = false; /* broker_set_status stores it */
    for (size_t k = 0; k < ev.n; k++)
        back = back || ev.v[k].kind == AS_EV_AGENT_STATUS;
    broker_airspace_events(c->b, &ev);
    as_events_release(&ev);
    as_result_release(&res);
    i = broker_find_agent(c->b, id); /* a worktree's human came or went */
    free(id);
    if (!back)
        broker_persist_agent(c->b, (size_t)i);
    api_reply_json(c->req, 200, broker_agent_json(c->b, (size_t)i, false));
}

static void
h_exit(struct api_ctx *c)
{
    ssize_t i = api_local_agent_arg(c, 2);
    if (i < 0)
        return;
    /* its last word; its locks released, then it is exited */
    struct as_req r = { .agent = c->b->ag[i].id };
    struct as_result res;
    as_result_init(&res);
    struct as_events ev;
    as_events_init(&ev);
    char *id = xstrdup(r.agent);
    as_exit(broker_airspace(c->b), broker_now(), &r, &res, &ev);
    broker_airspace_events(c->b, &ev);
    as_events_release(&ev);
    as_result_release(&res);
    i = broker_find_agent(c->b, id); /* its worktree's human may have left */
    free(id);
    api_reply_json(c->req, 200, broker_agent_json(c->b, (size_t)i, false));
}

/* A reported edit (agents sharing one working tree): path and ranges. */
static void
h_edit(struct api_ctx *c)
{
    static const char *const keys[] = { "path", "lines", "status", NULL };
    ssize_t i = api_local_agent_arg(c, 2);
    if (i < 0 || api_check_keys(c, keys) ||
        api_want_string(c, "path", true, 4096))
        return;
    /* its reports are gone */
    if (broker_who(c->b, i)->status == AS_AGENT_EXITED) {
        api_reply_error(c->req, 409, "refused",
            "agent '%s' has exited; register it again first", c->b->ag[i].id);
        return;
    }
    char *norm;
    const char *path = json_string_value(json_object_get(c->body, "path"));
    if (api_norm_path(c, (size_t)i, path, &norm) < 0) {
        api_reply_error(c->req, 400, "bad_path",
            "path '%s' is not a file inside the repository", path);
        return;
    }
    enum ws_status st = WS_MODIFIED;
    const char *sname = json_string_value(json_object_get(c->body, "status"));
    if (sname && ws_status_parse(sname, &st) < 0) {
        free(norm);
        api_reply_error(c->req, 400, "bad_field", "unknown status '%s'", sname);
        return;
    }
    json_t *lines = json_object_get(c->body, "lines");
    struct range_set rs;
    range_set_init(&rs);
    if (lines) {
        bool ok = json_is_array(lines);
        size_t k;
        json_t *r;
        json_array_foreach(lines, k, r)
        {
            json_int_t s0 = json_integer_value(json_array_get(r, 0));
            json_int_t s1 = json_integer_value(json_array_get(r, 1));
            if (!json_is_array(r) || json_array_size(r) != 2 || s0 < 1 ||
                s1 < 1 || s0 > UINT32_MAX || s1 > UINT32_MAX) {
                ok = false;
                break;
            }
            range_set_add(&rs, (uint32_t)s0, (uint32_t)s1);
        }
        if (!ok) {
            range_set_release(&rs);
            free(norm);
            api_reply_error(c->req, 400, "bad_field",
                "'lines' must be [[start, end], ...] with lines >= 1");
            return;
        }
    }
    struct broker *b = c->b;
    broker_drop_engine(b);
    /* into its working set now, and into its reports, which a shared
     * worktree's working sets are made of at each read of git */
    struct agent *into[2] = { &b->ag[i], &b->meta[i].reports };
    for (size_t t = 0; t < 2; t++) {
        struct ws_file *f = agent_add_file(into[t], norm, st);
        f->status = st;
        if (!lines || st != WS_MODIFIED)
            f->whole = true;
        for (size_t k = 0; k < rs.n; k++)
            range_set_add(&f->ranges, rs.v[k].start, rs.v[k].end);
        f->changed_at_ms = broker_now();
        f->weight = 1.0;
        if (t == 1) /* acknowledged below: stored in this transaction */
            broker_persist_report(b, (size_t)i, f);
        agent_sort(into[t]);
    }
    range_set_release(&rs);
    broker_agent_seen(b, (size_t)i);
    /* Activity on a file renews the agent's locks covering it. */
    struct as_req tr = { .agent = b->ag[i].id, .pattern = norm };
    struct as_result tres;
    as_result_init(&tres);
    struct as_events tev;
    as_events_init(&tev);
    as_touch(broker_airspace(b), broker_now(), &tr, &tres, &tev);
    broker_airspace_events(b, &tev); /* persisted, not announced */
    as_events_release(&tev);
    as_result_release(&tres);
    json_t *d = json_pack("{s:s}", "path", norm);
    free(norm);
    broker_emit(b, "workset.edit", b->ag[i].id, d);
    broker_rescore(b, (size_t)i);
    if (broker_who(b, i)->shared)
        broker_refresh_residual(b, b->ag[i].worktree);
    api_reply_json(c->req, 200, broker_agent_json(b, (size_t)i, true));
}

/* Whether v is null or a commit id: 40 (SHA-1) or 64 (SHA-256) lowercase
 * hex digits. */
static bool
is_oid(json_t *v, bool null_ok)
{
    if (json_is_null(v))
        return null_ok;
    const char *s = json_string_value(v);
    size_t n = s ? strlen(s) : 0;
    if (n != 40 && n != 64)
        return false;
    return strspn(s, "0123456789abcdef") == n;
}

#define API_COMMIT_FILES_MAX 100000

/* A commit the agent made (airspace commit): checked whole, recorded as a
 * git.commit event, and the agent's working set read again from git. */
static void
h_commits(struct api_ctx *c)
{
    static const char *const keys[] = { "commit", "branch", "parent", "files",
        "subject", NULL };
    static const char *const statuses[] = { "added", "modified", "deleted",
        "mode", "typechange" };
    ssize_t i = api_local_agent_arg(c, 2);
    if (i < 0 || api_check_keys(c, keys) ||
        api_want_string(c, "subject", false, 4096))
        return;
    json_t *body = c->body;
    json_t *branch = json_object_get(body, "branch");
    json_t *files = json_object_get(body, "files");
    if (!is_oid(json_object_get(body, "commit"), false)) {
        api_reply_error(c->req, 400, "bad_field",
            "'commit' must be a commit id (40 or 64 lowercase hex digits)");
        return;
    }
    if (json_object_get(body, "parent") &&
        !is_oid(json_object_get(body, "parent"), true)) {
        api_reply_error(c->req, 400, "bad_field",
            "'parent' must be a commit id or null (a root commit)");
        return;
    }
    if (branch && !json_is_null(branch) &&
        (!json_is_string(branch) || !json_string_length(branch) ||
            json_string_length(branch) > 1024)) {
        api_reply_error(c->req, 400, "bad_field",
            "'branch' must be a non-empty string of at most 1024 bytes or "
            "null (a detached HEAD)");
        return;
    }
    if (!json_is_array(files) || !json_array_size(files) ||
        json_array_size(files) > API_COMMIT_FILES_MAX) {
        api_reply_error(c->req, 400, "bad_field",
            "'files' must be an array of 1 to %d {path, status}",
            API_COMMIT_FILES_MAX);
        return;
    }
    json_t *clean = json_array();
    size_t k;
    json_t *f;
    json_array_foreach(files, k, f)
    {
        json_t *jp = json_object_get(f, "path");
        const char *st = json_string_value(json_object_get(f, "status"));
        bool known = false;
        for (size_t t = 0; st && t < sizeof(statuses) / sizeof(*statuses); t++)
            known = known || !strcmp(st, statuses[t]);
        if (!json_is_object(f) || json_object_size(f) != 2 ||
            !json_is_string(jp) || json_string_length(jp) > 4096 || !known) {
            json_decref(clean);
            api_reply_error(c->req, 400, "bad_field",
                "'files[%zu]' must be {path, status} with status added, "
                "modified, deleted, mode or typechange",
                k);
            return;
        }
        char *norm;
        if (api_norm_path(c, (size_t)i, json_string_value(jp), &norm) < 0) {
            json_decref(clean);
            api_reply_error(c->req, 400, "bad_path",
                "path '%s' is not a file inside the repository",
                json_string_value(jp));
            return;
        }
        json_array_append_new(
            clean, json_pack("{s:s, s:s}", "path", norm, "status", st));
        free(norm);
    }
    struct broker *b = c->b;
    json_t *parent = json_object_get(body, "parent");
    json_t *d = json_pack("{s:O, s:O, s:O, s:o}", "commit",
        json_object_get(body, "commit"), "branch",
        branch ? branch : json_null(), "parent", parent ? parent : json_null(),
        "files", clean);
    json_t *subject = json_object_get(body, "subject");
    if (subject)
        json_object_set(d, "subject", subject);
    broker_agent_seen(b, (size_t)i);
    broker_emit(b, "git.commit", b->ag[i].id, d);
    uint64_t id = b->next_event_id - 1;
    /* what it committed is no longer its change against a base that
     * moved with it: read its worktree again */
    const char *wt = b->ag[i].worktree;
    struct as_err e;
    if (wt && broker_who(b, i)->shared) {
        broker_refresh_residual(b, wt);
    } else if (wt && broker_who(b, i)->from_worktree) {
        if (broker_refresh_agent(b, (size_t)i, &e))
            broker_log(b, "refresh %s: %s", b->ag[i].id, e.msg);
        json_t *w = json_object();
        json_object_set_new(
            w, "files", json_integer((json_int_t)b->ag[i].nfiles));
        broker_emit(b, "workset.changed", b->ag[i].id, w);
        broker_rescore(b, (size_t)i);
    } else if (broker_rescan(b, &e)) { /* which worktree: not known */
        broker_log(b, "rescan: %s", e.msg);
    }
    json_t *o = json_pack("{s:I}", "event", (json_int_t)id);
    json_object_set_new(o, "agent", broker_agent_json(b, (size_t)i, true));
    api_reply_json(c->req, 200, o);
}

static void
h_advisories(struct api_ctx *c)
{
    const char *all = evhttp_find_header(&c->query, "all");
    const char *agent = evhttp_find_header(&c->query, "agent");
    bool every = all && !strcmp(all, "1");
    json_t *v = json_array();
    for (size_t k = 0; k < c->b->npairs; k++) {
        struct bpair *p = &c->b->pairs[k];
        if (!p->live || (!every && p->adv.st.level == ADVISORY_CLEAR))
            continue;
        if (agent && strcmp(agent, p->a) && strcmp(agent, p->b))
            continue;
        json_array_append_new(v, broker_pair_json(c->b, k, true));
    }
    api_reply_json(c->req, 200,
        json_pack("{s:o, s:o, s:o}", "advisories", v, "escalations",
            broker_escalations_json(c->b, agent), "alerts",
            broker_alerts_json(c->b, agent)));
}

static void
h_events(struct api_ctx *c)
{
    const char *last = evhttp_find_header(
        evhttp_request_get_input_headers(c->req), "Last-Event-ID");
    const char *after = evhttp_find_header(&c->query, "after");
    const char *s = last ? last : after;
    uint64_t n = 0;
    if (s) {
        char *end;
        errno = 0;
        n = strtoull(s, &end, 10);
        if (errno || *end || end == s) {
            api_reply_error(c->req, 400, "bad_field",
                "Last-Event-ID / after must be an event id, not '%s'", s);
            return;
        }
    }
    broker_sse_attach(c->b, c->req, s != NULL, n);
}

static void
h_refresh(struct api_ctx *c)
{
    static const char *const keys[] = { "git", NULL };
    if (api_check_keys(c, keys))
        return;
    json_t *git = json_object_get(c->body, "git");
    if (git && !json_is_boolean(git)) {
        api_reply_error(c->req, 400, "bad_field", "'git' must be a boolean");
        return;
    }
    struct as_err e;
    if (json_is_true(git) ? broker_refresh_git(c->b, &e)
                          : broker_rescan(c->b, &e)) {
        api_reply_error(c->req, 500, "git", "%s", e.msg);
        return;
    }
    api_reply_json(c->req, 200, json_pack("{s:b}", "ok", 1));
}

static void
h_stop(struct api_ctx *c)
{
    api_reply_json(c->req, 200, json_pack("{s:b}", "stopping", 1));
    c->b->stopping = true;
    struct timeval soon = { 0, 1000 };
    event_base_loopexit(c->b->base, &soon);
}

/* ---- locks and claims ---- */

/* Whether path (as spelled on disk) names a file: a directory in the main
 * worktree says no; a file, or nothing yet (a file about to be created),
 * yes; a trailing '/' means a directory. */
static bool
api_path_is_file(struct broker *b, const char *path)
{
    size_t n = strlen(path);
    if (!n || path[n - 1] == '/')
        return false;
    const char *root = repo_main_workdir(b->repo);
    char *full = path[0] == '/' ? xstrdup(path)
                                : xasprintf("%s/%s", root ? root : ".", path);
    struct stat sb;
    bool file = stat(full, &sb) < 0 || !S_ISDIR(sb.st_mode);
    free(full);
    return file;
}

/* Whether a wildcard-free pattern names a file (exact overlap checks), as
 * api_path_is_file() says for the path it names once its escapes are out
 * ("app/\[id\]/page.tsx" is the file app/[id]/page.tsx). */
static bool
api_pattern_is_file(struct broker *b, const char *pattern)
{
    char *path = glob_literal(pattern);
    bool file = path && api_path_is_file(b, path);
    free(path);
    return file;
}

/* Agent i acts in its own name (locks, contests): 0 when it may, with a
 * stale agent made active again (its contact, as a heartbeat); -1 after a
 * 409 reply for an agent that exited. */
static int
api_agent_active(struct api_ctx *c, size_t i)
{
    struct as_req r = { .agent = c->b->ag[i].id };
    struct as_result res;
    as_result_init(&res);
    struct as_events ev;
    as_events_init(&ev);
    int rc = as_contact(broker_airspace(c->b), broker_now(), &r, &res, &ev);
    broker_airspace_events(c->b, &ev); /* a stale agent is back */
    as_events_release(&ev);
    if (rc)
        api_reply_error(
            c->req, broker_airspace_status(&res), res.code, "%s", res.err.msg);
    as_result_release(&res);
    return rc ? -1 : 0;
}

int
api_norm_path(struct api_ctx *c, size_t i, const char *path, char **out)
{
    *out = NULL;
    if (!path || !*path)
        return AS_EINVAL;
    if (path[0] == '/') {
        const char *roots[] = { c->b->ag[i].worktree,
            repo_main_workdir(c->b->repo) };
        for (size_t k = 0; k < 2 && !*out; k++)
            if (roots[k] && path_normalize(path, roots[k], out) < 0)
                *out = NULL;
        if (!*out)
            return AS_EINVAL;
    } else if (path_normalize(path, NULL, out) < 0) {
        return AS_EINVAL;
    }
    if (!**out) {
        free(*out);
        *out = NULL;
        return AS_EINVAL;
    }
    return 0;
}

/* The agent named in the body, which must exist; its index or -1. */
ssize_t
api_body_agent(struct api_ctx *c, const char *key)
{
    if (api_want_string(c, key, true, 64))
        return -1;
    const char *id = json_string_value(json_object_get(c->body, key));
    ssize_t i = broker_find_agent(c->b, id);
    if (i < 0)
        api_reply_error(c->req, 404, "unknown_agent", "no agent '%s'", id);
    return local_only(c, i);
}

int
api_body_ttl(struct api_ctx *c, int64_t *ttl)
{
    json_t *v = json_object_get(c->body, "ttlMs");
    *ttl = LOCK_TTL_DEFAULT;
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) <= 0) {
        api_reply_error(c->req, 400, "bad_field",
            "'ttlMs' must be a positive integer (milliseconds)");
        return -1;
    }
    *ttl = (int64_t)json_integer_value(v);
    return 0;
}

/* A refused lock operation: the machine's code and message, with the
 * lock in the way (held on a grant) or the agent's own (stale_token). */
/* The time a lock's expiry is read at: the database's clock on a shared
 * store (docs/team.md, "Leases": a machine whose clock is ahead took
 * other machines' locks for expired), else this machine's. */
static int64_t
lock_now(struct broker *b)
{
    return team_clock(b, broker_now());
}

static void
lock_refused(struct api_ctx *c, const struct as_result *res, bool holder)
{
    json_t *err =
        json_pack("{s:s, s:s}", "code", res->code, "message", res->err.msg);
    if (res->have_lock && (holder || !strcmp(res->code, "stale_token")))
        json_object_set_new(
            err, "holder", broker_lock_json(&res->lock, lock_now(c->b)));
    api_reply_json(
        c->req, broker_airspace_status(res), json_pack("{s:o}", "error", err));
}

static void
h_locks(struct api_ctx *c)
{
    size_t n;
    int64_t now = lock_now(c->b);
    const struct lock *const *v = lock_table_list(c->b->locks, now, &n);
    const char *agent = evhttp_find_header(&c->query, "agent");
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        if (!agent || !strcmp(v[i]->holder, agent))
            json_array_append_new(a, broker_lock_json(v[i], now));
    api_reply_json(c->req, 200, json_pack("{s:o}", "locks", a));
}

static void
h_lock(struct api_ctx *c)
{
    static const char *const keys[] = { "agent", "pattern", "mode", "kind",
        "ttlMs", "reason", NULL };
    ssize_t i;
    int64_t ttl;
    if (api_check_keys(c, keys) || (i = api_body_agent(c, "agent")) < 0 ||
        api_want_string(c, "pattern", true, 4096) ||
        api_want_string(c, "mode", false, 16) ||
        api_want_string(c, "kind", false, 16) ||
        api_want_string(c, "reason", false, 1024) || api_body_ttl(c, &ttl))
        return;
    struct as_err e;
    struct lock_request r = { 0 };
    r.pattern = json_string_value(json_object_get(c->body, "pattern"));
    r.holder = c->b->ag[i].id;
    r.ttl_ms = ttl;
    r.reason = json_string_value(json_object_get(c->body, "reason"));
    const char *m = json_string_value(json_object_get(c->body, "mode"));
    const char *k = json_string_value(json_object_get(c->body, "kind"));
    if ((m && lock_mode_parse(m, &r.mode, &e)) ||
        (k && lock_kind_parse(k, &r.kind, &e))) {
        api_reply_error(c->req, 400, "bad_field", "%s", e.msg);
        return;
    }
    if (api_agent_active(c, (size_t)i))
        return;
    r.file = api_pattern_is_file(c->b, r.pattern);
    int64_t now;
    if (team_locks_begin(c->b, &now, &e)) {
        team_locks_end(c->b);
        api_reply_error(c->req, 503, "store_unreachable", "%s", e.msg);
        return;
    }
    struct as_req q = { .agent = r.holder,
        .pattern = r.pattern,
        .mode = r.mode,
        .kind = r.kind,
        .ttl_ms = r.ttl_ms,
        .reason = r.reason,
        .file = r.file };
    struct as_result res;
    as_result_init(&res);
    struct as_events ev;
    as_events_init(&ev);
    int rc = as_lock(broker_airspace(c->b), now, &q, &res, &ev);
    broker_airspace_events(c->b, &ev);
    as_events_release(&ev);
    team_locks_end(c->b);
    broker_agent_seen(c->b, (size_t)i);
    if (rc) {
        lock_refused(c, &res, true);
        as_result_release(&res);
        return;
    }
    json_t *o = broker_lock_json(&res.lock, lock_now(c->b));
    json_object_set_new(o, "outcome",
        json_string(res.outcome == LOCK_REFRESHED ? "refreshed" : "granted"));
    api_reply_json(c->req, 200, o);
    as_result_release(&res);
}

enum lock_op { OP_RELEASE, OP_RENEW, OP_CONTEST, OP_FORCE };

static void
lock_op(struct api_ctx *c, enum lock_op op)
{
    static const char *const keys[] = { "agent", "pattern", "ttlMs", "token",
        NULL };
    ssize_t i;
    int64_t ttl;
    if (api_check_keys(c, keys) || (i = api_body_agent(c, "agent")) < 0 ||
        api_want_string(c, "pattern", true, 4096) || api_body_ttl(c, &ttl))
        return;
    json_t *tok = json_object_get(c->body, "token");
    if (tok && (op == OP_CONTEST || op == OP_FORCE)) {
        api_reply_error(c->req, 400, "bad_field",
            "'token' is for release and renew (the token of your grant)");
        return;
    }
    if (tok && (!json_is_integer(tok) || json_integer_value(tok) <= 0)) {
        api_reply_error(c->req, 400, "bad_field",
            "'token' must be the fencing token of your grant (an integer > 0)");
        return;
    }
    const char *pattern =
        json_string_value(json_object_get(c->body, "pattern"));
    /* taking a claim away is acting: not for an agent that left */
    if ((op == OP_CONTEST || op == OP_FORCE) && api_agent_active(c, (size_t)i))
        return;
    const char *who = c->b->ag[i].id;
    int64_t now;
    struct as_err e;
    if (team_locks_begin(c->b, &now, &e)) {
        team_locks_end(c->b);
        api_reply_error(c->req, 503, "store_unreachable", "%s", e.msg);
        return;
    }
    /* the fencing rule (a release or renew of a lock the agent holds
     * names its grant) and the claim rules are the machine's */
    struct as_req q = { .agent = who,
        .pattern = pattern,
        .ttl_ms = ttl,
        .token = tok ? (uint64_t)json_integer_value(tok) : 0 };
    struct as_result res;
    as_result_init(&res);
    struct as_events ev;
    as_events_init(&ev);
    struct airspace *as = broker_airspace(c->b);
    int rc = op == OP_RELEASE   ? as_release(as, now, &q, &res, &ev)
             : op == OP_RENEW   ? as_renew(as, now, &q, &res, &ev)
             : op == OP_CONTEST ? as_contest(as, now, &q, &res, &ev)
                                : as_force(as, now, &q, &res, &ev);
    broker_airspace_events(c->b, &ev);
    as_events_release(&ev);
    team_locks_end(c->b);
    broker_agent_seen(c->b, (size_t)i);
    if (rc < 0)
        lock_refused(c, &res, false);
    else if (res.have_lock && op != OP_RELEASE && op != OP_FORCE)
        api_reply_json(c->req, 200, broker_lock_json(&res.lock, now));
    else
        api_reply_json(c->req, 200, json_pack("{s:b}", "ok", 1));
    as_result_release(&res);
}

static void
h_release(struct api_ctx *c)
{
    lock_op(c, OP_RELEASE);
}

static void
h_renew(struct api_ctx *c)
{
    lock_op(c, OP_RENEW);
}

static void
h_contest(struct api_ctx *c)
{
    lock_op(c, OP_CONTEST);
}

static void
h_force(struct api_ctx *c)
{
    lock_op(c, OP_FORCE);
}

static void
h_check(struct api_ctx *c)
{
    static const char *const keys[] = { "agent", "path", "mode", NULL };
    if (api_check_keys(c, keys) || api_want_string(c, "agent", true, 64) ||
        api_want_string(c, "path", true, 4096) ||
        api_want_string(c, "mode", false, 16))
        return;
    const char *agent = json_string_value(json_object_get(c->body, "agent"));
    const char *path = json_string_value(json_object_get(c->body, "path"));
    enum lock_mode mode = LOCK_EXCLUSIVE;
    struct as_err e;
    const char *m = json_string_value(json_object_get(c->body, "mode"));
    if (m && lock_mode_parse(m, &mode, &e)) {
        api_reply_error(c->req, 400, "bad_field", "%s", e.msg);
        return;
    }
    /* The path names a file (or a directory) as it is spelled on disk,
     * never a pattern: escaped, each lock's glob is matched against the
     * name, so app/[locale]/page.tsx is not taken for a glob that meets
     * every "*.md" lock. Made relative first, as the root may hold the
     * same characters; a path the table refuses goes as given, for its
     * message. */
    char *norm = NULL;
    char *pattern =
        !path_normalize(path, repo_main_workdir(c->b->repo), &norm) && *norm
            ? glob_escape(norm)
            : xstrdup(path);
    struct as_req r = { .agent = agent,
        .pattern = pattern,
        .mode = mode,
        .file = api_path_is_file(c->b, path) };
    struct as_result res;
    as_result_init(&res);
    int rc = as_check(broker_airspace(c->b), lock_now(c->b), &r, &res);
    free(pattern);
    free(norm);
    if (rc && rc != AS_ECONFLICT) {
        api_reply_error(c->req, 400, res.code, "%s", res.err.msg);
        as_result_release(&res);
        return;
    }
    json_t *o = json_pack("{s:b}", "free", rc == 0);
    if (res.have_lock) {
        json_object_set_new(
            o, "holder", broker_lock_json(&res.lock, lock_now(c->b)));
        json_object_set_new(o, "message", json_string(res.err.msg));
    }
    api_reply_json(c->req, 200, o);
    as_result_release(&res);
}

static const struct api_route routes[] = {
    { EVHTTP_REQ_GET, "v1/status", h_status },
    { EVHTTP_REQ_GET, "v1/agents", h_agents },
    { EVHTTP_REQ_POST, "v1/agents", h_register },
    { EVHTTP_REQ_GET, "v1/agents/*", h_agent },
    { EVHTTP_REQ_POST, "v1/agents/*/heartbeat", h_heartbeat },
    { EVHTTP_REQ_POST, "v1/agents/*/exit", h_exit },
    { EVHTTP_REQ_POST, "v1/agents/*/edits", h_edit },
    { EVHTTP_REQ_POST, "v1/agents/*/commits", h_commits },
    { EVHTTP_REQ_GET, "v1/advisories", h_advisories },
    { EVHTTP_REQ_GET, "v1/events", h_events },
    { EVHTTP_REQ_GET, "v1/locks", h_locks },
    { EVHTTP_REQ_POST, "v1/locks", h_lock },
    { EVHTTP_REQ_POST, "v1/locks/release", h_release },
    { EVHTTP_REQ_POST, "v1/locks/renew", h_renew },
    { EVHTTP_REQ_POST, "v1/locks/contest", h_contest },
    { EVHTTP_REQ_POST, "v1/locks/force-release", h_force },
    { EVHTTP_REQ_POST, "v1/locks/check", h_check },
    { EVHTTP_REQ_POST, "v1/refresh", h_refresh },
    { EVHTTP_REQ_POST, "v1/stop", h_stop },
};

/* Route tables: the core routes above, then each extension's. */
static const struct api_route *const tables[] = { routes, api_collab_routes,
    api_team_routes, api_alerts_routes, api_map_routes };
static const size_t *const table_sizes[] = { NULL, &api_collab_nroutes,
    &api_team_nroutes, &api_alerts_nroutes, &api_map_nroutes };

/* Whether a request may change state (and so the store): every POST but
 * a stop and a lock check, and an inbox read that marks messages read. */
static bool
writes(struct api_ctx *c, const struct api_route *r)
{
    if (r->method == EVHTTP_REQ_POST)
        return strcmp(r->pattern, "v1/stop") &&
               strcmp(r->pattern, "v1/locks/check") &&
               strcmp(r->pattern, "v1/fleet/*"); /* memory only */
    if (!strcmp(r->pattern, "v1/agents/*/inbox")) {
        const char *peek = evhttp_find_header(&c->query, "peek");
        return !(peek && !strcmp(peek, "1"));
    }
    return false;
}

/* A write while the store refuses writes is answered 507 `store_full` or
 * 503 `store_failed` before it changes anything. */
static int
refuse_write(struct api_ctx *c, const struct api_route *r)
{
    struct as_err e;
    int status;
    if (!writes(c, r) || !(status = broker_store_refusal(c->b, &e)))
        return 0;
    api_reply_error(c->req, status,
        status == 507              ? "store_full"
        : db_unreachable(c->b->db) ? "store_unreachable"
                                   : "store_failed",
        "%s", e.msg);
    return -1;
}

static bool
route_matches(const char *pattern, struct api_ctx *c)
{
    size_t k = 0;
    const char *p = pattern;
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (k >= c->nseg)
            return false;
        if (!(len == 1 && *p == '*') &&
            (strlen(c->seg[k]) != len || strncmp(c->seg[k], p, len)))
            return false;
        k++;
        p += len + (slash ? 1 : 0);
    }
    return k == c->nseg;
}

/*
 * Whether the query string q is well formed; why says what is wrong when
 * not. Parameters are split at '&' as evhttp_parse_query_str() splits them
 * (an '&' at the end is none); each must be NAME=VALUE with a name (that
 * function refuses the rest without saying which), and every '%' must
 * start an escape of two hex digits (it keeps any other as it is).
 */
static bool
query_ok(const char *q, char *why, size_t len)
{
    static const char hex[] = "0123456789abcdefABCDEF";
    for (const char *p = q; *p;) {
        size_t n = strcspn(p, "&"), name = strcspn(p, "=&");
        int shown = n > 64 ? 64 : (int)n;
        if (!n) {
            snprintf(why, len,
                "malformed query string: an empty parameter ('&&' or a "
                "leading '&')");
            return false;
        }
        if (name == n) {
            snprintf(why, len,
                "malformed query string: '%.*s' is not NAME=VALUE", shown, p);
            return false;
        }
        if (!name) {
            snprintf(why, len,
                "malformed query string: '%.*s' has no parameter name", shown,
                p);
            return false;
        }
        for (size_t i = 0; i < n; i++) {
            if (p[i] != '%')
                continue;
            size_t k = 1;
            while (k < 3 && i + k < n && p[i + k] && strchr(hex, p[i + k]))
                k++;
            if (k < 3) {
                size_t end = i + 3 < n ? i + 3 : n;
                snprintf(why, len,
                    "malformed query string: '%.*s' is not a percent-escape "
                    "('%%' and two hex digits)",
                    (int)(end - i), p + i);
                return false;
            }
        }
        p += n + (p[n] ? 1 : 0);
    }
    return true;
}

void
broker_api_handle(struct evhttp_request *req, void *arg)
{
    struct api_ctx c;
    memset(&c, 0, sizeof(c));
    c.b = arg;
    c.req = req;
    c.b->busy_at = broker_now(); /* a client: not idle */
    TAILQ_INIT(&c.query);
    char why[128];
    if (broker_conn_request(req, why, sizeof(why))) {
        api_reply_error(req, 503, "too_many_connections", "%s", why);
        return;
    }
    if (check_peer(&c))
        return;
    enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
    if (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_POST &&
        cmd != EVHTTP_REQ_PUT && cmd != EVHTTP_REQ_DELETE) {
        evhttp_add_header(
            evhttp_request_get_output_headers(req), "Connection", "close");
        api_reply_error(req, 501, "not_implemented", "method not implemented");
        return;
    }
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
    const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
    const char *q = uri ? evhttp_uri_get_query(uri) : NULL;
    if (!path) {
        api_reply_error(req, 400, "bad_request", "no path");
        return;
    }
    if (q && !query_ok(q, why, sizeof(why))) {
        api_reply_error(req, 400, "bad_request", "%s", why);
        return;
    }
    if (q && evhttp_parse_query_str(q, &c.query) < 0) {
        api_reply_error(req, 400, "bad_request", "malformed query string");
        return;
    }
    /* Split the path into decoded segments. */
    char *copy = xstrdup(path);
    for (char *s = copy, *next; s && *s; s = next) {
        while (*s == '/')
            s++;
        if (!*s)
            break;
        next = strchr(s, '/');
        if (next)
            *next++ = '\0';
        if (c.nseg == API_MAX_SEGMENTS) {
            c.nseg++;
            break;
        }
        c.seg[c.nseg++] = evhttp_uridecode(s, 0, NULL);
    }
    free(copy);
    request_begin(c.b);
    const struct api_route *hit = NULL;
    bool path_known = false;
    for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]) && !hit; t++) {
        size_t n = table_sizes[t] ? *table_sizes[t]
                                  : sizeof(routes) / sizeof(routes[0]);
        for (size_t i = 0; i < n && c.nseg <= API_MAX_SEGMENTS; i++)
            if (route_matches(tables[t][i].pattern, &c)) {
                path_known = true;
                if (tables[t][i].method == evhttp_request_get_command(req)) {
                    hit = &tables[t][i];
                    break;
                }
            }
    }
    if (!hit) {
        if (path_known)
            api_reply_error(req, 405, "method_not_allowed",
                "method not allowed on '%s'", path);
        else
            api_reply_error(req, 404, "unknown_route", "no route '%s'", path);
    } else if (!refuse_write(&c, hit)) {
        enum evhttp_cmd_type m = evhttp_request_get_command(req);
        grp.writing = writes(&c, hit);
        if ((m != EVHTTP_REQ_POST && m != EVHTTP_REQ_PUT) || !read_body(&c))
            hit->fn(&c);
        grp.writing = false;
    }
    if (!grp.n)
        group_flush(); /* no reply waits (an event stream): commit now */
    for (size_t i = 0; i < c.nseg && i < API_MAX_SEGMENTS; i++)
        free(c.seg[i]);
    if (c.body)
        json_decref(c.body);
    evhttp_clear_headers(&c.query);
}

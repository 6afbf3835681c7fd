/*
 * api_map.c - the live map: its page and assets (embedded in the binary
 * from web/, map_assets.h), the file layout it draws (the 3-D embedding of
 * the import graph, core/embed.h), starting the loopback listener it is
 * served on, and the checks of every request on that listener: Host and
 * Origin must name this daemon's address, and every request but the
 * page's own files carries the token (docs/security.md, "The map").
 */
#include "broker/api.h"
#include "broker/agents.h"
#include "broker/index.h"
#include "broker/loop.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>

#include "broker/map_assets.h"
#include "core/embed.h"
#include "lang/lang.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* ---- checks on the loopback listener ---- */

/* Whether a equals b, in a time that depends on b's length only. */
static bool
token_equal(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char d = la != lb;
    for (size_t i = 0; i < lb; i++)
        d |= (unsigned char)((i < la ? a[i] : 0) ^ b[i]);
    return !d;
}

/* Whether s is "<prefix>127.0.0.1:<port>" or "<prefix>localhost:<port>". */
static bool
names_us(const char *s, const char *prefix, int port)
{
    char a[64], b[64];
    snprintf(a, sizeof(a), "%s127.0.0.1:%d", prefix, port);
    snprintf(b, sizeof(b), "%slocalhost:%d", prefix, port);
    return !strcasecmp(s, a) || !strcasecmp(s, b);
}

/* The page's own files: the only requests that need no token. */
static bool
is_page(const char *path)
{
    return !strcmp(path, "/") || !strncmp(path, "/map/", 5);
}

int
api_map_check_tcp(struct api_ctx *c, const struct sockaddr_storage *local)
{
    struct evkeyvalq *in = evhttp_request_get_input_headers(c->req);
    int port = local->ss_family == AF_INET
                   ? ntohs(((const struct sockaddr_in *)local)->sin_port)
                   : 0;
    /* a page of another site resolving its name to 127.0.0.1 (DNS
     * rebinding) sends its own name as Host; one calling us from the
     * browser sends its origin */
    const char *host = evhttp_find_header(in, "Host");
    if (!host || !names_us(host, "", port)) {
        api_reply_error(c->req, 403, "forbidden",
            "Host must be 127.0.0.1:%d or localhost:%d", port, port);
        return -1;
    }
    const char *origin = evhttp_find_header(in, "Origin");
    if (origin && !names_us(origin, "http://", port)) {
        api_reply_error(c->req, 403, "forbidden",
            "Origin must be http://127.0.0.1:%d or http://localhost:%d", port,
            port);
        return -1;
    }
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(c->req);
    const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
    enum evhttp_cmd_type m = evhttp_request_get_command(c->req);
    if (path && m == EVHTTP_REQ_GET && is_page(path))
        return 0;
    const char *auth = evhttp_find_header(in, "Authorization");
    bool ok = c->b->token && auth && !strncmp(auth, "Bearer ", 7) &&
              token_equal(auth + 7, c->b->token);
    /* EventSource sends no header of ours: the stream takes ?token= */
    const char *q = uri ? evhttp_uri_get_query(uri) : NULL;
    if (!ok && c->b->token && q && path && m == EVHTTP_REQ_GET &&
        !strcmp(path, "/v1/events")) {
        struct evkeyvalq qs;
        TAILQ_INIT(&qs);
        if (!evhttp_parse_query_str(q, &qs)) {
            const char *t = evhttp_find_header(&qs, "token");
            ok = t && token_equal(t, c->b->token);
        }
        evhttp_clear_headers(&qs);
    }
    if (!ok) {
        api_reply_error(c->req, 401, "unauthorized",
            "a bearer token is required (see <git-common-dir>/airspace/token)");
        return -1;
    }
    return 0;
}

/* ---- the page ---- */

static const char *
content_type(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot)
        return "application/octet-stream";
    if (!strcmp(dot, ".html"))
        return "text/html; charset=utf-8";
    if (!strcmp(dot, ".js"))
        return "text/javascript; charset=utf-8";
    if (!strcmp(dot, ".css"))
        return "text/css; charset=utf-8";
    if (!strcmp(dot, ".svg"))
        return "image/svg+xml";
    if (!strcmp(dot, ".png"))
        return "image/png";
    return "application/octet-stream";
}

static void
send_asset(struct api_ctx *c, const char *name)
{
    const struct map_asset *a = NULL;
    for (size_t i = 0; i < map_nassets && !a; i++)
        if (!strcmp(map_assets[i].name, name))
            a = &map_assets[i];
    if (!a) {
        api_reply_error(c->req, 404, "unknown_route", "no file '%s'", name);
        return;
    }
    struct evkeyvalq *out = evhttp_request_get_output_headers(c->req);
    evhttp_add_header(out, "Content-Type", content_type(a->name));
    /* the page's files only, from this daemon only; no framing, no
     * referrer (the token is in the fragment, never sent) */
    evhttp_add_header(out, "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; "
        "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
        "form-action 'none'; frame-ancestors 'none'");
    evhttp_add_header(out, "X-Content-Type-Options", "nosniff");
    evhttp_add_header(out, "Referrer-Policy", "no-referrer");
    evhttp_add_header(out, "Cache-Control", "no-cache");
    struct evbuffer *buf = evbuffer_new();
    evbuffer_add_reference(buf, a->data, a->len, NULL, NULL);
    evhttp_send_reply(c->req, 200, "OK", buf);
    evbuffer_free(buf);
}

/* GET /: the page. */
static void
h_page(struct api_ctx *c)
{
    send_asset(c, "index.html");
}

/* GET /map/{name}: one of its files. */
static void
h_asset(struct api_ctx *c)
{
    if (!strcmp(c->seg[1], "index.html")) {
        api_reply_error(c->req, 404, "unknown_route", "no file 'index.html'");
        return;
    }
    send_asset(c, c->seg[1]);
}

/* ---- the layout ---- */

/* Intern s in a string table (names) with its index map. */
static uint32_t
intern(struct strmap *idx, json_t *names, const char *s)
{
    bool added;
    uint32_t v =
        strmap_put(idx, s, strlen(s), (uint32_t)json_array_size(names), &added);
    if (added)
        json_array_append_new(names, json_string(s));
    return v;
}

/* The activity half-life, as GET /v1/activity's. */
#define MAP_ACTIVITY_HALF_LIFE_MS (10 * 60 * 1000)

/*
 * GET /v1/map/layout: every file of the graph at its embedding position,
 * column by column (docs/protocol.md, "The map").
 */
static void
h_layout(struct api_ctx *c)
{
    struct broker *b = c->b;
    json_t *doc = json_object();
    json_object_set_new(doc, "index", broker_index_json(b));
    const char *cd = b->paths.common_dir;
    char *name = xstrdup(cd ? cd : "");
    size_t len = strlen(name);
    while (len && name[len - 1] == '/')
        name[--len] = '\0';
    if (len >= 5 && !strcmp(name + len - 5, "/.git"))
        name[len -= 5] = '\0';
    const char *slash = strrchr(name, '/');
    json_object_set_new(
        doc, "repository", json_string(slash ? slash + 1 : name));
    free(name);
    size_t n = b->have_graph ? b->graph.nfiles : 0;
    float *xyz = n ? xmalloc(3 * n * sizeof(float)) : NULL;
    if (n)
        embed_layout(&b->graph, NULL, xyz);
    /* activity: the decayed heat of the activity table, plus the recency
     * weights of the active agents' changes */
    double *act = n ? xcalloc(n, sizeof(double)) : NULL;
    for (size_t i = 0; i < b->nagents && n; i++) {
        if (broker_who(b, i)->status != AS_AGENT_ACTIVE)
            continue;
        for (size_t k = 0; k < b->ag[i].nfiles; k++) {
            uint32_t id = graph_find_file(&b->graph, b->ag[i].files[k].path);
            if (id != GRAPH_NONE)
                act[id] += b->ag[i].files[k].weight;
        }
    }
    int64_t now = broker_now();
    json_t *paths = json_array(), *pos = json_array(), *dirs = json_array(),
           *dir = json_array(), *langs = json_array(), *lang = json_array(),
           *activity = json_array();
    struct strmap dir_idx, lang_idx;
    strmap_init(&dir_idx);
    strmap_init(&lang_idx);
    for (size_t i = 0; i < n; i++) {
        const char *p = b->graph.files[i].path;
        json_array_append_new(paths, json_string(p));
        for (int k = 0; k < 3; k++)
            json_array_append_new(pos, json_real(xyz[3 * i + (size_t)k]));
        const char *ls = strrchr(p, '/');
        char *d = ls ? xstrndup(p, (size_t)(ls - p)) : xstrdup("");
        json_array_append_new(
            dir, json_integer((json_int_t)intern(&dir_idx, dirs, d)));
        free(d);
        json_array_append_new(lang, json_integer((json_int_t)intern(&lang_idx,
                                        langs, lang_name(lang_detect(p)))));
        struct activity_view v;
        double a = act[i];
        if (activity_view(b->activity, p, now, MAP_ACTIVITY_HALF_LIFE_MS, &v))
            a += v.heat;
        json_array_append_new(activity, json_real(a));
    }
    strmap_release(&dir_idx);
    strmap_release(&lang_idx);
    free(xyz);
    free(act);
    json_object_set_new(doc, "paths", paths);
    json_object_set_new(doc, "xyz", pos);
    json_object_set_new(doc, "dirs", dirs);
    json_object_set_new(doc, "dir", dir);
    json_object_set_new(doc, "langs", langs);
    json_object_set_new(doc, "lang", lang);
    json_object_set_new(doc, "activity", activity);
    /* five significant digits: a tenth of the smallest step is plenty */
    char *s = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(5));
    json_decref(doc);
    struct evbuffer *buf = evbuffer_new();
    evbuffer_add(buf, s, strlen(s));
    evbuffer_add(buf, "\n", 1);
    free(s);
    evhttp_add_header(evhttp_request_get_output_headers(c->req), "Content-Type",
        "application/json");
    evhttp_send_reply(c->req, 200, "OK", buf);
    evbuffer_free(buf);
}

/* ---- the listener ---- */

/*
 * POST /v1/map/open {port?}: listen on 127.0.0.1 (port, or a free one)
 * unless the daemon already does; {port, url}: the page's address with the
 * token in its fragment.
 */
static void
h_open(struct api_ctx *c)
{
    static const char *const keys[] = { "port", NULL };
    if (api_check_keys(c, keys))
        return;
    json_t *jp = json_object_get(c->body, "port");
    if (jp && (!json_is_integer(jp) || json_integer_value(jp) < 0 ||
                  json_integer_value(jp) > 65535)) {
        api_reply_error(
            c->req, 400, "bad_field", "'port' must be an integer 0..65535");
        return;
    }
    struct broker *b = c->b;
    bool started = !b->http_tcp;
    struct as_err e;
    if (started) {
        if (broker_listen_tcp(b, jp ? (int)json_integer_value(jp) : 0, &e)) {
            api_reply_error(c->req, 409, "cannot_listen", "%s", e.msg);
            return;
        }
        struct sockaddr_in sin;
        socklen_t sl = sizeof(sin);
        if (!getsockname(evhttp_bound_socket_get_fd(b->tcp_socket),
                (struct sockaddr *)&sin, &sl))
            b->o.tcp_port = ntohs(sin.sin_port);
        broker_log(b, "serving the map on 127.0.0.1:%d", b->o.tcp_port);
    }
    char *url =
        xasprintf("http://127.0.0.1:%d/#token=%s", b->o.tcp_port, b->token);
    api_reply_json(c->req, 200,
        json_pack("{s:i, s:s, s:b}", "port", b->o.tcp_port, "url", url,
            "started", started));
    free(url);
}

const struct api_route api_map_routes[] = {
    { EVHTTP_REQ_GET, "", h_page },
    { EVHTTP_REQ_GET, "map/*", h_asset },
    { EVHTTP_REQ_GET, "v1/map/layout", h_layout },
    { EVHTTP_REQ_POST, "v1/map/open", h_open },
};
const size_t api_map_nroutes =
    sizeof(api_map_routes) / sizeof(api_map_routes[0]);

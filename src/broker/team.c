/*
 * team.c - the daemon in a team: a shared store (PostgreSQL) holds the
 * airspace's locks, decided there; events travel between the daemons;
 * the peers' agents are visible (GET /v1/team). docs/team.md.
 */
#include "broker/team.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <git2.h>

#include "broker/api.h"
#include "broker/internal.h"
#include "core/locks.h"
#include "git/repo.h"
#include "store/store.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct team {
    char *airspace, *node;
    struct event *ev; /* the store's event descriptor, watched */
    int fd;
    int64_t offset;   /* the database's clock minus ours, at a decision */
    int depth;        /* team_locks_begin calls open */
    bool began;       /* the outermost one began a transaction */
    bool relaying;    /* emitting an event another daemon published */
    bool locks_stale; /* another daemon changed a lock: reload */
    bool said_down;   /* logged that the store is unreachable */
    bool primed;      /* the first decision was made (store guarded) */
    /* working sets: published (this daemon's agents, as last sent) and
     * mirrored (the others', as agents here) */
    struct shared_ws *pub, *mir;
    size_t npub, nmir;
    bool ws_stale;       /* another daemon published: mirror again */
    int64_t ws_beat;     /* when the heartbeat was last sent */
    int64_t ws_mirrored; /* when the others' were last read */
};

/* One agent's working set as JSON text, by id. */
struct shared_ws {
    char *id;    /* the agent's id (mirrored: its id here) */
    char *files; /* the JSON sent or read */
    bool seen;   /* in the last pass */
};

#define TEAM_BEAT_MS 5000   /* the heartbeat of this daemon's rows */
#define TEAM_FRESH_MS 20000 /* another daemon's rows count this long */
#define TEAM_MIRROR_MS 2000 /* read the others' at least this often */

/* ---- names ---- */

/* The origin's URL as host/path (scheme, user, port, ".git" and a
 * trailing '/' dropped; the host in lower case), so https and ssh clones
 * of one repository agree; a local path stays a path. */
static char *
normalise_remote(const char *url)
{
    const char *p = url, *host = NULL, *path;
    size_t hlen = 0;
    const char *scheme = strstr(url, "://");
    if (scheme && strncmp(url, "file://", 7)) {
        p = scheme + 3;
        const char *slash = strchr(p, '/');
        const char *at = strchr(p, '@');
        if (at && (!slash || at < slash))
            p = at + 1;
        slash = strchr(p, '/');
        host = p;
        hlen = slash ? (size_t)(slash - p) : strlen(p);
        const char *colon = memchr(host, ':', hlen);
        if (colon)
            hlen = (size_t)(colon - host);
        path = slash ? slash : "";
    } else if (scheme) {
        path = url + 7;
    } else {
        const char *colon = strchr(url, ':'), *slash = strchr(url, '/');
        if (colon && (!slash || colon < slash)) { /* user@host:path */
            const char *at = strchr(url, '@');
            host = at && at < colon ? at + 1 : url;
            hlen = (size_t)(colon - host);
            path = colon + 1;
        } else {
            path = url;
        }
    }
    struct strbuf sb = STRBUF_INIT;
    for (size_t k = 0; k < hlen; k++)
        strbuf_addf(&sb, "%c", tolower((unsigned char)host[k]));
    if (host && *path != '/')
        strbuf_addf(&sb, "/");
    strbuf_addf(&sb, "%s", path);
    char *s = sb.s ? sb.s : xstrdup("");
    size_t n = strlen(s);
    while (n > 1 && s[n - 1] == '/')
        s[--n] = '\0';
    if (n > 4 && !strcmp(s + n - 4, ".git"))
        s[n - 4] = '\0';
    n = strlen(s);
    while (n > 1 && s[n - 1] == '/')
        s[--n] = '\0';
    return s;
}

static char *
airspace_name(struct broker *b)
{
    if (b->o.store_airspace)
        return xstrdup(b->o.store_airspace);
    git_remote *r = NULL;
    char *name = NULL;
    if (git_remote_lookup(&r, repo_git(b->repo), "origin") == 0 &&
        git_remote_url(r))
        name = normalise_remote(git_remote_url(r));
    git_remote_free(r);
    return name ? name : xstrdup(b->paths.common_dir);
}

static char *
node_name(struct broker *b)
{
    if (b->o.store_node)
        return xstrdup(b->o.store_node);
    char host[256] = "";
    if (gethostname(host, sizeof(host) - 1))
        snprintf(host, sizeof(host), "localhost");
    return xasprintf("%s:%s", host, b->paths.common_dir);
}

int
team_open(struct broker *b, struct as_err *e)
{
    const char *url = b->o.store_url ? b->o.store_url : b->paths.db;
    struct db_options dbo = { .exclusive = true };
    if (!db_url_is_shared(url))
        return db_open(url, &dbo, &b->db, e);
    struct team *t = xcalloc(1, sizeof(*t));
    t->fd = -1;
    t->airspace = airspace_name(b);
    t->node = node_name(b);
    dbo.exclusive = false;
    dbo.airspace = t->airspace;
    dbo.node = t->node;
    b->team = t;
    int rc = db_open(url, &dbo, &b->db, e);
    if (!rc)
        broker_log(
            b, "team store: airspace '%s', node '%s'", t->airspace, t->node);
    return rc;
}

static void
ws_list_free(struct shared_ws *v, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        free(v[k].id);
        free(v[k].files);
    }
    free(v);
}

void
team_close(struct broker *b)
{
    struct team *t = b->team;
    if (!t)
        return;
    struct as_err e;
    if (b->db && !db_unreachable(b->db)) /* a clean stop: the others forget */
        db_workset_drop(b->db, NULL, &e);
    ws_list_free(t->pub, t->npub);
    ws_list_free(t->mir, t->nmir);
    if (t->ev)
        event_free(t->ev);
    free(t->airspace);
    free(t->node);
    free(t);
    b->team = NULL;
}

/* ---- lock decisions ---- */

static void
restore_into(void *ctx, const struct lock *l)
{
    struct as_err e;
    lock_table_restore(ctx, l, &e); /* a row it cannot take: left out */
}

int
team_locks_begin(struct broker *b, int64_t *now, struct as_err *e)
{
    struct team *t = b->team;
    *now = broker_now();
    if (!t || !db_shared(b->db))
        return 0;
    if (t->depth++)
        return 0;
    /* the request's transaction when one is open, else one of our own */
    int rc = db_begin(b->db, e);
    t->began = rc == 0;
    if (rc)
        return rc;
    struct lock_config lc;
    lock_config_default(&lc);
    lc.root = repo_main_workdir(b->repo);
    struct lock_table *fresh = lock_table_new(&lc);
    uint64_t next = 0;
    int64_t db_now = 0;
    rc = db_locks_sync(b->db, restore_into, fresh, &db_now, &next, e);
    if (rc) {
        lock_table_free(fresh);
        return rc;
    }
    lock_table_set_next_token(fresh, next);
    lock_table_free(b->locks);
    b->locks = fresh;
    t->offset = db_now - *now;
    t->locks_stale = false;
    t->primed = true;
    *now = db_now;
    return 0;
}

void
team_locks_end(struct broker *b)
{
    struct team *t = b->team;
    if (!t || !t->depth || --t->depth)
        return;
    struct as_err e;
    if (t->began && db_commit(b->db, &e))
        broker_log(b, "store: %s", e.msg);
    t->began = false;
}

bool
team_lock_expired(struct broker *b, uint64_t token)
{
    struct as_err e;
    bool retired = false;
    if (db_lock_expire(b->db, token, &retired, &e))
        broker_log(b, "store: %s", e.msg);
    if (!b->team)
        return true; /* one daemon: its table decided */
    /* not retired here: the table was behind the store, read it again */
    if (!retired)
        b->team->locks_stale = true;
    return retired;
}

int64_t
team_clock(struct broker *b, int64_t now)
{
    return b->team ? now + b->team->offset : now;
}

/* ---- events between daemons ---- */

void
team_publish(struct broker *b, const char *json)
{
    struct team *t = b->team;
    if (!t || t->relaying || db_unreachable(b->db))
        return;
    struct as_err e;
    if (db_publish(b->db, json, &e))
        broker_log(b, "team: %s", e.msg);
}

/* An event another daemon published: emitted here too, its data telling
 * where it came from (data.origin: node, id and ts there). */
static void
on_notice(void *ctx, const char *node, const char *json)
{
    struct broker *b = ctx;
    json_t *ev = json_loads(json, 0, NULL);
    const char *type = json_string_value(json_object_get(ev, "type"));
    if (!type) {
        json_decref(ev);
        return;
    }
    if (!strcmp(type, "team.workset")) { /* a marker, not an event */
        b->team->ws_stale = true;
        json_decref(ev);
        return;
    }
    if (!strncmp(type, "lock.", 5) || !strncmp(type, "claim.", 6))
        b->team->locks_stale = true;
    json_t *data = json_object_get(ev, "data");
    data = json_is_object(data) ? json_deep_copy(data) : json_object();
    json_object_set_new(data, "origin",
        json_pack("{s:s, s:O?, s:O?}", "node", node, "id",
            json_object_get(ev, "id"), "ts", json_object_get(ev, "ts")));
    b->team->relaying = true;
    broker_emit(b, type, json_string_value(json_object_get(ev, "agent")), data);
    b->team->relaying = false;
    json_decref(ev);
}

/* The hooks answer from the lock table: between decisions it follows the
 * others' grants, read without the decision lock (a cache, not a
 * decision: no daemon waits for it). */
static void
refresh_locks(struct broker *b)
{
    struct team *t = b->team;
    struct lock_config lc;
    lock_config_default(&lc);
    lc.root = repo_main_workdir(b->repo);
    struct lock_table *fresh = lock_table_new(&lc);
    int64_t db_now = 0;
    struct as_err e;
    if (db_locks_peek(b->db, restore_into, fresh, &db_now, &e)) {
        broker_log(b, "team: cannot reload the locks: %s", e.msg);
        lock_table_free(fresh);
        return;
    }
    lock_table_set_next_token(fresh, lock_table_next_token(b->locks));
    lock_table_free(b->locks);
    b->locks = fresh;
    t->offset = db_now - broker_now();
    t->locks_stale = false;
    t->primed = true;
}

static void
poll_events(struct broker *b)
{
    struct team *t = b->team;
    db_events_poll(b->db, on_notice, b);
    if (t->locks_stale && !db_unreachable(b->db) &&
        !db_in_transaction(b->db)) /* else at the next tick */
        refresh_locks(b);
}

/* ---- working sets across daemons ---- */

static struct shared_ws *
ws_find(struct shared_ws *v, size_t n, const char *id)
{
    for (size_t k = 0; k < n; k++)
        if (!strcmp(v[k].id, id))
            return &v[k];
    return NULL;
}

static struct shared_ws *
ws_add(struct shared_ws **v, size_t *n, const char *id)
{
    *v = xrealloc(*v, (*n + 1) * sizeof(**v));
    struct shared_ws *w = &(*v)[(*n)++];
    w->id = xstrdup(id);
    w->files = NULL;
    w->seen = true;
    return w;
}

static void
ws_remove(struct shared_ws *v, size_t *n, size_t k)
{
    free(v[k].id);
    free(v[k].files);
    v[k] = v[--*n];
}

/* Agent a's files: [{path, status, whole, lines: [[s, e]...]}]. */
static char *
files_json(const struct agent *a)
{
    json_t *v = json_array();
    for (size_t k = 0; k < a->nfiles; k++) {
        const struct ws_file *f = &a->files[k];
        json_t *lines = json_array();
        for (size_t r = 0; r < f->ranges.n; r++)
            json_array_append_new(
                lines, json_pack("[I, I]", (json_int_t)f->ranges.v[r].start,
                           (json_int_t)f->ranges.v[r].end));
        json_array_append_new(v,
            json_pack("{s:s, s:s, s:b, s:o}", "path", f->path, "status",
                ws_status_name(f->status), "whole", f->whole, "lines", lines));
    }
    char *s = json_dumps(v, JSON_COMPACT);
    json_decref(v);
    return s;
}

static const char *const team_status[] = { "active", "exited", "stale" };

/* This daemon's agents' working sets into the store, those that changed
 * since last sent; then one marker tells the other daemons. */
static void
publish_worksets(struct broker *b, int64_t now)
{
    struct team *t = b->team;
    struct as_err e;
    bool changed = false;
    for (size_t k = 0; k < t->npub; k++)
        t->pub[k].seen = false;
    for (size_t i = 0; i < b->nagents; i++) {
        const struct bagent *m = &b->meta[i];
        if (m->peer)
            continue;
        char *files = files_json(&b->ag[i]);
        struct shared_ws *w = ws_find(t->pub, t->npub, b->ag[i].id);
        char *text = xasprintf("%s %s", team_status[m->status], files);
        if (!w || strcmp(w->files, text)) {
            struct db_workset dw = { b->ag[i].id,
                b->ag[i].kind == AGENT_HUMAN ? "human" : "agent", m->client,
                b->ag[i].branch, team_status[m->status], files };
            if (db_workset_put(b->db, &dw, &e)) {
                broker_log(b, "team: %s", e.msg);
                free(files);
                free(text);
                return;
            }
            if (!w)
                w = ws_add(&t->pub, &t->npub, b->ag[i].id);
            free(w->files);
            w->files = text;
            text = NULL;
            changed = true;
        }
        w->seen = true;
        free(text);
        free(files);
    }
    for (size_t k = 0; k < t->npub;) {
        if (t->pub[k].seen) {
            k++;
            continue;
        }
        if (db_workset_drop(b->db, t->pub[k].id, &e)) {
            broker_log(b, "team: %s", e.msg);
            return;
        }
        ws_remove(t->pub, &t->npub, k);
        changed = true;
    }
    if (changed) {
        if (db_publish(b->db, "{\"type\":\"team.workset\"}", &e))
            broker_log(b, "team: %s", e.msg);
        t->ws_beat = now;
    } else if (now - t->ws_beat >= TEAM_BEAT_MS &&
               !db_worksets_seen(b->db, &e)) {
        t->ws_beat = now;
    }
}

/* A peer agent's id here: its id, '@', a short name of its daemon. */
static char *
peer_id(const char *node, const char *agent)
{
    return xasprintf("%.40s@%06llx", agent,
        (unsigned long long)(fnv1a_str(FNV1A_INIT, node) & 0xffffff));
}

struct mirror_pass {
    struct broker *b;
    bool changed;
    size_t nchanged, one; /* agents whose working set changed; one of them */
};

static void
set_status_quiet(
    struct broker *b, size_t i, enum bagent_status st, const char *why)
{
    b->team->relaying = true; /* news of its own daemon, not of ours */
    broker_set_status(b, i, st, why);
    b->team->relaying = false;
}

/* The working set its daemon published becomes agent i's. */
static void
mirror_files(struct broker *b, size_t i, const char *files)
{
    json_t *v = json_loads(files, 0, NULL);
    broker_drop_engine(b);
    struct agent *a = &b->ag[i];
    for (size_t k = 0; k < a->nfiles; k++)
        ws_file_release(&a->files[k]);
    a->nfiles = 0;
    size_t k;
    json_t *f;
    json_array_foreach(v, k, f)
    {
        const char *path = json_string_value(json_object_get(f, "path"));
        const char *sn = json_string_value(json_object_get(f, "status"));
        enum ws_status st;
        if (!path || !sn || ws_status_parse(sn, &st))
            continue;
        struct ws_file *x = agent_add_file(a, path, st);
        x->whole = json_is_true(json_object_get(f, "whole"));
        size_t r;
        json_t *pair;
        json_array_foreach(json_object_get(f, "lines"), r, pair)
        {
            json_int_t s0 = json_integer_value(json_array_get(pair, 0));
            json_int_t s1 = json_integer_value(json_array_get(pair, 1));
            if (s0 >= 1 && s1 >= s0 && s1 <= UINT32_MAX)
                range_set_add(&x->ranges, (uint32_t)s0, (uint32_t)s1);
        }
        x->changed_at_ms = broker_now();
        x->weight = 1.0;
    }
    agent_sort(a);
    json_decref(v);
}

static void
mirror_one(void *ctx, const char *node, const struct db_workset *w)
{
    struct mirror_pass *mp = ctx;
    struct broker *b = mp->b;
    struct team *t = b->team;
    /* mirrored while active with something to pair: an agent with no
     * change cannot be half of a pair, and each one mirrored is one more
     * agent this daemon scores */
    if (!w->agent || !w->files || !w->status || strcmp(w->status, "active") ||
        !strcmp(w->files, "[]"))
        return;
    char *id = peer_id(node, w->agent);
    ssize_t i = broker_find_agent(b, id);
    if (i >= 0 && !b->meta[i].peer) { /* a local agent took that id */
        free(id);
        return;
    }
    if (i < 0)
        i = (ssize_t)broker_add_peer(b, id, w->client, node, w->branch);
    struct shared_ws *s = ws_find(t->mir, t->nmir, id);
    if (!s)
        s = ws_add(&t->mir, &t->nmir, id);
    s->seen = true;
    b->meta[i].last_seen = broker_now();
    if (b->meta[i].status != BAGENT_ACTIVE) /* back */
        set_status_quiet(b, (size_t)i, BAGENT_ACTIVE, NULL);
    if (!s->files || strcmp(s->files, w->files)) {
        free(s->files);
        s->files = xstrdup(w->files);
        mirror_files(b, (size_t)i, w->files);
        mp->changed = true;
        mp->nchanged++;
        mp->one = (size_t)i;
    }
    free(id);
}

/* The other daemons' agents, as agents here (ids agent@daemon), with the
 * working sets their daemons published: scored with this daemon's. */
static void
mirror_worksets(struct broker *b, int64_t now)
{
    struct team *t = b->team;
    struct mirror_pass mp = { b, false, 0, 0 };
    struct as_err e;
    for (size_t k = 0; k < t->nmir; k++)
        t->mir[k].seen = false;
    t->ws_mirrored = now;
    if (db_peer_worksets(b->db, TEAM_FRESH_MS, mirror_one, &mp, &e)) {
        broker_log(b, "team: %s", e.msg);
        return;
    }
    t->ws_stale = false;
    for (size_t k = 0; k < t->nmir;) {
        if (t->mir[k].seen) {
            k++;
            continue;
        }
        /* gone from its daemon, or not active there, or with nothing
         * changed any more, or its daemon silent: it leaves here */
        ssize_t i = broker_find_agent(b, t->mir[k].id);
        if (i >= 0 && b->meta[i].status != BAGENT_EXITED)
            set_status_quiet(
                b, (size_t)i, BAGENT_EXITED, "gone from its daemon");
        ws_remove(t->mir, &t->nmir, k);
    }
    /* one agent changed (the usual case): its pairs; else every pair */
    if (mp.changed)
        broker_rescore(b, mp.nchanged == 1 ? mp.one : SIZE_MAX);
}

static void
on_readable(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct broker *b = arg;
    poll_events(b);
    team_tick(b); /* a broken connection: stop watching it */
}

void
team_tick(struct broker *b)
{
    struct team *t = b->team;
    if (!t)
        return;
    int fd = db_events_fd(b->db);
    if (fd != t->fd) {
        if (t->ev)
            event_free(t->ev);
        t->ev = NULL;
        t->fd = fd;
        if (fd >= 0) {
            t->ev =
                event_new(b->base, fd, EV_READ | EV_PERSIST, on_readable, b);
            event_add(t->ev, NULL);
        }
    }
    if (db_unreachable(b->db)) {
        if (!t->said_down) {
            struct as_err e;
            db_health(b->db, &e);
            broker_log(b, "team: %s", e.msg);
        }
        t->said_down = true;
        return;
    }
    /* not within a request's transaction: its outcome is not known yet
     * (the next tick comes soon) */
    if (db_in_transaction(b->db))
        return;
    if (!t->primed) /* from now on the store guards the lock rows */
        t->locks_stale = true;
    poll_events(b);
    int64_t now = broker_now();
    publish_worksets(b, now);
    if (t->ws_stale || now - t->ws_mirrored >= TEAM_MIRROR_MS)
        mirror_worksets(b, now);
}

void
team_reconnected(struct broker *b)
{
    struct team *t = b->team;
    if (!t)
        return;
    if (t->said_down)
        broker_log(b, "team: the store is back; catching up");
    t->said_down = false;
    struct as_err e;
    bool tx = db_begin(b->db, &e) == 0;
    for (size_t i = 0; i < b->nagents; i++)
        broker_persist_agent(b, i);
    if (tx && db_commit(b->db, &e))
        broker_log(b, "store: %s", e.msg);
    t->locks_stale = true;
    team_tick(b);
}

/* ---- what the others do ---- */

void
team_status_json(struct broker *b, json_t *store)
{
    json_object_set_new(store, "backend", json_string(db_backend(b->db)));
    struct team *t = b->team;
    if (!t)
        return;
    json_object_set_new(store, "airspace", json_string(t->airspace));
    json_object_set_new(store, "node", json_string(t->node));
    if (db_unreachable(b->db)) {
        json_object_set_new(store, "state", json_string("unreachable"));
        json_object_set_new(store, "leases",
            json_string("refused until the store is back; hooks answer "
                        "from the locks last seen"));
    }
}

static void
add_peer(void *ctx, const char *node, const struct db_agent *a)
{
    json_t *peers = ctx;
    json_t *p = json_object_get(peers, node);
    if (!p) {
        p = json_array();
        json_object_set_new(peers, node, p);
    }
    json_array_append_new(
        p, json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:s?, s:s, s:I}", "id",
               a->id, "kind", a->kind, "client", a->client, "label", a->label,
               "worktree", a->worktree, "branch", a->branch, "status",
               a->status, "lastSeen", (json_int_t)a->last_seen));
}

static void
h_team(struct api_ctx *c)
{
    struct broker *b = c->b;
    struct team *t = b->team;
    json_t *doc = json_pack("{s:s}", "store", db_backend(b->db));
    json_t *peers = json_object();
    if (t) {
        json_object_set_new(doc, "airspace", json_string(t->airspace));
        json_object_set_new(doc, "node", json_string(t->node));
        struct as_err e;
        if (db_peers_load(b->db, add_peer, peers, &e)) {
            json_decref(peers);
            json_decref(doc);
            api_reply_error(c->req, 503, "store_unreachable", "%s", e.msg);
            return;
        }
    }
    json_t *list = json_array();
    const char *node;
    json_t *agents;
    json_object_foreach(peers, node, agents)
    {
        json_array_append_new(
            list, json_pack("{s:s, s:O}", "node", node, "agents", agents));
    }
    json_decref(peers);
    json_object_set_new(doc, "peers", list);
    api_reply_json(c->req, 200, doc);
}

const struct api_route api_team_routes[] = {
    { EVHTTP_REQ_GET, "v1/team", h_team },
};
const size_t api_team_nroutes =
    sizeof(api_team_routes) / sizeof(api_team_routes[0]);

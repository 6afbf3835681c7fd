/*
 * team.c - the daemon in a team: a shared store (PostgreSQL) holds the
 * airspace's locks, decided there; events travel between the daemons;
 * the peers' agents are visible (GET /v1/team). docs/team.md.
 *
 * Longer than 1,000 lines on purpose: joining, the lock decisions in the
 * shared store, the events in and out and the peers' view share the
 * connection's state and its failure handling (store unreachable, peer
 * gone), which is private to this file.
 */
#include "broker/team.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <git2.h>

#include "broker/agents.h"
#include "broker/collab.h"
#include "broker/detect.h"
#include "broker/events.h"
#include "broker/score.h"
#include "broker/team_wip.h"
#include "core/locks.h"
#include "git/repo.h"
#include "store/store.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "util/remote_url.h"
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
    /* work in progress shared through git (NULL: not) */
    struct team_wip *wip;
    /* working sets: published (this daemon's agents, as last sent) and
     * mirrored (the others', as agents here) */
    struct shared_ws *pub, *mir;
    size_t npub, nmir;
    bool ws_stale;       /* another daemon published: mirror again */
    int64_t ws_beat;     /* when the heartbeat was last sent */
    int64_t ws_mirrored; /* when the others' were last read, all of them */
    int64_t ws_since;    /* the newest change read (the database's clock) */
    /* pairs with another daemon's agent scored here: a hash of each one's
     * result as last published (slot by pair key), the results to publish
     * at the next tick, and results received for agents not mirrored yet */
    struct strmap pair_slot;
    uint64_t *pair_hash;
    size_t npair_hash;
    json_t *pair_out, *pair_wait;
    /* agents mirrored anew here ([{node, agent}]): their daemons are asked
     * at the next tick to send the results of their pairs again (a result
     * is sent when it changes, and this daemon had none) */
    json_t *resend_ask;
    /* intents of the other daemons' agents, in the machine here: their
     * node, their id there, their id here */
    struct remote_intent *rin;
    size_t nrin;
    bool intents_read; /* the others' rows were read (once connected) */
    /* messages relayed to this daemon's agents wait in the store: take
     * them at the next tick; the ids of those in the inboxes here whose
     * taking was not committed (skipped when taken again) */
    bool relay_due;
    uint64_t *relay_done;
    size_t nrelay_done;
};

struct remote_intent {
    char *node;
    uint64_t rid, lid;
};

/* One agent's working set as JSON text, by id. */
struct shared_ws {
    char *id;           /* the agent's id (mirrored: its id here) */
    char *files;        /* the JSON sent or read */
    bool seen;          /* in the last pass */
    char *node, *agent; /* mirrored: its daemon and its id there */
};

#define TEAM_BEAT_MS 5000   /* the heartbeat of this daemon's rows */
#define TEAM_FRESH_MS 20000 /* another daemon's rows count this long */
#define TEAM_MIRROR_MS 2000 /* read all the others' at least this often */
/* a change is read again for this long: a row's time is taken before its
 * commit, so a read can miss a row stamped just before it */
#define TEAM_SINCE_MARGIN_MS 2000
/* a relayed message nobody takes (its daemon gone for good) is dropped */
#define TEAM_RELAY_KEEP_MS (7 * 24 * 3600 * 1000LL)
#define TEAM_RELAY_DONE 256 /* ids remembered after a failed commit */

/* ---- names ---- */

static char *
airspace_name(struct broker *b)
{
    if (b->o.store_airspace)
        return xstrdup(b->o.store_airspace);
    git_remote *r = NULL;
    char *name = NULL;
    if (git_remote_lookup(&r, repo_git(b->repo), "origin") == 0 &&
        git_remote_url(r))
        name = remote_url_airspace(git_remote_url(r));
    git_remote_free(r);
    if (name)
        return name;
    /* without an origin, this machine's repository: its path alone is
     * no name (two machines have /home/dev/app, containers /src) */
    char host[256] = "";
    if (gethostname(host, sizeof(host) - 1))
        snprintf(host, sizeof(host), "localhost");
    return xasprintf("%s:%s", host, b->paths.common_dir);
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
    strmap_init(&t->pair_slot);
    t->pair_out = json_array();
    t->pair_wait = json_array();
    t->resend_ask = json_array();
    t->wip = team_wip_new(b->o.store_wip_remote, t->node);
    t->relay_due = true; /* relayed while this daemon was not running */
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
        free(v[k].node);
        free(v[k].agent);
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
    team_wip_free(t->wip);
    ws_list_free(t->pub, t->npub);
    ws_list_free(t->mir, t->nmir);
    strmap_release(&t->pair_slot);
    free(t->pair_hash);
    json_decref(t->pair_out);
    json_decref(t->pair_wait);
    json_decref(t->resend_ask);
    free(t->relay_done);
    for (size_t k = 0; k < t->nrin; k++)
        free(t->rin[k].node);
    free(t->rin);
    if (t->ev)
        event_free(t->ev);
    free(t->airspace);
    free(t->node);
    free(t);
    b->team = NULL;
}

/* ---- lock decisions ---- */

static char *peer_id(const char *node, const char *agent);

/* This daemon's suffix of its agents' names on the others ("@" and 6 hex
 * digits, peer_id). */
static char *
own_suffix(const struct team *t)
{
    return peer_id(t->node, "");
}

struct lock_restore {
    struct broker *b;
    struct lock_table *table;
};

/* A lock row into the table, its names as this daemon knows the agents:
 * another daemon's grant is held by that daemon's agent (holder@daemon,
 * as its copy here is named), and a contester this daemon stored under
 * its airspace name (team_contester_out) is one of its own. */
static void
restore_into(void *ctx, const char *node, const struct lock *l)
{
    struct lock_restore *lr = ctx;
    const struct team *t = lr->b->team;
    struct lock x = *l;
    char *holder = NULL, *contester = NULL;
    if (node && strcmp(node, t->node))
        x.holder = holder = peer_id(node, l->holder);
    char *me = own_suffix(t);
    size_t n = l->contested_by ? strlen(l->contested_by) : 0, m = strlen(me);
    if (n > m && !strcmp(l->contested_by + n - m, me))
        x.contested_by = contester = xstrndup(l->contested_by, n - m);
    free(me);
    struct as_err e;
    lock_table_restore(lr->table, &x, &e); /* a row it cannot take: out */
    free(holder);
    free(contester);
}

char *
team_contester_out(struct broker *b, const char *id)
{
    if (!b->team || !id)
        return NULL;
    ssize_t i = broker_find_agent(b, id);
    if (i < 0 || broker_who(b, i)->peer)
        return NULL; /* another daemon's: already its airspace name */
    return peer_id(b->team->node, id);
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
    struct lock_restore lr = { b, fresh };
    rc = db_locks_sync(b->db, restore_into, &lr, &db_now, &next, e);
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

static void on_pairs(struct broker *b, json_t *ev);
static void on_resend(struct broker *b, json_t *ev);
static void on_intent(
    struct broker *b, const char *node, const char *type, json_t *data);
static void on_message(struct broker *b, const char *node, json_t *ev);

static char *peer_id(const char *node, const char *agent);

/* The name here of agent, named so by the daemon node that published an
 * event about it (ours: "@" and this daemon's 6 hex digits, as the others
 * name its agents): its copy's (agent@node), or one of ours when that
 * daemon named it by our agent's copy there (a lease of ours it retired).
 * A new string, or NULL for none. */
static char *
relayed_name(const char *ours, const char *node, const char *agent)
{
    if (!agent || !*agent)
        return NULL;
    const char *at = strrchr(agent, '@');
    return at && at != agent && !strcmp(at, ours)
               ? xstrndup(agent, (size_t)(at - agent))
               : peer_id(node, agent);
}

/* An event another daemon published: emitted here too, under this
 * daemon's names for its agent, its data telling where it came from
 * (data.origin: node, id and ts there). */
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
    if (!strcmp(type, "team.resend")) { /* a request, not an event */
        on_resend(b, ev);
        json_decref(ev);
        return;
    }
    if (!strcmp(type, "team.pair")) { /* results, not an event */
        on_pairs(b, ev);
        json_decref(ev);
        return;
    }
    if (!strcmp(type, "team.message")) { /* to one daemon, not an event */
        on_message(b, node, ev);
        json_decref(ev);
        return;
    }
    if (!strncmp(type, "lock.", 5) || !strncmp(type, "claim.", 6))
        b->team->locks_stale = true;
    if (!strncmp(type, "intent.", 7))
        on_intent(b, node, type, json_object_get(ev, "data"));
    json_t *data = json_object_get(ev, "data");
    data = json_is_object(data) ? json_deep_copy(data) : json_object();
    json_object_set_new(data, "origin",
        json_pack("{s:s, s:O?, s:O?}", "node", node, "id",
            json_object_get(ev, "id"), "ts", json_object_get(ev, "ts")));
    char *ours = peer_id(b->team->node, "");
    char *agent = relayed_name(
        ours, node, json_string_value(json_object_get(ev, "agent")));
    static const char *const names[] = { "holder", "contestedBy", "actor",
        NULL };
    for (size_t k = 0; names[k]; k++) { /* a lock's, in this daemon's names */
        char *n = relayed_name(
            ours, node, json_string_value(json_object_get(data, names[k])));
        if (n)
            json_object_set_new(data, names[k], json_string(n));
        free(n);
    }
    b->team->relaying = true;
    broker_emit(b, type, agent, data);
    b->team->relaying = false;
    free(agent);
    free(ours);
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
    struct lock_restore lr = { b, fresh };
    if (db_locks_peek(b->db, restore_into, &lr, &db_now, &e)) {
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
    w->node = w->agent = NULL;
    return w;
}

static void
ws_remove(struct shared_ws *v, size_t *n, size_t k)
{
    free(v[k].id);
    free(v[k].files);
    free(v[k].node);
    free(v[k].agent);
    v[k] = v[--*n];
}

static json_t *
names_json(const struct ws_name *v, size_t n)
{
    json_t *o = json_array();
    for (size_t k = 0; k < n; k++)
        json_array_append_new(
            o, json_pack("[s, I]", v[k].name, (json_int_t)v[k].line));
    return o;
}

/* Agent a's files: [{path, status, whole, lines: [[s, e]...], newPath?,
 * added, deleted, and what parsing its version found, when it was parsed:
 * parsed, uses and defs ([[name, line]...]), imports}] (docs/team.md). */
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
        json_t *o = json_pack("{s:s, s:s, s:b, s:o, s:I, s:I}", "path", f->path,
            "status", ws_status_name(f->status), "whole", f->whole, "lines",
            lines, "added", (json_int_t)f->added_lines, "deleted",
            (json_int_t)f->deleted_lines);
        if (f->new_path)
            json_object_set_new(o, "newPath", json_string(f->new_path));
        if (f->parsed || f->nnew_uses || f->nnew_defs || f->nnew_imports) {
            json_t *imp = json_array();
            for (size_t n = 0; n < f->nnew_imports; n++)
                json_array_append_new(imp, json_string(f->new_imports[n]));
            json_object_set_new(o, "parsed", json_boolean(f->parsed));
            json_object_set_new(
                o, "uses", names_json(f->new_uses, f->nnew_uses));
            json_object_set_new(
                o, "defs", names_json(f->new_defs, f->nnew_defs));
            json_object_set_new(o, "imports", imp);
        }
        json_array_append_new(v, o);
    }
    char *s = json_dumps(v, JSON_COMPACT);
    json_decref(v);
    return s;
}

/* A mirrored file's names (uses or defs) from its daemon's JSON; an
 * entry that is not [name, line >= 1] is skipped. */
static void
mirror_names(struct ws_file *x, bool def, json_t *v)
{
    size_t k;
    json_t *e;
    json_array_foreach(v, k, e)
    {
        const char *nm = json_string_value(json_array_get(e, 0));
        json_int_t line = json_integer_value(json_array_get(e, 1));
        if (nm && *nm && line >= 1 && line <= UINT32_MAX)
            ws_file_add_name(x, def, nm, strlen(nm), (uint32_t)line);
    }
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
        const struct as_agent *m = broker_who(b, i);
        if (m->peer)
            continue;
        char *files =
            team_wip_publish(b, t->wip, i, now, files_json(&b->ag[i]));
        struct shared_ws *w = ws_find(t->pub, t->npub, b->ag[i].id);
        /* a parked agent is half of pairs on the other daemons too */
        const char *st =
            broker_parked(b, i) ? "parked" : team_status[m->status];
        char *text = xasprintf("%s %s", st, files);
        if (!w || strcmp(w->files, text)) {
            struct db_workset dw = { b->ag[i].id,
                b->ag[i].kind == AGENT_HUMAN ? "human" : "agent", m->client,
                b->ag[i].branch, st, files };
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
        team_wip_forget(b, t->wip, t->pub[k].id);
        ws_remove(t->pub, &t->npub, k);
        changed = true;
    }
    if (changed && db_publish(b->db, "{\"type\":\"team.workset\"}", &e))
        broker_log(b, "team: %s", e.msg);
    /* every row, changed or not: a daemon whose agents change all the
     * time still keeps its unchanged ones fresh */
    if (now - t->ws_beat >= TEAM_BEAT_MS && !db_worksets_seen(b->db, &e))
        t->ws_beat = now;
}

/* A peer agent's id here: its id, '@', a short name of its daemon. */
static char *
peer_id(const char *node, const char *agent)
{
    return xasprintf("%.40s@%06llx", agent,
        (unsigned long long)(fnv1a_str(FNV1A_INIT, node) & 0xffffff));
}

bool
team_copy_name(const struct broker *b, const char *id)
{
    const char *at = id ? strrchr(id, '@') : NULL;
    if (!b->team || !at || at == id || strlen(at + 1) != 6)
        return false;
    for (const char *p = at + 1; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return false;
    return true;
}

#define TEAM_RESCORE_EACH 16 /* changed agents rescored one by one */

struct mirror_pass {
    struct broker *b;
    bool full;       /* every row read: one not seen has left */
    size_t nchanged; /* agents whose working set changed */
    size_t changed[TEAM_RESCORE_EACH];
};

static void
set_status_quiet(struct broker *b, size_t i, enum as_agent_status st,
    const char *why, bool seen)
{
    b->team->relaying = true; /* news of its own daemon, not of ours */
    broker_set_status(b, i, st, why, seen);
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
        const char *np = json_string_value(json_object_get(f, "newPath"));
        if (np && st == WS_RENAMED && !x->new_path)
            x->new_path = xstrdup(np);
        json_int_t ad = json_integer_value(json_object_get(f, "added"));
        json_int_t de = json_integer_value(json_object_get(f, "deleted"));
        x->added_lines = ad > 0 && ad <= UINT32_MAX ? (uint32_t)ad : 0;
        x->deleted_lines = de > 0 && de <= UINT32_MAX ? (uint32_t)de : 0;
        /* what parsing its version found (a daemon of an older release
         * sends none: its symbols are the base graph's only) */
        x->parsed = json_is_true(json_object_get(f, "parsed"));
        mirror_names(x, false, json_object_get(f, "uses"));
        mirror_names(x, true, json_object_get(f, "defs"));
        size_t n;
        json_t *imp;
        json_array_foreach(json_object_get(f, "imports"), n, imp)
        {
            const char *ip = json_string_value(imp);
            if (ip && *ip)
                ws_file_add_import(x, ip);
        }
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
    team_wip_mirror(b, b->team->wip, i, v);
    json_decref(v);
}

/* Mirrored agent s (its id here) leaves: gone from its daemon, not
 * active there, with nothing changed any more, or its daemon silent. */
static void
mirror_leave(struct broker *b, size_t k)
{
    struct team *t = b->team;
    ssize_t i = broker_find_agent(b, t->mir[k].id);
    if (i >= 0 && b->meta[i].remote_parked) {
        b->meta[i].remote_parked = false;
        broker_rescore(b, (size_t)i); /* its pairs end */
    }
    if (i >= 0 && broker_who(b, i)->status != AS_AGENT_EXITED)
        set_status_quiet(
            b, (size_t)i, AS_AGENT_EXITED, "gone from its daemon", false);
    team_wip_unmirror(b, t->wip, t->mir[k].files);
    ws_remove(t->mir, &t->nmir, k);
}

static void
mirror_one(void *ctx, const char *node, const struct db_workset *w)
{
    struct mirror_pass *mp = ctx;
    struct broker *b = mp->b;
    struct team *t = b->team;
    if (w->updated_at > t->ws_since)
        t->ws_since = w->updated_at;
    if (!w->agent)
        return;
    char *id = peer_id(node, w->agent);
    /* mirrored while active or parked with something to pair: an agent
     * with no change cannot be half of a pair, and each one mirrored is
     * one more agent this daemon scores */
    bool parked = w->status && !strcmp(w->status, "parked");
    if (!w->files || !w->status || (strcmp(w->status, "active") && !parked) ||
        !strcmp(w->files, "[]")) {
        struct shared_ws *s = ws_find(t->mir, t->nmir, id);
        if (s && !mp->full) /* a full pass finds it unseen */
            mirror_leave(b, (size_t)(s - t->mir));
        free(id);
        return;
    }
    ssize_t i = broker_find_agent(b, id);
    if (i >= 0 && !broker_who(b, i)->peer) { /* a local agent took that id */
        free(id);
        return;
    }
    if (i < 0)
        i = (ssize_t)broker_add_peer(b, id, w->client, node, w->branch);
    struct shared_ws *s = ws_find(t->mir, t->nmir, id);
    if (!s) {
        s = ws_add(&t->mir, &t->nmir, id);
        s->node = xstrdup(node);
        s->agent = xstrdup(w->agent);
        json_array_append_new(t->resend_ask,
            json_pack("{s:s, s:s}", "node", node, "agent", w->agent));
    }
    s->seen = true;
    bool fresh = !s->files || strcmp(s->files, w->files) ||
                 team_wip_lost(b, t->wip, (size_t)i, s->files);
    if (fresh) { /* the files first: a parked agent needs some */
        free(s->files);
        s->files = xstrdup(w->files);
        mirror_files(b, (size_t)i, w->files);
    }
    /* heard from now; back when it was not active; parked: exited here,
     * its pairs at most traffic (broker_parked) */
    bool was = b->meta[i].remote_parked;
    b->meta[i].remote_parked = parked;
    if (parked && broker_who(b, i)->status == AS_AGENT_ACTIVE)
        set_status_quiet(
            b, (size_t)i, AS_AGENT_EXITED, "parked on its daemon", false);
    else if (!parked)
        set_status_quiet(b, (size_t)i, AS_AGENT_ACTIVE, NULL, true);
    else if (!was) /* exited here before: now half of pairs again */
        fresh = true;
    if (fresh) {
        if (mp->nchanged < TEAM_RESCORE_EACH)
            mp->changed[mp->nchanged] = (size_t)i;
        mp->nchanged++;
    }
    free(id);
}

/* The other daemons' agents, as agents here (ids agent@daemon), with the
 * working sets their daemons published: scored with this daemon's. A
 * full pass reads every row (and who left); else those changed since the
 * last read (a margin earlier). */
static void retire_copies(struct broker *b, int64_t now);

static void
mirror_worksets(struct broker *b, int64_t now, bool full)
{
    struct team *t = b->team;
    struct mirror_pass mp = { .b = b, .full = full };
    struct as_err e;
    if (full) {
        for (size_t k = 0; k < t->nmir; k++)
            t->mir[k].seen = false;
        t->ws_mirrored = now;
    }
    int64_t since = full || t->ws_since <= TEAM_SINCE_MARGIN_MS
                        ? 0
                        : t->ws_since - TEAM_SINCE_MARGIN_MS;
    if (db_peer_worksets(b->db, TEAM_FRESH_MS, since, mirror_one, &mp, &e)) {
        broker_log(b, "team: %s", e.msg);
        return;
    }
    t->ws_stale = false;
    for (size_t k = 0; full && k < t->nmir;) {
        if (t->mir[k].seen)
            k++;
        else
            mirror_leave(b, k);
    }
    if (full)
        retire_copies(b, now);
    /* a few agents changed (the usual case): their pairs; else every pair
     * at once */
    if (mp.nchanged > TEAM_RESCORE_EACH) {
        broker_rescore(b, SIZE_MAX);
        return;
    }
    for (size_t k = 0; k < mp.nchanged; k++)
        broker_rescore(b, mp.changed[k]);
}

/* ---- pairs across daemons: scored once ---- */

/* An agent's name in the airspace: its daemon's node and its id there
 * (the first 40 bytes, as a peer's id keeps them): the same on both
 * daemons of a pair. */
struct pkey {
    const char *node, *agent;
    size_t alen;
};

static void
pkey_of(struct broker *b, size_t i, struct pkey *k)
{
    const char *id = b->ag[i].id;
    if (broker_who(b, i)->peer) {
        const char *at = strrchr(id, '@');
        const char *node = broker_who(b, i)->label; /* a copy's: its node */
        k->node = node ? node : "";
        k->agent = id;
        k->alen = at ? (size_t)(at - id) : strlen(id);
    } else {
        k->node = b->team->node;
        k->agent = id;
        k->alen = strnlen(id, 40);
    }
}

static int
pkey_cmp(const struct pkey *x, const struct pkey *y)
{
    int c = strcmp(x->node, y->node);
    if (c)
        return c;
    c = memcmp(x->agent, y->agent, x->alen < y->alen ? x->alen : y->alen);
    return c ? c : (x->alen > y->alen) - (x->alen < y->alen);
}

static uint64_t
pkey_hash(uint64_t h, const struct pkey *k)
{
    h = fnv1a_byte(fnv1a_str(h, k->node), '\n');
    for (size_t c = 0; c < k->alen; c++)
        h = fnv1a_byte(h, (uint8_t)k->agent[c]);
    return fnv1a_byte(h, '\t');
}

/* Which of agents i and j (one here, one another daemon's) has the daemon
 * that scores their pair: a hash of the two names, in order, picks one
 * side, so each daemon owns about half of its cross pairs. */
static size_t
pair_owner(struct broker *b, size_t i, size_t j)
{
    struct pkey ki, kj;
    pkey_of(b, i, &ki);
    pkey_of(b, j, &kj);
    bool i_lo = pkey_cmp(&ki, &kj) < 0;
    uint64_t h =
        pkey_hash(pkey_hash(FNV1A_INIT, i_lo ? &ki : &kj), i_lo ? &kj : &ki);
    bool hi_owns = (h >> 17) & 1;
    return hi_owns == i_lo ? j : i;
}

bool
team_scores_pair(struct broker *b, size_t i, size_t j)
{
    if (!b->team)
        return true;
    bool pi = broker_who(b, i)->peer, pj = broker_who(b, j)->peer;
    if (pi == pj)
        return !pi; /* two of its own; or two other daemons' agents */
    return !broker_who(b, pair_owner(b, i, j))->peer;
}

static json_t *
pkey_json(const struct pkey *k)
{
    return json_pack(
        "{s:s, s:s%}", "node", k->node, "agent", k->agent, k->alen);
}

void
team_pair_scored(struct broker *b, size_t k, size_t i, size_t j)
{
    struct team *t = b->team;
    if (!t || broker_who(b, i)->peer == broker_who(b, j)->peer)
        return;
    const struct bpair *p = &b->pairs[k];
    bool zero = p->res.risk == 0;
    uint64_t h = FNV1A_INIT;
    for (size_t c = 0; c <= RISK_NCHANNELS; c++) {
        double v = c < RISK_NCHANNELS ? p->res.r[c] : p->res.risk;
        h = fnv1a_bytes(h, &v, sizeof(v));
        zero = zero && v == 0;
    }
    h = fnv1a_byte(h, p->hold == i);
    h = fnv1a_byte(h, p->parked);
    h = h ? h : 1;
    char *key = xasprintf("%s\t%s", p->a, p->b);
    bool added;
    uint32_t slot = strmap_put(
        &t->pair_slot, key, strlen(key), (uint32_t)t->npair_hash, &added);
    free(key);
    if (added) {
        t->pair_hash =
            xrealloc(t->pair_hash, (t->npair_hash + 1) * sizeof(uint64_t));
        t->pair_hash[t->npair_hash++] = 0;
    }
    uint64_t was = t->pair_hash[slot];
    if (was == h)
        return;
    t->pair_hash[slot] = h;
    if (!was && zero) /* nothing yet: the same as no pair there */
        return;
    struct pkey ki, kj;
    pkey_of(b, i, &ki);
    pkey_of(b, j, &kj);
    json_t *r = json_array();
    for (size_t c = 0; c < RISK_NCHANNELS; c++)
        json_array_append_new(r, json_real(p->res.r[c]));
    json_t *o = json_pack("{s:o, s:o, s:o, s:f, s:s}", "a", pkey_json(&ki), "b",
        pkey_json(&kj), "r", r, "risk", p->res.risk, "hold",
        p->hold == i ? "a" : "b");
    if (p->parked) /* the one that holds (docs/team.md) */
        json_object_set_new(o, "parked", json_string(p->hold == i ? "a" : "b"));
    json_array_append_new(t->pair_out, o);
}

/* The elements of items, to the other daemons as {"type": type, key:
 * [...]}, in notifications under the payload's limit; items emptied. */
static void
publish_batched(
    struct broker *b, const char *type, const char *key, json_t *items)
{
    size_t n = json_array_size(items);
    json_t *batch = json_array();
    size_t bytes = 0;
    struct as_err e;
    for (size_t k = 0; k <= n; k++) {
        json_t *x = k < n ? json_array_get(items, k) : NULL;
        char *one = x ? json_dumps(x, JSON_COMPACT) : NULL;
        size_t len = one ? strlen(one) : 0;
        free(one);
        if (json_array_size(batch) && (!x || bytes + len > 6000)) {
            json_t *msg = json_pack("{s:s, s:O}", "type", type, key, batch);
            char *text = json_dumps(msg, JSON_COMPACT);
            if (db_publish(b->db, text, &e))
                broker_log(b, "team: %s", e.msg);
            free(text);
            json_decref(msg);
            json_array_clear(batch);
            bytes = 0;
        }
        if (x) {
            json_array_append(batch, x);
            bytes += len + 1;
        }
    }
    json_decref(batch);
    json_array_clear(items);
}

/* A local agent by its name in the airspace (the first 40 bytes of its
 * id); -1 when none. */
static ssize_t
local_agent(struct broker *b, const char *agent)
{
    ssize_t i = broker_find_agent(b, agent);
    if (i >= 0 || strlen(agent) < 40)
        return i >= 0 && !broker_who(b, i)->peer ? i : -1;
    for (size_t k = 0; k < b->nagents; k++)
        if (!broker_who(b, k)->peer && !strncmp(b->ag[k].id, agent, 40))
            return (ssize_t)k;
    return -1;
}

/* A pair's result from the daemon that scored it, into this daemon's pair
 * and advisory. False: one of its agents is not here yet (try again
 * after the next mirror pass). */
static bool
pair_apply(struct broker *b, json_t *x)
{
    struct team *t = b->team;
    json_t *a = json_object_get(x, "a"), *c = json_object_get(x, "b");
    const char *an = json_string_value(json_object_get(a, "node"));
    const char *aa = json_string_value(json_object_get(a, "agent"));
    const char *cn = json_string_value(json_object_get(c, "node"));
    const char *ca = json_string_value(json_object_get(c, "agent"));
    json_t *r = json_object_get(x, "r");
    size_t nr = json_array_size(r);
    if (!an || !aa || !cn || !ca || !nr)
        return true; /* not one to read */
    bool mine_a = !strcmp(an, t->node), mine_c = !strcmp(cn, t->node);
    if (mine_a == mine_c)
        return true; /* not a pair of one of this daemon's agents */
    ssize_t i = local_agent(b, mine_a ? aa : ca);
    char *pid = mine_a ? peer_id(cn, ca) : peer_id(an, aa);
    ssize_t j = broker_find_agent(b, pid);
    free(pid);
    if (i < 0 || j < 0 || !broker_who(b, j)->peer)
        return false;
    size_t k = broker_pair_at(b, b->ag[i].id, b->ag[j].id);
    struct bpair *p = &b->pairs[k];
    /* channels in risk.h's order: a daemon of an older release sends fewer
     * (the rest are 0 there), a newer one more (its R still counts them) */
    for (size_t n = 0; n < RISK_NCHANNELS; n++)
        p->res.r[n] = n < nr ? json_number_value(json_array_get(r, n)) : 0;
    p->res.risk = json_number_value(json_object_get(x, "risk"));
    const char *hold = json_string_value(json_object_get(x, "hold"));
    bool a_holds = !hold || !strcmp(hold, "a");
    size_t ha = mine_a ? (size_t)i : (size_t)j;
    size_t hc = mine_a ? (size_t)j : (size_t)i;
    p->hold = (uint32_t)(a_holds ? ha : hc);
    p->steer = (uint32_t)(a_holds ? hc : ha);
    /* a parked agent (its daemon's word, in the result or its working
     * set) counts as present: the pair is at most traffic here too */
    const char *pk = json_string_value(json_object_get(x, "parked"));
    size_t parked = !pk ? SIZE_MAX : !strcmp(pk, "a") ? ha : hc;
    bool pi = parked == (size_t)i || broker_parked(b, (size_t)i);
    bool pj = parked == (size_t)j || broker_parked(b, (size_t)j);
    p->parked = pi || pj;
    p->live = (broker_who(b, i)->status == AS_AGENT_ACTIVE || pi) &&
              (broker_who(b, j)->status == AS_AGENT_ACTIVE || pj) &&
              !(pi && pj);
    broker_pair_feed(b, k, broker_now());
    return true;
}

/* Another daemon mirrored some of this daemon's agents anew (it started,
 * or its copies had left): the pairs this daemon scores with them are
 * published again at their next scoring, which is now. */
static void
on_resend(struct broker *b, json_t *ev)
{
    struct team *t = b->team;
    size_t k, asked = 0, one = SIZE_MAX;
    json_t *x;
    json_array_foreach(json_object_get(ev, "agents"), k, x)
    {
        const char *node = json_string_value(json_object_get(x, "node"));
        const char *agent = json_string_value(json_object_get(x, "agent"));
        if (!node || !agent || strcmp(node, t->node))
            continue;
        ssize_t i = local_agent(b, agent);
        if (i < 0)
            continue;
        for (size_t q = 0; q < b->npairs; q++) {
            const struct bpair *p = &b->pairs[q];
            if (strcmp(p->a, b->ag[i].id) && strcmp(p->b, b->ag[i].id))
                continue;
            char *key = xasprintf("%s\t%s", p->a, p->b);
            uint32_t slot;
            if (strmap_get(&t->pair_slot, key, strlen(key), &slot))
                t->pair_hash[slot] = 0;
            free(key);
        }
        asked++;
        one = (size_t)i;
    }
    /* one round for them all: one agent's pairs, or every pair (a pair of
     * two agents asked for was scored twice, a round each) */
    if (asked)
        broker_rescore(b, asked == 1 ? one : SIZE_MAX);
}

/* Results that waited for their agents: applied now, or dropped after
 * a few seconds. */
static void
pairs_waiting(struct broker *b, int64_t now)
{
    struct team *t = b->team;
    for (size_t k = 0; k < json_array_size(t->pair_wait);) {
        json_t *x = json_array_get(t->pair_wait, k);
        int64_t at = json_integer_value(json_object_get(x, "at"));
        if (pair_apply(b, x) || now - at > TEAM_FRESH_MS / 4)
            json_array_remove(t->pair_wait, k);
        else
            k++;
    }
}

static void
on_pairs(struct broker *b, json_t *ev)
{
    size_t k;
    json_t *x;
    json_array_foreach(json_object_get(ev, "pairs"), k, x)
    {
        if (pair_apply(b, x))
            continue;
        json_object_set_new(x, "at", json_integer(broker_now()));
        json_array_append(b->team->pair_wait, x);
        b->team->ws_stale = true; /* its agent is there: mirror soon */
    }
}

/* ---- intents and messages across daemons ---- */

#define TEAM_INTENT_GRACE_MS 2000 /* its daemon's expiry is told first */
#define TEAM_MESSAGE_MAX 7000     /* a relayed message's JSON, at most */

/* Another daemon's agent as an agent here (id agent@daemon, label the
 * daemon's node), added when it is not mirrored yet; -1 when an agent of
 * this daemon has that id. */
static ssize_t
remote_agent(struct broker *b, const char *node, const char *agent)
{
    char *id = peer_id(node, agent);
    ssize_t i = broker_find_agent(b, id);
    if (i >= 0 && !broker_who(b, i)->peer)
        i = -1;
    else if (i < 0)
        i = (ssize_t)broker_add_peer(b, id, NULL, node, NULL);
    free(id);
    if (i >= 0)
        b->meta[i].heard_at = broker_now();
    if (i >= 0 && !b->meta[i].remote_parked) /* parked: its daemon says */
        set_status_quiet(b, (size_t)i, AS_AGENT_ACTIVE, NULL, true);
    return i;
}

/* Whether another daemon's agent i has an intent here (a copy). */
static bool
remote_has_intent(struct broker *b, size_t i)
{
    const struct team *t = b->team;
    for (size_t k = 0; k < t->nrin; k++) {
        const struct as_intent *in =
            as_intent_find(b->as, t->rin[k].lid, INT64_MIN);
        if (in && !strcmp(in->agent, b->ag[i].id))
            return true;
    }
    return false;
}

/* Copies added for a message or an intent, not mirrored (nothing changed
 * there) and not heard of for a while, with no intent left here: not
 * flying here any more (they stay listed, exited, as a left copy does). */
static void
retire_copies(struct broker *b, int64_t now)
{
    struct team *t = b->team;
    for (size_t i = 0; i < b->nagents; i++) {
        const struct as_agent *w = broker_who(b, i);
        if (!w->peer || w->status != AS_AGENT_ACTIVE ||
            ws_find(t->mir, t->nmir, b->ag[i].id) ||
            now - b->meta[i].heard_at < TEAM_FRESH_MS ||
            remote_has_intent(b, i))
            continue;
        set_status_quiet(b, i, AS_AGENT_EXITED, "not heard of", false);
    }
}

static void
remote_intent_drop(struct broker *b, size_t k)
{
    struct team *t = b->team;
    uint64_t lid = t->rin[k].lid;
    const struct as_intent *in = as_intent_find(b->as, lid, INT64_MIN);
    if (in) {
        struct as_req q = { .agent = in->agent, .intent_id = lid };
        struct as_result res;
        as_result_init(&res);
        /* the machine's events unused: its daemon stored and told it */
        as_intent_drop(broker_airspace(b), broker_now(), &q, &res, NULL);
        as_result_release(&res);
    }
    free(t->rin[k].node);
    t->rin[k] = t->rin[--t->nrin];
    struct conflict_msgs cm;
    conflict_msgs_init(&cm);
    conflicts_intent_drop(b->conflicts, lid, broker_now(), &cm);
    broker_conflict_msgs(b, &cm);
    conflict_msgs_release(&cm);
    broker_sync_intents(b);
    broker_rescore(b, SIZE_MAX);
}

/* Another daemon's intent (its event's data), declared, dropped or
 * expired there: in the machine here as its agent's (agent@daemon), so
 * the board, the detector and the intent channel see it; never stored
 * or announced again by this daemon. */
static void
on_intent(struct broker *b, const char *node, const char *type, json_t *data)
{
    struct team *t = b->team;
    json_int_t rid = json_integer_value(json_object_get(data, "id"));
    const char *agent = json_string_value(json_object_get(data, "agent"));
    if (!agent || rid <= 0)
        return;
    for (size_t k = 0; k < t->nrin; k++)
        if (t->rin[k].rid == (uint64_t)rid && !strcmp(t->rin[k].node, node)) {
            remote_intent_drop(b, k); /* gone, or declared again */
            break;
        }
    if (strcmp(type, "intent.declared"))
        return;
    json_t *files = json_object_get(data, "files");
    size_t n = json_array_size(files);
    if (!n || n > 256)
        return;
    const char **v = xcalloc(n, sizeof(*v));
    for (size_t k = 0; k < n; k++)
        if (!(v[k] = json_string_value(json_array_get(files, k)))) {
            free(v);
            return;
        }
    ssize_t i = remote_agent(b, node, agent);
    if (i < 0) {
        free(v);
        return;
    }
    json_t *regions = json_object_get(data, "regions");
    char *rtext =
        json_is_object(regions) ? json_dumps(regions, JSON_COMPACT) : NULL;
    json_int_t created = json_integer_value(json_object_get(data, "createdAt"));
    json_int_t expires = json_integer_value(json_object_get(data, "expiresAt"));
    int64_t ttl = expires > created ? (int64_t)(expires - created) : 1;
    if (ttl <= INT64_MAX - TEAM_INTENT_GRACE_MS)
        ttl += TEAM_INTENT_GRACE_MS;
    struct as_req r = { .agent = b->ag[i].id,
        .files = v,
        .nfiles = n,
        .regions = rtext,
        .summary = json_string_value(json_object_get(data, "summary")),
        .ttl_ms = ttl };
    struct as_result res;
    as_result_init(&res);
    int64_t now = broker_now();
    int rc = as_intent_declare(broker_airspace(b), now, &r, &res, NULL);
    free(rtext);
    free(v);
    if (rc) {
        broker_log(
            b, "team: intent of '%s' from %s: %s", agent, node, res.err.msg);
        as_result_release(&res);
        return;
    }
    t->rin = xrealloc(t->rin, (t->nrin + 1) * sizeof(*t->rin));
    t->rin[t->nrin++] =
        (struct remote_intent){ xstrdup(node), (uint64_t)rid, res.intent_id };
    const struct as_intent *in = as_intent_find(b->as, res.intent_id, now);
    as_result_release(&res);
    struct conflict_msgs cm;
    conflict_msgs_init(&cm);
    if (in)
        broker_conflicts_intent(b, in, &cm);
    broker_conflict_msgs(b, &cm);
    conflict_msgs_release(&cm);
    broker_sync_intents(b);
    broker_rescore(b, (size_t)i);
}

struct intent_catch {
    struct broker *b;
    int64_t now; /* the database's clock */
};

static void
catch_intent(void *ctx, const char *node, const struct db_intent *in)
{
    struct intent_catch *c = ctx;
    struct team *t = c->b->team;
    for (size_t k = 0; k < t->nrin; k++)
        if (t->rin[k].rid == in->id && !strcmp(t->rin[k].node, node))
            return; /* known already */
    json_t *files = in->files ? json_loads(in->files, 0, NULL) : NULL;
    json_t *regions = in->regions ? json_loads(in->regions, 0, NULL) : NULL;
    /* created now: the copy lives as long as the original has left */
    json_t *data = json_pack("{s:I, s:s, s:o, s:o?, s:s?, s:I, s:I}", "id",
        (json_int_t)in->id, "agent", in->agent ? in->agent : "", "files",
        files ? files : json_array(), "regions", regions, "summary",
        in->summary, "createdAt", (json_int_t)c->now, "expiresAt",
        (json_int_t)in->expires_at);
    if (data)
        on_intent(c->b, node, "intent.declared", data);
    json_decref(data);
}

/* The intents the other daemons declared before this one heard them
 * (it started, or the store was away): read from their rows. */
static void
catch_up_intents(struct broker *b)
{
    struct team *t = b->team;
    struct intent_catch c = { b, team_clock(b, broker_now()) };
    struct as_err e;
    if (db_peer_intents(b->db, c.now, catch_intent, &c, &e)) {
        broker_log(b, "team: %s", e.msg);
        return;
    }
    t->intents_read = true;
}

bool
team_intent_left(struct broker *b, uint64_t id)
{
    struct team *t = b->team;
    for (size_t k = 0; t && k < t->nrin; k++)
        if (t->rin[k].lid == id) {
            free(t->rin[k].node);
            t->rin[k] = t->rin[--t->nrin];
            return true;
        }
    return false;
}

/* A message another daemon relayed to one of this daemon's agents
 * (from, on node, to agent `to` here): delivered into its inbox, from
 * agent@daemon. */
static void
deliver_relayed(struct broker *b, const char *node, const char *from,
    const char *to, const char *kind, const char *body)
{
    struct team *t = b->team;
    ssize_t j = local_agent(b, to);
    ssize_t i = j >= 0 ? remote_agent(b, node, from) : -1;
    if (i < 0) {
        broker_log(b,
            "team: a message from '%s' on %s to '%s': no such agent "
            "here",
            from, node, to);
        return;
    }
    struct as_req r = {
        .agent = b->ag[i].id, .to = b->ag[j].id, .type = kind, .body = body
    };
    struct as_result res;
    as_result_init(&res);
    t->relaying = true; /* announced here, not to the others */
    if (broker_message(b, &r, &res))
        broker_log(
            b, "team: a message from '%s' on %s: %s", from, node, res.err.msg);
    t->relaying = false;
    as_result_release(&res);
}

/* The notification of a relayed message: it waits in the store (taken at
 * the next tick); one from a daemon of an older release, which keeps
 * none there, is delivered from the notification. */
static void
on_message(struct broker *b, const char *node, json_t *ev)
{
    struct team *t = b->team;
    const char *to_node = json_string_value(json_object_get(ev, "node"));
    const char *to = json_string_value(json_object_get(ev, "to"));
    const char *from = json_string_value(json_object_get(ev, "from"));
    if (!to_node || strcmp(to_node, t->node) || !to || !from)
        return;
    if (json_object_get(ev, "relay")) {
        t->relay_due = true;
        return;
    }
    deliver_relayed(b, node, from, to,
        json_string_value(json_object_get(ev, "kind")),
        json_string_value(json_object_get(ev, "body")));
}

static bool
relay_done(const struct team *t, uint64_t id)
{
    for (size_t k = 0; k < t->nrelay_done; k++)
        if (t->relay_done[k] == id)
            return true;
    return false;
}

struct relay_take {
    struct broker *b;
    uint64_t *ids;
    size_t n;
};

static void
take_one(void *ctx, const struct db_relay *m)
{
    struct relay_take *rt = ctx;
    rt->ids = xrealloc(rt->ids, (rt->n + 1) * sizeof(*rt->ids));
    rt->ids[rt->n++] = m->id;
    if (!relay_done(rt->b->team, m->id))
        deliver_relayed(
            rt->b, m->to_node, m->sender, m->recipient, m->type, m->body);
}

/* The messages relayed to this daemon's agents, from the store into
 * their inboxes, in one transaction with their inbox rows: a crash
 * before the commit leaves them in the store, taken at the next start. */
static void
take_relayed(struct broker *b)
{
    struct team *t = b->team;
    struct as_err e;
    struct relay_take rt = { .b = b };
    if (db_begin(b->db, &e)) {
        broker_log(b, "team: %s", e.msg);
        return;
    }
    t->relay_due = false;
    int rc = db_relay_take(b->db, TEAM_RELAY_KEEP_MS, take_one, &rt, &e);
    if (rc)
        db_rollback(b->db);
    else
        rc = db_commit(b->db, &e);
    if (rc) {
        /* still in the store, already in the inboxes here: skipped when
         * taken again */
        broker_log(b, "team: %s", e.msg);
        t->relay_due = true;
        for (size_t k = 0; k < rt.n; k++) {
            if (relay_done(t, rt.ids[k]))
                continue;
            if (t->nrelay_done == TEAM_RELAY_DONE)
                memmove(t->relay_done, t->relay_done + 1,
                    --t->nrelay_done * sizeof(*t->relay_done));
            t->relay_done = xrealloc(
                t->relay_done, (t->nrelay_done + 1) * sizeof(*t->relay_done));
            t->relay_done[t->nrelay_done++] = rt.ids[k];
        }
    }
    free(rt.ids);
}

struct recipient {
    const char *to;
    char *node, *agent;
    size_t n;
    struct strbuf names; /* each match's name here, agent@daemon */
    char *by_node;       /* to is agent@daemon of this daemon's node */
};

static void
find_recipient(void *ctx, const char *node, const struct db_agent *a)
{
    struct recipient *w = ctx;
    char *pid = peer_id(node, a->id);
    /* an agent its daemon did not store (a worktree it found, such as
     * main) is reached by its name here all the same */
    char *suffix = peer_id(node, "");
    size_t n = strlen(w->to), m = strlen(suffix);
    if (!w->by_node && n > m && !strcmp(w->to + n - m, suffix))
        w->by_node = xstrdup(node);
    free(suffix);
    if (!strcmp(w->to, a->id) || !strcmp(w->to, pid)) {
        if (w->n < 5)
            strbuf_addf(&w->names, "%s%s", w->n ? ", " : "", pid);
        if (!w->n++) {
            w->node = xstrdup(node);
            w->agent = xstrdup(a->id);
        }
    }
    free(pid);
}

int
team_message_route(
    struct broker *b, const struct as_req *r, struct as_result *res, bool *sent)
{
    struct team *t = b->team;
    *sent = false;
    if (!t || !r->to || !strcmp(r->to, "all") || !strcmp(r->to, "supervisor"))
        return 0;
    static const char *const types[] = { "info", "question", "claim", "release",
        "delegate", "handoff", "ack", "block", NULL };
    bool known = !r->type;
    for (size_t k = 0; types[k] && !known; k++)
        known = !strcmp(types[k], r->type);
    if (!known || !r->body)
        return 0; /* the machine says what is wrong */
    struct recipient w = { .to = r->to };
    ssize_t i = broker_find_agent(b, r->to);
    if (i >= 0 && !broker_who(b, i)->peer)
        return 0;
    for (size_t k = 0; i < 0 && k < b->nagents; k++)
        if (!broker_who(b, k)->peer && b->ag[k].label &&
            !strcmp(b->ag[k].label, r->to))
            return 0; /* a label here */
    struct as_err e;
    if (i >= 0) { /* mirrored: agent@daemon, labelled with its node */
        const char *at = strrchr(r->to, '@');
        const char *node = broker_who(b, i)->label;
        w.node = xstrdup(node ? node : "");
        w.agent = xstrndup(r->to, at ? (size_t)(at - r->to) : strlen(r->to));
        w.n = 1;
    } else if (db_peers_load(b->db, find_recipient, &w, &e)) {
        res->code = "store_unreachable";
        snprintf(res->err.msg, sizeof(res->err.msg), "%s", e.msg);
        return AS_EIO;
    }
    if (!w.n && w.by_node) {
        const char *at = strrchr(r->to, '@');
        w.node = w.by_node;
        w.by_node = NULL;
        w.agent = xstrndup(r->to, (size_t)(at - r->to));
        w.n = 1;
    }
    int rc = 0;
    if (w.n > 1) {
        res->code = "bad_field";
        snprintf(res->err.msg, sizeof(res->err.msg),
            "'%s' names agents of %zu daemons of the airspace: name one as "
            "agent@daemon (%s%s)",
            r->to, w.n, w.names.s ? w.names.s : "", w.n > 5 ? ", ..." : "");
        rc = AS_EINVAL;
    } else if (w.n == 1) {
        /* kept in the store until the recipient's daemon takes it, in the
         * request's transaction; the notification tells it (and carries
         * the message for a daemon of an older release) */
        const char *kind = r->type ? r->type : "info";
        const char *body = r->body ? r->body : "";
        json_t *m = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "type",
            "team.message", "node", w.node, "to", w.agent, "from", r->agent,
            "kind", kind, "body", body);
        char *text = json_dumps(m, JSON_COMPACT);
        uint64_t id = 0;
        struct db_relay dr = { .to_node = w.node,
            .recipient = w.agent,
            .sender = r->agent,
            .type = kind,
            .body = body };
        if (strlen(text) > TEAM_MESSAGE_MAX) {
            /* the notification's size is the JSON's: escapes count */
            json_t *js = json_string(body);
            char *bt = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
            res->code = "bad_field";
            snprintf(res->err.msg, sizeof(res->err.msg),
                "a message to another daemon's agent is at most %d bytes "
                "written as JSON (a control character takes 6, a quote, "
                "backslash, tab or newline 2): this one takes %zu",
                TEAM_MESSAGE_MAX - 200, bt ? strlen(bt) - 2 : strlen(body));
            free(bt);
            json_decref(js);
            rc = AS_EINVAL;
        } else {
            rc = db_relay_put(b->db, &dr, &id, &e);
            free(text);
            json_object_set_new(m, "relay", json_integer((json_int_t)id));
            text = json_dumps(m, JSON_COMPACT);
            if (rc || db_publish(b->db, text, &e)) {
                res->code = "store_unreachable";
                snprintf(res->err.msg, sizeof(res->err.msg), "%s", e.msg);
                rc = AS_EIO;
            } else {
                res->delivered = 1;
                *sent = true;
            }
        }
        json_decref(m);
        free(text);
    }
    free(w.node);
    free(w.agent);
    free(w.by_node);
    free(w.names.s);
    return rc;
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
    if (!t->intents_read)
        catch_up_intents(b);
    int64_t now = broker_now();
    publish_worksets(b, now);
    if (now - t->ws_mirrored >= TEAM_MIRROR_MS) {
        mirror_worksets(b, now, true);
        t->relay_due = true; /* a notification may have been missed */
    } else if (t->ws_stale)
        mirror_worksets(b, now, false);
    if (json_array_size(t->pair_wait))
        pairs_waiting(b, now);
    /* the results scored here since the last tick; the agents mirrored
     * anew, whose daemons are asked to send their pairs' results again */
    if (json_array_size(t->pair_out))
        publish_batched(b, "team.pair", "pairs", t->pair_out);
    if (json_array_size(t->resend_ask))
        publish_batched(b, "team.resend", "agents", t->resend_ask);
    if (t->relay_due)
        take_relayed(b);
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
    t->intents_read = false; /* declared meanwhile: not heard */
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
    char *as = peer_id(node, a->id); /* its name here */
    json_array_append_new(
        p, json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:s?, s:s?, s:s, s:I}", "id",
               a->id, "as", as, "kind", a->kind, "client", a->client, "label",
               a->label, "worktree", a->worktree, "branch", a->branch, "status",
               a->status, "lastSeen", (json_int_t)a->last_seen));
    free(as);
}

json_t *
team_json(struct broker *b, struct as_err *e)
{
    struct team *t = b->team;
    json_t *doc = json_pack("{s:s}", "store", db_backend(b->db));
    json_t *peers = json_object();
    if (t) {
        json_object_set_new(doc, "airspace", json_string(t->airspace));
        json_object_set_new(doc, "node", json_string(t->node));
        if (db_peers_load(b->db, add_peer, peers, e)) {
            json_decref(peers);
            json_decref(doc);
            return NULL;
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
    return doc;
}

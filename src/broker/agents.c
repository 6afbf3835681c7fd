/*
 * agents.c - the daemon's half of the agent table: a slot beside each of
 * the machine's agents (src/airspace owns the table: ids, worktrees,
 * status, ...) with its git working set and reports; what registration,
 * status changes, renames and leaving mean for them (store, events, the
 * detector, scoring); worktrees discovered and pruned; shared worktrees'
 * working sets read from git and handed to airspace/share.h, which makes
 * each agent's and the human's share; the agents' rows stored.
 */
#include "broker/agents.h"
#include "broker/collab.h"
#include "broker/detect.h"
#include "broker/events.h"
#include "broker/score.h"
#include "broker/watch.h"

#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "airspace/share.h"
#include "git/workset.h"
#include "git/worktree.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* ---- agents ---- */

ssize_t
broker_find_agent(const struct broker *b, const char *id)
{
    for (size_t i = 0; i < b->nagents; i++)
        if (!strcmp(b->ag[i].id, id))
            return (ssize_t)i;
    return -1;
}

const struct as_agent *
broker_who(const struct broker *b, size_t i)
{
    const struct airspace *as = b->as;
    const char *id = b->ag[i].id;
    if (i < as->nagents && !strcmp(as->agents[i].id, id))
        return &as->agents[i]; /* the tables are in step */
    const struct as_agent *a = as_agent_find(as, id);
    if (!a)
        a = b->meta[i].gone;
    if (!a)
        abort(); /* a slot the machine never had: a bug */
    return a;
}

/* Copy the machine's id, label, kind and worktree (when it has none) of
 * agent i into its working set. */
static void
broker_slot_identity(struct broker *b, size_t i)
{
    const struct as_agent *w = broker_who(b, i);
    struct agent *a = &b->ag[i];
    a->kind = w->human ? AGENT_HUMAN : AGENT_AGENT;
    /* a copy's label is its daemon's node, the same for all its agents:
     * the texts that name it (guidance: "message '...'") take its id */
    const char *label = w->peer ? NULL : w->label;
    if (!label || !a->label || strcmp(label, a->label)) {
        free(a->label);
        a->label = label ? xstrdup(label) : NULL;
    }
    if (!a->worktree && w->worktree)
        a->worktree = xstrdup(w->worktree);
}

size_t
broker_slot_add(struct broker *b, const char *id)
{
    if (b->nagents == b->aagents) {
        size_t na = b->aagents ? 2 * b->aagents : 16;
        b->ag = xrealloc(b->ag, na * sizeof(*b->ag));
        b->meta = xrealloc(b->meta, na * sizeof(*b->meta));
        b->aagents = na;
    }
    size_t i = b->nagents++;
    agent_init(&b->ag[i], id);
    memset(&b->meta[i], 0, sizeof(b->meta[i]));
    agent_init(&b->meta[i].reports, id);
    strmap_init(&b->meta[i].pending);
    b->meta[i].root_wd = -1;
    broker_slot_identity(b, i);
    b->ag[i].started_at_ms = broker_who(b, i)->registered_at;
    return i;
}

int
broker_agent_op(struct broker *b,
    int (*op)(struct airspace *, int64_t, const struct as_req *,
        struct as_result *, struct as_events *),
    const struct as_req *r, struct as_result *res)
{
    struct as_events ev;
    as_events_init(&ev);
    int rc = op(broker_airspace(b), broker_now(), r, res, &ev);
    broker_airspace_events(b, &ev);
    as_events_release(&ev);
    return rc;
}

/* Another daemon's agent (team.c): in the table, active and registered,
 * never stored, announced or scored here (the caller rescores once). */
size_t
broker_add_peer(struct broker *b, const char *id, const char *client,
    const char *label, const char *branch)
{
    broker_drop_engine(b); /* it borrows the agent table */
    struct as_req r = { .agent = id, .client = client, .label = label };
    struct as_result res;
    as_result_init(&res);
    if (broker_agent_op(b, as_peer, &r, &res))
        abort(); /* team.c asks only for an id nobody has */
    as_result_release(&res);
    size_t i = (size_t)broker_find_agent(b, id);
    b->ag[i].branch = branch ? xstrdup(branch) : NULL;
    return i;
}

static const char *const status_names[] = { "active", "exited", "stale" };

json_t *
broker_agent_json(const struct broker *b, size_t i, bool files)
{
    const struct agent *a = &b->ag[i];
    const struct as_agent *m = broker_who(b, i);
    const struct agent *reports = &b->meta[i].reports;
    json_t *o = json_object();
    json_object_set_new(o, "id", json_string(a->id));
    json_object_set_new(
        o, "kind", json_string(a->kind == AGENT_HUMAN ? "human" : "agent"));
    if (m->client)
        json_object_set_new(o, "client", json_string(m->client));
    if (m->label) /* a copy's: its daemon's node */
        json_object_set_new(o, "label", json_string(m->label));
    if (a->worktree)
        json_object_set_new(o, "worktree", json_string(a->worktree));
    if (a->branch)
        json_object_set_new(o, "branch", json_string(a->branch));
    if (a->base_oid)
        json_object_set_new(o, "base", json_string(a->base_oid));
    json_object_set_new(o, "status", json_string(status_names[m->status]));
    json_object_set_new(o, "parked", json_boolean(broker_parked(b, i)));
    json_object_set_new(o, "registered", json_boolean(m->registered));
    json_object_set_new(
        o, "registeredAt", json_integer((json_int_t)m->registered_at));
    json_object_set_new(o, "lastSeen", json_integer((json_int_t)m->last_seen));
    json_t *lanes = json_array();
    for (size_t k = 0; k < m->nlanes; k++)
        json_array_append_new(lanes, json_string(m->lanes[k]));
    json_object_set_new(o, "lanes", lanes);
    json_object_set_new(o, "shared", json_boolean(as_flies_shared(b->as, m)));
    json_object_set_new(o, "fileCount", json_integer((json_int_t)a->nfiles));
    json_object_set_new(
        o, "commitsAhead", json_integer((json_int_t)a->commits_ahead));
    if (files && m->shared) {
        json_t *rp = json_array();
        for (size_t k = 0; k < reports->nfiles; k++)
            json_array_append_new(rp, json_string(reports->files[k].path));
        json_object_set_new(o, "reported", rp);
    }
    if (files) {
        json_t *fs = json_array();
        for (size_t k = 0; k < a->nfiles; k++) {
            const struct ws_file *f = &a->files[k];
            json_t *jf = json_object();
            json_object_set_new(jf, "path", json_string(f->path));
            json_object_set_new(
                jf, "status", json_string(ws_status_name(f->status)));
            if (f->new_path)
                json_object_set_new(jf, "newPath", json_string(f->new_path));
            json_t *lines = json_array();
            for (size_t r = 0; r < f->ranges.n; r++)
                json_array_append_new(
                    lines, json_pack("[I,I]", (json_int_t)f->ranges.v[r].start,
                               (json_int_t)f->ranges.v[r].end));
            json_object_set_new(jf, "lines", lines);
            json_object_set_new(jf, "weight", json_real(f->weight));
            json_array_append_new(fs, jf);
        }
        json_object_set_new(o, "files", fs);
    }
    return o;
}

/* Move the fresh working set in fresh into agent i, keeping identity. */
static void
adopt_workset(struct broker *b, size_t i, struct agent *fresh)
{
    struct agent *a = &b->ag[i];
    fresh->kind = a->kind;
    fresh->started_at_ms = a->started_at_ms;
    free(fresh->label);
    fresh->label = a->label;
    a->label = NULL;
    if (!fresh->worktree) {
        fresh->worktree = a->worktree;
        a->worktree = NULL;
    }
    if (!fresh->branch) {
        fresh->branch = a->branch;
        a->branch = NULL;
    }
    for (size_t k = 0; k < a->nintent; k++)
        agent_add_intent(fresh, a->intent[k]);
    agent_release(a);
    *a = *fresh;
}

bool
broker_forget_gone_worktree(struct broker *b, size_t i)
{
    if (!b->ag[i].nfiles || !b->ag[i].worktree ||
        !access(b->ag[i].worktree, F_OK))
        return false;
    struct agent none;
    agent_init(&none, b->ag[i].id);
    broker_drop_engine(b);
    adopt_workset(b, i, &none);
    broker_emit(b, "workset.changed", b->ag[i].id,
        json_pack("{s:i, s:s}", "files", 0, "reason", "worktree gone"));
    broker_rescore(b, i);
    return true;
}

/* The human's share of worktree wt (share_subtract): w minus what the
 * other agents there hold (those sharing it, their shares). The clients'
 * settings are not in w: git's reads leave them out (git/workset.c). */
static void
subtract_reported(struct broker *b, const char *wt, struct agent *w)
{
    const struct agent **v = xcalloc(b->nagents + 1, sizeof(*v));
    size_t n = 0;
    /* (in a worktree no longer shared, or one a person came to, the agent
     * that reads it holds all of it: the person has nothing there) */
    for (size_t i = 0; i < b->nagents; i++)
        if (!broker_who(b, i)->human_residual && b->ag[i].worktree &&
            !strcmp(b->ag[i].worktree, wt))
            v[n++] = &b->ag[i];
    share_subtract(w, v, n, NULL);
    free(v);
}

/* A report of agent j that sync_shared rewrote: stored, in the
 * transaction of that read opened at the first. */
struct synced {
    struct broker *b;
    size_t j;
    bool tx;
};

static void
persist_synced(void *ctx, const struct ws_file *r)
{
    struct synced *sy = ctx;
    struct as_err e;
    if (!sy->tx && broker_who(sy->b, sy->j)->registered) {
        if (db_begin(sy->b->db, &e))
            broker_log(sy->b, "store: %s", e.msg);
        else
            sy->tx = true;
    }
    broker_persist_report(sy->b, sy->j, r);
}

/*
 * The agents sharing worktree wt follow git. w is the whole worktree's
 * working set, just read and aligned (before the human's share is taken
 * out). Each agent's working set becomes its share of w (share_sync: for
 * every path it reported, the lines of the real change its reports meet,
 * a path as in the base left out, so a committed or reverted file leaves
 * at once), announced when it changed. The reports that change are
 * stored in one transaction (the request's, when a request reads).
 */
static void
sync_shared(struct broker *b, const char *wt, const struct agent *w)
{
    struct synced sy = { b, 0, false };
    for (size_t j = 0; j < b->nagents; j++) {
        if (!broker_who(b, j)->shared || broker_who(b, j)->human_residual ||
            !b->ag[j].worktree || strcmp(b->ag[j].worktree, wt))
            continue;
        struct agent fresh;
        agent_init(&fresh, b->ag[j].id);
        sy.j = j;
        struct agent *a = &b->ag[j];
        bool changed =
            share_sync(w, &b->meta[j].reports, a, &fresh, persist_synced, &sy);
        for (size_t k = 0; k < a->nfiles; k++)
            ws_file_release(&a->files[k]);
        free(a->files);
        a->files = fresh.files;
        a->nfiles = fresh.nfiles;
        a->afiles = fresh.afiles;
        fresh.files = NULL;
        fresh.nfiles = fresh.afiles = 0;
        agent_release(&fresh);
        if (!changed)
            continue;
        b->reshared = true;
        json_t *d = json_object();
        json_object_set_new(d, "files", json_integer((json_int_t)a->nfiles));
        broker_emit(b, "workset.changed", a->id, d);
    }
    struct as_err e;
    if (sy.tx && db_commit(b->db, &e))
        broker_log(b, "store: %s", e.msg);
}

/* Whether agent i, not active, is the one a worktree's work belongs to:
 * no agent flies there now and none registered there after it (several
 * sessions, one after the other, in one worktree leave one owner). */
static bool
owns_worktree(const struct broker *b, size_t i)
{
    const char *wt = b->ag[i].worktree;
    int64_t at = broker_who(b, i)->registered_at;
    for (size_t j = 0; j < b->nagents; j++) {
        const struct as_agent *o = broker_who(b, j);
        if (j == i || !b->ag[j].worktree || strcmp(b->ag[j].worktree, wt))
            continue;
        if (o->status == AS_AGENT_ACTIVE ||
            (o->from_worktree && !o->human_residual &&
                (o->registered_at > at || (o->registered_at == at && j > i))))
            return false;
    }
    return true;
}

bool
broker_parked(const struct broker *b, size_t i)
{
    const struct as_agent *w = broker_who(b, i);
    if (w->peer) /* its own daemon decides (team.c) */
        return w->status != AS_AGENT_ACTIVE && b->meta[i].remote_parked &&
               b->ag[i].nfiles;
    return w->status != AS_AGENT_ACTIVE && w->from_worktree && !w->shared &&
           !w->human_residual && b->ag[i].worktree && b->ag[i].nfiles &&
           owns_worktree(b, i);
}

/* Whether agent i's working set is read from its worktree again as it
 * changes: an active worktree agent, or one that may be parked (its
 * worktree's work stays in the airspace). */
static bool
reads_worktree(const struct broker *b, size_t i)
{
    const struct as_agent *w = broker_who(b, i);
    if (!w->from_worktree || w->shared || !b->ag[i].worktree)
        return false;
    return w->status == AS_AGENT_ACTIVE ||
           (!w->human_residual && owns_worktree(b, i));
}

void
broker_meta_release(struct bagent *m)
{
    agent_release(&m->reports);
    strmap_release(&m->pending);
    strv_free(m->seen, m->nseen);
    m->seen = NULL;
    m->nseen = 0;
    m->seen_ok = false;
    workset_commits_free(m->commits);
    m->commits = NULL;
    gitview_names_cache_free(m->names);
    m->names = NULL;
}

/*
 * Whether agent i's next read may be limited to what changed: its git
 * state is the one of its last read, which succeeded; the watch covers
 * every directory, lost nothing, and its worktree's events are agent i's
 * alone (not a shared worktree, the top directory's watch its own).
 */
static bool
read_limited(const struct broker *b, size_t i, bool state_ok, uint64_t state)
{
    const struct bagent *m = &b->meta[i];
    const struct as_agent *w = broker_who(b, i);
    int wd = m->root_wd;
    return state_ok && m->git_state_ok && state == m->git_state && m->seen_ok &&
           !m->pending_all && b->inotify_fd >= 0 && !b->watch_incomplete &&
           !b->watch_overflow && !w->shared && !w->human_residual && wd > 0 &&
           (size_t)wd < b->nwatches && b->watches[wd].dir &&
           b->watches[wd].agent == i &&
           !strcmp(b->watches[wd].dir, b->ag[i].worktree);
}

/* The paths a limited read of agent i reads: what its last read found
 * changed and what the watch saw change since (borrowed; free the array). */
static char **
limited_paths(const struct bagent *m, size_t *n)
{
    char **v = xcalloc(m->nseen + m->pending.count + 1, sizeof(*v));
    size_t k = 0;
    for (size_t j = 0; j < m->nseen; j++)
        v[k++] = m->seen[j];
    for (size_t j = 0; j < m->pending.cap; j++)
        if (m->pending.slots[j].key)
            v[k++] = (char *)m->pending.slots[j].key;
    *n = k;
    return v;
}

/* Read agent i's working set from git (worktree agents), in its own
 * base's coordinates and without its names: align_finish() completes it.
 * Only the paths that can have changed are read when that is known
 * (read_limited()). */
static int
read_workset(struct broker *b, size_t i, struct as_err *e)
{
    /* git is changing files there: what is read now is half of it (a
     * worktree being made reads as every file deleted); its working set
     * stays as it is until git is done */
    if (broker_worktree_busy(b->ag[i].worktree, broker_now())) {
        broker_read_later(b, i);
        return 0;
    }
    struct agent fresh;
    agent_init(&fresh, b->ag[i].id);
    struct workset_options wo;
    workset_options_init(&wo);
    wo.integration = b->integration;
    wo.now_ms = broker_now();
    /* the git state before the files: what changes while they are read
     * makes the next rescan read them again */
    struct as_err se;
    uint64_t state = 0;
    bool state_ok =
        !workset_worktree_state(b->repo, b->ag[i].worktree, &wo, &state, &se);
    /* what was written before this moment is in the watch's queue */
    broker_watch_drain(b);
    struct bagent *m = &b->meta[i];
    struct workset_scope sc = { .limit = read_limited(b, i, state_ok, state) };
    char **paths = sc.limit ? limited_paths(m, &sc.npaths) : NULL;
    sc.paths = paths;
    if (!m->commits)
        m->commits = workset_commits_new();
    sc.commits = m->commits;
    wo.scope = &sc;
    int rc = workset_from_worktree(b->repo, b->ag[i].worktree, &wo, &fresh, e);
    free(paths);
    b->reads_since_forget++;
    b->stat_reads++;
    b->stat_limited_reads += sc.limit;
    /* read now: what the watch sees from here on is noted anew */
    strmap_release(&m->pending);
    strmap_init(&m->pending);
    m->pending_all = false;
    strv_free(m->seen, m->nseen);
    m->seen = sc.changed;
    m->nseen = sc.nchanged;
    m->seen_ok = !rc;
    if (rc) {
        agent_release(&fresh);
        b->meta[i].git_state_ok = false;
        return rc;
    }
    b->meta[i].git_state = state;
    b->meta[i].git_state_ok = state_ok;
    gitview_recency(&b->cfg, &fresh, wo.now_ms);
    broker_drop_engine(b);
    adopt_workset(b, i, &fresh);
    b->meta[i].dirty_since = 0;
    return 0;
}

/* Told by the git layer about an agent left on its own base. */
static void
warn_unaligned(void *ctx, const struct agent *a, const char *msg)
{
    broker_log(ctx, "align %s: it stays on its own base: %s", a->id, msg);
}

/*
 * Move every agent onto the newest base (git/align.h), as `airspace scan`
 * does, then finish the working sets of the agents just read (read[i])
 * and of those moved, whose names the move dropped: the human's share of
 * a shared worktree, and the agent's view of the graph. Only an agent off
 * the newest base is rebased (by (base, tree, newest base), cached), so a
 * refresh costs one rebase, or one per agent when the newest base moves.
 */
static void
align_finish(struct broker *b, const bool *read)
{
    char(*was)[GIT_OID_HEXSZ + 1] = xcalloc(b->nagents + 1, sizeof(*was));
    for (size_t i = 0; i < b->nagents; i++)
        if (b->ag[i].base_oid && strlen(b->ag[i].base_oid) == GIT_OID_HEXSZ)
            memcpy(was[i], b->ag[i].base_oid, GIT_OID_HEXSZ);
    struct align_stats st;
    struct as_err e;
    broker_drop_engine(b); /* working sets change below */
    if (align_agents(b->repo, b->acache, b->ag, b->nagents, warn_unaligned, b,
            &st, &e)) {
        broker_log(b, "align: %s; agents stay on their own bases", e.msg);
    } else {
        if (!st.linear && !b->unaligned)
            broker_log(b, "align: no agent's base descends from every "
                          "other's; agents stay on their own bases");
        b->unaligned = !st.linear;
    }
    for (size_t i = 0; i < b->nagents; i++) {
        bool moved = b->ag[i].base_oid && strcmp(was[i], b->ag[i].base_oid);
        if (moved && !read[i])
            b->realigned = true;
        if (!read[i] && !moved)
            continue;
        if (broker_who(b, i)->human_residual && read[i])
            sync_shared(b, b->ag[i].worktree, &b->ag[i]);
        if (broker_who(b, i)->human_residual)
            subtract_reported(b, b->ag[i].worktree, &b->ag[i]);
        if (b->have_graph) {
            if (!b->meta[i].names)
                b->meta[i].names = gitview_names_cache_new();
            gitview_agent_view_cached(
                &b->graph, &b->view_base, b->repo, &b->ag[i], b->meta[i].names);
        }
    }
    free(was);
}

void
broker_graph_changed(struct broker *b)
{
    if (b->have_graph) {
        broker_drop_engine(b); /* the views change below */
        for (size_t i = 0; i < b->nagents; i++) {
            if (broker_who(b, i)->peer)
                continue; /* its names are its daemon's (team.c) */
            if (!b->meta[i].names)
                b->meta[i].names = gitview_names_cache_new();
            gitview_agent_view_cached(
                &b->graph, &b->view_base, b->repo, &b->ag[i], b->meta[i].names);
        }
    }
    broker_rescore(b, SIZE_MAX);
}

int
broker_refresh_agent(struct broker *b, size_t i, struct as_err *e)
{
    if (!broker_who(b, i)->from_worktree || !b->ag[i].worktree)
        return 0;
    int rc = read_workset(b, i, e);
    if (rc)
        return rc;
    bool *read = xcalloc(b->nagents, sizeof(*read));
    read[i] = true;
    align_finish(b, read);
    free(read);
    return 0;
}

/* Agents for the worktrees git lists that none flies in yet (discovered,
 * watched, announced); their working sets are not read here. */
static int
discover_worktrees(struct broker *b, struct as_err *e)
{
    struct repo_worktree *wts;
    size_t n;
    int rc = repo_worktrees(b->repo, &wts, &n, e);
    if (rc)
        return rc;
    for (size_t k = 0; k < n; k++) {
        if (wts[k].prunable)
            continue;
        ssize_t found = -1;
        for (size_t i = 0; i < b->nagents && found < 0; i++)
            if (b->ag[i].worktree && !strcmp(b->ag[i].worktree, wts[k].path))
                found = (ssize_t)i;
        if (found < 0) {
            const char *name = worktree_agent_name(wts[k].branch, wts[k].name);
            struct as_req r = { .agent = name, .worktree = wts[k].path };
            struct as_result res;
            as_result_init(&res);
            if (broker_agent_op(b, as_discover, &r, &res)) {
                broker_log(b, "worktree %s: %s", wts[k].path, res.err.msg);
                as_result_release(&res);
                continue;
            }
            size_t i = (size_t)broker_find_agent(b, res.agent);
            as_result_release(&res);
            if (wts[k].branch)
                b->ag[i].branch = xstrdup(wts[k].branch);
            broker_watch_worktree(b, i);
            broker_emit(b, "agent.discovered", b->ag[i].id,
                broker_agent_json(b, i, false));
        }
    }
    repo_worktrees_free(wts, n);
    return 0;
}

int
broker_rescan(struct broker *b, struct as_err *e)
{
    int rc = discover_worktrees(b, e);
    if (rc)
        return rc;
    /* Every snapshot of uncommitted work lives in the in-memory object
     * store; without a reset it grows with every edit for the daemon's
     * life. Active worktree agents are re-read just below; every other
     * agent, and one whose re-read fails, loses its snapshot tree (the
     * merge channel skips a pair without one). */
    repo_forget_created(b->repo);
    b->reads_since_forget = 0;
    b->forgot_at = broker_now();
    b->watch_overflow = false;   /* every worktree is read below */
    align_cache_free(b->acache); /* its trees are gone */
    b->acache = align_cache_new();
    bool *read = xcalloc(b->nagents + 1, sizeof(*read));
    for (size_t i = 0; i < b->nagents; i++) {
        struct as_err ae;
        /* every file, whatever the watch saw: what it cannot see (a
         * directory past its depth, node_modules) is read here */
        b->meta[i].pending_all = true;
        bool reread = reads_worktree(b, i);
        if (reread && broker_who(b, i)->status != AS_AGENT_ACTIVE &&
            access(b->ag[i].worktree, F_OK)) { /* gone: `agent prune` */
            broker_forget_gone_worktree(b, i);
            reread = false;
        }
        if (reread && !read_workset(b, i, &ae)) {
            read[i] = true;
            continue;
        }
        if (reread)
            broker_log(b, "refresh %s: %s", b->ag[i].id, ae.msg);
        free(b->ag[i].tree_oid);
        b->ag[i].tree_oid = NULL;
    }
    /* once every agent is read: one alignment, onto their newest base */
    align_finish(b, read);
    free(read);
    broker_rescore(b, SIZE_MAX);
    return 0;
}

/*
 * Discover new worktrees, then read again now the active worktree agents
 * whose git state changed since their last read (or never read, or marked
 * dirty); with age, the others' recency weights are brought up to now and
 * every pair scored again.
 */
static int
refresh_changed(struct broker *b, bool age, struct as_err *e)
{
    int rc = discover_worktrees(b, e);
    if (rc)
        return rc;
    struct workset_options wo;
    workset_options_init(&wo);
    wo.integration = b->integration;
    int64_t now = broker_now();
    bool aged = false;
    for (size_t i = 0; i < b->nagents; i++) {
        if (!reads_worktree(b, i))
            continue;
        if (access(b->ag[i].worktree, F_OK)) { /* gone: `agent prune` */
            broker_forget_gone_worktree(b, i);
            continue;
        }
        uint64_t state;
        struct as_err se;
        if (!b->meta[i].git_state_ok ||
            workset_worktree_state(
                b->repo, b->ag[i].worktree, &wo, &state, &se) ||
            state != b->meta[i].git_state) {
            if (!b->meta[i].dirty_since)
                b->meta[i].dirty_since = now;
        } else if (age && b->ag[i].nfiles) { /* as read, only older */
            gitview_recency(&b->cfg, &b->ag[i], now);
            aged = true;
        }
    }
    broker_refresh_dirty(b);
    if (aged)
        broker_rescore(b, SIZE_MAX);
    return 0;
}

int
broker_refresh_git(struct broker *b, struct as_err *e)
{
    return refresh_changed(b, false, e);
}

int
broker_rescan_periodic(struct broker *b, struct as_err *e)
{
    b->stat_rescans++;
    if (b->inotify_fd < 0 || b->watch_incomplete || b->watch_overflow ||
        b->reads_since_forget >= RESCAN_FORGET_READS ||
        broker_now() - b->forgot_at >= RESCAN_FORGET_MS) {
        b->stat_full_rescans++;
        return broker_rescan(b, e);
    }
    return refresh_changed(b, true, e);
}

/*
 * At start, before worktrees are discovered: the orphaned agent worktrees
 * (directory gone) are pruned as `airspace agent prune` does
 * (worktree_prune_agents()). Each one is logged and announced
 * (`worktree.pruned`); the agents stored as flying there exit, as on
 * `POST /v1/agents/{id}/exit` (their locks and claims released). A failure
 * is logged: the daemon serves anyway.
 */
void
broker_prune_orphans(struct broker *b)
{
    struct worktree_info *v = NULL;
    size_t n = 0;
    struct as_err e;
    if (worktree_prune_agents(b->o.repo_path, false, &v, &n, &e)) {
        broker_log(
            b, "prune: %s; orphaned worktrees are left as they are", e.msg);
        return;
    }
    for (size_t k = 0; k < n; k++) {
        struct worktree_info *w = &v[k];
        if (w->branch_deleted)
            broker_log(b,
                "prune: worktree %s of agent %s is gone: pruned, branch %s "
                "deleted (was %.7s)",
                w->path, w->name, w->branch, w->base);
        else if (!w->base[0])
            broker_log(b,
                "prune: worktree %s of agent %s is gone: pruned, branch %s "
                "is gone already",
                w->path, w->name, w->branch);
        else
            broker_log(b,
                "prune: worktree %s of agent %s is gone: pruned, branch %s "
                "kept (%s)",
                w->path, w->name, w->branch,
                w->branch_kept ? w->branch_kept : "not merged");
        /* the agents there exit (as_worktree_gone): announced after the
         * worktree */
        struct as_req r = { .worktree = w->path, .reason = "worktree pruned" };
        struct as_result res;
        as_result_init(&res);
        struct as_events ev;
        as_events_init(&ev);
        as_worktree_gone(broker_airspace(b), broker_now(), &r, &res, &ev);
        as_result_release(&res);
        json_t *exited = json_array();
        for (size_t x = 0; x < ev.n; x++)
            if (ev.v[x].kind == AS_EV_AGENT_STATUS)
                json_array_append_new(exited, json_string(ev.v[x].agent));
        json_t *d = json_pack("{s:s, s:s, s:s, s:o, s:b, s:o}", "agent",
            w->name, "worktree", w->path, "branch", w->branch, "tip",
            w->base[0] ? json_string(w->base) : json_null(), "branchDeleted",
            w->branch_deleted, "exited", exited);
        if (w->branch_kept)
            json_object_set_new(d, "branchKept", json_string(w->branch_kept));
        broker_emit(b, "worktree.pruned", w->name, d);
        for (size_t x = 0; x < ev.n; x++)
            if (ev.v[x].kind == AS_EV_AGENT_STATUS)
                broker_log(b, "prune: agent %s exits (its worktree is gone)",
                    ev.v[x].agent);
        broker_airspace_events(b, &ev);
        as_events_release(&ev);
        worktree_info_release(w);
    }
    if (n)
        broker_log(b, "prune: %zu orphaned agent worktree%s pruned", n,
            n == 1 ? "" : "s");
    free(v);
}

/* The machine made the person at the keyboard of a shared worktree
 * (as_human, inside a registration or a restore): stored (a restart finds
 * it, with its id) and announced. */
void
broker_agent_human(struct broker *b, size_t i)
{
    broker_persist_agent(b, i);
    broker_emit(
        b, "agent.discovered", b->ag[i].id, broker_agent_json(b, i, false));
}

/* Agent i flies in a shared worktree now (as_join): it keeps only the
 * edits it reports, what git said was the whole worktree's. Or its
 * worktree is no longer shared: its working set is read from there again
 * (whole, soon), the worktree's watch its own when the agent it was for
 * has left. */
void
broker_agent_shared(struct broker *b, size_t i)
{
    broker_drop_engine(b);
    broker_persist_agent(b, i);
    if (!broker_who(b, i)->shared) {
        b->meta[i].pending_all = true;
        b->meta[i].git_state_ok = false;
        broker_watch_worktree(b, i);
        broker_read_later(b, i);
        return;
    }
    struct agent fresh;
    agent_init(&fresh, b->ag[i].id);
    adopt_workset(b, i, &fresh);
}

void
broker_refresh_residual(struct broker *b, const char *wt)
{
    for (size_t j = 0; j < b->nagents; j++)
        if (broker_who(b, j)->human_residual && b->ag[j].worktree &&
            !strcmp(b->ag[j].worktree, wt) &&
            as_agent_find(b->as, b->ag[j].id)) { /* (not leaving) */
            struct as_err e;
            if (broker_refresh_agent(b, j, &e))
                broker_log(b, "refresh %s: %s", b->ag[j].id, e.msg);
            broker_rescore(b, j);
        }
}

/*
 * Agent i, known as `old` until now, was taken over under a new id
 * (as_join; its locks, intents and inbox followed as events before, its
 * working set took the new id): its reports move (stored), its prompt
 * topics are agent i's and stay, the detector forgets the old id (the
 * caller tells it the new one, with its intents and files), and its pairs
 * restart under the new id.
 */
void
broker_agent_renamed(struct broker *b, size_t i, const char *old)
{
    const char *id = b->ag[i].id;
    int64_t now = broker_now();
    free(b->meta[i].reports.id);
    b->meta[i].reports.id = xstrdup(id);
    struct as_err e;
    if (db_reports_move(b->db, old, id, &e))
        broker_log(b, "store: %s", e.msg);

    conflicts_agent_remove(b->conflicts, old, now);

    broker_drop_pairs(b, old, "agent renamed");
}

/* The person at the keyboard of worktree real (as_human): made unless it
 * is there, its working set read. */
static int
register_person(struct broker *b, const char *real, size_t *out, bool *created)
{
    struct as_req r = { .worktree = real };
    struct as_result res;
    as_result_init(&res);
    int rc = broker_agent_op(b, as_human, &r, &res);
    if (!rc) {
        *out = (size_t)broker_find_agent(b, res.agent);
        *created = res.created;
    }
    as_result_release(&res);
    struct as_err ae;
    if (!rc && broker_refresh_agent(b, *out, &ae))
        broker_log(b, "refresh %s: %s", b->ag[*out].id, ae.msg);
    if (!rc)
        broker_rescore(b, *out);
    return rc;
}

int
broker_register(struct broker *b, json_t *body, size_t *out, bool *created,
    struct as_err *e)
{
    const char *worktree = json_string_value(json_object_get(body, "worktree"));
    broker_drop_engine(b); /* identities may change below */
    char *real = worktree ? realpath(worktree, NULL) : NULL;
    const char *kind = json_string_value(json_object_get(body, "kind"));
    if (real && kind && !strcmp(kind, "human") &&
        !json_object_get(body, "id")) {
        int prc = register_person(b, real, out, created);
        free(real);
        if (prc)
            as_errorf(e, prc, "cannot make the person at '%s'", worktree);
        return prc;
    }
    struct as_req r = {
        .agent = json_string_value(json_object_get(body, "id")),
        .worktree = real ? real : worktree,
        .worktree_real = real != NULL,
        .client = json_string_value(json_object_get(body, "client")),
        .label = json_string_value(json_object_get(body, "label")),
        .agent_kind = json_string_value(json_object_get(body, "kind")),
    };
    json_t *lanes = json_object_get(body, "lanes");
    const char **lv = NULL;
    if (json_is_array(lanes)) {
        r.set_lanes = true;
        r.nlanes = json_array_size(lanes);
        lv = xcalloc(r.nlanes + 1, sizeof(*lv));
        for (size_t k = 0; k < r.nlanes; k++)
            lv[k] = json_string_value(json_array_get(lanes, k));
        r.lanes = lv;
    }
    struct as_result res;
    as_result_init(&res);
    struct as_events ev;
    as_events_init(&ev);
    int rc = as_join(broker_airspace(b), broker_now(), &r, &res, &ev);
    free(lv);
    free(real);
    if (rc) {
        as_errorf(e, rc, "%s", res.err.msg);
        as_events_release(&ev);
        as_result_release(&res);
        return rc;
    }
    /* one transaction: what moves and the agent's new row */
    struct as_err te;
    bool tx = res.renamed_from && db_begin(b->db, &te) == 0;
    broker_airspace_events(b, &ev); /* a rename, a shared worktree */
    as_events_release(&ev);
    size_t i = (size_t)broker_find_agent(b, res.agent);
    *created = res.created;
    broker_slot_identity(b, i);
    struct agent *a = &b->ag[i];
    const char *s;
    if ((s = json_string_value(json_object_get(body, "branch")))) {
        free(a->branch);
        a->branch = xstrdup(s);
    }
    if (res.new_worktree)
        broker_watch_worktree(b, i);
    *out = i;
    broker_persist_agent(b, i);
    /* a discovered agent's reports were not stored: now they are */
    struct bagent *m = &b->meta[i];
    for (size_t k = 0; res.taken && k < m->reports.nfiles; k++)
        broker_persist_report(b, i, &m->reports.files[k]);
    broker_conflicts_agent(b, i);
    json_t *reg = broker_agent_json(b, i, false);
    if (res.renamed_from)
        json_object_set_new(reg, "renamedFrom", json_string(res.renamed_from));
    as_result_release(&res);
    broker_emit(b, "agent.registered", a->id, reg);
    if (tx && db_commit(b->db, &te))
        broker_log(b, "store: %s", te.msg);
    struct as_err ae;
    if (broker_refresh_agent(b, i, &ae))
        broker_log(b, "refresh %s: %s", a->id, ae.msg);
    broker_rescore(b, i);
    if (broker_who(b, i)->shared)
        broker_refresh_residual(b, a->worktree);
    return 0;
}

/* Agent i exited: it forgets what it reported (memory and store), and an
 * agent without a worktree or in a shared one, whose working set is (the
 * share of) its reports, its working set; in a worktree still shared its
 * changes are the human's from the next read, in one left to a single
 * agent that agent's. */
static void
drop_reports(struct broker *b, size_t i)
{
    struct bagent *m = &b->meta[i];
    struct agent *a = &b->ag[i];
    if (!m->reports.nfiles)
        return;
    agent_release(&m->reports);
    agent_init(&m->reports, a->id);
    /* (in a shared worktree its working set was its reports' share: none
     * now, whether or not a read of the worktree follows) */
    if (!a->worktree || broker_who(b, i)->shared) {
        broker_drop_engine(b); /* it borrows the working sets */
        for (size_t k = 0; k < a->nfiles; k++)
            ws_file_release(&a->files[k]);
        a->nfiles = 0;
    }
    struct as_err e;
    if (broker_who(b, i)->registered && db_reports_drop(b->db, a->id, &e))
        broker_log(b, "store: %s", e.msg);
}

void
broker_set_status(struct broker *b, size_t i, enum as_agent_status s,
    const char *why, bool seen)
{
    struct as_req r = {
        .agent = b->ag[i].id, .status = s, .reason = why, .seen = seen
    };
    struct as_result res;
    as_result_init(&res);
    if (broker_agent_op(b, as_set_status, &r, &res))
        broker_log(b, "status of %s: %s", r.agent, res.err.msg);
    as_result_release(&res);
}

void
broker_agent_status_changed(
    struct broker *b, size_t i, enum as_agent_status s, const char *why)
{
    broker_persist_agent(b, i);
    if (s == AS_AGENT_EXITED)
        drop_reports(b, i);
    /* its locks went with the status; the conflicts it was told wait for
     * its return (detect.c) */
    if (s != AS_AGENT_ACTIVE) {
        conflicts_agent_leave(b->conflicts, b->ag[i].id, broker_now());
        b->meta[i].paths_hash = 0; /* the detector forgot its files */
        b->meta[i].files_known = false;
    }
    json_t *d = broker_agent_json(b, i, false);
    if (why)
        json_object_set_new(d, "reason", json_string(why));
    broker_emit(b,
        s == AS_AGENT_ACTIVE   ? "agent.active"
        : s == AS_AGENT_EXITED ? "agent.exited"
                               : "agent.stale",
        b->ag[i].id, d);
    if (s == AS_AGENT_ACTIVE) /* back: the detector is told it again, whole */
        broker_conflicts_agent(b, i);
    broker_rescore(b, i);
    if (s == AS_AGENT_EXITED && broker_who(b, i)->shared && b->ag[i].worktree)
        broker_refresh_residual(b, b->ag[i].worktree);
}

/* Agent i leaves the agent table: the watches of its worktree pass to
 * another agent there (else they are removed), and every index above i
 * moves down by one. */
static void
remove_agent(struct broker *b, size_t i)
{
    broker_drop_engine(b); /* it borrows the working sets by index */
    const char *wt = b->ag[i].worktree;
    size_t heir = SIZE_MAX;
    /* an active agent there first: the one that reads the worktree */
    for (int pass = 0; pass < 2 && heir == SIZE_MAX; pass++)
        for (size_t j = 0; wt && j < b->nagents && heir == SIZE_MAX; j++)
            if (j != i && b->ag[j].worktree && !strcmp(b->ag[j].worktree, wt) &&
                (pass || broker_who(b, j)->status == AS_AGENT_ACTIVE))
                heir = j;
    for (size_t k = 0; k < b->nwatches; k++) {
        struct bwatch *w = &b->watches[k];
        if (!w->dir)
            continue;
        if (w->agent == i && heir == SIZE_MAX) {
            inotify_rm_watch(b->inotify_fd, (int)k);
            free(w->dir);
            w->dir = NULL;
            continue;
        }
        if (w->agent == i)
            w->agent = (uint32_t)heir;
        if (w->agent > i)
            w->agent--;
    }
    for (size_t k = 0; k < b->npairs; k++) {
        b->pairs[k].hold -= b->pairs[k].hold > i;
        b->pairs[k].steer -= b->pairs[k].steer > i;
    }
    if (heir != SIZE_MAX) /* what the watch saw was agent i's */
        b->meta[heir].pending_all = true;
    agent_release(&b->ag[i]);
    broker_meta_release(&b->meta[i]);
    memmove(&b->ag[i], &b->ag[i + 1], (b->nagents - i - 1) * sizeof(*b->ag));
    memmove(
        &b->meta[i], &b->meta[i + 1], (b->nagents - i - 1) * sizeof(*b->meta));
    b->nagents--;
}

/*
 * Registered agent i is gone: nothing was heard from it for
 * agent_timeout_ms, and the machine forgot it (as_agents_expire: its locks
 * and claims released, its intents dropped, its inbox emptied, one event
 * each, told before). Its reports are forgotten (in a shared worktree its
 * changes are the human's), its pairs forgotten (a live advisory
 * announced clear), and it leaves the daemon and the store with its
 * inbox: `agent.gone`.
 */
void
broker_forget_agent(
    struct broker *b, size_t i, const struct as_agent *who, const char *why)
{
    char *id = xstrdup(b->ag[i].id);
    char *wt =
        who->shared && b->ag[i].worktree ? xstrdup(b->ag[i].worktree) : NULL;
    /* a worktree it flew in alone: found again now, as a discovered
     * agent, rather than nobody's until the next periodic rescan */
    bool alone = !who->shared && b->ag[i].worktree;
    json_t *d = broker_agent_json(b, i, false);
    json_object_set_new(d, "reason", json_string(why));
    struct as_err e;
    bool tx = db_begin(b->db, &e) == 0;
    drop_reports(b, i);
    conflicts_agent_remove(b->conflicts, id, broker_now());
    broker_drop_pairs(b, id, "agent gone");
    if (db_agent_drop(b->db, id, &e))
        broker_log(b, "store: %s", e.msg);
    remove_agent(b, (size_t)broker_find_agent(b, id));
    broker_emit(b, "agent.gone", id, d);
    if (tx && db_commit(b->db, &e))
        broker_log(b, "store: %s", e.msg);
    broker_log(b, "agent %s is gone (%s)", id, why);
    if (wt)
        broker_refresh_residual(b, wt);
    if (alone && broker_refresh_git(b, &e))
        broker_log(b, "after %s: %s", id, e.msg);
    free(wt);
    free(id);
}

/* ---- persistence ---- */

void
broker_agent_seen(struct broker *b, size_t i)
{
    bool back = broker_who(b, i)->status == AS_AGENT_STALE;
    struct as_req r = { .agent = b->ag[i].id };
    struct as_result res;
    as_result_init(&res);
    broker_agent_op(b, as_seen, &r, &res); /* a stale agent is back: stored */
    as_result_release(&res);
    if (back)
        return;
    /* stored often enough that a restart judges silence close to right,
     * at most once a second (hooks call on every tool use) */
    int64_t every = b->o.stale_ms / 4 < 1000 ? b->o.stale_ms / 4 : 1000;
    if (broker_who(b, i)->last_seen - b->meta[i].stored_seen >= every)
        broker_persist_agent(b, i);
}

void
broker_persist_agent(struct broker *b, size_t i)
{
    const struct agent *a = &b->ag[i];
    const struct as_agent *m = broker_who(b, i);
    if ((!m->registered && !m->human_residual) || m->peer)
        return; /* discovered worktrees are found again at start; another
                   daemon's agents are stored by their daemon */
    json_t *lanes = json_array();
    for (size_t k = 0; k < m->nlanes; k++)
        json_array_append_new(lanes, json_string(m->lanes[k]));
    char *lt = json_dumps(lanes, JSON_COMPACT);
    json_decref(lanes);
    struct db_agent da = { m->id, m->human ? "human" : "agent", m->client,
        m->label, m->worktree, a->branch, lt, status_names[m->status],
        m->shared, m->human_residual, m->registered_at, m->last_seen };
    struct as_err e;
    if (db_agent_put(b->db, &da, &e))
        broker_log(b, "store: %s", e.msg);
    else
        b->meta[i].stored_seen = m->last_seen;
    free(lt);
}

void
broker_persist_report(struct broker *b, size_t i, const struct ws_file *r)
{
    if (!broker_who(b, i)->registered || broker_who(b, i)->peer)
        return; /* a discovered worktree's: stored when it is taken over */
    struct db_report dr = { b->ag[i].id, r->path, r->status, r->whole,
        &r->ranges, r->changed_at_ms, r->weight };
    struct as_err e;
    if (db_report_put(b->db, &dr, &e))
        broker_log(b, "store: %s", e.msg);
}

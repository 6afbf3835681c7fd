/*
 * broker.c - the daemon's loop: start-up (lock, store of the graph,
 * listeners), agents and their working sets, scoring, file watching and
 * timers, shutdown.
 *
 * The rules of agents (registration, ids, worktree takeover, shared
 * worktrees and their humans, status, leaving), locks, intents and
 * messages are the airspace state machine's (src/airspace), and so is the
 * agent table: this file calls its operations (as_join, as_discover,
 * as_set_status, ...) and does their I/O when collab.c hands it their
 * events. It is still large because it holds I/O and pipelines that are
 * not those rules: the agents' git working sets, shared worktrees'
 * reports and their alignment, the scoring (broker_rescore, with
 * src/view), inotify watches, the graph's build thread, listeners and the
 * store's restore; splitting them into files of their own is a move of
 * code only.
 */
#include "broker/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <pthread.h>
#include <stdatomic.h>

#include <event2/listener.h>

#include "broker/conns.h"
#include "broker/fence.h"
#include "view/gitview.h"
#include "broker/team.h"
#include "core/owners.h"
#include "git/workset.h"
#include "git/worktree.h"
#include "util/file.h"
#include "util/xalloc.h"
#include "util/clock.h"
#include "util/banned.h"

void
broker_options_init(struct broker_options *o)
{
    memset(o, 0, sizeof(*o));
    o->repo_path = ".";
    o->stale_ms = 10 * 60 * 1000;
    o->rescan_ms = 30 * 1000;
    o->debounce_ms = 150;
    o->tick_ms = 1000;
    o->threads = 2;
    o->window_ms = CONFLICTS_DEFAULT_WINDOW_MS;
    o->idle_exit_ms = 30 * 60 * 1000;
    o->agent_timeout_ms = 60 * 60 * 1000;
    o->max_conns = 512;
    o->max_peer_conns = 64;
    o->req_timeout_ms = 10 * 1000;
    o->conn_idle_ms = 60 * 1000;
    o->ready_fd = -1;
    o->alerts_repeat_ms = o->alerts_cap = -1;
}

int64_t
broker_now(void)
{
    return clock_wall_ms();
}

/* One line of the log: the UTC time to the millisecond, then the text. */
__attribute__((format(printf, 2, 0))) static void
log_line(FILE *f, const char *fmt, va_list ap)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[32];
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
    fprintf(f, "%s.%03ldZ ", when, ts.tv_nsec / 1000000);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
    fflush(f);
}

__attribute__((format(printf, 2, 3))) static void
log_to(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_line(f, fmt, ap);
    va_end(ap);
}

void
broker_log(struct broker *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_line(b->log ? b->log : stderr, fmt, ap);
    va_end(ap);
}

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

void
broker_slot_identity(struct broker *b, size_t i)
{
    const struct as_agent *w = broker_who(b, i);
    struct agent *a = &b->ag[i];
    a->kind = w->human ? AGENT_HUMAN : AGENT_AGENT;
    if (!w->label || !a->label || strcmp(w->label, a->label)) {
        free(a->label);
        a->label = w->label ? xstrdup(w->label) : NULL;
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
    broker_slot_identity(b, i);
    b->ag[i].started_at_ms = broker_who(b, i)->registered_at;
    return i;
}

/* Run machine operation op and tell the daemon its events; its answer. */
static int
agent_op(struct broker *b,
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
    if (agent_op(b, as_peer, &r, &res))
        abort(); /* team.c asks only for an id nobody has */
    as_result_release(&res);
    size_t i = (size_t)broker_find_agent(b, id);
    b->ag[i].branch = branch ? xstrdup(branch) : NULL;
    return i;
}

static const char *const status_names[] = { "active", "exited", "stale" };

/* Whether another agent that has not exited, or the human of a shared
 * worktree, flies in agent i's worktree. */
static bool
flies_shared(const struct broker *b, size_t i)
{
    const char *wt = b->ag[i].worktree;
    for (size_t j = 0; wt && j < b->nagents; j++)
        if (j != i && b->ag[j].worktree && !strcmp(b->ag[j].worktree, wt) &&
            (broker_who(b, j)->human_residual ||
                broker_who(b, j)->status != AS_AGENT_EXITED))
            return true;
    return false;
}

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
    if (a->label)
        json_object_set_new(o, "label", json_string(a->label));
    if (a->worktree)
        json_object_set_new(o, "worktree", json_string(a->worktree));
    if (a->branch)
        json_object_set_new(o, "branch", json_string(a->branch));
    if (a->base_oid)
        json_object_set_new(o, "base", json_string(a->base_oid));
    json_object_set_new(o, "status", json_string(status_names[m->status]));
    json_object_set_new(o, "registered", json_boolean(m->registered));
    json_object_set_new(
        o, "registeredAt", json_integer((json_int_t)m->registered_at));
    json_object_set_new(o, "lastSeen", json_integer((json_int_t)m->last_seen));
    json_t *lanes = json_array();
    for (size_t k = 0; k < m->nlanes; k++)
        json_array_append_new(lanes, json_string(m->lanes[k]));
    json_object_set_new(o, "lanes", lanes);
    json_object_set_new(o, "shared", json_boolean(flies_shared(b, i)));
    json_object_set_new(o, "fileCount", json_integer((json_int_t)a->nfiles));
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

/* The human's share of a shared worktree: remove from w every line (or
 * whole file) an agent registered in that worktree reported editing. The
 * agents report lines of the file as it was when they edited it; for the
 * small edits agents make these are close to base lines, and a file an
 * agent reported as a whole drops out entirely. */
static void
subtract_reported(struct broker *b, const char *wt, struct agent *w)
{
    size_t o = 0;
    for (size_t k = 0; k < w->nfiles; k++) {
        struct ws_file *f = &w->files[k];
        bool drop = broker_client_config(f->path);
        for (size_t i = 0; i < b->nagents && !drop; i++) {
            const struct agent *a = &b->ag[i];
            if (!broker_who(b, i)->shared || !a->worktree ||
                strcmp(a->worktree, wt))
                continue;
            for (size_t j = 0; j < a->nfiles && !drop; j++) {
                const struct ws_file *r = &a->files[j];
                if (strcmp(r->path, f->path))
                    continue;
                if (r->whole || f->whole || ws_status_whole(f->status)) {
                    drop = true;
                    break;
                }
                struct range_set rest;
                range_set_init(&rest);
                range_set_subtract(&rest, &f->ranges, &r->ranges);
                range_set_release(&f->ranges);
                f->ranges = rest;
                drop = f->ranges.n == 0;
            }
        }
        if (drop) {
            ws_file_release(f);
            continue;
        }
        w->files[o++] = *f;
    }
    w->nfiles = o;
}

/* The change of w to path (in base or new naming), or NULL. */
static const struct ws_file *
find_change(const struct agent *w, const char *path)
{
    for (size_t k = 0; k < w->nfiles; k++)
        if (!strcmp(w->files[k].path, path) ||
            (w->files[k].new_path && !strcmp(w->files[k].new_path, path)))
            return &w->files[k];
    return NULL;
}

/* out = the lines of d (a file's real change, base coordinates) that the
 * reported lines r meet: d ∩ r, and the line of each pure insertion after
 * base line k whose first line, k + 1, r holds (an agent reports the lines
 * it wrote); d's insertions stay insertions. */
static void
met_lines(
    struct range_set *out, const struct range_set *d, const struct range_set *r)
{
    struct range_set met = RANGE_SET_INIT, rest = RANGE_SET_INIT;
    range_set_intersect(&met, d, r);
    for (size_t k = 0; k < d->nins; k++)
        if (range_set_contains(r, d->ins[k] + 1)) {
            uint32_t line = d->ins[k] ? d->ins[k] : 1;
            range_set_add(&met, line, line);
        }
    range_set_subtract(&rest, d, &met);
    range_set_subtract(out, d, &rest);
    range_set_release(&met);
    range_set_release(&rest);
}

static bool
same_ranges(const struct range_set *x, const struct range_set *y)
{
    return x->n == y->n && x->nins == y->nins &&
           (!x->n || !memcmp(x->v, y->v, x->n * sizeof(*x->v))) &&
           (!x->nins || !memcmp(x->ins, y->ins, x->nins * sizeof(*x->ins)));
}

static bool
same_files(const struct agent *x, const struct agent *y)
{
    if (x->nfiles != y->nfiles)
        return false;
    for (size_t k = 0; k < x->nfiles; k++) {
        const struct ws_file *f = &x->files[k], *g = &y->files[k];
        if (strcmp(f->path, g->path) || f->status != g->status ||
            f->whole != g->whole || !same_ranges(&f->ranges, &g->ranges))
            return false;
    }
    return true;
}

/* Store report r of agent j that sync_shared rewrote, opening the
 * transaction of that read at the first (*tx). */
static void
persist_synced(struct broker *b, size_t j, const struct ws_file *r, bool *tx)
{
    struct as_err e;
    if (!*tx && broker_who(b, j)->registered) {
        if (db_begin(b->db, &e))
            broker_log(b, "store: %s", e.msg);
        else
            *tx = true;
    }
    broker_persist_report(b, j, r);
}

/*
 * The agents sharing worktree wt follow git. w is the whole worktree's
 * working set, just read and aligned (before the human's share is taken
 * out). Each agent's working set becomes, for every path it reported, that
 * path's real change: the lines its reports meet (met_lines), or all of
 * them when they meet none (a whole file, or lines reported in other
 * coordinates); a path as in the base is left out, so a committed or
 * reverted file leaves at once. Its reports then hold those lines, base
 * coordinates, or none for a path as in the base: changed again later, it
 * is still that agent's. The reports that change are stored in one
 * transaction (the request's, when a request reads).
 */
static void
sync_shared(struct broker *b, const char *wt, const struct agent *w)
{
    bool tx = false;
    for (size_t j = 0; j < b->nagents; j++) {
        struct bagent *m = &b->meta[j];
        if (!broker_who(b, j)->shared || broker_who(b, j)->human_residual ||
            !b->ag[j].worktree || strcmp(b->ag[j].worktree, wt))
            continue;
        struct agent fresh;
        agent_init(&fresh, b->ag[j].id);
        for (size_t k = 0; k < m->reports.nfiles; k++) {
            struct ws_file *r = &m->reports.files[k];
            const struct ws_file *d = find_change(w, r->path);
            if (!d) {
                if (r->ranges.n || r->ranges.nins) {
                    range_set_clear(&r->ranges);
                    persist_synced(b, j, r, &tx);
                }
                continue;
            }
            struct range_set got = RANGE_SET_INIT;
            bool all = r->whole || d->whole || ws_status_whole(d->status);
            if (!all) {
                met_lines(&got, &d->ranges, &r->ranges);
                all = got.n == 0;
            }
            if (all)
                range_set_copy(&got, &d->ranges);
            struct ws_file *f = agent_add_file(&fresh, d->path, d->status);
            if (d->new_path && !f->new_path)
                f->new_path = xstrdup(d->new_path);
            f->whole = d->whole;
            range_set_add_set(&f->ranges, &got);
            if (r->changed_at_ms > f->changed_at_ms)
                f->changed_at_ms = r->changed_at_ms;
            f->weight = r->weight;
            f->added_lines = d->added_lines;
            f->deleted_lines = d->deleted_lines;
            if (!r->whole && !same_ranges(&r->ranges, &got)) {
                range_set_copy(&r->ranges, &got);
                persist_synced(b, j, r, &tx);
            }
            range_set_release(&got);
        }
        agent_sort(&fresh);
        struct agent *a = &b->ag[j];
        bool changed = !same_files(a, &fresh);
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
    if (tx && db_commit(b->db, &e))
        broker_log(b, "store: %s", e.msg);
}

/* Read agent i's working set from git (worktree agents), in its own
 * base's coordinates and without its names: align_finish() completes it. */
static int
read_workset(struct broker *b, size_t i, struct as_err *e)
{
    struct agent fresh;
    agent_init(&fresh, b->ag[i].id);
    struct workset_options wo;
    workset_options_init(&wo);
    wo.integration = b->integration;
    wo.now_ms = broker_now();
    int rc = workset_from_worktree(b->repo, b->ag[i].worktree, &wo, &fresh, e);
    if (rc) {
        agent_release(&fresh);
        return rc;
    }
    /* the clients' settings are the tooling's, not the agent's work */
    size_t kept = 0;
    for (size_t k = 0; k < fresh.nfiles; k++) {
        if (broker_client_config(fresh.files[k].path))
            ws_file_release(&fresh.files[k]);
        else
            fresh.files[kept++] = fresh.files[k];
    }
    fresh.nfiles = kept;
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
        if (b->have_graph)
            gitview_agent_view(&b->graph, &b->view_base, b->repo, &b->ag[i]);
    }
    free(was);
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

static void watch_worktree(struct broker *b, size_t i);

int
broker_rescan(struct broker *b, struct as_err *e)
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
            const char *name = wts[k].branch ? wts[k].branch : wts[k].name;
            struct as_req r = { .agent = name, .worktree = wts[k].path };
            struct as_result res;
            as_result_init(&res);
            if (agent_op(b, as_discover, &r, &res)) {
                broker_log(b, "worktree %s: %s", wts[k].path, res.err.msg);
                as_result_release(&res);
                continue;
            }
            size_t i = (size_t)broker_find_agent(b, res.agent);
            as_result_release(&res);
            if (wts[k].branch)
                b->ag[i].branch = xstrdup(wts[k].branch);
            watch_worktree(b, i);
            broker_emit(b, "agent.discovered", b->ag[i].id,
                broker_agent_json(b, i, false));
        }
    }
    repo_worktrees_free(wts, n);
    /* Every snapshot of uncommitted work lives in the in-memory object
     * store; without a reset it grows with every edit for the daemon's
     * life. Active worktree agents are re-read just below; every other
     * agent, and one whose re-read fails, loses its snapshot tree (the
     * merge channel skips a pair without one). */
    repo_forget_created(b->repo);
    align_cache_free(b->acache); /* its trees are gone */
    b->acache = align_cache_new();
    bool *read = xcalloc(b->nagents + 1, sizeof(*read));
    for (size_t i = 0; i < b->nagents; i++) {
        struct as_err ae;
        bool reread = broker_who(b, i)->status == AS_AGENT_ACTIVE &&
                      broker_who(b, i)->from_worktree && b->ag[i].worktree;
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

/* Whether worktree paths x and y name one directory (either may end in
 * '/'; the directory may be gone, so they are compared as written). */
static bool
same_worktree(const char *x, const char *y)
{
    size_t nx = strlen(x), ny = strlen(y);
    while (nx > 1 && x[nx - 1] == '/')
        nx--;
    while (ny > 1 && y[ny - 1] == '/')
        ny--;
    return nx == ny && !memcmp(x, y, nx);
}

/*
 * At start, before worktrees are discovered: the orphaned agent worktrees
 * (directory gone) are pruned as `airspace agent prune` does
 * (worktree_prune_agents()). Each one is logged and announced
 * (`worktree.pruned`); the agents stored as flying there exit, as on
 * `POST /v1/agents/{id}/exit` (their locks and claims released). A failure
 * is logged: the daemon serves anyway.
 */
static void
prune_orphans(struct broker *b)
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
        size_t *gone = xcalloc(b->nagents + 1, sizeof(*gone));
        size_t ngone = 0;
        json_t *exited = json_array();
        for (size_t i = 0; i < b->nagents; i++)
            if (b->ag[i].worktree &&
                broker_who(b, i)->status != AS_AGENT_EXITED &&
                same_worktree(b->ag[i].worktree, w->path)) {
                gone[ngone++] = i;
                json_array_append_new(exited, json_string(b->ag[i].id));
            }
        json_t *d = json_pack("{s:s, s:s, s:s, s:o, s:b, s:o}", "agent",
            w->name, "worktree", w->path, "branch", w->branch, "tip",
            w->base[0] ? json_string(w->base) : json_null(), "branchDeleted",
            w->branch_deleted, "exited", exited);
        if (w->branch_kept)
            json_object_set_new(d, "branchKept", json_string(w->branch_kept));
        broker_emit(b, "worktree.pruned", w->name, d);
        for (size_t g = 0; g < ngone; g++) {
            broker_log(b, "prune: agent %s exits (its worktree is gone)",
                b->ag[gone[g]].id);
            broker_set_status(
                b, gone[g], AS_AGENT_EXITED, "worktree pruned", false);
        }
        free(gone);
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
 * edits it reports, what git said was the whole worktree's. */
void
broker_agent_shared(struct broker *b, size_t i)
{
    broker_drop_engine(b);
    broker_persist_agent(b, i);
    struct agent fresh;
    agent_init(&fresh, b->ag[i].id);
    adopt_workset(b, i, &fresh);
}

void
broker_refresh_residual(struct broker *b, const char *wt)
{
    for (size_t j = 0; j < b->nagents; j++)
        if (broker_who(b, j)->human_residual && b->ag[j].worktree &&
            !strcmp(b->ag[j].worktree, wt)) {
            struct as_err e;
            if (broker_refresh_agent(b, j, &e))
                broker_log(b, "refresh %s: %s", b->ag[j].id, e.msg);
            broker_rescore(b, j);
        }
}

static void clear_merge(struct bpair *p);

/* Forget every pair of agent id; a live one above clear is announced
 * clear first, with reason why. */
static void
drop_pairs(struct broker *b, const char *id, const char *why)
{
    size_t o = 0;
    for (size_t k = 0; k < b->npairs; k++) {
        struct bpair *p = &b->pairs[k];
        if (strcmp(p->a, id) && strcmp(p->b, id)) {
            b->pairs[o++] = *p;
            continue;
        }
        if (p->live && p->adv.st.level != ADVISORY_CLEAR) {
            json_t *d = broker_pair_json(b, k, false);
            json_object_set_new(
                d, "from", json_string(advisory_level_name(p->adv.st.level)));
            json_object_set_new(d, "level", json_string("clear"));
            json_object_set_new(d, "reason", json_string(why));
            broker_emit(b, "advisory", NULL, d);
        }
        clear_merge(p);
        free(p->a);
        free(p->b);
    }
    if (o != b->npairs) {
        b->npairs = o;
        strmap_release(&b->pair_idx);
        strmap_init(&b->pair_idx);
        for (size_t k = 0; k < b->npairs; k++) {
            char *key = xasprintf("%s\t%s", b->pairs[k].a, b->pairs[k].b);
            strmap_put(&b->pair_idx, key, strlen(key), (uint32_t)k, NULL);
            free(key);
        }
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

    drop_pairs(b, old, "agent renamed");
}

int
broker_register(struct broker *b, json_t *body, size_t *out, bool *created,
    struct as_err *e)
{
    const char *worktree = json_string_value(json_object_get(body, "worktree"));
    broker_drop_engine(b); /* identities may change below */
    char *real = worktree ? realpath(worktree, NULL) : NULL;
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
        watch_worktree(b, i);
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
 * agent without a worktree, whose working set is its reports, its working
 * set; in a shared worktree its changes are the human's from the next
 * read. */
static void
drop_reports(struct broker *b, size_t i)
{
    struct bagent *m = &b->meta[i];
    struct agent *a = &b->ag[i];
    if (!m->reports.nfiles)
        return;
    agent_release(&m->reports);
    agent_init(&m->reports, a->id);
    if (!a->worktree) {
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
    if (agent_op(b, as_set_status, &r, &res))
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
    if (s != AS_AGENT_ACTIVE) { /* its locks went with the status */
        conflicts_agent_remove(b->conflicts, b->ag[i].id, broker_now());
        b->meta[i].paths_hash = 0; /* the detector forgot its files */
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
    for (size_t j = 0; wt && j < b->nagents && heir == SIZE_MAX; j++)
        if (j != i && b->ag[j].worktree && !strcmp(b->ag[j].worktree, wt))
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
    agent_release(&b->ag[i]);
    agent_release(&b->meta[i].reports);
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
    json_t *d = broker_agent_json(b, i, false);
    json_object_set_new(d, "reason", json_string(why));
    struct as_err e;
    bool tx = db_begin(b->db, &e) == 0;
    drop_reports(b, i);
    conflicts_agent_remove(b->conflicts, id, broker_now());
    drop_pairs(b, id, "agent gone");
    if (db_agent_drop(b->db, id, &e))
        broker_log(b, "store: %s", e.msg);
    remove_agent(b, (size_t)broker_find_agent(b, id));
    broker_emit(b, "agent.gone", id, d);
    if (tx && db_commit(b->db, &e))
        broker_log(b, "store: %s", e.msg);
    broker_log(b, "agent %s is gone (%s)", id, why);
    if (wt)
        broker_refresh_residual(b, wt);
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
    agent_op(b, as_seen, &r, &res); /* a stale agent is back: stored */
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

static void
restore_agent(void *ctx, const struct db_agent *da)
{
    struct broker *b = ctx;
    /* the stored row goes back into the machine as the event that made it */
    struct as_event ev = { .kind = AS_EV_AGENT_REGISTERED,
        .at = da->registered_at };
    struct as_agent *w = &ev.who;
    ev.agent = (char *)da->id;
    w->id = (char *)da->id;
    w->human = !strcmp(da->kind, "human");
    w->client = (char *)da->client;
    w->label = (char *)da->label;
    w->worktree = (char *)da->worktree;
    w->registered = !da->human_residual;
    w->shared = da->shared;
    w->human_residual = da->human_residual;
    w->from_worktree = da->worktree && !da->shared;
    w->registered_at = da->registered_at;
    w->last_seen = da->last_seen;
    w->status = !strcmp(da->status, "exited")  ? AS_AGENT_EXITED
                : !strcmp(da->status, "stale") ? AS_AGENT_STALE
                                               : AS_AGENT_ACTIVE;
    json_t *lanes = da->lanes ? json_loads(da->lanes, 0, NULL) : NULL;
    if (json_is_array(lanes)) {
        w->nlanes = json_array_size(lanes);
        w->lanes = xcalloc(w->nlanes ? w->nlanes : 1, sizeof(*w->lanes));
        for (size_t k = 0; k < w->nlanes; k++) {
            const char *l = json_string_value(json_array_get(lanes, k));
            w->lanes[k] = (char *)(l ? l : "");
        }
    }
    struct as_err ae;
    int rc = as_apply(broker_airspace(b), &ev, &ae);
    free(w->lanes);
    if (lanes)
        json_decref(lanes);
    if (rc) {
        broker_log(b, "restore agent %s: %s", da->id, ae.msg);
        return;
    }
    size_t i = broker_find_agent(b, da->id) >= 0
                   ? (size_t)broker_find_agent(b, da->id)
                   : broker_slot_add(b, da->id);
    struct agent *a = &b->ag[i];
    const struct as_agent *m = broker_who(b, i);
    free(a->branch);
    a->branch = da->branch ? xstrdup(da->branch) : NULL;
    b->meta[i].stored_seen = da->last_seen;
    if (a->worktree)
        watch_worktree(b, i);
    struct conflict_msgs cm;
    conflict_msgs_init(&cm);
    struct as_err ce;
    if (m->status == AS_AGENT_ACTIVE &&
        conflicts_agent_set(b->conflicts, a->id, a->label,
            (const char *const *)m->lanes, m->nlanes, broker_now(), &cm, &ce))
        broker_log(b, "conflicts: %s", ce.msg);
    conflict_msgs_release(&cm); /* told before the restart */
}

struct restore_reports {
    struct broker *b;
    ssize_t at; /* the agent of the last row */
    size_t n;
};

/* A stored report into its agent's reports, and into the working set of an
 * agent without a worktree (its reports are its working set); a shared
 * worktree's agents' working sets are made of them at its first read. */
static void
restore_report(void *ctx, const struct db_report *dr)
{
    struct restore_reports *rr = ctx;
    struct broker *b = rr->b;
    if (rr->at < 0 || strcmp(b->ag[rr->at].id, dr->agent))
        rr->at = broker_find_agent(b, dr->agent);
    if (rr->at < 0)
        return;
    size_t i = (size_t)rr->at;
    struct agent *into[2] = { &b->meta[i].reports, &b->ag[i] };
    for (size_t t = 0; t < (b->ag[i].worktree ? 1u : 2u); t++) {
        struct ws_file *f = agent_add_file(into[t], dr->path, dr->status);
        f->status = dr->status;
        f->whole = dr->whole;
        range_set_copy(&f->ranges, dr->ranges);
        f->changed_at_ms = dr->changed_at;
        f->weight = dr->weight;
    }
    rr->n++;
}

static void
restore_lock(void *ctx, const struct lock *l)
{
    struct broker *b = ctx;
    struct as_err e;
    if (lock_table_restore(b->locks, l, &e))
        broker_log(
            b, "restore lock %llu: %s", (unsigned long long)l->token, e.msg);
}

/* A stored intent or message goes back into the machine as the event
 * that made it (as_apply). */
static void
restore_apply(struct broker *b, const struct as_event *ev)
{
    struct as_err e;
    if (as_apply(broker_airspace(b), ev, &e))
        broker_log(b, "restore: %s", e.msg);
}

static void
restore_intent(void *ctx, const struct db_intent *di)
{
    struct broker *b = ctx;
    json_t *files = json_loads(di->files, 0, NULL);
    if (!json_is_array(files)) {
        if (files)
            json_decref(files);
        return;
    }
    struct as_event ev = { .kind = AS_EV_INTENT_DECLARED };
    struct as_intent *in = &ev.intent;
    in->id = di->id;
    in->agent = (char *)di->agent;
    in->nfiles = json_array_size(files);
    in->files = xcalloc(in->nfiles ? in->nfiles : 1, sizeof(*in->files));
    for (size_t k = 0; k < in->nfiles; k++) {
        const char *f = json_string_value(json_array_get(files, k));
        in->files[k] = (char *)(f ? f : "");
    }
    in->regions = (char *)di->regions;
    in->summary = (char *)di->summary;
    in->created_at = di->created_at;
    in->expires_at = di->expires_at;
    restore_apply(b, &ev);
    free(in->files);
    json_decref(files);
    const struct as_intent *kept =
        &b->as->intents[b->as->nintents - 1]; /* just added */
    struct conflict_msgs cm;
    conflict_msgs_init(&cm);
    broker_conflicts_intent(b, kept, &cm);
    conflict_msgs_release(&cm); /* told before the restart */
}

static void
restore_message(void *ctx, const struct db_message *dm)
{
    struct broker *b = ctx;
    struct as_event ev = { .kind = AS_EV_MESSAGE_DELIVERED,
        .owner = (char *)dm->owner };
    ev.msg = (struct as_message){ dm->id, (char *)dm->from, (char *)dm->to,
        (char *)dm->type, (char *)dm->body, dm->at, dm->read };
    restore_apply(b, &ev);
    ev.kind = AS_EV_MESSAGE_SENT; /* its id is taken */
    restore_apply(b, &ev);
}

/* Restore the state of the store (start-up). */
static int
broker_restore(struct broker *b, struct as_err *e)
{
    int rc;
    uint64_t next_token, next_event;
    struct restore_reports rr = { b, -1, 0 };
    if ((rc = db_agents_load(b->db, restore_agent, b, e)) ||
        (rc = db_reports_load(b->db, restore_report, &rr, e)) ||
        (rc = db_locks_load(b->db, restore_lock, b, &next_token, e)) ||
        (rc = db_intents_load(b->db, restore_intent, b, e)) ||
        (rc = db_messages_load(b->db, restore_message, b, e)) ||
        (rc = db_ledger_next(b->db, &next_event, e)))
        return rc;
    broker_fence_load(b, &next_token, &next_event);
    if (next_token > lock_table_next_token(b->locks))
        lock_table_set_next_token(b->locks, next_token);
    b->next_event_id = b->ring_first = next_event;
    for (size_t i = 0; i < b->nagents; i++) {
        agent_sort(&b->meta[i].reports);
        agent_sort(&b->ag[i]);
    }
    /* a store of an airspace that did not keep the human of a shared
     * worktree: it is made again */
    for (size_t i = 0, n = b->nagents; i < n; i++)
        if (broker_who(b, i)->shared && b->ag[i].worktree) {
            struct as_req r = { .worktree = b->ag[i].worktree };
            struct as_result res;
            as_result_init(&res);
            agent_op(b, as_human, &r, &res);
            as_result_release(&res);
        }
    broker_sync_intents(b);
    size_t nl;
    lock_table_list(b->locks, broker_now(), &nl);
    broker_log(b,
        "restored %zu agents, %zu reports, %zu locks, %zu intents; next "
        "event %llu",
        b->nagents, rr.n, nl, b->as->nintents,
        (unsigned long long)b->next_event_id);
    return 0;
}

/* ---- locks ---- */

json_t *
broker_lock_json(const struct lock *l, int64_t now)
{
    json_t *o = json_object();
    json_object_set_new(o, "token", json_integer((json_int_t)l->token));
    json_object_set_new(o, "pattern", json_string(l->pattern));
    json_object_set_new(o, "holder", json_string(l->holder));
    json_object_set_new(o, "mode", json_string(lock_mode_name(l->mode)));
    json_object_set_new(o, "kind", json_string(lock_kind_name(l->kind)));
    json_object_set_new(
        o, "acquiredAt", json_integer((json_int_t)l->acquired_at));
    json_object_set_new(
        o, "expiresAt", json_integer((json_int_t)l->expires_at));
    json_object_set_new(o, "ttlMs", json_integer((json_int_t)l->ttl_ms));
    json_object_set_new(o, "expiresInMs",
        json_integer(
            (json_int_t)(l->expires_at > now ? l->expires_at - now : 0)));
    if (l->reason)
        json_object_set_new(o, "reason", json_string(l->reason));
    if (l->contested_by) {
        json_object_set_new(o, "contestedBy", json_string(l->contested_by));
        json_object_set_new(
            o, "contestedAt", json_integer((json_int_t)l->contested_at));
    }
    json_object_set_new(o, "file", json_boolean(l->file));
    return o;
}

void
broker_lock_events(struct broker *b, struct lock_events *ev)
{
    int64_t now = broker_now();
    for (size_t k = 0; k < ev->n; k++) {
        const struct lock_event *x = &ev->v[k];
        struct as_err e;
        int rc = 0;
        switch (x->type) {
        case LOCK_EV_EXPIRED: /* announced once, by the daemon retiring it */
            if (!team_lock_expired(b, x->lock.token))
                continue;
            break;
        case LOCK_EV_RELEASED:
        case LOCK_EV_RELEASED_ALL:
        case LOCK_EV_FORCE_RELEASED:
            rc = db_lock_delete(b->db, x->lock.token, &e);
            break;
        default:
            rc = db_lock_put(
                b->db, &x->lock, lock_table_next_token(b->locks), &e);
            break;
        }
        if (rc)
            broker_log(b, "store: %s", e.msg);
        if (x->type == LOCK_EV_TOUCHED)
            continue; /* routine activity: kept, not announced */
        json_t *d = broker_lock_json(&x->lock, now);
        if (x->actor)
            json_object_set_new(d, "actor", json_string(x->actor));
        broker_emit(b, lock_event_name(x), x->lock.holder, d);
    }
}

/* ---- scoring ---- */

static size_t
pair_index(struct broker *b, const char *x, const char *y)
{
    const char *a = strcmp(x, y) < 0 ? x : y, *c = a == x ? y : x;
    char *key = xasprintf("%s\t%s", a, c);
    uint32_t at;
    if (strmap_get(&b->pair_idx, key, strlen(key), &at)) {
        free(key);
        return at;
    }
    ALLOC_GROW(b->pairs, b->npairs + 1, b->apairs);
    struct bpair *p = &b->pairs[b->npairs];
    memset(p, 0, sizeof(*p));
    p->a = xstrdup(a);
    p->b = xstrdup(c);
    pair_advisory_init(&p->adv);
    strmap_put(&b->pair_idx, key, strlen(key), (uint32_t)b->npairs, NULL);
    free(key);
    return b->npairs++;
}

static void
clear_merge(struct bpair *p)
{
    for (size_t k = 0; k < p->nmerge_paths; k++)
        free(p->merge_paths[k]);
    free(p->merge_paths);
    p->merge_paths = NULL;
    p->nmerge_paths = 0;
    p->merge_checked = false;
}

/* Feed pair k a risk sample and publish a level change. */
static void
feed_pair(struct broker *b, size_t k, double risk, int64_t now)
{
    struct bpair *p = &b->pairs[k];
    enum advisory_level was;
    if (!pair_advisory_step(&b->cfg, &p->adv, risk, now, &was))
        return;
    json_t *d = broker_pair_json(b, k, p->adv.st.level == ADVISORY_RESOLUTION);
    json_object_set_new(d, "from", json_string(advisory_level_name(was)));
    broker_emit(b, "advisory", NULL, d);
}

/* How stale agent i's context is through agent j's changes: the highest
 * decayed heat of a file i holds in its context and j has changed. */
#define CONTEXT_HALF_LIFE_MS (10 * 60 * 1000)

static double
stale_context(struct broker *b, size_t i, size_t j, int64_t now)
{
    double best = 0;
    const struct agent *bj = &b->ag[j];
    for (size_t k = 0; k < bj->nfiles; k++) {
        struct activity_entry en;
        if (!activity_get(b->activity, bj->files[k].path, b->ag[i].id, &en) ||
            !en.in_context)
            continue;
        double h = activity_decay(en.heat, now - en.at, CONTEXT_HALF_LIFE_MS);
        if (h > 1)
            h = 1;
        if (h > best)
            best = h;
    }
    return best;
}

size_t
broker_pair_at(struct broker *b, const char *x, const char *y)
{
    return pair_index(b, x, y);
}

void
broker_pair_feed(struct broker *b, size_t k, int64_t now)
{
    feed_pair(b, k, b->pairs[k].res.risk, now);
}

void
broker_drop_engine(struct broker *b)
{
    if (b->engine)
        risk_engine_free(b->engine);
    b->engine = NULL;
    free(b->eng_agents);
    free(b->eng_pos);
    b->eng_agents = NULL;
    b->eng_pos = NULL;
    b->eng_n = 0;
}

void
broker_rescore(struct broker *b, size_t changed)
{
    int64_t now = broker_now();
    if (b->realigned || b->reshared) /* every pair's coordinates, or
                                          several agents, changed */
        changed = SIZE_MAX;
    b->realigned = b->reshared = false;
    broker_drop_engine(b);
    /* The engine scores active agents only; index map back to ours. */
    size_t *idx = xcalloc(b->nagents + 1, sizeof(*idx));
    struct agent *v = xcalloc(b->nagents + 1, sizeof(*v));
    b->eng_pos = xmalloc((b->nagents + 1) * sizeof(*b->eng_pos));
    size_t n = 0;
    for (size_t i = 0; i < b->nagents; i++) {
        b->eng_pos[i] = SIZE_MAX;
        if (broker_who(b, i)->status == AS_AGENT_ACTIVE) {
            idx[n] = i;
            b->eng_pos[i] = n;
            v[n++] = b->ag[i]; /* shallow: the engine only reads */
        }
    }
    /* A second thread pays off only for a large crowd: starting it costs
     * more than preparing a hundred small working sets. */
    size_t work = 0;
    for (size_t x = 0; x < n; x++)
        work += v[x].nfiles;
    struct risk_engine *en = risk_engine_new_mt(&b->cfg,
        b->have_graph ? &b->graph : NULL, v, n, work > 4000 ? b->o.threads : 1);
    b->engine = en;
    b->eng_agents = v;
    b->eng_n = n;
    struct gitview_merge mctx = { .repo = b->repo, .cache = b->mcache };
    for (size_t x = 0; x < n; x++)
        for (size_t y = x + 1; y < n; y++) {
            size_t i = idx[x], j = idx[y];
            if (changed != SIZE_MAX && i != changed && j != changed)
                continue;
            /* a pair with other daemons' agents: scored once, by one of
             * its daemons (the other mirrors the result, team.c) */
            if (!team_scores_pair(b, i, j))
                continue;
            size_t k = pair_index(b, b->ag[i].id, b->ag[j].id);
            struct bpair *p = &b->pairs[k];
            bool swapped = strcmp(b->ag[i].id, b->ag[j].id) > 0;
            /* context: a file one agent holds in its context (read, hot)
             * that the other has changed is stale for the first */
            double stale = stale_context(b, i, j, now);
            double stale2 = stale_context(b, j, i, now);
            /* topic: their prompts are converging on the same subject */
            struct topic_set conv;
            struct pair_input in = { .engine = en,
                .cfg = &b->cfg,
                .ea = swapped ? y : x,
                .eb = swapped ? x : y,
                .a = &b->ag[i],
                .b = &b->ag[j],
                .context = stale2 > stale ? stale2 : stale,
                .topic = topics_converge(
                             &b->meta[i].topics, &b->meta[j].topics, &conv) > 0,
                .merge = gitview_merge_pair,
                .merge_ctx = &mctx,
                .forward = b->view_base.forward };
            struct pair_score ps;
            clear_merge(p);
            pair_score(&in, &ps); /* an undecided merge is counted in mctx */
            p->res = ps.res;
            p->merge_checked = ps.merge_checked;
            p->merge_paths = ps.merge_paths;
            p->nmerge_paths = ps.nmerge_paths;
            if (p->nmerge_paths || p->merge_reported) {
                /* committed conflicts: tell the detector of a conflict,
                 * and of the clean merge that ends it (it recomputes its
                 * facts on every call, so clean pairs are not repeated) */
                p->merge_reported = p->nmerge_paths > 0;
                struct conflict_msgs cm;
                conflict_msgs_init(&cm);
                conflicts_report_merge(b->conflicts, p->a, p->b,
                    (const char *const *)p->merge_paths, p->nmerge_paths, now,
                    &cm);
                broker_conflict_msgs(b, &cm);
                conflict_msgs_release(&cm);
            }
            p->hold = (uint32_t)(ps.hold == 0 ? i : j);
            p->steer = (uint32_t)(ps.hold == 0 ? j : i);
            p->live = true;
            feed_pair(b, k, p->res.risk, now);
            team_pair_scored(b, k, i, j); /* the other daemon's copy */
        }
    /* Pairs with an agent gone fade out through the state machine. An
     * agent leaves with a rescore of its own: an active `changed` ended
     * no pair (the walk over every pair is the cost of a big airspace). */
    bool fade = changed == SIZE_MAX ||
                broker_who(b, changed)->status != AS_AGENT_ACTIVE;
    struct strmap active;
    strmap_init(&active);
    for (size_t x = 0; fade && x < n; x++)
        strmap_put(&active, b->ag[idx[x]].id, strlen(b->ag[idx[x]].id),
            (uint32_t)idx[x], NULL);
    for (size_t k = 0; fade && k < b->npairs; k++) {
        struct bpair *p = &b->pairs[k];
        uint32_t ia, ib;
        bool live = strmap_get(&active, p->a, strlen(p->a), &ia) &&
                    strmap_get(&active, p->b, strlen(p->b), &ib);
        if (!live && p->live) {
            p->live = false;
            memset(&p->res, 0, sizeof(p->res));
            clear_merge(p);
            enum advisory_level was = pair_advisory_leave(&p->adv);
            if (was != ADVISORY_CLEAR) {
                json_t *d = broker_pair_json(b, k, false);
                json_object_set_new(
                    d, "from", json_string(advisory_level_name(was)));
                json_object_set_new(d, "reason", json_string("agent left"));
                broker_emit(b, "advisory", NULL, d);
            }
        }
    }
    strmap_release(&active);
    for (size_t x = 0; x < n; x++)
        if (changed == SIZE_MAX || idx[x] == changed)
            broker_conflicts_modified(b, idx[x]);
    if (mctx.failures)
        broker_log(b, "merge channel: %s", mctx.first_error.msg);
    free(idx);
}

/* ---- file watching ---- */

/* Whether a directory entry is left unwatched (the repository itself,
 * dependency trees). */
static bool
watch_skips(const char *name)
{
    return !strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, ".git") ||
           !strcmp(name, "node_modules");
}

static void
watch_dir(struct broker *b, size_t agent, const char *dir, int depth)
{
    if (b->inotify_fd < 0 || depth > 32)
        return;
    int wd = inotify_add_watch(b->inotify_fd, dir,
        IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
            IN_CLOSE_WRITE | IN_ONLYDIR);
    if (wd < 0) {
        if (errno == ENOSPC)
            broker_log(b,
                "inotify watch limit reached at '%s'; relying on "
                "the periodic rescan",
                dir);
        return;
    }
    if ((size_t)wd >= b->nwatches) {
        size_t n = b->nwatches ? b->nwatches : 64;
        while (n <= (size_t)wd)
            n *= 2;
        b->watches = xrealloc(b->watches, n * sizeof(*b->watches));
        memset(b->watches + b->nwatches, 0,
            (n - b->nwatches) * sizeof(*b->watches));
        b->nwatches = n;
    }
    struct bwatch *w = &b->watches[wd];
    if (w->dir && !strcmp(w->dir, dir))
        return; /* already watched (the same directory) */
    /* new, or a watched directory moved here: (re)name it and its tree */
    if (!w->dir)
        w->agent = (uint32_t)agent;
    free(w->dir);
    w->dir = xstrdup(dir);
    w->depth = depth;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_type != DT_DIR || watch_skips(de->d_name))
            continue;
        char *sub = xasprintf("%s/%s", dir, de->d_name);
        watch_dir(b, agent, sub, depth + 1);
        free(sub);
    }
    closedir(d);
}

static void
watch_worktree(struct broker *b, size_t i)
{
    if (b->ag[i].worktree)
        watch_dir(b, i, b->ag[i].worktree, 0);
}

static void
on_debounce(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct broker *b = arg;
    b->debounce_armed = false;
    for (size_t i = 0; i < b->nagents; i++) {
        if (!b->meta[i].dirty_since)
            continue;
        struct as_err e;
        if (broker_refresh_agent(b, i, &e))
            broker_log(b, "refresh %s: %s", b->ag[i].id, e.msg);
        json_t *d = json_object();
        json_object_set_new(
            d, "files", json_integer((json_int_t)b->ag[i].nfiles));
        broker_emit(b, "workset.changed", b->ag[i].id, d);
        broker_rescore(b, i);
        b->meta[i].dirty_since = 0;
        if (broker_who(b, i)->shared && b->ag[i].worktree)
            broker_refresh_residual(b, b->ag[i].worktree);
    }
}

static void
on_inotify(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    struct broker *b = arg;
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n <= 0)
            break;
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *ev = (struct inotify_event *)p;
            struct bwatch *w = ev->wd >= 0 && (size_t)ev->wd < b->nwatches
                                   ? &b->watches[ev->wd]
                                   : NULL;
            p += sizeof(*ev) + ev->len;
            if (!w || !w->dir || w->agent >= b->nagents)
                continue;
            if (ev->mask & IN_IGNORED) { /* the directory is gone */
                free(w->dir);
                w->dir = NULL;
                continue;
            }
            if (!b->meta[w->agent].dirty_since)
                b->meta[w->agent].dirty_since = broker_now();
            /* A new directory (made, or moved in) gets its own watches. */
            if ((ev->mask & IN_ISDIR) &&
                (ev->mask & (IN_CREATE | IN_MOVED_TO)) && ev->len &&
                !watch_skips(ev->name)) {
                char *sub = xasprintf("%s/%s", w->dir, ev->name);
                watch_dir(b, w->agent, sub, w->depth + 1);
                free(sub);
            }
        }
    }
    if (!b->debounce_armed) {
        struct timeval tv = { b->o.debounce_ms / 1000,
            (b->o.debounce_ms % 1000) * 1000 };
        evtimer_add(b->debounce_ev, &tv);
        b->debounce_armed = true;
    }
}

/* ---- timers and signals ---- */

static void check_lifetime(struct broker *b, int64_t now);
static void check_store(struct broker *b);

static void
on_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct broker *b = arg;
    int64_t now = broker_now();
    check_store(b);
    /* silent ones turn stale, then those silent for agent_timeout_ms are
     * gone (by their last word, the daemon's downtime included: a live
     * session's next call starts the daemon and registers it again) */
    broker_expire_agents(b, now);
    broker_expire_intents(b, now);
    struct conflict_msgs cm;
    conflict_msgs_init(&cm);
    conflicts_tick(b->conflicts, now, &cm);
    broker_conflict_msgs(b, &cm);
    conflict_msgs_release(&cm);
    struct as_events lev; /* leases end on the store's clock */
    as_events_init(&lev);
    as_locks_expire(broker_airspace(b), team_clock(b, now), &lev);
    broker_airspace_events(b, &lev);
    as_events_release(&lev);
    /* Levels above clear need samples over time to leave after dwell. */
    for (size_t k = 0; k < b->npairs; k++)
        if (b->pairs[k].live && b->pairs[k].adv.st.level != ADVISORY_CLEAR)
            feed_pair(b, k, b->pairs[k].res.risk, now);
    broker_alerts_check(b);
    check_lifetime(b, now);
}

static void
shut_down(struct broker *b, const char *why)
{
    broker_log(b, "%s: shutting down", why);
    b->stopping = true;
    event_base_loopexit(b->base, NULL);
}

/* Whether the repository is gone: its common git directory deleted or
 * replaced (another directory at that path), or its main worktree
 * deleted. A directory moved elsewhere is gone too: clients look for the
 * daemon at the new path. */
static bool
repo_gone(struct broker *b)
{
    struct stat st;
    if (stat(b->paths.common_dir, &st) < 0)
        return errno == ENOENT || errno == ENOTDIR;
    if (b->repo_ino && (st.st_dev != b->repo_dev || st.st_ino != b->repo_ino))
        return true;
    const char *wd = repo_main_workdir(b->repo);
    return wd && stat(wd, &st) < 0 && (errno == ENOENT || errno == ENOTDIR);
}

/* ---- the store's health ---- */

int
broker_store_refusal(struct broker *b, struct as_err *e)
{
    int rc = b->db ? db_health(b->db, e) : 0;
    if (!rc && b->store_rc)
        rc = as_errorf(e, b->store_rc, "%s", b->store_error);
    if (!rc) {
        if (b->store_error[0])
            broker_log(b, "store: writes are taken again");
        b->store_error[0] = '\0';
        return 0;
    }
    if (strcmp(b->store_error, e->msg)) {
        snprintf(b->store_error, sizeof(b->store_error), "%s", e->msg);
        broker_log(b, "store: %s; writes are refused", e->msg);
    }
    return rc == AS_ENOSPC ? 507 : 503;
}

void
broker_store_failed(struct broker *b, int rc, const struct as_err *e)
{
    if (!b->store_rc || rc != AS_ENOENT) {
        b->store_rc = rc;
        snprintf(b->store_error, sizeof(b->store_error), "%s", e->msg);
    }
    broker_log(b, "store: %s; the requests of this turn were refused", e->msg);
    if (rc == AS_ENOENT || b->restart || db_unreachable(b->db))
        return; /* nothing to start again from */
    /* after the refusals are sent */
    b->restart = true;
    struct timeval soon = { 0, 100000 };
    broker_log(b, "store: starting again from the store");
    event_base_loopexit(b->base, &soon);
}

json_t *
broker_store_json(struct broker *b)
{
    struct as_err e;
    int code = broker_store_refusal(b, &e);
    json_t *o = !code ? json_pack("{s:s}", "state", "ok")
                      : json_pack("{s:s, s:s}", "state",
                            code == 507 ? "full" : "failed", "error", e.msg);
    team_status_json(b, o);
    return o;
}

/* At every tick: a store that refused writes is tried again (a disk with
 * room again, a failure gone), unless its file is gone. */
static void
check_store(struct broker *b)
{
    struct as_err e;
    if (!broker_store_refusal(b, &e) || b->restart)
        return;
    if (db_probe(b->db, &e) == 0) {
        b->store_rc = 0;
        broker_store_refusal(b, &e);
        team_reconnected(b);
    }
}

/* The daemon's own lifetime, at every tick: it leaves when its repository
 * is gone, or after idle_exit_ms with no registered agent active, no event
 * stream open and no request (the next command starts it again). */
static void
check_lifetime(struct broker *b, int64_t now)
{
    if (repo_gone(b)) {
        shut_down(b, "repository gone");
        return;
    }
    bool busy = b->sse != NULL;
    for (size_t i = 0; i < b->nagents && !busy; i++)
        busy = broker_who(b, i)->registered &&
               broker_who(b, i)->status == AS_AGENT_ACTIVE;
    if (busy)
        b->busy_at = now;
    if (b->o.idle_exit_ms > 0 && now - b->busy_at >= b->o.idle_exit_ms) {
        char why[96];
        snprintf(why, sizeof(why),
            "idle for %lld ms (no active agent, no client)",
            (long long)(now - b->busy_at));
        shut_down(b, why);
    }
}

static void
on_rescan(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct broker *b = arg;
    struct as_err e;
    if (broker_rescan(b, &e))
        broker_log(b, "rescan: %s", e.msg);
}

static void
on_flush(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct broker *b = arg;
    struct as_err e;
    if (db_ledger_flush(b->db, &e))
        broker_log(b, "ledger: %s", e.msg);
    team_tick(b);
}

/* Ledger retention: the last 200 000 events of the last 30 days. */
static void
on_prune(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct broker *b = arg;
    struct as_err e;
    if (db_ledger_prune(
            b->db, 200000, broker_now() - 30LL * 24 * 3600 * 1000, &e))
        broker_log(b, "ledger: %s", e.msg);
}

static void
on_signal(evutil_socket_t sig, short what, void *arg)
{
    (void)what;
    struct broker *b = arg;
    broker_log(b, "signal %d: shutting down", (int)sig);
    b->stopping = true;
    event_base_loopexit(b->base, NULL);
}

/* ---- the import graph, built beside the loop ---- */

/* What the index thread owns until it wakes the loop (its graph and base
 * then pass to the daemon); done and total are read by the loop at any
 * time, and stop set by it. */
struct bindex {
    pthread_t thread;
    char *repo_path, *integration;
    unsigned threads;
    struct graph graph;
    struct gitview_base base;
    struct repograph_stats st;
    struct as_err err;
    int rc;
    bool adopted; /* graph and base are the daemon's now */
    _Atomic size_t done, total;
    atomic_bool stop;
    int wake[2]; /* the thread writes one byte to wake[1] when it ends */
};

static int
index_progress(void *ctx, size_t done, size_t total)
{
    struct bindex *x = ctx;
    atomic_store_explicit(&x->total, total, memory_order_relaxed);
    atomic_store_explicit(&x->done, done, memory_order_relaxed);
    return atomic_load(&x->stop);
}

/* The index thread: its own repository handle (handles are not shared
 * between threads), the graph of the integration branch, the cache. */
static void *
index_main(void *arg)
{
    struct bindex *x = arg;
    struct repo *repo;
    x->rc = repo_open(x->repo_path, &repo, &x->err);
    if (!x->rc) {
        x->rc = gitview_graph_base(repo, x->integration, x->threads, NULL,
            &x->graph, &x->base, index_progress, x, &x->st, &x->err);
        repo_free(repo);
    }
    char c = 'i';
    if (write(x->wake[1], &c, 1) != 1) {
        /* the loop joins the thread at exit all the same */
    }
    return NULL;
}

/* Free x, its thread joined. */
static void
index_free(struct bindex *x)
{
    if (!x->rc && !x->adopted) {
        graph_release(&x->graph);
        gitview_base_release(&x->base);
    }
    for (int k = 0; k < 2; k++)
        if (x->wake[k] >= 0)
            close(x->wake[k]);
    free(x->repo_path);
    free(x->integration);
    free(x);
}

/* The index thread is done: its graph becomes the daemon's, and a rescan
 * makes every agent's view of it and scores every pair again. */
static void
on_indexed(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct broker *b = arg;
    struct bindex *x = b->index;
    pthread_join(x->thread, NULL);
    b->index = NULL;
    b->index_ms = broker_now() - b->index_started;
    b->index_stats = x->st;
    if (x->rc) {
        b->index_state = BINDEX_FAILED;
        b->index_error = xstrdup(x->err.msg);
        broker_log(
            b, "graph: %s (dependency and symbol channels off)", x->err.msg);
        index_free(x);
        return;
    }
    b->graph = x->graph;
    b->view_base = x->base;
    b->have_graph = x->adopted = true;
    b->index_state = BINDEX_READY;
    index_free(x);
    broker_log(b,
        "graph: %zu files, %zu edges (%zu parsed, %zu cached) in %lld ms",
        b->index_stats.files, b->index_stats.edges, b->index_stats.parsed,
        b->index_stats.cached, (long long)b->index_ms);
    struct as_err e;
    if (broker_rescan(b, &e))
        broker_log(b, "rescan: %s", e.msg);
}

/* Build the graph on a thread of its own; the daemon serves meanwhile,
 * without the dependency and symbol channels until it is done. */
static void
index_start(struct broker *b)
{
    b->index_started = broker_now();
    struct bindex *x = xcalloc(1, sizeof(*x));
    x->repo_path = xstrdup(b->o.repo_path);
    x->integration = xstrdup(b->integration);
    x->threads = b->o.threads;
    if (pipe(x->wake) < 0) {
        x->wake[0] = x->wake[1] = -1;
        as_errorf(&x->err, AS_EIO, "pipe: %s", strerror(errno));
        goto fail;
    }
    for (int k = 0; k < 2; k++) {
        fcntl(x->wake[k], F_SETFD, FD_CLOEXEC);
        fcntl(x->wake[k], F_SETFL, O_NONBLOCK);
    }
    b->index_ev = event_new(b->base, x->wake[0], EV_READ, on_indexed, b);
    event_add(b->index_ev, NULL);
    b->index = x;
    int err = pthread_create(&x->thread, NULL, index_main, x);
    if (!err)
        return;
    b->index = NULL;
    event_del(b->index_ev);
    as_errorf(
        &x->err, AS_EIO, "cannot start the index thread: %s", strerror(err));
fail:
    b->index_state = BINDEX_FAILED;
    b->index_error = xstrdup(x->err.msg);
    broker_log(b, "graph: %s (dependency and symbol channels off)", x->err.msg);
    x->rc = AS_EIO;
    index_free(x);
}

/* At exit: a build under way is stopped (what it parsed stays cached). */
static void
index_stop(struct broker *b)
{
    if (!b->index)
        return;
    atomic_store(&b->index->stop, true);
    pthread_join(b->index->thread, NULL);
    index_free(b->index);
    b->index = NULL;
}

json_t *
broker_index_json(const struct broker *b)
{
    const struct repograph_stats *st = &b->index_stats;
    switch (b->index_state) {
    case BINDEX_READY:
        return json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "state", "ready",
            "files", (json_int_t)st->files, "edges", (json_int_t)st->edges,
            "parsed", (json_int_t)st->parsed, "cached", (json_int_t)st->cached,
            "ms", (json_int_t)b->index_ms);
    case BINDEX_FAILED:
        return json_pack("{s:s, s:s, s:I}", "state", "failed", "error",
            b->index_error ? b->index_error : "", "ms",
            (json_int_t)b->index_ms);
    case BINDEX_BUILDING:
        break;
    }
    size_t done = 0, total = 0;
    if (b->index) {
        done = atomic_load_explicit(&b->index->done, memory_order_relaxed);
        total = atomic_load_explicit(&b->index->total, memory_order_relaxed);
    }
    return json_pack("{s:s, s:I, s:I, s:I}", "state", "indexing", "done",
        (json_int_t)done, "total", (json_int_t)total, "startedAt",
        (json_int_t)b->index_started);
}

/* ---- start-up ---- */

/* Ownership from .airspace/owners (CODEOWNERS format) in the main
 * worktree, when there is one. */
static void
load_owners(struct broker *b)
{
    const char *root = repo_main_workdir(b->repo);
    if (!root)
        return;
    char *path = xasprintf("%s/.airspace/owners", root);
    char *text;
    size_t len;
    if (file_read_max(path, OWNERS_TEXT_MAX, false, &text, &len) == 0) {
        struct owners *ow;
        struct as_err e;
        if (owners_parse(text, len, &ow, &e) == 0) {
            struct conflict_msgs cm;
            conflict_msgs_init(&cm);
            conflicts_set_owners(b->conflicts, ow, broker_now(), &cm);
            conflict_msgs_release(&cm);
            broker_log(b, "owners: %zu rules from %s", owners_count(ow), path);
        } else {
            broker_log(b, "%s: %s (ownership off)", path, e.msg);
        }
        free(text);
    }
    free(path);
}

static int
take_lock(struct broker *b, struct as_err *e)
{
    b->lock_fd = open(b->paths.lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (b->lock_fd < 0)
        return as_errorf(
            e, AS_EIO, "cannot open '%s': %s", b->paths.lock, strerror(errno));
    if (flock(b->lock_fd, LOCK_EX | LOCK_NB) < 0) {
        char pid[32] = "";
        ssize_t n = read(b->lock_fd, pid, sizeof(pid) - 1);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        close(b->lock_fd);
        b->lock_fd = -1;
        return as_errorf(e, AS_ECONFLICT,
            "another daemon (pid %s) serves this airspace", *pid ? pid : "?");
    }
    if (ftruncate(b->lock_fd, 0) == 0) {
        char pid[32];
        int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
        if (write(b->lock_fd, pid, (size_t)n) != n)
            broker_log(b, "cannot write the pid to '%s'", b->paths.lock);
    }
    return 0;
}

static int
listen_unix(struct broker *b, struct as_err *e)
{
    struct sockaddr_un sun;
    memset(&sun, 0, sizeof(sun));
    sun.sun_family = AF_UNIX;
    snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", b->paths.socket);
    unlink(b->paths.socket); /* a stale socket of a dead daemon: we hold the
                                lock, so nobody else serves it */
    mode_t old = umask(0177);
    struct evconnlistener *l = evconnlistener_new_bind(b->base, NULL, NULL,
        LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, -1,
        (struct sockaddr *)&sun, sizeof(sun));
    umask(old);
    if (!l)
        return as_errorf(e, AS_EIO, "cannot listen on '%s': %s",
            b->paths.socket, strerror(errno));
    chmod(b->paths.socket, 0600);
    struct stat st;
    const char *slash = strrchr(b->paths.socket, '/');
    char *dir =
        slash ? xstrndup(b->paths.socket, (size_t)(slash - b->paths.socket))
              : xstrdup(".");
    b->sock_dirfd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (stat(b->paths.socket, &st) == 0)
        b->sock_ino = st.st_ino;
    b->http_unix = evhttp_new(b->base);
    evhttp_bind_listener(b->http_unix, l);
    b->listeners[0] = l;
    return 0;
}

static int
listen_tcp(struct broker *b, struct as_err *e)
{
    b->http_tcp = evhttp_new(b->base);
    b->tcp_socket = evhttp_bind_socket_with_handle(
        b->http_tcp, "127.0.0.1", (ev_uint16_t)b->o.tcp_port);
    if (!b->tcp_socket)
        return as_errorf(e, AS_EIO, "cannot listen on 127.0.0.1:%d: %s",
            b->o.tcp_port, strerror(errno));
    /* A fresh random token per start, readable by this user only. */
    unsigned char raw[24];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, raw, sizeof(raw)) != (ssize_t)sizeof(raw)) {
        if (fd >= 0)
            close(fd);
        return as_errorf(e, AS_EIO, "cannot read /dev/urandom");
    }
    close(fd);
    b->token = xmalloc(2 * sizeof(raw) + 1);
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(b->token + 2 * i, 3, "%02x", raw[i]);
    char *tp = xasprintf("%s/token", b->paths.dir);
    fd = open(tp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 ||
        write(fd, b->token, strlen(b->token)) != (ssize_t)strlen(b->token)) {
        if (fd >= 0)
            close(fd);
        int rc = as_errorf(e, AS_EIO, "cannot write '%s'", tp);
        free(tp);
        return rc;
    }
    close(fd);
    free(tp);
    return 0;
}

/* How long the listeners rest after accept() failed, as it does at the
 * descriptor limit: a listener left on would be called again at once. */
#define BROKER_ACCEPT_PAUSE_MS 100

/* The daemon whose listeners these are (their callbacks' argument is
 * libevent's evhttp). */
static struct broker *accepting;

static void
on_accept_resume(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct broker *b = arg;
    for (size_t i = 0; i < 2; i++)
        if (b->listeners[i])
            evconnlistener_enable(b->listeners[i]);
}

static void
on_accept_error(struct evconnlistener *l, void *arg)
{
    (void)l;
    (void)arg;
    struct broker *b = accepting;
    int err = EVUTIL_SOCKET_ERROR();
    for (size_t i = 0; i < 2; i++)
        if (b->listeners[i])
            evconnlistener_disable(b->listeners[i]);
    if (!b->accept_ev)
        b->accept_ev = evtimer_new(b->base, on_accept_resume, b);
    struct timeval tv = { 0, BROKER_ACCEPT_PAUSE_MS * 1000 };
    evtimer_add(b->accept_ev, &tv);
    int64_t now = broker_now();
    if (now - b->accept_logged_at >= 10000) {
        b->accept_logged_at = now;
        broker_log(
            b, "cannot accept a connection: %s (new ones wait)", strerror(err));
    }
}

static void
setup_http(struct broker *b, struct evhttp *h)
{
    struct evconnlistener *l = NULL;
    if (h == b->http_unix)
        l = b->listeners[0];
    else if (b->tcp_socket)
        l = b->listeners[1] = evhttp_bound_socket_get_listener(b->tcp_socket);
    if (l) {
        accepting = b;
        evconnlistener_set_error_cb(l, on_accept_error);
    }
    evhttp_set_max_body_size(h, 1 << 20);
    evhttp_set_max_headers_size(h, 64 << 10);
    /* every method reaches broker_api_handle, which refuses in JSON those
     * it does not serve */
    evhttp_set_allowed_methods(h, 0xffff);
    evhttp_set_bevcb(h, broker_api_bev_new, NULL);
    evhttp_set_gencb(h, broker_api_handle, b);
    broker_conns_init(b);
}

int
broker_listen_tcp(struct broker *b, int port, struct as_err *e)
{
    if (b->http_tcp)
        return 0;
    b->o.tcp_port = port;
    int rc = listen_tcp(b, e);
    if (rc) {
        evhttp_free(b->http_tcp);
        b->http_tcp = NULL;
        b->tcp_socket = NULL;
        b->o.tcp_port = 0;
        free(b->token);
        b->token = NULL;
        return rc;
    }
    setup_http(b, b->http_tcp);
    return 0;
}

static void
broker_free(struct broker *b)
{
    index_stop(b);
    broker_api_release(b);
    broker_drop_engine(b);
    broker_events_release(b);
    broker_collab_release(b);
    broker_alerts_release(b);
    broker_conns_release();
    broker_fence_release(b);
    if (b->http_unix)
        evhttp_free(b->http_unix);
    if (b->http_tcp)
        evhttp_free(b->http_tcp);
    if (b->accept_ev)
        event_free(b->accept_ev);
    if (accepting == b)
        accepting = NULL;
    if (b->tick_ev)
        event_free(b->tick_ev);
    if (b->rescan_ev)
        event_free(b->rescan_ev);
    if (b->debounce_ev)
        event_free(b->debounce_ev);
    if (b->inotify_ev)
        event_free(b->inotify_ev);
    if (b->sigterm_ev)
        event_free(b->sigterm_ev);
    if (b->sigint_ev)
        event_free(b->sigint_ev);
    if (b->flush_ev)
        event_free(b->flush_ev);
    if (b->prune_ev)
        event_free(b->prune_ev);
    if (b->index_ev)
        event_free(b->index_ev);
    free(b->index_error);
    if (b->inotify_fd >= 0)
        close(b->inotify_fd);
    for (size_t k = 0; k < b->npairs; k++) {
        clear_merge(&b->pairs[k]);
        free(b->pairs[k].a);
        free(b->pairs[k].b);
    }
    free(b->pairs);
    strmap_release(&b->pair_idx);
    for (size_t k = 0; k < b->nwatches; k++)
        free(b->watches[k].dir);
    free(b->watches);
    for (size_t i = 0; i < b->nagents; i++) {
        agent_release(&b->ag[i]);
        agent_release(&b->meta[i].reports);
    }
    free(b->ag);
    free(b->meta);
    if (b->mcache)
        merge_cache_free(b->mcache);
    align_cache_free(b->acache);
    if (b->locks)
        lock_table_free(b->locks);
    if (b->conflicts)
        conflicts_free(b->conflicts);
    if (b->activity)
        activity_free(b->activity);
    team_close(b);
    db_close(b->db);
    if (b->have_graph)
        graph_release(&b->graph);
    gitview_base_release(&b->view_base);
    free(b->integration);
    if (b->repo)
        repo_free(b->repo);
    if (b->base)
        event_base_free(b->base);
    if (b->sock_dirfd >= 0) {
        const char *slash = strrchr(b->paths.socket, '/');
        const char *name = slash ? slash + 1 : b->paths.socket;
        struct stat st;
        if (fstatat(b->sock_dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            st.st_ino == b->sock_ino)
            unlinkat(b->sock_dirfd, name, 0);
        close(b->sock_dirfd);
    }
    if (b->lock_fd >= 0)
        close(b->lock_fd);
    free(b->token);
    if (b->log)
        fclose(b->log);
    broker_paths_release(&b->paths);
}

void
broker_not_serving(const struct broker_options *o, const char *why)
{
    struct broker_paths p;
    struct as_err pe;
    if (!o->log_stderr && o->repo_path &&
        broker_paths_resolve(o->repo_path, false, &p, &pe) == 0) {
        int fd = open(p.log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
        if (f) {
            log_to(f, "not serving: %s", why);
            fclose(f);
        } else if (fd >= 0) {
            close(fd);
        }
        broker_paths_release(&p);
    }
    if (o->ready_fd < 0)
        return;
    char msg[sizeof(pe.msg) + 1];
    int n = snprintf(msg, sizeof(msg), "E%s", why);
    size_t len = n < 0                     ? 1
                 : (size_t)n < sizeof(msg) ? (size_t)n
                                           : sizeof(msg) - 1;
    if (write(o->ready_fd, msg, len) < 0) {
        /* the starter is gone: nobody to tell */
    }
    close(o->ready_fd);
}

/* What a start from the store after a failed commit keeps (serve_once). */
struct store_carry {
    bool restart;
    int store_rc;
    char store_error[sizeof(((struct as_err *)0)->msg)];
    uint64_t next_token, next_event;
};

static int
serve_once(
    const struct broker_options *o, struct store_carry *carry, struct as_err *e)
{
    struct broker bb;
    struct broker *b = &bb;
    memset(b, 0, sizeof(*b));
    b->o = *o;
    b->lock_fd = -1;
    b->sock_dirfd = -1;
    b->inotify_fd = -1;
    b->next_event_id = b->ring_first = 1;
    strmap_init(&b->pair_idx);
    broker_airspace(b);
    risk_config_default(&b->cfg);
    int rc = 0;
    for (size_t k = 0; k < o->nset; k++) {
        const char *eq = strchr(o->set[k], '=');
        char *key = eq ? xstrndup(o->set[k], (size_t)(eq - o->set[k])) : NULL;
        rc = key ? risk_config_set(&b->cfg, key, eq + 1, e)
                 : as_errorf(e, AS_EINVAL, "--set takes KEY=VALUE, not '%s'",
                       o->set[k]);
        free(key);
        if (rc)
            goto out;
    }
    if ((rc = risk_config_check(&b->cfg, e)))
        goto out;
    rc = broker_paths_resolve(o->repo_path, true, &b->paths, e);
    if (rc)
        goto out;
    if (!o->log_stderr) {
        int fd =
            open(b->paths.log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        b->log = fd >= 0 ? fdopen(fd, "a") : NULL;
    }
    if ((rc = take_lock(b, e)))
        goto out;
    b->started_at = b->busy_at = broker_now();
    broker_log(
        b, "starting: pid %ld, airspace %s", (long)getpid(), b->paths.dir);
    if ((rc = repo_open(o->repo_path, &b->repo, e)))
        goto out;
    struct stat rst;
    if (stat(b->paths.common_dir, &rst) == 0) {
        b->repo_dev = rst.st_dev;
        b->repo_ino = rst.st_ino;
    }
    if ((rc = repo_integration_branch(b->repo, &b->integration, e)))
        goto out;
    b->mcache = merge_cache_new();
    b->acache = align_cache_new();
    struct lock_config lc;
    lock_config_default(&lc);
    lc.root = repo_main_workdir(b->repo);
    b->locks = lock_table_new(&lc);
    struct conflicts_config cc;
    conflicts_config_init(&cc);
    cc.window_ms = o->window_ms > 0 ? o->window_ms : cc.window_ms;
    b->conflicts = conflicts_new(&cc);
    broker_alerts_init(b);
    b->activity = activity_new();
    load_owners(b);
    if ((rc = team_open(b, e)))
        goto out;
    b->base = event_base_new();
    if (!b->base) {
        rc = as_errorf(e, AS_EIO, "cannot create the event loop");
        goto out;
    }
    if ((rc = listen_unix(b, e)))
        goto out;
    setup_http(b, b->http_unix);
    if (o->tcp_port > 0) {
        if ((rc = listen_tcp(b, e)))
            goto out;
        setup_http(b, b->http_tcp);
    }
    b->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (b->inotify_fd >= 0) {
        b->inotify_ev = event_new(
            b->base, b->inotify_fd, EV_READ | EV_PERSIST, on_inotify, b);
        event_add(b->inotify_ev, NULL);
    } else {
        broker_log(
            b, "inotify: %s; relying on the periodic rescan", strerror(errno));
    }
    b->debounce_ev = evtimer_new(b->base, on_debounce, b);
    b->tick_ev = event_new(b->base, -1, EV_PERSIST, on_tick, b);
    struct timeval tick = { o->tick_ms / 1000, (o->tick_ms % 1000) * 1000 };
    event_add(b->tick_ev, &tick);
    b->rescan_ev = event_new(b->base, -1, EV_PERSIST, on_rescan, b);
    struct timeval rescan = { o->rescan_ms / 1000,
        (o->rescan_ms % 1000) * 1000 };
    event_add(b->rescan_ev, &rescan);
    b->sigterm_ev = evsignal_new(b->base, SIGTERM, on_signal, b);
    b->sigint_ev = evsignal_new(b->base, SIGINT, on_signal, b);
    event_add(b->sigterm_ev, NULL);
    event_add(b->sigint_ev, NULL);
    signal(SIGPIPE, SIG_IGN);

    b->flush_ev = event_new(b->base, -1, EV_PERSIST, on_flush, b);
    struct timeval flush = { 0, 250000 };
    event_add(b->flush_ev, &flush);
    b->prune_ev = event_new(b->base, -1, EV_PERSIST, on_prune, b);
    struct timeval prune = { 60, 0 };
    event_add(b->prune_ev, &prune);
    index_start(b); /* listening already: requests wait for no graph */
    if ((rc = broker_restore(b, e)))
        goto out;
    if (carry->restart) {
        /* ids handed out before are never handed out again, and writes
         * stay refused until the store takes one (check_store) */
        if (carry->next_token > lock_table_next_token(b->locks))
            lock_table_set_next_token(b->locks, carry->next_token);
        if (carry->next_event > b->next_event_id)
            b->next_event_id = b->ring_first = carry->next_event;
        b->store_rc = carry->store_rc;
        snprintf(
            b->store_error, sizeof(b->store_error), "%s", carry->store_error);
        broker_log(
            b, "store: started again from the store: %s", carry->store_error);
    }
    {
        /* DESIGN §5: orphaned worktrees are cleaned at start; their agents'
         * exits (rows, reports, locks) land together or not at all */
        struct as_err pe;
        bool tx = db_begin(b->db, &pe) == 0;
        prune_orphans(b);
        if (tx && db_commit(b->db, &pe))
            broker_log(b, "store: %s", pe.msg);
    }
    struct as_err se;
    if (broker_rescan(b, &se))
        broker_log(b, "rescan: %s", se.msg);
    broker_log(b, "serving on %s%s", b->paths.socket,
        o->tcp_port > 0 ? " and 127.0.0.1" : "");
    if (o->ready_fd >= 0) {
        if (write(o->ready_fd, "R", 1) != 1)
            broker_log(b, "cannot signal readiness");
        close(o->ready_fd);
    }
    event_base_dispatch(b->base);
    carry->restart = b->restart && !b->stopping;
    if (carry->restart) {
        carry->store_rc = b->store_rc;
        snprintf(carry->store_error, sizeof(carry->store_error), "%.*s",
            (int)sizeof(carry->store_error) - 1, b->store_error);
        carry->next_token = lock_table_next_token(b->locks);
        carry->next_event = b->next_event_id;
    }
    broker_log(b, carry->restart ? "stopped, to start again" : "stopped");
    broker_free(b);
    return rc;
out:
    /* not serving: the log and the one who started it are told why */
    if (b->log) { /* the log may be open already: close it first */
        fclose(b->log);
        b->log = NULL;
    }
    broker_not_serving(o, e->msg);
    broker_free(b);
    return rc;
}

/* Serve; after a failed commit, again from the store (broker_store_failed). */
int
broker_run(const struct broker_options *o, struct as_err *e)
{
    struct store_carry carry;
    memset(&carry, 0, sizeof(carry));
    struct broker_options again = *o;
    int rc;
    while (!(rc = serve_once(&again, &carry, e)) && carry.restart)
        again.ready_fd = -1; /* told once */
    return rc;
}

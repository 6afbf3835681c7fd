/*
 * index.c - the import graph, built on a thread of its own while the
 * daemon serves, then taken over by the loop (docs/architecture.md, "The
 * graph at start").
 */
#include "broker/agents.h"
#include "broker/index.h"
#include "broker/score.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/xalloc.h"
#include "util/banned.h"

/* ---- the import graph, built beside the loop ---- */

/* What the index thread owns until it wakes the loop (its graph and base
 * then pass to the daemon); done and total are read by the loop at any
 * time, and stop set by it. */
struct bindex {
    pthread_t thread;
    char *repo_path, *integration;
    char tip[GIT_OID_HEXSZ + 1]; /* the branch's commit at start ("": none) */
    double fwd_ms;               /* the forward table's build */
    bool fwd_on;                 /* weight.forward > 0: read the table */
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

static double
mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

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
        /* the commit the branch was at (a move meanwhile is seen after) */
        const char *rev = x->tip[0] ? x->tip : x->integration;
        x->rc = gitview_graph_base(repo, rev, x->threads, NULL, &x->graph,
            &x->base, index_progress, x, &x->st, &x->err);
        if (!x->rc && x->fwd_on) {
            struct as_err fe;
            double t0 = mono_ms();
            gitview_forward(repo, rev, &x->base.fhist, &x->base.forward, &fe);
            x->fwd_ms = mono_ms() - t0;
        }
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

/* The forward channel is weighted: its table is worth reading. */
static bool
forward_on(const struct broker *b)
{
    return b->cfg.weight[RISK_FORWARD] > 0;
}

static void
forward_log(
    struct broker *b, const char *tip, const struct forward_table *t, double ms)
{
    b->fwd_ms = ms;
    if (!forward_on(b))
        broker_log(b, "forward: off (weight.forward 0), no table read");
    else if (t)
        broker_log(b, "forward: %u merges, %zu paths at %.12s in %.1f ms",
            t->merges, t->n, tip, ms);
    else
        broker_log(b, "forward: no table at %.12s (channel 0)", tip);
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
    double x_fwd_ms = x->fwd_ms;
    index_free(x);
    broker_log(b,
        "graph: %zu files, %zu edges (%zu parsed, %zu cached) in %lld ms",
        b->index_stats.files, b->index_stats.edges, b->index_stats.parsed,
        b->index_stats.cached, (long long)b->index_ms);
    forward_log(b, b->fwd_tip, b->view_base.forward, x_fwd_ms);
    struct as_err e;
    if (broker_rescan(b, &e))
        broker_log(b, "rescan: %s", e.msg);
}

/* ---- the base (graph and forward table), following the branch ---- */

/* How often the loop looks at the integration branch (one ref read). */
#define FORWARD_POLL_MS 1000

/* A rebuild of the base beside the loop, for the branch's new commit: the
 * import graph (the parse cache keeps unchanged files cheap) and the
 * forward table; the loop swaps them in when the thread wakes it. */
struct bfwd {
    pthread_t thread;
    char *repo_path;
    char tip[GIT_OID_HEXSZ + 1];
    unsigned threads;
    bool fwd_on;               /* weight.forward > 0: read the table */
    struct graph graph;        /* grc 0: built, the loop's once taken */
    struct gitview_base gbase; /* its base (no forward table) */
    struct repograph_stats st;
    struct as_err gerr;
    int grc;
    double gms;
    bool graph_taken;
    atomic_bool stop; /* set at exit: the graph's build ends early */
    struct forward_hist *fhist;
    const struct forward_table *forward;
    struct as_err err;
    int rc;
    double ms;
    int wake[2];
};

static int
fwd_progress(void *ctx, size_t done, size_t total)
{
    (void)done;
    (void)total;
    struct bfwd *x = ctx;
    return atomic_load(&x->stop);
}

/* The integration branch's commit into hex ("" when it cannot be read). */
static void
branch_tip(struct broker *b, char hex[GIT_OID_HEXSZ + 1])
{
    git_oid oid;
    struct as_err e;
    hex[0] = '\0';
    if (!repo_resolve_commit(b->repo, b->integration, &oid, &e))
        git_oid_tostr(hex, GIT_OID_HEXSZ + 1, &oid);
}

static void *
fwd_main(void *arg)
{
    struct bfwd *x = arg;
    struct repo *repo;
    x->rc = repo_open(x->repo_path, &repo, &x->err);
    if (x->rc) {
        x->grc = x->rc;
        x->gerr = x->err;
    } else {
        double t0 = mono_ms();
        x->grc = gitview_graph_base(repo, x->tip, x->threads, NULL, &x->graph,
            &x->gbase, fwd_progress, x, &x->st, &x->gerr);
        x->gms = mono_ms() - t0;
        if (atomic_load(&x->stop)) {
            x->rc = AS_EIO;
            as_errorf(&x->err, AS_EIO, "stopped at exit");
        } else if (x->fwd_on) {
            t0 = mono_ms();
            x->rc =
                gitview_forward(repo, x->tip, &x->fhist, &x->forward, &x->err);
            x->ms = mono_ms() - t0;
        }
        repo_free(repo);
    }
    char c = 'f';
    if (write(x->wake[1], &c, 1) != 1) {
        /* joined at exit all the same */
    }
    return NULL;
}

static void
fwd_free(struct bfwd *x)
{
    forward_hist_free(x->fhist);
    if (!x->grc && !x->graph_taken) {
        graph_release(&x->graph);
        gitview_base_release(&x->gbase);
    }
    for (int k = 0; k < 2; k++)
        if (x->wake[k] >= 0)
            close(x->wake[k]);
    free(x->repo_path);
    free(x);
}

/* The new graph and its base replace the daemon's in one step of the loop;
 * nothing points into the old graph once the engine, which borrows it, is
 * dropped (the rescan after remakes every agent's view and scores every
 * pair). The forward table stays the base's until it is swapped too. */
static void
graph_swap(struct broker *b, struct bfwd *x)
{
    broker_drop_engine(b);
    struct gitview_base old = b->view_base;
    b->view_base = x->gbase;
    b->view_base.fhist = old.fhist;
    b->view_base.forward = old.forward;
    old.fhist = NULL;
    old.forward = NULL;
    gitview_base_release(&old);
    if (b->have_graph)
        graph_release(&b->graph);
    b->graph = x->graph;
    x->graph_taken = true;
    b->have_graph = true;
    b->index_state = BINDEX_READY;
    free(b->index_error);
    b->index_error = NULL;
    b->index_ms = (int64_t)(x->gms + 0.5);
    b->index_stats = x->st;
    broker_log(b,
        "graph: rebuilt at %.12s: %zu files, %zu edges (%zu parsed, %zu "
        "cached) in %.1f ms",
        x->tip, x->st.files, x->st.edges, x->st.parsed, x->st.cached, x->gms);
}

/* The rebuild is done: its graph and table replace the base's in one step
 * of the loop (no scoring sees half of it), and every pair is scored
 * again. A part that failed keeps the previous one. */
static void
on_forwarded(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct broker *b = arg;
    struct bfwd *x = b->fwd;
    pthread_join(x->thread, NULL);
    b->fwd = NULL;
    event_free(b->fwd_ev);
    b->fwd_ev = NULL;
    /* tried for this commit either way: a failure is not retried until
     * the branch moves again */
    memcpy(b->fwd_tip, x->tip, sizeof(b->fwd_tip));
    bool graph_ok = !x->grc;
    if (graph_ok)
        graph_swap(b, x);
    else
        broker_log(b, "graph: %s (the previous graph kept)", x->gerr.msg);
    bool fwd_ok = !x->rc && x->fwd_on;
    if (!x->fwd_on) {
        /* off: no table, said once at start */
    } else if (fwd_ok) {
        forward_hist_free(b->view_base.fhist);
        b->view_base.fhist = x->fhist;
        b->view_base.forward = x->forward;
        x->fhist = NULL;
        forward_log(b, b->fwd_tip, b->view_base.forward, x->ms);
    } else {
        broker_log(b, "forward: %s (the previous table kept)", x->err.msg);
    }
    fwd_free(x);
    if (graph_ok) /* every agent's view of the new graph, then scores */
        broker_graph_changed(b);
    else if (fwd_ok)
        broker_rescore(b, SIZE_MAX);
}

/* Start a rebuild for tip; a failure to start is logged and retried at
 * the next look. */
static void
fwd_start(struct broker *b, const char *tip)
{
    struct bfwd *x = xcalloc(1, sizeof(*x));
    x->repo_path = xstrdup(b->o.repo_path);
    memcpy(x->tip, tip, sizeof(x->tip));
    x->threads = b->o.threads;
    x->fwd_on = forward_on(b);
    x->grc = AS_EIO; /* nothing built yet */
    if (pipe(x->wake) < 0) {
        x->wake[0] = x->wake[1] = -1;
        broker_log(b, "forward: pipe: %s", strerror(errno));
        fwd_free(x);
        return;
    }
    for (int k = 0; k < 2; k++) {
        fcntl(x->wake[k], F_SETFD, FD_CLOEXEC);
        fcntl(x->wake[k], F_SETFL, O_NONBLOCK);
    }
    b->fwd_ev = event_new(b->base, x->wake[0], EV_READ, on_forwarded, b);
    event_add(b->fwd_ev, NULL);
    b->fwd = x;
    int err = pthread_create(&x->thread, NULL, fwd_main, x);
    if (!err)
        return;
    b->fwd = NULL;
    event_free(b->fwd_ev);
    b->fwd_ev = NULL;
    broker_log(b, "forward: cannot start a thread: %s", strerror(err));
    fwd_free(x);
}

/* The loop's look at the integration branch: moved since the table was
 * read (and no build under way) starts a rebuild; not moved, nothing. */
static void
on_fwd_poll(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct broker *b = arg;
    if (b->index || b->fwd)
        return;
    char tip[GIT_OID_HEXSZ + 1];
    branch_tip(b, tip);
    if (!tip[0] || !strcmp(tip, b->fwd_tip))
        return;
    broker_log(b,
        "base: %s moved to %.12s, rebuilding the graph and reading the past "
        "again",
        b->integration, tip);
    fwd_start(b, tip);
}

static void
forward_watch_start(struct broker *b)
{
    if (b->fwd_poll_ev)
        return;
    b->fwd_poll_ev = event_new(b->base, -1, EV_PERSIST, on_fwd_poll, b);
    struct timeval tv = { FORWARD_POLL_MS / 1000,
        (FORWARD_POLL_MS % 1000) * 1000 };
    event_add(b->fwd_poll_ev, &tv);
}

/* Build the graph on a thread of its own; the daemon serves meanwhile,
 * without the dependency and symbol channels until it is done. */
void
broker_index_start(struct broker *b)
{
    b->index_started = broker_now();
    struct bindex *x = xcalloc(1, sizeof(*x));
    x->repo_path = xstrdup(b->o.repo_path);
    x->integration = xstrdup(b->integration);
    x->threads = b->o.threads;
    x->fwd_on = forward_on(b);
    branch_tip(b, b->fwd_tip);
    memcpy(x->tip, b->fwd_tip, sizeof(x->tip));
    forward_watch_start(b);
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
void
broker_index_stop(struct broker *b)
{
    if (b->fwd_poll_ev) {
        event_free(b->fwd_poll_ev);
        b->fwd_poll_ev = NULL;
    }
    if (b->fwd) { /* a rebuild under way ends (its graph stops early) */
        atomic_store(&b->fwd->stop, true);
        pthread_join(b->fwd->thread, NULL);
        fwd_free(b->fwd);
        b->fwd = NULL;
    }
    if (b->fwd_ev) {
        event_free(b->fwd_ev);
        b->fwd_ev = NULL;
    }
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

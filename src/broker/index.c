/*
 * index.c - the import graph, built on a thread of its own while the
 * daemon serves, then taken over by the loop (docs/architecture.md, "The
 * graph at start").
 */
#include "broker/agents.h"
#include "broker/index.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
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
void
broker_index_start(struct broker *b)
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
void
broker_index_stop(struct broker *b)
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

/*
 * broker.c - the daemon's loop: options and log, timers and signals, the
 * store's health, the daemon's lifetime, start-up (lock, store, owners,
 * listeners) and shutdown.
 *
 * No domain rule lives here: agents, locks, intents and messages are the
 * airspace state machine's (src/airspace); the daemon's side of the agent
 * table (working sets, reports, registration's I/O) is agents.c, the
 * machine's events become store writes and published events in collab.c,
 * scoring is score.c, file watching watch.c, the graph's build thread
 * index.c, the store's restore restore.c, the HTTP routes api*.c.
 */
#include "broker/agents.h"
#include "broker/alerting.h"
#include "broker/collab.h"
#include "broker/detect.h"
#include "broker/events.h"
#include "broker/health.h"
#include "broker/index.h"
#include "broker/loop.h"
#include "broker/restore.h"
#include "broker/routes.h"
#include "broker/score.h"
#include "broker/watch.h"

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

#include <event2/listener.h>

#include "broker/conns.h"
#include "broker/fence.h"
#include "broker/team.h"
#include "core/owners.h"
#include "util/file.h"
#include "util/sockpath.h"
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
    o->merge_budget_ms = 50;
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

/* ---- timers and signals ---- */

static void check_lifetime(struct broker *b, int64_t now);

static void
on_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct broker *b = arg;
    int64_t now = broker_now();
    broker_store_check(b);
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
            broker_pair_feed(b, k, now);
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
    if (broker_rescan_periodic(b, &e))
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
        /* the holder writes its pid just after it takes the lock: a
         * daemon started at the same moment waits a little for it */
        char pid[32] = "";
        for (int tries = 0; tries < 50 && !*pid; tries++) {
            if (tries)
                usleep(10000);
            ssize_t n = pread(b->lock_fd, pid, sizeof(pid) - 1, 0);
            pid[n > 0 ? n : 0] = '\0';
            pid[strcspn(pid, "\n")] = '\0';
        }
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
    broker_index_stop(b);
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
    if (b->merges_ev)
        event_free(b->merges_ev);
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
        broker_clear_merge(&b->pairs[k]);
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
        broker_meta_release(&b->meta[i]);
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
broker_not_serving(
    const struct broker_options *o, const char *why, bool lasting)
{
    struct broker_paths p;
    struct as_err pe;
    if ((!o->log_stderr || lasting) && o->repo_path &&
        broker_paths_resolve(o->repo_path, false, &p, &pe) == 0) {
        int fd =
            o->log_stderr
                ? -1
                : open(p.log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
        if (f) {
            log_to(f, "not serving: %s", why);
            fclose(f);
        } else if (fd >= 0) {
            close(fd);
        }
        if (lasting) {
            char *path = xasprintf("%s/%s", p.dir, BROKER_START_ERROR);
            char *line = xasprintf("%s\n", why);
            struct as_err we;
            if (mkdir(p.dir, 0700) == 0 || errno == EEXIST)
                file_write_atomic(path, line, strlen(line), &we);
            free(line);
            free(path);
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
    /* what keeps the daemon from serving lasts until someone fixes it (its
     * settings, a store it cannot open): the hooks are told, every time */
    bool lasting = false;
    for (size_t k = 0; k < o->nset; k++) {
        const char *eq = strchr(o->set[k], '=');
        char *key = eq ? xstrndup(o->set[k], (size_t)(eq - o->set[k])) : NULL;
        rc = key ? risk_config_set(&b->cfg, key, eq + 1, e)
                 : as_errorf(e, AS_EINVAL, "--set takes KEY=VALUE, not '%s'",
                       o->set[k]);
        free(key);
        if (rc) {
            lasting = true;
            goto out;
        }
    }
    if ((rc = risk_config_check(&b->cfg, e))) {
        lasting = true;
        goto out;
    }
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
    if ((rc = team_open(b, e))) {
        lasting = true; /* (a daemon serving with no store would keep
                           nothing it acknowledges) */
        goto out;
    }
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
            b->base, b->inotify_fd, EV_READ | EV_PERSIST, broker_on_inotify, b);
        event_add(b->inotify_ev, NULL);
    } else {
        broker_log(
            b, "inotify: %s; relying on the periodic rescan", strerror(errno));
    }
    b->debounce_ev = evtimer_new(b->base, broker_on_debounce, b);
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
    broker_index_start(b); /* listening already: requests wait for no graph */
    if ((rc = broker_restore(b, e)))
        goto out;
    if (carry->restart) {
        /* ids handed out before are never handed out again, and writes
         * stay refused until the store takes one (broker_store_check) */
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
        broker_prune_orphans(b);
        if (tx && db_commit(b->db, &pe))
            broker_log(b, "store: %s", pe.msg);
    }
    struct as_err se;
    if (broker_rescan(b, &se))
        broker_log(b, "rescan: %s", se.msg);
    broker_log(b, "serving on %s%s", b->paths.socket,
        o->tcp_port > 0 ? " and 127.0.0.1" : "");
    {
        /* a refusal of an earlier start is over */
        char *err = xasprintf("%s/%s", b->paths.dir, BROKER_START_ERROR);
        unlink(err);
        free(err);
    }
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
    broker_not_serving(o, e->msg, lasting);
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

/*
 * conns.c - the daemon's connections: caps per peer and in all, request
 * and idle deadlines (conns.h).
 *
 * libevent 2.1's evhttp has neither a connection cap nor a deadline for a
 * whole request (its timeout is one of inactivity, rearmed by every byte,
 * and applies to event streams too), so each connection is followed here
 * from the bufferevent evhttp asks for (bevcb) through its buffers:
 *
 *   NEW      made; set up at the next turn of the loop, once evhttp has
 *            given it its socket and callbacks (the peer is known then)
 *   IDLE     no request in it: closed after conn_idle_ms
 *   READING  a request's first byte came in: closed, answered 408, at
 *            req_timeout_ms from then
 *   SERVING  evhttp handed the whole request over: no deadline here; IDLE
 *            (or READING) again once its reply has left the output buffer
 *   STREAM   an event stream: no deadline here
 */
#define _GNU_SOURCE /* struct ucred */
#include "broker/conns.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "broker/internal.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* How long a connection over a cap waits for its request to refuse it. */
#define CONN_REFUSE_WAIT_MS 1000
/* Descriptors the daemon keeps for itself (store, log, inotify, git). */
#define CONN_FD_RESERVE 48

enum conn_state {
    CONN_NEW,
    CONN_IDLE,
    CONN_READING,
    CONN_SERVING,
    CONN_STREAM
};

struct conn {
    struct conn *next;
    struct bufferevent *bev;
    struct evhttp_connection *evcon; /* from setup on */
    struct evbuffer_cb_entry *in_cb, *out_cb;
    struct event *timer;
    enum conn_state state;
    bool counted;   /* within the caps */
    bool refused;   /* over a cap: 503 */
    bool over_peer; /* the peer's cap, not the global one */
    bool local;     /* Unix socket */
    uid_t uid;
    pid_t pid;
    void (*user_cb)(struct evhttp_connection *, void *);
    void *user_arg;
};

static struct {
    struct broker *b;
    struct conn *head;
    size_t n; /* counted */
    size_t max;
    int64_t refused_at, cut_at; /* last logged */
} cs;

void
broker_conns_init(struct broker *b)
{
    cs.b = b;
    cs.max = b->o.max_conns > 0 ? (size_t)b->o.max_conns : 1;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur > 2 * CONN_FD_RESERVE &&
        rl.rlim_cur - CONN_FD_RESERVE < cs.max)
        cs.max = rl.rlim_cur - CONN_FD_RESERVE;
}

static void
arm(struct conn *c, int64_t ms)
{
    struct timeval tv = { (time_t)(ms / 1000),
        (suseconds_t)(ms % 1000) * 1000 };
    evtimer_add(c->timer, &tv);
}

static void
forget(struct conn *c)
{
    for (struct conn **p = &cs.head; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    if (c->counted)
        cs.n--;
    evbuffer_remove_cb_entry(bufferevent_get_input(c->bev), c->in_cb);
    evbuffer_remove_cb_entry(bufferevent_get_output(c->bev), c->out_cb);
    event_free(c->timer);
    free(c);
}

static void
on_close(struct evhttp_connection *evcon, void *arg)
{
    struct conn *c = arg;
    if (c->user_cb)
        c->user_cb(evcon, c->user_arg);
    forget(c);
}

static bool
same_peer(const struct conn *a, const struct conn *b)
{
    if (!a->local || !b->local || a->uid != b->uid)
        return false;
    return a->uid != getuid() || a->pid == b->pid;
}

/* Who is at the other end, and whether it may have one more connection.
 * false when the connection is already gone (c freed). */
static bool
setup(struct conn *c)
{
    bufferevent_event_cb ecb = NULL;
    void *arg = NULL;
    bufferevent_getcb(c->bev, NULL, NULL, &ecb, &arg);
    struct bufferevent *bev = c->bev;
    if (!ecb || !arg) { /* evhttp could not take it and freed it */
        forget(c);
        bufferevent_decref(bev);
        return false;
    }
    c->evcon = arg;
    evhttp_connection_set_closecb(c->evcon, on_close, c);
    int fd = bufferevent_getfd(bev);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    if (fd >= 0 && getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
        ss.ss_family == AF_UNIX) {
        struct ucred cred;
        socklen_t cl = sizeof(cred);
        c->local = true;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) == 0) {
            c->uid = cred.uid;
            c->pid = cred.pid;
        } else {
            c->uid = (uid_t)-1;
        }
    }
    size_t peer = 0;
    for (struct conn *o = cs.head; o; o = o->next)
        if (o != c && o->counted && same_peer(o, c))
            peer++;
    size_t max_peer =
        cs.b->o.max_peer_conns > 0 ? (size_t)cs.b->o.max_peer_conns : 1;
    if (cs.n >= cs.max || (c->local && peer >= max_peer)) {
        c->refused = true;
        c->over_peer = cs.n < cs.max;
        int64_t now = broker_now();
        if (now - cs.refused_at >= 10000) {
            cs.refused_at = now;
            if (c->over_peer)
                broker_log(cs.b,
                    "connections: refused one of process %ld (uid %ld), "
                    "which has %zu open",
                    (long)c->pid, (long)c->uid, peer);
            else
                broker_log(cs.b, "connections: refused one, %zu open", cs.n);
        }
    } else {
        c->counted = true;
        cs.n++;
    }
    if (evbuffer_get_length(bufferevent_get_input(bev))) {
        c->state = CONN_READING;
        arm(c, cs.b->o.req_timeout_ms);
    } else {
        c->state = CONN_IDLE;
        arm(c, c->refused && CONN_REFUSE_WAIT_MS < cs.b->o.conn_idle_ms
                   ? CONN_REFUSE_WAIT_MS
                   : cs.b->o.conn_idle_ms);
    }
    bufferevent_decref(bev);
    return true;
}

static void
on_timer(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct conn *c = arg;
    if (c->state == CONN_NEW) {
        setup(c);
        return;
    }
    if (c->state != CONN_IDLE && c->state != CONN_READING)
        return;
    if (c->state == CONN_READING) {
        /* The client gets a word before the connection closes. */
        char body[160], msg[320];
        int bl = snprintf(body, sizeof(body),
            "{\"error\":{\"code\":\"request_timeout\",\"message\":\"the "
            "request was not complete within %lld ms\"}}\n",
            (long long)cs.b->o.req_timeout_ms);
        int ml = snprintf(msg, sizeof(msg),
            "HTTP/1.1 408 Request Timeout\r\nContent-Type: "
            "application/json\r\nConnection: close\r\nContent-Length: "
            "%d\r\n\r\n%s",
            bl, body);
        int sfd = bufferevent_getfd(c->bev);
        if (sfd >= 0 && ml > 0 && (size_t)ml < sizeof(msg) &&
            !evbuffer_get_length(bufferevent_get_output(c->bev)))
            (void)!send(sfd, msg, (size_t)ml, MSG_DONTWAIT | MSG_NOSIGNAL);
        int64_t now = broker_now();
        if (now - cs.cut_at >= 10000) {
            cs.cut_at = now;
            broker_log(cs.b,
                "connections: closed one whose request was not complete "
                "within %lld ms",
                (long long)cs.b->o.req_timeout_ms);
        }
    }
    evhttp_connection_free(c->evcon); /* on_close forgets c */
}

static void
on_input(struct evbuffer *buf, const struct evbuffer_cb_info *info, void *arg)
{
    (void)buf;
    struct conn *c = arg;
    if (info->n_added && c->state == CONN_IDLE) {
        c->state = CONN_READING;
        arm(c, c->refused && CONN_REFUSE_WAIT_MS < cs.b->o.req_timeout_ms
                   ? CONN_REFUSE_WAIT_MS
                   : cs.b->o.req_timeout_ms);
    }
}

static void
on_output(struct evbuffer *buf, const struct evbuffer_cb_info *info, void *arg)
{
    struct conn *c = arg;
    if (!info->n_deleted || evbuffer_get_length(buf) ||
        c->state != CONN_SERVING)
        return;
    /* The reply is out: the connection waits for the next request, or
     * has its first bytes already. */
    if (evbuffer_get_length(bufferevent_get_input(c->bev))) {
        c->state = CONN_READING;
        arm(c, cs.b->o.req_timeout_ms);
    } else {
        c->state = CONN_IDLE;
        arm(c, cs.b->o.conn_idle_ms);
    }
}

void
broker_conn_track(struct bufferevent *bev)
{
    if (!cs.b)
        return;
    struct conn *c = xcalloc(1, sizeof(*c));
    c->bev = bev;
    c->state = CONN_NEW;
    bufferevent_incref(bev); /* until setup, which may find it freed */
    c->in_cb = evbuffer_add_cb(bufferevent_get_input(bev), on_input, c);
    c->out_cb = evbuffer_add_cb(bufferevent_get_output(bev), on_output, c);
    c->timer = evtimer_new(cs.b->base, on_timer, c);
    c->next = cs.head;
    cs.head = c;
    arm(c, 0);
}

static struct conn *
find(struct evhttp_connection *evcon)
{
    struct bufferevent *bev =
        evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
    for (struct conn *c = cs.head; bev && c; c = c->next)
        if (c->bev == bev) {
            if (c->state == CONN_NEW && !setup(c))
                return NULL;
            return c;
        }
    return NULL;
}

int
broker_conn_request(struct evhttp_request *req, char *why, size_t len)
{
    struct conn *c = find(evhttp_request_get_connection(req));
    if (!c)
        return 0;
    evtimer_del(c->timer);
    c->state = CONN_SERVING;
    if (!c->refused)
        return 0;
    evhttp_add_header(
        evhttp_request_get_output_headers(req), "Connection", "close");
    evhttp_add_header(
        evhttp_request_get_output_headers(req), "Retry-After", "1");
    if (c->over_peer)
        snprintf(why, len,
            "this process has %d connections open to the daemon, its limit",
            cs.b->o.max_peer_conns);
    else
        snprintf(why, len,
            "the daemon serves %zu connections at once, its limit", cs.max);
    return -1;
}

void
broker_conn_stream(struct evhttp_request *req)
{
    struct conn *c = find(evhttp_request_get_connection(req));
    if (c) {
        evtimer_del(c->timer);
        c->state = CONN_STREAM;
    }
}

void
broker_conn_closecb(struct evhttp_connection *evcon,
    void (*cb)(struct evhttp_connection *, void *), void *arg)
{
    struct conn *c = find(evcon);
    if (!c) {
        evhttp_connection_set_closecb(evcon, cb, arg);
        return;
    }
    c->user_cb = cb;
    c->user_arg = arg;
}

void
broker_conns_release(void)
{
    /* before evhttp_free(): every connection is still there */
    while (cs.head) {
        struct conn *c = cs.head;
        struct bufferevent *bev = c->bev;
        bool fresh = c->state == CONN_NEW;
        if (c->evcon)
            evhttp_connection_set_closecb(c->evcon, c->user_cb, c->user_arg);
        forget(c);
        if (fresh)
            bufferevent_decref(bev);
    }
    memset(&cs, 0, sizeof(cs));
}

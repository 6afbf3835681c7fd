#include "client/client.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "util/sockpath.h"
#include "util/exitcode.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct growbuf {
    char *p;
    size_t n, a;
};

static size_t
on_body(char *data, size_t size, size_t nmemb, void *arg)
{
    struct growbuf *g = arg;
    size_t len = size * nmemb;
    if (g->n + len + 1 > (size_t)64 << 20)
        return 0; /* a reply over 64 MiB is not ours */
    ALLOC_GROW(g->p, g->n + len + 1, g->a);
    memcpy(g->p + g->n, data, len);
    g->n += len;
    g->p[g->n] = '\0';
    return len;
}

/* libcurl's new connection: remember its socket for on_prereq(). */
static int
on_socket(void *arg, curl_socket_t fd, curlsocktype purpose)
{
    struct client *c = arg;
    if (purpose == CURLSOCKTYPE_IPCXN)
        c->sock_fd = fd;
    return CURL_SOCKOPT_OK;
}

/*
 * Connected (or reusing a connection), nothing sent yet: the server must
 * run as this user. A socket another user serves is an impostor's (its
 * directory was theirs, or a link to one of theirs).
 */
static int
on_prereq(void *arg, char *ip, char *local_ip, int port, int local_port)
{
    struct client *c = arg;
    unsigned uid = (unsigned)-1;
    (void)ip;
    (void)local_ip;
    (void)port;
    (void)local_port;
    if (c->sock_fd >= 0 && broker_socket_peer_is_us(c->sock_fd, &uid))
        return CURL_PREREQFUNC_OK;
    c->foreign_uid = uid;
    return CURL_PREREQFUNC_ABORT;
}

static CURL *
handle(struct client *c)
{
    if (!c->curl) {
        static bool inited;
        if (!inited) {
            curl_global_init(CURL_GLOBAL_NOTHING);
            inited = true;
        }
        c->curl = curl_easy_init();
    }
    CURL *h = c->curl;
    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, c->paths.socket);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
    curl_easy_setopt(h, CURLOPT_SOCKOPTFUNCTION, on_socket);
    curl_easy_setopt(h, CURLOPT_SOCKOPTDATA, c);
    curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, on_prereq);
    curl_easy_setopt(h, CURLOPT_PREREQDATA, c);
    c->foreign_uid = -1;
    return h;
}

/* The error of a request that did not reach the daemon. */
static int
unreachable(struct client *c, CURLcode cc, struct as_err *e)
{
    if (c->foreign_uid != -1)
        return as_errorf(e, AS_ECONFLICT,
            "'%s' is served by another user (uid %ld), not by your daemon: "
            "refusing to talk to it",
            c->paths.socket, c->foreign_uid);
    return as_errorf(e, AS_EIO, "daemon at '%s' unreachable: %s",
        c->paths.socket, curl_easy_strerror(cc));
}

int
client_request(struct client *c, const char *method, const char *path,
    json_t *body, long *status, json_t **reply, struct as_err *e)
{
    *status = 0;
    *reply = NULL;
    CURL *h = handle(c);
    char *url = xasprintf("http://airspace%s", path);
    struct growbuf g = { NULL, 0, 0 };
    char *payload = body ? json_dumps(body, JSON_COMPACT) : NULL;
    struct curl_slist *hdr = NULL;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &g);
    if (c->timeout_ms > 0)
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
    if (payload || !strcmp(method, "POST")) {
        hdr = curl_slist_append(hdr, "Content-Type: application/json");
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, payload ? payload : "");
    }
    CURLcode cc = curl_easy_perform(h);
    int rc = 0;
    c->unsent = cc == CURLE_COULDNT_CONNECT;
    if (cc != CURLE_OK) {
        rc = unreachable(c, cc, e);
    } else {
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
        if (g.n)
            *reply = json_loadb(g.p, g.n, 0, NULL);
    }
    curl_slist_free_all(hdr);
    free(payload);
    free(g.p);
    free(url);
    return rc;
}

int
client_call(struct client *c, struct api_req r, long *status, json_t **reply,
    struct as_err *e)
{
    int rc = client_request(c, r.method, r.path, r.body, status, reply, e);
    api_req_release(&r);
    return rc;
}

/* 0 when the daemon answers; AS_ECONFLICT when another user serves the
 * socket; AS_EIO otherwise. */
static int
probe(struct client *c, struct as_err *e)
{
    long status;
    json_t *reply;
    long t = c->timeout_ms;
    c->timeout_ms = 2000;
    int rc = client_call(c, api_status(), &status, &reply, e);
    c->timeout_ms = t;
    if (reply)
        json_decref(reply);
    if (!rc && status != 200)
        rc = as_errorf(e, AS_EIO, "the daemon at '%s' answered %ld",
            c->paths.socket, status);
    return rc;
}

bool
client_ping(struct client *c)
{
    return probe(c, NULL) == 0;
}

static void
sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

static long
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* How long a start may take: the ready wait of start_daemon(), and some. */
#define CLIENT_START_WAIT_MS 125000

/* Whether the pid in the daemon lock file lock is a live process. */
static bool
lock_holder_alive(const char *lock)
{
    char buf[32] = "";
    int fd = open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    char *end;
    long pid = strtol(buf, &end, 10);
    return pid > 0 && end != buf &&
           (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/*
 * Whether a daemon that is not answering yet holds the daemon lock (its
 * pid is in the lock file, alive): it is starting, so wait for it.
 */
static bool
daemon_starting(struct client *c)
{
    return lock_holder_alive(c->paths.lock);
}

bool
client_daemon_alive(const char *repo_path)
{
    struct broker_paths p;
    struct as_err e;
    if (broker_paths_resolve(repo_path, false, &p, &e))
        return false;
    bool alive = lock_holder_alive(p.lock);
    broker_paths_release(&p);
    return alive;
}

/*
 * One on-demand start at a time (<airspace>/start.lock): the others wait
 * for it, bounded, and then find its daemon answering. Returns the lock's
 * descriptor (closing it releases the lock) or a negative code.
 */
static int
start_lock(struct client *c, struct as_err *e)
{
    int rc = broker_airspace_dir(c->paths.dir, e);
    if (rc)
        return rc;
    char *path = xasprintf("%s/start.lock", c->paths.dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        rc =
            as_errorf(e, AS_EIO, "cannot open '%s': %s", path, strerror(errno));
        free(path);
        return rc;
    }
    long until = now_ms() + CLIENT_START_WAIT_MS;
    while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        if ((errno != EWOULDBLOCK && errno != EINTR) || now_ms() > until) {
            rc = as_errorf(e, AS_EIO,
                "another start of the daemon holds '%s' for too long: %s", path,
                strerror(errno));
            close(fd);
            free(path);
            return rc;
        }
        sleep_ms(20);
    }
    free(path);
    return fd;
}

/*
 * Start `airspace serve` detached and wait until it says it serves. *raced
 * is set when another daemon held the lock and then went away (one that
 * was stopping): starting again may then succeed.
 */
static int
spawn_daemon(struct client *c, bool *raced, struct as_err *e)
{
    int pfd[2];
    if (pipe(pfd) < 0)
        return as_errorf(e, AS_EIO, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return as_errorf(e, AS_EIO, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        /* A grandchild in its own session, so it outlives the caller. */
        close(pfd[0]);
        setsid();
        if (fork() != 0)
            _exit(0);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        char fdarg[16];
        snprintf(fdarg, sizeof(fdarg), "%d", pfd[1]);
        char *argv[] = { "airspace", "serve", "--repo", c->repo_path,
            "--ready-fd", fdarg, NULL };
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(pfd[1]);
    waitpid(pid, NULL, 0);
    /* Wait for the ready byte (graph building may take a while cold). */
    struct pollfd p = { pfd[0], POLLIN, 0 };
    int n = poll(&p, 1, 120000);
    /* "R", or "E" and why it will not serve */
    char msg[sizeof(e->msg) + 1];
    size_t len = 0;
    while (n == 1 && len < sizeof(msg) - 1) {
        ssize_t k = read(pfd[0], msg + len, sizeof(msg) - 1 - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        len += (size_t)k;
        if (msg[0] == 'R')
            break;
    }
    msg[len] = '\0';
    close(pfd[0]);
    if (len && msg[0] == 'R')
        return 0;
    /* another daemon won the race (one started by hand): wait for it */
    for (long until = now_ms() + CLIENT_START_WAIT_MS;
         now_ms() < until && daemon_starting(c); sleep_ms(50)) {
        if (client_ping(c))
            return 0;
        *raced = true;
    }
    if (client_ping(c))
        return 0;
    if (len > 1 && msg[0] == 'E')
        return as_errorf(e, AS_EIO, "the daemon did not start: %s", msg + 1);
    return as_errorf(
        e, AS_EIO, "the daemon did not start; see '%s'", c->paths.log);
}

static int
start_daemon(struct client *c, struct as_err *e)
{
    int fd = start_lock(c, e);
    if (fd < 0)
        return fd;
    int rc = probe(c, e); /* the start we waited for, if any, serves */
    bool raced = true;
    for (int i = 0; i < 2 && raced && rc && rc != AS_ECONFLICT; i++) {
        raced = false;
        rc = spawn_daemon(c, &raced, e);
    }
    close(fd);
    return rc;
}

/*
 * The errno of a connection to the socket at path refused before it
 * reached anyone (EPERM, EACCES: a sandbox such as Codex's shell tool
 * forbids this process to connect), or 0. A daemon may well be serving
 * it: starting another would be wrong, and saying none serves, false.
 */
static int
connect_denied(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct stat st;
    if (stat(path, &st) || !S_ISSOCK(st.st_mode) ||
        strlen(path) >= sizeof(sa.sun_path))
        return 0;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno == EPERM || errno == EACCES ? errno : 0;
    int rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa)), err = errno;
    close(fd);
    return rc && (err == EPERM || err == EACCES) ? err : 0;
}

int
client_open(
    struct client *c, const char *repo_path, bool autostart, struct as_err *e)
{
    memset(c, 0, sizeof(*c));
    c->timeout_ms = 30000;
    c->sock_fd = -1;
    int rc = broker_paths_resolve(repo_path, false, &c->paths, e);
    if (rc)
        return rc;
    char *real = realpath(repo_path, NULL);
    c->repo_path = real ? real : xstrdup(repo_path);
    if (!(rc = probe(c, e)))
        return 0;
    /* it took the connection and did not answer in the probe's 2 s, while
     * a daemon holds the repository: busy (a big read, a round of
     * merges), not gone; the request itself has the longer deadline.
     * Starting another would only fail on the daemon lock */
    if (rc != AS_ECONFLICT && !c->unsent && lock_holder_alive(c->paths.lock))
        return 0;
    int denied = rc == AS_ECONFLICT ? 0 : connect_denied(c->paths.socket);
    if (rc == AS_ECONFLICT)
        ; /* an impostor serves the socket: no start, say so */
    else if (denied)
        rc = as_errorf(e, AS_EIO,
            "cannot connect to '%s': %s (this process may run in a sandbox "
            "that forbids it, such as a client's shell tool; the client's "
            "airspace hooks and MCP tools reach the daemon)",
            c->paths.socket, strerror(denied));
    else if (!autostart)
        rc = as_errorf(e, AS_EIO,
            "no daemon serves '%s' (without --no-start, a command such "
            "as 'airspace status' starts it)",
            c->paths.common_dir);
    else if (!(rc = start_daemon(c, e)) && (rc = probe(c, e)) &&
             rc != AS_ECONFLICT)
        rc = as_errorf(e, AS_EIO,
            "the daemon started but does not answer on '%s'", c->paths.socket);
    if (rc)
        client_close(c); /* a failed open leaves nothing to release */
    return rc;
}

void
client_close(struct client *c)
{
    if (c->curl)
        curl_easy_cleanup(c->curl);
    free(c->repo_path);
    broker_paths_release(&c->paths);
    memset(c, 0, sizeof(*c));
}

int
client_exit_code(long status)
{
    if (status >= 200 && status < 300)
        return CLI_EXIT_OK;
    if (status == 409 || status == 403 || status == 401)
        return CLI_EXIT_FAIL;
    if (status >= 400 && status < 500)
        return CLI_EXIT_USAGE;
    return CLI_EXIT_ERROR;
}

const char *
client_error_message(json_t *reply)
{
    const char *m = json_string_value(
        json_object_get(json_object_get(reply, "error"), "message"));
    return m ? m : "the daemon gave no reason";
}

/* ---- Server-Sent Events ---- */

struct sse {
    client_event_fn *fn;
    void *ctx;
    struct growbuf line; /* the current event's raw lines */
    bool stop;
    bool began; /* bytes of the stream arrived: the daemon answered */
};

/* Parse complete events (blank-line terminated) out of s->line. */
static void
sse_parse(struct sse *s)
{
    for (;;) {
        char *end = s->line.p ? strstr(s->line.p, "\n\n") : NULL;
        if (!end)
            return;
        *end = '\0';
        char *id = NULL, *type = NULL, *data = NULL;
        for (char *l = s->line.p, *nl; l && *l; l = nl) {
            nl = strchr(l, '\n');
            if (nl)
                *nl++ = '\0';
            if (!strncmp(l, "id: ", 4))
                id = l + 4;
            else if (!strncmp(l, "event: ", 7))
                type = l + 7;
            else if (!strncmp(l, "data: ", 6))
                data = l + 6;
        }
        if (data && !s->stop &&
            s->fn(s->ctx, id ? id : "", type ? type : "", data))
            s->stop = true;
        size_t used = (size_t)(end + 2 - s->line.p);
        memmove(s->line.p, end + 2, s->line.n - used + 1);
        s->line.n -= used;
    }
}

static size_t
on_stream(char *data, size_t size, size_t nmemb, void *arg)
{
    struct sse *s = arg;
    size_t len = size * nmemb;
    s->began = true;
    ALLOC_GROW(s->line.p, s->line.n + len + 1, s->line.a);
    memcpy(s->line.p + s->line.n, data, len);
    s->line.n += len;
    s->line.p[s->line.n] = '\0';
    sse_parse(s);
    return s->stop ? 0 : len;
}

int
client_stream(struct client *c, const char *path, client_event_fn *fn,
    void *ctx, struct as_err *e)
{
    CURL *h = handle(c);
    char *url = xasprintf("http://airspace%s", path);
    struct sse s = { fn, ctx, { NULL, 0, 0 }, false, false };
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_stream);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
    CURLcode cc = curl_easy_perform(h);
    int rc = 0;
    if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && s.stop) && s.began &&
        (cc == CURLE_PARTIAL_FILE || cc == CURLE_RECV_ERROR ||
            cc == CURLE_GOT_NOTHING)) {
        /* it answered, then went away mid-stream: stopped or restarted */
        rc = as_errorf(e, AS_EIO,
            "the daemon at '%s' closed the event stream (it stopped or "
            "restarted)",
            c->paths.socket);
    } else if (cc != CURLE_OK && !(cc == CURLE_WRITE_ERROR && s.stop)) {
        struct as_err ue;
        rc = unreachable(c, cc, &ue);
        as_errorf(e, rc, "event stream: %s", ue.msg);
    }
    free(s.line.p);
    free(url);
    return rc;
}

/*
 * cmd_top.c - `airspace top`: the airspace at a glance, live, in a terminal
 * (curses): agents, advisories, locks, escalations waiting for a human and
 * the latest events.
 *
 * Thin: it reads the daemon's API and draws, nothing else. A child process
 * follows the event stream (GET /v1/events) and hands each event on through
 * a pipe, so the screen never blocks on it; the state is read again when an
 * event may have changed it. When the stream ends, the daemon is asked
 * again every second, and the stream resumes after the last event seen.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>
#include <term.h>

#include "cli/cli.h"
#include "client/client.h"
#include "cli/dcli.h"
#include "cli/opts.h"
#include "cli/event_text.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/clock.h"
#include "util/banned.h"

#define TOP_EVENTS_MAX 200   /* event lines kept for the screen */
#define TOP_BATCH_MS 150     /* events closer than this: one re-read */
#define TOP_RETRY_MS 1000    /* asking a gone daemon again */
#define TOP_TICK_MS 1000     /* redraw: expiries count down */
#define TOP_REREAD_MS 10000  /* re-read even without events */
#define TOP_LINE_MAX 65536   /* an event line longer than this is dropped */
#define TOP_TIMEOUT_MS 3000L /* one request */

#define BOLD ((int)A_BOLD)
#define REVERSE ((int)A_REVERSE)

enum {
    PAIR_RED = 1,
    PAIR_YELLOW,
    PAIR_GREEN,
    PAIR_CYAN,
    PAIR_DIM,
};

struct top {
    struct client cl;
    bool color;
    /* the last replies: GET /v1/status, agents, advisories (with the
     * escalations), locks, intents */
    json_t *status, *agents, *advisories, *locks, *intents;
    char *note; /* why the last read failed, or NULL */
    char *events[TOP_EVENTS_MAX];
    size_t nevents;
    long long last_id; /* the newest event seen */
    pid_t child;       /* following the stream, or -1 */
    int fd;            /* its pipe, or -1 */
    char *in;          /* a partial line from the pipe */
    size_t nin, ain;
    bool gone;          /* the daemon does not answer */
    int64_t retry_at;   /* when to ask again (stream down) */
    bool dirty;         /* an event may have changed the state */
    int64_t read_at;    /* when the state was last read */
    int64_t gone_since; /* wall clock, ms */
};

static int64_t
mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* SIGINT, SIGTERM, SIGHUP: leave as q does, the terminal restored. */
static volatile sig_atomic_t top_quit;

static void
on_quit(int sig)
{
    (void)sig;
    top_quit = 1;
}

/* ---- reading the state ---- */

/* GET path into *slot; false when the daemon cannot be reached. */
static bool
top_get(struct top *t, struct api_req r, json_t **slot)
{
    long status;
    json_t *reply;
    struct as_err e;
    if (client_request(&t->cl, r.method, r.path, r.body, &status, &reply, &e)) {
        api_req_release(&r);
        return false;
    }
    if (status != 200) {
        if (!t->note)
            t->note =
                xasprintf("GET %s: %s", r.path, client_error_message(reply));
        api_req_release(&r);
        if (reply)
            json_decref(reply);
        return true;
    }
    api_req_release(&r);
    if (*slot)
        json_decref(*slot);
    *slot = reply;
    return true;
}

/* Read the whole state again; false when the daemon is gone. */
static bool
top_read(struct top *t)
{
    free(t->note);
    t->note = NULL;
    t->dirty = false;
    t->read_at = mono_ms();
    return top_get(t, api_status(), &t->status) &&
           top_get(t, api_agents(false), &t->agents) &&
           top_get(t, api_advisories(NULL), &t->advisories) &&
           top_get(t, api_locks(NULL), &t->locks) &&
           top_get(t, api_intents(NULL), &t->intents);
}

static void
top_add_event(struct top *t, json_t *ev)
{
    long long id = json_integer_value(json_object_get(ev, "id"));
    if (id > t->last_id)
        t->last_id = id;
    struct strbuf line = STRBUF_INIT;
    event_text_line(&line, ev, false);
    if (t->nevents == TOP_EVENTS_MAX) {
        free(t->events[0]);
        memmove(t->events, t->events + 1,
            (TOP_EVENTS_MAX - 1) * sizeof(t->events[0]));
        t->nevents--;
    }
    t->events[t->nevents++] = line.s;
}

/* The last events so far, from the ledger; the stream follows on after. */
static void
top_read_ledger(struct top *t)
{
    long long last =
        json_integer_value(json_object_get(t->status, "lastEventId"));
    long long after = last > TOP_EVENTS_MAX ? last - TOP_EVENTS_MAX : 0;
    json_t *reply = NULL;
    if (top_get(t, api_ledger(after, TOP_EVENTS_MAX, NULL, NULL), &reply)) {
        size_t i;
        json_t *ev;
        json_array_foreach(json_object_get(reply, "events"), i, ev)
            top_add_event(t, ev);
    }
    if (reply)
        json_decref(reply);
    if (last > t->last_id)
        t->last_id = last;
}

/* Whether an event of this type may change what is on the screen. */
static bool
event_relevant(const char *type)
{
    static const char *const prefixes[] = { "agent.", "workset.changed",
        "advisory", "intent.", "lock.", "claim.", "conflict", "message",
        "git.commit", "worktree.", "alert." };
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (!strncmp(type, prefixes[i], strlen(prefixes[i])))
            return true;
    return false;
}

/* ---- the event stream, in a child process ---- */

static int
write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int
stream_event(void *ctx, const char *id, const char *type, const char *data)
{
    int fd = *(int *)ctx;
    (void)id;
    (void)type;
    /* one event's data is one line of JSON */
    return write_all(fd, data, strlen(data)) || write_all(fd, "\n", 1);
}

static void
top_stream_start(struct top *t)
{
    int p[2];
    if (pipe(p) < 0)
        return;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return;
    }
    if (pid == 0) {
        /* never the terminal's: curses and the keyboard are the parent's */
        close(p[0]);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGWINCH, SIG_DFL);
        signal(SIGTSTP, SIG_IGN);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        struct client c;
        struct as_err e;
        if (client_open(&c, t->cl.repo_path, false, &e))
            _exit(CLI_EXIT_UNREACHABLE);
        c.timeout_ms = 0;
        char *path = api_events_path(t->last_id);
        int rc = client_stream(&c, path, stream_event, &p[1], &e);
        free(path);
        _exit(rc ? CLI_EXIT_UNREACHABLE : CLI_EXIT_OK);
    }
    close(p[1]);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    t->child = pid;
    t->fd = p[0];
    t->nin = 0;
}

static void
top_stream_stop(struct top *t)
{
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
    if (t->child > 0) {
        kill(t->child, SIGTERM);
        while (waitpid(t->child, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    t->child = -1;
}

/* Take what the stream sent; at its end, ask the daemon again soon. */
static void
top_stream_read(struct top *t)
{
    char buf[8192];
    for (;;) {
        ssize_t k = read(t->fd, buf, sizeof(buf));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return; /* EAGAIN: all read */
        if (k == 0) {
            top_stream_stop(t);
            t->retry_at = mono_ms() + TOP_RETRY_MS / 4;
            return;
        }
        ALLOC_GROW(t->in, t->nin + (size_t)k + 1, t->ain);
        memcpy(t->in + t->nin, buf, (size_t)k);
        t->nin += (size_t)k;
        t->in[t->nin] = '\0';
        char *line = t->in, *nl;
        while ((nl = memchr(line, '\n', t->nin - (size_t)(line - t->in)))) {
            *nl = '\0';
            json_t *ev = json_loads(line, 0, NULL);
            if (ev) {
                top_add_event(t, ev);
                const char *type =
                    json_string_value(json_object_get(ev, "type"));
                if (type && event_relevant(type))
                    t->dirty = true;
                json_decref(ev);
            }
            line = nl + 1;
        }
        size_t rest = t->nin - (size_t)(line - t->in);
        memmove(t->in, line, rest);
        t->nin = rest > TOP_LINE_MAX ? 0 : rest;
    }
}

/* The stream is down: is the daemon back? Then read and follow again. */
static void
top_retry(struct top *t)
{
    if (client_ping(&t->cl) && top_read(t)) {
        t->gone = false;
        top_stream_start(t);
        return;
    }
    if (!t->gone)
        t->gone_since = clock_wall_ms();
    t->gone = true;
    t->retry_at = mono_ms() + TOP_RETRY_MS;
}

/* ---- drawing ---- */

static int
attr_of(const struct top *t, int pair, int plain)
{
    return t->color ? (int)COLOR_PAIR(pair) : plain;
}

/*
 * Text at (y, x) in at most w columns: control characters as spaces, cut
 * at a character boundary (a character counted as one column). Returns
 * the column after it and a space.
 */
static int
cell(int y, int x, int w, int attr, const char *s)
{
    if (y >= LINES || x >= COLS || w <= 0)
        return x + w + 1;
    if (x + w > COLS)
        w = COLS - x;
    char buf[1024];
    size_t n = 0;
    int cols = 0;
    for (const unsigned char *p = (const unsigned char *)(s ? s : "-");
         *p && n + 4 < sizeof(buf); p++) {
        bool cont = (*p & 0xc0) == 0x80;
        if (!cont && cols == w)
            break;
        if (!cont)
            cols++;
        buf[n++] = *p < 0x20 || *p == 0x7f ? ' ' : (char)*p;
    }
    buf[n] = '\0';
    if (attr)
        attron(attr);
    mvaddstr(y, x, buf);
    if (attr)
        attroff(attr);
    return x + w + 1;
}

static const char *
str(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* "a, b, c" of an array of strings (or of objects' key), into sb. */
static void
join(struct strbuf *sb, json_t *list, const char *key)
{
    size_t i;
    json_t *x;
    json_array_foreach(list, i, x)
    {
        const char *s = key ? str(x, key) : json_string_value(x);
        strbuf_addf(sb, "%s%s", i ? ", " : "", s ? s : "?");
    }
}

/* "4m05s", "59s", "3h02m", "-" */
static void
duration(char *buf, size_t n, int64_t ms)
{
    if (ms < 0) {
        snprintf(buf, n, "-");
        return;
    }
    long long s = ms / 1000;
    if (s < 60)
        snprintf(buf, n, "%llds", s);
    else if (s < 3600)
        snprintf(buf, n, "%lldm%02llds", s / 60, s % 60);
    else if (s < 100LL * 3600)
        snprintf(buf, n, "%lldh%02lldm", s / 3600, s / 60 % 60);
    else
        snprintf(buf, n, "%lldd", s / 86400);
}

static int
level_rank(const char *level)
{
    return !strcmp(level ? level : "", "resolution") ? 0
           : !strcmp(level ? level : "", "traffic")  ? 1
                                                    : 2;
}

static int
cmp_advisory(const void *pa, const void *pb)
{
    json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
    int ra = level_rank(str(a, "level")), rb = level_rank(str(b, "level"));
    if (ra != rb)
        return ra - rb;
    double xa = json_real_value(json_object_get(a, "risk")),
           xb = json_real_value(json_object_get(b, "risk"));
    return xa > xb ? -1 : xa < xb;
}

/*
 * Rows for each section (its header included, and a blank row after each
 * but the last): what they want when it all fits, else the tallest gives
 * up rows, one at a time, down to a header and one line; of equals, the
 * later section.
 */
static void
plan(int *rows, const int *want, size_t ns, int avail)
{
    int sum = 0;
    for (size_t i = 0; i < ns; i++) {
        rows[i] = want[i];
        sum += rows[i] + (i + 1 < ns);
    }
    while (sum > avail) {
        size_t big = 0;
        for (size_t i = 1; i < ns; i++)
            if (rows[i] >= rows[big]) /* the agents give up last */
                big = i;
        if (rows[big] <= 2)
            return;
        rows[big]--;
        sum--;
    }
}

/* On the header row y, at its right end: how many items did not fit. */
static void
hidden(int y, size_t n, int rows)
{
    if (rows < 1 || n <= (size_t)(rows - 1))
        return;
    char buf[48];
    int len = snprintf(buf, sizeof(buf), " +%zu more", n - (size_t)(rows - 1));
    if (COLS > len)
        cell(y, COLS - len, len, REVERSE, buf);
}

static void
draw_title(struct top *t)
{
    json_t *st = t->status;
    size_t nagents = json_array_size(json_object_get(t->agents, "agents"));
    size_t nlocks = json_array_size(json_object_get(t->locks, "locks"));
    size_t nesc =
        json_array_size(json_object_get(t->advisories, "escalations"));
    json_t *adv = json_object_get(st, "advisories");
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb,
        "airspace top | %zu agent%s  %lld resolution  %lld traffic  "
        "%zu lock%s  %zu escalation%s | %s  integration %s  pid %lld",
        nagents, nagents == 1 ? "" : "s",
        (long long)json_integer_value(json_object_get(adv, "resolution")),
        (long long)json_integer_value(json_object_get(adv, "traffic")), nlocks,
        nlocks == 1 ? "" : "s", nesc, nesc == 1 ? "" : "s",
        str(st, "repository") ? str(st, "repository") : "?",
        str(st, "integration") ? str(st, "integration") : "?",
        (long long)json_integer_value(json_object_get(st, "pid")));
    attron(REVERSE);
    mvhline(0, 0, ' ', COLS);
    attroff(REVERSE);
    cell(0, 0, COLS, REVERSE, sb.s);
    const char *keys = "q quit";
    if (COLS >= (int)(sb.len + strlen(keys)) + 3)
        cell(0, COLS - (int)strlen(keys) - 1, (int)strlen(keys), REVERSE, keys);
    free(sb.s);

    sb = (struct strbuf)STRBUF_INIT;
    int attr = 0;
    json_t *ix = json_object_get(st, "index");
    if (t->gone) {
        char when[32];
        duration(when, sizeof(when), clock_wall_ms() - t->gone_since);
        strbuf_addf(&sb,
            "daemon gone, retrying (for %s; showing what it "
            "said last)",
            when);
        attr = attr_of(t, PAIR_RED, BOLD) | BOLD;
    } else if (t->child < 0) {
        strbuf_addf(&sb, "reconnecting to the event stream");
        attr = attr_of(t, PAIR_YELLOW, BOLD);
    } else if (t->note) {
        strbuf_addf(&sb, "%s", t->note);
        attr = attr_of(t, PAIR_YELLOW, BOLD);
    } else if (!strcmp(str(ix, "state") ? str(ix, "state") : "", "indexing")) {
        strbuf_addf(&sb, "live (event %lld); indexing %lld/%lld files",
            t->last_id,
            (long long)json_integer_value(json_object_get(ix, "done")),
            (long long)json_integer_value(json_object_get(ix, "total")));
    } else {
        strbuf_addf(&sb, "live (event %lld)", t->last_id);
        attr = attr_of(t, PAIR_GREEN, 0);
    }
    cell(1, 0, COLS, attr, sb.s);
    free(sb.s);
}

/* The agent's intent (its latest live one), else its lanes. */
static void
agent_plan(struct top *t, json_t *a, struct strbuf *sb)
{
    const char *id = str(a, "id");
    json_t *found = NULL, *in;
    size_t i;
    json_array_foreach(json_object_get(t->intents, "intents"), i,
        in) if (id && str(in, "agent") && !strcmp(id, str(in, "agent"))) found =
        in;
    if (found) {
        if (str(found, "summary"))
            strbuf_addf(sb, "%s: ", str(found, "summary"));
        join(sb, json_object_get(found, "files"), NULL);
    } else if (json_array_size(json_object_get(a, "lanes"))) {
        strbuf_addf(sb, "lanes ");
        join(sb, json_object_get(a, "lanes"), NULL);
    }
}

static int
draw_agents(struct top *t, int y, int rows)
{
    json_t *list = json_object_get(t->agents, "agents");
    size_t n = json_array_size(list);
    int hd = BOLD | attr_of(t, PAIR_CYAN, 0);
    if (!n) {
        cell(y, 0, COLS, attr_of(t, PAIR_DIM, 0), "no agents");
        return y + 1;
    }
    int x = cell(y, 0, 18, hd, "AGENT");
    x = cell(y, x, 12, hd, "CLIENT");
    x = cell(y, x, 7, hd, "STATUS");
    x = cell(y, x, 5, hd, "FILES");
    cell(y, x, COLS - x, hd, "INTENT / LANES");
    hidden(y++, n, rows);
    for (size_t i = 0; i < n && (int)i < rows - 1; i++, y++) {
        json_t *a = json_array_get(list, i);
        const char *status = json_is_true(json_object_get(a, "parked"))
                                 ? "parked"
                             : str(a, "status") ? str(a, "status")
                                                : "?";
        int sa = !strcmp(status, "active") ? attr_of(t, PAIR_GREEN, 0)
                 : !strcmp(status, "stale") || !strcmp(status, "parked")
                     ? attr_of(t, PAIR_YELLOW, 0)
                     : attr_of(t, PAIR_DIM, 0);
        char files[24];
        snprintf(files, sizeof(files), "%5lld",
            (long long)json_integer_value(json_object_get(a, "fileCount")));
        struct strbuf sb = STRBUF_INIT;
        agent_plan(t, a, &sb);
        x = cell(y, 0, 18, 0, str(a, "id"));
        x = cell(y, x, 12, 0, str(a, "client"));
        x = cell(y, x, 7, sa, status);
        x = cell(y, x, 5, 0, files);
        cell(y, x, COLS - x, 0, sb.s ? sb.s : "");
        free(sb.s);
    }
    return y;
}

static int
draw_advisories(struct top *t, int y, int rows)
{
    json_t *list = json_object_get(t->advisories, "advisories");
    size_t n = json_array_size(list);
    int hd = BOLD | attr_of(t, PAIR_CYAN, 0);
    if (!n) {
        cell(y, 0, COLS, attr_of(t, PAIR_DIM, 0), "no advisories");
        return y + 1;
    }
    json_t **v = xmalloc(n * sizeof(*v));
    for (size_t i = 0; i < n; i++)
        v[i] = json_array_get(list, i);
    qsort(v, n, sizeof(*v), cmp_advisory);
    int x = cell(y, 0, 10, hd, "LEVEL");
    x = cell(y, x, 24, hd, "PAIR");
    x = cell(y, x, 4, hd, "RISK");
    x = cell(y, x, 12, hd, "HOLDS");
    x = cell(y, x, 12, hd, "STEERS");
    cell(y, x, COLS - x, hd, "CONTESTED");
    hidden(y++, n, rows);
    for (size_t i = 0; i < n && (int)i < rows - 1; i++, y++) {
        json_t *a = v[i];
        const char *level = str(a, "level") ? str(a, "level") : "?";
        int rank = level_rank(level);
        int la = rank == 0   ? attr_of(t, PAIR_RED, BOLD) | BOLD
                 : rank == 1 ? attr_of(t, PAIR_YELLOW, BOLD)
                             : attr_of(t, PAIR_GREEN, 0);
        char up[16], risk[16];
        size_t k;
        for (k = 0; level[k] && k + 1 < sizeof(up); k++)
            up[k] = rank < 2 && level[k] >= 'a' && level[k] <= 'z'
                        ? (char)(level[k] - 'a' + 'A')
                        : level[k];
        up[k] = '\0';
        snprintf(risk, sizeof(risk), "%.2f",
            json_real_value(json_object_get(a, "risk")));
        struct strbuf pair = STRBUF_INIT, what = STRBUF_INIT;
        strbuf_addf(&pair, "%s ~ %s", str(a, "a") ? str(a, "a") : "?",
            str(a, "b") ? str(a, "b") : "?");
        json_t *contested = json_object_get(a, "contested");
        if (json_array_size(contested))
            join(&what, contested, "path");
        else
            join(&what, json_object_get(a, "mergeConflicts"), NULL);
        x = cell(y, 0, 10, la, up);
        x = cell(y, x, 24, 0, pair.s);
        x = cell(y, x, 4, 0, risk);
        x = cell(y, x, 12, 0, str(a, "hold"));
        x = cell(y, x, 12, 0, str(a, "steer"));
        cell(y, x, COLS - x, 0, what.s ? what.s : "");
        free(pair.s);
        free(what.s);
    }
    free(v);
    return y;
}

static int
draw_locks(struct top *t, int y, int rows)
{
    json_t *list = json_object_get(t->locks, "locks");
    size_t n = json_array_size(list);
    int hd = BOLD | attr_of(t, PAIR_CYAN, 0);
    if (!n) {
        cell(y, 0, COLS, attr_of(t, PAIR_DIM, 0), "no locks");
        return y + 1;
    }
    int x = cell(y, 0, 30, hd, "LOCK");
    x = cell(y, x, 16, hd, "HOLDER");
    x = cell(y, x, 15, hd, "KIND");
    x = cell(y, x, 8, hd, "EXPIRES");
    cell(y, x, COLS - x, hd, "REASON");
    hidden(y++, n, rows);
    int64_t now = clock_wall_ms();
    for (size_t i = 0; i < n && (int)i < rows - 1; i++, y++) {
        json_t *l = json_array_get(list, i);
        char kind[32], left[32];
        const char *k = str(l, "kind") ? str(l, "kind") : "lock";
        if (!strcmp(k, "claim"))
            snprintf(kind, sizeof(kind), "claim");
        else
            snprintf(kind, sizeof(kind), "%s lock",
                str(l, "mode") ? str(l, "mode") : "?");
        duration(left, sizeof(left),
            json_integer_value(json_object_get(l, "expiresAt")) - now);
        struct strbuf why = STRBUF_INIT;
        if (str(l, "contestedBy"))
            strbuf_addf(&why, "contested by %s%s", str(l, "contestedBy"),
                str(l, "reason") ? "; " : "");
        if (str(l, "reason"))
            strbuf_addf(&why, "%s", str(l, "reason"));
        x = cell(y, 0, 30, 0, str(l, "pattern"));
        x = cell(y, x, 16, 0, str(l, "holder"));
        x = cell(y, x, 15, 0, kind);
        x = cell(y, x, 8, 0, left);
        cell(y, x, COLS - x,
            str(l, "contestedBy") ? attr_of(t, PAIR_YELLOW, 0) : 0,
            why.s ? why.s : "");
        free(why.s);
    }
    return y;
}

static int
draw_escalations(struct top *t, int y, int rows)
{
    json_t *list = json_object_get(t->advisories, "escalations");
    size_t n = json_array_size(list);
    if (!n) {
        cell(y, 0, COLS, attr_of(t, PAIR_DIM, 0),
            "no escalations waiting for a human");
        return y + 1;
    }
    int hd = BOLD | attr_of(t, PAIR_RED, 0);
    char head[96];
    snprintf(head, sizeof(head),
        "WAITING FOR A HUMAN (%zu; 'airspace inbox --agent supervisor')", n);
    cell(y, 0, COLS, hd, head);
    hidden(y++, n, rows);
    int64_t now = clock_wall_ms();
    for (size_t i = 0; i < n && (int)i < rows - 1; i++, y++) {
        json_t *e = json_array_get(list, i);
        char age[32];
        duration(age, sizeof(age),
            now - json_integer_value(json_object_get(e, "since")));
        int x = cell(y, 0, 8, attr_of(t, PAIR_YELLOW, 0), age);
        cell(y, x, COLS - x, 0, str(e, "text"));
    }
    return y;
}

/* The alerts (the advisories' reply carries them), under the escalations
 * in their rows. */
static int
draw_alerts(struct top *t, int y, int rows)
{
    json_t *list = json_object_get(t->advisories, "alerts");
    size_t n = json_array_size(list);
    if (!n || rows < 1)
        return y;
    char head[64];
    snprintf(head, sizeof(head), "ALERTS (%zu; 'airspace alerts')", n);
    cell(y, 0, COLS, BOLD | attr_of(t, PAIR_RED, 0), head);
    hidden(y++, n, rows);
    int64_t now = clock_wall_ms();
    for (size_t i = 0; i < n && (int)i < rows - 1; i++, y++) {
        json_t *a = json_array_get(list, i);
        char age[32];
        duration(age, sizeof(age),
            now - json_integer_value(json_object_get(a, "since")));
        int x = cell(y, 0, 8, attr_of(t, PAIR_YELLOW, 0), age);
        x = cell(y, x, 16, attr_of(t, PAIR_RED, 0), str(a, "kind"));
        cell(y, x, COLS - x, 0, str(a, "text"));
    }
    return y;
}

static void
draw_events(struct top *t, int y)
{
    int hd = BOLD | attr_of(t, PAIR_CYAN, 0);
    if (y >= LINES)
        return;
    cell(y++, 0, COLS, hd, "EVENTS");
    int rows = LINES - y;
    if (rows <= 0)
        return;
    if (!t->nevents) {
        cell(y, 0, COLS, attr_of(t, PAIR_DIM, 0), "no events yet");
        return;
    }
    size_t first = t->nevents > (size_t)rows ? t->nevents - (size_t)rows : 0;
    for (size_t i = first; i < t->nevents; i++)
        cell(y++, 0, COLS, 0, t->events[i]);
}

static void
top_draw(struct top *t)
{
    erase();
    draw_title(t);
    size_t n[4] = {
        json_array_size(json_object_get(t->agents, "agents")),
        json_array_size(json_object_get(t->advisories, "advisories")),
        json_array_size(json_object_get(t->locks, "locks")),
        json_array_size(json_object_get(t->advisories, "escalations")),
    };
    size_t nalerts = json_array_size(json_object_get(t->advisories, "alerts"));
    int want[5], rows[5];
    for (size_t i = 0; i < 4; i++)
        want[i] = n[i] ? 1 + (int)n[i] : 1;
    want[3] += nalerts ? 1 + (int)nalerts : 0;
    want[4] = 1 + (t->nevents ? (int)t->nevents : 1);
    plan(rows, want, 5, LINES - 3);
    int y = 3;
    y = draw_agents(t, y, rows[0]) + 1;
    y = draw_advisories(t, y, rows[1]) + 1;
    y = draw_locks(t, y, rows[2]) + 1;
    /* the escalations' rows, leaving the alerts two at least */
    int esc_rows = n[3] ? 1 + (int)n[3] : 1;
    if (!nalerts || esc_rows > rows[3])
        esc_rows = rows[3];
    if (nalerts && esc_rows > rows[3] - 2)
        esc_rows = rows[3] - 2 > 1 ? rows[3] - 2 : 1;
    int y0 = y;
    y = draw_escalations(t, y, esc_rows);
    y = draw_alerts(t, y, rows[3] - (y - y0)) + 1;
    draw_events(t, y);
    refresh();
}

/* ---- the command ---- */

static void
top_colors(struct top *t)
{
    t->color = !getenv("NO_COLOR") && has_colors();
    if (!t->color)
        return;
    start_color();
    use_default_colors();
    init_pair(PAIR_RED, COLOR_RED, -1);
    init_pair(PAIR_YELLOW, COLOR_YELLOW, -1);
    init_pair(PAIR_GREEN, COLOR_GREEN, -1);
    init_pair(PAIR_CYAN, COLOR_CYAN, -1);
    init_pair(PAIR_DIM, COLOR_BLUE, -1);
}

static void
top_release(struct top *t)
{
    top_stream_stop(t);
    json_t **slots[] = { &t->status, &t->agents, &t->advisories, &t->locks,
        &t->intents };
    for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
        if (*slots[i])
            json_decref(*slots[i]);
    for (size_t i = 0; i < t->nevents; i++)
        free(t->events[i]);
    free(t->in);
    free(t->note);
    client_close(&t->cl);
}

/* Until q: wait for a key, an event, a resize or the next tick. */
static void
top_loop(struct top *t)
{
    while (!top_quit) {
        int64_t now = mono_ms();
        if (t->child < 0 && now >= t->retry_at)
            top_retry(t);
        if (t->child >= 0 &&
            ((t->dirty && now - t->read_at >= TOP_BATCH_MS) ||
                now - t->read_at >= TOP_REREAD_MS) &&
            !top_read(t)) {
            top_stream_stop(t);
            t->retry_at = now;
            top_retry(t);
        }
        top_draw(t);

        int timeout = TOP_TICK_MS;
        now = mono_ms();
        if (t->dirty)
            timeout = (int)(t->read_at + TOP_BATCH_MS - now);
        if (t->child < 0 && t->retry_at - now < timeout)
            timeout = (int)(t->retry_at - now);
        if (timeout < 0)
            timeout = 0;
        struct pollfd p[2] = { { 0, POLLIN, 0 }, { t->fd, POLLIN, 0 } };
        int n = poll(p, t->fd >= 0 ? 2 : 1, timeout);
        if (top_quit || (n < 0 && errno != EINTR))
            return;
        /* keys, and KEY_RESIZE after SIGWINCH (which also ends the poll) */
        int ch;
        while ((ch = getch()) != ERR)
            if (ch == 'q' || ch == 'Q')
                return;
        if (n > 0 && t->fd >= 0 && (p[1].revents & (POLLIN | POLLHUP)))
            top_stream_read(t);
    }
}

int
cmd_top(int argc, char **argv)
{
    static const char usage[] =
        "usage: airspace top [--repo DIR] [--no-start]\n\n"
        "The airspace at a glance, live: agents, advisories, locks,\n"
        "escalations waiting for a human and the latest events, following\n"
        "the daemon's events. q quits. Needs a terminal; NO_COLOR turns\n"
        "colour off.\n";
    const char *repo = ".";
    bool no_start = false;
    const struct opt table[] = {
        OPT_REPO(&repo),
        OPT_NO_START(&no_start),
        OPT_TABLE_END,
    };
    int prc = opts_parse(argc, argv, table, "top", usage, 0);
    if (prc)
        return prc < 0 ? CLI_EXIT_OK : prc;
    if (optind < argc)
        return dcli_usage("top", "unexpected '%s'", argv[optind]);
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr,
            "airspace top: needs a terminal (its %s is not one); for one "
            "picture use 'airspace status', for the events line by line "
            "'airspace watch'\n",
            !isatty(STDIN_FILENO) ? "input" : "output");
        return CLI_EXIT_USAGE;
    }

    struct top t = { .child = -1, .fd = -1 };
    int rc = dcli_open(&t.cl, repo, no_start, "top");
    if (rc)
        return rc;
    t.cl.timeout_ms = TOP_TIMEOUT_MS;
    if (!top_read(&t)) {
        fprintf(stderr, "airspace top: the daemon stopped answering\n");
        top_release(&t);
        return CLI_EXIT_UNREACHABLE;
    }
    top_read_ledger(&t);

    /* before curses, which then leaves them to us */
    struct sigaction sa = { .sa_handler = on_quit };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    setlocale(LC_ALL, "");
    /* a terminal type curses does not know: said before newterm(), whose
     * failure leaks (ncurses 6.4) */
    int terr = 0;
    SCREEN *scr = NULL;
    if (setupterm(NULL, STDOUT_FILENO, &terr) == OK) {
        del_curterm(cur_term);
        scr = newterm(NULL, stdout, stdin);
    }
    if (!scr) {
        const char *term = getenv("TERM");
        fprintf(stderr,
            "airspace top: cannot drive the terminal '%s'; use 'airspace "
            "status' or 'airspace watch'\n",
            term ? term : "(TERM unset)");
        top_release(&t);
        return CLI_EXIT_USAGE;
    }
    top_colors(&t);
    cbreak();
    noecho();
    nodelay(stdscr, TRUE);
    keypad(stdscr, TRUE);
    curs_set(0);

    top_stream_start(&t);
    if (t.child < 0)
        t.retry_at = mono_ms() + TOP_RETRY_MS;
    top_loop(&t);

    endwin();
    delscreen(scr);
    top_release(&t);
    return CLI_EXIT_OK;
}

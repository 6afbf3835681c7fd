/*
 * hook.c - `airspace hook claude-code|codex|gemini`: one hook call of
 * an agent client. Reads the client's hook JSON on stdin, tells the daemon
 * (register, heartbeat, edits, exit), and answers in the client's dialect:
 * deny (a lock held by another agent, or a resolution advisory in which
 * this agent steers), context for the model (the crew update, traffic on
 * approach), or nothing. It never grants a permission: what it does not
 * deny goes on to the client's own permission checks.
 *
 * It never hangs or breaks the agent: every daemon call has a deadline
 * (AIRSPACE_HOOK_TIMEOUT_MS, default 500), a daemon that is not running
 * (no socket, or a dead one's) is started in the background and the call
 * goes on unchecked with a note (a lock check waits for it within its
 * deadline first), and bad input is a line in the hook log.
 * The exit status is always 0, even for bad arguments: 2 would block the
 * call. The session's agent id comes from client/session.h; the tool
 * calls' checks and reports are in hook_tools.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "hooks/hook.h"
#include "hooks/hook_int.h"
#include "util/exitcode.h"
#include "util/sockpath.h"
#include "hooks/hook_http.h"
#include "hooks/hook_parse.h"
#include "client/api.h"
#include "client/session.h"
#include "util/error.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/clock.h"
#include "util/banned.h"

/* A Write of a generated file can carry megabytes; beyond this the input
 * is read to its end and not checked (the log says so). */
#define HOOK_INPUT_MAX (64u << 20)

/* ---- input ---- */

/* All of standard input, NUL-terminated, its length in *len; NULL when it
 * is longer than HOOK_INPUT_MAX (read to its end all the same, so the
 * client never writes into a closed pipe; *len is then how long). */
static char *
read_stdin(size_t *len)
{
    size_t n = 0, a = 0;
    char *buf = NULL;
    for (;;) {
        char sink[65536];
        if (!buf && n) { /* over the cap: drain */
            ssize_t r = read(0, sink, sizeof(sink));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                *len = n;
                return NULL;
            }
            n += (size_t)r;
            continue;
        }
        ALLOC_GROW(buf, n + 65536 + 1, a);
        ssize_t r = read(0, buf + n, 65536);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
        if (n > HOOK_INPUT_MAX) {
            free(buf);
            buf = NULL;
        }
    }
    if (!buf)
        buf = xmalloc(1);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The worktree holding dir: the nearest ancestor whose .git entry is a
 * repository's (broker_git_dir_of). */
static char *
worktree_root(const char *dir)
{
    char *p = realpath(dir ? dir : ".", NULL);
    while (p && *p) {
        char *g = broker_git_dir_of(p);
        bool found = g != NULL;
        free(g);
        if (found)
            return p;
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) {
            free(p);
            return NULL;
        }
        *slash = '\0';
    }
    free(p);
    return NULL;
}

/* The worktree holding the file at the absolute path (which need not
 * exist yet, nor its last directories), or NULL. */
static char *
root_of_path(const char *path)
{
    char *dir = xstrdup(path), *root = NULL;
    for (char *slash; !root && (slash = strrchr(dir, '/')) && slash != dir;) {
        *slash = '\0';
        struct stat st;
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
            root = worktree_root(dir);
        if (!root && stat(dir, &st) == 0)
            break; /* the nearest existing directory is in no worktree */
    }
    free(dir);
    return root;
}

static const char *
prefix_of(enum dialect d)
{
    return d == D_CLAUDE ? "cc" : d == D_CODEX ? "codex" : "gemini";
}

/* ---- output ---- */

/*
 * One line in <airspace>/hook.log (or on stderr when the airspace
 * directory is not known): what the client is not told.
 */
__attribute__((format(printf, 2, 3))) static void
hook_log(struct hook *h, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    FILE *f = NULL;
    if (h->dir) {
        char *p = xasprintf("%s/hook.log", h->dir);
        f = fopen(p, "a");
        free(p);
    }
    time_t t = time(NULL);
    struct tm tm;
    char when[32];
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    fprintf(f ? f : stderr, "%s %s %s: %s\n", when, h->agent ? h->agent : "-",
        h->event ? h->event : "-", msg);
    if (f)
        fclose(f);
}

/* The events whose answer may carry context for the model. */
static bool
takes_context(const struct hook *h)
{
    static const char *const claude[] = { "SessionStart", "UserPromptSubmit",
        "PreToolUse", "PostToolUse", NULL };
    static const char *const gemini[] = { "SessionStart", "BeforeAgent",
        "AfterTool", NULL };
    const char *const *ev = h->d == D_GEMINI ? gemini : claude;
    for (size_t i = 0; h->event && ev[i]; i++)
        if (!strcmp(h->event, ev[i]))
            return true;
    return false;
}

/*
 * Answer the client: a denial with its reason, or context for the model,
 * or nothing at all. airspace never grants a permission: a tool call it
 * does not deny goes on to the client's own permission checks. The shape
 * is the one each client's hook reference gives for the event; an event
 * that takes no context gets no output (the context goes to the log).
 */
void
hook_emit(struct hook *h, const char *deny, const char *context)
{
    char *ctx = NULL;
    if (h->note[0])
        ctx =
            context ? xasprintf("%s\n%s", context, h->note) : xstrdup(h->note);
    else if (context)
        ctx = xstrdup(context);
    if (ctx && h->d == D_GEMINI) {
        /* Gemini CLI reads every "@word" of a prompt, the context hooks
         * add to it included, as a file to paste in (packages/@scope/x.ts,
         * human@repo); an "@" after a backslash is text */
        char *esc = xmalloc(2 * strlen(ctx) + 1), *o = esc;
        for (const char *p = ctx; *p; p++) {
            if (*p == '@' && (p == ctx || p[-1] != '\\'))
                *o++ = '\\';
            *o++ = *p;
        }
        *o = '\0';
        free(ctx);
        ctx = esc;
    }
    json_t *jctx = ctx ? json_string(ctx) : NULL;
    if (ctx && !jctx) /* not UTF-8: say so rather than vanish */
        jctx = json_string("airspace: (the update was not valid UTF-8)");
    if (jctx && !deny && !takes_context(h)) {
        hook_log(h, "%s", ctx);
        json_decref(jctx);
        jctx = NULL;
    }
    json_t *out = NULL;
    if (h->d == D_GEMINI) {
        /* Gemini CLI: a top-level decision and reason; the context for
         * the model in hookSpecificOutput */
        if (deny || jctx)
            out = json_object();
        if (deny) {
            json_object_set_new(out, "decision", json_string("deny"));
            json_object_set_new(out, "reason", json_string(deny));
        }
        if (jctx)
            json_object_set_new(out, "hookSpecificOutput",
                json_pack("{s:s, s:O}", "hookEventName", h->event,
                    "additionalContext", jctx));
    } else if (deny || jctx) {
        /* Claude Code, and Codex, which reads the same shape */
        json_t *hs = json_pack("{s:s}", "hookEventName", h->event);
        if (deny) {
            json_object_set_new(hs, "permissionDecision", json_string("deny"));
            json_object_set_new(
                hs, "permissionDecisionReason", json_string(deny));
        } else {
            json_object_set(hs, "additionalContext", jctx);
        }
        out = json_pack("{s:o}", "hookSpecificOutput", hs);
    }
    if (jctx)
        json_decref(jctx);
    if (out) {
        char *s = json_dumps(out, JSON_COMPACT);
        puts(s);
        free(s);
        json_decref(out);
    }
    free(ctx);
}

/* ---- daemon ---- */

/* A deadline in ms from the environment variable name, else dflt. */
static long
env_ms(const char *name, long dflt)
{
    const char *t = getenv(name);
    char *end;
    long v = t ? strtol(t, &end, 10) : dflt;
    return t && (*end || v < 50 || v > 60000) ? dflt : v;
}

/* The full airspace binary: this one, or its sibling "airspace" when this
 * is the lean airspace-hook. */
static char *
airspace_exe(void)
{
    char *self = realpath("/proc/self/exe", NULL);
    if (!self)
        return xstrdup("airspace");
    char *slash = strrchr(self, '/');
    if (slash && !strcmp(slash + 1, "airspace-hook")) {
        *slash = '\0';
        char *sib = xasprintf("%s/airspace", self);
        free(self);
        return sib;
    }
    return self;
}

/*
 * Start the daemon without waiting for it (a grandchild in its own
 * session); the next hook call will find it. One start at a time, as the
 * commands do it (<airspace>/start.lock, client.c): a hook that finds the
 * lock held starts nothing, the start under way serves it soon. The lock
 * goes to the daemon as its --ready-fd, so it stays held until the daemon
 * serves (or says why it will not, or dies): a command that comes
 * meanwhile waits for this start instead of making its own.
 */
static void
spawn_daemon(const char *root, const char *dir)
{
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return;
    char *path = xasprintf("%s/start.lock", dir);
    int lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    free(path);
    if (lock < 0)
        return;
    if (flock(lock, LOCK_EX | LOCK_NB) < 0) {
        close(lock); /* a start is under way */
        return;
    }
    /* the start that held the lock before may have finished just now */
    char *sock = broker_socket_path(dir, NULL);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    bool served = false;
    if (fd >= 0 && strlen(sock) < sizeof(sun.sun_path)) {
        memcpy(sun.sun_path, sock, strlen(sock) + 1);
        served = connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0;
    }
    if (fd >= 0)
        close(fd);
    free(sock);
    if (served) {
        close(lock);
        return;
    }
    char *exe = airspace_exe();
    pid_t pid = fork();
    if (pid != 0) {
        if (pid > 0)
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        free(exe);
        close(lock); /* the daemon holds it now */
        return;
    }
    setsid();
    if (fork() != 0)
        _exit(0);
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
    }
    if (lock <= 2) { /* keep it clear of the standard descriptors */
        int moved = fcntl(lock, F_DUPFD, 3);
        if (moved < 0)
            _exit(127);
        lock = moved;
    }
    fcntl(lock, F_SETFD, 0); /* through exec */
    char fdarg[16];
    snprintf(fdarg, sizeof(fdarg), "%d", lock);
    char *argv[] = { "airspace", "serve", "--repo", (char *)root, "--ready-fd",
        fdarg, NULL };
    execv(exe, argv);
    _exit(127);
}

/*
 * Wait until no start of the daemon is under way: the start lock is free
 * (the daemon holds it as its --ready-fd until it serves, says why it will
 * not, or dies), or until the monotonic deadline until. Returns whether it
 * is free.
 */
static bool
start_done(const char *dir, double until)
{
    char *path = xasprintf("%s/start.lock", dir);
    int lock = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    free(path);
    if (lock < 0)
        return true; /* no start ever made: nothing to wait for */
    bool free_now;
    while (!(free_now = flock(lock, LOCK_EX | LOCK_NB) == 0) &&
           (errno == EWOULDBLOCK || errno == EINTR) &&
           clock_mono_ms() + 10 < until) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    close(lock); /* releases it, if taken */
    return free_now;
}

static bool
connect_daemon(struct hook *h)
{
    if (!h->root) {
        snprintf(h->note, sizeof(h->note),
            "airspace: not in a git worktree; not tracked");
        return false;
    }
    if (!h->dir) {
        snprintf(h->note, sizeof(h->note),
            "airspace: cannot find the git directory of '%s'; not tracked",
            h->root);
        return false;
    }
    h->sock = broker_socket_path(h->dir, NULL);
    h->timeout = env_ms("AIRSPACE_HOOK_TIMEOUT_MS", 500);
    h->lock_timeout = env_ms("AIRSPACE_HOOK_LOCK_TIMEOUT_MS", 3000);
    h->connected = true; /* the first request tells */
    return true;
}

/* Why the daemon's last start refused its configuration (one line, a new
 * string), or NULL: a daemon that serves removes the record. */
static char *
start_error(const char *dir)
{
    if (!dir)
        return NULL;
    char *path = xasprintf("%s/%s", dir, BROKER_START_ERROR);
    char *buf = file_first_line(path);
    free(path);
    if (buf && !*buf) {
        free(buf);
        buf = NULL;
    }
    return buf;
}

json_t *
hook_call(struct hook *h, struct api_req r)
{
    if (!h->connected) {
        api_req_release(&r);
        return NULL;
    }
    char *text = r.body ? json_dumps(r.body, JSON_COMPACT) : NULL;
    long status;
    char *reply = NULL;
    double until = clock_mono_ms() + (double)h->timeout;
    int rc =
        hook_http(h->sock, r.method, r.path, text, h->timeout, &status, &reply);
    if (rc == AS_ENOENT && h->await_start) {
        /* a check that stops an edit (a lock another agent still holds:
         * locks survive a restart) waits for the daemon it starts, within
         * its own deadline, rather than let the edit through unchecked */
        spawn_daemon(h->root, h->dir);
        long left = 0;
        if (start_done(h->dir, until))
            left = (long)(until - clock_mono_ms());
        if (left > 0)
            rc = hook_http(
                h->sock, r.method, r.path, text, left, &status, &reply);
    }
    free(text);
    api_req_release(&r);
    if (rc) {
        h->connected = false;
        if (rc == AS_ENOENT) { /* no socket, or a crashed daemon's */
            if (!h->await_start)
                spawn_daemon(h->root, h->dir);
            char *why = start_error(h->dir);
            if (why) {
                /* it will not start until that is fixed: said every time,
                 * as every call goes unchecked till then */
                hook_log(h, "the daemon does not start: %s", why);
                snprintf(h->note, sizeof(h->note),
                    "airspace: the coordination daemon cannot start: %s; "
                    "nothing is checked until that is fixed (this call was "
                    "not checked)",
                    why);
                free(why);
            } else {
                snprintf(h->note, sizeof(h->note),
                    "airspace: the coordination daemon was not running; "
                    "starting it (this call was not checked)");
            }
        } else if (rc == AS_ECONFLICT) {
            hook_log(h,
                "'%s' is served by another user, not the daemon: "
                "refused, nothing sent",
                h->sock);
            snprintf(h->note, sizeof(h->note),
                "airspace: the daemon's socket is served by another user; "
                "not talking to it (this call was not checked)");
        } else {
            snprintf(h->note, sizeof(h->note),
                "airspace: the daemon did not answer in time; this call "
                "was not checked");
        }
        return NULL;
    }
    json_t *j = status >= 200 && status < 300 && reply
                    ? json_loads(reply, 0, NULL)
                    : NULL;
    free(reply);
    return j;
}

static void
register_agent(struct hook *h)
{
    json_t *body = json_pack("{s:s, s:s, s:s, s:s}", "id", h->agent, "kind",
        "agent", "client",
        h->d == D_CLAUDE  ? "claude-code"
        : h->d == D_CODEX ? "codex"
                          : "gemini",
        "worktree", h->root);
    json_t *r = hook_call(h, api_register(body));
    if (r)
        json_decref(r);
}

const char *
hook_str_or(json_t *o, const char *key, const char *dflt)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v ? v : dflt;
}

char *
hook_why(json_t *advisory)
{
    struct strbuf t = STRBUF_INIT;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(advisory, "why"), i, c)
    {
        const char *name = json_string_value(c);
        if (name)
            strbuf_addf(&t, "%s%s", t.len ? ", " : ": ", name);
    }
    return t.s ? t.s : xstrdup("");
}

/* The crew: who else flies, their work, advisories and locks near me. */
static char *
crew_status(struct hook *h)
{
    json_t *ag = hook_call(h, api_agents(true));
    json_t *adv = hook_call(h, api_advisories(h->agent));
    json_t *locks = hook_call(h, api_locks(NULL));
    struct strbuf t = STRBUF_INIT; /* the crew update: no size limit */
    strbuf_addf(&t, "airspace crew update for %s:\n", h->agent);
    size_t i, others = 0;
    json_t *a;
    json_array_foreach(json_object_get(ag, "agents"), i, a)
    {
        const char *id = json_string_value(json_object_get(a, "id"));
        const char *st = json_string_value(json_object_get(a, "status"));
        bool parked = json_is_true(json_object_get(a, "parked"));
        if (!id || !strcmp(id, h->agent) || !st ||
            (strcmp(st, "active") && !parked) ||
            !json_integer_value(json_object_get(a, "fileCount")))
            continue;
        if (others++ < 8) {
            json_t *fs = json_object_get(a, "files");
            strbuf_addf(&t, "- %s (%s%s) %s", id, hook_str_or(a, "client", "?"),
                parked ? ", " HOOK_PARKED : "",
                parked ? "changed" : "is changing");
            size_t k;
            json_t *f;
            json_array_foreach(fs, k, f)
            {
                if (k == 3)
                    break;
                strbuf_addf(
                    &t, "%s %s", k ? "," : "", hook_str_or(f, "path", "?"));
                json_t *lines = json_object_get(f, "lines");
                size_t nl = json_array_size(lines);
                if (nl)
                    strbuf_addf(&t, " (lines %lld-%lld%s)",
                        (long long)json_integer_value(
                            json_array_get(json_array_get(lines, 0), 0)),
                        (long long)json_integer_value(
                            json_array_get(json_array_get(lines, 0), 1)),
                        nl > 1 ? ", ..." : "");
            }
            if (json_array_size(fs) > 3)
                strbuf_addf(&t, " and %zu more files", json_array_size(fs) - 3);
            strbuf_addf(&t, "\n");
        }
    }
    if (!others)
        strbuf_addf(&t, "- nobody else is changing files\n");
    json_array_foreach(json_object_get(adv, "advisories"), i, a)
    {
        const char *x = json_string_value(json_object_get(a, "a"));
        const char *y = json_string_value(json_object_get(a, "b"));
        if (!x || !y || (strcmp(x, h->agent) && strcmp(y, h->agent)))
            continue;
        char *why = hook_why(a);
        const char *other = strcmp(x, h->agent) ? x : y;
        bool parked = !strcmp(hook_str_or(a, "parked", ""), other);
        strbuf_addf(&t, "- %s advisory with %s%s (risk %.2f%s); %s holds\n",
            hook_str_or(a, "level", "?"), other,
            parked ? " (" HOOK_PARKED ")" : "",
            json_real_value(json_object_get(a, "risk")), why,
            hook_str_or(a, "hold", "?"));
        free(why);
    }
    json_array_foreach(json_object_get(adv, "escalations"), i, a)
    {
        strbuf_addf(
            &t, "- waiting for a human: %s\n", hook_str_or(a, "text", "?"));
    }
    json_array_foreach(json_object_get(adv, "alerts"), i, a)
        strbuf_addf(&t, "- alert: %s\n", hook_str_or(a, "text", "?"));
    size_t held = 0; /* others' locks, the first 8 shown */
    json_array_foreach(json_object_get(locks, "locks"), i, a)
    {
        const char *who = json_string_value(json_object_get(a, "holder"));
        if (who && strcmp(who, h->agent) && held++ < 8)
            strbuf_addf(
                &t, "- %s holds %s\n", who, hook_str_or(a, "pattern", "?"));
    }
    if (held > 8)
        strbuf_addf(&t, "- and %zu more locks held by others\n", held - 8);
    json_t *all[] = { ag, adv, locks };
    for (size_t k = 0; k < 3; k++)
        if (all[k])
            json_decref(all[k]);
    return t.s;
}

/* My unread messages ({messages: [...]}); with peek they stay unread. */
static json_t *
inbox(struct hook *h, bool peek)
{
    return hook_call(h, api_inbox(h->agent, peek));
}

/*
 * One message, "- message from ID: BODY". A line break in the body goes
 * on indented under it, so no line of one agent's message passes for
 * another message or for airspace's own words ("- message from
 * supervisor: ..." typed by anyone); a CR or another control character
 * is left out.
 */
static void
add_message(struct strbuf *t, json_t *m)
{
    strbuf_addf(t, "- message from ");
    for (const char *p = hook_str_or(m, "from", "?"); *p; p++)
        if ((unsigned char)*p >= 0x20 && *p != 0x7f)
            strbuf_addf(t, "%c", *p);
    strbuf_addf(t, ": ");
    for (const char *p = hook_str_or(m, "body", ""); *p; p++) {
        if (*p == '\n')
            strbuf_addf(t, "\n    ");
        else if ((unsigned char)*p >= 0x20 && *p != 0x7f)
            strbuf_addf(t, "%c", *p);
        else if (*p == '\t')
            strbuf_addf(t, " ");
    }
    strbuf_addf(t, "\n");
}

/*
 * Append the unread messages seen (peeked) to the update t, whole, and
 * only now mark them read, with any that arrived since: a message is read
 * only in an answer that carries it.
 */
static char *
add_messages(struct hook *h, char *t, json_t *peeked)
{
    struct strbuf x = { t, t ? strlen(t) : 0, t ? strlen(t) + 1 : 0 };
    json_t *seen = json_object_get(peeked, "messages");
    size_t i, k;
    json_t *m, *o;
    json_array_foreach(seen, i, m)
    {
        add_message(&x, m);
    }
    json_t *marked = inbox(h, false);
    json_array_foreach(json_object_get(marked, "messages"), i, m)
    {
        json_t *id = json_object_get(m, "id");
        bool old = false;
        json_array_foreach(seen, k, o)
        {
            old = old || json_equal(json_object_get(o, "id"), id);
        }
        if (!old)
            add_message(&x, m);
    }
    if (marked)
        json_decref(marked);
    return x.s;
}

/* At most AIRSPACE_CREW_LINES lines (default 12) of the update; returns
 * t or a new string in its place. */
static char *
cap_lines(char *t)
{
    const char *env = getenv("AIRSPACE_CREW_LINES");
    char *end;
    long max = env ? strtol(env, &end, 10) : 12;
    if (env && (*end || max < 2 || max > 1000))
        max = 12;
    long n = 0;
    for (char *p = t; *p; p++)
        if (*p == '\n' && ++n == max) {
            long more = 0;
            for (char *q = p + 1; *q; q++)
                more += *q == '\n';
            if (more) {
                p[1] = '\0';
                char *capped = xasprintf("%s- ... (%ld more)\n", t, more);
                free(t);
                return capped;
            }
            return t;
        }
    return t;
}

/*
 * Whether to send the crew update text now: always when forced (session
 * start, compaction); otherwise only when it differs from the last one
 * sent, and not within 2 s of it. The last one is recorded as "hash ms" in
 * <airspace>/crew/<agent>.
 */
static bool
crew_due(struct hook *h, const char *text, bool force)
{
    uint64_t hash = fnv1a_str(FNV1A_INIT, text);
    char *cdir = xasprintf("%s/crew", h->dir);
    mkdir(cdir, 0700);
    char *rec = xasprintf("%s/%s", cdir, h->agent);
    free(cdir);
    char *buf;
    size_t len;
    unsigned long long old = 0;
    long long at = 0;
    if (file_read_max(rec, 256, false, &buf, &len) == 0) {
        if (sscanf(buf, "%llx %lld", &old, &at) != 2)
            old = 0;
        free(buf);
    }
    int64_t now = clock_wall_ms();
    bool due = force || (old != hash && now - at >= 2000);
    if (due) {
        /* a forced send does not start the debounce of the next change */
        char line[64];
        int n = snprintf(line, sizeof(line), "%llx %lld\n",
            (unsigned long long)hash, (long long)(force ? 0 : now));
        struct as_err e;
        file_write_atomic(rec, line, (size_t)n, &e);
    }
    free(rec);
    return due;
}

/* A heartbeat; a session the daemon does not know registers again. */
static void
heartbeat(struct hook *h)
{
    json_t *r = hook_call(h, api_heartbeat(h->agent));
    if (r)
        json_decref(r);
    else if (h->connected)
        register_agent(h);
}

/* The topics of the prompt, if any: a line per agent converging with
 * this one, or NULL. */
static char *
prompt_topics(struct hook *h)
{
    const char *prompt = json_string_value(json_object_get(h->in, "prompt"));
    /* only the user's words: not the context Gemini CLI puts before a
     * headless prompt, nor a notification Claude Code sends as a prompt
     * (its ids and boilerplate would make every session converge) */
    if (prompt)
        prompt = hook_prompt_words(prompt);
    if (!prompt || !h->connected)
        return NULL;
    json_t *r = hook_call(h, api_prompt(h->agent, prompt));
    struct strbuf conv = STRBUF_INIT;
    size_t k;
    json_t *cv;
    json_array_foreach(json_object_get(r, "converging"), k, cv)
    {
        json_t *ts = json_object_get(cv, "topics");
        strbuf_addf(&conv,
            "airspace: your prompts are converging with '%s' on '%s'%s; "
            "declare an intent or message them\n",
            hook_str_or(cv, "agent", "?"),
            json_string_value(json_array_get(ts, 0)),
            json_array_size(ts) > 1 ? " and more" : "");
    }
    if (r)
        json_decref(r);
    return conv.s;
}

/*
 * What a session's start says of its own agent, as crew update lines (a
 * new string, or NULL): that the session is not the agent it was (seen),
 * and, when it is resumed, the locks its agent holds now: a lock the
 * conversation took before may have expired, or gone with the name, while
 * it was away, and the crew update lists only others' locks.
 */
static char *
start_lines(struct hook *h, const struct session_seen *seen)
{
    struct strbuf t = STRBUF_INIT;
    if (seen->was && seen->twin)
        strbuf_addf(&t,
            "- this session runs in another client process too, as '%s'; "
            "this process is an agent of its own, '%s': what '%s' holds "
            "(locks, changes) is not this agent's\n",
            seen->was, h->agent, seen->was);
    else if (seen->was)
        strbuf_addf(&t,
            "- this session was '%s' before its client stopped; another "
            "session has that name now, with what '%s' held (locks, "
            "changes): this session is '%s' and holds none of it\n",
            seen->was, seen->was, h->agent);
    const char *src = json_string_value(json_object_get(h->in, "source"));
    json_t *locks = h->connected && src && !strcmp(src, "resume")
                        ? hook_call(h, api_locks(NULL))
                        : NULL;
    if (locks) {
        size_t i, n = 0;
        json_t *l;
        json_array_foreach(json_object_get(locks, "locks"), i, l)
        {
            const char *who = json_string_value(json_object_get(l, "holder"));
            if (!who || strcmp(who, h->agent))
                continue;
            strbuf_addf(&t, "%s%s", n++ ? ", " : "- you hold now: ",
                hook_str_or(l, "pattern", "?"));
        }
        if (n)
            strbuf_addf(&t, "\n");
        else if (seen->was) /* (the line above says why) */
            strbuf_addf(&t, "- you hold no lock now\n");
        else
            strbuf_addf(&t,
                "- you hold no lock now: a lock taken before this session "
                "was resumed is gone (it expired, or went while the session "
                "was away); lock again what you need\n");
        json_decref(locks);
    }
    return t.s;
}

/*
 * SessionStart, a prompt: the crew update (forced at the start of a
 * session, after a compaction and with unread messages; on a prompt only
 * when it changed) and the prompt's convergence lines.
 */
static void
update_crew(struct hook *h, bool forced, bool prompt_ev, const char *start)
{
    char *conv = prompt_ev ? prompt_topics(h) : NULL;
    char *crew = h->connected ? crew_status(h) : NULL;
    json_t *unread = h->connected ? inbox(h, true) : NULL;
    size_t nmsg = json_array_size(json_object_get(unread, "messages"));
    if (crew && !h->connected) { /* a partial picture: say nothing */
        free(crew);
        crew = NULL;
    }
    if (crew)
        crew = cap_lines(crew);
    if (crew && !crew_due(h, crew, forced || nmsg > 0)) {
        free(crew);
        crew = NULL;
    }
    /* what a session start says of the agent itself: not in the hash,
     * so the next prompt's update is compared with the crew alone */
    if (start && *start) {
        char *both = xasprintf("%s%s", crew ? crew : "", start);
        free(crew);
        crew = both;
    }
    /* the messages whole, past the line cap, and read only now */
    if (crew && nmsg)
        crew = add_messages(h, crew, unread);
    if (unread)
        json_decref(unread);
    if (conv) {
        char *both = crew ? xasprintf("%s%s", crew, conv) : conv;
        if (crew) {
            free(crew);
            free(conv);
        }
        crew = both;
    }
    hook_emit(h, NULL, crew);
    free(crew);
}

int
cmd_hook(int argc, char **argv)
{
    struct hook h;
    memset(&h, 0, sizeof(h));
    if (argc != 2 ||
        (strcmp(argv[1], "claude-code") && strcmp(argv[1], "codex") &&
            strcmp(argv[1], "gemini"))) {
        /* exit 0 all the same: Claude Code takes 2 as "block the call" */
        fprintf(stderr,
            "usage: airspace hook claude-code|codex|gemini < hook.json\n");
        return CLI_EXIT_OK;
    }
    h.d = !strcmp(argv[1], "claude-code") ? D_CLAUDE
          : !strcmp(argv[1], "codex")     ? D_CODEX
                                          : D_GEMINI;
    size_t len = 0;
    char *raw = read_stdin(&len);
    json_error_t je;
    /* a NUL in a string is valid JSON (a file's content may hold one): an
     * input refused for it would be let through unchecked */
    h.in = raw ? json_loadb(raw, len, JSON_ALLOW_NUL, &je) : NULL;
    if (!raw && len)
        snprintf(je.text, sizeof(je.text),
            "%zu bytes, more than the %u MiB it reads", len,
            HOOK_INPUT_MAX >> 20);
    free(raw);
    const char *cwd = json_string_value(json_object_get(h.in, "cwd"));
    h.cwd = realpath(cwd ? cwd : ".", NULL);
    h.root = worktree_root(cwd);
    if (!h.root) {
        /* a session started outside any worktree (in a parent directory,
         * hooks of the user's): the file it writes names the repository */
        const char *fp = json_string_value(
            json_object_get(json_object_get(h.in, "tool_input"), "file_path"));
        if (fp && fp[0] == '/')
            h.root = root_of_path(fp);
    }
    if (h.root) {
        char *common = broker_common_dir_of(h.root);
        if (common)
            h.dir = xasprintf("%s/airspace", common);
        free(common);
    }
    if (!json_is_object(h.in)) {
        /* nothing the client would act on: a line in the log only */
        hook_log(&h, "could not read the hook input (%s); nothing checked",
            h.in  ? "not an object"
            : len ? je.text
                  : "empty");
        if (h.in)
            json_decref(h.in);
        free(h.cwd);
        free(h.root);
        free(h.dir);
        return CLI_EXIT_OK;
    }
    h.event = json_string_value(json_object_get(h.in, "hook_event_name"));
    const char *session =
        json_string_value(json_object_get(h.in, "session_id"));
    const char *named = getenv("AIRSPACE_AGENT");
    struct session_seen seen = { NULL, false };
    const char *ev = h.event ? h.event : "";
    if (named && *named)
        h.agent = xstrdup(named);
    else if (!strcmp(ev, "SessionEnd")) /* known, or nothing to end */
        h.agent = session_known(h.dir, prefix_of(h.d), session);
    else
        h.agent = session_agent(h.dir, prefix_of(h.d), session, h.root, &seen);
    connect_daemon(&h);
    if (!strcmp(ev, "SessionStart")) {
        register_agent(&h);
        char *start = start_lines(&h, &seen);
        update_crew(&h, true, false, start);
        free(start);
    } else if (!strcmp(ev, "UserPromptSubmit") || !strcmp(ev, "BeforeAgent")) {
        /* Gemini's BeforeAgent is its UserPromptSubmit */
        heartbeat(&h);
        update_crew(&h, false, true, NULL);
    } else if (!strcmp(ev, "PreCompact") || !strcmp(ev, "PreCompress")) {
        /* the update follows the compaction: Claude Code's SessionStart
         * (source "compact") carries it whole; this event takes none */
        heartbeat(&h);
        hook_emit(&h, NULL, NULL);
    } else if (!strcmp(ev, "Stop") || !strcmp(ev, "AfterAgent")) {
        heartbeat(&h); /* the end of a turn: alive, nothing to say */
        hook_emit(&h, NULL, NULL);
    } else if (!strcmp(ev, "PreToolUse") || !strcmp(ev, "BeforeTool")) {
        hook_pre_tool(&h);
    } else if (!strcmp(ev, "PostToolUse") || !strcmp(ev, "AfterTool")) {
        /* the edit's report first, with the lock check's deadline: it is
         * what says whose the lines are in a shared worktree, and a
         * heartbeat that timed out first left it unsent (87 % of the
         * reports, with a busy daemon) */
        long t = h.timeout;
        if (h.lock_timeout > t)
            h.timeout = h.lock_timeout;
        hook_post_tool(&h);
        h.timeout = t;
        heartbeat(&h);
        /* messages that came mid-turn reach the model with the tool's
         * result (a headless turn has no prompt to carry them) */
        json_t *unread = h.connected ? inbox(&h, true) : NULL;
        char *msgs = NULL;
        if (json_array_size(json_object_get(unread, "messages")))
            msgs =
                add_messages(&h, xstrdup("airspace: new messages:\n"), unread);
        if (unread)
            json_decref(unread);
        hook_emit(&h, NULL, msgs);
        free(msgs);
    } else if (!strcmp(ev, "SessionEnd")) {
        /* (its agent goes on when another session of the same client
         * process runs as it now) */
        if (h.agent && (session_forget(h.dir, prefix_of(h.d), session) ||
                           (named && *named))) {
            json_t *r = hook_call(&h, api_exit(h.agent));
            if (r)
                json_decref(r);
        }
        hook_emit(&h, NULL, NULL);
    } else {
        hook_emit(&h, NULL, NULL);
    }
    free(h.sock);
    free(h.dir);
    json_decref(h.in);
    free(h.agent);
    free(seen.was);
    free(h.cwd);
    free(h.root);
    return CLI_EXIT_OK;
}

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
 * goes on unchecked with a note, and bad input is a line in the hook log.
 * The exit status is always 0, even for bad arguments: 2 would block the
 * call. The session's agent id comes from cli/session.h.
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
#include "util/exitcode.h"
#include "util/sockpath.h"
#include "hooks/hook_http.h"
#include "hooks/hook_parse.h"
#include "client/session.h"
#include "util/error.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define HOOK_INPUT_MAX (4u << 20)

enum dialect { D_CLAUDE, D_CODEX, D_GEMINI };

struct hook {
    enum dialect d;
    json_t *in;
    const char *event; /* hook_event_name */
    char *agent;       /* our id for this session */
    char *cwd;         /* the input's cwd, resolved (relative paths' base) */
    char *root;        /* worktree root of cwd */
    char *sock;        /* the daemon's socket */
    char *dir;         /* the airspace directory (crew update records) */
    long timeout;      /* per request, ms */
    bool connected;
    char note[512]; /* something to tell the model with the answer */
};

/* ---- input ---- */

static char *
read_stdin(size_t *len)
{
    size_t n = 0, a = 0;
    char *buf = NULL;
    for (;;) {
        ALLOC_GROW(buf, n + 65536 + 1, a);
        ssize_t r = read(0, buf + n, 65536);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
        if (n > HOOK_INPUT_MAX) {
            free(buf);
            return NULL;
        }
    }
    if (!buf)
        buf = xmalloc(1);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The worktree holding dir: the nearest ancestor with a .git entry. */
static char *
worktree_root(const char *dir)
{
    char *p = realpath(dir ? dir : ".", NULL);
    while (p && *p) {
        char *g = xasprintf("%s/.git", p);
        struct stat sb;
        bool found = stat(g, &sb) == 0;
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
static void
emit(struct hook *h, const char *deny, const char *context)
{
    char *ctx = NULL;
    if (h->note[0])
        ctx =
            context ? xasprintf("%s\n%s", context, h->note) : xstrdup(h->note);
    else if (context)
        ctx = xstrdup(context);
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

static long
timeout_ms(void)
{
    const char *t = getenv("AIRSPACE_HOOK_TIMEOUT_MS");
    char *end;
    long v = t ? strtol(t, &end, 10) : 500;
    return t && (*end || v < 50 || v > 60000) ? 500 : v;
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
    h->timeout = timeout_ms();
    h->connected = true; /* the first request tells */
    return true;
}

static json_t *
call(struct hook *h, const char *method, const char *path, json_t *body)
{
    if (!h->connected)
        return NULL;
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    long status;
    char *reply = NULL;
    int rc =
        hook_http(h->sock, method, path, text, h->timeout, &status, &reply);
    free(text);
    if (rc) {
        h->connected = false;
        if (rc == AS_ENOENT) { /* no socket, or a crashed daemon's */
            spawn_daemon(h->root, h->dir);
            snprintf(h->note, sizeof(h->note),
                "airspace: the coordination daemon was not running; starting "
                "it (this call was not checked)");
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
    json_t *r = call(h, "POST", "/v1/agents", body);
    json_decref(body);
    if (r)
        json_decref(r);
}

static const char *
str_or(json_t *o, const char *key, const char *dflt)
{
    const char *v = json_string_value(json_object_get(o, key));
    return v ? v : dflt;
}

/* The crew: who else flies, their work, advisories and locks near me. */
static char *
crew_status(struct hook *h)
{
    json_t *ag = call(h, "GET", "/v1/agents?files=1", NULL);
    char *apath = xasprintf("/v1/advisories?agent=%s", h->agent);
    json_t *adv = call(h, "GET", apath, NULL);
    free(apath);
    json_t *locks = call(h, "GET", "/v1/locks", NULL);
    struct strbuf t = STRBUF_INIT; /* the crew update: no size limit */
    strbuf_addf(&t, "airspace crew update for %s:\n", h->agent);
    size_t i, others = 0;
    json_t *a;
    json_array_foreach(json_object_get(ag, "agents"), i, a)
    {
        const char *id = json_string_value(json_object_get(a, "id"));
        const char *st = json_string_value(json_object_get(a, "status"));
        if (!id || !strcmp(id, h->agent) || !st || strcmp(st, "active") ||
            !json_integer_value(json_object_get(a, "fileCount")))
            continue;
        if (others++ < 8) {
            json_t *fs = json_object_get(a, "files");
            strbuf_addf(
                &t, "- %s (%s) is changing", id, str_or(a, "client", "?"));
            size_t k;
            json_t *f;
            json_array_foreach(fs, k, f)
            {
                if (k == 3)
                    break;
                strbuf_addf(&t, "%s %s", k ? "," : "", str_or(f, "path", "?"));
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
        strbuf_addf(&t, "- %s advisory with %s (risk %.2f); %s holds\n",
            str_or(a, "level", "?"), strcmp(x, h->agent) ? x : y,
            json_real_value(json_object_get(a, "risk")),
            str_or(a, "hold", "?"));
    }
    json_array_foreach(json_object_get(adv, "escalations"), i, a)
    {
        strbuf_addf(&t, "- waiting for a human: %s\n", str_or(a, "text", "?"));
    }
    json_array_foreach(json_object_get(adv, "alerts"), i, a)
        strbuf_addf(&t, "- alert: %s\n", str_or(a, "text", "?"));
    json_array_foreach(json_object_get(locks, "locks"), i, a)
    {
        const char *who = json_string_value(json_object_get(a, "holder"));
        if (who && strcmp(who, h->agent) && i < 8)
            strbuf_addf(&t, "- %s holds %s\n", who, str_or(a, "pattern", "?"));
    }
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
    char *path =
        xasprintf("/v1/agents/%s/inbox%s", h->agent, peek ? "?peek=1" : "");
    json_t *r = call(h, "GET", path, NULL);
    free(path);
    return r;
}

static void
add_message(struct strbuf *t, json_t *m)
{
    strbuf_addf(t, "- message from %s: %s\n", str_or(m, "from", "?"),
        str_or(m, "body", ""));
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

static int64_t
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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
    int64_t now = now_ms();
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

/* ---- tools ---- */

/*
 * Repository-relative path of a file path, absolute or relative to the
 * hook's cwd (as the tool resolves it), or NULL outside the worktree. Its
 * directories are resolved (symlinks, ".."), as the realpath'd root is;
 * the file itself may not exist yet, nor its last directories.
 */
static char *
rel_path(struct hook *h, const char *p)
{
    if (!p || !*p || !h->root)
        return NULL;
    char *abs = p[0] == '/' ? xstrdup(p)
                            : xasprintf("%s/%s", h->cwd ? h->cwd : h->root, p);
    /* the longest existing directory: abs[0, k - 1), the rest abs + k */
    size_t k = strlen(abs);
    char *real = NULL;
    while (!real && k > 0) {
        while (k > 0 && abs[k - 1] != '/')
            k--;
        if (k == 0)
            break;
        char *dir = xstrndup(abs, k > 1 ? k - 1 : 1);
        real = realpath(dir, NULL);
        free(dir);
        if (!real)
            k--;
    }
    char *full = real ? xasprintf("%s/%s", real, abs + k) : xstrdup(abs);
    char *norm = NULL;
    if (path_normalize(full, h->root, &norm) < 0)
        norm = NULL;
    free(real);
    free(full);
    free(abs);
    return norm;
}

/* The n paths raw (taken) made repository-relative into *out (those in
 * the worktree); returns their count. */
static size_t
rel_paths(struct hook *h, char **raw, size_t n, char ***out)
{
    size_t k = 0;
    *out = xcalloc(n + 1, sizeof(**out));
    for (size_t i = 0; i < n; i++) {
        char *r = rel_path(h, raw[i]);
        if (r)
            (*out)[k++] = r;
        free(raw[i]);
    }
    free(raw);
    return k;
}

/* The files a tool call will write, repository-relative; *unchecked
 * counts those of a shell command it could not place (hook_shell_scan). */
static size_t
tool_paths(struct hook *h, char ***out, size_t *unchecked)
{
    json_t *ti = json_object_get(h->in, "tool_input");
    const char *tool = json_string_value(json_object_get(h->in, "tool_name"));
    *out = NULL;
    *unchecked = 0;
    if (!tool)
        return 0;
    const char *file = NULL;
    if (!strcmp(tool, "Edit") || !strcmp(tool, "Write") ||
        !strcmp(tool, "MultiEdit") || !strcmp(tool, "write_file") ||
        !strcmp(tool, "replace"))
        file = json_string_value(json_object_get(ti, "file_path"));
    else if (!strcmp(tool, "NotebookEdit"))
        file = json_string_value(json_object_get(ti, "notebook_path"));
    if (file) {
        char *r = rel_path(h, file);
        if (!r)
            return 0;
        *out = xmalloc(sizeof(**out));
        (*out)[0] = r;
        return 1;
    }
    /* Codex: apply_patch carries the patch text, as its input, or as the
     * command of its shell tool (["apply_patch", PATCH], or a shell
     * here-document); so may any shell command */
    const char *patch = json_string_value(json_object_get(ti, "input"));
    if (!patch)
        patch = json_string_value(json_object_get(ti, "patch"));
    json_t *cmdv = json_object_get(ti, "command");
    const char *cmd = json_string_value(cmdv);
    if (!patch && json_is_array(cmdv)) {
        /* the last word of ["apply_patch", P] or ["bash", "-lc", S] */
        cmd =
            json_string_value(json_array_get(cmdv, json_array_size(cmdv) - 1));
    }
    const char *at = NULL;
    if (!patch && cmd && strstr(cmd, "*** Begin Patch")) {
        patch = cmd;
        at = strstr(cmd, "apply_patch");
    }
    if (at) {
        /* a here-document in a shell command: its paths are those of the
         * directory apply_patch runs in (after any cd before it), so the
         * command is read as that prefix and `touch PATHS` */
        char **raw;
        size_t n = hook_patch_paths(patch, &raw);
        struct strbuf sh = STRBUF_INIT;
        strbuf_addf(&sh, "%.*s touch", (int)(at - cmd), cmd);
        for (size_t i = 0; i < n; i++) {
            if (!strchr(raw[i], '\''))
                strbuf_addf(&sh, " '%s'", raw[i]);
            free(raw[i]);
        }
        free(raw);
        n = hook_shell_scan(sh.s, &raw, unchecked);
        free(sh.s);
        return rel_paths(h, raw, n, out);
    }
    if (patch) {
        /* relative to the shell call's workdir, if it has one */
        const char *wd = json_string_value(json_object_get(ti, "workdir"));
        char *saved = h->cwd;
        if (wd) {
            char *abs = wd[0] == '/'
                            ? xstrdup(wd)
                            : xasprintf("%s/%s", saved ? saved : h->root, wd);
            h->cwd = abs;
        }
        char **raw;
        size_t n = hook_patch_paths(patch, &raw);
        size_t k = rel_paths(h, raw, n, out);
        if (wd) {
            free(h->cwd);
            h->cwd = saved;
        }
        return k;
    }
    /* A shell command that obviously writes files (best effort) */
    if ((!strcmp(tool, "Bash") || !strcmp(tool, "run_shell_command") ||
            !strcmp(tool, "shell") || !strcmp(tool, "exec_command") ||
            !strcmp(tool, "local_shell")) &&
        cmd) {
        char **raw;
        size_t n = hook_shell_scan(cmd, &raw, unchecked);
        return rel_paths(h, raw, n, out);
    }
    return 0;
}

/* Deny when another agent holds the path, or when I steer a resolution
 * contesting it; returns the reason (new string) or NULL. Traffic adds to
 * *ctx. */
static char *
check_path(struct hook *h, const char *path, char **ctx, json_t **advs)
{
    json_t *body = json_pack("{s:s, s:s}", "agent", h->agent, "path", path);
    json_t *r = call(h, "POST", "/v1/locks/check", body);
    json_decref(body);
    char *deny = NULL;
    if (r && json_is_false(json_object_get(r, "free"))) {
        const char *msg = json_string_value(json_object_get(r, "message"));
        deny = xasprintf("airspace: %s. Work elsewhere, wait for the lock to "
                         "be released, or message its holder.",
            msg ? msg : "someone else holds this path");
    }
    if (r)
        json_decref(r);
    if (deny)
        return deny;
    if (!*advs) {
        char *apath = xasprintf("/v1/advisories?agent=%s", h->agent);
        *advs = call(h, "GET", apath, NULL);
        free(apath);
    }
    json_t *adv = *advs;
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(adv, "advisories"), i, a)
    {
        const char *x = json_string_value(json_object_get(a, "a"));
        const char *y = json_string_value(json_object_get(a, "b"));
        if (!x || !y || (strcmp(x, h->agent) && strcmp(y, h->agent)))
            continue;
        const char *level = json_string_value(json_object_get(a, "level"));
        const char *steer = json_string_value(json_object_get(a, "steer"));
        bool contested = false;
        size_t k;
        json_t *c;
        json_array_foreach(json_object_get(a, "contested"), k, c) contested =
            contested ||
            !strcmp(json_string_value(json_object_get(c, "path")), path);
        const char *other = strcmp(x, h->agent) ? x : y;
        if (level && !strcmp(level, "resolution") && steer &&
            !strcmp(steer, h->agent) && contested && !deny) {
            const char *g = json_string_value(json_object_get(a, "guidance"));
            deny = xasprintf("%s", g ? g
                                     : "airspace: resolution advisory; "
                                       "another agent holds this work");
        } else if (level && !*ctx) {
            *ctx = xasprintf("airspace: %s advisory with '%s' (risk %.2f)%s",
                level, other, json_real_value(json_object_get(a, "risk")),
                contested ? " on this file" : "");
        }
    }
    return deny;
}

/* Lines of the file that hold text (new_string of an Edit), or 0. */
static int
locate(const char *file, const char *text, uint32_t *start, uint32_t *end)
{
    char *buf;
    size_t len;
    if (!text || !*text || file_read_max(file, 64u << 20, false, &buf, &len))
        return -1;
    char *at = strstr(buf, text);
    if (!at) {
        free(buf);
        return -1;
    }
    uint32_t line = 1;
    for (char *p = buf; p < at; p++)
        line += *p == '\n';
    uint32_t span = 0;
    for (const char *p = text; *p; p++)
        span += *p == '\n' && p[1];
    *start = line;
    *end = line + span;
    free(buf);
    return 0;
}

static uint32_t
count_lines(const char *file)
{
    char *buf;
    size_t len;
    if (file_read_max(file, 64u << 20, false, &buf, &len))
        return 0;
    uint32_t n = len && buf[len - 1] != '\n';
    for (size_t i = 0; i < len; i++)
        n += buf[i] == '\n';
    free(buf);
    return n;
}

/* Where the file's content before a tool call is kept until after it. */
static char *
snapshot_path(struct hook *h, const char *rel)
{
    uint64_t x = fnv1a_str(FNV1A_INIT, rel);
    return xasprintf(
        "%s/hooks/%s-%016llx", h->dir, h->agent, (unsigned long long)x);
}

#define SNAPSHOT_MAX (4u << 20)

static void
snapshot(struct hook *h, const char *rel)
{
    if (!h->dir)
        return;
    char *full = xasprintf("%s/%s", h->root, rel);
    char *buf;
    size_t len;
    if (file_read_max(full, SNAPSHOT_MAX, false, &buf, &len) == 0) {
        char *d = xasprintf("%s/hooks", h->dir);
        mkdir(d, 0700);
        free(d);
        char *sp = snapshot_path(h, rel);
        struct as_err e;
        file_write_atomic(sp, buf, len, &e);
        free(sp);
        free(buf);
    }
    free(full);
}

/* Lines [*s, *e] of after that differ from before: everything between
 * the common first lines and the common last lines (a pure deletion is
 * the line after it). 0 when nothing changed. */
static int
diff_span(const char *before, size_t blen, const char *after, size_t alen,
    uint32_t *s, uint32_t *e)
{
    size_t p = 0;
    uint32_t line = 1;
    while (p < blen && p < alen && before[p] == after[p]) {
        if (before[p] == '\n')
            line++;
        p++;
    }
    if (p == blen && p == alen)
        return -1;
    /* back to the start of the differing line */
    size_t bs = blen, as = alen;
    while (bs > p && as > p && before[bs - 1] == after[as - 1]) {
        bs--;
        as--;
    }
    uint32_t last = line;
    for (size_t q = p; q < as; q++)
        if (after[q] == '\n' && q + 1 < as)
            last++;
    *s = line;
    *e = last < line ? line : last;
    return 0;
}

/* The span the tool changed, from the snapshot taken before it. */
static int
snapshot_span(struct hook *h, const char *rel, uint32_t *s, uint32_t *e)
{
    if (!h->dir)
        return -1;
    char *sp = snapshot_path(h, rel);
    char *full = xasprintf("%s/%s", h->root, rel);
    char *before = NULL, *after = NULL;
    size_t blen, alen;
    int rc = -1;
    if (file_read_max(sp, SNAPSHOT_MAX, false, &before, &blen) == 0 &&
        file_read_max(full, SNAPSHOT_MAX, false, &after, &alen) == 0)
        rc = diff_span(before, blen, after, alen, s, e);
    unlink(sp);
    free(before);
    free(after);
    free(sp);
    free(full);
    return rc;
}

static void
post_tool(struct hook *h)
{
    char **paths;
    size_t unchecked;
    size_t n = tool_paths(h, &paths, &unchecked);
    json_t *ti = json_object_get(h->in, "tool_input");
    const char *tool = json_string_value(json_object_get(h->in, "tool_name"));
    for (size_t k = 0; k < n; k++) {
        char *full = xasprintf("%s/%s", h->root, paths[k]);
        uint32_t s = 0, e = 0;
        json_t *lines = NULL;
        if (snapshot_span(h, paths[k], &s, &e) == 0) {
            /* the exact span, from the file before and after the tool */
            lines = json_pack("[[I,I]]", (json_int_t)s, (json_int_t)e);
        } else if (tool && !strcmp(tool, "Edit") &&
                   locate(full,
                       json_string_value(json_object_get(ti, "new_string")), &s,
                       &e) == 0) {
            lines = json_pack("[[I,I]]", (json_int_t)s, (json_int_t)e);
        } else if (tool && !strcmp(tool, "Write")) {
            uint32_t nl = count_lines(full);
            if (nl)
                lines = json_pack("[[I,I]]", (json_int_t)1, (json_int_t)nl);
        }
        json_t *body = json_pack("{s:s}", "path", paths[k]);
        if (lines)
            json_object_set_new(body, "lines", lines);
        char *path = xasprintf("/v1/agents/%s/edits", h->agent);
        json_t *r = call(h, "POST", path, body);
        if (r)
            json_decref(r);
        free(path);
        json_decref(body);
        free(full);
        free(paths[k]);
    }
    free(paths);
}

#define APPROACH_MARGIN 5       /* lines: "near" another's change */
#define APPROACH_TELL_MS 600000 /* tell the other again after 10 min */

/* The lines of rel an edit tool call is about to change (where its
 * old_string sits now), or -1 when it is not known (a whole file, a
 * patch, a shell command). */
static int
target_lines(struct hook *h, const char *rel, uint32_t *s, uint32_t *e)
{
    json_t *ti = json_object_get(h->in, "tool_input");
    const char *old = json_string_value(json_object_get(ti, "old_string"));
    json_t *edits = json_object_get(ti, "edits");
    if (!old && json_is_array(edits))
        old = json_string_value(
            json_object_get(json_array_get(edits, 0), "old_string"));
    char *full = xasprintf("%s/%s", h->root, rel);
    int rc = old ? locate(full, old, s, e) : -1;
    free(full);
    return rc;
}

/* Whether this agent did `what` about other and path within the last
 * APPROACH_TELL_MS; records it now. */
static bool
done_lately(
    struct hook *h, const char *what, const char *other, const char *path)
{
    uint64_t x =
        fnv1a_str(fnv1a_byte(fnv1a_str(FNV1A_INIT, other), '\n'), path);
    char *d = xasprintf("%s/crew", h->dir);
    mkdir(d, 0700);
    char *rec =
        xasprintf("%s/%s-%s-%016llx", d, h->agent, what, (unsigned long long)x);
    free(d);
    char *buf;
    size_t len;
    long long at = 0;
    if (file_read_max(rec, 64, false, &buf, &len) == 0) {
        at = atoll(buf);
        free(buf);
    }
    int64_t now = now_ms();
    bool lately = at && now - at < APPROACH_TELL_MS;
    if (!lately) {
        char line[32];
        int n = snprintf(line, sizeof(line), "%lld\n", (long long)now);
        struct as_err e;
        file_write_atomic(rec, line, (size_t)n, &e);
    }
    free(rec);
    return lately;
}

/*
 * Warn on approach: another agent has changed lines of rel within
 * APPROACH_MARGIN of the lines this call is about to change (any of its
 * lines when those are not known). Appends a line for the model to *ctx
 * and tells the other agent once in a while (a message, in its next crew
 * update). The clients show a PreToolUse's context to the model only with
 * the tool's result, after the edit: so the first approach to another's
 * lines in a file sets *hold, and the call is denied once with the
 * warning as its reason (repeating it goes through), unless this agent
 * has right of way over the other. agents is GET /v1/agents?files=1.
 */
/* Whether this agent has right of way over other: it holds a resolution
 * advisory between them (advs: GET /v1/advisories?agent=me). */
static bool
right_of_way(struct hook *h, json_t *advs, const char *other)
{
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(advs, "advisories"), i, a)
    {
        const char *x = str_or(a, "a", ""), *y = str_or(a, "b", "");
        if (!strcmp(str_or(a, "level", ""), "resolution") &&
            !strcmp(str_or(a, "hold", ""), h->agent) &&
            (!strcmp(x, other) || !strcmp(y, other)))
            return true;
    }
    return false;
}

static void
approach(struct hook *h, json_t *agents, json_t *advs, const char *rel,
    struct strbuf *ctx, bool *hold)
{
    uint32_t ts = 0, te = 0;
    bool known = target_lines(h, rel, &ts, &te) == 0;
    size_t i, k, r;
    json_t *a, *f, *rg;
    json_array_foreach(json_object_get(agents, "agents"), i, a)
    {
        const char *id = json_string_value(json_object_get(a, "id"));
        const char *st = json_string_value(json_object_get(a, "status"));
        if (!id || !strcmp(id, h->agent) || (st && !strcmp(st, "exited")))
            continue;
        json_array_foreach(json_object_get(a, "files"), k, f)
        {
            const char *p = json_string_value(json_object_get(f, "path"));
            if (!p || strcmp(p, rel))
                continue;
            struct strbuf near = STRBUF_INIT;
            size_t hits = 0;
            json_array_foreach(json_object_get(f, "lines"), r, rg)
            {
                json_int_t s = json_integer_value(json_array_get(rg, 0));
                json_int_t e = json_integer_value(json_array_get(rg, 1));
                if (known && (e + APPROACH_MARGIN < (json_int_t)ts ||
                                 s > (json_int_t)te + APPROACH_MARGIN))
                    continue;
                if (hits++ < 4)
                    strbuf_addf(&near, "%s%lld-%lld", hits > 1 ? ", " : "",
                        (long long)s, (long long)e);
            }
            bool whole = !json_array_size(json_object_get(f, "lines"));
            if (!hits && !(whole && !known)) {
                free(near.s);
                continue;
            }
            char mine[64] = "";
            if (known)
                snprintf(mine, sizeof(mine),
                    " (you are about to change "
                    "lines %u-%u)",
                    (unsigned)ts, (unsigned)te);
            strbuf_addf(ctx,
                "airspace: traffic: '%s' (%s) has changed %s%s of %s%s. "
                "Coordinate before you edit: message them (airspace msg "
                "%s ...), or work elsewhere.\n",
                id, str_or(a, "client", "?"), hits ? "lines " : "the file",
                hits ? near.s : "", rel, mine, id);
            if (hits && !*hold && !right_of_way(h, advs, id) &&
                !done_lately(h, "held", id, rel))
                *hold = true; /* once: the model reads it before editing */
            if (!done_lately(h, "told", id, rel)) {
                char *body =
                    known
                        ? xasprintf("airspace: '%s' is about to change lines "
                                    "%u-%u of %s, near your change (lines %s)",
                              h->agent, (unsigned)ts, (unsigned)te, rel,
                              hits ? near.s : "whole file")
                        : xasprintf("airspace: '%s' is about to change %s, "
                                    "where you have changed lines %s",
                              h->agent, rel, hits ? near.s : "(whole file)");
                json_t *msg = json_pack("{s:s, s:s, s:s}", "from", h->agent,
                    "to", id, "body", body);
                json_t *rr = call(h, "POST", "/v1/messages", msg);
                if (rr)
                    json_decref(rr);
                json_decref(msg);
                free(body);
            }
            free(near.s);
        }
    }
}

static void
pre_tool(struct hook *h)
{
    char **paths;
    size_t unchecked;
    size_t n = tool_paths(h, &paths, &unchecked);
    char *deny = NULL, *adv = NULL;
    json_t *agents = NULL;
    struct strbuf ctx = STRBUF_INIT;
    json_t *advs = NULL; /* GET /v1/advisories?agent=me, once */
    bool hold = false;
    const char *mode = getenv("AIRSPACE_APPROACH");
    bool tell_only = mode && !strcmp(mode, "tell");
    for (size_t k = 0; k < n; k++) {
        if (!deny && h->connected)
            deny = check_path(h, paths[k], &adv, &advs);
        if (!deny && h->connected) {
            if (!agents)
                agents = call(h, "GET", "/v1/agents?files=1", NULL);
            approach(h, agents, advs, paths[k], &ctx, &hold);
        }
        if (!deny)
            snapshot(h, paths[k]); /* for the exact span afterwards */
        free(paths[k]);
    }
    free(paths);
    if (agents)
        json_decref(agents);
    if (advs)
        json_decref(advs);
    if (adv)
        strbuf_addf(&ctx, "%s\n", adv);
    if (unchecked && !deny) /* say so rather than check a wrong path */
        strbuf_addf(&ctx,
            "airspace: %zu path(s) this command writes were not checked for "
            "locks: written after a cd it cannot follow (to a variable, ~ "
            "or -, inside a condition or loop), or too deep in it to read. "
            "Use absolute paths, or cd to a literal directory, to have "
            "them checked.\n",
            unchecked);
    if (ctx.len && ctx.s[ctx.len - 1] == '\n')
        ctx.s[--ctx.len] = '\0';
    if (hold && !deny && !tell_only)
        deny = xasprintf("%s\nairspace: this call was held once so that you "
                         "see this before you edit; repeat it to edit "
                         "anyway.",
            ctx.s);
    emit(h, deny, deny || !ctx.len ? NULL : ctx.s);
    free(deny);
    free(adv);
    free(ctx.s);
}

/* A heartbeat; a session the daemon does not know registers again. */
static void
heartbeat(struct hook *h)
{
    char *hb = xasprintf("/v1/agents/%s/heartbeat", h->agent);
    json_t *r = call(h, "POST", hb, NULL);
    free(hb);
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
    if (!prompt || !h->connected)
        return NULL;
    /* Gemini CLI puts the context hooks gave it before a headless prompt:
     * not the user's words */
    const char *end = strstr(prompt, "</hook_context>");
    if (!strncmp(prompt, "<hook_context>", 14) && end)
        prompt = end + 15;
    char *pp = xasprintf("/v1/agents/%s/prompt", h->agent);
    json_t *body = json_pack("{s:s}", "prompt", prompt);
    json_t *r = call(h, "POST", pp, body);
    json_decref(body);
    free(pp);
    struct strbuf conv = STRBUF_INIT;
    size_t k;
    json_t *cv;
    json_array_foreach(json_object_get(r, "converging"), k, cv)
    {
        json_t *ts = json_object_get(cv, "topics");
        strbuf_addf(&conv,
            "airspace: your prompts are converging with '%s' on '%s'%s; "
            "declare an intent or message them\n",
            str_or(cv, "agent", "?"), json_string_value(json_array_get(ts, 0)),
            json_array_size(ts) > 1 ? " and more" : "");
    }
    if (r)
        json_decref(r);
    return conv.s;
}

/*
 * SessionStart, a prompt: the crew update (forced at the start of a
 * session, after a compaction and with unread messages; on a prompt only
 * when it changed) and the prompt's convergence lines.
 */
static void
update_crew(struct hook *h, bool forced, bool prompt_ev)
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
    emit(h, NULL, crew);
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
    h.in = raw ? json_loadb(raw, len, 0, &je) : NULL;
    free(raw);
    const char *cwd = json_string_value(json_object_get(h.in, "cwd"));
    h.cwd = realpath(cwd ? cwd : ".", NULL);
    h.root = worktree_root(cwd);
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
    h.agent = named && *named
                  ? xstrdup(named)
                  : session_agent(h.dir, prefix_of(h.d), session, h.root);
    const char *ev = h.event ? h.event : "";
    connect_daemon(&h);
    if (!strcmp(ev, "SessionStart")) {
        register_agent(&h);
        update_crew(&h, true, false);
    } else if (!strcmp(ev, "UserPromptSubmit") || !strcmp(ev, "BeforeAgent")) {
        /* Gemini's BeforeAgent is its UserPromptSubmit */
        heartbeat(&h);
        update_crew(&h, false, true);
    } else if (!strcmp(ev, "PreCompact") || !strcmp(ev, "PreCompress")) {
        /* the update follows the compaction: Claude Code's SessionStart
         * (source "compact") carries it whole; this event takes none */
        heartbeat(&h);
        emit(&h, NULL, NULL);
    } else if (!strcmp(ev, "Stop") || !strcmp(ev, "AfterAgent")) {
        heartbeat(&h); /* the end of a turn: alive, nothing to say */
        emit(&h, NULL, NULL);
    } else if (!strcmp(ev, "PreToolUse") || !strcmp(ev, "BeforeTool")) {
        pre_tool(&h);
    } else if (!strcmp(ev, "PostToolUse") || !strcmp(ev, "AfterTool")) {
        heartbeat(&h);
        post_tool(&h);
        /* messages that came mid-turn reach the model with the tool's
         * result (a headless turn has no prompt to carry them) */
        json_t *unread = h.connected ? inbox(&h, true) : NULL;
        char *msgs = NULL;
        if (json_array_size(json_object_get(unread, "messages")))
            msgs =
                add_messages(&h, xstrdup("airspace: new messages:\n"), unread);
        if (unread)
            json_decref(unread);
        emit(&h, NULL, msgs);
        free(msgs);
    } else if (!strcmp(ev, "SessionEnd")) {
        char *path = xasprintf("/v1/agents/%s/exit", h.agent);
        json_t *r = call(&h, "POST", path, NULL);
        if (r)
            json_decref(r);
        free(path);
        session_forget(h.dir, prefix_of(h.d), session);
        emit(&h, NULL, NULL);
    } else {
        emit(&h, NULL, NULL);
    }
    free(h.sock);
    free(h.dir);
    json_decref(h.in);
    free(h.agent);
    free(h.cwd);
    free(h.root);
    return CLI_EXIT_OK;
}

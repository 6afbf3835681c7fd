/*
 * cmd_hook.c - `airspace hook claude-code|codex|gemini`: one hook call of
 * an agent client. Reads the client's hook JSON on stdin, tells the daemon
 * (register, heartbeat, edits, exit), and answers in the client's dialect:
 * allow, allow with context (traffic, the crew), or deny (a lock held by
 * another agent, or a resolution advisory in which this agent steers).
 *
 * It never hangs or breaks the agent: every daemon call has a deadline
 * (AIRSPACE_HOOK_TIMEOUT_MS, default 500), a daemon that is not running
 * (no socket, or a dead one's) is started in the background and the tool
 * call is allowed with a note, and bad input is allowed with a note. The
 * exit status is always 0, even for bad arguments: 2 would block the call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "broker/sockpath.h"
#include "cli/hook_http.h"
#include "cli/hook_parse.h"
#include "util/error.h"
#include "util/file.h"
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
    char note[512]; /* something to tell the model even on allow */
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

/* "cc-" and the first 8 safe characters of the session id. */
static char *
agent_id(enum dialect d, const char *session)
{
    const char *pre = d == D_CLAUDE ? "cc" : d == D_CODEX ? "codex" : "gemini";
    char id[24];
    size_t k = 0;
    for (const char *s = session ? session : ""; *s && k < 8; s++)
        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
            (*s >= '0' && *s <= '9'))
            id[k++] = *s;
    id[k] = '\0';
    return xasprintf("%s-%s", pre, k ? id : "session");
}

/* ---- output ---- */

static void
emit(struct hook *h, const char *decision, const char *reason,
    const char *context)
{
    json_t *out = json_object();
    char *ctx = NULL;
    if (h->note[0])
        ctx =
            context ? xasprintf("%s\n%s", context, h->note) : xstrdup(h->note);
    else if (context)
        ctx = xstrdup(context);
    json_t *jctx = ctx ? json_string(ctx) : NULL;
    if (ctx && !jctx) /* not UTF-8: say so rather than vanish */
        jctx = json_string("airspace: (the update was not valid UTF-8)");
    if (h->d == D_GEMINI) {
        /* Gemini CLI: a top-level decision and reason; the context for the
         * model in hookSpecificOutput (BeforeAgent, SessionStart,
         * AfterTool), and for the person in systemMessage */
        if (decision && !strcmp(decision, "deny")) {
            json_object_set_new(out, "decision", json_string("deny"));
            json_object_set_new(
                out, "reason", json_string(reason ? reason : ""));
        }
        if (jctx) {
            json_t *hs = json_pack("{s:s, s:O}", "hookEventName",
                h->event ? h->event : "", "additionalContext", jctx);
            json_object_set_new(out, "hookSpecificOutput", hs);
            json_object_set(out, "systemMessage", jctx);
        }
    } else {
        /* Claude Code (and Codex, which takes the same shape) */
        json_t *hs = json_object();
        json_object_set_new(
            hs, "hookEventName", json_string(h->event ? h->event : ""));
        if (decision) {
            json_object_set_new(
                hs, "permissionDecision", json_string(decision));
            if (reason)
                json_object_set_new(
                    hs, "permissionDecisionReason", json_string(reason));
        }
        if (jctx)
            json_object_set(hs, "additionalContext", jctx);
        json_object_set_new(out, "hookSpecificOutput", hs);
    }
    if (jctx)
        json_decref(jctx);
    char *s = json_dumps(out, JSON_COMPACT);
    puts(s);
    free(s);
    free(ctx);
    json_decref(out);
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

/* Start the daemon without waiting for it (a grandchild in its own
 * session); the next hook call will find it. */
static void
spawn_daemon(const char *root)
{
    char *exe = airspace_exe();
    pid_t pid = fork();
    if (pid != 0) {
        if (pid > 0)
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        free(exe);
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
    char *argv[] = { "airspace", "serve", "--repo", (char *)root, NULL };
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
    char *common = broker_common_dir_of(h->root);
    if (!common) {
        snprintf(h->note, sizeof(h->note),
            "airspace: cannot find the git directory of '%s'; not tracked",
            h->root);
        return false;
    }
    h->dir = xasprintf("%s/airspace", common);
    h->sock = broker_socket_path(h->dir, NULL);
    free(common);
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
            spawn_daemon(h->root);
            snprintf(h->note, sizeof(h->note),
                "airspace: the coordination daemon was not running; starting "
                "it (this call is allowed unchecked)");
        } else {
            snprintf(h->note, sizeof(h->note),
                "airspace: the daemon did not answer in time; allowed "
                "unchecked");
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
    json_t *body = json_pack("{s:s, s:s, s:s}", "id", h->agent, "client",
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
    json_t *ag = call(h, "GET", "/v1/agents", NULL);
    json_t *adv = call(h, "GET", "/v1/advisories", NULL);
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
        if (others++ < 8)
            strbuf_addf(&t, "- %s (%s) has %lld changed files\n", id,
                str_or(a, "client", "?"),
                (long long)json_integer_value(json_object_get(a, "fileCount")));
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
    uint64_t hash = 1469598103934665603ULL;
    for (const char *c = text; *c; c++)
        hash = (hash ^ (uint8_t)*c) * 1099511628211ULL;
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
    /* A shell command that obviously writes files (best effort) */
    const char *cmd = json_string_value(json_object_get(ti, "command"));
    if ((!strcmp(tool, "Bash") || !strcmp(tool, "run_shell_command") ||
            !strcmp(tool, "shell")) &&
        cmd) {
        char **raw;
        size_t n = hook_shell_scan(cmd, &raw, unchecked), k = 0;
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
    /* Codex: apply_patch carries the patch text */
    const char *patch = json_string_value(json_object_get(ti, "input"));
    if (!patch)
        patch = json_string_value(json_object_get(ti, "patch"));
    if (!strcmp(tool, "apply_patch") && patch) {
        char **raw;
        size_t n = hook_patch_paths(patch, &raw), k = 0;
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
    return 0;
}

/* Deny when another agent holds the path, or when I steer a resolution
 * contesting it; returns the reason (new string) or NULL. Traffic adds to
 * *ctx. */
static char *
check_path(struct hook *h, const char *path, char **ctx)
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
    char *apath = xasprintf("/v1/advisories?agent=%s", h->agent);
    json_t *adv = call(h, "GET", apath, NULL);
    free(apath);
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
    if (adv)
        json_decref(adv);
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
    uint64_t x = 1469598103934665603ULL;
    for (const char *c = rel; *c; c++)
        x = (x ^ (uint8_t)*c) * 1099511628211ULL;
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

static void
pre_tool(struct hook *h)
{
    char **paths;
    size_t unchecked;
    size_t n = tool_paths(h, &paths, &unchecked);
    char *deny = NULL, *ctx = NULL;
    for (size_t k = 0; k < n; k++) {
        if (!deny && h->connected)
            deny = check_path(h, paths[k], &ctx);
        if (!deny)
            snapshot(h, paths[k]); /* for the exact span afterwards */
        free(paths[k]);
    }
    free(paths);
    if (unchecked && !deny) { /* say so rather than check a wrong path */
        char *note = xasprintf(
            "airspace: %zu path(s) this command writes were not checked for "
            "locks: written after a cd it cannot follow (to a variable, ~ "
            "or -, inside a condition or loop), or too deep in it to read. "
            "Use absolute paths, or cd to a literal directory, to have "
            "them checked.",
            unchecked);
        char *all = ctx ? xasprintf("%s\n%s", ctx, note) : xstrdup(note);
        free(ctx);
        free(note);
        ctx = all;
    }
    if (deny)
        emit(h, "deny", deny, NULL);
    else
        emit(h, "allow", NULL, ctx);
    free(deny);
    free(ctx);
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
    if (!json_is_object(h.in)) {
        snprintf(h.note, sizeof(h.note),
            "airspace: could not read the hook input; allowed unchecked");
        emit(&h, NULL, NULL, NULL);
        if (h.in)
            json_decref(h.in);
        return CLI_EXIT_OK;
    }
    h.event = json_string_value(json_object_get(h.in, "hook_event_name"));
    h.agent =
        agent_id(h.d, json_string_value(json_object_get(h.in, "session_id")));
    const char *cwd = json_string_value(json_object_get(h.in, "cwd"));
    h.cwd = realpath(cwd ? cwd : ".", NULL);
    h.root = worktree_root(cwd);
    const char *ev = h.event ? h.event : "";
    connect_daemon(&h);
    /* Gemini's BeforeAgent is its UserPromptSubmit */
    bool prompt_ev =
        !strcmp(ev, "UserPromptSubmit") || !strcmp(ev, "BeforeAgent");
    if (!strcmp(ev, "SessionStart") || prompt_ev || !strcmp(ev, "PreCompact") ||
        !strcmp(ev, "PreCompress")) {
        bool start = !strcmp(ev, "SessionStart");
        if (start) {
            register_agent(&h);
        } else {
            char *hb = xasprintf("/v1/agents/%s/heartbeat", h.agent);
            json_t *r = call(&h, "POST", hb, NULL);
            free(hb);
            if (r)
                json_decref(r);
            else if (h.connected)
                register_agent(&h); /* a session the daemon does not know */
        }
        /* the prompt's topics: converging with someone is said every time */
        char *conv = NULL;
        const char *prompt = json_string_value(json_object_get(h.in, "prompt"));
        if (prompt && h.connected) {
            char *pp = xasprintf("/v1/agents/%s/prompt", h.agent);
            json_t *body = json_pack("{s:s}", "prompt", prompt);
            json_t *r = call(&h, "POST", pp, body);
            json_decref(body);
            free(pp);
            size_t k;
            json_t *cv;
            json_array_foreach(json_object_get(r, "converging"), k, cv)
            {
                json_t *ts = json_object_get(cv, "topics");
                char *line = xasprintf("airspace: your prompts are "
                                       "converging with '%s' on '%s'%s; "
                                       "declare an intent or message them\n",
                    json_string_value(json_object_get(cv, "agent")),
                    json_string_value(json_array_get(ts, 0)),
                    json_array_size(ts) > 1 ? " and more" : "");
                char *joined = conv ? xasprintf("%s%s", conv, line) : line;
                if (conv) {
                    free(conv);
                    free(line);
                }
                conv = joined;
            }
            if (r)
                json_decref(r);
        }
        char *crew = h.connected ? crew_status(&h) : NULL;
        json_t *unread = h.connected ? inbox(&h, true) : NULL;
        size_t nmsg = json_array_size(json_object_get(unread, "messages"));
        if (crew && !h.connected) { /* a partial picture: say nothing */
            free(crew);
            crew = NULL;
        }
        if (crew)
            crew = cap_lines(crew);
        /* the whole update at the start, after compaction (the model lost
         * it) and with unread messages; on a prompt only when it changed */
        if (crew && !crew_due(&h, crew, !prompt_ev || nmsg > 0)) {
            free(crew);
            crew = NULL;
        }
        /* the messages whole, past the line cap, and read only now */
        if (crew && nmsg)
            crew = add_messages(&h, crew, unread);
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
        emit(&h, NULL, NULL, crew);
        free(crew);
    } else if (!strcmp(ev, "PreToolUse") || !strcmp(ev, "BeforeTool")) {
        /* two round trips only: the lock check and my advisories (the
         * session registered at its start; edits keep it alive) */
        pre_tool(&h);
    } else if (!strcmp(ev, "PostToolUse") || !strcmp(ev, "AfterTool")) {
        char *hb = xasprintf("/v1/agents/%s/heartbeat", h.agent);
        json_t *r = call(&h, "POST", hb, NULL);
        free(hb);
        if (r)
            json_decref(r);
        else if (h.connected)
            register_agent(&h); /* a session the daemon does not know */
        post_tool(&h);
        emit(&h, NULL, NULL, NULL);
    } else if (!strcmp(ev, "SessionEnd")) {
        char *path = xasprintf("/v1/agents/%s/exit", h.agent);
        json_t *r = call(&h, "POST", path, NULL);
        if (r)
            json_decref(r);
        free(path);
        emit(&h, NULL, NULL, NULL);
    } else {
        emit(&h, NULL, NULL, NULL);
    }
    free(h.sock);
    free(h.dir);
    json_decref(h.in);
    free(h.agent);
    free(h.cwd);
    free(h.root);
    return CLI_EXIT_OK;
}

/*
 * init_config.c - merge and unmerge airspace's entries in client settings.
 */
#include "cli/init_config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define GIT_HOOK_MARK "# airspace-hook:"

struct hook_spec {
    const char *event;
    const char *matcher; /* NULL: every occurrence of the event */
    int timeout;         /* seconds; Gemini takes milliseconds */
};

#define CLAUDE_TOOLS "Edit|Write|MultiEdit|NotebookEdit|Bash"
static const struct hook_spec claude_hooks[] = {
    { "SessionStart", NULL, 10 },
    { "UserPromptSubmit", NULL, 5 },
    { "PreToolUse", CLAUDE_TOOLS, 5 },
    { "PostToolUse", CLAUDE_TOOLS, 5 },
    { "PreCompact", NULL, 5 },
    { "SessionEnd", NULL, 10 },
    { "Stop", NULL, 5 },
};

/* Codex names its tools differently across versions: every tool goes to
 * the hook, which ignores the ones that do not write. It allows a
 * session's end at most 3 s. */
static const struct hook_spec codex_hooks[] = {
    { "SessionStart", NULL, 10 },
    { "UserPromptSubmit", NULL, 5 },
    { "PreToolUse", NULL, 5 },
    { "PostToolUse", NULL, 5 },
    { "PreCompact", NULL, 5 },
    { "Stop", NULL, 5 },
    { "SessionEnd", NULL, 3 },
};

#define GEMINI_TOOLS "write_file|replace|run_shell_command"
static const struct hook_spec gemini_hooks[] = {
    { "SessionStart", NULL, 10 },
    { "BeforeAgent", NULL, 5 },
    { "BeforeTool", GEMINI_TOOLS, 5 },
    { "AfterTool", GEMINI_TOOLS, 5 },
    { "PreCompress", NULL, 5 },
    { "SessionEnd", NULL, 10 },
};

/* The name of a client as `airspace hook` takes it ("claude-code", ...). */
static const char *
init_client_name(enum init_client c)
{
    switch (c) {
    case INIT_CLAUDE_CODE:
        return "claude-code";
    case INIT_CODEX:
        return "codex";
    case INIT_GEMINI:
        return "gemini";
    }
    return "?";
}

char *
init_on_path(const char *name)
{
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        if (n && p[0] == '/') {
            char *cand = xasprintf("%.*s/%s", (int)n, p, name);
            char *real = access(cand, X_OK) == 0 ? realpath(cand, NULL) : NULL;
            free(cand);
            if (real)
                return real;
        }
        p = colon ? colon + 1 : NULL;
    }
    return NULL;
}

/* bin quoted for a POSIX shell when it needs it (new string, free()). */
static char *
init_shell_quote(const char *bin)
{
    bool plain = *bin != '\0';
    for (const char *p = bin; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789/._-+@:",
                *p))
            plain = false;
    if (plain)
        return xstrdup(bin);
    size_t n = 2;
    for (const char *p = bin; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *q = xmalloc(n + 1), *w = q;
    *w++ = '\'';
    for (const char *p = bin; *p; p++) {
        if (*p == '\'') {
            memcpy(w, "'\\''", 4);
            w += 4;
        } else {
            *w++ = *p;
        }
    }
    *w++ = '\'';
    *w = '\0';
    return q;
}

static int
load(const char *old, const char *file, json_t **root, struct as_err *e)
{
    size_t i = 0;
    while (old && (old[i] == ' ' || old[i] == '\n' || old[i] == '\t' ||
                      old[i] == '\r'))
        i++;
    if (!old || !old[i]) {
        *root = json_object();
        return 0;
    }
    json_error_t je;
    *root = json_loads(old, JSON_PRESERVE_ORDER, &je);
    if (!*root || !json_is_object(*root)) {
        if (*root)
            json_decref(*root);
        *root = NULL;
        return as_errorf(e, AS_EPARSE,
            "cannot merge into '%s': not a JSON object (%s, line %d)", file,
            je.text, je.line);
    }
    return 0;
}

/* The next number of JSON text at or after *p, outside strings: its start
 * and length; false when there is none. */
static bool
next_number(const char **p, const char **start, size_t *len)
{
    const char *s = *p;
    while (*s) {
        if (*s == '"') {
            for (s++; *s && *s != '"'; s++)
                if (*s == '\\' && s[1])
                    s++;
            if (*s)
                s++;
        } else if (*s == '-' || (*s >= '0' && *s <= '9')) {
            *start = s;
            while (*s && strchr("0123456789+-.eE", *s))
                s++;
            *len = (size_t)(s - *start);
            *p = s;
            return true;
        } else {
            s++;
        }
    }
    *p = s;
    return false;
}

static bool
is_real(const char *t, size_t n)
{
    return memchr(t, '.', n) || memchr(t, 'e', n) || memchr(t, 'E', n);
}

/* Whether two number texts are the very same double (the sign of a zero
 * included). */
static bool
same_real(const char *a, size_t an, const char *b, size_t bn)
{
    char x[64], y[64];
    if (an >= sizeof(x) || bn >= sizeof(y))
        return false;
    memcpy(x, a, an);
    x[an] = '\0';
    memcpy(y, b, bn);
    y[bn] = '\0';
    double dx = strtod(x, NULL), dy = strtod(y, NULL);
    return dx == dy && signbit(dx) == signbit(dy);
}

/*
 * dumped with each real number spelled as in old (new string). jansson
 * prints reals with 17 digits (0.1 becomes 0.10000000000000001); the same
 * value the user wrote reads better as the user wrote it. What init adds
 * or takes out holds no real, so the reals of dumped are those of old in
 * the same order; a number is only ever replaced by one of equal value.
 */
static char *
keep_numbers(const char *old, const char *dumped)
{
    struct strbuf b = STRBUF_INIT;
    const char *in = old ? old : "", *out = dumped, *copied = dumped;
    const char *ot, *it;
    size_t on, in_n;
    while (next_number(&out, &ot, &on)) {
        if (!is_real(ot, on))
            continue;
        for (const char *scan = in; next_number(&scan, &it, &in_n);) {
            if (is_real(it, in_n) && same_real(ot, on, it, in_n)) {
                strbuf_addf(
                    &b, "%.*s%.*s", (int)(ot - copied), copied, (int)in_n, it);
                copied = out;
                in = scan;
                break;
            }
        }
    }
    strbuf_addf(&b, "%s", copied);
    return b.s;
}

static char *
dump(json_t *root, const char *old)
{
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    char *kept = keep_numbers(old, s);
    char *out = xasprintf("%s\n", kept);
    free(kept);
    free(s);
    return out;
}

/* The object under key, created when missing; NULL when it is not one. */
static json_t *
child_object(json_t *parent, const char *key)
{
    json_t *o = json_object_get(parent, key);
    if (!o) {
        o = json_object();
        json_object_set_new(parent, key, o);
    }
    return json_is_object(o) ? o : NULL;
}

/*
 * command with its first word unquoted as a POSIX shell would (new string),
 * so that a quoted install path reads as the path; *word is the length of
 * that first word. NULL when the quoting is unbalanced.
 */
static char *
unquote_first_word(const char *command, size_t *word)
{
    size_t n = strlen(command);
    char *out = xmalloc(n + 1), *w = out;
    const char *p = command;
    while (*p && *p != ' ' && *p != '\t') {
        if (*p == '\'') {
            const char *end = strchr(p + 1, '\'');
            if (!end)
                goto out_bad;
            memcpy(w, p + 1, (size_t)(end - p - 1));
            w += end - p - 1;
            p = end + 1;
        } else if (*p == '"') {
            for (p++; *p != '"'; p++) {
                if (!*p)
                    goto out_bad;
                if (*p == '\\' && p[1] && strchr("$`\"\\\n", p[1]))
                    p++;
                *w++ = *p;
            }
            p++;
        } else if (*p == '\\' && p[1]) {
            *w++ = p[1];
            p += 2;
        } else {
            *w++ = *p++;
        }
    }
    if (word)
        *word = (size_t)(w - out);
    memcpy(w, p, strlen(p) + 1);
    return out;
out_bad:
    free(out);
    return NULL;
}

/* The program command runs (new string, free()), or NULL for unbalanced
 * quoting. */
static char *
init_command_program(const char *command)
{
    size_t n;
    char *plain = command ? unquote_first_word(command, &n) : NULL;
    if (plain)
        plain[n] = '\0';
    return plain;
}

bool
init_program_gone(const char *prog)
{
    if (strchr(prog, '/'))
        return access(prog, X_OK) != 0;
    char *found = init_on_path(prog);
    free(found);
    return !found;
}

/* Whether the program command runs is one of gone (NULL-terminated, or
 * NULL for none). */
static bool
runs_gone(const char *command, const char *const *gone)
{
    char *prog = gone ? init_command_program(command) : NULL;
    bool hit = false;
    for (size_t i = 0; prog && gone[i] && !hit; i++)
        hit = !strcmp(prog, gone[i]);
    free(prog);
    return hit;
}

/* Whether command runs `airspace hook <client>` (any install path). */
static bool
command_is_ours(const char *command, const char *client)
{
    if (!command || !strstr(command, "airspace"))
        return false;
    char *plain = unquote_first_word(command, NULL);
    if (!plain)
        return false;
    /* `airspace hook CLIENT` or the lean `airspace-hook CLIENT` */
    char *tail = xasprintf(" hook %s", client);
    char *lean = xasprintf("airspace-hook %s", client);
    size_t n = strlen(plain), t = strlen(tail), l = strlen(lean);
    bool ours = (n > t && !strcmp(plain + n - t, tail)) ||
                (n >= l && !strcmp(plain + n - l, lean));
    free(tail);
    free(lean);
    free(plain);
    return ours;
}

/* The first hook of the event's groups that runs airspace's hook for
 * client (borrowed from groups), or NULL. */
static json_t *
event_ours(json_t *groups, const char *client)
{
    size_t i, k;
    json_t *g, *h;
    json_array_foreach(groups, i, g)
    {
        json_array_foreach(json_object_get(g, "hooks"), k, h)
        {
            const char *cmd = json_string_value(json_object_get(h, "command"));
            if (command_is_ours(cmd, client))
                return h;
        }
    }
    return NULL;
}

/* The command of event_ours(), or NULL. */
static const char *
event_command(json_t *groups, const char *client)
{
    return json_string_value(
        json_object_get(event_ours(groups, client), "command"));
}

bool
init_has_hooks(const char *text, enum init_client c)
{
    json_t *root = text ? json_loads(text, 0, NULL) : NULL;
    const char *event;
    json_t *groups;
    bool ours = false;
    json_object_foreach(json_object_get(root, "hooks"), event, groups)
    {
        if (event_ours(groups, init_client_name(c)))
            ours = true;
    }
    if (root)
        json_decref(root);
    return ours;
}

/* Add mcpServers.airspace; an entry of init's own shape whose program is
 * gone gets this binary instead. */
static int
merge_mcp_entry(json_t *root, const char *file, const char *bin,
    const char *const *gone, bool *changed, struct as_err *e)
{
    json_t *servers = child_object(root, "mcpServers");
    if (!servers)
        return as_errorf(
            e, AS_EPARSE, "'%s': 'mcpServers' is not an object", file);
    json_t *have = json_object_get(servers, "airspace");
    if (have) {
        json_t *args = json_object_get(have, "args");
        const char *cmd = json_string_value(json_object_get(have, "command"));
        if (cmd && json_object_size(have) == 2 && json_array_size(args) == 1 &&
            json_is_string(json_array_get(args, 0)) &&
            !strcmp(json_string_value(json_array_get(args, 0)), "mcp") &&
            strcmp(cmd, bin) && runs_gone(cmd, gone)) {
            json_object_set_new(have, "command", json_string(bin));
            *changed = true;
        }
        return 0;
    }
    json_object_set_new(servers, "airspace",
        json_pack("{s:s, s:[s]}", "command", bin, "args", "mcp"));
    *changed = true;
    return 0;
}

static int
finish(json_t *root, const char *old, bool changed, char **out)
{
    *out = changed || !old ? dump(root, old) : xstrdup(old);
    json_decref(root);
    return 0;
}

int
init_merge_hooks(const char *old, const char *file, enum init_client c,
    const char *bin, const char *like, bool mcp, const char *const *gone,
    char **out, struct as_err *e)
{
    *out = NULL;
    json_t *root;
    int rc = load(old, file, &root, e);
    if (rc)
        return rc;
    /* a file the client refuses runs nothing: nothing to match there */
    json_t *twin = like ? json_loads(like, 0, NULL) : NULL;
    json_t *twin_hooks = json_object_get(twin, "hooks");
    const struct hook_spec *specs = claude_hooks;
    size_t n = sizeof(claude_hooks) / sizeof(claude_hooks[0]);
    if (c == INIT_CODEX) {
        specs = codex_hooks;
        n = sizeof(codex_hooks) / sizeof(codex_hooks[0]);
    } else if (c == INIT_GEMINI) {
        specs = gemini_hooks;
        n = sizeof(gemini_hooks) / sizeof(gemini_hooks[0]);
    }
    const char *client = init_client_name(c);
    /* The lean airspace-hook beside the binary answers hooks about 8 ms
     * faster (docs/hooks.md); else the binary's own `hook` command. */
    char *lean = NULL;
    const char *slash = strrchr(bin, '/');
    if (!slash) { /* bin is found on $PATH: so must the lean one be */
        char *found = init_on_path("airspace-hook");
        lean = found ? xstrdup("airspace-hook") : NULL;
        free(found);
    } else {
        lean = xasprintf("%.*s/airspace-hook", (int)(slash - bin), bin);
        if (access(lean, X_OK) != 0) {
            free(lean);
            lean = NULL;
        }
    }
    char *qbin = init_shell_quote(lean ? lean : bin);
    char *command = lean ? xasprintf("%s %s", qbin, client)
                         : xasprintf("%s hook %s", qbin, client);
    free(qbin);
    free(lean);
    bool changed = false;
    json_t *hooks = child_object(root, "hooks");
    if (!hooks) {
        rc = as_errorf(e, AS_EPARSE, "'%s': 'hooks' is not an object", file);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *groups = json_object_get(hooks, specs[i].event);
        if (!groups) {
            groups = json_array();
            json_object_set_new(hooks, specs[i].event, groups);
        }
        if (!json_is_array(groups)) {
            rc = as_errorf(e, AS_EPARSE, "'%s': hooks.%s is not an array", file,
                specs[i].event);
            goto out;
        }
        const char *same =
            event_command(json_object_get(twin_hooks, specs[i].event), client);
        if (same && runs_gone(same, gone))
            same = NULL;
        json_t *mine = event_ours(groups, client);
        if (mine) {
            /* A command init wrote for a binary that is gone is updated
             * in place; any other is left as it is. */
            const char *cmd =
                json_string_value(json_object_get(mine, "command"));
            if (runs_gone(cmd, gone)) {
                json_object_set_new(
                    mine, "command", json_string(same ? same : command));
                changed = true;
            }
            continue;
        }
        json_t *h = json_pack(
            "{s:s, s:s}", "type", "command", "command", same ? same : command);
        if (c == INIT_GEMINI) {
            json_object_set_new(h, "name", json_string("airspace"));
            json_object_set_new(
                h, "timeout", json_integer(specs[i].timeout * 1000));
        } else {
            json_object_set_new(h, "timeout", json_integer(specs[i].timeout));
        }
        json_t *g = json_object();
        if (specs[i].matcher)
            json_object_set_new(g, "matcher", json_string(specs[i].matcher));
        json_object_set_new(g, "hooks", json_pack("[o]", h));
        json_array_append_new(groups, g);
        changed = true;
    }
    if (mcp && (rc = merge_mcp_entry(root, file, bin, gone, &changed, e)))
        goto out;
out:
    free(command);
    if (twin)
        json_decref(twin);
    if (rc) {
        json_decref(root);
        return rc;
    }
    return finish(root, old, changed, out);
}

int
init_merge_mcp(const char *old, const char *file, const char *bin,
    const char *const *gone, char **out, struct as_err *e)
{
    *out = NULL;
    json_t *root;
    int rc = load(old, file, &root, e);
    if (rc)
        return rc;
    bool changed = false;
    if ((rc = merge_mcp_entry(root, file, bin, gone, &changed, e))) {
        json_decref(root);
        return rc;
    }
    return finish(root, old, changed, out);
}

int
init_unmerge_json(const char *old, const char *orig, const char *file,
    char **out, bool *empty, bool *changed, struct as_err *e)
{
    *out = NULL;
    *changed = false;
    json_t *root;
    int rc = load(old, file, &root, e);
    if (rc)
        return rc;
    /* What was there before init is the user's, airspace's or not. */
    json_t *before = orig ? json_loads(orig, 0, NULL) : NULL;
    json_t *before_hooks = json_object_get(before, "hooks");
    static const char *const clients[] = { "claude-code", "codex", "gemini",
        NULL };
    json_t *hooks = json_object_get(root, "hooks");
    const char *event;
    json_t *groups, *tmp;
    json_object_foreach_safe(hooks, tmp, event, groups)
    {
        json_t *had = json_object_get(before_hooks, event);
        bool took_here = false;
        for (size_t i = json_array_size(groups); i-- > 0;) {
            json_t *g = json_array_get(groups, i);
            json_t *hs = json_object_get(g, "hooks");
            bool took = false;
            for (size_t k = json_array_size(hs); k-- > 0;) {
                const char *cmd = json_string_value(
                    json_object_get(json_array_get(hs, k), "command"));
                for (size_t c = 0; clients[c]; c++)
                    if (command_is_ours(cmd, clients[c]) &&
                        !event_ours(had, clients[c])) {
                        json_array_remove(hs, k);
                        took = true;
                        break;
                    }
            }
            if (took && !json_array_size(hs))
                json_array_remove(groups, i);
            took_here = took_here || took;
        }
        if (took_here && !json_array_size(groups))
            json_object_del(hooks, event);
        *changed = *changed || took_here;
    }
    if (*changed && !json_object_size(hooks))
        json_object_del(root, "hooks");
    json_t *servers = json_object_get(root, "mcpServers");
    if (json_is_object(servers) && json_object_get(servers, "airspace") &&
        !json_object_get(json_object_get(before, "mcpServers"), "airspace")) {
        json_object_del(servers, "airspace");
        if (!json_object_size(servers))
            json_object_del(root, "mcpServers");
        *changed = true;
    }
    *empty = json_object_size(root) == 0;
    *out = *changed ? dump(root, old) : xstrdup(old);
    json_decref(root);
    if (before)
        json_decref(before);
    return 0;
}

/* Gemini CLI reads a project's settings only from the directory it starts
 * in, never from a parent (its loadSettings() takes the working
 * directory); only the user's and the system's settings reach further. */
char *
init_gemini_note(const char *top)
{
    return xasprintf("start Gemini CLI at the worktree's top (%s): it "
                     "reads .gemini/settings.json only where it starts, so "
                     "started in a subdirectory it runs no airspace hook and "
                     "locks are not enforced",
        top);
}

static char *
toml_string(const char *s)
{
    size_t n = 2;
    for (const char *p = s; *p; p++)
        n += (*p == '"' || *p == '\\') ? 2 : 1;
    char *q = xmalloc(n + 1), *w = q;
    *w++ = '"';
    for (const char *p = s; *p; p++) {
        if (*p == '"' || *p == '\\')
            *w++ = '\\';
        *w++ = *p;
    }
    *w++ = '"';
    *w = '\0';
    return q;
}

/*
 * Where config.toml may already define mcp_servers.airspace: a table
 * header ([mcp_servers.airspace], spaced or quoted), dotted keys
 * (mcp_servers.airspace.command = ...) or an inline table (airspace = {...}
 * under [mcp_servers], or mcp_servers = {...}). The scan reads keys and
 * skips values (strings, arrays and inline tables over several lines); it
 * keeps only the first two parts of a key, all it compares.
 */
struct toml_key {
    int n;
    char part[2][16]; /* "" for a part too long to be ours */
};

struct toml_scan {
    const char *p;
    bool bad;  /* something the scan does not understand */
    bool ours; /* mcp_servers.airspace is defined */
};

static void
toml_ws(struct toml_scan *t)
{
    while (*t->p == ' ' || *t->p == '\t')
        t->p++;
}

/* Blanks, newlines and comments. */
static void
toml_ws_nl(struct toml_scan *t)
{
    for (;;) {
        toml_ws(t);
        if (*t->p == '#')
            t->p += strcspn(t->p, "\n");
        if (*t->p != '\n' && *t->p != '\r')
            return;
        t->p++;
    }
}

static void
toml_key_add(struct toml_key *k, const char *s, size_t n)
{
    if (k->n < 2) {
        if (n < sizeof(k->part[0])) {
            memcpy(k->part[k->n], s, n);
            k->part[k->n][n] = '\0';
        } else {
            k->part[k->n][0] = '\0';
        }
    }
    k->n++;
}

/* One part of a key: bare, "basic" (simple escapes) or 'literal'. */
static void
toml_key_part(struct toml_scan *t, struct toml_key *k)
{
    char buf[16];
    size_t n = 0;
    bool fits = true;
    const char *s = t->p;
    if (*s == '"' || *s == '\'') {
        char q = *s++;
        for (; *s && *s != q && *s != '\n'; s++) {
            if (q == '"' && *s == '\\' && s[1])
                s++;
            if (n < sizeof(buf) - 1)
                buf[n++] = *s;
            else
                fits = false;
        }
        if (*s != q) {
            t->bad = true;
            return;
        }
        s++;
    } else {
        for (; *s && (strchr("_-", *s) || (*s >= 'a' && *s <= 'z') ||
                         (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9'));
             s++) {
            if (n < sizeof(buf) - 1)
                buf[n++] = *s;
            else
                fits = false;
        }
        if (s == t->p) {
            t->bad = true;
            return;
        }
    }
    t->p = s;
    toml_key_add(k, buf, fits ? n : sizeof(buf));
}

static void
toml_key(struct toml_scan *t, struct toml_key *k)
{
    for (;;) {
        toml_ws(t);
        toml_key_part(t, k);
        toml_ws(t);
        if (t->bad || *t->p != '.')
            return;
        t->p++;
    }
}

static bool
toml_key_ours(const struct toml_key *k)
{
    return k->n >= 2 && !strcmp(k->part[0], "mcp_servers") &&
           !strcmp(k->part[1], "airspace");
}

static void toml_value(struct toml_scan *t, const struct toml_key *at);

/* key = value, the key taken below the table at. */
static void
toml_keyval(struct toml_scan *t, const struct toml_key *at)
{
    struct toml_key k = *at;
    toml_key(t, &k);
    if (t->bad || *t->p != '=') {
        t->bad = true;
        return;
    }
    t->p++;
    toml_ws(t);
    /* mcp_servers itself as an inline table cannot take another table */
    if (toml_key_ours(&k) ||
        (k.n == 1 && !strcmp(k.part[0], "mcp_servers") && *t->p == '{'))
        t->ours = true;
    toml_value(t, &k);
}

/* Skip a string; multi-line ones end at three quotes (and up to two more
 * quotes belonging to the string). */
static void
toml_string_skip(struct toml_scan *t)
{
    char q = *t->p;
    bool multi = t->p[1] == q && t->p[2] == q;
    const char *s = t->p + (multi ? 3 : 1);
    for (;; s++) {
        if (!*s || (!multi && *s == '\n')) {
            t->bad = true;
            return;
        }
        if (q == '"' && *s == '\\' && s[1]) {
            s++;
        } else if (*s == q && (!multi || (s[1] == q && s[2] == q))) {
            s += multi ? 3 : 1;
            for (int extra = 0; multi && extra < 2 && *s == q; extra++)
                s++;
            t->p = s;
            return;
        }
    }
}

static void
toml_value(struct toml_scan *t, const struct toml_key *at)
{
    if (*t->p == '"' || *t->p == '\'') {
        toml_string_skip(t);
    } else if (*t->p == '[' || *t->p == '{') {
        char close = *t->p == '[' ? ']' : '}';
        t->p++;
        for (;;) {
            toml_ws_nl(t);
            if (*t->p == close) {
                t->p++;
                return;
            }
            if (close == ']')
                toml_value(t, at);
            else
                toml_keyval(t, at);
            toml_ws_nl(t);
            if (t->bad)
                return;
            if (*t->p == ',')
                t->p++;
            else if (*t->p != close)
                t->bad = true;
        }
    } else {
        /* numbers, booleans, dates (which may hold a space) */
        size_t n = strcspn(t->p, ",]}#\r\n");
        if (!n)
            t->bad = true;
        t->p += n;
    }
}

bool
init_toml_has_airspace(const char *text)
{
    struct toml_scan t = { text ? text : "", false, false };
    struct toml_key table = { 0 };
    for (;;) {
        toml_ws_nl(&t);
        if (!*t.p || t.bad)
            break;
        if (*t.p == '[') {
            bool array = t.p[1] == '[';
            t.p += array ? 2 : 1;
            table.n = 0;
            toml_key(&t, &table);
            if (*t.p != ']' || (array && t.p[1] != ']'))
                t.bad = true;
            else
                t.p += array ? 2 : 1;
            if (toml_key_ours(&table))
                t.ours = true;
        } else {
            toml_keyval(&t, &table);
        }
        toml_ws(&t);
        if (*t.p == '#')
            t.p += strcspn(t.p, "\n");
        if (*t.p && *t.p != '\n' && *t.p != '\r')
            t.bad = true;
    }
    /* A file the scan cannot read is left alone when it may hold it. */
    if (t.bad && text && strstr(text, "mcp_servers") &&
        strstr(text, "airspace"))
        return true;
    return t.ours;
}

char *
init_codex_toml_block(const char *old, const char *bin)
{
    if (init_toml_has_airspace(old))
        return NULL;
    char *q = toml_string(bin);
    size_t n = old ? strlen(old) : 0;
    char *block = xasprintf("%s%s# added by 'airspace init'; 'airspace init "
                            "--remove' takes it out\n[mcp_servers.airspace]\n"
                            "command = %s\nargs = [\"mcp\"]\n",
        n && old[n - 1] != '\n' ? "\n" : "", n ? "\n" : "", q);
    free(q);
    return block;
}

const char *const init_git_hooks[] = { "pre-commit", "post-commit",
    "reference-transaction", NULL };

#define HOOK_HEAD(name)                                                        \
    "#!/bin/sh\n" GIT_HOOK_MARK " " name " (installed by 'airspace init'; "    \
    "'airspace init --remove' restores what was here)\n"

#define HOOK_CHAIN(then)                                                       \
    "if [ -x \"$0.airspace-chained\" ]; then\n"                                \
    "    \"$0.airspace-chained\" \"$@\" " then "\n"                            \
    "fi\n"

char *
init_git_hook_script(const char *name, const char *bin)
{
    char *q = init_shell_quote(bin), *script;
    /* A hook must not fail every commit once airspace is uninstalled or
     * moved: with the binary gone it does nothing. */
    char *there = strchr(bin, '/')
                      ? xasprintf("[ -x %s ]", q)
                      : xasprintf("command -v %s >/dev/null 2>&1", q);
    if (!strcmp(name, "pre-commit"))
        /* A hook that was here first decides first. */
        script = xasprintf(
            HOOK_HEAD("pre-commit")
                HOOK_CHAIN("|| exit $?") "if ! %s; then\n"
                                         "    printf '%%s %%s %%s\\n' "
                                         "airspace: %s 'is gone: staged files "
                                         "are not checked for locks; run "
                                         "airspace init again where it is "
                                         "now, or airspace init --remove' >&2\n"
                                         "    exit 0\n"
                                         "fi\n"
                                         "exec %s init --git-hook pre-commit\n",
            there, q, q);
    else if (!strcmp(name, "reference-transaction"))
        /* The chained hook reads the ref updates on stdin; its status
         * decides (it may abort a prepared transaction). */
        script = xasprintf(
            HOOK_HEAD("reference-transaction") "status=0\n" HOOK_CHAIN(
                "|| status=$?") "if [ \"$1\" = committed ] && %s; then\n"
                                "    %s init --git-hook "
                                "reference-transaction </dev/null "
                                ">/dev/null 2>&1 || :\n"
                                "fi\n"
                                "exit $status\n",
            there, q);
    else
        script = xasprintf(HOOK_HEAD("post-commit") "status=0\n" HOOK_CHAIN(
                               "|| status=$?") "if %s; then\n"
                                               "    %s init --git-hook "
                                               "post-commit </dev/null "
                                               ">/dev/null 2>&1 || :\n"
                                               "fi\n"
                                               "exit $status\n",
            there, q);
    free(there);
    free(q);
    return script;
}

bool
init_git_hook_is_ours(const char *text)
{
    return text && strstr(text, "\n" GIT_HOOK_MARK " ") != NULL;
}

char *
init_git_hook_program(const char *text)
{
    const char *at = text ? strstr(text, " init --git-hook ") : NULL;
    if (!at)
        return NULL;
    while (at > text && at[-1] != '\n')
        at--;
    while (*at == ' ' || *at == '\t')
        at++;
    if (!strncmp(at, "exec ", 5))
        at += 5;
    return init_command_program(at);
}

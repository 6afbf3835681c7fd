/*
 * init_config.c - merge and unmerge airspace's entries in client settings.
 */
#include "cli/init_config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

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

static char *
dump(json_t *root)
{
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    char *out = xasprintf("%s\n", s);
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
 * so that a quoted install path reads as the path; NULL when the quoting
 * is unbalanced.
 */
static char *
unquote_first_word(const char *command)
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
    memcpy(w, p, strlen(p) + 1);
    return out;
out_bad:
    free(out);
    return NULL;
}

/* Whether command runs `airspace hook <client>` (any install path). */
static bool
command_is_ours(const char *command, const char *client)
{
    if (!command || !strstr(command, "airspace"))
        return false;
    char *plain = unquote_first_word(command);
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

/* The first command of the event's groups that runs airspace's hook for
 * client (borrowed from groups), or NULL. */
static const char *
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
                return cmd;
        }
    }
    return NULL;
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

static int
merge_mcp_entry(json_t *root, const char *file, const char *bin, bool *changed,
    struct as_err *e)
{
    json_t *servers = child_object(root, "mcpServers");
    if (!servers)
        return as_errorf(
            e, AS_EPARSE, "'%s': 'mcpServers' is not an object", file);
    if (json_object_get(servers, "airspace"))
        return 0;
    json_object_set_new(servers, "airspace",
        json_pack("{s:s, s:[s]}", "command", bin, "args", "mcp"));
    *changed = true;
    return 0;
}

static int
finish(json_t *root, const char *old, bool changed, char **out)
{
    *out = changed || !old ? dump(root) : xstrdup(old);
    json_decref(root);
    return 0;
}

int
init_merge_hooks(const char *old, const char *file, enum init_client c,
    const char *bin, const char *like, bool mcp, char **out, struct as_err *e)
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
        if (event_ours(groups, client))
            continue;
        const char *same =
            event_ours(json_object_get(twin_hooks, specs[i].event), client);
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
    if (mcp && (rc = merge_mcp_entry(root, file, bin, &changed, e)))
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
init_merge_mcp(const char *old, const char *file, const char *bin, char **out,
    struct as_err *e)
{
    *out = NULL;
    json_t *root;
    int rc = load(old, file, &root, e);
    if (rc)
        return rc;
    bool changed = false;
    if ((rc = merge_mcp_entry(root, file, bin, &changed, e))) {
        json_decref(root);
        return rc;
    }
    return finish(root, old, changed, out);
}

int
init_unmerge_json(const char *old, const char *file, char **out, bool *empty,
    struct as_err *e)
{
    *out = NULL;
    json_t *root;
    int rc = load(old, file, &root, e);
    if (rc)
        return rc;
    static const char *const clients[] = { "claude-code", "codex", "gemini",
        NULL };
    json_t *hooks = json_object_get(root, "hooks");
    const char *event;
    json_t *groups, *tmp;
    json_object_foreach_safe(hooks, tmp, event, groups)
    {
        for (size_t i = json_array_size(groups); i-- > 0;) {
            json_t *g = json_array_get(groups, i);
            json_t *hs = json_object_get(g, "hooks");
            for (size_t k = json_array_size(hs); k-- > 0;) {
                const char *cmd = json_string_value(
                    json_object_get(json_array_get(hs, k), "command"));
                for (size_t c = 0; clients[c]; c++)
                    if (command_is_ours(cmd, clients[c])) {
                        json_array_remove(hs, k);
                        break;
                    }
            }
            if (json_is_array(hs) && !json_array_size(hs))
                json_array_remove(groups, i);
        }
        if (json_is_array(groups) && !json_array_size(groups))
            json_object_del(hooks, event);
    }
    if (json_is_object(hooks) && !json_object_size(hooks))
        json_object_del(root, "hooks");
    json_t *servers = json_object_get(root, "mcpServers");
    if (json_is_object(servers)) {
        json_object_del(servers, "airspace");
        if (!json_object_size(servers))
            json_object_del(root, "mcpServers");
    }
    *empty = json_object_size(root) == 0;
    *out = dump(root);
    json_decref(root);
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

char *
init_codex_toml_block(const char *old, const char *bin)
{
    for (const char *l = old; l && *l;) {
        while (*l == ' ' || *l == '\t')
            l++;
        if (!strncmp(l, "[mcp_servers.airspace]", 22) ||
            !strncmp(l, "[mcp_servers.\"airspace\"]", 24))
            return NULL;
        l = strchr(l, '\n');
        l = l ? l + 1 : NULL;
    }
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

char *
init_git_hook_script(const char *name, const char *bin)
{
    char *q = init_shell_quote(bin), *script;
    if (!strcmp(name, "pre-commit"))
        /* A hook that was here first decides first. */
        script = xasprintf(
            HOOK_HEAD(
                "pre-commit") "if [ -x \"$0.airspace-chained\" ]; then\n"
                              "    \"$0.airspace-chained\" \"$@\" || exit $?\n"
                              "fi\n"
                              "exec %s init --git-hook pre-commit\n",
            q);
    else if (!strcmp(name, "reference-transaction"))
        /* The chained hook reads the ref updates on stdin; its status
         * decides (it may abort a prepared transaction). */
        script = xasprintf(
            HOOK_HEAD(
                "reference-transaction") "status=0\n"
                                         "if [ -x \"$0.airspace-chained\" ]; "
                                         "then\n"
                                         "    \"$0.airspace-chained\" \"$@\" "
                                         "|| status=$?\n"
                                         "fi\n"
                                         "if [ \"$1\" = committed ]; then\n"
                                         "    %s init --git-hook "
                                         "reference-transaction </dev/null "
                                         ">/dev/null 2>&1 || :\n"
                                         "fi\n"
                                         "exit $status\n",
            q);
    else
        script = xasprintf(
            HOOK_HEAD("post-commit") "status=0\n"
                                     "if [ -x \"$0.airspace-chained\" ]; then\n"
                                     "    \"$0.airspace-chained\" \"$@\" || "
                                     "status=$?\n"
                                     "fi\n"
                                     "%s init --git-hook post-commit "
                                     "</dev/null >/dev/null 2>&1 || :\n"
                                     "exit $status\n",
            q);
    free(q);
    return script;
}

bool
init_git_hook_is_ours(const char *text)
{
    return text && strstr(text, "\n" GIT_HOOK_MARK " ") != NULL;
}

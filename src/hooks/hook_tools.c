/*
 * hook_tools.c - the hook around a tool call: which paths a tool writes
 * (its input, or the commands of a shell tool), whether another agent
 * holds them or this agent must give way, the approach to another agent's
 * changed lines, and afterwards the exact lines each edit changed (a
 * snapshot before, a diff after), reported to the daemon.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "hooks/hook_int.h"
#include "hooks/hook_parse.h"
#include "client/api.h"
#include "util/error.h"
#include "util/file.h"
#include "util/glob.h"
#include "util/hash.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/clock.h"
#include "util/banned.h"

/*
 * Repository-relative path of a file path, absolute or relative to the
 * hook's cwd (as the tool resolves it), or NULL outside the worktree. Its
 * directories are resolved (symlinks, ".."), as the realpath'd root is,
 * and so is the file when it is a link (to the file a write changes); the
 * file itself may not exist yet, nor its last directories.
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
    /* a link to a file: a write through it changes the file it names */
    struct stat lst;
    char *target = NULL;
    if (lstat(full, &lst) == 0 && S_ISLNK(lst.st_mode) &&
        (target = realpath(full, NULL))) {
        free(full);
        full = target;
    }
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

/* At most this many files one shell word may stand for. */
#define HOOK_GLOB_MAX 1000

/*
 * The n words of a shell command (*raw, taken) with every word holding a
 * wildcard replaced by the files it names there, as the shell expands it
 * (`rm` of a pattern writes each file it names: a lock check takes a path as a
 * file's name, never as a pattern), or kept as it is when it names none.
 * Returns the new count.
 */
static size_t
expand_globs(struct hook *h, char ***raw, size_t n)
{
    char **v = *raw, **outv = NULL;
    size_t k = 0, a = 0;
    for (size_t i = 0; i < n; i++) {
        glob_t g;
        char *pat = NULL;
        if (strpbrk(v[i], "*?[")) {
            pat = v[i][0] == '/'
                      ? xstrdup(v[i])
                      : xasprintf("%s/%s", h->cwd ? h->cwd : h->root, v[i]);
        }
        if (pat && glob(pat, GLOB_NOSORT, NULL, &g) == 0) {
            for (size_t m = 0; m < g.gl_pathc && m < HOOK_GLOB_MAX; m++) {
                ALLOC_GROW(outv, k + 1, a);
                outv[k++] = xstrdup(g.gl_pathv[m]);
            }
            globfree(&g);
            free(v[i]);
        } else {
            ALLOC_GROW(outv, k + 1, a);
            outv[k++] = v[i];
        }
        free(pat);
    }
    free(v);
    *raw = outv;
    return k;
}

extern char **environ;

/* Claude Code's, Gemini CLI's and Codex's shell tools. */
static bool
is_shell(const char *tool)
{
    return !strcmp(tool, "Bash") || !strcmp(tool, "run_shell_command") ||
           !strcmp(tool, "shell") || !strcmp(tool, "exec_command") ||
           !strcmp(tool, "local_shell");
}

/* The script of a shell tool call (the last word of Codex's ["bash",
 * "-lc", S]), not a patch; or NULL. */
static const char *
shell_command(struct hook *h)
{
    const char *tool = json_string_value(json_object_get(h->in, "tool_name"));
    json_t *cmdv =
        json_object_get(json_object_get(h->in, "tool_input"), "command");
    const char *cmd = json_string_value(cmdv);
    if (json_is_array(cmdv))
        cmd =
            json_string_value(json_array_get(cmdv, json_array_size(cmdv) - 1));
    if (!tool || !is_shell(tool) || !cmd || strstr(cmd, "*** Begin Patch"))
        return NULL;
    return cmd;
}

/* The directory a tool call runs in when its input names one, absolute
 * (new string), or NULL: Gemini's run_shell_command takes `dir_path`,
 * relative to the cwd it gives the hook (the project's root), and a
 * patch or shell call may carry `workdir` (Codex gives its exec_command's
 * workdir as the hook's cwd instead). */
static char *
call_dir(struct hook *h)
{
    json_t *ti = json_object_get(h->in, "tool_input");
    const char *d = json_string_value(json_object_get(ti, "dir_path"));
    if (!d || !*d)
        d = json_string_value(json_object_get(ti, "workdir"));
    if (!d || !*d)
        return NULL;
    return d[0] == '/' ? xstrdup(d)
                       : xasprintf("%s/%s", h->cwd ? h->cwd : h->root, d);
}

/* Whether the repository-relative path p is under the pathspec pre (a
 * path, or a pattern whose wildcards match across '/' as git's do); ""
 * is the whole worktree. */
static bool
spec_covers(const char *pre, const char *p)
{
    return !*pre || path_within(p, pre) ||
           (strpbrk(pre, "*?[") && fnmatch(pre, p, 0) == 0);
}

/*
 * Of the n paths of worktree wt, those git shows changed as what asks
 * (HOOK_DISCARD_*): `git status` on exactly those paths, without taking
 * the index lock. Sets keep[i]; returns -1 (keep untouched) when git
 * cannot say.
 */
static int
git_changed(const char *wt, char **paths, size_t n, unsigned what, bool *keep)
{
    const char **argv = xcalloc(n + 12, sizeof(*argv));
    size_t k = 0;
    const char *fixed[] = { "git", "--no-optional-locks", "--literal-pathspecs",
        "-C", wt, "status", "--porcelain=v1", "-z", "--untracked-files=all",
        "--no-renames", "--" };
    for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
        argv[k++] = fixed[i];
    for (size_t i = 0; i < n; i++)
        argv[k++] = paths[i];
    int pfd[2];
    if (pipe(pfd) < 0) {
        free(argv);
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    posix_spawn_file_actions_addclose(&fa, pfd[0]);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, "git", &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    free(argv);
    char *out = NULL;
    size_t len = 0, cap = 0;
    if (rc == 0) {
        char buf[4096];
        ssize_t r;
        while ((r = read(pfd[0], buf, sizeof(buf))) > 0 ||
               (r < 0 && errno == EINTR)) {
            if (r <= 0 || len > (16u << 20))
                continue;
            ALLOC_GROW(out, len + (size_t)r + 1, cap);
            memcpy(out + len, buf, (size_t)r);
            len += (size_t)r;
            out[len] = '\0';
        }
    }
    close(pfd[0]);
    int status = 0;
    if (rc == 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    if (rc || !WIFEXITED(status) || WEXITSTATUS(status)) {
        free(out);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        keep[i] = false;
    /* "XY PATH\0" each */
    for (size_t at = 0; at + 3 < len;) {
        const char *e = out + at;
        size_t el = strlen(e);
        bool untracked = e[0] == '?' && e[1] == '?';
        bool ignored = e[0] == '!';
        bool wanted = untracked ? (what & HOOK_DISCARD_UNTRACKED)
                                : !ignored && (what & HOOK_DISCARD_TRACKED);
        for (size_t i = 0; i < n && wanted; i++)
            keep[i] = keep[i] || !strcmp(e + 3, paths[i]);
        at += el + 1;
    }
    free(out);
    return 0;
}

/* Whether word names a branch, a tag or a remote-tracking branch of the
 * repository (loose or packed). */
static bool
names_ref(struct hook *h, const char *word)
{
    if (!h->dir || strstr(word, ".."))
        return false;
    char *common = xstrdup(h->dir);
    char *slash = strrchr(common, '/'); /* h->dir is <common>/airspace */
    if (slash)
        *slash = '\0';
    static const char *const kinds[] = { "refs/heads/", "refs/tags/",
        "refs/remotes/" };
    bool found = false;
    struct stat st;
    for (size_t k = 0; k < 3 && !found; k++) {
        char *loose = xasprintf("%s/%s%s", common, kinds[k], word);
        found = stat(loose, &st) == 0 && S_ISREG(st.st_mode);
        free(loose);
    }
    char *packed = xasprintf("%s/packed-refs", common), *buf = NULL;
    size_t len;
    if (!found && file_read_max(packed, 64u << 20, false, &buf, &len) == 0) {
        for (size_t k = 0; k < 3 && !found; k++) {
            char *line = xasprintf(" %s%s\n", kinds[k], word);
            found = strstr(buf, line) != NULL;
            free(line);
        }
    }
    free(buf);
    free(packed);
    free(common);
    return found;
}

/* The agent's worktree, resolved, or NULL. */
static char *
agent_worktree(json_t *a)
{
    const char *w = json_string_value(json_object_get(a, "worktree"));
    return w ? realpath(w, NULL) : NULL;
}

/* The absolute path of spec (a plain path, as rm names it) from the
 * directory rdir: resolved when it exists, else read lexically. */
static char *
plain_path(const char *rdir, const char *spec)
{
    char *abs = spec[0] == '/' ? xstrdup(spec) : xasprintf("%s/%s", rdir, spec);
    char *real = realpath(abs, NULL), *norm = NULL;
    if (!real && path_normalize(abs, NULL, &norm) == 0) {
        real = xasprintf("/%s", norm);
        free(norm);
    }
    free(abs);
    return real;
}

/*
 * The prefixes (pathspecs of spec_covers) of agent worktree w that the
 * discard d takes, into pre (*npre of them, new strings). A git command's
 * are its pathspecs in the worktree wt it runs in (reldir: where, in it),
 * for the agents of wt only; rm's and `git worktree remove`'s are plain
 * paths, which may name another worktree, or a directory holding it.
 */
static void
discard_prefixes(struct hook *h, const struct hook_discard *d, const char *rdir,
    const char *wt, const char *reldir, const char *w, char ***pre,
    size_t *npre)
{
    *pre = xcalloc(d->nspec + 1, sizeof(**pre));
    *npre = 0;
    if (d->plain) {
        for (size_t s = 0; s < d->nspec; s++) {
            char *abs = plain_path(rdir, d->spec[s]), *p = NULL;
            if (abs && path_within(w, abs)) {
                p = xstrdup(""); /* the whole worktree goes */
            } else if (abs && path_within(abs, w) &&
                       path_normalize(abs, w, &p)) {
                free(p);
                p = NULL;
            }
            if (p)
                (*pre)[(*npre)++] = p;
            free(abs);
        }
        return;
    }
    if (!wt || strcmp(w, wt))
        return;
    if (!d->nspec)
        (*pre)[(*npre)++] = xstrdup("");
    for (size_t s = 0; s < d->nspec; s++) {
        const char *spec = d->spec[s];
        char *p = NULL;
        int rc;
        if (spec[0] == ':')
            rc = spec[1] == '/' ? path_join("", spec + 2, &p) : -1;
        else if (spec[0] == '/')
            rc = path_normalize(spec, wt, &p);
        else
            rc = path_join(reldir, spec, &p);
        if (rc) {
            free(p);
            continue;
        }
        if (d->maybe) {
            /* a word of a checkout: a path if one is there and, for the
             * first, no branch or tag of that name (git switches to it) */
            char *full = xasprintf("%s/%s", wt, p);
            struct stat st;
            bool there =
                lstat(full, &st) == 0 && !(s == 0 && names_ref(h, spec));
            free(full);
            if (!there) {
                free(p);
                continue;
            }
        }
        (*pre)[(*npre)++] = p;
    }
}

/*
 * The uncommitted changes of others that the discard d would throw away:
 * added to why as "'ID' (PATH, PATH)" for each owner. Its owners are the
 * other agents (not exited) and the person at the keyboard of a shared
 * tree, in the worktree git runs in (of the registered agents', the one
 * holding the directory), or, for a plain path (rm), in every worktree it
 * reaches; what the daemon has of theirs is kept only where `git status`
 * shows it changed, of the kind d throws away. Returns how many paths.
 */
static size_t
discard_victims(struct hook *h, const struct hook_discard *d, json_t *agents,
    struct strbuf *why)
{
    char *adir = d->dir[0] == '/'
                     ? xstrdup(d->dir)
                     : xasprintf("%s/%s", h->cwd ? h->cwd : h->root, d->dir);
    char *rdir = realpath(adir, NULL);
    free(adir);
    if (!rdir)
        return 0;
    json_t *list = json_object_get(agents, "agents");
    size_t na = json_array_size(list), i;
    char **wts = xcalloc(na + 1, sizeof(*wts));
    char *wt = NULL;
    json_t *a;
    json_array_foreach(list, i, a)
    {
        wts[i] = agent_worktree(a);
        size_t l = wts[i] ? strlen(wts[i]) : 0;
        if (l && path_within(rdir, wts[i]) && (!wt || l > strlen(wt)))
            wt = wts[i];
    }
    char *reldir = NULL;
    char **cand = NULL;
    size_t ncand = 0, ca = 0, hits = 0;
    size_t *owner = NULL;
    if (wt && path_normalize(rdir, wt, &reldir))
        wt = NULL;
    json_array_foreach(list, i, a)
    {
        const char *id = json_string_value(json_object_get(a, "id"));
        const char *st = json_string_value(json_object_get(a, "status"));
        if (!id || !strcmp(id, h->agent) || (st && !strcmp(st, "exited")) ||
            !wts[i])
            continue;
        char **pre;
        size_t npre;
        discard_prefixes(h, d, rdir, wt, reldir, wts[i], &pre, &npre);
        size_t k;
        json_t *f;
        json_array_foreach(json_object_get(a, "files"), k, f)
        {
            const char *p = json_string_value(json_object_get(f, "path"));
            bool under = false;
            for (size_t s = 0; p && s < npre && !under; s++)
                under = spec_covers(pre[s], p);
            if (!under)
                continue;
            ALLOC_GROW(cand, ncand + 1, ca);
            owner = xrealloc(owner, ca * sizeof(*owner));
            owner[ncand] = i;
            cand[ncand++] = xstrdup(p);
        }
        for (size_t s = 0; s < npre; s++)
            free(pre[s]);
        free(pre);
    }
    if (!ncand)
        goto out;
    /* what git shows changed now, worktree by worktree: committed work is
     * not thrown away */
    bool *keep = xcalloc(ncand, sizeof(*keep));
    char **sub = xcalloc(ncand, sizeof(*sub));
    bool *subkeep = xcalloc(ncand, sizeof(*subkeep));
    for (size_t c = 0; c < ncand; c++)
        keep[c] = true;
    for (size_t c = 0; c < ncand; c++) {
        const char *w = wts[owner[c]];
        bool first = true;
        for (size_t e = 0; e < c && first; e++)
            first = strcmp(wts[owner[e]], w) != 0;
        if (!first)
            continue;
        size_t ns = 0;
        for (size_t e = c; e < ncand; e++)
            if (!strcmp(wts[owner[e]], w))
                sub[ns++] = cand[e];
        if (git_changed(w, sub, ns, d->what, subkeep))
            continue;
        ns = 0;
        for (size_t e = c; e < ncand; e++)
            if (!strcmp(wts[owner[e]], w))
                keep[e] = subkeep[ns++];
    }
    free(sub);
    free(subkeep);
    json_array_foreach(list, i, a)
    {
        size_t mine = 0;
        for (size_t c = 0; c < ncand; c++) {
            if (owner[c] != i || !keep[c])
                continue;
            if (!mine++)
                strbuf_addf(why, "%s%s'%s' (", hits ? "; " : "",
                    !strcmp(hook_str_or(a, "kind", ""), "human")
                        ? "the person at the keyboard, "
                        : "",
                    hook_str_or(a, "id", "?"));
            if (mine <= 3)
                strbuf_addf(why, "%s%s", mine > 1 ? ", " : "", cand[c]);
            hits++;
        }
        if (mine > 3)
            strbuf_addf(why, ", %zu more", mine - 3);
        if (mine)
            strbuf_addf(why, ")");
    }
    free(keep);
out:
    for (size_t c = 0; c < ncand; c++)
        free(cand[c]);
    free(cand);
    free(owner);
    for (size_t k = 0; k < na; k++)
        free(wts[k]);
    free(wts);
    free(reldir);
    free(rdir);
    return hits;
}

/*
 * Deny a shell command whose git throws away uncommitted changes that
 * others made in the same worktree (`git stash`, `git checkout .`, `git
 * reset --hard`, `git clean -f`, ...): a discard cannot be merged back,
 * unlike an edit. Returns the reason (new string) or NULL; *agents is GET
 * /v1/agents?files=1, fetched once.
 */
static char *
check_discards(struct hook *h, const char *cmd, json_t **agents)
{
    struct hook_discard *d;
    size_t nd = hook_shell_discards(cmd, &d);
    char *saved = h->cwd, *dir = call_dir(h); /* where the command runs */
    if (dir)
        h->cwd = dir;
    char *deny = NULL;
    struct strbuf why = STRBUF_INIT;
    size_t hits = 0;
    const char *what = NULL;
    for (size_t k = 0; k < nd && h->connected; k++) {
        if (!*agents)
            *agents = hook_call(h, api_agents(true));
        if (!*agents)
            break;
        size_t before = why.len;
        if (why.len)
            strbuf_addf(&why, "; ");
        size_t n = discard_victims(h, &d[k], *agents, &why);
        if (!n) {
            why.len = before;
            if (why.s)
                why.s[before] = '\0';
        } else if (!what) {
            what = d[k].command;
        }
        hits += n;
    }
    if (hits)
        deny = xasprintf(
            "airspace: `%s` would throw away uncommitted changes that are "
            "not yours, in the working tree you share: %s. Leave them be: "
            "discard only your own changes, by name (git restore -- PATH), "
            "or ask their owner first (airspace msg ID ...).",
            what, why.s);
    free(why.s);
    hook_discards_free(d, nd);
    if (dir) {
        h->cwd = saved;
        free(dir);
    }
    return deny;
}

/* tool_paths, relative paths being the hook's cwd's */
static size_t
tool_paths_here(struct hook *h, char ***out, size_t *unchecked)
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
        char **raw;
        size_t n = hook_patch_paths(patch, &raw);
        return rel_paths(h, raw, n, out);
    }
    /* A shell command that obviously writes files (best effort) */
    if (is_shell(tool) && cmd) {
        char **raw;
        size_t n = hook_shell_scan(cmd, &raw, unchecked);
        n = expand_globs(h, &raw, n);
        return rel_paths(h, raw, n, out);
    }
    return 0;
}

/* The files a tool call will write, repository-relative; *unchecked
 * counts those of a shell command it could not place (hook_shell_scan).
 * Relative paths are those of the directory the call runs in (call_dir),
 * else the hook's cwd's. */
static size_t
tool_paths(struct hook *h, char ***out, size_t *unchecked)
{
    char *saved = h->cwd, *dir = call_dir(h);
    if (dir)
        h->cwd = dir;
    size_t n = tool_paths_here(h, out, unchecked);
    if (dir) {
        h->cwd = saved;
        free(dir);
    }
    return n;
}

/* Deny when another agent holds the path, or when I steer a resolution
 * contesting it; returns the reason (new string) or NULL. Traffic adds to
 * *ctx. */
static char *
check_path(struct hook *h, const char *path, char **ctx, json_t **advs)
{
    /* the lock check is the one answer that stops an edit: a daemon busy
     * reading a large worktree gets longer to give it than the others, and
     * one that is not running is started and waited for, in that time */
    long t = h->timeout;
    if (h->lock_timeout > t)
        h->timeout = h->lock_timeout;
    h->await_start = true;
    json_t *r = hook_call(h, api_lock_check(h->agent, path, NULL));
    h->await_start = false;
    h->timeout = t;
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
        *advs = hook_call(h, api_advisories(h->agent));
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
            char *why = hook_why(a);
            bool parked = !strcmp(hook_str_or(a, "parked", ""), other);
            *ctx =
                xasprintf("airspace: %s advisory with '%s'%s (risk %.2f%s)%s",
                    level, other, parked ? " (" HOOK_PARKED ")" : "",
                    json_real_value(json_object_get(a, "risk")), why,
                    contested ? " on this file" : "");
            free(why);
        }
    }
    return deny;
}

/* How many lines text spans past its first (a last newline ends it). */
static uint32_t
text_span(const char *text)
{
    uint32_t span = 0;
    for (const char *p = text; *p; p++)
        span += *p == '\n' && p[1];
    return span;
}

/* Lines of the file that hold text (an Edit's old_string or new_string),
 * or -1. */
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
    *start = line;
    *end = line + text_span(text);
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

/*
 * Lines [*s, *e] of before that the tool replaced or removed: everything
 * between the common first and last lines, as numbered in the file before
 * the tool (a pure insertion is the line it went in before). Those are the
 * file's lines as the agent saw them, which the daemon meets with git's
 * change in base coordinates: lines the edit removed are in git's change
 * and must be in the report too, or they are left to the human of a
 * shared worktree; lines it only added have no number there. 0 when
 * nothing changed.
 */
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
    size_t bs = blen, as = alen;
    while (bs > p && as > p && before[bs - 1] == after[as - 1]) {
        bs--;
        as--;
    }
    uint32_t last = line;
    for (size_t q = p; q + 1 < bs; q++)
        last += before[q] == '\n';
    *s = line;
    *e = last;
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

void
hook_post_tool(struct hook *h)
{
    char **paths;
    size_t unchecked;
    size_t n = tool_paths(h, &paths, &unchecked);
    json_t *ti = json_object_get(h->in, "tool_input");
    const char *tool = json_string_value(json_object_get(h->in, "tool_name"));
    const char *old = json_string_value(json_object_get(ti, "old_string"));
    for (size_t k = 0; k < n; k++) {
        char *full = xasprintf("%s/%s", h->root, paths[k]);
        uint32_t s = 0, e = 0;
        json_t *lines = NULL;
        if (snapshot_span(h, paths[k], &s, &e) == 0) {
            /* the exact span, from the file before and after the tool */
            lines = json_pack("[[I,I]]", (json_int_t)s, (json_int_t)e);
        } else if (tool && !strcmp(tool, "Edit") && old &&
                   locate(full,
                       json_string_value(json_object_get(ti, "new_string")), &s,
                       &e) == 0) {
            /* where new_string now sits, as long as the old_string it
             * replaced: the lines before the edit, as diff_span gives */
            e = s + text_span(old);
            lines = json_pack("[[I,I]]", (json_int_t)s, (json_int_t)e);
        } else if (tool && !strcmp(tool, "Write")) {
            uint32_t nl = count_lines(full);
            if (nl)
                lines = json_pack("[[I,I]]", (json_int_t)1, (json_int_t)nl);
        }
        json_t *r = hook_call(h, api_edit(h->agent, paths[k], lines));
        if (r)
            json_decref(r);
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

/* Whether this session did `what` about other (in its registration
 * since) and path within the last APPROACH_TELL_MS; records it now. A new
 * session under the same name has not seen the warning, and another that
 * took the other's name has not been told: both count afresh. */
static bool
done_lately(struct hook *h, const char *what, const char *other,
    json_int_t since, const char *path)
{
    const char *sid = json_string_value(json_object_get(h->in, "session_id"));
    char *key = xasprintf(
        "%s\n%s\n%lld\n%s", sid ? sid : "", other, (long long)since, path);
    uint64_t x = fnv1a_str(FNV1A_INIT, key);
    free(key);
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
    int64_t now = clock_wall_ms();
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
        const char *x = hook_str_or(a, "a", ""), *y = hook_str_or(a, "b", "");
        if (!strcmp(hook_str_or(a, "level", ""), "resolution") &&
            !strcmp(hook_str_or(a, "hold", ""), h->agent) &&
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
        bool parked = json_is_true(json_object_get(a, "parked"));
        if (!id || !strcmp(id, h->agent) ||
            (st && !strcmp(st, "exited") && !parked))
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
                "airspace: traffic: '%s' (%s%s) has changed %s%s of %s%s. "
                "Coordinate before you edit: message them (airspace msg "
                "%s ...), or work elsewhere.\n",
                id, hook_str_or(a, "client", "?"),
                parked ? ", " HOOK_PARKED : "", hits ? "lines " : "the file",
                hits ? near.s : "", rel, mine, id);
            /* once per agent near: every one recorded now, so that the
             * repeated call goes through */
            json_int_t since =
                json_integer_value(json_object_get(a, "registeredAt"));
            if (hits && !right_of_way(h, advs, id) &&
                !done_lately(h, "held", id, since, rel))
                *hold = true; /* the model reads it before editing */
            if (!done_lately(h, "told", id, since, rel)) {
                char *body =
                    known
                        ? xasprintf("airspace: '%s' is about to change lines "
                                    "%u-%u of %s, near your change (lines %s)",
                              h->agent, (unsigned)ts, (unsigned)te, rel,
                              hits ? near.s : "whole file")
                        : xasprintf("airspace: '%s' is about to change %s, "
                                    "where you have changed lines %s",
                              h->agent, rel, hits ? near.s : "(whole file)");
                json_t *rr =
                    hook_call(h, api_message(h->agent, id, NULL, body));
                if (rr)
                    json_decref(rr);
                free(body);
            }
            free(near.s);
        }
    }
}

/* The first lane of agent a (its `lanes`; "@name" lanes are names, no
 * paths) that covers path, or NULL. */
static const char *
lane_of(json_t *a, const char *path)
{
    size_t k;
    json_t *l;
    json_array_foreach(json_object_get(a, "lanes"), k, l)
    {
        const char *g = json_string_value(l);
        if (g && !(g[0] == '@' && g[1]) && glob_match(g, path))
            return g;
    }
    return NULL;
}

/*
 * Warn before an edit in another agent's lane (docs/fleet.md): its owner
 * holds its files over this agent, and `airspace land` refuses what an
 * agent changed outside its own lanes, so the model is told before the
 * first such edit of a file (held once, as an approach is) rather than
 * through a conflict after it. Nothing when one of this agent's own lanes
 * covers the path too. agents is GET /v1/agents?files=1.
 */
static void
lane_approach(struct hook *h, json_t *agents, const char *rel,
    struct strbuf *ctx, bool *hold)
{
    size_t i;
    json_t *a;
    json_t *me = NULL;
    json_array_foreach(json_object_get(agents, "agents"), i, a)
    {
        if (!strcmp(hook_str_or(a, "id", ""), h->agent))
            me = a;
    }
    if (me && lane_of(me, rel))
        return;
    json_array_foreach(json_object_get(agents, "agents"), i, a)
    {
        const char *id = hook_str_or(a, "id", "");
        const char *lane = a != me ? lane_of(a, rel) : NULL;
        if (!lane)
            continue;
        strbuf_addf(ctx,
            "airspace: %s is in the lane of '%s' (%s), not yours: '%s' holds "
            "its files over you, and `airspace land` refuses what you "
            "change outside your lanes. Leave it to '%s', or message them "
            "(airspace msg %s ...).\n",
            rel, id, lane, id, id, id);
        json_int_t since =
            json_integer_value(json_object_get(a, "registeredAt"));
        if (!done_lately(h, "lane", id, since, rel))
            *hold = true;
        return;
    }
}

void
hook_pre_tool(struct hook *h)
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
    const char *sh = shell_command(h);
    if (sh && h->connected)
        deny = check_discards(h, sh, &agents);
    for (size_t k = 0; k < n; k++) {
        if (!deny && h->connected)
            deny = check_path(h, paths[k], &adv, &advs);
        if (!deny && h->connected) {
            if (!agents)
                agents = hook_call(h, api_agents(true));
            approach(h, agents, advs, paths[k], &ctx, &hold);
            lane_approach(h, agents, paths[k], &ctx, &hold);
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
    hook_emit(h, deny, deny || !ctx.len ? NULL : ctx.s);
    free(deny);
    free(adv);
    free(ctx.s);
}

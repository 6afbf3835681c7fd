/*
 * cmd_init.c - `airspace init`: wire airspace into agent clients and git
 * hooks, merging into what is there, recording exactly what it changed so
 * `--remove` can undo it; and `init --git-hook NAME`, what the installed
 * git hooks run.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "client/client.h"
#include "cli/dcli.h"
#include "cli/init_config.h"
#include "cli/opts.h"
#include "client/session.h"
#include "git/init_git.h"
#include "util/file.h"
#include "util/sockpath.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

enum kind { K_JSON, K_TOML, K_HOOK };

static const char *const kind_names[] = { "json", "toml", "githook" };

/*
 * Where a recorded file lives. The record names a file relative to the
 * directory it belongs to, so that a repository moved or copied keeps a
 * record of its own files, never of another repository's.
 */
enum place { IN_GIT, IN_WORKTREE, IN_ABS };

static const char *const place_names[] = { "git", "worktree", "abs" };

/* The repository init works on, as far as its record needs it. */
struct repo {
    const struct init_git *g;
    char *hooks; /* the hooks dir, canonical (it may not exist yet) */
    char *wt;    /* this worktree's id: "" the main one, else its name
                    under <common>/worktrees; NULL when unknown */
    char *main;  /* the main checkout's top, or NULL */
};

/* One planned change of one file. */
struct change {
    char *path;      /* absolute */
    const char *rel; /* for messages (points into path) */
    enum place in;   /* what the record names path relative to */
    const char *wt;  /* IN_WORKTREE: the worktree's id (borrowed) */
    const char *sub; /* path relative to that (points into path) */
    bool refresh;    /* an airspace git hook whose binary is gone */
    enum kind kind;
    char *old; /* current content, NULL when absent */
    size_t old_len;
    mode_t mode;    /* the current mode, or the one to create with */
    char *new;      /* wanted content */
    char *appended; /* K_TOML: the block added */
};

struct opts {
    bool clients[3], dry_run, remove;
};

static void
hash_hex(const char *s, size_t n, char out[17])
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* The mode of a file init creates: base narrowed by the umask. */
static mode_t
create_mode(mode_t base)
{
    mode_t um = umask(0);
    umask(um);
    return base & ~um;
}

/*
 * Read path, following symlinks, into *buf (NULL when absent) and the
 * mode of the file read into *mode. A dangling symlink is an error, not an
 * absent file: writing there would replace the link.
 */
static int
read_opt(const char *path, char **buf, size_t *len, mode_t *mode)
{
    struct stat st;
    *buf = NULL;
    *len = 0;
    if (stat(path, &st) < 0) {
        int err = errno;
        if (err == ENOENT && lstat(path, &st) < 0)
            return 0;
        if (err == ENOENT)
            fprintf(stderr,
                "airspace init: '%s' is a symlink to a missing file\n", path);
        else
            fprintf(stderr, "airspace init: cannot read '%s': %s\n", path,
                strerror(err));
        return -1;
    }
    if (mode)
        *mode = st.st_mode & 07777;
    if (file_read_max(path, (size_t)16 << 20, false, buf, len)) {
        fprintf(stderr,
            "airspace init: cannot read '%s': not a regular file of at "
            "most 16 MiB\n",
            path);
        return -1;
    }
    return 0;
}

/*
 * Replace path with data and give it mode. A symlink is kept and the file
 * it points to is replaced.
 */
static int
write_mode(const char *path, const char *data, size_t len, mode_t mode)
{
    struct stat st;
    char *target = lstat(path, &st) == 0 && S_ISLNK(st.st_mode)
                       ? realpath(path, NULL)
                       : xstrdup(path);
    if (!target) {
        fprintf(stderr, "airspace init: cannot write '%s': %s\n", path,
            strerror(errno));
        return -1;
    }
    char *tmp = xasprintf("%s.airspace-tmp", target);
    int fd =
        open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    int rc = -1;
    if (fd >= 0) {
        size_t off = 0;
        while (off < len) {
            ssize_t w = write(fd, data + off, len - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                break;
            off += (size_t)w;
        }
        if (off == len && fchmod(fd, mode) == 0 && close(fd) == 0) {
            fd = -1;
            rc = rename(tmp, target);
        }
        if (fd >= 0)
            close(fd);
        if (rc)
            unlink(tmp);
    }
    if (rc)
        fprintf(stderr, "airspace init: cannot write '%s': %s\n", path,
            strerror(errno));
    free(tmp);
    free(target);
    return rc;
}

/* path without base and the slash after it, or NULL when it is not below
 * base. */
static const char *
below(const char *path, const char *base)
{
    size_t n = base ? strlen(base) : 0;
    return n && !strncmp(path, base, n) && path[n] == '/' ? path + n + 1 : NULL;
}

/*
 * Create the missing directories above path; record in dirs those below
 * base, relative to it (others are not init's to remove later).
 */
static int
make_parents(const char *path, const char *base, json_t *dirs)
{
    char *d = xstrdup(path);
    int rc = 0;
    for (char *p = d + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        const char *sub = below(d, base);
        if (mkdir(d, 0755) == 0) {
            if (sub)
                json_array_append_new(dirs, json_string(sub));
        } else if (errno != EEXIST) {
            rc = -1;
        }
        *p = '/';
    }
    free(d);
    return rc;
}

/* The real path of path, which may not exist yet: its missing tail is
 * kept as it is (new string). */
static char *
canonical(const char *path)
{
    char *real = realpath(path, NULL);
    if (real)
        return real;
    const char *slash = strrchr(path, '/');
    if (errno != ENOENT || !slash || slash == path)
        return xstrdup(path);
    char *dir = xstrndup(path, (size_t)(slash - path));
    char *cdir = canonical(dir);
    char *out = xasprintf("%s%s", cdir, slash);
    free(cdir);
    free(dir);
    return out;
}

/* Whether a recorded relative path stays below what it is relative to. */
static bool
safe_sub(const char *sub)
{
    char *norm = NULL;
    bool ok = sub && *sub && *sub != '/' && !path_normalize(sub, NULL, &norm) &&
              !strcmp(norm, sub);
    free(norm);
    return ok;
}

static void
change_release(struct change *c)
{
    free(c->path);
    free(c->old);
    free(c->new);
    free(c->appended);
}

/* ---- planning ---- */

struct plan {
    struct change *v;
    size_t n, a;
    const char *top;
    const struct repo *r;
    const char *const *gone;
    json_t *rec; /* the record so far (borrowed) */
};

/* A change of the file at path (absolute), sub of it relative to what
 * place in (and wt) names; its messages name it from the worktree's top
 * when it is below it. */
static struct change *
plan_add_path(struct plan *p, const char *path, enum place in, const char *wt,
    size_t sub, enum kind kind)
{
    ALLOC_GROW(p->v, p->n + 1, p->a);
    struct change *c = &p->v[p->n++];
    memset(c, 0, sizeof(*c));
    c->path = xstrdup(path);
    const char *rel = below(c->path, p->top);
    c->rel = rel ? rel : c->path;
    c->in = in;
    c->wt = wt;
    c->sub = c->path + sub;
    c->kind = kind;
    c->mode = create_mode(0644);
    if (read_opt(c->path, &c->old, &c->old_len, &c->mode))
        return NULL;
    return c;
}

/* A change of rel below this worktree's top. */
static struct change *
plan_add(struct plan *p, const char *rel, enum kind kind)
{
    char *path = xasprintf("%s/%s", p->top, rel);
    struct change *c = p->r->wt ? plan_add_path(p, path, IN_WORKTREE, p->r->wt,
                                      strlen(p->top) + 1, kind)
                                : plan_add_path(p, path, IN_ABS, NULL, 0, kind);
    free(path);
    return c;
}

static int
plan_json(struct plan *p, const char *rel, int client, bool mcp_only,
    bool with_mcp, const char *bin)
{
    struct change *c = plan_add(p, rel, K_JSON);
    if (!c)
        return -1;
    struct as_err e;
    int rc = mcp_only ? init_merge_mcp(c->old, rel, bin, p->gone, &c->new, &e)
                      : init_merge_hooks(c->old, rel, (enum init_client)client,
                            bin, NULL, with_mcp, p->gone, &c->new, &e);
    if (rc)
        fprintf(stderr, "airspace init: %s\n", e.msg);
    return rc;
}

/*
 * The top of the main checkout, whose .claude/settings.local.json Claude
 * Code reads for a session started anywhere in the repository, in any
 * worktree (new string); NULL when the client finds none: the repository
 * is bare, or seen from a linked worktree its git directory is not the
 * main checkout's .git. wt is this worktree's id (struct repo).
 */
static char *
main_checkout(const struct init_git *g, const char *wt)
{
    if (wt && !*wt)
        return xstrdup(g->toplevel);
    size_t n = strlen(g->common_dir);
    struct stat st;
    char *top = NULL;
    if (n > 5 && !strcmp(g->common_dir + n - 5, "/.git")) {
        top = xstrndup(g->common_dir, n - 5);
        if (stat(top, &st) < 0 || !S_ISDIR(st.st_mode)) {
            free(top);
            top = NULL;
        }
    }
    return top;
}

static void
repo_init(struct repo *r, const struct init_git *g)
{
    memset(r, 0, sizeof(*r));
    r->g = g;
    r->hooks = canonical(g->hooks_dir);
    const char *argv[] = { "git", "rev-parse", "--absolute-git-dir", NULL };
    char *out = NULL;
    struct as_err e;
    if (init_git_run(argv, &out, &e) == 0) {
        out[strcspn(out, "\n")] = '\0';
        char *dir = realpath(out, NULL);
        char *admin = xasprintf("%s/worktrees", g->common_dir);
        const char *name = dir ? below(dir, admin) : NULL;
        if (dir && !strcmp(dir, g->common_dir))
            r->wt = xstrdup("");
        else if (name && !strchr(name, '/'))
            r->wt = xstrdup(name);
        free(admin);
        free(dir);
    }
    free(out);
    r->main = main_checkout(g, r->wt);
}

static void
repo_release(struct repo *r)
{
    free(r->hooks);
    free(r->wt);
    free(r->main);
}

/*
 * The top of the worktree whose id is id (new string), or NULL with *why
 * saying why. A linked worktree is where git's own record of it says, and
 * only when that worktree points back at this repository: a copy of a
 * repository must not reach into the original's worktrees. *gone tells
 * that git has forgotten the worktree: it was removed, with its files.
 */
static char *
worktree_top(const struct repo *r, const char *id, const char **why, bool *gone)
{
    *gone = false;
    if (r->wt && !strcmp(id, r->wt))
        return xstrdup(r->g->toplevel);
    if (!*id) {
        if (!r->main)
            *why = "this repository has no main checkout";
        return r->main ? xstrdup(r->main) : NULL;
    }
    *why = "the worktree is not where git last saw it";
    if (strchr(id, '/') || !strcmp(id, "..") || !strcmp(id, "."))
        return NULL;
    char *admin = xasprintf("%s/worktrees/%s", r->g->common_dir, id);
    char *file = xasprintf("%s/gitdir", admin);
    char *buf = NULL, *top = NULL, *back = NULL;
    size_t len;
    struct stat st;
    if (stat(admin, &st) < 0 && errno == ENOENT) {
        *why = "git no longer knows that worktree";
        *gone = true;
    } else if (!file_read_max(file, 4096, false, &buf, &len)) {
        buf[strcspn(buf, "\r\n")] = '\0';
        char *dotgit =
            buf[0] == '/' ? xstrdup(buf) : xasprintf("%s/%s", admin, buf);
        char *slash = strrchr(dotgit, '/');
        if (slash)
            *slash = '\0';
        top = slash ? realpath(dotgit, NULL) : NULL;
        free(dotgit);
        free(buf);
        buf = NULL;
        /* and it points back here */
        back = top ? broker_git_dir_of(top) : NULL;
        if (!file_same_dir(back, admin)) {
            free(top);
            top = NULL;
        }
    }
    free(back);
    free(buf);
    free(file);
    free(admin);
    return top;
}

/*
 * Claude Code's hooks: .claude/settings.json at the worktree's top, read
 * by a session started there, and the main checkout's
 * .claude/settings.local.json, read by a session started anywhere in the
 * repository. A session at a top reads both; each file takes the other's
 * spelling of a command it lacks, so the client runs each hook once.
 */
static int
plan_claude(struct plan *p, const char *bin)
{
    struct change *top = plan_add(p, ".claude/settings.json", K_JSON);
    if (!top)
        return -1;
    const char *checkout = p->r->main;
    struct change *local = NULL;
    if (checkout) {
        char *path = xasprintf("%s/.claude/settings.local.json", checkout);
        size_t at = p->n - 1; /* adding may move the plan's array */
        local = plan_add_path(
            p, path, IN_WORKTREE, "", strlen(checkout) + 1, K_JSON);
        top = &p->v[at];
        free(path);
        if (!local)
            return -1;
    } else {
        printf("note: this repository has no main checkout that Claude Code "
               "reads for every worktree: a session started below a "
               "worktree's top runs no airspace hook\n");
    }
    struct as_err e;
    int rc = init_merge_hooks(top->old, top->rel, INIT_CLAUDE_CODE, bin,
        local ? local->old : NULL, false, p->gone, &top->new, &e);
    if (!rc && local)
        rc = init_merge_hooks(local->old, local->rel, INIT_CLAUDE_CODE, bin,
            top->new, false, p->gone, &local->new, &e);
    if (rc)
        fprintf(stderr, "airspace init: %s\n", e.msg);
    return rc;
}

/* Where the git hook name goes: below the git dir or this worktree when
 * the hooks dir is there (core.hooksPath may put it anywhere). */
static struct change *
plan_hook(struct plan *p, const char *name)
{
    const struct repo *r = p->r;
    char *path = xasprintf("%s/%s", r->hooks, name);
    const char *in_git = below(path, r->g->common_dir);
    const char *in_top = below(path, r->g->toplevel);
    struct change *c;
    if (in_git)
        c = plan_add_path(
            p, path, IN_GIT, NULL, (size_t)(in_git - path), K_HOOK);
    else if (in_top && r->wt)
        c = plan_add_path(
            p, path, IN_WORKTREE, r->wt, (size_t)(in_top - path), K_HOOK);
    else
        c = plan_add_path(p, path, IN_ABS, NULL, 0, K_HOOK);
    free(path);
    if (c) {
        c->rel = c->path; /* git hooks are named by their path */
        c->mode = create_mode(0755);
    }
    return c;
}

static json_t *record_find(json_t *rec, const struct change *c);

/*
 * config.toml: the block an earlier init appended, still there as it was,
 * gets this binary when the one it names is gone.
 */
static void
plan_toml_refresh(struct plan *p, struct change *c, const char *bin)
{
    json_t *ent = record_find(p->rec, c);
    const char *app = json_string_value(json_object_get(ent, "appended"));
    const char *at = app && c->old ? strstr(c->old, app) : NULL;
    const char *cmd = at ? strstr(app, "\ncommand = \"") : NULL;
    if (!cmd)
        return;
    /* the TOML string init wrote: only '"' and '\\' are escaped */
    struct strbuf prog = STRBUF_INIT;
    strbuf_addf(&prog, "%s", "");
    for (cmd += strlen("\ncommand = \""); *cmd && *cmd != '"'; cmd++) {
        if (*cmd == '\\' && cmd[1])
            cmd++;
        strbuf_addf(&prog, "%c", *cmd);
    }
    bool gone = false;
    for (size_t i = 0; p->gone && p->gone[i]; i++)
        gone = gone || !strcmp(p->gone[i], prog.s);
    free(prog.s);
    if (!gone)
        return;
    char *block = init_codex_toml_block(NULL, bin);
    char *fresh =
        xasprintf("%.*s%s", (int)strspn(app, "\n"), app, block ? block : "");
    free(block);
    free(c->new);
    c->new = xasprintf(
        "%.*s%s%s", (int)(at - c->old), c->old, fresh, at + strlen(app));
    free(c->appended);
    c->appended = fresh;
    c->refresh = true;
}

static int
build_plan(struct plan *p, const struct opts *o, const char *bin)
{
    int rc = 0;
    if (o->clients[INIT_CLAUDE_CODE])
        rc = plan_claude(p, bin);
    if (!rc && o->clients[INIT_CLAUDE_CODE])
        rc = plan_json(p, ".mcp.json", 0, true, false, bin);
    if (!rc && o->clients[INIT_CODEX])
        rc = plan_json(p, ".codex/hooks.json", INIT_CODEX, false, false, bin);
    if (!rc && o->clients[INIT_CODEX]) {
        struct change *c = plan_add(p, ".codex/config.toml", K_TOML);
        if (!c)
            return -1;
        c->appended = init_codex_toml_block(c->old, bin);
        c->new = xasprintf(
            "%s%s", c->old ? c->old : "", c->appended ? c->appended : "");
        if (!c->appended)
            plan_toml_refresh(p, c, bin);
    }
    if (!rc && o->clients[INIT_GEMINI])
        rc = plan_json(
            p, ".gemini/settings.json", INIT_GEMINI, false, true, bin);
    for (size_t i = 0; !rc && init_git_hooks[i]; i++) {
        struct change *c = plan_hook(p, init_git_hooks[i]);
        if (!c)
            return -1;
        if (init_git_hook_is_ours(c->old)) {
            /* Airspace's own hook is kept, unless the binary it runs is
             * gone: then it is rewritten for this one, in place. */
            char *prog = init_git_hook_program(c->old);
            c->refresh = prog && init_program_gone(prog);
            free(prog);
            c->new = c->refresh ? init_git_hook_script(init_git_hooks[i], bin)
                                : xstrdup(c->old);
            continue;
        }
        c->new = init_git_hook_script(init_git_hooks[i], bin);
        /* Refuse now, before anything is written. */
        char *chained = xasprintf("%s.airspace-chained", c->path);
        struct stat st;
        if (c->old && lstat(chained, &st) == 0) {
            fprintf(stderr,
                "airspace init: cannot chain '%s': '%s' is in the way\n",
                c->path, chained);
            rc = -1;
        }
        free(chained);
    }
    return rc;
}

static bool
unchanged(const struct change *c)
{
    return c->old && strlen(c->new) == c->old_len &&
           !memcmp(c->old, c->new, c->old_len);
}

/* ---- the record ---- */

static char *
record_path(const struct init_git *g)
{
    return xasprintf("%s/airspace/init.json", g->common_dir);
}

/* A base directory a path of a record written by an earlier release may
 * lie below, and what it becomes in today's record. */
struct base {
    char *dir;
    enum place in;
    char *wt;
};

static void
base_add(struct base **v, size_t *n, size_t *a, const char *dir, enum place in,
    const char *wt)
{
    if (!dir)
        return;
    ALLOC_GROW(*v, *n + 1, *a);
    (*v)[*n].dir = xstrdup(dir);
    (*v)[*n].in = in;
    (*v)[*n].wt = wt ? xstrdup(wt) : NULL;
    (*n)++;
}

/*
 * Entries of an earlier release name files by absolute paths: rewrite each
 * relative to the deepest directory of this repository it lies below (its
 * git dir, one of its worktrees, its hooks dir). An entry below none of
 * them is another repository's (this one was moved or copied) and becomes
 * "foreign": --remove refuses to run while one is there.
 */
static void
record_upgrade(const struct repo *r, json_t *rec)
{
    struct base *v = NULL;
    size_t n = 0, a = 0;
    base_add(&v, &n, &a, r->g->common_dir, IN_GIT, NULL);
    base_add(&v, &n, &a, r->hooks, IN_ABS, NULL);
    if (r->wt)
        base_add(&v, &n, &a, r->g->toplevel, IN_WORKTREE, r->wt);
    base_add(&v, &n, &a, r->main, IN_WORKTREE, "");
    char *admin = xasprintf("%s/worktrees", r->g->common_dir);
    DIR *d = opendir(admin);
    for (struct dirent *de; d && (de = readdir(d));) {
        const char *why;
        bool gone;
        char *top = de->d_name[0] != '.'
                        ? worktree_top(r, de->d_name, &why, &gone)
                        : NULL;
        base_add(&v, &n, &a, top, IN_WORKTREE, de->d_name);
        free(top);
    }
    if (d)
        closedir(d);
    free(admin);
    char *store = xasprintf("%s/airspace", r->g->common_dir);
    size_t i;
    json_t *ent;
    json_array_foreach(json_object_get(rec, "entries"), i, ent)
    {
        if (json_object_get(ent, "in"))
            continue;
        const char *path = json_string_value(json_object_get(ent, "path"));
        char *norm = NULL, *abs = NULL;
        if (path && path[0] == '/' && !path_normalize(path, NULL, &norm))
            abs = xasprintf("/%s", norm);
        free(norm);
        const struct base *best = NULL;
        const char *sub = NULL;
        for (size_t k = 0; abs && k < n; k++) {
            const char *s = below(abs, v[k].dir);
            if (s && (!best || strlen(v[k].dir) > strlen(best->dir))) {
                best = &v[k];
                sub = s;
            }
        }
        /* the hooks dir holds files, not directories of files */
        if (best && best->in == IN_ABS && strchr(sub, '/'))
            best = NULL;
        const char *bak = json_string_value(json_object_get(ent, "backup"));
        const char *bak_sub = bak ? below(bak, store) : NULL;
        if (!best || (bak && !safe_sub(bak_sub))) {
            json_object_set_new(ent, "in", json_string("foreign"));
            free(abs);
            continue;
        }
        json_object_set_new(ent, "in", json_string(place_names[best->in]));
        if (best->in == IN_WORKTREE)
            json_object_set_new(ent, "worktree", json_string(best->wt));
        json_object_set_new(
            ent, "path", json_string(best->in == IN_ABS ? abs : sub));
        if (bak)
            json_object_set_new(ent, "backup", json_string(bak_sub));
        json_t *dirs = json_array();
        size_t k;
        json_t *dir;
        json_array_foreach(json_object_get(ent, "dirs"), k, dir)
        {
            const char *ds = best->in == IN_ABS || !json_is_string(dir)
                                 ? NULL
                                 : below(json_string_value(dir), best->dir);
            if (ds && safe_sub(ds))
                json_array_append_new(dirs, json_string(ds));
        }
        json_object_set_new(ent, "dirs", dirs);
        free(abs);
    }
    free(store);
    for (size_t k = 0; k < n; k++) {
        free(v[k].dir);
        free(v[k].wt);
    }
    free(v);
}

static json_t *
record_load(const struct repo *r)
{
    char *path = record_path(r->g);
    json_t *rec = json_load_file(path, JSON_PRESERVE_ORDER, NULL);
    free(path);
    if (!json_is_object(rec) ||
        !json_is_array(json_object_get(rec, "entries"))) {
        if (rec)
            json_decref(rec);
        rec = json_pack("{s:i, s:[]}", "version", 2, "entries");
    }
    record_upgrade(r, rec);
    json_object_set_new(rec, "version", json_integer(2));
    return rec;
}

/* The entry of the record for the file of change c, or NULL. */
static json_t *
record_find(json_t *rec, const struct change *c)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(rec, "entries"), i, x)
    {
        const char *in = json_string_value(json_object_get(x, "in"));
        const char *path = json_string_value(json_object_get(x, "path"));
        const char *wt = json_string_value(json_object_get(x, "worktree"));
        if (in && path && !strcmp(in, place_names[c->in]) &&
            !strcmp(path, c->sub) &&
            (c->in != IN_WORKTREE || (wt && !strcmp(wt, c->wt))))
            return x;
    }
    return NULL;
}

/*
 * The absolute path of the file entry ent names in this repository (new
 * string), or NULL with *why; *gone when its worktree was removed. rel
 * is ent's path, or another path relative to the same place.
 */
static char *
record_locate(const struct repo *r, json_t *ent, const char *rel,
    const char **why, bool *gone)
{
    const char *in = json_string_value(json_object_get(ent, "in"));
    *gone = false;
    *why = "it is not in this repository";
    if (!in || !rel || !strcmp(in, "foreign"))
        return NULL;
    if (!strcmp(in, "abs")) {
        /* only a git hook in this repository's hooks dir */
        const char *name = below(rel, r->hooks);
        return name && !strchr(name, '/') ? xstrdup(rel) : NULL;
    }
    if (!safe_sub(rel))
        return NULL;
    if (!strcmp(in, "git"))
        return xasprintf("%s/%s", r->g->common_dir, rel);
    const char *wt = json_string_value(json_object_get(ent, "worktree"));
    if (strcmp(in, "worktree") || !wt)
        return NULL;
    char *top = worktree_top(r, wt, why, gone);
    char *path = top ? xasprintf("%s/%s", top, rel) : NULL;
    free(top);
    return path;
}

static int
record_save(const struct init_git *g, json_t *rec)
{
    char *dir = xasprintf("%s/airspace", g->common_dir);
    mkdir(dir, 0700);
    char *path = record_path(g);
    char *s = json_dumps(rec, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    char *text = xasprintf("%s\n", s);
    int rc = write_mode(path, text, strlen(text), 0600);
    free(text);
    free(s);
    free(path);
    free(dir);
    return rc;
}

/* ---- install ---- */

/* A new name for a backup of path in dir: seq-base, or the next free seq. */
static char *
backup_name(const char *dir, const char *path, size_t seq)
{
    const char *base = strrchr(path, '/') + 1;
    struct stat st;
    for (;; seq++) {
        char *bak = xasprintf("%s/%zu-%s", dir, seq, base);
        if (lstat(bak, &st) < 0)
            return bak;
        free(bak);
    }
}

/* The directory c->sub is relative to (new string), or NULL for IN_ABS. */
static char *
change_base(const struct change *c)
{
    return c->in == IN_ABS ? NULL
                           : xstrndup(c->path, (size_t)(c->sub - c->path - 1));
}

/*
 * Make change c and record it in rec. On failure nothing of c is left
 * (its backup, directories and chaining are undone) and rec is as it was.
 */
static int
apply_one(struct change *c, const struct init_git *g, json_t *rec, size_t seq)
{
    json_t *ent = record_find(rec, c);
    bool fresh = !ent;
    char *bak = NULL, *chained = NULL, *base = change_base(c);
    char h[17];
    if (fresh) {
        ent = json_pack("{s:s}", "in", place_names[c->in]);
        if (c->in == IN_WORKTREE)
            json_object_set_new(ent, "worktree", json_string(c->wt));
        json_object_set_new(ent, "path", json_string(c->sub));
        json_object_set_new(ent, "kind", json_string(kind_names[c->kind]));
        json_object_set_new(ent, "created", json_boolean(c->old == NULL));
        json_object_set_new(ent, "dirs", json_array());
        if (c->old && c->kind != K_HOOK) {
            char *dir = xasprintf("%s/airspace", g->common_dir);
            mkdir(dir, 0700);
            free(dir);
            dir = xasprintf("%s/airspace/init-backup", g->common_dir);
            mkdir(dir, 0700);
            bak = backup_name(dir, c->path, seq);
            free(dir);
            if (write_mode(bak, c->old, c->old_len, 0600)) {
                free(bak);
                bak = NULL;
                goto out_forget;
            }
            /* relative to <common>/airspace, like the record */
            json_object_set_new(ent, "backup",
                json_string(strstr(bak, "/airspace/init-backup/") +
                            strlen("/airspace/")));
            json_object_set_new(ent, "mode", json_integer(c->mode));
        }
    }
    json_t *dirs = json_object_get(ent, "dirs");
    size_t ndirs = json_array_size(dirs);
    if (make_parents(c->path, base, dirs))
        goto out_rmdir;
    /* airspace's own hook is rewritten in place, never chained */
    if (c->kind == K_HOOK && c->old && !c->refresh) {
        chained = xasprintf("%s.airspace-chained", c->path);
        struct stat st;
        bool in_way = lstat(chained, &st) == 0;
        if (in_way || rename(c->path, chained)) {
            if (in_way)
                fprintf(stderr,
                    "airspace init: cannot chain '%s': '%s' is in the way\n",
                    c->path, chained);
            else
                fprintf(stderr, "airspace init: cannot chain '%s': %s\n",
                    c->path, strerror(errno));
            free(chained);
            chained = NULL;
            goto out_rmdir;
        }
    }
    if (write_mode(c->path, c->new, strlen(c->new), c->mode))
        goto out_unchain;
    if (chained)
        json_object_set_new(ent, "chained", json_true());
    if (c->appended)
        json_object_set_new(ent, "appended", json_string(c->appended));
    /* Only what init wrote may be replaced by the backup: a later run
     * that rewrites a file the user edited keeps the first hash. */
    const char *written = json_string_value(json_object_get(ent, "written"));
    if (c->old)
        hash_hex(c->old, c->old_len, h);
    if (fresh || (c->old && written && !strcmp(h, written))) {
        hash_hex(c->new, strlen(c->new), h);
        json_object_set_new(ent, "written", json_string(h));
    }
    if (fresh)
        json_array_append_new(json_object_get(rec, "entries"), ent);
    free(chained);
    free(bak);
    free(base);
    return 0;

out_unchain:
    if (chained)
        rename(chained, c->path);
    free(chained);
out_rmdir:
    for (size_t k = json_array_size(dirs); k-- > ndirs;) {
        char *d = xasprintf(
            "%s/%s", base, json_string_value(json_array_get(dirs, k)));
        rmdir(d);
        free(d);
        json_array_remove(dirs, k);
    }
out_forget:
    if (bak)
        unlink(bak);
    free(bak);
    free(base);
    if (fresh)
        json_decref(ent);
    return -1;
}

/*
 * The programs an earlier init of this repository wrote into commands and
 * that are gone (NULL-terminated, free with strv_free()): those the record
 * lists and those airspace's git hooks run, each with the lean
 * airspace-hook beside it.
 */
static char **
gone_programs(const struct repo *r, json_t *rec, size_t *n)
{
    json_t *progs = json_array();
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(rec, "bins"), i, x)
    {
        if (json_is_string(x))
            json_array_append(progs, x);
    }
    for (i = 0; init_git_hooks[i]; i++) {
        char *path = xasprintf("%s/%s", r->hooks, init_git_hooks[i]);
        char *text = NULL;
        size_t len;
        if (!file_read_max(path, (size_t)1 << 20, false, &text, &len) &&
            init_git_hook_is_ours(text)) {
            char *prog = init_git_hook_program(text);
            if (prog)
                json_array_append_new(progs, json_string(prog));
            free(prog);
        }
        free(text);
        free(path);
    }
    char **v = NULL;
    size_t a = 0;
    *n = 0;
    json_array_foreach(progs, i, x)
    {
        const char *prog = json_string_value(x);
        if (!init_program_gone(prog))
            continue;
        const char *slash = strrchr(prog, '/');
        ALLOC_GROW(v, *n + 3, a);
        v[(*n)++] = xstrdup(prog);
        v[(*n)++] =
            slash ? xasprintf("%.*s/airspace-hook", (int)(slash - prog), prog)
                  : xstrdup("airspace-hook");
    }
    ALLOC_GROW(v, *n + 1, a);
    v[*n] = NULL;
    json_decref(progs);
    return v;
}

static int
install(const struct opts *o, const struct repo *r, const char *bin)
{
    const struct init_git *g = r->g;
    json_t *rec = record_load(r);
    size_t ngone;
    char **gone = gone_programs(r, rec, &ngone);
    struct plan p = { NULL, 0, 0, g->toplevel, r, (const char *const *)gone,
        rec };
    int rc = build_plan(&p, o, bin);
    size_t changed = 0, applied = 0;
    for (size_t i = 0; !rc && i < p.n; i++) {
        struct change *c = &p.v[i];
        if (unchanged(c))
            continue;
        changed++;
        const char *verb = !c->old             ? "create"
                           : c->refresh        ? "update"
                           : c->kind == K_HOOK ? "chain"
                                               : "merge into";
        printf("%s %s%s\n", verb, c->rel,
            c->refresh ? " (the binary it names is gone)"
            : c->kind == K_HOOK && c->old
                ? " (the existing hook runs first, as '.airspace-chained')"
                : "");
        if (o->dry_run) {
            printf("%s", c->kind == K_TOML ? c->appended : c->new);
            continue;
        }
        rc = apply_one(
            c, g, rec, json_array_size(json_object_get(rec, "entries")));
        applied += !rc;
    }
    /* Record whatever was changed, even when a later change failed, so
     * that --remove can undo it; and the binary the commands name, so
     * that a later run from elsewhere knows them for airspace's own. */
    if (applied) {
        json_t *bins = json_object_get(rec, "bins");
        if (!json_is_array(bins)) {
            bins = json_array();
            json_object_set_new(rec, "bins", bins);
        }
        bool known = false;
        size_t k;
        json_t *x;
        json_array_foreach(bins, k, x)
        {
            known = known ||
                    (json_is_string(x) && !strcmp(json_string_value(x), bin));
        }
        if (!known)
            json_array_append_new(bins, json_string(bin));
        int sr = record_save(g, rec);
        if (rc && !sr)
            fprintf(stderr,
                "airspace init: stopped: the %zu change%s made so far %s "
                "recorded; 'airspace init --remove' undoes %s\n",
                applied, applied == 1 ? "" : "s", applied == 1 ? "is" : "are",
                applied == 1 ? "it" : "them");
        rc = rc ? rc : sr;
    }
    if (!rc && !changed)
        printf("airspace is already installed here: nothing to change\n");
    else if (!rc && o->dry_run)
        printf("(dry run: nothing written)\n");
    if (!rc && o->clients[INIT_CODEX])
        printf("note: Codex runs these hooks only in a trusted project "
               "([projects.\"%s\"] trust_level = \"trusted\" in "
               "~/.codex/config.toml) once the hooks themselves are trusted "
               "(review them with /hooks in codex); until then it skips "
               "them without a word\n",
            g->toplevel);
    if (!rc && o->clients[INIT_GEMINI]) {
        char *note = init_gemini_note(g->toplevel);
        printf("note: %s\n", note);
        free(note);
    }
    json_decref(rec);
    strv_free(gone, ngone);
    for (size_t i = 0; i < p.n; i++)
        change_release(&p.v[i]);
    free(p.v);
    return rc ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}

/* ---- remove ---- */

static int
remove_hook(json_t *ent, const char *path, bool dry)
{
    char *cur;
    size_t len;
    if (read_opt(path, &cur, &len, NULL))
        return -1;
    char *chained = xasprintf("%s.airspace-chained", path);
    int rc = 0;
    if (cur && !init_git_hook_is_ours(cur)) {
        printf("leave %s: it is no longer airspace's hook\n", path);
    } else if (json_is_true(json_object_get(ent, "chained"))) {
        printf("restore %s\n", path);
        if (!dry)
            rc = rename(chained, path);
    } else if (cur) {
        printf("delete %s\n", path);
        if (!dry)
            rc = unlink(path);
    }
    free(chained);
    free(cur);
    return rc;
}

/* bak: the backup's path, NULL when there is none. */
static int
remove_config(json_t *ent, const char *path, const char *bak, bool dry)
{
    char *cur;
    size_t len;
    mode_t mode = 0644;
    if (read_opt(path, &cur, &len, &mode))
        return -1;
    if (!cur)
        return 0;
    char h[17];
    hash_hex(cur, len, h);
    bool created = json_is_true(json_object_get(ent, "created"));
    const char *written = json_string_value(json_object_get(ent, "written"));
    char *old = NULL;
    size_t old_len;
    int rc = 0;
    if (bak && read_opt(bak, &old, &old_len, NULL)) {
        free(cur);
        return -1;
    }
    if (written && !strcmp(h, written)) {
        /* Untouched since: put back exactly what was there. */
        if (created) {
            printf("delete %s\n", path);
            if (!dry)
                rc = unlink(path);
        } else {
            mode_t m = (mode_t)json_integer_value(json_object_get(ent, "mode"));
            if (old) {
                printf("restore %s\n", path);
                if (!dry)
                    rc = write_mode(path, old, old_len, m ? m : mode);
            } else {
                fprintf(stderr, "airspace init: the backup of '%s' is gone\n",
                    path);
                rc = -1;
            }
        }
    } else if (!strcmp(
                   json_string_value(json_object_get(ent, "kind")), "json")) {
        /* Edited since: take out only what init added; what the file had
         * before (its backup) stays, airspace's or not. */
        char *out;
        bool empty, took;
        struct as_err e;
        rc = init_unmerge_json(
            cur, created ? NULL : old, path, &out, &empty, &took, &e);
        if (rc) {
            fprintf(stderr, "airspace init: %s\n", e.msg);
        } else if (!took) {
            printf("leave %s: nothing of airspace's is left in it\n", path);
            free(out);
        } else {
            printf("%s %s (edited since: only airspace's entries)\n",
                created && empty ? "delete" : "unmerge", path);
            if (!dry)
                rc = created && empty
                         ? unlink(path)
                         : write_mode(path, out, strlen(out), mode);
            free(out);
        }
    } else {
        const char *app = json_string_value(json_object_get(ent, "appended"));
        char *at = app ? strstr(cur, app) : NULL;
        if (!at) {
            printf("leave %s: airspace's block is no longer there\n", path);
        } else {
            printf("unmerge %s (edited since: only airspace's block)\n", path);
            size_t n = strlen(app);
            memmove(at, at + n, len - (size_t)(at - cur) - n + 1);
            if (!dry)
                rc = write_mode(path, cur, len - n, mode);
        }
    }
    free(old);
    free(cur);
    return rc;
}

/* An entry's path (absolute, NULL when it cannot be found) and the paths
 * of its backup and directories. */
struct located {
    char *path, *bak, *base;
    const char *why;
    bool gone;
};

static int
uninstall(const struct opts *o, const struct repo *r)
{
    const struct init_git *g = r->g;
    json_t *rec = record_load(r);
    json_t *entries = json_object_get(rec, "entries");
    size_t n = json_array_size(entries);
    if (!n) {
        printf("airspace init installed nothing here\n");
        json_decref(rec);
        return CLI_EXIT_OK;
    }
    /* Find every file first: a record naming a file of another repository
     * (this one was moved or copied before the record named files by
     * where they belong) refuses the run before anything is touched. */
    struct located *at = xcalloc(n, sizeof(*at));
    int rc = 0;
    char *store = xasprintf("%s/airspace", g->common_dir);
    for (size_t i = 0; i < n; i++) {
        json_t *ent = json_array_get(entries, i);
        const char *in = json_string_value(json_object_get(ent, "in"));
        const char *bak = json_string_value(json_object_get(ent, "backup"));
        at[i].path = record_locate(r, ent,
            json_string_value(json_object_get(ent, "path")), &at[i].why,
            &at[i].gone);
        if (in && !strcmp(in, "foreign")) {
            fprintf(stderr,
                "airspace init: the record names '%s', which is not in this "
                "repository\n",
                json_string_value(json_object_get(ent, "path")));
            rc = -1;
        } else if (bak && !safe_sub(bak)) {
            fprintf(stderr,
                "airspace init: the record names a backup '%s' outside "
                "'%s': nothing was changed\n",
                bak, store);
            rc = -1;
        }
        at[i].bak = bak ? xasprintf("%s/%s", store, bak) : NULL;
        if (at[i].path && strcmp(in, "abs"))
            at[i].base = xstrndup(at[i].path,
                strlen(at[i].path) -
                    strlen(json_string_value(json_object_get(ent, "path"))) -
                    1);
    }
    if (rc)
        fprintf(stderr,
            "airspace init: the repository was moved or copied since an "
            "earlier airspace recorded its changes: nothing was changed; "
            "undo them by hand (or run 'airspace init --remove' where that "
            "repository is), then delete '%s/init.json'\n",
            store);
    for (size_t i = rc ? 0 : n; i-- > 0;) {
        json_t *ent = json_array_get(entries, i);
        const char *sub = json_string_value(json_object_get(ent, "path"));
        const char *kind = json_string_value(json_object_get(ent, "kind"));
        if (!at[i].path && at[i].gone) {
            printf("forget %s: %s (its files went with it)\n", sub, at[i].why);
        } else if (!at[i].path) {
            fprintf(stderr, "airspace init: cannot undo '%s': %s\n", sub,
                at[i].why);
            rc = -1;
            continue;
        } else {
            int res =
                kind && !strcmp(kind, "githook")
                    ? remove_hook(ent, at[i].path, o->dry_run)
                    : remove_config(ent, at[i].path, at[i].bak, o->dry_run);
            if (res) {
                fprintf(
                    stderr, "airspace init: could not undo '%s'\n", at[i].path);
                rc = res;
                continue;
            }
        }
        json_t *dirs = json_object_get(ent, "dirs");
        for (size_t k = json_array_size(dirs);
             !o->dry_run && at[i].base && k-- > 0;) {
            const char *d = json_string_value(json_array_get(dirs, k));
            char *dir = safe_sub(d) ? xasprintf("%s/%s", at[i].base, d) : NULL;
            if (dir)
                rmdir(dir);
            free(dir);
        }
        if (at[i].bak && !o->dry_run)
            unlink(at[i].bak);
        if (!o->dry_run)
            json_array_remove(entries, i);
    }
    if (o->dry_run) {
        printf("(dry run: nothing written)\n");
    } else if (json_array_size(entries) == n) {
        /* nothing undone: the record stays as it was */
    } else if (json_array_size(entries)) {
        record_save(g, rec);
    } else {
        char *path = record_path(g);
        char *dir = xasprintf("%s/init-backup", store);
        unlink(path);
        rmdir(dir);
        free(dir);
        free(path);
    }
    for (size_t i = 0; i < n; i++) {
        free(at[i].path);
        free(at[i].bak);
        free(at[i].base);
    }
    free(at);
    free(store);
    json_decref(rec);
    return rc ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}

/* ---- what the installed git hooks run ---- */

/* The agent committing: AIRSPACE_AGENT, the client session running git
 * (cli/session.h), or whoever flies this worktree. */
static char *
committer(struct client *cl, const struct init_git *g)
{
    const char *top = g->toplevel;
    char *dir = xasprintf("%s/airspace", g->common_dir);
    char *who = session_default_agent(dir);
    free(dir);
    if (who)
        return who;
    long status;
    json_t *reply = NULL;
    struct as_err e;
    char *id = NULL;
    if (!client_call(cl, api_agents(false), &status, &reply, &e) &&
        status == 200) {
        size_t i;
        json_t *a;
        json_array_foreach(json_object_get(reply, "agents"), i, a)
        {
            const char *wt = json_string_value(json_object_get(a, "worktree"));
            if (wt && !strcmp(wt, top) && !id)
                id = xstrdup(json_string_value(json_object_get(a, "id")));
        }
    }
    if (reply)
        json_decref(reply);
    return id ? id : xstrdup("git-commit");
}

static int
pre_commit(struct client *cl, const struct init_git *g)
{
    const char *argv[] = { "git", "diff", "--cached", "--name-only", "-z",
        "--no-renames", NULL };
    char *names;
    struct as_err e;
    if (init_git_run(argv, &names, &e))
        return CLI_EXIT_OK;
    char *me = committer(cl, g);
    int refused = 0;
    for (char *p = names; *p; p += strlen(p) + 1) {
        long status;
        json_t *reply = NULL;
        if (!client_call(
                cl, api_lock_check(me, p, "shared"), &status, &reply, &e) &&
            status == 200 && json_is_false(json_object_get(reply, "free"))) {
            json_t *h = json_object_get(reply, "holder");
            const char *reason =
                json_string_value(json_object_get(h, "reason"));
            fprintf(stderr,
                "airspace: '%s' is locked by %s ('%s', %s %s, %lld s "
                "left)%s%s\n",
                p, json_string_value(json_object_get(h, "holder")),
                json_string_value(json_object_get(h, "pattern")),
                json_string_value(json_object_get(h, "mode")),
                json_string_value(json_object_get(h, "kind")),
                (long long)json_integer_value(
                    json_object_get(h, "expiresInMs")) /
                    1000,
                reason ? ": " : "", reason ? reason : "");
            refused++;
        }
        if (reply)
            json_decref(reply);
    }
    if (refused)
        fprintf(stderr,
            "airspace: commit refused: %d staged file%s held by another "
            "agent (as %s). Ask the holder, wait for the lock to expire, or "
            "unstage them; 'git commit --no-verify' skips this check.\n",
            refused, refused == 1 ? " is" : "s are", me);
    free(me);
    free(names);
    return refused ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

static int
git_hook(const char *name)
{
    struct init_git g;
    struct as_err e;
    if (init_git_resolve(&g, &e))
        return CLI_EXIT_OK;
    struct client cl;
    int rc = CLI_EXIT_OK;
    /* Never start a daemon from a git hook: no daemon, nothing held. */
    if (client_open(&cl, g.toplevel, false, &e)) {
        client_close(&cl);
        init_git_release(&g);
        return CLI_EXIT_OK;
    }
    cl.timeout_ms = 2000;
    if (!strcmp(name, "pre-commit")) {
        rc = pre_commit(&cl, &g);
    } else {
        long status;
        json_t *reply = NULL;
        client_call(&cl, api_refresh_git(), &status, &reply, &e);
        if (reply)
            json_decref(reply);
    }
    client_close(&cl);
    init_git_release(&g);
    return rc;
}

/* ---- the command ---- */

static const char usage[] =
    "usage: airspace init [--claude-code] [--codex] [--gemini] [--all]\n"
    "                     [--dry-run] [--remove]\n\n"
    "Install airspace's hooks and MCP server into the agent clients'\n"
    "configuration in this repository, and its git hooks (pre-commit,\n"
    "post-commit, reference-transaction), merging with what is there and\n"
    "chaining existing git hooks. Running it again changes nothing.\n"
    "--remove undoes exactly what it added; --dry-run only shows the\n"
    "changes. See docs/init.md.\n";

int
cmd_init(int argc, char **argv)
{
    struct opts o;
    memset(&o, 0, sizeof(o));
    const char *hook = NULL;
    bool all = false;
    const struct opt table[] = {
        { .name = "claude-code",
            .kind = OPT_FLAG,
            .target = &o.clients[INIT_CLAUDE_CODE] },
        { .name = "codex", .kind = OPT_FLAG, .target = &o.clients[INIT_CODEX] },
        { .name = "gemini",
            .kind = OPT_FLAG,
            .target = &o.clients[INIT_GEMINI] },
        { .name = "all", .kind = OPT_FLAG, .target = &all },
        { .name = "dry-run", .kind = OPT_FLAG, .target = &o.dry_run },
        { .name = "remove", .kind = OPT_FLAG, .target = &o.remove },
        { .name = "git-hook", .kind = OPT_STRING, .target = &hook },
        OPT_TABLE_END,
    };
    int rc = opts_parse(argc, argv, table, "init", usage, 0);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if (all)
        o.clients[0] = o.clients[1] = o.clients[2] = true;
    if (hook)
        return git_hook(hook);
    if (optind < argc)
        return dcli_usage("init", "unexpected argument '%s'", argv[optind]);
    struct init_git g;
    struct as_err e;
    if (init_git_resolve(&g, &e)) {
        fprintf(stderr, "airspace init: %s\n", e.msg);
        return CLI_EXIT_USAGE;
    }
    struct repo r;
    repo_init(&r, &g);
    if (o.remove) {
        rc = uninstall(&o, &r);
    } else {
        char *bin = realpath("/proc/self/exe", NULL);
        if (!bin) {
            fprintf(stderr, "airspace init: cannot find this binary: %s\n",
                strerror(errno));
            repo_release(&r);
            init_git_release(&g);
            return CLI_EXIT_ERROR;
        }
        /* the settings may be committed: name the binary as $PATH finds
         * it when that is this binary, not by one machine's path */
        char *found = init_on_path("airspace");
        if (found && !strcmp(found, bin)) {
            free(bin);
            bin = xstrdup("airspace");
        } else if ((o.clients[0] || o.clients[1] || o.clients[2]) && found) {
            printf("note: 'airspace' on $PATH is %s, not %s: the settings "
                   "name %s by its path; commit them only where every "
                   "machine has it there\n",
                found, bin, bin);
        } else if (o.clients[0] || o.clients[1] || o.clients[2]) {
            printf("note: no 'airspace' on $PATH: the settings name %s by "
                   "its path; commit them only where every machine has it "
                   "there\n",
                bin);
        }
        free(found);
        if (!o.clients[0] && !o.clients[1] && !o.clients[2])
            printf("no client chosen (--claude-code, --codex, --gemini, "
                   "--all): git hooks only\n");
        rc = install(&o, &r, bin);
        free(bin);
    }
    repo_release(&r);
    init_git_release(&g);
    return rc;
}

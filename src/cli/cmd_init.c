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
#include "util/xalloc.h"
#include "util/banned.h"

enum kind { K_JSON, K_TOML, K_HOOK };

static const char *const kind_names[] = { "json", "toml", "githook" };

/* One planned change of one file. */
struct change {
    char *path;      /* absolute */
    const char *rel; /* for messages (points into path) */
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

/* Create the missing directories above path; record them in dirs. */
static int
make_parents(const char *path, json_t *dirs)
{
    char *d = xstrdup(path);
    int rc = 0;
    for (char *p = d + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        if (mkdir(d, 0755) == 0)
            json_array_append_new(dirs, json_string(d));
        else if (errno != EEXIST)
            rc = -1;
        *p = '/';
    }
    free(d);
    return rc;
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
};

/* A change of the file at path (absolute); its messages name it from the
 * worktree's top when it is below it. */
static struct change *
plan_add_path(struct plan *p, const char *path, enum kind kind)
{
    ALLOC_GROW(p->v, p->n + 1, p->a);
    struct change *c = &p->v[p->n++];
    memset(c, 0, sizeof(*c));
    c->path = xstrdup(path);
    size_t n = strlen(p->top);
    c->rel =
        !strncmp(path, p->top, n) && path[n] == '/' ? c->path + n + 1 : c->path;
    c->kind = kind;
    c->mode = create_mode(0644);
    if (read_opt(c->path, &c->old, &c->old_len, &c->mode))
        return NULL;
    return c;
}

static struct change *
plan_add(struct plan *p, const char *rel, enum kind kind)
{
    char *path = xasprintf("%s/%s", p->top, rel);
    struct change *c = plan_add_path(p, path, kind);
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
    int rc = mcp_only ? init_merge_mcp(c->old, rel, bin, &c->new, &e)
                      : init_merge_hooks(c->old, rel, (enum init_client)client,
                            bin, NULL, with_mcp, &c->new, &e);
    if (rc)
        fprintf(stderr, "airspace init: %s\n", e.msg);
    return rc;
}

/*
 * The top of the main checkout, whose .claude/settings.local.json Claude
 * Code reads for a session started anywhere in the repository, in any
 * worktree (new string); NULL when the client finds none: the repository
 * is bare, or seen from a linked worktree its git directory is not the
 * main checkout's .git.
 */
static char *
main_checkout(const struct init_git *g)
{
    const char *argv[] = { "git", "rev-parse", "--absolute-git-dir", NULL };
    char *out = NULL;
    struct as_err e;
    char *top = NULL;
    if (init_git_run(argv, &out, &e) == 0) {
        out[strcspn(out, "\n")] = '\0';
        char *dir = realpath(out, NULL);
        if (dir && !strcmp(dir, g->common_dir))
            top = xstrdup(g->toplevel);
        free(dir);
    }
    free(out);
    size_t n = strlen(g->common_dir);
    struct stat st;
    if (!top && n > 5 && !strcmp(g->common_dir + n - 5, "/.git")) {
        top = xstrndup(g->common_dir, n - 5);
        if (stat(top, &st) < 0 || !S_ISDIR(st.st_mode)) {
            free(top);
            top = NULL;
        }
    }
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
plan_claude(struct plan *p, const struct init_git *g, const char *bin)
{
    struct change *top = plan_add(p, ".claude/settings.json", K_JSON);
    if (!top)
        return -1;
    char *checkout = main_checkout(g);
    struct change *local = NULL;
    if (checkout) {
        char *path = xasprintf("%s/.claude/settings.local.json", checkout);
        size_t at = p->n - 1; /* adding may move the plan's array */
        local = plan_add_path(p, path, K_JSON);
        top = &p->v[at];
        free(path);
        free(checkout);
        if (!local)
            return -1;
    } else {
        printf("note: this repository has no main checkout that Claude Code "
               "reads for every worktree: a session started below a "
               "worktree's top runs no airspace hook\n");
    }
    struct as_err e;
    int rc = init_merge_hooks(top->old, top->rel, INIT_CLAUDE_CODE, bin,
        local ? local->old : NULL, false, &top->new, &e);
    if (!rc && local)
        rc = init_merge_hooks(local->old, local->rel, INIT_CLAUDE_CODE, bin,
            top->new, false, &local->new, &e);
    if (rc)
        fprintf(stderr, "airspace init: %s\n", e.msg);
    return rc;
}

static int
build_plan(struct plan *p, const struct opts *o, const struct init_git *g,
    const char *bin)
{
    int rc = 0;
    if (o->clients[INIT_CLAUDE_CODE])
        rc = plan_claude(p, g, bin);
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
    }
    if (!rc && o->clients[INIT_GEMINI])
        rc = plan_json(
            p, ".gemini/settings.json", INIT_GEMINI, false, true, bin);
    for (size_t i = 0; !rc && init_git_hooks[i]; i++) {
        /* Git hooks live outside the worktree: a path of their own. */
        ALLOC_GROW(p->v, p->n + 1, p->a);
        struct change *c = &p->v[p->n++];
        memset(c, 0, sizeof(*c));
        c->path = xasprintf("%s/%s", g->hooks_dir, init_git_hooks[i]);
        c->rel = c->path;
        c->kind = K_HOOK;
        c->mode = create_mode(0755);
        if (read_opt(c->path, &c->old, &c->old_len, NULL))
            return -1;
        if (init_git_hook_is_ours(c->old)) {
            c->new = xstrdup(c->old);
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

static json_t *
record_load(const struct init_git *g)
{
    char *path = record_path(g);
    json_t *r = json_load_file(path, JSON_PRESERVE_ORDER, NULL);
    free(path);
    if (!json_is_object(r)) {
        if (r)
            json_decref(r);
        r = json_pack("{s:i, s:[]}", "version", 1, "entries");
    }
    return r;
}

static json_t *
record_find(json_t *rec, const char *path)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(rec, "entries"), i,
        x) if (!strcmp(json_string_value(json_object_get(x, "path")),
                   path)) return x;
    return NULL;
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

/*
 * Make change c and record it in rec. On failure nothing of c is left
 * (its backup, directories and chaining are undone) and rec is as it was.
 */
static int
apply_one(struct change *c, const struct init_git *g, json_t *rec, size_t seq)
{
    json_t *ent = record_find(rec, c->path);
    bool fresh = !ent;
    char *bak = NULL, *chained = NULL;
    if (fresh) {
        ent = json_pack("{s:s, s:s, s:b}", "path", c->path, "kind",
            kind_names[c->kind], "created", c->old == NULL);
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
            json_object_set_new(ent, "backup", json_string(bak));
            json_object_set_new(ent, "mode", json_integer(c->mode));
        }
    }
    json_t *dirs = json_object_get(ent, "dirs");
    size_t ndirs = json_array_size(dirs);
    if (make_parents(c->path, dirs))
        goto out_rmdir;
    if (c->kind == K_HOOK && c->old) {
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
    if (fresh) {
        /* Only what the first run wrote may be replaced by the backup:
         * a later run rewrites a file the user edited. */
        char h[17];
        hash_hex(c->new, strlen(c->new), h);
        json_object_set_new(ent, "written", json_string(h));
        json_array_append_new(json_object_get(rec, "entries"), ent);
    }
    free(chained);
    free(bak);
    return 0;

out_unchain:
    if (chained)
        rename(chained, c->path);
    free(chained);
out_rmdir:
    for (size_t k = json_array_size(dirs); k-- > ndirs;) {
        rmdir(json_string_value(json_array_get(dirs, k)));
        json_array_remove(dirs, k);
    }
out_forget:
    if (bak)
        unlink(bak);
    free(bak);
    if (fresh)
        json_decref(ent);
    return -1;
}

static int
install(const struct opts *o, const struct init_git *g, const char *bin)
{
    struct plan p = { NULL, 0, 0, g->toplevel };
    int rc = build_plan(&p, o, g, bin);
    json_t *rec = record_load(g);
    size_t changed = 0, applied = 0;
    for (size_t i = 0; !rc && i < p.n; i++) {
        struct change *c = &p.v[i];
        if (unchanged(c))
            continue;
        changed++;
        const char *verb = !c->old             ? "create"
                           : c->kind == K_HOOK ? "chain"
                                               : "merge into";
        printf("%s %s%s\n", verb, c->rel,
            c->kind == K_HOOK && c->old
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
     * that --remove can undo it. */
    if (applied) {
        int r = record_save(g, rec);
        if (rc && !r)
            fprintf(stderr,
                "airspace init: stopped: the %zu change%s made so far %s "
                "recorded; 'airspace init --remove' undoes %s\n",
                applied, applied == 1 ? "" : "s", applied == 1 ? "is" : "are",
                applied == 1 ? "it" : "them");
        rc = rc ? rc : r;
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

static int
remove_config(json_t *ent, const char *path, bool dry)
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
    const char *bak = json_string_value(json_object_get(ent, "backup"));
    const char *written = json_string_value(json_object_get(ent, "written"));
    int rc = 0;
    if (written && !strcmp(h, written)) {
        /* Untouched since: put back exactly what was there. */
        if (created) {
            printf("delete %s\n", path);
            if (!dry)
                rc = unlink(path);
        } else {
            char *old;
            size_t old_len;
            mode_t m = (mode_t)json_integer_value(json_object_get(ent, "mode"));
            rc = bak ? read_opt(bak, &old, &old_len, NULL) : -1;
            if (!rc && old) {
                printf("restore %s\n", path);
                if (!dry)
                    rc = write_mode(path, old, old_len, m ? m : mode);
            } else {
                fprintf(stderr, "airspace init: the backup of '%s' is gone\n",
                    path);
                rc = -1;
            }
            if (!rc)
                free(old);
        }
    } else if (!strcmp(
                   json_string_value(json_object_get(ent, "kind")), "json")) {
        /* Edited since: take out only our entries. */
        char *out;
        bool empty;
        struct as_err e;
        rc = init_unmerge_json(cur, path, &out, &empty, &e);
        if (rc) {
            fprintf(stderr, "airspace init: %s\n", e.msg);
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
    free(cur);
    return rc;
}

static int
uninstall(const struct opts *o, const struct init_git *g)
{
    json_t *rec = record_load(g);
    json_t *entries = json_object_get(rec, "entries");
    if (!json_array_size(entries)) {
        printf("airspace init installed nothing here\n");
        json_decref(rec);
        return CLI_EXIT_OK;
    }
    int rc = 0;
    for (size_t i = json_array_size(entries); i-- > 0;) {
        json_t *ent = json_array_get(entries, i);
        const char *path = json_string_value(json_object_get(ent, "path"));
        const char *kind = json_string_value(json_object_get(ent, "kind"));
        int r = !strcmp(kind, "githook") ? remove_hook(ent, path, o->dry_run)
                                         : remove_config(ent, path, o->dry_run);
        if (r) {
            fprintf(stderr, "airspace init: could not undo '%s'\n", path);
            rc = r;
            continue;
        }
        json_t *dirs = json_object_get(ent, "dirs");
        for (size_t k = json_array_size(dirs); !o->dry_run && k-- > 0;)
            rmdir(json_string_value(json_array_get(dirs, k)));
        const char *bak = json_string_value(json_object_get(ent, "backup"));
        if (bak && !o->dry_run)
            unlink(bak);
        if (!o->dry_run)
            json_array_remove(entries, i);
    }
    if (!o->dry_run) {
        if (json_array_size(entries)) {
            record_save(g, rec);
        } else {
            char *path = record_path(g);
            char *dir = xasprintf("%s/airspace/init-backup", g->common_dir);
            unlink(path);
            rmdir(dir);
            free(dir);
            free(path);
        }
    } else {
        printf("(dry run: nothing written)\n");
    }
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
    if (o.remove) {
        rc = uninstall(&o, &g);
    } else {
        char *bin = realpath("/proc/self/exe", NULL);
        if (!bin) {
            fprintf(stderr, "airspace init: cannot find this binary: %s\n",
                strerror(errno));
            init_git_release(&g);
            return CLI_EXIT_ERROR;
        }
        /* the settings may be committed: name the binary as $PATH finds
         * it when that is this binary, not by one machine's path */
        char *found = init_on_path("airspace");
        if (found && !strcmp(found, bin)) {
            free(bin);
            bin = xstrdup("airspace");
        } else if (o.clients[0] || o.clients[1] || o.clients[2]) {
            printf("note: 'airspace' on $PATH is not %s: the settings name "
                   "it by that path; commit them only where every machine "
                   "has it there\n",
                bin);
        }
        free(found);
        if (!o.clients[0] && !o.clients[1] && !o.clients[2])
            printf("no client chosen (--claude-code, --codex, --gemini, "
                   "--all): git hooks only\n");
        rc = install(&o, &g, bin);
        free(bin);
    }
    init_git_release(&g);
    return rc;
}

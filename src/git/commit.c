/*
 * commit.c - scoped commits through an in-memory index and a
 * compare-and-swap ref update (see commit.h).
 *
 * Longer than 1,000 lines on purpose: it is one transaction (what changed,
 * whose identity, build the tree, swap the ref, verify, then bring the
 * worktree's own index up to date) whose four sections share one private
 * state struct and its retry loop; split apart, that state and every step's
 * preconditions would have to be exported to each other.
 */
#include "git/commit.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "git/indexlock.h"
#include "git/repo.h"
#include "util/isotime.h"
#include "util/sort.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define COMMIT_DEFAULT_ATTEMPTS 64
#define COMMIT_DEFAULT_INDEX_TRIES 5
#define COMMIT_DEFAULT_INDEX_WAIT_MS 40
/* Reads of a file that keeps changing under us before giving up. */
#define COMMIT_READ_TRIES 5

struct commit_tree {
    git_repository *g; /* the worktree's own handle: writes go to disk */
    char *top;         /* real path of the working tree */
    char *index_path;  /* its index file */
    bool is_main;
    char *head_ref;          /* "refs/heads/x"; NULL when detached */
    char *branch;            /* "x"; NULL when detached */
    bool unborn;             /* head_ref has no commit yet */
    git_oid start;           /* HEAD at open (zero when unborn) */
    git_tree *start_tree;    /* NULL when unborn */
    bool filemode, symlinks; /* core.filemode, core.symlinks */
    git_config *cfg;         /* a snapshot of its configuration */
    git_index *idx; /* the worktree's index as read at open; may be NULL */
    char **changed; /* commit_changed_paths(), once asked */
    size_t nchanged;
    bool have_changed;
};

const char *
commit_status_name(enum commit_status s)
{
    switch (s) {
    case COMMIT_ADDED:
        return "added";
    case COMMIT_MODIFIED:
        return "modified";
    case COMMIT_DELETED:
        return "deleted";
    case COMMIT_MODE:
        return "mode";
    case COMMIT_TYPECHANGE:
        return "typechange";
    }
    return "modified";
}

void
commit_files_free(struct commit_file *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].path);
    free(v);
}

void
commit_result_release(struct commit_result *r)
{
    free(r->branch);
    free(r->subject);
    free(r->index_note);
    memset(r, 0, sizeof(*r));
}

static const char *
state_name(int state)
{
    switch (state) {
    case GIT_REPOSITORY_STATE_MERGE:
        return "a merge";
    case GIT_REPOSITORY_STATE_REVERT:
    case GIT_REPOSITORY_STATE_REVERT_SEQUENCE:
        return "a revert";
    case GIT_REPOSITORY_STATE_CHERRYPICK:
    case GIT_REPOSITORY_STATE_CHERRYPICK_SEQUENCE:
        return "a cherry-pick";
    case GIT_REPOSITORY_STATE_APPLY_MAILBOX:
    case GIT_REPOSITORY_STATE_APPLY_MAILBOX_OR_REBASE:
        return "a git am";
    default:
        return "a rebase";
    }
}

static bool
config_bool(git_config *cfg, const char *key, bool dflt)
{
    int v;
    if (git_config_get_bool(&v, cfg, key) < 0) {
        git_error_clear();
        return dflt;
    }
    return v != 0;
}

/* Read HEAD: the branch it names (or detached) and its commit. */
static int
read_head(struct commit_tree *t, struct as_err *e)
{
    git_reference *head = NULL;
    if (git_reference_lookup(&head, t->g, "HEAD") < 0)
        return repo_git_errorf(e, "cannot read HEAD of '%s'", t->top);
    int rc = 0;
    if (git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
        const char *target = git_reference_symbolic_target(head);
        if (!target || strncmp(target, "refs/heads/", 11)) {
            rc = as_errorf(e, AS_EINVAL,
                "HEAD of '%s' points at '%s', not at a branch", t->top,
                target ? target : "?");
            goto out;
        }
        t->head_ref = xstrdup(target);
        t->branch = xstrdup(target + 11);
        int err = git_reference_name_to_id(&t->start, t->g, target);
        if (err == GIT_ENOTFOUND) {
            git_error_clear();
            t->unborn = true;
        } else if (err < 0) {
            rc = repo_git_errorf(e, "cannot resolve '%s'", target);
            goto out;
        }
    } else {
        git_oid_cpy(&t->start, git_reference_target(head));
    }
    if (!t->unborn) {
        git_commit *c = NULL;
        if (git_commit_lookup(&c, t->g, &t->start) < 0 ||
            git_commit_tree(&t->start_tree, c) < 0) {
            git_commit_free(c);
            rc =
                repo_git_errorf(e, "cannot read HEAD's commit in '%s'", t->top);
            goto out;
        }
        git_commit_free(c);
    }
out:
    git_reference_free(head);
    return rc;
}

int
commit_open(const char *dir, struct commit_tree **out, struct as_err *e)
{
    git_repository *g = NULL;
    *out = NULL;
    git_libgit2_init();
    int err = git_repository_open_ext(&g, dir, 0, NULL);
    if (err == GIT_ENOTFOUND) {
        git_error_clear();
        git_libgit2_shutdown();
        return as_errorf(e, AS_ENOENT,
            "cannot open '%s': not inside a git working tree", dir);
    }
    if (err < 0) {
        err = repo_git_errorf(e, "cannot open '%s'", dir);
        git_libgit2_shutdown();
        return err;
    }
    struct commit_tree *t = xcalloc(1, sizeof(*t));
    t->g = g;
    int rc = 0;
    if (git_repository_is_bare(g) || !git_repository_workdir(g)) {
        rc = as_errorf(e, AS_EINVAL,
            "'%s' is a bare repository: there is no working tree to commit "
            "from",
            dir);
        goto fail;
    }
    t->top = realpath(git_repository_workdir(g), NULL);
    if (!t->top) {
        rc = as_errorf(e, AS_EIO, "cannot resolve '%s': %s",
            git_repository_workdir(g), strerror(errno));
        goto fail;
    }
    t->is_main = !git_repository_is_worktree(g);
    int state = git_repository_state(g);
    if (state != GIT_REPOSITORY_STATE_NONE &&
        state != GIT_REPOSITORY_STATE_BISECT) {
        rc = as_errorf(e, AS_ECONFLICT,
            "%s is in progress in '%s': finish or abort it with git first",
            state_name(state), t->top);
        goto fail;
    }
    const char *gitdir = git_repository_path(g);
    const char *env_index = getenv("GIT_INDEX_FILE");
    t->index_path = env_index && *env_index ? xstrdup(env_index)
                                            : xasprintf("%sindex", gitdir);
    if ((rc = read_head(t, e)))
        goto fail;
    if (git_repository_config_snapshot(&t->cfg, g) < 0) {
        rc =
            repo_git_errorf(e, "cannot read the configuration of '%s'", t->top);
        goto fail;
    }
    t->filemode = config_bool(t->cfg, "core.filemode", true);
    t->symlinks = config_bool(t->cfg, "core.symlinks", true);
    if (git_repository_index(&t->idx, g) < 0) {
        git_error_clear(); /* only used to see sparse-checkout entries */
        t->idx = NULL;
    }
    *out = t;
    return 0;
fail:
    commit_close(t);
    return rc;
}

void
commit_close(struct commit_tree *t)
{
    if (!t)
        return;
    git_index_free(t->idx);
    git_config_free(t->cfg);
    git_tree_free(t->start_tree);
    git_repository_free(t->g);
    for (size_t i = 0; i < t->nchanged; i++)
        free(t->changed[i]);
    free(t->changed);
    free(t->top);
    free(t->index_path);
    free(t->head_ref);
    free(t->branch);
    free(t);
    git_libgit2_shutdown();
}

const char *
commit_toplevel(const struct commit_tree *t)
{
    return t->top;
}

bool
commit_is_main(const struct commit_tree *t)
{
    return t->is_main;
}

/* ---- what changed ---- */

int
commit_changed_paths(
    struct commit_tree *t, char ***paths, size_t *n, struct as_err *e)
{
    *paths = NULL;
    *n = 0;
    git_status_options so;
    git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
    so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED |
               GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
               GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
    git_status_list *list = NULL;
    if (git_status_list_new(&list, t->g, &so) < 0)
        return repo_git_errorf(e, "cannot read the status of '%s'", t->top);
    size_t count = git_status_list_entrycount(list), k = 0, alloc = 0;
    char **v = NULL;
    for (size_t i = 0; i < count; i++) {
        const git_status_entry *s = git_status_byindex(list, i);
        const git_diff_delta *ds[2] = { s->head_to_index, s->index_to_workdir };
        for (int j = 0; j < 2; j++) {
            if (!ds[j])
                continue;
            const char *p[2] = { ds[j]->old_file.path, ds[j]->new_file.path };
            for (int q = 0; q < 2; q++) {
                if (!p[q] || !*p[q] || p[q][strlen(p[q]) - 1] == '/')
                    continue; /* an untracked nested repository */
                ALLOC_GROW(v, k + 1, alloc);
                v[k++] = xstrdup(p[q]);
            }
        }
    }
    git_status_list_free(list);
    *paths = v;
    *n = sort_uniq_strv(v, k);
    return 0;
}

/* The entry at path in tree (NULL: an empty tree). */
static bool
entry_at(git_tree *tree, const char *path, git_oid *oid, uint32_t *mode)
{
    git_tree_entry *te = NULL;
    if (!tree || git_tree_entry_bypath(&te, tree, path) < 0) {
        git_error_clear();
        return false;
    }
    if (oid)
        git_oid_cpy(oid, git_tree_entry_id(te));
    if (mode)
        *mode = (uint32_t)git_tree_entry_filemode(te);
    git_tree_entry_free(te);
    return true;
}

static bool
same_entry(git_tree *a, git_tree *b, const char *path)
{
    git_oid oa, ob;
    uint32_t ma = 0, mb = 0;
    bool fa = entry_at(a, path, &oa, &ma), fb = entry_at(b, path, &ob, &mb);
    return fa == fb && (!fa || (ma == mb && git_oid_equal(&oa, &ob)));
}

static bool
same_stat(const struct stat *a, const struct stat *b)
{
    return a->st_mode == b->st_mode && a->st_size == b->st_size &&
           a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
           a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
           a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static const git_index_entry *
index_entry(struct commit_tree *t, const char *path)
{
    return t->idx ? git_index_get_bypath(t->idx, path, 0) : NULL;
}

/* Refuse (strict) or drop (return 1) a spec. */
#define REFUSE(...) (strict ? as_errorf(e, AS_EINVAL, __VA_ARGS__) : 1)

/*
 * Where a parent of path is a symbolic link or a submodule (AS_EINVAL
 * when strict, 1 otherwise) or not a directory (*absent), or all are
 * directories (0).
 */
static int
check_parents(struct commit_tree *t, const char *path, bool strict,
    bool *absent, struct as_err *e)
{
    *absent = false;
    char *full = xasprintf("%s/%s", t->top, path);
    size_t toplen = strlen(t->top);
    int rc = 0;
    for (char *s = strchr(full + toplen + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        struct stat st;
        const char *prefix = full + toplen + 1;
        uint32_t mode = 0;
        const git_index_entry *ie = index_entry(t, prefix);
        if ((entry_at(t->start_tree, prefix, NULL, &mode) &&
                mode == GIT_FILEMODE_COMMIT) ||
            (ie && ie->mode == GIT_FILEMODE_COMMIT)) {
            rc = REFUSE("'%s' is inside the submodule '%s': commit inside "
                        "it with git",
                path, prefix);
        } else if (lstat(full, &st) < 0) {
            *absent = true;
        } else if (S_ISLNK(st.st_mode)) {
            rc = REFUSE("'%s' is beyond a symbolic link ('%s')", path,
                full + toplen + 1);
        } else if (!S_ISDIR(st.st_mode)) {
            *absent = true;
        }
        *s = '/';
        if (rc || *absent)
            break;
    }
    free(full);
    return rc;
}

/* The mode git would record for a working file of lstat st. */
static uint32_t
file_mode(struct commit_tree *t, const char *path, const struct stat *st,
    bool in_head, uint32_t head_mode)
{
    if (S_ISLNK(st->st_mode))
        return GIT_FILEMODE_LINK;
    const git_index_entry *ie = index_entry(t, path);
    uint32_t known = in_head ? head_mode : ie ? ie->mode : 0;
    if (!t->symlinks && known == GIT_FILEMODE_LINK)
        return GIT_FILEMODE_LINK; /* checked out as a plain file */
    if (!t->filemode)
        return known == GIT_FILEMODE_BLOB_EXECUTABLE
                   ? GIT_FILEMODE_BLOB_EXECUTABLE
                   : GIT_FILEMODE_BLOB;
    return (st->st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE
                                   : GIT_FILEMODE_BLOB;
}

static char *config_str(git_config *cfg, const char *key);

int
commit_filter_of(git_repository *g, git_config *cfg, git_attr_options *opts,
    const char *path, bool checkout, char **value, struct as_err *e)
{
    *value = NULL;
    const char *names[2] = { "filter", "working-tree-encoding" };
    const char *vals[2] = { NULL, NULL };
    int err = opts ? git_attr_get_many_ext(vals, g, opts, path, 2, names)
                   : git_attr_get_many(vals, g, 0, path, 2, names);
    if (err < 0)
        return repo_git_errorf(e, "cannot read the attributes of '%s'", path);
    if (git_attr_value(vals[0]) == GIT_ATTR_VALUE_STRING) {
        bool driver = false;
        const char *keys[2] = { checkout ? "smudge" : "clean", "process" };
        for (int i = 0; i < 2 && !driver; i++) {
            char *key = xasprintf("filter.%s.%s", vals[0], keys[i]);
            char *v = config_str(cfg, key);
            driver = v && *v;
            free(v);
            free(key);
        }
        if (driver) {
            *value = xstrdup(vals[0]);
            return COMMIT_FILTER_DRIVER;
        }
    }
    if (git_attr_value(vals[1]) == GIT_ATTR_VALUE_STRING &&
        strcasecmp(vals[1], "UTF-8") && strcasecmp(vals[1], "UTF8")) {
        *value = xstrdup(vals[1]);
        return COMMIT_FILTER_ENCODING;
    }
    return COMMIT_FILTER_NONE;
}

/*
 * What `git add` would do to path that libgit2 cannot: a filter driver
 * configured for its `filter` attribute (Git LFS, for one) or a
 * `working-tree-encoding`. AS_EINVAL naming it, else 0: committing such
 * a file as it lies in the working tree would commit the wrong content.
 */
static int
check_filters(struct commit_tree *t, const char *path, struct as_err *e)
{
    char *v = NULL;
    int kind = commit_filter_of(t->g, t->cfg, NULL, path, false, &v, e);
    int rc = kind < 0 ? kind : 0;
    if (kind == COMMIT_FILTER_DRIVER)
        rc = as_errorf(e, AS_EINVAL,
            "'%s' goes through git's filter driver '%s' (.gitattributes), "
            "which airspace cannot run: commit it with git",
            path, v);
    else if (kind == COMMIT_FILTER_ENCODING)
        rc = as_errorf(e, AS_EINVAL,
            "'%s' has working-tree-encoding=%s (.gitattributes), which "
            "airspace cannot convert: commit it with git",
            path, v);
    free(v);
    return rc;
}

/*
 * Read one file path: its change against the start into *f. Returns 0 with
 * *changed, 1 to drop it (not strict), or an error.
 */
static int
read_one(struct commit_tree *t, const char *path, bool strict,
    struct commit_file *f, bool *changed, struct as_err *e)
{
    *changed = false;
    memset(f, 0, sizeof(*f));
    bool absent;
    int rc = check_parents(t, path, strict, &absent, e);
    if (rc)
        return rc;
    git_oid head_oid;
    uint32_t head_mode = 0;
    bool in_head = entry_at(t->start_tree, path, &head_oid, &head_mode);
    if (in_head && head_mode == GIT_FILEMODE_COMMIT)
        return REFUSE("'%s' is a submodule: commit inside it with git", path);
    char *full = xasprintf("%s/%s", t->top, path);
    struct stat st;
    if (!absent && lstat(full, &st) < 0) {
        if (errno != ENOENT && errno != ENOTDIR) {
            rc = as_errorf(
                e, AS_EIO, "cannot read '%s': %s", full, strerror(errno));
            goto out;
        }
        absent = true;
    }
    if (in_head && head_mode == GIT_FILEMODE_TREE) {
        if (absent || S_ISDIR(st.st_mode)) {
            rc = REFUSE("'%s' is a directory in HEAD", path);
            goto out;
        }
        in_head = false; /* a file now where a directory was: added */
    }
    if (absent) {
        const git_index_entry *ie = index_entry(t, path);
        if (ie && (ie->flags_extended & GIT_INDEX_ENTRY_SKIP_WORKTREE)) {
            rc = REFUSE("'%s' is outside the sparse checkout", path);
            goto out;
        }
        if (!in_head) {
            rc = REFUSE("'%s' did not match any file", path);
            goto out;
        }
        f->path = xstrdup(path);
        f->status = COMMIT_DELETED;
        *changed = true;
        goto out;
    }
    if (S_ISDIR(st.st_mode)) {
        char *dotgit = xasprintf("%s/.git", full);
        bool nested = access(dotgit, F_OK) == 0;
        free(dotgit);
        if (nested) {
            rc = REFUSE("'%s' is a nested git repository: commit inside it "
                        "with git",
                path);
        } else if (in_head) {
            /* a directory now where a file was: the file is deleted */
            f->path = xstrdup(path);
            f->status = COMMIT_DELETED;
            *changed = true;
        } else {
            rc = REFUSE("'%s' is a directory", path);
        }
        goto out;
    }
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
        rc = REFUSE("'%s' is neither a regular file nor a symbolic link", path);
        goto out;
    }
    if (!in_head && !index_entry(t, path)) {
        int ignored = 0;
        if (git_ignore_path_is_ignored(&ignored, t->g, path) < 0) {
            rc = repo_git_errorf(
                e, "cannot check whether '%s' is ignored", path);
            goto out;
        }
        if (ignored) {
            rc = REFUSE("'%s' is ignored (.gitignore)", path);
            goto out;
        }
    }
    if ((rc = check_filters(t, path, e)))
        goto out;
    /* a snapshot: the lstat before and after the read must agree */
    int tries = 0;
    for (;;) {
        struct stat after;
        if (git_blob_create_from_workdir(&f->blob, t->g, path) < 0) {
            rc = repo_git_errorf(e, "cannot read '%s'", path);
            goto out;
        }
        if (lstat(full, &after) < 0) {
            rc = as_errorf(e, AS_EIO, "'%s' vanished while being read: %s",
                path, strerror(errno));
            goto out;
        }
        if (same_stat(&st, &after))
            break;
        st = after;
        if (++tries >= COMMIT_READ_TRIES) {
            rc = as_errorf(e, AS_EIO,
                "'%s' kept changing while being read; try again", path);
            goto out;
        }
    }
    f->st = st;
    f->mode = file_mode(t, path, &st, in_head, head_mode);
    if (in_head && head_mode == f->mode && git_oid_equal(&head_oid, &f->blob)) {
        rc = REFUSE("'%s' has no change (it is as in HEAD)", path);
        goto out;
    }
    f->path = xstrdup(path);
    if (!in_head)
        f->status = COMMIT_ADDED;
    else if ((head_mode == GIT_FILEMODE_LINK) != (f->mode == GIT_FILEMODE_LINK))
        f->status = COMMIT_TYPECHANGE;
    else if (git_oid_equal(&head_oid, &f->blob))
        f->status = COMMIT_MODE;
    else
        f->status = COMMIT_MODIFIED;
    *changed = true;
out:
    free(full);
    return rc;
}

static int
cmp_file(const void *a, const void *b)
{
    return strcmp(((const struct commit_file *)a)->path,
        ((const struct commit_file *)b)->path);
}

static int
changed_paths_cached(struct commit_tree *t, struct as_err *e)
{
    if (t->have_changed)
        return 0;
    int rc = commit_changed_paths(t, &t->changed, &t->nchanged, e);
    t->have_changed = rc == 0;
    return rc;
}

static bool
is_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return !n || (!strncmp(path, dir, n) && path[n] == '/');
}

/*
 * How spec stands: a directory (in the working tree, or in HEAD and gone
 * from it; "" is the top), and whether its type switched between HEAD
 * and the working tree (a file where a directory was, or the reverse):
 * then both the path itself and the paths under it change.
 */
static bool
names_dir(struct commit_tree *t, const char *spec, bool *switched)
{
    *switched = false;
    if (!*spec)
        return true;
    char *full = xasprintf("%s/%s", t->top, spec);
    struct stat st;
    bool exists = lstat(full, &st) == 0;
    free(full);
    bool wt_dir = exists && S_ISDIR(st.st_mode);
    uint32_t mode = 0;
    bool in_head = entry_at(t->start_tree, spec, NULL, &mode);
    bool head_tree = in_head && mode == GIT_FILEMODE_TREE;
    *switched =
        (head_tree && exists && !wt_dir) ||
        (in_head && !head_tree && mode != GIT_FILEMODE_COMMIT && wt_dir);
    return wt_dir || head_tree;
}

int
commit_select(struct commit_tree *t, char *const *specs, size_t nspecs,
    unsigned flags, struct commit_file **files, size_t *nfiles,
    struct as_err *e)
{
    bool strict = flags & COMMIT_SELECT_STRICT;
    struct commit_file *v = NULL;
    size_t k = 0, alloc = 0;
    int rc = 0;
    *files = NULL;
    *nfiles = 0;
    for (size_t i = 0; i < nspecs && !rc; i++) {
        const char *spec = specs[i];
        const char *first_end = strchr(spec, '/');
        size_t first = first_end ? (size_t)(first_end - spec) : strlen(spec);
        if (first == 4 && !strncasecmp(spec, ".git", 4)) {
            if (strict)
                rc = as_errorf(
                    e, AS_EINVAL, "'%s' is inside the git directory", spec);
            continue;
        }
        bool switched;
        bool dir = names_dir(t, spec, &switched);
        if (dir && !strict && !switched)
            continue;
        if (dir) {
            bool escape_link = false;
            int pr =
                *spec ? check_parents(t, spec, strict, &escape_link, e) : 0;
            if (pr < 0) {
                rc = pr;
                break;
            }
            if (pr > 0)
                continue;
            if ((rc = changed_paths_cached(t, e)))
                break;
            size_t found = 0;
            for (size_t c = 0; c < t->nchanged && !rc; c++) {
                if (!is_under(t->changed[c], spec))
                    continue;
                struct commit_file f;
                bool changed;
                /* inside a directory, what is not a change is skipped */
                int r = read_one(t, t->changed[c], false, &f, &changed, e);
                if (r < 0) {
                    rc = r;
                } else if (r == 0 && changed) {
                    ALLOC_GROW(v, k + 1, alloc);
                    v[k++] = f;
                    found++;
                }
            }
            if (!rc && switched) {
                struct commit_file f;
                bool changed;
                int r = read_one(t, spec, strict, &f, &changed, e);
                if (r < 0) {
                    rc = r;
                } else if (r == 0 && changed) {
                    ALLOC_GROW(v, k + 1, alloc);
                    v[k++] = f;
                    found++;
                }
            }
            if (!rc && !found && strict)
                rc = as_errorf(e, AS_EINVAL,
                    "'%s' has no changes to commit under it",
                    *spec ? spec : ".");
            continue;
        }
        struct commit_file f;
        bool changed;
        int r = read_one(t, spec, strict, &f, &changed, e);
        if (r < 0)
            rc = r;
        else if (r == 0 && changed) {
            ALLOC_GROW(v, k + 1, alloc);
            v[k++] = f;
        }
    }
    if (rc) {
        commit_files_free(v, k);
        return rc;
    }
    if (k)
        qsort(v, k, sizeof(*v), cmp_file);
    size_t w = 0;
    for (size_t i = 0; i < k; i++) {
        if (w && !strcmp(v[w - 1].path, v[i].path))
            free(v[i].path);
        else
            v[w++] = v[i];
    }
    *files = v;
    *nfiles = w;
    return 0;
}

#undef REFUSE

/* ---- identity ---- */

/*
 * A date as git takes it in GIT_AUTHOR_DATE: "@SECONDS [+ZZZZ]",
 * "SECONDS +ZZZZ", or ISO 8601 "YYYY-MM-DD[T ]HH:MM[:SS[.frac]][zone]"
 * (local time without a zone).
 */
static bool
parse_date(const char *s, git_time_t *when, int *offset)
{
    while (*s == ' ')
        s++;
    const char *p = s;
    bool at = *p == '@';
    if (at)
        p++;
    const char *q = p;
    while (*q >= '0' && *q <= '9')
        q++;
    /* "@SECONDS [ZONE]" or "SECONDS ZONE" (git's raw form) */
    if (q > p && (at || *q == ' ')) {
        char *end;
        errno = 0;
        long long secs = strtoll(p, &end, 10);
        if (errno || end != q)
            return false;
        int zone = 0;
        while (*q == ' ')
            q++;
        if (!at && !*q)
            return false;
        if (*q && (!iso_zone_parse(&q, &zone) || *q))
            return false;
        *when = (git_time_t)secs;
        *offset = zone;
        return true;
    }
    if (at)
        return false;
    struct iso_time t;
    if (iso_time_parse(s, &t) || !t.has_time)
        return false;
    if (t.has_zone) {
        *when = (git_time_t)t.utc_s;
        *offset = t.zone_minutes;
        return true;
    }
    /* no zone: local time, as git reads it */
    struct tm tm = { 0 };
    tm.tm_year = t.year - 1900;
    tm.tm_mon = t.month - 1;
    tm.tm_mday = t.day;
    tm.tm_hour = t.hour;
    tm.tm_min = t.minute;
    tm.tm_sec = t.second;
    tm.tm_isdst = -1;
    time_t tt = mktime(&tm);
    if (tt == (time_t)-1)
        return false;
    *when = (git_time_t)tt;
    *offset = (int)(tm.tm_gmtoff / 60);
    return true;
}

/* A configuration string, or NULL (new string). */
static char *
config_str(git_config *cfg, const char *key)
{
    git_buf b = GIT_BUF_INIT;
    char *v = NULL;
    if (git_config_get_string_buf(&b, cfg, key) == 0)
        v = xstrdup(b.ptr);
    else
        git_error_clear();
    git_buf_dispose(&b);
    return v;
}

int
commit_identity(struct commit_tree *t, const char *which, git_signature **out,
    struct as_err *e)
{
    return commit_identity_in(t->g, t->top, which, out, e);
}

int
commit_identity_in(git_repository *g, const char *where, const char *which,
    git_signature **out, struct as_err *e)
{
    *out = NULL;
    bool author = !strcmp(which, "author");
    const char *up = author ? "AUTHOR" : "COMMITTER";
    char key[64];
    git_config *cfg = NULL;
    if (git_repository_config_snapshot(&cfg, g) < 0)
        return repo_git_errorf(
            e, "cannot read the configuration of '%s'", where);
    char *name = NULL, *email = NULL;
    snprintf(key, sizeof(key), "GIT_%s_NAME", up);
    if (getenv(key))
        name = xstrdup(getenv(key));
    snprintf(key, sizeof(key), "GIT_%s_EMAIL", up);
    if (getenv(key))
        email = xstrdup(getenv(key));
    snprintf(key, sizeof(key), "%s.name", which);
    if (!name && !(name = config_str(cfg, key)))
        name = config_str(cfg, "user.name");
    snprintf(key, sizeof(key), "%s.email", which);
    if (!email && !(email = config_str(cfg, key)) &&
        !(email = config_str(cfg, "user.email")) && getenv("EMAIL"))
        email = xstrdup(getenv("EMAIL"));
    git_config_free(cfg);
    int rc = 0;
    if (!name || !*name || !email) {
        rc = as_errorf(e, AS_EINVAL,
            "no %s identity in '%s': set it with git config user.name "
            "\"Your Name\" and git config user.email you@example.com (or "
            "GIT_%s_NAME and GIT_%s_EMAIL)",
            which, where, up, up);
        goto out;
    }
    snprintf(key, sizeof(key), "GIT_%s_DATE", up);
    const char *date = getenv(key);
    int err;
    if (date && *date) {
        git_time_t when;
        int offset;
        if (!parse_date(date, &when, &offset)) {
            rc = as_errorf(e, AS_EINVAL,
                "cannot parse %s '%s': use ISO 8601 "
                "(2026-01-01T10:00:00Z) or '@SECONDS +ZZZZ'",
                key, date);
            goto out;
        }
        err = git_signature_new(out, name, email, when, offset);
    } else {
        err = git_signature_now(out, name, email);
    }
    if (err < 0)
        rc = as_errorf(e, AS_EINVAL, "bad %s identity '%s <%s>': %s", which,
            name, email,
            git_error_last() ? git_error_last()->message : "invalid");
out:
    free(name);
    free(email);
    return rc;
}

/* ---- building, swapping, verifying ---- */

static void
sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static const struct commit_file *
find_file(const struct commit_file *files, size_t n, const char *path)
{
    struct commit_file key = { .path = (char *)path };
    return bsearch(&key, files, n, sizeof(*files), cmp_file);
}

/* Parent's tree (NULL: none) with files applied, written: *out. */
static int
build_tree(struct commit_tree *t, git_tree *parent,
    const struct commit_file *files, size_t n, git_oid *out, struct as_err *e)
{
    git_index *idx = NULL;
    int rc = 0;
    if (git_index_new(&idx) < 0 ||
        (parent && git_index_read_tree(idx, parent) < 0)) {
        rc = repo_git_errorf(e, "cannot read HEAD's tree into memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (files[i].status != COMMIT_DELETED)
            continue;
        if (git_index_remove(idx, files[i].path, 0) < 0)
            git_error_clear(); /* not there: nothing to take out */
    }
    for (size_t i = 0; i < n; i++) {
        if (files[i].status == COMMIT_DELETED)
            continue;
        git_index_entry ie;
        memset(&ie, 0, sizeof(ie));
        ie.path = files[i].path;
        ie.mode = files[i].mode;
        git_oid_cpy(&ie.id, &files[i].blob);
        if (git_index_add(idx, &ie) < 0) {
            rc = repo_git_errorf(
                e, "cannot put '%s' in the tree", files[i].path);
            goto out;
        }
    }
    if (git_index_write_tree_to(out, idx, t->g) < 0)
        rc = repo_git_errorf(e, "cannot write the tree");
out:
    git_index_free(idx);
    return rc;
}

/*
 * The new tree against its parent's: exactly the chosen paths differ, each
 * as intended. AS_ECONFLICT names a path that would change without being
 * chosen (a file put where a directory was, or the reverse).
 */
static int
verify_tree(struct commit_tree *t, git_tree *parent, git_tree *tree,
    const struct commit_file *files, size_t n, struct as_err *e)
{
    git_diff *diff = NULL;
    git_diff_options dopt;
    git_diff_options_init(&dopt, GIT_DIFF_OPTIONS_VERSION);
    if (git_diff_tree_to_tree(&diff, t->g, parent, tree, &dopt) < 0)
        return repo_git_errorf(e, "cannot compare the new tree");
    int rc = 0;
    size_t nd = git_diff_num_deltas(diff);
    for (size_t i = 0; i < nd && !rc; i++) {
        const git_diff_delta *d = git_diff_get_delta(diff, i);
        const char *p = d->status == GIT_DELTA_DELETED ? d->old_file.path
                                                       : d->new_file.path;
        if (!find_file(files, n, p))
            rc = as_errorf(e, AS_ECONFLICT,
                "committing would also %s '%s', which is not among the files "
                "to commit (a file where a directory was, or the reverse): "
                "commit it too; nothing committed",
                d->status == GIT_DELTA_DELETED ? "remove" : "change", p);
    }
    git_diff_free(diff);
    for (size_t i = 0; i < n && !rc; i++) {
        git_oid oid;
        uint32_t mode = 0;
        bool found = entry_at(tree, files[i].path, &oid, &mode);
        /* a deleted file may have become a directory */
        bool ok = files[i].status == COMMIT_DELETED
                      ? !found || mode == GIT_FILEMODE_TREE
                      : found && mode == files[i].mode &&
                            git_oid_equal(&oid, &files[i].blob);
        if (!ok)
            rc = as_errorf(e, AS_EGIT,
                "the new tree does not hold '%s' as read from the working "
                "tree; nothing committed",
                files[i].path);
    }
    return rc;
}

/*
 * The newest commit in (from, to] that changed path: "abc1234 by NAME:
 * SUBJECT" in buf.
 */
static void
who_changed(struct commit_tree *t, const git_oid *from, const git_oid *to,
    const char *path, char *buf, size_t cap)
{
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, 8, to);
    snprintf(buf, cap, "%s", hex);
    git_revwalk *w = NULL;
    if (git_revwalk_new(&w, t->g) < 0 || git_revwalk_push(w, to) < 0 ||
        (from && git_revwalk_hide(w, from) < 0)) {
        git_error_clear();
        git_revwalk_free(w);
        return;
    }
    git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL);
    git_oid id;
    int seen = 0;
    while (git_revwalk_next(&id, w) == 0 && seen++ < 1000) {
        git_commit *c = NULL, *p = NULL;
        git_tree *ct = NULL, *pt = NULL;
        bool hit = false;
        if (git_commit_lookup(&c, t->g, &id) == 0 &&
            git_commit_tree(&ct, c) == 0) {
            if (git_commit_parentcount(c) && git_commit_parent(&p, c, 0) == 0)
                git_commit_tree(&pt, p);
            hit = !same_entry(pt, ct, path);
        }
        if (hit) {
            const git_signature *a = git_commit_author(c);
            const char *msg = git_commit_summary(c);
            git_oid_tostr(hex, 8, &id);
            snprintf(buf, cap, "%s by %s: \"%s\"", hex,
                a && a->name ? a->name : "?", msg ? msg : "");
        }
        git_tree_free(pt);
        git_tree_free(ct);
        git_commit_free(p);
        git_commit_free(c);
        if (hit)
            break;
    }
    git_error_clear();
    git_revwalk_free(w);
}

/*
 * The branch moved from *parent (NULL: unborn) to now: may the commit be
 * rebuilt on it? AS_ECONFLICT when it rewrote history or changed a chosen
 * path since the start.
 */
static int
check_moved(struct commit_tree *t, const git_oid *now, git_tree *now_tree,
    const struct commit_file *files, size_t n, struct as_err *e)
{
    const char *what = t->branch ? t->branch : "HEAD";
    if (!t->unborn && !git_oid_equal(now, &t->start)) {
        int d = git_graph_descendant_of(t->g, now, &t->start);
        if (d < 0)
            return repo_git_errorf(e, "cannot walk the history of '%s'", what);
        if (!d) {
            char hex[GIT_OID_HEXSZ + 1];
            git_oid_tostr(hex, 8, &t->start);
            return as_errorf(e, AS_ECONFLICT,
                "'%s' was rewound or rewritten since airspace commit started "
                "(it no longer contains %s); nothing committed",
                what, hex);
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (same_entry(t->start_tree, now_tree, files[i].path))
            continue;
        char who[512];
        who_changed(t, t->unborn ? NULL : &t->start, now, files[i].path, who,
            sizeof(who));
        return as_errorf(e, AS_ECONFLICT,
            "'%s' was changed by commit %s since airspace commit started: "
            "nothing committed; look at that version, then commit again",
            files[i].path, who);
    }
    return 0;
}

/* Whether HEAD still names what it named at the start. */
static int
head_unchanged(struct commit_tree *t, struct as_err *e)
{
    git_reference *head = NULL;
    if (git_reference_lookup(&head, t->g, "HEAD") < 0)
        return repo_git_errorf(e, "cannot read HEAD of '%s'", t->top);
    bool symbolic = git_reference_type(head) == GIT_REFERENCE_SYMBOLIC;
    const char *target = symbolic ? git_reference_symbolic_target(head) : NULL;
    int rc = 0;
    if (symbolic != (t->head_ref != NULL) ||
        (symbolic && strcmp(target, t->head_ref)))
        rc = as_errorf(e, AS_ECONFLICT,
            "HEAD of '%s' moved from %s%s to %s%s since airspace commit "
            "started; nothing committed",
            t->top, t->branch ? "branch " : "a detached HEAD",
            t->branch ? t->branch : "", symbolic ? "" : "a detached HEAD",
            symbolic ? target : "");
    git_reference_free(head);
    return rc;
}

/* The ref to swap's current commit into *now; *exists false when unborn. */
static int
read_ref(struct commit_tree *t, git_oid *now, bool *exists, struct as_err *e)
{
    const char *name = t->head_ref ? t->head_ref : "HEAD";
    int err = git_reference_name_to_id(now, t->g, name);
    *exists = err == 0;
    if (err == GIT_ENOTFOUND) {
        git_error_clear();
        return 0;
    }
    return err < 0 ? repo_git_errorf(e, "cannot resolve '%s'", name) : 0;
}

/* Read the result back through a fresh handle. */
static int
read_back(struct commit_tree *t, const git_oid *id, const git_oid *parent,
    const struct commit_file *files, size_t n, struct as_err *e)
{
    git_repository *g = NULL;
    git_commit *c = NULL;
    git_tree *tree = NULL;
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof(hex), id);
    int rc = 0;
    if (git_repository_open(&g, t->top) < 0 ||
        git_commit_lookup(&c, g, id) < 0 || git_commit_tree(&tree, c) < 0) {
        rc = repo_git_errorf(
            e, "commit %s was made but cannot be read back", hex);
        goto out;
    }
    unsigned np = git_commit_parentcount(c);
    if (parent ? np != 1 || !git_oid_equal(git_commit_parent_id(c, 0), parent)
               : np != 0) {
        rc = as_errorf(e, AS_EGIT,
            "commit %s was made but its parent is not the commit it was "
            "built on",
            hex);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        git_oid oid;
        uint32_t mode = 0;
        bool found = entry_at(tree, files[i].path, &oid, &mode);
        /* a deleted file may have become a directory */
        bool ok = files[i].status == COMMIT_DELETED
                      ? !found || mode == GIT_FILEMODE_TREE
                      : found && mode == files[i].mode &&
                            git_oid_equal(&oid, &files[i].blob);
        if (!ok) {
            rc = as_errorf(e, AS_EGIT,
                "commit %s was made but does not hold '%s' as intended", hex,
                files[i].path);
            goto out;
        }
    }
    git_oid now;
    const char *name = t->head_ref ? t->head_ref : "HEAD";
    if (git_reference_name_to_id(&now, g, name) < 0 ||
        (!git_oid_equal(&now, id) && git_graph_descendant_of(g, &now, id) != 1))
        rc = as_errorf(e, AS_EGIT,
            "commit %s was made but '%s' does not contain it", hex, name);
out:
    git_error_clear();
    git_tree_free(tree);
    git_commit_free(c);
    git_repository_free(g);
    return rc;
}

/* ---- the worktree's own index ---- */

static void
index_note(struct commit_result *res, const struct commit_file *files, size_t n,
    const char *why)
{
    size_t len = 0, cap = 0;
    char *paths = NULL;
    for (size_t i = 0; i < n; i++) {
        size_t add = strlen(files[i].path) + 1;
        ALLOC_GROW(paths, len + add + 1, cap);
        snprintf(paths + len, add + 1, " %s", files[i].path);
        len += add;
    }
    res->index_note = xasprintf(
        "the index was not updated (%s): `git status` will show the committed "
        "paths as changed until `git reset -q --%s`",
        why, paths ? paths : "");
    free(paths);
}

/* Whether tree holds f as committed (deleted: nothing, or a directory). */
static bool
holds(git_tree *tree, const struct commit_file *f)
{
    git_oid oid;
    uint32_t mode = 0;
    bool found = entry_at(tree, f->path, &oid, &mode);
    return f->status == COMMIT_DELETED
               ? !found || mode == GIT_FILEMODE_TREE
               : found && mode == f->mode && git_oid_equal(&oid, &f->blob);
}

/*
 * Put the committed paths into the index (git's lock held), those that
 * HEAD's tree (head) still holds as committed: a path a later commit
 * changed again keeps the entry that commit's own index update left.
 */
static int
index_apply(
    git_index *idx, git_tree *head, const struct commit_file *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct commit_file *f = &files[i];
        if (!holds(head, f))
            continue;
        if (git_index_conflict_remove(idx, f->path) < 0)
            git_error_clear();
        if (f->status == COMMIT_DELETED) {
            if (git_index_remove(idx, f->path, 0) < 0)
                git_error_clear();
            continue;
        }
        git_index_entry ie;
        memset(&ie, 0, sizeof(ie));
        ie.ctime.seconds = (int32_t)f->st.st_ctim.tv_sec;
        ie.ctime.nanoseconds = (uint32_t)f->st.st_ctim.tv_nsec;
        ie.mtime.seconds = (int32_t)f->st.st_mtim.tv_sec;
        ie.mtime.nanoseconds = (uint32_t)f->st.st_mtim.tv_nsec;
        ie.dev = (uint32_t)f->st.st_dev;
        ie.ino = (uint32_t)f->st.st_ino;
        ie.uid = (uint32_t)f->st.st_uid;
        ie.gid = (uint32_t)f->st.st_gid;
        ie.file_size = (uint32_t)f->st.st_size;
        ie.mode = f->mode;
        ie.path = f->path;
        git_oid_cpy(&ie.id, &f->blob);
        if (git_index_add(idx, &ie) < 0)
            return -1;
    }
    return 0;
}

/* The tree of commit id into *out; -1 on failure. */
static int
commit_tree_at(struct commit_tree *t, const git_oid *id, git_tree **out)
{
    git_commit *c = NULL;
    int rc = git_commit_lookup(&c, t->g, id) < 0 || git_commit_tree(out, c) < 0
                 ? -1
                 : 0;
    git_commit_free(c);
    return rc;
}

/*
 * Bring the worktree's index in line for the committed paths, by git's
 * protocol: create index.lock exclusively (a few tries), read the index,
 * change only those entries, write the result into the lock and rename it
 * over the index. Another process holding the lock wins; we leave a note.
 */
static void
update_index(struct commit_tree *t, const struct commit_file *files, size_t n,
    const struct commit_options *o, struct commit_result *res)
{
    unsigned tries =
        o->index_tries ? o->index_tries : COMMIT_DEFAULT_INDEX_TRIES;
    unsigned wait =
        o->index_wait_ms ? o->index_wait_ms : COMMIT_DEFAULT_INDEX_WAIT_MS;
    struct as_err e;
    struct index_lock l;
    git_tree *head = NULL;
    if (index_lock_take(&l, t->top, t->index_path, tries, wait, &e)) {
        index_note(res, files, n, e.msg);
        return;
    }
    /* HEAD as it is now, with the lock held: what the index must follow */
    git_oid now;
    bool exists = false;
    if (head_unchanged(t, &e) || read_ref(t, &now, &exists, &e) || !exists ||
        commit_tree_at(t, &now, &head) < 0) {
        git_error_clear();
        index_note(res, files, n,
            "HEAD moved to another branch meanwhile, or cannot be read");
        index_lock_abort(&l);
        goto out;
    }
    if (index_apply(l.idx, head, files, n) < 0) {
        char why[600];
        const git_error *ge = git_error_last();
        snprintf(why, sizeof(why), "cannot rewrite '%s': %s", t->index_path,
            ge && ge->message ? ge->message : "unknown error");
        git_error_clear();
        index_note(res, files, n, why);
        index_lock_abort(&l);
        goto out;
    }
    if (index_lock_commit(&l, &e)) {
        git_error_clear();
        index_note(res, files, n, e.msg);
        goto out;
    }
    res->index_updated = true;
out:
    git_tree_free(head);
}

int
commit_create(struct commit_tree *t, const struct commit_file *files, size_t n,
    const struct commit_options *o, struct commit_result *res, struct as_err *e)
{
    memset(res, 0, sizeof(*res));
    if (!n)
        return as_errorf(e, AS_EINVAL, "nothing to commit");
    git_buf msg = GIT_BUF_INIT;
    git_signature *author = NULL, *committer = NULL;
    git_tree *parent_tree = NULL, *tree = NULL;
    git_commit *parent_commit = NULL;
    char *logmsg = NULL;
    int rc = 0;
    if (!o->message || git_message_prettify(&msg, o->message, 0, '#') < 0 ||
        !msg.size) {
        git_error_clear();
        rc = as_errorf(e, AS_EINVAL, "empty commit message: nothing committed");
        goto out;
    }
    const char *nl = strchr(msg.ptr, '\n');
    res->subject = xstrndup(msg.ptr, nl ? (size_t)(nl - msg.ptr) : msg.size);
    if ((rc = commit_identity(t, "author", &author, e)) ||
        (rc = commit_identity(t, "committer", &committer, e)))
        goto out;
    logmsg = xasprintf("commit (airspace): %s", res->subject);
    /* reflog entries carry the committer, as git's do */
    if (git_repository_set_ident(t->g, committer->name, committer->email) < 0)
        git_error_clear();
    unsigned max = o->max_attempts ? o->max_attempts : COMMIT_DEFAULT_ATTEMPTS;
    bool have_parent = !t->unborn;
    git_oid parent, id;
    git_oid_cpy(&parent, &t->start);
    if (have_parent && git_object_dup((git_object **)&parent_tree,
                           (git_object *)t->start_tree) < 0) {
        rc = repo_git_errorf(e, "cannot read HEAD's tree");
        goto out;
    }
    for (unsigned attempt = 0;; attempt++) {
        git_oid tree_id;
        if ((rc = build_tree(t, parent_tree, files, n, &tree_id, e)))
            goto out;
        git_tree_free(tree);
        tree = NULL;
        if (git_tree_lookup(&tree, t->g, &tree_id) < 0) {
            rc = repo_git_errorf(e, "cannot read the new tree");
            goto out;
        }
        if ((rc = verify_tree(t, parent_tree, tree, files, n, e)))
            goto out;
        git_commit_free(parent_commit);
        parent_commit = NULL;
        if (have_parent &&
            git_commit_lookup(&parent_commit, t->g, &parent) < 0) {
            rc = repo_git_errorf(e, "cannot read the parent commit");
            goto out;
        }
        const git_commit *parents[1] = { parent_commit };
        if (git_commit_create(&id, t->g, NULL, author, committer, NULL, msg.ptr,
                tree, have_parent ? 1 : 0, parents) < 0) {
            rc = repo_git_errorf(e, "cannot create the commit");
            goto out;
        }
        if (o->before_update)
            o->before_update(o->hook_ctx, attempt);
        git_reference *ref = NULL;
        int err = git_reference_create_matching(&ref, t->g,
            t->head_ref ? t->head_ref : "HEAD", &id, have_parent ? 1 : 0,
            have_parent ? &parent : NULL, logmsg);
        git_reference_free(ref);
        if (err == 0)
            break;
        if (err != GIT_EMODIFIED && err != GIT_EEXISTS && err != GIT_ELOCKED) {
            rc = repo_git_errorf(
                e, "cannot update '%s'", t->head_ref ? t->head_ref : "HEAD");
            goto out;
        }
        git_error_clear();
        res->retries++;
        if (attempt + 1 >= max) {
            rc = as_errorf(e, AS_EIO,
                "gave up after %u attempts: '%s' kept moving (or stayed "
                "locked); nothing committed",
                max, t->branch ? t->branch : "HEAD");
            goto out;
        }
        /* a short, growing, jittered pause: two writers do not lock-step */
        unsigned span = 1u << (attempt < 6 ? attempt : 6);
        sleep_ms(1 + (unsigned)((unsigned)getpid() * 2654435761u +
                                attempt * 40503u) %
                         span);
        if ((rc = head_unchanged(t, e)))
            goto out;
        git_oid now;
        bool exists;
        if ((rc = read_ref(t, &now, &exists, e)))
            goto out;
        if (!exists) {
            if (have_parent) {
                rc = as_errorf(e, AS_ECONFLICT,
                    "'%s' was deleted since airspace commit started; nothing "
                    "committed",
                    t->branch ? t->branch : "HEAD");
                goto out;
            }
            continue; /* still unborn: the lock was the obstacle */
        }
        if (have_parent && git_oid_equal(&now, &parent))
            continue; /* only locked */
        git_commit *nc = NULL;
        git_tree *nt = NULL;
        if (git_commit_lookup(&nc, t->g, &now) < 0 ||
            git_commit_tree(&nt, nc) < 0) {
            git_commit_free(nc);
            rc = repo_git_errorf(e, "cannot read the new head of '%s'",
                t->branch ? t->branch : "HEAD");
            goto out;
        }
        git_commit_free(nc);
        rc = check_moved(t, &now, nt, files, n, e);
        if (rc) {
            git_tree_free(nt);
            goto out;
        }
        git_tree_free(parent_tree);
        parent_tree = nt;
        git_oid_cpy(&parent, &now);
        have_parent = true;
    }
    git_oid_tostr(res->commit, sizeof(res->commit), &id);
    if (have_parent)
        git_oid_tostr(res->parent, sizeof(res->parent), &parent);
    res->root = !have_parent;
    res->branch = t->branch ? xstrdup(t->branch) : NULL;
    if ((rc = read_back(t, &id, have_parent ? &parent : NULL, files, n, e)))
        goto out;
    if (o->before_index)
        o->before_index(o->hook_ctx, 0);
    update_index(t, files, n, o, res);
out:
    git_commit_free(parent_commit);
    git_tree_free(tree);
    git_tree_free(parent_tree);
    git_signature_free(author);
    git_signature_free(committer);
    git_buf_dispose(&msg);
    free(logmsg);
    return rc;
}

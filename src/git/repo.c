/*
 * repo.c - opening the airspace and listing its worktrees and branches.
 */
#include "git/repo.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>

#include "git/config.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct repo {
    git_repository *git;  /* main repository */
    git_odb *odb;         /* its object store, with mem on top */
    git_odb_backend *mem; /* in-memory store for objects we create */
    char *common_dir;
    char *main_workdir; /* NULL when bare */
};

/* Priority above every on-disk backend, so writes land in memory. */
#define REPO_MEMPACK_PRIORITY 1000

int
repo_git_errorf(struct as_err *e, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    const git_error *ge = git_error_last();

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return as_errorf(e, AS_EGIT, "%s: %s", what,
        ge && ge->message ? ge->message : "unknown libgit2 error");
}

/* A copy of dir without its trailing slash. */
static char *
strip_slash(const char *dir)
{
    size_t n = strlen(dir);

    while (n > 1 && dir[n - 1] == '/')
        n--;
    return xstrndup(dir, n);
}

int
repo_open(const char *path, struct repo **out, struct as_err *e)
{
    git_repository *found = NULL;
    struct repo *r;
    int err;

    *out = NULL;
    git_libgit2_init();
    err = git_repository_open_ext(&found, path, 0, NULL);
    if (err == GIT_ENOTFOUND) {
        git_libgit2_shutdown();
        return as_errorf(e, AS_ENOENT,
            "cannot open '%s': not inside a git repository", path);
    }
    if (err < 0) {
        err = repo_git_errorf(e, "cannot open '%s'", path);
        git_libgit2_shutdown();
        return err;
    }

    r = xcalloc(1, sizeof(*r));
    r->common_dir = strip_slash(git_repository_commondir(found));
    if (git_repository_is_worktree(found)) {
        /* Opening the common dir yields the main repository. */
        git_repository_free(found);
        found = NULL;
        if (git_repository_open(&found, r->common_dir) < 0) {
            err = repo_git_errorf(e, "cannot open '%s'", r->common_dir);
            goto out_free;
        }
    }
    r->git = found;
    if (git_repository_workdir(found))
        r->main_workdir = strip_slash(git_repository_workdir(found));

    if (git_repository_odb(&r->odb, r->git) < 0 ||
        git_mempack_new(&r->mem) < 0) {
        err = repo_git_errorf(e, "cannot open object store of '%s'", path);
        goto out_free;
    }
    if (git_odb_add_backend(r->odb, r->mem, REPO_MEMPACK_PRIORITY) < 0) {
        /* Not yet owned by the odb: free it ourselves. */
        r->mem->free(r->mem);
        r->mem = NULL;
        err = repo_git_errorf(e, "cannot add memory store to '%s'", path);
        goto out_free;
    }
    *out = r;
    return 0;

out_free:
    repo_free(r);
    return err;
}

void
repo_forget_created(struct repo *r)
{
    if (r->mem)
        git_mempack_reset(r->mem);
}

void
repo_free(struct repo *r)
{
    if (!r)
        return;
    git_odb_free(r->odb); /* the odb owns and frees r->mem */
    git_repository_free(r->git);
    free(r->common_dir);
    free(r->main_workdir);
    free(r);
    git_libgit2_shutdown();
}

const char *
repo_common_dir(const struct repo *r)
{
    return r->common_dir;
}

const char *
repo_main_workdir(const struct repo *r)
{
    return r->main_workdir;
}

git_repository *
repo_git(struct repo *r)
{
    return r->git;
}

/* Short branch name HEAD points at (even unborn), or NULL when detached. */
static char *
head_branch(git_repository *g)
{
    git_reference *head = NULL;
    const char *target;
    char *name = NULL;

    if (git_reference_lookup(&head, g, "HEAD") < 0)
        return NULL;
    if (git_reference_type(head) == GIT_REFERENCE_SYMBOLIC) {
        target = git_reference_symbolic_target(head);
        if (target && !strncmp(target, "refs/heads/", 11))
            name = xstrdup(target + 11);
    }
    git_reference_free(head);
    return name;
}

int
repo_integration_branch_from(
    struct repo *r, char **out, char **from, struct as_err *e)
{
    struct config c;
    int err;

    *out = NULL;
    if (from)
        *from = NULL;
    config_init(&c);
    if ((err = config_read(&c, r, e))) {
        config_release(&c);
        return err;
    }
    *out = c.integration;
    c.integration = NULL;
    if (*out && from) {
        *from = c.integration_from;
        c.integration_from = NULL;
    }
    config_release(&c);
    if (*out)
        return 0;

    *out = head_branch(r->git);
    if (!*out)
        return as_errorf(e, AS_ENOENT,
            "cannot find the integration branch of '%s': the main worktree "
            "is detached and 'airspace.integration' is not set "
            "(docs/config.md)",
            r->common_dir);
    if (from)
        *from = xstrdup("the main worktree's branch");
    return 0;
}

int
repo_integration_branch(struct repo *r, char **out, struct as_err *e)
{
    return repo_integration_branch_from(r, out, NULL, e);
}

/* Fill branch and head of w from an open handle. */
static void
worktree_fill_head(struct repo_worktree *w, git_repository *g)
{
    git_oid oid;

    w->branch = head_branch(g);
    w->head[0] = '\0';
    if (git_reference_name_to_id(&oid, g, "HEAD") == 0)
        git_oid_tostr(w->head, sizeof(w->head), &oid);
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int
repo_worktrees(
    struct repo *r, struct repo_worktree **out, size_t *n, struct as_err *e)
{
    git_strarray names = { NULL, 0 };
    struct repo_worktree *v;
    size_t i, k = 0;

    *out = NULL;
    *n = 0;
    if (git_worktree_list(&names, r->git) < 0)
        return repo_git_errorf(
            e, "cannot list worktrees of '%s'", r->common_dir);
    if (names.count)
        qsort(names.strings, names.count, sizeof(char *), cmp_str);
    v = xcalloc(names.count + 1, sizeof(*v));

    if (r->main_workdir) {
        const char *slash = strrchr(r->main_workdir, '/');

        v[k].name = xstrdup(slash ? slash + 1 : r->main_workdir);
        v[k].path = xstrdup(r->main_workdir);
        v[k].is_main = true;
        worktree_fill_head(&v[k], r->git);
        k++;
    }
    for (i = 0; i < names.count; i++) {
        git_worktree *wt = NULL;
        git_repository *wr = NULL;
        struct repo_worktree *w = &v[k];

        if (git_worktree_lookup(&wt, r->git, names.strings[i]) < 0)
            continue; /* vanished between list and lookup */
        k++;
        w->name = xstrdup(names.strings[i]);
        w->path = strip_slash(git_worktree_path(wt));
        if (git_worktree_validate(wt) < 0 ||
            git_repository_open_from_worktree(&wr, wt) < 0) {
            w->prunable = true;
            git_error_clear();
        } else {
            worktree_fill_head(w, wr);
            git_repository_free(wr);
        }
        git_worktree_free(wt);
    }
    git_strarray_dispose(&names);
    *out = v;
    *n = k;
    return 0;
}

void
repo_worktrees_free(struct repo_worktree *v, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].path);
        free(v[i].branch);
    }
    free(v);
}

int
repo_branches(struct repo *r, char ***names, size_t *n, struct as_err *e)
{
    git_branch_iterator *it = NULL;
    git_reference *ref;
    git_branch_t type;
    char **v = NULL;
    size_t k = 0, alloc = 0;
    int err;

    *names = NULL;
    *n = 0;
    if (git_branch_iterator_new(&it, r->git, GIT_BRANCH_LOCAL) < 0)
        return repo_git_errorf(
            e, "cannot list branches of '%s'", r->common_dir);
    while ((err = git_branch_next(&ref, &type, it)) == 0) {
        const char *name = NULL;

        if (git_branch_name(&name, ref) == 0 && name) {
            ALLOC_GROW(v, k + 1, alloc);
            v[k++] = xstrdup(name);
        }
        git_reference_free(ref);
    }
    git_branch_iterator_free(it);
    if (err != GIT_ITEROVER) {
        repo_branches_free(v, k);
        return repo_git_errorf(
            e, "cannot list branches of '%s'", r->common_dir);
    }
    if (k)
        qsort(v, k, sizeof(*v), cmp_str);
    *names = v;
    *n = k;
    return 0;
}

void
repo_branches_free(char **names, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int
repo_resolve_commit(
    struct repo *r, const char *rev, git_oid *out, struct as_err *e)
{
    git_object *obj = NULL, *commit = NULL;

    if (git_revparse_single(&obj, r->git, rev) < 0 ||
        git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
        git_object_free(obj);
        git_error_clear();
        return as_errorf(e, AS_ENOENT, "cannot resolve '%s' to a commit", rev);
    }
    git_oid_cpy(out, git_object_id(commit));
    git_object_free(commit);
    git_object_free(obj);
    return 0;
}

int
repo_open_worktree(
    struct repo *r, const char *path, git_repository **out, struct as_err *e)
{
    git_repository *g = NULL;
    char *common;
    int same;

    *out = NULL;
    if (git_repository_open_ext(&g, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) <
        0) {
        git_error_clear();
        return as_errorf(e, AS_ENOENT, "cannot open worktree '%s'", path);
    }
    common = strip_slash(git_repository_commondir(g));
    same = !strcmp(common, r->common_dir);
    free(common);
    if (!same || git_repository_is_bare(g)) {
        git_repository_free(g);
        return as_errorf(e, AS_EINVAL, "'%s' is not a worktree of '%s'", path,
            r->common_dir);
    }
    *out = g;
    return 0;
}

/* dir as a real path without a trailing slash (new string). */
static char *
real_dir(const char *dir)
{
    char *r = realpath(dir, NULL);
    char *out = strip_slash(r ? r : dir);
    free(r);
    return out;
}

int
repo_locate(const char *path, char **top, char **common_dir, struct as_err *e)
{
    git_repository *g = NULL;

    *top = *common_dir = NULL;
    git_libgit2_init();
    if (git_repository_open_ext(&g, path, 0, NULL) < 0 ||
        !git_repository_workdir(g)) {
        git_error_clear();
        git_repository_free(g);
        git_libgit2_shutdown();
        return as_errorf(e, AS_ENOENT, "'%s' is in no git working tree", path);
    }
    *top = real_dir(git_repository_workdir(g));
    *common_dir = real_dir(git_repository_commondir(g));
    git_repository_free(g);
    git_libgit2_shutdown();
    return 0;
}

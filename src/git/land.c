/*
 * land.c - land a branch on another: speculative merge, compare-and-swap
 * of the target, the checked-out target kept in step (see land.h).
 */
#include "git/land.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>
#include <git2/sys/repository.h>

#include "git/indexlock.h"
#include "git/merge.h"
#include "git/repo.h"
#include "git/shallow.h"
#include "util/file.h"
#include "util/sort.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define LAND_DEFAULT_ATTEMPTS 64
#define LAND_DEFAULT_INDEX_TRIES 5
#define LAND_DEFAULT_INDEX_WAIT_MS 40
/* Paths named in a refusal before "...". */
#define LAND_LIST_MAX 20

void
land_plan_release(struct land_plan *p)
{
    free(p->source);
    free(p->target);
    strv_free(p->files, p->nfiles);
    strv_free(p->conflicts, p->nconflicts);
    free(p->worktree);
    memset(p, 0, sizeof(*p));
}

void
land_result_release(struct land_result *r)
{
    for (size_t i = 0; i < r->nfiles; i++)
        free(r->files[i].path);
    free(r->files);
    free(r->worktree);
    free(r->note);
    memset(r, 0, sizeof(*r));
}

static void
sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "a, b, c, ..." of the first LAND_LIST_MAX of v. */
static void
list_paths(struct strbuf *sb, char *const *v, size_t n)
{
    for (size_t i = 0; i < n && i < LAND_LIST_MAX; i++)
        strbuf_addf(sb, "%s%s", i ? ", " : "", v[i]);
    if (n > LAND_LIST_MAX)
        strbuf_addf(sb, ", ... (%zu in all)", n);
}

/* The tip of local branch name; AS_ENOENT when there is none. */
static int
branch_tip(git_repository *g, const char *name, git_oid *out, bool *exists,
    struct as_err *e)
{
    char *ref = xasprintf("refs/heads/%s", name);
    int err = git_reference_name_to_id(out, g, ref);
    free(ref);
    if (exists)
        *exists = err == 0;
    if (err == GIT_ENOTFOUND || err == GIT_EINVALIDSPEC) {
        git_error_clear();
        return as_errorf(
            e, AS_ENOENT, "no branch '%s' in this repository", name);
    }
    if (err < 0)
        return repo_git_errorf(e, "cannot read branch '%s'", name);
    return 0;
}

static int
commit_tree_of(
    git_repository *g, const git_oid *id, git_tree **out, struct as_err *e)
{
    git_commit *c = NULL;
    *out = NULL;
    if (git_commit_lookup(&c, g, id) < 0 || git_commit_tree(out, c) < 0) {
        char hex[41];
        git_oid_tostr(hex, sizeof(hex), id);
        git_commit_free(c);
        return repo_git_errorf(e, "cannot read commit %s", hex);
    }
    git_commit_free(c);
    return 0;
}

/* Paths that differ between trees a and b (no rename pairing: a rename
 * is its two paths), with their status; sorted. */
static int
tree_changes(git_repository *g, git_tree *a, git_tree *b,
    struct land_file **out, size_t *n, struct as_err *e)
{
    git_diff *d = NULL;
    git_diff_options dopt;
    git_diff_options_init(&dopt, GIT_DIFF_OPTIONS_VERSION);
    dopt.flags = GIT_DIFF_INCLUDE_TYPECHANGE;
    *out = NULL;
    *n = 0;
    if (git_diff_tree_to_tree(&d, g, a, b, &dopt) < 0)
        return repo_git_errorf(e, "cannot compare two trees");
    size_t k = git_diff_num_deltas(d);
    struct land_file *v = xcalloc(k + 1, sizeof(*v));
    for (size_t i = 0; i < k; i++) {
        const git_diff_delta *dd = git_diff_get_delta(d, i);
        enum commit_status st = COMMIT_MODIFIED;
        switch (dd->status) {
        case GIT_DELTA_ADDED:
            st = COMMIT_ADDED;
            break;
        case GIT_DELTA_DELETED:
            st = COMMIT_DELETED;
            break;
        case GIT_DELTA_TYPECHANGE:
            st = COMMIT_TYPECHANGE;
            break;
        default:
            if (git_oid_equal(&dd->old_file.id, &dd->new_file.id))
                st = COMMIT_MODE;
            break;
        }
        v[i].path =
            xstrdup(dd->new_file.path ? dd->new_file.path : dd->old_file.path);
        v[i].status = st;
    }
    git_diff_free(d);
    *out = v;
    *n = k;
    return 0;
}

/* ---- operations in progress ---- */

/* git's state files of an operation in progress in a worktree's git
 * directory; head_name: the file naming the branch it works on, when
 * that branch need not be the worktree's HEAD (detached meanwhile). */
static const struct {
    const char *file;
    const char *what;
    const char *head_name;
} land_ops[] = {
    { "rebase-merge", "a rebase", "rebase-merge/head-name" },
    { "rebase-apply", "a rebase or `git am`", "rebase-apply/head-name" },
    { "MERGE_HEAD", "a merge", NULL },
    { "CHERRY_PICK_HEAD", "a cherry-pick", NULL },
    { "REVERT_HEAD", "a revert", NULL },
    { "BISECT_LOG", "a bisect", "BISECT_START" },
};

static bool
state_has(const char *gitdir, const char *file)
{
    char *path = xasprintf("%s/%s", gitdir, file);
    bool yes = access(path, F_OK) == 0;
    free(path);
    return yes;
}

/* The branch the first line of gitdir/file names ("refs/heads/X", or X
 * as BISECT_START has it), new string; NULL when none. */
static char *
state_branch(const char *gitdir, const char *file)
{
    char *path = xasprintf("%s/%s", gitdir, file), *buf = NULL, *out = NULL;
    size_t len;
    int rc = file_read_max(path, 4096, false, &buf, &len);
    free(path);
    if (rc)
        return NULL;
    buf[strcspn(buf, "\r\n")] = '\0';
    const char *b = buf;
    if (!strncmp(b, "refs/heads/", 11))
        b += 11;
    if (*b)
        out = xstrdup(b);
    free(buf);
    return out;
}

/*
 * Refuse (AS_ECONFLICT) when branch target or source is in the hands of
 * an operation in progress in some worktree: a rebase of it or a bisect
 * started from it (that worktree's HEAD is detached meanwhile, and the
 * rebase ends by setting the branch to what it rebuilt from the old tip,
 * which drops a land made in between), or a merge, cherry-pick, revert,
 * rebase or bisect in a worktree that has it checked out. git counts
 * such a branch as checked out too (`git branch -f` refuses it).
 */
static int
land_in_flight(
    struct repo *r, const char *target, const char *source, struct as_err *e)
{
    struct repo_worktree *wts = NULL;
    size_t n = 0;
    int rc = repo_worktrees(r, &wts, &n, e);
    if (rc)
        return rc;
    for (size_t i = 0; !rc && i < n; i++) {
        if (wts[i].prunable)
            continue;
        char *gitdir = wts[i].is_main ? xstrdup(repo_common_dir(r))
                                      : xasprintf("%s/worktrees/%s",
                                            repo_common_dir(r), wts[i].name);
        for (size_t k = 0; k < sizeof(land_ops) / sizeof(land_ops[0]); k++) {
            if (!state_has(gitdir, land_ops[k].file))
                continue;
            char *named = land_ops[k].head_name
                              ? state_branch(gitdir, land_ops[k].head_name)
                              : NULL;
            const char *hit = NULL;
            for (int s = 0; s < 2 && !hit; s++) {
                const char *b = s ? source : target;
                if ((named && !strcmp(named, b)) ||
                    (wts[i].branch && !strcmp(wts[i].branch, b)))
                    hit = b;
            }
            if (hit)
                rc = as_errorf(e, AS_ECONFLICT,
                    "'%s' has %s in progress on '%s' (the %s): finish or "
                    "abort it there first; nothing landed",
                    wts[i].path, land_ops[k].what, hit,
                    hit == target ? "branch to land on" : "branch to land");
            free(named);
            if (hit)
                break;
        }
        free(gitdir);
    }
    repo_worktrees_free(wts, n);
    return rc;
}

int
land_prepare(const char *from, const char *source, const char *target,
    struct land_plan *p, struct as_err *e)
{
    memset(p, 0, sizeof(*p));
    if (!strcmp(source, target))
        return as_errorf(
            e, AS_EINVAL, "cannot land branch '%s' on itself", source);
    struct repo *r = NULL;
    struct repo_worktree *wts = NULL;
    size_t nwts = 0;
    git_tree *st = NULL, *tt = NULL, *bt = NULL;
    struct land_file *ch = NULL;
    size_t nch = 0;
    struct merge_result mr;
    memset(&mr, 0, sizeof(mr));
    git_oid s, t, base;
    int rc = repo_open(from, &r, e);
    if (rc)
        return rc;
    git_repository *g = repo_git(r);
    if ((rc = branch_tip(g, source, &s, NULL, e)) ||
        (rc = branch_tip(g, target, &t, NULL, e)) ||
        (rc = land_in_flight(r, target, source, e)))
        goto out;
    int err = shallow_merge_base(&base, g, &t, &s, e);
    if (err == GIT_ENOTFOUND) {
        git_error_clear();
        rc = as_errorf(
            e, AS_EINVAL, "'%s' and '%s' share no history", source, target);
        goto out;
    }
    if (err < 0) {
        rc = AS_EGIT;
        goto out;
    }
    p->source = xstrdup(source);
    p->target = xstrdup(target);
    git_oid_tostr(p->source_tip, sizeof(p->source_tip), &s);
    git_oid_tostr(p->target_tip, sizeof(p->target_tip), &t);
    git_oid_tostr(p->base, sizeof(p->base), &base);
    p->up_to_date = git_oid_equal(&base, &s);
    p->fast_forward = !p->up_to_date && git_oid_equal(&base, &t);
    if ((rc = commit_tree_of(g, &s, &st, e)) ||
        (rc = commit_tree_of(g, &t, &tt, e)) ||
        (rc = commit_tree_of(g, &base, &bt, e)) ||
        (rc = tree_changes(g, bt, st, &ch, &nch, e)))
        goto out;
    p->files = xcalloc(nch + 1, sizeof(char *));
    for (size_t i = 0; i < nch; i++) {
        p->files[p->nfiles++] = ch[i].path;
        ch[i].path = NULL;
    }
    qsort(p->files, p->nfiles, sizeof(char *), cmp_str);
    if (!p->up_to_date && !p->fast_forward) {
        char th[41], sh[41];
        git_oid_tostr(th, sizeof(th), git_tree_id(tt));
        git_oid_tostr(sh, sizeof(sh), git_tree_id(st));
        if ((rc = merge_speculative(
                 r, NULL, p->target_tip, th, p->source_tip, sh, &mr, e)))
            goto out;
        if (mr.conflicted) {
            p->conflicts = mr.paths;
            p->nconflicts = mr.npaths;
            mr.paths = NULL;
            mr.npaths = 0;
        }
    }
    if ((rc = repo_worktrees(r, &wts, &nwts, e)))
        goto out;
    for (size_t i = 0; i < nwts; i++)
        if (!wts[i].prunable && wts[i].branch && !strcmp(wts[i].branch, target))
            p->worktree = xstrdup(wts[i].path);
out:
    if (rc)
        land_plan_release(p);
    for (size_t i = 0; i < nch; i++)
        free(ch[i].path);
    free(ch);
    merge_result_release(&mr);
    repo_worktrees_free(wts, nwts);
    git_tree_free(st);
    git_tree_free(tt);
    git_tree_free(bt);
    repo_free(r);
    return rc;
}

int
land_here(const char *from, char **top, char **branch, struct as_err *e)
{
    *top = *branch = NULL;
    git_libgit2_init();
    git_repository *w = NULL;
    git_reference *head = NULL;
    int rc = 0;
    if (git_repository_open_ext(&w, from, 0, NULL) < 0 ||
        git_repository_is_bare(w)) {
        git_error_clear();
        rc = as_errorf(e, AS_ENOENT, "'%s' is not in a working tree", from);
        goto out;
    }
    *top = xstrdup(git_repository_workdir(w));
    size_t tl = strlen(*top);
    if (tl > 1 && (*top)[tl - 1] == '/')
        (*top)[tl - 1] = '\0';
    if (git_repository_head(&head, w) < 0 || !git_reference_is_branch(head)) {
        git_error_clear();
        rc = as_errorf(
            e, AS_EINVAL, "'%s' is not on a branch with commits", *top);
        goto out;
    }
    *branch = xstrdup(git_reference_shorthand(head));
out:
    git_reference_free(head);
    git_repository_free(w);
    git_libgit2_shutdown();
    return rc;
}

/* ---- the checked-out target ---- */

struct wt_lock {
    git_repository *w;
    struct index_lock il; /* its index, locked; il.idx the copy to change */
};

static void
wt_abort(struct wt_lock *l)
{
    index_lock_abort(&l->il);
    git_repository_free(l->w);
    memset(l, 0, sizeof(*l));
}

struct wt_conflicts {
    char **v;
    size_t n, alloc;
};

static int
wt_notify(git_checkout_notify_t why, const char *path,
    const git_diff_file *baseline, const git_diff_file *target,
    const git_diff_file *workdir, void *payload)
{
    (void)why;
    (void)baseline;
    (void)target;
    (void)workdir;
    struct wt_conflicts *c = payload;
    ALLOC_GROW(c->v, c->n + 1, c->alloc);
    c->v[c->n++] = xstrdup(path);
    return 0;
}

static void
checkout_options(git_checkout_options *co, git_tree *baseline, bool dry_run,
    struct wt_conflicts *c)
{
    git_checkout_options_init(co, GIT_CHECKOUT_OPTIONS_VERSION);
    co->checkout_strategy = GIT_CHECKOUT_SAFE | GIT_CHECKOUT_DONT_WRITE_INDEX |
                            (dry_run ? GIT_CHECKOUT_DRY_RUN : 0);
    co->baseline = baseline;
    if (c) {
        co->notify_flags = GIT_CHECKOUT_NOTIFY_CONFLICT;
        co->notify_cb = wt_notify;
        co->notify_payload = c;
    }
}

/* The refusal for uncommitted changes in the target's worktree. */
static int
wt_dirty(
    struct as_err *e, const char *path, const char *target, char **v, size_t n)
{
    size_t w = sort_uniq_strv(v, n);
    struct strbuf sb = STRBUF_INIT;
    list_paths(&sb, v, w);
    int rc = as_errorf(e, AS_ECONFLICT,
        "'%s' (where '%s' is checked out) has uncommitted changes to %zu "
        "path%s this land changes: %s; commit or stash them there, then "
        "land again; nothing landed",
        path, target, w, w == 1 ? "" : "s", sb.s ? sb.s : "");
    free(sb.s);
    strv_free(v, w);
    return rc;
}

/*
 * Refuse (AS_ECONFLICT) when a path the land writes into the worktree w
 * would go through what libgit2's checkout cannot run: a smudge filter
 * driver configured there (Git LFS) or a working-tree-encoding, by the
 * attributes of the worktree or of the source commit. Its raw blob (an
 * LFS pointer) would land in the files.
 */
static int
wt_filters(git_repository *w, const char *path, const char *target,
    const git_oid *source, const struct land_file *files, size_t n,
    struct as_err *e)
{
    git_config *cfg = NULL;
    if (git_repository_config_snapshot(&cfg, w) < 0)
        return repo_git_errorf(
            e, "cannot read the configuration of '%s'", path);
    git_attr_options ao = GIT_ATTR_OPTIONS_INIT;
    ao.flags = GIT_ATTR_CHECK_FILE_THEN_INDEX | GIT_ATTR_CHECK_INCLUDE_COMMIT;
    git_oid_cpy(&ao.attr_commit_id, source);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (files[i].status == COMMIT_DELETED)
            continue;
        for (int k = 0; k < 2 && !rc; k++) {
            char *v = NULL;
            int kind = commit_filter_of(
                w, cfg, k ? &ao : NULL, files[i].path, true, &v, e);
            if (kind < 0)
                rc = kind;
            else if (kind == COMMIT_FILTER_DRIVER)
                rc = as_errorf(e, AS_ECONFLICT,
                    "'%s' goes through git's filter driver '%s' "
                    "(.gitattributes), which airspace cannot run to check it "
                    "out in '%s' (where '%s' is checked out): land it with "
                    "`git merge` there; nothing landed",
                    files[i].path, v, path, target);
            else if (kind == COMMIT_FILTER_ENCODING)
                rc = as_errorf(e, AS_ECONFLICT,
                    "'%s' has working-tree-encoding=%s (.gitattributes), "
                    "which airspace cannot convert to check it out in '%s' "
                    "(where '%s' is checked out): land it with `git merge` "
                    "there; nothing landed",
                    files[i].path, v, path, target);
            free(v);
        }
    }
    git_config_free(cfg);
    return rc;
}

/*
 * Take the index lock of the worktree at path (which must still have
 * refname checked out, with nothing in progress), and refuse when any of
 * the changed paths has uncommitted changes there or a checkout from
 * now_tree to result (when the worktree can read it) would not be safe.
 */
static int
wt_begin(struct wt_lock *l, const char *path, const char *target,
    const char *refname, git_tree *now_tree, const git_oid *result,
    const git_oid *source, const struct land_file *files, size_t n,
    const struct land_options *o, struct as_err *e)
{
    memset(l, 0, sizeof(*l));
    git_reference *head = NULL;
    git_status_list *sl = NULL;
    git_tree *rt = NULL, *base = NULL;
    struct wt_conflicts c = { NULL, 0, 0 };
    int rc = 0;
    if (git_repository_open(&l->w, path) < 0) {
        rc = repo_git_errorf(e, "cannot open the worktree '%s'", path);
        goto out;
    }
    if (git_reference_lookup(&head, l->w, "HEAD") < 0 ||
        git_reference_type(head) != GIT_REFERENCE_SYMBOLIC ||
        strcmp(git_reference_symbolic_target(head), refname)) {
        git_error_clear();
        rc = as_errorf(e, AS_ECONFLICT,
            "'%s' no longer has '%s' checked out: land again; nothing "
            "landed",
            path, target);
        goto out;
    }
    int state = git_repository_state(l->w);
    if (state != GIT_REPOSITORY_STATE_NONE &&
        state != GIT_REPOSITORY_STATE_BISECT) {
        rc = as_errorf(e, AS_ECONFLICT,
            "'%s' (where '%s' is checked out) has a merge, rebase or other "
            "operation in progress: finish it there first; nothing landed",
            path, target);
        goto out;
    }
    if ((rc = wt_filters(l->w, path, target, source, files, n, e)))
        goto out;
    unsigned tries = o->index_tries ? o->index_tries : LAND_DEFAULT_INDEX_TRIES;
    unsigned wait =
        o->index_wait_ms ? o->index_wait_ms : LAND_DEFAULT_INDEX_WAIT_MS;
    struct as_err le;
    rc = index_lock_take(&l->il, path, NULL, tries, wait, &le);
    if (rc == AS_ECONFLICT) {
        rc = as_errorf(e, AS_ECONFLICT,
            "%s (the index of the worktree where '%s' is checked out); "
            "nothing landed",
            le.msg, target);
        goto out;
    }
    if (rc) {
        rc = as_errorf(e, rc, "%s; nothing landed", le.msg);
        goto out;
    }
    git_repository_set_index(l->w, l->il.idx);
    if (!n)
        goto out;
    /* uncommitted changes to a path the land changes */
    git_status_options so;
    git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
    so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED |
               GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
               GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH;
    char **specs = xcalloc(n, sizeof(char *));
    for (size_t i = 0; i < n; i++)
        specs[i] = files[i].path;
    so.pathspec.strings = specs;
    so.pathspec.count = n;
    int err = git_status_list_new(&sl, l->w, &so);
    free(specs);
    if (err < 0) {
        rc = repo_git_errorf(e, "cannot read the status of '%s'", path);
        goto out;
    }
    for (size_t i = 0; i < git_status_list_entrycount(sl); i++) {
        const git_status_entry *s = git_status_byindex(sl, i);
        const git_diff_delta *d =
            s->index_to_workdir ? s->index_to_workdir : s->head_to_index;
        if (d && !(s->status & GIT_STATUS_IGNORED)) {
            ALLOC_GROW(c.v, c.n + 1, c.alloc);
            c.v[c.n++] =
                xstrdup(d->new_file.path ? d->new_file.path : d->old_file.path);
        }
    }
    /* anything else in the way (an untracked file where a directory
     * comes), as the checkout would find it */
    if (!c.n && git_tree_lookup(&rt, l->w, result) == 0 &&
        git_tree_lookup(&base, l->w, git_tree_id(now_tree)) == 0) {
        git_checkout_options co;
        checkout_options(&co, base, true, &c);
        if (git_checkout_tree(l->w, (git_object *)rt, &co) < 0 && !c.n) {
            rc = repo_git_errorf(e, "cannot check out the land in '%s'", path);
            goto out;
        }
    }
    git_error_clear();
    if (c.n) {
        rc = wt_dirty(e, path, target, c.v, c.n);
        c.v = NULL;
        c.n = 0;
    }
out:
    strv_free(c.v, c.n);
    git_status_list_free(sl);
    git_tree_free(rt);
    git_tree_free(base);
    git_reference_free(head);
    if (rc)
        wt_abort(l);
    return rc;
}

/* After the swap: check out result over baseline in the worktree, write
 * the index copy and rename it into place. A note when it fails. */
static void
wt_finish(struct wt_lock *l, const char *path, git_tree *baseline,
    const git_oid *result_tree, const git_oid *old, struct land_result *res)
{
    git_tree *rt = NULL, *base = NULL;
    git_checkout_options co;
    struct as_err le = { "" };
    if (git_tree_lookup(&rt, l->w, result_tree) < 0 ||
        git_tree_lookup(&base, l->w, git_tree_id(baseline)) < 0)
        goto fail;
    checkout_options(&co, base, false, NULL);
    if (git_checkout_tree(l->w, (git_object *)rt, &co) < 0 ||
        index_lock_commit(&l->il, &le) < 0)
        goto fail;
    res->worktree_updated = true;
    goto out;
fail:;
    char oh[41];
    git_oid_tostr(oh, sizeof(oh), old);
    const git_error *ge = git_error_last();
    res->note = xasprintf(
        "landed, but the files and index of '%s' could not follow (%s): "
        "bring them in line there with `git read-tree -m -u %.12s %s`",
        path,
        le.msg[0]           ? le.msg
        : ge && ge->message ? ge->message
                            : "?",
        oh, res->commit);
    git_error_clear();
out:
    git_tree_free(rt);
    git_tree_free(base);
    wt_abort(l);
}

/* ---- landing ---- */

/* The commit now was changed into at result reads back as intended. */
static int
read_back(const char *gitdir, const char *refname, const git_oid *result,
    const git_oid *now, const git_oid *source, const git_oid *tree, bool merge,
    struct as_err *e)
{
    git_repository *g = NULL;
    git_commit *c = NULL;
    git_oid at;
    char hex[41];
    git_oid_tostr(hex, sizeof(hex), result);
    int rc = 0;
    if (git_repository_open(&g, gitdir) < 0 ||
        git_reference_name_to_id(&at, g, refname) < 0 ||
        git_commit_lookup(&c, g, result) < 0) {
        rc = repo_git_errorf(e, "landed %s, but cannot read it back", hex);
        goto out;
    }
    bool ok = git_oid_equal(&at, result) ||
              git_graph_descendant_of(g, &at, result) == 1;
    if (merge)
        ok = ok && git_commit_parentcount(c) == 2 &&
             git_oid_equal(git_commit_parent_id(c, 0), now) &&
             git_oid_equal(git_commit_parent_id(c, 1), source) &&
             git_oid_equal(git_commit_tree_id(c), tree);
    if (!ok)
        rc = as_errorf(e, AS_EGIT,
            "landed %s, but it does not read back as intended", hex);
out:
    git_error_clear();
    git_commit_free(c);
    git_repository_free(g);
    return rc;
}

int
land_apply(const char *from, const struct land_plan *p,
    const struct land_options *o, struct land_result *res, struct as_err *e)
{
    memset(res, 0, sizeof(*res));
    struct repo *r = NULL;
    git_repository *disk = NULL;
    git_signature *author = NULL, *committer = NULL;
    git_buf msg = GIT_BUF_INIT;
    git_tree *now_tree = NULL, *src_tree = NULL, *anc = NULL,
             *result_tree = NULL;
    git_index *idx = NULL;
    git_commit *cnow = NULL, *csrc = NULL;
    struct merge_result mr;
    memset(&mr, 0, sizeof(mr));
    struct wt_lock wl;
    memset(&wl, 0, sizeof(wl));
    char *refname = xasprintf("refs/heads/%s", p->target);
    char *logmsg = NULL, *dflt = NULL;
    git_oid src;
    int rc = repo_open(from, &r, e);
    if (rc)
        goto out;
    if (git_repository_open(&disk, repo_common_dir(r)) < 0) {
        rc = repo_git_errorf(e, "cannot open '%s'", repo_common_dir(r));
        goto out;
    }
    /* a dry run merges in memory: nothing is written */
    git_repository *g = o->dry_run ? repo_git(r) : disk;
    if (git_oid_fromstr(&src, p->source_tip) < 0 ||
        (rc = commit_tree_of(g, &src, &src_tree, e)))
        goto out;
    dflt = xasprintf("Land %s into %s", p->source, p->target);
    const char *text = o->message ? o->message : dflt;
    if (git_message_prettify(&msg, text, 0, '#') < 0 || !msg.size) {
        git_error_clear();
        rc = as_errorf(e, AS_EINVAL, "empty land message: nothing landed");
        goto out;
    }
    if (p->worktree)
        res->worktree = xstrdup(p->worktree);
    unsigned max = o->max_attempts ? o->max_attempts : LAND_DEFAULT_ATTEMPTS;
    for (unsigned attempt = 0;; attempt++) {
        git_oid now, base, result, tree_id;
        bool exists;
        if ((rc = branch_tip(disk, p->target, &now, &exists, e))) {
            if (rc == AS_ENOENT && attempt)
                rc = as_errorf(e, AS_ECONFLICT,
                    "'%s' was deleted meanwhile; nothing landed", p->target);
            goto out;
        }
        git_oid_tostr(res->parent, sizeof(res->parent), &now);
        for (size_t i = 0; i < res->nfiles; i++)
            free(res->files[i].path);
        free(res->files);
        res->files = NULL;
        res->nfiles = 0;
        git_tree_free(now_tree);
        git_tree_free(anc);
        git_tree_free(result_tree);
        now_tree = anc = result_tree = NULL;
        if (git_oid_equal(&now, &src) ||
            git_graph_descendant_of(disk, &now, &src) == 1) {
            res->up_to_date = true;
            git_oid_tostr(res->commit, sizeof(res->commit), &now);
            goto out;
        }
        if ((rc = commit_tree_of(g, &now, &now_tree, e)))
            goto out;
        int err = shallow_merge_base(&base, disk, &now, &src, e);
        if (err < 0) {
            git_error_clear();
            rc = err == GIT_ENOTFOUND
                     ? as_errorf(e, AS_ECONFLICT,
                           "'%s' no longer shares history with '%s'; "
                           "nothing landed",
                           p->target, p->source)
                     : AS_EGIT;
            goto out;
        }
        res->fast_forward = git_oid_equal(&base, &now);
        if (res->fast_forward) {
            git_oid_cpy(&result, &src);
            git_oid_cpy(&tree_id, git_tree_id(src_tree));
        } else {
            char th[41], sh[41], nh[41];
            git_oid_tostr(th, sizeof(th), git_tree_id(now_tree));
            git_oid_tostr(sh, sizeof(sh), git_tree_id(src_tree));
            git_oid_tostr(nh, sizeof(nh), &now);
            merge_result_release(&mr);
            if ((rc = merge_speculative(
                     r, NULL, nh, th, p->source_tip, sh, &mr, e)))
                goto out;
            if (mr.conflicted) {
                struct strbuf sb = STRBUF_INIT;
                list_paths(&sb, mr.paths, mr.npaths);
                rc = as_errorf(e, AS_ECONFLICT,
                    "merging '%s' into '%s'%s conflicts in %zu path%s: %s; "
                    "nothing landed",
                    p->source, p->target,
                    strcmp(nh, p->target_tip) ? " (which moved meanwhile)" : "",
                    mr.npaths, mr.npaths == 1 ? "" : "s", sb.s);
                free(sb.s);
                goto out;
            }
            if ((rc = commit_tree_of(g, &base, &anc, e)))
                goto out;
            git_index_free(idx);
            idx = NULL;
            if ((rc = merge_trees_as_git(g, anc, now_tree, src_tree, &idx, e)))
                goto out;
            if (git_index_has_conflicts(idx)) {
                rc = as_errorf(e, AS_ECONFLICT,
                    "merging '%s' into '%s' conflicts; nothing landed",
                    p->source, p->target);
                goto out;
            }
            if (git_index_write_tree_to(&tree_id, idx, g) < 0) {
                rc = repo_git_errorf(e, "cannot write the merged tree");
                goto out;
            }
            memset(&result, 0, sizeof(result));
            if (!o->dry_run) {
                if (!author &&
                    ((rc = commit_identity_in(
                          disk, repo_common_dir(r), "author", &author, e)) ||
                        (rc = commit_identity_in(disk, repo_common_dir(r),
                             "committer", &committer, e))))
                    goto out;
                git_commit_free(cnow);
                git_commit_free(csrc);
                cnow = csrc = NULL;
                git_tree *mt = NULL;
                if (git_commit_lookup(&cnow, disk, &now) < 0 ||
                    git_commit_lookup(&csrc, disk, &src) < 0 ||
                    git_tree_lookup(&mt, disk, &tree_id) < 0) {
                    rc = repo_git_errorf(e, "cannot read the merge's parts");
                    goto out;
                }
                const git_commit *parents[2] = { cnow, csrc };
                err = git_commit_create(&result, disk, NULL, author, committer,
                    NULL, msg.ptr, mt, 2, parents);
                git_tree_free(mt);
                if (err < 0) {
                    rc = repo_git_errorf(e, "cannot create the merge commit");
                    goto out;
                }
            }
        }
        if (git_tree_lookup(&result_tree, g, &tree_id) < 0) {
            rc = repo_git_errorf(e, "cannot read the landed tree");
            goto out;
        }
        if ((rc = tree_changes(
                 g, now_tree, result_tree, &res->files, &res->nfiles, e)))
            goto out;
        /* again: an operation may have started since the plan */
        if ((rc = land_in_flight(r, p->target, p->source, e)))
            goto out;
        if (p->worktree &&
            (rc = wt_begin(&wl, p->worktree, p->target, refname, now_tree,
                 &tree_id, &src, res->files, res->nfiles, o, e)))
            goto out;
        if (o->dry_run) {
            if (res->fast_forward)
                git_oid_tostr(res->commit, sizeof(res->commit), &result);
            goto out;
        }
        if (o->before_update)
            o->before_update(o->hook_ctx, attempt);
        free(logmsg);
        logmsg = res->fast_forward
                     ? xasprintf("land (airspace): fast-forward %s", p->source)
                     : xasprintf("land (airspace): %.*s",
                           (int)strcspn(msg.ptr, "\n"), msg.ptr);
        if (committer && git_repository_set_ident(
                             disk, committer->name, committer->email) < 0)
            git_error_clear();
        git_reference *ref = NULL;
        err = git_reference_create_matching(
            &ref, disk, refname, &result, 1, &now, logmsg);
        git_reference_free(ref);
        if (err == 0) {
            git_oid_tostr(res->commit, sizeof(res->commit), &result);
            if (p->worktree)
                wt_finish(&wl, p->worktree, now_tree, &tree_id, &now, res);
            rc = read_back(repo_common_dir(r), refname, &result, &now, &src,
                &tree_id, !res->fast_forward, e);
            goto out;
        }
        wt_abort(&wl);
        if (err != GIT_EMODIFIED && err != GIT_EEXISTS && err != GIT_ELOCKED &&
            err != GIT_ENOTFOUND) {
            rc = repo_git_errorf(e, "cannot update '%s'", refname);
            goto out;
        }
        git_error_clear();
        res->retries++;
        if (attempt + 1 >= max) {
            rc = as_errorf(e, AS_EIO,
                "gave up after %u attempts: '%s' kept moving (or stayed "
                "locked); nothing landed",
                max, p->target);
            goto out;
        }
        unsigned span = 1u << (attempt < 6 ? attempt : 6);
        sleep_ms(1 + (unsigned)((unsigned)getpid() * 2654435761u +
                                attempt * 40503u) %
                         span);
    }
out:
    wt_abort(&wl);
    merge_result_release(&mr);
    git_index_free(idx);
    git_commit_free(cnow);
    git_commit_free(csrc);
    git_tree_free(now_tree);
    git_tree_free(src_tree);
    git_tree_free(anc);
    git_tree_free(result_tree);
    git_signature_free(author);
    git_signature_free(committer);
    git_buf_dispose(&msg);
    git_repository_free(disk);
    repo_free(r);
    free(refname);
    free(logmsg);
    free(dflt);
    return rc;
}

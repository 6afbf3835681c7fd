/*
 * workset.c - working sets as zero-context diffs from the merge base.
 *
 * One diff from the base tree to the working tree (through the index, so
 * staged, unstaged and untracked work all count) gives both the tree that
 * captures the agent's work and, after rename detection, the files and hunk
 * ranges. A second, content-free diff from HEAD tells which files have
 * uncommitted changes (their change time is the file's mtime); the others
 * take the time of the latest commit ahead of the base that touched them.
 *
 * Three kinds of delta say less than they seem to, and are read from the
 * tree that captures the work instead: a path git keeps out of a sparse
 * checkout (reported deleted), a path a merge in progress left conflicted
 * (never staged), and an untracked nested repository (a directory, left
 * out).
 *
 * The agent clients' settings (broker_client_config()) are nobody's work:
 * `agent new` copies them into every worktree. They are left out of the
 * captured tree, so a merge or rebase of it never meets them, and of every
 * working set made from a diff here.
 *
 * Slightly over 1,000 lines: the three special cases above read the tree
 * that captures the work, built here, and share its helpers.
 */
#include "git/workset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "git/paths.h"
#include "git/shallow.h"
#include "util/hash.h"
#include "util/sort.h"
#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* A file bigger than this is not read into memory to capture it. */
#define WORKSET_MAX_FILE (256u << 20)
/* Change times come from at most this many of the newest commits ahead. */
#define WORKSET_MAX_TOUCHED 1000

struct ws_ctx {
    struct repo *r;
    git_repository *g;  /* main repository (writes go to memory) */
    git_repository *wr; /* the worktree, or NULL for a branch */
    char *workdir;      /* wr's directory, no trailing slash */
    const struct workset_options *o;
    git_commit *head;
    git_oid base;
    git_tree *base_tree, *head_tree;
    git_tree *work_tree; /* the captured work, once built (worktree only) */
    git_index *widx;     /* the worktree's index, read only */
    const git_diff_options *dopts; /* the diff's options, for patches */
    git_oid *ahead;                /* base..HEAD, newest first */
    size_t nahead, aahead;
    struct strmap uncommitted; /* paths that differ from HEAD */
    struct strmap touched;     /* path -> latest commit time (s) ahead */
};

void
workset_options_init(struct workset_options *o)
{
    o->integration = NULL;
    o->now_ms = 0;
    o->untracked = true;
    o->warn = NULL;
    o->warn_ctx = NULL;
    o->scope = NULL;
}

static void
ctx_release(struct ws_ctx *c)
{
    git_tree_free(c->base_tree);
    git_tree_free(c->head_tree);
    git_tree_free(c->work_tree);
    git_index_free(c->widx);
    git_commit_free(c->head);
    git_repository_free(c->wr);
    free(c->workdir);
    free(c->ahead);
    strmap_release(&c->uncommitted);
    strmap_release(&c->touched);
}

/* When c was written: its author time, which a rebase or an amend keeps. */
static int64_t
author_ms(git_commit *c)
{
    const git_signature *s = git_commit_author(c);

    return s ? (int64_t)s->when.time * 1000 : 0;
}

/* Record, for every path a commit ahead of the base touched, the time of the
 * newest such commit. */
static int
collect_touched(struct ws_ctx *c, struct as_err *e)
{
    size_t i;

    for (i = 0; i < c->nahead && i < WORKSET_MAX_TOUCHED; i++) {
        git_commit *cm = NULL, *parent = NULL;
        git_tree *t = NULL, *pt = NULL;
        git_diff *d = NULL;
        size_t k, nd;
        uint32_t when;
        int err = 0;

        int prc = 0;
        if (git_commit_lookup(&cm, c->g, &c->ahead[i]) < 0) {
            err = repo_git_errorf(e, "cannot read a commit ahead of base");
        } else if (git_commit_parentcount(cm) > 0 &&
                   (prc = git_commit_parent(&parent, cm, 0)) == GIT_ENOTFOUND) {
            /* a shallow clone's cut: what it changed is not known here */
            git_error_clear();
            git_commit_free(cm);
            continue;
        } else if (prc < 0 || git_commit_tree(&t, cm) < 0 ||
                   (parent && git_commit_tree(&pt, parent) < 0) ||
                   git_diff_tree_to_tree(&d, c->g, pt, t, NULL) < 0) {
            err = repo_git_errorf(e, "cannot diff a commit ahead of base");
        }
        if (!err) {
            when = (uint32_t)git_commit_time(cm);
            nd = git_diff_num_deltas(d);
            for (k = 0; k < nd; k++) {
                const git_diff_delta *dd = git_diff_get_delta(d, k);
                const char *p1 = dd->old_file.path, *p2 = dd->new_file.path;

                strmap_put(&c->touched, p1, strlen(p1), when, NULL);
                strmap_put(&c->touched, p2, strlen(p2), when, NULL);
            }
        }
        git_diff_free(d);
        git_tree_free(t);
        git_tree_free(pt);
        git_commit_free(parent);
        git_commit_free(cm);
        if (err)
            return err;
    }
    return 0;
}

/* What ctx_setup() learnt of the commits between a base and a HEAD. */
struct workset_commits {
    bool valid;
    git_oid head, base;
    uint32_t commits_ahead, committed_lines;
    int64_t started_at_ms; /* 0: no commit ahead (left as it was) */
    struct strmap touched;
};

struct workset_commits *
workset_commits_new(void)
{
    struct workset_commits *k = xcalloc(1, sizeof(*k));
    strmap_init(&k->touched);
    return k;
}

void
workset_commits_free(struct workset_commits *k)
{
    if (!k)
        return;
    strmap_release(&k->touched);
    free(k);
}

/* Every key of from into to, with its value. */
static void
strmap_copy(struct strmap *to, const struct strmap *from)
{
    for (size_t i = 0; i < from->cap; i++)
        if (from->slots[i].key)
            strmap_put(to, from->slots[i].key, from->slots[i].len,
                from->slots[i].value, NULL);
}

/* Base, commits ahead and committed lines, from c->head; what the commits
 * say comes from k (may be NULL) when HEAD and the base are k's, and is
 * kept there otherwise. */
static int
ctx_setup(struct ws_ctx *c, const char *head_branch, struct agent *out,
    struct workset_commits *k, struct as_err *e)
{
    char *integ = NULL;
    const char *name;
    git_oid integ_oid, oid;
    git_revwalk *walk = NULL;
    git_diff *d = NULL;
    git_diff_stats *stats = NULL;
    const git_oid *head_oid = git_commit_id(c->head);
    char hex[GIT_OID_HEXSZ + 1];
    int err;

    if (c->o->integration)
        integ = xstrdup(c->o->integration);
    else if ((err = repo_integration_branch(c->r, &integ, e)) < 0)
        return err;
    name = integ;
    if (!strncmp(name, "refs/heads/", 11))
        name += 11;
    if (head_branch && !strcmp(head_branch, name)) {
        git_oid_cpy(&c->base, head_oid);
    } else {
        char *full = xasprintf("refs/heads/%s", name);

        /* the branch first, so a tag or path of that name cannot shadow it */
        err = repo_resolve_commit(c->r, full, &integ_oid, NULL);
        free(full);
        if (err < 0 &&
            (err = repo_resolve_commit(c->r, integ, &integ_oid, e)) < 0)
            goto out;
        err = shallow_merge_base(&c->base, c->g, head_oid, &integ_oid, e);
        if (err == GIT_ENOTFOUND) {
            git_error_clear();
            err = as_errorf(
                e, AS_ENOENT, "no common history between HEAD and '%s'", integ);
            goto out;
        }
        if (err < 0) {
            err = repo_git_errorf(
                e, "cannot find the merge base with '%s'", integ);
            goto out;
        }
    }

    if (git_commit_tree(&c->head_tree, c->head) < 0) {
        err = repo_git_errorf(e, "cannot read HEAD's tree");
        goto out;
    }
    {
        git_commit *bc = NULL;

        err = git_commit_lookup(&bc, c->g, &c->base);
        if (!err)
            err = git_commit_tree(&c->base_tree, bc);
        git_commit_free(bc);
        if (err < 0) {
            err = repo_git_errorf(e, "cannot read the base tree");
            goto out;
        }
    }

    if (k && k->valid && git_oid_equal(&k->head, head_oid) &&
        git_oid_equal(&k->base, &c->base)) {
        out->commits_ahead = k->commits_ahead;
        out->committed_lines = k->committed_lines;
        if (k->started_at_ms)
            out->started_at_ms = k->started_at_ms;
        strmap_copy(&c->touched, &k->touched);
        goto named;
    }
    if (git_repository_is_shallow(c->g) == 1) {
        /* libgit2 cannot walk past a shallow clone's cut */
        struct strmap cut;
        strmap_init(&cut);
        err = shallow_cut_load(c->g, &cut, e);
        if (!err && cut.count) {
            free(c->ahead);
            c->ahead = NULL;
            err = shallow_range(
                c->g, head_oid, 1, &c->base, &cut, &c->ahead, &c->nahead, e);
            c->aahead = c->nahead;
        }
        strmap_release(&cut);
        if (err)
            goto out;
    }
    git_error_clear();
    if (!c->ahead && (git_revwalk_new(&walk, c->g) < 0 ||
                         git_revwalk_sorting(
                             walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME) < 0 ||
                         git_revwalk_push(walk, head_oid) < 0 ||
                         git_revwalk_hide(walk, &c->base) < 0)) {
        err = repo_git_errorf(e, "cannot walk commits ahead of base");
        goto out;
    }
    while (walk && (err = git_revwalk_next(&oid, walk)) == 0) {
        ALLOC_GROW(c->ahead, c->nahead + 1, c->aahead);
        git_oid_cpy(&c->ahead[c->nahead++], &oid);
    }
    if (walk && err != GIT_ITEROVER) {
        err = repo_git_errorf(e, "cannot walk commits ahead of base");
        goto out;
    }
    err = 0;

    if (git_diff_tree_to_tree(&d, c->g, c->base_tree, c->head_tree, NULL) < 0 ||
        git_diff_get_stats(&stats, d) < 0) {
        err = repo_git_errorf(e, "cannot diff base to HEAD");
        goto out;
    }
    out->commits_ahead = (uint32_t)c->nahead;
    out->committed_lines = (uint32_t)(git_diff_stats_insertions(stats) +
                                      git_diff_stats_deletions(stats));
    if (c->nahead) {
        git_commit *first = NULL;

        if (git_commit_lookup(&first, c->g, &c->ahead[c->nahead - 1]) == 0)
            out->started_at_ms = author_ms(first);
        git_commit_free(first);
        if ((err = collect_touched(c, e)) < 0)
            goto out;
    }
    if (k) {
        k->valid = true;
        git_oid_cpy(&k->head, head_oid);
        git_oid_cpy(&k->base, &c->base);
        k->commits_ahead = out->commits_ahead;
        k->committed_lines = out->committed_lines;
        k->started_at_ms = c->nahead ? out->started_at_ms : 0;
        strmap_release(&k->touched);
        strmap_init(&k->touched);
        strmap_copy(&k->touched, &c->touched);
    }
named:
    git_oid_tostr(hex, sizeof(hex), &c->base);
    free(out->base_oid);
    out->base_oid = xstrdup(hex);
    free(out->branch);
    out->branch = head_branch ? xstrdup(head_branch) : NULL;

out:
    git_diff_stats_free(stats);
    git_diff_free(d);
    git_revwalk_free(walk);
    free(integ);
    return err;
}

/* The content of a working file as git would store it (filters applied),
 * written as a blob to the in-memory store. */
static int
blob_from_workfile(struct ws_ctx *c, const char *path, uint32_t mode,
    git_oid *out, struct as_err *e)
{
    char *full = xasprintf("%s/%s", c->workdir, path);
    git_filter_list *fl = NULL;
    git_buf buf = GIT_BUF_INIT;
    struct stat lst;
    int err = 0;

    if (lstat(full, &lst) < 0) {
        err =
            as_errorf(e, AS_EIO, "cannot read '%s': %s", full, strerror(errno));
        free(full);
        return err;
    }
    if (!S_ISREG(lst.st_mode) && !S_ISLNK(lst.st_mode)) {
        err = as_errorf(e, AS_EIO, "cannot read '%s': not a file", full);
        free(full);
        return err;
    }
    if (S_ISREG(lst.st_mode) && (uint64_t)lst.st_size > WORKSET_MAX_FILE) {
        err = as_errorf(e, AS_ETOOBIG,
            "cannot capture '%s': too big (%llu bytes)", full,
            (unsigned long long)lst.st_size);
        free(full);
        return err;
    }
    if (mode == GIT_FILEMODE_LINK) {
        char target[4096];
        ssize_t n = readlink(full, target, sizeof(target));

        if (n < 0 || (size_t)n >= sizeof(target))
            err = as_errorf(e, AS_EIO, "cannot read link '%s': %s", full,
                n < 0 ? strerror(errno) : "target too long");
        else if (git_blob_create_from_buffer(out, c->g, target, (size_t)n) < 0)
            err = repo_git_errorf(e, "cannot store '%s'", path);
        free(full);
        return err;
    }

    if (git_filter_list_load(&fl, c->wr, NULL, path, GIT_FILTER_TO_ODB,
            GIT_FILTER_DEFAULT) < 0) {
        err = repo_git_errorf(e, "cannot load filters for '%s'", path);
    } else if (fl) {
        if (git_filter_list_apply_to_file(&buf, fl, c->wr, path) < 0)
            err = repo_git_errorf(e, "cannot filter '%s'", path);
        else if (git_blob_create_from_buffer(out, c->g, buf.ptr, buf.size) < 0)
            err = repo_git_errorf(e, "cannot store '%s'", path);
    } else {
        FILE *f = fopen(full, "rb");
        struct stat st;
        char *data;

        if (!f || fstat(fileno(f), &st) < 0) {
            err = as_errorf(
                e, AS_EIO, "cannot read '%s': %s", full, strerror(errno));
        } else if ((uint64_t)st.st_size > WORKSET_MAX_FILE) {
            err = as_errorf(e, AS_ETOOBIG,
                "cannot capture '%s': too big (%llu bytes)", full,
                (unsigned long long)st.st_size);
        } else {
            size_t want = (size_t)st.st_size, got;

            data = xmalloc(want + 1);
            got = fread(data, 1, want, f);
            if (got != want)
                err =
                    as_errorf(e, AS_EIO, "cannot read '%s': short read", full);
            else if (git_blob_create_from_buffer(out, c->g, data, got) < 0)
                err = repo_git_errorf(e, "cannot store '%s'", path);
            free(data);
        }
        if (f)
            fclose(f);
    }
    git_buf_dispose(&buf);
    git_filter_list_free(fl);
    free(full);
    return err;
}

/* The worktree index's entry for path when git keeps the path out of the
 * working tree (a sparse checkout), else NULL. Borrowed from c->widx. */
static const git_index_entry *
skip_worktree_entry(struct ws_ctx *c, const char *path)
{
    const git_index_entry *ie;

    if (!c->widx || !(ie = git_index_get_bypath(c->widx, path, 0)))
        return NULL;
    return (ie->flags_extended & GIT_INDEX_ENTRY_SKIP_WORKTREE) ? ie : NULL;
}

/* Whether the diff's word on d is not the agent's work, which the captured
 * tree holds instead (see the top of this file). */
static bool
delta_from_work_tree(struct ws_ctx *c, const git_diff_delta *d)
{
    if (!c)
        return false;
    if (d->status == GIT_DELTA_CONFLICTED)
        return true;
    return d->status == GIT_DELTA_DELETED &&
           skip_worktree_entry(c, d->old_file.path) != NULL;
}

/*
 * The changes to the base tree on the way to the tree that captures the
 * work, as libgit2's tree update takes them: a path removed, or set to a
 * blob (or a submodule's commit). Paths are borrowed (the diff's, or the
 * worktree index's).
 */
struct tree_edits {
    git_tree_update *v;
    size_t n, alloc;
};

static git_tree_update *
edit_push(struct tree_edits *t, const char *path, bool remove)
{
    git_tree_update *ed;

    ALLOC_GROW(t->v, t->n + 1, t->alloc);
    ed = &t->v[t->n++];
    memset(ed, 0, sizeof(*ed));
    ed->path = path;
    ed->action = remove ? GIT_TREE_UPDATE_REMOVE : GIT_TREE_UPDATE_UPSERT;
    ed->filemode = remove ? GIT_FILEMODE_UNREADABLE : GIT_FILEMODE_BLOB;
    return ed;
}

/* Set ed to a placeholder blob naming a file too big to read (msg), so the
 * captured tree still differs from the base there. */
static int
edit_placeholder(
    struct ws_ctx *c, git_tree_update *ed, const char *msg, struct as_err *e)
{
    char *text = xasprintf("airspace: %s\n", msg);
    int err = 0;

    if (c->o->warn)
        c->o->warn(c->o->warn_ctx, msg);
    ed->filemode = GIT_FILEMODE_BLOB;
    if (git_blob_create_from_buffer(&ed->id, c->g, text, strlen(text)) < 0)
        err = repo_git_errorf(e, "cannot store '%s'", ed->path);
    free(text);
    return err;
}

/* ed, a path given as a blob in the working tree, read from it. */
static int
edit_workfile(struct ws_ctx *c, git_tree_update *ed, struct as_err *e)
{
    int err = blob_from_workfile(c, ed->path, ed->filemode, &ed->id, e);

    return err == AS_ETOOBIG ? edit_placeholder(c, ed, e->msg, e) : err;
}

/* The agent's version of a path a merge in progress left conflicted: the
 * working file (conflict markers and all), else HEAD's entry, else none. */
static int
edit_conflicted(
    struct ws_ctx *c, struct tree_edits *t, const char *path, struct as_err *e)
{
    char *full = xasprintf("%s/%s", c->workdir, path);
    git_tree_entry *te = NULL;
    git_tree_update *ed;
    struct stat st;
    int rc = lstat(full, &st);

    free(full);
    if (rc == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
        ed = edit_push(t, path, false);
        ed->filemode = S_ISLNK(st.st_mode)   ? GIT_FILEMODE_LINK
                       : (st.st_mode & 0100) ? GIT_FILEMODE_BLOB_EXECUTABLE
                                             : GIT_FILEMODE_BLOB;
        return edit_workfile(c, ed, e);
    }
    if (git_tree_entry_bypath(&te, c->head_tree, path) == 0) {
        ed = edit_push(t, path, false);
        ed->filemode = git_tree_entry_filemode(te);
        git_oid_cpy(&ed->id, git_tree_entry_id(te));
        git_tree_entry_free(te);
        return 0;
    }
    git_error_clear();
    edit_push(t, path, true);
    return 0;
}

/* Every change diff (base -> working tree) makes, removals first so that
 * a file replacing a directory finds room. */
static int
collect_edits(
    struct ws_ctx *c, git_diff *diff, struct tree_edits *t, struct as_err *e)
{
    size_t i, nd = git_diff_num_deltas(diff);
    int err = 0, pass;

    for (pass = 0; pass < 2 && !err; pass++) {
        for (i = 0; i < nd && !err; i++) {
            const git_diff_delta *d = git_diff_get_delta(diff, i);
            const git_index_entry *sw;
            git_tree_update *ed;

            if (broker_client_config(d->old_file.path) ||
                broker_client_config(d->new_file.path))
                continue; /* the tooling's: the base's stands */
            if (d->status == GIT_DELTA_CONFLICTED) {
                if (pass == 1)
                    err = edit_conflicted(c, t, d->new_file.path, e);
                continue;
            }
            if (d->status == GIT_DELTA_DELETED &&
                (sw = skip_worktree_entry(c, d->old_file.path))) {
                /* outside a sparse checkout: the index entry stands */
                if (pass == 1) {
                    ed = edit_push(t, sw->path, false);
                    ed->filemode = (git_filemode_t)sw->mode;
                    git_oid_cpy(&ed->id, &sw->id);
                }
                continue;
            }
            if (d->status == GIT_DELTA_DELETED) {
                if (pass == 0)
                    edit_push(t, d->old_file.path, true);
                continue;
            }
            if (pass == 0 || (d->status != GIT_DELTA_ADDED &&
                                 d->status != GIT_DELTA_UNTRACKED &&
                                 d->status != GIT_DELTA_MODIFIED &&
                                 d->status != GIT_DELTA_TYPECHANGE))
                continue;
            if (d->new_file.mode == GIT_FILEMODE_TREE)
                continue; /* an untracked nested repository */
            if (d->new_file.mode == GIT_FILEMODE_COMMIT &&
                !(d->new_file.flags & GIT_DIFF_FLAG_VALID_ID))
                continue; /* a submodule we cannot pin */
            ed = edit_push(t, d->new_file.path, false);
            ed->filemode = (git_filemode_t)d->new_file.mode;
            if (d->new_file.mode == GIT_FILEMODE_COMMIT)
                git_oid_cpy(&ed->id, &d->new_file.id);
            else
                err = edit_workfile(c, ed, e);
        }
    }
    return err;
}

/* The same tree through an in-memory index holding the whole base: what a
 * tree update refuses (a file where a directory was, a blob turned into a
 * submodule, a path removed twice) the index takes in order. */
static int
tree_through_index(struct ws_ctx *c, const struct tree_edits *t, git_oid *tree,
    struct as_err *e)
{
    git_index *idx = NULL;
    size_t i;
    int err = 0;

    if (git_index_new(&idx) < 0 || git_index_read_tree(idx, c->base_tree) < 0) {
        err = repo_git_errorf(e, "cannot build an in-memory index");
        goto out;
    }
    for (i = 0; i < t->n && !err; i++) {
        const git_tree_update *ed = &t->v[i];
        git_index_entry ent;

        git_index_remove(idx, ed->path, 0);
        if (ed->action == GIT_TREE_UPDATE_REMOVE)
            continue;
        memset(&ent, 0, sizeof(ent));
        ent.path = ed->path;
        ent.mode = ed->filemode;
        git_oid_cpy(&ent.id, &ed->id);
        if (git_index_add(idx, &ent) < 0)
            err = repo_git_errorf(e, "cannot stage '%s' in memory", ed->path);
    }
    if (!err && git_index_write_tree_to(tree, idx, c->g) < 0)
        err = repo_git_errorf(e, "cannot write the work tree");
out:
    git_index_free(idx);
    return err;
}

/*
 * The tree of base + every change in diff (base -> working tree), written
 * to the in-memory store. Updating the base tree along the changed paths
 * costs what the work touches; building an index from the whole base tree
 * (15,600 entries on libgit2: 16-25 ms a read) is kept for what an update
 * refuses, as the one way to the same tree.
 */
static int
build_work_tree(
    struct ws_ctx *c, git_diff *diff, struct agent *out, struct as_err *e)
{
    struct tree_edits t = { 0 };
    git_oid tree;
    char hex[GIT_OID_HEXSZ + 1];
    int err;

    if ((err = collect_edits(c, diff, &t, e)) < 0)
        goto out;
    if (git_tree_create_updated(&tree, c->g, c->base_tree, t.n, t.v) < 0) {
        git_error_clear();
        if ((err = tree_through_index(c, &t, &tree, e)) < 0)
            goto out;
    }
    if (git_tree_lookup(&c->work_tree, c->g, &tree) < 0) {
        err = repo_git_errorf(e, "cannot read the work tree");
        goto out;
    }
    git_oid_tostr(hex, sizeof(hex), &tree);
    free(out->tree_oid);
    out->tree_oid = xstrdup(hex);
out:
    free(t.v);
    return err;
}

/* Paths with uncommitted changes: HEAD -> working tree, no content. */
static int
collect_uncommitted(
    struct ws_ctx *c, const git_diff_options *base_opts, struct as_err *e)
{
    git_diff_options opts = *base_opts;
    git_diff *d = NULL;
    size_t i, nd;

    opts.flags &= ~(uint32_t)GIT_DIFF_SHOW_UNTRACKED_CONTENT;
    if (git_diff_tree_to_workdir_with_index(&d, c->wr, c->head_tree, &opts) < 0)
        return repo_git_errorf(e, "cannot diff HEAD to '%s'", c->workdir);
    nd = git_diff_num_deltas(d);
    for (i = 0; i < nd; i++) {
        const git_diff_delta *dd = git_diff_get_delta(d, i);

        if (dd->status == GIT_DELTA_DELETED &&
            skip_worktree_entry(c, dd->old_file.path))
            continue;
        strmap_put(&c->uncommitted, dd->old_file.path,
            strlen(dd->old_file.path), 1, NULL);
        strmap_put(&c->uncommitted, dd->new_file.path,
            strlen(dd->new_file.path), 1, NULL);
    }
    git_diff_free(d);
    return 0;
}

/* When the agent last changed the file at (new) path p, old path q. */
static int64_t
change_time(struct ws_ctx *c, const char *p, const char *q)
{
    uint32_t v;

    if (c->wr && (strmap_get(&c->uncommitted, p, strlen(p), &v) ||
                     strmap_get(&c->uncommitted, q, strlen(q), &v))) {
        char *full = xasprintf("%s/%s", c->workdir, p);
        struct stat st;
        int64_t ms;
        int rc = lstat(full, &st);

        free(full);
        if (rc < 0)
            return c->o->now_ms; /* deleted: seen gone now */
        ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
        return ms;
    }
    if (strmap_get(&c->touched, p, strlen(p), &v) ||
        strmap_get(&c->touched, q, strlen(q), &v))
        return (int64_t)v * 1000;
    return 0;
}

static enum ws_status
delta_status(const git_diff_delta *d, size_t nhunks, bool *skip)
{
    *skip = false;
    switch (d->status) {
    case GIT_DELTA_ADDED:
    case GIT_DELTA_UNTRACKED:
    case GIT_DELTA_COPIED:
        return WS_ADDED;
    case GIT_DELTA_DELETED:
        return WS_DELETED;
    case GIT_DELTA_RENAMED:
        return WS_RENAMED;
    case GIT_DELTA_TYPECHANGE:
        return WS_MODE;
    case GIT_DELTA_MODIFIED:
        if (d->flags & GIT_DIFF_FLAG_BINARY)
            return WS_BINARY;
        if (nhunks == 0 && d->old_file.mode != d->new_file.mode)
            return WS_MODE;
        if (nhunks == 0)
            *skip = true; /* nothing git would show */
        return WS_MODIFIED;
    case GIT_DELTA_CONFLICTED:
        return WS_MODIFIED;
    default:
        *skip = true;
        return WS_MODIFIED;
    }
}

/* What adding the file of delta d, or of its patch when there is one,
 * does to a working set (nothing, ef->skip, for what git would not show). */
static void
delta_effect(
    const git_diff_delta *d, git_patch *patch, struct ws_delta_effect *ef)
{
    size_t nhunks = 0, adds = 0, dels = 0;

    memset(ef, 0, sizeof(*ef));
    if (patch) {
        d = git_patch_get_delta(patch);
        nhunks = git_patch_num_hunks(patch);
        git_patch_line_stats(NULL, &adds, &dels, patch);
    }
    ef->status = delta_status(d, nhunks, &ef->skip);
    if (!ef->skip)
        ef->skip = broker_client_config(d->old_file.path) ||
                   broker_client_config(d->new_file.path);
    if (ef->skip)
        return;
    ef->path =
        xstrdup(ef->status == WS_ADDED ? d->new_file.path : d->old_file.path);
    ef->new_path = ef->status == WS_RENAMED ? xstrdup(d->new_file.path) : NULL;
    ef->added_lines = (uint32_t)adds;
    ef->deleted_lines = (uint32_t)dels;
    if (ef->status != WS_MODIFIED || !nhunks)
        return;
    ef->hunks = xcalloc(nhunks, sizeof(*ef->hunks));
    for (size_t h = 0; h < nhunks; h++) {
        const git_diff_hunk *hk = NULL;
        size_t lines;

        if (git_patch_get_hunk(&hk, &lines, patch, h) < 0)
            continue;
        ef->hunks[ef->nhunks].old_start =
            hk->old_start > 0 ? (uint32_t)hk->old_start : 0;
        ef->hunks[ef->nhunks++].old_lines = (uint32_t)hk->old_lines;
    }
}

static void
apply_effect(
    struct agent *out, const struct ws_delta_effect *ef, bool known_new)
{
    struct ws_file *f;

    if (ef->skip)
        return;
    f = known_new ? agent_append_file(out, ef->path, ef->status)
                  : agent_add_file(out, ef->path, ef->status);
    f->status = ef->status;
    f->whole = ws_status_whole(ef->status);
    free(f->new_path);
    f->new_path = ef->new_path ? xstrdup(ef->new_path) : NULL;
    f->added_lines = ef->added_lines;
    f->deleted_lines = ef->deleted_lines;
    for (size_t h = 0; h < ef->nhunks; h++) {
        uint32_t start = ef->hunks[h].old_start, n = ef->hunks[h].old_lines;

        if (n == 0) /* pure insertion after line start (0 = at the top) */
            range_set_add_insertion(&f->ranges, start);
        else
            range_set_add(&f->ranges, start, start + n - 1);
    }
}

void
workset_apply_effect(struct agent *out, const struct ws_delta_effect *ef)
{
    apply_effect(out, ef, false);
}

void
workset_apply_effect_new(struct agent *out, const struct ws_delta_effect *ef)
{
    apply_effect(out, ef, true);
}

void
workset_effect_release(struct ws_delta_effect *ef)
{
    free(ef->path);
    free(ef->new_path);
    free(ef->hunks);
    memset(ef, 0, sizeof(*ef));
}

/* Add the file of delta d, or of its patch when there is one, to out
 * (nothing for what git would not show). */
static void
add_file(struct agent *out, const git_diff_delta *d, git_patch *patch)
{
    struct ws_delta_effect ef;

    delta_effect(d, patch, &ef);
    workset_apply_effect(out, &ef);
    workset_effect_release(&ef);
}

/* The blob at path in t, or NULL when there is none (or not a blob). */
static git_blob *
tree_blob(struct ws_ctx *c, git_tree *t, const char *path)
{
    git_tree_entry *te = NULL;
    git_blob *b = NULL;

    if (git_tree_entry_bypath(&te, t, path) == 0 &&
        git_tree_entry_type(te) == GIT_OBJECT_BLOB)
        git_blob_lookup(&b, c->g, git_tree_entry_id(te));
    git_tree_entry_free(te);
    git_error_clear();
    return b;
}

/* The patch of path from the base tree to the captured work tree. */
static int
work_tree_patch(
    struct ws_ctx *c, const char *path, git_patch **patch, struct as_err *e)
{
    git_blob *ob = tree_blob(c, c->base_tree, path);
    git_blob *nb = tree_blob(c, c->work_tree, path);
    int err = 0;

    *patch = NULL;
    if ((ob || nb) &&
        !(ob && nb && git_oid_equal(git_blob_id(ob), git_blob_id(nb))) &&
        git_patch_from_blobs(patch, ob, path, nb, path, c->dopts) < 0)
        err = repo_git_errorf(e, "cannot diff '%s'", path);
    git_blob_free(ob);
    git_blob_free(nb);
    return err;
}

/* workset_add_diff(), reading what the diff does not tell from c (NULL for
 * a plain diff). */
static int
add_diff(struct ws_ctx *c, git_diff *diff, struct agent *out, struct as_err *e)
{
    size_t nd = git_diff_num_deltas(diff);

    for (size_t i = 0; i < nd; i++) {
        const git_diff_delta *d = git_diff_get_delta(diff, i);
        bool from_work = c && c->work_tree && delta_from_work_tree(c, d);
        git_patch *patch = NULL;
        int err;

        if ((d->status == GIT_DELTA_UNTRACKED ||
                d->status == GIT_DELTA_ADDED) &&
            d->new_file.mode == GIT_FILEMODE_TREE)
            continue; /* an untracked nested repository */
        if (c && c->work_tree && d->status == GIT_DELTA_RENAMED &&
            skip_worktree_entry(c, d->old_file.path)) {
            /* a copy from outside the sparse checkout, no rename: the old
             * path is the index entry's, the new one an addition */
            struct ws_file *f;

            if ((err = work_tree_patch(c, d->old_file.path, &patch, e)) < 0)
                return err;
            if (patch)
                add_file(out, d, patch);
            git_patch_free(patch);
            f = agent_add_file(out, d->new_file.path, WS_ADDED);
            f->status = WS_ADDED;
            f->whole = ws_status_whole(WS_ADDED);
            continue;
        }
        if (c && c->work_tree && d->status == GIT_DELTA_RENAMED &&
            broker_client_config(d->old_file.path) !=
                broker_client_config(d->new_file.path)) {
            /* a rename between a client's settings and a file of the
             * work: the file alone, added or deleted, is the work */
            const char *p = broker_client_config(d->old_file.path)
                                ? d->new_file.path
                                : d->old_file.path;

            if ((err = work_tree_patch(c, p, &patch, e)) < 0)
                return err;
            if (patch)
                add_file(out, d, patch);
            git_patch_free(patch);
            continue;
        }
        if (from_work)
            err = work_tree_patch(c, d->new_file.path, &patch, e);
        else if ((err = git_patch_from_diff(&patch, diff, i)) < 0)
            err = repo_git_errorf(e, "cannot diff '%s'", d->new_file.path);
        if (err < 0)
            return err;
        if (patch || !from_work) /* none from the work tree: no change */
            add_file(out, d, patch);
        git_patch_free(patch);
    }
    return 0;
}

int
workset_add_diff(git_diff *diff, struct agent *out, struct as_err *e)
{
    return add_diff(NULL, diff, out, e);
}

int
workset_delta_effect(
    git_diff *diff, size_t i, struct ws_delta_effect *out, struct as_err *e)
{
    const git_diff_delta *d = git_diff_get_delta(diff, i);
    git_patch *patch = NULL;

    memset(out, 0, sizeof(*out));
    if ((d->status == GIT_DELTA_UNTRACKED || d->status == GIT_DELTA_ADDED) &&
        d->new_file.mode == GIT_FILEMODE_TREE) {
        out->skip = true; /* an untracked nested repository */
        return 0;
    }
    if (git_patch_from_diff(&patch, diff, i) < 0)
        return repo_git_errorf(e, "cannot diff '%s'", d->new_file.path);
    delta_effect(d, patch, out);
    git_patch_free(patch);
    return 0;
}

/* The working set's files from diff, each with the time the agent last
 * changed it. */
static int
fill_files(
    struct ws_ctx *c, git_diff *diff, struct agent *out, struct as_err *e)
{
    size_t first = out->nfiles;
    int err = add_diff(c, diff, out, e);

    if (err)
        return err;
    for (size_t i = first; i < out->nfiles; i++) {
        struct ws_file *f = &out->files[i];
        f->changed_at_ms =
            change_time(c, f->new_path ? f->new_path : f->path, f->path);
    }
    agent_sort(out);
    return 0;
}

static void
diff_options(const struct workset_options *o, git_diff_options *opts)
{
    git_diff_options_init(opts, GIT_DIFF_OPTIONS_VERSION);
    opts->context_lines = 0;
    opts->interhunk_lines = 0;
    opts->flags = GIT_DIFF_INCLUDE_TYPECHANGE;
    opts->max_size = WORKSET_MAX_FILE; /* bigger: binary, never read */
    if (o->untracked)
        opts->flags |= GIT_DIFF_INCLUDE_UNTRACKED |
                       GIT_DIFF_RECURSE_UNTRACKED_DIRS |
                       GIT_DIFF_SHOW_UNTRACKED_CONTENT;
}

static int
find_renames(git_diff *diff, struct as_err *e)
{
    git_diff_find_options fo;

    git_diff_find_options_init(&fo, GIT_DIFF_FIND_OPTIONS_VERSION);
    fo.flags = GIT_DIFF_FIND_RENAMES | GIT_DIFF_FIND_FOR_UNTRACKED;
    if (git_diff_find_similar(diff, &fo) < 0)
        return repo_git_errorf(e, "cannot detect renames");
    return 0;
}

/* When the worktree wr was made, in ms, or 0 when unknown: for a linked
 * worktree the time its commondir file was written (once, by `git worktree
 * add`; nothing rewrites it, unlike the directory around it), for the main
 * one the oldest entry of HEAD's reflog. Never a working file's time: a
 * re-saved file must not make its agent look newer. */
static int64_t
worktree_created_ms(git_repository *wr)
{
    git_reflog *log = NULL;
    int64_t ms = 0;

    if (git_repository_is_worktree(wr) == 1) {
        char *p = xasprintf("%s/commondir", git_repository_path(wr));
        struct stat st;

        if (stat(p, &st) == 0)
            ms = (int64_t)st.st_mtim.tv_sec * 1000 +
                 st.st_mtim.tv_nsec / 1000000;
        free(p);
        return ms;
    }
    if (git_reflog_read(&log, wr, "HEAD") == 0) {
        size_t n = git_reflog_entrycount(log);
        const git_reflog_entry *oldest =
            n ? git_reflog_entry_byindex(log, n - 1) : NULL;
        const git_signature *s =
            oldest ? git_reflog_entry_committer(oldest) : NULL;

        if (s && s->when.time > 0)
            ms = (int64_t)s->when.time * 1000;
    }
    git_reflog_free(log);
    git_error_clear();
    return ms;
}

/* HEAD's commit and short branch name (NULL when detached). */
static int
read_head(struct ws_ctx *c, git_repository *g, char **branch, struct as_err *e)
{
    git_reference *ref = NULL;
    git_object *obj = NULL;
    const char *name = NULL;
    int err = git_repository_head(&ref, g);

    *branch = NULL;
    if (err == GIT_EUNBORNBRANCH || err == GIT_ENOTFOUND) {
        git_error_clear();
        return as_errorf(e, AS_ENOENT, "'%s' has no commit yet",
            c->workdir ? c->workdir : "HEAD");
    }
    if (err < 0)
        return repo_git_errorf(e, "cannot read HEAD");
    if (git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT) < 0) {
        git_reference_free(ref);
        return repo_git_errorf(e, "cannot read HEAD's commit");
    }
    c->head = (git_commit *)obj;
    if (git_reference_is_branch(ref) && git_branch_name(&name, ref) == 0)
        *branch = xstrdup(name);
    git_reference_free(ref);
    return 0;
}

static void
ctx_init(struct ws_ctx *c, struct repo *r, const struct workset_options *o,
    struct workset_options *defaults)
{
    memset(c, 0, sizeof(*c));
    if (!o) {
        workset_options_init(defaults);
        o = defaults;
    }
    c->r = r;
    c->g = repo_git(r);
    c->o = o;
    strmap_init(&c->uncommitted);
    strmap_init(&c->touched);
}

void
workset_scope_release(struct workset_scope *s)
{
    strv_free(s->changed, s->nchanged);
    s->changed = NULL;
    s->nchanged = 0;
}

/* Every path diff names, old and new, into s->changed. */
static void
scope_changed(struct workset_scope *s, git_diff *diff)
{
    size_t nd = git_diff_num_deltas(diff);

    workset_scope_release(s);
    s->changed = xcalloc(2 * nd + 1, sizeof(*s->changed));
    for (size_t i = 0; i < nd; i++) {
        const git_diff_delta *d = git_diff_get_delta(diff, i);

        s->changed[s->nchanged++] = xstrdup(d->old_file.path);
        if (strcmp(d->old_file.path, d->new_file.path))
            s->changed[s->nchanged++] = xstrdup(d->new_file.path);
    }
    s->nchanged = sort_uniq_strv(s->changed, s->nchanged);
}

int
workset_from_worktree(struct repo *r, const char *worktree_path,
    const struct workset_options *o, struct agent *out, struct as_err *e)
{
    struct workset_options defaults;
    struct ws_ctx c;
    git_diff_options opts;
    git_diff *diff = NULL;
    char *branch = NULL;
    const char *wd;
    struct workset_scope *sc = o ? o->scope : NULL;
    int err;

    ctx_init(&c, r, o, &defaults);
    if ((err = repo_open_worktree(r, worktree_path, &c.wr, e)) < 0)
        goto out;
    wd = git_repository_workdir(c.wr);
    c.workdir = xstrndup(wd, strlen(wd) > 1 ? strlen(wd) - 1 : strlen(wd));
    if (git_repository_index(&c.widx, c.wr) < 0) {
        err = repo_git_errorf(e, "cannot read the index of '%s'", c.workdir);
        goto out;
    }
    if ((err = read_head(&c, c.wr, &branch, e)) < 0 ||
        (err = ctx_setup(&c, branch, out, sc ? sc->commits : NULL, e)) < 0)
        goto out;
    free(out->worktree);
    out->worktree = xstrdup(c.workdir);
    {
        /* the start: the earliest stable fact (docs/risk-model.md §5) */
        int64_t made = worktree_created_ms(c.wr);

        if (made && (!out->started_at_ms || made < out->started_at_ms))
            out->started_at_ms = made;
    }

    diff_options(c.o, &opts);
    c.dopts = &opts;
    if (sc && sc->limit) {
        /* the paths as a list, not patterns; ".git", which no tree, index
         * or walk holds, for none (an empty list would be every path) */
        static char *const nothing[] = { ".git" };
        opts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
        opts.pathspec.strings = (char **)(sc->npaths ? sc->paths : nothing);
        opts.pathspec.count = sc->npaths ? sc->npaths : 1;
    }
    if (git_diff_tree_to_workdir_with_index(&diff, c.wr, c.base_tree, &opts) <
        0) {
        err = repo_git_errorf(e, "cannot diff base to '%s'", c.workdir);
        goto out;
    }
    if (sc)
        scope_changed(sc, diff);
    if ((err = build_work_tree(&c, diff, out, e)) < 0 ||
        (err = collect_uncommitted(&c, &opts, e)) < 0 ||
        (err = find_renames(diff, e)) < 0)
        goto out;
    err = fill_files(&c, diff, out, e);
out:
    git_diff_free(diff);
    free(branch);
    ctx_release(&c);
    return err;
}

int
workset_diff_trees(struct repo *r, git_tree *from, git_tree *to, git_diff **out,
    struct as_err *e)
{
    struct workset_options o;
    git_diff_options opts;
    int err;

    workset_options_init(&o);
    diff_options(&o, &opts);
    *out = NULL;
    if (git_diff_tree_to_tree(out, repo_git(r), from, to, &opts) < 0)
        return repo_git_errorf(e, "cannot diff two trees");
    if ((err = find_renames(*out, e)) < 0) {
        git_diff_free(*out);
        *out = NULL;
    }
    return err;
}

int
workset_from_branch(struct repo *r, const char *branch,
    const struct workset_options *o, struct agent *out, struct as_err *e)
{
    struct workset_options defaults;
    struct ws_ctx c;
    git_diff *diff = NULL;
    git_oid tip;
    char hex[GIT_OID_HEXSZ + 1];
    const char *name = branch;
    int err;

    ctx_init(&c, r, o, &defaults);
    if (!strncmp(name, "refs/heads/", 11))
        name += 11;
    if ((err = repo_resolve_commit(r, branch, &tip, e)) < 0)
        goto out;
    if (git_commit_lookup(&c.head, c.g, &tip) < 0) {
        err = repo_git_errorf(e, "cannot read '%s'", branch);
        goto out;
    }
    if ((err = ctx_setup(&c, name, out, NULL, e)) < 0)
        goto out;
    git_oid_tostr(hex, sizeof(hex), git_tree_id(c.head_tree));
    free(out->tree_oid);
    out->tree_oid = xstrdup(hex);

    if ((err = workset_diff_trees(r, c.base_tree, c.head_tree, &diff, e)) < 0)
        goto out;
    err = fill_files(&c, diff, out, e);
out:
    git_diff_free(diff);
    ctx_release(&c);
    return err;
}

int
workset_worktree_state(struct repo *r, const char *worktree_path,
    const struct workset_options *o, uint64_t *out, struct as_err *e)
{
    git_repository *wr = NULL;
    git_reference *head = NULL;
    git_oid oid;
    char *integ = NULL, *index = NULL;
    struct stat st;
    uint64_t h = FNV1A_INIT;
    int err = 0;

    if (git_repository_open_ext(
            &wr, worktree_path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
        git_error_clear();
        return as_errorf(
            e, AS_ENOENT, "no git worktree at '%s'", worktree_path);
    }
    /* HEAD: the branch it names (or detached) and its commit (or unborn) */
    if (git_reference_lookup(&head, wr, "HEAD") == 0) {
        const char *t = git_reference_symbolic_target(head);
        if (t)
            h = fnv1a_bytes(h, t, strlen(t) + 1);
    }
    git_error_clear();
    memset(&oid, 0, sizeof(oid));
    if (git_reference_name_to_id(&oid, wr, "HEAD") < 0)
        git_error_clear();
    h = fnv1a_bytes(h, oid.id, sizeof(oid.id));
    /* the index's stat data */
    index = xasprintf("%sindex", git_repository_path(wr));
    memset(&st, 0, sizeof(st));
    if (stat(index, &st) == 0) {
        int64_t v[4] = { (int64_t)st.st_ino, (int64_t)st.st_size,
            (int64_t)st.st_mtim.tv_sec, (int64_t)st.st_mtim.tv_nsec };
        h = fnv1a_bytes(h, v, sizeof(v));
    }
    /* the base: where HEAD meets the integration branch. Not the
     * branch's own commit: a land moves it for every worktree, and each
     * would be read again in whole though its base, and so its working
     * set, stayed as it was (16 worktrees of sympy: 3 s with the loop
     * answering nothing, a hook's lock check let through unanswered) */
    if (o && o->integration)
        integ = xstrdup(o->integration);
    else if ((err = repo_integration_branch(r, &integ, e)) < 0)
        goto out;
    {
        const char *name =
            strncmp(integ, "refs/heads/", 11) ? integ : integ + 11;
        char *full = xasprintf("refs/heads/%s", name);
        git_oid tip, base;
        struct as_err be;
        memset(&tip, 0, sizeof(tip));
        if (repo_resolve_commit(r, full, &tip, NULL) < 0)
            memset(&tip, 0, sizeof(tip));
        free(full);
        /* as ctx_setup() finds the base: a shallow clone's too */
        if (!git_oid_is_zero(&oid) && git_oid_equal(&oid, &tip)) {
            h = fnv1a_bytes(h, tip.id, sizeof(tip.id));
        } else if (!git_oid_is_zero(&oid) && !git_oid_is_zero(&tip) &&
                   shallow_merge_base(&base, repo_git(r), &oid, &tip, &be) ==
                       0) {
            h = fnv1a_bytes(h, base.id, sizeof(base.id));
        } else {
            git_error_clear(); /* no common history: the tip decides */
            h = fnv1a_bytes(h, tip.id, sizeof(tip.id));
        }
    }
    *out = h;
out:
    free(integ);
    free(index);
    git_reference_free(head);
    git_repository_free(wr);
    return err;
}

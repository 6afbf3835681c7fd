/* test_git_treediff.c - the paths where two trees differ, found without
 * reading unchanged subtrees, against libgit2's own tree diff on the same
 * trees: modifications, adds and deletes deep and shallow, a mode change,
 * a file that becomes a directory and back, a symlink, a submodule entry,
 * a whole directory added or removed, empty trees on either side. */
#include <git2.h>
#include <stdlib.h>
#include <string.h>

#include "git/files.h"
#include "git/repo.h"
#include "git/treediff.h"
#include "test.h"
#include "test_git_fixture.h"

static git_repository *repo;

struct ent {
    const char *path;
    const char *content; /* blob content, or a commit id for a submodule */
    git_filemode_t mode;
};

/* A tree holding exactly v's entries. */
static git_tree *
mktree(const struct ent *v, size_t n)
{
    git_tree_update *u = calloc(n + 1, sizeof(*u));
    for (size_t i = 0; i < n; i++) {
        u[i].action = GIT_TREE_UPDATE_UPSERT;
        u[i].path = v[i].path;
        u[i].filemode = v[i].mode;
        if (v[i].mode == GIT_FILEMODE_COMMIT)
            git_oid_fromstr(&u[i].id, v[i].content);
        else
            git_blob_create_from_buffer(
                &u[i].id, repo, v[i].content, strlen(v[i].content));
    }
    git_oid id;
    git_tree *t = NULL;
    CHECK_INT(git_tree_create_updated(&id, repo, NULL, n, u), 0);
    CHECK_INT(git_tree_lookup(&t, repo, &id), 0);
    free(u);
    return t;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* libgit2's diff of a to b as one line of sorted, distinct paths. */
static char *
diff_paths(git_tree *a, git_tree *b)
{
    git_diff *d = NULL;
    CHECK_INT(git_diff_tree_to_tree(&d, repo, a, b, NULL), 0);
    size_t n = git_diff_num_deltas(d);
    char **p = calloc(n + 1, sizeof(*p));
    for (size_t i = 0; i < n; i++) {
        const git_diff_delta *dd = git_diff_get_delta(d, i);
        p[i] =
            strdup(dd->new_file.path ? dd->new_file.path : dd->old_file.path);
    }
    qsort(p, n, sizeof(*p), cmp_str);
    char *out = calloc(1, 4096);
    for (size_t i = 0; i < n; i++)
        if (!i || strcmp(p[i], p[i - 1])) {
            strcat(out, p[i]);
            strcat(out, " ");
        }
    for (size_t i = 0; i < n; i++)
        free(p[i]);
    free(p);
    git_diff_free(d);
    return out;
}

/* The walk's paths, folded, as the same kind of line; each leaf's two
 * entries checked against the trees. */
static char *
walk_paths(git_tree *a, git_tree *b)
{
    struct tree_leaves ll = { NULL, 0, 0 };
    struct as_err e;
    CHECK_INT(tree_changed_leaves(repo, a, b, "", &ll, &e), 0);
    tree_leaves_fold(&ll);
    char *out = calloc(1, 4096);
    for (size_t i = 0; i < ll.n; i++) {
        const struct tree_leaf *l = &ll.v[i];
        strcat(out, l->path);
        strcat(out, " ");
        git_tree *t[2] = { a, b };
        for (int s = 0; s < 2; s++) {
            git_tree_entry *te = NULL;
            int found = t[s] && git_tree_entry_bypath(&te, t[s], l->path) == 0;
            if (found && git_tree_entry_type(te) == GIT_OBJECT_TREE)
                found = 0; /* a directory there: no file entry */
            CHECK_INT(l->mode[s] != 0, found);
            if (found) {
                CHECK_INT(l->mode[s], git_tree_entry_filemode(te));
                CHECK(git_oid_equal(&l->id[s], git_tree_entry_id(te)));
            }
            git_tree_entry_free(te);
            git_error_clear();
        }
    }
    tree_leaves_release(&ll);
    return out;
}

/* Each delta of libgit2's diff with type changes has the status
 * tree_leaf_status() gives the leaf at its path. */
static void
same_status(git_tree *a, git_tree *b)
{
    git_diff *d = NULL;
    git_diff_options o = GIT_DIFF_OPTIONS_INIT;
    o.flags = GIT_DIFF_INCLUDE_TYPECHANGE;
    CHECK_INT(git_diff_tree_to_tree(&d, repo, a, b, &o), 0);
    struct tree_leaves ll = { NULL, 0, 0 };
    struct as_err e;
    CHECK_INT(tree_changed_leaves(repo, a, b, "", &ll, &e), 0);
    tree_leaves_fold(&ll);
    CHECK_INT(git_diff_num_deltas(d), ll.n);
    for (size_t i = 0; i < git_diff_num_deltas(d); i++) {
        const git_diff_delta *dd = git_diff_get_delta(d, i);
        const char *p =
            dd->new_file.path ? dd->new_file.path : dd->old_file.path;
        size_t k = 0;
        while (k < ll.n && strcmp(ll.v[k].path, p))
            k++;
        CHECK(k < ll.n);
        if (k < ll.n)
            CHECK_INT(tree_leaf_status(&ll.v[k]), dd->status);
        if (k < ll.n && dd->status == GIT_DELTA_DELETED)
            CHECK(git_oid_equal(&ll.v[k].id[0], &dd->old_file.id));
    }
    tree_leaves_release(&ll);
    git_diff_free(d);
}

static void
same(git_tree *a, git_tree *b, const char *want)
{
    same_status(a, b);
    char *d = diff_paths(a, b), *w = walk_paths(a, b);
    CHECK_STR(w, d);
    if (want)
        CHECK_STR(w, want);
    free(d);
    free(w);
}

static const char sub[] = "0123456789abcdef0123456789abcdef01234567";

static const struct ent base[] = {
    { "README", "readme\n", GIT_FILEMODE_BLOB },
    { "src/a.c", "a\n", GIT_FILEMODE_BLOB },
    { "src/b.c", "b\n", GIT_FILEMODE_BLOB },
    { "src/deep/x/y/z.c", "z\n", GIT_FILEMODE_BLOB },
    { "src/run.sh", "run\n", GIT_FILEMODE_BLOB },
    { "lib/keep/one.h", "1\n", GIT_FILEMODE_BLOB },
    { "lib/keep/two.h", "2\n", GIT_FILEMODE_BLOB },
    { "thing", "a file\n", GIT_FILEMODE_BLOB },
    { "link", "README", GIT_FILEMODE_LINK },
    { "vendor/mod", sub, GIT_FILEMODE_COMMIT },
    { "empty.txt", "", GIT_FILEMODE_BLOB },
    { "becomes_link", "target\n", GIT_FILEMODE_BLOB },
};

static const struct ent changed[] = {
    { "README", "readme\n", GIT_FILEMODE_BLOB },             /* same */
    { "src/a.c", "a changed\n", GIT_FILEMODE_BLOB },         /* modified */
    { "src/deep/x/y/z.c", "z2\n", GIT_FILEMODE_BLOB },       /* deep */
    { "src/run.sh", "run\n", GIT_FILEMODE_BLOB_EXECUTABLE }, /* mode */
    { "src/new.c", "new\n", GIT_FILEMODE_BLOB },             /* added */
    { "lib/keep/one.h", "1\n", GIT_FILEMODE_BLOB },          /* subtree same */
    { "lib/keep/two.h", "2\n", GIT_FILEMODE_BLOB },
    { "thing/inside.c", "now a dir\n", GIT_FILEMODE_BLOB }, /* file->dir */
    { "link", "src/a.c", GIT_FILEMODE_LINK },               /* retargeted */
    { "vendor/mod", "89abcdef0123456789abcdef0123456789abcdef",
        GIT_FILEMODE_COMMIT },                          /* submodule moved */
    { "docs/guide/one.md", "g1\n", GIT_FILEMODE_BLOB }, /* new directory */
    { "docs/guide/two.md", "g2\n", GIT_FILEMODE_BLOB },
    { "becomes_link", "README", GIT_FILEMODE_LINK }, /* type change */
};

static void
test_against_diff(void)
{
    git_tree *a = mktree(base, sizeof(base) / sizeof(*base));
    git_tree *b = mktree(changed, sizeof(changed) / sizeof(*changed));
    same(a, b,
        "becomes_link docs/guide/one.md docs/guide/two.md empty.txt link "
        "src/a.c src/b.c "
        "src/deep/x/y/z.c src/new.c src/run.sh thing thing/inside.c "
        "vendor/mod ");
    same(b, a, NULL); /* and back: dir->file, removals */
    same(a, a, "");
    same(NULL, a, NULL); /* everything added */
    same(b, NULL, NULL); /* everything removed */
    git_tree_free(a);
    git_tree_free(b);
}

/* A prefix is put before every path found. */
static void
test_prefix(void)
{
    git_tree *a = mktree(base, 2);
    git_tree *b = mktree(changed, 2);
    struct tree_leaves ll = { NULL, 0, 0 };
    struct as_err e;
    CHECK_INT(tree_changed_leaves(repo, a, b, "top", &ll, &e), 0);
    tree_leaves_fold(&ll);
    CHECK_INT(ll.n, 1);
    if (ll.n)
        CHECK_STR(ll.v[0].path, "top/src/a.c");
    tree_leaves_release(&ll);
    git_tree_free(a);
    git_tree_free(b);
}

/* repo_tree_changes(): what repo_tree_files() of the two trees differ
 * by, added and changed files first, then removed ones. */
static void
changes_of(struct repo *r, git_tree *a, git_tree *b, char *out)
{
    char ha[41], hb[41];
    git_oid_tostr(ha, sizeof(ha), git_tree_id(a));
    git_oid_tostr(hb, sizeof(hb), git_tree_id(b));
    struct git_file_entry *v;
    size_t n;
    struct as_err e;
    out[0] = '\0';
    CHECK_INT(repo_tree_changes(r, ha, hb, &v, &n, &e), 0);
    for (size_t i = 0; i < n; i++) {
        strcat(out, v[i].oid[0] ? "+" : "-");
        strcat(out, v[i].path);
        strcat(out, " ");
    }
    repo_tree_files_free(v, n);
}

/* The same from the two full listings. */
static void
listing_diff(struct repo *r, git_tree *a, git_tree *b, char *out)
{
    char h[2][41];
    git_oid_tostr(h[0], sizeof(h[0]), git_tree_id(a));
    git_oid_tostr(h[1], sizeof(h[1]), git_tree_id(b));
    struct git_file_entry *v[2];
    size_t n[2];
    struct as_err e;
    for (int k = 0; k < 2; k++)
        CHECK_INT(repo_tree_files(r, h[k], &v[k], &n[k], &e), 0);
    out[0] = '\0';
    for (size_t j = 0; j < n[1]; j++) {
        size_t i = 0;
        while (i < n[0] && strcmp(v[0][i].path, v[1][j].path))
            i++;
        if (i == n[0] || strcmp(v[0][i].oid, v[1][j].oid)) {
            strcat(out, "+");
            strcat(out, v[1][j].path);
            strcat(out, " ");
        }
    }
    for (size_t i = 0; i < n[0]; i++) {
        size_t j = 0;
        while (j < n[1] && strcmp(v[0][i].path, v[1][j].path))
            j++;
        if (j == n[1]) {
            strcat(out, "-");
            strcat(out, v[0][i].path);
            strcat(out, " ");
        }
    }
    for (int k = 0; k < 2; k++)
        repo_tree_files_free(v[k], n[k]);
}

static void
test_tree_changes(void)
{
    struct repo *r = NULL;
    struct as_err e;
    char path[600];
    snprintf(path, sizeof(path), "%s/repo.git", fx_root);
    CHECK_INT(repo_open(path, &r, &e), 0);
    if (!r)
        return;
    git_tree *a = mktree(base, sizeof(base) / sizeof(*base));
    git_tree *b = mktree(changed, sizeof(changed) / sizeof(*changed));
    char got[4096], want[4096];
    git_tree *t[2][2] = { { a, b }, { b, a } };
    for (int k = 0; k < 2; k++) {
        changes_of(r, t[k][0], t[k][1], got);
        listing_diff(r, t[k][0], t[k][1], want);
        CHECK_STR(got, want);
    }
    /* a mode change alone keeps the blob: not a change of the listing;
     * the submodule is never listed */
    changes_of(r, a, b, got);
    CHECK(strstr(got, "src/run.sh") == NULL);
    CHECK(strstr(got, "vendor/mod") == NULL);
    CHECK(strstr(got, "-thing ") != NULL);
    changes_of(r, a, a, got);
    CHECK_STR(got, "");
    struct git_file_entry *none;
    size_t nnone;
    CHECK_INT(
        repo_tree_changes(r, "0000000000000000000000000000000000000001",
            "0000000000000000000000000000000000000002", &none, &nnone, &e),
        AS_ENOENT);
    CHECK(none == NULL && nnone == 0);
    git_tree_free(a);
    git_tree_free(b);
    repo_free(r);
}

int
main(void)
{
    git_libgit2_init();
    fx_setup();
    char path[600];
    snprintf(path, sizeof(path), "%s/repo.git", fx_root);
    if (git_repository_init(&repo, path, 1) < 0)
        return 2;
    TEST_RUN("the paths libgit2's diff reports, each side's entry",
        test_against_diff);
    TEST_RUN("under a prefix", test_prefix);
    TEST_RUN("a listing's changes between two trees", test_tree_changes);
    git_repository_free(repo);
    git_libgit2_shutdown();
    return test_done();
}

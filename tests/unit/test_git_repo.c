/*
 * test_git_repo.c - repository discovery, worktrees, branches, tree files and
 * the speculative merge channel, checked against the real git binary.
 */
#include "test.h"
#include "test_git_fixture.h"

#include <git2.h>

#include "git/files.h"
#include "git/merge.h"
#include "git/repo.h"
#include "util/error.h"

static char base_repo[600];

static void
build_base(void)
{
    char buf[256];

    fx_init("main-repo", base_repo, sizeof(base_repo));
    fx_write(base_repo, "src/a.c", fx_lines(buf, sizeof(buf), 10, 0, NULL));
    fx_write(base_repo, "README", "hello\n");
    fx_git(base_repo, "add", "-A", NULL);
    fx_commit(base_repo, "base");
    fx_git(base_repo, "branch", "feature", NULL);
}

static void
test_discovery(void)
{
    char wt[700], sub[800], expect[700];
    struct repo *r1 = NULL, *r2 = NULL, *r3 = NULL;
    struct as_err e;
    char *integ = NULL;

    snprintf(wt, sizeof(wt), "%s/wt-one", fx_root);
    fx_git(base_repo, "worktree", "add", "-q", "-b", "one", wt, NULL);
    snprintf(sub, sizeof(sub), "%s/src", wt);

    CHECK_INT(repo_open(base_repo, &r1, &e), 0);
    CHECK_INT(repo_open(sub, &r2, &e), 0);
    CHECK_INT(repo_open(wt, &r3, &e), 0);
    if (!r1 || !r2 || !r3)
        goto out;
    snprintf(expect, sizeof(expect), "%s/.git", base_repo);
    CHECK_STR(repo_common_dir(r1), expect);
    CHECK_STR(repo_common_dir(r2), expect);
    CHECK_STR(repo_common_dir(r3), expect);
    CHECK_STR(repo_main_workdir(r2), base_repo);
    CHECK_STR(repo_main_workdir(r1), base_repo);
    CHECK_INT(repo_integration_branch(r2, &integ, &e), 0);
    CHECK_STR(integ, "main");
    free(integ);
    integ = NULL;
    fx_git(base_repo, "config", "airspace.integration", "feature", NULL);
    CHECK_INT(repo_integration_branch(r2, &integ, &e), 0);
    CHECK_STR(integ, "feature");
    free(integ);
    fx_git(base_repo, "config", "--unset", "airspace.integration", NULL);
out:
    repo_free(r1);
    repo_free(r2);
    repo_free(r3);
}

static void
test_not_a_repo(void)
{
    struct repo *r = NULL;
    struct as_err e;

    CHECK_INT(repo_open(fx_root, &r, &e), AS_ENOENT);
    CHECK(r == NULL);
    CHECK(strstr(e.msg, "not inside a git repository") != NULL);
}

static void
test_detached_main(void)
{
    char path[600];
    struct repo *r = NULL;
    struct as_err e;
    char *integ = NULL;

    fx_init("detached", path, sizeof(path));
    fx_write(path, "x", "x\n");
    fx_git(path, "add", "-A", NULL);
    fx_commit(path, "x");
    fx_git(path, "checkout", "-q", "--detach", NULL);
    CHECK_INT(repo_open(path, &r, &e), 0);
    if (!r)
        return;
    CHECK_INT(repo_integration_branch(r, &integ, &e), AS_ENOENT);
    CHECK(integ == NULL);
    repo_free(r);
}

static void
test_worktrees(void)
{
    char two[700], gone[700];
    struct repo *r = NULL;
    struct repo_worktree *v = NULL;
    struct as_err e;
    size_t n = 0;
    char **br = NULL;
    size_t nb = 0;
    char *rm[] = { "rm", "-rf", gone, NULL };

    snprintf(two, sizeof(two), "%s/wt-two", fx_root);
    snprintf(gone, sizeof(gone), "%s/wt-gone", fx_root);
    fx_git(base_repo, "worktree", "add", "-q", "-b", "two", two, NULL);
    fx_git(base_repo, "worktree", "add", "-q", "--detach", gone, NULL);
    fx_runv(NULL, rm, NULL, 0);

    CHECK_INT(repo_open(two, &r, &e), 0);
    if (!r)
        return;
    CHECK_INT(repo_worktrees(r, &v, &n, &e), 0);
    CHECK_INT(n, 4); /* main, wt-gone, wt-one, wt-two */
    if (n == 4) {
        CHECK(v[0].is_main);
        CHECK_STR(v[0].path, base_repo);
        CHECK_STR(v[0].branch, "main");
        CHECK_INT(strlen(v[0].head), 40);
        CHECK_STR(v[1].name, "wt-gone");
        CHECK(v[1].prunable);
        CHECK(v[1].branch == NULL);
        CHECK_STR(v[1].head, "");
        CHECK_STR(v[2].name, "wt-one");
        CHECK_STR(v[2].branch, "one");
        CHECK(!v[2].prunable && !v[2].is_main);
        CHECK_STR(v[3].name, "wt-two");
        CHECK_STR(v[3].path, two);
        CHECK_STR(v[3].branch, "two");
        CHECK_STR(v[3].head, v[0].head);
    }
    repo_worktrees_free(v, n);

    CHECK_INT(repo_branches(r, &br, &nb, &e), 0);
    CHECK_INT(nb, 4);
    if (nb == 4) {
        CHECK_STR(br[0], "feature");
        CHECK_STR(br[1], "main");
        CHECK_STR(br[2], "one");
        CHECK_STR(br[3], "two");
    }
    repo_branches_free(br, nb);
    repo_free(r);
    fx_git(base_repo, "worktree", "prune", NULL);
}

static void
test_tree_files(void)
{
    struct repo *r = NULL;
    struct git_file_entry *v = NULL;
    size_t n = 0, len = 0;
    struct as_err e;
    char *buf = NULL;

    CHECK_INT(repo_open(base_repo, &r, &e), 0);
    if (!r)
        return;
    CHECK_INT(repo_tree_files(r, "main", &v, &n, &e), 0);
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK_STR(v[0].path, "README");
        CHECK_STR(v[1].path, "src/a.c");
        CHECK_INT(repo_read_blob(r, v[0].oid, &buf, &len, &e), 0);
        CHECK_INT(len, 6);
        CHECK_STR(buf, "hello\n");
        free(buf);
    }
    repo_tree_files_free(v, n);
    CHECK_INT(repo_tree_files(r, "no-such-branch", &v, &n, &e), AS_ENOENT);
    CHECK_INT(repo_read_blob(r, "zz", &buf, &len, &e), AS_EINVAL);
    CHECK_INT(repo_read_blob(r, "0123456789012345678901234567890123456789",
                  &buf, &len, &e),
        AS_ENOENT);
    repo_free(r);
}

/* ---- the merge table ---- */

enum op_kind { OP_END = 0, OP_WRITE, OP_RM, OP_MV };

struct op {
    enum op_kind kind;
    const char *path;
    const char *arg; /* content for OP_WRITE, destination for OP_MV */
};

#define TEN "L1\nL2\nL3\nL4\nL5\nL6\nL7\nL8\nL9\nL10\n"
/* Ten longer lines with line 5 given: libgit2 finds inexact renames only
 * in files large enough for its similarity signature. */
#define LONG(l5)                                                               \
    "line 1 of the file\nline 2 of the file\nline 3 of the file\n"             \
    "line 4 of the file\n" l5 "\nline 6 of the file\nline 7 of the file\n"     \
    "line 8 of the file\nline 9 of the file\nline 10 of the file\n"

static const struct merge_case {
    const char *name;
    struct op a[3], b[3];
    const char *base; /* f.txt in the base; NULL: TEN */
} merge_cases[] = {
    { .name = "content conflict",
        .a = { { OP_WRITE, "f.txt",
            "L1\nL2\nL3\nL4\nA\nL6\nL7\nL8\nL9\nL10\n" } },
        .b = { { OP_WRITE, "f.txt",
            "L1\nL2\nL3\nL4\nB\nL6\nL7\nL8\nL9\nL10\n" } } },
    { .name = "clean non-overlapping edits",
        .a = { { OP_WRITE, "f.txt",
            "L1\nA\nL3\nL4\nL5\nL6\nL7\nL8\nL9\nL10\n" } },
        .b = { { OP_WRITE, "f.txt",
            "L1\nL2\nL3\nL4\nL5\nL6\nL7\nL8\nB\nL10\n" } } },
    { .name = "adjacent-line edits",
        .a = { { OP_WRITE, "f.txt",
            "L1\nL2\nL3\nL4\nA\nL6\nL7\nL8\nL9\nL10\n" } },
        .b = { { OP_WRITE, "f.txt",
            "L1\nL2\nL3\nL4\nL5\nB\nL7\nL8\nL9\nL10\n" } } },
    { .name = "add/add different content",
        .a = { { OP_WRITE, "new.txt", "one\n" } },
        .b = { { OP_WRITE, "new.txt", "two\n" } } },
    { .name = "add/add same content",
        .a = { { OP_WRITE, "new.txt", "same\n" } },
        .b = { { OP_WRITE, "new.txt", "same\n" } } },
    { .name = "modify/delete",
        .a = { { OP_WRITE, "f.txt",
            "L1\nL2\nL3\nL4\nA\nL6\nL7\nL8\nL9\nL10\n" } },
        .b = { { OP_RM, "f.txt", NULL } } },
    { .name = "rename and modify",
        .a = { { OP_MV, "f.txt", "g.txt" } },
        .b = { { OP_WRITE, "f.txt",
            "L1\nL2\nL3\nL4\nB\nL6\nL7\nL8\nL9\nL10\n" } } },
    { .name = "rename and modify, both change the same line",
        .a = { { OP_MV, "f.txt", "g.txt" }, { OP_WRITE, "g.txt", LONG("A") } },
        .b = { { OP_WRITE, "f.txt", LONG("B") } },
        .base = LONG("line 5 of the file") },
    { .name = "modify, and rename and modify the same line",
        .a = { { OP_WRITE, "f.txt", LONG("A") } },
        .b = { { OP_MV, "f.txt", "g.txt" }, { OP_WRITE, "g.txt", LONG("B") } },
        .base = LONG("line 5 of the file") },
    { .name = "rename/rename",
        .a = { { OP_MV, "f.txt", "x.txt" } },
        .b = { { OP_MV, "f.txt", "y.txt" } } },
    { .name = "rename/delete",
        .a = { { OP_MV, "f.txt", "g.txt" } },
        .b = { { OP_RM, "f.txt", NULL } } },
    { .name = "rename/add",
        .a = { { OP_MV, "f.txt", "g.txt" } },
        .b = { { OP_WRITE, "g.txt", "other\n" } } },
    { .name = "different files",
        .a = { { OP_WRITE, "f.txt",
            "L1\nL2\nL3\nL4\nA\nL6\nL7\nL8\nL9\nL10\n" } },
        .b = { { OP_WRITE, "other.txt", "new\n" } } },
    { .name = "file/directory",
        .a = { { OP_WRITE, "d", "file\n" } },
        .b = { { OP_WRITE, "d/x", "under\n" } } },
};

/* Each side's deltas from the base's tree (no renames, type changes
 * included), as merge_restricted() takes them; paths to free. */
static size_t
side_deltas(struct repo *r, const char *base, const char *tree,
    struct merge_cut_delta **out)
{
    git_repository *g = repo_git(r);
    git_object *a = NULL, *b = NULL;
    git_diff *d = NULL;
    git_diff_options o;
    size_t n = 0;

    *out = NULL;
    git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
    o.flags = GIT_DIFF_INCLUDE_TYPECHANGE;
    if (git_revparse_single(&a, g, base) == 0 &&
        git_revparse_single(&b, g, tree) == 0 &&
        git_diff_tree_to_tree(&d, g, (git_tree *)a, (git_tree *)b, &o) == 0) {
        n = git_diff_num_deltas(d);
        *out = calloc(n + 1, sizeof(**out));
        for (size_t i = 0; i < n; i++) {
            const git_diff_delta *dd = git_diff_get_delta(d, i);
            struct merge_cut_delta *x = &(*out)[i];
            x->path = strdup(dd->new_file.path);
            x->id[0] = dd->old_file.id;
            x->id[1] = dd->new_file.id;
            x->mode[0] = dd->status == GIT_DELTA_ADDED ? 0 : dd->old_file.mode;
            x->mode[1] =
                dd->status == GIT_DELTA_DELETED ? 0 : dd->new_file.mode;
        }
    }
    git_diff_free(d);
    git_object_free(a);
    git_object_free(b);
    return n;
}

static void
side_deltas_free(struct merge_cut_delta *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free((char *)v[i].path);
    free(v);
}

static void
apply_ops(const char *dir, const struct op *ops)
{
    for (; ops->kind != OP_END; ops++) {
        switch (ops->kind) {
        case OP_WRITE:
            fx_write(dir, ops->path, ops->arg);
            break;
        case OP_RM:
            fx_git(dir, "rm", "-q", ops->path, NULL);
            break;
        case OP_MV:
            fx_git(dir, "mv", ops->path, ops->arg, NULL);
            break;
        default:
            break;
        }
    }
    fx_git(dir, "add", "-A", NULL);
}

/* git merge-tree --write-tree --name-only a b: status and listed paths. */
static int
git_merge_tree(const char *dir, char ***paths, size_t *n)
{
    static char out[8192];
    char *argv[] = { "git", "merge-tree", "--write-tree", "--name-only", "a",
        "b", NULL };
    int rc = fx_runv(dir, argv, out, sizeof(out));
    char *line, *next;

    *paths = NULL;
    *n = 0;
    line = strchr(out, '\n'); /* skip the tree id */
    for (line = line ? line + 1 : NULL; line && *line && *line != '\n';
         line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        *paths = realloc(*paths, (*n + 1) * sizeof(char *));
        (*paths)[(*n)++] = line;
    }
    return rc;
}

static void
ref_hex(struct repo *r, const char *rev, char out[41])
{
    git_object *o = NULL;

    out[0] = '\0';
    if (git_revparse_single(&o, repo_git(r), rev) == 0)
        git_oid_tostr(out, 41, git_object_id(o));
    git_object_free(o);
}

static void
test_merge_table(void)
{
    size_t i, k;

    for (i = 0; i < sizeof(merge_cases) / sizeof(merge_cases[0]); i++) {
        const struct merge_case *mc = &merge_cases[i];
        char dir[600], name[64], ba[41], bb[41], ta[41], tb[41];
        struct repo *r = NULL;
        struct merge_cache *cache = merge_cache_new();
        struct merge_result m, again;
        struct as_err e;
        char **gpaths;
        size_t gn;
        int rc;

        TEST_BEGIN(mc->name);
        snprintf(name, sizeof(name), "merge-%zu", i);
        fx_init(name, dir, sizeof(dir));
        fx_write(dir, "f.txt", mc->base ? mc->base : TEN);
        fx_git(dir, "add", "-A", NULL);
        fx_commit(dir, "base");
        fx_git(dir, "checkout", "-q", "-b", "a", NULL);
        apply_ops(dir, mc->a);
        fx_commit(dir, "a");
        fx_git(dir, "checkout", "-q", "-b", "b", "main", NULL);
        apply_ops(dir, mc->b);
        fx_commit(dir, "b");
        fx_git(dir, "checkout", "-q", "main", NULL);

        rc = git_merge_tree(dir, &gpaths, &gn);
        CHECK(rc == 0 || rc == 1);
        CHECK_INT(repo_open(dir, &r, &e), 0);
        if (!r) {
            free(gpaths);
            merge_cache_free(cache);
            TEST_END();
            continue;
        }
        ref_hex(r, "a~1", ba);
        ref_hex(r, "b~1", bb);
        ref_hex(r, "a^{tree}", ta);
        ref_hex(r, "b^{tree}", tb);
        CHECK_INT(merge_speculative(r, cache, ba, ta, bb, tb, &m, &e), 0);
        CHECK_INT(m.conflicted, rc == 1);
        CHECK_INT(m.npaths, gn);
        for (k = 0; k < m.npaths && k < gn; k++) {
            /* git moves a file/directory clash's file aside, "path~side";
             * merge_speculative() lists it at its own path (merge.h) */
            char *aside = strchr(gpaths[k], '~');
            if (aside)
                *aside = '\0';
            CHECK_STR(m.paths[k], gpaths[k]);
        }

        /* the reverse order is the same entry, answered from the cache */
        CHECK_INT(merge_speculative(r, cache, bb, tb, ba, ta, &again, &e), 0);
        CHECK_INT(merge_cache_hits(cache), 1);
        CHECK_INT(again.conflicted, m.conflicted);
        CHECK_INT(again.npaths, m.npaths);
        for (k = 0; k < m.npaths && k < again.npaths; k++)
            CHECK_STR(again.paths[k], m.paths[k]);
        merge_result_release(&again);

        /* the changed paths alone tell the same, or cannot tell (only
         * where a path lies under another: file/directory) */
        struct merge_cut_delta *cd[2];
        size_t nd[2];
        nd[0] = side_deltas(r, "a~1^{tree}", "a^{tree}", &cd[0]);
        nd[1] = side_deltas(r, "b~1^{tree}", "b^{tree}", &cd[1]);
        int cut = merge_restricted(
            r, (const struct merge_cut_delta *const *)cd, nd, NULL, &e);
        CHECK_INT(cut, strcmp(mc->name, "file/directory") ? m.conflicted : 2);
        /* path by path through a cache of verdicts: the same, cold and
         * warm */
        struct merge_verdicts *known = merge_verdicts_new();
        for (int pass = 0; pass < 2; pass++)
            CHECK_INT(
                merge_restricted(r, (const struct merge_cut_delta *const *)cd,
                    nd, known, &e),
                cut);
        if (merge_verdicts_size(known))
            CHECK(merge_verdicts_hits(known) > 0);
        merge_verdicts_free(known);
        side_deltas_free(cd[0], nd[0]);
        side_deltas_free(cd[1], nd[1]);
        merge_result_release(&m);
        free(gpaths);
        merge_cache_free(cache);
        repo_free(r);
        TEST_END();
    }
}

/* ---- a submodule moved forward on both sides ---- */

/* The commit id rev names in dir, by git itself. */
static void
git_rev(const char *dir, const char *rev, char out[41])
{
    char buf[128] = "";
    char *argv[] = { "git", "rev-parse", (char *)rev, NULL };
    fx_runv(dir, argv, buf, sizeof(buf));
    snprintf(out, 41, "%.40s", buf);
}

/* Branch name off main with the submodule at commit id. */
static void
sub_branch(const char *dir, const char *sub, const char *name, const char *id)
{
    fx_git(dir, "checkout", "-q", "-b", name, "main", NULL);
    fx_git(sub, "checkout", "-q", id, NULL);
    fx_git(dir, "add", "sub", NULL);
    fx_commit(dir, name);
}

/* merge_speculative() of branches x and y, its merge of their changed
 * paths alone, and git's merge-tree: all three must agree with want. */
static void
check_sub_merge(const char *dir, const char *x, const char *y, bool want)
{
    char ba[41], bb[41], ta[41], tb[41];
    struct repo *r = NULL;
    struct merge_result m;
    struct as_err e;
    char **gpaths;
    size_t gn;

    fx_git(dir, "branch", "-f", "a", x, NULL);
    fx_git(dir, "branch", "-f", "b", y, NULL);
    CHECK_INT(git_merge_tree(dir, &gpaths, &gn), want ? 1 : 0);
    free(gpaths);
    CHECK_INT(repo_open(dir, &r, &e), 0);
    if (!r)
        return;
    ref_hex(r, "a~1", ba);
    ref_hex(r, "b~1", bb);
    ref_hex(r, "a^{tree}", ta);
    ref_hex(r, "b^{tree}", tb);
    CHECK_INT(merge_speculative(r, NULL, ba, ta, bb, tb, &m, &e), 0);
    CHECK_INT(m.conflicted, want);
    CHECK_INT(m.npaths, want ? 1 : 0);
    if (m.npaths)
        CHECK_STR(m.paths[0], "sub");
    merge_result_release(&m);
    struct merge_cut_delta *cd[2];
    size_t nd[2];
    nd[0] = side_deltas(r, "a~1^{tree}", "a^{tree}", &cd[0]);
    nd[1] = side_deltas(r, "b~1^{tree}", "b^{tree}", &cd[1]);
    CHECK_INT(merge_restricted(
                  r, (const struct merge_cut_delta *const *)cd, nd, NULL, &e),
        want);
    side_deltas_free(cd[0], nd[0]);
    side_deltas_free(cd[1], nd[1]);
    repo_free(r);
}

static void
test_merge_submodule(void)
{
    char src[600], dir[600], sub[700], mods[700], gone[700];
    char s[4][41];

    /* the submodule's history: s0 - s1 - s2, and s3 off s0 */
    fx_init("subsrc", src, sizeof(src));
    for (int i = 0; i < 3; i++) {
        char text[8];
        snprintf(text, sizeof(text), "%d\n", i);
        fx_write(src, "f", text);
        fx_git(src, "add", "f", NULL);
        fx_commit(src, text);
        git_rev(src, "HEAD", s[i]);
    }
    fx_git(src, "checkout", "-q", "-b", "apart", s[0], NULL);
    fx_write(src, "g", "apart\n");
    fx_git(src, "add", "g", NULL);
    fx_commit(src, "apart");
    git_rev(src, "HEAD", s[3]);

    fx_init("super", dir, sizeof(dir));
    fx_write(dir, "README", "super\n");
    fx_git(dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q",
        src, "sub", NULL);
    snprintf(sub, sizeof(sub), "%s/sub", dir);
    fx_git(sub, "checkout", "-q", s[0], NULL);
    fx_git(dir, "add", "-A", NULL);
    fx_commit(dir, "base");
    sub_branch(dir, sub, "up", s[1]);
    sub_branch(dir, sub, "further", s[2]);
    sub_branch(dir, sub, "apart", s[3]);

    /* one side's commit descends from the other's: git takes it */
    check_sub_merge(dir, "up", "further", false);
    check_sub_merge(dir, "further", "up", false);
    /* moved apart: a conflict */
    check_sub_merge(dir, "up", "apart", true);
    /* without the submodule's commits nothing tells: a conflict */
    snprintf(mods, sizeof(mods), "%s/.git/modules/sub", dir);
    snprintf(gone, sizeof(gone), "%s/.git/modules/gone", dir);
    CHECK_INT(rename(mods, gone), 0);
    check_sub_merge(dir, "up", "further", true);
    CHECK_INT(rename(gone, mods), 0);
}

static void
test_merge_bad_input(void)
{
    struct repo *r = NULL;
    struct merge_result m;
    struct as_err e;
    char head[41], tree[41];
    const char *missing = "0123456789012345678901234567890123456789";

    CHECK_INT(repo_open(base_repo, &r, &e), 0);
    if (!r)
        return;
    ref_hex(r, "HEAD", head);
    ref_hex(r, "HEAD^{tree}", tree);
    CHECK_INT(
        merge_speculative(r, NULL, "xyz", tree, head, tree, &m, &e), AS_EINVAL);
    CHECK_INT(merge_speculative(r, NULL, head, missing, head, tree, &m, &e),
        AS_ENOENT);
    CHECK_INT(merge_speculative(r, NULL, head, tree, head, tree, &m, &e), 0);
    CHECK(!m.conflicted);
    merge_result_release(&m);
    repo_free(r);
}

int
main(void)
{
    fx_setup();
    build_base();
    TEST_RUN("discovery from a linked worktree", test_discovery);
    TEST_RUN("not a repository", test_not_a_repo);
    TEST_RUN("detached main worktree", test_detached_main);
    TEST_RUN("worktree and branch listing", test_worktrees);
    TEST_RUN("tree files and blobs", test_tree_files);
    test_merge_table();
    TEST_RUN("merge input errors", test_merge_bad_input);
    TEST_RUN("submodule moved forward on both sides", test_merge_submodule);
    fx_teardown();
    return test_done();
}

/*
 * test_git_commit.c - scoped commits (git/commit.h) in real repositories:
 * which paths are refused and why, the statuses of what changed, the
 * compare-and-swap against a branch that moves (another commit first, one
 * that touches a chosen path, a rewind, a held ref lock), the worktree's
 * index (updated for the committed paths only, left alone when locked),
 * root and detached commits, identities, dates and messages.
 */
#include "test.h"
#include "test_git_fixture.h"

#include <git2.h>

#include "git/commit.h"
#include "util/error.h"

/* stdout of git ARGS... in dir, trailing newline dropped, into out. */
static const char *
git_out(const char *dir, char *out, size_t cap, ...)
{
    char *argv[32];
    int n = 0;
    va_list ap;
    argv[n++] = "git";
    va_start(ap, cap);
    while (n < 31 && (argv[n] = va_arg(ap, char *)) != NULL)
        n++;
    va_end(ap);
    argv[n] = NULL;
    if (fx_runv(dir, argv, out, cap) != 0)
        out[0] = '\0';
    size_t len = strlen(out);
    while (len && out[len - 1] == '\n')
        out[--len] = '\0';
    return out;
}

static void
path_of(char *out, size_t cap, const char *dir, const char *rel)
{
    snprintf(out, cap, "%s/%s", dir, rel);
}

/* Open dir, select specs (strict), commit with msg; the rc of the first
 * step that fails. res is released by the caller. */
static int
commit_specs(const char *dir, char *const *specs, size_t n, const char *msg,
    commit_hook_fn *hook, void *ctx, struct commit_result *res,
    struct as_err *e)
{
    struct commit_tree *t = NULL;
    struct commit_file *files = NULL;
    size_t nfiles = 0;
    memset(res, 0, sizeof(*res));
    int rc = commit_open(dir, &t, e);
    if (rc)
        return rc;
    rc = commit_select(t, specs, n, COMMIT_SELECT_STRICT, &files, &nfiles, e);
    if (!rc) {
        struct commit_options o;
        memset(&o, 0, sizeof(o));
        o.message = msg;
        o.before_update = hook;
        o.hook_ctx = ctx;
        o.index_tries = 2;
        o.index_wait_ms = 5;
        rc = commit_create(t, files, nfiles, &o, res, e);
    }
    commit_files_free(files, nfiles);
    commit_close(t);
    return rc;
}

/* ---- refusals ---- */

static char sel_dir[600];

static void
build_select(void)
{
    fx_init("select", sel_dir, sizeof(sel_dir));
    fx_write(sel_dir, "a.txt", "a\n");
    fx_write(sel_dir, "clean.txt", "clean\n");
    fx_write(sel_dir, "d/x.txt", "x\n");
    fx_write(sel_dir, ".gitignore", "*.log\n");
    fx_git(sel_dir, "add", "-A", NULL);
    fx_commit(sel_dir, "base");
    fx_write(sel_dir, "ign.log", "noise\n");
    char target[700];
    path_of(target, sizeof(target), sel_dir, "ln");
    if (symlink("d", target) < 0)
        perror("symlink");
}

static const struct {
    const char *name, *spec, *want;
} select_cases[] = {
    { "a path that names nothing", "nope.txt", "did not match" },
    { "a file as in HEAD", "clean.txt", "has no change" },
    { "an ignored untracked file", "ign.log", "is ignored" },
    { "inside the git directory", ".git/config", "inside the git directory" },
    { "beyond a symbolic link", "ln/x.txt", "beyond a symbolic link" },
    { "a directory without changes", "d", "no changes" },
};

static void
test_select_refusals(void)
{
    for (size_t i = 0; i < sizeof(select_cases) / sizeof(select_cases[0]);
         i++) {
        TEST_BEGIN(select_cases[i].name);
        struct commit_tree *t = NULL;
        struct commit_file *files = NULL;
        size_t n = 0;
        struct as_err e = { "" };
        char *specs[1] = { (char *)select_cases[i].spec };
        CHECK_INT(commit_open(sel_dir, &t, &e), 0);
        if (t) {
            CHECK_INT(commit_select(
                          t, specs, 1, COMMIT_SELECT_STRICT, &files, &n, &e),
                AS_EINVAL);
            CHECK(strstr(e.msg, select_cases[i].want) != NULL);
            CHECK(strstr(e.msg, select_cases[i].spec) != NULL);
            /* not strict: dropped, no error */
            CHECK_INT(commit_select(t, specs, 1, 0, &files, &n, &e), 0);
            CHECK_INT(n, 0);
            commit_files_free(files, n);
        }
        commit_close(t);
        TEST_END();
    }
}

static void
test_select_directory(void)
{
    struct commit_tree *t = NULL;
    struct commit_file *files = NULL;
    size_t n = 0;
    struct as_err e;
    fx_write(sel_dir, "d/x.txt", "x2\n");
    fx_write(sel_dir, "d/new/y.txt", "y\n");
    char *specs[2] = { "d", "d/x.txt" };
    CHECK_INT(commit_open(sel_dir, &t, &e), 0);
    if (!t)
        return;
    CHECK_INT(
        commit_select(t, specs, 2, COMMIT_SELECT_STRICT, &files, &n, &e), 0);
    CHECK_INT(n, 2); /* d/x.txt once, d/new/y.txt */
    if (n == 2) {
        CHECK_STR(files[0].path, "d/new/y.txt");
        CHECK_INT(files[0].status, COMMIT_ADDED);
        CHECK_STR(files[1].path, "d/x.txt");
        CHECK_INT(files[1].status, COMMIT_MODIFIED);
    }
    commit_files_free(files, n);
    commit_close(t);
}

/* ---- statuses, and the tree agrees with the working tree ---- */

static void
test_kinds(void)
{
    char dir[600], p[800], out[4096];
    fx_init("kinds", dir, sizeof(dir));
    fx_write(dir, "mod.txt", "1\n");
    fx_write(dir, "exec.sh", "echo\n");
    fx_write(dir, "gone.txt", "bye\n");
    fx_write(dir, "tolink.txt", "file\n");
    fx_git(dir, "add", "-A", NULL);
    fx_commit(dir, "base");
    fx_write(dir, "mod.txt", "2\n");
    path_of(p, sizeof(p), dir, "exec.sh");
    chmod(p, 0755);
    path_of(p, sizeof(p), dir, "gone.txt");
    unlink(p);
    path_of(p, sizeof(p), dir, "tolink.txt");
    unlink(p);
    if (symlink("mod.txt", p) < 0)
        perror("symlink");
    fx_write(dir, "new.txt", "new\n");
    fx_write(dir, "deep/er/new.c", "int x;\n");

    struct commit_tree *t = NULL;
    struct commit_file *files = NULL;
    size_t n = 0;
    struct as_err e;
    char **paths = NULL;
    size_t np = 0;
    CHECK_INT(commit_open(dir, &t, &e), 0);
    if (!t)
        return;
    CHECK_INT(commit_changed_paths(t, &paths, &np, &e), 0);
    CHECK_INT(np, 6);
    CHECK_INT(commit_select(t, paths, np, 0, &files, &n, &e), 0);
    static const struct {
        const char *path;
        enum commit_status st;
        uint32_t mode;
    } want[] = {
        { "deep/er/new.c", COMMIT_ADDED, 0100644 },
        { "exec.sh", COMMIT_MODE, 0100755 },
        { "gone.txt", COMMIT_DELETED, 0 },
        { "mod.txt", COMMIT_MODIFIED, 0100644 },
        { "new.txt", COMMIT_ADDED, 0100644 },
        { "tolink.txt", COMMIT_TYPECHANGE, 0120000 },
    };
    CHECK_INT(n, 6);
    for (size_t i = 0; i < n && i < 6; i++) {
        CHECK_STR(files[i].path, want[i].path);
        CHECK_INT(files[i].status, want[i].st);
        CHECK_INT(files[i].mode, want[i].mode);
    }
    struct commit_options o;
    memset(&o, 0, sizeof(o));
    o.message = "kinds";
    struct commit_result res;
    CHECK_INT(commit_create(t, files, n, &o, &res, &e), 0);
    CHECK(res.index_updated);
    CHECK_INT(res.retries, 0);
    CHECK_STR(res.branch, "main");
    CHECK_STR(res.subject, "kinds");
    commit_result_release(&res);
    for (size_t i = 0; i < np; i++)
        free(paths[i]);
    free(paths);
    commit_files_free(files, n);
    commit_close(t);
    /* what git sees: nothing left to commit, and the same tree git makes */
    CHECK_STR(
        git_out(dir, out, sizeof(out), "status", "--porcelain", NULL), "");
    char ours[64], theirs[64];
    git_out(dir, ours, sizeof(ours), "rev-parse", "HEAD^{tree}", NULL);
    git_out(dir, theirs, sizeof(theirs), "write-tree", NULL);
    CHECK_STR(ours, theirs);
    CHECK_STR(
        git_out(dir, out, sizeof(out), "reflog", "-1", "--format=%gs", NULL),
        "commit (airspace): kinds");
}

/* ---- the branch moves under the commit ---- */

struct race {
    const char *dir;
    int what; /* 0 other file, 1 same file, 2 rewind, 3 ref lock */
    unsigned calls;
};

static void
race_hook(void *ctx, unsigned attempt)
{
    struct race *r = ctx;
    char p[800];
    r->calls++;
    if (r->what == 3) {
        path_of(p, sizeof(p), r->dir, ".git/refs/heads/main.lock");
        if (attempt == 0)
            fx_write(r->dir, ".git/refs/heads/main.lock", "held\n");
        else
            unlink(p);
        return;
    }
    if (attempt)
        return;
    if (r->what == 2) {
        fx_git(r->dir, "update-ref", "refs/heads/main", "HEAD~1", NULL);
        return;
    }
    /* another agent commits (git's own commit, partial: that path only) */
    const char *path = r->what == 1 ? "a.txt" : "b.txt";
    fx_write(r->dir, path, "theirs\n");
    fx_clock += 60;
    fx_git(r->dir, "commit", "-q", "-m", "other", "--", path, NULL);
}

static void
race_repo(char *dir, size_t cap, const char *name)
{
    fx_init(name, dir, cap);
    fx_write(dir, "a.txt", "a\n");
    fx_write(dir, "b.txt", "b\n");
    fx_write(dir, "c.txt", "c\n");
    fx_git(dir, "add", "-A", NULL);
    fx_commit(dir, "one");
    fx_write(dir, "c.txt", "c2\n");
    fx_git(dir, "add", "-A", NULL);
    fx_commit(dir, "two");
    fx_write(dir, "a.txt", "ours\n");
}

static void
test_race_other_file(void)
{
    char dir[600], out[256], other[64];
    race_repo(dir, sizeof(dir), "race-other");
    struct race r = { dir, 0, 0 };
    struct commit_result res;
    struct as_err e;
    char *specs[1] = { "a.txt" };
    CHECK_INT(commit_specs(dir, specs, 1, "mine", race_hook, &r, &res, &e), 0);
    CHECK_INT(res.retries, 1);
    git_out(dir, other, sizeof(other), "rev-parse", "HEAD~1", NULL);
    CHECK_STR(res.parent, other);
    CHECK_STR(git_out(dir, out, sizeof(out), "log", "-1", "--format=%s",
                  "HEAD~1", NULL),
        "other");
    CHECK_STR(
        git_out(dir, out, sizeof(out), "show", "HEAD:a.txt", NULL), "ours");
    CHECK_STR(
        git_out(dir, out, sizeof(out), "show", "HEAD:b.txt", NULL), "theirs");
    CHECK_STR(
        git_out(dir, out, sizeof(out), "status", "--porcelain", NULL), "");
    commit_result_release(&res);
}

static void
test_race_same_file(void)
{
    char dir[600], before[64], after[64];
    race_repo(dir, sizeof(dir), "race-same");
    struct race r = { dir, 1, 0 };
    struct commit_result res;
    struct as_err e;
    char *specs[1] = { "a.txt" };
    CHECK_INT(commit_specs(dir, specs, 1, "mine", race_hook, &r, &res, &e),
        AS_ECONFLICT);
    CHECK(strstr(e.msg, "'a.txt' was changed by commit") != NULL);
    CHECK(strstr(e.msg, "\"other\"") != NULL);
    git_out(dir, before, sizeof(before), "log", "-1", "--format=%s", NULL);
    CHECK_STR(before, "other"); /* nothing of ours landed */
    git_out(dir, after, sizeof(after), "rev-list", "--count", "HEAD", NULL);
    CHECK_STR(after, "3");
    commit_result_release(&res);
}

static void
test_race_rewind(void)
{
    char dir[600], out[64];
    race_repo(dir, sizeof(dir), "race-rewind");
    struct race r = { dir, 2, 0 };
    struct commit_result res;
    struct as_err e;
    char *specs[1] = { "a.txt" };
    CHECK_INT(commit_specs(dir, specs, 1, "mine", race_hook, &r, &res, &e),
        AS_ECONFLICT);
    CHECK(strstr(e.msg, "rewound") != NULL);
    CHECK_STR(git_out(dir, out, sizeof(out), "log", "-1", "--format=%s", NULL),
        "one");
    commit_result_release(&res);
}

static void
test_race_ref_lock(void)
{
    char dir[600], out[64], p[800];
    race_repo(dir, sizeof(dir), "race-lock");
    struct race r = { dir, 3, 0 };
    struct commit_result res;
    struct as_err e;
    char *specs[1] = { "a.txt" };
    CHECK_INT(commit_specs(dir, specs, 1, "mine", race_hook, &r, &res, &e), 0);
    CHECK_INT(res.retries, 1);
    CHECK_INT(r.calls, 2);
    CHECK_STR(git_out(dir, out, sizeof(out), "log", "-1", "--format=%s", NULL),
        "mine");
    path_of(p, sizeof(p), dir, ".git/refs/heads/main.lock");
    CHECK(access(p, F_OK) != 0);
    commit_result_release(&res);
}

/* ---- the worktree's index ---- */

static void
test_index(void)
{
    char dir[600], out[256], p[800];
    race_repo(dir, sizeof(dir), "index");
    fx_write(dir, "staged.txt", "staged\n");
    fx_git(dir, "add", "staged.txt", NULL);
    struct commit_result res;
    struct as_err e;
    char *specs[1] = { "a.txt" };
    CHECK_INT(commit_specs(dir, specs, 1, "a", NULL, NULL, &res, &e), 0);
    CHECK(res.index_updated);
    CHECK(res.index_note == NULL);
    CHECK_STR(
        git_out(dir, out, sizeof(out), "diff", "--cached", "--name-only", NULL),
        "staged.txt");
    CHECK_STR(
        git_out(dir, out, sizeof(out), "status", "--porcelain", "a.txt", NULL),
        "");
    commit_result_release(&res);

    /* the index lock held by someone else: the commit stands, index alone */
    fx_write(dir, "a.txt", "again\n");
    fx_write(dir, ".git/index.lock", "held by git\n");
    CHECK_INT(commit_specs(dir, specs, 1, "b", NULL, NULL, &res, &e), 0);
    CHECK(!res.index_updated);
    CHECK(res.index_note && strstr(res.index_note, "git reset -q -- a.txt"));
    CHECK_STR(
        git_out(dir, out, sizeof(out), "log", "-1", "--format=%s", NULL), "b");
    path_of(p, sizeof(p), dir, ".git/index.lock");
    FILE *f = fopen(p, "r");
    char held[64] = "";
    if (f) {
        if (!fgets(held, sizeof(held), f))
            held[0] = '\0';
        fclose(f);
    }
    CHECK_STR(held, "held by git\n");
    unlink(p);
    CHECK_STR(
        git_out(dir, out, sizeof(out), "diff", "--cached", "--name-only", NULL),
        "a.txt\nstaged.txt");
    commit_result_release(&res);
}

/* Another commit of the same path lands between our swap and our index
 * update (it was made on ours): our older entry must not overwrite its. */
static void
later_commit_hook(void *ctx, unsigned attempt)
{
    const char *dir = ctx;
    (void)attempt;
    fx_write(dir, "a.txt", "later\n");
    fx_clock += 60;
    fx_git(dir, "commit", "-q", "-m", "later", "--", "a.txt", NULL);
}

static void
test_index_later_commit(void)
{
    char dir[600], out[256];
    race_repo(dir, sizeof(dir), "index-later");
    struct commit_tree *t = NULL;
    struct commit_file *files = NULL;
    size_t nfiles = 0;
    struct commit_result res;
    struct as_err e;
    char *specs[1] = { "a.txt" };
    memset(&res, 0, sizeof(res));
    CHECK_INT(commit_open(dir, &t, &e), 0);
    CHECK_INT(
        commit_select(t, specs, 1, COMMIT_SELECT_STRICT, &files, &nfiles, &e),
        0);
    struct commit_options o;
    memset(&o, 0, sizeof(o));
    o.message = "mine";
    o.before_index = later_commit_hook;
    o.hook_ctx = dir;
    CHECK_INT(commit_create(t, files, nfiles, &o, &res, &e), 0);
    CHECK_STR(git_out(dir, out, sizeof(out), "log", "-2", "--format=%s", NULL),
        "later\nmine");
    CHECK_STR(
        git_out(dir, out, sizeof(out), "diff", "--cached", "--name-only", NULL),
        "");
    CHECK_STR(
        git_out(dir, out, sizeof(out), "status", "--porcelain", NULL), "");
    commit_result_release(&res);
    commit_files_free(files, nfiles);
    commit_close(t);
}

/* ---- root, detached, refusals of the tree ---- */

static void
test_root_and_detached(void)
{
    char dir[600], out[256];
    fx_init("root", dir, sizeof(dir));
    fx_write(dir, "f.txt", "first\n");
    fx_write(dir, "other.txt", "not mine\n");
    struct commit_result res;
    struct as_err e;
    char *specs[1] = { "f.txt" };
    CHECK_INT(commit_specs(dir, specs, 1, "first", NULL, NULL, &res, &e), 0);
    CHECK(res.root);
    CHECK_STR(res.parent, "");
    CHECK_STR(
        git_out(dir, out, sizeof(out), "rev-list", "--count", "HEAD", NULL),
        "1");
    CHECK_STR(git_out(dir, out, sizeof(out), "status", "--porcelain", NULL),
        "?? other.txt");
    commit_result_release(&res);

    fx_git(dir, "checkout", "-q", "--detach", NULL);
    fx_write(dir, "f.txt", "second\n");
    char mainref[64];
    git_out(dir, mainref, sizeof(mainref), "rev-parse", "main", NULL);
    CHECK_INT(commit_specs(dir, specs, 1, "detached", NULL, NULL, &res, &e), 0);
    CHECK(res.branch == NULL);
    CHECK_STR(res.parent, mainref);
    CHECK_STR(
        git_out(dir, out, sizeof(out), "rev-parse", "main", NULL), mainref);
    CHECK_STR(git_out(dir, out, sizeof(out), "log", "-1", "--format=%s", NULL),
        "detached");
    commit_result_release(&res);
}

static void
test_merge_in_progress(void)
{
    char dir[600];
    race_repo(dir, sizeof(dir), "merging");
    char head[64];
    git_out(dir, head, sizeof(head), "rev-parse", "HEAD", NULL);
    char content[80];
    snprintf(content, sizeof(content), "%s\n", head);
    fx_write(dir, ".git/MERGE_HEAD", content);
    struct commit_tree *t = NULL;
    struct as_err e;
    CHECK_INT(commit_open(dir, &t, &e), AS_ECONFLICT);
    CHECK(strstr(e.msg, "a merge is in progress") != NULL);
    commit_close(t);
}

/* ---- identity, dates, messages ---- */

static const struct {
    const char *name, *date;
    long long when;
    int offset;
} date_cases[] = {
    { "ISO with Z", "2026-01-01T10:00:00Z", 1767261600, 0 },
    { "ISO with an offset", "2026-01-01T12:00:00+02:00", 1767261600, 120 },
    { "ISO with a space and a negative offset", "2026-01-01 05:30 -0430",
        1767261600, -270 },
    { "raw with @", "@1700000000 +0200", 1700000000, 120 },
    { "raw", "1700000000 -0100", 1700000000, -60 },
    { "not a date", "yesterday", -1, 0 },
    { "raw without a zone", "1700000000", -1, 0 },
    { "bad month", "2026-13-01T10:00:00Z", -1, 0 },
};

static void
test_identity(void)
{
    struct commit_tree *t = NULL;
    struct as_err e;
    if (commit_open(sel_dir, &t, &e)) {
        CHECK(0);
        return;
    }
    for (size_t i = 0; i < sizeof(date_cases) / sizeof(date_cases[0]); i++) {
        TEST_BEGIN(date_cases[i].name);
        git_signature *sig = NULL;
        setenv("GIT_AUTHOR_DATE", date_cases[i].date, 1);
        int rc = commit_identity(t, "author", &sig, &e);
        if (date_cases[i].when < 0) {
            CHECK_INT(rc, AS_EINVAL);
            CHECK(strstr(e.msg, "GIT_AUTHOR_DATE") != NULL);
        } else {
            CHECK_INT(rc, 0);
            if (sig) {
                CHECK_INT(sig->when.time, date_cases[i].when);
                CHECK_INT(sig->when.offset, date_cases[i].offset);
                CHECK_STR(sig->name, "Test");
            }
        }
        git_signature_free(sig);
        TEST_END();
    }
    unsetenv("GIT_AUTHOR_DATE");

    TEST_BEGIN("no identity anywhere");
    char *saved_name = strdup(getenv("GIT_COMMITTER_NAME"));
    unsetenv("GIT_COMMITTER_NAME");
    git_signature *sig = NULL;
    CHECK_INT(commit_identity(t, "committer", &sig, &e), AS_EINVAL);
    CHECK(strstr(e.msg, "user.name") != NULL);
    TEST_END();

    TEST_BEGIN("configuration: committer.name over user.name");
    fx_git(sel_dir, "config", "user.name", "From Config", NULL);
    commit_close(t); /* configuration is read per call: reopen anyway */
    t = NULL;
    if (commit_open(sel_dir, &t, &e) == 0) {
        CHECK_INT(commit_identity(t, "committer", &sig, &e), 0);
        CHECK_STR(sig ? sig->name : NULL, "From Config");
        git_signature_free(sig);
        sig = NULL;
        fx_git(sel_dir, "config", "committer.name", "Committer Key", NULL);
        CHECK_INT(commit_identity(t, "committer", &sig, &e), 0);
        CHECK_STR(sig ? sig->name : NULL, "Committer Key");
        git_signature_free(sig);
    }
    setenv("GIT_COMMITTER_NAME", saved_name, 1);
    free(saved_name);
    TEST_END();
    commit_close(t);
}

static void
test_messages(void)
{
    char dir[600], out[512];
    race_repo(dir, sizeof(dir), "messages");
    struct commit_result res;
    struct as_err e;
    char *specs[1] = { "a.txt" };
    CHECK_INT(commit_specs(dir, specs, 1, "  \n \n", NULL, NULL, &res, &e),
        AS_EINVAL);
    CHECK(strstr(e.msg, "empty commit message") != NULL);
    commit_result_release(&res);
    CHECK_INT(commit_specs(dir, specs, 1, "\n\nsubject  \n\n\n\nbody  \n\n",
                  NULL, NULL, &res, &e),
        0);
    CHECK_STR(res.subject, "subject");
    CHECK_STR(git_out(dir, out, sizeof(out), "log", "-1", "--format=%B", NULL),
        "subject\n\nbody");
    commit_result_release(&res);
}

int
main(void)
{
    fx_setup();
    build_select();
    test_select_refusals();
    TEST_RUN("a directory expands to its changed files", test_select_directory);
    TEST_RUN("every kind of change, as git would commit it", test_kinds);
    TEST_RUN("another commit first: rebuilt on it", test_race_other_file);
    TEST_RUN("another commit of the same path: refused", test_race_same_file);
    TEST_RUN("the branch rewound: refused", test_race_rewind);
    TEST_RUN("the ref lock held once: retried", test_race_ref_lock);
    TEST_RUN("the worktree's index", test_index);
    TEST_RUN("the index keeps a later commit's entry", test_index_later_commit);
    TEST_RUN("root and detached commits", test_root_and_detached);
    TEST_RUN("a merge in progress is refused", test_merge_in_progress);
    test_identity();
    TEST_RUN("messages are cleaned up as git does", test_messages);
    fx_teardown();
    return test_done();
}

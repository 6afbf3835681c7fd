/*
 * test_git_workset.c - working sets read from real worktrees: exact ranges in
 * base coordinates, statuses, commit counts, change times, and the captured
 * work tree (equal to what `git add -A && git write-tree` would give, kept in
 * memory, with no index file touched).
 */
#include "test.h"
#include "test_git_fixture.h"

#include <git2.h>

#include "core/workset.h"
#include "git/repo.h"
#include "git/workset.h"
#include "util/error.h"
#include "util/xalloc.h"

#define NOW_MS 1800000000000LL

static char main_dir[600], wt_dir[700];

static const struct ws_file *
find_file(const struct agent *a, const char *path)
{
    size_t i;

    for (i = 0; i < a->nfiles; i++)
        if (!strcmp(a->files[i].path, path))
            return &a->files[i];
    return NULL;
}

/* The ranges of f as "a-b,c-d" for compact comparison. */
static const char *
ranges_str(const struct ws_file *f)
{
    static char buf[256];
    size_t i, len = 0;

    buf[0] = '\0';
    for (i = 0; f && i < f->ranges.n && len < sizeof(buf); i++)
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u-%u",
            i ? "," : "", f->ranges.v[i].start, f->ranges.v[i].end);
    return buf;
}

static void
build(void)
{
    char buf[1024];
    static const unsigned char bin1[] = { 0, 1, 2, 3, 0, 'a', 'b', 0 };
    static const unsigned char bin2[] = { 0, 1, 2, 4, 0, 'a', 'c', 0 };

    fx_init("ws", main_dir, sizeof(main_dir));
    fx_write(main_dir, "m.txt", fx_lines(buf, sizeof(buf), 20, 0, NULL));
    fx_write(main_dir, "adj.txt", fx_lines(buf, sizeof(buf), 10, 0, NULL));
    fx_write(main_dir, "ins.txt", fx_lines(buf, sizeof(buf), 10, 0, NULL));
    fx_write(main_dir, "del.txt", fx_lines(buf, sizeof(buf), 10, 0, NULL));
    fx_write(main_dir, "staged.txt", fx_lines(buf, sizeof(buf), 10, 0, NULL));
    fx_write(main_dir, "ahead.txt", fx_lines(buf, sizeof(buf), 10, 0, NULL));
    fx_write(main_dir, "ren.txt",
        "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\n");
    fx_write(main_dir, "dir/src.txt",
        "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n");
    fx_write_bytes(main_dir, "bin.dat", bin1, sizeof(bin1));
    fx_write(main_dir, "mode.sh", "echo hi\n");
    fx_write(main_dir, "gone.txt", "bye\n");
    fx_write(main_dir, ".gitignore", "*.log\n");
    fx_git(main_dir, "add", "-A", NULL);
    fx_commit(main_dir, "base");

    snprintf(wt_dir, sizeof(wt_dir), "%s/agent-wt", fx_root);
    fx_git(main_dir, "worktree", "add", "-q", "-b", "agent", wt_dir, NULL);

    /* committed ahead of base, then an unstaged change on top */
    fx_write(wt_dir, "ahead.txt", fx_lines(buf, sizeof(buf), 10, 3, "C3"));
    fx_git(wt_dir, "add", "ahead.txt", NULL);
    fx_commit(wt_dir, "ahead");
    fx_write(wt_dir, "ahead.txt", "L1\nL2\nC3\nL4\nL5\nL6\nL7\nU8\nL9\nL10\n");

    /* modified lines in the middle */
    fx_write(wt_dir, "m.txt",
        "L1\nL2\nL3\nL4\nL5\nL6\nL7\nL8\nX9\nX10\nX11\nL12\nL13\nL14\nL15\n"
        "L16\nL17\nL18\nL19\nL20\n");
    /* adjacent lines */
    fx_write(wt_dir, "adj.txt", "L1\nL2\nL3\nL4\nA5\nA6\nL7\nL8\nL9\nL10\n");
    /* pure insertions: at the top and after line 4 */
    fx_write(wt_dir, "ins.txt",
        "TOP\nL1\nL2\nL3\nL4\nX\nY\nL5\nL6\nL7\nL8\nL9\nL10\n");
    /* deletion of lines 3..5 */
    fx_write(wt_dir, "del.txt", "L1\nL2\nL6\nL7\nL8\nL9\nL10\n");
    /* staged only */
    fx_write(wt_dir, "staged.txt", fx_lines(buf, sizeof(buf), 10, 2, "S2"));
    fx_git(wt_dir, "add", "staged.txt", NULL);
    /* untracked new file, ignored file */
    fx_write(wt_dir, "new.txt", "a\nb\n");
    fx_write(wt_dir, "noise.log", "ignored\n");
    /* staged rename, and an unstaged rename to an untracked file */
    fx_git(wt_dir, "mv", "ren.txt", "renamed.txt", NULL);
    fx_write(wt_dir, "dir/dst.txt",
        "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n");
    snprintf(buf, sizeof(buf), "%s/dir/src.txt", wt_dir);
    unlink(buf);
    /* binary, mode, deleted */
    fx_write_bytes(wt_dir, "bin.dat", bin2, sizeof(bin2));
    snprintf(buf, sizeof(buf), "%s/mode.sh", wt_dir);
    chmod(buf, 0755);
    snprintf(buf, sizeof(buf), "%s/gone.txt", wt_dir);
    unlink(buf);
}

static int64_t
mtime_ms(const char *dir, const char *rel)
{
    char path[1024];
    struct stat st;

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    if (stat(path, &st) < 0)
        return -1;
    return (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
}

static int64_t
commit_time_ms(const char *rev)
{
    char out[64];
    char *argv[] = { "git", "log", "-1", "--format=%ct", (char *)rev, NULL };

    if (fx_runv(main_dir, argv, out, sizeof(out)) != 0)
        return -1;
    return strtoll(out, NULL, 10) * 1000;
}

static void
test_worktree_files(void)
{
    struct repo *r = NULL;
    struct workset_options o;
    struct agent a;
    struct as_err e;
    const struct ws_file *f;
    char base[64];
    char *argv[] = { "git", "rev-parse", "main", NULL };

    CHECK_INT(repo_open(wt_dir, &r, &e), 0);
    if (!r)
        return;
    workset_options_init(&o);
    o.now_ms = NOW_MS;
    agent_init(&a, "agent-1");
    CHECK_INT(workset_from_worktree(r, wt_dir, &o, &a, &e), 0);

    fx_runv(main_dir, argv, base, sizeof(base));
    base[40] = '\0';
    CHECK_STR(a.base_oid, base);
    CHECK_STR(a.branch, "agent");
    CHECK_STR(a.worktree, wt_dir);
    CHECK_INT(a.commits_ahead, 1);
    CHECK_INT(a.committed_lines, 2);
    CHECK_INT(a.started_at_ms, commit_time_ms("agent"));
    CHECK(a.tree_oid != NULL && strlen(a.tree_oid) == 40);
    CHECK_INT(a.nfiles, 12);

    f = find_file(&a, "m.txt");
    CHECK(f && f->status == WS_MODIFIED && !f->whole);
    CHECK_STR(ranges_str(f), "9-11");
    CHECK(f && f->added_lines == 3 && f->deleted_lines == 3);
    CHECK(f && f->changed_at_ms == mtime_ms(wt_dir, "m.txt"));

    CHECK_STR(ranges_str(find_file(&a, "adj.txt")), "5-6");
    CHECK_STR(ranges_str(find_file(&a, "ins.txt")), "1-1,4-4");
    f = find_file(&a, "ins.txt");
    CHECK(f && f->added_lines == 3 && f->deleted_lines == 0);
    /* ... recorded as insertions: no base line of ins.txt was replaced */
    CHECK(f && f->ranges.nins == 2 && f->ranges.ins[0] == 0 &&
          f->ranges.ins[1] == 4);
    CHECK(find_file(&a, "adj.txt")->ranges.nins == 0);
    f = find_file(&a, "del.txt");
    CHECK_STR(ranges_str(f), "3-5");
    CHECK(f && f->added_lines == 0 && f->deleted_lines == 3);
    f = find_file(&a, "staged.txt");
    CHECK(f && f->status == WS_MODIFIED);
    CHECK_STR(ranges_str(f), "2-2");
    /* committed line 3 plus unstaged line 8 */
    CHECK_STR(ranges_str(find_file(&a, "ahead.txt")), "3-3,8-8");
    CHECK(find_file(&a, "ahead.txt")->changed_at_ms ==
          mtime_ms(wt_dir, "ahead.txt"));

    f = find_file(&a, "new.txt");
    CHECK(f && f->status == WS_ADDED && f->whole && f->added_lines == 2);
    CHECK(find_file(&a, "noise.log") == NULL);

    f = find_file(&a, "ren.txt");
    CHECK(f && f->status == WS_RENAMED && f->whole);
    CHECK_STR(f ? f->new_path : NULL, "renamed.txt");
    CHECK(find_file(&a, "renamed.txt") == NULL);
    f = find_file(&a, "dir/src.txt");
    CHECK(f && f->status == WS_RENAMED);
    CHECK_STR(f ? f->new_path : NULL, "dir/dst.txt");

    f = find_file(&a, "bin.dat");
    CHECK(f && f->status == WS_BINARY && f->whole);
    f = find_file(&a, "mode.sh");
    CHECK(f && f->status == WS_MODE && f->whole);
    f = find_file(&a, "gone.txt");
    CHECK(f && f->status == WS_DELETED && f->whole && f->deleted_lines == 1);
    CHECK(f && f->changed_at_ms == NOW_MS);

    agent_release(&a);

    /* without untracked files: new.txt disappears, dir/src.txt is deleted */
    o.untracked = false;
    agent_init(&a, "agent-1");
    CHECK_INT(workset_from_worktree(r, wt_dir, &o, &a, &e), 0);
    CHECK(find_file(&a, "new.txt") == NULL);
    f = find_file(&a, "dir/src.txt");
    CHECK(f && f->status == WS_DELETED);
    agent_release(&a);
    repo_free(r);
}

static void
test_branch(void)
{
    struct repo *r = NULL;
    struct agent a;
    struct as_err e;
    const struct ws_file *f;
    char tree[64];
    char *argv[] = { "git", "rev-parse", "agent^{tree}", NULL };

    CHECK_INT(repo_open(main_dir, &r, &e), 0);
    if (!r)
        return;
    agent_init(&a, "branch-agent");
    CHECK_INT(workset_from_branch(r, "agent", NULL, &a, &e), 0);
    fx_runv(main_dir, argv, tree, sizeof(tree));
    tree[40] = '\0';
    CHECK_STR(a.tree_oid, tree);
    CHECK(a.worktree == NULL);
    CHECK_STR(a.branch, "agent");
    CHECK_INT(a.commits_ahead, 1);
    CHECK_INT(a.committed_lines, 2);
    CHECK_INT(a.nfiles, 1);
    f = find_file(&a, "ahead.txt");
    CHECK_STR(ranges_str(f), "3-3");
    CHECK(f && f->changed_at_ms == commit_time_ms("agent"));
    agent_release(&a);

    /* the integration branch itself: base is its tip, nothing ahead */
    agent_init(&a, "main");
    CHECK_INT(workset_from_branch(r, "main", NULL, &a, &e), 0);
    CHECK_INT(a.commits_ahead, 0);
    CHECK_INT(a.nfiles, 0);
    CHECK_INT(a.started_at_ms, 0);
    agent_release(&a);

    agent_init(&a, "x");
    CHECK_INT(workset_from_branch(r, "no-such", NULL, &a, &e), AS_ENOENT);
    agent_release(&a);
    repo_free(r);
}

static void
test_main_clean(void)
{
    struct repo *r = NULL;
    struct agent a;
    struct as_err e;
    char head[64];
    char *argv[] = { "git", "rev-parse", "HEAD", NULL };

    CHECK_INT(repo_open(main_dir, &r, &e), 0);
    if (!r)
        return;
    agent_init(&a, "human");
    CHECK_INT(workset_from_worktree(r, main_dir, NULL, &a, &e), 0);
    fx_runv(main_dir, argv, head, sizeof(head));
    head[40] = '\0';
    CHECK_STR(a.base_oid, head);
    CHECK_INT(a.commits_ahead, 0);
    CHECK_INT(a.nfiles, 0);
    agent_release(&a);

    agent_init(&a, "nowhere");
    CHECK(workset_from_worktree(r, fx_root, NULL, &a, &e) < 0);
    agent_release(&a);
    repo_free(r);
}

/* Set path's mtime to sec (s since the epoch). */
static void
set_mtime(const char *dir, const char *rel, time_t sec)
{
    char path[1024];
    struct timespec ts[2] = { { sec, 0 }, { sec, 0 } };

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    CHECK(utimensat(AT_FDCWD, path, ts, 0) == 0);
}

/*
 * A worktree with nothing committed starts when it was made (its
 * administrative commondir file), not when its oldest changed file was last
 * saved: touching a file moves its change time, never the agent's start.
 */
static void
test_start_stable(void)
{
    struct repo *r = NULL;
    struct agent a;
    struct as_err e;
    char dir[800];
    const struct ws_file *f;
    int64_t made;

    snprintf(dir, sizeof(dir), "%s/fresh-wt", fx_root);
    fx_git(main_dir, "worktree", "add", "-q", "-b", "fresh", dir, NULL);
    made = mtime_ms(main_dir, ".git/worktrees/fresh-wt/commondir");
    CHECK(made > 0);
    fx_write(dir, "m.txt", "fresh\n");
    set_mtime(dir, "m.txt", (time_t)(made / 1000) + 100);
    CHECK_INT(repo_open(dir, &r, &e), 0);
    if (!r)
        return;
    agent_init(&a, "fresh");
    CHECK_INT(workset_from_worktree(r, dir, NULL, &a, &e), 0);
    CHECK_INT(a.commits_ahead, 0);
    CHECK_INT(a.started_at_ms, made);
    agent_release(&a);

    /* re-saved later, or back-dated: the start stays */
    set_mtime(dir, "m.txt", (time_t)(made / 1000) + 500);
    agent_init(&a, "fresh");
    CHECK_INT(workset_from_worktree(r, dir, NULL, &a, &e), 0);
    CHECK_INT(a.started_at_ms, made);
    f = find_file(&a, "m.txt");
    CHECK(f && f->changed_at_ms == ((int64_t)(made / 1000) + 500) * 1000);
    agent_release(&a);
    set_mtime(dir, "m.txt", 1000000000);
    agent_init(&a, "fresh");
    CHECK_INT(workset_from_worktree(r, dir, NULL, &a, &e), 0);
    CHECK_INT(a.started_at_ms, made);
    agent_release(&a);

    /* a commit ahead whose author time is earlier than the worktree
     * (written elsewhere) is the start */
    fx_write(dir, "m.txt", "committed\n");
    fx_git(dir, "add", "m.txt", NULL);
    fx_commit(dir, "fresh");
    agent_init(&a, "fresh");
    CHECK_INT(workset_from_worktree(r, dir, NULL, &a, &e), 0);
    CHECK_INT(a.commits_ahead, 1);
    CHECK_INT(a.started_at_ms, commit_time_ms("fresh"));
    CHECK(a.started_at_ms < made);
    agent_release(&a);
    repo_free(r);
}

/* The index file's bytes and mtime. */
struct snapshot {
    char data[65536];
    ssize_t len;
    struct timespec mtime;
};

static void
snap(const char *path, struct snapshot *s)
{
    struct stat st;
    FILE *f = fopen(path, "rb");

    s->len = -1;
    memset(&s->mtime, 0, sizeof(s->mtime));
    if (!f)
        return;
    s->len = (ssize_t)fread(s->data, 1, sizeof(s->data), f);
    fclose(f);
    if (stat(path, &st) == 0)
        s->mtime = st.st_mtim;
}

static bool
snap_equal(const struct snapshot *a, const struct snapshot *b)
{
    return a->len >= 0 && a->len == b->len &&
           !memcmp(a->data, b->data, (size_t)a->len) &&
           a->mtime.tv_sec == b->mtime.tv_sec &&
           a->mtime.tv_nsec == b->mtime.tv_nsec;
}

static void
test_tree_oid(void)
{
    struct repo *r = NULL;
    struct agent a1, a2, a3;
    struct as_err e;
    char index_path[800], tmp_index[800], wt_tree_hex[64];
    static struct snapshot before, after;
    char *cat[] = { "git", "cat-file", "-e", NULL, NULL };
    char *write_tree[] = { "git", "write-tree", NULL };
    git_tree *t = NULL;
    git_oid oid;
    git_tree_entry *ent = NULL;

    snprintf(index_path, sizeof(index_path), "%s/.git/worktrees/agent-wt/index",
        main_dir);
    snap(index_path, &before);
    CHECK(before.len > 0);

    CHECK_INT(repo_open(wt_dir, &r, &e), 0);
    if (!r)
        return;
    agent_init(&a1, "a");
    agent_init(&a2, "a");
    agent_init(&a3, "a");
    CHECK_INT(workset_from_worktree(r, wt_dir, NULL, &a1, &e), 0);
    CHECK_INT(workset_from_worktree(r, wt_dir, NULL, &a2, &e), 0);
    CHECK_STR(a1.tree_oid, a2.tree_oid);

    /* readable through the handle, absent from the repository on disk */
    if (a1.tree_oid && git_oid_fromstr(&oid, a1.tree_oid) == 0 &&
        git_tree_lookup(&t, repo_git(r), &oid) == 0) {
        CHECK(git_tree_entry_bypath(&ent, t, "new.txt") == 0);
        git_tree_entry_free(ent);
        ent = NULL;
        CHECK(git_tree_entry_bypath(&ent, t, "noise.log") != 0);
        git_tree_free(t);
    } else {
        CHECK(!"tree_oid not readable");
    }
    cat[3] = a1.tree_oid;
    CHECK(fx_runv(main_dir, cat, NULL, 0) != 0);

    fx_write(wt_dir, "m.txt", "changed again\n");
    CHECK_INT(workset_from_worktree(r, wt_dir, NULL, &a3, &e), 0);
    CHECK(a3.tree_oid && a1.tree_oid && strcmp(a3.tree_oid, a1.tree_oid));

    snap(index_path, &after);
    CHECK(snap_equal(&before, &after));

    /* the same tree git itself builds from the working tree (this writes
     * objects, so it comes after the absence check) */
    snprintf(tmp_index, sizeof(tmp_index), "%s/tmp-index", fx_root);
    setenv("GIT_INDEX_FILE", tmp_index, 1);
    fx_git(wt_dir, "read-tree", "HEAD", NULL);
    fx_git(wt_dir, "add", "-A", NULL);
    fx_runv(wt_dir, write_tree, wt_tree_hex, sizeof(wt_tree_hex));
    unsetenv("GIT_INDEX_FILE");
    wt_tree_hex[40] = '\0';
    CHECK_STR(a3.tree_oid, wt_tree_hex);

    agent_release(&a1);
    agent_release(&a2);
    agent_release(&a3);
    repo_free(r);
}

/* The working set's tree of wt, and the tree git builds from it
 * (`git add -A && git write-tree` through a scratch index), as hex. */
static void
tree_vs_git(struct repo *r, const char *wt, char *ours, char *gits)
{
    struct agent a;
    struct as_err e;
    char tmp_index[800];
    char *write_tree[] = { "git", "write-tree", NULL };

    agent_init(&a, "s");
    ours[0] = gits[0] = '\0';
    CHECK_INT(workset_from_worktree(r, wt, NULL, &a, &e), 0);
    if (a.tree_oid)
        snprintf(ours, 64, "%s", a.tree_oid);
    agent_release(&a);
    snprintf(tmp_index, sizeof(tmp_index), "%s/shape-index", fx_root);
    unlink(tmp_index);
    setenv("GIT_INDEX_FILE", tmp_index, 1);
    fx_git(wt, "read-tree", "HEAD", NULL);
    fx_git(wt, "add", "-A", NULL);
    fx_runv(wt, write_tree, gits, 64);
    unsetenv("GIT_INDEX_FILE");
    gits[40] = '\0';
}

/* The captured tree is git's whatever the work does to the tree's shape:
 * directories emptied and made, a file where a directory was and the
 * reverse, a file turned into a link, a mode changed. */
static void
test_tree_shapes(void)
{
    static const char *const cases[] = { "edits", "file-for-dir",
        "dir-for-file" };
    char dir[600], wt[800], path[900], ours[64], gits[64];
    struct repo *r = NULL;
    struct as_err e;
    size_t k;

    fx_init("shapes", dir, sizeof(dir));
    fx_write(dir, "d/a.txt", "a\n");
    fx_write(dir, "d/sub/b.txt", "b\n");
    fx_write(dir, "f.txt", "f\n");
    fx_write(dir, "l.txt", "l\n");
    fx_write(dir, "keep/x.txt", "x\n");
    fx_write(dir, "only/one.txt", "one\n");
    fx_git(dir, "add", "-A", NULL);
    fx_commit(dir, "base");
    CHECK_INT(repo_open(dir, &r, &e), 0);
    if (!r)
        return;
    for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        snprintf(wt, sizeof(wt), "%s/shape-%s", fx_root, cases[k]);
        fx_git(dir, "worktree", "add", "-q", "-b", cases[k], wt, NULL);
        fx_write(wt, "keep/x.txt", "x changed\n");
        if (k == 0) {
            fx_write(wt, "new/deep/n.txt", "n\n");
            snprintf(path, sizeof(path), "%s/only/one.txt", wt);
            unlink(path);
            snprintf(path, sizeof(path), "%s/f.txt", wt);
            chmod(path, 0755);
            snprintf(path, sizeof(path), "%s/l.txt", wt);
            unlink(path);
            CHECK_INT(symlink("keep/x.txt", path), 0);
        } else if (k == 1) {
            snprintf(path, sizeof(path), "%s/d/sub/b.txt", wt);
            unlink(path);
            snprintf(path, sizeof(path), "%s/d/sub", wt);
            rmdir(path);
            snprintf(path, sizeof(path), "%s/d/a.txt", wt);
            unlink(path);
            snprintf(path, sizeof(path), "%s/d", wt);
            rmdir(path);
            fx_write(wt, "d", "now a file\n");
        } else {
            snprintf(path, sizeof(path), "%s/f.txt", wt);
            unlink(path);
            fx_write(wt, "f.txt/inner.txt", "now a directory\n");
        }
        tree_vs_git(r, wt, ours, gits);
        if (strcmp(ours, gits))
            fprintf(stderr, "  case %s\n", cases[k]);
        CHECK_STR(ours, gits);
    }
    repo_free(r);
}

/* a's files as one line: path, status, new path, ranges, each */
static char *
files_str(const struct agent *a, char *buf, size_t cap)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < a->nfiles && len < cap; i++) {
        const struct ws_file *f = &a->files[i];
        len += (size_t)snprintf(buf + len, cap - len, "%s %d %s %s%s;", f->path,
            (int)f->status, f->new_path ? f->new_path : "-", ranges_str(f),
            f->whole ? " whole" : "");
    }
    return buf;
}

/* Read wt limited to what the last read found changed and to touched
 * (the watch's paths), and in full; the two must agree. Leaves in *scope
 * what the limited read found changed, and returns it as files_str(). */
static void
read_both(struct repo *r, const char *wt, struct workset_scope *scope,
    const char *const *touched, size_t ntouched, struct agent *limited,
    struct agent *full)
{
    struct workset_options o;
    struct workset_scope next = { .limit = true };
    struct workset_scope whole = { .limit = false };
    struct as_err e;
    char **paths = xcalloc(scope->nchanged + ntouched + 1, sizeof(*paths));
    size_t n = 0;

    for (size_t i = 0; i < scope->nchanged; i++)
        paths[n++] = scope->changed[i];
    for (size_t i = 0; i < ntouched; i++)
        paths[n++] = (char *)touched[i];
    next.paths = paths;
    next.npaths = n;
    workset_options_init(&o);
    o.now_ms = NOW_MS;
    o.scope = &next;
    CHECK_INT(workset_from_worktree(r, wt, &o, limited, &e), 0);
    o.scope = &whole;
    CHECK_INT(workset_from_worktree(r, wt, &o, full, &e), 0);
    CHECK_INT(next.nchanged, whole.nchanged);
    for (size_t i = 0; i < next.nchanged && i < whole.nchanged; i++)
        CHECK_STR(next.changed[i], whole.changed[i]);
    free(paths);
    workset_scope_release(scope);
    *scope = next;
    workset_scope_release(&whole);
}

/* A read limited to the paths the watch saw change and those the last
 * read found changed is the whole read: files, ranges, renames and the
 * captured tree; and it reads nothing else (a change nobody reported is
 * not seen). */
static void
test_limited_read(void)
{
    struct repo *r = NULL;
    struct workset_options o;
    struct workset_scope sc = { .limit = false };
    struct agent a, l, f;
    struct as_err e;
    char path[1024];
    static char ls[4096], fs[4096];
    static const char *const none[] = { NULL };
    static const char *const m[] = { "m.txt" };
    static const char *const pkg[] = { "pkg" };
    static const char *const dst[] = { "dir/dst.txt", "adj.txt" };

    CHECK_INT(repo_open(wt_dir, &r, &e), 0);
    if (!r)
        return;
    workset_options_init(&o);
    o.now_ms = NOW_MS;
    o.scope = &sc;
    agent_init(&a, "a");
    CHECK_INT(workset_from_worktree(r, wt_dir, &o, &a, &e), 0);
    /* old and new names of the rename, sorted */
    CHECK(sc.nchanged >= a.nfiles);
    for (size_t i = 1; i < sc.nchanged; i++)
        CHECK(strcmp(sc.changed[i - 1], sc.changed[i]) < 0);
    agent_release(&a);

    struct {
        const char *what;
        const char *const *touched;
        size_t n;
    } steps[] = {
        { "nothing changed", none, 0 },
        { "a file back as in the base", m, 1 },
        { "a new directory, named alone", pkg, 1 },
        { "a rename's new name removed, an edit", dst, 2 },
    };
    for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
        if (s == 1)
            fx_write(
                wt_dir, "m.txt", fx_lines(path, sizeof(path), 20, 0, NULL));
        if (s == 2)
            fx_write(wt_dir, "pkg/sub/x.c", "int x;\n");
        if (s == 3) {
            snprintf(path, sizeof(path), "%s/dir/dst.txt", wt_dir);
            unlink(path);
            fx_write(
                wt_dir, "adj.txt", "L1\nL2\nA3\nL4\nA5\nA6\nL7\nL8\nL9\nL10\n");
        }
        agent_init(&l, "a");
        agent_init(&f, "a");
        read_both(r, wt_dir, &sc, steps[s].touched, steps[s].n, &l, &f);
        files_str(&l, ls, sizeof(ls));
        files_str(&f, fs, sizeof(fs));
        if (strcmp(ls, fs))
            fprintf(stderr, "%s:\n limited %s\n", steps[s].what, ls);
        CHECK_STR(ls, fs);
        CHECK(l.nfiles > 5);
        CHECK_STR(l.tree_oid, f.tree_oid);
        agent_release(&l);
        agent_release(&f);
    }
    /* the steps did what they say */
    agent_init(&a, "a");
    workset_options_init(&o);
    CHECK_INT(workset_from_worktree(r, wt_dir, &o, &a, &e), 0);
    CHECK(find_file(&a, "m.txt") == NULL);
    CHECK(find_file(&a, "pkg/sub/x.c") != NULL);
    CHECK(find_file(&a, "dir/src.txt") &&
          find_file(&a, "dir/src.txt")->status == WS_DELETED);
    CHECK_STR(ranges_str(find_file(&a, "adj.txt")), "3-3,5-6");
    agent_release(&a);

    /* what nobody reported is not read: the limit holds */
    fx_write(wt_dir, "unreported.txt", "new\n");
    agent_init(&l, "a");
    agent_init(&f, "a");
    {
        struct workset_scope keep = {
            .limit = true, .paths = sc.changed, .npaths = sc.nchanged
        };
        o.scope = &keep;
        CHECK_INT(workset_from_worktree(r, wt_dir, &o, &l, &e), 0);
        workset_scope_release(&keep);
        o.scope = NULL;
        CHECK_INT(workset_from_worktree(r, wt_dir, &o, &f, &e), 0);
        files_str(&l, ls, sizeof(ls));
        files_str(&f, fs, sizeof(fs));
        CHECK(strcmp(ls, fs) != 0);
        CHECK(strstr(fs, "unreported.txt") && !strstr(ls, "unreported.txt"));
        /* an empty limit reads no file: only the base */
        struct workset_scope nothing = { .limit = true };
        agent_release(&l);
        agent_init(&l, "a");
        o.scope = &nothing;
        CHECK_INT(workset_from_worktree(r, wt_dir, &o, &l, &e), 0);
        CHECK_INT(l.nfiles, 0);
        CHECK_INT(nothing.nchanged, 0);
        CHECK_STR(l.base_oid, f.base_oid);
        workset_scope_release(&nothing);
    }
    snprintf(path, sizeof(path), "%s/unreported.txt", wt_dir);
    unlink(path);
    agent_release(&l);
    agent_release(&f);
    workset_scope_release(&sc);
    repo_free(r);
}

/* Whether path's entry in the captured tree tree_hex is the one in the
 * tree of commit base_hex (both absent, or the same object and mode). */
static bool
as_in_base(struct repo *r, const char *tree_hex, const char *base_hex,
    const char *path)
{
    git_oid to, bo;
    git_tree *t = NULL, *bt = NULL;
    git_commit *bc = NULL;
    git_tree_entry *te = NULL, *be = NULL;
    bool same = false;

    if (tree_hex && base_hex && git_oid_fromstr(&to, tree_hex) == 0 &&
        git_oid_fromstr(&bo, base_hex) == 0 &&
        git_tree_lookup(&t, repo_git(r), &to) == 0 &&
        git_commit_lookup(&bc, repo_git(r), &bo) == 0 &&
        git_commit_tree(&bt, bc) == 0) {
        bool ht = git_tree_entry_bypath(&te, t, path) == 0;
        bool hb = git_tree_entry_bypath(&be, bt, path) == 0;
        same = ht == hb && (!ht || (git_tree_entry_filemode(te) ==
                                           git_tree_entry_filemode(be) &&
                                       git_oid_equal(git_tree_entry_id(te),
                                           git_tree_entry_id(be))));
    }
    git_error_clear();
    git_tree_entry_free(te);
    git_tree_entry_free(be);
    git_tree_free(t);
    git_tree_free(bt);
    git_commit_free(bc);
    return same;
}

/* The agent clients' settings `airspace init` writes are nobody's work:
 * whether copied in untracked, changed where committed, committed ahead
 * or a rename's one side, they are in no working set, and the captured
 * tree keeps the base's; the work beside them is read as ever. */
static void
test_client_settings(void)
{
    static const char *const settings[] = { ".claude/settings.json",
        ".claude/settings.local.json", ".mcp.json", ".codex/hooks.json",
        ".codex/config.toml", ".gemini/settings.json" };
    static const char moved[] = "one\ntwo\nthree\nfour\nfive\nsix\n";
    static const struct {
        const char *name;
        const char *want; /* files_str() of the working set */
    } cases[] = {
        { "copied in, untracked, beside an edit", "work.txt 0 - 2-2;" },
        { "committed ones changed, and one committed ahead", "" },
        { "a file moved to a settings path", "moved.txt 2 -  whole;" },
        { "a committed setting moved to a file", "kept.json 1 -  whole;" },
    };
    char dir[600], wt[800], path[900], got[1024];
    struct repo *r = NULL;
    struct as_err e;

    fx_init("settings", dir, sizeof(dir));
    fx_write(dir, "work.txt", "a\nb\nc\n");
    fx_write(dir, "moved.txt", moved);
    fx_write(dir, ".claude/settings.json", "{\"hooks\": {}}\n");
    fx_write(dir, ".codex/config.toml", "[mcp]\n");
    fx_git(dir, "add", "-A", NULL);
    fx_commit(dir, "base");
    CHECK_INT(repo_open(dir, &r, &e), 0);
    if (!r)
        return;
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        char branch[16];
        struct agent a;

        snprintf(branch, sizeof(branch), "cfg%zu", k);
        snprintf(wt, sizeof(wt), "%s/settings-%zu", fx_root, k);
        fx_git(dir, "worktree", "add", "-q", "-b", branch, wt, NULL);
        if (k == 0) {
            fx_write(wt, "work.txt", "a\nB\nc\n");
            fx_write(wt, ".mcp.json", "{}\n");
            fx_write(wt, ".claude/settings.local.json", "{}\n");
            fx_write(wt, ".codex/hooks.json", "{}\n");
            fx_write(wt, ".gemini/settings.json", "{}\n");
        } else if (k == 1) {
            fx_write(wt, ".gemini/settings.json", "{\"a\": 1}\n");
            fx_git(wt, "add", "-A", NULL);
            fx_commit(wt, "settings ahead");
            fx_write(wt, ".claude/settings.json", "{\"hooks\": {\"x\": 1}}\n");
            fx_write(wt, ".codex/config.toml", "[mcp]\nx = 1\n");
        } else if (k == 2) {
            snprintf(path, sizeof(path), "%s/moved.txt", wt);
            unlink(path);
            fx_write(wt, ".mcp.json", moved);
        } else {
            snprintf(path, sizeof(path), "%s/.claude/settings.json", wt);
            unlink(path);
            fx_write(wt, "kept.json", "{\"hooks\": {}}\n");
        }
        agent_init(&a, "a");
        CHECK_INT(workset_from_worktree(r, wt, NULL, &a, &e), 0);
        if (strcmp(files_str(&a, got, sizeof(got)), cases[k].want))
            fprintf(stderr, "  case %s\n", cases[k].name);
        CHECK_STR(got, cases[k].want);
        for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
            bool same = as_in_base(r, a.tree_oid, a.base_oid, settings[i]);
            if (!same)
                fprintf(stderr, "  case %s: %s\n", cases[k].name, settings[i]);
            CHECK(same);
        }
        agent_release(&a);
        if (k == 1) { /* the committed work alone: none either */
            agent_init(&a, "b");
            CHECK_INT(workset_from_branch(r, branch, NULL, &a, &e), 0);
            CHECK_INT(a.nfiles, 0);
            agent_release(&a);
        }
    }
    repo_free(r);
}

/* The fields the commits ahead decide, and each file's change time, as
 * one line. */
static char *
commits_str(const struct agent *a, char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "%s ahead %u lines %u start %lld;",
        a->base_oid ? a->base_oid : "-", a->commits_ahead, a->committed_lines,
        (long long)a->started_at_ms);
    for (size_t i = 0; i < a->nfiles && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, " %s@%lld",
            a->files[i].path, (long long)a->files[i].changed_at_ms);
    return buf;
}

/* What the commits ahead say, kept from read to read, is what a read
 * without it finds: while HEAD stays, and after a new commit. */
static void
test_commits_kept(void)
{
    struct repo *r = NULL;
    struct workset_options o;
    struct workset_scope sc = { .limit = false };
    struct as_err e;
    static char kept[4096], fresh[4096];
    char buf[1024];

    CHECK_INT(repo_open(wt_dir, &r, &e), 0);
    if (!r)
        return;
    sc.commits = workset_commits_new();
    for (int step = 0; step < 4; step++) { /* 1, 3: kept */
        struct agent a, b;
        if (step == 2) { /* a new commit ahead: HEAD moved */
            fx_write(
                wt_dir, "adj.txt", fx_lines(buf, sizeof(buf), 10, 7, "K7"));
            fx_git(wt_dir, "add", "adj.txt", NULL);
            fx_commit(wt_dir, "kept");
        }
        agent_init(&a, "a");
        agent_init(&b, "a");
        workset_options_init(&o);
        o.now_ms = NOW_MS;
        o.scope = &sc;
        CHECK_INT(workset_from_worktree(r, wt_dir, &o, &a, &e), 0);
        o.scope = NULL;
        CHECK_INT(workset_from_worktree(r, wt_dir, &o, &b, &e), 0);
        commits_str(&a, kept, sizeof(kept));
        commits_str(&b, fresh, sizeof(fresh));
        CHECK_STR(kept, fresh);
        CHECK_INT(a.commits_ahead, step >= 2 ? 2 : 1);
        CHECK(a.started_at_ms > 0);
        workset_scope_release(&sc);
        agent_release(&a);
        agent_release(&b);
    }
    workset_commits_free(sc.commits);
    repo_free(r);
}

int
main(void)
{
    fx_setup();
    build();
    TEST_RUN("worktree working set", test_worktree_files);
    TEST_RUN("branch working set", test_branch);
    TEST_RUN("clean main worktree", test_main_clean);
    TEST_RUN("work tree captured in memory", test_tree_oid);
    TEST_RUN("work tree of any shape is git's", test_tree_shapes);
    TEST_RUN("start time survives a re-save", test_start_stable);
    TEST_RUN("a limited read is the whole read", test_limited_read);
    TEST_RUN("what the commits ahead say, kept", test_commits_kept);
    TEST_RUN("the clients' settings are no one's work", test_client_settings);
    fx_teardown();
    return test_done();
}

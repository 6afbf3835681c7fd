/* test_git_history.c - a side's working sets from its base, commit after
 * commit: the diff found from the previous commit's (history_raw kept
 * from one call to the next) equals the diff made afresh, through adds,
 * edits, a rename, a file made a directory and back, a symbolic link, a
 * file put back as the base had it, and a commit equal to the base. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "git/history.h"
#include "git/merge.h"
#include "git/repo.h"
#include "test.h"
#include "test_git_fixture.h"

static char repo_dir[600];

/* A fresh repository at fx_root/name on branch main; repo_dir names it. */
static void
new_repo(const char *name)
{
    fx_setup();
    snprintf(repo_dir, sizeof(repo_dir), "%s/%s", fx_root, name);
    fx_git(fx_root, "init", "-q", "-b", "main", repo_dir, NULL);
}

/* Everything in repo_dir committed; tagged tag when not NULL. */
static void
commit_all(const char *msg, const char *tag)
{
    fx_git(repo_dir, "add", "-A", NULL);
    fx_commit(repo_dir, msg);
    if (tag)
        fx_git(repo_dir, "tag", tag, NULL);
}

/* The id rev names in repo_dir, hex. */
static void
rev_of(const char *rev, char out[41])
{
    char buf[128] = "";
    char *argv[] = { "git", "rev-parse", (char *)rev, NULL };
    fx_runv(repo_dir, argv, buf, sizeof(buf));
    snprintf(out, 41, "%.40s", buf);
}

static void
tree_of(const char *rev, char out[41])
{
    char spec[64];
    snprintf(spec, sizeof(spec), "%s^{tree}", rev);
    rev_of(spec, out);
}

/* The working set and raw deltas as one line each. */
static void
render(
    const struct agent *a, const struct history_raw *raw, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < a->nfiles && len < cap; i++) {
        const struct ws_file *f = &a->files[i];
        len += (size_t)snprintf(out + len, cap - len, "%s:%d:%s:", f->path,
            (int)f->status, f->new_path ? f->new_path : "");
        for (size_t k = 0; k < f->ranges.n && len < cap; k++)
            len += (size_t)snprintf(out + len, cap - len, "%u-%u,",
                f->ranges.v[k].start, f->ranges.v[k].end);
        len += (size_t)snprintf(out + len, cap - len, " ");
    }
    len += (size_t)snprintf(out + len, cap - len, "|");
    for (size_t i = 0; i < raw->n && len < cap; i++)
        len += (size_t)snprintf(
            out + len, cap - len, "%s=%s ", raw->v[i].path, raw->v[i].key);
}

static void
test_incremental(void)
{
    new_repo("repo");
    fx_write(repo_dir, "a.c", "one\ntwo\nthree\nfour\nfive\n");
    fx_write(repo_dir, "lib/b.c", "b1\nb2\nb3\n");
    fx_write(repo_dir, "lib/deep/c.c", "c1\nc2\n");
    fx_write(repo_dir, "thing", "a file\n");
    fx_write(repo_dir, "moved.txt",
        "a long enough text\nthat a rename\nis found by similarity\n"
        "line four\nline five\nline six\n");
    commit_all("base", "base");
    /* the side, one commit at a time */
    const char *steps[][3] = {
        { "write", "a.c", "one\nTWO\nthree\nfour\nfive\n" },
        { "write", "new.c", "new\n" },
        { "write", "lib/deep/c.c", "c1\nC2\nc3\n" },
        { "mv", "moved.txt", "elsewhere/moved.txt" },
        { "rm", "thing", NULL },
        { "write", "thing/inside.c", "now a directory\n" },
        { "write", "a.c", "one\ntwo\nthree\nfour\nfive\n" }, /* as base */
        { "link", "lnk", "a.c" },
        { "rm", "thing/inside.c", NULL },
        { "write", "thing", "a file\n" }, /* back to base's file */
        { "write", "lib/b.c", "b1\nb2\nb3\nb4\n" },
    };
    size_t nsteps = sizeof(steps) / sizeof(*steps);
    char base[41];
    tree_of("base", base);
    struct repo *r = NULL;
    struct as_err e;
    CHECK_INT(repo_open(repo_dir, &r, &e), 0);
    if (!r)
        return;
    struct history_cache *c1 = history_cache_new(), *c2 = history_cache_new();
    struct history_raw kept;
    history_raw_init(&kept);
    struct agent prev1, prev2;
    agent_init(&prev1, "side");
    agent_init(&prev2, "side");
    for (size_t i = 0; i < nsteps; i++) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", repo_dir, steps[i][1]);
        if (!strcmp(steps[i][0], "write")) {
            fx_write(repo_dir, steps[i][1], steps[i][2]);
        } else if (!strcmp(steps[i][0], "rm")) {
            fx_git(repo_dir, "rm", "-q", steps[i][1], NULL);
        } else if (!strcmp(steps[i][0], "mv")) {
            char dst[1024];
            snprintf(dst, sizeof(dst), "%s/elsewhere", repo_dir);
            mkdir(dst, 0755);
            fx_git(repo_dir, "mv", steps[i][1], steps[i][2], NULL);
        } else {
            CHECK_INT(symlink(steps[i][2], path), 0);
        }
        commit_all("step", NULL);
        char tree[41];
        tree_of("HEAD", tree);
        /* incremental: kept from the previous call; afresh: a new raw */
        struct agent a1, a2;
        struct history_raw fresh;
        history_raw_init(&fresh);
        agent_init(&a1, "side");
        agent_init(&a2, "side");
        int64_t now = 1000 * (int64_t)(i + 1);
        CHECK_INT(
            history_workset_raw(r, base, tree, &prev1, now, c1, &a1, &kept, &e),
            0);
        CHECK_INT(history_workset_raw(
                      r, base, tree, &prev2, now, c2, &a2, &fresh, &e),
            0);
        char x[8192], y[8192];
        render(&a1, &kept, x, sizeof(x));
        render(&a2, &fresh, y, sizeof(y));
        CHECK_STR(x, y);
        CHECK_INT(a1.nfiles, a2.nfiles);
        for (size_t k = 0; k < a1.nfiles && k < a2.nfiles; k++)
            CHECK_INT(a1.files[k].changed_at_ms, a2.files[k].changed_at_ms);
        history_raw_release(&fresh);
        agent_release(&prev1);
        agent_release(&prev2);
        prev1 = a1;
        prev2 = a2;
    }
    /* the last state: a rename, an edit, the symbolic link, new.c */
    char last[8192];
    render(&prev1, &kept, last, sizeof(last));
    CHECK(strstr(last, "elsewhere/moved.txt") != NULL);
    CHECK(strstr(last, "lnk") != NULL);
    CHECK(strstr(last, "new.c") != NULL);
    CHECK(strstr(last, "a.c:") == NULL);   /* back as the base had it */
    CHECK(strstr(last, "thing:") == NULL); /* and back to its file */
    /* a previous tree that is gone: the diff is made from the base */
    {
        char tip0[41];
        tree_of("HEAD", tip0);
        snprintf(kept.tree, sizeof(kept.tree), "%s",
            "0123456789abcdef0123456789abcdef01234567");
        struct agent a4;
        agent_init(&a4, "side");
        CHECK_INT(
            history_workset_raw(r, base, tip0, NULL, 0, c1, &a4, &kept, &e), 0);
        CHECK_INT(a4.nfiles, prev1.nfiles);
        CHECK_STR(kept.tree, tip0);
        agent_release(&a4);
    }
    /* the base itself: nothing, and the next diff still right */
    struct agent a3;
    agent_init(&a3, "side");
    CHECK_INT(
        history_workset_raw(r, base, base, NULL, 0, c1, &a3, &kept, &e), 0);
    CHECK_INT(a3.nfiles, 0);
    CHECK_INT(kept.n, 0);
    agent_release(&a3);
    char tip[41];
    tree_of("HEAD", tip);
    agent_init(&a3, "side");
    CHECK_INT(
        history_workset_raw(r, base, tip, NULL, 0, c1, &a3, &kept, &e), 0);
    CHECK_INT(a3.nfiles, prev1.nfiles);
    agent_release(&a3);
    agent_release(&prev1);
    agent_release(&prev2);
    history_raw_release(&kept);
    history_cache_free(c1);
    history_cache_free(c2);
    repo_free(r);
}

/* A side forked before B: each commit replayed onto B from its parent's
 * replayed tree where it only modifies files B's line left alone or adds
 * files while the side has deleted none, the same tree as the merge
 * makes; not where B's line changed the file too, nor an addition after
 * the side deleted a file. */
static void
test_own_tree_step(void)
{
    new_repo("own");
    fx_write(repo_dir, "a.c", "a1\na2\na3\n");
    fx_write(repo_dir, "c.c", "c1\nc2\n");
    fx_write(repo_dir, "doomed.txt",
        "a text long enough\nto be taken for\nthe source of a rename\n");
    fx_write(repo_dir, "shared.c", "s1\ns2\ns3\ns4\ns5\n");
    fx_write(repo_dir, "old.txt",
        "a text long enough\nfor rename detection\nto pair it\nline 4\n");
    commit_all("fork", "fork");
    /* B's line: edits shared.c and doomed.txt, renames old.txt, adds a
     * file */
    fx_write(repo_dir, "shared.c", "S1\ns2\ns3\ns4\ns5\n");
    fx_git(repo_dir, "mv", "old.txt", "new.txt", NULL);
    fx_write(repo_dir, "b.c", "b\n");
    fx_write(repo_dir, "doomed.txt",
        "A text long enough\nto be taken for\nthe source of a rename\n");
    commit_all("B", "B");
    /* the side, from the fork */
    fx_git(repo_dir, "checkout", "-q", "-b", "side", "fork", NULL);
    const char *edits[][2] = {
        { "a.c", "a1\nA2\na3\n" },              /* 1 */
        { "a.c", "a1\nA2\nA3\n" },              /* 2: a.c alone: a step */
        { "shared.c", "s1\ns2\ns3\ns4\nS5\n" }, /* 3: B changed it */
        { "side.c", "new\n" },                  /* 4: added, nothing deleted */
        { "a.c", "a0\na1\nA2\nA3\n" },          /* 5: a.c alone again */
        { "side.c", "new\nnewer\n" },           /* 6: its own addition */
        { "doomed.txt", NULL },                 /* 7: a deletion */
        /* 8: its addition again, but the side deleted a file since */
        { "side.c", "a text long enough\nto be taken for\nthe target\n" },
        { "c.c", "c1\nC2\n" },  /* 9: a modification all the same */
        { "more.c", "more\n" }, /* 10: an addition after a deletion */
    };
    const int want_step[] = { -1, 0, 1, 0, 0, 0, 1, 1, 0, 1 };
    char base[41], fork[41];
    rev_of("B", base);
    rev_of("fork", fork);
    struct repo *r = NULL;
    struct as_err e;
    char prev_tree[41] = "", prev_own[41] = "";
    for (size_t i = 0; i < sizeof(edits) / sizeof(*edits); i++) {
        if (edits[i][1])
            fx_write(repo_dir, edits[i][0], edits[i][1]);
        else
            fx_git(repo_dir, "rm", "-q", edits[i][0], NULL);
        commit_all("side", NULL);
        if (!r)
            CHECK_INT(repo_open(repo_dir, &r, &e), 0);
        if (!r)
            return;
        char commit[41], tree[41], whole[41], step[41];
        size_t nconf;
        rev_of("HEAD", commit);
        tree_of("HEAD", tree);
        CHECK_INT(
            history_own_tree(r, base, commit, fork, whole, &nconf, &e), 0);
        if (want_step[i] >= 0) {
            int rc = history_own_tree_step(
                r, base, fork, prev_tree, prev_own, commit, step, &e);
            CHECK_INT(rc, want_step[i]);
            if (rc == 0)
                CHECK_STR(step, whole);
        }
        snprintf(prev_tree, sizeof(prev_tree), "%s", tree);
        snprintf(prev_own, sizeof(prev_own), "%s", whole);
    }
    repo_free(r);
}

/* The reference for a replayed commit: libgit2's merge of the whole
 * trees of fork, B and the commit, each conflict settled with the
 * commit's entry; its tree id and the number of conflicted paths. */
static void
whole_merge(struct repo *r, const char *fork, const char *base,
    const char *commit, char out[41], size_t *nconf)
{
    git_repository *g = repo_git(r);
    const char *rev[3] = { fork, base, commit };
    git_tree *t[3] = { NULL, NULL, NULL };
    for (int k = 0; k < 3; k++) {
        git_oid id;
        git_commit *c = NULL;
        CHECK(git_oid_fromstr(&id, rev[k]) == 0 &&
              git_commit_lookup(&c, g, &id) == 0 &&
              git_commit_tree(&t[k], c) == 0);
        git_commit_free(c);
    }
    git_index *idx = NULL, *res = NULL;
    struct as_err e;
    CHECK_INT(merge_trees_as_git(g, t[0], t[1], t[2], &idx, &e), 0);
    CHECK(git_index_new(&res) == 0);
    *nconf = 0;
    const char *last = "";
    for (size_t i = 0; idx && i < git_index_entrycount(idx); i++) {
        const git_index_entry *ie = git_index_get_byindex(idx, i);
        int stage = git_index_entry_stage(ie);
        if (stage && strcmp(ie->path, last))
            (*nconf)++; /* entries are sorted by path, then stage */
        if (stage)
            last = ie->path;
        if (stage != 0 && stage != 3)
            continue;
        git_index_entry copy = *ie;
        copy.flags &= (uint16_t)~GIT_INDEX_ENTRY_STAGEMASK;
        CHECK(git_index_add(res, &copy) == 0);
    }
    git_oid tid;
    CHECK(git_index_write_tree_to(&tid, res, g) == 0);
    git_oid_tostr(out, 41, &tid);
    git_index_free(res);
    git_index_free(idx);
    for (int k = 0; k < 3; k++)
        git_tree_free(t[k]);
}

/* A side commit replayed onto B path by path (no path deleted, regular
 * files only) gives the tree and conflicts of libgit2's merge of the
 * whole trees: both sides' edits of one file merged, a new mode, the same
 * lines edited (a conflict: the commit's), an addition, a path whose
 * attributes name the binary merge driver (merged whole), and the side's
 * rename of a file B edited (a deletion: merged whole, B's edit follows
 * the rename). */
static void
test_own_tree_by_path(void)
{
    new_repo("bypath");
    fx_write(repo_dir, "m.c", "m1\nm2\nm3\nm4\nm5\nm6\n");
    fx_write(repo_dir, "x.c", "x1\nx2\nx3\n");
    fx_write(repo_dir, "bin.dat", "b1\nb2\nb3\nb4\nb5\nb6\n");
    fx_write(repo_dir, "mine.txt",
        "another text long enough\nfor rename detection\nto pair\nline 4\n");
    fx_write(repo_dir, ".gitattributes", "bin.dat merge=binary\n");
    commit_all("fork", "fork");
    /* B's line edits the top of m.c and bin.dat, x.c's middle, mine.txt */
    fx_write(repo_dir, "m.c", "M1\nm2\nm3\nm4\nm5\nm6\n");
    fx_write(repo_dir, "x.c", "x1\nX2\nx3\n");
    fx_write(repo_dir, "bin.dat", "B1\nb2\nb3\nb4\nb5\nb6\n");
    fx_write(repo_dir, "mine.txt",
        "Another text long enough\nfor rename detection\nto pair\nline 4\n");
    commit_all("B", "B");
    fx_git(repo_dir, "checkout", "-q", "-b", "side", "fork", NULL);
    const char *edits[][2] = {
        { "m.c", "m1\nm2\nm3\nm4\nm5\nM6\n" },     /* merges with B's */
        { "m.c", NULL },                           /* made executable */
        { "x.c", "x1\nside\nx3\n" },               /* B's lines: conflict */
        { "added.c", "new\n" },                    /* an addition */
        { "bin.dat", "b1\nb2\nb3\nb4\nb5\nB6\n" }, /* binary driver */
        { "mine.txt", NULL },                      /* renamed */
    };
    char base[41], fork[41];
    rev_of("B", base);
    rev_of("fork", fork);
    struct repo *r = NULL;
    struct as_err e;
    for (size_t i = 0; i < sizeof(edits) / sizeof(*edits); i++) {
        if (edits[i][1])
            fx_write(repo_dir, edits[i][0], edits[i][1]);
        else if (!strcmp(edits[i][0], "m.c"))
            fx_git(repo_dir, "update-index", "--chmod=+x", "m.c", NULL);
        else
            fx_git(repo_dir, "mv", edits[i][0], "yours.txt", NULL);
        if (edits[i][1])
            commit_all("side", NULL);
        else /* staged already; add -A would undo the new mode */
            fx_commit(repo_dir, "side");
        if (!r)
            CHECK_INT(repo_open(repo_dir, &r, &e), 0);
        if (!r)
            return;
        char commit[41], got[41], want[41];
        size_t nconf = 99, want_conf = 98;
        rev_of("HEAD", commit);
        CHECK_INT(history_own_tree(r, base, commit, fork, got, &nconf, &e), 0);
        whole_merge(r, fork, base, commit, want, &want_conf);
        if (strcmp(got, want) || nconf != want_conf)
            fprintf(stderr, "  commit %zu: %s (%zu conflicts), want %s (%zu)\n",
                i, got, nconf, want, want_conf);
        CHECK_STR(got, want);
        CHECK_INT(nconf, want_conf);
    }
    repo_free(r);
}

int
main(void)
{
    TEST_RUN("a side's diffs from the previous commit's", test_incremental);
    TEST_RUN("a replayed commit from its parent's", test_own_tree_step);
    TEST_RUN("a replayed commit merged path by path", test_own_tree_by_path);
    return test_done();
}

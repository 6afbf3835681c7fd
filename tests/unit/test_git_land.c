/*
 * test_git_land.c - landing a branch (git/land.h) in real repositories:
 * the plan (fast-forward, merge, conflicts, up to date), and the
 * compare-and-swap against a target that moves just before the swap: a
 * clean move is merged over, a conflicting one refused with nothing
 * landed.
 */
#include "test.h"
#include "test_git_fixture.h"

#include <git2.h>

#include "git/land.h"
#include "util/error.h"

static const char *
git_out(const char *dir, char *out, size_t cap, const char *a, const char *b)
{
    char *argv[] = { "git", (char *)a, (char *)b, NULL };
    if (fx_runv(dir, argv, out, cap) != 0)
        out[0] = '\0';
    size_t len = strlen(out);
    while (len && out[len - 1] == '\n')
        out[--len] = '\0';
    return out;
}

/*
 * A repository: main at "base" (a.txt), branch other one commit on it
 * (other_file gets "other"), branch feature one commit on it (feature_file
 * gets "feature"); HEAD detached, so nothing has main checked out.
 */
static void
land_repo(char *dir, size_t cap, const char *name, const char *other_file,
    const char *feature_file)
{
    fx_init(name, dir, cap);
    fx_write(dir, "a.txt", "a\n");
    fx_git(dir, "add", "-A", NULL);
    fx_commit(dir, "base");
    fx_git(dir, "checkout", "-qb", "other", NULL);
    fx_write(dir, other_file, "other\n");
    fx_git(dir, "add", "-A", NULL);
    fx_commit(dir, "other");
    fx_git(dir, "checkout", "-qb", "feature", "main", NULL);
    fx_write(dir, feature_file, "feature\n");
    fx_git(dir, "add", "-A", NULL);
    fx_commit(dir, "feature");
    fx_git(dir, "checkout", "-q", "--detach", NULL);
}

/* Before the first swap, main moves to other. */
static void
move_main(void *ctx, unsigned attempt)
{
    if (attempt == 0)
        fx_git(
            (const char *)ctx, "update-ref", "refs/heads/main", "other", NULL);
}

static const struct {
    const char *name, *other_file, *feature_file;
    bool conflict;
} race_cases[] = {
    { "main moved cleanly: the fast-forward becomes a merge", "o.txt", "f.txt",
        false },
    { "main moved into a conflict: refused", "a.txt", "a.txt", true },
};

static void
test_races(void)
{
    for (size_t i = 0; i < sizeof(race_cases) / sizeof(race_cases[0]); i++) {
        TEST_BEGIN(race_cases[i].name);
        char dir[600], name[32], out[128], other[64], feature[64];
        snprintf(name, sizeof(name), "race%zu", i);
        land_repo(dir, sizeof(dir), name, race_cases[i].other_file,
            race_cases[i].feature_file);
        git_out(dir, other, sizeof(other), "rev-parse", "other");
        git_out(dir, feature, sizeof(feature), "rev-parse", "feature");
        struct land_plan p;
        struct land_result res;
        struct as_err e = { "" };
        CHECK_INT(land_prepare(dir, "feature", "main", &p, &e), 0);
        CHECK(p.fast_forward);
        CHECK_INT((int)p.nfiles, 1);
        CHECK(p.worktree == NULL);
        struct land_options o;
        memset(&o, 0, sizeof(o));
        o.before_update = move_main;
        o.hook_ctx = dir;
        int rc = land_apply(dir, &p, &o, &res, &e);
        git_out(dir, out, sizeof(out), "rev-parse", "main");
        if (race_cases[i].conflict) {
            CHECK_INT(rc, AS_ECONFLICT);
            CHECK(strstr(e.msg, "conflicts in 1 path: a.txt") != NULL);
            CHECK_STR(out, other); /* nothing of ours landed */
        } else {
            CHECK_INT(rc, 0);
            CHECK_INT((int)res.retries, 1);
            CHECK(!res.fast_forward);
            CHECK_STR(res.commit, out);
            CHECK_STR(res.parent, other);
            CHECK_STR(
                git_out(dir, out, sizeof(out), "rev-parse", "main^1"), other);
            CHECK_STR(
                git_out(dir, out, sizeof(out), "rev-parse", "main^2"), feature);
            CHECK_STR(git_out(dir, out, sizeof(out), "show", "main:f.txt"),
                "feature");
            CHECK_STR(
                git_out(dir, out, sizeof(out), "show", "main:o.txt"), "other");
            CHECK_INT((int)res.nfiles, 1);
            if (res.nfiles)
                CHECK_STR(res.files[0].path, "f.txt");
        }
        land_result_release(&res);
        land_plan_release(&p);
        TEST_END();
    }
}

static void
test_plan(void)
{
    char dir[600];
    land_repo(dir, sizeof(dir), "plan", "a.txt", "a.txt");
    struct land_plan p;
    struct as_err e = { "" };
    CHECK_INT(land_prepare(dir, "feature", "other", &p, &e), 0);
    CHECK(!p.fast_forward && !p.up_to_date);
    CHECK_INT((int)p.nconflicts, 1);
    if (p.nconflicts)
        CHECK_STR(p.conflicts[0], "a.txt");
    land_plan_release(&p);
    CHECK_INT(land_prepare(dir, "main", "feature", &p, &e), 0);
    CHECK(p.up_to_date);
    CHECK_INT((int)p.nfiles, 0);
    land_plan_release(&p);
    CHECK_INT(land_prepare(dir, "nope", "main", &p, &e), AS_ENOENT);
    CHECK(strstr(e.msg, "no branch 'nope'") != NULL);
    CHECK_INT(land_prepare(dir, "main", "main", &p, &e), AS_EINVAL);
}

int
main(void)
{
    fx_setup();
    test_races();
    TEST_RUN("the plan: conflicts, up to date, bad branches", test_plan);
    fx_teardown();
    return test_done();
}

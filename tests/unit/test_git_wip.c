/*
 * test_git_wip.c - work in progress shared through git (git/wip.h): ref
 * names, and a snapshot of uncommitted work pushed to a bare remote as a
 * commit on its base (its objects written to the object directory, the
 * work tree untouched) and fetched into another clone.
 */
#include "test.h"
#include "test_git_fixture.h"

#include <git2.h>

#include "core/workset.h"
#include "git/repo.h"
#include "git/wip.h"
#include "git/workset.h"
#include "util/error.h"

#define NOW_MS 1800000000000LL

static void
test_names(void)
{
    char *ref = wip_ref_name("host:/a b/.git", "alice.x");
    CHECK(!strncmp(ref, "refs/airspace/wip/host__a_b__git-", 33));
    CHECK(strlen(ref) > 7 && !strcmp(ref + strlen(ref) - 8, "/alice_x"));
    CHECK(wip_ref_ok(ref));
    int valid = 0;
    CHECK_INT(git_reference_name_is_valid(&valid, ref), 0);
    CHECK(valid);
    char *other = wip_ref_name("host:/a_b/.git", "alice.x");
    CHECK(strcmp(ref, other)); /* the node's hash tells them apart */
    free(other);
    free(ref);
    CHECK(!wip_ref_ok(NULL));
    CHECK(!wip_ref_ok("refs/heads/main"));
    CHECK(!wip_ref_ok("refs/airspace/wip/node"));
    CHECK(!wip_ref_ok("refs/airspace/wip/a/b/c"));
    CHECK(!wip_ref_ok("refs/airspace/wip/../x"));
    CHECK(!wip_ref_ok("refs/airspace/wip/a/b c"));
    CHECK(!wip_ref_ok("refs/airspace/wip//b"));
    CHECK(!wip_ref_ok("refs/airspace/wip/a/"));
    CHECK(wip_ref_ok("refs/airspace/wip/n-1/a_b"));
}

static void
test_push_fetch(void)
{
    char a_dir[600], bare[600], b_dir[600], buf[1024], out[256];
    fx_init("a", a_dir, sizeof(a_dir));
    fx_write(a_dir, "f.txt", fx_lines(buf, sizeof(buf), 10, 0, NULL));
    fx_git(a_dir, "add", "f.txt", NULL);
    fx_commit(a_dir, "base");
    snprintf(bare, sizeof(bare), "%s/r.git", fx_root);
    snprintf(b_dir, sizeof(b_dir), "%s/b", fx_root);
    fx_git(fx_root, "init", "-q", "--bare", bare, NULL);
    fx_git(a_dir, "push", "-q", bare, "main", NULL);
    fx_git(fx_root, "clone", "-q", bare, b_dir, NULL);
    fx_write(a_dir, "f.txt", fx_lines(buf, sizeof(buf), 10, 5, "mine"));

    struct repo *ra = NULL, *rb = NULL;
    struct as_err e;
    struct agent ag;
    struct workset_options o;
    CHECK_INT(repo_open(a_dir, &ra, &e), 0);
    CHECK_INT(repo_open(b_dir, &rb, &e), 0);
    if (!ra || !rb)
        goto out_repos;
    workset_options_init(&o);
    o.now_ms = NOW_MS;
    agent_init(&ag, "alice");
    CHECK_INT(workset_from_worktree(ra, a_dir, &o, &ag, &e), 0);
    if (!ag.tree_oid || !ag.base_oid)
        goto out;
    char *cat[] = { "git", "cat-file", "-e", ag.tree_oid, NULL };
    CHECK(fx_runv(a_dir, cat, NULL, 0) != 0); /* in memory only */

    char *ref = wip_ref_name("node-a", "alice");
    char commit[41] = "";
    CHECK_INT(
        wip_push(ra, bare, ref, ag.base_oid, ag.tree_oid, NOW_MS, commit, &e),
        0);
    CHECK(fx_runv(a_dir, cat, NULL, 0) == 0); /* on disk now */
    char spec[700];
    snprintf(spec, sizeof(spec), "%s:f.txt", ref);
    char *show[] = { "git", "show", spec, NULL };
    CHECK_INT(fx_runv(bare, show, out, sizeof(out)), 0);
    CHECK(strstr(out, "mine") != NULL);
    snprintf(spec, sizeof(spec), "%s^", ref);
    char *parent[] = { "git", "rev-parse", spec, NULL };
    CHECK_INT(fx_runv(bare, parent, out, sizeof(out)), 0);
    CHECK(!strncmp(out, ag.base_oid, 40));
    char *st[] = { "git", "status", "--porcelain", NULL };
    CHECK_INT(fx_runv(a_dir, st, out, sizeof(out)), 0);
    CHECK_STR(out, " M f.txt\n"); /* the index was not touched */

    CHECK(!wip_have(rb, ag.tree_oid));
    CHECK_INT(wip_fetch(rb, "origin", ref, &e), 0);
    CHECK(wip_have(rb, ag.tree_oid));
    CHECK(wip_have(rb, ag.base_oid));

    /* failures: a remote that is not there, a ref that is not ours */
    snprintf(spec, sizeof(spec), "%s/gone.git", fx_root);
    CHECK_INT(
        wip_push(ra, spec, ref, ag.base_oid, ag.tree_oid, NOW_MS, commit, &e),
        AS_EGIT);
    CHECK(strstr(e.msg, "cannot push") != NULL);
    CHECK_INT(wip_fetch(rb, "origin", "refs/heads/main", &e), AS_EINVAL);
    CHECK_INT(wip_push(ra, bare, ref, "abc", ag.tree_oid, NOW_MS, commit, &e),
        AS_EINVAL);

    /* withdrawn: the remote's ref and ours go, the other clone's copy
     * when it forgets it; an unreachable remote keeps ours */
    char *verify[] = { "git", "rev-parse", "-q", "--verify", ref, NULL };
    CHECK_INT(fx_runv(b_dir, verify, out, sizeof(out)), 0); /* fetched */
    snprintf(spec, sizeof(spec), "%s/gone.git", fx_root);
    CHECK_INT(wip_drop(ra, spec, ref, &e), AS_EGIT);
    CHECK_INT(fx_runv(a_dir, verify, out, sizeof(out)), 0);
    CHECK_INT(wip_drop(ra, bare, ref, &e), 0);
    CHECK(fx_runv(bare, verify, out, sizeof(out)) != 0);
    CHECK(fx_runv(a_dir, verify, out, sizeof(out)) != 0);
    CHECK_INT(wip_drop(ra, bare, ref, &e), 0); /* gone already: no error */
    CHECK_INT(fx_runv(b_dir, verify, out, sizeof(out)), 0);
    CHECK_INT(wip_forget(rb, ref, &e), 0);
    CHECK(fx_runv(b_dir, verify, out, sizeof(out)) != 0);
    CHECK_INT(wip_forget(rb, ref, &e), 0);
    CHECK_INT(wip_forget(rb, "refs/heads/main", &e), AS_EINVAL);
    CHECK_INT(wip_drop(ra, bare, "refs/heads/main", &e), AS_EINVAL);
    free(ref);
out:
    agent_release(&ag);
out_repos:
    repo_free(ra);
    repo_free(rb);
}

int
main(void)
{
    fx_setup();
    TEST_RUN("push and fetch a snapshot", test_push_fetch);
    TEST_RUN("ref names", test_names);
    fx_teardown();
    return test_done();
}

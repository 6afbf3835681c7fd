/* test_dirrename.c - directory renames as git's merge-ort applies them. The
 * expected answers are git 2.39's `git merge-tree --write-tree` on the same
 * histories (base: d/a.txt, d/b.txt, d/sub/s.txt, top.txt). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dirrename.h"
#include "test.h"

struct dr_case {
    const char *name;
    struct dirrename_pair renames[4];
    size_t nrenames;
    const char *removed[4];
    size_t nremoved;
    const char *added[3];
    size_t nadded;
    const char *moved[3];
    size_t nmoved;
    bool split;
};

static const struct dr_case cases[] = {
    { "d -> e, other adds d/c.txt: file location e/c.txt",
        { { "d/a.txt", "e/a.txt" }, { "d/b.txt", "e/b.txt" },
            { "d/sub/s.txt", "e/sub/s.txt" } },
        3, { "d", "d/sub" }, 2, { "d/c.txt" }, 1, { "e/c.txt" }, 1, false },
    { "nested: other adds d/sub/n.txt -> e/sub/n.txt",
        { { "d/a.txt", "e/a.txt" }, { "d/b.txt", "e/b.txt" },
            { "d/sub/s.txt", "e/sub/s.txt" } },
        3, { "d", "d/sub" }, 2, { "d/sub/n.txt" }, 1, { "e/sub/n.txt" }, 1,
        false },
    { "three ways, one file each: split, no path",
        { { "d/a.txt", "e/a.txt" }, { "d/b.txt", "f/b.txt" },
            { "d/sub/s.txt", "g/sub/s.txt" } },
        3, { "d", "d/sub" }, 2, { "d/c.txt" }, 1, { NULL }, 0, true },
    { "a directory deleted, none renamed out: nothing",
        { { "top.txt", "top2.txt" } }, 1, { "d", "d/sub" }, 2, { "d/c.txt" }, 1,
        { NULL }, 0, false },
    { "partial: d still there (not removed): nothing",
        { { "d/a.txt", "e/a.txt" } }, 1, { NULL }, 0, { "d/c.txt" }, 1,
        { NULL }, 0, false },
    { "majority e (2) over f (1)",
        { { "d/a.txt", "e/a.txt" }, { "d/b.txt", "e/b.txt" },
            { "d/sub/s.txt", "f/sub/s.txt" } },
        3, { "d", "d/sub" }, 2, { "d/c.txt" }, 1, { "e/c.txt" }, 1, false },
    { "d/sub -> e (last components differ: no vote for d)",
        { { "d/sub/s.txt", "e/s.txt" } }, 1, { "d/sub" }, 1, { "d/sub/n.txt" },
        1, { "e/n.txt" }, 1, false },
    { "d -> e/d: new location e/d/c.txt",
        { { "d/a.txt", "e/d/a.txt" }, { "d/b.txt", "e/d/b.txt" },
            { "d/sub/s.txt", "e/d/sub/s.txt" } },
        3, { "d", "d/sub" }, 2, { "d/c.txt" }, 1, { "e/d/c.txt" }, 1, false },
    { "most deleted, one renamed out: renamed", { { "d/a.txt", "e/a.txt" } }, 1,
        { "d", "d/sub" }, 2, { "d/c.txt" }, 1, { "e/c.txt" }, 1, false },
    { "an added path outside the renamed directory: nothing",
        { { "d/a.txt", "e/a.txt" }, { "d/b.txt", "e/b.txt" } }, 2, { "d" }, 1,
        { "x/c.txt", "top3.txt" }, 2, { NULL }, 0, false },
    { "a rename within d: not a directory rename",
        { { "d/a.txt", "d/a2.txt" } }, 1, { "d" }, 1, { "d/c.txt" }, 1,
        { NULL }, 0, false },
    { "two added paths, sorted", { { "d/a.txt", "e/a.txt" } }, 1, { "d" }, 1,
        { "d/z.txt", "d/c.txt" }, 2, { "e/c.txt", "e/z.txt" }, 2, false },
};

static void
test_cases(void)
{
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const struct dr_case *c = &cases[k];
        struct dirrename_result r;
        TEST_BEGIN(c->name);
        dirrename_apply(c->renames, c->nrenames, c->removed, c->nremoved,
            c->added, c->nadded, &r);
        CHECK_INT(r.nmoved, c->nmoved);
        for (size_t i = 0; i < r.nmoved && i < c->nmoved; i++)
            CHECK_STR(r.moved[i], c->moved[i]);
        CHECK_INT(r.split, c->split);
        CHECK_INT(dirrename_conflicted(&r), c->nmoved > 0 || c->split);
        dirrename_result_release(&r);
        TEST_END();
    }
}

int
main(void)
{
    test_cases();
    return test_done();
}

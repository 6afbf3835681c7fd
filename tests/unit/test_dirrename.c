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
    const char *self[3], *below[3]; /* the removed directories taking part */
    size_t nself, nbelow;
    const char *added[3];
    size_t nadded;
    const char *moved[3];
    size_t nmoved;
    bool split, collision;
    const char *exclude[2]; /* directories the other side renamed */
    size_t nexclude;
};

#define D_ALL                                                                  \
    { { "d/a.txt", "e/a.txt" }, { "d/b.txt", "e/b.txt" },                      \
        { "d/sub/s.txt", "e/sub/s.txt" } },                                    \
        3

static const struct dr_case cases[] = {
    { "d -> e, other adds d/c.txt: file location e/c.txt", D_ALL, { "d" },
        { "d/sub" }, 1, 1, { "d/c.txt" }, 1, { "e/c.txt" }, 1, false, false,
        { NULL }, 0 },
    { "nested: other adds d/sub/n.txt -> e/sub/n.txt", D_ALL, { "d/sub" },
        { NULL }, 1, 0, { "d/sub/n.txt" }, 1, { "e/sub/n.txt" }, 1, false,
        false, { NULL }, 0 },
    { "three ways, one file each: split, no path",
        { { "d/a.txt", "e/a.txt" }, { "d/b.txt", "f/b.txt" },
            { "d/sub/s.txt", "g/sub/s.txt" } },
        3, { "d" }, { "d/sub" }, 1, 1, { "d/c.txt" }, 1, { NULL }, 0, true,
        false, { NULL }, 0 },
    { "a directory deleted, none renamed out: nothing",
        { { "top.txt", "top2.txt" } }, 1, { "d" }, { "d/sub" }, 1, 1,
        { "d/c.txt" }, 1, { NULL }, 0, false, false, { NULL }, 0 },
    { "partial: d still there, nothing takes part",
        { { "d/a.txt", "e/a.txt" } }, 1, { NULL }, { NULL }, 0, 0,
        { "d/c.txt" }, 1, { NULL }, 0, false, false, { NULL }, 0 },
    { "majority e (2) over f (1)",
        { { "d/a.txt", "e/a.txt" }, { "d/b.txt", "e/b.txt" },
            { "d/sub/s.txt", "f/sub/s.txt" } },
        3, { "d" }, { "d/sub" }, 1, 1, { "d/c.txt" }, 1, { "e/c.txt" }, 1,
        false, false, { NULL }, 0 },
    { "d/sub -> e (last components differ: no vote for d)",
        { { "d/sub/s.txt", "e/s.txt" } }, 1, { "d/sub" }, { NULL }, 1, 0,
        { "d/sub/n.txt" }, 1, { "e/n.txt" }, 1, false, false, { NULL }, 0 },
    { "d -> e/d: new location e/d/c.txt",
        { { "d/a.txt", "e/d/a.txt" }, { "d/b.txt", "e/d/b.txt" },
            { "d/sub/s.txt", "e/d/sub/s.txt" } },
        3, { "d" }, { "d/sub" }, 1, 1, { "d/c.txt" }, 1, { "e/d/c.txt" }, 1,
        false, false, { NULL }, 0 },
    { "most deleted, one renamed out: renamed", { { "d/a.txt", "e/a.txt" } }, 1,
        { "d" }, { "d/sub" }, 1, 1, { "d/c.txt" }, 1, { "e/c.txt" }, 1, false,
        false, { NULL }, 0 },
    { "two added paths, sorted", { { "d/a.txt", "e/a.txt" } }, 1, { "d" },
        { NULL }, 1, 0, { "d/z.txt", "d/c.txt" }, 2, { "e/c.txt", "e/z.txt" },
        2, false, false, { NULL }, 0 },
    /* A directory takes part only as "self" or below one. */
    { "moved sibling d/z, file added in removed d/y: nothing",
        { { "d/z/g", "e/z/g" }, { "d/z/h", "e/z/h" } }, 2, { "d/y" }, { NULL },
        1, 0, { "d/y/new" }, 1, { NULL }, 0, false, false, { NULL }, 0 },
    { "d split but not taking part (added in d/y only): no split",
        { { "d/a", "e/a" }, { "d/b", "f/b" } }, 2, { "d/y" }, { NULL }, 1, 0,
        { "d/y/new" }, 1, { NULL }, 0, false, false, { NULL }, 0 },
    { "d/x below self d splits: conflict though nothing is added in d/x",
        { { "d/x/a", "p/a" }, { "d/x/b", "q/b" } }, 2, { "d" }, { "d/x" }, 1, 1,
        { "d/new" }, 1, { NULL }, 0, true, false, { NULL }, 0 },
    { "two paths sent to e/c: moved nowhere, a conflict with no path",
        { { "d1/a", "e/a" }, { "d2/b", "e/b" } }, 2, { "d1", "d2" }, { NULL },
        2, 0, { "d1/c", "d2/c" }, 2, { NULL }, 0, false, true, { NULL }, 0 },
    { "other -> dumb, but the other side renamed dumb itself: not moved",
        { { "other/b", "dumb/b" } }, 1, { "other" }, { NULL }, 1, 0,
        { "other/c" }, 1, { NULL }, 0, false, false, { "dumb" }, 1 },
};

static void
test_cases(void)
{
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const struct dr_case *c = &cases[k];
        struct dirrename_result r;
        TEST_BEGIN(c->name);
        dirrename_apply(c->renames, c->nrenames, c->self, c->nself, c->below,
            c->nbelow, c->added, c->nadded, c->exclude, c->nexclude, &r);
        CHECK_INT(r.nmoved, c->nmoved);
        for (size_t i = 0; i < r.nmoved && i < c->nmoved; i++)
            CHECK_STR(r.moved[i], c->moved[i]);
        CHECK_INT(r.split, c->split);
        CHECK_INT(r.collision, c->collision);
        CHECK_INT(dirrename_conflicted(&r),
            c->nmoved > 0 || c->split || c->collision);
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

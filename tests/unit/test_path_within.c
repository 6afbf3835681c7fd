/* test_path_within.c - path_within(): a path is within a directory when it
 * is the directory or lies below it, component by component. */
#include <stdbool.h>

#include "test.h"
#include "util/path.h"
#include "util/banned.h"

static const struct {
    const char *p, *dir;
    bool want;
} cases[] = {
    { "a/b", "a", true },
    { "a/b", "a/b", true },
    { "a", "a", true },
    { "a/bc", "a/b", false },
    { "ab", "a", false },
    { "a", "a/b", false },
    { "/w/repo/src", "/w/repo", true },
    { "/w/repo2", "/w/repo", false },
    { "/anything", "/", true },
    { "relative", "/", false },
};

int
main(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        TEST_BEGIN(cases[i].p);
        CHECK(path_within(cases[i].p, cases[i].dir) == cases[i].want);
        TEST_END();
    }
    return test_done();
}

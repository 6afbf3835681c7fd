/*
 * test_cwd_path.c - command-line paths as the daemon takes them: joined to
 * the current directory's prefix, absolute ones made relative to the top,
 * globs anchored when the join leaves them without a '/', and everything
 * outside the working tree refused. The top is a directory that does not
 * exist, so no symbolic link resolves.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cwd_path.h"
#include "test.h"
#include "util/banned.h"

#define TOP "/nonexistent-airspace-top/r"

static const struct {
    const char *name, *top, *prefix, *given, *want; /* want NULL: refused */
} cases[] = {
    { "a file in src", TOP, "src", "x.c", "src/x.c" },
    { "a glob in src: src's files only", TOP, "src", "*.c", "src/*.c" },
    { "a recursive glob in src", TOP, "src", "**/*.c", "src/**/*.c" },
    { "up one level", TOP, "src/sub", "../y.c", "src/y.c" },
    { "a glob up at the top: anchored", TOP, "src", "../*.md", "./*.md" },
    { "the current directory", TOP, "src", ".", "src" },
    { "a directory with a trailing slash", TOP, "src", "sub/", "src/sub" },
    { "up to the top itself: refused", TOP, "src", "..", NULL },
    { "out of the tree: refused", TOP, "src", "../../x", NULL },
    { "at the top: a glob at any depth, as given", TOP, "", "*.c", "*.c" },
    { "at the top: ./ anchors", TOP, "", "./*.c", "./*.c" },
    { "at the top: a path kept", TOP, "", "README", "README" },
    { "at the top: a trailing slash kept", TOP, "", "build/", "build/" },
    { "at the top: normalised", TOP, "", "src//a.c", "src/a.c" },
    { "at the top: a glob a join left bare", TOP, "", "a/../*.c", "./*.c" },
    { "at the top: . refused", TOP, "", ".", NULL },
    { "at the top: .. refused", TOP, "", "..", NULL },
    { "at the top: ../x refused", TOP, "", "../x", NULL },
    { "absolute inside", TOP, "src", TOP "/lib/a.c", "lib/a.c" },
    { "absolute glob at the top: anchored", TOP, "src", TOP "/*.c", "./*.c" },
    { "absolute with dots", TOP, "", TOP "/src/../b.c", "b.c" },
    { "absolute: the top itself", TOP, "src", TOP, NULL },
    { "absolute: a sibling of the top", TOP, "", TOP "x/a.c", NULL },
    { "absolute outside", TOP, "src", "/etc/passwd", NULL },
    { "no working tree: relative as given", NULL, "", "x.c", "x.c" },
    { "no working tree: absolute refused", NULL, "", "/x.c", NULL },
};

int
main(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        TEST_BEGIN(cases[i].name);
        struct cwd_path c = { (char *)cases[i].top, (char *)cases[i].prefix };
        char *out = NULL;
        struct as_err e;
        int rc = cwd_path_pattern(&c, cases[i].given, &out, &e);
        if (cases[i].want) {
            CHECK_INT(rc, 0);
            CHECK_STR(out, cases[i].want);
        } else {
            CHECK_INT(rc, AS_EINVAL);
            CHECK(out == NULL);
            CHECK(strstr(e.msg, cases[i].given) != NULL);
        }
        free(out);
        TEST_END();
    }
    return test_done();
}

/* test_glob.c - gitignore-style globs: matching, errors and overlap. */
#include <stdbool.h>
#include <stdlib.h>

#include "test.h"
#include "util/glob.h"

struct match_case {
    const char *pattern, *path;
    bool want;
};

static const struct match_case match_cases[] = {
    { "src/auth/*", "src/auth/login.ts", true },
    { "src/auth/*", "src/auth/deep/login.ts", true }, /* directory covered */
    { "src/auth/*", "src/authx/login.ts", false },
    { "src/auth/*", "src/auth", false },
    { "src/*.c", "src/a.c", true },
    { "src/*.c", "src/x/a.c", false },
    { "src/*.c", "lib/src/a.c", false }, /* anchored by the middle '/' */
    { "*.c", "a.c", true },
    { "*.c", "deep/down/a.c", true }, /* no slash: any depth */
    { "*.c", "a.h", false },
    { "a/**/b", "a/b", true },
    { "a/**/b", "a/x/b", true },
    { "a/**/b", "a/x/y/z/b", true },
    { "a/**/b", "a/xb", false },
    { "**/x", "x", true },
    { "**/x", "p/q/x", true },
    { "**/x", "p/qx", false },
    { "dir/**", "dir/a", true },
    { "dir/**", "dir/a/b/c", true },
    { "dir/**", "dir", false },
    { "dir/**", "dirx/a", false },
    { "a**b", "axxb", true }, /* not a whole component: acts as '*' */
    { "a**b", "ax/xb", false },
    { "?.c", "a.c", true },
    { "?.c", "ab.c", false },
    { "src/?", "src//", false },
    { "[a-c]x", "bx", true },
    { "[a-c]x", "dx", false },
    { "[!a-c]x", "dx", true },
    { "[!a-c]x", "ax", false },
    { "a[!b]c", "a/c", false }, /* classes never match '/' */
    { "[[:digit:]]*", "7up", true },
    { "[[:digit:]]*", "up", false },
    { "[]]", "]", true },
    { "\\*", "*", true },
    { "\\*", "a", false },
    { "/top.c", "top.c", true },
    { "/top.c", "x/top.c", false },
    { "./src/a.c", "src/a.c", true },
    { "src", "src/a.c", true }, /* a directory covers its files */
    { "src/a.c", "src/a.c", true },
    { "src/a.c", "src/a.cc", false },
    { "build/", "build/out.o", true },
    { "build/", "build", false }, /* trailing '/' wants a directory */
    { "build/", "x/build/out.o", true },
    { "src//a.c", "src/a.c", true },
};

static void
test_match(void)
{
    for (size_t i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]); i++) {
        const struct match_case *c = &match_cases[i];
        char name[128];
        snprintf(name, sizeof(name), "match %s ~ %s", c->pattern, c->path);
        TEST_BEGIN(name);
        CHECK(glob_match(c->pattern, c->path) == c->want);
        TEST_END();
    }
}

static void
test_errors(void)
{
    const char *bad[] = { "", "/", "src/[ab", "a\\", "../x", "a/../b",
        "[[:nope:]]" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct glob *g = (struct glob *)1;
        struct as_err e = { "" };
        CHECK_INT(glob_compile(bad[i], &g, &e), AS_EINVAL);
        CHECK(g == NULL);
        CHECK(strstr(e.msg, "glob") != NULL);
        CHECK(!glob_match(bad[i], "x"));
    }
    struct glob *g;
    CHECK_INT(glob_compile("src/**", &g, NULL), 0);
    CHECK_STR(glob_pattern(g), "src/**");
    glob_free(g);
}

static void
test_magic(void)
{
    CHECK(glob_has_magic("src/*"));
    CHECK(glob_has_magic("a?"));
    CHECK(glob_has_magic("[ab]"));
    CHECK(!glob_has_magic("src/auth/login.ts"));
}

struct overlap_case {
    const char *a, *b;
    bool want;
};

static const struct overlap_case overlap_cases[] = {
    { "src/auth/*", "src/auth/login.ts", true },
    { "src/auth/*", "src/api/*", false }, { "src/*.ts", "src/*.c", false },
    { "src/*.ts", "src/a*", true }, { "src/**", "**/login.ts", true },
    { "src/**/x.c", "lib/**", false }, { "a/**/b", "a/c/*", true }, /* a/c/b */
    { "/*.c", "docs/*.md", false },
    { "*.c", "docs/*.md", true }, /* docs/a.md/b.c: any depth, dirs cover */
    { "*.c", "docs/*", true },    /* docs/x.c */
    { "src/a.c", "src/a.c", true }, { "src/a.c", "src/b.c", false },
    { "src", "src/x/*.c", true }, /* directory covers */
    { "build/", "build", true },  /* both cover build/x */
    { "src/[a-c].c", "src/[d-f].c", false },
    { "src/[a-d].c", "src/[d-f].c", true }, { "/?", "/ab", false },
    { "?", "ab", true },             /* ab/x */
    { "src/[ab", "anything", true }, /* invalid: conservative */
};

static void
test_overlap(void)
{
    for (size_t i = 0; i < sizeof(overlap_cases) / sizeof(overlap_cases[0]);
         i++) {
        const struct overlap_case *c = &overlap_cases[i];
        char name[128];
        snprintf(name, sizeof(name), "overlap %s ^ %s", c->a, c->b);
        TEST_BEGIN(name);
        CHECK(glob_overlap(c->a, c->b) == c->want);
        CHECK(glob_overlap(c->b, c->a) == c->want);
        TEST_END();
    }
}

/* An agent's plain path is taken from the top: two plain paths overlap
 * only when one is the other or lies inside it. */
static const struct overlap_case path_cases[] = {
    { "a.c", "z.md", false }, /* as globs both would cover a.c/z.md */
    { "a.c", "a.c", true },
    { "src", "src/a.c", true },
    { "a.c", "src/a.c", false },
    { "docs", "docs/", true },
    { "a.c", "*.c", true },       /* the glob keeps gitignore's rule */
    { "README.md", "*.c", true }, /* README.md/x.c: a plain path may be a
                                     directory */
    { "src/*.c", "src/a.c", true },
    { "lib/*.c", "src/a.c", false },
};

static void
test_paths(void)
{
    for (size_t i = 0; i < sizeof(path_cases) / sizeof(path_cases[0]); i++) {
        const struct overlap_case *c = &path_cases[i];
        char name[128];
        snprintf(name, sizeof(name), "path overlap %s ^ %s", c->a, c->b);
        TEST_BEGIN(name);
        struct glob *a, *b;
        CHECK_INT(glob_compile_path(c->a, &a, NULL), 0);
        CHECK_INT(glob_compile_path(c->b, &b, NULL), 0);
        CHECK(glob_overlap_compiled(a, b) == c->want);
        CHECK(glob_overlap_compiled(b, a) == c->want);
        CHECK_STR(glob_pattern(a), c->a); /* as written */
        glob_free(a);
        glob_free(b);
        TEST_END();
    }
    struct glob *g;
    CHECK_INT(glob_compile_path("a.c", &g, NULL), 0);
    CHECK(glob_matches(g, "a.c"));
    CHECK(!glob_matches(g, "src/a.c"));
    glob_free(g);
}

/* An escaped '*', '?' or '[' is no wildcard: such a pattern names one path,
 * and escaping a file's name gives a pattern matching that name only. */
struct literal_case {
    const char *pattern;
    const char *path; /* what it names; NULL: it has a wildcard */
};

static const struct literal_case literal_cases[] = {
    { "src/a.c", "src/a.c" },
    { "app/\\[locale\\]/page.tsx", "app/[locale]/page.tsx" },
    { "q\\[1\\].txt", "q[1].txt" },
    { "star\\*.txt", "star*.txt" },
    { "back\\\\slash", "back\\slash" },
    { "app/[locale]/page.tsx", NULL },
    { "star*.txt", NULL },
    { "a?", NULL },
    { "a\\\\*", NULL }, /* an escaped '\\', then a star */
    { "trailing\\", NULL },
};

static void
test_literal(void)
{
    for (size_t i = 0; i < sizeof(literal_cases) / sizeof(literal_cases[0]);
         i++) {
        const struct literal_case *c = &literal_cases[i];
        char *got = glob_literal(c->pattern);
        if (!c->path) {
            CHECK(got == NULL);
            if (strcmp(c->pattern, "trailing\\"))
                CHECK(glob_has_wildcard(c->pattern));
        } else {
            CHECK(got != NULL);
            CHECK_STR(got ? got : "(null)", c->path);
            CHECK(!glob_has_wildcard(c->pattern));
        }
        free(got);
    }
    static const char *const names[] = { "app/[locale]/page.tsx", "star*.txt",
        "q\\[1\\].txt", "why?.md", "plain.c" };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char *pat = glob_escape(names[i]);
        char *back = glob_literal(pat);
        CHECK_STR(back ? back : "(null)", names[i]);
        CHECK(glob_match(pat, names[i]));
        free(back);
        free(pat);
    }
    char *pat = glob_escape("app/[locale]/page.tsx");
    CHECK_STR(pat, "app/\\[locale]/page.tsx"); /* ']' alone is no wildcard */
    CHECK(!glob_match(pat, "app/l/page.tsx"));
    CHECK(!glob_match("*.md", "app/[locale]/page.tsx"));
    free(pat);
    /* a path once escaped is anchored like any path */
    struct glob *g;
    CHECK_INT(glob_compile_path("q\\[1\\].txt", &g, NULL), 0);
    CHECK(glob_matches(g, "q[1].txt"));
    CHECK(!glob_matches(g, "sub/q[1].txt"));
    glob_free(g);
}

static void
test_hostile(void)
{
    /* Many stars against a long near-miss: linear, not exponential. */
    char pat[200], path[4000];
    size_t n = 0;
    for (int i = 0; i < 60; i++) {
        pat[n++] = '*';
        pat[n++] = 'a';
    }
    pat[n++] = 'b';
    pat[n] = '\0';
    memset(path, 'a', sizeof(path) - 1);
    path[sizeof(path) - 1] = '\0';
    CHECK(!glob_match(pat, path));
    path[sizeof(path) - 2] = 'b';
    CHECK(glob_match(pat, path));
}

int
main(void)
{
    test_match();
    TEST_RUN("errors", test_errors);
    TEST_RUN("magic", test_magic);
    test_overlap();
    test_paths();
    TEST_RUN("escaped patterns name one path", test_literal);
    TEST_RUN("hostile", test_hostile);
    return test_done();
}

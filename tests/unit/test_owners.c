/* test_owners.c - CODEOWNERS-format parsing and last-match-wins lookup. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/owners.h"

static const char sample[] = "# ownership of this repository\n"
                             "\n"
                             "*            alice\n"
                             "*.md         docs-bot @docs\n"
                             "/build/      @ci\n"
                             "src/db/**    bob @db   # the storage lane\n"
                             "src/db/migrations/  \n" /* unowned again */
                             "docs/        carol\n"
                             "\\#notes     dave\n";

struct lookup_case {
    const char *name, *path, *first;
    size_t n;
    unsigned line;
};

static const struct lookup_case lookups[] = {
    { "catch-all rule", "Makefile", "alice", 1, 3 },
    { "glob at any depth", "src/x/README.md", "docs-bot", 2, 4 },
    { "anchored directory", "build/out.o", "@ci", 1, 5 },
    { "anchored directory not deeper", "x/build/out.o", "alice", 1, 3 },
    { "double star", "src/db/a/b.c", "bob", 2, 6 },
    { "rule without owners unowns", "src/db/migrations/001.sql", NULL, 0, 7 },
    { "last match wins over earlier", "docs/guide.md", "carol", 1, 8 },
    { "directory anywhere", "pkg/docs/x.txt", "carol", 1, 8 },
    { "escaped hash", "#notes", "dave", 1, 9 },
};

static void
test_lookups(void)
{
    struct owners *o;
    struct as_err e;
    CHECK_INT(owners_parse(sample, strlen(sample), &o, &e), 0);
    if (!o)
        return;
    CHECK_INT(owners_count(o), 7);
    for (size_t i = 0; i < sizeof(lookups) / sizeof(lookups[0]); i++) {
        const struct lookup_case *c = &lookups[i];
        TEST_BEGIN(c->name);
        const char *const *list;
        unsigned line;
        size_t n = owners_of(o, c->path, &list, &line);
        CHECK_INT(n, c->n);
        CHECK_INT(line, c->line);
        if (c->first && n)
            CHECK_STR(list[0], c->first);
        TEST_END();
    }
    CHECK(owners_includes(o, "src/db/x.c", "@db"));
    CHECK(owners_includes(o, "src/db/x.c", "bob"));
    CHECK(!owners_includes(o, "src/db/x.c", "alice")); /* overridden */
    CHECK(!owners_includes(o, "src/db/x.c", "#"));     /* comment dropped */
    CHECK(!owners_includes(o, "src/db/x.c", "the"));
    owners_free(o);
}

static void
test_empty(void)
{
    struct owners *o;
    CHECK_INT(owners_parse("", 0, &o, NULL), 0);
    CHECK_INT(owners_count(o), 0);
    CHECK_INT(owners_of(o, "a.c", NULL, NULL), 0);
    owners_free(o);
    CHECK_INT(owners_of(NULL, "a.c", NULL, NULL), 0);
    /* CRLF line endings and no final newline */
    const char *crlf = "# x\r\n*.c alice\r\n*.h bob";
    CHECK_INT(owners_parse(crlf, strlen(crlf), &o, NULL), 0);
    CHECK(owners_includes(o, "a.c", "alice"));
    CHECK(owners_includes(o, "a.h", "bob"));
    owners_free(o);
}

struct error_case {
    const char *name, *text, *want;
    int code;
};

static const struct error_case errors[] = {
    { "negation refused", "*.c a\n!x.c b\n", "owners line 2: negated",
        AS_EPARSE },
    { "bad class", "\n\nsrc/[a b\n", "owners line 3:", AS_EPARSE },
    { "dotdot refused", "../x a\n", "owners line 1:", AS_EPARSE },
    { "control character", "a.c \001b\n", "owners line 1: control", AS_EPARSE },
};

static void
test_errors(void)
{
    for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
        const struct error_case *c = &errors[i];
        TEST_BEGIN(c->name);
        struct owners *o = (struct owners *)1;
        struct as_err e = { "" };
        CHECK_INT(owners_parse(c->text, strlen(c->text), &o, &e), c->code);
        CHECK(o == NULL);
        CHECK(!strncmp(e.msg, c->want, strlen(c->want)));
        TEST_END();
    }
    char *big = malloc(OWNERS_LINE_MAX + 10);
    memset(big, 'a', OWNERS_LINE_MAX + 9);
    big[OWNERS_LINE_MAX + 9] = '\0';
    struct owners *o;
    CHECK_INT(owners_parse(big, strlen(big), &o, NULL), AS_ETOOBIG);
    free(big);
}

int
main(void)
{
    TEST_RUN("lookups", test_lookups);
    TEST_RUN("empty and crlf", test_empty);
    TEST_RUN("errors", test_errors);
    return test_done();
}

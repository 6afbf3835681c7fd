/*
 * test_util_strbuf.c - the growing string: appends, growth past the first
 * allocation, an empty append still terminating, taking va_lists.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "test.h"
#include "util/banned.h"

static void
test_appends(void)
{
    struct strbuf b = STRBUF_INIT;
    CHECK(b.s == NULL && b.len == 0);
    strbuf_addf(&b, "%s", "");
    CHECK(b.s != NULL); /* an empty append still gives a string */
    CHECK_STR(b.s, "");
    CHECK_INT(b.len, 0);
    strbuf_addf(&b, "%s-%d", "agent", 7);
    strbuf_addf(&b, " %.2f", 0.5);
    CHECK_STR(b.s, "agent-7 0.50");
    CHECK_INT(b.len, strlen("agent-7 0.50"));
    free(b.s);
}

static void
test_growth(void)
{
    struct strbuf b = STRBUF_INIT;
    char want[5001];
    for (int i = 0; i < 5000; i++) {
        strbuf_addf(&b, "%c", 'a' + i % 26);
        want[i] = (char)('a' + i % 26);
    }
    want[5000] = '\0';
    CHECK_INT(b.len, 5000);
    CHECK(b.alloc > b.len);
    CHECK_STR(b.s, want);
    free(b.s);
}

__attribute__((format(printf, 2, 3))) static void
vadd(struct strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(b, fmt, ap);
    va_end(ap);
}

static void
test_va(void)
{
    struct strbuf b = STRBUF_INIT;
    vadd(&b, "%s %s", "one", "two");
    vadd(&b, "; %u", 3u);
    CHECK_STR(b.s, "one two; 3");
    free(b.s);
}

int
main(void)
{
    TEST_RUN("appends", test_appends);
    TEST_RUN("growth", test_growth);
    TEST_RUN("va_list", test_va);
    return test_done();
}

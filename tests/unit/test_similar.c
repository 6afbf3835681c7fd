/* test_similar.c - task dedup by word-set similarity. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/similar.h"

static void
test_words(void)
{
    size_t n;
    char **w = similar_words(
        "Fix the Supabase migration for auth tables (this is urgent!)", &n);
    static const char *const want[] = { "auth", "migration", "supabase",
        "table", "urgent" };
    CHECK_INT(n, 5);
    for (size_t i = 0; i < n && i < 5; i++)
        CHECK_STR(w[i], want[i]);
    similar_words_free(w, n);
    w = similar_words("a b c -- the of", &n);
    CHECK_INT(n, 0);
    similar_words_free(w, n);
    w = similar_words("class status tests tests", &n);
    CHECK_INT(n, 3); /* "class" keeps its ss, duplicates collapse */
    if (n == 3) {
        CHECK_STR(w[0], "class");
        CHECK_STR(w[1], "statu");
        CHECK_STR(w[2], "test");
    }
    similar_words_free(w, n);
    CHECK(similar_is_stop_word("the"));
    CHECK(similar_is_stop_word("refactor"));
    CHECK(!similar_is_stop_word("login"));
}

struct score_case {
    const char *name, *a, *b;
    double want;
};

static const struct score_case scores[] = {
    { "same task, other words", "Fix the login redirect loop",
        "refactor login redirect loop handling", 1.0 },
    { "same area, different work", "add rate limiting to the login endpoint",
        "fix login endpoint returning 500", 2.0 / 6.0 },
    { "different tasks sharing a verb", "fix login", "fix billing", 0.0 },
    { "plural and case", "Update README badges", "readme badge", 1.0 },
    { "empty after stop words", "fix the bug", "fix the bug", 0.0 },
    { "identifiers split", "rename parse_config in config.c",
        "parse config rename", 1.0 },
};

static void
test_scores(void)
{
    for (size_t i = 0; i < sizeof(scores) / sizeof(scores[0]); i++) {
        TEST_BEGIN(scores[i].name);
        CHECK_NEAR(
            similar_score(scores[i].a, scores[i].b), scores[i].want, 1e-12);
        CHECK_NEAR(
            similar_score(scores[i].b, scores[i].a), scores[i].want, 1e-12);
        TEST_END();
    }
}

static void
test_closest(void)
{
    static const char *const active[] = {
        "Implement OAuth login with GitHub",
        "Migrate the users table to UUID primary keys",
        NULL, /* a slot without a summary */
        "Add pagination to the orders API",
        "Write end-to-end tests for checkout",
    };
    double s;
    CHECK_INT(similar_closest("migrate users table primary keys to uuid",
                  active, 5, SIMILAR_DEFAULT_THRESHOLD, &s),
        1);
    CHECK_NEAR(s, 1.0, 1e-12);
    CHECK_INT(similar_closest("paginate orders API responses", active, 5,
                  SIMILAR_DEFAULT_THRESHOLD, &s),
        -1); /* orders + api of 5 words: 0.4 */
    CHECK_NEAR(s, 0.0, 1e-12);
    CHECK_INT(
        similar_closest("paginate orders API responses", active, 5, 0.3, &s),
        3);
    CHECK_NEAR(s, 2.0 / 5.0, 1e-12);
    CHECK_INT(similar_closest("GitHub OAuth login", active, 5,
                  SIMILAR_DEFAULT_THRESHOLD, NULL),
        0);
    CHECK_INT(similar_closest("update docs", active, 5, 0.0, &s), -1);
    CHECK_INT(similar_closest("anything", NULL, 0, 0.5, &s), -1);
}

int
main(void)
{
    TEST_RUN("words", test_words);
    test_scores();
    TEST_RUN("closest active summary", test_closest);
    return test_done();
}

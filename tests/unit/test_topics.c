/* test_topics.c - prompt topics, trajectories and convergence
 * (conformance §5). */
#include <string.h>

#include "core/topics.h"
#include "test.h"

static void
test_extract(void)
{
    struct topic_set s;
    topics_extract("fix the supabase migration for auth tables", &s);
    CHECK_INT(s.n, 4);
    if (s.n == 4) {
        CHECK_STR(s.t[0], "supabase");
        CHECK_STR(s.t[1], "migration");
        CHECK_STR(s.t[2], "auth");
        CHECK_STR(s.t[3], "tables");
    }
    topics_extract("alpha beta gamma delta epsilon zeta theta iota kappa "
                   "lambda",
        &s);
    CHECK_INT(s.n, TOPICS_PER_PROMPT); /* at most 8 */
    topics_extract("AUTH auth Auth 2026 is ok", &s);
    CHECK_INT(s.n, 1); /* one topic, numbers and short words dropped */
    topics_extract(NULL, &s);
    CHECK_INT(s.n, 0);
}

static void
add(struct topic_track *t, const char *prompt)
{
    struct topic_set s;
    topics_extract(prompt, &s);
    topic_track_add(t, &s);
}

static void
test_classes_and_convergence(void)
{
    struct topic_track a, b, c;
    topic_track_init(&a);
    topic_track_init(&b);
    topic_track_init(&c);
    add(&a, "look at the auth tables");
    add(&b, "auth token refresh");
    struct topic_set out;
    CHECK_INT(topics_converge(&a, &b, &out), 0); /* too few prompts */
    CHECK_INT(topic_track_class(&a, "auth"), TOPIC_NONE);
    add(&a, "auth migration for supabase");
    add(&a, "supabase auth policies");
    add(&b, "auth session cookies");
    add(&b, "auth cookie expiry");
    CHECK_INT(topic_track_class(&a, "auth"), TOPIC_DEEPENING);
    CHECK_INT(topic_track_class(&a, "policies"), TOPIC_EMERGING);
    CHECK_INT(topic_track_class(&a, "tables"), TOPIC_STABLE);
    CHECK_INT(topics_converge(&a, &b, &out), 1);
    CHECK_STR(out.t[0], "auth");
    /* disjoint work: no prediction */
    add(&c, "render the charts");
    add(&c, "chart colours");
    add(&c, "chart legends");
    CHECK_INT(topics_converge(&a, &c, &out), 0);
    /* deepening against emerging converges; emerging alone does not */
    add(&c, "charts need auth");
    CHECK_INT(topic_track_class(&c, "auth"), TOPIC_EMERGING);
    CHECK_INT(topics_converge(&a, &c, &out), 1);
    CHECK_INT(topics_converge(&c, &a, &out), 1);
    /* a topic left behind fades */
    for (int k = 0; k < 3; k++)
        add(&c, "chart legends again");
    CHECK_INT(topic_track_class(&c, "auth"), TOPIC_FADING);
    /* the window keeps the last 10 prompts */
    for (int k = 0; k < 12; k++)
        add(&a, "database indexes");
    CHECK_INT(a.n, TOPICS_WINDOW);
    CHECK_INT(topic_track_class(&a, "auth"), TOPIC_NONE);
}

int
main(void)
{
    TEST_RUN("extract", test_extract);
    TEST_RUN("classes and convergence", test_classes_and_convergence);
    return test_done();
}

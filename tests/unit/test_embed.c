/* test_embed.c - the 3-D layout: determinism, clustering, dependency pull. */
#include <stdlib.h>

#include "core/embed.h"
#include "test.h"

static double
dist(const float *xyz, uint32_t a, uint32_t b)
{
    double s = 0;
    for (int k = 0; k < 3; k++) {
        double d = (double)xyz[3 * a + k] - xyz[3 * b + k];
        s += d * d;
    }
    return sqrt(s);
}

static const char *const paths[] = { "src/net/conn.c", "src/net/conn.h",
    "src/net/tls.c", "src/db/schema.c", "src/db/query.c", "docs/guide.md",
    "web/app.js", "web/ui/button.js", "tests/unit/test_conn.c", "README.md" };
#define NPATHS (sizeof(paths) / sizeof(paths[0]))

static void
build(struct graph *g, bool edges)
{
    graph_init(g);
    for (size_t i = 0; i < NPATHS; i++)
        graph_intern_file(g, paths[i]);
    if (edges) {
        uint32_t h = graph_find_file(g, "src/net/conn.h");
        uint32_t t = graph_find_file(g, "tests/unit/test_conn.c");
        graph_set_imports(g, t, &h, 1);
        uint32_t c = graph_find_file(g, "src/net/conn.c");
        graph_set_imports(g, c, &h, 1);
    }
}

static void
test_determinism(void)
{
    struct graph g1, g2;
    build(&g1, true);
    build(&g2, true);
    float a[3 * NPATHS], b[3 * NPATHS];
    embed_layout(&g1, NULL, a);
    embed_layout(&g2, NULL, b);
    CHECK(!memcmp(a, b, sizeof(a)));
    for (size_t i = 0; i < 3 * NPATHS; i++)
        CHECK(isfinite(a[i]));
    graph_release(&g1);
    graph_release(&g2);
}

static void
test_clustering(void)
{
    struct graph g;
    build(&g, false);
    float p[3 * NPATHS];
    embed_layout(&g, NULL, p);
    uint32_t conn = graph_find_file(&g, "src/net/conn.c");
    uint32_t tls = graph_find_file(&g, "src/net/tls.c");
    uint32_t schema = graph_find_file(&g, "src/db/schema.c");
    uint32_t query = graph_find_file(&g, "src/db/query.c");
    uint32_t guide = graph_find_file(&g, "docs/guide.md");
    uint32_t button = graph_find_file(&g, "web/ui/button.js");
    /* siblings closer than cousins and than any stranger */
    CHECK(dist(p, conn, tls) < dist(p, conn, schema));
    CHECK(dist(p, schema, query) < dist(p, schema, conn));
    CHECK(dist(p, conn, tls) < dist(p, conn, guide));
    CHECK(dist(p, conn, tls) < dist(p, conn, button));
    CHECK(dist(p, schema, query) < dist(p, schema, guide));
    /* a directory's files sit within its own (shrunken) radius: nested
     * clusters, whatever direction the hash picked */
    struct embed_config c;
    embed_config_default(&c);
    double sub = c.radius * c.shrink * c.shrink;
    CHECK(dist(p, conn, tls) <= 2 * sub + 1e-3);
    graph_release(&g);
}

static void
test_pull(void)
{
    struct graph g0, g1;
    build(&g0, false);
    build(&g1, true);
    float a[3 * NPATHS], b[3 * NPATHS];
    embed_layout(&g0, NULL, a);
    embed_layout(&g1, NULL, b);
    uint32_t t = graph_find_file(&g1, "tests/unit/test_conn.c");
    uint32_t h = graph_find_file(&g1, "src/net/conn.h");
    uint32_t r = graph_find_file(&g1, "README.md");
    CHECK(dist(b, t, h) < dist(a, t, h));
    /* a file with no edges stays at its path position */
    CHECK(!memcmp(a + 3 * r, b + 3 * r, 3 * sizeof(float)));
    struct embed_config c;
    embed_config_default(&c);
    c.rounds = 0;
    embed_layout(&g1, &c, b);
    CHECK(!memcmp(a, b, sizeof(a)));
    graph_release(&g0);
    graph_release(&g1);
}

static void
test_empty(void)
{
    struct graph g;
    graph_init(&g);
    float one[3] = { 7, 7, 7 };
    embed_layout(&g, NULL, one);
    CHECK(one[0] == 7);
    graph_release(&g);
}

int
main(void)
{
    TEST_RUN("determinism", test_determinism);
    TEST_RUN("clustering", test_clustering);
    TEST_RUN("dependency pull", test_pull);
    TEST_RUN("empty graph", test_empty);
    return test_done();
}

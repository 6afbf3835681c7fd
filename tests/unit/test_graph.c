/* test_graph.c - the import graph: interning, edges, distances, reach. */
#include <stdlib.h>

#include "core/graph.h"
#include "test.h"

static void
build_chain(struct graph *g)
{
    /* a/x.js -> b/y.js -> c/z.js -> d/w.js ; e/v.js -> b/y.js */
    graph_init(g);
    uint32_t x = graph_intern_file(g, "a/x.js");
    uint32_t y = graph_intern_file(g, "b/y.js");
    uint32_t z = graph_intern_file(g, "c/z.js");
    uint32_t w = graph_intern_file(g, "d/w.js");
    uint32_t v = graph_intern_file(g, "e/v.js");
    graph_set_imports(g, x, &y, 1);
    graph_set_imports(g, y, &z, 1);
    graph_set_imports(g, z, &w, 1);
    graph_set_imports(g, v, &y, 1);
}

static void
test_intern(void)
{
    struct graph g;
    graph_init(&g);
    uint32_t a = graph_intern_file(&g, "src/a.c");
    CHECK_INT(graph_intern_file(&g, "src/a.c"), a);
    CHECK_INT(graph_find_file(&g, "src/b.c"), GRAPH_NONE);
    CHECK_INT(g.files[a].depth, 2);
    CHECK_STR(g.files[a].path, "src/a.c");
    uint32_t n = graph_intern_name(&g, "conn_open", 9);
    CHECK_INT(graph_intern_name(&g, "conn_open", 9), n);
    CHECK_STR(g.name_str[n], "conn_open");
    CHECK_INT(graph_find_name(&g, "nope", 4), GRAPH_NONE);
    graph_release(&g);
}

static void
test_distance(void)
{
    struct graph g;
    build_chain(&g);
    uint32_t x = graph_find_file(&g, "a/x.js"),
             z = graph_find_file(&g, "c/z.js");
    uint32_t w = graph_find_file(&g, "d/w.js"),
             v = graph_find_file(&g, "e/v.js");
    CHECK_INT(graph_distance(&g, x, z, 6), 2);
    CHECK_INT(graph_distance(&g, x, w, 6), 3);
    CHECK_INT(graph_distance(&g, x, w, 2), -1); /* beyond cap */
    CHECK_INT(graph_distance(&g, z, x, 6), -1); /* directed */
    CHECK_INT(graph_distance(&g, x, v, 6), -1); /* common import only */
    CHECK_INT(graph_distance(&g, x, x, 6), 0);
    CHECK_INT(graph_edge_count(&g), 4);
    graph_release(&g);
}

static void
test_reach(void)
{
    struct graph g;
    build_chain(&g);
    uint8_t *dist = malloc(g.nfiles);
    uint32_t w = graph_find_file(&g, "d/w.js");
    size_t n = graph_reach_importers(&g, w, 6, dist);
    CHECK_INT(n, 4);
    CHECK_INT(dist[graph_find_file(&g, "c/z.js")], 1);
    CHECK_INT(dist[graph_find_file(&g, "b/y.js")], 2);
    CHECK_INT(dist[graph_find_file(&g, "a/x.js")], 3);
    CHECK_INT(dist[graph_find_file(&g, "e/v.js")], 3);
    n = graph_reach_importers(&g, w, 2, dist);
    CHECK_INT(n, 2);
    CHECK_INT(dist[graph_find_file(&g, "a/x.js")], 0xff);
    free(dist);
    graph_release(&g);
}

static void
test_replace_edges(void)
{
    struct graph g;
    build_chain(&g);
    uint32_t x = graph_find_file(&g, "a/x.js"),
             y = graph_find_file(&g, "b/y.js");
    uint32_t w = graph_find_file(&g, "d/w.js");
    uint32_t t[] = { w, w, x }; /* duplicate and self edge dropped */
    graph_set_imports(&g, x, t, 3);
    CHECK_INT(g.files[x].nout, 1);
    CHECK_INT(g.files[y].nin, 1); /* only e/v.js imports y now */
    CHECK_INT(graph_distance(&g, x, w, 6), 1);
    CHECK_INT(graph_edge_count(&g), 4);
    graph_release(&g);
}

static void
test_symbols_sorted(void)
{
    struct graph g;
    graph_init(&g);
    uint32_t f = graph_intern_file(&g, "a.c");
    uint32_t n1 = graph_intern_name(&g, "b", 1),
             n2 = graph_intern_name(&g, "a", 1);
    struct graph_def defs[] = { { n1, 20, 30, GRAPH_SYM_FUNCTION },
        { n2, 1, 10, GRAPH_SYM_FUNCTION } };
    struct graph_ref refs[] = { { n2, 25 }, { n1, 5 } };
    graph_set_symbols(&g, f, defs, 2, refs, 2);
    CHECK(g.files[f].parsed);
    CHECK_INT(g.files[f].defs[0].start, 1);
    CHECK_INT(g.files[f].refs[0].line, 5);
    graph_release(&g);
}

int
main(void)
{
    TEST_RUN("intern files and names", test_intern);
    TEST_RUN("directed distance with cap", test_distance);
    TEST_RUN("reach importers", test_reach);
    TEST_RUN("replace edges keeps reverse edges", test_replace_edges);
    TEST_RUN("symbols sorted", test_symbols_sorted);
    return test_done();
}

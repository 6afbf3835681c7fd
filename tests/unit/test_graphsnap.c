/*
 * test_graphsnap.c - the graph snapshot: a graph written and mapped back is
 * the same graph (files, edges both ways, definitions, references, names and
 * their lookup); a file for another key, truncated at any length or with any
 * byte changed is refused or still a well-formed graph, never a crash; a
 * graph from a snapshot copies a file before changing it; and repograph
 * takes a warm build from the snapshot, rebuilds when a file changed or the
 * snapshot is damaged, writes none while a file is racily fresh, and
 * refuses updates to a graph it did not build.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lang/graphsnap.h"
#include "lang/repograph.h"
#include "test.h"

static char root[64];
static const uint8_t key[GRAPHSNAP_KEY_BYTES] = { 1, 2, 3, 4, 5, 6, 7 };

static uint32_t
name(struct graph *g, const char *s)
{
    return graph_intern_name(g, s, strlen(s));
}

/* a.c -> b.h -> c.c, d.c -> b.h, e.txt alone; names in a.c, b.h, c.c. */
static void
make_graph(struct graph *g)
{
    graph_init(g);
    uint32_t a = graph_intern_file(g, "src/a.c");
    uint32_t b = graph_intern_file(g, "src/b.h");
    uint32_t c = graph_intern_file(g, "src/c.c");
    uint32_t d = graph_intern_file(g, "lib/d.c");
    graph_intern_file(g, "docs/e.txt");
    graph_set_imports(g, a, &b, 1);
    graph_set_imports(g, b, &c, 1);
    graph_set_imports(g, d, &b, 1);
    struct graph_def da[] = {
        { name(g, "main"), 3, 9, GRAPH_SYM_FUNCTION },
        { name(g, "helper"), 11, 14, GRAPH_SYM_FUNCTION },
    };
    struct graph_ref ra[] = { { name(g, "conn_open"), 5 },
        { name(g, "helper"), 6 }, { name(g, "conn_close"), 8 } };
    graph_set_symbols(g, a, da, 2, ra, 3);
    struct graph_def db[] = { { name(g, "conn"), 2, 2, GRAPH_SYM_TYPE },
        { name(g, "conn_open"), 3, 3, GRAPH_SYM_FUNCTION } };
    graph_set_symbols(g, b, db, 2, NULL, 0);
    struct graph_def dc[] = { { name(g, "conn_open"), 2, 7,
        GRAPH_SYM_FUNCTION } };
    struct graph_ref rc[] = { { name(g, "conn"), 3 } };
    graph_set_symbols(g, c, dc, 1, rc, 1);
    graph_set_symbols(g, d, NULL, 0, NULL, 0);
}

static bool
same_u32(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
    return na == nb && (!na || !memcmp(a, b, na * sizeof(*a)));
}

/* Whether a and b are the same graph, file for file and name for name. */
static bool
same(const struct graph *a, const struct graph *b)
{
    if (a->nfiles != b->nfiles || a->nnames != b->nnames)
        return false;
    for (uint32_t i = 0; i < a->nfiles; i++) {
        const struct graph_file *x = &a->files[i], *y = &b->files[i];
        if (strcmp(x->path, y->path) || x->depth != y->depth ||
            x->parsed != y->parsed ||
            !same_u32(x->out, x->nout, y->out, y->nout) ||
            !same_u32(x->in, x->nin, y->in, y->nin) ||
            !same_u32(x->names, x->nnames, y->names, y->nnames) ||
            x->ndefs != y->ndefs || x->nrefs != y->nrefs ||
            graph_find_file(b, x->path) != i)
            return false;
        for (uint32_t k = 0; k < x->ndefs; k++)
            if (x->defs[k].name != y->defs[k].name ||
                x->defs[k].start != y->defs[k].start ||
                x->defs[k].end != y->defs[k].end ||
                x->defs[k].kind != y->defs[k].kind)
                return false;
        for (uint32_t k = 0; k < x->nrefs; k++)
            if (x->refs[k].name != y->refs[k].name ||
                x->refs[k].line != y->refs[k].line)
                return false;
    }
    for (size_t i = 0; i < a->nnames; i++) {
        const char *s = a->name_str[i];
        if (strcmp(s, b->name_str[i]) ||
            graph_find_name(b, s, strlen(s)) != (uint32_t)i)
            return false;
    }
    return true;
}

static char *
tmp(const char *name_)
{
    char *p = malloc(strlen(root) + strlen(name_) + 2);
    snprintf(p, strlen(root) + strlen(name_) + 2, "%s/%s", root, name_);
    return p;
}

static bool
read_all(const char *path, uint8_t **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *buf = aligned_alloc(8, ((size_t)n + 8) & ~(size_t)7);
    *len = fread(*buf, 1, (size_t)n, f);
    fclose(f);
    return *len == (size_t)n;
}

static void
test_round_trip(void)
{
    struct graph g, back;
    make_graph(&g);
    char *path = tmp("g.snap");
    struct graphsnap_info info = { 4, 3 }, got = { 0 };
    struct as_err e;
    CHECK_INT(graphsnap_write(&g, key, &info, path, &e), 0);
    graph_init(&back);
    CHECK_INT(graphsnap_load(&back, key, path, &got, &e), 0);
    CHECK(same(&g, &back));
    CHECK_INT(got.source_files, 4);
    CHECK_INT(got.with_facts, 3);
    CHECK(back.files[0].borrowed);
    CHECK_INT(graph_distance(&back, 0, 2, 6), 2);
    uint8_t dist[5];
    CHECK_INT(graph_reach_importers(&back, 2, 6, dist), 3);
    /* names: known ones keep their ids, a new one comes after them */
    CHECK_INT(name(&back, "helper"), graph_find_name(&g, "helper", 6));
    CHECK_INT(graph_find_name(&back, "nope", 4), GRAPH_NONE);
    CHECK_INT(name(&back, "nope"), g.nnames);
    CHECK_INT(graph_find_name(&back, "nope", 4), g.nnames);
    CHECK_STR(back.name_str[g.nnames], "nope");
    CHECK_INT(graph_find_name(&back, "hel", 3), GRAPH_NONE);
    /* a snapshot of the loaded graph holds the new name too */
    char *again = tmp("again.snap");
    CHECK_INT(graphsnap_write(&back, key, &info, again, &e), 0);
    struct graph third;
    graph_init(&third);
    CHECK_INT(graphsnap_load(&third, key, again, NULL, &e), 0);
    CHECK(same(&back, &third));
    graph_release(&third);
    graph_release(&back);

    /* another key or no file: refused, the graph left empty */
    uint8_t other[GRAPHSNAP_KEY_BYTES] = { 9 };
    graph_init(&back);
    CHECK_INT(graphsnap_load(&back, other, path, NULL, &e), AS_EINVAL);
    CHECK_INT(back.nfiles, 0);
    char *missing = tmp("missing.snap");
    CHECK_INT(graphsnap_load(&back, key, missing, NULL, &e), AS_ENOENT);
    CHECK_INT(back.nfiles, 0);
    graph_release(&back);

    /* an empty graph round-trips too */
    struct graph empty, eback;
    graph_init(&empty);
    CHECK_INT(graphsnap_write(&empty, key, NULL, again, &e), 0);
    graph_init(&eback);
    CHECK_INT(graphsnap_load(&eback, key, again, NULL, &e), 0);
    CHECK_INT(eback.nfiles, 0);
    CHECK_INT(graph_find_name(&eback, "x", 1), GRAPH_NONE);
    graph_release(&eback);
    graph_release(&empty);
    graph_release(&g);
    free(path);
    free(again);
    free(missing);
}

/* Changing a file of a graph from a snapshot copies it first: the graph
 * changes, the snapshot does not. */
static void
test_copy_on_change(void)
{
    struct graph g, back;
    make_graph(&g);
    char *path = tmp("cow.snap");
    struct as_err e;
    CHECK_INT(graphsnap_write(&g, key, NULL, path, &e), 0);
    graph_init(&back);
    CHECK_INT(graphsnap_load(&back, key, path, NULL, &e), 0);
    /* lib/d.c now imports src/c.c instead of src/b.h */
    uint32_t d = graph_find_file(&back, "lib/d.c"),
             b = graph_find_file(&back, "src/b.h"),
             c = graph_find_file(&back, "src/c.c");
    graph_set_imports(&back, d, &c, 1);
    CHECK_INT(back.files[d].nout, 1);
    CHECK_INT(back.files[d].out[0], c);
    CHECK_INT(back.files[b].nin, 1);
    CHECK_INT(back.files[c].nin, 2);
    CHECK(!back.files[d].borrowed && !back.files[b].borrowed);
    struct graph_ref r = { name(&back, "fresh"), 4 };
    uint32_t a = graph_find_file(&back, "src/a.c");
    graph_set_symbols(&back, a, NULL, 0, &r, 1);
    CHECK_INT(back.files[a].nrefs, 1);
    CHECK_INT(back.files[a].ndefs, 0);
    graph_set_imports(&back, a, NULL, 0);
    CHECK_INT(back.files[b].nin, 0);
    graph_release(&back);
    /* the file on disk is as written */
    graph_init(&back);
    CHECK_INT(graphsnap_load(&back, key, path, NULL, &e), 0);
    CHECK(same(&g, &back));
    graph_release(&back);
    graph_release(&g);
    free(path);
}

/* Walk a graph that loaded: every array read, as the risk engine would. */
static void
walk(struct graph *g)
{
    uint8_t *dist = malloc(g->nfiles + 1);
    for (uint32_t i = 0; i < g->nfiles; i++) {
        graph_reach_importers(g, i, 6, dist);
        graph_distance(g, i, 0, 6);
        const struct graph_file *f = &g->files[i];
        for (uint32_t k = 0; k < f->ndefs; k++)
            CHECK(strlen(g->name_str[f->defs[k].name]) < 1000);
        for (uint32_t k = 0; k < f->nrefs; k++)
            CHECK(strlen(g->name_str[f->refs[k].name]) < 1000);
        for (uint32_t k = 0; k < f->nnames; k++)
            CHECK(f->names[k] < g->nnames);
    }
    for (size_t i = 0; i < g->nnames; i++)
        graph_find_name(g, g->name_str[i], strlen(g->name_str[i]));
    free(dist);
}

/* Every truncation and every changed byte: refused, or a graph that is
 * whole (under the sanitizers, any read out of place fails the test). */
static void
test_damaged(void)
{
    struct graph g;
    make_graph(&g);
    char *path = tmp("damaged.snap");
    struct as_err e;
    CHECK_INT(graphsnap_write(&g, key, NULL, path, &e), 0);
    uint8_t *buf = NULL;
    size_t len = 0;
    if (!read_all(path, &buf, &len)) {
        CHECK(!"read back");
        return;
    }
    uint8_t *copy = aligned_alloc(8, (len + 8) & ~(size_t)7);
    size_t refused = 0, loaded = 0;
    for (size_t n = 0; n < len; n++) {
        memcpy(copy, buf, n);
        struct graph back;
        graph_init(&back);
        int rc = graphsnap_load_mem(&back, key, copy, n, NULL, &e);
        CHECK(rc != 0);
        CHECK_INT(back.nfiles, 0);
        graph_release(&back);
    }
    static const uint8_t flips[] = { 0x01, 0x80, 0xff };
    for (size_t at = 0; at < len; at++)
        for (size_t k = 0; k < sizeof(flips); k++) {
            memcpy(copy, buf, len);
            copy[at] ^= flips[k];
            struct graph back;
            graph_init(&back);
            if (graphsnap_load_mem(&back, key, copy, len, NULL, &e) == 0) {
                loaded++;
                walk(&back);
            } else {
                refused++;
                CHECK_INT(back.nfiles, 0);
            }
            graph_release(&back);
        }
    /* most changes are caught; padding, lines and kinds are not checked */
    CHECK(refused > loaded);
    /* a truncated file on disk */
    CHECK(truncate(path, (off_t)len - 8) == 0);
    struct graph back;
    graph_init(&back);
    CHECK_INT(graphsnap_load(&back, key, path, NULL, &e), AS_EPARSE);
    graph_release(&back);
    free(copy);
    free(buf);
    graph_release(&g);
    free(path);
}

/* ---- through repograph ---- */

/* Write rel under the tree, its mtime age_s seconds ago (0: now). */
static void
write_file_at(const char *rel, const char *text, int age_s)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/tree/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0700);
            *p = '/';
        }
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    if (age_s) {
        struct timespec t[2];
        clock_gettime(CLOCK_REALTIME, &t[0]);
        t[0].tv_sec -= age_s;
        t[1] = t[0];
        utimensat(AT_FDCWD, path, t, 0);
    }
}

/* Files changed a minute ago: not racily fresh for the snapshot. */
static void
write_file(const char *rel, const char *text)
{
    write_file_at(rel, text, 60);
}

static int
build(struct graph *g, const char *snap, struct repograph_stats *st)
{
    char tree[128];
    snprintf(tree, sizeof(tree), "%s/tree", root);
    struct repograph_file *files;
    size_t n;
    struct as_err e;
    if (repograph_scan_dir(tree, &files, &n, &e))
        return -1;
    struct repograph_options o = { 0 };
    char cache[128];
    snprintf(cache, sizeof(cache), "%s/facts.cache", root);
    o.cache_path = cache;
    o.snapshot_path = snap;
    graph_init(g);
    int rc = repograph_build(g, files, n, repograph_read_dir, tree, &o, st, &e);
    repograph_scan_dir_free(files, n);
    return rc;
}

static void
test_repograph(void)
{
    write_file("src/conn.h", "int conn_open(int fd);\n");
    write_file("src/conn.c",
        "#include \"conn.h\"\nint conn_open(int fd) { return fd; }\n");
    write_file("src/page.c", "#include \"conn.h\"\n"
                             "int page(void) { return conn_open(3); }\n");
    write_file("README.md", "# tree\n");
    char *snap = tmp("tree.snap");
    struct graph cold, warm, plain;
    struct repograph_stats st, wst;
    CHECK_INT(build(&plain, NULL, &st), 0);
    CHECK_INT(build(&cold, snap, &st), 0);
    CHECK(!st.from_snapshot);
    CHECK(access(snap, F_OK) == 0);
    CHECK(same(&plain, &cold));
    CHECK_INT(build(&warm, snap, &wst), 0);
    CHECK(wst.from_snapshot);
    CHECK(same(&cold, &warm));
    CHECK_INT(wst.files, st.files);
    CHECK_INT(wst.source_files, st.source_files);
    CHECK_INT(wst.edges, st.edges);
    CHECK_INT(wst.defs, st.defs);
    CHECK_INT(wst.refs, st.refs);
    CHECK_INT(wst.parsed, 0);
    CHECK_INT(wst.cached, 3);
    graph_release(&warm);

    /* a damaged snapshot is refused: built again, and written again */
    int fd = open(snap, O_RDWR);
    CHECK(fd >= 0);
    struct stat sb;
    CHECK(fstat(fd, &sb) == 0);
    CHECK(ftruncate(fd, sb.st_size - 16) == 0);
    close(fd);
    CHECK_INT(build(&warm, snap, &wst), 0);
    CHECK(!wst.from_snapshot);
    CHECK(same(&cold, &warm));
    graph_release(&warm);
    CHECK_INT(build(&warm, snap, &wst), 0);
    CHECK(wst.from_snapshot);
    graph_release(&warm);

    /* a changed file changes the key: built again, with the change */
    write_file_at("src/page.c", "int page(void) { return 0; }\n", 30);
    CHECK_INT(build(&warm, snap, &wst), 0);
    CHECK(!wst.from_snapshot);
    uint32_t page = graph_find_file(&warm, "src/page.c");
    CHECK(page != GRAPH_NONE && warm.files[page].nout == 0);
    graph_release(&warm);
    CHECK_INT(build(&warm, snap, &wst), 0);
    CHECK(wst.from_snapshot);
    CHECK(page != GRAPH_NONE && warm.files[page].nout == 0);
    graph_release(&warm);

    /* without the facts cache (deleted to parse everything again), the
     * snapshot is not used either */
    char cache[128];
    snprintf(cache, sizeof(cache), "%s/facts.cache", root);
    unlink(cache);
    CHECK_INT(build(&warm, snap, &wst), 0);
    CHECK(!wst.from_snapshot);
    CHECK_INT(wst.parsed, 3);
    graph_release(&warm);
    CHECK_INT(build(&warm, snap, &wst), 0);
    CHECK(wst.from_snapshot);
    graph_release(&warm);

    /* a file changed just now: built, but no snapshot written (a second
     * change within the same clock tick would keep its stat data) */
    unlink(snap);
    write_file_at("src/conn.c", "int conn_open(int fd) { return 0; }\n", 0);
    CHECK_INT(build(&warm, snap, &wst), 0);
    CHECK(!wst.from_snapshot);
    CHECK(access(snap, F_OK) != 0);
    graph_release(&warm);
    write_file_at("src/conn.c", "int conn_open(int fd) { return 0; }\n", 20);
    CHECK_INT(build(&warm, snap, &wst), 0);
    CHECK(access(snap, F_OK) == 0);
    graph_release(&warm);
    CHECK_INT(build(&warm, snap, &wst), 0);
    CHECK(wst.from_snapshot);
    graph_release(&warm);

    /* a repograph that took its graph from the snapshot is not updated */
    char tree[128];
    snprintf(tree, sizeof(tree), "%s/tree", root);
    struct repograph_file *files;
    size_t n;
    struct as_err e;
    CHECK_INT(repograph_scan_dir(tree, &files, &n, &e), 0);
    struct repograph_options o = { 0 };
    o.snapshot_path = snap;
    graph_init(&warm);
    struct repograph *rg = repograph_new(&warm, &o);
    CHECK_INT(
        repograph_load(rg, files, n, repograph_read_dir, tree, &wst, &e), 0);
    CHECK(wst.from_snapshot);
    CHECK_INT(repograph_update_file(rg, "src/page.c", "x", 1, &e), AS_EUNSUP);
    repograph_free(rg);
    graph_release(&warm);

    /* files with neither blob id nor stat data: no snapshot at all */
    for (size_t i = 0; i < n; i++)
        files[i].has_stat = false;
    char *none = tmp("none.snap");
    graph_init(&warm);
    CHECK_INT(repograph_build(
                  &warm, files, n, repograph_read_dir, tree, &o, &wst, &e),
        0);
    o.snapshot_path = none;
    graph_release(&warm);
    graph_init(&warm);
    CHECK_INT(repograph_build(
                  &warm, files, n, repograph_read_dir, tree, &o, &wst, &e),
        0);
    CHECK(!wst.from_snapshot);
    CHECK(access(none, F_OK) != 0);
    graph_release(&warm);
    repograph_scan_dir_free(files, n);
    free(none);

    graph_release(&cold);
    graph_release(&plain);
    free(snap);
}

int
main(void)
{
    snprintf(root, sizeof(root), "/tmp/airspace-graphsnap-XXXXXX");
    if (!mkdtemp(root))
        return 1;
    TEST_RUN("round trip", test_round_trip);
    TEST_RUN("copy on change", test_copy_on_change);
    TEST_RUN("damaged files", test_damaged);
    TEST_RUN("through repograph", test_repograph);
    test_rm_rf(root);
    return test_done();
}

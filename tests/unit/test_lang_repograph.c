/*
 * test_lang_repograph.c - whole-repository graph over a fixture directory
 * created under /tmp: edges per language, header -> source links, the facts
 * cache (warm, corrupt), progress and a stop, incremental updates and the
 * directory scanner.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lang/repograph.h"
#include "lang/sha1.h"
#include "test.h"

static char root[64];

static const struct {
    const char *path, *text;
} fixture[] = {
    { "src/page.c", "#include \"net/conn.h\"\n"
                    "#include <stdio.h>\n"
                    "int page(void) {\n"
                    "    struct conn c;\n"
                    "    return conn_open(&c, \"x\");\n"
                    "}\n" },
    { "src/net/conn.h", "#ifndef CONN_H\n#define CONN_H\n"
                        "struct conn { int fd; };\n"
                        "int conn_open(struct conn *c, const char *h);\n"
                        "void conn_close(struct conn *c);\n#endif\n" },
    { "src/net/conn.c", "#include \"conn.h\"\n"
                        "int\nconn_open(struct conn *c, const char *h)\n{\n"
                        "    c->fd = 3;\n    return 0;\n}\n" },
    { "src/net/close.c", "#include \"conn.h\"\n"
                         "void conn_close(struct conn *c) { c->fd = -1; }\n" },
    { "web/tsconfig.json", "{ \"compilerOptions\": { \"baseUrl\": \".\", "
                           "\"paths\": { \"@lib/*\": [\"lib/*\"] }, }, }\n" },
    { "web/app.ts", "import { f } from '@lib/f';\n"
                    "import { g } from './g.js';\n"
                    "export const x = f(g());\n" },
    { "web/lib/f.ts", "export function f(n: number) { return n; }\n" },
    { "web/g.ts", "export function g() { return 1; }\n" },
    { "py/app/__init__.py", "" },
    { "py/app/main.py", "from .models import User\nimport app.models\n"
                        "def run():\n    return User()\n" },
    { "py/app/models.py", "class User:\n    pass\n" },
    { "go.mod", "module example.com/m\n\ngo 1.22\n" },
    { "cmd/main.go", "package main\n\nimport \"example.com/m/store\"\n\n"
                     "func main() { store.Open() }\n" },
    { "store/store.go", "package store\n\nfunc Open() {}\n" },
    { "store/store_test.go", "package store\n" },
    { "README.md", "# fixture\n#include \"src/net/conn.h\"\n" },
};
#define NFIX (sizeof(fixture) / sizeof(fixture[0]))

static void
write_file(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0700);
            *p = '/';
        }
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
}

static bool
edge(const struct graph *g, const char *from, const char *to)
{
    uint32_t a = graph_find_file(g, from), b = graph_find_file(g, to);
    if (a == GRAPH_NONE || b == GRAPH_NONE)
        return false;
    for (uint32_t i = 0; i < g->files[a].nout; i++)
        if (g->files[a].out[i] == b)
            return true;
    return false;
}

static struct repograph_file *files;
static size_t nfiles;

static int
build(struct graph *g, const char *cache, struct repograph_stats *st)
{
    struct repograph_options o = { 0 };
    o.cache_path = cache;
    o.threads = 2;
    struct as_err e;
    graph_init(g);
    int rc =
        repograph_build(g, files, nfiles, repograph_read_dir, root, &o, st, &e);
    if (rc)
        fprintf(stderr, "build: %s\n", e.msg);
    return rc;
}

static void
check_edges(const struct graph *g)
{
    CHECK(edge(g, "src/page.c", "src/net/conn.h"));
    CHECK(edge(g, "src/net/conn.h", "src/net/conn.c"));
    CHECK(edge(g, "src/net/conn.h", "src/net/close.c"));
    CHECK(edge(g, "src/net/conn.c", "src/net/conn.h"));
    CHECK_INT(graph_distance(g, graph_find_file(g, "src/page.c"),
                  graph_find_file(g, "src/net/conn.c"), 6),
        2);
    CHECK(edge(g, "web/app.ts", "web/lib/f.ts"));
    CHECK(edge(g, "web/app.ts", "web/g.ts"));
    CHECK(edge(g, "py/app/main.py", "py/app/models.py"));
    CHECK(edge(g, "cmd/main.go", "store/store.go"));
    CHECK(!edge(g, "cmd/main.go", "store/store_test.go"));
    uint32_t readme = graph_find_file(g, "README.md");
    CHECK(readme != GRAPH_NONE);
    if (readme != GRAPH_NONE) {
        CHECK_INT(g->files[readme].nout, 0);
        CHECK(!g->files[readme].parsed);
    }
    CHECK_INT(g->nfiles, NFIX);
    CHECK_INT(graph_edge_count(g), 9);
}

static void
test_build(void)
{
    struct graph g;
    struct repograph_stats st;
    CHECK_INT(build(&g, NULL, &st), 0);
    check_edges(&g);
    CHECK_INT(st.files, NFIX);
    CHECK_INT(st.source_files, 13);
    CHECK_INT(st.parsed, 13);
    CHECK_INT(st.cached, 0);
    uint32_t c = graph_find_file(&g, "src/net/conn.c");
    uint32_t name = graph_find_name(&g, "conn_open", 9);
    bool found = false;
    for (uint32_t i = 0; c != GRAPH_NONE && i < g.files[c].ndefs; i++)
        if (g.files[c].defs[i].name == name) {
            CHECK_INT(g.files[c].defs[i].start, 2);
            CHECK_INT(g.files[c].defs[i].end, 7);
            CHECK_INT(g.files[c].defs[i].kind, GRAPH_SYM_FUNCTION);
            found = true;
        }
    CHECK(found);
    uint32_t p = graph_find_file(&g, "src/page.c");
    found = false;
    for (uint32_t i = 0; p != GRAPH_NONE && i < g.files[p].nrefs; i++)
        if (g.files[p].refs[i].name == name && g.files[p].refs[i].line == 5)
            found = true;
    CHECK(found);
    graph_release(&g);
}

static bool
same_graph(const struct graph *a, const struct graph *b)
{
    if (a->nfiles != b->nfiles || graph_edge_count(a) != graph_edge_count(b))
        return false;
    for (uint32_t i = 0; i < a->nfiles; i++) {
        uint32_t j = graph_find_file(b, a->files[i].path);
        if (j == GRAPH_NONE || a->files[i].nout != b->files[j].nout ||
            a->files[i].ndefs != b->files[j].ndefs ||
            a->files[i].nrefs != b->files[j].nrefs ||
            a->files[i].parsed != b->files[j].parsed)
            return false;
        for (uint32_t k = 0; k < a->files[i].nout; k++)
            if (!edge(b, a->files[i].path, a->files[a->files[i].out[k]].path))
                return false;
    }
    return true;
}

static void
test_cache(void)
{
    char cache[128];
    snprintf(cache, sizeof(cache), "%s/.git/facts.cache", root);
    struct graph cold, warm, again;
    struct repograph_stats st;
    CHECK_INT(build(&cold, cache, &st), 0);
    CHECK_INT(st.parsed, 13);
    CHECK_INT(st.cached, 0);
    CHECK(access(cache, F_OK) == 0);
    CHECK_INT(build(&warm, cache, &st), 0);
    CHECK_INT(st.parsed, 0);
    CHECK_INT(st.cached, 13);
    CHECK(same_graph(&cold, &warm));
    check_edges(&warm);

    /* corrupt one byte in the middle: ignored as a whole and rewritten */
    struct stat sb;
    CHECK(stat(cache, &sb) == 0);
    int fd = open(cache, O_RDWR);
    CHECK(fd >= 0);
    char x = 0x5a;
    CHECK(pwrite(fd, &x, 1, sb.st_size / 2) == 1);
    close(fd);
    CHECK_INT(build(&again, cache, &st), 0);
    CHECK_INT(st.parsed, 13);
    CHECK_INT(st.cached, 0);
    CHECK(same_graph(&cold, &again));
    graph_release(&again);

    /* truncated, and garbage */
    CHECK(truncate(cache, 20) == 0);
    CHECK_INT(build(&again, cache, &st), 0);
    CHECK_INT(st.parsed, 13);
    graph_release(&again);
    write_file(".git/facts.cache", "ASFACTS garbage garbage garbage garbage");
    CHECK_INT(build(&again, cache, &st), 0);
    CHECK_INT(st.parsed, 13);
    graph_release(&again);
    CHECK_INT(build(&again, cache, &st), 0);
    CHECK_INT(st.cached, 13);
    CHECK(same_graph(&cold, &again));
    graph_release(&again);

    /* git blob ids given by the caller key the same entries */
    struct repograph_file *withoid = calloc(nfiles, sizeof(*withoid));
    char(*hex)[41] = calloc(nfiles, sizeof(*hex));
    for (size_t i = 0; i < nfiles; i++) {
        char *buf;
        size_t len;
        CHECK_INT(repograph_read_dir(root, &files[i], &buf, &len), 0);
        uint8_t oid[20];
        sha1_git_blob(buf, len, oid);
        free(buf);
        for (int k = 0; k < 20; k++)
            snprintf(hex[i] + 2 * k, 3, "%02x", oid[k]);
        withoid[i].path = files[i].path;
        withoid[i].oid = hex[i];
    }
    struct repograph_options o = { 0 };
    o.cache_path = cache;
    struct as_err e;
    graph_init(&again);
    CHECK_INT(repograph_build(&again, withoid, nfiles, repograph_read_dir, root,
                  &o, &st, &e),
        0);
    CHECK_INT(st.cached, 13);
    CHECK(same_graph(&cold, &again));
    graph_release(&again);
    free(withoid);
    free(hex);

    graph_release(&cold);
    graph_release(&warm);
}

struct progress {
    size_t calls, first_done, first_total, last_done, last_total;
    bool monotonic;
    size_t stop_at;  /* stop once done reaches it (0: never) */
    bool stop_first; /* stop at once */
};

static int
on_progress(void *ctx, size_t done, size_t total)
{
    struct progress *p = ctx;
    if (!p->calls++) {
        p->first_done = done;
        p->first_total = total;
    } else if (done < p->last_done || total != p->last_total) {
        p->monotonic = false;
    }
    p->last_done = done;
    p->last_total = total;
    return p->stop_first || (p->stop_at && done >= p->stop_at);
}

static int
build_progress(
    struct graph *g, const char *cache, struct progress *pr, unsigned threads)
{
    struct repograph_options o = { 0 };
    o.cache_path = cache;
    o.threads = threads;
    o.progress = on_progress;
    o.progress_ctx = pr;
    pr->monotonic = true;
    struct as_err e;
    struct repograph_stats st;
    graph_init(g);
    return repograph_build(
        g, files, nfiles, repograph_read_dir, root, &o, &st, &e);
}

/* Progress: once before parsing, then once per file parsed, up to every
 * source file; the cache counts as done at once; a stop keeps what was
 * parsed in the cache. */
static void
test_progress(void)
{
    char cache[128];
    snprintf(cache, sizeof(cache), "%s/.git/progress.cache", root);
    struct graph g;
    struct progress pr = { 0 };
    CHECK_INT(build_progress(&g, cache, &pr, 2), 0);
    CHECK_INT(pr.calls, 14); /* before, and 13 source files */
    CHECK_INT(pr.first_done, 0);
    CHECK_INT(pr.first_total, 13);
    CHECK_INT(pr.last_done, 13);
    CHECK(pr.monotonic);
    graph_release(&g);
    memset(&pr, 0, sizeof(pr));
    CHECK_INT(build_progress(&g, cache, &pr, 2), 0);
    CHECK_INT(pr.calls, 1); /* all from the cache: nothing to parse */
    CHECK_INT(pr.first_done, 13);
    graph_release(&g);

    /* stopped after 3 files (one thread: exactly 3 parsed) */
    unlink(cache);
    memset(&pr, 0, sizeof(pr));
    pr.stop_at = 3;
    CHECK_INT(build_progress(&g, cache, &pr, 1), AS_ECANCELED);
    CHECK_INT(pr.last_done, 3);
    graph_release(&g);
    memset(&pr, 0, sizeof(pr));
    CHECK_INT(build_progress(&g, cache, &pr, 1), 0);
    CHECK_INT(pr.first_done, 3); /* the cache kept them */
    CHECK_INT(pr.last_done, 13);
    check_edges(&g);
    graph_release(&g);
    /* stopped at the first call: nothing parsed */
    unlink(cache);
    memset(&pr, 0, sizeof(pr));
    pr.stop_first = true;
    CHECK_INT(build_progress(&g, cache, &pr, 2), AS_ECANCELED);
    CHECK_INT(pr.calls, 1);
    graph_release(&g);
}

static void
test_update(void)
{
    struct graph g;
    graph_init(&g);
    struct repograph *rg = repograph_new(&g, NULL);
    struct as_err e;
    CHECK_INT(
        repograph_load(rg, files, nfiles, repograph_read_dir, root, NULL, &e),
        0);
    CHECK(repograph_graph(rg) == &g);
    check_edges(&g);

    /* page.c drops its include */
    const char *page = "int page(void) { return 0; }\n";
    CHECK_INT(
        repograph_update_file(rg, "src/page.c", page, strlen(page), &e), 0);
    CHECK(!edge(&g, "src/page.c", "src/net/conn.h"));
    CHECK(edge(&g, "src/net/conn.h", "src/net/conn.c"));

    /* a new header appears and page.c includes it */
    const char *hdr = "int extra(void);\n";
    CHECK_INT(
        repograph_update_file(rg, "./src/net/extra.h", hdr, strlen(hdr), &e),
        0);
    const char *page2 = "#include \"net/extra.h\"\nint page(void) "
                        "{ return extra(); }\n";
    CHECK_INT(
        repograph_update_file(rg, "src/page.c", page2, strlen(page2), &e), 0);
    CHECK(edge(&g, "src/page.c", "src/net/extra.h"));
    CHECK(!edge(&g, "src/page.c", "src/net/conn.h"));

    /* close.c stops defining conn_close: the header link goes */
    const char *cl = "#include \"conn.h\"\nvoid other(void) {}\n";
    CHECK_INT(
        repograph_update_file(rg, "src/net/close.c", cl, strlen(cl), &e), 0);
    CHECK(!edge(&g, "src/net/conn.h", "src/net/close.c"));
    CHECK(edge(&g, "src/net/close.c", "src/net/conn.h"));

    /* ... and a source defining extra() links the new header to it */
    const char *ex = "int extra(void) { return 1; }\n";
    CHECK_INT(
        repograph_update_file(rg, "lib/extra_impl.c", ex, strlen(ex), &e), 0);
    CHECK(edge(&g, "src/net/extra.h", "lib/extra_impl.c"));

    /* conn.c deleted */
    CHECK_INT(repograph_update_file(rg, "src/net/conn.c", NULL, 0, &e), 0);
    CHECK(!edge(&g, "src/net/conn.h", "src/net/conn.c"));
    uint32_t c = graph_find_file(&g, "src/net/conn.c");
    CHECK(c != GRAPH_NONE && g.files[c].nout == 0 && g.files[c].ndefs == 0);

    /* symbols replaced */
    uint32_t p = graph_find_file(&g, "src/page.c");
    uint32_t ename = graph_find_name(&g, "extra", 5);
    bool found = false;
    for (uint32_t i = 0; i < g.files[p].nrefs; i++)
        found |= g.files[p].refs[i].name == ename;
    CHECK(found);

    CHECK(repograph_update_file(rg, "../escape.c", "", 0, &e) < 0);
    repograph_free(rg);
    graph_release(&g);
}

static void
test_scan_dir(void)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/link.c", root);
    CHECK(symlink("/etc/passwd", path) == 0);
    snprintf(path, sizeof(path), "%s/linkdir", root);
    CHECK(symlink("/usr", path) == 0);
    struct repograph_file *f;
    size_t n;
    struct as_err e;
    CHECK_INT(repograph_scan_dir(root, &f, &n, &e), 0);
    CHECK_INT(n, NFIX);
    for (size_t i = 0; i < n; i++) {
        CHECK(strncmp(f[i].path, ".git", 4) != 0);
        CHECK(strncmp(f[i].path, "link", 4) != 0);
        CHECK(f[i].oid == NULL);
        if (i > 0)
            CHECK(strcmp(f[i - 1].path, f[i].path) < 0);
    }
    repograph_scan_dir_free(f, n);
    CHECK_INT(repograph_scan_dir("/nonexistent/dir", &f, &n, &e), AS_ENOENT);
}

static void
test_sha1(void)
{
    uint8_t oid[20];
    char hex[41];
    sha1_git_blob("hello\n", 6, oid);
    for (int k = 0; k < 20; k++)
        snprintf(hex + 2 * k, 3, "%02x", oid[k]);
    CHECK_STR(hex, "ce013625030ba8dba906f756967f9e9ca394464a");
    sha1_git_blob("", 0, oid);
    for (int k = 0; k < 20; k++)
        snprintf(hex + 2 * k, 3, "%02x", oid[k]);
    CHECK_STR(hex, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
}

int
main(void)
{
    snprintf(root, sizeof(root), "/tmp/airspace-repograph-XXXXXX");
    if (!mkdtemp(root))
        return 1;
    for (size_t i = 0; i < NFIX; i++)
        write_file(fixture[i].path, fixture[i].text);
    write_file(".git/HEAD", "ref: refs/heads/main\n");
    struct as_err e;
    if (repograph_scan_dir(root, &files, &nfiles, &e))
        return 1;
    TEST_RUN("sha1 git blob ids", test_sha1);
    TEST_RUN("build edges and symbols", test_build);
    TEST_RUN("facts cache", test_cache);
    TEST_RUN("progress, and a stop", test_progress);
    TEST_RUN("incremental update", test_update);
    TEST_RUN("scan dir", test_scan_dir);
    repograph_scan_dir_free(files, nfiles);
    test_rm_rf(root);
    return test_done();
}

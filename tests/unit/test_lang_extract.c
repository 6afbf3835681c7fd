/*
 * test_lang_extract.c - imports, definitions and references per language,
 * from the fixture files under tests/cases/lang/extract/.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"
#include "test.h"

static char *
read_fixture(const char *name, size_t *len)
{
    const char *root = getenv("AIRSPACE_SOURCE_DIR");
    char path[1024];
    snprintf(path, sizeof(path), "%s/tests/cases/lang/extract/%s",
        root ? root : ".", name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open '%s'\n", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static int
extract_file(const char *name, struct lang_facts *x)
{
    size_t len;
    char *src = read_fixture(name, &len);
    if (!src)
        return -1;
    struct as_err e;
    lang_facts_init(x);
    int rc = lang_extract(lang_detect(name), src, len, x, &e);
    free(src);
    return rc;
}

static bool
has_import(const struct lang_facts *x, const char *spec, int kind,
    uint32_t line, int level)
{
    for (size_t i = 0; i < x->nimports; i++)
        if (!strcmp(x->imports[i].spec, spec) && x->imports[i].kind == kind &&
            x->imports[i].line == line && x->imports[i].level == level)
            return true;
    return false;
}

static bool
has_import_spec(const struct lang_facts *x, const char *spec)
{
    for (size_t i = 0; i < x->nimports; i++)
        if (strstr(x->imports[i].spec, spec))
            return true;
    return false;
}

static const struct lang_def *
find_def_decl(const struct lang_facts *x, const char *name, int kind, bool decl)
{
    for (size_t i = 0; i < x->ndefs; i++)
        if (!strcmp(x->defs[i].name, name) && x->defs[i].kind == kind &&
            x->defs[i].decl == decl)
            return &x->defs[i];
    return NULL;
}

static const struct lang_def *
find_def(const struct lang_facts *x, const char *name, int kind)
{
    return find_def_decl(x, name, kind, false);
}

static bool
has_ref(const struct lang_facts *x, const char *name, uint32_t line)
{
    for (size_t i = 0; i < x->nrefs; i++)
        if (!strcmp(x->refs[i].name, name) && x->refs[i].line == line)
            return true;
    return false;
}

static bool
has_any(const struct lang_facts *x, const char *name)
{
    for (size_t i = 0; i < x->nrefs; i++)
        if (!strcmp(x->refs[i].name, name))
            return true;
    for (size_t i = 0; i < x->ndefs; i++)
        if (!strcmp(x->defs[i].name, name))
            return true;
    return has_import_spec(x, name);
}

struct imp_want {
    const char *spec;
    int kind;
    uint32_t line;
    int level;
};
struct def_want {
    const char *name;
    int kind;
    uint32_t start, end;
    bool decl;
};
struct ref_want {
    const char *name;
    uint32_t line;
};

#define MAXW 16
static const struct {
    const char *file;
    size_t nimports;
    struct imp_want imports[MAXW];
    struct def_want defs[MAXW];
    struct ref_want refs[MAXW];
    const char *absent[MAXW]; /* text only in comments or strings */
} cases[] = {
    { "conn.c", 2,
        { { "net/conn.h", LANG_IMPORT_INCLUDE_LOCAL, 2, 0 },
            { "stdlib.h", LANG_IMPORT_INCLUDE_SYSTEM, 3, 0 } },
        { { "MAX_CONN", LANG_DEF_MACRO, 5, 5, false },
            { "CONN_OK", LANG_DEF_MACRO, 6, 6, false },
            { "pool", LANG_DEF_TYPE, 8, 11, false },
            { "pool_t", LANG_DEF_TYPE, 13, 13, false },
            { "banner", LANG_DEF_CONSTANT, 15, 15, false },
            { "conn_open", LANG_DEF_FUNCTION, 17, 25, false },
            { "conn_close", LANG_DEF_FUNCTION, 27, 27, true },
            { "state", LANG_DEF_TYPE, 29, 29, false },
            { "IDLE", LANG_DEF_CONSTANT, 29, 29, false } },
        { { "MAX_CONN", 9 }, { "conn", 9 }, { "CONN_OK", 20 },
            { "socket_connect", 22 }, { "start", 23 }, { "fd", 22 } },
        { "fake", "fake_call" } },
    { "widget.cpp", 2,
        { { "widget.hpp", LANG_IMPORT_INCLUDE_LOCAL, 1, 0 },
            { "vector", LANG_IMPORT_INCLUDE_SYSTEM, 2, 0 } },
        { { "Widget", LANG_DEF_TYPE, 6, 12, false },
            { "size", LANG_DEF_METHOD, 9, 9, false },
            { "draw", LANG_DEF_METHOD, 8, 8, true },
            { "draw", LANG_DEF_METHOD, 14, 19, false } },
        { { "Base", 6 }, { "Canvas", 8 }, { "paint", 18 },
            { "render_items", 18 }, { "Item", 11 } },
        { "nothing" } },
    { "app.ts", 5,
        { { "./util", LANG_IMPORT_ES, 1, 0 },
            { "@app/config", LANG_IMPORT_ES, 2, 0 },
            { "../shared/thing.js", LANG_IMPORT_EXPORT_FROM, 3, 0 },
            { "fs", LANG_IMPORT_REQUIRE, 4, 0 },
            { "./lazy", LANG_IMPORT_DYNAMIC, 5, 0 } },
        { { "Options", LANG_DEF_TYPE, 9, 11, false },
            { "DEFAULT_PORT", LANG_DEF_CONSTANT, 13, 13, false },
            { "Server", LANG_DEF_TYPE, 15, 20, false },
            { "start", LANG_DEF_METHOD, 16, 19, false },
            { "makeServer", LANG_DEF_FUNCTION, 22, 24, false },
            { "handler", LANG_DEF_FUNCTION, 26, 28, false },
            { "Id", LANG_DEF_TYPE, 30, 30, false } },
        { { "helper", 17 }, { "listen", 18 }, { "Options", 16 },
            { "Config", 22 }, { "Server", 23 }, { "respond", 27 } },
        { "ghost", "notreal" } },
    { "legacy.js", 2,
        { { "path", LANG_IMPORT_REQUIRE, 1, 0 },
            { "./parser", LANG_IMPORT_REQUIRE, 2, 0 } },
        { { "run", LANG_DEF_FUNCTION, 4, 6, false } },
        { { "parse", 5 }, { "map", 5 }, { "trim", 5 } }, { "commented" } },
    { "service.py", 9,
        { { "os.path", LANG_IMPORT_PY, 2, 0 }, { "json", LANG_IMPORT_PY, 3, 0 },
            { "", LANG_IMPORT_PY_FROM, 4, 1 },
            { "models", LANG_IMPORT_PY_FROM_NAME, 4, 1 },
            { "core.db", LANG_IMPORT_PY_FROM, 5, 2 },
            { "core.db.Session", LANG_IMPORT_PY_FROM_NAME, 5, 2 },
            { "core.db.query", LANG_IMPORT_PY_FROM_NAME, 5, 2 },
            { "pkg.sub", LANG_IMPORT_PY_FROM, 6, 0 },
            { "pkg.sub.thing", LANG_IMPORT_PY_FROM_NAME, 6, 0 } },
        { { "RETRIES", LANG_DEF_CONSTANT, 8, 8, false },
            { "fetch", LANG_DEF_FUNCTION, 12, 14, false },
            { "Client", LANG_DEF_TYPE, 17, 19, false },
            { "get", LANG_DEF_METHOD, 18, 19, false } },
        { { "query", 14 }, { "Session", 14 }, { "lookup", 19 },
            { "Base", 17 } },
        { "nothing_here", "fake", "ghost" } },
    { "server.go", 2,
        { { "fmt", LANG_IMPORT_GO, 4, 0 },
            { "example.com/app/internal/store", LANG_IMPORT_GO, 5, 0 } },
        { { "MaxConns", LANG_DEF_CONSTANT, 10, 10, false },
            { "Server", LANG_DEF_TYPE, 12, 14, false },
            { "New", LANG_DEF_FUNCTION, 16, 18, false },
            { "Handle", LANG_DEF_METHOD, 20, 23, false } },
        { { "DB", 13 }, { "Server", 17 }, { "Println", 21 }, { "Get", 22 } },
        { "ghost" } },
    { "lib.rs", 7,
        { { "parser", LANG_IMPORT_RUST_MOD, 1, 0 },
            { "util", LANG_IMPORT_RUST_MOD, 2, 0 },
            { "crate::config", LANG_IMPORT_RUST_USE, 7, 0 },
            { "crate::config::Settings", LANG_IMPORT_RUST_USE, 7, 0 },
            { "crate::config::load", LANG_IMPORT_RUST_USE, 7, 0 },
            { "super::shared::Helper", LANG_IMPORT_RUST_USE, 8, 0 },
            { "std::collections::HashMap", LANG_IMPORT_RUST_USE, 9, 0 } },
        { { "LIMIT", LANG_DEF_CONSTANT, 13, 13, false },
            { "Engine", LANG_DEF_TYPE, 15, 17, false },
            { "run", LANG_DEF_METHOD, 20, 25, false },
            { "shout", LANG_DEF_MACRO, 28, 30, false } },
        { { "Settings", 16 }, { "parse", 22 }, { "apply", 23 },
            { "LIMIT", 24 } },
        { "ghost", "fake" } },
    { "Service.java", 3,
        { { "com.example.core.Repository", LANG_IMPORT_JAVA, 3, 0 },
            { "com.example.util", LANG_IMPORT_JAVA_WILDCARD, 4, 0 },
            { "com.example.core.Constants.MAX", LANG_IMPORT_JAVA_STATIC, 5,
                0 } },
        { { "Service", LANG_DEF_TYPE, 9, 22, false },
            { "LIMIT", LANG_DEF_CONSTANT, 10, 10, false },
            { "find", LANG_DEF_METHOD, 18, 21, false } },
        { { "Repository", 12 }, { "lookup", 20 }, { "String", 18 } },
        { "ghost", "Ghost", "fake", "Thing" } },
};

static void
test_fixtures(void)
{
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        TEST_BEGIN(cases[c].file);
        struct lang_facts x;
        CHECK_INT(extract_file(cases[c].file, &x), 0);
        CHECK_INT(x.nimports, cases[c].nimports);
        for (size_t i = 0; i < cases[c].nimports; i++) {
            const struct imp_want *w = &cases[c].imports[i];
            if (!has_import(&x, w->spec, w->kind, w->line, w->level)) {
                fprintf(stderr, "  missing import '%s'\n", w->spec);
                CHECK(0);
            }
        }
        for (size_t i = 0; i < MAXW && cases[c].defs[i].name; i++) {
            const struct def_want *w = &cases[c].defs[i];
            const struct lang_def *d =
                find_def_decl(&x, w->name, w->kind, w->decl);
            if (!d) {
                fprintf(stderr, "  missing def '%s'\n", w->name);
                CHECK(0);
                continue;
            }
            CHECK_INT(d->start, w->start);
            CHECK_INT(d->end, w->end);
            /* a definition's own name is not a reference to it */
            if (d->start == d->end)
                CHECK(!has_ref(&x, w->name, d->start) ||
                      !strcmp(w->name, "size"));
        }
        for (size_t i = 0; i < MAXW && cases[c].refs[i].name; i++) {
            if (!has_ref(&x, cases[c].refs[i].name, cases[c].refs[i].line)) {
                fprintf(stderr, "  missing ref '%s' line %u\n",
                    cases[c].refs[i].name, cases[c].refs[i].line);
                CHECK(0);
            }
        }
        for (size_t i = 0; i < MAXW && cases[c].absent[i]; i++) {
            if (has_any(&x, cases[c].absent[i])) {
                fprintf(stderr, "  found '%s' in a comment or string\n",
                    cases[c].absent[i]);
                CHECK(0);
            }
        }
        lang_facts_release(&x);
        TEST_END();
    }
}

static void
test_detect(void)
{
    static const struct {
        const char *path;
        enum lang_id want;
    } t[] = {
        { "src/a.c", LANG_C },
        { "include/a.h", LANG_C },
        { "a.hpp", LANG_CPP },
        { "a.hh", LANG_CPP },
        { "x/a.cc", LANG_CPP },
        { "a.cpp", LANG_CPP },
        { "a.cxx", LANG_CPP },
        { "a.js", LANG_JAVASCRIPT },
        { "a.mjs", LANG_JAVASCRIPT },
        { "a.cjs", LANG_JAVASCRIPT },
        { "a.jsx", LANG_JAVASCRIPT },
        { "a.ts", LANG_TYPESCRIPT },
        { "a.mts", LANG_TYPESCRIPT },
        { "a.cts", LANG_TYPESCRIPT },
        { "a.d.ts", LANG_TYPESCRIPT },
        { "a.tsx", LANG_TSX },
        { "a.py", LANG_PYTHON },
        { "a.go", LANG_GO },
        { "a.rs", LANG_RUST },
        { "A.java", LANG_JAVA },
        { "Makefile", LANG_NONE },
        { ".gitignore", LANG_NONE },
        { "dir.c/README", LANG_NONE },
        { "a.txt", LANG_NONE },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        CHECK_INT(lang_detect(t[i].path), t[i].want);
    CHECK_INT(lang_detect_ex("a.h", true), LANG_CPP);
    CHECK(lang_is_header("x/conn.h"));
    CHECK(lang_is_header("x/conn.hpp"));
    CHECK(!lang_is_header("x/conn.c"));
}

static void
test_abi(void)
{
    struct as_err e;
    CHECK_INT(lang_check_abi(&e), 0);
}

/* Keyword followed by 100 000 blanks, then a newline and a real import.
 * With broken, the blanks hold a line break every 512 bytes; without, they
 * are one line, and the source looks minified (LANG_MINIFIED_*). */
static char *
hostile(const char *head, const char *tail, bool broken, size_t *len)
{
    size_t hl = strlen(head), tl = strlen(tail), n = hl + 100000 + tl;
    char *s = malloc(n + 1);
    memcpy(s, head, hl);
    memset(s + hl, ' ', 100000);
    for (size_t i = 511; broken && i < 100000; i += 512)
        s[hl + i] = '\n';
    memcpy(s + hl + 100000, tail, tl);
    s[n] = '\0';
    *len = n;
    return s;
}

static void
test_hostile(void)
{
    static const struct {
        enum lang_id id;
        const char *head, *tail, *real;
    } t[] = {
        { LANG_TYPESCRIPT, "import", "\nimport './real';\n", "./real" },
        { LANG_JAVASCRIPT, "require(", "\nimport './real';\n", "./real" },
        { LANG_C, "#include", "\n#include \"real.h\"\n", "real.h" },
        { LANG_PYTHON, "from", "\nimport real\n", "real" },
        { LANG_GO, "package p\nimport", "\nimport \"real\"\n", "real" },
        { LANG_RUST, "use", "\nuse crate::real;\n", "crate::real" },
        { LANG_JAVA, "import", "\nimport a.real;\n", "a.real" },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        size_t len;
        char *s = hostile(t[i].head, t[i].tail, false, &len);
        struct lang_facts x;
        lang_facts_init(&x);
        struct as_err e;
        CHECK_INT(lang_extract(t[i].id, s, len, &x, &e), AS_ETOOBIG);
        CHECK_INT(x.ndefs + x.nrefs + x.nimports, 0);
        free(s);
        s = hostile(t[i].head, t[i].tail, true, &len);
        CHECK_INT(lang_extract(t[i].id, s, len, &x, &e), 0);
        /* nothing bogus: every import found is a real, short specifier */
        for (size_t k = 0; k < x.nimports; k++) {
            CHECK(strlen(x.imports[k].spec) < 64);
            CHECK(!strchr(x.imports[k].spec, ' '));
        }
        lang_facts_release(&x);
        free(s);
    }
    /* deep nesting (a line break every 64 parentheses: one line of them
     * all would be minified, not parsed) */
    size_t depth = 20000, n = 2 * depth + depth / 64 + 64;
    char *s = malloc(n);
    size_t o = 0;
    o += (size_t)snprintf(s, n, "int f(void) { return ");
    for (size_t i = 0; i < depth; i++) {
        s[o++] = '(';
        if (i % 64 == 63)
            s[o++] = '\n';
    }
    s[o++] = '1';
    memset(s + o, ')', depth);
    o += depth;
    o += (size_t)snprintf(s + o, n - o, "; }\n");
    struct lang_facts x;
    lang_facts_init(&x);
    struct as_err e;
    CHECK_INT(lang_extract(LANG_C, s, o, &x, &e), 0);
    CHECK(find_def(&x, "f", LANG_DEF_FUNCTION) != NULL);
    lang_facts_release(&x);
    free(s);
}

static void
test_caps(void)
{
    struct lang_facts x;
    lang_facts_init(&x);
    struct as_err e;
    CHECK_INT(lang_extract_max(LANG_C, "int x;", 6, 4, &x, &e), AS_ETOOBIG);
    CHECK_INT(lang_extract(LANG_NONE, "x", 1, &x, &e), AS_EINVAL);
    CHECK_INT(x.ndefs, 0);
    CHECK_INT(lang_extract(LANG_C, "", 0, &x, &e), 0);
    CHECK_INT(x.ndefs + x.nrefs + x.nimports, 0);
    lang_facts_release(&x);
}

/* A bundle's shape: many short definitions. As one line per 25 of them
 * (lines of about 1,500 bytes) it is minified and not parsed, its facts
 * left as they were; one per line parses; below 16 KiB the line length
 * does not count. */
static void
test_minified(void)
{
#define MIN_DEF "var a%04u=require(\"m%04u\");" /* 28 bytes */
    size_t n = 1000, cap = n * 40 + 1, o = 0;
    char *min = malloc(cap), *lines = malloc(cap);
    size_t ol = 0;
    for (unsigned i = 0; i < n; i++) {
        o += (size_t)snprintf(min + o, cap - o, MIN_DEF, i, i);
        if (i % 50 == 49)
            min[o++] = '\n';
        ol += (size_t)snprintf(lines + ol, cap - ol, MIN_DEF, i, i);
        lines[ol++] = '\n';
    }
    CHECK(o >= LANG_MINIFIED_MIN_BYTES &&
          o / (n / 50 + 1) > LANG_MINIFIED_LINE_BYTES);
    struct lang_facts x;
    lang_facts_init(&x);
    struct as_err e;
    CHECK_INT(lang_extract(LANG_JAVASCRIPT, min, o, &x, &e), AS_ETOOBIG);
    CHECK(strstr(e.msg, "minified") != NULL);
    CHECK_INT(x.ndefs + x.nrefs + x.nimports, 0);
    struct lang_kept *k = NULL;
    CHECK_INT(lang_extract_next(
                  LANG_JAVASCRIPT, &k, min, o, LANG_MAX_FILE_BYTES, &x, &e),
        AS_ETOOBIG);
    CHECK(k == NULL);
    CHECK_INT(lang_extract(LANG_JAVASCRIPT, lines, ol, &x, &e), 0);
    CHECK_INT(x.nimports, n);
    lang_facts_release(&x);
    /* the first 15 KiB as one line: too short to count as minified */
    lang_facts_init(&x);
    size_t small = 15 * 1024;
    for (size_t i = 0; i < small; i++)
        if (min[i] == '\n')
            min[i] = ' ';
    CHECK_INT(lang_extract(LANG_JAVASCRIPT, min, small, &x, &e), 0);
    CHECK(x.nimports > 500);
    lang_facts_release(&x);
    free(min);
    free(lines);
#undef MIN_DEF
}

static bool
same_facts(const struct lang_facts *a, const struct lang_facts *b)
{
    if (a->nimports != b->nimports || a->ndefs != b->ndefs ||
        a->nrefs != b->nrefs)
        return false;
    for (size_t i = 0; i < a->nimports; i++) {
        const struct lang_import *x = &a->imports[i], *y = &b->imports[i];
        if (strcmp(x->spec, y->spec) || x->line != y->line ||
            x->kind != y->kind || x->level != y->level ||
            x->type_only != y->type_only)
            return false;
    }
    for (size_t i = 0; i < a->ndefs; i++) {
        const struct lang_def *x = &a->defs[i], *y = &b->defs[i];
        if (strcmp(x->name, y->name) || x->start != y->start ||
            x->end != y->end || x->kind != y->kind || x->decl != y->decl)
            return false;
    }
    for (size_t i = 0; i < a->nrefs; i++)
        if (strcmp(a->refs[i].name, b->refs[i].name) ||
            a->refs[i].line != b->refs[i].line)
            return false;
    return true;
}

static uint32_t
rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* The start of line k of s (0-based; len past the last). */
static size_t
line_at(const char *s, size_t len, size_t k)
{
    size_t o = 0;
    while (k-- && o < len) {
        const char *nl = memchr(s + o, '\n', len - o);
        o = nl ? (size_t)(nl + 1 - s) : len;
    }
    return o;
}

/* s with one random edit of the kinds a history has: a line removed,
 * copied elsewhere, changed inside, two lines joined, text added at the
 * end without a newline. */
static char *
mutate(const char *s, size_t len, size_t *out, uint64_t *seed)
{
    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += s[i] == '\n';
    char *r = malloc(2 * len + 64);
    size_t a = line_at(s, len, rnd(seed) % lines);
    size_t b = line_at(s, len, rnd(seed) % lines);
    size_t aend = a;
    while (aend < len && s[aend] != '\n')
        aend++;
    if (aend < len)
        aend++;
    size_t n = 0;
    switch (rnd(seed) % 5) {
    case 0: /* remove line a */
        memcpy(r, s, a);
        memcpy(r + a, s + aend, len - aend);
        n = len - (aend - a);
        break;
    case 1: /* copy line a before line b */
        memcpy(r, s, b);
        memcpy(r + b, s + a, aend - a);
        memcpy(r + b + (aend - a), s + b, len - b);
        n = len + (aend - a);
        break;
    case 2: { /* a character inside line a replaced */
        memcpy(r, s, len);
        n = len;
        if (aend > a)
            r[a + rnd(seed) % (aend - a)] = "x;{}( \n"[rnd(seed) % 7];
        break;
    }
    case 3: /* line a joined with the next */
        memcpy(r, s, len);
        n = len;
        if (aend > a && r[aend - 1] == '\n')
            r[aend - 1] = ' ';
        break;
    default: /* text added at the end, no newline */
        memcpy(r, s, len);
        memcpy(r + len, "\nlast", 5);
        n = len + 5;
        break;
    }
    *out = n;
    return r;
}

/* A kept parse gives, version after version, the facts a fresh parse
 * gives: several edits between versions, syntax errors included. */
static void
test_incremental(void)
{
    static const char *files[] = { "app.ts", "legacy.js", "service.py",
        "conn.c", "widget.cpp", "server.go", "lib.rs", "Service.java" };
    for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
        size_t len;
        char *src = read_fixture(files[f], &len);
        CHECK(src != NULL);
        if (!src)
            continue;
        enum lang_id id = lang_detect(files[f]);
        struct lang_kept *k = NULL;
        uint64_t seed = 42 + f;
        for (int v = 0; v < 60; v++) {
            struct lang_facts inc, fresh;
            lang_facts_init(&inc);
            lang_facts_init(&fresh);
            struct as_err e;
            CHECK_INT(
                lang_extract_next(id, &k, src, len, 1 << 20, &inc, &e), 0);
            CHECK_INT(lang_extract(id, src, len, &fresh, &e), 0);
            CHECK_INT(lang_kept_bytes(k), len);
            if (!same_facts(&inc, &fresh)) {
                fprintf(stderr, "  %s version %d: facts differ\n", files[f], v);
                CHECK(0);
            }
            lang_facts_release(&inc);
            lang_facts_release(&fresh);
            /* up to three edits apart */
            int edits = 1 + (int)(rnd(&seed) % 3);
            for (int i = 0; i < edits; i++) {
                size_t n;
                char *next = mutate(src, len, &n, &seed);
                free(src);
                src = next;
                len = n;
            }
        }
        /* a language change starts over; an error frees what was kept */
        struct lang_facts x;
        lang_facts_init(&x);
        struct as_err e;
        const char *c = "int fx(void) { return 1; }\n";
        CHECK_INT(
            lang_extract_next(LANG_C, &k, c, strlen(c), 1 << 20, &x, &e), 0);
        CHECK(find_def(&x, "fx", LANG_DEF_FUNCTION) != NULL);
        CHECK_INT(
            lang_extract_next(LANG_C, &k, "int y;", 6, 4, &x, &e), AS_ETOOBIG);
        CHECK(k == NULL);
        lang_facts_release(&x);
        free(src);
    }
}

/* ---- C declarations wrapped in macros (libgit2's headers) ---- */

static const char lg2_h[] =
    "#ifndef INCLUDE_git_x_h__\n"                                   /* 1 */
    "#define INCLUDE_git_x_h__\n"                                   /* 2 */
    "#include \"common.h\"\n"                                       /* 3 */
    "GIT_BEGIN_DECL\n"                                              /* 4 */
    "\n"                                                            /* 5 */
    "/** Does one thing. */\n"                                      /* 6 */
    "GIT_EXTERN(int) git_x_one(int x);\n"                           /* 7 */
    "\n"                                                            /* 8 */
    "/** Calls back. */\n"                                          /* 9 */
    "typedef int GIT_CALLBACK(git_x_cb)(const char *s, void *p);\n" /* 10 */
    "\n"                                                            /* 11 */
    "GIT_EXTERN(const char *) git_x_name(\n"                        /* 12 */
    "\tconst git_x *x);\n"                                          /* 13 */
    "\n"                                                            /* 14 */
    "typedef struct {\n"                                            /* 15 */
    "\tint GIT_CALLBACK(free)(git_x *x);\n"                         /* 16 */
    "} git_x_ops;\n"                                                /* 17 */
    "\n"                                                            /* 18 */
    "GIT_EXTERN(void) git_x_set(int c, const char *fmt, ...)\n"     /* 19 */
    "\tGIT_FORMAT_PRINTF(2, 3);\n"                                  /* 20 */
    "\n"                                                            /* 21 */
    "GIT_END_DECL\n"                                                /* 22 */
    "#endif\n";                                                     /* 23 */

/* Upper-case names that are no decorations: types, enumerators. */
static const char plain_c[] = "HRESULT\n"                  /* 1 */
                              "do_thing(void);\n"          /* 2 */
                              "\n"                         /* 3 */
                              "BOOL\n"                     /* 4 */
                              "is_ready(int x)\n"          /* 5 */
                              "{\n"                        /* 6 */
                              "    CHECK(x) return 0;\n"   /* 7 */
                              "    return 1;\n"            /* 8 */
                              "}\n"                        /* 9 */
                              "enum mode {\n"              /* 10 */
                              "    MODE_A,\n"              /* 11 */
                              "MODE_B\n"                   /* 12 */
                              "};\n"                       /* 13 */
                              "enum { ONLY\n"              /* 14 */
                              "};\n"                       /* 15 */
                              "static const int LIMIT =\n" /* 16 */
                              "    MAX_LIMIT;\n";          /* 17 */

static void
test_macro_decls(void)
{
    static const char *const macros[] = { "GIT_BEGIN_DECL", "GIT_END_DECL",
        "GIT_EXTERN", "GIT_CALLBACK", "GIT_FORMAT_PRINTF" };
    struct lang_facts x;
    struct as_err e;
    lang_facts_init(&x);
    CHECK_INT(lang_extract(LANG_C, lg2_h, strlen(lg2_h), &x, &e), 0);
    const struct lang_def *d =
        find_def_decl(&x, "git_x_one", LANG_DEF_FUNCTION, true);
    CHECK(d && d->start == 7 && d->end == 7);
    d = find_def(&x, "git_x_cb", LANG_DEF_TYPE);
    CHECK(d && d->start == 10 && d->end == 10);
    d = find_def_decl(&x, "git_x_name", LANG_DEF_FUNCTION, true);
    CHECK(d && d->start == 12 && d->end == 13);
    CHECK(find_def(&x, "git_x_ops", LANG_DEF_TYPE) != NULL);
    CHECK(find_def_decl(&x, "git_x_set", LANG_DEF_FUNCTION, true) != NULL);
    for (size_t i = 0; i < sizeof(macros) / sizeof(macros[0]); i++)
        for (size_t j = 0; j < x.ndefs; j++)
            if (!strcmp(x.defs[j].name, macros[i])) {
                fprintf(stderr, "  %s is a definition\n", macros[i]);
                CHECK(0);
            }
    /* the macros are still used where they stand */
    CHECK(has_ref(&x, "GIT_BEGIN_DECL", 4));
    CHECK(has_ref(&x, "GIT_EXTERN", 7));
    CHECK(has_ref(&x, "GIT_EXTERN", 12));
    CHECK(has_ref(&x, "GIT_FORMAT_PRINTF", 20));
    CHECK(has_ref(&x, "GIT_END_DECL", 22));
    CHECK(has_ref(&x, "git_x", 13));
    lang_facts_release(&x);

    /* the same in C++, inside extern "C" */
    const char *cpp = "extern \"C\" {\n"
                      "MY_BEGIN\n"
                      "MY_API(int) my_open(void);\n"
                      "MY_END\n"
                      "}\n";
    lang_facts_init(&x);
    CHECK_INT(lang_extract(LANG_CPP, cpp, strlen(cpp), &x, &e), 0);
    CHECK(find_def_decl(&x, "my_open", LANG_DEF_FUNCTION, true) != NULL);
    CHECK_INT(x.ndefs, 1);
    lang_facts_release(&x);

    lang_facts_init(&x);
    CHECK_INT(lang_extract(LANG_C, plain_c, strlen(plain_c), &x, &e), 0);
    d = find_def_decl(&x, "do_thing", LANG_DEF_FUNCTION, true);
    CHECK(d && d->start == 1 && d->end == 2);
    d = find_def(&x, "is_ready", LANG_DEF_FUNCTION);
    CHECK(d && d->start == 4 && d->end == 9);
    CHECK(find_def(&x, "MODE_B", LANG_DEF_CONSTANT) != NULL);
    CHECK(find_def(&x, "ONLY", LANG_DEF_CONSTANT) != NULL);
    CHECK(find_def(&x, "LIMIT", LANG_DEF_CONSTANT) != NULL);
    CHECK(has_ref(&x, "MAX_LIMIT", 17));
    CHECK(has_ref(&x, "CHECK", 7));
    lang_facts_release(&x);

    /* a kept parse of the blanked text gives a fresh parse's facts */
    struct lang_kept *k = NULL;
    const char *versions[] = { lg2_h, plain_c, lg2_h };
    char *edited = strdup(lg2_h);
    char *doc = strstr(edited, "Does one");
    memcpy(doc, "Did", 3);
    for (size_t v = 0; v < 4; v++) {
        const char *src = v < 3 ? versions[v] : edited;
        struct lang_facts inc, fresh;
        lang_facts_init(&inc);
        lang_facts_init(&fresh);
        CHECK_INT(
            lang_extract_next(LANG_C, &k, src, strlen(src), 1 << 20, &inc, &e),
            0);
        CHECK_INT(lang_extract(LANG_C, src, strlen(src), &fresh, &e), 0);
        CHECK(same_facts(&inc, &fresh));
        lang_facts_release(&inc);
        lang_facts_release(&fresh);
    }
    lang_kept_free(k);
    free(edited);
}

int
main(void)
{
    TEST_RUN("detect by extension", test_detect);
    TEST_RUN("grammar abi", test_abi);
    test_fixtures();
    TEST_RUN("hostile inputs", test_hostile);
    TEST_RUN("caps", test_caps);
    TEST_RUN("minified", test_minified);
    TEST_RUN("incremental parse", test_incremental);
    TEST_RUN("macro-wrapped C declarations", test_macro_decls);
    return test_done();
}

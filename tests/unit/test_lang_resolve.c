/*
 * test_lang_resolve.c - module resolution per language over an in-memory
 * list of repository files and configuration texts.
 */
#include <stdlib.h>
#include <string.h>

#include "lang/resolve.h"
#include "test.h"

static const char *const repo_files[] = {
    /* C */
    "src/page.c",
    "src/net/conn.h",
    "src/net/conn.c",
    "src/util.h",
    "include/api.h",
    "lib/x.c",
    "third/a/dup.h",
    "src/dup.h",
    /* JS / TS */
    "web/src/app.ts",
    "web/src/util.ts",
    "web/src/lazy/index.tsx",
    "web/src/legacy.js",
    "web/shared/thing.ts",
    "web/shared/types.d.ts",
    "web/src/config/index.ts",
    "web/tsconfig.json",
    "packages/ui/package.json",
    "packages/ui/src/index.ts",
    "packages/ui/src/button.tsx",
    /* Python */
    "app/__init__.py",
    "app/service.py",
    "app/models.py",
    "app/core/__init__.py",
    "app/core/db.py",
    "src/pkg/__init__.py",
    "src/pkg/sub.py",
    "scripts/run.py",
    "scripts/helper.py",
    /* Go */
    "go.mod",
    "internal/store/store.go",
    "internal/store/db.go",
    "internal/store/store_test.go",
    "cmd/app/main.go",
    /* Rust */
    "rs/src/lib.rs",
    "rs/src/parser.rs",
    "rs/src/util/mod.rs",
    "rs/src/config.rs",
    "rs/src/util/strings.rs",
    "rs/src/shared.rs",
    /* Java */
    "java/src/main/java/com/example/app/Service.java",
    "java/src/main/java/com/example/core/Repository.java",
    "java/src/main/java/com/example/core/Constants.java",
    "java/src/main/java/com/example/util/A.java",
    "java/src/main/java/com/example/util/B.java",
};

static const char tsconfig[] = "{\n"
                               "  // comments are allowed\n"
                               "  \"compilerOptions\": {\n"
                               "    \"baseUrl\": \"./src\",\n"
                               "    \"paths\": {\n"
                               "      \"@app/*\": [\"./*\"], /* block */\n"
                               "      \"@shared/*\": [\"../shared/*\"],\n"
                               "    },\n"
                               "  },\n"
                               "}\n";
static const char uipkg[] =
    "{ \"name\": \"@acme/ui\", \"main\": \"src/index.ts\" }";
static const char gomod[] = "// comment\nmodule example.com/app\n\ngo 1.22\n";

struct rcase {
    const char *name;
    const char *from;
    enum lang_id lang;
    struct lang_import im;
    const char *want[4]; /* NULL-terminated; none means unresolved */
};

#define IMP(s, k)                                                              \
    {                                                                          \
        .spec = (char *)(s), .kind = (k)                                       \
    }
#define IMPL(s, k, l)                                                          \
    {                                                                          \
        .spec = (char *)(s), .kind = (k), .level = (l)                         \
    }

static const struct rcase cases[] = {
    { "c: same directory", "src/net/conn.c", LANG_C,
        IMP("conn.h", LANG_IMPORT_INCLUDE_LOCAL), { "src/net/conn.h" } },
    { "c: relative with dir", "src/page.c", LANG_C,
        IMP("net/conn.h", LANG_IMPORT_INCLUDE_LOCAL), { "src/net/conn.h" } },
    { "c: suffix match", "lib/x.c", LANG_C,
        IMP("net/conn.h", LANG_IMPORT_INCLUDE_LOCAL), { "src/net/conn.h" } },
    { "c: include dir", "lib/x.c", LANG_C,
        IMP("api.h", LANG_IMPORT_INCLUDE_SYSTEM), { "include/api.h" } },
    { "c: system header outside repo", "src/page.c", LANG_C,
        IMP("stdio.h", LANG_IMPORT_INCLUDE_SYSTEM), { NULL } },
    { "c: ambiguous suffix goes to closest", "src/page.c", LANG_C,
        IMP("dup.h", LANG_IMPORT_INCLUDE_SYSTEM), { "src/dup.h" } },
    { "c: parent dir", "src/net/conn.c", LANG_C,
        IMP("../util.h", LANG_IMPORT_INCLUDE_LOCAL), { "src/util.h" } },
    { "ts: relative ext probing", "web/src/app.ts", LANG_TYPESCRIPT,
        IMP("./util", LANG_IMPORT_ES), { "web/src/util.ts" } },
    { "ts: index probing", "web/src/app.ts", LANG_TYPESCRIPT,
        IMP("./lazy", LANG_IMPORT_DYNAMIC), { "web/src/lazy/index.tsx" } },
    { "ts: .js specifier to .ts file", "web/src/app.ts", LANG_TYPESCRIPT,
        IMP("../shared/thing.js", LANG_IMPORT_EXPORT_FROM),
        { "web/shared/thing.ts" } },
    { "ts: .d.ts", "web/src/app.ts", LANG_TYPESCRIPT,
        IMP("../shared/types", LANG_IMPORT_ES), { "web/shared/types.d.ts" } },
    { "ts: real .js", "web/src/app.ts", LANG_TYPESCRIPT,
        IMP("./legacy.js", LANG_IMPORT_ES), { "web/src/legacy.js" } },
    { "ts: tsconfig paths", "web/src/app.ts", LANG_TYPESCRIPT,
        IMP("@app/config", LANG_IMPORT_ES), { "web/src/config/index.ts" } },
    { "ts: tsconfig paths outside base", "web/src/app.ts", LANG_TYPESCRIPT,
        IMP("@shared/thing", LANG_IMPORT_ES), { "web/shared/thing.ts" } },
    { "ts: baseUrl", "web/src/app.ts", LANG_TYPESCRIPT,
        IMP("util", LANG_IMPORT_ES), { "web/src/util.ts" } },
    { "ts: workspace package", "web/src/app.ts", LANG_TYPESCRIPT,
        IMP("@acme/ui", LANG_IMPORT_ES), { "packages/ui/src/index.ts" } },
    { "ts: workspace package subpath", "web/src/app.ts", LANG_TSX,
        IMP("@acme/ui/button", LANG_IMPORT_ES),
        { "packages/ui/src/button.tsx" } },
    { "js: npm package is external", "web/src/legacy.js", LANG_JAVASCRIPT,
        IMP("react", LANG_IMPORT_REQUIRE), { NULL } },
    { "py: absolute module", "app/service.py", LANG_PYTHON,
        IMP("app.models", LANG_IMPORT_PY), { "app/models.py" } },
    { "py: package init", "app/service.py", LANG_PYTHON,
        IMP("app.core", LANG_IMPORT_PY), { "app/core/__init__.py" } },
    { "py: relative level 1 name", "app/service.py", LANG_PYTHON,
        IMPL("models", LANG_IMPORT_PY_FROM_NAME, 1), { "app/models.py" } },
    { "py: relative level 1 package", "app/service.py", LANG_PYTHON,
        IMPL("", LANG_IMPORT_PY_FROM, 1), { "app/__init__.py" } },
    { "py: relative level 2", "app/core/db.py", LANG_PYTHON,
        IMPL("models", LANG_IMPORT_PY_FROM, 2), { "app/models.py" } },
    { "py: src root", "app/service.py", LANG_PYTHON,
        IMP("pkg.sub", LANG_IMPORT_PY_FROM), { "src/pkg/sub.py" } },
    { "py: symbol name is not a module", "app/service.py", LANG_PYTHON,
        IMP("app.core.db.Session", LANG_IMPORT_PY_FROM_NAME), { NULL } },
    { "py: sibling script", "scripts/run.py", LANG_PYTHON,
        IMP("helper", LANG_IMPORT_PY), { "scripts/helper.py" } },
    { "py: stdlib", "app/service.py", LANG_PYTHON,
        IMP("os.path", LANG_IMPORT_PY), { NULL } },
    { "py: level above root", "app/service.py", LANG_PYTHON,
        IMPL("x", LANG_IMPORT_PY_FROM, 5), { NULL } },
    { "go: package dir, no tests", "cmd/app/main.go", LANG_GO,
        IMP("example.com/app/internal/store", LANG_IMPORT_GO),
        { "internal/store/store.go", "internal/store/db.go" } },
    { "go: stdlib", "cmd/app/main.go", LANG_GO, IMP("fmt", LANG_IMPORT_GO),
        { NULL } },
    { "rust: mod from lib.rs", "rs/src/lib.rs", LANG_RUST,
        IMP("parser", LANG_IMPORT_RUST_MOD), { "rs/src/parser.rs" } },
    { "rust: mod dir", "rs/src/lib.rs", LANG_RUST,
        IMP("util", LANG_IMPORT_RUST_MOD), { "rs/src/util/mod.rs" } },
    { "rust: mod from mod.rs", "rs/src/util/mod.rs", LANG_RUST,
        IMP("strings", LANG_IMPORT_RUST_MOD), { "rs/src/util/strings.rs" } },
    { "rust: use crate", "rs/src/parser.rs", LANG_RUST,
        IMP("crate::config::Settings", LANG_IMPORT_RUST_USE),
        { "rs/src/config.rs" } },
    { "rust: use crate nested", "rs/src/parser.rs", LANG_RUST,
        IMP("crate::util::strings::trim", LANG_IMPORT_RUST_USE),
        { "rs/src/util/strings.rs" } },
    { "rust: use super", "rs/src/util/strings.rs", LANG_RUST,
        IMP("super::super::shared::Helper", LANG_IMPORT_RUST_USE),
        { "rs/src/shared.rs" } },
    { "rust: external crate", "rs/src/lib.rs", LANG_RUST,
        IMP("std::collections::HashMap", LANG_IMPORT_RUST_USE), { NULL } },
    { "java: class", "java/src/main/java/com/example/app/Service.java",
        LANG_JAVA, IMP("com.example.core.Repository", LANG_IMPORT_JAVA),
        { "java/src/main/java/com/example/core/Repository.java" } },
    { "java: static member", "java/src/main/java/com/example/app/Service.java",
        LANG_JAVA,
        IMP("com.example.core.Constants.MAX", LANG_IMPORT_JAVA_STATIC),
        { "java/src/main/java/com/example/core/Constants.java" } },
    { "java: wildcard", "java/src/main/java/com/example/app/Service.java",
        LANG_JAVA, IMP("com.example.util", LANG_IMPORT_JAVA_WILDCARD),
        { "java/src/main/java/com/example/util/A.java",
            "java/src/main/java/com/example/util/B.java" } },
    { "java: jdk", "java/src/main/java/com/example/app/Service.java", LANG_JAVA,
        IMP("java.util.List", LANG_IMPORT_JAVA), { NULL } },
};

static bool
has(const struct resolve_result *res, const char *p)
{
    for (size_t i = 0; i < res->n; i++)
        if (!strcmp(res->v[i], p))
            return true;
    return false;
}

int
main(void)
{
    static const char *const inc[] = { "include" };
    struct resolver *r = resolver_new(inc, 1);
    for (size_t i = 0; i < sizeof(repo_files) / sizeof(repo_files[0]); i++)
        resolver_add_file(r, repo_files[i]);
    resolver_add_config(r, "web/tsconfig.json", tsconfig, strlen(tsconfig));
    resolver_add_config(r, "packages/ui/package.json", uipkg, strlen(uipkg));
    resolver_add_config(r, "go.mod", gomod, strlen(gomod));

    struct resolve_result res = { 0 };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        TEST_BEGIN(cases[c].name);
        resolve_result_clear(&res);
        size_t n = resolver_resolve(
            r, cases[c].from, cases[c].lang, &cases[c].im, &res);
        size_t want = 0;
        while (want < 4 && cases[c].want[want])
            want++;
        CHECK_INT(n, want);
        CHECK_INT(res.n, want);
        for (size_t i = 0; i < want; i++)
            if (!has(&res, cases[c].want[i])) {
                fprintf(stderr, "  missing '%s'\n", cases[c].want[i]);
                CHECK(0);
            }
        TEST_END();
    }

    TEST_BEGIN("config helpers");
    CHECK(resolver_is_config("go.mod"));
    CHECK(resolver_is_config("a/tsconfig.base.json"));
    CHECK(resolver_is_config("a/package.json"));
    CHECK(!resolver_is_config("a/config.json"));
    TEST_END();

    TEST_BEGIN("removed file no longer resolves");
    resolver_remove_file(r, "src/net/conn.h");
    struct lang_import im = IMP("net/conn.h", LANG_IMPORT_INCLUDE_LOCAL);
    resolve_result_clear(&res);
    CHECK_INT(resolver_resolve(r, "src/page.c", LANG_C, &im, &res), 0);
    resolver_add_file(r, "src/net/conn.h");
    CHECK_INT(resolver_resolve(r, "src/page.c", LANG_C, &im, &res), 1);
    TEST_END();

    TEST_BEGIN("malformed config is ignored");
    resolver_add_config(r, "web/tsconfig.json", "{ not json", 10);
    struct lang_import im2 = IMP("@app/config", LANG_IMPORT_ES);
    resolve_result_clear(&res);
    CHECK_INT(
        resolver_resolve(r, "web/src/app.ts", LANG_TYPESCRIPT, &im2, &res), 0);
    TEST_END();

    resolve_result_release(&res);
    resolver_free(r);
    return test_done();
}

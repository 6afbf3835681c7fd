/*
 * test_lang_symbols.c - symbol evidence over real parses: small projects
 * shaped like real ones are parsed into a graph, two agents edit them, and
 * the dependency and symbol channels must point at what the edits share,
 * no more: a class is not a use of every method in it, a new call is
 * cited where it was written, and an import of types alone is no runtime
 * dependency.
 */
#include <stdlib.h>
#include <string.h>

#include "core/risk.h"
#include "lang/agentnames.h"
#include "lang/lang.h"
#include "lang/repograph.h"
#include "util/xalloc.h"
#include "test.h"
#include "util/banned.h"

static const char cart_py[] =
    "from .pricing import unit_price\n"                              /* 1 */
    "\n"                                                             /* 2 */
    "\n"                                                             /* 3 */
    "class Cart:\n"                                                  /* 4 */
    "    \"\"\"A customer's basket.\"\"\"\n"                         /* 5 */
    "\n"                                                             /* 6 */
    "    currency = \"EUR\"\n"                                       /* 7 */
    "\n"                                                             /* 8 */
    "    def __init__(self, owner):\n"                               /* 9 */
    "        self.owner = owner\n"                                   /* 10 */
    "        self.lines = []\n"                                      /* 11 */
    "\n"                                                             /* 12 */
    "    def add(self, sku, qty=1):\n"                               /* 13 */
    "        for line in self.lines:\n"                              /* 14 */
    "            if line.sku == sku:\n"                              /* 15 */
    "                line.qty += qty\n"                              /* 16 */
    "                return line\n"                                  /* 17 */
    "        line = Line(sku, qty)\n"                                /* 18 */
    "        self.lines.append(line)\n"                              /* 19 */
    "        return line\n"                                          /* 20 */
    "\n"                                                             /* 21 */
    "    def add_many(self, items):\n"                               /* 22 */
    "        for sku, qty in items:\n"                               /* 23 */
    "            self.add(sku, qty)\n"                               /* 24 */
    "\n"                                                             /* 25 */
    "    def remove(self, sku):\n"                                   /* 26 */
    "        self.lines = [l for l in self.lines if l.sku != sku]\n" /* 27 */
    "\n"                                                             /* 28 */
    "    def total(self):\n"                                         /* 29 */
    "        return sum(unit_price(l.sku) * l.qty for l in self.lines)\n"
    "\n"
    "\n"
    "class Line:\n"
    "    def __init__(self, sku, qty):\n"
    "        self.sku = sku\n"
    "        self.qty = qty\n";

static const struct {
    const char *path, *text;
} project[] = {
    { "shop/__init__.py", "" }, { "shop/cart.py", cart_py },
    { "shop/pricing.py", "PRICES = {\"apple\": 3, \"pear\": 4}\n"
                         "\n"
                         "\n"
                         "def unit_price(sku):\n"
                         "    return PRICES[sku]\n" },
    { "shop/checkout.py", "from .cart import Cart\n"
                          "\n"
                          "\n"
                          "def checkout(owner, items):\n"
                          "    cart = Cart(owner)\n"
                          "    cart.add_many(items)\n"
                          "    return cart.total()\n" },
    { "shop/report.py", "from __future__ import annotations\n"
                        "\n"
                        "from typing import TYPE_CHECKING\n"
                        "\n"
                        "if TYPE_CHECKING:\n"
                        "    from .cart import Cart\n"
                        "\n"
                        "\n"
                        "def summary(cart: Cart) -> str:\n"
                        "    return f\"{len(cart.lines)} lines\"\n" },
    { "web/user.ts", "export interface User {\n"
                     "  id: string;\n"
                     "  name: string;\n"
                     "}\n"
                     "\n"
                     "export function loadUser(id: string): User {\n"
                     "  return { id, name: id };\n"
                     "}\n" },
    { "web/badge.ts", "import type { User } from './user';\n"
                      "\n"
                      "export function badge(u: User): string {\n"
                      "  return `@${u.name}`;\n"
                      "}\n" },
    { "web/profile.ts", "import { type User, loadUser } from './user';\n"
                        "\n"
                        "export function profile(id: string): User {\n"
                        "  return loadUser(id);\n"
                        "}\n" },
    { "src/net/conn.h", "#ifndef NET_CONN_H\n"
                        "#define NET_CONN_H\n"
                        "struct conn {\n"
                        "    int fd;\n"
                        "    int state;\n"
                        "};\n"
                        "int conn_open(struct conn *c, const char *host);\n"
                        "#endif\n" },
    { "src/net/net.h", "#ifndef NET_H\n"
                       "#define NET_H\n"
                       "#include \"conn.h\"\n"
                       "int net_listen(int port);\n"
                       "#endif\n" },
    { "src/http.h", "#ifndef HTTP_H\n"
                    "#define HTTP_H\n"
                    "#include \"net/net.h\"\n"
                    "struct conn; /* for HTTP_CONN() */\n"
                    "#define HTTP_CONN(r) ((struct conn *)(r)->transport)\n"
                    "struct request {\n"
                    "    void *transport;\n"
                    "    int status;\n"
                    "};\n"
                    "int http_reply(struct request *r, int status);\n"
                    "#endif\n" },
    { "src/server.c", "#include \"http.h\"\n"
                      "\n"
                      "int\n"
                      "serve(struct request *r)\n"
                      "{\n"
                      "    return http_reply(r, 200);\n"
                      "}\n" },
    /* libgit2's header shape: declarations wrapped in macros */
    { "lg2/common.h", "#define GIT_BEGIN_DECL /* empty */\n"
                      "#define GIT_END_DECL /* empty */\n"
                      "#define GIT_EXTERN(type) extern type\n"
                      "#define GIT_CALLBACK(name) (*name)\n" },
    { "lg2/a.h", "#include \"common.h\"\n"         /* 1 */
                 "GIT_BEGIN_DECL\n"                /* 2 */
                 "\n"                              /* 3 */
                 "/** Does one thing. */\n"        /* 4 */
                 "GIT_EXTERN(int) a_one(int x);\n" /* 5 */
                 "\n"                              /* 6 */
                 "/** Does another. */\n"          /* 7 */
                 "GIT_EXTERN(int) a_two(int x);\n" /* 8 */
                 "\n"                              /* 9 */
                 "GIT_END_DECL\n" },               /* 10 */
    { "lg2/b.h", "#include \"common.h\"\n"         /* 1 */
                 "#include \"a.h\"\n"              /* 2 */
                 "GIT_BEGIN_DECL\n"                /* 3 */
                 "\n"                              /* 4 */
                 "GIT_EXTERN(int) b_one(int x);\n" /* 5 */
                 "GIT_EXTERN(int) b_two(void);\n"  /* 6 */
                 "\n"                              /* 7 */
                 "GIT_END_DECL\n" },               /* 8 */
    { "lg2/use.c", "#include \"a.h\"\n"            /* 1 */
                   "\n"                            /* 2 */
                   "int\n"                         /* 3 */
                   "use_one(void)\n"               /* 4 */
                   "{\n"                           /* 5 */
                   "    return a_one(1);\n"        /* 6 */
                   "}\n" },                        /* 7 */
};
#define NPROJECT (sizeof(project) / sizeof(project[0]))

static int
read_project(void *ctx, const struct repograph_file *f, char **buf, size_t *len)
{
    (void)ctx;
    for (size_t i = 0; i < NPROJECT; i++)
        if (!strcmp(project[i].path, f->path)) {
            *buf = xstrdup(project[i].text);
            *len = strlen(project[i].text);
            return 0;
        }
    return -1;
}

static void
build(struct graph *g)
{
    struct repograph_file files[NPROJECT];
    memset(files, 0, sizeof(files));
    for (size_t i = 0; i < NPROJECT; i++)
        files[i].path = project[i].path;
    struct repograph_options o = { 0 };
    o.threads = 1;
    struct repograph_stats st;
    struct as_err e;
    graph_init(g);
    CHECK_INT(
        repograph_build(g, files, NPROJECT, read_project, NULL, &o, &st, &e),
        0);
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

/* Agent id edits line of path (a fresh edit: weight 1). */
static struct ws_file *
edit(struct agent *a, const char *path, uint32_t line)
{
    struct ws_file *f = agent_add_file(a, path, WS_MODIFIED);
    range_set_add(&f->ranges, line, line);
    f->weight = 1.0;
    return f;
}

/* Score one edit of a's against one of b's. */
static struct risk_result
score(const struct graph *g, const char *pa, uint32_t la, const char *pb,
    uint32_t lb)
{
    struct agent ag[2];
    agent_init(&ag[0], "ana");
    agent_init(&ag[1], "ben");
    edit(&ag[0], pa, la);
    edit(&ag[1], pb, lb);
    struct risk_config c;
    risk_config_default(&c);
    struct risk_engine *en = risk_engine_new(&c, g, ag, 2);
    struct risk_result r;
    risk_engine_score(en, 0, 1, &r);
    risk_engine_free(en);
    agent_release(&ag[0]);
    agent_release(&ag[1]);
    return r;
}

/* ---- class-level hits ---- */

struct class_case {
    const char *name;
    const char *pa;
    uint32_t la;
    const char *pb;
    uint32_t lb;
    double symbol, dependency;
};

static const struct class_case class_cases[] = {
    /* add (ana) and remove (ben): unrelated methods of one class */
    { "unrelated methods", "shop/cart.py", 16, "shop/cart.py", 27, 0, 0 },
    /* ben edits add_many, which calls add: a user of ana's change */
    { "a caller in the same class", "shop/cart.py", 16, "shop/cart.py", 23, 0.6,
        0 },
    /* checkout uses Cart, add_many and total, not add */
    { "importer of the class, not of the method", "shop/cart.py", 16,
        "shop/checkout.py", 6, 0, 0.3 },
    /* the constructor is the class's shape */
    { "constructor changed", "shop/cart.py", 10, "shop/checkout.py", 6, 0.6,
        1 },
    /* so is a class attribute */
    { "field changed", "shop/cart.py", 7, "shop/checkout.py", 6, 0.6, 1 },
};

static void
test_class_hits(void)
{
    struct graph g;
    build(&g);
    for (size_t i = 0; i < sizeof(class_cases) / sizeof(class_cases[0]); i++) {
        const struct class_case *k = &class_cases[i];
        struct risk_result r = score(&g, k->pa, k->la, k->pb, k->lb);
        TEST_BEGIN(k->name);
        CHECK_NEAR(r.r[RISK_SYMBOL], k->symbol, 1e-12);
        CHECK_NEAR(r.r[RISK_DEPENDENCY], k->dependency, 1e-12);
        TEST_END();
    }
    graph_release(&g);
}

/* ---- a new call is cited where it was written ---- */

static void
test_new_call_line(void)
{
    struct graph g;
    build(&g);
    /* ben validates the sku at the top of add: one line inserted after 13,
     * a call of unit_price at line 14 of his version; the file already
     * calls it at its end (line 30, 31 in his version). */
    size_t n = strlen(cart_py);
    const char *at = strstr(cart_py, "        for line in self.lines:");
    const char *line = "        unit_price(sku)  # unknown skus raise\n";
    char *mine = xmalloc(n + strlen(line) + 1);
    size_t k = (size_t)(at - cart_py);
    memcpy(mine, cart_py, k);
    memcpy(mine + k, line, strlen(line));
    memcpy(mine + k + strlen(line), cart_py + k, n - k + 1);

    struct agent ag[2];
    agent_init(&ag[0], "ana");
    agent_init(&ag[1], "ben");
    edit(&ag[0], "shop/pricing.py", 5);
    struct ws_file *f = agent_add_file(&ag[1], "shop/cart.py", WS_MODIFIED);
    range_set_add_insertion(&f->ranges, 13);
    f->weight = 1.0;
    struct as_err e;
    CHECK_INT(
        agentnames_fill(&g, f, "shop/cart.py", mine, strlen(mine), &e), 0);
    /* unit_price and sku are the uses the line adds */
    CHECK_INT(f->nnew_uses, 2);
    uint32_t at_line = 0;
    for (size_t i = 0; i < f->nnew_uses; i++)
        if (!strcmp(f->new_uses[i].name, "unit_price"))
            at_line = f->new_uses[i].line;
    CHECK_INT(at_line, 14);

    struct risk_config c;
    risk_config_default(&c);
    struct risk_engine *en = risk_engine_new(&c, &g, ag, 2);
    struct risk_evidence ev;
    risk_engine_explain(en, 0, 1, &ev);
    CHECK_NEAR(ev.result.r[RISK_SYMBOL], 1, 1e-12);
    CHECK(ev.nsymbols >= 1);
    if (ev.nsymbols) {
        CHECK_STR(ev.symbols[0].name, "unit_price");
        CHECK_STR(ev.symbols[0].use_path, "shop/cart.py");
        CHECK_INT(ev.symbols[0].use_line, 14);
    }
    risk_evidence_release(&ev);
    risk_engine_free(en);
    agent_release(&ag[0]);
    agent_release(&ag[1]);
    free(mine);
    graph_release(&g);
}

/* ---- imports of types alone ---- */

static bool
has_import(const struct lang_facts *x, const char *spec, bool type_only)
{
    for (size_t i = 0; i < x->nimports; i++)
        if (!strcmp(x->imports[i].spec, spec) &&
            x->imports[i].type_only == type_only)
            return true;
    return false;
}

static bool
has_ref(const struct lang_facts *x, const char *name, uint32_t line)
{
    for (size_t i = 0; i < x->nrefs; i++)
        if (!strcmp(x->refs[i].name, name) && x->refs[i].line == line)
            return true;
    return false;
}

static void
extract(enum lang_id id, const char *src, struct lang_facts *x)
{
    struct as_err e;
    lang_facts_init(x);
    CHECK_INT(lang_extract(id, src, strlen(src), x, &e), 0);
}

static void
test_type_only_extract(void)
{
    struct lang_facts x;
    extract(LANG_TYPESCRIPT,
        "import type { A } from './a';\n"
        "import { type B, C } from './b';\n"
        "import { type D, type E } from './d';\n"
        "export type { F } from './f';\n"
        "export { G } from './g';\n"
        "import H from './h';\n"
        "import type I = require('./i');\n"
        "import './side-effect';\n",
        &x);
    CHECK(has_import(&x, "./a", true));
    CHECK(has_import(&x, "./b", false));
    CHECK(has_import(&x, "./d", true));
    CHECK(has_import(&x, "./f", true));
    CHECK(has_import(&x, "./g", false));
    CHECK(has_import(&x, "./h", false));
    CHECK(has_import(&x, "./i", true));
    CHECK(has_import(&x, "./side-effect", false));
    lang_facts_release(&x);

    extract(LANG_PYTHON,
        "import typing\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from .models import User\n"
        "    import app.db\n"
        "else:\n"
        "    from .compat import User\n"
        "if typing.TYPE_CHECKING:\n"
        "    from .orders import Order\n"
        "if DEBUG:\n"
        "    from .debug import trace\n",
        &x);
    CHECK(has_import(&x, "models", true));
    CHECK(has_import(&x, "models.User", true));
    CHECK(has_import(&x, "app.db", true));
    CHECK(has_import(&x, "compat", false));
    CHECK(has_import(&x, "orders", true));
    CHECK(has_import(&x, "debug", false));
    CHECK(has_import(&x, "typing", false));
    lang_facts_release(&x);

    extract(LANG_C,
        "struct conn;\n"
        "struct conn *conn_get(int fd);\n"
        "typedef struct pool pool_t;\n",
        &x);
    CHECK(!has_ref(&x, "conn", 1));
    CHECK(has_ref(&x, "conn", 2));
    CHECK(has_ref(&x, "pool", 3));
    lang_facts_release(&x);

    extract(LANG_CPP,
        "class Widget;\nnamespace ui { class Theme; }\n"
        "Widget *make(ui::Theme *t);\n",
        &x);
    CHECK(!has_ref(&x, "Widget", 1));
    CHECK(!has_ref(&x, "Theme", 2));
    CHECK(has_ref(&x, "Widget", 3));
    lang_facts_release(&x);
}

static void
test_type_only_graph(void)
{
    struct graph g;
    build(&g);
    CHECK(!edge(&g, "web/badge.ts", "web/user.ts"));
    CHECK(edge(&g, "web/profile.ts", "web/user.ts"));
    CHECK(!edge(&g, "shop/report.py", "shop/cart.py"));
    CHECK(edge(&g, "shop/checkout.py", "shop/cart.py"));
    CHECK(edge(&g, "src/http.h", "src/net/net.h"));

    /* ana reshapes User; ben edits the badge, which only names the type */
    struct risk_result r = score(&g, "web/user.ts", 3, "web/badge.ts", 4);
    CHECK_NEAR(r.r[RISK_DEPENDENCY], 0, 1e-12);
    r = score(&g, "web/user.ts", 3, "web/profile.ts", 4);
    CHECK(r.r[RISK_DEPENDENCY] > 0);
    /* ana adds a field to Cart; the report only annotates with it */
    r = score(&g, "shop/cart.py", 7, "shop/report.py", 10);
    CHECK_NEAR(r.r[RISK_DEPENDENCY], 0, 1e-12);
    /* ana changes struct conn; server.c reaches it through http.h, whose
     * only mention of conn is a forward declaration: no use on the chain */
    r = score(&g, "src/net/conn.h", 4, "src/server.c", 6);
    CHECK_NEAR(r.r[RISK_DEPENDENCY], 0.25 * 0.3, 1e-12);
    graph_release(&g);
}

/* ---- declarations wrapped in macros ---- */

static void
test_macro_decls(void)
{
    struct graph g;
    build(&g);
    /* ana rewords a_one's doc comment; ben declares b_two in b.h, which
     * includes a.h: the macros are defined in common.h, not in a.h, so
     * the two share no symbol and b.h is only near a.h */
    struct risk_result r = score(&g, "lg2/a.h", 4, "lg2/b.h", 6);
    CHECK_NEAR(r.r[RISK_SYMBOL], 0, 1e-12);
    CHECK_NEAR(r.r[RISK_DEPENDENCY], 0.3, 1e-12);
    /* ana changes a_one itself; ben edits the call of it */
    r = score(&g, "lg2/a.h", 5, "lg2/use.c", 6);
    CHECK_NEAR(r.r[RISK_SYMBOL], 1, 1e-12);
    CHECK_NEAR(r.r[RISK_DEPENDENCY], 1, 1e-12);
    /* ... and a_two is not what ben calls */
    r = score(&g, "lg2/a.h", 8, "lg2/use.c", 6);
    CHECK_NEAR(r.r[RISK_SYMBOL], 0, 1e-12);
    graph_release(&g);
}

int
main(void)
{
    test_class_hits();
    TEST_RUN("a new call is cited at its line", test_new_call_line);
    TEST_RUN("type-only imports are marked", test_type_only_extract);
    TEST_RUN("type-only imports are no edges", test_type_only_graph);
    TEST_RUN("macro-wrapped C declarations", test_macro_decls);
    return test_done();
}

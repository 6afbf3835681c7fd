/*
 * lang.c - a source file's facts (definitions, references, imports) from
 * its tree-sitter parse, fresh or incremental from the previous version.
 *
 * Longer than 1,000 lines on purpose: the grammar tables, the one walk
 * that reads every language, and the incremental parse that must give the
 * walk's facts exactly (test_lang_extract, fuzz_lang) are kept together so
 * a change to the walk is seen by both.
 */
#include "lang/lang.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>
#include <tree_sitter/api.h>

#include "lang/cmacro.h"
#include "lang/grammars.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* ---- facts ---- */

void
lang_facts_init(struct lang_facts *f)
{
    memset(f, 0, sizeof(*f));
}

void
lang_facts_release(struct lang_facts *f)
{
    for (size_t i = 0; i < f->nimports; i++)
        free(f->imports[i].spec);
    for (size_t i = 0; i < f->ndefs; i++)
        free(f->defs[i].name);
    for (size_t i = 0; i < f->nrefs; i++)
        free(f->refs[i].name);
    free(f->imports);
    free(f->defs);
    free(f->refs);
    memset(f, 0, sizeof(*f));
}

void
lang_facts_add_import(struct lang_facts *f, const char *spec, size_t len,
    uint32_t line, int kind, int level)
{
    ALLOC_GROW(f->imports, f->nimports + 1, f->aimports);
    struct lang_import *im = &f->imports[f->nimports++];
    im->spec = xstrndup(spec, len);
    im->line = line;
    im->kind = (uint8_t)kind;
    im->level = (uint8_t)(level > 255 ? 255 : level);
    im->type_only = false;
}

void
lang_facts_add_def(struct lang_facts *f, const char *name, size_t len,
    uint32_t start, uint32_t end, int kind, bool decl)
{
    ALLOC_GROW(f->defs, f->ndefs + 1, f->adefs);
    struct lang_def *d = &f->defs[f->ndefs++];
    d->name = xstrndup(name, len);
    d->start = start;
    d->end = end < start ? start : end;
    d->kind = (uint8_t)kind;
    d->decl = decl;
}

void
lang_facts_add_ref(
    struct lang_facts *f, const char *name, size_t len, uint32_t line)
{
    ALLOC_GROW(f->refs, f->nrefs + 1, f->arefs);
    struct lang_ref *r = &f->refs[f->nrefs++];
    r->name = xstrndup(name, len);
    r->line = line;
}

/* ---- detection ---- */

static const struct {
    const char *ext;
    enum lang_id id;
} lang_exts[] = {
    { "c", LANG_C },
    { "h", LANG_C },
    { "hh", LANG_CPP },
    { "hpp", LANG_CPP },
    { "hxx", LANG_CPP },
    { "h++", LANG_CPP },
    { "cc", LANG_CPP },
    { "cpp", LANG_CPP },
    { "cxx", LANG_CPP },
    { "c++", LANG_CPP },
    { "js", LANG_JAVASCRIPT },
    { "mjs", LANG_JAVASCRIPT },
    { "cjs", LANG_JAVASCRIPT },
    { "jsx", LANG_JAVASCRIPT },
    { "ts", LANG_TYPESCRIPT },
    { "mts", LANG_TYPESCRIPT },
    { "cts", LANG_TYPESCRIPT },
    { "tsx", LANG_TSX },
    { "py", LANG_PYTHON },
    { "pyi", LANG_PYTHON },
    { "go", LANG_GO },
    { "rs", LANG_RUST },
    { "java", LANG_JAVA },
};

enum lang_id
lang_detect_ex(const char *path, bool h_is_cpp)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base)
        return LANG_NONE;
    const char *ext = dot + 1;
    if (h_is_cpp && !strcmp(ext, "h"))
        return LANG_CPP;
    for (size_t i = 0; i < sizeof(lang_exts) / sizeof(lang_exts[0]); i++)
        if (!strcmp(ext, lang_exts[i].ext))
            return lang_exts[i].id;
    return LANG_NONE;
}

enum lang_id
lang_detect(const char *path)
{
    return lang_detect_ex(path, false);
}

bool
lang_is_header(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return false;
    dot++;
    return !strcmp(dot, "h") || !strcmp(dot, "hh") || !strcmp(dot, "hpp") ||
           !strcmp(dot, "hxx") || !strcmp(dot, "h++");
}

static const char *const lang_names[LANG__COUNT] = { "none", "c", "cpp",
    "javascript", "typescript", "tsx", "python", "go", "rust", "java" };

const char *
lang_name(enum lang_id id)
{
    return (unsigned)id < LANG__COUNT ? lang_names[id] : "none";
}

static const TSLanguage *
lang_grammar(enum lang_id id)
{
    switch (id) {
    case LANG_C:
        return tree_sitter_c();
    case LANG_CPP:
        return tree_sitter_cpp();
    case LANG_JAVASCRIPT:
        return tree_sitter_javascript();
    case LANG_TYPESCRIPT:
        return tree_sitter_typescript();
    case LANG_TSX:
        return tree_sitter_tsx();
    case LANG_PYTHON:
        return tree_sitter_python();
    case LANG_GO:
        return tree_sitter_go();
    case LANG_RUST:
        return tree_sitter_rust();
    case LANG_JAVA:
        return tree_sitter_java();
    default:
        return NULL;
    }
}

int
lang_check_abi(struct as_err *e)
{
    for (int id = LANG_C; id < LANG__COUNT; id++) {
        uint32_t v = ts_language_version(lang_grammar((enum lang_id)id));
        if (v < TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION ||
            v > TREE_SITTER_LANGUAGE_VERSION)
            return as_errorf(e, AS_EUNSUP,
                "grammar '%s' has ABI %u, runtime accepts %u..%u",
                lang_name((enum lang_id)id), v,
                (unsigned)TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION,
                (unsigned)TREE_SITTER_LANGUAGE_VERSION);
    }
    return 0;
}

/* ---- node actions: grammar symbol -> what the walk does with it ---- */

enum act {
    A_NONE = 0,
    A_SKIP,  /* comments and literals: never look inside */
    A_IDENT, /* a name use: a reference unless it names a definition */
    A_SCOPE_CLASS,
    A_SCOPE_FUNC,
    A_C_INCLUDE,
    A_C_FUNCDEF,
    A_C_DECL,
    A_C_FIELD,
    A_C_TAGGED,
    A_C_TYPEDEF,
    A_C_MACRO,
    A_ENUMERATOR,
    A_JS_IMPORT,
    A_JS_EXPORT,
    A_JS_CALL,
    A_JS_REQUIRE,
    A_JS_VAR,
    A_FUNC,      /* named function; a method when directly in a class */
    A_FUNC_DECL, /* a signature without body */
    A_METHOD,    /* always a method */
    A_METHOD_DECL,
    A_TYPE,
    A_CONST,
    A_MACRO,
    A_PY_IMPORT,
    A_PY_FROM,
    A_PY_ASSIGN,
    A_GO_IMPORT,
    A_GO_VAR,
    A_RUST_MOD,
    A_RUST_USE,
    A_JAVA_IMPORT,
    A_JAVA_FIELD,
};

#define L_C (1u << LANG_C)
#define L_CPP (1u << LANG_CPP)
#define L_JS (1u << LANG_JAVASCRIPT)
#define L_TS ((1u << LANG_TYPESCRIPT) | (1u << LANG_TSX))
#define L_PY (1u << LANG_PYTHON)
#define L_GO (1u << LANG_GO)
#define L_RS (1u << LANG_RUST)
#define L_JAVA (1u << LANG_JAVA)
#define L_CC (L_C | L_CPP)
#define L_JSTS (L_JS | L_TS)
#define L_ALL 0xffffu

static const struct {
    unsigned langs;
    const char *type;
    uint8_t act;
} act_rules[] = {
    { L_ALL, "comment", A_SKIP },
    { L_ALL, "line_comment", A_SKIP },
    { L_ALL, "block_comment", A_SKIP },
    { L_ALL, "string_literal", A_SKIP },
    { L_ALL, "raw_string_literal", A_SKIP },
    { L_ALL, "char_literal", A_SKIP },
    { L_ALL, "character_literal", A_SKIP },
    { L_ALL, "concatenated_string", A_SKIP },
    { L_ALL, "system_lib_string", A_SKIP },
    { L_ALL, "interpreted_string_literal", A_SKIP },
    { L_ALL, "rune_literal", A_SKIP },
    { L_ALL, "text_block", A_SKIP },
    { L_ALL, "string", A_SKIP },
    { L_ALL, "regex", A_SKIP },
    { L_ALL, "preproc_arg", A_SKIP },
    { L_JAVA, "package_declaration", A_SKIP },
    { L_GO, "package_clause", A_SKIP },

    { L_CC | L_GO | L_RS | L_PY | L_JAVA | L_JSTS, "identifier", A_IDENT },
    { L_CC | L_GO | L_RS | L_TS | L_JAVA, "type_identifier", A_IDENT },
    { L_CC | L_GO | L_RS, "field_identifier", A_IDENT },
    { L_JSTS, "property_identifier", A_IDENT },
    { L_JSTS, "private_property_identifier", A_IDENT },
    { L_JSTS, "shorthand_property_identifier", A_IDENT },

    { L_CC, "preproc_include", A_C_INCLUDE },
    { L_CC, "function_definition", A_C_FUNCDEF },
    { L_CC, "declaration", A_C_DECL },
    { L_CPP, "field_declaration", A_C_FIELD },
    { L_CC, "struct_specifier", A_C_TAGGED },
    { L_CC, "union_specifier", A_C_TAGGED },
    { L_CC, "enum_specifier", A_C_TAGGED },
    { L_CPP, "class_specifier", A_C_TAGGED },
    { L_CC, "type_definition", A_C_TYPEDEF },
    { L_CPP, "alias_declaration", A_TYPE },
    { L_CC, "preproc_def", A_C_MACRO },
    { L_CC, "preproc_function_def", A_C_MACRO },
    { L_CC | L_TS, "enumerator", A_ENUMERATOR },
    { L_CPP, "lambda_expression", A_SCOPE_FUNC },

    { L_JSTS, "import_statement", A_JS_IMPORT },
    { L_JSTS, "export_statement", A_JS_EXPORT },
    { L_JSTS, "call_expression", A_JS_CALL },
    { L_TS, "import_require_clause", A_JS_REQUIRE },
    { L_JSTS, "variable_declarator", A_JS_VAR },
    { L_JSTS | L_GO, "function_declaration", A_FUNC },
    { L_JSTS, "generator_function_declaration", A_FUNC },
    { L_TS, "function_signature", A_FUNC_DECL },
    { L_JSTS, "method_definition", A_METHOD },
    { L_TS, "method_signature", A_METHOD_DECL },
    { L_TS, "abstract_method_signature", A_METHOD_DECL },
    { L_JSTS | L_JAVA, "class_declaration", A_TYPE },
    { L_TS, "abstract_class_declaration", A_TYPE },
    { L_TS | L_JAVA, "interface_declaration", A_TYPE },
    { L_TS, "type_alias_declaration", A_TYPE },
    { L_TS | L_JAVA, "enum_declaration", A_TYPE },
    { L_JSTS, "class", A_SCOPE_CLASS },
    { L_JSTS, "arrow_function", A_SCOPE_FUNC },
    { L_JSTS, "function_expression", A_SCOPE_FUNC },
    { L_JSTS, "function", A_SCOPE_FUNC },
    { L_JSTS, "generator_function", A_SCOPE_FUNC },

    { L_PY, "import_statement", A_PY_IMPORT },
    { L_PY, "import_from_statement", A_PY_FROM },
    { L_PY, "function_definition", A_FUNC },
    { L_PY, "class_definition", A_TYPE },
    { L_PY, "assignment", A_PY_ASSIGN },
    { L_PY, "lambda", A_SCOPE_FUNC },

    { L_GO, "import_spec", A_GO_IMPORT },
    { L_GO, "method_declaration", A_METHOD },
    { L_GO, "type_spec", A_TYPE },
    { L_GO, "type_alias", A_TYPE },
    { L_GO, "const_spec", A_GO_VAR },
    { L_GO, "var_spec", A_GO_VAR },
    { L_GO, "func_literal", A_SCOPE_FUNC },

    { L_RS, "mod_item", A_RUST_MOD },
    { L_RS, "use_declaration", A_RUST_USE },
    { L_RS, "function_item", A_FUNC },
    { L_RS, "function_signature_item", A_FUNC_DECL },
    { L_RS, "struct_item", A_TYPE },
    { L_RS, "enum_item", A_TYPE },
    { L_RS, "union_item", A_TYPE },
    { L_RS, "trait_item", A_TYPE },
    { L_RS, "type_item", A_TYPE },
    { L_RS, "const_item", A_CONST },
    { L_RS, "static_item", A_CONST },
    { L_RS, "macro_definition", A_MACRO },
    { L_RS, "impl_item", A_SCOPE_CLASS },
    { L_RS, "closure_expression", A_SCOPE_FUNC },

    { L_JAVA, "import_declaration", A_JAVA_IMPORT },
    { L_JAVA, "method_declaration", A_METHOD },
    { L_JAVA, "constructor_declaration", A_METHOD },
    { L_JAVA, "record_declaration", A_TYPE },
    { L_JAVA, "annotation_type_declaration", A_TYPE },
    { L_JAVA, "field_declaration", A_JAVA_FIELD },
    { L_JAVA, "lambda_expression", A_SCOPE_FUNC },
};

static uint8_t *act_table[LANG__COUNT];
static uint32_t act_count[LANG__COUNT];
static pthread_once_t act_once = PTHREAD_ONCE_INIT;

static void
act_init(void)
{
    for (int id = LANG_C; id < LANG__COUNT; id++) {
        const TSLanguage *l = lang_grammar((enum lang_id)id);
        uint32_t n = ts_language_symbol_count(l);
        uint8_t *t = xcalloc(n ? n : 1, 1);
        for (uint32_t s = 0; s < n; s++) {
            if (ts_language_symbol_type(l, (TSSymbol)s) != TSSymbolTypeRegular)
                continue;
            const char *name = ts_language_symbol_name(l, (TSSymbol)s);
            for (size_t r = 0; r < sizeof(act_rules) / sizeof(act_rules[0]);
                 r++)
                if ((act_rules[r].langs & (1u << id)) &&
                    !strcmp(name, act_rules[r].type)) {
                    t[s] = act_rules[r].act;
                    break;
                }
        }
        act_table[id] = t;
        act_count[id] = n;
    }
}

/* ---- the walk ---- */

enum scope { SCOPE_NONE = 0, SCOPE_CLASS, SCOPE_FUNC };

struct frame {
    TSNode node;
    uint8_t inner; /* innermost enclosing scope, this node included */
    bool infunc;   /* some ancestor (or this node) is a function */
};

struct tref {
    const char *s;  /* the name in the source */
    uint32_t start; /* byte offset of the name */
    uint32_t line;
    uint32_t len;
};

struct walk {
    enum lang_id id;
    const char *src;
    size_t len;
    struct lang_facts *out;
    struct frame *st;
    size_t depth, ast;
    uint32_t *skip; /* start bytes of definition names */
    size_t nskip, askip;
    struct tref *refs;
    size_t nrefs, arefs;
};

static const char *
ntext(const struct walk *w, TSNode n, size_t *len)
{
    uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    if (s > w->len)
        s = (uint32_t)w->len;
    if (e > w->len)
        e = (uint32_t)w->len;
    if (e < s)
        e = s;
    *len = e - s;
    return w->src + s;
}

static bool
ntype_is(TSNode n, const char *t)
{
    return !ts_node_is_null(n) && !strcmp(ts_node_type(n), t);
}

static uint32_t
nline(TSNode n)
{
    return ts_node_start_point(n).row + 1;
}

/* Last line of n: a node ending at column 0 ends on the line before. */
static uint32_t
nend(TSNode n)
{
    TSPoint s = ts_node_start_point(n), e = ts_node_end_point(n);
    if (e.column == 0 && e.row > s.row)
        return e.row;
    return e.row + 1;
}

static TSNode
field(TSNode n, const char *name)
{
    return ts_node_child_by_field_name(n, name, (uint32_t)strlen(name));
}

static bool
is_name_char_ok(const char *s, size_t len)
{
    if (len == 0 || len > 512)
        return false;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '\n' || s[i] == '\0')
            return false;
    return true;
}

/* Record a definition named by node name spanning span. */
static void
add_def(struct walk *w, TSNode name, TSNode span, int kind, bool decl)
{
    if (ts_node_is_null(name))
        return;
    size_t len;
    const char *s = ntext(w, name, &len);
    if (!is_name_char_ok(s, len))
        return;
    lang_facts_add_def(w->out, s, len, nline(span), nend(span), kind, decl);
    ALLOC_GROW(w->skip, w->nskip + 1, w->askip);
    w->skip[w->nskip++] = ts_node_start_byte(name);
}

/* Strip the quotes of a string literal node's text into an import. */
static void
add_import_str(struct walk *w, TSNode str, uint32_t line, int kind)
{
    if (ts_node_is_null(str))
        return;
    size_t len;
    const char *s = ntext(w, str, &len);
    if (len >= 2 && strchr("\"'`<", s[0])) {
        s++;
        len -= 2;
    }
    if (!is_name_char_ok(s, len))
        return;
    /* a template literal with substitutions is not a static specifier */
    if (memchr(s, '$', len) && ntype_is(str, "template_string"))
        return;
    lang_facts_add_import(w->out, s, len, line, kind, 0);
}

/* Add text with whitespace removed (Rust/Java paths may span lines). */
static void
add_import_path(
    struct walk *w, const char *prefix, TSNode n, uint32_t line, int kind)
{
    size_t len, plen = strlen(prefix);
    const char *s = ntext(w, n, &len);
    if (len > 1024)
        return;
    char *buf = xmalloc(plen + len + 1);
    memcpy(buf, prefix, plen);
    size_t o = plen;
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
            buf[o++] = s[i];
    if (o > 0)
        lang_facts_add_import(w->out, buf, o, line, kind, 0);
    free(buf);
}

/*
 * The name a macro wraps in `MACRO(name)(params)`, as in libgit2's
 * `typedef int GIT_CALLBACK(git_foo_cb)(...)`: a function declarator
 * directly inside another is no C (a function cannot return a function),
 * so the inner one is a macro call and its one bare parameter the name.
 * A null node for any other declarator.
 */
static TSNode
c_macro_wrapped_name(TSNode fn)
{
    TSNode none = { 0 };
    TSNode inner = field(fn, "declarator");
    if (!ntype_is(inner, "function_declarator"))
        return none;
    TSNode macro = field(inner, "declarator");
    TSNode params = field(inner, "parameters");
    if (!(ntype_is(macro, "identifier") ||
            ntype_is(macro, "field_identifier") ||
            ntype_is(macro, "type_identifier")) ||
        ts_node_is_null(params) || ts_node_named_child_count(params) != 1)
        return none;
    TSNode p = ts_node_named_child(params, 0);
    if (!ntype_is(p, "parameter_declaration") ||
        !ts_node_is_null(field(p, "declarator")) ||
        ts_node_named_child_count(p) != 1)
        return none;
    TSNode name = field(p, "type");
    return ntype_is(name, "type_identifier") ? name : none;
}

/* Follow a C/C++ declarator down to the declared name. */
static TSNode
c_declarator_name(TSNode n, bool *is_func, bool *qualified)
{
    for (int i = 0; i < 32 && !ts_node_is_null(n); i++) {
        const char *t = ts_node_type(n);
        if (!strcmp(t, "function_declarator")) {
            *is_func = true;
            TSNode wrapped = c_macro_wrapped_name(n);
            n = ts_node_is_null(wrapped) ? field(n, "declarator") : wrapped;
        } else if (!strcmp(t, "qualified_identifier")) {
            *qualified = true;
            n = field(n, "name");
        } else if (!strcmp(t, "identifier") || !strcmp(t, "field_identifier") ||
                   !strcmp(t, "type_identifier") ||
                   !strcmp(t, "destructor_name") ||
                   !strcmp(t, "operator_name") ||
                   !strcmp(t, "primitive_type")) {
            return n;
        } else {
            TSNode d = field(n, "declarator");
            if (ts_node_is_null(d))
                d = field(n, "name");
            if (ts_node_is_null(d) && ts_node_named_child_count(n) > 0)
                d = ts_node_named_child(n, 0);
            n = d;
        }
    }
    TSNode none = { 0 };
    return none;
}

/* The children of n in field fname (a field may repeat), at most max. */
static size_t
field_all(TSNode n, const char *fname, TSNode *out, size_t max)
{
    size_t k = 0;
    TSTreeCursor c = ts_tree_cursor_new(n);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            const char *f = ts_tree_cursor_current_field_name(&c);
            if (f && !strcmp(f, fname) && k < max)
                out[k++] = ts_tree_cursor_current_node(&c);
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    return k;
}

#define FIELD_MAX 64

static void
c_declaration(
    struct walk *w, TSNode n, const struct frame *parent, bool field_decl)
{
    if (parent->infunc)
        return;
    TSNode ds[FIELD_MAX];
    size_t nd = field_all(n, "declarator", ds, FIELD_MAX);
    for (size_t i = 0; i < nd; i++) {
        bool fn = false, q = false;
        TSNode name = c_declarator_name(ds[i], &fn, &q);
        if (ts_node_is_null(name))
            continue;
        if (fn) {
            int kind = (field_decl || q || parent->inner == SCOPE_CLASS)
                           ? LANG_DEF_METHOD
                           : LANG_DEF_FUNCTION;
            add_def(w, name, n, kind, true);
        } else if (!field_decl) {
            add_def(w, name, n, LANG_DEF_CONSTANT, false);
        }
    }
}

static void
py_from(struct walk *w, TSNode n)
{
    TSNode mod = field(n, "module_name");
    if (ts_node_is_null(mod))
        return;
    int level = 0;
    TSNode dotted = mod;
    if (ntype_is(mod, "relative_import")) {
        size_t len;
        const char *s = ntext(w, mod, &len);
        while ((size_t)level < len && s[level] == '.')
            level++;
        dotted = (TSNode){ 0 };
        for (uint32_t i = 0; i < ts_node_named_child_count(mod); i++)
            if (ntype_is(ts_node_named_child(mod, i), "dotted_name"))
                dotted = ts_node_named_child(mod, i);
    }
    size_t mlen = 0;
    const char *ms = ts_node_is_null(dotted) ? "" : ntext(w, dotted, &mlen);
    if (mlen > 1024)
        return;
    uint32_t line = nline(n);
    lang_facts_add_import(w->out, ms, mlen, line, LANG_IMPORT_PY_FROM, level);
    TSNode names[FIELD_MAX];
    size_t nn = field_all(n, "name", names, FIELD_MAX);
    for (size_t i = 0; i < nn; i++) {
        TSNode name = names[i];
        if (ntype_is(name, "aliased_import"))
            name = field(name, "name");
        if (ts_node_is_null(name))
            continue;
        size_t nlen;
        const char *ns = ntext(w, name, &nlen);
        if (nlen > 512)
            continue;
        char *full = mlen ? xasprintf("%.*s.%.*s", (int)mlen, ms, (int)nlen, ns)
                          : xstrndup(ns, nlen);
        lang_facts_add_import(
            w->out, full, strlen(full), line, LANG_IMPORT_PY_FROM_NAME, level);
        free(full);
    }
}

/* Emit the paths named by a Rust use tree under prefix. */
static void
rust_use(struct walk *w, TSNode n, const char *prefix, uint32_t line, int lvl)
{
    if (ts_node_is_null(n) || lvl > 16)
        return;
    const char *t = ts_node_type(n);
    if (!strcmp(t, "use_as_clause")) {
        rust_use(w, field(n, "path"), prefix, line, lvl + 1);
    } else if (!strcmp(t, "use_wildcard")) {
        if (ts_node_named_child_count(n) > 0)
            rust_use(w, ts_node_named_child(n, 0), prefix, line, lvl + 1);
    } else if (!strcmp(t, "use_list")) {
        for (uint32_t i = 0; i < ts_node_named_child_count(n); i++)
            rust_use(w, ts_node_named_child(n, i), prefix, line, lvl + 1);
    } else if (!strcmp(t, "scoped_use_list")) {
        TSNode p = field(n, "path");
        char *np;
        if (!ts_node_is_null(p)) {
            add_import_path(w, prefix, p, line, LANG_IMPORT_RUST_USE);
            size_t len;
            const char *s = ntext(w, p, &len);
            if (len > 512)
                return;
            np = xasprintf("%s%.*s::", prefix, (int)len, s);
        } else {
            np = xstrdup(prefix);
        }
        rust_use(w, field(n, "list"), np, line, lvl + 1);
        free(np);
    } else if (!strcmp(t, "scoped_identifier") || !strcmp(t, "identifier") ||
               !strcmp(t, "crate") || !strcmp(t, "super") ||
               !strcmp(t, "self")) {
        add_import_path(w, prefix, n, line, LANG_IMPORT_RUST_USE);
    }
}

static void
java_import(struct walk *w, TSNode n)
{
    bool is_static = false, wild = false;
    TSNode path = { 0 };
    for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
        TSNode c = ts_node_child(n, i);
        const char *t = ts_node_type(c);
        if (!strcmp(t, "static"))
            is_static = true;
        else if (!strcmp(t, "asterisk") || !strcmp(t, "*"))
            wild = true;
        else if (!strcmp(t, "scoped_identifier") || !strcmp(t, "identifier"))
            path = c;
    }
    if (ts_node_is_null(path))
        return;
    int kind = wild ? LANG_IMPORT_JAVA_WILDCARD
                    : (is_static ? LANG_IMPORT_JAVA_STATIC : LANG_IMPORT_JAVA);
    add_import_path(w, "", path, nline(n), kind);
}

static bool
js_is_function_value(TSNode v)
{
    return ntype_is(v, "arrow_function") ||
           ntype_is(v, "function_expression") || ntype_is(v, "function") ||
           ntype_is(v, "generator_function");
}

/* Whether n has an anonymous child token "type" (TypeScript's `import
 * type`, `export type`, `{ type X }`). */
static bool
has_type_token(TSNode n)
{
    for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
        TSNode c = ts_node_child(n, i);
        if (!ts_node_is_named(c) && !strcmp(ts_node_type(c), "type"))
            return true;
    }
    return false;
}

/* Whether every specifier under list (named_imports, export_clause) is
 * marked type, and there is one. */
static bool
all_specifiers_typed(TSNode list)
{
    uint32_t n = ts_node_named_child_count(list), k = 0;
    for (uint32_t i = 0; i < n; i++) {
        TSNode c = ts_node_named_child(list, i);
        if (!ntype_is(c, "import_specifier") &&
            !ntype_is(c, "export_specifier"))
            continue;
        if (!has_type_token(c))
            return false;
        k++;
    }
    return k > 0;
}

/* Whether a TypeScript import or export statement names types alone. */
static bool
ts_type_only(const struct walk *w, TSNode n)
{
    if (w->id != LANG_TYPESCRIPT && w->id != LANG_TSX)
        return false;
    if (has_type_token(n))
        return true;
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
        TSNode c = ts_node_named_child(n, i);
        if (ntype_is(c, "export_clause"))
            return all_specifiers_typed(c);
        if (!ntype_is(c, "import_clause"))
            continue;
        /* a default or namespace import is a value */
        if (ts_node_named_child_count(c) != 1 ||
            !ntype_is(ts_node_named_child(c, 0), "named_imports"))
            return false;
        return all_specifiers_typed(ts_node_named_child(c, 0));
    }
    return false;
}

/* Whether the node being visited lies in the body of `if TYPE_CHECKING:`
 * (or `if typing.TYPE_CHECKING:`), not its else branches. */
static bool
py_type_checking(const struct walk *w)
{
    for (size_t i = w->depth; i-- > 1;) {
        TSNode blk = w->st[i].node, ifs = w->st[i - 1].node;
        if (!ntype_is(blk, "block") || !ntype_is(ifs, "if_statement") ||
            !ts_node_eq(field(ifs, "consequence"), blk))
            continue;
        TSNode cond = field(ifs, "condition");
        if (ntype_is(cond, "attribute"))
            cond = field(cond, "attribute");
        size_t len = 0;
        const char *s = ts_node_is_null(cond) ? "" : ntext(w, cond, &len);
        if (ntype_is(cond, "identifier") && len == 13 &&
            !memcmp(s, "TYPE_CHECKING", 13))
            return true;
    }
    return false;
}

/* Mark the imports added since first as type-only. */
static void
mark_type_only(struct walk *w, size_t first)
{
    for (size_t i = first; i < w->out->nimports; i++)
        w->out->imports[i].type_only = true;
}

/* Whether a C/C++ struct, union, enum or class without a body stands alone
 * as a forward declaration (`struct foo;`), not as the type of something
 * declared. */
static bool
c_forward_decl(const struct frame *parent)
{
    TSNode p = parent->node;
    if (ts_node_is_null(p))
        return false;
    const char *t = ts_node_type(p);
    if (!strcmp(t, "declaration"))
        return ts_node_is_null(field(p, "declarator"));
    return !strcmp(t, "translation_unit") || !strcmp(t, "declaration_list") ||
           !strcmp(t, "field_declaration_list") ||
           !strcmp(t, "linkage_specification") || !strncmp(t, "preproc_", 8);
}

/* Handle node n (whose parent frame is parent); return false to skip its
 * subtree. *scope receives the scope n opens. */
static bool
visit(struct walk *w, TSNode n, const struct frame *parent, uint8_t *scope)
{
    uint32_t sym = ts_node_symbol(n);
    uint8_t act = sym < act_count[w->id] ? act_table[w->id][sym] : A_NONE;
    *scope = SCOPE_NONE;
    switch (act) {
    case A_NONE:
        return true;
    case A_SKIP:
        return false;
    case A_IDENT: {
        uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
        if (e > s && e <= w->len && e - s <= 512) {
            ALLOC_GROW(w->refs, w->nrefs + 1, w->arefs);
            w->refs[w->nrefs++] = (struct tref){
                .s = w->src + s, .start = s, .line = nline(n), .len = e - s
            };
        }
        return false;
    }
    case A_SCOPE_CLASS:
        *scope = SCOPE_CLASS;
        return true;
    case A_SCOPE_FUNC:
        *scope = SCOPE_FUNC;
        return true;
    case A_C_INCLUDE: {
        TSNode p = field(n, "path");
        add_import_str(w, p, nline(n),
            ntype_is(p, "system_lib_string") ? LANG_IMPORT_INCLUDE_SYSTEM
                                             : LANG_IMPORT_INCLUDE_LOCAL);
        return false;
    }
    case A_C_FUNCDEF: {
        bool fn = false, q = false;
        TSNode name = c_declarator_name(field(n, "declarator"), &fn, &q);
        int kind = (q || parent->inner == SCOPE_CLASS) ? LANG_DEF_METHOD
                                                       : LANG_DEF_FUNCTION;
        if (!parent->infunc)
            add_def(w, name, n, kind, false);
        *scope = SCOPE_FUNC;
        return true;
    }
    case A_C_DECL:
        c_declaration(w, n, parent, false);
        return true;
    case A_C_FIELD:
        if (parent->inner == SCOPE_CLASS)
            c_declaration(w, n, parent, true);
        return true;
    case A_C_TAGGED:
        if (ts_node_is_null(field(n, "body")) && c_forward_decl(parent))
            return false;
        if (!ts_node_is_null(field(n, "body"))) {
            add_def(w, field(n, "name"), n, LANG_DEF_TYPE, false);
            if (w->id == LANG_CPP)
                *scope = SCOPE_CLASS;
        }
        return true;
    case A_C_TYPEDEF: {
        TSNode ds[FIELD_MAX];
        size_t nd = field_all(n, "declarator", ds, FIELD_MAX);
        for (size_t i = 0; i < nd; i++) {
            bool fn = false, q = false;
            add_def(
                w, c_declarator_name(ds[i], &fn, &q), n, LANG_DEF_TYPE, false);
        }
        return true;
    }
    case A_C_MACRO:
        add_def(w, field(n, "name"), n, LANG_DEF_MACRO, false);
        return true;
    case A_ENUMERATOR:
        add_def(w, field(n, "name"), n, LANG_DEF_CONSTANT, false);
        return true;
    case A_JS_IMPORT: {
        size_t first = w->out->nimports;
        add_import_str(w, field(n, "source"), nline(n), LANG_IMPORT_ES);
        if (ts_type_only(w, n))
            mark_type_only(w, first);
        return true;
    }
    case A_JS_EXPORT: {
        size_t first = w->out->nimports;
        add_import_str(
            w, field(n, "source"), nline(n), LANG_IMPORT_EXPORT_FROM);
        if (ts_type_only(w, n))
            mark_type_only(w, first);
        return true;
    }
    case A_JS_CALL: {
        TSNode fn = field(n, "function");
        TSNode args = field(n, "arguments");
        if (ts_node_is_null(args) || ts_node_named_child_count(args) < 1)
            return true;
        TSNode a0 = ts_node_named_child(args, 0);
        if (!ntype_is(a0, "string") && !ntype_is(a0, "template_string"))
            return true;
        if (ntype_is(fn, "import")) {
            add_import_str(w, a0, nline(n), LANG_IMPORT_DYNAMIC);
        } else if (ntype_is(fn, "identifier")) {
            size_t len;
            const char *s = ntext(w, fn, &len);
            if (len == 7 && !memcmp(s, "require", 7))
                add_import_str(w, a0, nline(n), LANG_IMPORT_REQUIRE);
        }
        return true;
    }
    case A_JS_REQUIRE: {
        TSNode src = field(n, "source");
        for (uint32_t i = 0;
             ts_node_is_null(src) && i < ts_node_named_child_count(n); i++)
            if (ntype_is(ts_node_named_child(n, i), "string"))
                src = ts_node_named_child(n, i);
        size_t first = w->out->nimports;
        add_import_str(w, src, nline(n), LANG_IMPORT_REQUIRE);
        if (ntype_is(parent->node, "import_statement") &&
            has_type_token(parent->node))
            mark_type_only(w, first);
        return true;
    }
    case A_JS_VAR: {
        TSNode name = field(n, "name"), value = field(n, "value");
        if (!ntype_is(name, "identifier"))
            return true;
        if (js_is_function_value(value)) {
            if (!parent->infunc)
                add_def(w, name, n, LANG_DEF_FUNCTION, false);
        } else if (ntype_is(value, "class")) {
            add_def(w, name, n, LANG_DEF_TYPE, false);
        } else if (!parent->infunc && parent->inner == SCOPE_NONE) {
            add_def(w, name, n, LANG_DEF_CONSTANT, false);
        }
        return true;
    }
    case A_FUNC:
        if (!parent->infunc) {
            int kind = parent->inner == SCOPE_CLASS ? LANG_DEF_METHOD
                                                    : LANG_DEF_FUNCTION;
            TSNode span = n;
            if (parent->node.id &&
                ntype_is(parent->node, "decorated_definition"))
                span = parent->node;
            add_def(w, field(n, "name"), span, kind, false);
        }
        *scope = SCOPE_FUNC;
        return true;
    case A_FUNC_DECL:
        add_def(w, field(n, "name"), n,
            parent->inner == SCOPE_CLASS ? LANG_DEF_METHOD : LANG_DEF_FUNCTION,
            true);
        return true;
    case A_METHOD:
        if (!parent->infunc)
            add_def(w, field(n, "name"), n, LANG_DEF_METHOD, false);
        *scope = SCOPE_FUNC;
        return true;
    case A_METHOD_DECL:
        add_def(w, field(n, "name"), n, LANG_DEF_METHOD, true);
        return true;
    case A_TYPE: {
        TSNode span = n;
        if (parent->node.id && ntype_is(parent->node, "decorated_definition"))
            span = parent->node;
        if (!parent->infunc)
            add_def(w, field(n, "name"), span, LANG_DEF_TYPE, false);
        if (strcmp(ts_node_type(n), "type_spec") &&
            strcmp(ts_node_type(n), "type_alias") &&
            strcmp(ts_node_type(n), "type_item") &&
            strcmp(ts_node_type(n), "type_alias_declaration") &&
            strcmp(ts_node_type(n), "alias_declaration"))
            *scope = SCOPE_CLASS;
        return true;
    }
    case A_CONST:
        if (!parent->infunc)
            add_def(w, field(n, "name"), n, LANG_DEF_CONSTANT, false);
        return true;
    case A_MACRO:
        add_def(w, field(n, "name"), n, LANG_DEF_MACRO, false);
        return true;
    case A_PY_IMPORT: {
        size_t first = w->out->nimports;
        TSNode names[FIELD_MAX];
        size_t nn = field_all(n, "name", names, FIELD_MAX);
        for (size_t i = 0; i < nn; i++) {
            TSNode name = names[i];
            if (ntype_is(name, "aliased_import"))
                name = field(name, "name");
            if (!ts_node_is_null(name))
                add_import_path(w, "", name, nline(n), LANG_IMPORT_PY);
        }
        if (py_type_checking(w))
            mark_type_only(w, first);
        return true;
    }
    case A_PY_FROM: {
        size_t first = w->out->nimports;
        py_from(w, n);
        if (py_type_checking(w))
            mark_type_only(w, first);
        return true;
    }
    case A_PY_ASSIGN:
        if (!parent->infunc && parent->inner == SCOPE_NONE &&
            ntype_is(parent->node, "expression_statement") &&
            ntype_is(field(n, "left"), "identifier"))
            add_def(w, field(n, "left"), n, LANG_DEF_CONSTANT, false);
        return true;
    case A_GO_IMPORT:
        add_import_str(w, field(n, "path"), nline(n), LANG_IMPORT_GO);
        return true;
    case A_GO_VAR:
        if (!parent->infunc) {
            TSNode names[FIELD_MAX];
            size_t nn = field_all(n, "name", names, FIELD_MAX);
            for (size_t i = 0; i < nn; i++)
                add_def(w, names[i], n, LANG_DEF_CONSTANT, false);
        }
        return true;
    case A_RUST_MOD:
        if (ts_node_is_null(field(n, "body"))) {
            TSNode name = field(n, "name");
            if (!ts_node_is_null(name))
                add_import_path(w, "", name, nline(n), LANG_IMPORT_RUST_MOD);
        }
        return true;
    case A_RUST_USE:
        rust_use(w, field(n, "argument"), "", nline(n), 0);
        return false;
    case A_JAVA_IMPORT:
        java_import(w, n);
        return false;
    case A_JAVA_FIELD: {
        bool final = false;
        for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
            TSNode c = ts_node_named_child(n, i);
            if (ntype_is(c, "modifiers")) {
                size_t len;
                const char *s = ntext(w, c, &len);
                for (size_t k = 0; k + 5 <= len; k++)
                    if (!memcmp(s + k, "final", 5))
                        final = true;
            }
        }
        TSNode ds[FIELD_MAX];
        size_t nd = final ? field_all(n, "declarator", ds, FIELD_MAX) : 0;
        for (size_t i = 0; i < nd; i++)
            add_def(w, field(ds[i], "name"), n, LANG_DEF_CONSTANT, false);
        return true;
    }
    }
    return true;
}

static int
cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int
cmp_tref(const void *a, const void *b)
{
    const struct tref *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s, y->s, n);
    if (c)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

/* The references (definition names already dropped) sorted by line and
 * name, unique. */
static void
flush_refs(struct walk *w)
{
    if (w->nrefs)
        qsort(w->refs, w->nrefs, sizeof(*w->refs), cmp_tref);
    for (size_t i = 0; i < w->nrefs; i++) {
        const struct tref *r = &w->refs[i];
        if (i > 0 && r->line == w->refs[i - 1].line &&
            r->len == w->refs[i - 1].len &&
            !memcmp(w->src + r->start, w->src + w->refs[i - 1].start, r->len))
            continue;
        lang_facts_add_ref(w->out, w->src + r->start, r->len, r->line);
    }
}

static void
walk_push(struct walk *w, TSNode n, uint8_t scope)
{
    ALLOC_GROW(w->st, w->depth + 1, w->ast);
    const struct frame *p = w->depth ? &w->st[w->depth - 1] : NULL;
    struct frame *f = &w->st[w->depth++];
    f->node = n;
    f->inner = scope ? scope : (p ? p->inner : SCOPE_NONE);
    f->infunc = scope == SCOPE_FUNC || (p && p->infunc);
}

/* Visit n and everything under it, n's parent's frame on top of w's
 * stack (the stack is as it was on return). */
static void
walk_subtree(struct walk *w, TSNode n)
{
    TSTreeCursor c = ts_tree_cursor_new(n);
    uint8_t scope;
    size_t base = w->depth;
    bool down = visit(w, n, &w->st[w->depth - 1], &scope);
    walk_push(w, n, scope);
    for (;;) {
        if (down && ts_tree_cursor_goto_first_child(&c)) {
            TSNode k = ts_tree_cursor_current_node(&c);
            down = visit(w, k, &w->st[w->depth - 1], &scope);
            walk_push(w, k, scope);
            continue;
        }
        for (;;) {
            w->depth--;
            if (w->depth == base)
                goto done;
            if (ts_tree_cursor_goto_next_sibling(&c)) {
                TSNode k = ts_tree_cursor_current_node(&c);
                down = visit(w, k, &w->st[w->depth - 1], &scope);
                walk_push(w, k, scope);
                break;
            }
            if (!ts_tree_cursor_goto_parent(&c))
                goto done;
        }
    }
done:
    w->depth = base;
    ts_tree_cursor_delete(&c);
}

/* Drop the references from..w->nrefs that name a definition recorded
 * since skip_from (a definition's own name is not a reference). */
static void
filter_refs(struct walk *w, size_t from, size_t skip_from)
{
    size_t ns = w->nskip - skip_from, k = from;
    if (!ns)
        return;
    uint32_t *sk = w->skip + skip_from;
    if (ns > 1)
        qsort(sk, ns, sizeof(*sk), cmp_u32);
    for (size_t i = from; i < w->nrefs; i++)
        if (!bsearch(&w->refs[i].start, sk, ns, sizeof(*sk), cmp_u32))
            w->refs[k++] = w->refs[i];
    w->nrefs = k;
}

/* The checks every extraction starts with. */
static int
extract_check(enum lang_id id, const char *src, size_t len, size_t max_bytes,
    struct as_err *e)
{
    if (id <= LANG_NONE || id >= LANG__COUNT)
        return as_errorf(
            e, AS_EINVAL, "no parser for language '%s'", lang_name(id));
    if (len > max_bytes || len > UINT32_MAX)
        return as_errorf(e, AS_ETOOBIG,
            "source of %zu bytes exceeds the %zu-byte cap", len, max_bytes);
    if (len >= LANG_MINIFIED_MIN_BYTES) {
        size_t lines = 1;
        for (const char *p = src, *end = src + len;
             (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
            lines++;
        if (len / lines > LANG_MINIFIED_LINE_BYTES)
            return as_errorf(e, AS_ETOOBIG,
                "source of %zu bytes on %zu lines looks minified (lines "
                "average over %u bytes): not parsed",
                len, lines, LANG_MINIFIED_LINE_BYTES);
    }
    pthread_once(&act_once, act_init);
    return 0;
}

/* Parse src (from old, edited to match, when not NULL) into *out. */
static int
parse(enum lang_id id, TSTree *old, const char *src, size_t len, TSTree **out,
    struct as_err *e)
{
    TSParser *p = ts_parser_new();
    if (!ts_parser_set_language(p, lang_grammar(id))) {
        ts_parser_delete(p);
        return as_errorf(e, AS_EUNSUP, "grammar '%s' rejected by the runtime",
            lang_name(id));
    }
    ts_parser_set_timeout_micros(p, LANG_PARSE_TIMEOUT_US);
    TSTree *t = ts_parser_parse_string(p, old, src, (uint32_t)len);
    if (t && old && ts_node_has_error(ts_tree_root_node(t))) {
        /* error recovery may take another path from a reused tree */
        ts_tree_delete(t);
        ts_parser_reset(p);
        t = ts_parser_parse_string(p, NULL, src, (uint32_t)len);
    }
    ts_parser_delete(p);
    if (!t)
        return as_errorf(
            e, AS_EPARSE, "parse of %s source timed out", lang_name(id));
    *out = t;
    return 0;
}

/*
 * What one top-level node of a kept version gave: where it was (bytes,
 * start point, kind) and its runs of the version's facts. Its next
 * version's node with the same kind and extent, the text unchanged, gives
 * the same facts moved by as many lines: a node is parsed and walked
 * with nothing of the tree outside it but the root.
 */
struct kept_top {
    uint32_t start, end;
    TSPoint at;
    TSSymbol sym;
    bool reusable; /* no syntax error inside */
    uint32_t imp[2], def[2], ref[2];
};

/* A version's facts by top-level node, for the next version's walk. */
struct kept_facts {
    struct kept_top *top;
    size_t ntop, atop;
    struct lang_import *imports; /* owned strings */
    size_t nimports, aimports;
    struct lang_def *defs; /* owned strings */
    size_t ndefs, adefs;
    struct tref *refs; /* names dropped; s is unused */
    size_t nrefs, arefs;
};

static void
kept_facts_release(struct kept_facts *f)
{
    for (size_t i = 0; i < f->nimports; i++)
        free(f->imports[i].spec);
    for (size_t i = 0; i < f->ndefs; i++)
        free(f->defs[i].name);
    free(f->imports);
    free(f->defs);
    free(f->refs);
    free(f->top);
    memset(f, 0, sizeof(*f));
}

/* The previous version: its tree, edited to the new text's places, and
 * its facts by top-level node. */
struct kept_prev {
    const TSTree *tree;
    const struct kept_facts *f;
};

/* Node n's facts appended again from the previous version's record r,
 * moved by drow lines and dbyte bytes. */
static void
reuse_top(struct walk *w, const struct kept_facts *f, const struct kept_top *r,
    uint32_t drow, uint32_t dbyte)
{
    for (uint32_t i = r->imp[0]; i < r->imp[1]; i++) {
        const struct lang_import *x = &f->imports[i];
        lang_facts_add_import(w->out, x->spec, strlen(x->spec), x->line + drow,
            x->kind, x->level);
        w->out->imports[w->out->nimports - 1].type_only = x->type_only;
    }
    for (uint32_t i = r->def[0]; i < r->def[1]; i++) {
        const struct lang_def *x = &f->defs[i];
        lang_facts_add_def(w->out, x->name, strlen(x->name), x->start + drow,
            x->end + drow, x->kind, x->decl);
    }
    for (uint32_t i = r->ref[0]; i < r->ref[1]; i++) {
        struct tref t = f->refs[i];
        t.start += dbyte;
        t.line += drow;
        t.s = w->src + t.start;
        ALLOC_GROW(w->refs, w->nrefs + 1, w->arefs);
        w->refs[w->nrefs++] = t;
    }
}

/* The record of the previous version's top-level node o (the i-th) when
 * n is the same node, moved: same kind, extent and column, untouched by
 * the edits. */
static const struct kept_top *
same_top(const struct kept_prev *prev, TSNode o, size_t i, TSNode n)
{
    if (i >= prev->f->ntop)
        return NULL;
    const struct kept_top *r = &prev->f->top[i];
    TSPoint op = ts_node_start_point(o), np = ts_node_start_point(n);
    if (!r->reusable || ts_node_has_changes(o) ||
        ts_node_start_byte(o) != ts_node_start_byte(n) ||
        ts_node_end_byte(o) != ts_node_end_byte(n) ||
        ts_node_symbol(o) != ts_node_symbol(n) || r->sym != ts_node_symbol(n) ||
        op.row != np.row || op.column != np.column ||
        r->at.column != np.column ||
        ts_node_end_byte(n) - ts_node_start_byte(n) != r->end - r->start)
        return NULL;
    return r;
}

/* The imports and definitions out holds from imp0 and def0, copied. */
static void
keep_facts(struct kept_facts *k, const struct lang_facts *out, size_t imp0,
    size_t def0)
{
    for (size_t i = imp0; i < out->nimports; i++) {
        ALLOC_GROW(k->imports, k->nimports + 1, k->aimports);
        k->imports[k->nimports] = out->imports[i];
        k->imports[k->nimports++].spec = xstrdup(out->imports[i].spec);
    }
    for (size_t i = def0; i < out->ndefs; i++) {
        ALLOC_GROW(k->defs, k->ndefs + 1, k->adefs);
        k->defs[k->ndefs] = out->defs[i];
        k->defs[k->ndefs++].name = xstrdup(out->defs[i].name);
    }
}

/* The text a C or C++ source is parsed from: its declaration macros
 * blanked (cmacro.h), same length and lines. */
struct blanked {
    char *text; /* NULL: the source itself */
    struct cmacro_use *uses;
    size_t nuses;
};

static const char *
blanked_init(struct blanked *b, enum lang_id id, const char *src, size_t len)
{
    memset(b, 0, sizeof(*b));
    if (id == LANG_C || id == LANG_CPP)
        b->text = cmacro_blank(src, len, &b->uses, &b->nuses);
    return b->text ? b->text : src;
}

static void
blanked_release(struct blanked *b)
{
    free(b->text);
    free(b->uses);
    memset(b, 0, sizeof(*b));
}

/*
 * Walk t (parsed from src) and append its facts to out. With prev, the
 * top-level nodes the edits left alone take their facts from the previous
 * version instead of a walk; with next, the facts are recorded by
 * top-level node for the version after.
 */
static void
extract_tree(enum lang_id id, const TSTree *t, const char *src, size_t len,
    const struct kept_prev *prev, struct kept_facts *next,
    const struct blanked *bl, struct lang_facts *out)
{
    struct walk w = { .id = id, .src = src, .len = len };
    struct lang_facts tmp;
    lang_facts_init(&tmp);
    w.out = &tmp;
    TSNode root = ts_tree_root_node(t);
    struct frame top;
    memset(&top, 0, sizeof(top));
    uint8_t scope;
    bool down = visit(&w, root, &top, &scope);
    filter_refs(&w, 0, 0);
    walk_push(&w, root, scope);
    if (prev && ts_node_has_error(root))
        prev = NULL; /* error recovery may reach past a node */
    /* the root's children, and the previous version's beside them */
    TSTreeCursor nc = ts_tree_cursor_new(root), oc;
    bool more = down && ts_tree_cursor_goto_first_child(&nc), omore = false;
    size_t oi = 0;
    if (prev) {
        oc = ts_tree_cursor_new(ts_tree_root_node(prev->tree));
        omore = ts_tree_cursor_goto_first_child(&oc);
    }
    for (; more; more = ts_tree_cursor_goto_next_sibling(&nc)) {
        TSNode n = ts_tree_cursor_current_node(&nc);
        size_t imp0 = tmp.nimports, def0 = tmp.ndefs, ref0 = w.nrefs;
        const struct kept_top *r = NULL;
        if (prev) {
            uint32_t nb = ts_node_start_byte(n);
            while (omore &&
                   ts_node_start_byte(ts_tree_cursor_current_node(&oc)) < nb) {
                omore = ts_tree_cursor_goto_next_sibling(&oc);
                oi++;
            }
            if (omore)
                r = same_top(prev, ts_tree_cursor_current_node(&oc), oi, n);
        }
        if (r) {
            reuse_top(&w, prev->f, r, ts_node_start_point(n).row - r->at.row,
                ts_node_start_byte(n) - r->start);
        } else {
            size_t skip0 = w.nskip;
            walk_subtree(&w, n);
            filter_refs(&w, ref0, skip0);
        }
        if (!next)
            continue;
        ALLOC_GROW(next->top, next->ntop + 1, next->atop);
        struct kept_top *k = &next->top[next->ntop++];
        k->start = ts_node_start_byte(n);
        k->end = ts_node_end_byte(n);
        k->at = ts_node_start_point(n);
        k->sym = ts_node_symbol(n);
        k->reusable = !ts_node_has_error(n);
        k->imp[0] = (uint32_t)next->nimports;
        k->def[0] = (uint32_t)next->ndefs;
        k->ref[0] = (uint32_t)next->nrefs;
        keep_facts(next, &tmp, imp0, def0);
        for (size_t j = ref0; j < w.nrefs; j++) {
            ALLOC_GROW(next->refs, next->nrefs + 1, next->arefs);
            next->refs[next->nrefs] = w.refs[j];
            next->refs[next->nrefs++].s = NULL;
        }
        k->imp[1] = (uint32_t)next->nimports;
        k->def[1] = (uint32_t)next->ndefs;
        k->ref[1] = (uint32_t)next->nrefs;
    }
    ts_tree_cursor_delete(&nc);
    if (prev)
        ts_tree_cursor_delete(&oc);
    /* a blanked macro is no node of the tree but still a use */
    for (size_t i = 0; bl && i < bl->nuses; i++) {
        ALLOC_GROW(w.refs, w.nrefs + 1, w.arefs);
        w.refs[w.nrefs++] = (struct tref){ .s = src + bl->uses[i].start,
            .start = bl->uses[i].start,
            .line = bl->uses[i].line,
            .len = bl->uses[i].len };
    }
    w.depth = 0;
    flush_refs(&w);
    free(w.st);
    free(w.skip);
    free(w.refs);
    /* append tmp to out, moving the strings */
    for (size_t i = 0; i < tmp.nimports; i++) {
        ALLOC_GROW(out->imports, out->nimports + 1, out->aimports);
        out->imports[out->nimports++] = tmp.imports[i];
    }
    for (size_t i = 0; i < tmp.ndefs; i++) {
        ALLOC_GROW(out->defs, out->ndefs + 1, out->adefs);
        out->defs[out->ndefs++] = tmp.defs[i];
    }
    for (size_t i = 0; i < tmp.nrefs; i++) {
        ALLOC_GROW(out->refs, out->nrefs + 1, out->arefs);
        out->refs[out->nrefs++] = tmp.refs[i];
    }
    free(tmp.imports);
    free(tmp.defs);
    free(tmp.refs);
}

int
lang_extract_max(enum lang_id id, const char *src, size_t len, size_t max_bytes,
    struct lang_facts *out, struct as_err *e)
{
    TSTree *t;
    int rc = extract_check(id, src, len, max_bytes, e);
    if (rc)
        return rc;
    struct blanked bl;
    const char *text = blanked_init(&bl, id, src, len);
    if ((rc = parse(id, NULL, text, len, &t, e))) {
        blanked_release(&bl);
        return rc;
    }
    extract_tree(id, t, src, len, NULL, NULL, &bl, out);
    ts_tree_delete(t);
    blanked_release(&bl);
    return 0;
}

struct lang_kept {
    enum lang_id id;
    TSTree *tree;
    char *src;
    size_t len;
    struct kept_facts facts;
};

void
lang_kept_free(struct lang_kept *k)
{
    if (!k)
        return;
    if (k->tree)
        ts_tree_delete(k->tree);
    free(k->src);
    kept_facts_release(&k->facts);
    free(k);
}

size_t
lang_kept_bytes(const struct lang_kept *k)
{
    return k ? k->len : 0;
}

/* p moved over the n bytes at s. */
static TSPoint
point_after(TSPoint p, const char *s, size_t n)
{
    const char *end = s + n, *nl;
    while ((nl = memchr(s, '\n', (size_t)(end - s)))) {
        p.row++;
        p.column = 0;
        s = nl + 1;
    }
    p.column += (uint32_t)(end - s);
    return p;
}

/* Where each line of s starts, and len after the last. */
static uint32_t *
line_starts(const char *s, size_t len, size_t *n)
{
    size_t a = 0;
    uint32_t *v = NULL;
    *n = 0;
    ALLOC_GROW(v, 1, a);
    v[(*n)++] = 0;
    for (const char *p = s, *end = s + len, *nl;
         (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) {
        ALLOC_GROW(v, *n + 1, a);
        v[(*n)++] = (uint32_t)(nl + 1 - s);
    }
    ALLOC_GROW(v, *n + 1, a);
    v[(*n)++] = (uint32_t)len;
    return v;
}

/* Between a kept version and the next: the line-diff's hunks applied to
 * the kept tree in order, each where the ones before it left the text. */
struct edits {
    TSTree *tree;
    const char *old, *new;
    uint32_t from;     /* the diff's first byte (same in both texts) */
    uint32_t *ol, *nl; /* line starts from there (the diff counts from 1) */
    size_t nol, nnl;
    TSPoint at;  /* where the text before the hunk ends, in the new text */
    uint32_t to; /* its byte */
};

static uint32_t
line_start(const uint32_t *v, size_t n, int line)
{
    size_t i = line > 0 ? (size_t)line - 1 : 0;
    return v[i < n ? i : n - 1];
}

static int
on_hunk(const git_diff_delta *d, const git_diff_hunk *h, void *payload)
{
    (void)d;
    struct edits *x = payload;
    /* a hunk of no lines names the line after which it applies */
    int os = h->old_lines ? h->old_start : h->old_start + 1;
    int ns = h->new_lines ? h->new_start : h->new_start + 1;
    uint32_t ob = x->from + line_start(x->ol, x->nol, os);
    uint32_t oe = x->from + line_start(x->ol, x->nol, os + h->old_lines);
    uint32_t nb = x->from + line_start(x->nl, x->nnl, ns);
    uint32_t ne = x->from + line_start(x->nl, x->nnl, ns + h->new_lines);
    /* only the bytes that differ: a long line changed in one place (a
     * minified file is a few such lines) is not re-parsed whole */
    while (ob < oe && nb < ne && x->old[ob] == x->new[nb])
        ob++, nb++;
    while (ob < oe && nb < ne && x->old[oe - 1] == x->new[ne - 1])
        oe--, ne--;
    TSInputEdit ed;
    ed.start_point = point_after(x->at, x->new + x->to, nb - x->to);
    ed.start_byte = nb;
    ed.old_end_byte = nb + (oe - ob);
    ed.new_end_byte = ne;
    ed.old_end_point = point_after(ed.start_point, x->old + ob, oe - ob);
    ed.new_end_point = point_after(ed.start_point, x->new + nb, ne - nb);
    ts_tree_edit(x->tree, &ed);
    x->at = ed.new_end_point;
    x->to = ne;
    return 0;
}

/* The one edit spanning every changed byte (common prefix and suffix). */
static void
edit_span(TSTree *t, const char *old, size_t olen, const char *src, size_t len)
{
    size_t pre = 0, max = olen < len ? olen : len;
    while (pre < max && old[pre] == src[pre])
        pre++;
    size_t suf = 0;
    while (suf < max - pre && old[olen - 1 - suf] == src[len - 1 - suf])
        suf++;
    TSInputEdit ed;
    TSPoint zero = { 0, 0 };
    ed.start_byte = (uint32_t)pre;
    ed.old_end_byte = (uint32_t)(olen - suf);
    ed.new_end_byte = (uint32_t)(len - suf);
    ed.start_point = point_after(zero, src, pre);
    ed.old_end_point = point_after(ed.start_point, old + pre, olen - suf - pre);
    ed.new_end_point = point_after(ed.start_point, src + pre, len - suf - pre);
    ts_tree_edit(t, &ed);
}

static pthread_once_t git_once = PTHREAD_ONCE_INIT;

static void
git_init(void)
{
    git_libgit2_init();
}

/*
 * Tell k's tree how src differs from k's text: one edit per hunk of
 * git's line diff of the lines between the common ends (a parse re-reads
 * only the edited stretches), or, when the diff fails, one edit over
 * everything between the common ends.
 */
static void
edit_tree(struct lang_kept *k, const char *src, size_t len)
{
    pthread_once(&git_once, git_init);
    /* the common ends, cut back to whole lines */
    size_t pre = 0, max = k->len < len ? k->len : len;
    while (pre < max && k->src[pre] == src[pre])
        pre++;
    while (pre > 0 && src[pre - 1] != '\n')
        pre--;
    size_t suf = 0;
    while (suf < max - pre && k->src[k->len - 1 - suf] == src[len - 1 - suf])
        suf++;
    while (suf > 0 && suf < len && src[len - suf - 1] != '\n')
        suf--;
    struct edits x = { .old = k->src, .new = src, .from = (uint32_t)pre };
    x.ol = line_starts(k->src + pre, k->len - pre - suf, &x.nol);
    x.nl = line_starts(src + pre, len - pre - suf, &x.nnl);
    git_diff_options o = GIT_DIFF_OPTIONS_INIT;
    o.context_lines = 0;
    o.interhunk_lines = 0;
    o.flags = GIT_DIFF_FORCE_TEXT;
    /* the tree is edited hunk by hunk: a failure part-way would leave it
     * edited for some, so the diff runs first into a throwaway copy */
    x.tree = ts_tree_copy(k->tree);
    int rc = git_diff_buffers(k->src + pre, k->len - pre - suf, NULL, src + pre,
        len - pre - suf, NULL, &o, NULL, NULL, on_hunk, NULL, &x);
    if (rc == 0) {
        ts_tree_delete(k->tree);
        k->tree = x.tree;
    } else {
        ts_tree_delete(x.tree);
        edit_span(k->tree, k->src, k->len, src, len);
    }
    free(x.ol);
    free(x.nl);
}

int
lang_extract_next(enum lang_id id, struct lang_kept **kept, const char *src,
    size_t len, size_t max_bytes, struct lang_facts *out, struct as_err *e)
{
    struct lang_kept *k = *kept;
    int rc = extract_check(id, src, len, max_bytes, e);
    TSTree *old = NULL, *t = NULL;
    struct blanked bl = { 0 };
    /* the tree and the kept text are of the text parsed, blanked */
    const char *text = rc ? src : blanked_init(&bl, id, src, len);
    if (!rc && k && k->id == id) {
        edit_tree(k, text, len);
        old = k->tree;
    }
    if (!rc)
        rc = parse(id, old, text, len, &t, e);
    if (rc) {
        blanked_release(&bl);
        lang_kept_free(k);
        *kept = NULL;
        return rc;
    }
    struct kept_facts next = { 0 };
    struct kept_prev pv = { old, k ? &k->facts : NULL };
    extract_tree(id, t, src, len, old ? &pv : NULL, &next, &bl, out);
    if (!k)
        k = xcalloc(1, sizeof(*k));
    if (k->tree)
        ts_tree_delete(k->tree);
    kept_facts_release(&k->facts);
    k->facts = next;
    free(k->src);
    k->id = id;
    k->tree = t;
    k->src = xmalloc(len ? len : 1);
    memcpy(k->src, text, len);
    k->len = len;
    *kept = k;
    blanked_release(&bl);
    return 0;
}

int
lang_extract(enum lang_id id, const char *src, size_t len,
    struct lang_facts *out, struct as_err *e)
{
    return lang_extract_max(id, src, len, LANG_MAX_FILE_BYTES, out, e);
}

/*
 * lang.h - per-language extraction of imports, definitions and references.
 *
 * The language layer parses source files with the tree-sitter grammars that
 * are compiled into the library (ABI 14, see docs/decisions/0003) and reports
 * plain facts: what a file imports (the raw specifier, unresolved), which
 * symbols it defines (with the lines each definition spans) and which names
 * it references. Nothing found inside comments or string literals is ever
 * reported: the parse tree tells code from text. Imports that name types
 * alone are reported marked type_only (the graph gives them no edge), and
 * a C/C++ forward declaration (`struct foo;`) is neither a definition nor
 * a reference: it needs nothing of foo's shape.
 *
 * lang_extract() does no I/O and keeps no global state; it may be called from
 * several threads at once (each call uses its own parser). Module resolution
 * (turning a specifier into repository paths) lives in resolve.h.
 */
#ifndef AIRSPACE_LANG_LANG_H
#define AIRSPACE_LANG_LANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

enum lang_id {
    LANG_NONE = 0,
    LANG_C,
    LANG_CPP,
    LANG_JAVASCRIPT,
    LANG_TYPESCRIPT,
    LANG_TSX,
    LANG_PYTHON,
    LANG_GO,
    LANG_RUST,
    LANG_JAVA,
    LANG__COUNT
};

/* What kind of import statement a specifier came from. */
enum lang_import_kind {
    LANG_IMPORT_INCLUDE_LOCAL = 0, /* C/C++ #include "x.h" */
    LANG_IMPORT_INCLUDE_SYSTEM,    /* C/C++ #include <x.h> */
    LANG_IMPORT_ES,                /* JS/TS import ... from 'x' */
    LANG_IMPORT_REQUIRE,           /* require('x'), import x = require() */
    LANG_IMPORT_DYNAMIC,           /* import('x') */
    LANG_IMPORT_EXPORT_FROM,       /* export ... from 'x' */
    LANG_IMPORT_PY,                /* import a.b.c */
    LANG_IMPORT_PY_FROM,           /* from a.b import c: spec "a.b" */
    LANG_IMPORT_PY_FROM_NAME,      /* ... and spec "a.b.c" (maybe a module) */
    LANG_IMPORT_GO,                /* import "example.com/m/pkg" */
    LANG_IMPORT_RUST_MOD,          /* mod x; */
    LANG_IMPORT_RUST_USE,          /* use crate::a::b (path, "::"-joined) */
    LANG_IMPORT_JAVA,              /* import com.x.Y; */
    LANG_IMPORT_JAVA_WILDCARD,     /* import com.x.*; spec "com.x" */
    LANG_IMPORT_JAVA_STATIC,       /* import static com.x.Y.m; */
};

enum lang_def_kind {
    LANG_DEF_FUNCTION = 0,
    LANG_DEF_METHOD,
    LANG_DEF_TYPE,
    LANG_DEF_MACRO,
    LANG_DEF_CONSTANT,
};

struct lang_import {
    char *spec;     /* owned; quotes and brackets stripped */
    uint32_t line;  /* 1-based */
    uint8_t kind;   /* enum lang_import_kind */
    uint8_t level;  /* Python relative level: 0 absolute, 1 ".", 2 "..", ... */
    bool type_only; /* names types alone, no runtime dependency: TypeScript
                       `import type`, Python under `if TYPE_CHECKING:` */
};

struct lang_def {
    char *name;          /* owned */
    uint32_t start, end; /* 1-based, inclusive, the whole definition */
    uint8_t kind;        /* enum lang_def_kind */
    bool decl;           /* a declaration only (C/C++ prototype, signature) */
};

struct lang_ref {
    char *name;    /* owned */
    uint32_t line; /* 1-based */
};

/* Everything extracted from one file; owns all its strings. */
struct lang_facts {
    struct lang_import *imports;
    size_t nimports, aimports;
    struct lang_def *defs; /* in source order */
    size_t ndefs, adefs;
    struct lang_ref *refs; /* sorted by line then name, unique */
    size_t nrefs, arefs;
};

/* Bumped whenever extraction changes what it reports (invalidates caches). */
#define LANG_EXTRACT_VERSION 4

/* Default cap on a source file's size; larger files are not parsed. */
#define LANG_MAX_FILE_BYTES (2u * 1024 * 1024)

/*
 * Minified or generated code is not parsed either: a source of at least
 * LANG_MINIFIED_MIN_BYTES whose lines average more than
 * LANG_MINIFIED_LINE_BYTES (a bundle, a compiled schema). Its names are
 * mangled, so its definitions and references would only match unrelated
 * short names elsewhere, and one parse of it can cost as much as hundreds
 * of ordinary files.
 */
#define LANG_MINIFIED_MIN_BYTES (16u * 1024)
#define LANG_MINIFIED_LINE_BYTES 1000u

/* Safety net on one parse (microseconds); a parse that exceeds it fails. */
#define LANG_PARSE_TIMEOUT_US 5000000u

void lang_facts_init(struct lang_facts *f);
void lang_facts_release(struct lang_facts *f);

/* Append one entry (the strings are copied). */
void lang_facts_add_import(struct lang_facts *f, const char *spec, size_t len,
    uint32_t line, int kind, int level);
void lang_facts_add_def(struct lang_facts *f, const char *name, size_t len,
    uint32_t start, uint32_t end, int kind, bool decl);
void lang_facts_add_ref(
    struct lang_facts *f, const char *name, size_t len, uint32_t line);

/*
 * The language of path by its extension (".h" is C unless h_is_cpp says
 * otherwise through lang_detect_ex), or LANG_NONE.
 */
enum lang_id lang_detect(const char *path);
enum lang_id lang_detect_ex(const char *path, bool h_is_cpp);

/* Short lowercase name ("c", "tsx", ...); "none" for LANG_NONE. */
const char *lang_name(enum lang_id id);

/* True for C/C++ header extensions (.h .hh .hpp .hxx .h++). */
bool lang_is_header(const char *path);

/*
 * Check that every compiled-in grammar speaks an ABI the linked runtime
 * accepts. Returns 0 or AS_EUNSUP with the offending grammar named in e.
 */
int lang_check_abi(struct as_err *e);

/*
 * Parse len bytes of src as language id and fill out (which must be
 * initialised; entries are appended). Returns 0; AS_EINVAL for LANG_NONE;
 * AS_ETOOBIG when len exceeds LANG_MAX_FILE_BYTES (use lang_extract_max for
 * another cap) or the source is minified (LANG_MINIFIED_*); AS_EPARSE when
 * the parse hit its timeout. On error out keeps whatever it held before.
 */
int lang_extract(enum lang_id id, const char *src, size_t len,
    struct lang_facts *out, struct as_err *e);
int lang_extract_max(enum lang_id id, const char *src, size_t len,
    size_t max_bytes, struct lang_facts *out, struct as_err *e);

/*
 * A parsed version of one source kept (its text and syntax tree) so that
 * the next version parses incrementally: the runtime re-parses only what
 * the edit between the two texts touched and reuses the rest of the tree.
 */
struct lang_kept;

/*
 * lang_extract_max() on the next version of a source: when *kept holds a
 * previous version in the same language, the parse starts from its tree
 * (the one edit spanning every changed byte, found by the common prefix
 * and suffix); a re-parse that reports a syntax error is done again from
 * scratch, so the facts are always those of a fresh parse. On success
 * *kept holds this version (allocated when NULL); on error it is freed
 * and set to NULL.
 */
int lang_extract_next(enum lang_id id, struct lang_kept **kept, const char *src,
    size_t len, size_t max_bytes, struct lang_facts *out, struct as_err *e);

/* Bytes of source k keeps (its tree is in proportion); 0 for NULL. */
size_t lang_kept_bytes(const struct lang_kept *k);
void lang_kept_free(struct lang_kept *k);

#endif

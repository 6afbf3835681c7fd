/*
 * resolve.h - module resolution: an import specifier to repository paths.
 *
 * A resolver knows the set of files of one repository (normalised
 * repository-relative paths) and the project configuration that affects
 * resolution (go.mod module paths, tsconfig.json/jsconfig.json
 * compilerOptions.paths and baseUrl, package.json names of workspace
 * packages). It does no I/O: the caller feeds it paths and the text of the
 * configuration files. Rules per language (DESIGN §4.2):
 *
 *   C/C++   the including file's directory ("x.h" only), then the configured
 *           include dirs, then a unique-suffix match anywhere in the
 *           repository ("net/conn.h" finds src/net/conn.h; ties go to the
 *           candidate sharing the longest directory prefix with the includer)
 *   JS/TS   relative paths with extension and index probing, ".js" -> ".ts",
 *           tsconfig paths + baseUrl, workspace package names; other bare
 *           names (npm packages) resolve to nothing
 *   Python  absolute modules from the root, "src/" and the file's own
 *           directory; relative imports by level
 *   Go      import path under a go.mod module -> every non-test .go file of
 *           that package directory
 *   Rust    mod x; -> x.rs or x/mod.rs; use crate::/super::/self:: paths ->
 *           the deepest module file that exists
 *   Java    com.x.Y -> a file ending in com/x/Y.java; com.x.* -> every .java
 *           file of the package directory
 *
 * The resolver owns copies of everything it is given. Not thread-safe.
 */
#ifndef AIRSPACE_LANG_RESOLVE_H
#define AIRSPACE_LANG_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "lang/lang.h"

struct resolver;

/* Paths an import resolved to; strings borrowed from the resolver. */
struct resolve_result {
    const char **v;
    size_t n, alloc;
};

/* A new resolver; include_dirs (repository-relative) are copied. */
struct resolver *resolver_new(const char *const *include_dirs, size_t n);
void resolver_free(struct resolver *r);

/* Add (or re-add) a repository file. */
void resolver_add_file(struct resolver *r, const char *path);
/* Forget a file (deleted); its configuration, if any, is dropped too. */
void resolver_remove_file(struct resolver *r, const char *path);
/* True if path is a file in the repository. */
bool resolver_has_file(const struct resolver *r, const char *path);

/* True for files whose content resolution needs (go.mod, package.json,
 * tsconfig*.json, jsconfig.json). */
bool resolver_is_config(const char *path);
/* Feed the text of a configuration file (replaces an earlier one of the same
 * path). Malformed text is ignored: resolution then simply finds less. */
void resolver_add_config(
    struct resolver *r, const char *path, const char *text, size_t len);

/*
 * Resolve import im of file from (language lang) and append the repository
 * paths it names to res (never from itself). Returns the number appended.
 */
size_t resolver_resolve(struct resolver *r, const char *from, enum lang_id lang,
    const struct lang_import *im, struct resolve_result *res);

void resolve_result_clear(struct resolve_result *res);
void resolve_result_release(struct resolve_result *res);

#endif

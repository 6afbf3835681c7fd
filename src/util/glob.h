// glob.h - gitignore-style path globs: matching and overlap.
//
// Pure string work, no I/O. Syntax follows git's wildmatch with WM_PATHNAME:
//   *      any run of characters except '/'
//   ?      one character except '/'
//   [...]  a class: ranges (a-z), negation ([!x] or [^x]), POSIX classes
//          ([:alpha:] ...); never matches '/'
//   \x     x literally
//   **     as a whole component: "**" + "/" at the start matches zero or more
//          leading directories, "/**" + "/" in the middle zero or more
//          directories, a trailing "/**" everything inside; elsewhere "**"
//          acts as '*'.
// On top of wildmatch, the gitignore rules for where a pattern applies:
//   - a pattern with no '/' except a trailing one matches a name at any depth
//     ("*.c" matches "src/a.c"); a leading '/' or a '/' in the middle anchors
//     it at the repository root ("/a.c", "src/*.c");
//   - a pattern that matches a directory covers everything inside it
//     ("src/auth/*" matches "src/auth/x/login.ts", "src" matches "src/a.c");
//   - a trailing '/' matches directories only ("build/" covers "build/x",
//     not a file named "build").
// Matching is an automaton simulation: time is O(len(path) * len(pattern)),
// never exponential, whatever the input.
#ifndef AIRSPACE_UTIL_GLOB_H
#define AIRSPACE_UTIL_GLOB_H

#include <stdbool.h>

#include "util/error.h"

/* A compiled pattern; opaque. Free with glob_free(). */
struct glob;

/*
 * Compile pattern into *out (free with glob_free). Returns 0, or AS_EINVAL
 * with a message in e when the pattern cannot match anything useful: empty,
 * an unterminated '[' class, a trailing lone '\', or a ".." component.
 */
int glob_compile(const char *pattern, struct glob **out, struct as_err *e);
/*
 * The same for a path an agent names (an intent's files): a pattern
 * without wildcards is taken from the repository's top, as "/" + pattern
 * ("a.c" is the top's a.c, or everything in a directory a.c, not an a.c at
 * any depth), so two plain paths overlap only when they are the same path
 * or one lies inside the other. A pattern with a wildcard follows the rules
 * above. glob_pattern() gives the pattern as written.
 */
int glob_compile_path(const char *pattern, struct glob **out, struct as_err *e);
void glob_free(struct glob *g);

/* The source text a glob was compiled from. Borrowed. */
const char *glob_pattern(const struct glob *g);

/* Whether normalised repository-relative path is covered by g. */
bool glob_matches(const struct glob *g, const char *path);

/* One-shot glob_compile + glob_matches; a bad pattern matches nothing. */
bool glob_match(const char *pattern, const char *path);

/* Whether pattern contains a wildcard ('*', '?', '[' or '\'). */
bool glob_has_magic(const char *pattern);

/*
 * Whether pattern has a wildcard that is not escaped: '*', '?' or '['
 * without a '\' before it. A pattern without one names a single path once
 * its escapes are taken out ("app/\[id\]/page.tsx" names app/[id]/page.tsx),
 * and glob_compile_path() anchors it as it anchors any path.
 */
bool glob_has_wildcard(const char *pattern);

/*
 * The path a pattern without wildcards names (see glob_has_wildcard), its
 * escapes taken out, as a new string (free() it); NULL when the pattern has
 * a wildcard or ends with a lone '\'.
 */
char *glob_literal(const char *pattern);

/*
 * A pattern that names path literally: every '*', '?', '[' and '\' in it
 * escaped with '\'. A new string (free() it).
 */
char *glob_escape(const char *path);

/*
 * Whether some path may be covered by both patterns. Exact for patterns that
 * compile (it intersects the two automata); true when either pattern is
 * invalid, so callers that refuse on overlap stay on the safe side.
 */
bool glob_overlap(const char *a, const char *b);

/* glob_overlap of two compiled globs. */
bool glob_overlap_compiled(const struct glob *a, const struct glob *b);

#endif

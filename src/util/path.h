/*
 * path.h - repository-relative path normalisation. Pure string work, no I/O.
 *
 * A normalised path has no leading "./" or "/", no empty or "." components,
 * no trailing slash, and no ".." (a ".." that would climb above the root is
 * an escape and is refused). "src//a.c", "./src/a.c" and "src/a.c/" all
 * normalise to "src/a.c".
 */
#ifndef AIRSPACE_UTIL_PATH_H
#define AIRSPACE_UTIL_PATH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Normalise path into a new string (*out, free with free()).
 * If root is not NULL and path is absolute, path must lie under root and is
 * made relative to it; with root NULL a leading "/" is simply dropped.
 * Returns 0, or AS_EINVAL when the path escapes the root.
 */
int path_normalize(const char *path, const char *root, char **out);

/* Number of components of a normalised path ("" has 0, "a/b" has 2). */
size_t path_depth(const char *norm);

/*
 * Join directory dir (normalised, may be "") and a relative reference rel
 * (may contain "." and ".."), normalising the result into *out.
 * Returns AS_EINVAL if rel climbs above the root.
 */
int path_join(const char *dir, const char *rel, char **out);

/* Whether path p is dir or lies below it, as strings: "a/b" is within "a"
 * and "a/b", not "a/bc"; every absolute path is within "/". */
bool path_within(const char *p, const char *dir);

/* Length of the directory part of a normalised path ("a/b/c" -> 3, "c" -> 0).
 */
size_t path_dirlen(const char *norm);

#endif

/*
 * owners.h - the ownership file (.airspace/owners): who owns which paths.
 *
 * Pure: parses text the caller has read; no I/O. The format is GitHub's
 * CODEOWNERS:
 *
 *     # comment
 *     pattern owner [owner ...]
 *
 * - one rule per line; blank lines and lines starting with '#' are ignored;
 *   a word starting with '#' after the pattern starts a trailing comment;
 * - the pattern is a gitignore-style glob (util/glob.h): "*.c" at any depth,
 *   "/build/" anchored at the root, "docs/" a directory anywhere, "**" as
 *   in gitignore; "\#x" names a file starting with '#';
 * - "!" negation is refused, as GitHub refuses it;
 * - owners are agent ids, agent labels or "@lane" names, kept verbatim;
 *   a rule with no owners makes its paths unowned (it still wins);
 * - the LAST matching rule wins, as in GitHub.
 *
 * Errors name the line: "owners line 3: ...". A parse that fails returns
 * nothing, so a caller keeps whatever table it had.
 * Caps: OWNERS_TEXT_MAX bytes, OWNERS_LINE_MAX bytes per line.
 * Not thread-safe for writes; reads of a parsed table may be shared.
 */
#ifndef AIRSPACE_CORE_OWNERS_H
#define AIRSPACE_CORE_OWNERS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

#define OWNERS_TEXT_MAX (1024 * 1024)
#define OWNERS_LINE_MAX 4096

/* A parsed ownership table; opaque. */
struct owners;

/*
 * Parse len bytes of text into a new table (*out; free with owners_free).
 * Returns 0, AS_EPARSE with "owners line N: ..." in e for a bad rule (empty
 * or invalid glob, negation, control characters), or AS_ETOOBIG.
 */
int owners_parse(
    const char *text, size_t len, struct owners **out, struct as_err *e);

void owners_free(struct owners *o);

/* Number of rules. */
size_t owners_count(const struct owners *o);

/*
 * Owners of a normalised repository-relative path: those of the last rule
 * that matches it. Returns how many (0 when no rule matches or the winning
 * rule lists none); *list (if not NULL) gets the borrowed array, valid until
 * owners_free, and *line (if not NULL) the winning rule's line, 0 for none.
 */
size_t owners_of(const struct owners *o, const char *path,
    const char *const **list, unsigned *line);

/* Whether who (an agent id, label or "@lane") is among the path's owners. */
bool owners_includes(const struct owners *o, const char *path, const char *who);

#endif

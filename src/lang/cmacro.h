/*
 * cmacro.h - C/C++ macros that stand where a declaration is expected,
 * blanked before the parse.
 *
 * Headers such as libgit2's wrap every declaration in macros the parser
 * cannot expand: a bare `GIT_BEGIN_DECL` line, `GIT_EXTERN(int)` in front of
 * a prototype. tree-sitter then reads the macro as the declared name (or
 * swallows the declarations into an error), so the macro would count as a
 * definition of every header using it. Blanking the macro's name and
 * parentheses (the type inside stays) leaves `int git_foo(...);`, which
 * parses as the declaration it is.
 *
 * Pure: no I/O. Blanking keeps every byte offset and line: a blanked byte
 * becomes a space.
 */
#ifndef AIRSPACE_LANG_CMACRO_H
#define AIRSPACE_LANG_CMACRO_H

#include <stddef.h>
#include <stdint.h>

/* One blanked macro name: still a use of the macro. */
struct cmacro_use {
    uint32_t start, len; /* bytes of the name in the source */
    uint32_t line;       /* 1-based */
};

/*
 * The blanked copy of src (len bytes, which may hold NULs), or NULL when
 * nothing is blanked. *uses receives the blanked names (a new array, free
 * with free(); NULL when none) and *nuses their count. Blanked:
 *
 *   - a name-like call `NAME(...)` starting a top-level declaration and
 *     followed on its line by the declaration's type or name
 *     (`GIT_EXTERN(int) git_foo(...)`): the name and the two parentheses;
 *   - an upper-case name alone on its line between top-level declarations
 *     (`GIT_BEGIN_DECL`), unless the declaration after it would be left
 *     without a type (`HRESULT` above `foo(void)` is the return type).
 *
 * "Top level" is outside any braces but those of `extern "C"` and
 * `namespace`.
 */
char *cmacro_blank(
    const char *src, size_t len, struct cmacro_use **uses, size_t *nuses);

#endif

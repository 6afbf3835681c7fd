/*
 * strbuf.h - a growing, always NUL-terminated string.
 *
 *     struct strbuf b = STRBUF_INIT;
 *     strbuf_addf(&b, "%s: %d", name, n);
 *     ... b.s, b.len ...
 *     free(b.s);
 *
 * After the first strbuf_addf() s is never NULL; before it, s is NULL and
 * len 0. Allocation failure aborts (xalloc.h). The string is the caller's:
 * free(b.s) or take it.
 */
#ifndef AIRSPACE_UTIL_STRBUF_H
#define AIRSPACE_UTIL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
    char *s;
    size_t len, alloc;
};

#define STRBUF_INIT                                                            \
    {                                                                          \
        NULL, 0, 0                                                             \
    }

/* Append printf-formatted text. */
void strbuf_addf(struct strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

#endif

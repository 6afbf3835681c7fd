/*
 * xalloc.h - allocation that never returns NULL.
 *
 * Out of memory is not an error airspace recovers from: like git and Redis,
 * these wrappers print a message and abort. Every other failure is an ordinary
 * error code (see error.h).
 */
#ifndef AIRSPACE_UTIL_XALLOC_H
#define AIRSPACE_UTIL_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Copy the first n bytes of s and a terminating NUL. */
char *xstrndup(const char *s, size_t n);
/* Printf into a new string; free with free(). */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Make sure (*arr) has room for at least n elements of size elem, growing
 * *alloc geometrically. Usage: ALLOC_GROW(v, n + 1, alloc).
 */
void *xgrow(void *arr, size_t elem, size_t n, size_t *alloc);

/* Free each of the n strings of v, then v (NULL: nothing). */
void strv_free(char **v, size_t n);
#define ALLOC_GROW(arr, n, alloc)                                              \
    ((arr) = xgrow((arr), sizeof(*(arr)), (n), &(alloc)))

#endif

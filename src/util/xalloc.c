#include "util/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/banned.h"

static void
oom(size_t n)
{
    fprintf(stderr, "airspace: out of memory (%zu bytes)\n", n);
    abort();
}

void *
xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *
xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        oom(count * size);
    return p;
}

void *
xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

char *
xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *
xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        oom(0);
    char *p = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void *
xgrow(void *arr, size_t elem, size_t n, size_t *alloc)
{
    if (n <= *alloc)
        return arr;
    size_t want = *alloc ? *alloc : 8;
    while (want < n)
        want = want + want / 2 + 8;
    if (want > (size_t)-1 / elem)
        oom((size_t)-1);
    *alloc = want;
    return xrealloc(arr, want * elem);
}

void
strv_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

#include "util/strbuf.h"

#include <stdio.h>

#include "util/xalloc.h"
#include "util/banned.h"

void
strbuf_vaddf(struct strbuf *b, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int need = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    size_t n = need > 0 ? (size_t)need : 0;
    ALLOC_GROW(b->s, b->len + n + 1, b->alloc);
    if (n)
        vsnprintf(b->s + b->len, n + 1, fmt, ap);
    b->len += n;
    b->s[b->len] = '\0';
}

void
strbuf_addf(struct strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(b, fmt, ap);
    va_end(ap);
}

#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

#define SORT_SMALL 64

static void
insertion(uint32_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

void
sort_u32(uint32_t *v, size_t n)
{
    if (n < SORT_SMALL) {
        insertion(v, n);
        return;
    }
    size_t count[4][256];
    memset(count, 0, sizeof(count));
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 4; b++)
            count[b][(v[i] >> (8 * b)) & 0xff]++;
    uint32_t *tmp = xmalloc(n * sizeof(*tmp));
    uint32_t *src = v, *dst = tmp;
    for (int b = 0; b < 4; b++) {
        /* A byte equal in every element leaves the order as it is. */
        if (count[b][(v[0] >> (8 * b)) & 0xff] == n)
            continue;
        size_t at = 0;
        for (int k = 0; k < 256; k++) {
            size_t c = count[b][k];
            count[b][k] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[b][(src[i] >> (8 * b)) & 0xff]++] = src[i];
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof(*v));
    free(tmp);
}

static void
insertion64(uint64_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint64_t x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

void
sort_u64(uint64_t *v, size_t n)
{
    if (n < SORT_SMALL) {
        insertion64(v, n);
        return;
    }
    /* 8 passes of 8 bits; most keys here leave several bytes constant. */
    size_t(*count)[256] = xcalloc(8, sizeof(*count));
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++)
            count[b][(v[i] >> (8 * b)) & 0xff]++;
    uint64_t *tmp = xmalloc(n * sizeof(*tmp));
    uint64_t *src = v, *dst = tmp;
    for (int b = 0; b < 8; b++) {
        if (count[b][(v[0] >> (8 * b)) & 0xff] == n)
            continue;
        size_t at = 0;
        for (int k = 0; k < 256; k++) {
            size_t c = count[b][k];
            count[b][k] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[b][(src[i] >> (8 * b)) & 0xff]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof(*v));
    free(tmp);
    free(count);
}

size_t
sort_uniq_u32(uint32_t *v, size_t n)
{
    if (!n)
        return 0;
    sort_u32(v, n);
    size_t o = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[o - 1])
            v[o++] = v[i];
    return o;
}

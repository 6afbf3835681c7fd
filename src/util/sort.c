#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

#define SORT_SMALL 64

/*
 * RADIX_SORT(NAME, T, BYTES): void NAME(T *v, size_t n), ascending.
 * Insertion sort below SORT_SMALL elements; above, an LSD radix sort of
 * BYTES passes of 8 bits, each pass skipped when its byte is the same in
 * every element (most keys here leave several bytes constant).
 */
#define RADIX_SORT(NAME, T, BYTES)                                             \
    void NAME(T *v, size_t n)                                                  \
    {                                                                          \
        if (n < SORT_SMALL) {                                                  \
            for (size_t i = 1; i < n; i++) {                                   \
                T x = v[i];                                                    \
                size_t j = i;                                                  \
                for (; j > 0 && v[j - 1] > x; j--)                             \
                    v[j] = v[j - 1];                                           \
                v[j] = x;                                                      \
            }                                                                  \
            return;                                                            \
        }                                                                      \
        size_t count[BYTES][256]; /* 8 or 16 KiB */                            \
        memset(count, 0, sizeof(count));                                       \
        for (size_t i = 0; i < n; i++)                                         \
            for (int b = 0; b < (BYTES); b++)                                  \
                count[b][(v[i] >> (8 * b)) & 0xff]++;                          \
        T *tmp = xmalloc(n * sizeof(*tmp));                                    \
        T *src = v, *dst = tmp;                                                \
        for (int b = 0; b < (BYTES); b++) {                                    \
            if (count[b][(v[0] >> (8 * b)) & 0xff] == n)                       \
                continue;                                                      \
            size_t at = 0;                                                     \
            for (int k = 0; k < 256; k++) {                                    \
                size_t c = count[b][k];                                        \
                count[b][k] = at;                                              \
                at += c;                                                       \
            }                                                                  \
            for (size_t i = 0; i < n; i++)                                     \
                dst[count[b][(src[i] >> (8 * b)) & 0xff]++] = src[i];          \
            T *t = src;                                                        \
            src = dst;                                                         \
            dst = t;                                                           \
        }                                                                      \
        if (src != v)                                                          \
            memcpy(v, src, n * sizeof(*v));                                    \
        free(tmp);                                                             \
    }

RADIX_SORT(sort_u32, uint32_t, 4)
RADIX_SORT(sort_u64, uint64_t, 8)

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

static int
cmp_strp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t
sort_uniq_strv(char **v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof(*v), cmp_strp);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w && !strcmp(v[w - 1], v[i]))
            free(v[i]);
        else
            v[w++] = v[i];
    }
    return w;
}

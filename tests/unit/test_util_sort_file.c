/*
 * test_util_sort_file.c - sort_u32 and sort_u64 against a reference, whole-file
 * reads with caps, atomic writes, and the stat cache of plain-directory blob
 * ids.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lang/statcache.h"
#include "util/error.h"
#include "util/file.h"
#include "util/sort.h"
#include "util/xalloc.h"
#include "test.h"
#include "util/banned.h"

/* Sizes around the insertion-sort cut-off (64) and well above it. */
static const size_t sort_sizes[] = { 0, 1, 2, 63, 64, 65, 1000, 70000 };
#define NSORT_SIZES (sizeof(sort_sizes) / sizeof(sort_sizes[0]))

static uint64_t
xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int
cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void
test_sort(void)
{
    uint64_t s = 88172645463325252ULL;
    for (size_t t = 0; t < NSORT_SIZES; t++) {
        size_t n = sort_sizes[t];
        uint32_t *a = xmalloc((n + 1) * sizeof(*a));
        uint32_t *b = xmalloc((n + 1) * sizeof(*b));
        for (size_t i = 0; i < n; i++) {
            xorshift(&s);
            /* mixed: small values share high bytes (skipped passes) */
            a[i] = t % 2 ? (uint32_t)s : (uint32_t)(s % 300);
            b[i] = a[i];
        }
        sort_u32(a, n);
        qsort(b, n, sizeof(*b), cmp_u32);
        CHECK(n == 0 || !memcmp(a, b, n * sizeof(*a)));
        size_t u = sort_uniq_u32(a, n);
        bool ok = true;
        for (size_t i = 1; i < u; i++)
            ok = ok && a[i - 1] < a[i];
        CHECK(ok);
        CHECK(n == 0 || u >= 1);
        free(a);
        free(b);
    }
}

static int
cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* sort_u64 on the shapes risk.c sorts (a 32-bit id over a 32-bit one: the
 * high bytes of both halves mostly constant) and on full 64-bit values. */
static void
test_sort64(void)
{
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    for (int shape = 0; shape < 3; shape++) {
        for (size_t t = 0; t < NSORT_SIZES; t++) {
            size_t n = sort_sizes[t];
            uint64_t *a = xmalloc((n + 1) * sizeof(*a));
            uint64_t *b = xmalloc((n + 1) * sizeof(*b));
            for (size_t i = 0; i < n; i++) {
                xorshift(&s);
                a[i] = shape == 0   ? s
                       : shape == 1 ? (s % 5000) << 32 | (s >> 40) % 300
                                    : 7; /* every byte the same */
                b[i] = a[i];
            }
            sort_u64(a, n);
            qsort(b, n, sizeof(*b), cmp_u64);
            CHECK(n == 0 || !memcmp(a, b, n * sizeof(*a)));
            free(a);
            free(b);
        }
    }
}

static char dir[64];

static void
test_sort_strv(void)
{
    const char *in[] = { "b.c", "a.c", "b.c", "a/b", "a.c", "a.c", "z" };
    size_t n = sizeof(in) / sizeof(*in);
    char **v = xcalloc(n, sizeof(*v));
    for (size_t i = 0; i < n; i++)
        v[i] = xstrdup(in[i]); /* the duplicates dropped are freed: ASan */
    size_t k = sort_uniq_strv(v, n);
    CHECK_INT(k, 4);
    if (k == 4) {
        CHECK_STR(v[0], "a.c");
        CHECK_STR(v[1], "a/b");
        CHECK_STR(v[2], "b.c");
        CHECK_STR(v[3], "z");
    }
    for (size_t i = 0; i < k; i++)
        free(v[i]);
    CHECK_INT(sort_uniq_strv(v, 0), 0);
    free(v);
}

static void
test_file(void)
{
    char *p = xasprintf("%s/f", dir);
    struct as_err e;
    CHECK_INT(file_write_atomic(p, "hello\n", 6, &e), 0);
    char *buf;
    size_t len;
    CHECK_INT(file_read_max(p, 100, false, &buf, &len), 0);
    CHECK_INT(len, 6);
    CHECK_STR(buf, "hello\n");
    free(buf);
    CHECK_INT(file_read_max(p, 5, false, &buf, &len), AS_ETOOBIG);
    CHECK(buf == NULL);
    CHECK_INT(file_read_max(dir, 100, false, &buf, &len), AS_ETOOBIG);
    char *missing = xasprintf("%s/none", dir);
    CHECK_INT(file_read_max(missing, 100, false, &buf, &len), AS_ENOENT);
    /* a write into a missing directory fails and leaves nothing */
    char *bad = xasprintf("%s/no/such/f", dir);
    CHECK_INT(file_write_atomic(bad, "x", 1, &e), AS_EIO);
    CHECK(strstr(e.msg, "cannot create") != NULL);
    free(bad);
    free(missing);
    free(p);
}

static void
test_statcache(void)
{
    char *p = xasprintf("%s/graph.cache.stat", dir);
    struct statcache c;
    statcache_init(&c);
    uint8_t oid[20], got[20];
    for (int i = 0; i < 20; i++)
        oid[i] = (uint8_t)(i * 13);
    struct stat_key old = { 10, 1000000000ULL, 7 };
    struct stat_key fresh = { 10, 99000000000ULL, 8 };
    statcache_put(&c, "a/b.c", &old, oid);
    statcache_put(&c, "a/fresh.c", &fresh, oid);
    struct as_err e;
    /* now = 100 s: fresh's mtime is within the racy window, not stored */
    CHECK_INT(statcache_write(&c, p, 100000000000LL, &e), 0);
    statcache_release(&c);

    statcache_init(&c);
    statcache_load(&c, p);
    CHECK(statcache_lookup(&c, "a/b.c", &old, got));
    CHECK(!memcmp(got, oid, 20));
    CHECK(!statcache_lookup(&c, "a/fresh.c", &fresh, got));
    struct stat_key changed = old;
    changed.mtime_ns++;
    CHECK(!statcache_lookup(&c, "a/b.c", &changed, got));
    changed = old;
    changed.size++;
    CHECK(!statcache_lookup(&c, "a/b.c", &changed, got));
    statcache_release(&c);

    /* a torn file is ignored as a whole */
    CHECK_INT(
        file_write_atomic(p, "airspace-statcache 1\nzz 1 2 3 x\n", 31, &e), 0);
    statcache_init(&c);
    statcache_load(&c, p);
    CHECK_INT(c.n, 0);
    statcache_release(&c);
    unlink(p);
    free(p);
}

int
main(void)
{
    snprintf(dir, sizeof(dir), "/tmp/airspace-util-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    TEST_RUN("sort_u32 agrees with qsort", test_sort);
    TEST_RUN("sort_u64 agrees with qsort", test_sort64);
    TEST_RUN("sort_uniq_strv: sorted, duplicates freed", test_sort_strv);
    TEST_RUN("file read and atomic write", test_file);
    TEST_RUN("stat cache", test_statcache);
    char *f = xasprintf("%s/f", dir);
    unlink(f);
    free(f);
    rmdir(dir);
    return test_done();
}

/*
 * test_forwardcache.c - the forward table's on-disk cache: a table written
 * and read back is the same table (paths, rates to the bit, ids, merges,
 * median side); every truncation, any byte changed, trailing bytes,
 * another commit, another window and a missing or foreign file are
 * refused with the table left empty.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "git/forwardcache.h"
#include "test.h"

static const char C1[] = "0123456789abcdef0123456789abcdef01234567";
static const char C2[] = "0123456789abcdef0123456789abcdef01234568";

static const char *const m1a[] = { "CHANGELOG", "src/x.c" };
static const char *const m1b[] = { "y.c", "CHANGELOG" };
static const char *const m2a[] = { "CHANGELOG", "src/x.c", "docs/a b.md" };
static const char *const m2b[] = { "src/x.c", "CHANGELOG" };
static const char *const m3a[] = { "CHANGELOG", "z.c" };
static const char *const m3b[] = { "w.c" };

static void
build(struct forward_table *t)
{
    const struct forward_merge m[] = {
        { { { m1a, 2 }, { m1b, 2 } } },
        { { { m2a, 3 }, { m2b, 2 } } },
        { { { m3a, 2 }, { m3b, 1 } } },
    };
    forward_table_init(t);
    forward_table_build(t, m, 3, NULL);
}

static void
check_same(const struct forward_table *a, const struct forward_table *b)
{
    CHECK_INT(a->n, b->n);
    CHECK_INT(a->merges, b->merges);
    CHECK(a->median_side == b->median_side);
    for (size_t i = 0; i < a->n && i < b->n; i++) {
        CHECK_STR(a->paths[i], b->paths[i]);
        CHECK(a->rate[i] == b->rate[i]);
        CHECK(forward_rate(b, a->paths[i]) == a->rate[i]);
    }
}

static void
test_round_trip(void)
{
    struct forward_table t, u;
    build(&t);
    CHECK_INT(t.n, 6);
    forward_table_init(&u);
    size_t len;
    uint8_t *buf = forward_cache_encode(&t, C1, 300, &len);
    struct as_err e;
    CHECK_INT(forward_cache_decode(buf, len, C1, 300, &u, &e), 0);
    check_same(&t, &u);
    /* an empty table too */
    struct forward_table z;
    forward_table_init(&z);
    forward_table_build(&z, NULL, 0, NULL);
    size_t zl;
    uint8_t *zb = forward_cache_encode(&z, C2, 300, &zl);
    CHECK_INT(forward_cache_decode(zb, zl, C2, 300, &u, &e), 0);
    check_same(&z, &u);
    free(zb);
    forward_table_release(&z);
    forward_table_release(&u);
    forward_table_release(&t);
    free(buf);
}

/* Refused, and u left empty (it held a table before). */
static void
refused(const uint8_t *p, size_t len, const char *commit, unsigned window,
    struct forward_table *u)
{
    struct as_err e;
    struct forward_table t;
    build(&t);
    size_t l;
    uint8_t *b = forward_cache_encode(&t, C1, 300, &l);
    CHECK_INT(forward_cache_decode(b, l, C1, 300, u, &e), 0);
    free(b);
    forward_table_release(&t);
    CHECK_INT(forward_cache_decode(p, len, commit, window, u, &e), AS_EPARSE);
    CHECK_INT(u->n, 0);
    CHECK_INT(u->merges, 0);
    CHECK(forward_rate(u, "CHANGELOG") == 0);
}

static void
test_refused(void)
{
    struct forward_table t, u;
    build(&t);
    forward_table_init(&u);
    size_t len;
    uint8_t *buf = forward_cache_encode(&t, C1, 300, &len);
    /* every truncation */
    for (size_t k = 0; k < len; k++)
        refused(buf, k, C1, 300, &u);
    /* any byte changed, each bit of it in turn */
    uint8_t *x = malloc(len + 1);
    for (size_t k = 0; k < len; k++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(x, buf, len);
            x[k] ^= (uint8_t)(1u << bit);
            refused(x, len, C1, 300, &u);
        }
    /* a byte more */
    memcpy(x, buf, len);
    x[len] = 0;
    refused(x, len + 1, C1, 300, &u);
    free(x);
    /* another commit, another window */
    refused(buf, len, C2, 300, &u);
    refused(buf, len, C1, 200, &u);
    forward_table_release(&u);
    forward_table_release(&t);
    free(buf);
}

static void
test_file(void)
{
    char dir[] = "/tmp/airspace-fwcache-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof(path), "%s/forward.cache", dir);
    struct forward_table t, u;
    build(&t);
    forward_table_init(&u);
    struct as_err e;
    CHECK_INT(forward_cache_load(path, C1, 300, &u, &e), AS_ENOENT);
    CHECK_INT(forward_cache_store(path, &t, C1, 300, &e), 0);
    CHECK_INT(forward_cache_load(path, C1, 300, &u, &e), 0);
    check_same(&t, &u);
    CHECK_INT(forward_cache_load(path, C2, 300, &u, &e), AS_EPARSE);
    CHECK_INT(u.n, 0);
    /* replaced whole: the next commit's table is the only one there */
    CHECK_INT(forward_cache_store(path, &t, C2, 300, &e), 0);
    CHECK_INT(forward_cache_load(path, C1, 300, &u, &e), AS_EPARSE);
    CHECK_INT(forward_cache_load(path, C2, 300, &u, &e), 0);
    /* something else at that path */
    FILE *f = fopen(path, "w");
    fputs("not a table\n", f);
    fclose(f);
    CHECK_INT(forward_cache_load(path, C2, 300, &u, &e), AS_EPARSE);
    CHECK_INT(u.n, 0);
    unlink(path);
    rmdir(dir);
    forward_table_release(&u);
    forward_table_release(&t);
}

int
main(void)
{
    TEST_RUN("round trip", test_round_trip);
    TEST_RUN("refused", test_refused);
    TEST_RUN("file", test_file);
    return test_done();
}

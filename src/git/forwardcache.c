#include "git/forwardcache.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "git/forward.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include "util/banned.h"

/*
 * The encoding, every integer little-endian:
 *   "ASFWDC\0\0"  magic
 *   u32 format, window, walk cap; u64 keep floor (IEEE 754 bits)
 *   40 bytes commit (hex)
 *   u32 merges; u64 median side (bits); u32 n
 *   n x (u64 rate (bits), u32 length, the path's bytes)
 *   u64 FNV-1a of every byte before it
 */
#define FC_MAGIC "ASFWDC\0"
#define FC_HEAD (8 + 4 * 3 + 8 + 40 + 4 + 8 + 4)
#define FC_MAX_FILE ((size_t)256 << 20)

struct fc_out {
    uint8_t *p;
    size_t len, alloc;
};

static void
put(struct fc_out *o, const void *src, size_t n)
{
    ALLOC_GROW(o->p, o->len + n, o->alloc);
    memcpy(o->p + o->len, src, n);
    o->len += n;
}

static void
put_u32(struct fc_out *o, uint32_t v)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(o, b, 4);
}

static void
put_u64(struct fc_out *o, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(o, b, 8);
}

static uint64_t
dbits(double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof(v));
    return v;
}

static double
bitsd(uint64_t v)
{
    double d;
    memcpy(&d, &v, sizeof(d));
    return d;
}

static uint64_t
checksum(const uint8_t *p, size_t n)
{
    return fnv1a_bytes(FNV1A_INIT, p, n);
}

uint8_t *
forward_cache_encode(const struct forward_table *t, const char *commit,
    unsigned window, size_t *len)
{
    struct fc_out o = { NULL, 0, 0 };
    put(&o, FC_MAGIC, 8);
    put_u32(&o, FORWARD_CACHE_FORMAT);
    put_u32(&o, window);
    put_u32(&o, FORWARD_WALK_MAX);
    put_u64(&o, dbits(FORWARD_KEEP_MIN));
    char id[40];
    memset(id, 0, sizeof(id));
    memcpy(id, commit, strnlen(commit, sizeof(id)));
    put(&o, id, sizeof(id));
    put_u32(&o, t->merges);
    put_u64(&o, dbits(t->median_side));
    put_u32(&o, (uint32_t)t->n);
    for (size_t i = 0; i < t->n; i++) {
        size_t pl = strlen(t->paths[i]);
        put_u64(&o, dbits(t->rate[i]));
        put_u32(&o, (uint32_t)pl);
        put(&o, t->paths[i], pl);
    }
    put_u64(&o, checksum(o.p, o.len));
    *len = o.len;
    return o.p;
}

/* A reader over the bytes; ok turns false at the first read past the
 * end. */
struct fc_in {
    const uint8_t *p;
    size_t len, at;
    bool ok;
};

static const uint8_t *
take(struct fc_in *in, size_t n)
{
    if (!in->ok || n > in->len - in->at) {
        in->ok = false;
        return NULL;
    }
    const uint8_t *p = in->p + in->at;
    in->at += n;
    return p;
}

static uint32_t
get_u32(struct fc_in *in)
{
    const uint8_t *b = take(in, 4);
    uint32_t v = 0;
    for (int i = 0; b && i < 4; i++)
        v |= (uint32_t)b[i] << (8 * i);
    return v;
}

static uint64_t
get_u64(struct fc_in *in)
{
    const uint8_t *b = take(in, 8);
    uint64_t v = 0;
    for (int i = 0; b && i < 8; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

int
forward_cache_decode(const void *buf, size_t len, const char *commit,
    unsigned window, struct forward_table *t, struct as_err *e)
{
    forward_table_release(t);
    const uint8_t *p = buf;
    if (len < FC_HEAD + 8)
        return as_errorf(e, AS_EPARSE, "forward cache: truncated");
    /* the checksum first: nothing of a damaged file is looked at */
    struct fc_in tail = { p, len, len - 8, true };
    if (get_u64(&tail) != checksum(p, len - 8))
        return as_errorf(e, AS_EPARSE, "forward cache: checksum mismatch");
    struct fc_in in = { p, len - 8, 0, true };
    const uint8_t *magic = take(&in, 8);
    if (memcmp(magic, FC_MAGIC, 8))
        return as_errorf(e, AS_EPARSE, "forward cache: not a forward cache");
    if (get_u32(&in) != FORWARD_CACHE_FORMAT)
        return as_errorf(e, AS_EPARSE, "forward cache: another format");
    if (get_u32(&in) != window || get_u32(&in) != FORWARD_WALK_MAX ||
        get_u64(&in) != dbits(FORWARD_KEEP_MIN))
        return as_errorf(e, AS_EPARSE, "forward cache: other parameters");
    char id[40];
    memset(id, 0, sizeof(id));
    memcpy(id, commit, strnlen(commit, sizeof(id)));
    if (memcmp(take(&in, 40), id, sizeof(id)))
        return as_errorf(e, AS_EPARSE, "forward cache: another commit");
    uint32_t merges = get_u32(&in);
    double median = bitsd(get_u64(&in));
    uint32_t n = get_u32(&in);
    /* each entry takes at least 13 bytes */
    if (!(median >= 1) || median > 1e12 || n > (in.len - in.at) / 13)
        return as_errorf(e, AS_EPARSE, "forward cache: malformed header");
    t->paths = xcalloc(n ? n : 1, sizeof(*t->paths));
    t->rate = xcalloc(n ? n : 1, sizeof(*t->rate));
    const char *why = NULL;
    double prev = 1;
    for (uint32_t i = 0; i < n && !why; i++) {
        double r = bitsd(get_u64(&in));
        uint32_t pl = get_u32(&in);
        const uint8_t *s = take(&in, pl);
        bool added = false;
        if (!in.ok)
            why = "truncated";
        else if (!(r >= FORWARD_KEEP_MIN && r <= prev))
            why = "a rate out of order";
        else if (!pl || memchr(s, 0, pl))
            why = "an empty path";
        if (!why) {
            t->paths[i] = xstrndup((const char *)s, pl);
            t->rate[i] = r;
            t->n = i + 1;
            strmap_put(&t->ids, t->paths[i], pl, i, &added);
            if (!added)
                why = "a path twice";
        }
        prev = r;
    }
    if (!why && in.at != in.len)
        why = "trailing bytes";
    if (why) {
        forward_table_release(t);
        return as_errorf(e, AS_EPARSE, "forward cache: %s", why);
    }
    t->merges = merges;
    t->median_side = median;
    return 0;
}

int
forward_cache_load(const char *path, const char *commit, unsigned window,
    struct forward_table *t, struct as_err *e)
{
    char *buf;
    size_t len;
    int rc = file_read_max(path, FC_MAX_FILE, true, &buf, &len);
    if (rc == AS_ENOENT)
        return as_errorf(e, AS_ENOENT, "no forward cache at '%s'", path);
    if (rc)
        return as_errorf(e, AS_EPARSE, "cannot read '%s'", path);
    rc = forward_cache_decode(buf, len, commit, window, t, e);
    free(buf);
    return rc;
}

int
forward_cache_store(const char *path, const struct forward_table *t,
    const char *commit, unsigned window, struct as_err *e)
{
    size_t len;
    uint8_t *buf = forward_cache_encode(t, commit, window, &len);
    int rc = file_write_atomic(path, buf, len, e);
    free(buf);
    return rc;
}

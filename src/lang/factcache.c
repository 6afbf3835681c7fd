#include "lang/factcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/file.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char magic[8] = "ASFACTS";
#define HDR_LEN 36
#define MAX_CACHE_BYTES ((size_t)1 << 32)

static uint64_t
fnv64(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

static void
put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t
get_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void
key_of(const uint8_t oid[20], uint8_t lang, char key[21])
{
    memcpy(key, oid, 20);
    key[20] = (char)lang;
}

static void
hexkey(const uint8_t oid[20], uint8_t lang, char out[44])
{
    static const char hx[] = "0123456789abcdef";
    for (int i = 0; i < 20; i++) {
        out[2 * i] = hx[oid[i] >> 4];
        out[2 * i + 1] = hx[oid[i] & 15];
    }
    out[40] = ':';
    out[41] = (char)('a' + lang % 26);
    out[42] = '\0';
}

void
factcache_load(struct factcache *c, const char *path)
{
    memset(c, 0, sizeof(*c));
    strmap_init(&c->idx);
    char *raw;
    if (!path || file_read_max(path, MAX_CACHE_BYTES, false, &raw, &c->len))
        return;
    c->data = (uint8_t *)raw;
    const uint8_t *d = c->data;
    if (c->len < HDR_LEN || memcmp(d, magic, 8) ||
        get_le(d + 8, 4) != FACTCACHE_FORMAT ||
        get_le(d + 12, 4) != LANG_EXTRACT_VERSION ||
        get_le(d + 20, 8) != c->len - HDR_LEN ||
        get_le(d + 28, 8) != fnv64(d + HDR_LEN, c->len - HDR_LEN))
        goto out_invalid;
    uint32_t entries = (uint32_t)get_le(d + 16, 4);
    size_t off = HDR_LEN;
    for (uint32_t i = 0; i < entries; i++) {
        if (c->len - off < 25)
            goto out_invalid;
        size_t sz = (size_t)get_le(d + off + 21, 4);
        if (c->len - off - 25 < sz)
            goto out_invalid;
        char key[44];
        hexkey(d + off, d[off + 20], key);
        ALLOC_GROW(c->off, c->n + 1, c->a1);
        ALLOC_GROW(c->size, c->n + 1, c->a2);
        c->off[c->n] = off + 25;
        c->size[c->n] = sz;
        strmap_put(&c->idx, key, strlen(key), (uint32_t)c->n, NULL);
        c->n++;
        off += 25 + sz;
    }
    if (off != c->len)
        goto out_invalid;
    c->valid = true;
    return;
out_invalid:
    factcache_release(c);
    strmap_init(&c->idx);
}

void
factcache_release(struct factcache *c)
{
    free(c->data);
    free(c->off);
    free(c->size);
    strmap_release(&c->idx);
    memset(c, 0, sizeof(*c));
}

struct rd {
    const uint8_t *p;
    size_t n, o;
    bool bad;
};

static uint64_t
rd_int(struct rd *r, int bytes)
{
    if (r->bad || r->n - r->o < (size_t)bytes) {
        r->bad = true;
        return 0;
    }
    uint64_t v = get_le(r->p + r->o, bytes);
    r->o += (size_t)bytes;
    return v;
}

static const char *
rd_str(struct rd *r, size_t *len)
{
    *len = (size_t)rd_int(r, 2);
    if (r->bad || r->n - r->o < *len) {
        r->bad = true;
        return NULL;
    }
    const char *s = (const char *)r->p + r->o;
    r->o += *len;
    return s;
}

bool
factcache_lookup(const struct factcache *c, const uint8_t oid[20], uint8_t lang,
    struct factcache_entry *ent)
{
    char key[44];
    uint32_t i;
    hexkey(oid, lang, key);
    if (!c->valid || !strmap_get(&c->idx, key, strlen(key), &i))
        return false;
    ent->p = c->data + c->off[i];
    ent->len = c->size[i];
    ent->refs_off = 0;
    return true;
}

/* Walk the references from r: add them to f (if not NULL); false if bad. */
static bool
refs_walk(struct rd *r, struct lang_facts *f, factcache_ref_fn *fn, void *ctx)
{
    uint32_t n = (uint32_t)rd_int(r, 4);
    for (uint32_t k = 0; k < n && !r->bad; k++) {
        uint32_t line = (uint32_t)rd_int(r, 4);
        size_t len;
        const char *s = rd_str(r, &len);
        if (r->bad)
            break;
        if (f)
            lang_facts_add_ref(f, s, len, line);
        if (fn)
            fn(ctx, s, len, line);
    }
    return !r->bad && r->o == r->n;
}

bool
factcache_decode(
    struct factcache_entry *ent, struct lang_facts *out, bool with_refs)
{
    struct rd r = { .p = ent->p, .n = ent->len };
    struct lang_facts f;
    lang_facts_init(&f);
    uint32_t n = (uint32_t)rd_int(&r, 4);
    for (uint32_t k = 0; k < n && !r.bad; k++) {
        uint32_t line = (uint32_t)rd_int(&r, 4);
        int kind = (int)rd_int(&r, 1), level = (int)rd_int(&r, 1);
        bool type_only = rd_int(&r, 1) != 0;
        size_t len;
        const char *s = rd_str(&r, &len);
        if (!r.bad) {
            lang_facts_add_import(&f, s, len, line, kind, level);
            f.imports[f.nimports - 1].type_only = type_only;
        }
    }
    n = (uint32_t)rd_int(&r, 4);
    for (uint32_t k = 0; k < n && !r.bad; k++) {
        uint32_t start = (uint32_t)rd_int(&r, 4), end = (uint32_t)rd_int(&r, 4);
        int kind = (int)rd_int(&r, 1);
        bool decl = rd_int(&r, 1) != 0;
        size_t len;
        const char *s = rd_str(&r, &len);
        if (!r.bad)
            lang_facts_add_def(&f, s, len, start, end, kind, decl);
    }
    size_t refs_off = r.o;
    /* always validate the references, even when not copying them */
    if (r.bad || !refs_walk(&r, with_refs ? &f : NULL, NULL, NULL)) {
        lang_facts_release(&f);
        return false;
    }
    ent->refs_off = refs_off;
    *out = f;
    return true;
}

void
factcache_each_ref(
    const struct factcache_entry *ent, factcache_ref_fn *fn, void *ctx)
{
    struct rd r = { .p = ent->p, .n = ent->len, .o = ent->refs_off };
    refs_walk(&r, NULL, fn, ctx);
}

uint32_t
factcache_nrefs(const struct factcache_entry *ent)
{
    struct rd r = { .p = ent->p, .n = ent->len, .o = ent->refs_off };
    return (uint32_t)rd_int(&r, 4);
}

void
factcache_writer_add_raw(struct factcache_writer *w, const uint8_t oid[20],
    uint8_t lang, const struct factcache_entry *ent)
{
    char key[21];
    key_of(oid, lang, key);
    ALLOC_GROW(w->p, w->n + 25 + ent->len, w->a);
    memcpy(w->p + w->n, key, 21);
    put_le(w->p + w->n + 21, ent->len, 4);
    memcpy(w->p + w->n + 25, ent->p, ent->len);
    w->n += 25 + ent->len;
    w->entries++;
}

void
factcache_writer_init(struct factcache_writer *w)
{
    memset(w, 0, sizeof(*w));
    ALLOC_GROW(w->p, HDR_LEN, w->a);
    memset(w->p, 0, HDR_LEN);
    w->n = HDR_LEN;
}

static void
factcache_writer_release(struct factcache_writer *w)
{
    free(w->p);
    memset(w, 0, sizeof(*w));
}

static void
wr_int(struct factcache_writer *w, uint64_t v, int bytes)
{
    ALLOC_GROW(w->p, w->n + (size_t)bytes, w->a);
    put_le(w->p + w->n, v, bytes);
    w->n += (size_t)bytes;
}

static void
wr_str(struct factcache_writer *w, const char *s)
{
    size_t len = strlen(s);
    if (len > UINT16_MAX)
        len = UINT16_MAX;
    wr_int(w, len, 2);
    ALLOC_GROW(w->p, w->n + len, w->a);
    memcpy(w->p + w->n, s, len);
    w->n += len;
}

void
factcache_writer_add(struct factcache_writer *w, const uint8_t oid[20],
    uint8_t lang, const struct lang_facts *f)
{
    char key[21];
    key_of(oid, lang, key);
    ALLOC_GROW(w->p, w->n + 21, w->a);
    memcpy(w->p + w->n, key, 21);
    w->n += 21;
    size_t szpos = w->n;
    wr_int(w, 0, 4);
    wr_int(w, f->nimports, 4);
    for (size_t i = 0; i < f->nimports; i++) {
        wr_int(w, f->imports[i].line, 4);
        wr_int(w, f->imports[i].kind, 1);
        wr_int(w, f->imports[i].level, 1);
        wr_int(w, f->imports[i].type_only, 1);
        wr_str(w, f->imports[i].spec);
    }
    wr_int(w, f->ndefs, 4);
    for (size_t i = 0; i < f->ndefs; i++) {
        wr_int(w, f->defs[i].start, 4);
        wr_int(w, f->defs[i].end, 4);
        wr_int(w, f->defs[i].kind, 1);
        wr_int(w, f->defs[i].decl, 1);
        wr_str(w, f->defs[i].name);
    }
    wr_int(w, f->nrefs, 4);
    for (size_t i = 0; i < f->nrefs; i++) {
        wr_int(w, f->refs[i].line, 4);
        wr_str(w, f->refs[i].name);
    }
    put_le(w->p + szpos, w->n - szpos - 4, 4);
    w->entries++;
}

int
factcache_writer_commit(
    struct factcache_writer *w, const char *path, struct as_err *e)
{
    memcpy(w->p, magic, 8);
    put_le(w->p + 8, FACTCACHE_FORMAT, 4);
    put_le(w->p + 12, LANG_EXTRACT_VERSION, 4);
    put_le(w->p + 16, w->entries, 4);
    put_le(w->p + 20, w->n - HDR_LEN, 8);
    put_le(w->p + 28, fnv64(w->p + HDR_LEN, w->n - HDR_LEN), 8);
    int rc = file_write_atomic(path, w->p, w->n, e);
    factcache_writer_release(w);
    return rc;
}

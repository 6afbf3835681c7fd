#include "lang/statcache.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/file.h"
#include "util/hex.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char header[] = "airspace-statcache 1\n";

void
statcache_init(struct statcache *c)
{
    memset(c, 0, sizeof(*c));
    strmap_init(&c->idx);
}

void
statcache_release(struct statcache *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->v[i].path);
    free(c->v);
    strmap_release(&c->idx);
    memset(c, 0, sizeof(*c));
}

void
statcache_put(struct statcache *c, const char *path, const struct stat_key *st,
    const uint8_t oid[20])
{
    size_t len = strlen(path);
    uint32_t at;
    if (strmap_get(&c->idx, path, len, &at)) {
        c->v[at].st = *st;
        memcpy(c->v[at].oid, oid, 20);
        return;
    }
    ALLOC_GROW(c->v, c->n + 1, c->a);
    struct statcache_entry *en = &c->v[c->n];
    en->path = xstrdup(path);
    en->st = *st;
    memcpy(en->oid, oid, 20);
    strmap_put(&c->idx, path, len, (uint32_t)c->n, NULL);
    c->n++;
}

bool
statcache_lookup(const struct statcache *c, const char *path,
    const struct stat_key *st, uint8_t oid[20])
{
    uint32_t at;
    if (!strmap_get(&c->idx, path, strlen(path), &at))
        return false;
    const struct statcache_entry *en = &c->v[at];
    if (en->st.size != st->size || en->st.mtime_ns != st->mtime_ns ||
        en->st.ino != st->ino)
        return false;
    memcpy(oid, en->oid, 20);
    return true;
}

/* Parse one unsigned decimal field ending at a space; advances *p. */
static bool
field_u64(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    if (s >= end || *s < '0' || *s > '9')
        return false;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        if (v > (UINT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    if (s >= end || *s != ' ')
        return false;
    *p = s + 1;
    *out = v;
    return true;
}

static bool
parse_line(struct statcache *c, const char *s, const char *end)
{
    uint8_t oid[20];
    if (end - s < 41 || s[40] != ' ')
        return false;
    for (int i = 0; i < 20; i++) {
        int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        oid[i] = (uint8_t)(hi << 4 | lo);
    }
    const char *p = s + 41;
    struct stat_key st;
    if (!field_u64(&p, end, &st.size) || !field_u64(&p, end, &st.mtime_ns) ||
        !field_u64(&p, end, &st.ino) || p >= end)
        return false;
    char *path = xstrndup(p, (size_t)(end - p));
    statcache_put(c, path, &st, oid);
    free(path);
    return true;
}

void
statcache_load(struct statcache *c, const char *path)
{
    char *buf;
    size_t len;
    if (!path || file_read_max(path, (size_t)1 << 30, false, &buf, &len))
        return;
    size_t hl = sizeof(header) - 1;
    if (len < hl || memcmp(buf, header, hl)) {
        free(buf);
        return;
    }
    const char *s = buf + hl, *end = buf + len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (!nl || !parse_line(c, s, nl)) {
            /* A torn or foreign file: trust none of it. */
            statcache_release(c);
            statcache_init(c);
            break;
        }
        s = nl + 1;
    }
    free(buf);
}

int
statcache_write(const struct statcache *c, const char *path, int64_t now_ns,
    struct as_err *e)
{
    size_t cap = sizeof(header), n = 0;
    for (size_t i = 0; i < c->n; i++)
        cap += 41 + 3 * 21 + strlen(c->v[i].path) + 1;
    char *out = xmalloc(cap);
    memcpy(out, header, sizeof(header) - 1);
    n = sizeof(header) - 1;
    static const char hexd[] = "0123456789abcdef";
    for (size_t i = 0; i < c->n; i++) {
        const struct statcache_entry *en = &c->v[i];
        if ((int64_t)en->st.mtime_ns > now_ns - STATCACHE_RACY_NS)
            continue;
        if (strchr(en->path, '\n'))
            continue;
        for (int k = 0; k < 20; k++) {
            out[n++] = hexd[en->oid[k] >> 4];
            out[n++] = hexd[en->oid[k] & 15];
        }
        n += (size_t)snprintf(out + n, cap - n,
            " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n", en->st.size,
            en->st.mtime_ns, en->st.ino, en->path);
    }
    int rc = file_write_atomic(path, out, n, e);
    free(out);
    return rc;
}

#include "util/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

void
strmap_init(struct strmap *m)
{
    memset(m, 0, sizeof(*m));
}

void
strmap_release(struct strmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free((char *)m->slots[i].key);
    free(m->slots);
    memset(m, 0, sizeof(*m));
}

uint32_t
strmap_hash(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

static struct strmap_slot *
find(const struct strmap *m, const char *key, size_t len, uint32_t h)
{
    size_t mask = m->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        struct strmap_slot *s = &m->slots[i];
        if (!s->key)
            return s;
        if (s->hash == h && s->len == len && !memcmp(s->key, key, len))
            return s;
    }
}

static void
rehash(struct strmap *m, size_t cap)
{
    struct strmap old = *m;
    m->slots = xcalloc(cap, sizeof(*m->slots));
    m->cap = cap;
    for (size_t i = 0; i < old.cap; i++) {
        struct strmap_slot *s = &old.slots[i];
        if (s->key)
            *find(m, s->key, s->len, s->hash) = *s;
    }
    free(old.slots);
}

bool
strmap_get(const struct strmap *m, const char *key, size_t len, uint32_t *value)
{
    if (!m->cap)
        return false;
    struct strmap_slot *s = find(m, key, len, strmap_hash(key, len));
    if (!s->key)
        return false;
    if (value)
        *value = s->value;
    return true;
}

uint32_t
strmap_put(
    struct strmap *m, const char *key, size_t len, uint32_t value, bool *added)
{
    if ((m->count + 1) * 4 >= m->cap * 3)
        rehash(m, m->cap ? m->cap * 2 : 64);
    uint32_t h = strmap_hash(key, len);
    struct strmap_slot *s = find(m, key, len, h);
    if (s->key) {
        if (added)
            *added = false;
        return s->value;
    }
    s->key = xstrndup(key, len);
    s->len = (uint32_t)len;
    s->hash = h;
    s->value = value;
    m->count++;
    if (added)
        *added = true;
    return value;
}

const char *
strmap_key(const struct strmap *m, const char *key, size_t len)
{
    if (!m->cap)
        return NULL;
    struct strmap_slot *s = find(m, key, len, strmap_hash(key, len));
    return s->key;
}

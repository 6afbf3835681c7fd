#include "lang/factmem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lang/factcache.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define KEY_BYTES 29 /* blob id, language, size cap (u64) */
#define NBUCKETS (1u << 15)

struct fm_entry {
    uint8_t key[KEY_BYTES];
    uint8_t *bytes;
    size_t len;
    struct fm_entry *chain;       /* next in the bucket */
    struct fm_entry *prev, *next; /* LRU: head is the newest */
};

struct factmem {
    pthread_mutex_t lock;
    size_t max_bytes;
    struct fm_entry **buckets;
    struct fm_entry *head, *tail;
    struct factmem_stats st;
};

static void
make_key(const uint8_t oid[20], uint8_t lang, size_t cap, uint8_t *k)
{
    memcpy(k, oid, 20);
    k[20] = lang;
    uint64_t c = cap;
    for (int i = 0; i < 8; i++)
        k[21 + i] = (uint8_t)(c >> (8 * i));
}

static uint32_t
bucket_of(const uint8_t *k)
{
    /* the blob id is a hash already */
    uint32_t h = (uint32_t)k[0] | (uint32_t)k[1] << 8 | (uint32_t)k[2] << 16 |
                 (uint32_t)k[3] << 24;
    return (h ^ k[20]) & (NBUCKETS - 1);
}

struct factmem *
factmem_new(size_t max_bytes)
{
    struct factmem *m = xcalloc(1, sizeof(*m));
    pthread_mutex_init(&m->lock, NULL);
    m->max_bytes = max_bytes;
    m->buckets = xcalloc(NBUCKETS, sizeof(*m->buckets));
    return m;
}

void
factmem_free(struct factmem *m)
{
    if (!m)
        return;
    for (struct fm_entry *e = m->head, *nx; e; e = nx) {
        nx = e->next;
        free(e->bytes);
        free(e);
    }
    free(m->buckets);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

static struct fm_entry *
find(struct factmem *m, const uint8_t *k)
{
    for (struct fm_entry *e = m->buckets[bucket_of(k)]; e; e = e->chain)
        if (memcmp(e->key, k, KEY_BYTES) == 0)
            return e;
    return NULL;
}

static void
lru_unlink(struct factmem *m, struct fm_entry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        m->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        m->tail = e->prev;
    e->prev = e->next = NULL;
}

static void
lru_push(struct factmem *m, struct fm_entry *e)
{
    e->prev = NULL;
    e->next = m->head;
    if (m->head)
        m->head->prev = e;
    m->head = e;
    if (!m->tail)
        m->tail = e;
}

static void
evict_one(struct factmem *m)
{
    struct fm_entry *e = m->tail;
    lru_unlink(m, e);
    struct fm_entry **pp = &m->buckets[bucket_of(e->key)];
    while (*pp != e)
        pp = &(*pp)->chain;
    *pp = e->chain;
    m->st.bytes -= e->len;
    m->st.entries--;
    m->st.evicted++;
    free(e->bytes);
    free(e);
}

bool
factmem_get(struct factmem *m, const uint8_t oid[20], uint8_t lang, size_t cap,
    uint8_t **bytes, size_t *len)
{
    uint8_t k[KEY_BYTES];
    make_key(oid, lang, cap, k);
    pthread_mutex_lock(&m->lock);
    struct fm_entry *e = find(m, k);
    if (!e) {
        m->st.misses++;
        pthread_mutex_unlock(&m->lock);
        return false;
    }
    m->st.hits++;
    lru_unlink(m, e);
    lru_push(m, e);
    *bytes = xmalloc(e->len ? e->len : 1);
    memcpy(*bytes, e->bytes, e->len);
    *len = e->len;
    pthread_mutex_unlock(&m->lock);
    return true;
}

void
factmem_put(struct factmem *m, const uint8_t oid[20], uint8_t lang, size_t cap,
    const struct lang_facts *f)
{
    /* encode outside the lock: an entry of factcache's writer */
    struct factcache_writer w;
    factcache_writer_init(&w);
    size_t start = w.n + 25; /* key (21) and size (4) precede the facts */
    factcache_writer_add(&w, oid, lang, f);
    size_t len = w.n - start;
    if (len > m->max_bytes) {
        free(w.p);
        return;
    }
    uint8_t *bytes = xmalloc(len ? len : 1);
    memcpy(bytes, w.p + start, len);
    free(w.p);
    uint8_t k[KEY_BYTES];
    make_key(oid, lang, cap, k);
    pthread_mutex_lock(&m->lock);
    if (find(m, k)) {
        pthread_mutex_unlock(&m->lock);
        free(bytes);
        return;
    }
    while (m->head && m->st.bytes + len > m->max_bytes)
        evict_one(m);
    struct fm_entry *e = xcalloc(1, sizeof(*e));
    memcpy(e->key, k, KEY_BYTES);
    e->bytes = bytes;
    e->len = len;
    uint32_t b = bucket_of(k);
    e->chain = m->buckets[b];
    m->buckets[b] = e;
    lru_push(m, e);
    m->st.bytes += len;
    m->st.entries++;
    pthread_mutex_unlock(&m->lock);
}

void
factmem_get_stats(struct factmem *m, struct factmem_stats *st)
{
    pthread_mutex_lock(&m->lock);
    *st = m->st;
    pthread_mutex_unlock(&m->lock);
}

/*
 * sigcache.c - similarity signatures kept across diffs and merges.
 */
#include "git/sigcache.h"

#include <git2/sys/hashsig.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* A signature handed out to libgit2, with the scores of the comparisons
 * it was the first of (row[j]: against signature j; -1 not yet). */
struct sig {
    git_hashsig *sig; /* NULL when rc < 0 */
    int rc;
    uint32_t id; /* its index in the cache */
    int8_t *row;
    uint32_t nrow;
};

/* Scores are kept against the first SCORE_MAX signatures of a cache:
 * at most SCORE_MAX bytes for each signature compared first. */
#define SCORE_MAX 8192u

struct sigcache {
    struct strmap idx; /* hex oid + options letter -> index into v */
    struct sig **v;    /* each allocated apart: handed out to libgit2 */
    size_t n, alloc;
};

static _Thread_local struct sigcache *current;

struct sigcache *
sigcache_new(void)
{
    struct sigcache *c = xcalloc(1, sizeof(*c));
    strmap_init(&c->idx);
    return c;
}

void
sigcache_clear(struct sigcache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        git_hashsig_free(c->v[i]->sig);
        free(c->v[i]->row);
        free(c->v[i]);
    }
    c->n = 0;
    strmap_release(&c->idx);
    strmap_init(&c->idx);
}

void
sigcache_free(struct sigcache *c)
{
    if (!c)
        return;
    if (current == c)
        current = NULL;
    sigcache_clear(c);
    strmap_release(&c->idx);
    free(c->v);
    free(c);
}

void
sigcache_use(struct sigcache *c)
{
    current = c;
}

/* The options libgit2 1.5's built-in metrics pass to git_hashsig_create:
 * git_diff_find_similar without whitespace flags, and git_merge_trees. */
static const git_hashsig_option_t opt_diff =
    GIT_HASHSIG_SMART_WHITESPACE | GIT_HASHSIG_ALLOW_SMALL_FILES;
static const git_hashsig_option_t opt_merge = GIT_HASHSIG_SMART_WHITESPACE;

/* Keep sig (rc 0) or the failure rc in c under key (NULL: unindexed, a
 * signature only to free with c); its index. */
static uint32_t
keep(struct sigcache *c, const char *key, size_t len, git_hashsig *sig, int rc)
{
    ALLOC_GROW(c->v, c->n + 1, c->alloc);
    c->v[c->n] = xcalloc(1, sizeof(struct sig));
    c->v[c->n]->sig = rc ? NULL : sig;
    c->v[c->n]->rc = rc;
    c->v[c->n]->id = (uint32_t)c->n;
    if (key)
        strmap_put(&c->idx, key, len, (uint32_t)c->n, NULL);
    return (uint32_t)c->n++;
}

/* Called by libgit2 only while a cache is in use (sigcache_metric). */
static int
buf_sig(void **out, const git_diff_file *f, const char *buf, size_t len,
    void *payload)
{
    git_hashsig_option_t opt = *(const git_hashsig_option_t *)payload;
    struct sigcache *c = current;
    git_hashsig *sig = NULL;
    char key[GIT_OID_HEXSZ + 1];
    uint32_t at;
    int rc;

    if (git_oid_is_zero(&f->id)) { /* no id to know it by */
        rc = git_hashsig_create(&sig, buf, len, opt);
        if (!rc)
            *out = c->v[keep(c, NULL, 0, sig, rc)];
        return rc;
    }
    git_oid_tostr(key, GIT_OID_HEXSZ + 1, &f->id);
    key[GIT_OID_HEXSZ] = (char)('a' + (int)opt); /* strmap keys: no NUL */
    if (!strmap_get(&c->idx, key, sizeof(key), &at)) {
        rc = git_hashsig_create(&sig, buf, len, opt);
        at = keep(c, key, sizeof(key), sig, rc);
        if (rc)
            return rc; /* with libgit2's own error message */
    } else if (c->v[at]->rc) {
        git_error_set_str(GIT_ERROR_INVALID,
            "file too small for similarity signature calculation");
        return c->v[at]->rc;
    }
    *out = c->v[at];
    return 0;
}

static int
file_sig(void **out, const git_diff_file *f, const char *path, void *payload)
{
    git_hashsig_option_t opt = *(const git_hashsig_option_t *)payload;
    git_hashsig *sig = NULL;
    int rc;

    (void)f;
    rc = git_hashsig_create_fromfile(&sig, path, opt);
    if (!rc)
        *out = current->v[keep(current, NULL, 0, sig, rc)];
    return rc;
}

/* Every signature handed out belongs to the cache. */
static void
free_sig(void *sig, void *payload)
{
    (void)sig;
    (void)payload;
}

/* git_hashsig_compare(a, b), its score kept in a's row: a walk compares
 * the same added and deleted files again at every commit that changes
 * the set of them (the row is indexed by the cache's own numbers, no
 * hashing: a lookup costs a few loads where a comparison merges two heaps
 * of up to 128 hashes each). */
static int
similarity(int *score, void *siga, void *sigb, void *payload)
{
    struct sig *a = siga, *b = sigb;
    int rc;

    (void)payload;
    if (b->id < a->nrow && a->row[b->id] >= 0) {
        *score = a->row[b->id];
        return 0;
    }
    rc = git_hashsig_compare(a->sig, b->sig);
    if (rc < 0)
        return rc;
    if (b->id < SCORE_MAX && rc <= 100) {
        if (b->id >= a->nrow) {
            uint32_t n = a->nrow ? a->nrow : 64;
            while (n <= b->id)
                n *= 2;
            if (n > SCORE_MAX)
                n = SCORE_MAX;
            a->row = xrealloc(a->row, n);
            memset(a->row + a->nrow, -1, n - a->nrow);
            a->nrow = n;
        }
        a->row[b->id] = (int8_t)rc;
    }
    *score = rc;
    return 0;
}

static git_diff_similarity_metric metric[2] = {
    { file_sig, buf_sig, free_sig, similarity, (void *)&opt_diff },
    { file_sig, buf_sig, free_sig, similarity, (void *)&opt_merge },
};

git_diff_similarity_metric *
sigcache_metric(enum sigcache_for f)
{
    return current ? &metric[f] : NULL;
}

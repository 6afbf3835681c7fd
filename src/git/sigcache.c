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

struct sig {
    git_hashsig *sig; /* NULL when rc < 0 */
    int rc;
};

struct sigcache {
    struct strmap idx; /* hex oid + options letter -> index into v */
    struct sig *v;
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
    for (size_t i = 0; i < c->n; i++)
        git_hashsig_free(c->v[i].sig);
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
    c->v[c->n].sig = rc ? NULL : sig;
    c->v[c->n].rc = rc;
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
            *out = c->v[keep(c, NULL, 0, sig, rc)].sig;
        return rc;
    }
    git_oid_tostr(key, GIT_OID_HEXSZ + 1, &f->id);
    key[GIT_OID_HEXSZ] = (char)('a' + (int)opt); /* strmap keys: no NUL */
    if (!strmap_get(&c->idx, key, sizeof(key), &at)) {
        rc = git_hashsig_create(&sig, buf, len, opt);
        at = keep(c, key, sizeof(key), sig, rc);
        if (rc)
            return rc; /* with libgit2's own error message */
    } else if (c->v[at].rc) {
        git_error_set_str(GIT_ERROR_INVALID,
            "file too small for similarity signature calculation");
        return c->v[at].rc;
    }
    *out = c->v[at].sig;
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
        *out = current->v[keep(current, NULL, 0, sig, rc)].sig;
    return rc;
}

/* Every signature handed out belongs to the cache. */
static void
free_sig(void *sig, void *payload)
{
    (void)sig;
    (void)payload;
}

static int
similarity(int *score, void *siga, void *sigb, void *payload)
{
    int rc = git_hashsig_compare(siga, sigb);

    (void)payload;
    if (rc < 0)
        return rc;
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

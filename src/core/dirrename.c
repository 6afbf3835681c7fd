/*
 * dirrename.c - directory renames in a three-way merge (see dirrename.h).
 */
#include "core/dirrename.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

/* One vote tally: directory old (removed) renamed to directory new. */
struct vote {
    char *old_dir, *new_dir;
    size_t count;
};

struct tally {
    struct vote *v;
    size_t n, alloc;
};

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
sort_unique(char **v, size_t *n)
{
    size_t k = 1;

    if (*n < 2)
        return;
    qsort(v, *n, sizeof(char *), cmp_str);
    for (size_t i = 1; i < *n; i++) {
        if (strcmp(v[i], v[k - 1]))
            v[k++] = v[i];
        else
            free(v[i]);
    }
    *n = k;
}

/* Length of the directory part of the first len bytes of p ("" -> 0). */
static size_t
dir_len(const char *p, size_t len)
{
    while (len > 0 && p[len - 1] != '/')
        len--;
    return len ? len - 1 : 0;
}

/* The last component of p[0..len). */
static const char *
base_of(const char *p, size_t len, size_t *blen)
{
    size_t d = dir_len(p, len);
    size_t start = d ? d + 1 : 0;
    *blen = len - start;
    return p + start;
}

static bool
is_removed(const char *const *sorted, size_t n, const char *dir, size_t len)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strncmp(sorted[mid], dir, len);
        if (c == 0 && sorted[mid][len] != '\0')
            c = 1; /* sorted[mid] is longer: after dir */
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

static void
vote(struct tally *t, const char *od, size_t olen, const char *nd, size_t nlen)
{
    for (size_t i = 0; i < t->n; i++)
        if (strlen(t->v[i].old_dir) == olen &&
            !strncmp(t->v[i].old_dir, od, olen) &&
            strlen(t->v[i].new_dir) == nlen &&
            !strncmp(t->v[i].new_dir, nd, nlen)) {
            t->v[i].count++;
            return;
        }
    ALLOC_GROW(t->v, t->n + 1, t->alloc);
    t->v[t->n].old_dir = xstrndup(od, olen);
    t->v[t->n].new_dir = xstrndup(nd, nlen);
    t->v[t->n++].count = 1;
}

/* Count the votes of one rename: its directories, then their parents while
 * the last components agree. */
static void
vote_rename(struct tally *t, const struct dirrename_pair *r,
    const char *const *removed, size_t nremoved)
{
    const char *o = r->old_path, *nw = r->new_path;
    size_t ol = dir_len(o, strlen(o)), nl = dir_len(nw, strlen(nw));

    while (ol > 0) {
        size_t ob, nb;
        const char *obase, *nbase;

        if (ol == nl && !strncmp(o, nw, ol))
            break; /* a directory onto itself */
        if (is_removed(removed, nremoved, o, ol))
            vote(t, o, ol, nw, nl);
        if (nl == 0)
            break;
        obase = base_of(o, ol, &ob);
        nbase = base_of(nw, nl, &nb);
        if (ob != nb || strncmp(obase, nbase, ob))
            break;
        ol = dir_len(o, ol);
        nl = dir_len(nw, nl);
    }
}

/* What became of removed directory dir[0..len): 1 renamed (*target set),
 * -1 split, 0 no votes. */
static int
fate(const struct tally *t, const char *dir, size_t len, const char **target)
{
    size_t best = 0;
    bool tie = false;

    for (size_t i = 0; i < t->n; i++) {
        const struct vote *v = &t->v[i];
        if (strlen(v->old_dir) != len || strncmp(v->old_dir, dir, len))
            continue;
        if (v->count > best) {
            best = v->count;
            *target = v->new_dir;
            tie = false;
        } else if (v->count == best) {
            tie = true;
        }
    }
    return best == 0 ? 0 : tie ? -1 : 1;
}

void
dirrename_apply(const struct dirrename_pair *renames, size_t nrenames,
    const char *const *removed, size_t nremoved, const char *const *added,
    size_t nadded, struct dirrename_result *out)
{
    struct tally t = { 0 };
    const char **rm = NULL;
    size_t alloc = 0, falloc = 0;

    memset(out, 0, sizeof(*out));
    if (!nrenames || !nremoved || !nadded)
        return;
    rm = xcalloc(nremoved, sizeof(*rm));
    memcpy(rm, removed, nremoved * sizeof(*rm));
    qsort(rm, nremoved, sizeof(*rm), cmp_str);
    for (size_t i = 0; i < nrenames; i++)
        vote_rename(&t, &renames[i], rm, nremoved);
    for (size_t i = 0; i < nadded && t.n; i++) {
        const char *p = added[i];
        size_t d = dir_len(p, strlen(p));
        while (d > 0) {
            const char *target = NULL;
            int f = fate(&t, p, d, &target);
            if (f > 0) {
                ALLOC_GROW(out->moved, out->nmoved + 1, alloc);
                out->moved[out->nmoved++] =
                    *target ? xasprintf("%s%s", target, p + d)
                            : xstrdup(p + d + 1);
                ALLOC_GROW(out->from, out->nfrom + 1, falloc);
                out->from[out->nfrom++] = xstrdup(p);
                break;
            }
            if (f < 0)
                out->split = true;
            d = dir_len(p, d);
        }
    }
    sort_unique(out->moved, &out->nmoved);
    sort_unique(out->from, &out->nfrom);
    for (size_t i = 0; i < t.n; i++) {
        free(t.v[i].old_dir);
        free(t.v[i].new_dir);
    }
    free(t.v);
    free(rm);
}

void
dirrename_result_release(struct dirrename_result *r)
{
    for (size_t i = 0; i < r->nmoved; i++)
        free(r->moved[i]);
    free(r->moved);
    for (size_t i = 0; i < r->nfrom; i++)
        free(r->from[i]);
    free(r->from);
    memset(r, 0, sizeof(*r));
}

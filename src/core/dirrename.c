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
is_removed(const char **sorted, size_t n, const char *dir, size_t len)
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

/* How a removed directory takes part: REL_SELF when the other side added
 * a file directly in it, REL_BELOW when it lies below such a directory,
 * REL_NONE otherwise (its votes are never read). */
enum { REL_NONE = 0, REL_BELOW, REL_SELF };

struct dirs {
    const char **self, **below; /* sorted copies of the caller's lists */
    size_t nself, nbelow;
};

static int
relevance(const struct dirs *ds, const char *dir, size_t len)
{
    if (is_removed(ds->self, ds->nself, dir, len))
        return REL_SELF;
    if (is_removed(ds->below, ds->nbelow, dir, len))
        return REL_BELOW;
    return REL_NONE;
}

/* Count the votes of one rename as merge-ort does: its directories always;
 * then, while the directories' last components agree and the old one takes
 * part, their parents, a vote each where the old one is a "self"
 * directory. */
static void
vote_rename(
    struct tally *t, const struct dirrename_pair *r, const struct dirs *ds)
{
    const char *o = r->old_path, *nw = r->new_path;
    size_t ol = dir_len(o, strlen(o)), nl = dir_len(nw, strlen(nw));
    bool first = true;

    while (ol > 0) {
        size_t ob, nb;
        const char *obase, *nbase;
        int rel;

        if (ol == nl && !strncmp(o, nw, ol))
            break; /* a directory onto itself */
        rel = relevance(ds, o, ol);
        if (rel == REL_SELF || first)
            vote(t, o, ol, nw, nl);
        first = false;
        if (rel == REL_NONE || nl == 0)
            break;
        obase = base_of(o, ol, &ob);
        nbase = base_of(nw, nl, &nb);
        if (ob != nb || strncmp(obase, nbase, ob))
            break;
        ol = dir_len(o, ol);
        nl = dir_len(nw, nl);
    }
}

/* What became of directory dir[0..len): 1 renamed (*target set), -1 split,
 * 0 no votes. */
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

static const char **
sorted_copy(const char *const *v, size_t n)
{
    const char **c = xcalloc(n ? n : 1, sizeof(*c));
    if (n) {
        memcpy(c, v, n * sizeof(*c));
        qsort(c, n, sizeof(*c), cmp_str);
    }
    return c;
}

struct move {
    char *from, *to;
};

static int
cmp_move(const void *a, const void *b)
{
    const struct move *x = a, *y = b;
    int c = strcmp(x->to, y->to);
    return c ? c : strcmp(x->from, y->from);
}

static void
tally_build(struct tally *t, struct dirs *ds,
    const struct dirrename_pair *renames, size_t nrenames,
    const char *const *self_dirs, size_t nself, const char *const *below_dirs,
    size_t nbelow)
{
    memset(t, 0, sizeof(*t));
    ds->self = sorted_copy(self_dirs, nself);
    ds->nself = nself;
    ds->below = sorted_copy(below_dirs, nbelow);
    ds->nbelow = nbelow;
    for (size_t i = 0; i < nrenames; i++)
        vote_rename(t, &renames[i], ds);
}

static void
tally_release(struct tally *t, struct dirs *ds)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->v[i].old_dir);
        free(t->v[i].new_dir);
    }
    free(t->v);
    free(ds->self);
    free(ds->below);
}

void
dirrename_renamed(const struct dirrename_pair *renames, size_t nrenames,
    const char *const *self_dirs, size_t nself, const char *const *below_dirs,
    size_t nbelow, char ***out, size_t *nout)
{
    struct tally t;
    struct dirs ds;
    size_t alloc = 0;

    *out = NULL;
    *nout = 0;
    tally_build(
        &t, &ds, renames, nrenames, self_dirs, nself, below_dirs, nbelow);
    for (size_t i = 0; i < t.n; i++) {
        const char *target = NULL, *d = t.v[i].old_dir;
        if (relevance(&ds, d, strlen(d)) != REL_NONE &&
            fate(&t, d, strlen(d), &target) > 0) {
            ALLOC_GROW(*out, *nout + 1, alloc);
            (*out)[(*nout)++] = xstrdup(d);
        }
    }
    sort_unique(*out, nout);
    tally_release(&t, &ds);
}

void
dirrename_apply(const struct dirrename_pair *renames, size_t nrenames,
    const char *const *self_dirs, size_t nself, const char *const *below_dirs,
    size_t nbelow, const char *const *added, size_t nadded,
    const char *const *exclude, size_t nexclude, struct dirrename_result *out)
{
    struct tally t;
    struct dirs ds;
    struct move *mv = NULL;
    size_t nmv = 0, amv = 0, alloc = 0, falloc = 0;
    const char **ex;

    memset(out, 0, sizeof(*out));
    if (!nrenames || !nself || !nadded)
        return;
    ex = sorted_copy(exclude, nexclude);
    tally_build(
        &t, &ds, renames, nrenames, self_dirs, nself, below_dirs, nbelow);
    /* A directory that takes part and has no majority is a split, whether
     * or not an added path lies in it. */
    for (size_t i = 0; i < t.n && !out->split; i++) {
        const char *target = NULL, *d = t.v[i].old_dir;
        if (relevance(&ds, d, strlen(d)) != REL_NONE &&
            fate(&t, d, strlen(d), &target) < 0)
            out->split = true;
    }
    for (size_t i = 0; i < nadded && t.n; i++) {
        const char *p = added[i];
        for (size_t d = dir_len(p, strlen(p)); d > 0; d = dir_len(p, d)) {
            const char *target = NULL;
            if (relevance(&ds, p, d) == REL_NONE ||
                fate(&t, p, d, &target) <= 0)
                continue;
            /* git declines to move into a directory the other side
             * renamed itself ("Avoiding applying ... rename") */
            if (is_removed(ex, nexclude, target, strlen(target)))
                break;
            ALLOC_GROW(mv, nmv + 1, amv);
            mv[nmv].from = xstrdup(p);
            mv[nmv++].to =
                *target ? xasprintf("%s%s", target, p + d) : xstrdup(p + d + 1);
            break;
        }
    }
    /* Several paths sent to one place are moved nowhere: git's "implicit
     * dir rename" conflict, which lists no path. */
    if (nmv)
        qsort(mv, nmv, sizeof(*mv), cmp_move);
    for (size_t i = 0; i < nmv;) {
        size_t j = i + 1;
        while (j < nmv && !strcmp(mv[j].to, mv[i].to))
            j++;
        if (j - i > 1)
            out->collision = true;
        for (size_t k = i; k < j; k++) {
            if (j - i == 1) {
                ALLOC_GROW(out->moved, out->nmoved + 1, alloc);
                out->moved[out->nmoved++] = mv[k].to;
                ALLOC_GROW(out->from, out->nfrom + 1, falloc);
                out->from[out->nfrom++] = mv[k].from;
            } else {
                free(mv[k].to);
                free(mv[k].from);
            }
        }
        i = j;
    }
    sort_unique(out->moved, &out->nmoved);
    sort_unique(out->from, &out->nfrom);
    tally_release(&t, &ds);
    free(mv);
    free(ex);
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

/*
 * share.c - the working sets of a shared worktree (share.h).
 */
#include "airspace/share.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

/* The change of w to path (in base or new naming), or NULL. */
static const struct ws_file *
find_change(const struct agent *w, const char *path)
{
    for (size_t k = 0; k < w->nfiles; k++)
        if (!strcmp(w->files[k].path, path) ||
            (w->files[k].new_path && !strcmp(w->files[k].new_path, path)))
            return &w->files[k];
    return NULL;
}

/* out = the lines of d (a file's real change, base coordinates) that the
 * reported lines r meet: d ∩ r, and the line of each pure insertion after
 * base line k whose first line, k + 1, r holds (an agent reports the lines
 * it wrote); d's insertions stay insertions. */
static void
met_lines(
    struct range_set *out, const struct range_set *d, const struct range_set *r)
{
    struct range_set met = RANGE_SET_INIT, rest = RANGE_SET_INIT;
    range_set_intersect(&met, d, r);
    for (size_t k = 0; k < d->nins; k++)
        if (range_set_contains(r, d->ins[k] + 1)) {
            uint32_t line = d->ins[k] ? d->ins[k] : 1;
            range_set_add(&met, line, line);
        }
    range_set_subtract(&rest, d, &met);
    range_set_subtract(out, d, &rest);
    range_set_release(&met);
    range_set_release(&rest);
}

static bool
same_ranges(const struct range_set *x, const struct range_set *y)
{
    return x->n == y->n && x->nins == y->nins &&
           (!x->n || !memcmp(x->v, y->v, x->n * sizeof(*x->v))) &&
           (!x->nins || !memcmp(x->ins, y->ins, x->nins * sizeof(*x->ins)));
}

bool
share_same_files(const struct agent *x, const struct agent *y)
{
    if (x->nfiles != y->nfiles)
        return false;
    for (size_t k = 0; k < x->nfiles; k++) {
        const struct ws_file *f = &x->files[k], *g = &y->files[k];
        if (strcmp(f->path, g->path) || f->status != g->status ||
            f->whole != g->whole || !same_ranges(&f->ranges, &g->ranges))
            return false;
    }
    return true;
}

bool
share_sync(const struct agent *w, struct agent *reports,
    const struct agent *was, struct agent *share,
    void (*changed)(void *ctx, const struct ws_file *r), void *ctx)
{
    for (size_t k = 0; k < reports->nfiles; k++) {
        struct ws_file *r = &reports->files[k];
        const struct ws_file *d = find_change(w, r->path);
        if (!d) {
            if (r->ranges.n || r->ranges.nins) {
                range_set_clear(&r->ranges);
                if (changed)
                    changed(ctx, r);
            }
            continue;
        }
        struct range_set got = RANGE_SET_INIT;
        bool all = r->whole || d->whole || ws_status_whole(d->status);
        if (!all) {
            met_lines(&got, &d->ranges, &r->ranges);
            all = got.n == 0;
        }
        if (all)
            range_set_copy(&got, &d->ranges);
        struct ws_file *f = agent_add_file(share, d->path, d->status);
        if (d->new_path && !f->new_path)
            f->new_path = xstrdup(d->new_path);
        f->whole = d->whole;
        range_set_add_set(&f->ranges, &got);
        if (r->changed_at_ms > f->changed_at_ms)
            f->changed_at_ms = r->changed_at_ms;
        f->weight = r->weight;
        f->added_lines = d->added_lines;
        f->deleted_lines = d->deleted_lines;
        if (!r->whole && !same_ranges(&r->ranges, &got)) {
            range_set_copy(&r->ranges, &got);
            if (changed)
                changed(ctx, r);
        }
        range_set_release(&got);
    }
    agent_sort(share);
    return !share_same_files(was, share);
}

void
share_subtract(struct agent *w, const struct agent *const *v, size_t n,
    bool (*skip)(const char *path))
{
    size_t o = 0;
    for (size_t k = 0; k < w->nfiles; k++) {
        struct ws_file *f = &w->files[k];
        bool drop = skip && skip(f->path);
        for (size_t i = 0; i < n && !drop; i++) {
            const struct agent *a = v[i];
            for (size_t j = 0; j < a->nfiles && !drop; j++) {
                const struct ws_file *r = &a->files[j];
                if (strcmp(r->path, f->path))
                    continue;
                if (r->whole || f->whole || ws_status_whole(f->status)) {
                    drop = true;
                    break;
                }
                struct range_set rest;
                range_set_init(&rest);
                range_set_subtract(&rest, &f->ranges, &r->ranges);
                range_set_release(&f->ranges);
                f->ranges = rest;
                drop = f->ranges.n == 0;
            }
        }
        if (drop) {
            ws_file_release(f);
            continue;
        }
        w->files[o++] = *f;
    }
    w->nfiles = o;
}

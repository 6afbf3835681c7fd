#include "core/workset.h"

#include <stdlib.h>
#include <string.h>

#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *const status_names[] = {
    [WS_MODIFIED] = "modified",
    [WS_ADDED] = "added",
    [WS_DELETED] = "deleted",
    [WS_RENAMED] = "renamed",
    [WS_BINARY] = "binary",
    [WS_MODE] = "mode",
};

const char *
ws_status_name(enum ws_status s)
{
    if ((unsigned)s < sizeof(status_names) / sizeof(status_names[0]))
        return status_names[s];
    return "unknown";
}

int
ws_status_parse(const char *name, enum ws_status *out)
{
    for (size_t i = 0; i < sizeof(status_names) / sizeof(status_names[0]);
         i++) {
        if (!strcmp(name, status_names[i])) {
            *out = (enum ws_status)i;
            return 0;
        }
    }
    return -1;
}

bool
ws_status_whole(enum ws_status s)
{
    return s != WS_MODIFIED;
}

void
agent_init(struct agent *a, const char *id)
{
    memset(a, 0, sizeof(*a));
    a->id = xstrdup(id ? id : "");
}

void
ws_file_release(struct ws_file *f)
{
    free(f->path);
    free(f->new_path);
    range_set_release(&f->ranges);
    for (size_t i = 0; i < f->nnew_uses; i++)
        free(f->new_uses[i].name);
    free(f->new_uses);
    for (size_t i = 0; i < f->nnew_defs; i++)
        free(f->new_defs[i].name);
    free(f->new_defs);
    for (size_t i = 0; i < f->nnew_imports; i++)
        free(f->new_imports[i]);
    free(f->new_imports);
}

void
ws_file_add_import(struct ws_file *f, const char *path)
{
    for (size_t i = 0; i < f->nnew_imports; i++)
        if (!strcmp(f->new_imports[i], path))
            return;
    ALLOC_GROW(f->new_imports, f->nnew_imports + 1, f->anew_imports);
    f->new_imports[f->nnew_imports++] = xstrdup(path);
}

void
ws_file_add_name(
    struct ws_file *f, bool def, const char *name, size_t len, uint32_t line)
{
    struct ws_name *n;
    if (def) {
        ALLOC_GROW(f->new_defs, f->nnew_defs + 1, f->anew_defs);
        n = &f->new_defs[f->nnew_defs++];
    } else {
        ALLOC_GROW(f->new_uses, f->nnew_uses + 1, f->anew_uses);
        n = &f->new_uses[f->nnew_uses++];
    }
    n->name = xstrndup(name, len);
    n->line = line;
}

void
agent_release(struct agent *a)
{
    for (size_t i = 0; i < a->nfiles; i++)
        ws_file_release(&a->files[i]);
    free(a->files);
    for (size_t i = 0; i < a->nintent; i++)
        free(a->intent[i]);
    free(a->intent);
    free(a->id);
    free(a->label);
    free(a->worktree);
    free(a->branch);
    free(a->tree_oid);
    free(a->base_oid);
    for (size_t i = 0; i < a->nonto_conflicts; i++)
        free(a->onto_conflicts[i]);
    free(a->onto_conflicts);
    memset(a, 0, sizeof(*a));
}

struct ws_file *
agent_add_file(struct agent *a, const char *path, enum ws_status status)
{
    for (size_t i = 0; i < a->nfiles; i++)
        if (!strcmp(a->files[i].path, path))
            return &a->files[i];
    return agent_append_file(a, path, status);
}

struct ws_file *
agent_append_file(struct agent *a, const char *path, enum ws_status status)
{
    ALLOC_GROW(a->files, a->nfiles + 1, a->afiles);
    struct ws_file *f = &a->files[a->nfiles++];
    memset(f, 0, sizeof(*f));
    f->path = xstrdup(path);
    f->status = status;
    f->weight = 1.0;
    range_set_init(&f->ranges);
    return f;
}

static int
cmp_file(const void *x, const void *y)
{
    const struct ws_file *a = x, *b = y;
    return strcmp(a->path, b->path);
}

/* Fold src into dst (same path): union of ranges, the stronger status, the
 * later change, the larger weight and the summed diff stats. */
static void
ws_file_merge(struct ws_file *dst, struct ws_file *src)
{
    range_set_add_set(&dst->ranges, &src->ranges);
    if (dst->status == WS_MODIFIED && src->status != WS_MODIFIED) {
        dst->status = src->status;
        if (src->new_path && !dst->new_path) {
            dst->new_path = src->new_path;
            src->new_path = NULL;
        }
    }
    dst->whole = dst->whole || src->whole;
    if (src->changed_at_ms > dst->changed_at_ms)
        dst->changed_at_ms = src->changed_at_ms;
    if (src->weight > dst->weight)
        dst->weight = src->weight;
    dst->added_lines += src->added_lines;
    dst->deleted_lines += src->deleted_lines;
    for (size_t i = 0; i < src->nnew_uses; i++)
        ws_file_add_name(dst, false, src->new_uses[i].name,
            strlen(src->new_uses[i].name), src->new_uses[i].line);
    for (size_t i = 0; i < src->nnew_defs; i++)
        ws_file_add_name(dst, true, src->new_defs[i].name,
            strlen(src->new_defs[i].name), src->new_defs[i].line);
    for (size_t i = 0; i < src->nnew_imports; i++)
        ws_file_add_import(dst, src->new_imports[i]);
    dst->parsed = dst->parsed || src->parsed;
}

void
agent_sort(struct agent *a)
{
    if (a->nfiles < 2)
        return;
    qsort(a->files, a->nfiles, sizeof(*a->files), cmp_file);
    size_t out = 0;
    for (size_t i = 0; i < a->nfiles; i++) {
        if (out && !strcmp(a->files[out - 1].path, a->files[i].path)) {
            ws_file_merge(&a->files[out - 1], &a->files[i]);
            ws_file_release(&a->files[i]);
            continue;
        }
        if (out != i)
            a->files[out] = a->files[i];
        out++;
    }
    a->nfiles = out;
}

void
agent_add_intent(struct agent *a, const char *glob)
{
    ALLOC_GROW(a->intent, a->nintent + 1, a->aintent);
    a->intent[a->nintent++] = xstrdup(glob);
}

/* Where the sorted base paths of a would hold the first path >= p[0..n)
 * followed by the byte c (c 0: p[0..n) itself). */
static size_t
lower_bound(const struct agent *a, const char *p, size_t n, unsigned char c)
{
    size_t lo = 0, hi = a->nfiles;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *q = a->files[mid].path;
        int d = strncmp(q, p, n);
        if (d < 0 || (d == 0 && (unsigned char)q[n] < c))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether a base path of sorted a is p[0..n) itself (c 0) or lies under the
 * directory p[0..n) (c '/'). O(log n). */
static bool
base_path_at(const struct agent *a, const char *p, size_t n, unsigned char c)
{
    size_t i = lower_bound(a, p, n, c);
    return i < a->nfiles && !strncmp(a->files[i].path, p, n) &&
           (unsigned char)a->files[i].path[n] == c;
}

/* A file of x (base or new name) where y has a directory, or a directory of
 * a name x renamed to where y has a file; y's base paths only. */
static bool
file_dir_clash(const struct agent *x, const struct agent *y)
{
    for (size_t i = 0; i < x->nfiles; i++) {
        const char *p = x->files[i].path, *q = x->files[i].new_path;
        if (base_path_at(y, p, strlen(p), '/'))
            return true;
        if (!q)
            continue;
        if (base_path_at(y, q, strlen(q), '/'))
            return true;
        for (const char *s = strchr(q, '/'); s; s = strchr(s + 1, '/'))
            if (base_path_at(y, q, (size_t)(s - q), 0))
                return true;
    }
    return false;
}

/* Whether f takes a file out of its directory: a rename, or a deletion
 * (a directory move too large for the working set's rename detection
 * shows as deletions and additions; the merge itself looks harder). */
static bool
moves_out(const struct ws_file *f)
{
    return (f->status == WS_RENAMED && f->new_path) || f->status == WS_DELETED;
}

/* A directory x took a file out of (or one of its ancestors) where y adds
 * a file (a new file, or a rename's new name): git's merge may take it for
 * a directory rename and move y's file ("file location" conflict,
 * core/dirrename.h). O((nx + ny) * depth). */
static bool
dir_move_clash(const struct agent *x, const struct agent *y)
{
    struct strmap dirs;
    bool out = false, hit = false;

    for (size_t i = 0; i < x->nfiles && !out; i++)
        out = moves_out(&x->files[i]);
    if (!out)
        return false;
    strmap_init(&dirs); /* every directory y adds something under */
    for (size_t j = 0; j < y->nfiles; j++) {
        const struct ws_file *f = &y->files[j];
        const char *q = f->status == WS_ADDED ? f->path : f->new_path;
        for (const char *s = q ? strchr(q, '/') : NULL; s;
             s = strchr(s + 1, '/'))
            strmap_put(&dirs, q, (size_t)(s - q), 1, NULL);
    }
    for (size_t i = 0; i < x->nfiles && dirs.count && !hit; i++) {
        const char *p = x->files[i].path;
        uint32_t v;
        if (!moves_out(&x->files[i]))
            continue;
        for (const char *s = strchr(p, '/'); s && !hit; s = strchr(s + 1, '/'))
            hit = strmap_get(&dirs, p, (size_t)(s - p), &v);
    }
    strmap_release(&dirs);
    return hit;
}

/* Whether two agents' working sets share a path (base or new naming). */
bool
agent_shares_path(const struct agent *a, const struct agent *b)
{
    size_t i = 0, j = 0;
    while (i < a->nfiles && j < b->nfiles) {
        int c = strcmp(a->files[i].path, b->files[j].path);
        if (!c)
            return true;
        if (c < 0)
            i++;
        else
            j++;
    }
    /* Renames: a new name on one side may be a path on the other. */
    for (i = 0; i < a->nfiles; i++)
        for (j = 0; j < b->nfiles; j++) {
            const char *x = a->files[i].new_path, *y = b->files[j].new_path;
            if ((x && (!strcmp(x, b->files[j].path) || (y && !strcmp(x, y)))) ||
                (y && !strcmp(y, a->files[i].path)))
                return true;
        }
    /* A file on one side where the other has a directory (file/directory
     * conflicts); a file added where the other moved a directory away. */
    return file_dir_clash(a, b) || file_dir_clash(b, a) ||
           dir_move_clash(a, b) || dir_move_clash(b, a);
}

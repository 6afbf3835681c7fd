#define _GNU_SOURCE /* dl_iterate_phdr */
#include "lang/graphsnap.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"
#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define SNAP_MAGIC "ASGSNAP"
#define SNAP_ENDIAN 0x01020304u

struct snap_header {
    char magic[8];
    uint32_t format;
    uint32_t endian;
    uint8_t key[GRAPHSNAP_KEY_BYTES];
    uint32_t nfiles, nnames;
    uint32_t index_cap;
    uint32_t def_size, ref_size;
    uint32_t pad;
    uint64_t npool, ndefs, nrefs, str_bytes;
    uint64_t source_files, with_facts;
    uint64_t size; /* of the whole file */
};

struct snap_file {
    uint32_t path;                              /* offset in the strings */
    uint32_t out, nout, in, nin, names, nnames; /* in the u32 pool */
    uint32_t defs, ndefs, refs, nrefs;
    uint32_t flags; /* SNAP_PARSED */
};

#define SNAP_PARSED 1u

/* Where each section starts, from the counts alone. */
struct snap_layout {
    size_t files, pool, name_off, name_len, index, defs, refs, strings, size;
};

static size_t
align8(size_t x)
{
    return (x + 7) & ~(size_t)7;
}

/* False when the counts overflow a size_t layout. */
static bool
layout(const struct snap_header *h, struct snap_layout *l)
{
    const uint64_t big = (uint64_t)1 << 40;
    if (h->npool > big || h->ndefs > big || h->nrefs > big ||
        h->str_bytes > big || h->index_cap > ((uint32_t)1 << 31))
        return false;
    size_t at = align8(sizeof(struct snap_header));
    l->files = at;
    at = align8(at + (size_t)h->nfiles * sizeof(struct snap_file));
    l->pool = at;
    at = align8(at + (size_t)h->npool * 4);
    l->name_off = at;
    at = align8(at + (size_t)h->nnames * 4);
    l->name_len = at;
    at = align8(at + (size_t)h->nnames * 4);
    l->index = at;
    at = align8(at + (size_t)h->index_cap * 4);
    l->defs = at;
    at = align8(at + (size_t)h->ndefs * sizeof(struct graph_def));
    l->refs = at;
    at = align8(at + (size_t)h->nrefs * sizeof(struct graph_ref));
    l->strings = at;
    at = align8(at + (size_t)h->str_bytes);
    l->size = at;
    return true;
}

/* ---- writing ---- */

static void
put_u32s(uint32_t *pool, uint32_t *at, const uint32_t *v, uint32_t n)
{
    if (n)
        memcpy(pool + *at, v, (size_t)n * 4);
    *at += n;
}

int
graphsnap_write(const struct graph *g, const uint8_t key[GRAPHSNAP_KEY_BYTES],
    const struct graphsnap_info *info, const char *path, struct as_err *e)
{
    struct snap_header h;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, SNAP_MAGIC, sizeof(SNAP_MAGIC));
    h.format = GRAPHSNAP_FORMAT;
    h.endian = SNAP_ENDIAN;
    memcpy(h.key, key, GRAPHSNAP_KEY_BYTES);
    h.def_size = sizeof(struct graph_def);
    h.ref_size = sizeof(struct graph_ref);
    if (info) {
        h.source_files = info->source_files;
        h.with_facts = info->with_facts;
    }
    /* Every name of the graph is written, those the snapshot it came from
     * indexed and those interned since. */
    uint64_t npool = 0, ndefs = 0, nrefs = 0, str = 0;
    for (uint32_t i = 0; i < g->nfiles; i++) {
        const struct graph_file *f = &g->files[i];
        npool += (uint64_t)f->nout + f->nin + f->nnames;
        ndefs += f->ndefs;
        nrefs += f->nrefs;
        str += strlen(f->path) + 1;
    }
    for (size_t i = 0; i < g->nnames; i++)
        str += strlen(g->name_str[i]) + 1;
    uint64_t cap = 16;
    while (cap < 2 * (uint64_t)g->nnames)
        cap *= 2;
    if (npool > UINT32_MAX || ndefs > UINT32_MAX || nrefs > UINT32_MAX ||
        str > UINT32_MAX || g->nnames > UINT32_MAX / 4 || cap > UINT32_MAX)
        return as_errorf(e, AS_ETOOBIG, "graph too large for a snapshot");
    h.nfiles = g->nfiles;
    h.nnames = (uint32_t)g->nnames;
    h.index_cap = (uint32_t)cap;
    h.npool = npool;
    h.ndefs = ndefs;
    h.nrefs = nrefs;
    h.str_bytes = str;
    struct snap_layout l;
    layout(&h, &l);
    h.size = l.size;
    uint8_t *buf = xcalloc(l.size, 1);
    struct snap_file *sf = (struct snap_file *)(buf + l.files);
    uint32_t *pool = (uint32_t *)(buf + l.pool);
    uint32_t *noff = (uint32_t *)(buf + l.name_off);
    uint32_t *nlen = (uint32_t *)(buf + l.name_len);
    uint32_t *index = (uint32_t *)(buf + l.index);
    struct graph_def *defs = (struct graph_def *)(buf + l.defs);
    struct graph_ref *refs = (struct graph_ref *)(buf + l.refs);
    char *strings = (char *)(buf + l.strings);
    uint32_t pu = 0, du = 0, ru = 0, su = 0;
    for (uint32_t i = 0; i < g->nfiles; i++) {
        const struct graph_file *f = &g->files[i];
        struct snap_file *s = &sf[i];
        size_t len = strlen(f->path);
        s->path = su;
        memcpy(strings + su, f->path, len + 1);
        su += (uint32_t)len + 1;
        s->out = pu;
        s->nout = f->nout;
        put_u32s(pool, &pu, f->out, f->nout);
        s->in = pu;
        s->nin = f->nin;
        put_u32s(pool, &pu, f->in, f->nin);
        s->names = pu;
        s->nnames = f->nnames;
        put_u32s(pool, &pu, f->names, f->nnames);
        s->defs = du;
        s->ndefs = f->ndefs;
        for (uint32_t k = 0; k < f->ndefs; k++, du++) {
            /* field by field: the padding stays zero */
            defs[du].name = f->defs[k].name;
            defs[du].start = f->defs[k].start;
            defs[du].end = f->defs[k].end;
            defs[du].kind = f->defs[k].kind;
        }
        s->refs = ru;
        s->nrefs = f->nrefs;
        if (f->nrefs)
            memcpy(refs + ru, f->refs, (size_t)f->nrefs * sizeof(*refs));
        ru += f->nrefs;
        s->flags = f->parsed ? SNAP_PARSED : 0;
    }
    memset(index, 0xff, (size_t)cap * 4);
    for (size_t i = 0; i < g->nnames; i++) {
        size_t len = strlen(g->name_str[i]);
        noff[i] = su;
        nlen[i] = (uint32_t)len;
        memcpy(strings + su, g->name_str[i], len + 1);
        su += (uint32_t)len + 1;
        size_t j = strmap_hash(g->name_str[i], len) & (cap - 1);
        while (index[j] != GRAPH_NONE)
            j = (j + 1) & (cap - 1);
        index[j] = (uint32_t)i;
    }
    memcpy(buf, &h, sizeof(h));
    int rc = file_write_atomic(path, buf, l.size, e);
    free(buf);
    return rc;
}

/* ---- reading ---- */

/* Whether v[0..n) is strictly increasing and every value below limit,
 * other than self. */
static bool
ids_ok(const uint32_t *v, uint32_t n, uint32_t limit, uint32_t self)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i] >= limit || v[i] == self || (i && v[i] <= v[i - 1]))
            return false;
    return true;
}

static bool
has_u32(const uint32_t *v, uint32_t n, uint32_t x)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x;
}

/* Whether every definition and reference names a known name: one pass
 * over each whole section (most of the file) with no branch per item. */
static bool
names_ok(const struct graph_def *d, uint64_t nd, const struct graph_ref *r,
    uint64_t nr, uint32_t nnames)
{
    uint32_t top = 0;
    for (uint64_t k = 0; k < nd; k++)
        top = d[k].name > top ? d[k].name : top;
    for (uint64_t k = 0; k < nr; k++)
        top = r[k].name > top ? r[k].name : top;
    return (nd + nr == 0) || top < nnames;
}

/* Whether a (offset, count) range lies within a section of total items. */
static bool
span_ok(uint32_t off, uint32_t n, uint64_t total)
{
    return (uint64_t)off + n <= total;
}

static int
refuse(struct as_err *e, const char *what)
{
    return as_errorf(e, AS_EPARSE, "graph snapshot refused: %s", what);
}

/* Check every part of the snapshot at p (len bytes) that the graph would
 * read; 0 or an error. */
static int
check(const uint8_t *p, size_t len, const uint8_t key[GRAPHSNAP_KEY_BYTES],
    struct snap_layout *l, struct as_err *e)
{
    struct snap_header h;
    if (len < sizeof(h))
        return refuse(e, "truncated");
    memcpy(&h, p, sizeof(h));
    if (memcmp(h.magic, SNAP_MAGIC, sizeof(SNAP_MAGIC)))
        return refuse(e, "not a graph snapshot");
    if (h.endian != SNAP_ENDIAN || h.format != GRAPHSNAP_FORMAT ||
        h.def_size != sizeof(struct graph_def) ||
        h.ref_size != sizeof(struct graph_ref))
        return as_errorf(e, AS_EINVAL, "graph snapshot of another format");
    if (memcmp(h.key, key, GRAPHSNAP_KEY_BYTES))
        return as_errorf(e, AS_EINVAL, "graph snapshot of another tree");
    if (!layout(&h, l) || h.size != l->size || len != l->size)
        return refuse(e, "wrong size");
    if (h.index_cap < 16 || (h.index_cap & (h.index_cap - 1)) ||
        h.index_cap < 2 * (uint64_t)h.nnames)
        return refuse(e, "bad name index");
    const struct snap_file *sf = (const void *)(p + l->files);
    const uint32_t *pool = (const void *)(p + l->pool);
    const uint32_t *noff = (const void *)(p + l->name_off);
    const uint32_t *nlen = (const void *)(p + l->name_len);
    const uint32_t *index = (const void *)(p + l->index);
    const struct graph_def *defs = (const void *)(p + l->defs);
    const struct graph_ref *refs = (const void *)(p + l->refs);
    const char *str = (const char *)(p + l->strings);
    for (uint32_t i = 0; i < h.nnames; i++)
        if ((uint64_t)noff[i] + nlen[i] >= h.str_bytes ||
            str[noff[i] + nlen[i]] != '\0')
            return refuse(e, "bad name");
    for (uint32_t i = 0; i < h.index_cap; i++)
        if (index[i] != GRAPH_NONE && index[i] >= h.nnames)
            return refuse(e, "bad name index");
    if (!names_ok(defs, h.ndefs, refs, h.nrefs, h.nnames))
        return refuse(e, "bad definition or reference");
    uint64_t nin = 0, nout = 0;
    for (uint32_t i = 0; i < h.nfiles; i++) {
        const struct snap_file *f = &sf[i];
        if (f->path >= h.str_bytes ||
            !memchr(str + f->path, '\0', h.str_bytes - f->path) ||
            !span_ok(f->out, f->nout, h.npool) ||
            !span_ok(f->in, f->nin, h.npool) ||
            !span_ok(f->names, f->nnames, h.npool) ||
            !span_ok(f->defs, f->ndefs, h.ndefs) ||
            !span_ok(f->refs, f->nrefs, h.nrefs) || (f->flags & ~SNAP_PARSED))
            return refuse(e, "bad file entry");
        if (!ids_ok(pool + f->out, f->nout, h.nfiles, i) ||
            !ids_ok(pool + f->in, f->nin, h.nfiles, i) ||
            !ids_ok(pool + f->names, f->nnames, h.nnames, GRAPH_NONE))
            return refuse(e, "bad edge or name list");
        nout += f->nout;
        nin += f->nin;
    }
    /* importers are the reverse of imports */
    if (nin != nout)
        return refuse(e, "edges do not match");
    for (uint32_t i = 0; i < h.nfiles; i++)
        for (uint32_t k = 0; k < sf[i].nout; k++) {
            const struct snap_file *t = &sf[pool[sf[i].out + k]];
            if (!has_u32(pool + t->in, t->nin, i))
                return refuse(e, "edges do not match");
        }
    return 0;
}

static void
unmap(void *backing)
{
    size_t *m = backing;
    munmap((void *)m[0], m[1]);
    free(m);
}

/* Point g's arrays into p (checked by check()). */
static int
fill(struct graph *g, const uint8_t *p, const struct snap_layout *l,
    struct graphsnap_info *info, struct as_err *e)
{
    struct snap_header h;
    memcpy(&h, p, sizeof(h));
    const struct snap_file *sf = (const void *)(p + l->files);
    uint32_t *pool = (void *)(p + l->pool);
    const uint32_t *noff = (const void *)(p + l->name_off);
    const char *str = (const char *)(p + l->strings);
    for (uint32_t i = 0; i < h.nfiles; i++) {
        const struct snap_file *s = &sf[i];
        if (graph_intern_file(g, str + s->path) != i) {
            graph_release(g);
            graph_init(g);
            return refuse(e, "repeated path");
        }
        struct graph_file *f = &g->files[i];
        f->out = pool + s->out;
        f->nout = s->nout;
        f->in = pool + s->in;
        f->nin = s->nin;
        f->names = pool + s->names;
        f->nnames = s->nnames;
        f->defs = (struct graph_def *)(p + l->defs) + s->defs;
        f->ndefs = s->ndefs;
        f->refs = (struct graph_ref *)(p + l->refs) + s->refs;
        f->nrefs = s->nrefs;
        f->parsed = s->flags & SNAP_PARSED;
        f->borrowed = true;
    }
    g->name_str = xmalloc((h.nnames ? h.nnames : 1) * sizeof(*g->name_str));
    for (uint32_t i = 0; i < h.nnames; i++)
        g->name_str[i] = str + noff[i];
    g->nnames = g->anames = h.nnames;
    g->nindexed = h.nnames;
    g->name_index = (const uint32_t *)(p + l->index);
    g->name_len = (const uint32_t *)(p + l->name_len);
    g->index_cap = h.index_cap;
    if (info) {
        info->source_files = h.source_files;
        info->with_facts = h.with_facts;
    }
    return 0;
}

int
graphsnap_load_mem(struct graph *g, const uint8_t key[GRAPHSNAP_KEY_BYTES],
    const void *data, size_t len, struct graphsnap_info *info, struct as_err *e)
{
    struct snap_layout l;
    int rc = check(data, len, key, &l, e);
    return rc ? rc : fill(g, data, &l, info, e);
}

int
graphsnap_load(struct graph *g, const uint8_t key[GRAPHSNAP_KEY_BYTES],
    const char *path, struct graphsnap_info *info, struct as_err *e)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return as_errorf(e, errno == ENOENT ? AS_ENOENT : AS_EIO,
            "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return as_errorf(e, AS_EIO, "'%s' is not a regular file", path);
    }
    size_t len = (size_t)st.st_size;
    if (len < sizeof(struct snap_header)) {
        close(fd);
        return refuse(e, "truncated");
    }
    void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return as_errorf(
            e, AS_EIO, "cannot map '%s': %s", path, strerror(errno));
    /* fill() points the arrays in the pool at writable types; the mapping
     * is read-only, and the graph copies a file before changing it. */
    int rc = graphsnap_load_mem(g, key, p, len, info, e);
    if (rc) {
        munmap(p, len);
        return rc;
    }
    size_t *m = xmalloc(2 * sizeof(*m));
    m[0] = (size_t)p;
    m[1] = len;
    g->backing = m;
    g->backing_free = unmap;
    return 0;
}

/* ---- this build ---- */

struct build_id {
    uint8_t *out;
    size_t cap, len;
};

/* The first loaded object is the program itself. */
static int
find_build_id(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    struct build_id *b = ctx;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        size_t left = ph->p_memsz;
        while (left >= sizeof(ElfW(Nhdr))) {
            const ElfW(Nhdr) *n = (const void *)p;
            size_t name = (n->n_namesz + 3) & ~(size_t)3,
                   desc = (n->n_descsz + 3) & ~(size_t)3,
                   all = sizeof(*n) + name + desc;
            if (all > left)
                break;
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
                !memcmp(p + sizeof(*n), "GNU", 4) && n->n_descsz &&
                n->n_descsz <= b->cap) {
                memcpy(b->out, p + sizeof(*n) + name, n->n_descsz);
                b->len = n->n_descsz;
                return 1;
            }
            p += all;
            left -= all;
        }
    }
    return 1; /* only the program */
}

bool
graphsnap_build_id(uint8_t *out, size_t cap, size_t *len)
{
    struct build_id b = { out, cap, 0 };
    dl_iterate_phdr(find_build_id, &b);
    if (b.len) {
        *len = b.len;
        return true;
    }
    struct stat st;
    if (stat("/proc/self/exe", &st) < 0 || cap < 24)
        return false;
    uint64_t v[3] = { (uint64_t)st.st_size,
        (uint64_t)st.st_mtim.tv_sec * 1000000000u +
            (uint64_t)st.st_mtim.tv_nsec,
        (uint64_t)st.st_ino };
    memcpy(out, v, sizeof(v));
    *len = sizeof(v);
    return true;
}

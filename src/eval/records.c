/*
 * records.c - the merges JSONL reader: gzip line streaming, JSON validation,
 * conversion of hunks to base-coordinate ranges and of commit lists to
 * per-file change times.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "eval/records.h"
#include "util/path.h"
#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct records_reader {
    gzFile gz;
    char *path;
    char *buf;
    size_t alloc;
    size_t line;
    size_t max_line;
};

static void
rec_ws_release(struct rec_ws *ws)
{
    for (size_t i = 0; i < ws->n; i++) {
        free(ws->files[i].path);
        free(ws->files[i].new_path);
        free(ws->files[i].ranges);
    }
    free(ws->files);
    memset(ws, 0, sizeof(*ws));
}

void
record_release(struct record *r)
{
    free(r->merge);
    free(r->repo);
    for (int s = 0; s < 2; s++) {
        rec_ws_release(&r->side[s].ws);
        rec_ws_release(&r->side[s].half);
        for (size_t i = 0; i < r->side[s].nsteps; i++)
            rec_ws_release(&r->side[s].steps[i]);
        free(r->side[s].steps);
        free(r->side[s].step_ct);
        free(r->side[s].step_commits);
    }
    for (size_t i = 0; i < r->nconflicted; i++)
        free(r->conflicted_paths[i]);
    free(r->conflicted_paths);
    memset(r, 0, sizeof(*r));
}

static int
cmp_file(const void *a, const void *b)
{
    return strcmp(
        ((const struct rec_file *)a)->path, ((const struct rec_file *)b)->path);
}

static int
cmp_range(const void *pa, const void *pb)
{
    const struct range *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->end > b->end) - (a->end < b->end);
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

const struct rec_file *
rec_ws_find(const struct rec_ws *ws, const char *path)
{
    size_t lo = 0, hi = ws->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ws->files[mid].path, path);
        if (!c)
            return &ws->files[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Sort ranges and merge overlapping or touching ones, in place. */
static void
ranges_normalize(struct range *v, size_t *n)
{
    if (*n < 2)
        return;
    qsort(v, *n, sizeof(*v), cmp_range);
    size_t out = 0;
    for (size_t i = 1; i < *n; i++) {
        if ((uint64_t)v[i].start <= (uint64_t)v[out].end + 1) {
            if (v[i].end > v[out].end)
                v[out].end = v[i].end;
        } else {
            v[++out] = v[i];
        }
    }
    *n = out + 1;
}

static bool
get_int(json_t *o, const char *key, json_int_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v))
        return false;
    *out = json_integer_value(v);
    return true;
}

static int
norm_path(const char *raw, char **out)
{
    /* Recorded paths are repository-relative: an absolute path or a ".."
     * step is a bad record, not something to rewrite. */
    *out = NULL;
    if (raw[0] == '/')
        return -1;
    for (const char *c = raw;;) {
        if (c[0] == '.' && c[1] == '.' && (c[2] == '/' || !c[2]))
            return -1;
        const char *slash = strchr(c, '/');
        if (!slash)
            break;
        c = slash + 1;
    }
    return path_normalize(raw, NULL, out);
}

/* Latest commit time per path of one side, up to a limit time. */
struct change_times {
    struct strmap ids;
    int64_t *ct;
    size_t n, alloc;
};

static void
change_times_note(struct change_times *t, const char *path, int64_t ct)
{
    bool added;
    uint32_t id =
        strmap_put(&t->ids, path, strlen(path), (uint32_t)t->n, &added);
    if (added) {
        ALLOC_GROW(t->ct, t->n + 1, t->alloc);
        t->ct[t->n++] = ct;
    } else if (ct > t->ct[id]) {
        t->ct[id] = ct;
    }
}

static int64_t
change_times_get(const struct change_times *t, const char *path)
{
    uint32_t id;
    if (path && strmap_get(&t->ids, path, strlen(path), &id))
        return t->ct[id];
    return 0;
}

/* Fill t from the side's commits with ct <= limit. */
static int
change_times_build(struct change_times *t, json_t *commits, int64_t limit,
    int side, struct as_err *err)
{
    size_t i;
    json_t *c;
    json_array_foreach(commits, i, c)
    {
        json_int_t ct;
        json_t *files = json_object_get(c, "files");
        if (!json_is_object(c) || !get_int(c, "ct", &ct) ||
            !json_is_array(files))
            return as_errorf(err, AS_EPARSE,
                "sides[%d].commits[%zu]: needs integer 'ct' and array "
                "'files'",
                side, i);
        if (ct > limit)
            continue;
        size_t j;
        json_t *f;
        json_array_foreach(files, j, f)
        {
            size_t m = json_array_size(f);
            if (m < 2 || m > 3)
                return as_errorf(err, AS_EPARSE,
                    "sides[%d].commits[%zu].files[%zu]: want [status, path] "
                    "or [status, new, old]",
                    side, i, j);
            for (size_t k = 1; k < m; k++) {
                const char *p = json_string_value(json_array_get(f, k));
                char *np;
                if (!p || norm_path(p, &np))
                    return as_errorf(err, AS_EPARSE,
                        "sides[%d].commits[%zu].files[%zu]: bad path", side, i,
                        j);
                change_times_note(t, np, ct);
                free(np);
            }
        }
    }
    return 0;
}

static void
change_times_release(struct change_times *t)
{
    strmap_release(&t->ids);
    free(t->ct);
}

static int
parse_file(json_t *e, struct rec_file *f, const char *where, struct as_err *err)
{
    const char *path = json_string_value(json_object_get(e, "path"));
    const char *status = json_string_value(json_object_get(e, "status"));
    const char *old = json_string_value(json_object_get(e, "old_path"));
    json_t *hunks = json_object_get(e, "hunks");
    memset(f, 0, sizeof(*f));
    if (!path || !status || strlen(status) != 1 || !strchr("MADRCT", status[0]))
        return as_errorf(err, AS_EPARSE,
            "%s: needs string 'path' and 'status' (one of M A D R C T)", where);
    if (hunks && !json_is_array(hunks))
        return as_errorf(err, AS_EPARSE, "%s: 'hunks' must be an array", where);
    json_t *bin = json_object_get(e, "binary");
    if (bin && !json_is_boolean(bin))
        return as_errorf(
            err, AS_EPARSE, "%s: 'binary' must be true or false", where);
    f->status = status[0];
    f->binary = json_is_true(bin);
    const char *base = path;
    if (f->status == 'R') {
        if (!old)
            return as_errorf(
                err, AS_EPARSE, "%s: status R needs 'old_path'", where);
        base = old;
        if (norm_path(path, &f->new_path))
            return as_errorf(err, AS_EPARSE, "%s: bad path '%s'", where, path);
    }
    if (norm_path(base, &f->path) || !f->path[0]) {
        free(f->new_path);
        f->new_path = NULL;
        free(f->path);
        f->path = NULL;
        return as_errorf(err, AS_EPARSE, "%s: bad path '%s'", where, base);
    }
    f->whole = f->binary || strchr("ADCT", f->status);
    size_t nh = json_array_size(hunks);
    if (f->whole || !nh)
        return 0;
    f->ranges = xmalloc(nh * sizeof(*f->ranges));
    size_t i;
    json_t *h;
    json_array_foreach(hunks, i, h)
    {
        json_t *js = json_array_get(h, 0), *je = json_array_get(h, 1);
        json_int_t s = json_integer_value(js), en = json_integer_value(je);
        json_t *ja = json_array_get(h, 2);
        if (json_array_size(h) != 3 || !json_is_integer(js) ||
            !json_is_integer(je) || !json_is_integer(ja) || s < 0 || en < s ||
            en > UINT32_MAX || json_integer_value(ja) < 0)
            return as_errorf(err, AS_EPARSE,
                "%s: hunk %zu must be [start, end, added], integers with 0 "
                "<= start <= end and added >= 0",
                where, i);
        if (en > s) {
            f->ranges[f->nranges].start = s ? (uint32_t)s : 1;
            f->ranges[f->nranges].end =
                (uint32_t)(en - 1) ? (uint32_t)(en - 1) : 1;
        } else {
            uint32_t k = s > 1 ? (uint32_t)(s - 1) : 1;
            f->ranges[f->nranges].start = k;
            f->ranges[f->nranges].end = k;
        }
        f->nranges++;
    }
    ranges_normalize(f->ranges, &f->nranges);
    return 0;
}

static int
parse_ws(json_t *arr, struct rec_ws *ws, const struct change_times *times,
    const char *where, struct as_err *err)
{
    if (!json_is_array(arr))
        return as_errorf(err, AS_EPARSE, "%s: must be an array", where);
    size_t n = json_array_size(arr);
    ws->files = xcalloc(n ? n : 1, sizeof(*ws->files));
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e)
    {
        char at[96];
        snprintf(at, sizeof(at), "%s[%zu]", where, i);
        struct rec_file *f = &ws->files[ws->n];
        if (!json_is_object(e))
            return as_errorf(err, AS_EPARSE, "%s: must be an object", at);
        int rc = parse_file(e, f, at, err);
        if (rc) {
            free(f->ranges);
            f->ranges = NULL;
            free(f->path);
            free(f->new_path);
            memset(f, 0, sizeof(*f));
            return rc;
        }
        int64_t t =
            change_times_get(times, f->new_path ? f->new_path : f->path);
        int64_t t_old = change_times_get(times, f->path);
        f->changed_ct = t > t_old ? t : t_old;
        ws->n++;
    }
    qsort(ws->files, ws->n, sizeof(*ws->files), cmp_file);
    /* A path listed twice (copy onto a renamed path, ...) keeps the first. */
    size_t out = 0;
    for (i = 0; i < ws->n; i++) {
        if (out && !strcmp(ws->files[out - 1].path, ws->files[i].path)) {
            free(ws->files[i].path);
            free(ws->files[i].new_path);
            free(ws->files[i].ranges);
            continue;
        }
        ws->files[out++] = ws->files[i];
    }
    ws->n = out;
    return 0;
}

/* The optional checkpoints: [{ct, n_included, ws}], commit counts within
 * 1..n_commits; a time before the previous step's is held at that one. */
static int
parse_steps(json_t *steps, json_t *commits, int idx, struct rec_side *side,
    struct as_err *err)
{
    if (!steps)
        return 0;
    if (!json_is_array(steps))
        return as_errorf(
            err, AS_EPARSE, "sides[%d].steps: must be an array", idx);
    size_t n = json_array_size(steps);
    side->steps = xcalloc(n + 1, sizeof(*side->steps));
    side->step_ct = xcalloc(n + 1, sizeof(*side->step_ct));
    side->step_commits = xcalloc(n + 1, sizeof(*side->step_commits));
    size_t i;
    json_t *st;
    json_array_foreach(steps, i, st)
    {
        json_int_t ct, k;
        if (!json_is_object(st) || !get_int(st, "ct", &ct) ||
            !(get_int(st, "n_included", &k) || get_int(st, "k", &k)))
            return as_errorf(err, AS_EPARSE,
                "sides[%d].steps[%zu]: needs integer 'ct' and 'n_included'",
                idx, i);
        if (k < 1 || k > side->n_commits)
            return as_errorf(err, AS_EPARSE,
                "sides[%d].steps[%zu]: commit count %lld outside 1..%u", idx, i,
                (long long)k, side->n_commits);
        /* a clock that went backwards is held at the latest time */
        if (i && ct < side->step_ct[i - 1])
            ct = side->step_ct[i - 1];
        struct change_times times = { 0 };
        strmap_init(&times.ids);
        char where[48];
        snprintf(where, sizeof(where), "sides[%d].steps[%zu].ws", idx, i);
        int rc = change_times_build(&times, commits, ct, idx, err);
        if (!rc)
            rc = parse_ws(
                json_object_get(st, "ws"), &side->steps[i], &times, where, err);
        change_times_release(&times);
        side->nsteps = i + 1; /* released with the record, even on error */
        if (rc)
            return rc;
        side->step_ct[i] = ct;
        side->step_commits[i] = (uint32_t)k;
    }
    return 0;
}

static int
parse_side(json_t *s, int idx, struct rec_side *side, struct as_err *err)
{
    json_int_t n, half_ct;
    json_t *commits = json_object_get(s, "commits");
    json_t *half = json_object_get(s, "half");
    const char *tip = json_string_value(json_object_get(s, "tip"));
    if (!json_is_object(s) || !get_int(s, "n_commits", &n) || n < 1 ||
        n > UINT32_MAX || !json_is_array(commits) || !json_is_object(half) ||
        !get_int(half, "ct", &half_ct))
        return as_errorf(err, AS_EPARSE,
            "sides[%d]: needs 'n_commits' >= 1, array 'commits' and "
            "'half' with integer 'ct'",
            idx);
    if (json_array_size(commits) != (size_t)n)
        return as_errorf(err, AS_EPARSE,
            "sides[%d]: 'n_commits' is %lld but 'commits' lists %zu", idx,
            (long long)n, json_array_size(commits));
    side->n_commits = (uint32_t)n;
    side->half_ct = half_ct;
    json_int_t k;
    if (get_int(half, "n_included", &k) || get_int(half, "k", &k)) {
        if (k < 1 || k > n)
            return as_errorf(err, AS_EPARSE,
                "sides[%d].half: commit count %lld outside 1..%lld", idx,
                (long long)k, (long long)n);
        side->half_commits = (uint32_t)k;
    } else {
        side->half_commits = (uint32_t)((n + 1) / 2);
    }

    size_t i;
    json_t *c;
    int64_t max_ct = 0, tip_ct = -1, first_ct = -1;
    json_array_foreach(commits, i, c)
    {
        json_int_t ct;
        if (!get_int(c, "ct", &ct))
            return as_errorf(err, AS_EPARSE,
                "sides[%d].commits[%zu]: needs integer 'ct'", idx, i);
        if (ct > max_ct)
            max_ct = ct;
        if (first_ct < 0 || ct < first_ct)
            first_ct = ct;
        const char *sha = json_string_value(json_object_get(c, "sha"));
        if (tip && sha && !strcmp(sha, tip))
            tip_ct = ct;
    }
    if (tip && tip_ct < 0)
        return as_errorf(err, AS_EPARSE,
            "sides[%d]: the tip '%s' is not among its commits", idx, tip);
    side->tip_ct = tip_ct >= 0 ? tip_ct : max_ct;
    side->first_ct = first_ct >= 0 ? first_ct : side->tip_ct;

    char where[48];
    int rc;
    for (int h = 0; h < 2; h++) {
        struct change_times times = { 0 };
        strmap_init(&times.ids);
        int64_t limit = h ? side->half_ct : side->tip_ct;
        rc = change_times_build(&times, commits, limit, idx, err);
        if (!rc) {
            snprintf(where, sizeof(where), "sides[%d].%s", idx,
                h ? "half.ws" : "ws");
            rc = parse_ws(json_object_get(h ? half : s, "ws"),
                h ? &side->half : &side->ws, &times, where, err);
        }
        change_times_release(&times);
        if (rc)
            return rc;
    }
    return parse_steps(json_object_get(s, "steps"), commits, idx, side, err);
}

static int
parse_root(json_t *root, struct record *r, struct as_err *err)
{
    const char *merge = json_string_value(json_object_get(root, "merge"));
    json_t *sides = json_object_get(root, "sides");
    json_t *label = json_object_get(root, "label");
    json_t *conf = json_object_get(label, "conflicted");
    json_int_t mct;
    if (!json_is_object(root))
        return as_errorf(err, AS_EPARSE, "not a JSON object");
    if (!merge || !json_is_array(sides) || json_array_size(sides) != 2 ||
        !json_is_boolean(conf) || !get_int(root, "merge_ct", &mct) ||
        !json_is_boolean(json_object_get(root, "mainline")))
        return as_errorf(err, AS_EPARSE,
            "needs 'merge', 'merge_ct', boolean 'mainline', two 'sides' and "
            "'label.conflicted'");
    r->merge = xstrdup(merge);
    const char *repo = json_string_value(json_object_get(root, "repo"));
    r->repo = repo ? xstrdup(repo) : NULL;
    r->mainline = json_is_true(json_object_get(root, "mainline"));
    r->conflicted = json_is_true(conf);
    r->merge_ct = mct;
    json_t *paths = json_object_get(label, "conflicted_paths");
    if (paths && !json_is_array(paths))
        return as_errorf(
            err, AS_EPARSE, "'label.conflicted_paths' must be an array");
    size_t np = json_array_size(paths);
    r->conflicted_paths = xcalloc(np ? np : 1, sizeof(char *));
    size_t i;
    json_t *p;
    json_array_foreach(paths, i, p)
    {
        char *np_;
        if (!json_is_string(p) || norm_path(json_string_value(p), &np_))
            return as_errorf(
                err, AS_EPARSE, "label.conflicted_paths[%zu]: bad path", i);
        r->conflicted_paths[r->nconflicted++] = np_;
    }
    qsort(r->conflicted_paths, r->nconflicted, sizeof(char *), cmp_str);
    for (int s = 0; s < 2; s++) {
        int rc = parse_side(json_array_get(sides, s), s, &r->side[s], err);
        if (rc)
            return rc;
    }
    return 0;
}

int
record_parse(
    const char *text, size_t len, struct record *out, struct as_err *err)
{
    json_error_t jerr;
    memset(out, 0, sizeof(*out));
    json_t *root = json_loadb(text, len, 0, &jerr);
    if (!root)
        return as_errorf(err, AS_EPARSE, "invalid JSON: %s", jerr.text);
    int rc = parse_root(root, out, err);
    json_decref(root);
    if (rc)
        record_release(out);
    return rc;
}

struct records_reader *
records_open(const char *path, struct as_err *err)
{
    gzFile gz = gzopen(path, "rb");
    if (!gz) {
        as_errorf(
            err, AS_ENOENT, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    gzbuffer(gz, 1u << 17);
    struct records_reader *rd = xcalloc(1, sizeof(*rd));
    rd->gz = gz;
    rd->path = xstrdup(path);
    rd->max_line = RECORDS_MAX_LINE;
    rd->alloc = 1u << 16;
    rd->buf = xmalloc(rd->alloc);
    return rd;
}

/*
 * Read one line into rd->buf (without the newline). Returns its length,
 * -1 at the end, AS_ETOOBIG (the rest of the line skipped) or AS_EIO.
 */
static long long
read_line(struct records_reader *rd, struct as_err *err)
{
    size_t len = 0;
    bool toobig = false;
    for (;;) {
        if (rd->alloc - len < 2) {
            if (rd->alloc >= rd->max_line) {
                toobig = true;
                len = 0;
            } else {
                rd->alloc *= 2;
                rd->buf = xrealloc(rd->buf, rd->alloc);
            }
        }
        if (!gzgets(rd->gz, rd->buf + len, (int)(rd->alloc - len))) {
            int zerr;
            const char *msg = gzerror(rd->gz, &zerr);
            if (zerr != Z_OK && zerr != Z_BUF_ERROR)
                return as_errorf(
                    err, AS_EIO, "cannot read '%s': %s", rd->path, msg);
            if (!len && !toobig)
                return -1;
            break; /* last line without a newline */
        }
        size_t got = strlen(rd->buf + len);
        len += got;
        if (len && rd->buf[len - 1] == '\n') {
            rd->buf[--len] = '\0';
            break;
        }
    }
    rd->line++;
    if (toobig)
        return as_errorf(err, AS_ETOOBIG,
            "line %zu: longer than %zu bytes, refused", rd->line, rd->max_line);
    return (long long)len;
}

int
records_next(struct records_reader *rd, struct record *out, struct as_err *err)
{
    memset(out, 0, sizeof(*out));
    for (;;) {
        long long len = read_line(rd, err);
        if (len == -1)
            return 0;
        if (len < 0)
            return (int)len;
        size_t start = 0;
        while (start < (size_t)len && strchr(" \t\r", rd->buf[start]))
            start++;
        if (start == (size_t)len)
            continue; /* blank line */
        struct as_err perr;
        int rc = record_parse(rd->buf, (size_t)len, out, &perr);
        if (rc)
            return as_errorf(err, rc, "line %zu: %s", rd->line, perr.msg);
        out->line = rd->line;
        return 1;
    }
}

void
records_set_max_line(struct records_reader *rd, size_t max)
{
    size_t cap = 64;
    while (cap < max)
        cap *= 2;
    rd->max_line = cap;
    if (rd->alloc > cap) {
        rd->alloc = cap;
        rd->buf = xrealloc(rd->buf, cap);
    }
}

void
records_close(struct records_reader *rd)
{
    if (!rd)
        return;
    gzclose(rd->gz);
    free(rd->path);
    free(rd->buf);
    free(rd);
}

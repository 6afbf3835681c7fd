#include "util/glob.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

/*
 * A pattern compiles to a small NFA over bytes: char edges labelled with a
 * 256-bit set, and epsilon edges. Matching simulates it with state bitsets;
 * overlap walks the product of two automata, where two edges combine when
 * their sets intersect. Both are exact and linear in the input.
 */

struct cset {
    uint64_t w[4];
};

struct edge {
    uint32_t from, to;
    bool eps;
    struct cset set;
};

struct glob {
    char *pattern;
    struct edge *edges;
    size_t nedges, aedges;
    uint32_t nstates;
    uint64_t *accept; /* bitset over states */
};

static void
cset_add(struct cset *s, unsigned c)
{
    s->w[c >> 6] |= (uint64_t)1 << (c & 63);
}

static bool
cset_has(const struct cset *s, unsigned c)
{
    return (s->w[c >> 6] >> (c & 63)) & 1;
}

/* Every byte except NUL and, unless slash, '/'. */
static struct cset
cset_any(bool slash)
{
    struct cset s;
    memset(&s, 0xff, sizeof(s));
    s.w[0] &= ~(uint64_t)1;
    if (!slash)
        s.w['/' >> 6] &= ~((uint64_t)1 << ('/' & 63));
    return s;
}

static struct cset
cset_one(unsigned c)
{
    struct cset s;
    memset(&s, 0, sizeof(s));
    cset_add(&s, c);
    return s;
}

static bool
cset_meets(const struct cset *a, const struct cset *b)
{
    return (a->w[0] & b->w[0]) | (a->w[1] & b->w[1]) | (a->w[2] & b->w[2]) |
           (a->w[3] & b->w[3]);
}

static uint32_t
new_state(struct glob *g)
{
    return g->nstates++;
}

static void
add_edge(struct glob *g, uint32_t from, uint32_t to, const struct cset *set)
{
    ALLOC_GROW(g->edges, g->nedges + 1, g->aedges);
    struct edge *e = &g->edges[g->nedges++];
    e->from = from;
    e->to = to;
    e->eps = set == NULL;
    if (set)
        e->set = *set;
    else
        memset(&e->set, 0, sizeof(e->set));
}

static bool
in_posix_class(const char *name, size_t len, unsigned c)
{
    static const struct {
        const char *name;
        int (*fn)(int);
    } classes[] = {
        { "alnum", isalnum },
        { "alpha", isalpha },
        { "blank", isblank },
        { "cntrl", iscntrl },
        { "digit", isdigit },
        { "graph", isgraph },
        { "lower", islower },
        { "print", isprint },
        { "punct", ispunct },
        { "space", isspace },
        { "upper", isupper },
        { "xdigit", isxdigit },
    };
    for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
        if (strlen(classes[i].name) == len &&
            !memcmp(classes[i].name, name, len))
            return c < 128 && classes[i].fn((int)c);
    return false;
}

/* Parse a class starting after '['; returns the index after ']' or 0. */
static size_t
parse_class(const char *p, size_t i, struct cset *out, struct as_err *e)
{
    struct cset s;
    memset(&s, 0, sizeof(s));
    bool neg = false;
    if (p[i] == '!' || p[i] == '^') {
        neg = true;
        i++;
    }
    bool first = true;
    for (;;) {
        unsigned c = (unsigned char)p[i];
        if (!c) {
            as_errorf(e, AS_EINVAL, "unterminated '[' in glob '%s'", p);
            return 0;
        }
        if (c == ']' && !first)
            break;
        first = false;
        if (c == '[' && p[i + 1] == ':') {
            const char *end = strstr(p + i + 2, ":]");
            if (!end) {
                as_errorf(e, AS_EINVAL, "unterminated '[:' in glob '%s'", p);
                return 0;
            }
            const char *name = p + i + 2;
            size_t len = (size_t)(end - name);
            bool known = false;
            for (unsigned x = 1; x < 256; x++)
                if (in_posix_class(name, len, x)) {
                    cset_add(&s, x);
                    known = true;
                }
            if (!known) {
                as_errorf(e, AS_EINVAL, "unknown class '[:%.*s:]' in glob '%s'",
                    (int)len, name, p);
                return 0;
            }
            i = (size_t)(end - p) + 2;
            continue;
        }
        if (c == '\\') {
            i++;
            c = (unsigned char)p[i];
            if (!c)
                continue; /* reported as unterminated above */
        }
        unsigned hi = c;
        if (p[i + 1] == '-' && p[i + 2] && p[i + 2] != ']') {
            size_t j = i + 2;
            if (p[j] == '\\' && p[j + 1])
                j++;
            hi = (unsigned char)p[j];
            i = j;
        }
        for (unsigned x = c; x <= hi; x++)
            cset_add(&s, x);
        i++;
    }
    if (neg) {
        struct cset all = cset_any(true);
        for (int k = 0; k < 4; k++)
            s.w[k] = all.w[k] & ~s.w[k];
    }
    s.w[0] &= ~(uint64_t)1;
    s.w['/' >> 6] &= ~((uint64_t)1 << ('/' & 63));
    *out = s;
    return i + 1;
}

/* Emit "(any/)?" from cur: zero or more whole directories. */
static uint32_t
emit_dirs(struct glob *g, uint32_t cur)
{
    struct cset any = cset_any(true), slash = cset_one('/');
    uint32_t m = new_state(g), n = new_state(g);
    add_edge(g, cur, n, NULL);
    add_edge(g, cur, m, &any);
    add_edge(g, m, m, &any);
    add_edge(g, m, n, &slash);
    return n;
}

static int
build(struct glob *g, const char *p, bool anchor_literal, struct as_err *e)
{
    size_t len = strlen(p);
    bool dir_only = false, anchored = anchor_literal && !glob_has_wildcard(p);
    size_t b = 0;
    while (b < len && (p[b] == '/' || (p[b] == '.' && p[b + 1] == '/'))) {
        anchored = true;
        b += p[b] == '/' ? 1 : 2;
    }
    while (len > b && p[len - 1] == '/') {
        dir_only = true;
        len--;
    }
    if (len <= b)
        return as_errorf(e, AS_EINVAL, "empty glob '%s'", g->pattern);
    for (size_t i = b; i < len; i++)
        if (p[i] == '/' && i + 1 < len)
            anchored = true;
    /* ".." and "." components never match a normalised path. */
    for (size_t i = b; i < len;) {
        size_t j = i;
        while (j < len && p[j] != '/')
            j++;
        if ((j - i == 2 && p[i] == '.' && p[i + 1] == '.') ||
            (j - i == 1 && p[i] == '.'))
            return as_errorf(e, AS_EINVAL, "glob '%s' has a '%.*s' component",
                g->pattern, (int)(j - i), p + i);
        i = j + 1;
    }

    uint32_t cur = new_state(g);
    if (!anchored)
        cur = emit_dirs(g, cur);
    struct cset nonslash = cset_any(false), any = cset_any(true);
    size_t i = b;
    while (i < len) {
        unsigned c = (unsigned char)p[i];
        struct cset s;
        if (c == '*') {
            size_t j = i;
            while (j < len && p[j] == '*')
                j++;
            bool whole_start = i == b || p[i - 1] == '/';
            if (j - i >= 2 && whole_start && (j == len || p[j] == '/')) {
                if (j == len) {
                    add_edge(g, cur, cur, &any);
                    i = j;
                } else {
                    cur = emit_dirs(g, cur);
                    i = j + 1;
                }
                continue;
            }
            /* A star gets its own state so its loop cannot leak into
             * edges reaching the previous state. */
            uint32_t n = new_state(g);
            add_edge(g, cur, n, NULL);
            add_edge(g, n, n, &nonslash);
            cur = n;
            i = j;
            continue;
        }
        if (c == '?') {
            s = nonslash;
            i++;
        } else if (c == '[') {
            size_t k = parse_class(p, i + 1, &s, e);
            if (!k)
                return AS_EINVAL;
            if (k > len)
                return as_errorf(
                    e, AS_EINVAL, "unterminated '[' in glob '%s'", g->pattern);
            i = k;
        } else if (c == '\\') {
            if (i + 1 >= len)
                return as_errorf(
                    e, AS_EINVAL, "glob '%s' ends with '\\'", g->pattern);
            s = cset_one((unsigned char)p[i + 1]);
            i += 2;
        } else if (c == '/') {
            s = cset_one('/');
            while (i < len && p[i] == '/')
                i++;
        } else {
            s = cset_one(c);
            i++;
        }
        uint32_t n = new_state(g);
        add_edge(g, cur, n, &s);
        cur = n;
    }
    /* Whatever lies inside a matched directory is covered too. */
    struct cset slash = cset_one('/');
    uint32_t d = new_state(g), in = new_state(g);
    add_edge(g, cur, d, &slash);
    add_edge(g, d, in, &nonslash);
    add_edge(g, in, in, &any);
    g->accept = xcalloc((g->nstates + 63) / 64, sizeof(uint64_t));
    if (!dir_only)
        g->accept[cur / 64] |= (uint64_t)1 << (cur % 64);
    g->accept[in / 64] |= (uint64_t)1 << (in % 64);
    return 0;
}

static int
compile(const char *pattern, bool anchor_literal, struct glob **out,
    struct as_err *e)
{
    struct glob *g = xcalloc(1, sizeof(*g));
    g->pattern = xstrdup(pattern);
    int rc = build(g, pattern, anchor_literal, e);
    if (rc < 0) {
        glob_free(g);
        *out = NULL;
        return rc;
    }
    *out = g;
    return 0;
}

int
glob_compile(const char *pattern, struct glob **out, struct as_err *e)
{
    return compile(pattern, false, out, e);
}

int
glob_compile_path(const char *pattern, struct glob **out, struct as_err *e)
{
    return compile(pattern, true, out, e);
}

void
glob_free(struct glob *g)
{
    if (!g)
        return;
    free(g->pattern);
    free(g->edges);
    free(g->accept);
    free(g);
}

const char *
glob_pattern(const struct glob *g)
{
    return g->pattern;
}

static bool
bit(const uint64_t *set, uint32_t s)
{
    return (set[s / 64] >> (s % 64)) & 1;
}

static void
setbit(uint64_t *set, uint32_t s)
{
    set[s / 64] |= (uint64_t)1 << (s % 64);
}

static void
closure(const struct glob *g, uint64_t *set)
{
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t i = 0; i < g->nedges; i++) {
            const struct edge *e = &g->edges[i];
            if (e->eps && bit(set, e->from) && !bit(set, e->to)) {
                setbit(set, e->to);
                changed = true;
            }
        }
    }
}

bool
glob_matches(const struct glob *g, const char *path)
{
    size_t words = (g->nstates + 63) / 64;
    uint64_t *cur = xcalloc(words, sizeof(uint64_t));
    uint64_t *next = xcalloc(words, sizeof(uint64_t));
    setbit(cur, 0);
    closure(g, cur);
    bool any = true;
    for (const unsigned char *s = (const unsigned char *)path; *s && any; s++) {
        memset(next, 0, words * sizeof(uint64_t));
        any = false;
        for (size_t i = 0; i < g->nedges; i++) {
            const struct edge *e = &g->edges[i];
            if (!e->eps && bit(cur, e->from) && cset_has(&e->set, *s)) {
                setbit(next, e->to);
                any = true;
            }
        }
        closure(g, next);
        uint64_t *t = cur;
        cur = next;
        next = t;
    }
    bool ok = false;
    for (size_t w = 0; any && w < words; w++)
        if (cur[w] & g->accept[w])
            ok = true;
    free(cur);
    free(next);
    return ok;
}

bool
glob_match(const char *pattern, const char *path)
{
    struct glob *g;
    if (glob_compile(pattern, &g, NULL) < 0)
        return false;
    bool ok = glob_matches(g, path);
    glob_free(g);
    return ok;
}

bool
glob_has_magic(const char *pattern)
{
    return strpbrk(pattern, "*?[\\") != NULL;
}

bool
glob_has_wildcard(const char *pattern)
{
    for (const char *p = pattern; *p; p++) {
        if (*p == '\\' && p[1])
            p++;
        else if (*p == '*' || *p == '?' || *p == '[')
            return true;
    }
    return false;
}

char *
glob_literal(const char *pattern)
{
    char *out = xmalloc(strlen(pattern) + 1), *o = out;
    for (const char *p = pattern; *p; p++) {
        if (*p == '*' || *p == '?' || *p == '[' || (*p == '\\' && !p[1])) {
            free(out);
            return NULL;
        }
        if (*p == '\\')
            p++;
        *o++ = *p;
    }
    *o = '\0';
    return out;
}

char *
glob_escape(const char *path)
{
    char *out = xmalloc(2 * strlen(path) + 1), *o = out;
    for (const char *p = path; *p; p++) {
        if (strchr("*?[\\", *p))
            *o++ = '\\';
        *o++ = *p;
    }
    *o = '\0';
    return out;
}

bool
glob_overlap_compiled(const struct glob *a, const struct glob *b)
{
    size_t n = (size_t)a->nstates * b->nstates;
    uint64_t *seen = xcalloc((n + 63) / 64, sizeof(uint64_t));
    uint32_t *stack = xmalloc(2 * sizeof(uint32_t));
    size_t top = 0, alloc = 2;
    bool found = false;
    stack[top++] = 0;
    stack[top++] = 0;
    setbit(seen, 0);
    while (top && !found) {
        uint32_t t = stack[--top], s = stack[--top];
        if (bit(a->accept, s) && bit(b->accept, t)) {
            found = true;
            break;
        }
        for (size_t i = 0; i < a->nedges + b->nedges; i++) {
            /* Epsilon moves advance one side alone. */
            uint32_t ns = s, nt = t;
            if (i < a->nedges) {
                const struct edge *e = &a->edges[i];
                if (!e->eps || e->from != s)
                    continue;
                ns = e->to;
            } else {
                const struct edge *e = &b->edges[i - a->nedges];
                if (!e->eps || e->from != t)
                    continue;
                nt = e->to;
            }
            size_t k = (size_t)ns * b->nstates + nt;
            if (!bit(seen, (uint32_t)k)) {
                setbit(seen, (uint32_t)k);
                ALLOC_GROW(stack, top + 2, alloc);
                stack[top++] = ns;
                stack[top++] = nt;
            }
        }
        for (size_t i = 0; i < a->nedges; i++) {
            const struct edge *ea = &a->edges[i];
            if (ea->eps || ea->from != s)
                continue;
            for (size_t j = 0; j < b->nedges; j++) {
                const struct edge *eb = &b->edges[j];
                if (eb->eps || eb->from != t || !cset_meets(&ea->set, &eb->set))
                    continue;
                size_t k = (size_t)ea->to * b->nstates + eb->to;
                if (!bit(seen, (uint32_t)k)) {
                    setbit(seen, (uint32_t)k);
                    ALLOC_GROW(stack, top + 2, alloc);
                    stack[top++] = ea->to;
                    stack[top++] = eb->to;
                }
            }
        }
    }
    free(seen);
    free(stack);
    return found;
}

bool
glob_overlap(const char *a, const char *b)
{
    struct glob *ga, *gb;
    if (glob_compile(a, &ga, NULL) < 0)
        return true;
    if (glob_compile(b, &gb, NULL) < 0) {
        glob_free(ga);
        return true;
    }
    bool ok = glob_overlap_compiled(ga, gb);
    glob_free(ga);
    glob_free(gb);
    return ok;
}

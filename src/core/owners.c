/*
 * owners.c - CODEOWNERS-format parsing and last-match-wins lookup.
 */
#include "core/owners.h"

#include <stdlib.h>
#include <string.h>

#include "util/glob.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct owners_rule {
    struct glob *glob;
    char **owners;
    size_t nowners;
    unsigned line;
};

struct owners {
    struct owners_rule *v;
    size_t n, alloc;
};

void
owners_free(struct owners *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->n; i++) {
        glob_free(o->v[i].glob);
        for (size_t k = 0; k < o->v[i].nowners; k++)
            free(o->v[i].owners[k]);
        free(o->v[i].owners);
    }
    free(o->v);
    free(o);
}

static bool
is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* Split one line into words; returns the count (at most max). */
static size_t
split_words(const char *s, size_t len, const char **w, size_t *wl, size_t max)
{
    size_t n = 0, i = 0;
    while (i < len) {
        while (i < len && is_space(s[i]))
            i++;
        if (i >= len)
            break;
        size_t start = i;
        while (i < len && !is_space(s[i])) {
            if (s[i] == '\\' && i + 1 < len)
                i++;
            i++;
        }
        if (n == max)
            return n + 1;
        w[n] = s + start;
        wl[n] = i - start;
        n++;
    }
    return n;
}

static int
parse_line(struct owners *o, const char *s, size_t len, unsigned line,
    struct as_err *e)
{
    enum { MAXW = 257 };
    const char *w[MAXW];
    size_t wl[MAXW];
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 && s[i] != '\t' && s[i] != '\r')
            return as_errorf(
                e, AS_EPARSE, "owners line %u: control character", line);
    size_t n = split_words(s, len, w, wl, MAXW);
    if (n > MAXW - 1)
        return as_errorf(e, AS_EPARSE, "owners line %u: more than %d owners",
            line, MAXW - 2);
    if (n == 0 || w[0][0] == '#')
        return 0;
    if (w[0][0] == '!')
        return as_errorf(e, AS_EPARSE,
            "owners line %u: negated pattern '%.*s' is not supported", line,
            (int)wl[0], w[0]);
    char *pat = xstrndup(w[0], wl[0]);
    struct glob *g;
    struct as_err ge;
    if (glob_compile(pat, &g, &ge) < 0) {
        as_errorf(e, AS_EPARSE, "owners line %u: %s", line, ge.msg);
        free(pat);
        return AS_EPARSE;
    }
    free(pat);
    struct owners_rule r = { .glob = g, .line = line };
    size_t k = 1;
    for (; k < n && w[k][0] != '#'; k++)
        ;
    if (k > 1) {
        r.owners = xcalloc(k - 1, sizeof(*r.owners));
        for (size_t j = 1; j < k; j++)
            r.owners[r.nowners++] = xstrndup(w[j], wl[j]);
    }
    ALLOC_GROW(o->v, o->n + 1, o->alloc);
    o->v[o->n++] = r;
    return 0;
}

int
owners_parse(
    const char *text, size_t len, struct owners **out, struct as_err *e)
{
    *out = NULL;
    if (len > OWNERS_TEXT_MAX)
        return as_errorf(e, AS_ETOOBIG, "owners file is larger than %d bytes",
            OWNERS_TEXT_MAX);
    struct owners *o = xcalloc(1, sizeof(*o));
    unsigned line = 0;
    size_t i = 0;
    while (i < len) {
        size_t start = i;
        while (i < len && text[i] != '\n')
            i++;
        line++;
        if (i - start > OWNERS_LINE_MAX) {
            owners_free(o);
            return as_errorf(e, AS_ETOOBIG,
                "owners line %u: longer than %d bytes", line, OWNERS_LINE_MAX);
        }
        int rc = parse_line(o, text + start, i - start, line, e);
        if (rc < 0) {
            owners_free(o);
            return rc;
        }
        i++; /* the newline */
    }
    *out = o;
    return 0;
}

size_t
owners_count(const struct owners *o)
{
    return o ? o->n : 0;
}

size_t
owners_of(const struct owners *o, const char *path, const char *const **list,
    unsigned *line)
{
    if (list)
        *list = NULL;
    if (line)
        *line = 0;
    if (!o)
        return 0;
    for (size_t i = o->n; i-- > 0;) {
        if (!glob_matches(o->v[i].glob, path))
            continue;
        if (list)
            *list = (const char *const *)o->v[i].owners;
        if (line)
            *line = o->v[i].line;
        return o->v[i].nowners;
    }
    return 0;
}

bool
owners_includes(const struct owners *o, const char *path, const char *who)
{
    const char *const *list;
    size_t n = owners_of(o, path, &list, NULL);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(list[i], who))
            return true;
    return false;
}

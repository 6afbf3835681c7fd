/*
 * cmacro.c - C/C++ macros that stand where a declaration is expected,
 * blanked before the parse (see cmacro.h).
 *
 * A light tokenizer (comments, literals, directives and line splices are
 * skipped whole) gives the tokens and their brace and parenthesis depth;
 * two rules over the tokens pick the macros to blank.
 */
#include "lang/cmacro.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

struct tok {
    uint32_t start, end;  /* bytes */
    uint32_t line, eline; /* first and last line, 1-based */
    char kind; /* 'i' name, '#' directive, 's' literal, 'n' number, or the
                  punctuation character itself */
    bool top;  /* outside braces (but extern "C" and namespace ones) and
                  outside parentheses */
};

struct toks {
    struct tok *v;
    size_t n, alloc;
};

/* Braces deeper than this count as ordinary (not extern "C") ones. */
#define CMACRO_MAX_NEST 256

static bool
is_name_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           c == '$' || c >= 0x80;
}

static bool
is_name_char(unsigned char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

static bool
tok_is(const char *src, const struct tok *t, const char *word)
{
    size_t n = strlen(word);
    return t->kind == 'i' && t->end - t->start == n &&
           !memcmp(src + t->start, word, n);
}

/* Skip a block comment starting at i ("/ *"); returns the index after it. */
static size_t
skip_block_comment(const char *s, size_t len, size_t i, uint32_t *line)
{
    for (i += 2; i < len; i++) {
        if (s[i] == '\n')
            (*line)++;
        else if (s[i] == '*' && i + 1 < len && s[i + 1] == '/')
            return i + 2;
    }
    return len;
}

/* Skip a quoted literal starting at i; it ends at its quote or (broken)
 * at the end of the line. */
static size_t
skip_quoted(const char *s, size_t len, size_t i, uint32_t *line)
{
    char q = s[i];
    for (i++; i < len; i++) {
        if (s[i] == '\\' && i + 1 < len) {
            if (s[i + 1] == '\n')
                (*line)++;
            i++;
        } else if (s[i] == q) {
            return i + 1;
        } else if (s[i] == '\n') {
            return i;
        }
    }
    return len;
}

/* Skip a C++ raw string R"delim( ... )delim" whose quote is at i. */
static size_t
skip_raw(const char *s, size_t len, size_t i, uint32_t *line)
{
    size_t d = i + 1;
    while (d < len && d - i <= 17 && s[d] != '(' && s[d] != '\n')
        d++;
    if (d >= len || s[d] != '(')
        return skip_quoted(s, len, i, line);
    size_t dlen = d - i - 1;
    for (size_t j = d + 1; j < len; j++) {
        if (s[j] == '\n')
            (*line)++;
        else if (s[j] == ')' && j + dlen + 1 < len &&
                 !memcmp(s + j + 1, s + i + 1, dlen) && s[j + dlen + 1] == '"')
            return j + dlen + 2;
    }
    return len;
}

/* Skip a directive starting at its '#'; returns the index of the newline
 * that ends it (splices and comments inside do not end it). */
static size_t
skip_directive(const char *s, size_t len, size_t i, uint32_t *line)
{
    while (i < len && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < len && s[i + 1] == '\n') {
            (*line)++;
            i += 2;
        } else if (s[i] == '/' && i + 1 < len && s[i + 1] == '*') {
            i = skip_block_comment(s, len, i, line);
        } else if (s[i] == '/' && i + 1 < len && s[i + 1] == '/') {
            while (i < len && s[i] != '\n')
                i++;
        } else if (s[i] == '"' || s[i] == '\'') {
            i = skip_quoted(s, len, i, line);
        } else {
            i++;
        }
    }
    return i;
}

/* True when the brace about to open after the tokens so far is the
 * transparent kind: `extern "C" {` or `namespace a::b {`. */
static bool
opens_transparent(const char *src, const struct toks *t)
{
    size_t n = t->n;
    if (n >= 2 && t->v[n - 1].kind == 's' &&
        tok_is(src, &t->v[n - 2], "extern"))
        return true;
    for (size_t k = n; k > 0 && n - k < 16; k--) {
        const struct tok *p = &t->v[k - 1];
        if (tok_is(src, p, "namespace"))
            return true;
        if (p->kind != 'i' && p->kind != ':')
            return false;
    }
    return false;
}

static void
tokenize(const char *s, size_t len, struct toks *t)
{
    uint32_t line = 1;
    bool bol = true;             /* only blanks since the line began */
    bool brace[CMACRO_MAX_NEST]; /* true for a transparent brace */
    size_t nbrace = 0, deep = 0; /* deep: braces past the cap */
    int opaque = 0, paren = 0;
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n') {
            line++;
            bol = true;
            i++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            i++;
            continue;
        }
        if (c == '\\' && i + 1 < len && s[i + 1] == '\n') {
            line++;
            i += 2;
            continue;
        }
        if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            i = skip_block_comment(s, len, i, &line);
            continue;
        }
        if (c == '/' && i + 1 < len && s[i + 1] == '/') {
            while (i < len && s[i] != '\n')
                i++;
            continue;
        }
        struct tok k = { .start = (uint32_t)i, .line = line };
        k.top = opaque == 0 && paren == 0;
        if (c == '#' && bol) {
            k.kind = '#';
            i = skip_directive(s, len, i, &line);
        } else if (is_name_start(c)) {
            size_t j = i;
            while (j < len && is_name_char((unsigned char)s[j]))
                j++;
            k.kind = 'i';
            if (j < len && s[j] == '"' && s[j - 1] == 'R' && j - i <= 3) {
                k.kind = 's';
                j = skip_raw(s, len, j, &line);
            } else if (j < len && (s[j] == '"' || s[j] == '\'') && j - i <= 2) {
                k.kind = 's'; /* L"..", u8"..", u'..' */
                j = skip_quoted(s, len, j, &line);
            }
            i = j;
        } else if ((c >= '0' && c <= '9') ||
                   (c == '.' && i + 1 < len && s[i + 1] >= '0' &&
                       s[i + 1] <= '9')) {
            k.kind = 'n';
            while (i < len && (is_name_char((unsigned char)s[i]) ||
                                  s[i] == '.' || s[i] == '\''))
                i++;
        } else if (c == '"' || c == '\'') {
            k.kind = 's';
            i = skip_quoted(s, len, i, &line);
        } else {
            k.kind = (char)c;
            i++;
            if (c == '(') {
                paren++;
            } else if (c == ')') {
                paren -= paren > 0;
            } else if (c == '{') {
                bool tr = paren == 0 && opaque == 0 &&
                          nbrace < CMACRO_MAX_NEST && opens_transparent(s, t);
                if (nbrace < CMACRO_MAX_NEST)
                    brace[nbrace++] = tr;
                else
                    deep++;
                opaque += !tr;
            } else if (c == '}') {
                if (deep)
                    deep--, opaque -= opaque > 0;
                else if (nbrace && !brace[--nbrace])
                    opaque -= opaque > 0;
            } else if (c == ';' && opaque == 0) {
                paren = 0; /* an unbalanced parenthesis ends here */
            }
        }
        bol = false;
        k.end = (uint32_t)i;
        k.eline = line;
        ALLOC_GROW(t->v, t->n + 1, t->alloc);
        t->v[t->n++] = k;
    }
}

/* An upper-case name: GIT_EXTERN, API, MY_DECL2. */
static bool
macro_like(const char *src, const struct tok *t)
{
    if (t->kind != 'i' || t->end - t->start < 2)
        return false;
    bool letter = false;
    for (uint32_t i = t->start; i < t->end; i++) {
        char c = src[i];
        if (c >= 'A' && c <= 'Z')
            letter = true;
        else if (c != '_' && !(c >= '0' && c <= '9'))
            return false;
    }
    return letter && !(src[t->start] >= '0' && src[t->start] <= '9');
}

/* Words that start a statement: what follows a call-like macro inside a
 * function, never the type or name of a declaration. */
static bool
statement_word(const char *src, const struct tok *t)
{
    static const char *const words[] = { "return", "if", "else", "while", "for",
        "do", "switch", "case", "default", "goto", "break", "continue",
        "sizeof", "throw", "delete", "new" };
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (tok_is(src, t, words[i]))
            return true;
    return false;
}

/* When token i is `NAME(...)` on one line with a name on that line right
 * after the ')' (the declaration it decorates), the index of the ')'. */
static bool
decorator(const char *src, const struct toks *t, size_t i, size_t *close)
{
    const struct tok *v = t->v;
    if (!macro_like(src, &v[i]) || i + 1 >= t->n || v[i + 1].kind != '(' ||
        v[i + 1].line != v[i].eline)
        return false;
    int depth = 0;
    for (size_t k = i + 1; k < t->n && v[k].line == v[i].eline; k++) {
        char c = v[k].kind;
        if (c == ';' || c == '{' || c == '}' || c == '#' ||
            v[k].eline != v[k].line)
            return false;
        depth += c == '(';
        depth -= c == ')';
        if (depth > 0)
            continue;
        if (k + 1 >= t->n || v[k + 1].line != v[k].line ||
            v[k + 1].kind != 'i' || statement_word(src, &v[k + 1]))
            return false;
        *close = k;
        return true;
    }
    return false;
}

/* True when the declaration starting at token i has both a type and a
 * name (two names, `a::b` counting as one, a decorator as one): a lone
 * upper-case line above it is then not its return type. */
static bool
typed_decl_at(const char *src, const struct toks *t, size_t i)
{
    int names = 0;
    bool joined = false;
    while (i < t->n && names < 2) {
        const struct tok *k = &t->v[i];
        size_t close;
        if (k->kind == 'i') {
            if (decorator(src, t, i, &close)) {
                names++;
                i = close + 1;
                continue;
            }
            names += !joined;
            joined = false;
            i++;
        } else if (k->kind == ':') {
            joined = true;
            i++;
        } else if (k->kind == '*' || k->kind == '&' || k->kind == '<' ||
                   k->kind == '>') {
            i++;
        } else {
            break;
        }
    }
    return names >= 2;
}

/* When token i is `NAME(...)` right after a declarator's ')' and right
 * before the ';' or '{' (`f(...) GIT_FORMAT_PRINTF(2, 3);`, an attribute
 * in a macro), the index of its ')'. */
static bool
attribute(const char *src, const struct toks *t, size_t i, size_t *close)
{
    const struct tok *v = t->v;
    if (!macro_like(src, &v[i]) || i + 1 >= t->n || v[i + 1].kind != '(')
        return false;
    int depth = 0;
    for (size_t k = i + 1; k < t->n && k - i < 64; k++) {
        char c = v[k].kind;
        if (c == ';' || c == '{' || c == '}' || c == '#')
            return false;
        depth += c == '(';
        depth -= c == ')';
        if (depth > 0)
            continue;
        if (k + 1 >= t->n || (v[k + 1].kind != ';' && v[k + 1].kind != '{'))
            return false;
        *close = k;
        return true;
    }
    return false;
}

/* out, or a new copy of src when NULL. */
static char *
blank_copy(char *out, const char *src, size_t len)
{
    if (out)
        return out;
    out = xmalloc(len ? len : 1);
    memcpy(out, src, len);
    return out;
}

static void
blank(char *out, const struct tok *k)
{
    memset(out + k->start, ' ', k->end - k->start);
}

static void
add_use(struct cmacro_use **uses, size_t *n, size_t *alloc, const struct tok *k)
{
    ALLOC_GROW(*uses, *n + 1, *alloc);
    (*uses)[(*n)++] = (struct cmacro_use){
        .start = k->start, .len = k->end - k->start, .line = k->line
    };
}

char *
cmacro_blank(
    const char *src, size_t len, struct cmacro_use **uses, size_t *nuses)
{
    struct toks t = { 0 };
    size_t nu = 0, au = 0;
    char *out = NULL;
    *uses = NULL;
    *nuses = 0;
    tokenize(src, len, &t);
    const struct tok *prev = NULL; /* the last token left in place */
    size_t shut = SIZE_MAX;        /* a blanked ')' ahead */
    for (size_t i = 0; i < t.n; i++) {
        const struct tok *k = &t.v[i];
        size_t close;
        if (i == shut)
            continue;
        bool starts = !prev || prev->kind == '#' || prev->kind == ';' ||
                      prev->kind == '}' || prev->kind == '{';
        if (k->top && prev && prev->kind == ')' &&
            attribute(src, &t, i, &close)) {
            out = blank_copy(out, src, len);
            for (size_t j = i; j <= close; j++)
                blank(out, &t.v[j]);
            add_use(uses, &nu, &au, k);
            i = close;
            continue;
        }
        if (!k->top || !starts || !macro_like(src, k)) {
            prev = k;
            continue;
        }
        if (decorator(src, &t, i, &close)) {
            out = blank_copy(out, src, len);
            blank(out, k);
            blank(out, &t.v[i + 1]);
            blank(out, &t.v[close]);
            add_use(uses, &nu, &au, k);
            shut = close;
            i++; /* the '(': the type inside is the declaration's */
            continue;
        }
        bool alone = (i == 0 || t.v[i - 1].eline < k->line) &&
                     (i + 1 == t.n || t.v[i + 1].line > k->eline);
        const struct tok *next = i + 1 < t.n ? &t.v[i + 1] : NULL;
        if (alone &&
            (!next || next->kind == '#' || next->kind == '}' ||
                (next->kind == 'i' && typed_decl_at(src, &t, i + 1)))) {
            out = blank_copy(out, src, len);
            blank(out, k);
            add_use(uses, &nu, &au, k);
            continue;
        }
        prev = k;
    }
    free(t.v);
    *nuses = nu;
    if (!nu)
        free(*uses), *uses = NULL;
    return out;
}

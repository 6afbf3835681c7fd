/*
 * redact.c - secret redaction by a single linear scan.
 *
 * Matchers are tried only where a word starts; when none matches, the scan
 * jumps past the whole word, and every matcher either consumes what it read
 * or reads at most a bounded neighbourhood, so no byte is examined more than
 * a constant number of times.
 */
#include "util/redact.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

struct span {
    size_t rs, re; /* bytes to replace */
    size_t end;    /* where the scan resumes */
};

static bool
is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

static bool
is_tok(char c)
{
    return is_alnum(c) || c == '_' || c == '-';
}

static char
lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static bool
has_prefix(const char *s, size_t len, size_t i, const char *p)
{
    size_t n = strlen(p);
    return len - i >= n && !memcmp(s + i, p, n);
}

/* Bytes from i that satisfy cls. */
static size_t
count_while(const char *s, size_t len, size_t i, bool (*cls)(char))
{
    size_t k = i;
    while (k < len && cls(s[k]))
        k++;
    return k - i;
}

static bool
is_word_(char c)
{
    return is_alnum(c) || c == '_';
}

static bool
is_b64url(char c)
{
    return is_alnum(c) || c == '_' || c == '-';
}

static bool
is_upper_digit(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool
is_bearer_tok(char c)
{
    return is_alnum(c) || (c && strchr("._~+/=-", c) != NULL);
}

static bool
whole(size_t i, size_t n, struct span *sp)
{
    sp->rs = i;
    sp->re = sp->end = i + n;
    return true;
}

static bool
m_pem(const char *s, size_t len, size_t i, struct span *sp)
{
    if (!has_prefix(s, len, i, "-----BEGIN "))
        return false;
    /* the BEGIN line must name a private key */
    size_t k = i + 11;
    size_t eol = k;
    while (eol < len && s[eol] != '\n' && eol - k < 80)
        eol++;
    const char *hit = NULL;
    for (size_t j = k; j + 16 <= eol; j++)
        if (!memcmp(s + j, "PRIVATE KEY-----", 16)) {
            hit = s + j;
            break;
        }
    if (!hit)
        return false;
    size_t j = (size_t)(hit - s) + 16;
    for (; j + 9 <= len; j++) {
        if (memcmp(s + j, "-----END ", 9))
            continue;
        size_t e = j + 9;
        while (e < len && s[e] != '\n' && !has_prefix(s, len, e, "-----"))
            e++;
        if (has_prefix(s, len, e, "-----"))
            e += 5;
        return whole(i, e - i, sp);
    }
    return whole(i, len - i, sp); /* no END: the rest is key material */
}

static bool
m_github(const char *s, size_t len, size_t i, struct span *sp)
{
    static const char *const pre[] = { "ghp_", "gho_", "ghu_", "ghs_", "ghr_" };
    for (size_t k = 0; k < 5; k++) {
        if (!has_prefix(s, len, i, pre[k]))
            continue;
        size_t n = count_while(s, len, i + 4, is_alnum);
        return n >= 20 && whole(i, 4 + n, sp);
    }
    if (has_prefix(s, len, i, "github_pat_")) {
        size_t n = count_while(s, len, i + 11, is_word_);
        return n >= 20 && whole(i, 11 + n, sp);
    }
    return false;
}

static bool
m_aws(const char *s, size_t len, size_t i, struct span *sp)
{
    if (!has_prefix(s, len, i, "AKIA") && !has_prefix(s, len, i, "ASIA"))
        return false;
    size_t n = count_while(s, len, i + 4, is_upper_digit);
    if (n != 16 || (i + 20 < len && is_tok(s[i + 20])))
        return false;
    return whole(i, 20, sp);
}

static bool
m_slack(const char *s, size_t len, size_t i, struct span *sp)
{
    if (!has_prefix(s, len, i, "xox") || len - i < 5 ||
        !strchr("abopsr", s[i + 3]) || s[i + 3] == '\0' || s[i + 4] != '-')
        return false;
    size_t n = count_while(s, len, i + 5, is_b64url);
    return n >= 10 && whole(i, 5 + n, sp);
}

static bool
m_sk(const char *s, size_t len, size_t i, struct span *sp)
{
    if (!has_prefix(s, len, i, "sk-"))
        return false;
    size_t n = count_while(s, len, i + 3, is_b64url);
    return n >= 20 && whole(i, 3 + n, sp);
}

static bool
m_jwt(const char *s, size_t len, size_t i, struct span *sp)
{
    if (!has_prefix(s, len, i, "eyJ"))
        return false;
    size_t a = count_while(s, len, i, is_b64url);
    size_t k = i + a;
    if (a < 8 || k >= len || s[k] != '.')
        return false;
    size_t b = count_while(s, len, k + 1, is_b64url);
    k += 1 + b;
    if (b < 4 || k >= len || s[k] != '.')
        return false;
    size_t c = count_while(s, len, k + 1, is_b64url);
    return whole(i, k + 1 + c - i, sp);
}

static bool
m_bearer(const char *s, size_t len, size_t i, size_t word_end, struct span *sp)
{
    static const char b[] = "bearer";
    if (word_end - i != 6)
        return false;
    for (size_t k = 0; k < 6; k++)
        if (lower(s[i + k]) != b[k])
            return false;
    size_t k = word_end;
    while (k < len && (s[k] == ' ' || s[k] == '\t'))
        k++;
    if (k == word_end)
        return false;
    size_t n = count_while(s, len, k, is_bearer_tok);
    if (n < 8)
        return false;
    sp->rs = k;
    sp->re = sp->end = k + n;
    return true;
}

/* Whether the word s[i..end) ends with a secret-like name. */
static bool
secret_name(const char *s, size_t i, size_t end)
{
    static const char *const names[] = { "password", "passwd", "secret",
        "token", "api_key", "apikey", "api-key", "access_key", "secret_key",
        "private_key", "credentials" };
    for (size_t k = 0; k < sizeof(names) / sizeof(*names); k++) {
        size_t n = strlen(names[k]);
        if (end - i < n)
            continue;
        size_t j = 0;
        for (; j < n && lower(s[end - n + j]) == names[k][j]; j++)
            ;
        if (j == n)
            return true;
    }
    return false;
}

/* Whether only blanks (or a YAML "- ") precede position i on its line. */
static bool
line_start(const char *s, size_t i)
{
    while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t' || s[i - 1] == '-'))
        i--;
    return i == 0 || s[i - 1] == '\n' || s[i - 1] == '\r';
}

static bool
m_assign(const char *s, size_t len, size_t i, size_t word_end, struct span *sp)
{
    if (!secret_name(s, i, word_end))
        return false;
    char keyq = i > 0 && (s[i - 1] == '"' || s[i - 1] == '\'') ? s[i - 1] : 0;
    size_t k = word_end;
    if (keyq && k < len && s[k] == keyq)
        k++;
    while (k < len && (s[k] == ' ' || s[k] == '\t'))
        k++;
    if (k >= len)
        return false;
    if (s[k] == '=') {
        if (k + 1 < len && s[k + 1] == '=')
            return false; /* a comparison */
        k += (k + 1 < len && s[k + 1] == '>') ? 2 : 1;
    } else if (s[k] == ':') {
        if (k + 1 < len && s[k + 1] == '=')
            k += 2;
        else if (keyq || line_start(s, i))
            k++;
        else
            return false; /* "your password: ..." in prose */
    } else {
        return false;
    }
    while (k < len && (s[k] == ' ' || s[k] == '\t'))
        k++;
    if (k >= len)
        return false;
    size_t vs, ve;
    if (s[k] == '"' || s[k] == '\'') {
        char q = s[k];
        vs = ve = k + 1;
        while (ve < len && s[ve] != q && s[ve] != '\n')
            ve++;
        sp->end = ve < len && s[ve] == q ? ve + 1 : ve;
    } else {
        vs = ve = k;
        while (ve < len && !strchr(" \t\r\n,;&)}]<>\"'", s[ve]) && s[ve])
            ve++;
        sp->end = ve;
    }
    if (ve == vs || has_prefix(s, len, vs, REDACT_MARK))
        return false;
    sp->rs = vs;
    sp->re = ve;
    return true;
}

char *
redact_text(const char *s, size_t len, size_t *count)
{
    char *out = NULL;
    size_t n = 0, alloc = 0, copied = 0, found = 0, i = 0;
    const size_t mark = strlen(REDACT_MARK);
    while (i < len) {
        if (!is_tok(s[i]) || (i > 0 && is_tok(s[i - 1]))) {
            i++;
            continue;
        }
        size_t word_end = i + count_while(s, len, i, is_tok);
        struct span sp;
        if (m_pem(s, len, i, &sp) || m_github(s, len, i, &sp) ||
            m_aws(s, len, i, &sp) || m_slack(s, len, i, &sp) ||
            m_sk(s, len, i, &sp) || m_jwt(s, len, i, &sp) ||
            m_bearer(s, len, i, word_end, &sp) ||
            m_assign(s, len, i, word_end, &sp)) {
            ALLOC_GROW(out, n + (sp.rs - copied) + mark + 1, alloc);
            memcpy(out + n, s + copied, sp.rs - copied);
            n += sp.rs - copied;
            memcpy(out + n, REDACT_MARK, mark);
            n += mark;
            copied = sp.re;
            found++;
            i = sp.end > i ? sp.end : i + 1;
            continue;
        }
        i = word_end;
    }
    ALLOC_GROW(out, n + (len - copied) + 1, alloc);
    memcpy(out + n, s + copied, len - copied);
    n += len - copied;
    out[n] = '\0';
    if (count)
        *count = found;
    return out;
}

char *
redact_string(const char *s, size_t *count)
{
    return redact_text(s, strlen(s), count);
}

/*
 * similar.c - word-set similarity of task summaries.
 */
#include "core/similar.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

/* Sorted, for bsearch. English function words, then task verbs and filler. */
static const char *const stop_words[] = { "about", "add", "after", "all",
    "also", "an", "and", "any", "are", "as", "at", "be", "been", "before",
    "being", "between", "both", "bug", "but", "by", "can", "change", "check",
    "clean", "cleanup", "code", "could", "create", "did", "do", "does", "done",
    "each", "ensure", "etc", "few", "fix", "fixe", "fixed", "fixing", "for",
    "from", "get", "handle", "handling", "has", "have", "how", "if",
    "implement", "improve", "in", "into", "is", "issue", "it", "its", "just",
    "let", "make", "me", "more", "most", "need", "new", "no", "not", "now",
    "of", "on", "only", "or", "other", "our", "out", "over", "please",
    "refactor", "remove", "so", "some", "such", "support", "task", "than",
    "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "those", "to", "todo", "too", "under", "up", "update", "use", "via", "was",
    "we", "were", "what", "when", "where", "which", "while", "who", "will",
    "wip", "with", "work", "would", "you", "your" };

static int
cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool
similar_is_stop_word(const char *word)
{
    return bsearch(&word, stop_words, sizeof(stop_words) / sizeof(*stop_words),
               sizeof(*stop_words), cmp_cstr) != NULL;
}

static bool
is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

char **
similar_words(const char *s, size_t *n)
{
    char **v = NULL;
    size_t count = 0, alloc = 0;
    const char *p = s;
    while (*p && count < SIMILAR_MAX_WORDS) {
        while (*p && !is_alnum(*p))
            p++;
        const char *start = p;
        while (is_alnum(*p))
            p++;
        size_t len = (size_t)(p - start);
        if (len < 2)
            continue;
        char *w = xstrndup(start, len);
        for (size_t i = 0; i < len; i++)
            if (w[i] >= 'A' && w[i] <= 'Z')
                w[i] = (char)(w[i] - 'A' + 'a');
        bool stop = similar_is_stop_word(w);
        if (!stop && len > 3 && w[len - 1] == 's' && w[len - 2] != 's') {
            w[--len] = '\0';
            stop = similar_is_stop_word(w);
        }
        if (stop) {
            free(w);
            continue;
        }
        ALLOC_GROW(v, count + 1, alloc);
        v[count++] = w;
    }
    if (count)
        qsort(v, count, sizeof(*v), cmp_cstr);
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        if (k && !strcmp(v[k - 1], v[i])) {
            free(v[i]);
            continue;
        }
        v[k++] = v[i];
    }
    *n = k;
    return v;
}

void
similar_words_free(char **words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(words[i]);
    free(words);
}

static double
jaccard(char **a, size_t na, char **b, size_t nb)
{
    if (!na || !nb)
        return 0;
    size_t i = 0, j = 0, both = 0;
    while (i < na && j < nb) {
        int c = strcmp(a[i], b[j]);
        both += c == 0;
        i += c <= 0;
        j += c >= 0;
    }
    return (double)both / (double)(na + nb - both);
}

double
similar_score(const char *a, const char *b)
{
    size_t na, nb;
    char **wa = similar_words(a, &na), **wb = similar_words(b, &nb);
    double s = jaccard(wa, na, wb, nb);
    similar_words_free(wa, na);
    similar_words_free(wb, nb);
    return s;
}

long
similar_closest(const char *s, const char *const *active, size_t n,
    double threshold, double *score)
{
    size_t ns;
    char **ws = similar_words(s, &ns);
    long best = -1;
    double best_score = 0;
    for (size_t i = 0; i < n; i++) {
        if (!active[i])
            continue;
        size_t nw;
        char **w = similar_words(active[i], &nw);
        double x = jaccard(ws, ns, w, nw);
        similar_words_free(w, nw);
        if (x >= threshold && x > 0 && (best < 0 || x > best_score)) {
            best = (long)i;
            best_score = x;
        }
    }
    similar_words_free(ws, ns);
    if (score)
        *score = best_score;
    return best;
}

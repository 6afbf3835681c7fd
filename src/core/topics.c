#include "core/topics.h"

#include <stdbool.h>
#include <string.h>

#include "core/similar.h"
#include "util/banned.h"

static bool
set_has(const struct topic_set *s, const char *w)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->t[i], w))
            return true;
    return false;
}

void
topics_extract(const char *prompt, struct topic_set *out)
{
    out->n = 0;
    const char *p = prompt ? prompt : "";
    while (*p && out->n < TOPICS_PER_PROMPT) {
        while (*p && !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                         (*p >= '0' && *p <= '9')))
            p++;
        char w[TOPICS_WORD_MAX + 1];
        size_t n = 0;
        bool digits_only = true;
        for (; (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
               (*p >= '0' && *p <= '9');
             p++) {
            char c = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
            digits_only = digits_only && c >= '0' && c <= '9';
            if (n < TOPICS_WORD_MAX)
                w[n++] = c;
        }
        w[n] = '\0';
        if (n < 3 || digits_only || similar_is_stop_word(w) || set_has(out, w))
            continue;
        memcpy(out->t[out->n++], w, n + 1);
    }
}

void
topic_track_init(struct topic_track *t)
{
    memset(t, 0, sizeof(*t));
}

void
topic_track_add(struct topic_track *t, const struct topic_set *s)
{
    if (t->n == TOPICS_WINDOW) {
        memmove(&t->p[0], &t->p[1], (TOPICS_WINDOW - 1) * sizeof(t->p[0]));
        t->n--;
    }
    t->p[t->n++] = *s;
}

enum topic_class
topic_track_class(const struct topic_track *t, const char *topic)
{
    if (t->n < TOPICS_MIN_PROMPTS)
        return TOPIC_NONE;
    size_t last3 = 0, earlier = 0;
    for (size_t i = 0; i < t->n; i++) {
        bool has = set_has(&t->p[i], topic);
        if (i + 3 >= t->n)
            last3 += has;
        else
            earlier += has;
    }
    bool in_last = set_has(&t->p[t->n - 1], topic);
    if (!last3 && !earlier)
        return TOPIC_NONE;
    if (in_last && last3 >= 2)
        return TOPIC_DEEPENING;
    if (in_last && last3 == 1 && !earlier)
        return TOPIC_EMERGING;
    if (!last3)
        return TOPIC_FADING;
    return TOPIC_STABLE;
}

static bool
converges(enum topic_class x, enum topic_class y)
{
    return (x == TOPIC_DEEPENING &&
               (y == TOPIC_DEEPENING || y == TOPIC_EMERGING)) ||
           (y == TOPIC_DEEPENING && x == TOPIC_EMERGING);
}

size_t
topics_converge(const struct topic_track *a, const struct topic_track *b,
    struct topic_set *out)
{
    out->n = 0;
    for (size_t i = a->n; i-- > 0 && out->n < TOPICS_PER_PROMPT;)
        for (size_t k = 0; k < a->p[i].n && out->n < TOPICS_PER_PROMPT; k++) {
            const char *w = a->p[i].t[k];
            if (set_has(out, w))
                continue;
            if (converges(topic_track_class(a, w), topic_track_class(b, w)))
                memcpy(out->t[out->n++], w, strlen(w) + 1);
        }
    return out->n;
}

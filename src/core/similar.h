/*
 * similar.h - task dedup: how alike two task or intent summaries are.
 *
 * Pure string work, no I/O. A summary becomes a set of words: ASCII letters
 * lowercased, split on every character that is not a letter or a digit,
 * words of one character dropped, a plural "s" dropped from words longer
 * than three letters (not from "ss": "tests" = "test", "class" stays), and
 * stop words dropped. The stop words are a fixed list of English function
 * words ("the", "in", "for", ...) plus generic task verbs and filler nouns
 * ("fix", "add", "update", "implement", "refactor", "make", "bug", "issue",
 * "task", ...; the full list is in similar.c) that say what kind of work it
 * is, not what it is about: "fix the login redirect" and "refactor login
 * redirect handling" share "login" and "redirect", which is what makes them
 * the same task, while "fix login" and "fix billing" share nothing.
 *
 * Similarity is the Jaccard index of the two sets, |A ∩ B| / |A ∪ B|, in
 * [0, 1]; 0 when either set is empty. The default threshold for "a close
 * match" is SIMILAR_DEFAULT_THRESHOLD: at 0.5 the two summaries share at
 * least half of all the content words they use between them.
 */
#ifndef AIRSPACE_CORE_SIMILAR_H
#define AIRSPACE_CORE_SIMILAR_H

#include <stdbool.h>
#include <stddef.h>

#define SIMILAR_DEFAULT_THRESHOLD 0.5
/* Words beyond this many per summary are ignored (a cap on input cost). */
#define SIMILAR_MAX_WORDS 256

/* Whether word (lowercase) is a stop word. */
bool similar_is_stop_word(const char *word);

/*
 * The content words of s as a sorted array of distinct new strings; *n gets
 * the count. Free with similar_words_free().
 */
char **similar_words(const char *s, size_t *n);
void similar_words_free(char **words, size_t n);

/* Jaccard similarity of the word sets of a and b. */
double similar_score(const char *a, const char *b);

/*
 * The index of the summary in active[0..n) most similar to s with a score
 * >= threshold (the first on ties), or -1 when none is; *score (if not
 * NULL) gets its score, 0 when none.
 */
long similar_closest(const char *s, const char *const *active, size_t n,
    double threshold, double *score);

#endif

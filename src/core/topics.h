/*
 * topics.h - what agents' prompts are about, and where two agents' work is
 * heading towards the same place (DESIGN §3.4, conformance §5).
 *
 * Pure: no I/O, no clock. A prompt gives up to TOPICS_PER_PROMPT topics:
 * its lowercase content words (letters and digits, three or more
 * characters, stop words and task verbs dropped — core/similar.h), first
 * appearance first. An agent's trajectory keeps the topic sets of its last
 * TOPICS_WINDOW prompts; once it holds TOPICS_MIN_PROMPTS, each topic in
 * it has a class:
 *   deepening  in at least two of the last three prompts, including the
 *              last one;
 *   emerging   in the last prompt and in no earlier prompt of the window;
 *   fading     in the window, but in none of the last three prompts;
 *   stable     any other topic of the window.
 * Two agents converge on a topic when both deepen it, or one deepens what
 * the other is emerging into.
 */
#ifndef AIRSPACE_CORE_TOPICS_H
#define AIRSPACE_CORE_TOPICS_H

#include <stddef.h>

#define TOPICS_PER_PROMPT 8
#define TOPICS_WINDOW 10
#define TOPICS_MIN_PROMPTS 3
#define TOPICS_WORD_MAX 48

enum topic_class {
    TOPIC_NONE = 0, /* not in the window, or too few prompts yet */
    TOPIC_DEEPENING,
    TOPIC_EMERGING,
    TOPIC_FADING,
    TOPIC_STABLE,
};

/* The topics of one prompt. */
struct topic_set {
    char t[TOPICS_PER_PROMPT][TOPICS_WORD_MAX + 1];
    size_t n;
};

void topics_extract(const char *prompt, struct topic_set *out);

/* An agent's last prompts, oldest first. */
struct topic_track {
    struct topic_set p[TOPICS_WINDOW];
    size_t n;
};

void topic_track_init(struct topic_track *t);
void topic_track_add(struct topic_track *t, const struct topic_set *s);
enum topic_class topic_track_class(
    const struct topic_track *t, const char *topic);

/* Topics on which a and b converge, into out (at most TOPICS_PER_PROMPT,
 * in the order of a's last prompt, then the rest of its window). Returns
 * how many. */
size_t topics_converge(const struct topic_track *a, const struct topic_track *b,
    struct topic_set *out);

#endif

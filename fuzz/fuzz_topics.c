/* fuzz_topics.c - prompt topics and the trajectory classes. */
#include <stdlib.h>
#include <string.h>

#include "core/topics.h"
#include "fuzz.h"
#include "util/xalloc.h"
#include "util/banned.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    char *s = xstrndup((const char *)data, size);
    struct topic_track a, b;
    topic_track_init(&a);
    topic_track_init(&b);
    struct topic_set t;
    for (char *line = s; line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl++ = '\0';
        topics_extract(line, &t);
        topic_track_add(t.n % 2 ? &a : &b, &t);
        line = nl;
    }
    struct topic_set out;
    topics_converge(&a, &b, &out);
    free(s);
    return 0;
}

/* fuzz_locks.c - the lock table driven by a byte program: each line
 * "OP AGENT PATTERN" (OP: a acquire, s shared, c claim, r release, x
 * contest, f force, t touch, e expire), time advancing per line. The
 * table's invariant: right after an exclusive grant nobody else holds
 * anything overlapping it (checked on every grant). */
#include <stdlib.h>
#include <string.h>

#include "core/locks.h"
#include "fuzz.h"
#include "util/xalloc.h"
#include "util/banned.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    char *s = xstrndup((const char *)data, size);
    struct lock_table *t = lock_table_new(NULL);
    struct lock_events ev;
    lock_events_init(&ev);
    int64_t now = 0;
    char *save = NULL;
    for (char *line = s; line && *line; line = save) {
        save = strchr(line, '\n');
        if (save)
            *save++ = '\0';
        now += 1000;
        char op = line[0];
        char *agent = line[0] ? strchr(line, ' ') : NULL;
        if (!agent)
            continue;
        *agent++ = '\0';
        char *pat = strchr(agent, ' ');
        if (!pat)
            continue;
        *pat++ = '\0';
        if (!*agent)
            continue;
        struct as_err e;
        struct lock_result res;
        struct lock_request r = { pat, agent,
            op == 's' ? LOCK_SHARED : LOCK_EXCLUSIVE,
            op == 'c' ? LOCK_KIND_CLAIM : LOCK_KIND_LOCK, 5000, NULL,
            op == 'a' };
        switch (op) {
        case 'a':
        case 's':
        case 'c':
            if (lock_table_acquire(t, &r, now, &res, &ev, &e) == 0 &&
                r.mode == LOCK_EXCLUSIVE) {
                /* nobody else may hold anything overlapping it now */
                const struct lock *who = NULL;
                if (lock_table_check_file(t, agent, pat, r.file, LOCK_EXCLUSIVE,
                        now, &who, &e) == AS_ECONFLICT)
                    abort();
            }
            break;
        case 'r':
            lock_table_release(t, agent, pat, now, &ev, &e);
            break;
        case 'x':
            lock_table_contest(t, agent, pat, now, NULL, &ev, &e);
            break;
        case 'f':
            lock_table_force_release(t, agent, pat, now, false, &ev, &e);
            break;
        case 't':
            lock_table_touch(t, agent, pat, now, &ev, &e);
            break;
        case 'e':
            lock_table_expire(t, now, &ev);
            break;
        default:
            break;
        }
        lock_events_clear(&ev);
    }
    lock_events_release(&ev);
    lock_table_free(t);
    free(s);
    return 0;
}

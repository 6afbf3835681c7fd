/*
 * progress.c - a long command's progress on stderr (progress.h).
 */
#include "cli/progress.h"

#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/banned.h"

void
progress_draw(struct progress_line *p, size_t done, size_t total)
{
    double now = clock_mono_ms();
    bool tty = isatty(STDERR_FILENO);
    /* done before anything was shown: nothing to tell; else at most one
     * line per interval, and always the last */
    if ((!p->width && done == total) ||
        (p->width && done < total && now - p->last_ms < (tty ? 100 : 1000)))
        return;
    p->last_ms = now;
    if (!tty) {
        p->width = -1;
        fprintf(stderr, "%s %zu/%zu %s\n", p->what, done, total, p->unit);
        return;
    }
    int n = fprintf(stderr, "\r%s %zu/%zu %s", p->what, done, total, p->unit);
    if (n > p->width)
        p->width = n;
}

void
progress_erase(struct progress_line *p)
{
    if (p->width > 0)
        fprintf(stderr, "\r%*s\r", p->width, "");
}

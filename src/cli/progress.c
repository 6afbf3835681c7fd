/*
 * progress.c - a long command's progress on stderr (progress.h).
 */
#include "cli/progress.h"

#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/banned.h"

int
progress_draw(void *ctx, size_t done, size_t total)
{
    struct progress_line *p = ctx;
    double now = clock_mono_ms();
    bool tty = isatty(STDERR_FILENO);
    /* done before anything was shown: nothing to tell; else at most one
     * line per interval, and always the last */
    if ((!p->width && done == total) ||
        (p->width && done < total && now - p->last_ms < (tty ? 100 : 1000)))
        return 0;
    p->last_ms = now;
    if (!tty) {
        p->width = -1;
        fprintf(stderr, "%s %zu/%zu %s\n", p->what, done, total, p->unit);
        return 0;
    }
    int n = fprintf(stderr, "\r%s %zu/%zu %s", p->what, done, total, p->unit);
    if (n > p->width)
        p->width = n;
    return 0;
}

void
progress_erase(struct progress_line *p)
{
    if (p->width > 0)
        fprintf(stderr, "\r%*s\r", p->width, "");
}

/*
 * progress.h - a long command's progress on stderr: "airspace scan:
 * indexing 3120/9600 files", "airspace replay: 812/1709 merges".
 *
 * On a terminal the line is drawn in place at most every 100 ms and erased
 * at the end; into a file or a pipe (when asked for, --progress) it is a
 * line a second and the last one. Nothing is drawn when the work is done
 * before the first step was shown.
 */
#ifndef AIRSPACE_CLI_PROGRESS_H
#define AIRSPACE_CLI_PROGRESS_H

#include <stddef.h>

#include "lang/repograph.h"

struct progress_line {
    const char *what; /* "airspace scan: indexing" */
    const char *unit; /* "files" */
    double last_ms;
    int width; /* of the line drawn; 0: none yet, -1: lines, nothing to erase */
};

/* Show done of total (the first call may come with done 0); ctx is a
 * struct progress_line. Returns 0 (never stops the work it is told of). */
repograph_progress_fn progress_draw;

/* Erase the line drawn on a terminal, if any. */
void progress_erase(struct progress_line *p);

#endif

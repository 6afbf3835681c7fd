/*
 * records.h - streaming reader of recorded merge histories.
 *
 * Reads the JSON Lines format of data/merges/README.md (plain or gzip, one
 * merge per line) one record at a time; the file is never loaded whole and a
 * line longer than RECORDS_MAX_LINE is refused. Each side's full and half-way
 * working sets are converted to base coordinates:
 *
 *   hunk [start, end, added], end > start   ->  lines [start, end - 1]
 *   hunk [start, start, added] (insertion)  ->  [k, k], k = max(start - 1, 1)
 *                                               (the base line it follows,
 *                                               1 at the top; intervals.h)
 *   status M, R                               ranges as above (R: the ranges
 *                                               and rec_file.path refer to
 *                                               old_path; new_path is kept)
 *   status A, D, T, or binary                 whole file, no ranges
 *   status C (copy)                           an added file at its new path,
 *                                               whole: copying leaves the
 *                                               base file unchanged
 *
 * Ranges of one file are sorted and merged (touching ranges joined). Each
 * file carries the commit time of the latest commit of its side that lists
 * it (by new or old path) at or before the working set's time: the tip's
 * time for the full set, half.ct for the half-way set; 0 when no such commit
 * lists it (it arrived through a merge commit).
 *
 * Ownership: a record owns everything it points to; record_release() frees
 * it. The reader owns its file handle and line buffer.
 */
#ifndef AIRSPACE_EVAL_RECORDS_H
#define AIRSPACE_EVAL_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/intervals.h"
#include "util/error.h"

#define RECORDS_MAX_LINE (64u << 20) /* bytes per JSON line */

struct rec_file {
    char *path;     /* base path (old_path for R) */
    char *new_path; /* R: path after the rename; else NULL */
    char status;    /* 'M', 'A', 'D', 'R', 'C', 'T' as recorded */
    bool binary;
    bool whole;           /* no line ranges: the whole file counts */
    struct range *ranges; /* sorted, disjoint, base coordinates */
    size_t nranges;
    int64_t changed_ct; /* seconds; 0 = unknown */
};

struct rec_ws {
    struct rec_file *files; /* sorted by path, unique paths */
    size_t n;
};

struct rec_side {
    uint32_t n_commits;
    uint32_t half_commits; /* commits in the half-way working set's history:
                              half.n_included, else half.k, else
                              ceil(n_commits / 2) */
    int64_t tip_ct;        /* committer time of the side's tip */
    int64_t first_ct;      /* earliest committer time of the side's commits (the
                              tip's when 'commits' is empty) */
    int64_t half_ct;       /* committer time of the half-way commit */
    struct rec_ws ws, half;
    /* optional checkpoints before the tip ('steps', oldest first): the
     * working set after step_commits[i] commits, at step_ct[i] */
    struct rec_ws *steps;
    int64_t *step_ct;
    uint32_t *step_commits;
    size_t nsteps;
};

struct record {
    size_t line; /* 1-based line number in the file */
    char *merge; /* sha of the merge commit */
    char *repo;  /* may be NULL */
    bool mainline;
    bool conflicted;
    int64_t merge_ct;
    struct rec_side side[2];
    char **conflicted_paths; /* sorted */
    size_t nconflicted;
};

void record_release(struct record *r);

/* Find path in a working set (binary search); NULL when absent. */
const struct rec_file *rec_ws_find(const struct rec_ws *ws, const char *path);

/*
 * Parse one JSON line of len bytes into *out (initialised here). On failure
 * returns AS_EPARSE with a message naming what is wrong (no line number) and
 * leaves *out empty.
 */
int record_parse(
    const char *text, size_t len, struct record *out, struct as_err *err);

struct records_reader;

/* Open path (gzip or plain); returns NULL and fills err on failure. */
struct records_reader *records_open(const char *path, struct as_err *err);

/*
 * Read the next record into *out. Returns 1 for a record, 0 at the end,
 * AS_EPARSE for a malformed line or AS_ETOOBIG for an overlong one (the
 * message starts with "line N: "; the reader stays usable and the next call
 * reads the following line), AS_EIO on a read error.
 */
int records_next(
    struct records_reader *rd, struct record *out, struct as_err *err);

/* Lower the line cap (rounded up to a power of two, at least 64), for tests. */
void records_set_max_line(struct records_reader *rd, size_t max);

void records_close(struct records_reader *rd);

#endif

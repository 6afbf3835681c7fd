/*
 * forward.h - the forward channel: whether two agents will come to change
 * the same path, judged from the repository's own past merges, for pairs
 * that share nothing yet.
 *
 * Pure: no I/O, no clock. The caller reads the past (the merges reachable
 * from the integration branch before the moment scored, src/git/forward.c)
 * and passes each merge's two sides as the paths each changed. From those
 * n merges, for a path p
 *   s(p) = (sides that changed p) / (2n + 2)
 * (changelogs, AUTHORS, registries and lock files that most branches end
 * up touching score high) and F, the median number of paths a side
 * changed. For agents a and b, an agent x that changed f_x paths touches p
 * by the end of its work with
 *   P_x(p) = 1 if x changed p, else 1 - (1 - s(p))^(f_x / F)
 * (a larger working set reaches more of the paths many branches touch),
 * and
 *   r_forward = 1 - prod (1 - P_a(p) P_b(p))
 * over the paths with s(p) >= min_rate that not both changed already (a
 * shared path is the overlap and merge channels' business).
 * docs/risk-model.md, "Forward".
 */
#ifndef AIRSPACE_CORE_FORWARD_H
#define AIRSPACE_CORE_FORWARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/workset.h"
#include "util/strmap.h"

/* Paths below this rate are not kept in a table at all (the floor of
 * forward.min_rate: a table stays small). */
#define FORWARD_KEEP_MIN 0.01

/* One side of a past merge: the paths it changed (borrowed; repeats are
 * counted once). ids, when not NULL, numbers each path in a dictionary
 * shared by every side passed to a build (the same path the same number,
 * numbers from 0): the build then counts by number, not by name. */
struct forward_side {
    const char *const *paths;
    size_t n;
    const uint32_t *ids;
};

/* A past merge: its two sides. */
struct forward_merge {
    struct forward_side side[2];
};

struct forward_table {
    char **paths; /* by rate, highest first */
    double *rate;
    size_t n;
    struct strmap ids;  /* path -> index */
    uint32_t merges;    /* past merges it was built from */
    double median_side; /* F, >= 1 */
};

void forward_table_init(struct forward_table *t);
void forward_table_release(struct forward_table *t);

/* Counting space for builds by number, kept by the caller from one build to
 * the next: a build costs what its merges hold, not the dictionary's size. */
struct forward_counts;
struct forward_counts *forward_counts_new(void);
void forward_counts_free(struct forward_counts *c);

/* Build t (released first) from n past merges. With counts (not NULL)
 * every side carries ids (struct forward_side); the table is the same. */
void forward_table_build(struct forward_table *t, const struct forward_merge *m,
    size_t n, struct forward_counts *counts);

/* s(path), 0 for a path not in t. */
double forward_rate(const struct forward_table *t, const char *path);

/* r_forward of a and b (files sorted by path, as working sets are) over
 * the paths with s >= min_rate; 0 when t is NULL or empty. */
double forward_meet(const struct forward_table *t, const struct agent *a,
    const struct agent *b, double min_rate);

/* What one agent reaches of a table, worked out once for all its pairs:
 * for each of the table's paths with s >= min_rate, in the table's order,
 * P_x(p) and whether x changed p. forward_reach_meet() of two agents'
 * reaches equals forward_meet() of the two, to the bit; a crowd of n
 * agents then costs n reaches and a product per pair instead of two
 * path look-ups and two powers per pair and path. */
struct forward_reach {
    double *p;
    bool *had;
    size_t n;
};

/* fr (owned; forward_reach_release) for agent a; empty when t is NULL. */
void forward_reach_init(struct forward_reach *fr, const struct forward_table *t,
    const struct agent *a, double min_rate);
void forward_reach_release(struct forward_reach *fr);
/* r_forward from two reaches of one table at one min_rate. */
double forward_reach_meet(
    const struct forward_reach *a, const struct forward_reach *b);

#endif

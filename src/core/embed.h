/*
 * embed.h - a deterministic 3-D position for every file of the import graph,
 * for the dashboard's file cloud.
 *
 * Pure: no I/O, no randomness beyond a fixed hash, a fixed number of rounds;
 * the same graph (same ids, paths and edges) and config give bit-identical
 * output on every run. Positions come from the path: every leading directory
 * contributes a hashed direction whose length shrinks with depth, so files
 * of one directory cluster together and nested directories nest inside
 * their parent's cluster. Then a few rounds of smoothing pull each file
 * toward the files it imports and that import it, anchored to its path
 * position so the layout never collapses.
 */
#ifndef AIRSPACE_CORE_EMBED_H
#define AIRSPACE_CORE_EMBED_H

#include "core/graph.h"

struct embed_config {
    unsigned rounds; /* smoothing rounds (0: path positions only) */
    double pull;     /* weight of the neighbours' mean per round, [0, 1] */
    double radius;   /* length of a top-level component's step */
    double shrink;   /* step length ratio per level deeper, (0, 1) */
};

/* rounds 6, pull 0.3, radius 100, shrink 0.4. */
void embed_config_default(struct embed_config *c);

/*
 * Write x, y, z of file id i at xyz[3i .. 3i+2]; xyz holds 3 * g->nfiles
 * floats, owned by the caller. c may be NULL for the defaults.
 */
void embed_layout(
    const struct graph *g, const struct embed_config *c, float *xyz);

#endif

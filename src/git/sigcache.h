/*
 * sigcache.h - similarity signatures kept across diffs and merges.
 *
 * Rename detection (git_diff_find_similar, git_merge_trees) computes a
 * similarity signature for every added and removed file, reading and
 * hashing its whole content, and forgets it when the call returns. A walk
 * that diffs many trees against one base (replay: every commit of a side)
 * asks for the same blobs' signatures over and over. A cache in use on the
 * calling thread hands them out again, keyed by blob id and the signature's
 * options: the metric it supplies computes exactly what libgit2's built-in
 * metric computes (git_hashsig_create with the same options, the same
 * error for a file too small), so renames found are the same. It also
 * keeps each comparison's score (git_hashsig_compare of two signatures it
 * handed out, a byte per pair, against its first 8192 signatures): rename
 * detection compares the same added and deleted files again whenever a
 * commit changes the set of them.
 *
 * Ownership: sigcache_new() returns a cache freed with sigcache_free();
 * sigcache_use() makes it the calling thread's (one thread at a time).
 * Signatures handed out live until sigcache_clear() or sigcache_free(),
 * which must not run while a diff or merge of that thread is in progress.
 */
#ifndef AIRSPACE_GIT_SIGCACHE_H
#define AIRSPACE_GIT_SIGCACHE_H

#include <git2.h>

struct sigcache;

struct sigcache *sigcache_new(void);
void sigcache_clear(struct sigcache *c);
void sigcache_free(struct sigcache *c);

/* The calling thread's diffs and merges use c from now on (NULL: none). */
void sigcache_use(struct sigcache *c);

enum sigcache_for {
    SIGCACHE_DIFF,  /* git_diff_find_options.metric (no whitespace flags) */
    SIGCACHE_MERGE, /* git_merge_options.metric */
};

/* The metric to set in those options, or NULL (libgit2's own) when the
 * calling thread uses no cache. */
git_diff_similarity_metric *sigcache_metric(enum sigcache_for f);

#endif

/*
 * workset.h - agents and their working sets, as the risk engine sees them.
 *
 * Pure data: filled by the git layer (src/git), by `scan --agents` (src/cli)
 * or later by the daemon. An agent owns its files, a file owns its path and
 * its range set. Times are milliseconds since the Unix epoch, passed in; this
 * module never reads a clock.
 */
#ifndef AIRSPACE_CORE_WORKSET_H
#define AIRSPACE_CORE_WORKSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/intervals.h"

enum ws_status {
    WS_MODIFIED = 0, /* text change with line ranges */
    WS_ADDED,        /* new file (whole file) */
    WS_DELETED,      /* removed (whole file) */
    WS_RENAMED,      /* path is the old (base) path; whole file */
    WS_BINARY,       /* binary content change (whole file) */
    WS_MODE,         /* mode-only change (whole file) */
};

/* Name used in JSON and tables ("modified", "added", ...). */
const char *ws_status_name(enum ws_status s);
/* Parse a status name; returns 0 or -1 when unknown. */
int ws_status_parse(const char *name, enum ws_status *out);
/* Whether a status means the whole file is affected (oc = 1). */
bool ws_status_whole(enum ws_status s);

/* A symbol name the agent's own version of a file uses or defines beyond
 * its base version, at a line of that version. */
struct ws_name {
    char *name;
    uint32_t line;
};

struct ws_file {
    char *path;     /* normalised repository-relative path, in base naming */
    char *new_path; /* WS_RENAMED: the path in the agent's tree; else NULL */
    enum ws_status status;
    bool whole;              /* no line ranges known: the whole file counts */
    struct range_set ranges; /* changed lines, base coordinates, 1-based;
                                pure insertions marked (intervals.h) */
    int64_t changed_at_ms;   /* when the agent last changed it; 0 = unknown */
    double weight;           /* recency weight w in (0,1]; set by caller */
    uint32_t added_lines, deleted_lines; /* diff stats, for right of way */

    /* Filled when the agent's content was parsed (src/lang): uses of names
     * its version adds, and definitions it adds. The symbol channel treats
     * them as changed-line uses and changed definitions; the base graph
     * cannot know either. */
    struct ws_name *new_uses, *new_defs;
    size_t nnew_uses, anew_uses, nnew_defs, anew_defs;
    /* Whether that parse happened: the names above are then all the agent's
     * version adds (for a file the base graph lacks: all it uses). */
    bool parsed;
    /* Files its version imports that the base version's edges do not reach
     * directly (normalised repository paths; one of the agent's own added
     * files, or a base file). The dependency and symbol channels add them,
     * as edges from this file, to this agent's view of the graph only. */
    char **new_imports;
    size_t nnew_imports, anew_imports;
};

enum agent_kind {
    AGENT_AGENT = 0,
    AGENT_HUMAN = 1,
};

struct agent {
    char *id;
    enum agent_kind kind;
    char *label;              /* may be NULL */
    char *worktree;           /* absolute worktree path, may be NULL */
    char *branch;             /* may be NULL */
    int64_t started_at_ms;    /* 0 = unknown */
    uint32_t commits_ahead;   /* commits from base to HEAD */
    uint32_t committed_lines; /* changed lines in those commits */
    char *tree_oid; /* hex id of a tree of its current work, or NULL */
    char *base_oid; /* hex id of its base commit, or NULL */
    /* Paths where its work conflicts with what the integration branch
     * changed after its own base: found when git/align.h moved it onto a
     * newer base (and settled there for it); sorted, unique. */
    char **onto_conflicts;
    size_t nonto_conflicts;

    struct ws_file *files; /* sorted by path, unique paths */
    size_t nfiles, afiles;

    char **intent; /* globs or paths it declared; may be empty */
    size_t nintent, aintent;
};

void agent_init(struct agent *a, const char *id);
void agent_release(struct agent *a);
/* Free what one file entry owns (agent_release does it for each file). */
void ws_file_release(struct ws_file *f);

/*
 * Add a file (copying path) and return it for the caller to fill; a path
 * already present returns the existing entry. Keep calling agent_sort() after
 * adding files in bulk.
 */
struct ws_file *agent_add_file(
    struct agent *a, const char *path, enum ws_status status);

/* agent_add_file() for a path the caller knows a does not hold: appended
 * without looking (a working set of thousands of files built one file at
 * a time would compare every path with every other). */
struct ws_file *agent_append_file(
    struct agent *a, const char *path, enum ws_status status);

/* Sort files by path and merge duplicates (ranges unioned). */
void agent_sort(struct agent *a);
void agent_add_intent(struct agent *a, const char *glob);

/* Whether a's and b's working sets share a path (in base or new naming), or
 * one has a file where the other has a directory ("d" and "d/x"), or one
 * adds a file under a directory the other renamed or deleted a file out
 * of (git may move it: a directory rename; a move too large for rename
 * detection shows as deletions): only then can a merge of their work
 * conflict. a and b must be sorted. */
bool agent_shares_path(const struct agent *a, const struct agent *b);

/* Record a name the agent's version uses (def false) or defines (def true)
 * beyond the base version; the name is copied. */
void ws_file_add_name(
    struct ws_file *f, bool def, const char *name, size_t len, uint32_t line);

/* Record a file the agent's version imports beyond the base version's edges
 * (copied; a path already recorded is not added twice). */
void ws_file_add_import(struct ws_file *f, const char *path);

#endif

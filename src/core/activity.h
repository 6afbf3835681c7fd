/*
 * activity.h - per-agent file activity, merged as a CRDT.
 *
 * Pure: no I/O, no clock; times are ms arguments. For every file and every
 * agent the table keeps one entry: heat, whether the file is in the agent's
 * context, its last action on the file (read < search < write) and when.
 * Only the agent itself writes its entries (through deltas from one of its
 * sessions), so each (file, agent) entry is a last-writer-wins register and
 * the table is a state-based CRDT:
 *
 *   - a delta replaces the entry when it is newer by (at, session, seq,
 *     then its contents) - a total order, so applying deltas in any order,
 *     any number of times, gives the same table (commutative, associative,
 *     idempotent; activity_merge joins two tables the same way);
 *   - a closed session (activity_disconnect) is a tombstone: the entries it
 *     wrote are gone and its late deltas are ignored, whenever they arrive.
 *
 * The merged view of a file: heat = max over agents, in_context = OR, the
 * last action = the entry with the latest action time, ties broken by the
 * stronger action (write > search > read) and then by the smaller agent id
 * - never by arrival order.
 *
 * Sequence numbers. Each session numbers its deltas 1, 2, 3, ... The table
 * reports a delta that skips numbers (ACTIVITY_GAP) so the daemon can ask
 * the agent for a snapshot (activity_resync); the delta is applied anyway.
 * Old or repeated numbers are applied too (idempotent) and reported as
 * ACTIVITY_DUPLICATE.
 *
 * Ownership: the table copies every string; views borrow strings that live
 * until the table is changed or freed. Not thread-safe.
 */
#ifndef AIRSPACE_CORE_ACTIVITY_H
#define AIRSPACE_CORE_ACTIVITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* Heat above this is refused as nonsense input. */
#define ACTIVITY_HEAT_MAX 1e6

enum activity_action {
    ACTIVITY_NONE = 0, /* no action recorded yet */
    ACTIVITY_READ,
    ACTIVITY_SEARCH,
    ACTIVITY_WRITE,
};

/* "none", "read", "search", "write"; "?" out of range. */
const char *activity_action_name(enum activity_action a);

/* One agent's state for one file. */
struct activity_entry {
    double heat; /* >= 0 */
    bool in_context;
    enum activity_action action; /* the last action */
    int64_t action_at;           /* ms of the last action */
    int64_t at;                  /* ms of this state (its version) */
};

/* One update from an agent's session: the agent's full entry for a file. */
struct activity_delta {
    const char *agent;
    const char *session;
    uint64_t seq; /* 1, 2, 3, ... per session */
    const char *file;
    struct activity_entry e;
};

enum activity_status {
    ACTIVITY_APPLIED = 0, /* the next number of its session */
    ACTIVITY_GAP,         /* numbers were skipped: ask for a snapshot */
    ACTIVITY_DUPLICATE,   /* an old or repeated number (merged anyway) */
    ACTIVITY_CLOSED,      /* its session was disconnected: ignored */
};

/* The merged view of one file. */
struct activity_view {
    double heat;
    bool in_context;
    enum activity_action action; /* ACTIVITY_NONE when nobody acted */
    int64_t action_at;
    const char *agent; /* who did the last action; NULL when none */
    size_t nagents;    /* agents with an entry for the file */
};

/* The table; opaque. */
struct activity;

struct activity *activity_new(void);
void activity_free(struct activity *t);

/*
 * Apply one delta. Returns an activity_status, or AS_EINVAL (message in e)
 * for an empty agent, session or file, seq 0, a heat that is negative, NaN
 * or above ACTIVITY_HEAT_MAX, an unknown action, or a session that belongs
 * to another agent; invalid deltas change nothing.
 */
int activity_apply(
    struct activity *t, const struct activity_delta *d, struct as_err *e);

/*
 * Close agent's session: remove the entries it wrote and ignore its later
 * deltas (a tombstone, so the order against its deltas does not matter).
 * Entries the agent wrote from other, still open sessions stay.
 */
void activity_disconnect(
    struct activity *t, const char *agent, const char *session);

/*
 * Replace everything agent's session has written with a snapshot: n files
 * and their entries, current as of sequence number seq (the session's
 * numbering continues from there). Returns AS_EINVAL as activity_apply,
 * changing nothing.
 */
int activity_resync(struct activity *t, const char *agent, const char *session,
    uint64_t seq, const char *const *files,
    const struct activity_entry *entries, size_t n, struct as_err *e);

/* Join src into dst (entries by version, sessions' closures and numbers). */
void activity_merge(struct activity *dst, const struct activity *src);

/*
 * The merged view of file at now_ms, heats decayed with half_life_ms
 * (activity_decay from each entry's time; 0 = no decay). Returns false (and
 * a zero view) when no agent has an entry for the file.
 */
bool activity_view(const struct activity *t, const char *file, int64_t now_ms,
    int64_t half_life_ms, struct activity_view *out);

/* agent's own entry for file, if any. */
bool activity_get(const struct activity *t, const char *file, const char *agent,
    struct activity_entry *out);

/* Files that have ever had an entry (index 0 .. activity_nfiles - 1);
 * names are borrowed. A file whose entries were all removed stays listed
 * and has no view. */
size_t activity_nfiles(const struct activity *t);
const char *activity_file(const struct activity *t, size_t i);

/*
 * heat * 2^(-elapsed / half_life): the heat left after elapsed_ms. No decay
 * when elapsed_ms <= 0 or half_life_ms <= 0.
 */
double activity_decay(double heat, int64_t elapsed_ms, int64_t half_life_ms);

#endif

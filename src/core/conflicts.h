/*
 * conflicts.h - the conflict detector: discrete conflicts between agents and
 * the notices and escalations they produce.
 *
 * Pure: no I/O, no clock, no randomness; time comes in as now_ms. The daemon
 * feeds it facts (agents' lanes, intents, modified files, speculative merge
 * results, the ownership table) and delivers what it appends to a
 * caller-provided struct conflict_msgs: notices to agents and escalations to
 * the supervisor inbox, all sent from the supervisor identity.
 *
 * Shapes (a conflict is a shape, a pair and a file):
 *   forward    two agents' live intents share a file (glob overlap,
 *              glob_overlap), subject to their regions (below);
 *   in-flight  a file one agent modified is also modified by another agent
 *              or lies inside another agent's live intent;
 *   committed  the daemon reports that a speculative merge of two agents'
 *              work conflicts on paths (conflicts_report_merge);
 *   ownership  an agent modified a file inside another agent's live intent
 *              (when it declared no intent of its own on that file, and
 *              began changing it after that intent was declared) or lane,
 *              or owned by others in the ownership file (core/owners.h),
 *              and it is not an owner itself. Keyed (violator, file);
 *   integration the daemon reports that an agent's work conflicts with what
 *              the integration branch changed after the agent's base
 *              (conflicts_report_integration). Keyed (agent, branch, file):
 *              b is the branch's name, not an agent.
 * A file "modified" by an agent is in the full list last given to
 * conflicts_set_modified for it (its working set).
 *
 * Notices. Each conflict is reported once while it lasts: forward, in-flight
 * and committed to BOTH agents, ownership and integration to the one agent.
 * Every text starts with "[conflict] " and every message comes from the
 * supervisor id. A conflict is dropped as soon as its facts no longer hold (an
 * intent expired or was dropped, a file left a working set, a merge came back
 * clean); if it comes back later it is reported again.
 * Re-publishing an intent that leaves the agent's set of intended files
 * unchanged does not re-warn; publishing one that changes it clears the
 * forward dedup of every pair that agent is in, so live overlaps are
 * reported again with the new plan.
 *
 * Absence. An agent that leaves for a while (conflicts_agent_leave: it went
 * stale or exited) takes its facts with it, but the conflicts it was told
 * are held, not dropped: neither listed nor escalated nor told. When it is
 * back (conflicts_agent_back, after it was told again whole) a held
 * conflict found again goes on as it was (its since and escalation kept,
 * not told again); one not found again has ended. A committed conflict is
 * settled by the pair's next merge report instead, and a conflict whose
 * other agent is still away waits for that one's return.
 *
 * Regions. An intent may name regions per file: a function/class name or a
 * line range. Names are normalised (conflicts_region_name_normalize). For
 * two intents on one file: no regions on either side -> conflict (whole
 * file); same normalised name -> conflict; overlapping line ranges ->
 * conflict on the overlap; a name against a line range -> conflict, with a
 * hint that it cannot be told apart (conservative); otherwise (distinct
 * names, disjoint ranges) -> no forward conflict.
 *
 * Escalation. An in-flight or committed conflict still present window_ms
 * after it began is escalated ONCE to the supervisor (on the first
 * conflicts_tick at or after that time), unless it is additive: both agents
 * declared regions for the file in their live intents and those regions are
 * disjoint. An additive in-flight conflict gets an "additive" notice instead
 * of the in-flight one and is never escalated. Ownership conflicts are
 * escalated at once when escalate_ownership is set; forward and integration
 * conflicts never (bringing its branch up to date is the agent's own work).
 *
 * Expiry. An intent is live while now_ms < expires_at. Expired intents take
 * part in nothing, even before a call notices and removes them.
 *
 * The supervisor. Facts about the supervisor id itself (its intents,
 * modified files, lanes) are ignored: the detector never reacts to its own
 * identity.
 *
 * Ownership. The detector copies every string and array it is given.
 * Messages and list entries are owned by their lists. Not thread-safe.
 */
#ifndef AIRSPACE_CORE_CONFLICTS_H
#define AIRSPACE_CORE_CONFLICTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/owners.h"
#include "util/error.h"

#define CONFLICTS_DEFAULT_WINDOW_MS 120000
#define CONFLICTS_DEFAULT_SUPERVISOR "supervisor"
#define CONFLICTS_TAG "[conflict]"

enum conflict_shape {
    CONFLICT_FORWARD = 0,
    CONFLICT_IN_FLIGHT,
    CONFLICT_COMMITTED,
    CONFLICT_OWNERSHIP,
    CONFLICT_INTEGRATION,
};

/* "forward", "in-flight", "committed", "ownership", "integration"; "?" out
 * of range. */
const char *conflict_shape_name(enum conflict_shape s);

struct conflicts_config {
    int64_t window_ms;       /* in-flight/committed escalation delay (> 0) */
    const char *supervisor;  /* the supervisor identity and inbox */
    bool warn_forward;       /* notices for forward conflicts (default on) */
    bool escalate_ownership; /* escalate ownership conflicts (default on) */
    bool escalate_committed; /* committed conflicts escalate after window
                                (default on) */
};

/* Fill c with the defaults above. */
void conflicts_config_init(struct conflicts_config *c);

/*
 * A region of an intent on one file: a name (function, class, ...) when name
 * is not NULL, else the inclusive line range [start, end] (either order,
 * 1-based).
 */
struct conflict_region {
    const char *name;
    uint32_t start, end;
};

/* One file (path or glob) of an intent, with its regions (none = whole). */
struct conflict_intent_file {
    const char *path;
    const struct conflict_region *regions;
    size_t nregions;
};

/* An intent as the daemon gives it. */
struct conflict_intent {
    uint64_t id; /* unique among intents; a put with a known id replaces */
    const char *agent;
    const struct conflict_intent_file *files;
    size_t nfiles;
    const char *summary; /* may be NULL */
    int64_t created_at;  /* ms it was declared; 0: now (a put with a known
                            id keeps the first put's) */
    int64_t expires_at;  /* ms; live while now < expires_at */
};

/* One message to deliver. All strings owned by the list. */
struct conflict_msg {
    bool escalation; /* to the supervisor inbox rather than an agent */
    char *to;        /* recipient agent id, or the supervisor id */
    char *from;      /* always the supervisor id */
    enum conflict_shape shape;
    char *a, *b; /* the pair (a < b), or violator a and owner b, or the
                    agent a and the integration branch b */
    char *file;
    bool additive; /* an in-flight overlap in disjoint declared regions */
    char *text;    /* starts with "[conflict] " */
};

struct conflict_msgs {
    struct conflict_msg *v;
    size_t n, alloc;
};

void conflict_msgs_init(struct conflict_msgs *m);
/* Drop every message, keeping the storage. */
void conflict_msgs_clear(struct conflict_msgs *m);
void conflict_msgs_release(struct conflict_msgs *m);

/* A current conflict, for `airspace conflicts`. Strings owned by the list. */
struct conflict_view {
    enum conflict_shape shape;
    char *a, *b; /* the pair (a < b); for ownership the violator a and an
                    owner b (agent id, or an owner from the owners file) */
    char *file;
    char *why;     /* region detail or hint; NULL when none */
    int64_t since; /* ms when it was first seen */
    bool additive;
    bool escalated;
};

struct conflict_list {
    struct conflict_view *v;
    size_t n, alloc;
};

void conflict_list_init(struct conflict_list *l);
void conflict_list_release(struct conflict_list *l);

/* The detector; opaque. */
struct conflicts;

/* A new detector with a copy of config c (NULL: defaults). Free with
 * conflicts_free(). */
struct conflicts *conflicts_new(const struct conflicts_config *c);
void conflicts_free(struct conflicts *d);

/*
 * Register or update an agent: its label (may be NULL) and lanes. A lane is
 * a path or glob it owns ("src/db", "*.sql") or "@name", a lane the
 * ownership file may name as an owner; the agent also owns what the
 * ownership file gives its id or label. Agents are also created implicitly by
 * the other calls. Returns AS_EINVAL (message in e) for an empty id or a bad
 * glob, changing nothing. Re-evaluates; messages go to out (NULL discards).
 */
int conflicts_agent_set(struct conflicts *d, const char *id, const char *label,
    const char *const *lanes, size_t nlanes, int64_t now_ms,
    struct conflict_msgs *out, struct as_err *e);

/*
 * Forget an agent: its intents, files, lanes, merges and conflicts (held
 * ones too). Sends nothing; a conflict that only now appears is reported
 * by the next call that takes a message list.
 */
void conflicts_agent_remove(
    struct conflicts *d, const char *id, int64_t now_ms);

/*
 * The agent left for a while: its intents, files, lanes, label and merges
 * are forgotten as by conflicts_agent_remove, but the conflicts it was told
 * are held (see Absence) until conflicts_agent_back. Until then its intents
 * put again are what it had, not a new plan. Sends nothing.
 */
void conflicts_agent_leave(struct conflicts *d, const char *id, int64_t now_ms);

/*
 * The agent that left is back and was told again whole (conflicts_agent_set,
 * its intents, conflicts_set_modified, conflicts_report_integration): each
 * of its held conflicts not found again meanwhile ends, except committed
 * ones and those with another agent still away. No-op for an agent that did
 * not leave. Re-evaluates.
 */
void conflicts_agent_back(struct conflicts *d, const char *id, int64_t now_ms,
    struct conflict_msgs *out);

/*
 * Replace the ownership table (takes ownership of o; NULL for none).
 * Re-evaluates.
 */
void conflicts_set_owners(struct conflicts *d, struct owners *o, int64_t now_ms,
    struct conflict_msgs *out);

/*
 * Add an intent, or replace the one with the same id. Paths must be
 * normalised (util/path.h). Returns AS_EINVAL for an empty agent, a bad
 * glob, an empty region name or a zero line, changing nothing. An intent of
 * the supervisor is accepted and ignored. Re-evaluates.
 */
int conflicts_intent_put(struct conflicts *d, const struct conflict_intent *in,
    int64_t now_ms, struct conflict_msgs *out, struct as_err *e);

/* Remove an intent by id (no-op when unknown). Re-evaluates. */
void conflicts_intent_drop(struct conflicts *d, uint64_t id, int64_t now_ms,
    struct conflict_msgs *out);

/*
 * Set the full current list of files agent has modified (normalised paths;
 * duplicates ignored; n == 0 clears). Re-evaluates.
 */
void conflicts_set_modified(struct conflicts *d, const char *agent,
    const char *const *paths, size_t n, int64_t now_ms,
    struct conflict_msgs *out);
/* conflicts_set_modified, the paths not in the agent's list yet taken to
 * have begun at since_ms (INT64_MIN: at a time not known, before any
 * intent: they trespass on none) instead of now_ms. */
void conflicts_set_modified_since(struct conflicts *d, const char *agent,
    const char *const *paths, size_t n, int64_t since_ms, int64_t now_ms,
    struct conflict_msgs *out);

/*
 * Report the latest speculative merge of agents a and b: the full list of
 * conflicting paths (n == 0: the merge is clean, committed conflicts of the
 * pair end, held ones too when neither is away). Re-evaluates.
 */
void conflicts_report_merge(struct conflicts *d, const char *a, const char *b,
    const char *const *paths, size_t n, int64_t now_ms,
    struct conflict_msgs *out);

/*
 * Report where agent's work conflicts with what the integration branch
 * (named branch, for the notice) changed after the agent's base: the full
 * list of paths (n == 0: none any more, its integration conflicts end).
 * Re-evaluates, unless the paths and the branch are those it had.
 */
void conflicts_report_integration(struct conflicts *d, const char *agent,
    const char *branch, const char *const *paths, size_t n, int64_t now_ms,
    struct conflict_msgs *out);

/*
 * Advance time: retire expired intents, drop conflicts whose facts ended,
 * and escalate in-flight/committed conflicts older than the window.
 */
void conflicts_tick(
    struct conflicts *d, int64_t now_ms, struct conflict_msgs *out);

/*
 * Append the current conflicts at now_ms to l (copies; held ones are not
 * current), ordered by shape, pair and file. Retires expired intents and drops
 * ended conflicts first; it sends nothing, so a conflict that only now appears
 * is left for the next call that takes a message list.
 */
void conflicts_list(
    struct conflicts *d, int64_t now_ms, struct conflict_list *l);

/*
 * Normalise a region name for comparison: lowercase; a trailing "()" and a
 * leading "fn", "def", "function" or "class" keyword dropped; every run of
 * spaces, '_' and '-' made one '_' and trimmed at both ends. "fn
 * Parse-Config()" and "parse_config" are the same name. Returns a new
 * string (free with free()); "" when nothing is left.
 */
char *conflicts_region_name_normalize(const char *name);

enum conflict_region_rel {
    CONFLICT_REGIONS_DISJOINT = 0, /* distinct names, disjoint ranges */
    CONFLICT_REGIONS_WHOLE,        /* a side has no regions: whole file */
    CONFLICT_REGIONS_SAME_NAME,    /* both name the same region */
    CONFLICT_REGIONS_LINES,        /* line ranges overlap */
    CONFLICT_REGIONS_UNSURE,       /* a name against a line range */
};

/*
 * How two region lists on one file relate (the strongest relation of any
 * pair: same name or line overlap, then unsure, then disjoint). Writes a
 * short human detail into buf (may be NULL): the shared name, the overlap
 * "lines 12-20", or the hint for unsure pairs. Names are compared after
 * normalisation.
 */
enum conflict_region_rel conflicts_regions_compare(
    const struct conflict_region *a, size_t na, const struct conflict_region *b,
    size_t nb, char *buf, size_t buflen);

#endif

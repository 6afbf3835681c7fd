/*
 * locks.h - the lock and claim table: leases that agents hold on paths and
 * globs.
 *
 * Pure: no I/O, no clock, no randomness. Every call that depends on time
 * takes now_ms; the table never reads a clock. The daemon owns persistence
 * and broadcasting; this module only decides and reports, through events.
 *
 * Patterns. A pattern is a repository-relative path or a gitignore-style
 * glob (util/glob.h, "**" supported). It is normalised before use
 * (lock_table_normalize): "./src/a.ts", "src//a.ts", "src/a.ts/" and
 * "<root>/src/a.ts" are all "src/a.ts"; a ".." that climbs out of the
 * repository, or an absolute path outside the configured root, is refused.
 * A pattern without wildcards is a path and is anchored at the repository
 * root ("Makefile" is the top-level Makefile only) and covers everything
 * inside it when it is a directory. A '\' escapes the character after it,
 * and an escaped '*', '?' or '[' is no wildcard: "app/\[id\]/page.tsx" is
 * the path app/[id]/page.tsx (glob_has_wildcard, glob_literal), where
 * "app/[id]/page.tsx" is a glob matching app/i/page.tsx and app/d/page.tsx. A
 * glob keeps gitignore's rule: with no
 * '/' ("*.c") it applies at any depth; a leading "./" (or, with no root, a
 * leading '/') anchors it, kept in its canonical form as "/" + glob. A
 * trailing '/' is dropped, so "build/" is the same lock as "build".
 *
 * Conflicts. Two locks conflict when their patterns may cover a common path
 * (glob_overlap_compiled), they have different holders, and they are not
 * both shared. Locks and claims share one namespace: a claim blocks a lock
 * and the other way round. An agent may hold overlapping locks of its own.
 * A lock's identity is (holder, canonical pattern, kind): acquiring it again
 * refreshes it instead of refusing.
 * The table cannot tell files from directories, so a path is taken to cover
 * whatever may lie inside it: "Makefile" overlaps "*.h" (Makefile/x.h) and
 * "src/x.c" overlaps a recursive "*.ts" glob under src (src/x.c/a.ts). This
 * errs towards refusing.
 *
 * Fencing tokens. Every new grant (including a re-grant after a release or
 * an expiry) takes the next token from a strictly increasing uint64 counter
 * starting at 1. Refresh, renew and touch keep the lock's token: the holder's
 * tenure did not lapse, so writes it fenced with that token stay valid. A
 * token is unique in the table and doubles as the lock's id.
 *
 * Expiry. A lock is live while now_ms < expires_at. Expired locks are
 * invisible to every read (check, find, list) and to every conflict test
 * even before they are removed. Every mutating call first retires the locks
 * that have expired at its now_ms, with one LOCK_EV_EXPIRED event each, so
 * the holder is always told, whichever call noticed.
 *
 * Events. Mutating calls take a `struct lock_events *ev` (NULL to discard)
 * and append one record per change, each holding its own copy of the
 * lock's fields at that moment. The caller drains the list (persist,
 * broadcast) and clears it.
 *
 * Ownership. The table owns copies of every string it is given; callers keep
 * theirs. Lock views returned by the table (`const struct lock *`) are
 * borrowed: valid until the next mutating call on the table (acquire,
 * release, release_all, renew, touch, expire, contest, force_release,
 * restore, free) or, for lock_table_list's array, the next list call.
 * Copy with lock_copy() to keep one longer. Event records are copies owned
 * by the event list.
 *
 * Cost. Locks are indexed in a trie of their literal directory prefix (the
 * leading components before the first one with a wildcard; unanchored globs
 * and globs starting with a wildcard sit at the root). Acquire and check
 * compare a pattern only with locks whose prefix is an ancestor-or-self or a
 * descendant of its own, so the cost does not grow with unrelated locks.
 * Not thread-safe.
 */
#ifndef AIRSPACE_CORE_LOCKS_H
#define AIRSPACE_CORE_LOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define LOCK_DEFAULT_TTL_MS 300000
#define LOCK_DEFAULT_CONTEST_TIMEOUT_MS 120000
/* Pass as a ttl to mean "the configured default" (acquire) or "the lock's
 * own ttl" (renew). Any other ttl <= 0 is refused. */
#define LOCK_TTL_DEFAULT INT64_MIN
/* Input caps, in bytes (AS_EINVAL beyond them). */
#define LOCK_PATTERN_MAX 4096
#define LOCK_HOLDER_MAX 256
#define LOCK_REASON_MAX 1024

enum lock_mode {
    LOCK_EXCLUSIVE = 0,
    LOCK_SHARED,
};

enum lock_kind {
    LOCK_KIND_LOCK = 0,
    LOCK_KIND_CLAIM,
};

/* "exclusive" / "shared"; "lock" / "claim"; "?" when out of range. */
const char *lock_mode_name(enum lock_mode m);
const char *lock_kind_name(enum lock_kind k);

/* Parse a name as above; AS_EINVAL naming the field for anything else. */
int lock_mode_parse(const char *s, enum lock_mode *out, struct as_err *e);
int lock_kind_parse(const char *s, enum lock_kind *out, struct as_err *e);

struct lock {
    uint64_t token; /* fencing token; also the lock's id */
    char *pattern;  /* canonical (normalised) pattern */
    char *holder;   /* agent id */
    char *reason;   /* NULL when none given */
    enum lock_mode mode;
    enum lock_kind kind;
    int64_t acquired_at;  /* ms, time of the grant */
    int64_t expires_at;   /* ms; live while now < expires_at */
    int64_t ttl_ms;       /* > 0; what refresh, renew and touch extend by */
    char *contested_by;   /* claims only; NULL when not contested */
    int64_t contested_at; /* ms; -1 when not contested */
    bool file; /* a wildcard-free pattern known to name a file: it covers
                  that file only, not "everything inside it" */
};

/* Deep-copy src into dst (caller storage); free with lock_clear(). */
void lock_copy(struct lock *dst, const struct lock *src);
/* Free the strings of a copy made by lock_copy() and zero it. */
void lock_clear(struct lock *l);

enum lock_event_type {
    LOCK_EV_GRANTED = 0,    /* a new lock, with a new token */
    LOCK_EV_REFRESHED,      /* the holder acquired it again: ttl extended */
    LOCK_EV_RENEWED,        /* explicit renew by the holder */
    LOCK_EV_TOUCHED,        /* renewed by the holder's activity (touch) */
    LOCK_EV_RELEASED,       /* released by its holder */
    LOCK_EV_RELEASED_ALL,   /* one per lock dropped by release_all */
    LOCK_EV_EXPIRED,        /* its ttl ran out; tell the holder */
    LOCK_EV_CONTESTED,      /* a claim was contested; tell the holder */
    LOCK_EV_FORCE_RELEASED, /* a contester took a claim away */
    LOCK_EV_REASSIGNED,     /* its holder's id changed (lock_table_reassign) */
};

struct lock_event {
    enum lock_event_type type;
    int64_t at_ms;
    char *actor;      /* who caused it (holder or contester); NULL for expiry */
    struct lock lock; /* copy of the lock after the change */
};

/* A growable list of events; owns its records. */
struct lock_events {
    struct lock_event *v;
    size_t n, alloc;
};

void lock_events_init(struct lock_events *ev);
/* Drop every record, keeping the storage. */
void lock_events_clear(struct lock_events *ev);
void lock_events_release(struct lock_events *ev);

/* "granted", "refreshed", ..., "reassigned"; "?" when out of range. */
const char *lock_event_type_name(enum lock_event_type t);
/* Ledger name of an event: "lock.expired", "claim.granted", ... Static. */
const char *lock_event_name(const struct lock_event *ev);

struct lock_config {
    int64_t default_ttl_ms;     /* > 0 */
    int64_t contest_timeout_ms; /* >= 0 */
    const char *root;           /* absolute repository root, or NULL; copied */
};

/* LOCK_DEFAULT_TTL_MS, LOCK_DEFAULT_CONTEST_TIMEOUT_MS, no root. */
void lock_config_default(struct lock_config *c);

struct lock_table;

/*
 * A new empty table (c NULL: defaults). A non-positive default ttl or a
 * negative contest timeout falls back to the default. Free with
 * lock_table_free().
 */
struct lock_table *lock_table_new(const struct lock_config *c);
void lock_table_free(struct lock_table *t);

/*
 * Normalise pattern as the table does (see the top of this file) into a new
 * string *out (free with free()). Returns 0, or AS_EINVAL with a message
 * naming the field: empty, too long, escaping the repository, outside the
 * root, or not a valid glob.
 */
int lock_table_normalize(const struct lock_table *t, const char *pattern,
    char **out, struct as_err *e);

struct lock_request {
    const char *pattern;
    const char *holder;
    enum lock_mode mode;
    enum lock_kind kind;
    int64_t ttl_ms;     /* > 0, or LOCK_TTL_DEFAULT */
    const char *reason; /* may be NULL */
    bool file;          /* the (wildcard-free) pattern names a file; the
                           caller knows the file system, the table does not */
};

enum lock_outcome {
    LOCK_GRANTED = 0,
    LOCK_REFRESHED,
    LOCK_REFUSED,
};

struct lock_result {
    enum lock_outcome outcome;
    /* The granted or refreshed lock, or on refusal the blocking one.
     * Borrowed; NULL on bad input. */
    const struct lock *lock;
};

/*
 * Acquire r at now_ms. Returns 0 with res->outcome LOCK_GRANTED (new token,
 * LOCK_EV_GRANTED) or LOCK_REFRESHED (same holder, pattern and kind: ttl,
 * mode and reason updated, token kept, LOCK_EV_REFRESHED); AS_ECONFLICT when
 * a live lock of another holder conflicts (res->lock is the one with the
 * lowest token; e names its holder, pattern, mode, reason and expiry);
 * AS_EINVAL for bad input (empty or invalid pattern, escaping path, unknown
 * mode or kind, ttl <= 0, empty holder), the table unchanged. res may be
 * NULL.
 */
int lock_table_acquire(struct lock_table *t, const struct lock_request *r,
    int64_t now_ms, struct lock_result *res, struct lock_events *ev,
    struct as_err *e);

/*
 * Release holder's locks and claims on pattern (LOCK_EV_RELEASED each).
 * Returns 0; AS_ECONFLICT when only another agent holds exactly that pattern
 * (its lock kept, e names the holder); AS_ENOENT when nobody does;
 * AS_EINVAL for a bad pattern or holder.
 */
int lock_table_release(struct lock_table *t, const char *holder,
    const char *pattern, int64_t now_ms, struct lock_events *ev,
    struct as_err *e);

/*
 * Release every live lock and claim of holder (one LOCK_EV_RELEASED_ALL
 * each, in token order). Returns how many were released (0 when none).
 */
size_t lock_table_release_all(struct lock_table *t, const char *holder,
    int64_t now_ms, struct lock_events *ev);

/*
 * Renew holder's locks on pattern: expires_at = now + ttl_ms (or the lock's
 * own ttl for LOCK_TTL_DEFAULT; a given ttl becomes the lock's ttl).
 * LOCK_EV_RENEWED each. Returns 0, AS_ENOENT when holder has no live lock
 * on that pattern, AS_EINVAL for bad input. *out (if not NULL) gets the
 * first renewed lock, borrowed.
 */
int lock_table_renew(struct lock_table *t, const char *holder,
    const char *pattern, int64_t ttl_ms, int64_t now_ms,
    const struct lock **out, struct lock_events *ev, struct as_err *e);

/*
 * Renew on activity: every live lock of holder covering path gets
 * expires_at = now + its ttl (LOCK_EV_TOUCHED each; pass ev NULL to keep
 * activity out of the ledger). Returns how many were renewed, or AS_EINVAL
 * for a bad path.
 */
int lock_table_touch(struct lock_table *t, const char *holder, const char *path,
    int64_t now_ms, struct lock_events *ev, struct as_err *e);

/* Retire every lock expired at now_ms (LOCK_EV_EXPIRED each, earliest
 * expiry first). Returns how many. */
size_t lock_table_expire(
    struct lock_table *t, int64_t now_ms, struct lock_events *ev);

/*
 * Contest a live claim of another agent: the one on exactly pattern, else
 * the lowest-token claim overlapping it. Marks it contested_by contester at
 * now (a claim already contested keeps its first contester and time) and
 * emits LOCK_EV_CONTESTED so the holder is told. Returns 0; AS_ENOENT when
 * no such claim; AS_EINVAL for bad input, for contesting one's own claim,
 * or when only a plain lock (not a claim) covers pattern. *out (if not NULL)
 * gets the claim, borrowed.
 */
int lock_table_contest(struct lock_table *t, const char *contester,
    const char *pattern, int64_t now_ms, const struct lock **out,
    struct lock_events *ev, struct as_err *e);

/*
 * Force-release the claim lock_table_contest would pick. Allowed when
 * holder_is_stale (the caller's judgement of the holder's liveness), or
 * when the claim was contested and contest_timeout_ms has passed since
 * contested_at (by any contester: the first contest starts the clock).
 * Emits LOCK_EV_FORCE_RELEASED (actor: contester). Returns 0;
 * AS_ECONFLICT before the timeout or when not contested (claim kept, e says
 * how long is left); AS_ENOENT / AS_EINVAL as for contest.
 */
int lock_table_force_release(struct lock_table *t, const char *contester,
    const char *pattern, int64_t now_ms, bool holder_is_stale,
    struct lock_events *ev, struct as_err *e);

/*
 * The claim lock_table_contest and lock_table_force_release would pick for
 * contester on pattern at now, without changing anything (so the caller can
 * judge that claim's holder before force-releasing it). Returns 0 with *out
 * the claim (borrowed); AS_ENOENT / AS_EINVAL as for contest.
 */
int lock_table_claim_for(struct lock_table *t, const char *contester,
    const char *pattern, int64_t now_ms, const struct lock **out,
    struct as_err *e);

/*
 * Give every live lock and claim of holder `from` to holder `to` (an agent
 * renamed): same tokens, patterns and expiry; a contest by `from` becomes
 * one by `to` (and is dropped on a claim `to` now holds itself). One
 * LOCK_EV_REASSIGNED each (actor: to), also for each claim of another
 * holder whose contest changed (its holder unchanged). A lock `to` already
 * holds with the same pattern and kind is kept and the one of `from` released
 * instead (LOCK_EV_RELEASED_ALL). Returns how many locks changed hands.
 */
size_t lock_table_reassign(struct lock_table *t, const char *from,
    const char *to, int64_t now_ms, struct lock_events *ev);

/*
 * Would agent be refused pattern in mode at now? Returns 0 (*out NULL) when
 * free; AS_ECONFLICT with *out the lowest-token conflicting live lock of
 * another holder (borrowed) and e describing it; AS_EINVAL for bad input.
 * Reads only: acquires nothing and retires nothing.
 */
int lock_table_check(struct lock_table *t, const char *agent,
    const char *pattern, enum lock_mode mode, int64_t now_ms,
    const struct lock **out, struct as_err *e);
/* The same for a pattern the caller knows names a file (file true): exact
 * against every other pattern (see struct lock's file). To check a path as
 * it is spelled on disk, escape it first (glob_escape): a file named
 * "app/[id]/page.tsx" is then matched against each lock's glob as a name,
 * never intersected with it as a glob; the message names it unescaped. */
int lock_table_check_file(struct lock_table *t, const char *agent,
    const char *pattern, bool file, enum lock_mode mode, int64_t now_ms,
    const struct lock **out, struct as_err *e);

/* The live lock with this token (id), or NULL. Borrowed. */
const struct lock *lock_table_find(
    const struct lock_table *t, uint64_t token, int64_t now_ms);

/*
 * Every live lock at now, sorted by pattern, then holder, then kind, then
 * token. Returns the array (borrowed, valid until the next list call or
 * mutating call) and its length in *n.
 */
const struct lock *const *lock_table_list(
    struct lock_table *t, int64_t now_ms, size_t *n);

/*
 * Insert a stored lock as-is (after a restart): the pattern is normalised,
 * fields validated (non-empty holder, known mode and kind, ttl_ms > 0,
 * token > 0 and not already in the table), no conflict test: the store held
 * what a conflict-free table held. An expired lock is accepted and retired,
 * with its event, by the next mutating call. The next token becomes at least
 * token + 1. Returns 0 or AS_EINVAL.
 */
int lock_table_restore(
    struct lock_table *t, const struct lock *l, struct as_err *e);

/* Remove the lock with this token as-is, live or expired, with no event
 * (replaying a journal that says it went). Returns 0 or AS_ENOENT. */
int lock_table_remove(struct lock_table *t, uint64_t token);

/* Raise the next token to at least next (never lowers it). */
void lock_table_set_next_token(struct lock_table *t, uint64_t next);
/* The token the next grant will take. */
uint64_t lock_table_next_token(const struct lock_table *t);

struct lock_stats {
    size_t locks;           /* records held, expired-but-not-retired included */
    size_t nodes;           /* prefix trie nodes (never shrinks) */
    uint64_t compared;      /* pattern comparisons since lock_table_new */
    uint64_t last_compared; /* comparisons made by the last acquire/check */
};

void lock_table_stats(const struct lock_table *t, struct lock_stats *out);

#endif

/*
 * alerts.h - the alert engine: what needs a person's attention now.
 *
 * Pure: no I/O, no clock, no randomness. The daemon hands it a snapshot of
 * its state and the time (alerts_eval); the engine keeps the set of alerts
 * that hold, and says which were raised and which cleared since the last
 * evaluation. An alert is identified by (kind, subject); it is raised once
 * when its condition starts to hold and cleared once when it stops. Its
 * text, agents and `since` are those of its raise.
 *
 * Kinds (docs/protocol.md, "Alerts"):
 *
 *   stale-lock      a lock or claim held by an agent gone silent (the
 *                   daemon took it for stale, or it is silent past
 *                   silent_ms); subject: the lock's token; agents: the
 *                   holder and those changing a file the pattern covers
 *   silent-agent    a registered agent, not exited, silent past silent_ms;
 *                   subject: its id
 *   waiting         an escalation or a message to the supervisor waiting
 *                   for a person past waiting_ms; subject: its key
 *   unadvised-edit  two or more agents changing one file with no advisory
 *                   between some two of them (e.g. people in a shared
 *                   worktree); subject: the path
 *   fleet-given-up  a fleet agent that crashed past its restart limit;
 *                   subject: its name
 *   store-failing   the store refuses writes; subject: "store"
 *
 * Notifications are rate-limited here too (alerts_notify_take): at most
 * one per (kind, subject) per repeat_ms, and at most cap in any window of
 * cap_window_ms.
 *
 * Restarts. The engine forgets nothing the daemon keeps: what held and
 * the notifications sent are handed back with alerts_restore before the
 * first evaluation. An alert that held then holds again at once, with its
 * since, text and agents; it is not raised again (nor notified), and one
 * the evaluations do not find again is cleared by the first of them at or
 * after a settling time (the daemon relearns some of its state from
 * outside after a start, such as the fleet's reports).
 *
 * Ownership: the engine copies what it keeps; inputs are borrowed for the
 * call. Changes (struct alert_changes) own their copies.
 */
#ifndef AIRSPACE_CORE_ALERTS_H
#define AIRSPACE_CORE_ALERTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum alert_kind {
    ALERT_STALE_LOCK = 0,
    ALERT_SILENT_AGENT,
    ALERT_WAITING,
    ALERT_UNADVISED_EDIT,
    ALERT_FLEET_GIVEN_UP,
    ALERT_STORE_FAILING,
    ALERT_NKINDS
};

/* "stale-lock", ...; NULL out of range. */
const char *alert_kind_name(enum alert_kind k);
/* The kind named name into *k; false for a name that is none. */
bool alert_kind_parse(const char *name, enum alert_kind *k);

struct alerts_config {
    int64_t silent_ms;     /* > 0 */
    int64_t waiting_ms;    /* > 0 */
    int64_t repeat_ms;     /* one notification per (kind, subject) per this */
    unsigned cap;          /* at most this many notifications ... */
    int64_t cap_window_ms; /* ... in any window this long */
};

/* silent 10 min, waiting 5 min, repeat 10 min, 10 per minute. */
void alerts_config_default(struct alerts_config *c);

struct alert_agent {
    const char *id;
    bool registered; /* only registered agents can be silent */
    bool exited;
    bool stale;               /* the daemon took it for silent (its stale-ms) */
    int64_t last_seen;        /* ms; silence counts from it */
    const char *const *files; /* the paths it is changing */
    size_t nfiles;
    bool human; /* a person (the map's reply box): no heartbeat, never silent */
};

struct alert_lock {
    uint64_t token;
    const char *pattern;
    const char *holder;
    bool claim;
};

struct alert_wait {
    const char *key;  /* stable while it waits */
    const char *text; /* what waits */
    const char *const *agents;
    size_t nagents;
    int64_t since; /* ms */
};

/* Pairs with a live advisory (traffic or resolution) between them. */
struct alert_pair {
    const char *a, *b;
};

struct alert_fleet {
    const char *name;
    bool given_up;
    unsigned restarts;
    const char *why; /* the last exit, or NULL */
};

struct alerts_input {
    const struct alert_agent *agents;
    size_t nagents;
    const struct alert_lock *locks;
    size_t nlocks;
    const struct alert_wait *waits;
    size_t nwaits;
    const struct alert_pair *advised;
    size_t nadvised;
    const struct alert_fleet *fleet;
    size_t nfleet;
    /* the store refuses writes: why (NULL or "" when it takes them) */
    const char *store_error;
};

struct alert {
    enum alert_kind kind;
    char *subject;
    char *text;
    char **agents; /* the agents concerned, sorted, no duplicates */
    size_t nagents;
    int64_t since; /* ms: when it was raised */
};

/* Whether a concerns agent id. */
bool alert_concerns(const struct alert *a, const char *id);

struct alert_changes {
    struct alert *raised, *cleared;
    size_t nraised, ncleared;
};

void alert_changes_init(struct alert_changes *ch);
void alert_changes_release(struct alert_changes *ch);

struct alerts;

struct alerts *alerts_new(const struct alerts_config *c);
void alerts_free(struct alerts *s);

/*
 * Evaluate in at now: every alert whose condition holds and was not
 * raised is raised (appended to ch->raised), every raised alert whose
 * condition no longer holds is cleared (appended to ch->cleared, with its
 * raise's fields). Returns how many changed.
 */
size_t alerts_eval(struct alerts *s, const struct alerts_input *in, int64_t now,
    struct alert_changes *ch);

/* The alerts that hold, in the order raised (borrowed until the next
 * alerts_eval or alerts_free). */
const struct alert *alerts_list(const struct alerts *s, size_t *n);

/*
 * Whether a notification of a may be sent at now: no notification of its
 * (kind, subject) within repeat_ms, and fewer than cap within the last
 * cap_window_ms. When true, the sending is recorded. When false, *why
 * says which limit held ("repeat" or "cap").
 */
bool alerts_notify_take(
    struct alerts *s, const struct alert *a, int64_t now, const char **why);

/* When (k, subject) was last notified, as the rate limit remembers it (0:
 * not within what it remembers). */
int64_t alerts_notified_at(
    const struct alerts *s, enum alert_kind k, const char *subject);

/*
 * Restore what the daemon kept of a's (kind, subject) before a restart:
 * held, it holds again (a's since, text and agents copied), unless it
 * holds already, and stays held without being found until the first
 * evaluation at or after settle_until; notified_at (0: never) is its last
 * notification, for both limits. Call before the first alerts_eval.
 */
void alerts_restore(struct alerts *s, const struct alert *a, bool held,
    int64_t notified_at, int64_t settle_until);

#endif

/*
 * airspace.h - the daemon's domain as a pure state machine: agents, locks
 * and claims with fencing tokens, declared intents, inboxes.
 *
 * The agent table is the machine's alone: who is known here, under which
 * id, in which worktree, with what status; the daemon keeps beside each
 * agent only what git and the hooks tell it (working sets, reports) and
 * follows the machine's events to add, rename and remove them.
 *
 * Pure: no I/O, no clock, no randomness. Every operation takes the state,
 * `now` (ms) and a request, and fills a result and the events it caused;
 * nothing else changes. The daemon (src/broker) parses HTTP into requests,
 * calls one operation, answers from the result, and turns the events into
 * its store writes and published JSON events. A state change with no event
 * is a bug: replaying a machine's events into a fresh one with
 * as_apply() rebuilds an equal state (as_equal()).
 *
 * Operations. Each returns 0 or a negative AS_E* code, with res->code the
 * protocol's error code ("unknown_agent", "refused", "held", "not_held",
 * "bad_path", "bad_field", "stale_token", "token_required",
 * "unknown_intent", "unknown_recipient") and res->err the message. A
 * refused operation changes nothing and appends no event, except that
 * mutating lock calls first retire expired locks (their events included),
 * as core/locks does.
 *
 * Ownership. The machine owns copies of every string it is given. Events
 * and results own copies of what they carry: release them with
 * as_events_release() / as_result_release(). Views (as_agent_find,
 * as_inbox_find, the intent array) are borrowed until the next mutating
 * call. Not thread-safe.
 */
#ifndef AIRSPACE_AIRSPACE_AIRSPACE_H
#define AIRSPACE_AIRSPACE_AIRSPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/locks.h"
#include "util/error.h"
#include "util/strmap.h"

/* What an inbox holds at most: a full inbox drops its oldest read message,
 * else its oldest, never silently (AS_EV_MESSAGE_DROPPED). */
#define AS_INBOX_MAX 256
/* An intent declared without a ttl looks ahead half an hour. */
#define AS_INTENT_TTL_MS (30 * 60 * 1000)
/* The inbox of the person watching the fleet. */
#define AS_SUPERVISOR "supervisor"

enum as_agent_status {
    AS_AGENT_ACTIVE = 0,
    AS_AGENT_EXITED,
    AS_AGENT_STALE,
};

struct as_agent {
    char *id;
    char *label;    /* NULL when none */
    char *client;   /* claude-code, codex, human, worktree, ...; NULL */
    char *worktree; /* the worktree it flies in (a real path), or NULL */
    char **lanes;   /* globs it owns */
    size_t nlanes;
    bool human; /* kind human (right of way), not an agent */
    enum as_agent_status status;
    bool registered;     /* registered by its session (not a discovered
                            worktree): it has an inbox to read and can go
                            silent */
    bool from_worktree;  /* its working set is read from its worktree */
    bool shared;         /* registered in a worktree it shares with other
                            agents: its working set is its reported edits */
    bool human_residual; /* the person at the keyboard of a worktree (a
                            shared one, or one a person's command came to):
                            what no other agent there holds is theirs */
    bool peer;           /* another daemon's agent, mirrored here: that
                            daemon stores it */
    int64_t registered_at, last_seen;
};

/* A declared intent: files or globs an agent is about to touch. */
struct as_intent {
    uint64_t id;
    char *agent;
    char **files; /* normalised by the caller (the daemon knows worktrees) */
    size_t nfiles;
    char *regions; /* JSON text or NULL: opaque to the machine */
    char *summary; /* NULL when none */
    int64_t created_at, expires_at;
};

struct as_message {
    uint64_t id;
    char *from, *to, *type, *body;
    int64_t at;
    bool read;
};

struct as_inbox {
    char *owner;
    struct as_message *v; /* in id order */
    size_t n, a;
    uint64_t dropped; /* unread messages the cap dropped */
};

struct as_config {
    struct lock_config locks; /* root copied by the table */
    int64_t stale_ms;         /* silence before a registered agent is stale
                                 (<= 0: never) */
    int64_t gone_ms;          /* silence (from the last word, downtime
                                 included) before a registered agent is
                                 forgotten (<= 0: never) */
    int64_t silence_from;     /* silence counts from here at the earliest
                                 (the daemon's start: while it was down,
                                 nobody could reach it); 0 by default */
    size_t inbox_max;         /* 1..AS_INBOX_MAX; 0: AS_INBOX_MAX */
};

/* Defaults: core/locks defaults, stale after 2 minutes, AS_INBOX_MAX. */
void as_config_default(struct as_config *c);

struct airspace {
    struct as_config cfg;
    struct as_agent *agents;
    size_t nagents, aagents;
    struct lock_table *locks;
    bool own_locks;            /* false: borrowed (as_use_locks) */
    struct as_intent *intents; /* in id order */
    size_t nintents, aintents;
    uint64_t next_intent_id;
    struct strmap inbox_idx; /* owner -> index into inboxes */
    struct as_inbox *inboxes;
    size_t ninboxes, ainboxes;
    uint64_t next_message_id;
};

/* A new empty machine (c NULL: defaults); free with as_free(). */
struct airspace *as_new(const struct as_config *c);
void as_free(struct airspace *as);

/*
 * Work on lock table t from now on, borrowed (the caller frees it; the
 * machine's own table, if any, is freed now). The daemon's table may be
 * replaced under it (a team's shared store reloads it): it passes the
 * current one before each operation.
 */
void as_use_locks(struct airspace *as, struct lock_table *t);

enum as_event_kind {
    AS_EV_AGENT_REGISTERED = 0, /* agent, label, registered */
    AS_EV_AGENT_STATUS,         /* agent, status (reason) */
    AS_EV_AGENT_SEEN,           /* agent heard from at `at` */
    AS_EV_AGENT_GONE,           /* agent left the machine with its inbox */
    AS_EV_LOCK,                 /* lock: core/locks' event, copied */
    AS_EV_INTENT_DECLARED,      /* intent */
    AS_EV_INTENT_DROPPED,       /* intent (by its agent, or the agent left) */
    AS_EV_INTENT_EXPIRED,       /* intent */
    AS_EV_MESSAGE_SENT,         /* msg, recipients (one per send) */
    AS_EV_MESSAGE_DELIVERED,    /* owner, msg (one per inbox) */
    AS_EV_MESSAGE_READ,         /* owner, msg.id */
    AS_EV_MESSAGE_DROPPED,      /* owner, msg, unread, dropped */
    AS_EV_INBOX_MOVED,          /* owner -> other */
    AS_EV_INTENT_CHANGED,       /* intent after the change (its agent
                                   renamed) */
    AS_EV_AGENT_RENAMED,        /* agent (the new id) was other: who */
    AS_EV_AGENT_SHARED,         /* agent flies in a shared worktree: who */
};

/* "agent.registered", ..., "inbox.moved"; "?" when out of range. */
const char *as_event_kind_name(enum as_event_kind k);

struct as_event {
    enum as_event_kind kind;
    int64_t at;
    char *agent; /* whom it concerns (NULL when no one) */
    char *label; /* AGENT_REGISTERED */
    bool registered;
    /* AGENT_REGISTERED, _RENAMED, _SHARED: the agent after the change;
     * AGENT_GONE: the agent as it was before it left (a copy) */
    struct as_agent who;
    enum as_agent_status status; /* AGENT_STATUS */
    const char *reason;          /* static text or NULL */
    struct lock_event lock;      /* AS_EV_LOCK */
    struct as_intent intent;     /* INTENT_* */
    char *owner, *other;         /* inbox events; AGENT_RENAMED: the old id,
                                    AGENT_REGISTERED: the id it was renamed
                                    from (NULL: none) */
    struct as_message msg;       /* MESSAGE_* */
    size_t recipients;           /* MESSAGE_SENT */
    bool unread;                 /* MESSAGE_DROPPED */
    uint64_t dropped;            /* MESSAGE_DROPPED: the inbox's count */
};

struct as_events {
    struct as_event *v;
    size_t n, a;
};

void as_events_init(struct as_events *ev);
/* Free every event, keep the list usable. */
void as_events_clear(struct as_events *ev);
void as_events_release(struct as_events *ev);

/* One request; each operation reads the fields it names. */
struct as_req {
    const char *agent; /* the acting agent's id */
    /* register, join, discover, human, peer */
    const char *label;
    bool registered;
    const char *client;
    const char *worktree;   /* a real path, or as written (see as_join) */
    bool worktree_real;     /* join: worktree was resolved (realpath) */
    const char *agent_kind; /* join: "human" or "agent"; NULL keeps */
    const char *const *lanes;
    size_t nlanes;
    bool set_lanes; /* join: lanes[0..nlanes) replace the agent's */
    /* set_status */
    enum as_agent_status status;
    bool seen; /* heard from at now first */
    /* locks */
    const char *pattern;
    enum lock_mode mode;
    enum lock_kind kind;
    int64_t ttl_ms; /* > 0 or LOCK_TTL_DEFAULT (intents: AS_INTENT_TTL_MS) */
    const char *reason;
    bool file;      /* the pattern names a file (the caller's knowledge) */
    uint64_t token; /* release/renew: the grant's fencing token, 0: none */
    /* intents */
    const char *const *files;
    size_t nfiles;
    const char *regions;
    const char *summary;
    uint64_t intent_id;
    /* messages */
    const char *to, *type, *body;
    const char *owner; /* an inbox: an agent id or AS_SUPERVISOR */
    bool peek;         /* read without marking read */
};

struct as_result {
    const char *code; /* NULL on success; static */
    struct as_err err;
    /* locks: the granted, refreshed or renewed lock, or the one that
     * refused (held, stale_token); have_lock says whether lock is set */
    bool have_lock;
    struct lock lock;
    enum lock_outcome outcome;
    /* intents: the declared one, and the live intent of another agent
     * whose summary is closest to its own (core/similar, at least
     * SIMILAR_DEFAULT_THRESHOLD; similar_id 0: none) */
    uint64_t intent_id;
    uint64_t similar_id;
    double similar_score;
    /* messages: delivered count; an inbox read's messages (copies) and
     * its dropped count */
    size_t delivered;
    struct as_message *msgs;
    size_t nmsgs;
    uint64_t dropped;
    /* join, discover, human, peer: the agent's id (a copy; NULL when none
     * was made), whether it is new, whether a discovered agent was taken
     * over, the id it had before (a copy, or NULL), and whether its
     * worktree was set by this call (the daemon watches it) */
    char *agent;
    bool created, taken, new_worktree;
    char *renamed_from;
    size_t changed; /* worktree_gone: how many agents exited */
};

void as_result_init(struct as_result *r);
void as_result_release(struct as_result *r);

/* ---- agents ---- */

/* The agent with this id, or NULL. Borrowed. */
const struct as_agent *as_agent_find(const struct airspace *as, const char *id);

/*
 * Register req->agent (label, registered): a new agent, or one already known
 * updated and made active again. AS_EV_AGENT_REGISTERED, and AS_EV_AGENT_STATUS
 * when an exited or stale agent becomes active. AS_EINVAL for an empty id
 * (bad_field).
 */
int as_register(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/*
 * An agent's session registers (POST /v1/agents): req->agent (NULL: an id
 * made from req->client, else "agent", unique here), req->worktree,
 * client, label, kind, lanes (set_lanes), each NULL keeping what the agent
 * has.
 *
 * - The agent is the one with that id; else, when req->worktree_real, the
 *   discovered agent (not registered, not a worktree's human) of that
 *   worktree, taken over (res->taken); else a new one (res->created).
 * - A discovered agent taken over under another id (one no agent has,
 *   else that agent would be the one) is renamed: its locks, inbox and
 *   intents follow (as_rename's events), then AS_EV_AGENT_RENAMED.
 * - A worktree is set only on an agent without one (res->new_worktree).
 * - Registered in a worktree where another registered, active agent flies:
 *   the worktree is shared. Every registered agent there (and this one)
 *   keeps only the edits it reports (shared, not from_worktree:
 *   AS_EV_AGENT_SHARED each), and the worktree's human is made when it is
 *   not there (as_human). Registered in one where no other registered
 *   agent flies (not exited): the worktree is no longer shared, as when
 *   the others left (as_exit).
 * - Then the agent is registered, active and seen at now, without a status
 *   event: AS_EV_AGENT_REGISTERED (other: the id it was renamed from).
 *
 * AS_EINVAL (bad_field) for an empty id.
 */
int as_join(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/*
 * A worktree found in the repository becomes an agent: req->agent is the
 * name it wants (its branch, or the worktree's name), made unique here
 * ("name", "name-2", ...); client "worktree", its working set from
 * req->worktree, not registered. AS_EV_AGENT_REGISTERED. AS_EINVAL
 * (bad_field) without a name or a worktree.
 */
int as_discover(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/*
 * The person at the keyboard of worktree req->worktree (a shared one, or
 * one where a person's command needs a name of its own), made unless it is
 * there: "human@<the worktree's last name>" made unique, kind human,
 * client "human", its working set from the worktree (what no other agent
 * there holds). AS_EV_AGENT_REGISTERED (not registered); res->created.
 */
int as_human(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/*
 * Another daemon's agent, mirrored here under req->agent (client, label):
 * registered, active, a peer. AS_EV_AGENT_REGISTERED. That id taken:
 * AS_ECONFLICT (refused); an empty one AS_EINVAL (bad_field).
 */
int as_peer(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/*
 * req->agent was heard from (any call of its own): last_seen = now
 * (AS_EV_AGENT_SEEN); a stale agent is active again (AS_EV_AGENT_STATUS
 * "contact"). AS_ENOENT (unknown_agent) when unknown.
 */
int as_seen(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/*
 * The daemon learned req->agent's status (its worktree is gone, its daemon
 * says so): with req->seen, last_seen = now first (AS_EV_AGENT_SEEN); then
 * status req->status with reason req->reason (static text or NULL), its
 * locks and claims released first when it leaves active. Nothing when the
 * status is the same. AS_ENOENT (unknown_agent) when unknown.
 */
int as_set_status(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/*
 * Worktree req->worktree is gone (pruned): every agent flying there that
 * has not exited exits, reason req->reason (static text; NULL: "worktree
 * pruned"), its locks and claims released first; res->changed says how
 * many. Paths are compared as written, trailing slashes aside (the
 * directory is gone: nothing resolves it). AS_EINVAL (bad_field) without a
 * worktree.
 */
int as_worktree_gone(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/* Whether another agent that has not exited flies in agent a's worktree,
 * or, when a shares it, its human (not the person a command made there
 * for a lock in a worktree one agent has to itself) (a: one of the
 * machine's agents, or a copy of one it just forgot). */
bool as_flies_shared(const struct airspace *as, const struct as_agent *a);

/*
 * req->agent says it is alive: last_seen = now (AS_EV_AGENT_SEEN); a stale
 * or exited agent is active again (AS_EV_AGENT_STATUS "heartbeat"); an
 * exited one back in its worktree shares it, or has it to itself, as at
 * as_join. AS_ENOENT (unknown_agent) for an unknown agent.
 */
int as_heartbeat(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/*
 * req->agent acts (a lock, a contest, ...): an exited agent is refused
 * (AS_ECONFLICT, refused: it must register again), an unknown one
 * AS_ENOENT (unknown_agent); a stale one is back (AS_EV_AGENT_SEEN, then
 * AS_EV_AGENT_STATUS "contact"); an active one: nothing changes.
 */
int as_contact(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/*
 * req->agent leaves its session: its locks and claims released (one
 * AS_EV_LOCK each), then exited (its last word at now). Its intents stay
 * until they expire or it is forgotten. AS_ENOENT when unknown; an agent
 * already exited: only its last word. A registered agent leaving a shared
 * worktree to one registered agent, or none, leaves it no longer shared:
 * each one there that has not exited reads the worktree again (shared
 * false, from_worktree: AS_EV_AGENT_SHARED), and the worktree's human is
 * forgotten (AS_EV_AGENT_GONE, reason "not shared") unless it holds a
 * lock or a claim. So does as_forget, as_set_status to exited and
 * as_worktree_gone.
 */
int as_exit(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/*
 * req->agent leaves the machine: its locks released, intents dropped,
 * inbox emptied, then AS_EV_AGENT_GONE (reason req->reason: static text,
 * or NULL when asked for); its worktree may be no longer shared (as_exit).
 * AS_ENOENT when unknown.
 */
int as_forget(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/* ---- locks and claims (core/locks, with the agent rules) ---- */

/*
 * Acquire req->pattern for req->agent (mode, kind, ttl_ms, reason, file).
 * A stale agent is active again (contact); an exited one is refused
 * (refused); an unknown one AS_ENOENT (unknown_agent). A live lock of
 * another holder: AS_ECONFLICT (held) with res->lock the blocking lock.
 * Bad input: AS_EINVAL (bad_path for a pattern leaving the repository,
 * else bad_field). On success res->lock is the lock, res->outcome
 * LOCK_GRANTED (a new, larger token) or LOCK_REFRESHED.
 */
int as_lock(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/*
 * Release or renew req->agent's lock on req->pattern. When the agent holds
 * a live lock on exactly that pattern, req->token must name it: none is
 * AS_EINVAL (token_required), another AS_ECONFLICT (stale_token, res->lock
 * the lock it holds). Otherwise core/locks' answer: AS_ENOENT (not_held),
 * AS_ECONFLICT (held by another), AS_EINVAL. Renew: res->lock is the
 * renewed lock (ttl_ms, or the lock's own for LOCK_TTL_DEFAULT).
 */
int as_release(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);
int as_renew(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/*
 * Contest another agent's claim on req->pattern, or take it away (force):
 * allowed once contested for the contest timeout, or at once when its
 * holder is not active here (stale, exited or unknown). req->token is
 * refused (bad_field). An exited contester is refused.
 */
int as_contest(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);
int as_force(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/*
 * Activity of req->agent on path req->pattern renews its live locks
 * covering it (LOCK_EV_TOUCHED each: stored, not announced). Returns how
 * many, or AS_EINVAL (bad_path) for a bad path. The agent need not be
 * known (a hook's report).
 */
int as_touch(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/*
 * Would req->agent be refused req->pattern in req->mode (req->file: it
 * names a file)? Reads only. 0 when free; AS_ECONFLICT (held) with
 * res->lock the lock in the way and res->err describing it; AS_EINVAL
 * (bad_field). The agent need not be known.
 */
int as_check(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res);

/* Locks expired at now retire (one AS_EV_LOCK each); returns how many. */
size_t as_locks_expire(struct airspace *as, int64_t now, struct as_events *out);

/* ---- intents ---- */

/*
 * req->agent declares it is about to touch req->files (1..256 non-empty
 * paths or globs, already normalised), regions (opaque JSON), summary,
 * for ttl_ms (LOCK_TTL_DEFAULT: AS_INTENT_TTL_MS; a huge one saturates).
 * res->intent_id is its id (strictly increasing); with a summary,
 * res->similar_id names another agent's live intent that looks like the
 * same task (task dedup). AS_ENOENT for an unknown agent; AS_EINVAL (bad_field)
 * for no files, too many, or an empty one.
 */
int as_intent_declare(struct airspace *as, int64_t now,
    const struct as_req *req, struct as_result *res, struct as_events *out);

/* Drop intent req->intent_id of req->agent: AS_ENOENT (unknown_intent),
 * AS_ECONFLICT (refused) when another agent's. */
int as_intent_drop(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/* Drop every intent of req->agent (known or not): AS_EV_INTENT_DROPPED
 * each. Returns 0. */
int as_intent_drop_all(struct airspace *as, int64_t now,
    const struct as_req *req, struct as_result *res, struct as_events *out);

/* Intents expired at now expire (AS_EV_INTENT_EXPIRED each); returns how
 * many. */
size_t as_intents_expire(
    struct airspace *as, int64_t now, struct as_events *out);

/*
 * Agent req->agent is now called req->to: its locks and claims pass to the
 * new id (core/locks' reassign), its inbox moves, its intents are the new
 * id's (AS_EV_INTENT_CHANGED each). The agent table's own rename is the
 * caller's (as_register the new id). AS_EINVAL (bad_field) for an empty id.
 */
int as_rename(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/* The live intent with this id, or NULL. Borrowed. */
const struct as_intent *as_intent_find(
    const struct airspace *as, uint64_t id, int64_t now);

/* ---- messages ---- */

/*
 * Send a message from req->agent to req->to: an agent id, a label (every
 * agent with it), "all" (every registered, active agent but the sender) or
 * AS_SUPERVISOR; type (NULL: "info"; one of info, question, claim,
 * release, delegate, handoff, ack, block) and body. One
 * AS_EV_MESSAGE_DELIVERED per inbox (a full inbox drops one first), then
 * AS_EV_MESSAGE_SENT. res->delivered is how many inboxes got it; none is
 * AS_ENOENT (unknown_recipient). An unknown sender is AS_ENOENT
 * (unknown_agent), except AS_SUPERVISOR which always may send.
 */
int as_message_send(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/*
 * The unread messages of inbox req->owner (copies in res->msgs, in id
 * order), marked read unless req->peek (AS_EV_MESSAGE_READ each), and
 * res->dropped. An owner that is neither a known agent nor AS_SUPERVISOR
 * is AS_ENOENT (unknown_agent).
 */
int as_inbox_read(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/* Every message of inbox req->owner moves to inbox req->to (an agent
 * renamed), merged in id order within the cap. AS_EV_INBOX_MOVED. */
int as_inbox_move(struct airspace *as, int64_t now, const struct as_req *req,
    struct as_result *res, struct as_events *out);

/* The inbox of owner, or NULL. Borrowed. */
const struct as_inbox *as_inbox_find(
    const struct airspace *as, const char *owner);

/* ---- time ---- */

/*
 * Time passes to now: locks expired at now retire, intents expired at now
 * expire, silent agents turn stale (as_agents_expire). Returns how many
 * events it appended.
 */
size_t as_expire(struct airspace *as, int64_t now, struct as_events *out);

/*
 * Registered active agents silent for more than stale_ms (counted from
 * silence_from at the earliest) turn stale: their locks and claims
 * released, then AS_EV_AGENT_STATUS "silent". Then registered agents
 * silent for more than gone_ms since their last word are forgotten
 * (as_forget, reason "silent"). Returns how many changed.
 */
size_t as_agents_expire(
    struct airspace *as, int64_t now, struct as_events *out);

/* ---- replay ---- */

/*
 * Apply one recorded event to as (a fresh machine, or one rebuilt from the
 * same events so far): the journal of a machine rebuilds it. Returns 0, or
 * AS_EINVAL for an event that does not fit the state (a lock token
 * already there, a message to a missing inbox, ...).
 */
int as_apply(struct airspace *as, const struct as_event *ev, struct as_err *e);

/* Whether a and b hold the same agents, live locks at now, intents,
 * inboxes and counters; when not, why says the first difference. */
bool as_equal(const struct airspace *a, const struct airspace *b, int64_t now,
    char *why, size_t len);

#endif

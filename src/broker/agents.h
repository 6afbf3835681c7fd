/*
 * agents.h - the daemon's side of the agent table (agents.c): a slot beside
 * each of the machine's agents (src/airspace) with its working set and reports,
 * and what the machine's agent events mean for them. Internal to src/broker.
 */
#ifndef AIRSPACE_BROKER_AGENTS_H
#define AIRSPACE_BROKER_AGENTS_H

#include "broker/internal.h"

ssize_t broker_find_agent(const struct broker *b, const char *id);
/*
 * Whether agent i is parked: not active (its session ended, or silent past
 * stale-ms) while the worktree it flew in still holds its work (read from
 * git: a working set not empty), and no active agent flies there now. Its
 * pairs with active agents are still scored, at most traffic (it cannot
 * act), so whoever comes near its work is told before the merge; its
 * worktree is kept read as an active agent's.
 */
bool broker_parked(const struct broker *b, size_t i);

/* Agent i's worktree is gone (removed, or deleted by hand): the
 * uncommitted work in it went with it, so none of it is in flight any
 * more (nor is the agent parked): its working set is emptied, announced
 * (workset.changed, reason "worktree gone") and its pairs scored. True
 * when it had some; false when its worktree is there. */
bool broker_forget_gone_worktree(struct broker *b, size_t i);
/* Free what an agent's slot beside it holds (its reports, what its
 * watch saw). */
void broker_meta_release(struct bagent *m);
/* Agent i as the machine has it (id, label, status, worktree, ...). */
const struct as_agent *broker_who(const struct broker *b, size_t i);
/* A slot for the machine's agent `id` just made (collab.c): its working
 * set empty, its identity copied; its index. */
size_t broker_slot_add(struct broker *b, const char *id);
/* Run the machine's operation op with request r and tell the daemon its
 * events; op's answer, res filled. */
int broker_agent_op(struct broker *b,
    int (*op)(struct airspace *, int64_t, const struct as_req *,
        struct as_result *, struct as_events *),
    const struct as_req *r, struct as_result *res);
/* What the daemon does when the machine's agent i changes (collab.c):
 * its status did (stored, reports dropped on exit, the detector and the
 * scoring told, announced with why), it now flies in a shared worktree
 * (stored, its working set is its reports from now on) or in one no
 * longer shared (stored, its working set read from the worktree again,
 * whole, its watch taken from an agent that left), it was renamed
 * from `old` (its reports and pairs follow), it is a shared worktree's
 * new human (stored, announced). */
void broker_agent_status_changed(
    struct broker *b, size_t i, enum as_agent_status s, const char *why);
void broker_agent_shared(struct broker *b, size_t i);
void broker_agent_renamed(struct broker *b, size_t i, const char *old);
void broker_agent_human(struct broker *b, size_t i);
json_t *broker_agent_json(const struct broker *b, size_t i, bool files);
/* Refresh agent i's working set from git (worktree agents). */
int broker_refresh_agent(struct broker *b, size_t i, struct as_err *e);
/* Discover worktrees (new ones become agents) and refresh all. */
int broker_rescan(struct broker *b, struct as_err *e);
/*
 * The graph was rebuilt (the integration branch moved): every agent's
 * view of it again, then every pair scored again. The working sets stay
 * as read: a land moves no other agent's base, and the land's own refresh
 * has read the worktrees it changed.
 */
void broker_graph_changed(struct broker *b);
/*
 * The periodic rescan: with every worktree watched and no event lost, a
 * worktree is read again only when its git state changed since its last
 * read (a commit, a checkout, staging, the integration branch moved; its
 * files are the watch's business), after the debounce; worktrees git
 * lists that no agent flies in are discovered. Otherwise (no inotify, the
 * watch limit reached, the event queue overflowed) and once
 * RESCAN_FORGET_READS working sets have been read, or RESCAN_FORGET_MS
 * have passed, since the in-memory objects were last dropped (their
 * snapshots live there: each read adds the new contents of what changed),
 * broker_rescan().
 * The worktrees read are read now, not after the debounce; the others'
 * recency weights are brought up to now and every pair is scored again.
 */
#define RESCAN_FORGET_READS 500
#define RESCAN_FORGET_MS (10 * 60 * 1000)
int broker_rescan_periodic(struct broker *b, struct as_err *e);
/* What git told the daemon of (a commit, a reference moved, a land):
 * worktrees discovered, and those whose git state changed (or marked
 * dirty) read again now; nothing else is read. */
int broker_refresh_git(struct broker *b, struct as_err *e);
/* Refresh the human of worktree wt, if it has one (not one leaving). */
void broker_refresh_residual(struct broker *b, const char *wt);
/* Add or update a registered agent from its JSON (already validated) with
 * as_join; *created tells whether a new agent was added (false: an agent
 * with that id was updated, or a discovered worktree was taken over).
 * Kind "human" with a worktree and no id: the person at the keyboard of
 * that worktree (as_human), made unless it is there. */
int broker_register(struct broker *b, json_t *body, size_t *out, bool *created,
    struct as_err *e);
/* Agent i's status is s (as_set_status; with seen, heard from now). */
void broker_set_status(struct broker *b, size_t i, enum as_agent_status s,
    const char *why, bool seen);
/* Agents (agents.c): prune the orphaned agent worktrees at start (their
 * agents exit). */
void broker_prune_orphans(struct broker *b);
/* Persist agent i's registration and status. */
void broker_persist_agent(struct broker *b, size_t i);
/* Add another daemon's agent (team.c): no store, no event, no scoring. */
size_t broker_add_peer(struct broker *b, const char *id, const char *client,
    const char *label, const char *branch);
/* Persist report r of agent i (a registered agent's; in the request's
 * transaction when there is one). */
void broker_persist_report(struct broker *b, size_t i, const struct ws_file *r);
/* Agent i was heard from (any call of its own): last_seen is now, and is
 * stored when the stored one is older than min(1 s, stale_ms / 4), so a
 * restart does not take a busy agent for a silent one. */
void broker_agent_seen(struct broker *b, size_t i);
/* The machine forgot agent i (AS_EV_AGENT_GONE, who its last copy; its
 * locks, intents and inbox went as events before): its reports and pairs
 * are forgotten, it leaves the daemon's table and the store (`agent.gone`
 * with why). */
void broker_forget_agent(
    struct broker *b, size_t i, const struct as_agent *who, const char *why);

#endif

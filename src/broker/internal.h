/*
 * internal.h - the daemon's state, shared by its translation units
 * (broker.c: loop, agents and scoring; api.c: HTTP routes; events.c: the
 * event log and Server-Sent Events). Not for use outside src/broker.
 */
#ifndef AIRSPACE_BROKER_INTERNAL_H
#define AIRSPACE_BROKER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <event2/event.h>
#include <event2/http.h>
#include <jansson.h>

#include "airspace/airspace.h"
#include "broker/broker.h"
#include "view/gitview.h"
#include "git/paths.h"
#include "core/advisory.h"
#include "core/graph.h"
#include "core/activity.h"
#include "core/conflicts.h"
#include "core/locks.h"
#include "core/pair.h"
#include "core/topics.h"
#include "core/risk.h"
#include "core/workset.h"
#include "git/align.h"
#include "git/merge.h"
#include "git/repo.h"
#include "store/store.h"
#include "util/strmap.h"

/*
 * What the daemon keeps of an agent beside the machine's agent table
 * (src/airspace: id, label, client, worktree, lanes, status, shared,
 * human, peer, times; broker_who()): what git and the hooks tell it.
 */
struct bagent {
    /* the edits it reported (POST .../edits), by path, kept until it
     * exits, and stored (a registered agent's) as they change: in a shared
     * worktree its working set is their paths' real changes (sync_shared
     * in broker.c); after each read of that worktree, their lines are the
     * lines of the real change they met (base coordinates), none for a
     * path as in the base */
    struct agent reports;
    int64_t stored_seen;       /* last_seen as last stored */
    int64_t dirty_since;       /* a file changed; 0 when clean */
    uint64_t paths_hash;       /* of the paths last told to the detector */
    struct topic_track topics; /* what its last prompts were about */
    /* the machine forgot it and the daemon is letting it go (collab.c):
     * the machine's last copy of it, borrowed from the event */
    const struct as_agent *gone;
};

/* The advisory state of one pair (by agent ids, a < b). */
struct bpair {
    char *a, *b;
    struct pair_advisory adv; /* adv.st.level: the level, adv.since */
    struct risk_result res;
    bool merge_checked;
    char **merge_paths;
    size_t nmerge_paths;
    uint32_t hold, steer; /* agent indices at the last scoring */
    bool live;            /* both agents present at the last scoring */
    bool merge_reported;  /* the detector was last told of a conflict */
};

/* One published event. */
struct bevent {
    uint64_t id;
    char *type;
    char *json; /* the whole event as one JSON object */
};

#define BROKER_EVENT_RING 8192

/* What an event stream client may leave unread in the daemon's output
 * before it is dropped (docs/protocol.md, "Events"). */
#define BROKER_SSE_MAX_PENDING (4u << 20)

struct sse_client {
    struct evhttp_request *req;
    struct broker *b;
    struct sse_client *next;
    uint64_t last_id;   /* the last event id queued for it */
    struct event *drop; /* dropped: sent nothing more, closed at this timer */
    int drop_ticks;
};

struct broker {
    struct broker_options o;
    struct team *team; /* a shared store's state (team.c), or NULL */
    struct broker_paths paths;
    struct event_base *base;
    struct evhttp *http_unix, *http_tcp;
    /* accept() failed (no descriptor left): listening resumes at this timer */
    struct evconnlistener *listeners[2];
    struct evhttp_bound_socket *tcp_socket;
    struct event *accept_ev;
    int64_t accept_logged_at;
    char *token; /* TCP bearer token */
    FILE *log;
    int lock_fd;
    bool stopping;
    int64_t started_at;
    /* the last time a registered agent was active, an event stream was
     * open or a request came: idle_exit_ms counts from it */
    int64_t busy_at;
    /* the common git directory at start: deleted, or another directory at
     * its path, means the repository is gone */
    dev_t repo_dev;
    ino_t repo_ino;
    /* the socket's directory and the socket: removed there at exit, even
     * when the repository was moved, never another daemon's socket */
    int sock_dirfd;
    ino_t sock_ino;

    struct repo *repo;
    char *integration;
    struct risk_config cfg;
    struct graph graph;
    bool have_graph;
    /* the graph is built on a thread of its own while the daemon serves
     * (broker.c): the build under way (NULL once done), its wake-up, and
     * what status says of it */
    struct bindex *index;
    struct event *index_ev;
    enum bindex_state {
        BINDEX_BUILDING = 0,
        BINDEX_READY,
        BINDEX_FAILED,
    } index_state;
    int64_t index_started, index_ms;
    struct repograph_stats index_stats;
    char *index_error;
    struct gitview_base view_base; /* where each agent's view starts */
    struct merge_cache *mcache;
    /* agents' rebases onto the newest base (git/align.h): valid until
     * repo_forget_created(), renewed with it */
    struct align_cache *acache;
    bool unaligned; /* no base descends from every other (logged once) */
    bool realigned; /* agents were moved since the last scoring: score
                       every pair */
    bool reshared;  /* a shared worktree's agents' working sets followed
                       git since the last scoring: score every pair */
    /* the engine of the last scoring, for evidence; NULL once any agent's
     * working set changed after it (it borrows their tables) */
    struct risk_engine *engine;
    struct agent *eng_agents; /* shallow copies of the active agents */
    size_t *eng_pos;          /* agent index -> engine index, or SIZE_MAX */
    size_t eng_n;

    struct lock_table *locks;
    struct conflicts *conflicts; /* the conflict detector */
    struct activity *activity;   /* who read, searched, wrote what */
    struct db *db; /* durable state; every acknowledged change is in it */
    struct event *flush_ev, *prune_ev;
    /* the store refuses writes (broker_store_refusal): a failure carried
     * over a restart (0: none), and why, as last logged ("" when fine);
     * restart: a failed commit left memory ahead of the store, so the
     * daemon starts again from it */
    int store_rc;
    char store_error[sizeof(((struct as_err *)0)->msg)];
    bool restart;

    /* the domain's state machine (src/airspace): the agent table,
     * intents (regions: JSON text {path: [{name} | {lines: [s, e]}]}),
     * inboxes, and the rules of locks over the table above
     * (broker_airspace hands it the current lock table) */
    struct airspace *as;

    /* agents, one per agent of the machine and in its order (collab.c
     * follows its events): ag[i] is the working set as scoring reads it
     * (its id, label, kind and worktree copied from the machine's agent),
     * meta[i] the reports and the rest */
    struct agent *ag;
    struct bagent *meta;
    size_t nagents, aagents;

    struct strmap pair_idx; /* "a\tb" -> index into pairs */
    struct bpair *pairs;
    size_t npairs, apairs;

    /* events */
    uint64_t next_event_id;
    uint64_t ring_first; /* the first id of this process: the ring holds
                            ids from it (or next_event_id - RING) on */
    struct bevent ring[BROKER_EVENT_RING];
    struct sse_client *sse;

    /* file watching */
    int inotify_fd;
    struct event *inotify_ev;
    /* watches[wd]: the directory an inotify watch is on and its agent
     * (dir NULL: no watch); wds are small and handed out in order */
    struct bwatch {
        char *dir;
        uint32_t agent;
        int depth;
    } * watches;
    size_t nwatches;
    struct event *tick_ev, *rescan_ev, *debounce_ev, *sigterm_ev, *sigint_ev;
    bool debounce_armed;
    struct balerts *alerts; /* alerting.c */
};

/* Listen on 127.0.0.1:port too (0: a free port, which the caller reads
 * from b->tcp_socket), with a fresh token in <dir>/token, unless the daemon
 * already does. */
int broker_listen_tcp(struct broker *b, int port, struct as_err *e);
int64_t broker_now(void);
void broker_log(struct broker *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The graph's build for GET /v1/status: {state: "indexing", done, total,
 * startedAt}, {state: "ready", files, edges, parsed, cached, ms} or
 * {state: "failed", error, ms}. */
json_t *broker_index_json(const struct broker *b);

/* Agents. */
ssize_t broker_find_agent(const struct broker *b, const char *id);
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
/* Copy the machine's id, label, kind and worktree (when it has none) of
 * agent i into its working set. */
void broker_slot_identity(struct broker *b, size_t i);
/* What the daemon does when the machine's agent i changes (collab.c):
 * its status did (stored, reports dropped on exit, the detector and the
 * scoring told, announced with why), it now flies in a shared worktree
 * (stored, its working set is its reports from now on), it was renamed
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
/* Drop the evidence engine (before any working set changes). */
void broker_drop_engine(struct broker *b);
/* Re-score every pair involving agent `changed` (SIZE_MAX: all pairs). */
void broker_rescore(struct broker *b, size_t changed);
/* The pair of agents x and y (ids), made when new: its index. */
size_t broker_pair_at(struct broker *b, const char *x, const char *y);
/* Feed pair k's risk (res.risk, set by its scorer) to its advisory. */
void broker_pair_feed(struct broker *b, size_t k, int64_t now);
/* Refresh the human of worktree wt, if that worktree is shared. */
void broker_refresh_residual(struct broker *b, const char *wt);
/* Add or update a registered agent from its JSON (already validated) with
 * as_join; *created tells whether a new agent was added (false: an agent
 * with that id was updated, or a discovered worktree was taken over). */
int broker_register(struct broker *b, json_t *body, size_t *out, bool *created,
    struct as_err *e);
/* Agent i's status is s (as_set_status; with seen, heard from now). */
void broker_set_status(struct broker *b, size_t i, enum as_agent_status s,
    const char *why, bool seen);

/* Pairs (score.c): forget every pair of agent id, a live one above clear
 * announced clear first with reason why; free a pair's merge paths. */
void broker_drop_pairs(struct broker *b, const char *id, const char *why);
void broker_clear_merge(struct bpair *p);
/* Agents (agents.c): prune the orphaned agent worktrees at start (their
 * agents exit). */
void broker_prune_orphans(struct broker *b);
/* Restore the state of the store at start-up (restore.c). */
int broker_restore(struct broker *b, struct as_err *e);
/* File watching (watch.c): watch agent i's worktree; the inotify and
 * debounce callbacks. */
void broker_watch_worktree(struct broker *b, size_t i);
void broker_on_inotify(evutil_socket_t fd, short what, void *arg);
void broker_on_debounce(evutil_socket_t fd, short what, void *arg);
/* The graph's build thread (index.c): start it, stop and join it. */
void broker_index_start(struct broker *b);
void broker_index_stop(struct broker *b);

/* Events: publish (takes ownership of data). */
void broker_emit(
    struct broker *b, const char *type, const char *agent, json_t *data);
/* Attach an SSE client; with replay, first send the events after `after`
 * still in the ring. */
void broker_sse_attach(
    struct broker *b, struct evhttp_request *req, bool replay, uint64_t after);
void broker_events_release(struct broker *b);

/* Locks: persist and publish the table's events (touches are persisted
 * but not published); release everything of agent i. */
void broker_lock_events(struct broker *b, struct lock_events *ev);
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
/* 0 when the store takes writes; else the HTTP status refusing one (507
 * when its disk is full, else 503) with why in e, logged when it changes.
 * A write is never acknowledged while this is not 0. */
int broker_store_refusal(struct broker *b, struct as_err *e);
/* The commit of requests failed (code rc, why in e): writes are refused,
 * and unless the store file is gone the daemon starts again from its
 * store (what memory holds of those requests is dropped), keeping the
 * ids it gave (fencing tokens, events) from being given again. */
void broker_store_failed(struct broker *b, int rc, const struct as_err *e);
/* {state: "ok"|"full"|"failed", error?} for GET /v1/status. */
json_t *broker_store_json(struct broker *b);
json_t *broker_lock_json(const struct lock *l, int64_t now);

/* The conflict detector's messages: deliver each (from the supervisor)
 * and publish it; clears m. */
void broker_conflict_msgs(struct broker *b, struct conflict_msgs *m);
/* Tell the detector agent i's current working set. */
void broker_conflicts_modified(struct broker *b, size_t i);
/* Tell the detector agent i whole: its label and lanes, its live intents
 * and its working set (at registration, and when it is active again after
 * the detector forgot it). */
void broker_conflicts_agent(struct broker *b, size_t i);
/* The escalations waiting for a human: every conflict escalated to the
 * supervisor that still holds (by shape, pair and file), then every unread
 * message an agent sent the supervisor (oldest first); with agent not
 * NULL, those involving it. A new array of escalation objects
 * (docs/protocol.md). */
json_t *broker_escalations_json(struct broker *b, const char *agent);
/* An intent as the detector takes it (regions parsed from its JSON). */
void broker_conflicts_intent(
    struct broker *b, const struct as_intent *in, struct conflict_msgs *out);

/* The airspace machine and its events (collab.c). */
/* The machine, its lock table b->locks (a team's store may have replaced
 * it). Call before each operation. */
struct airspace *broker_airspace(struct broker *b);
/*
 * What the machine's events mean for the daemon, in order: store writes,
 * published events, the conflict detector told of dropped and expired
 * intents; lock events go through broker_lock_events. Intents declared
 * are stored and published (the detector is the caller's: it answers
 * with the conflicts). Clears ev.
 */
void broker_airspace_events(struct broker *b, struct as_events *ev);
/* The HTTP answer of a refused operation: status from res->code. */
int broker_airspace_status(const struct as_result *res);
/* Registered agents silent for stale_ms (from the daemon's start at the
 * earliest) turn stale, and those silent for agent_timeout_ms are gone
 * (as_agents_expire), in one transaction. */
void broker_expire_agents(struct broker *b, int64_t now);
/* The machine forgot agent i (AS_EV_AGENT_GONE, who its last copy; its
 * locks, intents and inbox went as events before): its reports and pairs
 * are forgotten, it leaves the daemon's table and the store (`agent.gone`
 * with why). */
void broker_forget_agent(
    struct broker *b, size_t i, const struct as_agent *who, const char *why);
void broker_sync_intents(struct broker *b); /* into agents' intent lists */
void broker_expire_intents(struct broker *b, int64_t now);
json_t *broker_intent_json(const struct as_intent *in);
/* Send message r (as_message_send) with its store writes in one
 * transaction; returns as_message_send's answer. */
int broker_message(
    struct broker *b, const struct as_req *r, struct as_result *res);
/* Deliver to an id, a label, "all" (every active agent but the sender) or
 * "supervisor"; returns how many inboxes got it. */
size_t broker_send(struct broker *b, const char *from, const char *to,
    const char *type, const char *body);
json_t *broker_message_json(const struct as_message *m);
void broker_collab_release(struct broker *b);

/* Alerts and the fleet's reports (alerting.c). */
void broker_alerts_init(struct broker *b);
void broker_alerts_release(struct broker *b);
/* Evaluate the alerts now: publish each raised and cleared, notify. */
void broker_alerts_check(struct broker *b);
/* The alerts that hold (those concerning agent, when not NULL). */
json_t *broker_alerts_json(struct broker *b, const char *agent);
/* {count, command, notified, suppressed, dropped} for GET /v1/status. */
json_t *broker_alerts_status(struct broker *b);
/* A fleet agent's supervisor reports its state (fleet.state events; a
 * given-up agent is an alert). */
int broker_fleet_report(struct broker *b, const char *name, const char *state,
    unsigned restarts, const char *lane, const char *why, int64_t pid,
    struct as_err *e);
json_t *broker_fleet_json(struct broker *b);

/* HTTP */
void broker_api_handle(struct evhttp_request *req, void *arg);
/* A connection's bufferevent (evhttp_set_bevcb): the errors libevent's HTTP
 * layer answers itself (malformed request, too large, unknown method) leave
 * it as the JSON error envelope, not as HTML. */
struct bufferevent *broker_api_bev_new(struct event_base *base, void *arg);
/* Commit and answer what waits for the group commit; free its event. */
void broker_api_release(struct broker *b);
json_t *broker_pair_json(struct broker *b, size_t k, bool evidence);

#endif

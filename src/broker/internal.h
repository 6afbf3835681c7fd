/*
 * internal.h - the daemon's state (struct broker and what it holds), its
 * clock and its log, shared by its translation units. Each module's
 * functions are declared in its own header (agents.h, collab.h, score.h,
 * events.h, detect.h, alerting.h, watch.h, index.h, restore.h, loop.h,
 * routes.h, api.h, team.h, ...): a file includes those it calls. Not for
 * use outside src/broker.
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
     * in agents.c); after each read of that worktree, their lines are the
     * lines of the real change they met (base coordinates), none for a
     * path as in the base */
    struct agent reports;
    int64_t stored_seen; /* last_seen as last stored */
    int64_t dirty_since; /* a file changed; 0 when clean */
    /* the worktree's git state when its working set was last read
     * (workset_worktree_state), for the periodic rescan to skip it */
    uint64_t git_state;
    bool git_state_ok;
    uint64_t paths_hash; /* of the paths last told to the detector */
    bool told;           /* its paths were, in this daemon's life */
    bool files_told;     /* some were */
    bool files_known;    /* the detector has some of its files now */
    /* A read limited to what changed (git/workset.h, struct
     * workset_scope): the paths the watch saw change in its worktree since
     * the last read (pending; pending_all: not known, the next read reads
     * every path), and those that read found changed against the base
     * (seen, valid when seen_ok). root_wd: the watch of its worktree's
     * top directory; its events are this agent's when that watch is. */
    struct strmap pending;
    bool pending_all;
    int root_wd;
    char **seen;
    size_t nseen;
    bool seen_ok;
    /* what its commits ahead say, while HEAD and its base stay
     * (git/workset.h, struct workset_commits); NULL until its first read */
    struct workset_commits *commits;
    /* what parsing its changed files gave, for its next read (view/gitview.h)
     */
    struct gitview_names_cache *names;
    struct topic_track topics; /* what its last prompts were about */
    /* another daemon's agent that its daemon publishes as parked (team.c):
     * exited here, its working set still half of pairs */
    bool remote_parked;
    /* another daemon's agent: when its daemon last spoke of it outside its
     * working set (a message, an intent), team.c */
    int64_t heard_at;
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
    bool parked; /* one agent parked at the last scoring: at most traffic */
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
     * (index.c): the build under way (NULL once done), its wake-up, and
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
    /* its forward table follows the integration branch (index.c): the
     * commit it was read at, how long that took, a rebuild under way, its
     * wake-up and the timer that looks for a move */
    char fwd_tip[GIT_OID_HEXSZ + 1];
    double fwd_ms;
    struct bfwd *fwd;
    struct event *fwd_ev, *fwd_poll_ev;
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
    /* a directory left unwatched (the watch limit), or events lost (the
     * queue overflowed): the periodic rescan reads every worktree */
    bool watch_incomplete, watch_overflow;
    /* working sets read since the in-memory objects were last dropped:
     * their snapshots live there until a full rescan */
    unsigned reads_since_forget;
    int64_t forgot_at; /* when a full rescan last dropped them (ms) */
    /* since start: working sets read, periodic rescans, and those of them
     * that read every worktree (GET /v1/status, "watch") */
    uint64_t stat_reads, stat_rescans, stat_full_rescans;
    /* of the reads, those limited to what changed */
    uint64_t stat_limited_reads;
    /* speculative merges run by rescores, and those left for a later
     * round (out of --merge-budget-ms) */
    uint64_t stat_merges, stat_merges_later;
    struct event *tick_ev, *rescan_ev, *debounce_ev, *sigterm_ev, *sigint_ev;
    bool debounce_armed;
    /* merges a rescore left for later (score.c): the next round, after
     * the requests that came meanwhile */
    struct event *merges_ev;
    bool merges_armed;
    struct balerts *alerts; /* alerting.c */
};

int64_t broker_now(void);
void broker_log(struct broker *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif

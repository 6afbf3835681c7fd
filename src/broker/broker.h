/*
 * broker.h - the daemon, `airspace serve`: one event loop holding the live
 * picture of every agent flying in one repository.
 *
 * It discovers the repository's worktrees as agents (registered agents add
 * identity: client, kind, label, lanes), keeps each one's working set fresh
 * (inotify on its worktree with a debounce, and a slow periodic rescan),
 * re-scores the pairs an update touches with the risk engine, runs each
 * pair's advisory state machine and publishes every change as an event over
 * Server-Sent Events. The HTTP/JSON API (docs/protocol.md) is served on a
 * Unix socket in the airspace directory, and optionally on 127.0.0.1 TCP
 * with a bearer token. One daemon per airspace: a lock file guards it.
 *
 * All state belongs to the loop's thread; the only other threads are the
 * graph parser's and the scorer's workers, joined before results are used.
 */
#ifndef AIRSPACE_BROKER_BROKER_H
#define AIRSPACE_BROKER_BROKER_H

#include <stdbool.h>
#include <stdint.h>

#include "util/error.h"

struct broker_options {
    const char *repo_path;    /* any path inside the repository */
    int tcp_port;             /* > 0: also listen on 127.0.0.1:port */
    int64_t stale_ms;         /* silence after which an agent is stale */
    int64_t rescan_ms;        /* periodic working-set rescan */
    int64_t debounce_ms;      /* after a file change, before rescanning */
    int64_t merge_budget_ms;  /* merges a rescore runs before it yields */
    int64_t tick_ms;          /* advisory dwell and staleness checks */
    unsigned threads;         /* graph parsing and scoring */
    int64_t window_ms;        /* unresolved conflicts escalate after this */
    int64_t idle_exit_ms;     /* exit after this long with no active agent,
                                 client or request (0: never) */
    int64_t agent_timeout_ms; /* a registered agent silent this long is
                                 forgotten (0: never) */
    int max_conns;            /* connections served at once (conns.h) */
    int max_peer_conns;       /* of them, from one process */
    int64_t req_timeout_ms;   /* a request's first byte to its last */
    int64_t conn_idle_ms;     /* a connection with no request in it */
    /* alerts (docs/config.md, [alerts]): silent and waiting 0, repeat and
     * cap -1, command NULL: the defaults (no command) */
    int64_t alerts_silent_ms, alerts_waiting_ms, alerts_repeat_ms;
    int64_t alerts_cap;
    const char *alerts_command;
    bool log_stderr;        /* log to stderr instead of the log file */
    int ready_fd;           /* >= 0: write one byte when serving, close */
    const char *const *set; /* "key=value" overrides of the risk model */
    size_t nset;
    /* the store (docs/team.md): NULL: the SQLite file in the airspace
     * directory; a shared store's airspace (NULL: from the origin URL)
     * and node (NULL: host:common directory) */
    const char *store_url, *store_airspace, *store_node;
    /* the remote that agents' work in progress is pushed to and fetched
     * from (docs/team.md); NULL: not shared */
    const char *store_wip_remote;
};

void broker_options_init(struct broker_options *o);

/*
 * Run the daemon until SIGTERM/SIGINT, a stop request, its repository
 * gone (the common git directory or the main worktree deleted or moved)
 * or idle_exit_ms idle. Returns 0 after a clean shutdown; AS_ECONFLICT when
 * another daemon serves this airspace; other codes (with a message) when it
 * cannot start.
 */
int broker_run(const struct broker_options *o, struct as_err *e);
/* The daemon of o will not serve: say why in its log (when the log exists
 * and o does not log to stderr) and to the starter waiting on o->ready_fd
 * ("E<why>" instead of the ready byte; the fd is closed). When what it
 * refuses lasts until someone fixes it (lasting: its configuration, a
 * store it cannot open), why also goes to <airspace>/BROKER_START_ERROR
 * (util/sockpath.h), for a starter that does not wait (a hook, which tells
 * the agent and the user why nothing is checked); a daemon that serves
 * removes that file. */
void broker_not_serving(
    const struct broker_options *o, const char *why, bool lasting);

#endif

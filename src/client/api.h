/*
 * api.h - the daemon's HTTP API (docs/protocol.md) as typed requests: one
 * builder per route, each giving the method, the path with its agent ids
 * and query values percent-encoded, and the JSON body. The only place
 * outside the daemon that spells a "/v1/" path.
 *
 * No transport here and no libcurl: client.c sends a request
 * (client_call(), libcurl over the Unix socket), and the lean hook binary
 * sends it with its own HTTP (src/hooks/hook_http.c), which links this
 * file and jansson only (decision 0009).
 *
 * A builder returns a struct api_req the caller owns: the path is a new
 * string, the body a new reference (bodies given to a builder are taken
 * over); api_req_release() frees both, and client_call() releases it.
 * Strings given are borrowed and copied.
 */
#ifndef AIRSPACE_CLIENT_API_H
#define AIRSPACE_CLIENT_API_H

#include <stdbool.h>

#include <jansson.h>

struct api_req {
    const char *method; /* "GET" or "POST" (static) */
    char *path;         /* "/v1/...", escaped; owned */
    json_t *body;       /* owned, or NULL */
};

void api_req_release(struct api_req *r);

/* s percent-encoded for one path segment or query value (everything but
 * [A-Za-z0-9._-]): a new string. */
char *api_escape(const char *s);

/* ---- the daemon ---- */
struct api_req api_status(void);  /* GET /v1/status */
struct api_req api_stop(void);    /* POST /v1/stop */
struct api_req api_refresh(void); /* POST /v1/refresh: rescan worktrees */
/* POST /v1/refresh {git: true}: read what git changed (a commit, a ref) */
struct api_req api_refresh_git(void);

/* GET /v1/events[?after=N] (after < 0: from now on): the stream's path, a
 * new string (client_stream). */
char *api_events_path(long long after);

/* GET /v1/ledger?after=N&limit=N[&type=PREFIX][&agent=ID] (type, agent:
 * NULL for none). */
struct api_req api_ledger(
    long long after, long limit, const char *type, const char *agent);

/* ---- agents ---- */
/* GET /v1/agents[?files=1] */
struct api_req api_agents(bool files);

/* POST /v1/agents: register (or take over) an agent; agent is its
 * description ({id?, kind?, client?, worktree?, branch?, lanes?}), taken
 * over. */
struct api_req api_register(json_t *agent);

/* POST /v1/agents {"kind": "human", "worktree": worktree}: the person at
 * the keyboard of that worktree (human@<its name>), made unless the
 * daemon has it. */
struct api_req api_person(const char *worktree);

/* POST /v1/agents/{id}/exit, /heartbeat */
struct api_req api_exit(const char *id);
struct api_req api_heartbeat(const char *id);

/* GET /v1/agents/{id}/inbox[?peek=1]: unread messages (peek: they stay
 * unread). */
struct api_req api_inbox(const char *id, bool peek);

/* POST /v1/agents/{id}/edits {path, lines?}: an edit reported; ranges
 * (lines: [[start, end], ...]) taken over, or NULL. */
struct api_req api_edit(const char *id, const char *path, json_t *ranges);

/* POST /v1/agents/{id}/prompt {prompt} */
struct api_req api_prompt(const char *id, const char *prompt);

/* POST /v1/agents/{id}/commits: a commit made ({commit, branch, parent,
 * files, subject?}, taken over). */
struct api_req api_commit_made(const char *id, json_t *commit);

/* GET /v1/advisories[?agent=ID] (agent NULL: every pair) */
struct api_req api_advisories(const char *agent);

/* ---- locks and claims ---- */
/* GET /v1/locks[?agent=ID] */
struct api_req api_locks(const char *agent);

enum api_lock_op {
    API_LOCK_TAKE,          /* POST /v1/locks: a lock or a claim */
    API_LOCK_RELEASE,       /* POST /v1/locks/release */
    API_LOCK_RENEW,         /* POST /v1/locks/renew */
    API_LOCK_CONTEST,       /* POST /v1/locks/contest */
    API_LOCK_FORCE_RELEASE, /* POST /v1/locks/force-release */
};

/* What one lock operation carries; NULL and 0 members are left out. kind
 * ("lock", "claim"), mode and reason go with API_LOCK_TAKE only, ttl_ms
 * with API_LOCK_TAKE and API_LOCK_RENEW, token with API_LOCK_RELEASE and
 * API_LOCK_RENEW. */
struct api_lock {
    const char *agent;
    const char *pattern;
    const char *kind;
    const char *mode;
    const char *reason;
    long long ttl_ms;
    long long token;
};

struct api_req api_lock(enum api_lock_op op, const struct api_lock *l);

/* From a GET /v1/locks reply: the fencing token of agent's live lock or
 * claim spelled pattern, or 0 when it holds none there (a release must
 * carry the token of the grant it releases). */
long long api_locks_token(
    json_t *reply, const char *agent, const char *pattern);

/* POST /v1/locks/check {agent, path, mode?}: whether agent may write path
 * (mode NULL: the daemon's default). */
struct api_req api_lock_check(
    const char *agent, const char *path, const char *mode);

/* ---- collaboration ---- */
/* GET /v1/intents[?agent=ID] */
struct api_req api_intents(const char *agent);

/* POST /v1/intents: {agent, files, regions?, summary?, ttlMs?}, taken
 * over. */
struct api_req api_intent(json_t *intent);

/* POST /v1/intents/{id}/drop {agent} */
struct api_req api_intent_drop(long long id, const char *agent);

/* POST /v1/messages {from, to, type, body} (type NULL: "info") */
struct api_req api_message(
    const char *from, const char *to, const char *type, const char *body);

/* GET /v1/conflicts */
struct api_req api_conflicts(void);

/* ---- alerts, fleet, map ---- */
/* GET /v1/alerts[?agent=ID] */
struct api_req api_alerts(const char *agent);

/* POST /v1/fleet/{name}: a supervisor's report ({state, restarts, pid,
 * lane?, why?}, taken over). */
struct api_req api_fleet_report(const char *name, json_t *report);

/* POST /v1/map/open: open the map's loopback listener (options taken
 * over, or NULL). */
struct api_req api_map_open(json_t *options);

#endif

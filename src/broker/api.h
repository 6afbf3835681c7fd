/*
 * api.h - what route handlers of the daemon's HTTP API share: the request
 * context, replies, body checks. Routes live in tables; api.c holds the
 * core ones, and extension files (api_collab.c, api_alerts.c, api_map.c,
 * api_team.c) add theirs. Routes call the daemon's modules through their
 * headers (agents.h, collab.h, ...); none of those include this one.
 * Internal to src/broker.
 */
#ifndef AIRSPACE_BROKER_API_H
#define AIRSPACE_BROKER_API_H

#include <sys/queue.h>
#include <sys/socket.h>

#include <event2/keyvalq_struct.h>

#include "broker/internal.h"

#define API_MAX_SEGMENTS 8

struct api_ctx {
    struct broker *b;
    struct evhttp_request *req;
    char *seg[API_MAX_SEGMENTS]; /* decoded path segments: "v1", ... */
    size_t nseg;
    struct evkeyvalq query; /* decoded query parameters */
    json_t *body;           /* POST/PUT body (an object), else NULL */
};

struct api_route {
    enum evhttp_cmd_type method;
    const char *pattern; /* "v1/agents/<star>/exit": '*' is one segment */
    void (*fn)(struct api_ctx *);
};

/* Extension tables (each file defines its table and its size). */
extern const struct api_route api_collab_routes[];
extern const size_t api_collab_nroutes;
extern const struct api_route api_map_routes[];
extern const size_t api_map_nroutes;

/* A request on the loopback TCP listener (local address *local): 0 when
 * it may proceed, else -1 after a 403 (Host or Origin not this daemon's)
 * or 401 (no token where one is needed) reply (api_map.c). */
int api_map_check_tcp(struct api_ctx *c, const struct sockaddr_storage *local);
extern const struct api_route api_team_routes[];
extern const size_t api_team_nroutes;
extern const struct api_route api_alerts_routes[];
extern const size_t api_alerts_nroutes;

/* Reply with doc (taken) and status code. */
void api_reply_json(struct evhttp_request *req, int code, json_t *doc);
/* Reply {"error": {"code": kind, "message": ...}}. */
void api_reply_error(struct evhttp_request *req, int code, const char *kind,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Body checks: 0, or -1 after a 400 reply naming the field. */
int api_check_keys(struct api_ctx *c, const char *const *allowed);
int api_want_string(
    struct api_ctx *c, const char *key, bool required, size_t maxlen);
/* "ttlMs" (optional, > 0) into *ttl (LOCK_TTL_DEFAULT when absent). */
int api_body_ttl(struct api_ctx *c, int64_t *ttl);
/* The agent named by body[key], which acts (a lock, an intent, a
 * message's sender...): its index, or -1 after a 404/400 reply, or a 409
 * when it is another daemon's (api_local_agent_arg). */
ssize_t api_body_agent(struct api_ctx *c, const char *key);
/* The agent named by path segment seg: its index, or -1 after a 404. */
ssize_t api_agent_arg(struct api_ctx *c, size_t seg);
/* api_agent_arg for a request that acts as the agent: another daemon's
 * agent (its copy here, agent@daemon) acts through its own daemon only
 * (409 refused); -1 with the reply sent. */
ssize_t api_local_agent_arg(struct api_ctx *c, size_t seg);
/* Normalise a path or glob agent i gives (util/path.h) into *out (free
 * with free()): an absolute one must lie in the agent's worktree or the
 * main worktree and is made relative to it. AS_EINVAL (nothing in *out)
 * for an empty path, an escape, an absolute path outside both, or the
 * root itself. */
int api_norm_path(struct api_ctx *c, size_t i, const char *path, char **out);

#endif

/*
 * client.h - talk to the repository's daemon over its Unix socket (libcurl),
 * starting it on demand like a per-user agent.
 */
#ifndef AIRSPACE_CLIENT_CLIENT_H
#define AIRSPACE_CLIENT_CLIENT_H

#include <stdbool.h>

#include <jansson.h>

#include "client/api.h"
#include "git/paths.h"
#include "util/error.h"

struct client {
    struct broker_paths paths;
    char *repo_path;
    void *curl;       /* CURL *, reused across requests */
    long timeout_ms;  /* per request (0: none, for streams) */
    int sock_fd;      /* the connection's socket (libcurl's), or -1 */
    long foreign_uid; /* the last request's server, when not us; or -1 */
    bool unsent;      /* the last request failed to connect: nothing was sent */
};

/*
 * Resolve the daemon for the repository containing repo_path. A daemon
 * that takes the connection but does not answer the probe while it holds
 * the repository is busy, and is used (the requests have their own
 * deadline). With autostart, a daemon that does not answer is started
 * (detached, logging to its log file) and waited for; one start at a time: a
 * client that loses the race waits for the winner's daemon (bounded) and uses
 * it. Every connection is refused, before anything is sent, when the socket is
 * served by another user. Returns 0, AS_ENOENT (not a repository), AS_ECONFLICT
 * (another user serves the socket), AS_EIO (the daemon cannot be reached or
 * started, or the airspace directory is not a private one of ours).
 */
int client_open(
    struct client *c, const char *repo_path, bool autostart, struct as_err *e);
void client_close(struct client *c);

/* Whether a daemon answers on the socket. */
bool client_ping(struct client *c);

/* Whether a daemon process holds the repository of repo_path (its pid in
 * the daemon lock file, alive), answering or not. */
bool client_daemon_alive(const char *repo_path);

/*
 * One request: method ("GET", "POST", "DELETE"), path (api.h builds them), an
 * optional JSON body (borrowed). On an HTTP answer returns 0 with *status
 * and *reply (the parsed JSON, or NULL when not JSON; json_decref it);
 * AS_EIO with a message when the daemon cannot be reached, AS_ECONFLICT
 * (nothing sent) when another user serves the socket.
 */
int client_request(struct client *c, const char *method, const char *path,
    json_t *body, long *status, json_t **reply, struct as_err *e);

/* One request of the API (api.h), released either way; otherwise as
 * client_request(). */
int client_call(struct client *c, struct api_req r, long *status,
    json_t **reply, struct as_err *e);

/* Server-Sent Events: fn gets each event's id, type and data; a non-zero
 * return stops the stream. Returns 0 when fn stopped it or the daemon
 * closed it; AS_EIO when it cannot connect. */
typedef int client_event_fn(
    void *ctx, const char *id, const char *type, const char *data);
int client_stream(struct client *c, const char *path, client_event_fn *fn,
    void *ctx, struct as_err *e);

/* Exit code for an HTTP status (2xx 0, 409/403/401 1, 4xx 2, 5xx 4). */
int client_exit_code(long status);

/* The message of an error reply, or a fallback. Borrowed from reply. */
const char *client_error_message(json_t *reply);

#endif

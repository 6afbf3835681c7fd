/*
 * hook_http.h - one HTTP/1.1 request to the daemon over its Unix socket,
 * for the hook, whose whole budget is a few milliseconds: libcurl alone
 * costs about 5.6 ms of process start-up here (it loads TLS, GSSAPI and
 * LDAP libraries), so the hook binary links none of that. One request per
 * connection (Connection: close); the reply must carry Content-Length, as
 * the daemon's always do. Every step has the same deadline.
 */
#ifndef AIRSPACE_HOOKS_HOOK_HTTP_H
#define AIRSPACE_HOOKS_HOOK_HTTP_H

/*
 * Send method path with body (NULL: none) to the socket; on an answer
 * within timeout_ms returns 0 with *status and *reply (the body, NUL
 * terminated; free it). AS_ENOENT when nobody listens there (no socket, or
 * a dead daemon's socket: the connection is refused), so the daemon can be
 * started; AS_ECONFLICT, having sent nothing, when another user serves the
 * socket (an impostor); AS_EIO when the daemon did not answer in time or
 * the exchange failed.
 */
int hook_http(const char *sock, const char *method, const char *path,
    const char *body, long timeout_ms, long *status, char **reply);

#endif

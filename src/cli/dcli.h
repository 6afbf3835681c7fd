/*
 * dcli.h - what the commands that talk to the daemon share: usage errors,
 * connecting (starting the daemon on demand), one request with its error
 * printed and its exit code, printing JSON.
 */
#ifndef AIRSPACE_CLI_DCLI_H
#define AIRSPACE_CLI_DCLI_H

#include <stdbool.h>

#include <jansson.h>

#include "client/client.h"

/* Print "airspace CMD: <message>" and the help hint; returns exit 2. */
int dcli_usage(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Connect to the daemon of repo (starting it unless no_start); 0 or the
 * exit code after printing why (2 not a repository, 3 unreachable). */
int dcli_open(
    struct client *cl, const char *repo, bool no_start, const char *cmd);

/* One request (api.h; released); on failure prints the daemon's message
 * (or why it is unreachable) and returns the exit code; *reply is set
 * either way (may be NULL; json_decref it). */
int dcli_call(
    struct client *cl, const char *cmd, struct api_req r, json_t **reply);

/* Indented JSON on stdout. */
void dcli_print_json(json_t *v);

/* A string member, or "-". */
const char *dcli_str(json_t *o, const char *k);
/* The other party of a conflict object (GET /v1/conflicts) into buf: the
 * second agent, an owner, or "branch NAME" for an integration conflict. */
void dcli_conflict_with(json_t *c, char *buf, size_t len);
/* An agent object's status as shown: "parked" for a parked agent (not
 * active, its work not landed), else its status. */
const char *dcli_agent_state(json_t *a);

#endif

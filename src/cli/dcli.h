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

/* Connect to the daemon of repo (starting it unless no_start, as
 * dcli_client_open()); 0 or the exit code after printing why (2 not a
 * repository or a configuration the daemon would not start on, 3
 * unreachable). */
int dcli_open(
    struct client *cl, const char *repo, bool no_start, const char *cmd);

/*
 * Before a command starts the daemon of repo on demand: when no daemon
 * holds the repository, check the configuration files as the daemon reads
 * them at its start (config_read(), then the [risk] settings together,
 * risk_config_check()). 0, or AS_EINVAL with the daemon's message
 * ("config file '...': risk.weight.ovrlap = 0.5: unknown model key ...")
 * when it would not start on them (docs/config.md, "Errors").
 */
int dcli_start_check(const char *repo, struct as_err *e);

/*
 * client_open(), but with autostart the configuration is checked first
 * (dcli_start_check()): AS_EINVAL with its message, nothing started and
 * *cl zeroed, when the daemon would not start on it (also when a start
 * failed because a daemon that held the repository had gone meanwhile).
 * Otherwise as client_open(). Commands exit 2 on AS_EINVAL.
 */
int dcli_client_open(
    struct client *cl, const char *repo, bool autostart, struct as_err *e);

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

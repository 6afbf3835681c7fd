/*
 * config.h - airspace's configuration files (docs/config.md).
 *
 * Git-config syntax, read with libgit2's parser, in layers from low to
 * high precedence:
 *
 *   user        $XDG_CONFIG_HOME/airspace/config (~/.config/airspace/config)
 *   repository  <main worktree>/.airspace/config (committed team policy)
 *   git config  `airspace.integration` only, from the repository's git
 *               config (any git level), as before these files existed
 *   local       $GIT_COMMON_DIR/airspace/config
 *
 * Built-in defaults lie below every layer; command-line flags above all of
 * them (the callers apply those). A missing file is an empty layer. A file
 * that cannot be read or parsed, an unknown key in an airspace section
 * ([risk], [daemon], [airspace], [alerts], [store]) or a bad value is an
 * error naming the file (and, from libgit2's parser, the line) or the file,
 * key and value; other sections are ignored. Each setting remembers where
 * it was set, for the messages of errors found later (config_check_risk(),
 * integration_from).
 *
 * Keys: `risk.<k>` is the risk model's key k (risk_config_set()) with every
 * '-' read as '_': `[risk "weight"] merge` is weight.merge, `[risk]
 * dwell-ms` is dwell_ms, `[risk "recency"] half-life-ms` is
 * recency.half_life_ms. `daemon.<timer>` sets serve's --<timer> (stale-ms,
 * rescan-ms, debounce-ms, tick-ms, window-ms, idle-exit-ms,
 * agent-timeout-ms, request-timeout-ms, conn-idle-ms).
 * `airspace.integration` names the integration branch. `alerts.<k>`: the
 * alert engine (silent, waiting, repeat: seconds; cap: a count; command:
 * the notification command, taken from the user and local files only --
 * the committed repository file cannot name a command to run).
 *
 * `store.url` is the daemon's store (a path, sqlite:PATH or a libpq
 * postgresql:// URL), `store.airspace` the name its clones share in a
 * shared store, `store.node` this daemon's name in it (docs/team.md).
 *
 * No clock, no environment except config_user_path(). A struct config owns
 * its strings: config_init() / config_release().
 */
#ifndef AIRSPACE_GIT_CONFIG_H
#define AIRSPACE_GIT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/risk.h"
#include "git/repo.h"
#include "util/error.h"

/* One risk model setting: risk_config_set()'s key, the text value and the
 * file that set it last. */
struct config_risk {
    char *key;
    char *value;
    char *file;
};

enum config_timer {
    CONFIG_STALE_MS,
    CONFIG_RESCAN_MS,
    CONFIG_DEBOUNCE_MS,
    CONFIG_TICK_MS,
    CONFIG_WINDOW_MS,
    CONFIG_IDLE_EXIT_MS,
    CONFIG_AGENT_TIMEOUT_MS,
    CONFIG_REQUEST_TIMEOUT_MS,
    CONFIG_CONN_IDLE_MS,
    CONFIG_MERGE_BUDGET_MS,
    CONFIG_NTIMERS
};

struct config {
    /* [store] url, airspace, node, wip-remote (docs/team.md): NULL when
     * not set */
    char *store_url, *store_airspace, *store_node, *store_wip_remote;
    struct config_risk *risk; /* one per key, already checked */
    size_t nrisk;
    int64_t timer[CONFIG_NTIMERS]; /* -1: not set */
    char *integration;             /* NULL: not set */
    /* where integration was set, for messages: "config file '...'" or
     * "git config 'airspace.integration'" */
    char *integration_from;
    /* [alerts]: -1 (cap: -1) when not set */
    int64_t alerts_silent_ms, alerts_waiting_ms, alerts_repeat_ms;
    int64_t alerts_cap;
    char *alerts_command; /* NULL: not set */
    /* what to tell the user about alerts_command: its line in the file
     * that set it goes on after a ';' or '#' that cut it (NULL: nothing) */
    char *alerts_warning;
    bool reading_committed; /* private: the repository file is being read */
};

void config_init(struct config *c);
void config_release(struct config *c);

/*
 * Read one file into c; its settings override those already in c. A
 * missing file reads as empty. Returns 0, or AS_EIO (cannot read it),
 * AS_EPARSE (malformed: libgit2's message names the file and line) or
 * AS_EINVAL (unknown key or bad value: names file, key and value); c may
 * hold part of the file then.
 */
int config_read_file(struct config *c, const char *path, struct as_err *e);

/*
 * The user file: $XDG_CONFIG_HOME/airspace/config when XDG_CONFIG_HOME is
 * absolute, else $HOME/.config/airspace/config; NULL when HOME is not
 * absolute either. New string.
 */
char *config_user_path(void);

/*
 * Read every layer for repository r into c, low to high (see above); r NULL
 * reads the user file only. Errors as config_read_file(); a git config
 * that cannot be read is AS_EGIT.
 */
int config_read(struct config *c, struct repo *r, struct as_err *e);

/* Apply c's risk settings to cfg. Cannot fail: they were checked when
 * read. */
void config_apply_risk(const struct config *c, struct risk_config *cfg);

/*
 * Check the order of cfg's thresholds as risk_config_check() does; cfg is
 * c's risk settings (c NULL: they were not applied) and then sets (nsets
 * "KEY=VALUE" strings, the --set options; NULL when none) over the
 * built-in values. Returns 0, or AS_EINVAL with a message that names, for
 * each of the two settings, where it was last set: --set, a config file,
 * or built in.
 */
int config_check_risk(const struct config *c, const char *const *sets,
    size_t nsets, const struct risk_config *cfg, struct as_err *e);

/* Why url cannot be a store's (store.url, serve --store): an empty one,
 * "sqlite:" with no path, a scheme other than postgresql:// (static
 * text); NULL when it can. */
const char *config_store_url_check(const char *url);

#endif

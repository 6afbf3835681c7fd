/*
 * hook_int.h - what the parts of one hook call share: the call's state,
 * the daemon request with its deadline (hook.c) and the answer; the tool
 * calls' checks and reports live in hook_tools.c. Internal to src/hooks.
 */
#ifndef AIRSPACE_HOOKS_HOOK_INT_H
#define AIRSPACE_HOOKS_HOOK_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "client/api.h"

enum dialect { D_CLAUDE, D_CODEX, D_GEMINI };

struct hook {
    enum dialect d;
    json_t *in;
    const char *event; /* hook_event_name */
    char *agent;       /* our id for this session */
    char *cwd;         /* the input's cwd, resolved (relative paths' base) */
    char *root;        /* worktree root of cwd */
    char *sock;        /* the daemon's socket */
    char *dir;         /* the airspace directory (crew update records) */
    long timeout;      /* per request, ms */
    long lock_timeout; /* for a lock check, ms */
    bool await_start;  /* a daemon not running: start it, wait for it */
    bool connected;
    char note[512]; /* something to tell the model with the answer */
};

/* One request to the daemon within the call's deadline (r released): the
 * reply of a 2xx, else NULL; a daemon that does not answer marks the hook
 * unconnected, with a note for the model (starting it when it is not
 * running; with await_start, waiting for it to serve and asking again,
 * all within the one deadline). */
json_t *hook_call(struct hook *h, struct api_req r);

/* Write the answer in the client's dialect: deny (a reason) or context
 * for the model, either NULL; the note goes with it. */
void hook_emit(struct hook *h, const char *deny, const char *context);

/* A string member of o, or dflt. */
const char *hook_str_or(json_t *o, const char *key, const char *dflt);

/* What the model is told of a parked agent (the daemon's `parked`): its
 * session ended or went silent, and what it changed is still in its
 * worktree. */
#define HOOK_PARKED "parked: not active now, its work not landed"
/* ": C1, C2" of an advisory's "why" (the channels that make up its risk,
 * most first), or "" when it has none; the caller frees it. */
char *hook_why(json_t *advisory);

/* PreToolUse (BeforeTool): deny a path another agent holds or one this
 * agent must give way on, hold once on an approach, otherwise context;
 * snapshots the files for the exact span afterwards. */
void hook_pre_tool(struct hook *h);

/* PostToolUse (AfterTool): report each edited file with the lines it
 * changed. */
void hook_post_tool(struct hook *h);

#endif

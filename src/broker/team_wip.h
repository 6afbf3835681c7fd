/*
 * team_wip.h - work in progress shared through git between the daemons
 * of a team (docs/team.md, git/wip.h): each local agent's snapshot tree
 * pushed as refs/airspace/wip/<node>/<agent> and named in its published
 * working set; another daemon's agent, mirrored here, gets its tree by a
 * fetch, so the merge channel scores pairs across daemons.
 *
 * The published working set (a JSON array of files) carries it as one
 * more element, {"wip": {"ref", "tree", "base", "commit"}}, which readers
 * of files skip (it has no path).
 */
#ifndef AIRSPACE_BROKER_TEAM_WIP_H
#define AIRSPACE_BROKER_TEAM_WIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct broker;
struct team_wip;

/* NULL when remote is NULL: nothing shared. node: this daemon's. */
struct team_wip *team_wip_new(const char *remote, const char *node);
void team_wip_free(struct team_wip *w);

/* Local agent i's files (JSON text, taken) with its work in progress:
 * its snapshot pushed when it changed and the last push is old enough,
 * the last one pushed named. An agent with nothing to share (no change,
 * or neither active nor parked) has its ref deleted on the remote and
 * here. A new string. */
char *team_wip_publish(
    struct broker *b, struct team_wip *w, size_t i, int64_t now, char *files);

/* Local agent id left this daemon's agents: its ref, when one was
 * pushed, is deleted on the remote and here. */
void team_wip_forget(struct broker *b, struct team_wip *w, const char *id);

/* A mirrored agent left (files: its working set as last read): the copy
 * of its ref fetched here is deleted. */
void team_wip_unmirror(struct broker *b, struct team_wip *w, const char *files);

/* Mirrored agent i (its files just read into it) gets the tree its
 * daemon pushed, fetched when not here; else none. */
void team_wip_mirror(
    struct broker *b, struct team_wip *w, size_t i, json_t *files);

/* Whether mirrored agent i lost the tree files gave it (a rescan drops
 * every agent's tree it does not read again): mirror it again. */
bool team_wip_lost(
    struct broker *b, struct team_wip *w, size_t i, const char *files);

#endif

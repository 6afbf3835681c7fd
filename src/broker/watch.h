/*
 * watch.h - the agents' worktrees watched (watch.c). Internal to src/broker.
 */
#ifndef AIRSPACE_BROKER_WATCH_H
#define AIRSPACE_BROKER_WATCH_H

#include "broker/internal.h"

/* File watching (watch.c): watch agent i's worktree; the inotify and
 * debounce callbacks. */
void broker_watch_worktree(struct broker *b, size_t i);
void broker_on_inotify(evutil_socket_t fd, short what, void *arg);
void broker_on_debounce(evutil_socket_t fd, short what, void *arg);
/* Take the events the watch has queued now (a file written before this
 * moment is among them), as broker_on_inotify() would a moment later. */
void broker_watch_drain(struct broker *b);
/* Read again now every agent marked dirty (a file event, a changed git
 * state), announce and score it. */
void broker_refresh_dirty(struct broker *b);

#endif

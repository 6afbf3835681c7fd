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
/* Whether git is changing files in worktree now, so that what is read
 * there meanwhile is half of it: its index is locked (a checkout, a merge,
 * airspace land), or it is a linked worktree that git has not checked out
 * yet (`git worktree add`, `airspace agent new` under way: no index).
 * Neither counts past 10 s (a crashed process's). */
bool broker_worktree_busy(const char *worktree, int64_t now_ms);
/* Agent i's worktree is busy: read it once git is done there. */
void broker_read_later(struct broker *b, size_t i);

#endif

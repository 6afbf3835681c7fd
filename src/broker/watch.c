/*
 * watch.c - the agents' worktrees watched: one inotify watch per
 * directory (.git and dependency trees left out), new directories watched
 * as they appear, and a changed agent's working set read again after the
 * debounce.
 */
#include "broker/agents.h"
#include "broker/events.h"
#include "broker/score.h"
#include "broker/watch.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/sockpath.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* ---- file watching ---- */

/* Whether a directory entry is left unwatched (the repository itself,
 * dependency trees). */
static bool
watch_skips(const char *name)
{
    return !strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, ".git") ||
           !strcmp(name, "node_modules");
}

static void
watch_dir(struct broker *b, size_t agent, const char *dir, int depth)
{
    if (b->inotify_fd < 0 || depth > 32)
        return;
    int wd = inotify_add_watch(b->inotify_fd, dir,
        IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
            IN_CLOSE_WRITE | IN_ONLYDIR);
    if (wd < 0) {
        if (errno == ENOSPC && !b->watch_incomplete)
            broker_log(b,
                "inotify watch limit reached at '%s'; relying on "
                "the periodic rescan",
                dir);
        b->watch_incomplete = true;
        return;
    }
    if ((size_t)wd >= b->nwatches) {
        size_t n = b->nwatches ? b->nwatches : 64;
        while (n <= (size_t)wd)
            n *= 2;
        b->watches = xrealloc(b->watches, n * sizeof(*b->watches));
        memset(b->watches + b->nwatches, 0,
            (n - b->nwatches) * sizeof(*b->watches));
        b->nwatches = n;
    }
    struct bwatch *w = &b->watches[wd];
    if (w->dir && !strcmp(w->dir, dir))
        return; /* already watched (the same directory) */
    /* new, or a watched directory moved here: (re)name it and its tree */
    if (!w->dir)
        w->agent = (uint32_t)agent;
    free(w->dir);
    w->dir = xstrdup(dir);
    w->depth = depth;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_type != DT_DIR || watch_skips(de->d_name))
            continue;
        char *sub = xasprintf("%s/%s", dir, de->d_name);
        watch_dir(b, agent, sub, depth + 1);
        free(sub);
    }
    closedir(d);
}

void
broker_watch_worktree(struct broker *b, size_t i)
{
    if (b->ag[i].worktree)
        watch_dir(b, i, b->ag[i].worktree, 0);
}

void
broker_on_debounce(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct broker *b = arg;
    b->debounce_armed = false;
    broker_refresh_dirty(b);
}

static void
arm_debounce(struct broker *b)
{
    if (b->debounce_armed)
        return;
    struct timeval tv = { b->o.debounce_ms / 1000,
        (b->o.debounce_ms % 1000) * 1000 };
    evtimer_add(b->debounce_ev, &tv);
    b->debounce_armed = true;
}

/* A git command holds the worktree's index lock for as long as it
 * changes files there (a checkout, a merge, airspace land): what is read
 * meanwhile is half of it. A lock older than this is a crashed one's. */
#define BUSY_LOCK_MS 10000

static bool
worktree_busy(const char *worktree, int64_t now_ms)
{
    char *gitdir = worktree ? broker_git_dir_of(worktree) : NULL;
    if (!gitdir)
        return false;
    char *lock = xasprintf("%s/index.lock", gitdir);
    struct stat st;
    bool busy =
        stat(lock, &st) == 0 && now_ms - ((int64_t)st.st_mtim.tv_sec * 1000 +
                                             st.st_mtim.tv_nsec / 1000000) <
                                    BUSY_LOCK_MS;
    free(lock);
    free(gitdir);
    return busy;
}

void
broker_refresh_dirty(struct broker *b)
{
    bool deferred = false;
    for (size_t i = 0; i < b->nagents; i++) {
        if (!b->meta[i].dirty_since)
            continue;
        if (worktree_busy(b->ag[i].worktree, broker_now())) {
            deferred = true; /* read it once git is done there */
            continue;
        }
        struct as_err e;
        if (broker_refresh_agent(b, i, &e)) {
            /* its working set stays as last read; nothing changed to say */
            broker_log(b, "refresh %s: %s", b->ag[i].id, e.msg);
            b->meta[i].dirty_since = 0;
            continue;
        }
        json_t *d = json_object();
        json_object_set_new(
            d, "files", json_integer((json_int_t)b->ag[i].nfiles));
        broker_emit(b, "workset.changed", b->ag[i].id, d);
        broker_rescore(b, i);
        b->meta[i].dirty_since = 0;
        if (broker_who(b, i)->shared && b->ag[i].worktree)
            broker_refresh_residual(b, b->ag[i].worktree);
    }
    if (deferred)
        arm_debounce(b);
}

void
broker_on_inotify(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    struct broker *b = arg;
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n <= 0)
            break;
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *ev = (struct inotify_event *)p;
            if (ev->mask & IN_Q_OVERFLOW) /* events lost: read them all */
                b->watch_overflow = true;
            struct bwatch *w = ev->wd >= 0 && (size_t)ev->wd < b->nwatches
                                   ? &b->watches[ev->wd]
                                   : NULL;
            p += sizeof(*ev) + ev->len;
            if (!w || !w->dir || w->agent >= b->nagents)
                continue;
            if (ev->mask & IN_IGNORED) { /* the directory is gone */
                free(w->dir);
                w->dir = NULL;
                continue;
            }
            if (!b->meta[w->agent].dirty_since)
                b->meta[w->agent].dirty_since = broker_now();
            /* A new directory (made, or moved in) gets its own watches. */
            if ((ev->mask & IN_ISDIR) &&
                (ev->mask & (IN_CREATE | IN_MOVED_TO)) && ev->len &&
                !watch_skips(ev->name)) {
                char *sub = xasprintf("%s/%s", w->dir, ev->name);
                watch_dir(b, w->agent, sub, w->depth + 1);
                free(sub);
            }
        }
    }
    arm_debounce(b);
}

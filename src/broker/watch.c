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

/* Watch dir and the directories under it for agent; the watch's
 * descriptor, or -1. */
static int
watch_dir(struct broker *b, size_t agent, const char *dir, int depth)
{
    if (b->inotify_fd < 0 || depth > 32)
        return -1;
    int wd = inotify_add_watch(b->inotify_fd, dir,
        IN_MODIFY | IN_ATTRIB | IN_CREATE | IN_DELETE | IN_MOVED_FROM |
            IN_MOVED_TO | IN_CLOSE_WRITE | IN_ONLYDIR);
    if (wd < 0) {
        if (errno == ENOSPC && !b->watch_incomplete)
            broker_log(b,
                "inotify watch limit reached at '%s'; relying on "
                "the periodic rescan",
                dir);
        b->watch_incomplete = true;
        return -1;
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
        return wd; /* already watched (the same directory) */
    /* new, or a watched directory moved here: (re)name it and its tree */
    if (!w->dir)
        w->agent = (uint32_t)agent;
    free(w->dir);
    w->dir = xstrdup(dir);
    w->depth = depth;
    DIR *d = opendir(dir);
    if (!d)
        return wd;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_type != DT_DIR || watch_skips(de->d_name))
            continue;
        char *sub = xasprintf("%s/%s", dir, de->d_name);
        watch_dir(b, agent, sub, depth + 1);
        free(sub);
    }
    closedir(d);
    return wd;
}

void
broker_watch_worktree(struct broker *b, size_t i)
{
    const char *wt = b->ag[i].worktree;
    if (!wt)
        return;
    int wd = b->meta[i].root_wd = watch_dir(b, i, wt, 0);
    if (wd <= 0 || b->watches[wd].agent == i ||
        b->watches[wd].agent >= b->nagents ||
        broker_who(b, b->watches[wd].agent)->status == AS_AGENT_ACTIVE)
        return;
    /* watched for an agent that left (a new session there under another
     * id): its events are this agent's now, or its edits would be read
     * for the one that left */
    uint32_t old = b->watches[wd].agent;
    size_t n = strlen(wt);
    for (size_t k = 0; k < b->nwatches; k++) {
        struct bwatch *w = &b->watches[k];
        if (w->dir && w->agent == old && !strncmp(w->dir, wt, n) &&
            (!w->dir[n] || w->dir[n] == '/'))
            w->agent = (uint32_t)i;
    }
    b->meta[i].pending_all = true;
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

/* Whether path was changed within BUSY_LOCK_MS of now. */
static bool
recent(const char *path, int64_t now_ms)
{
    struct stat st;
    return stat(path, &st) == 0 && now_ms - ((int64_t)st.st_mtim.tv_sec * 1000 +
                                                st.st_mtim.tv_nsec / 1000000) <
                                       BUSY_LOCK_MS;
}

bool
broker_worktree_busy(const char *worktree, int64_t now_ms)
{
    char *gitdir = worktree ? broker_git_dir_of(worktree) : NULL;
    if (!gitdir)
        return false;
    char *lock = xasprintf("%s/index.lock", gitdir);
    char *index = xasprintf("%s/index", gitdir);
    char *common = xasprintf("%s/commondir", gitdir);
    struct stat st;
    /* a linked worktree (it has a commondir) with no index yet, just made:
     * git is about to check it out; every file would read as deleted */
    bool busy = recent(lock, now_ms) ||
                (stat(common, &st) == 0 && stat(index, &st) != 0 &&
                    errno == ENOENT && recent(gitdir, now_ms));
    free(common);
    free(index);
    free(lock);
    free(gitdir);
    return busy;
}

void
broker_read_later(struct broker *b, size_t i)
{
    if (!b->meta[i].dirty_since)
        b->meta[i].dirty_since = broker_now();
    arm_debounce(b);
}

void
broker_refresh_dirty(struct broker *b)
{
    bool deferred = false;
    for (size_t i = 0; i < b->nagents; i++) {
        if (!b->meta[i].dirty_since)
            continue;
        if (broker_worktree_busy(b->ag[i].worktree, broker_now())) {
            deferred = true; /* read it once git is done there */
            continue;
        }
        struct as_err e;
        if (broker_refresh_agent(b, i, &e)) {
            /* its working set stays as last read, unless its worktree is
             * gone (and its work with it) */
            broker_log(b, "refresh %s: %s", b->ag[i].id, e.msg);
            b->meta[i].dirty_since = 0;
            broker_forget_gone_worktree(b, i);
            continue;
        }
        json_t *d = json_object();
        json_object_set_new(
            d, "files", json_integer((json_int_t)b->ag[i].nfiles));
        broker_emit(b, "workset.changed", b->ag[i].id, d);
        broker_rescore(b, i);
        b->meta[i].dirty_since = 0;
        /* the person there, if any: what the agents there hold is not
         * theirs (a shared worktree, or one a person came to) */
        if (!broker_who(b, i)->human_residual && b->ag[i].worktree)
            broker_refresh_residual(b, b->ag[i].worktree);
    }
    if (deferred)
        arm_debounce(b);
}

/* More paths than this changed since a read: the next reads them all. */
#define WATCH_MAX_PENDING 4096

/*
 * Note, for a read limited to what changed (agents.c), the path an event
 * names in agent's worktree. What a path cannot say marks the next read a
 * whole one: an event on a watched directory itself, a directory outside
 * the worktree (not expected), a change to how git sees every path
 * (.gitignore, .gitattributes, .gitmodules), too many paths.
 */
static void
watch_note(struct broker *b, const struct bwatch *w, const char *name)
{
    struct bagent *m = &b->meta[w->agent];
    const char *wt = b->ag[w->agent].worktree;
    size_t n = wt ? strlen(wt) : 0;
    if (m->pending_all)
        return;
    if (!*name || !wt || strncmp(w->dir, wt, n) ||
        (w->dir[n] && w->dir[n] != '/') || !strncmp(name, ".git", 4) ||
        m->pending.count >= WATCH_MAX_PENDING) {
        m->pending_all = true;
        return;
    }
    char *rel =
        w->dir[n] ? xasprintf("%s/%s", w->dir + n + 1, name) : xstrdup(name);
    strmap_put(&m->pending, rel, strlen(rel), 0, NULL);
    free(rel);
}

/* Take every event queued on the watch; whether there was one. */
static bool
watch_take(struct broker *b)
{
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    bool any = false;
    for (;;) {
        ssize_t n = read(b->inotify_fd, buf, sizeof(buf));
        if (n <= 0)
            break;
        any = true;
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *ev = (struct inotify_event *)p;
            if (ev->mask & IN_Q_OVERFLOW) { /* events lost: read them all */
                b->watch_overflow = true;
                for (size_t i = 0; i < b->nagents; i++)
                    b->meta[i].pending_all = true;
            }
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
            watch_note(b, w, ev->len ? ev->name : "");
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
    return any;
}

void
broker_watch_drain(struct broker *b)
{
    if (b->inotify_fd >= 0 && watch_take(b))
        arm_debounce(b);
}

void
broker_on_inotify(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct broker *b = arg;
    watch_take(b);
    arm_debounce(b);
}

/*
 * fence.c - the fencing token's and the event id's high-water marks kept
 * beside the store, so that a store put back from an older copy cannot
 * make either go backwards (fence.h).
 *
 * <airspace dir>/fence holds two lines, "token N" and "event M": every
 * token and event id the daemon handed out is below them. A mark is
 * raised a block ahead (FENCE_TOKEN_BLOCK, FENCE_EVENT_BLOCK) when the
 * counter reaches it, written to a new file, fsynced and renamed over the
 * old one before the token or event that passed it is acknowledged (the
 * replies wait for the request's commit, after this). At start the
 * counters go on from the greater of the store's and these.
 */
#include "broker/fence.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "broker/internal.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define FENCE_TOKEN_BLOCK 1024
#define FENCE_EVENT_BLOCK 4096

static struct {
    bool on; /* a SQLite store: a team's tokens come from its database */
    char *path;
    uint64_t token, event; /* the marks on disk */
    int64_t failed_at;     /* last logged failure */
} fence;

/* Write both marks: 0, or -1 (logged, at most once a minute). */
static int
fence_write(struct broker *b, uint64_t token, uint64_t event)
{
    char *tmp = xasprintf("%s.new", fence.path);
    char text[64];
    int n = snprintf(text, sizeof(text),
        "token %" PRIu64 "\nevent %" PRIu64 "\n", token, event);
    int fd =
        open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    int rc =
        fd < 0 || write(fd, text, (size_t)n) != n || fsync(fd) < 0 ? -1 : 0;
    int err = errno;
    if (fd >= 0 && close(fd) < 0 && !rc) {
        rc = -1;
        err = errno;
    }
    if (!rc && rename(tmp, fence.path) < 0) {
        rc = -1;
        err = errno;
    }
    if (!rc) {
        /* the rename itself survives a crash once the directory is synced */
        char *slash = strrchr(fence.path, '/');
        char *dir = slash ? xstrndup(fence.path, (size_t)(slash - fence.path))
                          : xstrdup(".");
        int dfd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
        free(dir);
        fence.token = token;
        fence.event = event;
    } else {
        unlink(tmp);
        int64_t now = broker_now();
        if (now - fence.failed_at >= 60000) {
            fence.failed_at = now;
            broker_log(b,
                "fence: cannot write '%s': %s (the store's own marks "
                "still hold)",
                fence.path, strerror(err));
        }
    }
    free(tmp);
    return rc;
}

void
broker_fence_load(struct broker *b, uint64_t *next_token, uint64_t *next_event)
{
    free(fence.path);
    memset(&fence, 0, sizeof(fence));
    if (!b->db || strcmp(db_backend(b->db), "sqlite"))
        return;
    fence.on = true;
    fence.path = xasprintf("%s/fence", b->paths.dir);
    FILE *f = fopen(fence.path, "re");
    uint64_t t = 0, ev = 0;
    if (f) {
        char line[96];
        while (fgets(line, sizeof(line), f)) {
            uint64_t v;
            if (sscanf(line, "token %" SCNu64, &v) == 1)
                t = v;
            else if (sscanf(line, "event %" SCNu64, &v) == 1)
                ev = v;
        }
        fclose(f);
    }
    fence.token = t;
    fence.event = ev;
    /* A mark is at most a block above what was handed out when it was
     * written, so a store more than a block below it is certainly behind;
     * a little below is the block's slack, and goes on from the mark
     * silently. */
    if (t > *next_token + FENCE_TOKEN_BLOCK ||
        ev > *next_event + FENCE_EVENT_BLOCK)
        broker_log(b,
            "fence: the store's counters (token %" PRIu64 ", event %" PRIu64
            ") are below the marks in '%s' (token %" PRIu64 ", event %" PRIu64
            "): the store was put back from an older copy; they go on from "
            "the marks",
            *next_token, *next_event, fence.path, t, ev);
    if (t > *next_token)
        *next_token = t;
    if (ev > *next_event)
        *next_event = ev;
}

void
broker_fence_note(struct broker *b)
{
    if (!fence.on)
        return;
    uint64_t t = lock_table_next_token(b->locks), ev = b->next_event_id;
    if (t <= fence.token && ev <= fence.event)
        return;
    fence_write(b, t > fence.token ? t + FENCE_TOKEN_BLOCK : fence.token,
        ev > fence.event ? ev + FENCE_EVENT_BLOCK : fence.event);
}

void
broker_fence_release(struct broker *b)
{
    /* A clean stop: the counters themselves, so the next start goes on
     * from them without a jump (after a crash it jumps to the marks). */
    if (fence.on && b->locks)
        fence_write(b, lock_table_next_token(b->locks), b->next_event_id);
    free(fence.path);
    memset(&fence, 0, sizeof(fence));
}

#include "git/indexlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <git2/sys/repository.h>

#include "git/repo.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void
pause_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Copy from into to (which exists), with from's modification time.
 * 1 when from does not exist, -1 on error. */
static int
copy_index(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return errno == ENOENT ? 1 : -1;
    int out = open(to, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (out < 0) {
        close(in);
        return -1;
    }
    char buf[65536];
    ssize_t n;
    int rc = 0;
    while (!rc && (n = read(in, buf, sizeof(buf))) != 0) {
        if (n < 0) {
            if (errno != EINTR)
                rc = -1;
            continue;
        }
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                rc = -1;
                break;
            }
            off += w;
        }
    }
    struct stat st;
    if (!rc && fstat(in, &st) == 0) {
        /* racy-git judgement needs it, to the second as git judges
         * (libgit2 would judge to the nanosecond, and miss an entry git
         * takes as racy: written in the same second, earlier in it) */
        struct timespec times[2] = { st.st_atim, st.st_mtim };
        times[1].tv_nsec = 0;
        if (futimens(out, times) < 0)
            rc = -1;
    }
    close(in);
    if (close(out) < 0)
        rc = -1;
    return rc;
}

void
index_lock_abort(struct index_lock *l)
{
    git_index_free(l->idx);
    git_repository_free(l->owner);
    if (l->tmp)
        unlink(l->tmp);
    if (l->locked)
        unlink(l->lock);
    free(l->index_path);
    free(l->lock);
    free(l->tmp);
    memset(l, 0, sizeof(*l));
}

int
index_lock_take(struct index_lock *l, const char *workdir,
    const char *index_path, unsigned tries, unsigned wait_ms, struct as_err *e)
{
    memset(l, 0, sizeof(*l));
    if (git_repository_open(&l->owner, workdir) < 0)
        return repo_git_errorf(e, "cannot open the worktree '%s'", workdir);
    l->index_path = index_path
                        ? xstrdup(index_path)
                        : xasprintf("%sindex", git_repository_path(l->owner));
    index_path = l->index_path;
    l->lock = xasprintf("%s.lock", index_path);
    int fd = -1;
    for (unsigned i = 0; i < (tries ? tries : 1); i++) {
        fd = open(l->lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            break;
        if (i + 1 < tries)
            pause_ms(wait_ms);
    }
    if (fd < 0) {
        int rc = errno == EEXIST
                     ? as_errorf(e, AS_ECONFLICT,
                           "'%s' stayed locked: another git process is "
                           "using it",
                           l->lock)
                     : as_errorf(e, AS_EIO, "cannot create '%s': %s", l->lock,
                           strerror(errno));
        index_lock_abort(l);
        return rc;
    }
    close(fd);
    l->locked = true;
    l->tmp = xasprintf("%s.airspace-XXXXXX", index_path);
    int tfd = mkstemp(l->tmp);
    if (tfd < 0) {
        int rc = as_errorf(e, AS_EIO,
            "cannot make a temporary index beside "
            "'%s': %s",
            index_path, strerror(errno));
        free(l->tmp);
        l->tmp = NULL;
        index_lock_abort(l);
        return rc;
    }
    close(tfd);
    int cp = copy_index(index_path, l->tmp);
    if (cp > 0)
        unlink(l->tmp); /* no index yet: start from an empty one */
    if (cp < 0 || git_index_open(&l->idx, l->tmp) < 0) {
        int rc = cp < 0 ? as_errorf(e, AS_EIO, "cannot copy '%s': %s",
                              index_path, strerror(errno))
                        : repo_git_errorf(
                              e, "cannot read the index '%s'", index_path);
        index_lock_abort(l);
        return rc;
    }
    git_repository_set_index(l->owner, l->idx);
    return 0;
}

int
index_lock_commit(struct index_lock *l, struct as_err *e)
{
    int rc = 0;
    if (git_index_write(l->idx) < 0)
        rc = repo_git_errorf(e, "cannot write the index '%s'", l->index_path);
    else if (rename(l->tmp, l->lock) < 0 || rename(l->lock, l->index_path) < 0)
        rc = as_errorf(e, AS_EIO, "cannot replace '%s': %s", l->index_path,
            strerror(errno));
    else {
        free(l->tmp);
        l->tmp = NULL; /* now the index itself */
        l->locked = false;
    }
    index_lock_abort(l);
    return rc;
}

#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/xalloc.h"
#include "util/banned.h"

int
file_read_max(
    const char *path, size_t max, bool nofollow, char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
    if (fd < 0)
        return AS_ENOENT;
    struct stat sb;
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) ||
        (uint64_t)sb.st_size > (uint64_t)max) {
        close(fd);
        return AS_ETOOBIG;
    }
    size_t want = (size_t)sb.st_size, got = 0;
    char *p = xmalloc(want + 1);
    while (got < want) {
        ssize_t r = read(fd, p + got, want - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (got != want) {
        free(p);
        return AS_EIO;
    }
    p[got] = '\0';
    *buf = p;
    *len = got;
    return 0;
}

int
file_write_atomic(
    const char *path, const void *data, size_t len, struct as_err *e)
{
    char *tmp = xasprintf("%s.tmpXXXXXX", path);
    int rc = 0;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        rc = as_errorf(
            e, AS_EIO, "cannot create '%s': %s", tmp, strerror(errno));
        free(tmp);
        return rc;
    }
    const char *p = data;
    size_t done = 0;
    while (done < len) {
        ssize_t r = write(fd, p + done, len - done);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            rc = as_errorf(
                e, AS_EIO, "cannot write '%s': %s", tmp, strerror(errno));
            close(fd);
            goto out_unlink;
        }
        done += (size_t)r;
    }
    if (close(fd) < 0) {
        rc =
            as_errorf(e, AS_EIO, "cannot write '%s': %s", tmp, strerror(errno));
        goto out_unlink;
    }
    if (rename(tmp, path) < 0) {
        rc = as_errorf(e, AS_EIO, "cannot rename '%s' to '%s': %s", tmp, path,
            strerror(errno));
        goto out_unlink;
    }
    free(tmp);
    return 0;
out_unlink:
    unlink(tmp);
    free(tmp);
    return rc;
}

bool
file_same_dir(const char *a, const char *b)
{
    if (!a || !b)
        return false;
    if (!strcmp(a, b))
        return true;
    char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
    bool same = ra && rb && !strcmp(ra, rb);
    free(ra);
    free(rb);
    return same;
}

char *
file_first_line(const char *path)
{
    char *buf;
    size_t len;
    if (file_read_max(path, 4096, false, &buf, &len))
        return NULL;
    buf[strcspn(buf, "\r\n")] = '\0';
    return buf;
}

#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
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

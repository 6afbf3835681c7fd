#include "hooks/hook_http.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "util/sockpath.h"
#include "util/error.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define REPLY_MAX (16u << 20)

static long
left_ms(const struct timespec *deadline)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (deadline->tv_sec - now.tv_sec) * 1000 +
           (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

static int
wait_fd(int fd, short ev, const struct timespec *deadline)
{
    long ms = left_ms(deadline);
    if (ms <= 0)
        return -1;
    struct pollfd p = { fd, ev, 0 };
    int r;
    while ((r = poll(&p, 1, (int)ms)) < 0 && errno == EINTR)
        ;
    return r == 1 ? 0 : -1;
}

int
hook_http(const char *sock, const char *method, const char *path,
    const char *body, long timeout_ms, long *status, char **reply)
{
    *status = 0;
    *reply = NULL;
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (timeout_ms % 1000) * 1000000;
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000;
    }
    struct sockaddr_un sun;
    if (strlen(sock) >= sizeof(sun.sun_path))
        return AS_EIO;
    memset(&sun, 0, sizeof(sun));
    sun.sun_family = AF_UNIX;
    memcpy(sun.sun_path, sock, strlen(sock) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return AS_EIO;
    if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
        int err = errno;
        if (err != EINPROGRESS || wait_fd(fd, POLLOUT, &deadline)) {
            close(fd);
            /* nobody listens: no socket, or a dead daemon's socket */
            return err == ENOENT || err == ECONNREFUSED ? AS_ENOENT : AS_EIO;
        }
    }
    unsigned uid;
    if (!broker_socket_peer_is_us(fd, &uid)) {
        close(fd); /* another user's server: not one byte for it */
        return AS_ECONFLICT;
    }
    size_t blen = body ? strlen(body) : 0;
    char *req = xasprintf("%s %s HTTP/1.1\r\nHost: airspace\r\n"
                          "Connection: close\r\nContent-Type: "
                          "application/json\r\nContent-Length: %zu\r\n\r\n%s",
        method, path, blen, body ? body : "");
    size_t rlen = strlen(req), off = 0;
    int rc = 0;
    while (off < rlen && !rc) {
        ssize_t w = write(fd, req + off, rlen - off);
        if (w > 0)
            off += (size_t)w;
        else if (w < 0 && errno == EAGAIN)
            rc = wait_fd(fd, POLLOUT, &deadline);
        else if (!(w < 0 && errno == EINTR))
            rc = -1;
    }
    free(req);
    size_t n = 0, a = 0;
    char *buf = NULL;
    while (!rc) {
        ALLOC_GROW(buf, n + 4096 + 1, a);
        ssize_t r = read(fd, buf + n, 4096);
        if (r > 0) {
            n += (size_t)r;
            if (n > REPLY_MAX)
                rc = -1;
        } else if (r == 0) {
            break;
        } else if (errno == EAGAIN) {
            rc = wait_fd(fd, POLLIN, &deadline);
        } else if (errno != EINTR) {
            rc = -1;
        }
    }
    close(fd);
    if (rc || !buf) {
        free(buf);
        return AS_EIO;
    }
    buf[n] = '\0';
    /* "HTTP/1.1 200 OK\r\n...\r\n\r\nbody" */
    char *sp = strchr(buf, ' ');
    char *head_end = strstr(buf, "\r\n\r\n");
    if (strncmp(buf, "HTTP/1.", 7) || !sp || !head_end) {
        free(buf);
        return AS_EIO;
    }
    *status = strtol(sp + 1, NULL, 10);
    char *b = head_end + 4;
    *reply = xstrdup(b);
    free(buf);
    return 0;
}

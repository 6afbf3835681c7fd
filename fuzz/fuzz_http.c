/*
 * fuzz_http.c - raw HTTP requests (request line, headers, bodies of every
 * route) to a real daemon serving a scratch repository in a thread of this
 * process: its HTTP layer, routing, body checks and handlers see the bytes
 * as a client would send them on the Unix socket. The daemon is started
 * at the first input (and again if an input stopped it); each input is one
 * connection, written whole, its reply read to the end.
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon_thread.h"
#include "fuzz.h"
#include "util/banned.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    fuzz_daemon_start();
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", sock);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
        if (fd >= 0)
            close(fd);
        return 0; /* stopping: started again at the next input */
    }
    size_t off = 0;
    while (off < size) {
        ssize_t w = send(fd, data + off, size - off, MSG_NOSIGNAL);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    shutdown(fd, SHUT_WR);
    char buf[65536];
    struct pollfd p = { fd, POLLIN, 0 };
    while (poll(&p, 1, 2000) == 1) {
        ssize_t r = read(fd, buf, sizeof(buf));
        if (r <= 0)
            break;
    }
    close(fd);
    return 0;
}

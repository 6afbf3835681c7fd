/*
 * cmd_mcp.c - `airspace mcp`: serve the Model Context Protocol on stdin
 * and stdout, one JSON-RPC message per line, until stdin closes or a
 * SIGINT, SIGTERM or SIGHUP arrives; either way the session leaves the
 * daemon as mcp_server_release() says.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "mcp/mcp_server.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char usage[] =
    "usage: airspace mcp [--agent ID] [--repo DIR]\n\n"
    "Serve the Model Context Protocol over stdio for one agent session.\n"
    "Without --agent (or AIRSPACE_AGENT) it is the agent of the client\n"
    "session that started it, or registers one at its first tool call.\n"
    "It leaves on end of input, SIGINT,\n"
    "SIGTERM or SIGHUP. Errors go to stderr. See docs/mcp.md.\n";

/* The signal that asked us to leave (0: none), and the pipe its handler
 * writes a byte to so that poll() wakes up. */
static volatile sig_atomic_t leave_signal;
static int leave_pipe[2] = { -1, -1 };

static void
on_leave_signal(int sig)
{
    int saved = errno;
    if (!leave_signal)
        leave_signal = sig;
    if (leave_pipe[1] >= 0) {
        ssize_t w = write(leave_pipe[1], "x", 1);
        (void)w; /* a full pipe already wakes the reader */
    }
    errno = saved;
}

/* Catch the signals that end a session, without SA_RESTART so that a
 * blocked read or write returns; SIGINT and SIGTERM even when ignored (a
 * script's background job starts with SIGINT ignored, and whoever sends
 * it to this process means it), SIGHUP unless ignored (nohup). Returns 0,
 * or -1 with errno set. */
static int
catch_leave_signals(void)
{
    if (pipe(leave_pipe) < 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        int fl = fcntl(leave_pipe[i], F_GETFL);
        if (fl < 0 || fcntl(leave_pipe[i], F_SETFL, fl | O_NONBLOCK) < 0 ||
            fcntl(leave_pipe[i], F_SETFD, FD_CLOEXEC) < 0)
            return -1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_leave_signal;
    sigemptyset(&sa.sa_mask);
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaddset(&sa.sa_mask, sigs[i]);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) < 0)
            return -1;
        if (sigs[i] == SIGHUP && old.sa_handler == SIG_IGN)
            continue;
        if (sigaction(sigs[i], &sa, NULL) < 0)
            return -1;
    }
    return 0;
}

/* Write all of buf, then a newline; gives up (-1) when asked to leave. */
static int
write_line(const char *buf)
{
    size_t len = strlen(buf);
    for (int pass = 0; pass < 2; pass++) {
        const char *p = pass ? "\n" : buf;
        size_t n = pass ? 1 : len;
        while (n) {
            ssize_t w = write(1, p, n);
            if (w < 0 && errno == EINTR && !leave_signal)
                continue;
            if (w <= 0)
                return -1;
            p += w;
            n -= (size_t)w;
        }
    }
    return 0;
}

/* Answer one line; returns -1 when stdout is gone. */
static int
answer(struct mcp_server *s, const char *line, size_t len, bool oversized)
{
    char *out =
        oversized ? mcp_server_oversized() : mcp_server_handle(s, line, len);
    int rc = out ? write_line(out) : 0;
    free(out);
    return rc;
}

int
cmd_mcp(int argc, char **argv)
{
    const char *agent = getenv("AIRSPACE_AGENT"), *repo = ".";
    const struct opt table[] = {
        OPT_AGENT(&agent, NULL),
        OPT_REPO(&repo),
        OPT_TABLE_END,
    };
    int prc = opts_parse(argc, argv, table, "mcp", usage, OPTS_NO_OPERANDS);
    if (prc)
        return prc < 0 ? CLI_EXIT_OK : prc;
    signal(SIGPIPE, SIG_IGN);
    if (catch_leave_signals() < 0) {
        fprintf(stderr, "airspace mcp: cannot catch signals: %s\n",
            strerror(errno));
        return CLI_EXIT_ERROR;
    }

    struct mcp_server s;
    mcp_server_init(&s, repo, agent);
    /* Lines are split by hand so an endless line is dropped as it streams
     * instead of being buffered whole. */
    char *buf = NULL;
    size_t n = 0, a = 0;
    bool dropping = false;
    int rc = CLI_EXIT_OK;
    struct pollfd pfd[2] = { { .fd = 0, .events = POLLIN },
        { .fd = leave_pipe[0], .events = POLLIN } };
    for (;;) {
        if (leave_signal)
            goto out;
        if (poll(pfd, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "airspace mcp: poll: %s\n", strerror(errno));
            goto out;
        }
        if (leave_signal)
            goto out;
        ALLOC_GROW(buf, n + 65536, a);
        ssize_t r = read(0, buf + n, 65536);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r <= 0)
            break;
        size_t start = 0, end = n + (size_t)r;
        for (size_t i = n; i < end; i++) {
            if (buf[i] != '\n')
                continue;
            if (answer(&s, buf + start, i - start, dropping) < 0 ||
                leave_signal)
                goto out;
            dropping = false;
            start = i + 1;
        }
        memmove(buf, buf + start, end - start);
        n = end - start;
        if (n > MCP_LINE_MAX) {
            dropping = true; /* refused when its newline arrives */
            n = 0;
        }
    }
    if (n || dropping)
        answer(&s, buf, n, dropping); /* a last line without newline */
out:
    free(buf);
    int sig = leave_signal;
    if (sig)
        fprintf(stderr, "airspace mcp: %s: leaving\n",
            sig == SIGINT    ? "SIGINT"
            : sig == SIGTERM ? "SIGTERM"
                             : "SIGHUP");
    mcp_server_release(&s);
    close(leave_pipe[0]);
    close(leave_pipe[1]);
    if (sig) {
        /* Die of the signal, as the one who sent it expects. */
        signal(sig, SIG_DFL);
        raise(sig);
    }
    return rc;
}

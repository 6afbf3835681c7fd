/*
 * cmd_mcp.c - `airspace mcp`: serve the Model Context Protocol on stdin
 * and stdout, one JSON-RPC message per line, until stdin closes.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/mcp_server.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char usage[] =
    "usage: airspace mcp [--agent ID] [--repo DIR]\n\n"
    "Serve the Model Context Protocol over stdio for one agent session.\n"
    "Without --agent (or AIRSPACE_AGENT) the session registers an agent\n"
    "when the client initializes. Logs go to stderr. See docs/mcp.md.\n";

/* Write all of buf, then a newline. */
static int
write_line(const char *buf)
{
    size_t len = strlen(buf);
    for (int pass = 0; pass < 2; pass++) {
        const char *p = pass ? "\n" : buf;
        size_t n = pass ? 1 : len;
        while (n) {
            ssize_t w = write(1, p, n);
            if (w < 0 && errno == EINTR)
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
    static const struct option longopts[] = {
        { "agent", required_argument, NULL, 'a' },
        { "repo", required_argument, NULL, 'r' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *agent = getenv("AIRSPACE_AGENT"), *repo = ".";
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'a':
            agent = optarg;
            break;
        case 'r':
            repo = optarg;
            break;
        case 'h':
            fputs(usage, stdout);
            return CLI_EXIT_OK;
        default:
            fprintf(stderr, "airspace mcp: unknown option '%s'\n%s",
                argv[optind - 1], usage);
            return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(
            stderr, "airspace mcp: unexpected '%s'\n%s", argv[optind], usage);
        return CLI_EXIT_USAGE;
    }
    signal(SIGPIPE, SIG_IGN);

    struct mcp_server s;
    mcp_server_init(&s, repo, agent);
    /* Lines are split by hand so an endless line is dropped as it streams
     * instead of being buffered whole. */
    char *buf = NULL;
    size_t n = 0, a = 0;
    bool dropping = false;
    int rc = CLI_EXIT_OK;
    for (;;) {
        ALLOC_GROW(buf, n + 65536, a);
        ssize_t r = read(0, buf + n, 65536);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        size_t start = 0, end = n + (size_t)r;
        for (size_t i = n; i < end; i++) {
            if (buf[i] != '\n')
                continue;
            if (answer(&s, buf + start, i - start, dropping) < 0)
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
    mcp_server_release(&s);
    return rc;
}

/*
 * fuzz_hook.c - each client's hook JSON, through `airspace hook` whole,
 * against a real daemon (daemon_thread.h): the first byte picks the client
 * (claude-code, codex, gemini), the rest is its stdin, with every "@REPO@"
 * replaced by the scratch repository's path (so that inputs can name
 * files in it). The hook's stdout is thrown away.
 */
#define _GNU_SOURCE /* memmem */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "hooks/hook.h"
#include "daemon_thread.h"
#include "fuzz.h"
#include "util/xalloc.h"
#include "util/banned.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const clients[] = { "claude-code", "codex", "gemini" };
    if (size < 1 || size > 65536)
        return 0;
    fuzz_daemon_start();
    setenv("AIRSPACE_AGENT", "fuzz", 1); /* no session files */
    setenv("AIRSPACE_HOOK_TIMEOUT_MS", "5000", 1);
    /* the input with "@REPO@" replaced: at most len(repo) per 6 bytes */
    size_t rl = strlen(repo), cap = size + (size / 6 + 1) * rl, n = 0;
    char *in = xmalloc(cap + 1);
    const char *p = (const char *)data + 1, *end = (const char *)data + size;
    while (p < end) {
        const char *at = memmem(p, (size_t)(end - p), "@REPO@", 6);
        size_t k = (size_t)((at ? at : end) - p);
        memcpy(in + n, p, k);
        n += k;
        if (!at)
            break;
        memcpy(in + n, repo, rl);
        n += rl;
        p = at + 6;
    }
    /* stdin from a file holding the input, stdout to /dev/null */
    char tmpl[] = "/tmp/airspace-fuzz-hook.XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0)
        abort();
    unlink(tmpl);
    if (n && write(fd, in, n) != (ssize_t)n)
        abort();
    lseek(fd, 0, SEEK_SET);
    int saved_in = dup(0), saved_out = dup(1);
    int null = open("/dev/null", O_WRONLY);
    fflush(stdout);
    dup2(fd, 0);
    dup2(null, 1);
    close(fd);
    close(null);
    char *argv[] = { "hook", (char *)clients[data[0] % 3], NULL };
    cmd_hook(2, argv);
    fflush(stdout);
    dup2(saved_in, 0);
    dup2(saved_out, 1);
    close(saved_in);
    close(saved_out);
    clearerr(stdin);
    free(in);
    return 0;
}

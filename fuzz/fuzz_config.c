/* fuzz_config.c - a configuration file (docs/config.md), read through
 * libgit2's parser and airspace's key checks. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <git2.h>

#include "git/config.h"
#include "fuzz.h"
#include "util/banned.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) { /* held for the run: each read then costs no set-up */
        git_libgit2_init();
        ready = true;
    }
    /* the file lives in memory: no disk, nothing left behind */
    int fd = memfd_create("airspace-config", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    if (size && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    struct config c;
    struct as_err e;
    config_init(&c);
    (void)config_read_file(&c, path, &e);
    config_release(&c);
    close(fd);
    return 0;
}

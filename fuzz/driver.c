/*
 * driver.c - run a fuzz target over files or directories of inputs
 * (without libFuzzer): `fuzz_x DIR-OR-FILE...`. Exit 0 when every input
 * ran; a crash or sanitizer report ends the process.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "util/file.h"
#include "util/xalloc.h"
#include "util/banned.h"

static int
run_file(const char *path)
{
    char *buf;
    size_t len;
    if (file_read_max(path, (size_t)1 << 24, false, &buf, &len)) {
        fprintf(stderr, "cannot read '%s'\n", path);
        return 1;
    }
    /* an exact-size copy, so reads past the end are caught */
    uint8_t *exact = xmalloc(len ? len : 1);
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

int
main(int argc, char **argv)
{
    int failed = 0, ran = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) < 0) {
            fprintf(stderr, "no such input '%s'\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(sb.st_mode)) {
            failed += run_file(argv[i]);
            ran++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *de;
        while (d && (de = readdir(d))) {
            if (de->d_name[0] == '.')
                continue;
            char *p = xasprintf("%s/%s", argv[i], de->d_name);
            failed += run_file(p);
            ran++;
            free(p);
        }
        if (d)
            closedir(d);
    }
    printf("%d inputs, %d unreadable\n", ran, failed);
    return failed || !ran;
}

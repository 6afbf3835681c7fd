/* fuzz_glob.c - glob compile, match and overlap: "PATTERN\nPATH\nOTHER". */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "util/glob.h"
#include "util/xalloc.h"
#include "util/banned.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *s = xstrndup((const char *)data, size);
    char *path = strchr(s, '\n');
    if (path)
        *path++ = '\0';
    char *other = path ? strchr(path, '\n') : NULL;
    if (other)
        *other++ = '\0';
    struct glob *g;
    struct as_err e;
    if (glob_compile(s, &g, &e) == 0) {
        glob_matches(g, path ? path : "");
        glob_free(g);
    }
    glob_has_magic(s);
    glob_overlap(s, other ? other : (path ? path : ""));
    free(s);
    return 0;
}

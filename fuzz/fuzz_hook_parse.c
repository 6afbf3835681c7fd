/* fuzz_hook_parse.c - apply_patch bodies and shell commands. */
#include <stdlib.h>

#include "hooks/hook_parse.h"
#include "fuzz.h"
#include "util/xalloc.h"
#include "util/banned.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    char *s = xstrndup((const char *)data, size);
    char **v;
    size_t n = hook_patch_paths(s, &v);
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    n = hook_shell_writes(s, &v);
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    free(s);
    return 0;
}

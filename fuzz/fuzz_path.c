/* fuzz_path.c - path normalisation: "PATH\nROOT". */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "util/path.h"
#include "util/xalloc.h"
#include "util/banned.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = xstrndup((const char *)data, size);
    char *root = strchr(s, '\n');
    if (root)
        *root++ = '\0';
    char *out = NULL;
    if (path_normalize(s, root, &out) == 0) {
        path_depth(out);
        /* normalising a normalised path changes nothing */
        char *again = NULL;
        if (path_normalize(out, NULL, &again) != 0 || strcmp(again, out))
            abort();
        free(again);
    }
    free(out);
    free(s);
    return 0;
}

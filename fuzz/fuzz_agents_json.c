/* fuzz_agents_json.c - the --agents document parser. */
#include <stdlib.h>

#include "cli/agents_json.h"
#include "fuzz.h"
#include "util/xalloc.h"
#include "util/banned.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = xstrndup((const char *)data, size);
    struct agent *v = NULL;
    size_t n = 0;
    struct as_err e;
    if (agents_json_parse(s, size, "fuzz", &v, &n, &e) == 0)
        agents_free(v, n);
    free(s);
    return 0;
}

/* fuzz_owners.c - the CODEOWNERS-format ownership file. */
#include "core/owners.h"
#include "fuzz.h"
#include "util/banned.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct owners *o;
    struct as_err e;
    if (owners_parse((const char *)data, size, &o, &e) == 0) {
        owners_of(o, "src/a/b.c", NULL, NULL);
        owners_free(o);
    }
    return 0;
}

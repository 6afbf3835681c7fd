/* fuzz_redact.c - secret redaction: linear, and never longer than the
 * input by more than its markers. */
#include <stdlib.h>

#include "fuzz.h"
#include "util/redact.h"
#include "util/banned.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n;
    char *r = redact_text((const char *)data, size, &n);
    free(r);
    return 0;
}

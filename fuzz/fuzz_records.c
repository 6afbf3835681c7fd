/* fuzz_records.c - one line of a merge-records JSONL file. */
#include "eval/records.h"
#include "fuzz.h"
#include "util/banned.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct record r;
    struct as_err e;
    if (record_parse((const char *)data, size, &r, &e) == 0)
        record_release(&r);
    return 0;
}

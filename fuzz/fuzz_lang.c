/* fuzz_lang.c - tree-sitter extraction: the first byte picks the
 * language, the rest is the source. */
#include "fuzz.h"
#include "lang/lang.h"
#include "util/banned.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size || size > 65536)
        return 0;
    enum lang_id id = (enum lang_id)(1 + data[0] % (LANG__COUNT - 1));
    struct lang_facts f;
    lang_facts_init(&f);
    struct as_err e;
    lang_extract(id, (const char *)data + 1, size - 1, &f, &e);
    lang_facts_release(&f);
    return 0;
}

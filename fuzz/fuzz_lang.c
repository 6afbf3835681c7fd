/* fuzz_lang.c - tree-sitter extraction: the first byte picks the
 * language, the rest is the source. The source is also parsed
 * incrementally, from a version with its middle third cut out: the facts
 * must be a fresh parse's. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lang/lang.h"
#include "util/banned.h"

static bool
same(const struct lang_facts *a, const struct lang_facts *b)
{
    if (a->nimports != b->nimports || a->ndefs != b->ndefs ||
        a->nrefs != b->nrefs)
        return false;
    for (size_t i = 0; i < a->nimports; i++)
        if (a->imports[i].line != b->imports[i].line ||
            strcmp(a->imports[i].spec, b->imports[i].spec))
            return false;
    for (size_t i = 0; i < a->ndefs; i++)
        if (a->defs[i].start != b->defs[i].start ||
            a->defs[i].end != b->defs[i].end ||
            strcmp(a->defs[i].name, b->defs[i].name))
            return false;
    for (size_t i = 0; i < a->nrefs; i++)
        if (a->refs[i].line != b->refs[i].line ||
            strcmp(a->refs[i].name, b->refs[i].name))
            return false;
    return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size || size > 65536)
        return 0;
    enum lang_id id = (enum lang_id)(1 + data[0] % (LANG__COUNT - 1));
    const char *src = (const char *)data + 1;
    size_t len = size - 1, cut = len / 3;
    struct lang_facts f, g;
    lang_facts_init(&f);
    lang_facts_init(&g);
    struct as_err e;
    int rc = lang_extract(id, src, len, &f, &e);
    /* the previous version: the middle third cut out */
    char *prev = malloc(len - cut + 1);
    memcpy(prev, src, cut);
    memcpy(prev + cut, src + 2 * cut, len - 2 * cut);
    struct lang_kept *k = NULL;
    lang_extract_next(id, &k, prev, len - cut, 65536, &g, &e);
    lang_facts_release(&g);
    lang_facts_init(&g);
    if (lang_extract_next(id, &k, src, len, 65536, &g, &e) == 0 && rc == 0 &&
        !same(&f, &g))
        abort();
    lang_kept_free(k);
    free(prev);
    lang_facts_release(&f);
    lang_facts_release(&g);
    return 0;
}

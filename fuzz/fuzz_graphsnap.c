/* fuzz_graphsnap.c - a graph snapshot file (lang/graphsnap.h), loaded with
 * the key it claims, so the checks past the key are reached; a graph that
 * loads is walked as the risk engine would. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lang/graphsnap.h"
#include "util/banned.h"

#define KEY_AT 16 /* after the magic, format and byte-order mark */

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t key[GRAPHSNAP_KEY_BYTES] = { 0 };
    if (size >= KEY_AT + GRAPHSNAP_KEY_BYTES)
        memcpy(key, data + KEY_AT, GRAPHSNAP_KEY_BYTES);
    uint8_t *copy = aligned_alloc(8, (size + 8) & ~(size_t)7);
    if (size)
        memcpy(copy, data, size);
    struct graph g;
    graph_init(&g);
    struct as_err e;
    if (graphsnap_load_mem(&g, key, copy, size, NULL, &e) == 0) {
        uint8_t *dist = malloc(g.nfiles + 1);
        for (uint32_t i = 0; i < g.nfiles; i++) {
            graph_reach_importers(&g, i, 6, dist);
            const struct graph_file *f = &g.files[i];
            for (uint32_t k = 0; k < f->nrefs; k++)
                (void)strlen(g.name_str[f->refs[k].name]);
            for (uint32_t k = 0; k < f->ndefs; k++)
                (void)strlen(g.name_str[f->defs[k].name]);
        }
        for (size_t i = 0; i < g.nnames; i++)
            graph_find_name(&g, g.name_str[i], strlen(g.name_str[i]));
        if (g.nfiles) /* a change copies the file out of the snapshot */
            graph_set_imports(&g, 0, NULL, 0);
        free(dist);
    }
    graph_release(&g);
    free(copy);
    return 0;
}

/*
 * agentnames.h - what an agent's own version of a file adds to the names it
 * uses and defines, compared with the base version the graph holds.
 *
 * The import graph is built from the integration branch, so a call an agent
 * has just written exists only in the agent's copy. Parsing that copy and
 * comparing its references and definitions with the base file's, name by
 * name, gives the symbol channel the agent's new uses and definitions. A
 * new use is cited at the line the agent wrote it. The file's changed lines
 * (base coordinates) say which base lines stand unchanged in the version:
 * each stretch of them is found there, shifted, by its references, which
 * places every change in the version; the references of a change's version
 * lines, aligned as a sequence of names with those of the base lines it
 * replaced, are the written ones where left unmatched. So of a name called
 * on many lines, the call on the inserted line is the new one, wherever it
 * lands among the others. Without line ranges (a whole-file change), or
 * with ranges the content contradicts, the two versions' references are
 * aligned whole. References are counted once per line (as the extractor
 * reports them), so a second call of a name on a line that already called
 * it is not a new use. With a resolver, the imports the agent's version
 * adds are recorded too: they are edges of the agent's own view of the
 * graph (docs/risk-model.md).
 */
#ifndef AIRSPACE_LANG_AGENTNAMES_H
#define AIRSPACE_LANG_AGENTNAMES_H

#include <stddef.h>

#include "core/graph.h"
#include "core/workset.h"
#include "lang/resolve.h"
#include "util/error.h"

/*
 * Parse src (the agent's version of f, read from its working tree; for a
 * rename, path is the new name) and record in f the uses and definitions it
 * adds over the base file f->path in g. Names are interned into g so the
 * risk engine can match them. A file in no parsed language, over the size
 * cap or minified (lang.h) is left alone. Returns 0, or the parse error (f
 * unchanged).
 */
int agentnames_fill(struct graph *g, struct ws_file *f, const char *path,
    const char *src, size_t len, struct as_err *e);

/*
 * The same from the facts lang_extract() gave for the version at path (in
 * language lang_detect(path)): the parse is the costly part, and the same
 * content gives the same facts, so a caller may keep them; the rest reads
 * g and r as they are now. With r, it also records in f
 * (ws_file_add_import) the files the version imports, resolved with r,
 * that the base file's edges in g do not reach directly: for a file g
 * lacks (an added file), everything it imports. r must know the
 * repository's files as the agent sees them (the base files and the
 * agent's added ones); NULL: no imports. Sets f->parsed.
 */
void agentnames_fill_facts(struct graph *g, struct resolver *r,
    struct ws_file *f, const char *path, const struct lang_facts *facts);

#endif

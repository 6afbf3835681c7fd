/*
 * grammars.h - entry points of the tree-sitter grammars compiled into the
 * library (generated C from the npm packages pinned in package.json).
 * Internal to src/lang.
 */
#ifndef AIRSPACE_LANG_GRAMMARS_H
#define AIRSPACE_LANG_GRAMMARS_H

#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_c(void);
const TSLanguage *tree_sitter_cpp(void);
const TSLanguage *tree_sitter_javascript(void);
const TSLanguage *tree_sitter_typescript(void);
const TSLanguage *tree_sitter_tsx(void);
const TSLanguage *tree_sitter_python(void);
const TSLanguage *tree_sitter_go(void);
const TSLanguage *tree_sitter_rust(void);
const TSLanguage *tree_sitter_java(void);

#endif

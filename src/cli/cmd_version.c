#include <stdio.h>

#include <git2.h>
#include <jansson.h>
#include <tree_sitter/api.h>

#include "cli/cli.h"
#include "util/banned.h"

int
cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    int maj, min, rev;
    git_libgit2_version(&maj, &min, &rev);
    printf("airspace %s (libgit2 %d.%d.%d, jansson %s, tree-sitter ABI %d)\n",
        AIRSPACE_VERSION, maj, min, rev, JANSSON_VERSION,
        TREE_SITTER_LANGUAGE_VERSION);
    return 0;
}

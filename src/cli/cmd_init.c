/*
 * cmd_init.c - `airspace init` (placeholder until the installer lands).
 */
#include <stdio.h>

#include "cli/cli.h"
#include "util/banned.h"

int
cmd_init(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "airspace init: not yet\n");
    return CLI_EXIT_ERROR;
}

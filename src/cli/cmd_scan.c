#include <stdio.h>

#include "cli/cli.h"
#include "util/banned.h"

int
cmd_scan(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "airspace scan: not built yet\n");
    return CLI_EXIT_ERROR;
}

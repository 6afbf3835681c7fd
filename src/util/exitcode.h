/*
 * exitcode.h - the exit statuses every airspace program shares (the CLI,
 * the hook binary, the MCP server): 0 ok, 1 refused or an advisory found
 * with --fail-on, 2 usage error, 3 daemon unreachable, 4 runtime error;
 * and the version they report.
 */
#ifndef AIRSPACE_UTIL_EXITCODE_H
#define AIRSPACE_UTIL_EXITCODE_H

#include "util/error.h"

enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FAIL = 1,
    CLI_EXIT_USAGE = 2,
    CLI_EXIT_UNREACHABLE = 3,
    CLI_EXIT_ERROR = 4, /* runtime error: repository unreadable, ... */
};

/* The exit status for a status code of util/error.h: bad input (AS_EINVAL,
 * AS_ENOENT) is usage, a refusal (AS_ECONFLICT) is 1, the rest runtime. */
static inline int
cli_exit_for(int as_status)
{
    switch (as_status) {
    case 0:
        return CLI_EXIT_OK;
    case AS_EINVAL:
    case AS_ENOENT:
        return CLI_EXIT_USAGE;
    case AS_ECONFLICT:
        return CLI_EXIT_FAIL;
    default:
        return CLI_EXIT_ERROR;
    }
}

#define AIRSPACE_VERSION "0.1.0"

#endif

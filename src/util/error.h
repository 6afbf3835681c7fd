/*
 * error.h - status codes shared by every layer.
 *
 * Functions that do something return int: 0 on success or a negative AS_E*
 * code. Adapters that fail also fill a human message once, where the failure
 * happens (struct as_err), lowercase with the subject quoted:
 * "cannot open 'foo.db': disk I/O error".
 */
#ifndef AIRSPACE_UTIL_ERROR_H
#define AIRSPACE_UTIL_ERROR_H

#include <stddef.h>

enum {
    AS_OK = 0,
    AS_EINVAL = -1,    /* bad input: malformed, out of range, unknown name */
    AS_ENOENT = -2,    /* no such file, agent, ref, ... */
    AS_EIO = -3,       /* an OS or library call failed */
    AS_EGIT = -4,      /* libgit2 failed */
    AS_EPARSE = -5,    /* a document could not be parsed */
    AS_ETOOBIG = -6,   /* an input exceeded its cap */
    AS_ECONFLICT = -7, /* refused because someone else holds it */
    AS_EUNSUP = -8,    /* not supported here */
    AS_ECANCELED = -9, /* stopped on request before it was done */
    AS_ENOSPC = -10,   /* no space left on the device */
};

struct as_err {
    char msg[512];
};

/* Fill e (if not NULL) with a formatted message; returns code. */
int as_errorf(struct as_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif

#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/banned.h"

int
as_errorf(struct as_err *e, int code, const char *fmt, ...)
{
    if (!e)
        return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return code;
}

const char *
as_strerror(int code)
{
    switch (code) {
    case AS_OK:
        return "ok";
    case AS_EINVAL:
        return "invalid argument";
    case AS_ENOENT:
        return "not found";
    case AS_EIO:
        return "i/o error";
    case AS_EGIT:
        return "git error";
    case AS_EPARSE:
        return "parse error";
    case AS_ETOOBIG:
        return "too big";
    case AS_ECONFLICT:
        return "conflict";
    case AS_EUNSUP:
        return "not supported";
    case AS_ENOSPC:
        return "no space left";
    case AS_ECANCELED:
        return "canceled";
    }
    return "unknown error";
}

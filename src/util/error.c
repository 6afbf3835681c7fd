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

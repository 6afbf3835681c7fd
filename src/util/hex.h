/*
 * hex.h - hexadecimal digits.
 */
#ifndef AIRSPACE_UTIL_HEX_H
#define AIRSPACE_UTIL_HEX_H

/* The value 0..15 of one hex digit (either case), or -1. */
static inline int
hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

#endif

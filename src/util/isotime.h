/*
 * isotime.h - ISO 8601 dates and times as people and tools write them.
 *
 *   YYYY-MM-DD[(T|t| )HH:MM[:SS[(.|,)FRACTION]]][ ][ZONE]
 *   ZONE: Z, z, +HH, +HHMM, +HH:MM (or -)
 *
 * A date alone is midnight. The fields are checked (month lengths, leap
 * years; a leap second 60 is taken as 59 plus one second). Pure: no clock,
 * no environment; a time without a zone is returned as written, with
 * has_zone false, for the caller to read as UTC or as local time.
 */
#ifndef AIRSPACE_UTIL_ISOTIME_H
#define AIRSPACE_UTIL_ISOTIME_H

#include <stdbool.h>
#include <stdint.h>

struct iso_time {
    int year, month, day, hour, minute, second;
    int ms;           /* the fraction's first three digits */
    bool has_time;    /* HH:MM was given */
    bool has_zone;    /* a zone was given */
    int zone_minutes; /* east of UTC; 0 without a zone */
    int64_t utc_s;    /* seconds since the epoch: the zone applied, or
                         the time read as UTC when there is none */
};

/* Parse s whole; 0, or -1 when it is not such a time (nothing else
 * may follow it). */
int iso_time_parse(const char *s, struct iso_time *out);

/* A ZONE at *p (minutes east of UTC), *p moved past it; false when there
 * is none. */
bool iso_zone_parse(const char **p, int *minutes);

#endif

#include "util/isotime.h"

#include <string.h>

#include "util/banned.h"

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static int64_t
iso_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* exactly `digits` decimal digits at *p */
static bool
digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*p)[i];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    *p += n;
    *out = v;
    return true;
}

bool
iso_zone_parse(const char **p, int *minutes)
{
    const char *s = *p;
    if (*s == 'Z' || *s == 'z') {
        *minutes = 0;
        *p = s + 1;
        return true;
    }
    if (*s != '+' && *s != '-')
        return false;
    int sign = *s++ == '-' ? -1 : 1, hh, mm = 0;
    if (!digits(&s, 2, &hh))
        return false;
    if (*s == ':') {
        s++;
        if (!digits(&s, 2, &mm))
            return false;
    } else if (*s >= '0' && *s <= '9' && !digits(&s, 2, &mm)) {
        return false;
    }
    if (hh > 23 || mm > 59)
        return false;
    *minutes = sign * (hh * 60 + mm);
    *p = s;
    return true;
}

static int
month_days(int y, int m)
{
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30,
        31 };
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : days[m - 1];
}

int
iso_time_parse(const char *s, struct iso_time *t)
{
    const char *p = s;
    memset(t, 0, sizeof(*t));
    if (!digits(&p, 4, &t->year) || *p++ != '-' || !digits(&p, 2, &t->month) ||
        *p++ != '-' || !digits(&p, 2, &t->day))
        return -1;
    if (t->month < 1 || t->month > 12 || t->day < 1 ||
        t->day > month_days(t->year, t->month))
        return -1;
    if ((*p == 'T' || *p == 't' || *p == ' ') && p[1] >= '0' && p[1] <= '9') {
        p++;
        if (!digits(&p, 2, &t->hour) || *p++ != ':' ||
            !digits(&p, 2, &t->minute))
            return -1;
        t->has_time = true;
        if (*p == ':') {
            p++;
            if (!digits(&p, 2, &t->second))
                return -1;
            if (*p == '.' || *p == ',') {
                p++;
                if (*p < '0' || *p > '9')
                    return -1;
                for (int scale = 100; *p >= '0' && *p <= '9'; p++) {
                    t->ms += (*p - '0') * scale;
                    scale /= 10;
                }
            }
        }
        if (t->hour > 23 || t->minute > 59 || t->second > 60)
            return -1;
    }
    if (*p == ' ')
        p++;
    if (*p) {
        if (!iso_zone_parse(&p, &t->zone_minutes) || *p)
            return -1;
        t->has_zone = true;
    }
    t->utc_s =
        iso_days_from_civil(t->year, (unsigned)t->month, (unsigned)t->day) *
            86400 +
        t->hour * 3600 + t->minute * 60 + t->second -
        (int64_t)t->zone_minutes * 60;
    return 0;
}

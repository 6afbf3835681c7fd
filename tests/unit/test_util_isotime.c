/*
 * test_util_isotime.c - ISO 8601 times: the forms taken, the fields
 * checked (month lengths, leap years), zones, and what is refused.
 */
#include <stdint.h>
#include <string.h>

#include "util/isotime.h"
#include "test.h"
#include "util/banned.h"

static int64_t
utc(const char *s)
{
    struct iso_time t;
    return iso_time_parse(s, &t) ? INT64_MIN : t.utc_s;
}

static void
test_forms(void)
{
    struct iso_time t;
    CHECK_INT(utc("2026-01-02T03:04:05Z"), 1767323045);
    CHECK_INT(utc("2026-01-02t03:04:05z"), 1767323045);
    CHECK_INT(utc("2026-01-02 03:04:05"), 1767323045);
    CHECK_INT(utc("2026-01-02T03:04:05 +00:00"), 1767323045);
    CHECK_INT(utc("2026-01-02T05:04:05+02"), 1767323045);
    CHECK_INT(utc("2026-01-02T01:34:05-0130"), 1767323045);
    CHECK_INT(utc("2026-11-24T17:15:04+05:30"), 1795520704);
    CHECK_INT(utc("2024-02-29"), 1709164800);
    CHECK_INT(utc("2000-03-01T00:00"), 951868800);
    CHECK_INT(utc("1969-12-31T23:59:59Z"), -1);

    CHECK(iso_time_parse("2026-01-02T03:04:05.1234Z", &t) == 0);
    CHECK_INT(t.ms, 123);
    CHECK(t.has_time && t.has_zone);
    CHECK(iso_time_parse("2026-01-02T03:04:05,5", &t) == 0);
    CHECK_INT(t.ms, 500);
    CHECK(t.has_time && !t.has_zone);
    CHECK_INT(t.zone_minutes, 0);
    CHECK(iso_time_parse("2026-01-02", &t) == 0);
    CHECK(!t.has_time && !t.has_zone);
    CHECK(iso_time_parse("2026-01-02T03:04-05:00", &t) == 0);
    CHECK_INT(t.zone_minutes, -300);
    CHECK_INT(t.hour, 3);
    CHECK_INT(t.minute, 4);
}

static void
test_refused(void)
{
    static const char *const bad[] = { "", "2026", "2026-1-02", "2026-01-2",
        "2026-13-01", "2026-00-10", "2026-01-00", "2026-02-29", "2100-02-29",
        "2026-04-31", "2026-01-02T", "2026-01-02T3:04", "2026-01-02T24:00",
        "2026-01-02T03:60", "2026-01-02T03:04:61", "2026-01-02T03:04:05.",
        "2026-01-02T03:04:05Zjunk", "2026-01-02T03:04:05+2", "2026-01-02+24",
        "2026-01-02T03:04:05+01:60", "2026-01-02  03:04", "yesterday",
        "2026-01-02T03:04:05 Z x" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct iso_time t;
        if (iso_time_parse(bad[i], &t) == 0) {
            CHECK(!"refused");
            fprintf(stderr, "  accepted: '%s'\n", bad[i]);
        }
    }
    const char *z = "+0530rest";
    int m;
    CHECK(iso_zone_parse(&z, &m));
    CHECK_INT(m, 330);
    CHECK_STR(z, "rest");
    z = "x";
    CHECK(!iso_zone_parse(&z, &m));
}

int
main(void)
{
    TEST_RUN("the forms taken", test_forms);
    TEST_RUN("what is refused", test_refused);
    return test_done();
}

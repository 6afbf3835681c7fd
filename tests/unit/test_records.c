/* test_records.c - the merges JSONL reader on fixture files: hunk mapping
 * (insertions, top of file), statuses (rename, copy, binary), change times,
 * gzip, malformed and overlong lines. */
#include <stdlib.h>
#include <string.h>

#include "eval/records.h"
#include "test.h"

static char *
fixture(const char *name)
{
    const char *src = getenv("AIRSPACE_SOURCE_DIR");
    static char buf[4096];
    snprintf(
        buf, sizeof(buf), "%s/tests/cases/records/%s", src ? src : ".", name);
    return buf;
}

static void
check_small(const struct record *r)
{
    CHECK_STR(r->merge, "1000000000000000000000000000000000000000");
    CHECK(r->conflicted);
    CHECK(!r->mainline);
    CHECK_INT(r->merge_ct, 3000);
    CHECK_INT(r->nconflicted, 1);
    CHECK_STR(r->conflicted_paths[0], "a.c");

    const struct rec_side *s0 = &r->side[0], *s1 = &r->side[1];
    CHECK_INT(s0->n_commits, 2);
    CHECK_INT(s0->tip_ct, 2000);
    CHECK_INT(s0->half_ct, 1000);
    CHECK_INT(s0->first_ct, 1000);
    CHECK_INT(r->side[1].first_ct, 1500);
    CHECK_INT(s0->ws.n, 2);
    const struct rec_file *a = rec_ws_find(&s0->ws, "a.c");
    CHECK(a && a->status == 'M' && !a->whole);
    if (a) {
        /* [10,13,3] -> [10,12]; [40,40,2] inserts after line 39 -> [39,39] */
        CHECK_INT(a->nranges, 2);
        CHECK_INT(a->ranges[0].start, 10);
        CHECK_INT(a->ranges[0].end, 12);
        CHECK_INT(a->ranges[1].start, 39);
        CHECK_INT(a->ranges[1].end, 39);
        CHECK_INT(a->changed_ct, 2000);
    }
    const struct rec_file *b = rec_ws_find(&s0->ws, "b.c");
    CHECK(b && b->nranges == 1 && b->ranges[0].start == 1 &&
          b->ranges[0].end == 1); /* insertion at the top -> [1,1] */
    const struct rec_file *ha = rec_ws_find(&s0->half, "a.c");
    CHECK(ha && ha->changed_ct == 1000 && ha->nranges == 1);
    CHECK(!rec_ws_find(&s0->half, "b.c"));

    CHECK_INT(s1->tip_ct, 2600);
    CHECK_INT(s1->ws.n, 4);
    const char *order[] = { "a.c", "c2.c", "img.png", "r.c" };
    for (size_t i = 0; i < 4 && i < s1->ws.n; i++)
        CHECK_STR(s1->ws.files[i].path, order[i]);
    const struct rec_file *ren = rec_ws_find(&s1->ws, "r.c");
    CHECK(ren && ren->status == 'R' && !ren->whole && ren->nranges == 1);
    if (ren) {
        CHECK_STR(ren->new_path, "new/r.c");
        CHECK_INT(ren->ranges[0].start, 3);
        CHECK_INT(ren->ranges[0].end, 3);
        CHECK_INT(ren->changed_ct, 2500);
    }
    const struct rec_file *cp = rec_ws_find(&s1->ws, "c2.c");
    CHECK(cp && cp->status == 'C' && cp->whole && !cp->nranges);
    CHECK(!rec_ws_find(&s1->ws, "c.c")); /* a copy leaves the base alone */
    const struct rec_file *img = rec_ws_find(&s1->ws, "img.png");
    CHECK(img && img->binary && img->whole && img->changed_ct == 2600);
    const struct rec_file *a1 = rec_ws_find(&s1->ws, "a.c");
    CHECK(a1 && a1->changed_ct == 1500 && a1->ranges[0].start == 14);
}

static void
read_one(const char *name)
{
    struct as_err err = { "" };
    struct records_reader *rd = records_open(fixture(name), &err);
    CHECK(rd != NULL);
    if (!rd)
        return;
    struct record r;
    CHECK_INT(records_next(rd, &r, &err), 1);
    CHECK_INT(r.line, 1);
    check_small(&r);
    record_release(&r);
    CHECK_INT(records_next(rd, &r, &err), 0);
    records_close(rd);
}

static void
test_plain(void)
{
    read_one("small.jsonl");
}

static void
test_gzip(void)
{
    read_one("small-copy.jsonl.gz");
}

static void
test_malformed(void)
{
    struct as_err err = { "" };
    struct records_reader *rd = records_open(fixture("bad.jsonl"), &err);
    CHECK(rd != NULL);
    if (!rd)
        return;
    struct record r;
    CHECK_INT(records_next(rd, &r, &err), 1);
    record_release(&r);
    CHECK_INT(records_next(rd, &r, &err), AS_EPARSE);
    CHECK(!strncmp(err.msg, "line 2: invalid JSON", 20));
    CHECK_INT(records_next(rd, &r, &err), AS_EPARSE);
    CHECK(!strncmp(err.msg, "line 3: needs 'merge'", 21));
    CHECK_INT(records_next(rd, &r, &err), AS_EPARSE);
    CHECK_STR(err.msg,
        "line 4: sides[0].ws[0]: hunk 0 must be [start, end, added], "
        "integers with 0 <= start <= end and added >= 0");
    /* line 5 is blank and skipped */
    CHECK_INT(records_next(rd, &r, &err), 1);
    CHECK_INT(r.line, 6);
    check_small(&r);
    record_release(&r);
    CHECK_INT(records_next(rd, &r, &err), 0);
    records_close(rd);
}

static void
test_overlong(void)
{
    struct as_err err = { "" };
    struct records_reader *rd = records_open(fixture("bad.jsonl"), &err);
    CHECK(rd != NULL);
    if (!rd)
        return;
    records_set_max_line(rd, 100); /* every record line is longer */
    struct record r;
    CHECK_INT(records_next(rd, &r, &err), AS_ETOOBIG);
    CHECK_STR(err.msg, "line 1: longer than 128 bytes, refused");
    CHECK_INT(records_next(rd, &r, &err), AS_EPARSE); /* "{not json" fits */
    CHECK(!strncmp(err.msg, "line 2: invalid JSON", 20));
    records_close(rd);
}

/* small.jsonl's record with its second side's half-way counts replaced. */
static int
parse_variant(const char *half, struct record *r, struct as_err *err)
{
    static const char from[] = "\"k\": 1, \"n_included\": 1, \"ct\": 1500";
    FILE *f = fopen(fixture("small.jsonl"), "r");
    char line[8192], out[8400];
    CHECK(f != NULL);
    if (!f || !fgets(line, sizeof(line), f)) {
        if (f)
            fclose(f);
        return -1;
    }
    fclose(f);
    char *at = strstr(line, from);
    CHECK(at != NULL);
    if (!at)
        return -1;
    snprintf(out, sizeof(out), "%.*s%s%s", (int)(at - line), line, half,
        at + strlen(from));
    return record_parse(out, strlen(out), r, err);
}

static void
test_half_commits(void)
{
    struct as_err err = { "" };
    struct record r;
    CHECK_INT(
        parse_variant("\"k\": 1, \"n_included\": 1, \"ct\": 1500", &r, &err),
        0);
    CHECK_INT(r.side[0].half_commits, 1);
    CHECK_INT(r.side[1].half_commits, 1);
    record_release(&r);
    /* n_included wins over k (a back-merged side includes more) */
    CHECK_INT(
        parse_variant("\"k\": 2, \"n_included\": 3, \"ct\": 1500", &r, &err),
        0);
    CHECK_INT(r.side[1].half_commits, 3);
    record_release(&r);
    CHECK_INT(parse_variant("\"k\": 2, \"ct\": 1500", &r, &err), 0);
    CHECK_INT(r.side[1].half_commits, 2);
    record_release(&r);
    /* neither: ceil(n_commits / 2) of 3 */
    CHECK_INT(parse_variant("\"ct\": 1500", &r, &err), 0);
    CHECK_INT(r.side[1].half_commits, 2);
    record_release(&r);
    CHECK_INT(
        parse_variant("\"n_included\": 4, \"ct\": 1500", &r, &err), AS_EPARSE);
    CHECK_STR(err.msg, "sides[1].half: commit count 4 outside 1..3");
    CHECK_INT(
        parse_variant("\"n_included\": 0, \"ct\": 1500", &r, &err), AS_EPARSE);
}

static void
test_missing(void)
{
    struct as_err err = { "" };
    CHECK(records_open(fixture("no-such-file.jsonl"), &err) == NULL);
    CHECK(strstr(err.msg, "cannot open '") == err.msg);
}

int
main(void)
{
    TEST_RUN("plain file: mapping, statuses, times", test_plain);
    TEST_RUN("gzip file reads the same", test_gzip);
    TEST_RUN("malformed lines name their line and continue", test_malformed);
    TEST_RUN("overlong line refused, reader continues", test_overlong);
    TEST_RUN("missing file", test_missing);
    TEST_RUN(
        "half-way commit count: n_included, k, ceil(n/2)", test_half_commits);
    return test_done();
}

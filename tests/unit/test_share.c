/* test_share.c - a shared worktree's working sets (airspace/share.h): an
 * agent's share from its reports and git's change, the human's share as
 * what nobody reported, the reports rewritten and told. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airspace/share.h"
#include "test.h"

static struct ws_file *
file(struct agent *a, const char *path, enum ws_status st, uint32_t s,
    uint32_t e)
{
    struct ws_file *f = agent_add_file(a, path, st);
    if (s)
        range_set_add(&f->ranges, s, e);
    return f;
}

/* "path:s-e,s-e path2:..." for a working set, in its order */
static void
show(const struct agent *a, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < a->nfiles && len < n; k++) {
        const struct ws_file *f = &a->files[k];
        len += (size_t)snprintf(
            buf + len, n - len, "%s%s:", k ? " " : "", f->path);
        for (size_t r = 0; r < f->ranges.n && len < n; r++)
            len += (size_t)snprintf(buf + len, n - len, "%s%u-%u", r ? "," : "",
                f->ranges.v[r].start, f->ranges.v[r].end);
    }
}

static bool
skip_config(const char *path)
{
    return !strcmp(path, ".claude/settings.json");
}

static void
test_subtract(void)
{
    struct agent w, ann, ben;
    agent_init(&w, "human@wt");
    agent_init(&ann, "ann");
    agent_init(&ben, "ben");
    file(&w, "a.c", WS_MODIFIED, 1, 10);
    file(&w, "b.c", WS_MODIFIED, 5, 6);
    file(&w, "c.c", WS_MODIFIED, 3, 4);
    file(&w, "d.c", WS_ADDED, 0, 0);
    file(&w, "e.c", WS_MODIFIED, 7, 7);
    file(&w, ".claude/settings.json", WS_MODIFIED, 1, 2);
    file(&ann, "a.c", WS_MODIFIED, 3, 4);
    file(&ann, "c.c", WS_MODIFIED, 1, 9); /* covers all: the file leaves */
    file(&ben, "a.c", WS_MODIFIED, 9, 12);
    file(&ben, "b.c", WS_MODIFIED, 5, 5)->whole = true; /* reported whole */
    file(&ben, "d.c", WS_MODIFIED, 1, 1); /* an added file is whole */
    const struct agent *v[] = { &ann, &ben };
    share_subtract(&w, v, 2, skip_config);
    char buf[256];
    show(&w, buf, sizeof(buf));
    CHECK_STR(buf, "a.c:1-2,5-8 e.c:7-7");
    /* nobody sharing: only what skip says leaves */
    struct agent x;
    agent_init(&x, "x");
    file(&x, "e.c", WS_MODIFIED, 7, 7);
    file(&x, ".claude/settings.json", WS_MODIFIED, 1, 2);
    share_subtract(&x, NULL, 0, skip_config);
    show(&x, buf, sizeof(buf));
    CHECK_STR(buf, "e.c:7-7");
    share_subtract(&x, NULL, 0, NULL);
    show(&x, buf, sizeof(buf));
    CHECK_STR(buf, "e.c:7-7");
    agent_release(&x);
    agent_release(&w);
    agent_release(&ann);
    agent_release(&ben);
}

struct told {
    char paths[256];
};

static void
on_changed(void *ctx, const struct ws_file *r)
{
    struct told *t = ctx;
    size_t len = strlen(t->paths);
    snprintf(t->paths + len, sizeof(t->paths) - len, "%s%s", len ? " " : "",
        r->path);
}

static void
test_sync(void)
{
    struct agent w, reports, was, share;
    agent_init(&w, "wt");
    agent_init(&reports, "ann");
    agent_init(&was, "ann");
    agent_init(&share, "ann");
    file(&w, "a.c", WS_MODIFIED, 10, 20);
    file(&w, "c.c", WS_MODIFIED, 1, 3);
    file(&w, "d.c", WS_ADDED, 0, 0);
    file(&reports, "a.c", WS_MODIFIED, 12, 13);   /* met: kept as is */
    file(&reports, "b.c", WS_MODIFIED, 5, 5);     /* as in the base now */
    file(&reports, "c.c", WS_MODIFIED, 100, 100); /* meets nothing: all */
    file(&reports, "d.c", WS_MODIFIED, 0, 0);     /* a new file: whole */
    struct told t = { "" };
    CHECK(share_sync(&w, &reports, &was, &share, on_changed, &t));
    char buf[256];
    show(&share, buf, sizeof(buf));
    CHECK_STR(buf, "a.c:12-13 c.c:1-3 d.c:");
    CHECK_INT(share.files[2].status, WS_ADDED);
    show(&reports, buf, sizeof(buf));
    CHECK_STR(buf, "a.c:12-13 b.c: c.c:1-3 d.c:");
    CHECK_STR(t.paths, "b.c c.c");
    /* the same again: nothing to tell, the same files */
    struct agent again;
    agent_init(&again, "ann");
    t.paths[0] = '\0';
    CHECK(!share_sync(&w, &reports, &share, &again, on_changed, &t));
    CHECK_STR(t.paths, "");
    CHECK(share_same_files(&share, &again));
    /* reported lines kept for a file changed again later */
    agent_release(&w);
    agent_init(&w, "wt");
    file(&w, "b.c", WS_MODIFIED, 5, 6);
    struct agent later;
    agent_init(&later, "ann");
    CHECK(share_sync(&w, &reports, &again, &later, NULL, NULL));
    show(&later, buf, sizeof(buf));
    CHECK_STR(buf, "b.c:5-6"); /* its empty report meets none: all */
    agent_release(&later);
    agent_release(&again);
    agent_release(&w);
    agent_release(&reports);
    agent_release(&was);
    agent_release(&share);
}

int
main(void)
{
    TEST_RUN("the human's share: what nobody reported", test_subtract);
    TEST_RUN("an agent's share: the real change its reports meet", test_sync);
    return test_done();
}

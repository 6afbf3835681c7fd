/*
 * cmd_land.c - `airspace land`: merge an agent's branch into the
 * integration branch (git/land.h) after a speculative merge check and a
 * scope check against what the agent holds or declared in the daemon.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "ops/ops.h"
#include "client/client.h"
#include "cli/dcli.h"
#include "cli/opts.h"
#include "git/fleet.h"
#include "git/land.h"
#include "git/repo.h"
#include "git/worktree.h"
#include "util/file.h"
#include "util/glob.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *
jstr(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const char usage[] =
    "usage: airspace land [NAME | --branch BRANCH] [--into BRANCH]\n"
    "                     [-m MESSAGE] [--force] [--dry-run] [--json]\n"
    "                     [--no-start]\n\n"
    "Land agent NAME's branch (default: the agent of this worktree) on the\n"
    "integration branch (or --into BRANCH): refused when the merge\n"
    "conflicts, or when the branch changes files the agent holds no lock,\n"
    "claim or intent on (unless --force). A fast-forward when it can be,\n"
    "else a merge commit; the target's checked-out worktree follows.\n"
    "See docs/cli.md.\n";

struct lopts {
    struct land_request rq;
    bool json, no_start;
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("airspace land: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Each line of text (a refusal may name several held files), or none. */
static void
say_lines(const char *text)
{
    for (const char *p = text; p && *p;) {
        size_t len = strcspn(p, "\n");
        say("%.*s", (int)len, p);
        p += len + (p[len] ? 1 : 0);
    }
}

static int
parse(int argc, char **argv, struct lopts *o)
{
    memset(o, 0, sizeof(*o));
    struct land_request *rq = &o->rq;
    rq->dir = ".";
    const struct opt table[] = {
        { .name = "branch", .kind = OPT_STRING, .target = &rq->branch },
        { .name = "into", .kind = OPT_STRING, .target = &rq->into },
        { .name = "message",
            .letter = 'm',
            .kind = OPT_STRING,
            .target = &rq->message },
        { .name = "force", .kind = OPT_FLAG, .target = &rq->force },
        { .name = "dry-run", .kind = OPT_FLAG, .target = &rq->dry_run },
        OPT_JSON(&o->json),
        OPT_NO_START(&o->no_start),
        OPT_TABLE_END,
    };
    int rc = opts_parse(argc, argv, table, "land", usage, 0);
    if (rc)
        return rc;
    if (optind < argc)
        rq->name = argv[optind++];
    if (optind < argc)
        return dcli_usage("land", "expected one NAME, not more");
    if (rq->name && rq->branch)
        return dcli_usage("land", "give a NAME or --branch, not both");
    if ((rq->name && !*rq->name) || (rq->branch && !*rq->branch) ||
        (rq->into && !*rq->into))
        return dcli_usage("land", "an empty NAME or branch");
    if (rq->message && !*rq->message)
        return dcli_usage("land", "an empty message (-m)");
    return 0;
}

int
cmd_land(int argc, char **argv)
{
    struct lopts o;
    int code = parse(argc, argv, &o);
    if (code)
        return code < 0 ? CLI_EXIT_OK : code;
    struct client cl;
    struct as_err e;
    bool connected = false;
    char *no_daemon = NULL;
    int rc = dcli_client_open(&cl, ".", !o.no_start, &e);
    if (rc == AS_ENOENT || rc == AS_EINVAL) {
        say("%s", e.msg);
        client_close(&cl);
        return CLI_EXIT_USAGE;
    }
    if (rc) {
        no_daemon = xstrdup(e.msg);
        client_close(&cl);
    } else {
        connected = true;
    }
    o.rq.cl = connected ? &cl : NULL;
    o.rq.no_daemon = no_daemon;
    json_t *out = NULL;
    char *notes = NULL, *error = NULL;
    code = land_run(&o.rq, &out, &notes, &error);
    say_lines(error);
    say_lines(notes);
    const char *target = jstr(out, "target"), *branch = jstr(out, "from");
    if (o.json && out) {
        dcli_print_json(out);
    } else if (!code && json_is_true(json_object_get(out, "up_to_date"))) {
        printf("'%s' already contains '%s': nothing to land\n", target, branch);
    } else if (!code) {
        const char *commit = jstr(out, "commit");
        size_t n = json_array_size(json_object_get(out, "changed"));
        char what[64];
        if (json_is_true(json_object_get(out, "fast_forward")))
            snprintf(what, sizeof(what), "fast-forward to %.7s", commit);
        else if (commit)
            snprintf(what, sizeof(what), "merge %.7s", commit);
        else
            snprintf(what, sizeof(what), "a merge commit");
        printf("%s %s into %s: %s (%zu file%s changed)\n",
            o.rq.dry_run ? "would land" : "landed", branch, target, what, n,
            n == 1 ? "" : "s");
        if (json_is_true(json_object_get(out, "worktree_updated")))
            printf("updated the checkout of %s in %s\n", target,
                jstr(out, "worktree"));
        else if (o.rq.dry_run && jstr(out, "worktree"))
            printf("would update the checkout of %s in %s\n", target,
                jstr(out, "worktree"));
    }
    if (out)
        json_decref(out);
    free(notes);
    free(error);
    free(no_daemon);
    if (connected)
        client_close(&cl);
    return code;
}

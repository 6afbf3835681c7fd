/*
 * cmd_locks.c - locks and claims from the command line: lock, unlock,
 * locks, claim, contest, release. Patterns are relative to the current
 * directory (cwd_path.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "client/session.h"
#include "client/client.h"
#include "cli/cwd_path.h"
#include "cli/dcli.h"
#include "cli/event_text.h"
#include "cli/opts.h"
#include "util/path.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* LONG_MAX / 1000, as the --ttl message spells it */
#define TTL_MAX_TEXT "9223372036854775"
_Static_assert(LONG_MAX / 1000 == 9223372036854775L, "TTL_MAX_TEXT");

struct lopts {
    const char *repo, *agent, *reason, *mode;
    long ttl_s;
    long token; /* --token: the fencing token of the grant held */
    bool json, no_start, force;
    bool named; /* --agent or AIRSPACE_AGENT, not found from the session */
};

/* The options every lock command takes, before its own (opts_keep). */
#define COMMON_OPTS "repo agent json no-start "

static int
parse(int argc, char **argv, struct lopts *o, const char *names,
    const char *usage)
{
    memset(o, 0, sizeof(*o));
    struct opt table[] = {
        OPT_REPO(&o->repo),
        OPT_AGENT(&o->agent, NULL),
        { .name = "reason", .kind = OPT_STRING, .target = &o->reason },
        { .name = "ttl",
            .kind = OPT_NUMBER,
            .target = &o->ttl_s,
            .min = 1,
            .max = LONG_MAX / 1000,
            .bad = "--ttl takes seconds > 0 (at most " TTL_MAX_TEXT ")" },
        { .name = "shared",
            .kind = OPT_SET,
            .target = &o->mode,
            .value = "shared" },
        { .name = "force", .kind = OPT_FLAG, .target = &o->force },
        { .name = "token",
            .kind = OPT_NUMBER,
            .target = &o->token,
            .min = 1,
            .max = LONG_MAX,
            .bad = "--token takes the lock's fencing token (> 0)" },
        OPT_JSON(&o->json),
        OPT_NO_START(&o->no_start),
        OPT_TABLE_END,
    };
    opts_keep(table, names);
    o->repo = ".";
    o->agent = NULL; /* after the options: --agent, else the session */
    int rc = opts_parse(argc, argv, table, argv[0], usage, 0);
    if (rc)
        return rc;
    const char *env = getenv("AIRSPACE_AGENT");
    o->named = o->agent || (env && *env);
    if (!o->agent)
        o->agent = session_cli_agent(o->repo);
    return 0;
}

/*
 * Without --agent (and outside a client session): the agent of the
 * worktree that holds the current directory most closely, when a person
 * may act as it (session_person_agent): never a running session's agent,
 * whose end would release the lock and which the lock would not keep off;
 * where only such agents fly, the person at the keyboard there.
 */
static char *
resolve_agent(struct client *cl, const struct lopts *o, const char *cmd)
{
    if (o->agent)
        return xstrdup(o->agent);
    long status;
    json_t *reply = NULL;
    struct as_err e;
    char *cwd = realpath(".", NULL), *best = NULL, *error = NULL;
    size_t best_len = 0;
    const char *top = NULL;
    if (cwd && !client_call(cl, api_agents(false), &status, &reply, &e) &&
        status == 200) {
        size_t i;
        json_t *a;
        json_array_foreach(json_object_get(reply, "agents"), i, a)
        {
            const char *wt = json_string_value(json_object_get(a, "worktree"));
            size_t n = wt ? strlen(wt) : 0;
            if (n && path_within(cwd, wt) && n > best_len) {
                top = wt;
                best_len = n;
            }
        }
        bool person = false;
        const char *me =
            top ? session_person_agent(
                      json_object_get(reply, "agents"), top, &person, &error)
                : NULL;
        best = me ? xstrdup(me) : NULL;
        /* only running sessions there: the person at the keyboard */
        json_t *p = NULL;
        if (person && !client_call(cl, api_person(top), &status, &p, &e) &&
            status == 200 && json_string_value(json_object_get(p, "id")))
            best = xstrdup(json_string_value(json_object_get(p, "id")));
        else if (person)
            error = xasprintf("cannot act as the person at '%s': %s", top,
                p ? client_error_message(p) : e.msg);
        if (p)
            json_decref(p);
    }
    if (reply)
        json_decref(reply);
    free(cwd);
    if (error)
        fprintf(stderr, "airspace %s: %s\n", cmd, error);
    else if (!best)
        fprintf(stderr,
            "airspace %s: no agent given (--agent or AIRSPACE_AGENT) and "
            "none flies in this directory\n",
            cmd);
    free(error);
    return best;
}

static void
print_lock(json_t *l)
{
    const char *reason = json_string_value(json_object_get(l, "reason"));
    const char *by = json_string_value(json_object_get(l, "contestedBy"));
    struct event_texts t = { 0 };
    printf("%-40s %-10s %-5s %-9s token %-6lld expires in %llds%s%s%s%s\n",
        event_text_show(&t, dcli_str(l, "pattern"), NULL),
        event_text_show(&t, dcli_str(l, "holder"), NULL),
        event_text_show(&t, dcli_str(l, "kind"), NULL),
        event_text_show(&t, dcli_str(l, "mode"), NULL),
        (long long)json_integer_value(json_object_get(l, "token")),
        (long long)json_integer_value(json_object_get(l, "expiresInMs")) / 1000,
        reason ? "  " : "", reason ? event_text_show(&t, reason, NULL) : "",
        by ? "  contested by " : "", by ? event_text_show(&t, by, NULL) : "");
    event_texts_release(&t);
}

/*
 * The fencing token of agent's live lock or claim spelled pattern, from
 * GET /v1/locks; 0 when it holds none there (the release then gets the
 * daemon's own answer). A release must carry the token: the command
 * line's user releases what they hold now, unless --token names a grant.
 */
static json_int_t
held_token(struct client *cl, const char *agent, const char *pattern)
{
    long status;
    json_t *reply = NULL;
    struct as_err e;
    if (client_call(cl, api_locks(NULL), &status, &reply, &e))
        return 0;
    json_int_t tok = api_locks_token(reply, agent, pattern);
    json_decref(reply);
    return tok;
}

/* One POST per pattern; stops at the first refusal. */
static int
each_pattern(int argc, char **argv, const char *cmd, enum api_lock_op op,
    const char *kind, const char *names, const char *usage)
{
    struct lopts o;
    int rc = parse(argc, argv, &o, names, usage);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if (optind >= argc)
        return dcli_usage(cmd, "expected at least one PATTERN");
    /* every pattern checked before anything is asked */
    size_t npat = (size_t)(argc - optind);
    char **pats = xcalloc(npat, sizeof(*pats));
    struct cwd_path cp;
    cwd_path_init(&cp, o.repo);
    struct as_err pe;
    for (size_t k = 0; k < npat && !rc; k++)
        if (cwd_path_pattern(&cp, argv[optind + (int)k], &pats[k], &pe))
            rc = dcli_usage(cmd, "%s", pe.msg);
    cwd_path_release(&cp);
    struct client cl;
    char *agent = NULL;
    if (rc || (rc = dcli_open(&cl, o.repo, o.no_start, cmd)))
        goto out_free;
    agent = resolve_agent(&cl, &o, cmd);
    if (!agent) {
        rc = CLI_EXIT_USAGE;
        goto out_close;
    }
    for (size_t k = 0; k < npat && !rc; k++) {
        struct api_lock l = { agent, pats[k], kind, o.mode, o.reason,
            (long long)o.ttl_s * 1000, 0 };
        if (op == API_LOCK_RELEASE)
            l.token = o.token ? o.token : held_token(&cl, agent, pats[k]);
        long status;
        json_t *reply = NULL;
        struct as_err e;
        if (client_call(&cl, api_lock(op, &l), &status, &reply, &e)) {
            fprintf(stderr, "airspace %s: %s\n", cmd, e.msg);
            rc = CLI_EXIT_UNREACHABLE;
        } else {
            rc = client_exit_code(status);
            if (o.json && reply) {
                char *s = json_dumps(reply, JSON_INDENT(2));
                puts(s);
                free(s);
            } else if (rc) {
                /* a refusal names the holder's pattern and reason */
                struct event_texts t = { 0 };
                fprintf(stderr, "airspace %s: %s\n", cmd,
                    event_text_show(&t, client_error_message(reply), NULL));
                event_texts_release(&t);
            } else if (json_object_get(reply, "pattern")) {
                print_lock(reply);
            }
        }
        if (reply)
            json_decref(reply);
    }
    free(agent);
out_close:
    client_close(&cl);
out_free:
    for (size_t k = 0; k < npat; k++)
        free(pats[k]);
    free(pats);
    return rc;
}

int
cmd_lock(int argc, char **argv)
{
    return each_pattern(argc, argv, "lock", API_LOCK_TAKE, "lock",
        COMMON_OPTS "shared ttl reason",
        "usage: airspace lock [--agent ID] [--shared] [--ttl SECONDS]\n"
        "                     [--reason TEXT] [--repo DIR] [--json]\n"
        "                     [--no-start] PATTERN...\n\n"
        "Lock paths or gitignore-style globs (exclusive unless --shared),\n"
        "relative to the current directory.\n"
        "Exit 1 when someone else holds one; the holder is named.\n");
}

int
cmd_unlock(int argc, char **argv)
{
    return each_pattern(argc, argv, "unlock", API_LOCK_RELEASE, NULL,
        COMMON_OPTS "token",
        "usage: airspace unlock [--agent ID] [--token N] [--repo DIR] "
        "[--json]\n"
        "                       [--no-start] PATTERN...\n\n"
        "Release locks or claims you hold; with --token, only the grant\n"
        "of that fencing token (exit 1 when it was lost since).\n");
}

int
cmd_claim(int argc, char **argv)
{
    return each_pattern(argc, argv, "claim", API_LOCK_TAKE, "claim",
        COMMON_OPTS "ttl reason",
        "usage: airspace claim [--agent ID] [--ttl SECONDS] [--reason TEXT]\n"
        "                      [--repo DIR] [--json] [--no-start] "
        "PATTERN...\n\n"
        "Claim paths: like a lock, but others may contest it.\n");
}

int
cmd_contest(int argc, char **argv)
{
    return each_pattern(argc, argv, "contest", API_LOCK_CONTEST, NULL,
        COMMON_OPTS,
        "usage: airspace contest [--agent ID] [--repo DIR] [--json]\n"
        "                        [--no-start] PATTERN...\n\n"
        "Contest someone's claim; its holder is told. After the contest\n"
        "timeout, 'airspace release --force' takes it.\n");
}

int
cmd_release(int argc, char **argv)
{
    bool force = false;
    for (int i = 1; i < argc; i++)
        force = force || !strcmp(argv[i], "--force");
    return each_pattern(argc, argv, "release",
        force ? API_LOCK_FORCE_RELEASE : API_LOCK_RELEASE, NULL,
        COMMON_OPTS "force token",
        "usage: airspace release [--agent ID] [--force] [--token N]\n"
        "                        [--repo DIR] [--json] [--no-start]\n"
        "                        PATTERN...\n\n"
        "Release your claims; with --force, take a claim you contested\n"
        "after the contest timeout (or from a stale holder).\n");
}

int
cmd_locks(int argc, char **argv)
{
    struct lopts o;
    int rc = parse(argc, argv, &o, COMMON_OPTS,
        "usage: airspace locks [--agent ID] [--repo DIR] [--json] "
        "[--no-start]\n\n"
        "List live locks and claims.\n");
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    struct client cl;
    if ((rc = dcli_open(&cl, o.repo, o.no_start, "locks")))
        return rc;
    /* a session's own command lists everyone's */
    struct api_req r = api_locks(o.named ? o.agent : NULL);
    long status;
    json_t *reply = NULL;
    struct as_err e;
    if (client_call(&cl, r, &status, &reply, &e)) {
        fprintf(stderr, "airspace locks: %s\n", e.msg);
        rc = CLI_EXIT_UNREACHABLE;
    } else if ((rc = client_exit_code(status))) {
        struct event_texts t = { 0 };
        fprintf(stderr, "airspace locks: %s\n",
            event_text_show(&t, client_error_message(reply), NULL));
        event_texts_release(&t);
    } else if (o.json) {
        char *s = json_dumps(reply, JSON_INDENT(2));
        puts(s);
        free(s);
    } else {
        size_t i;
        json_t *l;
        json_t *list = json_object_get(reply, "locks");
        json_array_foreach(list, i, l) print_lock(l);
        if (!json_array_size(list))
            puts("no locks");
    }
    if (reply)
        json_decref(reply);
    client_close(&cl);
    return rc;
}

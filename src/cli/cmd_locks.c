/*
 * cmd_locks.c - locks and claims from the command line: lock, unlock,
 * locks, claim, contest, release. Patterns are relative to the current
 * directory (cwd_path.h).
 */
#include <errno.h>
#include <getopt.h>
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
#include "util/xalloc.h"
#include "util/banned.h"

struct lopts {
    const char *repo, *agent, *reason, *mode;
    long ttl_s;
    long long token; /* --token: the fencing token of the grant held */
    bool json, no_start, force;
    bool named; /* --agent or AIRSPACE_AGENT, not found from the session */
};

static int
parse(int argc, char **argv, struct lopts *o, const char *usage)
{
    static const struct option longopts[] = {
        { "repo", required_argument, NULL, 'r' },
        { "agent", required_argument, NULL, 'a' },
        { "reason", required_argument, NULL, 'R' },
        { "ttl", required_argument, NULL, 't' },
        { "shared", no_argument, NULL, 's' },
        { "force", no_argument, NULL, 'f' },
        { "token", required_argument, NULL, 'T' },
        { "json", no_argument, NULL, 'j' },
        { "no-start", no_argument, NULL, 'n' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    memset(o, 0, sizeof(*o));
    o->repo = ".";
    o->agent = NULL; /* after the options: --agent, else the session */
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'r':
            o->repo = optarg;
            break;
        case 'a':
            o->agent = optarg;
            break;
        case 'R':
            o->reason = optarg;
            break;
        case 't':
            errno = 0;
            o->ttl_s = strtol(optarg, &end, 10);
            if (errno || *end || o->ttl_s <= 0 || o->ttl_s > LONG_MAX / 1000)
                return dcli_usage(argv[0],
                    "--ttl takes seconds > 0 (at most %ld), not '%s'",
                    LONG_MAX / 1000, optarg);
            break;
        case 's':
            o->mode = "shared";
            break;
        case 'T':
            errno = 0;
            o->token = strtoll(optarg, &end, 10);
            if (errno || *end || o->token <= 0)
                return dcli_usage(argv[0],
                    "--token takes the lock's fencing token (> 0), not '%s'",
                    optarg);
            break;
        case 'f':
            o->force = true;
            break;
        case 'j':
            o->json = true;
            break;
        case 'n':
            o->no_start = true;
            break;
        case 'h':
            fputs(usage, stdout);
            return -1;
        default:
            return dcli_usage(
                argv[0], "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    const char *env = getenv("AIRSPACE_AGENT");
    o->named = o->agent || (env && *env);
    if (!o->agent)
        o->agent = session_cli_agent(o->repo);
    return 0;
}

/* Without --agent: the agent whose worktree holds the current directory. */
static char *
resolve_agent(struct client *cl, const struct lopts *o, const char *cmd)
{
    if (o->agent)
        return xstrdup(o->agent);
    long status;
    json_t *reply = NULL;
    struct as_err e;
    char *cwd = realpath(".", NULL), *best = NULL;
    size_t best_len = 0;
    if (cwd &&
        !client_request(cl, "GET", "/v1/agents", NULL, &status, &reply, &e) &&
        status == 200) {
        size_t i;
        json_t *a;
        json_array_foreach(json_object_get(reply, "agents"), i, a)
        {
            const char *wt = json_string_value(json_object_get(a, "worktree"));
            size_t n = wt ? strlen(wt) : 0;
            if (n && !strncmp(cwd, wt, n) && (cwd[n] == '/' || !cwd[n]) &&
                n > best_len) {
                free(best);
                best = xstrdup(json_string_value(json_object_get(a, "id")));
                best_len = n;
            }
        }
    }
    if (reply)
        json_decref(reply);
    free(cwd);
    if (!best)
        fprintf(stderr,
            "airspace %s: no agent given (--agent or AIRSPACE_AGENT) and "
            "none flies in this directory\n",
            cmd);
    return best;
}

static void
print_lock(json_t *l)
{
    const char *reason = json_string_value(json_object_get(l, "reason"));
    printf("%-40s %-10s %-5s %-9s token %-6lld expires in %llds%s%s\n",
        json_string_value(json_object_get(l, "pattern")),
        json_string_value(json_object_get(l, "holder")),
        json_string_value(json_object_get(l, "kind")),
        json_string_value(json_object_get(l, "mode")),
        (long long)json_integer_value(json_object_get(l, "token")),
        (long long)json_integer_value(json_object_get(l, "expiresInMs")) / 1000,
        reason ? "  " : "", reason ? reason : "");
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
    json_int_t tok = 0;
    if (client_request(cl, "GET", "/v1/locks", NULL, &status, &reply, &e))
        return 0;
    size_t k;
    json_t *l;
    json_array_foreach(json_object_get(reply, "locks"), k, l)
    {
        const char *h = json_string_value(json_object_get(l, "holder"));
        const char *p = json_string_value(json_object_get(l, "pattern"));
        if (h && p && !strcmp(h, agent) && !strcmp(p, pattern))
            tok = json_integer_value(json_object_get(l, "token"));
    }
    json_decref(reply);
    return tok;
}

/* One POST per pattern; stops at the first refusal. */
static int
each_pattern(int argc, char **argv, const char *cmd, const char *path,
    const char *kind, const char *usage)
{
    struct lopts o;
    int rc = parse(argc, argv, &o, usage);
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
        json_t *body =
            json_pack("{s:s, s:s}", "agent", agent, "pattern", pats[k]);
        if (kind)
            json_object_set_new(body, "kind", json_string(kind));
        if (o.mode && !strcmp(path, "/v1/locks"))
            json_object_set_new(body, "mode", json_string(o.mode));
        if (o.reason && !strcmp(path, "/v1/locks"))
            json_object_set_new(body, "reason", json_string(o.reason));
        if (!strcmp(path, "/v1/locks/release")) {
            json_int_t tok =
                o.token ? (json_int_t)o.token : held_token(&cl, agent, pats[k]);
            if (tok)
                json_object_set_new(body, "token", json_integer(tok));
        }
        if (o.ttl_s &&
            (!strcmp(path, "/v1/locks") || !strcmp(path, "/v1/locks/renew")))
            json_object_set_new(
                body, "ttlMs", json_integer((json_int_t)o.ttl_s * 1000));
        long status;
        json_t *reply = NULL;
        struct as_err e;
        if (client_request(&cl, "POST", path, body, &status, &reply, &e)) {
            fprintf(stderr, "airspace %s: %s\n", cmd, e.msg);
            rc = CLI_EXIT_UNREACHABLE;
        } else {
            rc = client_exit_code(status);
            if (o.json && reply) {
                char *s = json_dumps(reply, JSON_INDENT(2));
                puts(s);
                free(s);
            } else if (rc) {
                fprintf(stderr, "airspace %s: %s\n", cmd,
                    client_error_message(reply));
            } else if (json_object_get(reply, "pattern")) {
                print_lock(reply);
            }
        }
        if (reply)
            json_decref(reply);
        json_decref(body);
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
    return each_pattern(argc, argv, "lock", "/v1/locks", "lock",
        "usage: airspace lock [--agent ID] [--shared] [--ttl SECONDS]\n"
        "                     [--reason TEXT] PATTERN...\n\n"
        "Lock paths or gitignore-style globs (exclusive unless --shared),\n"
        "relative to the current directory.\n"
        "Exit 1 when someone else holds one; the holder is named.\n");
}

int
cmd_unlock(int argc, char **argv)
{
    return each_pattern(argc, argv, "unlock", "/v1/locks/release", NULL,
        "usage: airspace unlock [--agent ID] [--token N] PATTERN...\n\n"
        "Release locks or claims you hold; with --token, only the grant\n"
        "of that fencing token (exit 1 when it was lost since).\n");
}

int
cmd_claim(int argc, char **argv)
{
    return each_pattern(argc, argv, "claim", "/v1/locks", "claim",
        "usage: airspace claim [--agent ID] [--ttl SECONDS] [--reason TEXT]\n"
        "                      PATTERN...\n\n"
        "Claim paths: like a lock, but others may contest it.\n");
}

int
cmd_contest(int argc, char **argv)
{
    return each_pattern(argc, argv, "contest", "/v1/locks/contest", NULL,
        "usage: airspace contest [--agent ID] PATTERN...\n\n"
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
        force ? "/v1/locks/force-release" : "/v1/locks/release", NULL,
        "usage: airspace release [--agent ID] [--force] [--token N]\n"
        "                        PATTERN...\n\n"
        "Release your claims; with --force, take a claim you contested\n"
        "after the contest timeout (or from a stale holder).\n");
}

int
cmd_locks(int argc, char **argv)
{
    struct lopts o;
    int rc = parse(argc, argv, &o,
        "usage: airspace locks [--agent ID] [--json]\n\n"
        "List live locks and claims.\n");
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    struct client cl;
    if ((rc = dcli_open(&cl, o.repo, o.no_start, "locks")))
        return rc;
    char *path = xstrdup("/v1/locks");
    if (o.named) { /* a session's own command lists everyone's */
        free(path);
        path = xasprintf("/v1/locks?agent=%s", o.agent);
    }
    long status;
    json_t *reply = NULL;
    struct as_err e;
    if (client_request(&cl, "GET", path, NULL, &status, &reply, &e)) {
        fprintf(stderr, "airspace locks: %s\n", e.msg);
        rc = CLI_EXIT_UNREACHABLE;
    } else if ((rc = client_exit_code(status))) {
        fprintf(stderr, "airspace locks: %s\n", client_error_message(reply));
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
    free(path);
    client_close(&cl);
    return rc;
}

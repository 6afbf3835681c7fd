/*
 * cmd_collab.c - intents, messages, conflicts and the log from the command
 * line: intent, conflicts, msg, inbox, log.
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
#include "cli/opts.h"
#include "cli/event_text.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct copt {
    const char *repo, *agent, *summary, *type, *to, *filter_type;
    long ttl_s, after, limit;
    bool json, no_start, agent_given, after_given;
};

/* The options every one of these commands takes, before its own. */
#define COMMON_OPTS "repo json no-start "

/* LONG_MAX / 1000, as the --ttl message spells it (lock's too) */
#define TTL_MAX_TEXT "9223372036854775"
_Static_assert(LONG_MAX / 1000 == 9223372036854775L, "TTL_MAX_TEXT");

/*
 * Parse the options the command takes: COMMON_OPTS and those names lists
 * (opts_keep); with_n: log's -n N (the same as --limit).
 */
static int
cparse(int argc, char **argv, struct copt *o, const char *names,
    const char *usage, bool with_n)
{
    memset(o, 0, sizeof(*o));
    struct opt table[] = {
        OPT_REPO(&o->repo),
        OPT_AGENT(&o->agent, &o->agent_given),
        { .name = "summary", .kind = OPT_STRING, .target = &o->summary },
        { .name = "ttl",
            .kind = OPT_NUMBER,
            .target = &o->ttl_s,
            .min = 1,
            .max = LONG_MAX / 1000,
            .bad = "--ttl takes seconds > 0 (at most " TTL_MAX_TEXT ")" },
        { .name = "type", .kind = OPT_STRING, .target = &o->type },
        { .name = "after",
            .kind = OPT_NUMBER,
            .target = &o->after,
            .given = &o->after_given },
        { .name = "limit",
            .letter = with_n ? 'n' : 0,
            .kind = OPT_NUMBER,
            .target = &o->limit,
            .min = 1,
            .max = LONG_MAX,
            .bad = "-n takes a number > 0" },
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
    if (!o->agent)
        o->agent = session_cli_agent(o->repo);
    return 0;
}

/* One request; prints JSON with --json, else calls show. */
static int
creq(struct client *cl, const struct copt *o, const char *cmd, struct api_req r,
    void (*show)(json_t *))
{
    json_t *reply = NULL;
    int rc = dcli_call(cl, cmd, r, &reply);
    if (!rc && o->json)
        dcli_print_json(reply);
    else if (!rc && show)
        show(reply);
    if (reply)
        json_decref(reply);
    return rc;
}

static void
show_intent(json_t *r)
{
    struct event_texts t = { 0 };
    printf("intent %lld declared\n",
        (long long)json_integer_value(json_object_get(r, "id")));
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(r, "conflicts"), i, c)
        puts(event_text_show(&t, dcli_str(c, "text"), NULL));
    json_t *twin = json_object_get(r, "similar");
    if (twin)
        printf("[duplicate?] '%s' is already on it: \"%s\" (intent %lld)\n",
            event_text_show(&t, dcli_str(twin, "agent"), NULL),
            event_text_show(&t, dcli_str(twin, "summary"), NULL),
            (long long)json_integer_value(json_object_get(twin, "intent")));
    event_texts_release(&t);
}

int
cmd_intent(int argc, char **argv)
{
    struct copt o;
    int rc = cparse(argc, argv, &o, COMMON_OPTS "agent summary ttl",
        "usage: airspace intent [--agent ID] [--summary TEXT] [--ttl SECONDS]\n"
        "                       [--repo DIR] [--json] [--no-start]\n"
        "                       PATH-OR-GLOB...\n\n"
        "Declare what you are about to touch (paths relative to the current\n"
        "directory); agents whose intents overlap are told (forward\n"
        "conflict).\n",
        false);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if (optind >= argc)
        return dcli_usage("intent", "expected at least one path or glob");
    if (!o.agent)
        return dcli_usage("intent", "no agent: give --agent or AIRSPACE_AGENT");
    json_t *files = json_array();
    struct cwd_path cp;
    cwd_path_init(&cp, o.repo);
    for (int k = optind; k < argc && !rc; k++) {
        char *p;
        struct as_err e;
        if (cwd_path_pattern(&cp, argv[k], &p, &e)) {
            rc = dcli_usage("intent", "%s", e.msg);
            break;
        }
        json_array_append_new(files, json_string(p));
        free(p);
    }
    cwd_path_release(&cp);
    if (rc) {
        json_decref(files);
        return rc;
    }
    json_t *body = json_pack("{s:s, s:o}", "agent", o.agent, "files", files);
    if (o.summary)
        json_object_set_new(body, "summary", json_string(o.summary));
    if (o.ttl_s)
        json_object_set_new(
            body, "ttlMs", json_integer((json_int_t)o.ttl_s * 1000));
    struct client cl;
    if ((rc = dcli_open(&cl, o.repo, o.no_start, "intent"))) {
        json_decref(body);
        return rc;
    }
    rc = creq(&cl, &o, "intent", api_intent(body), show_intent);
    client_close(&cl);
    return rc;
}

static void
show_conflicts(json_t *r)
{
    size_t i;
    json_t *c;
    json_t *list = json_object_get(r, "conflicts");
    struct event_texts t = { 0 };
    json_array_foreach(list, i, c)
    {
        json_t *ag = json_object_get(c, "agents");
        char other[256];
        dcli_conflict_with(c, other, sizeof(other));
        printf("%-11s %-16s %-16s %s%s%s\n",
            event_text_show(&t, dcli_str(c, "shape"), NULL),
            event_text_show(&t, json_string_value(json_array_get(ag, 0)), NULL),
            event_text_show(&t, other, NULL),
            event_text_show(&t, dcli_str(c, "file"), NULL),
            json_object_get(c, "why") ? "  " : "",
            json_object_get(c, "why")
                ? event_text_show(&t, dcli_str(c, "why"), NULL)
                : "");
        event_texts_release(&t);
    }
    if (!json_array_size(list))
        puts("no conflicts");
}

int
cmd_conflicts(int argc, char **argv)
{
    struct copt o;
    int rc = cparse(argc, argv, &o, COMMON_OPTS,
        "usage: airspace conflicts [--repo DIR] [--json] [--no-start]\n\n"
        "One line per conflict: its shape, the agent, the other party, the\n"
        "file and why. Forward (intents overlap), in-flight (changes meet\n"
        "changes or an intent), committed (the speculative merge conflicts),\n"
        "ownership (a change inside another's earlier intent, lane or\n"
        ".airspace/owners) and integration (an agent's work against what\n"
        "the integration branch changed since its base).\n",
        false);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    struct client cl;
    if ((rc = dcli_open(&cl, o.repo, o.no_start, "conflicts")))
        return rc;
    rc = creq(&cl, &o, "conflicts", api_conflicts(), show_conflicts);
    client_close(&cl);
    return rc;
}

static void
show_sent(json_t *r)
{
    printf("delivered to %lld\n",
        (long long)json_integer_value(json_object_get(r, "delivered")));
}

int
cmd_msg(int argc, char **argv)
{
    struct copt o;
    int rc = cparse(argc, argv, &o, COMMON_OPTS "agent type",
        "usage: airspace msg [--agent FROM] [--type TYPE] [--repo DIR] "
        "[--json]\n"
        "                    [--no-start] TO TEXT...\n\n"
        "Send a message to an agent, a label, 'all' or 'supervisor'. TYPE:\n"
        "info (default), question, claim, release, delegate, handoff, ack,\n"
        "block.\n",
        false);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if (argc - optind < 2)
        return dcli_usage("msg", "expected TO and a message");
    if (!o.agent)
        return dcli_usage("msg", "no sender: give --agent or AIRSPACE_AGENT");
    size_t len = 0;
    for (int k = optind + 1; k < argc; k++)
        len += strlen(argv[k]) + 1;
    char *text = xmalloc(len + 1);
    text[0] = '\0';
    size_t at = 0;
    for (int k = optind + 1; k < argc; k++)
        at += (size_t)snprintf(text + at, len + 1 - at, "%s%s",
            k > optind + 1 ? " " : "", argv[k]);
    struct client cl;
    if ((rc = dcli_open(&cl, o.repo, o.no_start, "msg"))) {
        free(text);
        return rc;
    }
    rc = creq(&cl, &o, "msg", api_message(o.agent, argv[optind], o.type, text),
        show_sent);
    free(text);
    client_close(&cl);
    return rc;
}

static void
show_inbox(json_t *r)
{
    size_t i;
    json_t *m;
    json_t *list = json_object_get(r, "messages");
    struct event_texts t = { 0 };
    /* a body's later lines are indented under its first: no line of a
     * body can pass for a message of its own */
    json_array_foreach(list, i, m)
    {
        printf("[%s] %s: %s\n", event_text_show(&t, dcli_str(m, "type"), NULL),
            event_text_show(&t, dcli_str(m, "from"), NULL),
            event_text_show(&t, dcli_str(m, "body"), "    "));
        event_texts_release(&t);
    }
    if (!json_array_size(list))
        puts("no new messages");
    json_int_t dropped = json_integer_value(json_object_get(r, "dropped"));
    if (dropped > 0)
        fprintf(stderr,
            "airspace inbox: %lld unread message%s to this inbox %s dropped "
            "since the daemon started (an inbox keeps 256): 'airspace log "
            "--type message.dropped' lists them\n",
            (long long)dropped, dropped == 1 ? "" : "s",
            dropped == 1 ? "was" : "were");
}

int
cmd_inbox(int argc, char **argv)
{
    struct copt o;
    int rc = cparse(argc, argv, &o, COMMON_OPTS "agent",
        "usage: airspace inbox [--agent ID] [--repo DIR] [--json] "
        "[--no-start]\n\n"
        "Read (and mark read) your new messages.\n",
        false);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if (!o.agent)
        return dcli_usage("inbox", "no agent: give --agent or AIRSPACE_AGENT");
    struct client cl;
    if ((rc = dcli_open(&cl, o.repo, o.no_start, "inbox")))
        return rc;
    rc = creq(&cl, &o, "inbox", api_inbox(o.agent, false), show_inbox);
    client_close(&cl);
    return rc;
}

/* ---- log ---- */

#define LOG_DEFAULT 20
#define LEDGER_PAGE 100000 /* the most GET /v1/ledger gives at once */

static void
show_log(json_t *r)
{
    size_t i;
    json_t *ev;
    json_t *list = json_object_get(r, "events");
    json_array_foreach(list, i, ev)
    {
        struct strbuf line = STRBUF_INIT;
        event_text_line(&line, ev, true);
        puts(line.s);
        free(line.s);
    }
    if (!json_array_size(list))
        puts("no events");
}

/* The ledger request for the filters, after event id after. */
static struct api_req
ledger(const struct copt *o, long after, long limit)
{
    return api_ledger(after, limit, o->type, o->agent_given ? o->agent : NULL);
}

/*
 * The last n events matching the filters, oldest first, in *out ({events}).
 * The ledger answers oldest first from an id on, so the window before the
 * last event id grows until it holds n of them or reaches the start.
 */
static int
last_events(struct client *cl, const struct copt *o, long n, json_t **out)
{
    json_t *st = NULL;
    int rc = dcli_call(cl, "log", api_status(), &st);
    long last =
        rc ? 0 : (long)json_integer_value(json_object_get(st, "lastEventId"));
    if (st)
        json_decref(st);
    if (rc)
        return rc;
    json_t *ring = json_array();
    for (long window = n * 2 > 64 ? n * 2 : 64;; window *= 8) {
        long from = last > window ? last - window : 0, after = from;
        json_array_clear(ring);
        size_t got;
        do {
            json_t *reply = NULL;
            rc = dcli_call(cl, "log", ledger(o, after, LEDGER_PAGE), &reply);
            if (rc) {
                if (reply)
                    json_decref(reply);
                json_decref(ring);
                return rc;
            }
            json_t *evs = json_object_get(reply, "events");
            got = json_array_size(evs);
            size_t i;
            json_t *ev;
            json_array_foreach(evs, i, ev)
            {
                json_array_append(ring, ev);
                if (json_array_size(ring) > (size_t)n)
                    json_array_remove(ring, 0);
                after = (long)json_integer_value(json_object_get(ev, "id"));
            }
            json_decref(reply);
        } while (got == LEDGER_PAGE);
        if (json_array_size(ring) >= (size_t)n || from == 0 ||
            window > LONG_MAX / 8)
            break;
    }
    *out = json_pack("{s:o}", "events", ring);
    return 0;
}

int
cmd_log(int argc, char **argv)
{
    struct copt o;
    int rc = cparse(argc, argv, &o, COMMON_OPTS "agent type after limit",
        "usage: airspace log [--agent ID] [--type PREFIX] [--after ID]\n"
        "                    [-n N | --limit N] [--repo DIR] [--json]\n"
        "                    [--no-start]\n\n"
        "What happened, one line per event, newest last: the last N events\n"
        "(default 20), or with --after ID the first N after that event.\n",
        true);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if (optind < argc)
        return dcli_usage("log", "unexpected '%s'", argv[optind]);
    long n = o.limit ? o.limit : LOG_DEFAULT;
    if (n > LEDGER_PAGE)
        return dcli_usage("log", "-n is at most %d", LEDGER_PAGE);
    struct client cl;
    if ((rc = dcli_open(&cl, o.repo, o.no_start, "log")))
        return rc;
    /* --agent filters here; AIRSPACE_AGENT alone does not */
    json_t *reply = NULL;
    if (o.after_given) {
        rc = dcli_call(&cl, "log", ledger(&o, o.after, n), &reply);
    } else {
        rc = last_events(&cl, &o, n, &reply);
    }
    if (!rc && o.json)
        dcli_print_json(reply);
    else if (!rc)
        show_log(reply);
    if (reply)
        json_decref(reply);
    client_close(&cl);
    return rc;
}

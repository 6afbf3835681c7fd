/*
 * cmd_alerts.c - `airspace alerts`: what needs a person now (the daemon's
 * alerts, docs/protocol.md "Alerts").
 */
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cli/cli.h"
#include "client/client.h"
#include "cli/dcli.h"
#include "cli/event_text.h"
#include "cli/opts.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char usage[] =
    "usage: airspace alerts [--agent ID] [--fail] [--json] [--repo DIR]\n"
    "                      [--no-start]\n\n"
    "The alerts that hold now: locks held by silent agents, agents silent\n"
    "too long, escalations and messages to the supervisor waiting for a\n"
    "person, files changed by several agents with no advisory between them,\n"
    "fleet agents given up, a store that refuses writes. --agent: those\n"
    "concerning that agent. Exit 0 (1 with --fail when any holds).\n";

int
cmd_alerts(int argc, char **argv)
{
    const char *agent = NULL, *repo = ".";
    bool json = false, no_start = false, fail = false;
    const struct opt table[] = {
        OPT_AGENT(&agent, NULL),
        OPT_JSON(&json),
        OPT_REPO(&repo),
        OPT_NO_START(&no_start),
        { .name = "fail", .kind = OPT_FLAG, .target = &fail },
        OPT_TABLE_END,
    };
    int rc = opts_parse(argc, argv, table, "alerts", usage, OPTS_UNKNOWN);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if (optind < argc)
        return dcli_usage("alerts", "unexpected argument '%s'", argv[optind]);
    struct client cl;
    rc = dcli_open(&cl, repo, no_start, "alerts");
    if (rc)
        return rc;
    json_t *reply = NULL;
    rc = dcli_call(&cl, "alerts", api_alerts(agent), &reply);
    json_t *list = json_object_get(reply, "alerts");
    if (!rc) {
        if (json) {
            dcli_print_json(reply);
        } else if (!json_array_size(list)) {
            printf("no alerts\n");
        } else {
            size_t i;
            json_t *a;
            time_t now = time(NULL);
            json_array_foreach(list, i, a)
            {
                long long since =
                    json_integer_value(json_object_get(a, "since")) / 1000;
                struct event_texts t = { 0 };
                printf("%-15s %5llds ago  %s\n",
                    event_text_show(&t, dcli_str(a, "kind"), NULL),
                    since && now >= since ? (long long)(now - since) : 0LL,
                    event_text_show(&t, dcli_str(a, "text"), "    "));
                event_texts_release(&t);
            }
        }
        if (fail && json_array_size(list))
            rc = CLI_EXIT_FAIL;
    }
    if (reply)
        json_decref(reply);
    client_close(&cl);
    return rc;
}

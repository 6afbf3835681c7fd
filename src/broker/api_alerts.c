/*
 * api_alerts.c - routes for alerts and the fleet's reports
 * (docs/protocol.md, "Alerts" and "Fleet").
 */
#include "broker/api.h"
#include "broker/alerting.h"

#include <string.h>

#include "git/worktree.h"
#include "util/banned.h"

/* GET /v1/alerts[?agent=ID] */
static void
h_alerts(struct api_ctx *c)
{
    const char *agent = evhttp_find_header(&c->query, "agent");
    api_reply_json(c->req, 200,
        json_pack("{s:o}", "alerts", broker_alerts_json(c->b, agent)));
}

/* GET /v1/fleet */
static void
h_fleet(struct api_ctx *c)
{
    api_reply_json(
        c->req, 200, json_pack("{s:o}", "fleet", broker_fleet_json(c->b)));
}

static const char *const fleet_states[] = { "queued", "starting", "running",
    "restarting", "given-up", "exited", "stopped", NULL };

/* POST /v1/fleet/NAME {state, restarts?, lane?, why?, pid?}: what the
 * supervisor of fleet agent NAME (`airspace fleet run-agent`) reports. */
static void
h_fleet_report(struct api_ctx *c)
{
    static const char *const keys[] = { "state", "restarts", "lane", "why",
        "pid", NULL };
    const char *name = c->seg[2];
    if (!worktree_name_valid(name)) {
        api_reply_error(c->req, 400, "bad_field",
            "'%s' cannot name a fleet agent (letters, digits, '.', '_', '-')",
            name);
        return;
    }
    if (api_check_keys(c, keys) || api_want_string(c, "state", true, 32) ||
        api_want_string(c, "lane", false, 4096) ||
        api_want_string(c, "why", false, 1024))
        return;
    const char *state = json_string_value(json_object_get(c->body, "state"));
    bool known = false;
    for (size_t k = 0; fleet_states[k] && !known; k++)
        known = !strcmp(state, fleet_states[k]);
    if (!known) {
        api_reply_error(c->req, 400, "bad_field",
            "'state' must be one of queued, starting, running, restarting, "
            "given-up, exited, stopped");
        return;
    }
    json_t *r = json_object_get(c->body, "restarts");
    json_t *pid = json_object_get(c->body, "pid");
    if ((r && (!json_is_integer(r) || json_integer_value(r) < 0 ||
                  json_integer_value(r) > 1000000)) ||
        (pid && (!json_is_integer(pid) || json_integer_value(pid) < 0))) {
        api_reply_error(c->req, 400, "bad_field",
            "'restarts' and 'pid' must be whole numbers >= 0");
        return;
    }
    struct as_err e;
    if (broker_fleet_report(c->b, name, state,
            r ? (unsigned)json_integer_value(r) : 0,
            json_string_value(json_object_get(c->body, "lane")),
            json_string_value(json_object_get(c->body, "why")),
            pid ? (int64_t)json_integer_value(pid) : 0, &e)) {
        api_reply_error(c->req, 409, "fleet_full", "%s", e.msg);
        return;
    }
    api_reply_json(c->req, 200, json_pack("{s:b}", "ok", 1));
}

const struct api_route api_alerts_routes[] = {
    { EVHTTP_REQ_GET, "v1/alerts", h_alerts },
    { EVHTTP_REQ_GET, "v1/fleet", h_fleet },
    { EVHTTP_REQ_POST, "v1/fleet/*", h_fleet_report },
};
const size_t api_alerts_nroutes =
    sizeof(api_alerts_routes) / sizeof(api_alerts_routes[0]);

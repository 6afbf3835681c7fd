/*
 * api_team.c - the team's route: GET /v1/team (team.c answers it).
 */
#include "broker/api.h"
#include "broker/team.h"

#include "util/banned.h"

static void
h_team(struct api_ctx *c)
{
    struct as_err e;
    json_t *doc = team_json(c->b, &e);
    if (!doc) {
        api_reply_error(c->req, 503, "store_unreachable", "%s", e.msg);
        return;
    }
    api_reply_json(c->req, 200, doc);
}

const struct api_route api_team_routes[] = {
    { EVHTTP_REQ_GET, "v1/team", h_team },
};
const size_t api_team_nroutes =
    sizeof(api_team_routes) / sizeof(api_team_routes[0]);

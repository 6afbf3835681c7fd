/*
 * api_hooks.c - routes serving the agents' hooks and MCP tools. Empty for
 * now: the hooks use the core routes (agents, edits, locks/check,
 * advisories).
 */
#include "broker/api.h"

#include "util/banned.h"

const struct api_route api_hook_routes[] = {
    { EVHTTP_REQ_GET, "v1/_unused_", NULL },
};
const size_t api_hook_nroutes = 0;

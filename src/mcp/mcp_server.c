/*
 * mcp_server.c - JSON-RPC 2.0 framing and the MCP lifecycle.
 */
#include "mcp/mcp_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/exitcode.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Newest first: an unknown request is answered with the first. */
static const char *const versions[] = { "2025-11-25", "2025-06-18",
    "2025-03-26", "2024-11-05", NULL };

/* Whether version is one this server speaks. */
static bool
mcp_version_supported(const char *version)
{
    for (size_t i = 0; version && versions[i]; i++)
        if (!strcmp(version, versions[i]))
            return true;
    return false;
}

void
mcp_server_init(struct mcp_server *s, const char *repo, const char *agent)
{
    memset(s, 0, sizeof(*s));
    s->session.repo = repo;
    if (agent && *agent)
        s->session.agent = xstrdup(agent);
}

void
mcp_server_release(struct mcp_server *s)
{
    mcp_session_release(&s->session);
}

static char *
dump(json_t *msg)
{
    char *out = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    return out;
}

/* An error response; id may be NULL (answered with null). Steals data. */
static json_t *
error_reply(json_t *id, int code, const char *message, json_t *data)
{
    json_t *err = json_pack("{s:i, s:s}", "code", code, "message", message);
    if (data)
        json_object_set_new(err, "data", data);
    return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id",
        id ? id : json_null(), "error", err);
}

static json_t *
result_reply(json_t *id, json_t *result)
{
    return json_pack(
        "{s:s, s:O, s:O}", "jsonrpc", "2.0", "id", id, "result", result);
}

static json_t *
initialize(struct mcp_server *s, json_t *id, json_t *params)
{
    const char *want =
        json_string_value(json_object_get(params, "protocolVersion"));
    if (!want)
        return error_reply(id, MCP_INVALID_PARAMS,
            "initialize needs params.protocolVersion (a string)", NULL);
    /* The requested version when we speak it, else our newest: the client
     * decides whether it can go on with that. */
    const char *v = mcp_version_supported(want) ? want : MCP_PROTOCOL_LATEST;
    snprintf(s->version, sizeof(s->version), "%s", v);
    s->session.structured = strcmp(v, "2025-06-18") >= 0;
    const char *cname = json_string_value(
        json_object_get(json_object_get(params, "clientInfo"), "name"));
    free(s->session.client_name);
    s->session.client_name = cname ? xstrdup(cname) : NULL;
    s->initialized = true;

    /* The agent is found (or registered) at the first tool call: by then
     * the session's hooks have registered it. Nothing on stderr: the
     * clients log a server's stderr as errors. */

    json_t *result = json_pack("{s:s, s:{s:{s:b}}, s:{s:s, s:s}, s:s}",
        "protocolVersion", v, "capabilities", "tools", "listChanged", 0,
        "serverInfo", "name", "airspace", "version", AIRSPACE_VERSION,
        "instructions",
        "airspace coordinates agents working on one git repository. Call "
        "'status' for the crew update, 'near' before editing a file, "
        "'intent' to declare what you will touch, 'lock' or 'claim' to hold "
        "files, and 'release' when done.");
    if (strcmp(v, "2025-06-18") >= 0)
        json_object_set_new(json_object_get(result, "serverInfo"), "title",
            json_string("airspace"));
    json_t *r = result_reply(id, result);
    json_decref(result);
    return r;
}

static json_t *
tools_call(struct mcp_server *s, json_t *id, json_t *params)
{
    const char *name = json_string_value(json_object_get(params, "name"));
    json_t *args = json_object_get(params, "arguments");
    if (!name)
        return error_reply(
            id, MCP_INVALID_PARAMS, "tools/call needs params.name", NULL);
    if (!mcp_tools_has(name)) {
        char *m = xasprintf("unknown tool '%s'", name);
        json_t *r = error_reply(id, MCP_INVALID_PARAMS, m, NULL);
        free(m);
        return r;
    }
    if (args && !json_is_object(args))
        return error_reply(
            id, MCP_INVALID_PARAMS, "params.arguments must be an object", NULL);
    json_t *result = mcp_tools_call(&s->session, name, args);
    json_t *r = result_reply(id, result);
    json_decref(result);
    return r;
}

/* One request or notification (an object); NULL when no reply is due. */
/* Whether a string of v holds a NUL: read as a C string it ends there,
 * and a path cut short names another file. */
static bool
has_nul(json_t *v)
{
    size_t i;
    const char *k;
    json_t *x;
    switch (json_typeof(v)) {
    case JSON_STRING:
        return strlen(json_string_value(v)) != json_string_length(v);
    case JSON_ARRAY:
        json_array_foreach(v, i, x) if (has_nul(x)) return true;
        return false;
    case JSON_OBJECT:
        json_object_foreach(v, k, x) if (has_nul(x)) return true;
        return false;
    default:
        return false;
    }
}

static json_t *
handle_message(struct mcp_server *s, json_t *msg)
{
    if (!json_is_object(msg))
        return error_reply(
            NULL, MCP_INVALID_REQUEST, "a message must be a JSON object", NULL);
    json_t *id = json_object_get(msg, "id");
    if (id && !json_is_string(id) && !json_is_integer(id))
        return error_reply(NULL, MCP_INVALID_REQUEST,
            "'id' must be a string or an integer", NULL);
    const char *jr = json_string_value(json_object_get(msg, "jsonrpc"));
    json_t *method_v = json_object_get(msg, "method");
    const char *method = json_string_value(method_v);
    if (!jr || strcmp(jr, "2.0"))
        return id ? error_reply(id, MCP_INVALID_REQUEST,
                        "'jsonrpc' must be \"2.0\"", NULL)
                  : NULL;
    if (has_nul(msg))
        return id ? error_reply(id, MCP_INVALID_PARAMS,
                        "strings must not contain NUL (\\u0000)", NULL)
                  : NULL;
    if (!method) {
        /* A response to a request we never send, or garbage. */
        if (!method_v &&
            (json_object_get(msg, "result") || json_object_get(msg, "error")))
            return NULL;
        return error_reply(
            id, MCP_INVALID_REQUEST, "'method' must be a string", NULL);
    }
    json_t *params = json_object_get(msg, "params");
    if (params && !json_is_object(params) && !json_is_array(params))
        return id ? error_reply(id, MCP_INVALID_REQUEST,
                        "'params' must be an object or an array", NULL)
                  : NULL;
    if (!id)
        return NULL; /* notifications (initialized, cancelled, ...) */
    if (!strcmp(method, "initialize"))
        return initialize(s, id, params);
    if (!strcmp(method, "ping")) {
        json_t *empty = json_object();
        json_t *r = result_reply(id, empty);
        json_decref(empty);
        return r;
    }
    if (!s->initialized)
        return error_reply(id, MCP_INVALID_REQUEST,
            "the session is not initialized: send 'initialize' first", NULL);
    if (!strcmp(method, "tools/list")) {
        json_t *res = json_pack("{s:o}", "tools", mcp_tools_list(s->version));
        json_t *r = result_reply(id, res);
        json_decref(res);
        return r;
    }
    if (!strcmp(method, "tools/call"))
        return tools_call(s, id, params);
    char *m = xasprintf("method '%s' not found", method);
    json_t *r = error_reply(id, MCP_METHOD_NOT_FOUND, m, NULL);
    free(m);
    return r;
}

char *
mcp_server_handle(struct mcp_server *s, const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
        i++;
    if (i == len)
        return NULL;
    if (len > MCP_LINE_MAX)
        return mcp_server_oversized();
    json_error_t je;
    /* NULs are let in to be refused with the request's id (handle_message)
     * rather than as unparsable, which has no id to answer: the client
     * would wait for its timeout */
    json_t *msg = json_loadb(line, len,
        JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!msg) {
        /* JSON all the same (a key given twice): refused with its id */
        json_t *lax =
            json_loadb(line, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
        json_t *id = json_object_get(lax, "id");
        json_t *r =
            lax ? error_reply(
                      json_is_string(id) || json_is_integer(id) ? id : NULL,
                      MCP_INVALID_REQUEST, "invalid request",
                      json_string(je.text))
                : error_reply(NULL, MCP_PARSE_ERROR, "parse error",
                      json_string(je.text));
        json_decref(lax);
        return dump(r);
    }
    json_t *reply;
    if (json_is_array(msg)) {
        /* Batches exist only in 2025-03-26. */
        if (strcmp(s->version, "2025-03-26")) {
            reply = error_reply(NULL, MCP_INVALID_REQUEST,
                "batches are not supported in this protocol version", NULL);
        } else if (!json_array_size(msg)) {
            reply = error_reply(NULL, MCP_INVALID_REQUEST,
                "an empty batch is no request", NULL);
        } else {
            reply = json_array();
            size_t k;
            json_t *m;
            json_array_foreach(msg, k, m)
            {
                json_t *one = handle_message(s, m);
                if (one)
                    json_array_append_new(reply, one);
            }
            if (!json_array_size(reply)) {
                json_decref(reply);
                reply = NULL;
            }
        }
    } else {
        reply = handle_message(s, msg);
    }
    json_decref(msg);
    return reply ? dump(reply) : NULL;
}

char *
mcp_server_oversized(void)
{
    char *m = xasprintf("message over %zu bytes refused", MCP_LINE_MAX);
    char *out = dump(error_reply(NULL, MCP_INVALID_REQUEST, m, NULL));
    free(m);
    return out;
}

/*
 * mcp_tools.h - the tools `airspace mcp` offers an agent: crew status, who
 * is near a file, intents, locks and claims, advisories, messages, a
 * scoped commit and a land. Each tool is a call (or a few) to the
 * repository's daemon over its socket; `commit` also writes to the
 * repository (scoped_commit_run(), as `airspace commit`), and so does
 * `land` (land_run(), as `airspace land ID --json`).
 *
 * Tool failures (bad arguments, a refused lock, a daemon that cannot be
 * reached, a route the daemon does not have) are results with isError set
 * and a text saying why, never protocol errors. Each tool has a title,
 * annotations (hints) and an output schema that its structuredContent
 * matches, refusals' included.
 */
#ifndef AIRSPACE_MCP_MCP_TOOLS_H
#define AIRSPACE_MCP_MCP_TOOLS_H

#include <stdbool.h>

#include <jansson.h>

#include "client/client.h"

/* The connection and identity shared by every tool call of one session. */
struct mcp_session {
    const char *repo; /* where the daemon is found (borrowed) */
    struct client cl; /* valid when connected */
    bool connected;
    char *agent;       /* this session's agent id, or NULL until known */
    bool registered;   /* agent was created here: it exits at the end */
    bool follows;      /* agent is the client session's, read again from its
                          records at every call (the client may go on as
                          another session in the same process) */
    char *client_name; /* clientInfo.name, for registration */
    char *toplevel;    /* git toplevel of the current directory */
    char *sdir;        /* its airspace directory, once follows is set */
    bool structured;   /* add structuredContent (2025-06-18 and later) */
    json_t *tokens;    /* pattern as given -> fencing token of its grant here,
                          sent with its release; NULL until the first */
};

/*
 * The tool list, as tools/list returns it for protocol version (new
 * reference): names, descriptions and input schemas; annotations from
 * 2025-03-26 on; titles and output schemas from 2025-06-18 on.
 */
json_t *mcp_tools_list(const char *version);

/* Whether name is one of the tools. */
bool mcp_tools_has(const char *name);

/*
 * Run tool name with args (an object, borrowed; NULL for none). Returns a
 * CallToolResult object (new reference): content, isError, and
 * structuredContent when the session asks for it.
 */
json_t *mcp_tools_call(struct mcp_session *s, const char *name, json_t *args);

/* Close the connection; an agent created by this session exits first. */
void mcp_session_release(struct mcp_session *s);

#endif

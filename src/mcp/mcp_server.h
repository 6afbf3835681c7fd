/*
 * mcp_server.h - the Model Context Protocol server behind `airspace mcp`:
 * JSON-RPC 2.0 messages, one per line, lifecycle (initialize, version
 * negotiation, ping) and dispatch to the tools of mcp_tools.h.
 *
 * The server never writes to stdout itself: mcp_server_handle() returns the
 * line to send and the caller writes it, so stdout carries protocol only.
 * Logs go to stderr.
 */
#ifndef AIRSPACE_MCP_MCP_SERVER_H
#define AIRSPACE_MCP_MCP_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include "mcp/mcp_tools.h"

/* JSON-RPC 2.0 error codes. */
enum {
    MCP_PARSE_ERROR = -32700,
    MCP_INVALID_REQUEST = -32600,
    MCP_METHOD_NOT_FOUND = -32601,
    MCP_INVALID_PARAMS = -32602,
    MCP_INTERNAL_ERROR = -32603,
};

/* The largest message accepted, in bytes; longer lines are refused. */
#define MCP_LINE_MAX ((size_t)4 << 20)

/* The newest protocol version this server speaks. */
#define MCP_PROTOCOL_LATEST "2025-11-25"

struct mcp_server {
    struct mcp_session session; /* daemon connection and identity */
    char version[16];           /* negotiated protocol version */
    bool initialized;           /* an initialize request was answered */
};

/* Set up s; repo is where the daemon is found, agent (may be NULL) the
 * identity to use instead of registering one. Borrowed until release. */
void mcp_server_init(struct mcp_server *s, const char *repo, const char *agent);

/* Leave: an agent registered by this server exits. */
void mcp_server_release(struct mcp_server *s);

/*
 * Handle one line (without its newline; need not be NUL-terminated).
 * Returns the reply line to write (new string without newline, free()), or
 * NULL when none is due (notifications, blank lines).
 */
char *mcp_server_handle(struct mcp_server *s, const char *line, size_t len);

/* The reply to a line that exceeded MCP_LINE_MAX (new string, free()). */
char *mcp_server_oversized(void);

#endif

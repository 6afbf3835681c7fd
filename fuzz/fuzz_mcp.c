/* fuzz_mcp.c - MCP messages, one per line, against a server whose daemon
 * cannot be reached (every tool answers an error; nothing may crash). */
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_server.h"
#include "fuzz.h"
#include "util/xalloc.h"
#include "util/banned.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    char *s = xstrndup((const char *)data, size);
    struct mcp_server srv;
    mcp_server_init(&srv, "/nonexistent/airspace-fuzz", "fuzz");
    for (char *line = s; line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl++ = '\0';
        free(mcp_server_handle(&srv, line, strlen(line)));
        line = nl;
    }
    mcp_server_release(&srv);
    free(s);
    return 0;
}

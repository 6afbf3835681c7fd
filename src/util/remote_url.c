/*
 * remote_url.c - a git remote's URL as the name of the airspace its clones
 * share (remote_url.h).
 */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "util/remote_url.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

char *
remote_url_airspace(const char *url)
{
    const char *p = url, *host = NULL, *path;
    size_t hlen = 0;
    bool query = false; /* a URL's query and fragment are no part of it */
    const char *scheme = strstr(url, "://");
    if (scheme && strncmp(url, "file://", 7)) {
        p = scheme + 3;
        const char *slash = strchr(p, '/');
        const char *at = strchr(p, '@');
        if (at && (!slash || at < slash))
            p = at + 1;
        slash = strchr(p, '/');
        host = p;
        hlen = slash ? (size_t)(slash - p) : strlen(p);
        /* an IPv6 address is bracketed: its colons are not a port's */
        const char *close = *host == '[' ? memchr(host, ']', hlen) : NULL;
        size_t from = close ? (size_t)(close - host) + 1 : 0;
        const char *colon = memchr(host + from, ':', hlen - from);
        if (colon)
            hlen = (size_t)(colon - host);
        path = slash ? slash : "";
        query = true;
    } else if (scheme) {
        path = url + 7;
    } else {
        const char *colon = strchr(url, ':'), *slash = strchr(url, '/');
        if (colon && (!slash || colon < slash)) { /* user@host:path */
            const char *at = strchr(url, '@');
            host = at && at < colon ? at + 1 : url;
            hlen = (size_t)(colon - host);
            path = colon + 1;
        } else {
            path = url;
        }
    }
    struct strbuf sb = STRBUF_INIT;
    for (size_t k = 0; k < hlen; k++)
        strbuf_addf(&sb, "%c", tolower((unsigned char)host[k]));
    if (host && *path != '/')
        strbuf_addf(&sb, "/");
    strbuf_addf(
        &sb, "%.*s", (int)(query ? strcspn(path, "?#") : strlen(path)), path);
    char *s = sb.s ? sb.s : xstrdup("");
    size_t n = strlen(s);
    while (n > 1 && s[n - 1] == '/')
        s[--n] = '\0';
    if (n > 4 && !strcmp(s + n - 4, ".git"))
        s[n - 4] = '\0';
    n = strlen(s);
    while (n > 1 && s[n - 1] == '/')
        s[--n] = '\0';
    return s;
}

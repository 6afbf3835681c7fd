#include "util/path.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Append the components of s (split on '/') to buf[*len], resolving . and ..
 * Returns -1 on escape. buf has room for strlen(prefix)+strlen(s)+2. */
static int
push_components(char *buf, size_t *len, const char *s)
{
    while (*s) {
        while (*s == '/')
            s++;
        const char *e = s;
        while (*e && *e != '/')
            e++;
        size_t n = (size_t)(e - s);
        if (n == 0)
            break;
        if (n == 1 && s[0] == '.') {
            /* skip */
        } else if (n == 2 && s[0] == '.' && s[1] == '.') {
            if (*len == 0)
                return -1;
            while (*len > 0 && buf[*len - 1] != '/')
                (*len)--;
            if (*len > 0)
                (*len)--;
        } else {
            if (*len)
                buf[(*len)++] = '/';
            memcpy(buf + *len, s, n);
            *len += n;
        }
        s = e;
    }
    buf[*len] = '\0';
    return 0;
}

int
path_normalize(const char *path, const char *root, char **out)
{
    *out = NULL;
    if (path[0] == '/' && root) {
        char *nroot = xmalloc(strlen(root) + 2);
        size_t rl = 0;
        if (push_components(nroot, &rl, root) < 0) {
            free(nroot);
            return AS_EINVAL;
        }
        char *np = xmalloc(strlen(path) + 2);
        size_t pl = 0;
        if (push_components(np, &pl, path) < 0) {
            free(np);
            free(nroot);
            return AS_EINVAL;
        }
        int ok = (rl == 0) || (pl >= rl && !memcmp(np, nroot, rl) &&
                                  (np[rl] == '/' || np[rl] == '\0'));
        if (!ok) {
            free(np);
            free(nroot);
            return AS_EINVAL;
        }
        size_t skip = rl == 0 ? 0 : (np[rl] == '/' ? rl + 1 : rl);
        *out = xstrdup(np + skip);
        free(np);
        free(nroot);
        return 0;
    }
    char *buf = xmalloc(strlen(path) + 2);
    size_t len = 0;
    if (push_components(buf, &len, path) < 0) {
        free(buf);
        return AS_EINVAL;
    }
    *out = buf;
    return 0;
}

size_t
path_depth(const char *norm)
{
    if (!*norm)
        return 0;
    size_t d = 1;
    for (const char *p = norm; *p; p++)
        d += *p == '/';
    return d;
}

int
path_join(const char *dir, const char *rel, char **out)
{
    *out = NULL;
    if (rel[0] == '/')
        return path_normalize(rel, NULL, out);
    char *buf = xmalloc(strlen(dir) + strlen(rel) + 3);
    size_t len = 0;
    if (push_components(buf, &len, dir) < 0 ||
        push_components(buf, &len, rel) < 0) {
        free(buf);
        return AS_EINVAL;
    }
    *out = buf;
    return 0;
}

size_t
path_dirlen(const char *norm)
{
    const char *s = strrchr(norm, '/');
    return s ? (size_t)(s - norm) : 0;
}

bool
path_within(const char *p, const char *dir)
{
    size_t l = strlen(dir);
    if (!strcmp(dir, "/"))
        return p[0] == '/';
    return !strncmp(p, dir, l) && (!p[l] || p[l] == '/');
}

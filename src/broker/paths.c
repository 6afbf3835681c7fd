#include "broker/paths.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "broker/sockpath.h"
#include "git/repo.h"
#include "util/xalloc.h"
#include "util/banned.h"

static int
make_dir(const char *d, struct as_err *e)
{
    if (mkdir(d, 0700) < 0 && errno != EEXIST)
        return as_errorf(
            e, AS_EIO, "cannot create '%s': %s", d, strerror(errno));
    struct stat sb;
    if (stat(d, &sb) < 0 || !S_ISDIR(sb.st_mode))
        return as_errorf(e, AS_EIO, "'%s' is not a directory", d);
    if (sb.st_uid != getuid())
        return as_errorf(e, AS_EIO, "'%s' belongs to another user", d);
    if ((sb.st_mode & 077) && chmod(d, 0700) < 0)
        return as_errorf(
            e, AS_EIO, "cannot make '%s' private: %s", d, strerror(errno));
    return 0;
}

int
broker_paths_resolve(
    const char *path, bool create, struct broker_paths *p, struct as_err *e)
{
    memset(p, 0, sizeof(*p));
    struct repo *r;
    int rc = repo_open(path, &r, e);
    if (rc)
        return rc;
    char *common = realpath(repo_common_dir(r), NULL);
    p->common_dir = common ? common : xstrdup(repo_common_dir(r));
    repo_free(r);
    size_t n = strlen(p->common_dir);
    while (n > 1 && p->common_dir[n - 1] == '/')
        p->common_dir[--n] = '\0';
    p->dir = xasprintf("%s/airspace", p->common_dir);
    p->lock = xasprintf("%s/daemon.lock", p->dir);
    p->log = xasprintf("%s/daemon.log", p->dir);
    p->db = xasprintf("%s/airspace.db", p->dir);
    char *fallback = NULL;
    p->socket = broker_socket_path(p->dir, &fallback);
    if (fallback && create && (rc = make_dir(fallback, e))) {
        free(fallback);
        broker_paths_release(p);
        return rc;
    }
    free(fallback);
    if (create && (rc = make_dir(p->dir, e))) {
        broker_paths_release(p);
        return rc;
    }
    return 0;
}

void
broker_paths_release(struct broker_paths *p)
{
    free(p->common_dir);
    free(p->dir);
    free(p->socket);
    free(p->lock);
    free(p->log);
    free(p->db);
    memset(p, 0, sizeof(*p));
}

bool
broker_client_config(const char *path)
{
    static const char *const files[] = { ".claude/settings.json",
        ".claude/settings.local.json", ".mcp.json", ".codex/hooks.json",
        ".codex/config.toml", ".gemini/settings.json", NULL };
    for (size_t i = 0; path && files[i]; i++)
        if (!strcmp(path, files[i]))
            return true;
    return false;
}

#include "git/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/sockpath.h"
#include "git/repo.h"
#include "util/xalloc.h"
#include "util/banned.h"

int
broker_private_dir(const char *d, struct as_err *e)
{
    if (mkdir(d, 0700) < 0 && errno != EEXIST)
        return as_errorf(
            e, AS_EIO, "cannot create '%s': %s", d, strerror(errno));
    /* never through a symbolic link: another user may have planted it */
    int fd = open(d, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    if (fd < 0) {
        int err = errno;
        if (lstat(d, &sb) == 0 && S_ISLNK(sb.st_mode))
            return as_errorf(e, AS_EIO,
                "'%s' is a symbolic link, not a directory of yours: "
                "refusing to use it (remove it)",
                d);
        if (err == ENOTDIR)
            return as_errorf(e, AS_EIO, "'%s' is not a directory", d);
        return as_errorf(e, AS_EIO, "cannot open '%s': %s", d, strerror(err));
    }
    int rc = fstat(fd, &sb);
    close(fd);
    if (rc < 0)
        return as_errorf(e, AS_EIO, "cannot stat '%s': %s", d, strerror(errno));
    if (sb.st_uid != geteuid())
        return as_errorf(e, AS_EIO,
            "'%s' belongs to another user (uid %u): refusing to use it "
            "(remove it)",
            d, (unsigned)sb.st_uid);
    if (sb.st_mode & 022)
        return as_errorf(e, AS_EIO,
            "'%s' is open to other users (mode %03o), who can write in it: "
            "refusing to use it (remove it, or see that nothing in it is "
            "someone else's and run chmod 700 '%s')",
            d, (unsigned)(sb.st_mode & 0777), d);
    if (sb.st_mode & 077)
        return as_errorf(e, AS_EIO,
            "'%s' is open to other users (mode %03o): refusing to use it "
            "(it must be 0700: run chmod 700 '%s', or remove it)",
            d, (unsigned)(sb.st_mode & 0777), d);
    return 0;
}

int
broker_airspace_dir(const char *d, struct as_err *e)
{
    int fd = open(d, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    if (fd >= 0) {
        /* only others' reading goes: what others could write stays
         * refused, as what is in it may be theirs */
        if (fstat(fd, &sb) == 0 && sb.st_uid == geteuid() &&
            (sb.st_mode & 077) && !(sb.st_mode & 022))
            (void)fchmod(fd, sb.st_mode & 0700);
        close(fd);
    }
    return broker_private_dir(d, e);
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
    if (fallback && create && (rc = broker_private_dir(fallback, e))) {
        free(fallback);
        broker_paths_release(p);
        return rc;
    }
    free(fallback);
    if (create && (rc = broker_airspace_dir(p->dir, e))) {
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

const char *const broker_client_config_files[] = { ".claude/settings.json",
    ".claude/settings.local.json", ".mcp.json", ".codex/hooks.json",
    ".codex/config.toml", ".gemini/settings.json", NULL };

bool
broker_client_config(const char *path)
{
    for (size_t i = 0; path && broker_client_config_files[i]; i++)
        if (!strcmp(path, broker_client_config_files[i]))
            return true;
    return false;
}

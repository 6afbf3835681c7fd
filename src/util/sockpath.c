#define _GNU_SOURCE /* struct ucred */
#include "util/sockpath.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/file.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include "util/banned.h"

char *
broker_socket_path(const char *dir, char **fallback_dir)
{
    char *sock = xasprintf("%s/sock", dir);
    struct sockaddr_un sun;
    if (fallback_dir)
        *fallback_dir = NULL;
    if (strlen(sock) < sizeof(sun.sun_path))
        return sock;
    free(sock);
    uint64_t h = fnv1a_str(FNV1A_INIT, dir);
    const char *rt = getenv("XDG_RUNTIME_DIR");
    char *base = rt && *rt == '/' && strlen(rt) < 60
                     ? xasprintf("%s/airspace", rt)
                     : xasprintf("/tmp/airspace-%u", (unsigned)getuid());
    sock = xasprintf("%s/%016llx.sock", base, (unsigned long long)h);
    if (fallback_dir)
        *fallback_dir = base;
    else
        free(base);
    return sock;
}

bool
broker_socket_peer_is_us(int fd, unsigned *uid)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);
    *uid = (unsigned)-1;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
        len != sizeof(cred))
        return false;
    *uid = (unsigned)cred.uid;
    return cred.uid == geteuid();
}

char *
broker_git_dir_of(const char *root)
{
    char *dotgit = xasprintf("%s/.git", root);
    struct stat sb;
    char *gitdir = NULL;
    if (stat(dotgit, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        gitdir = dotgit;
        dotgit = NULL;
    } else {
        char *l = file_first_line(dotgit);
        if (l && !strncmp(l, "gitdir: ", 8))
            gitdir =
                l[8] == '/' ? xstrdup(l + 8) : xasprintf("%s/%s", root, l + 8);
        free(l);
    }
    free(dotgit);
    /* git's own test of a git dir: a stray ".git" directory (a failed
     * clone's, or one a tool made) is no repository */
    char *head = gitdir ? xasprintf("%s/HEAD", gitdir) : NULL;
    if (head && stat(head, &sb) != 0) {
        free(gitdir);
        gitdir = NULL;
    }
    free(head);
    return gitdir;
}

char *
broker_common_dir_of(const char *root)
{
    char *gitdir = broker_git_dir_of(root);
    if (!gitdir)
        return NULL;
    char *cpath = xasprintf("%s/commondir", gitdir);
    char *c = file_first_line(cpath);
    free(cpath);
    char *common =
        c ? (c[0] == '/' ? xstrdup(c) : xasprintf("%s/%s", gitdir, c))
          : xstrdup(gitdir);
    free(c);
    free(gitdir);
    char *real = realpath(common, NULL);
    free(common);
    if (real) {
        size_t n = strlen(real);
        while (n > 1 && real[n - 1] == '/')
            real[--n] = '\0';
    }
    return real;
}

/*
 * init_git.c - run git and read its answers.
 */
#include "git/init_git.h"

#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/xalloc.h"
#include "util/banned.h"

extern char **environ;

int
init_git_run(const char *const *argv, char **out, struct as_err *e)
{
    *out = NULL;
    int pfd[2];
    if (pipe(pfd) < 0)
        return as_errorf(e, AS_EIO, "pipe: %s", strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    posix_spawn_file_actions_addclose(&fa, pfd[0]);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", 0, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, "git", &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    if (rc) {
        close(pfd[0]);
        return as_errorf(e, AS_EIO, "cannot run 'git': %s", strerror(rc));
    }
    char *buf = NULL;
    size_t n = 0, a = 0;
    for (;;) {
        ALLOC_GROW(buf, n + 4097, a);
        ssize_t r = read(pfd[0], buf + n, 4096);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
        if (n > (size_t)1 << 20)
            break;
    }
    buf[n] = '\0';
    close(pfd[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        free(buf);
        return as_errorf(e, AS_EIO, "'git %s' failed", argv[1]);
    }
    *out = buf;
    return 0;
}

/* The next line of *p (NUL-terminated in place), or NULL. */
static char *
next_line(char **p)
{
    if (!*p || !**p)
        return NULL;
    char *s = *p, *nl = strchr(s, '\n');
    if (nl) {
        *nl = '\0';
        *p = nl + 1;
    } else {
        *p = s + strlen(s);
    }
    return s;
}

static char *
absolute(const char *path)
{
    char *r = realpath(path, NULL);
    return r ? r : xstrdup(path);
}

int
init_git_resolve(struct init_git *g, struct as_err *e)
{
    memset(g, 0, sizeof(*g));
    const char *argv[] = { "git", "rev-parse", "--show-toplevel",
        "--git-common-dir", "--git-path", "hooks", NULL };
    char *out;
    if (init_git_run(argv, &out, e))
        return as_errorf(
            e, AS_ENOENT, "'%s' is not inside a git worktree", ".");
    char *p = out;
    const char *top = next_line(&p), *common = next_line(&p),
               *hooks = next_line(&p);
    if (!top || !common || !hooks || !*top) {
        free(out);
        return as_errorf(
            e, AS_ENOENT, "'%s' is not inside a git worktree", ".");
    }
    g->toplevel = absolute(top);
    g->common_dir = absolute(common);
    /* A hooks dir may not exist yet; make it absolute without realpath. */
    if (hooks[0] == '/') {
        g->hooks_dir = xstrdup(hooks);
    } else {
        char *cwd = getcwd(NULL, 0);
        g->hooks_dir = xasprintf("%s/%s", cwd ? cwd : ".", hooks);
        free(cwd);
    }
    free(out);
    return 0;
}

void
init_git_release(struct init_git *g)
{
    free(g->toplevel);
    free(g->common_dir);
    free(g->hooks_dir);
    memset(g, 0, sizeof(*g));
}

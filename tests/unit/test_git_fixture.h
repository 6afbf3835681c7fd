/*
 * test_git_fixture.h - temporary git repositories for the git layer's tests,
 * built with the real git binary (fork/execvp, never a shell), with fixed
 * identities and dates so every object id is reproducible.
 */
#ifndef AIRSPACE_TEST_GIT_FIXTURE_H
#define AIRSPACE_TEST_GIT_FIXTURE_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char fx_root[512];
static int fx_clock = 1700000000;

/* Make a fresh scratch root and a clean, deterministic git environment. */
static inline void
fx_setup(void)
{
    const char *tmp = getenv("TMPDIR");

    snprintf(fx_root, sizeof(fx_root), "%s/airspace-git-XXXXXX",
        tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(fx_root)) {
        perror("mkdtemp");
        exit(2);
    }
    setenv("HOME", fx_root, 1);
    setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
    setenv("GIT_AUTHOR_NAME", "Test", 1);
    setenv("GIT_AUTHOR_EMAIL", "test@example.com", 1);
    setenv("GIT_COMMITTER_NAME", "Test", 1);
    setenv("GIT_COMMITTER_EMAIL", "test@example.com", 1);
    unsetenv("GIT_DIR");
    unsetenv("GIT_WORK_TREE");
    unsetenv("GIT_INDEX_FILE");
}

/*
 * Run argv (NULL-terminated) in dir; capture up to cap-1 bytes of stdout into
 * out when out is not NULL. Returns the exit status, or -1.
 */
static inline int
fx_runv(const char *dir, char *const argv[], char *out, size_t cap)
{
    int fd[2], status;
    pid_t pid;
    size_t len = 0;

    if (pipe(fd) < 0)
        return -1;
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);

        close(fd[0]);
        dup2(fd[1], 1);
        if (null >= 0)
            dup2(null, 2);
        if (dir && chdir(dir) < 0)
            _exit(127);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    for (;;) {
        char tmp[4096];
        ssize_t n = read(fd[0], tmp, sizeof(tmp));

        if (n <= 0)
            break;
        if (out && len + 1 < cap) {
            size_t take = (size_t)n;

            if (take > cap - 1 - len)
                take = cap - 1 - len;
            memcpy(out + len, tmp, take);
            len += take;
        }
    }
    if (out && cap)
        out[len] = '\0';
    close(fd[0]);
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Run a command given as words (NULL-terminated varargs); exit on failure
 * unless the status is expected to vary (use fx_runv for that). */
static inline void
fx_git(const char *dir, ...)
{
    char *argv[32];
    int n = 0, rc;
    va_list ap;

    argv[n++] = "git";
    va_start(ap, dir);
    while (n < 31 && (argv[n] = va_arg(ap, char *)) != NULL)
        n++;
    va_end(ap);
    argv[n] = NULL;
    rc = fx_runv(dir, argv, NULL, 0);
    if (rc != 0) {
        fprintf(stderr, "fixture: git %s %s failed in %s (%d)\n", argv[1],
            n > 2 ? argv[2] : "", dir, rc);
        exit(2);
    }
}

/* Commit everything staged with the next fixed date. */
static inline void
fx_commit(const char *dir, const char *msg)
{
    char date[64];

    snprintf(date, sizeof(date), "@%d +0000", fx_clock);
    fx_clock += 60;
    setenv("GIT_AUTHOR_DATE", date, 1);
    setenv("GIT_COMMITTER_DATE", date, 1);
    fx_git(dir, "commit", "-q", "--allow-empty", "-m", msg, NULL);
}

/* Write content to dir/rel, creating parent directories. */
static inline void
fx_write(const char *dir, const char *rel, const char *content)
{
    char path[1024];
    char *slash;
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    for (slash = strchr(path + strlen(dir) + 1, '/'); slash;
         slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        mkdir(path, 0755);
        *slash = '/';
    }
    f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fputs(content, f);
    fclose(f);
}

/* Write n raw bytes to dir/rel (which must have its directory). */
static inline void
fx_write_bytes(const char *dir, const char *rel, const void *data, size_t n)
{
    char path[1024];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n) {
        perror(path);
        exit(2);
    }
    fclose(f);
}

/* Lines "L1\n".."Ln\n" into buf; with one line replaced if repl_at > 0. */
static inline const char *
fx_lines(char *buf, size_t cap, int n, int repl_at, const char *repl)
{
    size_t len = 0;
    int i;

    buf[0] = '\0';
    for (i = 1; i <= n && len < cap; i++) {
        int w = i == repl_at ? snprintf(buf + len, cap - len, "%s\n", repl)
                             : snprintf(buf + len, cap - len, "L%d\n", i);

        if (w < 0)
            break;
        len += (size_t)w;
    }
    return buf;
}

/* A new repository named name under the scratch root; path into out. */
static inline void
fx_init(const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", fx_root, name);
    mkdir(out, 0755);
    fx_git(out, "-c", "init.defaultBranch=main", "init", "-q", NULL);
}

static inline void
fx_teardown(void)
{
    char *argv[] = { "rm", "-rf", fx_root, NULL };

    fx_runv(NULL, argv, NULL, 0);
}

#endif

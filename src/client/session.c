/*
 * session.c - one agent per client session (session.h): records under
 * <airspace>/sessions/, found from any process of the session by its
 * ancestors.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/session.h"
#include "util/sockpath.h"
#include "util/error.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define SESSION_DEPTH 64 /* ancestors walked at most */

static uint64_t
fnv1a(const char *s)
{
    return fnv1a_str(FNV1A_INIT, s);
}

/* Fields of /proc/pid/stat after the command name: state is field 3. */
static int
proc_stat(pid_t pid, char comm[64], pid_t *ppid, unsigned long long *start)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    /* (a /proc file says it has size 0: read it as a stream) */
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char buf[4096];
    size_t len = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[len] = '\0';
    char *open = strchr(buf, '('), *close = strrchr(buf, ')');
    if (!open || !close || close < open)
        return -1;
    size_t n = (size_t)(close - open - 1);
    if (comm) {
        if (n > 63)
            n = 63;
        memcpy(comm, open + 1, n);
        comm[n] = '\0';
    }
    /* field 3 is the state; ppid is 4, starttime 22 */
    char *p = close + 2;
    int field = 3;
    long long pp = 0;
    unsigned long long st = 0;
    while (*p && field <= 22) {
        char *end;
        if (field == 4)
            pp = strtoll(p, &end, 10);
        else if (field == 22)
            st = strtoull(p, &end, 10);
        p = strchr(p, ' ');
        if (!p)
            break;
        p++;
        field++;
    }
    if (ppid)
        *ppid = (pid_t)pp;
    if (start)
        *start = st;
    return 0;
}

/* The start time of process pid (clock ticks since boot), or 0. */
static unsigned long long
session_pid_start(pid_t pid)
{
    unsigned long long st = 0;
    return pid > 0 && proc_stat(pid, NULL, NULL, &st) == 0 ? st : 0;
}

static bool
wrapper(const char *comm)
{
    static const char *const names[] = { "sh", "bash", "dash", "zsh", "ksh",
        "fish", "env", "timeout", "nice", "stdbuf", "airspace", "airspace-hook",
        NULL };
    for (size_t i = 0; names[i]; i++)
        if (!strcmp(comm, names[i]))
            return true;
    return false;
}

/* The nearest ancestor of this process that is not a shell or a wrapper
 * (sh, bash, dash, zsh, env, timeout, airspace): the client, its start
 * time in *start. 0 (and 0) if none. */
static pid_t
session_client_pid(unsigned long long *start)
{
    pid_t pid = getppid();
    *start = 0;
    for (int depth = 0; pid > 1 && depth < SESSION_DEPTH; depth++) {
        char comm[64];
        pid_t up;
        if (proc_stat(pid, comm, &up, start))
            return 0;
        if (!wrapper(comm))
            return pid;
        pid = up;
    }
    *start = 0;
    return 0;
}

/* The agent's name when root was made by `airspace agent new` (its HEAD is
 * the branch airspace/<name>), as a new string, or NULL. */
static char *
session_worktree_agent(const char *root)
{
    if (!root)
        return NULL;
    char *dotgit = xasprintf("%s/.git", root);
    char *buf = NULL, *head = NULL;
    size_t len;
    struct stat sb;
    if (stat(dotgit, &sb) == 0 && S_ISREG(sb.st_mode) &&
        file_read_max(dotgit, 4096, false, &buf, &len) == 0 &&
        !strncmp(buf, "gitdir: ", 8)) {
        buf[strcspn(buf, "\r\n")] = '\0';
        const char *gd = buf + 8;
        char *hp = gd[0] == '/' ? xasprintf("%s/HEAD", gd)
                                : xasprintf("%s/%s/HEAD", root, gd);
        if (file_read_max(hp, 4096, false, &head, &len))
            head = NULL;
        free(hp);
    }
    free(buf);
    free(dotgit);
    char *name = NULL;
    static const char ref[] = "ref: refs/heads/airspace/";
    if (head && !strncmp(head, ref, sizeof(ref) - 1)) {
        char *n = head + sizeof(ref) - 1;
        n[strcspn(n, "\r\n")] = '\0';
        if (*n && !strchr(n, '/'))
            name = xstrdup(n);
    }
    free(head);
    return name;
}

static char *
sessions_dir(const char *dir)
{
    char *d = xasprintf("%s/sessions", dir);
    mkdir(dir, 0700);
    mkdir(d, 0700);
    return d;
}

static void
put(const char *path, const char *text)
{
    struct as_err e;
    file_write_atomic(path, text, strlen(text), &e);
}

/* Whether the "<pid> <start>" at text names a live process. */
static bool
alive(const char *text)
{
    long long pid;
    unsigned long long start;
    if (sscanf(text, "%lld %llu", &pid, &start) != 2 || pid <= 1)
        return false;
    return start && session_pid_start((pid_t)pid) == start;
}

/* Claim name for the process pid/start: a new claim, or one of a process
 * that is gone, or already this process's. */
static bool
claim(const char *sdir, const char *name, const char *who)
{
    char *path = xasprintf("%s/a-%s", sdir, name);
    bool ok = false;
    for (int attempt = 0; attempt < 2 && !ok; attempt++) {
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
        if (fd >= 0) {
            size_t n = strlen(who);
            ok = write(fd, who, n) == (ssize_t)n;
            close(fd);
            break;
        }
        if (errno != EEXIST)
            break;
        char *buf;
        size_t len;
        if (file_read_max(path, 256, false, &buf, &len))
            continue;
        if (!strcmp(buf, who))
            ok = true;
        else if (!alive(buf))
            unlink(path); /* its session is over: try again */
        else
            attempt = 2;
        free(buf);
    }
    free(path);
    return ok;
}

/* The p- record of the client process pid/start, by which the other
 * processes of its session find agent id; not written again when it
 * says so already (a hook runs at every tool call). */
static void
record_process(
    const char *sdir, const char *id, pid_t pid, unsigned long long start)
{
    if (pid <= 1 || !start)
        return;
    char *ppath = xasprintf("%s/p-%lld", sdir, (long long)pid);
    char *line = xasprintf("%s %llu\n", id, start), *buf;
    size_t len;
    if (file_read_max(ppath, 512, false, &buf, &len)) {
        put(ppath, line);
    } else {
        if (strcmp(buf, line))
            put(ppath, line);
        free(buf);
    }
    free(line);
    free(ppath);
}

/* Write the records of session spath's agent id run by the client
 * process pid/start (who): the s- record, and the p- record its other
 * processes find it by. */
static void
record_session(const char *sdir, const char *spath, const char *id, pid_t pid,
    unsigned long long start)
{
    char *line = xasprintf("%s %lld %llu\n", id, (long long)pid, start);
    put(spath, line);
    free(line);
    record_process(sdir, id, pid, start);
}

/* Remove the p- record of the process pid/start, if it is still that
 * process's (a reused pid may have written its own since). */
static void
forget_process(const char *sdir, long long pid, unsigned long long start)
{
    char *ppath = xasprintf("%s/p-%lld", sdir, pid);
    char *buf;
    size_t len;
    char name[256];
    unsigned long long st;
    if (file_read_max(ppath, 512, false, &buf, &len) == 0) {
        if (sscanf(buf, "%255s %llu", name, &st) == 2 && st == start)
            unlink(ppath);
        free(buf);
    }
    free(ppath);
}

/*
 * The recorded id of a session seen before (line: its s- record) for the
 * client process pid/start now running it. A client that crashed and was
 * resumed (same session id, new process) left its name claimed by a dead
 * process: another session could take it, and two live sessions would
 * then be one agent, each one's end releasing the other's locks. So a
 * session met in a new process claims its name again, or, when another
 * live session holds it now, goes on as its own hashed id; its records
 * name the new process either way.
 */
static char *
session_again(const char *sdir, const char *spath, const char *line,
    const char *hashed, pid_t pid, unsigned long long start)
{
    char name[256];
    long long rpid = 0;
    unsigned long long rstart = 0;
    int n = sscanf(line, "%255s %lld %llu", name, &rpid, &rstart);
    if (n < 1)
        return NULL;
    char *id = xstrdup(name);
    if (n < 3 || pid <= 1 || !start || ((pid_t)rpid == pid && rstart == start))
        return id; /* the same process, or nothing to tell by */
    char who[64], was[64];
    snprintf(who, sizeof(who), "%lld %llu", (long long)pid, start);
    snprintf(was, sizeof(was), "%lld %llu", rpid, rstart);
    if (alive(was)) {
        /* another live process of this very session (one client runs
         * its hooks from a helper process): it is found here too */
        record_process(sdir, id, pid, start);
        return id;
    }
    if (strcmp(id, hashed) && !claim(sdir, id, who)) {
        free(id);
        id = xstrdup(hashed);
    }
    forget_process(sdir, rpid, rstart);
    record_session(sdir, spath, id, pid, start);
    return id;
}

char *
session_agent(const char *dir, const char *prefix, const char *session_id,
    const char *root)
{
    uint64_t h = fnv1a(session_id ? session_id : "");
    uint32_t h32 = (uint32_t)(h ^ (h >> 32));
    if (!dir || !session_id || !*session_id)
        return session_id && *session_id
                   ? xasprintf("%s-%08x", prefix, (unsigned)h32)
                   : xasprintf("%s-session", prefix);
    char *sdir = sessions_dir(dir);
    char *spath =
        xasprintf("%s/s-%s-%016llx", sdir, prefix, (unsigned long long)h);
    char *hashed = xasprintf("%s-%08x", prefix, (unsigned)h32);
    unsigned long long start;
    pid_t pid = session_client_pid(&start);
    char *buf, *id = NULL;
    size_t len;
    if (file_read_max(spath, 512, false, &buf, &len) == 0) {
        id = session_again(sdir, spath, buf, hashed, pid, start);
        free(buf);
    }
    if (!id) {
        char who[64];
        snprintf(who, sizeof(who), "%lld %llu", (long long)pid, start);
        char *name = session_worktree_agent(root);
        if (name && pid > 1 && start && claim(sdir, name, who)) {
            id = name;
        } else {
            free(name);
            id = xstrdup(hashed);
        }
        record_session(sdir, spath, id, pid, start);
    }
    free(hashed);
    free(spath);
    free(sdir);
    return id;
}

char *
session_claim_worktree(const char *dir, const char *root)
{
    char *name = session_worktree_agent(root);
    if (!name || !dir)
        goto none;
    unsigned long long start;
    pid_t pid = session_client_pid(&start);
    if (pid <= 1 || !start)
        goto none;
    char who[64];
    snprintf(who, sizeof(who), "%lld %llu", (long long)pid, start);
    char *sdir = sessions_dir(dir);
    bool ok = claim(sdir, name, who);
    free(sdir);
    if (ok)
        return name;
none:
    free(name);
    return NULL;
}

char *
session_lookup(const char *dir)
{
    if (!dir)
        return NULL;
    char *sdir = xasprintf("%s/sessions", dir);
    char *id = NULL;
    /* Claude Code names the session to everything it runs */
    const char *cc = getenv("CLAUDE_CODE_SESSION_ID");
    if (cc && *cc) {
        char *spath =
            xasprintf("%s/s-cc-%016llx", sdir, (unsigned long long)fnv1a(cc));
        char *buf;
        size_t len;
        char name[256];
        if (file_read_max(spath, 512, false, &buf, &len) == 0) {
            if (sscanf(buf, "%255s", name) == 1)
                id = xstrdup(name);
            free(buf);
        }
        free(spath);
    }
    pid_t pid = getppid();
    for (int depth = 0; !id && pid > 1 && depth < SESSION_DEPTH; depth++) {
        char *ppath = xasprintf("%s/p-%lld", sdir, (long long)pid);
        char *buf;
        size_t len;
        unsigned long long start = 0;
        pid_t up = 0;
        if (file_read_max(ppath, 512, false, &buf, &len) == 0) {
            char name[256];
            unsigned long long st;
            if (sscanf(buf, "%255s %llu", name, &st) == 2 &&
                proc_stat(pid, NULL, &up, &start) == 0 && start == st)
                id = xstrdup(name);
            free(buf);
        }
        free(ppath);
        if (!id && proc_stat(pid, NULL, &up, NULL))
            break;
        pid = up;
    }
    free(sdir);
    return id;
}

char *
session_default_agent(const char *dir)
{
    const char *env = getenv("AIRSPACE_AGENT");
    if (env && *env)
        return xstrdup(env);
    return session_lookup(dir);
}

const char *
session_cli_agent(const char *repo)
{
    static char *agent; /* one command per process: kept */
    static bool looked;
    const char *env = getenv("AIRSPACE_AGENT");
    if (env && *env)
        return env;
    if (!looked) {
        looked = true;
        /* the worktree holding repo: the nearest directory with .git */
        char *top = realpath(repo ? repo : ".", NULL);
        char *common = NULL;
        while (top && !common) {
            common = broker_common_dir_of(top);
            char *slash = strrchr(top, '/');
            if (common || !slash || slash == top)
                break;
            *slash = '\0';
        }
        char *dir = common ? xasprintf("%s/airspace", common) : NULL;
        agent = session_lookup(dir);
        free(dir);
        free(common);
        free(top);
    }
    return agent;
}

/* Remove the files of directory sub of dir that drop() says to. */
static size_t
prune_dir(const char *dir, const char *sub, long long now_s,
    bool (*drop)(const char *name, const char *path, long long age_s))
{
    char *d = xasprintf("%s/%s", dir, sub);
    DIR *dp = opendir(d);
    size_t n = 0;
    struct dirent *de;
    while (dp && (de = readdir(dp))) {
        if (de->d_name[0] == '.')
            continue;
        char *path = xasprintf("%s/%s", d, de->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
            drop(de->d_name, path, now_s - (long long)st.st_mtime) &&
            unlink(path) == 0)
            n++;
        free(path);
    }
    if (dp)
        closedir(dp);
    free(d);
    return n;
}

/* A record of the sessions directory naming a process that is gone:
 * p-<pid> "<agent> <start>", a-<name> "<pid> <start>", and s-... "<agent>
 * <pid> <start>" not seen for SESSION_KEEP_S. */
static bool
drop_session(const char *name, const char *path, long long age_s)
{
    char *buf;
    size_t len;
    if (file_read_max(path, 512, false, &buf, &len))
        return false;
    char agent[256], who[64];
    long long pid = 0;
    unsigned long long start = 0;
    bool drop = false;
    if (!strncmp(name, "p-", 2) &&
        sscanf(buf, "%255s %llu", agent, &start) == 2) {
        snprintf(who, sizeof(who), "%s %llu", name + 2, start);
        drop = !alive(who);
    } else if (!strncmp(name, "a-", 2)) {
        drop = !alive(buf);
    } else if (!strncmp(name, "s-", 2) &&
               sscanf(buf, "%255s %lld %llu", agent, &pid, &start) == 3) {
        snprintf(who, sizeof(who), "%lld %llu", pid, start);
        drop = age_s > SESSION_KEEP_S && !alive(who);
    }
    free(buf);
    return drop;
}

static bool
drop_snapshot(const char *name, const char *path, long long age_s)
{
    (void)name;
    (void)path;
    return age_s > 24 * 3600;
}

static bool
drop_crew(const char *name, const char *path, long long age_s)
{
    (void)name;
    (void)path;
    return age_s > SESSION_KEEP_S;
}

size_t
session_prune(const char *dir, long long now_s)
{
    if (!dir)
        return 0;
    return prune_dir(dir, "sessions", now_s, drop_session) +
           prune_dir(dir, "hooks", now_s, drop_snapshot) +
           prune_dir(dir, "crew", now_s, drop_crew);
}

void
session_forget(const char *dir, const char *prefix, const char *session_id)
{
    if (!dir || !session_id || !*session_id)
        return;
    uint64_t h = fnv1a(session_id);
    char *sdir = xasprintf("%s/sessions", dir);
    char *spath =
        xasprintf("%s/s-%s-%016llx", sdir, prefix, (unsigned long long)h);
    char *buf;
    size_t len;
    if (file_read_max(spath, 512, false, &buf, &len) == 0) {
        char name[256];
        long long pid;
        unsigned long long start;
        if (sscanf(buf, "%255s %lld %llu", name, &pid, &start) == 3) {
            char *a = xasprintf("%s/a-%s", sdir, name);
            char *who = NULL;
            size_t wl;
            char expect[64];
            snprintf(expect, sizeof(expect), "%lld %llu", pid, start);
            if (file_read_max(a, 256, false, &who, &wl) == 0 &&
                !strcmp(who, expect))
                unlink(a);
            free(who);
            free(a);
            char *p = xasprintf("%s/p-%lld", sdir, pid);
            unlink(p);
            free(p);
        }
        free(buf);
        unlink(spath);
    }
    free(spath);
    free(sdir);
}

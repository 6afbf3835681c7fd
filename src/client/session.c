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

#include <jansson.h>

#include "client/session.h"
#include "util/sockpath.h"
#include "util/error.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define SESSION_DEPTH 64 /* ancestors walked at most */

static uint64_t
fnv1a(const char *s)
{
    return fnv1a_str(FNV1A_INIT, s);
}

/* Fields of /proc/pid/stat after the command name: state is field 3. A
 * process that has exited and waits to be reaped (state Z, or X) is gone:
 * -1, as for no process (a client killed under a parent that reaps late
 * must not keep its session's records as if it ran). */
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
    if (!open || !close || close < open || !close[1])
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
    if (*p == 'Z' || *p == 'X' || *p == 'x')
        return -1;
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

/* A session's key in the records: "<prefix>-<hash of its id>", the name
 * of its s- record without "s-". A new string. */
static char *
session_key(const char *prefix, uint64_t h)
{
    return xasprintf("%s-%016llx", prefix, (unsigned long long)h);
}

/* The p- record of process pid: its agent (name), the start time of the
 * process it was written for and the key of the session it was written
 * for ("" in a record that names none); whether there is one. */
static bool
read_process(const char *sdir, long long pid, char name[256],
    unsigned long long *start, char key[128])
{
    char *ppath = xasprintf("%s/p-%lld", sdir, pid);
    char *buf;
    size_t len;
    bool ok = false;
    key[0] = '\0';
    if (file_read_max(ppath, 512, false, &buf, &len) == 0) {
        ok = sscanf(buf, "%255s %llu %127s", name, start, key) >= 2;
        free(buf);
    }
    free(ppath);
    return ok;
}

/* The p- record of the client process pid/start, by which the other
 * processes of its session (key) find agent id; not written again when
 * it says so already (a hook runs at every tool call). */
static void
record_process(const char *sdir, const char *id, pid_t pid,
    unsigned long long start, const char *key)
{
    if (pid <= 1 || !start)
        return;
    char *ppath = xasprintf("%s/p-%lld", sdir, (long long)pid);
    char *line = xasprintf("%s %llu %s\n", id, start, key), *buf;
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

/* Write the records of session key's agent id run by the client process
 * pid/start: the s- record (spath), and the p- record its other processes
 * find it by. */
static void
record_session(const char *sdir, const char *spath, const char *key,
    const char *id, pid_t pid, unsigned long long start)
{
    char *line = xasprintf("%s %lld %llu\n", id, (long long)pid, start);
    put(spath, line);
    free(line);
    record_process(sdir, id, pid, start, key);
}

/* Remove the p- record of the process pid/start when it is still that
 * process's (a reused pid may have written its own since), names agent
 * name (NULL: any) and was written for session key (or for none: an
 * older record); another session of the same process may run on it. */
static void
forget_process(const char *sdir, long long pid, unsigned long long start,
    const char *name, const char *key)
{
    char rname[256], rkey[128];
    unsigned long long st;
    if (read_process(sdir, pid, rname, &st, rkey) && st == start &&
        (!name || !strcmp(rname, name)) && (!rkey[0] || !strcmp(rkey, key))) {
        char *ppath = xasprintf("%s/p-%lld", sdir, pid);
        unlink(ppath);
        free(ppath);
    }
}

/* Whether process up is an ancestor of process pid (its parent, or its
 * parent's, ...). */
static bool
ancestor(pid_t up, pid_t pid)
{
    for (int depth = 0; pid > 1 && depth < SESSION_DEPTH; depth++) {
        pid_t pp;
        if (proc_stat(pid, NULL, &pp, NULL))
            return false;
        if (pp == up)
            return true;
        pid = pp;
    }
    return false;
}

/* Whether the live processes a and b are one client: one runs the other
 * (a client that runs its hooks, or its MCP server, from a helper
 * process). Two clients started from one shell or one script share a
 * process group and a session, so those tell nothing. */
static bool
one_client(pid_t a, pid_t b)
{
    return a == b || ancestor(a, b) || ancestor(b, a);
}

/* What session_agent knows of the session it is asked about. */
struct sess {
    const char *sdir, *spath, *key, *prefix, *hashed, *root;
    pid_t pid;
    unsigned long long start;
    char who[64]; /* "<pid> <start>" */
};

/* This client process's agent for session s when its p- record says it
 * has one (a session met in two client processes), else NULL. */
static char *
own_agent(const struct sess *s)
{
    char name[256], key[128];
    unsigned long long st;
    if (s->pid > 1 && s->start &&
        read_process(s->sdir, s->pid, name, &st, key) && st == s->start &&
        !strcmp(key, s->key))
        return xstrdup(name);
    return NULL;
}

/*
 * Session s runs in this client process while another live client
 * process, not this one's helper, runs it as agent name (a client that
 * lets a session be resumed while it runs: Gemini CLI's --resume). They
 * are two clients, so two agents: this one is the worktree's agent when
 * it can claim that name, else <prefix>-<hash of the session and the
 * process>. Only its p- record says so: the s- record stays the other's.
 */
static char *
session_twin(const struct sess *s, const char *name, struct session_seen *seen)
{
    char *id = session_worktree_agent(s->root);
    if (!id || !claim(s->sdir, id, s->who)) {
        free(id);
        char *salt = xasprintf("%s %s", s->key, s->who);
        uint64_t h = fnv1a(salt);
        free(salt);
        id = xasprintf(
            "%s-%08x", s->prefix, (unsigned)(uint32_t)(h ^ (h >> 32)));
    }
    record_process(s->sdir, id, s->pid, s->start, s->key);
    if (seen) {
        seen->was = xstrdup(name);
        seen->twin = true;
    }
    return id;
}

/*
 * The recorded id of a session seen before (line: its s- record) for the
 * client process now running it. A client that crashed and was resumed
 * (same session id, new process) left its name claimed by a dead
 * process: another session could take it, and two live sessions would
 * then be one agent, each one's end releasing the other's locks. So a
 * session met in a new process claims its name again, or, when another
 * live session holds it now, goes on as its own hashed id; its records
 * name the new process either way. A session met while the recorded
 * process still runs it is the same agent in a helper of that process,
 * and another agent in any other process (session_twin).
 */
static char *
session_again(const struct sess *s, const char *line, struct session_seen *seen)
{
    char name[256];
    long long rpid = 0;
    unsigned long long rstart = 0;
    int n = sscanf(line, "%255s %lld %llu", name, &rpid, &rstart);
    if (n < 1)
        return NULL;
    if (n < 3 || s->pid <= 1 || !s->start)
        return xstrdup(name); /* nothing to tell by */
    if ((pid_t)rpid == s->pid && rstart == s->start) {
        /* the same process: its p- record names this session again (a
         * client that went on as another session in this process and came
         * back, Gemini CLI's /resume, fires no hook; its MCP server and
         * commands read that record) */
        record_process(s->sdir, name, s->pid, s->start, s->key);
        return xstrdup(name);
    }
    char was[64];
    snprintf(was, sizeof(was), "%lld %llu", rpid, rstart);
    bool other_live = alive(was);
    char *id = own_agent(s);
    if (id) { /* this process has its agent for this session already */
        if (!other_live)
            record_session(s->sdir, s->spath, s->key, id, s->pid, s->start);
        return id;
    }
    if (other_live) {
        if (!one_client((pid_t)rpid, s->pid))
            return session_twin(s, name, seen);
        /* a helper process of the client: found here too */
        record_process(s->sdir, name, s->pid, s->start, s->key);
        return xstrdup(name);
    }
    if (s->root && strcmp(name, s->hashed)) {
        /* a worktree's name is that worktree's: a session resumed in
         * another worktree is not its agent there (its edits would be
         * filed under it), but this one's, or its own hashed id */
        char *here = session_worktree_agent(s->root);
        bool moved = !here || strcmp(here, name);
        free(here);
        if (moved) {
            forget_process(s->sdir, rpid, rstart, name, s->key);
            return NULL;
        }
    }
    id = xstrdup(name);
    if (strcmp(id, s->hashed) && !claim(s->sdir, id, s->who)) {
        if (seen)
            seen->was = xstrdup(id);
        free(id);
        id = xstrdup(s->hashed);
    }
    forget_process(s->sdir, rpid, rstart, name, s->key);
    record_session(s->sdir, s->spath, s->key, id, s->pid, s->start);
    return id;
}

char *
session_agent(const char *dir, const char *prefix, const char *session_id,
    const char *root, struct session_seen *seen)
{
    uint64_t h = fnv1a(session_id ? session_id : "");
    uint32_t h32 = (uint32_t)(h ^ (h >> 32));
    if (seen)
        memset(seen, 0, sizeof(*seen));
    if (!dir || !session_id || !*session_id)
        return session_id && *session_id
                   ? xasprintf("%s-%08x", prefix, (unsigned)h32)
                   : xasprintf("%s-session", prefix);
    char *sdir = sessions_dir(dir);
    char *key = session_key(prefix, h);
    char *spath = xasprintf("%s/s-%s", sdir, key);
    char *hashed = xasprintf("%s-%08x", prefix, (unsigned)h32);
    struct sess s = { sdir, spath, key, prefix, hashed, root, 0, 0, "" };
    s.pid = session_client_pid(&s.start);
    snprintf(s.who, sizeof(s.who), "%lld %llu", (long long)s.pid, s.start);
    char *buf, *id = NULL;
    size_t len;
    if (file_read_max(spath, 512, false, &buf, &len) == 0) {
        id = session_again(&s, buf, seen);
        free(buf);
    } else {
        /* its s- record gone (the other process's session ended) while
         * this process goes on as its own agent of it */
        id = own_agent(&s);
        if (id)
            record_session(sdir, spath, key, id, s.pid, s.start);
    }
    if (!id) {
        char *name = session_worktree_agent(root);
        if (name && s.pid > 1 && s.start && claim(sdir, name, s.who)) {
            id = name;
        } else {
            free(name);
            id = xstrdup(hashed);
        }
        record_session(sdir, spath, key, id, s.pid, s.start);
    }
    free(hashed);
    free(spath);
    free(key);
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

/* Whether a live client process is recorded as agent's in the airspace
 * directory dir (its p- record, or a name's claim): a running session's
 * agent. */
static bool
session_live(const char *dir, const char *agent)
{
    if (!dir || !agent)
        return false;
    char *sdir = xasprintf("%s/sessions", dir);
    char *a = xasprintf("%s/a-%s", sdir, agent);
    char *buf;
    size_t len;
    bool live = false;
    if (file_read_max(a, 256, false, &buf, &len) == 0) {
        live = alive(buf);
        free(buf);
    }
    free(a);
    DIR *dp = live ? NULL : opendir(sdir);
    struct dirent *de;
    while (dp && !live && (de = readdir(dp))) {
        char name[256], key[128], who[64];
        unsigned long long st;
        char *end;
        if (strncmp(de->d_name, "p-", 2))
            continue;
        long long pid = strtoll(de->d_name + 2, &end, 10);
        if (*end || pid <= 1 || !read_process(sdir, pid, name, &st, key) ||
            strcmp(name, agent))
            continue;
        snprintf(who, sizeof(who), "%lld %llu", pid, st);
        live = alive(who);
    }
    if (dp)
        closedir(dp);
    free(sdir);
    return live;
}

/* The airspace directory of the repository holding repo (any directory
 * in it), or NULL. A new string. */
static char *
cli_dir(const char *repo)
{
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
    free(common);
    free(top);
    return dir;
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
        char *dir = cli_dir(repo);
        agent = session_lookup(dir);
        free(dir);
    }
    return agent;
}

static const char *
jstr(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

const char *
session_person_agent(
    json_t *agents, const char *top, bool *person, char **error)
{
    *error = NULL;
    *person = false;
    char *dir = cli_dir(top);
    struct strbuf all = STRBUF_INIT;
    const char *me = NULL;
    size_t fly = 0, mine = 0;
    size_t i;
    json_t *a;
    json_array_foreach(agents, i, a)
    {
        const char *id = jstr(a, "id"), *st = jstr(a, "status");
        const char *wt = jstr(a, "worktree"), *client = jstr(a, "client");
        if (!id || (st && !strcmp(st, "exited")) || !wt ||
            !file_same_dir(wt, top))
            continue;
        bool running = session_live(dir, id);
        strbuf_addf(&all, "%s%s", fly++ ? ", " : "", id);
        if (running)
            strbuf_addf(&all, " (%s, its session runs)", client ? client : "?");
        else if (client && *client)
            strbuf_addf(&all, " (%s)", client);
        if (!running) {
            me = id;
            mine++;
        }
    }
    if (mine > 1)
        *error = xasprintf("several agents fly in '%s': %s; name yours with "
                           "--agent or AIRSPACE_AGENT",
            top, all.s);
    *person = !mine && fly;
    free(all.s);
    free(dir);
    return mine == 1 ? me : NULL;
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

/* Remove the claim of name when process who ("<pid> <start>") holds it
 * and no other session of that process runs as name (its p- record, key
 * another session's: a client that started a new session in the same
 * process, the one before ending late). Returns whether it went, or was
 * not who's. */
static bool
unclaim(const char *sdir, const char *name, long long pid,
    unsigned long long start, const char *key)
{
    char rname[256], rkey[128];
    unsigned long long st;
    if (read_process(sdir, pid, rname, &st, rkey) && st == start &&
        !strcmp(rname, name) && rkey[0] && strcmp(rkey, key))
        return false; /* the process's other session is name now */
    char *a = xasprintf("%s/a-%s", sdir, name);
    char *buf = NULL;
    size_t len;
    char expect[64];
    snprintf(expect, sizeof(expect), "%lld %llu", pid, start);
    if (file_read_max(a, 256, false, &buf, &len) == 0 && !strcmp(buf, expect))
        unlink(a);
    free(buf);
    free(a);
    return true;
}

char *
session_known(const char *dir, const char *prefix, const char *session_id)
{
    if (!dir || !session_id || !*session_id)
        return NULL;
    char *sdir = xasprintf("%s/sessions", dir);
    char *key = session_key(prefix, fnv1a(session_id));
    unsigned long long start, st;
    pid_t pid = session_client_pid(&start);
    char name[256], pkey[128], *id = NULL;
    if (pid > 1 && start &&
        read_process(sdir, (long long)pid, name, &st, pkey) && st == start &&
        !strcmp(pkey, key))
        id = xstrdup(name); /* this process's agent of the session */
    char *spath = xasprintf("%s/s-%s", sdir, key), *buf;
    size_t len;
    if (!id && file_read_max(spath, 512, false, &buf, &len) == 0) {
        if (sscanf(buf, "%255s", name) == 1)
            id = xstrdup(name);
        free(buf);
    }
    free(spath);
    free(key);
    free(sdir);
    return id;
}

bool
session_forget(const char *dir, const char *prefix, const char *session_id)
{
    if (!dir || !session_id || !*session_id)
        return true;
    uint64_t h = fnv1a(session_id);
    char *sdir = xasprintf("%s/sessions", dir);
    char *key = session_key(prefix, h);
    char *spath = xasprintf("%s/s-%s", sdir, key);
    unsigned long long start;
    pid_t pid = session_client_pid(&start);
    bool over = true;
    /* this process's own agent of the session, when another process runs
     * it too (session_twin): that agent's records only */
    char name[256], pkey[128];
    unsigned long long st;
    if (pid > 1 && start &&
        read_process(sdir, (long long)pid, name, &st, pkey) && st == start &&
        !strcmp(pkey, key)) {
        unclaim(sdir, name, (long long)pid, start, key);
        forget_process(sdir, (long long)pid, start, name, key);
    }
    char *buf;
    size_t len;
    long long rpid;
    unsigned long long rstart;
    if (file_read_max(spath, 512, false, &buf, &len) == 0) {
        char who[64];
        if (sscanf(buf, "%255s %lld %llu", name, &rpid, &rstart) == 3) {
            snprintf(who, sizeof(who), "%lld %llu", rpid, rstart);
            /* the session's record is this process's, a helper's, or a
             * dead one's; another live client's goes on */
            if (pid <= 1 || !start || !alive(who) ||
                one_client((pid_t)rpid, pid)) {
                over = unclaim(sdir, name, rpid, rstart, key);
                forget_process(sdir, rpid, rstart, name, key);
                unlink(spath);
            }
        } else {
            unlink(spath);
        }
        free(buf);
    }
    free(spath);
    free(key);
    free(sdir);
    return over;
}

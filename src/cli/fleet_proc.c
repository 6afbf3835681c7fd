/*
 * fleet_proc.c - the processes of a fleet, as Linux's /proc shows them
 * (fleet_int.h): a process is known by its pid and its start time, so
 * that a pid the kernel gave to another process since is never signalled.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli/fleet_int.h"
#include "util/xalloc.h"
#include "util/banned.h"

int
fleet_proc_read(pid_t pid, struct fleet_proc *p)
{
    char path[64], buf[1024];
    if (pid <= 0)
        return -1;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "pid (comm) S ppid pgrp session tty tpgid flags minflt cminflt
     * majflt cmajflt utime stime cutime cstime priority nice threads
     * itrealvalue starttime ...": comm may hold anything, ')' too */
    const char *s = strrchr(buf, ')');
    if (!s || s[1] != ' ' || !s[2])
        return -1;
    memset(p, 0, sizeof(*p));
    p->pid = pid;
    p->zombie = s[2] == 'Z' || s[2] == 'X';
    s += 3;
    char *end;
    unsigned long long v[19];
    for (int k = 0; k < 19; k++) { /* fields 4 to 22, after the state */
        errno = 0;
        v[k] = strtoull(s, &end, 10);
        if (end == s || errno)
            return -1;
        s = end;
    }
    p->ppid = (pid_t)v[0];
    p->pgrp = (pid_t)v[1];
    p->start = v[18];
    return 0;
}

bool
fleet_proc_same(pid_t pid, unsigned long long start)
{
    struct fleet_proc p;
    return pid > 1 && start && fleet_proc_read(pid, &p) == 0 && !p.zombie &&
           p.start == start;
}

const char *
fleet_boot_id(void)
{
    static char id[64];
    static bool done;
    if (!done) {
        /* (a /proc file says its size is 0: read as a stream) */
        FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
        if (!f || !fgets(id, sizeof(id), f))
            id[0] = '\0';
        id[strcspn(id, "\r\n")] = '\0';
        if (f)
            fclose(f);
        done = true;
    }
    return id;
}

void
fleet_procs_release(struct fleet_procs *s)
{
    free(s->v);
    memset(s, 0, sizeof(*s));
}

void
fleet_procs_add(struct fleet_procs *s, const struct fleet_proc *p)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
    }
    s->v[s->n++] = *p;
}

bool
fleet_procs_has(const struct fleet_procs *s, const struct fleet_proc *p)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].pid == p->pid && s->v[i].start == p->start)
            return true;
    return false;
}

/* Every process now (zombies too), in s. */
static void
procs_all(struct fleet_procs *s)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    while (d && (de = readdir(d))) {
        char *end;
        long pid = strtol(de->d_name, &end, 10);
        struct fleet_proc p;
        if (*end || pid <= 1 || fleet_proc_read((pid_t)pid, &p))
            continue;
        fleet_procs_add(s, &p);
    }
    if (d)
        closedir(d);
}

void
fleet_procs_group(struct fleet_procs *s, pid_t pgid)
{
    struct fleet_procs all = { 0 };
    procs_all(&all);
    for (size_t i = 0; i < all.n; i++)
        if (all.v[i].pgrp == pgid && !all.v[i].zombie)
            fleet_procs_add(s, &all.v[i]);
    fleet_procs_release(&all);
}

/* Whether pid is an airspace daemon: `airspace serve` (argv[0] named so,
 * as a start on demand names it, or this very program). It serves the
 * whole repository, also when an agent's hook or command started it (it
 * then runs below the agent's supervisor and carries the fleet's
 * marker): stopping an agent never stops it. */
static bool
is_daemon(pid_t pid)
{
    char path[64], buf[4096];
    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t len = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[len] = '\0';
    size_t first = strnlen(buf, len); /* argv[0], then "serve" */
    if (first + 1 >= len || strcmp(buf + first + 1, "serve"))
        return false;
    const char *base = strrchr(buf, '/');
    if (!strcmp(base ? base + 1 : buf, "airspace"))
        return true;
    struct stat a, b;
    snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
    return !stat(path, &a) && !stat("/proc/self/exe", &b) &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

void
fleet_procs_descendants(struct fleet_procs *s, pid_t root)
{
    struct fleet_procs all = { 0 };
    procs_all(&all);
    /* 1: below root, 2: the daemon or below it, 0: neither (yet) */
    unsigned char *mark = xcalloc(all.n + 1, 1);
    for (bool more = true; more;) {
        more = false;
        for (size_t i = 0; i < all.n; i++) {
            if (mark[i])
                continue;
            unsigned char up = all.v[i].ppid == root ? 1 : 0;
            for (size_t j = 0; !up && j < all.n; j++)
                if (mark[j] && all.v[j].pid == all.v[i].ppid)
                    up = mark[j];
            if (!up)
                continue;
            mark[i] = up == 2 || is_daemon(all.v[i].pid) ? 2 : 1;
            more = true;
        }
    }
    for (size_t i = 0; i < all.n; i++)
        if (mark[i] == 1 && !all.v[i].zombie)
            fleet_procs_add(s, &all.v[i]);
    free(mark);
    fleet_procs_release(&all);
}

void
fleet_procs_marked(struct fleet_procs *s, const char *dir)
{
    char *want = xasprintf("AIRSPACE_FLEET=%s", dir);
    size_t wlen = strlen(want) + 1; /* with its NUL */
    struct fleet_procs all = { 0 };
    procs_all(&all);
    for (size_t i = 0; i < all.n; i++) {
        const struct fleet_proc *p = &all.v[i];
        if (p->zombie || p->pid == getpid())
            continue;
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/environ", (int)p->pid);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        static char buf[65536];
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        for (size_t k = 0; k + wlen <= n + 1; k += strlen(buf + k) + 1)
            if (!memcmp(buf + k, want, wlen)) {
                if (!is_daemon(p->pid))
                    fleet_procs_add(s, p);
                break;
            }
    }
    fleet_procs_release(&all);
    free(want);
}

size_t
fleet_procs_signal(const struct fleet_procs *s, int sig)
{
    size_t hits = 0;
    for (size_t i = 0; i < s->n; i++)
        if (fleet_proc_same(s->v[i].pid, s->v[i].start) &&
            kill(s->v[i].pid, sig) == 0) {
            hits++;
            if (sig != SIGKILL && sig != SIGCONT && sig)
                kill(s->v[i].pid, SIGCONT);
        }
    return hits;
}

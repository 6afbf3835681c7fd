/*
 * fleet.c - the fleet file, worktree includes, uncommitted work and
 * commits not landed (fleet.h).
 */
#include "git/fleet.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "git/paths.h"
#include "git/repo.h"
#include "git/worktree.h"
#include "util/file.h"
#include "util/glob.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

void
fleet_release(struct fleet *f)
{
    for (size_t i = 0; i < f->nagents; i++) {
        struct fleet_agent *a = &f->agents[i];
        free(a->name);
        free(a->command);
        free(a->setup);
        for (size_t k = 0; k < a->nlanes; k++)
            free(a->lanes[k]);
        free(a->lanes);
    }
    free(f->agents);
    memset(f, 0, sizeof(*f));
}

const struct fleet_agent *
fleet_find(const struct fleet *f, const char *name)
{
    for (size_t i = 0; i < f->nagents; i++)
        if (!strcmp(f->agents[i].name, name))
            return &f->agents[i];
    return NULL;
}

bool
fleet_in_lane(const struct fleet_agent *a, const char *path)
{
    for (size_t k = 0; k < a->nlanes; k++) {
        const char *l = a->lanes[k];
        size_t n = strlen(l);
        while (n > 1 && l[n - 1] == '/')
            n--;
        if (glob_match(l, path) ||
            (!glob_has_magic(l) && !strncmp(l, path, n) && path[n] == '/'))
            return true;
    }
    return false;
}

struct freader {
    struct fleet *f;
    const char *path;
    struct as_err *e;
    int rc;
};

static int
bad(struct freader *rd, const git_config_entry *en, const char *why)
{
    rd->rc = as_errorf(rd->e, AS_EINVAL, "fleet file '%s': %s = %s: %s",
        rd->path, en->name, en->value ? en->value : "(no value)", why);
    return 1;
}

/* A whole number in [min, max] (or seconds, into ms, when ms). */
static int
number(struct freader *rd, const git_config_entry *en, double min, double max,
    bool ms, int64_t *out)
{
    char *end;
    errno = 0;
    double v = en->value ? strtod(en->value, &end) : -1;
    if (!en->value || errno || end == en->value || *end || !(v >= min) ||
        v > max || (!ms && v != (double)(int64_t)v)) {
        char why[96];
        snprintf(why, sizeof(why), "want %s from %g to %g",
            ms ? "seconds" : "a whole number", min, max);
        return bad(rd, en, why);
    }
    *out = ms ? (int64_t)(v * 1000 + 0.5) : (int64_t)v;
    return 0;
}

static struct fleet_agent *
agent_of(struct fleet *f, const char *name, size_t len)
{
    for (size_t i = 0; i < f->nagents; i++)
        if (strlen(f->agents[i].name) == len &&
            !strncmp(f->agents[i].name, name, len))
            return &f->agents[i];
    f->agents = xrealloc(f->agents, (f->nagents + 1) * sizeof(*f->agents));
    struct fleet_agent *a = &f->agents[f->nagents++];
    memset(a, 0, sizeof(*a));
    a->name = xstrndup(name, len);
    return a;
}

static int
read_entry(const git_config_entry *en, void *payload)
{
    struct freader *rd = payload;
    const char *dot = strchr(en->name, '.');
    const char *last = strrchr(en->name, '.');
    if (!dot)
        return 0;
    size_t n = (size_t)(dot - en->name);
    const char *var = last + 1;
    int64_t v;
    if (n == 5 && !strncmp(en->name, "fleet", 5) && dot == last) {
        if (!strcmp(var, "concurrency")) {
            if (number(rd, en, 1, 1000, false, &v))
                return 1;
            rd->f->concurrency = (unsigned)v;
        } else if (!strcmp(var, "restarts")) {
            if (number(rd, en, 0, 1000, false, &v))
                return 1;
            rd->f->restarts = (unsigned)v;
        } else if (!strcmp(var, "backoff")) {
            if (number(rd, en, 0.01, 86400, true, &v))
                return 1;
            rd->f->backoff_ms = v;
        } else {
            return bad(rd, en, "unknown key (docs/fleet.md)");
        }
        return 0;
    }
    if (n == 5 && !strncmp(en->name, "agent", 5) && dot != last) {
        char *name = xstrndup(dot + 1, (size_t)(last - dot - 1));
        bool ok = worktree_name_valid(name);
        free(name);
        if (!ok)
            return bad(rd, en,
                "an agent's name is 1 to 64 letters, digits, '.', '_' or '-'");
        struct fleet_agent *a =
            agent_of(rd->f, dot + 1, (size_t)(last - dot - 1));
        if (!en->value || !*en->value)
            return bad(rd, en, "want a value");
        if (!strcmp(var, "command")) {
            free(a->command);
            a->command = xstrdup(en->value);
        } else if (!strcmp(var, "setup")) {
            free(a->setup);
            a->setup = xstrdup(en->value);
        } else if (!strcmp(var, "lane")) {
            const char *l = en->value;
            if (*l == '/' || !strcmp(l, "..") || !strncmp(l, "../", 3) ||
                strstr(l, "/../"))
                return bad(
                    rd, en, "a lane is a path or glob in the repository");
            /* as the daemon takes an agent's lanes (POST /v1/agents) */
            struct glob *g;
            struct as_err ge;
            if (glob_compile(l, &g, &ge) < 0) {
                char *why = xasprintf("not a glob: %s", ge.msg);
                bad(rd, en, why);
                free(why);
                return 1;
            }
            glob_free(g);
            a->lanes = xrealloc(a->lanes, (a->nlanes + 1) * sizeof(char *));
            a->lanes[a->nlanes++] = xstrdup(l);
        } else {
            return bad(rd, en, "unknown key (docs/fleet.md)");
        }
        return 0;
    }
    if ((n == 5 && !strncmp(en->name, "fleet", 5)) ||
        (n == 5 && !strncmp(en->name, "agent", 5)))
        return bad(rd, en,
            dot == last ? "an agent's keys go in [agent \"NAME\"]"
                        : "[fleet] has no subsections");
    return bad(rd, en, "unknown section (docs/fleet.md)");
}

int
fleet_read(const char *path, struct fleet *f, struct as_err *e)
{
    memset(f, 0, sizeof(*f));
    f->concurrency = 4;
    f->restarts = 3;
    f->backoff_ms = 5000;
    struct stat st;
    if (stat(path, &st) < 0)
        return as_errorf(e, errno == ENOENT ? AS_ENOENT : AS_EIO,
            "cannot read fleet file '%s': %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return as_errorf(
            e, AS_EIO, "cannot read fleet file '%s': not a regular file", path);
    git_libgit2_init();
    git_config *cfg = NULL;
    int rc = 0;
    if (git_config_new(&cfg) < 0 || git_config_add_file_ondisk(cfg, path,
                                        GIT_CONFIG_LEVEL_APP, NULL, 0) < 0) {
        const git_error *ge = git_error_last();
        rc = as_errorf(e, AS_EPARSE, "cannot read fleet file '%s': %s", path,
            ge && ge->message ? ge->message : "unknown libgit2 error");
        goto out;
    }
    struct freader rd = { f, path, e, 0 };
    int frc = git_config_foreach(cfg, read_entry, &rd);
    if (rd.rc)
        rc = rd.rc;
    else if (frc < 0)
        rc = repo_git_errorf(e, "cannot read fleet file '%s'", path);
    else if (!f->nagents)
        rc = as_errorf(e, AS_EINVAL,
            "fleet file '%s' names no agent ([agent \"NAME\"] command = ...)",
            path);
    for (size_t i = 0; !rc && i < f->nagents; i++)
        if (!f->agents[i].command)
            rc = as_errorf(e, AS_EINVAL,
                "fleet file '%s': agent '%s' has no command", path,
                f->agents[i].name);
out:
    git_config_free(cfg);
    git_libgit2_shutdown();
    if (rc)
        fleet_release(f);
    return rc;
}

/* ---- worktree includes ---- */

struct copier {
    const char *top, *dst;
    char **v;
    size_t n;
    struct as_err *e;
    int rc;
};

/* Copy one regular file top/rel to dst/rel when dst lacks it. */
static void
copy_one(struct copier *c, const char *rel)
{
    char *src = xasprintf("%s/%s", c->top, rel);
    char *dst = xasprintf("%s/%s", c->dst, rel);
    struct stat sb, db;
    char *buf = NULL;
    size_t len;
    if (lstat(src, &sb) == 0 && S_ISREG(sb.st_mode) && lstat(dst, &db) != 0 &&
        errno == ENOENT &&
        file_read_max(src, 256u << 20, true, &buf, &len) == 0) {
        /* its directories */
        for (char *p = dst + strlen(c->dst) + 1; (p = strchr(p, '/')); p++) {
            *p = '\0';
            mkdir(dst, 0755);
            *p = '/';
        }
        int fd = open(
            dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, sb.st_mode & 0777);
        bool ok = fd >= 0 && write(fd, buf, len) == (ssize_t)len;
        if (fd >= 0 && close(fd))
            ok = false;
        if (ok) {
            c->v = xrealloc(c->v, (c->n + 1) * sizeof(*c->v));
            c->v[c->n++] = xstrdup(rel);
        } else if (fd >= 0) {
            unlink(dst);
        }
    }
    free(buf);
    free(src);
    free(dst);
}

/* Walk top/rel (a directory): files matching glob (NULL: all). */
static void
walk(struct copier *c, const char *rel, const char *glob, int depth)
{
    if (depth > 32)
        return;
    char *dir = *rel ? xasprintf("%s/%s", c->top, rel) : xstrdup(c->top);
    DIR *d = opendir(dir);
    free(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
            !strcmp(de->d_name, ".git"))
            continue;
        char *r =
            *rel ? xasprintf("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
        char *full = xasprintf("%s/%s", c->top, r);
        struct stat st;
        if (lstat(full, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                walk(c, r, glob, depth + 1);
            else if (S_ISREG(st.st_mode) && (!glob || glob_match(glob, r)))
                copy_one(c, r);
        }
        free(full);
        free(r);
    }
    closedir(d);
}

int
fleet_include_copy(const char *top, const char *dst, const char *list,
    char ***copied, size_t *n, struct as_err *e)
{
    *copied = NULL;
    *n = 0;
    char *buf;
    size_t len;
    int rc = file_read_max(list, 1u << 20, false, &buf, &len);
    if (rc == AS_ENOENT)
        return 0;
    if (rc)
        return as_errorf(e, AS_EIO, "cannot read '%s'", list);
    struct copier c = { top, dst, NULL, 0, e, 0 };
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line && !c.rc;
         line = strtok_r(NULL, "\n", &save)) {
        while (*line == ' ' || *line == '\t')
            line++;
        size_t l = strlen(line);
        while (l && (line[l - 1] == ' ' || line[l - 1] == '\t' ||
                        line[l - 1] == '\r' || line[l - 1] == '/'))
            line[--l] = '\0';
        if (!*line || *line == '#')
            continue;
        if (*line == '/' || !strcmp(line, "..") || !strncmp(line, "../", 3) ||
            strstr(line, "/../") || (l >= 3 && !strcmp(line + l - 3, "/.."))) {
            c.rc = as_errorf(e, AS_EINVAL,
                "'%s': '%s' is not a path in the repository", list, line);
            break;
        }
        if (glob_has_magic(line)) {
            walk(&c, "", line, 0);
            continue;
        }
        char *full = xasprintf("%s/%s", top, line);
        struct stat st;
        if (lstat(full, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                walk(&c, line, NULL, 0);
            else
                copy_one(&c, line);
        }
        free(full);
    }
    free(buf);
    *copied = c.v;
    *n = c.n;
    return c.rc;
}

/* ---- uncommitted work ---- */

int
fleet_worktree_dirty(const char *dir, size_t *n, char **some, struct as_err *e)
{
    *n = 0;
    *some = NULL;
    git_libgit2_init();
    git_repository *r = NULL;
    git_status_list *sl = NULL;
    int rc = 0;
    if (git_repository_open(&r, dir) < 0) {
        rc = as_errorf(e, AS_ENOENT, "no worktree at '%s'", dir);
        goto out;
    }
    git_status_options so = GIT_STATUS_OPTIONS_INIT;
    so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED |
               GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
    if (git_status_list_new(&sl, r, &so) < 0) {
        rc = repo_git_errorf(e, "cannot read the status of '%s'", dir);
        goto out;
    }
    struct strbuf sb = STRBUF_INIT;
    size_t count = git_status_list_entrycount(sl);
    for (size_t i = 0; i < count; i++) {
        const git_status_entry *s = git_status_byindex(sl, i);
        const git_diff_delta *d =
            s->index_to_workdir ? s->index_to_workdir : s->head_to_index;
        const char *p = d && d->new_file.path ? d->new_file.path : "?";
        if (broker_client_config(p))
            continue; /* the tooling's, copied by agent new: not work */
        if (++*n <= 5)
            strbuf_addf(&sb, "%s%s", *n > 1 ? ", " : "", p);
    }
    if (*n > 5)
        strbuf_addf(&sb, ", ...");
    *some = sb.s;
out:
    git_status_list_free(sl);
    git_repository_free(r);
    git_libgit2_shutdown();
    return rc;
}

int
fleet_worktree_unlanded(
    const char *dir, const char *into, size_t *n, struct as_err *e)
{
    *n = 0;
    git_libgit2_init();
    git_repository *r = NULL;
    git_oid head, at;
    int rc = 0;
    char *ref = xasprintf("refs/heads/%s", into);
    if (git_repository_open(&r, dir) < 0) {
        rc = as_errorf(e, AS_ENOENT, "no worktree at '%s'", dir);
        goto out;
    }
    if (git_reference_name_to_id(&head, r, "HEAD") < 0 ||
        git_reference_name_to_id(&at, r, ref) < 0) {
        rc = repo_git_errorf(
            e, "cannot resolve HEAD of '%s' or '%s'", dir, into);
        goto out;
    }
    size_t behind = 0;
    if (!git_oid_equal(&head, &at) &&
        git_graph_ahead_behind(n, &behind, r, &head, &at) < 0)
        rc = repo_git_errorf(e, "cannot count the commits of '%s'", dir);
out:
    if (rc)
        *n = 0;
    free(ref);
    git_repository_free(r);
    git_libgit2_shutdown();
    return rc;
}

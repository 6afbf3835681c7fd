/*
 * cwd_path.c - command-line paths made relative to the working tree's top.
 */
#include "cli/cwd_path.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "git/repo.h"
#include "util/glob.h"
#include "util/path.h"
#include "util/xalloc.h"
#include "util/banned.h"

void
cwd_path_init(struct cwd_path *c, const char *repo_dir)
{
    struct as_err e;
    char *top = NULL, *common = NULL, *rtop = NULL, *rcommon = NULL;
    memset(c, 0, sizeof(*c));
    c->prefix = xstrdup("");
    if (repo_locate(".", &top, &common, &e)) {
        top = common = NULL;
    } else if (strcmp(repo_dir, ".") &&
               !repo_locate(repo_dir, &rtop, &rcommon, &e) &&
               strcmp(common, rcommon)) {
        /* here is another repository: paths are from repo_dir's top */
        free(top);
        top = rtop;
        rtop = NULL;
        goto out;
    }
    if (!top) {
        if (!repo_locate(repo_dir, &rtop, &rcommon, &e)) {
            top = rtop;
            rtop = NULL;
        }
        goto out;
    }
    char *cwd = getcwd(NULL, 0), *here = cwd ? realpath(cwd, NULL) : NULL;
    size_t tl = strlen(top);
    if (here && !strncmp(here, top, tl) && here[tl] == '/') {
        free(c->prefix);
        c->prefix = xstrdup(here + tl + 1);
    }
    free(here);
    free(cwd);
out:
    c->top = top;
    free(common);
    free(rtop);
    free(rcommon);
}

void
cwd_path_release(struct cwd_path *c)
{
    free(c->top);
    free(c->prefix);
    memset(c, 0, sizeof(*c));
}

/* given, absolute, with its directory's symbolic links resolved (new). */
static char *
resolve_abs(const char *given)
{
    char *whole = realpath(given, NULL);
    if (whole)
        return whole;
    char *copy = xstrdup(given);
    char *slash = strrchr(copy, '/');
    *slash = '\0';
    char *parent = realpath(*copy ? copy : "/", NULL);
    char *out = parent ? xasprintf("%s/%s", parent, slash + 1) : xstrdup(given);
    free(parent);
    free(copy);
    return out;
}

static bool
has_inner_slash(const char *s)
{
    const char *p = strchr(s, '/');
    return p && p[strspn(p, "/")];
}

int
cwd_path_pattern(
    const struct cwd_path *c, const char *given, char **out, struct as_err *e)
{
    char *rel = NULL;
    int rc;
    *out = NULL;
    if (given[0] == '/') {
        if (!c->top)
            return as_errorf(
                e, AS_EINVAL, "'%s': no working tree to take it from", given);
        char *abs = resolve_abs(given);
        rc = path_normalize(abs, c->top, &rel);
        free(abs);
        if (rc && path_normalize(given, c->top, &rel) == 0)
            rc = 0;
        if (rc)
            return as_errorf(e, AS_EINVAL,
                "'%s' is outside the working tree ('%s')", given, c->top);
    } else {
        if (!*c->prefix && !has_inner_slash(given) && strcmp(given, "..") &&
            strncmp(given, "../", 3)) {
            /* at the top: as given, "*.c" applying at any depth */
            if (!strcmp(given, ".") || !strcmp(given, "./"))
                return as_errorf(e, AS_EINVAL,
                    "'%s' is the top of the working tree: give paths or "
                    "globs in it",
                    given);
            *out = xstrdup(given);
            return 0;
        }
        if (path_join(c->prefix, given, &rel)) {
            free(rel);
            return as_errorf(e, AS_EINVAL,
                "'%s' is outside the working tree%s%s%s", given,
                c->top ? " ('" : "", c->top ? c->top : "", c->top ? "')" : "");
        }
    }
    if (!*rel) {
        free(rel);
        return as_errorf(e, AS_EINVAL,
            "'%s' is the top of the working tree: give paths or globs in it",
            given);
    }
    if (glob_has_magic(rel) && !strchr(rel, '/')) {
        *out = xasprintf("./%s", rel);
        free(rel);
    } else {
        *out = rel;
    }
    return 0;
}

/*
 * worktree.c - agents' worktrees and branches (see worktree.h).
 */
#include "git/worktree.h"

#include <errno.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "git/paths.h"
#include "git/repo.h"
#include "util/xalloc.h"
#include "util/banned.h"

bool
worktree_name_valid(const char *name)
{
    size_t n = strlen(name);
    if (!n || n > WORKTREE_NAME_MAX || name[0] == '.' || name[0] == '-' ||
        name[n - 1] == '.' || strstr(name, "..") ||
        (n >= 5 && !strcmp(name + n - 5, ".lock")))
        return false;
    for (const char *p = name; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

const char *
worktree_agent_name(const char *branch, const char *name)
{
    size_t pl = strlen(WORKTREE_BRANCH_PREFIX);
    if (!branch)
        return name;
    if (!strncmp(branch, WORKTREE_BRANCH_PREFIX, pl) &&
        worktree_name_valid(branch + pl))
        return branch + pl;
    return branch;
}

char *
worktree_default_dir(const char *main_workdir, const char *name)
{
    const char *slash = strrchr(main_workdir, '/');
    if (!slash)
        return xasprintf("%s.airspace/%s", main_workdir, name);
    const char *base = slash + 1;
    size_t plen = (size_t)(slash - main_workdir);
    return xasprintf(
        "%.*s/%s.airspace/%s", (int)plen, main_workdir, base, name);
}

void
worktree_info_release(struct worktree_info *w)
{
    free(w->name);
    free(w->path);
    free(w->branch);
    free(w->branch_kept);
    memset(w, 0, sizeof(*w));
}

/* dir made absolute against the current directory, without "." parts. */
static char *
absolute_dir(const char *dir)
{
    char *abs;
    if (dir[0] == '/') {
        abs = xstrdup(dir);
    } else {
        char *cwd = realpath(".", NULL);
        abs = xasprintf("%s/%s", cwd ? cwd : ".", dir);
        free(cwd);
    }
    /* drop trailing slashes, "/./" and "//" */
    size_t n = strlen(abs), w = 0;
    for (size_t i = 0; i < n; i++) {
        if (abs[i] == '/' && w && abs[w - 1] == '/')
            continue;
        if (abs[i] == '.' && w && abs[w - 1] == '/' &&
            (abs[i + 1] == '/' || !abs[i + 1]))
            continue;
        abs[w++] = abs[i];
    }
    while (w > 1 && abs[w - 1] == '/')
        w--;
    abs[w] = '\0';
    return abs;
}

/* mkdir -p of dir's parents; returns 0 or -1 with errno. */
static int
make_parents(const char *dir)
{
    char *p = xstrdup(dir);
    int rc = 0;
    for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(p, 0777) < 0 && errno != EEXIST)
            rc = -1;
        *s = '/';
        if (rc)
            break;
    }
    free(p);
    return rc;
}

static bool
dir_empty(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return false;
    struct dirent *de;
    bool empty = true;
    while (empty && (de = readdir(d)) != NULL)
        empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
    closedir(d);
    return empty;
}

/* The branch the administrative HEAD file of worktree admin names
 * ("refs/heads/x" -> "x"), or NULL. New string. */
static char *
admin_head_branch(const char *common, const char *admin)
{
    char *path = xasprintf("%s/worktrees/%s/HEAD", common, admin);
    FILE *f = fopen(path, "r");
    free(path);
    if (!f)
        return NULL;
    char line[1024];
    char *branch = NULL;
    if (fgets(line, sizeof(line), f) &&
        !strncmp(line, "ref: refs/heads/", 16)) {
        line[strcspn(line, "\r\n")] = '\0';
        branch = xstrdup(line + 16);
    }
    fclose(f);
    return branch;
}

/*
 * The refusal of agent name's branch, which exists, saying what frees the
 * name: `agent rm` removes a linked worktree on it (and the branch with it
 * when it is merged), `agent prune` one whose directory is gone; a branch
 * no worktree is on (left by a former agent: `agent rm` keeps one that is
 * not merged) only git deletes.
 */
static int
branch_taken(
    struct repo *r, const char *name, const char *branch, struct as_err *e)
{
    struct repo_worktree *wts = NULL;
    size_t n = 0;
    struct as_err we;
    bool on_main = false, linked = false, orphan = false;
    if (repo_worktrees(r, &wts, &n, &we) == 0)
        for (size_t i = 0; i < n; i++) {
            if (!wts[i].prunable) {
                bool on = wts[i].branch && !strcmp(wts[i].branch, branch);
                on_main = on_main || (on && wts[i].is_main);
                linked = linked || (on && !wts[i].is_main);
                continue;
            }
            char *head = admin_head_branch(repo_common_dir(r), wts[i].name);
            orphan = orphan || (head && !strcmp(head, branch));
            free(head);
        }
    repo_worktrees_free(wts, n);
    if (linked)
        return as_errorf(e, AS_ECONFLICT,
            "branch '%s' already exists: agent '%s' has a worktree on it; "
            "remove it with 'airspace agent rm %s' or pick another name",
            branch, name, name);
    if (orphan)
        return as_errorf(e, AS_ECONFLICT,
            "branch '%s' already exists, on a worktree whose directory is "
            "gone: prune it with 'airspace agent prune' or pick another "
            "name",
            branch);
    if (on_main)
        return as_errorf(e, AS_ECONFLICT,
            "branch '%s' already exists and the main worktree is on it: "
            "pick another name",
            branch);
    return as_errorf(e, AS_ECONFLICT,
        "branch '%s' already exists, with no worktree on it (left by a "
        "former agent: 'agent rm' keeps a branch that is not merged): delete "
        "it with 'git branch -D %s' or pick another name",
        branch, branch);
}

int
worktree_new(const char *from, const char *name, const char *base,
    const char *dir, struct worktree_info *out, struct as_err *e)
{
    memset(out, 0, sizeof(*out));
    if (!worktree_name_valid(name))
        return as_errorf(e, AS_EINVAL,
            "'%s' cannot name an agent: use 1 to %d letters, digits, '.', "
            "'_' or '-' (not starting with '.' or '-')",
            name, WORKTREE_NAME_MAX);
    struct repo *r = NULL;
    git_repository *here = NULL, *g = NULL;
    git_object *obj = NULL;
    git_commit *commit = NULL;
    git_reference *bref = NULL;
    git_worktree *wt = NULL;
    char *branch = xasprintf(WORKTREE_BRANCH_PREFIX "%s", name);
    char *refname = xasprintf("refs/heads/%s", branch);
    char *path = NULL, *admin = NULL;
    bool made_branch = false, made_dir = false, emptied = false;
    int rc = repo_open(from, &r, e);
    if (rc)
        goto out;
    if (git_repository_open_ext(&here, from, 0, NULL) < 0 ||
        git_repository_open(&g, repo_common_dir(r)) < 0) {
        rc = repo_git_errorf(e, "cannot open the repository of '%s'", from);
        goto out;
    }
    const char *rev = base ? base : "HEAD";
    if (git_revparse_single(&obj, here, rev) < 0 ||
        git_object_peel((git_object **)&commit, obj, GIT_OBJECT_COMMIT) < 0) {
        git_error_clear();
        rc = as_errorf(e, AS_EINVAL,
            base ? "--base '%s' does not name a commit"
                 : "'%s' has no commit yet: make one first, or give --base",
            base ? base : from);
        goto out;
    }
    git_oid_tostr(out->base, sizeof(out->base), git_commit_id(commit));
    {
        /* the branch is made through the main handle: its own commit */
        git_commit *mine = NULL;
        if (git_commit_lookup(&mine, g, git_commit_id(commit)) < 0) {
            rc = repo_git_errorf(e, "cannot read commit %s", out->base);
            goto out;
        }
        git_commit_free(commit);
        commit = mine;
    }
    int valid = 0;
    if (git_reference_name_is_valid(&valid, refname) < 0 || !valid) {
        git_error_clear();
        rc = as_errorf(e, AS_EINVAL, "'%s' is not a valid branch name", branch);
        goto out;
    }
    git_reference *existing = NULL;
    if (git_reference_lookup(&existing, g, refname) == 0) {
        git_reference_free(existing);
        rc = branch_taken(r, name, branch, e);
        goto out;
    }
    git_error_clear();
    if (dir) {
        path = absolute_dir(dir);
    } else if (repo_main_workdir(r)) {
        path = worktree_default_dir(repo_main_workdir(r), name);
    } else {
        rc = as_errorf(e, AS_EINVAL,
            "'%s' is a bare repository: give the worktree's directory "
            "with --dir",
            repo_common_dir(r));
        goto out;
    }
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISDIR(st.st_mode) || !dir_empty(path)) {
            rc = as_errorf(e, AS_ECONFLICT,
                "'%s' already exists: remove it or give another --dir", path);
            goto out;
        }
    } else if (errno != ENOENT) {
        rc = as_errorf(e, AS_EIO, "cannot use '%s': %s", path, strerror(errno));
        goto out;
    } else {
        made_dir = true;
    }
    /* the worktree's administrative name: name, else name1, name2, ... */
    for (unsigned k = 0; !admin && k < 1000; k++) {
        char *cand = k ? xasprintf("%s%u", name, k) : xstrdup(name);
        char *adm = xasprintf("%s/worktrees/%s", repo_common_dir(r), cand);
        if (access(adm, F_OK) != 0)
            admin = cand;
        else
            free(cand);
        free(adm);
    }
    if (!admin) {
        rc = as_errorf(e, AS_ECONFLICT, "too many worktrees named '%s'", name);
        goto out;
    }
    if (make_parents(path) < 0) {
        rc = as_errorf(e, AS_EIO, "cannot make the parents of '%s': %s", path,
            strerror(errno));
        goto out;
    }
    /* an empty directory is taken, as git worktree add takes it; libgit2
     * makes the directory itself (and refuses one that exists) */
    if (!made_dir) {
        if (rmdir(path) < 0) {
            rc = as_errorf(
                e, AS_EIO, "cannot use '%s': %s", path, strerror(errno));
            goto out;
        }
        emptied = true;
    }
    if (git_branch_create(&bref, g, branch, commit, 0) < 0) {
        rc = repo_git_errorf(e, "cannot create branch '%s'", branch);
        goto out;
    }
    made_branch = true;
    git_worktree_add_options wo;
    git_worktree_add_options_init(&wo, GIT_WORKTREE_ADD_OPTIONS_VERSION);
    wo.ref = bref;
    if (git_worktree_add(&wt, g, admin, path, &wo) < 0) {
        rc = repo_git_errorf(e, "cannot make the worktree '%s'", path);
        goto out;
    }
    char *real = realpath(path, NULL);
    if (real) {
        free(path);
        path = real;
    }
    out->name = xstrdup(name);
    out->path = path;
    out->branch = branch;
    path = NULL;
    branch = NULL;
out:
    if (rc && made_branch) {
        /* undo: the half-made worktree, then the branch */
        git_worktree *half = NULL;
        if (admin && git_worktree_lookup(&half, g, admin) == 0) {
            git_worktree_prune_options po;
            git_worktree_prune_options_init(
                &po, GIT_WORKTREE_PRUNE_OPTIONS_VERSION);
            po.flags =
                GIT_WORKTREE_PRUNE_VALID | GIT_WORKTREE_PRUNE_LOCKED |
                (made_dir || emptied ? GIT_WORKTREE_PRUNE_WORKING_TREE : 0);
            git_worktree_prune(half, &po);
            git_worktree_free(half);
        } else if (admin) {
            /* made before the step that failed, with nothing in it yet */
            char *adm = xasprintf("%s/worktrees/%s", repo_common_dir(r), admin);
            rmdir(adm);
            free(adm);
        }
        if (bref && git_reference_delete(bref) == 0)
            git_reflog_delete(g, refname);
        git_error_clear();
    }
    if (rc && made_dir && path)
        rmdir(path); /* only if it stayed empty */
    if (rc && emptied && path)
        (void)mkdir(path, 0777); /* the empty directory it was given, back */
    git_worktree_free(wt);
    git_reference_free(bref);
    git_commit_free(commit);
    git_object_free(obj);
    git_repository_free(here);
    git_repository_free(g);
    repo_free(r);
    free(admin);
    free(path);
    free(branch);
    free(refname);
    return rc;
}

/* Uncommitted work in the worktree at path: count, first few in list.
 * The clients' settings `agent new` copied there are not work. */
static int
dirty_paths(
    const char *path, char *list, size_t cap, size_t *count, struct as_err *e)
{
    git_repository *w = NULL;
    git_status_list *sl = NULL;
    *count = 0;
    list[0] = '\0';
    if (git_repository_open(&w, path) < 0)
        return repo_git_errorf(e, "cannot open the worktree '%s'", path);
    git_status_options so;
    git_status_options_init(&so, GIT_STATUS_OPTIONS_VERSION);
    so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED |
               GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
    int rc = 0;
    if (git_status_list_new(&sl, w, &so) < 0) {
        rc = repo_git_errorf(e, "cannot read the status of '%s'", path);
        goto out;
    }
    size_t len = 0, n = git_status_list_entrycount(sl);
    bool full = false;
    for (size_t i = 0; i < n; i++) {
        const git_status_entry *s = git_status_byindex(sl, i);
        const git_diff_delta *d =
            s->index_to_workdir ? s->index_to_workdir : s->head_to_index;
        const char *p = d ? d->new_file.path : "?";
        if (broker_client_config(p))
            continue;
        if (++*count > 5 || full)
            continue;
        int wr =
            snprintf(list + len, cap - len, "%s%s", *count > 1 ? ", " : "", p);
        if (wr < 0 || (size_t)wr >= cap - len)
            full = true;
        else
            len += (size_t)wr;
    }
    if (*count > 5 && len + 5 < cap)
        snprintf(list + len, cap - len, ", ...");
    if (!*count && git_repository_state(w) != GIT_REPOSITORY_STATE_NONE &&
        git_repository_state(w) != GIT_REPOSITORY_STATE_BISECT) {
        *count = 1;
        snprintf(list, cap, "an operation in progress (merge, rebase, ...)");
    }
out:
    git_status_list_free(sl);
    git_repository_free(w);
    return rc;
}

/* Delete branch when the integration branch contains it; else say why
 * not in w->branch_kept. */
static void
drop_branch(struct repo *r, git_repository *g, struct worktree_info *w)
{
    char *integ = NULL;
    struct as_err ie;
    git_oid tip, at;
    if (repo_integration_branch(r, &integ, &ie)) {
        w->branch_kept = xasprintf(
            "no integration branch to tell whether it is merged (%s)", ie.msg);
        return;
    }
    char *ref = xasprintf("refs/heads/%s", w->branch);
    char *iref = xasprintf("refs/heads/%s", integ);
    git_reference *b = NULL;
    if (!strcmp(integ, w->branch)) {
        w->branch_kept = xasprintf("it is the integration branch");
    } else if (git_reference_name_to_id(&tip, g, ref) < 0) {
        w->branch_kept = NULL; /* gone already */
    } else if (git_reference_name_to_id(&at, g, iref) < 0) {
        w->branch_kept =
            xasprintf("the integration branch '%s' does not resolve", integ);
    } else if (!git_oid_equal(&tip, &at) &&
               git_graph_descendant_of(g, &at, &tip) != 1) {
        size_t ahead = 0, behind = 0;
        git_graph_ahead_behind(&ahead, &behind, g, &tip, &at);
        w->branch_kept = xasprintf(
            "%zu commit%s not merged into '%s' (delete it with git branch "
            "-D %s)",
            ahead, ahead == 1 ? "" : "s", integ, w->branch);
    } else if (git_branch_lookup(&b, g, w->branch, GIT_BRANCH_LOCAL) < 0) {
        w->branch_kept = xasprintf("cannot read it: %s",
            git_error_last() ? git_error_last()->message : "?");
    } else if (git_branch_is_checked_out(b) == 1) {
        w->branch_kept = xasprintf("another worktree has it checked out");
    } else if (git_reference_delete(b) < 0) {
        /* (not git_branch_delete: libgit2 1.5 leaks in the config rename
         * it does, and airspace never gives its branches configuration) */
        w->branch_kept = xasprintf("cannot delete it: %s",
            git_error_last() ? git_error_last()->message : "?");
    } else {
        git_reflog_delete(g, ref);
        w->branch_deleted = true;
    }
    git_error_clear();
    git_reference_free(b);
    free(ref);
    free(iref);
    free(integ);
}

int
worktree_remove(const char *from, const char *name, const char *path_hint,
    bool force, struct worktree_info *out, struct as_err *e)
{
    memset(out, 0, sizeof(*out));
    struct repo *r = NULL;
    struct repo_worktree *wts = NULL;
    size_t nwts = 0;
    git_repository *g = NULL;
    git_worktree *wt = NULL;
    char *branch = xasprintf(WORKTREE_BRANCH_PREFIX "%s", name);
    int rc = repo_open(from, &r, e);
    if (rc)
        goto out;
    if ((rc = repo_worktrees(r, &wts, &nwts, e)))
        goto out;
    struct repo_worktree *hit = NULL;
    for (size_t i = 0; i < nwts && !hit; i++)
        if (wts[i].branch && !strcmp(wts[i].branch, branch))
            hit = &wts[i];
    /* one whose directory is gone: its branch is in its HEAD file */
    for (size_t i = 0; i < nwts && !hit; i++) {
        char *head = wts[i].prunable
                         ? admin_head_branch(repo_common_dir(r), wts[i].name)
                         : NULL;
        if (head && !strcmp(head, branch))
            hit = &wts[i];
        free(head);
    }
    for (size_t i = 0; i < nwts && !hit; i++)
        if (!wts[i].is_main && !strcmp(wts[i].name, name))
            hit = &wts[i];
    for (size_t i = 0; i < nwts && !hit && path_hint; i++)
        if (!strcmp(wts[i].path, path_hint))
            hit = &wts[i];
    if (!hit) {
        /* its branch may be left, kept by a former rm: say how it goes */
        char *ref = xasprintf("refs/heads/%s", branch);
        git_oid tip;
        bool left = git_repository_open(&g, repo_common_dir(r)) == 0 &&
                    git_reference_name_to_id(&tip, g, ref) == 0;
        git_error_clear();
        free(ref);
        if (left)
            rc = as_errorf(e, AS_ENOENT,
                "no worktree for agent '%s', only its branch '%s' (kept by "
                "a former 'agent rm' as it was not merged): delete it with "
                "'git branch -D %s'",
                name, branch, branch);
        else
            rc = as_errorf(e, AS_ENOENT,
                "no worktree for agent '%s' (no worktree on branch '%s' or "
                "named '%s')",
                name, branch, name);
        goto out;
    }
    if (hit->is_main) {
        rc = as_errorf(e, AS_EINVAL,
            "'%s' is the main working tree: airspace agent rm removes only "
            "linked worktrees",
            hit->path);
        goto out;
    }
    if (git_repository_open(&g, repo_common_dir(r)) < 0 ||
        git_worktree_lookup(&wt, g, hit->name) < 0) {
        rc = repo_git_errorf(e, "cannot open the worktree '%s'", hit->path);
        goto out;
    }
    git_buf why = GIT_BUF_INIT;
    int locked = git_worktree_is_locked(&why, wt);
    if (locked > 0 && !force) {
        rc = as_errorf(e, AS_ECONFLICT,
            "'%s' is locked (git worktree lock%s%s): unlock it, or use "
            "--force",
            hit->path, why.size ? ": " : "", why.size ? why.ptr : "");
        git_buf_dispose(&why);
        goto out;
    }
    git_buf_dispose(&why);
    git_error_clear();
    if (!hit->prunable) {
        char list[512];
        size_t count;
        if ((rc = dirty_paths(hit->path, list, sizeof(list), &count, e)))
            goto out;
        if (count && !force) {
            rc = as_errorf(e, AS_ECONFLICT,
                "'%s' has uncommitted changes (%zu: %s): commit them, or "
                "use --force to discard them",
                hit->path, count, list);
            goto out;
        }
        out->forced = count > 0;
    }
    git_worktree_prune_options po;
    git_worktree_prune_options_init(&po, GIT_WORKTREE_PRUNE_OPTIONS_VERSION);
    po.flags = GIT_WORKTREE_PRUNE_VALID | GIT_WORKTREE_PRUNE_WORKING_TREE |
               (force ? GIT_WORKTREE_PRUNE_LOCKED : 0);
    if (git_worktree_prune(wt, &po) < 0) {
        rc = repo_git_errorf(e, "cannot remove the worktree '%s'", hit->path);
        goto out;
    }
    out->name = xstrdup(name);
    out->path = xstrdup(hit->path);
    memcpy(out->base, hit->head, sizeof(out->base));
    git_oid tip;
    if (!hit->branch && hit->prunable) {
        /* its directory is gone: its branch is ours if it is airspace's */
        char *ref = xasprintf("refs/heads/%s", branch);
        if (git_reference_name_to_id(&tip, g, ref) == 0)
            out->branch = xstrdup(branch);
        git_error_clear();
        free(ref);
    } else if (hit->branch) {
        out->branch = xstrdup(hit->branch);
    }
    if (out->branch) {
        if (!strcmp(out->branch, branch))
            drop_branch(r, g, out);
        else
            out->branch_kept =
                xasprintf("it was not made by airspace agent new");
    }
out:
    git_worktree_free(wt);
    git_repository_free(g);
    repo_worktrees_free(wts, nwts);
    repo_free(r);
    free(branch);
    return rc;
}

int
worktree_prune_agents(const char *from, bool dry_run,
    struct worktree_info **out, size_t *n, struct as_err *e)
{
    *out = NULL;
    *n = 0;
    struct repo *r = NULL;
    struct repo_worktree *wts = NULL;
    size_t nwts = 0, alloc = 0;
    git_repository *g = NULL;
    int rc = repo_open(from, &r, e);
    if (rc)
        return rc;
    if ((rc = repo_worktrees(r, &wts, &nwts, e)))
        goto out;
    if (git_repository_open(&g, repo_common_dir(r)) < 0) {
        rc = repo_git_errorf(e, "cannot open '%s'", repo_common_dir(r));
        goto out;
    }
    size_t pl = strlen(WORKTREE_BRANCH_PREFIX);
    for (size_t i = 0; i < nwts; i++) {
        if (wts[i].is_main || !wts[i].prunable)
            continue;
        char *branch = admin_head_branch(repo_common_dir(r), wts[i].name);
        if (!branch || strncmp(branch, WORKTREE_BRANCH_PREFIX, pl) ||
            !branch[pl]) {
            free(branch);
            continue;
        }
        git_worktree *wt = NULL;
        if (git_worktree_lookup(&wt, g, wts[i].name) < 0) {
            git_error_clear();
            free(branch);
            continue;
        }
        bool locked = git_worktree_is_locked(NULL, wt) > 0;
        git_worktree_prune_options po;
        git_worktree_prune_options_init(
            &po, GIT_WORKTREE_PRUNE_OPTIONS_VERSION);
        if (locked || (!dry_run && git_worktree_prune(wt, &po) < 0)) {
            git_error_clear();
            git_worktree_free(wt);
            free(branch);
            continue;
        }
        git_worktree_free(wt);
        ALLOC_GROW(*out, *n + 1, alloc);
        struct worktree_info *w = &(*out)[(*n)++];
        memset(w, 0, sizeof(*w));
        w->name = xstrdup(branch + pl);
        w->path = xstrdup(wts[i].path);
        w->branch = branch;
        char *ref = xasprintf("refs/heads/%s", branch);
        git_oid tip;
        if (git_reference_name_to_id(&tip, g, ref) == 0)
            git_oid_tostr(w->base, sizeof(w->base), &tip);
        git_error_clear();
        free(ref);
        if (!dry_run && w->base[0])
            drop_branch(r, g, w);
    }
out:
    git_repository_free(g);
    repo_worktrees_free(wts, nwts);
    repo_free(r);
    return rc;
}

/*
 * cmd_agent.c - `airspace agent new|rm|list`: a worktree and a branch per
 * agent (git/worktree.h), registered with the daemon when it is there.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "client/client.h"
#include "cli/dcli.h"
#include "cli/init_config.h"
#include "cli/opts.h"
#include "git/init_git.h"
#include "git/paths.h"
#include "git/worktree.h"
#include "util/file.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char usage[] =
    "usage: airspace agent new NAME [--base REV] [--dir DIR] [--json]\n"
    "                          [--no-start]\n"
    "       airspace agent rm NAME [--force] [--json] [--no-start]\n"
    "       airspace agent prune [--dry-run] [--json] [--no-start]\n"
    "       airspace agent list [--json]\n\n"
    "new: make a worktree for agent NAME on a new branch airspace/NAME\n"
    "from REV (default HEAD), in DIR (default <repo>.airspace/NAME beside\n"
    "the repository), register it with the daemon and print its path.\n"
    "rm: remove that worktree (refused with uncommitted changes unless\n"
    "--force) and its branch when it is merged; the daemon is told the\n"
    "agent exited. prune: forget agents' worktrees whose directory is\n"
    "gone, deleting their branches when merged. list: the same as\n"
    "'airspace agents'.\n";

struct aopts {
    const char *base, *dir;
    bool json, force, no_start;
};

static int
parse(int argc, char **argv, struct aopts *o, const char *cmd)
{
    memset(o, 0, sizeof(*o));
    const struct opt table[] = {
        { .name = "base", .kind = OPT_STRING, .target = &o->base },
        { .name = "dir", .kind = OPT_STRING, .target = &o->dir },
        OPT_JSON(&o->json),
        { .name = "force", .kind = OPT_FLAG, .target = &o->force },
        OPT_NO_START(&o->no_start),
        OPT_TABLE_END,
    };
    int rc = opts_parse(argc, argv, table, cmd, usage, 0);
    if (rc)
        return rc;
    if (!strcmp(cmd, "agent new") && o->force)
        return dcli_usage(cmd, "--force is an option of 'agent rm'");
    if (!strcmp(cmd, "agent rm") && (o->base || o->dir))
        return dcli_usage(cmd, "--base and --dir are options of 'agent new'");
    if (optind + 1 != argc)
        return dcli_usage(cmd, optind >= argc ? "expected the agent's NAME"
                                              : "expected one NAME, not more");
    return 0;
}

static const char *
jstr(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* The daemon, if it can be had (*have); a note on stderr when not. 0, or
 * exit code 2 after printing why when the daemon it would start would not
 * start on the configuration (dcli_client_open()): nothing is done then. */
static int
daemon_open(struct client *cl, bool no_start, const char *cmd, bool *have)
{
    struct as_err e;
    int rc = dcli_client_open(cl, ".", !no_start, &e);
    *have = rc == 0;
    if (rc == AS_EINVAL) {
        fprintf(stderr, "airspace %s: %s\n", cmd, e.msg);
        return CLI_EXIT_USAGE;
    }
    if (rc) {
        client_close(cl);
        fprintf(stderr,
            "airspace %s: the daemon cannot be reached (%s): it is not told\n",
            cmd, e.msg);
        return 0;
    }
    cl->timeout_ms = 10000;
    return 0;
}

/* The daemon's agents: the reply ({agents: [...]}; json_decref it), or NULL. */
static json_t *
agents_list(struct client *cl)
{
    long status;
    json_t *reply = NULL;
    struct as_err e;
    if (client_call(cl, api_agents(false), &status, &reply, &e) ||
        status != 200) {
        if (reply)
            json_decref(reply);
        return NULL;
    }
    return reply;
}

/* Have the daemon read what git changed now (POST /v1/refresh {git}): a
 * removed worktree is forgotten with its work before the next answer,
 * not at its next rescan. */
static void
refresh_git(struct client *cl)
{
    long status;
    json_t *reply = NULL;
    struct as_err e;
    client_call(cl, api_refresh_git(), &status, &reply, &e);
    if (reply)
        json_decref(reply);
}

/*
 * Whether to leave out the file src, the settings file rel of the worktree
 * at top: the main checkout's .claude/settings.local.json when it runs
 * airspace's hooks. Claude Code reads that very file for a session in any
 * worktree, so a copy adds nothing, and it would keep the hooks running
 * there after `airspace init --remove`.
 */
static bool
copy_skip(const char *top, const char *rel, const char *src)
{
    if (strcmp(rel, ".claude/settings.local.json"))
        return false;
    /* only the main checkout has a .git directory; a linked one a file */
    char *git = xasprintf("%s/.git", top), *buf = NULL;
    struct stat st;
    size_t len;
    bool skip = false;
    if (stat(git, &st) == 0 && S_ISDIR(st.st_mode) &&
        file_read_max(src, 16u << 20, false, &buf, &len) == 0) {
        skip = init_has_hooks(buf, INIT_CLAUDE_CODE);
        free(buf);
    }
    free(git);
    return skip;
}

/*
 * Copy into the new worktree to each client setting (the settings files
 * `airspace init` writes, broker_client_config_files) the current worktree
 * has (top) and the new one lacks (not committed, so not checked out), so
 * that a client started there has the same hooks and MCP server (but
 * copy_skip()). Returns the paths copied (a JSON array).
 */
json_t *
copy_client_config(const char *top, const char *to)
{
    json_t *copied = json_array();
    for (size_t i = 0; broker_client_config_files[i]; i++) {
        const char *rel = broker_client_config_files[i];
        char *src = xasprintf("%s/%s", top, rel);
        if (copy_skip(top, rel, src)) {
            free(src);
            continue;
        }
        char *dst = xasprintf("%s/%s", to, rel);
        struct stat sb, db;
        char *buf;
        size_t len;
        if (stat(src, &sb) == 0 && S_ISREG(sb.st_mode) &&
            lstat(dst, &db) != 0 && errno == ENOENT &&
            file_read_max(src, 16u << 20, false, &buf, &len) == 0) {
            char *slash = strrchr(dst, '/');
            *slash = '\0';
            mkdir(dst, 0755); /* .claude, .codex, .gemini (or the top) */
            *slash = '/';
            int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL, sb.st_mode & 0777);
            if (fd >= 0) {
                bool ok = write(fd, buf, len) == (ssize_t)len;
                if (close(fd) == 0 && ok)
                    json_array_append_new(copied, json_string(rel));
                else
                    unlink(dst);
            }
            free(buf);
        }
        free(src);
        free(dst);
    }
    return copied;
}

/* Whether Gemini CLI started in the worktree at top runs airspace's hooks:
 * then it must be started there, not below (init_gemini_note()). */
static bool
gemini_wired(const char *top)
{
    char *path = xasprintf("%s/.gemini/settings.json", top), *buf = NULL;
    size_t len;
    bool wired = false;
    if (file_read_max(path, 16u << 20, false, &buf, &len) == 0) {
        wired = init_has_hooks(buf, INIT_GEMINI);
        free(buf);
    }
    free(path);
    return wired;
}

static int
agent_new(int argc, char **argv)
{
    struct aopts o;
    int rc = parse(argc, argv, &o, "agent new");
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    const char *name = argv[optind];
    if (!worktree_name_valid(name))
        return dcli_usage("agent new",
            "'%s' cannot name an agent: use 1 to %d letters, digits, '.', "
            "'_' or '-' (not starting with '.' or '-')",
            name, WORKTREE_NAME_MAX);
    struct client cl;
    bool have;
    if ((rc = daemon_open(&cl, o.no_start, "agent new", &have)))
        return rc;
    if (have) {
        json_t *reply = agents_list(&cl);
        size_t i;
        json_t *a;
        json_array_foreach(json_object_get(reply, "agents"), i, a)
        {
            const char *id = jstr(a, "id"), *st = jstr(a, "status");
            if (!id || strcmp(id, name) || (st && !strcmp(st, "exited")))
                continue;
            const char *wt = jstr(a, "worktree");
            fprintf(stderr,
                "airspace agent new: agent '%s' already flies (%s%s%s): "
                "pick another name\n",
                name, st ? st : "active", wt ? ", in " : "", wt ? wt : "");
            json_decref(reply);
            client_close(&cl);
            return CLI_EXIT_FAIL;
        }
        if (reply)
            json_decref(reply);
    }
    struct worktree_info w;
    struct as_err e;
    if ((rc = worktree_new(".", name, o.base, o.dir, &w, &e))) {
        fprintf(stderr, "airspace agent new: %s\n", e.msg);
        if (have)
            client_close(&cl);
        return cli_exit_for(rc);
    }
    /* the clients' settings the worktree did not get from git */
    struct init_git g;
    json_t *copied;
    if (init_git_resolve(&g, &e) == 0) {
        copied = copy_client_config(g.toplevel, w.path);
        init_git_release(&g);
    } else {
        copied = json_array();
    }
    bool registered = false;
    if (have) {
        json_t *body = json_pack("{s:s, s:s, s:s, s:s}", "id", name, "client",
            "airspace", "worktree", w.path, "branch", w.branch);
        long status;
        json_t *reply = NULL;
        if (client_call(&cl, api_register(body), &status, &reply, &e) == 0 &&
            status == 200)
            registered = true;
        else
            fprintf(stderr,
                "airspace agent new: the worktree is made, but the daemon did "
                "not register '%s': %s\n",
                name, reply ? client_error_message(reply) : e.msg);
        if (reply)
            json_decref(reply);
        client_close(&cl);
    }
    if (o.json) {
        json_t *out = json_pack("{s:s, s:s, s:s, s:s, s:b, s:O}", "agent", name,
            "worktree", w.path, "branch", w.branch, "base", w.base,
            "registered", registered, "copied", copied);
        dcli_print_json(out);
        json_decref(out);
    } else {
        fprintf(stderr,
            "airspace agent new: agent '%s' on branch '%s' from %.7s%s\n", name,
            w.branch, w.base, registered ? ", registered" : "");
        size_t k;
        json_t *c;
        json_array_foreach(copied, k, c)
        {
            fprintf(stderr,
                "airspace agent new: copied %s (not committed) into the "
                "worktree\n",
                json_string_value(c));
        }
        if (gemini_wired(w.path)) {
            char *note = init_gemini_note(w.path);
            fprintf(stderr, "airspace agent new: %s\n", note);
            free(note);
        }
        printf("%s\n", w.path);
    }
    json_decref(copied);
    worktree_info_release(&w);
    return CLI_EXIT_OK;
}

static int
agent_rm(int argc, char **argv)
{
    struct aopts o;
    int rc = parse(argc, argv, &o, "agent rm");
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    const char *name = argv[optind];
    struct client cl;
    bool have;
    if ((rc = daemon_open(&cl, o.no_start, "agent rm", &have)))
        return rc;
    json_t *agents = have ? agents_list(&cl) : NULL;
    const char *hint = NULL;
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(agents, "agents"), i, a)
    {
        if (jstr(a, "id") && !strcmp(jstr(a, "id"), name))
            hint = jstr(a, "worktree");
    }
    struct worktree_info w;
    struct as_err e;
    if ((rc = worktree_remove(".", name, hint, o.force, &w, &e))) {
        fprintf(stderr, "airspace agent rm: %s\n", e.msg);
        if (agents)
            json_decref(agents);
        if (have)
            client_close(&cl);
        return cli_exit_for(rc);
    }
    /* the daemon reads at once that the worktree and its work are gone
     * (its agents are not parked with them), then every agent that flew in
     * it has left */
    if (have)
        refresh_git(&cl);
    json_t *exited = json_array();
    json_array_foreach(json_object_get(agents, "agents"), i, a)
    {
        const char *id = jstr(a, "id"), *wt = jstr(a, "worktree"),
                   *st = jstr(a, "status");
        if (!id || (st && !strcmp(st, "exited")) ||
            (strcmp(id, name) && (!wt || strcmp(wt, w.path))))
            continue;
        long status;
        json_t *reply = NULL;
        if (client_call(&cl, api_exit(id), &status, &reply, &e) == 0 &&
            status == 200)
            json_array_append_new(exited, json_string(id));
        if (reply)
            json_decref(reply);
    }
    if (agents)
        json_decref(agents);
    if (have)
        client_close(&cl);
    if (o.json) {
        json_t *out = json_pack("{s:s, s:s, s:o, s:b, s:o, s:b}", "agent", name,
            "worktree", w.path, "branch",
            w.branch ? json_string(w.branch) : json_null(), "branchDeleted",
            w.branch_deleted, "exited", exited, "forced", w.forced);
        if (w.branch_kept)
            json_object_set_new(out, "branchKept", json_string(w.branch_kept));
        dcli_print_json(out);
        json_decref(out);
    } else {
        printf("removed worktree %s%s\n", w.path,
            w.forced ? " (uncommitted changes discarded)" : "");
        if (w.branch_deleted)
            printf("deleted branch %s (was %.7s)\n", w.branch, w.base);
        else if (w.branch)
            printf("kept branch %s: %s\n", w.branch,
                w.branch_kept ? w.branch_kept : "not merged");
        json_decref(exited);
    }
    worktree_info_release(&w);
    return CLI_EXIT_OK;
}

static int
agent_prune(int argc, char **argv)
{
    bool json = false, dry_run = false, no_start = false;
    const struct opt table[] = {
        OPT_JSON(&json),
        { .name = "dry-run", .kind = OPT_FLAG, .target = &dry_run },
        OPT_NO_START(&no_start),
        OPT_TABLE_END,
    };
    int rc = opts_parse(argc, argv, table, "agent prune", usage, 0);
    if (rc)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if (optind < argc)
        return dcli_usage("agent prune", "takes no NAME");
    struct worktree_info *v = NULL;
    size_t n = 0;
    struct as_err e;
    /* the daemon it may start would not start: prune nothing */
    if (!dry_run && !no_start && dcli_start_check(".", &e)) {
        fprintf(stderr, "airspace agent prune: %s\n", e.msg);
        return CLI_EXIT_USAGE;
    }
    rc = worktree_prune_agents(".", dry_run, &v, &n, &e);
    if (rc) {
        fprintf(stderr, "airspace agent prune: %s\n", e.msg);
        return cli_exit_for(rc);
    }
    /* the agents that flew in them have left */
    json_t *exited = json_array();
    struct client cl;
    bool have = false;
    /* (a configuration gone bad since the check above: said, not told) */
    if (n && !dry_run)
        daemon_open(&cl, no_start, "agent prune", &have);
    if (have) {
        refresh_git(&cl); /* as for rm */
        json_t *agents = agents_list(&cl);
        size_t i;
        json_t *a;
        json_array_foreach(json_object_get(agents, "agents"), i, a)
        {
            const char *id = jstr(a, "id"), *wt = jstr(a, "worktree"),
                       *st = jstr(a, "status");
            bool hit = false;
            for (size_t k = 0; k < n && id && wt; k++)
                hit = hit || !strcmp(wt, v[k].path);
            if (!hit || (st && !strcmp(st, "exited")))
                continue;
            long status;
            json_t *reply = NULL;
            if (client_call(&cl, api_exit(id), &status, &reply, &e) == 0 &&
                status == 200)
                json_array_append_new(exited, json_string(id));
            if (reply)
                json_decref(reply);
        }
        if (agents)
            json_decref(agents);
        client_close(&cl);
    }
    json_t *out = json_array();
    for (size_t k = 0; k < n; k++) {
        struct worktree_info *w = &v[k];
        json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:b}", "agent", w->name,
            "worktree", w->path, "branch", w->branch, "tip",
            w->base[0] ? json_string(w->base) : json_null(), "branchDeleted",
            w->branch_deleted);
        if (w->branch_kept)
            json_object_set_new(o, "branchKept", json_string(w->branch_kept));
        json_array_append_new(out, o);
        if (json)
            continue;
        printf("%s worktree %s of agent %s\n",
            dry_run ? "would prune" : "pruned", w->path, w->name);
        if (w->branch_deleted)
            printf("deleted branch %s (was %.7s)\n", w->branch, w->base);
        else if (!w->base[0])
            printf("branch %s is gone already\n", w->branch);
        else if (!dry_run)
            printf("kept branch %s: %s\n", w->branch,
                w->branch_kept ? w->branch_kept : "not merged");
    }
    if (json) {
        json_t *o = json_pack("{s:o, s:o, s:b}", "pruned", out, "exited",
            exited, "dry_run", dry_run);
        dcli_print_json(o);
        json_decref(o);
    } else {
        if (!n)
            printf("no agent worktree to prune\n");
        json_decref(out);
        json_decref(exited);
    }
    for (size_t k = 0; k < n; k++)
        worktree_info_release(&v[k]);
    free(v);
    return CLI_EXIT_OK;
}

int
cmd_agent(int argc, char **argv)
{
    static const struct opt_sub subs[] = {
        { "new", agent_new },
        { "rm", agent_rm },
        { "prune", agent_prune },
        { "list", cmd_agents },
        { NULL, NULL },
    };
    return opts_dispatch(argc, argv, subs, "agent", usage);
}

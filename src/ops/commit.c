/*
 * commit.c - a scoped commit (ops.h): commit only an agent's own files,
 * without the index lock (git/commit.h), after asking the daemon whose
 * files they are and whether someone else holds them.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "ops/ops.h"
#include "util/exitcode.h"
#include "client/session.h"
#include "client/client.h"
#include "git/commit.h"
#include "git/paths.h"
#include "util/file.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* ---- the daemon ---- */

static const char *
jstr(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static bool
flies(json_t *a)
{
    const char *st = jstr(a, "status");
    return !st || strcmp(st, "exited");
}

static void post_quiet(struct client *cl, struct api_req r);

/* The daemon's agents (with files); NULL with *error on failure. */
static json_t *
get_agents(struct client *cl, char **error, int *code)
{
    long status;
    json_t *reply = NULL;
    struct as_err e;
    if (client_call(cl, api_agents(true), &status, &reply, &e)) {
        *error = xasprintf("the daemon stopped answering: %s", e.msg);
        *code = CLI_EXIT_UNREACHABLE;
        return NULL;
    }
    json_t *agents = json_object_get(reply, "agents");
    if (status != 200 || !json_is_array(agents)) {
        *error = xasprintf(
            "cannot list the agents: %s", client_error_message(reply));
        *code = client_exit_code(status) ? client_exit_code(status)
                                         : CLI_EXIT_ERROR;
        if (reply)
            json_decref(reply);
        return NULL;
    }
    json_incref(agents);
    json_decref(reply);
    return agents;
}

/*
 * Tell the daemon about the commit made (POST /v1/agents/{id}/commits: the
 * ledger records it and the agent's working set follows at once); when it
 * does not take it, ask for a rescan instead, as git's post-commit hook
 * does, with a note.
 */
static void
record_commit(
    struct client *cl, const char *agent, json_t *result, struct strbuf *notes)
{
    json_t *body = json_pack("{s:O, s:O, s:O, s:O, s:O}", "commit",
        json_object_get(result, "commit"), "branch",
        json_object_get(result, "branch"), "parent",
        json_object_get(result, "parent"), "files",
        json_object_get(result, "files"), "subject",
        json_object_get(result, "subject"));
    if (!json_string_length(json_object_get(body, "subject")))
        json_object_del(body, "subject");
    long status = 0, saved = cl->timeout_ms;
    json_t *reply = NULL;
    struct as_err e;
    cl->timeout_ms = 10000;
    int rc = client_call(cl, api_commit_made(agent, body), &status, &reply, &e);
    cl->timeout_ms = saved;
    if (rc || status != 200) {
        strbuf_addf(notes, "the daemon did not record this commit (%s)\n",
            rc ? e.msg : client_error_message(reply));
        post_quiet(cl, api_refresh_git());
    }
    if (reply)
        json_decref(reply);
}

static void
post_quiet(struct client *cl, struct api_req r)
{
    long status, saved = cl->timeout_ms;
    json_t *reply = NULL;
    struct as_err e;
    cl->timeout_ms = 3000;
    client_call(cl, r, &status, &reply, &e);
    cl->timeout_ms = saved;
    if (reply)
        json_decref(reply);
}

/* The person at the keyboard of worktree top (api_person): a new string,
 * or NULL with *error. */
static char *
person_at(struct client *cl, const char *top, char **error)
{
    long status;
    json_t *reply = NULL;
    struct as_err e;
    char *id = NULL;
    if (!client_call(cl, api_person(top), &status, &reply, &e) &&
        status == 200 && jstr(reply, "id"))
        id = xstrdup(jstr(reply, "id"));
    else
        *error = xasprintf("cannot act as the person at '%s': %s", top,
            reply ? client_error_message(reply) : e.msg);
    if (reply)
        json_decref(reply);
    return id;
}

/*
 * Who commits, and whether the tree is shared: *me (borrowed from agents)
 * and *shared. Returns 0 or an exit code with *error.
 */
static int
find_me(struct client *cl, const char *want, const char *top, json_t **agents,
    json_t **me, bool *shared, char **error)
{
    int code = 0;
    char *person = NULL; /* the person at top, when a person commits */
    *me = NULL;
    *shared = false;
    for (int round = 0; round < 2 && !*me; round++) {
        if (round) /* a worktree made a moment ago: let the daemon see it */
            post_quiet(cl, api_refresh_git());
        if (*agents)
            json_decref(*agents);
        if (!(*agents = get_agents(cl, error, &code)))
            goto out;
        size_t i;
        json_t *a;
        if (want) {
            json_array_foreach(*agents, i, a)
            {
                const char *id = jstr(a, "id");
                if (id && !strcmp(id, want))
                    *me = a;
            }
            if (!*me && round) {
                *error = xasprintf("unknown agent '%s': the daemon knows no "
                                   "such agent (see airspace agents)",
                    want);
                code = CLI_EXIT_USAGE;
                goto out;
            }
            continue;
        }
        /* a person's commit: the one agent there a person acts as, never
         * a running session's; where only those fly, the person at the
         * keyboard, there from the next round */
        bool at_person;
        const char *id = session_person_agent(*agents, top, &at_person, error);
        if (*error) {
            code = CLI_EXIT_USAGE;
            goto out;
        }
        if (at_person && !round) {
            if (!(person = person_at(cl, top, error))) {
                code = CLI_EXIT_UNREACHABLE;
                goto out;
            }
            want = person;
            continue;
        }
        json_array_foreach(*agents, i, a)
        {
            if (id && jstr(a, "id") && !strcmp(jstr(a, "id"), id))
                *me = a;
        }
        if (!*me && round) {
            *error = xasprintf("no agent flies in '%s': name one with "
                               "--agent or AIRSPACE_AGENT",
                top);
            code = CLI_EXIT_USAGE;
            goto out;
        }
    }
    const char *wt = jstr(*me, "worktree");
    if (wt && !file_same_dir(wt, top)) {
        *error = xasprintf("agent '%s' flies in '%s', not in this working "
                           "tree '%s': commit from there",
            jstr(*me, "id"), wt, top);
        code = CLI_EXIT_USAGE;
        goto out;
    }
    /* the daemon says whether another agent (or the human) flies in its
     * worktree; an agent with no worktree of its own is a guest in this
     * one, shared when anyone else flies here */
    *shared = json_is_true(json_object_get(*me, "shared"));
    size_t i;
    json_t *a;
    json_array_foreach(*agents, i, a)
    {
        if (!wt && a != *me && flies(a) &&
            file_same_dir(jstr(a, "worktree"), top))
            *shared = true;
    }
out:
    free(person);
    return code;
}

/* The files agent me reported (shared tree): the daemon's `reported`
 * paths (its working set leaves out those as in the base, or not yet seen
 * changed), else its files. New array of new strings. */
static char **
reported_files(json_t *me, size_t *n)
{
    size_t i, k = 0, alloc = 0;
    char **v = NULL;
    json_t *f;
    json_t *reported = json_object_get(me, "reported");
    *n = 0;
    json_array_foreach(reported ? reported : json_object_get(me, "files"), i, f)
    {
        const char *p[2] = { json_is_string(f) ? json_string_value(f)
                                               : jstr(f, "path"),
            jstr(f, "newPath") };
        for (int j = 0; j < 2; j++) {
            char *norm = NULL;
            if (!p[j] || path_normalize(p[j], NULL, &norm) || !*norm) {
                free(norm);
                continue;
            }
            ALLOC_GROW(v, k + 1, alloc);
            v[k++] = norm;
        }
    }
    *n = k;
    return v;
}

/* Take the agent clients' settings out of v[0..*n) (freed): the tooling's
 * copies, never part of a commit that names no path. Returns how many. */
static size_t
drop_client_config(char **v, size_t *n)
{
    size_t k = 0, dropped = 0;
    for (size_t i = 0; i < *n; i++) {
        if (broker_client_config(v[i])) {
            free(v[i]);
            dropped++;
        } else {
            v[k++] = v[i];
        }
    }
    *n = k;
    return dropped;
}

/*
 * A path as given, relative to dir (or absolute), as a normalised path in
 * the working tree top: 0, or -1 when it lies outside.
 */
static int
repo_path(const char *given, const char *dir_real, const char *top, char **out)
{
    *out = NULL;
    if (given[0] == '/') {
        /* the parent's real path: a symbolic link itself stays a path */
        char *copy = xstrdup(given);
        char *slash = strrchr(copy, '/');
        char *resolved = NULL;
        *slash = '\0';
        char *parent = realpath(*copy ? copy : "/", NULL);
        if (parent)
            resolved = xasprintf("%s/%s", parent, slash + 1);
        free(parent);
        free(copy);
        int rc = path_normalize(resolved ? resolved : given, top, out);
        free(resolved);
        return rc ? -1 : 0;
    }
    size_t tl = strlen(top);
    const char *prefix = "";
    if (!strncmp(dir_real, top, tl) && dir_real[tl] == '/')
        prefix = dir_real + tl + 1;
    return path_join(prefix, given, out) ? -1 : 0;
}

/* Ask the daemon whether other agents hold the files. */
static int
check_locks(struct client *cl, const char *me, const struct commit_file *files,
    size_t n, bool force, struct strbuf *notes, char **error)
{
    struct strbuf held = STRBUF_INIT;
    size_t nheld = 0;
    for (size_t i = 0; i < n; i++) {
        long status;
        json_t *reply = NULL;
        struct as_err e;
        int rc = client_call(cl, api_lock_check(me, files[i].path, "shared"),
            &status, &reply, &e);
        if (rc) {
            free(held.s);
            *error = xasprintf("the daemon stopped answering while checking "
                               "locks: %s; nothing committed",
                e.msg);
            return CLI_EXIT_UNREACHABLE;
        }
        if (status != 200) {
            free(held.s);
            *error = xasprintf("cannot check the locks on '%s': %s; nothing "
                               "committed",
                files[i].path, client_error_message(reply));
            if (reply)
                json_decref(reply);
            return client_exit_code(status) ? client_exit_code(status)
                                            : CLI_EXIT_ERROR;
        }
        if (json_is_false(json_object_get(reply, "free"))) {
            json_t *h = json_object_get(reply, "holder");
            const char *reason = jstr(h, "reason");
            strbuf_addf(force ? notes : &held,
                "%s'%s' is held by %s (%s %s '%s', %lld s left%s%s)%s\n",
                force ? "committing anyway (--force): " : "", files[i].path,
                jstr(h, "holder") ? jstr(h, "holder") : "?",
                jstr(h, "mode") ? jstr(h, "mode") : "?",
                jstr(h, "kind") ? jstr(h, "kind") : "lock",
                jstr(h, "pattern") ? jstr(h, "pattern") : "?",
                (long long)json_integer_value(
                    json_object_get(h, "expiresInMs")) /
                    1000,
                reason ? ", reason: " : "", reason ? reason : "", "");
            nheld++;
        }
        if (reply)
            json_decref(reply);
    }
    if (nheld && !force) {
        *error = xasprintf("%scommit refused: %zu file%s held by another "
                           "agent; nothing committed (ask the holder, wait, "
                           "or use --force)",
            held.s, nheld, nheld == 1 ? " is" : "s are");
        free(held.s);
        return CLI_EXIT_FAIL;
    }
    free(held.s);
    return 0;
}

int
scoped_commit_run(const struct scoped_commit *sc, json_t **result,
    char **notes_out, char **error)
{
    *result = NULL;
    *notes_out = NULL;
    *error = NULL;
    struct strbuf notes = STRBUF_INIT;
    struct commit_tree *t = NULL;
    json_t *agents = NULL, *me = NULL;
    char **specs = NULL;
    size_t nspecs = 0;
    struct commit_file *files = NULL;
    size_t nfiles = 0;
    struct commit_result res;
    memset(&res, 0, sizeof(res));
    char *dir_real = NULL;
    struct as_err e;
    int code = 0, rc;
    bool shared = false;
    const char *agent = sc->agent;
    if (!agent && getenv("AIRSPACE_AGENT") && *getenv("AIRSPACE_AGENT"))
        agent = getenv("AIRSPACE_AGENT");

    if (!sc->message || !*sc->message) {
        *error = xstrdup("a commit message is required (-m MESSAGE)");
        return CLI_EXIT_USAGE;
    }
    if ((rc = commit_open(sc->dir, &t, &e))) {
        *error = xstrdup(e.msg);
        return cli_exit_for(rc);
    }
    const char *top = commit_toplevel(t);
    if (!agent) /* the client session running us */
        agent = session_cli_agent(top);
    dir_real = realpath(sc->dir, NULL);
    specs = xcalloc(sc->npaths + 1, sizeof(*specs));
    for (size_t i = 0; i < sc->npaths; i++) {
        char *norm;
        if (repo_path(sc->paths[i], dir_real ? dir_real : top, top, &norm)) {
            *error = xasprintf("'%s' is outside the repository ('%s'); "
                               "nothing committed",
                sc->paths[i], top);
            code = CLI_EXIT_USAGE;
            goto out;
        }
        specs[nspecs++] = norm;
    }

    if (sc->cl) {
        if ((code = find_me(sc->cl, agent, top, &agents, &me, &shared, error)))
            goto out;
        agent = jstr(me, "id");
    } else {
        strbuf_addf(&notes,
            "the daemon cannot be reached (%s): no lock check, and no record "
            "of this commit\n",
            sc->no_daemon ? sc->no_daemon : "not asked");
        if (!nspecs && commit_is_main(t)) {
            *error = xasprintf(
                "without the daemon, airspace cannot tell which changes in "
                "the main working tree '%s' are yours (other agents may "
                "share it): name the PATHs to commit",
                top);
            code = CLI_EXIT_UNREACHABLE;
            goto out;
        }
    }

    unsigned flags = COMMIT_SELECT_STRICT;
    size_t settings = 0; /* the clients' settings a no-path commit left out */
    if (!nspecs && shared) {
        free(specs);
        specs = reported_files(me, &nspecs);
        flags = 0;
        settings = drop_client_config(specs, &nspecs);
        if (!nspecs) {
            *error = xasprintf("agent '%s' reported no edits in this shared "
                               "working tree: nothing to commit (name the "
                               "PATHs)",
                agent);
            code = CLI_EXIT_FAIL;
            goto out;
        }
    } else if (!nspecs) {
        free(specs);
        specs = NULL;
        if ((rc = commit_changed_paths(t, &specs, &nspecs, &e))) {
            *error = xstrdup(e.msg);
            code = cli_exit_for(rc);
            goto out;
        }
        flags = 0;
        settings = drop_client_config(specs, &nspecs);
    }
    if ((rc = commit_select(t, specs, nspecs, flags, &files, &nfiles, &e))) {
        *error = xasprintf("%s; nothing committed", e.msg);
        code = cli_exit_for(rc);
        goto out;
    }
    if (!nfiles) {
        *error = xasprintf("nothing to commit: %s%s",
            shared ? "the files this agent reported are as in HEAD"
                   : "the working tree is as in HEAD",
            settings ? " but for the agent clients' settings (name them to "
                       "commit them)"
                     : "");
        code = CLI_EXIT_FAIL;
        goto out;
    }
    if (sc->cl && (code = check_locks(
                       sc->cl, agent, files, nfiles, sc->force, &notes, error)))
        goto out;

    struct commit_options o;
    memset(&o, 0, sizeof(o));
    o.message = sc->message;
    if ((rc = commit_create(t, files, nfiles, &o, &res, &e))) {
        *error = xstrdup(e.msg);
        code = cli_exit_for(rc);
        goto out;
    }
    if (res.index_note)
        strbuf_addf(&notes, "%s\n", res.index_note);

    json_t *jf = json_array();
    for (size_t i = 0; i < nfiles; i++)
        json_array_append_new(
            jf, json_pack("{s:s, s:s}", "path", files[i].path, "status",
                    commit_status_name(files[i].status)));
    *result = json_pack("{s:s, s:o, s:o, s:o, s:I, s:b, s:o, s:s}", "commit",
        res.commit, "branch",
        res.branch ? json_string(res.branch) : json_null(), "parent",
        res.root ? json_null() : json_string(res.parent), "files", jf,
        "retries", (json_int_t)res.retries, "index_updated", res.index_updated,
        "agent", agent ? json_string(agent) : json_null(), "subject",
        res.subject ? res.subject : "");
    if (res.index_note)
        json_object_set_new(*result, "index_note", json_string(res.index_note));
    if (sc->cl)
        record_commit(sc->cl, agent, *result, &notes);
out:
    commit_result_release(&res);
    commit_files_free(files, nfiles);
    strv_free(specs, nspecs);
    if (agents)
        json_decref(agents);
    free(dir_real);
    commit_close(t);
    *notes_out = notes.s;
    return code;
}

/* ---- the command ---- */

/*
 * land.c - a land (ops.h): merge an agent's branch into the integration
 * branch (git/land.h) after a speculative merge check and a scope check
 * against what the agent holds or declared in the daemon.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ops/ops.h"
#include "util/exitcode.h"
#include "client/client.h"
#include "git/fleet.h"
#include "git/land.h"
#include "git/repo.h"
#include "git/worktree.h"
#include "util/file.h"
#include "util/glob.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *
jstr(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* GET path; the member key of the reply (an array; json_decref it), or
 * NULL with *why. */
static json_t *
get_array(struct client *cl, struct api_req r, const char *key, char **why)
{
    long status;
    json_t *reply = NULL;
    struct as_err e;
    if (client_call(cl, r, &status, &reply, &e)) {
        *why = xstrdup(e.msg);
        return NULL;
    }
    json_t *v = json_object_get(reply, key);
    if (status != 200 || !json_is_array(v)) {
        *why = xstrdup(client_error_message(reply));
        if (reply)
            json_decref(reply);
        return NULL;
    }
    json_incref(v);
    json_decref(reply);
    return v;
}

static void
post_quiet(struct client *cl, struct api_req r, bool *ok)
{
    long status = 0, saved = cl->timeout_ms;
    json_t *reply = NULL;
    struct as_err e;
    cl->timeout_ms = 10000;
    int rc = client_call(cl, r, &status, &reply, &e);
    cl->timeout_ms = saved;
    if (ok)
        *ok = !rc && status == 200;
    if (reply)
        json_decref(reply);
}

/*
 * Which branch to land and whose it is: *branch (new), *agent (new, or
 * NULL: nobody's) and *known (the daemon knows the agent). Returns 0 or
 * an exit code with *error (new string).
 */
static int
resolve_source(const struct land_request *o, json_t *agents, const char *target,
    char **branch, char **agent, bool *known, char **error)
{
    size_t i;
    json_t *a;
    *branch = *agent = NULL;
    *known = false;
    if (o->name) {
        json_array_foreach(agents, i, a)
        {
            if (jstr(a, "id") && !strcmp(jstr(a, "id"), o->name)) {
                *known = true;
                if (jstr(a, "branch"))
                    *branch = xstrdup(jstr(a, "branch"));
            }
        }
        *agent = xstrdup(o->name);
        if (!*branch)
            *branch = xasprintf(WORKTREE_BRANCH_PREFIX "%s", o->name);
        return 0;
    }
    if (o->branch) {
        *branch = xstrdup(o->branch);
        json_t *hit = NULL;
        json_array_foreach(agents, i, a)
        {
            const char *b = jstr(a, "branch"), *st = jstr(a, "status");
            if (b && !strcmp(b, o->branch) &&
                (!hit || !st || strcmp(st, "exited")))
                hit = a;
        }
        size_t pl = strlen(WORKTREE_BRANCH_PREFIX);
        if (hit) {
            *agent = xstrdup(jstr(hit, "id"));
            *known = true;
        } else if (!strncmp(o->branch, WORKTREE_BRANCH_PREFIX, pl) &&
                   o->branch[pl]) {
            *agent = xstrdup(o->branch + pl);
        }
        return 0;
    }
    /* this worktree: its branch, and the agent flying in it */
    char *top = NULL;
    struct as_err e;
    int rc = land_here(o->dir, &top, branch, &e);
    if (rc == AS_ENOENT) {
        *error = xstrdup("not in a working tree: name the agent (airspace "
                         "land NAME) or the branch (--branch)");
        goto usage;
    }
    if (rc) {
        *error = xasprintf("%s: name the agent or --branch", e.msg);
        goto usage;
    }
    if (!strcmp(*branch, target)) {
        *error = xasprintf("this working tree ('%s') is on '%s', the branch "
                           "to land on: name the agent to land (airspace "
                           "land NAME) or --branch",
            top, target);
        goto usage;
    }
    size_t n = 0;
    struct strbuf names = STRBUF_INIT;
    json_array_foreach(agents, i, a)
    {
        const char *st = jstr(a, "status");
        if ((st && !strcmp(st, "exited")) ||
            !file_same_dir(jstr(a, "worktree"), top) || !jstr(a, "id"))
            continue;
        strbuf_addf(&names, "%s%s", n++ ? ", " : "", jstr(a, "id"));
        free(*agent);
        *agent = xstrdup(jstr(a, "id"));
        *known = true;
    }
    if (n > 1) {
        *error =
            xasprintf("several agents fly in '%s' (%s): name the one to land",
                top, names.s);
        free(names.s);
        goto usage;
    }
    free(names.s);
    size_t pl = strlen(WORKTREE_BRANCH_PREFIX);
    if (!*agent && !strncmp(*branch, WORKTREE_BRANCH_PREFIX, pl))
        *agent = xstrdup(*branch + pl);
    free(top);
    return 0;
usage:
    free(top);
    free(*branch);
    free(*agent);
    *branch = *agent = NULL;
    return CLI_EXIT_USAGE;
}

/* Whether the daemon's agents say agent's session is over. */
static bool
exited(json_t *agents, const char *agent)
{
    size_t i;
    json_t *a;
    json_array_foreach(agents, i, a)
    {
        if (jstr(a, "id") && !strcmp(jstr(a, "id"), agent))
            return jstr(a, "status") && !strcmp(jstr(a, "status"), "exited");
    }
    return false;
}

/* Whether one of patterns covers path. */
static bool
covered(json_t *patterns, const char *path)
{
    size_t i;
    json_t *p;
    json_array_foreach(patterns, i, p)
    {
        if (json_is_string(p) && glob_match(json_string_value(p), path))
            return true;
    }
    return false;
}

/* The fleet agent named agent in the fleet file of the repository at
 * dir (git/fleet.h), read into f (release it with fleet_release() when
 * it is not NULL), or NULL. */
static const struct fleet_agent *
fleet_agent_of(const char *dir, const char *agent, struct fleet *f)
{
    struct repo *r = NULL;
    struct as_err e;
    memset(f, 0, sizeof(*f));
    if (repo_open(dir, &r, &e) || !repo_main_workdir(r)) {
        repo_free(r);
        return NULL;
    }
    char *path = xasprintf("%s/.airspace/fleet", repo_main_workdir(r));
    repo_free(r);
    int rc = fleet_read(path, f, &e);
    free(path);
    return rc ? NULL : fleet_find(f, agent);
}

/*
 * The scope check: the files of plan that none of agent's locks, claims
 * or live intents covers, into out (a JSON array of strings). A fleet
 * agent's lanes count as its intents: `fleet up` declares them, but they
 * go when its session is over (its command exited, `fleet down`), while
 * its work waits to be landed. Returns 0 or an exit code with *error
 * (new string).
 */
static int
scope_check(struct client *cl, const char *dir, const char *agent,
    const struct land_plan *p, json_t *out, char **error)
{
    char *why = NULL;
    json_t *locks = get_array(cl, api_locks(agent), "locks", &why);
    json_t *intents =
        locks ? get_array(cl, api_intents(agent), "intents", &why) : NULL;
    if (!locks || !intents) {
        *error = xasprintf("cannot read the locks and intents of '%s' from "
                           "the daemon: %s; nothing landed",
            agent, why ? why : "?");
        free(why);
        if (locks)
            json_decref(locks);
        return CLI_EXIT_UNREACHABLE;
    }
    json_t *pats = json_array();
    size_t i, j;
    json_t *x, *f;
    json_array_foreach(locks, i, x)
    {
        if (jstr(x, "holder") && !strcmp(jstr(x, "holder"), agent) &&
            jstr(x, "pattern"))
            json_array_append(pats, json_object_get(x, "pattern"));
    }
    json_array_foreach(intents, i, x)
    {
        if (!jstr(x, "agent") || strcmp(jstr(x, "agent"), agent))
            continue;
        json_array_foreach(json_object_get(x, "files"), j, f)
            json_array_append(pats, f);
    }
    struct fleet fl;
    const struct fleet_agent *fa = fleet_agent_of(dir, agent, &fl);
    for (i = 0; i < p->nfiles; i++)
        if (!covered(pats, p->files[i]) &&
            !(fa && fa->nlanes && fleet_in_lane(fa, p->files[i])))
            json_array_append_new(out, json_string(p->files[i]));
    fleet_release(&fl);
    json_decref(pats);
    json_decref(locks);
    json_decref(intents);
    return 0;
}

/*
 * The lane check: a fleet agent (.airspace/fleet, git/fleet.h) with lanes
 * lands only files inside them, unless forced (then a note). The files
 * outside go to outside (a JSON array of strings), the agent's lanes to
 * *lanes (a new array, or left NULL for an agent without lanes), and for
 * each file in another fleet agent's lane, its owners to owners (an
 * object: path to an array of names). A refusal says what can be done: a
 * claim does not widen a lane; the change can move to the lane's owner.
 * 0, or CLI_EXIT_FAIL with *error.
 */
static int
lane_check(const char *dir, const char *agent, const struct land_plan *p,
    bool forced, const char *force, struct strbuf *notes, json_t *outside,
    json_t **lanes_out, json_t *owners, char **error)
{
    struct repo *r = NULL;
    struct as_err e;
    if (repo_open(dir, &r, &e) || !repo_main_workdir(r)) {
        repo_free(r);
        return 0;
    }
    char *path = xasprintf("%s/.airspace/fleet", repo_main_workdir(r));
    repo_free(r);
    struct fleet f;
    int rc = fleet_read(path, &f, &e);
    free(path);
    if (rc) {
        if (rc != AS_ENOENT)
            strbuf_addf(notes, "no lane check: %s\n", e.msg);
        return 0;
    }
    const struct fleet_agent *a = fleet_find(&f, agent);
    struct strbuf out = STRBUF_INIT, lanes = STRBUF_INIT, owned = STRBUF_INIT,
                  unowned = STRBUF_INIT;
    size_t n = 0, nowned = 0, nunowned = 0;
    for (size_t i = 0; a && a->nlanes && i < p->nfiles; i++) {
        if (fleet_in_lane(a, p->files[i]))
            continue;
        strbuf_addf(&out, "%s%s", n++ ? ", " : "", p->files[i]);
        json_array_append_new(outside, json_string(p->files[i]));
        json_t *who = json_array();
        for (size_t k = 0; k < f.nagents; k++)
            if (&f.agents[k] != a && f.agents[k].nlanes &&
                fleet_in_lane(&f.agents[k], p->files[i]))
                json_array_append_new(who, json_string(f.agents[k].name));
        if (json_array_size(who)) {
            strbuf_addf(&owned, "%s%s: ", nowned++ ? "; " : "", p->files[i]);
            size_t k;
            json_t *w;
            json_array_foreach(who, k, w)
            {
                strbuf_addf(
                    &owned, "%s'%s'", k ? ", " : "", json_string_value(w));
            }
            json_object_set_new(owners, p->files[i], who);
        } else {
            strbuf_addf(&unowned, "%s%s", nunowned++ ? ", " : "", p->files[i]);
            json_decref(who);
        }
    }
    if (a && a->nlanes) {
        *lanes_out = json_array();
        for (size_t k = 0; k < a->nlanes; k++) {
            strbuf_addf(&lanes, "%s%s", k ? " " : "", a->lanes[k]);
            json_array_append_new(*lanes_out, json_string(a->lanes[k]));
        }
    }
    int code = 0;
    if (n && !forced) {
        /* what works: not a claim (a lane is not widened by one) */
        struct strbuf how = STRBUF_INIT;
        if (nowned)
            strbuf_addf(&how,
                "move the change to the agent whose lane has it (%s), ",
                owned.s);
        if (nunowned)
            strbuf_addf(&how,
                "add %s to a lane in .airspace/fleet (no agent's lane has "
                "%s), ",
                unowned.s, nunowned == 1 ? "it" : "them");
        *error = xasprintf("fleet agent '%s' changes %zu file%s outside its "
                           "lane (%s): %s; nothing landed (a claim does not "
                           "widen a lane: %sor use %s)",
            agent, n, n == 1 ? "" : "s", lanes.s, out.s, how.s, force);
        free(how.s);
        code = CLI_EXIT_FAIL;
    } else if (n) {
        strbuf_addf(notes,
            "landing anyway (%s): outside agent '%s''s lane "
            "(%s): %s\n",
            force, agent, lanes.s, out.s);
    }
    free(out.s);
    free(lanes.s);
    free(owned.s);
    free(unowned.s);
    fleet_release(&f);
    return code;
}

/*
 * The lock check, as `airspace commit` makes it: the files of plan that
 * another agent holds exclusively (POST /v1/locks/check, mode shared) are
 * refused, one line each naming the holder, the lock and its time left,
 * unless forced (then a note each). Their paths go to held (a JSON array
 * of strings). 0, or an exit code with *error.
 */
static int
lock_check(struct client *cl, const char *agent, const struct land_plan *p,
    bool forced, const char *force, json_t *held, struct strbuf *notes,
    char **error)
{
    struct strbuf lines = STRBUF_INIT;
    for (size_t i = 0; i < p->nfiles; i++) {
        long status;
        json_t *reply = NULL;
        struct as_err e;
        if (client_call(cl, api_lock_check(agent, p->files[i], "shared"),
                &status, &reply, &e)) {
            *error = xasprintf("the daemon stopped answering while checking "
                               "locks: %s; nothing landed",
                e.msg);
            free(lines.s);
            return CLI_EXIT_UNREACHABLE;
        }
        if (status != 200) {
            *error = xasprintf("cannot check the locks on '%s': %s; nothing "
                               "landed",
                p->files[i], client_error_message(reply));
            if (reply)
                json_decref(reply);
            free(lines.s);
            return client_exit_code(status) ? client_exit_code(status)
                                            : CLI_EXIT_ERROR;
        }
        if (json_is_false(json_object_get(reply, "free"))) {
            json_t *h = json_object_get(reply, "holder");
            const char *reason = jstr(h, "reason");
            if (forced)
                strbuf_addf(notes, "landing anyway (%s): ", force);
            strbuf_addf(forced ? notes : &lines,
                "'%s' is held by %s (%s %s '%s', %lld s left%s%s)\n",
                p->files[i], jstr(h, "holder") ? jstr(h, "holder") : "?",
                jstr(h, "mode") ? jstr(h, "mode") : "?",
                jstr(h, "kind") ? jstr(h, "kind") : "lock",
                jstr(h, "pattern") ? jstr(h, "pattern") : "?",
                (long long)json_integer_value(
                    json_object_get(h, "expiresInMs")) /
                    1000,
                reason ? ", reason: " : "", reason ? reason : "");
            json_array_append_new(held, json_string(p->files[i]));
        }
        if (reply)
            json_decref(reply);
    }
    size_t n = json_array_size(held);
    int code = 0;
    if (n && !forced) {
        *error = xasprintf("%sland refused: %zu file%s held by another "
                           "agent; nothing landed (ask the holder, wait, or "
                           "use %s)",
            lines.s, n, n == 1 ? " is" : "s are", force);
        code = CLI_EXIT_FAIL;
    }
    free(lines.s);
    return code;
}

static json_t *
strv_json(char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

/* "a, b, c" of a JSON array of strings. */
static char *
join(json_t *a)
{
    struct strbuf sb = STRBUF_INIT;
    size_t i;
    json_t *s;
    json_array_foreach(a, i, s)
        strbuf_addf(&sb, "%s%s", i ? ", " : "", json_string_value(s));
    return sb.s ? sb.s : xstrdup("");
}

/* Tell the daemon: the land as a commit of the agent (the ledger's
 * git.commit; its working set read again), and a rescan (every agent's
 * base moved). */
/* A note when agent, whose branch the target already contains, has work
 * not committed: what the daemon counts in its working set then is only
 * that, and it is not landed. */
static void
note_uncommitted(json_t *agents, const char *agent, struct strbuf *notes)
{
    size_t i;
    json_t *a;
    json_array_foreach(agents, i, a)
    {
        const char *id = jstr(a, "id");
        if (!id || strcmp(id, agent))
            continue;
        json_int_t n = json_integer_value(json_object_get(a, "fileCount"));
        if (n > 0)
            strbuf_addf(notes,
                "agent '%s' has %lld uncommitted file%s: not landed until "
                "committed ('airspace commit')\n",
                agent, (long long)n, n == 1 ? "" : "s");
        return;
    }
}

static void
tell_daemon(struct client *cl, const char *agent, bool known,
    const struct land_plan *p, const struct land_result *res,
    const char *subject, struct strbuf *notes)
{
    bool ok = false;
    if (agent && known && res->nfiles) {
        json_t *files = json_array();
        for (size_t i = 0; i < res->nfiles && i < 100000; i++)
            json_array_append_new(
                files, json_pack("{s:s, s:s}", "path", res->files[i].path,
                           "status", commit_status_name(res->files[i].status)));
        json_t *body = json_pack("{s:s, s:s, s:s, s:o, s:s}", "commit",
            res->commit, "branch", p->target, "parent", res->parent, "files",
            files, "subject", subject);
        post_quiet(cl, api_commit_made(agent, body), &ok);
        if (!ok)
            strbuf_addf(notes, "the daemon did not record this land\n");
    }
    post_quiet(cl, api_refresh_git(), NULL);
}

int
land_run(const struct land_request *rq, json_t **result, char **notes_out,
    char **error)
{
    *result = NULL;
    *notes_out = *error = NULL;
    struct client *cl = rq->cl;
    const char *dir = rq->dir ? rq->dir : ".";
    const char *force = rq->tool ? "force" : "--force";
    struct as_err e;
    int code = 0, rc;
    long saved_timeout = cl ? cl->timeout_ms : 0;
    char *target = NULL, *branch = NULL, *agent = NULL;
    json_t *agents = NULL, *out_of_scope = json_array(), *held = json_array();
    json_t *outside_lane = json_array(), *lane_owners = json_object();
    json_t *lanes = NULL;
    struct strbuf notes = STRBUF_INIT;
    struct land_plan plan;
    struct land_result res;
    memset(&plan, 0, sizeof(plan));
    memset(&res, 0, sizeof(res));
    bool known = false;
    if (cl) {
        cl->timeout_ms = 10000;
        char *why = NULL;
        if (!(agents = get_array(cl, api_agents(false), "agents", &why))) {
            *error = xasprintf("cannot list the agents: %s", why);
            free(why);
            code = CLI_EXIT_UNREACHABLE;
            goto out;
        }
    }
    if (rq->into) {
        target = xstrdup(rq->into);
    } else {
        struct repo *r = NULL;
        if ((rc = repo_open(dir, &r, &e)) ||
            (rc = repo_integration_branch(r, &target, &e))) {
            *error = xstrdup(e.msg);
            repo_free(r);
            code = cli_exit_for(rc);
            goto out;
        }
        repo_free(r);
    }
    if ((code = resolve_source(
             rq, agents, target, &branch, &agent, &known, error)))
        goto out;
    if ((rc = land_prepare(dir, branch, target, &plan, &e))) {
        if (rc == AS_ENOENT && rq->name && !known && cl) {
            *error = xasprintf("unknown agent '%s': the daemon knows no such "
                               "agent, and there is no branch '%s'",
                rq->name, branch);
        } else if (rc == AS_ENOENT && rq->name && !known) {
            /* the daemon knows the agents' branches, and it is down */
            *error = xasprintf("no branch '%s', and the daemon that knows "
                               "which branch agent '%s' works on is not "
                               "running (start it, or name the branch with "
                               "--branch)",
                branch, rq->name);
            code = CLI_EXIT_UNREACHABLE;
            goto out;
        } else {
            *error = xstrdup(e.msg);
        }
        code = cli_exit_for(rc);
        goto out;
    }
    if (plan.nconflicts) {
        struct strbuf sb = STRBUF_INIT;
        for (size_t i = 0; i < plan.nconflicts; i++)
            strbuf_addf(&sb, "%s%s", i ? ", " : "", plan.conflicts[i]);
        *error = xasprintf("merging '%s' into '%s' conflicts in %zu path%s: "
                           "%s; nothing landed (merge '%s' into '%s' and "
                           "resolve, then land again)",
            branch, target, plan.nconflicts, plan.nconflicts == 1 ? "" : "s",
            sb.s, target, branch);
        free(sb.s);
        code = CLI_EXIT_FAIL;
        goto report;
    }
    /* the scope check */
    if (!plan.up_to_date) {
        if (!cl) {
            if (!rq->force) {
                *error = xasprintf("the daemon cannot be reached (%s): which "
                                   "files agent '%s' may land cannot be "
                                   "checked; nothing landed (start it, or "
                                   "use %s)",
                    rq->no_daemon ? rq->no_daemon : "?", agent ? agent : "?",
                    force);
                code = CLI_EXIT_UNREACHABLE;
                goto out;
            }
            strbuf_addf(&notes,
                "landing without a scope or lock check (%s): the daemon "
                "cannot be reached (%s)\n",
                force, rq->no_daemon ? rq->no_daemon : "?");
        } else if (!agent) {
            if (!rq->force) {
                *error = xasprintf("no agent owns branch '%s': its scope "
                                   "cannot be checked; nothing landed (name "
                                   "the agent, or use %s)",
                    branch, force);
                code = CLI_EXIT_FAIL;
                goto out;
            }
            strbuf_addf(&notes,
                "landing without a scope or lock check (%s): no agent "
                "owns '%s'\n",
                force, branch);
        } else {
            if (!known)
                strbuf_addf(
                    &notes, "the daemon does not know agent '%s'\n", agent);
            if ((code = scope_check(
                     cl, dir, agent, &plan, out_of_scope, error)))
                goto out;
            /* a fleet agent's lanes first: what it lands outside them a
             * claim does not make landable */
            if ((code = lane_check(dir, agent, &plan, rq->force, force, &notes,
                     outside_lane, &lanes, lane_owners, error)))
                goto report;
            size_t n = json_array_size(out_of_scope);
            if (n) {
                char *list = join(out_of_scope);
                if (!rq->force) {
                    *error = xasprintf("'%s' changes %zu file%s that agent "
                                       "'%s' holds no lock, claim or intent "
                                       "on: %s; nothing landed (%s%s)",
                        branch, n, n == 1 ? "" : "s", agent, list,
                        exited(agents, agent)
                            ? "its session is over, so it cannot claim "
                              "them: use "
                            : "claim them, or use ",
                        force);
                    free(list);
                    code = CLI_EXIT_FAIL;
                    goto report;
                }
                strbuf_addf(&notes,
                    "landing anyway (%s): outside agent '%s''s scope: "
                    "%s\n",
                    force, agent, list);
                free(list);
            }
            if ((code = lock_check(
                     cl, agent, &plan, rq->force, force, held, &notes, error)))
                goto report;
        }
    }
    struct land_options lo;
    memset(&lo, 0, sizeof(lo));
    lo.message = rq->message;
    lo.dry_run = rq->dry_run;
    if ((rc = land_apply(dir, &plan, &lo, &res, &e))) {
        *error = xstrdup(e.msg);
        code = cli_exit_for(rc);
        goto report;
    }
    if (res.note)
        strbuf_addf(&notes, "%s\n", res.note);
    if (res.up_to_date && agent && agents)
        note_uncommitted(agents, agent, &notes);
    char *subject = rq->message
                        ? xstrndup(rq->message, strcspn(rq->message, "\n"))
                        : xasprintf("Land %s into %s", branch, target);
    if (cl && !rq->dry_run && !res.up_to_date)
        tell_daemon(cl, agent, known, &plan, &res, subject, &notes);
    free(subject);
report:;
    json_t *changed = json_array();
    for (size_t i = 0; i < res.nfiles; i++)
        json_array_append_new(
            changed, json_pack("{s:s, s:s}", "path", res.files[i].path,
                         "status", commit_status_name(res.files[i].status)));
    bool landed = !code && !rq->dry_run && !res.up_to_date;
    json_t *out = json_pack(
        "{s:b, s:b, s:s, s:s, s:o, s:o, s:s, s:o, s:b, s:o, s:o, s:o, "
        "s:o, s:b, s:I}",
        "landed", landed, "dry_run", rq->dry_run, "target", target, "from",
        branch, "agent", agent ? json_string(agent) : json_null(), "commit",
        res.commit[0] ? json_string(res.commit) : json_null(), "parent",
        plan.target_tip, "fast_forward",
        json_boolean(code ? plan.fast_forward : res.fast_forward), "up_to_date",
        code ? plan.up_to_date : res.up_to_date, "files",
        strv_json(plan.files, plan.nfiles), "changed", changed, "conflicts",
        strv_json(plan.conflicts, plan.nconflicts), "out_of_scope",
        json_incref(out_of_scope), "worktree_updated", res.worktree_updated,
        "retries", (json_int_t)res.retries);
    if (!code && res.parent[0])
        json_object_set_new(out, "parent", json_string(res.parent));
    json_object_set(out, "held", held);
    json_object_set(out, "outside_lane", outside_lane);
    if (lanes)
        json_object_set(out, "lanes", lanes);
    if (json_object_size(lane_owners))
        json_object_set(out, "lane_owners", lane_owners);
    if (plan.worktree)
        json_object_set_new(out, "worktree", json_string(plan.worktree));
    *result = out;
    *notes_out = notes.s;
    notes.s = NULL;
out:
    if (cl)
        cl->timeout_ms = saved_timeout;
    json_decref(out_of_scope);
    json_decref(held);
    json_decref(outside_lane);
    json_decref(lane_owners);
    if (lanes)
        json_decref(lanes);
    if (agents)
        json_decref(agents);
    land_result_release(&res);
    land_plan_release(&plan);
    free(notes.s); /* a refusal before the merge check: no notes */
    free(target);
    free(branch);
    free(agent);
    return code;
}

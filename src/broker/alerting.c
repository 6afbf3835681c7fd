/*
 * alerting.c - the daemon's alerts (core/alerts.h over its state), the
 * fleet agents' reports, and the notification command.
 *
 * At every tick and after a fleet report the daemon's state is handed to
 * the alert engine; each alert raised or cleared is published
 * (alert.raised, alert.cleared) and a raised one is handed to the
 * notification command (`[alerts] command`) when the rate limit allows.
 *
 * The command is run as `/bin/sh -c COMMAND`: COMMAND comes from the
 * user's own config files only (git/config.h refuses it in the committed
 * one); the alert, which carries strings agents chose (ids, paths,
 * message text), goes only to its standard input as one JSON object and
 * never into an argument or the environment. It runs in a process group
 * of its own with stdout and stderr to the daemon's log; the loop never
 * waits for it: the JSON is written to a pipe without blocking, children
 * are reaped at each tick and killed after BALERT_CHILD_MS. At most
 * BALERT_CHILDREN run at once; more are dropped (logged).
 *
 * What the engine holds is kept in the store as it changes (each alert
 * raised or cleared, and its last notification) and handed back to it at
 * start (broker_alerts_restore), so a restart neither notifies again
 * within the rate limit nor makes an alert that still holds new.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "broker/agents.h"
#include "broker/alerting.h"
#include "broker/detect.h"
#include "broker/events.h"
#include "broker/health.h"
#include "broker/team.h"
#include "core/alerts.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define BALERT_CHILDREN 4
#define BALERT_CHILD_MS (30 * 1000)
#define BALERT_FLEET_MAX 256
/* after a start, how long an alert that held before waits to be found
 * again: the fleet's supervisors report every 5 s */
#define BALERT_SETTLE_MS (10 * 1000)

struct bfleet {
    char *name;
    char *state; /* starting, running, restarting, given-up, exited, stopped */
    unsigned restarts;
    char *lane;
    char *why; /* the last exit, or NULL */
    int64_t pid;
    int64_t at; /* ms: the last report */
};

struct balerts {
    struct alerts *engine;
    int64_t repeat_ms; /* the engine's, for the store's rows */
    char *command;
    struct {
        pid_t pid;
        int64_t started;
    } child[BALERT_CHILDREN];
    uint64_t sent, suppressed, dropped;
    struct bfleet *fleet;
    size_t nfleet, afleet;
};

void
broker_alerts_init(struct broker *b)
{
    struct balerts *a = xcalloc(1, sizeof(*a));
    struct alerts_config c;
    alerts_config_default(&c);
    if (b->o.alerts_silent_ms > 0)
        c.silent_ms = b->o.alerts_silent_ms;
    if (b->o.alerts_waiting_ms > 0)
        c.waiting_ms = b->o.alerts_waiting_ms;
    if (b->o.alerts_repeat_ms >= 0)
        c.repeat_ms = b->o.alerts_repeat_ms;
    if (b->o.alerts_cap >= 0)
        c.cap = (unsigned)b->o.alerts_cap;
    a->engine = alerts_new(&c);
    a->repeat_ms = c.repeat_ms;
    a->command = b->o.alerts_command && *b->o.alerts_command
                     ? xstrdup(b->o.alerts_command)
                     : NULL;
    b->alerts = a;
}

static void
reap(struct broker *b, int64_t now)
{
    struct balerts *a = b->alerts;
    for (size_t k = 0; k < BALERT_CHILDREN; k++) {
        if (!a->child[k].pid)
            continue;
        int st;
        pid_t r = waitpid(a->child[k].pid, &st, WNOHANG);
        if (r == a->child[k].pid || (r < 0 && errno == ECHILD)) {
            if (r > 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
                broker_log(b, "alerts: the notification command failed (%s %d)",
                    WIFEXITED(st) ? "exit" : "signal",
                    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
            a->child[k].pid = 0;
        } else if (now - a->child[k].started > BALERT_CHILD_MS) {
            kill(-a->child[k].pid, SIGKILL);
            broker_log(b,
                "alerts: the notification command ran over %d s: "
                "killed",
                BALERT_CHILD_MS / 1000);
            a->child[k].started = now; /* reaped at a next tick */
        }
    }
}

void
broker_alerts_release(struct broker *b)
{
    struct balerts *a = b->alerts;
    if (!a)
        return;
    reap(b, broker_now());
    alerts_free(a->engine);
    free(a->command);
    for (size_t i = 0; i < a->nfleet; i++) {
        free(a->fleet[i].name);
        free(a->fleet[i].state);
        free(a->fleet[i].lane);
        free(a->fleet[i].why);
    }
    free(a->fleet);
    free(a);
    b->alerts = NULL;
}

static json_t *
alert_json(const struct alert *x)
{
    json_t *ids = json_array();
    for (size_t i = 0; i < x->nagents; i++)
        json_array_append_new(ids, json_string(x->agents[i]));
    return json_pack("{s:s, s:s, s:s, s:o, s:I}", "kind",
        alert_kind_name(x->kind), "subject", x->subject, "text", x->text,
        "agents", ids, "since", (json_int_t)x->since);
}

json_t *
broker_alerts_json(struct broker *b, const char *agent)
{
    json_t *v = json_array();
    if (!b->alerts)
        return v;
    size_t n;
    const struct alert *l = alerts_list(b->alerts->engine, &n);
    for (size_t i = 0; i < n; i++)
        if (!agent || alert_concerns(&l[i], agent))
            json_array_append_new(v, alert_json(&l[i]));
    return v;
}

/* Keep alert x in the store: whether it holds, as raised, and its last
 * notification. */
static void
store_alert(struct broker *b, const struct alert *x, bool held)
{
    json_t *ids = json_array();
    for (size_t i = 0; i < x->nagents; i++)
        json_array_append_new(ids, json_string(x->agents[i]));
    char *agents = json_dumps(ids, JSON_COMPACT);
    json_decref(ids);
    struct db_alert r = { alert_kind_name(x->kind), x->subject, x->text, agents,
        held, x->since,
        alerts_notified_at(b->alerts->engine, x->kind, x->subject) };
    struct as_err e;
    if (db_alert_put(b->db, &r, &e))
        broker_log(b, "store: %s", e.msg);
    free(agents);
}

static void
restore_alert(void *ctx, const struct db_alert *r)
{
    struct broker *b = ctx;
    enum alert_kind k;
    if (!alert_kind_parse(r->kind, &k))
        return;
    json_t *ids = json_loads(r->agents, 0, NULL);
    size_t n = json_is_array(ids) ? json_array_size(ids) : 0, m = 0;
    char **v = xcalloc(n + 1, sizeof(*v));
    for (size_t i = 0; i < n; i++)
        if (json_is_string(json_array_get(ids, i)))
            v[m++] = (char *)json_string_value(json_array_get(ids, i));
    struct alert a = { k, (char *)r->subject, (char *)r->text, v, m, r->since };
    alerts_restore(b->alerts->engine, &a, r->held, r->notified_at,
        b->started_at + BALERT_SETTLE_MS);
    free(v);
    if (ids)
        json_decref(ids);
}

int
broker_alerts_restore(struct broker *b, struct as_err *e)
{
    struct as_err pe;
    if (db_alerts_prune(b->db, broker_now() - b->alerts->repeat_ms, &pe))
        broker_log(b, "store: %s", pe.msg);
    return db_alerts_load(b->db, restore_alert, b, e);
}

/* Run the command with the alert's JSON on its stdin, without waiting. */
static void
notify(struct broker *b, const struct alert *x, int64_t now)
{
    struct balerts *a = b->alerts;
    const char *why;
    if (!a->command)
        return;
    if (!alerts_notify_take(a->engine, x, now, &why)) {
        a->suppressed++;
        broker_log(b, "alerts: %s %s not notified (%s limit)",
            alert_kind_name(x->kind), x->subject, why);
        return;
    }
    size_t slot = BALERT_CHILDREN;
    for (size_t k = 0; k < BALERT_CHILDREN && slot == BALERT_CHILDREN; k++)
        if (!a->child[k].pid)
            slot = k;
    if (slot == BALERT_CHILDREN) {
        a->dropped++;
        broker_log(b,
            "alerts: %d notification commands still run: %s %s "
            "not notified",
            BALERT_CHILDREN, alert_kind_name(x->kind), x->subject);
        return;
    }
    json_t *o = alert_json(x);
    json_object_set_new(o, "event", json_string("alert.raised"));
    json_object_set_new(o, "repository", json_string(b->paths.common_dir));
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    int p[2];
    if (!text || pipe2(p, O_CLOEXEC) < 0) {
        free(text);
        broker_log(b, "alerts: cannot run the notification command: %s",
            strerror(errno));
        return;
    }
    /* everything the child needs, made before fork */
    int out = b->log ? fileno(b->log) : -1;
    int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    char kind_env[64];
    snprintf(kind_env, sizeof(kind_env), "AIRSPACE_ALERT_KIND=%s",
        alert_kind_name(x->kind));
    char *const argv[] = { (char *)"sh", (char *)"-c", a->command, NULL };
    /* the environment, made here: the child of a threaded process only
     * calls what is async-signal-safe */
    extern char **environ;
    size_t ne = 0;
    while (environ[ne])
        ne++;
    char **envp = xcalloc(ne + 2, sizeof(*envp));
    size_t k = 0;
    for (size_t i = 0; i < ne; i++)
        if (strncmp(environ[i], "AIRSPACE_ALERT_KIND=", 20))
            envp[k++] = environ[i];
    envp[k] = kind_env;
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        int o2 = out >= 0 ? out : devnull;
        if (dup2(p[0], 0) < 0 ||
            (o2 >= 0 && (dup2(o2, 1) < 0 || dup2(o2, 2) < 0)))
            _exit(127);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        execve("/bin/sh", argv, envp);
        _exit(127);
    }
    free(envp);
    close(p[0]);
    if (devnull >= 0)
        close(devnull);
    if (pid < 0) {
        close(p[1]);
        free(text);
        broker_log(b, "alerts: cannot fork the notification command: %s",
            strerror(errno));
        return;
    }
    setpgid(pid, pid);
    a->child[slot].pid = pid;
    a->child[slot].started = now;
    a->sent++;
    /* one small object into an empty pipe: fits, never blocks */
    fcntl(p[1], F_SETFL, O_NONBLOCK);
    size_t len = strlen(text);
    ssize_t w = write(p[1], text, len);
    if (w < 0 || (size_t)w < len)
        broker_log(b, "alerts: the notification command got %zd of %zu bytes",
            w < 0 ? (ssize_t)0 : w, len);
    (void)!write(p[1], "\n", 1);
    close(p[1]);
    free(text);
}

/* The escalations as waits: a key that stays while it waits. */
static void
waits_of(struct broker *b, json_t *esc, struct alert_wait *w, const char **ids,
    char **keys)
{
    size_t i;
    json_t *x;
    (void)b;
    json_array_foreach(esc, i, x)
    {
        json_t *m = json_object_get(x, "message");
        json_t *ag = json_object_get(x, "agents");
        if (m)
            keys[i] = xasprintf("message:%lld",
                (long long)json_integer_value(json_object_get(m, "id")));
        else
            keys[i] = xasprintf("conflict:%s:%s:%s:%s",
                json_string_value(json_object_get(x, "shape")),
                json_string_value(json_array_get(ag, 0)),
                json_string_value(json_array_get(ag, 1)),
                json_string_value(json_object_get(x, "file")));
        ids[2 * i] = json_string_value(json_array_get(ag, 0));
        ids[2 * i + 1] = json_string_value(json_array_get(ag, 1));
        w[i].key = keys[i];
        w[i].text = json_string_value(json_object_get(x, "text"));
        if (!w[i].text)
            w[i].text = "";
        w[i].agents = &ids[2 * i];
        w[i].nagents = ids[2 * i + 1] ? 2 : ids[2 * i] ? 1 : 0;
        w[i].since = json_integer_value(json_object_get(x, "since"));
    }
}

void
broker_alerts_check(struct broker *b)
{
    struct balerts *a = b->alerts;
    if (!a)
        return;
    int64_t now = broker_now();
    reap(b, now);
    /* agents */
    struct alert_agent *ag = xcalloc(b->nagents + 1, sizeof(*ag));
    const char **files = NULL;
    size_t nfiles = 0;
    for (size_t i = 0; i < b->nagents; i++)
        nfiles += b->ag[i].nfiles;
    files = xcalloc(nfiles + 1, sizeof(*files));
    size_t f = 0;
    for (size_t i = 0; i < b->nagents; i++) {
        const struct as_agent *m = broker_who(b, i);
        ag[i].id = b->ag[i].id;
        ag[i].registered = m->registered;
        ag[i].human = m->human;
        ag[i].exited = m->status == AS_AGENT_EXITED;
        ag[i].stale = m->status == AS_AGENT_STALE;
        /* as the tick counts silence: from the daemon's start at least */
        ag[i].last_seen =
            m->last_seen > b->started_at ? m->last_seen : b->started_at;
        ag[i].files = &files[f];
        for (size_t k = 0; k < b->ag[i].nfiles; k++)
            files[f++] = b->ag[i].files[k].path;
        ag[i].nfiles = b->ag[i].nfiles;
    }
    /* locks */
    size_t nl;
    const struct lock *const *ll =
        lock_table_list(b->locks, team_clock(b, now), &nl);
    struct alert_lock *lk = xcalloc(nl + 1, sizeof(*lk));
    for (size_t k = 0; k < nl; k++) {
        lk[k].token = ll[k]->token;
        lk[k].pattern = ll[k]->pattern;
        lk[k].holder = ll[k]->holder;
        lk[k].claim = ll[k]->kind == LOCK_KIND_CLAIM;
    }
    /* escalations and messages to the supervisor */
    json_t *esc = broker_escalations_json(b, NULL);
    size_t nw = json_array_size(esc);
    struct alert_wait *w = xcalloc(nw + 1, sizeof(*w));
    const char **wids = xcalloc(2 * nw + 2, sizeof(*wids));
    char **keys = xcalloc(nw + 1, sizeof(*keys));
    waits_of(b, esc, w, wids, keys);
    /* pairs with an advisory */
    struct alert_pair *adv = xcalloc(b->npairs + 1, sizeof(*adv));
    size_t nadv = 0;
    for (size_t k = 0; k < b->npairs; k++)
        if (b->pairs[k].live && b->pairs[k].adv.st.level != ADVISORY_CLEAR) {
            adv[nadv].a = b->pairs[k].a;
            adv[nadv++].b = b->pairs[k].b;
        }
    /* the fleet */
    struct alert_fleet *fl = xcalloc(a->nfleet + 1, sizeof(*fl));
    for (size_t k = 0; k < a->nfleet; k++) {
        fl[k].name = a->fleet[k].name;
        fl[k].given_up = !strcmp(a->fleet[k].state, "given-up");
        fl[k].restarts = a->fleet[k].restarts;
        fl[k].why = a->fleet[k].why;
    }
    struct as_err e;
    e.msg[0] = '\0';
    bool refused = broker_store_refusal(b, &e) != 0;

    struct alerts_input in = { ag, b->nagents, lk, nl, w, nw, adv, nadv, fl,
        a->nfleet, refused ? e.msg : NULL };
    struct alert_changes ch;
    alert_changes_init(&ch);
    alerts_eval(a->engine, &in, now, &ch);
    /* kept in the store as they change (not while it refuses writes) */
    bool keep = !refused && (ch.nraised || ch.ncleared);
    struct as_err se;
    bool tx = keep && db_begin(b->db, &se) == 0;
    for (size_t k = 0; k < ch.ncleared; k++) {
        json_t *o = alert_json(&ch.cleared[k]);
        json_object_set_new(o, "clearedAt", json_integer(now));
        broker_emit(b, "alert.cleared", NULL, o);
        if (keep)
            store_alert(b, &ch.cleared[k], false);
    }
    for (size_t k = 0; k < ch.nraised; k++) {
        broker_log(b, "alert: %s", ch.raised[k].text);
        broker_emit(b, "alert.raised", NULL, alert_json(&ch.raised[k]));
        notify(b, &ch.raised[k], now);
        if (keep)
            store_alert(b, &ch.raised[k], true);
    }
    /* a cleared alert's row stays while the rate limit remembers it */
    if (keep && ch.ncleared && db_alerts_prune(b->db, now - a->repeat_ms, &se))
        broker_log(b, "store: %s", se.msg);
    if (tx && db_commit(b->db, &se))
        broker_log(b, "store: %s", se.msg);
    alert_changes_release(&ch);
    for (size_t k = 0; k < nw; k++)
        free(keys[k]);
    free(keys);
    free(wids);
    free(w);
    json_decref(esc);
    free(ag);
    free(files);
    free(lk);
    free(adv);
    free(fl);
}

json_t *
broker_alerts_status(struct broker *b)
{
    struct balerts *a = b->alerts;
    size_t n = 0;
    if (a)
        alerts_list(a->engine, &n);
    return json_pack("{s:I, s:b, s:I, s:I, s:I}", "count", (json_int_t)n,
        "command", a && a->command, "notified", (json_int_t)(a ? a->sent : 0),
        "suppressed", (json_int_t)(a ? a->suppressed : 0), "dropped",
        (json_int_t)(a ? a->dropped : 0));
}

/* ---- the fleet's reports ---- */

static void
fleet_set(char **dst, const char *v)
{
    free(*dst);
    *dst = v ? xstrdup(v) : NULL;
}

int
broker_fleet_report(struct broker *b, const char *name, const char *state,
    unsigned restarts, const char *lane, const char *why, int64_t pid,
    struct as_err *e)
{
    struct balerts *a = b->alerts;
    struct bfleet *f = NULL;
    for (size_t k = 0; k < a->nfleet && !f; k++)
        if (!strcmp(a->fleet[k].name, name))
            f = &a->fleet[k];
    if (!f) {
        if (a->nfleet >= BALERT_FLEET_MAX)
            return as_errorf(e, AS_EINVAL, "the fleet has %d agents already",
                BALERT_FLEET_MAX);
        a->fleet =
            xgrow(a->fleet, sizeof(*a->fleet), a->nfleet + 1, &a->afleet);
        f = &a->fleet[a->nfleet++];
        memset(f, 0, sizeof(*f));
        f->name = xstrdup(name);
    }
    bool changed =
        !f->state || strcmp(f->state, state) || f->restarts != restarts;
    fleet_set(&f->state, state);
    f->restarts = restarts;
    if (lane)
        fleet_set(&f->lane, lane);
    fleet_set(&f->why, why);
    f->pid = pid;
    f->at = broker_now();
    if (changed) {
        json_t *d = json_pack("{s:s, s:s, s:I}", "name", name, "state", state,
            "restarts", (json_int_t)restarts);
        if (why)
            json_object_set_new(d, "why", json_string(why));
        if (f->lane)
            json_object_set_new(d, "lane", json_string(f->lane));
        broker_emit(b, "fleet.state", name, d);
        if (!strcmp(state, "given-up")) {
            json_t *g = json_pack(
                "{s:s, s:I}", "name", name, "restarts", (json_int_t)restarts);
            if (why)
                json_object_set_new(g, "why", json_string(why));
            broker_emit(b, "fleet.given_up", name, g);
        }
        broker_alerts_check(b);
    }
    return 0;
}

json_t *
broker_fleet_json(struct broker *b)
{
    json_t *v = json_array();
    struct balerts *a = b->alerts;
    for (size_t k = 0; a && k < a->nfleet; k++) {
        const struct bfleet *f = &a->fleet[k];
        json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I}", "name", f->name,
            "state", f->state, "restarts", (json_int_t)f->restarts, "pid",
            (json_int_t)f->pid, "at", (json_int_t)f->at);
        if (f->lane)
            json_object_set_new(o, "lane", json_string(f->lane));
        if (f->why)
            json_object_set_new(o, "why", json_string(f->why));
        json_array_append_new(v, o);
    }
    return v;
}

/*
 * detect.c - the daemon's side of the conflict detector (core/conflicts.h):
 * feeding it agents, intents, working sets, merge results and ownership,
 * delivering what it says, and the escalations waiting for a human.
 */
#include "broker/agents.h"
#include "broker/collab.h"
#include "broker/detect.h"
#include "broker/events.h"

#include <stdlib.h>
#include <string.h>

#include "util/file.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Whether to's inbox already holds the same text from from, unread: the
 * detector forgets what it told when the daemon restarts and tells it
 * again; one copy waiting is enough. */
static bool
already_waiting(
    struct broker *b, const char *to, const char *from, const char *text)
{
    const struct as_inbox *x = as_inbox_find(broker_airspace(b), to);
    for (size_t k = 0; x && k < x->n; k++) {
        const struct as_message *m = &x->v[k];
        if (!m->read && !strcmp(m->from, from) && !strcmp(m->body, text))
            return true;
    }
    return false;
}

void
broker_conflict_msgs(struct broker *b, struct conflict_msgs *m)
{
    for (size_t k = 0; k < m->n; k++) {
        const struct conflict_msg *x = &m->v[k];
        /* another daemon's agent: its own daemon sees the same facts and
         * tells it (its copy here reads no inbox) */
        ssize_t to = x->escalation ? -1 : broker_find_agent(b, x->to);
        if (to >= 0 && broker_who(b, (size_t)to)->peer)
            continue;
        if (!already_waiting(b, x->to, x->from, x->text))
            broker_send(b, x->from, x->to, "info", x->text);
        json_t *d = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:s}", "to",
            x->to, "shape", conflict_shape_name(x->shape), "a", x->a, "b",
            x->b ? x->b : "", "file", x->file ? x->file : "", "additive",
            x->additive, "text", x->text);
        broker_emit(
            b, x->escalation ? "conflict.escalated" : "conflict", x->to, d);
    }
    conflict_msgs_clear(m);
}

void
broker_conflicts_modified(struct broker *b, size_t i)
{
    const struct agent *a = &b->ag[i];
    /* The detector recomputes its facts on every call; most changes move
     * lines inside files already changed, so only a new set of paths (or
     * of status) is worth telling. */
    uint64_t h = FNV1A_INIT ^ (uint64_t)broker_who(b, i)->status;
    for (size_t k = 0; k < a->nfiles; k++)
        h = fnv1a_byte(fnv1a_str(h, a->files[k].path), 0xff);
    /* then where it conflicts with the integration branch */
    h = fnv1a_byte(h, 0xfe);
    for (size_t k = 0; k < a->nonto_conflicts; k++)
        h = fnv1a_byte(fnv1a_str(h, a->onto_conflicts[k]), 0xff);
    if (h == b->meta[i].paths_hash)
        return;
    /* the detector has none of its files: this daemon's first word of
     * them, or the first since it forgot them (the agent went stale) */
    bool forgot = !b->meta[i].files_known;
    b->meta[i].paths_hash = h;
    bool active = broker_who(b, i)->status == AS_AGENT_ACTIVE;
    const char **paths = xcalloc(a->nfiles + 1, sizeof(*paths));
    size_t n = 0;
    if (active)
        for (size_t k = 0; k < a->nfiles; k++)
            paths[n++] = a->files[k].path;
    struct conflict_msgs m;
    conflict_msgs_init(&m);
    int64_t now = broker_now();
    /* When it began changing the files it had when this daemon first saw
     * them (a worktree of the daemon's last run, another daemon's agent at
     * its first working set), or had when it came back from stale, is not
     * known: before any intent here, so none of them trespasses on one
     * declared meanwhile (a restart made every in-flight overlap with an
     * intent an ownership escalation). A file it begins later began now. */
    int64_t since = forgot && n && (!b->meta[i].told || b->meta[i].files_told)
                        ? INT64_MIN
                        : now;
    b->meta[i].told = true;
    b->meta[i].files_told = b->meta[i].files_told || n;
    b->meta[i].files_known = n > 0;
    conflicts_set_modified_since(b->conflicts, a->id, paths, n, since, now, &m);
    conflicts_report_integration(b->conflicts, a->id, b->integration,
        (const char *const *)a->onto_conflicts, active ? a->nonto_conflicts : 0,
        now, &m);
    broker_conflict_msgs(b, &m);
    conflict_msgs_release(&m);
    free(paths);
}

void
broker_conflicts_agent(struct broker *b, size_t i)
{
    const struct agent *a = &b->ag[i];
    const struct as_agent *m = broker_who(b, i);
    int64_t now = broker_now();
    struct conflict_msgs cm;
    conflict_msgs_init(&cm);
    struct as_err e;
    if (conflicts_agent_set(b->conflicts, a->id, a->label,
            (const char *const *)m->lanes, m->nlanes, now, &cm, &e))
        broker_log(b, "conflicts: %s", e.msg);
    const struct airspace *as = broker_airspace(b);
    for (size_t k = 0; k < as->nintents; k++)
        if (!strcmp(as->intents[k].agent, a->id) &&
            as->intents[k].expires_at > now)
            broker_conflicts_intent(b, &as->intents[k], &cm);
    broker_conflict_msgs(b, &cm);
    b->meta[i].paths_hash = 0; /* its files, even when the same as before */
    broker_conflicts_modified(b, i);
    /* whole again: what it was told before it left and still has is not
     * told again, what it no longer has has ended */
    conflicts_agent_back(b->conflicts, a->id, broker_now(), &cm);
    broker_conflict_msgs(b, &cm);
    conflict_msgs_release(&cm);
}

void
broker_conflicts_intent(
    struct broker *b, const struct as_intent *in, struct conflict_msgs *out)
{
    json_t *regions = in->regions ? json_loads(in->regions, 0, NULL) : NULL;
    struct conflict_intent_file *files =
        xcalloc(in->nfiles + 1, sizeof(*files));
    struct conflict_region **rs = xcalloc(in->nfiles + 1, sizeof(*rs));
    for (size_t k = 0; k < in->nfiles; k++) {
        files[k].path = in->files[k];
        json_t *list = json_object_get(regions, in->files[k]);
        if (!json_is_array(list))
            continue;
        rs[k] = xcalloc(json_array_size(list) + 1, sizeof(**rs));
        size_t j;
        json_t *r;
        json_array_foreach(list, j, r)
        {
            struct conflict_region *cr = &rs[k][files[k].nregions];
            const char *name = json_string_value(json_object_get(r, "name"));
            json_t *lines = json_object_get(r, "lines");
            if (name) {
                cr->name = name;
            } else if (json_is_array(lines) && json_array_size(lines) == 2) {
                json_int_t s0 = json_integer_value(json_array_get(lines, 0));
                json_int_t s1 = json_integer_value(json_array_get(lines, 1));
                if (s0 < 1 || s1 < 1 || s0 > UINT32_MAX || s1 > UINT32_MAX)
                    continue;
                cr->start = (uint32_t)s0;
                cr->end = (uint32_t)s1;
            } else {
                continue;
            }
            files[k].nregions++;
        }
        files[k].regions = rs[k];
    }
    struct conflict_intent ci = { .id = in->id,
        .agent = in->agent,
        .files = files,
        .nfiles = in->nfiles,
        .summary = in->summary,
        .created_at = in->created_at,
        .expires_at = in->expires_at };
    struct as_err e;
    if (conflicts_intent_put(b->conflicts, &ci, broker_now(), out, &e))
        broker_log(b, "conflicts: %s", e.msg);
    for (size_t k = 0; k < in->nfiles; k++)
        free(rs[k]);
    free(rs);
    free(files);
    if (regions)
        json_decref(regions);
}

/* Whether escalation party p (an agent id, or an owner: a label) names
 * agent id (whose label is label, or NULL). */
static bool
names_agent(const char *p, const char *id, const char *label)
{
    return p && (!strcmp(p, id) || (label && !strcmp(p, label)));
}

/* One escalation: its kind, the agents it involves, when and the text. */
static json_t *
escalation_json(
    const char *kind, const char *a, const char *b, int64_t at, char *text)
{
    json_t *o = json_pack("{s:s, s:[s], s:I, s:s}", "kind", kind, "agents", a,
        "since", (json_int_t)at, "text", text);
    if (b && *b)
        json_array_append_new(json_object_get(o, "agents"), json_string(b));
    free(text);
    return o;
}

json_t *
broker_escalations_json(struct broker *b, const char *agent)
{
    const char *label = NULL;
    ssize_t ai = agent ? broker_find_agent(b, agent) : -1;
    if (ai >= 0)
        label = b->ag[ai].label;
    json_t *v = json_array();
    struct conflict_list l;
    conflict_list_init(&l);
    conflicts_list(b->conflicts, broker_now(), &l);
    for (size_t k = 0; k < l.n; k++) {
        const struct conflict_view *x = &l.v[k];
        if (!x->escalated || (agent && !names_agent(x->a, agent, label) &&
                                 !names_agent(x->b, agent, label)))
            continue;
        char *text =
            x->shape == CONFLICT_OWNERSHIP
                ? xasprintf("ownership: '%s' modified %s, which belongs to "
                            "'%s'",
                      x->a, x->file, x->b)
                : xasprintf("%s conflict between '%s' and '%s' on %s",
                      conflict_shape_name(x->shape), x->a, x->b, x->file);
        json_t *o = escalation_json("conflict", x->a, x->b, x->since, text);
        json_object_set_new(
            o, "shape", json_string(conflict_shape_name(x->shape)));
        json_object_set_new(o, "file", json_string(x->file));
        json_array_append_new(v, o);
    }
    conflict_list_release(&l);
    /* what agents asked the supervisor and nobody has read yet (its
     * conflict notices are the conflicts above, while they hold) */
    const struct as_inbox *x =
        as_inbox_find(broker_airspace(b), CONFLICTS_DEFAULT_SUPERVISOR);
    if (x) {
        for (size_t k = 0; k < x->n; k++) {
            const struct as_message *m = &x->v[k];
            if (m->read || !strcmp(m->from, CONFLICTS_DEFAULT_SUPERVISOR) ||
                (agent && strcmp(m->from, agent)))
                continue;
            json_t *o = escalation_json("message", m->from, NULL, m->at,
                xasprintf("%s from '%s': %s", m->type, m->from, m->body));
            json_object_set_new(o, "message", broker_message_json(m));
            json_array_append_new(v, o);
        }
    }
    return v;
}

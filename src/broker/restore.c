/*
 * restore.c - the daemon's state from its store at start-up: agents (back
 * into the machine as the events that made them), their reports, locks,
 * intents and messages.
 */
#include "broker/agents.h"
#include "broker/alerting.h"
#include "broker/collab.h"
#include "broker/detect.h"
#include "broker/restore.h"
#include "broker/watch.h"

#include <stdlib.h>
#include <string.h>

#include "broker/fence.h"
#include "util/xalloc.h"
#include "util/banned.h"

static void
restore_agent(void *ctx, const struct db_agent *da)
{
    struct broker *b = ctx;
    /* the stored row goes back into the machine as the event that made it */
    struct as_event ev = { .kind = AS_EV_AGENT_REGISTERED,
        .at = da->registered_at };
    struct as_agent *w = &ev.who;
    ev.agent = (char *)da->id;
    w->id = (char *)da->id;
    w->human = !strcmp(da->kind, "human");
    w->client = (char *)da->client;
    w->label = (char *)da->label;
    w->worktree = (char *)da->worktree;
    w->registered = !da->human_residual;
    w->shared = da->shared;
    w->human_residual = da->human_residual;
    w->from_worktree = da->worktree && !da->shared;
    w->registered_at = da->registered_at;
    w->last_seen = da->last_seen;
    w->status = !strcmp(da->status, "exited")  ? AS_AGENT_EXITED
                : !strcmp(da->status, "stale") ? AS_AGENT_STALE
                                               : AS_AGENT_ACTIVE;
    json_t *lanes = da->lanes ? json_loads(da->lanes, 0, NULL) : NULL;
    if (json_is_array(lanes)) {
        w->nlanes = json_array_size(lanes);
        w->lanes = xcalloc(w->nlanes ? w->nlanes : 1, sizeof(*w->lanes));
        for (size_t k = 0; k < w->nlanes; k++) {
            const char *l = json_string_value(json_array_get(lanes, k));
            w->lanes[k] = (char *)(l ? l : "");
        }
    }
    struct as_err ae;
    int rc = as_apply(broker_airspace(b), &ev, &ae);
    free(w->lanes);
    if (lanes)
        json_decref(lanes);
    if (rc) {
        broker_log(b, "restore agent %s: %s", da->id, ae.msg);
        return;
    }
    size_t i = broker_find_agent(b, da->id) >= 0
                   ? (size_t)broker_find_agent(b, da->id)
                   : broker_slot_add(b, da->id);
    struct agent *a = &b->ag[i];
    const struct as_agent *m = broker_who(b, i);
    free(a->branch);
    a->branch = da->branch ? xstrdup(da->branch) : NULL;
    b->meta[i].stored_seen = da->last_seen;
    if (a->worktree)
        broker_watch_worktree(b, i);
    struct conflict_msgs cm;
    conflict_msgs_init(&cm);
    struct as_err ce;
    if (m->status == AS_AGENT_ACTIVE &&
        conflicts_agent_set(b->conflicts, a->id, a->label,
            (const char *const *)m->lanes, m->nlanes, broker_now(), &cm, &ce))
        broker_log(b, "conflicts: %s", ce.msg);
    conflict_msgs_release(&cm); /* told before the restart */
}

struct restore_reports {
    struct broker *b;
    ssize_t at; /* the agent of the last row */
    size_t n;
};

/* A stored report into its agent's reports, and into the working set of an
 * agent without a worktree (its reports are its working set); a shared
 * worktree's agents' working sets are made of them at its first read. */
static void
restore_report(void *ctx, const struct db_report *dr)
{
    struct restore_reports *rr = ctx;
    struct broker *b = rr->b;
    if (rr->at < 0 || strcmp(b->ag[rr->at].id, dr->agent))
        rr->at = broker_find_agent(b, dr->agent);
    if (rr->at < 0)
        return;
    size_t i = (size_t)rr->at;
    struct agent *into[2] = { &b->meta[i].reports, &b->ag[i] };
    for (size_t t = 0; t < (b->ag[i].worktree ? 1u : 2u); t++) {
        struct ws_file *f = agent_add_file(into[t], dr->path, dr->status);
        f->status = dr->status;
        f->whole = dr->whole;
        range_set_copy(&f->ranges, dr->ranges);
        f->changed_at_ms = dr->changed_at;
        f->weight = dr->weight;
    }
    rr->n++;
}

static void
restore_lock(void *ctx, const struct lock *l)
{
    struct broker *b = ctx;
    struct as_err e;
    if (lock_table_restore(b->locks, l, &e))
        broker_log(
            b, "restore lock %llu: %s", (unsigned long long)l->token, e.msg);
}

/* A stored intent or message goes back into the machine as the event
 * that made it (as_apply). */
static void
restore_apply(struct broker *b, const struct as_event *ev)
{
    struct as_err e;
    if (as_apply(broker_airspace(b), ev, &e))
        broker_log(b, "restore: %s", e.msg);
}

static void
restore_intent(void *ctx, const struct db_intent *di)
{
    struct broker *b = ctx;
    json_t *files = json_loads(di->files, 0, NULL);
    if (!json_is_array(files)) {
        if (files)
            json_decref(files);
        return;
    }
    struct as_event ev = { .kind = AS_EV_INTENT_DECLARED };
    struct as_intent *in = &ev.intent;
    in->id = di->id;
    in->agent = (char *)di->agent;
    in->nfiles = json_array_size(files);
    in->files = xcalloc(in->nfiles ? in->nfiles : 1, sizeof(*in->files));
    for (size_t k = 0; k < in->nfiles; k++) {
        const char *f = json_string_value(json_array_get(files, k));
        in->files[k] = (char *)(f ? f : "");
    }
    in->regions = (char *)di->regions;
    in->summary = (char *)di->summary;
    in->created_at = di->created_at;
    in->expires_at = di->expires_at;
    restore_apply(b, &ev);
    free(in->files);
    json_decref(files);
    const struct as_intent *kept =
        &b->as->intents[b->as->nintents - 1]; /* just added */
    struct conflict_msgs cm;
    conflict_msgs_init(&cm);
    broker_conflicts_intent(b, kept, &cm);
    conflict_msgs_release(&cm); /* told before the restart */
}

static void
restore_message(void *ctx, const struct db_message *dm)
{
    struct broker *b = ctx;
    struct as_event ev = { .kind = AS_EV_MESSAGE_DELIVERED,
        .owner = (char *)dm->owner };
    ev.msg = (struct as_message){ dm->id, (char *)dm->from, (char *)dm->to,
        (char *)dm->type, (char *)dm->body, dm->at, dm->read };
    restore_apply(b, &ev);
    ev.kind = AS_EV_MESSAGE_SENT; /* its id is taken */
    restore_apply(b, &ev);
}

/* Restore the state of the store (start-up). */
int
broker_restore(struct broker *b, struct as_err *e)
{
    int rc;
    uint64_t next_token, next_event;
    struct restore_reports rr = { b, -1, 0 };
    if ((rc = db_agents_load(b->db, restore_agent, b, e)) ||
        (rc = db_reports_load(b->db, restore_report, &rr, e)) ||
        (rc = db_locks_load(b->db, restore_lock, b, &next_token, e)) ||
        (rc = db_intents_load(b->db, restore_intent, b, e)) ||
        (rc = db_messages_load(b->db, restore_message, b, e)) ||
        (rc = broker_alerts_restore(b, e)) ||
        (rc = db_ledger_next(b->db, &next_event, e)))
        return rc;
    /* An agent stale or exited had left the detector (agents.c): its
     * intents, just put back, bring no conflict of it while it is away.
     * What they found was told before the restart: it is held for its
     * return, as it would have been without the restart. */
    int64_t now = broker_now();
    for (size_t i = 0; i < b->nagents; i++)
        if (broker_who(b, i)->status != AS_AGENT_ACTIVE &&
            !broker_who(b, i)->peer)
            conflicts_agent_leave(b->conflicts, b->ag[i].id, now);
    broker_fence_load(b, &next_token, &next_event);
    if (next_token > lock_table_next_token(b->locks))
        lock_table_set_next_token(b->locks, next_token);
    b->next_event_id = b->ring_first = next_event;
    for (size_t i = 0; i < b->nagents; i++) {
        agent_sort(&b->meta[i].reports);
        agent_sort(&b->ag[i]);
    }
    /* a store of an airspace that did not keep the human of a shared
     * worktree: it is made again (an agent that exited keeps its flag
     * after its worktree is no longer shared) */
    for (size_t i = 0, n = b->nagents; i < n; i++)
        if (broker_who(b, i)->shared && b->ag[i].worktree &&
            broker_who(b, i)->status != AS_AGENT_EXITED) {
            struct as_req r = { .worktree = b->ag[i].worktree };
            struct as_result res;
            as_result_init(&res);
            broker_agent_op(b, as_human, &r, &res);
            as_result_release(&res);
        }
    broker_sync_intents(b);
    size_t nl;
    lock_table_list(b->locks, broker_now(), &nl);
    broker_log(b,
        "restored %zu agents, %zu reports, %zu locks, %zu intents; next "
        "event %llu",
        b->nagents, rr.n, nl, b->as->nintents,
        (unsigned long long)b->next_event_id);
    return 0;
}

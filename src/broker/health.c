/*
 * health.c - the store's health as the daemon tells it: whether writes are
 * taken, a failed commit (the daemon starts again from its store), and the
 * store tried again at every tick.
 */
#include "broker/health.h"
#include "broker/team.h"

#include <stdio.h>
#include <string.h>

#include "util/banned.h"

int
broker_store_refusal(struct broker *b, struct as_err *e)
{
    int rc = b->db ? db_health(b->db, e) : 0;
    if (!rc && b->store_rc)
        rc = as_errorf(e, b->store_rc, "%s", b->store_error);
    if (!rc) {
        if (b->store_error[0])
            broker_log(b, "store: writes are taken again");
        b->store_error[0] = '\0';
        return 0;
    }
    if (strcmp(b->store_error, e->msg)) {
        snprintf(b->store_error, sizeof(b->store_error), "%s", e->msg);
        broker_log(b, "store: %s; writes are refused", e->msg);
    }
    return rc == AS_ENOSPC ? 507 : 503;
}

void
broker_store_failed(struct broker *b, int rc, const struct as_err *e)
{
    if (!b->store_rc || rc != AS_ENOENT) {
        b->store_rc = rc;
        snprintf(b->store_error, sizeof(b->store_error), "%s", e->msg);
    }
    broker_log(b, "store: %s; the requests of this turn were refused", e->msg);
    if (rc == AS_ENOENT || b->restart || db_unreachable(b->db))
        return; /* nothing to start again from */
    /* after the refusals are sent */
    b->restart = true;
    struct timeval soon = { 0, 100000 };
    broker_log(b, "store: starting again from the store");
    event_base_loopexit(b->base, &soon);
}

json_t *
broker_store_json(struct broker *b)
{
    struct as_err e;
    int code = broker_store_refusal(b, &e);
    json_t *o = !code ? json_pack("{s:s}", "state", "ok")
                      : json_pack("{s:s, s:s}", "state",
                            code == 507 ? "full" : "failed", "error", e.msg);
    team_status_json(b, o);
    return o;
}

/* At every tick: a store that refused writes is tried again (a disk with
 * room again, a failure gone), unless its file is gone. */
void
broker_store_check(struct broker *b)
{
    struct as_err e;
    if (!broker_store_refusal(b, &e) || b->restart)
        return;
    if (db_probe(b->db, &e) == 0) {
        b->store_rc = 0;
        broker_store_refusal(b, &e);
        team_reconnected(b);
    }
}

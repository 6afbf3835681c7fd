/*
 * api_collab.c - routes for intents, messages and conflicts.
 */
#include "broker/api.h"
#include "broker/agents.h"
#include "broker/collab.h"
#include "broker/detect.h"
#include "broker/events.h"
#include "broker/score.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "broker/team.h"
#include "util/glob.h"
#include "util/path.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* One region as the detector takes it: {name} (a name left non-empty by
 * conflicts_region_name_normalize) or {lines: [s, e]} with lines >= 1,
 * given in order.
 * NULL when it is neither (why says what is wrong). */
static json_t *
norm_region(json_t *r, char *why, size_t len)
{
    json_t *name = json_object_get(r, "name");
    json_t *lines = json_object_get(r, "lines");
    if (!json_is_object(r) || json_object_size(r) != 1 || (!name && !lines)) {
        snprintf(why, len, "must be {name} or {lines: [start, end]}");
        return NULL;
    }
    if (name) {
        char *n = json_is_string(name)
                      ? conflicts_region_name_normalize(json_string_value(name))
                      : NULL;
        bool ok = n && *n;
        free(n);
        if (!ok) {
            snprintf(why, len, "region name '%s' is empty",
                json_is_string(name) ? json_string_value(name) : "");
            return NULL;
        }
        return json_pack("{s:O}", "name", name);
    }
    json_int_t s0 = json_integer_value(json_array_get(lines, 0));
    json_int_t s1 = json_integer_value(json_array_get(lines, 1));
    if (!json_is_array(lines) || json_array_size(lines) != 2 ||
        !json_is_integer(json_array_get(lines, 0)) ||
        !json_is_integer(json_array_get(lines, 1)) || s0 < 1 || s1 < 1 ||
        s0 > UINT32_MAX || s1 > UINT32_MAX) {
        snprintf(why, len, "'lines' must be [start, end] with lines >= 1");
        return NULL;
    }
    /* [9, 3] is lines 3 to 9: kept as such, as every reader expects */
    return json_pack(
        "{s:[I,I]}", "lines", s0 < s1 ? s0 : s1, s0 < s1 ? s1 : s0);
}

/* The intent's regions with their paths normalised as its files, each a
 * file of the intent, and every region valid; NULL after a 400 reply. */
static json_t *
norm_regions(struct api_ctx *c, size_t i, json_t *regions, char *const *files,
    size_t nfiles)
{
    json_t *out = json_object();
    char *norm = NULL;
    const char *key;
    json_t *list;
    json_object_foreach(regions, key, list)
    {
        bool known = false;
        if (!api_norm_path(c, i, key, &norm))
            for (size_t k = 0; k < nfiles && !known; k++)
                known = !strcmp(files[k], norm);
        if (!known) {
            api_reply_error(c->req, 400, "bad_field",
                "regions: '%s' is not one of the intent's files", key);
            goto out_free;
        }
        if (!json_is_array(list) || json_array_size(list) > 256) {
            api_reply_error(c->req, 400, "bad_field",
                "regions['%s'] must be an array of at most 256 regions", key);
            goto out_free;
        }
        json_t *dst = json_object_get(out, norm);
        if (!dst) {
            dst = json_array();
            json_object_set_new(out, norm, dst);
        }
        size_t k;
        json_t *r;
        json_array_foreach(list, k, r)
        {
            char why[256];
            json_t *nr = norm_region(r, why, sizeof(why));
            if (!nr) {
                api_reply_error(c->req, 400, "bad_field",
                    "regions['%s'][%zu]: %s", key, k, why);
                goto out_free;
            }
            json_array_append_new(dst, nr);
        }
        free(norm);
        norm = NULL;
    }
    return out;

out_free:
    free(norm);
    json_decref(out);
    return NULL;
}

/* POST /v1/intents {agent, files, regions?, summary?, ttlMs?} */
static void
h_intent(struct api_ctx *c)
{
    static const char *const keys[] = { "agent", "files", "regions", "summary",
        "ttlMs", NULL };
    ssize_t i;
    int64_t ttl;
    if (api_check_keys(c, keys) || (i = api_body_agent(c, "agent")) < 0 ||
        api_want_string(c, "summary", false, 2048) || api_body_ttl(c, &ttl))
        return;
    if (ttl == LOCK_TTL_DEFAULT)
        ttl = 30 * 60 * 1000; /* an intent looks ahead half an hour */
    json_t *files = json_object_get(c->body, "files");
    if (!json_is_array(files) || !json_array_size(files) ||
        json_array_size(files) > 256) {
        api_reply_error(c->req, 400, "bad_field",
            "'files' must be a non-empty array of at most 256 paths or globs");
        return;
    }
    json_t *regions = json_object_get(c->body, "regions");
    if (regions && !json_is_object(regions)) {
        api_reply_error(c->req, 400, "bad_field",
            "'regions' must be an object: {path: [{name} | {lines: [s, e]}]}");
        return;
    }
    struct broker *b = c->b;
    char **norms = xcalloc(json_array_size(files), sizeof(*norms));
    size_t nnorms = 0;
    json_t *nregions = NULL;
    size_t k;
    json_t *f;
    json_array_foreach(files, k, f)
    {
        const char *p = json_string_value(f);
        char *norm = NULL;
        struct glob *g = NULL;
        struct as_err e;
        if (!p || api_norm_path(c, (size_t)i, p, &norm) < 0 ||
            glob_compile(norm, &g, &e) < 0) {
            api_reply_error(c->req, 400, "bad_path",
                "files[%zu] '%s' is not a path or glob inside the repository",
                k, p ? p : "");
            free(norm);
            goto out_files;
        }
        glob_free(g);
        norms[nnorms++] = norm;
    }
    if (regions &&
        !(nregions = norm_regions(c, (size_t)i, regions, norms, nnorms)))
        goto out_files;
    /* contact first: a stale agent coming back is told to the detector
     * with its older intents, and this one is told below, once */
    broker_agent_seen(b, (size_t)i);
    char *rtext = nregions ? json_dumps(nregions, JSON_COMPACT) : NULL;
    if (nregions)
        json_decref(nregions);
    struct as_req r = { .agent = b->ag[i].id,
        .files = (const char *const *)norms,
        .nfiles = nnorms,
        .regions = rtext,
        .summary = json_string_value(json_object_get(c->body, "summary")),
        .ttl_ms = ttl };
    struct as_result res;
    as_result_init(&res);
    struct as_events ev;
    as_events_init(&ev);
    int64_t now = broker_now();
    int rc = as_intent_declare(broker_airspace(b), now, &r, &res, &ev);
    free(rtext);
    broker_airspace_events(b, &ev);
    as_events_release(&ev);
    if (rc) {
        api_reply_error(
            c->req, broker_airspace_status(&res), res.code, "%s", res.err.msg);
        as_result_release(&res);
        goto out_files;
    }
    const struct as_intent *in = as_intent_find(b->as, res.intent_id, now);
    uint64_t similar = res.similar_id;
    double score = res.similar_score;
    as_result_release(&res);
    json_t *o = broker_intent_json(in);
    /* The detector decides forward conflicts (regions, dedup) and tells
     * both agents; the reply lists those involving this agent. */
    struct conflict_msgs cm;
    conflict_msgs_init(&cm);
    broker_conflicts_intent(b, in, &cm);
    char *agent = xstrdup(in->agent);
    json_t *conf = json_array();
    for (size_t q = 0; q < cm.n; q++) {
        const struct conflict_msg *x = &cm.v[q];
        if (x->escalation || strcmp(x->to, agent))
            continue;
        const char *other = x->a && strcmp(x->a, agent) ? x->a : x->b;
        json_array_append_new(
            conf, json_pack("{s:s, s:s, s:s, s:s}", "shape",
                      conflict_shape_name(x->shape), "with", other ? other : "",
                      "file", x->file ? x->file : "", "text", x->text));
    }
    broker_conflict_msgs(b, &cm);
    conflict_msgs_release(&cm);
    /* Task dedup: a live intent of another agent with a close summary
     * (the machine found it): the supervisor is told. */
    const struct as_intent *twin =
        similar ? as_intent_find(b->as, similar, now) : NULL;
    if (twin) {
        json_object_set_new(o, "similar",
            json_pack("{s:s, s:s, s:I, s:f}", "agent", twin->agent, "summary",
                twin->summary, "intent", (json_int_t)twin->id, "score", score));
        char *text = xasprintf("[duplicate?] '%s' is already on it: "
                               "\"%s\" (similarity %.2f)",
            twin->agent, twin->summary, score);
        broker_send(b, "supervisor", agent, "info", text);
        free(text);
    }
    free(agent);
    json_object_set_new(o, "conflicts", conf);
    broker_sync_intents(b);
    broker_rescore(b, (size_t)i);
    api_reply_json(c->req, 200, o);

out_files:
    for (size_t j = 0; j < nnorms; j++)
        free(norms[j]);
    free(norms);
}

static void
h_intents(struct api_ctx *c)
{
    const char *agent = evhttp_find_header(&c->query, "agent");
    int64_t now = broker_now();
    json_t *v = json_array();
    const struct airspace *as = broker_airspace(c->b);
    for (size_t k = 0; k < as->nintents; k++) {
        const struct as_intent *in = &as->intents[k];
        if (in->expires_at > now && (!agent || !strcmp(agent, in->agent)))
            json_array_append_new(v, broker_intent_json(in));
    }
    api_reply_json(c->req, 200, json_pack("{s:o}", "intents", v));
}

/* POST /v1/intents/{id}/drop {agent} */
static void
h_intent_drop(struct api_ctx *c)
{
    static const char *const keys[] = { "agent", NULL };
    ssize_t i;
    if (api_check_keys(c, keys) || (i = api_body_agent(c, "agent")) < 0)
        return;
    char *end;
    errno = 0;
    unsigned long long id = strtoull(c->seg[2], &end, 10);
    if (errno || *end || end == c->seg[2]) {
        api_reply_error(
            c->req, 404, "unknown_intent", "no intent '%s'", c->seg[2]);
        return;
    }
    struct broker *b = c->b;
    struct as_req r = { .agent = b->ag[i].id, .intent_id = id };
    struct as_result res;
    as_result_init(&res);
    struct as_events ev;
    as_events_init(&ev);
    int rc = as_intent_drop(broker_airspace(b), broker_now(), &r, &res, &ev);
    broker_airspace_events(b, &ev);
    as_events_release(&ev);
    if (rc) {
        api_reply_error(
            c->req, broker_airspace_status(&res), res.code, "%s", res.err.msg);
        as_result_release(&res);
        return;
    }
    as_result_release(&res);
    broker_sync_intents(b);
    broker_rescore(b, (size_t)i);
    api_reply_json(c->req, 200, json_pack("{s:b}", "ok", 1));
}

/* POST /v1/messages {from, to, type?, body} */
static void
h_message(struct api_ctx *c)
{
    static const char *const keys[] = { "from", "to", "type", "body", NULL };
    ssize_t i;
    if (api_check_keys(c, keys) || (i = api_body_agent(c, "from")) < 0 ||
        api_want_string(c, "to", true, 64) ||
        api_want_string(c, "type", false, 16) ||
        api_want_string(c, "body", true, 16384))
        return;
    struct as_req r = { .agent = c->b->ag[i].id,
        .to = json_string_value(json_object_get(c->body, "to")),
        .type = json_string_value(json_object_get(c->body, "type")),
        .body = json_string_value(json_object_get(c->body, "body")) };
    struct as_result res;
    as_result_init(&res);
    bool relayed = false; /* to another daemon's agent */
    if (team_message_route(c->b, &r, &res, &relayed) ||
        (!relayed && broker_message(c->b, &r, &res))) {
        api_reply_error(
            c->req, broker_airspace_status(&res), res.code, "%s", res.err.msg);
        as_result_release(&res);
        return;
    }
    broker_agent_seen(c->b, (size_t)i);
    api_reply_json(c->req, 200,
        json_pack("{s:I}", "delivered", (json_int_t)res.delivered));
    as_result_release(&res);
}

/* GET /v1/agents/{id}/inbox[?peek=1]: unread messages, then marked read. */
static void
h_inbox(struct api_ctx *c)
{
    const char *owner = c->seg[2];
    if (strcmp(owner, "supervisor") && api_agent_arg(c, 2) < 0)
        return;
    const char *peek = evhttp_find_header(&c->query, "peek");
    bool mark = !(peek && !strcmp(peek, "1"));
    struct as_req r = { .owner = owner, .peek = !mark };
    struct as_result res;
    as_result_init(&res);
    struct as_events ev;
    as_events_init(&ev);
    int rc = as_inbox_read(broker_airspace(c->b), broker_now(), &r, &res, &ev);
    broker_airspace_events(c->b, &ev);
    as_events_release(&ev);
    if (rc) {
        api_reply_error(
            c->req, broker_airspace_status(&res), res.code, "%s", res.err.msg);
        as_result_release(&res);
        return;
    }
    json_t *v = json_array();
    for (size_t k = 0; k < res.nmsgs; k++)
        json_array_append_new(v, broker_message_json(&res.msgs[k]));
    api_reply_json(c->req, 200,
        json_pack(
            "{s:o, s:I}", "messages", v, "dropped", (json_int_t)res.dropped));
    as_result_release(&res);
}

/* GET /v1/escalations[?agent=ID]: what waits for a human. */
static void
h_escalations(struct api_ctx *c)
{
    const char *agent = evhttp_find_header(&c->query, "agent");
    api_reply_json(c->req, 200,
        json_pack(
            "{s:o}", "escalations", broker_escalations_json(c->b, agent)));
}

/* GET /v1/conflicts: the detector's current conflicts. */
static void
h_conflicts(struct api_ctx *c)
{
    struct conflict_list l;
    conflict_list_init(&l);
    conflicts_list(c->b->conflicts, broker_now(), &l);
    json_t *v = json_array();
    for (size_t k = 0; k < l.n; k++) {
        const struct conflict_view *x = &l.v[k];
        json_t *o = json_pack("{s:s, s:[s,s], s:s, s:I, s:b, s:b}", "shape",
            conflict_shape_name(x->shape), "agents", x->a, x->b ? x->b : "",
            "file", x->file ? x->file : "", "since", (json_int_t)x->since,
            "additive", x->additive, "escalated", x->escalated);
        if (x->why)
            json_object_set_new(o, "why", json_string(x->why));
        if (x->shape == CONFLICT_INTEGRATION)
            json_object_set_new(o, "branch", json_string(x->b));
        json_array_append_new(v, o);
    }
    conflict_list_release(&l);
    api_reply_json(c->req, 200, json_pack("{s:o}", "conflicts", v));
}

/* GET /v1/ledger[?after=N][&type=PREFIX][&agent=ID][&limit=N]: recorded
 * events, oldest first, from the store. */
static void
add_event(void *ctx, const struct db_event *de)
{
    json_t *e = json_loads(de->json, 0, NULL);
    if (e)
        json_array_append_new(ctx, e);
}

static int
query_num(
    struct api_ctx *c, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    const char *v = evhttp_find_header(&c->query, key);
    if (!v)
        return 0;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || *end || end == v || n < lo || n > hi) {
        api_reply_error(c->req, 400, "bad_field",
            "'%s' must be an integer in %lld..%lld", key, (long long)lo,
            (long long)hi);
        return -1;
    }
    *out = n;
    return 0;
}

static void
h_ledger(struct api_ctx *c)
{
    int64_t after = 0, limit = 1000, since = 0, until = 0;
    if (query_num(c, "after", 0, INT64_MAX, &after) ||
        query_num(c, "limit", 1, 100000, &limit) ||
        query_num(c, "since", 0, INT64_MAX, &since) ||
        query_num(c, "until", 0, INT64_MAX, &until))
        return;
    const char *type = evhttp_find_header(&c->query, "type");
    const char *agent = evhttp_find_header(&c->query, "agent");
    struct db_ledger_filter f = { (uint64_t)after, type && *type ? type : NULL,
        agent && *agent ? agent : NULL, since, until, (long)limit };
    json_t *v = json_array();
    struct as_err e;
    if (db_ledger_query(c->b->db, &f, add_event, v, &e)) {
        json_decref(v);
        api_reply_error(c->req, 500, "store", "%s", e.msg);
        return;
    }
    api_reply_json(c->req, 200, json_pack("{s:o}", "events", v));
}

/* Activity (conformance §3): the heat of files per agent. */
#define ACTIVITY_HALF_LIFE_MS (10 * 60 * 1000)
#define ACTIVITY_BATCH_MAX 10000

static int
parse_action(const char *s, enum activity_action *out)
{
    static const enum activity_action all[] = { ACTIVITY_NONE, ACTIVITY_READ,
        ACTIVITY_SEARCH, ACTIVITY_WRITE };
    for (size_t k = 0; s && k < sizeof(all) / sizeof(all[0]); k++)
        if (!strcmp(s, activity_action_name(all[k]))) {
            *out = all[k];
            return 0;
        }
    return -1;
}

/* POST /v1/activity {agent, session, events: [{seq, file, heat,
 * inContext, action, actionAt?, at}]}: a batch of one session's deltas.
 * Replies {applied, duplicates, resync}: applied counts the deltas with a
 * new seq, after a gap too; duplicates those with a seq seen before
 * (merged again: a repeat changes nothing); resync is true when a gap was
 * seen (the client should send a snapshot: POST /v1/activity/snapshot).
 * A batch with a delta applied re-scores the agent's pairs. */
static void
h_activity(struct api_ctx *c)
{
    static const char *const keys[] = { "agent", "session", "events", NULL };
    ssize_t i;
    if (api_check_keys(c, keys) || (i = api_body_agent(c, "agent")) < 0 ||
        api_want_string(c, "session", true, 128))
        return;
    json_t *evs = json_object_get(c->body, "events");
    if (!json_is_array(evs) || json_array_size(evs) > ACTIVITY_BATCH_MAX) {
        api_reply_error(c->req, 400, "bad_field",
            "'events' must be an array of at most %d deltas",
            ACTIVITY_BATCH_MAX);
        return;
    }
    const char *session =
        json_string_value(json_object_get(c->body, "session"));
    /* A refused batch changes nothing: every delta is checked (as
     * activity_apply would) before any is applied. */
    size_t n = json_array_size(evs);
    struct activity_delta *ds = xcalloc(n + 1, sizeof(*ds));
    size_t k;
    json_t *ev;
    json_array_foreach(evs, k, ev)
    {
        struct activity_delta *d = &ds[k];
        d->agent = c->b->ag[i].id;
        d->session = session;
        json_int_t seq = json_integer_value(json_object_get(ev, "seq"));
        d->file = json_string_value(json_object_get(ev, "file"));
        d->e.heat = json_number_value(json_object_get(ev, "heat"));
        d->e.in_context = json_is_true(json_object_get(ev, "inContext"));
        d->e.at = (int64_t)json_integer_value(json_object_get(ev, "at"));
        json_t *aa = json_object_get(ev, "actionAt");
        d->e.action_at = aa ? (int64_t)json_integer_value(aa) : d->e.at;
        const char *act = json_string_value(json_object_get(ev, "action"));
        if (seq < 1 || !d->file || !*d->file ||
            parse_action(act ? act : "none", &d->e.action)) {
            free(ds);
            api_reply_error(c->req, 400, "bad_field",
                "events[%zu] needs seq >= 1, file, and action read, search, "
                "write or none",
                k);
            return;
        }
        if (!(d->e.heat >= 0 && d->e.heat <= ACTIVITY_HEAT_MAX)) {
            free(ds);
            api_reply_error(c->req, 400, "bad_field",
                "events[%zu]: heat must lie in [0, %g]", k, ACTIVITY_HEAT_MAX);
            return;
        }
        d->seq = (uint64_t)seq;
    }
    size_t applied = 0, dups = 0;
    bool gap = false;
    for (k = 0; k < n; k++) {
        struct as_err e;
        int rc = activity_apply(c->b->activity, &ds[k], &e);
        if (rc < 0) {
            /* what is left (a session of another agent) refuses the
             * first delta, before anything was applied */
            free(ds);
            api_reply_error(
                c->req, 400, "bad_field", "events[%zu]: %s", k, e.msg);
            return;
        }
        /* a delta after a gap is merged as any other (the table is
         * last-writer-wins): applied, and a snapshot asked for what the
         * gap lost */
        applied += rc == ACTIVITY_APPLIED || rc == ACTIVITY_GAP;
        dups += rc == ACTIVITY_DUPLICATE;
        gap = gap || rc == ACTIVITY_GAP;
    }
    free(ds);
    broker_agent_seen(c->b, (size_t)i);
    if (applied)
        broker_rescore(c->b, (size_t)i); /* its context channel moved */
    api_reply_json(c->req, 200,
        json_pack("{s:I, s:I, s:b}", "applied", (json_int_t)applied,
            "duplicates", (json_int_t)dups, "resync", gap));
}

/* POST /v1/activity/snapshot {agent, session, seq, files: [{file, heat,
 * inContext, action, actionAt?, at}]}: the session's whole state after a
 * gap; numbering continues from seq. */
static void
h_activity_snapshot(struct api_ctx *c)
{
    static const char *const keys[] = { "agent", "session", "seq", "files",
        NULL };
    ssize_t i;
    if (api_check_keys(c, keys) || (i = api_body_agent(c, "agent")) < 0 ||
        api_want_string(c, "session", true, 128))
        return;
    json_t *files = json_object_get(c->body, "files");
    json_int_t seq = json_integer_value(json_object_get(c->body, "seq"));
    if (!json_is_array(files) || json_array_size(files) > ACTIVITY_BATCH_MAX ||
        seq < 0) {
        api_reply_error(c->req, 400, "bad_field",
            "a snapshot needs 'seq' >= 0 and 'files', an array of at most %d",
            ACTIVITY_BATCH_MAX);
        return;
    }
    size_t n = json_array_size(files);
    const char **names = xcalloc(n + 1, sizeof(*names));
    struct activity_entry *ents = xcalloc(n + 1, sizeof(*ents));
    size_t k;
    json_t *f;
    json_array_foreach(files, k, f)
    {
        names[k] = json_string_value(json_object_get(f, "file"));
        ents[k].heat = json_number_value(json_object_get(f, "heat"));
        ents[k].in_context = json_is_true(json_object_get(f, "inContext"));
        ents[k].at = (int64_t)json_integer_value(json_object_get(f, "at"));
        json_t *aa = json_object_get(f, "actionAt");
        ents[k].action_at = aa ? (int64_t)json_integer_value(aa) : ents[k].at;
        const char *act = json_string_value(json_object_get(f, "action"));
        if (!names[k] || !*names[k] ||
            parse_action(act ? act : "none", &ents[k].action)) {
            free(names);
            free(ents);
            api_reply_error(c->req, 400, "bad_field",
                "files[%zu] needs file and action read, search, write or "
                "none",
                k);
            return;
        }
    }
    struct as_err e;
    int rc = activity_resync(c->b->activity, c->b->ag[i].id,
        json_string_value(json_object_get(c->body, "session")), (uint64_t)seq,
        names, ents, n, &e);
    free(names);
    free(ents);
    if (rc < 0) {
        api_reply_error(c->req, 400, "bad_field", "%s", e.msg);
        return;
    }
    api_reply_json(c->req, 200, json_pack("{s:I}", "files", (json_int_t)n));
}

/* POST /v1/activity/disconnect {agent, session} */
static void
h_activity_disconnect(struct api_ctx *c)
{
    static const char *const keys[] = { "agent", "session", NULL };
    ssize_t i;
    if (api_check_keys(c, keys) || (i = api_body_agent(c, "agent")) < 0 ||
        api_want_string(c, "session", true, 128))
        return;
    activity_disconnect(c->b->activity, c->b->ag[i].id,
        json_string_value(json_object_get(c->body, "session")));
    api_reply_json(c->req, 200, json_pack("{s:b}", "ok", 1));
}

/* GET /v1/activity[?file=PATH]: the merged view per file. */
static void
h_activity_view(struct api_ctx *c)
{
    const char *only = evhttp_find_header(&c->query, "file");
    int64_t now = broker_now();
    json_t *v = json_array();
    size_t n = activity_nfiles(c->b->activity);
    for (size_t k = 0; k < n; k++) {
        const char *f = activity_file(c->b->activity, k);
        if (only && strcmp(only, f))
            continue;
        struct activity_view view;
        if (!activity_view(
                c->b->activity, f, now, ACTIVITY_HALF_LIFE_MS, &view))
            continue;
        json_t *o = json_pack("{s:s, s:f, s:b, s:s, s:I, s:I}", "file", f,
            "heat", view.heat, "inContext", view.in_context, "action",
            activity_action_name(view.action), "actionAt",
            (json_int_t)view.action_at, "agents", (json_int_t)view.nagents);
        if (view.agent)
            json_object_set_new(o, "by", json_string(view.agent));
        json_array_append_new(v, o);
    }
    api_reply_json(c->req, 200, json_pack("{s:o}", "files", v));
}

/* POST /v1/agents/{id}/prompt {prompt}: what the agent was just asked;
 * replies {topics, converging: [{agent, topics}]}. */
static void
h_prompt(struct api_ctx *c)
{
    static const char *const keys[] = { "prompt", NULL };
    ssize_t i = api_local_agent_arg(c, 2);
    if (i < 0 || api_check_keys(c, keys) ||
        api_want_string(c, "prompt", true, 1 << 20))
        return;
    struct broker *b = c->b;
    struct topic_set set;
    topics_extract(json_string_value(json_object_get(c->body, "prompt")), &set);
    topic_track_add(&b->meta[i].topics, &set);
    broker_agent_seen(b, (size_t)i);
    json_t *topics = json_array();
    for (size_t k = 0; k < set.n; k++)
        json_array_append_new(topics, json_string(set.t[k]));
    json_t *conv = json_array();
    for (size_t j = 0; j < b->nagents; j++) {
        if (j == (size_t)i || broker_who(b, j)->status != AS_AGENT_ACTIVE)
            continue;
        struct topic_set on;
        if (!topics_converge(&b->meta[i].topics, &b->meta[j].topics, &on))
            continue;
        json_t *t = json_array();
        for (size_t k = 0; k < on.n; k++)
            json_array_append_new(t, json_string(on.t[k]));
        json_array_append_new(
            conv, json_pack("{s:s, s:o}", "agent", b->ag[j].id, "topics", t));
    }
    json_t *o = json_pack("{s:o, s:o}", "topics", topics, "converging", conv);
    broker_emit(b, "prompt.topics", b->ag[i].id, json_deep_copy(o));
    broker_rescore(b, (size_t)i);
    api_reply_json(c->req, 200, o);
}

const struct api_route api_collab_routes[] = {
    { EVHTTP_REQ_POST, "v1/agents/*/prompt", h_prompt },
    { EVHTTP_REQ_POST, "v1/activity", h_activity },
    { EVHTTP_REQ_POST, "v1/activity/disconnect", h_activity_disconnect },
    { EVHTTP_REQ_POST, "v1/activity/snapshot", h_activity_snapshot },
    { EVHTTP_REQ_GET, "v1/activity", h_activity_view },
    { EVHTTP_REQ_GET, "v1/ledger", h_ledger },
    { EVHTTP_REQ_GET, "v1/intents", h_intents },
    { EVHTTP_REQ_POST, "v1/intents", h_intent },
    { EVHTTP_REQ_POST, "v1/intents/*/drop", h_intent_drop },
    { EVHTTP_REQ_POST, "v1/messages", h_message },
    { EVHTTP_REQ_GET, "v1/agents/*/inbox", h_inbox },
    { EVHTTP_REQ_GET, "v1/conflicts", h_conflicts },
    { EVHTTP_REQ_GET, "v1/escalations", h_escalations },
};
const size_t api_collab_nroutes =
    sizeof(api_collab_routes) / sizeof(api_collab_routes[0]);

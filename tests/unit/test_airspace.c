/* test_airspace.c - the airspace state machine, one table of steps per
 * operation: each step's return, error code, result and events, every
 * error path included; after each scenario its events replayed into a
 * fresh machine rebuild an equal state. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airspace/airspace.h"
#include "test.h"

#define MIN 60000

enum op {
    REG = 0, /* register (a = label, registered unless flag) */
    BEAT,
    EXIT,
    FORGET,
    LOCK,
    REL,
    RENEW,
    CONTEST,
    FORCE,
    DECLARE, /* files: a (one) and b (another, when set) */
    DROP,
    SEND, /* to a, type b, body "hi" */
    READ, /* inbox of agent (peek when flag) */
    MOVE, /* inbox agent -> a */
    EXPIRE,
    RENAME,  /* agent -> a */
    DROPALL, /* every intent of agent */
    CONTACT,
    TOUCH,  /* agent's activity on path a */
    CHECK_, /* would agent get a (mode b)? */
    LEXPIRE,
    JOIN,     /* agent (NULL: made), worktree a (resolved unless flag),
                 client b, kind c */
    DISCOVER, /* name agent, worktree a */
    HUMAN,    /* of worktree a */
    PEER,     /* agent, client b */
    SEEN,
    SETST,  /* agent's status a ("active", "exited", "stale", else bad),
               reason b, heard from first when flag */
    IS,     /* agent is there with worktree a (NULL: none) and flags b */
    WTGONE, /* worktree a is gone (reason b) */
    FLIES,  /* 1 when another agent flies in agent's worktree, else 0 */
};

struct step {
    enum op op;
    const char *agent;
    int64_t now;
    const char *a, *b;
    uint64_t n;  /* token (REL, RENEW), intent id (DROP) */
    bool flag;   /* REG: discovered; LOCK: claim; READ: peek; LOCK: shared */
    int64_t ttl; /* 0: LOCK_TTL_DEFAULT */
    int rc;      /* expected return */
    const char *code;   /* expected res.code (NULL: none) */
    const char *events; /* expected event names, space-separated ("" none;
                           NULL: not checked) */
    int64_t want;       /* op-specific: token granted, intent id, delivered,
                           messages read (+1: 0 means not checked); JOIN,
                           DISCOVER, HUMAN, PEER: 8 + created + 2 taken +
                           4 new worktree */
    const char *c;      /* JOIN: the kind */
    const char *id;     /* JOIN, DISCOVER, HUMAN, PEER: the agent's id */
    const char *from;   /* JOIN: the id it was renamed from */
};

struct scenario {
    const char *name;
    size_t inbox_max;
    struct step steps[24];
};

static void
events_str(const struct as_events *ev, size_t from, char *buf, size_t n)
{
    buf[0] = '\0';
    size_t len = 0;
    for (size_t i = from; i < ev->n && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i > from ? " " : "",
            ev->v[i].kind == AS_EV_LOCK ? lock_event_name(&ev->v[i].lock)
                                        : as_event_kind_name(ev->v[i].kind));
}

static int
run_step(struct airspace *as, const struct step *s, struct as_result *res,
    struct as_events *ev)
{
    struct as_req r = { 0 };
    const char *files[2] = { s->a, s->b };
    r.agent = s->agent;
    r.ttl_ms = s->ttl ? s->ttl : LOCK_TTL_DEFAULT;
    switch (s->op) {
    case REG:
        r.label = s->a;
        r.registered = !s->flag;
        return as_register(as, s->now, &r, res, ev);
    case BEAT:
        return as_heartbeat(as, s->now, &r, res, ev);
    case EXIT:
        return as_exit(as, s->now, &r, res, ev);
    case FORGET:
        return as_forget(as, s->now, &r, res, ev);
    case LOCK:
        r.pattern = s->a;
        r.kind = s->flag ? LOCK_KIND_CLAIM : LOCK_KIND_LOCK;
        r.mode = s->b && !strcmp(s->b, "shared") ? LOCK_SHARED : LOCK_EXCLUSIVE;
        return as_lock(as, s->now, &r, res, ev);
    case REL:
    case RENEW:
        r.pattern = s->a;
        r.token = s->n;
        return s->op == REL ? as_release(as, s->now, &r, res, ev)
                            : as_renew(as, s->now, &r, res, ev);
    case CONTEST:
    case FORCE:
        r.pattern = s->a;
        r.token = s->n;
        return s->op == CONTEST ? as_contest(as, s->now, &r, res, ev)
                                : as_force(as, s->now, &r, res, ev);
    case DECLARE:
        r.files = files;
        r.nfiles = s->a ? (s->b ? 2 : 1) : 0;
        r.summary = "work";
        return as_intent_declare(as, s->now, &r, res, ev);
    case DROP:
        r.intent_id = s->n;
        return as_intent_drop(as, s->now, &r, res, ev);
    case SEND:
        r.to = s->a;
        r.type = s->b;
        r.body = "hi";
        return as_message_send(as, s->now, &r, res, ev);
    case READ:
        r.owner = s->agent;
        r.peek = s->flag;
        return as_inbox_read(as, s->now, &r, res, ev);
    case MOVE:
        r.owner = s->agent;
        r.to = s->a;
        return as_inbox_move(as, s->now, &r, res, ev);
    case EXPIRE:
        return (int)as_expire(as, s->now, ev);
    case RENAME:
        r.to = s->a;
        return as_rename(as, s->now, &r, res, ev);
    case DROPALL:
        return as_intent_drop_all(as, s->now, &r, res, ev);
    case CONTACT:
        return as_contact(as, s->now, &r, res, ev);
    case TOUCH:
        r.pattern = s->a;
        return as_touch(as, s->now, &r, res, ev);
    case CHECK_:
        r.pattern = s->a;
        r.file = true;
        r.mode = s->b && !strcmp(s->b, "shared") ? LOCK_SHARED : LOCK_EXCLUSIVE;
        return as_check(as, s->now, &r, res);
    case LEXPIRE:
        return (int)as_locks_expire(as, s->now, ev);
    case JOIN:
        r.worktree = s->a;
        r.worktree_real = !s->flag;
        r.client = s->b;
        r.agent_kind = s->c;
        return as_join(as, s->now, &r, res, ev);
    case DISCOVER:
        r.worktree = s->a;
        return as_discover(as, s->now, &r, res, ev);
    case HUMAN:
        r.worktree = s->a;
        return as_human(as, s->now, &r, res, ev);
    case PEER:
        r.client = s->b;
        return as_peer(as, s->now, &r, res, ev);
    case SEEN:
        return as_seen(as, s->now, &r, res, ev);
    case SETST:
        r.status = !strcmp(s->a, "active")   ? AS_AGENT_ACTIVE
                   : !strcmp(s->a, "exited") ? AS_AGENT_EXITED
                   : !strcmp(s->a, "stale")  ? AS_AGENT_STALE
                                             : (enum as_agent_status)7;
        r.reason = s->b;
        r.seen = s->flag;
        return as_set_status(as, s->now, &r, res, ev);
    case WTGONE:
        r.worktree = s->a;
        r.reason = s->b;
        return as_worktree_gone(as, s->now, &r, res, ev);
    case FLIES:
        return as_agent_find(as, s->agent) &&
               as_flies_shared(as, as_agent_find(as, s->agent));
    case IS:
        if (as_agent_find(as, s->agent))
            return 0;
        snprintf(res->err.msg, sizeof(res->err.msg), "no agent");
        return AS_ENOENT;
    }
    return -100;
}

/* Agent a's status and flags as IS steps name them. */
static void
agent_flags(const struct as_agent *a, char *buf, size_t n)
{
    static const char *const st[] = { "active", "exited", "stale" };
    snprintf(buf, n, "%s%s%s%s%s%s%s", st[a->status], a->human ? " human" : "",
        a->registered ? " registered" : "",
        a->from_worktree ? " from_worktree" : "", a->shared ? " shared" : "",
        a->human_residual ? " human_residual" : "", a->peer ? " peer" : "");
}

static int64_t
op_value(const struct step *s, const struct as_result *res)
{
    switch (s->op) {
    case LOCK:
    case RENEW:
    case CHECK_:
        return res->have_lock ? (int64_t)res->lock.token : 0;
    case DECLARE:
        return (int64_t)res->intent_id;
    case SEND:
        return (int64_t)res->delivered;
    case READ:
        return (int64_t)res->nmsgs;
    case JOIN:
    case DISCOVER:
    case HUMAN:
    case PEER:
        return 8 + res->created + 2 * res->taken + 4 * res->new_worktree;
    case WTGONE:
        return 8 + (int64_t)res->changed;
    default:
        return 0;
    }
}

/* alice and bob registered, wt a discovered worktree (no session), all at
 * 0; every scenario starts here. */
#define CREW                                                                   \
    { REG, "alice", 0, "front", .events = "agent.registered" },                \
        { REG, "bob", 0, "back", .events = "agent.registered" },               \
    {                                                                          \
        REG, "wt", 0, .flag = true, .events = "agent.registered"               \
    }

static const struct scenario scenarios[] = {
    { "register and heartbeat", 0,
        { CREW,
            { REG, "", 1, .rc = AS_EINVAL, .code = "bad_field", .events = "" },
            { REG, "supervisor", 1, .rc = AS_EINVAL, .code = "bad_field",
                .events = "" },
            { BEAT, "nobody", 1, .rc = AS_ENOENT, .code = "unknown_agent",
                .events = "" },
            { BEAT, "alice", 5, .events = "agent.seen" },
            { EXPIRE, NULL, 5 + 2 * MIN + 1, .rc = 2,
                .events = "agent.status agent.status" },
            { BEAT, "bob", 3 * MIN, .events = "agent.seen agent.status" },
            { EXIT, "bob", 3 * MIN, .events = "agent.seen agent.status" },
            { EXIT, "bob", 3 * MIN, .events = "agent.seen" },
            { CONTACT, "bob", 3 * MIN, .rc = AS_ECONFLICT, .code = "refused",
                .events = "" },
            { CONTACT, "nobody", 3 * MIN, .rc = AS_ENOENT,
                .code = "unknown_agent", .events = "" },
            { CONTACT, "alice", 3 * MIN, .events = "agent.seen agent.status" },
            { CONTACT, "alice", 3 * MIN + 1, .events = "" },
            { BEAT, "bob", 3 * MIN + 1, .events = "agent.seen agent.status" },
            { EXIT, "bob", 3 * MIN + 2 },
            { REG, "bob", 4 * MIN, "back",
                .events = "agent.registered agent.status" },
            { EXIT, "nobody", 1, .rc = AS_ENOENT, .code = "unknown_agent" },
            { FORGET, "nobody", 1, .rc = AS_ENOENT, .code = "unknown_agent" },
            { FORGET, "wt", 4 * MIN, .events = "agent.gone" },
            { BEAT, "wt", 4 * MIN, .rc = AS_ENOENT,
                .code = "unknown_agent" } } },
    { "lock: grant, refresh, conflict, bad input", 0,
        { CREW,
            { LOCK, "alice", 1, "src/a.c", .events = "lock.granted",
                .want = 1 },
            { LOCK, "alice", 2, "src/a.c", .events = "lock.refreshed",
                .want = 1 },
            { LOCK, "bob", 3, "src/a.c", .rc = AS_ECONFLICT, .code = "held",
                .events = "", .want = 1 },
            { LOCK, "bob", 3, "src/*.c", .rc = AS_ECONFLICT, .code = "held",
                .events = "" },
            { LOCK, "bob", 3, "src/b.c", .events = "lock.granted", .want = 2 },
            { LOCK, "bob", 3, "../etc/passwd", .rc = AS_EINVAL,
                .code = "bad_path", .events = "" },
            { LOCK, "bob", 3, "", .rc = AS_EINVAL, .code = "bad_field",
                .events = "" },
            { LOCK, "bob", 3, "x", .ttl = -5, .rc = AS_EINVAL,
                .code = "bad_field", .events = "" },
            { LOCK, "nobody", 3, "x", .rc = AS_ENOENT, .code = "unknown_agent",
                .events = "" },
            { LOCK, "alice", 4, "docs", "shared", .events = "lock.granted",
                .want = 3 },
            { LOCK, "bob", 4, "docs", "shared", .events = "lock.granted",
                .want = 4 },
            { EXIT, "bob", 5,
                .events = "agent.seen lock.released_all lock.released_all "
                          "agent.status" },
            { LOCK, "bob", 6, "src/b.c", .rc = AS_ECONFLICT, .code = "refused",
                .events = "" } } },
    { "lock: a stale agent is back, expiry retires", 0,
        { CREW, { EXPIRE, NULL, 2 * MIN + 1, .rc = 2 },
            { LOCK, "alice", 2 * MIN + 2, "a", .ttl = 1000,
                .events = "agent.seen agent.status lock.granted", .want = 1 },
            { LOCK, "bob", 2 * MIN + 2000, "a",
                .events = "agent.seen agent.status lock.expired lock.granted",
                .want = 2 } } },
    { "release: fencing token", 0,
        { CREW, { LOCK, "alice", 1, "src/a.c", .want = 1 },
            { REL, "alice", 2, "src/a.c", .rc = AS_EINVAL,
                .code = "token_required", .events = "" },
            { REL, "alice", 2, "src/a.c", .n = 7, .rc = AS_ECONFLICT,
                .code = "stale_token", .events = "" },
            { REL, "bob", 2, "src/a.c", .n = 1, .rc = AS_ECONFLICT,
                .code = "held", .events = "" },
            { REL, "bob", 2, "src/z.c", .rc = AS_ENOENT, .code = "not_held",
                .events = "" },
            { REL, "bob", 2, "../x", .rc = AS_EINVAL, .code = "bad_path" },
            { REL, "nobody", 2, "src/a.c", .n = 1, .rc = AS_ENOENT,
                .code = "unknown_agent" },
            { REL, "alice", 3, "src/a.c", .n = 1, .events = "lock.released" },
            { REL, "alice", 3, "src/a.c", .n = 1, .rc = AS_ENOENT,
                .code = "not_held", .events = "" },
            { LOCK, "alice", 4, "src/a.c", .events = "lock.granted",
                .want = 2 },
            { REL, "alice", 5, "src/a.c", .n = 1, .rc = AS_ECONFLICT,
                .code = "stale_token" } } },
    { "renew: fencing token and ttl", 0,
        { CREW, { LOCK, "alice", 1, "a", .ttl = 1000, .want = 1 },
            { RENEW, "alice", 2, "a", .rc = AS_EINVAL,
                .code = "token_required" },
            { RENEW, "alice", 2, "a", .n = 9, .rc = AS_ECONFLICT,
                .code = "stale_token", .want = 1 },
            { RENEW, "alice", 500, "a", .n = 1, .ttl = 5000,
                .events = "lock.renewed", .want = 1 },
            { RENEW, "bob", 600, "a", .rc = AS_ENOENT, .code = "not_held" },
            { RENEW, "alice", 600, "a", .n = 1, .ttl = -1, .rc = AS_EINVAL,
                .code = "bad_field" },
            { RENEW, "alice", 6000, "a", .n = 1, .rc = AS_ENOENT,
                .code = "not_held", .events = "lock.expired" } } },
    { "touch, check and lock expiry", 0,
        { CREW, { LOCK, "alice", 1, "src", .ttl = 1000, .want = 1 },
            { TOUCH, "alice", 900, "src/a.c", .rc = 1,
                .events = "lock.touched" },
            { TOUCH, "bob", 900, "src/a.c", .rc = 0, .events = "" },
            { TOUCH, "alice", 900, "../x", .rc = AS_EINVAL, .code = "bad_path",
                .events = "" },
            { CHECK_, "bob", 901, "src/a.c", .rc = AS_ECONFLICT, .code = "held",
                .events = "", .want = 1 },
            { CHECK_, "alice", 901, "src/a.c", .events = "" },
            { CHECK_, "nobody", 901, "docs/x", .events = "" },
            { CHECK_, "bob", 901, "", .rc = AS_EINVAL, .code = "bad_field" },
            { LEXPIRE, NULL, 1899, .rc = 0, .events = "" },
            { LEXPIRE, NULL, 1900, .rc = 1, .events = "lock.expired" },
            { CHECK_, "bob", 1901, "src/a.c", .events = "" } } },
    { "contest and force", 0,
        { CREW, { LOCK, "alice", 1, "lib", .flag = true, .want = 1 },
            { CONTEST, "bob", 2, "lib", .n = 1, .rc = AS_EINVAL,
                .code = "bad_field", .events = "" },
            { FORCE, "bob", 2, "lib", .rc = AS_ECONFLICT, .code = "held",
                .events = "" },
            { CONTEST, "alice", 2, "lib", .rc = AS_EINVAL,
                .code = "bad_field" },
            { CONTEST, "bob", 2, "nothing", .rc = AS_ENOENT,
                .code = "not_held" },
            { CONTEST, "nobody", 2, "lib", .rc = AS_ENOENT,
                .code = "unknown_agent" },
            { CONTEST, "bob", 3, "lib", .events = "claim.contested" },
            { FORCE, "bob", 4, "lib", .rc = AS_ECONFLICT, .code = "held",
                .events = "" },
            { FORCE, "bob", 3 + 2 * MIN, "lib",
                .events = "claim.force_released" },
            { LOCK, "alice", 3 + 2 * MIN, "lib", .flag = true, .want = 2 },
            { CONTEST, "bob", 4 + 2 * MIN, "lib" },
            { EXIT, "alice", 5 + 2 * MIN,
                .events = "agent.seen claim.released_all agent.status" },
            { FORCE, "alice", 5 + 2 * MIN, "lib", .rc = AS_ECONFLICT,
                .code = "refused" } } },
    { "a stale agent's claims go; force waits for an active holder", 0,
        { CREW, { LOCK, "alice", 1, "lib", .flag = true, .want = 1 },
            { CONTEST, "bob", 2, "lib" }, { BEAT, "bob", 2 * MIN },
            { EXPIRE, NULL, 2 * MIN + 2, .rc = 2,
                .events = "claim.released_all agent.status" },
            { LOCK, "alice", 2 * MIN + 3, "lib", .flag = true,
                .events = "agent.seen agent.status claim.granted", .want = 2 },
            { CONTEST, "bob", 2 * MIN + 4, "lib" },
            { FORCE, "bob", 2 * MIN + 5, "lib", .rc = AS_ECONFLICT } } },
    { "intents: declare, drop, expire", 0,
        { CREW,
            { DECLARE, "alice", 1, "src/a.c", "src/*.h",
                .events = "intent.declared", .want = 1 },
            { DECLARE, "alice", 1, .rc = AS_EINVAL, .code = "bad_field",
                .events = "" },
            { DECLARE, "alice", 1, "", .rc = AS_EINVAL, .code = "bad_path" },
            { DECLARE, "alice", 1, "a", .ttl = -3, .rc = AS_EINVAL,
                .code = "bad_field" },
            { DECLARE, "nobody", 1, "a", .rc = AS_ENOENT,
                .code = "unknown_agent" },
            { DECLARE, "bob", 2, "b", .ttl = 1000, .want = 2 },
            { DROP, "bob", 3, .n = 1, .rc = AS_ECONFLICT, .code = "refused",
                .events = "" },
            { DROP, "bob", 3, .n = 99, .rc = AS_ENOENT,
                .code = "unknown_intent" },
            { DROP, "nobody", 3, .n = 1, .rc = AS_ENOENT,
                .code = "unknown_agent" },
            { EXPIRE, NULL, 1002, .rc = 1, .events = "intent.expired" },
            { DROP, "bob", 1003, .n = 2, .rc = AS_ENOENT,
                .code = "unknown_intent" },
            { DECLARE, "alice", 1004, "c", .ttl = INT64_MAX, .want = 3 },
            { DROP, "alice", 1005, .n = 1, .events = "intent.dropped" },
            { EXIT, "alice", 1006, .events = "agent.seen agent.status" },
            { FORGET, "alice", 1007,
                .events = "intent.dropped agent.gone" } } },
    { "messages: send, read, errors", 0,
        { CREW,
            { SEND, "alice", 1, "bob", .events = "message.delivered message",
                .want = 1 },
            { SEND, "alice", 1, "back", "question",
                .events = "message.delivered message", .want = 1 },
            { SEND, "alice", 2, "all", .want = 1 },
            { SEND, "supervisor", 2, "all", .want = 2 },
            { SEND, "alice", 2, "supervisor", "block", .want = 1 },
            { SEND, "alice", 2, "nobody", .rc = AS_ENOENT,
                .code = "unknown_recipient", .events = "" },
            { SEND, "nobody", 2, "bob", .rc = AS_ENOENT,
                .code = "unknown_agent" },
            { SEND, "alice", 2, "bob", "shout", .rc = AS_EINVAL,
                .code = "bad_field" },
            { SEND, "alice", 2, "", .rc = AS_EINVAL, .code = "bad_field" },
            { READ, "bob", 3, .flag = true, .events = "", .want = 4 },
            { READ, "bob", 3,
                .events = "message.read message.read message.read "
                          "message.read",
                .want = 4 },
            { READ, "bob", 4, .events = "", .want = 0 },
            { READ, "nobody", 4, .rc = AS_ENOENT, .code = "unknown_agent" },
            { READ, "supervisor", 4, .want = 1 },
            { READ, "wt", 4, .want = 0 } } },
    { "messages: the inbox cap drops the oldest read, then the oldest", 3,
        { CREW, { SEND, "alice", 1, "bob" }, { SEND, "alice", 2, "bob" },
            { READ, "bob", 3, .want = 2 }, { SEND, "alice", 4, "bob" },
            { SEND, "alice", 5, "bob",
                .events = "message.dropped message.delivered message" },
            { SEND, "alice", 6, "bob",
                .events = "message.dropped message.delivered message" },
            { SEND, "alice", 7, "bob",
                .events = "message.dropped message.delivered message" },
            { READ, "bob", 8, .want = 3 },
            { MOVE, "bob", 9, "alice", .events = "inbox.moved" },
            { READ, "alice", 9, .want = 0 },
            { MOVE, "bob", 9, .rc = AS_EINVAL, .code = "bad_field" },
            { FORGET, "alice", 10, .events = "agent.gone" } } },
    { "rename: locks, inbox and intents follow; drop all", 0,
        { CREW, { LOCK, "alice", 1, "a", .want = 1 },
            { LOCK, "alice", 1, "lib", .flag = true, .want = 2 },
            { DECLARE, "alice", 2, "a", .want = 1 },
            { DECLARE, "alice", 2, "b", .want = 2 },
            { DECLARE, "bob", 2, "c", .want = 3 },
            { SEND, "bob", 3, "alice", .want = 1 },
            { REG, "alice2", 4, "front" },
            { RENAME, "alice", 5, "alice2",
                .events = "lock.reassigned claim.reassigned inbox.moved "
                          "intent.changed intent.changed" },
            { RENAME, "alice", 5, "", .rc = AS_EINVAL, .code = "bad_field",
                .events = "" },
            { RENAME, "alice", 5, "alice", .events = "" },
            { REL, "alice2", 6, "a", .n = 1, .events = "lock.released" },
            { READ, "alice2", 6, .want = 1 },
            { DROP, "alice2", 7, .n = 1, .events = "intent.dropped" },
            { DROPALL, "alice2", 8, .events = "intent.dropped" },
            { DROPALL, "alice2", 8, .events = "" },
            { DROPALL, "nobody", 8, .events = "" } } },
    { "join: new agents, made ids, a returning agent, bad input", 0,
        { CREW,
            { JOIN, NULL, 1, .b = "claude-code", .events = "agent.registered",
                .want = 9, .id = "claude-code" },
            { JOIN, NULL, 1, .b = "claude-code", .events = "agent.registered",
                .want = 9, .id = "claude-code-2" },
            { JOIN, NULL, 1, .want = 9, .id = "agent" },
            { JOIN, "", 1, .rc = AS_EINVAL, .code = "bad_field", .events = "" },
            { JOIN, "alice", 2, .b = "codex", .events = "agent.registered",
                .want = 8, .id = "alice" },
            { IS, "alice", 2, .b = "active registered" },
            { EXIT, "alice", 3, .events = "agent.seen agent.status" },
            { IS, "alice", 3, .b = "exited registered" },
            /* back without a status event: the registration says it */
            { JOIN, "alice", 4, .events = "agent.registered", .want = 8 },
            { IS, "alice", 4, .b = "active registered" },
            { JOIN, "kid", 5, .c = "human", .want = 9 },
            { IS, "kid", 5, .b = "active human registered" },
            { JOIN, "kid", 5, .c = "agent", .want = 8 },
            { IS, "kid", 5, .b = "active registered" },
            /* an id that exists is that agent: no worktree taken over */
            { DISCOVER, "wt2", 6, "/r/bobs", .want = 9 },
            { JOIN, "bob", 6, "/r/bobs", .events = "agent.registered",
                .want = 12, .id = "bob" },
            { IS, "bob", 6, "/r/bobs", "active registered from_worktree" },
            { IS, "wt2", 6, "/r/bobs", "active from_worktree" },
            { IS, "nobody", 6, .rc = AS_ENOENT } } },
    { "join: a discovered worktree taken over and renamed; an id taken", 0,
        { CREW,
            { DISCOVER, "feature", 1, "/r/feature",
                .events = "agent.registered", .want = 9, .id = "feature" },
            { DISCOVER, "feature", 1, "/r/f2", .want = 9, .id = "feature-2" },
            { DISCOVER, "", 1, "/r/x", .rc = AS_EINVAL, .code = "bad_field",
                .events = "" },
            { DISCOVER, "x", 1, .rc = AS_EINVAL, .code = "bad_field",
                .events = "" },
            { IS, "feature", 1, "/r/feature", "active from_worktree" },
            { LOCK, "feature", 2, "src/a.c", .want = 1 },
            { SEND, "bob", 2, "feature", .want = 1 },
            { DECLARE, "feature", 2, "src/a.c", .want = 1 },
            { JOIN, "carol", 3, "/r/feature",
                .events = "lock.reassigned inbox.moved intent.changed "
                          "agent.renamed agent.registered",
                .want = 10, .id = "carol", .from = "feature" },
            { IS, "carol", 3, "/r/feature", "active registered from_worktree" },
            { IS, "feature", 3, .rc = AS_ENOENT },
            { READ, "carol", 4, .want = 1 },
            { REL, "carol", 4, "src/a.c", .n = 1, .events = "lock.released" },
            /* its own id: taken over, not renamed */
            { JOIN, "feature-2", 5, "/r/f2", .want = 10, .id = "feature-2" },
            /* a path that did not resolve takes nothing over */
            { DISCOVER, "g", 6, "/r/g", .want = 9, .id = "g" },
            { JOIN, "dave", 6, "/r/g", .flag = true, .want = 13 },
            { IS, "dave", 6, "/r/g", "active registered from_worktree" },
            { IS, "g", 6, "/r/g", "active from_worktree" },
            /* a worktree is set once */
            { JOIN, "dave", 7, "/r/h", .want = 8 },
            { IS, "dave", 7, "/r/g", "active registered from_worktree" } } },
    { "join: a shared worktree and its human", 0,
        { CREW,
            { JOIN, "ann", 1, "/r/app", .events = "agent.registered",
                .want = 13 },
            { JOIN, "ben", 2, "/r/app",
                .events = "agent.shared agent.shared agent.registered "
                          "agent.registered",
                .want = 13 },
            { IS, "ann", 2, "/r/app", "active registered shared" },
            { IS, "ben", 2, "/r/app", "active registered shared" },
            { IS, "human@app", 2, "/r/app",
                "active human from_worktree human_residual" },
            { JOIN, "cat", 3, "/r/app",
                .events = "agent.shared agent.registered", .want = 13 },
            { HUMAN, NULL, 4, "/r/app", .events = "", .want = 8 },
            { HUMAN, NULL, 4, "/r/other", .events = "agent.registered",
                .want = 9, .id = "human@other" },
            { HUMAN, NULL, 4, .rc = AS_EINVAL, .code = "bad_field",
                .events = "" },
            /* an exited agent there does not make it shared */
            { JOIN, "dan", 5, "/r/solo", .want = 13 }, { EXIT, "dan", 6 },
            { JOIN, "eve", 7, "/r/solo", .events = "agent.registered",
                .want = 13 },
            { IS, "eve", 7, "/r/solo", "active registered from_worktree" },
            /* the human's id is made unique */
            { JOIN, "human@x", 8, .want = 9 }, { JOIN, "fay", 8, "/r/x" },
            { JOIN, "gus", 9, "/r/x",
                .events = "agent.shared agent.shared agent.registered "
                          "agent.registered" },
            { IS, "human@x-2", 9, "/r/x",
                "active human from_worktree human_residual" } } },
    { "a worktree gone: its agents exit; who flies shared", 0,
        { CREW, { JOIN, "ann", 1, "/r/app" }, { JOIN, "ben", 1, "/r/app" },
            { JOIN, "cy", 1, "/r/app" },
            { FLIES, "ann", 1, .rc = 1, .events = "" },
            { FLIES, "alice", 1, .rc = 0 }, { LOCK, "ann", 2, "a", .want = 1 },
            { EXIT, "ben", 3, .events = "agent.seen agent.status" },
            /* two left: still shared, the human still flies there */
            { FLIES, "ann", 3, .rc = 1 },
            { IS, "human@app", 3, "/r/app",
                "active human from_worktree human_residual" },
            /* ann exits first: cy is left alone there, the human leaves */
            { WTGONE, NULL, 4, "/r/app/", "pruned",
                .events = "lock.released_all agent.status agent.shared "
                          "agent.gone agent.status",
                .want = 10 },
            { IS, "ann", 4, "/r/app", "exited registered shared" },
            { IS, "cy", 4, "/r/app", "exited registered from_worktree" },
            { IS, "human@app", 4, .rc = AS_ENOENT },
            { FLIES, "ann", 4, .rc = 0 },
            { WTGONE, NULL, 5, "/r/app", .events = "", .want = 8 },
            { WTGONE, NULL, 5, .rc = AS_EINVAL, .code = "bad_field",
                .events = "" },
            { JOIN, "solo", 6, "/r/solo" }, { FLIES, "solo", 6, .rc = 0 } } },
    { "a worktree shared while two registered agents fly there", 0,
        { CREW, { JOIN, "ann", 1, "/r/app" }, { JOIN, "ben", 2, "/r/app" },
            /* ben leaves: ann's alone, everything there hers again; the
             * human leaves */
            { EXIT, "ben", 4,
                .events = "agent.seen agent.status agent.shared agent.gone" },
            { IS, "ann", 4, "/r/app", "active registered from_worktree" },
            { IS, "ben", 4, "/r/app", "exited registered shared" },
            { IS, "human@app", 4, .rc = AS_ENOENT },
            { FLIES, "ann", 4, .rc = 0 },
            /* a session after them is the worktree's alone */
            { JOIN, "ann", 5, "/r/app", .events = "agent.registered" },
            /* ben back (a heartbeat of the exited agent): shared again */
            { BEAT, "ben", 6,
                .events = "agent.seen agent.status agent.shared "
                          "agent.registered" },
            { IS, "ann", 6, "/r/app", "active registered shared" },
            /* the person's lock keeps the human when ben leaves again */
            { LOCK, "human@app", 7, "h", .want = 1 },
            { EXIT, "ben", 8,
                .events = "agent.seen agent.status agent.shared" },
            { IS, "human@app", 8, "/r/app",
                "active human from_worktree human_residual" },
            /* a third comes and goes: shared, then ann's again */
            { JOIN, "cy", 9, "/r/app",
                .events = "agent.shared agent.shared agent.registered" },
            { FORGET, "cy", 10, .events = "agent.gone agent.shared" },
            { IS, "ann", 10, "/r/app", "active registered from_worktree" },
            /* ann goes too, the lock released: the human leaves */
            { REL, "human@app", 11, "h", .n = 1, .events = "lock.released" },
            { FORGET, "ann", 12, .events = "agent.gone agent.gone" },
            { IS, "human@app", 12, .rc = AS_ENOENT } } },
    { "peers, contact and status", 0,
        { CREW,
            { PEER, "zed@abc", 1, .b = "codex", .events = "agent.registered",
                .want = 9, .id = "zed@abc" },
            { IS, "zed@abc", 1, .b = "active registered peer" },
            { PEER, "zed@abc", 1, .rc = AS_ECONFLICT, .code = "refused",
                .events = "" },
            { PEER, "", 1, .rc = AS_EINVAL, .code = "bad_field", .events = "" },
            { SEEN, "nobody", 2, .rc = AS_ENOENT, .code = "unknown_agent",
                .events = "" },
            { SEEN, "alice", 2, .events = "agent.seen" },
            { LOCK, "alice", 3, "a", .want = 1 },
            { SETST, "alice", 4, "stale", "test",
                .events = "lock.released_all agent.status" },
            { IS, "alice", 4, .b = "stale registered" },
            { SEEN, "alice", 5, .events = "agent.seen agent.status" },
            { SETST, "alice", 5, "active", .events = "" },
            { SETST, "bob", 6, "exited", "gone", .flag = true,
                .events = "agent.seen agent.status" },
            { SEEN, "bob", 7, .events = "agent.seen" },
            { IS, "bob", 7, .b = "exited registered" },
            { SETST, "bob", 7, "bogus", .rc = AS_EINVAL, .code = "bad_field",
                .events = "" },
            { SETST, "nobody", 7, "active", .rc = AS_ENOENT,
                .code = "unknown_agent", .events = "" },
            { SETST, "zed@abc", 8, "active", .flag = true,
                .events = "agent.seen" },
            { FORGET, "zed@abc", 9, .events = "agent.gone" },
            { IS, "zed@abc", 9, .rc = AS_ENOENT } } },
};

static void
check_result(const struct step *s, int rc, const struct as_result *res,
    const struct as_events *ev, size_t from)
{
    char buf[512];
    events_str(ev, from, buf, sizeof(buf));
    if (rc != s->rc)
        fprintf(stderr, "  step op %d agent %s: rc %d (%s), events '%s'\n",
            (int)s->op, s->agent ? s->agent : "-", rc, res->err.msg, buf);
    CHECK_INT(rc, s->rc);
    if (s->code)
        CHECK_STR(res->code, s->code);
    else if (s->op != EXPIRE && rc == 0)
        CHECK(res->code == NULL);
    if (rc < 0 && s->op != EXPIRE)
        CHECK(res->err.msg[0] != '\0');
    if (s->events)
        CHECK_STR(buf, s->events);
    if (s->want)
        CHECK_INT(op_value(s, res), s->want);
    if (s->id)
        CHECK_STR(res->agent, s->id);
    if (s->from)
        CHECK_STR(res->renamed_from, s->from);
    else if (s->op == JOIN)
        CHECK(res->renamed_from == NULL);
}

/* An IS step: the agent's worktree and flags. */
static void
check_agent(const struct airspace *as, const struct step *s)
{
    const struct as_agent *a = as_agent_find(as, s->agent);
    if (!a)
        return; /* its rc says so */
    char buf[128];
    agent_flags(a, buf, sizeof(buf));
    CHECK_STR(buf, s->b);
    if (s->a)
        CHECK_STR(a->worktree, s->a);
    else
        CHECK(a->worktree == NULL);
}

static void
run_scenario(const struct scenario *sc)
{
    struct as_config cfg;
    as_config_default(&cfg);
    cfg.inbox_max = sc->inbox_max;
    struct airspace *as = as_new(&cfg);
    struct as_events ev;
    as_events_init(&ev);
    int64_t last = 0;
    for (size_t k = 0; k < sizeof(sc->steps) / sizeof(sc->steps[0]); k++) {
        const struct step *s = &sc->steps[k];
        if (s->op == REG && !s->agent)
            break; /* the end of the table */
        struct as_result res;
        as_result_init(&res);
        size_t from = ev.n;
        int rc = run_step(as, s, &res, &ev);
        check_result(s, rc, &res, &ev, from);
        if (s->op == IS)
            check_agent(as, s);
        /* a refusal changes nothing but retiring what expired */
        if (rc < 0)
            for (size_t j = from; j < ev.n; j++)
                CHECK(ev.v[j].kind == AS_EV_LOCK &&
                      ev.v[j].lock.type == LOCK_EV_EXPIRED);
        as_result_release(&res);
        last = s->now > last ? s->now : last;
    }
    /* the journal rebuilds the state */
    struct airspace *re = as_new(&cfg);
    for (size_t j = 0; j < ev.n; j++) {
        struct as_err e;
        int rc = as_apply(re, &ev.v[j], &e);
        if (rc)
            fprintf(stderr, "  apply %zu: %s\n", j, e.msg);
        CHECK_INT(rc, 0);
    }
    char why[256] = "";
    bool eq = as_equal(as, re, last, why, sizeof(why));
    if (!eq)
        fprintf(stderr, "  replay differs: %s\n", why);
    CHECK(eq);
    as_free(re);
    as_events_release(&ev);
    as_free(as);
}

/* Events and results own their copies: the machine freed, they hold. */
static void
test_ownership(void)
{
    struct airspace *as = as_new(NULL);
    struct as_events ev;
    as_events_init(&ev);
    struct as_result res;
    as_result_init(&res);
    struct as_req r = { .agent = "alice", .registered = true };
    CHECK_INT(as_register(as, 0, &r, &res, &ev), 0);
    r.pattern = "x";
    r.ttl_ms = LOCK_TTL_DEFAULT;
    CHECK_INT(as_lock(as, 1, &r, &res, &ev), 0);
    r.to = "alice";
    r.body = "note";
    CHECK_INT(as_message_send(as, 2, &r, &res, &ev), 0);
    as_result_release(&res);
    r.owner = "alice";
    CHECK_INT(as_inbox_read(as, 3, &r, &res, &ev), 0);
    as_free(as);
    CHECK_INT(res.nmsgs, 1);
    CHECK_STR(res.msgs[0].body, "note");
    CHECK_STR(ev.v[ev.n - 1].owner, "alice");
    CHECK_STR(ev.v[1].lock.lock.pattern, "x");
    as_result_release(&res);
    as_events_release(&ev);
}

/* Discarding events (out NULL) is allowed and changes nothing else. */
static void
test_null_events(void)
{
    struct airspace *a = as_new(NULL), *b = as_new(NULL);
    struct as_events ev;
    as_events_init(&ev);
    struct as_result res;
    as_result_init(&res);
    struct as_req r = { .agent = "alice",
        .registered = true,
        .pattern = "p",
        .ttl_ms = LOCK_TTL_DEFAULT };
    as_register(a, 0, &r, &res, NULL);
    as_register(b, 0, &r, &res, &ev);
    as_result_release(&res);
    as_lock(a, 1, &r, &res, NULL);
    as_result_release(&res);
    as_lock(b, 1, &r, &res, &ev);
    as_result_release(&res);
    CHECK(as_equal(a, b, 2, NULL, 0));
    CHECK_INT(as_expire(a, 10 * MIN, NULL), 0);
    CHECK(as_agent_find(a, "alice")->status == AS_AGENT_STALE);
    CHECK(!as_equal(a, b, 2, NULL, 0));
    as_events_release(&ev);
    as_free(a);
    as_free(b);
}

/* Task dedup: a declared intent names another agent's live intent with a
 * close summary; never its own agent's, never an expired one. */
static void
test_similar_intents(void)
{
    static const struct {
        const char *name, *agent, *summary;
        int64_t now;
        uint64_t want; /* similar_id */
    } cases[] = {
        { "first: nothing to match", "alice", "fix the login redirect", 1, 0 },
        { "another agent, same task", "bob", "refactor login redirect handling",
            2, 1 },
        { "own intents never match", "alice", "login redirect", 3, 2 },
        { "unrelated", "carol", "billing export", 4, 0 },
        { "no summary", "carol", NULL, 5, 0 },
        { "expired intents never match", "carol", "billing export csv",
            10 * MIN, 0 },
    };
    struct airspace *as = as_new(NULL);
    struct as_events ev;
    as_events_init(&ev);
    const char *ids[] = { "alice", "bob", "carol" };
    for (size_t k = 0; k < 3; k++) {
        struct as_result res;
        as_result_init(&res);
        struct as_req r = { .agent = ids[k], .registered = true };
        as_register(as, 0, &r, &res, &ev);
    }
    const char *files[] = { "x" };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        struct as_result res;
        as_result_init(&res);
        struct as_req r = { .agent = cases[k].agent,
            .files = files,
            .nfiles = 1,
            .summary = cases[k].summary,
            .ttl_ms = 5 * MIN };
        CHECK_INT(as_intent_declare(as, cases[k].now, &r, &res, &ev), 0);
        if (res.similar_id != cases[k].want)
            fprintf(stderr, "  case '%s'\n", cases[k].name);
        CHECK_INT(res.similar_id, cases[k].want);
        CHECK(!res.similar_id || res.similar_score >= 0.5);
        as_result_release(&res);
    }
    as_events_release(&ev);
    as_free(as);
}

/* A journal that does not fit the state is refused, the state kept. */
static void
test_apply_errors(void)
{
    struct airspace *as = as_new(NULL);
    struct as_err e;
    struct lock l = { .token = 7,
        .pattern = "a",
        .holder = "alice",
        .ttl_ms = 1000,
        .expires_at = 2000 };
    struct as_event ev[] = {
        { .kind = AS_EV_AGENT_STATUS, .agent = "nobody" },
        { .kind = AS_EV_AGENT_SEEN, .agent = "nobody" },
        { .kind = AS_EV_AGENT_GONE, .agent = "nobody" },
        { .kind = AS_EV_LOCK, .lock = { .type = LOCK_EV_RELEASED, .lock = l } },
        { .kind = AS_EV_LOCK, .lock = { .type = LOCK_EV_RENEWED, .lock = l } },
        { .kind = AS_EV_INTENT_DROPPED, .intent = { .id = 3 } },
        { .kind = AS_EV_MESSAGE_READ, .owner = "bob", .msg = { .id = 4 } },
        { .kind = AS_EV_MESSAGE_DROPPED, .owner = "bob", .msg = { .id = 4 } },
        { .kind = (enum as_event_kind)99 },
        /* agents' events carry the agent; a rename needs the old one */
        { .kind = AS_EV_AGENT_REGISTERED, .agent = "x" },
        { .kind = AS_EV_AGENT_SHARED, .agent = "x" },
        { .kind = AS_EV_AGENT_RENAMED,
            .agent = "y",
            .other = "x",
            .who = { .id = "y" } },
    };
    struct airspace *fresh = as_new(NULL);
    for (size_t k = 0; k < sizeof(ev) / sizeof(ev[0]); k++) {
        e.msg[0] = '\0';
        CHECK_INT(as_apply(as, &ev[k], &e), AS_EINVAL);
        CHECK(e.msg[0] != '\0');
    }
    CHECK(as_equal(as, fresh, 0, NULL, 0));
    /* a granted lock twice: the second does not fit */
    struct as_event g = { .kind = AS_EV_LOCK,
        .lock = { .type = LOCK_EV_GRANTED, .lock = l } };
    CHECK_INT(as_apply(as, &g, &e), 0);
    CHECK_INT(as_apply(as, &g, &e), AS_EINVAL);
    CHECK(!as_equal(as, fresh, 0, NULL, 0));
    as_free(fresh);
    as_free(as);
}

/* An agent the machine forgets leaves with its last copy in the event (the
 * daemon builds its agent.gone from it), its reason, and what it held
 * released first. */
static void
test_gone_carries_agent(void)
{
    struct as_config cfg;
    as_config_default(&cfg);
    cfg.gone_ms = 1000;
    struct airspace *as = as_new(&cfg);
    struct as_events ev;
    as_events_init(&ev);
    struct as_result res;
    as_result_init(&res);
    const char *lanes[] = { "src/**" };
    struct as_req r = { .agent = "ann",
        .worktree = "/r/ann",
        .worktree_real = true,
        .client = "codex",
        .label = "front",
        .lanes = lanes,
        .nlanes = 1,
        .set_lanes = true };
    CHECK_INT(as_join(as, 0, &r, &res, &ev), 0);
    as_result_release(&res);
    r = (struct as_req){
        .agent = "ann", .pattern = "src/a.c", .ttl_ms = LOCK_TTL_DEFAULT
    };
    CHECK_INT(as_lock(as, 1, &r, &res, &ev), 0);
    as_result_release(&res);
    as_events_clear(&ev);
    CHECK_INT(as_agents_expire(as, 5000, &ev), 1); /* gone, before stale */
    const struct as_event *gone = &ev.v[ev.n - 1];
    CHECK(gone->kind == AS_EV_AGENT_GONE);
    CHECK_STR(gone->reason, "silent");
    CHECK_STR(gone->who.id, "ann");
    CHECK_STR(gone->who.worktree, "/r/ann");
    CHECK_STR(gone->who.client, "codex");
    CHECK_STR(gone->who.label, "front");
    CHECK_INT(gone->who.nlanes, 1);
    CHECK_STR(gone->who.lanes[0], "src/**");
    CHECK(gone->who.registered);
    CHECK(gone->who.status == AS_AGENT_ACTIVE);
    CHECK(ev.v[0].kind == AS_EV_LOCK); /* its lock went first */
    CHECK(as_agent_find(as, "ann") == NULL);
    as_events_release(&ev);
    as_free(as);
}

/* Silence counts from silence_from at the earliest (the daemon's start),
 * and only registered active agents turn stale. */
static void
test_silence_from(void)
{
    struct as_config cfg;
    as_config_default(&cfg);
    cfg.stale_ms = 1000;
    cfg.silence_from = 50000;
    struct airspace *as = as_new(&cfg);
    struct as_events ev;
    as_events_init(&ev);
    struct as_result res;
    as_result_init(&res);
    struct as_req r = { .agent = "alice", .registered = true };
    as_register(as, 0, &r, &res, &ev);
    r.agent = "wt";
    r.registered = false;
    as_register(as, 0, &r, &res, &ev);
    r.agent = "alice";
    r.pattern = "a";
    r.ttl_ms = 10 * MIN;
    CHECK_INT(as_lock(as, 0, &r, &res, &ev), 0);
    as_events_clear(&ev);
    CHECK_INT(as_agents_expire(as, 51000, &ev), 0);
    CHECK_INT(ev.n, 0);
    CHECK_INT(as_agents_expire(as, 51001, &ev), 1);
    char buf[256];
    events_str(&ev, 0, buf, sizeof(buf));
    CHECK_STR(buf, "lock.released_all agent.status");
    CHECK(as_agent_find(as, "alice")->status == AS_AGENT_STALE);
    CHECK(as_agent_find(as, "wt")->status == AS_AGENT_ACTIVE);
    CHECK_INT(as_agents_expire(as, 99999, &ev), 0);
    /* gone: from the last word, the downtime included */
    as->cfg.gone_ms = 60000;
    r.pattern = NULL;
    r.to = "alice";
    r.body = "hi";
    as_message_send(as, 99999, &r, &res, &ev);
    as_result_release(&res);
    as_events_clear(&ev);
    CHECK_INT(as_agents_expire(as, 60000, &ev), 0);
    CHECK_INT(as_agents_expire(as, 60001, &ev), 1);
    events_str(&ev, 0, buf, sizeof(buf));
    CHECK_STR(buf, "agent.gone");
    CHECK_STR(ev.v[0].reason, "silent");
    CHECK(as_agent_find(as, "alice") == NULL);
    CHECK(as_agent_find(as, "wt") != NULL); /* not registered: stays */
    CHECK_INT(as_inbox_find(as, "alice")->n, 0);
    as_result_release(&res);
    as_events_release(&ev);
    as_free(as);
}

/* The daemon's bridge: its agent table mirrored (no events), and its
 * lock table borrowed (the machine never frees it). */
/* The refusals say what is wrong: a token newer than the grant held was
 * never one of its grants; "all" with nobody able to read says why. */
static void
test_refusal_texts(void)
{
    struct airspace *as = as_new(NULL);
    struct as_events ev;
    as_events_init(&ev);
    struct as_result res;
    as_result_init(&res);
    struct as_req r = { .agent = "alice", .registered = true };
    CHECK_INT(as_register(as, 0, &r, &res, &ev), 0);
    as_result_release(&res);
    as_result_init(&res);
    r = (struct as_req){ .agent = "wt" };
    CHECK_INT(as_register(as, 0, &r, &res, &ev), 0);
    as_result_release(&res);
    as_result_init(&res);
    r = (struct as_req){
        .agent = "alice", .pattern = "a.c", .ttl_ms = LOCK_TTL_DEFAULT
    };
    CHECK_INT(as_lock(as, 1, &r, &res, &ev), 0);
    uint64_t held = res.lock.token;
    as_result_release(&res);
    as_result_init(&res);
    r.token = held + 998;
    CHECK_INT(as_release(as, 2, &r, &res, &ev), AS_ECONFLICT);
    CHECK(strstr(res.err.msg, "was never a grant of yours") != NULL);
    as_result_release(&res);
    as_result_init(&res);
    r = (struct as_req){ .agent = "alice", .to = "all", .body = "hi" };
    CHECK_INT(as_message_send(as, 3, &r, &res, &ev), AS_ENOENT);
    CHECK(strstr(res.err.msg, "can receive 'all'") != NULL);
    as_result_release(&res);
    as_events_release(&ev);
    as_free(as);
}

static void
test_borrowed_locks(void)
{
    struct airspace *as = as_new(NULL);
    struct as_events ev;
    as_events_init(&ev);
    struct as_result res;
    as_result_init(&res);
    struct as_req r = { .agent = "wt", .worktree = "/r/wt" };
    CHECK_INT(as_discover(as, 0, &r, &res, &ev), 0);
    as_result_release(&res);
    r = (struct as_req){ .agent = "wt", .status = AS_AGENT_STALE };
    CHECK_INT(as_set_status(as, 0, &r, &res, &ev), 0);
    CHECK(as_agent_find(as, "wt")->status == AS_AGENT_STALE);

    struct lock_table *t = lock_table_new(NULL);
    as_use_locks(as, t);
    r = (struct as_req){
        .agent = "wt", .pattern = "x", .ttl_ms = LOCK_TTL_DEFAULT
    };
    CHECK_INT(as_lock(as, 1, &r, &res, &ev), 0); /* stale: back */
    as_result_release(&res);
    as_free(as);
    size_t n;
    lock_table_list(t, 2, &n); /* the table outlives the machine */
    CHECK_INT(n, 1);
    lock_table_free(t);
    as_events_release(&ev);
}

int
main(void)
{
    for (size_t k = 0; k < sizeof(scenarios) / sizeof(scenarios[0]); k++) {
        TEST_BEGIN(scenarios[k].name);
        run_scenario(&scenarios[k]);
        TEST_END();
    }
    TEST_RUN("events and results own their copies", test_ownership);
    TEST_RUN("events may be discarded", test_null_events);
    TEST_RUN("silence counts from silence_from", test_silence_from);
    TEST_RUN("task dedup of intents", test_similar_intents);
    TEST_RUN("a journal that does not fit is refused", test_apply_errors);
    TEST_RUN("refusals say what is wrong", test_refusal_texts);
    TEST_RUN("the daemon's bridge: borrowed locks", test_borrowed_locks);
    TEST_RUN("a forgotten agent's last copy rides on its event",
        test_gone_carries_agent);
    return test_done();
}

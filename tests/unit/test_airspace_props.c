/* test_airspace_props.c - properties of the airspace state machine over
 * random operation sequences (seeded, so a failure names its seed):
 *   - never two holders of one path (unless every lock on it is shared),
 *   - fencing tokens strictly increasing,
 *   - every state change is evented: a second machine fed only the events
 *     (as_apply) equals the first after every operation, so replaying the
 *     journal rebuilds the state,
 *   - a refused operation appends no event but expiries,
 *   - intent and message ids strictly increasing, inboxes within the cap,
 *   - the agent table's operations among the others (registrations taking
 *     over discovered worktrees under new ids, shared worktrees and their
 *     humans, peers, status changes, worktrees gone, leaving): agent ids
 *     stay unique, and an agent that leaves (exited, stale, gone) holds no
 *     lock after it, each lock it held evented.
 * AIRSPACE_PROP_SEEDS and AIRSPACE_PROP_OPS override 200 x 500. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "airspace/airspace.h"
#include "util/glob.h"
#include "util/xalloc.h"
#include "test.h"

static uint64_t rng;

static uint32_t
next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static uint32_t
pick(uint32_t n)
{
    return next() % n;
}

static const char *const agents[] = { "alice", "bob", "carol", "dave", "wt",
    "ghost" };
static const char *const labels[] = { "front", "back", NULL };
static const char *const patterns[] = { "a", "b", "src", "src/x.c", "src/y.c",
    "src/*.c", "docs/r.md", "**/*.md", "../out", "" };
/* concrete files: each may have at most one holder unless all share */
static const char *const files[] = { "a", "b", "src/x.c", "src/y.c",
    "docs/r.md", "src/z.c" };
static const char *const recipients[] = { "alice", "bob", "all", "front",
    "supervisor", "nobody", "ghost" };
static const char *const worktrees[] = { "/r/a", "/r/b", "/r/c", NULL };
static const char *const clients[] = { "claude-code", "codex", NULL };

#define NA (sizeof(agents) / sizeof(agents[0]))
#define NP (sizeof(patterns) / sizeof(patterns[0]))
#define NF (sizeof(files) / sizeof(files[0]))
#define NR (sizeof(recipients) / sizeof(recipients[0]))

static bool
covers(const char *pattern, const char *file)
{
    if (glob_has_magic(pattern))
        return glob_match(pattern, file);
    size_t n = strlen(pattern);
    return !strncmp(pattern, file, n) && (!file[n] || file[n] == '/');
}

/* Never two holders of one path: at most one holder of any lock covering
 * a file, unless every lock covering it is shared. */
static bool
one_holder(struct airspace *as, int64_t now, char *why, size_t len)
{
    size_t n;
    const struct lock *const *v = lock_table_list(as->locks, now, &n);
    for (size_t f = 0; f < NF; f++) {
        const char *holder = NULL;
        bool exclusive = false, two = false;
        for (size_t k = 0; k < n; k++) {
            if (!covers(v[k]->pattern, files[f]))
                continue;
            exclusive = exclusive || v[k]->mode == LOCK_EXCLUSIVE;
            if (holder && strcmp(holder, v[k]->holder))
                two = true;
            holder = v[k]->holder;
        }
        if (two && exclusive) {
            snprintf(why, len, "'%s' has two holders", files[f]);
            return false;
        }
    }
    return true;
}

static int
random_op(struct airspace *as, int64_t now, struct as_result *res,
    struct as_events *ev, int *op)
{
    struct as_req r = { 0 };
    const char *fl[2];
    r.agent = agents[pick(NA)];
    r.ttl_ms = pick(4) ? LOCK_TTL_DEFAULT : (int64_t)(1 + pick(60000));
    r.pattern = patterns[pick(NP)];
    r.mode = pick(3) ? LOCK_EXCLUSIVE : LOCK_SHARED;
    r.kind = pick(3) ? LOCK_KIND_LOCK : LOCK_KIND_CLAIM;
    /* the caller's knowledge of the file system, as the daemon's */
    for (size_t f = 0; f < NF; f++)
        r.file = r.file || !strcmp(r.pattern, files[f]);
    r.token = pick(3) ? 1 + pick(40) : 0;
    *op = (int)pick(18);
    switch (*op) {
    case 0:
        if (!strcmp(r.agent, "ghost"))
            r.agent = "carol";
        r.label = labels[pick(3)];
        r.registered = strcmp(r.agent, "wt") != 0;
        return as_register(as, now, &r, res, ev);
    case 1:
        return pick(2) ? as_heartbeat(as, now, &r, res, ev)
                       : as_contact(as, now, &r, res, ev);
    case 2:
        return pick(4) ? as_heartbeat(as, now, &r, res, ev)
                       : as_exit(as, now, &r, res, ev);
    case 3:
        return pick(6) ? as_heartbeat(as, now, &r, res, ev)
                       : as_forget(as, now, &r, res, ev);
    case 4:
    case 5:
    case 6:
        return as_lock(as, now, &r, res, ev);
    case 7: {
        /* mostly with the token of one's own grant there, when any */
        size_t n;
        const struct lock *const *v = lock_table_list(as->locks, now, &n);
        for (size_t k = 0; k < n && pick(4); k++)
            if (!strcmp(v[k]->holder, r.agent)) {
                r.pattern = patterns[0];
                for (size_t p = 0; p < NP; p++)
                    if (!strcmp(patterns[p], v[k]->pattern))
                        r.pattern = patterns[p];
                r.token = v[k]->token;
                break;
            }
        return pick(2) ? as_release(as, now, &r, res, ev)
                       : as_renew(as, now, &r, res, ev);
    }
    case 8:
        r.token = pick(5) ? 0 : r.token;
        return pick(2) ? as_contest(as, now, &r, res, ev)
                       : as_force(as, now, &r, res, ev);
    case 9:
    case 10:
        fl[0] = patterns[pick(NP)];
        fl[1] = patterns[pick(NP - 2)];
        r.files = fl;
        r.nfiles = pick(3);
        r.summary = pick(2) ? "work" : NULL;
        return as_intent_declare(as, now, &r, res, ev);
    case 11:
        r.intent_id = 1 + pick(as->next_intent_id + 1);
        return as_intent_drop(as, now, &r, res, ev);
    case 12:
    case 13:
        r.to = recipients[pick(NR)];
        r.type = pick(8) ? NULL : "shout";
        r.body = "b";
        if (!pick(5))
            r.agent = "supervisor";
        return as_message_send(as, now, &r, res, ev);
    case 14:
        r.owner = pick(5) ? r.agent : "supervisor";
        r.peek = !pick(4);
        return as_inbox_read(as, now, &r, res, ev);
    case 16:
    case 17: {
        /* the agent table: registrations (a generated id, a discovered
         * worktree taken over, a worktree shared), discoveries, humans,
         * peers, contact and status changes, leaving */
        static const char *const kinds[] = { "human", "agent", NULL };
        r.worktree = worktrees[pick(4)];
        r.client = clients[pick(3)];
        r.label = labels[pick(3)];
        switch (pick(8)) {
        case 0:
        case 1:
            r.agent = pick(5) ? agents[pick(NA)] : NULL;
            r.worktree_real = pick(4) != 0;
            r.agent_kind = kinds[pick(3)];
            return as_join(as, now, &r, res, ev);
        case 2:
            r.worktree = r.worktree ? r.worktree : "/r/d";
            return as_discover(as, now, &r, res, ev);
        case 3:
            r.worktree = r.worktree ? r.worktree : "/r/d";
            return pick(2) ? as_human(as, now, &r, res, ev)
                           : as_peer(as, now, &r, res, ev);
        case 4:
            return as_seen(as, now, &r, res, ev);
        case 5:
            r.worktree = r.worktree ? r.worktree : "/r/d/";
            return as_worktree_gone(as, now, &r, res, ev);
        default:
            r.status = (enum as_agent_status)pick(3);
            r.reason = "test";
            r.seen = pick(2) != 0;
            return as_set_status(as, now, &r, res, ev);
        }
    }
    default:
        if (!pick(8)) {
            r.to = agents[pick(NA)];
            return as_rename(as, now, &r, res, ev);
        }
        if (!pick(8))
            return as_intent_drop_all(as, now, &r, res, ev);
        if (!pick(6)) {
            r.pattern = files[pick(NF)];
            return as_touch(as, now, &r, res, ev) < 0 ? -1 : 0;
        }
        if (pick(2)) {
            r.owner = agents[pick(NA)];
            r.to = agents[pick(NA)];
            return as_inbox_move(as, now, &r, res, ev);
        }
        return (int)as_expire(as, now, ev);
    }
}

/* Whether the lock of token was released in ev (by its holder, by a
 * release of all its holder's locks, or forced). */
static bool
released(const struct as_events *ev, uint64_t token)
{
    for (size_t j = 0; j < ev->n; j++)
        if (ev->v[j].kind == AS_EV_LOCK && ev->v[j].lock.lock.token == token &&
            (ev->v[j].lock.type == LOCK_EV_RELEASED ||
                ev->v[j].lock.type == LOCK_EV_RELEASED_ALL ||
                ev->v[j].lock.type == LOCK_EV_FORCE_RELEASED))
            return true;
    return false;
}

/* Every agent that left in ev (exited, stale, gone) holds no live lock,
 * and each lock it held before (held[k] by holder[k]) has an event; but
 * a peer (another daemon's agent: peer[k]) keeps its leases, which its
 * own daemon or their TTL ends. */
static void
check_leaving(struct airspace *as, int64_t now, const struct as_events *ev,
    const uint64_t *held, char *const *holder, const bool *peer, size_t nheld,
    uint64_t seed, int i)
{
    for (size_t k = 0; k < ev->n; k++) {
        const struct as_event *x = &ev->v[k];
        bool left =
            x->kind == AS_EV_AGENT_GONE ||
            (x->kind == AS_EV_AGENT_STATUS && x->status != AS_AGENT_ACTIVE);
        if (!left)
            continue;
        const struct as_agent *a = as_agent_find(as, x->agent);
        if (a && a->status == AS_AGENT_ACTIVE)
            continue; /* back within the same operation */
        bool was_peer = a && a->peer;
        for (size_t h = 0; h < nheld; h++)
            if (!strcmp(holder[h], x->agent) && peer[h])
                was_peer = true;
        if (was_peer) {
            for (size_t h = 0; h < nheld; h++)
                if (!strcmp(holder[h], x->agent) && released(ev, held[h])) {
                    fprintf(stderr,
                        "seed %" PRIu64
                        " op %d: peer '%s' left, its lease %" PRIu64
                        " released\n",
                        seed, i, x->agent, held[h]);
                    CHECK(0);
                }
            continue;
        }
        size_t n;
        const struct lock *const *v = lock_table_list(as->locks, now, &n);
        for (size_t j = 0; j < n; j++)
            if (!strcmp(v[j]->holder, x->agent)) {
                fprintf(stderr,
                    "seed %" PRIu64 " op %d: '%s' left holding %" PRIu64 "\n",
                    seed, i, x->agent, v[j]->token);
                CHECK(0);
            }
        for (size_t h = 0; h < nheld; h++) {
            if (strcmp(holder[h], x->agent))
                continue;
            bool told = false;
            for (size_t j = 0; j < ev->n && !told; j++)
                told = ev->v[j].kind == AS_EV_LOCK &&
                       ev->v[j].lock.lock.token == held[h];
            if (!told)
                fprintf(stderr,
                    "seed %" PRIu64 " op %d: '%s' left, lock %" PRIu64
                    " not evented\n",
                    seed, i, x->agent, held[h]);
            CHECK(told);
        }
    }
}

static void
run_seed(uint64_t seed, int nops)
{
    rng = seed * 0x9E3779B97F4A7C15ull + 1;
    struct as_config cfg;
    as_config_default(&cfg);
    cfg.inbox_max = 4;
    cfg.stale_ms = 90000;
    cfg.gone_ms = 400000;
    cfg.locks.contest_timeout_ms = 30000;
    struct airspace *as = as_new(&cfg), *re = as_new(&cfg);
    struct as_events ev;
    as_events_init(&ev);
    int64_t now = 1000;
    uint64_t last_token = 0, last_intent = 0, last_msg = 0;
    char why[256];
    for (int i = 0; i < nops && !test_case_failed; i++) {
        now += pick(4) ? pick(5000) : pick(60000);
        struct as_result res;
        as_result_init(&res);
        int op;
        /* what each agent held before: a leaving one's are evented */
        size_t nheld;
        const struct lock *const *lv = lock_table_list(as->locks, now, &nheld);
        uint64_t *held = xcalloc(nheld + 1, sizeof(*held));
        char **holder = xcalloc(nheld + 1, sizeof(*holder));
        bool *peer = xcalloc(nheld + 1, sizeof(*peer));
        for (size_t k = 0; k < nheld; k++) {
            held[k] = lv[k]->token;
            holder[k] = xstrdup(lv[k]->holder);
            const struct as_agent *h = as_agent_find(as, holder[k]);
            peer[k] = h && h->peer;
        }
        int rc = random_op(as, now, &res, &ev, &op);
        check_leaving(as, now, &ev, held, holder, peer, nheld, seed, i);
        for (size_t k = 0; k < nheld; k++)
            free(holder[k]);
        free(holder);
        free(held);
        free(peer);
        for (size_t a = 0; a < as->nagents; a++)
            for (size_t b = a + 1; b < as->nagents; b++)
                if (!strcmp(as->agents[a].id, as->agents[b].id)) {
                    fprintf(stderr, "seed %" PRIu64 " op %d: two agents '%s'\n",
                        seed, i, as->agents[a].id);
                    CHECK(0);
                }
        if (op != 15 && rc < 0) {
            CHECK(res.code != NULL);
            for (size_t k = 0; k < ev.n; k++) {
                const struct as_event *x = &ev.v[k];
                bool ok = (x->kind == AS_EV_LOCK &&
                              x->lock.type == LOCK_EV_EXPIRED) ||
                          x->kind == AS_EV_AGENT_SEEN ||
                          (x->kind == AS_EV_AGENT_STATUS &&
                              x->status == AS_AGENT_ACTIVE);
                if (!ok)
                    fprintf(stderr, "op %d rc %d (%s): event %s\n", op, rc,
                        res.code, as_event_kind_name(x->kind));
                CHECK(ok);
            }
        }
        for (size_t k = 0; k < ev.n; k++) {
            const struct as_event *x = &ev.v[k];
            if (x->kind == AS_EV_LOCK && x->lock.type == LOCK_EV_GRANTED) {
                CHECK(x->lock.lock.token > last_token);
                last_token = x->lock.lock.token;
            }
            if (x->kind == AS_EV_INTENT_DECLARED) {
                CHECK(x->intent.id > last_intent);
                last_intent = x->intent.id;
            }
            if (x->kind == AS_EV_MESSAGE_SENT) {
                CHECK(x->msg.id > last_msg);
                last_msg = x->msg.id;
            }
            struct as_err e;
            int arc = as_apply(re, x, &e);
            if (arc)
                fprintf(stderr, "seed %" PRIu64 " op %d: apply %s: %s\n", seed,
                    i, as_event_kind_name(x->kind), e.msg);
            CHECK_INT(arc, 0);
        }
        as_events_clear(&ev);
        as_result_release(&res);
        if (!one_holder(as, now, why, sizeof(why))) {
            fprintf(stderr, "seed %" PRIu64 " op %d: %s\n", seed, i, why);
            CHECK(0);
        }
        if (!as_equal(as, re, now, why, sizeof(why))) {
            fprintf(stderr, "seed %" PRIu64 " op %d (kind %d): %s\n", seed, i,
                op, why);
            CHECK(0);
        }
        for (size_t k = 0; k < as->ninboxes; k++)
            CHECK(as->inboxes[k].n <= cfg.inbox_max);
    }
    as_events_release(&ev);
    as_free(re);
    as_free(as);
}

static int
env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? (int)strtol(v, NULL, 10) : dflt;
}

int
main(void)
{
    int seeds = env_int("AIRSPACE_PROP_SEEDS", 200);
    int ops = env_int("AIRSPACE_PROP_OPS", 500);
    for (int s = 1; s <= seeds; s++) {
        char name[64];
        snprintf(name, sizeof(name), "seed %d", s);
        TEST_BEGIN(name);
        run_seed((uint64_t)s, ops);
        TEST_END();
    }
    return test_done();
}

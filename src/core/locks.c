/*
 * locks.c - path and glob locks with fencing tokens, expiry and conflict
 * checks.
 *
 * Longer than 1,000 lines on purpose: the three indexes below must change
 * together on every grant, release and expiry.
 */
#include "core/locks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/glob.h"
#include "util/path.h"
#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

/*
 * Every lock lives in three places: the token-sorted array `all` (find,
 * list, release_all), a min-heap on expires_at (retiring expired locks
 * without scanning), and the bucket of the trie node for its literal prefix
 * (conflict candidates).
 */

struct entry {
    struct lock l; /* first: views handed out point here */
    struct glob *g;
    uint32_t node;
    size_t heap_pos;
};

struct node {
    uint32_t parent;
    uint32_t *kids;
    size_t nkids, akids;
    struct entry **locks;
    size_t nlocks, alocks;
};

struct lock_table {
    int64_t default_ttl, contest_timeout;
    char *root;
    uint64_t next_token;
    struct entry **all; /* sorted by token */
    size_t nall, aall;
    struct entry **heap;
    size_t nheap, aheap;
    struct node *nodes; /* node 0 is the root, prefix "" */
    size_t nnodes, anodes;
    struct strmap prefixes; /* non-empty prefix -> node index */
    struct entry **cand;    /* scratch: candidates of one query */
    size_t ncand, acand;
    const struct lock **listbuf;
    size_t alist;
    uint64_t compared, last_compared;
};

/* Times come from outside: saturate instead of overflowing. */
static int64_t
sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int64_t
sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* --- names, copies, events ------------------------------------------- */

const char *
lock_mode_name(enum lock_mode m)
{
    switch (m) {
    case LOCK_EXCLUSIVE:
        return "exclusive";
    case LOCK_SHARED:
        return "shared";
    }
    return "?";
}

const char *
lock_kind_name(enum lock_kind k)
{
    switch (k) {
    case LOCK_KIND_LOCK:
        return "lock";
    case LOCK_KIND_CLAIM:
        return "claim";
    }
    return "?";
}

int
lock_mode_parse(const char *s, enum lock_mode *out, struct as_err *e)
{
    if (s && !strcmp(s, "exclusive"))
        *out = LOCK_EXCLUSIVE;
    else if (s && !strcmp(s, "shared"))
        *out = LOCK_SHARED;
    else
        return as_errorf(e, AS_EINVAL,
            "unknown mode '%s' (want 'exclusive' or 'shared')", s ? s : "");
    return 0;
}

int
lock_kind_parse(const char *s, enum lock_kind *out, struct as_err *e)
{
    if (s && !strcmp(s, "lock"))
        *out = LOCK_KIND_LOCK;
    else if (s && !strcmp(s, "claim"))
        *out = LOCK_KIND_CLAIM;
    else
        return as_errorf(e, AS_EINVAL,
            "unknown kind '%s' (want 'lock' or 'claim')", s ? s : "");
    return 0;
}

static char *
dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

void
lock_copy(struct lock *dst, const struct lock *src)
{
    *dst = *src;
    dst->pattern = dup_or_null(src->pattern);
    dst->holder = dup_or_null(src->holder);
    dst->reason = dup_or_null(src->reason);
    dst->contested_by = dup_or_null(src->contested_by);
}

void
lock_clear(struct lock *l)
{
    free(l->pattern);
    free(l->holder);
    free(l->reason);
    free(l->contested_by);
    memset(l, 0, sizeof(*l));
}

void
lock_events_init(struct lock_events *ev)
{
    memset(ev, 0, sizeof(*ev));
}

void
lock_events_clear(struct lock_events *ev)
{
    for (size_t i = 0; i < ev->n; i++) {
        free(ev->v[i].actor);
        lock_clear(&ev->v[i].lock);
    }
    ev->n = 0;
}

void
lock_events_release(struct lock_events *ev)
{
    lock_events_clear(ev);
    free(ev->v);
    lock_events_init(ev);
}

static const char *const event_names[][2] = {
    [LOCK_EV_GRANTED] = { "lock.granted", "claim.granted" },
    [LOCK_EV_REFRESHED] = { "lock.refreshed", "claim.refreshed" },
    [LOCK_EV_RENEWED] = { "lock.renewed", "claim.renewed" },
    [LOCK_EV_TOUCHED] = { "lock.touched", "claim.touched" },
    [LOCK_EV_RELEASED] = { "lock.released", "claim.released" },
    [LOCK_EV_RELEASED_ALL] = { "lock.released_all", "claim.released_all" },
    [LOCK_EV_EXPIRED] = { "lock.expired", "claim.expired" },
    [LOCK_EV_CONTESTED] = { "lock.contested", "claim.contested" },
    [LOCK_EV_FORCE_RELEASED] = { "lock.force_released",
        "claim.force_released" },
    [LOCK_EV_REASSIGNED] = { "lock.reassigned", "claim.reassigned" },
};

#define NEVENT_TYPES (sizeof(event_names) / sizeof(event_names[0]))

const char *
lock_event_type_name(enum lock_event_type t)
{
    if ((size_t)t >= NEVENT_TYPES)
        return "?";
    return strchr(event_names[t][0], '.') + 1;
}

const char *
lock_event_name(const struct lock_event *ev)
{
    if ((size_t)ev->type >= NEVENT_TYPES)
        return "?";
    return event_names[ev->type][ev->lock.kind == LOCK_KIND_CLAIM];
}

static void
emit(struct lock_events *ev, enum lock_event_type type, int64_t now,
    const char *actor, const struct lock *l)
{
    if (!ev)
        return;
    ALLOC_GROW(ev->v, ev->n + 1, ev->alloc);
    struct lock_event *x = &ev->v[ev->n++];
    x->type = type;
    x->at_ms = now;
    x->actor = dup_or_null(actor);
    lock_copy(&x->lock, l);
}

/* --- table life cycle -------------------------------------------------- */

void
lock_config_default(struct lock_config *c)
{
    c->default_ttl_ms = LOCK_DEFAULT_TTL_MS;
    c->contest_timeout_ms = LOCK_DEFAULT_CONTEST_TIMEOUT_MS;
    c->root = NULL;
}

struct lock_table *
lock_table_new(const struct lock_config *c)
{
    struct lock_config def;
    lock_config_default(&def);
    if (!c)
        c = &def;
    struct lock_table *t = xcalloc(1, sizeof(*t));
    t->default_ttl =
        c->default_ttl_ms > 0 ? c->default_ttl_ms : def.default_ttl_ms;
    t->contest_timeout = c->contest_timeout_ms >= 0 ? c->contest_timeout_ms
                                                    : def.contest_timeout_ms;
    t->root = c->root && *c->root ? xstrdup(c->root) : NULL;
    t->next_token = 1;
    strmap_init(&t->prefixes);
    ALLOC_GROW(t->nodes, 1, t->anodes);
    memset(&t->nodes[0], 0, sizeof(t->nodes[0]));
    t->nnodes = 1;
    return t;
}

static void
entry_free(struct entry *x)
{
    glob_free(x->g);
    lock_clear(&x->l);
    free(x);
}

void
lock_table_free(struct lock_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nall; i++)
        entry_free(t->all[i]);
    for (size_t i = 0; i < t->nnodes; i++) {
        free(t->nodes[i].kids);
        free(t->nodes[i].locks);
    }
    free(t->nodes);
    strmap_release(&t->prefixes);
    free(t->all);
    free(t->heap);
    free(t->cand);
    free(t->listbuf);
    free(t->root);
    free(t);
}

/* --- patterns ---------------------------------------------------------- */

static bool
comp_has_magic(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == '*' || s[i] == '?' || s[i] == '[' || s[i] == '\\')
            return true;
    return false;
}

/* A path (no wildcard; escapes are no wildcards) is anchored at the root:
 * compile it as "/path". */
static int
compile_canon(const char *canon, struct glob **g, struct as_err *e)
{
    char *text =
        glob_has_wildcard(canon) ? xstrdup(canon) : xasprintf("/%s", canon);
    int rc = glob_compile(text, g, e);
    free(text);
    return rc;
}

/*
 * Normalise a pattern (field names it in messages) into *out and, if gout
 * is not NULL, compile it. Nothing is allocated on failure.
 */
static int
normalize(const char *root, const char *field, const char *pattern, char **out,
    struct glob **gout, struct as_err *e)
{
    *out = NULL;
    if (gout)
        *gout = NULL;
    if (!pattern || !*pattern)
        return as_errorf(e, AS_EINVAL, "%s is empty", field);
    if (strlen(pattern) > LOCK_PATTERN_MAX)
        return as_errorf(e, AS_EINVAL, "%s is longer than %d bytes", field,
            LOCK_PATTERN_MAX);
    bool anchored =
        pattern[0] == '/' || (pattern[0] == '.' && pattern[1] == '/');
    char *norm;
    if (path_normalize(pattern, root, &norm) < 0) {
        if (root && pattern[0] == '/')
            return as_errorf(e, AS_EINVAL,
                "%s '%s' is outside the repository '%s'", field, pattern, root);
        return as_errorf(
            e, AS_EINVAL, "%s '%s' escapes the repository", field, pattern);
    }
    if (!*norm) {
        free(norm);
        return as_errorf(e, AS_EINVAL,
            "%s '%s' names the repository root (use '**' to cover it all)",
            field, pattern);
    }
    char *canon = norm;
    if (glob_has_wildcard(norm) && anchored && !strchr(norm, '/')) {
        canon = xasprintf("/%s", norm);
        free(norm);
    }
    struct glob *g;
    struct as_err ge = { "" };
    if (compile_canon(canon, &g, &ge) < 0) {
        free(canon);
        return as_errorf(
            e, AS_EINVAL, "%s '%s' is invalid: %s", field, pattern, ge.msg);
    }
    if (gout)
        *gout = g;
    else
        glob_free(g);
    *out = canon;
    return 0;
}

int
lock_table_normalize(const struct lock_table *t, const char *pattern,
    char **out, struct as_err *e)
{
    return normalize(t->root, "pattern", pattern, out, NULL, e);
}

/* The literal directory prefix of a canonical pattern: *start, *len. */
static void
prefix_of(const char *canon, size_t *start, size_t *len)
{
    const char *p = canon[0] == '/' ? canon + 1 : canon;
    *start = (size_t)(p - canon);
    if (!glob_has_magic(p)) {
        *len = strlen(p);
        return;
    }
    size_t end = 0, i = 0;
    for (;;) {
        size_t j = i;
        while (p[j] && p[j] != '/')
            j++;
        if (comp_has_magic(p + i, j - i) || !p[j])
            break;
        end = j;
        i = j + 1;
    }
    *len = end;
}

static int
check_agent(const char *who, const char *field, struct as_err *e)
{
    if (!who || !*who)
        return as_errorf(e, AS_EINVAL, "%s is empty", field);
    if (strlen(who) > LOCK_HOLDER_MAX)
        return as_errorf(
            e, AS_EINVAL, "%s is longer than %d bytes", field, LOCK_HOLDER_MAX);
    return 0;
}

static int
check_mode(enum lock_mode m, struct as_err *e)
{
    if (m != LOCK_EXCLUSIVE && m != LOCK_SHARED)
        return as_errorf(e, AS_EINVAL, "unknown mode %d", (int)m);
    return 0;
}

static int
check_kind(enum lock_kind k, struct as_err *e)
{
    if (k != LOCK_KIND_LOCK && k != LOCK_KIND_CLAIM)
        return as_errorf(e, AS_EINVAL, "unknown kind %d", (int)k);
    return 0;
}

static int
check_reason(const char *reason, struct as_err *e)
{
    if (reason && strlen(reason) > LOCK_REASON_MAX)
        return as_errorf(
            e, AS_EINVAL, "reason is longer than %d bytes", LOCK_REASON_MAX);
    return 0;
}

/* --- the prefix trie ---------------------------------------------------- */

/* Node for prefix p[0..len), or -1. */
static int64_t
node_find(const struct lock_table *t, const char *p, size_t len)
{
    if (len == 0)
        return 0;
    uint32_t v;
    return strmap_get(&t->prefixes, p, len, &v) ? (int64_t)v : -1;
}

static uint32_t
node_ensure(struct lock_table *t, const char *p, size_t len)
{
    int64_t have = node_find(t, p, len);
    if (have >= 0)
        return (uint32_t)have;
    size_t plen = len;
    while (plen > 0 && p[plen - 1] != '/')
        plen--;
    uint32_t parent = node_ensure(t, p, plen ? plen - 1 : 0);
    uint32_t id = (uint32_t)t->nnodes;
    ALLOC_GROW(t->nodes, t->nnodes + 1, t->anodes);
    memset(&t->nodes[id], 0, sizeof(t->nodes[id]));
    t->nodes[id].parent = parent;
    t->nnodes++;
    struct node *pn = &t->nodes[parent];
    ALLOC_GROW(pn->kids, pn->nkids + 1, pn->akids);
    pn->kids[pn->nkids++] = id;
    strmap_put(&t->prefixes, p, len, id, NULL);
    return id;
}

static void
cand_push_node(struct lock_table *t, uint32_t n)
{
    struct node *nd = &t->nodes[n];
    if (!nd->nlocks)
        return;
    ALLOC_GROW(t->cand, t->ncand + nd->nlocks, t->acand);
    memcpy(t->cand + t->ncand, nd->locks, nd->nlocks * sizeof(*nd->locks));
    t->ncand += nd->nlocks;
}

/*
 * Fill t->cand with the locks whose prefix is an ancestor-or-self of
 * p[0..len) and, with desc, a descendant of it.
 */
static void
collect(struct lock_table *t, const char *p, size_t len, bool desc)
{
    t->ncand = 0;
    cand_push_node(t, 0);
    int64_t n = 0;
    for (size_t i = 1; i <= len && n >= 0; i++) {
        if (i < len && p[i] != '/')
            continue;
        n = node_find(t, p, i);
        if (n >= 0)
            cand_push_node(t, (uint32_t)n);
    }
    if (!desc || n < 0)
        return;
    /* Depth-first over the subtree, with an explicit stack. */
    uint32_t *stack = NULL;
    size_t ns = 0, as = 0;
    uint32_t k = (uint32_t)n;
    for (;;) {
        const struct node *kn = &t->nodes[k];
        if (k != (uint32_t)n)
            cand_push_node(t, k);
        if (kn->nkids) {
            ALLOC_GROW(stack, ns + kn->nkids, as);
            memcpy(stack + ns, kn->kids, kn->nkids * sizeof(*stack));
            ns += kn->nkids;
        }
        if (!ns)
            break;
        k = stack[--ns];
    }
    free(stack);
}

/* --- the expiry heap ---------------------------------------------------- */

static bool
heap_less(const struct entry *a, const struct entry *b)
{
    if (a->l.expires_at != b->l.expires_at)
        return a->l.expires_at < b->l.expires_at;
    return a->l.token < b->l.token;
}

static void
heap_set(struct lock_table *t, size_t i, struct entry *x)
{
    t->heap[i] = x;
    x->heap_pos = i;
}

static void
heap_up(struct lock_table *t, size_t i)
{
    struct entry *x = t->heap[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!heap_less(x, t->heap[p]))
            break;
        heap_set(t, i, t->heap[p]);
        i = p;
    }
    heap_set(t, i, x);
}

static void
heap_down(struct lock_table *t, size_t i)
{
    struct entry *x = t->heap[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= t->nheap)
            break;
        if (c + 1 < t->nheap && heap_less(t->heap[c + 1], t->heap[c]))
            c++;
        if (!heap_less(t->heap[c], x))
            break;
        heap_set(t, i, t->heap[c]);
        i = c;
    }
    heap_set(t, i, x);
}

static void
heap_fix(struct lock_table *t, struct entry *x)
{
    heap_up(t, x->heap_pos);
    heap_down(t, x->heap_pos);
}

/* --- entries ------------------------------------------------------------ */

/* Index of token in t->all, or where it would go. */
static size_t
all_search(const struct lock_table *t, uint64_t token, bool *found)
{
    size_t lo = 0, hi = t->nall;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->all[mid]->l.token < token)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < t->nall && t->all[lo]->l.token == token;
    return lo;
}

static void
insert(struct lock_table *t, struct entry *x)
{
    size_t s, len;
    prefix_of(x->l.pattern, &s, &len);
    x->node = node_ensure(t, x->l.pattern + s, len);
    struct node *nd = &t->nodes[x->node];
    ALLOC_GROW(nd->locks, nd->nlocks + 1, nd->alocks);
    nd->locks[nd->nlocks++] = x;

    bool found;
    size_t at = all_search(t, x->l.token, &found);
    ALLOC_GROW(t->all, t->nall + 1, t->aall);
    memmove(t->all + at + 1, t->all + at, (t->nall - at) * sizeof(*t->all));
    t->all[at] = x;
    t->nall++;

    ALLOC_GROW(t->heap, t->nheap + 1, t->aheap);
    heap_set(t, t->nheap++, x);
    heap_up(t, x->heap_pos);
}

static void
drop(struct lock_table *t, struct entry *x)
{
    struct node *nd = &t->nodes[x->node];
    for (size_t i = 0; i < nd->nlocks; i++)
        if (nd->locks[i] == x) {
            nd->locks[i] = nd->locks[--nd->nlocks];
            break;
        }

    bool found;
    size_t at = all_search(t, x->l.token, &found);
    if (found) {
        memmove(
            t->all + at, t->all + at + 1, (t->nall - at - 1) * sizeof(*t->all));
        t->nall--;
    }

    size_t hp = x->heap_pos;
    struct entry *last = t->heap[--t->nheap];
    if (hp < t->nheap) {
        heap_set(t, hp, last);
        heap_fix(t, last);
    }
    entry_free(x);
}

static bool
live(const struct entry *x, int64_t now)
{
    return now < x->l.expires_at;
}

static size_t
retire_expired(struct lock_table *t, int64_t now, struct lock_events *ev)
{
    size_t n = 0;
    while (t->nheap > 0 && !live(t->heap[0], now)) {
        struct entry *x = t->heap[0];
        emit(ev, LOCK_EV_EXPIRED, now, NULL, &x->l);
        drop(t, x);
        n++;
    }
    return n;
}

size_t
lock_table_expire(struct lock_table *t, int64_t now_ms, struct lock_events *ev)
{
    return retire_expired(t, now_ms, ev);
}

/* --- conflicts ---------------------------------------------------------- */

/* Whether a new pattern (canon, g; file: it names a file) and an entry's
 * may cover a common path. A wildcard-free pattern naming a file covers
 * only itself, so the question becomes whether the other pattern matches
 * it, which is exact; its escapes are taken out first, as the file's name
 * has none ("app/\[id\]/x.ts" is the file app/[id]/x.ts, which "*.md"
 * does not match). Otherwise the glob intersection (conservative: a
 * pattern may be a directory with anything inside). */
static bool
overlaps(
    const char *canon, const struct glob *g, bool file, const struct entry *x)
{
    char *path;
    bool hit;
    if (file && !glob_has_magic(canon))
        return glob_matches(x->g, canon);
    if (file && (path = glob_literal(canon))) {
        hit = glob_matches(x->g, path);
        free(path);
        return hit;
    }
    if (x->l.file && !glob_has_magic(x->l.pattern))
        return glob_matches(g, x->l.pattern);
    if (x->l.file && (path = glob_literal(x->l.pattern))) {
        hit = glob_matches(g, path);
        free(path);
        return hit;
    }
    return glob_overlap_compiled(g, x->g);
}

/* The lowest-token live lock of someone other than agent that conflicts. */
static struct entry *
find_conflict(struct lock_table *t, const char *canon, const struct glob *g,
    bool file, const char *agent, enum lock_mode mode, int64_t now)
{
    size_t s, len;
    prefix_of(canon, &s, &len);
    collect(t, canon + s, len, true);
    t->last_compared = 0;
    struct entry *best = NULL;
    for (size_t i = 0; i < t->ncand; i++) {
        struct entry *c = t->cand[i];
        if (!live(c, now) || !strcmp(c->l.holder, agent))
            continue;
        if (mode == LOCK_SHARED && c->l.mode == LOCK_SHARED)
            continue;
        if (best && c->l.token > best->l.token)
            continue;
        t->compared++;
        t->last_compared++;
        if (overlaps(canon, g, file, c))
            best = c;
    }
    return best;
}

static int
conflict_err(
    struct as_err *e, const char *want, const struct entry *c, int64_t now)
{
    const struct lock *l = &c->l;
    /* the remaining time as a person reads it: 45 s, 4 min 59 s, 2 h 5 min */
    int64_t left = sat_sub(l->expires_at, now);
    int64_t sec = left > 0 ? (left + 999) / 1000 : 0;
    char in[48];
    if (sec < 60)
        snprintf(in, sizeof(in), "%" PRId64 " s", sec);
    else if (sec < 3600)
        snprintf(in, sizeof(in), "%" PRId64 " min %" PRId64 " s", sec / 60,
            sec % 60);
    else
        snprintf(in, sizeof(in), "%" PRId64 " h %" PRId64 " min", sec / 3600,
            sec % 3600 / 60);
    /* and when, in UTC (a time past year 9999 stays in ms) */
    char at[40];
    time_t ts = (time_t)(l->expires_at / 1000);
    struct tm tm;
    if (l->expires_at >= 0 && l->expires_at / 1000 <= 253402300799 &&
        gmtime_r(&ts, &tm))
        strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%SZ", &tm);
    else
        snprintf(at, sizeof(at), "%" PRId64 " ms", l->expires_at);
    return as_errorf(e, AS_ECONFLICT,
        "'%s' is %s by '%s' (%s %s on '%s'%s%s%s; expires in %s, at %s)", want,
        l->kind == LOCK_KIND_CLAIM ? "claimed" : "locked", l->holder,
        lock_mode_name(l->mode), lock_kind_name(l->kind), l->pattern,
        l->reason ? ", reason '" : "", l->reason ? l->reason : "",
        l->reason ? "'" : "", in, at);
}

/* --- acquire, release, renew, touch ------------------------------------ */

static int
resolve_ttl(int64_t ttl, int64_t dflt, int64_t *out, struct as_err *e)
{
    if (ttl == LOCK_TTL_DEFAULT) {
        *out = dflt;
        return 0;
    }
    if (ttl <= 0)
        return as_errorf(
            e, AS_EINVAL, "ttl must be positive, got %" PRId64 " ms", ttl);
    *out = ttl;
    return 0;
}

/* holder's live entry on exactly canon (any kind when kind < 0). */
static struct entry *
find_own(struct lock_table *t, const char *canon, const char *holder, int kind,
    int64_t now, size_t *from)
{
    size_t s, len;
    prefix_of(canon, &s, &len);
    int64_t n = node_find(t, canon + s, len);
    if (n < 0)
        return NULL;
    const struct node *nd = &t->nodes[n];
    for (size_t i = *from; i < nd->nlocks; i++) {
        struct entry *x = nd->locks[i];
        if (live(x, now) && !strcmp(x->l.pattern, canon) &&
            !strcmp(x->l.holder, holder) &&
            (kind < 0 || (int)x->l.kind == kind)) {
            *from = i + 1;
            return x;
        }
    }
    return NULL;
}

int
lock_table_acquire(struct lock_table *t, const struct lock_request *r,
    int64_t now_ms, struct lock_result *res, struct lock_events *ev,
    struct as_err *e)
{
    struct lock_result dummy;
    if (!res)
        res = &dummy;
    res->outcome = LOCK_REFUSED;
    res->lock = NULL;
    int64_t ttl = 0;
    int rc;
    if (!r)
        return as_errorf(e, AS_EINVAL, "request is missing");
    if ((rc = check_agent(r->holder, "holder", e)) < 0 ||
        (rc = check_mode(r->mode, e)) < 0 ||
        (rc = check_kind(r->kind, e)) < 0 ||
        (rc = resolve_ttl(r->ttl_ms, t->default_ttl, &ttl, e)) < 0 ||
        (rc = check_reason(r->reason, e)) < 0)
        return rc;
    char *canon;
    struct glob *g;
    if ((rc = normalize(t->root, "pattern", r->pattern, &canon, &g, e)) < 0)
        return rc;

    retire_expired(t, now_ms, ev);
    struct entry *c =
        find_conflict(t, canon, g, r->file, r->holder, r->mode, now_ms);
    if (c) {
        res->lock = &c->l;
        rc = conflict_err(e, canon, c, now_ms);
        free(canon);
        glob_free(g);
        return rc;
    }

    size_t from = 0;
    struct entry *own =
        find_own(t, canon, r->holder, (int)r->kind, now_ms, &from);
    if (own) {
        own->l.mode = r->mode;
        own->l.ttl_ms = ttl;
        own->l.expires_at = sat_add(now_ms, ttl);
        if (r->reason) {
            free(own->l.reason);
            own->l.reason = xstrdup(r->reason);
        }
        heap_fix(t, own);
        free(canon);
        glob_free(g);
        res->outcome = LOCK_REFRESHED;
        res->lock = &own->l;
        emit(ev, LOCK_EV_REFRESHED, now_ms, r->holder, &own->l);
        return 0;
    }

    struct entry *x = xcalloc(1, sizeof(*x));
    x->g = g;
    x->l.token = t->next_token++;
    x->l.pattern = canon;
    x->l.holder = xstrdup(r->holder);
    x->l.reason = dup_or_null(r->reason);
    x->l.mode = r->mode;
    x->l.kind = r->kind;
    x->l.acquired_at = now_ms;
    x->l.ttl_ms = ttl;
    x->l.expires_at = sat_add(now_ms, ttl);
    x->l.contested_at = -1;
    x->l.file = r->file && !glob_has_wildcard(canon);
    insert(t, x);
    res->outcome = LOCK_GRANTED;
    res->lock = &x->l;
    emit(ev, LOCK_EV_GRANTED, now_ms, r->holder, &x->l);
    return 0;
}

int
lock_table_release(struct lock_table *t, const char *holder,
    const char *pattern, int64_t now_ms, struct lock_events *ev,
    struct as_err *e)
{
    int rc;
    char *canon;
    if ((rc = check_agent(holder, "holder", e)) < 0 ||
        (rc = normalize(t->root, "pattern", pattern, &canon, NULL, e)) < 0)
        return rc;
    retire_expired(t, now_ms, ev);

    size_t released = 0, s, len;
    const struct entry *other = NULL;
    prefix_of(canon, &s, &len);
    int64_t n = node_find(t, canon + s, len);
    if (n >= 0) {
        struct node *nd = &t->nodes[n];
        /* From the end: drop() moves the last lock into the freed slot. */
        for (size_t i = nd->nlocks; i-- > 0;) {
            struct entry *x = nd->locks[i];
            if (strcmp(x->l.pattern, canon))
                continue;
            if (strcmp(x->l.holder, holder)) {
                if (!other || x->l.token < other->l.token)
                    other = x;
                continue;
            }
            emit(ev, LOCK_EV_RELEASED, now_ms, holder, &x->l);
            drop(t, x);
            released++;
        }
    }
    if (released) {
        rc = 0;
    } else if (other) {
        rc = as_errorf(e, AS_ECONFLICT, "'%s' is held by '%s', not '%s'", canon,
            other->l.holder, holder);
    } else {
        rc = as_errorf(
            e, AS_ENOENT, "'%s' holds no lock on '%s'", holder, canon);
    }
    free(canon);
    return rc;
}

size_t
lock_table_release_all(struct lock_table *t, const char *holder, int64_t now_ms,
    struct lock_events *ev)
{
    if (!holder)
        return 0;
    retire_expired(t, now_ms, ev);
    struct entry **mine = NULL;
    size_t n = 0, alloc = 0;
    for (size_t i = 0; i < t->nall; i++)
        if (!strcmp(t->all[i]->l.holder, holder)) {
            ALLOC_GROW(mine, n + 1, alloc);
            mine[n++] = t->all[i];
        }
    for (size_t i = 0; i < n; i++) {
        emit(ev, LOCK_EV_RELEASED_ALL, now_ms, holder, &mine[i]->l);
        drop(t, mine[i]);
    }
    free(mine);
    return n;
}

int
lock_table_renew(struct lock_table *t, const char *holder, const char *pattern,
    int64_t ttl_ms, int64_t now_ms, const struct lock **out,
    struct lock_events *ev, struct as_err *e)
{
    int rc;
    int64_t ttl = 0;
    char *canon;
    if (out)
        *out = NULL;
    if ((rc = check_agent(holder, "holder", e)) < 0 ||
        (ttl_ms != LOCK_TTL_DEFAULT &&
            (rc = resolve_ttl(ttl_ms, 0, &ttl, e)) < 0) ||
        (rc = normalize(t->root, "pattern", pattern, &canon, NULL, e)) < 0)
        return rc;
    retire_expired(t, now_ms, ev);
    size_t from = 0, n = 0;
    struct entry *x;
    while ((x = find_own(t, canon, holder, -1, now_ms, &from))) {
        if (ttl_ms != LOCK_TTL_DEFAULT)
            x->l.ttl_ms = ttl;
        x->l.expires_at = sat_add(now_ms, x->l.ttl_ms);
        heap_fix(t, x);
        emit(ev, LOCK_EV_RENEWED, now_ms, holder, &x->l);
        if (out && !n)
            *out = &x->l;
        n++;
    }
    rc = n ? 0
           : as_errorf(
                 e, AS_ENOENT, "'%s' holds no lock on '%s'", holder, canon);
    free(canon);
    return rc;
}

int
lock_table_touch(struct lock_table *t, const char *holder, const char *path,
    int64_t now_ms, struct lock_events *ev, struct as_err *e)
{
    int rc;
    if ((rc = check_agent(holder, "holder", e)) < 0)
        return rc;
    if (!path || !*path)
        return as_errorf(e, AS_EINVAL, "path is empty");
    char *norm;
    if (path_normalize(path, t->root, &norm) < 0)
        return as_errorf(
            e, AS_EINVAL, "path '%s' is outside the repository", path);
    retire_expired(t, now_ms, ev);
    collect(t, norm, strlen(norm), false);
    int n = 0;
    for (size_t i = 0; i < t->ncand; i++) {
        struct entry *x = t->cand[i];
        if (strcmp(x->l.holder, holder) || !glob_matches(x->g, norm))
            continue;
        x->l.expires_at = sat_add(now_ms, x->l.ttl_ms);
        heap_fix(t, x);
        emit(ev, LOCK_EV_TOUCHED, now_ms, holder, &x->l);
        n++;
    }
    free(norm);
    return n;
}

/* --- claims: contest and force-release ---------------------------------- */

/*
 * The claim of another agent that contest and force_release act on: on
 * exactly canon if any, else the lowest-token one overlapping it.
 */
static int
pick_claim(struct lock_table *t, const char *contester, const char *canon,
    const struct glob *g, int64_t now, struct entry **out, struct as_err *e)
{
    size_t s, len;
    prefix_of(canon, &s, &len);
    collect(t, canon + s, len, true);
    struct entry *exact = NULL, *near = NULL, *lock = NULL;
    bool own = false;
    for (size_t i = 0; i < t->ncand; i++) {
        struct entry *x = t->cand[i];
        if (!live(x, now))
            continue;
        bool same = !strcmp(x->l.pattern, canon);
        if (!strcmp(x->l.holder, contester)) {
            own = own || (same && x->l.kind == LOCK_KIND_CLAIM);
            continue;
        }
        if (!same && !glob_overlap_compiled(g, x->g))
            continue;
        struct entry **slot = x->l.kind != LOCK_KIND_CLAIM ? &lock
                              : same                       ? &exact
                                                           : &near;
        if (!*slot || x->l.token < (*slot)->l.token)
            *slot = x;
    }
    *out = exact ? exact : near;
    if (*out)
        return 0;
    if (lock)
        return as_errorf(e, AS_EINVAL,
            "'%s' is held by a lock of '%s' on '%s', not a claim; only "
            "claims can be contested",
            canon, lock->l.holder, lock->l.pattern);
    if (own)
        return as_errorf(e, AS_EINVAL, "'%s' cannot contest its own claim '%s'",
            contester, canon);
    return as_errorf(
        e, AS_ENOENT, "no claim of another agent covers '%s'", canon);
}

/* Validate, normalise and pick; *canon is set on success only. */
static int
claim_target(struct lock_table *t, const char *contester, const char *pattern,
    int64_t now, struct lock_events *ev, struct entry **out, char **canon,
    struct as_err *e)
{
    int rc;
    struct glob *g;
    if ((rc = check_agent(contester, "contester", e)) < 0 ||
        (rc = normalize(t->root, "pattern", pattern, canon, &g, e)) < 0)
        return rc;
    retire_expired(t, now, ev);
    rc = pick_claim(t, contester, *canon, g, now, out, e);
    glob_free(g);
    if (rc < 0) {
        free(*canon);
        *canon = NULL;
    }
    return rc;
}

int
lock_table_contest(struct lock_table *t, const char *contester,
    const char *pattern, int64_t now_ms, const struct lock **out,
    struct lock_events *ev, struct as_err *e)
{
    struct entry *x;
    char *canon;
    if (out)
        *out = NULL;
    int rc = claim_target(t, contester, pattern, now_ms, ev, &x, &canon, e);
    if (rc < 0)
        return rc;
    free(canon);
    if (!x->l.contested_by) {
        x->l.contested_by = xstrdup(contester);
        x->l.contested_at = now_ms;
    }
    emit(ev, LOCK_EV_CONTESTED, now_ms, contester, &x->l);
    if (out)
        *out = &x->l;
    return 0;
}

int
lock_table_force_release(struct lock_table *t, const char *contester,
    const char *pattern, int64_t now_ms, bool holder_is_stale,
    struct lock_events *ev, struct as_err *e)
{
    struct entry *x;
    char *canon;
    int rc = claim_target(t, contester, pattern, now_ms, ev, &x, &canon, e);
    if (rc < 0)
        return rc;
    if (!holder_is_stale) {
        if (!x->l.contested_by) {
            rc = as_errorf(e, AS_ECONFLICT,
                "claim '%s' of '%s' has not been contested; contest it first",
                x->l.pattern, x->l.holder);
            goto out_free;
        }
        int64_t waited = sat_sub(now_ms, x->l.contested_at);
        if (waited < t->contest_timeout) {
            rc = as_errorf(e, AS_ECONFLICT,
                "claim '%s' of '%s' was contested %" PRId64
                " ms ago; force-release is allowed after %" PRId64
                " ms (in %" PRId64 " ms)",
                x->l.pattern, x->l.holder, waited, t->contest_timeout,
                sat_sub(t->contest_timeout, waited));
            goto out_free;
        }
    }
    emit(ev, LOCK_EV_FORCE_RELEASED, now_ms, contester, &x->l);
    drop(t, x);
out_free:
    free(canon);
    return rc;
}

int
lock_table_claim_for(struct lock_table *t, const char *contester,
    const char *pattern, int64_t now_ms, const struct lock **out,
    struct as_err *e)
{
    int rc;
    char *canon;
    struct glob *g;
    struct entry *x;
    *out = NULL;
    if ((rc = check_agent(contester, "contester", e)) < 0 ||
        (rc = normalize(t->root, "pattern", pattern, &canon, &g, e)) < 0)
        return rc;
    rc = pick_claim(t, contester, canon, g, now_ms, &x, e);
    glob_free(g);
    free(canon);
    if (!rc)
        *out = &x->l;
    return rc;
}

size_t
lock_table_reassign(struct lock_table *t, const char *from, const char *to,
    int64_t now_ms, struct lock_events *ev)
{
    if (!from || !to || !*to || !strcmp(from, to))
        return 0;
    retire_expired(t, now_ms, ev);
    struct entry **mine = NULL;
    size_t n = 0, alloc = 0, moved = 0;
    for (size_t i = 0; i < t->nall; i++) {
        struct lock *l = &t->all[i]->l;
        if (!strcmp(l->holder, from)) {
            ALLOC_GROW(mine, n + 1, alloc);
            mine[n++] = t->all[i];
        } else if (l->contested_by && !strcmp(l->contested_by, from)) {
            free(l->contested_by);
            if (strcmp(l->holder, to)) {
                l->contested_by = xstrdup(to);
            } else {
                l->contested_by = NULL;
                l->contested_at = -1;
            }
            /* the contest changed: stored and told like any change */
            emit(ev, LOCK_EV_REASSIGNED, now_ms, to, l);
        }
    }
    for (size_t i = 0; i < n; i++) {
        struct entry *x = mine[i];
        size_t at = 0;
        if (find_own(t, x->l.pattern, to, (int)x->l.kind, now_ms, &at)) {
            emit(ev, LOCK_EV_RELEASED_ALL, now_ms, to, &x->l);
            drop(t, x);
            continue;
        }
        free(x->l.holder);
        x->l.holder = xstrdup(to);
        if (x->l.contested_by && !strcmp(x->l.contested_by, to)) {
            free(x->l.contested_by);
            x->l.contested_by = NULL;
            x->l.contested_at = -1;
        }
        emit(ev, LOCK_EV_REASSIGNED, now_ms, to, &x->l);
        moved++;
    }
    free(mine);
    return moved;
}

/* --- reads -------------------------------------------------------------- */

int
lock_table_check(struct lock_table *t, const char *agent, const char *pattern,
    enum lock_mode mode, int64_t now_ms, const struct lock **out,
    struct as_err *e)
{
    return lock_table_check_file(
        t, agent, pattern, false, mode, now_ms, out, e);
}

int
lock_table_check_file(struct lock_table *t, const char *agent,
    const char *pattern, bool file, enum lock_mode mode, int64_t now_ms,
    const struct lock **out, struct as_err *e)
{
    int rc;
    char *canon;
    struct glob *g;
    if (out)
        *out = NULL;
    if ((rc = check_agent(agent, "agent", e)) < 0 ||
        (rc = check_mode(mode, e)) < 0 ||
        (rc = normalize(t->root, "pattern", pattern, &canon, &g, e)) < 0)
        return rc;
    struct entry *c = find_conflict(t, canon, g, file, agent, mode, now_ms);
    rc = 0;
    if (c) {
        if (out)
            *out = &c->l;
        /* a path is named as it is spelled on disk, without escapes */
        char *path = glob_literal(canon);
        rc = conflict_err(e, path ? path : canon, c, now_ms);
        free(path);
    }
    free(canon);
    glob_free(g);
    return rc;
}

const struct lock *
lock_table_find(const struct lock_table *t, uint64_t token, int64_t now_ms)
{
    bool found;
    size_t at = all_search(t, token, &found);
    if (!found || !live(t->all[at], now_ms))
        return NULL;
    return &t->all[at]->l;
}

static int
cmp_lock(const void *pa, const void *pb)
{
    const struct lock *a = *(const struct lock *const *)pa;
    const struct lock *b = *(const struct lock *const *)pb;
    int c = strcmp(a->pattern, b->pattern);
    if (!c)
        c = strcmp(a->holder, b->holder);
    if (!c)
        c = (int)a->kind - (int)b->kind;
    if (!c)
        c = (a->token > b->token) - (a->token < b->token);
    return c;
}

const struct lock *const *
lock_table_list(struct lock_table *t, int64_t now_ms, size_t *n)
{
    ALLOC_GROW(t->listbuf, t->nall + 1, t->alist);
    size_t k = 0;
    for (size_t i = 0; i < t->nall; i++)
        if (live(t->all[i], now_ms))
            t->listbuf[k++] = &t->all[i]->l;
    qsort(t->listbuf, k, sizeof(*t->listbuf), cmp_lock);
    *n = k;
    return t->listbuf;
}

/* --- restore ------------------------------------------------------------ */

int
lock_table_restore(struct lock_table *t, const struct lock *l, struct as_err *e)
{
    int rc;
    if (!l)
        return as_errorf(e, AS_EINVAL, "lock is missing");
    if ((rc = check_agent(l->holder, "holder", e)) < 0 ||
        (rc = check_mode(l->mode, e)) < 0 ||
        (rc = check_kind(l->kind, e)) < 0 ||
        (rc = check_reason(l->reason, e)) < 0)
        return rc;
    if (l->ttl_ms <= 0)
        return as_errorf(e, AS_EINVAL,
            "ttl must be positive, got %" PRId64 " ms", l->ttl_ms);
    if (l->token == 0 || l->token == UINT64_MAX)
        return as_errorf(
            e, AS_EINVAL, "token %" PRIu64 " is out of range", l->token);
    bool found;
    all_search(t, l->token, &found);
    if (found)
        return as_errorf(e, AS_EINVAL,
            "token %" PRIu64 " is already in the table", l->token);
    if (l->contested_by &&
        (rc = check_agent(l->contested_by, "contested_by", e)) < 0)
        return rc;
    char *canon;
    struct glob *g;
    if ((rc = normalize(t->root, "pattern", l->pattern, &canon, &g, e)) < 0)
        return rc;
    struct entry *x = xcalloc(1, sizeof(*x));
    lock_copy(&x->l, l);
    free(x->l.pattern);
    x->l.pattern = canon;
    x->g = g;
    if (!x->l.contested_by)
        x->l.contested_at = -1;
    x->l.file = l->file && !glob_has_wildcard(canon);
    insert(t, x);
    lock_table_set_next_token(t, l->token + 1);
    return 0;
}

int
lock_table_remove(struct lock_table *t, uint64_t token)
{
    bool found;
    size_t at = all_search(t, token, &found);
    if (!found)
        return AS_ENOENT;
    drop(t, t->all[at]);
    return 0;
}

void
lock_table_set_next_token(struct lock_table *t, uint64_t next)
{
    if (next > t->next_token)
        t->next_token = next;
}

uint64_t
lock_table_next_token(const struct lock_table *t)
{
    return t->next_token;
}

void
lock_table_stats(const struct lock_table *t, struct lock_stats *out)
{
    out->locks = t->nall;
    out->nodes = t->nnodes;
    out->compared = t->compared;
    out->last_compared = t->last_compared;
}

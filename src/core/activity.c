/*
 * activity.c - the per-agent activity table (an LWW-register-per-entry CRDT
 * with session tombstones).
 */
#include "core/activity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/strmap.h"
#include "util/xalloc.h"
#include "util/banned.h"

struct slot {
    uint32_t agent, session;
    uint64_t seq;
    struct activity_entry e;
};

struct file {
    char *name;
    struct slot *v;
    size_t n, alloc;
};

struct session {
    char *name;
    uint32_t agent;
    uint64_t max_seq;
    bool closed;
};

struct activity {
    struct strmap file_ix, agent_ix, session_ix;
    struct file *files;
    size_t nfiles, afiles;
    char **agents;
    size_t nagents, aagents;
    struct session *sessions;
    size_t nsessions, asessions;
};

static const char *const action_names[] = { "none", "read", "search", "write" };

const char *
activity_action_name(enum activity_action a)
{
    return (unsigned)a < 4 ? action_names[a] : "?";
}

struct activity *
activity_new(void)
{
    struct activity *t = xcalloc(1, sizeof(*t));
    strmap_init(&t->file_ix);
    strmap_init(&t->agent_ix);
    strmap_init(&t->session_ix);
    return t;
}

void
activity_free(struct activity *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nfiles; i++) {
        free(t->files[i].name);
        free(t->files[i].v);
    }
    for (size_t i = 0; i < t->nagents; i++)
        free(t->agents[i]);
    for (size_t i = 0; i < t->nsessions; i++)
        free(t->sessions[i].name);
    free(t->files);
    free(t->agents);
    free(t->sessions);
    strmap_release(&t->file_ix);
    strmap_release(&t->agent_ix);
    strmap_release(&t->session_ix);
    free(t);
}

static uint32_t
intern_agent(struct activity *t, const char *id)
{
    bool added;
    uint32_t v =
        strmap_put(&t->agent_ix, id, strlen(id), (uint32_t)t->nagents, &added);
    if (added) {
        ALLOC_GROW(t->agents, t->nagents + 1, t->aagents);
        t->agents[t->nagents++] = xstrdup(id);
    }
    return v;
}

static uint32_t
intern_file(struct activity *t, const char *name)
{
    bool added;
    uint32_t v = strmap_put(
        &t->file_ix, name, strlen(name), (uint32_t)t->nfiles, &added);
    if (added) {
        ALLOC_GROW(t->files, t->nfiles + 1, t->afiles);
        struct file *f = &t->files[t->nfiles++];
        memset(f, 0, sizeof(*f));
        f->name = xstrdup(name);
    }
    return v;
}

static uint32_t
intern_session(struct activity *t, const char *name, uint32_t agent)
{
    bool added;
    uint32_t v = strmap_put(
        &t->session_ix, name, strlen(name), (uint32_t)t->nsessions, &added);
    if (added) {
        ALLOC_GROW(t->sessions, t->nsessions + 1, t->asessions);
        struct session *s = &t->sessions[t->nsessions++];
        memset(s, 0, sizeof(*s));
        s->name = xstrdup(name);
        s->agent = agent;
    }
    return v;
}

/*
 * Total order of versions of one (file, agent) entry: time, then session
 * name, then number, then the contents, so the larger one wins everywhere.
 */
static int
slot_cmp(const struct activity *ta, const struct slot *a,
    const struct activity *tb, const struct slot *b)
{
#define CMP(x, y)                                                              \
    do {                                                                       \
        if ((x) != (y))                                                        \
            return (x) < (y) ? -1 : 1;                                         \
    } while (0)
    CMP(a->e.at, b->e.at);
    int c =
        strcmp(ta->sessions[a->session].name, tb->sessions[b->session].name);
    if (c)
        return c;
    CMP(a->seq, b->seq);
    CMP(a->e.action_at, b->e.action_at);
    CMP(a->e.action, b->e.action);
    CMP(a->e.heat, b->e.heat);
    CMP(a->e.in_context, b->e.in_context);
    return 0;
#undef CMP
}

/*
 * LWW-store s (already interned in t) into file f. There is one slot per
 * session, so closing one session never exposes or hides another's write
 * depending on order; an agent's current entry is its newest live slot.
 */
static void
slot_put(struct activity *t, struct file *f, const struct slot *s)
{
    for (size_t i = 0; i < f->n; i++) {
        if (f->v[i].session != s->session)
            continue;
        if (slot_cmp(t, s, t, &f->v[i]) > 0)
            f->v[i] = *s;
        return;
    }
    ALLOC_GROW(f->v, f->n + 1, f->alloc);
    f->v[f->n++] = *s;
}

/* Drop every entry written by a closed session. */
static void
sweep_closed(struct activity *t)
{
    for (size_t i = 0; i < t->nfiles; i++) {
        struct file *f = &t->files[i];
        size_t k = 0;
        for (size_t j = 0; j < f->n; j++)
            if (!t->sessions[f->v[j].session].closed)
                f->v[k++] = f->v[j];
        f->n = k;
    }
}

static int
check_entry(const struct activity_entry *en, struct as_err *e)
{
    if (!(en->heat >= 0 && en->heat <= ACTIVITY_HEAT_MAX))
        return as_errorf(
            e, AS_EINVAL, "heat must lie in [0, %g]", ACTIVITY_HEAT_MAX);
    if ((unsigned)en->action > ACTIVITY_WRITE)
        return as_errorf(e, AS_EINVAL, "unknown action %d", (int)en->action);
    return 0;
}

/* Whether session name exists for another agent than agent. */
static bool
session_foreign(
    const struct activity *t, const char *session, const char *agent)
{
    uint32_t s, a;
    if (!strmap_get(&t->session_ix, session, strlen(session), &s))
        return false;
    return !strmap_get(&t->agent_ix, agent, strlen(agent), &a) ||
           t->sessions[s].agent != a;
}

int
activity_apply(
    struct activity *t, const struct activity_delta *d, struct as_err *e)
{
    if (!d->agent || !*d->agent || !d->session || !*d->session || !d->file ||
        !*d->file)
        return as_errorf(e, AS_EINVAL,
            "delta needs an agent, a session and "
            "a file");
    if (!d->seq)
        return as_errorf(e, AS_EINVAL, "sequence numbers start at 1");
    int rc = check_entry(&d->e, e);
    if (rc < 0)
        return rc;
    if (session_foreign(t, d->session, d->agent))
        return as_errorf(
            e, AS_EINVAL, "session '%s' belongs to another agent", d->session);
    uint32_t a = intern_agent(t, d->agent);
    uint32_t s = intern_session(t, d->session, a);
    struct session *ss = &t->sessions[s];
    if (ss->closed)
        return ACTIVITY_CLOSED;
    int status = d->seq == ss->max_seq + 1 ? ACTIVITY_APPLIED
                 : d->seq > ss->max_seq    ? ACTIVITY_GAP
                                           : ACTIVITY_DUPLICATE;
    if (d->seq > ss->max_seq)
        ss->max_seq = d->seq;
    struct slot sl = { .agent = a, .session = s, .seq = d->seq, .e = d->e };
    uint32_t fi = intern_file(t, d->file);
    slot_put(t, &t->files[fi], &sl);
    return status;
}

void
activity_disconnect(struct activity *t, const char *agent, const char *session)
{
    if (session_foreign(t, session, agent))
        return;
    uint32_t a = intern_agent(t, agent);
    uint32_t s = intern_session(t, session, a);
    t->sessions[s].closed = true;
    sweep_closed(t);
}

int
activity_resync(struct activity *t, const char *agent, const char *session,
    uint64_t seq, const char *const *files,
    const struct activity_entry *entries, size_t n, struct as_err *e)
{
    if (!agent || !*agent || !session || !*session)
        return as_errorf(e, AS_EINVAL, "snapshot needs an agent and a session");
    if (session_foreign(t, session, agent))
        return as_errorf(
            e, AS_EINVAL, "session '%s' belongs to another agent", session);
    for (size_t i = 0; i < n; i++) {
        int rc = check_entry(&entries[i], e);
        if (rc < 0)
            return rc;
        if (!files[i] || !*files[i])
            return as_errorf(e, AS_EINVAL, "snapshot file %zu is empty", i);
    }
    uint32_t a = intern_agent(t, agent);
    uint32_t s = intern_session(t, session, a);
    if (t->sessions[s].closed)
        return 0;
    /* the snapshot replaces what this session wrote */
    for (size_t i = 0; i < t->nfiles; i++) {
        struct file *f = &t->files[i];
        size_t k = 0;
        for (size_t j = 0; j < f->n; j++)
            if (f->v[j].session != s)
                f->v[k++] = f->v[j];
        f->n = k;
    }
    for (size_t i = 0; i < n; i++) {
        struct slot sl = {
            .agent = a, .session = s, .seq = seq, .e = entries[i]
        };
        slot_put(t, &t->files[intern_file(t, files[i])], &sl);
    }
    if (seq > t->sessions[s].max_seq)
        t->sessions[s].max_seq = seq;
    return 0;
}

void
activity_merge(struct activity *dst, const struct activity *src)
{
    if (dst == src)
        return;
    for (size_t i = 0; i < src->nsessions; i++) {
        const struct session *ss = &src->sessions[i];
        uint32_t a = intern_agent(dst, src->agents[ss->agent]);
        uint32_t s = intern_session(dst, ss->name, a);
        struct session *ds = &dst->sessions[s];
        if (ss->max_seq > ds->max_seq)
            ds->max_seq = ss->max_seq;
        ds->closed = ds->closed || ss->closed;
    }
    sweep_closed(dst);
    for (size_t i = 0; i < src->nfiles; i++) {
        const struct file *sf = &src->files[i];
        uint32_t fi = intern_file(dst, sf->name);
        for (size_t j = 0; j < sf->n; j++) {
            const struct slot *x = &sf->v[j];
            const char *sname = src->sessions[x->session].name;
            uint32_t s;
            strmap_get(&dst->session_ix, sname, strlen(sname), &s);
            if (dst->sessions[s].closed)
                continue;
            struct slot sl = *x;
            sl.agent = dst->sessions[s].agent;
            sl.session = s;
            slot_put(dst, &dst->files[fi], &sl);
        }
    }
}

double
activity_decay(double heat, int64_t elapsed_ms, int64_t half_life_ms)
{
    if (elapsed_ms <= 0 || half_life_ms <= 0)
        return heat;
    return heat * exp2(-(double)elapsed_ms / (double)half_life_ms);
}

/* Whether slot i is its agent's current (newest) slot in f. */
static bool
slot_current(const struct activity *t, const struct file *f, size_t i)
{
    for (size_t j = 0; j < f->n; j++)
        if (j != i && f->v[j].agent == f->v[i].agent &&
            slot_cmp(t, &f->v[j], t, &f->v[i]) > 0)
            return false;
    return true;
}

static const struct file *
find_file(const struct activity *t, const char *name)
{
    uint32_t fi;
    if (!strmap_get(&t->file_ix, name, strlen(name), &fi))
        return NULL;
    return &t->files[fi];
}

bool
activity_view(const struct activity *t, const char *file, int64_t now_ms,
    int64_t half_life_ms, struct activity_view *out)
{
    memset(out, 0, sizeof(*out));
    const struct file *f = find_file(t, file);
    if (!f || !f->n)
        return false;
    const struct slot *last = NULL;
    for (size_t i = 0; i < f->n; i++) {
        const struct slot *s = &f->v[i];
        if (!slot_current(t, f, i))
            continue;
        out->nagents++;
        double h = activity_decay(s->e.heat, now_ms - s->e.at, half_life_ms);
        if (h > out->heat)
            out->heat = h;
        out->in_context = out->in_context || s->e.in_context;
        if (s->e.action == ACTIVITY_NONE)
            continue;
        if (!last || s->e.action_at > last->e.action_at ||
            (s->e.action_at == last->e.action_at &&
                (s->e.action > last->e.action ||
                    (s->e.action == last->e.action &&
                        strcmp(t->agents[s->agent], t->agents[last->agent]) <
                            0))))
            last = s;
    }
    if (last) {
        out->action = last->e.action;
        out->action_at = last->e.action_at;
        out->agent = t->agents[last->agent];
    }
    return true;
}

bool
activity_get(const struct activity *t, const char *file, const char *agent,
    struct activity_entry *out)
{
    const struct file *f = find_file(t, file);
    uint32_t a;
    if (!f || !strmap_get(&t->agent_ix, agent, strlen(agent), &a))
        return false;
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].agent == a && slot_current(t, f, i)) {
            *out = f->v[i].e;
            return true;
        }
    return false;
}

size_t
activity_nfiles(const struct activity *t)
{
    return t->nfiles;
}

const char *
activity_file(const struct activity *t, size_t i)
{
    return i < t->nfiles ? t->files[i].name : NULL;
}

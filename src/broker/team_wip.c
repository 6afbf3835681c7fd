/*
 * team_wip.c - work in progress shared through git between the daemons
 * of a team (team_wip.h).
 */
#include "broker/team_wip.h"

#include <stdlib.h>
#include <string.h>

#include "broker/agents.h"
#include "broker/internal.h"
#include "git/wip.h"
#include "util/xalloc.h"
#include "util/banned.h"

#define TEAM_WIP_MS 2000 /* an agent's snapshot pushed at most this often */

/* One local agent's work in progress as last pushed. */
struct wip_agent {
    char *id;
    char *ref, *tree, *base; /* NULL: none pushed yet */
    char commit[41];
    int64_t at;  /* when last tried */
    bool failed; /* the last try failed (logged once) */
};

struct team_wip {
    char *remote, *node;
    struct wip_agent *v;
    size_t n;
};

struct team_wip *
team_wip_new(const char *remote, const char *node)
{
    if (!remote)
        return NULL;
    struct team_wip *w = xcalloc(1, sizeof(*w));
    w->remote = xstrdup(remote);
    w->node = xstrdup(node);
    return w;
}

void
team_wip_free(struct team_wip *w)
{
    if (!w)
        return;
    for (size_t k = 0; k < w->n; k++) {
        free(w->v[k].id);
        free(w->v[k].ref);
        free(w->v[k].tree);
        free(w->v[k].base);
    }
    free(w->v);
    free(w->remote);
    free(w->node);
    free(w);
}

static struct wip_agent *
agent_of(struct team_wip *w, const char *id)
{
    for (size_t k = 0; k < w->n; k++)
        if (!strcmp(w->v[k].id, id))
            return &w->v[k];
    w->v = xrealloc(w->v, (w->n + 1) * sizeof(*w->v));
    struct wip_agent *x = &w->v[w->n++];
    memset(x, 0, sizeof(*x));
    x->id = xstrdup(id);
    return x;
}

static void
push(struct broker *b, struct team_wip *w, struct wip_agent *x,
    const struct agent *a, int64_t now)
{
    x->at = now;
    char *ref = wip_ref_name(w->node, a->id);
    char commit[41];
    struct as_err e;
    if (wip_push(b->repo, w->remote, ref, a->base_oid, a->tree_oid, now, commit,
            &e)) {
        if (!x->failed)
            broker_log(
                b, "team: work in progress of %s not shared: %s", a->id, e.msg);
        x->failed = true;
        free(ref);
        return;
    }
    if (x->failed)
        broker_log(b, "team: work in progress of %s shared again", a->id);
    x->failed = false;
    free(x->ref);
    free(x->tree);
    free(x->base);
    x->ref = ref;
    x->tree = xstrdup(a->tree_oid);
    x->base = xstrdup(a->base_oid);
    memcpy(x->commit, commit, sizeof(commit));
}

static json_t *wip_entry(json_t *files);

static void
wip_agent_clear(struct wip_agent *x)
{
    free(x->ref);
    free(x->tree);
    free(x->base);
    x->ref = x->tree = x->base = NULL;
    x->commit[0] = '\0';
}

/* Its ref deleted on the remote and here; false when that failed (tried
 * again at most every TEAM_WIP_MS). */
static bool
drop(struct broker *b, struct team_wip *w, struct wip_agent *x, int64_t now)
{
    if (!x->ref)
        return true;
    if (x->at && now - x->at < TEAM_WIP_MS)
        return false;
    x->at = now;
    struct as_err e;
    if (wip_drop(b->repo, w->remote, x->ref, &e)) {
        if (!x->failed)
            broker_log(b, "team: work in progress of %s not withdrawn: %s",
                x->id, e.msg);
        x->failed = true;
        return false;
    }
    x->failed = false;
    wip_agent_clear(x);
    return true;
}

void
team_wip_forget(struct broker *b, struct team_wip *w, const char *id)
{
    if (!w)
        return;
    for (size_t k = 0; k < w->n; k++) {
        struct wip_agent *x = &w->v[k];
        if (strcmp(x->id, id))
            continue;
        x->at = 0; /* now, whenever it last tried */
        drop(b, w, x, 0);
        wip_agent_clear(x);
        free(x->id);
        w->v[k] = w->v[--w->n];
        return;
    }
}

void
team_wip_unmirror(struct broker *b, struct team_wip *w, const char *files)
{
    if (!w || !files || !strstr(files, "{\"wip\":"))
        return;
    json_t *v = json_loads(files, 0, NULL);
    const char *ref = json_string_value(json_object_get(wip_entry(v), "ref"));
    struct as_err e;
    if (ref && wip_forget(b->repo, ref, &e))
        broker_log(b, "team: %s", e.msg);
    json_decref(v);
}

char *
team_wip_publish(
    struct broker *b, struct team_wip *w, size_t i, int64_t now, char *files)
{
    const struct agent *a = &b->ag[i];
    if (!w)
        return files;
    /* nothing the others pair with: its last snapshot goes */
    if (!a->nfiles ||
        (broker_who(b, i)->status != AS_AGENT_ACTIVE && !broker_parked(b, i))) {
        for (size_t k = 0; k < w->n; k++)
            if (!strcmp(w->v[k].id, a->id))
                drop(b, w, &w->v[k], now);
        return files;
    }
    if (!a->tree_oid || !a->base_oid)
        return files;
    struct wip_agent *x = agent_of(w, a->id);
    if ((!x->tree || strcmp(x->tree, a->tree_oid)) &&
        (!x->at || now - x->at >= TEAM_WIP_MS))
        push(b, w, x, a, now);
    if (!x->tree)
        return files;
    json_t *v = json_loads(files, 0, NULL);
    if (!json_is_array(v)) {
        json_decref(v);
        return files;
    }
    json_array_append_new(
        v, json_pack("{s:{s:s, s:s, s:s, s:s}}", "wip", "ref", x->ref, "tree",
               x->tree, "base", x->base, "commit", x->commit));
    char *s = json_dumps(v, JSON_COMPACT);
    json_decref(v);
    free(files);
    return s;
}

static json_t *
wip_entry(json_t *files)
{
    size_t k;
    json_t *f;
    json_array_foreach(files, k, f)
    {
        json_t *x = json_object_get(f, "wip");
        if (json_is_object(x))
            return x;
    }
    return NULL;
}

void
team_wip_mirror(struct broker *b, struct team_wip *w, size_t i, json_t *files)
{
    struct agent *a = &b->ag[i];
    if (!w)
        return;
    free(a->tree_oid);
    free(a->base_oid);
    a->tree_oid = a->base_oid = NULL;
    json_t *x = wip_entry(files);
    const char *ref = json_string_value(json_object_get(x, "ref"));
    const char *tree = json_string_value(json_object_get(x, "tree"));
    const char *base = json_string_value(json_object_get(x, "base"));
    if (!ref || !tree || !base)
        return;
    struct as_err e;
    if ((!wip_have(b->repo, tree) || !wip_have(b->repo, base)) &&
        wip_fetch(b->repo, w->remote, ref, &e))
        broker_log(
            b, "team: work in progress of %s not here: %s", a->id, e.msg);
    if (wip_have(b->repo, tree) && wip_have(b->repo, base)) {
        a->tree_oid = xstrdup(tree);
        a->base_oid = xstrdup(base);
    }
}

bool
team_wip_lost(struct broker *b, struct team_wip *w, size_t i, const char *files)
{
    if (!w || !files || b->ag[i].tree_oid || !strstr(files, "{\"wip\":"))
        return false;
    /* only when its tree is here: a fetch that failed is not repeated
     * until its daemon publishes again */
    json_t *v = json_loads(files, 0, NULL);
    const char *tree = json_string_value(json_object_get(wip_entry(v), "tree"));
    bool lost = tree && wip_have(b->repo, tree);
    json_decref(v);
    return lost;
}

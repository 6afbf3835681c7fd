#include "cli/agents_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "util/isotime.h"
#include "util/path.h"
#include "util/xalloc.h"
#include "util/banned.h"

static bool
key_allowed(const char *key, const char *const *allowed)
{
    for (; *allowed; allowed++)
        if (!strcmp(key, *allowed))
            return true;
    return false;
}

static int
check_keys(json_t *obj, const char *const *allowed, const char *where,
    struct as_err *e)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        (void)v;
        if (!key_allowed(key, allowed))
            return as_errorf(e, AS_EINVAL, "%s: unknown key '%s'", where, key);
    }
    return 0;
}

/* Parse an ISO-8601 UTC timestamp ("2026-01-02T03:04:05Z", optional
 * fraction and +hh:mm offset) into ms since the epoch. Returns 0 or -1. */
static int
parse_iso8601_ms(const char *s, int64_t *out)
{
    struct iso_time t;
    if (iso_time_parse(s, &t))
        return -1;
    *out = t.utc_s * 1000 + t.ms; /* no zone: UTC */
    return 0;
}

static int
get_count(json_t *v, const char *where, const char *key, uint32_t *out,
    struct as_err *e)
{
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) > UINT32_MAX)
        return as_errorf(e, AS_EINVAL,
            "%s: '%s' must be a non-negative integer", where, key);
    *out = (uint32_t)json_integer_value(v);
    return 0;
}

static int
parse_file(struct agent *a, json_t *jf, const char *where, struct as_err *e)
{
    static const char *const keys[] = { "path", "lines", "weight", "status",
        NULL };
    if (!json_is_object(jf))
        return as_errorf(e, AS_EINVAL, "%s: must be an object", where);
    int rc = check_keys(jf, keys, where, e);
    if (rc)
        return rc;
    json_t *jp = json_object_get(jf, "path");
    if (!json_is_string(jp) || !*json_string_value(jp))
        return as_errorf(
            e, AS_EINVAL, "%s: 'path' must be a non-empty string", where);
    if (json_string_value(jp)[0] == '/')
        return as_errorf(e, AS_EINVAL,
            "%s: path '%s' is absolute; paths are relative to the "
            "repository's top",
            where, json_string_value(jp));
    char *norm;
    if (path_normalize(json_string_value(jp), NULL, &norm) < 0 || !*norm) {
        free(norm);
        return as_errorf(e, AS_EINVAL, "%s: path '%s' escapes the repository",
            where, json_string_value(jp));
    }
    enum ws_status st = WS_MODIFIED;
    json_t *js = json_object_get(jf, "status");
    if (js && (!json_is_string(js) ||
                  ws_status_parse(json_string_value(js), &st) < 0)) {
        free(norm);
        return as_errorf(e, AS_EINVAL,
            "%s: 'status' must be one of modified, added, deleted, renamed, "
            "binary, mode",
            where);
    }
    double weight = 1.0;
    json_t *jw = json_object_get(jf, "weight");
    if (jw) {
        if (!json_is_number(jw) || json_number_value(jw) <= 0 ||
            json_number_value(jw) > 1) {
            free(norm);
            return as_errorf(
                e, AS_EINVAL, "%s: 'weight' must be a number in (0, 1]", where);
        }
        weight = json_number_value(jw);
    }
    json_t *jl = json_object_get(jf, "lines");
    if (jl && !json_is_array(jl)) {
        free(norm);
        return as_errorf(e, AS_EINVAL,
            "%s: 'lines' must be an array of [start, end] pairs", where);
    }
    struct ws_file *f = agent_add_file(a, norm, st);
    free(norm);
    f->weight = weight;
    f->whole = !jl || ws_status_whole(st);
    size_t i;
    json_t *jr;
    json_array_foreach(jl, i, jr)
    {
        json_t *s = json_array_get(jr, 0), *t = json_array_get(jr, 1);
        if (!json_is_array(jr) || json_array_size(jr) != 2 ||
            !json_is_integer(s) || !json_is_integer(t) ||
            json_integer_value(s) < 1 || json_integer_value(t) < 1 ||
            json_integer_value(s) > UINT32_MAX ||
            json_integer_value(t) > UINT32_MAX)
            return as_errorf(e, AS_EINVAL,
                "%s: lines[%zu] must be [start, end] with 1 <= line <= %u",
                where, i, UINT32_MAX);
        range_set_add(&f->ranges, (uint32_t)json_integer_value(s),
            (uint32_t)json_integer_value(t));
    }
    if (jl && json_array_size(jl) == 0 && !ws_status_whole(st))
        f->whole = true;
    return 0;
}

static int
parse_agent(struct agent *a, json_t *ja, size_t idx, struct as_err *e)
{
    static const char *const keys[] = { "agentId", "kind", "label", "startedAt",
        "branch", "commitsAhead", "committedLines", "files", "intent", NULL };
    char where[160];
    snprintf(where, sizeof(where), "agent %zu", idx);
    if (!json_is_object(ja))
        return as_errorf(e, AS_EINVAL, "%s: must be an object", where);
    json_t *jid = json_object_get(ja, "agentId");
    if (!json_is_string(jid) || !*json_string_value(jid))
        return as_errorf(
            e, AS_EINVAL, "%s: 'agentId' must be a non-empty string", where);
    agent_init(a, json_string_value(jid));
    snprintf(where, sizeof(where), "agent %zu ('%.100s')", idx, a->id);
    int rc = check_keys(ja, keys, where, e);
    if (rc)
        return rc;
    json_t *jk = json_object_get(ja, "kind");
    if (jk) {
        const char *k = json_is_string(jk) ? json_string_value(jk) : "";
        if (!strcmp(k, "human"))
            a->kind = AGENT_HUMAN;
        else if (!strcmp(k, "agent"))
            a->kind = AGENT_AGENT;
        else
            return as_errorf(e, AS_EINVAL,
                "%s: 'kind' must be \"agent\" or \"human\"", where);
    }
    json_t *jlab = json_object_get(ja, "label");
    if (jlab) {
        if (!json_is_string(jlab))
            return as_errorf(
                e, AS_EINVAL, "%s: 'label' must be a string", where);
        a->label = xstrdup(json_string_value(jlab));
    }
    json_t *jb = json_object_get(ja, "branch");
    if (jb) {
        if (!json_is_string(jb))
            return as_errorf(
                e, AS_EINVAL, "%s: 'branch' must be a string", where);
        a->branch = xstrdup(json_string_value(jb));
    }
    json_t *jt = json_object_get(ja, "startedAt");
    if (jt) {
        if (json_is_integer(jt) && json_integer_value(jt) >= 0)
            a->started_at_ms = json_integer_value(jt);
        else if (!json_is_string(jt) ||
                 parse_iso8601_ms(json_string_value(jt), &a->started_at_ms) < 0)
            return as_errorf(e, AS_EINVAL,
                "%s: 'startedAt' must be milliseconds since the epoch or an "
                "ISO-8601 time such as \"2026-01-02T10:00:00Z\"",
                where);
    }
    if ((rc = get_count(json_object_get(ja, "commitsAhead"), where,
             "commitsAhead", &a->commits_ahead, e)) ||
        (rc = get_count(json_object_get(ja, "committedLines"), where,
             "committedLines", &a->committed_lines, e)))
        return rc;
    json_t *jfs = json_object_get(ja, "files");
    if (!json_is_array(jfs))
        return as_errorf(e, AS_EINVAL, "%s: 'files' must be an array", where);
    size_t i;
    json_t *jf;
    json_array_foreach(jfs, i, jf)
    {
        char fw[200];
        snprintf(fw, sizeof(fw), "%s: files[%zu]", where, i);
        if ((rc = parse_file(a, jf, fw, e)))
            return rc;
    }
    json_t *ji = json_object_get(ja, "intent");
    if (ji && !json_is_array(ji))
        return as_errorf(e, AS_EINVAL,
            "%s: 'intent' must be an array of paths or globs", where);
    json_array_foreach(ji, i, jf)
    {
        char *norm;
        if (!json_is_string(jf) || !*json_string_value(jf))
            return as_errorf(e, AS_EINVAL,
                "%s: intent[%zu] must be a non-empty string", where, i);
        if (json_string_value(jf)[0] == '/')
            return as_errorf(e, AS_EINVAL,
                "%s: intent[%zu] '%s' is absolute; paths are relative to "
                "the repository's top",
                where, i, json_string_value(jf));
        if (path_normalize(json_string_value(jf), NULL, &norm) < 0) {
            return as_errorf(e, AS_EINVAL,
                "%s: intent[%zu] '%s' escapes the repository", where, i,
                json_string_value(jf));
        }
        agent_add_intent(a, norm);
        free(norm);
    }
    agent_sort(a);
    return 0;
}

int
agents_json_parse(const char *text, size_t len, const char *name,
    struct agent **out, size_t *n, struct as_err *e)
{
    *out = NULL;
    *n = 0;
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return as_errorf(
            e, AS_EPARSE, "%s:%d:%d: %s", name, je.line, je.column, je.text);
    if (!json_is_array(root)) {
        json_decref(root);
        return as_errorf(
            e, AS_EINVAL, "%s: expected a JSON array of agents", name);
    }
    size_t count = json_array_size(root);
    struct agent *agents = xcalloc(count ? count : 1, sizeof(*agents));
    int rc = 0;
    size_t done = 0;
    struct as_err sub;
    for (; done < count; done++) {
        rc = parse_agent(&agents[done], json_array_get(root, done), done, &sub);
        if (rc) {
            done++;
            as_errorf(e, rc, "%s: %s", name, sub.msg);
            break;
        }
        for (size_t j = 0; j < done; j++)
            if (!strcmp(agents[j].id, agents[done].id)) {
                rc = as_errorf(e, AS_EINVAL,
                    "%s: agent %zu: duplicate agentId '%s'", name, done,
                    agents[done].id);
                break;
            }
        if (rc) {
            done++;
            break;
        }
    }
    json_decref(root);
    if (rc) {
        agents_free(agents, done);
        return rc;
    }
    *out = agents;
    *n = count;
    return 0;
}

int
agents_json_load(
    const char *path, struct agent **out, size_t *n, struct as_err *e)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f)
        return as_errorf(
            e, AS_ENOENT, "cannot open '%s': %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (len == cap) {
            if (cap >= AGENTS_JSON_MAX_BYTES) {
                if (f != stdin)
                    fclose(f);
                free(buf);
                return as_errorf(e, AS_ETOOBIG, "'%s' is larger than %u bytes",
                    path, AGENTS_JSON_MAX_BYTES);
            }
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int err = ferror(f);
    if (f != stdin)
        fclose(f);
    if (err) {
        free(buf);
        return as_errorf(e, AS_EIO, "cannot read '%s'", path);
    }
    int rc = agents_json_parse(buf, len, path, out, n, e);
    free(buf);
    return rc;
}

void
agents_free(struct agent *agents, size_t n)
{
    for (size_t i = 0; i < n; i++)
        agent_release(&agents[i]);
    free(agents);
}

/*
 * scan_print.c - the scan report as a human table or as the JSON document
 * of docs/cli.md. Evidence is computed on demand (--explain) from the
 * report's risk engine; nothing here changes the report's numbers except
 * that the merge channel, which the engine does not know, is copied in.
 */
#define _GNU_SOURCE /* fputs_unlocked: the document is written under one lock  \
                     */
#include "cli/scan_print.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "util/xalloc.h"
#include "util/banned.h"

/* ---- shared ---- */

static const char *
agent_name(const struct scan_report *r, size_t i)
{
    return r->agents[i].id;
}

/* Evidence for pair p, with the merge channel's value carried over. */
static void
pair_evidence(
    struct scan_report *r, const struct scan_pair *p, struct risk_evidence *ev)
{
    risk_engine_explain(r->engine, p->a, p->b, ev);
    ev->result = p->res;
}

static char *
pair_guidance(struct scan_report *r, const struct scan_pair *p,
    const struct risk_evidence *ev)
{
    return advisory_steer_text_lanes(&r->agents[p->steer], &r->agents[p->hold],
        p->res.risk, ev, NULL, 0, r->lanes ? &r->lanes[p->steer] : NULL,
        r->lanes ? &r->lanes[p->hold] : NULL);
}

/* ---- table ---- */

struct style {
    const char *bold, *dim, *red, *yellow, *green, *off;
};

static const struct style plain = { "", "", "", "", "", "" };
static const struct style ansi = { "\033[1m", "\033[2m", "\033[1;31m",
    "\033[33m", "\033[32m", "\033[0m" };

static const char *
level_color(const struct style *s, enum advisory_level l)
{
    switch (l) {
    case ADVISORY_RESOLUTION:
        return s->red;
    case ADVISORY_TRAFFIC:
        return s->yellow;
    default:
        return s->green;
    }
}

/* Advisories in capitals, so they stand out without colour too. */
static const char *
level_label(enum advisory_level l)
{
    switch (l) {
    case ADVISORY_RESOLUTION:
        return "RESOLUTION";
    case ADVISORY_TRAFFIC:
        return "TRAFFIC";
    default:
        return "clear";
    }
}

static void
print_ranges(const struct range_set *rs, FILE *out)
{
    for (size_t k = 0; k < rs->n; k++) {
        const struct range *g = &rs->v[k];
        if (g->start == g->end)
            fprintf(out, "%s%u", k ? "," : "", g->start);
        else
            fprintf(out, "%s%u-%u", k ? "," : "", g->start, g->end);
    }
}

/* The channels that add to R (a weight of 0 measures but does not count:
 * tree by default; --json has them all). */
static void
print_channels(
    const struct risk_config *cfg, const struct scan_pair *p, FILE *out)
{
    bool any = false;
    for (int c = 0; c < RISK_NCHANNELS; c++) {
        if (p->res.r[c] <= 0 || cfg->weight[c] <= 0)
            continue;
        fprintf(out, "%s%s %.2f", any ? ", " : "",
            risk_channel_name((enum risk_channel)c), p->res.r[c]);
        any = true;
    }
    if (!any)
        fputs("-", out);
}

static void
print_evidence_text(struct scan_report *r, const struct scan_pair *p,
    const struct style *s, FILE *out)
{
    struct risk_evidence ev;
    pair_evidence(r, p, &ev);
    fprintf(out, "    %schannels:%s", s->dim, s->off);
    for (int c = 0; c < RISK_NCHANNELS; c++)
        if (r->cfg.weight[c] > 0)
            fprintf(out, " %s %.2f×%.2f",
                risk_channel_name((enum risk_channel)c), p->res.r[c],
                r->cfg.weight[c]);
    fputc('\n', out);
    for (size_t i = 0; i < ev.ncontested; i++) {
        const struct risk_contested *c = &ev.contested[i];
        fprintf(out, "    contested %s ", c->path);
        if (c->whole)
            fputs("(whole file)", out);
        else {
            fputs("lines ", out);
            print_ranges(&c->ranges, out);
        }
        fprintf(out, "  oc %.2f\n", c->oc);
    }
    if (p->merge_clean)
        fprintf(out,
            "    merge clean: git merges the two, overlap at most %.2f "
            "(overlap.merged)\n",
            r->cfg.overlap_merged);
    if (p->nmerge_paths) {
        fputs("    merge conflicts in", out);
        for (size_t i = 0; i < p->nmerge_paths; i++)
            fprintf(out, "%s %s", i ? "," : "", p->merge_paths[i]);
        fputc('\n', out);
    }
    if (ev.dep.present) {
        fprintf(out,
            /* "depends on", not "imports": a hop of the chain may be a
             * header's link to the file implementing it, no import */
            "    dependency %s (%s) depends on %s (%s): ", ev.dep.downstream,
            agent_name(r, ev.dep.down_agent), ev.dep.upstream,
            agent_name(r, ev.dep.up_agent));
        for (size_t i = 0; i < ev.dep.nchain; i++)
            fprintf(out, "%s%s", i ? " -> " : "", ev.dep.chain[i]);
        fprintf(out, "  sigma %.2f", ev.dep.sigma);
        for (size_t i = 0; i < ev.dep.nsymbols; i++)
            fprintf(out, "%s%s", i ? ", " : "  symbols ", ev.dep.symbols[i]);
        fputc('\n', out);
    }
    for (size_t i = 0; i < ev.nsymbols; i++) {
        const struct risk_symbol_hit *h = &ev.symbols[i];
        fprintf(out, "    symbol %s defined in %s (%s), used at %s:%u (%s)%s\n",
            h->name, h->def_path, agent_name(r, h->def_agent), h->use_path,
            h->use_line, agent_name(r, h->use_agent),
            h->enclosing ? " inside a changed definition" : "");
    }
    for (size_t i = 0; i < ev.nintents; i++) {
        const struct risk_intent_hit *h = &ev.intents[i];
        fprintf(out, "    intent of %s '%s' matches %s%s\n",
            agent_name(r, h->agent), h->glob, h->path,
            h->path_is_intent ? " (declared)" : "");
    }
    if (ev.tree_a && ev.tree_b)
        fprintf(out, "    tree %s ~ %s  distance %.2f%s\n", ev.tree_a,
            ev.tree_b, ev.tree_distance,
            r->cfg.weight[RISK_TREE] > 0 ? "" : " (not weighted)");
    if (p->level == ADVISORY_RESOLUTION) {
        char *g = pair_guidance(r, p, &ev);
        fprintf(out, "    %sguidance to %s:%s\n", s->bold,
            agent_name(r, p->steer), s->off);
        for (char *line = g, *nl; line && *line; line = nl) {
            nl = strchr(line, '\n');
            if (nl)
                *nl++ = '\0';
            fprintf(out, "      %s\n", line);
        }
        free(g);
    }
    risk_evidence_release(&ev);
}

static int
name_width(const struct scan_report *r)
{
    size_t w = 4;
    for (size_t i = 0; i < r->nagents; i++) {
        size_t n = strlen(r->agents[i].id);
        if (n > w)
            w = n;
    }
    return (int)(w > 32 ? 32 : w);
}

/* The agents whose work conflicts with what the integration branch
 * changed after their base: they will have to settle it when they merge. */
static void
print_integration_conflicts(
    const struct scan_report *r, const struct style *s, FILE *out)
{
    const char *branch = r->integration ? r->integration
                                        : "the integration "
                                          "branch";
    bool first = true;
    for (size_t i = 0; i < r->nagents; i++) {
        const struct agent *a = &r->agents[i];
        if (!a->nonto_conflicts)
            continue;
        if (first)
            fputc('\n', out);
        first = false;
        fprintf(out,
            "%s%s%s conflicts with what %s changed since it began, "
            "in ",
            s->yellow, a->id, s->off, branch);
        for (size_t k = 0; k < a->nonto_conflicts; k++)
            fprintf(out, "%s%s", k ? ", " : "", a->onto_conflicts[k]);
        fprintf(out, ": merge or rebase onto %s to settle it\n", branch);
    }
}

void
scan_print_table(struct scan_report *r, bool explain, bool color, FILE *out)
{
    const struct style *s = color ? &ansi : &plain;
    int w = name_width(r);
    fprintf(out, "%sairspace%s", s->bold, s->off);
    if (r->repository)
        fprintf(out, " %s", r->repository);
    if (r->integration)
        fprintf(out, " (integration %s)", r->integration);
    fprintf(out,
        ": %zu agent%s, %zu pair%s, %s%zu resolution%s, %s%zu traffic%s",
        r->nagents, r->nagents == 1 ? "" : "s", r->npairs,
        r->npairs == 1 ? "" : "s", r->nresolution ? s->red : "", r->nresolution,
        r->nresolution ? s->off : "", r->ntraffic ? s->yellow : "", r->ntraffic,
        r->ntraffic ? s->off : "");
    if (r->have_graph)
        fprintf(out, "; graph %zu file%s, %zu edge%s (%zu parsed, %.0f ms)",
            r->gstats.files, r->gstats.files == 1 ? "" : "s", r->gstats.edges,
            r->gstats.edges == 1 ? "" : "s", r->gstats.parsed,
            r->gstats.build_ms);
    fputc('\n', out);
    for (size_t i = 0; i < r->nskipped; i++) {
        const struct scan_skipped *sk = &r->skipped[i];
        fprintf(out, "%sskipped%s %s '%s': %s\n", s->yellow, s->off,
            sk->worktree ? "worktree" : "branch",
            sk->worktree ? sk->worktree : sk->branch, sk->reason);
    }
    if (r->nagents) {
        fputc('\n', out);
        fprintf(out, "%s%-*s  %5s  %s%s\n", s->dim, w, "AGENT", "FILES", "WORK",
            s->off);
        for (size_t i = 0; i < r->nagents; i++) {
            const struct agent *a = &r->agents[i];
            fprintf(out, "%-*s  %5zu  ", w, a->id, a->nfiles);
            size_t shown = 0;
            for (size_t f = 0; f < a->nfiles && shown < 3; f++, shown++)
                fprintf(out, "%s%s", f ? ", " : "", a->files[f].path);
            if (a->nfiles > shown)
                fprintf(out, ", +%zu more", a->nfiles - shown);
            if (!a->nfiles)
                fputs("-", out);
            if (a->kind == AGENT_HUMAN)
                fputs("  (human)", out);
            fputc('\n', out);
        }
        print_integration_conflicts(r, s, out);
    }
    if (!r->npairs) {
        fputs("\nfewer than two agents: nothing to compare\n", out);
        return;
    }
    fputc('\n', out);
    fprintf(out, "%s%-10s  %4s  %-*s  %-*s  %-*s  %-*s  %s%s\n", s->dim,
        "LEVEL", "RISK", w, "A", w, "B", w, "HOLD", w, "STEER", "CHANNELS",
        s->off);
    for (size_t i = 0; i < r->npairs; i++) {
        struct scan_pair *p = &r->pairs[i];
        bool active = p->level != ADVISORY_CLEAR;
        fprintf(out, "%s%-10s%s  %4.2f  %-*s  %-*s  %-*s  %-*s  ",
            level_color(s, p->level), level_label(p->level), s->off,
            p->res.risk, w, agent_name(r, p->a), w, agent_name(r, p->b), w,
            active ? agent_name(r, p->hold) : "-", w,
            active ? agent_name(r, p->steer) : "-");
        print_channels(&r->cfg, p, out);
        fputc('\n', out);
        if (explain && p->res.risk > 0)
            print_evidence_text(r, p, s, out);
    }
}

/* ---- JSON ---- */

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if none:
 * no overlong forms, surrogates or code points past U+10FFFF. */
static size_t
utf8_seq(const unsigned char *p, size_t n)
{
    size_t len;
    uint32_t cp;
    if (p[0] < 0x80)
        return 1;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        len = 2, cp = p[0] & 0x1f;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        len = 3, cp = p[0] & 0x0f;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        len = 4, cp = p[0] & 0x07;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return 0;
    return len;
}

/* s as a JSON string (NULL for NULL, as json_string() gives): a byte that is
 * not part of valid UTF-8 (a path git stores as raw bytes) becomes U+FFFD, one
 * per byte (docs/cli.md), where json_string() would fail and the key be lost.
 */
static json_t *
jstr(const char *s)
{
    if (!s)
        return NULL;
    json_t *j = json_string(s);
    if (j)
        return j;
    size_t n = strlen(s), o = 0;
    char *buf = xmalloc(n * 3 + 1);
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq((const unsigned char *)s + i, n - i);
        if (k) {
            memcpy(buf + o, s + i, k);
            o += k;
            i += k;
        } else {
            memcpy(buf + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    buf[o] = '\0';
    j = json_string(buf);
    free(buf);
    return j ? j : json_string("");
}

static json_t *
ranges_json(const struct range_set *rs)
{
    json_t *a = json_array();
    for (size_t k = 0; k < rs->n; k++)
        json_array_append_new(a, json_pack("[I,I]", (json_int_t)rs->v[k].start,
                                     (json_int_t)rs->v[k].end));
    return a;
}

static json_t *
string_array(const char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, jstr(v[i]));
    return a;
}

static json_t *
agent_json(const struct agent *a)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", jstr(a->id));
    json_object_set_new(
        o, "kind", jstr(a->kind == AGENT_HUMAN ? "human" : "agent"));
    if (a->label)
        json_object_set_new(o, "label", jstr(a->label));
    if (a->branch)
        json_object_set_new(o, "branch", jstr(a->branch));
    if (a->worktree)
        json_object_set_new(o, "worktree", jstr(a->worktree));
    if (a->base_oid)
        json_object_set_new(o, "base", jstr(a->base_oid));
    if (a->started_at_ms)
        json_object_set_new(
            o, "startedAt", json_integer((json_int_t)a->started_at_ms));
    json_object_set_new(
        o, "commitsAhead", json_integer((json_int_t)a->commits_ahead));
    json_object_set_new(
        o, "committedLines", json_integer((json_int_t)a->committed_lines));
    json_object_set_new(o, "integrationConflicts",
        string_array(
            (const char *const *)a->onto_conflicts, a->nonto_conflicts));
    json_t *files = json_array();
    for (size_t i = 0; i < a->nfiles; i++) {
        const struct ws_file *f = &a->files[i];
        json_t *jf = json_object();
        json_object_set_new(jf, "path", jstr(f->path));
        json_object_set_new(jf, "status", jstr(ws_status_name(f->status)));
        if (f->new_path)
            json_object_set_new(jf, "newPath", jstr(f->new_path));
        if (f->whole)
            json_object_set_new(jf, "whole", json_true());
        else
            json_object_set_new(jf, "lines", ranges_json(&f->ranges));
        json_object_set_new(jf, "weight", json_real(f->weight));
        if (f->changed_at_ms)
            json_object_set_new(
                jf, "changedAt", json_integer((json_int_t)f->changed_at_ms));
        json_array_append_new(files, jf);
    }
    json_object_set_new(o, "files", files);
    if (a->nintent) {
        json_t *in = json_array();
        for (size_t i = 0; i < a->nintent; i++)
            json_array_append_new(in, jstr(a->intent[i]));
        json_object_set_new(o, "intent", in);
    }
    return o;
}

static json_t *
evidence_json(struct scan_report *r, const struct scan_pair *p)
{
    struct risk_evidence ev;
    pair_evidence(r, p, &ev);
    json_t *o = json_object();
    json_t *contested = json_array();
    for (size_t i = 0; i < ev.ncontested; i++) {
        const struct risk_contested *c = &ev.contested[i];
        json_t *jc = json_object();
        json_object_set_new(jc, "path", jstr(c->path));
        json_object_set_new(jc, "whole", json_boolean(c->whole));
        json_object_set_new(jc, "ranges", ranges_json(&c->ranges));
        json_object_set_new(jc, "oc", json_real(c->oc));
        json_object_set_new(jc, "value", json_real(c->value));
        json_array_append_new(contested, jc);
    }
    json_object_set_new(o, "contested", contested);
    if (p->merge_checked) {
        json_t *m = json_object();
        json_object_set_new(m, "paths",
            string_array((const char *const *)p->merge_paths, p->nmerge_paths));
        json_object_set_new(m, "clean", json_boolean(p->merge_clean));
        json_object_set_new(o, "merge", m);
    }
    if (ev.dep.present) {
        json_t *d = json_object();
        json_object_set_new(d, "downstream", jstr(ev.dep.downstream));
        json_object_set_new(
            d, "downstreamAgent", jstr(agent_name(r, ev.dep.down_agent)));
        json_object_set_new(d, "upstream", jstr(ev.dep.upstream));
        json_object_set_new(
            d, "upstreamAgent", jstr(agent_name(r, ev.dep.up_agent)));
        json_object_set_new(
            d, "chain", string_array(ev.dep.chain, ev.dep.nchain));
        json_object_set_new(d, "sigma", json_real(ev.dep.sigma));
        json_object_set_new(d, "value", json_real(ev.dep.value));
        json_object_set_new(
            d, "symbols", string_array(ev.dep.symbols, ev.dep.nsymbols));
        json_object_set_new(o, "dependency", d);
    }
    json_t *sym = json_array();
    for (size_t i = 0; i < ev.nsymbols; i++) {
        const struct risk_symbol_hit *h = &ev.symbols[i];
        json_array_append_new(sym,
            json_pack("{s:o, s:o, s:o, s:o, s:o, s:I, s:b, s:f}", "name",
                jstr(h->name), "definedIn", jstr(h->def_path), "definedBy",
                jstr(agent_name(r, h->def_agent)), "usedIn", jstr(h->use_path),
                "usedBy", jstr(agent_name(r, h->use_agent)), "line",
                (json_int_t)h->use_line, "enclosing", h->enclosing, "value",
                h->value));
    }
    json_object_set_new(o, "symbol", sym);
    json_t *in = json_array();
    for (size_t i = 0; i < ev.nintents; i++) {
        const struct risk_intent_hit *h = &ev.intents[i];
        json_array_append_new(
            in, json_pack("{s:o, s:o, s:o, s:b}", "agent",
                    jstr(agent_name(r, h->agent)), "glob", jstr(h->glob),
                    "path", jstr(h->path), "declared", h->path_is_intent));
    }
    json_object_set_new(o, "intent", in);
    if (ev.tree_a && ev.tree_b)
        json_object_set_new(o, "tree",
            json_pack("{s:o, s:o, s:f}", "a", jstr(ev.tree_a), "b",
                jstr(ev.tree_b), "distance", ev.tree_distance));
    if (p->level == ADVISORY_RESOLUTION) {
        char *g = pair_guidance(r, p, &ev);
        json_object_set_new(o, "guidance", jstr(g));
        free(g);
    }
    risk_evidence_release(&ev);
    return o;
}

/* ---- the JSON document, written as it goes ----
 *
 * Byte for byte what json_dumpf(doc, JSON_INDENT(2) |
 * JSON_REAL_PRECISION(12)) printed of the whole document, without holding
 * it: each value below the top level is dumped on its own and indented to
 * its depth, and a pair's fixed fields are written directly (a 256-agent
 * scan has 32 640 pairs; building and freeing them all as one tree took a
 * third of its time). */

#define SCAN_NLEVELS (ADVISORY_RESOLUTION + 1)
#define JSON_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(12) | JSON_ENCODE_ANY)

/* Write v (taken) as dumped, every line after the first indented by
 * indent more spaces (a dumped string holds no raw newline). */
static void
put_json(FILE *out, json_t *v, int indent)
{
    char *s = json_dumps(v, JSON_FLAGS);
    json_decref(v);
    if (!s) {
        fputs_unlocked("null", out);
        return;
    }
    for (const char *p = s, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl) {
            fputs_unlocked(p, out);
            break;
        }
        fwrite_unlocked(p, 1, (size_t)(nl - p) + 1, out);
        for (int k = 0; k < indent; k++)
            fputc_unlocked(' ', out);
    }
    free(s);
}

/* A real as jansson writes it with precision 12: "%.12g", ".0" when that
 * looks like an integer, and an exponent without '+' or leading zeros. */
static void
put_real(FILE *out, double v)
{
    if (v == 0.0 && !signbit(v)) {
        fputs_unlocked("0.0", out);
        return;
    }
    char buf[64];
    int n = snprintf(buf, sizeof(buf) - 3, "%.12g", v);
    if (n < 0 || n >= (int)sizeof(buf) - 3) {
        fputs_unlocked("null", out);
        return;
    }
    if (!strchr(buf, '.') && !strchr(buf, 'e')) {
        memcpy(buf + n, ".0", 3);
        n += 2;
    }
    char *start = strchr(buf, 'e');
    if (start) {
        start++;
        char *end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start)
            memmove(start, end, (size_t)(buf + n - end) + 1);
    }
    fputs_unlocked(buf, out);
}

/* The top level's "key": value lines, the first without a comma. */
struct jdoc {
    FILE *out;
    bool first;
};

static void
doc_key(struct jdoc *d, const char *key)
{
    fputs_unlocked(d->first ? "\n  \"" : ",\n  \"", d->out);
    fputs_unlocked(key, d->out);
    fputs_unlocked("\": ", d->out);
    d->first = false;
}

static void
doc_value(struct jdoc *d, const char *key, json_t *v)
{
    if (!v)
        return; /* as json_object_set_new() leaves such a key out */
    doc_key(d, key);
    put_json(d->out, v, 2);
}

/* A pair's member: ",\n" and six spaces before all but the first. */
static void
pair_key(FILE *out, bool *first, const char *key)
{
    fputs_unlocked(*first ? "\n      \"" : ",\n      \"", out);
    fputs_unlocked(key, out);
    fputs_unlocked("\": ", out);
    *first = false;
}

/* A string dumped once (names recur in every pair), NULL when jansson
 * would leave its key out. */
static char *
dumped_string(const char *s)
{
    json_t *j = jstr(s);
    if (!j)
        return NULL;
    char *d = json_dumps(j, JSON_FLAGS);
    json_decref(j);
    return d;
}

static void
put_pair(FILE *out, struct scan_report *r, const struct scan_pair *p,
    char *const *names, char *const *levels, bool explain)
{
    bool first = true;
    const struct {
        const char *key, *val;
    } strs[] = {
        { "a", names[p->a] },
        { "b", names[p->b] },
        { "level", levels[p->level] },
    };
    fputs_unlocked("    {", out);
    for (size_t i = 0; i < 3; i++)
        if (strs[i].val) {
            pair_key(out, &first, strs[i].key);
            fputs_unlocked(strs[i].val, out);
        }
    if (isfinite(p->res.risk)) {
        pair_key(out, &first, "risk");
        put_real(out, p->res.risk);
    }
    if (names[p->hold]) {
        pair_key(out, &first, "hold");
        fputs_unlocked(names[p->hold], out);
    }
    if (names[p->steer]) {
        pair_key(out, &first, "steer");
        fputs_unlocked(names[p->steer], out);
    }
    pair_key(out, &first, "channels");
    bool cfirst = true;
    for (int c = 0; c < RISK_NCHANNELS; c++) {
        if (!isfinite(p->res.r[c]))
            continue;
        fputs_unlocked(cfirst ? "{\n        \"" : ",\n        \"", out);
        fputs_unlocked(risk_channel_name((enum risk_channel)c), out);
        fputs_unlocked("\": ", out);
        cfirst = false;
        put_real(out, p->res.r[c]);
    }
    fputs_unlocked(cfirst ? "{}" : "\n      }", out);
    pair_key(out, &first, "mergeChecked");
    fputs_unlocked(p->merge_checked ? "true" : "false", out);
    if (explain && p->res.risk > 0) {
        pair_key(out, &first, "evidence");
        put_json(out, evidence_json(r, p), 6);
    }
    fputs_unlocked("\n    }", out);
}

void
scan_print_json(struct scan_report *r, bool explain, FILE *out)
{
    struct jdoc d = { out, true };
    flockfile(out);
    fputc_unlocked('{', out);
    doc_value(&d, "version", json_integer(SCAN_JSON_VERSION));
    doc_value(&d, "now", json_integer((json_int_t)r->now_ms));
    doc_value(
        &d, "repository", r->repository ? jstr(r->repository) : json_null());
    doc_value(
        &d, "integration", r->integration ? jstr(r->integration) : json_null());
    doc_value(&d, "model",
        json_pack("{s:I, s:f, s:f}", "margin", (json_int_t)r->cfg.margin,
            "tauTraffic", r->cfg.tau_ta, "tauResolution", r->cfg.tau_ra));
    if (r->have_graph)
        doc_value(&d, "graph",
            json_pack("{s:I, s:I, s:I, s:I, s:I, s:f}", "files",
                (json_int_t)r->gstats.files, "sourceFiles",
                (json_int_t)r->gstats.source_files, "parsed",
                (json_int_t)r->gstats.parsed, "cached",
                (json_int_t)r->gstats.cached, "edges",
                (json_int_t)r->gstats.edges, "buildMs", r->gstats.build_ms));
    else
        doc_value(&d, "graph", json_null());
    doc_key(&d, "agents");
    for (size_t i = 0; i < r->nagents; i++) {
        fputs_unlocked(i ? ",\n    " : "[\n    ", out);
        put_json(out, agent_json(&r->agents[i]), 4);
    }
    fputs_unlocked(r->nagents ? "\n  ]" : "[]", out);
    json_t *skipped = json_array();
    for (size_t i = 0; i < r->nskipped; i++) {
        const struct scan_skipped *sk = &r->skipped[i];
        json_t *js = json_object();
        if (sk->worktree)
            json_object_set_new(js, "worktree", jstr(sk->worktree));
        if (sk->branch)
            json_object_set_new(js, "branch", jstr(sk->branch));
        json_object_set_new(js, "reason", jstr(sk->reason));
        json_array_append_new(skipped, js);
    }
    doc_value(&d, "skipped", skipped);
    doc_value(&d, "summary",
        json_pack("{s:I, s:I, s:I, s:I}", "agents", (json_int_t)r->nagents,
            "pairs", (json_int_t)r->npairs, "traffic", (json_int_t)r->ntraffic,
            "resolution", (json_int_t)r->nresolution));
    char **names = xcalloc(r->nagents + 1, sizeof(*names));
    for (size_t i = 0; i < r->nagents; i++)
        names[i] = dumped_string(agent_name(r, i));
    char *levels[SCAN_NLEVELS];
    for (int l = 0; l < SCAN_NLEVELS; l++)
        levels[l] = dumped_string(advisory_level_name((enum advisory_level)l));
    doc_key(&d, "pairs");
    for (size_t i = 0; i < r->npairs; i++) {
        fputs_unlocked(i ? ",\n" : "[\n", out);
        put_pair(out, r, &r->pairs[i], names, levels, explain);
    }
    fputs_unlocked(r->npairs ? "\n  ]" : "[]", out);
    fputs_unlocked("\n}\n", out);
    funlockfile(out);
    for (size_t i = 0; i < r->nagents; i++)
        free(names[i]);
    free(names);
    for (int l = 0; l < SCAN_NLEVELS; l++)
        free(levels[l]);
}

/*
 * event_text.c - the readable line of an event.
 */
#include "cli/event_text.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/xalloc.h"

#include "util/banned.h"

static const char *
str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* The length of the UTF-8 character at s (1 to 4) and its code point in
 * *cp; 0 when the bytes there are not one (a stray or overlong byte). */
static size_t
utf8_char(const unsigned char *s, unsigned *cp)
{
    size_t n = s[0] < 0x80                    ? 1
               : s[0] >= 0xc2 && s[0] <= 0xdf ? 2
               : s[0] >= 0xe0 && s[0] <= 0xef ? 3
               : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
                                              : 0;
    if (!n)
        return 0;
    unsigned c = n == 1 ? s[0] : s[0] & (0xff >> (n + 1));
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3f);
    }
    if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
        (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return n;
}

/* Characters a terminal acts on or draws out of order, shown escaped:
 * C0, DEL and C1 controls, and the line separators and bidirectional
 * marks that can make text read as something else. */
static bool
unsafe(unsigned c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
           c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
           (c >= 0x2066 && c <= 0x2069);
}

void
event_text_add(
    struct strbuf *sb, const char *text, size_t max, const char *indent)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text), keep = n;
    if (max && n > max) {
        keep = max;
        while (keep && (s[keep] & 0xc0) == 0x80)
            keep--;
    }
    for (size_t i = 0; i < keep;) {
        unsigned c = s[i];
        size_t len = utf8_char(s + i, &c);
        if (len && i + len > keep)
            len = 0;
        if (indent && (c == '\n' || (c == '\r' && s[i + 1] == '\n'))) {
            /* a line of its own would pass for one airspace printed */
            strbuf_addf(sb, "\n%s", indent);
            i += c == '\r' ? 2 : 1;
        } else if (!len) {
            strbuf_addf(sb, "\\x%02x", (unsigned)s[i++]);
        } else if (unsafe(c)) {
            if (c == '\n' || c == '\r' || c == '\t')
                strbuf_addf(sb, "\\%c",
                    c == '\n'   ? 'n'
                    : c == '\r' ? 'r'
                                : 't');
            else if (c < 0x80)
                strbuf_addf(sb, "\\x%02x", c);
            else
                strbuf_addf(sb, "\\u%04x", c);
            i += len;
        } else {
            strbuf_addf(sb, "%.*s", (int)len, (const char *)s + i);
            i += len;
        }
    }
    if (keep < n)
        strbuf_addf(sb, "...");
}

const char *
event_text_show(struct event_texts *p, const char *text, const char *indent)
{
    struct strbuf sb = STRBUF_INIT;
    event_text_add(&sb, text ? text : "-", 0, indent);
    if (!sb.s)
        sb.s = xstrdup("");
    ALLOC_GROW(p->v, p->n + 1, p->alloc);
    p->v[p->n++] = sb.s;
    return sb.s;
}

void
event_texts_release(struct event_texts *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i]);
    free(p->v);
    p->v = NULL;
    p->n = p->alloc = 0;
}

/* Free text on an event's line: escaped, on the line, cut. */
static void
add_text(struct strbuf *sb, const char *s)
{
    event_text_add(sb, s, EVENT_TEXT_FIELD_MAX, NULL);
}

/* Up to six items of an array of strings (or of objects with a path). */
static void
add_list(struct strbuf *sb, json_t *list)
{
    size_t i;
    json_t *x;
    json_array_foreach(list, i, x)
    {
        if (i == 6) {
            strbuf_addf(sb, ", ... (%zu in all)", json_array_size(list));
            break;
        }
        const char *s =
            json_is_string(x) ? json_string_value(x) : str(x, "path");
        strbuf_addf(sb, "%s", i ? ", " : "");
        add_text(sb, s ? s : "?");
    }
}

static void
lock_line(struct strbuf *sb, json_t *d, const char *type)
{
    const char *actor = str(d, "actor"), *holder = str(d, "holder"),
               *by = str(d, "contestedBy"), *reason = str(d, "reason");
    add_text(sb, str(d, "pattern") ? str(d, "pattern") : "?");
    strbuf_addf(sb, " (%s %s, token %lld)",
        str(d, "mode") ? str(d, "mode") : "?",
        str(d, "kind") ? str(d, "kind") : "?",
        (long long)json_integer_value(json_object_get(d, "token")));
    if (!strcmp(type, "lock.reassigned") || !strcmp(type, "claim.reassigned"))
        strbuf_addf(sb, " now held by %s", holder ? holder : "?");
    if (actor && (!holder || strcmp(actor, holder)))
        strbuf_addf(sb, " by %s", actor);
    if (by)
        strbuf_addf(sb, ", contested by %s", by);
    if (reason) {
        strbuf_addf(sb, ": ");
        add_text(sb, reason);
    }
}

static void
advisory_line(struct strbuf *sb, json_t *d)
{
    strbuf_addf(sb, "%s ~ %s: %s -> %s (risk %.2f)",
        str(d, "a") ? str(d, "a") : "?", str(d, "b") ? str(d, "b") : "?",
        str(d, "from") ? str(d, "from") : "?",
        str(d, "level") ? str(d, "level") : "?",
        json_number_value(json_object_get(d, "risk")));
    if (str(d, "parked"))
        strbuf_addf(sb, ", %s parked", str(d, "parked"));
    else if (str(d, "hold") && str(d, "steer"))
        strbuf_addf(
            sb, ", %s holds, %s steers", str(d, "hold"), str(d, "steer"));
    if (json_array_size(json_object_get(d, "contested"))) {
        strbuf_addf(sb, "; contested: ");
        add_list(sb, json_object_get(d, "contested"));
    }
}

static void
agent_line(struct strbuf *sb, json_t *d)
{
    static const char *const keys[] = { "client", "branch", "worktree",
        "renamedFrom" };
    static const char *const names[] = { "client", "branch", "worktree",
        "renamed from" };
    const char *sep = "";
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
        if (str(d, keys[k])) {
            strbuf_addf(sb, "%s%s ", sep, names[k]);
            add_text(sb, str(d, keys[k]));
            sep = ", ";
        }
    if (str(d, "reason")) {
        strbuf_addf(sb, "%sreason: ", sep);
        add_text(sb, str(d, "reason"));
    }
}

static void
commit_line(struct strbuf *sb, json_t *d)
{
    const char *commit = str(d, "commit"), *branch = str(d, "branch");
    size_t n = json_array_size(json_object_get(d, "files"));
    strbuf_addf(sb, "%.7s on %s", commit ? commit : "?",
        branch ? branch : "a detached HEAD");
    if (str(d, "subject")) {
        strbuf_addf(sb, ": ");
        add_text(sb, str(d, "subject"));
    }
    strbuf_addf(sb, " (%zu file%s: ", n, n == 1 ? "" : "s");
    add_list(sb, json_object_get(d, "files"));
    strbuf_addf(sb, ")");
}

/* Any other event: its data's members, key=value. */
static void
generic_line(struct strbuf *sb, json_t *d)
{
    const char *k;
    json_t *v;
    const char *sep = "";
    json_object_foreach(d, k, v)
    {
        if (json_is_object(v) || json_is_null(v))
            continue;
        strbuf_addf(sb, "%s%s=", sep, k);
        sep = " ";
        if (json_is_string(v))
            add_text(sb, json_string_value(v));
        else if (json_is_array(v))
            add_list(sb, v);
        else if (json_is_integer(v))
            strbuf_addf(sb, "%lld", (long long)json_integer_value(v));
        else if (json_is_real(v))
            strbuf_addf(sb, "%.2f", json_real_value(v));
        else
            strbuf_addf(sb, "%s", json_is_true(v) ? "true" : "false");
    }
}

static bool
prefix(const char *s, const char *p)
{
    return !strncmp(s, p, strlen(p));
}

static void
details(struct strbuf *sb, const char *type, json_t *d)
{
    if (prefix(type, "lock.") || prefix(type, "claim.")) {
        lock_line(sb, d, type);
    } else if (!strcmp(type, "advisory")) {
        advisory_line(sb, d);
    } else if (prefix(type, "agent.")) {
        agent_line(sb, d);
    } else if (!strcmp(type, "git.commit")) {
        commit_line(sb, d);
    } else if (prefix(type, "intent.")) {
        add_list(sb, json_object_get(d, "files"));
        if (str(d, "summary")) {
            strbuf_addf(sb, ": ");
            add_text(sb, str(d, "summary"));
        }
    } else if (!strcmp(type, "message")) {
        strbuf_addf(sb,
            "%s -> %s [%s]: ", str(d, "from") ? str(d, "from") : "?",
            str(d, "to") ? str(d, "to") : "?",
            str(d, "type") ? str(d, "type") : "?");
        add_text(sb, str(d, "body") ? str(d, "body") : "");
    } else if (!strcmp(type, "workset.edit")) {
        add_text(sb, str(d, "path") ? str(d, "path") : "?");
    } else if (!strcmp(type, "workset.changed") &&
               json_is_integer(json_object_get(d, "files"))) {
        json_int_t n = json_integer_value(json_object_get(d, "files"));
        strbuf_addf(sb, "%lld changed file%s", (long long)n, n == 1 ? "" : "s");
    } else if (prefix(type, "alert.")) {
        strbuf_addf(sb, "%s: ", str(d, "kind") ? str(d, "kind") : "?");
        add_text(sb, str(d, "text") ? str(d, "text") : "");
    } else if (prefix(type, "fleet.")) {
        json_int_t n = json_integer_value(json_object_get(d, "restarts"));
        strbuf_addf(sb, "%s, %lld restart%s",
            str(d, "state") ? str(d, "state") : "given-up", (long long)n,
            n == 1 ? "" : "s");
        if (str(d, "why")) {
            strbuf_addf(sb, ": ");
            add_text(sb, str(d, "why"));
        }
    } else if (prefix(type, "conflict")) {
        strbuf_addf(sb, "%s %s ~ %s", str(d, "shape") ? str(d, "shape") : "?",
            str(d, "a") ? str(d, "a") : "?", str(d, "b") ? str(d, "b") : "?");
        if (str(d, "file") && *str(d, "file"))
            strbuf_addf(sb, " on %s", str(d, "file"));
        strbuf_addf(sb, ", to %s: ", str(d, "to") ? str(d, "to") : "?");
        add_text(sb, str(d, "text") ? str(d, "text") : "");
    } else {
        generic_line(sb, d);
    }
}

void
event_text_line(struct strbuf *sb, json_t *ev, bool with_date)
{
    json_int_t ts = json_integer_value(json_object_get(ev, "ts"));
    time_t t = (time_t)(ts / 1000);
    struct tm tm;
    char when[32] = "?";
    if (localtime_r(&t, &tm))
        strftime(when, sizeof(when),
            with_date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm);
    const char *type = str(ev, "type") ? str(ev, "type") : "?";
    strbuf_addf(sb, "%6lld %s %-18s %-14s ",
        (long long)json_integer_value(json_object_get(ev, "id")), when, type,
        str(ev, "agent") ? str(ev, "agent") : "-");
    json_t *d = json_object_get(ev, "data");
    if (json_is_object(d))
        details(sb, type, d);
    while (sb->len && sb->s[sb->len - 1] == ' ')
        sb->s[--sb->len] = '\0';
}

/*
 * event_text.h - one readable line per daemon event (docs/protocol.md,
 * "Events"), for `airspace watch` and `airspace log`: its id, time, type,
 * agent, and what happened, from the event's data (the lock and who caused
 * it, the pair and its levels, the message, the commit, the reason ...).
 *
 * No I/O. Free text from the event (messages, reasons, summaries) is put
 * on the line as event_text_add() shows it, so that an event can neither
 * break the line nor send escapes to a terminal, and cut at
 * EVENT_TEXT_FIELD_MAX bytes.
 *
 * event_text_add() is also how every other command shows text that comes
 * from agents (message bodies, lock reasons, intent summaries, alerts).
 */
#ifndef AIRSPACE_CLI_EVENT_TEXT_H
#define AIRSPACE_CLI_EVENT_TEXT_H

#include <stdbool.h>

#include <jansson.h>

#include "util/strbuf.h"

/* The longest piece of free text put on a line, in bytes. */
#define EVENT_TEXT_FIELD_MAX 200

/*
 * Append the line for event ev ({id, type, ts, agent?, data}, borrowed) to
 * sb, without a newline. The time is local: HH:MM:SS, preceded by the date
 * (YYYY-MM-DD) with with_date.
 */
void event_text_line(struct strbuf *sb, json_t *ev, bool with_date);

/*
 * Append text, written by an agent (or holding what one wrote), to sb so
 * that a terminal shows it as it is and does nothing else: control
 * characters (C0, DEL, C1, a CR) and the Unicode line separators and
 * bidirectional marks are shown escaped ("\n", "\r", "\t", "\x1b",
 * "\u009b", "\u202e"), and so is each byte that is not UTF-8 ("\xff").
 * With indent NULL the text stays on one line (a line break is "\n");
 * otherwise each line break (LF or CRLF) starts a new line with indent, so
 * that the rest stays under the line it belongs to and cannot pass for one
 * of its own. max > 0 cuts the text after max bytes, at a character
 * boundary, with "..."; 0 keeps it whole.
 */
void event_text_add(
    struct strbuf *sb, const char *text, size_t max, const char *indent);

/* Shown texts kept until the line (or the screen) they are on is printed,
 * so several can go into one printf. Zero-initialise. */
struct event_texts {
    char **v;
    size_t n, alloc;
};

/* text as event_text_add() shows it, whole, as a string kept in p (valid
 * until event_texts_release(p)); NULL text shows as "-". */
const char *event_text_show(
    struct event_texts *p, const char *text, const char *indent);
/* Free every string p keeps, and p's array. */
void event_texts_release(struct event_texts *p);

#endif

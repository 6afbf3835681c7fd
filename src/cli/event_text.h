/*
 * event_text.h - one readable line per daemon event (docs/protocol.md,
 * "Events"), for `airspace watch` and `airspace log`: its id, time, type,
 * agent, and what happened, from the event's data (the lock and who caused
 * it, the pair and its levels, the message, the commit, the reason ...).
 *
 * No I/O. Free text from the event (messages, reasons, summaries) is put
 * on the line with control characters turned into spaces, so that an
 * event can neither break the line nor send escapes to a terminal, and
 * cut at EVENT_TEXT_FIELD_MAX bytes.
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

#endif

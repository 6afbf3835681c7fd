/*
 * redact.h - remove secrets from text before it is stored in the ledger.
 *
 * Pure string work, no I/O. One left-to-right scan with hand-written
 * matchers (no regular expressions): time is linear in the input whatever
 * it holds. Each secret found is replaced by REDACT_MARK:
 *
 *   - GitHub tokens: ghp_, gho_, ghu_, ghs_, ghr_ + 20 or more letters and
 *     digits; github_pat_ + 20 or more letters, digits or '_';
 *   - AWS access key ids: AKIA or ASIA + exactly 16 capitals or digits;
 *   - Slack tokens: xoxa-, xoxb-, xoxp-, xoxo-, xoxr-, xoxs- + 10 or more
 *     letters, digits or '-';
 *   - OpenAI / Anthropic style keys: sk- + 20 or more letters, digits, '_'
 *     or '-' (sk-proj-..., sk-ant-...);
 *   - JWTs: eyJ... '.' ... '.' ... (three base64url segments, the first
 *     two at least 8 and 4 characters);
 *   - "Bearer <token>" (any case): the token, 8 characters or more;
 *   - PEM private key blocks, "-----BEGIN ... PRIVATE KEY-----" through the
 *     matching END line (to the end of the text when it is missing);
 *   - assignments to a name ending in password, passwd, secret, token,
 *     api_key, apikey, api-key, access_key, secret_key, private_key or
 *     credentials (any case; "DB_PASSWORD", "client_secret", "x-api-key"):
 *     name=value, name: value at the start of a line (YAML, headers),
 *     "name": "value" (JSON), name := value; the value only is replaced,
 *     quotes kept. A quoted value runs to its closing quote (or the end of
 *     the line), a bare one to whitespace or one of , ; & ) } ] < > " '.
 *
 * Secrets start at a word boundary (not after a letter, digit, '_' or '-').
 * Left alone: prose ("reset your password"), short hex ids, git SHAs, UUIDs,
 * ordinary words such as "sk-learn" or "max_tokens=4096".
 */
#ifndef AIRSPACE_UTIL_REDACT_H
#define AIRSPACE_UTIL_REDACT_H

#include <stddef.h>

#define REDACT_MARK "[redacted]"

/*
 * Return a new NUL-terminated copy of text (len bytes; it may hold NULs)
 * with every secret replaced; free with free(). *count (if not NULL) gets
 * the number of replacements.
 */
char *redact_text(const char *text, size_t len, size_t *count);

/* redact_text of a NUL-terminated string. */
char *redact_string(const char *s, size_t *count);

#endif

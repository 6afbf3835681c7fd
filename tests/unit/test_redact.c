/* test_redact.c - secrets replaced, everything else left alone. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util/redact.h"

struct redact_case {
    const char *name, *in, *want;
    size_t count;
};

static const struct redact_case cases[] = {
    { "github classic token",
        "push with ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 now",
        "push with [redacted] now", 1 },
    { "github oauth token", "gho_16C7e42F292c6912E7710c838347Ae178B4a",
        "[redacted]", 1 },
    { "github fine-grained token",
        "GH=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        "GH=[redacted]", 1 },
    { "aws access key id", "key AKIAIOSFODNN7EXAMPLE in config",
        "key [redacted] in config", 1 },
    { "aws temporary key id", "(ASIAY34FZKBOKMUTVV7A)", "([redacted])", 1 },
    { "slack bot token", "xoxb-123456789012-1234567890123-AbCdEfGhIjKl",
        "[redacted]", 1 },
    { "openai key", "OPENAI sk-proj-abcdefghijklmnopqrstuvwxyz012345",
        "OPENAI [redacted]", 1 },
    { "anthropic key", "use sk-ant-api03-AbCdEf_GhIjKlMnOpQrStUvWx-yz0 ok",
        "use [redacted] ok", 1 },
    { "jwt",
        "cookie eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U;",
        "cookie [redacted];", 1 },
    { "bearer header", "Authorization: Bearer abc.DEF-123_xyz~+/=",
        "Authorization: Bearer [redacted]", 1 },
    { "bearer lowercase", "curl -H 'authorization: bearer 0123456789abcdef'",
        "curl -H 'authorization: bearer [redacted]'", 1 },
    { "pem private key",
        "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc=\n"
        "-----END RSA PRIVATE KEY-----\nafter",
        "before\n[redacted]\nafter", 1 },
    { "pem without end",
        "x -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA",
        "x [redacted]", 1 },
    { "env assignment", "DB_PASSWORD=hunter2 ./run",
        "DB_PASSWORD=[redacted] ./run", 1 },
    { "json assignment", "{\"user\": \"bob\", \"password\": \"p@ss w0rd\"}",
        "{\"user\": \"bob\", \"password\": \"[redacted]\"}", 1 },
    { "yaml assignment", "db:\n  password: s3cret\n  host: x",
        "db:\n  password: [redacted]\n  host: x", 1 },
    { "yaml list item", "- api_key: abc123", "- api_key: [redacted]", 1 },
    { "query string", "GET /x?token=abc123&page=2",
        "GET /x?token=[redacted]&page=2", 1 },
    { "client secret with spaces", "client_secret = 'xyz'",
        "client_secret = '[redacted]'", 1 },
    { "header style", "X-Api-Key: 9f8e7d6c", "X-Api-Key: [redacted]", 1 },
    { "go assignment", "secret := \"abc\"", "secret := \"[redacted]\"", 1 },
    { "unterminated quote runs to end of line", "password=\"abc def\nnext",
        "password=\"[redacted]\nnext", 1 },
    { "several", "token=a1 ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 secret=b2",
        "token=[redacted] [redacted] secret=[redacted]", 3 },
    /* left alone */
    { "password in prose", "Reset your password: click the link below.",
        "Reset your password: click the link below.", 0 },
    { "password as a word", "the password field is required",
        "the password field is required", 0 },
    { "git sha", "merged 3f786850e387550fdab836ed7e6dc881de23001b into main",
        "merged 3f786850e387550fdab836ed7e6dc881de23001b into main", 0 },
    { "short hex id", "agent a1b2c3d4 claimed src/x.c",
        "agent a1b2c3d4 claimed src/x.c", 0 },
    { "uuid", "id 123e4567-e89b-12d3-a456-426614174000",
        "id 123e4567-e89b-12d3-a456-426614174000", 0 },
    { "similar names", "max_tokens=4096 sk-learn tokenizer=bpe",
        "max_tokens=4096 sk-learn tokenizer=bpe", 0 },
    { "short ghp", "ghp_short and AKIA1234", "ghp_short and AKIA1234", 0 },
    { "comparison", "if password == expected", "if password == expected", 0 },
    { "empty value", "password=\"\"", "password=\"\"", 0 },
    { "bearer of news", "the bearer of bad news", "the bearer of bad news", 0 },
    { "public key block", "-----BEGIN PUBLIC KEY-----\nMIIB\n",
        "-----BEGIN PUBLIC KEY-----\nMIIB\n", 0 },
    { "inside a word", "xghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "xghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", 0 },
    { "empty", "", "", 0 },
};

static void
test_cases(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct redact_case *c = &cases[i];
        TEST_BEGIN(c->name);
        size_t n = 99;
        char *got = redact_string(c->in, &n);
        CHECK_STR(got, c->want);
        CHECK_INT(n, c->count);
        /* redacting again changes nothing */
        char *again = redact_string(got, &n);
        CHECK_STR(again, got);
        CHECK_INT(n, 0);
        free(again);
        free(got);
        TEST_END();
    }
}

static void
test_embedded_nul(void)
{
    static const char in[] = "a\0token=x1 b";
    char *got = redact_text(in, sizeof(in) - 1, NULL);
    CHECK(!memcmp(got, "a\0token=[redacted] b", 21));
    free(got);
}

/* Hostile inputs that would make a backtracking matcher quadratic; only
 * the results are checked (no timing). */
static void
test_hostile(void)
{
    enum { N = 200000 };
    static const char *const units[] = { "eyJ", "password=\"", "Bearer ",
        "-----BEGIN X PRIVATE KEY-----", "a.", "sk-" };
    for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
        size_t ul = strlen(units[u]);
        char *s = malloc(N * ul + 1);
        for (size_t i = 0; i < N; i++)
            memcpy(s + i * ul, units[u], ul);
        s[N * ul] = '\0';
        char *got = redact_string(s, NULL);
        CHECK(got != NULL);
        free(got);
        free(s);
    }
}

int
main(void)
{
    test_cases();
    TEST_RUN("embedded nul", test_embedded_nul);
    TEST_RUN("hostile repetitions", test_hostile);
    return test_done();
}

/*
 * cmd_commit.c - `airspace commit`: commit only this agent's own files,
 * without the index lock (git/commit.h), after asking the daemon whose
 * files they are and whether someone else holds them.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2.h>
#include <jansson.h>

#include "cli/cli.h"
#include "ops/ops.h"
#include "client/session.h"
#include "client/client.h"
#include "cli/dcli.h"
#include "cli/opts.h"
#include "git/commit.h"
#include "util/file.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const char *
jstr(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const char usage[] =
    "usage: airspace commit -m MESSAGE [--agent ID] [--json] [--force]\n"
    "                       [--no-start] [PATH...]\n\n"
    "Commit only this agent's own files, without the index lock: PATHs\n"
    "(files, or directories for the changed files under them), else the\n"
    "agent's changes: every change of a worktree only it uses, or in a\n"
    "working tree shared with other agents the files it reported editing.\n"
    "A file another agent holds is refused unless --force. See docs/cli.md.\n";

/* Print notes, each line as "airspace commit: LINE". */
static void
print_lines(const char *text)
{
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(stderr, "airspace commit: %.*s\n", (int)len, p);
        p += len + (nl ? 1 : 0);
    }
}

struct message {
    struct strbuf text;
    bool given;
};

/* -m: several are paragraphs, as with git */
static int
add_paragraph(void *target, const char *arg, const char *cmd)
{
    struct message *m = target;
    (void)cmd;
    strbuf_addf(&m->text, "%s%s", m->given ? "\n\n" : "", arg);
    m->given = true;
    return 0;
}

/* Whether the message is empty once cleaned up as the commit cleans it
 * (commit_create(): git_message_prettify(), comments kept), so that
 * nothing would be committed for it. */
static bool
blank_message(const char *text)
{
    git_libgit2_init();
    git_buf clean = GIT_BUF_INIT;
    bool blank =
        !text || git_message_prettify(&clean, text, 0, '#') < 0 || !clean.size;
    git_buf_dispose(&clean);
    git_error_clear();
    git_libgit2_shutdown();
    return blank;
}

int
cmd_commit(int argc, char **argv)
{
    struct message m = { STRBUF_INIT, false };
    bool json = false, force = false, no_start = false;
    const char *agent = NULL;
    const struct opt table[] = {
        { .name = "message",
            .letter = 'm',
            .kind = OPT_CALL,
            .target = &m,
            .fn = add_paragraph },
        OPT_AGENT(&agent, NULL),
        OPT_JSON(&json),
        { .name = "force", .kind = OPT_FLAG, .target = &force },
        OPT_NO_START(&no_start),
        OPT_TABLE_END,
    };
    int rc = opts_parse(argc, argv, table, "commit", usage, 0);
    struct strbuf msg = m.text;
    bool have_msg = m.given;
    if (rc) {
        free(msg.s);
        return rc < 0 ? CLI_EXIT_OK : rc;
    }
    if (!have_msg) {
        free(msg.s);
        return dcli_usage(
            "commit", "a commit message is required (-m MESSAGE)");
    }
    if (agent && !*agent) {
        free(msg.s);
        return dcli_usage("commit", "--agent needs an agent id");
    }
    if (blank_message(msg.s)) { /* before any lock is asked about */
        free(msg.s);
        return dcli_usage("commit", "empty commit message: nothing committed");
    }
    struct client cl;
    struct as_err e;
    bool connected = false;
    char *why = NULL;
    int orc = dcli_client_open(&cl, ".", !no_start, &e);
    if (orc == AS_ENOENT || orc == AS_EINVAL) {
        fprintf(stderr, "airspace commit: %s\n", e.msg);
        client_close(&cl);
        free(msg.s);
        return CLI_EXIT_USAGE;
    }
    if (orc) {
        why = xstrdup(e.msg);
        client_close(&cl);
    } else {
        connected = true;
    }
    struct scoped_commit sc = {
        .dir = ".",
        .agent = agent,
        .message = msg.s ? msg.s : "",
        .paths = argv + optind,
        .npaths = (size_t)(argc - optind),
        .force = force,
        .cl = connected ? &cl : NULL,
        .no_daemon = why,
    };
    json_t *res = NULL;
    char *notes = NULL, *error = NULL;
    int code = scoped_commit_run(&sc, &res, &notes, &error);
    print_lines(notes);
    if (code) {
        print_lines(error);
    } else if (json) {
        dcli_print_json(res);
    } else {
        const char *branch = jstr(res, "branch");
        size_t n = json_array_size(json_object_get(res, "files"));
        printf("[%s%s %.7s] %s (%zu file%s)\n",
            branch ? branch : "detached HEAD",
            json_is_null(json_object_get(res, "parent")) ? " (root-commit)"
                                                         : "",
            jstr(res, "commit"), jstr(res, "subject"), n, n == 1 ? "" : "s");
    }
    if (res)
        json_decref(res);
    free(notes);
    free(error);
    free(why);
    free(msg.s);
    if (connected)
        client_close(&cl);
    return code;
}

#include "cli/dcli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/event_text.h"
#include "core/risk.h"
#include "git/config.h"
#include "git/repo.h"
#include "util/banned.h"

int
dcli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "airspace %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'airspace %s --help'.\n", cmd);
    return CLI_EXIT_USAGE;
}

/* The configuration the daemon of repo would read at its start, checked as
 * it checks it (cmd_serve(): config_read(), then the model's settings
 * together): 0, or AS_EINVAL with the message the daemon would give. A
 * path in no repository is left to client_open() to name. With warn, what
 * the daemon would warn about goes to stderr. */
static int
config_check(const char *repo, bool warn, struct as_err *e)
{
    struct repo *r = NULL;
    struct as_err ignored;
    if (repo_open(repo, &r, &ignored))
        return 0;
    struct config c;
    config_init(&c);
    int rc = config_read(&c, r, e);
    if (!rc) {
        struct risk_config cfg;
        risk_config_default(&cfg);
        config_apply_risk(&c, &cfg);
        rc = config_check_risk(&c, NULL, 0, &cfg, e);
    }
    /* with warn, a daemon is to be started on it: say what it will run */
    if (!rc && warn && c.alerts_warning)
        fprintf(stderr, "airspace: warning: %s\n", c.alerts_warning);
    config_release(&c);
    repo_free(r);
    return rc ? AS_EINVAL : 0;
}

int
dcli_start_check(const char *repo, struct as_err *e)
{
    if (client_daemon_alive(repo))
        return 0; /* a daemon holds the repository: nothing to start */
    return config_check(repo, false, e);
}

int
dcli_client_open(
    struct client *cl, const char *repo, bool autostart, struct as_err *e)
{
    if (!autostart)
        return client_open(cl, repo, false, e);
    int rc = 0;
    if (client_daemon_alive(repo)) {
        /* it answers: nothing to start; it does not (it is stopping, or
         * busy): one may be started in its place */
        if ((rc = client_open(cl, repo, false, e)) != AS_EIO)
            return rc;
    }
    if (config_check(repo, true, e)) {
        memset(cl, 0, sizeof(*cl)); /* client_close() may take it */
        return AS_EINVAL;
    }
    return client_open(cl, repo, true, e);
}

int
dcli_open(struct client *cl, const char *repo, bool no_start, const char *cmd)
{
    struct as_err e;
    int rc = dcli_client_open(cl, repo, !no_start, &e);
    if (rc) {
        fprintf(stderr, "airspace %s: %s\n", cmd, e.msg);
        return rc == AS_ENOENT || rc == AS_EINVAL ? CLI_EXIT_USAGE
                                                  : CLI_EXIT_UNREACHABLE;
    }
    return 0;
}

int
dcli_call(struct client *cl, const char *cmd, struct api_req r, json_t **reply)
{
    long status;
    struct as_err e;
    *reply = NULL;
    if (client_call(cl, r, &status, reply, &e)) {
        fprintf(stderr, "airspace %s: %s\n", cmd, e.msg);
        return CLI_EXIT_UNREACHABLE;
    }
    int code = client_exit_code(status);
    if (code) {
        /* a refusal may quote what an agent wrote (a lock's reason) */
        struct event_texts t = { 0 };
        fprintf(stderr, "airspace %s: %s\n", cmd,
            event_text_show(&t, client_error_message(*reply), NULL));
        event_texts_release(&t);
    }
    return code;
}

void
dcli_print_json(json_t *v)
{
    char *s = json_dumps(v, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    puts(s);
    free(s);
}

const char *
dcli_str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "-";
}

const char *
dcli_agent_state(json_t *a)
{
    return json_is_true(json_object_get(a, "parked")) ? "parked"
                                                      : dcli_str(a, "status");
}

void
dcli_conflict_with(json_t *c, char *buf, size_t len)
{
    const char *branch = json_string_value(json_object_get(c, "branch"));
    const char *b =
        json_string_value(json_array_get(json_object_get(c, "agents"), 1));
    snprintf(buf, len, "%s%s", branch ? "branch " : "",
        branch ? branch
        : b    ? b
               : "");
}

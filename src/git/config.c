/*
 * config.c - the layered configuration files, parsed by libgit2.
 */
#include "git/config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "util/file.h"
#include "util/xalloc.h"
#include "util/banned.h"

static const struct {
    const char *name;
    int64_t min;
} timers[CONFIG_NTIMERS] = {
    [CONFIG_STALE_MS] = { "stale-ms", 1 },
    [CONFIG_RESCAN_MS] = { "rescan-ms", 10 },
    [CONFIG_DEBOUNCE_MS] = { "debounce-ms", 0 },
    [CONFIG_TICK_MS] = { "tick-ms", 10 },
    [CONFIG_WINDOW_MS] = { "window-ms", 1 },
    [CONFIG_IDLE_EXIT_MS] = { "idle-exit-ms", 0 },
    [CONFIG_AGENT_TIMEOUT_MS] = { "agent-timeout-ms", 0 },
    [CONFIG_REQUEST_TIMEOUT_MS] = { "request-timeout-ms", 100 },
    [CONFIG_CONN_IDLE_MS] = { "conn-idle-ms", 100 },
    [CONFIG_MERGE_BUDGET_MS] = { "merge-budget-ms", 0 },
};

void
config_init(struct config *c)
{
    memset(c, 0, sizeof(*c));
    for (int t = 0; t < CONFIG_NTIMERS; t++)
        c->timer[t] = -1;
    c->alerts_silent_ms = c->alerts_waiting_ms = c->alerts_repeat_ms = -1;
    c->alerts_cap = -1;
}

void
config_release(struct config *c)
{
    free(c->store_url);
    free(c->store_airspace);
    free(c->store_node);
    free(c->store_wip_remote);
    for (size_t i = 0; i < c->nrisk; i++) {
        free(c->risk[i].key);
        free(c->risk[i].value);
        free(c->risk[i].file);
    }
    free(c->risk);
    free(c->integration);
    free(c->integration_from);
    free(c->alerts_command);
    free(c->alerts_warning);
    config_init(c);
}

struct reader {
    struct config *c;
    const char *path;
    struct as_err *e;
    int rc;
    bool set_command; /* this file sets alerts.command */
};

static int
bad_entry(struct reader *rd, const git_config_entry *en, const char *why)
{
    rd->rc = as_errorf(rd->e, AS_EINVAL, "config file '%s': %s = %s: %s",
        rd->path, en->name, en->value ? en->value : "(no value)", why);
    return 1;
}

static void
risk_put(struct config *c, char *key, const char *value, const char *file)
{
    for (size_t i = 0; i < c->nrisk; i++)
        if (!strcmp(c->risk[i].key, key)) {
            free(key);
            free(c->risk[i].value);
            free(c->risk[i].file);
            c->risk[i].value = xstrdup(value);
            c->risk[i].file = xstrdup(file);
            return;
        }
    c->risk = xrealloc(c->risk, (c->nrisk + 1) * sizeof(*c->risk));
    c->risk[c->nrisk].key = key;
    c->risk[c->nrisk].value = xstrdup(value);
    c->risk[c->nrisk].file = xstrdup(file);
    c->nrisk++;
}

/* risk.<k>: the model key k with '-' read as '_'. */
static int
read_risk(struct reader *rd, const git_config_entry *en, const char *rest)
{
    struct risk_config scratch;
    struct as_err re;
    char *key = xstrdup(rest);
    for (char *p = key; *p; p++)
        if (*p == '-')
            *p = '_';
    /* A bare name is git's "true": only the boolean key takes it. */
    const char *value = en->value ? en->value : "true";
    risk_config_default(&scratch);
    if (risk_config_set(&scratch, key, value, &re)) {
        free(key);
        return bad_entry(rd, en, en->value ? re.msg : "no value given");
    }
    risk_put(rd->c, key, value, rd->path);
    return 0;
}

static int
read_daemon(struct reader *rd, const git_config_entry *en, const char *rest)
{
    for (int t = 0; t < CONFIG_NTIMERS; t++) {
        if (strcmp(rest, timers[t].name))
            continue;
        const char *v = en->value;
        char *end;
        errno = 0;
        long long n = v ? strtoll(v, &end, 10) : -1;
        if (!v || errno || end == v || *end || n < timers[t].min) {
            char why[96];
            snprintf(why, sizeof(why), "want whole milliseconds >= %lld",
                (long long)timers[t].min);
            return bad_entry(rd, en, why);
        }
        rd->c->timer[t] = n;
        return 0;
    }
    return bad_entry(rd, en, "unknown key (docs/config.md)");
}

/* A branch name git would accept, with or without refs/heads/. */
static bool
branch_name_ok(const char *v)
{
    if (!*v)
        return false;
    if (!strncmp(v, "refs/heads/", 11))
        v += 11;
    char *full = xasprintf("refs/heads/%s", v);
    int valid = 0;
    bool ok = git_reference_name_is_valid(&valid, full) == 0 && valid;
    free(full);
    return ok;
}

static int
read_airspace(struct reader *rd, const git_config_entry *en, const char *rest)
{
    if (strcmp(rest, "integration"))
        return bad_entry(rd, en, "unknown key (docs/config.md)");
    if (!en->value || !branch_name_ok(en->value))
        return bad_entry(rd, en, "want a branch name");
    free(rd->c->integration);
    free(rd->c->integration_from);
    rd->c->integration = xstrdup(en->value);
    rd->c->integration_from = xasprintf("config file '%s'", rd->path);
    return 0;
}

/* alerts.<k>: seconds (silent, waiting: > 0; repeat: >= 0), cap (a
 * count) and command (not from the committed repository file). */
static int
read_alerts(struct reader *rd, const git_config_entry *en, const char *rest)
{
    const char *v = en->value;
    if (!strcmp(rest, "command")) {
        if (rd->c->reading_committed)
            return bad_entry(rd, en,
                "a command to run is taken only from your own config files "
                "(the user or the local file), not from the committed one");
        if (!v || !*v)
            return bad_entry(rd, en, "want a command");
        free(rd->c->alerts_command);
        rd->c->alerts_command = xstrdup(v);
        rd->set_command = true;
        return 0;
    }
    int64_t *dst = !strcmp(rest, "silent")    ? &rd->c->alerts_silent_ms
                   : !strcmp(rest, "waiting") ? &rd->c->alerts_waiting_ms
                   : !strcmp(rest, "repeat")  ? &rd->c->alerts_repeat_ms
                   : !strcmp(rest, "cap")     ? &rd->c->alerts_cap
                                              : NULL;
    if (!dst)
        return bad_entry(rd, en, "unknown key (docs/config.md)");
    char *end;
    errno = 0;
    double n = v ? strtod(v, &end) : -1;
    bool whole = dst == &rd->c->alerts_cap;
    double min = dst == &rd->c->alerts_repeat_ms || whole ? 0 : 0.001;
    if (!v || errno || end == v || *end || !(n >= min) || n > 1e9 ||
        (whole && n != (double)(int64_t)n))
        return bad_entry(rd, en,
            whole     ? "want a whole number >= 0"
            : min > 0 ? "want seconds > 0"
                      : "want seconds >= 0");
    *dst = whole ? (int64_t)n : (int64_t)(n * 1000 + 0.5);
    return 0;
}

const char *
config_store_url_check(const char *url)
{
    if (!url || !*url)
        return "want a path, sqlite:PATH or a postgresql:// URL";
    if (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11))
        return NULL;
    if (!strncmp(url, "sqlite:", 7))
        return url[7] ? NULL : "no path after 'sqlite:': want sqlite:PATH";
    /* scheme://: a URL, and no store airspace knows */
    size_t n =
        strspn(url, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789+.-");
    if (n && isalpha((unsigned char)url[0]) && !strncmp(url + n, "://", 3))
        return "an unknown scheme: want a path, sqlite:PATH or a "
               "postgresql:// URL";
    return NULL;
}

/* store.url: a path, sqlite:PATH or postgres(ql)://...; store.airspace,
 * store.node and store.wip-remote (a remote's name or URL): names
 * (printable, no spaces, at most 200 bytes). */
static int
read_store(struct reader *rd, const git_config_entry *en, const char *rest)
{
    const char *v = en->value;
    char **dst = !strcmp(rest, "url")          ? &rd->c->store_url
                 : !strcmp(rest, "airspace")   ? &rd->c->store_airspace
                 : !strcmp(rest, "node")       ? &rd->c->store_node
                 : !strcmp(rest, "wip-remote") ? &rd->c->store_wip_remote
                                               : NULL;
    if (!dst)
        return bad_entry(rd, en, "unknown key (docs/config.md)");
    if (dst == &rd->c->store_url) {
        const char *why = v && strlen(v) > 4096 ? "longer than 4096 bytes"
                                                : config_store_url_check(v);
        if (why)
            return bad_entry(rd, en, why);
    } else if (!v || !*v || strlen(v) > 200) {
        return bad_entry(rd, en, "want a name of at most 200 bytes");
    }
    for (const char *p = v; dst != &rd->c->store_url && *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return bad_entry(rd, en, "want a name without spaces");
    free(*dst);
    *dst = xstrdup(v);
    return 0;
}

static int
read_entry(const git_config_entry *en, void *payload)
{
    struct reader *rd = payload;
    const char *dot = strchr(en->name, '.');
    if (!dot)
        return 0;
    size_t n = (size_t)(dot - en->name);
    if (n == 4 && !strncmp(en->name, "risk", n))
        return read_risk(rd, en, dot + 1);
    if (n == 6 && !strncmp(en->name, "daemon", n))
        return read_daemon(rd, en, dot + 1);
    if (n == 8 && !strncmp(en->name, "airspace", n))
        return read_airspace(rd, en, dot + 1);
    if (n == 5 && !strncmp(en->name, "store", n))
        return read_store(rd, en, dot + 1);
    if (n == 6 && !strncmp(en->name, "alerts", n))
        return read_alerts(rd, en, dot + 1);
    return 0; /* other sections are not ours */
}

/* Past the blanks at p on its line. */
static const char *
skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/*
 * Where the value of the last `command` of an [alerts] section in text (a
 * config file) was cut: the unquoted ';' or '#' that starts a comment in
 * git-config syntax, with more than blanks after it on the line; NUL when
 * none was. libgit2 has read the file, so its syntax is valid.
 */
static char
alerts_command_cut(const char *text)
{
    bool in_alerts = false;
    char cut = 0;
    for (const char *p = text; *p;) {
        p = skip_blanks(p);
        if (*p == '[') { /* a section header; a key may follow on its line */
            const char *q = p + 1;
            size_t n = strspn(q, "abcdefghijklmnopqrstuvwxyz"
                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.");
            in_alerts = n == 6 && !strncasecmp(q, "alerts", 6) && q[n] == ']';
            p = strchr(p, ']');
            p = p ? skip_blanks(p + 1) : q + strlen(q);
        }
        size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz"
                             "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-");
        const char *eq = skip_blanks(p + n);
        bool command =
            in_alerts && n == 7 && !strncasecmp(p, "command", 7) && *eq == '=';
        if (command)
            cut = 0;
        bool quoted = false;
        for (p = command ? eq + 1 : p; *p && *p != '\n'; p++) {
            if (*p == '\\' && p[1]) {
                p++; /* an escape, or a line continued */
            } else if (*p == '"') {
                quoted = !quoted;
            } else if (!quoted && (*p == ';' || *p == '#')) {
                const char *rest = skip_blanks(p + 1);
                if (command && *rest && *rest != '\n' && *rest != '\r')
                    cut = *p;
                p += strcspn(p, "\n");
                break;
            }
        }
        if (*p == '\n')
            p++;
    }
    return cut;
}

int
config_read_file(struct config *c, const char *path, struct as_err *e)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        return as_errorf(e, AS_EIO, "cannot read config file '%s': %s", path,
            strerror(errno));
    }
    bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    close(fd);
    if (!regular)
        return as_errorf(e, AS_EIO,
            "cannot read config file '%s': not a regular file", path);

    git_libgit2_init();
    git_config *cfg = NULL;
    int rc = 0;
    if (git_config_new(&cfg) < 0 || git_config_add_file_ondisk(cfg, path,
                                        GIT_CONFIG_LEVEL_APP, NULL, 0) < 0) {
        const git_error *ge = git_error_last();
        rc = as_errorf(e, AS_EPARSE, "cannot read config file '%s': %s", path,
            ge && ge->message ? ge->message : "unknown libgit2 error");
        goto out;
    }
    struct reader rd = { c, path, e, 0, false };
    int frc = git_config_foreach(cfg, read_entry, &rd);
    if (rd.rc)
        rc = rd.rc;
    else if (frc < 0)
        rc = repo_git_errorf(e, "cannot read config file '%s'", path);
    if (!rc && rd.set_command) { /* this file's command is the one run */
        char *text = NULL;
        size_t len;
        char cut = file_read_max(path, (size_t)1 << 20, false, &text, &len)
                       ? 0
                       : alerts_command_cut(text);
        free(text);
        free(c->alerts_warning);
        c->alerts_warning =
            cut ? xasprintf("config file '%s': alerts.command stops at the "
                            "'%c', where git-config syntax starts a comment: "
                            "the command run is '%s'; to keep the rest, put "
                            "the whole value in double quotes (a quote inside "
                            "it as \\\")",
                      path, cut, c->alerts_command)
                : NULL;
    }
out:
    git_config_free(cfg);
    git_libgit2_shutdown();
    return rc;
}

char *
config_user_path(void)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg && *xdg == '/')
        return xasprintf("%s/airspace/config", xdg);
    if (home && *home == '/')
        return xasprintf("%s/.config/airspace/config", home);
    return NULL;
}

/* `airspace.integration` from the repository's git config, if set. */
static int
read_git_integration(struct config *c, struct repo *r, struct as_err *e)
{
    git_config *cfg = NULL;
    git_buf buf = GIT_BUF_INIT;
    if (git_repository_config_snapshot(&cfg, repo_git(r)) < 0)
        return repo_git_errorf(
            e, "cannot read git config of '%s'", repo_common_dir(r));
    int err = git_config_get_string_buf(&buf, cfg, "airspace.integration");
    git_config_free(cfg);
    if (err == 0 && buf.size > 0) {
        free(c->integration);
        free(c->integration_from);
        c->integration = xstrdup(buf.ptr);
        c->integration_from = xstrdup("git config 'airspace.integration'");
    }
    git_buf_dispose(&buf);
    if (err < 0 && err != GIT_ENOTFOUND)
        return repo_git_errorf(e, "cannot read 'airspace.integration'");
    return 0;
}

int
config_read(struct config *c, struct repo *r, struct as_err *e)
{
    char *path = config_user_path();
    int rc = path ? config_read_file(c, path, e) : 0;
    free(path);
    if (rc || !r)
        return rc;
    if (repo_main_workdir(r)) {
        path = xasprintf("%s/.airspace/config", repo_main_workdir(r));
        c->reading_committed = true;
        rc = config_read_file(c, path, e);
        c->reading_committed = false;
        free(path);
        if (rc)
            return rc;
    }
    if ((rc = read_git_integration(c, r, e)))
        return rc;
    path = xasprintf("%s/airspace/config", repo_common_dir(r));
    rc = config_read_file(c, path, e);
    free(path);
    return rc;
}

void
config_apply_risk(const struct config *c, struct risk_config *cfg)
{
    for (size_t i = 0; i < c->nrisk; i++)
        (void)risk_config_set(cfg, c->risk[i].key, c->risk[i].value, NULL);
}

/* Where the model's key was last set, for a message: "from --set", "from
 * config file '...'" or "built in" (a new string). */
static char *
risk_origin(const struct config *c, const char *const *sets, size_t nsets,
    const char *key)
{
    size_t n = strlen(key);
    for (size_t i = nsets; i-- > 0;)
        if (!strncmp(sets[i], key, n) && sets[i][n] == '=')
            return xstrdup("from --set");
    for (size_t i = 0; c && i < c->nrisk; i++)
        if (!strcmp(c->risk[i].key, key))
            return xasprintf("from config file '%s'", c->risk[i].file);
    return xstrdup("built in");
}

int
config_check_risk(const struct config *c, const char *const *sets, size_t nsets,
    const struct risk_config *cfg, struct as_err *e)
{
    const char *above, *below;
    double va, vb;
    if (!risk_config_misorder(cfg, &above, &va, &below, &vb))
        return 0;
    char *oa = risk_origin(c, sets, nsets, above);
    char *ob = risk_origin(c, sets, nsets, below);
    int rc = as_errorf(e, AS_EINVAL, "'%s' (%g, %s) is above '%s' (%g, %s)",
        above, va, oa, below, vb, ob);
    free(oa);
    free(ob);
    return rc;
}

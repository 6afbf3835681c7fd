/*
 * cmd_open.c - `airspace open`: the live map in the browser. Starts the
 * daemon on demand, has it listen on 127.0.0.1 (POST /v1/map/open), prints
 * the page's address with the daemon's token in its fragment and hands the
 * user's browser ($BROWSER, else xdg-open with a display) a private page
 * that leads there: a command line is readable by every local user, so the
 * token never goes on one.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/dcli.h"
#include "cli/opts.h"
#include "git/paths.h"
#include "util/error.h"
#include "util/file.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* Whether name is an executable on $PATH. */
static bool
on_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path)
        return false;
    char *copy = xstrdup(path);
    bool found = false;
    for (char *dir = copy, *next; dir && !found; dir = next) {
        next = strchr(dir, ':');
        if (next)
            *next++ = '\0';
        char *p = xasprintf("%s/%s", *dir ? dir : ".", name);
        found = access(p, X_OK) == 0;
        free(p);
    }
    free(copy);
    return found;
}

/*
 * Run argv detached (its own session, no terminal output, not waited
 * for: a grandchild). Returns 0 when it was started, -1 when exec failed.
 */
static int
spawn_detached(char *const *argv)
{
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) < 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(pipefd[0]);
        close(pipefd[1]);
        return -1;
    }
    if (pid == 0) {
        close(pipefd[0]);
        setsid();
        if (fork() != 0)
            _exit(0);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        execvp(argv[0], argv);
        int err = errno;
        if (write(pipefd[1], &err, sizeof(err)) < 0)
            _exit(127);
        _exit(127);
    }
    close(pipefd[1]);
    waitpid(pid, NULL, 0);
    int err = 0;
    /* the grandchild's exec closes the pipe; a failed one writes errno */
    ssize_t n = read(pipefd[0], &err, sizeof(err));
    close(pipefd[0]);
    return n > 0 ? -1 : 0;
}

/*
 * Write the page that sends the browser on to url (the address with the
 * token) as <dir>/map.html, 0600 in the user's own 0700 directory, and
 * return its file:// address (a new string), or NULL after saying why.
 * The file is overwritten by every `open`: the browser reads it after
 * `open` has exited, so there is no moment to remove it, and it holds
 * only the token that <dir>/token holds too.
 */
static char *
write_redirect(const char *dir, const char *url)
{
    /* the daemon's address is ours: anything but these characters would
     * need quoting in the page, so such an address is not written */
    if (strspn(url, "abcdefghijklmnopqrstuvwxyz0123456789:/.#=") !=
        strlen(url)) {
        fprintf(stderr, "airspace open: unexpected address '%s'\n", url);
        return NULL;
    }
    struct as_err e;
    if (broker_private_dir(dir, &e)) {
        fprintf(stderr, "airspace open: %s\n", e.msg);
        return NULL;
    }
    char *path = xasprintf("%s/map.html", dir);
    char *page = xasprintf("<!doctype html>\n<html lang=\"en\"><head>"
                           "<meta charset=\"utf-8\">"
                           "<meta name=\"referrer\" content=\"no-referrer\">"
                           "<meta http-equiv=\"refresh\" content=\"0; url=%s\">"
                           "<title>airspace map</title></head>\n"
                           "<body><a href=\"%s\">the airspace map</a></body>"
                           "</html>\n",
        url, url);
    char *file = NULL;
    if (file_write_atomic(path, page, strlen(page), &e)) {
        fprintf(stderr, "airspace open: %s\n", e.msg);
        goto out;
    }
    /* a file URL: every byte but the unreserved ones and '/' escaped,
     * which also keeps it whole inside the shell's single quotes */
    size_t n = strlen(path);
    file = xmalloc(7 + 3 * n + 1);
    char *w = file + 7;
    memcpy(file, "file://", 7);
    for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
        if (strchr("-._~/", *c) || (*c >= 'a' && *c <= 'z') ||
            (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9'))
            *w++ = (char)*c;
        else
            w += snprintf(w, 4, "%%%02X", *c);
    }
    *w = '\0';
out:
    free(page);
    free(path);
    return file;
}

/* Hand url (never one with the token) to the user's browser: $BROWSER
 * (its first entry; "%s" in it is the url), else xdg-open when there is a
 * display. Says which on stderr; false when none could be started. */
static bool
open_browser(const char *url)
{
    const char *env = getenv("BROWSER");
    if (env && *env) {
        char *cmd = xstrdup(env);
        char *colon = strchr(cmd, ':');
        if (colon)
            *colon = '\0';
        char *argv[4] = { cmd, (char *)url, NULL, NULL };
        char *pct = strstr(cmd, "%s");
        char *line = NULL;
        if (pct) { /* a command line: run it through sh */
            line = xasprintf("%.*s'%s'%s", (int)(pct - cmd), cmd, url, pct + 2);
            argv[0] = "/bin/sh";
            argv[1] = "-c";
            argv[2] = line;
        }
        int rc = spawn_detached(argv);
        if (!rc)
            fprintf(stderr, "airspace open: opening it with %s\n", cmd);
        free(line);
        free(cmd);
        if (!rc)
            return true;
    }
    if ((getenv("DISPLAY") || getenv("WAYLAND_DISPLAY")) &&
        on_path("xdg-open")) {
        char *argv[] = { "xdg-open", (char *)url, NULL };
        if (!spawn_detached(argv)) {
            fprintf(stderr, "airspace open: opening it with xdg-open\n");
            return true;
        }
    }
    return false;
}

int
cmd_open(int argc, char **argv)
{
    static const char usage[] =
        "usage: airspace open [--repo DIR] [--port PORT] [--no-browser]\n\n"
        "The live map of the repository in the browser: starts the daemon\n"
        "if needed, has it serve the map on 127.0.0.1 (PORT, or a free\n"
        "one), prints the address (its token in the fragment) and opens it\n"
        "with $BROWSER or xdg-open, through a private page in the airspace\n"
        "directory. --no-browser only prints it.\n";
    const char *repo = ".";
    bool no_browser = false;
    long port = -1;
    const struct opt table[] = {
        OPT_REPO(&repo),
        { .name = "port",
            .kind = OPT_NUMBER,
            .target = &port,
            .min = 1,
            .max = 65535,
            .bad = "--port takes a port 1..65535" },
        { .name = "no-browser", .kind = OPT_FLAG, .target = &no_browser },
        OPT_TABLE_END,
    };
    int prc = opts_parse(argc, argv, table, "open", usage, 0);
    if (prc)
        return prc < 0 ? CLI_EXIT_OK : prc;
    bool browser = !no_browser;
    if (optind < argc)
        return dcli_usage("open", "unexpected '%s'", argv[optind]);

    struct client cl;
    int rc = dcli_open(&cl, repo, false, "open");
    if (rc)
        return rc;
    json_t *body =
        port > 0 ? json_pack("{s:I}", "port", (json_int_t)port) : json_object();
    json_t *reply = NULL;
    rc = dcli_call(&cl, "open", api_map_open(body), &reply);
    char *dir = xstrdup(cl.paths.dir);
    client_close(&cl);
    if (rc) {
        json_decref(reply);
        free(dir);
        return rc;
    }
    const char *url = json_string_value(json_object_get(reply, "url"));
    json_int_t got = json_integer_value(json_object_get(reply, "port"));
    if (!url) {
        fprintf(stderr, "airspace open: the daemon gave no address\n");
        json_decref(reply);
        free(dir);
        return CLI_EXIT_ERROR;
    }
    if (port > 0 && got != port)
        fprintf(stderr,
            "airspace open: the daemon already serves the map on port %lld\n",
            (long long)got);
    printf("%s\n", url);
    fflush(stdout);
    if (browser) {
        char *file = write_redirect(dir, url);
        if (!file)
            fprintf(stderr, "airspace open: open the address above\n");
        else if (!open_browser(file))
            fprintf(stderr,
                "airspace open: no browser found ($BROWSER, or "
                "xdg-open with a display): open the address above\n");
        free(file);
    }
    json_decref(reply);
    free(dir);
    return CLI_EXIT_OK;
}

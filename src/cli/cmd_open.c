/*
 * cmd_open.c - `airspace open`: the live map in the browser. Starts the
 * daemon on demand, has it listen on 127.0.0.1 (POST /v1/map/open), prints
 * the page's address with the daemon's token in its fragment and hands it
 * to the user's browser ($BROWSER, else xdg-open with a display).
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

/* Hand url to the user's browser: $BROWSER (its first entry; "%s" in it
 * is the url), else xdg-open when there is a display. Says which on
 * stderr; false when none could be started. */
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
        "with $BROWSER or xdg-open. --no-browser only prints it.\n";
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
    client_close(&cl);
    if (rc) {
        json_decref(reply);
        return rc;
    }
    const char *url = json_string_value(json_object_get(reply, "url"));
    json_int_t got = json_integer_value(json_object_get(reply, "port"));
    if (!url) {
        fprintf(stderr, "airspace open: the daemon gave no address\n");
        json_decref(reply);
        return CLI_EXIT_ERROR;
    }
    if (port > 0 && got != port)
        fprintf(stderr,
            "airspace open: the daemon already serves the map on port %lld\n",
            (long long)got);
    printf("%s\n", url);
    fflush(stdout);
    if (browser && !open_browser(url))
        fprintf(stderr, "airspace open: no browser found ($BROWSER, or "
                        "xdg-open with a display): open the address above\n");
    json_decref(reply);
    return CLI_EXIT_OK;
}

/*
 * test_git_fleet.c - the fleet file (defaults, agents in order, several
 * lanes, quoted commands, every refusal naming the key), lanes as land
 * checks them, the worktree include copy (files, directories, globs,
 * nothing over what exists, no symlink, no escape) and uncommitted work.
 */
#include "test.h"
#include "test_git_fixture.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "git/fleet.h"
#include "util/error.h"

static char dir[600];

static const char *
put(const char *name, const char *text)
{
    static char path[800];
    fx_write(dir, name, text);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return path;
}

static void
test_read(void)
{
    struct fleet f;
    struct as_err e;
    const char *p = put("fleet",
        "[fleet]\n\tconcurrency = 2\n\trestarts = 0\n\tbackoff = 0.5\n"
        "[agent \"bob\"]\n\tcommand = \"echo a; exit 3\" # c\n"
        "\tlane = src/ui/**\n\tlane = docs/ui.md\n"
        "[agent \"al.ice\"]\n\tcommand = claude\n\tsetup = npm ci\n");
    CHECK_INT(fleet_read(p, &f, &e), 0);
    CHECK_INT(f.nagents, 2);
    CHECK_INT(f.concurrency, 2);
    CHECK_INT(f.restarts, 0);
    CHECK_INT(f.backoff_ms, 500);
    CHECK_STR(f.agents[0].name, "bob");
    CHECK_STR(f.agents[0].command, "echo a; exit 3");
    CHECK_INT(f.agents[0].nlanes, 2);
    CHECK_STR(f.agents[0].lanes[1], "docs/ui.md");
    CHECK(f.agents[0].setup == NULL);
    CHECK_STR(f.agents[1].name, "al.ice");
    CHECK_STR(f.agents[1].setup, "npm ci");
    const struct fleet_agent *b = fleet_find(&f, "bob");
    CHECK(b && fleet_find(&f, "carol") == NULL);
    CHECK(fleet_in_lane(b, "src/ui/a/b.c"));
    CHECK(fleet_in_lane(b, "docs/ui.md"));
    CHECK(!fleet_in_lane(b, "docs/ui.mdx"));
    CHECK(!fleet_in_lane(b, "src/net/a.c"));
    CHECK(!fleet_in_lane(fleet_find(&f, "al.ice"), "anything"));
    fleet_release(&f);
    /* defaults */
    p = put("fleet", "[agent \"a\"]\n\tcommand = x\n\tlane = src\n");
    CHECK_INT(fleet_read(p, &f, &e), 0);
    CHECK_INT(f.concurrency, 4);
    CHECK_INT(f.restarts, 3);
    CHECK_INT(f.backoff_ms, 5000);
    CHECK(fleet_in_lane(&f.agents[0], "src/x/y.c"));
    CHECK(!fleet_in_lane(&f.agents[0], "srcx/y.c"));
    fleet_release(&f);
}

static void
test_refusals(void)
{
    static const struct {
        const char *text, *want;
        int rc;
    } cases[] = {
        { "[agent \"a b\"]\n\tcommand = x\n", "agent.a b.command", AS_EINVAL },
        { "[agent \"a\"]\n\tlane = x\n", "agent 'a' has no command",
            AS_EINVAL },
        { "[fleet]\n\tconcurrency = 2\n", "names no agent", AS_EINVAL },
        { "[fleet]\n\tconcurrency = 0\n[agent \"a\"]\n\tcommand = x\n",
            "fleet.concurrency = 0: want a whole number from 1 to 1000",
            AS_EINVAL },
        { "[fleet]\n\trestarts = 1.5\n[agent \"a\"]\n\tcommand = x\n",
            "fleet.restarts = 1.5", AS_EINVAL },
        { "[fleet]\n\tbackoff = 0\n[agent \"a\"]\n\tcommand = x\n",
            "fleet.backoff = 0: want seconds", AS_EINVAL },
        { "[fleet]\n\tcolour = red\n[agent \"a\"]\n\tcommand = x\n",
            "fleet.colour = red: unknown key", AS_EINVAL },
        { "[agent \"a\"]\n\tcommand = x\n\tlane = ../up\n",
            "a lane is a path or glob in the repository", AS_EINVAL },
        { "[agent \"a\"]\n\tcommand = x\n\tlane = /abs\n",
            "a lane is a path or glob in the repository", AS_EINVAL },
        { "[agent \"a\"]\n\tcommand = x\n\tlane = src/**\n\tlane = [\n",
            "agent.a.lane = [: not a glob: unterminated '['", AS_EINVAL },
        { "[agent \"a\"]\n\tcommand = x\n\tlane = src/..\n",
            "agent.a.lane = src/..: not a glob", AS_EINVAL },
        { "[agent \"a\"]\n\tcommand = x\n\tmodel = y\n",
            "agent.a.model = y: unknown key", AS_EINVAL },
        { "[agent]\n\tcommand = x\n", "go in [agent \"NAME\"]", AS_EINVAL },
        { "[risk]\n\tx = 1\n[agent \"a\"]\n\tcommand = x\n", "unknown section",
            AS_EINVAL },
        { "[agent \"a\"\n", "fleet", AS_EPARSE },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        TEST_BEGIN(cases[i].want);
        struct fleet f;
        struct as_err e;
        e.msg[0] = '\0';
        CHECK_INT(fleet_read(put("fleet", cases[i].text), &f, &e), cases[i].rc);
        if (!strstr(e.msg, cases[i].want))
            fprintf(stderr, "got: %s\n", e.msg);
        CHECK(strstr(e.msg, cases[i].want) != NULL);
        CHECK(f.nagents == 0 && f.agents == NULL);
        TEST_END();
    }
    struct fleet f;
    struct as_err e;
    char missing[700];
    snprintf(missing, sizeof(missing), "%s/none", dir);
    TEST_BEGIN("missing file");
    CHECK_INT(fleet_read(missing, &f, &e), AS_ENOENT);
    TEST_END();
}

static int
exists(const char *d, const char *rel)
{
    char p[900];
    struct stat st;
    snprintf(p, sizeof(p), "%s/%s", d, rel);
    return lstat(p, &st) == 0;
}

static void
test_include(void)
{
    char top[700], dst[700];
    snprintf(top, sizeof(top), "%s/top", dir);
    snprintf(dst, sizeof(dst), "%s/wt", dir);
    mkdir(top, 0755);
    mkdir(dst, 0755);
    fx_write(top, ".env", "A=1\n");
    fx_write(top, "conf/local/a.json", "{}\n");
    fx_write(top, "conf/local/b.json", "{}\n");
    fx_write(top, "keys/x.pem", "k\n");
    fx_write(top, "keys/sub/y.pem", "k\n");
    fx_write(top, "keys/z.txt", "t\n");
    fx_write(dst, "present.txt", "mine\n");
    fx_write(top, "present.txt", "theirs\n");
    char link[800];
    snprintf(link, sizeof(link), "%s/link.env", top);
    symlink("/etc/passwd", link);
    fx_write(top, ".airspace/worktreeinclude",
        "# what git does not carry\n.env\nconf/local/\n**/*.pem\n"
        "present.txt\nlink.env\nnot-there\n");
    char list[800];
    snprintf(list, sizeof(list), "%s/.airspace/worktreeinclude", top);
    char **v;
    size_t n;
    struct as_err e;
    CHECK_INT(fleet_include_copy(top, dst, list, &v, &n, &e), 0);
    CHECK_INT(n, 5);
    CHECK(exists(dst, ".env") && exists(dst, "conf/local/a.json") &&
          exists(dst, "conf/local/b.json") && exists(dst, "keys/x.pem") &&
          exists(dst, "keys/sub/y.pem"));
    CHECK(!exists(dst, "keys/z.txt"));
    CHECK(!exists(dst, "link.env"));
    char buf[64] = { 0 };
    char p[900];
    snprintf(p, sizeof(p), "%s/present.txt", dst);
    FILE *fp = fopen(p, "r");
    CHECK(fp && fgets(buf, sizeof(buf), fp));
    if (fp)
        fclose(fp);
    CHECK_STR(buf, "mine\n");
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    /* again: nothing more */
    CHECK_INT(fleet_include_copy(top, dst, list, &v, &n, &e), 0);
    CHECK_INT(n, 0);
    free(v);
    /* an escape is refused */
    fx_write(top, ".airspace/worktreeinclude", "../secret\n");
    CHECK_INT(fleet_include_copy(top, dst, list, &v, &n, &e), AS_EINVAL);
    CHECK(strstr(e.msg, "'../secret' is not a path in the repository") != NULL);
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
    /* no list: nothing */
    snprintf(list, sizeof(list), "%s/none", top);
    CHECK_INT(fleet_include_copy(top, dst, list, &v, &n, &e), 0);
    CHECK_INT(n, 0);
}

static void
test_dirty(void)
{
    char repo[600];
    fx_init("dirty", repo, sizeof(repo));
    fx_write(repo, "a.c", "a\n");
    fx_git(repo, "add", "-A", NULL);
    fx_commit(repo, "base");
    size_t n;
    char *some;
    struct as_err e;
    CHECK_INT(fleet_worktree_dirty(repo, &n, &some, &e), 0);
    CHECK_INT(n, 0);
    CHECK(some == NULL);
    free(some);
    fx_write(repo, "a.c", "b\n");
    fx_write(repo, "new/b.c", "b\n");
    CHECK_INT(fleet_worktree_dirty(repo, &n, &some, &e), 0);
    CHECK_INT(n, 2);
    CHECK_STR(some, "a.c, new/b.c");
    free(some);
    char gone[700];
    snprintf(gone, sizeof(gone), "%s/nowhere", fx_root);
    CHECK_INT(fleet_worktree_dirty(gone, &n, &some, &e), AS_ENOENT);
}

int
main(void)
{
    fx_setup();
    snprintf(dir, sizeof(dir), "%s/files", fx_root);
    mkdir(dir, 0755);
    TEST_RUN("a fleet file read, lanes", test_read);
    test_refusals();
    TEST_RUN("worktree includes", test_include);
    TEST_RUN("uncommitted work", test_dirty);
    fx_teardown();
    return test_done();
}

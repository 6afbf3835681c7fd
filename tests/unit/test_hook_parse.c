/* test_hook_parse.c - the files a shell command or apply_patch writes, and
 * the user's words in a prompt. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "hooks/hook_parse.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct shell_case {
    const char *name, *cmd;
    const char *want; /* the paths joined with '|', in order */
    size_t unknown;   /* relative paths left out: directory unknown */
};

static const struct shell_case shell_cases[] = {
    /* what it always read */
    { "redirect", "echo hi > out.txt", "out.txt", 0 },
    { "append into a directory", "echo hi >> a/b.txt", "a/b.txt", 0 },
    { "/dev/null is no file", "make > /dev/null", "", 0 },
    { "sed -i keeps the last word", "sed -i 's/a/b/' f.c", "f.c", 0 },
    { "sed without -i writes nothing", "sed 's/a/b/' f.c", "", 0 },
    { "rm every file", "rm -f a.c b.c", "a.c|b.c", 0 },
    { "mv the last argument", "mv a b", "b", 0 },
    { "cp the last argument", "cp -r a b c/", "c/", 0 },
    { "tee in a pipeline", "cat x | tee -a log", "log", 0 },
    { "reading writes nothing", "cat docs/notes.md | wc -l", "", 0 },
    { "quotes are stripped", "rm \"my file.c\" 'it''s'", "my file.c|its", 0 },
    { "every separator", "touch a; rm b && truncate -s0 c || echo > d",
        "a|b|c|d", 0 },
    { "absolute path", "rm /tmp/x.c", "/tmp/x.c", 0 },
    { "input redirect is no write", "sort < in.txt > out.txt", "out.txt", 0 },
    { "fd duplication is no file", "rm x 2>&1", "x", 0 },
    { "&> redirect", "make &> build.log", "build.log", 0 },
    { "assignment before the command", "LC_ALL=C rm x", "x", 0 },
    { "inside if", "if true; then rm x; fi", "x", 0 },
    { "comment", "rm x # ; rm y", "x", 0 },
    /* cd moves the directory of what follows */
    { "cd &&", "cd sub && rm x.c", "sub/x.c", 0 },
    { "cd ;", "cd sub; rm x.c", "sub/x.c", 0 },
    { "cd newline", "cd sub\nrm x.c", "sub/x.c", 0 },
    { "cd || exit", "cd sub || exit 1; rm x.c", "sub/x.c", 0 },
    { "line continuation", "cd sub && \\\n  rm x.c", "sub/x.c", 0 },
    { "cd twice", "cd a && cd b && touch x", "a/b/x", 0 },
    { "cd ..", "cd a/b && cd .. && rm x", "a/x", 0 },
    { "cd out of the start", "cd .. && rm x", "../x", 0 },
    { "cd a/../b", "cd ./a/../b/ && rm x", "b/x", 0 },
    { "cd . stays", "cd . && rm x", "x", 0 },
    { "cd absolute", "cd /w/repo/sub && rm x.c", "/w/repo/sub/x.c", 0 },
    { "absolute file after cd", "cd sub && rm /abs/x.c", "/abs/x.c", 0 },
    { "redirect after cd", "cd sub && echo hi > x.c", "sub/x.c", 0 },
    { "the cd's own redirect", "cd sub 2> err.txt && rm x", "err.txt|sub/x",
        0 },
    { "mv after cd", "cd sub && mv a.c b.c", "sub/b.c", 0 },
    { "sed -i after cd", "cd src && sed -i 's/a/b/' x.c", "src/x.c", 0 },
    { "tee after cd", "cd sub && ls | tee out", "sub/out", 0 },
    { "quoted directory", "cd \"my dir\" && rm x", "my dir/x", 0 },
    { "cd --", "cd -- sub && rm x", "sub/x", 0 },
    { "cd -P", "cd -P sub && rm x", "sub/x", 0 },
    { "builtin cd", "builtin cd sub && rm x", "sub/x", 0 },
    { "cd 2>&1", "cd sub 2>&1 && rm x", "sub/x", 0 },
    { "cd - after two", "cd a && cd b && cd - && rm x", "a/x", 0 },
    /* where cd does not reach */
    { "subshell", "(cd sub && rm x.c) && rm y.c", "sub/x.c|y.c", 0 },
    { "nested subshells", "(cd a; (cd b; rm x); rm y); rm z", "a/b/x|a/y|z",
        0 },
    { "brace group", "{ cd sub; rm x; }; rm y", "sub/x|sub/y", 0 },
    { "brace group in a pipeline", "{ cd sub; rm x; } | cat; rm y", "sub/x|y",
        0 },
    { "cd in a pipeline", "cd sub | cat; rm x", "x", 0 },
    { "cd in the background", "cd sub & rm x", "x", 0 },
    { "command substitution", "echo $(cd sub; pwd) && rm x", "x", 0 },
    { "heredoc body",
        "cat > notes.txt <<'EOF'\ncd elsewhere\nrm a.c\nEOF\n"
        "rm x.c",
        "notes.txt|x.c", 0 },
    { "heredoc with tabs", "cat <<-END > o\n\tcd a\n\tEND\nrm x", "o|x", 0 },
    { "heredoc in a substitution",
        "git commit -m \"$(cat <<'EOF'\nIt's (1) done; cd x\nEOF\n)\" && "
        "rm y",
        "y", 0 },
    { "pushd and popd", "pushd sub && rm x && popd && rm y", "sub/x|y", 0 },
    { "nested pushd", "pushd a; pushd b; rm x; popd; rm y; popd; rm z",
        "a/b/x|a/y|z", 0 },
    { "pushd -", "cd a && pushd - && rm x && popd && rm y", "x|a/y", 0 },
    { "case arms", "case $x in a) rm y;; (b) touch z;; esac; rm w", "y|z|w",
        0 },
    { "pushd swaps", "pushd a && pushd && rm x && pushd && rm y", "x|a/y", 0 },
    /* a directory it cannot know: relative paths after it are left out */
    { "cd -", "cd - && rm x.c", "", 1 },
    { "cd home", "cd && rm x.c", "", 1 },
    { "cd ~", "cd ~/src && rm x.c", "", 1 },
    { "cd $VAR", "cd $DIR && rm x.c /abs/y.c", "/abs/y.c", 1 },
    { "cd \"$VAR\"", "cd \"$DIR\" && rm x.c", "", 1 },
    { "cd $(...)", "cd $(git rev-parse --show-toplevel) && rm a b", "", 2 },
    { "cd `...`", "cd `pwd`/x && rm a", "", 1 },
    { "cd glob", "cd sr* && rm x", "", 1 },
    { "cd two operands", "cd a b && rm x", "", 1 },
    { "redirect after an unknown cd", "cd $D; echo > x", "", 1 },
    { "absolute cd after unknown", "cd $D && cd /r && rm x", "/r/x", 0 },
    { "relative cd after unknown", "cd $D && cd sub && rm x", "", 1 },
    { "unknown in a subshell", "(cd $D && rm x); rm y", "y", 1 },
    { "cd in if", "if [ -d sub ]; then cd sub; fi; rm x", "", 1 },
    { "cd in a loop", "for d in a b; do cd $d; done; rm x", "", 1 },
    { "subshell in a loop", "for d in a b; do (cd $d && rm x); done; rm y", "y",
        1 },
    { "cd as the last pipeline stage", "echo | cd sub; rm x", "", 1 },
    { "popd of an unknown stack", "popd; rm x", "", 1 },
    { "pushd with no directory", "pushd && rm x", "", 1 },
    { "pushd +1", "pushd a; pushd +1; rm x", "", 1 },
    /* git overwrites files: checkout's paths after "--", restore's */
    { "git checkout --", "git checkout -- a.c b.c", "a.c|b.c", 0 },
    { "git checkout REV --", "git checkout main~2 -- src/a.c", "src/a.c", 0 },
    { "git checkout options --", "git checkout -f --ours -- a.c", "a.c", 0 },
    { "git checkout after cd", "cd src && git checkout HEAD -- a.c", "src/a.c",
        0 },
    { "git -C", "git -C src checkout -- a.c", "src/a.c", 0 },
    { "git -C twice", "git -C a -C ../b checkout -- x", "b/x", 0 },
    { "git -C absolute", "git -C /r checkout -- x", "/r/x", 0 },
    { "git -C unknown", "git -C \"$D\" checkout -- x /abs/y", "/abs/y", 1 },
    { "git -c before the command", "git -c core.x=1 checkout -- x", "x", 0 },
    { "git restore", "git restore a.c b.c", "a.c|b.c", 0 },
    { "git restore --source", "git restore --source HEAD~1 a.c", "a.c", 0 },
    { "git restore --source=", "git restore --source=HEAD~1 a.c", "a.c", 0 },
    { "git restore -s", "git restore -s main -W a.c", "a.c", 0 },
    { "git restore -sREV", "git restore -qsmain a.c", "a.c", 0 },
    { "git restore --worktree --staged", "git restore -SW a.c", "a.c", 0 },
    { "git restore -- -dash", "git restore -- -a.c", "-a.c", 0 },
    { "git restore pathspec magic", "git restore ':(top)a.c' b.c", "b.c", 0 },
    { "git restore after an unknown cd", "cd $D && git restore a.c", "", 1 },
    /* ... and nothing else git does */
    { "git restore --staged: the index", "git restore --staged a.c", "", 0 },
    { "git restore -S", "git restore -S a.c", "", 0 },
    { "git checkout a branch", "git checkout main", "", 0 },
    { "git checkout a file without --", "git checkout a.c", "", 0 },
    { "git checkout -b", "git checkout -b topic origin/main", "", 0 },
    { "git diff --", "git diff -- a.c", "", 0 },
    { "git log --", "git log --oneline -- a.c", "", 0 },
    { "git status", "git status --short", "", 0 },
    { "git show", "git show HEAD:a.c > a.c", "a.c", 0 },
    { "git --work-tree", "git --work-tree=/w checkout -- a.c", "", 0 },
    { "git --git-dir", "git --git-dir /w/.git restore a.c", "", 0 },
    { "git pathspec from a file", "git restore --pathspec-from-file=list.txt",
        "", 1 },
    /* git rm and git mv write their files (not rm --cached) */
    { "git rm", "git rm -r -f src/old a.c", "src/old|a.c", 0 },
    { "git rm --cached", "git rm --cached a.c", "", 0 },
    { "git mv", "cd src && git mv a.c b.c", "src/a.c|src/b.c", 0 },
    { "git checkout in a commit message", "git commit -m 'git checkout -- x'",
        "", 0 },
};

static char *
joined(char **v, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(v[i]) + 1;
    char *s = xcalloc(len, 1), *at = s;
    for (size_t i = 0; i < n; i++) {
        if (i)
            *at++ = '|';
        size_t l = strlen(v[i]);
        memcpy(at, v[i], l);
        at += l;
    }
    return s;
}

static void
free_all(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* The discards of a shell command: "COMMAND@DIR:WHAT:SPEC,SPEC" each,
 * joined with '|'; WHAT is T (tracked), U (untracked), ? (maybe). */
struct discard_case {
    const char *cmd, *want;
    size_t unknown;
};

static const struct discard_case discard_cases[] = {
    { "git stash", "git stash@:T:", 0 },
    { "git stash push", "git stash@:T:", 0 },
    { "git stash -u", "git stash@:TU:", 0 },
    { "git stash push --include-untracked -m wip", "git stash@:TU:", 0 },
    { "git stash --all", "git stash@:TU:", 0 },
    { "git stash push -m 'wip' -- src a.c", "git stash@:T:src,a.c", 0 },
    { "git stash push src/x.c", "git stash@:T:src/x.c", 0 },
    { "git stash -mwip src/x.c", "git stash@:T:src/x.c", 0 },
    { "git stash save 'my work'", "git stash@:T:", 0 },
    { "git stash -k", "git stash@:T:", 0 },
    { "git stash list", "", 0 },
    { "git stash pop", "", 0 },
    { "git stash show -p", "", 0 },
    { "git stash -p", "", 0 },
    { "cd src && git stash", "git stash@src:T:", 0 },
    { "git -C /w/repo stash", "git stash@/w/repo:T:", 0 },
    { "cd $D && git stash", "", 1 },
    { "git reset --hard", "git reset --hard@:T:", 0 },
    { "git reset --hard origin/main", "git reset --hard@:T:", 0 },
    { "git reset HEAD~1", "", 0 },
    { "git reset -- a.c", "", 0 },
    { "git checkout .", "git checkout@:T?:.", 0 },
    { "git checkout -- .", "git checkout@:T:.", 0 },
    { "git checkout src/a.c", "git checkout@:T?:src/a.c", 0 },
    { "git checkout main", "git checkout@:T?:main", 0 },
    { "git checkout HEAD~1 a.c b.c", "git checkout@:T?:HEAD~1,a.c,b.c", 0 },
    { "git checkout main -- src", "git checkout@:T:src", 0 },
    { "git checkout -f", "git checkout@:T:", 0 },
    { "git checkout -f main", "git checkout@:T:", 0 },
    { "git checkout --force topic", "git checkout@:T:", 0 },
    { "git checkout -b topic", "", 0 },
    { "git checkout -B topic origin/main", "", 0 },
    { "git checkout -p a.c", "", 0 },
    { "git checkout -- $F", "", 1 },
    { "git checkout -- ':/src'", "git checkout@:T::/src", 0 },
    { "git restore .", "git restore@:T:.", 0 },
    { "git restore --worktree --staged src", "git restore@:T:src", 0 },
    { "git restore --staged a.c", "", 0 },
    { "git restore -p a.c", "", 0 },
    { "git switch topic", "", 0 },
    { "git switch -f topic", "git switch -f@:T:", 0 },
    { "git switch --discard-changes topic", "git switch -f@:T:", 0 },
    { "git clean -fd", "git clean -f@:U:", 0 },
    { "git clean -f -x -e '*.o' -- build", "git clean -f@:U:build", 0 },
    { "git clean -nfd", "", 0 },
    { "git clean -f --dry-run", "", 0 },
    { "git clean -d", "", 0 },
    { "git status; git diff", "", 0 },
    { "echo 'git stash'", "", 0 },
    { "git add -A && git stash && git stash pop", "git stash@:T:", 0 },
    { "git --git-dir=/x/.git stash", "", 0 },
    /* plain paths: rm's, git worktree remove --force's */
    { "rm -rf src build", "rm@:TU:src,build", 0 },
    { "cd src && rm -f a.c -- -b.c", "rm@src:TU:a.c,-b.c", 0 },
    { "rm", "", 0 },
    { "git worktree remove --force ../r.airspace/alice",
        "git worktree remove --force@:TU:../r.airspace/alice", 0 },
    { "git worktree remove ../r.airspace/alice", "", 0 },
    { "git worktree list", "", 0 },
};

static char *
discards_text(const struct hook_discard *d, size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s", "");
    for (size_t i = 0; i < n; i++) {
        strbuf_addf(&sb, "%s%s@%s:%s%s%s:", i ? "|" : "", d[i].command,
            d[i].dir, d[i].what & HOOK_DISCARD_TRACKED ? "T" : "",
            d[i].what & HOOK_DISCARD_UNTRACKED ? "U" : "",
            d[i].maybe ? "?" : "");
        for (size_t k = 0; k < d[i].nspec; k++)
            strbuf_addf(&sb, "%s%s", k ? "," : "", d[i].spec[k]);
    }
    return sb.s;
}

static void
test_discards(void)
{
    for (size_t c = 0; c < sizeof(discard_cases) / sizeof(*discard_cases);
         c++) {
        const struct discard_case *t = &discard_cases[c];
        TEST_BEGIN(t->cmd);
        struct hook_discard *d;
        size_t n = hook_shell_discards(t->cmd, &d);
        char *got = discards_text(d, n);
        CHECK_STR(got, t->want);
        free(got);
        hook_discards_free(d, n);
        char **v;
        size_t unknown = 99;
        n = hook_shell_scan(t->cmd, &v, &unknown);
        CHECK_INT(unknown, t->unknown);
        free_all(v, n);
        TEST_END();
    }
}

static void
test_shell(void)
{
    for (size_t c = 0; c < sizeof(shell_cases) / sizeof(*shell_cases); c++) {
        const struct shell_case *t = &shell_cases[c];
        TEST_BEGIN(t->name);
        char **v;
        size_t unknown = 99;
        size_t n = hook_shell_scan(t->cmd, &v, &unknown);
        char *got = joined(v, n);
        CHECK_STR(got, t->want);
        CHECK_INT(unknown, t->unknown);
        free(got);
        free_all(v, n);
        /* hook_shell_writes gives the same paths */
        n = hook_shell_writes(t->cmd, &v);
        got = joined(v, n);
        CHECK_STR(got, t->want);
        free(got);
        free_all(v, n);
        TEST_END();
    }
}

/* times copies of unit, then tail: a new string */
static char *
repeat(const char *unit, size_t times, const char *tail)
{
    size_t ul = strlen(unit), tl = strlen(tail);
    char *s = xmalloc(ul * times + tl + 1);
    for (size_t i = 0; i < times; i++)
        memcpy(s + i * ul, unit, ul);
    memcpy(s + ul * times, tail, tl + 1);
    return s;
}

static void
test_shell_edges(void)
{
    char **v;
    size_t unknown;
    size_t n = hook_shell_scan("", &v, &unknown);
    CHECK_INT(n, 0);
    CHECK_INT(unknown, 0);
    free_all(v, n);
    /* unbalanced input ends quietly */
    const char *bad[] = { "rm \"x", "cd 'a", "echo $(cd a", "(cd a",
        "cd a)) && rm x", "}", "cat <<EOF", "rm x \\", "echo `", "esac )",
        "cd a; ((((((((((((((((((((((((((((((((((((((((((((((((((((((((rm x",
        NULL };
    for (size_t i = 0; bad[i]; i++) {
        n = hook_shell_scan(bad[i], &v, &unknown);
        free_all(v, n);
    }
    /* deep nesting is bounded */
    char *deep = repeat("$((", 5000, "cd a");
    n = hook_shell_scan(deep, &v, &unknown);
    free_all(v, n);
    free(deep);
    deep = repeat("( { ", 5000, "cd a; rm x");
    n = hook_shell_scan(deep, &v, &unknown);
    CHECK_INT(n + unknown, 1);
    free_all(v, n);
    free(deep);
}

static void
test_patch(void)
{
    char **v;
    size_t n = hook_patch_paths("*** Begin Patch\n*** Update File: a.c\n@@\n"
                                "*** Delete File: b.c\n*** Add File: c.c\n"
                                "*** Move to: d.c\n*** End Patch\n",
        &v);
    char *got = joined(v, n);
    CHECK_STR(got, "a.c|b.c|c.c|d.c");
    free(got);
    free_all(v, n);
}

#define TASK_NOTE                                                              \
    "[SYSTEM NOTIFICATION - NOT USER INPUT]\nThis is an automated "            \
    "background-task event, NOT a message from the user.\n\n"                  \
    "<task-notification>\n<task-id>a862d5c8ec3de4226</task-id>\n"              \
    "<tool-use-id>toolu_0_udz9dnjn</tool-use-id>\n<status>completed</"         \
    "status>\n"                                                                \
    "<summary>Agent \"edit files\" finished</summary>\n"                       \
    "<result>sub done</result>\n</task-notification>"

static const struct prompt_case {
    const char *name, *prompt;
    const char *want; /* NULL: not the user's */
} prompt_cases[] = {
    { "a plain prompt", "fix the dial path", "fix the dial path" },
    { "Gemini's hook context goes",
        "<hook_context>airspace crew update</hook_context>\nfix the dial path",
        "\nfix the dial path" },
    { "an unclosed hook context stays", "<hook_context>fix it",
        "<hook_context>fix it" },
    /* as Claude Code 2.1.331 sent it when a background agent finished */
    { "a task notification after the tools summary",
        "<tools-used-before-summary>Edit</"
        "tools-used-before-summary>\n" TASK_NOTE,
        NULL },
    { "a task notification alone", TASK_NOTE, NULL },
    { "in a system reminder",
        "<system-reminder>\n" TASK_NOTE "\n</system-reminder>", NULL },
    { "in a system reminder with an id",
        "<system-reminder id=\"0123456789abcdef\">\n" TASK_NOTE, NULL },
    { "the notification element alone",
        "<task-notification>\n<task-id>x</task-id>\n</task-notification>",
        NULL },
    { "the user quoting one later is the user's",
        "why did you get [SYSTEM NOTIFICATION - NOT USER INPUT]?",
        "why did you get [SYSTEM NOTIFICATION - NOT USER INPUT]?" },
    { "a tools summary before the user's words",
        "<tools-used-before-summary>Edit</tools-used-before-summary>\nfix it",
        "\nfix it" },
};

static void
test_prompts(void)
{
    for (size_t i = 0; i < sizeof(prompt_cases) / sizeof(*prompt_cases); i++) {
        const struct prompt_case *c = &prompt_cases[i];
        TEST_BEGIN(c->name);
        const char *got = hook_prompt_words(c->prompt);
        if (c->want)
            CHECK_STR(got, c->want);
        else
            CHECK(got == NULL);
        TEST_END();
    }
}

int
main(void)
{
    test_shell();
    test_discards();
    test_prompts();
    TEST_RUN("shell edges", test_shell_edges);
    TEST_RUN("apply_patch", test_patch);
    return test_done();
}

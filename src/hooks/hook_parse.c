#include "hooks/hook_parse.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "util/banned.h"

/* Paths an apply_patch (Codex) touches: "*** Update File: x" and kin. */
size_t
hook_patch_paths(const char *patch, char ***out)
{
    static const char *const heads[] = { "*** Update File: ", "*** Add File: ",
        "*** Delete File: ", "*** Move to: " };
    size_t n = 0, a = 0;
    *out = NULL;
    for (const char *l = patch; l && *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        for (size_t k = 0; k < 4; k++) {
            size_t hl = strlen(heads[k]);
            if (len > hl && !strncmp(l, heads[k], hl)) {
                ALLOC_GROW(*out, n + 1, a);
                (*out)[n++] = xstrndup(l + hl, len - hl);
            }
        }
        l = nl ? nl + 1 : NULL;
    }
    return n;
}

/* ---- prompts ---- */

static const char *
skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return s;
}

/* Past the element <tag>...</tag> at s (after blanks), or s. */
static const char *
skip_element(const char *s, const char *tag, const char *end)
{
    const char *p = skip_space(s);
    const char *e;
    if (strncmp(p, tag, strlen(tag)) || !(e = strstr(p, end)))
        return s;
    return e + strlen(end);
}

const char *
hook_prompt_words(const char *prompt)
{
    /* Gemini CLI: the context hooks gave it, then the user's prompt */
    const char *p = skip_element(prompt, "<hook_context>", "</hook_context>");
    if (p != prompt)
        return p;
    /* Claude Code: the tools a background task used, then its
     * notification, as the client's own reading of a prompt tells one */
    const char *words = skip_element(
        prompt, "<tools-used-before-summary>", "</tools-used-before-summary>");
    p = skip_space(words);
    if (!strncmp(p, "<system-reminder", 16) && (p[16] == '>' || p[16] == ' ')) {
        const char *gt = strchr(p, '>');
        p = gt ? skip_space(gt + 1) : p;
    }
    if (!strncmp(p, "[SYSTEM NOTIFICATION - NOT USER INPUT]", 38) ||
        !strncmp(p, "<task-notification>", 19))
        return NULL;
    return words;
}

/* ---- shell commands: words and operators ---- */

#define SH_TOKENS_MAX 16384 /* more and the rest is not read */
#define SH_DEPTH_MAX 32     /* nested substitutions */
#define SH_HEREDOCS_MAX 16  /* pending on one line */
#define SH_FRAMES_MAX 32    /* nested subshells and groups */
#define SH_DIRS_MAX 16      /* pushd stack */

enum sh_kind {
    SH_WORD,
    SH_REDIR, /* its target is the next word */
    SH_SEP,   /* ';', newline, ";;" */
    SH_AND,
    SH_OR,
    SH_PIPE,
    SH_BG,
    SH_OPEN,
    SH_CLOSE,
};

enum sh_redir { SH_IN, SH_OUT, SH_DUP };

struct sh_tok {
    enum sh_kind kind;
    enum sh_redir redir;
    bool lit;   /* a word with nothing to expand: no $, `, ~, glob */
    char *text; /* a word, quotes removed */
};

struct sh_buf {
    char *s;
    size_t n, a;
};

struct sh_lex {
    const char *s;
    size_t i, len;
    struct sh_tok *tok;
    size_t nt, at;
    unsigned quiet;  /* inside a substitution: read, nothing kept */
    bool stopped;    /* too many tokens or too deep: the rest is unread */
    bool want_delim; /* the next word is a here-document's delimiter */
    bool delim_tabs;
    struct {
        char *delim;
        bool tabs;
    } here[SH_HEREDOCS_MAX];
    size_t nhere;
};

static void
buf_add(struct sh_buf *b, const char *s, size_t n)
{
    ALLOC_GROW(b->s, b->n + n + 1, b->a);
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void
lex_push(struct sh_lex *lx, enum sh_kind kind, enum sh_redir redir,
    struct sh_buf *word, bool lit)
{
    if (lx->quiet)
        return;
    if (lx->nt >= SH_TOKENS_MAX) {
        lx->stopped = true;
        return;
    }
    ALLOC_GROW(lx->tok, lx->nt + 1, lx->at);
    struct sh_tok *t = &lx->tok[lx->nt++];
    t->kind = kind;
    t->redir = redir;
    t->lit = lit;
    t->text = word ? xstrndup(word->s ? word->s : "", word->n) : NULL;
}

/* After a newline: skip the bodies of the here-documents it started. */
static void
lex_heredocs(struct sh_lex *lx)
{
    for (size_t h = 0; h < lx->nhere; h++) {
        const char *d = lx->here[h].delim;
        size_t dl = strlen(d);
        while (lx->i < lx->len) {
            const char *l = lx->s + lx->i;
            const char *nl = memchr(l, '\n', lx->len - lx->i);
            size_t ll = nl ? (size_t)(nl - l) : lx->len - lx->i;
            lx->i += ll + (nl ? 1 : 0);
            while (lx->here[h].tabs && ll && *l == '\t')
                l++, ll--;
            if (ll == dl && !memcmp(l, d, dl))
                break;
        }
        free(lx->here[h].delim);
    }
    lx->nhere = 0;
}

static void lex_run(struct sh_lex *lx, unsigned depth, bool sub);

/* "$(" ... ")" (or "<(", ">("): read to the matching ")" and keep it raw. */
static void
lex_subst(struct sh_lex *lx, unsigned depth, struct sh_buf *b)
{
    size_t from = lx->i;
    lx->i += 2;
    if (depth >= SH_DEPTH_MAX) {
        lx->stopped = true;
        lx->i = lx->len;
    } else {
        lx->quiet++;
        lex_run(lx, depth + 1, true);
        lx->quiet--;
    }
    buf_add(b, lx->s + from, lx->i - from);
}

/* From lx->i to the character after the first unescaped c. */
static void
lex_until(struct sh_lex *lx, char c, struct sh_buf *b)
{
    size_t from = lx->i++;
    while (lx->i < lx->len && lx->s[lx->i] != c)
        lx->i += lx->s[lx->i] == '\\' && lx->i + 1 < lx->len ? 2 : 1;
    if (lx->i < lx->len)
        lx->i++;
    buf_add(b, lx->s + from, lx->i - from);
}

static bool
sh_breaks(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' ||
           c == '|' || c == '<' || c == '>' || c == '(' || c == ')';
}

/* "$..." in or out of double quotes: kept raw, marks the word expanded. */
static void
lex_dollar(struct sh_lex *lx, unsigned depth, struct sh_buf *b)
{
    char next = lx->i + 1 < lx->len ? lx->s[lx->i + 1] : '\0';
    if (next == '(') {
        lex_subst(lx, depth, b);
    } else if (next == '{') {
        lex_until(lx, '}', b); /* from the '$': "${...}" */
    } else {
        buf_add(b, "$", 1);
        lx->i++;
    }
}

/* One word: quotes removed, substitutions kept raw. */
static void
lex_word(struct sh_lex *lx, unsigned depth)
{
    struct sh_buf b = { 0 };
    bool lit = true;
    const char *s = lx->s;
    /* an fd number before a redirection is no word: 2>, 1>> */
    size_t j = lx->i;
    while (j < lx->len && s[j] >= '0' && s[j] <= '9')
        j++;
    if (j > lx->i && j < lx->len && (s[j] == '<' || s[j] == '>')) {
        lx->i = j;
        return;
    }
    buf_add(&b, "", 0);
    while (lx->i < lx->len && !lx->stopped) {
        char c = s[lx->i], next = lx->i + 1 < lx->len ? s[lx->i + 1] : '\0';
        if ((c == '<' || c == '>') && next == '(' && b.n == 0) {
            lit = false;
            lex_subst(lx, depth, &b);
        } else if (sh_breaks(c)) {
            break;
        } else if (c == '\\') {
            if (next && next != '\n')
                buf_add(&b, &next, 1);
            lx->i += next ? 2 : 1;
        } else if (c == '\'') {
            const char *end = memchr(s + lx->i + 1, '\'', lx->len - lx->i - 1);
            size_t l =
                end ? (size_t)(end - s) - lx->i - 1 : lx->len - lx->i - 1;
            buf_add(&b, s + lx->i + 1, l);
            lx->i += l + (end ? 2 : 1);
        } else if (c == '"') {
            lx->i++;
            while (lx->i < lx->len && s[lx->i] != '"' && !lx->stopped) {
                char d = s[lx->i];
                char e = lx->i + 1 < lx->len ? s[lx->i + 1] : '\0';
                if (d == '\\' && e && strchr("$`\"\\\n", e)) {
                    if (e != '\n')
                        buf_add(&b, &e, 1);
                    lx->i += 2;
                } else if (d == '$') {
                    lit = false;
                    lex_dollar(lx, depth, &b);
                } else if (d == '`') {
                    lit = false;
                    lex_until(lx, '`', &b);
                } else {
                    buf_add(&b, &d, 1);
                    lx->i++;
                }
            }
            if (lx->i < lx->len)
                lx->i++;
        } else if (c == '$') {
            lit = false;
            lex_dollar(lx, depth, &b);
        } else if (c == '`') {
            lit = false;
            lex_until(lx, '`', &b);
        } else {
            if ((c == '~' && b.n == 0) || c == '*' || c == '?' || c == '[')
                lit = false;
            buf_add(&b, &c, 1);
            lx->i++;
        }
    }
    if (lx->want_delim) {
        lx->want_delim = false;
        if (lx->nhere < SH_HEREDOCS_MAX) {
            lx->here[lx->nhere].delim = xstrdup(b.s);
            lx->here[lx->nhere++].tabs = lx->delim_tabs;
        }
    }
    lex_push(lx, SH_WORD, SH_IN, &b, lit);
    free(b.s);
}

/* The operator at lx->i, if any: its length, kind and redirection. */
static size_t
lex_op(const char *p, size_t left, enum sh_kind *kind, enum sh_redir *redir)
{
    static const struct {
        const char *op;
        enum sh_kind kind;
        enum sh_redir redir;
    } ops[] = {
        { ";;&", SH_SEP, SH_IN },
        { ";;", SH_SEP, SH_IN },
        { ";&", SH_SEP, SH_IN },
        { ";", SH_SEP, SH_IN },
        { "&&", SH_AND, SH_IN },
        { "&>>", SH_REDIR, SH_OUT },
        { "&>", SH_REDIR, SH_OUT },
        { "&", SH_BG, SH_IN },
        { "||", SH_OR, SH_IN },
        { "|&", SH_PIPE, SH_IN },
        { "|", SH_PIPE, SH_IN },
        { ">>", SH_REDIR, SH_OUT },
        { ">|", SH_REDIR, SH_OUT },
        { ">&", SH_REDIR, SH_DUP },
        { ">", SH_REDIR, SH_OUT },
        { "<<<", SH_REDIR, SH_IN },
        { "<<-", SH_REDIR, SH_IN },
        { "<<", SH_REDIR, SH_IN },
        { "<>", SH_REDIR, SH_OUT },
        { "<&", SH_REDIR, SH_IN },
        { "<", SH_REDIR, SH_IN },
        { "(", SH_OPEN, SH_IN },
        { ")", SH_CLOSE, SH_IN },
    };
    for (size_t k = 0; k < sizeof(ops) / sizeof(*ops); k++) {
        size_t l = strlen(ops[k].op);
        if (l <= left && !memcmp(p, ops[k].op, l)) {
            *kind = ops[k].kind;
            *redir = ops[k].redir;
            return l;
        }
    }
    return 0;
}

/* Read tokens to the end, or (sub) to the ")" closing a substitution. */
static void
lex_run(struct sh_lex *lx, unsigned depth, bool sub)
{
    size_t parens = 0;
    while (lx->i < lx->len && !lx->stopped) {
        const char *p = lx->s + lx->i;
        size_t left = lx->len - lx->i;
        enum sh_kind kind;
        enum sh_redir redir;
        size_t l;
        if (*p == ' ' || *p == '\t') {
            lx->i++;
        } else if (*p == '\\' && left > 1 && p[1] == '\n') {
            lx->i += 2;
        } else if (*p == '\n') {
            lx->i++;
            lex_push(lx, SH_SEP, SH_IN, NULL, true);
            lex_heredocs(lx);
        } else if (*p == '#') {
            const char *nl = memchr(p, '\n', left);
            lx->i += nl ? (size_t)(nl - p) : left;
        } else if ((*p == '<' || *p == '>') && left > 1 && p[1] == '(') {
            lex_word(lx, depth);
        } else if ((l = lex_op(p, left, &kind, &redir)) > 0) {
            if (kind == SH_CLOSE && sub && parens == 0) {
                lx->i++;
                return;
            }
            parens += kind == SH_OPEN;
            parens -= kind == SH_CLOSE && parens;
            if (kind == SH_REDIR && p[0] == '<' && l > 1 && p[1] == '<' &&
                (l == 2 || p[2] == '-')) {
                lx->want_delim = true;
                lx->delim_tabs = l == 3;
            }
            lx->i += l;
            lex_push(lx, kind, redir, NULL, true);
        } else {
            lex_word(lx, depth);
        }
    }
}

/* ---- shell commands: where they run ---- */

/*
 * The directory state of one shell: cwd and OLDPWD as paths relative to
 * the command's start ("" is the start) or absolute, NULL when unknown;
 * pushd's stack (entries pushed within the command only).
 */
struct sh_frame {
    char *cwd, *old;
    char *dirs[SH_DIRS_MAX];
    size_t ndirs;
    unsigned compound; /* open if, while, until, for, select, case */
    unsigned cases;    /* open case: ')' ends a pattern */
    bool brace;        /* a { } group, in the same shell */
    bool piped;        /* the group follows a '|' */
};

struct sh_walk {
    struct sh_frame fr[SH_FRAMES_MAX];
    size_t nfr, excess; /* excess: open beyond SH_FRAMES_MAX */
    char **out;
    size_t n, a;
    size_t unknown;
    struct hook_discard *disc;
    size_t ndisc, adisc;
};

static char *
sh_dup(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

static void
frame_clear(struct sh_frame *f)
{
    free(f->cwd);
    free(f->old);
    for (size_t k = 0; k < f->ndirs; k++)
        free(f->dirs[k]);
    f->cwd = f->old = NULL;
    f->ndirs = 0;
}

/* Nothing about the directories is known any more. */
static void
frame_lose(struct sh_frame *f)
{
    frame_clear(f);
}

static void
frame_copy(struct sh_frame *to, const struct sh_frame *from)
{
    to->cwd = sh_dup(from->cwd);
    to->old = sh_dup(from->old);
    to->ndirs = from->ndirs;
    for (size_t k = 0; k < from->ndirs; k++)
        to->dirs[k] = sh_dup(from->dirs[k]);
}

/* cd to dir (taken; NULL unknown): OLDPWD is the old cwd. */
static void
frame_cd(struct sh_frame *f, char *dir)
{
    free(f->old);
    f->old = f->cwd;
    f->cwd = dir;
}

static void
walk_open(struct sh_walk *w, bool brace, bool piped)
{
    if (w->excess || w->nfr == SH_FRAMES_MAX) {
        w->excess++;
        frame_lose(&w->fr[w->nfr - 1]);
        return;
    }
    struct sh_frame *up = &w->fr[w->nfr - 1], *f = &w->fr[w->nfr++];
    memset(f, 0, sizeof(*f));
    frame_copy(f, up);
    f->brace = brace;
    f->piped = piped;
    f->compound = brace ? up->compound : 0; /* a subshell is sequential */
}

/* Close a subshell (its cd stays in it) or a group (next: what follows). */
static void
walk_close(struct sh_walk *w, bool brace, enum sh_kind next)
{
    if (w->excess) {
        w->excess--;
        return;
    }
    struct sh_frame *f = &w->fr[w->nfr - 1];
    if (w->nfr == 1 || f->brace != brace)
        return; /* unmatched */
    struct sh_frame *up = &w->fr[w->nfr - 2];
    bool staged = next == SH_PIPE || next == SH_BG;
    if (brace && f->piped && !staged) {
        frame_lose(up); /* last stage of a pipeline: zsh runs it here */
    } else if (brace && !f->piped && !staged) {
        frame_clear(up); /* the group ran in this shell: its state moves */
        up->cwd = f->cwd;
        up->old = f->old;
        memcpy(up->dirs, f->dirs, sizeof(f->dirs));
        up->ndirs = f->ndirs;
        f->cwd = f->old = NULL;
        f->ndirs = 0;
    }
    frame_clear(f);
    w->nfr--;
}

/*
 * dir as cd reads it from base: a new path, or NULL when base is unknown
 * and dir relative. ".." drops the component before it, as a shell's
 * logical cd does, unless physical (cd -P).
 */
static char *
sh_chdir(const char *base, const char *dir, bool physical)
{
    if (dir[0] != '/' && !base)
        return NULL;
    struct sh_buf b = { 0 };
    bool abs = dir[0] == '/' || (base && base[0] == '/');
    buf_add(&b, abs ? "/" : "", abs ? 1 : 0);
    size_t root = b.n;
    for (int pass = dir[0] == '/' ? 1 : 0; pass < 2; pass++) {
        const char *p = pass ? dir : base;
        while (*p) {
            const char *e = strchr(p, '/');
            size_t l = e ? (size_t)(e - p) : strlen(p);
            size_t last = b.n;
            while (last > root && b.s[last - 1] != '/')
                last--;
            bool dotdot_last = b.n - last == 2 && !memcmp(b.s + last, "..", 2);
            if (l == 0 || (l == 1 && p[0] == '.')) {
                /* nothing */
            } else if (l == 2 && !memcmp(p, "..", 2) && !physical &&
                       (b.n > root ? !dotdot_last : abs)) {
                b.n = last > root ? last - 1 : root; /* drop "/name" */
                b.s[b.n] = '\0';
            } else {
                if (b.n > root)
                    buf_add(&b, "/", 1);
                buf_add(&b, p, l);
            }
            p += l + (e ? 1 : 0);
        }
    }
    if (!b.s)
        buf_add(&b, "", 0);
    return b.s;
}

/* A path the command writes, as the shell at cwd sees it. */
static void
walk_emit(struct sh_walk *w, const char *cwd, const char *path)
{
    if (!*path)
        return;
    char *p;
    if (path[0] == '/')
        p = xstrdup(path);
    else if (!cwd) {
        w->unknown++;
        return;
    } else if (!*cwd)
        p = xstrdup(path);
    else
        p = xasprintf("%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", path);
    ALLOC_GROW(w->out, w->n + 1, w->a);
    w->out[w->n++] = p;
}

/* cd, pushd, popd with their arguments. */
static void
walk_cd(struct sh_frame *f, const char *cmd, struct sh_tok **arg, size_t na)
{
    bool physical = false, opts = true, odd = false;
    struct sh_tok *dir[2];
    size_t nd = 0;
    for (size_t k = 0; k < na; k++) {
        const char *a = arg[k]->text;
        if (opts && a[0] == '-' && a[1]) {
            if (!strcmp(a, "--"))
                opts = false;
            else if (strcmp(cmd, "cd"))
                odd = true; /* pushd -n, +N, -N */
            else
                physical = physical || strchr(a, 'P');
            continue;
        }
        opts = false;
        if (a[0] == '+' && strcmp(cmd, "cd"))
            odd = true;
        if (nd < 2)
            dir[nd] = arg[k];
        nd++;
    }
    if (!strcmp(cmd, "popd")) {
        if (odd || nd)
            frame_lose(f);
        else
            frame_cd(f, f->ndirs ? f->dirs[--f->ndirs] : NULL);
        return;
    }
    if (odd || nd > 1) {
        frame_lose(f);
        return;
    }
    if (!strcmp(cmd, "pushd") && nd == 0) { /* swap with the top */
        if (!f->ndirs) {
            frame_cd(f, NULL);
            return;
        }
        char *top = f->dirs[f->ndirs - 1];
        f->dirs[f->ndirs - 1] = sh_dup(f->cwd);
        frame_cd(f, top);
        return;
    }
    char *to;
    if (nd == 0) /* cd: $HOME */
        to = NULL;
    else if (!strcmp(dir[0]->text, "-"))
        to = sh_dup(f->old);
    else if (!dir[0]->lit || !dir[0]->text[0])
        to = NULL;
    else
        to = sh_chdir(f->cwd, dir[0]->text, physical);
    if (!strcmp(cmd, "pushd")) {
        if (f->ndirs == SH_DIRS_MAX) {
            free(to);
            frame_lose(f);
            return;
        }
        f->dirs[f->ndirs++] = sh_dup(f->cwd);
    }
    frame_cd(f, to);
}

static bool
sh_assignment(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return false;
    while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
           (*s >= '0' && *s <= '9') || *s == '_')
        s++;
    return *s == '=';
}

static bool
sh_fd(const char *s)
{
    if (!strcmp(s, "-"))
        return true;
    while (*s >= '0' && *s <= '9')
        s++;
    return !*s;
}

/* Whether a is the long option name, alone or as "name=value"; *value
 * says which. */
static bool
sh_long(const char *a, const char *name, bool *value)
{
    size_t l = strlen(name);
    if (strncmp(a, name, l) || (a[l] && a[l] != '='))
        return false;
    *value = a[l] == '=';
    return true;
}

static void
disc_release(struct hook_discard *d)
{
    free(d->dir);
    free(d->command);
    for (size_t i = 0; i < d->nspec; i++)
        free(d->spec[i]);
    free(d->spec);
}

/* Drop the last discard: none of its paths could be read. */
static void
disc_pop(struct sh_walk *w)
{
    disc_release(&w->disc[--w->ndisc]);
}

/* A new discard for the git command sub, run in dir (taken). */
static struct hook_discard *
disc_add(struct sh_walk *w, char *dir, const char *sub, unsigned what)
{
    ALLOC_GROW(w->disc, w->ndisc + 1, w->adisc);
    struct hook_discard *d = &w->disc[w->ndisc++];
    memset(d, 0, sizeof(*d));
    d->dir = dir;
    d->command = xasprintf("git %s", sub);
    d->what = what;
    return d;
}

/* A pathspec of d: a word the shell would expand past reading ($, `) is
 * not one, and its discard is counted unknown. */
static void
disc_spec(struct sh_walk *w, struct hook_discard *d, const struct sh_tok *t)
{
    if (!t->lit && strpbrk(t->text, "$`")) {
        w->unknown++;
        return;
    }
    if (!t->text[0])
        return;
    ALLOC_GROW(d->spec, d->nspec + 1, d->aspec);
    d->spec[d->nspec++] = xstrdup(t->text);
}

/*
 * git checkout and git restore. The files they overwrite are writes: the
 * paths after "--" of a checkout (`git checkout -- PATH`, `git checkout
 * REV -- PATH`), and the paths of a restore unless it restores the index
 * alone (--staged without --worktree). Both discard the uncommitted
 * changes under those paths; so does a checkout's `git checkout PATH`
 * without "--" (its first word may be a branch: a "maybe" discard, a path
 * only if it names one), and `git checkout -f` (every change).
 */
static void
walk_git_checkout(
    struct sh_walk *w, const char *dir, struct sh_tok **arg, size_t na)
{
    bool restore = !strcmp(arg[0]->text, "restore");
    struct sh_tok **path = xcalloc(na, sizeof(*path)),
                  **word = xcalloc(na, sizeof(*word));
    size_t np = 0, nw = 0;
    bool dashes = false, staged = false, worktree = false, value;
    bool force = false, branch = false, patch = false;
    for (size_t a = 1; a < na; a++) {
        const char *x = arg[a]->text;
        if (dashes || (restore && (x[0] != '-' || !x[1]))) {
            path[np++] = arg[a];
        } else if (!strcmp(x, "--")) {
            dashes = true;
        } else if (sh_long(x, "--pathspec-from-file", &value)) {
            w->unknown++;
            goto out;
        } else if (x[0] != '-' || !x[1]) {
            word[nw++] = arg[a]; /* a checkout's words: branches or paths */
        } else if (!restore) {
            /* -b, -B and --orphan name a new branch: no path follows */
            if (!strcmp(x, "-b") || !strcmp(x, "-B") ||
                sh_long(x, "--orphan", &value))
                branch = true;
            force = force || !strcmp(x, "--force") ||
                    (x[1] != '-' && strchr(x, 'f'));
            patch = patch || !strcmp(x, "--patch") ||
                    (x[1] != '-' && strchr(x, 'p'));
        } else if (!strcmp(x, "--staged")) {
            staged = true;
        } else if (!strcmp(x, "--worktree")) {
            worktree = true;
        } else if (!strcmp(x, "--patch")) {
            patch = true;
        } else if (sh_long(x, "--source", &value)) {
            a += !value; /* its tree is the next word */
        } else if (x[1] != '-') {
            /* short options; -s takes the rest of the word or the next */
            for (const char *c = x + 1; *c; c++) {
                staged = staged || *c == 'S';
                worktree = worktree || *c == 'W';
                patch = patch || *c == 'p';
                if (*c == 's') {
                    a += !c[1];
                    break;
                }
            }
        }
    }
    if (restore && staged && !worktree)
        goto out; /* the index alone */
    for (size_t i = 0; i < np; i++)
        if (path[i]->text[0] != ':') /* pathspec magic: no plain path */
            walk_emit(w, dir, path[i]->text);
    if (patch || branch)
        goto out; /* asks about each change; a new branch keeps them */
    if (!dir) {
        w->unknown += !np && (nw || force); /* paths: counted as writes */
        goto out;
    }
    if (np) {
        struct hook_discard *d =
            disc_add(w, xstrdup(dir), arg[0]->text, HOOK_DISCARD_TRACKED);
        for (size_t i = 0; i < np; i++)
            disc_spec(w, d, path[i]);
        if (!d->nspec)
            disc_pop(w);
    } else if (force && nw <= 1) {
        /* `git checkout -f [BRANCH]`: every change goes */
        disc_add(w, xstrdup(dir), arg[0]->text, HOOK_DISCARD_TRACKED);
    } else if (nw && !dashes) {
        /* `git checkout REV PATH...` or `git checkout PATH...`: the words
         * past the first are paths; the first may be a branch */
        struct hook_discard *d =
            disc_add(w, xstrdup(dir), arg[0]->text, HOOK_DISCARD_TRACKED);
        d->maybe = true;
        for (size_t i = 0; i < nw; i++)
            disc_spec(w, d, word[i]);
        if (!d->nspec)
            disc_pop(w);
    }
out:
    free(path);
    free(word);
}

/*
 * git stash (push, or no subcommand): the tracked changes under its
 * pathspecs (every change without one) go into the stash and out of the
 * working tree; with -u or -a, the untracked files too. `git stash save`
 * takes a message, not paths. Other subcommands keep the working tree's
 * changes.
 */
static void
walk_git_stash(
    struct sh_walk *w, const char *dir, struct sh_tok **arg, size_t na)
{
    size_t a = 1;
    bool save = false;
    if (a < na && arg[a]->text[0] != '-') {
        save = !strcmp(arg[a]->text, "save");
        if (!save && strcmp(arg[a]->text, "push"))
            return; /* list, show, pop, apply, drop, branch, ... */
        a++;
    }
    unsigned what = HOOK_DISCARD_TRACKED;
    struct sh_tok **spec = xcalloc(na, sizeof(*spec));
    size_t ns = 0;
    bool dashes = false, patch = false, value;
    for (; a < na; a++) {
        const char *x = arg[a]->text;
        if (dashes || x[0] != '-' || !x[1]) {
            if (!save)
                spec[ns++] = arg[a];
        } else if (!strcmp(x, "--")) {
            dashes = true;
        } else if (!strcmp(x, "--include-untracked") || !strcmp(x, "--all")) {
            what |= HOOK_DISCARD_UNTRACKED;
        } else if (!strcmp(x, "--patch")) {
            patch = true;
        } else if (sh_long(x, "--message", &value)) {
            a += !value;
        } else if (sh_long(x, "--pathspec-from-file", &value)) {
            w->unknown++;
            goto out;
        } else if (x[1] != '-') {
            for (const char *c = x + 1; *c; c++) {
                if (*c == 'u' || *c == 'a')
                    what |= HOOK_DISCARD_UNTRACKED;
                patch = patch || *c == 'p';
                if (*c == 'm') {
                    a += !c[1];
                    break;
                }
            }
        }
    }
    if (patch)
        goto out;
    if (!dir) {
        w->unknown++;
        goto out;
    }
    struct hook_discard *d = disc_add(w, xstrdup(dir), "stash", what);
    for (size_t i = 0; i < ns; i++)
        disc_spec(w, d, spec[i]);
    if (ns && !d->nspec)
        disc_pop(w); /* its paths could not be read */
out:
    free(spec);
}

/* The words of a git command that are not options (all past "--"), with
 * the options in takes_value taking the next word. */
static size_t
git_words(struct sh_tok **arg, size_t na, const char *const *takes_value,
    struct sh_tok **out)
{
    size_t n = 0;
    bool dashes = false;
    for (size_t a = 1; a < na; a++) {
        const char *x = arg[a]->text;
        if (dashes || x[0] != '-' || !x[1]) {
            out[n++] = arg[a];
            continue;
        }
        if (!strcmp(x, "--")) {
            dashes = true;
            continue;
        }
        for (size_t k = 0; takes_value[k]; k++)
            if (!strcmp(x, takes_value[k]))
                a++;
    }
    return n;
}

/* Whether a git command has the option: a long name, or a letter in a
 * cluster of short options (before "--"). */
static bool
git_opt(struct sh_tok **arg, size_t na, const char *lng, char shrt)
{
    for (size_t a = 1; a < na; a++) {
        const char *x = arg[a]->text;
        if (!strcmp(x, "--"))
            return false;
        if ((lng && !strcmp(x, lng)) ||
            (shrt && x[0] == '-' && x[1] != '-' && strchr(x + 1, shrt)))
            return true;
    }
    return false;
}

/*
 * git reset --hard (every tracked change), git switch --discard-changes
 * or -f (the same), git clean -f (the untracked files under its
 * pathspecs; not with -n or -i), and the files git rm and git mv write.
 */
static void
walk_git_other(
    struct sh_walk *w, const char *dir, struct sh_tok **arg, size_t na)
{
    const char *sub = arg[0]->text;
    if (!strcmp(sub, "worktree")) {
        /* `git worktree remove --force PATH` (-f, or -f -f): its work
         * goes (without it git refuses a worktree with changes) */
        if (na < 3 || strcmp(arg[1]->text, "remove") ||
            !git_opt(arg + 1, na - 1, "--force", 'f'))
            return;
        if (!dir) {
            w->unknown++;
            return;
        }
        static const char *const none[] = { NULL };
        struct sh_tok **word = xcalloc(na, sizeof(*word));
        size_t nw = git_words(arg + 1, na - 1, none, word);
        struct hook_discard *d =
            disc_add(w, xstrdup(dir), "worktree remove --force",
                HOOK_DISCARD_TRACKED | HOOK_DISCARD_UNTRACKED);
        d->plain = true;
        for (size_t i = 0; i < nw; i++)
            disc_spec(w, d, word[i]);
        if (!d->nspec)
            disc_pop(w);
        free(word);
        return;
    }
    if (!strcmp(sub, "rm") || !strcmp(sub, "mv")) {
        static const char *const none[] = { NULL };
        struct sh_tok **word = xcalloc(na, sizeof(*word));
        size_t nw = git_words(arg, na, none, word);
        bool cached = git_opt(arg, na, "--cached", 0);
        for (size_t i = 0; i < nw && !cached; i++)
            if (word[i]->text[0] != ':')
                walk_emit(w, dir, word[i]->text);
        free(word);
        return;
    }
    bool whole =
        (!strcmp(sub, "reset") && git_opt(arg, na, "--hard", 0)) ||
        (!strcmp(sub, "switch") && (git_opt(arg, na, "--discard-changes", 0) ||
                                       git_opt(arg, na, "--force", 'f')));
    bool clean = !strcmp(sub, "clean") && git_opt(arg, na, "--force", 'f') &&
                 !git_opt(arg, na, "--dry-run", 'n') &&
                 !git_opt(arg, na, "--interactive", 'i');
    if (!whole && !clean)
        return;
    if (!dir) {
        w->unknown++;
        return;
    }
    struct hook_discard *d = disc_add(w, xstrdup(dir),
        !whole                  ? "clean -f"
        : !strcmp(sub, "reset") ? "reset --hard"
                                : "switch -f",
        whole ? HOOK_DISCARD_TRACKED : HOOK_DISCARD_UNTRACKED);
    if (whole)
        return;
    static const char *const clean_values[] = { "-e", "--exclude", NULL };
    struct sh_tok **word = xcalloc(na, sizeof(*word));
    size_t nw = git_words(arg, na, clean_values, word);
    for (size_t i = 0; i < nw; i++)
        disc_spec(w, d, word[i]);
    if (nw && !d->nspec)
        disc_pop(w);
    free(word);
}

/*
 * A git command: the files it writes (checkout, restore, rm, mv) and the
 * uncommitted changes it throws away (checkout, restore, stash, reset
 * --hard, switch -f, clean -f). `git -C DIR` is followed like a cd; a
 * command with --git-dir or --work-tree, or paths from a file, is not read.
 */
static void
walk_git(struct sh_walk *w, const char *cwd, struct sh_tok **arg, size_t na)
{
    char *dir = sh_dup(cwd);
    size_t k = 0;
    bool value;
    for (; k < na && arg[k]->text[0] == '-'; k++) {
        const char *a = arg[k]->text;
        if (!strcmp(a, "-C") && k + 1 < na) {
            const struct sh_tok *d = arg[++k];
            char *to =
                d->lit && d->text[0] ? sh_chdir(dir, d->text, false) : NULL;
            free(dir);
            dir = to;
        } else if (sh_long(a, "--git-dir", &value) ||
                   sh_long(a, "--work-tree", &value)) {
            goto out; /* another worktree: not followed */
        } else if (!strcmp(a, "-c") || !strcmp(a, "--namespace") ||
                   !strcmp(a, "--config-env") || !strcmp(a, "--super-prefix")) {
            k++; /* its value is the next word */
        }
    }
    if (k >= na)
        goto out;
    const char *sub = arg[k]->text;
    if (!strcmp(sub, "checkout") || !strcmp(sub, "restore"))
        walk_git_checkout(w, dir, arg + k, na - k);
    else if (!strcmp(sub, "stash"))
        walk_git_stash(w, dir, arg + k, na - k);
    else
        walk_git_other(w, dir, arg + k, na - k);
out:
    free(dir);
}

/* One simple command: tokens t[0, nt), between the operators prev, next. */
static void
walk_command(struct sh_walk *w, struct sh_tok *t, size_t nt, enum sh_kind prev,
    enum sh_kind next, struct sh_tok ***scratch, size_t *sa)
{
    struct sh_tok **word = *scratch;
    size_t nw = 0;
    ALLOC_GROW(word, nt + 1, *sa);
    *scratch = word;
    for (size_t k = 0; k < nt; k++)
        if (t[k].kind == SH_WORD)
            word[nw++] = &t[k];
        else if (k + 1 < nt && t[k + 1].kind == SH_WORD)
            k++; /* a redirection's target: read below */
    /* reserved words that open or close something */
    size_t k = 0;
    for (; k < nw; k++) {
        struct sh_frame *f = &w->fr[w->nfr - 1];
        const char *s = word[k]->text;
        if (!strcmp(s, "if") || !strcmp(s, "while") || !strcmp(s, "until")) {
            f->compound++;
        } else if (!strcmp(s, "for") || !strcmp(s, "select") ||
                   !strcmp(s, "case")) {
            f->compound++;
            f->cases += s[0] == 'c';
            nw = k; /* the rest names a variable, a list, a word */
        } else if (!strcmp(s, "fi") || !strcmp(s, "done") ||
                   !strcmp(s, "esac")) {
            f->compound -= f->compound > 0;
            f->cases -= s[0] == 'e' && f->cases > 0;
        } else if (!strcmp(s, "{")) {
            walk_open(w, true, prev == SH_PIPE);
            prev = SH_SEP; /* the group's first command */
        } else if (!strcmp(s, "}")) {
            walk_close(w, true, next);
        } else if (strcmp(s, "!") && strcmp(s, "then") && strcmp(s, "else") &&
                   strcmp(s, "elif") && strcmp(s, "do") && strcmp(s, "time")) {
            break;
        }
    }
    while (k < nw && sh_assignment(word[k]->text))
        k++;
    while (k + 1 < nw && (!strcmp(word[k]->text, "builtin") ||
                             (!strcmp(word[k]->text, "command") &&
                                 word[k + 1]->text[0] != '-')))
        k++;
    struct sh_frame *f = &w->fr[w->nfr - 1];
    char *cwd = sh_dup(f->cwd); /* redirections open before the command */
    for (size_t r = 0; r + 1 < nt; r++)
        if (t[r].kind == SH_REDIR && t[r + 1].kind == SH_WORD &&
            (t[r].redir == SH_OUT ||
                (t[r].redir == SH_DUP && !sh_fd(t[r + 1].text))) &&
            strcmp(t[r + 1].text, "/dev/null"))
            walk_emit(w, cwd, t[r + 1].text);
    if (k >= nw)
        goto out;
    const char *cmd = word[k]->text;
    struct sh_tok **arg = word + k + 1;
    size_t na = nw - k - 1;
    if (!strcmp(cmd, "cd") || !strcmp(cmd, "pushd") || !strcmp(cmd, "popd")) {
        /* a pipeline's stages and a background job are subshells, but
         * zsh runs the last stage here; a branch or a loop may not run */
        if (next != SH_PIPE && next != SH_BG) {
            if (prev == SH_PIPE || f->compound)
                frame_lose(f);
            else
                walk_cd(f, cmd, arg, na);
        }
        goto out;
    }
    if (!strcmp(cmd, "git")) {
        walk_git(w, cwd, arg, na);
        goto out;
    }
    bool sed = !strcmp(cmd, "sed"),
         all = !strcmp(cmd, "tee") || !strcmp(cmd, "rm") ||
               !strcmp(cmd, "touch") || !strcmp(cmd, "truncate");
    bool last = !strcmp(cmd, "mv") || !strcmp(cmd, "cp");
    if (!sed && !all && !last)
        goto out;
    bool inplace = false;
    for (size_t a = 0; a < na; a++)
        inplace = inplace || !strncmp(arg[a]->text, "-i", 2) ||
                  !strcmp(arg[a]->text, "--in-place");
    if (sed && !inplace)
        goto out;
    if (!strcmp(cmd, "rm") && cwd) {
        /* what is changed in the files it removes, or under its
         * directories, goes with them */
        struct hook_discard *d = disc_add(
            w, xstrdup(cwd), "", HOOK_DISCARD_TRACKED | HOOK_DISCARD_UNTRACKED);
        free(d->command);
        d->command = xstrdup("rm");
        d->plain = true;
        bool opts = true;
        for (size_t a = 0; a < na; a++) {
            if (opts && !strcmp(arg[a]->text, "--"))
                opts = false;
            else if (!(opts && arg[a]->text[0] == '-' && arg[a]->text[1]))
                disc_spec(w, d, arg[a]);
        }
        if (!d->nspec)
            disc_pop(w);
    }
    for (size_t a = 0; a < na; a++) {
        if (arg[a]->text[0] == '-' || (sed && a == 0) || (last && a != na - 1))
            continue;
        if (sed && a + 1 < na)
            continue; /* sed: the files come last; keep the last */
        const char *x = arg[a]->text;
        if (!arg[a]->lit && (x[0] == '<' || x[0] == '>') && x[1] == '(')
            continue; /* a process substitution */
        walk_emit(w, cwd, x);
    }
out:
    free(cwd);
}

/*
 * Paths a shell command obviously writes: the target of '>', '>>' (and
 * '&>', '>|', '<>'), the files of 'sed -i', 'tee', 'rm', 'touch',
 * 'truncate', the last argument of 'mv' and 'cp', the files git writes
 * and the changes it discards (walk_git), in every command of its lists,
 * pipelines, subshells, groups and branches. Quotes are
 * stripped, nothing is expanded, here-documents and comments are skipped.
 *
 * The directory is followed through cd, pushd and popd, each taken to
 * succeed: logically ("a/.." is where a was), into subshells and groups,
 * not out of a subshell, a pipeline stage or a background job. Where it
 * cannot be known (cd with no argument, to "-" before any cd, to a word
 * with $, `, ~ or a glob, with two arguments; popd past what was pushed;
 * a cd inside if, while, until, for, select or case; a cd as the last
 * stage of a pipeline, which zsh runs in the shell itself), it stays
 * unknown until a cd to an absolute path, and relative paths are counted,
 * not returned. A best effort that never blocks what it does not
 * understand.
 */
static struct sh_walk *
shell_walk(const char *cmd)
{
    struct sh_lex lx = { .s = cmd, .len = strlen(cmd) };
    lex_run(&lx, 0, false);
    for (size_t h = 0; h < lx.nhere; h++)
        free(lx.here[h].delim);
    struct sh_walk *w = xcalloc(1, sizeof(*w));
    w->fr[0].cwd = xstrdup("");
    w->nfr = 1;
    struct sh_tok **scratch = NULL;
    size_t sa = 0;
    enum sh_kind prev = SH_SEP;
    for (size_t i = 0; i < lx.nt;) {
        enum sh_kind kind = lx.tok[i].kind;
        struct sh_frame *f = &w->fr[w->nfr - 1];
        if ((kind == SH_OPEN || kind == SH_CLOSE) && f->cases) {
            prev = SH_SEP; /* a case pattern's parentheses */
            i++;
        } else if (kind == SH_OPEN) {
            walk_open(w, false, false);
            prev = SH_SEP;
            i++;
        } else if (kind == SH_CLOSE) {
            walk_close(w, false, SH_SEP);
            i++;
        } else if (kind != SH_WORD && kind != SH_REDIR) {
            prev = kind;
            i++;
        } else {
            size_t end = i;
            while (end < lx.nt && (lx.tok[end].kind == SH_WORD ||
                                      lx.tok[end].kind == SH_REDIR))
                end++;
            enum sh_kind next = end < lx.nt ? lx.tok[end].kind : SH_SEP;
            walk_command(w, lx.tok + i, end - i, prev, next, &scratch, &sa);
            i = end;
        }
    }
    free(scratch);
    for (size_t i = 0; i < lx.nt; i++)
        free(lx.tok[i].text);
    free(lx.tok);
    if (lx.stopped)
        w->unknown++; /* the rest was not read */
    while (w->nfr > 0)
        frame_clear(&w->fr[--w->nfr]);
    return w;
}

size_t
hook_shell_scan(const char *cmd, char ***out, size_t *unknown)
{
    struct sh_walk *w = shell_walk(cmd);
    for (size_t i = 0; i < w->ndisc; i++)
        disc_release(&w->disc[i]);
    free(w->disc);
    *out = w->out;
    if (unknown)
        *unknown = w->unknown;
    size_t n = w->n;
    free(w);
    return n;
}

size_t
hook_shell_discards(const char *cmd, struct hook_discard **out)
{
    struct sh_walk *w = shell_walk(cmd);
    for (size_t i = 0; i < w->n; i++)
        free(w->out[i]);
    free(w->out);
    *out = w->disc;
    size_t n = w->ndisc;
    free(w);
    return n;
}

void
hook_discards_free(struct hook_discard *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        disc_release(&d[i]);
    free(d);
}

size_t
hook_shell_writes(const char *cmd, char ***out)
{
    return hook_shell_scan(cmd, out, NULL);
}

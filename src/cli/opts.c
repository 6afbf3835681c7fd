#include "cli/opts.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/dcli.h"
#include "util/exitcode.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "util/banned.h"

/* getopt_long's value of a long option without a letter: past any char */
#define LONG_ONLY 256

static int
set_number(const struct opt *o, const char *cmd, const char *arg)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    long min = o->min, max = o->max;
    if (!min && !max)
        max = -1; /* any >= 0 */
    if (errno || *end || v < min || (max >= 0 && v > max))
        return dcli_usage(
            cmd, "%s, not '%s'", o->bad ? o->bad : "expected a number", arg);
    *(long *)o->target = v;
    return 0;
}

static int
set_int64(const struct opt *o, const char *cmd, const char *arg)
{
    char *end;
    errno = 0;
    long long v = strtoll(arg, &end, 10);
    if (errno || *end || end == arg || v < o->min || (o->max > 0 && v > o->max))
        return dcli_usage(cmd, "%s", o->bad);
    *(int64_t *)o->target = v;
    return 0;
}

int
opts_list_add(
    struct opt_list *l, const char *arg, const char *name, const char *cmd)
{
    if (l->n == OPT_LIST_MAX)
        return dcli_usage(cmd, "too many --%s options", name);
    l->v[l->n++] = arg;
    return 0;
}

/*
 * The option getopt_long just refused, as given: a long one is its whole
 * word (argv[optind - 1]: getopt has gone past it, "--bad" or "--ttl"
 * without its value); a short one is "-x" for its letter (optopt), which
 * may sit inside a group ("-bad": 'b') that optind has not left yet, so
 * the word before optind is not it. name holds "-x".
 */
static const char *
bad_option(int argc, char **argv, const struct opt *table, char name[3])
{
    const char *word = optind > 0 && optind <= argc ? argv[optind - 1] : "";
    bool letter = optopt > 0 && optopt < LONG_ONLY;
    /* A known letter errs only for its missing value; the option may then
     * have been given long ("--message" at the end). */
    for (size_t i = 0; letter && table[i].kind != OPT_END; i++)
        if (table[i].letter == optopt && !strncmp(word, "--", 2))
            letter = false;
    if (!letter)
        return word;
    name[0] = '-';
    name[1] = (char)optopt;
    name[2] = '\0';
    return name;
}

int
opts_parse(int argc, char **argv, const struct opt *table, const char *cmd,
    const char *usage, unsigned flags)
{
    size_t n = 0;
    while (table[n].kind != OPT_END)
        n++;
    struct option *lo = xcalloc(n + 2, sizeof(*lo));
    char *shorts = xmalloc(2 * n + 3), *s = shorts;
    if (flags & OPTS_IN_ORDER)
        *s++ = '+';
    *s++ = 'h';
    size_t nl = 0;
    for (size_t i = 0; i < n; i++) {
        const struct opt *o = &table[i];
        bool arg = o->kind == OPT_STRING || o->kind == OPT_NUMBER ||
                   o->kind == OPT_INT64 || o->kind == OPT_LIST ||
                   (o->kind == OPT_CALL && !o->value);
        int val = o->letter ? o->letter : LONG_ONLY + (int)i;
        if (o->name)
            lo[nl++] = (struct option){ o->name,
                arg ? required_argument : no_argument, NULL, val };
        if (o->letter) {
            *s++ = (char)o->letter;
            if (arg)
                *s++ = ':';
        }
    }
    lo[nl++] = (struct option){ "help", no_argument, NULL, 'h' };
    *s = '\0';
    opterr = 0;
    optind = 1;
    int c, rc = 0;
    while (!rc && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        const struct opt *o = NULL;
        for (size_t i = 0; i < n && !o; i++)
            if (c == (table[i].letter ? table[i].letter : LONG_ONLY + (int)i))
                o = &table[i];
        if (c == 'h' && !o) {
            fputs(usage, stdout);
            rc = -1;
            break;
        }
        if (!o) {
            char name[3];
            rc = dcli_usage(cmd, "unknown%s option '%s'",
                flags & OPTS_UNKNOWN ? "" : " or incomplete",
                bad_option(argc, argv, table, name));
            break;
        }
        if (o->given)
            *o->given = true;
        switch (o->kind) {
        case OPT_FLAG:
            *(bool *)o->target = true;
            break;
        case OPT_STRING:
            *(const char **)o->target = optarg;
            break;
        case OPT_SET:
            *(const char **)o->target = o->value;
            break;
        case OPT_NUMBER:
            rc = set_number(o, cmd, optarg);
            break;
        case OPT_INT64:
            rc = set_int64(o, cmd, optarg);
            break;
        case OPT_LIST:
            rc = opts_list_add(o->target, optarg, o->name, cmd);
            break;
        case OPT_CALL:
            rc = o->fn(o->target, o->value ? o->value : optarg, cmd);
            break;
        case OPT_END:
            break;
        }
    }
    if (!rc && (flags & OPTS_NO_OPERANDS) && optind < argc)
        rc = dcli_usage(cmd, "unexpected argument '%s'", argv[optind]);
    free(lo);
    free(shorts);
    return rc;
}

int
opts_dispatch(int argc, char **argv, const struct opt_sub *subs,
    const char *cmd, const char *usage)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return CLI_EXIT_USAGE;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
        fputs(usage, stdout);
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; subs[i].name; i++)
        if (!strcmp(sub, subs[i].name))
            return subs[i].run(argc - 1, argv + 1);
    struct strbuf names = STRBUF_INIT;
    for (size_t i = 0; subs[i].name; i++)
        strbuf_addf(&names, "%s%s", i ? ", " : "", subs[i].name);
    int rc = dcli_usage(cmd, "unknown subcommand '%s' (%s)", sub, names.s);
    free(names.s);
    return rc;
}

void
opts_keep(struct opt *table, const char *names)
{
    size_t out = 0;
    for (size_t i = 0; table[i].kind != OPT_END; i++) {
        const char *p = names;
        size_t len = table[i].name ? strlen(table[i].name) : 0;
        bool keep = false;
        while (len && !keep && (p = strstr(p, table[i].name))) {
            keep = (p == names || p[-1] == ' ') && (!p[len] || p[len] == ' ');
            p += len;
        }
        if (keep)
            table[out++] = table[i];
    }
    table[out] = (struct opt)OPT_TABLE_END;
}

/*
 * opts.h - the subcommands' one option parser: a table of options, each
 * with its kind and where its value goes, parsed with getopt_long. The
 * options most commands share are declared once (OPT_REPO, OPT_JSON,
 * OPT_NO_START, OPT_AGENT); -h and --help print the command's usage.
 * A command with subcommands (fleet up|down|...) picks one by name with
 * opts_dispatch.
 *
 * Errors are printed as every command prints them (dcli_usage): "airspace
 * CMD: unknown or incomplete option '--x'" and the help hint, exit 2.
 * Targets are the caller's; strings point into argv.
 */
#ifndef AIRSPACE_CLI_OPTS_H
#define AIRSPACE_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum opt_kind {
    OPT_END,    /* ends a table */
    OPT_FLAG,   /* bool *: true when given */
    OPT_STRING, /* const char **: the argument */
    OPT_SET,    /* const char **: set to value when given (--shared) */
    OPT_NUMBER, /* long *: a decimal number in [min, max] */
    OPT_INT64,  /* int64_t *: a number >= min (and <= max when max > 0);
                   bad is the whole message */
    OPT_LIST,   /* struct opt_list *: each argument of a repeated option,
                   in order (more than OPT_LIST_MAX is an error) */
    OPT_CALL,   /* fn(target, argument, cmd) checks and stores it; with
                   value, the option takes no argument and fn gets value */
};

/* An OPT_LIST option's arguments (--set A --set B), pointing into argv. */
#define OPT_LIST_MAX 64
struct opt_list {
    const char *v[OPT_LIST_MAX];
    size_t n;
};

/* Append arg to l: 0, or exit code 2 after "too many --NAME options". */
int opts_list_add(
    struct opt_list *l, const char *arg, const char *name, const char *cmd);

/* An OPT_CALL option's argument: 0, or the exit code after printing why. */
typedef int opt_fn(void *target, const char *arg, const char *cmd);

struct opt {
    const char *name; /* the long name, without "--" */
    int letter;       /* the short name (-n), or 0 */
    enum opt_kind kind;
    void *target;
    bool *given;       /* set when the option is seen, or NULL */
    const char *value; /* OPT_SET: what target gets; OPT_CALL: see there */
    long min, max;     /* OPT_NUMBER: the range; both 0: any >= 0 */
    /* OPT_NUMBER: what a bad number is told, "<bad>, not '<arg>'"
     * (NULL: "expected a number") */
    const char *bad;
    opt_fn *fn; /* OPT_CALL */
};

/* The options most commands share, and the end of a table. */
#define OPT_REPO(p)                                                            \
    {                                                                          \
        .name = "repo", .kind = OPT_STRING, .target = (p)                      \
    }
#define OPT_JSON(p)                                                            \
    {                                                                          \
        .name = "json", .kind = OPT_FLAG, .target = (p)                        \
    }
#define OPT_NO_START(p)                                                        \
    {                                                                          \
        .name = "no-start", .kind = OPT_FLAG, .target = (p)                    \
    }
#define OPT_AGENT(p, seen)                                                     \
    {                                                                          \
        .name = "agent", .kind = OPT_STRING, .target = (p), .given = (seen)    \
    }
#define OPT_TABLE_END                                                          \
    {                                                                          \
        .kind = OPT_END                                                        \
    }

enum {
    OPTS_IN_ORDER = 1,    /* stop at the first operand (getopt's "+") */
    OPTS_UNKNOWN = 2,     /* say "unknown option", as alerts always has */
    OPTS_NO_OPERANDS = 4, /* an operand is "unexpected argument 'x'" */
};

/*
 * Parse argv[1..] (argv[0] the command's name) against table, from the
 * start (optind = 1); the operands are left from optind on. Returns 0;
 * -1 after printing usage on -h or --help; or exit code 2 after printing
 * why (cmd names the command in messages).
 */
int opts_parse(int argc, char **argv, const struct opt *table, const char *cmd,
    const char *usage, unsigned flags);

/* A subcommand: its name and what runs it (argv[0] is the name). */
struct opt_sub {
    const char *name;
    int (*run)(int argc, char **argv);
};

/*
 * Run the subcommand argv[1] names in subs (ended by a NULL name) with
 * argv[1..]: none prints usage on stderr (exit 2); -h, --help and "help"
 * print it on stdout (exit 0); any other is "unknown subcommand 'x'"
 * with the list of subs, and the help hint (exit 2).
 */
int opts_dispatch(int argc, char **argv, const struct opt_sub *subs,
    const char *cmd, const char *usage);

/*
 * Keep in table (ended by OPT_TABLE_END) only the options named in names,
 * a space-separated list of long names ("repo json ttl"), moving the end
 * up: several commands sharing one table each take only their own
 * options, and any other is "unknown", never silently ignored.
 */
void opts_keep(struct opt *table, const char *names);

#endif

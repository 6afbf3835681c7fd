/*
 * cmd_replay.c - `airspace replay`: how early and how precisely the risk
 * model would have warned about a repository's merges (git mode) or about
 * recorded merges (--records FILE).
 */
#define _GNU_SOURCE /* timegm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/progress.h"
#include "eval/records.h"
#include "eval/replay.h"
#include "git/config.h"
#include "git/repo.h"
#include "util/isotime.h"
#include "util/banned.h"

static const char usage[] =
    "usage: airspace replay [--repo DIR] [--rev RANGE | --all]\n"
    "                       [--since DATE] [--max N] [--max-side N]\n"
    "                       [--steps K] [--threads N] [--progress]\n"
    "                       [--json] [--per-merge] [--set KEY=VALUE]...\n"
    "       airspace replay --records FILE.jsonl[.gz] [--json]\n"
    "                       [--split all|tune|held-out] [--split-seed N]\n"
    "                       [--set KEY=VALUE]... [--skip-bad] [--per-merge]\n"
    "\n"
    "Measure on history how early and how precisely airspace would have\n"
    "warned: each merge's two sides fly as two agents from the merge base,\n"
    "scored as the daemon scores; the label is whether git's merge of the\n"
    "two conflicts (docs/replay.md).\n"
    "\n"
    "git mode:\n"
    "  --repo DIR             repository to read (default: .)\n"
    "  --rev RANGE            merges reachable from REV, or in A..B\n"
    "                         (default: HEAD)\n"
    "  --all                  merges of every branch, remote branch and tag\n"
    "  --since DATE           merges committed at or after DATE\n"
    "  --max N                the newest N merge commits only (0: all)\n"
    "  --max-side N           skip merges with a side longer than N commits\n"
    "                         (default 1000; 0: no limit)\n"
    "  --steps K              score a side at K points and its half-way\n"
    "                         commit (default 8; 0: every commit); a merge\n"
    "                         that conflicted gets its first warnings from\n"
    "                         every commit\n"
    "  --threads N            merges replayed at once, and graph parsing\n"
    "                         threads (default 2)\n"
    "  --progress             show the merges done on stderr even when it is\n"
    "                         not a terminal\n"
    "records mode:\n"
    "  --records FILE         recorded merges, one JSON object a line\n"
    "  --split WHICH          all (default), tune or held-out merges\n"
    "  --holdout              the same as --split held-out\n"
    "  --split-seed N         which hex digit of the sha splits them (0..39,\n"
    "                         default 0)\n"
    "  --skip-bad             skip a malformed record instead of stopping\n"
    "both:\n"
    "  --json                 print the report as JSON (docs/replay.md)\n"
    "  --per-merge            one row per merge in the report\n"
    "  --set KEY=VALUE        override a model constant (docs/replay.md)\n"
    "  -h, --help             show this help\n";

/* DATE as Unix seconds: "@N", "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM[:SS][Z]"
 * (UTC). Returns 0 or -1. */
static int
parse_date(const char *v, int64_t *out)
{
    char *end;
    if (v[0] == '@') {
        long long n = strtoll(v + 1, &end, 10);
        if (end == v + 1 || *end || n < 0)
            return -1;
        *out = n;
        return 0;
    }
    struct iso_time t;
    if (iso_time_parse(v, &t))
        return -1;
    *out = t.utc_s; /* no zone: UTC */
    return 0;
}

static int
parse_count(const char *opt, const char *v, size_t *out)
{
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (end == v || *end || v[0] == '-') {
        fprintf(
            stderr, "airspace replay: bad %s '%s' (want a count)\n", opt, v);
        return -1;
    }
    *out = (size_t)n;
    return 0;
}

/* ---- the options that check their value (opts.h's OPT_CALL) ---- */

static int
opt_since(void *target, const char *v, const char *cmd)
{
    (void)cmd;
    if (!parse_date(v, target))
        return 0;
    fprintf(stderr,
        "airspace replay: bad --since '%s' (want YYYY-MM-DD, "
        "YYYY-MM-DDTHH:MM[:SS][ZONE], UTC without a zone, or @SECONDS)\n",
        v);
    return CLI_EXIT_USAGE;
}

static int
opt_max(void *target, const char *v, const char *cmd)
{
    (void)cmd;
    return parse_count("--max", v, target) ? CLI_EXIT_USAGE : 0;
}

static int
opt_max_side(void *target, const char *v, const char *cmd)
{
    (void)cmd;
    return parse_count("--max-side", v, target) ? CLI_EXIT_USAGE : 0;
}

/* An unsigned count of at most most, for option opt. */
static int
parse_unsigned(const char *opt, const char *v, size_t most, unsigned *out)
{
    size_t n;
    if (parse_count(opt, v, &n))
        return CLI_EXIT_USAGE;
    if (n > most) {
        fprintf(stderr, "airspace replay: bad %s '%s' (want 0..%zu)\n", opt, v,
            most);
        return CLI_EXIT_USAGE;
    }
    *out = (unsigned)n;
    return 0;
}

static int
opt_threads(void *target, const char *v, const char *cmd)
{
    (void)cmd;
    return parse_unsigned("--threads", v, 64, target);
}

static int
opt_steps(void *target, const char *v, const char *cmd)
{
    (void)cmd;
    return parse_unsigned("--steps", v, 1000, target);
}

/* --split NAME, and --holdout (NAME "held-out") */
static int
opt_split(void *target, const char *v, const char *cmd)
{
    (void)cmd;
    enum replay_split *split = target;
    if (!strcmp(v, "all"))
        *split = REPLAY_SPLIT_ALL;
    else if (!strcmp(v, "tune"))
        *split = REPLAY_SPLIT_TUNE;
    else if (!strcmp(v, "held-out"))
        *split = REPLAY_SPLIT_HELD_OUT;
    else {
        fprintf(stderr,
            "airspace replay: bad --split '%s' (want all, tune or "
            "held-out)\n",
            v);
        return CLI_EXIT_USAGE;
    }
    return 0;
}

static int
opt_split_seed(void *target, const char *v, const char *cmd)
{
    (void)cmd;
    char *end;
    unsigned long d = strtoul(v, &end, 10);
    if (end == v || *end || d > 39) {
        fprintf(
            stderr, "airspace replay: bad --split-seed '%s' (want 0..39)\n", v);
        return CLI_EXIT_USAGE;
    }
    *(unsigned *)target = (unsigned)d;
    return 0;
}

/* Apply --set KEY=VALUE: the risk model's keys in git mode (risk.h), the
 * records model's otherwise. */
static int
apply_set(const char *v, bool git, struct replay_config *cfg,
    struct replay_git_options *go)
{
    char key[128];
    struct as_err err = { "" };
    const char *eq = strchr(v, '=');
    if (!eq || (size_t)(eq - v) >= sizeof(key)) {
        fprintf(stderr, "airspace replay: --set wants KEY=VALUE\n");
        return -1;
    }
    memcpy(key, v, (size_t)(eq - v));
    key[eq - v] = '\0';
    int rc = 0;
    if (git && !strcmp(key, "near")) /* the baseline's distance */
        rc = replay_config_set(cfg, key, eq + 1, &err);
    else if (git)
        rc = risk_config_set(&go->risk, key, eq + 1, &err);
    else
        rc = replay_config_set(cfg, key, eq + 1, &err);
    if (rc) {
        fprintf(stderr, "airspace replay: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* The risk model in git mode: the built-in defaults, the config files'
 * [risk] settings (docs/config.md), then --set; checked as a whole. */
static int
replay_risk_config(struct repo *r, const char *const *sets, size_t nsets,
    struct replay_config *cfg, struct replay_git_options *go)
{
    struct as_err err = { "" };
    struct config c;
    config_init(&c);
    int rc = config_read(&c, r, &err);
    if (rc) {
        fprintf(stderr, "airspace replay: %s\n", err.msg);
    } else {
        config_apply_risk(&c, &go->risk);
        for (size_t k = 0; k < nsets && !rc; k++)
            rc = apply_set(sets[k], true, cfg, go);
        if (!rc && (rc = config_check_risk(&c, sets, nsets, &go->risk, &err)))
            fprintf(stderr, "airspace replay: %s\n", err.msg);
    }
    config_release(&c);
    return rc;
}

static int
run_git(const char *dir, const char *const *sets, size_t nsets,
    struct replay_config *cfg, struct replay_git_options *go, bool json,
    bool progress)
{
    struct as_err err = { "" };
    struct repo *r = NULL;
    if (repo_open(dir, &r, &err)) {
        fprintf(stderr, "airspace replay: %s\n", err.msg);
        return CLI_EXIT_ERROR;
    }
    if (replay_risk_config(r, sets, nsets, cfg, go)) {
        repo_free(r);
        return CLI_EXIT_USAGE;
    }
    struct replay *rp = replay_new(cfg);
    struct progress_line pl = { "airspace replay:", "merges", 0, 0 };
    if (progress) {
        go->progress = progress_draw;
        go->progress_ctx = &pl;
    }
    int rc = replay_run_git(rp, r, go, &err);
    progress_erase(&pl);
    int status = CLI_EXIT_OK;
    for (size_t i = 0; i < replay_nnotes(rp); i++)
        fprintf(stderr, "airspace replay: note: %s\n", replay_note(rp, i));
    if (rc) {
        fprintf(stderr, "airspace replay: %s\n", err.msg);
        status = rc == AS_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_ERROR;
    } else if (json) {
        replay_print_json(rp, stdout);
    } else {
        replay_print_table(rp, stdout);
    }
    replay_free(rp);
    repo_free(r);
    return status;
}

int
cmd_replay(int argc, char **argv)
{
    struct replay_config cfg;
    struct replay_git_options go;
    struct as_err err = { "" };
    const char *records = NULL, *repo_dir = ".";
    struct opt_list sets = { .n = 0 }; /* checked once the mode is known */
    bool json = false, skip_bad = false, git_only = false, progress = false;
    replay_config_default(&cfg);
    replay_git_options_init(&go);
    const struct opt table[] = {
        OPT_JSON(&json),
        { .name = "skip-bad", .kind = OPT_FLAG, .target = &skip_bad },
        { .name = "per-merge", .kind = OPT_FLAG, .target = &cfg.per_merge },
        { .name = "holdout",
            .kind = OPT_CALL,
            .target = &cfg.split,
            .value = "held-out",
            .fn = opt_split },
        { .name = "all",
            .kind = OPT_FLAG,
            .target = &go.history.all,
            .given = &git_only },
        { .name = "records", .kind = OPT_STRING, .target = &records },
        { .name = "repo",
            .kind = OPT_STRING,
            .target = &repo_dir,
            .given = &git_only },
        { .name = "rev",
            .kind = OPT_STRING,
            .target = &go.history.rev,
            .given = &git_only },
        { .name = "since",
            .kind = OPT_CALL,
            .target = &go.history.since_s,
            .given = &git_only,
            .fn = opt_since },
        { .name = "max",
            .kind = OPT_CALL,
            .target = &go.history.max,
            .given = &git_only,
            .fn = opt_max },
        { .name = "max-side",
            .kind = OPT_CALL,
            .target = &go.history.max_side,
            .given = &git_only,
            .fn = opt_max_side },
        { .name = "steps",
            .kind = OPT_CALL,
            .target = &go.steps,
            .given = &git_only,
            .fn = opt_steps },
        { .name = "threads",
            .kind = OPT_CALL,
            .target = &go.threads,
            .fn = opt_threads },
        { .name = "progress",
            .kind = OPT_FLAG,
            .target = &progress,
            .given = &git_only },
        { .name = "split",
            .kind = OPT_CALL,
            .target = &cfg.split,
            .fn = opt_split },
        { .name = "split-seed",
            .kind = OPT_CALL,
            .target = &cfg.split_digit,
            .fn = opt_split_seed },
        { .name = "set", .kind = OPT_LIST, .target = &sets },
        OPT_TABLE_END,
    };
    int prc = opts_parse(argc, argv, table, "replay", usage, OPTS_NO_OPERANDS);
    if (prc)
        return prc < 0 ? CLI_EXIT_OK : prc;
    if (records && git_only) {
        fprintf(stderr, "airspace replay: --records cannot be combined with "
                        "--repo, --rev, --all, --since, --max, --max-side, "
                        "--steps or --progress\n");
        return CLI_EXIT_USAGE;
    }
    if (go.history.all && go.history.rev) {
        fprintf(
            stderr, "airspace replay: --all and --rev cannot be combined\n");
        return CLI_EXIT_USAGE;
    }
    /* Each --set is checked before anything is read. */
    struct replay_config cfg0 = cfg;
    struct replay_git_options go0 = go;
    for (size_t k = 0; k < sets.n; k++)
        if (apply_set(sets.v[k], !records, &cfg0, &go0))
            return CLI_EXIT_USAGE;
    if (!records)
        return run_git(repo_dir, sets.v, sets.n, &cfg, &go, json,
            progress || isatty(STDERR_FILENO));
    /* The records model shares no key with the risk model: no config
     * file applies to it (docs/config.md). */
    cfg = cfg0;

    struct records_reader *rd = records_open(records, &err);
    if (!rd) {
        fprintf(stderr, "airspace replay: %s\n", err.msg);
        return CLI_EXIT_USAGE;
    }
    struct replay *rp = replay_new(&cfg);
    int status = CLI_EXIT_OK;
    for (;;) {
        struct record r;
        int rc = records_next(rd, &r, &err);
        if (!rc)
            break;
        if (rc < 0) {
            if (skip_bad && rc != AS_EIO) {
                fprintf(stderr, "airspace replay: '%s': %s (skipped)\n",
                    records, err.msg);
                replay_note_skipped(rp);
                continue;
            }
            fprintf(stderr, "airspace replay: '%s': %s\n", records, err.msg);
            status = rc == AS_EIO ? CLI_EXIT_ERROR : CLI_EXIT_USAGE;
            goto out;
        }
        replay_add(rp, &r);
        record_release(&r);
    }
    replay_finish(rp);
    if (json)
        replay_print_json(rp, stdout);
    else
        replay_print_table(rp, stdout);
out:
    replay_free(rp);
    records_close(rd);
    return status;
}

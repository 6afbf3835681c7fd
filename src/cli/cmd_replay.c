/*
 * cmd_replay.c - `airspace replay --records FILE`: how early and how
 * precisely the risk model would have warned about recorded merges.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/records.h"
#include "cli/replay.h"
#include "util/banned.h"

static void
usage(FILE *f)
{
    fprintf(f, "usage: airspace replay --records FILE.jsonl[.gz] [--json]\n"
               "                       [--split all|tune|held-out] "
               "[--split-seed N]\n"
               "                       [--set KEY=VALUE]... [--skip-bad] "
               "[--per-merge]\n");
}

int
cmd_replay(int argc, char **argv)
{
    struct replay_config cfg;
    struct as_err err = { "" };
    const char *records = NULL;
    bool json = false, skip_bad = false;
    replay_config_default(&cfg);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return CLI_EXIT_OK;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--skip-bad")) {
            skip_bad = true;
        } else if (!strcmp(a, "--per-merge")) {
            cfg.per_merge = true;
        } else if (!strcmp(a, "--holdout")) {
            cfg.split = REPLAY_SPLIT_HELD_OUT;
        } else if (!v) {
            fprintf(stderr, "airspace replay: '%s' needs a value\n", a);
            usage(stderr);
            return CLI_EXIT_USAGE;
        } else if (!strcmp(a, "--records")) {
            records = v;
            i++;
        } else if (!strcmp(a, "--split")) {
            if (!strcmp(v, "all"))
                cfg.split = REPLAY_SPLIT_ALL;
            else if (!strcmp(v, "tune"))
                cfg.split = REPLAY_SPLIT_TUNE;
            else if (!strcmp(v, "held-out"))
                cfg.split = REPLAY_SPLIT_HELD_OUT;
            else {
                fprintf(stderr,
                    "airspace replay: bad --split '%s' (want all, tune or "
                    "held-out)\n",
                    v);
                return CLI_EXIT_USAGE;
            }
            i++;
        } else if (!strcmp(a, "--split-seed")) {
            char *end;
            unsigned long d = strtoul(v, &end, 10);
            if (end == v || *end || d > 39) {
                fprintf(stderr,
                    "airspace replay: bad --split-seed '%s' (want 0..39)\n", v);
                return CLI_EXIT_USAGE;
            }
            cfg.split_digit = (unsigned)d;
            i++;
        } else if (!strcmp(a, "--set")) {
            char key[128];
            const char *eq = strchr(v, '=');
            if (!eq || (size_t)(eq - v) >= sizeof(key)) {
                fprintf(stderr, "airspace replay: --set wants KEY=VALUE\n");
                return CLI_EXIT_USAGE;
            }
            memcpy(key, v, (size_t)(eq - v));
            key[eq - v] = '\0';
            if (replay_config_set(&cfg, key, eq + 1, &err)) {
                fprintf(stderr, "airspace replay: %s\n", err.msg);
                return CLI_EXIT_USAGE;
            }
            i++;
        } else {
            fprintf(stderr, "airspace replay: unknown option '%s'\n", a);
            usage(stderr);
            return CLI_EXIT_USAGE;
        }
    }
    if (!records) {
        fprintf(stderr, "airspace replay: --records FILE is required "
                        "(replaying a repository is not built yet)\n");
        usage(stderr);
        return CLI_EXIT_USAGE;
    }

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

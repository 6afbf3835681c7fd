/*
 * advisory.h - advisory levels: classification, the per-pair state machine,
 * right of way and steer guidance.
 *
 * Pure: no clock (time comes in as now_ms arguments), no I/O. The state
 * machine is caller storage, one per pair of agents (advisory_state_init).
 * Right of way reads only stable facts of the two agents, never the time,
 * so both sides and every evaluation agree.
 */
#ifndef AIRSPACE_CORE_ADVISORY_H
#define AIRSPACE_CORE_ADVISORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/risk.h"
#include "core/workset.h"

enum advisory_level {
    ADVISORY_CLEAR = 0,
    ADVISORY_TRAFFIC,
    ADVISORY_RESOLUTION,
};

/* "clear", "traffic" or "resolution". */
const char *advisory_level_name(enum advisory_level l);

/* The level a pair gets from risk alone: >= tau_ra resolution, >= tau_ta
 * traffic, else clear (no history, no early traffic). */
enum advisory_level advisory_classify(const struct risk_config *c, double risk);

struct advisory_state {
    enum advisory_level level;
    bool closing_fast; /* early traffic: time to resolution below tau_min */
    double closure;    /* smoothed dR/dt per second */
    double tau_s;      /* seconds to the resolution boundary; -1 when not
                          closing */
    int64_t below_ra_since, below_ta_since; /* -1: not below */
    /* recent samples, oldest first */
    double r[RISK_CLOSURE_WINDOW_MAX];
    int64_t t[RISK_CLOSURE_WINDOW_MAX];
    unsigned n;
};

void advisory_state_init(struct advisory_state *s);

/*
 * Feed one risk sample at now_ms and return the new level. Enter traffic at
 * R >= tau_ta (or early, when closing fast with R >= early_min), resolution
 * at R >= tau_ra; leave resolution only after R < leave_ra has held for
 * dwell_ms, traffic after R < leave_ta has held for dwell_ms (and no early
 * traffic). Samples whose time goes backwards are taken at the last time.
 */
enum advisory_level advisory_update(const struct risk_config *c,
    struct advisory_state *s, double risk, int64_t now_ms);

/* (r1 - r0) per second between two samples; 0 when t1 <= t0. */
double advisory_closure_rate(
    double r0, int64_t t0_ms, double r1, int64_t t1_ms);

/*
 * Changed lines an agent has in its working set ("work" for right of way):
 * per file added + deleted lines when known, else the lines of its ranges,
 * else 1 (a whole-file change with no stats).
 */
uint64_t advisory_work(const struct agent *a);

/*
 * Who holds: 0 when a holds (b steers), 1 when b holds. In order: a human
 * over an agent; more commits ahead; more committed lines; when neither has
 * commits, more work (advisory_work), then more files; an earlier known
 * start (0 = unknown, last); the smaller id. advisory_right_of_way(a, b) ==
 * 1 - advisory_right_of_way(b, a) for distinct ids.
 */
int advisory_right_of_way(const struct agent *a, const struct agent *b);

/* A file the steering agent could switch to, with its risk. */
struct advisory_alt {
    const char *path;
    double risk;
};

/*
 * Guidance for the agent that steers (pure text; returns a new string, free
 * with free()): the contested files and ranges or the coupling from ev, who
 * holds them, and the options: switch to the lowest-risk of alts (at most 3
 * are named), wait until the holder commits or lands, or message it.
 */
char *advisory_steer_text(const struct agent *steer, const struct agent *hold,
    double risk, const struct risk_evidence *ev,
    const struct advisory_alt *alts, size_t nalts);

#endif

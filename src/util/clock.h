/*
 * clock.h - the wall clock, for the programs' edges only: the pure layers
 * (core, airspace) never read it; callers pass `now` in.
 */
#ifndef AIRSPACE_UTIL_CLOCK_H
#define AIRSPACE_UTIL_CLOCK_H

#include <stdint.h>

/* Milliseconds since the epoch (CLOCK_REALTIME). */
int64_t clock_wall_ms(void);

/* Milliseconds on CLOCK_MONOTONIC, for durations (fractions kept). */
double clock_mono_ms(void);

#endif

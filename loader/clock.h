/*
** clock.h — the one monotonic clock, for progress, timing and the
** loaders' summary lines.
*/
#ifndef PROFDB_CLOCK_H
#define PROFDB_CLOCK_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC): only
** differences mean anything. */
double ld_seconds(void);

#endif

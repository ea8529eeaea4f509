/*
** clock.h — the one monotonic clock, for progress, timing and the
** loaders' summary lines.
*/
#ifndef PROFDB_CLOCK_H
#define PROFDB_CLOCK_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC): only
** differences mean anything. */
double ld_seconds(void);

/* The ld_seconds() at which SQL started now must stop: now plus
** PROFDB_QUERY_TIMEOUT seconds (default 3600), or 0 for no limit
** (PROFDB_QUERY_TIMEOUT=0).  The one reading of that setting, for the
** report's sandbox and the dataset merge. */
double ld_query_deadline(void);

#endif

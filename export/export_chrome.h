/*
** export_chrome.h — `profdb export --format chrome`: a slice of a loaded
** database (ranks, a step, a time window) as a Chrome trace-event JSON
** file that Perfetto UI and chrome://tracing open (module prefix ec_).
**
** One process per rank ("rank R", pid R; sorted by run and rank), its CPU
** threads and GPU streams as threads ("rank 3 - GPU 0 stream 7"); the
** queries are the files in export/chrome; docs/export.md documents it.
*/
#ifndef PROFDB_EXPORT_CHROME_H
#define PROFDB_EXPORT_CHROME_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

/* The most ranks a finding's subjects name that --finding reads. */
#define EC_MAX_FINDING_RANKS 4096

/* Version of the slice's layout, in its "profdb.export" key. */
#define EC_EXPORT_VERSION 1

typedef struct ec_options {
  const char *out;        /* output file; "-" = stdout */
  const char *run;        /* --run NAME: only this run, or NULL */
  const long long *ranks; /* --rank R (repeatable), or NULL: every rank */
  int nranks;
  int have_step;            /* --step given */
  long long step;           /* --step N */
  int have_from, have_to;   /* --from / --to given */
  long long from_ns, to_ns; /* the window's edges (ns) */
  int from_rel, to_rel;     /* 1: relative to the selection's first event */
  int longest_step;         /* no --step: the step with the longest span on the
                            ** selected ranks (--finding naming no step) */
} ec_options;

typedef struct ec_result {
  int64_t ranks;  /* rank processes written */
  int64_t events; /* trace events written (metadata included) */
  int64_t bytes;  /* bytes written */
  int retryable;  /* the failure was an I/O error a retry may cure (exit 75) */
} ec_result;

/* Write the slice.  0, or -1 with the reason printed as
** "profdb: export: ...". */
int ec_export(sqlite3 *db, const ec_options *o, ec_result *res);

/* Parse a time with a unit: "12.5ms", "3s", "1694128201427784us", "250ns";
** a number without a unit is in µs (the trace's own unit); a leading '+'
** makes it relative to the selection's first event (*rel = 1).  Exact to
** the nanosecond.  0 ok, -1 malformed. */
int ec_parse_time(const char *s, long long *ns, int *rel);

/* One edge of an export window, option opt ("--from" or "--to") with
** value v (ec_parse_time's forms): sets *ns, *rel and *have.  0, or -1
** with "profdb: export: OPT V: not a time ..." printed.  Shared by the
** chrome and memory_viz exports, whose windows read the same way. */
int ec_parse_window_option(const char *opt, const char *v, long long *ns, int *rel, int *have);

/* Which traces and step an export of o selects, without writing it: the
** traces into the temporary table _cx_trace (trace_id, rank, run, label,
** ...; export/chrome/_setup.sql), and with o->longest_step and no
** step given, the step whose span is longest on them into o->step
** (o->have_step).  Lets a dataset's report name a finding's slice as
** explicit --rank/--step options.  0, or -1 with a message. */
int ec_select(sqlite3 *db, ec_options *o);

/* The traces ec_select() selected: their paths as loaded (*paths, n of
** them; each and the array malloc'd, NULL-terminated) and whether a
** --rank option names them as the report's findings do, in one run, with
** ranks their paths give again (*plain; export/chrome/_selected.sql).  0,
** or -1 with a message. */
int ec_selected_traces(sqlite3 *db, char ***paths, int *n, int *plain);

/* What a report finding's subjects (JSON text) name: its ranks (into
** ranks, at most max; *nranks set) and its step (*have_step, *step; left
** as they are when it names none).  0, or -1 with a message. */
int ec_finding_subjects(sqlite3 *db, const char *subjects, long long *ranks, int max,
                        int *nranks, int *have_step, long long *step);

#endif

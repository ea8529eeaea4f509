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

/* The most ranks a --finding slice shows unless --max-ranks says otherwise:
** few enough for a viewer at any rank count (the others are named in its
** metadata). */
#define EC_DEFAULT_MAX_RANKS 8

/* The size past which a slice is refused unless --max-mb says otherwise:
** about what Perfetto UI and chrome://tracing open comfortably. */
#define EC_DEFAULT_MAX_BYTES 100000000LL

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
  int longest_step;         /* no --step: the longest step the report analysed on
                            ** the selected ranks (--finding naming no step) */
  const char *finding;      /* --finding: its rule and ranks (JSON) for the
                            ** slice's metadata, or NULL */
  long long max_bytes;      /* -o FILE: refuse a slice past this size (0: none) */
} ec_options;

typedef struct ec_result {
  int64_t ranks;  /* rank processes written */
  int64_t events; /* trace events written (metadata included) */
  int64_t bytes;  /* bytes written */
  int retryable;  /* the failure was an I/O error a retry may cure (exit 75) */
  int too_big;    /* refused: past max_bytes, nothing written */
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
** step given, the longest step the report analysed on them into o->step
** (o->have_step; _longest_step.sql reads the TEMP tables of the report
** run on db, which must have run).  Lets a dataset's report name a finding's slice as
** explicit --rank/--step options.  0, or -1 with a message. */
int ec_select(sqlite3 *db, ec_options *o);

/* The traces ec_select() selected: their paths as loaded (*paths, n of
** them; each and the array malloc'd, NULL-terminated) and whether a
** --rank option names them as the report's findings do, in one run, with
** ranks their paths give again (*plain; export/chrome/_selected.sql).  0,
** or -1 with a message. */
int ec_selected_traces(sqlite3 *db, char ***paths, int *n, int *plain);

/* A report finding, and what of it a slice shows. */
typedef struct ec_finding {
  const char *rule, *subjects, *evidence; /* the finding's, as the report gives them */
  int max_ranks;    /* show at most this many ranks (EC_DEFAULT_MAX_RANKS) */
  long long *ranks; /* out: the ranks shown (room for EC_MAX_FINDING_RANKS) */
  int nranks;
  int have_step; /* out: the step the finding names (left as is when none) */
  long long step;
  int not_shown; /* out: how many ranks it names that the slice does not show */
  char *meta;    /* out: JSON for the slice's metadata (malloc'd): the rule,
                  ** each rank shown with its role, the ranks only named */
} ec_finding;

/* What finding f names and what of it a slice shows (export/chrome/
** _finding_ranks.sql: at most f->max_ranks ranks, a straggler's latest,
** median and earliest arrivals; the report must have run on db).  0, or
** -1 with a message. */
int ec_finding_select(sqlite3 *db, ec_finding *f);

#endif

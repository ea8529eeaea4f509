/*
** export.h — `profdb export`: a loaded database as a Parquet dataset
** (module prefix ex_; the format is written by parquet.c).
**
** Layout (hive partitions, table first, so that one glob reads one table):
**   DIR/<table>/run=<run>/rank=<rank>/part-0000.parquet (part-0001, ...
**   past --file-bytes)
** One file per (table, run, rank), its rows sorted by time; the tables and
** their columns are export/dataset/<table>.sql (each file's "-- Output:"
** header gives the column names and their Parquet types); docs/export.md
** documents the dataset.
*/
#ifndef PROFDB_EXPORT_H
#define PROFDB_EXPORT_H

#include "buf.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

/* Version of the dataset's layout and columns, in every file's key/value
** metadata (profdb.export_version).  A column is never retyped in place:
** a change of type is a new column name and a new version. */
#define EX_EXPORT_VERSION 1

/* Exit code of an export that failed on an I/O error a retry may cure
** (EIO, ENOSPC, EDQUOT, ESTALE, ETIMEDOUT, ...): sysexits' EX_TEMPFAIL. */
#define EX_EXIT_RETRY 75

#define EX_FILE_BYTES (1LL << 30) /* split a table's file past 1 GiB */

typedef struct ex_options {
  const char *dir;         /* the dataset's folder (created when missing) */
  const char *run;         /* --run NAME for every artifact, or NULL */
  int have_rank;           /* --rank given */
  long long rank;          /* --rank N, given to the load of the inputs
                          ** (profdb_load_options.rank): in the options key */
  const char *const *only; /* --table NAMES, or NULL for every table */
  int nonly;
  int uncompressed;   /* --compression none */
  int64_t file_bytes; /* --file-bytes N: a file is closed at the first row
                      ** group past N bytes and the next part begun
                      ** (0: EX_FILE_BYTES) */
  int64_t group_rows; /* --group-rows N: rows per row group (0: PQ_GROUP_ROWS) */
  FILE *messages;     /* warnings; NULL = stderr */
  int record_inputs;  /* write _inputs records (export_record.c): the
                      ** database was loaded by this process (a task) */
} ex_options;

typedef struct ex_result {
  int64_t files;    /* files published */
  int64_t rows;     /* rows written */
  int64_t bytes;    /* bytes of the files published */
  int64_t warnings; /* values that did not fit their column, skipped artifacts */
  int retryable;    /* the failure was an I/O error a retry may cure */
} ex_result;

/* Export every trace and snapshot of db (opened by the caller; read only
** is enough: TEMP tables are used).  Returns 0, or -1 with the reason
** printed as "profdb: export: ...". */
int ex_export(sqlite3 *db, const ex_options *o, ex_result *res);

/* 1 when errno e is an I/O failure a retry may cure (EX_EXIT_RETRY). */
int ex_retryable(int e);

/* mkdir -p: 0, or -1 with errno. */
int ex_mkdirs(char *path);


/* The job report from a dataset (export_summary.c).  ex_write_summary():
** the trace's rows of db, alone, published atomically as
** FOLDER/rank=RANK.db.zst (set_run: --run NAME recorded in it, or NULL);
** 0, or -1 with err set and errno the cause (ENOSPC: a full disk).  ex_is_dataset(): 1 when PATH is a folder with a
** _summary folder.  ex_merge_summaries(): every summary of the dataset DIR
** appended into the new database db_path, ids moved past each other's;
** PROFDB_EXIT_OK (*traces: how many), else after printing why
** PROFDB_EXIT_DATA (no summaries, a damaged one) or PROFDB_EXIT_USAGE
** (an I/O error). */
typedef struct ex_summary_trace {
  int64_t id;         /* trace_id in the exported database */
  int64_t base, last; /* its event ids are (base, last] */
  long long rank;     /* its rank in the dataset */
} ex_summary_trace;
int ex_write_summary(sqlite3 *db, const char *folder, const ex_summary_trace *t,
                     const char *set_run, char *err, size_t errsize);
int ex_is_dataset(const char *path);
int ex_merge_summaries(const char *dir, const char *db_path, int *traces);

/* Records of what a dataset holds (export_record.c), so that a job-array
** task skips an input exported before:
** DIR/_inputs/<trace|snapshot>/run=R/rank=N.json, written by a task (not
** export DB: a database may have been loaded by another build) after the
** last of the artifact's files, and removed by every export before the
** first is replaced.  ex_options_key(): the options that shape the files,
** with the profdb version, a hash of the build (the file holding the
** code: profdb, or the Python module), the schema and export versions and
** the libraries' versions, as one line (a record matches only its own);
** -1 when the build cannot be read (then nothing is recorded or skipped).
** ex_files_add(): a file published for the artifact (DIR-relative path;
** bytes -1: not recorded).  ex_record_forget() / ex_record_publish(): 0,
** or -1 with errno.  ex_record_find(): 1 when the dataset DIR holds the
** file input (same content hash, same options, every recorded file
** there) and *m says as what, else 0 (also when input or a record cannot
** be read: then the task exports again).  run_derived: no --run, one
** input: the run a task derives alone (ws<N>-1, local-1, snapshot) must
** be the record's. */
typedef struct ex_files {
  ld_buf text;    /* JSON array items: {"path": ..., "bytes": ...} */
  int incomplete; /* a file could not be listed: publish no record */
} ex_files;
typedef struct ex_record {
  const char *kind; /* "trace" or "snapshot" */
  const char *run;
  long long rank;
  const char *rank_source;  /* distributedInfo, option, path or default */
  const char *run_source;   /* option (--run) or derived (time windows;
                            ** 'snapshot' for snapshots) */
  const char *content_hash; /* trace.content_hash / snapshot.content_hash */
  int64_t file_bytes;       /* the input's bytes on disk */
  const char *label;        /* trace.label / snapshot.label: in its files */
  const char *options;      /* ex_options_key() */
  int64_t warnings;         /* warnings of the artifact's export and load */
} ex_record;
typedef struct ex_record_match {
  char kind[16], run[256];
  long long rank;
  int64_t warnings;
} ex_record_match;
int ex_options_key(const ex_options *o, char *out, size_t n);
/* 0, or -1 (printed) when --table names a table that does not exist. */
int ex_check_tables(const ex_options *o);
void ex_files_add(ex_files *f, const char *rel_path, int64_t bytes);
int ex_record_forget(const char *dir, const char *kind, const char *run, long long rank);
int ex_record_publish(const char *dir, const ex_record *r, ex_files *files);
int ex_record_find(const char *dir, const char *input, const char *options, int run_derived,
                   ex_record_match *m);

#endif

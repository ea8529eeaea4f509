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

/* The floors below, which the export's callers use too: files and the
** retry exit code, the _inputs records (a task's skip), the merge of the
** summaries (profdb report DIR).  None of them includes this header. */
#include "export_files.h"
#include "export_merge.h"
#include "export_record.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

/* Version of the dataset's layout and columns, in every file's key/value
** metadata (profdb.export_version).  A column is never retyped in place:
** a change of type is a new column name and a new version. */
#define EX_EXPORT_VERSION 1

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


/* The options that shape the files, with the profdb version, a hash of the
** build (the file holding the code: profdb, or the Python module), the
** schema and export versions and the libraries' versions, as one line
** (an _inputs record, export_record.h, matches only its own); -1 when the
** build cannot be read (then nothing is recorded or skipped). */
int ex_options_key(const ex_options *o, char *out, size_t n);
/* 0, or -1 (printed) when --table names a table that does not exist. */
int ex_check_tables(const ex_options *o);

#endif

/*
** export_record.h — records of what a dataset holds (export_record.c), so
** that a job-array task skips an input exported before:
** DIR/_inputs/<trace|snapshot>/run=R/rank=N.json, written by a task (not
** export DB: a database may have been loaded by another build) after the
** last of the artifact's files, and removed by every export before the
** first is replaced.
**
** ex_files_add(): a file published for the artifact (DIR-relative path;
** bytes -1: not recorded).  ex_record_forget() / ex_record_publish(): 0,
** or -1 with errno.  ex_record_find(): 1 when the dataset DIR holds the
** file input (same content hash, same options, every recorded file
** there) and *m says as what, else 0 (also when input or a record cannot
** be read: then the task exports again).  run_derived: no --run, one
** input: the run a task derives alone (ws<N>-1, local-1, snapshot) must
** be the record's.
*/
#ifndef PROFDB_EXPORT_RECORD_H
#define PROFDB_EXPORT_RECORD_H

#include "buf.h"

#include <stdint.h>

typedef struct ex_files {
  ld_buf text;    /* JSON array items: {"path": ..., "bytes": ...} */
  int incomplete; /* a file could not be listed: publish no record */
} ex_files;
typedef struct ex_record {
  const char *kind; /* "trace" or "snapshot" */
  const char *run;
  long long rank;
  const char *
      rank_source; /* trace.rank_source: distributedInfo, option, file name, folder name or default */
  const char *run_source;   /* option (--run) or derived (time windows;
                            ** 'snapshot' for snapshots) */
  const char *content_hash; /* trace.content_hash / snapshot.content_hash */
  int64_t file_bytes;       /* the input's bytes on disk */
  const char *label;        /* trace.label / snapshot.label: in its files */
  const char *options;      /* ex_options_key() (export.h): the options, the
                            ** build and the versions that shaped the files */
  int64_t warnings;         /* warnings of the artifact's export and load */
} ex_record;
typedef struct ex_record_match {
  char kind[16], run[256];
  long long rank;
  int64_t warnings;
} ex_record_match;
void ex_files_add(ex_files *f, const char *rel_path, int64_t bytes);
int ex_record_forget(const char *dir, const char *kind, const char *run, long long rank);
int ex_record_publish(const char *dir, const ex_record *r, ex_files *files);
int ex_record_find(const char *dir, const char *input, const char *options, int run_derived,
                   ex_record_match *m);

#endif

/*
** profdb.h — public API of the profdb loader library (libprofdbload).
**
** profdb turns PyTorch profiler traces (Kineto Chrome-trace JSON, plain or
** gzip) and CUDA caching-allocator memory snapshots (JSON dumps of
** torch.cuda.memory._snapshot()) into a normalized SQLite database.  The
** schema is documented in docs/schema.md and in the database itself.
**
** Loads are atomic: all inputs of one profdb_load() call are written to a
** temporary database next to the original, never to the original itself.
** Only when every input loaded does the original change, in one step: a
** new or empty database is replaced by the temporary one; one that holds
** artifacts is appended to, the temporary database's rows moved into it
** in one SQLite transaction (no copy of the original is made).  A failed
** or interrupted call leaves the database file untouched.
*/
#ifndef PROFDB_PROFDB_H
#define PROFDB_PROFDB_H

#include <stddef.h>
#include <stdio.h>

#include <sqlite3.h>

#include "profdb/version.h" /* PROFDB_VERSION, from project(VERSION) */

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when the database schema changes incompatibly. */
#define PROFDB_SCHEMA_VERSION 4

/* Process exit codes of the profdb CLI; also returned by profdb_load(). */
typedef enum profdb_exit {
  PROFDB_EXIT_OK = 0,          /* success */
  PROFDB_EXIT_DATA = 1,        /* an input is malformed or not a trace or
                             ** snapshot; nothing was written */
  PROFDB_EXIT_USAGE = 2,       /* bad arguments, missing or unreadable file,
                             ** I/O or database error; nothing was written */
  PROFDB_EXIT_TRUNCATED = 3,   /* an input ended early: its complete events
                             ** were loaded and it is marked 'truncated' */
  PROFDB_EXIT_REFUSED = 4,     /* an input is a Python pickle, which profdb
                             ** never deserializes; nothing was written */
  PROFDB_EXIT_NOMEM = 5,       /* memory ran out; nothing was written and the
                             ** temporary files were removed */
  PROFDB_EXIT_TOO_BIG = 6,     /* profdb export --format chrome: the slice would
                             ** pass --max-mb; nothing was written */
  PROFDB_EXIT_GATE_FAILED = 10 /* profdb diff: a --fail-if / --gate check
                             ** failed (the outputs were written) */
} profdb_exit;

typedef struct profdb_load_options {
  const char *label; /* label of the loaded artifact when there is one
                      ** input file; NULL derives it from the file name */
  const char *run;   /* run the loaded artifacts belong to (--run NAME):
                      ** ranks are compared only within a run; NULL lets
                      ** the report group traces by world size and time */
  int replace;       /* reload content that is already in the database
                      ** (same decompressed bytes) instead of skipping it */
  int strict;        /* refuse truncated inputs (exit DATA, nothing kept) */
  int quiet;         /* no summary lines, warnings only */
  int progress;      /* 1: draw a progress line on stderr (a terminal);
                      ** 2: a plain line every 10 s, for a log; 0: none */
  size_t chunk_size; /* decompressed read chunk in bytes; 0 = 256 KiB.
                      ** Tests use tiny chunks to exercise every boundary */
  int threads;       /* 1 = parse and write on one thread; 0 = default */
  FILE *messages;    /* where diagnostics go; NULL = stderr */
  int have_rank;     /* --rank N given: rank is the rank of the one input */
  long long rank;    /* its rank when distributedInfo.rank gives none (a
                      ** number in the file or folder name comes after it) */
} profdb_load_options;

/*
** Load the files and directories in paths[0..n) into the database at
** db_path (created if missing).  A directory loads every *.json and
** *.json.gz directly inside it, in name order.  Returns a profdb_exit code;
** messages are printed as "profdb: FILE:OFFSET: message".
*/
int profdb_load(const char *db_path, const char *const *paths, int n,
                const profdb_load_options *opt);

/* Load into a connection the caller opened (an in-memory database, say):
** the same parsing and derived tables, in one transaction that is rolled
** back on failure, but without the file locking and the atomic swap of
** profdb_load().  The connection must not be used by another thread
** meanwhile.  Used by the fuzzers and tests. */
int profdb_load_db(sqlite3 *db, const char *const *paths, int n,
                   const profdb_load_options *opt);

#ifdef __cplusplus
}
#endif

#endif

/*
** loader.h — state shared by the loader's parts (internal).
**
**   load.c      inputs, duplicates, the per-file loop, the post-pass
**   dbswap.c    the atomic update: lock, temporary or side database,
**               rename, copy-in or merge; the original left as it was
**   publish.c   every other file written: mkstemp temporary, fsync,
**               rename, fsync of the folder; the signal cleanup registry,
**               the sweep of killed runs' temporaries (publish.h)
**   schema.c    schema version and creation, an artifact's rows, runs
**   rank.c      what an artifact's path names: its label and its rank
**   sniff.c     is this file a trace, a snapshot, a pickle, or neither?
**   parse.c     the yajl read loop shared by both parsers; diagnostics
**   trace.c     Kineto trace events -> _slice/_gpu/_instant/_flow/_meta;
**               its parts, in trace_parser.h: trace_tokens.c (tokens),
**               trace_events.c (rows by phase), trace_gpu.c, trace_flows.c,
**               trace_meta.c (M events, metadata keys, threads),
**               trace_spill.c (what a table has no column for)
**   snapshot.c  memory snapshots -> _segment/_block/_alloc_event/...
**               its parts, in snapshot_parser.h: snapshot_tokens.c
**               (tokens), snapshot_rows.c (rows), snapshot_stacks.c
**   nest.c      CPU slices' sort keys for the nesting, gathered while parsing
**   flows.c     flow starts and finishes, for the unmatched-flow counts
**   postpass.c  derived tables (nesting, steps, links) and indexes
**   load_summary.c  what the database holds, in words (profdb load's
**               closing line; load_summary.h)
**   opstats.c   per-thread operator totals (_op_stats), from the nesting pass
**
** Helpers, each with its own header and no loader state: stream.c (token
** adapters, scalar capture), writer.c (row batches on the writer thread),
** input.c (read-ahead, inflate), hash.c, intern.c (string ids), numtext.c
** (exact numerals), utf8.c over utf8seq.c (repair), buf.c (buffers, JSON
** writer), extsort.c (external sort), clock.c, oom.c (out of memory),
** progress.c (the progress line), script.c (a script's statements with
** bound parameters) and sql.h (the embedded scripts).
*/
#ifndef PROFDB_LOADER_H
#define PROFDB_LOADER_H

#include "buf.h"
#include "input.h"
#include "intern.h"
#include "writer.h"

#include "profdb/profdb.h"
#include "profdb/stats.h"

#include <sqlite3.h>
#include <stdint.h>
#include <yajl/yajl_parse.h>

/* Rows logged to import_log per code and file; import_stats counts all. */
#define LD_LOG_LIMIT 20

typedef enum ld_kind { LD_KIND_TRACE, LD_KIND_SNAPSHOT } ld_kind;

/* State of one profdb_load() call. */
typedef struct ld_ctx {
  sqlite3 *db;                    /* the database rows are written to */
  sqlite3 *existing;              /* the rows before this load, read for the
                                    ** ids, strings and stacks in use: db, or
                                    ** the original when db is a side database
                                    ** (load.c, dbswap.h) */
  ld_writer *w;                   /* row writer */
  ld_intern *strings;             /* _string interner */
  const profdb_load_options *opt; /* caller's options */
  FILE *msg;                      /* diagnostics stream */
  int64_t next_event_id;          /* next id for any trace event table */
  int64_t next_segment_id;        /* next _segment.id */
  int64_t next_block_id;          /* next _block.id */
  int64_t next_alloc_id;          /* next _alloc_event.id */
  int64_t next_stack_id;          /* next stack id */
  int64_t first_trace_id;         /* ids this load's traces and snapshots */
  int64_t first_snapshot_id;      /* start at: the post-pass covers ids
                                    ** from there, so none may be lower */
  ld_intern *stacks;              /* stack key -> id (snapshot.c) */
  struct ld_nest *nest;           /* CPU slices for the nesting pass */
  struct ld_flows *flows;         /* flow starts and finishes, for link stats */
  double phase_start;             /* ld_phase: when the current phase began */
  struct ld_queued *queued;       /* jobs handed to the writer thread (ld_queue) */
  struct ld_artifact *artifacts;  /* this load's artifacts, for duplicates */
  int nartifacts, cap_artifacts;
} ld_ctx;

/* An input loaded by this call, as its trace or snapshot row records it:
** the parser finds duplicates here while the writer thread owns the
** database (load.c). */
typedef struct ld_artifact {
  ld_kind kind;
  int64_t id;         /* trace_id or snapshot_id */
  int gzip;           /* the file is gzip */
  int64_t file_bytes; /* size on disk */
  int64_t json_bytes; /* decompressed bytes read */
  char content_hash[17];
} ld_artifact;

/* Work run on the writer thread, in order with the rows queued around it,
** whose memory the parser allocated (queued.c): run(db, job) returns 0,
** or -1 with sqlite3_errmsg saying why (the writer fails); release(job)
** frees it, on the parser's thread, once it ran or was skipped. */
typedef struct ld_queued {
  struct ld_queued *next;
  int done; /* set (atomically) by the writer thread after run */
  int (*run)(sqlite3 *db, struct ld_queued *job);
  void (*release)(struct ld_queued *job);
} ld_queued;

/* Queue job (run and release set) on ctx's writer after the rows so far. */
void ld_queue(ld_ctx *ctx, ld_queued *job);

/* Free the queued jobs that ran, or all of them (all: only after
** writer_sync or writer_stop, when none is in flight). */
void ld_reap(ld_ctx *ctx, int all);

/* With PROFDB_TIMING set, print how long the phase that just ended took
** ("profdb: timing: NAME 1.234 s") for the benchmark's notes. */
void ld_phase(ld_ctx *ctx, const char *name);

/* PROFDB_TIMING is set. */
int ld_timing(void);

/* State of one input file being loaded. */
typedef struct ld_file {
  ld_ctx *ctx;                         /* owning load */
  const char *path;                    /* as given */
  ld_input in;                         /* decompressing reader */
  ld_kind kind;                        /* trace or snapshot */
  int64_t artifact_id;                 /* trace_id or snapshot_id */
  yajl_handle yajl;                    /* parser in use, for offsets */
  uint64_t stats[PROFDB_STAT__COUNT];  /* import_stats counters */
  uint32_t logged[PROFDB_STAT__COUNT]; /* import_log rows per counter */
  int exit_code;                       /* PROFDB_EXIT_* of a fatal error */
  char message[512];                   /* its message (no prefix) */
  int has_offset;                      /* message is tied to err_offset */
  uint64_t err_offset;                 /* decompressed offset */
  int truncated;                       /* input ended inside the JSON */
  uint64_t truncated_at;               /* decompressed bytes read */
  ld_buf scratch;                      /* UTF-8 repair buffer */
  int token_too_long;                  /* yajl buffered > LD_MAX_TOKEN */
} ld_file;

/* The longest JSON token (one string or number) profdb reads.  yajl
** re-scans a token it buffers on every chunk, so lexing time grows with
** the square of a token's length; names in real traces are at most a few
** MB.  A longer token fails the load with FILE:OFFSET (exit 1). */
#define LD_MAX_TOKEN ((size_t)32 << 20)

/* yajl_alloc() whose allocator sets f->token_too_long when yajl grows a
** buffer beyond LD_MAX_TOKEN (its lexer holds a token that long). */
yajl_handle ld_yajl_alloc(ld_file *f, const yajl_callbacks *callbacks, void *ud);

/* After yajl_parse(): when a token went beyond LD_MAX_TOKEN, fail f at
** the current offset and return 1. */
int ld_check_token_length(ld_file *f);

/* Decompressed offset the parser has reached. */
uint64_t ld_offset(const ld_file *f);

/* Intern s[0..n) (UTF-8 repaired), emitting a _string row when new. */
int64_t ld_string(ld_file *f, const char *s, size_t n);

/* Repair UTF-8 in s[0..n) if needed (counted); returns the usable bytes. */
void ld_text(ld_file *f, const char **s, size_t *n);

/* Count an occurrence of stat; log the first ones with a message. */
void ld_note(ld_file *f, profdb_stat stat, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ld_note() for something found after the parse: logged at offset. */
void ld_note_at(ld_file *f, profdb_stat stat, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Record a fatal error for the file (first one wins); returns 0 so yajl
** callbacks can `return ld_fail(...)` to stop the parse. */
int ld_fail(ld_file *f, int exit_code, int with_offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
** Feed the whole input to a yajl parser built from callbacks/ud.  Returns
** 0 when the JSON is complete, 1 when it ended early (f->truncated set),
** -1 on a fatal error (f->exit_code/f->message set).
*/
int ld_parse(ld_file *f, const yajl_callbacks *callbacks, void *ud);

/* Decompressed offset of the first JSON syntax error in path, found with a
** validation-only pass (independent of the read chunk size). */
uint64_t ld_locate_syntax_error(const char *path);

/* Write import_stats rows for the file (database idle: after sync). */
int ld_write_stats(ld_file *f);

/* One import_stats row (nothing when value is 0), its name, severity and
** description from the one table in profdb/stats.h.  Returns 0 or -1. */
int ld_put_stat(sqlite3 *db, ld_kind kind, int64_t artifact_id, profdb_stat stat,
                int64_t value);

/* Parsers (trace.c, snapshot.c): return like ld_parse. */
int trace_load(ld_file *f);
int snapshot_load(ld_file *f);

/* Sniffing (sniff.c).  SNIFF_NEITHER: valid JSON that is neither a trace
** nor a snapshot (a config.json in a trace folder); SNIFF_ERROR: anything
** else that fails.  Both set f->exit_code and f->message. */
typedef enum ld_sniff_result {
  SNIFF_TRACE,
  SNIFF_SNAPSHOT,
  SNIFF_NEITHER,
  SNIFF_ERROR
} ld_sniff_result;
ld_sniff_result ld_sniff(ld_file *f);

/* Derived tables for the traces/snapshots added by this load, and the
** indexes they and the views need (after the parse's rows: the writer is
** idle; its thread writes the nesting pass's rows). */
int postpass_run(ld_ctx *ctx, int64_t first_trace_id, int64_t first_snapshot_id);

/* Fill _kind and _alloc_action from include/profdb/codes.h (codes.c);
** on failure prints and returns -1. */
int ld_insert_codes(ld_ctx *ctx);

/* Run every statement of script (an embedded loader/sql/ file, sql.h) with
** each parameter (?1) bound to id (ld_run_script(), script.c).  Returns 0,
** or -1 (sqlite3_errmsg says why; nothing printed). */
int ld_exec_script(sqlite3 *db, const char *script, int64_t id);

/* Exec SQL on the (idle) database; on failure prints and returns -1. */
int ld_exec(ld_ctx *ctx, const char *sql);

/* schema.c: the first column of the first row of sql as an integer; dflt
** when there is no row, it is NULL, or sql fails. */
int64_t ld_query_int(sqlite3 *db, const char *sql, int64_t dflt);

/* The profdb schema version of db; -1 when it is not a profdb database. */
int64_t ld_schema_version(sqlite3 *db);

/* Check that ctx->db is empty or a profdb database of this version, then
** create what it lacks of the schema (tables, views, code rows).  db_path
** names it in messages.  Returns 0, or -1 (message printed). */
int ld_prepare_schema(ld_ctx *ctx, const char *db_path);

/* Create profdb's schema in the empty database db from profdb's own DDL:
** tables, views, code rows and _profdb.  Returns 0, or -1 (printed to msg). */
int ld_create_schema(sqlite3 *db, FILE *msg);

/* Check that the database attached to db as "r" has profdb's schema as db's
** main has it (loader/sql/schema_check.sql): its tables' columns and its
** views' text, read without running any of it.  Returns 0, or -1 with err
** saying what differs. */
int ld_check_attached_schema(sqlite3 *db, char *err, size_t errsize);

/* ATTACH the database file (bound, never spliced into SQL) AS the alias
** as (profdb's own: "src", "r").  0, or -1 (sqlite3_errmsg says why). */
int ld_attach(sqlite3 *db, const char *file, const char *as);

/* The same check of the database file path (a database given to profdb
** export, read without running any SQL stored in it): 0, or -1 with err. */
int ld_check_schema_file(const char *path, char *err, size_t errsize);

/* An artifact's label from its path (rank.c): the file name without .gz,
** .json and .pt.trace (trace.label, snapshot.label, unless load --label). */
void ld_label_from_path(const char *path, char *out, size_t outlen);

/* The rank of the file at path when distributedInfo gives none (rank.c):
** --rank N, else the number in its file name, else in its folder's name,
** else 0, into *rank; returns where it came from, trace.rank_source's
** words: "option", "file name", "folder name" or "default". */
const char *ld_rank_of(const char *path, const profdb_load_options *opt, long long *rank);

/* Delete every row of artifact id in ctx->db (--replace).  Returns 0 or -1
** (sqlite3_errmsg says why). */
int ld_delete_artifact(ld_ctx *ctx, ld_kind kind, int64_t id);

/* Record --run NAME on the artifacts from first_trace / first_snapshot on
** (metadata key 'profdb.run' at position -1, before the file's own keys),
** then warn about each new trace that does not fit the run it joins
** (loader/run_check.sql).  Warnings only.  Returns 0 or -1. */
int ld_record_runs(ld_ctx *ctx, int64_t first_trace, int64_t first_snapshot);

#endif

/*
** writer.h — row batches and the thread that inserts them into SQLite.
**
** Parsers never call SQLite while streaming.  They append rows to a batch
** (a flat byte buffer: table id, then one tagged value per column) and hand
** full batches to the writer, which binds them to one prepared INSERT per
** table.
**
** Columns by name: each value names its column, an id generated from the
** DDL at build time (profdb_columns.h, by cmake/columns.cmake from
** loader/schema_*.sql: COL_GPU_DEVICE is _gpu's device column), so a row's
** values may come in any order and a reordered DDL column moves no value.
** The writer checks once per prepared statement that the table has the
** columns the ids were generated from, in that order, and for every row
** that each column got exactly one value.  With a writer thread, JSON parsing and B-tree work run on two
** cores; a fixed pool of batches bounds the memory in flight.
**
** Ownership: between writer_start() and writer_stop() the writer owns the
** database connection.  Other code may use the connection only after
** writer_sync() returned and before the next row is added.
*/
#ifndef PROFDB_WRITER_H
#define PROFDB_WRITER_H

#include "buf.h"
#include "profdb_columns.h"

#include <sqlite3.h>
#include <stdint.h>

/* Tables rows can be written to (names in writer.c).  A row carries one
** value per column of the table, each tagged with its column id. */
typedef enum ld_table {
  TB_STRING,        /* _string(id, value) */
  TB_SLICE,         /* _slice */
  TB_GPU,           /* _gpu */
  TB_INSTANT,       /* _instant */
  TB_FLOW,          /* _flow */
  TB_META,          /* _meta */
  TB_LOG,           /* import_log */
  TB_SEGMENT,       /* _segment */
  TB_BLOCK,         /* _block */
  TB_BLOCK_HISTORY, /* _block_history */
  TB_ALLOC_EVENT,   /* _alloc_event */
  TB_STACK_FRAME,   /* _stack_frame */
  TB_ANNOTATION,    /* annotation */
  TB_FLOW_END,      /* not a table: a flow_end (flows.c) for its sort (writer_sink) */
  TB__COUNT
} ld_table;

/* Value tags inside a batch: the type in the low 2 bits, the column id
** (0-based, < 64: cmake/columns.cmake checks) in the high 6. */
enum { RV_NULL, RV_INT, RV_REAL, RV_TEXT };
#define RV_TAG(type, col) ((char)((type) | (unsigned)(col) << 2))

/* Values per row of each table: its column count in the DDL; a sink's
** record is one text value (column 0). */
static const unsigned char ld_table_ncols[TB__COUNT] = {
    [TB_STRING] = COL_STRING__N,
    [TB_SLICE] = COL_SLICE__N,
    [TB_GPU] = COL_GPU__N,
    [TB_INSTANT] = COL_INSTANT__N,
    [TB_FLOW] = COL_FLOW__N,
    [TB_META] = COL_META__N,
    [TB_LOG] = COL_IMPORT_LOG__N,
    [TB_SEGMENT] = COL_SEGMENT__N,
    [TB_BLOCK] = COL_BLOCK__N,
    [TB_BLOCK_HISTORY] = COL_BLOCK_HISTORY__N,
    [TB_ALLOC_EVENT] = COL_ALLOC_EVENT__N,
    [TB_STACK_FRAME] = COL_STACK_FRAME__N,
    [TB_ANNOTATION] = COL_ANNOTATION__N,
    [TB_FLOW_END] = 1,
};

typedef struct ld_writer ld_writer;

/* Prepare the INSERT statements and start the thread (threads > 1).
** Returns NULL with *err set (sqlite3_malloc'd) on failure. */
ld_writer *writer_start(sqlite3 *db, int threads, char **err);

/* Hand the rows of t to fn (on the writer thread, in order with the
** inserts) instead of SQLite: each row is one text value, given as bytes.
** fn returns 0, or -1 to fail the writer with the message why.  Set before
** the first row of t. */
typedef int (*ld_sink_fn)(void *arg, const void *bytes, size_t n);
void writer_sink(ld_writer *w, ld_table t, ld_sink_fn fn, void *arg, const char *why);

/* The batch rows are appended to; valid until the next writer_* call. */
ld_buf *writer_batch(ld_writer *w);

/* Hand the batch over when it is large enough.  Returns 0, or -1 when the
** writer has failed (writer_error() says why). */
int writer_maybe_flush(ld_writer *w);

/* Hand the batch over now, however small (a file's last rows, so the
** writer thread writes them while the producer reads the next file).
** Returns 0, or -1 when the writer has failed. */
int writer_flush(ld_writer *w);

/* Write everything queued and wait.  Returns 0 or -1 on failure. */
int writer_sync(ld_writer *w);

/* Run fn(arg) on the writer thread, in order with the rows queued before
** and after it (the post-pass's SQL scripts, while the producer goes on
** computing rows).  fn returns 0, or -1 with sqlite3_errmsg saying why, which
** fails the writer.  fn and arg must outlive the next writer_sync. */
typedef int (*ld_call_fn)(sqlite3 *db, void *arg);
void writer_call(ld_writer *w, ld_call_fn fn, void *arg);

/* Stop the thread and finalize the statements (after writer_sync). */
void writer_stop(ld_writer *w);

/* Fail the writer from the producer's side (a sort the parser feeds could
** not write its temporary file): the next writer_maybe_flush or
** writer_sync returns -1 and writer_error() says why. */
void writer_set_error(ld_writer *w, const char *why);

/* The SQLite error that stopped the writer, or NULL. */
const char *writer_error(const ld_writer *w);

/* Rows written so far (all tables). */
uint64_t writer_rows(const ld_writer *w);

/* Seconds so far that the producer waited for the writer thread (it was
** the bottleneck), that the thread waited for rows (the producer was) and
** that it ran writer_call functions, for PROFDB_TIMING. */
void writer_waits(ld_writer *w, double *producer_wait, double *writer_idle,
                  double *call_seconds);

/* ---- encoding rows (inline: this is the hot path) ---------------------- */

/* Entries of a batch that are not rows of an ld_table (their first byte). */
#define LD_ENTRY_STMT 0xfe /* a row for a statement the producer prepared */
#define LD_ENTRY_CALL 0xff /* a writer_call() */

/* Start a row for st, a statement the producer prepared on the writer's
** connection (the post-pass's derived tables): then one row_* call per
** parameter, column id k standing for parameter k + 1.  The writer binds
** and steps it in order with the other rows; st must stay prepared until
** the next writer_sync. */
static inline void row_begin_stmt(ld_buf *b, sqlite3_stmt *st, int nparams) {
  ld_buf_reserve(b, 2 + sizeof st);
  b->p[b->n++] = (char)LD_ENTRY_STMT;
  b->p[b->n++] = (char)nparams;
  memcpy(b->p + b->n, &st, sizeof st);
  b->n += sizeof st;
}

/* Start a row of t; then one row_* call per column of t, any order. */
static inline void row_begin(ld_buf *b, ld_table t) {
  ld_buf_reserve(b, 2);
  b->p[b->n++] = (char)t;
  b->p[b->n++] = (char)ld_table_ncols[t];
}
static inline void row_null(ld_buf *b, int col) {
  ld_buf_putc(b, RV_TAG(RV_NULL, col));
}
static inline void row_int(ld_buf *b, int col, int64_t v) {
  ld_buf_reserve(b, 9);
  b->p[b->n++] = RV_TAG(RV_INT, col);
  memcpy(b->p + b->n, &v, 8);
  b->n += 8;
}
static inline void row_real(ld_buf *b, int col, double v) {
  ld_buf_reserve(b, 9);
  b->p[b->n++] = RV_TAG(RV_REAL, col);
  memcpy(b->p + b->n, &v, 8);
  b->n += 8;
}
static inline void row_text(ld_buf *b, int col, const char *s, size_t n) {
  uint32_t len = (uint32_t)n;
  ld_buf_reserve(b, 5 + n);
  b->p[b->n++] = RV_TAG(RV_TEXT, col);
  memcpy(b->p + b->n, &len, 4);
  b->n += 4;
  memcpy(b->p + b->n, s, n);
  b->n += n;
}
/* Optional values: NULL when absent. */
static inline void row_int_opt(ld_buf *b, int col, int has, int64_t v) {
  if (has)
    row_int(b, col, v);
  else
    row_null(b, col);
}

#endif

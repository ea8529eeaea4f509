/*
** nest.h — CPU slices gathered while parsing, for the nesting pass
** (internal; filled by trace.c, read by postpass.c).
**
** The nesting pass needs every CPU slice of a thread in start order.
** Kineto writes a thread's operators, then its Python frames, then its
** runtime calls, each in its own stretch of the file, so the order can only
** be had by sorting.  The parser makes each slice's sort key and sends it
** with the rows to the writer thread, which adds it to an external sort
** (the parser is the busier thread while loading); nothing has to be read
** back from SQLite.  ProfilerStep#N slices are kept aside for the step
** table.
*/
#ifndef PROFDB_NEST_H
#define PROFDB_NEST_H

#include "buf.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* A pid or tid as written: NULL, an integer or a text. */
typedef struct ld_value {
  char type;     /* 0 NULL, 'i' integer, 't' text */
  int64_t i;     /* integer value */
  const char *s; /* text (not terminated) */
  uint32_t n;    /* its length */
} ld_value;

/* One slice, as the nesting pass reads it: sorted by thread, start, longer
** first, then the outer kinds first (spans, annotations, Python frames
** enclose ops, which enclose runtime calls), then id. */
typedef struct nest_row {
  int64_t ts, dur, id, name_id;
  uint64_t dims;  /* hash of its "Input Dims" text (never 0), 0 when it has none */
  uint64_t types; /* hash of its "Input type" text, 0 when it has none or no dims */
  int32_t thread; /* nest_thread() index */
  uint8_t rank, kind, shaped;
} nest_row;

/* A ProfilerStep#N slice (cpu_op or user_annotation). */
typedef struct step_row {
  int64_t trace_id, step, id, ts, dur;
} step_row;

/* Bind v to parameter col of st. */
int ld_bind_value(sqlite3_stmt *st, int col, const ld_value *v);

/* v as the value of column id col of a row being encoded (writer.h). */
void ld_row_value(ld_buf *b, int col, const ld_value *v);

typedef struct ld_nest ld_nest;

ld_nest *nest_new(void);
void nest_free(ld_nest *n);

/* The record of a CPU slice whose ts and dur are usable (on the parser's
** thread: it numbers the slice's thread); dims and types: its "Input Dims"
** and "Input type" JSON texts, NULL when it has none. */
nest_row nest_row_of(ld_nest *n, int64_t trace_id, const ld_value *pid, const ld_value *tid,
                     int64_t id, int64_t ts, int64_t dur, int64_t name_id, int kind,
                     const char *dims, size_t dims_len, const char *types, size_t types_len);

/* Add a record (bytes: one nest_row) to the sort, on the parser's thread.
** Returns 0, or -1 when the sort cannot write a temporary file. */
int nest_sink(void *n, const void *bytes, size_t len);

/* nest_row_of, then nest_sink, on one thread. */
int nest_add(ld_nest *n, int64_t trace_id, const ld_value *pid, const ld_value *tid, int64_t id,
             int64_t ts, int64_t dur, int64_t name_id, int kind, const char *dims,
             size_t dims_len);

/* Add a ProfilerStep#N slice (also added with nest_add). */
void nest_add_step(ld_nest *n, const step_row *s);

/* N of a name "ProfilerStep#N" (digits right after '#', as SQLite's CAST
** reads them), or -1 when the name is not one. */
int64_t nest_step_number(const char *name, size_t len);

/* Slices added so far. */
uint64_t nest_count(const ld_nest *n);

/* ---- reading (postpass.c), after the parse ---- */

/* Sort what was added; 0 or -1 (temporary file). */
int nest_finish(ld_nest *n);
/* The next slice in order, NULL at the end or on a read error
** (nest_failed). */
const nest_row *nest_next(ld_nest *n);
int nest_failed(const ld_nest *n);

/* The thread of a row: its trace and its pid and tid as written. */
int64_t nest_thread_trace(const ld_nest *n, int thread);
const ld_value *nest_thread_pid(const ld_nest *n, int thread);
const ld_value *nest_thread_tid(const ld_nest *n, int thread);

/* The ProfilerStep#N slices, in the order added. */
step_row *nest_steps(ld_nest *n, size_t *count);

#endif

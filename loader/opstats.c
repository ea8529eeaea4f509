/*
** opstats.c — per-thread operator totals, accumulated during the nesting
** pass (postpass.c) and written to _op_stats.
**
** The pass sees every operator of a thread, in start order, with its self
** time and step; adding them up there saves every later query a scan of
** millions of slices.  Keys are (step, name id); the table is open
** addressing with linear probing.  Memory is bounded: past OPSTATS_MAX
** keys the totals so far are written out and the table starts over, so a
** key can then have several rows (they add up; the view says so).
*/
#include "opstats.h"
#include "oom.h"
#include "writer.h"

#include <stdlib.h>
#include <string.h>

#define OPSTATS_MAX 16384 /* keys held before flushing (of 2x slots) */

typedef struct op_total {
  int64_t step; /* -1: outside steps */
  int64_t name_id;
  int64_t calls, total_dur, self_dur, max_dur, shaped;
  int used;
} op_total;

struct ld_opstats {
  op_total *slot;
  size_t cap, n;     /* cap is a power of two */
  ld_writer *w;      /* rows go through its batches */
  sqlite3_stmt *ins; /* the INSERT they are bound to */
};

ld_opstats *opstats_new(ld_writer *w, sqlite3_stmt *ins) {
  ld_opstats *o = calloc(1, sizeof *o);
  if (!o) ld_oom();
  o->w = w;
  o->ins = ins;
  o->cap = 2 * OPSTATS_MAX;
  o->slot = calloc(o->cap, sizeof *o->slot);
  if (!o->slot) ld_oom();
  return o;
}

void opstats_free(ld_opstats *o) {
  if (!o) return;
  free(o->slot);
  free(o);
}

static size_t slot_of(const ld_opstats *o, int64_t step, int64_t name_id) {
  uint64_t h = (uint64_t)name_id * 0x9E3779B97F4A7C15u ^ (uint64_t)step * 0xC2B2AE3D27D4EB4Fu;
  return (size_t)(h >> 17) & (o->cap - 1);
}

int opstats_flush(ld_opstats *o, int64_t trace_id, const ld_value *pid, const ld_value *tid) {
  int rc = 0;
  for (size_t i = 0; i < o->cap && o->n; i++) {
    op_total *t = &o->slot[i];
    if (!t->used) continue;
    ld_buf *b = writer_batch(o->w);
    row_begin_stmt(b, o->ins, 10);
    row_int(b, 0, trace_id);
    ld_row_value(b, 1, pid);
    ld_row_value(b, 2, tid);
    row_int_opt(b, 3, t->step >= 0, t->step);
    row_int(b, 4, t->name_id);
    row_int(b, 5, t->calls);
    row_int(b, 6, t->total_dur);
    row_int(b, 7, t->self_dur);
    row_int(b, 8, t->max_dur);
    row_int(b, 9, t->shaped);
    if (writer_maybe_flush(o->w)) rc = -1;
    t->used = 0;
    o->n--;
  }
  o->n = 0;
  return rc;
}

int opstats_add(ld_opstats *o, int64_t step, int64_t name_id, int64_t dur, int64_t self,
                int shaped, int64_t trace_id, const ld_value *pid, const ld_value *tid) {
  size_t i = slot_of(o, step, name_id);
  while (o->slot[i].used && (o->slot[i].step != step || o->slot[i].name_id != name_id))
    i = (i + 1) & (o->cap - 1);
  op_total *t = &o->slot[i];
  if (!t->used) {
    if (o->n == OPSTATS_MAX) {
      if (opstats_flush(o, trace_id, pid, tid)) return -1;
      return opstats_add(o, step, name_id, dur, self, shaped, trace_id, pid, tid);
    }
    memset(t, 0, sizeof *t);
    t->used = 1;
    t->step = step;
    t->name_id = name_id;
    o->n++;
  }
  t->calls++;
  t->total_dur += dur;
  t->self_dur += self;
  if (dur > t->max_dur) t->max_dur = dur;
  t->shaped += shaped != 0;
  return 0;
}

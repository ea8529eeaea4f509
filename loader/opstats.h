/*
** opstats.h — per-thread operator totals by (step, name) for _op_stats
** (internal; see opstats.c).
*/
#ifndef PROFDB_OPSTATS_H
#define PROFDB_OPSTATS_H

#include "nest.h"
#include "writer.h"

#include <sqlite3.h>
#include <stdint.h>

typedef struct ld_opstats ld_opstats;

/* Totals whose rows are written with ins (bound as below) through w's
** batches, on the writer thread. */
ld_opstats *opstats_new(ld_writer *w, sqlite3_stmt *ins);
void opstats_free(ld_opstats *o);

/* Add one operator call (step -1: outside steps).  May write the totals
** so far (see opstats_flush) to bound memory.  -1 when the writer failed. */
int opstats_add(ld_opstats *o, int64_t step, int64_t name_id, int64_t dur, int64_t self,
                int shaped, int64_t trace_id, const ld_value *pid, const ld_value *tid);

/* Write the totals held (one row per key) with the INSERT, bound as
** (trace_id, pid, tid, step, name_id, calls, total_dur, self_dur, max_dur,
** shaped), and empty the table.  -1 when the writer failed. */
int opstats_flush(ld_opstats *o, int64_t trace_id, const ld_value *pid, const ld_value *tid);

#endif

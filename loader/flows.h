/*
** flows.h — unmatched flow starts and finishes, counted from keys gathered
** while parsing (internal; filled by trace.c through the writer thread,
** counted by postpass.c).
**
** A flow start (ph s) with no finish (ph f) of the same trace, category
** and id is counted in import_stats.flow_start_unmatched, a finish with no
** start in flow_end_unmatched.  Grouping millions of _flow rows in SQL
** took as long as the nesting pass; the keys are sorted here instead, on
** the writer thread.  A trace with a text flow id (no Kineto writer makes
** one) is left to the SQL (sql/postpass_flow_stats.sql), so the count
** stays exact whatever the ids.
*/
#ifndef PROFDB_FLOWS_H
#define PROFDB_FLOWS_H

#include <stddef.h>
#include <stdint.h>

/* One flow start or finish. */
typedef struct flow_end {
  int64_t trace_id;
  int64_t cat_id; /* normalized category id, -1 when none */
  int64_t id;     /* integer flow id (0 when absent: see has_id) */
  uint8_t has_id; /* 0 when the event had no id */
  uint8_t ph;     /* 's' or 'f' */
} flow_end;

typedef struct ld_flows ld_flows;

ld_flows *flows_new(void);
void flows_free(ld_flows *fl);

/* Add a record (bytes: one flow_end) to the sort: the writer thread's sink
** for TB_FLOW_END rows (writer_sink).  0, or -1 (temporary file). */
int flows_sink(void *fl, const void *bytes, size_t len);

/* The parser met a text flow id in trace_id: its flows are counted by SQL. */
void flows_by_sql(ld_flows *fl, int64_t trace_id);

/* The traces counted by SQL: their number, ids in *ids. */
int flows_sql_traces(const ld_flows *fl, const int64_t **ids);

/* Sort, then call each(arg, trace_id, starts, finishes) for every trace
** with flows (other than those counted by SQL), in trace order.  Returns
** 0, -1 on a temporary-file error, or each's non-zero result. */
int flows_count(ld_flows *fl,
                int (*each)(void *arg, int64_t trace_id, int64_t starts, int64_t finishes),
                void *arg);

/* Free the sort (after flows_count). */
void flows_release(ld_flows *fl);

#endif

/*
** flows.c — unmatched flow starts and finishes (see flows.h).
*/
#include "flows.h"
#include "oom.h"

#include "extsort.h"

#include <stdlib.h>
#include <string.h>

#define FLOW_SORT_MEMORY (8 << 20) /* bytes of flow keys sorted in memory at once */

struct ld_flows {
  ld_extsort *sort;
  int64_t *sql_traces; /* traces counted by SQL */
  int nsql, capsql;
};

/* By (trace, category, id); within a key the order does not matter. */
static int cmp_flow_end(const void *x, const void *y) {
  const flow_end *a = x, *b = y;
  if (a->trace_id != b->trace_id) return a->trace_id < b->trace_id ? -1 : 1;
  if (a->cat_id != b->cat_id) return a->cat_id < b->cat_id ? -1 : 1;
  if (a->has_id != b->has_id) return a->has_id < b->has_id ? -1 : 1;
  if (a->id != b->id) return a->id < b->id ? -1 : 1;
  return (a->ph > b->ph) - (a->ph < b->ph);
}

ld_flows *flows_new(void) {
  ld_flows *fl = calloc(1, sizeof *fl);
  if (!fl) ld_oom();
  fl->sort = extsort_new(sizeof(flow_end), cmp_flow_end, FLOW_SORT_MEMORY);
  return fl;
}

void flows_free(ld_flows *fl) {
  if (!fl) return;
  extsort_free(fl->sort);
  free(fl->sql_traces);
  free(fl);
}

int flows_sink(void *arg, const void *bytes, size_t len) {
  ld_flows *fl = arg;
  return extsort_add_bytes(fl->sort, bytes, len);
}

static int flows_counted_by_sql(const ld_flows *fl, int64_t trace_id);

void flows_by_sql(ld_flows *fl, int64_t trace_id) {
  if (flows_counted_by_sql(fl, trace_id)) return;
  if (fl->nsql == fl->capsql) {
    fl->capsql = fl->capsql ? 2 * fl->capsql : 8;
    fl->sql_traces = realloc(fl->sql_traces, (size_t)fl->capsql * sizeof *fl->sql_traces);
    if (!fl->sql_traces) ld_oom();
  }
  fl->sql_traces[fl->nsql++] = trace_id;
}

int flows_sql_traces(const ld_flows *fl, const int64_t **ids) {
  *ids = fl->sql_traces;
  return fl->nsql;
}

static int flows_counted_by_sql(const ld_flows *fl, int64_t trace_id) {
  for (int i = 0; i < fl->nsql; i++)
    if (fl->sql_traces[i] == trace_id) return 1;
  return 0;
}

static int same_key(const flow_end *a, const flow_end *b) {
  return a->trace_id == b->trace_id && a->cat_id == b->cat_id && a->has_id == b->has_id &&
         a->id == b->id;
}

int flows_count(ld_flows *fl,
                int (*each)(void *arg, int64_t trace_id, int64_t starts, int64_t finishes),
                void *arg) {
  if (extsort_finish(fl->sort)) return -1;
  flow_end key = {0};
  int have = 0, s = 0, f = 0, rc = 0;
  int64_t starts = 0, finishes = 0;
  for (const flow_end *e;;) {
    e = extsort_next(fl->sort);
    if (have && (!e || !same_key(e, &key))) { /* the key's group ended */
      starts += s && !f;
      finishes += f && !s;
      if (!e || e->trace_id != key.trace_id) {
        if (!flows_counted_by_sql(fl, key.trace_id) &&
            (rc = each(arg, key.trace_id, starts, finishes)))
          return rc;
        starts = finishes = 0;
      }
      have = 0;
    }
    if (!e) break;
    if (!have) {
      key = *e;
      have = 1;
      s = f = 0;
    }
    s |= e->ph == 's';
    f |= e->ph == 'f';
  }
  return extsort_failed(fl->sort) ? -1 : 0;
}

void flows_release(ld_flows *fl) {
  extsort_free(fl->sort);
  fl->sort = NULL;
}

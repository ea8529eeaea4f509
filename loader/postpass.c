/*
** postpass.c — derived tables, computed once after the bulk insert.
**
**   step        ProfilerStep#N ranges (CPU), with their GPU projections
**   _slice_tree parent, depth, self time and step of every CPU slice
**   cpu_busy    per thread, the union of its slices (and of its runtime
**               calls, DataLoader ranges) as disjoint intervals
**   _op_stats   per thread, step and operator name: calls and times
**   _gpu_link   kernel/memcpy/memset/sync -> launching runtime call (same
**               correlation) -> CPU op (same External id) and step
**   indexes     created before the rows (postpass_prepare): the writer
**               thread maintains them while the parser, the busier
**               thread, parses; built after the rows, they were a serial
**               phase of their own
**
** HOW IT WORKS (nesting)
**   The parser gathered every slice's sort key (nest.c): slices of each
**   thread come sorted by (ts, dur DESC, kind rank); a
**   stack holds the open ancestors.  A slice whose start is at or after the
**   top's end closes the top.  Children may overhang their parent by a few
**   ns in fractional-ns traces (PyTorch PR #122425): they are nested by
**   their start time and counted in import_stats.slice_overhang.  When a
**   slice closes, its self time is its duration minus the time its direct
**   children cover inside it.  Memory is bounded by the nesting depth.
*/
#include "loader.h"
#include "oom.h"
#include "extsort.h"
#include "flows.h"
#include "nest.h"
#include "opstats.h"
#include "progress.h"
#include "sql.h"

#include "profdb/codes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct open_slice {
  int64_t id, ts, end, dur;
  int64_t parent; /* -1: none */
  int depth;
  int64_t children; /* ns covered by direct children */
  int64_t name_id;
  int op;     /* an operator (cpu_op, not ProfilerStep#N): counted in _op_stats */
  int shaped; /* it recorded Input Dims */
} open_slice;

typedef struct step_win {
  int64_t trace_id, step, ts, end;
} step_win;

/* cpu_busy classes, and the interval of each being merged. */
enum { BUSY_CPU, BUSY_RUNTIME, BUSY_DATALOADER, BUSY__N };
static const char *const busy_class[BUSY__N] = {"cpu", "runtime", "dataloader"};

typedef struct busy_run {
  int64_t a, b; /* [a, b) */
  int open;
} busy_run;

/* Name ids of ProfilerStep#N (class 1) and DataLoader ranges (class 2),
** sorted, so the pass classifies a slice without a join per row. */
typedef struct name_class {
  int64_t *id;
  int *cls;
  int n;
} name_class;

/* A _slice_tree row, sorted by id before insertion so that the table's
** pages fill up (rows come out of the pass in thread order). */
typedef struct tree_row {
  int64_t id, parent, self, step; /* parent, step: -1 for NULL */
  int32_t depth;
} tree_row;

static int cmp_tree_row(const void *x, const void *y) {
  const tree_row *a = x, *b = y;
  return a->id < b->id ? -1 : a->id > b->id;
}

typedef struct nest_state {
  name_class names;
  ld_extsort *tree; /* the _slice_tree rows, by id */
  busy_run busy[BUSY__N];
  sqlite3_stmt *busy_ins;
  ld_opstats *ops; /* operator totals of the current thread */
  sqlite3_stmt *ops_ins;
  const ld_value *pid, *tid; /* the current thread */
  open_slice *stack;
  int n, cap;
  step_win *steps; /* sorted by (trace_id, ts) */
  int nsteps;
  int64_t trace_id;
  uint64_t overhang;
  int failed;
} nest_state;

static int64_t step_at(const nest_state *s, int64_t trace_id, int64_t ts) {
  /* Steps do not overlap; binary search the last one starting <= ts. */
  int lo = 0, hi = s->nsteps - 1, best = -1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    const step_win *w = &s->steps[mid];
    if (w->trace_id < trace_id || (w->trace_id == trace_id && w->ts <= ts)) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  if (best < 0) return -1;
  const step_win *w = &s->steps[best];
  return w->trace_id == trace_id && ts < w->end ? w->step : -1;
}

static void pop(nest_state *s) {
  open_slice *x = &s->stack[--s->n];
  int64_t self = x->dur - x->children;
  if (self < 0) self = 0;
  int64_t step = step_at(s, s->trace_id, x->ts);
  tree_row t = {x->id, x->parent, self, step, x->depth};
  if (extsort_add(s->tree, &t)) s->failed = 1;
  if (x->op && opstats_add(s->ops, step, x->name_id, x->dur, self, x->shaped, s->ops_ins,
                           s->trace_id, s->pid, s->tid))
    s->failed = 1;
  if (s->n > 0) {
    open_slice *p = &s->stack[s->n - 1];
    int64_t end = x->end < p->end ? x->end : p->end;
    if (end > x->ts) p->children += end - x->ts;
  }
}

static void push(nest_state *s, int64_t id, int64_t ts, int64_t dur, int64_t name_id, int op,
                 int shaped) {
  while (s->n > 0 && s->stack[s->n - 1].end <= ts) pop(s);
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->stack = realloc(s->stack, (size_t)s->cap * sizeof *s->stack);
    if (!s->stack) ld_oom();
  }
  open_slice *x = &s->stack[s->n];
  x->id = id;
  x->ts = ts;
  x->dur = dur;
  x->end = ts + dur;
  x->parent = s->n ? s->stack[s->n - 1].id : -1;
  x->depth = s->n;
  x->children = 0;
  x->name_id = name_id;
  x->op = op;
  x->shaped = shaped;
  if (s->n && x->end > s->stack[s->n - 1].end) s->overhang++;
  s->n++;
}

static void busy_flush(nest_state *s, int c, const ld_value *pid, const ld_value *tid) {
  busy_run *r = &s->busy[c];
  if (!r->open) return;
  r->open = 0;
  sqlite3_bind_int64(s->busy_ins, 1, s->trace_id);
  ld_bind_value(s->busy_ins, 2, pid);
  ld_bind_value(s->busy_ins, 3, tid);
  sqlite3_bind_text(s->busy_ins, 4, busy_class[c], -1, SQLITE_STATIC);
  sqlite3_bind_int64(s->busy_ins, 5, r->a);
  sqlite3_bind_int64(s->busy_ins, 6, r->b - r->a);
  if (sqlite3_step(s->busy_ins) != SQLITE_DONE) s->failed = 1;
  sqlite3_reset(s->busy_ins);
}

/* Extend class c's current interval with [a, b), or start a new one: the
** slices of a thread come sorted by start. */
static void busy_add(nest_state *s, int c, int64_t a, int64_t b, const ld_value *pid,
                     const ld_value *tid) {
  busy_run *r = &s->busy[c];
  if (r->open && a <= r->b) {
    if (b > r->b) r->b = b;
    return;
  }
  busy_flush(s, c, pid, tid);
  r->a = a;
  r->b = b;
  r->open = 1;
}

static int load_name_classes(ld_ctx *ctx, name_class *nc) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(
          ctx->db,
          "SELECT id, CASE WHEN value GLOB 'ProfilerStep#*' THEN 1 ELSE 2 END FROM _string"
          " WHERE value GLOB 'ProfilerStep#*' OR value GLOB 'enumerate(DataLoader)*'"
          " ORDER BY id",
          -1, &st, NULL) != SQLITE_OK)
    return -1;
  int cap = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (nc->n == cap) {
      cap = cap ? cap * 2 : 64;
      nc->id = realloc(nc->id, (size_t)cap * sizeof *nc->id);
      nc->cls = realloc(nc->cls, (size_t)cap * sizeof *nc->cls);
      if (!nc->id || !nc->cls) ld_oom();
    }
    nc->id[nc->n] = sqlite3_column_int64(st, 0);
    nc->cls[nc->n++] = sqlite3_column_int(st, 1);
  }
  return sqlite3_finalize(st) == SQLITE_OK ? 0 : -1;
}

/* Index of name id in nc, or -1. */
static int find_name(const name_class *nc, int64_t id) {
  int lo = 0, hi = nc->n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (nc->id[mid] == id) return mid;
    if (nc->id[mid] < id)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

static int class_of(const name_class *nc, int64_t id) {
  int i = find_name(nc, id);
  return i < 0 ? 0 : nc->cls[i];
}

static int load_steps(ld_ctx *ctx, nest_state *s, int64_t first_trace) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(ctx->db,
                         "SELECT trace_id, step, ts, ts + dur FROM step WHERE trace_id >= ?"
                         " ORDER BY trace_id, ts",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, first_trace);
  int cap = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (s->nsteps == cap) {
      cap = cap ? cap * 2 : 64;
      s->steps = realloc(s->steps, (size_t)cap * sizeof *s->steps);
      if (!s->steps) ld_oom();
    }
    step_win *w = &s->steps[s->nsteps++];
    w->trace_id = sqlite3_column_int64(st, 0);
    w->step = sqlite3_column_int64(st, 1);
    w->ts = sqlite3_column_int64(st, 2);
    w->end = sqlite3_column_int64(st, 3);
  }
  sqlite3_finalize(st);
  return 0;
}

static int exec_with_first(ld_ctx *ctx, const char *sql, int64_t first);

#define TREE_SORT_MEMORY (16 << 20) /* bytes of _slice_tree rows sorted in memory at once */

static int cmp_step_row(const void *x, const void *y) {
  const step_row *a = x, *b = y;
  if (a->trace_id != b->trace_id) return a->trace_id < b->trace_id ? -1 : 1;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* The step table: ProfilerStep#N ranges (user_annotation, or cpu_op in
** 2021 traces), the first one by start when a number repeats; then their
** GPU projections. */
static int write_steps(ld_ctx *ctx, step_row *rows, size_t n, int64_t first_trace) {
  if (n) qsort(rows, n, sizeof *rows, cmp_step_row);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(ctx->db,
                         "INSERT OR IGNORE INTO step(trace_id, step, event_id, ts, dur)"
                         " VALUES(?,?,?,?,?)",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    sqlite3_bind_int64(st, 1, rows[i].trace_id);
    sqlite3_bind_int64(st, 2, rows[i].step);
    sqlite3_bind_int64(st, 3, rows[i].id);
    sqlite3_bind_int64(st, 4, rows[i].ts);
    sqlite3_bind_int64(st, 5, rows[i].dur);
    rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  if (rc == 0) rc = exec_with_first(ctx, profdb_sql_postpass_step_gpu, first_trace);
  return rc;
}

/* Insert the _slice_tree rows in id order. */
static int write_tree(ld_ctx *ctx, ld_extsort *tree) {
  sqlite3_stmt *ins;
  if (extsort_finish(tree) ||
      sqlite3_prepare_v2(ctx->db,
                         "INSERT INTO _slice_tree(id, parent_id, depth, self_dur, step)"
                         " VALUES(?,?,?,?,?)",
                         -1, &ins, NULL) != SQLITE_OK)
    return -1;
  int rc = 0;
  for (const tree_row *t; rc == 0 && (t = extsort_next(tree));) {
    sqlite3_bind_int64(ins, 1, t->id);
    if (t->parent >= 0)
      sqlite3_bind_int64(ins, 2, t->parent);
    else
      sqlite3_bind_null(ins, 2);
    sqlite3_bind_int(ins, 3, t->depth);
    sqlite3_bind_int64(ins, 4, t->self);
    if (t->step >= 0)
      sqlite3_bind_int64(ins, 5, t->step);
    else
      sqlite3_bind_null(ins, 5);
    rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  return rc || extsort_failed(tree) ? -1 : 0;
}

/* The open slices, busy intervals and operator totals of the current
** thread are written out when it ends. */
static void end_thread(nest_state *s) {
  while (s->n) pop(s);
  for (int c = 0; c < BUSY__N; c++) busy_flush(s, c, s->pid, s->tid);
  if (s->pid && opstats_flush(s->ops, s->ops_ins, s->trace_id, s->pid, s->tid)) s->failed = 1;
}

/* Nesting of the CPU slices the parser gathered (traces >= first_trace):
** the step table first (the pass gives each slice its step), then one pass
** over the sorted slices. */
static int build_tree(ld_ctx *ctx, int64_t first_trace) {
  nest_state s = {0};
  ld_nest *nest = ctx->nest;
  int rc = -1;
  size_t nsteps;
  step_row *steps = nest_steps(nest, &nsteps);
  if (load_name_classes(ctx, &s.names) || write_steps(ctx, steps, nsteps, first_trace))
    goto done;
  s.tree = extsort_new(sizeof(tree_row), cmp_tree_row, TREE_SORT_MEMORY);
  if (sqlite3_prepare_v2(
          ctx->db,
          "INSERT INTO cpu_busy(trace_id, pid, tid, class, ts, dur) VALUES(?,?,?,?,?,?)", -1,
          &s.busy_ins, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(
          ctx->db,
          "INSERT INTO _op_stats(trace_id, pid, tid, step, name_id, calls, total_dur, self_dur,"
          " max_dur, shaped) VALUES(?,?,?,?,?,?,?,?,?,?)",
          -1, &s.ops_ins, NULL) != SQLITE_OK)
    goto done;
  s.ops = opstats_new();
  if (load_steps(ctx, &s, first_trace)) goto done;
  if (nest_finish(nest)) {
    fprintf(ctx->msg, "profdb: cannot write a temporary file to sort slices\n");
    goto done;
  }
  ld_phase(ctx, "nesting: sort");
  int thread = -1;
  int64_t last_trace = -1;
  uint64_t overhang_before = 0;
  for (const nest_row *r; (r = nest_next(nest)) && !s.failed;) {
    if (r->thread != thread) {
      end_thread(&s);
      thread = r->thread;
      int64_t trace_id = nest_thread_trace(nest, thread);
      if (trace_id != last_trace && last_trace >= 0) {
        if (ld_put_stat(ctx->db, LD_KIND_TRACE, last_trace, PROFDB_STAT_slice_overhang,
                        (int64_t)(s.overhang - overhang_before)))
          goto done;
        overhang_before = s.overhang;
      }
      s.trace_id = last_trace = trace_id;
      s.pid = nest_thread_pid(nest, thread);
      s.tid = nest_thread_tid(nest, thread);
    }
    int name_class = class_of(&s.names, r->name_id), kind = r->kind;
    push(&s, r->id, r->ts, r->dur, r->name_id, kind == PROFDB_KIND_CPU_OP && name_class != 1,
         r->shaped);
    int64_t end = r->ts + r->dur;
    /* CPU work: operators, annotations, Python functions, runtime calls. */
    int cpu_work = kind == PROFDB_KIND_CPU_OP || kind == PROFDB_KIND_USER_ANNOTATION ||
                   kind == PROFDB_KIND_PYTHON_FUNCTION || kind == PROFDB_KIND_RUNTIME;
    if (cpu_work && name_class != 1) busy_add(&s, BUSY_CPU, r->ts, end, s.pid, s.tid);
    if (kind == PROFDB_KIND_RUNTIME) busy_add(&s, BUSY_RUNTIME, r->ts, end, s.pid, s.tid);
    if (name_class == 2 && kind != PROFDB_KIND_RUNTIME)
      busy_add(&s, BUSY_DATALOADER, r->ts, end, s.pid, s.tid);
  }
  end_thread(&s);
  if (nest_failed(nest)) {
    fprintf(ctx->msg, "profdb: cannot read back a temporary file of sorted slices\n");
    goto done;
  }
  ld_phase(ctx, "nesting: pass");
  if (write_tree(ctx, s.tree)) goto done;
  if (last_trace >= 0 &&
      ld_put_stat(ctx->db, LD_KIND_TRACE, last_trace, PROFDB_STAT_slice_overhang,
                  (int64_t)(s.overhang - overhang_before)))
    goto done;
  rc = s.failed ? -1 : 0;
done:
  if (rc)
    fprintf(ctx->msg, "profdb: database error while nesting slices: %s\n",
            sqlite3_errmsg(ctx->db));
  extsort_free(s.tree);
  sqlite3_finalize(s.busy_ins);
  sqlite3_finalize(s.ops_ins);
  opstats_free(s.ops);
  free(s.stack);
  free(s.steps);
  free(s.names.id);
  free(s.names.cls);
  return rc;
}

/* Run an embedded script with ?1 = first; prints the error. */
static int exec_with_first(ld_ctx *ctx, const char *sql, int64_t first) {
  if (ld_exec_script(ctx->db, sql, first) == 0) return 0;
  fprintf(ctx->msg, "profdb: database error: %s\n", sqlite3_errmsg(ctx->db));
  return -1;
}

/* import_stats rows of one trace's unmatched flows. */
static int put_flow_stats(void *arg, int64_t trace_id, int64_t starts, int64_t finishes) {
  ld_ctx *ctx = arg;
  return ld_put_stat(ctx->db, LD_KIND_TRACE, trace_id, PROFDB_STAT_flow_start_unmatched,
                     starts) ||
         ld_put_stat(ctx->db, LD_KIND_TRACE, trace_id, PROFDB_STAT_flow_end_unmatched,
                     finishes);
}

/* Counts of orphan flows, per new trace (flows.c; postpass_flow_stats.sql
** for traces with text flow ids).  First in the post-pass: the sort's
** memory is given back before the nesting takes its own. */
static int flow_stats(ld_ctx *ctx) {
  if (flows_count(ctx->flows, put_flow_stats, ctx)) return -1;
  flows_release(ctx->flows);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(ctx->db, profdb_sql_postpass_flow_stats, -1, &st, NULL) != SQLITE_OK)
    return -1;
  const int64_t *traces;
  int n = flows_sql_traces(ctx->flows, &traces), rc = 0;
  for (int i = 0; i < n && rc == 0; i++) {
    sqlite3_bind_int64(st, 1, traces[i]);
    rc = sqlite3_step(st) == SQLITE_ROW
             ? put_flow_stats(ctx, traces[i], sqlite3_column_int64(st, 0),
                              sqlite3_column_int64(st, 1))
             : -1;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return rc;
}

/* Counts of unlinked GPU work, per new trace (sql/postpass_link_stats.sql);
** the rows' names and descriptions come from profdb/stats.h (ld_put_stat). */
static int link_stats(ld_ctx *ctx, int64_t first) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(ctx->db, profdb_sql_postpass_link_stats, -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, first);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    if (ld_put_stat(ctx->db, LD_KIND_TRACE, sqlite3_column_int64(st, 0),
                    PROFDB_STAT_gpu_without_launch, sqlite3_column_int64(st, 1)))
      break;
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : -1;
}

int postpass_prepare(ld_ctx *ctx) {
  return ld_exec(ctx, profdb_sql_postpass_indexes);
}

int postpass_run(ld_ctx *ctx, int64_t first_trace, int64_t first_snapshot) {
  progress_phase("counting unmatched flows");
  if (flow_stats(ctx)) {
    fprintf(ctx->msg, "profdb: cannot count the flows: %s\n", sqlite3_errmsg(ctx->db));
    return -1;
  }
  ld_phase(ctx, "flow stats");
  progress_phase("nesting CPU slices");
  if (exec_with_first(ctx, profdb_sql_postpass_legacy_blocks, first_snapshot)) return -1;
  if (build_tree(ctx, first_trace) ||
      ld_exec(ctx,
              "CREATE INDEX IF NOT EXISTS cpu_busy_by_ts ON cpu_busy(trace_id, class, ts)"))
    return -1;
  ld_phase(ctx, "nesting");
  progress_phase("linking GPU work to CPU ops");
  if (exec_with_first(ctx, profdb_sql_postpass_links, first_trace)) return -1;
  ld_phase(ctx, "gpu links");
  progress_phase("step spans");
  if (exec_with_first(ctx, profdb_sql_postpass_spans, first_trace)) return -1;
  ld_phase(ctx, "spans");
  progress_phase("counting unlinked events");
  if (link_stats(ctx, first_trace)) {
    fprintf(ctx->msg, "profdb: database error: %s\n", sqlite3_errmsg(ctx->db));
    return -1;
  }
  ld_phase(ctx, "link stats");
  progress_phase("analyzing");
  int rc = ld_exec(ctx, "PRAGMA analysis_limit=400; ANALYZE;");
  ld_phase(ctx, "analyze");
  return rc;
}

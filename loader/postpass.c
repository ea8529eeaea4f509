/*
** postpass.c — derived tables, computed once after the bulk insert.
**
**   step        ProfilerStep#N ranges (CPU), with their GPU projections
**   _slice_tree parent, depth, self time and step of every CPU slice
**   cpu_busy    per thread, the union of its slices (and of its runtime
**               calls, DataLoader ranges) as disjoint intervals
**   _op_stats   per thread, step and operator name: calls and times
**   _attr_*     attribution: per operator call its context (enclosing
**               operator names and shapes, nn.Module and annotation paths,
**               source frame), per range its path, per path the host time
**               (attr_*() below)
**   _gpu_link   kernel/memcpy/memset/sync -> launching runtime call (same
**               correlation) -> CPU op (same External id) and step
**   indexes     created once the rows are in (first on the writer thread,
**               below): one sort each, cheaper than the writer thread
**               maintaining them per insert while the parser waits for it
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
**
** HOW IT WORKS (threads)
**   After the parse the writer thread would sit idle while this thread
**   builds indexes and nests.  So the nesting's SQL goes through the
**   writer's queue, in order (writer_call for the scripts: the indexes, the
**   legacy blocks' addresses, the steps' GPU projection; row_begin_stmt
**   for the rows of step, cpu_busy, _op_stats, _attr_* and _slice_tree):
**   the writer builds the indexes and inserts while this thread merges the
**   sorted slices, walks them and radix-sorts the tree rows.  Each table
**   gets its rows in the order it got them when this thread inserted them,
**   so rowids are the same.  Nothing here reads the database while rows
**   are queued: the name classes are read first, the steps' windows come
**   from the rows queued, the import_stats rows wait for writer_sync.
**
** HOW IT WORKS (attribution)
**   Each open slice carries what encloses it: the chain of enclosing
**   operators (an interned (parent chain, name, shapes hash) key), the
**   innermost nn.Module and annotation paths (interned (tree, parent path,
**   name) keys), the source frame so far (the innermost Python frame of
**   lowest frame_rank()) and the innermost FLOP-counted operator.  A child
**   inherits its parent's and adds its own.  An operator's context is the
**   interned tuple of the four; a context, path or chain seen for the first
**   time gets the event id of the slice that introduced it as its id (ids
**   of slices are unique across loads, so appends need no renumbering) and
**   its rows are written then.  Keys include the trace: a context belongs
**   to one trace, whose --replace deletes it (load.c, delete_artifact).  The report reads these small tables with
**   plain joins.  Memory is bounded by the distinct contexts, paths and
**   chains: the model's structure, not the trace's length.
*/
#include "loader.h"
#include "clock.h"
#include "oom.h"
#include "extsort.h"
#include "flows.h"
#include "nest.h"
#include "opstats.h"
#include "intern.h"
#include "progress.h"
#include "sql.h"

#include "../sqlext/frame_rank.h"

#include "profdb/codes.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct open_slice {
  int64_t id, ts, end, dur;
  int64_t parent; /* -1: none */
  int depth;
  int64_t children; /* ns covered by direct children */
  int64_t name_id;
  int op;           /* an operator (cpu_op, not ProfilerStep#N): counted in _op_stats */
  int shaped;       /* it recorded Input Dims */
  int cpu_op;       /* kind cpu_op (ProfilerStep#N included) */
  uint64_t dims;    /* hash of its Input Dims, 0 when none */
  uint64_t types;   /* hash of its Input type, 0 when none */
  int64_t shape_id; /* a cpu_op: its (name, shapes, types) (_attr_shape.shape_id), else -1 */
  /* attribution: what encloses it, itself included (see HOW IT WORKS) */
  int64_t chain;    /* operator chain (interned key), 0 when none */
  int64_t mod, ann; /* module / annotation path (interned key), 0 when none */
  int64_t src;      /* source frame name id, -1 when none */
  int src_rank;     /* its frame_rank(), 4 when none */
  int64_t flop;     /* innermost FLOP-counted operator (event id), -1 when none */
  int64_t ctx_id;   /* cpu_op, runtime call: its context (_attr_ctx.id), else -1 */
  int64_t path_id;  /* a module or annotation range: its path (_attr_path.id), else -1 */
  int64_t op_in; /* innermost cpu_op enclosing it, itself included (event id), -1 when none */
  int64_t launcher; /* a runtime call: the innermost cpu_op enclosing it, else -1 */
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

/* Name classes (bits), as the report's SQL tells them apart. */
enum {
  CLS_STEP = 1,       /* GLOB 'ProfilerStep#*' */
  CLS_DATALOADER = 2, /* GLOB 'enumerate(DataLoader)*' */
  CLS_MODULE = 4,     /* LIKE 'nn.Module: %' (a module's Python frame) */
  CLS_FRAME = 8,      /* GLOB '*.py([0-9]*): *' (a source frame) */
  CLS_FLOP = 16,      /* an operator op_flops() counts */
  CLS_MARKER = 32     /* a marker the report's CPU sections look for (_attr_marker) */
};

/* Name ids of the classes above, sorted, so the pass classifies a slice
** without a join per row; rank: frame_rank() of a CLS_FRAME's file. */
typedef struct name_class {
  int64_t *id;
  int *cls, *rank;
  int n;
} name_class;

/* Interned attribution keys: intern id -> what the tables call them. */
typedef struct attr_map {
  ld_intern *keys;
  int64_t *slice; /* the event id that introduced the key (its table id) */
  int *depth;     /* paths: depth */
  size_t cap;
} attr_map;

/* A _slice_tree row, sorted by id before insertion so that the table's
** pages fill up (rows come out of the pass in thread order). */
typedef struct tree_row {
  int64_t id, parent, self, step;   /* parent, step: -1 for NULL */
  int64_t ctx_id, path_id, flop_id; /* -1 for NULL */
  int64_t launcher;                 /* a runtime call's innermost enclosing cpu_op, -1: none */
  int32_t depth;
} tree_row;

static int cmp_tree_row(const void *x, const void *y) {
  const tree_row *a = x, *b = y;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* import_stats.slice_overhang of a trace, written once the writer is idle. */
typedef struct overhang_stat {
  int64_t trace_id, value;
} overhang_stat;

typedef struct nest_state {
  ld_writer *w; /* every row goes through its batches (see HOW IT WORKS (threads)) */
  name_class names;
  ld_extsort *tree; /* the _slice_tree rows, by id */
  busy_run busy[BUSY__N];
  sqlite3_stmt *busy_ins;
  ld_opstats *ops; /* operator totals of the current thread */
  sqlite3_stmt *ops_ins;
  ld_opstats *ranges; /* module / annotation path totals of the current thread */
  ld_opstats *shapes; /* operator totals per (name, shapes, types) of the current thread */
  sqlite3_stmt *shapes_ins;
  attr_map shape_keys;
  sqlite3_stmt *ranges_ins;
  attr_map chains, paths, ctxs; /* interned attribution keys */
  sqlite3_stmt *path_ins, *ctx_ins, *ctx_op_ins, *ctx_shape_ins, *flop_ins, *marker_ins;
  sqlite3_stmt *step_ins, *tree_ins, *launch_ins;
  const ld_value *pid, *tid; /* the current thread */
  open_slice *stack;
  int n, cap;
  step_win *steps; /* sorted by (trace_id, ts) */
  int nsteps;
  int64_t trace_id;
  uint64_t overhang;
  overhang_stat *overhangs; /* per trace, in order */
  int noverhangs;
  int failed;
} nest_state;

/* The batch a row for st (nparams parameters) is encoded into; end it with
** row_done. */
static ld_buf *row_for(nest_state *s, sqlite3_stmt *st, int nparams) {
  ld_buf *b = writer_batch(s->w);
  row_begin_stmt(b, st, nparams);
  return b;
}

static void row_done(nest_state *s) {
  if (writer_maybe_flush(s->w)) s->failed = 1;
}

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
  tree_row t = {
      x->id,       x->parent, self, step, x->ctx_id, x->path_id, x->cpu_op ? x->flop : -1,
      x->launcher, x->depth};
  if (extsort_add(s->tree, &t)) s->failed = 1;
  if (x->op && opstats_add(s->ops, step, x->name_id, x->dur, self, x->shaped, s->trace_id,
                           s->pid, s->tid))
    s->failed = 1;
  if (x->shape_id >= 0 && opstats_add(s->shapes, step, x->shape_id, x->dur, self, x->shaped,
                                      s->trace_id, s->pid, s->tid))
    s->failed = 1;
  if (x->path_id >= 0 &&
      opstats_add(s->ranges, step, x->path_id, x->dur, self, 0, s->trace_id, s->pid, s->tid))
    s->failed = 1;
  if (s->n > 0) {
    open_slice *p = &s->stack[s->n - 1];
    int64_t end = x->end < p->end ? x->end : p->end;
    if (end > x->ts) p->children += end - x->ts;
  }
}

/* The table id of an interned key (the event id that introduced it) and
** whether it is new; a new key records slice as its id. */
static int64_t attr_key(attr_map *m, const void *key, size_t len, int64_t slice, int depth,
                        int *is_new) {
  int64_t k = intern_id(m->keys, key, len, is_new);
  if (*is_new) {
    if ((size_t)k >= m->cap) {
      m->cap = m->cap ? 2 * m->cap : 1024;
      while (m->cap <= (size_t)k) m->cap *= 2;
      m->slice = realloc(m->slice, m->cap * sizeof *m->slice);
      m->depth = realloc(m->depth, m->cap * sizeof *m->depth);
      if (!m->slice || !m->depth) ld_oom();
    }
    m->slice[k] = slice;
    m->depth[k] = depth;
  }
  return k;
}

/* An id column: NULL when v < 0. */
static void row_id(ld_buf *b, int col, int64_t v) {
  row_int_opt(b, col, v >= 0, v);
}

/* The path (interned key) of a module or annotation range x under its
** tree's enclosing path; a new path gets its _attr_path row. */
static int64_t attr_path(nest_state *s, open_slice *x, char tree, int64_t parent) {
  int64_t key[4] = {s->trace_id, tree, parent, x->name_id};
  int is_new, depth = parent ? s->paths.depth[parent] + 1 : 0;
  int64_t k = attr_key(&s->paths, key, sizeof key, x->id, depth, &is_new);
  x->path_id = s->paths.slice[k];
  if (is_new) {
    ld_buf *b = row_for(s, s->path_ins, 5);
    const char *name = tree == 'm' ? "module" : "annotation";
    row_int(b, 0, x->id);
    row_text(b, 1, name, strlen(name));
    row_int(b, 2, x->name_id);
    row_id(b, 3, parent ? s->paths.slice[parent] : -1);
    row_int(b, 4, depth);
    row_done(s);
  }
  return k;
}

/* The operators on the stack (x, the top, included), for a new context's
** _attr_ctx_op and _attr_ctx_shape rows: each name, and each (name,
** shapes), once. */
static void attr_ctx_rows(nest_state *s, int64_t ctx, const open_slice *x) {
  for (int i = 0; i <= s->n; i++) {
    const open_slice *a = &s->stack[i];
    if (!a->cpu_op) continue;
    int first_name = 1, first_shape = a->shaped, self_name = 0, self_shape = 0;
    for (int j = 0; j <= s->n; j++) {
      const open_slice *b = &s->stack[j];
      if (!b->cpu_op || b->name_id != a->name_id) continue;
      if (j < i) first_name = 0;
      if (j < i && b->shaped && b->dims == a->dims) first_shape = 0;
      if (b == x) self_name = 1;
      if (b == x && b->dims == a->dims) self_shape = 1;
    }
    if (first_name) {
      ld_buf *b = row_for(s, s->ctx_op_ins, 3);
      row_int(b, 0, ctx);
      row_int(b, 1, a->name_id);
      row_int(b, 2, self_name);
      row_done(s);
    }
    if (first_shape) {
      ld_buf *b = row_for(s, s->ctx_shape_ins, 4);
      row_int(b, 0, ctx);
      row_int(b, 1, a->name_id);
      row_int(b, 2, a->id);
      row_int(b, 3, self_shape && x->shaped);
      row_done(s);
    }
  }
}

/* The context of x from its (chain, module, annotation, source) key: the
** interned id, written to _attr_ctx (and its operator rows) when new. */
static void attr_ctx(nest_state *s, open_slice *x) {
  int is_new;
  /* the trace too: a runtime call's context may have no chain (which has it) */
  int64_t key[5] = {s->trace_id, x->chain, x->mod, x->ann, x->src};
  int64_t k = attr_key(&s->ctxs, key, sizeof key, x->id, 0, &is_new);
  x->ctx_id = s->ctxs.slice[k];
  if (!is_new) return;
  ld_buf *b = row_for(s, s->ctx_ins, 4);
  row_int(b, 0, x->ctx_id);
  row_id(b, 1, x->mod ? s->paths.slice[x->mod] : -1);
  row_id(b, 2, x->ann ? s->paths.slice[x->ann] : -1);
  row_id(b, 3, x->src);
  row_done(s);
  attr_ctx_rows(s, x->ctx_id, x);
}

/* A runtime call: the innermost cpu_op around it (the launch's operator
** when no External id link holds, postpass_links.sql) and its context, for
** the GPU work that no operator launched (docs/definitions.md, "Launching
** operator"); directly inside an operator that is the operator's own. */
static void attribute_runtime(nest_state *s, open_slice *x, const open_slice *p) {
  x->launcher = p ? p->op_in : -1;
  if (p && p->cpu_op)
    x->ctx_id = p->ctx_id;
  else if (x->chain || x->mod || x->ann || x->src >= 0)
    attr_ctx(s, x);
}

/* Attribution of slice x (the top of the stack, not yet counted in s->n)
** from its parent's: see HOW IT WORKS. */
static void attribute(nest_state *s, open_slice *x, int kind, int cls, int rank) {
  const open_slice *p = s->n ? &s->stack[s->n - 1] : NULL;
  x->chain = p ? p->chain : 0;
  x->mod = p ? p->mod : 0;
  x->ann = p ? p->ann : 0;
  x->src = p ? p->src : -1;
  x->src_rank = p ? p->src_rank : 4;
  x->flop = p ? p->flop : -1;
  x->ctx_id = x->path_id = x->shape_id = x->launcher = -1;
  x->cpu_op = kind == PROFDB_KIND_CPU_OP;
  x->op_in = x->cpu_op ? x->id : p ? p->op_in : -1;
  if ((cls & CLS_MARKER) &&
      (x->cpu_op || kind == PROFDB_KIND_USER_ANNOTATION || kind == PROFDB_KIND_RUNTIME ||
       kind == PROFDB_KIND_PYTHON_FUNCTION)) {
    row_int(row_for(s, s->marker_ins, 1), 0, x->id);
    row_done(s);
  }
  if (kind == PROFDB_KIND_RUNTIME) attribute_runtime(s, x, p);
  if (kind == PROFDB_KIND_PYTHON_FUNCTION) {
    if (cls & CLS_MODULE) x->mod = attr_path(s, x, 'm', x->mod);
    if ((cls & CLS_FRAME) && rank <= x->src_rank) {
      x->src = x->name_id;
      x->src_rank = rank;
    }
  }
  if (kind == PROFDB_KIND_USER_ANNOTATION && !(cls & CLS_STEP))
    x->ann = attr_path(s, x, 'a', x->ann);
  if (!x->cpu_op) return;
  if ((cls & CLS_FLOP) && x->shaped) {
    ld_buf *b = row_for(s, s->flop_ins, 2);
    row_int(b, 0, x->id);
    row_id(b, 1, x->flop);
    row_done(s);
    x->flop = x->id;
  }
  int is_new;
  {
    int64_t shape[4] = {s->trace_id, x->name_id, (int64_t)x->dims, (int64_t)x->types};
    int64_t k = attr_key(&s->shape_keys, shape, sizeof shape, x->id, 0, &is_new);
    x->shape_id = s->shape_keys.slice[k];
  }
  int64_t chain[4] = {s->trace_id, x->chain, x->name_id, (int64_t)x->dims};
  x->chain = attr_key(&s->chains, chain, sizeof chain, x->id, 0, &is_new);
  attr_ctx(s, x);
}

static void push(nest_state *s, const nest_row *r, int op, int cls, int rank) {
  while (s->n > 0 && s->stack[s->n - 1].end <= r->ts) pop(s);
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->stack = realloc(s->stack, (size_t)s->cap * sizeof *s->stack);
    if (!s->stack) ld_oom();
  }
  open_slice *x = &s->stack[s->n];
  x->id = r->id;
  x->ts = r->ts;
  x->dur = r->dur;
  x->end = r->ts + r->dur;
  x->parent = s->n ? s->stack[s->n - 1].id : -1;
  x->depth = s->n;
  x->children = 0;
  x->name_id = r->name_id;
  x->op = op;
  x->shaped = r->shaped;
  x->dims = r->dims;
  x->types = r->types;
  attribute(s, x, r->kind, cls, rank);
  if (s->n && x->end > s->stack[s->n - 1].end) s->overhang++;
  s->n++;
}

static void busy_flush(nest_state *s, int c, const ld_value *pid, const ld_value *tid) {
  busy_run *r = &s->busy[c];
  if (!r->open) return;
  r->open = 0;
  ld_buf *b = row_for(s, s->busy_ins, 6);
  row_int(b, 0, s->trace_id);
  ld_row_value(b, 1, pid);
  ld_row_value(b, 2, tid);
  row_text(b, 3, busy_class[c], strlen(busy_class[c]));
  row_int(b, 4, r->a);
  row_int(b, 5, r->b - r->a);
  row_done(s);
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

/* The names of markers: queries/lib/10_trace_scope.sql's report_marker_name
** but ProfilerStep#N (sync calls, checkpoint / recompute frames, backward
** and optimizer phases, DataLoader ranges); the report reads the slices
** of these names from _attr_marker, so the two lists must agree
** (report.marker checks it).  They include the allocator and set-up calls
** (report_setup_name). */
#define MARKER_NAME                                                                          \
  "(value IN ('cudaStreamSynchronize', 'cudaDeviceSynchronize', 'cudaEventSynchronize',"     \
  " 'cudaMemcpy', 'cudaMemcpy2D', 'cudaMemcpy3D', 'cudaMemcpyPeer', 'cudaMemcpyFromSymbol'," \
  " 'cudaMemcpyToSymbol', 'cuMemcpyDtoH', 'cuMemcpyDtoH_v2', 'cuMemcpyHtoD',"                \
  " 'cuMemcpyHtoD_v2', 'hipStreamSynchronize', 'hipDeviceSynchronize',"                      \
  " 'hipEventSynchronize', 'hipMemcpy', 'hipMemcpyWithStream', 'hipMemcpyDtoH',"             \
  " 'hipMemcpyHtoD', 'hipMemcpy2D', 'hipMemcpy3D', 'hipMemcpyPeer', 'hipMemcpyFromSymbol',"  \
  " 'hipMemcpyToSymbol', 'aten::item', 'aten::_local_scalar_dense', 'aten::is_nonzero',"     \
  " 'aten::equal',"                                                                          \
  " 'cudaFree', 'cudaFreeHost', 'hipFree', 'hipHostFree', 'hipFreeHost',"                    \
  " 'cudaMalloc', 'cudaMallocHost', 'cudaHostAlloc', 'cudaMallocManaged',"                   \
  " 'cudaMallocPitch', 'cuMemAlloc', 'cuMemAlloc_v2', 'cuMemFree', 'cuMemFree_v2',"          \
  " 'hipMalloc', 'hipHostMalloc', 'hipMallocManaged', 'hipExtMallocWithFlags',"              \
  " 'hipMallocPitch', 'cudaEventCreate', 'cudaEventCreateWithFlags',"                        \
  " 'cudaStreamCreate', 'cudaStreamCreateWithFlags',"                                        \
  " 'cudaStreamCreateWithPriority', 'cuModuleLoad', 'cuModuleLoadData',"                     \
  " 'cuModuleLoadDataEx', 'cuModuleGetFunction', 'cuLibraryLoadData',"                       \
  " 'hipEventCreate', 'hipEventCreateWithFlags', 'hipStreamCreate',"                         \
  " 'hipStreamCreateWithFlags', 'hipStreamCreateWithPriority', 'hipModuleLoad',"             \
  " 'hipModuleLoadData', 'hipModuleLoadDataEx', 'hipModuleGetFunction',"                     \
  " 'cudaOccupancyMaxActiveBlocksPerMultiprocessor',"                                        \
  " 'cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags',"                               \
  " 'cudaOccupancyMaxPotentialBlockSize', 'cudaFuncGetAttributes',"                          \
  " 'cuOccupancyMaxActiveBlocksPerMultiprocessor', 'cuFuncGetAttribute',"                    \
  " 'hipOccupancyMaxActiveBlocksPerMultiprocessor', 'hipFuncGetAttributes'"                  \
  ")"                                                                                        \
  " OR lower(value) LIKE '%checkpoint%' OR lower(value) LIKE '%recompute%'"                  \
  " OR value LIKE 'autograd::engine::evaluate_function%' OR value GLOB '*Backward[0-9]*'"    \
  " OR value LIKE 'Optimizer.step#%' OR value LIKE 'enumerate(DataLoader)%')"

static int load_name_classes(ld_ctx *ctx, name_class *nc) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(
          ctx->db,
          "SELECT id, (value GLOB 'ProfilerStep#*') | ((value GLOB 'enumerate(DataLoader)*') "
          "<< 1)"
          " | ((value LIKE 'nn.Module: %') << 2) | ((value GLOB '*.py([0-9]*): *') << 3)"
          " | ((value IN ('aten::mm', 'aten::addmm', 'aten::bmm', 'aten::baddbmm',"
          " 'aten::matmul', 'aten::linear', 'aten::convolution', 'aten::convolution_backward',"
          " 'aten::scaled_dot_product_attention')) << 4) | ((" MARKER_NAME ") << 5),"
          " substr(value, 1, instr(value, '(') - 1) FROM _string"
          " WHERE length(value) <= 65536 AND (value GLOB 'ProfilerStep#*'"
          " OR value GLOB 'enumerate(DataLoader)*'"
          " OR value LIKE 'nn.Module: %' OR value GLOB '*.py([0-9]*): *'"
          " OR value IN ('aten::mm', 'aten::addmm', 'aten::bmm', 'aten::baddbmm',"
          " 'aten::matmul', 'aten::linear', 'aten::convolution', 'aten::convolution_backward',"
          " 'aten::scaled_dot_product_attention') OR " MARKER_NAME ") ORDER BY id",
          -1, &st, NULL) != SQLITE_OK)
    return -1;
  int cap = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    if (nc->n == cap) {
      cap = cap ? cap * 2 : 64;
      nc->id = realloc(nc->id, (size_t)cap * sizeof *nc->id);
      nc->cls = realloc(nc->cls, (size_t)cap * sizeof *nc->cls);
      nc->rank = realloc(nc->rank, (size_t)cap * sizeof *nc->rank);
      if (!nc->id || !nc->cls || !nc->rank) ld_oom();
    }
    nc->id[nc->n] = sqlite3_column_int64(st, 0);
    nc->cls[nc->n] = sqlite3_column_int(st, 1);
    nc->rank[nc->n++] = frame_rank_of((const char *)sqlite3_column_text(st, 2),
                                      (size_t)sqlite3_column_bytes(st, 2));
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

static int exec_with_first(ld_ctx *ctx, const char *sql, int64_t first);

#define TREE_SORT_MEMORY (16 << 20) /* bytes of _slice_tree rows sorted in memory at once */

static int cmp_step_row(const void *x, const void *y) {
  const step_row *a = x, *b = y;
  if (a->trace_id != b->trace_id) return a->trace_id < b->trace_id ? -1 : 1;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

typedef struct step_key {
  int64_t trace_id, step;
  size_t at; /* its row's index in file-sorted order */
} step_key;

static int cmp_step_key(const void *x, const void *y) {
  const step_key *a = x, *b = y;
  if (a->trace_id != b->trace_id) return a->trace_id < b->trace_id ? -1 : 1;
  if (a->step != b->step) return a->step < b->step ? -1 : 1;
  return a->at < b->at ? -1 : a->at > b->at;
}

/* The step table: ProfilerStep#N ranges (user_annotation, or cpu_op in
** 2021 traces), the first one by start when a number repeats, queued for
** the writer; and the pass's step windows, the rows the table keeps in the
** same (trace, start) order (what SELECT ... ORDER BY trace_id, ts read
** back from it before). */
static void write_steps(nest_state *s, step_row *rows, size_t n) {
  if (n) qsort(rows, n, sizeof *rows, cmp_step_row);
  if (n) {
    s->steps = malloc(n * sizeof *s->steps);
    if (!s->steps) ld_oom();
  }
  for (size_t i = 0; i < n; i++) {
    ld_buf *b = row_for(s, s->step_ins, 5);
    row_int(b, 0, rows[i].trace_id);
    row_int(b, 1, rows[i].step);
    row_int(b, 2, rows[i].id);
    row_int(b, 3, rows[i].ts);
    row_int(b, 4, rows[i].dur);
    row_done(s);
  }
  /* INSERT OR IGNORE keeps the first row of each (trace_id, step). */
  step_key *keys = malloc((n ? n : 1) * sizeof *keys);
  char *keep = calloc(n ? n : 1, 1);
  if (!keys || !keep) ld_oom();
  for (size_t i = 0; i < n; i++) keys[i] = (step_key){rows[i].trace_id, rows[i].step, i};
  if (n) qsort(keys, n, sizeof *keys, cmp_step_key);
  for (size_t i = 0; i < n; i++)
    if (i == 0 || keys[i].trace_id != keys[i - 1].trace_id || keys[i].step != keys[i - 1].step)
      keep[keys[i].at] = 1;
  for (size_t i = 0; i < n; i++)
    if (keep[i])
      s->steps[s->nsteps++] =
          (step_win){rows[i].trace_id, rows[i].step, rows[i].ts, rows[i].ts + rows[i].dur};
  free(keys);
  free(keep);
}

/* The statements of the _slice_tree rows, and of each runtime call's
** innermost enclosing cpu_op in temp._launch_op (read and dropped by
** postpass_links.sql). */
static int tree_prepare(ld_ctx *ctx, nest_state *s) {
  return ld_exec(ctx,
                 "CREATE TEMP TABLE IF NOT EXISTS _launch_op(id INTEGER PRIMARY KEY,"
                 " op_id INTEGER NOT NULL)") ||
                 sqlite3_prepare_v2(ctx->db,
                                    "INSERT INTO temp._launch_op(id, op_id) VALUES(?,?)", -1,
                                    &s->launch_ins, NULL) != SQLITE_OK ||
                 sqlite3_prepare_v2(ctx->db,
                                    "INSERT INTO _slice_tree(id, parent_id, depth, self_dur,"
                                    " step, ctx_id, path_id, flop_id) VALUES(?,?,?,?,?,?,?,?)",
                                    -1, &s->tree_ins, NULL) != SQLITE_OK
             ? -1
             : 0;
}

/* Queue the _slice_tree rows in id order, and the runtime calls'
** temp._launch_op rows. */
static int write_tree(nest_state *s) {
  if (extsort_finish(s->tree)) return -1;
  for (const tree_row *t; !s->failed && (t = extsort_next(s->tree));) {
    if (t->launcher >= 0) {
      ld_buf *b = row_for(s, s->launch_ins, 2);
      row_int(b, 0, t->id);
      row_int(b, 1, t->launcher);
    }
    ld_buf *b = row_for(s, s->tree_ins, 8);
    row_int(b, 0, t->id);
    row_id(b, 1, t->parent);
    row_int(b, 2, t->depth);
    row_int(b, 3, t->self);
    row_id(b, 4, t->step);
    row_id(b, 5, t->ctx_id);
    row_id(b, 6, t->path_id);
    row_id(b, 7, t->flop_id);
    row_done(s);
  }
  return s->failed || extsort_failed(s->tree) ? -1 : 0;
}

/* The open slices, busy intervals and operator totals of the current
** thread are written out when it ends. */
static void end_thread(nest_state *s) {
  while (s->n) pop(s);
  for (int c = 0; c < BUSY__N; c++) busy_flush(s, c, s->pid, s->tid);
  if (s->pid && opstats_flush(s->ops, s->trace_id, s->pid, s->tid)) s->failed = 1;
  if (s->pid && opstats_flush(s->ranges, s->trace_id, s->pid, s->tid)) s->failed = 1;
  if (s->pid && opstats_flush(s->shapes, s->trace_id, s->pid, s->tid)) s->failed = 1;
}

/* The statements writing the attribution tables. */
static int attr_prepare(ld_ctx *ctx, nest_state *s) {
  static const char *const sql[] = {
      "INSERT INTO _attr_range(trace_id, pid, tid, step, path_id, calls, total_dur, self_dur,"
      " max_dur, shaped) VALUES(?,?,?,?,?,?,?,?,?,?)",
      "INSERT INTO _attr_path(id, tree, name_id, parent_id, depth) VALUES(?,?,?,?,?)",
      "INSERT INTO _attr_ctx(id, module_path_id, annotation_path_id, source_id)"
      " VALUES(?,?,?,?)",
      "INSERT INTO _attr_ctx_op(ctx_id, name_id, is_self) VALUES(?,?,?)",
      "INSERT INTO _attr_ctx_shape(ctx_id, name_id, op_id, is_self) VALUES(?,?,?,?)",
      "INSERT INTO _attr_flop(id, parent_id) VALUES(?,?)",
      "INSERT INTO _attr_shape(trace_id, pid, tid, step, shape_id, calls, total_dur, self_dur,"
      " max_dur, shaped) VALUES(?,?,?,?,?,?,?,?,?,?)",
      "INSERT INTO _attr_marker(id) VALUES(?)"};
  sqlite3_stmt **st[] = {&s->ranges_ins,    &s->path_ins, &s->ctx_ins,    &s->ctx_op_ins,
                         &s->ctx_shape_ins, &s->flop_ins, &s->shapes_ins, &s->marker_ins};
  for (size_t i = 0; i < sizeof sql / sizeof *sql; i++)
    if (sqlite3_prepare_v2(ctx->db, sql[i], -1, st[i], NULL) != SQLITE_OK) return -1;
  s->ranges = opstats_new(s->w, s->ranges_ins);
  s->shapes = opstats_new(s->w, s->shapes_ins);
  s->shape_keys.keys = intern_new();
  s->chains.keys = intern_new();
  s->paths.keys = intern_new();
  s->ctxs.keys = intern_new();
  return 0;
}

static void attr_map_free(attr_map *m) {
  intern_free(m->keys);
  free(m->slice);
  free(m->depth);
}

/* Every attribution key holds its trace id, so none outlives its trace:
** emptied when the pass moves to the next one (threads are numbered in file
** order, one trace a file: a trace's threads come together), a folder of
** 1024 ranks keeps one rank's keys, not all of them (the table ids are the
** events' own, unchanged). */
static void attr_maps_reset(nest_state *s) {
  attr_map *maps[] = {&s->shape_keys, &s->chains, &s->paths, &s->ctxs};
  for (size_t i = 0; i < sizeof maps / sizeof *maps; i++) {
    intern_free(maps[i]->keys);
    maps[i]->keys = intern_new();
  }
}

static void attr_free(nest_state *s) {
  sqlite3_stmt *st[] = {s->ranges_ins,    s->path_ins, s->ctx_ins,    s->ctx_op_ins,
                        s->ctx_shape_ins, s->flop_ins, s->shapes_ins, s->marker_ins};
  for (size_t i = 0; i < sizeof st / sizeof *st; i++) sqlite3_finalize(st[i]);
  opstats_free(s->ranges);
  opstats_free(s->shapes);
  attr_map_free(&s->shape_keys);
  attr_map_free(&s->chains);
  attr_map_free(&s->paths);
  attr_map_free(&s->ctxs);
}

/* A script the writer runs in its turn, ?1 bound to first. */
typedef struct script_call {
  const char *sql;
  int64_t first;
} script_call;

static int run_script(sqlite3 *db, void *arg) {
  const script_call *c = arg;
  return ld_exec_script(db, c->sql, c->first);
}

/* Every statement the pass's rows are written with, and its sorts. */
static int nest_prepare(ld_ctx *ctx, nest_state *s) {
  s->tree = extsort_new(sizeof(tree_row), cmp_tree_row, TREE_SORT_MEMORY);
  extsort_int_key(s->tree, offsetof(tree_row, id)); /* ids: radix-sorted */
  if (sqlite3_prepare_v2(
          ctx->db,
          "INSERT INTO cpu_busy(trace_id, pid, tid, class, ts, dur) VALUES(?,?,?,?,?,?)", -1,
          &s->busy_ins, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(
          ctx->db,
          "INSERT INTO _op_stats(trace_id, pid, tid, step, name_id, calls, total_dur, self_dur,"
          " max_dur, shaped) VALUES(?,?,?,?,?,?,?,?,?,?)",
          -1, &s->ops_ins, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(ctx->db,
                         "INSERT OR IGNORE INTO step(trace_id, step, event_id, ts, dur)"
                         " VALUES(?,?,?,?,?)",
                         -1, &s->step_ins, NULL) != SQLITE_OK)
    return -1;
  s->ops = opstats_new(s->w, s->ops_ins);
  return attr_prepare(ctx, s) || tree_prepare(ctx, s) ? -1 : 0;
}

/* A trace's slice_overhang count, written after the pass. */
static void note_overhang(nest_state *s, int64_t trace_id, uint64_t n) {
  s->overhangs = realloc(s->overhangs, (size_t)(s->noverhangs + 1) * sizeof *s->overhangs);
  if (!s->overhangs) ld_oom();
  s->overhangs[s->noverhangs++] = (overhang_stat){trace_id, (int64_t)n};
}

/* The pass over the sorted slices: see HOW IT WORKS. */
static void nest_pass(nest_state *s, ld_nest *nest) {
  int thread = -1;
  int64_t last_trace = -1;
  uint64_t overhang_before = 0;
  for (const nest_row *r; (r = nest_next(nest)) && !s->failed;) {
    if (r->thread != thread) {
      end_thread(s);
      thread = r->thread;
      int64_t trace_id = nest_thread_trace(nest, thread);
      if (trace_id != last_trace && last_trace >= 0) {
        note_overhang(s, last_trace, s->overhang - overhang_before);
        overhang_before = s->overhang;
        attr_maps_reset(s);
      }
      s->trace_id = last_trace = trace_id;
      s->pid = nest_thread_pid(nest, thread);
      s->tid = nest_thread_tid(nest, thread);
    }
    int at = find_name(&s->names, r->name_id), kind = r->kind;
    int cls = at < 0 ? 0 : s->names.cls[at], rank = at < 0 ? 3 : s->names.rank[at];
    push(s, r, kind == PROFDB_KIND_CPU_OP && !(cls & CLS_STEP), cls, rank);
    int64_t end = r->ts + r->dur;
    /* CPU work: operators, annotations, Python functions, runtime calls. */
    int cpu_work = kind == PROFDB_KIND_CPU_OP || kind == PROFDB_KIND_USER_ANNOTATION ||
                   kind == PROFDB_KIND_PYTHON_FUNCTION || kind == PROFDB_KIND_RUNTIME;
    if (cpu_work && !(cls & CLS_STEP)) busy_add(s, BUSY_CPU, r->ts, end, s->pid, s->tid);
    if (kind == PROFDB_KIND_RUNTIME) busy_add(s, BUSY_RUNTIME, r->ts, end, s->pid, s->tid);
    if ((cls & CLS_DATALOADER) && kind != PROFDB_KIND_RUNTIME)
      busy_add(s, BUSY_DATALOADER, r->ts, end, s->pid, s->tid);
  }
  end_thread(s);
  if (last_trace >= 0) note_overhang(s, last_trace, s->overhang - overhang_before);
}

static void nest_free_state(nest_state *s) {
  extsort_free(s->tree);
  sqlite3_stmt *st[] = {s->busy_ins, s->ops_ins, s->step_ins, s->tree_ins, s->launch_ins};
  for (size_t i = 0; i < sizeof st / sizeof *st; i++) sqlite3_finalize(st[i]);
  opstats_free(s->ops);
  attr_free(s);
  free(s->stack);
  free(s->steps);
  free(s->overhangs);
  free(s->names.id);
  free(s->names.cls);
  free(s->names.rank);
}

/* Nesting of the CPU slices the parser gathered (traces >= first_trace).
** Every row goes through the writer thread (HOW IT WORKS (threads)): the
** indexes, the legacy blocks' addresses, the step table and its GPU
** projection, then the pass's rows, while this thread sorts and walks the
** slices. */
static int build_tree(ld_ctx *ctx, int64_t first_trace, int64_t first_snapshot) {
  nest_state s = {.w = ctx->w};
  double wait0, idle0, calls0, wait1, idle1, calls1, t0 = ld_seconds();
  writer_waits(s.w, &wait0, &idle0, &calls0);
  script_call calls[] = {{profdb_sql_postpass_indexes, 0},
                         {profdb_sql_postpass_legacy_blocks, first_snapshot},
                         {profdb_sql_postpass_step_gpu, first_trace}};
  int rc = -1;
  size_t nsteps;
  step_row *steps = nest_steps(ctx->nest, &nsteps);
  if (load_name_classes(ctx, &s.names) || nest_prepare(ctx, &s)) goto done;
  writer_call(s.w, run_script, &calls[0]);
  writer_call(s.w, run_script, &calls[1]);
  write_steps(&s, steps, nsteps);
  writer_call(s.w, run_script, &calls[2]);
  if (nest_finish(ctx->nest)) {
    fprintf(ctx->msg, "profdb: cannot write a temporary file to sort slices\n");
    goto done;
  }
  ld_phase(ctx, "nesting: sort");
  nest_pass(&s, ctx->nest);
  if (nest_failed(ctx->nest)) {
    fprintf(ctx->msg, "profdb: cannot read back a temporary file of sorted slices\n");
    goto done;
  }
  ld_phase(ctx, "nesting: pass");
  if (s.failed || write_tree(&s)) goto done;
  ld_phase(ctx, "nesting: tree rows");
  if (writer_sync(s.w)) goto done;
  ld_phase(ctx, "nesting: writer");
  writer_waits(s.w, &wait1, &idle1, &calls1);
  if (ld_timing())
    fprintf(stderr,
            "profdb: timing:   writer thread meanwhile: indexes and scripts %.3f s,"
            " rows %.3f s, idle %.3f s; main thread waited for it %.3f s\n",
            calls1 - calls0, ld_seconds() - t0 - (idle1 - idle0) - (calls1 - calls0),
            idle1 - idle0, wait1 - wait0);
  if (ld_exec_script(ctx->db, profdb_sql_postpass_attr, 0)) goto done;
  for (int i = 0; i < s.noverhangs; i++)
    if (ld_put_stat(ctx->db, LD_KIND_TRACE, s.overhangs[i].trace_id, PROFDB_STAT_slice_overhang,
                    s.overhangs[i].value))
      goto done;
  rc = 0;
done:
  /* The queued rows name the statements freed below. */
  if (writer_sync(s.w) && !rc) rc = -1;
  if (rc)
    fprintf(ctx->msg, "profdb: database error while nesting slices: %s\n",
            writer_error(s.w) ? writer_error(s.w) : sqlite3_errmsg(ctx->db));
  nest_free_state(&s);
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

/* import_stats rows from a post-pass count script run with ?1 = first
** (the first trace id of this load): each row is a trace id, then one value
** per counter of stats, in order.  The rows' names and descriptions come
** from profdb/stats.h (ld_put_stat). */
static int put_trace_stats(ld_ctx *ctx, const char *sql, int64_t first,
                           const profdb_stat *stats, int nstats) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(ctx->db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
  sqlite3_bind_int64(st, 1, first);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int i = 0;
    while (i < nstats && !ld_put_stat(ctx->db, LD_KIND_TRACE, sqlite3_column_int64(st, 0),
                                      stats[i], sqlite3_column_int64(st, i + 1)))
      i++;
    if (i < nstats) break;
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : -1;
}

/* Per new trace: its unlinked GPU work and its kernel launches with no GPU
** record (sql/postpass_link_stats.sql), and
** how its operator ids run (sql/postpass_id_stats.sql: the report's test
** of a trace sampled after recording reads these counts, which a
** dataset's summary keeps; it keeps neither the ids nor every operator). */
static int trace_stats(ld_ctx *ctx, int64_t first) {
  static const profdb_stat link[] = {PROFDB_STAT_gpu_without_launch,
                                     PROFDB_STAT_captured_launches,
                                     PROFDB_STAT_launch_without_gpu};
  static const profdb_stat ids[] = {PROFDB_STAT_op_id_span, PROFDB_STAT_op_id_pairs,
                                    PROFDB_STAT_op_id_skips};
  return put_trace_stats(ctx, profdb_sql_postpass_link_stats, first, link,
                         (int)(sizeof link / sizeof *link)) ||
         put_trace_stats(ctx, profdb_sql_postpass_id_stats, first, ids,
                         (int)(sizeof ids / sizeof *ids));
}

int postpass_run(ld_ctx *ctx, int64_t first_trace, int64_t first_snapshot) {
  progress_phase("counting unmatched flows");
  if (flow_stats(ctx)) {
    fprintf(ctx->msg, "profdb: cannot count the flows: %s\n", sqlite3_errmsg(ctx->db));
    return -1;
  }
  ld_phase(ctx, "flow stats");
  progress_phase("nesting CPU slices");
  if (build_tree(ctx, first_trace, first_snapshot) || ld_exec(ctx, profdb_sql_cpu_busy_index))
    return -1;
  ld_phase(ctx, "nesting");
  progress_phase("linking GPU work to CPU ops");
  if (exec_with_first(ctx, profdb_sql_postpass_links, first_trace)) return -1;
  ld_phase(ctx, "gpu links");
  progress_phase("step spans");
  if (exec_with_first(ctx, profdb_sql_postpass_spans, first_trace)) return -1;
  ld_phase(ctx, "spans");
  progress_phase("counting unlinked events");
  if (trace_stats(ctx, first_trace)) {
    fprintf(ctx->msg, "profdb: database error: %s\n", sqlite3_errmsg(ctx->db));
    return -1;
  }
  ld_phase(ctx, "link stats");
  progress_phase("analyzing");
  int rc = ld_exec(ctx, "PRAGMA analysis_limit=400; ANALYZE;");
  ld_phase(ctx, "analyze");
  return rc;
}

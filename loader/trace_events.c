/*
** trace_events.c — a finished trace event becomes one row: the dispatch by
** phase (trace_emit_event), X events (_slice, or _gpu through trace_gpu.c)
** with their nesting keys, instants and counters (_instant).  Categories
** are normalized here; what a table has no column for is spilled into the
** row's args or extra JSON (trace_spill.c), so nothing is dropped.
*/
#include "trace_parser.h"
#include "nest.h"

#include <stdio.h>
#include <string.h>

/* The typed args _slice, and _instant for memory events, have columns for. */
static const uint32_t slice_targs =
    TA_BIT(TA_EXTERNAL_ID) | TA_BIT(TA_CORRELATION) | TA_BIT(TA_EV_IDX) | TA_BIT(TA_SEQ_NUM) |
    TA_BIT(TA_FWD_TID) | TA_BIT(TA_INPUT_DIMS) | TA_BIT(TA_INPUT_TYPES) | TA_BIT(TA_CBID) |
    TA_BIT(TA_PY_ID) | TA_BIT(TA_PY_PARENT) | TA_BIT(TA_RECORD_FN) | TA_BIT(TA_INPUT_STRIDES) |
    TA_BIT(TA_CONCRETE_INPUTS) | TA_BIT(TA_KERNEL);
static const uint32_t memory_targs =
    TA_BIT(TA_MEM_ADDR) | TA_BIT(TA_MEM_BYTES) | TA_BIT(TA_MEM_TOTAL_ALLOC) |
    TA_BIT(TA_MEM_TOTAL_RESERVED) | TA_BIT(TA_MEM_DEVICE_TYPE) | TA_BIT(TA_MEM_DEVICE_ID);

/* ---- categories --------------------------------------------------------- */

typedef struct cat_rule {
  const char *raw;  /* category as written */
  const char *norm; /* normalized name */
  int kind;         /* kind of X events */
  int alias;        /* an older spelling */
} cat_rule;

static const cat_rule cat_rules[] = {
    {"cpu_op", "cpu_op", K_CPU_OP, 0},
    {"Operator", "cpu_op", K_CPU_OP, 1},
    {"user_annotation", "user_annotation", K_USER_ANNOTATION, 0},
    {"python_function", "python_function", K_PYTHON_FUNCTION, 0},
    {"cuda_runtime", "cuda_runtime", K_RUNTIME, 0},
    {"Runtime", "cuda_runtime", K_RUNTIME, 1},
    {"cuda_driver", "cuda_driver", K_RUNTIME, 0},
    {"Driver", "cuda_driver", K_RUNTIME, 1},
    {"Trace", "Trace", K_TRACE_SPAN, 0},
    {"kernel", "kernel", K_KERNEL, 0},
    {"Kernel", "kernel", K_KERNEL, 1},
    {"gpu_memcpy", "gpu_memcpy", K_MEMCPY, 0},
    {"Memcpy", "gpu_memcpy", K_MEMCPY, 1},
    {"gpu_memset", "gpu_memset", K_MEMSET, 0},
    {"Memset", "gpu_memset", K_MEMSET, 1},
    {"gpu_user_annotation", "gpu_user_annotation", K_GPU_ANNOTATION, 0},
    {"cuda_sync", "cuda_sync", K_GPU_SYNC, 0},
    {"ac2g", "ac2g", K_CPU_OTHER, 0},
    {"async", "ac2g", K_CPU_OTHER, 1},
    {"async_cpu_to_gpu", "ac2g", K_CPU_OTHER, 1},
    {"async_gpu", "ac2g", K_CPU_OTHER, 1},
    {"cpu_to_cuda", "ac2g", K_CPU_OTHER, 1},
    {"fwdbwd", "fwdbwd", K_CPU_OTHER, 0},
    {"forward_backward", "fwdbwd", K_CPU_OTHER, 1},
    {"fwd_bwd", "fwdbwd", K_CPU_OTHER, 1},
};

static int ends_with(const char *s, size_t n, const char *suffix) {
  size_t m = strlen(suffix);
  return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* Kind (for X events) and normalized category id of the category text
** s[0..n), interned as raw_id.  Cached per file: categories are few. */
void trace_classify_cat(tparser *p, const char *s, size_t n, int64_t raw_id, int *kind,
                        int64_t *norm_id) {
  for (int i = 0; i < p->ncats; i++)
    if (p->cats[i].raw_id == raw_id) {
      *kind = p->cats[i].kind_x;
      *norm_id = p->cats[i].norm_id;
      if (p->cats[i].alias) ld_note(p->f, PROFDB_STAT_category_alias, NULL);
      return;
    }
  int k = K_CPU_OTHER, alias = 0;
  const char *norm = NULL;
  for (size_t i = 0; i < sizeof cat_rules / sizeof cat_rules[0]; i++)
    if (strlen(cat_rules[i].raw) == n && !memcmp(cat_rules[i].raw, s, n)) {
      k = cat_rules[i].kind;
      norm = cat_rules[i].norm;
      alias = cat_rules[i].alias;
      break;
    }
  /* mtia_runtime, xpu_driver, privateuse1_runtime, ...: host-side calls. */
  if (!norm && (ends_with(s, n, "_runtime") || ends_with(s, n, "_driver"))) k = K_RUNTIME;
  int64_t nid = norm ? ld_string(p->f, norm, strlen(norm)) : raw_id;
  if (p->ncats < (int)(sizeof p->cats / sizeof p->cats[0])) {
    p->cats[p->ncats].raw_id = raw_id;
    p->cats[p->ncats].norm_id = nid;
    p->cats[p->ncats].kind_x = k;
    p->cats[p->ncats].alias = alias;
    p->ncats++;
  }
  if (alias) ld_note(p->f, PROFDB_STAT_category_alias, NULL);
  *kind = k;
  *norm_id = nid;
}

/* ---- emitting rows ------------------------------------------------------ */

static int64_t cpu_op_cat(tparser *p) {
  if (p->cpu_op_cat_id < 0) p->cpu_op_cat_id = ld_string(p->f, "cpu_op", 6);
  return p->cpu_op_cat_id;
}

/* A dur that cannot be stored: ts + dur beyond int64 ns (after the year
** 2262), or negative (interval arithmetic in the reports needs end >=
** start).  dur becomes NULL and its exact value is kept in extra as
** microsecond text, like any out-of-range time. */
static void drop_dur(tparser *p, profdb_stat stat, const char *why) {
  tevent *ev = &p->ev;
  int64_t ns = ev->dur.ns;
  uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  char text[32];
  int n = snprintf(text, sizeof text, "%s%llu.%03llu", ns < 0 ? "-" : "",
                   (unsigned long long)(mag / 1000), (unsigned long long)(mag % 1000));
  ev->dur.state = 'x';
  ld_note(p->f, stat, "%s %s", why, text);
  extra_member(ev, "dur", 3);
  jw_string(&ev->extra_w, text, (size_t)n);
}

static ld_value nest_value(const tevent *ev, const tval *v) {
  return (ld_value){v->type, v->i, v->type == 't' ? ev->raw.p + v->off : NULL, v->len};
}

/* Send a CPU slice with usable times to the nesting pass (nest.h): its key
** goes to the sort on this thread (the writer thread, SQLite's, is the
** busier one; the keys arrive as a few ascending runs, which the sort
** merges instead of sorting). */
static void gather_slice(tparser *p, int64_t id, int kind) {
  const tevent *ev = &p->ev;
  ld_value pid = nest_value(ev, &ev->pid), tid = nest_value(ev, &ev->tid);
  int shaped = has_targ(ev, TA_INPUT_DIMS);
  nest_row r = nest_row_of(
      p->ctx->nest, p->f->artifact_id, &pid, &tid, id, ev->ts.ns, ev->dur.ns, ev->name_id, kind,
      shaped ? ev->raw.p + ev->targs[TA_INPUT_DIMS].raw_off : NULL,
      shaped ? ev->targs[TA_INPUT_DIMS].raw_len : 0,
      has_targ(ev, TA_INPUT_TYPES) ? ev->raw.p + ev->targs[TA_INPUT_TYPES].raw_off : NULL,
      has_targ(ev, TA_INPUT_TYPES) ? ev->targs[TA_INPUT_TYPES].raw_len : 0);
  if (nest_sink(p->ctx->nest, &r, sizeof r))
    writer_set_error(p->ctx->w, "cannot write a temporary file to sort slices");
  if (ev->step_number >= 0 && (kind == K_CPU_OP || kind == K_USER_ANNOTATION))
    nest_add_step(p->ctx->nest,
                  &(step_row){p->f->artifact_id, ev->step_number, id, ev->ts.ns, ev->dur.ns});
}

/* Any other X event: a _slice row, and its nesting keys (nest.h). */
static void slice_row(tparser *p, int64_t id, int kind, int64_t cat) {
  tevent *ev = &p->ev;
  ld_buf *b = writer_batch(p->ctx->w);
  trace_spill_targs(ev, slice_targs);
  if (ev->ts.state == 'v' && ev->dur.state == 'v') gather_slice(p, id, kind);
  if (kind == K_RUNTIME && ev->call_class)
    ld_note(p->f,
            ev->call_class == CALL_LAUNCH  ? PROFDB_STAT_kernel_launches
            : ev->call_class == CALL_GRAPH ? PROFDB_STAT_graph_launches
                                           : PROFDB_STAT_graph_capture_calls,
            NULL);
  row_begin(b, TB_SLICE);
  row_int(b, COL_SLICE_ID, id);
  row_int(b, COL_SLICE_TRACE_ID, p->f->artifact_id);
  row_int(b, COL_SLICE_KIND, kind);
  col_id(b, COL_SLICE_CAT_ID, cat);
  col_id(b, COL_SLICE_RAW_CAT_ID, ev->raw_cat_id);
  col_id(b, COL_SLICE_NAME_ID, ev->name_id);
  col_val(b, COL_SLICE_PID, ev, &ev->pid);
  col_val(b, COL_SLICE_TID, ev, &ev->tid);
  col_time(b, COL_SLICE_TS, &ev->ts);
  col_time(b, COL_SLICE_DUR, &ev->dur);
  col_int(b, COL_SLICE_EXTERNAL_ID, ev, TA_EXTERNAL_ID);
  col_int(b, COL_SLICE_CORRELATION, ev, TA_CORRELATION);
  col_int(b, COL_SLICE_SEQ_NUM, ev, TA_SEQ_NUM);
  col_int(b, COL_SLICE_FWD_TID, ev, TA_FWD_TID);
  col_int(b, COL_SLICE_EV_IDX, ev, TA_EV_IDX);
  col_json(b, COL_SLICE_INPUT_DIMS, ev, TA_INPUT_DIMS);
  col_json(b, COL_SLICE_INPUT_TYPES, ev, TA_INPUT_TYPES);
  col_int(b, COL_SLICE_CBID, ev, TA_CBID);
  col_int(b, COL_SLICE_PYTHON_ID, ev, TA_PY_ID);
  col_int(b, COL_SLICE_PYTHON_PARENT_ID, ev, TA_PY_PARENT);
  col_int(b, COL_SLICE_RECORD_FN_ID, ev, TA_RECORD_FN);
  col_json(b, COL_SLICE_INPUT_STRIDES, ev, TA_INPUT_STRIDES);
  col_json(b, COL_SLICE_CONCRETE_INPUTS, ev, TA_CONCRETE_INPUTS);
  col_int(b, COL_SLICE_KERNEL_ID, ev, TA_KERNEL);
  col_obj(b, COL_SLICE_ARGS, &ev->args, &ev->args_w);
  col_obj(b, COL_SLICE_EXTRA, &ev->extra, &ev->extra_w);
}

static void emit_x(tparser *p, int64_t id) {
  tevent *ev = &p->ev;
  int kind = ev->raw_cat_id >= 0 ? ev->cat_kind : K_CPU_OP;
  int64_t cat = ev->raw_cat_id >= 0 ? ev->cat_id : cpu_op_cat(p);
  int64_t end = 0; /* set by the overflow check whenever ts and dur are usable */
  if (ev->dur.state == 'v' && ev->dur.ns < 0)
    drop_dur(p, PROFDB_STAT_negative_dur, "negative dur");
  if (ev->ts.state == 'v' && ev->dur.state == 'v' &&
      __builtin_add_overflow(ev->ts.ns, ev->dur.ns, &end))
    drop_dur(p, PROFDB_STAT_time_out_of_range, "ts + dur out of range, dur");
  if (ev->ts.state != 'v')
    ld_note(p->f, PROFDB_STAT_event_missing_ts, "X event without a usable ts");
  if (ev->dur.state != 'v')
    ld_note(p->f, PROFDB_STAT_event_missing_dur, "X event without a usable dur");
  else if (ev->ts.state == 'v') {
    if (!p->has_window || ev->ts.ns < p->win_start) p->win_start = ev->ts.ns;
    if (!p->has_window || end > p->win_end) p->win_end = end;
    p->has_window = 1;
  }
  if (kind == K_CPU_OTHER) ld_note(p->f, PROFDB_STAT_category_unknown, NULL);
  trace_spill_id(ev);
  trace_spill_text(ev, "bp", ev->has_bp, ev->bp_off, ev->bp_len);
  trace_spill_text(ev, "s", ev->has_s, ev->s_off, ev->s_len);
  p->kind_count[kind]++;
  if (kind >= K_KERNEL && kind <= K_GPU_SYNC)
    trace_gpu_row(p, id, kind, cat);
  else
    slice_row(p, id, kind, cat);
}

/* Instants, counters and every phase profdb has no table for. */
void trace_emit_instant(tparser *p, int64_t id, int kind, const char *ph, size_t phn) {
  tevent *ev = &p->ev;
  ld_buf *b = writer_batch(p->ctx->w);
  if (ev->ts.state != 'v' && kind != K_OTHER_PHASE)
    ld_note(p->f, PROFDB_STAT_event_missing_ts, "instant without a usable ts");
  trace_spill_targs(ev, kind == K_MEMORY || kind == K_OUT_OF_MEMORY ? memory_targs : 0);
  trace_spill_id(ev);
  trace_spill_text(ev, "bp", ev->has_bp, ev->bp_off, ev->bp_len);
  p->kind_count[kind]++;
  row_begin(b, TB_INSTANT);
  row_int(b, COL_INSTANT_ID, id);
  row_int(b, COL_INSTANT_TRACE_ID, p->f->artifact_id);
  row_int(b, COL_INSTANT_KIND, kind);
  if (ph)
    row_text(b, COL_INSTANT_PH, ph, phn);
  else
    row_null(b, COL_INSTANT_PH);
  col_id(b, COL_INSTANT_CAT_ID, ev->raw_cat_id >= 0 ? ev->cat_id : -1);
  col_id(b, COL_INSTANT_RAW_CAT_ID, ev->raw_cat_id);
  col_id(b, COL_INSTANT_NAME_ID, ev->name_id);
  col_val(b, COL_INSTANT_PID, ev, &ev->pid);
  col_val(b, COL_INSTANT_TID, ev, &ev->tid);
  col_time(b, COL_INSTANT_TS, &ev->ts);
  col_time(b, COL_INSTANT_DUR, &ev->dur);
  if (ev->has_s)
    row_text(b, COL_INSTANT_SCOPE, ev->raw.p + ev->s_off, ev->s_len);
  else
    row_null(b, COL_INSTANT_SCOPE);
  col_int(b, COL_INSTANT_ADDR, ev, TA_MEM_ADDR);
  col_int(b, COL_INSTANT_BYTES, ev, TA_MEM_BYTES);
  col_int(b, COL_INSTANT_TOTAL_ALLOCATED, ev, TA_MEM_TOTAL_ALLOC);
  col_int(b, COL_INSTANT_TOTAL_RESERVED, ev, TA_MEM_TOTAL_RESERVED);
  col_int(b, COL_INSTANT_DEVICE_TYPE, ev, TA_MEM_DEVICE_TYPE);
  col_int(b, COL_INSTANT_DEVICE_ID, ev, TA_MEM_DEVICE_ID);
  col_obj(b, COL_INSTANT_ARGS, &ev->args, &ev->args_w);
  col_obj(b, COL_INSTANT_EXTRA, &ev->extra, &ev->extra_w);
}

void trace_emit_event(tparser *p) {
  tevent *ev = &p->ev;
  int64_t id = p->ctx->next_event_id++;
  p->events++;
  /* Metadata events name threads through the upserts in sql/trace_finish.sql; their
  ** tid is a placeholder (0) for process_* events, so they are not noted. */
  if ((ev->pid.type || ev->tid.type) && ev->ph != 'M') trace_note_pair(p);
  if (ev->raw_cat_id < 0 && ev->ph != 'M') ld_note(p->f, PROFDB_STAT_category_missing, NULL);
  if (ev->ph_odd) {
    /* ph was not a one-character string: keep its text as the phase. */
    ld_note(p->f, PROFDB_STAT_event_unknown_phase, "unusual ph value");
    if (ev->ph_len)
      trace_emit_instant(p, id, K_OTHER_PHASE, ev->raw.p + ev->ph_off, ev->ph_len);
    else
      trace_emit_instant(p, id, K_OTHER_PHASE, NULL, 0);
    return;
  }
  char ph = ev->ph;
  switch (ph) {
    case 'X': emit_x(p, id); return;
    case 's':
    case 't':
    case 'f': trace_emit_flow(p, id); return;
    case 'M': trace_emit_meta(p, id); return;
    case 0:
      ld_note(p->f, PROFDB_STAT_event_missing_ph, "event without ph");
      trace_emit_instant(p, id, K_OTHER_PHASE, NULL, 0);
      return;
  }
  int kind;
  if (ev->special == 2)
    kind = K_OUT_OF_MEMORY;
  else if (ev->special == 1)
    kind = K_MEMORY;
  else if (ph == 'C')
    kind = K_COUNTER;
  else if (ph == 'i' || ph == 'I')
    kind = K_INSTANT;
  else {
    kind = K_OTHER_PHASE;
    ld_note(p->f, PROFDB_STAT_event_unknown_phase, "event with ph '%c'", ph);
  }
  trace_emit_instant(p, id, kind, &ph, 1);
}

/*
** trace.c — stream a Kineto / Chrome trace into the trace tables.
**
** Accepted layouts: {"traceEvents": [...], <metadata keys before or after>}
** and a bare array of events (legacy exporter, pre-2021 Kineto).
**
** HOW IT WORKS
**   yajl delivers tokens; tok() advances an explicit position (tpos) and
**   fills one event at a time (tevent).  At the event's closing brace it is
**   classified by phase and category and written as one row of _slice,
**   _gpu, _instant, _flow or _meta, then forgotten: memory does not grow
**   with the number of events.  Nested values that are kept verbatim
**   (args, unknown keys, metadata) are re-serialized as compact JSON by a
**   capture that follows containers to their end.
**
** Requirement 1: ts/dur become int64 ns from the decimal text (numtext.c),
**   never through a double.
** Requirement 2: nothing is dropped.  Args with a typed column go there
**   when their value has the expected type; every other arg, every unknown
**   event key, every top-level key is kept as JSON.  Integers beyond 64
**   bits are kept as JSON strings.
** Requirement 3: metadata keys after traceEvents (baseTimeNanoseconds,
**   traceName, ...) and M events (which come last) are bound at the end.
*/
#include "loader.h"
#include "oom.h"
#include "clock.h"
#include "flows.h"
#include "nest.h"
#include "numtext.h"
#include "stream.h"
#include "sql.h"

#include "profdb/codes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- event kinds: K_CPU_OP, K_KERNEL, ... (include/profdb/codes.h) ------ */

enum {
#define KIND_ENUM(id, code, name, storage) K_##id = code,
  PROFDB_EVENT_KINDS(KIND_ENUM)
#undef KIND_ENUM
      K__MAX = PROFDB_KIND_LIMIT
};

/* ---- typed args --------------------------------------------------------- */

typedef enum targ {
  TA_EXTERNAL_ID,
  TA_CORRELATION,
  TA_EV_IDX,
  TA_SEQ_NUM,
  TA_FWD_TID,
  TA_INPUT_DIMS,
  TA_INPUT_TYPES,
  TA_CBID,
  TA_PY_ID,
  TA_PY_PARENT,
  TA_RECORD_FN,
  TA_INPUT_STRIDES,
  TA_CONCRETE_INPUTS,
  TA_KERNEL,
  TA_DEVICE,
  TA_STREAM,
  TA_GRID,
  TA_BLOCK,
  TA_REGISTERS,
  TA_SHMEM,
  TA_BLOCKS_PER_SM,
  TA_WARPS_PER_SM,
  TA_OCCUPANCY,
  TA_BYTES,
  TA_BANDWIDTH,
  TA_MEM_ADDR,
  TA_MEM_BYTES,
  TA_MEM_TOTAL_ALLOC,
  TA_MEM_TOTAL_RESERVED,
  TA_MEM_DEVICE_TYPE,
  TA_MEM_DEVICE_ID,
  TA__COUNT
} targ;

typedef enum tshape {
  SH_INT,  /* integer that fits int64 */
  SH_REAL, /* finite number */
  SH_JSON, /* any value, stored as JSON text */
  SH_DIM3, /* [x, y, z] of integers */
  SH_NAME  /* a string repeated across events: interned (_string id) */
} tshape;

/* Arg keys with a typed column.  Aliases (older spellings) share a slot;
** the spelling is remembered so a value that goes back to args keeps it. */
static const struct {
  const char *key;
  unsigned char len;
  unsigned char id;    /* targ */
  unsigned char shape; /* tshape */
} targ_keys[] = {
#define TK(k, id, shape) \
  { k, sizeof(k) - 1, id, shape }
    TK("External id", TA_EXTERNAL_ID, SH_INT),
    TK("external id", TA_EXTERNAL_ID, SH_INT),
    TK("correlation", TA_CORRELATION, SH_INT),
    TK("Ev Idx", TA_EV_IDX, SH_INT),
    TK("Profiler Event Index", TA_EV_IDX, SH_INT),
    TK("Sequence number", TA_SEQ_NUM, SH_INT),
    TK("Fwd thread id", TA_FWD_TID, SH_INT),
    TK("Input Dims", TA_INPUT_DIMS, SH_JSON),
    TK("Input dims", TA_INPUT_DIMS, SH_JSON),
    TK("Input type", TA_INPUT_TYPES, SH_JSON),
    TK("cbid", TA_CBID, SH_INT),
    TK("Python id", TA_PY_ID, SH_INT),
    TK("Python parent id", TA_PY_PARENT, SH_INT),
    TK("Record function id", TA_RECORD_FN, SH_INT),
    TK("Input Strides", TA_INPUT_STRIDES, SH_JSON),
    TK("Concrete Inputs", TA_CONCRETE_INPUTS, SH_JSON),
    TK("kernel", TA_KERNEL, SH_NAME),
    TK("device", TA_DEVICE, SH_INT),
    TK("stream", TA_STREAM, SH_INT),
    TK("grid", TA_GRID, SH_DIM3),
    TK("block", TA_BLOCK, SH_DIM3),
    TK("registers per thread", TA_REGISTERS, SH_INT),
    TK("shared memory", TA_SHMEM, SH_INT),
    TK("blocks per SM", TA_BLOCKS_PER_SM, SH_REAL),
    TK("warps per SM", TA_WARPS_PER_SM, SH_REAL),
    TK("est. achieved occupancy %", TA_OCCUPANCY, SH_REAL),
    TK("bytes", TA_BYTES, SH_INT),
    TK("memory bandwidth (GB/s)", TA_BANDWIDTH, SH_REAL),
    TK("Addr", TA_MEM_ADDR, SH_INT),
    TK("Bytes", TA_MEM_BYTES, SH_INT),
    TK("Total Allocated", TA_MEM_TOTAL_ALLOC, SH_INT),
    TK("Total Reserved", TA_MEM_TOTAL_RESERVED, SH_INT),
    TK("Device Type", TA_MEM_DEVICE_TYPE, SH_INT),
    TK("Device Id", TA_MEM_DEVICE_ID, SH_INT),
#undef TK
};
#define N_TARG_KEYS (sizeof targ_keys / sizeof targ_keys[0])

/* Which typed args each storage table has columns for. */
#define TA_BIT(t) (1u << (t))
static const uint32_t slice_targs =
    TA_BIT(TA_EXTERNAL_ID) | TA_BIT(TA_CORRELATION) | TA_BIT(TA_EV_IDX) | TA_BIT(TA_SEQ_NUM) |
    TA_BIT(TA_FWD_TID) | TA_BIT(TA_INPUT_DIMS) | TA_BIT(TA_INPUT_TYPES) | TA_BIT(TA_CBID) |
    TA_BIT(TA_PY_ID) | TA_BIT(TA_PY_PARENT) | TA_BIT(TA_RECORD_FN) | TA_BIT(TA_INPUT_STRIDES) |
    TA_BIT(TA_CONCRETE_INPUTS) | TA_BIT(TA_KERNEL);
static const uint32_t gpu_targs =
    TA_BIT(TA_DEVICE) | TA_BIT(TA_STREAM) | TA_BIT(TA_CORRELATION) | TA_BIT(TA_EXTERNAL_ID) |
    TA_BIT(TA_GRID) | TA_BIT(TA_BLOCK) | TA_BIT(TA_REGISTERS) | TA_BIT(TA_SHMEM) |
    TA_BIT(TA_BLOCKS_PER_SM) | TA_BIT(TA_WARPS_PER_SM) | TA_BIT(TA_OCCUPANCY) |
    TA_BIT(TA_BYTES) | TA_BIT(TA_BANDWIDTH);
static const uint32_t memory_targs =
    TA_BIT(TA_MEM_ADDR) | TA_BIT(TA_MEM_BYTES) | TA_BIT(TA_MEM_TOTAL_ALLOC) |
    TA_BIT(TA_MEM_TOTAL_RESERVED) | TA_BIT(TA_MEM_DEVICE_TYPE) | TA_BIT(TA_MEM_DEVICE_ID);

typedef struct tslot {
  int64_t i;        /* SH_INT value; SH_DIM3 x */
  int64_t y, z;     /* SH_DIM3 y, z */
  double d;         /* SH_REAL value */
  uint32_t raw_off; /* value as JSON text in tevent.raw */
  uint32_t raw_len;
  unsigned char key; /* index into targ_keys (spelling) */
} tslot;

/* ---- event-level keys --------------------------------------------------- */

typedef enum ekey {
  EK_PH,
  EK_CAT,
  EK_NAME,
  EK_PID,
  EK_TID,
  EK_TS,
  EK_DUR,
  EK_ARGS,
  EK_ID,
  EK_BP,
  EK_S,
  EK_OTHER
} ekey;

/* A pid, tid or flow id: integer, or text (strings, huge integers). */
typedef struct tval {
  char type;         /* 0 absent, 'i' integer, 't' text */
  int64_t i;         /* integer value */
  uint32_t off, len; /* text in tevent.raw */
} tval;

/* A ts or dur. */
typedef struct ttime {
  char state; /* 0 absent, 'v' value, 'x' unusable (raw kept in extra) */
  int64_t ns; /* the value */
} ttime;

/* The event being read. */
typedef struct tevent {
  uint64_t offset;         /* decompressed offset of its '{' */
  char ph;                 /* phase character, 0 if absent */
  int ph_odd;              /* ph was not a 1-character string */
  uint32_t ph_off, ph_len; /* its text in raw when it was a string */
  int special;             /* name is '[memory]' (1) or '[OutOfMemory]' (2) */
  int64_t raw_cat_id;      /* interned cat as written, -1 if absent */
  int64_t cat_id;          /* normalized category id, -1 if absent */
  int cat_kind;            /* kind an X event of this category has */
  int64_t name_id;         /* interned name, -1 if absent */
  int64_t step_number;     /* N when the name is ProfilerStep#N, else -1 */
  tval pid, tid, id;       /* pid, tid, flow id */
  ttime ts, dur;           /* times */
  uint32_t bp_off, bp_len; /* "bp" text in raw (len 0 = absent) */
  uint32_t s_off, s_len;   /* "s" text in raw */
  int has_bp, has_s;       /* keys present */
  uint32_t seen;           /* event keys seen (duplicate detection) */
  uint32_t targ_mask;      /* typed args present */
  tslot targs[TA__COUNT];  /* their values */
  ld_buf raw;              /* small texts: pid/tid/id strings, typed raw */
  ld_buf args;             /* residual args: '{' + members, or empty */
  ld_jw args_w;            /* writer for args */
  ld_buf extra;            /* unknown keys: '{' + members, or empty */
  ld_jw extra_w;           /* writer for extra */
} tevent;

/* ---- parser positions --------------------------------------------------- */

typedef enum tpos {
  TP_TOP,       /* before the top-level value */
  TP_ROOT,      /* in the top-level object: a key or '}' comes next */
  TP_ROOT_VAL,  /* after a top-level key: its value comes next */
  TP_EVENTS,    /* in the events array: an element or ']' comes next */
  TP_EVENT,     /* in an event: a key or '}' comes next */
  TP_EVENT_VAL, /* after an event key (cur_ekey): its value comes next */
  TP_ARGS,      /* in an event's args: a key or '}' comes next */
  TP_ARG_VAL,   /* after an arg key: its value comes next */
  TP_CAPTURE,   /* inside a nested value being copied (cap_*) */
  TP_DONE       /* the top-level value is complete */
} tpos;

/* What to do when a capture ends. */
typedef enum capture_end {
  CAP_META,  /* a top-level value: store it as trace metadata */
  CAP_EXTRA, /* copied into the event's extra: back to TP_EVENT */
  CAP_ARG,   /* copied into residual args: back to TP_ARGS */
  CAP_TYPED, /* a typed arg's JSON text: fill the slot */
  CAP_NONOBJ /* a traceEvents element that is not an object */
} capture_end;

/* One top-level metadata member, texts in tparser.meta. */
typedef struct tmeta {
  uint32_t key_off, key_len, val_off, val_len;
  int position; /* among all top-level keys */
} tmeta;

typedef struct tparser {
  ld_file *f;
  ld_ctx *ctx;
  tpos pos;
  int layout_array;                  /* bare-array trace */
  int root_keys;                     /* top-level keys seen, traceEvents included */
  int saw_events;                    /* traceEvents seen */
  int in_events_key;                 /* the current top-level key is traceEvents */
  ekey cur_ekey;                     /* event key whose value comes next */
  int cur_targ_key;                  /* targ_keys index of the current arg, or -1 */
  uint32_t cur_key_off, cur_key_len; /* current key text in key_buf */
  ld_buf key_buf;                    /* current event/arg key */
  /* capture state */
  int cap_depth;       /* open containers inside the capture */
  ld_jw *cap_w;        /* where captured tokens go */
  capture_end cap_end; /* what to do at the end */
  tpos cap_return;     /* position after the capture */
  ld_jw typed_w;       /* writer for typed-arg captures (into ev.raw) */
  uint32_t typed_off;  /* start of the typed capture in ev.raw */
  ld_buf nonobj;       /* capture of a non-object element */
  ld_jw nonobj_w;
  /* metadata */
  ld_buf meta;  /* key and value texts */
  ld_jw meta_w; /* writer for metadata values */
  tmeta *metas; /* members */
  int nmeta, capmeta;
  uint32_t meta_val_off; /* start of the value being captured */
  /* the event */
  tevent ev;
  /* categories: raw cat id -> kind and normalized cat id */
  struct {
    int64_t raw_id, norm_id;
    int kind_x;
    int alias;
  } cats[64];
  int ncats;
  int64_t cpu_op_cat_id; /* normalized 'cpu_op' for events without cat */
  /* distinct (pid, tid) pairs, for the process and thread tables */
  ld_intern *pairs_seen; /* encoded pair -> id (used as a set) */
  ld_buf pairs;          /* encoded pairs, each prefixed by its length */
  ld_buf last_pair;      /* the previous event's pair (runs are common) */
  ld_buf pair_tmp;       /* scratch */
  /* totals */
  uint64_t events; /* elements of traceEvents */
  uint64_t kind_count[K__MAX];
  uint64_t flows, metas_count;
  int has_window;
  int64_t win_start, win_end;
} tparser;

/* ---- helpers ------------------------------------------------------------ */

static uint32_t raw_put(tevent *ev, const char *s, size_t n) {
  uint32_t off = (uint32_t)ev->raw.n;
  /* Allocated even for an empty text ("pid": ""): readers compute
  ** raw.p + off, which must not be arithmetic on NULL. */
  ld_buf_reserve(&ev->raw, n ? n : 1);
  ld_buf_put(&ev->raw, s, n);
  return off;
}

static void args_member(tevent *ev, const char *k, size_t n) {
  if (ev->args.n == 0) jw_open(&ev->args_w, '{');
  jw_key(&ev->args_w, k, n);
}

static void extra_member(tevent *ev, const char *k, size_t n) {
  if (ev->extra.n == 0) jw_open(&ev->extra_w, '{');
  jw_key(&ev->extra_w, k, n);
}

static void reset_event(tparser *p) {
  tevent *ev = &p->ev;
  ev->offset = ld_offset(p->f);
  ev->ph = 0;
  ev->ph_odd = 0;
  ev->ph_off = ev->ph_len = 0;
  ev->special = 0;
  ev->raw_cat_id = ev->name_id = ev->step_number = -1;
  ev->pid.type = ev->tid.type = ev->id.type = 0;
  ev->ts.state = ev->dur.state = 0;
  ev->has_bp = ev->has_s = 0;
  ev->seen = 0;
  ev->targ_mask = 0;
  ev->raw.n = ev->args.n = ev->extra.n = 0;
  jw_init(&ev->args_w, &ev->args);
  jw_init(&ev->extra_w, &ev->extra);
}

static ekey event_key(const char *k, size_t n) {
  switch (n) {
    case 1:
      if (*k == 's') return EK_S;
      break;
    case 2:
      if (k[0] == 'p' && k[1] == 'h') return EK_PH;
      if (k[0] == 't' && k[1] == 's') return EK_TS;
      if (k[0] == 'i' && k[1] == 'd') return EK_ID;
      if (k[0] == 'b' && k[1] == 'p') return EK_BP;
      break;
    case 3:
      if (!memcmp(k, "cat", 3)) return EK_CAT;
      if (!memcmp(k, "pid", 3)) return EK_PID;
      if (!memcmp(k, "tid", 3)) return EK_TID;
      if (!memcmp(k, "dur", 3)) return EK_DUR;
      break;
    case 4:
      if (!memcmp(k, "name", 4)) return EK_NAME;
      if (!memcmp(k, "args", 4)) return EK_ARGS;
      break;
  }
  return EK_OTHER;
}

static int targ_lookup(const char *k, size_t n) {
  for (size_t i = 0; i < N_TARG_KEYS; i++)
    if (targ_keys[i].len == n && targ_keys[i].key[0] == k[0] &&
        memcmp(targ_keys[i].key, k, n) == 0)
      return (int)i;
  return -1;
}

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
static void classify_cat(tparser *p, const char *s, size_t n, int64_t raw_id, int *kind,
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

/* Typed args the destination table has no column for go back to args. */
static void spill_targs(tevent *ev, uint32_t accepted) {
  uint32_t spill = ev->targ_mask & ~accepted;
  for (int t = 0; spill; t++) {
    if (!(spill & TA_BIT(t))) continue;
    spill &= ~TA_BIT(t);
    const tslot *sl = &ev->targs[t];
    args_member(ev, targ_keys[sl->key].key, targ_keys[sl->key].len);
    jw_raw(&ev->args_w, ev->raw.p + sl->raw_off, sl->raw_len);
  }
  ev->targ_mask &= accepted;
}

static int has_targ(const tevent *ev, targ t) {
  return (ev->targ_mask & TA_BIT(t)) != 0;
}

static void col_int(ld_buf *b, int c, const tevent *ev, targ t) {
  if (has_targ(ev, t))
    row_int(b, c, ev->targs[t].i);
  else
    row_null(b, c);
}
static void col_real(ld_buf *b, int c, const tevent *ev, targ t) {
  if (has_targ(ev, t))
    row_real(b, c, ev->targs[t].d);
  else
    row_null(b, c);
}
static void col_json(ld_buf *b, int c, const tevent *ev, targ t) {
  if (has_targ(ev, t))
    row_text(b, c, ev->raw.p + ev->targs[t].raw_off, ev->targs[t].raw_len);
  else
    row_null(b, c);
}
static void col_val(ld_buf *b, int c, const tevent *ev, const tval *v) {
  if (v->type == 'i')
    row_int(b, c, v->i);
  else if (v->type == 't')
    row_text(b, c, ev->raw.p + v->off, v->len);
  else
    row_null(b, c);
}
static void col_time(ld_buf *b, int c, const ttime *t) {
  if (t->state == 'v')
    row_int(b, c, t->ns);
  else
    row_null(b, c);
}
static void col_obj(ld_buf *b, int c, ld_buf *obj, ld_jw *w) {
  if (!obj->n) {
    row_null(b, c);
    return;
  }
  jw_close(w, '}');
  row_text(b, c, obj->p, obj->n);
}
static void col_id(ld_buf *b, int c, int64_t id) {
  if (id >= 0)
    row_int(b, c, id);
  else
    row_null(b, c);
}

/* Keys a table has no column for (id, bp, s) go to extra. */
static void spill_text(tevent *ev, const char *key, int has, uint32_t off, uint32_t len) {
  if (!has) return;
  extra_member(ev, key, strlen(key));
  jw_string(&ev->extra_w, ev->raw.p + off, len);
}
static void spill_id(tevent *ev) {
  if (!ev->id.type) return;
  extra_member(ev, "id", 2);
  if (ev->id.type == 'i') {
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%lld", (long long)ev->id.i);
    jw_raw(&ev->extra_w, tmp, (size_t)n);
  } else {
    jw_string(&ev->extra_w, ev->raw.p + ev->id.off, ev->id.len);
  }
}

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

/* Send a CPU slice with usable times to the nesting pass (nest.h), through
** the writer thread. */
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
  ld_buf *b = writer_batch(p->ctx->w);
  row_begin(b, TB_NEST);
  row_text(b, 0, (const char *)&r, sizeof r);
  if (ev->step_number >= 0 && (kind == K_CPU_OP || kind == K_USER_ANNOTATION))
    nest_add_step(p->ctx->nest,
                  &(step_row){p->f->artifact_id, ev->step_number, id, ev->ts.ns, ev->dur.ns});
}

/* An X event of a GPU kind: a _gpu row. */
static void gpu_row(tparser *p, int64_t id, int kind, int64_t cat) {
  tevent *ev = &p->ev;
  ld_buf *b = writer_batch(p->ctx->w);
  spill_targs(ev, gpu_targs);
  row_begin(b, TB_GPU);
  row_int(b, COL_GPU_ID, id);
  row_int(b, COL_GPU_TRACE_ID, p->f->artifact_id);
  row_int(b, COL_GPU_KIND, kind);
  col_id(b, COL_GPU_CAT_ID, cat);
  col_id(b, COL_GPU_RAW_CAT_ID, ev->raw_cat_id);
  col_id(b, COL_GPU_NAME_ID, ev->name_id);
  col_val(b, COL_GPU_PID, ev, &ev->pid);
  col_val(b, COL_GPU_TID, ev, &ev->tid);
  col_time(b, COL_GPU_TS, &ev->ts);
  col_time(b, COL_GPU_DUR, &ev->dur);
  /* device/stream: args first, else pid/tid (GPU rows: pid = device). */
  if (has_targ(ev, TA_DEVICE))
    row_int(b, COL_GPU_DEVICE, ev->targs[TA_DEVICE].i);
  else if (ev->pid.type == 'i')
    row_int(b, COL_GPU_DEVICE, ev->pid.i);
  else
    row_null(b, COL_GPU_DEVICE);
  if (has_targ(ev, TA_STREAM))
    row_int(b, COL_GPU_STREAM, ev->targs[TA_STREAM].i);
  else if (ev->tid.type == 'i')
    row_int(b, COL_GPU_STREAM, ev->tid.i);
  else
    row_null(b, COL_GPU_STREAM);
  col_int(b, COL_GPU_CORRELATION, ev, TA_CORRELATION);
  col_int(b, COL_GPU_EXTERNAL_ID, ev, TA_EXTERNAL_ID);
  static const int grid_cols[2][3] = {{COL_GPU_GRID_X, COL_GPU_GRID_Y, COL_GPU_GRID_Z},
                                      {COL_GPU_BLOCK_X, COL_GPU_BLOCK_Y, COL_GPU_BLOCK_Z}};
  for (int t = TA_GRID; t <= TA_BLOCK; t++) {
    const int *c = grid_cols[t - TA_GRID];
    if (has_targ(ev, (targ)t)) {
      row_int(b, c[0], ev->targs[t].i);
      row_int(b, c[1], ev->targs[t].y);
      row_int(b, c[2], ev->targs[t].z);
    } else {
      row_null(b, c[0]);
      row_null(b, c[1]);
      row_null(b, c[2]);
    }
  }
  col_int(b, COL_GPU_REGISTERS, ev, TA_REGISTERS);
  col_int(b, COL_GPU_SHARED_MEMORY, ev, TA_SHMEM);
  col_real(b, COL_GPU_BLOCKS_PER_SM, ev, TA_BLOCKS_PER_SM);
  col_real(b, COL_GPU_WARPS_PER_SM, ev, TA_WARPS_PER_SM);
  col_real(b, COL_GPU_OCCUPANCY_PCT, ev, TA_OCCUPANCY);
  col_int(b, COL_GPU_BYTES, ev, TA_BYTES);
  col_real(b, COL_GPU_BANDWIDTH_GBPS, ev, TA_BANDWIDTH);
  col_obj(b, COL_GPU_ARGS, &ev->args, &ev->args_w);
  col_obj(b, COL_GPU_EXTRA, &ev->extra, &ev->extra_w);
}

/* Any other X event: a _slice row, and its nesting keys (nest.h). */
static void slice_row(tparser *p, int64_t id, int kind, int64_t cat) {
  tevent *ev = &p->ev;
  ld_buf *b = writer_batch(p->ctx->w);
  spill_targs(ev, slice_targs);
  if (ev->ts.state == 'v' && ev->dur.state == 'v') gather_slice(p, id, kind);
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
  spill_id(ev);
  spill_text(ev, "bp", ev->has_bp, ev->bp_off, ev->bp_len);
  spill_text(ev, "s", ev->has_s, ev->s_off, ev->s_len);
  p->kind_count[kind]++;
  if (kind >= K_KERNEL && kind <= K_GPU_SYNC)
    gpu_row(p, id, kind, cat);
  else
    slice_row(p, id, kind, cat);
}

/* Send a flow start or finish to the unmatched-flow count (flows.h),
** through the writer thread; a text id leaves the trace to SQL. */
static void gather_flow_end(tparser *p) {
  const tevent *ev = &p->ev;
  if (ev->id.type == 't') {
    flows_by_sql(p->ctx->flows, p->f->artifact_id);
    return;
  }
  flow_end e;
  memset(&e, 0, sizeof e); /* the padding too: the record is copied as bytes */
  e.trace_id = p->f->artifact_id;
  e.cat_id = ev->raw_cat_id >= 0 ? ev->cat_id : -1;
  e.has_id = ev->id.type == 'i';
  e.id = e.has_id ? ev->id.i : 0;
  e.ph = (uint8_t)ev->ph;
  ld_buf *b = writer_batch(p->ctx->w);
  row_begin(b, TB_FLOW_END);
  row_text(b, 0, (const char *)&e, sizeof e);
}

static void emit_flow(tparser *p, int64_t id) {
  tevent *ev = &p->ev;
  ld_buf *b = writer_batch(p->ctx->w);
  if (ev->ts.state != 'v')
    ld_note(p->f, PROFDB_STAT_event_missing_ts, "flow event without a usable ts");
  spill_targs(ev, 0);
  spill_text(ev, "s", ev->has_s, ev->s_off, ev->s_len);
  if (ev->dur.state == 'v') { /* flows have no duration; keep it anyway */
    extra_member(ev, "dur_ns", 6);
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%lld", (long long)ev->dur.ns);
    jw_raw(&ev->extra_w, tmp, (size_t)n);
  }
  p->flows++;
  if (ev->ph == 's' || ev->ph == 'f') gather_flow_end(p);
  char ph[1] = {ev->ph};
  row_begin(b, TB_FLOW);
  row_int(b, COL_FLOW_ID, id);
  row_int(b, COL_FLOW_TRACE_ID, p->f->artifact_id);
  row_text(b, COL_FLOW_PH, ph, 1);
  col_id(b, COL_FLOW_CAT_ID, ev->raw_cat_id >= 0 ? ev->cat_id : -1);
  col_id(b, COL_FLOW_RAW_CAT_ID, ev->raw_cat_id);
  col_id(b, COL_FLOW_NAME_ID, ev->name_id);
  col_val(b, COL_FLOW_PID, ev, &ev->pid);
  col_val(b, COL_FLOW_TID, ev, &ev->tid);
  col_time(b, COL_FLOW_TS, &ev->ts);
  col_val(b, COL_FLOW_FLOW_ID, ev, &ev->id);
  if (ev->has_bp)
    row_text(b, COL_FLOW_BP, ev->raw.p + ev->bp_off, ev->bp_len);
  else
    row_null(b, COL_FLOW_BP);
  col_obj(b, COL_FLOW_ARGS, &ev->args, &ev->args_w);
  col_obj(b, COL_FLOW_EXTRA, &ev->extra, &ev->extra_w);
}

static void emit_meta(tparser *p, int64_t id) {
  tevent *ev = &p->ev;
  ld_buf *b = writer_batch(p->ctx->w);
  spill_targs(ev, 0);
  spill_id(ev);
  spill_text(ev, "bp", ev->has_bp, ev->bp_off, ev->bp_len);
  spill_text(ev, "s", ev->has_s, ev->s_off, ev->s_len);
  if (ev->raw_cat_id >= 0) { /* M events have no category; keep one */
    extra_member(ev, "cat_id", 6);
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%lld", (long long)ev->raw_cat_id);
    jw_raw(&ev->extra_w, tmp, (size_t)n);
  }
  p->metas_count++;
  row_begin(b, TB_META);
  row_int(b, COL_META_ID, id);
  row_int(b, COL_META_TRACE_ID, p->f->artifact_id);
  col_id(b, COL_META_NAME_ID, ev->name_id);
  col_val(b, COL_META_PID, ev, &ev->pid);
  col_val(b, COL_META_TID, ev, &ev->tid);
  col_time(b, COL_META_TS, &ev->ts);
  col_obj(b, COL_META_ARGS, &ev->args, &ev->args_w);
  col_obj(b, COL_META_EXTRA, &ev->extra, &ev->extra_w);
}

/* Instants, counters and every phase profdb has no table for. */
static void emit_instant(tparser *p, int64_t id, int kind, const char *ph, size_t phn) {
  tevent *ev = &p->ev;
  ld_buf *b = writer_batch(p->ctx->w);
  if (ev->ts.state != 'v' && kind != K_OTHER_PHASE)
    ld_note(p->f, PROFDB_STAT_event_missing_ts, "instant without a usable ts");
  spill_targs(ev, kind == K_MEMORY || kind == K_OUT_OF_MEMORY ? memory_targs : 0);
  spill_id(ev);
  spill_text(ev, "bp", ev->has_bp, ev->bp_off, ev->bp_len);
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

/* Encode a pid or tid: tag byte, then 8 bytes or the text. */
static void encode_tval(ld_buf *b, const tevent *ev, const tval *v) {
  ld_buf_putc(b, v->type ? v->type : '0');
  if (v->type == 'i')
    ld_buf_put(b, &v->i, 8);
  else if (v->type == 't') {
    uint32_t len = v->len;
    ld_buf_put(b, &len, 4);
    ld_buf_put(b, ev->raw.p + v->off, v->len);
  }
}

/* Remember the event's (pid, tid) for the process and thread tables. */
static void note_pair(tparser *p) {
  tevent *ev = &p->ev;
  ld_buf *k = &p->pair_tmp;
  k->n = 0;
  encode_tval(k, ev, &ev->pid);
  encode_tval(k, ev, &ev->tid);
  if (k->n == p->last_pair.n && !memcmp(k->p, p->last_pair.p, k->n)) return;
  p->last_pair.n = 0;
  ld_buf_put(&p->last_pair, k->p, k->n);
  int is_new;
  intern_id(p->pairs_seen, k->p, k->n, &is_new);
  if (!is_new) return;
  uint32_t len = (uint32_t)k->n;
  ld_buf_put(&p->pairs, &len, 4);
  ld_buf_put(&p->pairs, k->p, k->n);
}

static void emit_event(tparser *p) {
  tevent *ev = &p->ev;
  int64_t id = p->ctx->next_event_id++;
  p->events++;
  /* Metadata events name threads through the upserts in sql/trace_finish.sql; their
  ** tid is a placeholder (0) for process_* events, so they are not noted. */
  if ((ev->pid.type || ev->tid.type) && ev->ph != 'M') note_pair(p);
  if (ev->raw_cat_id < 0 && ev->ph != 'M') ld_note(p->f, PROFDB_STAT_category_missing, NULL);
  if (ev->ph_odd) {
    /* ph was not a one-character string: keep its text as the phase. */
    ld_note(p->f, PROFDB_STAT_event_unknown_phase, "unusual ph value");
    if (ev->ph_len)
      emit_instant(p, id, K_OTHER_PHASE, ev->raw.p + ev->ph_off, ev->ph_len);
    else
      emit_instant(p, id, K_OTHER_PHASE, NULL, 0);
    return;
  }
  char ph = ev->ph;
  switch (ph) {
    case 'X': emit_x(p, id); return;
    case 's':
    case 't':
    case 'f': emit_flow(p, id); return;
    case 'M': emit_meta(p, id); return;
    case 0:
      ld_note(p->f, PROFDB_STAT_event_missing_ph, "event without ph");
      emit_instant(p, id, K_OTHER_PHASE, NULL, 0);
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
  emit_instant(p, id, kind, &ph, 1);
}

/* ---- captures ----------------------------------------------------------- */

/* Start copying the container whose first token is t into w. */
static void capture_start(tparser *p, ld_jw *w, capture_end end, tok t) {
  p->cap_w = w;
  p->cap_end = end;
  p->cap_depth = 1;
  jw_open(w, t == TK_START_MAP ? '{' : '[');
  p->pos = TP_CAPTURE;
}

static void push_meta(tparser *p, uint32_t key_off, uint32_t key_len) {
  if (p->nmeta == p->capmeta) {
    p->capmeta = p->capmeta ? p->capmeta * 2 : 16;
    p->metas = realloc(p->metas, (size_t)p->capmeta * sizeof *p->metas);
    if (!p->metas) {
      ld_oom();
    }
  }
  tmeta *m = &p->metas[p->nmeta++];
  m->key_off = key_off;
  m->key_len = key_len;
  m->val_off = p->meta_val_off;
  m->val_len = (uint32_t)(p->meta.n - p->meta_val_off);
  m->position = p->root_keys - 1;
}

/* Parse the compact text "[x,y,z]" of three integers. */
static int parse_dim3(const char *s, size_t n, int64_t out[3]) {
  if (n < 7 || s[0] != '[' || s[n - 1] != ']') return -1;
  size_t i = 1;
  for (int k = 0; k < 3; k++) {
    size_t j = i;
    while (j < n - 1 && s[j] != ',') j++;
    if (nt_parse_int64(s + i, j - i, &out[k]) != NT_OK) return -1;
    if ((k < 2) != (s[j] == ',')) return -1;
    i = j + 1;
  }
  return i == n ? 0 : -1;
}

static void emit_nonobject(tparser *p, const char *json, size_t n) {
  tevent *ev = &p->ev;
  reset_event(p);
  extra_member(ev, "value", 5);
  jw_raw(&ev->extra_w, json, n);
  ld_note(p->f, PROFDB_STAT_event_not_object, "traceEvents element is not an object");
  int64_t id = p->ctx->next_event_id++;
  p->events++;
  emit_instant(p, id, K_OTHER_PHASE, NULL, 0);
}

static void capture_finish(tparser *p) {
  tevent *ev = &p->ev;
  switch (p->cap_end) {
    case CAP_META:
      push_meta(p, p->cur_key_off, p->cur_key_len);
      p->pos = TP_ROOT;
      break;
    case CAP_EXTRA: p->pos = TP_EVENT; break;
    case CAP_ARG: p->pos = TP_ARGS; break;
    case CAP_TYPED: {
      int k = p->cur_targ_key;
      targ t = (targ)targ_keys[k].id;
      tslot *sl = &ev->targs[t];
      uint32_t off = p->typed_off, len = (uint32_t)(ev->raw.n - p->typed_off);
      int64_t d[3];
      if (targ_keys[k].shape == SH_DIM3 && parse_dim3(ev->raw.p + off, len, d)) {
        ld_note(p->f, PROFDB_STAT_typed_arg_kept_raw, NULL);
        args_member(ev, targ_keys[k].key, targ_keys[k].len);
        jw_raw(&ev->args_w, ev->raw.p + off, len);
      } else {
        if (ev->targ_mask & TA_BIT(t))
          ld_note(p->f, PROFDB_STAT_duplicate_key, "duplicate arg '%s'", targ_keys[k].key);
        if (targ_keys[k].shape == SH_DIM3) {
          sl->i = d[0];
          sl->y = d[1];
          sl->z = d[2];
        }
        sl->raw_off = off;
        sl->raw_len = len;
        sl->key = (unsigned char)k;
        ev->targ_mask |= TA_BIT(t);
      }
      p->pos = TP_ARGS;
      break;
    }
    case CAP_NONOBJ:
      emit_nonobject(p, p->nonobj.p, p->nonobj.n);
      p->pos = TP_EVENTS;
      break;
  }
}

/* ---- values of known event keys ---------------------------------------- */

static const char *const ekey_text[] = {"ph",  "cat",  "name", "pid", "tid", "ts",
                                        "dur", "args", "id",   "bp",  "s"};

/* A value the event key cannot use: keep it in extra under the key. */
static void value_to_extra(tparser *p, const char *key, tok t, const char *s, size_t n) {
  tevent *ev = &p->ev;
  extra_member(ev, key, strlen(key));
  if (is_scalar(t))
    ld_write_scalar(p->f, &ev->extra_w, t, s, n);
  else
    capture_start(p, &ev->extra_w, CAP_EXTRA, t);
}

static void set_tval(tparser *p, tval *v, const char *key, tok t, const char *s, size_t n) {
  tevent *ev = &p->ev;
  if (t == TK_NUMBER) {
    if (nt_parse_int64(s, n, &v->i) == NT_OK) {
      v->type = 'i';
      return;
    }
    if (!memchr(s, '.', n) && !memchr(s, 'e', n) && !memchr(s, 'E', n))
      ld_note(p->f, PROFDB_STAT_int_beyond_int64, "%s %.*s kept as text", key,
              (int)(n > 40 ? 40 : n), s);
    v->type = 't'; /* huge or fractional: keep the numeral as text */
    v->off = raw_put(ev, s, n);
    v->len = (uint32_t)n;
  } else if (t == TK_STRING) {
    ld_text(p->f, &s, &n);
    v->type = 't';
    v->off = raw_put(ev, s, n);
    v->len = (uint32_t)n;
  } else {
    v->type = 0;
    value_to_extra(p, key, t, s, n);
  }
}

static void set_time(tparser *p, ttime *tm, const char *key, tok t, const char *s, size_t n) {
  if (t != TK_NUMBER && t != TK_STRING) {
    tm->state = 'x';
    ld_note(p->f, PROFDB_STAT_time_not_number, "%s is not a number", key);
    value_to_extra(p, key, t, s, n);
    return;
  }
  if (t == TK_STRING) ld_note(p->f, PROFDB_STAT_time_string, NULL);
  switch (nt_parse_scaled(s, n, 3, &tm->ns)) {
    case NT_OK: tm->state = 'v'; return;
    case NT_ROUNDED:
      tm->state = 'v';
      ld_note(p->f, PROFDB_STAT_time_subns_rounded, NULL);
      return;
    case NT_OVERFLOW:
      tm->state = 'x';
      ld_note(p->f, PROFDB_STAT_time_out_of_range, "%s %.*s is out of range", key,
              (int)(n > 40 ? 40 : n), s);
      break;
    case NT_INVALID:
      tm->state = 'x';
      ld_note(p->f, PROFDB_STAT_time_not_number, "%s is not a number", key);
      break;
  }
  /* Keep the text exactly: as a JSON string. */
  extra_member(&p->ev, key, strlen(key));
  ld_text(p->f, &s, &n);
  jw_string(&p->ev.extra_w, s, n);
}

/* Remember a short string value of the event in raw. */
static int set_text(tparser *p, const char *key, tok t, const char *s, size_t n, uint32_t *off,
                    uint32_t *len) {
  if (t != TK_STRING) {
    value_to_extra(p, key, t, s, n);
    return 0;
  }
  ld_text(p->f, &s, &n);
  *off = raw_put(&p->ev, s, n);
  *len = (uint32_t)n;
  return 1;
}

static void event_value(tparser *p, tok t, const char *s, size_t n) {
  tevent *ev = &p->ev;
  ekey k = p->cur_ekey;
  p->pos = TP_EVENT; /* unless a capture or args starts below */
  switch (k) {
    case EK_OTHER:
      if (is_scalar(t))
        ld_write_scalar(p->f, &ev->extra_w, t, s, n);
      else
        capture_start(p, &ev->extra_w, CAP_EXTRA, t);
      return;
    case EK_ARGS:
      if (t == TK_START_MAP) {
        p->pos = TP_ARGS;
        return;
      }
      ld_note(p->f, PROFDB_STAT_args_not_object, "args is not an object");
      value_to_extra(p, "args", t, s, n);
      return;
    case EK_PH:
      if (t == TK_STRING && n == 1) {
        ev->ph = s[0];
        ev->ph_odd = 0;
        return;
      }
      ev->ph_odd = 1;
      ev->ph_len = 0;
      if (t == TK_STRING)
        set_text(p, "ph", t, s, n, &ev->ph_off, &ev->ph_len);
      else
        value_to_extra(p, "ph", t, s, n);
      return;
    case EK_CAT:
      if (t == TK_STRING) {
        ld_text(p->f, &s, &n);
        ev->raw_cat_id = ld_string(p->f, s, n);
        classify_cat(p, s, n, ev->raw_cat_id, &ev->cat_kind, &ev->cat_id);
      } else {
        value_to_extra(p, "cat", t, s, n);
      }
      return;
    case EK_NAME:
      if (t == TK_STRING) {
        ld_text(p->f, &s, &n);
        ev->name_id = ld_string(p->f, s, n);
        ev->step_number = nest_step_number(s, n);
        ev->special = n == 8 && !memcmp(s, "[memory]", 8)          ? 1
                      : n == 13 && !memcmp(s, "[OutOfMemory]", 13) ? 2
                                                                   : 0;
      } else {
        value_to_extra(p, "name", t, s, n);
      }
      return;
    case EK_PID: set_tval(p, &ev->pid, "pid", t, s, n); return;
    case EK_TID: set_tval(p, &ev->tid, "tid", t, s, n); return;
    case EK_ID: set_tval(p, &ev->id, "id", t, s, n); return;
    case EK_TS: set_time(p, &ev->ts, "ts", t, s, n); return;
    case EK_DUR: set_time(p, &ev->dur, "dur", t, s, n); return;
    case EK_BP: ev->has_bp = set_text(p, "bp", t, s, n, &ev->bp_off, &ev->bp_len); return;
    case EK_S: ev->has_s = set_text(p, "s", t, s, n, &ev->s_off, &ev->s_len); return;
  }
}

/* ---- values of args ----------------------------------------------------- */

static void arg_value(tparser *p, tok t, const char *s, size_t n) {
  tevent *ev = &p->ev;
  int k = p->cur_targ_key;
  p->pos = TP_ARGS;
  if (k < 0) { /* residual arg: its key is already written */
    if (is_scalar(t))
      ld_write_scalar(p->f, &ev->args_w, t, s, n);
    else
      capture_start(p, &ev->args_w, CAP_ARG, t);
    return;
  }
  targ ta = (targ)targ_keys[k].id;
  tslot *sl = &ev->targs[ta];
  int ok = 0;
  switch ((tshape)targ_keys[k].shape) {
    case SH_INT: ok = t == TK_NUMBER && nt_parse_int64(s, n, &sl->i) == NT_OK; break;
    case SH_REAL: ok = t == TK_NUMBER && nt_parse_double(s, n, &sl->d) == NT_OK; break;
    case SH_JSON:
      if (!is_scalar(t)) {
        p->typed_off = (uint32_t)ev->raw.n;
        jw_init(&p->typed_w, &ev->raw);
        capture_start(p, &p->typed_w, CAP_TYPED, t);
        return;
      }
      ok = 1;
      break;
    case SH_DIM3:
      if (!is_scalar(t)) {
        p->typed_off = (uint32_t)ev->raw.n;
        jw_init(&p->typed_w, &ev->raw);
        capture_start(p, &p->typed_w, CAP_TYPED, t);
        return;
      }
      break;
    case SH_NAME:
      if (t == TK_STRING) {
        sl->i = ld_string(p->f, s, n);
        ok = sl->i >= 0;
      }
      break;
  }
  if (!ok) {
    /* Wrong type for the column ("inf", "N/A", null, a huge integer...):
    ** the value stays in args exactly as written. */
    if (t != TK_NULL) ld_note(p->f, PROFDB_STAT_typed_arg_kept_raw, NULL);
    args_member(ev, targ_keys[k].key, targ_keys[k].len);
    if (is_scalar(t))
      ld_write_scalar(p->f, &ev->args_w, t, s, n);
    else
      capture_start(p, &ev->args_w, CAP_ARG, t);
    return;
  }
  if (ev->targ_mask & TA_BIT(ta))
    ld_note(p->f, PROFDB_STAT_duplicate_key, "duplicate arg '%s'", targ_keys[k].key);
  /* Keep the value's JSON text, for tables without a column for it. */
  sl->raw_off = (uint32_t)ev->raw.n;
  {
    ld_jw w;
    memset(&w, 0, sizeof w);
    jw_init(&w, &ev->raw);
    ld_write_scalar(p->f, &w, t, s, n);
    jw_free(&w);
  }
  sl->raw_len = (uint32_t)(ev->raw.n - sl->raw_off);
  sl->key = (unsigned char)k;
  ev->targ_mask |= TA_BIT(ta);
}

/* ---- the token handler -------------------------------------------------- */

/* TP_ROOT: a top-level key; its value comes next (TP_ROOT_VAL). */
static void root_key(tparser *p, const char *s, size_t n) {
  p->root_keys++;
  if (n == 11 && !memcmp(s, "traceEvents", 11)) {
    p->in_events_key = 1;
  } else {
    ld_text(p->f, &s, &n);
    p->in_events_key = 0;
    p->cur_key_off = (uint32_t)p->meta.n;
    p->cur_key_len = (uint32_t)n;
    ld_buf_put(&p->meta, s, n);
    ld_note(p->f, PROFDB_STAT_metadata_keys, NULL);
  }
  p->pos = TP_ROOT_VAL;
}

/* TP_ROOT_VAL, other than traceEvents: the value of a metadata key,
** captured whole when it is an object or array. */
static void root_value(tparser *p, tok t, const char *s, size_t n) {
  p->meta_val_off = (uint32_t)p->meta.n;
  jw_init(&p->meta_w, &p->meta);
  if (is_scalar(t)) {
    ld_write_scalar(p->f, &p->meta_w, t, s, n);
    push_meta(p, p->cur_key_off, p->cur_key_len);
    p->pos = TP_ROOT;
  } else {
    capture_start(p, &p->meta_w, CAP_META, t);
  }
}

/* TP_EVENT: a key of an event; its value comes next (TP_EVENT_VAL). */
static void event_member(tparser *p, const char *s, size_t n) {
  tevent *ev = &p->ev;
  ekey k = event_key(s, n);
  if (k != EK_OTHER) {
    if (ev->seen & (1u << k))
      ld_note(p->f, PROFDB_STAT_duplicate_key, "duplicate event key '%s'", ekey_text[k]);
    ev->seen |= 1u << k;
  } else {
    ld_text(p->f, &s, &n);
    ld_note(p->f, PROFDB_STAT_event_extra_keys, NULL);
    extra_member(ev, s, n);
  }
  p->cur_ekey = k;
  p->pos = TP_EVENT_VAL;
}

static int tok_handle(tparser *p, tok t, const char *s, size_t n) {
  tevent *ev = &p->ev;
  switch (p->pos) {
    case TP_TOP:
      if (t == TK_START_MAP) {
        p->pos = TP_ROOT;
        return 1;
      }
      if (t == TK_START_ARRAY) {
        p->layout_array = 1;
        p->pos = TP_EVENTS;
        return 1;
      }
      return ld_fail(p->f, PROFDB_EXIT_DATA, 1,
                     "not a trace: top-level value is not an object or array");

    case TP_ROOT:
      if (t == TK_END_MAP) {
        p->pos = TP_DONE;
        return 1;
      }
      root_key(p, s, n); /* t == TK_KEY */
      return 1;

    case TP_ROOT_VAL:
      if (p->in_events_key) {
        if (t != TK_START_ARRAY)
          return ld_fail(p->f, PROFDB_EXIT_DATA, 1, "traceEvents is not an array");
        p->saw_events = 1;
        p->pos = TP_EVENTS;
        return 1;
      }
      root_value(p, t, s, n);
      return 1;

    case TP_EVENTS:
      if (t == TK_START_MAP) {
        reset_event(p);
        p->pos = TP_EVENT;
        return 1;
      }
      if (t == TK_END_ARRAY) {
        p->pos = p->layout_array ? TP_DONE : TP_ROOT;
        p->in_events_key = 0;
        return 1;
      }
      p->nonobj.n = 0;
      jw_init(&p->nonobj_w, &p->nonobj);
      if (is_scalar(t)) {
        ld_write_scalar(p->f, &p->nonobj_w, t, s, n);
        emit_nonobject(p, p->nonobj.p, p->nonobj.n);
      } else {
        capture_start(p, &p->nonobj_w, CAP_NONOBJ, t);
      }
      return 1;

    case TP_EVENT:
      if (t == TK_END_MAP) {
        emit_event(p);
        p->pos = TP_EVENTS;
        return 1;
      }
      event_member(p, s, n); /* TK_KEY */
      return 1;

    case TP_EVENT_VAL: event_value(p, t, s, n); return 1;

    case TP_ARGS:
      if (t == TK_END_MAP) {
        p->pos = TP_EVENT;
        return 1;
      }
      p->cur_targ_key = targ_lookup(s, n);
      if (p->cur_targ_key < 0) {
        ld_text(p->f, &s, &n);
        args_member(ev, s, n);
      }
      p->pos = TP_ARG_VAL;
      return 1;

    case TP_ARG_VAL: arg_value(p, t, s, n); return 1;

    case TP_CAPTURE:
      if (ld_capture_token(p->f, p->cap_w, &p->cap_depth, t, s, n)) capture_finish(p);
      return 1;

    case TP_DONE: return ld_fail(p->f, PROFDB_EXIT_DATA, 1, "unexpected data after the trace");
  }
  return 1;
}

LD_TOKEN_CALLBACKS(trace_callbacks, tok_handle);

/* ---- finishing a trace -------------------------------------------------- */

/* Decode one pid or tid encoded by encode_tval and bind it. */
static const char *bind_tval(sqlite3_stmt *st, int col, const char *q) {
  char tag = *q++;
  if (tag == 'i') {
    int64_t v;
    memcpy(&v, q, 8);
    sqlite3_bind_int64(st, col, v);
    return q + 8;
  }
  if (tag == 't') {
    uint32_t len;
    memcpy(&len, q, 4);
    sqlite3_bind_text(st, col, q + 4, (int)len, SQLITE_TRANSIENT);
    return q + 4 + len;
  }
  sqlite3_bind_null(st, col);
  return q;
}

/* Insert process and thread rows for every (pid, tid) seen. */
static int write_threads(tparser *p) {
  sqlite3 *db = p->ctx->db;
  sqlite3_stmt *th = NULL, *pr = NULL;
  int rc = -1;
  if (sqlite3_prepare_v2(db,
                         "INSERT OR IGNORE INTO thread(trace_id, pid, tid)"
                         " VALUES(?,?,?)",
                         -1, &th, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db,
                         "INSERT OR IGNORE INTO process(trace_id, pid)"
                         " VALUES(?,?)",
                         -1, &pr, NULL) != SQLITE_OK)
    goto done;
  for (size_t i = 0; i < p->pairs.n;) {
    uint32_t len;
    memcpy(&len, p->pairs.p + i, 4);
    const char *q = p->pairs.p + i + 4;
    i += 4 + len;
    if (*q == '0') continue; /* no pid: nothing to name */
    sqlite3_bind_int64(th, 1, p->f->artifact_id);
    sqlite3_bind_int64(pr, 1, p->f->artifact_id);
    bind_tval(pr, 2, q);
    const char *r = bind_tval(th, 2, q);
    if (*r == '0')
      sqlite3_bind_int(th, 3, 0); /* pid without tid */
    else
      bind_tval(th, 3, r);
    if (sqlite3_step(th) != SQLITE_DONE || sqlite3_step(pr) != SQLITE_DONE) goto done;
    sqlite3_reset(th);
    sqlite3_reset(pr);
  }
  rc = 0;
done:
  sqlite3_finalize(th);
  sqlite3_finalize(pr);
  return rc;
}

static int write_metadata(tparser *p) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(p->ctx->db,
                         "INSERT INTO trace_metadata(trace_id, position, key, value)"
                         " VALUES(?,?,?,?)",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  int rc = 0;
  for (int i = 0; i < p->nmeta && rc == 0; i++) {
    const tmeta *m = &p->metas[i];
    sqlite3_bind_int64(st, 1, p->f->artifact_id);
    sqlite3_bind_int(st, 2, m->position);
    sqlite3_bind_text(st, 3, p->meta.p + m->key_off, (int)m->key_len, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, p->meta.p + m->val_off, (int)m->val_len, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE) rc = -1;
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return rc;
}

static const char *const kind_label[K__MAX] = {
#define KIND_LABEL(id, code, name, storage) [code] = name,
    PROFDB_EVENT_KINDS(KIND_LABEL)
#undef KIND_LABEL
};

static int put_count(sqlite3_stmt *st, int64_t trace_id, const char *kind, uint64_t n) {
  if (!n) return 0;
  sqlite3_bind_int64(st, 1, trace_id);
  sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 3, (int64_t)n);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  sqlite3_reset(st);
  return rc;
}

/* event_count rows: events per kind, flows and metadata included. */
static int write_counts(tparser *p) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(p->ctx->db,
                         "INSERT OR REPLACE INTO event_count(trace_id, kind,"
                         " events) VALUES(?,?,?)",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  int64_t id = p->f->artifact_id;
  int rc = 0;
  for (int k = 0; k < K__MAX && rc == 0; k++)
    if (kind_label[k]) rc = put_count(st, id, kind_label[k], p->kind_count[k]);
  if (rc == 0) rc = put_count(st, id, "flow", p->flows);
  if (rc == 0) rc = put_count(st, id, "metadata", p->metas_count);
  sqlite3_finalize(st);
  return rc;
}

static int trace_finish(tparser *p, int status, double seconds) {
  ld_file *f = p->f;
  sqlite3 *db = p->ctx->db;
  if (ld_finish_artifact(f, status, p->layout_array ? "array" : "object", seconds)) return -1;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db,
                         "UPDATE trace SET events = ?2, start_ts = ?3, end_ts = ?4"
                         " WHERE trace_id = ?1",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, f->artifact_id);
  sqlite3_bind_int64(st, 2, (int64_t)p->events);
  if (p->has_window) {
    sqlite3_bind_int64(st, 3, p->win_start);
    sqlite3_bind_int64(st, 4, p->win_end);
  }
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  sqlite3_finalize(st);
  if (rc || write_metadata(p) || write_threads(p) || write_counts(p)) return -1;
  if (ld_exec_script(db, profdb_sql_trace_finish, f->artifact_id)) return -1;
  f->stats[PROFDB_STAT_trace_events] = p->events;
  return ld_write_stats(f);
}

/* One-line summary: events per kind. */
static void summary(tparser *p, double seconds) {
  char counts[1024];
  size_t n =
      (size_t)snprintf(counts, sizeof counts, "events=%llu", (unsigned long long)p->events);
#define COUNT(label, v)                                                   \
  if ((v) && n < sizeof counts)                                           \
  n += (size_t)snprintf(counts + n, sizeof counts - n, " %s=%llu", label, \
                        (unsigned long long)(v))
  for (int k = 0; k < K__MAX; k++)
    if (kind_label[k]) COUNT(kind_label[k], p->kind_count[k]);
  COUNT("flow", p->flows);
  COUNT("metadata", p->metas_count);
#undef COUNT
  ld_summary(p->f, counts, p->f->truncated, seconds);
}

int trace_load(ld_file *f) {
  ld_ctx *ctx = f->ctx;
  double t0 = ld_seconds();
  tparser *p = calloc(1, sizeof *p);
  if (!p) return ld_fail(f, PROFDB_EXIT_USAGE, 0, "out of memory"), -1;
  p->f = f;
  p->ctx = ctx;
  p->cpu_op_cat_id = -1;
  p->pairs_seen = intern_new();
  int rc = ld_parse(f, &trace_callbacks, p);
  if (rc >= 0 && p->pos != TP_DONE && !f->truncated) {
    f->truncated = 1; /* defensive: the value did not close */
    f->truncated_at = f->in.delivered;
    rc = 1;
  }
  if (rc >= 0 && !p->saw_events && !p->layout_array) {
    ld_fail(f, PROFDB_EXIT_DATA, 0, "not a trace: no traceEvents array");
    rc = -1;
  }
  if (rc >= 0 && writer_sync(ctx->w)) {
    ld_fail(f, PROFDB_EXIT_USAGE, 0, "%s", writer_error(ctx->w));
    rc = -1;
  }
  double seconds = ld_seconds() - t0;
  if (rc >= 0 && trace_finish(p, rc == 1, seconds)) {
    ld_fail(f, PROFDB_EXIT_USAGE, 0, "database error: %s", sqlite3_errmsg(ctx->db));
    rc = -1;
  }
  if (rc >= 0 && !ctx->opt->quiet) summary(p, seconds);
  /* free */
  jw_free(&p->ev.args_w);
  jw_free(&p->ev.extra_w);
  jw_free(&p->typed_w);
  jw_free(&p->meta_w);
  jw_free(&p->nonobj_w);
  ld_buf_free(&p->ev.raw);
  ld_buf_free(&p->ev.args);
  ld_buf_free(&p->ev.extra);
  ld_buf_free(&p->key_buf);
  ld_buf_free(&p->nonobj);
  ld_buf_free(&p->meta);
  ld_buf_free(&p->pairs);
  ld_buf_free(&p->last_pair);
  ld_buf_free(&p->pair_tmp);
  intern_free(p->pairs_seen);
  free(p->metas);
  free(p);
  return rc;
}

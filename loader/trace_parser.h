/*
** trace_parser.h — the Kineto trace parser's state, shared by its parts
** (internal to the loader; trace.c describes how the parser works).
**
**   trace.c         trace_load: the parse, then the trace's own rows
**   trace_tokens.c  yajl tokens -> the event being read (keys, values,
**                   typed args, captures of nested values)
**   trace_events.c  a finished event -> its row: categories, X events
**                   (_slice), instants (_instant), the dispatch by phase
**   trace_spill.c   what a row's table has no column for -> its args or
**                   extra JSON (every event table's rows)
**   trace_gpu.c     X events of a GPU kind -> _gpu
**   trace_flows.c   flow events -> _flow, and the unmatched-flow counts
**   trace_meta.c    M events (_meta), top-level metadata keys, and the
**                   process and thread rows
*/
#ifndef PROFDB_TRACE_PARSER_H
#define PROFDB_TRACE_PARSER_H

#include "loader.h"
#include "stream.h"

#include "profdb/codes.h"

#include <stdint.h>

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

/* An arg key with a typed column (trace_tokens.c: targ_keys).  Aliases
** (older spellings) share a slot; the spelling is remembered so a value
** that goes back to args keeps it. */
typedef struct targ_key {
  const char *key;
  unsigned char len;
  unsigned char id;    /* targ */
  unsigned char shape; /* tshape */
} targ_key;
extern const targ_key targ_keys[];

/* A typed arg's bit in tevent.targ_mask (and in the masks of the typed
** args each storage table has columns for). */
#define TA_BIT(t) (1u << (t))

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

/* tevent.call_class: the runtime calls the load counts (import_stats
** kernel_launches, graph_launches, graph_capture_calls;
** postpass_link_stats.sql). */
enum { CALL_LAUNCH = 1, CALL_GRAPH = 2, CALL_CAPTURE = 3 };

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
  int call_class;          /* a runtime call's name: kernel launch (CALL_LAUNCH), graph
                              launch (CALL_GRAPH), graph capture begin or end
                              (CALL_CAPTURE), else 0 */
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

/* ---- helpers shared by the parts ---------------------------------------- */

static inline void args_member(tevent *ev, const char *k, size_t n) {
  if (ev->args.n == 0) jw_open(&ev->args_w, '{');
  jw_key(&ev->args_w, k, n);
}

static inline void extra_member(tevent *ev, const char *k, size_t n) {
  if (ev->extra.n == 0) jw_open(&ev->extra_w, '{');
  jw_key(&ev->extra_w, k, n);
}

static inline int has_targ(const tevent *ev, targ t) {
  return (ev->targ_mask & TA_BIT(t)) != 0;
}

static inline void col_int(ld_buf *b, int c, const tevent *ev, targ t) {
  if (has_targ(ev, t))
    row_int(b, c, ev->targs[t].i);
  else
    row_null(b, c);
}
static inline void col_real(ld_buf *b, int c, const tevent *ev, targ t) {
  if (has_targ(ev, t))
    row_real(b, c, ev->targs[t].d);
  else
    row_null(b, c);
}
static inline void col_json(ld_buf *b, int c, const tevent *ev, targ t) {
  if (has_targ(ev, t))
    row_text(b, c, ev->raw.p + ev->targs[t].raw_off, ev->targs[t].raw_len);
  else
    row_null(b, c);
}
static inline void col_val(ld_buf *b, int c, const tevent *ev, const tval *v) {
  if (v->type == 'i')
    row_int(b, c, v->i);
  else if (v->type == 't')
    row_text(b, c, ev->raw.p + v->off, v->len);
  else
    row_null(b, c);
}
static inline void col_time(ld_buf *b, int c, const ttime *t) {
  if (t->state == 'v')
    row_int(b, c, t->ns);
  else
    row_null(b, c);
}
static inline void col_obj(ld_buf *b, int c, ld_buf *obj, ld_jw *w) {
  if (!obj->n) {
    row_null(b, c);
    return;
  }
  jw_close(w, '}');
  row_text(b, c, obj->p, obj->n);
}
static inline void col_id(ld_buf *b, int c, int64_t id) {
  if (id >= 0)
    row_int(b, c, id);
  else
    row_null(b, c);
}

/* ---- the parts ----------------------------------------------------------- */

/* trace_tokens.c: feed the whole input to the token handler; returns like
** ld_parse. */
int trace_parse(tparser *p);

/* trace_spill.c: what a row has no column for, spilled into its args
** (typed args not in accepted) or extra (the id, bp and s keys). */
void trace_spill_targs(tevent *ev, uint32_t accepted);
void trace_spill_text(tevent *ev, const char *key, int has, uint32_t off, uint32_t len);
void trace_spill_id(tevent *ev);

/* trace_events.c: the category's kind and normalized id; a row per event. */
void trace_classify_cat(tparser *p, const char *s, size_t n, int64_t raw_id, int *kind,
                        int64_t *norm_id);
void trace_emit_instant(tparser *p, int64_t id, int kind, const char *ph, size_t phn);
void trace_emit_event(tparser *p);

/* trace_gpu.c: the _gpu row of an X event of a GPU kind. */
void trace_gpu_row(tparser *p, int64_t id, int kind, int64_t cat);

/* trace_flows.c: the _flow row of a flow event (id: its event id). */
void trace_emit_flow(tparser *p, int64_t id);

/* trace_meta.c: the _meta row of an M event; a top-level key's value
** (kept until the end); the event's (pid, tid); at the end, the
** process, thread and trace_metadata rows (0 or -1). */
void trace_emit_meta(tparser *p, int64_t id);
void trace_push_meta(tparser *p, uint32_t key_off, uint32_t key_len);
void trace_note_pair(tparser *p);
int trace_write_threads(tparser *p);
int trace_write_metadata(tparser *p);

#endif

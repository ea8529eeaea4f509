/*
** snapshot.c — stream a CUDA caching-allocator memory snapshot (the dict of
** torch.cuda.memory._snapshot() dumped with json.dump, or a bare list of
** segments) into the snapshot tables.
**
** HOW IT WORKS
**   An explicit stack of contexts follows the document:
**     top{} -> segments[] -> segment{} -> blocks[] -> block{} -> history[]
**           -> device_traces[] -> device[] -> entry{}
**           -> allocator_settings{}   -> external_annotations[] -> {}
**   and any of segment/block/history entry/trace entry -> frames[] -> {}.
**   Each object collects its known fields; its row is written at its
**   closing brace, so trace entries are never accumulated: memory does not
**   grow with the number of entries.  Unknown keys and values of an
**   unexpected type are kept as JSON in the row's extra column.
**
** Requirement 1 (stacks are interned): a frames list is reduced to a key
**   of (filename id, line, name id, extra id) per frame; identical keys get
**   one stack_id and their frames are written once.
** Requirement 2 (PyTorch 2.0 layout): blocks without "address" get it in
**   the post-pass (segment address + sizes of the blocks before it);
**   requested_size and frames come from history[0] when the block has none.
** Requirement 3: both spellings active_pending_free / active_awaiting_free
**   are kept as written; the block view reports one.
*/
#include "loader.h"
#include "clock.h"
#include "numtext.h"
#include "oom.h"
#include "stream.h"

#include "profdb/codes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- scalar values ------------------------------------------------------ */

typedef struct sval {
  char type;         /* 0 absent, 'i' integer, 'r' real, 't' text, 'b' bool,
                     ** 'n' null, 'j' JSON text (arrays/objects) */
  int64_t i;         /* 'i' and 'b' */
  double d;          /* 'r' */
  uint32_t off, len; /* 't' and 'j': text in the object's buffer */
} sval;

/* ---- contexts ----------------------------------------------------------- */

typedef enum sctx {
  C_TOP,         /* top-level object */
  C_SEGMENTS,    /* segments array (or the top-level list) */
  C_SEGMENT,     /* a segment object */
  C_BLOCKS,      /* a segment's blocks array */
  C_BLOCK,       /* a block object */
  C_HISTORY,     /* a block's history array (2.0 layout) */
  C_HIST,        /* a history entry object */
  C_TRACES,      /* device_traces: one array per device */
  C_DEVICE,      /* one device's trace entries */
  C_ENTRY,       /* a trace entry object */
  C_FRAMES,      /* a frames array */
  C_FRAME,       /* a frame object */
  C_SETTINGS,    /* allocator_settings object */
  C_ANNOTATIONS, /* external_annotations array */
  C_ANNOTATION,  /* an annotation object */
  C_CAPTURE      /* a value copied as JSON into cap_w */
} sctx;

/* Field ids of each object kind (values in sobj.f[]). */
enum {
  F_DEVICE,
  F_ADDRESS,
  F_TOTAL_SIZE,
  F_ALLOCATED_SIZE,
  F_ACTIVE_SIZE,
  F_REQUESTED_SIZE,
  F_STREAM,
  F_SEGMENT_TYPE,
  F_POOL_ID,
  F_IS_EXPANDABLE,
  F_SIZE,
  F_STATE,
  F_ADDR,
  F_REAL_SIZE,
  F_ACTION,
  F_TIME_US,
  F_DEVICE_FREE,
  F_COMPILE_CONTEXT,
  F_USER_METADATA,
  F_STAGE,
  F_NAME,
  F_FILENAME,
  F_LINE,
  F__COUNT
};

/* How a field's value must look; anything else goes to extra. */
typedef enum fshape { FS_INT, FS_TEXT, FS_BOOL, FS_JSON } fshape;

typedef struct fdef {
  const char *key;
  int field;
  fshape shape;
} fdef;

static const fdef segment_fields[] = {{"device", F_DEVICE, FS_INT},
                                      {"address", F_ADDRESS, FS_INT},
                                      {"total_size", F_TOTAL_SIZE, FS_INT},
                                      {"allocated_size", F_ALLOCATED_SIZE, FS_INT},
                                      {"active_size", F_ACTIVE_SIZE, FS_INT},
                                      {"requested_size", F_REQUESTED_SIZE, FS_INT},
                                      {"stream", F_STREAM, FS_INT},
                                      {"segment_type", F_SEGMENT_TYPE, FS_TEXT},
                                      {"segment_pool_id", F_POOL_ID, FS_JSON},
                                      {"is_expandable", F_IS_EXPANDABLE, FS_BOOL},
                                      {NULL, 0, 0}};
static const fdef block_fields[] = {{"address", F_ADDRESS, FS_INT},
                                    {"size", F_SIZE, FS_INT},
                                    {"requested_size", F_REQUESTED_SIZE, FS_INT},
                                    {"state", F_STATE, FS_TEXT},
                                    {NULL, 0, 0}};
static const fdef hist_fields[] = {
    {"addr", F_ADDR, FS_INT}, {"real_size", F_REAL_SIZE, FS_INT}, {NULL, 0, 0}};
static const fdef entry_fields[] = {{"action", F_ACTION, FS_TEXT},
                                    {"addr", F_ADDR, FS_INT},
                                    {"size", F_SIZE, FS_INT},
                                    {"stream", F_STREAM, FS_INT},
                                    {"time_us", F_TIME_US, FS_INT},
                                    {"device_free", F_DEVICE_FREE, FS_INT},
                                    {"compile_context", F_COMPILE_CONTEXT, FS_TEXT},
                                    {"user_metadata", F_USER_METADATA, FS_TEXT},
                                    {NULL, 0, 0}};
static const fdef annotation_fields[] = {{"device", F_DEVICE, FS_INT},
                                         {"stage", F_STAGE, FS_TEXT},
                                         {"name", F_NAME, FS_TEXT},
                                         {"time_us", F_TIME_US, FS_INT},
                                         {NULL, 0, 0}};
static const fdef frame_fields[] = {{"name", F_NAME, FS_TEXT},
                                    {"filename", F_FILENAME, FS_TEXT},
                                    {"line", F_LINE, FS_INT},
                                    {NULL, 0, 0}};

/* An object being read: its fields, texts and unknown keys. */
typedef struct sobj {
  sval f[F__COUNT];   /* known fields */
  ld_buf text;        /* texts of 't'/'j' values */
  ld_buf extra;       /* unknown keys: '{' + members, or empty */
  ld_jw extra_w;      /* writer for extra */
  int64_t stack_id;   /* from its frames, -1 if none */
  int64_t id;         /* row id assigned at start */
  int64_t count;      /* children seen (blocks, history entries) */
  int64_t hist_stack; /* block: stack of history[0], -1 if none */
  sval hist_size;     /* block: real_size of history[0] */
} sobj;

/* What a frames list belongs to. */
typedef struct sframe_list {
  ld_buf key; /* (filename id, line, name id, extra id) per frame */
  int frames; /* frames in key */
} sframe_list;

/* One segment's extent and where it ends in the file. */
typedef struct seg_extent {
  int64_t device, address, size;
  uint64_t offset; /* decompressed offset just past the segment */
} seg_extent;

typedef struct sparser {
  ld_file *f;
  ld_ctx *ctx;
  sctx stack[16]; /* open contexts (the format is at most 7 deep) */
  int depth;
  const fdef *cur_field; /* known field whose value comes next, or NULL */
  int cur_unknown;       /* an unknown key was written to extra */
  int special;           /* SK_*: the current key is a list to descend into */
  uint64_t size_total;   /* |sizes| read so far, bounded by SNAPSHOT_MAX_BYTES */
  int cur_key;           /* for C_TOP and C_SETTINGS: which key (below) */
  ld_buf key_text;       /* current key (settings, top-level metadata) */
  /* capture */
  ld_jw *cap_w;
  int cap_depth;
  int cap_kind;  /* what the captured value is for (CAPK_*) */
  ld_jw value_w; /* writer for settings/metadata/json field values */
  ld_buf value_buf;
  /* objects, one per kind: the format never nests a kind in itself */
  sobj seg, block, hist, entry, frame, ann;
  sframe_list frames;
  int64_t device; /* index of the current device_traces list */
  int64_t seq;    /* index in it */
  int64_t ann_seq;
  /* top level */
  int layout_list;
  int root_keys;
  ld_buf meta;       /* top-level metadata (list_add records) */
  ld_buf settings;   /* allocator settings (list_add records) */
  ld_intern *stacks; /* stack key -> stack id */
  /* totals */
  uint64_t segments, blocks, entries, annotations, legacy_blocks;
  /* segments with an integer device, address and size, for the overlap
  ** check at the end (seg_overlaps) */
  seg_extent *ext;
  size_t n_ext, cap_ext;
} sparser;

enum { CAPK_EXTRA, CAPK_FIELD_JSON, CAPK_SETTING, CAPK_META };
enum { TK_SEGMENTS = 1, TK_TRACES, TK_SETTINGS, TK_ANNOTATIONS, TK_OTHER };

/* ---- objects ------------------------------------------------------------ */

static sobj *obj_of(sparser *p, sctx c) {
  switch (c) {
    case C_SEGMENT: return &p->seg;
    case C_BLOCK: return &p->block;
    case C_HIST: return &p->hist;
    case C_ENTRY: return &p->entry;
    case C_FRAME: return &p->frame;
    case C_ANNOTATION: return &p->ann;
    default: return NULL;
  }
}

static const fdef *fields_of(sctx c) {
  switch (c) {
    case C_SEGMENT: return segment_fields;
    case C_BLOCK: return block_fields;
    case C_HIST: return hist_fields;
    case C_ENTRY: return entry_fields;
    case C_FRAME: return frame_fields;
    case C_ANNOTATION: return annotation_fields;
    default: return NULL;
  }
}

static void obj_reset(sobj *o) {
  memset(o->f, 0, sizeof o->f);
  o->text.n = o->extra.n = 0;
  jw_init(&o->extra_w, &o->extra);
  o->stack_id = o->hist_stack = -1;
  o->hist_size.type = 0;
  o->count = 0;
}

static void obj_free(sobj *o) {
  ld_buf_free(&o->text);
  ld_buf_free(&o->extra);
  jw_free(&o->extra_w);
}

static void extra_key(sobj *o, const char *k, size_t n) {
  if (o->extra.n == 0) jw_open(&o->extra_w, '{');
  jw_key(&o->extra_w, k, n);
}

/* ---- row columns -------------------------------------------------------- */

static void col(ld_buf *b, int c, const sobj *o, int field) {
  const sval *v = &o->f[field];
  switch (v->type) {
    case 'i':
    case 'b': row_int(b, c, v->i); break;
    case 'r': row_real(b, c, v->d); break;
    case 't':
    case 'j': row_text(b, c, o->text.p + v->off, v->len); break;
    default: row_null(b, c);
  }
}
static void col_stack(ld_buf *b, int c, int64_t stack) {
  if (stack >= 0)
    row_int(b, c, stack);
  else
    row_null(b, c);
}
static void col_extra(ld_buf *b, int c, sobj *o) {
  if (!o->extra.n) {
    row_null(b, c);
    return;
  }
  jw_close(&o->extra_w, '}');
  row_text(b, c, o->extra.p, o->extra.n);
}

static int field_is(const sobj *o, int field, const char *s) {
  const sval *v = &o->f[field];
  size_t n = strlen(s);
  return v->type == 't' && v->len == n && !memcmp(o->text.p + v->off, s, n);
}

static int field_int(const sobj *o, int field, int64_t *out) {
  const sval *v = &o->f[field];
  if (v->type != 'i') return 0;
  *out = v->i;
  return 1;
}

/* Remember a segment's extent (device 0 when the 2.0 layout has none). */
static void keep_extent(sparser *p, const sobj *o) {
  seg_extent e = {0};
  if (!field_int(o, F_ADDRESS, &e.address) || !field_int(o, F_TOTAL_SIZE, &e.size) ||
      e.size <= 0)
    return;
  if (!field_int(o, F_DEVICE, &e.device)) e.device = 0;
  e.offset = ld_offset(p->f);
  if (p->n_ext == p->cap_ext) {
    p->cap_ext = p->cap_ext ? 2 * p->cap_ext : 256;
    p->ext = realloc(p->ext, p->cap_ext * sizeof *p->ext);
    if (!p->ext) ld_oom();
  }
  p->ext[p->n_ext++] = e;
}

static int extent_cmp(const void *a, const void *b) {
  const seg_extent *x = a, *y = b;
  if (x->device != y->device) return x->device < y->device ? -1 : 1;
  if (x->address != y->address) return x->address < y->address ? -1 : 1;
  return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Requirement: segments of one device never share a byte in a consistent
** snapshot (each is one cudaMalloc, or one expandable reservation).  A
** segment starting before the end of an earlier one (by address) is
** counted as snapshot_overlapping_segments and logged at its offset; the
** report then bounds and discounts the fragmentation finding. */
static void seg_overlaps(sparser *p) {
  if (p->n_ext < 2) return; /* (qsort's base may not be NULL) */
  qsort(p->ext, p->n_ext, sizeof *p->ext, extent_cmp);
  int64_t end = 0;
  size_t last = 0;
  for (size_t i = 0; i < p->n_ext; i++) {
    seg_extent *e = &p->ext[i];
    if (i > 0 && e->device == p->ext[i - 1].device && e->address < end) {
      seg_extent *o = &p->ext[last];
      ld_note_at(p->f, PROFDB_STAT_snapshot_overlapping_segments, e->offset,
                 "segment at 0x%llx (%lld bytes) on device %lld overlaps the segment at"
                 " 0x%llx (%lld bytes)",
                 (unsigned long long)e->address, (long long)e->size, (long long)e->device,
                 (unsigned long long)o->address, (long long)o->size);
    }
    int64_t e_end = e->address > INT64_MAX - e->size ? INT64_MAX : e->address + e->size;
    if (i == 0 || e->device != p->ext[i - 1].device || e_end > end) {
      end = e_end;
      last = i;
    }
  }
}

static void emit_segment(sparser *p) {
  sobj *o = &p->seg;
  ld_buf *b = writer_batch(p->ctx->w);
  p->segments++;
  row_begin(b, TB_SEGMENT);
  row_int(b, COL_SEGMENT_ID, o->id);
  row_int(b, COL_SEGMENT_SNAPSHOT_ID, p->f->artifact_id);
  col(b, COL_SEGMENT_DEVICE, o, F_DEVICE);
  col(b, COL_SEGMENT_ADDRESS, o, F_ADDRESS);
  col(b, COL_SEGMENT_TOTAL_SIZE, o, F_TOTAL_SIZE);
  col(b, COL_SEGMENT_ALLOCATED_SIZE, o, F_ALLOCATED_SIZE);
  col(b, COL_SEGMENT_ACTIVE_SIZE, o, F_ACTIVE_SIZE);
  col(b, COL_SEGMENT_REQUESTED_SIZE, o, F_REQUESTED_SIZE);
  col(b, COL_SEGMENT_STREAM, o, F_STREAM);
  col(b, COL_SEGMENT_SEGMENT_TYPE, o, F_SEGMENT_TYPE);
  col(b, COL_SEGMENT_POOL_ID, o, F_POOL_ID);
  col(b, COL_SEGMENT_IS_EXPANDABLE, o, F_IS_EXPANDABLE);
  col_stack(b, COL_SEGMENT_STACK_ID, o->stack_id);
  col_extra(b, COL_SEGMENT_EXTRA, o);
  keep_extent(p, o);
}

static void emit_block(sparser *p) {
  sobj *o = &p->block;
  ld_buf *b = writer_batch(p->ctx->w);
  p->blocks++;
  if (o->f[F_ADDRESS].type != 'i') p->legacy_blocks++;
  row_begin(b, TB_BLOCK);
  row_int(b, COL_BLOCK_ID, o->id);
  row_int(b, COL_BLOCK_SEGMENT_ID, p->seg.id);
  row_int(b, COL_BLOCK_SNAPSHOT_ID, p->f->artifact_id);
  row_int(b, COL_BLOCK_POSITION, p->seg.count++);
  col(b, COL_BLOCK_ADDRESS, o, F_ADDRESS);
  col(b, COL_BLOCK_SIZE, o, F_SIZE);
  if (o->f[F_REQUESTED_SIZE].type)
    col(b, COL_BLOCK_REQUESTED_SIZE, o, F_REQUESTED_SIZE);
  else if (o->hist_size.type == 'i')
    row_int(b, COL_BLOCK_REQUESTED_SIZE, o->hist_size.i); /* 2.0 */
  else
    row_null(b, COL_BLOCK_REQUESTED_SIZE);
  col(b, COL_BLOCK_STATE, o, F_STATE);
  col_stack(b, COL_BLOCK_STACK_ID, o->stack_id >= 0 ? o->stack_id : o->hist_stack);
  col_extra(b, COL_BLOCK_EXTRA, o);
}

static void emit_hist(sparser *p) {
  sobj *o = &p->hist;
  ld_buf *b = writer_batch(p->ctx->w);
  if (p->block.count == 0) { /* history[0] describes the live allocation */
    p->block.hist_stack = o->stack_id;
    p->block.hist_size = o->f[F_REAL_SIZE];
  }
  row_begin(b, TB_BLOCK_HISTORY);
  row_int(b, COL_BLOCK_HISTORY_BLOCK_ID, p->block.id);
  row_int(b, COL_BLOCK_HISTORY_POSITION, p->block.count++);
  col(b, COL_BLOCK_HISTORY_ADDR, o, F_ADDR);
  col(b, COL_BLOCK_HISTORY_REAL_SIZE, o, F_REAL_SIZE);
  col_stack(b, COL_BLOCK_HISTORY_STACK_ID, o->stack_id);
  col_extra(b, COL_BLOCK_HISTORY_EXTRA, o);
}

/* Action names by code (include/profdb/codes.h); code 0 is "other", an
** action profdb does not know, which no text maps to. */
static const char *const actions[PROFDB_ACTION_LIMIT] = {
#define ACTION_NAME(id, code, name) [code] = name,
    PROFDB_ALLOC_ACTIONS(ACTION_NAME)
#undef ACTION_NAME
};

static void emit_entry(sparser *p) {
  sobj *o = &p->entry;
  ld_buf *b = writer_batch(p->ctx->w);
  int code = PROFDB_ACTION_OTHER;
  for (int i = 0; i < PROFDB_ACTION_LIMIT; i++)
    if (i != PROFDB_ACTION_OTHER && actions[i] && field_is(o, F_ACTION, actions[i])) {
      code = i;
      break;
    }
  if (code == PROFDB_ACTION_OTHER &&
      o->f[F_ACTION].type == 't') { /* unknown action: keep its text */
    extra_key(o, "action", 6);
    jw_string(&o->extra_w, o->text.p + o->f[F_ACTION].off, o->f[F_ACTION].len);
  }
  p->entries++;
  row_begin(b, TB_ALLOC_EVENT);
  row_int(b, COL_ALLOC_EVENT_ID, p->ctx->next_alloc_id++);
  row_int(b, COL_ALLOC_EVENT_SNAPSHOT_ID, p->f->artifact_id);
  row_int(b, COL_ALLOC_EVENT_DEVICE, p->device);
  row_int(b, COL_ALLOC_EVENT_SEQ, p->seq++);
  row_int(b, COL_ALLOC_EVENT_ACTION, code);
  col(b, COL_ALLOC_EVENT_ADDR, o, F_ADDR);
  col(b, COL_ALLOC_EVENT_SIZE, o, F_SIZE);
  col(b, COL_ALLOC_EVENT_STREAM, o, F_STREAM);
  col(b, COL_ALLOC_EVENT_TIME_US, o, F_TIME_US);
  col_stack(b, COL_ALLOC_EVENT_STACK_ID, o->stack_id);
  col(b, COL_ALLOC_EVENT_DEVICE_FREE, o, F_DEVICE_FREE);
  col(b, COL_ALLOC_EVENT_COMPILE_CONTEXT, o, F_COMPILE_CONTEXT);
  col(b, COL_ALLOC_EVENT_USER_METADATA, o, F_USER_METADATA);
  col_extra(b, COL_ALLOC_EVENT_EXTRA, o);
}

static void emit_annotation(sparser *p) {
  sobj *o = &p->ann;
  ld_buf *b = writer_batch(p->ctx->w);
  p->annotations++;
  row_begin(b, TB_ANNOTATION);
  row_int(b, COL_ANNOTATION_SNAPSHOT_ID, p->f->artifact_id);
  row_int(b, COL_ANNOTATION_SEQ, p->ann_seq++);
  col(b, COL_ANNOTATION_DEVICE, o, F_DEVICE);
  col(b, COL_ANNOTATION_STAGE, o, F_STAGE);
  col(b, COL_ANNOTATION_NAME, o, F_NAME);
  col(b, COL_ANNOTATION_TIME_US, o, F_TIME_US);
  col_extra(b, COL_ANNOTATION_EXTRA, o);
}

/* ---- stacks ------------------------------------------------------------- */

#define NO_LINE INT64_MIN

/* Append the finished frame to the list's key: filename id, line, name id
** (-1 / NO_LINE when absent), then the length and text of its extra keys. */
static void frame_done(sparser *p) {
  sobj *o = &p->frame;
  int64_t k[3] = {-1, NO_LINE, -1};
  if (o->f[F_FILENAME].type == 't')
    k[0] = ld_string(p->f, o->text.p + o->f[F_FILENAME].off, o->f[F_FILENAME].len);
  if (o->f[F_LINE].type == 'i') k[1] = o->f[F_LINE].i;
  if (o->f[F_NAME].type == 't')
    k[2] = ld_string(p->f, o->text.p + o->f[F_NAME].off, o->f[F_NAME].len);
  uint32_t extra_len = 0;
  if (o->extra.n) {
    jw_close(&o->extra_w, '}');
    extra_len = (uint32_t)o->extra.n;
  }
  ld_buf_put(&p->frames.key, k, sizeof k);
  ld_buf_put(&p->frames.key, &extra_len, sizeof extra_len);
  ld_buf_put(&p->frames.key, o->extra.p, extra_len);
  p->frames.frames++;
}

/* A frames list ended: return the stack id for it (-1 for an empty list),
** writing its frames the first time this exact list is seen. */
static int64_t frames_done(sparser *p) {
  sframe_list *fl = &p->frames;
  if (fl->frames == 0) return -1;
  int is_new;
  int64_t id = intern_id(p->stacks, fl->key.p, fl->key.n, &is_new);
  if (is_new) {
    ld_buf *b = writer_batch(p->ctx->w);
    const char *q = fl->key.p;
    for (int i = 0; i < fl->frames; i++) {
      int64_t k[3];
      uint32_t extra_len;
      memcpy(k, q, sizeof k);
      memcpy(&extra_len, q + sizeof k, sizeof extra_len);
      const char *extra = q + sizeof k + sizeof extra_len;
      q = extra + extra_len;
      row_begin(b, TB_STACK_FRAME);
      row_int(b, COL_STACK_FRAME_STACK_ID, id);
      row_int(b, COL_STACK_FRAME_DEPTH, i);
      row_int_opt(b, COL_STACK_FRAME_FILENAME_ID, k[0] >= 0, k[0]);
      row_int_opt(b, COL_STACK_FRAME_LINE, k[1] != NO_LINE, k[1]);
      row_int_opt(b, COL_STACK_FRAME_NAME_ID, k[2] >= 0, k[2]);
      if (extra_len)
        row_text(b, COL_STACK_FRAME_EXTRA, extra, extra_len);
      else
        row_null(b, COL_STACK_FRAME_EXTRA);
    }
  }
  return id;
}

/* ---- the token handler -------------------------------------------------- */

enum { CAPK_DISCARD = 100 };

static void push(sparser *p, sctx c) {
  if (p->depth < (int)(sizeof p->stack / sizeof p->stack[0])) p->stack[p->depth] = c;
  p->depth++;
}
static sctx top(const sparser *p) {
  return p->stack[p->depth - 1];
}

static void capture_start(sparser *p, ld_jw *w, int kind, tok t) {
  p->cap_w = w;
  p->cap_kind = kind;
  p->cap_depth = 1;
  jw_open(w, t == TK_START_MAP ? '{' : '[');
  push(p, C_CAPTURE);
}

/* Store a value of the top-level metadata or allocator settings list:
** position, key length, key, type, value length, value. */
static void list_add(ld_buf *list, int position, const ld_buf *key, char type, const char *v,
                     size_t n) {
  uint32_t kl = (uint32_t)key->n, vl = (uint32_t)n;
  ld_buf_put(list, &position, sizeof position);
  ld_buf_put(list, &kl, 4);
  ld_buf_put(list, key->p, kl);
  ld_buf_putc(list, type);
  ld_buf_put(list, &vl, 4);
  ld_buf_put(list, v, n);
}

/* A scalar setting keeps its SQL type: integer, real, text, 0/1, NULL. */
static void setting_scalar(sparser *p, tok t, const char *s, size_t n) {
  switch (t) {
    case TK_NULL: list_add(&p->settings, 0, &p->key_text, 'n', "", 0); break;
    case TK_TRUE: list_add(&p->settings, 0, &p->key_text, 'b', "1", 1); break;
    case TK_FALSE: list_add(&p->settings, 0, &p->key_text, 'b', "0", 1); break;
    case TK_NUMBER: {
      /* "0.0" stays a real (garbage_collection_threshold is a float). */
      int64_t v;
      int fractional = memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n);
      list_add(&p->settings, 0, &p->key_text,
               fractional                          ? 'r'
               : nt_parse_int64(s, n, &v) == NT_OK ? 'i'
                                                   : 't',
               s, n);
      break;
    }
    default: ld_text(p->f, &s, &n); list_add(&p->settings, 0, &p->key_text, 't', s, n);
  }
}

static void meta_value_done(sparser *p, const char *json, size_t n) {
  list_add(&p->meta, p->root_keys - 1, &p->key_text, 'j', json, n);
}

static void capture_finish(sparser *p) {
  p->depth--; /* pop C_CAPTURE */
  switch (p->cap_kind) {
    case CAPK_FIELD_JSON: {
      sobj *o = obj_of(p, top(p));
      sval *v = &o->f[p->cur_field->field];
      v->type = 'j';
      v->off = (uint32_t)o->text.n;
      v->len = (uint32_t)p->value_buf.n;
      ld_buf_put(&o->text, p->value_buf.p, p->value_buf.n);
      break;
    }
    case CAPK_SETTING:
      list_add(&p->settings, 0, &p->key_text, 'j', p->value_buf.p, p->value_buf.n);
      break;
    case CAPK_META: meta_value_done(p, p->value_buf.p, p->value_buf.n); break;
    default: break;
  }
}

/* Sizes a real snapshot cannot exceed: every size field of one snapshot
** adds up to at most 2^60 bytes (1 EiB), so that the replay and the
** reports' sums fit in int64 whatever a file holds. */
#define SNAPSHOT_MAX_BYTES ((uint64_t)1 << 60)

static int is_size_field(int field) {
  return field == F_TOTAL_SIZE || field == F_ALLOCATED_SIZE || field == F_ACTIVE_SIZE ||
         field == F_REQUESTED_SIZE || field == F_SIZE || field == F_REAL_SIZE;
}

/* Addresses and streams are unsigned 64-bit handles: one beyond int64 is
** kept as text.
** Every other integer field must fit int64. */
static int is_handle_field(int field) {
  return field == F_ADDRESS || field == F_ADDR || field == F_STREAM;
}

/* 0 (and the load fails with FILE:OFFSET) when the sizes read so far add
** up beyond what a real snapshot holds. */
static int plausible_int(sparser *p, const fdef *fd, int64_t v) {
  if (!is_size_field(fd->field)) return 1;
  uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  p->size_total += mag > SNAPSHOT_MAX_BYTES ? SNAPSHOT_MAX_BYTES + 1 : mag;
  if (p->size_total <= SNAPSHOT_MAX_BYTES) return 1;
  return ld_fail(p->f, PROFDB_EXIT_DATA, 1,
                 "%s %lld: the sizes in this snapshot add up to more than 2^60 bytes"
                 " (1 EiB); not a real memory snapshot",
                 fd->key, (long long)v);
}

/* The value of a known field (or a special key) of an object. */
static int field_value(sparser *p, sobj *o, tok t, const char *s, size_t n) {
  const fdef *fd = p->cur_field;
  sval *v = &o->f[fd->field];
  int ok = 0;
  if (t == TK_NULL) {
    v->type = 'n';
    return 1;
  }
  switch (fd->shape) {
    case FS_INT:
      if (t == TK_NUMBER) {
        nt_status st = nt_parse_int64(s, n, &v->i);
        if (st == NT_OK) {
          if (!plausible_int(p, fd, v->i)) return 0;
          v->type = 'i';
          ok = 1;
        } else if (st == NT_OVERFLOW && !is_handle_field(fd->field)) {
          /* A size, device, stream, time or line beyond int64 is no real
          ** snapshot: refused here, where the message can name the offset,
          ** rather than stored as a REAL that breaks or wraps the replay. */
          return ld_fail(p->f, PROFDB_EXIT_DATA, 1,
                         "%s %.*s: beyond the 64-bit integer range; not a real memory snapshot",
                         fd->key, (int)(n > 40 ? 40 : n), s);
        } else if (st == NT_OVERFLOW) { /* a 64-bit handle beyond int64: text */
          ld_note(p->f, PROFDB_STAT_int_beyond_int64, "%s %.*s kept as text", fd->key,
                  (int)(n > 40 ? 40 : n), s);
          v->type = 't';
          v->off = (uint32_t)o->text.n;
          v->len = (uint32_t)n;
          ld_buf_put(&o->text, s, n);
          ok = 1;
        }
      }
      break;
    case FS_TEXT:
      if (t == TK_STRING) {
        int64_t as_int; /* a numeric string becomes an integer in its column */
        if (fd->shape == FS_INT && nt_parse_int64(s, n, &as_int) == NT_OK &&
            !plausible_int(p, fd, as_int))
          return 0;
        ld_text(p->f, &s, &n);
        v->type = 't';
        v->off = (uint32_t)o->text.n;
        v->len = (uint32_t)n;
        ld_buf_put(&o->text, s, n);
        ok = 1;
      }
      break;
    case FS_BOOL:
      if (t == TK_TRUE || t == TK_FALSE) {
        v->type = 'b';
        v->i = t == TK_TRUE;
        ok = 1;
      }
      break;
    case FS_JSON:
      if (!is_scalar(t)) {
        p->value_buf.n = 0;
        jw_init(&p->value_w, &p->value_buf);
        capture_start(p, &p->value_w, CAPK_FIELD_JSON, t);
        return 1;
      }
      p->value_buf.n = 0;
      jw_init(&p->value_w, &p->value_buf);
      ld_write_scalar(p->f, &p->value_w, t, s, n);
      v->type = 'j';
      v->off = (uint32_t)o->text.n;
      v->len = (uint32_t)p->value_buf.n;
      ld_buf_put(&o->text, p->value_buf.p, p->value_buf.n);
      return 1;
  }
  if (!ok) { /* unexpected type: keep it in extra under its key */
    ld_note(p->f, PROFDB_STAT_snapshot_bad_value, "'%s' has an unexpected type", fd->key);
    extra_key(o, fd->key, strlen(fd->key));
    if (is_scalar(t))
      ld_write_scalar(p->f, &o->extra_w, t, s, n);
    else
      capture_start(p, &o->extra_w, CAPK_EXTRA, t);
  }
  return 1;
}

/* Special keys of objects: lists profdb descends into. */
enum { SK_NONE, SK_FRAMES, SK_BLOCKS, SK_HISTORY };

static int object_key(sparser *p, sctx c, const char *k, size_t n) {
  sobj *o = obj_of(p, c);
  p->cur_field = NULL;
  p->cur_unknown = 0;
  p->special = SK_NONE;
  if (n == 6 && !memcmp(k, "frames", 6) && c != C_FRAME && c != C_ANNOTATION) {
    p->special = SK_FRAMES;
    return 1;
  }
  if (c == C_SEGMENT && n == 6 && !memcmp(k, "blocks", 6)) {
    p->special = SK_BLOCKS;
    return 1;
  }
  if (c == C_BLOCK && n == 7 && !memcmp(k, "history", 7)) {
    p->special = SK_HISTORY;
    return 1;
  }
  for (const fdef *fd = fields_of(c); fd->key; fd++)
    if (strlen(fd->key) == n && !memcmp(fd->key, k, n)) {
      p->cur_field = fd;
      return 1;
    }
  ld_text(p->f, &k, &n);
  ld_note(p->f, PROFDB_STAT_snapshot_unknown_keys, NULL);
  extra_key(o, k, n);
  p->cur_unknown = 1;
  return 1;
}

/* Start capturing a nested value into value_buf (kind: what to do with it
** when it closes, see capture_finish). */
static void capture_value(sparser *p, int kind, tok t) {
  p->value_buf.n = 0;
  jw_init(&p->value_w, &p->value_buf);
  capture_start(p, &p->value_w, kind, t);
}

/* The end of context c (already popped): emit what it built. */
static int close_context(sparser *p, sctx c) {
  switch (c) {
    case C_SEGMENT: emit_segment(p); break;
    case C_BLOCK: emit_block(p); break;
    case C_HIST: emit_hist(p); break;
    case C_ENTRY: emit_entry(p); break;
    case C_FRAME: frame_done(p); break;
    case C_ANNOTATION: emit_annotation(p); break;
    case C_FRAMES: {
      int64_t id = frames_done(p);
      sobj *owner = p->depth > 0 ? obj_of(p, top(p)) : NULL;
      if (owner) owner->stack_id = id;
      break;
    }
    default: break;
  }
  return 1;
}

/* A key in context c. */
static int context_key(sparser *p, sctx c, const char *s, size_t n) {
  p->key_text.n = 0;
  if (c == C_TOP) {
    p->root_keys++;
    if (n == 8 && !memcmp(s, "segments", 8))
      p->cur_key = TK_SEGMENTS;
    else if (n == 13 && !memcmp(s, "device_traces", 13))
      p->cur_key = TK_TRACES;
    else if (n == 18 && !memcmp(s, "allocator_settings", 18))
      p->cur_key = TK_SETTINGS;
    else if (n == 20 && !memcmp(s, "external_annotations", 20))
      p->cur_key = TK_ANNOTATIONS;
    else
      p->cur_key = TK_OTHER;
    ld_text(p->f, &s, &n);
    ld_buf_put(&p->key_text, s, n);
    return 1;
  }
  if (c == C_SETTINGS) {
    ld_text(p->f, &s, &n);
    ld_buf_put(&p->key_text, s, n);
    return 1;
  }
  return object_key(p, c, s, n);
}

/* A value of the top-level object: a known list or settings object, else
** a metadata value (kept as JSON). */
static int top_value(sparser *p, tok t, const char *s, size_t n) {
  switch (p->cur_key) {
    case TK_SEGMENTS:
      if (t == TK_START_ARRAY) {
        push(p, C_SEGMENTS);
        return 1;
      }
      return ld_fail(p->f, PROFDB_EXIT_DATA, 1, "segments is not a list");
    case TK_TRACES:
      if (t == TK_START_ARRAY) {
        p->device = -1;
        push(p, C_TRACES);
        return 1;
      }
      return ld_fail(p->f, PROFDB_EXIT_DATA, 1, "device_traces is not a list");
    case TK_SETTINGS:
      if (t == TK_START_MAP) {
        push(p, C_SETTINGS);
        return 1;
      }
      break; /* kept as metadata */
    case TK_ANNOTATIONS:
      if (t == TK_START_ARRAY) {
        push(p, C_ANNOTATIONS);
        return 1;
      }
      break;
  }
  if (is_scalar(t)) {
    p->value_buf.n = 0;
    jw_init(&p->value_w, &p->value_buf);
    ld_write_scalar(p->f, &p->value_w, t, s, n);
    meta_value_done(p, p->value_buf.p, p->value_buf.n);
  } else {
    capture_value(p, CAPK_META, t);
  }
  return 1;
}

/* An element of one of the object lists (segments, blocks, history,
** a device's trace, frames, annotations): an object opens its item. */
static int list_element(sparser *p, sctx c, tok t) {
  static const struct {
    sctx list, item;
  } items[] = {{C_SEGMENTS, C_SEGMENT}, {C_BLOCKS, C_BLOCK}, {C_HISTORY, C_HIST},
               {C_DEVICE, C_ENTRY},     {C_FRAMES, C_FRAME}, {C_ANNOTATIONS, C_ANNOTATION}};
  sctx item = C_SEGMENT;
  for (size_t i = 0; i < sizeof items / sizeof items[0]; i++)
    if (items[i].list == c) item = items[i].item;
  if (t != TK_START_MAP) {
    ld_note(p->f, PROFDB_STAT_snapshot_not_object, "a list element is not an object");
    if (!is_scalar(t))
      capture_value(p, CAPK_DISCARD, t);
    else if (c == C_DEVICE)
      p->seq++; /* keep seq equal to the position in the list */
    return 1;
  }
  sobj *o = obj_of(p, item);
  obj_reset(o);
  if (item == C_SEGMENT) o->id = p->ctx->next_segment_id++;
  if (item == C_BLOCK) o->id = p->ctx->next_block_id++;
  push(p, item);
  return 1;
}

/* An element of device_traces: one device's list of entries. */
static int device_list(sparser *p, tok t) {
  p->device++;
  if (t == TK_START_ARRAY) {
    p->seq = 0;
    push(p, C_DEVICE);
    return 1;
  }
  ld_note(p->f, PROFDB_STAT_snapshot_not_object, "a device_traces element is not a list");
  if (!is_scalar(t)) capture_value(p, CAPK_DISCARD, t);
  return 1;
}

/* The value of the current key of an object context c: a nested list
** (frames, blocks, history), an unknown key's value (kept in extra), or a
** known field. */
static int object_value(sparser *p, sctx c, tok t, const char *s, size_t n) {
  sobj *o = obj_of(p, c);
  if (p->special != SK_NONE) {
    int sk = p->special;
    p->special = SK_NONE;
    if (t == TK_START_ARRAY) {
      if (sk == SK_FRAMES) {
        p->frames.key.n = 0;
        p->frames.frames = 0;
        push(p, C_FRAMES);
      } else {
        push(p, sk == SK_BLOCKS ? C_BLOCKS : C_HISTORY);
      }
      return 1;
    }
    if (t == TK_NULL) return 1;
    const char *k = sk == SK_FRAMES ? "frames" : sk == SK_BLOCKS ? "blocks" : "history";
    ld_note(p->f, PROFDB_STAT_snapshot_bad_value, "'%s' is not a list", k);
    extra_key(o, k, strlen(k));
    if (is_scalar(t))
      ld_write_scalar(p->f, &o->extra_w, t, s, n);
    else
      capture_start(p, &o->extra_w, CAPK_EXTRA, t);
    return 1;
  }
  if (p->cur_unknown) {
    p->cur_unknown = 0;
    if (is_scalar(t))
      ld_write_scalar(p->f, &o->extra_w, t, s, n);
    else
      capture_start(p, &o->extra_w, CAPK_EXTRA, t);
    return 1;
  }
  if (p->cur_field) return field_value(p, o, t, s, n);
  return 1;
}

/* Every token of the snapshot: dispatched by the context it appears in. */
static int tok_handle(sparser *p, tok t, const char *s, size_t n) {
  if (p->depth > 0 && top(p) == C_CAPTURE) {
    if (ld_capture_token(p->f, p->cap_w, &p->cap_depth, t, s, n)) capture_finish(p);
    return 1;
  }
  if (p->depth == 0) {
    if (t == TK_START_MAP) {
      push(p, C_TOP);
      return 1;
    }
    if (t == TK_START_ARRAY) {
      p->layout_list = 1;
      push(p, C_SEGMENTS);
      return 1;
    }
    return ld_fail(p->f, PROFDB_EXIT_DATA, 1, "not a snapshot: unexpected top-level value");
  }
  sctx c = top(p);
  if (t == TK_END_MAP || t == TK_END_ARRAY) {
    p->depth--;
    return close_context(p, c);
  }
  if (t == TK_KEY) return context_key(p, c, s, n);
  switch (c) {
    case C_TOP: return top_value(p, t, s, n);
    case C_SETTINGS:
      if (is_scalar(t))
        setting_scalar(p, t, s, n);
      else
        capture_value(p, CAPK_SETTING, t);
      return 1;
    case C_SEGMENTS:
    case C_BLOCKS:
    case C_HISTORY:
    case C_DEVICE:
    case C_FRAMES:
    case C_ANNOTATIONS: return list_element(p, c, t);
    case C_TRACES: return device_list(p, t);
    default: return object_value(p, c, t, s, n);
  }
}

LD_TOKEN_CALLBACKS(snapshot_callbacks, tok_handle);

/* ---- stacks already in the database ------------------------------------- */

/* Rebuild the keys of stored stacks so identical frame lists in this load
** reuse their ids. */
static int seed_stacks(ld_ctx *ctx, ld_intern *stacks) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(ctx->existing,
                         "SELECT stack_id, filename_id, line, name_id, extra FROM _stack_frame"
                         " ORDER BY stack_id, depth",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  ld_buf key = {0};
  int64_t cur = -1;
  while (sqlite3_step(st) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, 0);
    if (id != cur && cur >= 0) {
      intern_seed(stacks, cur, key.p, key.n);
      key.n = 0;
    }
    cur = id;
    int64_t k[3] = {
        sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1),
        sqlite3_column_type(st, 2) == SQLITE_NULL ? NO_LINE : sqlite3_column_int64(st, 2),
        sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3)};
    uint32_t extra_len = (uint32_t)sqlite3_column_bytes(st, 4);
    ld_buf_put(&key, k, sizeof k);
    ld_buf_put(&key, &extra_len, sizeof extra_len);
    ld_buf_put(&key, sqlite3_column_text(st, 4), extra_len);
  }
  if (cur >= 0) intern_seed(stacks, cur, key.p, key.n);
  ld_buf_free(&key);
  sqlite3_finalize(st);
  return 0;
}

/* ---- finishing ---------------------------------------------------------- */

static int write_lists(sparser *p) {
  sqlite3 *db = p->ctx->db;
  sqlite3_stmt *meta = NULL, *set = NULL;
  int rc = -1;
  if (sqlite3_prepare_v2(db,
                         "INSERT INTO snapshot_metadata(snapshot_id, position,"
                         " key, value) VALUES(?,?,?,?)",
                         -1, &meta, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(db,
                         "INSERT OR REPLACE INTO allocator_setting(snapshot_id,"
                         " key, value) VALUES(?,?,?)",
                         -1, &set, NULL) != SQLITE_OK)
    goto done;
  for (int pass = 0; pass < 2; pass++) {
    const ld_buf *list = pass ? &p->settings : &p->meta;
    sqlite3_stmt *st = pass ? set : meta;
    for (size_t i = 0; i < list->n;) {
      int position;
      uint32_t kl, vl;
      memcpy(&position, list->p + i, sizeof position);
      i += sizeof position;
      memcpy(&kl, list->p + i, 4);
      const char *k = list->p + i + 4;
      char type = k[kl];
      memcpy(&vl, k + kl + 1, 4);
      const char *v = k + kl + 5;
      i += 4 + kl + 1 + 4 + vl;
      int c = 1;
      sqlite3_bind_int64(st, c++, p->f->artifact_id);
      if (!pass) sqlite3_bind_int(st, c++, position);
      sqlite3_bind_text(st, c++, k, (int)kl, SQLITE_STATIC);
      int64_t iv;
      double dv;
      if (!pass)
        sqlite3_bind_text(st, c, v, (int)vl, SQLITE_STATIC);
      else if ((type == 'i' || type == 'b') && nt_parse_int64(v, vl, &iv) == NT_OK)
        sqlite3_bind_int64(st, c, iv);
      else if (type == 'r' && nt_parse_double(v, vl, &dv) == NT_OK)
        sqlite3_bind_double(st, c, dv);
      else if (type == 'n')
        sqlite3_bind_null(st, c);
      else
        sqlite3_bind_text(st, c, v, (int)vl, SQLITE_STATIC);
      if (sqlite3_step(st) != SQLITE_DONE) goto done;
      sqlite3_reset(st);
    }
  }
  rc = 0;
done:
  sqlite3_finalize(meta);
  sqlite3_finalize(set);
  return rc;
}

static int snapshot_finish(sparser *p, int truncated, double seconds) {
  ld_file *f = p->f;
  if (ld_finish_artifact(f, truncated, p->layout_list ? "list" : "object", seconds)) return -1;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(p->ctx->db,
                         "UPDATE snapshot SET segments = ?2, blocks = ?3,"
                         " trace_entries = ?4 WHERE snapshot_id = ?1",
                         -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, f->artifact_id);
  sqlite3_bind_int64(st, 2, (int64_t)p->segments);
  sqlite3_bind_int64(st, 3, (int64_t)p->blocks);
  sqlite3_bind_int64(st, 4, (int64_t)p->entries);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
  sqlite3_finalize(st);
  if (rc || write_lists(p)) return -1;
  seg_overlaps(p);
  f->stats[PROFDB_STAT_snapshot_segments] = p->segments;
  f->stats[PROFDB_STAT_snapshot_blocks] = p->blocks;
  f->stats[PROFDB_STAT_snapshot_trace_entries] = p->entries;
  f->stats[PROFDB_STAT_snapshot_legacy_blocks] = p->legacy_blocks;
  return ld_write_stats(f);
}

int snapshot_load(ld_file *f) {
  ld_ctx *ctx = f->ctx;
  double t0 = ld_seconds();
  sparser *p = calloc(1, sizeof *p);
  if (!p) return ld_fail(f, PROFDB_EXIT_USAGE, 0, "out of memory"), -1;
  p->f = f;
  p->ctx = ctx;
  if (!ctx->stacks) {
    ctx->stacks = intern_new();
    if (seed_stacks(ctx, ctx->stacks)) {
      free(p);
      return ld_fail(f, PROFDB_EXIT_USAGE, 0, "database error: %s",
                     sqlite3_errmsg(ctx->existing)),
             -1;
    }
  }
  p->stacks = ctx->stacks;
  int rc = ld_parse(f, &snapshot_callbacks, p);
  if (rc == 1) {
    /* A segment cut short keeps what was read, so its blocks have a row. */
    for (int i = 0; i < p->depth; i++)
      if (p->stack[i] == C_SEGMENT) {
        extra_key(&p->seg, "truncated", 9);
        jw_raw(&p->seg.extra_w, "true", 4);
        emit_segment(p);
      }
  }
  if (rc >= 0 && writer_sync(ctx->w)) {
    ld_fail(f, PROFDB_EXIT_USAGE, 0, "%s", writer_error(ctx->w));
    rc = -1;
  }
  double seconds = ld_seconds() - t0;
  if (rc >= 0 && snapshot_finish(p, rc == 1, seconds)) {
    ld_fail(f, PROFDB_EXIT_USAGE, 0, "database error: %s", sqlite3_errmsg(ctx->db));
    rc = -1;
  }
  if (rc >= 0 && !ctx->opt->quiet) {
    char counts[256];
    snprintf(counts, sizeof counts,
             "segments=%llu blocks=%llu trace_entries=%llu annotations=%llu",
             (unsigned long long)p->segments, (unsigned long long)p->blocks,
             (unsigned long long)p->entries, (unsigned long long)p->annotations);
    ld_summary(f, counts, rc == 1, seconds);
  }
  obj_free(&p->seg);
  obj_free(&p->block);
  obj_free(&p->hist);
  obj_free(&p->entry);
  obj_free(&p->frame);
  obj_free(&p->ann);
  ld_buf_free(&p->frames.key);
  ld_buf_free(&p->key_text);
  ld_buf_free(&p->value_buf);
  jw_free(&p->value_w);
  ld_buf_free(&p->meta);
  ld_buf_free(&p->settings);
  free(p->ext);
  free(p);
  return rc;
}

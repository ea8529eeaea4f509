/*
** snapshot_parser.h — the memory snapshot parser's state, shared by its
** parts (internal to the loader; snapshot.c describes how it works).
**
**   snapshot.c         snapshot_load: the parse, then the snapshot's own
**                      rows (metadata, allocator settings, counts)
**   snapshot_tokens.c  yajl tokens -> the object being read, by context
**   snapshot_rows.c    a finished object -> its row (_segment, _block,
**                      block history, _alloc_event, annotations); the
**                      overlapping-segments check
**   snapshot_stacks.c  frames lists -> interned stacks (_stack_frame),
**                      seeded from the stacks already in the database
*/
#ifndef PROFDB_SNAPSHOT_PARSER_H
#define PROFDB_SNAPSHOT_PARSER_H

#include "loader.h"
#include "stream.h"

#include <stdint.h>

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
  ** check at the end (snapshot_seg_overlaps) */
  seg_extent *ext;
  size_t n_ext, cap_ext;
} sparser;

/* Start a member of o's extra JSON: its key. */
static inline void extra_key(sobj *o, const char *k, size_t n) {
  if (o->extra.n == 0) jw_open(&o->extra_w, '{');
  jw_key(&o->extra_w, k, n);
}

/* ---- the parts ----------------------------------------------------------- */

/* snapshot_tokens.c: feed the whole input to the token handler; returns
** like ld_parse. */
int snapshot_parse(sparser *p);

/* snapshot_rows.c */
void snapshot_emit_segment(sparser *p);
void snapshot_emit_block(sparser *p);
void snapshot_emit_hist(sparser *p);
void snapshot_emit_entry(sparser *p);
void snapshot_emit_annotation(sparser *p);
void snapshot_seg_overlaps(sparser *p);

/* snapshot_stacks.c */
void snapshot_frame_done(sparser *p);
int64_t snapshot_frames_done(sparser *p);
int snapshot_seed_stacks(ld_ctx *ctx, ld_intern *stacks);

#endif

/*
** export_memviz.c — a window of a loaded memory snapshot as a file that
** PyTorch's memory viewer opens (see export_memviz.h).
**
**   profdb export run.db --format memory_viz --at-peak -o peak.pickle
**   profdb export run.db --format memory_viz --from +2s --to +3s -o w.json
**
** HOW IT WORKS
**   _snapshot.sql picks the snapshot and device, _window.sql the window's
**   events (a seq range).  The viewer (MemoryViz.js, _memory_viz.py) reads a
**   snapshot as "the state after the last event of device_traces" and works
**   back from it: a free without its alloc was allocated from the start, an
**   active_allocated block with no alloc in the trace was allocated
**   throughout.  So the window's segments are those after its last event:
**   the final snapshot's segments (segments.sql) with the segment events
**   after the window undone (segment_undo.sql), and its active_allocated
**   blocks are the allocations live after the last event (live.sql, from
**   mem_live_at: the viewer's own rules), the gaps between them inactive
**   blocks, so that the blocks tile each segment.  Replayed by the viewer's
**   rules, the window starts with exactly the allocations live at its
**   start in the whole snapshot, and its peak is mem_peak's.
**
** Requirements
**   1. Only plain data: the pickle holds dict, list, str, int, float, bool
**      and None (opcodes PROTO, EMPTY_DICT, EMPTY_LIST, MARK, SETITEMS,
**      APPENDS, SHORT_BINUNICODE, BINUNICODE, BININT1/2, BININT, LONG1,
**      BINFLOAT, NEWTRUE, NEWFALSE, NONE, BINPUT, LONG_BINPUT, BINGET,
**      LONG_BINGET, STOP: the set MemoryViz.js reads), never a class.
**   2. Bounded memory: events stream from SQLite to the file; what is held
**      is the device's segments, the stacks already written (each frames
**      list is written once and referenced after, as PyTorch's own pickles
**      do) and SQLite's replay of the live allocations.
*/
#include "export_memviz.h"

#include "export_files.h"
#include "profdb_sql.h"
#include "publish.h"
#include "utf8.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the writer: one object model, written as pickle or JSON ----------- */

#define EM_DEPTH 16
#define EM_BATCH 1000 /* items per SETITEMS / APPENDS, as Python's pickler */

/* The dict keys, each written once in a pickle and referenced after. */
enum {
  K_SEGMENTS,
  K_DEVICE_TRACES,
  K_EXTERNAL_ANNOTATIONS,
  K_PROFDB_WINDOW,
  K_DEVICE,
  K_ADDRESS,
  K_TOTAL_SIZE,
  K_ALLOCATED_SIZE,
  K_ACTIVE_SIZE,
  K_REQUESTED_SIZE,
  K_STREAM,
  K_SEGMENT_TYPE,
  K_SEGMENT_POOL_ID,
  K_IS_EXPANDABLE,
  K_FRAMES,
  K_BLOCKS,
  K_SIZE,
  K_STATE,
  K_ACTION,
  K_ADDR,
  K_TIME_US,
  K_DEVICE_FREE,
  K_COMPILE_CONTEXT,
  K_USER_METADATA,
  K_NAME,
  K_FILENAME,
  K_LINE,
  K_STAGE,
  K__N
};
static const char *const key_names[K__N] = {"segments",
                                            "device_traces",
                                            "external_annotations",
                                            "profdb_window",
                                            "device",
                                            "address",
                                            "total_size",
                                            "allocated_size",
                                            "active_size",
                                            "requested_size",
                                            "stream",
                                            "segment_type",
                                            "segment_pool_id",
                                            "is_expandable",
                                            "frames",
                                            "blocks",
                                            "size",
                                            "state",
                                            "action",
                                            "addr",
                                            "time_us",
                                            "device_free",
                                            "compile_context",
                                            "user_metadata",
                                            "name",
                                            "filename",
                                            "line",
                                            "stage"};

typedef struct stack_memo {
  int64_t stack;
  uint32_t memo;
} stack_memo;

typedef struct em_w {
  FILE *f;
  int json;                /* 1: JSON, 0: pickle */
  int depth;               /* open containers */
  char kind[EM_DEPTH];     /* 'd' dict or 'l' list, per open container */
  int pending[EM_DEPTH];   /* pickle: items since the last MARK; JSON: items */
  uint32_t memo;           /* next pickle memo index */
  uint32_t key_memo[K__N]; /* memo index + 1 of each key; 0: not written yet */
  stack_memo *stacks;      /* frames lists written (open addressing) */
  size_t stack_mask, nstacks;
  int failed; /* an allocation or a frames query failed */
} em_w;

static void put_u32(FILE *f, uint32_t v) {
  unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                        (unsigned char)(v >> 24)};
  fwrite(b, 1, 4, f);
}

static void put_memo(em_w *w) { /* BINPUT / LONG_BINPUT */
  uint32_t i = w->memo++;
  if (i < 256) {
    fputc('q', w->f);
    fputc((int)i, w->f);
  } else {
    fputc('r', w->f);
    put_u32(w->f, i);
  }
}

static void get_memo(em_w *w, uint32_t i) { /* BINGET / LONG_BINGET */
  if (i < 256) {
    fputc('h', w->f);
    fputc((int)i, w->f);
  } else {
    fputc('j', w->f);
    put_u32(w->f, i);
  }
}

static void before_value(em_w *w) {
  if (!w->depth || w->kind[w->depth - 1] != 'l') return;
  int *p = &w->pending[w->depth - 1];
  if (w->json && *p)
    fputc(',', w->f);
  else if (!w->json && !*p)
    fputc('(', w->f); /* MARK */
}

static void after_value(em_w *w) {
  if (!w->depth) return;
  int *p = &w->pending[w->depth - 1];
  if (++*p == EM_BATCH && !w->json) {
    fputc(w->kind[w->depth - 1] == 'd' ? 'u' : 'e', w->f); /* SETITEMS / APPENDS */
    *p = 0;
  }
}

static void json_str(FILE *f, const char *s, size_t n) {
  fputc('"', f);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

static void pickle_str(FILE *f, const char *s, size_t n) {
  if (n < 256) {
    fputc(0x8c, f); /* SHORT_BINUNICODE */
    fputc((int)n, f);
  } else {
    fputc('X', f); /* BINUNICODE */
    put_u32(f, (uint32_t)n);
  }
  fwrite(s, 1, n, f);
}

static void w_key(em_w *w, int k) {
  int *p = &w->pending[w->depth - 1];
  const char *s = key_names[k];
  if (w->json) {
    if (*p) fputc(',', w->f);
    json_str(w->f, s, strlen(s));
    fputc(':', w->f);
    return;
  }
  if (!*p) fputc('(', w->f); /* MARK */
  if (w->key_memo[k]) {
    get_memo(w, w->key_memo[k] - 1);
    return;
  }
  pickle_str(w->f, s, strlen(s));
  w->key_memo[k] = w->memo + 1;
  put_memo(w);
}

static void w_begin(em_w *w, char kind) {
  before_value(w);
  if (w->json)
    fputc(kind == 'd' ? '{' : '[', w->f);
  else
    fputc(kind == 'd' ? '}' : ']', w->f); /* EMPTY_DICT / EMPTY_LIST */
  w->kind[w->depth] = kind;
  w->pending[w->depth++] = 0;
}

static void w_end(em_w *w) {
  char kind = w->kind[--w->depth];
  if (w->json)
    fputc(kind == 'd' ? '}' : ']', w->f);
  else if (w->pending[w->depth])
    fputc(kind == 'd' ? 'u' : 'e', w->f);
  after_value(w);
}

static void w_int(em_w *w, int64_t v) {
  before_value(w);
  if (w->json)
    fprintf(w->f, "%lld", (long long)v);
  else if (v >= 0 && v < 256) {
    fputc('K', w->f); /* BININT1 */
    fputc((int)v, w->f);
  } else if (v >= 0 && v < 65536) {
    fputc('M', w->f); /* BININT2 */
    fputc((int)(v & 0xff), w->f);
    fputc((int)(v >> 8), w->f);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    fputc('J', w->f); /* BININT */
    put_u32(w->f, (uint32_t)(int32_t)v);
  } else {
    /* LONG1: the fewest little-endian two's-complement bytes that keep
    ** the sign (Python's encode_long) */
    unsigned char b[8];
    int n = 0;
    uint64_t u = (uint64_t)v;
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(u >> (8 * i));
    for (n = 8; n > 1; n--) {
      int sign_ok = (b[n - 2] & 0x80) ? b[n - 1] == 0xff : b[n - 1] == 0;
      if (!sign_ok) break;
    }
    fputc(0x8a, w->f);
    fputc(n, w->f);
    fwrite(b, 1, (size_t)n, w->f);
  }
  after_value(w);
}

/* s[0..n) whole: a NUL is kept (\u0000 in JSON, a byte of a pickle str)
** instead of ending the name, and invalid UTF-8 (a crafted database, a
** label cut to a fixed buffer) becomes U+FFFD, which both formats need. */
static void w_strn(em_w *w, const char *s, size_t n) {
  ld_buf fix = {0};
  utf8_repair(s, n, &fix, &s, &n);
  before_value(w);
  if (w->json)
    json_str(w->f, s, n);
  else
    pickle_str(w->f, s, n);
  after_value(w);
  ld_buf_free(&fix);
}

static void w_str(em_w *w, const char *s) {
  w_strn(w, s, strlen(s));
}

static void w_atom(em_w *w, int what) { /* 'N' None, 't' true, 'f' false */
  before_value(w);
  if (w->json)
    fputs(what == 'N' ? "null" : what == 't' ? "true" : "false", w->f);
  else
    fputc(what == 'N' ? 'N' : what == 't' ? 0x88 : 0x89, w->f);
  after_value(w);
}

static void w_float(em_w *w, double v) {
  before_value(w);
  if (w->json)
    fprintf(w->f, "%.17g", v);
  else {
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    fputc('G', w->f); /* BINFLOAT: big-endian */
    for (int i = 7; i >= 0; i--) fputc((int)(u >> (8 * i)) & 0xff, w->f);
  }
  after_value(w);
}

/* Column col of st as the value SQLite holds. */
static void w_column(em_w *w, sqlite3_stmt *st, int col) {
  switch (sqlite3_column_type(st, col)) {
    case SQLITE_INTEGER: w_int(w, sqlite3_column_int64(st, col)); break;
    case SQLITE_FLOAT: w_float(w, sqlite3_column_double(st, col)); break;
    case SQLITE_NULL: w_atom(w, 'N'); break;
    default: {
      const char *s = (const char *)sqlite3_column_text(st, col);
      w_strn(w, s ? s : "", s ? (size_t)sqlite3_column_bytes(st, col) : 0);
      break;
    }
  }
}

/* ---- frames lists, written once per stack in a pickle ------------------ */

static stack_memo *stack_slot(em_w *w, int64_t stack) {
  size_t i = ((uint64_t)stack * 0x9e3779b97f4a7c15ULL) >> 20;
  for (i &= w->stack_mask; w->stacks[i].stack && w->stacks[i].stack != stack;
       i = (i + 1) & w->stack_mask) {}
  return &w->stacks[i];
}

static int stack_grow(em_w *w) {
  size_t n = (w->stack_mask + 1) * 2;
  stack_memo *old = w->stacks;
  size_t oldn = w->stack_mask + 1;
  w->stacks = calloc(n, sizeof *w->stacks);
  if (!w->stacks) {
    w->stacks = old;
    return -1;
  }
  w->stack_mask = n - 1;
  for (size_t i = 0; i < oldn; i++)
    if (old[i].stack) *stack_slot(w, old[i].stack) = old[i];
  free(old);
  return 0;
}

/* The frames of stack (0 or less: none) as a list of {name, filename,
** line}; fr is frames.sql. */
static int w_frames(em_w *w, sqlite3_stmt *fr, int64_t stack) {
  if (stack <= 0 || w->json) {
    w_begin(w, 'l');
  } else {
    stack_memo *m = stack_slot(w, stack);
    if (m->stack) {
      before_value(w);
      get_memo(w, m->memo);
      after_value(w);
      return 0;
    }
    w_begin(w, 'l');
    m->stack = stack;
    m->memo = w->memo;
    put_memo(w);
    if (++w->nstacks * 2 > w->stack_mask && stack_grow(w)) {
      w->failed = 1;
      return -1;
    }
  }
  if (stack > 0) {
    sqlite3_bind_int64(fr, 1, stack);
    while (sqlite3_step(fr) == SQLITE_ROW) {
      w_begin(w, 'd');
      w_key(w, K_NAME);
      w_column(w, fr, 2);
      w_key(w, K_FILENAME);
      w_column(w, fr, 0);
      w_key(w, K_LINE);
      w_column(w, fr, 1);
      w_end(w);
    }
    if (sqlite3_reset(fr) != SQLITE_OK) {
      w->failed = 1;
      return -1;
    }
  }
  w_end(w);
  return 0;
}

/* ---- SQL helpers ------------------------------------------------------- */

typedef struct em_ctx {
  sqlite3 *db;
  const em_options *o;
  em_w w;
  int64_t snapshot, device, max_device, first, last;
  sqlite3_stmt *frames; /* frames.sql */
  em_result *res;
  int have_times;       /* events of the window with a time */
  int64_t lo_us, hi_us; /* their first and last times */
} em_ctx;

static sqlite3_stmt *prep(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "profdb: export: %s\n", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return NULL;
  }
  return st;
}

static void bind_int(sqlite3_stmt *st, const char *name, int have, int64_t v) {
  int i = sqlite3_bind_parameter_index(st, name);
  if (i && have) sqlite3_bind_int64(st, i, v);
}

static void bind_window(sqlite3_stmt *st, const em_ctx *c) {
  bind_int(st, ":snapshot", 1, c->snapshot);
  bind_int(st, ":device", 1, c->device);
  bind_int(st, ":first", 1, c->first);
  bind_int(st, ":last", 1, c->last);
}

static int step_error(sqlite3 *db, sqlite3_stmt *st) {
  fprintf(stderr, "profdb: export: %s\n", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return -1;
}


/* ---- the segments at the window's end ---------------------------------- */

typedef struct em_seg {
  int64_t addr, size, stream, stack; /* stack 0: none */
  char type[8];                      /* 'large' / 'small' */
  int64_t pool[2];                   /* segment_pool_id */
  int have_pool, expandable;         /* expandable -1: unknown */
} em_seg;

typedef struct seg_list {
  em_seg *v;
  size_t n, cap;
} seg_list;

static em_seg *seg_add(seg_list *l) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 64;
    em_seg *v = realloc(l->v, cap * sizeof *v);
    if (!v) return NULL;
    l->v = v;
    l->cap = cap;
  }
  memset(&l->v[l->n], 0, sizeof l->v[0]);
  l->v[l->n].expandable = -1;
  return &l->v[l->n++];
}

static int seg_cmp(const void *a, const void *b) {
  const em_seg *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Undo one segment event that came after the window. */
static int seg_undo(seg_list *l, const char *action, int64_t addr, int64_t size,
                    int64_t stream) {
  int maps = !strcmp(action, "segment_alloc") || !strcmp(action, "segment_map");
  for (size_t i = 0; i < l->n; i++) {
    em_seg *s = &l->v[i];
    if (maps && s->addr == addr && s->size <= size) { /* it did not exist yet */
      l->v[i] = l->v[--l->n];
      return 0;
    }
    if (maps && addr > s->addr && addr + size == s->addr + s->size) { /* map at its end */
      s->size -= size;
      return 0;
    }
    if (maps && addr == s->addr) { /* map at its start */
      s->addr += size;
      s->size -= size;
      return 0;
    }
    if (!maps && !strcmp(action, "segment_unmap") && s->addr + s->size == addr &&
        s->stream == stream) { /* unmapped from its end: extend it back */
      s->size += size;
      return 0;
    }
  }
  if (maps) return 0; /* nothing to undo: the final snapshot lacks it already */
  em_seg *s = seg_add(l);
  if (!s) return -1;
  s->addr = addr;
  s->size = size;
  s->stream = stream;
  /* small-pool segments are 2 MiB (kSmallBuffer); anything else is large */
  strcpy(s->type, size == 2097152 ? "small" : "large");
  s->expandable = !strcmp(action, "segment_unmap");
  return 0;
}

/* The segments of the device after the window's last event, by address. */
static int load_segments(em_ctx *c, seg_list *l) {
  sqlite3_stmt *st = prep(c->db, profdb_memviz_segments);
  if (!st) return -1;
  bind_window(st, c);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    em_seg *s = seg_add(l);
    if (!s) return step_error(c->db, st);
    s->addr = sqlite3_column_int64(st, 0);
    s->size = sqlite3_column_int64(st, 1);
    s->stream = sqlite3_column_int64(st, 2);
    const char *t = (const char *)sqlite3_column_text(st, 3);
    snprintf(s->type, sizeof s->type, "%s", t ? t : "large");
    const char *pool = (const char *)sqlite3_column_text(st, 4);
    long long a, b;
    if (pool && sscanf(pool, "[%lld,%lld]", &a, &b) == 2) {
      s->pool[0] = a;
      s->pool[1] = b;
      s->have_pool = 1;
    }
    s->expandable = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 5);
    s->stack = sqlite3_column_int64(st, 6);
  }
  if (rc != SQLITE_DONE) return step_error(c->db, st);
  sqlite3_finalize(st);
  if (!(st = prep(c->db, profdb_memviz_segment_undo))) return -1;
  bind_window(st, c);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    if (seg_undo(l, (const char *)sqlite3_column_text(st, 0), sqlite3_column_int64(st, 1),
                 sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3)))
      return step_error(c->db, st);
  if (rc != SQLITE_DONE) return step_error(c->db, st);
  sqlite3_finalize(st);
  qsort(l->v, l->n, sizeof *l->v, seg_cmp);
  return 0;
}

/* A live allocation (live.sql row), read one ahead. */
typedef struct live_row {
  int valid;
  int64_t addr, requested, size, stack;
} live_row;

static int live_next(sqlite3_stmt *st, live_row *r) {
  int rc = sqlite3_step(st);
  r->valid = rc == SQLITE_ROW;
  if (r->valid) {
    r->addr = sqlite3_column_int64(st, 0);
    r->requested = sqlite3_column_int64(st, 1);
    r->size = sqlite3_column_int64(st, 2);
    r->stack = sqlite3_column_int64(st, 3);
  }
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

static void w_block(em_ctx *c, int64_t addr, int64_t size, int64_t requested, const char *state,
                    int64_t stack) {
  em_w *w = &c->w;
  w_begin(w, 'd');
  w_key(w, K_ADDRESS);
  w_int(w, addr);
  w_key(w, K_SIZE);
  w_int(w, size);
  w_key(w, K_REQUESTED_SIZE);
  w_int(w, requested);
  w_key(w, K_STATE);
  w_str(w, state);
  w_key(w, K_FRAMES);
  w_frames(w, c->frames, stack);
  w_end(w);
  c->res->blocks++;
}

/* The blocks of segment s: the live allocations inside it (cur, read one
** ahead from st) and inactive blocks between them; *alloc, *req their sums. */
static int w_blocks(em_ctx *c, const em_seg *s, sqlite3_stmt *st, live_row *cur, int64_t *alloc,
                    int64_t *req) {
  int64_t at = s->addr, end = s->addr + s->size;
  w_begin(&c->w, 'l');
  while (cur->valid && cur->addr < end) {
    live_row r = *cur;
    if (live_next(st, cur)) return -1;
    if (r.addr < at) { /* before this segment, or overlapping the last block */
      c->res->orphans++;
      continue;
    }
    int64_t size = r.size, lim = cur->valid && cur->addr < end ? cur->addr : end;
    if (r.addr + size > lim) size = lim - r.addr;
    if (r.addr > at) w_block(c, at, r.addr - at, 0, "inactive", 0);
    w_block(c, r.addr, size, r.requested, "active_allocated", r.stack);
    *alloc += size;
    *req += r.requested;
    at = r.addr + size;
  }
  if (at < end) w_block(c, at, end - at, 0, "inactive", 0);
  w_end(&c->w);
  return 0;
}

static int w_segment(em_ctx *c, const em_seg *s, sqlite3_stmt *st, live_row *cur) {
  em_w *w = &c->w;
  int64_t alloc = 0, req = 0;
  w_begin(w, 'd');
  w_key(w, K_DEVICE);
  w_int(w, c->device);
  w_key(w, K_ADDRESS);
  w_int(w, s->addr);
  w_key(w, K_TOTAL_SIZE);
  w_int(w, s->size);
  w_key(w, K_STREAM);
  w_int(w, s->stream);
  w_key(w, K_SEGMENT_TYPE);
  w_str(w, s->type);
  w_key(w, K_SEGMENT_POOL_ID);
  w_begin(w, 'l');
  w_int(w, s->have_pool ? s->pool[0] : 0);
  w_int(w, s->have_pool ? s->pool[1] : 0);
  w_end(w);
  w_key(w, K_IS_EXPANDABLE);
  w_atom(w, s->expandable > 0 ? 't' : 'f');
  w_key(w, K_FRAMES);
  if (w_frames(w, c->frames, s->stack)) return -1;
  w_key(w, K_BLOCKS);
  if (w_blocks(c, s, st, cur, &alloc, &req)) return -1;
  w_key(w, K_ALLOCATED_SIZE);
  w_int(w, alloc);
  w_key(w, K_ACTIVE_SIZE);
  w_int(w, alloc);
  w_key(w, K_REQUESTED_SIZE);
  w_int(w, req);
  w_end(w);
  c->res->segments++;
  return 0;
}

static int w_segments(em_ctx *c) {
  seg_list l = {0};
  sqlite3_stmt *st = NULL;
  live_row cur = {0};
  int rc = -1;
  if (load_segments(c, &l) || !(st = prep(c->db, profdb_memviz_live))) goto done;
  bind_window(st, c);
  if (live_next(st, &cur)) goto done;
  w_begin(&c->w, 'l');
  for (size_t i = 0; i < l.n; i++) {
    while (cur.valid && cur.addr < l.v[i].addr) { /* in no segment */
      c->res->orphans++;
      if (live_next(st, &cur)) goto done;
    }
    if (w_segment(c, &l.v[i], st, &cur)) goto done;
  }
  while (cur.valid) {
    c->res->orphans++;
    if (live_next(st, &cur)) goto done;
  }
  w_end(&c->w);
  rc = 0;
done:
  if (rc && st) fprintf(stderr, "profdb: export: %s\n", sqlite3_errmsg(c->db));
  sqlite3_finalize(st);
  free(l.v);
  return rc;
}

/* ---- the events, annotations and what was cut -------------------------- */

static int w_event(em_ctx *c, sqlite3_stmt *st) {
  em_w *w = &c->w;
  const char *action = (const char *)sqlite3_column_text(st, 1);
  w_begin(w, 'd');
  w_key(w, K_ACTION);
  w_str(w, action ? action : "other");
  if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
    w_key(w, K_ADDR);
    w_column(w, st, 2);
  }
  w_key(w, K_SIZE);
  w_column(w, st, 3);
  w_key(w, K_STREAM);
  w_column(w, st, 4);
  static const int opt[][2] = {
      {5, K_TIME_US}, {7, K_DEVICE_FREE}, {8, K_COMPILE_CONTEXT}, {9, K_USER_METADATA}};
  for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
    if (sqlite3_column_type(st, opt[i][0]) != SQLITE_NULL) {
      w_key(w, opt[i][1]);
      w_column(w, st, opt[i][0]);
    }
  if (sqlite3_column_type(st, 6) != SQLITE_NULL) { /* absent without frames, as in PyTorch */
    w_key(w, K_FRAMES);
    if (w_frames(w, c->frames, sqlite3_column_int64(st, 6))) return -1;
  }
  w_end(w);
  c->res->events++;
  return 0;
}

/* device_traces: one list per device ordinal, the window's events in the
** selected device's (their first and last times into c->lo_us, hi_us). */
static int w_traces(em_ctx *c) {
  sqlite3_stmt *st = prep(c->db, profdb_memviz_events);
  if (!st) return -1;
  bind_window(st, c);
  w_begin(&c->w, 'l');
  for (int64_t d = 0; d <= c->max_device; d++) {
    w_begin(&c->w, 'l');
    int rc = SQLITE_DONE;
    while (d == c->device && (rc = sqlite3_step(st)) == SQLITE_ROW) {
      if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
        c->hi_us = sqlite3_column_int64(st, 5);
        if (!c->have_times++) c->lo_us = c->hi_us;
      }
      if (w_event(c, st)) return step_error(c->db, st);
    }
    if (rc != SQLITE_DONE) return step_error(c->db, st);
    w_end(&c->w);
  }
  w_end(&c->w);
  sqlite3_finalize(st);
  return 0;
}

/* external_annotations of the device inside the window's time range. */
static int w_annotations(em_ctx *c) {
  sqlite3_stmt *st = prep(c->db, profdb_memviz_annotations);
  if (!st) return -1;
  bind_int(st, ":snapshot", 1, c->snapshot);
  bind_int(st, ":device", 1, c->device);
  bind_int(st, ":lo_us", c->have_times, c->lo_us);
  bind_int(st, ":hi_us", c->have_times, c->hi_us);
  w_begin(&c->w, 'l');
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    w_begin(&c->w, 'd');
    static const int keys[] = {K_STAGE, K_NAME, K_DEVICE, K_TIME_US};
    for (int i = 0; i < 4; i++)
      if (sqlite3_column_type(st, i) != SQLITE_NULL) {
        w_key(&c->w, keys[i]);
        w_column(&c->w, st, i);
      }
    w_end(&c->w);
  }
  if (rc != SQLITE_DONE) return step_error(c->db, st);
  w_end(&c->w);
  sqlite3_finalize(st);
  return 0;
}

/* profdb_window: what the file is cut from (written as plain str keys). */
static void w_window(em_ctx *c, int64_t events, sqlite3_stmt *win) {
  em_w *w = &c->w;
  const char *k[] = {"version",  "snapshot_id",   "label",    "device",         "first_seq",
                     "last_seq", "device_events", "peak_seq", "peak_allocated", "segments_at"};
  w_begin(w, 'd');
  for (int i = 0; i < 10; i++) {
    if (!w->json && !w->pending[w->depth - 1]) fputc('(', w->f);
    if (w->json && w->pending[w->depth - 1]) fputc(',', w->f);
    if (w->json) {
      json_str(w->f, k[i], strlen(k[i]));
      fputc(':', w->f);
    } else
      pickle_str(w->f, k[i], strlen(k[i]));
    switch (i) {
      case 0: w_int(w, EM_EXPORT_VERSION); break;
      case 1: w_int(w, c->snapshot); break;
      case 2: w_str(w, c->res->label); break;
      case 3: w_int(w, c->device); break;
      case 4: w_int(w, c->first); break;
      case 5: w_int(w, c->last); break;
      case 6: w_int(w, events); break;
      case 7: w_column(w, win, 5); break;
      case 8: w_column(w, win, 6); break;
      default: w_str(w, "after last_seq: a snapshot taken at the window's end"); break;
    }
  }
  w_end(w);
}

/* ---- selection --------------------------------------------------------- */

/* The snapshot and device (c->snapshot, device, max_device, res->label). */
static int pick_snapshot(em_ctx *c) {
  sqlite3_stmt *st = prep(c->db, profdb_memviz__snapshot);
  if (!st) return -1;
  if (c->o->snapshot)
    sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":snapshot"), c->o->snapshot, -1,
                      SQLITE_STATIC);
  bind_int(st, ":device", c->o->have_device, c->o->device);
  int rows = 0, rc, snapshots = 0, no_device = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (!rows++) {
      c->snapshot = sqlite3_column_int64(st, 0);
      snprintf(c->res->label, sizeof c->res->label, "%s", sqlite3_column_text(st, 1));
      no_device = sqlite3_column_type(st, 2) == SQLITE_NULL;
      c->device = sqlite3_column_int64(st, 2);
      c->max_device = sqlite3_column_int64(st, 3);
    }
    snapshots = sqlite3_column_int(st, 4);
  }
  if (rc != SQLITE_DONE) return step_error(c->db, st);
  sqlite3_finalize(st);
  if (rows == 1 && !no_device) {
    c->res->snapshot_id = c->snapshot;
    c->res->device = c->device;
    return 0;
  }
  if (rows > 1)
    fprintf(stderr,
            "profdb: export: the database holds %d memory snapshots: name one with"
            " --snapshot ID or LABEL (profdb query DB \"SELECT snapshot_id, label FROM"
            " snapshot\")\n",
            rows);
  else if (rows == 1)
    fprintf(stderr, "profdb: export: snapshot %s has no segments and no allocator events\n",
            c->res->label);
  else if (c->o->snapshot)
    fprintf(stderr, "profdb: export: --snapshot %s: no such snapshot (id or label)\n",
            c->o->snapshot);
  else
    fprintf(stderr, "profdb: export: the database holds no memory snapshot%s\n",
            snapshots ? "" : " (load one: profdb load snapshot.json -o DB)");
  return -1;
}

/* The window (c->first, c->last); the _window.sql row stays in *win. */
static int pick_window(em_ctx *c, sqlite3_stmt **win) {
  const em_options *o = c->o;
  sqlite3_stmt *st = *win = prep(c->db, profdb_memviz__window);
  if (!st) return -1;
  bind_window(st, c);
  bind_int(st, ":from", o->have_from, o->from_ns);
  bind_int(st, ":to", o->have_to, o->to_ns);
  bind_int(st, ":from_rel", 1, o->from_rel);
  bind_int(st, ":to_rel", 1, o->to_rel);
  bind_int(st, ":at_peak", 1, o->at_peak);
  bind_int(st, ":around", 1, o->around);
  if (sqlite3_step(st) != SQLITE_ROW) {
    fprintf(stderr, "profdb: export: %s\n", sqlite3_errmsg(c->db));
    return -1;
  }
  int64_t events = sqlite3_column_int64(st, 0), timed = sqlite3_column_int64(st, 1);
  if (!events) {
    fprintf(stderr,
            "profdb: export: snapshot %s, device %lld: no allocator events (device_traces)"
            " to cut a window from (record them: torch.cuda.memory._record_memory_history())\n",
            c->res->label, (long long)c->device);
    return -1;
  }
  if ((o->have_from || o->have_to) && !o->at_peak && timed < events) {
    fprintf(stderr,
            "profdb: export: snapshot %s: %lld of its %lld events have no time (time_us:"
            " PyTorch >= 2.2): --from/--to cannot cut it; use --at-peak\n",
            c->res->label, (long long)(events - timed), (long long)events);
    return -1;
  }
  if (sqlite3_column_type(st, 3) == SQLITE_NULL) {
    fprintf(stderr,
            "profdb: export: the window holds no allocator event of snapshot %s, device"
            " %lld (its events start at %lld us)\n",
            c->res->label, (long long)c->device,
            (long long)(sqlite3_column_int64(st, 2) / 1000));
    return -1;
  }
  c->first = c->res->first_seq = sqlite3_column_int64(st, 3);
  c->last = c->res->last_seq = sqlite3_column_int64(st, 4);
  return 0;
}

/* The whole file: the snapshot dict. */
static int w_file(em_ctx *c, sqlite3_stmt *win) {
  em_w *w = &c->w;
  if (!w->json) fputs("\x80\x04", w->f); /* PROTO 4 */
  w_begin(w, 'd');
  w_key(w, K_SEGMENTS);
  if (w_segments(c)) return -1;
  w_key(w, K_DEVICE_TRACES);
  if (w_traces(c)) return -1;
  w_key(w, K_EXTERNAL_ANNOTATIONS);
  if (w_annotations(c)) return -1;
  w_key(w, K_PROFDB_WINDOW);
  w_window(c, sqlite3_column_int64(win, 0), win);
  w_end(w);
  fputs(w->json ? "\n" : ".", w->f); /* STOP */
  return w->failed ? -1 : 0;
}

int em_export(sqlite3 *db, const em_options *o, em_result *res) {
  memset(res, 0, sizeof *res);
  em_ctx c = {.db = db, .o = o, .res = res};
  sqlite3_stmt *win = NULL;
  int rc = -1, to_stdout = !strcmp(o->out, "-");
  if (pick_snapshot(&c) || pick_window(&c, &win)) goto done;
  c.w.json = o->json;
  c.w.stack_mask = 1023;
  c.w.stacks = calloc(c.w.stack_mask + 1, sizeof *c.w.stacks);
  if (!c.w.stacks || !(c.frames = prep(db, profdb_memviz_frames))) goto done;
  pub_file out; /* -o FILE: written atomically (publish.h) */
  c.w.f = to_stdout ? stdout : pub_open(&out, o->out, PUB_USER) ? NULL : pub_stream(&out);
  if (!c.w.f) {
    fprintf(stderr, "profdb: export: %s: %s\n", o->out, strerror(errno));
    res->retryable = ex_retryable(errno);
    if (!to_stdout && out.fd >= 0) pub_abort(&out);
    goto done;
  }
  rc = w_file(&c, win);
  res->bytes = ftell(c.w.f);
  if (ferror(c.w.f) || (to_stdout ? fflush(c.w.f) : rc ? 0 : pub_commit(&out))) {
    if (!rc) fprintf(stderr, "profdb: export: %s: %s\n", o->out, strerror(errno));
    if (!rc) res->retryable = ex_retryable(errno);
    rc = -1;
  }
  if (rc && !to_stdout) pub_abort(&out); /* nothing published */
done:
  sqlite3_finalize(win);
  sqlite3_finalize(c.frames);
  free(c.w.stacks);
  return rc;
}

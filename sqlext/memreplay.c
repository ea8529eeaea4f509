/*
** memreplay.c — replay the CUDA caching allocator's trace to get memory
** over time, the peak, and what was live at any point.
**
** SQL Functions (table-valued):
**   mem_timeline(SNAPSHOT_ID, DEVICE)
**     one row per alloc_event of that device, oldest first:
**     seq, action, addr, size, allocated (bytes allocated after the event),
**     reserved (bytes reserved after it), stack_id, time_us
**   mem_peak(SNAPSHOT_ID, DEVICE)
**     one row: peak_allocated, peak_seq (seq of the first event reaching
**     the peak; NULL when the peak is the state before the first event),
**     baseline (bytes allocated before the window), end_allocated,
**     peak_reserved, events
**   mem_live_at(SNAPSHOT_ID, DEVICE, SEQ)
**     the allocations live right after event SEQ (before the first event
**     when SEQ < 0): addr, size, alloc_seq (NULL when allocated before the
**     window), stack_id; largest first
**   mem_trace_peak(TRACE_ID)
**     from a trace's [memory] events (profile_memory=True), one row per
**     device: device_type, device_id, peak_allocated, peak_ts,
**     peak_reserved, baseline, end_allocated, events
**
**     SELECT * FROM mem_peak(1, 0);
**     SELECT max(allocated) FROM mem_timeline(1, 0);
**
**   Each takes an optional last argument, the schema to read ('main' by
**   default): mem_peak(1, 0, 'base') replays a database ATTACHed as base
**   (profdb diff).  Table-valued functions exist in main only, so the
**   schema cannot be given as a prefix.
**
** HOW IT WORKS (the rules of PyTorch's memory viewer, MemoryViz.js)
**   Requirement 1: memory is freed at free_completed; a free_requested
**     alone frees nothing (the block may still be used by another stream).
**   Requirement 2: a free_completed whose alloc is not in the trace (the
**     ring buffer dropped it, or recording started later) means the block
**     was allocated from the start of the window until that free.
**   Requirement 3: every active_allocated block of the final snapshot
**     whose address has no outstanding alloc was allocated throughout; its
**     size is the block's requested_size (trace sizes are requested bytes).
**   So the bytes allocated before the window (baseline) are only known
**   after a first pass over the events; a second pass then produces the
**   timeline.  Reserved bytes start at (sum of the final segments' sizes)
**   minus the net of segment_alloc/map and segment_free/unmap, then follow
**   those events.  A second alloc at an address that is still allocated
**   leaves the first one allocated forever, as MemoryViz does.
**   Memory use is bounded by the live allocations, not by the events.
**
**   Unknown snapshots, devices, NULL arguments, and databases without the
**   snapshot tables give no rows.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "families.h"

#include "profdb/codes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Allocator action codes A_ALLOC, ... and their names, from the one list
** in include/profdb/codes.h. */
enum {
#define ACTION_ENUM(id, code, name) A_##id = code,
  PROFDB_ALLOC_ACTIONS(ACTION_ENUM)
#undef ACTION_ENUM
};
static const char *const action_names[PROFDB_ACTION_LIMIT] = {
#define ACTION_NAME(id, code, name) [code] = name,
    PROFDB_ALLOC_ACTIONS(ACTION_NAME)
#undef ACTION_NAME
};

/* The name of a stored action code; "other" for codes profdb does not know. */
static const char *action_name(int64_t code) {
  if (code < 0 || code >= PROFDB_ACTION_LIMIT || !action_names[code])
    return action_names[A_OTHER];
  return action_names[code];
}

/* ---- address -> allocation map (open addressing, backward-shift delete) -- */

typedef struct alloc_rec {
  int64_t addr, size, seq, stack; /* seq -1: before the window; stack -1: none */
} alloc_rec;

typedef struct addr_map {
  alloc_rec *slot;
  unsigned char *used;
  size_t mask, count;
} addr_map;

static size_t addr_hash(int64_t a) {
  uint64_t x = (uint64_t)a;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (size_t)x;
}

static int map_init(addr_map *m, size_t size) {
  m->slot = sqlite3_malloc64(size * sizeof *m->slot);
  m->used = sqlite3_malloc64(size);
  if (!m->slot || !m->used) return SQLITE_NOMEM;
  memset(m->used, 0, size);
  m->mask = size - 1;
  m->count = 0;
  return SQLITE_OK;
}

static void map_free(addr_map *m) {
  sqlite3_free(m->slot);
  sqlite3_free(m->used);
  memset(m, 0, sizeof *m);
}

static alloc_rec *map_find(addr_map *m, int64_t addr) {
  for (size_t i = addr_hash(addr) & m->mask; m->used[i]; i = (i + 1) & m->mask)
    if (m->slot[i].addr == addr) return &m->slot[i];
  return NULL;
}

static int map_put(addr_map *m, const alloc_rec *r) {
  if ((m->count + 1) * 2 > m->mask + 1) {
    addr_map bigger;
    if (map_init(&bigger, (m->mask + 1) * 2)) return SQLITE_NOMEM;
    for (size_t i = 0; i <= m->mask; i++)
      if (m->used[i]) map_put(&bigger, &m->slot[i]);
    map_free(m);
    *m = bigger;
  }
  size_t i = addr_hash(r->addr) & m->mask;
  while (m->used[i] && m->slot[i].addr != r->addr) i = (i + 1) & m->mask;
  if (!m->used[i]) m->count++;
  m->used[i] = 1;
  m->slot[i] = *r;
  return SQLITE_OK;
}

static void map_del(addr_map *m, int64_t addr) {
  size_t i = addr_hash(addr) & m->mask;
  while (m->used[i] && m->slot[i].addr != addr) i = (i + 1) & m->mask;
  if (!m->used[i]) return;
  m->used[i] = 0;
  m->count--;
  /* Shift later members of the probe run back into the hole. */
  for (size_t j = (i + 1) & m->mask; m->used[j]; j = (j + 1) & m->mask) {
    size_t home = addr_hash(m->slot[j].addr) & m->mask;
    int between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (between) continue;
    m->slot[i] = m->slot[j];
    m->used[i] = 1;
    m->used[j] = 0;
    i = j;
  }
}

/* ---- growable record lists ---------------------------------------------- */

typedef struct rec_list {
  alloc_rec *v;
  size_t n, cap;
} rec_list;

static int list_add(rec_list *l, alloc_rec r) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 64;
    alloc_rec *v = sqlite3_realloc64(l->v, cap * sizeof *v);
    if (!v) return SQLITE_NOMEM;
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = r;
  return SQLITE_OK;
}

/* ---- the replay --------------------------------------------------------- */

typedef struct replay {
  sqlite3 *db;
  int64_t snapshot, device;
  int64_t baseline;        /* bytes allocated before the first event */
  int64_t reserved_before; /* bytes reserved before the first event */
  int64_t events;          /* events of this device */
  rec_list pre_freed;      /* allocated before the window, freed in it (seq = free seq) */
  rec_list pre_live;       /* allocated before the window, never freed */
  rec_list shadowed;       /* allocs overwritten at the same address */
  const char *schema;      /* database to read: "main", "base", ... */
  addr_map live;           /* outstanding allocs of the window */
  sqlite3_stmt *ev;        /* pass-2 cursor */
  int64_t allocated, reserved;
  /* current event */
  int64_t seq, action, addr, size, stack, time_us;
  int addr_null, size_null, stack_null, time_null;
  char err[200]; /* why the replay stopped (SQLITE_RANGE), naming the row */
} replay;

/* *acc += v (sign 1) or -= v (sign -1), or SQLITE_RANGE with the event
** named: a database written by another tool, or edited, may hold sizes
** whose sums leave int64 (the loader refuses such snapshots). */
static int checked_add(replay *r, int64_t *acc, int64_t v, int sign, int64_t seq,
                       const char *what) {
  int64_t out;
  int over =
      sign > 0 ? __builtin_add_overflow(*acc, v, &out) : __builtin_sub_overflow(*acc, v, &out);
  if (!over) {
    *acc = out;
    return SQLITE_OK;
  }
  sqlite3_snprintf((int)sizeof r->err, r->err,
                   "%s overflows 64 bits at _alloc_event seq %lld (snapshot %lld, device %lld,"
                   " size %lld): not a real snapshot",
                   what, (long long)seq, (long long)r->snapshot, (long long)r->device,
                   (long long)v);
  return SQLITE_RANGE;
}

static const char events_sql[] =
    "SELECT seq, action, addr, size, stack_id, time_us FROM \"%w\"._alloc_event"
    " WHERE snapshot_id = ?1 AND device = ?2 ORDER BY seq";

static void replay_free(replay *r) {
  sqlite3_finalize(r->ev);
  r->ev = NULL;
  map_free(&r->live);
  sqlite3_free(r->pre_freed.v);
  sqlite3_free(r->pre_live.v);
  sqlite3_free(r->shadowed.v);
  memset(&r->pre_freed, 0, sizeof r->pre_freed);
  memset(&r->pre_live, 0, sizeof r->pre_live);
  memset(&r->shadowed, 0, sizeof r->shadowed);
}

/* Prepare fmt with the schema name substituted for each of its (at most
** two) %w.  A missing table means "no snapshot data": not an error. */
static int prepare_or_empty(sqlite3 *db, const char *fmt, const char *schema, sqlite3_stmt **st,
                            int *empty) {
  char *sql = sqlite3_mprintf(fmt, schema, schema);
  if (!sql) return SQLITE_NOMEM;
  int rc = sqlite3_prepare_v2(db, sql, -1, st, NULL);
  sqlite3_free(sql);
  if (rc != SQLITE_OK && (strstr(sqlite3_errmsg(db), "no such table") ||
                          strstr(sqlite3_errmsg(db), "unknown database"))) {
    *empty = 1;
    return SQLITE_OK;
  }
  return rc;
}

/* Pass 1: baseline, pre-window allocations, reserved bytes before. */
static int replay_prepare(replay *r, int *empty) {
  sqlite3_stmt *st = NULL;
  int rc = prepare_or_empty(r->db, events_sql, r->schema, &st, empty);
  if (rc != SQLITE_OK || *empty) return rc;
  if ((rc = map_init(&r->live, 1024)) != SQLITE_OK) goto done;
  sqlite3_bind_int64(st, 1, r->snapshot);
  sqlite3_bind_int64(st, 2, r->device);
  int64_t net_segments = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    r->events++;
    int64_t seq = sqlite3_column_int64(st, 0), action = sqlite3_column_int64(st, 1);
    int64_t addr = sqlite3_column_int64(st, 2), size = sqlite3_column_int64(st, 3);
    if (action == A_ALLOC) {
      alloc_rec rec = {addr, size, seq, -1};
      if ((rc = map_put(&r->live, &rec)) != SQLITE_OK) goto done;
    } else if (action == A_FREE_COMPLETED) {
      if (map_find(&r->live, addr)) {
        map_del(&r->live, addr);
      } else {
        alloc_rec rec = {
            addr, size, seq,
            sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4)};
        if ((rc = list_add(&r->pre_freed, rec)) != SQLITE_OK) goto done;
        if ((rc = checked_add(r, &r->baseline, size, 1, seq, "allocated bytes"))) goto done;
      }
    } else if (action == A_SEGMENT_ALLOC || action == A_SEGMENT_MAP) {
      if ((rc = checked_add(r, &net_segments, size, 1, seq, "reserved bytes"))) goto done;
    } else if (action == A_SEGMENT_FREE || action == A_SEGMENT_UNMAP) {
      if ((rc = checked_add(r, &net_segments, size, -1, seq, "reserved bytes"))) goto done;
    }
  }
  if (rc != SQLITE_DONE) goto done;
  sqlite3_finalize(st);
  st = NULL;
  /* Active blocks that no outstanding alloc explains. */
  rc = prepare_or_empty(
      r->db,
      "SELECT b.address, coalesce(b.requested_size, b.size), b.stack_id"
      " FROM \"%w\"._segment s JOIN \"%w\"._block b ON b.segment_id = s.id"
      " WHERE s.snapshot_id = ?1 AND s.device = ?2 AND b.state = 'active_allocated'"
      " ORDER BY b.address",
      r->schema, &st, empty);
  if (rc != SQLITE_OK || *empty) goto done;
  sqlite3_bind_int64(st, 1, r->snapshot);
  sqlite3_bind_int64(st, 2, r->device);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t addr = sqlite3_column_int64(st, 0);
    if (map_find(&r->live, addr)) continue;
    alloc_rec rec = {
        addr, sqlite3_column_int64(st, 1), -1,
        sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2)};
    if ((rc = list_add(&r->pre_live, rec)) != SQLITE_OK) goto done;
    if ((rc = checked_add(r, &r->baseline, rec.size, 1, -1, "allocated bytes"))) goto done;
  }
  if (rc != SQLITE_DONE) goto done;
  sqlite3_finalize(st);
  st = NULL;
  rc = prepare_or_empty(r->db,
                        "SELECT coalesce(sum(total_size), 0) FROM \"%w\"._segment"
                        " WHERE snapshot_id = ?1 AND device = ?2",
                        r->schema, &st, empty);
  if (rc != SQLITE_OK || *empty) goto done;
  sqlite3_bind_int64(st, 1, r->snapshot);
  sqlite3_bind_int64(st, 2, r->device);
  if ((rc = sqlite3_step(st)) != SQLITE_ROW) goto done;
  if (sqlite3_column_type(st, 0) != SQLITE_INTEGER) { /* sum() overflowed to REAL */
    sqlite3_snprintf((int)sizeof r->err, r->err,
                     "the segments' total_size of snapshot %lld, device %lld overflows 64 bits",
                     (long long)r->snapshot, (long long)r->device);
    rc = SQLITE_RANGE;
    goto done;
  }
  r->reserved_before = sqlite3_column_int64(st, 0);
  rc = checked_add(r, &r->reserved_before, net_segments, -1, -1, "reserved bytes");
  if (rc) goto done;
done:
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Start pass 2. */
static int replay_start(replay *r) {
  r->live.count = 0;
  memset(r->live.used, 0, r->live.mask + 1);
  r->shadowed.n = 0;
  r->allocated = r->baseline;
  r->reserved = r->reserved_before;
  char *sql = sqlite3_mprintf(events_sql, r->schema);
  if (!sql) return SQLITE_NOMEM;
  int rc = sqlite3_prepare_v2(r->db, sql, -1, &r->ev, NULL);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_int64(r->ev, 1, r->snapshot);
  sqlite3_bind_int64(r->ev, 2, r->device);
  return SQLITE_OK;
}

/* Apply the next event.  Returns SQLITE_ROW, SQLITE_DONE or an error. */
static int replay_step(replay *r) {
  int rc = sqlite3_step(r->ev);
  if (rc != SQLITE_ROW) return rc;
  sqlite3_stmt *st = r->ev;
  r->seq = sqlite3_column_int64(st, 0);
  r->action = sqlite3_column_int64(st, 1);
  r->addr_null = sqlite3_column_type(st, 2) == SQLITE_NULL;
  r->addr = sqlite3_column_int64(st, 2);
  r->size_null = sqlite3_column_type(st, 3) == SQLITE_NULL;
  r->size = sqlite3_column_int64(st, 3);
  r->stack_null = sqlite3_column_type(st, 4) == SQLITE_NULL;
  r->stack = sqlite3_column_int64(st, 4);
  r->time_null = sqlite3_column_type(st, 5) == SQLITE_NULL;
  r->time_us = sqlite3_column_int64(st, 5);
  switch (r->action) {
    case A_ALLOC: {
      alloc_rec *old = map_find(&r->live, r->addr);
      if (old && list_add(&r->shadowed, *old) != SQLITE_OK) return SQLITE_NOMEM;
      alloc_rec rec = {r->addr, r->size, r->seq, r->stack_null ? -1 : r->stack};
      if (map_put(&r->live, &rec) != SQLITE_OK) return SQLITE_NOMEM;
      return checked_add(r, &r->allocated, r->size, 1, r->seq, "allocated bytes") ? SQLITE_RANGE
                                                                                  : SQLITE_ROW;
    }
    case A_FREE_COMPLETED: {
      alloc_rec *rec = map_find(&r->live, r->addr);
      int64_t size = rec ? rec->size : r->size; /* else one of pre_freed */
      if (rec) map_del(&r->live, r->addr);
      return checked_add(r, &r->allocated, size, -1, r->seq, "allocated bytes") ? SQLITE_RANGE
                                                                                : SQLITE_ROW;
    }
    case A_SEGMENT_ALLOC:
    case A_SEGMENT_MAP:
      return checked_add(r, &r->reserved, r->size, 1, r->seq, "reserved bytes") ? SQLITE_RANGE
                                                                                : SQLITE_ROW;
    case A_SEGMENT_FREE:
    case A_SEGMENT_UNMAP:
      return checked_add(r, &r->reserved, r->size, -1, r->seq, "reserved bytes") ? SQLITE_RANGE
                                                                                 : SQLITE_ROW;
    default: break;
  }
  return SQLITE_ROW;
}

/* ---- a generic cursor over computed rows -------------------------------- */

/* Every function's virtual table: the visible columns, then hidden args. */
typedef struct mem_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
  int kind; /* K_* below */
} mem_vtab;

enum { K_TIMELINE, K_PEAK, K_LIVE_AT, K_TRACE_PEAK };

/* Each kind's visible columns, in the order of its CREATE TABLE in kinds[]
** below (as series.c's SERIES_COLUMN_*): a row's values and null bits are
** indexed by them.  The hidden arguments follow the visible columns. */
enum { /* mem_timeline */
       TL_SEQ,
       TL_ACTION, /* text: mem_row.text */
       TL_ADDR,
       TL_SIZE,
       TL_ALLOCATED,
       TL_RESERVED,
       TL_STACK_ID,
       TL_TIME_US,
       TL__N
};
enum { /* mem_peak */
       PK_PEAK_ALLOCATED,
       PK_PEAK_SEQ,
       PK_BASELINE,
       PK_END_ALLOCATED,
       PK_PEAK_RESERVED,
       PK_EVENTS,
       PK__N
};
enum { /* mem_live_at */
       LV_ADDR,
       LV_SIZE,
       LV_ALLOC_SEQ,
       LV_STACK_ID,
       LV__N
};
enum { /* mem_trace_peak */
       TP_DEVICE_TYPE,
       TP_DEVICE_ID,
       TP_PEAK_ALLOCATED,
       TP_PEAK_TS,
       TP_PEAK_RESERVED,
       TP_BASELINE,
       TP_END_ALLOCATED,
       TP_EVENTS,
       TP__N
};

_Static_assert(TL__N <= 8 && PK__N <= 8 && LV__N <= 8 && TP__N <= 8,
               "mem_row holds 8 values and 8 null bits");

/* The null bit of column col in mem_row.null_mask. */
#define NULL_BIT(col) (1u << (col))

typedef struct mem_row {
  sqlite3_int64 v[8];      /* by column: TL_*, PK_*, LV_* or TP_* */
  unsigned char null_mask; /* NULL_BIT(col): column col is NULL */
  const char *text;        /* K_TIMELINE: the TL_ACTION name */
} mem_row;

typedef struct mem_cursor {
  sqlite3_vtab_cursor base;
  int kind;
  replay r; /* K_TIMELINE streams from the replay */
  int streaming;
  mem_row *rows; /* other kinds: materialized rows */
  size_t nrows, pos;
  size_t rows_cap; /* allocated rows: grows by doubling */
  int eof;
  mem_row cur; /* current streaming row */
  sqlite3_int64 rowid;
} mem_cursor;

/* Columns: visible, then the nargs required hidden arguments, then the
** optional schema name. */
static const struct {
  const char *schema;
  int nvisible, nargs;
  const char *name;
} kinds[] = {
    [K_TIMELINE] = {"CREATE TABLE x(seq, action, addr, size, allocated, reserved,"
                    " stack_id, time_us, snapshot_id HIDDEN, device HIDDEN, schema HIDDEN)",
                    TL__N, 2, "mem_timeline"},
    [K_PEAK] = {"CREATE TABLE x(peak_allocated, peak_seq, baseline, end_allocated,"
                " peak_reserved, events, snapshot_id HIDDEN, device HIDDEN, schema HIDDEN)",
                PK__N, 2, "mem_peak"},
    [K_LIVE_AT] = {"CREATE TABLE x(addr, size, alloc_seq, stack_id, snapshot_id HIDDEN,"
                   " device HIDDEN, seq HIDDEN, schema HIDDEN)",
                   LV__N, 3, "mem_live_at"},
    [K_TRACE_PEAK] = {"CREATE TABLE x(device_type, device_id, peak_allocated, peak_ts,"
                      " peak_reserved, baseline, end_allocated, events, trace_id HIDDEN,"
                      " schema HIDDEN)",
                      TP__N, 1, "mem_trace_peak"},
};

static int mem_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                       sqlite3_vtab **out, char **err) {
  (void)argc;
  (void)argv;
  int kind = (int)(intptr_t)aux;
  int rc = sqlite3_declare_vtab(db, kinds[kind].schema);
  if (rc != SQLITE_OK) return rc;
  mem_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->db = db;
  v->kind = kind;
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *out = &v->base;
  (void)err;
  return SQLITE_OK;
}

static int mem_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

/* Every hidden argument must be given as an equality (the schema may be
** left out); idxNum has one bit per argument given, and xFilter reports
** the missing ones. */
static int mem_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  mem_vtab *v = (mem_vtab *)vt;
  int nvis = kinds[v->kind].nvisible, nargs = kinds[v->kind].nargs;
  int mask = 0;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    int arg = c->iColumn - nvis;
    if (arg < 0 || c->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!c->usable) return SQLITE_CONSTRAINT; /* try another join order */
    info->aConstraintUsage[i].argvIndex = arg + 1;
    info->aConstraintUsage[i].omit = 1;
    mask |= 1 << arg;
  }
  int required = (1 << nargs) - 1;
  if ((mask & required) != required) {
    /* argvIndex values must not leave gaps: pass nothing, xFilter errs */
    for (int i = 0; i < info->nConstraint; i++) {
      info->aConstraintUsage[i].argvIndex = 0;
      info->aConstraintUsage[i].omit = 0;
    }
    mask = 0;
  }
  info->idxNum = mask;
  info->estimatedCost = mask ? 1000.0 : 1e12;
  return SQLITE_OK;
}

static int mem_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  mem_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  c->kind = ((mem_vtab *)vt)->kind;
  *out = &c->base;
  return SQLITE_OK;
}

static void cursor_reset(mem_cursor *c) {
  replay_free(&c->r);
  memset(&c->r, 0, sizeof c->r); /* counters too: xFilter runs again in joins */
  sqlite3_free(c->rows);
  c->rows = NULL;
  c->nrows = c->pos = c->rows_cap = 0;
  c->streaming = 0;
  c->eof = 1;
}

static int mem_close(sqlite3_vtab_cursor *cur) {
  cursor_reset((mem_cursor *)cur);
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int add_row(mem_cursor *c, const mem_row *row) {
  if (c->nrows == c->rows_cap) { /* doubling: linear in the number of rows */
    size_t cap = c->rows_cap ? c->rows_cap * 2 : 64;
    mem_row *rows = sqlite3_realloc64(c->rows, cap * sizeof *rows);
    if (!rows) return SQLITE_NOMEM;
    c->rows = rows;
    c->rows_cap = cap;
  }
  c->rows[c->nrows++] = *row;
  return SQLITE_OK;
}

static int cmp_live(const void *a, const void *b) {
  const mem_row *x = a, *y = b;
  if (x->v[LV_SIZE] != y->v[LV_SIZE]) return x->v[LV_SIZE] > y->v[LV_SIZE] ? -1 : 1;
  return x->v[LV_ADDR] < y->v[LV_ADDR] ? -1 : x->v[LV_ADDR] > y->v[LV_ADDR];
}

static void timeline_row(mem_cursor *c) {
  replay *r = &c->r;
  mem_row *row = &c->cur;
  memset(row, 0, sizeof *row);
  row->v[TL_SEQ] = r->seq;
  row->text = action_name(r->action);
  row->v[TL_ADDR] = r->addr;
  row->v[TL_SIZE] = r->size;
  row->v[TL_ALLOCATED] = r->allocated;
  row->v[TL_RESERVED] = r->reserved;
  row->v[TL_STACK_ID] = r->stack;
  row->v[TL_TIME_US] = r->time_us;
  row->null_mask = (unsigned char)((r->addr_null ? NULL_BIT(TL_ADDR) : 0) |
                                   (r->size_null ? NULL_BIT(TL_SIZE) : 0) |
                                   (r->stack_null ? NULL_BIT(TL_STACK_ID) : 0) |
                                   (r->time_null ? NULL_BIT(TL_TIME_US) : 0));
}

static int peak_rows(mem_cursor *c) {
  replay *r = &c->r;
  int64_t peak = r->allocated, peak_reserved = r->reserved;
  int64_t peak_seq = -1;
  int rc;
  while ((rc = replay_step(r)) == SQLITE_ROW) {
    if (r->allocated > peak) {
      peak = r->allocated;
      peak_seq = r->seq;
    }
    if (r->reserved > peak_reserved) peak_reserved = r->reserved;
  }
  if (rc != SQLITE_DONE) return rc;
  mem_row row = {{[PK_PEAK_ALLOCATED] = peak,
                  [PK_PEAK_SEQ] = peak_seq,
                  [PK_BASELINE] = r->baseline,
                  [PK_END_ALLOCATED] = r->allocated,
                  [PK_PEAK_RESERVED] = peak_reserved,
                  [PK_EVENTS] = r->events},
                 (unsigned char)(peak_seq < 0 ? NULL_BIT(PK_PEAK_SEQ) : 0),
                 NULL};
  return add_row(c, &row);
}

/* One mem_live_at row; alloc_seq NULL when the allocation came before the
** snapshot's history (!with_seq). */
static int add_live(mem_cursor *c, const alloc_rec *a, int with_seq) {
  mem_row row = {{[LV_ADDR] = a->addr,
                  [LV_SIZE] = a->size,
                  [LV_ALLOC_SEQ] = with_seq ? a->seq : 0,
                  [LV_STACK_ID] = a->stack},
                 (unsigned char)((with_seq ? 0 : NULL_BIT(LV_ALLOC_SEQ)) |
                                 (a->stack < 0 ? NULL_BIT(LV_STACK_ID) : 0)),
                 NULL};
  return add_row(c, &row);
}

static int live_rows(mem_cursor *c, int64_t upto) {
  replay *r = &c->r;
  int rc = SQLITE_DONE;
  if (upto >= 0) {
    while ((rc = replay_step(r)) == SQLITE_ROW && r->seq < upto) {}
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return rc;
  }
  for (size_t i = 0; i <= r->live.mask; i++)
    if (r->live.used[i] && (rc = add_live(c, &r->live.slot[i], 1)) != SQLITE_OK) return rc;
  for (size_t i = 0; i < r->shadowed.n; i++)
    if ((rc = add_live(c, &r->shadowed.v[i], 1)) != SQLITE_OK) return rc;
  for (size_t i = 0; i < r->pre_freed.n; i++) {
    const alloc_rec *a = &r->pre_freed.v[i];
    if (upto >= 0 && a->seq <= upto) continue; /* already freed */
    if ((rc = add_live(c, a, 0)) != SQLITE_OK) return rc;
  }
  for (size_t i = 0; i < r->pre_live.n; i++)
    if ((rc = add_live(c, &r->pre_live.v[i], 0)) != SQLITE_OK) return rc;
  if (c->nrows) qsort(c->rows, c->nrows, sizeof *c->rows, cmp_live);
  return SQLITE_OK;
}

/* mem_trace_peak: per device, from the trace's [memory] events. */
static int trace_peak_rows(mem_cursor *c, sqlite3 *db, const char *schema, int64_t trace_id) {
  sqlite3_stmt *st = NULL;
  int empty = 0;
  int rc = prepare_or_empty(
      db,
      "SELECT device_type, device_id, ts, bytes, total_allocated, total_reserved"
      " FROM \"%w\"._instant WHERE trace_id = ?1"
      "  AND kind = (SELECT kind FROM \"%w\"._kind WHERE name = 'memory')"
      " ORDER BY device_type, device_id, ts, id",
      schema, &st, &empty);
  if (rc != SQLITE_OK || empty) return rc;
  sqlite3_bind_int64(st, 1, trace_id);
  mem_row row;
  int have = 0;
  int64_t dtype = 0, did = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t t = sqlite3_column_int64(st, 0), d = sqlite3_column_int64(st, 1);
    int64_t ts = sqlite3_column_int64(st, 2), bytes = sqlite3_column_int64(st, 3);
    int64_t alloc = sqlite3_column_int64(st, 4), reserved = sqlite3_column_int64(st, 5);
    if (!have || t != dtype || d != did) {
      if (have && (rc = add_row(c, &row)) != SQLITE_OK) goto done;
      have = 1;
      dtype = t;
      did = d;
      int64_t before; /* allocated before the first event: its bytes undone */
      if (__builtin_sub_overflow(alloc, bytes, &before)) {
        sqlite3_snprintf((int)sizeof c->r.err, c->r.err,
                         "Total Allocated %lld minus Bytes %lld overflows 64 bits in a [memory]"
                         " event of trace %lld at ts %lld",
                         (long long)alloc, (long long)bytes, (long long)trace_id,
                         (long long)ts);
        rc = SQLITE_RANGE;
        break;
      }
      row = (mem_row){{[TP_DEVICE_TYPE] = t,
                       [TP_DEVICE_ID] = d,
                       [TP_PEAK_ALLOCATED] = alloc,
                       [TP_PEAK_TS] = ts,
                       [TP_PEAK_RESERVED] = reserved,
                       [TP_BASELINE] = before,
                       [TP_END_ALLOCATED] = alloc,
                       [TP_EVENTS] = 0},
                      0,
                      NULL};
    }
    if (alloc > row.v[TP_PEAK_ALLOCATED]) {
      row.v[TP_PEAK_ALLOCATED] = alloc;
      row.v[TP_PEAK_TS] = ts;
    }
    if (reserved > row.v[TP_PEAK_RESERVED]) row.v[TP_PEAK_RESERVED] = reserved;
    row.v[TP_END_ALLOCATED] = alloc;
    row.v[TP_EVENTS]++;
  }
  if (rc != SQLITE_DONE) goto done;
  rc = have ? add_row(c, &row) : SQLITE_OK;
done:
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int arg_error(mem_vtab *v, const char *what) {
  sqlite3_free(v->base.zErrMsg);
  v->base.zErrMsg = sqlite3_mprintf("%s(): %s", kinds[v->kind].name, what);
  return SQLITE_ERROR;
}

static int mem_filter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc,
                      sqlite3_value **argv) {
  (void)idxStr;
  mem_cursor *c = (mem_cursor *)cur;
  mem_vtab *v = (mem_vtab *)cur->pVtab;
  int nargs = kinds[v->kind].nargs;
  cursor_reset(c);
  c->rowid = 0;
  const char *schema = "main";
  if (idxNum & (1 << nargs)) { /* the optional schema: the last argument */
    if (sqlite3_value_type(argv[argc - 1]) != SQLITE_TEXT)
      return arg_error(v, "the schema argument must be a database name");
    schema = (const char *)sqlite3_value_text(argv[argc - 1]);
    argc--;
  }
  if ((idxNum & ((1 << nargs) - 1)) != (1 << nargs) - 1 || argc != nargs)
    return arg_error(v, v->kind == K_TRACE_PEAK ? "trace_id is required"
                        : v->kind == K_LIVE_AT  ? "snapshot_id, device and seq are required"
                                                : "snapshot_id and device are required");
  int64_t a[3];
  for (int i = 0; i < argc; i++) {
    int t = sqlite3_value_numeric_type(argv[i]);
    if (t == SQLITE_NULL) return SQLITE_OK; /* no rows */
    if (t != SQLITE_INTEGER) {
      static const char *const names[][3] = {[K_TIMELINE] = {"snapshot_id", "device"},
                                             [K_PEAK] = {"snapshot_id", "device"},
                                             [K_LIVE_AT] = {"snapshot_id", "device", "seq"},
                                             [K_TRACE_PEAK] = {"trace_id"}};
      char msg[128];
      sqlite3_snprintf(sizeof msg, msg, "%s argument (%s) must be an integer",
                       profdb_ext_ordinal(i + 1), names[v->kind][i]);
      return arg_error(v, msg);
    }
    a[i] = sqlite3_value_int64(argv[i]);
  }
  int rc, empty = 0;
  if (v->kind == K_TRACE_PEAK) {
    rc = trace_peak_rows(c, v->db, schema, a[0]);
  } else {
    c->r.db = v->db;
    c->r.schema = schema;
    c->r.snapshot = a[0];
    c->r.device = a[1];
    rc = replay_prepare(&c->r, &empty);
    if (rc == SQLITE_OK && !empty) {
      rc = replay_start(&c->r);
      if (rc == SQLITE_OK) {
        if (v->kind == K_TIMELINE) {
          c->streaming = 1;
          c->eof = 0;
          return cur->pVtab->pModule->xNext(cur);
        }
        /* mem_peak of an unknown snapshot/device: no rows */
        if (v->kind == K_PEAK && !c->r.events && !c->r.baseline && !c->r.reserved_before) {
          c->eof = 1;
          return SQLITE_OK;
        }
        rc = v->kind == K_PEAK ? peak_rows(c) : live_rows(c, a[2]);
      }
    }
  }
  if (rc != SQLITE_OK) {
    sqlite3_free(v->base.zErrMsg);
    v->base.zErrMsg = sqlite3_mprintf("%s(): %s", kinds[v->kind].name,
                                      c->r.err[0] ? c->r.err : sqlite3_errmsg(v->db));
    return rc == SQLITE_RANGE ? SQLITE_ERROR : rc;
  }
  c->eof = c->nrows == 0;
  return SQLITE_OK;
}

static int mem_next(sqlite3_vtab_cursor *cur) {
  mem_cursor *c = (mem_cursor *)cur;
  c->rowid++;
  if (c->streaming) {
    int rc = replay_step(&c->r);
    if (rc == SQLITE_ROW) {
      timeline_row(c);
      return SQLITE_OK;
    }
    c->eof = 1;
    if (rc == SQLITE_DONE) return SQLITE_OK;
    mem_vtab *v = (mem_vtab *)cur->pVtab;
    sqlite3_free(v->base.zErrMsg);
    v->base.zErrMsg =
        sqlite3_mprintf("mem_timeline(): %s", c->r.err[0] ? c->r.err : sqlite3_errmsg(v->db));
    return rc == SQLITE_RANGE ? SQLITE_ERROR : rc;
  }
  if (++c->pos >= c->nrows) c->eof = 1;
  return SQLITE_OK;
}

static int mem_eof(sqlite3_vtab_cursor *cur) {
  return ((mem_cursor *)cur)->eof;
}

static int mem_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  mem_cursor *c = (mem_cursor *)cur;
  int nvis = kinds[c->kind].nvisible;
  if (col >= nvis) return SQLITE_OK; /* hidden arguments: not echoed */
  const mem_row *row = c->streaming ? &c->cur : &c->rows[c->pos];
  if (row->null_mask & NULL_BIT(col)) return SQLITE_OK;
  if (c->kind == K_TIMELINE && col == TL_ACTION) {
    sqlite3_result_text(ctx, row->text, -1, SQLITE_STATIC);
    return SQLITE_OK;
  }
  sqlite3_result_int64(ctx, row->v[col]);
  return SQLITE_OK;
}

static int mem_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = ((mem_cursor *)cur)->rowid;
  return SQLITE_OK;
}

static sqlite3_module mem_module = {
    /* iVersion    */ 0,
    /* xCreate     */ NULL, /* eponymous-only: SELECT * FROM mem_peak(1, 0) */
    /* xConnect    */ mem_connect,
    /* xBestIndex  */ mem_best_index,
    /* xDisconnect */ mem_disconnect,
    /* xDestroy    */ NULL,
    /* xOpen       */ mem_open,
    /* xClose      */ mem_close,
    /* xFilter     */ mem_filter,
    /* xNext       */ mem_next,
    /* xEof        */ mem_eof,
    /* xColumn     */ mem_column,
    /* xRowid      */ mem_rowid,
    /* xUpdate     */ NULL,
    /* xBegin      */ NULL,
    /* xSync       */ NULL,
    /* xCommit     */ NULL,
    /* xRollback   */ NULL,
    /* xFindMethod */ NULL,
    /* xRename     */ NULL,
    /* xSavepoint  */ NULL,
    /* xRelease    */ NULL,
    /* xRollbackTo */ NULL,
    /* xShadowName */ NULL,
};

int profdb_memreplay_init(sqlite3 *db) {
  for (int k = K_TIMELINE; k <= K_TRACE_PEAK; k++) {
    int rc = sqlite3_create_module(db, kinds[k].name, &mem_module, (void *)(intptr_t)k);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

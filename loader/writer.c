/*
** writer.c — batch queue and SQLite inserter (see writer.h).
**
** HOW IT WORKS
**   A fixed pool of POOL batches circulates between the producer (parser)
**   and the consumer (writer thread).  The producer fills `cur`; when it is
**   large enough it is queued and the producer takes a free batch, waiting
**   if all are in flight.  So at most POOL * ~BATCH_BYTES of rows exist at
**   once, whatever the input size (Requirement: memory flat in events).
**   With threads <= 1 batches are written inline by the producer.
*/
#include "writer.h"

#include "clock.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL 4
#define BATCH_BYTES (512 * 1024)

/* The storage table of each ld_table, and its columns in the DDL's order
** (loader/schema_*.sql, the one definition) as the column ids were
** generated from them (profdb_columns.h): the statement checks the table
** as created against them once, then binds each value by its id. */
static const struct {
  const char *name;
  const char *columns;
} table_def[TB__COUNT] = {
    [TB_STRING] = {"_string", COLS_STRING},
    [TB_SLICE] = {"_slice", COLS_SLICE},
    [TB_GPU] = {"_gpu", COLS_GPU},
    [TB_INSTANT] = {"_instant", COLS_INSTANT},
    [TB_FLOW] = {"_flow", COLS_FLOW},
    [TB_META] = {"_meta", COLS_META},
    [TB_LOG] = {"import_log", COLS_IMPORT_LOG},
    [TB_SEGMENT] = {"_segment", COLS_SEGMENT},
    [TB_BLOCK] = {"_block", COLS_BLOCK},
    [TB_BLOCK_HISTORY] = {"_block_history", COLS_BLOCK_HISTORY},
    [TB_ALLOC_EVENT] = {"_alloc_event", COLS_ALLOC_EVENT},
    [TB_STACK_FRAME] = {"_stack_frame", COLS_STACK_FRAME},
    [TB_ANNOTATION] = {"annotation", COLS_ANNOTATION},
    [TB_FLOW_END] = {"(flow sort)", ""},
};

struct ld_writer {
  sqlite3 *db;                   /* connection (owned by the caller) */
  sqlite3_stmt *stmt[TB__COUNT]; /* prepared lazily, per table */
  ld_sink_fn sink[TB__COUNT];    /* tables whose rows go to a function */
  void *sink_arg[TB__COUNT];
  const char *sink_why[TB__COUNT]; /* its failure, in words */
  int threaded;                    /* a writer thread runs */
  pthread_t thread;                /* the writer thread */
  pthread_mutex_t mu;              /* guards everything below */
  pthread_cond_t cv;               /* signalled on every state change */
  ld_buf pool[POOL];               /* the batches */
  ld_buf *queue[POOL];             /* full batches, oldest first */
  int queued;                      /* batches in queue */
  ld_buf *free_list[POOL];         /* empty batches */
  int nfree;                       /* batches in free_list */
  int busy;                        /* the thread is writing a batch */
  int stopping;                    /* writer_stop() called */
  ld_buf *cur;                     /* batch the producer fills */
  int failed;                      /* an insert failed */
  char error[512];                 /* why */
  uint64_t rows;                   /* rows written */
  double producer_wait;            /* seconds the producer waited for a free
                                  ** batch (the writer was behind) */
  double writer_idle;              /* seconds the thread waited for a batch
                                  ** (the producer was behind) */
  double call_seconds;             /* seconds in writer_call functions */
};

/* INSERT INTO table VALUES(?1, ..., ?n), once the table's columns were
** found to be the ones the column ids stand for: ?k is column id k - 1. */
static sqlite3_stmt *statement(ld_writer *w, ld_table t) {
  if (w->stmt[t]) return w->stmt[t];
  sqlite3_stmt *info = NULL;
  char columns[1024] = "";
  if (sqlite3_prepare_v2(w->db,
                         "SELECT group_concat(name, ',') FROM"
                         " (SELECT name FROM pragma_table_info(?1) ORDER BY cid)",
                         -1, &info, NULL) == SQLITE_OK) {
    sqlite3_bind_text(info, 1, table_def[t].name, -1, SQLITE_STATIC);
    if (sqlite3_step(info) == SQLITE_ROW && sqlite3_column_text(info, 0))
      snprintf(columns, sizeof columns, "%s", (const char *)sqlite3_column_text(info, 0));
  }
  sqlite3_finalize(info);
  if (!columns[0]) {
    snprintf(w->error, sizeof w->error, "cannot prepare the insert into %s: no such table",
             table_def[t].name);
    return NULL;
  }
  if (strcmp(columns, table_def[t].columns)) { /* not the DDL profdb was built with */
    snprintf(w->error, sizeof w->error,
             "internal error: table %s has the columns (%.200s), this profdb writes (%.200s)",
             table_def[t].name, columns, table_def[t].columns);
    return NULL;
  }
  ld_buf sql = {0};
  char head[128];
  int n = snprintf(head, sizeof head, "INSERT INTO %s VALUES(", table_def[t].name);
  ld_buf_put(&sql, head, (size_t)n);
  for (int c = 0; c < ld_table_ncols[t]; c++) ld_buf_put(&sql, c ? ",?" : "?", c ? 2 : 1);
  ld_buf_putc(&sql, ')');
  int rc = sqlite3_prepare_v3(w->db, ld_buf_cstr(&sql), -1, SQLITE_PREPARE_PERSISTENT,
                              &w->stmt[t], NULL);
  ld_buf_free(&sql);
  if (rc != SQLITE_OK) {
    snprintf(w->error, sizeof w->error, "cannot prepare the insert into %s: %s",
             table_def[t].name, sqlite3_errmsg(w->db));
    return NULL;
  }
  return w->stmt[t];
}

/* The call entry at b->p + *i (after its tag): run it.  0, or -1 with
** w->error set. */
static int run_call(ld_writer *w, const ld_buf *b, size_t *i) {
  ld_call_fn fn;
  void *arg;
  memcpy(&fn, b->p + *i, sizeof fn);
  memcpy(&arg, b->p + *i + sizeof fn, sizeof arg);
  *i += sizeof fn + sizeof arg;
  double t0 = ld_seconds();
  int rc = fn(w->db, arg);
  double t = ld_seconds() - t0;
  if (w->threaded) pthread_mutex_lock(&w->mu);
  w->call_seconds += t;
  if (w->threaded) pthread_mutex_unlock(&w->mu);
  if (rc == 0) return 0;
  snprintf(w->error, sizeof w->error, "database error: %s", sqlite3_errmsg(w->db));
  return -1;
}

/* Insert every row of b.  Returns 0, or -1 with w->error set. */
static int write_batch(ld_writer *w, ld_buf *b) {
  size_t i = 0;
  while (i < b->n) {
    unsigned entry = (unsigned char)b->p[i++];
    if (entry == LD_ENTRY_CALL) {
      if (run_call(w, b, &i)) return -1;
      continue;
    }
    ld_table t = (ld_table)entry;
    int ncols = (unsigned char)b->p[i++];
    sqlite3_stmt *own = NULL; /* LD_ENTRY_STMT: the producer's statement */
    if (entry == LD_ENTRY_STMT) {
      memcpy(&own, b->p + i, sizeof own);
      i += sizeof own;
    } else if (t < TB__COUNT && w->sink[t]) { /* one text value */
      uint32_t len;
      memcpy(&len, b->p + i + 1, 4);
      if (w->sink[t](w->sink_arg[t], b->p + i + 5, len)) {
        snprintf(w->error, sizeof w->error, "%s", w->sink_why[t]);
        return -1;
      }
      i += 5 + len;
      continue;
    }
    sqlite3_stmt *st = own ? own : t < TB__COUNT ? statement(w, t) : NULL;
    if (!st) return -1;
    if (!own && ncols != ld_table_ncols[t]) { /* not a row_begin() of this build: a bug */
      snprintf(w->error, sizeof w->error, "internal error: a row for %s is damaged",
               table_def[t].name);
      return -1;
    }
    uint64_t seen = 0; /* the columns given a value */
    for (int v = 0; v < ncols; v++) {
      unsigned tag = (unsigned char)b->p[i++];
      int c = (int)(tag >> 2) + 1; /* the column's parameter */
      seen |= (uint64_t)1 << (tag >> 2);
      switch (tag & 3) {
        case RV_NULL: sqlite3_bind_null(st, c); break;
        case RV_INT: {
          int64_t x;
          memcpy(&x, b->p + i, 8);
          i += 8;
          sqlite3_bind_int64(st, c, x);
          break;
        }
        case RV_REAL: {
          double x;
          memcpy(&x, b->p + i, 8);
          i += 8;
          sqlite3_bind_double(st, c, x);
          break;
        }
        default: {
          uint32_t len;
          memcpy(&len, b->p + i, 4);
          i += 4;
          sqlite3_bind_text(st, c, b->p + i, (int)len, SQLITE_STATIC);
          i += len;
        }
      }
    }
    if (seen != ((uint64_t)1 << ncols) - 1 || i > b->n) { /* a parser bug */
      snprintf(w->error, sizeof w->error,
               "internal error: a row for %s does not give each of its %d columns one value",
               own ? "a derived table" : table_def[t].name, ncols);
      return -1;
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
      snprintf(w->error, sizeof w->error, "cannot insert: %s", sqlite3_errmsg(w->db));
      return -1;
    }
    w->rows++;
  }
  b->n = 0;
  return 0;
}

static void *writer_main(void *arg) {
  ld_writer *w = arg;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    if (!w->queued && !w->stopping) {
      double t0 = ld_seconds();
      while (!w->queued && !w->stopping) pthread_cond_wait(&w->cv, &w->mu);
      w->writer_idle += ld_seconds() - t0;
    }
    if (!w->queued && w->stopping) break;
    ld_buf *b = w->queue[0];
    memmove(w->queue, w->queue + 1, (size_t)(w->queued - 1) * sizeof *w->queue);
    w->queued--;
    w->busy = 1;
    int failed = w->failed;
    pthread_mutex_unlock(&w->mu);
    int rc = failed ? 0 : write_batch(w, b);
    b->n = 0;
    pthread_mutex_lock(&w->mu);
    if (rc) __atomic_store_n(&w->failed, 1, __ATOMIC_RELAXED); /* writer_maybe_flush peeks */
    w->busy = 0;
    w->free_list[w->nfree++] = b;
    pthread_cond_broadcast(&w->cv);
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

ld_writer *writer_start(sqlite3 *db, int threads, char **err) {
  ld_writer *w = calloc(1, sizeof *w);
  if (!w) {
    *err = sqlite3_mprintf("out of memory");
    return NULL;
  }
  w->db = db;
  for (int i = 0; i < POOL; i++) w->free_list[w->nfree++] = &w->pool[i];
  w->cur = w->free_list[--w->nfree];
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  if (threads > 1) {
    if (pthread_create(&w->thread, NULL, writer_main, w) == 0) w->threaded = 1;
  }
  return w;
}

void writer_call(ld_writer *w, ld_call_fn fn, void *arg) {
  ld_buf *b = w->cur;
  ld_buf_reserve(b, 1 + sizeof fn + sizeof arg);
  b->p[b->n++] = (char)LD_ENTRY_CALL;
  memcpy(b->p + b->n, &fn, sizeof fn);
  memcpy(b->p + b->n + sizeof fn, &arg, sizeof arg);
  b->n += sizeof fn + sizeof arg;
}

void writer_sink(ld_writer *w, ld_table t, ld_sink_fn fn, void *arg, const char *why) {
  w->sink[t] = fn;
  w->sink_arg[t] = arg;
  w->sink_why[t] = why;
}

ld_buf *writer_batch(ld_writer *w) {
  return w->cur;
}

/* Queue cur and take a free batch (threaded), or write cur inline. */
static int submit(ld_writer *w) {
  if (!w->threaded) {
    if (w->failed) return -1;
    if (write_batch(w, w->cur)) {
      w->failed = 1;
      return -1;
    }
    return 0;
  }
  pthread_mutex_lock(&w->mu);
  w->queue[w->queued++] = w->cur;
  pthread_cond_broadcast(&w->cv);
  if (!w->nfree) {
    double t0 = ld_seconds();
    while (!w->nfree) pthread_cond_wait(&w->cv, &w->mu);
    w->producer_wait += ld_seconds() - t0;
  }
  w->cur = w->free_list[--w->nfree];
  int failed = w->failed;
  pthread_mutex_unlock(&w->mu);
  return failed ? -1 : 0;
}

int writer_maybe_flush(ld_writer *w) {
  /* per row: a peek without the lock (the writer thread stores it atomically) */
  if (w->cur->n < BATCH_BYTES) return __atomic_load_n(&w->failed, __ATOMIC_RELAXED) ? -1 : 0;
  return submit(w);
}

int writer_flush(ld_writer *w) {
  if (w->cur->n) return submit(w);
  return __atomic_load_n(&w->failed, __ATOMIC_RELAXED) ? -1 : 0;
}

int writer_sync(ld_writer *w) {
  if (w->cur->n && submit(w)) return -1;
  if (w->threaded) {
    pthread_mutex_lock(&w->mu);
    while (w->queued || w->busy) pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
  }
  return w->failed ? -1 : 0;
}

void writer_stop(ld_writer *w) {
  if (!w) return;
  if (w->threaded) {
    pthread_mutex_lock(&w->mu);
    w->stopping = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
  }
  for (int t = 0; t < TB__COUNT; t++) sqlite3_finalize(w->stmt[t]);
  for (int i = 0; i < POOL; i++) ld_buf_free(&w->pool[i]);
  pthread_mutex_destroy(&w->mu);
  pthread_cond_destroy(&w->cv);
  free(w);
}

void writer_set_error(ld_writer *w, const char *why) {
  if (w->threaded) pthread_mutex_lock(&w->mu);
  if (!w->failed) snprintf(w->error, sizeof w->error, "%s", why);
  __atomic_store_n(&w->failed, 1, __ATOMIC_RELAXED);
  if (w->threaded) pthread_mutex_unlock(&w->mu);
}

const char *writer_error(const ld_writer *w) {
  return w->failed ? w->error : NULL;
}

uint64_t writer_rows(const ld_writer *w) {
  return w->rows;
}

void writer_waits(ld_writer *w, double *producer_wait, double *writer_idle,
                  double *call_seconds) {
  pthread_mutex_lock(&w->mu);
  *producer_wait = w->producer_wait;
  *writer_idle = w->writer_idle;
  *call_seconds = w->call_seconds;
  pthread_mutex_unlock(&w->mu);
}

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

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL 4
#define BATCH_BYTES (512 * 1024)

/* One INSERT per table, in ld_table order.  Column order is the order the
** parsers encode values in. */
static const char *const insert_sql[TB__COUNT] = {
  [TB_STRING] = "INSERT INTO _string(id, value) VALUES(?,?)",
  [TB_SLICE] = "INSERT INTO _slice(id, trace_id, kind, cat_id, raw_cat_id,"
               " name_id, pid, tid, ts, dur, external_id, correlation,"
               " seq_num, fwd_tid, ev_idx, input_dims, input_types, cbid,"
               " python_id, python_parent_id, record_fn_id, input_strides,"
               " concrete_inputs, kernel_id, args, extra)"
               " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
  [TB_GPU] = "INSERT INTO _gpu(id, trace_id, kind, cat_id, raw_cat_id,"
             " name_id, pid, tid, ts, dur, device, stream, correlation,"
             " external_id, grid_x, grid_y, grid_z, block_x, block_y,"
             " block_z, registers, shared_memory, blocks_per_sm,"
             " warps_per_sm, occupancy_pct, bytes, bandwidth_gbps, args,"
             " extra) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
             "?,?,?,?,?)",
  [TB_INSTANT] = "INSERT INTO _instant(id, trace_id, kind, ph, cat_id,"
                 " raw_cat_id, name_id, pid, tid, ts, dur, scope, addr,"
                 " bytes, total_allocated, total_reserved, device_type,"
                 " device_id, args, extra)"
                 " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
  [TB_FLOW] = "INSERT INTO _flow(id, trace_id, ph, cat_id, raw_cat_id,"
              " name_id, pid, tid, ts, flow_id, bp, args, extra)"
              " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
  [TB_META] = "INSERT INTO _meta(id, trace_id, name_id, pid, tid, ts, args,"
              " extra) VALUES(?,?,?,?,?,?,?,?)",
  [TB_LOG] = "INSERT INTO import_log(artifact_id, file, offset, severity,"
             " code, message) VALUES(?,?,?,?,?,?)",
  [TB_SEGMENT] = "INSERT INTO _segment(id, snapshot_id, device, address,"
                 " total_size, allocated_size, active_size, requested_size,"
                 " stream, segment_type, pool_id, is_expandable, stack_id,"
                 " extra) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
  [TB_BLOCK] = "INSERT INTO _block(id, segment_id, snapshot_id, position,"
               " address, size, requested_size, state, stack_id, extra)"
               " VALUES(?,?,?,?,?,?,?,?,?,?)",
  [TB_BLOCK_HISTORY] = "INSERT INTO _block_history(block_id, position, addr,"
                       " real_size, stack_id, extra) VALUES(?,?,?,?,?,?)",
  [TB_ALLOC_EVENT] = "INSERT INTO _alloc_event(id, snapshot_id, device, seq,"
                     " action, addr, size, stream, time_us, stack_id,"
                     " device_free, compile_context, user_metadata, extra)"
                     " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
  [TB_STACK_FRAME] = "INSERT INTO _stack_frame(stack_id, depth, filename_id,"
                     " line, name_id, extra) VALUES(?,?,?,?,?,?)",
  [TB_ANNOTATION] = "INSERT INTO annotation(snapshot_id, seq, device, stage,"
                    " name, time_us, extra) VALUES(?,?,?,?,?,?,?)",
};

struct ld_writer {
  sqlite3 *db;                    /* connection (owned by the caller) */
  sqlite3_stmt *stmt[TB__COUNT];  /* prepared lazily, per table */
  int threaded;                   /* a writer thread runs */
  pthread_t thread;               /* the writer thread */
  pthread_mutex_t mu;             /* guards everything below */
  pthread_cond_t cv;              /* signalled on every state change */
  ld_buf pool[POOL];              /* the batches */
  ld_buf *queue[POOL];            /* full batches, oldest first */
  int queued;                     /* batches in queue */
  ld_buf *free_list[POOL];        /* empty batches */
  int nfree;                      /* batches in free_list */
  int busy;                       /* the thread is writing a batch */
  int stopping;                   /* writer_stop() called */
  ld_buf *cur;                    /* batch the producer fills */
  int failed;                     /* an insert failed */
  char error[512];                /* why */
  uint64_t rows;                  /* rows written */
};

static sqlite3_stmt *statement(ld_writer *w, ld_table t) {
  if (!w->stmt[t]) {
    if (sqlite3_prepare_v3(w->db, insert_sql[t], -1, SQLITE_PREPARE_PERSISTENT,
                           &w->stmt[t], NULL) != SQLITE_OK) {
      snprintf(w->error, sizeof w->error, "cannot prepare insert: %s",
               sqlite3_errmsg(w->db));
      return NULL;
    }
  }
  return w->stmt[t];
}

/* Insert every row of b.  Returns 0, or -1 with w->error set. */
static int write_batch(ld_writer *w, ld_buf *b) {
  size_t i = 0;
  while (i < b->n) {
    ld_table t = (ld_table)(unsigned char)b->p[i++];
    int ncols = (unsigned char)b->p[i++];
    sqlite3_stmt *st = t < TB__COUNT ? statement(w, t) : NULL;
    if (!st) return -1;
    for (int c = 1; c <= ncols; c++) {
      int tag = b->p[i++];
      switch (tag) {
      case RV_NULL: sqlite3_bind_null(st, c); break;
      case RV_INT: {
        int64_t v;
        memcpy(&v, b->p + i, 8);
        i += 8;
        sqlite3_bind_int64(st, c, v);
        break;
      }
      case RV_REAL: {
        double v;
        memcpy(&v, b->p + i, 8);
        i += 8;
        sqlite3_bind_double(st, c, v);
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
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
      snprintf(w->error, sizeof w->error, "cannot insert: %s",
               sqlite3_errmsg(w->db));
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
    while (!w->queued && !w->stopping) pthread_cond_wait(&w->cv, &w->mu);
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
    if (rc) w->failed = 1;
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

ld_buf *writer_batch(ld_writer *w) { return w->cur; }

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
  while (!w->nfree) pthread_cond_wait(&w->cv, &w->mu);
  w->cur = w->free_list[--w->nfree];
  int failed = w->failed;
  pthread_mutex_unlock(&w->mu);
  return failed ? -1 : 0;
}

int writer_maybe_flush(ld_writer *w) {
  if (w->cur->n < BATCH_BYTES) return w->failed ? -1 : 0;
  return submit(w);
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

const char *writer_error(const ld_writer *w) {
  return w->failed ? w->error : NULL;
}

uint64_t writer_rows(const ld_writer *w) { return w->rows; }

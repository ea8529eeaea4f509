/*
** snapshot_stacks.c — Requirement 1 of snapshot.c: stacks are interned.  A
** frames list is reduced to a key of (filename id, line, name id, extra)
** per frame; identical keys get one stack id and their frames are written
** once, also across loads (the keys of the stored stacks seed the table).
*/
#include "snapshot_parser.h"

#include <string.h>

#define NO_LINE INT64_MIN

/* Append the finished frame to the list's key: filename id, line, name id
** (-1 / NO_LINE when absent), then the length and text of its extra keys. */
void snapshot_frame_done(sparser *p) {
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
int64_t snapshot_frames_done(sparser *p) {
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

/* Rebuild the keys of stored stacks so identical frame lists in this load
** reuse their ids. */
int snapshot_seed_stacks(ld_ctx *ctx, ld_intern *stacks) {
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

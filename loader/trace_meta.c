/*
** trace_meta.c — what names and describes a trace rather than timing it:
** M events (_meta), the top-level metadata keys (trace_metadata), and the
** distinct (pid, tid) pairs behind the process and thread tables.
*/
#include "trace_parser.h"
#include "oom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void trace_emit_meta(tparser *p, int64_t id) {
  tevent *ev = &p->ev;
  ld_buf *b = writer_batch(p->ctx->w);
  trace_spill_targs(ev, 0);
  trace_spill_id(ev);
  trace_spill_text(ev, "bp", ev->has_bp, ev->bp_off, ev->bp_len);
  trace_spill_text(ev, "s", ev->has_s, ev->s_off, ev->s_len);
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

void trace_push_meta(tparser *p, uint32_t key_off, uint32_t key_len) {
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
void trace_note_pair(tparser *p) {
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
int trace_write_threads(tparser *p) {
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

int trace_write_metadata(tparser *p) {
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

/*
** snapshot_rows.c — a finished snapshot object becomes its row: _segment,
** _block, block history, _alloc_event (the action as its code) and
** annotations.  Segment extents are kept for the check, at the end, that
** no two segments of one device overlap.
*/
#include "snapshot_parser.h"
#include "oom.h"

#include "profdb/codes.h"

#include <stdlib.h>
#include <string.h>

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
void snapshot_seg_overlaps(sparser *p) {
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

void snapshot_emit_segment(sparser *p) {
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

void snapshot_emit_block(sparser *p) {
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

void snapshot_emit_hist(sparser *p) {
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

void snapshot_emit_entry(sparser *p) {
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

void snapshot_emit_annotation(sparser *p) {
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

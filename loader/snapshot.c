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
**
** The parser's parts, one concern each, are listed in snapshot_parser.h;
** this file runs the parse and writes the snapshot's own rows at its end.
*/
#include "snapshot_parser.h"
#include "clock.h"
#include "numtext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void obj_free(sobj *o) {
  ld_buf_free(&o->text);
  ld_buf_free(&o->extra);
  jw_free(&o->extra_w);
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
  snapshot_seg_overlaps(p);
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
  /* The seed below reads the database: the writer thread must be idle,
  ** not finishing the trace before this file (loader/queued.c). */
  if (writer_sync(ctx->w)) {
    free(p);
    return ld_fail(f, PROFDB_EXIT_USAGE, 0, "%s", writer_error(ctx->w)), -1;
  }
  if (!ctx->stacks) {
    ctx->stacks = intern_new();
    if (snapshot_seed_stacks(ctx, ctx->stacks)) {
      free(p);
      return ld_fail(f, PROFDB_EXIT_USAGE, 0, "database error: %s",
                     sqlite3_errmsg(ctx->existing)),
             -1;
    }
  }
  p->stacks = ctx->stacks;
  int rc = snapshot_parse(p);
  if (rc == 1) {
    /* A segment cut short keeps what was read, so its blocks have a row. */
    for (int i = 0; i < p->depth; i++)
      if (p->stack[i] == C_SEGMENT) {
        extra_key(&p->seg, "truncated", 9);
        jw_raw(&p->seg.extra_w, "true", 4);
        snapshot_emit_segment(p);
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

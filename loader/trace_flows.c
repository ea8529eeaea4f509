/*
** trace_flows.c — flow events (ph s, t, f) become _flow rows; starts and
** finishes also go to the unmatched-flow counts (flows.h).
*/
#include "trace_parser.h"
#include "flows.h"

#include <stdio.h>
#include <string.h>

/* Send a flow start or finish to the unmatched-flow count (flows.h),
** through the writer thread; a text id leaves the trace to SQL. */
static void gather_flow_end(tparser *p) {
  const tevent *ev = &p->ev;
  if (ev->id.type == 't') {
    flows_by_sql(p->ctx->flows, p->f->artifact_id);
    return;
  }
  flow_end e;
  memset(&e, 0, sizeof e); /* the padding too: the record is copied as bytes */
  e.trace_id = p->f->artifact_id;
  e.cat_id = ev->raw_cat_id >= 0 ? ev->cat_id : -1;
  e.has_id = ev->id.type == 'i';
  e.id = e.has_id ? ev->id.i : 0;
  e.ph = (uint8_t)ev->ph;
  ld_buf *b = writer_batch(p->ctx->w);
  row_begin(b, TB_FLOW_END);
  row_text(b, 0, (const char *)&e, sizeof e);
}

void trace_emit_flow(tparser *p, int64_t id) {
  tevent *ev = &p->ev;
  ld_buf *b = writer_batch(p->ctx->w);
  if (ev->ts.state != 'v')
    ld_note(p->f, PROFDB_STAT_event_missing_ts, "flow event without a usable ts");
  trace_spill_targs(ev, 0);
  trace_spill_text(ev, "s", ev->has_s, ev->s_off, ev->s_len);
  if (ev->dur.state == 'v') { /* flows have no duration; keep it anyway */
    extra_member(ev, "dur_ns", 6);
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%lld", (long long)ev->dur.ns);
    jw_raw(&ev->extra_w, tmp, (size_t)n);
  }
  p->flows++;
  if (ev->ph == 's' || ev->ph == 'f') gather_flow_end(p);
  char ph[1] = {ev->ph};
  row_begin(b, TB_FLOW);
  row_int(b, COL_FLOW_ID, id);
  row_int(b, COL_FLOW_TRACE_ID, p->f->artifact_id);
  row_text(b, COL_FLOW_PH, ph, 1);
  col_id(b, COL_FLOW_CAT_ID, ev->raw_cat_id >= 0 ? ev->cat_id : -1);
  col_id(b, COL_FLOW_RAW_CAT_ID, ev->raw_cat_id);
  col_id(b, COL_FLOW_NAME_ID, ev->name_id);
  col_val(b, COL_FLOW_PID, ev, &ev->pid);
  col_val(b, COL_FLOW_TID, ev, &ev->tid);
  col_time(b, COL_FLOW_TS, &ev->ts);
  col_val(b, COL_FLOW_FLOW_ID, ev, &ev->id);
  if (ev->has_bp)
    row_text(b, COL_FLOW_BP, ev->raw.p + ev->bp_off, ev->bp_len);
  else
    row_null(b, COL_FLOW_BP);
  col_obj(b, COL_FLOW_ARGS, &ev->args, &ev->args_w);
  col_obj(b, COL_FLOW_EXTRA, &ev->extra, &ev->extra_w);
}

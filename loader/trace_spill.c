/*
** trace_spill.c — what a row's table has no column for, kept: typed args
** back into the row's args JSON, the id, bp and s keys into its extra
** JSON, so nothing is dropped.  The rows of every event table
** (trace_events.c, trace_gpu.c, trace_flows.c, trace_meta.c) call these.
*/
#include "trace_parser.h"

#include <stdio.h>
#include <string.h>

/* Typed args the destination table has no column for go back to args. */
void trace_spill_targs(tevent *ev, uint32_t accepted) {
  uint32_t spill = ev->targ_mask & ~accepted;
  for (int t = 0; spill; t++) {
    if (!(spill & TA_BIT(t))) continue;
    spill &= ~TA_BIT(t);
    const tslot *sl = &ev->targs[t];
    args_member(ev, targ_keys[sl->key].key, targ_keys[sl->key].len);
    jw_raw(&ev->args_w, ev->raw.p + sl->raw_off, sl->raw_len);
  }
  ev->targ_mask &= accepted;
}

/* Keys a table has no column for (id, bp, s) go to extra. */
void trace_spill_text(tevent *ev, const char *key, int has, uint32_t off, uint32_t len) {
  if (!has) return;
  extra_member(ev, key, strlen(key));
  jw_string(&ev->extra_w, ev->raw.p + off, len);
}
void trace_spill_id(tevent *ev) {
  if (!ev->id.type) return;
  extra_member(ev, "id", 2);
  if (ev->id.type == 'i') {
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%lld", (long long)ev->id.i);
    jw_raw(&ev->extra_w, tmp, (size_t)n);
  } else {
    jw_string(&ev->extra_w, ev->raw.p + ev->id.off, ev->id.len);
  }
}

/*
** trace_gpu.c — X events of a GPU kind (kernels, memcpy, memset, GPU
** annotations and syncs) become _gpu rows: device and stream, launch
** geometry and the kernel's figures from its typed args.
*/
#include "trace_parser.h"

/* The typed args _gpu has columns for. */
static const uint32_t gpu_targs =
    TA_BIT(TA_DEVICE) | TA_BIT(TA_STREAM) | TA_BIT(TA_CORRELATION) | TA_BIT(TA_EXTERNAL_ID) |
    TA_BIT(TA_GRID) | TA_BIT(TA_BLOCK) | TA_BIT(TA_REGISTERS) | TA_BIT(TA_SHMEM) |
    TA_BIT(TA_BLOCKS_PER_SM) | TA_BIT(TA_WARPS_PER_SM) | TA_BIT(TA_OCCUPANCY) |
    TA_BIT(TA_BYTES) | TA_BIT(TA_BANDWIDTH);

/* An X event of a GPU kind: a _gpu row. */
void trace_gpu_row(tparser *p, int64_t id, int kind, int64_t cat) {
  tevent *ev = &p->ev;
  ld_buf *b = writer_batch(p->ctx->w);
  trace_spill_targs(ev, gpu_targs);
  row_begin(b, TB_GPU);
  row_int(b, COL_GPU_ID, id);
  row_int(b, COL_GPU_TRACE_ID, p->f->artifact_id);
  row_int(b, COL_GPU_KIND, kind);
  col_id(b, COL_GPU_CAT_ID, cat);
  col_id(b, COL_GPU_RAW_CAT_ID, ev->raw_cat_id);
  col_id(b, COL_GPU_NAME_ID, ev->name_id);
  col_val(b, COL_GPU_PID, ev, &ev->pid);
  col_val(b, COL_GPU_TID, ev, &ev->tid);
  col_time(b, COL_GPU_TS, &ev->ts);
  col_time(b, COL_GPU_DUR, &ev->dur);
  /* device/stream: args first, else pid/tid (GPU rows: pid = device). */
  if (has_targ(ev, TA_DEVICE))
    row_int(b, COL_GPU_DEVICE, ev->targs[TA_DEVICE].i);
  else if (ev->pid.type == 'i')
    row_int(b, COL_GPU_DEVICE, ev->pid.i);
  else
    row_null(b, COL_GPU_DEVICE);
  if (has_targ(ev, TA_STREAM))
    row_int(b, COL_GPU_STREAM, ev->targs[TA_STREAM].i);
  else if (ev->tid.type == 'i')
    row_int(b, COL_GPU_STREAM, ev->tid.i);
  else
    row_null(b, COL_GPU_STREAM);
  col_int(b, COL_GPU_CORRELATION, ev, TA_CORRELATION);
  col_int(b, COL_GPU_EXTERNAL_ID, ev, TA_EXTERNAL_ID);
  static const int grid_cols[2][3] = {{COL_GPU_GRID_X, COL_GPU_GRID_Y, COL_GPU_GRID_Z},
                                      {COL_GPU_BLOCK_X, COL_GPU_BLOCK_Y, COL_GPU_BLOCK_Z}};
  for (int t = TA_GRID; t <= TA_BLOCK; t++) {
    const int *c = grid_cols[t - TA_GRID];
    if (has_targ(ev, (targ)t)) {
      row_int(b, c[0], ev->targs[t].i);
      row_int(b, c[1], ev->targs[t].y);
      row_int(b, c[2], ev->targs[t].z);
    } else {
      row_null(b, c[0]);
      row_null(b, c[1]);
      row_null(b, c[2]);
    }
  }
  col_int(b, COL_GPU_REGISTERS, ev, TA_REGISTERS);
  col_int(b, COL_GPU_SHARED_MEMORY, ev, TA_SHMEM);
  col_real(b, COL_GPU_BLOCKS_PER_SM, ev, TA_BLOCKS_PER_SM);
  col_real(b, COL_GPU_WARPS_PER_SM, ev, TA_WARPS_PER_SM);
  col_real(b, COL_GPU_OCCUPANCY_PCT, ev, TA_OCCUPANCY);
  col_int(b, COL_GPU_BYTES, ev, TA_BYTES);
  col_real(b, COL_GPU_BANDWIDTH_GBPS, ev, TA_BANDWIDTH);
  col_obj(b, COL_GPU_ARGS, &ev->args, &ev->args_w);
  col_obj(b, COL_GPU_EXTRA, &ev->extra, &ev->extra_w);
}

/*
** export_memviz.h — `profdb export --format memory_viz`: a window of a
** loaded CUDA memory snapshot (a range of its allocator events) as a file
** that PyTorch's memory viewer (pytorch.org/memory_viz, torch/cuda/
** _memory_viz.py) opens: a pickle, or the same structure as JSON (module
** prefix em_).
**
** The file is a snapshot dict as torch.cuda.memory._snapshot() returns it,
** cut to the window: "device_traces" holds the window's events, "segments"
** the segments and blocks as they stood after its last event (a snapshot
** taken at the window's end: the viewer works back from it to the window's
** start), plus "external_annotations" inside the window and "profdb_window"
** (what was cut).  The pickle holds only dict, list, str, int, float, bool
** and None; docs/export.md documents it.
*/
#ifndef PROFDB_EXPORT_MEMVIZ_H
#define PROFDB_EXPORT_MEMVIZ_H

#include <sqlite3.h>
#include <stdint.h>

/* Version of the window's layout, in its "profdb_window" key. */
#define EM_EXPORT_VERSION 1

typedef struct em_options {
  const char *out;          /* output file; "-" = stdout */
  int json;                 /* 1: JSON, 0: pickle */
  const char *snapshot;     /* --snapshot ID|LABEL, or NULL: the only one */
  int have_device;          /* --device given */
  long long device;         /* --device D */
  int have_from, have_to;   /* --from / --to given */
  long long from_ns, to_ns; /* the window's edges (ns since the epoch) */
  int from_rel, to_rel;     /* 1: relative to the device's first event */
  int at_peak;              /* --at-peak: the events around mem_peak's peak */
  long long around;         /* --around N: events kept each side of the peak */
} em_options;

typedef struct em_result {
  int64_t snapshot_id, device;
  int64_t first_seq, last_seq; /* the window's events (seq, inclusive) */
  int64_t events;              /* events written */
  int64_t segments, blocks;    /* segments and blocks written */
  int64_t orphans;             /* live allocations in no segment (not written) */
  int64_t bytes;               /* bytes written */
  char label[256];             /* the snapshot's label */
  int retryable;               /* the failure was an I/O error a retry may cure */
} em_result;

/* Write the window.  0, or -1 with the reason printed as
** "profdb: export: ...". */
int em_export(sqlite3 *db, const em_options *o, em_result *res);

#endif

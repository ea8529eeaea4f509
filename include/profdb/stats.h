/*
** stats.h — every counter the loader keeps about unusual input.
**
** One X-macro list generates the enum, the names written to the
** import_stats table and their descriptions, so the three cannot drift
** apart.  Severity: INFO (normal variation between PyTorch versions),
** WARN (something was repaired or could not be typed; the raw value is
** kept), ERROR (data could not be kept).
**
**   X(name, severity, description)
*/
#ifndef PROFDB_STATS_H
#define PROFDB_STATS_H

#define PROFDB_STATS(X)                                                                        \
  /* ---- traces ---- */                                                                       \
  X(trace_events, INFO, "elements of traceEvents read")                                        \
  X(event_not_object, WARN, "traceEvents elements that are not objects, kept as instants")     \
  X(event_missing_ph, WARN, "events without ph, kept as instants")                             \
  X(event_unknown_phase, INFO, "events whose ph is not X/i/I/s/t/f/M/C, kept as instants")     \
  X(event_missing_ts, WARN, "events without a usable ts (ts is NULL)")                         \
  X(event_missing_dur, WARN, "X events without a usable dur (dur is NULL)")                    \
  X(time_out_of_range, WARN, "ts/dur values beyond +-9.2e18 ns; raw text kept in extra")       \
  X(negative_dur, WARN, "X events with a negative dur: dur is NULL, raw value kept in extra")  \
  X(time_not_number, WARN, "ts/dur values that are not numbers; raw value kept in extra")      \
  X(time_string, INFO, "ts/dur written as numeric strings, parsed")                            \
  X(time_subns_rounded, INFO, "ts/dur with more than 3 decimals, rounded half-even to 1 ns")   \
  X(duplicate_key, WARN, "duplicate keys in an event or args (last wins)")                     \
  X(event_extra_keys, INFO, "event keys other than the standard ones, kept in extra")          \
  X(args_not_object, WARN, "args values that are not objects, kept in extra")                  \
  X(typed_arg_kept_raw, INFO,                                                                  \
    "args with a typed column whose value had another type (kept in args)")                    \
  X(int_beyond_int64, INFO, "integers beyond 64 bits, kept as text in args/extra")             \
  X(invalid_utf8, WARN, "strings with invalid UTF-8, repaired with U+FFFD")                    \
  X(category_alias, INFO,                                                                      \
    "events whose category is an older alias (Operator, Runtime, async...)")                   \
  X(category_missing, INFO, "events without cat")                                              \
  X(category_unknown, INFO, "X events of a category profdb has no table for (kind cpu_other)") \
  X(metadata_keys, INFO, "top-level keys other than traceEvents")                              \
  X(flow_start_unmatched, INFO, "flow starts (s) with no finish (f)")                          \
  X(flow_end_unmatched, INFO, "flow finishes (f) with no start (s)")                           \
  X(gpu_without_launch, INFO,                                                                  \
    "kernels/copies/fills with no runtime call of the same correlation")                       \
  X(kernel_launches, INFO, "runtime calls that launch a kernel (cudaLaunchKernel, ...)")       \
  X(graph_launches, INFO, "runtime calls that launch a CUDA/HIP graph")                        \
  X(graph_capture_calls, INFO, "runtime calls that begin or end a graph capture")              \
  X(captured_launches, INFO, "kernel launch calls made while their thread captures a graph")   \
  X(launch_without_gpu, INFO,                                                                  \
    "kernel and graph launches outside graph captures that no kernel links to (records lost)") \
  X(op_id_span, INFO,                                                                          \
    "ids the CPU operators' and user annotations' External ids span (max - min + 1)")          \
  X(op_id_pairs, INFO, "consecutive pairs among the first 2,000 of those ids")                 \
  X(op_id_skips, INFO,                                                                         \
    "of those pairs, the ones that skip ids (most, in a trace sampled after recording)")       \
  X(gzip_incomplete, WARN, "gzip streams cut inside the trailer after complete JSON")          \
  X(gzip_trailing_bytes, WARN, "bytes after the last gzip member, ignored")                    \
  X(slice_overhang, INFO, "slices that end after their parent (nested by start time)")         \
  /* ---- snapshots ---- */                                                                    \
  X(snapshot_segments, INFO, "segments read")                                                  \
  X(snapshot_blocks, INFO, "blocks read")                                                      \
  X(snapshot_trace_entries, INFO, "device_traces entries read")                                \
  X(snapshot_legacy_blocks, INFO,                                                              \
    "2.0-layout blocks without address (computed from the segment)")                           \
  X(snapshot_unknown_keys, INFO, "unknown keys, kept as JSON in extra")                        \
  X(snapshot_bad_value, WARN, "values of an unexpected type, kept as JSON in extra")           \
  X(snapshot_not_object, WARN, "list elements that are not objects, skipped")                  \
  X(snapshot_overlapping_segments, WARN,                                                       \
    "segments overlapping another segment of the same device (inconsistent snapshot)")

typedef enum profdb_stat {
#define PROFDB_STAT_ENUM(name, sev, desc) PROFDB_STAT_##name,
  PROFDB_STATS(PROFDB_STAT_ENUM)
#undef PROFDB_STAT_ENUM
      PROFDB_STAT__COUNT
} profdb_stat;

typedef enum profdb_severity {
  PROFDB_SEV_INFO,
  PROFDB_SEV_WARN,
  PROFDB_SEV_ERROR
} profdb_severity;

#endif

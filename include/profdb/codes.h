/*
** codes.h — the integer codes profdb stores for event kinds and allocator
** actions, defined once.
**
** Everything else is derived from these two lists: the loader's C enums
** (K_*, A_*), the rows of the _kind and _alloc_action tables (inserted
** from here when a database is created), the event_count labels and the
** extension's action names.  SQL never repeats a code: it names the kind
** or action, (SELECT kind FROM _kind WHERE name = 'kernel'), so adding a
** kind here is the whole change (tests/lint/check_codes.py checks that no
** .sql file or C string holds a bare code, and that the storage columns'
** comments list every kind).
**
**   X(ID, code, "name", "storage table")
*/
#ifndef PROFDB_CODES_H
#define PROFDB_CODES_H

/* Event kinds: the normalized classification of a trace event, stored in
** the kind column of its storage table.  Codes never change meaning (they
** are in existing databases); a new kind takes a new code. */
#define PROFDB_EVENT_KINDS(X)                        \
  X(CPU_OP, 1, "cpu_op", "_slice")                   \
  X(USER_ANNOTATION, 2, "user_annotation", "_slice") \
  X(PYTHON_FUNCTION, 3, "python_function", "_slice") \
  X(RUNTIME, 4, "runtime", "_slice")                 \
  X(TRACE_SPAN, 5, "trace_span", "_slice")           \
  X(CPU_OTHER, 6, "cpu_other", "_slice")             \
  X(KERNEL, 10, "kernel", "_gpu")                    \
  X(MEMCPY, 11, "memcpy", "_gpu")                    \
  X(MEMSET, 12, "memset", "_gpu")                    \
  X(GPU_ANNOTATION, 13, "gpu_annotation", "_gpu")    \
  X(GPU_SYNC, 14, "gpu_sync", "_gpu")                \
  X(MEMORY, 20, "memory", "_instant")                \
  X(OUT_OF_MEMORY, 21, "out_of_memory", "_instant")  \
  X(INSTANT, 22, "instant", "_instant")              \
  X(COUNTER, 23, "counter", "_instant")              \
  X(OTHER_PHASE, 24, "other_phase", "_instant")

/* Allocator actions of a memory snapshot's device_traces, as PyTorch
** writes them; stored in _alloc_event.action.  0 is an action profdb does
** not know (its text is kept in _alloc_event.extra). */
#define PROFDB_ALLOC_ACTIONS(X)          \
  X(OTHER, 0, "other")                   \
  X(ALLOC, 1, "alloc")                   \
  X(FREE_REQUESTED, 2, "free_requested") \
  X(FREE_COMPLETED, 3, "free_completed") \
  X(SEGMENT_ALLOC, 4, "segment_alloc")   \
  X(SEGMENT_FREE, 5, "segment_free")     \
  X(SEGMENT_MAP, 6, "segment_map")       \
  X(SEGMENT_UNMAP, 7, "segment_unmap")   \
  X(SNAPSHOT, 8, "snapshot")             \
  X(OOM, 9, "oom")                       \
  X(ANNOTATE, 10, "annotate")

#define PROFDB_KIND_ENUM_(id, code, name, storage) PROFDB_KIND_##id = code,
#define PROFDB_ACTION_ENUM_(id, code, name) PROFDB_ACTION_##id = code,
#define PROFDB_BOUND_(id, code, ...) char id[code + 1];

typedef enum profdb_event_kind { PROFDB_EVENT_KINDS(PROFDB_KIND_ENUM_) } profdb_event_kind;
typedef enum profdb_alloc_action {
  PROFDB_ALLOC_ACTIONS(PROFDB_ACTION_ENUM_)
} profdb_alloc_action;

/* One more than the largest code: sizes of arrays indexed by code. */
enum {
  PROFDB_KIND_LIMIT = sizeof(union {PROFDB_EVENT_KINDS(PROFDB_BOUND_)}),
  PROFDB_ACTION_LIMIT = sizeof(union {PROFDB_ALLOC_ACTIONS(PROFDB_BOUND_)})
};

#endif

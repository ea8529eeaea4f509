/*
** cp_graph.h — the critical path's graph, shared by its walk
** (critical_path.c: the rows, the graph, profdb_critical_path and
** profdb_critical_path_sum) and its
** replay (replay.c: profdb_replay, profdb_replay_each).  Internal to the
** extension.
*/
#ifndef PROFDB_CP_GRAPH_H
#define PROFDB_CP_GRAPH_H

#include <sqlite3ext.h>
#include <stddef.h>

typedef sqlite3_int64 i64;

/* A span's scenarios (profdb_replay_each): each costs a replay, and names
** are looked up one by one. */
#define CP_MAX_SCENARIOS 4096
/* 'scale_kind' and 'idle' rows a span takes: each event is checked against
** every one (the replay's: a few dozen kinds, a few polling threads). */
#define CP_MAX_KIND_SCALES 256
#define CP_MAX_IDLE_THREADS 256
/* A span whose 'scale_kind' rows make more 'scale' rows than this is past
** the cap (no result, as one past CP_MAX_EVENTS): 32 bytes each. */
#define CP_MAX_KIND_SCALED (8 * CP_MAX_EVENTS)

/* Spans past this many events get no path (memory stays under ~500 MB). */
#define CP_MAX_EVENTS 1000000

enum { T_OPERATOR, T_DEPENDENCY, T_LAUNCH, T_KERNEL_KERNEL, T_SYNC };

/* A pid or tid as SQLite orders values: NULL, numbers, then text. */
enum { KEY_NULL, KEY_NUMBER, KEY_TEXT }; /* in SQLite's order of values */
typedef struct key {
  int sort_class; /* KEY_NULL, KEY_NUMBER or KEY_TEXT */
  int is_int;     /* a number that is an integer: compared exactly (ival) */
  i64 ival;
  double num;
  char *text;
} key;

typedef struct event {
  i64 id, ts, end, parent;
  int gpu, lock, blocking, has_parent;
  key pid, tid, domain;
  i64 name_id;        /* its name (profdb_critical_path_sum's L) */
  int kind, has_name; /* its kind: 1 + index into span.kinds (0: none given) */
  int whatif;         /* its second kind (profdb_replay's L), as kind */
  size_t node[2];     /* its start's and end's node */
} event;

typedef struct given {
  i64 t, o, sub, src, dst, w, attr;
  int src_end, dst_end, type, has_attr;
  size_t src_node, dst_node; /* their nodes (given_edges) */
} given;

/* A what-if: the edges of type (-1: any) attributed to event id scaled,
** in scenario scen (one of span.scen, compared by address; NULL: every
** one; profdb_replay_each). */
typedef struct scale {
  i64 id;
  double factor;
  int type;
  const char *scen;
} scale;

/* A what-if by kind (ROW 'scale_kind'): a 'scale' row for each event whose
** kind or second kind is kind (1 + index into span.kinds), made when the
** graph is built; scen_text its scenario's name (owned; NULL: every one),
** scen that name in span.scen once an event has the kind. */
typedef struct kind_scale {
  int kind, type;
  double factor;
  char *scen_text;
  const char *scen;
} kind_scale;

/* A host call's wait for a GPU operation (ROW 'wait'). */
typedef struct wait {
  i64 call, op;
} wait;

typedef struct span {
  event *ev;
  size_t nev, capev;
  given *ge;
  size_t nge, capge;
  scale *sc;
  size_t nsc, capsc;
  char **scen; /* the scenarios' names, each once */
  size_t nscen, capscen;
  wait *wt;
  size_t nwt, capwt;
  kind_scale *ks;
  size_t nks, capks;
  key *idle; /* the threads left out (ROW 'idle'): pid, tid pairs */
  size_t nidle, capidle;
  int *idle_kinds; /* the kinds of their events not kept, each once */
  size_t nidle_kinds, capidle_kinds;
  char **kinds; /* the events' kinds, each once (K, L; 'scale_kind' rows) */
  size_t nkinds, capkinds;
  int last_kind; /* the kind found last (1 + index; 0: none) */
  int failed, too_big;
} span;

typedef struct point {
  i64 t, ev;
  int is_end;
  size_t e; /* index into span.ev */
} point;

typedef struct out_edge {
  size_t src, dst;
  i64 w, attr;
  int type, has_attr;
} out_edge;

typedef struct edges {
  out_edge *e;
  size_t n, cap;
} edges;

typedef struct id_index {
  i64 id;
  size_t e;
} id_index;

typedef struct graph {
  point *pts;
  size_t np, stack0, given0, implicit0, *own_edge;
  id_index *ids; /* the events by id (unique) */
  edges es;
  i64 *base;
} graph;

/* The edge types' names, by T_OPERATOR .. T_SYNC. */
extern const char *const cp_type_name[];
/* Makes room for element n of the array *p (*cap elements of size), doubling
** it; 0: out of memory. */
int cp_grow(void **p, size_t *cap, size_t n, size_t size);
/* Orders two pids or tids as SQLite orders values. */
int cp_key_cmp(const key *a, const key *b);
/* The error msg, after "NAME(): " (the function's name, its user data);
** msg NULL: out of memory. */
void cp_result_error(sqlite3_context *ctx, const char *msg);
/* The aggregates' step: one row of a span (cp_rows.c; the rows:
** critical_path.c's header). */
void cp_step(sqlite3_context *ctx, int argc, sqlite3_value **argv);
/* Frees what a span holds (not the span: SQLite's aggregate context). */
void cp_span_free(span *s);
/* Applies its 'scale_kind' and 'idle' rows to span s before its graph is
** built (critical_path.c's header); 0: out of memory. */
int cp_span_prepare(span *s);
/* Builds span s's graph (critical_path.c); LP_OK, LP_NOMEM or -1. */
int cp_build_graph(span *s, graph *g, int with_base, int with_own, int implicit,
                   int per_scenario);
void cp_graph_free(graph *g);
/* Appends text as a JSON string (names and kinds come from rows). */
void cp_json_string(sqlite3_str *out, const char *text);
/* The error for a failure rc of cp_build_graph or the walks (none for LP_OK). */
void cp_report_rc(sqlite3_context *ctx, int rc);
/* The product of the factors of one event's 'scale' rows (sorted: those
** from r0 with its id) that apply to an edge of type: those of scenario
** scen and of every scenario (scen NULL: all).  0 when none applies. */
int cp_scale_product(const span *s, size_t r0, int type, const char *scen, double *product);
/* w times product, rounded once and kept within 64 bits. */
i64 cp_scaled_weight(i64 w, double product);

#endif

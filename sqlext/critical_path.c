/*
** critical_path.c — the critical path's graph, built and walked in one
** pass per span (queries/lib/61_critical_path_edges.sql;
** docs/definitions.md, "Critical path").
**
** SQL Function: profdb_critical_path(ROW, A, B, C, D, E, F, G, H, I, J)  aggregate
**   The rows of one span (an analysed step, or a whole trace), two kinds:
**   ROW 'ev'    an event with nodes: A its id, B start and C end (ns, as
**               the scope takes them), D 1 for GPU work, E pid and F tid
**               (CPU events; integer, real, text or NULL), G 1 when it
**               takes the CUDA runtime lock, H 1 when its end weighs 0
**               (HTA's blocking calls), I its parent event (or NULL); J its
**               lock domain (the process whose runtime lock it takes: any
**               value; NULL, one domain for the whole span, for one rank).
**               The call stacks are keyed by (E, F): a graph of several
**               ranks gives E per rank.
**   ROW 'edge'  an edge built in SQL (GPU operations, waits, host syncs):
**               A t, B o, C sub (their order: by t, o, sub, then source
**               node), D/F the source/destination event, E/G 1 for that
**               event's end (0: its start), H the weight (ns), I the type
**               ('operator', 'dependency', 'launch', 'kernel_kernel',
**               'sync'), J the event its time is attributed to (or NULL).
**               An edge whose source or destination is not an event of the
**               span is left out.
**   ROW 'scale' a what-if: A an event id, B a factor (a number, 0 or more),
**               C an edge type or NULL (every type); every edge of that
**               type attributed to that event weighs B times its weight
**               (rounded to the ns) before the path is found: the path
**               recomputed as if the event took that share of its time
**               (issue 44; docs/definitions.md, "Critical path").  Rows
**               for the same event and type multiply.  D..J NULL.
**   ROW 'wait'  A a host call that takes the runtime lock, B the GPU
**               operation it waited for (both events of the span): under
**               the what-ifs, the call's own lock edge (HTA's: its whole
**               time, so its wait as host time) weighs less by as much as
**               the what-ifs shorten that operation's chain (its run and
**               the launch / kernel_kernel edges and runs before it on its
**               stream, as given), at most the part of the call spent
**               waiting (until the operation's recorded end).  So a
**               faster kernel shortens a blocking copy's wait, and the
**               path without what-ifs stays as it is.  Of several rows for
**               one call, the one that allows most (a chain's shortening is
**               an upper bound: a queued kernel is not held to its launch
**               here).  C..J NULL.
**   Returns the edges of the longest path, first first, as a JSON array of
**   [type, weight, event] ('[]' when no weight is positive; NULL for no
**   rows or a span past CP_MAX_EVENTS, 1 million, events).
**
**   The graph is HolisticTraceAnalysis' CriticalPathAnalysis (v0.6.0):
**   nodes are each event's start and end, numbered in the order (time,
**   event id, start before end); edges, in the order HTA adds them (which
**   breaks ties, longest_path.c):
**   1. the runtime lock, per lock domain (its value's order): over the
**      domain's lock-taking events' nodes in node order, an end takes the
**      starts since the previous end, last first
**      ('operator' from its own start, else 'dependency', 0), then a
**      'dependency' (0) from the node before it when that is an end;
**   2. call stacks: each thread's nodes in HTA's order (time; an end before
**      a start; of two starts the longer first, of two ends the shorter
**      first; then by event id: the start of the lower id first, the end
**      of the higher), each linked from the one before unless both take
**      the lock (and are not an end then a start): a start with no
**      operator open is a 'dependency' (0), else 'operator' (the time
**      between, 0 at a blocking call's end);
**   3. the given edges, by (t, o, sub, source node).
**   A negative weight counts as 0 in the search (HTA's), and is returned
**   as it is.
**   This is what the SQL of lib/61 did with window functions over every
**   CPU event (0.7 s of a 2.7 s report of a 60 MB trace); here it is two
**   sorts.
**
** SQL Function: profdb_replay(ROW, A, B, C, D, E, F, G, H, I, J)  aggregate
**   The same rows, the same graph (its what-ifs applied; 'wait' rows are
**   not needed: a wait is read from the given edges that enter a call's
**   end from GPU work), plus an own edge for each lock-taking call whose
**   lock edges left it none.  The nodes replayed in time: a node no edge
**   enters keeps its time; any other comes at the latest of its sources'
**   replayed times plus the edge's offset (replay_offsets).  Returns how
**   much sooner (ns; negative: later) the span's last node comes than
**   recorded: 0 without what-ifs; NULL for no rows or a span past
**   CP_MAX_EVENTS.  Give every GPU operation an edge from its launch call
**   (0 for work queued behind its stream's previous operation, the
**   recorded delay for work after a gap the graph does not explain), or a
**   faster kernel can pull queued work before its launch.
**   docs/definitions.md, "Replay".
**
** Memory: about 500 bytes per event of the span, freed at its end.
** Errors: a bad ROW or type, a non-integer time or id, an event whose
** duration passes 64 bits, two events with one id, a negative or
** non-numeric factor, a cycle, a replayed time past 64 bits, out of
** memory.  Flags: INNOCUOUS.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "families.h"
#include "longest_path.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Spans past this many events get no path (memory stays under ~500 MB). */
#define CP_MAX_EVENTS 1000000

typedef sqlite3_int64 i64;

enum { T_OPERATOR, T_DEPENDENCY, T_LAUNCH, T_KERNEL_KERNEL, T_SYNC };
static const char *const type_name[] = {"operator", "dependency", "launch", "kernel_kernel",
                                        "sync"};

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
  size_t node[2]; /* its start's and end's node */
} event;

typedef struct given {
  i64 t, o, sub, src, dst, w, attr;
  int src_end, dst_end, type, has_attr;
  size_t src_node, dst_node; /* their nodes (given_edges) */
} given;

/* A what-if: the edges of type (-1: any) attributed to event id scaled. */
typedef struct scale {
  i64 id;
  double factor;
  int type;
} scale;

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
  wait *wt;
  size_t nwt, capwt;
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

static int grow(void **p, size_t *cap, size_t n, size_t size) {
  if (n < *cap) return 1;
  size_t c = *cap ? *cap * 2 : 1024;
  void *q = c < ((size_t)-1) / size ? realloc(*p, c * size) : NULL;
  if (!q) return 0;
  *p = q, *cap = c;
  return 1;
}

/* a - b, saturated at the 64-bit bounds (times from hostile rows). */
static i64 sat_sub(i64 a, i64 b) {
  i64 d;
  if (!__builtin_sub_overflow(a, b, &d)) return d;
  return b < 0 ? INT64_MAX : INT64_MIN;
}

static i64 sat_add(i64 a, i64 b) {
  i64 d;
  if (!__builtin_add_overflow(a, b, &d)) return d;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

static int key_of(sqlite3_value *v, key *k) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_NULL: k->sort_class = KEY_NULL; return 1;
    case SQLITE_INTEGER:
      k->sort_class = KEY_NUMBER, k->is_int = 1, k->ival = sqlite3_value_int64(v);
      k->num = (double)k->ival;
      return 1;
    case SQLITE_FLOAT: k->sort_class = KEY_NUMBER, k->num = sqlite3_value_double(v); return 1;
    default: {
      const char *t = (const char *)sqlite3_value_text(v);
      k->sort_class = KEY_TEXT;
      k->text = strdup(t ? t : "");
      return k->text != NULL;
    }
  }
}

static int key_cmp(const key *a, const key *b) {
  if (a->sort_class != b->sort_class) return a->sort_class < b->sort_class ? -1 : 1;
  if (a->sort_class == KEY_NUMBER && a->is_int && b->is_int)
    return a->ival < b->ival ? -1 : a->ival > b->ival;
  if (a->sort_class == KEY_NUMBER) return a->num < b->num ? -1 : a->num > b->num;
  if (a->sort_class == KEY_TEXT) return strcmp(a->text, b->text);
  return 0;
}

static void span_free(span *s) {
  for (size_t i = 0; i < s->nev; i++)
    free(s->ev[i].pid.text), free(s->ev[i].tid.text), free(s->ev[i].domain.text);
  free(s->ev), free(s->ge), free(s->sc), free(s->wt);
}

/* The error msg, after "NAME(): " (the function's name, its user data);
** msg NULL: out of memory. */
static void result_error(sqlite3_context *ctx, const char *msg) {
  char *text =
      msg ? sqlite3_mprintf("%s(): %s", (const char *)sqlite3_user_data(ctx), msg) : NULL;
  if (text)
    sqlite3_result_error(ctx, text, -1);
  else
    sqlite3_result_error_nomem(ctx);
  sqlite3_free(text);
}

static void fail(sqlite3_context *ctx, span *s, const char *msg) {
  result_error(ctx, msg);
  s->failed = 1;
}

static int is_int(sqlite3_value *v) {
  return sqlite3_value_numeric_type(v) == SQLITE_INTEGER;
}

/* An edge type's index in type_name, or -1. */
static int edge_type(sqlite3_value *v) {
  const char *type = (const char *)sqlite3_value_text(v);
  for (int i = 0; type && i < 5; i++)
    if (!strcmp(type, type_name[i])) return i;
  return -1;
}

/* ROW 'ev'. */
static void add_event(sqlite3_context *ctx, span *s, sqlite3_value **argv) {
  if (!is_int(argv[1]) || !is_int(argv[2]) || !is_int(argv[3])) {
    fail(ctx, s, "an event's id, start and end must be integers");
    return;
  }
  if (s->nev >= CP_MAX_EVENTS) {
    s->too_big = 1;
    return;
  }
  if (!grow((void **)&s->ev, &s->capev, s->nev, sizeof *s->ev)) {
    fail(ctx, s, NULL);
    return;
  }
  event *e = &s->ev[s->nev];
  memset(e, 0, sizeof *e);
  e->id = sqlite3_value_int64(argv[1]);
  e->ts = sqlite3_value_int64(argv[2]);
  e->end = sqlite3_value_int64(argv[3]);
  i64 dur;
  if (__builtin_sub_overflow(e->end, e->ts, &dur)) {
    fail(ctx, s, "an event's duration passes 64 bits");
    return;
  }
  e->gpu = sqlite3_value_int(argv[4]) != 0;
  e->lock = sqlite3_value_int(argv[7]) != 0;
  e->blocking = sqlite3_value_int(argv[8]) != 0;
  e->has_parent = sqlite3_value_type(argv[9]) != SQLITE_NULL;
  e->parent = sqlite3_value_int64(argv[9]);
  if (!key_of(argv[5], &e->pid) || !key_of(argv[6], &e->tid) || !key_of(argv[10], &e->domain)) {
    free(e->pid.text), free(e->tid.text);
    fail(ctx, s, NULL);
    return;
  }
  s->nev++;
}

/* ROW 'edge'. */
static void add_given(sqlite3_context *ctx, span *s, sqlite3_value **argv) {
  for (int i = 1; i <= 8; i++)
    if (!is_int(argv[i])) {
      fail(ctx, s, "an edge's times, ids and weight must be integers");
      return;
    }
  int t = edge_type(argv[9]);
  if (t < 0) {
    fail(ctx, s, "unknown edge type");
    return;
  }
  if (!grow((void **)&s->ge, &s->capge, s->nge, sizeof *s->ge)) {
    fail(ctx, s, NULL);
    return;
  }
  given *g = &s->ge[s->nge++];
  g->t = sqlite3_value_int64(argv[1]);
  g->o = sqlite3_value_int64(argv[2]);
  g->sub = sqlite3_value_int64(argv[3]);
  g->src = sqlite3_value_int64(argv[4]);
  g->src_end = sqlite3_value_int(argv[5]) != 0;
  g->dst = sqlite3_value_int64(argv[6]);
  g->dst_end = sqlite3_value_int(argv[7]) != 0;
  g->w = sqlite3_value_int64(argv[8]);
  g->type = t;
  g->has_attr = sqlite3_value_type(argv[10]) != SQLITE_NULL;
  g->attr = sqlite3_value_int64(argv[10]);
}

/* ROW 'scale'. */
static void add_scale(sqlite3_context *ctx, span *s, sqlite3_value **argv) {
  int num = sqlite3_value_numeric_type(argv[2]);
  double f = sqlite3_value_double(argv[2]);
  if (!is_int(argv[1]) || (num != SQLITE_INTEGER && num != SQLITE_FLOAT) || !(f >= 0) ||
      f > 1e6) {
    fail(ctx, s,
         "a what-if needs an integer event id and a factor from 0 "
         "to 1e6");
    return;
  }
  int t = sqlite3_value_type(argv[3]) == SQLITE_NULL ? -1 : edge_type(argv[3]);
  if (t < 0 && sqlite3_value_type(argv[3]) != SQLITE_NULL) {
    fail(ctx, s, "unknown edge type");
    return;
  }
  if (!grow((void **)&s->sc, &s->capsc, s->nsc, sizeof *s->sc)) {
    fail(ctx, s, NULL);
    return;
  }
  s->sc[s->nsc++] = (scale){sqlite3_value_int64(argv[1]), f, t};
}

/* ROW 'wait'. */
static void add_wait(sqlite3_context *ctx, span *s, sqlite3_value **argv) {
  if (!is_int(argv[1]) || !is_int(argv[2])) {
    fail(ctx, s, "a wait needs two integer event ids");
    return;
  }
  if (!grow((void **)&s->wt, &s->capwt, s->nwt, sizeof *s->wt)) {
    fail(ctx, s, NULL);
    return;
  }
  s->wt[s->nwt++] = (wait){sqlite3_value_int64(argv[1]), sqlite3_value_int64(argv[2])};
}

static void cp_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  span *s = sqlite3_aggregate_context(ctx, sizeof *s);
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (s->failed || s->too_big) return;
  const char *row = (const char *)sqlite3_value_text(argv[0]);
  if (row && !strcmp(row, "ev"))
    add_event(ctx, s, argv);
  else if (row && !strcmp(row, "edge"))
    add_given(ctx, s, argv);
  else if (row && !strcmp(row, "scale"))
    add_scale(ctx, s, argv);
  else if (row && !strcmp(row, "wait"))
    add_wait(ctx, s, argv);
  else
    fail(ctx, s, "the 1st argument must be 'ev', 'edge', 'scale' or 'wait'");
}

/* ---- orders -------------------------------------------------------------- */

/* Node order: time, event id, start before end. */
static int cmp_node(const void *a, const void *b) {
  const point *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  if (x->ev != y->ev) return x->ev < y->ev ? -1 : 1;
  return x->is_end - y->is_end;
}

/* A CPU node with what HTA's call-stack order reads (no context pointer:
** two connections may sort at once). */
typedef struct stack_point {
  point p;
  const key *pid, *tid;
  i64 dur;
} stack_point;

/* HTA's call-stack order within a thread (threads by pid, tid). */
static int cmp_stack(const void *a, const void *b) {
  const stack_point *sx = a, *sy = b;
  const point *x = &sx->p, *y = &sy->p;
  int c = key_cmp(sx->pid, sy->pid);
  if (!c) c = key_cmp(sx->tid, sy->tid);
  if (c) return c;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  if (x->is_end != y->is_end) return x->is_end ? -1 : 1; /* an end first */
  i64 kx = x->is_end ? sx->dur : -sx->dur, ky = y->is_end ? sy->dur : -sy->dur;
  if (kx != ky) return kx < ky ? -1 : 1;
  i64 ix = x->is_end ? -x->ev : x->ev, iy = y->is_end ? -y->ev : y->ev;
  return ix < iy ? -1 : ix > iy;
}

/* An event id and its index in span.ev, sorted by id to find events. */
typedef struct id_index {
  i64 id;
  size_t e;
} id_index;

static int cmp_id_index(const void *a, const void *b) {
  i64 x = ((const id_index *)a)->id, y = ((const id_index *)b)->id;
  return x < y ? -1 : x > y;
}

static int cmp_given(const void *a, const void *b) {
  const given *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  if (x->o != y->o) return x->o < y->o ? -1 : 1;
  if (x->sub != y->sub) return x->sub < y->sub ? -1 : 1;
  return x->src_node < y->src_node ? -1 : x->src_node > y->src_node;
}

/* ---- the edges ----------------------------------------------------------- */

static int add(edges *es, size_t src, size_t dst, i64 w, int type, int has_attr, i64 attr) {
  if (!grow((void **)&es->e, &es->cap, es->n, sizeof *es->e)) return 0;
  es->e[es->n++] = (out_edge){src, dst, w, attr, type, has_attr};
  return 1;
}

/* A lock-taking node and its event's lock domain. */
typedef struct lock_point {
  const key *domain;
  size_t v; /* the node */
} lock_point;

/* By domain, then node order (so one domain keeps HTA's order). */
static int cmp_lock_point(const void *a, const void *b) {
  const lock_point *x = a, *y = b;
  int c = key_cmp(x->domain, y->domain);
  if (c) return c;
  return x->v < y->v ? -1 : x->v > y->v;
}

/* 1. The runtime lock, per domain; pts in node order (index = node).
** own_edge (NULL, or one slot per event): each event's own lock edge. */
static int lock_edges(const span *s, const point *pts, size_t np, edges *es, size_t *own_edge) {
  size_t *pending = malloc((np ? np : 1) * sizeof *pending), npend = 0, nl = 0;
  lock_point *lk = malloc((np ? np : 1) * sizeof *lk);
  int ok = pending && lk;
  for (size_t v = 0; ok && v < np; v++)
    if (s->ev[pts[v].e].lock) lk[nl++] = (lock_point){&s->ev[pts[v].e].domain, v};
  if (ok && nl) qsort(lk, nl, sizeof *lk, cmp_lock_point);
  int prev_end = -1; /* the previous lock node: -1 none, 0 a start, 1 an end */
  size_t prev = 0;
  for (size_t i = 0; ok && i < nl; i++) {
    size_t v = lk[i].v;
    if (i && key_cmp(lk[i].domain, lk[i - 1].domain)) npend = 0, prev_end = -1; /* new domain */
    if (!pts[v].is_end) {
      pending[npend++] = v;
    } else {
      for (size_t k = npend; ok && k-- > 0;) {
        const point *st = &pts[pending[k]];
        int own = st->ev == pts[v].ev;
        if (own && own_edge) own_edge[pts[v].e] = es->n;
        ok = add(es, pending[k], v, own ? pts[v].t - st->t : 0, own ? T_OPERATOR : T_DEPENDENCY,
                 1, pts[v].ev);
      }
      npend = 0;
      if (ok && prev_end == 1) ok = add(es, prev, v, 0, T_DEPENDENCY, 0, 0);
    }
    prev_end = pts[v].is_end, prev = v;
  }
  free(pending), free(lk);
  return ok;
}

/* 2. Call stacks: the CPU nodes of each thread in HTA's order. */
static int stack_edges(const span *s, const point *pts, size_t np, edges *es) {
  size_t n = 0;
  stack_point *cpu = malloc((np ? np : 1) * sizeof *cpu);
  if (!cpu) return 0;
  for (size_t v = 0; v < np; v++) {
    const event *e = &s->ev[pts[v].e];
    if (!e->gpu) cpu[n++] = (stack_point){pts[v], &e->pid, &e->tid, e->end - e->ts};
  }
  qsort(cpu, n, sizeof *cpu, cmp_stack);
  long long opd = 0; /* operators open before the node, on its thread */
  for (size_t i = 0; i < n; i++) {
    const point *c = &cpu[i].p;
    const event *ec = &s->ev[c->e];
    if (i == 0 || key_cmp(cpu[i].pid, cpu[i - 1].pid) || key_cmp(cpu[i].tid, cpu[i - 1].tid)) {
      opd = 0; /* a new thread */
    } else {
      const point *p = &cpu[i - 1].p;
      const event *ep = &s->ev[p->e];
      if (!(ec->lock && ep->lock && (!p->is_end || c->is_end))) {
        int top = !c->is_end && opd == 0;
        i64 w = top || (c->is_end && ec->blocking) ? 0 : sat_sub(c->t, p->t);
        int has_attr = 1;
        i64 attr;
        if (!p->is_end)
          attr = p->ev;
        else if (c->is_end)
          attr = c->ev;
        else
          attr = ep->parent, has_attr = ep->has_parent;
        if (!add(es, ep->node[p->is_end], ec->node[c->is_end], w,
                 top ? T_DEPENDENCY : T_OPERATOR, has_attr, attr)) {
          free(cpu);
          return 0;
        }
      }
    }
    opd += c->is_end ? -1 : 1;
  }
  free(cpu);
  return 1;
}

/* The index in span.ev of event id; (size_t)-1 when it is not in the span. */
static size_t find_event(const span *s, const id_index *ids, i64 id) {
  size_t lo = 0, hi = s->nev;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ids[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < s->nev && ids[lo].id == id ? ids[lo].e : (size_t)-1;
}

/* The node of event id's start or end; (size_t)-1 when it is not in the span. */
static size_t node_of(const span *s, const id_index *ids, i64 id, int is_end) {
  size_t e = find_event(s, ids, id);
  return e == (size_t)-1 ? e : s->ev[e].node[is_end];
}

/* 3. The given edges, their events found, in their order. */
static int given_edges(span *s, const id_index *ids, edges *es) {
  size_t n = 0;
  for (size_t i = 0; i < s->nge; i++) { /* keep those whose two events are nodes */
    given g = s->ge[i];
    g.src_node = node_of(s, ids, g.src, g.src_end);
    g.dst_node = node_of(s, ids, g.dst, g.dst_end);
    if (g.src_node == (size_t)-1 || g.dst_node == (size_t)-1) continue;
    s->ge[n++] = g;
  }
  if (n) qsort(s->ge, n, sizeof *s->ge, cmp_given); /* s->ge is NULL without given edges */
  for (size_t i = 0; i < n; i++) {
    const given *g = &s->ge[i];
    if (!add(es, g->src_node, g->dst_node, g->w, g->type, g->has_attr, g->attr)) return 0;
  }
  return 1;
}

static int cmp_scale(const void *a, const void *b) {
  const scale *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return x->type - y->type;
}

/* The what-ifs: each edge attributed to a scaled event weighs its factors'
** product times as much (every row for its event and type applies),
** rounded once and kept within 64 bits. */
static void apply_scales(span *s, edges *es) {
  if (!s->nsc) return;
  qsort(s->sc, s->nsc, sizeof *s->sc, cmp_scale);
  for (size_t i = 0; i < es->n; i++) {
    out_edge *e = &es->e[i];
    if (!e->has_attr) continue;
    size_t lo = 0, hi = s->nsc;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (s->sc[mid].id < e->attr)
        lo = mid + 1;
      else
        hi = mid;
    }
    double product = 1;
    int scaled = 0;
    for (size_t k = lo; k < s->nsc && s->sc[k].id == e->attr; k++)
      if (s->sc[k].type < 0 || s->sc[k].type == e->type) product *= s->sc[k].factor, scaled = 1;
    if (!scaled) continue;
    double w = (double)e->w * product;
    e->w = w >= 9.2e18 ? (i64)9.2e18 : w <= -9.2e18 ? (i64)-9.2e18 : (i64)llround(w);
  }
}

/* The waits under the what-ifs (ROW 'wait'): base holds each edge's weight
** before apply_scales, given0 the index of the first given edge; own_edge
** each event's own lock edge.  A GPU operation's chain shortening is its
** run's and its in-edge's (launch or kernel_kernel) and, through a
** kernel_kernel edge, the previous operation's: found in node order, so the
** previous one's is known first. */
static int shrink_waits(span *s, const point *pts, size_t np, edges *es, const i64 *base,
                        size_t given0, const size_t *own_edge, const id_index *ids) {
  size_t n = s->nev, none = (size_t)-1;
  size_t *run = malloc((n ? n : 1) * sizeof *run), *in = malloc((n ? n : 1) * sizeof *in);
  i64 *gain = calloc(n ? n : 1, sizeof *gain), *cut = calloc(n ? n : 1, sizeof *cut);
  int ok = run && in && gain && cut;
  for (size_t i = 0; ok && i < n; i++) run[i] = in[i] = none;
  for (size_t i = given0; ok && i < es->n; i++) {
    const out_edge *e = &es->e[i];
    size_t a = pts[e->src].e, b = pts[e->dst].e;
    if (!s->ev[b].gpu) continue;
    if (e->type == T_OPERATOR && a == b && !pts[e->src].is_end && pts[e->dst].is_end)
      run[b] = i;
    else if ((e->type == T_LAUNCH || e->type == T_KERNEL_KERNEL) && !pts[e->dst].is_end)
      in[b] = i;
  }
  for (size_t v = 0; ok && v < np; v++) {
    size_t b = pts[v].e;
    if (pts[v].is_end || !s->ev[b].gpu) continue;
    i64 g = 0;
    if (run[b] != none) g = sat_add(g, sat_sub(base[run[b]], es->e[run[b]].w));
    if (in[b] != none) {
      g = sat_add(g, sat_sub(base[in[b]], es->e[in[b]].w));
      if (es->e[in[b]].type == T_KERNEL_KERNEL) g = sat_add(g, gain[pts[es->e[in[b]].src].e]);
    }
    gain[b] = g;
  }
  /* each call's cut once: the most any of its waits allows (a Context Sync
  ** waits for one operation per stream) */
  for (size_t k = 0; ok && k < s->nwt; k++) {
    size_t c = find_event(s, ids, s->wt[k].call), o = find_event(s, ids, s->wt[k].op);
    if (c == none || o == none || own_edge[c] == none || !s->ev[o].gpu) continue;
    const event *call = &s->ev[c];
    i64 waited = sat_sub(s->ev[o].end < call->end ? s->ev[o].end : call->end, call->ts);
    i64 d = gain[o] < waited ? gain[o] : waited;
    if (d > cut[c]) cut[c] = d;
  }
  for (size_t c = 0; ok && c < n; c++)
    if (cut[c] > 0) {
      out_edge *e = &es->e[own_edge[c]];
      e->w = e->w > cut[c] ? e->w - cut[c] : 0;
    }
  free(run), free(in), free(gain), free(cut);
  return ok;
}

/* A span's graph: its nodes (pts, in node order) and edges: the lock edges
** from 0, the call-stack edges from stack0, the given ones from given0;
** base (NULL unless asked for): each edge's weight before the what-ifs;
** own_edge (NULL unless asked for): each event's own lock edge. */
typedef struct graph {
  point *pts;
  size_t np, stack0, given0, implicit0, *own_edge;
  id_index *ids; /* the events by id (unique) */
  edges es;
  i64 *base;
} graph;

static void graph_free(graph *g) {
  free(g->pts), free(g->es.e), free(g->own_edge), free(g->base), free(g->ids);
}

/* Builds the graph of span s with its what-ifs applied (implicit: also
** an own edge for each lock-taking call whose lock edges left it none,
** from implicit0: the replay needs every call's own time).  Returns
** LP_OK, LP_NOMEM, or -1 for two events with one id. */
static int build_graph(span *s, graph *g, int with_base, int with_own, int implicit) {
  memset(g, 0, sizeof *g);
  g->np = 2 * s->nev;
  if (!(g->pts = malloc((g->np ? g->np : 1) * sizeof *g->pts))) return LP_NOMEM;
  if (!(g->ids = malloc((s->nev ? s->nev : 1) * sizeof *g->ids))) return LP_NOMEM;
  for (size_t i = 0; i < s->nev; i++) g->ids[i] = (id_index){s->ev[i].id, i};
  qsort(g->ids, s->nev, sizeof *g->ids, cmp_id_index);
  for (size_t i = 1; i < s->nev; i++)
    if (g->ids[i].id == g->ids[i - 1].id) return -1;
  if (with_own || implicit) {
    if (!(g->own_edge = malloc((s->nev ? s->nev : 1) * sizeof *g->own_edge))) return LP_NOMEM;
    for (size_t i = 0; i < s->nev; i++) g->own_edge[i] = (size_t)-1;
  }
  for (size_t i = 0; i < s->nev; i++) {
    g->pts[2 * i] = (point){s->ev[i].ts, s->ev[i].id, 0, i};
    g->pts[2 * i + 1] = (point){s->ev[i].end, s->ev[i].id, 1, i};
  }
  qsort(g->pts, g->np, sizeof *g->pts, cmp_node);
  for (size_t v = 0; v < g->np; v++) s->ev[g->pts[v].e].node[g->pts[v].is_end] = v;
  if (!lock_edges(s, g->pts, g->np, &g->es, g->own_edge)) return LP_NOMEM;
  g->stack0 = g->es.n;
  if (!stack_edges(s, g->pts, g->np, &g->es)) return LP_NOMEM;
  g->given0 = g->es.n;
  if (!given_edges(s, g->ids, &g->es)) return LP_NOMEM;
  g->implicit0 = g->es.n;
  for (size_t i = 0; implicit && i < s->nev; i++) {
    const event *e = &s->ev[i];
    if (!e->gpu && e->lock && g->own_edge[i] == (size_t)-1 &&
        !add(&g->es, e->node[0], e->node[1], e->end - e->ts, T_OPERATOR, 1, e->id))
      return LP_NOMEM;
  }
  if (with_base) {
    if (!(g->base = malloc((g->es.n ? g->es.n : 1) * sizeof *g->base))) return LP_NOMEM;
    for (size_t i = 0; i < g->es.n; i++) g->base[i] = g->es.e[i].w;
  }
  apply_scales(s, &g->es);
  return LP_OK;
}

/* A failure's message (none for LP_OK). */
static void report_rc(sqlite3_context *ctx, int rc) {
  if (rc != LP_OK)
    result_error(ctx, rc == LP_CYCLE      ? "the graph has a cycle"
                      : rc == LP_OVERFLOW ? "a length or time passes 64 bits"
                      : rc == -1          ? "two events have one id"
                                          : NULL);
}

static void cp_final(sqlite3_context *ctx) {
  span *s = sqlite3_aggregate_context(ctx, 0);
  if (!s) return;
  if (s->failed || s->too_big || (!s->nev && !s->nge)) {
    span_free(s);
    return;
  }
  graph g;
  lp_edge *le = NULL;
  size_t *path = NULL, len = 0;
  int rc = LP_NOMEM, waits = s->nwt && s->nsc; /* waits shrink only under what-ifs */
  if ((rc = build_graph(s, &g, waits, waits, 0)) != LP_OK) goto done;
  rc = LP_NOMEM;
  if (waits && !shrink_waits(s, g.pts, g.np, &g.es, g.base, g.given0, g.own_edge, g.ids))
    goto done;
  le = malloc((g.es.n ? g.es.n : 1) * sizeof *le);
  if (!le) goto done;
  for (size_t i = 0; i < g.es.n; i++)
    /* a negative weight (a child ending after its parent, HTA's rounding
    ** of a sub-µs kernel) is searched as 0 and reported as it is, as HTA
    ** does (CPGraph.critical_path sets such nx weights to 0) */
    le[i] = (lp_edge){(i64)g.es.e[i].src, (i64)g.es.e[i].dst, g.es.e[i].w < 0 ? 0 : g.es.e[i].w,
                      (i64)i};
  rc = lp_solve_dense(le, g.es.n, g.np, &path, &len);
  if (rc == LP_OK) {
    sqlite3_str *out = sqlite3_str_new(NULL);
    sqlite3_str_appendchar(out, 1, '[');
    for (size_t i = 0; i < len; i++) {
      const out_edge *e = &g.es.e[path[i]];
      sqlite3_str_appendf(out, "%s[\"%s\",%lld,", i ? "," : "", type_name[e->type],
                          (long long)e->w);
      if (e->has_attr)
        sqlite3_str_appendf(out, "%lld]", (long long)e->attr);
      else
        sqlite3_str_appendall(out, "null]");
    }
    sqlite3_str_appendchar(out, 1, ']');
    int n = sqlite3_str_length(out);
    char *text = sqlite3_str_finish(out);
    if (!text)
      rc = LP_NOMEM;
    else
      sqlite3_result_text(ctx, text, n, sqlite3_free);
  }
done:
  report_rc(ctx, rc);
  graph_free(&g), free(le), free(path);
  span_free(s);
}

/* ---- the replay ----------------------------------------------------------- */

/* Each edge's offset: how long after its source its destination comes at
** least.  The lock's 'dependency' edges and the given edges: their weight
** (the given ones are the GPU's: a run, a launch delay, a gap between
** kernels, 0 for a launch's causality or a wait on another stream).  A
** given edge from GPU work into a call's end (a host sync): the call's
** recorded time after the later of that work's end and its own start (its
** return), whatever the edge weighs (HTA's 0 included).  The own lock
** edges (the implicit ones too) and the call stacks: the recorded time
** between the nodes (so the host's gaps and its own work stay), from the
** later of the source and the work a call waited for when they enter its
** end (the wait was the work's), less what the what-ifs took off.
** LP_OK, LP_NOMEM, or LP_OVERFLOW for times past 64 bits. */
static int replay_offsets(const span *s, const graph *g, i64 *off) {
  i64 *tg = malloc((g->np ? g->np : 1) * sizeof *tg);
  if (!tg) return LP_NOMEM;
  for (size_t v = 0; v < g->np; v++) tg[v] = INT64_MIN;
  for (size_t i = g->given0; i < g->implicit0; i++) {
    const out_edge *e = &g->es.e[i];
    if (s->ev[g->pts[e->src].e].gpu && !s->ev[g->pts[e->dst].e].gpu && g->pts[e->dst].is_end &&
        g->pts[e->src].t > tg[e->dst])
      tg[e->dst] = g->pts[e->src].t;
  }
  int rc = LP_OK;
  for (size_t i = 0; rc == LP_OK && i < g->es.n; i++) {
    const out_edge *e = &g->es.e[i];
    const event *dst = &s->ev[g->pts[e->dst].e];
    i64 from = g->pts[e->src].t, to = g->pts[e->dst].t, red, gap;
    int given = i >= g->given0 && i < g->implicit0;
    int sync = given && s->ev[g->pts[e->src].e].gpu && !dst->gpu && g->pts[e->dst].is_end;
    if ((given && !sync) || (i < g->stack0 && e->type == T_DEPENDENCY)) {
      off[i] = e->w;
      continue;
    }
    if (sync) /* the call's return: from the later of the work's end and its own start */
      from = from > dst->ts ? from : dst->ts;
    else if (tg[e->dst] > from) /* into a waited call's end: the wait was the work's */
      from = tg[e->dst];
    if (__builtin_sub_overflow(g->base[i], e->w, &red) ||
        __builtin_sub_overflow(to, from, &gap) || __builtin_sub_overflow(gap, red, &off[i]))
      rc = LP_OVERFLOW;
  }
  free(tg);
  return rc;
}

/* The replayed time of each node: a node no edge enters keeps its time;
** another comes at the latest of its sources' replayed times plus their
** offsets (in a topological order).  Returns LP_OK, LP_NOMEM, LP_CYCLE
** or LP_OVERFLOW; *shortening: the span's last recorded node time less its
** last replayed one. */
static int replay(const span *s, const graph *g, i64 *shortening) {
  size_t np = g->np, ne = g->es.n;
  i64 *off = malloc((ne ? ne : 1) * sizeof *off), *t = malloc((np ? np : 1) * sizeof *t);
  size_t *indeg = calloc(np ? np : 1, sizeof *indeg), *first = calloc(np + 1, sizeof *first);
  size_t *by_src = malloc((ne ? ne : 1) * sizeof *by_src),
         *queue = malloc((np ? np : 1) * sizeof *queue);
  int rc = LP_NOMEM;
  if (!off || !t || !indeg || !first || !by_src || !queue) goto out;
  if ((rc = replay_offsets(s, g, off)) != LP_OK) goto out;
  for (size_t i = 0; i < ne; i++) indeg[g->es.e[i].dst]++, first[g->es.e[i].src + 1]++;
  for (size_t v = 0; v < np; v++) first[v + 1] += first[v];
  for (size_t v = 0; v < np; v++) queue[v] = first[v]; /* (the queue as a fill cursor first) */
  for (size_t i = 0; i < ne; i++) by_src[queue[g->es.e[i].src]++] = i; /* CSR by source */
  size_t head = 0, tail = 0;
  for (size_t v = 0; v < np; v++) {
    t[v] = indeg[v] ? INT64_MIN : g->pts[v].t;
    if (!indeg[v]) queue[tail++] = v;
  }
  rc = LP_OK;
  while (rc == LP_OK && head < tail) {
    size_t u = queue[head++];
    for (size_t k = first[u]; k < first[u + 1]; k++) {
      const out_edge *e = &g->es.e[by_src[k]];
      i64 c;
      if (__builtin_add_overflow(t[u], off[by_src[k]], &c)) {
        rc = LP_OVERFLOW;
        break;
      }
      if (c > t[e->dst]) t[e->dst] = c;
      if (--indeg[e->dst] == 0) queue[tail++] = e->dst;
    }
  }
  if (rc == LP_OK && tail < np) rc = LP_CYCLE;
  if (rc == LP_OK) {
    i64 rec = INT64_MIN, got = INT64_MIN;
    for (size_t v = 0; v < np; v++) {
      if (g->pts[v].t > rec) rec = g->pts[v].t;
      if (t[v] > got) got = t[v];
    }
    if (__builtin_sub_overflow(rec, got, shortening)) rc = LP_OVERFLOW;
  }
out:
  free(off), free(t), free(indeg), free(first), free(by_src), free(queue);
  return rc;
}

static void replay_final(sqlite3_context *ctx) {
  span *s = sqlite3_aggregate_context(ctx, 0);
  if (!s) return;
  if (s->failed || s->too_big || !s->nev) {
    span_free(s);
    return;
  }
  graph g;
  i64 shortening = 0;
  int rc = build_graph(s, &g, 1, 0, 1);
  if (rc == LP_OK) rc = replay(s, &g, &shortening);
  if (rc == LP_OK)
    sqlite3_result_int64(ctx, shortening);
  else
    report_rc(ctx, rc);
  graph_free(&g);
  span_free(s);
}

int profdb_critical_path_init(sqlite3 *db) {
  int rc =
      sqlite3_create_function(db, "profdb_critical_path", 11, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                              (void *)"profdb_critical_path", NULL, cp_step, cp_final);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "profdb_replay", 11, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                                 (void *)"profdb_replay", NULL, cp_step, replay_final);
  return rc;
}

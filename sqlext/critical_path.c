/*
** critical_path.c — the critical path's graph, built and walked in one
** pass per span (queries/lib/61_critical_path_edges.sql;
** docs/definitions.md, "Critical path").
**
** The graph is built here for the replay too (replay.c; cp_graph.h).
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
**               for the same event and type multiply.  D the scenario it
**               belongs to (profdb_replay_each only; NULL: every one).
**               E..J NULL.
**   ROW 'scale_kind'  what-ifs by kind: A a kind (text, as the 'ev' rows'
**               K and L give them), B, C and D as a 'scale' row's: a
**               'scale' row for each event of the span whose K or L is A
**               (one for both); its scenario D is replayed when an event of
**               the span has that kind, one of a thread left out included.
**               E..J NULL.
**   ROW 'idle'  A pid, B tid: a CPU thread left out of the graph: its
**               events (not GPU work) are dropped, only their kinds kept
**               (the replay's threads that only poll: queries/lib/63).
**               Given before the events, they are never held nor counted
**               toward CP_MAX_EVENTS.  C..J NULL.
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
** SQL Function: profdb_critical_path_sum(ROW, A, ..., J, K, L)  aggregate
**   The same rows and path, summed: an 'ev' row also gives K its kind
**   (text: 'cpu_op', 'runtime', 'gpu:CATEGORY'; NULL: none) and L its name
**   (an integer or NULL; K and L NULL for other rows).  Each path edge is
**   of a kind: 'collective_wait' for a 'sync' edge that weighs, its type
**   for a 'launch', 'kernel_kernel', 'sync' or 'dependency' edge, else its
**   event's K ('cpu_op' when it has none or no event), and named by its
**   event's L.  An edge attributed to an event
**   that is not one of the span's (a call stack's parent outside it: a
**   Python frame, an annotation) is summed per that event instead, its kind
**   NULL for an 'operator' edge, its name NULL: SQL names it.  Returns a
**   JSON array of [kind, name, weight summed, edges, that event or NULL]
**   per kind and name (or event), in the order of kind (NULL, then as
**   bytes), then the span's events before others, then name (NULL first)
**   or event; NULL as profdb_critical_path.  A span's path can hold ~10^6
**   edges and the report reads only these sums (queries/critical_path.sql).
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
** Memory: about 500 bytes per event of the span, freed at its end.
** Errors: a bad ROW or type, a non-integer time or id, an event whose
** duration passes 64 bits, two events with one id, a negative or
** non-numeric factor, a cycle, a replayed time past 64 bits, out of
** memory; a scenario (D: profdb_replay_each's alone), over 4096 of them
** (each is a replay of the span); over 4096 distinct kinds (K).
** Flags: INNOCUOUS.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "cp_graph.h"
#include "families.h"
#include "longest_path.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
  int c = cp_key_cmp(sx->pid, sy->pid);
  if (!c) c = cp_key_cmp(sx->tid, sy->tid);
  if (c) return c;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  if (x->is_end != y->is_end) return x->is_end ? -1 : 1; /* an end first */
  i64 kx = x->is_end ? sx->dur : -sx->dur, ky = y->is_end ? sy->dur : -sy->dur;
  if (kx != ky) return kx < ky ? -1 : 1;
  i64 ix = x->is_end ? -x->ev : x->ev, iy = y->is_end ? -y->ev : y->ev;
  return ix < iy ? -1 : ix > iy;
}

/* An event id and its index in span.ev, sorted by id to find events. */
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
  if (!cp_grow((void **)&es->e, &es->cap, es->n, sizeof *es->e)) return 0;
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
  int c = cp_key_cmp(x->domain, y->domain);
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
    if (i && cp_key_cmp(lk[i].domain, lk[i - 1].domain))
      npend = 0, prev_end = -1; /* new domain */
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
    if (i == 0 || cp_key_cmp(cpu[i].pid, cpu[i - 1].pid) ||
        cp_key_cmp(cpu[i].tid, cpu[i - 1].tid)) {
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

/* w times product, rounded once and kept within 64 bits. */
i64 cp_scaled_weight(i64 w, double product) {
  double x = (double)w * product;
  return x >= 9.2e18 ? (i64)9.2e18 : x <= -9.2e18 ? (i64)-9.2e18 : (i64)llround(x);
}

static int cmp_scale(const void *a, const void *b) {
  const scale *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return x->type - y->type;
}

static void sort_scales(span *s) {
  if (s->nsc) qsort(s->sc, s->nsc, sizeof *s->sc, cmp_scale);
}

int cp_scale_product(const span *s, size_t r0, int type, const char *scen, double *product) {
  int scaled = 0;
  *product = 1;
  for (size_t r = r0; r < s->nsc && s->sc[r].id == s->sc[r0].id; r++)
    if ((s->sc[r].type < 0 || s->sc[r].type == type) &&
        (!scen || !s->sc[r].scen || s->sc[r].scen == scen))
      *product *= s->sc[r].factor, scaled = 1;
  return scaled;
}

/* The what-ifs: each edge attributed to a scaled event weighs its factors'
** product times as much (every row for its event and type applies),
** rounded once and kept within 64 bits.  The rows are sorted by
** sort_scales. */
static void apply_scales(const span *s, edges *es) {
  if (!s->nsc) return;
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
    double product;
    if (lo < s->nsc && s->sc[lo].id == e->attr &&
        cp_scale_product(s, lo, e->type, NULL, &product))
      e->w = cp_scaled_weight(e->w, product);
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
void cp_graph_free(graph *g) {
  free(g->pts), free(g->es.e), free(g->own_edge), free(g->base), free(g->ids);
}

/* Builds the graph of span s, with its what-ifs applied unless
** per_scenario (base then holds the weights; replay_each_final applies
** each scenario's); implicit: also an own edge for each lock-taking call
** whose lock edges left it none, from implicit0: the replay needs every
** call's own time.  Returns LP_OK, LP_NOMEM, or -1 for two events with
** one id. */
int cp_build_graph(span *s, graph *g, int with_base, int with_own, int implicit,
                   int per_scenario) {
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
  sort_scales(s);
  if (!per_scenario) apply_scales(s, &g->es);
  return LP_OK;
}

/* A failure's message (none for LP_OK). */
void cp_report_rc(sqlite3_context *ctx, int rc) {
  if (rc != LP_OK)
    cp_result_error(ctx, rc == LP_CYCLE      ? "the graph has a cycle"
                         : rc == LP_OVERFLOW ? "a length or time passes 64 bits"
                         : rc == -1          ? "two events have one id"
                                             : NULL);
}

/* The longest path of span s: g its graph, *path its edges' indices into
** g->es, first first (both freed by the caller, also on failure).  LP_OK
** or a failure's rc. */
static int walk(span *s, graph *g, size_t **path, size_t *len) {
  lp_edge *le = NULL;
  int rc, waits = s->nwt && s->nsc; /* waits shrink only under what-ifs */
  if ((rc = cp_build_graph(s, g, waits, waits, 0, 0)) != LP_OK) return rc;
  if (waits && !shrink_waits(s, g->pts, g->np, &g->es, g->base, g->given0, g->own_edge, g->ids))
    return LP_NOMEM;
  if (!(le = malloc((g->es.n ? g->es.n : 1) * sizeof *le))) return LP_NOMEM;
  for (size_t i = 0; i < g->es.n; i++)
    /* a negative weight (a child ending after its parent, HTA's rounding
    ** of a sub-µs kernel) is searched as 0 and reported as it is, as HTA
    ** does (CPGraph.critical_path sets such nx weights to 0) */
    le[i] = (lp_edge){(i64)g->es.e[i].src, (i64)g->es.e[i].dst,
                      g->es.e[i].w < 0 ? 0 : g->es.e[i].w, (i64)i};
  rc = lp_solve_dense(le, g->es.n, g->np, path, len);
  free(le);
  return rc;
}

/* A span past its bounds or without rows has no path (NULL); frees it. */
static int no_path(sqlite3_context *ctx, span *s) {
  int nomem = !s->failed && !s->too_big && !cp_span_prepare(s);
  if (nomem || s->failed || s->too_big || (!s->nev && !s->nge)) {
    if (nomem) sqlite3_result_error_nomem(ctx);
    cp_span_free(s);
    return 1;
  }
  return 0;
}

/* ",v" or ",null" (has: whether there is a v) after a JSON array's element. */
static void append_int_or_null(sqlite3_str *out, int has, i64 v) {
  if (has)
    sqlite3_str_appendf(out, ",%lld", (long long)v);
  else
    sqlite3_str_appendall(out, ",null");
}

/* sqlite3_str's text as the function's result (rc LP_NOMEM when it failed). */
static int result_str(sqlite3_context *ctx, sqlite3_str *out) {
  int n = sqlite3_str_length(out);
  char *text = sqlite3_str_finish(out);
  if (!text) return LP_NOMEM;
  sqlite3_result_text(ctx, text, n, sqlite3_free);
  return LP_OK;
}

static void cp_final(sqlite3_context *ctx) {
  span *s = sqlite3_aggregate_context(ctx, 0);
  if (!s || no_path(ctx, s)) return;
  graph g;
  size_t *path = NULL, len = 0;
  int rc = walk(s, &g, &path, &len);
  if (rc == LP_OK) {
    sqlite3_str *out = sqlite3_str_new(NULL);
    sqlite3_str_appendchar(out, 1, '[');
    for (size_t i = 0; i < len; i++) {
      const out_edge *e = &g.es.e[path[i]];
      sqlite3_str_appendf(out, "%s[\"%s\",%lld", i ? "," : "", cp_type_name[e->type],
                          (long long)e->w);
      append_int_or_null(out, e->has_attr, e->attr);
      sqlite3_str_appendchar(out, 1, ']');
    }
    sqlite3_str_appendchar(out, 1, ']');
    rc = result_str(ctx, out);
  }
  cp_report_rc(ctx, rc);
  cp_graph_free(&g), free(path);
  cp_span_free(s);
}

/* ---- the path summed by kind and name (profdb_critical_path_sum) ---------- */

/* One path edge: its kind (text; NULL: its event's, which is not one of
** the span's), its name, or that event, and its weight. */
typedef struct path_part {
  const char *kind;
  i64 name_id, ev, w;
  int has_name, has_ev;
} path_part;

static int cmp_part(const void *a, const void *b) {
  const path_part *x = a, *y = b;
  if (!x->kind != !y->kind) return x->kind ? 1 : -1;
  int c = x->kind ? strcmp(x->kind, y->kind) : 0;
  if (c) return c;
  if (x->has_ev != y->has_ev) return x->has_ev - y->has_ev;
  if (x->has_ev) return x->ev < y->ev ? -1 : x->ev > y->ev;
  if (x->has_name != y->has_name) return x->has_name - y->has_name;
  return x->name_id < y->name_id ? -1 : x->name_id > y->name_id;
}

void cp_json_string(sqlite3_str *out, const char *text) {
  sqlite3_str_appendchar(out, 1, '"');
  for (const unsigned char *c = (const unsigned char *)text; *c; c++)
    if (*c == '"' || *c == '\\')
      sqlite3_str_appendf(out, "\\%c", *c);
    else if (*c < 0x20)
      sqlite3_str_appendf(out, "\\u%04x", *c);
    else
      sqlite3_str_appendchar(out, 1, (char)*c);
  sqlite3_str_appendchar(out, 1, '"');
}

/* Path edge e's kind and name (the rule of profdb_critical_path_sum). */
static path_part part_of(const span *s, const graph *g, const out_edge *e) {
  path_part p = {"cpu_op", 0, 0, e->w, 0, 0};
  size_t i = e->has_attr ? find_event(s, g->ids, e->attr) : (size_t)-1;
  const event *ev = i != (size_t)-1 ? &s->ev[i] : NULL;
  if (ev && ev->has_name) p.has_name = 1, p.name_id = ev->name_id;
  if (e->has_attr && !ev) p.has_ev = 1, p.ev = e->attr; /* (a parent outside the span) */
  if (e->type == T_SYNC && e->w > 0)
    p.kind = "collective_wait";
  else if (e->type != T_OPERATOR)
    p.kind = cp_type_name[e->type];
  else if (ev && ev->kind)
    p.kind = s->kinds[ev->kind - 1];
  else if (!ev && e->has_attr)
    p.kind = NULL;
  return p;
}

static void cp_sum_final(sqlite3_context *ctx) {
  span *s = sqlite3_aggregate_context(ctx, 0);
  if (!s || no_path(ctx, s)) return;
  graph g;
  size_t *path = NULL, len = 0;
  path_part *parts = NULL;
  int rc = walk(s, &g, &path, &len);
  if (rc == LP_OK && !(parts = malloc((len ? len : 1) * sizeof *parts))) rc = LP_NOMEM;
  if (rc == LP_OK) {
    for (size_t i = 0; i < len; i++) parts[i] = part_of(s, &g, &g.es.e[path[i]]);
    qsort(parts, len, sizeof *parts, cmp_part);
    sqlite3_str *out = sqlite3_str_new(NULL);
    sqlite3_str_appendchar(out, 1, '[');
    for (size_t i = 0, j; i < len; i = j) {
      i64 ns = 0;
      for (j = i; j < len && !cmp_part(&parts[i], &parts[j]); j++) ns = sat_add(ns, parts[j].w);
      sqlite3_str_appendall(out, i ? ",[" : "[");
      if (parts[i].kind)
        cp_json_string(out, parts[i].kind);
      else
        sqlite3_str_appendall(out, "null");
      append_int_or_null(out, parts[i].has_name, parts[i].name_id);
      sqlite3_str_appendf(out, ",%lld,%lld", (long long)ns, (long long)(j - i));
      append_int_or_null(out, parts[i].has_ev, parts[i].ev);
      sqlite3_str_appendchar(out, 1, ']');
    }
    sqlite3_str_appendchar(out, 1, ']');
    rc = result_str(ctx, out);
  }
  cp_report_rc(ctx, rc);
  cp_graph_free(&g), free(path), free(parts);
  cp_span_free(s);
}

int profdb_critical_path_init(sqlite3 *db) {
  int rc =
      sqlite3_create_function(db, "profdb_critical_path", 11, SQLITE_UTF8 | SQLITE_INNOCUOUS,
                              (void *)"profdb_critical_path", NULL, cp_step, cp_final);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(
        db, "profdb_critical_path_sum", 13, SQLITE_UTF8 | SQLITE_INNOCUOUS,
        (void *)"profdb_critical_path_sum", NULL, cp_step, cp_sum_final);
  return rc;
}

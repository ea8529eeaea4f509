/*
** flops.c — floating-point operations of one operator call, from the shapes
** the profiler recorded (record_shapes=True).
**
** SQL Function: op_flops(NAME, INPUT_DIMS, CONCRETE_INPUTS)
**   The multiply-adds of one call, counted as 2 FLOPs each (the convention
**   of torch.utils.flop_counter, TraceLens and the MFU literature), or NULL
**   when NAME is not counted or the shapes do not fit.  INPUT_DIMS is the
**   "Input Dims" arg ('[[512,1000],[1000,512]]'), CONCRETE_INPUTS the
**   "Concrete Inputs" arg (strings such as "[2, 2]", "1", "False"; needed
**   by convolutions for stride, padding, dilation, transposed and groups).
**
**     aten::mm       A[M,K] B[K,N]                      2*M*K*N
**     aten::addmm    bias, A[M,K], B[K,N]               2*M*K*N (bias add not counted)
**     aten::bmm      A[B,M,K] B[B,K,N]                  2*B*M*K*N
**     aten::baddbmm  bias, A[B,M,K], B[B,K,N]           2*B*M*K*N
**     aten::matmul   A[...,M,K] B[...,K,N] (1-D sides as torch.matmul
**                    treats them; batch dims broadcast)  2*batch*M*K*N
**     aten::linear   X[...,K] W[N,K] (bias)             2*rows(X)*K*N
**     aten::convolution   X[N,C,*S] W[O,C/g,*k], stride, padding,
**                    dilation, transposed, output_padding, groups:
**                      2*N*O*prod(out spatial)*(C/g)*prod(k); transposed
**                      (W[C,O/g,*k]): 2*N*C*prod(in spatial)*(O/g)*prod(k)
**     aten::convolution_backward  dY[N,O,*So] X W[O,C/g,*k] ... output_mask:
**                      the forward's FLOPs once for grad_input and once for
**                      grad_weight when the mask asks for them
**     aten::scaled_dot_product_attention  Q[...,L,E] K[...,S,E] V[...,S,Ev]:
**                      2*batch*L*S*E + 2*batch*L*S*Ev (masked-out and causal
**                      positions are counted, as torch's flop counter does)
**
**     SELECT op_flops('aten::mm', '[[512,1000],[1000,512]]', NULL);  -- 524288000
**
** SQL Function: op_elements(NAME, INPUT_DIMS)
**   The elements a matrix-multiply call (the first six operators above)
**   reads and writes at least: every tensor operand once (bias included,
**   scalars not) and its result once (FLOPs / 2K); NULL for other
**   operators or shapes op_flops does not count.  Times the element size,
**   the bytes of the memory roofline (low_gemm_efficiency).
**
**     SELECT op_elements('aten::bmm', '[[64,2048,64],[64,64,2048]]');  -- 285212672
**
** Flags: DETERMINISTIC | INNOCUOUS.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "families.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 16
#define MAX_DIMS 8
#define BIG (1LL << 31)

/* One argument: its dims (ndim = -1 when it is not a list of integers). */
typedef struct {
  int ndim;
  int64_t d[MAX_DIMS];
} Arg;

/* Parse the integers of a flat list "[a, b, ...]" or one integer "a" at
** *p; booleans read as 1/0.  Returns the count, -1 when it is neither. */
static int parse_ints(const char **p, int64_t *out, int max) {
  const char *s = *p;
  while (*s == ' ') s++;
  int list = *s == '[', n = 0;
  if (list) s++;
  for (;;) {
    while (*s == ' ' || *s == ',') s++;
    if (list && *s == ']') {
      s++;
      break;
    }
    if (!list && n == 1) break;
    if (!strncmp(s, "True", 4) || !strncmp(s, "true", 4)) {
      if (n < max) out[n] = 1;
      n++;
      s += 4;
      continue;
    }
    if (!strncmp(s, "False", 5) || !strncmp(s, "false", 5)) {
      if (n < max) out[n] = 0;
      n++;
      s += 5;
      continue;
    }
    if (*s != '-' && !isdigit((unsigned char)*s)) return -1;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (v > BIG || v < -BIG) return -1; /* keeps the integer shape arithmetic in range */
    if (n < max) out[n] = v;
    n++;
    s = end;
  }
  *p = s;
  return n > max ? -1 : n;
}

/* Skip blanks and an opening '[' at *s; 0 when there is none. */
static int open_list(const char **s) {
  if (!*s) return 0;
  while (**s == ' ') (*s)++;
  return *(*s)++ == '[';
}

/* Skip one list entry of any nesting at s, up to the ',' or ']' after it. */
static const char *skip_entry(const char *s) {
  int depth = 0;
  while (*s && !(depth == 0 && (*s == ',' || *s == ']'))) {
    if (*s == '[') depth++;
    if (*s == ']') depth--;
    s++;
  }
  return s;
}

/* "Input Dims": '[[a,b],[],[c]]' -> args (ndim -1 for an entry that is not
** a flat list of non-negative integers, e.g. a TensorList's nested lists);
** returns the number of args or -1. */
static int parse_dims(const char *s, Arg *args) {
  if (!open_list(&s)) return -1;
  int n = 0;
  for (;;) {
    while (*s == ' ' || *s == ',') s++;
    if (*s == ']' || !*s || n == MAX_ARGS) break;
    const char *p = s;
    args[n].ndim = *s == '[' ? parse_ints(&p, args[n].d, MAX_DIMS) : -1;
    for (int i = 0; i < args[n].ndim; i++)
      if (args[n].d[i] < 0) args[n].ndim = -1;
    s = args[n].ndim < 0 ? skip_entry(s) : p;
    n++;
  }
  return n;
}

/* "Concrete Inputs": '["", "[2, 2]", "1", "False"]' -> for each entry its
** integers in args[i].d (ndim = count, -1 when not numeric or empty). */
static int parse_concrete(const char *s, Arg *args) {
  if (!open_list(&s)) return -1;
  int n = 0;
  for (;;) {
    while (*s == ' ' || *s == ',') s++;
    if (*s != '"' || n == MAX_ARGS) break;
    const char *q = ++s, *end = strchr(q, '"');
    if (!end) return -1;
    char buf[128];
    size_t len = (size_t)(end - q) < sizeof buf - 1 ? (size_t)(end - q) : sizeof buf - 1;
    memcpy(buf, q, len);
    buf[len] = 0;
    const char *b = buf;
    args[n].ndim = len ? parse_ints(&b, args[n].d, MAX_DIMS) : -1;
    n++;
    s = end + 1;
  }
  return n;
}

static double prod(const int64_t *d, int from, int to) {
  double p = 1;
  for (int i = from; i < to; i++) p *= d[i];
  return p;
}

/* Batch size of two operands' leading dims broadcast together. */
static double broadcast_batch(const Arg *a, int a_batch, const Arg *b, int b_batch) {
  double p = 1;
  int n = a_batch > b_batch ? a_batch : b_batch;
  for (int i = 0; i < n; i++) {
    int ia = a_batch - n + i, ib = b_batch - n + i;
    int64_t x = ia >= 0 ? a->d[ia] : 1, y = ib >= 0 ? b->d[ib] : 1;
    p *= (double)(x > y ? x : y);
  }
  return p;
}

/* torch.matmul: 1-D operands are a row (left) or a column (right). */
static double matmul_flops(const Arg *a, const Arg *b) {
  if (a->ndim < 1 || b->ndim < 1) return -1;
  int64_t m = a->ndim >= 2 ? a->d[a->ndim - 2] : 1, k = a->d[a->ndim - 1];
  int64_t kb = b->ndim >= 2 ? b->d[b->ndim - 2] : b->d[0];
  int64_t n = b->ndim >= 2 ? b->d[b->ndim - 1] : 1;
  if (k != kb) return -1;
  double batch =
      broadcast_batch(a, a->ndim >= 2 ? a->ndim - 2 : 0, b, b->ndim >= 2 ? b->ndim - 2 : 0);
  return 2 * batch * (double)m * (double)k * (double)n;
}

/* Forward convolution FLOPs from input X, weight W and the concrete
** stride/padding/dilation/transposed/groups at positions sp, pp, dp, tp, gp
** of c (tp < 0: not transposed).  Returns -1 when something is missing. */
static double conv_flops(const Arg *x, const Arg *w, const Arg *c, int nc, int sp, int pp,
                         int dp, int tp, int gp) {
  int sd = x->ndim - 2;
  /* groups must be recorded, though W already holds the C/groups channels */
  if (sd < 1 || w->ndim != x->ndim || gp >= nc || c[gp].ndim != 1) return -1;
  int transposed = tp >= 0 && tp < nc && c[tp].ndim == 1 && c[tp].d[0];
  double kernel = prod(w->d, 2, w->ndim);
  if (transposed) /* W[C, O/g, *k]: every input position scatters to O/g*k outputs */
    return 2.0 * (double)x->d[0] * (double)x->d[1] * prod(x->d, 2, x->ndim) * (double)w->d[1] *
           kernel;
  if (sp >= nc || pp >= nc || dp >= nc) return -1;
  double out = 1;
  for (int i = 0; i < sd; i++) {
    /* a list of one value applies to every spatial dim */
    int64_t s = c[sp].ndim > i ? c[sp].d[i] : c[sp].ndim == 1 ? c[sp].d[0] : 1;
    int64_t p = c[pp].ndim > i ? c[pp].d[i] : c[pp].ndim == 1 ? c[pp].d[0] : 0;
    int64_t d = c[dp].ndim > i ? c[dp].d[i] : c[dp].ndim == 1 ? c[dp].d[0] : 1;
    if (s <= 0) return -1;
    int64_t o = (x->d[2 + i] + 2 * p - d * (w->d[2 + i] - 1) - 1) / s + 1;
    if (o <= 0) return -1;
    out *= (double)o;
  }
  return 2.0 * (double)x->d[0] * (double)w->d[0] * out * (double)w->d[1] * kernel;
}

static double op_flops(const char *name, const Arg *a, int na, const Arg *c, int nc) {
#define DIMS(i, n) (na > (i) && a[i].ndim == (n))
  if (!strcmp(name, "aten::mm")) {
    if (!DIMS(0, 2) || !DIMS(1, 2) || a[0].d[1] != a[1].d[0]) return -1;
    return 2.0 * (double)a[0].d[0] * (double)a[0].d[1] * (double)a[1].d[1];
  }
  if (!strcmp(name, "aten::addmm")) {
    if (!DIMS(1, 2) || !DIMS(2, 2) || a[1].d[1] != a[2].d[0]) return -1;
    return 2.0 * (double)a[1].d[0] * (double)a[1].d[1] * (double)a[2].d[1];
  }
  if (!strcmp(name, "aten::bmm") || !strcmp(name, "aten::baddbmm")) {
    int i = name[6] == 'b' && name[7] == 'a' ? 1 : 0; /* baddbmm: bias first */
    if (!DIMS(i, 3) || !DIMS(i + 1, 3) || a[i].d[2] != a[i + 1].d[1] ||
        a[i].d[0] != a[i + 1].d[0])
      return -1;
    return 2.0 * (double)a[i].d[0] * (double)a[i].d[1] * (double)a[i].d[2] *
           (double)a[i + 1].d[2];
  }
  if (!strcmp(name, "aten::matmul")) return na >= 2 ? matmul_flops(&a[0], &a[1]) : -1;
  if (!strcmp(name, "aten::linear")) {
    if (na < 2 || a[0].ndim < 1 || !DIMS(1, 2) || a[0].d[a[0].ndim - 1] != a[1].d[1]) return -1;
    return 2.0 * prod(a[0].d, 0, a[0].ndim - 1) * (double)a[1].d[1] * (double)a[1].d[0];
  }
  if (!strcmp(name, "aten::convolution")) {
    /* (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups) */
    if (na < 2) return -1;
    return conv_flops(&a[0], &a[1], c, nc, 3, 4, 5, 6, 8);
  }
  if (!strcmp(name, "aten::convolution_backward")) {
    /* (grad_output, input, weight, bias_sizes, stride, padding, dilation,
    **  transposed, output_padding, groups, output_mask) */
    if (na < 3 || nc < 11 || c[10].ndim < 2) return -1;
    double fwd = conv_flops(&a[1], &a[2], c, nc, 4, 5, 6, 7, 9);
    if (fwd < 0) return -1;
    return fwd * ((c[10].d[0] ? 1 : 0) + (c[10].d[1] ? 1 : 0));
  }
  if (!strcmp(name, "aten::scaled_dot_product_attention")) {
    if (na < 3) return -1;
    const Arg *q = &a[0], *k = &a[1], *v = &a[2];
    int n = q->ndim;
    if (n < 2 || k->ndim != n || v->ndim != n || q->d[n - 1] != k->d[n - 1] ||
        k->d[n - 2] != v->d[n - 2])
      return -1;
    double batch = prod(q->d, 0, n - 2), l = (double)q->d[n - 2], s = (double)k->d[n - 2];
    return 2 * batch * l * s * (double)q->d[n - 1] + 2 * batch * l * s * (double)v->d[n - 1];
  }
  return -1;
#undef DIMS
}

/* The contraction length K of a matrix-multiply call op_flops counted
** (its operands checked there), or -1 for other operators. */
static double matmul_k(const char *name, const Arg *a, int na) {
  if (!strcmp(name, "aten::mm")) return (double)a[0].d[1];
  if (!strcmp(name, "aten::addmm")) return (double)a[1].d[1];
  if (!strcmp(name, "aten::bmm")) return (double)a[0].d[2];
  if (!strcmp(name, "aten::baddbmm")) return (double)a[1].d[2];
  if (!strcmp(name, "aten::matmul")) return (double)a[0].d[a[0].ndim - 1];
  if (!strcmp(name, "aten::linear")) return (double)a[1].d[1];
  (void)na;
  return -1;
}

static void op_elements_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  const char *name = (const char *)sqlite3_value_text(argv[0]);
  const char *dims = (const char *)sqlite3_value_text(argv[1]);
  if (!name || !dims) return;
  Arg a[MAX_ARGS];
  int na = parse_dims(dims, a);
  if (na < 0) return;
  double f = op_flops(name, a, na, NULL, 0);
  double k = f > 0 ? matmul_k(name, a, na) : -1;
  if (k <= 0) return;
  double e = f / (2 * k); /* the result */
  for (int i = 0; i < na; i++)
    if (a[i].ndim >= 1) e += prod(a[i].d, 0, a[i].ndim);
  if (e < 9.2e18) sqlite3_result_int64(ctx, (int64_t)e);
}

static void op_flops_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  const char *name = (const char *)sqlite3_value_text(argv[0]);
  const char *dims = (const char *)sqlite3_value_text(argv[1]);
  const char *concrete = (const char *)sqlite3_value_text(argv[2]);
  if (!name || !dims) return;
  Arg a[MAX_ARGS], c[MAX_ARGS];
  int na = parse_dims(dims, a);
  int nc = concrete ? parse_concrete(concrete, c) : 0;
  if (na < 0) return;
  if (nc < 0) nc = 0;
  double f = op_flops(name, a, na, c, nc);
  /* doubles: exact up to 2^53 FLOPs per call, and no integer overflow on
  ** absurd shapes */
  if (f >= 0 && f < 9.2e18) sqlite3_result_int64(ctx, (int64_t)f);
}

int profdb_flops_init(sqlite3 *db) {
  int rc = sqlite3_create_function(db, "op_flops", 3,
                                   SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
                                   op_flops_fn, NULL, NULL);
  if (rc != SQLITE_OK) return rc;
  return sqlite3_create_function(db, "op_elements", 2,
                                 SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
                                 op_elements_fn, NULL, NULL);
}

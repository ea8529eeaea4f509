/*
** category.c — kernel_category(name): what kind of GPU work a kernel is.
**
** SQL Function: kernel_category(NAME)
**   Returns a category such as 'GEMM', 'Attention', 'NCCL/communication',
**   'Elementwise', or 'Other'; NULL when NAME is NULL.
**
**     SELECT kernel_category(name) AS cat, sum(dur) / 1e6 AS ms
**     FROM kernel GROUP BY 1 ORDER BY 2 DESC;
**
** HOW IT WORKS
**   The built-in rules below are tried in order, most specific first: the
**   first category with a pattern that occurs in the lower-cased name
**   wins (so 'implicit_gemm' conv kernels are Convolution before GEMM can
**   claim them, and 'relu'-fused cuDNN kernels stay Convolution).
**
**   User rules come first when a table kernel_category_rule(priority,
**   pattern, category) exists (in the temp schema, main or an attached
**   database: it is looked up by its unqualified name).  Rules apply in
**   ascending priority.  A pattern matches case-insensitively: with no '*'
**   or '?' it matches anywhere in the name (a substring); with them it is a
**   glob over the whole name ('*' any run, '?' one character).
**
**   Results are cached per connection and distinct name (names up to 4 KiB,
**   at most 65536 of them and 8 MiB: a full cache starts again, so a trace of 10^6
**   distinct or 30 MiB names costs no more memory than a small one); the cache and the
**   user rules are reloaded when the database changed (rows, another
**   connection's commit, or the schema; see refresh()), so edits to the
**   rule table, and creating, replacing or dropping it, apply to the next
**   call.
**
** Flags: not DETERMINISTIC (the result depends on a table), not INNOCUOUS.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "families.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- built-in rules ------------------------------------------------------ */

typedef struct cat_rule {
  const char *category;
  const char *patterns[40]; /* lower-case substrings, NULL-terminated */
} cat_rule;

/* Order matters: most specific first.  Patterns are checked against the
** lower-cased kernel name. */
static const cat_rule builtin_rules[] = {
    /* Reference-analyser categories (axolotl): very specific names. */
    {"ScatterMoE",
     {"_group_bwd_lora", "_group_bwd_da", "_group_bwd_db", "_scatter2scatter", "scattermoe",
      NULL}},
    {"BnB dequantization",
     {"kdequantize", "kquantize", "bitsandbytes", "dequantize_4bit", "dequantize_nf4",
      "kgemm_4bit", NULL}},
    {"LoRA fused", {"lora_qkv", "lora_o", "lora_mlp", NULL}},
    {"DoRA norm", {"dora", NULL}},
    {"CCE loss", {"_cce_", "cut_cross_entropy", NULL}},
    /* Communication: collective libraries, then the expert-parallel
    ** all-to-all kernels of DeepEP (deep_ep::intranode / internode /
    ** internode_ll: notify_dispatch, dispatch, cached_notify_*, combine),
    ** its UCCL-EP fork (uccl::) and ROCm's MoRI (EpDispatch*Kernel,
    ** EpCombine*Kernel); the same kernels in other namespaces: a
    ** framework's own port (fw::ep::dispatch, fw::ep::intranode::combine),
    ** DeepEP's hybrid-EP (hybrid_ep::), pplx-kernels (pplx::dispatchKernel,
    ** combineKernel), TensorRT-LLM's moeA2ADispatchKernel / Combine, and
    ** moe_dispatch / moe_combine kernels (which MoE routing's "moe_" would
    ** take).  README.md lists the sources.  Not a bare "dispatch" or
    ** "combine" (groupnorm_kernel_dispatch_down). */
    {"NCCL/communication",
     {"nccl",
      "rccl",
      "msccl",
      "all_reduce",
      "allreduce",
      "all_gather",
      "allgather",
      "reduce_scatter",
      "reducescatter",
      "alltoall",
      "all_to_all",
      "sendrecv",
      "cross_device_reduce",
      "multimem",
      "nvshmem",
      "deep_ep::intranode::",
      "deep_ep::internode",
      "uccl::intranode::",
      "uccl::internode",
      "notify_dispatch",
      "notify_combine",
      "cached_notify",
      "epdispatch",
      "epcombine",
      "::ep::dispatch",
      "::ep::combine",
      "::ep::intranode",
      "::ep::internode",
      "hybrid_ep::",
      "pplx::",
      "moea2a",
      "moe_dispatch",
      "moe_combine",
      NULL}},
    /* deep_ep::layout::get_dispatch_layout counts tokens per rank and
    ** expert on the GPU: routing, no transfer. */
    {"MoE routing",
     {"moe_", "fused_moe", "moe::", "topk_softmax", "expert", "router", "grouped_topk",
      "get_dispatch_layout", NULL}},
    {"Attention",
     {"flash", "fmha", "attention", "attn", "sdpa", "scaled_dot_product", "mha_", "xformers",
      "flashinfer", "kvcache", "kv_cache", "paged_", NULL}},
    {"Conv1d", {"conv1d", "causal_conv", NULL}},
    {"Normalization",
     {"layer_norm", "layernorm", "rms_norm", "rmsnorm", "batch_norm", "batchnorm", "group_norm",
      "groupnorm", "instance_norm", "instancenorm", "bn_fw", "bn_bw", "welford", "gammabeta",
      "rowwisemoments", NULL}},
    /* MIOpen's helpers around its convolution solvers (README, "Where the
    ** Convolution patterns come from"): batched_transpose_* (NCHW <-> NHWC
    ** for the NHWC igemm solvers) and SubTensorOp* (set / scale / cast of a
    ** conv's output or workspace). */
    {"Convolution", {"conv2d",        "conv3d",
                     "convolution",   "convolve",
                     "implicit_gemm", "implicitgemmconv",
                     "fprop",         "dgrad",
                     "wgrad",         "winograd",
                     "scudnn",        "cudnn::cnn",
                     "cudnn::detail", "igemm_bwd",
                     "igemm_fwd",     "igemm_wrw",
                     "grouped_conv",  "im2col",
                     "col2im",        "nchwtonhwc",
                     "nhwctonchw",    "cask_cudnn",
                     "cutlass_cudnn", "flip_filter",
                     "im2d2col",      "batched_transpose_",
                     "subtensorop",   NULL}},
    {"GEMM",
     {"gemm", "gemv", "cutlass", "cublas", "xmma", "nvjet", "cijk_", "magma", "matmul",
      "splitkreduce", "epilogue::", "wmma", "bmm_", "hipblaslt", "tensile", NULL}},
    {"Triton", {"triton", NULL}},
    {"FFT", {"fft", "mult_and_sum_complex", NULL}},
    {"Sleep/spin", {"spin_kernel", "sleep", NULL}},
    {"Embedding",
     {"embedding", "embed", "fbgemm", "linearize_index", "bucketize", "permute_pooled",
      "bounds_check_indices", NULL}},
    /* Not "lamb" (every {lambda} kernel) nor "optim" (cutlass "optimized"). */
    {"Optimizer",
     {"adam", "sgd", "multi_tensor_apply", "foreach", "optimizer", "lamb_", "_lamb",
      "lambstage", "adagrad", "lion", "rmsprop", NULL}},
    {"Loss",
     {"cross_entropy", "crossentropy", "nll_loss", "nllcriterion", "_loss", "loss_", NULL}},
    {"Softmax", {"softmax", NULL}},
    {"Pooling", {"pool", NULL}},
    {"TopK/Sort", {"topk", "sort", NULL}},
    {"Upsample", {"upsample", "interpolate", "grid_sampler", NULL}},
    {"Random",
     {"dropout", "philox", "curand", "bernoulli", "normal_kernel", "uniform_kernel", "randperm",
      "multinomial", NULL}},
    /* Not "put_" (updateOutput_kernel). */
    {"Index/Gather/Scatter",
     {"index", "gather", "scatter", "masked_", "nonzero", "take_", "index_put", NULL}},
    {"Quantization", {"dequant", "quant", "fp8", "nvfp4", "mxfp", "e4m3", "e5m2", NULL}},
    {"Dtype conversion",
     {"_to_copy", "to_copy", "bfloat16_copy", "float16_copy", "half_copy", NULL}},
    {"Activation",
     {"relu", "gelu", "silu", "swiglu", "geglu", "sigmoid", "tanh", "threshold", "softplus",
      "mish", "swish", "act_and_mul", "glu_", "elu_", NULL}},
    {"Reduction",
     {"reduce", "reduction", "sum_", "mean", "norm", "argmax", "argmin", "cumsum", "scan",
      "max_kernel", "min_kernel", NULL}},
    {"Memcpy", {"memcpy", NULL}},
    {"Memset", {"memset", NULL}},
    /* Not "fill" or "fill_" (attention "prefill_..."). */
    {"Elementwise",
     {"elementwise", "fillfunctor", "fill_kernel", "copy", "cast", "pointwise", "clamp",
      "transpose", "catarray", "where", "functor", "scale", NULL}},
};
#define N_BUILTIN (sizeof builtin_rules / sizeof builtin_rules[0])

/* ---- user rules ---------------------------------------------------------- */

typedef struct user_rule {
  char *pattern; /* lower-cased */
  char *category;
  int glob; /* pattern has '*' or '?' */
} user_rule;

/* ---- per-connection state ------------------------------------------------ */

typedef struct cache_slot {
  uint64_t hash; /* 0 = empty */
  char *name;    /* owned copy */
  size_t len;
  const char *category; /* static, or owned by a user_rule */
} cache_slot;

typedef struct cat_state {
  cache_slot *slots; /* open addressing, power-of-two size */
  size_t mask, count;
  user_rule *rules; /* user rules in priority order */
  int nrules;
  int loaded;            /* rules read at least once */
  sqlite3_int64 changes; /* total_changes when rules were read */
  int data_version;      /* data_version when rules were read */
  sqlite3_int64 schema;  /* sum of the schema cookies when rules were read */
  uint64_t prepared;     /* statement_signal() of the previous call */
  char *lower;           /* scratch: lower-cased name */
  size_t lower_cap;
  size_t bytes; /* bytes of the cached names */
} cat_state;

/* What the cache may keep: names up to CACHE_NAME_MAX bytes, and at most
** CACHE_BYTES_MAX bytes of them (then it starts again); the scratch buffer
** is given back after a name longer than SCRATCH_KEEP_MAX. */
#define CACHE_NAME_MAX 4096
#define CACHE_BYTES_MAX (8u << 20)
#define CACHE_COUNT_MAX 65536
#define SCRATCH_KEEP_MAX 65536

/* Hash 8 bytes at a time: kernel names run to 5 KB. */
static uint64_t name_hash(const char *s, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  uint64_t w = 0;
  memcpy(&w, s + i, n - i);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 29;
  return h ? h : 1;
}

static void cache_clear(cat_state *st) {
  for (size_t i = 0; st->slots && i <= st->mask; i++) sqlite3_free(st->slots[i].name);
  sqlite3_free(st->slots);
  st->slots = NULL;
  st->mask = st->count = st->bytes = 0;
}

static void rules_clear(cat_state *st) {
  for (int i = 0; i < st->nrules; i++) {
    sqlite3_free(st->rules[i].pattern);
    sqlite3_free(st->rules[i].category);
  }
  sqlite3_free(st->rules);
  st->rules = NULL;
  st->nrules = 0;
}

static void state_free(void *p) {
  cat_state *st = p;
  cache_clear(st);
  rules_clear(st);
  sqlite3_free(st->lower);
  sqlite3_free(st);
}

static char *lower_dup(const char *s, int n) {
  char *d = sqlite3_malloc(n + 1);
  if (!d) return NULL;
  for (int i = 0; i < n; i++) d[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] + 32) : s[i];
  d[n] = 0;
  return d;
}

/* Read kernel_category_rule.  Returns SQLITE_OK (also when the table does
** not exist) or an error with *err set. */
static int load_rules(sqlite3 *db, cat_state *st, char **err) {
  sqlite3_stmt *q;
  rules_clear(st);
  /* Look the table up first: preparing a statement on a missing table
  ** makes SQLite reset its schema, which is slow and would look like a
  ** schema change to refresh() on every call. */
  int rc =
      sqlite3_prepare_v2(db,
                         "SELECT 1 FROM pragma_table_list WHERE name = 'kernel_category_rule'"
                         " AND type IN ('table', 'view', 'virtual')",
                         -1, &q, NULL);
  if (rc != SQLITE_OK) {
    *err = sqlite3_mprintf("kernel_category(): %s", sqlite3_errmsg(db));
    return rc;
  }
  int exists = sqlite3_step(q) == SQLITE_ROW;
  sqlite3_finalize(q);
  if (!exists) return SQLITE_OK;
  rc = sqlite3_prepare_v2(db,
                          "SELECT pattern, category FROM kernel_category_rule"
                          " WHERE pattern IS NOT NULL AND category IS NOT NULL"
                          " ORDER BY priority, rowid",
                          -1, &q, NULL);
  if (rc != SQLITE_OK) {
    *err = sqlite3_mprintf("kernel_category(): cannot read kernel_category_rule: %s",
                           sqlite3_errmsg(db));
    return rc;
  }
  int cap = 0;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    if (st->nrules == cap) {
      cap = cap ? cap * 2 : 16;
      user_rule *r = sqlite3_realloc64(st->rules, (sqlite3_uint64)cap * sizeof *r);
      if (!r) {
        rc = SQLITE_NOMEM;
        break;
      }
      st->rules = r;
    }
    user_rule *r = &st->rules[st->nrules];
    const char *pat = (const char *)sqlite3_column_text(q, 0);
    int plen = sqlite3_column_bytes(q, 0);
    const char *cat = (const char *)sqlite3_column_text(q, 1);
    r->pattern = lower_dup(pat, plen);
    r->category = sqlite3_mprintf("%s", cat);
    if (!r->pattern || !r->category) {
      sqlite3_free(r->pattern);
      sqlite3_free(r->category);
      rc = SQLITE_NOMEM;
      break;
    }
    r->glob = strchr(r->pattern, '*') || strchr(r->pattern, '?');
    st->nrules++;
  }
  sqlite3_finalize(q);
  if (rc != SQLITE_DONE) {
    *err = sqlite3_mprintf("kernel_category(): cannot read kernel_category_rule: %s",
                           sqlite3_errmsg(db));
    return rc == SQLITE_ROW ? SQLITE_ERROR : rc;
  }
  return SQLITE_OK;
}

/* Glob over the whole (lower-cased) name: '*' any run, '?' one byte. */
static int glob_match(const char *p, const char *s) {
  const char *star = NULL, *resume = NULL;
  while (*s) {
    if (*p == '?' || (*p && *p == *s)) {
      p++;
      s++;
    } else if (*p == '*') {
      star = p++;
      resume = s;
    } else if (star) {
      p = star + 1;
      s = ++resume;
    } else
      return 0;
  }
  while (*p == '*') p++;
  return *p == 0;
}

static const char *categorize(cat_state *st, const char *lower) {
  for (int i = 0; i < st->nrules; i++) {
    user_rule *r = &st->rules[i];
    if (r->glob ? glob_match(r->pattern, lower) : strstr(lower, r->pattern) != NULL)
      return r->category;
  }
  for (size_t i = 0; i < N_BUILTIN; i++)
    for (const char *const *p = builtin_rules[i].patterns; *p; p++)
      if (strstr(lower, *p)) return builtin_rules[i].category;
  return "Other";
}

static int cache_grow(cat_state *st) {
  size_t size = st->slots ? (st->mask + 1) * 2 : 1024;
  cache_slot *slots = sqlite3_malloc64(size * sizeof *slots);
  if (!slots) return SQLITE_NOMEM;
  memset(slots, 0, size * sizeof *slots);
  for (size_t i = 0; st->slots && i <= st->mask; i++) {
    if (!st->slots[i].hash) continue;
    size_t j = st->slots[i].hash & (size - 1);
    while (slots[j].hash) j = (j + 1) & (size - 1);
    slots[j] = st->slots[i];
  }
  sqlite3_free(st->slots);
  st->slots = slots;
  st->mask = size - 1;
  return SQLITE_OK;
}

/* Sum of the schema cookies of every attached database (main, temp, ...):
** it changes when a table or view is created, dropped or renamed in any. */
static sqlite3_int64 schema_cookies(sqlite3 *db) {
  sqlite3_int64 sum = 0;
  const char *name;
  for (int i = 0; (name = sqlite3_db_name(db, i)) != NULL; i++) {
    char *sql = sqlite3_mprintf("PRAGMA \"%w\".schema_version", name);
    sqlite3_stmt *q;
    if (sql && sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK) {
      if (sqlite3_step(q) == SQLITE_ROW) sum += sqlite3_column_int64(q, 0) * (i + 1);
      sqlite3_finalize(q);
    }
    sqlite3_free(sql);
  }
  return sum;
}

/* A fingerprint of the most recently prepared statement of the connection
** (O(1): the head of its statement list) and of the call site.  DDL must
** prepare a statement, so after any DDL this changes; while a query runs
** and nothing new is prepared it stays the same. */
static uint64_t statement_signal(sqlite3 *db, sqlite3_context *ctx) {
  uint64_t h = (uint64_t)(uintptr_t)ctx * 0x9E3779B97F4A7C15ULL;
  sqlite3_stmt *head = sqlite3_next_stmt(db, NULL);
  if (head) {
    const char *sql = sqlite3_sql(head);
    h ^= (uint64_t)(uintptr_t)head;
    h = h * 0xff51afd7ed558ccdULL ^
        (uint64_t)sqlite3_stmt_status(head, SQLITE_STMTSTATUS_RUN, 0);
    h = h * 0xff51afd7ed558ccdULL ^
        (uint64_t)sqlite3_stmt_status(head, SQLITE_STMTSTATUS_REPREPARE, 0);
    if (sql) h ^= name_hash(sql, strlen(sql));
  }
  return h;
}

/* Reload the rules and drop the cache when the database changed: rows
** changed on this connection (total_changes) or another connection
** committed (data_version) -- both checked on every call -- or a table or
** view was created, dropped or renamed.  DDL moves neither counter, and
** reading the schema cookies takes a statement (far too slow per row), so
** the cookies are read only when statement_signal() says a statement was
** prepared since the previous call. */
static int refresh(sqlite3 *db, sqlite3_context *ctx, cat_state *st, char **err) {
  sqlite3_int64 changes = sqlite3_total_changes64(db);
  int dv = 0;
  sqlite3_file_control(db, "main", SQLITE_FCNTL_DATA_VERSION, &dv);
  uint64_t prepared = statement_signal(db, ctx);
  sqlite3_int64 schema = st->schema;
  if (!st->loaded || prepared != st->prepared) schema = schema_cookies(db);
  st->prepared = prepared;
  if (st->loaded && changes == st->changes && dv == st->data_version && schema == st->schema)
    return SQLITE_OK;
  cache_clear(st);
  int rc = load_rules(db, st, err);
  if (rc != SQLITE_OK) return rc;
  st->loaded = 1;
  st->changes = changes;
  st->data_version = dv;
  st->schema = schema;
  st->prepared = statement_signal(db, ctx); /* loading prepared statements too */
  return SQLITE_OK;
}

static void kernel_category_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  cat_state *st = sqlite3_user_data(ctx);
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  if (sqlite3_value_type(argv[0]) == SQLITE_BLOB) {
    sqlite3_result_error(ctx, "kernel_category(): 1st argument must be text, not a blob", -1);
    return;
  }
  const char *name = (const char *)sqlite3_value_text(argv[0]);
  int n = sqlite3_value_bytes(argv[0]);
  if (!name) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  char *err = NULL;
  if (refresh(sqlite3_context_db_handle(ctx), ctx, st, &err) != SQLITE_OK) {
    sqlite3_result_error(ctx, err ? err : "kernel_category(): out of memory", -1);
    sqlite3_free(err);
    return;
  }
  uint64_t h = name_hash(name, (size_t)n);
  if (st->slots) {
    for (size_t i = h & st->mask;; i = (i + 1) & st->mask) {
      cache_slot *s = &st->slots[i];
      if (!s->hash) break;
      if (s->hash == h && s->len == (size_t)n && !memcmp(s->name, name, (size_t)n)) {
        sqlite3_result_text(ctx, s->category, -1, SQLITE_TRANSIENT);
        return;
      }
    }
  }
  if ((size_t)n + 1 > st->lower_cap) {
    char *l = sqlite3_realloc64(st->lower, (sqlite3_uint64)n + 1);
    if (!l) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    st->lower = l;
    st->lower_cap = (size_t)n + 1;
  }
  for (int i = 0; i < n; i++)
    st->lower[i] = (name[i] >= 'A' && name[i] <= 'Z') ? (char)(name[i] + 32) : name[i];
  st->lower[n] = 0;
  /* An embedded NUL ends the name for matching (strstr stops there). */
  const char *category = categorize(st, st->lower);
  if ((size_t)n > SCRATCH_KEEP_MAX) {
    sqlite3_free(st->lower);
    st->lower = NULL;
    st->lower_cap = 0;
  }
  if ((size_t)n > CACHE_NAME_MAX) {
    sqlite3_result_text(ctx, category, -1, SQLITE_TRANSIENT);
    return;
  }
  if (st->bytes + (size_t)n > CACHE_BYTES_MAX || st->count >= CACHE_COUNT_MAX) cache_clear(st);
  if ((!st->slots || (st->count + 1) * 2 > st->mask + 1) && cache_grow(st) != SQLITE_OK) {
    sqlite3_result_text(ctx, category, -1, SQLITE_TRANSIENT);
    return;
  }
  char *copy = sqlite3_malloc(n + 1);
  if (copy) {
    memcpy(copy, name, (size_t)n);
    copy[n] = 0;
    size_t i = h & st->mask;
    while (st->slots[i].hash) i = (i + 1) & st->mask;
    st->slots[i] = (cache_slot){h, copy, (size_t)n, category};
    st->count++;
    st->bytes += (size_t)n + 1;
  }
  sqlite3_result_text(ctx, category, -1, SQLITE_TRANSIENT);
}

int profdb_category_init(sqlite3 *db) {
  cat_state *st = sqlite3_malloc(sizeof *st);
  if (!st) return SQLITE_NOMEM;
  memset(st, 0, sizeof *st);
  return sqlite3_create_function_v2(db, "kernel_category", 1, SQLITE_UTF8, st,
                                    kernel_category_func, NULL, NULL, state_free);
}

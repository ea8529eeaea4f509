/*
** opfamily.c — op_family(name): the family of a CPU-side event.
**
** SQL Function: op_family(NAME)
**   Returns the family of a PyTorch operator, runtime call, annotation or
**   Python frame name: 'matmul', 'convolution', 'attention',
**   'normalization', 'activation', 'elementwise', 'reduction', 'softmax',
**   'loss', 'indexing', 'embedding', 'view', 'allocation', 'fill',
**   'copy/transfer', 'random', 'optimizer', 'autograd engine',
**   'data loading', 'synchronization', 'communication', 'runtime',
**   'profiler step', 'compiled region', 'python', 'module', or 'other'.
**   NULL when NAME is NULL.
**
**     SELECT op_family(name) AS family, sum(self_dur) / 1e6 AS self_ms
**     FROM cpu_op GROUP BY 1 ORDER BY 2 DESC;
**
** HOW IT WORKS
**   The name is lower-cased.  Rules are tried in order; each pattern is
**   either '=word' (the operator's base name: the part after the last "::"
**   with leading/trailing '_' removed, so aten::add_ and aten::_add are
**   'add'), '^prefix' (the whole name starts with it), or a substring.
**   Synchronization comes first: aten::item and _local_scalar_dense wait
**   for the GPU even though they look like tiny ops.  Copies and
**   allocations come before the generic runtime rule, so cudaMemcpyAsync
**   is 'copy/transfer' and cudaMalloc 'allocation'.
**
** Flags: DETERMINISTIC | INNOCUOUS (a pure function of its argument).
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "families.h"

#include <string.h>

typedef struct family_rule {
  const char *family;
  const char *patterns[64]; /* NULL-terminated */
} family_rule;

static const family_rule rules[] = {
    {"synchronization",
     {"=item", "=local_scalar_dense", "synchronize", "=is_nonzero", "=equal", "cudaeventquery",
      "streamwaitevent", "=wait_tensor", "record_stream", NULL}},
    {"data loading",
     {"dataloader", "dataloaderiter", "collate", "pin_memory", "=fetch", "^enumerate(", NULL}},
    {"communication",
     {"nccl", "gloo", "c10d", "record_param_comms", "all_reduce", "allreduce", "all_gather",
      "allgather", "reduce_scatter", "broadcast_", "=broadcast", "alltoall", "all_to_all",
      "processgroup", "=send", "=recv", "=barrier", NULL}},
    {"profiler step", {"^profilerstep#", NULL}},
    {"optimizer",
     {"^optimizer.", "adam", "=sgd", "multi_tensor", "_foreach_", "=foreach", "fused_adam",
      "lamb", "adagrad", "rmsprop", NULL}},
    {"autograd engine",
     {"autograd::engine", "accumulategrad", "backward0", "backward1", "autograd::", "=backward",
      "evaluate_function", NULL}},
    {"compiled region",
     {"torch-compiled region", "compiledfunction", "dynamo", "inductor", "compiled_autograd",
      NULL}},
    {"module", {"^nn.module:", NULL}},
    {"copy/transfer",
     {"=copy", "=to", "=to_copy", "=contiguous", "=clone", "memcpy", "=cat", "=stack",
      "=copy_from", "=pad", "=constant_pad_nd", NULL}},
    {"allocation",
     {"=empty", "=empty_strided", "=empty_like", "=new_empty", "=new_empty_strided", "=resize",
      "=set", "malloc", "=free", NULL}},
    {"runtime", {"^cuda", "^cu", "^hip", "^mtia", "^xpu", NULL}},
    {"attention", {"attention", "=sdpa", "flash", "efficient_attention", NULL}},
    {"convolution", {"conv", "=cudnn_convolution", "=convolution", NULL}},
    {"matmul",
     {"=mm", "=addmm", "=bmm", "=baddbmm", "=matmul", "=linear", "=addmv", "=mv", "=dot",
      "=vdot", "=einsum", "=scaled_mm", "=addbmm", "gemm", "=linear_backward", "=mm_backward",
      NULL}},
    {"normalization",
     {"layer_norm", "batch_norm", "group_norm", "rms_norm", "instance_norm", "=norm_except_dim",
      "=weight_norm", NULL}},
    {"embedding", {"embedding", NULL}},
    {"loss",
     {"cross_entropy", "nll_loss", "=mse_loss", "=l1_loss", "=smooth_l1_loss",
      "=binary_cross_entropy", "=kl_div", "loss", NULL}},
    {"softmax", {"softmax", NULL}},
    {"activation",
     {"=relu",
      "=gelu",
      "=silu",
      "=sigmoid",
      "=tanh",
      "=threshold",
      "=hardtanh",
      "=leaky_relu",
      "=elu",
      "=mish",
      "=softplus",
      "=hardswish",
      "=hardsigmoid",
      "=glu",
      "=prelu",
      "=celu",
      "=selu",
      "_backward_data",
      "gelu_backward",
      "silu_backward",
      "threshold_backward",
      "sigmoid_backward",
      "tanh_backward",
      NULL}},
    {"random",
     {"dropout", "=rand", "=randn", "=randint", "=randperm", "=bernoulli", "=normal",
      "=uniform", "=multinomial", "=random", NULL}},
    {"fill",
     {"=zero", "=zeros", "=zeros_like", "=ones", "=ones_like", "=fill", "=full", "=full_like",
      "=new_zeros", "=new_ones", "=new_full", "=arange", "=linspace", NULL}},
    {"view", {"=view",       "=reshape",   "=reshape_alias", "=unsafe_view",      "=transpose",
              "=permute",    "=t",         "=expand",        "=expand_as",        "=squeeze",
              "=unsqueeze",  "=slice",     "=select",        "=as_strided",       "=narrow",
              "=flatten",    "=unflatten", "=split",         "=split_with_sizes", "=chunk",
              "=unbind",     "=detach",    "=alias",         "=view_as",          "=numpy_t",
              "=lift_fresh", "=unfold",    "=movedim",       "=diagonal",         NULL}},
    {"indexing",
     {"index", "gather", "scatter", "masked", "=nonzero", "=where", "=take", "=put",
      "=embedding_bag", "=searchsorted", NULL}},
    {"reduction",
     {"=sum",      "=mean",    "=max",           "=min",    "=amax",     "=amin",     "=argmax",
      "=argmin",   "norm",     "=var",           "=std",    "=var_mean", "=std_mean", "=prod",
      "=cumsum",   "=cumprod", "=logsumexp",     "=all",    "=any",      "=sort",     "=topk",
      "=kthvalue", "=median",  "=count_nonzero", "=unique", NULL}},
    {"elementwise",
     {"=add",        "=sub",         "=mul",         "=div",     "=pow",     "=exp",
      "=log",        "=sqrt",        "=rsqrt",       "=neg",     "=abs",     "=clamp",
      "=clamp_min",  "=clamp_max",   "=addcmul",     "=addcdiv", "=lerp",    "=rsub",
      "=reciprocal", "=sign",        "=floor",       "=ceil",    "=round",   "=eq",
      "=ne",         "=lt",          "=le",          "=gt",      "=ge",      "=logical_and",
      "=logical_or", "=logical_not", "=bitwise_and", "=maximum", "=minimum", "=exp2",
      "=log1p",      "=expm1",       "=sin",         "=cos",     NULL}},
    {"python", {".py(", "<built-in", "built-in method", NULL}},
};
#define N_RULES (sizeof rules / sizeof rules[0])

/* The operator's base name: after the last "::", without leading or
** trailing underscores (aten::add_ -> add, aten::_to_copy -> to_copy). */
static void base_name(const char *lower, size_t n, char *out, size_t cap) {
  const char *start = lower;
  for (size_t i = 0; i + 1 < n; i++)
    if (lower[i] == ':' && lower[i + 1] == ':') start = lower + i + 2;
  const char *end = lower + n;
  while (start < end && *start == '_') start++;
  while (end > start && end[-1] == '_') end--;
  size_t len = (size_t)(end - start);
  if (len >= cap) len = cap - 1;
  memcpy(out, start, len);
  out[len] = 0;
}

static const char *family_of(const char *lower, size_t n) {
  char base[128];
  base_name(lower, n, base, sizeof base);
  for (size_t r = 0; r < N_RULES; r++)
    for (const char *const *p = rules[r].patterns; *p; p++) {
      const char *pat = *p;
      if (pat[0] == '=') {
        if (!strcmp(base, pat + 1)) return rules[r].family;
      } else if (pat[0] == '^') {
        if (!strncmp(lower, pat + 1, strlen(pat + 1))) return rules[r].family;
      } else if (strstr(lower, pat)) {
        return rules[r].family;
      }
    }
  return "other";
}

static void op_family_func(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  if (sqlite3_value_type(argv[0]) == SQLITE_BLOB) {
    sqlite3_result_error(ctx, "op_family(): 1st argument must be text, not a blob", -1);
    return;
  }
  const char *name = (const char *)sqlite3_value_text(argv[0]);
  int n = sqlite3_value_bytes(argv[0]);
  if (!name) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  char stack_buf[512];
  char *lower = n < (int)sizeof stack_buf ? stack_buf : sqlite3_malloc(n + 1);
  if (!lower) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  for (int i = 0; i < n; i++)
    lower[i] = (name[i] >= 'A' && name[i] <= 'Z') ? (char)(name[i] + 32) : name[i];
  lower[n] = 0;
  sqlite3_result_text(ctx, family_of(lower, strlen(lower)), -1, SQLITE_STATIC);
  if (lower != stack_buf) sqlite3_free(lower);
}

int profdb_opfamily_init(sqlite3 *db) {
  return sqlite3_create_function(db, "op_family", 1,
                                 SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
                                 op_family_func, NULL, NULL);
}

/*
** frames.c — helpers for names: stack frames and kernel names.
**
** SQL Function: frame_rank(FILENAME)
**   How far a stack frame's file is from the user's own code, so that
**   "the first user frame" of an allocation is the frame with the lowest
**   rank (ties: the innermost):
**     0  a .py file of the user's (not in an installed package, not PyTorch)
**     1  an installed package or the standard library (site-packages,
**        dist-packages, lib/python3.x, <frozen ...>, <string>)
**     2  PyTorch itself (a path with a torch/ directory)
**     3  not Python (C++ frames, NULL)
**
**     SELECT filename, line, name FROM stack_frame WHERE stack_id = 7
**     ORDER BY frame_rank(filename), depth LIMIT 1;
**
** SQL Function: kernel_base(NAME)
**   A kernel or function name without its return type, template arguments
**   and parameter list, for matching kernels across runs whose template
**   instantiations differ:
**     'void at::native::vectorized_elementwise_kernel<4, ...>(int, ...)'
**       -> 'at::native::vectorized_elementwise_kernel'
**   Parenthesized words such as "(anonymous namespace)" are kept.  NULL
**   for NULL.
**
** SQL Function: path_common_suffix(PATH_A, PATH_B)
**   How many trailing path components two file names share ('/' or '\'
**   separators), so that the same file in two checkouts matches:
**     '/home/u/FlexGen/flexgen/pytorch_backend.py',
**     '/home/u/origin_git_Flex/flexgen/pytorch_backend.py'  -> 2
**   0 when the file names differ; NULL when either is NULL.
**
** Flags: DETERMINISTIC | INNOCUOUS (pure functions of their arguments).
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "families.h"
#include "frame_rank.h"

#include <ctype.h>
#include <string.h>

static void frame_rank_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    sqlite3_result_int(ctx, 3);
    return;
  }
  const char *s = (const char *)sqlite3_value_text(argv[0]);
  int n = sqlite3_value_bytes(argv[0]);
  sqlite3_result_int(ctx, frame_rank_of(s, (size_t)n));
}

/* A '(' opens an argument list when it follows a name or a template. */
static int opens_list(const char *start, const char *p) {
  if (p == start) return 0;
  char b = p[-1];
  return b == '>' || b == '_' || isalnum((unsigned char)b);
}

static void kernel_base_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  const char *s = (const char *)sqlite3_value_text(argv[0]);
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (!strncmp(s, "void ", 5)) s += 5;
  const char *end = s;
  for (const char *p = s; *p; p++) {
    if (*p == '<' || (*p == '(' && opens_list(s, p))) break;
    end = p + 1;
  }
  while (end > s && end[-1] == ' ') end--;
  sqlite3_result_text(ctx, s, (int)(end - s), SQLITE_TRANSIENT);
}

static int is_sep(char c) {
  return c == '/' || c == '\\';
}

static void path_common_suffix_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
    return;
  const char *a = (const char *)sqlite3_value_text(argv[0]);
  int na = sqlite3_value_bytes(argv[0]);
  const char *b = (const char *)sqlite3_value_text(argv[1]);
  int nb = sqlite3_value_bytes(argv[1]);
  if (!a || !b) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  /* Walk back from the ends while the characters agree (a separator of
  ** either kind agrees with the other kind); count the components that
  ** agree whole. */
  int parts = 0, in_part = 0, mismatch = 0;
  while (na > 0 && nb > 0) {
    char x = a[na - 1], y = b[nb - 1];
    if (is_sep(x) && is_sep(y)) {
      parts += in_part;
      in_part = 0;
    } else if (x != y) {
      mismatch = 1;
      break;
    } else {
      in_part = 1;
    }
    na--, nb--;
  }
  /* The first component counts when it is whole on both sides. */
  if (!mismatch && in_part && (na == 0 || is_sep(a[na - 1])) && (nb == 0 || is_sep(b[nb - 1])))
    parts++;
  sqlite3_result_int(ctx, parts);
}

int profdb_frames_init(sqlite3 *db) {
  int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  int rc = sqlite3_create_function(db, "frame_rank", 1, flags, NULL, frame_rank_fn, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "kernel_base", 1, flags, NULL, kernel_base_fn, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "path_common_suffix", 2, flags, NULL,
                                 path_common_suffix_fn, NULL, NULL);
  return rc;
}

/*
** rank.c — what an artifact's path names: its label (the file name without
** its suffixes) and its rank.  The rank of a trace or snapshot is decided
** once, at load (docs/definitions.md#ranks): distributedInfo.rank (a
** trace's own, put first by sql/trace_finish.sql), else --rank N, else
** the number after 'rank' or 'worker' in its file name, else in the name
** of the folder holding it, else 0.  Every reader (report, diff, exports)
** reads trace.rank and snapshot.rank; none guesses again.
*/
#include "loader.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

void ld_label_from_path(const char *path, char *out, size_t outlen) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  snprintf(out, outlen, "%s", base);
  static const char *const suffixes[] = {".gz", ".json", ".pt.trace", NULL};
  for (const char *const *s = suffixes; *s; s++) {
    size_t n = strlen(out), m = strlen(*s);
    if (n > m && !strcmp(out + n - m, *s)) out[n - m] = 0;
  }
}

/* The digits after "rank" or "worker" (any case, an optional '-', '_' or
** '='), e.g. 17 for "job_rank17.pt.trace".  1 when found, else 0. */
static int rank_in_name(const char *name, long long *rank) {
  static const char *const words[] = {"rank", "worker"};
  for (const char *s = name; *s; s++)
    for (int w = 0; w < 2; w++) {
      size_t n = strlen(words[w]);
      if (strncasecmp(s, words[w], n)) continue;
      const char *d = s + n;
      if (*d == '-' || *d == '_' || *d == '=') d++;
      if (*d < '0' || *d > '9') continue;
      long long v = 0;
      while (*d >= '0' && *d <= '9' && v < 100000000) v = v * 10 + (*d++ - '0');
      *rank = v;
      return 1;
    }
  return 0;
}

const char *ld_rank_of(const char *path, const profdb_load_options *opt, long long *rank) {
  if (opt->have_rank) {
    *rank = opt->rank;
    return "option";
  }
  char name[256];
  ld_label_from_path(path, name, sizeof name); /* the file name, not --label */
  if (rank_in_name(name, rank)) return "file name";
  /* Only the folder holding the file: those above it name users and jobs. */
  const char *end = strrchr(path, '/'), *start = end;
  while (start && start > path && start[-1] != '/') start--;
  size_t n = end ? (size_t)(end - start) : 0;
  if (n > 0 && n < sizeof name) {
    memcpy(name, start, n);
    name[n] = 0;
    if (rank_in_name(name, rank)) return "folder name";
  }
  *rank = 0;
  return "default";
}

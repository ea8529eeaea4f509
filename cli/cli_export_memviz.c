/*
** cli_export_memviz.c — `profdb export DB --format memory_viz`: a window of
** a memory snapshot as a file PyTorch's memory viewer opens
** (export/export_memviz.c).
**
**   profdb export run.db --format memory_viz --at-peak -o peak.pickle
**   profdb export run.db --format memory_viz --from +2s --to +2.5s -o w.json
**
** Exit codes: 0 ok, 2 usage or any other error.
*/
#include "cli.h"
#include "export.h"

#include "export_chrome.h"
#include "export_memviz.h"
#include "profdb/profdb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char memviz_usage[] =
    "usage: profdb export DB --format memory_viz -o FILE.pickle [options]\n"
    "\n"
    "Write a window of a memory snapshot in DB as a snapshot that PyTorch's memory\n"
    "viewer opens (pytorch.org/memory_viz, torch.cuda._memory_viz; docs/export.md):\n"
    "the window's allocator events and the segments and blocks as they stood at its\n"
    "end. A pickle of plain dicts, lists, strings and numbers; FILE.json: the same as\n"
    "JSON. Without --from/--to/--at-peak: every event of the device.\n"
    "\n"
    "  -o, --output FILE    the file ('-': standard output, a pickle)\n"
    "  --snapshot S         the snapshot (its id or label; needed when DB holds several)\n"
    "  --device D           the device (default: the one with the most events)\n"
    "  --from T, --to T     the events in [T1, T2), in the snapshot's clock (epoch):\n"
    "                       1694128201427.5ms; '+' for relative to the first event:\n"
    "                       +2.5s (units ns, us, ms, s; none: us)\n"
    "  --at-peak            the events around the peak of allocated memory (mem_peak)\n"
    "  --around N           with --at-peak: N events each side of it (default 1000)\n"
    "  --json               write JSON whatever the file's name\n"
    "  -q, --quiet          no summary line\n";

/* An option of --format memory_viz that takes a value; -1 (printed) when
** it is not valid. */
static int memviz_option(const char *a, const char *v, em_options *o) {
  char *end;
  if (!strcmp(a, "-o") || !strcmp(a, "--output"))
    o->out = v;
  else if (!strcmp(a, "--format")) {
    if (strcmp(v, "memory_viz")) return -1;
  } else if (!strcmp(a, "--snapshot"))
    o->snapshot = v;
  else if (!strcmp(a, "--device") || !strcmp(a, "--around")) {
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (!*v || *end || errno || n < 0) {
      fprintf(stderr, "profdb: export: %s %s: not a number\n", a, v);
      return -1;
    }
    if (a[2] == 'd') {
      o->device = n;
      o->have_device = 1;
    } else
      o->around = n;
  } else if (!strcmp(a, "--from") || !strcmp(a, "--to")) {
    int from = a[2] == 'f';
    if (ec_parse_window_option(a, v, from ? &o->from_ns : &o->to_ns,
                               from ? &o->from_rel : &o->to_rel,
                               from ? &o->have_from : &o->have_to))
      return -1;
  } else {
    fprintf(stderr, "profdb: export: --format memory_viz: unknown option %s\n\n%s", a,
            memviz_usage);
    return -1;
  }
  return 0;
}

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && !strcmp(s + n - m, tail);
}

int cli_export_memviz(int argc, char **argv) {
  em_options o = {.around = 1000};
  const char *db_path = NULL;
  int quiet = 0, json = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      fputs(memviz_usage, stdout);
      return PROFDB_EXIT_OK;
    }
    if (!strcmp(a, "-q") || !strcmp(a, "--quiet") || !strcmp(a, "--at-peak") ||
        !strcmp(a, "--json")) {
      *(a[2] == 'a' ? &o.at_peak : a[2] == 'j' ? &json : &quiet) = 1;
      continue;
    }
    if (a[0] != '-' || !a[1]) {
      if (db_path) {
        fprintf(stderr, "profdb: export: --format memory_viz reads one database\n");
        return PROFDB_EXIT_USAGE;
      }
      db_path = a;
      continue;
    }
    if (!v) {
      fprintf(stderr, "profdb: export: %s needs a value\n\n%s", a, memviz_usage);
      return PROFDB_EXIT_USAGE;
    }
    if (memviz_option(a, v, &o)) return PROFDB_EXIT_USAGE;
    i++;
  }
  if (!db_path || !o.out) {
    fprintf(stderr, "profdb: export: --format memory_viz needs DB and -o FILE\n\n%s",
            memviz_usage);
    return PROFDB_EXIT_USAGE;
  }
  if (o.at_peak && (o.have_from || o.have_to)) {
    fprintf(stderr, "profdb: export: --at-peak or --from/--to, not both\n");
    return PROFDB_EXIT_USAGE;
  }
  if (ex_is_dataset(db_path)) { /* summaries hold traces, not snapshots */
    fprintf(stderr,
            "profdb: export: %s: a dataset: --format memory_viz needs a database of the"
            " snapshot\n  (profdb load SNAPSHOT.json -o run.db && profdb export run.db"
            " --format memory_viz ...)\n",
            db_path);
    return PROFDB_EXIT_USAGE;
  }
  o.json = json || ends_with(o.out, ".json");
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  sqlite3 *db = cli_open_db(db_path, 1);
  em_result res = {0};
  int rc = !db || cli_check_schema(db, db_path) ? PROFDB_EXIT_USAGE
           : em_export(db, &o, &res) ? (res.retryable ? EX_EXIT_RETRY : PROFDB_EXIT_USAGE)
                                     : PROFDB_EXIT_OK;
  sqlite3_close(db);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (rc == PROFDB_EXIT_OK && res.orphans)
    fprintf(stderr,
            "profdb: export: warning: %lld live allocations lie in no segment of the window"
            " (not written as blocks)\n",
            (long long)res.orphans);
  if (!quiet && rc == PROFDB_EXIT_OK)
    fprintf(stderr,
            "profdb: export: %s: snapshot %s device %lld, events %lld-%lld (%lld), %lld"
            " segments, %lld blocks, %.1f MB in %.2f s\n",
            o.out, res.label, (long long)res.device, (long long)res.first_seq,
            (long long)res.last_seq, (long long)res.events, (long long)res.segments,
            (long long)res.blocks, res.bytes / 1e6,
            (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
  return rc;
}

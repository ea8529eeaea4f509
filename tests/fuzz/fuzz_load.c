/*
** fuzz_load.c — libFuzzer harness for the loaders: the input is a file
** (trace, memory snapshot, gzip of either, or anything else) loaded through
** the real parse-and-insert path into an in-memory database.
**
** Built twice by CMake (-DPROFDB_FUZZ=ON, clang): fuzz_trace and
** fuzz_snapshot differ only in their seed corpora and dictionaries
** (tests/fuzz/run).  A crash, a hang, a leak or a sanitizer report is a
** bug; so is a load that fails without saying why, and so is an input
** that takes more CPU time than a linear budget allows (fuzz_budget.h):
** the shapes that made the loader quadratic (one huge token, thousands of
** events sharing an id) fail here instead of passing slowly.
*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fuzz_budget.h"
#include "profdb/profdb.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!devnull) devnull = fopen("/dev/null", "w");
  double started = fuzz_cpu_seconds();
  int fd = memfd_create("profdb-fuzz", 0);
  if (fd < 0) return 0;
  size_t off = 0;
  while (off < size) {
    ssize_t w = write(fd, data + off, size - off);
    if (w <= 0) break;
    off += (size_t)w;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  sqlite3 *db;
  if (sqlite3_open(":memory:", &db) == SQLITE_OK) {
    profdb_load_options opt = {0};
    opt.quiet = 1;
    opt.threads = 1;       /* no writer thread: one thread, deterministic */
    opt.chunk_size = 4096; /* small reads: tokens split across chunk boundaries */
    opt.messages = devnull;
    const char *paths[1] = {path};
    int rc = profdb_load_db(db, paths, 1, &opt);
    if (rc < PROFDB_EXIT_OK || rc > PROFDB_EXIT_REFUSED) abort(); /* not an exit code */
  }
  sqlite3_close(db);
  close(fd);
  fuzz_check_budget("load", started, size);
  return 0;
}

/* snapshot.c — memory snapshot loader (not written yet). */
#include "loader.h"

int snapshot_load(ld_file *f) {
  ld_fail(f, PROFDB_EXIT_DATA, 0, "memory snapshots are not supported yet");
  return -1;
}

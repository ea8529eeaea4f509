/* cli_diff.c — `profdb diff` (see issue: compare two runs). */
#include "cli.h"
#include "profdb/profdb.h"

int cli_diff(int argc, char **argv) {
  (void)argc; (void)argv;
  fprintf(stderr, "profdb: diff: not implemented yet\n");
  return PROFDB_EXIT_USAGE;
}

/* cli_report.c — `profdb report` (see issue: canned SQL report). */
#include "cli.h"
#include "profdb/profdb.h"

int cli_report(int argc, char **argv) {
  (void)argc; (void)argv;
  fprintf(stderr, "profdb: report: not implemented yet\n");
  return PROFDB_EXIT_USAGE;
}

/*
** oom.c — out of memory: a message, the temporary files removed, a
** documented exit code (see oom.h).
*/
#include "oom.h"

#include "profdb/profdb.h"

#include <unistd.h>

static void (*cleanups[4])(void);

void ld_oom_cleanup(void (*fn)(void)) {
  for (int i = 0; fn && i < 4; i++) {
    if (cleanups[i] == fn) return;
    if (!cleanups[i]) {
      cleanups[i] = fn;
      return;
    }
  }
}

_Noreturn void ld_oom(void) {
  /* write(2), not stdio: nothing here may allocate. */
  static const char msg[] =
      "profdb: out of memory; nothing was written (see docs/performance.md for the memory"
      " a load and a report need)\n";
  ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
  for (int i = 0; i < 4; i++)
    if (cleanups[i]) cleanups[i]();
  _exit(PROFDB_EXIT_NOMEM);
}

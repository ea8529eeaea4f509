/*
** oom.h — what profdb does when memory runs out.
**
** Every allocation that cannot fail gracefully ends here instead of in
** abort(): one line "profdb: out of memory" on stderr, the temporary
** files of the load or report removed (the cleanups registered below),
** and exit code PROFDB_EXIT_NOMEM.  A scheduler can tell it from bad input
** and rerun the task with more memory.
*/
#ifndef PROFDB_OOM_H
#define PROFDB_OOM_H

/* Say so, run the registered cleanups, exit(PROFDB_EXIT_NOMEM). */
_Noreturn void ld_oom(void);

/* Run fn before the exit of ld_oom() (at most 4; async-signal-safe calls
** only: memory is gone).  fn == NULL removes nothing. */
void ld_oom_cleanup(void (*fn)(void));

#endif

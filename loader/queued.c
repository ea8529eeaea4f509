/*
** queued.c — work handed to the writer thread with memory the parser
** allocated (see ld_queue in loader.h).
**
** A file's own rows (its trace or snapshot row, a trace's metadata,
** threads and counts) are written on the writer thread after its events,
** while the parser reads the next input, so a folder of ranks keeps both
** threads busy.  The job's memory outlives the call: the writer thread
** only marks it done, and the parser frees done jobs (ld_reap) between
** files and every job once the writer has stopped or drained: a writer
** that failed skips the calls queued after the failure, which must still
** be freed.  While a job may run, the parser does not touch the
** connection: what it needs from the database before a file (the
** duplicates of an earlier load, a snapshot's stored stacks) it reads
** after writer_sync (load.c, snapshot.c).
*/
#include "loader.h"

#include <stdlib.h>

static int run_queued(sqlite3 *db, void *arg) {
  ld_queued *q = arg;
  int rc = q->run(db, q);
  __atomic_store_n(&q->done, 1, __ATOMIC_RELEASE);
  return rc;
}

void ld_queue(ld_ctx *ctx, ld_queued *q) {
  q->done = 0;
  q->next = ctx->queued;
  ctx->queued = q;
  writer_call(ctx->w, run_queued, q);
}

void ld_reap(ld_ctx *ctx, int all) {
  ld_queued **link = &ctx->queued;
  while (*link) {
    ld_queued *q = *link;
    if (all || __atomic_load_n(&q->done, __ATOMIC_ACQUIRE)) {
      *link = q->next;
      q->release(q);
    } else {
      link = &q->next;
    }
  }
}

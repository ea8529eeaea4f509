/*
** export_files.c — folders made on the way, retryable I/O failures (see
** export_files.h).
*/
#include "export_files.h"

#include <errno.h>
#include <sys/stat.h>

int ex_mkdirs(char *path) {
  for (char *s = path + 1; *s; s++)
    if (*s == '/') {
      *s = 0;
      int rc = mkdir(path, 0777);
      *s = '/';
      if (rc && errno != EEXIST) return -1;
    }
  if (mkdir(path, 0777) && errno != EEXIST) return -1;
  return 0;
}

int ex_retryable(int e) {
  return e == EIO || e == ENOSPC || e == EDQUOT || e == ESTALE || e == ETIMEDOUT ||
         e == EAGAIN || e == EINTR || e == ENOMEM || e == EBUSY || e == ENFILE || e == EMFILE;
}

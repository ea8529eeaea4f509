/*
** report_section.c — what every part of the report reads of a section:
** its cells, its chart spec, and the file a renderer writes (report.h).
**
** The floor under the runner (report_sql.c) and the renderers
** (report_md.c, report_json.c, report_svg.c, report_html.c,
** report_format.c): it calls none of them, so they depend on it one way.
*/
#include "report.h"
#include "publish.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- cells ---------------------------------------------------------------- */

const rp_value *rp_cell(const rp_section *s, int row, int col) {
  return &s->cells[(size_t)row * (size_t)s->ncols + (size_t)col];
}

const char *rp_text_of(const rp_section *s, int row, const char *col) {
  int c = rp_col_index(s, col);
  if (c < 0) return "";
  const rp_value *v = rp_cell(s, row, c);
  return v->type == SQLITE_TEXT ? v->s : "";
}

int rp_col_index(const rp_section *s, const char *name) {
  for (int c = 0; c < s->ncols; c++)
    if (!strcmp(s->cols[c].name, name)) return c;
  return -1;
}

/* ---- the chart spec ----------------------------------------------------- */

int rp_chart_key(const rp_section *s, const char *key, char *out, size_t n) {
  if (!s->chart) return 0;
  size_t k = strlen(key);
  for (const char *p = s->chart; (p = strstr(p, key)); p += k)
    if ((p == s->chart || p[-1] == ' ') && p[k] == '=') {
      const char *v = p + k + 1;
      size_t len = strcspn(v, " ");
      snprintf(out, n, "%.*s", (int)len, v);
      return 1;
    }
  return 0;
}

/* ---- writing a file ----------------------------------------------------- */

/* Write data to path: a regular file through a temporary file and a
** rename (readers never see half a report); a device or a pipe
** (/dev/null, /dev/stdout, <(...)) directly, since a rename would replace
** it; a symbolic link's target, keeping the link.  The temporary file is
** the one atomic publish's (loader/publish.h, PUB_USER): a new file with
** a random name in the target's folder, created exclusively (O_EXCL), so a
** link or file planted there by someone else is never followed or
** overwritten. */
int rp_write_file(const char *path, const char *data, size_t n) {
  pub_file p;
  int ok = pub_open(&p, path, PUB_USER) == 0;
  for (size_t off = 0; ok && off < n;) {
    ssize_t w = write(p.fd, data + off, n - off);
    if (w < 0 && errno == EINTR) continue;
    ok = w > 0;
    if (ok) off += (size_t)w;
  }
  if (ok)
    ok = pub_commit(&p) == 0;
  else if (p.fd >= 0)
    pub_abort(&p);
  if (!ok) {
    fprintf(stderr, "profdb: %s: cannot write: %s\n", path, strerror(errno));
    return -1;
  }
  return 0;
}

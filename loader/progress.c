/*
** progress.c — the progress line (see progress.h).
*/
#include "progress.h"

#include "clock.h"
#include "utf8.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define REDRAW_S 0.25 /* at most four redraws a second */
#define PLAIN_S 10.0  /* a log line at most every 10 s ($PROFDB_PROGRESS_SECONDS) */
#define LINE_BYTES (4 * 4096 + 64)

static struct {
  FILE *out;          /* where the line goes; NULL: progress is off */
  int drawn;          /* a line is on the screen */
  double last;        /* when it was drawn */
  int file, files;    /* file being read, of how many */
  char path[4096];    /* file being read ("" in a phase) */
  char phase[128];    /* the phase after the parse ("" while reading) */
  double phase_start; /* when that phase began */
  int plain;          /* PROGRESS_PLAIN: whole lines for a log, not redrawn */
  double every;       /* seconds between two plain lines */
  pthread_t owner;    /* the thread that started it: the only one drawing */
} pg;

/* Whether to draw now: started, and on the thread that started it (the
** report's second connection runs its sections on another thread). */
static int active(void) {
  return pg.out && pthread_equal(pthread_self(), pg.owner);
}

int progress_width(FILE *out) {
  struct winsize ws;
  if (out && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  const char *c = getenv("COLUMNS");
  int n = c ? atoi(c) : 0;
  return n > 0 ? n : 80;
}

/* Copy s into out (cap bytes) as text a terminal draws as is: controls
** and invalid UTF-8 as '?'.  Returns the columns, counting a code point
** from U+1100 on as two (East Asian wide characters; never too few). */
static int visible(const char *s, char *out, size_t cap, int *widths, int max_glyphs,
                   int *nglyphs) {
  const unsigned char *u = (const unsigned char *)s;
  size_t n = strlen(s), i = 0, o = 0;
  int cols = 0, g = 0;
  while (i < n && g < max_glyphs && o + 5 < cap) {
    size_t len = utf8_seq_len(u, i, n);
    int w = 1;
    if (len == 0 || u[i] < 0x20 || u[i] == 0x7f || (u[i] == 0xc2 && u[i + 1] < 0xa0)) {
      out[o++] = '?'; /* controls (C0, DEL, C1) and invalid bytes */
      i += len ? len : 1;
    } else {
      if (len == 3 ? u[i] > 0xe1 || (u[i] == 0xe1 && u[i + 1] >= 0x84) : len == 4) w = 2;
      memcpy(out + o, u + i, len);
      o += len;
      i += len;
    }
    widths[g++] = w;
    cols += w;
  }
  out[o] = 0;
  *nglyphs = g;
  return cols;
}

/* Bytes of the first `glyphs` glyphs of sanitized text s. */
static size_t glyph_bytes(const char *s, int glyphs) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  for (int g = 0; g < glyphs && u[i]; g++) do
      i++;
    while ((u[i] & 0xc0) == 0x80);
  return i;
}

int progress_fit(char *line, size_t cap, const char *prefix, const char *label,
                 const char *text, int width) {
  enum { MAXG = 4096, MIN_LABEL = 6 };
  static char pre[64 * 4 + 8], lab[MAXG * 4 + 8], txt[MAXG * 4 + 8];
  static int pw[64], lw[MAXG], tw[MAXG];
  int np, nl, nt, avail = width > 1 ? width - 1 : 1;
  int pc = visible(prefix, pre, sizeof pre, pw, 64, &np);
  int lc = visible(label, lab, sizeof lab, lw, MAXG, &nl);
  int tc = visible(text, txt, sizeof txt, tw, MAXG, &nt);
  if (pc + lc + 2 + tc <= avail) {
    snprintf(line, cap, "%s%s: %s", pre, lab, txt);
    return pc + lc + 2 + tc;
  }
  if (pc + 3 + MIN_LABEL + 2 + tc <= avail) { /* "..." and the end of the label */
    int keep = avail - pc - 3 - 2 - tc, from = nl, cols = 0;
    while (from > 0 && cols + lw[from - 1] <= keep) cols += lw[--from];
    snprintf(line, cap, "%s...%s: %s", pre, lab + glyph_bytes(lab, from), txt);
    return pc + 3 + cols + 2 + tc;
  }
  /* No room for the label: the prefix and the text, cut at the end. */
  ld_buf all = {0};
  ld_buf_put(&all, pre, strlen(pre));
  ld_buf_put(&all, txt, strlen(txt));
  const char *s = ld_buf_cstr(&all);
  int g = 0, cols = 0, n = np + nt;
  while (g < n && cols + (g < np ? pw[g] : tw[g - np]) <= avail)
    cols += g < np ? pw[g] : tw[g - np], g++;
  size_t b = glyph_bytes(s, g);
  if (b >= cap) b = cap - 1;
  memcpy(line, s, b);
  line[b] = 0;
  ld_buf_free(&all);
  return cols;
}

static void draw(const char *prefix, const char *label, const char *text) {
  char line[LINE_BYTES];
  if (pg.plain) { /* a log: one whole line every pg.every seconds, nothing erased */
    if (ld_seconds() - pg.last < pg.every) return;
    progress_fit(line, sizeof line, prefix, label, text, 4096);
    fprintf(pg.out, "%s%s\n", strncmp(line, "profdb: ", 8) ? "profdb: " : "", line);
    fflush(pg.out);
    pg.last = ld_seconds();
    return;
  }
  progress_fit(line, sizeof line, prefix, label, text, progress_width(pg.out));
  fprintf(pg.out, "\r%s\033[K", line);
  fflush(pg.out);
  pg.drawn = 1;
  pg.last = ld_seconds();
}

static FILE *redirect_from, *redirect_to;

void progress_redirect(FILE *from, FILE *to) {
  redirect_from = from;
  redirect_to = to;
}

void progress_start(FILE *out, int on) {
  memset(&pg, 0, sizeof pg);
  if (out && out == redirect_from && on != PROGRESS_PLAIN) out = redirect_to;
  pg.out = on ? out : NULL;
  pg.owner = pthread_self();
  pg.plain = on == PROGRESS_PLAIN;
  const char *every = getenv("PROFDB_PROGRESS_SECONDS");
  pg.every = every && atof(every) > 0 ? atof(every) : PLAIN_S;
  pg.last = ld_seconds(); /* the first plain line after pg.every seconds */
}

void progress_stop(void) {
  progress_clear();
  pg.out = NULL;
}

void progress_clear(void) {
  if (!active() || !pg.drawn) return;
  fputs("\r\033[K", pg.out);
  fflush(pg.out);
  pg.drawn = 0;
}

void ld_say(FILE *out, const char *fmt, ...) {
  va_list ap;
  progress_clear();
  fputs("profdb: ", out);
  va_start(ap, fmt);
  vfprintf(out, fmt, ap);
  va_end(ap);
  fputc('\n', out);
}

void progress_file(int index, int count) {
  pg.file = index;
  pg.files = count;
}

void progress_read(const char *path, double mb, double percent, double mb_per_s) {
  if (!active()) return;
  int new_path = strcmp(pg.path, path) != 0 || pg.phase[0];
  if (!new_path && ld_seconds() - pg.last < REDRAW_S) return;
  snprintf(pg.path, sizeof pg.path, "%s", path);
  pg.phase[0] = 0;
  char text[128], count[32] = "";
  if (pg.files > 1) snprintf(count, sizeof count, "[%d/%d] ", pg.file, pg.files);
  snprintf(text, sizeof text, "%.0f MB read, %.0f%%, %.0f MB/s", mb, percent, mb_per_s);
  draw(count, path, text);
}

static void draw_phase(void) {
  char text[192];
  snprintf(text, sizeof text, "%s, %.1f s", pg.phase, ld_seconds() - pg.phase_start);
  draw("", "profdb", text);
}

int progress_mode(int asked, int quiet, int fd) {
  if (asked >= 0) return asked;
  return quiet ? PROGRESS_OFF : isatty(fd) ? PROGRESS_LINE : PROGRESS_PLAIN;
}

void progress_phase(const char *what) {
  if (!active()) return;
  snprintf(pg.phase, sizeof pg.phase, "%s", what);
  pg.path[0] = 0;
  pg.phase_start = ld_seconds();
  draw_phase();
}

void progress_tick(void) {
  if (!active() || !pg.phase[0] || ld_seconds() - pg.last < REDRAW_S) return;
  draw_phase();
}

/*
** progress.h — the one progress line of a load on a terminal.
**
** Every phase shows: each file's parse (MB read, %, MB/s), then the
** post-pass (indexes, nesting, links, ...), the commit and the rename, each
** with the seconds it has taken so far.  The line is redrawn in place
** ("\r", the text, erase to end of line), never wider than the terminal
** (one column spare, so it cannot wrap): a long path loses its start.
** Anything else printed to the same stream first calls progress_clear(),
** so no stale text stays in front of a message.
**
** One line per process, so the state is the module's own: the load calls
** progress_start() and progress_stop(); drawing happens only between them
** and only on the thread that runs the load.
*/
#ifndef PROFDB_PROGRESS_H
#define PROFDB_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

/* How progress shows: none, the line redrawn in place (a terminal), or
** for a log (stderr a pipe or file: Slurm, CI) a whole line at most every
** 10 s ($PROFDB_PROGRESS_SECONDS), "profdb: " and the line's text, with
** the counts (file 3 of 8, section 12 of 48) and seconds. */
enum { PROGRESS_OFF = 0, PROGRESS_LINE = 1, PROGRESS_PLAIN = 2 };

/* Draw on out from now on in mode on (PROGRESS_*); nothing when 0. */
void progress_start(FILE *out, int on);

/* The mode of a command: asked (--progress 1, --no-progress 0) when >= 0,
** else none with --quiet, else the line on a terminal (fd), else plain
** lines. */
int progress_mode(int asked, int quiet, int fd);

/* Draw on `to` whenever progress_start() is given `from`: the CLI's
** stderr escapes control characters, the line's own "\r" and
** erase-to-end-of-line must reach the terminal as they are. */
void progress_redirect(FILE *from, FILE *to);

/* Erase the line and draw nothing more until the next progress_start(). */
void progress_stop(void);

/* Which file of how many is being read (shown when there are several). */
void progress_file(int index, int count);

/* A file is being read: "PATH: 116 MB read, 45%, 50 MB/s".  Drawn at
** once for a new path, then at most every 0.25 s. */
void progress_read(const char *path, double mb, double percent, double mb_per_s);

/* A phase after the parse begins: "profdb: WHAT, 0.0 s", drawn at once. */
void progress_phase(const char *what);

/* Redraw the current phase with its seconds so far (at most every 0.25 s);
** called from a SQLite progress handler during long statements. */
void progress_tick(void);

/* Erase the line if one is drawn (before printing a message). */
void progress_clear(void);

/* "profdb: " and the formatted message and a newline on out, after
** erasing the progress line. */
void ld_say(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The terminal's width in columns: the window size of out's terminal,
** else $COLUMNS, else 80. */
int progress_width(FILE *out);

/*
** "PREFIXLABEL: TEXT" as it is drawn in width columns, into line (cap
** bytes, NUL-terminated): control characters and invalid UTF-8 become
** '?'; a code point takes one column (two from U+1100 on: never too few).
** When too long, LABEL loses its start ("..." in front); when not even 6
** columns of it fit, the line is PREFIX and TEXT, cut at the end.  At most
** width - 1 columns.  Returns the columns used.
*/
int progress_fit(char *line, size_t cap, const char *prefix, const char *label,
                 const char *text, int width);

#endif

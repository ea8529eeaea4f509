/*
** utf8.h — check and repair UTF-8 in strings from the input.
**
** yajl's own validation is switched off (it would reject the whole file
** for one bad byte); instead each string is checked here and invalid
** sequences are replaced by U+FFFD, so one bad name costs one repaired
** string, counted in import_stats, not the trace.
*/
#ifndef PROFDB_UTF8_H
#define PROFDB_UTF8_H

#include "buf.h"
#include "utf8seq.h" /* utf8_seq_len() */

#include <stddef.h>

/*
** If s[0..n) is valid UTF-8 return 0 with out and outn set to s and n.
** Otherwise write a repaired copy into scratch (reset first), point out
** and outn at it and return 1.
*/
int utf8_repair(const char *s, size_t n, ld_buf *scratch, const char **out, size_t *outn);

/*
** Append s[0..n) for a terminal or a Markdown file: invalid UTF-8 and
** control characters other than newline and tab (ESC, CR, BEL, DEL, the C1
** controls) become U+FFFD, so text from a trace cannot move the cursor,
** change colours or titles, or overwrite a line.
*/
void utf8_put_visible(ld_buf *b, const char *s, size_t n);

#endif

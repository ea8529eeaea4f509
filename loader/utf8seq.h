/*
** utf8seq.h — the length of one well-formed UTF-8 sequence (utf8seq.c).
**
** The floor under the buffer (buf.c: JSON strings) and the UTF-8 repair
** (utf8.c, which writes into buffers): it depends on neither.
*/
#ifndef PROFDB_UTF8SEQ_H
#define PROFDB_UTF8SEQ_H

#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at s[i..n), 0 if invalid. */
size_t utf8_seq_len(const unsigned char *s, size_t i, size_t n);

#endif

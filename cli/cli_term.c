/*
** cli_term.c — what reaches the terminal on stderr is text, never a command.
**
** Messages name files and quote traces: a GPU name, a kernel name or a file
** name may hold ESC, BEL or other control characters that a terminal would
** obey (set the window title, clear the screen, move the cursor).  Rather
** than escape each of the many messages, stderr itself is replaced by a
** stream that writes every control character as \xHH: C0 controls but
** '\n' and '\t', DEL, the C1 controls (U+0080..U+009F) and bytes that are
** not UTF-8.  The progress line, whose own text is already made safe
** (progress_fit), draws its "\r" and erase-to-end-of-line on the original
** stream (progress_redirect).
*/
#include "cli.h"

#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The length of the UTF-8 sequence at s (n bytes available), 0 when it is
** not one, or when it encodes a C1 control character. */
static size_t utf8_text_len(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (c >= 0xF5 || len == 0 || len > n) return 0;
  for (size_t i = 1; i < len; i++)
    if ((s[i] & 0xC0) != 0x80) return 0;
  if (c == 0xC2 && s[1] < 0xA0) return 0;  /* U+0080..U+009F */
  if (c == 0xE0 && s[1] < 0xA0) return 0;  /* overlong */
  if (c == 0xED && s[1] >= 0xA0) return 0; /* surrogates */
  if (c == 0xF0 && s[1] < 0x90) return 0;  /* overlong */
  if (c == 0xF4 && s[1] >= 0x90) return 0; /* beyond U+10FFFF */
  return len;
}

static ssize_t safe_write(void *cookie, const char *buf, size_t size) {
  FILE *raw = cookie;
  const unsigned char *s = (const unsigned char *)buf;
  size_t i = 0, start = 0;
  while (i < size) {
    unsigned char c = s[i];
    size_t len = c >= 0x20 && c < 0x7F ? 1 : c == '\n' || c == '\t' ? 1 : 0;
    if (c >= 0x80) len = utf8_text_len(s + i, size - i);
    if (len) {
      i += len;
      continue;
    }
    fwrite(s + start, 1, i - start, raw);
    fprintf(raw, "\\x%02x", c);
    start = ++i;
  }
  fwrite(s + start, 1, size - start, raw);
  fflush(raw);
  return (ssize_t)size;
}

void cli_safe_stderr(void) {
  static FILE *raw;
  if (raw) return;
  raw = stderr;
  cookie_io_functions_t io = {.write = safe_write};
  FILE *safe = fopencookie(raw, "w", io);
  if (!safe) return;              /* keep the raw stream rather than print nothing */
  setvbuf(safe, NULL, _IONBF, 0); /* in order with the progress line's writes */
  stderr = safe;
  progress_redirect(safe, raw);
}

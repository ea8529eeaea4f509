/* progress.test.c — the progress line fits the terminal (progress_fit). */
#include "progress.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void check(const char *prefix, const char *label, const char *text, int width,
                  const char *want, int want_cols) {
  char line[512];
  int cols = progress_fit(line, sizeof line, prefix, label, text, width);
  if (strcmp(line, want) || cols != want_cols) {
    printf("FAIL width %d: got \"%s\" (%d columns), want \"%s\" (%d)\n", width, line, cols,
           want, want_cols);
    failures++;
  }
}

int main(void) {
  /* Fits: as is. */
  check("", "run.json", "5 MB read", 80, "run.json: 5 MB read", 19);
  /* One column spare: 20 columns hold 19. */
  check("", "run.json", "5 MB read", 20, "run.json: 5 MB read", 19);
  /* Too long: the path loses its start, the figures stay. */
  check("[2/4] ", "/a/very/long/path/to/rank3.json", "5 MB read", 30,
        "[2/4] ...ank3.json: 5 MB read", 29);
  /* No room for 6 columns of the label: prefix and text, cut at the end. */
  check("[2/4] ", "/long/path.json", "12 MB read, 40%, 80 MB/s", 20, "[2/4] 12 MB read, 4", 19);
  /* Controls (newline, ESC, CR, C1) and invalid UTF-8 are drawn as '?'. */
  check("",
        "a\nb\033[2Jc\rd\xc2\x9b"
        "e\xff",
        "x", 80, "a?b?[2Jc?d?e?: x", 16);
  /* Multi-byte characters are never split; wide ones count two columns
  ** (so a cut may leave a column free rather than overflow). */
  check("", "caf\xc3\xa9", "x", 80, "caf\xc3\xa9: x", 7);
  check("", "/dir/\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e.json", "1 MB read", 24,
        "...\xe6\x9c\xac\xe8\xaa\x9e.json: 1 MB read", 23);
  check("", "/d/\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5x.json",
        "1 MB read", 24, "...\xe6\x97\xa5x.json: 1 MB read", 22);
  if (!failures) puts("progress: all passed");
  return failures != 0;
}

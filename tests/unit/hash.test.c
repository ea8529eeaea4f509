/* hash.test.c — XXH64 against the reference test vectors (seed 0), and
** streaming in pieces gives the same value as one call. */
#include "hash.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  static const struct {
    const char *text;
    unsigned long long want;
  } vectors[] = {
      {"", 0xEF46DB3751D8E999ULL},
      {"a", 0xD24EC4F1A98C6E5BULL},
      {"abc", 0x44BC2CF5AD770999ULL},
      {"Nobody inspects the spammish repetition", 0xFBCEA83C8A378BF1ULL},
  };
  int failures = 0;
  for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
    uint64_t h = hash_bytes(vectors[i].text, strlen(vectors[i].text));
    if (h != vectors[i].want) {
      printf("FAIL xxh64(\"%s\") = %016llx, want %016llx\n", vectors[i].text,
             (unsigned long long)h, vectors[i].want);
      failures++;
    }
  }
  /* 1000 bytes hashed in every split must equal the one-shot hash. */
  char buf[1000];
  for (int i = 0; i < 1000; i++) buf[i] = (char)(i * 7 + 3);
  uint64_t whole = hash_bytes(buf, sizeof buf);
  for (size_t step = 1; step <= 97; step += 3) {
    ld_hash h;
    hash_init(&h);
    for (size_t off = 0; off < sizeof buf; off += step)
      hash_update(&h, buf + off, off + step <= sizeof buf ? step : sizeof buf - off);
    if (hash_final(&h) != whole) {
      printf("FAIL streaming with step %zu\n", step);
      failures++;
    }
  }
  if (!failures) puts("hash: all passed");
  return failures != 0;
}

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
  /* Seeded: xxHash's own sanity check (its generated buffer, seed 0 and
  ** PRIME32), the seeds parquet.c's dictionary relies on. */
  static const struct {
    size_t len;
    unsigned long long want0, want_seeded;
  } sanity[] = {{0, 0xEF46DB3751D8E999ULL, 0xAC75FDA2929B17EFULL},
                {1, 0xE934A84ADB052768ULL, 0x5014607643A9B4C3ULL},
                {14, 0x8282DCC4994E35C8ULL, 0xC3BD6BF63DEB6DF0ULL},
                {222, 0xB641AE8CB691C174ULL, 0x20CB8AB7AE10C14AULL}};
  unsigned char gen[222];
  uint64_t g = 2654435761ULL;
  for (size_t i = 0; i < sizeof gen; i++, g *= 11400714785074694797ULL)
    gen[i] = (unsigned char)(g >> 56);
  for (size_t i = 0; i < sizeof sanity / sizeof sanity[0]; i++)
    if (hash_bytes_seed(gen, sanity[i].len, 0) != sanity[i].want0 ||
        hash_bytes_seed(gen, sanity[i].len, 2654435761ULL) != sanity[i].want_seeded) {
      printf("FAIL seeded xxh64 of %zu sanity bytes\n", sanity[i].len);
      failures++;
    }
  if (!failures) puts("hash: all passed");
  return failures != 0;
}

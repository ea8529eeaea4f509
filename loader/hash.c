/*
** hash.c — XXH64 (see hash.h), seed 0 unless hash_init_seed.  Verified
** against the reference test vectors in tests/unit/hash.test.c.
*/
#include "hash.h"

#include <string.h>

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static inline uint64_t rotl(uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}

static inline uint64_t read64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, 8); /* little-endian hosts only (x86-64, arm64) */
  return v;
}
static inline uint32_t read32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static inline uint64_t round1(uint64_t acc, uint64_t input) {
  acc += input * P2;
  acc = rotl(acc, 31);
  return acc * P1;
}

static inline uint64_t merge_round(uint64_t acc, uint64_t lane) {
  acc ^= round1(0, lane);
  return acc * P1 + P4;
}

void hash_init_seed(ld_hash *h, uint64_t seed) {
  memset(h, 0, sizeof *h);
  h->seed = seed;
  h->lane[0] = seed + P1 + P2;
  h->lane[1] = seed + P2;
  h->lane[2] = seed;
  h->lane[3] = seed - P1;
}

void hash_init(ld_hash *h) {
  hash_init_seed(h, 0);
}

static void stripe(ld_hash *h, const unsigned char *p) {
  h->lane[0] = round1(h->lane[0], read64(p));
  h->lane[1] = round1(h->lane[1], read64(p + 8));
  h->lane[2] = round1(h->lane[2], read64(p + 16));
  h->lane[3] = round1(h->lane[3], read64(p + 24));
}

void hash_update(ld_hash *h, const void *data, size_t n) {
  const unsigned char *p = data;
  h->total += n;
  if (h->tail_n + n < 32) {
    memcpy(h->tail + h->tail_n, p, n);
    h->tail_n += (unsigned)n;
    return;
  }
  if (h->tail_n) {
    size_t fill = 32 - h->tail_n;
    memcpy(h->tail + h->tail_n, p, fill);
    stripe(h, h->tail);
    p += fill;
    n -= fill;
    h->tail_n = 0;
  }
  while (n >= 32) {
    stripe(h, p);
    p += 32;
    n -= 32;
  }
  memcpy(h->tail, p, n);
  h->tail_n = (unsigned)n;
}

/* The tail (under 32 bytes) and the avalanche, after the lanes. */
static uint64_t finish(uint64_t acc, const unsigned char *p, size_t n) {
  while (n >= 8) {
    acc ^= round1(0, read64(p));
    acc = rotl(acc, 27) * P1 + P4;
    p += 8;
    n -= 8;
  }
  if (n >= 4) {
    acc ^= (uint64_t)read32(p) * P1;
    acc = rotl(acc, 23) * P2 + P3;
    p += 4;
    n -= 4;
  }
  while (n--) {
    acc ^= (*p++) * P5;
    acc = rotl(acc, 11) * P1;
  }
  acc ^= acc >> 33;
  acc *= P2;
  acc ^= acc >> 29;
  acc *= P3;
  acc ^= acc >> 32;
  return acc;
}

static uint64_t converge(const uint64_t lane[4]) {
  uint64_t acc = rotl(lane[0], 1) + rotl(lane[1], 7) + rotl(lane[2], 12) + rotl(lane[3], 18);
  for (int i = 0; i < 4; i++) acc = merge_round(acc, lane[i]);
  return acc;
}

uint64_t hash_final(const ld_hash *h) {
  uint64_t acc = h->total >= 32 ? converge(h->lane) : h->seed + P5;
  return finish(acc + h->total, h->tail, h->tail_n);
}

/* One call, no state copied: the interner hashes every name and key. */
uint64_t hash_bytes_seed(const void *data, size_t n, uint64_t seed) {
  const unsigned char *p = data;
  size_t left = n;
  uint64_t acc = seed + P5;
  if (n >= 32) {
    uint64_t lane[4] = {seed + P1 + P2, seed + P2, seed, seed - P1};
    for (; left >= 32; p += 32, left -= 32) {
      lane[0] = round1(lane[0], read64(p));
      lane[1] = round1(lane[1], read64(p + 8));
      lane[2] = round1(lane[2], read64(p + 16));
      lane[3] = round1(lane[3], read64(p + 24));
    }
    acc = converge(lane);
  }
  return finish(acc + n, p, left);
}

uint64_t hash_bytes(const void *p, size_t n) {
  return hash_bytes_seed(p, n, 0);
}

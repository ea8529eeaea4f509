/*
** hash.h — 64-bit hashing for string interning and duplicate-load detection.
**
** The function is XXH64 (Yann Collet's xxHash, 64-bit variant), written here
** from the published algorithm description: 4 lanes over 32-byte stripes,
** then a tail and an avalanche.  It streams, so a file's decompressed text
** can be hashed chunk by chunk while it is parsed, at memory bandwidth.
*/
#ifndef PROFDB_HASH_H
#define PROFDB_HASH_H

#include <stddef.h>
#include <stdint.h>

typedef struct ld_hash {
  uint64_t total;         /* bytes fed so far */
  uint64_t lane[4];       /* accumulators, valid once total >= 32 */
  unsigned char tail[32]; /* bytes not yet forming a whole stripe */
  unsigned tail_n;        /* bytes in tail */
  uint64_t seed;          /* XXH64's seed: 0 unless hash_init_seed */
} ld_hash;

void hash_init(ld_hash *h);
/* XXH64 with a seed: a table keyed on untrusted strings seeds it at random,
** so colliding names cannot be crafted in advance (parquet.c). */
void hash_init_seed(ld_hash *h, uint64_t seed);
uint64_t hash_bytes_seed(const void *p, size_t n, uint64_t seed);
void hash_update(ld_hash *h, const void *p, size_t n);
uint64_t hash_final(const ld_hash *h);

/* One-shot hash of a short buffer (interning). */
uint64_t hash_bytes(const void *p, size_t n);

#endif

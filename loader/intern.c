/*
** intern.c — string interning (see intern.h).
**
** HOW IT WORKS
**   Slots hold (hash, id, pointer, length); the table doubles at 50% load so
**   probe sequences stay short.  String bytes live in arena blocks that are
**   never moved, so slot pointers stay valid across growth.
*/
#include "intern.h"
#include "oom.h"

#include "hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct slot {
  uint64_t hash; /* full hash; 0 marks an empty slot (hash 0 remapped to 1) */
  int64_t id;    /* string id */
  const char *s; /* bytes in the arena */
  size_t n;      /* length */
} slot;

typedef struct arena_block {
  struct arena_block *next; /* older block */
  size_t used, cap;         /* bytes used / available in data */
  char data[];              /* string bytes */
} arena_block;

struct ld_intern {
  slot *slots;        /* table, power-of-two size */
  size_t mask;        /* size - 1 */
  size_t count;       /* occupied slots */
  int64_t next_id;    /* id for the next new string */
  arena_block *arena; /* newest block first */
  size_t arena_bytes; /* total arena capacity */
};

static void *xmalloc(size_t n) {
  void *p = calloc(1, n);
  if (!p) {
    ld_oom();
  }
  return p;
}

ld_intern *intern_new(void) {
  ld_intern *in = xmalloc(sizeof *in);
  in->mask = 1023;
  in->slots = xmalloc((in->mask + 1) * sizeof(slot));
  in->next_id = 1;
  return in;
}

void intern_free(ld_intern *in) {
  if (!in) return;
  arena_block *b = in->arena;
  while (b) {
    arena_block *next = b->next;
    free(b);
    b = next;
  }
  free(in->slots);
  free(in);
}

static const char *arena_copy(ld_intern *in, const char *s, size_t n) {
  arena_block *b = in->arena;
  if (!b || b->cap - b->used < n) {
    size_t cap = n > 65536 ? n : 65536;
    b = xmalloc(sizeof *b + cap);
    b->cap = cap;
    b->next = in->arena;
    in->arena = b;
    in->arena_bytes += cap;
  }
  char *dst = b->data + b->used;
  if (n) memcpy(dst, s, n);
  b->used += n;
  return dst;
}

static void grow(ld_intern *in) {
  size_t size = (in->mask + 1) * 2;
  slot *slots = xmalloc(size * sizeof(slot));
  for (size_t i = 0; i <= in->mask; i++) {
    slot *o = &in->slots[i];
    if (!o->hash) continue;
    size_t j = o->hash & (size - 1);
    while (slots[j].hash) j = (j + 1) & (size - 1);
    slots[j] = *o;
  }
  free(in->slots);
  in->slots = slots;
  in->mask = size - 1;
}

/* Find the slot for s, or the empty slot where it would go. */
static slot *lookup(ld_intern *in, const char *s, size_t n, uint64_t h) {
  size_t i = h & in->mask;
  for (;;) {
    slot *sl = &in->slots[i];
    if (!sl->hash) return sl;
    if (sl->hash == h && sl->n == n && memcmp(sl->s, s, n) == 0) return sl;
    i = (i + 1) & in->mask;
  }
}

static slot *insert(ld_intern *in, const char *s, size_t n, uint64_t h) {
  if ((in->count + 1) * 2 > in->mask + 1) grow(in);
  slot *sl = lookup(in, s, n, h);
  if (!sl->hash) {
    sl->hash = h;
    sl->s = arena_copy(in, s, n);
    sl->n = n;
    sl->id = 0;
    in->count++;
  }
  return sl;
}

int64_t intern_id(ld_intern *in, const char *s, size_t n, int *is_new) {
  uint64_t h = hash_bytes(s, n);
  if (!h) h = 1;
  slot *sl = lookup(in, s, n, h);
  if (sl->hash) {
    *is_new = 0;
    return sl->id;
  }
  sl = insert(in, s, n, h);
  sl->id = in->next_id++;
  *is_new = 1;
  return sl->id;
}

void intern_seed(ld_intern *in, int64_t id, const char *s, size_t n) {
  uint64_t h = hash_bytes(s, n);
  if (!h) h = 1;
  slot *sl = insert(in, s, n, h);
  sl->id = id;
  if (id >= in->next_id) in->next_id = id + 1;
}

size_t intern_bytes(const ld_intern *in) {
  return in->arena_bytes + (in->mask + 1) * sizeof(slot);
}

size_t intern_count(const ld_intern *in) {
  return in->count;
}

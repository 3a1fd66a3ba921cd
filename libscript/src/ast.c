/* ast.c: the arena and the identifier table of ast.h. */
#include "ast.h"

#include <pthread.h>
#include <tvm/script/lexer.h>

/* ---- The arena -------------------------------------------------------------------------- */
struct script_chunk {
  script_chunk* prev;
  size_t bytes; /* the chunk's bytes, which follow (8-aligned) */
};

enum { MIN_CHUNK = 4096, MAX_CHUNK = 1 << 22 };

/* Under AddressSanitizer no chunk is kept: a tree used after its parse must fault there. */
#if defined(__SANITIZE_ADDRESS__)
#define SPARE_MAX 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPARE_MAX 0
#endif
#endif
#ifndef SPARE_MAX
#define SPARE_MAX (1 << 20)
#endif

/* One freed chunk (at most SPARE_MAX bytes) kept for the next arena, process-wide: parses of
 * one file after another then build their trees in memory still in the CPU's caches instead of
 * in a fresh block each (a tree takes ~20 bytes per byte of source). */
static script_chunk* g_spare;

/* The spare chunk when it has at least `bytes`, else NULL (a smaller one is freed). */
static script_chunk* take_spare(size_t bytes) {
  script_chunk* c = __atomic_exchange_n(&g_spare, NULL, __ATOMIC_ACQ_REL);
  if (c && c->bytes < bytes) {
    tvm_ffi_free(c);
    c = NULL;
  }
  return c;
}

/* Free c, or keep it as the spare when it is larger than the one kept. */
static void give_spare(script_chunk* c) {
  if (c->bytes > SPARE_MAX) {
    tvm_ffi_free(c);
    return;
  }
  script_chunk* out = __atomic_exchange_n(&g_spare, c, __ATOMIC_ACQ_REL);
  if (out && out->bytes > c->bytes) out = __atomic_exchange_n(&g_spare, out, __ATOMIC_ACQ_REL);
  tvm_ffi_free(out);
}

void tvm_script__arena_init(script_arena* a, size_t first) {
  a->cur = a->end = NULL;
  a->chunk = NULL;
  a->next_size = first < MIN_CHUNK ? MIN_CHUNK : first > MAX_CHUNK ? MAX_CHUNK : first;
}

void* tvm_script__arena_grow(script_arena* a, size_t size) {
  size_t bytes = a->next_size;
  if (a->next_size < MAX_CHUNK) a->next_size *= 2;
  if (bytes < size) bytes = size; /* (a large request gets a chunk of its own size) */
  if (size > SIZE_MAX / 2) {
    tvm_ffi_raise("MemoryError", "TVMScript parser: %zu bytes requested", size);
    return NULL;
  }
  script_chunk* c = take_spare(bytes);
  if (c) {
    bytes = c->bytes;
  } else {
    c = tvm_ffi_malloc(sizeof(script_chunk) + bytes);
    if (!c) return NULL;
    c->bytes = bytes;
  }
  c->prev = a->chunk;
  a->chunk = c;
  a->cur = (char*)(c + 1) + size;
  a->end = (char*)(c + 1) + bytes;
  return c + 1;
}

char* tvm_script__arena_strdup(script_arena* a, const char* s, size_t n) {
  char* d = tvm_script__arena_alloc(a, n + 1);
  if (d) {
    if (n) memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}

void tvm_script__arena_free(script_arena* a) {
  for (script_chunk* c = a->chunk; c;) {
    script_chunk* prev = c->prev;
    give_spare(c);
    c = prev;
  }
  a->chunk = NULL;
  a->cur = a->end = NULL;
}

/* ---- Keywords ----------------------------------------------------------------------------- */
/* The keywords by name hash (built once): a new name of the table is looked up here to learn
 * whether it is one. Every keyword has 2 to 8 bytes. */
enum { KW_SLOTS = 128 };
static struct {
  uint64_t word;
  uint32_t size;
  int32_t token;
} g_keywords[KW_SLOTS];
static pthread_once_t g_keywords_once = PTHREAD_ONCE_INIT;
static int g_keywords_ready;

static void build_keywords(void) {
  static const struct {
    const char* text;
    int32_t token;
  } kList[] = {
#define X(e, s) {s, TVM_SCRIPT_TOK_KW_##e},
      TVM_SCRIPT_TOKEN_KEYWORDS(X)
#undef X
  };
  for (size_t k = 0; k < sizeof(kList) / sizeof(kList[0]); ++k) {
    size_t n = strlen(kList[k].text);
    uint64_t k0, k1;
    tvm_script__name_words(kList[k].text, n, n, &k0, &k1);
    uint32_t i = tvm_script__name_hash(k0, k1, n) & (KW_SLOTS - 1);
    while (g_keywords[i].size) i = (i + 1) & (KW_SLOTS - 1);
    g_keywords[i].word = k0;
    g_keywords[i].size = (uint32_t)n;
    g_keywords[i].token = kList[k].token;
  }
  __atomic_store_n(&g_keywords_ready, 1, __ATOMIC_RELEASE);
}

/* The token of the word whose first (and only) word is k0, of n bytes and hash h. */
static int32_t keyword_token(uint64_t k0, size_t n, uint32_t h) {
  if (n < 2 || n > 8) return TVM_SCRIPT_TOK_NAME;
  for (uint32_t i = h & (KW_SLOTS - 1); g_keywords[i].size; i = (i + 1) & (KW_SLOTS - 1)) {
    if (g_keywords[i].word == k0 && g_keywords[i].size == n) return g_keywords[i].token;
  }
  return TVM_SCRIPT_TOK_NAME;
}

/* ---- The identifier table ----------------------------------------------------------------- */
int tvm_script__names_init(script_names* t, script_arena* arena, uint32_t cap) {
  if (!__atomic_load_n(&g_keywords_ready, __ATOMIC_ACQUIRE)) {
    pthread_once(&g_keywords_once, build_keywords);
  }
  t->arena = arena;
  t->first = NULL;
  t->count = 0;
  t->cap = 0;
  t->slots = tvm_script__arena_alloc(arena, (size_t)cap * sizeof(script_name*));
  if (!t->slots) return -1;
  memset(t->slots, 0, (size_t)cap * sizeof(script_name*));
  t->cap = cap;
  return 0;
}

void tvm_script__names_free(script_names* t) {
  for (script_name* e = t->first; e; e = e->next) tvm_ffi_release(e->str);
  t->first = NULL;
  t->count = t->cap = 0;
  t->slots = NULL;
}

/* Twice the slots (the old ones stay in the arena, unused). */
static int names_grow(script_names* t) {
  uint32_t cap = t->cap * 2;
  script_name** slots = tvm_script__arena_alloc(t->arena, (size_t)cap * sizeof(script_name*));
  if (!slots) return -1;
  memset(slots, 0, (size_t)cap * sizeof(script_name*));
  for (uint32_t i = 0; i < t->cap; ++i) {
    script_name* e = t->slots[i];
    if (!e) continue;
    uint32_t j = e->hash & (cap - 1);
    while (slots[j]) j = (j + 1) & (cap - 1);
    slots[j] = e;
  }
  t->slots = slots;
  t->cap = cap;
  return 0;
}

script_name* tvm_script__intern_new(script_names* t, const char* s, size_t n, uint64_t k0,
                                    uint32_t h) {
  if (n > UINT32_MAX) {
    tvm_ffi_raise("MemoryError", "TVMScript parser: a name of %zu bytes", n);
    return NULL;
  }
  if (2 * (t->count + 1) > t->cap && names_grow(t) != 0) return NULL;
  script_name* e = tvm_script__arena_alloc(t->arena, sizeof(script_name) + n + 1);
  if (!e) return NULL;
  e->word = k0;
  e->size = (uint32_t)n;
  e->hash = h;
  e->token = keyword_token(k0, n, h);
  e->binding = -1;
  e->str = NULL;
  e->builtin_module = e->builtin = NULL;
  e->relax_df_local = false;
  e->next = t->first;
  t->first = e;
  memcpy(e->text, s, n);
  e->text[n] = '\0';
  uint32_t i = h & (t->cap - 1);
  while (t->slots[i]) i = (i + 1) & (t->cap - 1);
  t->slots[i] = e;
  ++t->count;
  return e;
}

/* ---- Kind names --------------------------------------------------------------------------- */
const char* tvm_script__ast_stmt_kind_name(int kind) {
  static const char* const kNames[] = {
#define X(k, s) s,
      TVM_SCRIPT_AST_STMTS(X)
#undef X
  };
  return kind >= 0 && kind < AST_STMT_COUNT ? kNames[kind] : "<not a statement>";
}

void tvm_script__ast_free(ast_module* m) {
  tvm_script__names_free(&m->names);
  tvm_script__arena_free(&m->arena);
}

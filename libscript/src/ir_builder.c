/*
 * ir_builder.c: the IR builder's frame stack (tvm/script/ir_builder.h): pushing, exiting and
 * dropping frames, the statement lists, the result, and module frames. The TIR frames are in
 * ir_builder_tir.c.
 */
#include <assert.h>
#include <pthread.h>
#include <string.h>
#include <tvm-private/tir.h>

#include "ir_builder_internal.h"
#include "thread_exit.h"

/* How a frame kind is written in TVMScript, for messages. */
static const char* frame_spelling(tvm_script_frame_kind kind) {
  switch (kind) {
    case TVM_SCRIPT_FRAME_MODULE: return "I.ir_module";
    case TVM_SCRIPT_FRAME_PRIM_FUNC: return "T.prim_func";
    case TVM_SCRIPT_FRAME_BLOCK: return "T.sblock";
    case TVM_SCRIPT_FRAME_BLOCK_INIT: return "T.init";
    case TVM_SCRIPT_FRAME_FOR: return "for loop";
    case TVM_SCRIPT_FRAME_IF: return "if";
    case TVM_SCRIPT_FRAME_THEN: return "T.Then";
    case TVM_SCRIPT_FRAME_ELSE: return "T.Else";
    case TVM_SCRIPT_FRAME_WHILE: return "while";
    case TVM_SCRIPT_FRAME_ASSERT: return "assert";
    case TVM_SCRIPT_FRAME_LET: return "T.let";
    case TVM_SCRIPT_FRAME_ALLOCATE: return "T.allocate";
    case TVM_SCRIPT_FRAME_DECL_BUFFER: return "T.decl_buffer";
    case TVM_SCRIPT_FRAME_ATTR: return "T.attr";
    case TVM_SCRIPT_FRAME_LAUNCH_THREAD: return "T.launch_thread";
    case TVM_SCRIPT_FRAME_REALIZE: return "T.realize";
    case TVM_SCRIPT_FRAME_RELAX_FUNC: return "R.function";
    case TVM_SCRIPT_FRAME_RELAX_DATAFLOW: return "R.dataflow";
    case TVM_SCRIPT_FRAME_RELAX_IF: return "Relax if";
    case TVM_SCRIPT_FRAME_RELAX_THEN: return "Relax if branch";
    case TVM_SCRIPT_FRAME_RELAX_ELSE: return "Relax else branch";
    default: return "frame";
  }
}

/* ---- Expression test ------------------------------------------------------------------------ */
bool tvm_script__expr_kind[TVM_TIR_KIND_COUNT];
bool tvm_script__stmt_kind[TVM_TIR_KIND_COUNT];
uint8_t tvm_script__kind_by_index[TVM_SCRIPT_KIND_TABLE];
int tvm_script__kinds_ready;
static pthread_once_t g_kinds_once = PTHREAD_ONCE_INIT;

/* nodes.def lists parents before children, with Object for no libtir parent. */
#define TVM_TIR_KIND_Object TVM_TIR_KIND_NONE
static const tvm_tir_kind k_parent[TVM_TIR_KIND_COUNT] = {
#define TVM_TIR_NODE(Name, type_key, Parent, c_struct, seq_kind, fields) \
  [TVM_TIR_KIND_##Name] = TVM_TIR_KIND_##Parent,
#include <tvm/tir/nodes.def>
};
#undef TVM_TIR_KIND_Object

static void init_kinds(void) {
  for (int k = 0; k < TVM_TIR_KIND_COUNT; ++k) {
    tvm_tir_kind p = k_parent[k];
    tvm_script__expr_kind[k] = k == TVM_TIR_KIND_PrimExpr || (p >= 0 && tvm_script__expr_kind[p]);
    tvm_script__stmt_kind[k] = k == TVM_TIR_KIND_Stmt || (p >= 0 && tvm_script__stmt_kind[p]);
  }
  /* The type index of every kind (libtir's exact kind of an object is the kind registered under
   * its type index; any other index has none). With one beyond the table (libtvmffi hands out
   * fewer), the table stays unready: questions it cannot answer go to libtir. */
  for (int k = 0; k < TVM_TIR_KIND_COUNT; ++k) {
    if ((uint32_t)tvm_tir_type_index((tvm_tir_kind)k) >= TVM_SCRIPT_KIND_TABLE) return;
  }
  for (int k = 0; k < TVM_TIR_KIND_COUNT; ++k) {
    __atomic_store_n(&tvm_script__kind_by_index[tvm_tir_type_index((tvm_tir_kind)k)],
                     (uint8_t)(k + 1), __ATOMIC_RELEASE);
  }
  __atomic_store_n(&tvm_script__kinds_ready, 1, __ATOMIC_RELEASE);
}

void tvm_script__init_kinds(void) { pthread_once(&g_kinds_once, init_kinds); }

/* ---- Collections ---------------------------------------------------------------------------- */
/* A per-thread stack of freed first blocks of collections (VEC_FIRST_CAP items, from
 * tvm_ffi_malloc): a parse fills a dozen collections (each frame slot's statements, a block's
 * iter vars and buffers, a function's parameters), each one such block, and every one used to
 * cost a malloc + free per parse. Bounded (VEC_CACHE_DEPTH blocks, 8 KiB),
 * and flushed to the allocator when the thread exits. Only the storage is reused: a block
 * taken is written before it is read. */
enum { VEC_FIRST_CAP = 8, VEC_CACHE_DEPTH = 64 };
typedef struct {
  void* head;     /* blocks linked through their first word */
  int count;
  bool registered; /* the thread-exit flush is armed */
} vec_cache;
static __thread vec_cache t_vec_cache;

static void vec_cache_flush(void* arg) {
  vec_cache* c = (vec_cache*)arg;
  c->registered = false;
  while (c->head) {
    void* blk = c->head;
    c->head = *(void**)blk;
    tvm_ffi_free(blk);
  }
  c->count = 0;
}

static void* vec_block_alloc(void) {
  vec_cache* c = &t_vec_cache;
  void* blk = c->head;
  if (!blk) return tvm_ffi_malloc(VEC_FIRST_CAP * sizeof(TVMFFIAny));
  c->head = *(void**)blk;
  c->count--;
  return blk;
}

/* Free the storage of a collection of capacity cap. */
static void vec_block_free(TVMFFIAny* items, int32_t cap) {
  vec_cache* c = &t_vec_cache;
  if (items && cap == VEC_FIRST_CAP && c->count < VEC_CACHE_DEPTH) {
    if (__builtin_expect(!c->registered, 0)) {
      c->registered = tvm_script__at_thread_exit(vec_cache_flush, c);
    }
    if (c->registered) {
      *(void**)items = c->head;
      c->head = items;
      c->count++;
      return;
    }
  }
  tvm_ffi_free(items);
}

int tvm_script__vec_push_grow(tvm_script__vec* v, const void* obj) {
  if (v->size == v->cap) {
    int32_t cap = v->cap ? 2 * v->cap : VEC_FIRST_CAP;
    TVMFFIAny* items = v->cap ? tvm_ffi_realloc(v->items, (size_t)cap * sizeof(TVMFFIAny))
                              : vec_block_alloc();
    if (!items) return -1;
    v->items = items;
    v->cap = cap;
  }
  tvm_ffi_retain((void*)obj);
  v->items[v->size++] = tvm_ffi_any_obj(obj);
  return 0;
}

void* tvm_script__vec_take(tvm_script__vec* v, bool* ok) {
  *ok = true;
  if (v->size == 0) return NULL;
  void* arr = tvm_ffi_array_new_take(v->items, v->size);
  if (!arr) {
    *ok = false;
    return NULL;
  }
  v->size = 0; /* the items moved (each is None now) */
  return arr;
}

void tvm_script__vec_clear(tvm_script__vec* v) {
  for (int32_t i = 0; i < v->size; ++i) tvm_ffi_any_release(&v->items[i]);
  vec_block_free(v->items, v->cap);
  v->items = NULL;
  v->size = v->cap = 0;
}

/* ---- The builder --------------------------------------------------------------------------- */
/* The thread's last freed builder block: a parse makes and frees one builder (~4 KiB), which
 * cost a malloc + free per parse. One block, freed when the thread exits;
 * only the storage is reused (tvm_script_builder_new sets it up as a fresh one). */
typedef struct {
  tvm_script_builder* block;
  /* The largest heap frame storage a builder of the thread grew into (capacity frames_cap),
   * kept for the next one that outgrows its inline frames: a deeply nested function (a chain
   * of lets, loops and blocks) needs 16 or 32 frames, kilobytes that cost a malloc and a
   * realloc (a fresh slab each time) per parse. Only the storage is
   * reused: push_frame copies the inline frames into it and zeroes each slot when first used,
   * as it does fresh storage. */
  tvm_script__frame* frames;
  int frames_cap;
  bool registered; /* the thread-exit flush is armed */
} builder_cache;
static __thread builder_cache t_builder_cache;

static void builder_cache_flush(void* arg) {
  builder_cache* c = (builder_cache*)arg;
  c->registered = false;
  tvm_ffi_free(c->block);
  c->block = NULL;
  tvm_ffi_free(c->frames);
  c->frames = NULL;
}

/* ---- Frames -------------------------------------------------------------------------------- */
#ifndef NDEBUG
static bool frame_is_clear(const tvm_script__frame* f);
#endif

#define RELEASE_FIELD(x) \
  if (f->x) {            \
    tvm_ffi_release(f->x); \
    f->x = NULL;         \
  }

/* Clearing a frame: only the fields its kind can set are tested (a frame is cleared several
 * times per function). Statement frames (FOR, IF / THEN / ELSE, LET, ASSERT, ATTR, ...) set only
 * statement fields (ir_builder_tir_stmt.c); BLOCK and PRIM_FUNC frames only block and function
 * fields and collections (ir_builder_tir.c, tvm_script__set_frame_name); a MODULE frame may hold
 * anything. Debug builds check that a cleared frame is all zero, so a field a kind sets but its
 * clear forgets fails the tests. The frame is left as tvm_script__push_frame makes one, all zero
 * but for its statement list's storage, so the next frame pushed into the slot needs no zeroing
 * (the list's storage is freed with the builder). */
static void release_stmt_fields(tvm_script__frame* f) {
  RELEASE_FIELD(var);
  RELEASE_FIELD(min);
  RELEASE_FIELD(extent);
  RELEASE_FIELD(cond);
  RELEASE_FIELD(value);
  RELEASE_FIELD(thread);
  RELEASE_FIELD(buffer);
  RELEASE_FIELD(extents);
  RELEASE_FIELD(then_case);
  RELEASE_FIELD(else_case);
  RELEASE_FIELD(built);
  tvm_ffi_any_release(&f->node);
  memset(&f->node, 0, sizeof(f->node));
}

static void release_block_fields(tvm_script__frame* f) {
  RELEASE_FIELD(cond);
  RELEASE_FIELD(init);
  RELEASE_FIELD(ret_type);
  RELEASE_FIELD(reads);
  RELEASE_FIELD(writes);
  RELEASE_FIELD(attrs);
  if (f->iter_vars.items) tvm_script__vec_clear(&f->iter_vars);
  if (f->iter_values.items) tvm_script__vec_clear(&f->iter_values);
  if (f->alloc_buffers.items) tvm_script__vec_clear(&f->alloc_buffers);
  if (f->match_buffers.items) tvm_script__vec_clear(&f->match_buffers);
  if (f->params.items) tvm_script__vec_clear(&f->params);
  if (f->buffer_map_keys.items) tvm_script__vec_clear(&f->buffer_map_keys);
  if (f->buffer_map_values.items) tvm_script__vec_clear(&f->buffer_map_values);
}

void tvm_script__frame_clear(tvm_script__frame* f) {
  if (f->kind == TVM_SCRIPT_FRAME_BLOCK || f->kind == TVM_SCRIPT_FRAME_PRIM_FUNC) {
    release_block_fields(f);
  } else if (tvm_script__is_relax_frame(f->kind)) {
    tvm_script__relax_frame_release(f);
  } else if (f->kind != TVM_SCRIPT_FRAME_MODULE) {
    release_stmt_fields(f);
  } else {
    release_stmt_fields(f);
    release_block_fields(f);
    RELEASE_FIELD(functions);
    RELEASE_FIELD(global_vars);
  }
  RELEASE_FIELD(annotations);
  for (int32_t i = 0; i < f->stmts.size; ++i) tvm_ffi_any_release(&f->stmts.items[i]);
  f->stmts.size = 0;
  if (f->name_heap) tvm_ffi_free(f->name);
  f->name = NULL;
  f->name_str = NULL;
  f->kind = (tvm_script_frame_kind)0;
  f->rest_of_body = f->flag = f->root = f->name_heap = false;
  memset(&f->dtype, 0, sizeof(f->dtype));
  f->for_kind = 0;
  f->span = NULL;
#ifndef NDEBUG
  assert(frame_is_clear(f));
#endif
}
#undef RELEASE_FIELD

#ifndef NDEBUG
/* Whether f is as tvm_script__frame_clear leaves a frame (checked when a slot is reused). */
static bool frame_is_clear(const tvm_script__frame* f) {
  tvm_script__frame z;
  memset(&z, 0, sizeof(z));
  z.stmts.items = f->stmts.items;
  z.stmts.cap = f->stmts.cap;
  return memcmp(&z, f, sizeof(z)) == 0;
}
#endif

tvm_tir_var_obj* tvm_script__var(tvm_script_builder* b, const char* name, DLDataType dtype) {
  void* s = tvm_script__name_str(b, name);
  return s ? tvm_tir_var_str(s, dtype) : tvm_tir_var(name, dtype);
}

tvm_tir_var_obj* tvm_script__ptr_var(tvm_script_builder* b, const char* name, void* name_str,
                                     DLDataType element, const char* scope) {
  (void)b;
  return name_str ? tvm_tir_ptr_var_str(name_str, element, scope)
                  : tvm_tir_ptr_var(name, element, scope);
}

int tvm_script__set_frame_name(tvm_script_builder* b, tvm_script__frame* f, const char* name) {
  if (f->name_heap) tvm_ffi_free(f->name);
  f->name = NULL;
  f->name_heap = false;
  if (!name) name = "";
  size_t len = strlen(name);
  if (len < (size_t)(TVM_SCRIPT_NAME_POOL - b->name_pool_used)) {
    f->name = b->name_pool + b->name_pool_used;
    b->name_pool_used += (int)len + 1;
    memcpy(f->name, name, len + 1);
    return 0;
  }
  f->name = tvm_ffi_strndup(name, len);
  f->name_heap = f->name != NULL;
  return f->name ? 0 : -1;
}

/* Each frame nests the IR built one level deeper, and the printer, the checker and the passes
 * recurse on that nesting: a chain of thousands of `x = ...` lets or elifs (flat in the text)
 * would overflow their stacks, so the depth is bounded here (the printer takes 2000 levels). */
enum { MAX_FRAMES = 1000 };

tvm_script__frame* tvm_script__push_frame(tvm_script_builder* b, tvm_script_frame_kind kind) {
  if (b->depth >= MAX_FRAMES) {
    tvm_ffi_raise("SyntaxError",
                  "statements nested too deeply: the IR would be more than %d levels deep (each "
                  "let, assert, elif, loop and block nests what follows it)",
                  MAX_FRAMES);
    return NULL;
  }
  if (b->depth == b->capacity) {
    int cap = 2 * b->capacity;
    tvm_script__frame* frames;
    builder_cache* c = &t_builder_cache;
    if (b->frames == b->frames_inline && c->frames) {
      /* The thread's kept storage (see builder_cache), at least as large as a new one. */
      frames = c->frames;
      if (c->frames_cap > cap) cap = c->frames_cap;
      c->frames = NULL;
      memcpy(frames, b->frames, (size_t)b->capacity * sizeof(*frames));
    } else if (b->frames == b->frames_inline) {
      /* (Moved out of the builder: pointers to frames are valid only until the next push.) */
      frames = tvm_ffi_malloc((size_t)cap * sizeof(*frames));
      if (frames) memcpy(frames, b->frames, (size_t)b->capacity * sizeof(*frames));
    } else {
      frames = tvm_ffi_realloc(b->frames, (size_t)cap * sizeof(*frames));
    }
    if (!frames) return NULL;
    b->frames = frames;
    b->capacity = cap;
  }
  tvm_script__frame* f = &b->frames[b->depth++];
  /* Every frame collects statements: a slot used before keeps its (cleared) list's storage, so
   * that a loop or scope does not allocate and free one per entry. Such a slot was left zeroed
   * otherwise by tvm_script__frame_clear (every popped frame is cleared); a new one is zeroed
   * here. */
  if (b->depth > b->slots_used) {
    b->slots_used = b->depth;
    memset(f, 0, sizeof(*f));
  }
#ifndef NDEBUG
  assert(frame_is_clear(f));
#endif
  f->kind = kind;
  f->node = tvm_ffi_any_none();
  f->span = b->span;
  return f;
}

tvm_script__frame* tvm_script__find_frame(tvm_script_builder* b, tvm_script_frame_kind kind) {
  for (int i = b->depth - 1; i >= 0; --i) {
    if (b->frames[i].kind == kind) return &b->frames[i];
  }
  return NULL;
}

tvm_script__frame* tvm_script__require_top(tvm_script_builder* b, tvm_script_frame_kind kind,
                                           const char* what, const char* where) {
  tvm_script__frame* f = b->depth ? &b->frames[b->depth - 1] : NULL;
  if (f && f->kind == kind) return f;
  tvm_ffi_raise("ValueError", "%s is only valid inside a %s%s%s", what, where,
                f ? ", not directly inside a " : " (no frame is open)",
                f ? frame_spelling(f->kind) : "");
  return NULL;
}

/* The error of tvm_script__emit (out of line: emit runs per statement). */
static __attribute__((noinline)) int emit_error(const void* stmt, const tvm_script__frame* f) {
  if (!tvm_script__is_stmt(stmt)) {
    return tvm_ffi_raise("TypeError", "a statement was expected, got %s",
                         stmt ? tvm_ffi_type_key(tvm_ffi_type_index(stmt)) : "None");
  }
  return tvm_ffi_raise("ValueError", "a statement is not valid directly inside %s",
                       f->kind == TVM_SCRIPT_FRAME_IF       ? "T.If (use T.Then / T.Else)"
                       : f->kind == TVM_SCRIPT_FRAME_MODULE ? "an I.ir_module"
                                                            : "a Relax function (a TIR statement)");
}

int tvm_script__emit(tvm_script_builder* b, const void* stmt) {
  tvm_script__frame* f = b->depth ? &b->frames[b->depth - 1] : NULL;
  if (!tvm_script__is_stmt(stmt) ||
      (f && (f->kind == TVM_SCRIPT_FRAME_MODULE || f->kind == TVM_SCRIPT_FRAME_IF ||
             tvm_script__is_relax_frame(f->kind)))) {
    return emit_error(stmt, f);
  }
  if (b->span && tvm_script__span_record(b, stmt, b->span) != 0) return -1;
  if (tvm_script__vec_push(f ? &f->stmts : &b->top_stmts, stmt) != 0) return -1;
  return 0;
}

tvm_tir_stmt_obj* tvm_script__stmts_body(tvm_script__vec* stmts, bool take) {
  int64_t n = stmts->size;
  /* The common bodies, statements none of which is a SeqStmt to flatten, directly: one is
   * itself, several a SeqStmt of them (what tvm_tir_seq_takev makes of them, without its copies
   * of the list). Only statements are emitted (tvm_script__emit checks). */
  bool plain = n > 0 && !tvm_ffi_error_pending();
  for (int64_t i = 0; plain && i < n; ++i) {
    plain = tvm_tir_kind_of(tvm_script__vec_at(stmts, (int32_t)i)) != TVM_TIR_KIND_SeqStmt;
  }
  if (plain && n == 1) return tvm_tir_ref((void*)tvm_script__vec_at(stmts, 0));
  if (plain) {
    bool ok;
    void* arr = take ? tvm_script__vec_take(stmts, &ok) : tvm_ffi_array_new(stmts->items, n);
    /* (An Array of the emitted statements: each was tested to be a Stmt by tvm_script__emit.) */
    tvm_tir_stmt_obj* body = arr ? tvm_tir__seq_stmt_new_typed(arr) : NULL;
    tvm_ffi_release(arr);
    return body;
  }
  void** items = tvm_ffi_malloc((size_t)(n ? n : 1) * sizeof(void*));
  if (!items) return NULL;
  for (int64_t i = 0; i < n; ++i) {
    items[i] = tvm_tir_ref((void*)tvm_script__vec_at(stmts, (int32_t)i));
  }
  tvm_tir_stmt_obj* body = tvm_tir_seq_takev(n, items);
  tvm_ffi_free(items);
  return body;
}

tvm_script_builder* tvm_script_builder_new(void) {
  tvm_tir_init();
  tvm_script__init_kinds();
  builder_cache* c = &t_builder_cache;
  tvm_script_builder* b = c->block;
  if (b) {
    c->block = NULL;
  } else if (!(b = tvm_ffi_malloc(sizeof(*b)))) {
    return NULL;
  }
  /* Zero all but the inline storage (kilobytes that nothing reads before writing). */
  memset(b, 0, offsetof(tvm_script_builder, frames_inline));
  b->frames = b->frames_inline;
  b->capacity = TVM_SCRIPT_INLINE_FRAMES;
  b->spans.items = b->spans_inline;
  b->spans.capacity = TVM_SCRIPT_INLINE_SPANS;
  return b;
}

void tvm_script_builder_free(tvm_script_builder* b) {
  if (!b) return;
  for (int i = 0; i < b->depth; ++i) tvm_script__frame_clear(&b->frames[i]);
  for (int i = 0; i < b->slots_used; ++i) {
    vec_block_free(b->frames[i].stmts.items, b->frames[i].stmts.cap);
  }
  builder_cache* c = &t_builder_cache;
  if (__builtin_expect(!c->registered, 0)) {
    c->registered = tvm_script__at_thread_exit(builder_cache_flush, c);
  }
  if (b->frames != b->frames_inline) {
    /* Kept for the thread's next builder when it is the largest (see builder_cache). */
    if (c->registered && (!c->frames || c->frames_cap < b->capacity)) {
      tvm_ffi_free(c->frames);
      c->frames = b->frames;
      c->frames_cap = b->capacity;
    } else {
      tvm_ffi_free(b->frames);
    }
  }
  tvm_script__vec_clear(&b->top_stmts);
  tvm_ffi_release(b->result);
  tvm_ffi_release(b->env_threads);
  tvm_script__relax_builder_release(b);
  if (b->spans.items != b->spans_inline) tvm_script__span_log_free(&b->spans);
  if (!c->block) {
    if (c->registered) {
      c->block = b;
      return;
    }
  }
  tvm_ffi_free(b);
}

int tvm_script_builder_depth(const tvm_script_builder* b) { return b ? b->depth : 0; }

tvm_script_frame_kind tvm_script_builder_frame_kind(const tvm_script_builder* b, int level) {
  if (!b || level < 0 || level >= b->depth) return TVM_SCRIPT_FRAME_NONE;
  return b->frames[b->depth - 1 - level].kind;
}

static int finish_module(tvm_script_builder* b, tvm_script__frame* f);

/* Pop the innermost frame, build its node and hand it on (at the span of its statement). */
static int pop_frame(tvm_script_builder* b) {
  /* The popped frame is finished where it lies: finishing emits into the frame below and never
   * pushes one, so its slot is not reused meanwhile. */
  tvm_script__frame* f = &b->frames[--b->depth];
  const tvm_script_span* outer = b->span;
  b->span = f->span;
  int rc = f->kind == TVM_SCRIPT_FRAME_MODULE         ? finish_module(b, f)
           : tvm_script__is_relax_frame(f->kind) ? tvm_script__finish_relax_frame(b, f)
                                                 : tvm_script__finish_tir_frame(b, f);
  b->span = outer;
  if (rc != 0) b->exit_error_span = f->span;
  tvm_script__frame_clear(f);
  return rc;
}

int tvm_script_builder_exit(tvm_script_builder* b) {
  b->exit_error_span = NULL;
  int explicit_at = b->depth - 1;
  while (explicit_at >= 0 && b->frames[explicit_at].rest_of_body) --explicit_at;
  if (explicit_at < 0) {
    return tvm_ffi_raise("ValueError", "exit of a frame, but no %sframe is open",
                         b->depth ? "explicit " : "");
  }
  while (b->depth > explicit_at) {
    if (pop_frame(b) != 0) return -1;
  }
  return 0;
}

void* tvm_script_builder_result(tvm_script_builder* b) {
  /* Statement-form frames at the top level (a fragment `x: T.let = v` ...) end with it. */
  bool all_rest = true;
  for (int i = 0; i < b->depth; ++i) all_rest = all_rest && b->frames[i].rest_of_body;
  while (all_rest && b->depth) {
    if (pop_frame(b) != 0) return NULL;
  }
  if (b->depth) {
    tvm_ffi_raise("ValueError", "the IR builder has %d open frame%s (innermost: %s)", b->depth,
                  b->depth == 1 ? "" : "s", frame_spelling(b->frames[b->depth - 1].kind));
    return NULL;
  }
  if (b->result) {
    tvm_ffi_retain(b->result);
    return b->result;
  }
  if (b->top_stmts.size == 0) {
    tvm_ffi_raise("ValueError", "the IR builder has built nothing");
    return NULL;
  }
  return tvm_script__stmts_body(&b->top_stmts, false);
}

int tvm_script_tir_add_stmt(tvm_script_builder* b, const void* stmt) {
  return tvm_script__emit(b, stmt);
}

/* ---- Modules ------------------------------------------------------------------------------- */
int tvm_script_ir_module_enter(tvm_script_builder* b) {
  if (b->depth) {
    return tvm_ffi_raise("ValueError", "I.ir_module is only valid at the top level, not inside %s",
                         frame_spelling(b->frames[b->depth - 1].kind));
  }
  tvm_script__frame* f = tvm_script__push_frame(b, TVM_SCRIPT_FRAME_MODULE);
  if (!f) return -1;
  f->functions = tvm_ffi_dict_new();
  f->global_vars = tvm_ffi_dict_new();
  /* (attrs: made by the first I.module_attrs / I.module_global_infos; most modules have none,
   * and then the module's attrs are the empty Map.) */
  return f->functions && f->global_vars ? 0 : -1;
}

/* The module frame's attribute Dict, made when first needed (NULL with the error raised). */
static void* module_attrs(tvm_script__frame* f) {
  if (!f->attrs) f->attrs = tvm_ffi_dict_new();
  return f->attrs;
}

/* The GlobalVar of module frame f named name (a new reference; NULL with the error raised),
 * made and recorded when it is new (*fresh then true). name_str: a String of name, borrowed,
 * that a new GlobalVar takes as its name (none made), or NULL. */
static tvm_tir_global_var_obj* module_global_var(tvm_script__frame* f, const char* name,
                                                 void* name_str, bool* fresh) {
  const TVMFFIAny* gv = tvm_ffi_map_get_str(f->global_vars, name);
  *fresh = !gv;
  if (gv) {
    tvm_ffi_retain(gv->v_obj);
    return (tvm_tir_global_var_obj*)gv->v_obj;
  }
  tvm_tir_global_var_obj* v =
      name_str ? tvm_tir_global_var_new_str(name_str) : tvm_tir_global_var_new(name);
  /* The key is the GlobalVar's own name String (the bytes of name: the Dict is the builder's,
   * looked up by the bytes), not another String made of them. */
  TVMFFIAny key = tvm_ffi_any_obj(v ? v->name_hint : NULL), val = tvm_ffi_any_obj(v);
  int rc = v ? tvm_ffi_dict_set(f->global_vars, &key, &val) : -1;
  if (rc != 0) {
    tvm_ffi_release(v);
    return NULL;
  }
  return v;
}

tvm_tir_global_var_obj* tvm_script_ir_module_global_var(tvm_script_builder* b, const char* name) {
  tvm_script__frame* f = tvm_script__find_frame(b, TVM_SCRIPT_FRAME_MODULE);
  if (!f) {
    tvm_ffi_raise("ValueError", "a module function (`%s`) is only valid inside an I.ir_module",
                  name);
    return NULL;
  }
  bool fresh;
  return module_global_var(f, name, NULL, &fresh);
}

bool tvm_script__ir_module_declares(tvm_script_builder* b, const char* name) {
  tvm_script__frame* f = tvm_script__find_frame(b, TVM_SCRIPT_FRAME_MODULE);
  return f && tvm_ffi_map_get_str(f->global_vars, name) != NULL;
}

/* Merge map (an ffi.Map/Dict with string keys) into dict; later keys win. */
static int merge_attrs(void* dict, const void* map, const char* what) {
  if (!map || !tvm_ffi_instance_of(map, kTVMFFIMap)) {
    return tvm_ffi_raise("TypeError", "%s expects a dict, got %s", what,
                         map ? tvm_ffi_type_key(tvm_ffi_type_index(map)) : "None");
  }
  const TVMFFIAny *k, *v;
  for (int64_t pos = tvm_ffi_map_next(map, 0, &k, &v); pos >= 0;
       pos = tvm_ffi_map_next(map, pos, &k, &v)) {
    TVMFFIByteArray bytes;
    if (!tvm_ffi_any_as_bytes(k, &bytes)) {
      return tvm_ffi_raise("TypeError", "%s: keys must be strings, got %s", what,
                           tvm_ffi_any_type_name(k));
    }
    /* (a symbol of another type read as none: the function was silently not exported) */
    TVMFFIByteArray text;
    if (bytes.size == 13 && memcmp(bytes.data, "global_symbol", 13) == 0 &&
        !tvm_ffi_any_as_bytes(v, &text)) {
      return tvm_ffi_raise("TypeError", "%s: \"global_symbol\" must be a string, got %s", what,
                           tvm_ffi_any_type_name(v));
    }
    if (tvm_ffi_dict_set(dict, k, v) != 0) return -1;
  }
  return 0;
}

int tvm_script__merge_attrs(void* dict, const void* map, const char* what) {
  return merge_attrs(dict, map, what);
}

int tvm_script_ir_module_attrs(tvm_script_builder* b, const void* attrs) {
  tvm_script__frame* f =
      tvm_script__require_top(b, TVM_SCRIPT_FRAME_MODULE, "I.module_attrs", "I.ir_module");
  if (!f) return -1;
  if (tvm_tir_verify_closed(attrs) != 0) {
    return tvm_ffi_raise_context("I.module_attrs: a module binds no TIR variable");
  }
  return module_attrs(f) ? merge_attrs(f->attrs, attrs, "I.module_attrs") : -1;
}

int tvm_script_ir_module_global_infos(tvm_script_builder* b, const void* infos) {
  tvm_script__frame* f =
      tvm_script__require_top(b, TVM_SCRIPT_FRAME_MODULE, "I.module_global_infos", "I.ir_module");
  if (!f) return -1;
  if (!infos || !tvm_ffi_instance_of(infos, kTVMFFIMap)) {
    return tvm_ffi_raise("TypeError", "I.module_global_infos expects a dict");
  }
  if (tvm_tir_verify_closed(infos) != 0) {
    return tvm_ffi_raise_context("I.module_global_infos: a module binds no TIR variable");
  }
  if (!module_attrs(f)) return -1;
  TVMFFIAny key = tvm_ffi_string("global_infos"), val = tvm_ffi_any_obj(infos);
  int rc = tvm_ffi_dict_set(f->attrs, &key, &val);
  tvm_ffi_any_release(&key);
  return rc;
}

int tvm_script__deliver_func(tvm_script_builder* b, const char* name, void* name_str,
                             void* func) {
  tvm_script__frame* mod = b->depth ? &b->frames[b->depth - 1] : NULL;
  if (!mod) {
    tvm_ffi_release(b->result);
    tvm_ffi_retain(func);
    b->result = func;
    return 0;
  }
  if (mod->kind != TVM_SCRIPT_FRAME_MODULE) {
    return tvm_ffi_raise("ValueError",
                         "T.prim_func is only valid at the top level or in an "
                         "I.ir_module, not inside %s",
                         frame_spelling(mod->kind));
  }
  /* (The module frame is the top one: module_global_var's frame, which
   * tvm_script_ir_module_global_var finds by search.) */
  bool fresh;
  tvm_tir_global_var_obj* gv = module_global_var(mod, name, name_str, &fresh);
  if (!gv) return -1;
  TVMFFIAny key = tvm_ffi_any_obj(gv), val = tvm_ffi_any_obj(func);
  /* A GlobalVar made just now is no key of functions yet: only one named before (a call's
   * forward reference, or an earlier function of the same name) needs the duplicate test. */
  int rc = !fresh && tvm_ffi_map_get(mod->functions, &key)
               ? tvm_ffi_raise("ValueError", "the module defines `%s` twice", name)
               : tvm_ffi_dict_set(mod->functions, &key, &val);
  tvm_ffi_release(gv);
  return rc;
}

static int finish_module(tvm_script_builder* b, tvm_script__frame* f) {
  /* (flag: the module holds Relax functions.) */
  if (f->flag && tvm_script__relax_module_global_vars(f) != 0) return -1;
  const TVMFFIAny *k, *v;
  for (int64_t pos = tvm_ffi_map_next(f->global_vars, 0, &k, &v); pos >= 0;
       pos = tvm_ffi_map_next(f->global_vars, pos, &k, &v)) {
    if (!tvm_ffi_map_get(f->functions, v)) {
      return tvm_ffi_raise("ValueError", "the module refers to `%s`, which it does not define",
                           tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)v->v_obj)->name_hint));
    }
  }
  void* funcs = tvm_ffi_dict_to_map(f->functions);
  /* No attributes: NULL, which the constructor makes the empty Map. */
  bool no_attrs = !f->attrs || tvm_ffi_map_size(f->attrs) == 0;
  void* attrs = funcs && !no_attrs ? tvm_ffi_dict_to_map(f->attrs) : NULL;
  tvm_tir_ir_module_obj* mod =
      funcs && (no_attrs || attrs) ? tvm_tir_ir_module_new(funcs, attrs) : NULL;
  tvm_ffi_release(funcs);
  tvm_ffi_release(attrs);
  if (!mod) return -1;
  tvm_ffi_release(b->result);
  b->result = mod;
  return 0;
}

/* parse.c: TVMScript tokens -> Doc tree, a recursive-descent parser pulling tokens from the lexer
 * (tvm/script/parser.h lists the subset and how each construct maps onto docs).
 *
 * Every parse_* function returns a new reference (or pushes onto the scratch stack) and returns
 * NULL (-1) with one SyntaxError raised on failure, having released what it held. Expression
 * recursion is bounded by p->depth; statement recursion by the lexer's indentation limit.
 *
 * Tokens are pulled from the lexer into a window: at least LOOKAHEAD tokens from p->tok on are
 * buffered (or the end), so a token pointer is valid only until the next advance(). A lexing
 * error met while parsing ends the parse with that error alone.
 *
 * The docs and arrays of one parse live in an arena (doc_arena.h): allocation is a pointer bump
 * and a tree released as a whole is freed without walking it. */
#include <stdio.h>
#include <string.h>
#include <tvm/script/parser.h>

#include "doc_arena.h"
#include "lex_internal.h"
#include "parse_doc_internal.h"
#include "thread_exit.h"

#define TOK(x) TVM_SCRIPT_TOK_##x
#define KW(x) TVM_SCRIPT_TOK_KW_##x
#define OP(x) TVM_SCRIPT_OP_##x

typedef tvm_script_doc_obj doc;

/* Distinct names kept inline in the parser (a small file has ~20). */
enum { INLINE_NAMES = 128, FIRST_NAME_SLOTS = 64, INLINE_IMPORTS = 8, INLINE_TOKENS = 128, INLINE_STACK = 64 };

typedef struct {
  const char* src;
  size_t len;
  const char* filename;
  tvm_script__lexer lx;
  const tvm_script_token* tok; /* the current token; never moves past ENDMARKER */
  /* The token past which advance() refills: LOOKAHEAD before the end of the buffered tokens,
   * or their end once the lexer is done (then never: tok stops at ENDMARKER). One compare per
   * token instead of a token count and the lexer's state. */
  const tvm_script_token* refill_at;
  bool lex_failed;             /* a lexing error is raised; no other error may replace it */
  /* The last consumed token other than layout tokens (its span ends what since() spans): in
   * the window, or prev_save, where refill() copies it before dropping it (a pointer per
   * token instead of a copy of its span). */
  const tvm_script_token* prev;
  tvm_script_token prev_save;
  int depth;                   /* expression nesting */
  int block_depth;             /* statement nesting: 0 at module level */
  void** stack;                /* scratch stack of owned objects, used in nested fashion */
  size_t sp, cap;
  /* The header imports (alias -> module name), as offsets into the source: the map of them
   * is made only when the caller asks for it (no dict to fill and drop per parse). */
  tvm_script__import* imports;
  size_t n_imports, imports_cap;
  /* Interned identifier strings (names repeat a lot: T, A, vi, ...), so that each IdDoc and
   * AttrAccessDoc shares one ffi.String per distinct name: those the thread's table (see
   * thread_names) cannot hold (longer than THREAD_NAME_MAX, or that table is full; usually
   * none). The names are a dense array (in order of first use; released in one pass over the
   * n_names entries, not over the table); the table maps a hash to an entry (index + 1; 0:
   * empty), open addressing with linear probing, at most half full. Both start inline (below)
   * and move to the heap when they outgrow it; the inline table is sized and zeroed (only the
   * slots in use) when it gets its first name. An entry's text is the source of the name's
   * first use (alive during the parse): no String is read to compare. */
  struct name_ent {
    void* str;
    const char* text;
    uint64_t key[2]; /* name_key of the text */
    uint32_t size, hash;
  } * names;
  uint32_t* name_slots;
  size_t n_names, names_cap, slots_cap; /* capacities: entries; slots (a power of two) */
  tvm_script__doc_arena* arena; /* where docs and arrays are allocated (doc_arena.h) */
  /* The arena's empty array, shared by every empty array field. The references to it that the
   * parser hands out (empty_ref) and the links to it from docs (empty_link) are counted here
   * and added to its reference count and `refs` once, when the build ends (settle_empty):
   * each cost an atomic increment, a NULL test and a load, and a link a test of the deleter.
   * Until then its count carries EMPTY_BIAS more, so that the releases of docs that die while
   * the parser builds never take it to 0. */
  void* empty;
  uint64_t empty_refs, empty_links;
  /* The inline storage of names and name_slots (not zeroed with the rest: the struct ends
   * here). */
  struct name_ent names_inline[INLINE_NAMES];
  uint32_t slots_inline[2 * INLINE_NAMES];
  tvm_script__import imports_inline[INLINE_IMPORTS];
  void* stack_inline[INLINE_STACK]; /* the first scratch stack */
  tvm_script_token tokens_inline[INLINE_TOKENS]; /* the lexer's first buffer (own_data) */
} parser;


/* ---------------------------------------------------------------------------------------- */
/* Tokens, spans, errors                                                                     */
/* ---------------------------------------------------------------------------------------- */

static inline int kind(const parser* p) { return p->tok->kind; }

/* See parser.empty: at most ~2**30 uses before settle_empty (a use takes at least a doc's
 * 8 bytes of field, so a parse holding that many needs 8 GiB of docs), within the 32 bits of
 * the strong count. */
#define EMPTY_BIAS (UINT64_C(1) << 30)

/* A new reference to the empty array (counted in p->empty_refs). */
static inline void* empty_ref(parser* p) {
  ++p->empty_refs;
  return p->empty;
}

/* Adds the references and links to the empty array counted since it was made (see
 * parser.empty) to its count and `refs`, and drops the bias: the count is exact again before
 * anything outside the parser sees it. The bias kept it above the parser's own reference. */
static void settle_empty(parser* p) {
  __atomic_add_fetch(&((TVMFFIObject*)p->empty)->combined_ref_count,
                     p->empty_refs - EMPTY_BIAS, __ATOMIC_RELAXED);
  ((tvm_script__arena_block*)p->empty - 1)->refs += (uint32_t)p->empty_links;
}

/* The window is small so that the lexer's buffer stays small (see push() in lex.c): a refill
 * moves only the LOOKAHEAD tokens left, and happens every ~90 tokens. */
enum { LOOKAHEAD = 4, WINDOW = 96 };
static const tvm_script_token kEndOfInput = {TOK(ENDMARKER)};

static void set_refill_at(parser* p) {
  p->refill_at = p->lx.data + p->lx.count - (p->lx.done ? 0 : LOOKAHEAD);
}

/* Drop the consumed tokens and lex more. On a lexing error the parse sees the end of input. */
static __attribute__((noinline)) void refill(parser* p) {
  p->prev_save.span = p->prev->span;
  p->prev = &p->prev_save;
  tvm_script__lexer_drop(&p->lx, (size_t)(p->tok - p->lx.data));
  if (tvm_script__lexer_fill(&p->lx, WINDOW) != 0) {
    p->lex_failed = true;
    p->tok = &kEndOfInput;
    p->refill_at = p->tok + 1;
    return;
  }
  p->tok = p->lx.data;
  set_refill_at(p);
}

/* Inlined: it runs once per token, and is small once refill() is out of line. */
_Static_assert(TVM_SCRIPT_TOK_ENDMARKER == 0 && TVM_SCRIPT_TOK_NEWLINE == 1 &&
                   TVM_SCRIPT_TOK_INDENT == 2 && TVM_SCRIPT_TOK_DEDENT == 3,
               "the layout tokens and the end are kinds 0..3");
static inline void advance(parser* p) {
  int k = p->tok->kind;
  if (k > TOK(DEDENT)) {
    p->prev = p->tok;
  } else if (k == TOK(ENDMARKER)) {
    return;
  }
  ++p->tok;
  if (__builtin_expect(p->tok > p->refill_at, 0)) refill(p);
}

static bool accept(parser* p, int k) {
  if (kind(p) != k) return false;
  advance(p);
  return true;
}

static tvm_script_span join(tvm_script_span a, tvm_script_span b) {
  a.end_line = b.end_line;
  a.end_col = b.end_col;
  a.end_byte = b.end_byte;
  return a;
}
/* From `start` to the end of the last consumed token. */
static inline tvm_script_span since(const parser* p, tvm_script_span start) {
  return join(start, p->prev->span);
}
static inline doc* spanned(doc* d, tvm_script_span s) {
  if (d) d->span = s;
  return d;
}

/* ---- The parser's constructors: docs and arrays in the arena --------------------------- */
/* Each consumes its object arguments and returns NULL (having released them) when a required
 * one is NULL (its parse failed: an error is raised) or allocation fails. */

/* An ffi.Array of objs[0..n) (moved in; a NULL one fails the call). */
/* array_take's failure: releases objs[0..n) (the NULL ones are failed parses). Out of line, so
 * that array_take's frame holds no state for it. */
static __attribute__((noinline, cold)) void* array_fail(size_t n, void* const* objs) {
  for (size_t i = 0; i < n; ++i) tvm_ffi_release(objs[i]);
  return NULL;
}
static void* array_take(parser* p, size_t n, void* const* objs) {
  for (size_t i = 0; i < n; ++i) {
    if (__builtin_expect(!objs[i], 0)) return array_fail(n, objs);
  }
  if (n == 0) return empty_ref(p);
  tvm_script__arena_array* a = tvm_script__doc_arena_array(p->arena, n);
  if (__builtin_expect(!a, 0)) return array_fail(n, objs);
  /* Its callers (ARRAY) give docs of the parser's: of the arena. */
  for (size_t i = 0; i < n; ++i) tvm_script__doc_arena_set_own_item(a, i, objs[i]);
  return a;
}
#define ARRAY(p, ...) array_take((p), (size_t)TVM_SCRIPT_NARGS(__VA_ARGS__), (void*[]){__VA_ARGS__})

/* An ffi.Array of the n objects at objs[0], objs[stride], ... (moved in), all known not to be
 * NULL: the scratch stack's (push() refuses a NULL; the one push_opt of a NULL, parse_with's
 * absent target, pops its pairs itself). array_take's check of every item first, a loop of its
 * own, cost ~1% of the front end. On failure (no memory) releases them all. */
static void* array_of_stack(parser* p, size_t n, void* const* objs, size_t stride) {
  if (n == 0) return empty_ref(p);
  tvm_script__arena_array* a = tvm_script__doc_arena_array(p->arena, n);
  if (__builtin_expect(!a, 0)) {
    for (size_t i = 0; i < n; ++i) tvm_ffi_release(objs[i * stride]);
    return NULL;
  }
  for (size_t i = 0; i < n; ++i) tvm_script__doc_arena_set_item(a, i, objs[i * stride]);
  return a;
}

/* A doc of kind k (struct size `size`) whose reference fields at offs[i] get objs[i]; the first
 * n_req are required; a NULL array field (bit i of `arrays`) gets the empty array unless an
 * error is raised (the NULL is then a failed parse). */
/* Inlined into each constructor, whose constant arguments then unroll the loops into direct
 * stores (a generic call cost ~3x as much per doc). */
static inline __attribute__((always_inline)) doc* build(parser* p, tvm_script_doc_kind k,
                                                        size_t size, int n, int n_req,
                                                        unsigned arrays, void* const* objs,
                                                        const uint16_t* offs) {
  bool ok = true;
  for (int i = 0; i < n && ok; ++i) {
    if (!objs[i])
      ok = i >= n_req && !((arrays >> i & 1) && tvm_ffi_error_pending());
  }
  /* The fields below the first given one are zeroed (source_paths, the span, a statement's
   * comment, an OperationDoc's op); the given ones are all set below. */
  size_t zeroed = size;
  for (int i = 0; i < n; ++i) zeroed = offs[i] < zeroed ? offs[i] : zeroed;
  char* d = ok ? tvm_script__doc_arena_doc(p->arena, k, size, zeroed) : NULL;
  if (!d) {
    for (int i = 0; i < n; ++i)
      tvm_ffi_release(objs[i]);
    return NULL;
  }
  for (int i = 0; i < n; ++i) {
    void* o = objs[i];
    if (!o && (arrays >> i & 1)) { /* a reference and a link to the empty array (see empty) */
      ++p->empty_refs;
      ++p->empty_links;
      *(void**)(d + offs[i]) = p->empty;
      continue;
    }
    /* Every object given is the parser's, of the arena: a doc or an array (names, literals
     * and comments, from outside, go into their docs apart: new_id, new_attr, ...); the
     * required ones are not NULL here. */
    if (i < n_req && !o) __builtin_unreachable();
    *(void**)(d + offs[i]) = tvm_script__doc_arena_link_own(o);
  }
  return (doc*)d;
}
#define O(S, m) (uint16_t) offsetof(S, m)

/* value (owned) is moved in. */
static doc* new_literal(parser* p, TVMFFIAny value) {
  tvm_script_literal_doc_obj* d =
      tvm_script__doc_arena_doc(p->arena, TVM_SCRIPT_DOC_LiteralDoc, sizeof(*d),
                                offsetof(tvm_script_literal_doc_obj, value));
  if (!d) {
    tvm_ffi_any_release(&value);
    return NULL;
  }
  d->value = value;
  if (value.type_index >= kTVMFFIStaticObjectBegin) {
    tvm_script__doc_arena_note_outside(p->arena, &d->value, true);
  }
  return &d->doc;
}
/* name (an ffi.String) is moved in. */
static doc* new_id(parser* p, void* name) {
  tvm_script_id_doc_obj* d =
      name ? tvm_script__doc_arena_doc(p->arena, TVM_SCRIPT_DOC_IdDoc, sizeof(*d),
                                       offsetof(tvm_script_id_doc_obj, name))
           : NULL;
  if (!d) {
    tvm_ffi_release(name);
    return NULL;
  }
  d->name = name;
  tvm_script__doc_arena_note_outside(p->arena, &d->name, false);
  return &d->doc;
}
static doc* new_attr(parser* p, doc* value, void* name) {
  tvm_script_attr_doc_obj* d =
      value && name ? tvm_script__doc_arena_doc(p->arena, TVM_SCRIPT_DOC_AttrAccessDoc, sizeof(*d),
                                                offsetof(tvm_script_attr_doc_obj, value))
                    : NULL;
  if (!d) {
    tvm_ffi_release(value);
    tvm_ffi_release(name);
    return NULL;
  }
  d->value = tvm_script__doc_arena_link_own(value); /* a doc of the parser's */
  d->name = name;
  tvm_script__doc_arena_note_outside(p->arena, &d->name, false);
  return &d->doc;
}
static doc* new_operation(parser* p, int32_t op, void* operands) {
  typedef tvm_script_operation_doc_obj S;
  S* d = (S*)build(p, TVM_SCRIPT_DOC_OperationDoc, sizeof(S), 1, 1, 0, (void*[]){operands},
                   (const uint16_t[]){O(S, operands)});
  if (d) d->op = op;
  return (doc*)d;
}
static doc* new_index(parser* p, doc* value, void* indices) {
  typedef tvm_script_index_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_IndexDoc, sizeof(S), 2, 2, 0, (void*[]){value, indices},
               (const uint16_t[]){O(S, value), O(S, indices)});
}
static doc* new_call(parser* p, doc* callee, void* args, void* keys, void* values) {
  typedef tvm_script_call_doc_obj S;
  return build(
      p, TVM_SCRIPT_DOC_CallDoc, sizeof(S), 4, 2, 0xC, (void*[]){callee, args, keys, values},
      (const uint16_t[]){O(S, callee), O(S, args), O(S, kwargs_keys), O(S, kwargs_values)});
}
static doc* new_lambda(parser* p, void* args, doc* body) {
  typedef tvm_script_lambda_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_LambdaDoc, sizeof(S), 2, 2, 0, (void*[]){args, body},
               (const uint16_t[]){O(S, args), O(S, body)});
}
static doc* new_tuple(parser* p, void* elements) {
  typedef tvm_script_seq_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_TupleDoc, sizeof(S), 1, 0, 1, (void*[]){elements},
               (const uint16_t[]){O(S, elements)});
}
static doc* new_list(parser* p, void* elements) {
  typedef tvm_script_seq_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_ListDoc, sizeof(S), 1, 1, 0, (void*[]){elements},
               (const uint16_t[]){O(S, elements)});
}
static doc* new_dict(parser* p, void* keys, void* values) {
  typedef tvm_script_dict_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_DictDoc, sizeof(S), 2, 2, 0, (void*[]){keys, values},
               (const uint16_t[]){O(S, keys), O(S, values)});
}
static doc* new_slice(parser* p, doc* start, doc* stop, doc* step) {
  typedef tvm_script_slice_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_SliceDoc, sizeof(S), 3, 0, 0, (void*[]){start, stop, step},
               (const uint16_t[]){O(S, start), O(S, stop), O(S, step)});
}
static doc* new_starred(parser* p, doc* value) {
  typedef tvm_script_starred_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_StarredDoc, sizeof(S), 1, 1, 0, (void*[]){value},
               (const uint16_t[]){O(S, value)});
}
static doc* new_stmt_block(parser* p, void* stmts) {
  typedef tvm_script_stmt_block_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_StmtBlockDoc, sizeof(S), 1, 1, 0, (void*[]){stmts},
               (const uint16_t[]){O(S, stmts)});
}
static doc* new_assign(parser* p, doc* lhs, doc* rhs, doc* annotation) {
  typedef tvm_script_assign_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_AssignDoc, sizeof(S), 3, 1, 0, (void*[]){lhs, rhs, annotation},
               (const uint16_t[]){O(S, lhs), O(S, rhs), O(S, annotation)});
}
static doc* new_if(parser* p, doc* predicate, void* then_branch, void* else_branch) {
  typedef tvm_script_if_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_IfDoc, sizeof(S), 3, 2, 0x4,
               (void*[]){predicate, then_branch, else_branch},
               (const uint16_t[]){O(S, predicate), O(S, then_branch), O(S, else_branch)});
}
static doc* new_while(parser* p, doc* predicate, void* body) {
  typedef tvm_script_while_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_WhileDoc, sizeof(S), 2, 2, 0, (void*[]){predicate, body},
               (const uint16_t[]){O(S, predicate), O(S, body)});
}
static doc* new_for(parser* p, doc* lhs, doc* rhs, void* body) {
  typedef tvm_script_for_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_ForDoc, sizeof(S), 3, 3, 0, (void*[]){lhs, rhs, body},
               (const uint16_t[]){O(S, lhs), O(S, rhs), O(S, body)});
}
/* with rhs as lhs: body (lhs optional) */
static doc* new_scope(parser* p, doc* rhs, doc* lhs, void* body) {
  typedef tvm_script_scope_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_ScopeDoc, sizeof(S), 3, 1, 0x4, (void*[]){rhs, lhs, body},
               (const uint16_t[]){O(S, rhs), O(S, lhs), O(S, body)});
}
static doc* new_expr_stmt(parser* p, doc* expr) {
  typedef tvm_script_expr_stmt_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_ExprStmtDoc, sizeof(S), 1, 1, 0, (void*[]){expr},
               (const uint16_t[]){O(S, expr)});
}
static doc* new_assert(parser* p, doc* test, doc* msg) {
  typedef tvm_script_assert_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_AssertDoc, sizeof(S), 2, 1, 0, (void*[]){test, msg},
               (const uint16_t[]){O(S, test), O(S, msg)});
}
static doc* new_return(parser* p, doc* value) {
  typedef tvm_script_return_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_ReturnDoc, sizeof(S), 1, 0, 0, (void*[]){value},
               (const uint16_t[]){O(S, value)});
}
static doc* new_function(parser* p, doc* name, void* args, void* decorators, void* body,
                         doc* return_type) {
  typedef tvm_script_function_doc_obj S;
  return build(
      p, TVM_SCRIPT_DOC_FunctionDoc, sizeof(S), 5, 4, 0,
      (void*[]){name, args, decorators, body, return_type},
      (const uint16_t[]){O(S, name), O(S, args), O(S, decorators), O(S, body), O(S, return_type)});
}
static doc* new_class(parser* p, doc* name, void* decorators, void* body) {
  typedef tvm_script_class_doc_obj S;
  return build(p, TVM_SCRIPT_DOC_ClassDoc, sizeof(S), 3, 3, 0, (void*[]){name, decorators, body},
               (const uint16_t[]){O(S, name), O(S, decorators), O(S, body)});
}
static doc* new_doc_string(parser* p, const char* text, size_t n) {
  tvm_script_stmt_doc_obj* d =
      tvm_script__doc_arena_doc(p->arena, TVM_SCRIPT_DOC_DocStringDoc, sizeof(*d),
                                offsetof(tvm_script_stmt_doc_obj, comment));
  if (!d) return NULL;
  if (!(d->comment = tvm_ffi_str_obj(text, n))) {
    tvm_ffi_release(d);
    return NULL;
  }
  tvm_script__doc_arena_note_outside(p->arena, &d->comment, false);
  return &d->doc;
}

/* memcmp(a, b, n) == 0 without a call: names are short. */
static inline bool same_text(const char* a, const char* b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

/* Doubles the table of names (it would be more than half full), or moves the entries to the
 * heap when they fill their inline array. Returns false (and clears the error) when out of
 * memory: names are then no longer interned. */
static bool names_grow(parser* p) {
  if (p->n_names == p->names_cap) {
    size_t cap = p->names_cap * 2;
    struct name_ent* e = tvm_ffi_malloc(cap * sizeof(*e));
    if (!e) goto oom;
    memcpy(e, p->names, p->n_names * sizeof(*e));
    if (p->names != p->names_inline) tvm_ffi_free(p->names);
    p->names = e;
    p->names_cap = cap;
  }
  if (2 * (p->n_names + 1) > p->slots_cap) {
    size_t cap = p->slots_cap * 2;
    uint32_t* slots;
    if (cap <= 2 * INLINE_NAMES) { /* still inline: the larger prefix is zeroed */
      slots = p->slots_inline;
    } else if (!(slots = tvm_ffi_malloc(cap * sizeof(*slots)))) {
      goto oom;
    }
    memset(slots, 0, cap * sizeof(*slots));
    for (size_t i = 0; i < p->n_names; ++i) {
      size_t j = p->names[i].hash & (cap - 1);
      while (slots[j]) j = (j + 1) & (cap - 1);
      slots[j] = (uint32_t)(i + 1);
    }
    if (p->name_slots != p->slots_inline) tvm_ffi_free(p->name_slots);
    p->name_slots = slots;
    p->slots_cap = cap;
  }
  return true;
oom:
  tvm_ffi_error_clear(); /* go on without interning more */
  return false;
}

/* Two words that, with n, tell the text s[0..n) apart from any other of n bytes when n <= 16
 * (and its first and last 8 bytes when longer): whole-word loads of its ends, overlapping,
 * instead of a loop over the bytes (names are short: ~5 bytes). Reads only s[0..n). Up to 8
 * bytes, the first word is the bytes, zero padded, and the second 0: the key the lexer gives a
 * NAME token of that size (lex_internal.h), which intern_tok takes instead. */
static inline void name_key(const char* s, size_t n, uint64_t key[2]) {
  if (n > 8) {
    memcpy(&key[0], s, 8);
    memcpy(&key[1], s + n - 8, 8);
    return;
  }
  if (n >= 4) { /* the two halves overlap by 8 - n bytes, which the or keeps */
    uint32_t x, y;
    memcpy(&x, s, 4);
    memcpy(&y, s + n - 4, 4);
    key[0] = x | (uint64_t)y << (8 * (n - 4));
  } else {
    key[0] = n ? (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << (8 * (n / 2)) |
                     (uint64_t)(unsigned char)s[n - 1] << (8 * (n - 1))
               : 0;
  }
  key[1] = 0;
}

/* The thread's identifier Strings, kept across parses (like CPython's interned identifiers):
 * a parse that meets a name an earlier parse on this thread met takes a reference to the same
 * String instead of allocating, copying and freeing one (~19 names per small file). Only the
 * String is shared, never a binding (the tables map text to String, nothing else). Strings are
 * immutable, so a shared one can be told from a fresh one only by its address. Bounded
 * (THREAD_NAMES names of at most THREAD_NAME_MAX bytes; when full nothing is added until the
 * next parse starts, which empties it: thread_names_flush), the text kept inline for the
 * compare, and released at thread exit (thread_exit.h; the main thread's table stays reachable
 * from its TLS). */
enum { THREAD_NAMES = 1024, THREAD_NAME_MAX = 32 };
typedef struct {
  struct thread_name {
    void* str;       /* a reference held by the table */
    uint64_t key[2]; /* name_key of the text */
    uint32_t size, hash;
    char text[THREAD_NAME_MAX];
  } names[THREAD_NAMES];
  uint16_t slots[2 * THREAD_NAMES]; /* index + 1; 0: empty (at most half full) */
  size_t n;
} thread_names;
static __thread thread_names* t_names;
static __thread bool t_names_failed; /* no table on this thread (out of memory) */

static void thread_names_free(void* arg) {
  thread_names* t = arg;
  t_names = NULL;
  for (size_t i = 0; i < t->n; ++i) tvm_ffi_release(t->names[i].str);
  tvm_ffi_free(t);
}

static __attribute__((noinline)) thread_names* thread_names_new(void) {
  if (t_names_failed) return NULL;
  thread_names* t = NULL;
  if (!(t = tvm_ffi_malloc(sizeof(*t)))) {
    tvm_ffi_error_clear();
  } else if (!tvm_script__at_thread_exit(thread_names_free, t)) {
    tvm_ffi_free(t);
    t = NULL;
  } else {
    memset(t->slots, 0, sizeof(t->slots));
    t->n = 0;
  }
  t_names_failed = !t;
  return t_names = t;
}

/* A full table takes no new names, so a thread that once met more than THREAD_NAMES distinct
 * names (a large generated module) would intern every new name of its later programs in each
 * parse's own table, allocating its String every time. A parse that starts with the table full
 * empties it first (the Strings stay alive where they are held). Never during a parse: each
 * distinct name of a parse is one String, and doc and IR code may rely on that. */
static __attribute__((noinline)) void thread_names_flush(thread_names* t) {
  for (size_t i = 0; i < t->n; ++i) tvm_ffi_release(t->names[i].str);
  memset(t->slots, 0, sizeof(t->slots));
  t->n = 0;
}

/* Adds the String of s[0..n) (a new one; key and hash h as intern() makes them) to the
 * thread's table t, at its free slot j, and returns a new reference to it (NULL + error). */
static __attribute__((noinline)) void* thread_name_add(thread_names* t, const char* s, size_t n,
                                                       const uint64_t key[2], uint32_t h,
                                                       size_t j) {
  void* str = tvm_ffi_str_obj(s, n);
  if (!str) return NULL;
  struct thread_name* ent = &t->names[t->n++];
  ent->str = str;
  ent->key[0] = key[0];
  ent->key[1] = key[1];
  ent->size = (uint32_t)n;
  ent->hash = h;
  memcpy(ent->text, s, n);
  t->slots[j] = (uint16_t)t->n;
  tvm_ffi_retain(str);
  return str;
}

/* intern() for a name the thread's table does not hold and cannot take (too long, the table
 * full or not made yet): the parse's own table (above), so that the parse still shares one
 * String per distinct name. */
static __attribute__((noinline)) void* intern_slow(parser* p, const char* s, size_t n,
                                                   const uint64_t key[2], uint32_t h) {
  if (!t_names && n <= THREAD_NAME_MAX && thread_names_new()) {
    /* The first name of the thread: its (empty) table takes it. */
    return thread_name_add(t_names, s, n, key, h, h & (2 * THREAD_NAMES - 1));
  }
  if (n > UINT32_MAX) return tvm_ffi_str_obj(s, n);
  if (p->slots_cap == 0) {
    /* The parse's table is made on its first name: ~4 slots per 64 bytes of text (at most
     * half full with about one distinct name per 32 bytes), zeroed up to its size only. */
    for (p->slots_cap = FIRST_NAME_SLOTS;
         p->slots_cap < p->len / 16 && p->slots_cap < 2 * INLINE_NAMES;) {
      p->slots_cap *= 2;
    }
    memset(p->slots_inline, 0, p->slots_cap * sizeof(p->slots_inline[0]));
  }
  size_t mask = p->slots_cap - 1, j = h & mask;
  for (uint32_t e; (e = p->name_slots[j]) != 0; j = (j + 1) & mask) {
    struct name_ent* ent = &p->names[e - 1];
    if (ent->key[0] == key[0] && ent->key[1] == key[1] && ent->size == n &&
        (n <= 16 || same_text(ent->text + 8, s + 8, n - 16))) {
      tvm_ffi_retain(ent->str);
      return ent->str;
    }
  }
  /* A new name: room for it first (the table may move), then its slot. */
  if (2 * (p->n_names + 1) > p->slots_cap || p->n_names == p->names_cap) {
    if (!names_grow(p)) return tvm_ffi_str_obj(s, n);
    mask = p->slots_cap - 1;
    for (j = h & mask; p->name_slots[j]; j = (j + 1) & mask) {
    }
  }
  void* str = tvm_ffi_str_obj(s, n);
  if (!str) return NULL;
  struct name_ent* ent = &p->names[p->n_names++];
  ent->str = str;
  ent->text = s;
  ent->key[0] = key[0];
  ent->key[1] = key[1];
  ent->size = (uint32_t)n;
  ent->hash = h;
  p->name_slots[j] = (uint32_t)p->n_names;
  tvm_ffi_retain(str);
  return str;
}

/* A new reference to the ffi.String of s[0..n), shared through the thread's table (or, for a
 * name it cannot take, the parse's). One probe of one table per name: a parse's names are
 * looked up where they are kept across parses, without a per-parse copy of the table. */
static inline __attribute__((always_inline)) void* intern_keyed(parser* p, const char* s,
                                                               size_t n, const uint64_t key[2],
                                                               uint32_t h) {
  thread_names* t = t_names;
  if (__builtin_expect(t != NULL, 1) && n <= THREAD_NAME_MAX) {
    size_t mask = 2 * THREAD_NAMES - 1, j = h & mask;
    for (uint32_t e; (e = t->slots[j]) != 0; j = (j + 1) & mask) {
      struct thread_name* ent = &t->names[e - 1];
      /* Up to 8 bytes the key is the name's bytes and 0 (name_key), and a name has no NUL
       * byte, so equal keys are equal names (a longer name's second word is not 0): the size
       * is compared for longer names only. */
      if (ent->key[0] == key[0] && ent->key[1] == key[1] &&
          (n <= 8 || (ent->size == n && (n <= 16 || same_text(ent->text + 8, s + 8, n - 16))))) {
        /* Never NULL (the table holds a reference): the compiler then drops tvm_ffi_retain's
         * test, the reload after the increment and its callers' tests of the result. */
        void* str = ent->str;
        if (!str) __builtin_unreachable();
        tvm_ffi_retain(str);
        return str;
      }
    }
    if (t->n < THREAD_NAMES) return thread_name_add(t, s, n, key, h, j);
  }
  return intern_slow(p, s, n, key, h);
}
static inline void* intern(parser* p, const char* s, size_t n) {
  uint64_t key[2];
  name_key(s, n, key);
  return intern_keyed(p, s, n, key, tvm_script__name_hash(key[0], key[1], n));
}
/* intern() of the name of NAME token t, by the key the lexer gave it when it is that short. */
static inline void* intern_tok(parser* p, const tvm_script_token* t) {
  const char* s = p->src + t->span.start_byte;
  size_t n = (size_t)(t->span.end_byte - t->span.start_byte);
  if (n > TVM_SCRIPT__NAME_KEY_MAX) return intern(p, s, n);
  const uint64_t key[2] = {(uint64_t)t->v.i, 0};
  return intern_keyed(p, s, n, key, t->str_off);
}

/* The IdDoc of NAME token t, spanning it. */
static doc* make_id(parser* p, const tvm_script_token* t) {
  return spanned(new_id(p, intern_tok(p, t)), t->span);
}

static inline const char* tok_text(const parser* p, const tvm_script_token* t) {
  return p->src + t->span.start_byte;
}
static inline size_t tok_size(const tvm_script_token* t) {
  return (size_t)(t->span.end_byte - t->span.start_byte);
}

static void* error_at(parser* p, tvm_script_span s, const char* fmt, ...) TVM_FFI_PRINTF(3, 4);
static void* error_at(parser* p, tvm_script_span s, const char* fmt, ...) {
  if (p->lex_failed) return NULL; /* the lexer's error stands */
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  tvm_script_diag_raise("SyntaxError", p->src, p->len, p->filename, s, "%s", msg);
  return NULL;
}

/* "identifier 'x'", "number '1'", "string literal", "'+'", "end of line", ... */
static void describe(const parser* p, const tvm_script_token* t, char* buf, size_t n) {
  int k = t->kind;
  int size = (int)(tok_size(t) > 40 ? 40 : tok_size(t));
  if (k == TOK(NAME)) {
    snprintf(buf, n, "identifier '%.*s'", size, tok_text(p, t));
  } else if (k == TOK(INT) || k == TOK(FLOAT)) {
    snprintf(buf, n, "number '%.*s'", size, tok_text(p, t));
  } else if (k == TOK(STRING)) {
    snprintf(buf, n, "string literal");
  } else {
    snprintf(buf, n, "%s", tvm_script_token_kind_name(k));
  }
}

static void* expected(parser* p, const char* what) {
  char found[96];
  describe(p, p->tok, found, sizeof(found));
  return error_at(p, p->tok->span, "expected %s, found %s", what, found);
}

static bool expect(parser* p, int k, const char* what) {
  if (accept(p, k)) return true;
  expected(p, what);
  return false;
}

/* `what` names the construct with its verb: "'try' statements are". */
static void* unsupported(parser* p, tvm_script_span s, const char* what) {
  return error_at(p, s, "%s not supported in TVMScript", what);
}

static bool enter(parser* p) {
  if (p->depth >= TVM_SCRIPT_MAX_NESTING) {
    error_at(p, p->tok->span, "expression nested too deeply (the limit is %d levels)",
             TVM_SCRIPT_MAX_NESTING);
    return false;
  }
  ++p->depth;
  return true;
}

/* ---------------------------------------------------------------------------------------- */
/* The scratch stack                                                                         */
/* ---------------------------------------------------------------------------------------- */

/* Push an owned object (NULL allowed: an absent optional part). */
/* A stack twice as large, on the heap (the first is the parser's stack_inline). */
static __attribute__((noinline)) bool grow_stack(parser* p) {
  void** s = tvm_ffi_malloc(2 * p->cap * sizeof(void*));
  if (!s) return false;
  memcpy(s, p->stack, p->sp * sizeof(void*));
  if (p->stack != p->stack_inline) tvm_ffi_free(p->stack);
  p->stack = s;
  p->cap *= 2;
  return true;
}

static int push_opt(parser* p, void* obj) {
  if (p->sp == p->cap && !grow_stack(p)) {
    tvm_ffi_release(obj);
    return -1;
  }
  p->stack[p->sp++] = obj;
  return 0;
}
/* Push the result of a parse (NULL: it failed). */
static int push(parser* p, void* obj) { return obj ? push_opt(p, obj) : -1; }

static void drop(parser* p, size_t base) {
  while (p->sp > base) tvm_ffi_release(p->stack[--p->sp]);
}

/* An ffi.Array of the objects pushed since base (popped), docs of the arena all: the one other
 * object the parser pushes, a keyword argument's name, goes to take_pairs. */
static void* take_array(parser* p, size_t base) {
  size_t n = p->sp - base;
  void* const* objs = p->stack + base;
  p->sp = base;
  if (n == 0) return empty_ref(p);
  tvm_script__arena_array* a = tvm_script__doc_arena_array(p->arena, n);
  if (__builtin_expect(!a, 0)) {
    for (size_t i = 0; i < n; ++i) tvm_ffi_release(objs[i]);
    return NULL;
  }
  for (size_t i = 0; i < n; ++i) tvm_script__doc_arena_set_own_item(a, i, objs[i]);
  return a;
}

/* The objects pushed since base alternate a0, b0, a1, b1, ...: pop them into two arrays. */
static int take_pairs(parser* p, size_t base, void** out_a, void** out_b) {
  size_t n = (p->sp - base) / 2;
  p->sp = base;
  /* Straight from the stack (no copy into a scratch array of each half); the b's are released
   * here if the a's array cannot be made (array_of_stack released the a's). */
  void* const* s = p->stack + base;
  *out_a = array_of_stack(p, n, s, 2);
  if (!*out_a) {
    for (size_t i = 0; i < n; ++i) tvm_ffi_release(s[2 * i + 1]);
    *out_b = NULL;
    return -1;
  }
  *out_b = array_of_stack(p, n, s + 1, 2);
  if (!*out_b) {
    tvm_ffi_release(*out_a);
    *out_a = NULL;
    return -1;
  }
  return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Expressions                                                                               */
/* ---------------------------------------------------------------------------------------- */

static doc* parse_test(parser* p);
static doc* parse_binary(parser* p, int min_prec);

static bool starts_expr(int k) {
  switch (k) {
    case TOK(NAME): case TOK(INT): case TOK(FLOAT): case TOK(STRING): case TOK(LPAREN):
    case TOK(LBRACKET): case TOK(LBRACE): case TOK(MINUS): case TOK(PLUS): case TOK(TILDE):
    case TOK(ELLIPSIS): case KW(NOT): case KW(LAMBDA): case KW(TRUE): case KW(FALSE):
    case KW(NONE): case KW(AWAIT): case KW(YIELD):
      return true;
    default:
      return false;
  }
}

static doc* binop(parser* p, int op, doc* lhs, doc* rhs, tvm_script_span s) {
  if (!rhs) {
    tvm_ffi_release(lhs);
    return NULL;
  }
  return spanned(new_operation(p, op, ARRAY(p, lhs, rhs)), s);
}

/* The decoded value of a STRING token: a view of the source or a copy in the lexer's buffer
 * (see `views` in lex_internal.h). */
static inline const char* tok_str(const parser* p, const tvm_script_token* t) {
  return (t->v.i ? p->src : p->lx.strings.data) + t->str_off;
}

static doc* parse_string(parser* p) {
  const tvm_script_token* first = p->tok;
  tvm_script_span start = first->span;
  TVMFFIAny value;
  if (first[1].kind != TOK(STRING)) {
    value = tvm_ffi_string_n(tok_str(p, first), first->str_len);
    advance(p);
  } else {
    tvm_ffi_strbuf b = {0};
    while (kind(p) == TOK(STRING)) {
      tvm_ffi_strbuf_append(&b, tok_str(p, p->tok), p->tok->str_len);
      advance(p);
    }
    value = b.failed ? tvm_ffi_any_none() : tvm_ffi_string_n(b.data ? b.data : "", b.size);
    tvm_ffi_strbuf_free(&b);
  }
  if (value.type_index == kTVMFFINone) {
    tvm_ffi_raise("MemoryError", "out of memory building a string literal");
    return NULL;
  }
  return spanned(new_literal(p, value), since(p, start));
}

/* After the first element of a bracketed display: reject comprehensions and walrus. */
static bool check_display(parser* p) {
  if (kind(p) == KW(FOR) || kind(p) == KW(ASYNC)) {
    unsupported(p, p->tok->span, "comprehensions and generator expressions are");
    return false;
  }
  if (kind(p) == TOK(WALRUS)) {
    unsupported(p, p->tok->span, "assignment expressions (':=') are");
    return false;
  }
  return true;
}

/* ( ... ): a parenthesised expression (its own span) or a tuple (span with parentheses). */
static doc* parse_paren(parser* p) {
  tvm_script_span start = p->tok->span;
  advance(p);
  if (accept(p, TOK(RPAREN))) {
    return spanned(new_tuple(p, NULL), since(p, start));
  }
  doc* first = parse_test(p);
  if (!first) return NULL;
  if (!check_display(p)) {
    tvm_ffi_release(first);
    return NULL;
  }
  if (accept(p, TOK(RPAREN))) return first;
  if (kind(p) != TOK(COMMA)) {
    tvm_ffi_release(first);
    return expected(p, "',' or ')'");
  }
  size_t base = p->sp;
  if (push(p, first) != 0) return NULL;
  while (accept(p, TOK(COMMA)) && kind(p) != TOK(RPAREN)) {
    if (push(p, parse_test(p)) != 0) goto fail;
  }
  if (!expect(p, TOK(RPAREN), "',' or ')'")) goto fail;
  return spanned(new_tuple(p, take_array(p, base)), since(p, start));
fail:
  drop(p, base);
  return NULL;
}

static doc* parse_list(parser* p) {
  tvm_script_span start = p->tok->span;
  advance(p);
  size_t base = p->sp;
  while (kind(p) != TOK(RBRACKET)) {
    if (push(p, parse_test(p)) != 0) goto fail;
    if (p->sp == base + 1 && !check_display(p)) goto fail;
    if (!accept(p, TOK(COMMA))) break;
  }
  if (!expect(p, TOK(RBRACKET), "',' or ']'")) goto fail;
  return spanned(new_list(p, take_array(p, base)), since(p, start));
fail:
  drop(p, base);
  return NULL;
}

static doc* parse_dict(parser* p) {
  tvm_script_span start = p->tok->span;
  advance(p);
  size_t base = p->sp;
  while (kind(p) != TOK(RBRACE)) {
    if (kind(p) == TOK(POW)) {
      unsupported(p, p->tok->span, "'**' unpacking in dict displays are");
      goto fail;
    }
    if (push(p, parse_test(p)) != 0) goto fail;
    if (kind(p) != TOK(COLON)) {
      if (p->sp == base + 1 && (kind(p) == TOK(COMMA) || kind(p) == TOK(RBRACE))) {
        unsupported(p, since(p, start), "set displays are");
      } else if (p->sp == base + 1 && !check_display(p)) {
        /* raised by check_display */
      } else {
        expected(p, "':'");
      }
      goto fail;
    }
    advance(p);
    if (push(p, parse_test(p)) != 0) goto fail;
    if (p->sp == base + 2 && !check_display(p)) goto fail;
    if (!accept(p, TOK(COMMA))) break;
  }
  if (!expect(p, TOK(RBRACE), "',' or '}'")) goto fail;
  void *keys, *values;
  if (take_pairs(p, base, &keys, &values) != 0) return NULL;
  return spanned(new_dict(p, keys, values), since(p, start));
fail:
  drop(p, base);
  return NULL;
}

/* A NAME atom (the current token): its IdDoc. A function of its own, which parse_primary and
 * parse_test call for the most common atom, without parse_atom's frame (sized for all its
 * cases) and switch. */
static __attribute__((noinline)) doc* parse_name_atom(parser* p) {
  const tvm_script_token* t = p->tok;
  doc* d = make_id(p, t); /* make_id sets the span */
  advance(p);
  return d;
}

static doc* parse_atom(parser* p) {
  const tvm_script_token* t = p->tok;
  tvm_script_span span = t->span;
  doc* d;
  switch (t->kind) {
    case TOK(NAME):
      return parse_name_atom(p);
    case TOK(INT):
      d = new_literal(p, tvm_ffi_any_int(t->v.i));
      break;
    case TOK(FLOAT):
      d = new_literal(p, tvm_ffi_any_float(t->v.f));
      break;
    case KW(TRUE):
    case KW(FALSE):
      d = new_literal(p, tvm_ffi_any_bool(t->kind == KW(TRUE)));
      break;
    case KW(NONE):
      d = new_literal(p, tvm_ffi_any_none());
      break;
    case TOK(STRING):
      return parse_string(p);
    case TOK(LPAREN):
      return parse_paren(p);
    case TOK(LBRACKET):
      return parse_list(p);
    case TOK(LBRACE):
      return parse_dict(p);
    case TOK(ELLIPSIS):
      return unsupported(p, t->span, "'...' (Ellipsis) is");
    case KW(AWAIT):
      return unsupported(p, t->span, "'await' expressions are");
    case KW(YIELD):
      return unsupported(p, t->span, "'yield' expressions are");
    default:
      return expected(p, "an expression");
  }
  advance(p);
  return spanned(d, span);
}

/* callee( args ): positional arguments, then keyword arguments. */
static doc* parse_call(parser* p, doc* callee, tvm_script_span start) {
  advance(p);
  size_t base = p->sp, kw_base = 0;
  bool has_kw = false;
  while (kind(p) != TOK(RPAREN)) {
    if (kind(p) == TOK(POW)) {
      unsupported(p, p->tok->span, "double-starred arguments ('**kwargs') are");
      goto fail;
    }
    if (kind(p) == TOK(STAR)) {
      /* *xs is positional even after keywords (as in Python); the CallDoc keeps it in args. */
      tvm_script_span star = p->tok->span;
      advance(p);
      doc* value = parse_test(p);
      if (!value) goto fail;
      doc* arg = spanned(new_starred(p, value), since(p, star));
      if (push(p, arg) != 0) goto fail;
      if (has_kw) { /* move it below the keyword pairs */
        size_t n_kw = p->sp - 1 - kw_base;
        memmove(&p->stack[kw_base + 1], &p->stack[kw_base], n_kw * sizeof(void*));
        p->stack[kw_base++] = arg;
      }
    } else if (kind(p) == TOK(NAME) && p->tok[1].kind == TOK(ASSIGN)) {
      if (!has_kw) kw_base = p->sp;
      has_kw = true;
      if (push(p, intern_tok(p, p->tok)) != 0) goto fail;
      advance(p);
      advance(p);
      if (push(p, parse_test(p)) != 0) goto fail;
    } else {
      tvm_script_span arg_start = p->tok->span;
      doc* arg = parse_test(p);
      if (!arg) goto fail;
      if (has_kw) {
        tvm_ffi_release(arg);
        error_at(p, since(p, arg_start), "positional argument follows keyword argument");
        goto fail;
      }
      if (push(p, arg) != 0) goto fail;
      if (p->sp == base + 1 && !check_display(p)) goto fail;
    }
    if (!accept(p, TOK(COMMA))) break;
  }
  if (!expect(p, TOK(RPAREN), "',' or ')'")) goto fail;
  void *keys, *values;
  if (has_kw) {
    if (take_pairs(p, kw_base, &keys, &values) != 0) goto fail;
  } else { /* the empty arrays given, not NULL (which new_call tells from a failure) */
    keys = empty_ref(p);
    values = empty_ref(p);
  }
  void* args = take_array(p, base);
  return spanned(new_call(p, callee, args, keys, values), since(p, start));
fail:
  drop(p, base);
  tvm_ffi_release(callee);
  return NULL;
}

/* One index: an expression or a slice [lower]:[upper][:[step]]. */
static doc* parse_subscript(parser* p) {
  tvm_script_span start = p->tok->span;
  doc *lower = NULL, *upper = NULL, *step = NULL;
  if (kind(p) != TOK(COLON)) {
    lower = parse_test(p);
    if (!lower || kind(p) != TOK(COLON)) return lower;
  }
  advance(p);
  int k = kind(p);
  if (k != TOK(COLON) && k != TOK(COMMA) && k != TOK(RBRACKET) && !(upper = parse_test(p))) {
    goto fail;
  }
  if (accept(p, TOK(COLON))) {
    k = kind(p);
    if (k != TOK(COMMA) && k != TOK(RBRACKET) && !(step = parse_test(p))) goto fail;
  }
  return spanned(new_slice(p, lower, upper, step), since(p, start));
fail:
  tvm_ffi_release(lower);
  tvm_ffi_release(upper);
  return NULL;
}

static doc* parse_index(parser* p, doc* value, tvm_script_span start) {
  advance(p);
  size_t base = p->sp;
  if (kind(p) == TOK(RBRACKET)) {
    expected(p, "an index");
    goto fail;
  }
  bool trailing_comma = false;
  while (kind(p) != TOK(RBRACKET)) {
    if (push(p, parse_subscript(p)) != 0) goto fail;
    trailing_comma = accept(p, TOK(COMMA));
    if (!trailing_comma) break;
  }
  tvm_script_span comma = p->prev->span;
  if (!expect(p, TOK(RBRACKET), "',' or ']'")) goto fail;
  /* a[i,] indexes with the tuple (i,), spanning "i,". */
  if (trailing_comma && p->sp == base + 1 &&
      tvm_script_doc_kind_of(p->stack[base]) != TVM_SCRIPT_DOC_SliceDoc) {
    tvm_script_span s = join(((doc*)p->stack[base])->span, comma);
    if (push(p, spanned(new_tuple(p, take_array(p, base)), s)) != 0) goto fail;
  }
  return spanned(new_index(p, value, take_array(p, base)), since(p, start));
fail:
  drop(p, base);
  tvm_ffi_release(value);
  return NULL;
}

/* atom followed by .name, (args) and [indices]. */
static doc* parse_primary(parser* p) {
  tvm_script_span start = p->tok->span;
  doc* d = kind(p) == TOK(NAME) ? parse_name_atom(p) : parse_atom(p);
  while (d) {
    if (kind(p) == TOK(DOT)) {
      advance(p);
      if (kind(p) != TOK(NAME)) {
        tvm_ffi_release(d);
        return expected(p, "an attribute name");
      }
      void* name = intern_tok(p, p->tok); /* before advance() moves the token */
      advance(p);
      d = spanned(new_attr(p, d, name), since(p, start));
    } else if (kind(p) == TOK(LPAREN)) {
      d = parse_call(p, d, start);
    } else if (kind(p) == TOK(LBRACKET)) {
      d = parse_index(p, d, start);
    } else {
      break;
    }
  }
  return d;
}

static doc* parse_factor(parser* p);

/* The levels below each parse their first operand through the next level, then take their
 * operators in a *_rest function given that operand (NULL: its parse failed). parse_test
 * parses a primary directly and runs the *_rest functions in turn, instead of descending
 * through every level for every operand. */

/* primary ['**' factor], given the primary. */
static doc* power_rest(parser* p, tvm_script_span start, doc* base) {
  if (!base || kind(p) != TOK(POW)) return base;
  if (!enter(p)) { /* a ** b ** c ... recurses through the exponent */
    tvm_ffi_release(base);
    return NULL;
  }
  advance(p);
  doc* exponent = parse_factor(p);
  --p->depth;
  return binop(p, OP(Pow), base, exponent, since(p, start));
}

static doc* parse_power(parser* p) {
  tvm_script_span start = p->tok->span;
  return power_rest(p, start, parse_primary(p));
}

/* ('+' | '-' | '~') factor | power */
static doc* parse_factor(parser* p) {
  int k = kind(p);
  if (k != TOK(PLUS) && k != TOK(MINUS) && k != TOK(TILDE)) return parse_power(p);
  if (!enter(p)) return NULL;
  tvm_script_span start = p->tok->span;
  advance(p);
  doc* operand = parse_factor(p);
  --p->depth;
  if (!operand) return NULL;
  if (k == TOK(PLUS)) return spanned(operand, since(p, start));
  int op = k == TOK(MINUS) ? OP(USub) : OP(Invert);
  return spanned(new_operation(p, op, ARRAY(p, operand)),
                 since(p, start));
}

/* Binary operators by token: precedence (1 loosest .. 6 tightest, 0 = not binary) and the
 * OperationDoc kind. All are left associative ('**' is handled by parse_power). */
static const uint8_t kBinaryPrec[TVM_SCRIPT_TOK_COUNT_] = {
    [TOK(PIPE)] = 1,    [TOK(CARET)] = 2, [TOK(AMP)] = 3,      [TOK(LSHIFT)] = 4,
    [TOK(RSHIFT)] = 4,  [TOK(PLUS)] = 5,  [TOK(MINUS)] = 5,    [TOK(STAR)] = 6,
    [TOK(SLASH)] = 6,   [TOK(FLOORDIV)] = 6, [TOK(PERCENT)] = 6, [TOK(AT)] = 6,
};
static const uint8_t kBinaryOp[TVM_SCRIPT_TOK_COUNT_] = {
    [TOK(PIPE)] = OP(BitOr),  [TOK(CARET)] = OP(BitXor),   [TOK(AMP)] = OP(BitAnd),
    [TOK(LSHIFT)] = OP(LShift), [TOK(RSHIFT)] = OP(RShift), [TOK(PLUS)] = OP(Add),
    [TOK(MINUS)] = OP(Sub),   [TOK(STAR)] = OP(Mult),      [TOK(SLASH)] = OP(Div),
    [TOK(FLOORDIV)] = OP(FloorDiv), [TOK(PERCENT)] = OP(Mod),
};

/* Precedence climbing over the binary operators binding at least as tight as min_prec; the
 * recursion is at most 6 deep per expression level. */
static doc* binary_rest(parser* p, int min_prec, tvm_script_span start, doc* lhs) {
  while (lhs) {
    int k = kind(p);
    int prec = kBinaryPrec[k];
    if (prec == 0 || prec < min_prec) break;
    if (k == TOK(AT)) {
      tvm_ffi_release(lhs);
      return unsupported(p, p->tok->span, "the '@' (matrix multiplication) operator is");
    }
    advance(p);
    doc* rhs = parse_binary(p, prec + 1);
    lhs = binop(p, kBinaryOp[k], lhs, rhs, since(p, start));
  }
  return lhs;
}

static doc* parse_binary(parser* p, int min_prec) {
  tvm_script_span start = p->tok->span;
  return binary_rest(p, min_prec, start, parse_factor(p));
}

/* The operand of comparisons and of `for`/`with` targets: the bitwise-or level. */
static inline doc* parse_bitor(parser* p) { return parse_binary(p, 1); }

static int comparison_op(parser* p) {
  switch (kind(p)) {
    case TOK(LT): return OP(Lt);
    case TOK(GT): return OP(Gt);
    case TOK(LE): return OP(LtE);
    case TOK(GE): return OP(GtE);
    case TOK(EQ): return OP(Eq);
    case TOK(NE): return OP(NotEq);
    case KW(IN): unsupported(p, p->tok->span, "'in' comparisons are"); return -1;
    case KW(IS): unsupported(p, p->tok->span, "'is' comparisons are"); return -1;
    case KW(NOT):
      unsupported(p, join(p->tok->span, p->tok[1].span), "'not in' comparisons are");
      return -1;
    default: return 0;
  }
}

/* a < b < c is (a < b) and (b < c), b shared. */
static doc* comparison_rest(parser* p, tvm_script_span start, doc* lhs) {
  doc* result = NULL;
  while (lhs) {
    int op = comparison_op(p);
    if (op <= 0) {
      if (op == 0) break;
      tvm_ffi_release(lhs);
      tvm_ffi_release(result);
      return NULL;
    }
    advance(p);
    doc* rhs = parse_bitor(p);
    if (!rhs) {
      tvm_ffi_release(lhs);
      tvm_ffi_release(result);
      return NULL;
    }
    tvm_ffi_retain(rhs); /* one for the pair, one as the next left operand */
    doc* pair = binop(p, op, lhs, rhs, join(lhs->span, rhs->span));
    result = result ? binop(p, OP(And), result, pair, since(p, start)) : pair;
    lhs = rhs;
    if (!result) {
      tvm_ffi_release(lhs);
      return NULL;
    }
  }
  if (!result) return lhs;
  tvm_ffi_release(lhs);
  return result;
}

static doc* parse_comparison(parser* p) {
  tvm_script_span start = p->tok->span;
  return comparison_rest(p, start, parse_bitor(p));
}

static doc* parse_not(parser* p) {
  if (kind(p) != KW(NOT)) return parse_comparison(p);
  if (!enter(p)) return NULL;
  tvm_script_span start = p->tok->span;
  advance(p);
  doc* operand = parse_not(p);
  --p->depth;
  if (!operand) return NULL;
  return spanned(new_operation(p, OP(Not), ARRAY(p, operand)),
                 since(p, start));
}

static doc* and_rest(parser* p, tvm_script_span start, doc* lhs) {
  while (lhs && accept(p, KW(AND))) {
    doc* rhs = parse_not(p);
    lhs = binop(p, OP(And), lhs, rhs, since(p, start));
  }
  return lhs;
}

static doc* parse_and(parser* p) {
  tvm_script_span start = p->tok->span;
  return and_rest(p, start, parse_not(p));
}

static doc* or_rest(parser* p, tvm_script_span start, doc* lhs) {
  while (lhs && accept(p, KW(OR))) {
    doc* rhs = parse_and(p);
    lhs = binop(p, OP(Or), lhs, rhs, since(p, start));
  }
  return lhs;
}

static doc* parse_or(parser* p) {
  tvm_script_span start = p->tok->span;
  return or_rest(p, start, parse_and(p));
}

static doc* parse_lambda(parser* p) {
  tvm_script_span start = p->tok->span;
  advance(p);
  size_t base = p->sp;
  while (kind(p) != TOK(COLON)) {
    if (kind(p) != TOK(NAME)) {
      expected(p, "a lambda parameter name or ':'");
      goto fail;
    }
    if (push(p, make_id(p, p->tok)) != 0) goto fail;
    advance(p);
    if (kind(p) == TOK(ASSIGN)) {
      unsupported(p, p->tok->span, "default values of lambda parameters are");
      goto fail;
    }
    if (!accept(p, TOK(COMMA))) break;
  }
  if (!expect(p, TOK(COLON), "',' or ':'")) goto fail;
  doc* body = parse_test(p);
  if (!body) goto fail;
  return spanned(new_lambda(p, take_array(p, base), body), since(p, start));
fail:
  drop(p, base);
  return NULL;
}

/* lambda | or_test ['if' or_test 'else' test] */
/* Tokens that end an expression after an atom: most operands (`f(a, 1)`, `x = 1`, `A[i]`) are
 * lone atoms, which then skip the descent through every precedence level. */
static const bool kEndsAtom[TVM_SCRIPT_TOK_COUNT_] = {
    [TOK(COMMA)] = true, [TOK(RPAREN)] = true,  [TOK(RBRACKET)] = true, [TOK(RBRACE)] = true,
    [TOK(COLON)] = true, [TOK(NEWLINE)] = true, [TOK(ASSIGN)] = true,   [TOK(SEMI)] = true,
};

/* Tokens that start a primary (an atom, then trailers): an expression starting with one has no
 * prefix operator ('not', '-', ...) at any level. */
static const bool kStartsPrimary[TVM_SCRIPT_TOK_COUNT_] = {
    [TOK(NAME)] = true,     [TOK(INT)] = true,     [TOK(FLOAT)] = true,  [TOK(STRING)] = true,
    [TOK(LPAREN)] = true,   [TOK(LBRACKET)] = true, [TOK(LBRACE)] = true, [KW(TRUE)] = true,
    [KW(FALSE)] = true,     [KW(NONE)] = true,
};

static doc* parse_test_full(parser* p);

/* A lone atom (most operands: `f(a, 1)`, `x = 1`) is parsed at once, the rest by
 * parse_test_full: this function, apart, needs no stack frame (both calls are tail calls),
 * so the common case skips the registers parse_test_full saves and restores. */
static doc* parse_test(parser* p) {
  int k = kind(p);
  if ((k == TOK(NAME) || k == TOK(INT) || k == TOK(FLOAT)) && kEndsAtom[p->tok[1].kind]) {
    /* tok is not the last token: ENDMARKER follows at the latest */
    return k == TOK(NAME) ? parse_name_atom(p) : parse_atom(p);
  }
  return parse_test_full(p);
}

static __attribute__((noinline)) doc* parse_test_full(parser* p) {
  int k = kind(p);
  if (!enter(p)) return NULL;
  doc* result;
  if (kind(p) == KW(LAMBDA)) {
    result = parse_lambda(p);
  } else {
    tvm_script_span start = p->tok->span;
    if (kStartsPrimary[k]) {
      /* parse_or without the descent: parse_not, parse_factor and parse_power would each take
       * their non-prefix branch and reach parse_primary with this same start token. Then
       * each level's operators, innermost first, exactly as the returns of the descent. */
      result = parse_primary(p);
      if (result && !kEndsAtom[kind(p)]) {
        result = power_rest(p, start, result);
        result = binary_rest(p, 1, start, result);
        result = comparison_rest(p, start, result);
        result = and_rest(p, start, result);
        result = or_rest(p, start, result);
      }
    } else {
      result = parse_or(p);
    }
    if (result && accept(p, KW(IF))) {
      doc* cond = parse_or(p);
      doc* other = NULL;
      if (cond && expect(p, KW(ELSE), "'else' in the conditional expression")) {
        other = parse_test(p);
      }
      if (!other) {
        tvm_ffi_release(result);
        tvm_ffi_release(cond);
        result = NULL;
      } else {
        result = spanned(new_operation(p, OP(IfThenElse), ARRAY(p, result, cond, other)),
                         since(p, start));
      }
    }
  }
  --p->depth;
  return result;
}

/* test (',' test)* [','] : a tuple (without parentheses) when there is a comma. `elem` parses
 * one element (parse_test, or the bitwise-or level for `for` targets, which stops at 'in'). */
static doc* parse_list_of(parser* p, bool targets) {
  tvm_script_span start = p->tok->span;
  doc* first = targets ? parse_bitor(p) : parse_test(p);
  if (!first || kind(p) != TOK(COMMA)) return first;
  size_t base = p->sp;
  if (push(p, first) != 0) return NULL;
  while (accept(p, TOK(COMMA)) && starts_expr(kind(p))) {
    if (push(p, targets ? parse_bitor(p) : parse_test(p)) != 0) {
      drop(p, base);
      return NULL;
    }
  }
  return spanned(new_tuple(p, take_array(p, base)), since(p, start));
}

/* ---------------------------------------------------------------------------------------- */
/* Statements                                                                                */
/* ---------------------------------------------------------------------------------------- */

static int parse_statement(parser* p, bool docstring_ok);
static int parse_simple_stmts(parser* p, bool docstring_ok);

/* Whether d can be assigned to; raises "cannot assign to ..." when not. */
static bool check_target(parser* p, const doc* d, bool single) {
  /* The common targets by their type index (the parser's docs are the arena's: no call). */
  int32_t t = d->header.type_index;
  const int32_t* index = tvm_script__doc_arena_type_index;
  if (t == index[TVM_SCRIPT_DOC_IdDoc] || t == index[TVM_SCRIPT_DOC_IndexDoc] ||
      t == index[TVM_SCRIPT_DOC_AttrAccessDoc]) {
    return true;
  }
  tvm_script_doc_kind k = tvm_script_doc_kind_of(d);
  if (!single && (k == TVM_SCRIPT_DOC_TupleDoc || k == TVM_SCRIPT_DOC_ListDoc)) {
    const void* items = ((const tvm_script_seq_doc_obj*)d)->elements;
    for (int64_t i = 0; i < tvm_ffi_seq_size(items); ++i) {
      if (!check_target(p, tvm_ffi_seq_obj_at(items, i), false)) return false;
    }
    return true;
  }
  const char* what = k == TVM_SCRIPT_DOC_CallDoc      ? "a function call"
                     : k == TVM_SCRIPT_DOC_LiteralDoc ? "a literal"
                     : k == TVM_SCRIPT_DOC_TupleDoc   ? "a tuple here"
                     : k == TVM_SCRIPT_DOC_ListDoc    ? "a list here"
                                                      : "an expression";
  error_at(p, d->span, "cannot assign to %s", what);
  return false;
}

/* ':' then a block: NEWLINE INDENT statements DEDENT, or simple statements on the same line.
 * Returns an ffi.Array of statement docs. */
static void* parse_block(parser* p, bool docstring_ok) {
  if (!expect(p, TOK(COLON), "':'")) return NULL;
  size_t base = p->sp;
  ++p->block_depth;
  int rc = 0;
  if (kind(p) != TOK(NEWLINE)) {
    rc = parse_simple_stmts(p, docstring_ok); /* `if c: x = 1` (no compound statement here) */
  } else {
    advance(p);
    if (kind(p) != TOK(INDENT)) {
      expected(p, "an indented block");
      rc = -1;
    } else {
      advance(p);
      for (bool first = true; rc == 0 && kind(p) != TOK(DEDENT) && kind(p) != TOK(ENDMARKER);
           first = false) {
        rc = parse_statement(p, first && docstring_ok);
      }
      accept(p, TOK(DEDENT));
    }
  }
  --p->block_depth;
  if (rc != 0) {
    drop(p, base);
    return NULL;
  }
  return take_array(p, base);
}

static const struct {
  int tok, op;
} kAugOps[] = {
    {TOK(ADD_ASSIGN), OP(Add)},       {TOK(SUB_ASSIGN), OP(Sub)},
    {TOK(MUL_ASSIGN), OP(Mult)},      {TOK(DIV_ASSIGN), OP(Div)},
    {TOK(FLOORDIV_ASSIGN), OP(FloorDiv)}, {TOK(MOD_ASSIGN), OP(Mod)},
    {TOK(POW_ASSIGN), OP(Pow)},       {TOK(AND_ASSIGN), OP(BitAnd)},
    {TOK(OR_ASSIGN), OP(BitOr)},      {TOK(XOR_ASSIGN), OP(BitXor)},
    {TOK(LSHIFT_ASSIGN), OP(LShift)}, {TOK(RSHIFT_ASSIGN), OP(RShift)},
};

/* Expression statement, assignment, annotated or augmented assignment. */
static doc* parse_expr_stmt(parser* p, bool docstring_ok) {
  tvm_script_span start = p->tok->span;
  doc* lhs = parse_list_of(p, false);
  if (!lhs) return NULL;
  int k = kind(p);
  if (k == TOK(COLON)) {
    if (tvm_script_doc_kind_of(lhs) == TVM_SCRIPT_DOC_TupleDoc) {
      error_at(p, lhs->span, "only a single target can be annotated");
      goto fail;
    }
    if (!check_target(p, lhs, true)) goto fail;
    advance(p);
    doc* ann = parse_test(p);
    if (!ann) goto fail;
    doc* rhs = NULL;
    if (accept(p, TOK(ASSIGN)) && !(rhs = parse_list_of(p, false))) {
      tvm_ffi_release(ann);
      goto fail;
    }
    return spanned(new_assign(p, lhs, rhs, ann), since(p, start));
  }
  if (k == TOK(ASSIGN)) {
    if (!check_target(p, lhs, false)) goto fail;
    advance(p);
    doc* rhs = parse_list_of(p, false);
    if (!rhs) goto fail;
    if (kind(p) == TOK(ASSIGN)) {
      tvm_ffi_release(rhs);
      unsupported(p, p->tok->span, "chained assignments are");
      goto fail;
    }
    return spanned(new_assign(p, lhs, rhs, NULL), since(p, start));
  }
  for (size_t i = 0; i < sizeof(kAugOps) / sizeof(kAugOps[0]); ++i) {
    if (kAugOps[i].tok != k) continue;
    if (!check_target(p, lhs, true)) goto fail;
    advance(p);
    doc* rhs = parse_list_of(p, false);
    if (!rhs) goto fail;
    tvm_script_span s = since(p, start);
    tvm_ffi_retain(lhs); /* shared by the target and the operation */
    doc* value = binop(p, kAugOps[i].op, lhs, rhs, s);
    return spanned(new_assign(p, lhs, value, NULL), s);
  }
  if (k == TOK(WALRUS)) {
    unsupported(p, p->tok->span, "assignment expressions (':=') are");
    goto fail;
  }
  if (k == TOK(MATMUL_ASSIGN)) {
    unsupported(p, p->tok->span, "the '@=' operator is");
    goto fail;
  }
  if (docstring_ok && tvm_script_doc_kind_of(lhs) == TVM_SCRIPT_DOC_LiteralDoc) {
    const TVMFFIAny* v = &((tvm_script_literal_doc_obj*)lhs)->value;
    TVMFFIByteArray text;
    if (tvm_ffi_any_as_bytes(v, &text) && memchr(text.data, 0, text.size) == NULL) {
      doc* d = new_doc_string(p, text.data, text.size);
      tvm_ffi_release(lhs);
      return spanned(d, since(p, start));
    }
  }
  return spanned(new_expr_stmt(p, lhs), since(p, start));
fail:
  tvm_ffi_release(lhs);
  return NULL;
}

/* One simple statement (pushed, except `pass`). */
static int parse_small_stmt(parser* p, bool docstring_ok) {
  const tvm_script_token* t = p->tok; /* valid until the first advance */
  tvm_script_span start = t->span;
  switch (t->kind) {
    case KW(PASS):
      advance(p);
      return 0;
    case KW(RETURN): {
      advance(p);
      doc* value = NULL;
      if (kind(p) != TOK(NEWLINE) && kind(p) != TOK(SEMI) && !(value = parse_list_of(p, false))) {
        return -1;
      }
      return push(p, spanned(new_return(p, value), since(p, start)));
    }
    case KW(ASSERT): {
      advance(p);
      doc* test = parse_test(p);
      if (!test) return -1;
      doc* msg = NULL;
      if (accept(p, TOK(COMMA)) && !(msg = parse_test(p))) {
        tvm_ffi_release(test);
        return -1;
      }
      return push(p, spanned(new_assert(p, test, msg), since(p, start)));
    }
    case KW(DEL): unsupported(p, t->span, "'del' statements are"); return -1;
    case KW(GLOBAL): unsupported(p, t->span, "'global' statements are"); return -1;
    case KW(NONLOCAL): unsupported(p, t->span, "'nonlocal' statements are"); return -1;
    case KW(RAISE): unsupported(p, t->span, "'raise' statements are"); return -1;
    case KW(BREAK): unsupported(p, t->span, "'break' statements are"); return -1;
    case KW(CONTINUE): unsupported(p, t->span, "'continue' statements are"); return -1;
    case KW(IMPORT):
    case KW(FROM):
      unsupported(p, t->span,
                  "imports other than the 'from tvm.script import ...' header lines are");
      return -1;
    default:
      return push(p, parse_expr_stmt(p, docstring_ok));
  }
}

/* small_stmt (';' small_stmt)* [';'] NEWLINE */
static int parse_simple_stmts(parser* p, bool docstring_ok) {
  for (;;) {
    if (parse_small_stmt(p, docstring_ok) != 0) return -1;
    docstring_ok = false;
    if (!accept(p, TOK(SEMI)) || kind(p) == TOK(NEWLINE)) break;
  }
  return expect(p, TOK(NEWLINE), "end of line") ? 0 : -1;
}

/* Room for one more span in *starts, which holds n of *cap: `small` (SMALL_SPANS) first, then
 * the heap (most if/elif chains and with statements are short: no allocation). */
enum { SMALL_SPANS = 4 };
static bool spans_room(tvm_script_span** starts, size_t n, size_t* cap, tvm_script_span* small) {
  if (n < *cap) return true;
  tvm_script_span* s = tvm_ffi_malloc(2 * *cap * sizeof(*s));
  if (!s) return false;
  memcpy(s, *starts, n * sizeof(*s));
  if (*starts != small) tvm_ffi_free(*starts);
  *starts = s;
  *cap *= 2;
  return true;
}

/* if / elif chain: built from the innermost elif outwards (no recursion per elif). */
static int parse_if(parser* p) {
  size_t base = p->sp;
  tvm_script_span small[SMALL_SPANS], *starts = small;
  size_t n = 0, cap = SMALL_SPANS;
  do {
    if (!spans_room(&starts, n, &cap, small)) goto fail;
    starts[n++] = p->tok->span;
    advance(p);
    if (push(p, parse_test(p)) != 0 || push(p, parse_block(p, false)) != 0) goto fail;
  } while (kind(p) == KW(ELIF));
  void* else_branch = NULL;
  if (accept(p, KW(ELSE)) && !(else_branch = parse_block(p, false))) goto fail;
  tvm_script_span end = p->prev->span;
  doc* node = NULL;
  for (size_t i = n; i-- > 0;) {
    void* pred = p->stack[base + 2 * i];
    void* then = p->stack[base + 2 * i + 1];
    p->sp = base + 2 * i;
    node = spanned(new_if(p, pred, then, else_branch), join(starts[i], end));
    if (!node) {
      drop(p, base);
      goto fail;
    }
    if (i > 0 && !(else_branch = ARRAY(p, node))) {
      drop(p, base);
      goto fail;
    }
  }
  if (starts != small) tvm_ffi_free(starts);
  return push(p, node);
fail:
  drop(p, base);
  if (starts != small) tvm_ffi_free(starts);
  return -1;
}

static int parse_for(parser* p) {
  tvm_script_span start = p->tok->span;
  advance(p);
  doc* target = parse_list_of(p, true);
  if (!target) return -1;
  doc* iter = NULL;
  void* body = NULL;
  if (!check_target(p, target, false) || !expect(p, KW(IN), "'in'") ||
      !(iter = parse_list_of(p, false)) || !(body = parse_block(p, false))) {
    goto fail;
  }
  if (kind(p) == KW(ELSE)) {
    unsupported(p, p->tok->span, "'else' clauses of 'for' loops are");
    goto fail;
  }
  return push(p, spanned(new_for(p, target, iter, body), since(p, start)));
fail:
  tvm_ffi_release(target);
  tvm_ffi_release(iter);
  tvm_ffi_release(body);
  return -1;
}

static int parse_while(parser* p) {
  tvm_script_span start = p->tok->span;
  advance(p);
  doc* cond = parse_test(p);
  if (!cond) return -1;
  void* body = parse_block(p, false);
  if (!body) goto fail;
  if (kind(p) == KW(ELSE)) {
    unsupported(p, p->tok->span, "'else' clauses of 'while' loops are");
    goto fail;
  }
  return push(p, spanned(new_while(p, cond, body), since(p, start)));
fail:
  tvm_ffi_release(cond);
  tvm_ffi_release(body);
  return -1;
}

/* with a [as x], b [as y]: body -> ScopeDoc(x, a, [ScopeDoc(y, b, body)]). */
static int parse_with(parser* p) {
  size_t base = p->sp;
  tvm_script_span small[SMALL_SPANS], *starts = small;
  size_t n = 0, cap = SMALL_SPANS;
  tvm_script_span with_start = p->tok->span;
  advance(p);
  do {
    if (!spans_room(&starts, n, &cap, small)) goto fail;
    starts[n] = n == 0 ? with_start : p->tok->span;
    ++n;
    if (push(p, parse_test(p)) != 0) goto fail;
    doc* target = NULL;
    if (accept(p, KW(AS))) {
      if (!(target = parse_bitor(p))) goto fail;
      if (!check_target(p, target, false)) {
        tvm_ffi_release(target);
        goto fail;
      }
    }
    if (push_opt(p, target) != 0) goto fail;
  } while (accept(p, TOK(COMMA)));
  void* body = parse_block(p, false);
  if (!body) goto fail;
  tvm_script_span end = p->prev->span;
  doc* node = NULL;
  for (size_t i = n; i-- > 0;) {
    void* ctx = p->stack[base + 2 * i];
    void* target = p->stack[base + 2 * i + 1];
    p->sp = base + 2 * i;
    node = spanned(new_scope(p, ctx, target, body), join(starts[i], end));
    if (!node || (i > 0 && !(body = ARRAY(p, node)))) {
      drop(p, base);
      goto fail;
    }
  }
  if (starts != small) tvm_ffi_free(starts);
  return push(p, node);
fail:
  drop(p, base);
  if (starts != small) tvm_ffi_free(starts);
  return -1;
}

static doc* parse_name(parser* p, const char* what) {
  if (kind(p) != TOK(NAME)) return expected(p, what);
  doc* d = make_id(p, p->tok);
  advance(p);
  return d;
}

/* def name(params) [-> ret]: body; the decorators are on the stack from `decorators_base`. */
static doc* parse_def(parser* p, size_t decorators_base) {
  tvm_script_span start = p->tok->span;
  advance(p);
  doc *name = parse_name(p, "a function name"), *ret = NULL;
  void* body = NULL;
  if (!name || !expect(p, TOK(LPAREN), "'('")) goto fail;
  size_t args_base = p->sp;
  while (kind(p) != TOK(RPAREN)) {
    int k = kind(p);
    if (k == TOK(STAR) || k == TOK(POW) || k == TOK(SLASH)) {
      unsupported(p, p->tok->span,
                  k == TOK(SLASH)  ? "positional-only parameter markers ('/') are"
                  : k == TOK(STAR) ? "'*' parameters are"
                                   : "'**' parameters are");
      goto fail;
    }
    tvm_script_span param_start = p->tok->span;
    doc *param = parse_name(p, "a parameter name"), *ann = NULL, *dflt = NULL;
    if (!param) goto fail;
    if ((accept(p, TOK(COLON)) && !(ann = parse_test(p))) ||
        (accept(p, TOK(ASSIGN)) && !(dflt = parse_test(p)))) {
      tvm_ffi_release(param);
      tvm_ffi_release(ann);
      goto fail;
    }
    doc* arg = new_assign(p, param, dflt, ann);
    if (push(p, spanned(arg, since(p, param_start))) != 0) goto fail;
    if (!accept(p, TOK(COMMA))) break;
  }
  if (!expect(p, TOK(RPAREN), "',' or ')'")) goto fail;
  if (accept(p, TOK(ARROW)) && !(ret = parse_test(p))) goto fail;
  if (!(body = parse_block(p, true))) goto fail;
  void* args = take_array(p, args_base);
  void* decorators = take_array(p, decorators_base);
  return spanned(new_function(p, name, args, decorators, body, ret), since(p, start));
fail:
  drop(p, decorators_base);
  tvm_ffi_release(name);
  tvm_ffi_release(ret);
  return NULL;
}

static doc* parse_class(parser* p, size_t decorators_base) {
  tvm_script_span start = p->tok->span;
  advance(p);
  doc* name = parse_name(p, "a class name");
  void* body = NULL;
  if (!name) goto fail;
  if (kind(p) == TOK(LPAREN)) {
    tvm_script_span open = p->tok->span;
    advance(p);
    if (kind(p) != TOK(RPAREN)) {
      unsupported(p, join(open, p->tok->span), "base classes are");
      goto fail;
    }
    advance(p);
  }
  if (!(body = parse_block(p, true))) goto fail;
  return spanned(new_class(p, name, take_array(p, decorators_base), body), since(p, start));
fail:
  drop(p, decorators_base);
  tvm_ffi_release(name);
  return NULL;
}

static int parse_decorated(parser* p) {
  size_t base = p->sp;
  while (accept(p, TOK(AT))) {
    if (push(p, parse_test(p)) != 0 || !expect(p, TOK(NEWLINE), "end of line")) goto fail;
  }
  if (kind(p) == KW(DEF)) return push(p, parse_def(p, base));
  if (kind(p) == KW(CLASS)) return push(p, parse_class(p, base));
  expected(p, "'def' or 'class' after decorators");
fail:
  drop(p, base);
  return -1;
}

/* from tvm.script import tirx as T, ir as I */
static int parse_import(parser* p) {
  static const char* const kModules[] = {"tir", "tirx", "ir", "relax"};
  tvm_script_span start = p->tok->span;
  advance(p);
  const tvm_script_token* t = p->tok;
  bool ok = t[0].kind == TOK(NAME) && t[1].kind == TOK(DOT) && t[2].kind == TOK(NAME) &&
            t[3].kind == KW(IMPORT) && tok_size(&t[0]) == 3 &&
            memcmp(tok_text(p, &t[0]), "tvm", 3) == 0 && tok_size(&t[2]) == 6 &&
            memcmp(tok_text(p, &t[2]), "script", 6) == 0;
  if (!ok) {
    while (kind(p) != TOK(NEWLINE) && kind(p) != KW(IMPORT) && kind(p) != TOK(ENDMARKER)) {
      advance(p);
    }
    unsupported(p, since(p, start),
                "imports other than the 'from tvm.script import ...' header lines are");
    return -1;
  }
  for (int i = 0; i < 4; ++i) advance(p);
  do {
    tvm_script_token mod = *p->tok, alias;
    if (mod.kind != TOK(NAME)) {
      expected(p, "a TVMScript module name");
      return -1;
    }
    bool known = false;
    for (size_t i = 0; i < sizeof(kModules) / sizeof(kModules[0]); ++i) {
      known = known || (tok_size(&mod) == strlen(kModules[i]) &&
                        memcmp(tok_text(p, &mod), kModules[i], tok_size(&mod)) == 0);
    }
    if (!known) {
      error_at(p, mod.span, "unknown TVMScript module '%.*s' (expected ir, tir, tirx or relax)",
               (int)tok_size(&mod), tok_text(p, &mod));
      return -1;
    }
    advance(p);
    alias = mod;
    if (accept(p, KW(AS))) {
      alias = *p->tok;
      if (alias.kind != TOK(NAME)) {
        expected(p, "an alias name");
        return -1;
      }
      advance(p);
    }
    if (p->n_imports == p->imports_cap) {
      tvm_script__import* e = tvm_ffi_malloc(2 * p->imports_cap * sizeof(*e));
      if (!e) return tvm_ffi_raise("MemoryError", "out of memory recording an import");
      memcpy(e, p->imports, p->n_imports * sizeof(*e));
      if (p->imports != p->imports_inline) tvm_ffi_free(p->imports);
      p->imports = e;
      p->imports_cap *= 2;
    }
    /* The source is under INT32_MAX bytes (lexer_init). */
    p->imports[p->n_imports++] = (tvm_script__import){
        (uint32_t)alias.span.start_byte, (uint32_t)tok_size(&alias), (uint32_t)mod.span.start_byte,
        (uint32_t)tok_size(&mod)};
  } while (accept(p, TOK(COMMA)));
  return expect(p, TOK(NEWLINE), "end of line") ? 0 : -1;
}

/* One statement; pushes its doc (nothing for `pass` and header imports). */
static int parse_statement(parser* p, bool docstring_ok) {
  switch (kind(p)) {
    case TOK(AT):
    case KW(DEF):
    case KW(CLASS):
      return parse_decorated(p);
    case KW(IF):
      return parse_if(p);
    case KW(FOR):
      return parse_for(p);
    case KW(WHILE):
      return parse_while(p);
    case KW(WITH):
      return parse_with(p);
    case KW(TRY):
      unsupported(p, p->tok->span, "'try' statements are");
      return -1;
    case KW(ASYNC):
      unsupported(p, p->tok->span, "'async' statements are");
      return -1;
    case TOK(INDENT):
      error_at(p, p->tok->span, "unexpected indent");
      return -1;
    case KW(FROM):
      if (p->block_depth == 0) return parse_import(p);
      return parse_simple_stmts(p, false);
    default:
      return parse_simple_stmts(p, docstring_ok);
  }
}

/* ---------------------------------------------------------------------------------------- */
/* Entry points                                                                              */
/* ---------------------------------------------------------------------------------------- */

/* The ffi.Map of the imports, alias -> module name (a repeated alias takes the last module,
 * in the place of its first use, as a dict would), or NULL + error. */
static void* imports_map(parser* p) {
  size_t n = p->n_imports;
  TVMFFIAny small[2 * INLINE_IMPORTS];
  TVMFFIAny* kv = n <= INLINE_IMPORTS ? small : tvm_ffi_malloc(2 * n * sizeof(TVMFFIAny));
  if (!kv) return NULL;
  bool ok = true;
  for (size_t i = 0; i < n; ++i) {
    const tvm_script__import* e = &p->imports[i];
    kv[i] = tvm_ffi_string_n(p->src + e->alias, e->alias_n);
    kv[n + i] = tvm_ffi_string_n(p->src + e->mod, e->mod_n);
    ok = ok && kv[i].type_index != kTVMFFINone && kv[n + i].type_index != kTVMFFINone;
  }
  void* map = ok ? tvm_ffi_map_new(kv, kv + n, (int64_t)n)
                 : (tvm_ffi_raise("MemoryError", "out of memory recording an import"), NULL);
  for (size_t i = 0; i < 2 * n; ++i) tvm_ffi_any_release(&kv[i]);
  if (kv != small) tvm_ffi_free(kv);
  return map;
}

/* tvm_script_parse_doc_ex, and tvm_script__parse_doc_imports when `list` is set. */
static void* parse_doc(const char* source, size_t len, const char* filename, void** out_imports,
                       tvm_script__import* list, size_t list_cap, size_t* list_n) {
  if (out_imports) *out_imports = NULL;
  if (!source && len) {
    tvm_ffi_raise("ValueError", "tvm_script_parse_doc: NULL source");
    return NULL;
  }
  if (t_names && t_names->n == THREAD_NAMES) thread_names_flush(t_names);
  /* Zero every field but the lexer (most of the struct), which lexer_init sets up. */
  parser p;
  memset(&p, 0, offsetof(parser, lx));
  memset((char*)&p + offsetof(parser, lx) + sizeof(p.lx), 0,
         offsetof(parser, names_inline) - offsetof(parser, lx) - sizeof(p.lx));
  p.stack = p.stack_inline;
  p.cap = INLINE_STACK;
  p.imports = p.imports_inline;
  p.imports_cap = INLINE_IMPORTS;
  p.names = p.names_inline;
  p.names_cap = INLINE_NAMES;
  p.name_slots = p.slots_inline; /* sized and zeroed by its first name (intern_slow) */
  p.src = source ? source : "";
  p.len = len;
  p.filename = filename ? filename : "<string>";
  void* result = NULL;
  if (tvm_script__lexer_init(&p.lx, p.src, len, p.filename) != 0 ||
      (p.lx.views = true, p.lx.data = p.lx.own_data = p.tokens_inline,
       p.lx.cap = INLINE_TOKENS, tvm_script__lexer_fill(&p.lx, WINDOW) != 0)) {
    tvm_script__lexer_free(&p.lx);
    return NULL;
  }
  p.tok = p.lx.data;
  set_refill_at(&p);
  p.arena = tvm_script__doc_arena_new();
  if (!p.arena || !(p.empty = tvm_script__doc_arena_array(p.arena, 0))) goto done;
  ((TVMFFIObject*)p.empty)->combined_ref_count += EMPTY_BIAS; /* see parser.empty */
  p.prev_save.span = p.tok->span;
  p.prev_save.span.end_line = p.prev_save.span.start_line;
  p.prev_save.span.end_col = p.prev_save.span.start_col;
  p.prev_save.span.end_byte = p.prev_save.span.start_byte;
  p.prev = &p.prev_save;
  tvm_script_span start = p.prev_save.span;
  start.start_line = start.start_col = 1;
  start.start_byte = 0;
  while (kind(&p) != TOK(ENDMARKER)) {
    if (parse_statement(&p, false) != 0) goto done;
  }
  if (p.lex_failed) goto done;
  result = spanned(new_stmt_block(&p, take_array(&p, 0)), since(&p, start));
  if (result && list) {
    *list_n = p.n_imports;
    if (p.n_imports <= list_cap) {
      if (p.n_imports) memcpy(list, p.imports, p.n_imports * sizeof(*list));
      out_imports = NULL; /* the list says it all */
    }
  }
  if (result && out_imports && !(*out_imports = imports_map(&p))) {
    tvm_ffi_release(result);
    result = NULL;
  }
done:
  drop(&p, 0);
  if (p.empty) settle_empty(&p);
  tvm_ffi_release(p.empty);
  if (p.arena) tvm_script__doc_arena_finish(p.arena, result);
  if (p.stack != p.stack_inline) tvm_ffi_free(p.stack);
  if (p.imports != p.imports_inline) tvm_ffi_free(p.imports);
  for (size_t i = 0; i < p.n_names; ++i) tvm_ffi_release(p.names[i].str);
  if (p.names != p.names_inline) tvm_ffi_free(p.names);
  if (p.name_slots != p.slots_inline) tvm_ffi_free(p.name_slots);
  tvm_script__lexer_free(&p.lx);
  return result;
}

void* tvm_script_parse_doc_ex(const char* source, size_t len, const char* filename,
                              void** out_imports) {
  return parse_doc(source, len, filename, out_imports, NULL, 0, NULL);
}

void* tvm_script__parse_doc_imports(const char* source, size_t len, const char* filename,
                                    tvm_script__import* list, size_t cap, size_t* n,
                                    void** out_map) {
  return parse_doc(source, len, filename, out_map, list, cap, n);
}

void* tvm_script_parse_doc(const char* source, size_t len, const char* filename) {
  return parse_doc(source, len, filename, NULL, NULL, 0, NULL);
}

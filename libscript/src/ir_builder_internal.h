/*
 * ir_builder_internal.h: the frame stack shared by ir_builder.c (generic frames, modules) and
 * ir_builder_tir.c (TIR frames). See tvm/script/ir_builder.h for the model.
 */
#ifndef TVM_SCRIPT_IR_BUILDER_INTERNAL_H_
#define TVM_SCRIPT_IR_BUILDER_INTERNAL_H_

#include <tvm/script/doc.h>
#include <tvm/script/ir_builder.h>
#include <tvm/tir/tir.h>

/* ---- Kinds of libtir nodes ----------------------------------------------------------------- */
/* Type index -> libtir kind + 1 (0: not a libtir kind, or not filled yet), for every type index
 * libtvmffi can hand out, filled once (tvm_script__init_kinds) before kinds_ready is set: the
 * parser and the builder ask tvm_tir_kind_of of nearly every value, and this answers without
 * a call into libtir, in one load for a node. An entry once set never changes (a type index
 * is never reused), so a set entry is right even before kinds_ready. */
#define TVM_SCRIPT_KIND_TABLE 4096
extern uint8_t tvm_script__kind_by_index[TVM_SCRIPT_KIND_TABLE];
extern int tvm_script__kinds_ready; /* set (release) once the tables are filled */
_Static_assert(TVM_TIR_KIND_COUNT < 256, "a kind + 1 fits the table's bytes");
static inline tvm_tir_kind tvm_script__kind_of(const void* obj) {
  if (!obj) return TVM_TIR_KIND_NONE;
  uint32_t i = (uint32_t)((const TVMFFIObject*)obj)->type_index;
  unsigned e = i < TVM_SCRIPT_KIND_TABLE
                   ? __atomic_load_n(&tvm_script__kind_by_index[i], __ATOMIC_ACQUIRE)
                   : 0;
  if (__builtin_expect(e != 0, 1)) return (tvm_tir_kind)(e - 1);
  if (__builtin_expect(!__atomic_load_n(&tvm_script__kinds_ready, __ATOMIC_ACQUIRE), 0)) {
    return (tvm_tir_kind_of)(obj); /* (the function: before the table exists) */
  }
  return TVM_TIR_KIND_NONE;
}
#define tvm_tir_kind_of(obj) tvm_script__kind_of(obj)

/* A growable array of owned objects: a frame's statements and collections. Each becomes an
 * ffi.Array once, when the frame's node is built (tvm_script__vec_take moves the items into it),
 * instead of an ffi.List per collection that is then copied into an Array; a collection never
 * used allocates nothing. */
typedef struct {
  TVMFFIAny* items;
  int32_t size, cap;
} tvm_script__vec;

/* tvm_script__vec_push when v is full: grow it, then append. */
int tvm_script__vec_push_grow(tvm_script__vec* v, const void* obj);
/* Append obj (retained). 0, or -1 with a MemoryError. Inline while there is room. */
static inline int tvm_script__vec_push(tvm_script__vec* v, const void* obj) {
  if (__builtin_expect(v->size == v->cap, 0)) return tvm_script__vec_push_grow(v, obj);
  tvm_ffi_retain((void*)obj);
  v->items[v->size++] = tvm_ffi_any_obj(obj);
  return 0;
}
/* A new ffi.Array of the items, moved out of v (v is left empty); NULL when v is empty (the
 * libtir constructors' default for an empty collection) with *ok true, or NULL with *ok false
 * and an error raised. */
void* tvm_script__vec_take(tvm_script__vec* v, bool* ok);
static inline const void* tvm_script__vec_at(const tvm_script__vec* v, int32_t i) {
  return v->items[i].v_obj;
}
void tvm_script__vec_clear(tvm_script__vec* v);

/* One open frame. Object fields are owned (NULL when unset) and their meaning depends on kind;
 * every one is released when the frame is dropped, so a frame abandoned by an error leaks
 * nothing. */
typedef struct {
  tvm_script_frame_kind kind;
  bool rest_of_body; /* closed implicitly by the exit of the explicit frame below it */
  bool flag;         /* PRIM_FUNC: private; BLOCK: no_realize */
  bool root;         /* PRIM_FUNC: the body goes in the implicit root block */
  bool name_heap;    /* name is from the heap, not the builder's name pool */
  tvm_script__vec stmts; /* the statements emitted while this frame was innermost */
  char* name;        /* PRIM_FUNC / BLOCK name; ATTR key (tvm_script__set_frame_name) */
  const void* name_str; /* PRIM_FUNC: the parser's String of name, or NULL (borrowed) */
  /* Expressions and nodes. */
  void* var;        /* FOR loop var, LET var, ALLOCATE buffer var */
  void* min;        /* FOR min */
  void* extent;     /* FOR extent */
  void* cond;       /* IF / WHILE / ASSERT / ALLOCATE / REALIZE condition, BLOCK predicate */
  void* value;      /* LET / ATTR value, ASSERT message */
  void* thread;     /* FOR thread_binding IterVar; ASSERT error kind (StringImm) or NULL */
  void* buffer;     /* DECL_BUFFER / REALIZE buffer */
  void* extents;    /* ALLOCATE extents; REALIZE bounds (Array of Range) */
  TVMFFIAny node;   /* ATTR node (owned) */
  /* FOR / WHILE / IF / LET / ASSERT / ATTR / ALLOCATE: the node built at enter around the
   * placeholder body (its constructor's checks then fail at the statement that entered the
   * frame). Never shared: the exit moves the real body into it instead of building it again. */
  void* built;
  DLDataType dtype; /* ALLOCATE dtype */
  int32_t for_kind;
  void* then_case; /* IF */
  void* else_case; /* IF */
  void* init;      /* BLOCK init statement */
  void* ret_type;  /* PRIM_FUNC */
  /* Collections. */
  tvm_script__vec iter_vars;     /* BLOCK */
  tvm_script__vec iter_values;   /* BLOCK */
  void* reads;                   /* BLOCK: ffi.Array once T.reads ran, else NULL */
  void* writes;                  /* BLOCK: ffi.Array once T.writes ran, else NULL */
  tvm_script__vec alloc_buffers; /* BLOCK, PRIM_FUNC (root block) */
  tvm_script__vec match_buffers; /* BLOCK */
  void* annotations; /* FOR / ALLOCATE: ffi.Map or NULL; BLOCK: ffi.Dict, made on first use */
  tvm_script__vec params; /* PRIM_FUNC */
  /* PRIM_FUNC: buffer_map as parallel keys (handle Vars) and values (Buffers). */
  tvm_script__vec buffer_map_keys, buffer_map_values;
  void* attrs; /* PRIM_FUNC (made on first use) / MODULE: ffi.Dict String -> Any */
  void* functions;     /* MODULE: ffi.Dict GlobalVar -> function */
  void* global_vars;   /* MODULE: ffi.Dict name -> GlobalVar */
  const tvm_script_span* span; /* the builder's span when the frame was entered: its node's */
  /* RELAX_* frames: their state (ir_builder_relax.c), owned; released by
   * tvm_script__relax_frame_release. */
  struct tvm_script__relax_frame* relax;
} tvm_script__frame;

/* Source spans of the statement nodes built, for locating errors found in the finished IR (the
 * well-formedness check): (node, span) pairs, both borrowed, in the order recorded. Appending is
 * all a parse pays (a hash table's random stores into megabytes cost cache misses per
 * statement); the rare lookup, on an error, scans the log once. Nodes are compared, never read:
 * a recorded node is part of what is being built, and should one be freed meanwhile (an
 * abandoned frame), a node recorded later at its address takes precedence (the last entry of a
 * node wins). */
typedef struct {
  const void* node;
  const tvm_script_span* span;
} tvm_script__span_entry;
typedef struct {
  tvm_script__span_entry* items;
  size_t size, capacity;
} tvm_script__span_log;

enum { TVM_SCRIPT_NAME_STRS = 8 };
/* The frames, span log entries and frame names a builder holds in itself (a small file's
 * function nests a few frames, emits a few dozen statements and names a few blocks): storage
 * that comes with the builder's one allocation instead of a malloc + free each per parse;
 * deeper nesting or more statements move to the heap. Sized so that the builder stays within
 * 4 KiB (the allocator's next size class is slower to get). */
enum { TVM_SCRIPT_INLINE_FRAMES = 8, TVM_SCRIPT_INLINE_SPANS = 64, TVM_SCRIPT_NAME_POOL = 96 };

struct tvm_script_builder {
  tvm_script__frame* frames; /* frames_inline, or heap storage once more were needed */
  int depth;
  int capacity;
  int slots_used; /* frames[0, slots_used) were used: their stmts storage is kept */
  tvm_script__vec top_stmts; /* statements emitted with no frame open */
  void* result;      /* the last finished top-level IRModule / PrimFunc */
  void* env_threads; /* ffi.Dict: thread Var (T.env_thread or launched) -> IterVar; lazily */
  /* Source locations, written by the parser (C users leave span NULL and nothing is recorded);
   * borrowed: the parser's tree outlives the builder. span: of the statement being processed.
   * Every statement emitted is recorded in spans with the span current then; a frame's node is
   * emitted with the span of its frame. exit_error_span: after a failed
   * tvm_script_builder_exit, the span of the frame whose node could not be built (or NULL). */
  const tvm_script_span* span;
  const tvm_script_span* exit_error_span;
  tvm_script__span_log spans;
  /* The parser's interned name Strings of the targets of the statement being run (borrowed:
   * the parser's names outlive the builder): a Var given the text of one of them by address shares
   * the String instead of copying it (tvm_script__var). */
  const void* name_strs[TVM_SCRIPT_NAME_STRS];
  int num_name_strs;
  int name_pool_used; /* bytes of name_pool handed out (never given back: a parse names few) */
  /* Relax (ir_builder_relax.c), made by the first Relax frame, owned: the BlockBuilder the
   * Relax frames build on, the symbolic variables of signatures evaluated outside a function
   * frame (ffi.Dict name -> tir.Var), and the Var / GlobalVar / Function the last Relax
   * function or if frame produced (tvm_script_relax_function_end / _if_end hand it out). */
  void* relax_bb;
  void* relax_syms;
  void* relax_last;
  /* The Calls the `R.*` builtins made with librelax's inferring constructor (retained, an open
   * addressing set of relax_inferred_cap slots): their struct info holds by construction, and
   * the well-formedness check does not infer it again (tvm_script__relax_call_inferred). */
  void** relax_inferred;
  size_t relax_inferred_cap, relax_inferred_n;
  /* (Last: left unzeroed by tvm_script_builder_new; a frame is zeroed when pushed.) */
  tvm_script__frame frames_inline[TVM_SCRIPT_INLINE_FRAMES];
  tvm_script__span_entry spans_inline[TVM_SCRIPT_INLINE_SPANS];
  char name_pool[TVM_SCRIPT_NAME_POOL]; /* frames' names (tvm_script__set_frame_name) */
};

/* Set f->name to a copy of name (NULL: ""), owned by b: from its name pool while there is
 * room (a function's, blocks' and attributes' names: a malloc + free each otherwise), else
 * from the heap. 0, or -1 with a MemoryError (f->name is then NULL). */
int tvm_script__set_frame_name(tvm_script_builder* b, tvm_script__frame* f, const char* name);

/* The String among b->name_strs whose text is at name (the same address: the same text), or
 * NULL. */
static inline void* tvm_script__name_str(const tvm_script_builder* b, const char* name) {
  for (int i = 0; i < b->num_name_strs; ++i) {
    if (tvm_ffi_str_view(b->name_strs[i]).data == name) return (void*)b->name_strs[i];
  }
  return NULL;
}
/* tvm_tir_var / tvm_tir_ptr_var with name, sharing the parser's String of it when it has one
 * (name_strs above; ptr_var is given it). The types are libtir's shared ones. */
tvm_tir_var_obj* tvm_script__var(tvm_script_builder* b, const char* name, DLDataType dtype);
tvm_tir_var_obj* tvm_script__ptr_var(tvm_script_builder* b, const char* name, void* name_str,
                                     DLDataType element, const char* scope);
/* Push a frame of kind (zeroed, with an empty statement list); NULL + MemoryError. The pointer
 * is valid until the next push. */
tvm_script__frame* tvm_script__push_frame(tvm_script_builder* b, tvm_script_frame_kind kind);
/* The innermost frame of kind, or NULL. */
tvm_script__frame* tvm_script__find_frame(tvm_script_builder* b, tvm_script_frame_kind kind);
/* Whether the innermost module frame has a function (declared or defined) named name. */
bool tvm_script__ir_module_declares(tvm_script_builder* b, const char* name);
/* The innermost frame if it is of kind, else NULL with a ValueError "<what> is only valid
 * inside a <where>". */
tvm_script__frame* tvm_script__require_top(tvm_script_builder* b, tvm_script_frame_kind kind,
                                           const char* what, const char* where);
/* Append a statement (borrowed) to the innermost frame or the top-level list. */
int tvm_script__emit(tvm_script_builder* b, const void* stmt);
/* The statements of stmts as one Stmt: SeqStmt (flattened), the single statement, or
 * Evaluate(0). take: the statements may be moved out of stmts (a frame being finished). */
tvm_tir_stmt_obj* tvm_script__stmts_body(tvm_script__vec* stmts, bool take);
static inline tvm_tir_stmt_obj* tvm_script__frame_body(tvm_script__frame* f) {
  return tvm_script__stmts_body(&f->stmts, true);
}
/* Build the node of a TIR frame that was just popped (f, owned by the caller) and hand it to
 * the frame below (ir_builder_tir_stmt.c; functions and blocks by the two below, in
 * ir_builder_tir.c). 0 or -1. */
int tvm_script__finish_tir_frame(tvm_script_builder* b, tvm_script__frame* f);
int tvm_script__finish_prim_func(tvm_script_builder* b, tvm_script__frame* f);
int tvm_script__finish_block(tvm_script_builder* b, tvm_script__frame* f);

/* T.allocate_const(data, dtype, extents, annotations=): the Allocate frame of
 * tvm_script_tir_allocate_enter, its constants in its annotations (tvm-private/tir.h). */
tvm_tir_var_obj* tvm_script__tir_allocate_const_enter(tvm_script_builder* b, const char* name,
                                                      const void* data, DLDataType dtype,
                                                      const void* extents, const void* annotations,
                                                      bool rest_of_body);

/* ---- Checks and conversions shared by the TIR frames (ir_builder_tir.c) -------------------- */
/* The type key of an object for messages ("None" for NULL). */
const char* tvm_script__type_name(const void* obj);
/* 0, or -1 with a TypeError "<what> must be a PrimExpr" / "... an integer". */
int tvm_script__expect_expr(const void* obj, const char* what);
int tvm_script__expect_int(const void* obj, const char* what);
/* A new ffi.Array of PrimExpr from an Array/List of PrimExpr and Python ints (int32 IntImm,
 * int64 when it does not fit); arr NULL gives NULL with *ok true. *ok false on error. */
void* tvm_script__expr_array(const void* arr, const char* what, bool* ok);
/* A storage scope as PointerType stores it: "global" and NULL are "". */
const char* tvm_script__norm_scope(const char* scope);
/* e in dtype when it is an integer literal of another dtype (folded cast), else e; new ref. */
tvm_tir_expr_obj* tvm_script__int_literal_to(const void* e, DLDataType dtype);
/* v as a constant of float16/bfloat16 (the element type of dtype) holds it: rounded to the
 * type, as a cast folds it and as the parser reads `T.float16(v)` (the printer relies on it).
 * Other dtypes, and values the type cannot hold (left to the constructor), give v. */
double tvm_script__float_value_in(DLDataType dtype, double v);
/* Hand a finished PrimFunc (borrowed) to the enclosing module frame under name (name_str: the
 * parser's String of it, borrowed, or NULL), or make it the result at the top level. 0 or
 * -1. */
int tvm_script__deliver_func(tvm_script_builder* b, const char* name, void* name_str,
                             void* func);
/* Merge map (string keys) into dict, later keys winning; TypeError naming what otherwise. */
int tvm_script__merge_attrs(void* dict, const void* map, const char* what);
/* The reads and writes of a block frame f (just popped from b) with body `body`, written
 * without T.reads / T.writes (ir_builder_regions.c): new ffi.Arrays of BufferRegion. 0 or -1. */
int tvm_script__infer_regions(const tvm_script_builder* b, const tvm_script__frame* f,
                              const void* body, void** out_reads, void** out_writes);
/* ---- Source spans (ir_builder_spans.c) ------------------------------------------------------ */
/* Record node at span (both borrowed) in b's log. 0, or -1 with a MemoryError. */
int tvm_script__span_record_grow(tvm_script_builder* b, const void* node,
                                 const tvm_script_span* span);
static inline int tvm_script__span_record(tvm_script_builder* b, const void* node,
                                          const tvm_script_span* span) {
  tvm_script__span_log* log = &b->spans;
  if (__builtin_expect(log->size == log->capacity, 0)) {
    return tvm_script__span_record_grow(b, node, span);
  }
  log->items[log->size++] = (tvm_script__span_entry){node, span};
  return 0;
}
void tvm_script__span_log_free(tvm_script__span_log* log);
/* After a rebuild replaced old[0..n) position by position with the nodes of the sequence `now`
 * (an Array or List of n objects): the entries logged since index `start` for an old node name
 * its replacement instead. The old nodes were logged in that order (among other entries). */
void tvm_script__span_log_replace(tvm_script__span_log* log, size_t start, const void* const* old,
                                  int64_t n, const void* now);
/* The span of the deepest node with a recorded span on the access path written in `path`
 * ("<root>.body.seq[1].value", as tvm_ffi_access_path_format writes it) from root, root
 * included; NULL when there is none. Map steps (`[key]`) and unknown fields end the walk. */
const tvm_script_span* tvm_script__span_at_path(const tvm_script__span_log* log, const void* root,
                                                const char* path);

/* ---- Expression test ------------------------------------------------------------------------ */
/* Whether each libtir kind derives from PrimExpr (from nodes.def, once, by
 * tvm_script__init_kinds): tvm_tir_is_expr asks the type registry for the object's ancestors,
 * a question the evaluator and the builder ask of nearly every value. */
extern bool tvm_script__expr_kind[TVM_TIR_KIND_COUNT];
extern bool tvm_script__stmt_kind[TVM_TIR_KIND_COUNT]; /* the same for Stmt */
#define tvm_script__expr_kinds_ready tvm_script__kinds_ready /* (filled together) */
void tvm_script__init_kinds(void);
static inline bool tvm_script__is_expr(const void* obj) {
  tvm_tir_kind k = tvm_tir_kind_of(obj);
  /* Objects that are not libtir nodes (or NULL) keep the registry's answer. */
  if (k < 0 || !__atomic_load_n(&tvm_script__expr_kinds_ready, __ATOMIC_ACQUIRE)) {
    return obj && tvm_tir_is_expr(obj);
  }
  return tvm_script__expr_kind[k];
}
static inline bool tvm_script__is_stmt(const void* obj) {
  tvm_tir_kind k = tvm_tir_kind_of(obj);
  if (k < 0 || !__atomic_load_n(&tvm_script__expr_kinds_ready, __ATOMIC_ACQUIRE)) {
    return obj && tvm_tir_is_stmt(obj);
  }
  return tvm_script__stmt_kind[k];
}

/* Release everything a frame holds. */
void tvm_script__frame_clear(tvm_script__frame* f);

/* ---- Relax frames (ir_builder_relax.c) ----------------------------------------------------- */
static inline bool tvm_script__is_relax_frame(tvm_script_frame_kind k) {
  return k >= TVM_SCRIPT_FRAME_RELAX_FUNC && k <= TVM_SCRIPT_FRAME_RELAX_ELSE;
}
/* Build the node of a Relax frame just popped (f, owned by the caller) and hand it on. */
int tvm_script__finish_relax_frame(tvm_script_builder* b, tvm_script__frame* f);
/* Release f->relax (NULL-safe) and set it NULL. */
void tvm_script__relax_frame_release(tvm_script__frame* f);
/* Release the builder's Relax state (relax_bb, relax_syms, relax_last). */
void tvm_script__relax_builder_release(tvm_script_builder* b);
/* A module frame that holds Relax functions is finishing: its GlobalVars without struct info
 * (PrimFuncs') get the FuncStructInfo a BlockBuilder gives them (tvm_relax_expr_sinfo). */
int tvm_script__relax_module_global_vars(tvm_script__frame* module);
/* The GlobalVar gv of a PrimFunc returning ret_type (its return annotation; NULL: none, void), in
 * a module that holds Relax functions, declared before the PrimFunc is parsed: upstream's
 * declared struct info, an opaque function returning what ret_type says (what
 * tvm_relax_expr_sinfo gives the PrimFunc), so that a direct call `cls.f(x, out)` infers void. */
int tvm_script__relax_declare_prim_func(tvm_tir_global_var_obj* gv,
                                        const tvm_tir_type_obj* ret_type);

/* tvm_script_tir_alloc_buffer; stmt_ok: the call is a statement or an assignment, where the
 * statement-level form (outside any block, a DeclBuffer for the rest of the body) may open. */
tvm_tir_buffer_obj* tvm_script__tir_alloc_buffer(tvm_script_builder* b,
                                                 const tvm_script_buffer_args* a, bool stmt_ok);

#endif /* TVM_SCRIPT_IR_BUILDER_INTERNAL_H_ */

/*
 * tvm/tir/visit.h: a generic visitor and mutator over libtir IR, driven by reflection.
 *
 * The children of a node are its reflected fields that hold objects: object fields, Any fields
 * holding an object, and the elements of ffi.Array fields and the values of ffi.Map fields
 * (map keys are not children: they are strings, or objects bound elsewhere such as PrimFunc
 * params and a module's GlobalVars). Strings are not visited. So one child walk handles every
 * node kind; behaviour per kind comes from tables indexed by tvm_tir_kind_of().
 *
 * The walk tracks the access path of the node being visited from the root of the walk: one step
 * per field (".body"), array element ("[2]") or map value ("[key]").
 * tvm_tir_visitor_path returns it as a tvm-ffi access path object (built on demand, so a walk
 * that never asks allocates nothing per node).
 *
 *   static int count(tvm_tir_visitor* v, const void* node) { ++*(int*)v->ctx; return 0; }
 *   tvm_tir_visitor v = {0};
 *   v.pre_default = count;
 *   v.ctx = &n;
 *   tvm_tir_visit(&v, func);
 *   tvm_tir_visitor_free(&v);
 */
#ifndef TVM_TIR_VISIT_H_
#define TVM_TIR_VISIT_H_

#include <tvm/tir/node.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* Return values of visitor callbacks. A negative value stops the walk: tvm_tir_visit returns
 * -1 (the callback leaves an error raised). */
enum {
  TVM_TIR_VISIT_CONTINUE = 0, /* visit the node's children next */
  TVM_TIR_VISIT_SKIP = 1      /* (pre only) do not visit the children */
};

typedef struct tvm_tir_visitor tvm_tir_visitor;
typedef int (*tvm_tir_visit_fn)(tvm_tir_visitor* v, const void* node);

/* One step of the current path (internal to the walk; read it through tvm_tir_visitor_path). */
typedef struct {
  int64_t kind;        /* TVM_FFI_PATH_ATTR, _ARRAY_ITEM or _MAP_ITEM */
  const char* name;    /* field name (ATTR) */
  int64_t index;       /* element index (ARRAY_ITEM) */
  const TVMFFIAny* key; /* map key (MAP_ITEM), borrowed from the map */
} tvm_tir_path_step;

/*
 * Zero-initialise, then fill what you need. For a libtir node of kind K, pre[K] (else
 * pre_default) runs before its children and post[K] (else post_default) after them; NULL entries
 * do nothing. Objects that are not libtir nodes use the defaults. A pre callback that wants its
 * own order (e.g. to open a scope between two fields) visits the children it wants with
 * tvm_tir_visit_field and returns TVM_TIR_VISIT_SKIP.
 */
struct tvm_tir_visitor {
  tvm_tir_visit_fn pre[TVM_TIR_KIND_COUNT];
  tvm_tir_visit_fn post[TVM_TIR_KIND_COUNT];
  tvm_tir_visit_fn pre_default;
  tvm_tir_visit_fn post_default;
  void* ctx;
  /* Walk state, owned by the walk (free with tvm_tir_visitor_free). */
  tvm_tir_path_step* steps;
  int64_t depth;
  int64_t capacity;
};

/* Visit root (path "<root>") and everything below it. 0, or -1 when a callback stopped the
 * walk (its error raised) or the IR is nested deeper than TVM_FFI_STRUCTURAL_MAX_DEPTH path
 * steps (RuntimeError; the mutator has the same limit on nested nodes). */
int tvm_tir_visit(tvm_tir_visitor* v, const void* root);
/* From inside a callback: visit node (a child of the current node) at the current path
 * extended by one field step `field` ("body"). */
int tvm_tir_visit_child(tvm_tir_visitor* v, const void* node, const char* field);
/* From inside a callback: visit the children held by `field` of `node` (the current node): the
 * object, or each element of an Array / value of a Map, with their path steps. A field that is
 * NULL or not an object field is nothing to visit. */
int tvm_tir_visit_field(tvm_tir_visitor* v, const void* node, const char* field);
/* From inside a callback: visit node at the current path (no step added). */
int tvm_tir_visit_node(tvm_tir_visitor* v, const void* node);
/* The generic child walk of node (every field, in reflection order). */
int tvm_tir_visit_children(tvm_tir_visitor* v, const void* node);
/* The access path of the node being visited (a new reference), NULL + MemoryError on failure. */
void* tvm_tir_visitor_path(const tvm_tir_visitor* v);
/* Its text, "<root>.body.seq[1]...", appended to out. */
void tvm_tir_visitor_path_format(const tvm_tir_visitor* v, tvm_ffi_strbuf* out);
/* Push / pop a path step by hand (for callbacks that walk a structure themselves). -1 on OOM. */
int tvm_tir_visitor_push_attr(tvm_tir_visitor* v, const char* name);
int tvm_tir_visitor_push_item(tvm_tir_visitor* v, int64_t index);
int tvm_tir_visitor_push_key(tvm_tir_visitor* v, const TVMFFIAny* key); /* key kept borrowed */
void tvm_tir_visitor_pop(tvm_tir_visitor* v);
/* Release the walk state (the visitor may be reused afterwards). */
void tvm_tir_visitor_free(tvm_tir_visitor* v);

/* ---- Mutator ------------------------------------------------------------------------------- */
typedef struct tvm_tir_mutator tvm_tir_mutator;
/* Returns a new reference to the replacement of node (node itself, retained, for no change), or
 * NULL with an error raised. */
typedef void* (*tvm_tir_mutate_fn)(tvm_tir_mutator* m, const void* node);

/*
 * For a libtir node of kind K: pre[K] (else pre_default), when set, replaces the whole default
 * processing of the node (it may call tvm_tir_mutate_children itself); otherwise the children
 * are mutated (tvm_tir_mutate_children) and post[K] (else post_default), when set, is applied
 * to the result. Non-libtir objects (strings, ...) are returned unchanged.
 */
struct tvm_tir_mutator {
  tvm_tir_mutate_fn pre[TVM_TIR_KIND_COUNT];
  tvm_tir_mutate_fn post[TVM_TIR_KIND_COUNT];
  tvm_tir_mutate_fn pre_default;
  tvm_tir_mutate_fn post_default;
  void* ctx;
  int64_t depth; /* nesting of tvm_tir_mutate calls (walk state; leave 0) */
};

/* The mutated node (a new reference; node itself when nothing changed), or NULL + error. */
void* tvm_tir_mutate(tvm_tir_mutator* m, const void* node);
/*
 * Mutate each child of node (object fields, Any fields, Array elements, Map values) with
 * tvm_tir_mutate. When no child changed, returns node itself (retained). Otherwise returns a
 * copy of node (same type, every field copied and retained) with the changed children replaced,
 * and arrays/maps rebuilt only where an element changed.
 *
 * The copy is raw: the node constructors' typing rules are NOT re-run, so a mutation that
 * changes a child's dtype (say, an int32 operand replaced by an int64 one) produces a node the
 * constructors would have rejected. Callbacks that change types should rebuild through the
 * constructors or the tvm/tir/op.h helpers instead.
 */
void* tvm_tir_mutate_children(tvm_tir_mutator* m, const void* node);

/* ---- Substitution ---------------------------------------------------------------------------- */
/*
 * Substitution of Vars and Buffers, memoised so that every use of a Buffer maps to the same new
 * Buffer object: Vars set with tvm_tir_subst_set_var are replaced by their values (in buffer
 * fields too), Buffers set with tvm_tir_subst_set_buffer by theirs, and any other Buffer has its
 * fields substituted (once). With rename, every binding site (For, Let, LetStmt, Allocate) gets
 * a fresh Var, so a body copied twice into one function stays in SSA form. One context per
 * copy; the mutator `m` may be given more callbacks before applying.
 */
typedef struct tvm_tir_subst {
  tvm_tir_mutator m; /* first: callbacks get &m */
  void* vars;        /* ffi.Dict Var -> PrimExpr */
  void* buffers;     /* ffi.Dict Buffer -> Buffer */
  bool rename;
} tvm_tir_subst;
/* 0, or -1 with a MemoryError. */
int tvm_tir_subst_init(tvm_tir_subst* s, bool rename);
void tvm_tir_subst_free(tvm_tir_subst* s);
/* 0, or -1 with an error. */
int tvm_tir_subst_set_var(tvm_tir_subst* s, const void* var, const void* value);
int tvm_tir_subst_set_buffer(tvm_tir_subst* s, const void* old_buffer, const void* new_buffer);
/* The substituted node (a new reference) or NULL + error. */
void* tvm_tir_subst_apply(tvm_tir_subst* s, const void* node);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_TIR_VISIT_H_ */

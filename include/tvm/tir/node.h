/*
 * tvm/tir/node.h: what every libtir IR node shares: the node kinds (from nodes.def), type
 * indices, the base object structs, the typing-rule list (rules.def), and array helpers.
 *
 * Every IR node is an FFI object (tvm/ffi/ffi.h) registered with reflection: its fields are
 * listed with their flags, and structural equality/hash, JSON serialization and destruction are
 * the generic reflection-driven ones of libtvmffi. Nodes are immutable after construction.
 *
 * Layout: a node struct starts with its parent's struct, so a pointer to any expression is a
 * pointer to its tvm_tir_expr_obj, and so on:
 *
 *   tvm_tir_var_obj* v = ...;        tvm_tir_expr_obj* e = &v->expr;   (or (tvm_tir_expr_obj*)v)
 *   if (tvm_tir_kind_of(e) == TVM_TIR_KIND_Var) v = (tvm_tir_var_obj*)e;
 *
 * Object-valued fields hold one reference each. Array fields are ffi.Array objects of the named
 * element type and are never NULL (empty arrays are shared); Map fields are ffi.Map objects,
 * never NULL. Fields documented "optional" may be NULL. Strings are ffi.String objects.
 *
 * Per-kind behaviour elsewhere (printers, visitors, the interpreter) should dispatch through
 * tables indexed by tvm_tir_kind_of(obj), filled in the file that implements it.
 */
#ifndef TVM_TIR_NODE_H_
#define TVM_TIR_NODE_H_

#include <stdbool.h>
#include <stdint.h>
#include <tvm/ffi/ffi.h>
#include <tvm/tir/dtype.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* "MAJOR.MINOR.PATCH" of libtir (libtir/VERSION). */
const char* tvm_tir_version(void);

/* Registers libtir's types and builtin ops, and ffi.Tensor's JSON hooks (a tensor serializes
 * with tvm_ffi_json_save as {"type": "ffi.Tensor", "data": "<base64 of its dmlc NDArray
 * record>"}, as upstream's IR layer writes it; tensor_json.c). Idempotent and thread-safe; it
 * also runs at load time and every constructor calls it, so callers rarely need to. */
void tvm_tir_init(void);

/* ---- Node kinds ---------------------------------------------------------------------------- */
typedef enum {
  TVM_TIR_KIND_NONE = -1, /* not a libtir node */
#define TVM_TIR_NODE(Name, type_key, Parent, c_struct, seq_kind, fields) TVM_TIR_KIND_##Name,
#include <tvm/tir/nodes.def>
  TVM_TIR_KIND_COUNT
} tvm_tir_kind;

/* Struct tags of every kind (C11 allows the repeated identical typedefs). */
#define TVM_TIR_NODE(Name, type_key, Parent, c_struct, seq_kind, fields) \
  typedef struct c_struct c_struct;
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) \
  typedef struct tvm_tir_binary_obj tvm_tir_binary_obj;
#include <tvm/tir/nodes.def>

/* The registered type index of a kind. */
int32_t tvm_tir_type_index(tvm_tir_kind kind);
/* The exact kind of an object (TVM_TIR_KIND_NONE for NULL or a non-libtir object); constant
 * time (a table indexed by type index). */
tvm_tir_kind tvm_tir_kind_of(const void* obj);
/* "Add", "PrimFunc", ... / "ir.Add"-style type key of a kind. */
const char* tvm_tir_kind_name(tvm_tir_kind kind);
const char* tvm_tir_kind_type_key(tvm_tir_kind kind);
/* Whether obj is an instance of kind or of a kind derived from it (e.g. PrimExpr, Stmt, Var). */
bool tvm_tir_is(const void* obj, tvm_tir_kind kind);
static inline bool tvm_tir_is_expr(const void* obj) {
  return tvm_tir_is(obj, TVM_TIR_KIND_PrimExpr);
}
static inline bool tvm_tir_is_stmt(const void* obj) { return tvm_tir_is(obj, TVM_TIR_KIND_Stmt); }
static inline bool tvm_tir_is_type(const void* obj) { return tvm_tir_is(obj, TVM_TIR_KIND_Type); }
/* Var or SizeVar. */
static inline bool tvm_tir_is_var(const void* obj) { return tvm_tir_is(obj, TVM_TIR_KIND_Var); }

/* ---- Typing rules -------------------------------------------------------------------------- */
typedef enum {
#define TVM_TIR_RULE(Id, name, spec_ref) TVM_TIR_RULE_##Id,
#include <tvm/tir/rules.def>
  TVM_TIR_RULE_COUNT
} tvm_tir_rule;
/* "T-BINOP" and "E13" (see rules.def). */
const char* tvm_tir_rule_name(tvm_tir_rule rule);
const char* tvm_tir_rule_spec_ref(tvm_tir_rule rule);

/* ---- Base structs -------------------------------------------------------------------------- */
/* ir.BaseExpr: any expression. span: optional source location object (ignored by equality). */
struct tvm_tir_base_expr_obj {
  TVMFFIObject header;
  void* span;
};
/* ir.PrimExpr: an expression with a datatype (every TIR expression). */
struct tvm_tir_expr_obj {
  TVMFFIObject header;
  void* span;
  DLDataType dtype;
};
/* ir.RelaxExpr: module-level expressions (GlobalVar, Op, functions). struct_info_ is for Relax
 * (optional, compared by structural equality); libtir leaves it NULL. */
struct tvm_tir_relax_expr_obj {
  TVMFFIObject header;
  void* span;
  void* struct_info_;
};
/* ir.BaseFunc: a function of an IRModule. attrs: ffi.Map<String, Any> (spec: Attrs). */
struct tvm_tir_base_func_obj {
  tvm_tir_relax_expr_obj relax;
  void* attrs;
};
/* ir.Type: PrimType, PointerType, TupleType. */
struct tvm_tir_type_obj {
  TVMFFIObject header;
  void* span;
};
/* tir.Stmt: every statement. */
struct tvm_tir_stmt_obj {
  TVMFFIObject header;
  void* span;
};

/* Datatype of an expression. */
static inline DLDataType tvm_tir_expr_dtype(const void* expr) {
  return ((const tvm_tir_expr_obj*)expr)->dtype;
}

/* ---- Array / map helpers ------------------------------------------------------------------- */
/* Number of elements of an ffi.Array field, and element i as an object (borrowed). */
static inline int64_t tvm_tir_array_size(const void* array) { return tvm_ffi_seq_size(array); }
static inline void* tvm_tir_array_at(const void* array, int64_t i) {
  return tvm_ffi_seq_obj_at(array, i);
}
/* (New arrays of objects: tvm_ffi_array_of_objects in tvm/ffi/ffi.h.) */

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_TIR_NODE_H_ */

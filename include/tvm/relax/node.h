/*
 * tvm/relax/node.h: what every librelax node shares: the node kinds (from nodes.def), type
 * indices and kind queries, the base structs, and librelax's initialisation.
 *
 * Relax nodes are FFI objects registered with reflection, like libtir's (tvm/tir/node.h):
 * structural equality/hash, JSON and destruction are libtvmffi's generic ones. Nodes are
 * immutable after construction; constructors take borrowed arguments and return new references
 * (NULL + error raised on failure).
 *
 * Layout: a node struct starts with its parent's struct. Expressions start with libtir's
 * tvm_tir_relax_expr_obj {header, span, struct_info_}; functions with tvm_tir_base_func_obj.
 */
#ifndef TVM_RELAX_NODE_H_
#define TVM_RELAX_NODE_H_

#include <stdbool.h>
#include <stdint.h>
#include <tvm/ffi/ffi.h>
#include <tvm/tir/node.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* "MAJOR.MINOR.PATCH" of librelax (librelax/VERSION). */
const char* tvm_relax_version(void);

/* Registers librelax's types and operators. Idempotent and thread-safe; it also runs at load
 * time and every constructor calls it. */
void tvm_relax_init(void);

typedef enum {
  TVM_RELAX_KIND_NONE = -1, /* not a librelax node */
#define TVM_RELAX_NODE(Name, type_key, Parent, c_struct, seq_kind, fields) TVM_RELAX_KIND_##Name,
#include <tvm/relax/nodes.def>
  TVM_RELAX_KIND_COUNT
} tvm_relax_kind;

#define TVM_RELAX_NODE(Name, type_key, Parent, c_struct, seq_kind, fields) \
  typedef struct c_struct c_struct;
#include <tvm/relax/nodes.def>

/* The registered type index of a kind. */
int32_t tvm_relax_type_index(tvm_relax_kind kind);
/* The exact kind of an object (TVM_RELAX_KIND_NONE for NULL or a non-librelax object). */
tvm_relax_kind tvm_relax_kind_of(const void* obj);
/* "Call", ... / "relax.expr.Call", ... */
const char* tvm_relax_kind_name(tvm_relax_kind kind);
const char* tvm_relax_kind_type_key(tvm_relax_kind kind);
/* Whether obj is of kind or of a kind derived from it (StructInfo, Binding, Var, ...). */
bool tvm_relax_is(const void* obj, tvm_relax_kind kind);
static inline bool tvm_relax_is_sinfo(const void* obj) {
  return tvm_relax_is(obj, TVM_RELAX_KIND_StructInfo);
}
/* Var or DataflowVar. */
static inline bool tvm_relax_is_var(const void* obj) { return tvm_relax_is(obj, TVM_RELAX_KIND_Var); }
/* Any Relax expression: an ir.RelaxExpr (librelax's expressions, GlobalVar, Op, PrimFunc). */
bool tvm_relax_is_expr(const void* obj);

/* ir.StructInfo: the base of every struct info. */
struct tvm_relax_sinfo_obj {
  TVMFFIObject header;
  void* span; /* optional, ignored by equality */
};

/* The struct info of a Relax expression (borrowed; NULL when it has none, e.g. an Op). */
static inline tvm_relax_sinfo_obj* tvm_relax_sinfo_of(const void* expr) {
  return (tvm_relax_sinfo_obj*)((const tvm_tir_relax_expr_obj*)expr)->struct_info_;
}

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* TVM_RELAX_NODE_H_ */

/*
 * tvm-private/tir.h: libtir's internals that the other libraries of this project call.
 *
 * Not installed (include-private/ is on the include path of the suite's libraries and tests
 * only). The `_typed` constructors are the public ones of include/tvm/tir/ for a caller that
 * already knows each argument's kind: they skip those kind tests and make every other check,
 * with the same errors. Debug builds (without NDEBUG) assert the caller's promise.
 */
#ifndef TVM_PRIVATE_TIR_H_
#define TVM_PRIVATE_TIR_H_

#include <tvm/tir/expr.h>
#include <tvm/tir/stmt.h>

#ifdef __cplusplus
extern "C" {
#endif

/* tvm_tir_buffer_load_new. Promise: buffer a Buffer, indices an ffi.Array of PrimExprs or NULL
 * (borrowed). The index count and dtype checks are made. For the IR builder and the parser. */
tvm_tir_expr_obj* tvm_tir__buffer_load_new_typed(tvm_tir_buffer_obj* buffer, void* indices);
/* tvm_tir_buffer_store_new. Promise: buffer a Buffer, value a PrimExpr, indices an ffi.Array of
 * PrimExprs or NULL. The index and dtype checks are made. */
tvm_tir_stmt_obj* tvm_tir__buffer_store_new_typed(tvm_tir_buffer_obj* buffer,
                                                  tvm_tir_expr_obj* value, void* indices);
/* tvm_tir_seq_stmt_new. Promise: seq an ffi.Array of Stmts (borrowed). */
tvm_tir_stmt_obj* tvm_tir__seq_stmt_new_typed(void* seq);
/* tvm_tir_for_new. Promise: loop_var a Var, min and extent PrimExprs, body a Stmt,
 * thread_binding an IterVar or NULL. Every other check is made. */
tvm_tir_stmt_obj* tvm_tir__for_new_typed(tvm_tir_var_obj* loop_var, tvm_tir_expr_obj* min,
                                         tvm_tir_expr_obj* extent, tvm_tir_for_kind kind,
                                         tvm_tir_stmt_obj* body,
                                         tvm_tir_iter_var_obj* thread_binding, void* annotations);

/* T.allocate_const: an Allocate whose annotations hold its constant contents under this key,
 * an ffi.Array of IntImm / FloatImm of its dtype, one per element in row-major order (upstream
 * has a node of its own, tir.AllocateConst; see allocate_const.c). */
#define TVM_TIR__ALLOCATE_CONST_KEY "tir.allocate_const_data"
/* The contents of Allocate a: 0 with *out the Array (borrowed) or NULL for a plain Allocate;
 * -1 (TypeError / ValueError naming the buffer) when the annotation is malformed: not an Array,
 * a dtype other than int/uint 8-64 or float 16-64 of one lane, extents that are not constants,
 * a count that differs from the extents' product, an element not a constant of the dtype. */
int tvm_tir__allocate_const_data(const tvm_tir_allocate_obj* a, const void** out);
/* The same for the fields of an Allocate not built yet (name: its buffer var's, for messages). */
int tvm_tir__allocate_const_check(const char* name, DLDataType dtype, const void* extents,
                                  const void* annotations, const void** out);

/* ---- The per-kind tables of libtir, for the test that every node kind has its row in each
 * table that needs one (tests/codegen/test_node_tables.c). */
/* Whether the reference interpreter has a rule for the kind: evaluating a PrimExpr of it
 * (interp_expr.c), executing a Stmt of it (interp_stmt.c). */
bool tvm_tir__interp_expr_rule(tvm_tir_kind kind);
bool tvm_tir__interp_stmt_rule(tvm_tir_kind kind);
/* Whether the well-formedness checker has a rule of its own for the kind (wellformed.c: the
 * binding sites and the nodes whose fields are no uses); every other kind gets the generic walk
 * of its children. */
bool tvm_tir__wf_rule(tvm_tir_kind kind);
/* GPU thread tags (thread_tag.c). The axis of a tag: blockIdx.x/y/z = 0..2, threadIdx.x/y/z =
 * 3..5, vthread (any "vthread", "vthread.<s>", "cthread") = VTHREAD, anything else NONE. */
enum {
  TVM_TIR_THREAD_TAG_NONE = -1,
  TVM_TIR_THREAD_TAG_BLOCK_X = 0,
  TVM_TIR_THREAD_TAG_THREAD_X = 3,
  TVM_TIR_THREAD_TAG_VTHREAD = 6
};
int tvm_tir__thread_tag_axis(const char* tag);
/* "blockIdx.x" ... "threadIdx.z" for axes 0..5, "vthread", else "". */
const char* tvm_tir__thread_tag_name(int axis);
/* The thread tag launched by stmt: an AttrStmt "thread_extent" / "virtual_thread" (its
 * IterVar's tag, "" for a plain Var node) or a For of kind thread_binding (its IterVar's tag);
 * NULL for any other statement. *out_var (optional) is the variable bound. */
const char* tvm_tir__launch_tag(const void* stmt, const tvm_tir_var_obj** out_var);
/* Whether stmt is a barrier: Evaluate(T.tvm_storage_sync(...)). */
bool tvm_tir__stmt_is_barrier(const void* stmt);

/* The fields T.tvm_struct_get / T.tvm_struct_set name (struct_field.c), numbered as upstream's
 * TVMStructFieldKind (include/tvm/tir/builtin.h): DLTensor fields 0..10 (0 the DLTensor's own
 * address), TVMFFIAny fields 12..15, 17 an element of an int64 array; `index` counts structures
 * of `stride` bytes from the handle. */
enum {
  TVM_TIR_STRUCT_ADDR = 0,
  TVM_TIR_STRUCT_VALUE_CONTENT = 12, /* the TVMFFIAny's value, read as the call's dtype */
};
typedef struct {
  const char* name;  /* "shape", "ndim", ... for messages */
  int32_t stride;    /* bytes of one structure */
  int32_t offset;    /* of the field in it */
  DLDataType dtype;  /* the field's type (handle for a pointer); lanes 0: the call's dtype */
} tvm_tir_struct_field;
/* The field of `kind`, or NULL when the kind names none. */
const tvm_tir_struct_field* tvm_tir__struct_field(int64_t kind);
/* Whether a value of dtype t reads or writes field f: any integer width for an integer field, a
 * handle for a pointer, an int64, float64 or handle for a TVMFFIAny's value. */
bool tvm_tir__struct_field_accepts(const tvm_tir_struct_field* f, DLDataType t);
/* "an integer", "a pointer (handle)", ... for messages. */
const char* tvm_tir__struct_field_type_text(const tvm_tir_struct_field* f);

#ifdef __cplusplus
}
#endif
#endif /* TVM_PRIVATE_TIR_H_ */

/*
 * tvm/tir/builder.h: constructing IR by hand, tersely.
 *
 *   tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 128);
 *   tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 128);
 *   tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
 *   // B[i] = A[i] * 2 + 1
 *   void* store = tvm_tir_store_take(tvm_tir_ref(B),
 *       tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_load_take(tvm_tir_ref(A), tvm_tir_ref(i)),
 *                                         tvm_tir_f32(2)),
 *                        tvm_tir_f32(1)),
 *       tvm_tir_ref(i));
 *   void* loop = tvm_tir_serial_take(i, tvm_tir_int(0), tvm_tir_int(128), store);
 *   tvm_tir_prim_func_obj* f = tvm_tir_func_take("add_one", tvm_tir_list_take(A, B), loop);
 *
 * Ownership: a function ending in _take consumes every object argument (releases it), whether
 * it succeeds or fails, so calls nest without temporaries. Wrap an object you keep using (a
 * Var used in several places, a Buffer) in tvm_tir_ref(obj), which adds the reference the
 * callee consumes. Results are new references.
 *
 * Errors propagate: when an argument is NULL because the call that produced it failed, or
 * whenever an error is raised on entry, a builder function releases its arguments and returns
 * NULL, leaving the first error raised; so one check at the end of a nested expression is
 * enough. (Consequently an unrelated error left raised makes builder calls return NULL.)
 * Arguments documented "optional" may be NULL.
 *
 * Object parameters are void* so that any node passes without casts (a Var where a PrimExpr is
 * expected); the node constructors check the actual types and raise TypeError. Expression
 * helpers are those of tvm/tir/op.h: literals convert to the other operand's type and
 * constants fold.
 */
#ifndef TVM_TIR_BUILDER_H_
#define TVM_TIR_BUILDER_H_

#include <tvm/tir/buffer.h>
#include <tvm/tir/expr.h>
#include <tvm/tir/function.h>
#include <tvm/tir/node.h>
#include <tvm/tir/op.h>
#include <tvm/tir/stmt.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* A new reference to obj (NULL-safe), for passing an object you keep to a _take function. */
static inline void* tvm_tir_ref(void* obj) {
  tvm_ffi_retain(obj);
  return obj;
}

/* The number of arguments of a variadic builder macro (they are not evaluated here). */
#define TVM_TIR_NARGS(...) ((int64_t)(sizeof((void*[]){__VA_ARGS__}) / sizeof(void*)))

/* ---- Variables and literals ---------------------------------------------------------------- */
tvm_tir_var_obj* tvm_tir_var(const char* name, DLDataType dtype);
/* A handle Var annotated PointerType(PrimType(element), scope); scope NULL = global. */
tvm_tir_var_obj* tvm_tir_ptr_var(const char* name, DLDataType element, const char* scope);
/* tvm_tir_var / tvm_tir_ptr_var with the name given as an ffi.String object (borrowed, shared by
 * the Var). */
tvm_tir_var_obj* tvm_tir_var_str(void* name, DLDataType dtype);
tvm_tir_var_obj* tvm_tir_ptr_var_str(void* name, DLDataType element, const char* scope);
tvm_tir_expr_obj* tvm_tir_int(int64_t v); /* int32 (TypeError if out of range) */
tvm_tir_expr_obj* tvm_tir_i64(int64_t v); /* int64 */
tvm_tir_expr_obj* tvm_tir_f32(double v);  /* float32 */
tvm_tir_expr_obj* tvm_tir_f64(double v);  /* float64 */
tvm_tir_expr_obj* tvm_tir_bool(bool v);   /* bool (uint1) */
tvm_tir_expr_obj* tvm_tir_const(DLDataType dtype, int64_t v); /* tvm_tir_const_int */
tvm_tir_expr_obj* tvm_tir_str(const char* s);                 /* StringImm of a C string */

/* ---- Expressions (consume their arguments) ------------------------------------------------- */
tvm_tir_expr_obj* tvm_tir_binary_take(tvm_tir_kind kind, void* a, void* b);
tvm_tir_expr_obj* tvm_tir_add_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_sub_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_mul_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_div_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_mod_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_floordiv_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_floormod_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_min_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_max_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_eq_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_ne_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_lt_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_le_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_gt_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_ge_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_and_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_or_take(void* a, void* b);
tvm_tir_expr_obj* tvm_tir_not_take(void* a);
tvm_tir_expr_obj* tvm_tir_neg_take(void* a);
tvm_tir_expr_obj* tvm_tir_cast_take(DLDataType dtype, void* value);
tvm_tir_expr_obj* tvm_tir_select_take(void* condition, void* true_value, void* false_value);
tvm_tir_expr_obj* tvm_tir_let_take(void* var, void* value, void* body);
tvm_tir_expr_obj* tvm_tir_ramp_take(void* base, void* stride, int32_t lanes);
tvm_tir_expr_obj* tvm_tir_broadcast_take(void* value, int32_t lanes);

/* buffer[indices...] */
tvm_tir_expr_obj* tvm_tir_load_takev(void* buffer, int64_t n, void* const* indices);
#define tvm_tir_load_take(buffer, ...) \
  tvm_tir_load_takev((buffer), TVM_TIR_NARGS(__VA_ARGS__), (void*[]){__VA_ARGS__})
/* A call of the op named op_name ("tir.exp", ...) / of a GlobalVar (another PrimFunc). */
tvm_tir_expr_obj* tvm_tir_call_takev(DLDataType dtype, const char* op_name, int64_t n,
                                     void* const* args);
#define tvm_tir_call_take(dtype, op_name, ...) \
  tvm_tir_call_takev((dtype), (op_name), TVM_TIR_NARGS(__VA_ARGS__), (void*[]){__VA_ARGS__})
tvm_tir_expr_obj* tvm_tir_call_global_takev(DLDataType dtype, void* global_var, int64_t n,
                                            void* const* args);

/* ---- Arrays -------------------------------------------------------------------------------- */
/* An ffi.Array of the objects (consumed). Where a builder function takes an array, NULL means
 * empty. */
void* tvm_tir_list_takev(int64_t n, void* const* objs);
#define tvm_tir_list_take(...) \
  tvm_tir_list_takev(TVM_TIR_NARGS(__VA_ARGS__), (void*[]){__VA_ARGS__})

/* ---- Buffers and regions ------------------------------------------------------------------- */
/* A global-scope buffer of constant shape (dims as int64; int32 IntImms when they all fit). */
tvm_tir_buffer_obj* tvm_tir_buffer_declv(const char* name, DLDataType dtype, int64_t ndim,
                                         const int64_t* shape);
#define tvm_tir_buffer_decl(name, dtype, ...)                                         \
  tvm_tir_buffer_declv((name), (dtype),                                               \
                       (int64_t)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), \
                       (int64_t[]){__VA_ARGS__})
/* A buffer of symbolic shape (PrimExprs, consumed) in scope (NULL = global). */
tvm_tir_buffer_obj* tvm_tir_buffer_decl_takev(const char* name, DLDataType dtype, int64_t ndim,
                                              void* const* shape, const char* scope);
tvm_tir_range_obj* tvm_tir_range_take(void* min, void* extent);
/* buffer[ranges...] as a BufferRegion (ranges consumed). */
tvm_tir_buffer_region_obj* tvm_tir_region_takev(void* buffer, int64_t n, void* const* ranges);
#define tvm_tir_region_take(buffer, ...) \
  tvm_tir_region_takev((buffer), TVM_TIR_NARGS(__VA_ARGS__), (void*[]){__VA_ARGS__})
/* IterVar var over [min, min + extent). */
tvm_tir_iter_var_obj* tvm_tir_iter_var_take(void* var, void* min, void* extent,
                                            tvm_tir_iter_var_type iter_type);

/* ---- Statements (consume their arguments) -------------------------------------------------- */
/* buffer[indices...] = value */
tvm_tir_stmt_obj* tvm_tir_store_takev(void* buffer, void* value, int64_t n, void* const* indices);
#define tvm_tir_store_take(buffer, value, ...) \
  tvm_tir_store_takev((buffer), (value), TVM_TIR_NARGS(__VA_ARGS__), (void*[]){__VA_ARGS__})
/* A flat sequence: nested SeqStmts are spliced in; one statement is returned as is; none gives
 * Evaluate(0). */
tvm_tir_stmt_obj* tvm_tir_seq_takev(int64_t n, void* const* stmts);
#define tvm_tir_seq_take(...) tvm_tir_seq_takev(TVM_TIR_NARGS(__VA_ARGS__), (void*[]){__VA_ARGS__})
tvm_tir_stmt_obj* tvm_tir_evaluate_take(void* value);
tvm_tir_stmt_obj* tvm_tir_for_take(void* loop_var, void* min, void* extent, tvm_tir_for_kind kind,
                                   void* body);
tvm_tir_stmt_obj* tvm_tir_serial_take(void* loop_var, void* min, void* extent, void* body);
/* else_case optional. */
tvm_tir_stmt_obj* tvm_tir_if_take(void* condition, void* then_case, void* else_case);
tvm_tir_stmt_obj* tvm_tir_while_take(void* condition, void* body);
tvm_tir_stmt_obj* tvm_tir_let_stmt_take(void* var, void* value, void* body);
tvm_tir_stmt_obj* tvm_tir_assert_take(void* condition, const char* message, void* body);
/* node optional (None). */
tvm_tir_stmt_obj* tvm_tir_attr_take(void* node, const char* key, void* value, void* body);
tvm_tir_stmt_obj* tvm_tir_decl_buffer_take(void* buffer, void* body);
/* Allocate a buffer of extents (PrimExprs, consumed) pointed to by buffer_var. */
tvm_tir_stmt_obj* tvm_tir_allocate_takev(void* buffer_var, DLDataType dtype, int64_t n,
                                         void* const* extents, void* body);
/* SBlockRealize(iter_values, true, SBlock(name, iter_vars, reads, writes, body)): iter_vars an
 * Array of IterVar, iter_values an Array of PrimExpr, reads/writes Arrays of BufferRegion (all
 * optional, consumed). */
tvm_tir_stmt_obj* tvm_tir_block_take(const char* name, void* iter_vars, void* iter_values,
                                     void* reads, void* writes, void* body);
/* Same with an init statement and allocated buffers (optional, consumed). */
tvm_tir_stmt_obj* tvm_tir_block_full_take(const char* name, void* iter_vars, void* iter_values,
                                          void* reads, void* writes, void* init,
                                          void* alloc_buffers, void* body);

/* ---- Functions and modules ----------------------------------------------------------------- */
/* A PrimFunc named global_symbol (NULL = no global_symbol attr). params: an Array of Var and
 * Buffer (consumed); a Buffer B becomes a handle parameter "B_handle" mapped to B in
 * buffer_map. */
tvm_tir_prim_func_obj* tvm_tir_func_take(const char* global_symbol, void* params, void* body);
/* An IRModule of the functions (consumed), each under a GlobalVar named by its global_symbol
 * (ValueError when a function has none). */
tvm_tir_ir_module_obj* tvm_tir_module_takev(int64_t n, void* const* funcs);
#define tvm_tir_module_take(...) \
  tvm_tir_module_takev(TVM_TIR_NARGS(__VA_ARGS__), (void*[]){__VA_ARGS__})

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_TIR_BUILDER_H_ */

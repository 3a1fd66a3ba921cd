/*
 * parse_internal.h: the contract between the TVMScript parser's evaluator (parse_eval.c and the
 * statement handlers) and the registries of `T.*` / `I.*` builtins implemented in C.
 *
 * Values. The evaluator works on TVMFFIAny values (owned): None, bool, int, float, ffi.String,
 * ffi.Array (tuples and lists), ffi.Map (dicts), and IR objects (PrimExpr, Var, Buffer,
 * BufferRegion, Range, IterVar, GlobalVar, Stmt, types). A subscript `A[i, j]` of a Buffer
 * evaluates to a BufferLoad when every index is a scalar, and to a BufferRegion when one is a
 * slice (`A[0:4, i]`): builtins that want regions (T.reads) convert a BufferLoad to a point
 * region with tvm_script__value_to_region.
 *
 * Builtins. Every `T.<name>` (dotted names included: "axis.remap") is one entry of a table:
 *   - expression builtins (parse_tir_builtins_expr.c): dtype constructors `T.float32(1)` /
 *     `T.int32()` (a new Var when called with no value), operators and intrinsics
 *     (`T.max`, `T.exp`, `T.Cast`, `T.if_then_else`, `T.call_extern`, ...);
 *   - statement and frame builtins (parse_tir_builtins_stmt.c): `T.sblock`, `T.init`, `T.reads`,
 *     `T.axis.*`, `T.serial`/`T.grid`/..., `T.func_attr`, `T.match_buffer`, `T.Buffer`,
 *     `T.alloc_buffer`, `T.decl_buffer`, `T.launch_thread`, `T.attr`, `T.evaluate`, ... which
 *     call the IR builder (tvm/script/ir_builder.h).
 * A builtin that opens frames (T.sblock in a `with`, T.grid in a `for`) enters them in the
 * builder and returns; the statement handler that evaluated it recorded the builder depth before
 * and closes the frames it opened after the body (tvm_script_builder_exit until the depth is
 * back). In an assignment context a frame builtin opens a rest-of-body frame instead.
 *
 * Errors. A builtin raises through the FFI error slot (TypeError, ValueError, ...) with a
 * message that does not include a location; before raising it may set call->error_arg to the
 * index of the offending argument (positional i, or num_args + k for keyword k). The evaluator
 * then re-raises the same kind with the message rendered at the span of that argument (or of
 * the whole call when error_arg < 0) by tvm_script_diag_render.
 */
#ifndef TVM_SCRIPT_PARSE_INTERNAL_H_
#define TVM_SCRIPT_PARSE_INTERNAL_H_

#include <string.h>
#include <tvm/script/ir_builder.h>
#include <tvm/script/parser.h>
#include <tvm/tir/tir.h>

#include "ir_builder_internal.h" /* tvm_script__is_expr */
#include "range_extent.h"

/* Where a call appears; frame builtins and var-creating builtins behave accordingly. */
typedef enum {
  TVM_SCRIPT_CTX_EXPR = 0, /* inside an expression */
  TVM_SCRIPT_CTX_STMT,     /* an expression statement: `T.reads(...)` */
  TVM_SCRIPT_CTX_ASSIGN,   /* the right side of `x = ...` / `a, b = ...` (targets named) */
  TVM_SCRIPT_CTX_WITH,     /* a `with` item: `with T.sblock("b"):` / `... as x` (target named) */
  TVM_SCRIPT_CTX_FOR,      /* the iterable of `for i, j in ...` (targets named) */
} tvm_script_call_ctx;

typedef struct tvm_script_call {
  tvm_script_builder* builder;
  const char* name;          /* "T.max": for messages; ends with the name looked up */
  tvm_script_call_ctx ctx;
  /* Names being bound by the statement (assignment / for / with-as targets), else 0 / NULL. */
  int32_t num_targets;
  const char* const* targets;
  int32_t num_args;
  const TVMFFIAny* args; /* borrowed */
  int32_t num_kwargs;
  const char* const* kw_names;
  const TVMFFIAny* kwargs; /* borrowed */
  int32_t error_arg;       /* set by the builtin before raising; -1 = the whole call */
  /* The dtype constructor's dtype when the caller's lookup already read it from the name
   * (tvm_script__tir_builtin_lookup_dtype); without it (false) the constructor reads it. */
  bool has_dtype;
  DLDataType dtype;
} tvm_script_call;

/* Returns 0 with *out set (a new value; None when the builtin only has a side effect), or -1
 * with an error raised. */
typedef int (*tvm_script_builtin_fn)(tvm_script_call* call, TVMFFIAny* out);

typedef struct {
  const char* name; /* without the "T." prefix: "max", "axis.remap", "float32" */
  tvm_script_builtin_fn fn;
  /* k > 0: positional argument k - 1 is a shape that the builtin first of all converts with
   * tvm_script__value_to_expr_array (T.Buffer's). A tuple or list written there whose elements
   * all convert is then evaluated to the converted Array (shared by that conversion) rather
   * than to an Array of Python numbers converted into a second one. 0: none. */
  int8_t shape_arg;
  /* T.reads / T.writes: a positional argument written A[i, j] (a Buffer's name, no slice) is
   * evaluated to the BufferRegion the builtin would make of the load (tvm_script__eval_region). */
  bool region_args;
  /* R.Tensor / R.Shape: the dims (positional argument 0 or keyword `shape` / `values`) written
   * as a tuple or list whose strings that are not names are expressions ("n * 2"): those are
   * evaluated to PrimExprs by the caller (tvm_script__relax_dim_expr); R.Prim: keyword `value`
   * written as such a string. */
  bool relax_dims;
} tvm_script_builtin;

/* The two tables (each file defines its array and count). */
extern const tvm_script_builtin tvm_script__tir_expr_builtins[];
extern const int32_t tvm_script__tir_expr_builtin_count;
extern const tvm_script_builtin tvm_script__tir_stmt_builtins[];
extern const int32_t tvm_script__tir_stmt_builtin_count;

/* The constructor of every dtype spelling (`T.float32(1.0)`, `T.int64()`, `T.bool(True)`,
 * `T.float32x4(...)`): the lookup returns it for any name tvm_script__tir_dtype_name accepts
 * that no table lists. It reads the dtype from call->name after its last '.', so call->name
 * must end with the name looked up ("T.float32"). */
extern const tvm_script_builtin tvm_script__tir_dtype_builtin;

/* What the dtype constructor makes of a Python number (int, bool, float) given as its value
 * (`T.float32(1)`, `T.int64(4)`): a constant of dtype (a new reference), or NULL with TypeError
 * (T-INTIMM / T-FLOATIMM) when it does not fit. */
tvm_tir_expr_obj* tvm_script__dtype_number(const TVMFFIAny* v, DLDataType dtype);

/* The builtin `T.<name>` (name[0..len)), or NULL (no error raised). Thread-safe; a binary search
 * over both tables (sorted once), then the dtype spellings. */
const tvm_script_builtin* tvm_script__tir_builtin_lookup(const char* name, size_t len);
/* The same; for a dtype spelling also *dtype (and *is_dtype true, else false). */
const tvm_script_builtin* tvm_script__tir_builtin_lookup_dtype(const char* name, size_t len,
                                                               DLDataType* dtype, bool* is_dtype);
/* Whether `name` is a TIR dtype spelling usable as `T.<name>` ("float32", "int8x4", "handle",
 * "bool", ...); *out_dtype gets it. */
bool tvm_script__tir_dtype_name(const char* name, size_t len, DLDataType* out_dtype);

/* ---- Argument binding (parse_builtin_args.c) ------------------------------------------------- */
/*
 * Bind the call's arguments to a Python-like signature: spec is a comma-separated list of
 * parameter names, a trailing '=' marks an optional one ("extent, binding, dtype="), a leading
 * '*' a keyword-only one. out[i] receives a borrowed view of parameter i, or type_index
 * TVM_SCRIPT_ARG_ABSENT when an optional parameter is absent (test with tvm_script_arg_given).
 * Raises TypeError like Python: "T.axis.spatial() takes at most 3 arguments (4 given)",
 * "T.axis.spatial() missing required argument 'binding'", "T.axis.spatial() got an unexpected
 * keyword argument 'x'", "... got multiple values for argument 'dom'" (setting error_arg).
 * n_out must equal the number of parameters in spec. spec must be a string literal (or have
 * static storage and never change): its parsed form is remembered by address.
 */
#define TVM_SCRIPT_ARG_ABSENT (-1)
int tvm_script__bind_args(tvm_script_call* call, const char* spec, TVMFFIAny* out, int n_out);
static inline bool tvm_script_arg_given(const TVMFFIAny* v) {
  return v->type_index != TVM_SCRIPT_ARG_ABSENT;
}
/* Whether v is a string (a Python str value: small, heap or raw). */
/* -x of a PrimExpr as upstream's parser evaluates it (PrimExpr.__neg__): x * -1 in x's type,
 * folded for a constant; an unsigned or bool x (no -1 of its type) keeps libtir's 0 - x. NULL
 * with an error raised. */
tvm_tir_expr_obj* tvm_script__tir_negate(tvm_tir_expr_obj* x);
static inline bool tvm_script__is_str(const TVMFFIAny* v) {
  return v->type_index == kTVMFFISmallStr || v->type_index == kTVMFFIStr ||
         v->type_index == kTVMFFIRawStr;
}
/* For messages after a successful bind: the error_arg index of parameter `param` of spec in
 * this call (its positional index, or num_args + k for keyword k; -1 when not given), and
 * "argument 'extent' of T.serial" written into buf (returned). */
int32_t tvm_script__arg_index(const tvm_script_call* call, const char* spec, int param);
/* The same for the parameter named name[0..len): spec's of that name, else (a form whose spec
 * is not the operator's own) the keyword argument of that name; -1 when neither is given. */
int32_t tvm_script__arg_index_named(const tvm_script_call* call, const char* spec,
                                    const char* name, size_t len);
const char* tvm_script__arg_what(const tvm_script_call* call, const char* spec, int param,
                                 char* buf, size_t size);
/* "argument '<param>' of <call_name>" written into buf (returned), cut to size as snprintf cuts:
 * the label a converted argument's messages name, written for every such argument, so built
 * by copying rather than through a format. */
const char* tvm_script__arg_label(char* buf, size_t size, const char* param, size_t param_len,
                                  const char* call_name);

/* Conversions of argument values (each raises TypeError naming `what`, e.g. "argument
 * 'extent' of T.serial", and returns -1 / NULL on mismatch; call->error_arg is left to the
 * caller). Results are new references. */
/* A PrimExpr: PrimExpr objects as they are; Python int -> int32 IntImm (int64 when it does not
 * fit); float -> float32 FloatImm; bool -> bool IntImm; string -> StringImm (as upstream
 * converts a String argument of call_extern & co). */
tvm_tir_expr_obj* tvm_script__value_to_expr_slow(const TVMFFIAny* v, const char* what);
/* tvm_script__value_to_expr_slow with its two common cases inline (a Python int, a PrimExpr). */
static inline tvm_tir_expr_obj* tvm_script__value_to_expr(const TVMFFIAny* v, const char* what) {
  if (v->type_index == kTVMFFIInt) {
    bool fits = v->v_int64 >= INT32_MIN && v->v_int64 <= INT32_MAX;
    return tvm_tir_int_imm_new(fits ? TVM_TIR_INT32 : TVM_TIR_INT64, v->v_int64);
  }
  if (tvm_ffi_any_is_object(v) && tvm_script__is_expr(v->v_obj)) {
    tvm_ffi_retain(v->v_obj);
    return (tvm_tir_expr_obj*)v->v_obj;
  }
  return tvm_script__value_to_expr_slow(v, what);
}
/* A dtype from a string ("float32"), a DataType value (kTVMFFIDataType: what a bare `T.float32`
 * should evaluate to) or a PrimType object. An unknown spelling is a ValueError. */
int tvm_script__value_to_dtype(const TVMFFIAny* v, const char* what, DLDataType* out);
/* A borrowed C string of a string value (ffi.String, small or raw string) or StringImm. For a
 * small string it points into *v itself: valid while that TVMFFIAny lives. */
const char* tvm_script__value_to_cstr(const TVMFFIAny* v, const char* what);
/* An int (Python int or bool, or an IntImm). */
int tvm_script__value_to_int(const TVMFFIAny* v, const char* what, int64_t* out);
/* A new ffi.Array of PrimExpr from a tuple / list / single value (shape-like), each element
 * converted by tvm_script__value_to_expr_slow. */
void* tvm_script__value_to_expr_array(const TVMFFIAny* v, const char* what);
/* A BufferRegion used as a value (`B[0:4] = A[0:4] + 1`, as upstream reads it): the BufferLoad
 * of its elements, a Ramp over its one axis of constant extent > 1 and the min of the others.
 * NULL + TypeError for other regions. (parse_subscript.c) */
tvm_tir_expr_obj* tvm_script__region_as_load(const tvm_tir_buffer_region_obj* r);
/* A BufferRegion from a BufferRegion or BufferLoad (point region; a Ramp index of constant
 * stride covers its lanes) or Buffer (full region). */
tvm_tir_buffer_region_obj* tvm_script__value_to_region(const TVMFFIAny* v, const char* what);
/* The region a BufferLoad buffer[indices[0, n)] reads, as tvm_script__value_to_region makes it
 * of the load: one Range per index (a Ramp of constant positive stride covers its lanes). The
 * indices are PrimExprs that passed tvm_tir_buffer_load_check. */
tvm_tir_buffer_region_obj* tvm_script__load_region(tvm_tir_buffer_obj* buffer,
                                                   const TVMFFIAny* indices, int64_t n);
/* The two above for positional argument nth (1-based) of call: `what` is "argument <nth> of
 * <call->name>", written only when a message needs it (most arguments convert). */
tvm_tir_expr_obj* tvm_script__arg_to_expr(const tvm_script_call* call, const TVMFFIAny* v,
                                          int64_t nth);
tvm_tir_buffer_region_obj* tvm_script__arg_to_region(const tvm_script_call* call,
                                                     const TVMFFIAny* v, int64_t nth);

/* ---- Arrays of a known size ------------------------------------------------------------------ */
/* The items of an ffi.Array being built (on the stack when few), moved into it once by
 * tvm_ffi_array_new_take: no ffi.List to fill and then copy. */
typedef struct {
  TVMFFIAny* items;
  int64_t n;
  TVMFFIAny stack[8];
} tvm_script_items;

/* Room for cap items; false (MemoryError raised) on failure. */
static inline bool tvm_script_items_init(tvm_script_items* it, int64_t cap) {
  it->n = 0;
  it->items = cap <= 8 ? it->stack : (TVMFFIAny*)tvm_ffi_calloc((size_t)cap, sizeof(TVMFFIAny));
  return it->items != NULL;
}
/* Append an owned object (moved in). */
static inline void tvm_script_items_push(tvm_script_items* it, void* obj) {
  it->items[it->n++] = tvm_ffi_any_obj(obj);
}
/* The Array of the items (moved out: they are None afterwards, even on failure), or NULL. */
static inline void* tvm_script_items_to_array(tvm_script_items* it) {
  return tvm_ffi_array_new_take(it->items, it->n);
}
/* Release what was not moved out, and the storage. */
static inline void tvm_script_items_free(tvm_script_items* it) {
  for (int64_t i = 0; i < it->n; ++i) tvm_ffi_any_release(&it->items[i]);
  if (it->items != it->stack) tvm_ffi_free(it->items);
}

#endif /* TVM_SCRIPT_PARSE_INTERNAL_H_ */

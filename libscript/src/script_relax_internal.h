/*
 * script_relax_internal.h: what the Relax dialect of the parser shares between the IR builder's
 * Relax frames (ir_builder_relax.c), the `R.*` builtins (parse_relax_builtins*.c) and the
 * statement handlers: the builtin lookup, the conversion of evaluated values to Relax
 * expressions and struct info, and the value `R.match_cast(...)` evaluates to.
 *
 * Every `R.<name>` is a tvm_script_builtin (parse_internal.h) called with evaluated arguments:
 *   - an operator of librelax's table (tvm/relax/ops.def) for each row, `R.add`, `R.nn.conv2d`,
 *     `R.memory.alloc_storage`: its arguments, then its attributes, positionally or by keyword
 *     (upstream's Python order), attributes defaulting from the schema; the Call is made by
 *     librelax's inferring constructor (parse_relax_builtins_ops.c);
 *   - the call forms R.call_tir / call_tir_inplace / call_dps_packed / call_packed /
 *     call_pure_packed / invoke_closure, and values R.const / prim_value / str / dtype / shape /
 *     tuple / ExternFunc / match_cast (parse_relax_builtins_ops.c);
 *   - struct info R.Tensor / Tuple / Shape / Prim / Object / Any / Callable and the frame and
 *     statement builtins R.dataflow / output / func_attr (parse_relax_builtins_sinfo.c).
 */
#ifndef TVM_SCRIPT_SCRIPT_RELAX_INTERNAL_H_
#define TVM_SCRIPT_SCRIPT_RELAX_INTERNAL_H_

#include <tvm/relax/relax.h>
#include <tvm/script/ir_builder_relax.h>

#include "parse_internal.h"

/* The builtin `R.<name>` (name[0..len), without "R."), or NULL (no error raised). Thread-safe. */
const tvm_script_builtin* tvm_script__relax_builtin_lookup(const char* name, size_t len);

/* The value of `R.<name>` written without a call: the struct info R.Object, R.Any (= R.Object),
 * R.Tensor (unknown shape and dtype), R.Shape (unknown), R.Tuple (empty), R.Callable (an opaque
 * pure function, as the printer writes it). Returns 1 with *out
 * set (a new reference), 0 when the name is no such value (nothing raised), -1 on error. */
int tvm_script__relax_value_lookup(const char* name, size_t len, TVMFFIAny* out);

/* upstream's convert_to_expr: a Relax expression as it is; a PrimExpr as a PrimValue; an int as
 * an int64 PrimValue, a bool as a bool one, a float as a float32 one; a string as a StringImm; a
 * tuple / list (ffi.Array) as a Tuple of its items converted; an ffi.Tensor as a Constant. A new
 * reference, or NULL with a TypeError "<what> must be a Relax expression, got <type>". */
tvm_relax_expr_obj* tvm_script__relax_expr_of(const TVMFFIAny* v, const char* what);
/* R.const(value, dtype): a Constant of value (an ffi.Tensor, a number, nested lists of numbers)
 * of dtype want (NULL: upstream's relax.const default, int32, float32 or bool by the values) with
 * struct info sinfo (NULL: the data's). NULL with the error raised and *blame the argument at
 * fault (0 the value, 1 the dtype or struct info, -1 none). */
tvm_relax_expr_obj* tvm_script__relax_const(const TVMFFIAny* value, const DLDataType* want,
                                            tvm_relax_sinfo_obj* sinfo, int* blame);
/* Whether v is a Relax expression (an ir.Op is not one here: it is called, not passed). */
bool tvm_script__is_relax_value(const TVMFFIAny* v);
/* The module's virtual device named "llvm" / "llvm:1" / "llvm:1:global" (a string value v), as
 * R.Tensor's vdevice= and R.to_vdevice's dst_vdevice take it; `what` names the argument. A new
 * reference, or NULL + error. */
void* tvm_script__relax_vdevice_by_name(tvm_script_call* call, const TVMFFIAny* v, const char* what);
/* A device mesh: an R.device_mesh(...) value, or "name[i]" (upstream's "mesh[0]"), item i of the
 * module's global info list `name`. A new reference, or NULL + error naming `what`. */
tvm_relax_device_mesh_obj* tvm_script__relax_mesh_of(tvm_script_call* call, const TVMFFIAny* v,
                                                     const char* what);
/* A placement written as text ("S[1], R"): the parsed ffi.Array, or NULL + error. */
void* tvm_script__relax_placement_of(const TVMFFIAny* v, const char* what);
/* A recursive local function (upstream's is_recursive): the Var its name is bound to, made
 * before its body so that the body can call it, of struct info R.Callable((params), ret,
 * purity) from the signature given so far; the function is bound to this Var when it ends.
 * Call it in the innermost (local) function frame once its parameters and return annotation
 * are given. A new reference, or NULL + ValueError (no return annotation, not a local
 * function). */
tvm_relax_var_obj* tvm_script__relax_func_self_var(tvm_script_builder* b);
/* A struct info value (new reference), or NULL with a TypeError naming what. */
tvm_relax_sinfo_obj* tvm_script__relax_sinfo_of(const TVMFFIAny* v, const char* what);
/* A list of struct infos (sinfo_args=, out_sinfo=): one struct info, or a tuple / list of them
 * (tuple_of: a list of two or more, or none, makes one TupleStructInfo, and a list of one is
 * that one, as upstream's call_tir reads out_sinfo; otherwise each item is an element). A new
 * ffi.Array, or NULL with a TypeError. */
void* tvm_script__relax_sinfo_list(const TVMFFIAny* v, const char* what, bool tuple_of);

/* Calls of Relax values: `f(x, y)` for f a GlobalVar (`cls.f`), a Var of function struct info, a
 * Function or an ExternFunc. args: the positional values (converted as tvm_script__relax_expr_of);
 * sinfo_args: NULL or an ffi.Array of struct info; attrs: NULL or an ffi.Map (an ExternFunc's
 * call only: R.call_packed's DictAttrs). A new reference or NULL + error. */
tvm_relax_expr_obj* tvm_script__relax_call_value(const void* callee, const TVMFFIAny* args,
                                                 int32_t num_args, void* sinfo_args, void* attrs);
/* x[i] of a tuple value: a TupleGetItem (IndexError out of range). */
tvm_relax_expr_obj* tvm_script__relax_getitem(const TVMFFIAny* v, int64_t index);
/* The runtime fields of a tensor's DLTensor, as upstream's Relax expressions expose them:
 * `x.ndim`, `x.byte_offset`, `x.elem_offset`, `x.dtype.type_code` / `.bits` / `.lanes` (field
 * "type_code" ...), `x.shape[i]` / `x.strides[i]` (field "shape" / "strides" with the axis i):
 * the relax.inspect call. The field's op, or NULL when field is none of these. */
const char* tvm_script__relax_inspect_op(const char* field, bool dtype_field);
/* The call of op (tvm_script__relax_inspect_op) on x (and axis, for shape / strides); a new
 * reference or NULL + error. */
tvm_relax_expr_obj* tvm_script__relax_inspect(const char* op, const TVMFFIAny* x,
                                              const TVMFFIAny* axis);

/* `R.match_cast(value, sinfo)` evaluates to a pair the statement `x = R.match_cast(...)` binds
 * (tvm_script_relax_emit_match_cast): an object of type "script.relax.MatchCastPair". */
typedef struct {
  TVMFFIObject header;
  tvm_relax_expr_obj* value;
  tvm_relax_sinfo_obj* struct_info;
} tvm_script_match_cast_pair;
/* The pair when v is one (borrowed), else NULL. */
const tvm_script_match_cast_pair* tvm_script__relax_match_cast_pair(const TVMFFIAny* v);
/* Calls made by librelax's inferring constructor (tvm_relax_call_new) for the `R.*` builtins
 * are noted in the builder (retained until it is freed); the parser's well-formedness check
 * (tvm_relax_verify_well_formed_ex) skips inferring those again: objects are immutable, so
 * their struct info is the inferred one by construction. A Call of any other origin (loaded
 * metadata, a copy) is not noted and is checked. */
void tvm_script__relax_note_inferred(tvm_script_builder* b, const void* call);
bool tvm_script__relax_call_inferred(void* builder, const void* call);

/* A new pair (value and sinfo retained), or NULL + error. */
tvm_script_match_cast_pair* tvm_script__relax_match_cast_pair_new(tvm_relax_expr_obj* value,
                                                                  tvm_relax_sinfo_obj* sinfo);

#endif /* TVM_SCRIPT_SCRIPT_RELAX_INTERNAL_H_ */

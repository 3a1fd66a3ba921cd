/*
 * tvm/tir/function.h: GlobalVar, PrimFunc and IRModule (spec: "Program Organization").
 *
 * All arguments are borrowed; results are new references (NULL + error on failure).
 */
#ifndef TVM_TIR_FUNCTION_H_
#define TVM_TIR_FUNCTION_H_

#include <tvm/tir/buffer.h>
#include <tvm/tir/node.h>
#include <tvm/tir/stmt.h>
#include <tvm/tir/type.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* ir.GlobalVar: the name of a function of a module. Two GlobalVars are structurally equal when
 * their names are and they correspond (FreeVar kind with a compared name_hint). */
struct tvm_tir_global_var_obj {
  tvm_tir_relax_expr_obj relax;
  void* name_hint; /* ffi.String */
};
tvm_tir_global_var_obj* tvm_tir_global_var_new(const char* name_hint);
/* The same with name_hint an ffi.String the caller already has (borrowed; the GlobalVar takes a
 * reference to it): no String made of the bytes again. */
tvm_tir_global_var_obj* tvm_tir_global_var_new_str(void* name_hint);

/* tir.PrimFunc. params and buffer_map are definition sites, compared before the body. */
struct tvm_tir_prim_func_obj {
  tvm_tir_base_func_obj func; /* func.attrs: ffi.Map<String, Any> */
  void* params;               /* ffi.Array of Var */
  tvm_tir_type_obj* ret_type; /* never NULL: TupleType([]) when the function returns nothing */
  void* buffer_map;           /* ffi.Map<Var, Buffer> */
  tvm_tir_stmt_obj* body;
};
/*
 * O-PRIMFUNC. params: ffi.Array of Var; buffer_map: ffi.Map<Var, Buffer> (NULL = empty); attrs:
 * ffi.Map<String, Any> (NULL = empty). ret_type NULL: TupleType([]) when the body has no call
 * to tir.ret, else the type of the returned value. A given ret_type must match every tir.ret.
 */
tvm_tir_prim_func_obj* tvm_tir_prim_func_new(void* params, tvm_tir_stmt_obj* body,
                                             tvm_tir_type_obj* ret_type, void* buffer_map,
                                             void* attrs);
/* The same function with attrs[key] = value (a new PrimFunc sharing everything else). */
tvm_tir_prim_func_obj* tvm_tir_prim_func_with_attr(tvm_tir_prim_func_obj* func, const char* key,
                                                   const TVMFFIAny* value);
/* attrs["global_symbol"] as a C string, or NULL. */
const char* tvm_tir_func_global_symbol(const void* func);

/* ir.IRModule: functions is an ffi.Map<GlobalVar, BaseFunc>, attrs an ffi.Map<String, Any>.
 * global_var_map_ (upstream's field) maps each function name to its GlobalVar; it is derived
 * from functions and is the definition site of the GlobalVars for structural equality (compared
 * first, by name), so that two modules with distinct but equally named GlobalVars compare. */
struct tvm_tir_ir_module_obj {
  TVMFFIObject header;
  void* global_var_map_;
  void* functions;
  void* attrs;
};
/* functions / attrs NULL = empty. Every key must be a GlobalVar and every value an ir.BaseFunc;
 * two keys may not share a name (ValueError). */
tvm_tir_ir_module_obj* tvm_tir_ir_module_new(void* functions, void* attrs);
/* A new module with gv -> func added (ValueError if a function of that name exists). */
tvm_tir_ir_module_obj* tvm_tir_ir_module_add(tvm_tir_ir_module_obj* mod, tvm_tir_global_var_obj* gv,
                                             void* func);
/* Lookup by name: the GlobalVar / the function (new references), or NULL without raising. */
tvm_tir_global_var_obj* tvm_tir_ir_module_get_global_var(const tvm_tir_ir_module_obj* mod,
                                                         const char* name);
void* tvm_tir_ir_module_lookup(const tvm_tir_ir_module_obj* mod, const char* name);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_TIR_FUNCTION_H_ */

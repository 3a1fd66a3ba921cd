/*
 * remove_purity_checking.c: RemovePurityChecking (tvm/relax/transform.h): each pure Relax
 * function of the module is marked `relax.force_pure`, so the allocations and direct kernel calls
 * CallTIRRewrite puts into it are allowed while callers still see a pure function.
 */
#include <tvm/relax/transform.h>

#include "internal.h"

static tvm_relax_function_obj* rewrite(tvm_relax_function_obj* f, void* ctx) {
  (void)ctx;
  const TVMFFIAny* have = f->func.attrs ? tvm_ffi_map_get_str(f->func.attrs, "relax.force_pure") : NULL;
  bool forced = have && (have->type_index == kTVMFFIBool || have->type_index == kTVMFFIInt) &&
                have->v_int64 != 0;
  if (!f->is_pure || forced) {
    tvm_ffi_retain(f);
    return f;
  }
  TVMFFIAny yes = tvm_ffi_any_bool(true);
  return tvm_relax_function_with_attr(f, "relax.force_pure", &yes);
}

static tvm_tir_ir_module_obj* run_remove_purity_checking(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__map_functions(mod, "RemovePurityChecking", rewrite, NULL);
}

tvm_tir_ir_module_obj* tvm_relax_transform_remove_purity_checking(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__pass_set_aside(run_remove_purity_checking, mod);
}

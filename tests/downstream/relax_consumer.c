/* relax_consumer.c: builds a small Relax function with the installed librelax, found through
 * pkg-config alone (tvmrelax pulls in libtir and libtvmffi), as a compiler built on the IR
 * libraries would. */
#include <stdio.h>
#include <tvm/relax/relax.h>

int main(void) {
  int64_t dims[2] = {4, 8};
  tvm_relax_sinfo_obj* s = tvm_relax_tensor_sinfo_of_ints(dims, 2, tvm_ffi_dtype(kDLFloat, 32, 1));
  tvm_relax_var_obj* x = s ? tvm_relax_var_new("x", s, false) : NULL;
  void* params = x ? tvm_ffi_array_of_objects((void* const*)&x, 1) : NULL;
  tvm_relax_block_builder* bb = params ? tvm_relax_bb_new(NULL) : NULL;
  if (!bb || tvm_relax_bb_function_begin(bb, "main", params, NULL, true) != 0) return 1;
  tvm_relax_expr_obj* call = tvm_relax_call_op("relax.nn.softmax", NULL, 1, x);
  tvm_relax_var_obj* y = call ? tvm_relax_bb_emit(bb, call, NULL) : NULL;
  tvm_tir_global_var_obj* gv = y ? tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)y, NULL) : NULL;
  tvm_tir_ir_module_obj* mod = gv ? tvm_relax_bb_module(bb) : NULL;
  if (!mod || tvm_relax_verify_well_formed(mod) != 0) return 1;
  tvm_ffi_strbuf text = {0};
  tvm_relax_sinfo_text(&text, tvm_relax_sinfo_of(y));
  printf("downstream relax consumer OK (librelax %s): softmax(x) : %s\n", tvm_relax_version(),
         tvm_ffi_strbuf_cstr(&text));
  tvm_ffi_strbuf_free(&text);
  tvm_ffi_release(mod), tvm_ffi_release(gv), tvm_ffi_release(y), tvm_ffi_release(call);
  tvm_relax_bb_free(bb);
  tvm_ffi_release(params), tvm_ffi_release(x), tvm_ffi_release(s);
  return 0;
}

/*
 * make_model.c: builds a small Relax model with the BlockBuilder (there is no Relax parser yet),
 * legalizes it and exports it as one shared library for serve.c:
 *
 *   main(x: R.Tensor((n, 4), "float32"), w: R.Tensor((4, 3), "float32"),
 *        b: R.Tensor((3,), "float32")) -> R.Tensor((n, 3), "float32"):
 *     return R.nn.softmax(R.matmul(x, w) + b, axis=-1)
 *
 *   ./make_model model.so
 *
 * Links libcodegen (and the libraries below it, LLVM); serve.c needs only libvm + libtvmffi.
 */
#include <stdio.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/relax.h>

/* A parameter x: R.Tensor(dims, float32); dims are PrimExprs (a Var for a symbolic dim). */
static tvm_relax_var_obj* param(const char* name, int ndim, void* const* dims) {
  void* arr = tvm_ffi_array_of_objects(dims, ndim);
  tvm_relax_sinfo_obj* s = arr ? tvm_relax_tensor_sinfo_of_dims(arr, tvm_tir_dtype_float(32)) : NULL;
  tvm_relax_var_obj* v = s ? tvm_relax_var_new(name, s, false) : NULL;
  tvm_ffi_release(s);
  tvm_ffi_release(arr);
  return v;
}

static tvm_tir_ir_module_obj* build_model(void) {
  DLDataType i64 = tvm_tir_dtype_int(64);
  tvm_tir_var_obj* n = tvm_tir_var_new("n", i64);
  tvm_tir_expr_obj* three = tvm_tir_const_int(i64, 3);
  tvm_tir_expr_obj* four = tvm_tir_const_int(i64, 4);
  void* dx[2] = {n, four};
  void* dw[2] = {four, three};
  void* db[1] = {three};
  tvm_relax_var_obj* x = param("x", 2, dx);
  tvm_relax_var_obj* w = param("w", 2, dw);
  tvm_relax_var_obj* b = param("b", 1, db);
  void* pv[3] = {x, w, b};
  void* params = tvm_ffi_array_of_objects(pv, 3);
  TVMFFIAny key = tvm_ffi_string("axis"), val = tvm_ffi_any_int(-1);
  void* attrs = tvm_ffi_map_new(&key, &val, 1);
  tvm_ffi_any_release(&key);

  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_tir_ir_module_obj* mod = NULL;
  if (tvm_relax_bb_function_begin(bb, "main", params, NULL, true) == 0) {
    tvm_relax_expr_obj* mm = tvm_relax_call_op("relax.matmul", NULL, 2, x, w);
    tvm_relax_var_obj* h = mm ? tvm_relax_bb_emit(bb, mm, "h") : NULL;
    tvm_relax_expr_obj* add = h ? tvm_relax_call_op("relax.add", NULL, 2, h, b) : NULL;
    tvm_relax_var_obj* a = add ? tvm_relax_bb_emit(bb, add, "a") : NULL;
    tvm_relax_expr_obj* sm = a ? tvm_relax_call_op("relax.nn.softmax", attrs, 1, a) : NULL;
    tvm_relax_var_obj* y = sm ? tvm_relax_bb_emit(bb, sm, "y") : NULL;
    tvm_tir_global_var_obj* g =
        y ? tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)y, NULL) : NULL;
    mod = g ? tvm_relax_bb_module(bb) : NULL;
    void* objs[] = {g, y, sm, a, add, h, mm};
    for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  }
  tvm_relax_bb_free(bb);
  void* objs[] = {attrs, params, b, w, x, four, three, n};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  /* Every operator call becomes a call_tir of a generated PrimFunc. */
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  tvm_ffi_release(mod);
  return legal;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s model.so\n", argv[0]);
    return 2;
  }
  tvm_tir_ir_module_obj* mod = build_model();
  int rc = mod ? tvm_codegen_relax_export(mod, argv[1], NULL) : -1;
  tvm_ffi_release(mod);
  if (rc != 0) {
    void* err = tvm_ffi_error_take();
    fprintf(stderr, "make_model: %s: %s\n", err ? tvm_ffi_error_kind(err) : "error",
            err ? tvm_ffi_error_message(err) : "unknown");
    tvm_ffi_release(err);
    return 1;
  }
  printf("wrote %s\n", argv[1]);
  return 0;
}

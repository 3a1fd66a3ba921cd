/* test_docsifier.c: converter registration per (token, type index) with the default-token
 * fallback, frames and the variable table, seen through the public API. */
#include <tvm/script/ir_builder.h> /* (with ir_docsifier.h: their names must not clash) */
#include <tvm/script/ir_docsifier.h>
#include <tvm/script/printer.h>
#include <tvm/tir/tir.h>

#include "test_util.h"

/* "relax" converter for ints: R.prim_value(3). */
static tvm_script_doc_obj* relax_int(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                     const void* path) {
  return tvm_script_doc_call_take(tvm_script_prefixed(d, "relax", "prim_value"),
                                  tvm_script_literal_int(obj->v_int64));
}

/* Default converter for ffi.Shape: a tuple of its dims, converted under the "relax" token
 * (ints then use relax_int); a dim of 0 is converted as a tir.StringImm, which has no "relax"
 * converter and falls back to the default one. */
static tvm_script_doc_obj* shape_conv(tvm_script_docsifier* d, const TVMFFIAny* obj,
                                      const void* path) {
  if (tvm_script_push_token(d, "relax") != 0) return NULL;
  void* list = tvm_ffi_list_new();
  bool ok = list != NULL;
  for (int64_t i = 0; ok && i < tvm_ffi_shape_ndim(obj->v_obj); ++i) {
    int64_t v = tvm_ffi_shape_data(obj->v_obj)[i];
    void* p = tvm_script_path_item(d, path, i);
    tvm_script_doc_obj* doc = NULL;
    if (v == 0) {
      tvm_tir_expr_obj* imm = tvm_tir_string_imm_new("zero", 4);
      doc = imm && p ? tvm_script_as_doc_obj(d, imm, p) : NULL;
      tvm_ffi_release(imm);
    } else if (p) {
      TVMFFIAny a = tvm_ffi_any_int(v);
      doc = tvm_script_as_doc(d, &a, p);
    }
    tvm_ffi_release(p);
    TVMFFIAny item = tvm_ffi_any_obj(doc);
    ok = doc && tvm_ffi_list_push_take(list, &item) == 0;
    if (!ok) tvm_ffi_release(doc);
  }
  tvm_script_pop_token(d);
  if (!ok) {
    tvm_ffi_release(list);
    return NULL;
  }
  return tvm_script_tuple_doc_take(tvm_script_doc_list_to_array_take(list));
}

TEST(token_dispatch_and_fallback) {
  CHECK_OK(tvm_script_register_builtin_converters());
  CHECK_OK(tvm_script_register_converter("relax", kTVMFFIInt, relax_int));
  CHECK_OK(tvm_script_register_converter("", kTVMFFIShape, shape_conv));
  void* shape = tvm_ffi_shape_new((int64_t[]){3, 0}, 2);
  void* s = tvm_script_print_obj(shape, NULL);
  CHECK(s != NULL);
  if (s) {
    CHECK_STR_EQ(tvm_ffi_str_cstr(s),
                 "# from tvm.script import relax as R\n\n(R.prim_value(3), \"zero\")");
  }
  tvm_ffi_release(s);
  /* Outside the "relax" token, ints print as plain literals. */
  void* arr = tvm_ffi_array_new((TVMFFIAny[]){tvm_ffi_any_int(3)}, 1);
  s = tvm_script_print_obj(arr, NULL);
  CHECK(s != NULL);
  if (s) CHECK_STR_EQ(tvm_ffi_str_cstr(s), "[3]");
  tvm_ffi_release(s);
  tvm_ffi_release(arr);
  tvm_ffi_release(shape);
  CHECK(tvm_script_register_converter("", -1, relax_int) != 0);
  CHECK_RAISED("ValueError", "bad type index");
}

TEST(prefix_options) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT64);
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  opts.tir_prefix = "tir";
  void* s = tvm_script_print_obj(x, &opts);
  CHECK(s != NULL);
  if (s) CHECK_STR_EQ(tvm_ffi_str_cstr(s), "# from tvm.script import tirx as tir\n\nx = tir.int64()");
  tvm_ffi_release(s);
  tvm_ffi_release(x);
}

int main(void) {
  RUN(token_dispatch_and_fallback);
  RUN(prefix_options);
  return test_summary();
}

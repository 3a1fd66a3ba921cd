/*
 * test_printer_relax.c: Relax IR printed as TVMScript in upstream's canonical form: functions
 * with symbolic signatures, dataflow blocks with R.output, operators with non-default
 * attributes, call_tir into a sibling PrimFunc (cls.), if/else bindings, match_cast, tuples,
 * constants, nested functions, struct info of every kind, and fragments.
 */
#include <tvm/script/printer.h>

#include "relax_testing.h"

static char g_text[8192];

static const char* print(const void* obj) {
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  opts.print_header = false;
  void* s = tvm_script_print_obj(obj, &opts);
  if (!s) {
    void* e = tvm_ffi_error_take();
    snprintf(g_text, sizeof(g_text), "<error %s: %s>", e ? tvm_ffi_error_kind(e) : "?",
             e ? tvm_ffi_error_message(e) : "");
    tvm_ffi_release(e);
  } else {
    snprintf(g_text, sizeof(g_text), "%s", tvm_ffi_str_cstr(s));
    tvm_ffi_release(s);
  }
  return g_text;
}

TEST(function_with_dataflow_and_symbolic_shapes) {
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_expr_obj* four = tvm_tir_const_int(I64, 4);
  void* dims[2] = {n, four};
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor_sym(F32, 2, dims));
  tvm_relax_var_obj* b = rt_var_take("b", rt_tensor(F32, 1, (int64_t)4));
  void* params = rt_array(2, x, b);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin_ex(bb, "main", params, NULL, TVM_RELAX_BB_PRIVATE));
  CHECK_OK(tvm_relax_bb_dataflow_begin(bb));
  tvm_relax_expr_obj* e = RT_CALL("relax.exp", NULL, x);
  tvm_relax_expr_obj* add = RT_CALL("relax.add", NULL, e, b);
  tvm_relax_var_obj* lv = tvm_relax_bb_emit(bb, add, NULL);
  void* attrs = rt_attrs(1, "dtype", tvm_ffi_any_raw_str("float16"));
  tvm_relax_expr_obj* cast = RT_CALL("relax.astype", attrs, lv);
  tvm_relax_var_obj* gv = tvm_relax_bb_emit_output(bb, cast, NULL);
  CHECK_OK(tvm_relax_bb_block_end(bb));
  tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)gv, NULL);
  tvm_tir_ir_module_obj* mod = tvm_relax_bb_module(bb);
  CHECK_STR_EQ(print(mod),
               "@I.ir_module\n"
               "class Module:\n"
               "    @R.function(private=True)\n"
               "    def main(x: R.Tensor((\"n\", 4), dtype=\"float32\"), b: R.Tensor((4,), dtype=\"float32\")) -> R.Tensor((\"n\", 4), dtype=\"float16\"):\n"
               "        n = T.int64()\n"
               "        with R.dataflow():\n"
               "            lv: R.Tensor((n, 4), dtype=\"float32\") = R.exp(x)\n"
               "            lv1: R.Tensor((n, 4), dtype=\"float32\") = R.add(lv, b)\n"
               "            gv: R.Tensor((n, 4), dtype=\"float16\") = R.astype(lv1, dtype=\"float16\")\n"
               "            R.output(gv)\n"
               "        return gv");
  tvm_relax_bb_free(bb);
  tvm_ffi_release(mod), tvm_ffi_release(g), tvm_ffi_release(gv), tvm_ffi_release(cast);
  tvm_ffi_release(attrs), tvm_ffi_release(lv), tvm_ffi_release(add), tvm_ffi_release(e);
  tvm_ffi_release(params), tvm_ffi_release(x), tvm_ffi_release(b);
  tvm_ffi_release(four), tvm_ffi_release(n);
}

TEST(struct_info_forms) {
  tvm_relax_sinfo_obj* s[8];
  s[0] = tvm_relax_object_sinfo_new();
  s[1] = tvm_relax_prim_sinfo_new(I64, NULL);
  s[2] = tvm_relax_shape_sinfo_new(NULL, 3);
  s[3] = tvm_relax_tensor_sinfo_new(NULL, F32, 2, NULL);
  s[4] = tvm_relax_tensor_sinfo_new(NULL, TVM_RELAX_DTYPE_UNKNOWN, -1, NULL);
  void* f = rt_array(2, s[1], s[3]);
  s[5] = tvm_relax_tuple_sinfo_new(f);
  s[6] = tvm_relax_func_sinfo_new(f, s[3], false);
  s[7] = tvm_relax_tuple_sinfo_new(NULL);
  const char* expect[8] = {"R.Object",
                           "R.Prim(\"int64\")",
                           "R.Shape(ndim=3)",
                           "R.Tensor(dtype=\"float32\", ndim=2)",
                           "R.Tensor",
                           "R.Tuple(R.Prim(\"int64\"), R.Tensor(dtype=\"float32\", ndim=2))",
                           "R.Callable([R.Prim(\"int64\"), R.Tensor(dtype=\"float32\", ndim=2)], "
                           "R.Tensor(dtype=\"float32\", ndim=2), purity=False)",
                           "R.Tuple"};
  for (int i = 0; i < 8; ++i) {
    CHECK_STR_EQ(print(s[i]), expect[i]);
    tvm_ffi_release(s[i]);
  }
  tvm_ffi_release(f);
}

/* f(c: bool, x: (k,)) with an if/else binding, match_cast, tuples and a constant. */
TEST(control_flow_match_cast_tuples_constants) {
  tvm_relax_var_obj* c = rt_var_take("c", rt_tensor(tvm_tir_dtype_bool(), 0));
  tvm_relax_var_obj* x = rt_var_take("x", tvm_relax_tensor_sinfo_new(NULL, F32, 1, NULL));
  void* params = rt_array(2, c, x);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "f", params, NULL, true));
  tvm_tir_var_obj* k = tvm_tir_var_new("k", I64);
  void* dk[1] = {k};
  tvm_relax_sinfo_obj* tk = rt_tensor_sym(F32, 1, dk);
  tvm_relax_var_obj* y = tvm_relax_bb_match_cast(bb, (tvm_relax_expr_obj*)x, tk, "y");
  CHECK(y != NULL);
  /* if c: z = exp(y) else: z = y */
  tvm_relax_expr_obj* ex = RT_CALL("relax.exp", NULL, y);
  tvm_relax_var_obj* t1 = tvm_relax_var_new("t1", tvm_relax_sinfo_of(ex), false);
  tvm_relax_binding_obj* b1 = tvm_relax_var_binding_new(t1, ex);
  void* bs = rt_array(1, b1);
  tvm_relax_block_obj* blk = tvm_relax_block_new(bs, false);
  void* blks = rt_array(1, blk);
  tvm_relax_expr_obj* then_seq = tvm_relax_seq_expr_new(blks, (tvm_relax_expr_obj*)t1);
  tvm_relax_expr_obj* iff = tvm_relax_if_new((tvm_relax_expr_obj*)c, then_seq, (tvm_relax_expr_obj*)y);
  tvm_relax_var_obj* z = tvm_relax_bb_emit(bb, iff, "z");
  /* t = (z, y); u = t[1]; a constant */
  void* fields = rt_array(2, z, y);
  tvm_relax_expr_obj* tup = tvm_relax_tuple_new(fields);
  tvm_relax_var_obj* t = tvm_relax_bb_emit(bb, tup, "t");
  tvm_relax_expr_obj* gi = tvm_relax_tuple_get_item_new((tvm_relax_expr_obj*)t, 1);
  tvm_relax_var_obj* u = tvm_relax_bb_emit(bb, gi, "u");
  int64_t shape[2] = {2, 2};
  void* data = tvm_ffi_tensor_empty(shape, 2, F32, (DLDevice){kDLCPU, 0});
  float* p = tvm_ffi_tensor_dl(data)->data;
  p[0] = 1, p[1] = 2.5f, p[2] = -3, p[3] = 0;
  tvm_relax_expr_obj* cst = tvm_relax_constant_new(data, NULL);
  tvm_relax_var_obj* w = tvm_relax_bb_emit(bb, cst, "w");
  void* out_fields = rt_array(2, u, w);
  tvm_relax_expr_obj* out = tvm_relax_tuple_new(out_fields);
  tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(bb, out, NULL);
  CHECK(g != NULL);
  tvm_tir_ir_module_obj* mod = tvm_relax_bb_module(bb);
  tvm_relax_function_obj* f = tvm_tir_ir_module_lookup(mod, "f");
  CHECK_STR_EQ(print(f),
               "@R.function\n"
               "def f(c: R.Tensor((), dtype=\"bool\"), x: R.Tensor(dtype=\"float32\", ndim=1)) -> R.Tuple(R.Tensor(dtype=\"float32\", ndim=1), R.Tensor((2, 2), dtype=\"float32\")):\n"
               "    k = T.int64()\n"
               "    y: R.Tensor((k,), dtype=\"float32\") = R.match_cast(x, R.Tensor((k,), dtype=\"float32\"))\n"
               "    if c:\n"
               "        t1: R.Tensor((k,), dtype=\"float32\") = R.exp(y)\n"
               "        z: R.Tensor((k,), dtype=\"float32\") = t1\n"
               "    else:\n"
               "        z: R.Tensor((k,), dtype=\"float32\") = y\n"
               "    t: R.Tuple(R.Tensor((k,), dtype=\"float32\"), R.Tensor((k,), dtype=\"float32\")) = z, y\n"
               "    u: R.Tensor((k,), dtype=\"float32\") = t[1]\n"
               "    w: R.Tensor((2, 2), dtype=\"float32\") = R.const([[1.0, 2.5], [-3.0, 0.0]], \"float32\")\n"
               "    return u, w");
  tvm_ffi_release(f), tvm_ffi_release(mod), tvm_ffi_release(g), tvm_ffi_release(out);
  tvm_ffi_release(out_fields), tvm_ffi_release(w), tvm_ffi_release(cst), tvm_ffi_release(data);
  tvm_ffi_release(u), tvm_ffi_release(gi), tvm_ffi_release(t), tvm_ffi_release(tup);
  tvm_ffi_release(fields), tvm_ffi_release(z), tvm_ffi_release(iff), tvm_ffi_release(then_seq);
  tvm_ffi_release(blks), tvm_ffi_release(blk), tvm_ffi_release(bs), tvm_ffi_release(b1);
  tvm_ffi_release(t1), tvm_ffi_release(ex), tvm_ffi_release(y), tvm_ffi_release(tk);
  tvm_ffi_release(k), tvm_relax_bb_free(bb), tvm_ffi_release(params), tvm_ffi_release(x);
  tvm_ffi_release(c);
}

int main(void) {
  RUN(function_with_dataflow_and_symbolic_shapes);
  RUN(struct_info_forms);
  RUN(control_flow_match_cast_tuples_constants);
  return test_summary();
}

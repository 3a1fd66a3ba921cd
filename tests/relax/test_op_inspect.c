/*
 * test_op_inspect.c: struct-info inference of the relax.inspect operators (op_inspect.c): each
 * result's dtype, the values carried when the tensor's struct info knows them, the errors, and
 * the BlockBuilder's normal form (a known value becomes its R.prim_value, an unknown one stays
 * a call).
 */
#include <tvm/relax/block_builder.h>

#include "op_infer_testing.h"

#define IN(field) "relax.inspect.tensor_" field

static tvm_relax_sinfo_obj* P(DLDataType dtype, int64_t v) {
  tvm_tir_expr_obj* e = tvm_tir_const_int(dtype, v);
  tvm_relax_sinfo_obj* s = tvm_relax_prim_sinfo_new(dtype, e);
  tvm_ffi_release(e);
  return s;
}

TEST(inspect_known_values) {
  /* A: R.Tensor((4, n), "float32"): compact, no offset (an int32 prints bare, int64 as
   * T.int64) */
  CHECK_INFER("R.Prim(value=2)", IN("ndim"), NULL, 1, T("4, n", F32));
  CHECK_INFER("R.Prim(value=T.uint8(32))", IN("dtype_bits"), NULL, 1, T("4, n", F32));
  CHECK_INFER("R.Prim(value=T.uint8(2))", IN("dtype_code"), NULL, 1, T("4, n", F32));
  CHECK_INFER("R.Prim(value=T.uint16(1))", IN("dtype_lanes"), NULL, 1, T("4, n", F32));
  CHECK_INFER("R.Prim(value=n)", IN("shape_i"), NULL, 2, T("4, n", F32), P(I64, 1));
  CHECK_INFER("R.Prim(value=T.int64(4))", IN("shape_i"), NULL, 2, T("4, n", F32), P(I64, 0));
  CHECK_INFER("R.Prim(value=n)", IN("stride_i"), NULL, 2, T("4, n", F32), P(I64, 0));
  CHECK_INFER("R.Prim(value=T.int64(1))", IN("stride_i"), NULL, 2, T("4, n", F32), P(I64, 1));
  CHECK_INFER("R.Prim(value=n * T.int64(5))", IN("stride_i"), NULL, 2, T("3, n, 5", F32),
              P(I64, 0));
  CHECK_INFER("R.Prim(value=T.uint64(0))", IN("byte_offset"), NULL, 1, T("4, n", F32));
  CHECK_INFER("R.Prim(value=T.uint64(0))", IN("elem_offset"), NULL, 1, T("4, n", F32));
  /* an int8x4 dtype: code 0, bits 8, lanes 4 */
  DLDataType i8x4 = {kDLInt, 8, 4};
  CHECK_INFER("R.Prim(value=T.uint8(0))", IN("dtype_code"), NULL, 1, T("*", i8x4));
  CHECK_INFER("R.Prim(value=T.uint16(4))", IN("dtype_lanes"), NULL, 1, T("*", i8x4));
  oi_free_vars();
}

TEST(inspect_unknown_values) {
  /* unknown dtype, rank or shape, or a symbolic axis: only the dtype of the result */
  CHECK_INFER("R.Prim(\"uint8\")", IN("dtype_code"), NULL, 1, T("*", UNK));
  CHECK_INFER("R.Prim(\"uint8\")", IN("dtype_bits"), NULL, 1, T("*", UNK));
  CHECK_INFER("R.Prim(\"uint16\")", IN("dtype_lanes"), NULL, 1, T("*", UNK));
  CHECK_INFER("R.Prim(\"int32\")", IN("ndim"), NULL, 1, T("*", F32));
  CHECK_INFER("R.Prim(value=3)", IN("ndim"), NULL, 1, T("?3", UNK));
  CHECK_INFER("R.Prim(\"int64\")", IN("shape_i"), NULL, 2, T("?3", F32), P(I64, 1));
  CHECK_INFER("R.Prim(\"int64\")", IN("stride_i"), NULL, 2, T("*", F32), P(I64, 5));
  CHECK_INFER("R.Prim(\"int64\")", IN("shape_i"), NULL, 2, T("4, n", F32),
              tvm_relax_prim_sinfo_new(I64, NULL));
  CHECK_INFER("R.Prim(\"int64\")", IN("stride_i"), NULL, 2, T("4, n", F32),
              tvm_relax_prim_sinfo_new(I32, NULL));
  CHECK_INFER("R.Prim(\"uint64\")", IN("byte_offset"), NULL, 1, T("?2", F32));
  CHECK_INFER("R.Prim(\"uint64\")", IN("elem_offset"), NULL, 1, T("*", UNK));
  oi_free_vars();
}

TEST(inspect_errors) {
  /* not a tensor */
  CHECK(infer(IN("ndim"), NULL, 1, tvm_relax_prim_sinfo_new(I64, NULL)) == NULL);
  void* e = tvm_ffi_error_take();
  CHECK(e != NULL);
  if (e) CHECK_STR_CONTAINS(tvm_ffi_error_message(e), "tensor");
  tvm_ffi_release(e);
  CHECK(infer(IN("shape_i"), NULL, 2, SH("2"), P(I64, 0)) == NULL);
  e = tvm_ffi_error_take();
  CHECK(e != NULL);
  tvm_ffi_release(e);
  /* a float or a tensor axis */
  CHECK(infer(IN("shape_i"), NULL, 2, T("4, n", F32), tvm_relax_prim_sinfo_new(F32, NULL)) ==
        NULL);
  e = tvm_ffi_error_take();
  CHECK(e != NULL);
  if (e) CHECK_STR_CONTAINS(tvm_ffi_error_message(e), "an integer R.Prim");
  tvm_ffi_release(e);
  CHECK(infer(IN("stride_i"), NULL, 2, T("4, n", F32), T("", I64)) == NULL);
  e = tvm_ffi_error_take();
  CHECK(e != NULL);
  tvm_ffi_release(e);
  /* a negative constant axis; an axis >= the known ndim */
  CHECK_INFER_FAILS("ValueError", "may not be negative", IN("shape_i"), NULL, 2, T("4, n", F32),
                    P(I64, -1));
  CHECK_INFER_FAILS("ValueError", "may not be negative", IN("stride_i"), NULL, 2, T("*", F32),
                    P(I64, -2));
  CHECK_INFER_FAILS("ValueError", "has only 2 elements", IN("shape_i"), NULL, 2, T("4, n", F32),
                    P(I64, 2));
  CHECK_INFER_FAILS("ValueError", "has only 2 elements", IN("stride_i"), NULL, 2, T("?2", F32),
                    P(I64, 7));
  oi_free_vars();
}

/* BlockBuilder normalize: a known value is its R.prim_value, an unknown one stays a call. */
TEST(inspect_normalize_folds_known) {
  tvm_relax_var_obj* a = rt_var_take("A", T("4, n", F32));
  tvm_relax_var_obj* u = rt_var_take("U", T("*", UNK));
  tvm_relax_sinfo_obj* one = P(I64, 1);
  tvm_relax_expr_obj* ax = tvm_relax_prim_value_new(((tvm_relax_prim_sinfo_obj*)one)->value);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  void* params = rt_array(2, a, u);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", params, NULL, true));
  tvm_ffi_release(params);
  const char* ops[4] = {IN("ndim"), IN("shape_i"), IN("stride_i"), IN("elem_offset")};
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < 4; ++i) {
      void* x = k ? (void*)u : (void*)a;
      bool axis = i == 1 || i == 2;
      tvm_relax_expr_obj* c = axis ? tvm_relax_call_op(ops[i], NULL, 2, x, ax)
                                   : tvm_relax_call_op(ops[i], NULL, 1, x);
      tvm_relax_expr_obj* n = c ? tvm_relax_bb_normalize(bb, c) : NULL;
      CHECK(n != NULL);
      CHECK_EQ_INT(tvm_relax_kind_of(n), k ? TVM_RELAX_KIND_Call : TVM_RELAX_KIND_PrimValue);
      tvm_ffi_release(n);
      tvm_ffi_release(c);
    }
  }
  /* the folded values */
  tvm_relax_expr_obj* c = tvm_relax_call_op(IN("shape_i"), NULL, 2, a, ax);
  tvm_relax_expr_obj* n = c ? tvm_relax_bb_normalize(bb, c) : NULL;
  CHECK_STR_EQ(n ? rt_sinfo_text(n) : "", "R.Prim(value=n)");
  tvm_ffi_release(n), tvm_ffi_release(c);
  c = tvm_relax_call_op(IN("dtype_bits"), NULL, 1, a);
  n = c ? tvm_relax_bb_normalize(bb, c) : NULL;
  CHECK_STR_EQ(n ? rt_sinfo_text(n) : "", "R.Prim(value=T.uint8(32))");
  tvm_ffi_release(n), tvm_ffi_release(c);
  tvm_relax_bb_free(bb);
  tvm_ffi_release(ax), tvm_ffi_release(one), tvm_ffi_release(a), tvm_ffi_release(u);
  oi_free_vars();
}

int main(void) {
  (void)oi_attrs; /* the operators take no attributes */
  RUN(inspect_known_values);
  RUN(inspect_unknown_values);
  RUN(inspect_errors);
  RUN(inspect_normalize_folds_known);
  return test_summary();
}

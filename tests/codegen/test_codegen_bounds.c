/*
 * test_codegen_bounds.c: the opt-in bounds check (tvm_tir_lower_options.bounds_check, libtir's
 * bounds_check pass and libcodegen's IndexError): an access outside its buffer raises
 * IndexError with the buffer, the index values and the shape, on the JIT and in an exported
 * library, before anything is written there; in-bounds kernels compute as before, and a load
 * under tir.if_then_else is checked only where it is evaluated.
 */
#include "codegen_testing.h"

/* shift(A: (8,) f32, B: (4, 8) f32, n: int32, off: int32, d: int32):
 *   for i < n:            B[0, i + off] = A[i]                (a store past B's row)
 *   for r < 4, j < 8:     B[r, j] += if_then_else(j + d < 8, A[j + d], 0)   (padding: guarded)
 *   for j < 8 (vectorized 4 x 2): B[3, j] = B[3, j] + A[j] */
static void* make_shift(void) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 8);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 4, 8);
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_var_obj* off = tvm_tir_var("off", TVM_TIR_INT32);
  tvm_tir_var_obj* d = tvm_tir_var("d", TVM_TIR_INT32);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* r = tvm_tir_var("r", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* jo = tvm_tir_var("jo", TVM_TIR_INT32);
  tvm_tir_var_obj* ji = tvm_tir_var("ji", TVM_TIR_INT32);
  void* s1 =
      tvm_tir_serial_take(ref(i), tvm_tir_int(0), ref(n),
                          tvm_tir_store_take(ref(B), tvm_tir_load_take(ref(A), ref(i)),
                                             tvm_tir_int(0), tvm_tir_add_take(ref(i), ref(off))));
  void* jd = tvm_tir_add_take(ref(j), ref(d));
  void* pad = tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.if_then_else",
                                tvm_tir_lt_take(ref(jd), tvm_tir_int(8)),
                                tvm_tir_load_take(ref(A), ref(jd)), tvm_tir_f32(0));
  void* s2 = tvm_tir_serial_take(
      ref(r), tvm_tir_int(0), tvm_tir_int(4),
      tvm_tir_serial_take(
          ref(j), tvm_tir_int(0), tvm_tir_int(8),
          tvm_tir_store_take(ref(B),
                             tvm_tir_add_take(tvm_tir_load_take(ref(B), ref(r), ref(j)), pad),
                             ref(r), ref(j))));
  void* jv = tvm_tir_add_take(tvm_tir_mul_take(ref(jo), tvm_tir_int(4)), ref(ji));
  void* s3 = tvm_tir_serial_take(
      ref(jo), tvm_tir_int(0), tvm_tir_int(2),
      tvm_tir_for_take(
          ref(ji), tvm_tir_int(0), tvm_tir_int(4), TVM_TIR_FOR_VECTORIZED,
          tvm_tir_store_take(ref(B),
                             tvm_tir_add_take(tvm_tir_load_take(ref(B), tvm_tir_int(3), ref(jv)),
                                              tvm_tir_load_take(ref(A), ref(jv))),
                             tvm_tir_int(3), ref(jv))));
  void* f = tvm_tir_func_take("shift", tvm_tir_list_take(ref(A), ref(B), ref(n), ref(off), ref(d)),
                              tvm_tir_seq_take(s1, s2, s3));
  RELEASE(A, B, n, off, d, i, r, j, jo, ji, jd, jv);
  return f;
}

/* B as the reference computes it (off and d in range). */
static void expected(const float* a, int n, int off, int d, float* b) {
  for (int e = 0; e < 32; ++e) b[e] = 0;
  for (int i = 0; i < n; ++i) b[i + off] = a[i];
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 8; ++j) b[r * 8 + j] += j + d < 8 ? a[j + d] : 0;
  for (int j = 0; j < 8; ++j) b[24 + j] += a[j];
}

static void check_shift(void* fn) {
  float a[8], buf[40], want[32];
  for (int e = 0; e < 8; ++e) a[e] = (float)(e + 1);
  float* b = buf + 4; /* guard cells: buf[0..3] and buf[36..39] */
  int64_t sa[1] = {8}, sb[2] = {4, 8};
  DLTensor ta = dl(a, TVM_TIR_FLOAT32, 1, sa, NULL), tb = dl(b, TVM_TIR_FLOAT32, 2, sb, NULL);
  TVMFFIAny args[5] = {T(&ta), T(&tb), I(8), I(0), I(3)}, r;
  for (int e = 0; e < 40; ++e) buf[e] = -1;
  for (int e = 0; e < 32; ++e) b[e] = 0;
  CHECK_OK(tvm_ffi_function_call(fn, args, 5, &r));
  expected(a, 8, 0, 3, want);
  bool ok = true;
  for (int e = 0; e < 32; ++e) ok &= b[e] == want[e];
  CHECK(ok);
  /* i + off reaches 8 at i = 5: refused before the write. */
  args[3] = I(3);
  EXPECT_CALL_ERR(fn, args, 5, "IndexError",
                  "shift: buffer B: index [0, 8] is out of bounds for shape [4, 8]");
  args[3] = I(-1);
  EXPECT_CALL_ERR(fn, args, 5, "IndexError",
                  "shift: buffer B: index [0, -1] is out of bounds for shape [4, 8]");
  /* A read past A: n = 9. */
  args[2] = I(9);
  args[3] = I(-1);
  EXPECT_CALL_ERR(fn, args, 5, "IndexError", "shift: buffer B: index [0, -1]");
  args[3] = I(0);
  EXPECT_CALL_ERR(fn, args, 5, "IndexError",
                  "shift: buffer A: index [8] is out of bounds for shape [8]");
  bool guards = true;
  for (int e = 0; e < 4; ++e) guards &= buf[e] == -1 && buf[36 + e] == -1;
  CHECK(guards);
  /* d = 0 .. 8: the padding's load A[j + d] is only evaluated where j + d < 8. */
  args[2] = I(4);
  for (int d = 0; d <= 8; ++d) {
    args[4] = I(d);
    for (int e = 0; e < 32; ++e) b[e] = 0;
    CHECK_OK(tvm_ffi_function_call(fn, args, 5, &r));
    expected(a, 4, 0, d, want);
    ok = true;
    for (int e = 0; e < 32; ++e) ok &= b[e] == want[e];
    CHECK(ok);
  }
}

TEST(bounds_check_raises_index_error) {
  void* f = make_shift();
  tvm_tir_lower_options lo = tvm_tir_lower_options_default();
  lo.bounds_check = true;
  void* g = f ? tvm_tir_lower(f, &lo) : NULL;
  CHECK(g != NULL);
  void* jit = NULL;
  void* fn = g ? build_fn_(__LINE__, g, "shift", &jit) : NULL;
  if (fn) check_shift(fn);
  RELEASE(fn, jit);
  char path[512];
  void* lib = g ? EXPORT_LOAD(g, "bounds", path) : NULL;
  fn = lib ? GET_FN(lib, "shift") : NULL;
  if (fn) check_shift(fn);
  RELEASE(fn, lib);
  if (g && !getenv("TVM_CODEGEN_KEEP")) unlink(path);
  /* Without the option there is no check in the code. */
  void* plain = f ? tvm_tir_lower(f, NULL) : NULL;
  TVMFFIAny ir = tvm_ffi_any_none();
  TVMFFIByteArray text;
  if (plain) CHECK_OK(tvm_codegen_emit_llvm_ir(plain, NULL, &ir));
  if (tvm_ffi_any_as_bytes(&ir, &text)) CHECK(strstr(text.data, "out of bounds") == NULL);
  tvm_ffi_any_release(&ir);
  if (g) CHECK_OK(tvm_codegen_emit_llvm_ir(g, NULL, &ir));
  if (tvm_ffi_any_as_bytes(&ir, &text)) CHECK(strstr(text.data, "out of bounds") != NULL);
  tvm_ffi_any_release(&ir);
  RELEASE(plain, g, f);
}

int main(void) {
  RUN(bounds_check_raises_index_error);
  return test_summary();
}

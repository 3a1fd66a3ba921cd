/*
 * test_codegen_matrix.c: the rest of the differential test matrix (conv2d with padding,
 * unrolled loops, match_buffer with elem_offset) against the interpreter on random inputs, and
 * the packed API's argument checks on the same kernel compiled by the JIT and exported to a
 * shared library (each bad call a clear error, no crash).
 */
#include "codegen_testing.h"

/* Out[n, k, h, w] = sum_{c, r, s} pad(X)[n, c, h + r - 1, w + s - 1] * W[k, c, r, s] over NCHW
 * (2, 3, 6, 5) -> (2, 4, 6, 5), a 3x3 kernel with padding 1. The padding reads as 0 through
 * tir.if_then_else (predicate = false) or through an IfThenElse statement guarding the update
 * (predicate = true). in_t: the input dtype; acc_t: the accumulator and output dtype. */
static void* make_conv2d(const char* name, DLDataType in_t, DLDataType acc_t, bool predicate) {
  enum { N = 2, C = 3, H = 6, W = 5, K = 4, R = 3 };
  tvm_tir_buffer_obj* X = tvm_tir_buffer_decl("X", in_t, N, C, H, W);
  tvm_tir_buffer_obj* Wt = tvm_tir_buffer_decl("W", in_t, K, C, R, R);
  tvm_tir_buffer_obj* O = tvm_tir_buffer_decl("O", acc_t, N, K, H, W);
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  tvm_tir_var_obj* h = tvm_tir_var("h", TVM_TIR_INT32);
  tvm_tir_var_obj* w = tvm_tir_var("w", TVM_TIR_INT32);
  tvm_tir_var_obj* c = tvm_tir_var("c", TVM_TIR_INT32);
  tvm_tir_var_obj* r = tvm_tir_var("r", TVM_TIR_INT32);
  tvm_tir_var_obj* s = tvm_tir_var("s", TVM_TIR_INT32);
  void* y = tvm_tir_sub_take(tvm_tir_add_take(ref(h), ref(r)), tvm_tir_int(1));
  void* x = tvm_tir_sub_take(tvm_tir_add_take(ref(w), ref(s)), tvm_tir_int(1));
  void* inside = tvm_tir_and_take(tvm_tir_and_take(tvm_tir_ge_take(ref(y), tvm_tir_int(0)),
                                                   tvm_tir_lt_take(ref(y), tvm_tir_int(H))),
                                  tvm_tir_and_take(tvm_tir_ge_take(ref(x), tvm_tir_int(0)),
                                                   tvm_tir_lt_take(ref(x), tvm_tir_int(W))));
  void* xv = tvm_tir_cast_take(acc_t, tvm_tir_load_take(ref(X), ref(n), ref(c), ref(y), ref(x)));
  void* wv = tvm_tir_cast_take(acc_t, tvm_tir_load_take(ref(Wt), ref(k), ref(c), ref(r), ref(s)));
  void* acc = tvm_tir_load_take(ref(O), ref(n), ref(k), ref(h), ref(w));
  void* update;
  if (predicate) {
    update =
        tvm_tir_if_take(inside,
                        tvm_tir_store_take(ref(O), tvm_tir_add_take(acc, tvm_tir_mul_take(xv, wv)),
                                           ref(n), ref(k), ref(h), ref(w)),
                        NULL);
  } else {
    void* padded =
        tvm_tir_call_take(acc_t, "tir.if_then_else", inside, xv, tvm_tir_const(acc_t, 0));
    update = tvm_tir_store_take(ref(O), tvm_tir_add_take(acc, tvm_tir_mul_take(padded, wv)), ref(n),
                                ref(k), ref(h), ref(w));
  }
  void* reduce = tvm_tir_serial_take(
      ref(c), tvm_tir_int(0), tvm_tir_int(C),
      tvm_tir_serial_take(
          ref(r), tvm_tir_int(0), tvm_tir_int(R),
          tvm_tir_for_take(ref(s), tvm_tir_int(0), tvm_tir_int(R), TVM_TIR_FOR_UNROLLED, update)));
  void* body = tvm_tir_seq_take(
      tvm_tir_store_take(ref(O), tvm_tir_const(acc_t, 0), ref(n), ref(k), ref(h), ref(w)), reduce);
  for (int d = 3; d >= 0; --d) {
    tvm_tir_var_obj* v = (tvm_tir_var_obj*[]){n, k, h, w}[d];
    int64_t ext = (int64_t[]){N, K, H, W}[d];
    body = tvm_tir_for_take(ref(v), tvm_tir_int(0), tvm_tir_int(ext),
                            d == 1 ? TVM_TIR_FOR_PARALLEL : TVM_TIR_FOR_SERIAL, body);
  }
  void* f = tvm_tir_func_take(name, tvm_tir_list_take(ref(X), ref(Wt), ref(O)), body);
  RELEASE(X, Wt, O, n, k, h, w, c, r, s, y, x);
  return f;
}

TEST(conv2d_nchw_padded) {
  for (int pred = 0; pred < 2; ++pred) {
    void* f = make_conv2d("conv_f32", TVM_TIR_FLOAT32, TVM_TIR_FLOAT32, pred);
    DIFF(f, .seed = 31);
    tvm_ffi_release(f);
    f = make_conv2d("conv_i8", TVM_TIR_INT8, TVM_TIR_INT32, pred); /* int8 in, int32 accumulate */
    DIFF(f, .seed = 32, .wide = 1);
    tvm_ffi_release(f);
    f = make_conv2d("conv_f64", TVM_TIR_FLOAT64, TVM_TIR_FLOAT64, pred);
    DIFF(f, .seed = 33);
    tvm_ffi_release(f);
  }
}

TEST(unrolled_loops) {
  DLDataType types[] = {TVM_TIR_INT8, TVM_TIR_INT32, TVM_TIR_FLOAT16, TVM_TIR_FLOAT32,
                        TVM_TIR_FLOAT64};
  for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); ++t) {
    void* f = make_binary("unrolled", types[t], 3, 7, TVM_TIR_KIND_Mul, TVM_TIR_FOR_UNROLLED);
    DIFF(f, .seed = 40 + (unsigned)t);
    tvm_ffi_release(f);
  }
}

/* The aliases S, S2, S3 of A (tir_testing.h; S3 with symbolic strides and elem_offset bound by
 * the match): read-modify-write through each, so the random contents of A matter. */
TEST(match_buffer_elem_offset) {
  tvm_tir_testing_aliases al;
  if (tvm_tir_testing_make_aliases(&al) != 0) {
    CHECK_OK(-1);
    return;
  }
  tvm_tir_buffer_obj *A = al.A, *S = al.S, *S2 = al.S2, *S3 = al.S3;
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* q = tvm_tir_var("q", TVM_TIR_INT32);
  void* body = tvm_tir_seq_take(
      tvm_tir_serial_take(
          ref(i), tvm_tir_int(0), tvm_tir_int(2),
          tvm_tir_serial_take(
              ref(j), tvm_tir_int(0), tvm_tir_int(3),
              tvm_tir_store_take(
                  ref(S),
                  tvm_tir_add_take(
                      tvm_tir_mul_take(tvm_tir_load_take(ref(S), ref(i), ref(j)), tvm_tir_int(10)),
                      tvm_tir_add_take(ref(i), ref(j))),
                  ref(i), ref(j)))),
      tvm_tir_serial_take(
          ref(q), tvm_tir_int(0), tvm_tir_int(3),
          tvm_tir_store_take(ref(S2), tvm_tir_sub_take(tvm_tir_load_take(ref(S2), ref(q)), ref(q)),
                             ref(q))),
      tvm_tir_store_take(
          ref(S3),
          tvm_tir_add_take(tvm_tir_load_take(ref(S3), tvm_tir_int(0), tvm_tir_int(1)), ref(al.off)),
          tvm_tir_int(0), tvm_tir_int(0)),
      tvm_tir_store_take(ref(S3), tvm_tir_mul_take(ref(al.s0), ref(al.s1)), tvm_tir_int(0),
                         tvm_tir_int(1)));
  void* f = tvm_tir_func_take("aliases", tvm_tir_list_take(ref(A)),
                              tvm_tir_testing_block_with_matches(ref(al.match_buffers), body));
  DIFF(f, .seed = 50);
  DIFF(f, .seed = 51, .wide = 1);
  RELEASE(i, j, q, f);
  tvm_tir_testing_aliases_release(&al);
}

/* ---- Bad calls: the same checks on the JIT and on an exported library --------------------- */
/* fn is "add" over (4, 8) float32 A, B, C. */
static void check_bad_calls(void* fn) {
  float a[64], b[64], c[64];
  int8_t i8[32];
  for (int e = 0; e < 64; ++e) a[e] = b[e] = (float)e;
  int64_t shape[2] = {4, 8}, bad_shape[2] = {4, 9}, strides[2] = {1, 4}, compact[2] = {8, 1};
  DLTensor ta = dl(a, TVM_TIR_FLOAT32, 2, shape, NULL), tb = dl(b, TVM_TIR_FLOAT32, 2, shape, NULL),
           tc = dl(c, TVM_TIR_FLOAT32, 2, shape, NULL);
  TVMFFIAny args[4] = {T(&ta), T(&tb), T(&tc), T(&tc)}, r;
  EXPECT_CALL_ERR(fn, args, 4, "TypeError", "add: expected 3 arguments, got 4");
  EXPECT_CALL_ERR(fn, args, 0, "TypeError", "add: expected 3 arguments, got 0");
  args[1] = F(1.5);
  EXPECT_CALL_ERR(fn, args, 3, "TypeError",
                  "add: argument B: expected a Tensor (DLTensor* or ffi.Tensor), got float");
  DLTensor t8 = dl(i8, TVM_TIR_INT8, 2, shape, NULL);
  args[1] = T(&t8);
  EXPECT_CALL_ERR(fn, args, 3, "ValueError", "add: argument B: expected dtype float32, got int8");
  DLTensor t3 = dl(b, TVM_TIR_FLOAT32, 3, (int64_t[]){4, 8, 1}, NULL);
  args[1] = T(&t3);
  EXPECT_CALL_ERR(fn, args, 3, "ValueError", "add: argument B: ndim: expected 2, got 3");
  DLTensor tbs = dl(b, TVM_TIR_FLOAT32, 2, bad_shape, NULL);
  args[1] = T(&tbs);
  EXPECT_CALL_ERR(fn, args, 3, "ValueError", "add: argument B: shape[1]: expected 8, got 9");
  DLTensor tn = dl(NULL, TVM_TIR_FLOAT32, 2, shape, NULL);
  args[1] = T(&tn);
  EXPECT_CALL_ERR(fn, args, 3, "ValueError", "add: argument B: data is NULL");
  DLTensor tt = dl(b, TVM_TIR_FLOAT32, 2, shape, strides); /* a transposed view */
  args[1] = T(&tt);
  EXPECT_CALL_ERR(fn, args, 3, "ValueError",
                  "add: argument B: not compact: strides[0]: expected 8, got 1");
  args[1] = tvm_ffi_any_dltensor(NULL);
  args[1].type_index = kTVMFFIDLTensorPtr;
  EXPECT_CALL_ERR(fn, args, 3, "ValueError", "add: argument B: got a NULL DLTensor*");
  /* After all that, good calls (explicit compact strides too) still compute. */
  DLTensor tcs = dl(b, TVM_TIR_FLOAT32, 2, shape, compact);
  args[1] = T(&tcs);
  CHECK_OK(tvm_ffi_function_call(fn, args, 3, &r));
  bool ok = true;
  for (int e = 0; e < 32; ++e) ok &= c[e] == 2.0f * (float)e;
  CHECK(ok);
}

/* n bound by A's shape, checked against B's. */
static void check_symbolic_mismatch(void* fn) {
  float a[8], b[8];
  for (int e = 0; e < 8; ++e) a[e] = (float)e;
  int64_t s7[1] = {7}, s8[1] = {8};
  DLTensor ta = dl(a, TVM_TIR_FLOAT32, 1, s7, NULL), tb = dl(b, TVM_TIR_FLOAT32, 1, s8, NULL);
  TVMFFIAny args[2] = {T(&ta), T(&tb)}, r;
  EXPECT_CALL_ERR(fn, args, 2, "ValueError", "dyn_copy: argument B: shape[0]: expected 7, got 8");
  tb.shape = s7;
  CHECK_OK(tvm_ffi_function_call(fn, args, 2, &r));
  CHECK(b[6] == 6);
}

static void* make_dyn_copy(void) {
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_buffer_obj* A =
      tvm_tir_buffer_decl_takev("A", TVM_TIR_FLOAT32, 1, (void*[]){ref(n)}, NULL);
  tvm_tir_buffer_obj* B =
      tvm_tir_buffer_decl_takev("B", TVM_TIR_FLOAT32, 1, (void*[]){ref(n)}, NULL);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body =
      tvm_tir_serial_take(ref(i), tvm_tir_int(0), ref(n),
                          tvm_tir_store_take(ref(B), tvm_tir_load_take(ref(A), ref(i)), ref(i)));
  void* f = tvm_tir_func_take("dyn_copy", tvm_tir_list_take(ref(A), ref(B)), body);
  RELEASE(n, A, B, i);
  return f;
}

TEST(bad_calls_jit_and_exported) {
  void* f1 = make_binary("add", TVM_TIR_FLOAT32, 4, 8, TVM_TIR_KIND_Add, TVM_TIR_FOR_VECTORIZED);
  void* f2 = make_dyn_copy();
  void* mod = tvm_tir_module_take(f1, f2);
  void* g = mod ? tvm_tir_lower(mod, NULL) : NULL;
  void* jit = g ? tvm_codegen_build(g, NULL, NULL) : NULL;
  CHECK(jit != NULL);
  char path[512];
  void* lib = g ? EXPORT_LOAD(g, "badcalls", path) : NULL;
  void* mods[2] = {jit, lib};
  for (int k = 0; k < 2; ++k) {
    void* fn = mods[k] ? GET_FN(mods[k], "add") : NULL;
    if (fn) check_bad_calls(fn);
    tvm_ffi_release(fn);
    fn = mods[k] ? GET_FN(mods[k], "dyn_copy") : NULL;
    if (fn) check_symbolic_mismatch(fn);
    tvm_ffi_release(fn);
  }
  RELEASE(jit, lib);
  if (g && !getenv("TVM_CODEGEN_KEEP")) unlink(path);
  RELEASE(mod, g);
}

/* ---- Integer division by a run-time divisor ------------------------------------------------ */
/* B[i] = A[i] / d, C[i] = floormod(A[i], d) (d a scalar parameter), D[i] = floordiv(A[i], V[i])
 * vectorized by 4 (divisors from a buffer), over int32 of 8. */
static void* make_divs(void) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 8);
  tvm_tir_buffer_obj* V = tvm_tir_buffer_decl("V", TVM_TIR_INT32, 8);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_INT32, 8);
  tvm_tir_buffer_obj* C = tvm_tir_buffer_decl("C", TVM_TIR_INT32, 8);
  tvm_tir_buffer_obj* D = tvm_tir_buffer_decl("D", TVM_TIR_INT32, 8);
  tvm_tir_var_obj* d = tvm_tir_var("d", TVM_TIR_INT32);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* jo = tvm_tir_var("jo", TVM_TIR_INT32);
  tvm_tir_var_obj* ji = tvm_tir_var("ji", TVM_TIR_INT32);
  void* j = tvm_tir_add_take(tvm_tir_mul_take(ref(jo), tvm_tir_int(4)), ref(ji));
  void* scalar = tvm_tir_serial_take(
      ref(i), tvm_tir_int(0), tvm_tir_int(8),
      tvm_tir_seq_take(
          tvm_tir_store_take(ref(B), tvm_tir_div_take(tvm_tir_load_take(ref(A), ref(i)), ref(d)),
                             ref(i)),
          tvm_tir_store_take(
              ref(C), tvm_tir_floormod_take(tvm_tir_load_take(ref(A), ref(i)), ref(d)), ref(i))));
  void* vec = tvm_tir_serial_take(
      ref(jo), tvm_tir_int(0), tvm_tir_int(2),
      tvm_tir_for_take(ref(ji), tvm_tir_int(0), tvm_tir_int(4), TVM_TIR_FOR_VECTORIZED,
                       tvm_tir_store_take(ref(D),
                                          tvm_tir_floordiv_take(tvm_tir_load_take(ref(A), ref(j)),
                                                                tvm_tir_load_take(ref(V), ref(j))),
                                          ref(j))));
  void* f =
      tvm_tir_func_take("divs", tvm_tir_list_take(ref(A), ref(V), ref(d), ref(B), ref(C), ref(D)),
                        tvm_tir_seq_take(scalar, vec));
  RELEASE(A, V, B, C, D, d, i, jo, ji, j);
  return f;
}

static void check_divs(void* fn) {
  int32_t a[8], v[8], b[8], c[8], dd[8];
  for (int e = 0; e < 8; ++e) {
    a[e] = e * 7 - 20;
    v[e] = e - 9;
  }
  int64_t shape[1] = {8};
  DLTensor t[5] = {dl(a, TVM_TIR_INT32, 1, shape, NULL), dl(v, TVM_TIR_INT32, 1, shape, NULL),
                   dl(b, TVM_TIR_INT32, 1, shape, NULL), dl(c, TVM_TIR_INT32, 1, shape, NULL),
                   dl(dd, TVM_TIR_INT32, 1, shape, NULL)};
  TVMFFIAny args[6] = {T(&t[0]), T(&t[1]), I(0), T(&t[2]), T(&t[3]), T(&t[4])}, r;
  EXPECT_CALL_ERR(fn, args, 6, "ValueError", "divs: Div: integer division by zero");
  args[2] = I(-1);
  a[0] = INT32_MIN; /* MIN / -1 wraps, as in the interpreter */
  CHECK_OK(tvm_ffi_function_call(fn, args, 6, &r));
  CHECK(b[0] == INT32_MIN && c[0] == 0 && b[1] == 13 && c[1] == 0);
  v[6] = 0;
  EXPECT_CALL_ERR(fn, args, 6, "ValueError", "divs: FloorDiv: integer division by zero");
  v[6] = -1;
  a[6] = INT32_MIN;
  CHECK_OK(tvm_ffi_function_call(fn, args, 6, &r));
  CHECK(dd[6] == INT32_MIN);
}

TEST(division_by_runtime_divisors) {
  void* f = make_divs();
  DIFF(f, .seed = 60);
  DIFF(f, .seed = 61, .wide = 1);
  void* g = tvm_tir_lower(f, NULL);
  void* jit = g ? tvm_codegen_build(g, NULL, NULL) : NULL;
  char path[512];
  void* lib = g ? EXPORT_LOAD(g, "divs", path) : NULL;
  void* mods[2] = {jit, lib};
  for (int k = 0; k < 2; ++k) {
    void* fn = mods[k] ? GET_FN(mods[k], "divs") : NULL;
    if (fn) check_divs(fn);
    tvm_ffi_release(fn);
  }
  RELEASE(jit, lib);
  if (g && !getenv("TVM_CODEGEN_KEEP")) unlink(path);
  RELEASE(f, g);
  /* Constant divisors (index arithmetic) and kernels without division get no check at all. */
  void* kernels[2] = {NULL, tvm_tir_testing_make_matmul("", 16, 16, 16)};
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 12);
  kernels[0] = tvm_tir_func_take(
      "cdiv", tvm_tir_list_take(ref(A)),
      tvm_tir_serial_take(
          ref(i), tvm_tir_int(0), tvm_tir_int(12),
          tvm_tir_store_take(
              ref(A),
              tvm_tir_add_take(
                  tvm_tir_floordiv_take(tvm_tir_load_take(ref(A), ref(i)), tvm_tir_int(3)),
                  tvm_tir_mod_take(ref(i), tvm_tir_int(-5))),
              ref(i))));
  for (int k = 0; k < 2; ++k) {
    void* gk = kernels[k] ? tvm_tir_lower(kernels[k], NULL) : NULL;
    TVMFFIAny ir = tvm_ffi_any_none();
    TVMFFIByteArray text;
    if (gk) CHECK_OK(tvm_codegen_emit_llvm_ir(gk, NULL, &ir));
    if (tvm_ffi_any_as_bytes(&ir, &text)) CHECK(strstr(text.data, "division by zero") == NULL);
    tvm_ffi_any_release(&ir);
    RELEASE(kernels[k], gk);
  }
  RELEASE(i, A);
}

int main(void) {
  RUN(conv2d_nchw_padded);
  RUN(unrolled_loops);
  RUN(match_buffer_elem_offset);
  RUN(bad_calls_jit_and_exported);
  RUN(division_by_runtime_divisors);
  return test_summary();
}

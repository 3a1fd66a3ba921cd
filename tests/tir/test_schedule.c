/*
 * test_schedule.c: the default CPU schedule's rules (tvm/tir/schedule.h). Every kernel is built
 * the way LegalizeOps builds them (plain loop nests, output-buffer accumulation), transformed by
 * each rule alone and by the whole default schedule for 128-, 256- and 512-bit vectors, checked
 * well formed, and run in the interpreter before and after on the same random inputs: the
 * outputs must be equal byte for byte (the rules never reorder a reduction). Odd shapes (not
 * multiples of the vector width, 1-sized dims) and symbolic shapes included.
 */
#include "test_transform.h"

#define TIR_IS_FOR(n) (tvm_tir_kind_of(n) == TVM_TIR_KIND_For)

#define F32 TVM_TIR_FLOAT32
#define I64 tvm_tir_dtype_int(64)

/* A dim: a constant, or the Var n when v < 0. */
static void* dimv(int64_t v, tvm_tir_var_obj* n) { return v < 0 ? ref(n) : (void*)tvm_tir_i64(v); }

static tvm_tir_buffer_obj* buf(const char* name, DLDataType t, int nd, const int64_t* dims,
                               tvm_tir_var_obj* n) {
  void* shape[4];
  for (int i = 0; i < nd; ++i) shape[i] = dimv(dims[i], n);
  return tvm_tir_buffer_decl_takev(name, t, nd, shape, NULL);
}

static void* ext(tvm_tir_buffer_obj* b, int d) { return ref(tvm_ffi_seq_obj_at(b->shape, d)); }

static void* loop(tvm_tir_var_obj* v, void* extent, void* body) {
  return tvm_tir_serial_take(ref(v), tvm_tir_i64(0), extent, body);
}

/* Params (n first when symbolic). */
static void* params(tvm_tir_var_obj* n, int k, tvm_tir_buffer_obj** bufs) {
  void* items[8];
  int m = 0;
  if (n) items[m++] = ref(n);
  for (int i = 0; i < k; ++i) items[m++] = ref(bufs[i]);
  return tvm_tir_list_takev(m, items);
}

/* C[i, j] = 0; for k: C[i, j] = C[i, j] + A[i, k] * B[k, j]. M < 0: symbolic rows n. */
static void* make_matmul(int64_t M, int64_t K, int64_t N) {
  tvm_tir_var_obj* n = M < 0 ? tvm_tir_var("n", I64) : NULL;
  tvm_tir_buffer_obj* A = buf("A", F32, 2, (int64_t[]){M, K}, n);
  tvm_tir_buffer_obj* B = buf("B", F32, 2, (int64_t[]){K, N}, n);
  tvm_tir_buffer_obj* C = buf("C", F32, 2, (int64_t[]){M, N}, n);
  tvm_tir_var_obj *i = tvm_tir_var("i", I64), *j = tvm_tir_var("j", I64), *k = tvm_tir_var("k", I64);
  void* upd = tvm_tir_store_take(
      ref(C),
      tvm_tir_add_take(tvm_tir_load_take(ref(C), ref(i), ref(j)),
                       tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i), ref(k)),
                                        tvm_tir_load_take(ref(B), ref(k), ref(j)))),
      ref(i), ref(j));
  void* init = tvm_tir_store_take(ref(C), tvm_tir_f32(0), ref(i), ref(j));
  void* body = loop(i, ext(C, 0), loop(j, ext(C, 1), tvm_tir_seq_take(init, loop(k, ext(A, 1), upd))));
  void* f = tvm_tir_func_take("matmul", params(n, 3, (tvm_tir_buffer_obj*[]){A, B, C}), body);
  RELEASE(n, A, B, C, i, j, k);
  return f;
}

/* Batch matmul with a broadcast right operand: C[b, i, j] = sum_k A[b, i, k] * B[k, j]. */
static void* make_batch_matmul(int64_t Bt, int64_t M, int64_t K, int64_t N) {
  tvm_tir_var_obj* n = Bt < 0 ? tvm_tir_var("n", I64) : NULL;
  tvm_tir_buffer_obj* A = buf("A", F32, 3, (int64_t[]){Bt, M, K}, n);
  tvm_tir_buffer_obj* B = buf("B", F32, 2, (int64_t[]){K, N}, n);
  tvm_tir_buffer_obj* C = buf("C", F32, 3, (int64_t[]){Bt, M, N}, n);
  tvm_tir_var_obj *b = tvm_tir_var("b", I64), *i = tvm_tir_var("i", I64), *j = tvm_tir_var("j", I64),
                  *k = tvm_tir_var("k", I64);
  void* upd = tvm_tir_store_take(
      ref(C),
      tvm_tir_add_take(tvm_tir_load_take(ref(C), ref(b), ref(i), ref(j)),
                       tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(b), ref(i), ref(k)),
                                        tvm_tir_load_take(ref(B), ref(k), ref(j)))),
      ref(b), ref(i), ref(j));
  void* init = tvm_tir_store_take(ref(C), tvm_tir_f32(0), ref(b), ref(i), ref(j));
  void* body = loop(b, ext(C, 0),
                    loop(i, ext(C, 1), loop(j, ext(C, 2), tvm_tir_seq_take(init, loop(k, ext(A, 2), upd)))));
  void* f = tvm_tir_func_take("bmm", params(n, 3, (tvm_tir_buffer_obj*[]){A, B, C}), body);
  RELEASE(n, A, B, C, b, i, j, k);
  return f;
}

/* C[i, j] = max(A[i, j] + Bias[j], 0). */
static void* make_eltwise(int64_t M, int64_t N) {
  tvm_tir_var_obj* n = M < 0 || N < 0 ? tvm_tir_var("n", I64) : NULL;
  tvm_tir_buffer_obj* A = buf("A", F32, 2, (int64_t[]){M, N}, n);
  tvm_tir_buffer_obj* Bias = buf("Bias", F32, 1, (int64_t[]){N}, n);
  tvm_tir_buffer_obj* C = buf("C", F32, 2, (int64_t[]){M, N}, n);
  tvm_tir_var_obj *i = tvm_tir_var("i", I64), *j = tvm_tir_var("j", I64);
  void* st = tvm_tir_store_take(
      ref(C),
      tvm_tir_max_take(tvm_tir_add_take(tvm_tir_load_take(ref(A), ref(i), ref(j)),
                                        tvm_tir_load_take(ref(Bias), ref(j))),
                       tvm_tir_f32(0)),
      ref(i), ref(j));
  void* body = loop(i, ext(C, 0), loop(j, ext(C, 1), st));
  void* f = tvm_tir_func_take("eltwise", params(n, 3, (tvm_tir_buffer_obj*[]){A, Bias, C}), body);
  RELEASE(n, A, Bias, C, i, j);
  return f;
}

/* conv2d NCHW/OIHW, 3x3, padding 1, as legalize_conv.c writes it (the window test a condition). */
static void* make_conv(int64_t Nb, int64_t Ci, int64_t H, int64_t W, int64_t Co) {
  tvm_tir_var_obj* n = Nb < 0 ? tvm_tir_var("n", I64) : NULL;
  tvm_tir_buffer_obj* X = buf("X", F32, 4, (int64_t[]){Nb, Ci, H, W}, n);
  tvm_tir_buffer_obj* Wt = buf("W", F32, 4, (int64_t[]){Co, Ci, 3, 3}, n);
  tvm_tir_buffer_obj* O = buf("O", F32, 4, (int64_t[]){Nb, Co, H, W}, n);
  tvm_tir_var_obj* v[4];
  tvm_tir_var_obj* r[3];
  for (int q = 0; q < 4; ++q) v[q] = tvm_tir_var((const char*[]){"i0", "i1", "i2", "i3"}[q], I64);
  for (int q = 0; q < 3; ++q) r[q] = tvm_tir_var((const char*[]){"r0", "r1", "r2"}[q], I64);
  void* py = tvm_tir_add_take(tvm_tir_sub_take(ref(v[2]), tvm_tir_i64(1)), ref(r[1]));
  void* px = tvm_tir_add_take(tvm_tir_sub_take(ref(v[3]), tvm_tir_i64(1)), ref(r[2]));
  void* cond = tvm_tir_and_take(
      tvm_tir_and_take(tvm_tir_ge_take(ref(py), tvm_tir_i64(0)), tvm_tir_lt_take(ref(py), ext(X, 2))),
      tvm_tir_and_take(tvm_tir_ge_take(ref(px), tvm_tir_i64(0)), tvm_tir_lt_take(ref(px), ext(X, 3))));
  void* prod = tvm_tir_mul_take(tvm_tir_load_take(ref(X), ref(v[0]), ref(r[0]), py, px),
                                tvm_tir_load_take(ref(Wt), ref(v[1]), ref(r[0]), ref(r[1]), ref(r[2])));
  void* acc = tvm_tir_store_take(
      ref(O), tvm_tir_add_take(tvm_tir_load_take(ref(O), ref(v[0]), ref(v[1]), ref(v[2]), ref(v[3])), prod),
      ref(v[0]), ref(v[1]), ref(v[2]), ref(v[3]));
  void* red = loop(r[0], ext(Wt, 1), loop(r[1], tvm_tir_i64(3), loop(r[2], tvm_tir_i64(3), tvm_tir_if_take(cond, acc, NULL))));
  void* init = tvm_tir_store_take(ref(O), tvm_tir_f32(0), ref(v[0]), ref(v[1]), ref(v[2]), ref(v[3]));
  void* body = loop(v[0], ext(O, 0),
                    loop(v[1], ext(O, 1),
                         loop(v[2], ext(O, 2), loop(v[3], ext(O, 3), tvm_tir_seq_take(init, red)))));
  void* f = tvm_tir_func_take("conv", params(n, 3, (tvm_tir_buffer_obj*[]){X, Wt, O}), body);
  RELEASE(n, X, Wt, O, v[0], v[1], v[2], v[3], r[0], r[1], r[2]);
  return f;
}

/* O[i] = sum_k A[i, k] (a reduction over the contiguous axis). */
static void* make_rowreduce(int64_t M, int64_t N, tvm_tir_kind op, bool cols);
static void* make_rowsum(int64_t M, int64_t N) { return make_rowreduce(M, N, TVM_TIR_KIND_Add, false); }

/* O[i] = O[i] op A[i, k] over k (A[k, i]: a column reduction when cols), op Add / Max, with
 * an init store before the k loop (0, or A[i, 0] for max). */
static void* make_rowreduce(int64_t M, int64_t N, tvm_tir_kind op, bool cols) {
  tvm_tir_buffer_obj* A = buf("A", F32, 2, cols ? (int64_t[]){N, M} : (int64_t[]){M, N}, NULL);
  tvm_tir_buffer_obj* O = buf("O", F32, 1, (int64_t[]){M}, NULL);
  tvm_tir_var_obj *i = tvm_tir_var("i", I64), *k = tvm_tir_var("k", I64);
  void* a = cols ? tvm_tir_load_take(ref(A), ref(k), ref(i)) : tvm_tir_load_take(ref(A), ref(i), ref(k));
  void* o = tvm_tir_load_take(ref(O), ref(i));
  void* upd = tvm_tir_store_take(ref(O), op == TVM_TIR_KIND_Max ? tvm_tir_max_take(a, o) : tvm_tir_add_take(o, a), ref(i));
  void* init = op == TVM_TIR_KIND_Max ? (void*)tvm_tir_load_take(ref(A), cols ? tvm_tir_i64(0) : ref(i), cols ? ref(i) : tvm_tir_i64(0))
                                      : (void*)tvm_tir_f32(0);
  void* body = loop(i, ext(O, 0), tvm_tir_seq_take(tvm_tir_store_take(ref(O), init, ref(i)), loop(k, tvm_tir_i64(N), upd)));
  void* f = tvm_tir_func_take("rowreduce", params(NULL, 2, (tvm_tir_buffer_obj*[]){A, O}), body);
  RELEASE(A, O, i, k);
  return f;
}

/* O[0] = A[0]; for i in [1, N): O[i] = O[i - 1] + A[i]: iterations depend on each other. */
static void* make_prefix(int64_t N) {
  tvm_tir_buffer_obj* A = buf("A", F32, 1, (int64_t[]){N}, NULL);
  tvm_tir_buffer_obj* O = buf("O", F32, 1, (int64_t[]){N}, NULL);
  tvm_tir_var_obj* i = tvm_tir_var("i", I64);
  void* st = tvm_tir_store_take(
      ref(O),
      tvm_tir_add_take(tvm_tir_load_take(ref(O), tvm_tir_sub_take(ref(i), tvm_tir_i64(1))),
                       tvm_tir_load_take(ref(A), ref(i))),
      ref(i));
  void* body = tvm_tir_seq_take(
      tvm_tir_store_take(ref(O), tvm_tir_load_take(ref(A), tvm_tir_i64(0)), tvm_tir_i64(0)),
      tvm_tir_serial_take(ref(i), tvm_tir_i64(1), tvm_tir_i64(N - 1), st));
  void* f = tvm_tir_func_take("prefix", params(NULL, 2, (tvm_tir_buffer_obj*[]){A, O}), body);
  RELEASE(A, O, i);
  return f;
}

/* Softmax-like with a scratch accumulator (as legalize_nn.c): for i: s = 0; for k: s += exp(A);
 * for k: O[i, k] = exp(A[i, k]) / s. */
static void* make_softmax(int64_t M, int64_t N) {
  tvm_tir_buffer_obj* A = buf("A", F32, 2, (int64_t[]){M, N}, NULL);
  tvm_tir_buffer_obj* O = buf("O", F32, 2, (int64_t[]){M, N}, NULL);
  tvm_tir_buffer_obj* S = tvm_tir_buffer_declv("s", F32, 1, (int64_t[]){1});
  tvm_tir_var_obj *i = tvm_tir_var("i", I64), *k = tvm_tir_var("k", I64), *k2 = tvm_tir_var("k2", I64);
  void* sum = loop(k, ext(A, 1),
                   tvm_tir_store_take(ref(S),
                                      tvm_tir_add_take(tvm_tir_load_take(ref(S), tvm_tir_i64(0)),
                                                       tvm_tir_call_take(F32, "tir.exp", tvm_tir_load_take(ref(A), ref(i), ref(k)))),
                                      tvm_tir_i64(0)));
  void* out = loop(k2, ext(A, 1),
                   tvm_tir_store_take(ref(O),
                                      tvm_tir_div_take(tvm_tir_call_take(F32, "tir.exp", tvm_tir_load_take(ref(A), ref(i), ref(k2))),
                                                       tvm_tir_load_take(ref(S), tvm_tir_i64(0))),
                                      ref(i), ref(k2)));
  void* inner = tvm_tir_seq_take(tvm_tir_store_take(ref(S), tvm_tir_f32(0), tvm_tir_i64(0)), sum, out);
  void* scoped = tvm_tir_allocate_takev(ref(S->data), F32, 1, (void*[]){tvm_tir_i64(1)},
                                        tvm_tir_decl_buffer_take(ref(S), inner));
  void* body = loop(i, ext(A, 0), scoped);
  void* f = tvm_tir_func_take("softmax", params(NULL, 2, (tvm_tir_buffer_obj*[]){A, O}), body);
  RELEASE(A, O, S, i, k, k2);
  return f;
}

/* A fused dense layer as FuseTIR writes it: the matmul into an intermediate T the function
 * allocates, its epilogue in the same (i, j) nest: C[i, j] = max(T[i, j] + Bias[j], 0). */
static void* make_fused_dense(int64_t M, int64_t K, int64_t N) {
  tvm_tir_buffer_obj* A = buf("A", F32, 2, (int64_t[]){M, K}, NULL);
  tvm_tir_buffer_obj* B = buf("B", F32, 2, (int64_t[]){K, N}, NULL);
  tvm_tir_buffer_obj* Bias = buf("Bias", F32, 1, (int64_t[]){N}, NULL);
  tvm_tir_buffer_obj* C = buf("C", F32, 2, (int64_t[]){M, N}, NULL);
  tvm_tir_buffer_obj* T = tvm_tir_buffer_declv("T", F32, 2, (int64_t[]){M, N});
  tvm_tir_var_obj *i = tvm_tir_var("i", I64), *j = tvm_tir_var("j", I64), *k = tvm_tir_var("k", I64);
  void* upd = tvm_tir_store_take(
      ref(T),
      tvm_tir_add_take(tvm_tir_load_take(ref(T), ref(i), ref(j)),
                       tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i), ref(k)),
                                        tvm_tir_load_take(ref(B), ref(k), ref(j)))),
      ref(i), ref(j));
  void* epi = tvm_tir_store_take(
      ref(C),
      tvm_tir_max_take(tvm_tir_add_take(tvm_tir_load_take(ref(T), ref(i), ref(j)),
                                        tvm_tir_load_take(ref(Bias), ref(j))),
                       tvm_tir_f32(0)),
      ref(i), ref(j));
  void* init = tvm_tir_store_take(ref(T), tvm_tir_f32(0), ref(i), ref(j));
  void* nest = loop(i, ext(C, 0), loop(j, ext(C, 1), tvm_tir_seq_take(init, loop(k, ext(A, 1), upd), epi)));
  void* body = tvm_tir_allocate_takev(ref(T->data), F32, 2, (void*[]){ext(C, 0), ext(C, 1)},
                                      tvm_tir_decl_buffer_take(ref(T), nest));
  void* f = tvm_tir_func_take("fused_dense", params(NULL, 4, (tvm_tir_buffer_obj*[]){A, B, Bias, C}), body);
  RELEASE(A, B, Bias, C, T, i, j, k);
  return f;
}

/* A fused dense layer: the matmul into an intermediate T, then the epilogue, in the same (i, j)
 * loop after the reduction (same_loop, as the fused kernels the model benchmark schedules) or in
 * its own nest after the matmul's. kind 0: C = max(T + Bias, 0); 1: C = T + Bias; 2: C = T + Bias + R
 * (a residual add); 3 (not inlinable): C[i, j] = T[i, N-1-j] (reads T elsewhere than written). */
static void* make_dense_epilogue(int64_t M, int64_t K, int64_t N, int kind, bool same_loop) {
  tvm_tir_buffer_obj* A = buf("A", F32, 2, (int64_t[]){M, K}, NULL);
  tvm_tir_buffer_obj* B = buf("B", F32, 2, (int64_t[]){K, N}, NULL);
  tvm_tir_buffer_obj* Bias = buf("Bias", F32, 1, (int64_t[]){N}, NULL);
  tvm_tir_buffer_obj* R = buf("R", F32, 2, (int64_t[]){M, N}, NULL);
  tvm_tir_buffer_obj* C = buf("C", F32, 2, (int64_t[]){M, N}, NULL);
  tvm_tir_buffer_obj* T = tvm_tir_buffer_declv("T", F32, 2, (int64_t[]){M, N});
  tvm_tir_var_obj *i = tvm_tir_var("i", I64), *j = tvm_tir_var("j", I64), *k = tvm_tir_var("k", I64);
  tvm_tir_var_obj *i2 = tvm_tir_var("i", I64), *j2 = tvm_tir_var("j", I64);
  void* upd = tvm_tir_store_take(
      ref(T),
      tvm_tir_add_take(tvm_tir_load_take(ref(T), ref(i), ref(j)),
                       tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i), ref(k)),
                                        tvm_tir_load_take(ref(B), ref(k), ref(j)))),
      ref(i), ref(j));
  void* init = tvm_tir_store_take(ref(T), tvm_tir_f32(0), ref(i), ref(j));
  tvm_tir_var_obj *ei = same_loop ? i : i2, *ej = same_loop ? j : j2;
  void* t = kind == 3 ? tvm_tir_load_take(ref(T), ref(ei), tvm_tir_sub_take(tvm_tir_i64(N - 1), ref(ej)))
                      : tvm_tir_load_take(ref(T), ref(ei), ref(ej));
  void* v = kind == 3 ? t : tvm_tir_add_take(t, tvm_tir_load_take(ref(Bias), ref(ej)));
  if (kind == 0) v = tvm_tir_max_take(v, tvm_tir_f32(0));
  if (kind == 2) v = tvm_tir_add_take(v, tvm_tir_load_take(ref(R), ref(ei), ref(ej)));
  void* st = tvm_tir_store_take(ref(C), v, ref(ei), ref(ej));
  void* nest;
  if (same_loop) {
    nest = loop(i, ext(C, 0), loop(j, ext(C, 1), tvm_tir_seq_take(init, loop(k, ext(A, 1), upd), st)));
  } else {
    void* mm = loop(i, ext(C, 0), loop(j, ext(C, 1), tvm_tir_seq_take(init, loop(k, ext(A, 1), upd))));
    nest = tvm_tir_seq_take(mm, loop(i2, ext(C, 0), loop(j2, ext(C, 1), st)));
  }
  void* body = tvm_tir_allocate_takev(ref(T->data), F32, 2, (void*[]){ext(C, 0), ext(C, 1)},
                                      tvm_tir_decl_buffer_take(ref(T), nest));
  void* f = tvm_tir_func_take("dense_epilogue",
                              params(NULL, 5, (tvm_tir_buffer_obj*[]){A, B, Bias, R, C}), body);
  RELEASE(A, B, Bias, R, C, T, i, j, k, i2, j2);
  return f;
}

static tvm_tir_schedule_target target(int bits, bool grain0);

static tvm_tir_schedule_target target(int bits, bool grain0) {
  tvm_tir_schedule_target t = tvm_tir_schedule_target_default();
  t.vector_bits = bits;
  if (grain0) t.parallel_grain = 0;
  return t;
}

/* g = rule(f, t), checked well formed and equal in results to f (n for symbolic dims). */
static void* apply_(int line, void* (*rule)(const void*, const tvm_tir_schedule_target*),
                    const void* f, const tvm_tir_schedule_target* t, int64_t n) {
  if (!tir_expect_ok_(line, f)) return NULL;
  void* g = rule(f, t);
  if (!tir_expect_ok_(line, g)) return NULL;
  if (tvm_tir_verify_well_formed(g) != 0) interp_fail_(line, "not well formed after the rule");
  /* vector_reduce reassociates floating-point sums: equal up to rounding; the others exactly */
  double tol = rule == tvm_tir_schedule_vector_reduce ||
                       (rule == tvm_tir_schedule_default && (!t || t->vector_reduce))
                   ? 1e-5
                   : 0;
  same_results_(line, f, g, &(run_opts){.sym = n, .tol = tol});
  /* and it still lowers */
  void* low = tvm_tir_lower(g, NULL);
  if (!low) interp_fail_(line, "lowering the scheduled function failed");
  same_results_(line, f, low, &(run_opts){.sym = n, .tol = tol});
  tvm_ffi_release(low);
  return g;
}
#define APPLY(rule, f, t, n) apply_(__LINE__, (rule), (f), (t), (n))

static const int kBits[3] = {128, 256, 512};

/* ---- pad ------------------------------------------------------------------------------------- */
TEST(pad_removes_window_tests) {
  tvm_tir_schedule_target t = target(256, false);
  void* f = make_conv(2, 3, 5, 7, 4);
  void* g = APPLY(tvm_tir_schedule_pad, f, &t, 0);
  CHECK_EQ_INT(count_kind(f, TVM_TIR_KIND_IfThenElse), 1);
  CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_IfThenElse), 0);
  CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_Allocate), 1); /* the padded copy */
  /* a symbolic batch: no constant shape to pad, left as written */
  void* s = make_conv(-1, 2, 4, 6, 3);
  void* h = APPLY(tvm_tir_schedule_pad, s, &t, 2);
  CHECK(h == s);
  /* a guarded accumulation that is not a product (a window sum) is left alone */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", F32, 9);
  tvm_tir_buffer_obj* O = tvm_tir_buffer_decl("O", F32, 9);
  tvm_tir_var_obj *i = tvm_tir_var("i", I64), *r = tvm_tir_var("r", I64);
  void* idx = tvm_tir_add_take(tvm_tir_sub_take(ref(i), tvm_tir_i64(1)), ref(r));
  void* cond = tvm_tir_and_take(tvm_tir_ge_take(ref(idx), tvm_tir_i64(0)), tvm_tir_lt_take(ref(idx), tvm_tir_i64(9)));
  void* upd = tvm_tir_store_take(ref(O), tvm_tir_add_take(tvm_tir_load_take(ref(O), ref(i)), tvm_tir_load_take(ref(A), idx)), ref(i));
  void* body = loop(i, tvm_tir_i64(9),
                    tvm_tir_seq_take(tvm_tir_store_take(ref(O), tvm_tir_f32(0), ref(i)),
                                     loop(r, tvm_tir_i64(3), tvm_tir_if_take(cond, upd, NULL))));
  void* w = tvm_tir_func_take("window_sum", params(NULL, 2, (tvm_tir_buffer_obj*[]){A, O}), body);
  void* x = APPLY(tvm_tir_schedule_pad, w, &t, 0);
  CHECK(x == w);
  RELEASE(f, g, s, h, A, O, i, r, w, x);
}

/* How often a buffer called name is accessed (loaded or stored) under node. */
typedef struct {
  const char* name;
  int count;
} name_count;
static int count_named_(tvm_tir_visitor* v, const void* node) {
  name_count* c = v->ctx;
  const tvm_tir_buffer_obj* b = NULL;
  if (tvm_tir_kind_of(node) == TVM_TIR_KIND_BufferLoad) b = ((const tvm_tir_buffer_load_obj*)node)->buffer;
  if (tvm_tir_kind_of(node) == TVM_TIR_KIND_BufferStore) b = ((const tvm_tir_buffer_store_obj*)node)->buffer;
  if (b && strcmp(tvm_tir_buffer_name(b), c->name) == 0) ++c->count;
  return 0;
}
static int count_named(const void* node, const char* name) {
  name_count c = {name, 0};
  tvm_tir_visitor v = {0};
  v.pre_default = count_named_;
  v.ctx = &c;
  if (node) tvm_tir_visit(&v, node);
  tvm_tir_visitor_free(&v);
  return c.count;
}

/* ---- local_accum ----------------------------------------------------------------------------- */
TEST(local_accum_matmul) {
  void* f = make_matmul(5, 7, 3);
  tvm_tir_schedule_target t = target(256, false);
  void* g = APPLY(tvm_tir_schedule_local_accum, f, &t, 0);
  CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_Allocate), 1);
  /* C is now written once per element, after the k loop; read nowhere */
  CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_BufferStore), 3);
  void* h = tvm_tir_schedule_local_accum(g, &t); /* nothing left to do */
  CHECK(h == g);
  RELEASE(f, g, h);
}

TEST(local_accum_leaves_scratch_and_dependences) {
  tvm_tir_schedule_target t = target(256, false);
  void* f = make_softmax(3, 5); /* its accumulator is already a local scratch */
  void* g = APPLY(tvm_tir_schedule_local_accum, f, &t, 0);
  CHECK(g == f);
  void* p = make_prefix(9);
  void* q = APPLY(tvm_tir_schedule_local_accum, p, &t, 0);
  CHECK(q == p);
  RELEASE(f, g, p, q);
}

TEST(local_accum_fused_intermediate) {
  /* the intermediate T of a fused dense layer accumulates in a register; then the whole
   * schedule makes the matmul's micro-kernel (unrolled rows) and packs B's panels */
  for (int b = 0; b < 3; ++b) {
    tvm_tir_schedule_target t = target(kBits[b], false);
    int64_t L = 2 * kBits[b] / 32;
    void* f = make_fused_dense(256, 11, 2 * L);
    void* g = APPLY(tvm_tir_schedule_local_accum, f, &t, 0);
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_Allocate), 2);
    void* h = tvm_tir_schedule_local_accum(g, &t); /* the local acc is not rewritten again */
    CHECK(h == g);
    void* d = APPLY(tvm_tir_schedule_default, f, &t, 0);
    CHECK(count_loops(d, TVM_TIR_FOR_UNROLLED) > 0);
    /* the accumulators, B's panel; T is gone (the epilogue reads the accumulators) */
    CHECK_EQ_INT(count_kind(d, TVM_TIR_KIND_Allocate), 2);
    CHECK_EQ_INT(count_named(d, "T"), 0);
    void* o = make_fused_dense(5, 3, 7); /* odd shapes */
    void* od = APPLY(tvm_tir_schedule_default, o, &t, 0);
    RELEASE(f, g, h, d, o, od);
  }
}

/* ---- epilogue -------------------------------------------------------------------------------- */
TEST(epilogue_inlined_into_accumulators) {
  /* dense + bias + relu, dense + bias, residual add (and an epilogue reading T elsewhere than
   * written); M = 1, 5, 32, N = 10, 70, 512: the default schedule's result equals the input's on
   * random inputs (APPLY); where register_tile left the write-back and the epilogue as two
   * nests of one shape in the tile loop (32 rows, the full-vector panels of N = 512), T is gone.
   * An epilogue in its own nest after the whole matmul is left (no loop fusion here). */
  static const int64_t Ms[] = {1, 5, 32}, Ns[] = {10, 70, 512};
  for (int b = 0; b < 3; ++b) {
    tvm_tir_schedule_target t = target(kBits[b], false);
    for (int kind = 0; kind < 4; ++kind) {
      for (int m = 0; m < 3; ++m) {
        for (int n = 0; n < 3; ++n) {
          void* f = make_dense_epilogue(Ms[m], 7, Ns[n], kind, true);
          void* d = APPLY(tvm_tir_schedule_default, f, &t, 0);
          if (Ms[m] == 32 && Ns[n] == 512) CHECK_EQ_INT(count_named(d, "T") > 0, kind == 3);
          void* g = make_dense_epilogue(Ms[m], 7, Ns[n], kind, false);
          void* e = APPLY(tvm_tir_schedule_default, g, &t, 0);
          RELEASE(f, d, g, e);
        }
      }
    }
  }
  /* the rule alone on a plain write-back nest followed by its epilogue nest */
  tvm_tir_schedule_target t = target(256, false);
  for (int kind = 0; kind < 4; ++kind) {
    tvm_tir_buffer_obj* A = buf("A", F32, 2, (int64_t[]){5, 70}, NULL);
    tvm_tir_buffer_obj* Bias = buf("Bias", F32, 1, (int64_t[]){70}, NULL);
    tvm_tir_buffer_obj* C = buf("C", F32, 2, (int64_t[]){5, 70}, NULL);
    tvm_tir_buffer_obj* T = tvm_tir_buffer_declv("T", F32, 2, (int64_t[]){5, 70});
    tvm_tir_var_obj *i = tvm_tir_var("i", I64), *j = tvm_tir_var("j", I64);
    tvm_tir_var_obj *i2 = tvm_tir_var("i", I64), *j2 = tvm_tir_var("j", I64);
    void* wb = loop(i, tvm_tir_i64(5), loop(j, tvm_tir_i64(70),
        tvm_tir_store_take(ref(T), tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i), ref(j)), tvm_tir_f32(3)), ref(i), ref(j))));
    /* 0: inlinable; 1: reads T transposed-ish (j reversed); 2: the epilogue's nest is shorter;
     * 3: T is read again after the epilogue */
    void* tl = kind == 1 ? tvm_tir_load_take(ref(T), ref(i2), tvm_tir_sub_take(tvm_tir_i64(69), ref(j2)))
                         : tvm_tir_load_take(ref(T), ref(i2), ref(j2));
    void* epi = loop(i2, tvm_tir_i64(kind == 2 ? 4 : 5), loop(j2, tvm_tir_i64(70),
        tvm_tir_store_take(ref(C), tvm_tir_add_take(tl, tvm_tir_load_take(ref(Bias), ref(j2))), ref(i2), ref(j2))));
    void* again = kind == 3 ? tvm_tir_store_take(ref(C), tvm_tir_load_take(ref(T), tvm_tir_i64(1), tvm_tir_i64(2)),
                                                 tvm_tir_i64(0), tvm_tir_i64(0))
                            : NULL;
    void* seq = again ? tvm_tir_seq_take(wb, epi, again) : tvm_tir_seq_take(wb, epi);
    void* body = tvm_tir_allocate_takev(ref(T->data), F32, 2, (void*[]){tvm_tir_i64(5), tvm_tir_i64(70)},
                                        tvm_tir_decl_buffer_take(ref(T), seq));
    void* f = tvm_tir_func_take("wb_epi", params(NULL, 3, (tvm_tir_buffer_obj*[]){A, Bias, C}), body);
    void* g = APPLY(tvm_tir_schedule_epilogue, f, &t, 0);
    if (kind == 0) {
      CHECK_EQ_INT(count_named(g, "T"), 0);
      CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_Allocate), 0);
      void* h = tvm_tir_schedule_epilogue(g, &t); /* nothing left */
      CHECK(h == g);
      tvm_ffi_release(h);
    } else {
      CHECK(g == f);
    }
    RELEASE(A, Bias, C, T, i, j, i2, j2, f, g);
  }
}

/* ---- vectorize ------------------------------------------------------------------------------- */
TEST(vectorize_eltwise_shapes) {
  static const int64_t shapes[][2] = {{3, 37}, {1, 8}, {4, 16}, {2, 5}, {1, 1}, {-1, 19}, {6, -1}};
  for (int b = 0; b < 3; ++b) {
    tvm_tir_schedule_target t = target(kBits[b], false);
    int64_t lanes = kBits[b] / 32;
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
      void* f = make_eltwise(shapes[s][0], shapes[s][1]);
      for (int64_t n = 1; n <= 37; n += 18) {
        void* g = APPLY(tvm_tir_schedule_vectorize, f, &t, n);
        int64_t N = shapes[s][1];
        int vec = count_loops(g, TVM_TIR_FOR_VECTORIZED);
        if (N < 0 || (N >= lanes && N % lanes == 0)) {
          CHECK_EQ_INT(vec, 1);
        } else if (N >= lanes) { /* a last vector overlapping the main loop */
          CHECK_EQ_INT(vec, 2);
        } else { /* one short vector of N lanes */
          CHECK_EQ_INT(vec, N >= 2 ? 1 : 0);
        }
        tvm_ffi_release(g);
      }
      tvm_ffi_release(f);
    }
  }
}

TEST(vectorize_reduction_moves_lanes_inside) {
  /* matmul after local_accum: j vectorized by 2 * lanes, the lanes moved into the k loop */
  for (int b = 0; b < 3; ++b) {
    tvm_tir_schedule_target t = target(kBits[b], false);
    void* f = make_matmul(3, 5, 70);
    void* a = APPLY(tvm_tir_schedule_local_accum, f, &t, 0);
    void* g = APPLY(tvm_tir_schedule_vectorize, a, &t, 0);
    /* init, update, write-back; twice: 70 is no multiple of the lanes (an overlapping vector) */
    CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_VECTORIZED), 6);
    RELEASE(f, a, g);
  }
}

/* The lanes of the vectorized loops of node, summed (each loop once, however nested). */
static int vec_lanes_fn_(tvm_tir_visitor* v, const void* node) {
  if (tvm_tir_kind_of(node) != TVM_TIR_KIND_For) return 0;
  const tvm_tir_for_obj* l = node;
  int64_t e;
  if (l->kind == TVM_TIR_FOR_VECTORIZED && tvm_tir_as_const_int(l->extent, &e)) *(int64_t*)v->ctx += e;
  return 0;
}
static int64_t sum_vector_lanes(const void* node) {
  int64_t n = 0;
  tvm_tir_visitor v = {0};
  v.pre_default = vec_lanes_fn_;
  v.ctx = &n;
  if (node) tvm_tir_visit(&v, node);
  tvm_tir_visitor_free(&v);
  return n;
}

TEST(vectorize_reduction_tail_of_whole_registers) {
  /* a reduction's remainder filling whole 256-bit (or narrower native) registers is a short
   * vector, not a vector overlapping the main part (which would compute its sums again) */
  for (int b = 0; b < 3; ++b) {
    tvm_tir_schedule_target t = target(kBits[b], false);
    int64_t L = 2 * kBits[b] / 32, half = (kBits[b] < 256 ? kBits[b] : 256) / 32;
    void* f = make_matmul(3, 5, 2 * L - half);
    void* a = APPLY(tvm_tir_schedule_local_accum, f, &t, 0);
    void* g = APPLY(tvm_tir_schedule_vectorize, a, &t, 0);
    /* init, update, write-back: L lanes, then L - half lanes in vectors of a power of two of
     * registers (512 bits: 56 columns are 32 + 16 + 8) */
    int pieces = __builtin_popcountll((unsigned long long)((L - half) / half));
    CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_VECTORIZED), 3 * (1 + pieces));
    CHECK_EQ_INT(sum_vector_lanes(g), 3 * (2 * L - half));
    /* a remainder of part of a register still overlaps (70 % L is 6) */
    void* f2 = make_matmul(3, 5, 70);
    void* a2 = APPLY(tvm_tir_schedule_local_accum, f2, &t, 0);
    void* g2 = APPLY(tvm_tir_schedule_vectorize, a2, &t, 0);
    CHECK_EQ_INT(sum_vector_lanes(g2), 6 * L);
    /* a ResNet conv row of 56 through the whole default schedule */
    void* c = make_conv(1, 3, 4, 56, 5);
    void* h = APPLY(tvm_tir_schedule_default, c, &t, 0);
    CHECK(count_loops(h, TVM_TIR_FOR_UNROLLED) > 0);
    RELEASE(f, a, g, f2, a2, g2, c, h);
  }
}

/* Loops over j_tail: vectorize's scalar remainder of the column loop j. */
static int tail_fn_(tvm_tir_visitor* v, const void* node) {
  if (tvm_tir_kind_of(node) != TVM_TIR_KIND_For) return 0;
  if (strcmp(tvm_tir_var_name(((const tvm_tir_for_obj*)node)->loop_var), "j_tail") == 0) ++*(int*)v->ctx;
  return 0;
}
static int count_scalar_tails(const void* node) {
  int n = 0;
  tvm_tir_visitor v = {0};
  v.pre_default = tail_fn_;
  v.ctx = &n;
  if (node) tvm_tir_visit(&v, node);
  tvm_tir_visitor_free(&v);
  return n;
}

TEST(vectorize_narrow_columns_and_short_tails) {
  for (int b = 0; b < 3; ++b) {
    tvm_tir_schedule_target t = target(kBits[b], false);
    t.vector_reduce = false; /* exact results */
    int64_t L = 2 * kBits[b] / 32; /* a reduction's lanes */
    /* fewer columns than a vector (the MLP's 10 classes, 3, 1 row): one short vector, rows
     * still register-tiled over it */
    static const int64_t shapes[][3] = {{32, 40, 10}, {1, 40, 10}, {5, 7, 3}, {9, 4, 2}, {3, 6, 1}};
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
      int64_t M = shapes[s][0], N = shapes[s][2];
      void* f = make_matmul(M, shapes[s][1], N);
      void* g = APPLY(tvm_tir_schedule_default, f, &t, 0);
      CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_VECTORIZED) > 0, N >= 2);
      CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_UNROLLED) > 0, N >= 2 && M >= 2);
      CHECK_EQ_INT(count_scalar_tails(g), 0);
      void* d = make_fused_dense(M, shapes[s][1], N);
      void* h = APPLY(tvm_tir_schedule_default, d, &t, 0);
      CHECK_EQ_INT(count_loops(h, TVM_TIR_FOR_VECTORIZED) > 0, N >= 2);
      RELEASE(f, g, d, h);
    }
    /* a fused dense reads its intermediate (no overlapping last vector): a remainder of 3
     * columns is a vector of 3, of 1 a scalar loop */
    for (int64_t r = 1; r <= 3; r += 2) {
      void* d = make_fused_dense(7, 5, 2 * L + r);
      void* h = APPLY(tvm_tir_schedule_default, d, &t, 0);
      CHECK_EQ_INT(count_scalar_tails(h) > 0, r == 1);
      CHECK(count_loops(h, TVM_TIR_FOR_UNROLLED) > 0);
      RELEASE(d, h);
    }
  }
}

TEST(vectorize_refuses_gathers_and_dependences) {
  tvm_tir_schedule_target t = target(256, false);
  void* r = make_rowsum(9, 33); /* reduction along the contiguous axis: the rows would gather */
  void* a = APPLY(tvm_tir_schedule_local_accum, r, &t, 0);
  void* g = APPLY(tvm_tir_schedule_vectorize, a, &t, 0);
  CHECK(g == a);
  void* p = make_prefix(40);
  void* q = APPLY(tvm_tir_schedule_vectorize, p, &t, 0);
  CHECK(q == p);
  RELEASE(r, a, g, p, q);
}

TEST(vectorize_softmax_output_loop) {
  tvm_tir_schedule_target t = target(256, false);
  void* f = make_softmax(3, 21);
  void* g = APPLY(tvm_tir_schedule_vectorize, f, &t, 0);
  CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_VECTORIZED), 2); /* the output loop only (+ overlap) */
  RELEASE(f, g);
}

/* ---- vector_reduce --------------------------------------------------------------------------- */
TEST(vector_reduce_contiguous_reductions) {
  for (int b = 0; b < 3; ++b) {
    tvm_tir_schedule_target t = target(kBits[b], false);
    int64_t L = kBits[b] / 32;
    int64_t ns[] = {L, 2 * L + 3, 37, L - 1};
    for (size_t q = 0; q < sizeof(ns) / sizeof(ns[0]); ++q) {
      int64_t n = ns[q];
      bool applies = n >= L;
      /* softmax's sum of exp into its scratch (within rounding of the serial sum) */
      void* sm = make_softmax(3, n);
      void* g = APPLY(tvm_tir_schedule_vector_reduce, sm, &t, 0);
      CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_VECTORIZED), applies ? (n / L > 1 ? 2 : 1) : 0);
      CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_Allocate), applies ? 2 : 1);
      /* a row sum (its accumulator local after local_accum) and a row max: max is exact */
      void* rs = make_rowsum(4, n);
      void* ra = APPLY(tvm_tir_schedule_local_accum, rs, &t, 0);
      void* rv = APPLY(tvm_tir_schedule_vector_reduce, ra, &t, 0);
      CHECK(applies ? rv != ra : rv == ra);
      void* mx = make_rowreduce(5, n, TVM_TIR_KIND_Max, false);
      void* mv = tvm_tir_schedule_vector_reduce(mx, &t);
      SAME_RESULTS(mx, mv);
      CHECK(applies ? mv != mx : mv == mx);
      RELEASE(sm, g, rs, ra, rv, mx, mv);
    }
    /* not a contiguous reduction: a column sum (strided loads), a prefix sum (the store moves) */
    void* cs = make_rowreduce(4, 2 * L, TVM_TIR_KIND_Add, true);
    void* cv = APPLY(tvm_tir_schedule_vector_reduce, cs, &t, 0);
    CHECK(cv == cs);
    void* p = make_prefix(4 * L);
    void* pv = APPLY(tvm_tir_schedule_vector_reduce, p, &t, 0);
    CHECK(pv == p);
    /* off in the target: the default schedule leaves the reduction serial, exactly */
    tvm_tir_schedule_target off = t;
    off.vector_reduce = false;
    void* sm = make_softmax(2, 4 * L);
    void* d = APPLY(tvm_tir_schedule_default, sm, &off, 0);
    void* don = APPLY(tvm_tir_schedule_default, sm, &t, 0);
    CHECK(count_loops(don, TVM_TIR_FOR_VECTORIZED) > count_loops(d, TVM_TIR_FOR_VECTORIZED));
    RELEASE(cs, cv, p, pv, sm, d, don);
  }
}

/* ---- register_tile --------------------------------------------------------------------------- */
TEST(register_tile_matmul_shapes) {
  static const int64_t shapes[][3] = {{7, 13, 37}, {1, 16, 64}, {4, 3, 16}, {9, 1, 33}, {-1, 5, 40}};
  for (int b = 0; b < 3; ++b) {
    tvm_tir_schedule_target t = target(kBits[b], false);
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
      void* f = make_matmul(shapes[s][0], shapes[s][1], shapes[s][2]);
      void* a = APPLY(tvm_tir_schedule_local_accum, f, &t, 6);
      void* v = APPLY(tvm_tir_schedule_vectorize, a, &t, 6);
      void* g = APPLY(tvm_tir_schedule_register_tile, v, &t, 6);
      bool vectorized = count_loops(v, TVM_TIR_FOR_VECTORIZED) > 0;
      /* rows tiled when there are at least two constant rows and a vectorized panel; one
       * row or a symbolic count: the panels, when there are two of 2 * 32-bit lanes */
      int64_t panel = 2 * kBits[b] / 32;
      bool tiled = vectorized && (shapes[s][0] >= 2 || shapes[s][2] >= 2 * panel);
      CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_UNROLLED) > 0, tiled);
      RELEASE(f, a, v, g);
    }
  }
}

TEST(register_tile_batch_matmul_and_conv) {
  for (int b = 0; b < 3; ++b) {
    tvm_tir_schedule_target t = target(kBits[b], true);
    void* f = make_batch_matmul(-1, 6, 4, 35);
    for (int64_t n = 1; n <= 2; ++n) {
      void* g = APPLY(tvm_tir_schedule_default, f, &t, n);
      CHECK(count_loops(g, TVM_TIR_FOR_UNROLLED) > 0);
      CHECK(count_loops(g, TVM_TIR_FOR_VECTORIZED) > 0);
      tvm_ffi_release(g);
    }
    /* the default grain (in vector instructions: a conv of 1.5 M multiply-adds is over it) */
    tvm_tir_schedule_target td = target(kBits[b], false);
    void* c = make_conv(1, 16, 16, 37, 9);
    void* h = APPLY(tvm_tir_schedule_default, c, &td, 0);
    CHECK(count_loops(h, TVM_TIR_FOR_UNROLLED) > 0);
    CHECK(count_loops(h, TVM_TIR_FOR_VECTORIZED) > 0);
    CHECK(count_loops(h, TVM_TIR_FOR_PARALLEL) >= 1);
    void* cs = make_conv(-1, 2, 5, 20, 4);
    void* hs = APPLY(tvm_tir_schedule_default, cs, &t, 2);
    RELEASE(f, c, h, cs, hs);
  }
}

/* ---- pack ------------------------------------------------------------------------------------ */
static void* tiled_matmul(int64_t M, int64_t K, int64_t N, const tvm_tir_schedule_target* t) {
  void* f = make_matmul(M, K, N);
  void* a = f ? tvm_tir_schedule_local_accum(f, t) : NULL;
  void* v = a ? tvm_tir_schedule_vectorize(a, t) : NULL;
  void* g = v ? tvm_tir_schedule_register_tile(v, t) : NULL;
  RELEASE(f, a, v);
  return g;
}

TEST(pack_matmul_panels) {
  for (int b = 0; b < 3; ++b) {
    tvm_tir_schedule_target t = target(kBits[b], false);
    int64_t L = 2 * kBits[b] / 32;
    /* 256 rows: row tiles over 2 panels of L columns, each panel copied once */
    void* f = tiled_matmul(256, 9, 2 * L, &t);
    void* g = APPLY(tvm_tir_schedule_pack, f, &t, 0);
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_Allocate), count_kind(f, TVM_TIR_KIND_Allocate) + 1);
    /* the panel loop is now outside the row tiles */
    const tvm_tir_for_obj* outer = (const void*)((tvm_tir_prim_func_obj*)g)->body;
    CHECK(TIR_IS_FOR(outer) && strstr(tvm_tir_var_name(outer->loop_var), "j") != NULL);
    /* a partial last panel (an overlapping vector next to the panel loop), one row tile: as is */
    void* p = tiled_matmul(256, 9, 2 * L + 3, &t);
    void* q = APPLY(tvm_tir_schedule_pack, p, &t, 0);
    CHECK(q == p);
    void* r = tiled_matmul(4, 9, 2 * L, &t);
    void* s2 = APPLY(tvm_tir_schedule_pack, r, &t, 0);
    CHECK(s2 == r);
    /* 128 rows (an MLP's batch): the panels are read in place, the copy would not pay */
    void* m = tiled_matmul(128, 9, 2 * L, &t);
    void* m2 = APPLY(tvm_tir_schedule_pack, m, &t, 0);
    CHECK(m2 == m);
    RELEASE(f, g, p, q, r, s2, m, m2);
  }
}

/* ---- parallel -------------------------------------------------------------------------------- */
TEST(parallel_fuses_outer_loops) {
  tvm_tir_schedule_target t = target(256, true);
  void* f = make_eltwise(3, 5); /* 3 * 5 < 64: both loops fused */
  void* g = APPLY(tvm_tir_schedule_parallel, f, &t, 0);
  CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_PARALLEL), 1);
  CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_SERIAL), 0);
  void* e = make_eltwise(100, 5); /* 100 >= 64: the outer loop alone */
  void* h = APPLY(tvm_tir_schedule_parallel, e, &t, 0);
  CHECK_EQ_INT(count_loops(h, TVM_TIR_FOR_PARALLEL), 1);
  CHECK_EQ_INT(count_loops(h, TVM_TIR_FOR_SERIAL), 1);
  void* s = make_eltwise(-1, 4); /* symbolic: parallel */
  void* k = APPLY(tvm_tir_schedule_parallel, s, &t, 7);
  CHECK_EQ_INT(count_loops(k, TVM_TIR_FOR_PARALLEL), 1);
  RELEASE(f, g, e, h, s, k);
}

TEST(parallel_grain_and_dependences) {
  tvm_tir_schedule_target t = target(256, false); /* default grain */
  void* f = make_eltwise(3, 5);                   /* tiny: stays serial */
  void* g = APPLY(tvm_tir_schedule_parallel, f, &t, 0);
  CHECK(g == f);
  void* big = make_eltwise(512, 512);
  void* h = tvm_tir_schedule_parallel(big, &t);
  CHECK_EQ_INT(count_loops(h, TVM_TIR_FOR_PARALLEL), 1);
  tvm_tir_schedule_target t0 = target(256, true);
  void* p = make_prefix(40);
  void* q = APPLY(tvm_tir_schedule_parallel, p, &t0, 0);
  CHECK(q == p);
  void* r = make_rowsum(9, 5); /* the row loop is parallel, the reduction inside is not */
  void* s = APPLY(tvm_tir_schedule_parallel, r, &t0, 0);
  CHECK_EQ_INT(count_loops(s, TVM_TIR_FOR_PARALLEL), 1);
  CHECK_EQ_INT(count_loops(s, TVM_TIR_FOR_SERIAL), 1);
  RELEASE(f, g, big, h, p, q, r, s);
  /* The grain counts vector registers, not lanes: 128 x 256 elements (3 accesses each) is over
   * it when scalar, under it once vectorized (8 lanes). A softmax of as many elements, one exp
   * each (counted as 16), is over it vectorized too. */
  void* e = make_eltwise(128, 256);
  void* ep = APPLY(tvm_tir_schedule_parallel, e, &t, 0);
  CHECK_EQ_INT(count_loops(ep, TVM_TIR_FOR_PARALLEL), 1);
  void* ev = APPLY(tvm_tir_schedule_vectorize, e, &t, 0);
  CHECK(count_loops(ev, TVM_TIR_FOR_VECTORIZED) >= 1);
  void* evp = APPLY(tvm_tir_schedule_parallel, ev, &t, 0);
  CHECK(evp == ev);
  void* sm = make_softmax(128, 256);
  void* sv = APPLY(tvm_tir_schedule_vectorize, sm, &t, 0);
  CHECK(count_loops(sv, TVM_TIR_FOR_VECTORIZED) >= 1);
  void* svp = APPLY(tvm_tir_schedule_parallel, sv, &t, 0);
  CHECK_EQ_INT(count_loops(svp, TVM_TIR_FOR_PARALLEL), 1);
  RELEASE(e, ep, ev, evp, sm, sv, svp);
}

/* ---- the default schedule -------------------------------------------------------------------- */
TEST(default_schedule_kernels) {
  for (int b = 0; b < 3; ++b) {
    for (int grain = 0; grain < 2; ++grain) {
      tvm_tir_schedule_target t = target(kBits[b], grain == 0);
      t.vector_reduce = b != 1; /* exact results without it */
      void* fs[] = {make_matmul(7, 13, 37), make_matmul(1, 9, 17), make_matmul(-1, 3, 1),
                    make_batch_matmul(2, 5, 3, 18), make_eltwise(1, 1), make_eltwise(-1, 33),
                    make_conv(2, 2, 4, 9, 3), make_rowsum(5, 9), make_prefix(12), make_softmax(2, 17),
                    make_rowreduce(3, 21, TVM_TIR_KIND_Max, false)};
      for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); ++i) {
        void* g = APPLY(tvm_tir_schedule_default, fs[i], &t, 3);
        if (g && g != fs[i]) {
          TVMFFIAny k = tvm_ffi_string(TVM_TIR_ATTR_IS_SCHEDULED);
          CHECK(tvm_ffi_map_get(((tvm_tir_prim_func_obj*)g)->func.attrs, &k) != NULL);
          tvm_ffi_any_release(&k);
          /* scheduled functions are left alone */
          void* h = tvm_tir_schedule_default(g, &t);
          CHECK(h == g);
          tvm_ffi_release(h);
        }
        RELEASE(fs[i], g);
      }
    }
  }
}

TEST(default_schedule_skips_marked_and_hand_scheduled) {
  tvm_tir_schedule_target t = target(256, true);
  void* f = make_matmul(8, 8, 32);
  TVMFFIAny yes = tvm_ffi_any_bool(true);
  void* m = tvm_tir_prim_func_with_attr(f, TVM_TIR_ATTR_IS_SCHEDULED, &yes);
  void* g = tvm_tir_schedule_default(m, &t);
  CHECK(g == m);
  /* a hand-made parallel loop: the whole function is left as written */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", F32, 64);
  tvm_tir_var_obj* i = tvm_tir_var("i", I64);
  void* p = tvm_tir_func_take(
      "hand", tvm_tir_list_take(ref(A)),
      tvm_tir_for_take(ref(i), tvm_tir_i64(0), tvm_tir_i64(64), TVM_TIR_FOR_PARALLEL,
                       tvm_tir_store_take(ref(A), tvm_tir_f32(1), ref(i))));
  void* q = tvm_tir_schedule_default(p, &t);
  CHECK(q == p);
  /* an IRModule: every PrimFunc scheduled */
  void* mf = make_eltwise(64, 64);
  void* mod = tvm_tir_module_take(ref(mf), ref(p));
  void* mod2 = tvm_tir_schedule_default(mod, &t);
  CHECK(mod2 != NULL && mod2 != mod);
  RELEASE(f, m, g, A, i, p, q, mf, mod, mod2);
}

TEST(schedule_bad_input) {
  tvm_tir_schedule_target t = target(256, false);
  void* x = tvm_tir_i64(3);
  EXPECT_ERROR("TypeError", tvm_tir_schedule_default(x, &t), "schedule_default", "IntImm");
  EXPECT_ERROR("TypeError", tvm_tir_schedule_vectorize(x, NULL), "schedule_vectorize");
  EXPECT_ERROR("TypeError", tvm_tir_schedule_parallel(NULL, &t), "schedule_parallel", "NULL");
  RELEASE(x);
}

int main(void) {
  RUN(pad_removes_window_tests);
  RUN(local_accum_matmul);
  RUN(local_accum_leaves_scratch_and_dependences);
  RUN(local_accum_fused_intermediate);
  RUN(epilogue_inlined_into_accumulators);
  RUN(vectorize_eltwise_shapes);
  RUN(vectorize_reduction_moves_lanes_inside);
  RUN(vectorize_reduction_tail_of_whole_registers);
  RUN(vectorize_narrow_columns_and_short_tails);
  RUN(vectorize_refuses_gathers_and_dependences);
  RUN(vectorize_softmax_output_loop);
  RUN(vector_reduce_contiguous_reductions);
  RUN(register_tile_matmul_shapes);
  RUN(register_tile_batch_matmul_and_conv);
  RUN(pack_matmul_panels);
  RUN(parallel_fuses_outer_loops);
  RUN(parallel_grain_and_dependences);
  RUN(default_schedule_kernels);
  RUN(default_schedule_skips_marked_and_hand_scheduled);
  RUN(schedule_bad_input);
  return test_summary();
}

/*
 * test_codegen.c: kernels built with the TIR builder, lowered with tvm_tir_lower, compiled with
 * the LLVM JIT and checked against the reference interpreter on random inputs (DIFF), plus the
 * packed-API argument checks, ffi.Tensor arguments and the generated IR's shape.
 */
#include <dlfcn.h>
#include <unistd.h>

#include "codegen_testing.h"

/* ---- Kernel generators -------------------------------------------------------------------- */
/* C[i, j] = A[i, j] + B[j]: a broadcasting add over (5, 12) float32, j vectorized by 4 lanes
 * through an inner loop. */
static void* make_broadcast_add(void) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 5, 12);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 12);
  tvm_tir_buffer_obj* C = tvm_tir_buffer_decl("C", TVM_TIR_FLOAT32, 5, 12);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* jo = tvm_tir_var("jo", TVM_TIR_INT32);
  tvm_tir_var_obj* ji = tvm_tir_var("ji", TVM_TIR_INT32);
  void* j = tvm_tir_add_take(tvm_tir_mul_take(ref(jo), tvm_tir_int(4)), ref(ji));
  void* store = tvm_tir_store_take(ref(C),
                                   tvm_tir_add_take(tvm_tir_load_take(ref(A), ref(i), ref(j)),
                                                    tvm_tir_load_take(ref(B), ref(j))),
                                   ref(i), ref(j));
  void* body = tvm_tir_serial_take(
      ref(i), tvm_tir_int(0), tvm_tir_int(5),
      tvm_tir_serial_take(ref(jo), tvm_tir_int(0), tvm_tir_int(3),
                          tvm_tir_for_take(ref(ji), tvm_tir_int(0), tvm_tir_int(4),
                                           TVM_TIR_FOR_VECTORIZED, store)));
  void* f = tvm_tir_func_take("bcast_add", tvm_tir_list_take(ref(A), ref(B), ref(C)), body);
  RELEASE(A, B, C, i, jo, ji, j);
  return f;
}

/* B[i] = sum_k A[i, k] as an SBlock with init (B[i] = 0), over (6, 9) of dtype t. */
static void* make_row_sum(DLDataType t) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", t, 6, 9);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", t, 6);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  tvm_tir_var_obj* vi = tvm_tir_var("vi", TVM_TIR_INT32);
  tvm_tir_var_obj* vk = tvm_tir_var("vk", TVM_TIR_INT32);
  void* update = tvm_tir_store_take(ref(B),
                                    tvm_tir_add_take(tvm_tir_load_take(ref(B), ref(vi)),
                                                     tvm_tir_load_take(ref(A), ref(vi), ref(vk))),
                                    ref(vi));
  void* init = tvm_tir_store_take(ref(B), tvm_tir_const(t, 0), ref(vi));
  void* reads =
      tvm_tir_list_take(tvm_tir_region_take(ref(A), tvm_tir_range_take(ref(vi), tvm_tir_int(1)),
                                            tvm_tir_range_take(ref(vk), tvm_tir_int(1))));
  void* writes =
      tvm_tir_list_take(tvm_tir_region_take(ref(B), tvm_tir_range_take(ref(vi), tvm_tir_int(1))));
  void* iters = tvm_tir_list_take(
      tvm_tir_iter_var_take(vi, tvm_tir_int(0), tvm_tir_int(6), TVM_TIR_ITER_DATA_PAR),
      tvm_tir_iter_var_take(vk, tvm_tir_int(0), tvm_tir_int(9), TVM_TIR_ITER_COMM_REDUCE));
  void* block = tvm_tir_block_full_take("sum", iters, tvm_tir_list_take(ref(i), ref(k)), reads,
                                        writes, init, NULL, update);
  void* loops =
      tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(6),
                          tvm_tir_serial_take(ref(k), tvm_tir_int(0), tvm_tir_int(9), block));
  void* f = tvm_tir_func_take("row_sum", tvm_tir_list_take(ref(A), ref(B)), loops);
  RELEASE(A, B, i, k);
  return f;
}

/* B[j, i] = A[i, j] over A (5, 7) int32. */
static void* make_transpose(tvm_tir_for_kind jk) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 5, 7);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_INT32, 7, 5);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  void* body = tvm_tir_serial_take(
      ref(i), tvm_tir_int(0), tvm_tir_int(5),
      tvm_tir_for_take(
          ref(j), tvm_tir_int(0), tvm_tir_int(7), jk,
          tvm_tir_store_take(ref(B), tvm_tir_load_take(ref(A), ref(i), ref(j)), ref(j), ref(i))));
  void* f = tvm_tir_func_take("transpose", tvm_tir_list_take(ref(A), ref(B)), body);
  RELEASE(A, B, i, j);
  return f;
}

/* B[i] = Select(A[i] > 0, A[i], -A[i]) * 2 and C[i] = if_then_else(i < 15, A[i + 1], A[0])
 * (the lazy form guards an access that would be out of bounds), over 16 float32, i of kind k. */
static void* make_select(tvm_tir_for_kind kind) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 16);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 16);
  tvm_tir_buffer_obj* C = tvm_tir_buffer_decl("C", TVM_TIR_FLOAT32, 16);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* sel = tvm_tir_mul_take(
      tvm_tir_select_take(tvm_tir_gt_take(tvm_tir_load_take(ref(A), ref(i)), tvm_tir_f32(0)),
                          tvm_tir_load_take(ref(A), ref(i)),
                          tvm_tir_neg_take(tvm_tir_load_take(ref(A), ref(i)))),
      tvm_tir_f32(2));
  void* ite = tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.if_then_else",
                                tvm_tir_lt_take(ref(i), tvm_tir_int(15)),
                                tvm_tir_load_take(ref(A), tvm_tir_add_take(ref(i), tvm_tir_int(1))),
                                tvm_tir_load_take(ref(A), tvm_tir_int(0)));
  void* body = tvm_tir_for_take(ref(i), tvm_tir_int(0), tvm_tir_int(16), kind,
                                tvm_tir_seq_take(tvm_tir_store_take(ref(B), sel, ref(i)),
                                                 tvm_tir_store_take(ref(C), ite, ref(i))));
  void* f = tvm_tir_func_take("select", tvm_tir_list_take(ref(A), ref(B), ref(C)), body);
  RELEASE(A, B, C, i);
  return f;
}

/* B[i] = A[i] * 3 + 1 over A, B of symbolic length n (bound from A's shape, checked on B's). */
static void* make_symbolic(void) {
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_buffer_obj* A =
      tvm_tir_buffer_decl_takev("A", TVM_TIR_FLOAT32, 1, (void*[]){ref(n)}, NULL);
  tvm_tir_buffer_obj* B =
      tvm_tir_buffer_decl_takev("B", TVM_TIR_FLOAT32, 1, (void*[]){ref(n)}, NULL);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_serial_take(
      ref(i), tvm_tir_int(0), ref(n),
      tvm_tir_store_take(
          ref(B),
          tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i)), tvm_tir_f32(3)),
                           tvm_tir_f32(1)),
          ref(i)));
  void* f = tvm_tir_func_take("scale", tvm_tir_list_take(ref(A), ref(B)), body);
  RELEASE(A, B, i, n);
  return f;
}

/* Integer division forms over int32: D = A / B, M = A % B (C), FD = A // B, FM = A % B (floor). */
static void* make_divisions(void) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 40);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_INT32, 40);
  tvm_tir_buffer_obj* O[4];
  const char* names[4] = {"D", "M", "FD", "FM"};
  tvm_tir_kind kinds[4] = {TVM_TIR_KIND_Div, TVM_TIR_KIND_Mod, TVM_TIR_KIND_FloorDiv,
                           TVM_TIR_KIND_FloorMod};
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* stores[4];
  for (int k = 0; k < 4; ++k) {
    O[k] = tvm_tir_buffer_decl(names[k], TVM_TIR_INT32, 40);
    stores[k] = tvm_tir_store_take(ref(O[k]),
                                   tvm_tir_binary_take(kinds[k], tvm_tir_load_take(ref(A), ref(i)),
                                                       tvm_tir_load_take(ref(B), ref(i))),
                                   ref(i));
  }
  void* body =
      tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(40), tvm_tir_seq_takev(4, stores));
  void* f = tvm_tir_func_take(
      "divisions", tvm_tir_list_take(ref(A), ref(B), ref(O[0]), ref(O[1]), ref(O[2]), ref(O[3])),
      body);
  RELEASE(A, B, O[0], O[1], O[2], O[3], i);
  return f;
}

/* Casts: I[i] = int32(F[i] * 3.5), H[i] = float16(F[i]), D[i] = float64(S[i]) (int8),
 * S2[i] = int8(I32[i]) (wrap-around), U[i] = min/max clamp in int32. */
static void* make_casts(void) {
  tvm_tir_buffer_obj* F = tvm_tir_buffer_decl("F", TVM_TIR_FLOAT32, 24);
  tvm_tir_buffer_obj* S = tvm_tir_buffer_decl("S", TVM_TIR_INT8, 24);
  tvm_tir_buffer_obj* W = tvm_tir_buffer_decl("W", TVM_TIR_INT32, 24);
  tvm_tir_buffer_obj* I = tvm_tir_buffer_decl("I", TVM_TIR_INT32, 24);
  tvm_tir_buffer_obj* H = tvm_tir_buffer_decl("H", TVM_TIR_FLOAT16, 24);
  tvm_tir_buffer_obj* D = tvm_tir_buffer_decl("D", TVM_TIR_FLOAT64, 24);
  tvm_tir_buffer_obj* S2 = tvm_tir_buffer_decl("S2", TVM_TIR_INT8, 24);
  tvm_tir_buffer_obj* U = tvm_tir_buffer_decl("U", TVM_TIR_INT32, 24);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_serial_take(
      ref(i), tvm_tir_int(0), tvm_tir_int(24),
      tvm_tir_seq_take(
          tvm_tir_store_take(
              ref(I),
              tvm_tir_cast_take(TVM_TIR_INT32, tvm_tir_mul_take(tvm_tir_load_take(ref(F), ref(i)),
                                                                tvm_tir_f32(3.5))),
              ref(i)),
          tvm_tir_store_take(ref(H),
                             tvm_tir_cast_take(TVM_TIR_FLOAT16, tvm_tir_load_take(ref(F), ref(i))),
                             ref(i)),
          tvm_tir_store_take(ref(D),
                             tvm_tir_cast_take(TVM_TIR_FLOAT64, tvm_tir_load_take(ref(S), ref(i))),
                             ref(i)),
          tvm_tir_store_take(
              ref(S2), tvm_tir_cast_take(TVM_TIR_INT8, tvm_tir_load_take(ref(W), ref(i))), ref(i)),
          tvm_tir_store_take(ref(U),
                             tvm_tir_max_take(tvm_tir_min_take(tvm_tir_load_take(ref(W), ref(i)),
                                                               tvm_tir_int(1000)),
                                              tvm_tir_int(-1000)),
                             ref(i))));
  void* f = tvm_tir_func_take(
      "casts", tvm_tir_list_take(ref(F), ref(S), ref(W), ref(I), ref(H), ref(D), ref(S2), ref(U)),
      body);
  RELEASE(F, S, W, I, H, D, S2, U, i);
  return f;
}

/* Softmax over 16 float32: M[0] = max A, E[i] = exp(A[i] - M[0]), S[0] = sum E, B = E / S[0]. */
static void* make_softmax(void) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 16);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 16);
  tvm_tir_buffer_obj* E = tvm_tir_buffer_decl("E", TVM_TIR_FLOAT32, 16);
  tvm_tir_buffer_obj* M = tvm_tir_buffer_decl("M", TVM_TIR_FLOAT32, 1);
  tvm_tir_buffer_obj* S = tvm_tir_buffer_decl("S", TVM_TIR_FLOAT32, 1);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  void* body = tvm_tir_seq_take(
      tvm_tir_store_take(ref(M), tvm_tir_load_take(ref(A), tvm_tir_int(0)), tvm_tir_int(0)),
      tvm_tir_serial_take(
          ref(i), tvm_tir_int(1), tvm_tir_int(15),
          tvm_tir_store_take(ref(M),
                             tvm_tir_max_take(tvm_tir_load_take(ref(M), tvm_tir_int(0)),
                                              tvm_tir_load_take(ref(A), ref(i))),
                             tvm_tir_int(0))),
      tvm_tir_store_take(ref(S), tvm_tir_f32(0), tvm_tir_int(0)),
      tvm_tir_serial_take(
          ref(j), tvm_tir_int(0), tvm_tir_int(16),
          tvm_tir_seq_take(
              tvm_tir_store_take(
                  ref(E),
                  tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.exp",
                                    tvm_tir_sub_take(tvm_tir_load_take(ref(A), ref(j)),
                                                     tvm_tir_load_take(ref(M), tvm_tir_int(0)))),
                  ref(j)),
              tvm_tir_store_take(ref(S),
                                 tvm_tir_add_take(tvm_tir_load_take(ref(S), tvm_tir_int(0)),
                                                  tvm_tir_load_take(ref(E), ref(j))),
                                 tvm_tir_int(0)))),
      tvm_tir_for_take(
          ref(k), tvm_tir_int(0), tvm_tir_int(16), TVM_TIR_FOR_VECTORIZED,
          tvm_tir_store_take(ref(B),
                             tvm_tir_div_take(tvm_tir_load_take(ref(E), ref(k)),
                                              tvm_tir_load_take(ref(S), tvm_tir_int(0))),
                             ref(k))));
  void* f =
      tvm_tir_func_take("softmax", tvm_tir_list_take(ref(A), ref(B), ref(E), ref(M), ref(S)), body);
  RELEASE(A, B, E, M, S, i, j, k);
  return f;
}

/* Math builtins over 20 float32 (positive inputs where needed): one output per function. */
static void* make_math(void) {
  static const char* ops[] = {"tir.sqrt",  "tir.log",   "tir.tanh", "tir.sigmoid",
                              "tir.floor", "tir.round", "tir.fabs"};
  enum { NOPS = 7 };
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 20);
  tvm_tir_buffer_obj* O = tvm_tir_buffer_decl("O", TVM_TIR_FLOAT32, NOPS, 20);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* stores[NOPS];
  for (int k = 0; k < NOPS; ++k) {
    void* x = tvm_tir_load_take(ref(A), ref(i));
    if (k < 2)
      x = tvm_tir_add_take(tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.fabs", x), tvm_tir_f32(0.5));
    stores[k] = tvm_tir_store_take(ref(O), tvm_tir_call_take(TVM_TIR_FLOAT32, ops[k], x),
                                   tvm_tir_int(k), ref(i));
  }
  void* body =
      tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(20), tvm_tir_seq_takev(NOPS, stores));
  void* f = tvm_tir_func_take("math", tvm_tir_list_take(ref(A), ref(O)), body);
  RELEASE(A, O, i);
  return f;
}

/* A stack allocation: tmp[j] = A[j] * 2 (8 float32), then B[j] = tmp[7 - j]. */
static void* make_local_alloc(void) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 8);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 8);
  tvm_tir_var_obj* data = tvm_tir_ptr_var("tmp", TVM_TIR_FLOAT32, NULL);
  void* tmp_shape = tvm_tir_list_take(tvm_tir_int(8));
  tvm_tir_buffer_obj* tmp = tvm_tir_buffer_new(&(tvm_tir_buffer_fields){
      .data = data, .dtype = TVM_TIR_FLOAT32, .shape = tmp_shape, .name = "tmp"});
  tvm_ffi_release(tmp_shape);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  void* inner = tvm_tir_seq_take(
      tvm_tir_serial_take(
          ref(j), tvm_tir_int(0), tvm_tir_int(8),
          tvm_tir_store_take(ref(tmp),
                             tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(j)), tvm_tir_f32(2)),
                             ref(j))),
      tvm_tir_serial_take(
          ref(k), tvm_tir_int(0), tvm_tir_int(8),
          tvm_tir_store_take(ref(B),
                             tvm_tir_load_take(ref(tmp), tvm_tir_sub_take(tvm_tir_int(7), ref(k))),
                             ref(k))));
  void* body = tvm_tir_allocate_takev(ref(data), TVM_TIR_FLOAT32, 1, (void*[]){tvm_tir_int(8)},
                                      tvm_tir_decl_buffer_take(ref(tmp), inner));
  void* f = tvm_tir_func_take("local_alloc", tvm_tir_list_take(ref(A), ref(B)), body);
  RELEASE(A, B, data, tmp, j, k);
  return f;
}

/* Bits and comparisons over uint32/int32: shifts, bitwise ops, a bool output, popcount. */
static void* make_bits(void) {
  tvm_tir_buffer_obj* U = tvm_tir_buffer_decl("U", TVM_TIR_UINT32, 24);
  tvm_tir_buffer_obj* S = tvm_tir_buffer_decl("S", TVM_TIR_INT32, 24);
  tvm_tir_buffer_obj* O1 = tvm_tir_buffer_decl("O1", TVM_TIR_UINT32, 24);
  tvm_tir_buffer_obj* O2 = tvm_tir_buffer_decl("O2", TVM_TIR_INT32, 24);
  tvm_tir_buffer_obj* O3 = tvm_tir_buffer_decl("O3", TVM_TIR_BOOL, 24);
  tvm_tir_buffer_obj* O4 = tvm_tir_buffer_decl("O4", TVM_TIR_INT32, 24);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
#define LU tvm_tir_load_take(ref(U), ref(i))
#define LS tvm_tir_load_take(ref(S), ref(i))
  void* body = tvm_tir_serial_take(
      ref(i), tvm_tir_int(0), tvm_tir_int(24),
      tvm_tir_seq_take(
          tvm_tir_store_take(
              ref(O1),
              tvm_tir_call_take(TVM_TIR_UINT32, "tir.bitwise_xor",
                                tvm_tir_call_take(TVM_TIR_UINT32, "tir.shift_right", LU,
                                                  tvm_tir_const(TVM_TIR_UINT32, 3)),
                                tvm_tir_call_take(TVM_TIR_UINT32, "tir.shift_left", LU,
                                                  tvm_tir_const(TVM_TIR_UINT32, 2))),
              ref(i)),
          tvm_tir_store_take(
              ref(O2),
              tvm_tir_call_take(
                  TVM_TIR_INT32, "tir.bitwise_and",
                  tvm_tir_call_take(TVM_TIR_INT32, "tir.shift_right", LS, tvm_tir_int(2)),
                  tvm_tir_call_take(TVM_TIR_INT32, "tir.bitwise_not", LS)),
              ref(i)),
          tvm_tir_store_take(
              ref(O3),
              tvm_tir_and_take(tvm_tir_gt_take(LS, tvm_tir_int(0)),
                               tvm_tir_lt_take(LU, tvm_tir_const(TVM_TIR_UINT32, 40000))),
              ref(i)),
          tvm_tir_store_take(ref(O4), tvm_tir_call_take(TVM_TIR_INT32, "tir.popcount", LS),
                             ref(i))));
#undef LU
#undef LS
  void* f = tvm_tir_func_take(
      "bits", tvm_tir_list_take(ref(U), ref(S), ref(O1), ref(O2), ref(O3), ref(O4)), body);
  RELEASE(U, S, O1, O2, O3, O4, i);
  return f;
}

/* bfloat16 <-> float32 conversions: B[i] = bfloat16(F[i] * 2), G[i] = float32(H[i]) + 1. */
static void* make_bfloat16(void) {
  tvm_tir_buffer_obj* F = tvm_tir_buffer_decl("F", TVM_TIR_FLOAT32, 16);
  tvm_tir_buffer_obj* H = tvm_tir_buffer_decl("H", TVM_TIR_BFLOAT16, 16);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_BFLOAT16, 16);
  tvm_tir_buffer_obj* G = tvm_tir_buffer_decl("G", TVM_TIR_FLOAT32, 16);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_serial_take(
      ref(i), tvm_tir_int(0), tvm_tir_int(16),
      tvm_tir_seq_take(
          tvm_tir_store_take(ref(B),
                             tvm_tir_cast_take(TVM_TIR_BFLOAT16,
                                               tvm_tir_mul_take(tvm_tir_load_take(ref(F), ref(i)),
                                                                tvm_tir_f32(2))),
                             ref(i)),
          tvm_tir_store_take(ref(G),
                             tvm_tir_add_take(tvm_tir_cast_take(TVM_TIR_FLOAT32,
                                                                tvm_tir_load_take(ref(H), ref(i))),
                                              tvm_tir_f32(1)),
                             ref(i))));
  void* f = tvm_tir_func_take("bf16", tvm_tir_list_take(ref(F), ref(H), ref(B), ref(G)), body);
  RELEASE(F, H, B, G, i);
  return f;
}

/* A vector buffer: B[i] = A[i] * A[i] + Broadcast(1) over 6 elements of float32x4. */
static void* make_vector_buffer(void) {
  DLDataType v4 = tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 4);
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", v4, 6);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", v4, 6);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_serial_take(
      ref(i), tvm_tir_int(0), tvm_tir_int(6),
      tvm_tir_store_take(ref(B),
                         tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i)),
                                                           tvm_tir_load_take(ref(A), ref(i))),
                                          tvm_tir_broadcast_take(tvm_tir_f32(1), 4)),
                         ref(i)));
  void* f = tvm_tir_func_take("vbuf", tvm_tir_list_take(ref(A), ref(B)), body);
  RELEASE(A, B, i);
  return f;
}

/* ---- Differential tests ------------------------------------------------------------------- */
TEST(smoke_add) {
  void* f = make_binary("add", TVM_TIR_FLOAT32, 1, 16, TVM_TIR_KIND_Add, TVM_TIR_FOR_SERIAL);
  DIFF(f);
  tvm_ffi_release(f);
}

TEST(elementwise_add_dtypes) {
  DLDataType types[] = {TVM_TIR_FLOAT32, TVM_TIR_INT32, TVM_TIR_INT8, TVM_TIR_FLOAT64,
                        TVM_TIR_FLOAT16};
  for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); ++t) {
    for (int vec = 0; vec < 2; ++vec) {
      void* f = make_binary("add", types[t], 3, 16, TVM_TIR_KIND_Add,
                            vec ? TVM_TIR_FOR_VECTORIZED : TVM_TIR_FOR_SERIAL);
      DIFF(f);
      DIFF(f, .seed = 99, .wide = 1); /* integers over the type's range: int8 wraps around */
      tvm_ffi_release(f);
    }
  }
}

TEST(elementwise_ops) {
  tvm_tir_kind kinds[] = {TVM_TIR_KIND_Sub, TVM_TIR_KIND_Mul, TVM_TIR_KIND_Min, TVM_TIR_KIND_Max};
  for (size_t k = 0; k < 4; ++k) {
    void* f = make_binary("op", TVM_TIR_FLOAT32, 2, 8, kinds[k], TVM_TIR_FOR_VECTORIZED);
    DIFF(f, .seed = 5);
    tvm_ffi_release(f);
    f = make_binary("op", TVM_TIR_INT16, 2, 7, kinds[k], TVM_TIR_FOR_SERIAL);
    DIFF(f, .seed = 6, .wide = 1);
    tvm_ffi_release(f);
  }
}

TEST(broadcast_add) {
  void* f = make_broadcast_add();
  DIFF(f);
  DIFF(f, .seed = 17);
  tvm_ffi_release(f);
}

TEST(reduction_with_init) {
  void* f = make_row_sum(TVM_TIR_FLOAT32);
  DIFF(f);
  tvm_ffi_release(f);
  f = make_row_sum(TVM_TIR_INT32);
  DIFF(f, .seed = 3, .wide = 1);
  tvm_ffi_release(f);
}

static void* kind_post(tvm_tir_mutator* m, const void* node) {
  const tvm_tir_for_obj* f = node;
  if (strcmp(tvm_tir_var_name(f->loop_var), "j") != 0) return tvm_tir_ref((void*)f);
  return tvm_tir_for_new(f->loop_var, f->min, f->extent, TVM_TIR_FOR_VECTORIZED, f->body, NULL,
                         f->annotations);
}

TEST(matmul_vectorized) {
  void* f = tvm_tir_testing_make_matmul("", 4, 8, 5);
  DIFF(f);
  tvm_tir_mutator m = {0};
  m.post[TVM_TIR_KIND_For] = kind_post;
  void* fv = tvm_tir_mutate(&m, f);
  CHECK(fv != NULL);
  DIFF(fv, .seed = 8);
  /* The vectorized j loop became <8 x float> loads and stores. */
  void* g = tvm_tir_lower(fv, NULL);
  TVMFFIAny ir = tvm_ffi_any_none();
  CHECK_OK(tvm_codegen_emit_llvm_ir(g, NULL, &ir));
  TVMFFIByteArray text;
  if (tvm_ffi_any_as_bytes(&ir, &text)) {
    CHECK(strstr(text.data, "<8 x float>") != NULL);
    CHECK(strstr(text.data, "noalias") != NULL);
  }
  tvm_ffi_any_release(&ir);
  RELEASE(f, fv, g);
}

TEST(transpose) {
  void* f = make_transpose(TVM_TIR_FOR_SERIAL);
  DIFF(f, .wide = 1);
  tvm_ffi_release(f);
  f = make_transpose(TVM_TIR_FOR_VECTORIZED); /* a contiguous load, a strided (scattered) store */
  DIFF(f, .wide = 1, .seed = 9);
  tvm_ffi_release(f);
}

TEST(bits_and_bool) {
  void* f = make_bits();
  DIFF(f, .wide = 1);
  DIFF(f, .seed = 41);
  tvm_ffi_release(f);
}

TEST(vector_buffer) {
  void* f = make_vector_buffer();
  DIFF(f);
  tvm_ffi_release(f);
}

TEST(bfloat16_casts) {
  void* f = make_bfloat16();
  DIFF(f);
  tvm_ffi_release(f);
}

TEST(select_and_if_then_else) {
  void* f = make_select(TVM_TIR_FOR_SERIAL);
  DIFF(f);
  DIFF(f, .seed = 21);
  tvm_ffi_release(f);
}

TEST(symbolic_shape) {
  void* f = make_symbolic();
  DIFF(f, .sym = 13);
  DIFF(f, .sym = 1, .seed = 4);
  void* m;
  void* fn = jit_fn_(__LINE__, f, "scale", &m);
  if (fn) {
    float a[13], b[12];
    int64_t sa[1] = {13}, sb[1] = {12};
    DLTensor ta = dl(a, TVM_TIR_FLOAT32, 1, sa, NULL), tb = dl(b, TVM_TIR_FLOAT32, 1, sb, NULL);
    TVMFFIAny args[2] = {T(&ta), T(&tb)};
    EXPECT_CALL_ERR(fn, args, 2, "ValueError", "scale: argument B: shape[0]: expected 13, got 12");
  }
  RELEASE(fn, m, f);
}

TEST(integer_divisions) {
  void* f = make_divisions();
  DIFF(f);
  DIFF(f, .seed = 77, .wide = 1);
  tvm_ffi_release(f);
}

TEST(casts) {
  void* f = make_casts();
  DIFF(f);
  DIFF(f, .seed = 12, .wide = 1);
  tvm_ffi_release(f);
}

TEST(softmax) {
  void* f = make_softmax();
  DIFF(f);
  tvm_ffi_release(f);
}

TEST(math_builtins) {
  void* f = make_math();
  DIFF(f);
  tvm_ffi_release(f);
}

TEST(local_allocation) {
  void* f = make_local_alloc();
  DIFF(f);
  tvm_ffi_release(f);
}

/* The libtir generator with sequences, IfThenElse, LetStmt and modulo indexing. */
TEST(large_func) {
  void* f = tvm_tir_testing_make_large_func(40);
  DIFF(f);
  tvm_ffi_release(f);
}

typedef struct {
  tvm_tir_mutator m;
  tvm_tir_for_kind kinds[3]; /* for loops i, j, k */
} kinds_setter;

static void* set_kinds_post(tvm_tir_mutator* m, const void* node) {
  kinds_setter* ks = (kinds_setter*)m;
  const tvm_tir_for_obj* f = node;
  const char* n = tvm_tir_var_name(f->loop_var);
  int which = strcmp(n, "i") == 0 ? 0 : strcmp(n, "j") == 0 ? 1 : strcmp(n, "k") == 0 ? 2 : -1;
  if (which < 0) return tvm_tir_ref((void*)f);
  return tvm_tir_for_new(f->loop_var, f->min, f->extent, ks->kinds[which], f->body, NULL,
                         f->annotations);
}

/* Matmul with its loops i and j serial, parallel (tvm_ffi_parallel_launch, nested launches run
 * serially), unrolled or vectorized, and the reduction loop k serial, unrolled or vectorized (a
 * parallel reduction would be a data race). */
TEST(matmul_loop_kinds) {
  static const tvm_tir_for_kind all[] = {TVM_TIR_FOR_SERIAL, TVM_TIR_FOR_PARALLEL,
                                         TVM_TIR_FOR_UNROLLED, TVM_TIR_FOR_VECTORIZED};
  static const tvm_tir_for_kind red[] = {TVM_TIR_FOR_SERIAL, TVM_TIR_FOR_UNROLLED,
                                         TVM_TIR_FOR_VECTORIZED};
  void* f = tvm_tir_testing_make_matmul("", 9, 8, 4);
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      kinds_setter ks = {{{0}}, {all[a], all[b], red[(a + b) % 3]}};
      ks.m.post[TVM_TIR_KIND_For] = set_kinds_post;
      void* fk = tvm_tir_mutate(&ks.m, f);
      CHECK(fk != NULL);
      if (fk) DIFF(fk, .seed = (unsigned)(a * 4 + b + 1));
      tvm_ffi_release(fk);
    }
  }
  tvm_ffi_release(f);
}

/* Loop metadata: every For loop is llvm.loop.mustprogress; a loop with a vector body whose
 * constant extent times body size exceeds TVM_CODEGEN_UNROLL_BUDGET (here k, 64 steps over
 * <8 x float>) gets llvm.loop.unroll.count instead of full unrolling, scalar loops keep LLVM's
 * default. Results still match the interpreter. */
static bool ir_contains(void* g, int opt_level, const char* what) {
  tvm_codegen_options o = tvm_codegen_options_default();
  o.opt_level = opt_level;
  TVMFFIAny ir = tvm_ffi_any_none();
  TVMFFIByteArray text;
  bool found = false;
  CHECK_OK(tvm_codegen_emit_llvm_ir(g, &o, &ir));
  if (tvm_ffi_any_as_bytes(&ir, &text)) found = strstr(text.data, what) != NULL;
  tvm_ffi_any_release(&ir);
  return found;
}

/* C[i, j] += A[i, k] * B[k, j] over i in 4, k in 64, j in 8 of kind jk (C read and written). */
static void* make_mac(tvm_tir_for_kind jk) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 4, 64);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 64, 8);
  tvm_tir_buffer_obj* C = tvm_tir_buffer_decl("C", TVM_TIR_FLOAT32, 4, 8);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  void* store = tvm_tir_store_take(
      ref(C),
      tvm_tir_add_take(tvm_tir_load_take(ref(C), ref(i), ref(j)),
                       tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i), ref(k)),
                                        tvm_tir_load_take(ref(B), ref(k), ref(j)))),
      ref(i), ref(j));
  void* body = tvm_tir_serial_take(
      ref(i), tvm_tir_int(0), tvm_tir_int(4),
      tvm_tir_serial_take(ref(k), tvm_tir_int(0), tvm_tir_int(64),
                          tvm_tir_for_take(ref(j), tvm_tir_int(0), tvm_tir_int(8), jk, store)));
  void* f = tvm_tir_func_take("mac", tvm_tir_list_take(ref(A), ref(B), ref(C)), body);
  RELEASE(A, B, C, i, k, j);
  return f;
}

TEST(loop_metadata) {
  void* fv = make_mac(TVM_TIR_FOR_VECTORIZED); /* k: 64 steps over <8 x float> */
  void* fs = make_mac(TVM_TIR_FOR_SERIAL);     /* scalar code only */
  DIFF(fv, .seed = 31);
  DIFF(fs, .seed = 32);
  void* gv = tvm_tir_lower(fv, NULL);
  void* gs = tvm_tir_lower(fs, NULL);
  CHECK(gv != NULL && gs != NULL);
  if (gv && gs) {
    /* As generated (O0: no pass rewrites the metadata). */
    CHECK(ir_contains(gv, 0, "<8 x float>"));
    CHECK(ir_contains(gv, 0, "!{!\"llvm.loop.mustprogress\"}"));
    CHECK(ir_contains(gv, 0, "!{!\"llvm.loop.unroll.count\", i32 "));
    CHECK(ir_contains(gv, 0, ", !llvm.loop !"));
    CHECK(ir_contains(gs, 0, "!{!\"llvm.loop.mustprogress\"}"));
    CHECK(!ir_contains(gs, 0, "llvm.loop.unroll"));
    /* Optimised: the k loop stays a loop over vectors, with its metadata. */
    CHECK(ir_contains(gv, 3, "<8 x float>"));
    CHECK(ir_contains(gv, 3, "!{!\"llvm.loop.mustprogress\"}"));
    CHECK(ir_contains(gv, 3, ", !llvm.loop !"));
  }
  RELEASE(fv, fs, gv, gs);
}

static int count_threads(void) {
  FILE* p = fopen("/proc/self/status", "r");
  int n = 0;
  char line[256];
  while (p && fgets(line, sizeof(line), p))
    if (strncmp(line, "Threads:", 8) == 0) n = atoi(line + 8);
  if (p) fclose(p);
  return n;
}

/* Parallel loops: results, and an AssertStmt failing in some task raising on the caller. */
TEST(parallel_loop) {
  void* f = make_binary("padd", TVM_TIR_FLOAT32, 3, 200, TVM_TIR_KIND_Mul, TVM_TIR_FOR_PARALLEL);
  DIFF(f, .seed = 14);
  void* g = tvm_tir_lower(f, NULL);
  TVMFFIAny ir = tvm_ffi_any_none();
  TVMFFIByteArray text;
  CHECK_OK(tvm_codegen_emit_llvm_ir(g, NULL, &ir)); /* launched through the context symbol */
  if (tvm_ffi_any_as_bytes(&ir, &text)) {
    CHECK(strstr(text.data, "@__TVMBackendParallelLaunch = ") != NULL);
    CHECK(strstr(text.data, "tvm_ffi_parallel_launch") == NULL);
  }
  tvm_ffi_any_release(&ir);
  RELEASE(f, g);

  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 64);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 64);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_for_take(
      ref(i), tvm_tir_int(0), tvm_tir_int(64), TVM_TIR_FOR_PARALLEL,
      tvm_tir_assert_take(tvm_tir_ne_take(tvm_tir_load_take(ref(A), ref(i)), tvm_tir_f32(1000)),
                          "checked: A holds 1000",
                          tvm_tir_store_take(ref(B), tvm_tir_load_take(ref(A), ref(i)), ref(i))));
  f = tvm_tir_func_take("pcheck", tvm_tir_list_take(ref(A), ref(B)), body);
  void* m;
  void* fn = jit_fn_(__LINE__, f, "pcheck", &m);
  if (fn) {
    float a[64], b[64];
    for (int e = 0; e < 64; ++e) a[e] = (float)e;
    int64_t shape[1] = {64};
    DLTensor ta = dl(a, TVM_TIR_FLOAT32, 1, shape, NULL),
             tb = dl(b, TVM_TIR_FLOAT32, 1, shape, NULL);
    TVMFFIAny args[2] = {T(&ta), T(&tb)}, r;
    CHECK_OK(tvm_ffi_function_call(fn, args, 2, &r));
    CHECK(b[63] == 63.0f && b[0] == 0.0f);
    /* The JIT's parallel loop ran on the pool: its worker threads exist now. */
    if (tvm_ffi_parallel_num_threads() > 1) CHECK(count_threads() > 1);
    a[50] = 1000;
    EXPECT_CALL_ERR(fn, args, 2, "AssertionError", "checked: A holds 1000");
  }
  RELEASE(fn, m, A, B, i, f);
}

/* An IRModule of several kernels in one JIT module; functions outlive the module reference. */
TEST(jit_module_of_functions) {
  void* f1 = make_transpose(TVM_TIR_FOR_SERIAL);
  void* f2 = make_row_sum(TVM_TIR_FLOAT64);
  void* mod = tvm_tir_module_take(f1, f2);
  void* g = mod ? tvm_tir_lower(mod, NULL) : NULL;
  void* m = g ? tvm_codegen_build(g, "llvm", NULL) : NULL;
  CHECK(m != NULL);
  void* fns[2] = {NULL, NULL};
  const char* names[2] = {"transpose", "row_sum"};
  if (m) {
    for (int k = 0; k < 2; ++k) CHECK_OK(tvm_ffi_module_get_function(m, names[k], false, &fns[k]));
    TVMFFIAny margs[1] = {tvm_ffi_any_obj(m)}, list = tvm_ffi_any_none();
    CHECK_OK(tvm_ffi_global_call("ffi.ModuleListFunctions", margs, 1, &list));
    void* arr = tvm_ffi_any_as_object(&list, kTVMFFIArray);
    if (!arr) arr = tvm_ffi_any_as_object(&list, kTVMFFIList);
    CHECK(arr != NULL && tvm_ffi_seq_size(arr) == 2);
    tvm_ffi_any_release(&list);
  }
  tvm_ffi_release(m); /* the functions keep the module (and the JIT) alive */
  for (int k = 0; k < 2; ++k) {
    void* gk = g ? tvm_tir_ir_module_lookup(g, names[k]) : NULL;
    void* fk = mod ? tvm_tir_ir_module_lookup(mod, names[k]) : NULL;
    if (fns[k] && gk && fk) diff_fn_(__LINE__, fk, gk, fns[k], &(cg_opts){.seed = 5 + (unsigned)k});
    RELEASE(fns[k], gk);
    tvm_ffi_release(fk);
  }
  RELEASE(mod, g);
}

/* Options: fast-math flags appear only when asked for (by default float operations carry only
 * `contract`, for FMA fusion, which fp_contract = false removes); O0 and no host CPU still
 * compute the same. */
TEST(options) {
  void* f = make_softmax();
  void* g = tvm_tir_lower(f, NULL);
  tvm_codegen_options o = tvm_codegen_options_default();
  TVMFFIAny ir = tvm_ffi_any_none();
  TVMFFIByteArray text;
  CHECK_OK(tvm_codegen_emit_llvm_ir(g, &o, &ir));
  if (tvm_ffi_any_as_bytes(&ir, &text)) {
    CHECK(strstr(text.data, " fast ") == NULL);
    CHECK(strstr(text.data, " contract ") != NULL);
  }
  tvm_ffi_any_release(&ir);
  o.fp_contract = false;
  CHECK_OK(tvm_codegen_emit_llvm_ir(g, &o, &ir));
  if (tvm_ffi_any_as_bytes(&ir, &text)) CHECK(strstr(text.data, "contract") == NULL);
  tvm_ffi_any_release(&ir);
  o.fast_math = true;
  CHECK_OK(tvm_codegen_emit_llvm_ir(g, &o, &ir));
  if (tvm_ffi_any_as_bytes(&ir, &text)) CHECK(strstr(text.data, " fast ") != NULL);
  tvm_ffi_any_release(&ir);
  o = tvm_codegen_options_default();
  o.opt_level = 0;
  o.host_cpu = false;
  void* m = tvm_codegen_build(g, NULL, &o);
  CHECK(m != NULL);
  void* fn = NULL;
  if (m) CHECK_OK(tvm_ffi_module_get_function(m, "softmax", false, &fn));
  if (fn) diff_fn_(__LINE__, f, g, fn, &(cg_opts){.seed = 2});
  /* A missing function is NULL without an error. */
  void* none = (void*)1;
  if (m) CHECK_OK(tvm_ffi_module_get_function(m, "nope", false, &none));
  CHECK(none == NULL);
  RELEASE(fn, m, g, f);
}

/* ---- Arguments ---------------------------------------------------------------------------- */
TEST(ffi_tensor_arguments) {
  void* f = make_binary("add", TVM_TIR_FLOAT32, 4, 8, TVM_TIR_KIND_Add, TVM_TIR_FOR_VECTORIZED);
  void* m;
  void* fn = jit_fn_(__LINE__, f, "add", &m);
  if (fn) {
    int64_t shape[2] = {4, 8};
    void* t[3];
    for (int k = 0; k < 3; ++k)
      t[k] = tvm_ffi_tensor_empty(shape, 2, TVM_TIR_FLOAT32, TVMFFIDLDeviceFromIntPair(kDLCPU, 0));
    float* a = tvm_ffi_tensor_dl(t[0])->data;
    float* b = tvm_ffi_tensor_dl(t[1])->data;
    float* c = tvm_ffi_tensor_dl(t[2])->data;
    for (int e = 0; e < 32; ++e) {
      a[e] = (float)e * 0.5f + 1;
      b[e] = (float)(e % 5) - 2.5f;
    }
    TVMFFIAny args[3] = {tvm_ffi_any_obj(t[0]), tvm_ffi_any_obj(t[1]), tvm_ffi_any_obj(t[2])}, r;
    CHECK_OK(tvm_ffi_function_call(fn, args, 3, &r));
    for (int e = 0; e < 32; ++e) CHECK(c[e] == a[e] + b[e]);
    RELEASE(t[0], t[1], t[2]);
  }
  RELEASE(fn, m, f);
}

TEST(bad_calls_raise) {
  void* f = make_binary("add", TVM_TIR_FLOAT32, 4, 8, TVM_TIR_KIND_Add, TVM_TIR_FOR_VECTORIZED);
  void* m;
  void* fn = jit_fn_(__LINE__, f, "add", &m);
  if (fn) {
    float a[64], b[64], c[64];
    _Float16 h[32];
    int64_t shape[2] = {4, 8}, bad_shape[2] = {4, 9}, strides[2] = {16, 1};
    DLTensor ta = dl(a, TVM_TIR_FLOAT32, 2, shape, NULL),
             tb = dl(b, TVM_TIR_FLOAT32, 2, shape, NULL);
    DLTensor tc = dl(c, TVM_TIR_FLOAT32, 2, shape, NULL);
    TVMFFIAny args[3] = {T(&ta), T(&tb), T(&tc)};
    EXPECT_CALL_ERR(fn, args, 2, "TypeError", "add: expected 3 arguments, got 2");
    args[0] = I(3);
    EXPECT_CALL_ERR(fn, args, 3, "TypeError",
                    "add: argument A: expected a Tensor (DLTensor* or ffi.Tensor), got int");
    args[0] = tvm_ffi_any_dltensor(NULL);
    args[0].type_index = kTVMFFIDLTensorPtr;
    EXPECT_CALL_ERR(fn, args, 3, "ValueError", "add: argument A: got a NULL DLTensor*");
    DLTensor th = dl(h, TVM_TIR_FLOAT16, 2, shape, NULL);
    args[0] = T(&th);
    EXPECT_CALL_ERR(fn, args, 3, "ValueError",
                    "add: argument A: expected dtype float32, got float16");
    DLTensor t1 = dl(a, TVM_TIR_FLOAT32, 1, shape, NULL);
    args[0] = T(&t1);
    EXPECT_CALL_ERR(fn, args, 3, "ValueError", "add: argument A: ndim: expected 2, got 1");
    args[0] = T(&ta);
    DLTensor tbs = dl(b, TVM_TIR_FLOAT32, 2, bad_shape, NULL);
    args[1] = T(&tbs);
    EXPECT_CALL_ERR(fn, args, 3, "ValueError", "add: argument B: shape[1]: expected 8, got 9");
    args[1] = T(&tb);
    DLTensor tn = dl(NULL, TVM_TIR_FLOAT32, 2, shape, NULL);
    args[2] = T(&tn);
    EXPECT_CALL_ERR(fn, args, 3, "ValueError", "add: argument C: data is NULL");
    DLTensor tg = dl(c, TVM_TIR_FLOAT32, 2, shape, NULL);
    tg.device.device_type = kDLCUDA;
    args[2] = T(&tg);
    EXPECT_CALL_ERR(fn, args, 3, "ValueError",
                    "add: argument C: expected a CPU tensor (device type 1), got device type 2");
    DLTensor ts = dl(c, TVM_TIR_FLOAT32, 2, shape, strides);
    args[2] = T(&ts);
    EXPECT_CALL_ERR(fn, args, 3, "ValueError",
                    "add: argument C: not compact: strides[0]: expected 8, got 16");
    DLTensor to = dl(c, TVM_TIR_FLOAT32, 2, shape, NULL);
    to.byte_offset = 8;
    args[2] = T(&to);
    EXPECT_CALL_ERR(fn, args, 3, "ValueError",
                    "add: argument C: elem_offset (byte_offset / element size): expected 0, got 2");
    /* Compact explicit strides are accepted, and a good call still works after the errors. */
    int64_t compact[2] = {8, 1};
    DLTensor tcs = dl(c, TVM_TIR_FLOAT32, 2, shape, compact);
    args[2] = T(&tcs);
    for (int e = 0; e < 32; ++e) a[e] = b[e] = (float)e;
    TVMFFIAny r;
    CHECK_OK(tvm_ffi_function_call(fn, args, 3, &r));
    CHECK(c[31] == 62.0f);
  }
  RELEASE(fn, m, f);
}

TEST(scalar_parameter) {
  /* B[i] = A[i] * alpha + n, alpha a float32 parameter and n an int32 parameter. */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 6);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 6);
  tvm_tir_var_obj* alpha = tvm_tir_var("alpha", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_serial_take(
      ref(i), tvm_tir_int(0), tvm_tir_int(6),
      tvm_tir_store_take(
          ref(B),
          tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i)), ref(alpha)),
                           tvm_tir_cast_take(TVM_TIR_FLOAT32, ref(n))),
          ref(i)));
  void* f = tvm_tir_func_take("axpb", tvm_tir_list_take(ref(A), ref(alpha), ref(n), ref(B)), body);
  void* m;
  void* fn = jit_fn_(__LINE__, f, "axpb", &m);
  if (fn) {
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6];
    int64_t shape[1] = {6};
    DLTensor ta = dl(a, TVM_TIR_FLOAT32, 1, shape, NULL),
             tb = dl(b, TVM_TIR_FLOAT32, 1, shape, NULL);
    TVMFFIAny args[4] = {T(&ta), F(0.5), I(3), T(&tb)}, r;
    CHECK_OK(tvm_ffi_function_call(fn, args, 4, &r));
    for (int e = 0; e < 6; ++e) CHECK(b[e] == a[e] * 0.5f + 3);
    args[1] = tvm_ffi_any_raw_str("x");
    EXPECT_CALL_ERR(fn, args, 4, "TypeError", "axpb: argument alpha: expected float, got str");
    args[1] = F(1);
    args[2] = F(1.5);
    EXPECT_CALL_ERR(fn, args, 4, "TypeError", "axpb: argument n: expected int, got float");
  }
  RELEASE(fn, m, A, B, alpha, n, i, f);
}

TEST(build_errors) {
  void* f = make_binary("add", TVM_TIR_FLOAT32, 2, 2, TVM_TIR_KIND_Add, TVM_TIR_FOR_SERIAL);
  CHECK(tvm_codegen_build(f, "opencl", NULL) == NULL);
  CHECK_RAISED("ValueError", "target \"opencl\": unknown target kind \"opencl\"");
  /* a CPU loop nest built for a GPU: nothing is bound to threads */
  void* g = tvm_tir_lower(f, NULL);
  CHECK(g && tvm_codegen_build(g, "cuda", NULL) == NULL);
  CHECK_RAISED("ValueError", "function add launches no GPU kernel");
  tvm_ffi_release(g);
  tvm_ffi_release(f);
  /* Not lowered: multi-dimensional accesses are refused with a clear message. */
  f = make_binary("add", TVM_TIR_FLOAT32, 2, 2, TVM_TIR_KIND_Add, TVM_TIR_FOR_SERIAL);
  CHECK(tvm_codegen_build(f, NULL, NULL) == NULL);
  CHECK_RAISED("ValueError", "not flat");
  tvm_ffi_release(f);
}

/* The dtypes the code generator represents (what `tvmc check` asks before a build). */
TEST(dtype_supported) {
  DLDataType f8 = {kDLFloat, 8, 1}, f128 = {kDLFloat, 128, 1}, bf32 = {kDLBfloat, 32, 1};
  CHECK(tvm_codegen_dtype_supported(TVM_TIR_FLOAT16, true));
  CHECK(tvm_codegen_dtype_supported(tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 8), true));
  CHECK(tvm_codegen_dtype_supported(TVM_TIR_BOOL, true));
  CHECK(tvm_codegen_dtype_supported(TVM_TIR_HANDLE, false));
  CHECK(tvm_codegen_dtype_supported(tvm_tir_dtype_uint(49), false));
  CHECK(!tvm_codegen_dtype_supported(tvm_tir_dtype_uint(49), true)); /* not whole bytes */
  CHECK(!tvm_codegen_dtype_supported(tvm_tir_dtype_int(4), true));
  CHECK(!tvm_codegen_dtype_supported(f8, false));
  CHECK(!tvm_codegen_dtype_supported(f128, false));
  CHECK(!tvm_codegen_dtype_supported(bf32, false));
  /* A build meets the same answer: B[0] = A[0] over int4 buffers. */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", tvm_tir_dtype_int(4), 4);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", tvm_tir_dtype_int(4), 4);
  void* f = tvm_tir_func_take(
      "int4_copy", tvm_tir_list_take(ref(A), ref(B)),
      tvm_tir_store_take(ref(B), tvm_tir_load_take(ref(A), tvm_tir_int(0)), tvm_tir_int(0)));
  CHECK(f && tvm_codegen_build(f, NULL, NULL) == NULL);
  CHECK_RAISED("NotImplementedError", "unsupported dtype int4 in memory");
  RELEASE(A, B, f);
}

/* A GPU thread binding (T.launch_thread's thread_extent attribute) is refused by name, not
 * reported as an unbound variable: A[bx] = 1 for bx bound to blockIdx.x over 8. */
TEST(gpu_construct_refused) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 8);
  tvm_tir_var_obj* bx = tvm_tir_var("bx", TVM_TIR_INT32);
  tvm_tir_iter_var_obj* iv =
      tvm_tir_iter_var_new(NULL, bx, TVM_TIR_ITER_THREAD_INDEX, "blockIdx.x");
  TVMFFIAny node = tvm_ffi_any_obj(iv);
  tvm_tir_expr_obj* extent = tvm_tir_int(8);
  tvm_tir_stmt_obj* store = tvm_tir_store_take(ref(A), tvm_tir_f32(1), ref(bx));
  tvm_tir_stmt_obj* body =
      iv && store ? tvm_tir_attr_stmt_new(&node, "thread_extent", extent, store) : NULL;
  void* f = body ? tvm_tir_func_take("launch", tvm_tir_list_take(ref(A)), ref(body)) : NULL;
  CHECK(f && tvm_codegen_build(f, NULL, NULL) == NULL);
  CHECK_RAISED("NotImplementedError", "GPU construct in a CPU kernel: thread_extent binds bx to "
                                      "the GPU thread index \"blockIdx.x\"");
  RELEASE(A, bx, iv, extent, store, body, f);
}

/* ---- Export to a shared library ---------------------------------------------------------- */
TEST(export_shared_library) {
  void* f1 = make_binary("add", TVM_TIR_FLOAT32, 4, 8, TVM_TIR_KIND_Add, TVM_TIR_FOR_VECTORIZED);
  void* f2 = make_softmax();
  void* f3 = make_binary("padd", TVM_TIR_FLOAT32, 3, 40, TVM_TIR_KIND_Add, TVM_TIR_FOR_PARALLEL);
  void* mod = tvm_tir_module_take(f1, f2, f3);
  void* g = mod ? tvm_tir_lower(mod, NULL) : NULL;
  CHECK(g != NULL);
  char path[512];
  snprintf(path, sizeof(path), "%s/codegen_export_%d.so", TVM_CODEGEN_TEST_TMPDIR, (int)getpid());
  CHECK_OK(tvm_codegen_export(g, path, NULL));
  CHECK(cg_undefined_symbols(path, true) > 0);
  /* The library records the tvm-ffi ABI it was built against. */
  void* so = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
  CHECK(so != NULL);
  const uint32_t* abi = so ? (const uint32_t*)dlsym(so, TVM_FFI_SYMBOL_ABI_VERSION) : NULL;
  CHECK(abi != NULL);
  if (abi) {
    CHECK_EQ_INT(abi[0], TVM_FFI_VERSION_MAJOR);
    CHECK_EQ_INT(abi[1], TVM_FFI_VERSION_MINOR);
    CHECK_EQ_INT(abi[2], TVM_FFI_VERSION_PATCH);
  }
  if (so) dlclose(so);
  /* Load through the ABI global, as any tvm-ffi runtime would. */
  void* get = tvm_ffi_global_get("ffi.Module.load_from_file.so");
  CHECK(get != NULL);
  TVMFFIAny largs[2] = {tvm_ffi_any_raw_str(path), tvm_ffi_any_raw_str("so")},
            lib = tvm_ffi_any_none();
  if (get) CHECK_OK(tvm_ffi_function_call(get, largs, 2, &lib));
  void* lmod = tvm_ffi_any_as_object(&lib, kTVMFFIModule);
  CHECK(lmod != NULL);
  if (lmod) {
    const char* names[3] = {"add", "softmax", "padd"};
    for (int k = 0; k < 3; ++k) {
      void* fn = NULL;
      CHECK_OK(tvm_ffi_module_get_function(lmod, names[k], false, &fn));
      CHECK(fn != NULL);
      void* gk = tvm_tir_ir_module_lookup(g, names[k]);
      void* fk = tvm_tir_ir_module_lookup(mod, names[k]);
      if (fn && gk && fk) {
        diff_fn_(__LINE__, fk, gk, fn, &(cg_opts){.seed = 11});
        if (k == 0) {
          TVMFFIAny args[3] = {I(1), I(2), I(3)};
          EXPECT_CALL_ERR(fn, args, 3, "TypeError", "add: argument A: expected a Tensor");
          EXPECT_CALL_ERR(fn, args, 1, "TypeError", "add: expected 3 arguments, got 1");
        }
      }
      RELEASE(fn, gk);
      tvm_ffi_release(fk);
    }
  }
  tvm_ffi_any_release(&lib);
  tvm_ffi_release(get);
  if (!getenv("TVM_CODEGEN_KEEP")) unlink(path);
  RELEASE(mod, g);
}

int main(void) {
  RUN(smoke_add);
  RUN(elementwise_add_dtypes);
  RUN(elementwise_ops);
  RUN(broadcast_add);
  RUN(reduction_with_init);
  RUN(matmul_vectorized);
  RUN(transpose);
  RUN(bits_and_bool);
  RUN(bfloat16_casts);
  RUN(vector_buffer);
  RUN(select_and_if_then_else);
  RUN(symbolic_shape);
  RUN(integer_divisions);
  RUN(casts);
  RUN(softmax);
  RUN(math_builtins);
  RUN(local_allocation);
  RUN(large_func);
  RUN(matmul_loop_kinds);
  RUN(loop_metadata);
  RUN(options);
  RUN(jit_module_of_functions);
  RUN(parallel_loop);
  RUN(ffi_tensor_arguments);
  RUN(bad_calls_raise);
  RUN(scalar_parameter);
  RUN(build_errors);
  RUN(gpu_construct_refused);
  RUN(dtype_supported);
  RUN(export_shared_library);
  return test_summary();
}

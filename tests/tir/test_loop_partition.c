/*
 * test_loop_partition.c: the loop_partition pass (tvm/tir/transform.h), alone and in the
 * tvm_tir_lower pipeline. Every program runs in the interpreter before and after on the same
 * random inputs and must give the same bytes.
 */
#include "test_transform.h"

/* B[io * 16 + ii] = A[io * 16 + ii] * 2 + 1 for io < ceil(n / 16), ii < 16 (ii of kind
 * ii_kind), guarded by `io * 16 + ii < n`: the tail predicate of a split loop. */
static void* make_split_tail(int64_t n, tvm_tir_for_kind ii_kind) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, n);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, n);
  tvm_tir_var_obj* io = tvm_tir_var("io", TVM_TIR_INT32);
  tvm_tir_var_obj* ii = tvm_tir_var("ii", TVM_TIR_INT32);
#define IDX tvm_tir_add_take(tvm_tir_mul_take(ref(io), tvm_tir_int(16)), ref(ii))
  void* store = tvm_tir_store_take(
      ref(B),
      tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_load_take(ref(A), IDX), tvm_tir_f32(2)),
                       tvm_tir_f32(1)),
      IDX);
  void* guarded = tvm_tir_if_take(tvm_tir_lt_take(IDX, tvm_tir_int(n)), store, NULL);
#undef IDX
  void* loops = tvm_tir_serial_take(
      io, tvm_tir_int(0), tvm_tir_int((n + 15) / 16),
      tvm_tir_for_take(ii, tvm_tir_int(0), tvm_tir_int(16), ii_kind, guarded));
  return tvm_tir_func_take("split_tail", tvm_tir_list_take(A, B), loops);
}

TEST(split_tail_partitioned) {
  void* f = make_split_tail(1000, TVM_TIR_FOR_SERIAL);
  void* g = PASS_OK(tvm_tir_transform_loop_partition, f);
  if (g) {
    /* io in [0, 61] (provably in bounds) and io = 62, whose ii loop splits in turn into
     * [0, 7] (in bounds) and [8, 15] (out of bounds): 2 + 3 loops, 3 tests left. */
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_For), 5);
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_IfThenElse), 3);
    SAME_RESULTS(f, g);
    void* h = PASS_OK(tvm_tir_transform_simplify, g);
    if (h) {
      CHECK_EQ_INT(count_kind(h, TVM_TIR_KIND_IfThenElse), 0); /* every test decided */
      SAME_RESULTS(f, h, .seed = 7);
    }
    tvm_ffi_release(h);
  }
  RELEASE(f, g);
}

TEST(divisible_extent_left_alone) {
  /* 1024 = 64 * 16: the predicate is provable everywhere; simplify removes it, no split. */
  void* f = make_split_tail(1024, TVM_TIR_FOR_SERIAL);
  void* g = PASS_OK(tvm_tir_transform_loop_partition, f);
  CHECK(g == f);
  RELEASE(f, g);
}

TEST(lowering_vectorizes_the_main_part) {
  /* Without partitioning the vectorized ii loop branches on a lane-varying condition and stays
   * serial; with it, the main part becomes vector code. */
  void* f = make_split_tail(1000, TVM_TIR_FOR_VECTORIZED);
  tvm_tir_lower_options o = {.check = true};
  void* g = tvm_tir_lower(f, &o);
  CHECK(g != NULL);
  if (g) {
    CHECK(count_kind(g, TVM_TIR_KIND_Ramp) >= 2);
    /* The tail (io = 62) keeps its test in a serial ii loop: vectorized loops are not split. */
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_IfThenElse), 1);
    SAME_RESULTS(f, g);
  }
  RELEASE(f, g);
}

TEST(padding_border_three_parts) {
  /* for i < 34: B[i] = if 1 <= i and i < 33 then A[i - 1] else 0: the border tests split i into
   * [0, 0], [1, 32], [33, 33]. */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 32);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_INT32, 34);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* cond = tvm_tir_and_take(tvm_tir_le_take(tvm_tir_int(1), ref(i)),
                                tvm_tir_lt_take(ref(i), tvm_tir_int(33)));
  void* body = tvm_tir_if_take(
      cond,
      tvm_tir_store_take(ref(B), tvm_tir_load_take(ref(A), tvm_tir_sub_take(ref(i), tvm_tir_int(1))),
                         ref(i)),
      tvm_tir_store_take(ref(B), tvm_tir_int(0), ref(i)));
  void* f = tvm_tir_func_take("pad", tvm_tir_list_take(ref(A), ref(B)),
                              tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(34), body));
  void* g = PASS_OK(tvm_tir_transform_loop_partition, f);
  void* h = g ? PASS_OK(tvm_tir_transform_simplify, g) : NULL;
  if (h) {
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_For), 3);
    /* The one-element border loops fold too: their condition is provably false. */
    CHECK_EQ_INT(count_kind(h, TVM_TIR_KIND_IfThenElse), 0);
    SAME_RESULTS(f, h);
  }
  RELEASE(A, B, i, f, g, h);
}

TEST(unprovable_and_symbolic_loops_unchanged) {
  /* A condition on data, and a loop of symbolic extent: nothing to partition. */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 16);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  void* data_if = tvm_tir_serial_take(
      ref(i), tvm_tir_int(0), tvm_tir_int(16),
      tvm_tir_if_take(tvm_tir_gt_take(tvm_tir_load_take(ref(A), ref(i)), ref(i)),
                      tvm_tir_store_take(ref(A), ref(i), ref(i)), NULL));
  void* sym = tvm_tir_serial_take(
      ref(j), tvm_tir_int(0), ref(n),
      tvm_tir_if_take(tvm_tir_lt_take(ref(j), tvm_tir_int(16)),
                      tvm_tir_store_take(ref(A), tvm_tir_int(1), ref(j)), NULL));
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(A), ref(n)), tvm_tir_seq_take(data_if, sym));
  void* g = PASS_OK(tvm_tir_transform_loop_partition, f);
  CHECK(g == f);
  RELEASE(A, i, j, n, f, g);
}

int main(void) {
  RUN(split_tail_partitioned);
  RUN(divisible_extent_left_alone);
  RUN(lowering_vectorizes_the_main_part);
  RUN(padding_border_three_parts);
  RUN(unprovable_and_symbolic_loops_unchanged);
  tir_release_temps();
  return test_summary();
}

/*
 * test_interp_stmt.c: the reference interpreter on statements, buffers and arguments: the
 * spec's indexing example, bounds checks, vector loads/stores with lane splitting, Allocate,
 * block alloc_buffers, match_buffer, reduction init (a matmul against C on random inputs),
 * symbolic shapes, strides, broadcasting, memory encodings and bad arguments.
 */
#include <stdlib.h>

#include "test_interp.h"

static tvm_tir_buffer_obj* buf1(const char* name, DLDataType t, int64_t n) {
  return tvm_tir_buffer_decl(name, t, n);
}

/* ---- Indexing ------------------------------------------------------------------------------ */
TEST(indexing_spec_example) {
  /* shape (2, 2, 3) holding 1..12: index (0, 1, 1) is 5 and (1, 0, 2) is 9. */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 2, 2, 3);
  tvm_tir_buffer_obj* B = buf1("B", TVM_TIR_INT32, 2);
  void* body = tvm_tir_seq_take(
      tvm_tir_store_take(ref(B),
                         tvm_tir_load_take(ref(A), tvm_tir_int(0), tvm_tir_int(1), tvm_tir_int(1)),
                         tvm_tir_int(0)),
      tvm_tir_store_take(ref(B),
                         tvm_tir_load_take(ref(A), tvm_tir_int(1), tvm_tir_int(0), tvm_tir_int(2)),
                         tvm_tir_int(1)));
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(A), ref(B)), body);
  int32_t a[12], b[2] = {0, 0};
  for (int k = 0; k < 12; ++k) a[k] = k + 1;
  int64_t sa[] = {2, 2, 3}, sb[] = {2};
  DLTensor ta = dl(a, TVM_TIR_INT32, 3, sa, NULL), tb = dl(b, TVM_TIR_INT32, 1, sb, NULL);
  if (RUN_OK(f, T(&ta), T(&tb))) {
    CHECK_EQ_INT(b[0], 5);
    CHECK_EQ_INT(b[1], 9);
  }
  RELEASE(A, B, f);
}

TEST(out_of_bounds_access) {
  tvm_tir_buffer_obj* B = buf1("B", TVM_TIR_INT32, 4);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* lo = tvm_tir_var("lo", TVM_TIR_INT32);
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(B), ref(lo)),
                              tvm_tir_serial_take(ref(i), ref(lo), tvm_tir_int(5),
                                                  tvm_tir_store_take(ref(B), ref(i), ref(i))));
  int32_t b[4];
  int64_t sb[] = {4};
  DLTensor tb = dl(b, TVM_TIR_INT32, 1, sb, NULL);
  RUN_ERR("IndexError", "buffer B: index [4] is out of bounds for shape [4]", f, T(&tb), I(0));
  RUN_ERR("IndexError", "buffer B: index [-1] is out of bounds", f, T(&tb), I(-1));
  /* Loads are checked too. */
  void* g = ret_func_take(tvm_tir_list_take(ref(B), ref(lo)), tvm_tir_load_take(ref(B), ref(lo)));
  RUN_ERR("IndexError", "index [7]", g, T(&tb), I(7));
  RELEASE(B, i, lo, f, g);
}

/* ---- Vectors ------------------------------------------------------------------------------- */
TEST(vector_load_store_lane_splitting) {
  DLDataType f32x2 = tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 2);
  tvm_tir_buffer_obj* V = buf1("V", f32x2, 4);
  tvm_tir_buffer_obj* B = buf1("B", TVM_TIR_FLOAT32, 4);
  tvm_tir_buffer_obj* R = buf1("R", TVM_TIR_FLOAT32, 4);
  /* V[ramp(0, 1, 3)] = float32x6(0, 1, ..., 5): element j gets lanes 2j and 2j + 1. */
  void* store =
      tvm_tir_store_take(ref(V),
                         tvm_tir_cast_take(tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 6),
                                           tvm_tir_ramp_take(tvm_tir_int(0), tvm_tir_int(1), 6)),
                         tvm_tir_ramp_take(tvm_tir_int(0), tvm_tir_int(1), 3));
  /* B[0:4] = V[ramp(1, 1, 2)] (float32x4 = V[1] ++ V[2]) + 10 */
  void* load = tvm_tir_store_take(
      ref(B),
      tvm_tir_add_take(
          tvm_tir_load_take(ref(V), tvm_tir_ramp_take(tvm_tir_int(1), tvm_tir_int(1), 2)),
          tvm_tir_broadcast_take(tvm_tir_f32(10), 4)),
      tvm_tir_ramp_take(tvm_tir_int(0), tvm_tir_int(1), 4));
  /* R[0:4] = shuffle(B[0:4], [3, 2, 1, 0]) */
  tvm_tir_expr_obj* bl =
      tvm_tir_load_take(ref(B), tvm_tir_ramp_take(tvm_tir_int(0), tvm_tir_int(1), 4));
  tvm_tir_expr_obj* shuffle =
      bl ? tvm_tir_shuffle_new(ARR(bl), ARR(tir_temp(tvm_tir_int(3)), tir_temp(tvm_tir_int(2)),
                                            tir_temp(tvm_tir_int(1)), tir_temp(tvm_tir_int(0))))
         : NULL;
  tvm_ffi_release(bl);
  void* rev =
      tvm_tir_store_take(ref(R), shuffle, tvm_tir_ramp_take(tvm_tir_int(0), tvm_tir_int(1), 4));
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(V), ref(B), ref(R)),
                              tvm_tir_seq_take(store, load, rev));
  float v[8] = {0}, b[4], r[4];
  int64_t s4[] = {4};
  DLTensor tv = dl(v, f32x2, 1, s4, NULL), tb = dl(b, TVM_TIR_FLOAT32, 1, s4, NULL),
           tr = dl(r, TVM_TIR_FLOAT32, 1, s4, NULL);
  if (RUN_OK(f, T(&tv), T(&tb), T(&tr))) {
    float ev[8] = {0, 1, 2, 3, 4, 5, 0, 0}, eb[4] = {12, 13, 14, 15};
    for (int k = 0; k < 8; ++k) CHECK(v[k] == ev[k]);
    for (int k = 0; k < 4; ++k) CHECK(b[k] == eb[k]);
    for (int k = 0; k < 4; ++k) CHECK(r[k] == eb[3 - k]);
  }
  RELEASE(V, B, R, f);
}

/* ---- Allocation ---------------------------------------------------------------------------- */
static tvm_tir_stmt_obj* jump_stmt(const char* op) {
  return tvm_tir_evaluate_take(tvm_tir_call_takev(TVM_TIR_VOID, op, 0, NULL));
}

/* break / continue leave the innermost loop or its iteration; one outside any loop (ill-formed
 * IR run unchecked) is an error, not a silent exit. */
TEST(break_and_continue) {
  tvm_tir_buffer_obj* B = buf1("B", TVM_TIR_INT32, 3);
  tvm_tir_var_obj *i = tvm_tir_var("i", TVM_TIR_INT32), *j = tvm_tir_var("j", TVM_TIR_INT32);
#define LD(k) tvm_tir_load_take(ref(B), tvm_tir_int(k))
  /* for i in 0..10: (for j in 0..5: break) if i % 2 == 0: continue; if i == 7: break;
   *   B[0] += i   -> 1 + 3 + 5 */
  void* loop = tvm_tir_serial_take(
      ref(i), tvm_tir_int(0), tvm_tir_int(10),
      tvm_tir_seq_take(
          tvm_tir_serial_take(ref(j), tvm_tir_int(0), tvm_tir_int(5), jump_stmt("tir.break_loop")),
          tvm_tir_if_take(
              tvm_tir_eq_take(tvm_tir_floormod_take(ref(i), tvm_tir_int(2)), tvm_tir_int(0)),
              jump_stmt("tir.continue_loop"), NULL),
          tvm_tir_if_take(tvm_tir_eq_take(ref(i), tvm_tir_int(7)), jump_stmt("tir.break_loop"),
                          NULL),
          tvm_tir_store_take(ref(B), tvm_tir_add_take(LD(0), ref(i)), tvm_tir_int(0))));
  /* while B[1] < 100: B[1] += 10; if B[1] == 30: continue; B[2] = B[1]; if B[1] >= 50: break */
  void* wloop = tvm_tir_while_take(
      tvm_tir_lt_take(LD(1), tvm_tir_int(100)),
      tvm_tir_seq_take(
          tvm_tir_store_take(ref(B), tvm_tir_add_take(LD(1), tvm_tir_int(10)), tvm_tir_int(1)),
          tvm_tir_if_take(tvm_tir_eq_take(LD(1), tvm_tir_int(30)), jump_stmt("tir.continue_loop"),
                          NULL),
          tvm_tir_store_take(ref(B), LD(1), tvm_tir_int(2)),
          tvm_tir_if_take(tvm_tir_ge_take(LD(1), tvm_tir_int(50)), jump_stmt("tir.break_loop"),
                          NULL)));
#undef LD
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(B)), tvm_tir_seq_take(loop, wloop));
  int32_t b[3] = {0, 0, -1};
  int64_t shape[1] = {3};
  DLTensor t = dl(b, TVM_TIR_INT32, 1, shape, NULL);
  TVMFFIAny args[1] = {T(&t)}, out;
  if (run_ok_(__LINE__, f, args, 1, &out)) {
    CHECK_EQ_INT(b[0], 9);
    CHECK_EQ_INT(b[1], 50);
    CHECK_EQ_INT(b[2], 50);
  }
  tvm_ffi_release(f);
  void* g = tvm_tir_func_take("g", tvm_tir_list_take(ref(B)), jump_stmt("tir.continue_loop"));
  run_err_(__LINE__, "RuntimeError", "tir.continue_loop outside a loop", g, args, 1);
  tvm_ffi_release(g);
  RELEASE(B, i, j);
}

TEST(allocate_in_loop) {
  /* for i in 0..3: allocate T[4] (fresh, zero); T[i] = i + 1; B[i] = T[0] + T[1] + T[2] + T[3] */
  tvm_tir_buffer_obj* B = buf1("B", TVM_TIR_INT32, 3);
  tvm_tir_var_obj* p = tvm_tir_ptr_var("tmp", TVM_TIR_INT32, NULL);
  void* shape = tvm_tir_list_take(tvm_tir_int(4));
  tvm_tir_buffer_obj* Tb = tvm_tir_buffer_new(
      &(tvm_tir_buffer_fields){.data = p, .dtype = TVM_TIR_INT32, .shape = shape, .name = "T"});
  tvm_ffi_release(shape);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* sum = tvm_tir_add_take(tvm_tir_add_take(tvm_tir_load_take(ref(Tb), tvm_tir_int(0)),
                                                tvm_tir_load_take(ref(Tb), tvm_tir_int(1))),
                               tvm_tir_add_take(tvm_tir_load_take(ref(Tb), tvm_tir_int(2)),
                                                tvm_tir_load_take(ref(Tb), tvm_tir_int(3))));
  void* inner = tvm_tir_seq_take(
      tvm_tir_store_take(ref(Tb), tvm_tir_add_take(ref(i), tvm_tir_int(1)), ref(i)),
      tvm_tir_store_take(ref(B), sum, ref(i)));
  void* alloc = tvm_tir_allocate_takev(ref(p), TVM_TIR_INT32, 1, (void*[]){tvm_tir_int(4)},
                                       tvm_tir_decl_buffer_take(ref(Tb), inner));
  /* An Allocate whose condition is false does not run its body. */
  tvm_tir_stmt_obj* never_body = tvm_tir_store_take(ref(B), tvm_tir_int(99), tvm_tir_int(0));
  tvm_tir_expr_obj* no = tvm_tir_bool(false);
  void* extents = tvm_tir_list_take(tvm_tir_int(4));
  tvm_tir_var_obj* q = tvm_tir_ptr_var("q", TVM_TIR_INT32, NULL);
  tvm_tir_stmt_obj* never = tvm_tir_allocate_new(q, TVM_TIR_INT32, extents, no, never_body, NULL);
  RELEASE(never_body, no, extents, q);
  void* f = tvm_tir_func_take(
      "f", tvm_tir_list_take(ref(B)),
      tvm_tir_seq_take(tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(3), alloc), never));
  int32_t b[3] = {-1, -1, -1};
  int64_t s3[] = {3};
  DLTensor tb = dl(b, TVM_TIR_INT32, 1, s3, NULL);
  if (RUN_OK(f, T(&tb))) {
    CHECK_EQ_INT(b[0], 1);
    CHECK_EQ_INT(b[1], 2);
    CHECK_EQ_INT(b[2], 3);
  }
  /* Accessing the allocation outside the Allocate: its data variable is unbound. */
  void* g = tvm_tir_func_take(
      "g", tvm_tir_list_take(ref(B)),
      tvm_tir_store_take(ref(B), tvm_tir_load_take(ref(Tb), tvm_tir_int(0)), tvm_tir_int(0)));
  RUN_ERR("RuntimeError", "data variable 'tmp' is unbound", g, T(&tb));
  RELEASE(B, p, Tb, i, f, g);
}

/* Allocate name[extent] of dtype around body (consumed), its data Var returned in *data. */
static void* allocate_around(const char* name, DLDataType t, void* extent, void* body) {
  tvm_tir_var_obj* p = tvm_tir_ptr_var(name, t, NULL);
  void* s = tvm_tir_allocate_takev(ref(p), t, 1, (void*[]){extent}, body);
  tvm_ffi_release(p);
  return s;
}

/* The interpreter's own allocations are bounded as a total, checked before any memory is
 * taken: a 2**40-element Allocate was zero-filled until the machine ran out of memory. */
TEST(allocation_memory_limit) {
  tvm_tir_buffer_obj* B = buf1("B", TVM_TIR_INT32, 1);
  int32_t b[1] = {0};
  int64_t s1[] = {1};
  DLTensor tb = dl(b, TVM_TIR_INT32, 1, s1, NULL);
  unsetenv("TVM_TIR_INTERP_MEMORY_LIMIT");
  void* huge = tvm_tir_func_take(
      "huge", tvm_tir_list_take(ref(B)),
      allocate_around("big", TVM_TIR_FLOAT32, tvm_tir_i64((int64_t)1 << 40),
                      tvm_tir_store_take(ref(B), tvm_tir_int(1), tvm_tir_int(0))));
  RUN_ERR("MemoryError", "Allocate big: 4398046511104 bytes would bring", huge, T(&tb));
  CHECK_EQ_INT(b[0], 0);
  int64_t phys = tvm_tir_interp_memory_limit();
  CHECK(phys > 0 && phys < ((int64_t)1 << 42));

  /* A limit of 40 bytes: a[8] (32 bytes) then, inside it, c[4] (16 more) is over; the same
   * c[4] after a[8] is released, three times over in a loop, fits. */
  setenv("TVM_TIR_INTERP_MEMORY_LIMIT", "40", 1);
  CHECK(tvm_tir_interp_memory_limit() == 40);
  void* store = tvm_tir_store_take(ref(B), tvm_tir_int(2), tvm_tir_int(0));
  void* nested = tvm_tir_func_take(
      "nested", tvm_tir_list_take(ref(B)),
      allocate_around("a", TVM_TIR_INT32, tvm_tir_int(8),
                      allocate_around("c", TVM_TIR_INT32, tvm_tir_int(4), ref(store))));
  RUN_ERR("MemoryError",
          "Allocate c: 16 bytes would bring the interpreter's allocations to 48 bytes, over its "
          "limit of 40 bytes (TVM_TIR_INTERP_MEMORY_LIMIT",
          nested, T(&tb));
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* seq = tvm_tir_func_take(
      "seq", tvm_tir_list_take(ref(B)),
      tvm_tir_seq_take(
          allocate_around("a", TVM_TIR_INT32, tvm_tir_int(8), tvm_tir_evaluate_take(tvm_tir_int(0))),
          tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(3),
                              allocate_around("c", TVM_TIR_INT32, tvm_tir_int(4), ref(store)))));
  if (RUN_OK(seq, T(&tb))) CHECK_EQ_INT(b[0], 2);
  /* A block's alloc_buffers count too, named as buffers. */
  setenv("TVM_TIR_INTERP_MEMORY_LIMIT", "8", 1);
  tvm_tir_buffer_obj* Tb = buf1("T", TVM_TIR_INT32, 4);
  void* block = tvm_tir_block_full_take("blk", NULL, NULL, NULL, NULL, NULL,
                                        tvm_tir_list_take(ref(Tb)), ref(store));
  void* blk = tvm_tir_func_take("blk", tvm_tir_list_take(ref(B)), block);
  RUN_ERR("MemoryError", "buffer T: 16 bytes would bring", blk, T(&tb));
  /* Suffixes, and an unreadable value. */
  setenv("TVM_TIR_INTERP_MEMORY_LIMIT", "3K", 1);
  CHECK(tvm_tir_interp_memory_limit() == 3072);
  setenv("TVM_TIR_INTERP_MEMORY_LIMIT", "2G", 1);
  CHECK(tvm_tir_interp_memory_limit() == ((int64_t)2 << 30));
  setenv("TVM_TIR_INTERP_MEMORY_LIMIT", "12Q", 1);
  RUN_ERR("ValueError", "TVM_TIR_INTERP_MEMORY_LIMIT=12Q is not a byte count", nested, T(&tb));
  unsetenv("TVM_TIR_INTERP_MEMORY_LIMIT");
  RELEASE(B, huge, store, nested, i, seq, Tb, blk);
}

TEST(block_alloc_buffers_and_realize) {
  /* block { alloc T[4]; for j: T[j] = A[j] * 2; for j: B[j] = T[3 - j] } */
  tvm_tir_buffer_obj* A = buf1("A", TVM_TIR_INT32, 4);
  tvm_tir_buffer_obj* B = buf1("B", TVM_TIR_INT32, 4);
  tvm_tir_buffer_obj* Tb = buf1("T", TVM_TIR_INT32, 4);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  void* body = tvm_tir_seq_take(
      tvm_tir_serial_take(
          ref(j), tvm_tir_int(0), tvm_tir_int(4),
          tvm_tir_store_take(ref(Tb),
                             tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(j)), tvm_tir_int(2)),
                             ref(j))),
      tvm_tir_serial_take(
          ref(k), tvm_tir_int(0), tvm_tir_int(4),
          tvm_tir_store_take(ref(B),
                             tvm_tir_load_take(ref(Tb), tvm_tir_sub_take(tvm_tir_int(3), ref(k))),
                             ref(k))));
  void* block = tvm_tir_block_full_take("blk", NULL, NULL, NULL, NULL, NULL,
                                        tvm_tir_list_take(ref(Tb)), body);
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(A), ref(B)), block);
  int32_t a[4] = {1, 2, 3, 4}, b[4] = {0};
  int64_t s4[] = {4};
  DLTensor ta = dl(a, TVM_TIR_INT32, 1, s4, NULL), tb = dl(b, TVM_TIR_INT32, 1, s4, NULL);
  if (RUN_OK(f, T(&ta), T(&tb))) {
    for (int x = 0; x < 4; ++x) CHECK_EQ_INT(b[x], 2 * a[3 - x]);
  }
  /* BufferRealize allocates too: realize U[4] { U[1] = 7; B[0] = U[0] + U[1] } */
  tvm_tir_buffer_obj* U = buf1("U", TVM_TIR_INT32, 4);
  void* rbody = tvm_tir_seq_take(
      tvm_tir_store_take(ref(U), tvm_tir_int(7), tvm_tir_int(1)),
      tvm_tir_store_take(ref(B),
                         tvm_tir_add_take(tvm_tir_load_take(ref(U), tvm_tir_int(0)),
                                          tvm_tir_load_take(ref(U), tvm_tir_int(1))),
                         tvm_tir_int(0)));
  void* bounds = tvm_tir_list_take(tvm_tir_range_take(tvm_tir_int(0), tvm_tir_int(4)));
  tvm_tir_stmt_obj* realize =
      rbody && bounds ? tvm_tir_buffer_realize_new(U, bounds, NULL, rbody) : NULL;
  RELEASE(rbody, bounds);
  void* g = tvm_tir_func_take("g", tvm_tir_list_take(ref(B)), realize);
  if (RUN_OK(g, T(&tb))) CHECK_EQ_INT(b[0], 7);
  RELEASE(A, B, Tb, j, k, f, U, g);
}


TEST(match_buffer_with_offsets) {
  /* The aliases S, S2, S3 of A from tvm_tir_testing_make_aliases (tir_testing.h). */
  tvm_tir_testing_aliases al;
  if (tvm_tir_testing_make_aliases(&al) != 0) {
    CHECK_OK(-1);
    return;
  }
  tvm_tir_buffer_obj *A = al.A, *S = al.S, *S2 = al.S2, *S3 = al.S3;
  tvm_tir_var_obj *off = al.off, *s0 = al.s0;
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  void* mb = ref(al.match_buffers);
  void* body = tvm_tir_seq_take(
      tvm_tir_serial_take(
          ref(i), tvm_tir_int(0), tvm_tir_int(2),
          tvm_tir_serial_take(
              ref(j), tvm_tir_int(0), tvm_tir_int(3),
              tvm_tir_store_take(ref(S),
                                 tvm_tir_add_take(tvm_tir_mul_take(ref(i), tvm_tir_int(10)),
                                                  tvm_tir_add_take(ref(j), tvm_tir_int(1))),
                                 ref(i), ref(j)))),
      tvm_tir_store_take(ref(S2), tvm_tir_int(100), tvm_tir_int(2)),
      tvm_tir_store_take(ref(S3), ref(off), tvm_tir_int(0), tvm_tir_int(0)),
      tvm_tir_store_take(ref(S3), ref(s0), tvm_tir_int(0), tvm_tir_int(1)));
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(A)), tvm_tir_testing_block_with_matches(mb, body));
  int32_t a[24] = {0};
  int64_t sa[] = {4, 6};
  DLTensor ta = dl(a, TVM_TIR_INT32, 2, sa, NULL);
  if (RUN_OK(f, T(&ta))) {
    CHECK_EQ_INT(a[1 * 6 + 2], 1);
    CHECK_EQ_INT(a[1 * 6 + 4], 3);
    CHECK_EQ_INT(a[2 * 6 + 3], 12);
    CHECK_EQ_INT(a[3 * 6 + 2], 100);
    CHECK_EQ_INT(a[2 * 6 + 4], 2 * 6 + 4); /* S3's elem_offset: A[2, 4] */
    CHECK_EQ_INT(a[2 * 6 + 5], 6);         /* S3's first stride: A's row stride */
    CHECK_EQ_INT(a[0], 0);
  }
  /* An index past the alias's shape is an IndexError naming the alias. */
  void* mb2 = tvm_tir_list_take(tvm_tir_match_buffer_region_new(
      S, tir_temp(tvm_tir_region_take(ref(A), tvm_tir_range_take(tvm_tir_int(1), tvm_tir_int(2)),
                                      tvm_tir_range_take(tvm_tir_int(2), tvm_tir_int(3))))));
  void* g = tvm_tir_func_take(
      "g", tvm_tir_list_take(ref(A)),
      tvm_tir_testing_block_with_matches(
          mb2, tvm_tir_store_take(ref(S), tvm_tir_int(1), tvm_tir_int(0), tvm_tir_int(3))));
  RUN_ERR("IndexError", "buffer S: index [0, 3] is out of bounds for shape [2, 3]", g, T(&ta));
  RELEASE(i, j, f, g);
  tvm_tir_testing_aliases_release(&al);
}

TEST(block_predicate_and_iter_values) {
  /* for i in 0..4: block(vi = i * 2) where i < 3 { B[vi / 2] = vi + 1 }: B[3] stays untouched. */
  tvm_tir_buffer_obj* B = buf1("B", TVM_TIR_INT32, 4);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* vi = tvm_tir_var("vi", TVM_TIR_INT32);
  tvm_tir_sblock_fields fields = {0};
  fields.name_hint = "b";
  fields.iter_vars = tvm_tir_list_take(
      tvm_tir_iter_var_take(ref(vi), tvm_tir_int(0), tvm_tir_int(8), TVM_TIR_ITER_DATA_PAR));
  fields.body = tvm_tir_store_take(ref(B), tvm_tir_add_take(ref(vi), tvm_tir_int(1)),
                                   tvm_tir_floordiv_take(ref(vi), tvm_tir_int(2)));
  tvm_tir_sblock_obj* block = fields.iter_vars && fields.body ? tvm_tir_sblock_new(&fields) : NULL;
  void* values = tvm_tir_list_take(tvm_tir_mul_take(ref(i), tvm_tir_int(2)));
  tvm_tir_expr_obj* pred = tvm_tir_lt_take(ref(i), tvm_tir_int(3));
  tvm_tir_stmt_obj* realize =
      block && values && pred ? tvm_tir_sblock_realize_new(values, pred, block) : NULL;
  RELEASE(fields.iter_vars, fields.body, block, values, pred);
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(B)),
                              tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(4), realize));
  int32_t b[4] = {-1, -1, -1, -1};
  int64_t s4[] = {4};
  DLTensor tb = dl(b, TVM_TIR_INT32, 1, s4, NULL);
  if (RUN_OK(f, T(&tb))) {
    CHECK_EQ_INT(b[0], 1);
    CHECK_EQ_INT(b[1], 3);
    CHECK_EQ_INT(b[2], 5);
    CHECK_EQ_INT(b[3], -1);
  }
  RELEASE(B, i, vi, f);
}

/* ---- Reduction: matmul against C ----------------------------------------------------------- */
TEST(matmul_reduction_init_random) {
  enum { M = 7, N = 5, K = 9 };
  tvm_tir_prim_func_obj* f = tvm_tir_testing_make_matmul("", M, N, K);
  float a[M * K], b[K * N], c[M * N], expected[M * N];
  srand(12345);
  for (int x = 0; x < M * K; ++x) a[x] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
  for (int x = 0; x < K * N; ++x) b[x] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
  for (int x = 0; x < M * N; ++x) c[x] = 1000.0f; /* the init must overwrite this */
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k) acc = acc + a[i * K + k] * b[k * N + j];
      expected[i * N + j] = acc;
    }
  }
  int64_t sa[] = {M, K}, sb[] = {K, N};
  DLTensor ta = dl(a, TVM_TIR_FLOAT32, 2, sa, NULL), tb = dl(b, TVM_TIR_FLOAT32, 2, sb, NULL);
  /* C is an ffi.Tensor object. */
  int64_t sc[] = {M, N};
  void* tc = tvm_ffi_tensor_empty(sc, 2, TVM_TIR_FLOAT32, (DLDevice){kDLCPU, 0});
  if (tc) memcpy(tvm_ffi_tensor_dl(tc)->data, c, sizeof(c));
  if (tc && RUN_OK(f, T(&ta), T(&tb), tvm_ffi_any_obj(tc))) {
    const float* out = tvm_ffi_tensor_dl(tc)->data;
    int mismatches = 0;
    for (int x = 0; x < M * N; ++x) mismatches += out[x] != expected[x];
    CHECK_EQ_INT(mismatches, 0);
  }
  RELEASE(f, tc);
}

TEST(sum_reduction_init_at_domain_min) {
  /* for k in 0..4: block(vk = k + 2, vk in [2, 6) reduce) init S[0] = 0 { S[0] += A[vk] } */
  tvm_tir_buffer_obj* A = buf1("A", TVM_TIR_INT32, 6);
  tvm_tir_buffer_obj* S = buf1("S", TVM_TIR_INT32, 1);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  tvm_tir_var_obj* vk = tvm_tir_var("vk", TVM_TIR_INT32);
  void* iters = tvm_tir_list_take(
      tvm_tir_iter_var_take(ref(vk), tvm_tir_int(2), tvm_tir_int(4), TVM_TIR_ITER_COMM_REDUCE));
  void* init = tvm_tir_store_take(ref(S), tvm_tir_int(0), tvm_tir_int(0));
  void* update = tvm_tir_store_take(ref(S),
                                    tvm_tir_add_take(tvm_tir_load_take(ref(S), tvm_tir_int(0)),
                                                     tvm_tir_load_take(ref(A), ref(vk))),
                                    tvm_tir_int(0));
  void* block = tvm_tir_block_full_take("sum", iters,
                                        tvm_tir_list_take(tvm_tir_add_take(ref(k), tvm_tir_int(2))),
                                        NULL, NULL, init, NULL, update);
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(A), ref(S)),
                              tvm_tir_serial_take(ref(k), tvm_tir_int(0), tvm_tir_int(4), block));
  int32_t a[6] = {1, 2, 3, 4, 5, 6}, sum = 999;
  int64_t s6[] = {6}, s1[] = {1};
  DLTensor ta = dl(a, TVM_TIR_INT32, 1, s6, NULL), ts = dl(&sum, TVM_TIR_INT32, 1, s1, NULL);
  if (RUN_OK(f, T(&ta), T(&ts))) CHECK_EQ_INT(sum, 3 + 4 + 5 + 6);
  RELEASE(A, S, k, vk, f);
}

/* ---- Arguments ----------------------------------------------------------------------------- */
TEST(symbolic_shape_binding) {
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_buffer_obj* A =
      tvm_tir_buffer_decl_takev("A", TVM_TIR_FLOAT32, 1, (void*[]){ref(n)}, NULL);
  tvm_tir_buffer_obj* B =
      tvm_tir_buffer_decl_takev("B", TVM_TIR_FLOAT32, 1, (void*[]){ref(n)}, NULL);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* loop = tvm_tir_serial_take(
      ref(i), tvm_tir_int(0), ref(n),
      tvm_tir_store_take(
          ref(B), tvm_tir_add_take(tvm_tir_load_take(ref(A), ref(i)), tvm_tir_f32(1)), ref(i)));
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(A), ref(B)), ref(loop));
  float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {0};
  int64_t s5[] = {5}, s6[] = {6};
  DLTensor ta = dl(a, TVM_TIR_FLOAT32, 1, s5, NULL), tb = dl(b, TVM_TIR_FLOAT32, 1, s5, NULL),
           tb6 = dl(b, TVM_TIR_FLOAT32, 1, s6, NULL);
  if (RUN_OK(f, T(&ta), T(&tb))) {
    for (int k = 0; k < 5; ++k) CHECK(b[k] == a[k] + 1);
    CHECK(b[5] == 0);
  }
  /* n was bound to 5 by A; B's 6 is a mismatch naming the argument and dimension. */
  RUN_ERR("ValueError", "argument 1 ('B_handle'): shape[0] is 6 but the buffer requires 5", f,
          T(&ta), T(&tb6));
  /* With n a parameter: passed explicitly (checked against the tensors) or left out. */
  void* g = tvm_tir_func_take("g", tvm_tir_list_take(ref(A), ref(B), ref(n)), ref(loop));
  RUN_OK(g, T(&ta), T(&tb), I(5));
  RUN_OK(g, T(&ta), T(&tb));
  RUN_ERR("ValueError", "shape[0] is 5 but the buffer requires 4", g, T(&ta), T(&tb), I(4));
  RUN_ERR("TypeError", "expected 3 arguments, got 1", g, T(&ta));
  RELEASE(n, A, B, i, loop, f, g);
}

TEST(strides_and_elem_offset) {
  /* A (3, 2) with symbolic strides reads a transposed view of a 2x3 row-major matrix. */
  tvm_tir_var_obj* s0 = tvm_tir_var("s0", TVM_TIR_INT32);
  tvm_tir_var_obj* s1 = tvm_tir_var("s1", TVM_TIR_INT32);
  tvm_tir_var_obj* off = tvm_tir_var("off", TVM_TIR_INT32);
  tvm_tir_var_obj* data = tvm_tir_ptr_var("A", TVM_TIR_FLOAT32, NULL);
  void* shape = tvm_tir_list_take(tvm_tir_int(3), tvm_tir_int(2));
  void* strides = tvm_tir_list_take(ref(s0), ref(s1));
  tvm_tir_buffer_obj* A = tvm_tir_buffer_new(&(tvm_tir_buffer_fields){.data = data,
                                                                      .dtype = TVM_TIR_FLOAT32,
                                                                      .shape = shape,
                                                                      .strides = strides,
                                                                      .elem_offset = &off->expr,
                                                                      .name = "A"});
  RELEASE(shape, strides, data);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 3, 2);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  void* f = tvm_tir_func_take(
      "f", tvm_tir_list_take(ref(A), ref(B)),
      tvm_tir_serial_take(
          ref(i), tvm_tir_int(0), tvm_tir_int(3),
          tvm_tir_serial_take(ref(j), tvm_tir_int(0), tvm_tir_int(2),
                              tvm_tir_store_take(ref(B), tvm_tir_load_take(ref(A), ref(i), ref(j)),
                                                 ref(i), ref(j)))));
  float m[8] = {-1, -1, 1, 2, 3, 4, 5, 6}; /* two padding elements, then [[1, 2, 3], [4, 5, 6]] */
  float b[6] = {0};
  int64_t sa[] = {3, 2}, st[] = {1, 3}, sb[] = {3, 2};
  DLTensor ta = dl(m, TVM_TIR_FLOAT32, 2, sa, st), tb = dl(b, TVM_TIR_FLOAT32, 2, sb, NULL);
  ta.byte_offset = 2 * sizeof(float);
  if (RUN_OK(f, T(&ta), T(&tb))) {
    float e[6] = {1, 4, 2, 5, 3, 6};
    for (int k = 0; k < 6; ++k) CHECK(b[k] == e[k]);
  }
  /* A compact buffer does not accept a strided tensor, nor an unaligned byte_offset. */
  DLTensor tbt = dl(b, TVM_TIR_FLOAT32, 2, sb, (int64_t[]){1, 3});
  RUN_ERR("ValueError", "strided tensor for buffer B", f, T(&ta), T(&tbt));
  ta.byte_offset = 3;
  RUN_ERR("ValueError", "byte_offset 3", f, T(&ta), T(&tb));
  /* A compact buffer's elem_offset is 0: a byte_offset does not match it. */
  DLTensor tbo = dl(b, TVM_TIR_FLOAT32, 2, sb, NULL);
  tbo.byte_offset = 4;
  ta.byte_offset = 8;
  RUN_ERR("ValueError", "elem_offset is 1 but the buffer requires 0", f, T(&ta), T(&tbo));
  RELEASE(s0, s1, off, A, B, i, j, f);
}

TEST(elementwise_add_with_broadcasting) {
  /* C[i, j] = A[i, j] + Bb[i, j], Bb an auto-broadcast buffer given a (4, 3) view of one row
   * (strides (0, 1)). */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 4, 3);
  tvm_tir_buffer_obj* C = tvm_tir_buffer_decl("C", TVM_TIR_FLOAT32, 4, 3);
  tvm_tir_var_obj* data = tvm_tir_ptr_var("Bb", TVM_TIR_FLOAT32, NULL);
  void* shape = tvm_tir_list_take(tvm_tir_int(4), tvm_tir_int(3));
  tvm_tir_buffer_obj* Bb =
      tvm_tir_buffer_new(&(tvm_tir_buffer_fields){.data = data,
                                                  .dtype = TVM_TIR_FLOAT32,
                                                  .shape = shape,
                                                  .name = "Bb",
                                                  .buffer_type = TVM_TIR_BUFFER_AUTO_BROADCAST});
  RELEASE(shape, data);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  void* f = tvm_tir_func_take(
      "f", tvm_tir_list_take(ref(A), ref(Bb), ref(C)),
      tvm_tir_serial_take(
          ref(i), tvm_tir_int(0), tvm_tir_int(4),
          tvm_tir_serial_take(
              ref(j), tvm_tir_int(0), tvm_tir_int(3),
              tvm_tir_store_take(ref(C),
                                 tvm_tir_add_take(tvm_tir_load_take(ref(A), ref(i), ref(j)),
                                                  tvm_tir_load_take(ref(Bb), ref(i), ref(j))),
                                 ref(i), ref(j)))));
  float a[12], row[3] = {10, 20, 30}, c[12];
  for (int k = 0; k < 12; ++k) a[k] = (float)k;
  int64_t s[] = {4, 3}, bst[] = {0, 1};
  DLTensor ta = dl(a, TVM_TIR_FLOAT32, 2, s, NULL), tb = dl(row, TVM_TIR_FLOAT32, 2, s, bst),
           tc = dl(c, TVM_TIR_FLOAT32, 2, s, NULL);
  if (RUN_OK(f, T(&ta), T(&tb), T(&tc))) {
    for (int k = 0; k < 12; ++k) CHECK(c[k] == a[k] + row[k % 3]);
  }
  RELEASE(A, C, Bb, i, j, f);
}

TEST(bad_arguments) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 4);
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT8);
  void* f = tvm_tir_func_take(
      "f", tvm_tir_list_take(ref(A), ref(x)),
      tvm_tir_store_take(ref(A), tvm_tir_cast_take(TVM_TIR_FLOAT32, ref(x)), tvm_tir_int(0)));
  float a[8];
  double d[4];
  int64_t s4[] = {4}, s22[] = {2, 2}, s5[] = {5};
  DLTensor ok = dl(a, TVM_TIR_FLOAT32, 1, s4, NULL),
           wrong_dtype = dl(d, TVM_TIR_FLOAT64, 1, s4, NULL),
           wrong_ndim = dl(a, TVM_TIR_FLOAT32, 2, s22, NULL),
           wrong_shape = dl(a, TVM_TIR_FLOAT32, 1, s5, NULL);
  RUN_OK(f, T(&ok), I(3));
  RUN_ERR("ValueError", "dtype float64 does not match buffer A of dtype float32", f,
          T(&wrong_dtype), I(3));
  RUN_ERR("ValueError", "ndim 2 does not match buffer A of ndim 1", f, T(&wrong_ndim), I(3));
  RUN_ERR("ValueError", "argument 0 ('A_handle'): shape[0] is 5 but the buffer requires 4", f,
          T(&wrong_shape), I(3));
  RUN_ERR("TypeError", "expected 2 arguments, got 1", f, T(&ok));
  RUN_ERR("TypeError", "buffer A needs a tensor, got int", f, I(1), I(3));
  RUN_ERR("TypeError", "argument 'x' of type int8 cannot be passed", f, T(&ok), T(&ok));
  RUN_ERR("ValueError", "argument 'x' = 300 does not fit int8", f, T(&ok), I(300));
  DLTensor no_shape = dl(a, TVM_TIR_FLOAT32, 1, NULL, NULL);
  RUN_ERR("ValueError", "tensor of ndim 1 has no shape", f, T(&no_shape), I(3));
  DLTensor no_data = dl(NULL, TVM_TIR_FLOAT32, 1, s4, NULL);
  RUN_ERR("ValueError", "tensor data is NULL", f, T(&no_data), I(3));
  RUN_ERR("TypeError", "needs a tensor", f, T(NULL), I(3));
  DLTensor gpu = ok;
  gpu.device.device_type = kDLCUDA;
  RUN_ERR("ValueError", "not in host memory", f, T(&gpu), I(3));
  RELEASE(A, x, f);
}

/* ---- Control flow and statements ----------------------------------------------------------- */
TEST(control_flow_statements) {
  tvm_tir_buffer_obj* B = buf1("B", TVM_TIR_INT32, 4);
  /* while B[0] < 10: B[0] += 1; B[1] += B[0]  -> B[1] = 55 */
  void* w = tvm_tir_while_take(
      tvm_tir_lt_take(tvm_tir_load_take(ref(B), tvm_tir_int(0)), tvm_tir_int(10)),
      tvm_tir_seq_take(
          tvm_tir_store_take(
              ref(B), tvm_tir_add_take(tvm_tir_load_take(ref(B), tvm_tir_int(0)), tvm_tir_int(1)),
              tvm_tir_int(0)),
          tvm_tir_store_take(ref(B),
                             tvm_tir_add_take(tvm_tir_load_take(ref(B), tvm_tir_int(1)),
                                              tvm_tir_load_take(ref(B), tvm_tir_int(0))),
                             tvm_tir_int(1))));
  /* let y = B[1] * 2 in (if y > 100 then B[2] = y else B[2] = -1) */
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_INT32);
  void* let = tvm_tir_let_stmt_take(
      ref(y), tvm_tir_mul_take(tvm_tir_load_take(ref(B), tvm_tir_int(1)), tvm_tir_int(2)),
      tvm_tir_if_take(tvm_tir_gt_take(ref(y), tvm_tir_int(100)),
                      tvm_tir_store_take(ref(B), ref(y), tvm_tir_int(2)),
                      tvm_tir_store_take(ref(B), tvm_tir_int(-1), tvm_tir_int(2))));
  /* attr [tx] thread_extent = 4: B[3] += tx  -> 0 + 1 + 2 + 3 */
  tvm_tir_var_obj* tx = tvm_tir_var("tx", TVM_TIR_INT32);
  void* attr = tvm_tir_attr_take(
      ref(tx), "thread_extent", tvm_tir_int(4),
      tvm_tir_store_take(ref(B),
                         tvm_tir_add_take(tvm_tir_load_take(ref(B), tvm_tir_int(3)), ref(tx)),
                         tvm_tir_int(3)));
  /* An unknown attribute is transparent. */
  void* pragma = tvm_tir_attr_take(NULL, "pragma_whatever", tvm_tir_int(1),
                                   tvm_tir_evaluate_take(tvm_tir_int(0)));
  void* f =
      tvm_tir_func_take("f", tvm_tir_list_take(ref(B)), tvm_tir_seq_take(w, let, attr, pragma));
  int32_t b[4] = {0, 0, 0, 0};
  int64_t s4[] = {4};
  DLTensor tb = dl(b, TVM_TIR_INT32, 1, s4, NULL);
  if (RUN_OK(f, T(&tb))) {
    CHECK_EQ_INT(b[0], 10);
    CHECK_EQ_INT(b[1], 55);
    CHECK_EQ_INT(b[2], 110);
    CHECK_EQ_INT(b[3], 6);
  }
  RELEASE(B, y, tx, f);
}

TEST(assert_stmt) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(x)),
                              tvm_tir_assert_take(tvm_tir_gt_take(ref(x), tvm_tir_int(0)),
                                                  "x must be positive", ret_take(ref(x))));
  RUN_OK(f, I(3));
  RUN_ERR("AssertionError", "x must be positive", f, I(0));
  RELEASE(x, f);
}

/* ---- Memory encodings ---------------------------------------------------------------------- */
TEST(float16_bfloat16_bool_buffers) {
  /* C[0] = A[0] + A[1] in float16 and bfloat16, D[i] = i % 2 == 1 (bool). */
  DLDataType types[] = {TVM_TIR_FLOAT16, TVM_TIR_BFLOAT16};
  uint16_t inputs[2][2] = {{0x3c00, 0x3555}, {0x3f80, 0x3eab}}; /* 1.0 and about 1/3 */
  uint16_t expected[2] = {0x3d55, 0x3fab};
  for (int t = 0; t < 2; ++t) {
    tvm_tir_buffer_obj* A = buf1("A", types[t], 2);
    tvm_tir_buffer_obj* C = buf1("C", types[t], 1);
    void* f = tvm_tir_func_take(
        "f", tvm_tir_list_take(ref(A), ref(C)),
        tvm_tir_store_take(ref(C),
                           tvm_tir_add_take(tvm_tir_load_take(ref(A), tvm_tir_int(0)),
                                            tvm_tir_load_take(ref(A), tvm_tir_int(1))),
                           tvm_tir_int(0)));
    uint16_t c = 0;
    int64_t s2[] = {2}, s1[] = {1};
    DLTensor ta = dl(inputs[t], types[t], 1, s2, NULL), tc = dl(&c, types[t], 1, s1, NULL);
    if (RUN_OK(f, T(&ta), T(&tc))) CHECK_EQ_INT(c, expected[t]);
    RELEASE(A, C, f);
  }
  tvm_tir_buffer_obj* D = buf1("D", TVM_TIR_BOOL, 3);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* g = tvm_tir_func_take(
      "g", tvm_tir_list_take(ref(D)),
      tvm_tir_serial_take(
          ref(i), tvm_tir_int(0), tvm_tir_int(3),
          tvm_tir_store_take(
              ref(D),
              tvm_tir_eq_take(tvm_tir_floormod_take(ref(i), tvm_tir_int(2)), tvm_tir_int(1)),
              ref(i))));
  uint8_t d[3] = {7, 7, 7};
  int64_t s3[] = {3};
  DLTensor td = dl(d, tvm_ffi_dtype(kDLBool, 8, 1), 1, s3, NULL);
  if (RUN_OK(g, T(&td))) {
    CHECK_EQ_INT(d[0], 0);
    CHECK_EQ_INT(d[1], 1);
    CHECK_EQ_INT(d[2], 0);
  }
  RELEASE(D, i, g);
}

TEST(half_precision_round_trip_every_bit_pattern) {
  /* B[i] = A[i] * 1 over all 65536 float16 / bfloat16 bit patterns: every value (subnormals,
   * infinities, signed zeros) comes back bit for bit; NaNs stay NaNs. */
  DLDataType types[] = {TVM_TIR_FLOAT16, TVM_TIR_BFLOAT16};
  uint16_t exp_mask[] = {0x7c00, 0x7f80};
  static uint16_t a[65536], b[65536];
  for (int t = 0; t < 2; ++t) {
    tvm_tir_buffer_obj* A = buf1("A", types[t], 65536);
    tvm_tir_buffer_obj* B = buf1("B", types[t], 65536);
    tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
    void* f = tvm_tir_func_take(
        "f", tvm_tir_list_take(ref(A), ref(B)),
        tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(65536),
                            tvm_tir_store_take(ref(B),
                                               tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i)),
                                                                tvm_tir_const_float(types[t], 1)),
                                               ref(i))));
    for (int k = 0; k < 65536; ++k) a[k] = (uint16_t)k;
    int64_t n[] = {65536};
    DLTensor ta = dl(a, types[t], 1, n, NULL), tb = dl(b, types[t], 1, n, NULL);
    if (RUN_OK(f, T(&ta), T(&tb))) {
      int bad = 0;
      for (int k = 0; k < 65536; ++k) {
        bool nan = (k & exp_mask[t]) == exp_mask[t] && (k & ~exp_mask[t] & 0x7fff) != 0;
        bool b_nan = (b[k] & exp_mask[t]) == exp_mask[t] && (b[k] & ~exp_mask[t] & 0x7fff) != 0;
        bad += nan ? !b_nan : b[k] != k;
      }
      CHECK_EQ_INT(bad, 0);
    }
    RELEASE(A, B, i, f);
  }
}

TEST(vector_logic_into_bool_buffer) {
  /* r = ramp(0, 1, 4); D[0:4] = (r < 2 or r == 3) and not (r == 0)  -> [0, 1, 0, 1] */
  tvm_tir_buffer_obj* D = buf1("D", TVM_TIR_BOOL, 4);
  tvm_tir_expr_obj* r = tvm_tir_ramp_take(tvm_tir_int(0), tvm_tir_int(1), 4);
  void* value = tvm_tir_and_take(
      tvm_tir_or_take(tvm_tir_lt_take(ref(r), tvm_tir_broadcast_take(tvm_tir_int(2), 4)),
                      tvm_tir_eq_take(ref(r), tvm_tir_broadcast_take(tvm_tir_int(3), 4))),
      tvm_tir_not_take(tvm_tir_eq_take(ref(r), tvm_tir_broadcast_take(tvm_tir_int(0), 4))));
  void* f =
      tvm_tir_func_take("f", tvm_tir_list_take(ref(D)), tvm_tir_store_take(ref(D), value, ref(r)));
  uint8_t d[4] = {9, 9, 9, 9};
  int64_t s4[] = {4};
  DLTensor td = dl(d, tvm_ffi_dtype(kDLBool, 8, 1), 1, s4, NULL);
  if (RUN_OK(f, T(&td))) {
    CHECK_EQ_INT(d[0], 0);
    CHECK_EQ_INT(d[1], 1);
    CHECK_EQ_INT(d[2], 0);
    CHECK_EQ_INT(d[3], 1);
  }
  RELEASE(D, r, f);
}

TEST(call_passing_a_buffer_handle) {
  /* fill(B: int32[n_b]) { for i: B[i] = i * i }; main(A: int32[4]) { fill(A.data) } */
  int64_t sizes[] = {4, 8};
  int32_t a[4] = {0};
  int64_t s4[] = {4};
  DLTensor ta = dl(a, TVM_TIR_INT32, 1, s4, NULL);
  for (int c = 0; c < 2; ++c) {
    tvm_tir_buffer_obj* B = buf1("B", TVM_TIR_INT32, sizes[c]);
    tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
    void* fill = tvm_tir_func_take(
        "fill", tvm_tir_list_take(ref(B)),
        tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(sizes[c]),
                            tvm_tir_store_take(ref(B), tvm_tir_mul_take(ref(i), ref(i)), ref(i))));
    tvm_tir_buffer_obj* A = buf1("A", TVM_TIR_INT32, 4);
    tvm_tir_global_var_obj* gv = tvm_tir_global_var_new("fill");
    void* main_fn = tvm_tir_func_take("main", tvm_tir_list_take(ref(A)),
                                      tvm_tir_evaluate_take(tvm_tir_call_global_takev(
                                          TVM_TIR_VOID, ref(gv), 1, (void*[]){ref(A->data)})));
    void* mod = tvm_tir_module_take(ref(fill), ref(main_fn));
    TVMFFIAny args[] = {T(&ta)}, out;
    if (EXPECT_OK(mod) && c == 0) {
      CHECK_OK(tvm_tir_interp_run(mod, "main", args, 1, &out));
      for (int k = 0; k < 4; ++k) CHECK_EQ_INT(a[k], k * k);
    } else if (mod) {
      /* The callee's buffer is larger than the caller's memory. */
      CHECK(tvm_tir_interp_run(mod, "main", args, 1, &out) != 0);
      CHECK_RAISED("IndexError",
                   "buffer B: index [4] addresses memory outside every live allocation");
    }
    RELEASE(B, i, fill, A, gv, main_fn, mod);
  }
}

int main(void) {
  RUN(indexing_spec_example);
  RUN(out_of_bounds_access);
  RUN(vector_load_store_lane_splitting);
  RUN(allocate_in_loop);
  RUN(allocation_memory_limit);
  RUN(block_alloc_buffers_and_realize);
  RUN(match_buffer_with_offsets);
  RUN(block_predicate_and_iter_values);
  RUN(matmul_reduction_init_random);
  RUN(sum_reduction_init_at_domain_min);
  RUN(symbolic_shape_binding);
  RUN(strides_and_elem_offset);
  RUN(elementwise_add_with_broadcasting);
  RUN(bad_arguments);
  RUN(control_flow_statements);
  RUN(assert_stmt);
  RUN(float16_bfloat16_bool_buffers);
  RUN(half_precision_round_trip_every_bit_pattern);
  RUN(vector_logic_into_bool_buffer);
  RUN(call_passing_a_buffer_handle);
  RUN(break_and_continue);
  tir_release_temps();
  return test_summary();
}

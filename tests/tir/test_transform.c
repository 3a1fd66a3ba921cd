/*
 * test_transform.c: the block-level lowering passes (lower_init, convert_blocks,
 * flatten_buffers), the opt-in bounds_check (every access guarded; its IndexError is tested in
 * tests/codegen, since the interpreter checks accesses itself) and the whole pipeline
 * (tvm_tir_lower). Every program runs in the interpreter
 * before and after on the same random inputs and must give the same bytes; the result must be
 * well formed and have the pass's structural property; unsupported input raises a clear error.
 */
#include "test_transform.h"

static tvm_tir_buffer_obj* buf1(const char* name, DLDataType t, int64_t n) {
  return tvm_tir_buffer_decl(name, t, n);
}

/* lower_init then convert_blocks (a new reference). */
static void* to_plain(const void* f) {
  void* a = tvm_tir_transform_lower_init(f);
  void* b = a ? tvm_tir_transform_convert_blocks(a) : NULL;
  tvm_ffi_release(a);
  return b;
}


/* ---- lower_init ---------------------------------------------------------------------------- */
TEST(lower_init_matmul) {
  tvm_tir_prim_func_obj* f = tvm_tir_testing_make_matmul("", 5, 6, 7);
  void* g = PASS_OK(tvm_tir_transform_lower_init, f);
  if (g) {
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_IfThenElse), 1);
    CHECK_EQ_INT(count_block_inits(g), 0);
    CHECK_EQ_INT(count_block_inits(f), 1);
    SAME_RESULTS(f, g);
    /* A second run changes nothing: the same object comes back. */
    void* h = tvm_tir_transform_lower_init(g);
    CHECK(h == g);
    tvm_ffi_release(h);
  }
  RELEASE(f, g);
}

TEST(lower_init_reduction_domain_min) {
  /* for r in 2..6: block(vr = r, reduce over [2, 6)) { init S[0] = 100; S[0] += A[vr] }. */
  tvm_tir_buffer_obj* A = buf1("A", TVM_TIR_INT32, 6);
  tvm_tir_buffer_obj* S = buf1("S", TVM_TIR_INT32, 1);
  tvm_tir_var_obj* r = tvm_tir_var("r", TVM_TIR_INT32);
  tvm_tir_var_obj* vr = tvm_tir_var("vr", TVM_TIR_INT32);
  void* iters = tvm_tir_list_take(
      tvm_tir_iter_var_take(ref(vr), tvm_tir_int(2), tvm_tir_int(4), TVM_TIR_ITER_COMM_REDUCE));
  void* body = tvm_tir_store_take(ref(S),
                                  tvm_tir_add_take(tvm_tir_load_take(ref(S), tvm_tir_int(0)),
                                                   tvm_tir_load_take(ref(A), ref(vr))),
                                  tvm_tir_int(0));
  void* init = tvm_tir_store_take(ref(S), tvm_tir_int(100), tvm_tir_int(0));
  void* block = tvm_tir_block_full_take("sum", iters, tvm_tir_list_take(ref(r)), NULL, NULL, init,
                                        NULL, body);
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(A), ref(S)),
                              tvm_tir_serial_take(ref(r), tvm_tir_int(2), tvm_tir_int(4), block));
  void* g = PASS_OK(tvm_tir_transform_lower_init, f);
  SAME_RESULTS(f, g);
  void* h = g ? PASS_OK(tvm_tir_transform_convert_blocks, g) : NULL;
  SAME_RESULTS(f, h);
  RELEASE(A, S, r, vr, f, g, h);
}

/* ---- convert_blocks ------------------------------------------------------------------------ */
TEST(convert_blocks_matmul) {
  tvm_tir_prim_func_obj* f = tvm_tir_testing_make_matmul("", 4, 3, 5);
  void* g = to_plain(f);
  if (EXPECT_OK(g)) {
    CHECK_OK(tvm_tir_verify_well_formed(g));
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_SBlock), 0);
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_SBlockRealize), 0);
    SAME_RESULTS(f, g, .seed = 7);
    SAME_RESULTS(f, g, .seed = 8);
  }
  RELEASE(f, g);
}

TEST(convert_blocks_init_must_be_lowered) {
  tvm_tir_prim_func_obj* f = tvm_tir_testing_make_matmul("", 2, 2, 2);
  EXPECT_ERROR("ValueError", tvm_tir_transform_convert_blocks(f), "convert_blocks",
               "block 'update' still has an init: run lower_init first",
               "at <root>.body.body.body.body.block");
  RELEASE(f);
}

TEST(convert_blocks_match_buffer_with_offsets) {
  /* The aliases S, S2, S3 of A from tvm_tir_testing_make_aliases (tir_testing.h); the body
   * stores S3's bound elem_offset and first stride. */
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
                                 tvm_tir_add_take(tvm_tir_load_take(ref(S2), ref(j)),
                                                  tvm_tir_mul_take(ref(i), tvm_tir_int(10))),
                                 ref(i), ref(j)))),
      tvm_tir_store_take(ref(S2), tvm_tir_load_take(ref(S), tvm_tir_int(1), tvm_tir_int(2)),
                         tvm_tir_int(2)),
      tvm_tir_store_take(ref(S3), ref(off), tvm_tir_int(0), tvm_tir_int(0)),
      tvm_tir_store_take(ref(S3), ref(s0), tvm_tir_int(0), tvm_tir_int(1)));
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(A)), tvm_tir_testing_block_with_matches(mb, body));
  void* g = PASS_OK(tvm_tir_transform_convert_blocks, f);
  if (g) {
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_SBlock), 0);
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_DeclBuffer), 3);
    SAME_RESULTS(f, g);
  }
  void* h = g ? PASS_OK(tvm_tir_transform_flatten_buffers, g) : NULL;
  if (h) {
    CHECK(all_accesses_flat(h));
    SAME_RESULTS(f, h);
  }
  RELEASE(i, j, f, g, h);
  tvm_tir_testing_aliases_release(&al);
}

TEST(convert_blocks_nested_match_of_a_match) {
  /* Outer block: M (4,) matches A[2, 0:4] of A (3, 4); inner block in a loop over k: N (2,)
   * matches M[k:k+2] (a region of the outer alias) and stores N[1] = N[0] * 3 + k. */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 3, 4);
  tvm_tir_buffer_obj* M = buf1("M", TVM_TIR_INT32, 4);
  tvm_tir_buffer_obj* N = buf1("N", TVM_TIR_INT32, 2);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  void* inner_mb = tvm_tir_list_take(tvm_tir_match_buffer_region_new(
      N, tir_temp(tvm_tir_region_take(ref(M), tvm_tir_range_take(ref(k), tvm_tir_int(2))))));
  void* inner = tvm_tir_testing_block_with_matches(
      inner_mb,
      tvm_tir_store_take(
          ref(N),
          tvm_tir_add_take(
              tvm_tir_mul_take(tvm_tir_load_take(ref(N), tvm_tir_int(0)), tvm_tir_int(3)), ref(k)),
          tvm_tir_int(1)));
  void* outer_mb = tvm_tir_list_take(tvm_tir_match_buffer_region_new(
      M, tir_temp(tvm_tir_region_take(ref(A), tvm_tir_range_take(tvm_tir_int(2), tvm_tir_int(1)),
                                      tvm_tir_range_take(tvm_tir_int(0), tvm_tir_int(4))))));
  void* outer = tvm_tir_testing_block_with_matches(
      outer_mb, tvm_tir_serial_take(ref(k), tvm_tir_int(0), tvm_tir_int(3), inner));
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(A)), outer);
  void* g = tvm_tir_lower(f, NULL);
  if (EXPECT_OK(g)) {
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_SBlock), 0);
    CHECK(all_accesses_flat(g));
    SAME_RESULTS(f, g);
  }
  RELEASE(A, M, N, k, f, g);
}

TEST(convert_blocks_alloc_buffers_and_predicate) {
  /* for i in 0..4: block(vi = i * 2) where i < 3 { alloc T (2, 2); T[0, 1] = A[vi]; ...;
   * B[vi / 2] = T[0, 1] + T[1, 1] (T[1, 1] is 0: fresh allocations are zeroed) } */
  tvm_tir_buffer_obj* A = buf1("A", TVM_TIR_INT32, 8);
  tvm_tir_buffer_obj* B = buf1("B", TVM_TIR_INT32, 4);
  tvm_tir_buffer_obj* Tb = tvm_tir_buffer_decl("T", TVM_TIR_INT32, 2, 2);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* vi = tvm_tir_var("vi", TVM_TIR_INT32);
  tvm_tir_sblock_fields fields = {0};
  fields.name_hint = "b";
  fields.iter_vars = tvm_tir_list_take(
      tvm_tir_iter_var_take(ref(vi), tvm_tir_int(0), tvm_tir_int(8), TVM_TIR_ITER_DATA_PAR));
  fields.alloc_buffers = tvm_tir_list_take(ref(Tb));
  fields.body = tvm_tir_seq_take(
      tvm_tir_store_take(ref(Tb), tvm_tir_load_take(ref(A), ref(vi)), tvm_tir_int(0),
                         tvm_tir_int(1)),
      tvm_tir_store_take(
          ref(B),
          tvm_tir_add_take(tvm_tir_load_take(ref(Tb), tvm_tir_int(0), tvm_tir_int(1)),
                           tvm_tir_load_take(ref(Tb), tvm_tir_int(1), tvm_tir_int(1))),
          tvm_tir_floordiv_take(ref(vi), tvm_tir_int(2))));
  tvm_tir_sblock_obj* block =
      fields.iter_vars && fields.body && fields.alloc_buffers ? tvm_tir_sblock_new(&fields) : NULL;
  void* values = tvm_tir_list_take(tvm_tir_mul_take(ref(i), tvm_tir_int(2)));
  tvm_tir_expr_obj* pred = tvm_tir_lt_take(ref(i), tvm_tir_int(3));
  tvm_tir_stmt_obj* realize =
      block && values && pred ? tvm_tir_sblock_realize_new(values, pred, block) : NULL;
  RELEASE(fields.iter_vars, fields.body, fields.alloc_buffers, block, values, pred);
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(A), ref(B)),
                              tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(4), realize));
  void* g = PASS_OK(tvm_tir_transform_convert_blocks, f);
  if (g) {
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_Allocate), 1);
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_IfThenElse), 1);
    SAME_RESULTS(f, g);
  }
  void* h = g ? PASS_OK(tvm_tir_transform_flatten_buffers, g) : NULL;
  if (h) {
    CHECK(all_accesses_flat(h));
    SAME_RESULTS(f, h);
    /* The Allocate has one extent, 4. */
    int64_t n = 0;
    void* alloc = NULL;
    tvm_tir_stmt_obj* s = ((tvm_tir_prim_func_obj*)h)->body;
    while (s && !alloc) {
      if (tvm_tir_kind_of(s) == TVM_TIR_KIND_Allocate)
        alloc = s;
      else if (tvm_tir_kind_of(s) == TVM_TIR_KIND_DeclBuffer)
        s = ((tvm_tir_decl_buffer_obj*)s)->body;
      else if (tvm_tir_kind_of(s) == TVM_TIR_KIND_For)
        s = ((tvm_tir_for_obj*)s)->body;
      else if (tvm_tir_kind_of(s) == TVM_TIR_KIND_IfThenElse)
        s = ((tvm_tir_if_then_else_obj*)s)->then_case;
      else
        s = NULL;
    }
    CHECK(alloc != NULL);
    if (alloc) {
      CHECK_EQ_INT(tvm_tir_array_size(((tvm_tir_allocate_obj*)alloc)->extents), 1);
      CHECK(tvm_tir_as_const_int(tvm_tir_array_at(((tvm_tir_allocate_obj*)alloc)->extents, 0), &n));
      CHECK_EQ_INT(n, 4);
    }
  }
  RELEASE(A, B, Tb, i, vi, f, g, h);
}

TEST(convert_blocks_data_dependent_iter_value) {
  /* for i in 0..4: block(vi = Idx[i]) { B[vi] = B[vi] + i }: the value reads memory, so it is
   * bound by a LetStmt rather than substituted. */
  tvm_tir_buffer_obj* Idx = tvm_tir_buffer_decl("Idx", TVM_TIR_INT32, 4);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_INT32, 200);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* vi = tvm_tir_var("vi", TVM_TIR_INT32);
  void* iters = tvm_tir_list_take(
      tvm_tir_iter_var_take(ref(vi), tvm_tir_int(0), tvm_tir_int(200), TVM_TIR_ITER_OPAQUE));
  /* B[vi + 100] so that the random indices in [-99, 99] stay in bounds. */
  void* body = tvm_tir_store_take(
      ref(B),
      tvm_tir_add_take(tvm_tir_load_take(ref(B), tvm_tir_add_take(ref(vi), tvm_tir_int(100))),
                       ref(i)),
      tvm_tir_add_take(ref(vi), tvm_tir_int(100)));
  void* block = tvm_tir_block_take(
      "b", iters, tvm_tir_list_take(tvm_tir_load_take(ref(Idx), ref(i))), NULL, NULL, body);
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(Idx), ref(B)),
                              tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(4), block));
  void* g = PASS_OK(tvm_tir_transform_convert_blocks, f);
  if (g) {
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_LetStmt), 1);
    SAME_RESULTS(f, g);
  }
  void* h = tvm_tir_lower(f, NULL);
  SAME_RESULTS(f, h);
  RELEASE(Idx, B, i, vi, f, g, h);
}

/* ---- flatten_buffers ----------------------------------------------------------------------- */
TEST(flatten_strides_and_elem_offset) {
  /* A (3, 2) with symbolic strides and elem_offset (bound from the tensor) read into a compact
   * B (3, 2); the tensor for A is the transposed view (strides (1, 3)) of a 2x3 matrix. */
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
  void* g = PASS_OK(tvm_tir_transform_flatten_buffers, f);
  if (g) {
    CHECK(all_accesses_flat(g));
    /* buffer_map keeps the original 2-D buffers; the body declares their flat views. */
    TVMFFIAny p0 = tvm_ffi_any_obj(tvm_tir_array_at(((tvm_tir_prim_func_obj*)g)->params, 0));
    CHECK(tvm_ffi_map_get(((tvm_tir_prim_func_obj*)g)->buffer_map, &p0)->v_obj == (void*)A);
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_DeclBuffer), 2);
    SAME_RESULTS(f, g);
    SAME_RESULTS(f, g, .strides = {(int64_t[]){1, 3}}, .seed = 99);
  }
  RELEASE(s0, s1, off, A, B, i, j, f, g);
}

TEST(flatten_axis_separators_and_scalar_buffers) {
  /* A (2, 3, 4) with axis_separators [1] -> a 2-D flat buffer (2, 12); a scalar buffer Z (). */
  tvm_tir_var_obj* data = tvm_tir_ptr_var("A", TVM_TIR_INT32, NULL);
  void* shape = tvm_tir_list_take(tvm_tir_int(2), tvm_tir_int(3), tvm_tir_int(4));
  void* seps = tvm_tir_list_take(tvm_tir_int(1));
  tvm_tir_buffer_obj* A = tvm_tir_buffer_new(&(tvm_tir_buffer_fields){
      .data = data, .dtype = TVM_TIR_INT32, .shape = shape, .axis_separators = seps, .name = "A"});
  RELEASE(data, shape, seps);
  tvm_tir_buffer_obj* Z = tvm_tir_buffer_decl_takev("Z", TVM_TIR_INT32, 0, NULL, NULL);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  /* A[i, j, 3 - j] += Z[()] * i */
  void* store = tvm_tir_store_take(
      ref(A),
      tvm_tir_add_take(
          tvm_tir_load_take(ref(A), ref(i), ref(j), tvm_tir_sub_take(tvm_tir_int(3), ref(j))),
          tvm_tir_mul_take(tvm_tir_load_takev(ref(Z), 0, NULL), ref(i))),
      ref(i), ref(j), tvm_tir_sub_take(tvm_tir_int(3), ref(j)));
  void* f = tvm_tir_func_take(
      "f", tvm_tir_list_take(ref(A), ref(Z)),
      tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(2),
                          tvm_tir_serial_take(ref(j), tvm_tir_int(0), tvm_tir_int(3), store)));
  void* g = PASS_OK(tvm_tir_transform_flatten_buffers, f);
  if (g) {
    SAME_RESULTS(f, g);
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_DeclBuffer), 2);
  }
  RELEASE(A, Z, i, j, f, g);
}

TEST(flatten_broadcast_buffer_and_int64_shape) {
  /* C[i, j] = A[i, j] + Bb[i, j]: Bb an auto-broadcast buffer (symbolic strides) given a (4, 3)
   * view of one row (strides (0, 1)); A has an int64 shape indexed by int32 loop vars. */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl_takev(
      "A", TVM_TIR_FLOAT32, 2, (void*[]){tvm_tir_i64(4), tvm_tir_i64(3)}, NULL);
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
  void* g = tvm_tir_lower(f, NULL);
  if (EXPECT_OK(g)) {
    CHECK(all_accesses_flat(g));
    SAME_RESULTS(f, g, .strides = {NULL, (int64_t[]){0, 1}});
    SAME_RESULTS(f, g, .seed = 3);
  }
  RELEASE(A, C, Bb, i, j, f, g);
}

TEST(flatten_rejects_blocks) {
  tvm_tir_prim_func_obj* f = tvm_tir_testing_make_matmul("", 2, 2, 2);
  EXPECT_ERROR("ValueError", tvm_tir_transform_flatten_buffers(f), "flatten_buffers",
               "SBlockRealize is not supported: run convert_blocks first",
               "at <root>.body.body.body.body");
  EXPECT_ERROR("TypeError", tvm_tir_transform_flatten_buffers(f->body), "flatten_buffers",
               "expected a tir.PrimFunc or an ir.IRModule");
  /* axis_separators only on compact buffers. */
  tvm_tir_var_obj* d = tvm_tir_ptr_var("S", TVM_TIR_INT32, NULL);
  void* shape = tvm_tir_list_take(tvm_tir_int(2), tvm_tir_int(2));
  void* strides = tvm_tir_list_take(tvm_tir_int(4), tvm_tir_int(1));
  void* seps = tvm_tir_list_take(tvm_tir_int(1));
  tvm_tir_buffer_obj* S = tvm_tir_buffer_new(&(tvm_tir_buffer_fields){.data = d,
                                                                      .dtype = TVM_TIR_INT32,
                                                                      .shape = shape,
                                                                      .strides = strides,
                                                                      .axis_separators = seps,
                                                                      .name = "S"});
  RELEASE(d, shape, strides, seps);
  void* g =
      tvm_tir_func_take("g", tvm_tir_list_take(ref(S)),
                        tvm_tir_store_take(ref(S), tvm_tir_int(1), tvm_tir_int(0), tvm_tir_int(1)));
  EXPECT_ERROR("NotImplementedError", g ? tvm_tir_transform_flatten_buffers(g) : NULL,
               "flatten_buffers: axis_separators on a buffer with strides", "T.Buffer(S");
  RELEASE(S, g);
  /* In a module, the error names the function. */
  tvm_tir_ir_module_obj* mod = tvm_tir_module_take(ref(f));
  EXPECT_ERROR("ValueError", mod ? tvm_tir_transform_flatten_buffers(mod) : NULL,
               "in function `matmul`", "flatten_buffers: SBlockRealize is not supported");
  RELEASE(f, mod);
}

/* ---- The pipeline -------------------------------------------------------------------------- */
TEST(lower_matmul_module) {
  tvm_tir_prim_func_obj* mm = tvm_tir_testing_make_matmul("", 6, 5, 4);
  tvm_tir_prim_func_obj* large = tvm_tir_testing_make_large_func(12);
  tvm_tir_ir_module_obj* mod = tvm_tir_module_take(ref(mm), ref(large));
  tvm_tir_lower_options opts = {.check = true};
  void* lowered = EXPECT_OK(mod) ? tvm_tir_lower(mod, &opts) : NULL;
  if (EXPECT_OK(lowered)) {
    CHECK(tvm_tir_kind_of(lowered) == TVM_TIR_KIND_IRModule);
    void* f2 = tvm_tir_ir_module_lookup(lowered, "matmul");
    void* g2 = tvm_tir_ir_module_lookup(lowered, "large_func");
    CHECK(all_accesses_flat(f2));
    CHECK_EQ_INT(count_kind(f2, TVM_TIR_KIND_SBlockRealize), 0);
    SAME_RESULTS(mm, f2);
    SAME_RESULTS(large, g2);
    RELEASE(f2, g2);
  }
  /* A module the passes do not change comes back as the same object. */
  void* again = lowered ? tvm_tir_transform_convert_blocks(lowered) : NULL;
  CHECK(again == lowered);
  RELEASE(mm, large, mod, lowered, again);
}

TEST(lower_symbolic_shapes) {
  /* B[i] = A[i] * 2 + n over A, B of shape (n,), with n a parameter. */
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_buffer_obj* A =
      tvm_tir_buffer_decl_takev("A", TVM_TIR_FLOAT32, 1, (void*[]){ref(n)}, NULL);
  tvm_tir_buffer_obj* B =
      tvm_tir_buffer_decl_takev("B", TVM_TIR_FLOAT32, 1, (void*[]){ref(n)}, NULL);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* f = tvm_tir_func_take(
      "f", tvm_tir_list_take(ref(A), ref(B), ref(n)),
      tvm_tir_serial_take(
          ref(i), tvm_tir_int(0), ref(n),
          tvm_tir_store_take(
              ref(B),
              tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i)), tvm_tir_f32(2)),
                               tvm_tir_cast_take(TVM_TIR_FLOAT32, ref(n))),
              ref(i))));
  void* g = tvm_tir_lower(f, NULL);
  if (EXPECT_OK(g)) {
    CHECK(all_accesses_flat(g));
    SAME_RESULTS(f, g, .sym = 7);
    SAME_RESULTS(f, g, .sym = 1);
  }
  RELEASE(n, A, B, i, f, g);
}

/* ---- bounds_check (opt-in) ---------------------------------------------------------------- */
static int count_checks_pre(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_call_obj* c = node;
  if (tvm_tir_kind_of(c->op) == TVM_TIR_KIND_Op &&
      strcmp(tvm_tir_op_name((const tvm_tir_op_obj*)c->op), TVM_TIR_BOUNDS_CHECK_OP) == 0) {
    ++*(int64_t*)v->ctx;
    /* "<buffer>", indices..., shape...: an odd count, the name first */
    CHECK(tvm_tir_array_size(c->args) % 2 == 1);
    CHECK(tvm_tir_kind_of(tvm_tir_array_at(c->args, 0)) == TVM_TIR_KIND_StringImm);
  }
  return TVM_TIR_VISIT_CONTINUE;
}

static int64_t count_checks(const void* f) {
  int64_t n = 0;
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_Call] = count_checks_pre;
  v.ctx = &n;
  CHECK_OK(tvm_tir_visit(&v, f));
  tvm_tir_visitor_free(&v);
  return n;
}

TEST(bounds_check_guards_every_access) {
  tvm_tir_prim_func_obj* mm = tvm_tir_testing_make_matmul("", 6, 5, 4);
  void* plain = to_plain(mm);
  void* checked = plain ? tvm_tir_transform_bounds_check(plain) : NULL;
  if (EXPECT_OK(checked)) {
    int64_t accesses =
        count_kind(plain, TVM_TIR_KIND_BufferLoad) + count_kind(plain, TVM_TIR_KIND_BufferStore);
    CHECK(accesses > 0);
    CHECK_EQ_INT(count_checks(checked), accesses);
    CHECK_EQ_INT(count_checks(plain), 0);
    CHECK_OK(tvm_tir_verify_well_formed(checked));
  }
  /* In the pipeline (well-formedness checked after every pass), and only when asked for. */
  tvm_tir_lower_options o = {.check = true, .bounds_check = true};
  void* lowered = tvm_tir_lower(mm, &o);
  if (EXPECT_OK(lowered)) {
    CHECK(all_accesses_flat(lowered));
    CHECK(count_checks(lowered) > 0);
  }
  void* unchecked = tvm_tir_lower(mm, &(tvm_tir_lower_options){.check = true});
  if (EXPECT_OK(unchecked)) CHECK_EQ_INT(count_checks(unchecked), 0);
  RELEASE(mm, plain, checked, lowered, unchecked);
}

/* An error the caller left raised is set aside by the passes and the pipeline: each gives the
 * result it gives without one, and the stale error is still raised after it (lower_init,
 * loop_partition, simplify, bounds_check and so tvm_tir_lower read it as their own failure
 * before). */
TEST(stale_error_is_set_aside) {
  tvm_tir_prim_func_obj* mm = tvm_tir_testing_make_matmul("", 6, 5, 4);
  void* (*passes[])(const void*) = {
      tvm_tir_transform_lower_init, tvm_tir_transform_convert_blocks,
      tvm_tir_transform_bounds_check, tvm_tir_transform_flatten_buffers,
      tvm_tir_transform_loop_partition, tvm_tir_transform_simplify,
  };
  void* cur = ref(mm);
  for (size_t i = 0; cur && i < sizeof(passes) / sizeof(passes[0]); ++i) {
    void* clean = passes[i](cur);
    tvm_ffi_raise("StaleError", "left by an earlier call");
    void* again = passes[i](cur);
    CHECK(clean != NULL && again != NULL);
    CHECK_RAISED("StaleError", "left by an earlier call");
    if (clean && again) {
      TVMFFIAny a = tvm_ffi_any_obj(clean), b = tvm_ffi_any_obj(again);
      CHECK_EQ_INT(tvm_ffi_structural_equal(&a, &b, true, NULL, NULL), 1);
    }
    RELEASE(again, cur);
    cur = clean;
  }
  tvm_ffi_raise("StaleError", "left by an earlier call");
  void* lowered = tvm_tir_lower(mm, &(tvm_tir_lower_options){.check = true});
  CHECK(lowered != NULL);
  CHECK_RAISED("StaleError", "left by an earlier call");
  if (lowered) SAME_RESULTS(mm, lowered);
  /* A failing pass raises its own error over the stale one. */
  tvm_ffi_raise("StaleError", "left by an earlier call");
  CHECK(tvm_tir_transform_convert_blocks(mm) == NULL);
  CHECK_RAISED("ValueError", "");
  RELEASE(mm, cur, lowered);
}

TEST(lower_reports_the_failing_pass) {
  /* A malformed input (a loop variable used outside its loop) is rejected before any pass. */
  tvm_tir_buffer_obj* B = buf1("B", TVM_TIR_INT32, 4);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* f = tvm_tir_func_take(
      "f", tvm_tir_list_take(ref(B)),
      tvm_tir_seq_take(tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(4),
                                           tvm_tir_store_take(ref(B), ref(i), ref(i))),
                       tvm_tir_store_take(ref(B), ref(i), tvm_tir_int(0))));
  EXPECT_ERROR("ValueError", tvm_tir_lower(f, &(tvm_tir_lower_options){.check = true}),
               "lower: input", "well-formedness");
  /* An alloc_buffer with strides and an elem_offset becomes one Allocate of the elements its
   * layout reaches (elem_offset + 1 + (2 - 1) * 3 = 6) and computes what the block did. */
  tvm_tir_var_obj* d = tvm_tir_ptr_var("T", TVM_TIR_INT32, NULL);
  void* shape = tvm_tir_list_take(tvm_tir_int(2));
  void* strides = tvm_tir_list_take(tvm_tir_int(3));
  tvm_tir_buffer_obj* Tb = tvm_tir_buffer_new(&(tvm_tir_buffer_fields){
      .data = d, .dtype = TVM_TIR_INT32, .shape = shape, .strides = strides,
      .elem_offset = tvm_tir_int(2), .name = "T"});
  RELEASE(d, shape, strides);
  void* block = tvm_tir_block_full_take(
      "blk", NULL, NULL, NULL, NULL, NULL, tvm_tir_list_take(ref(Tb)),
      tvm_tir_seq_take(tvm_tir_store_take(ref(Tb), tvm_tir_int(7), tvm_tir_int(1)),
                       tvm_tir_store_take(ref(B), tvm_tir_load_take(ref(Tb), tvm_tir_int(1)),
                                          tvm_tir_int(2))));
  void* g = tvm_tir_func_take("g", tvm_tir_list_take(ref(B)), block);
  void* h = PASS_OK(tvm_tir_transform_convert_blocks, g);
  if (h) {
    const tvm_tir_allocate_obj* a = (const void*)((const tvm_tir_prim_func_obj*)h)->body;
    CHECK(tvm_tir_kind_of(a) == TVM_TIR_KIND_Allocate);
    if (tvm_tir_kind_of(a) == TVM_TIR_KIND_Allocate) {
      void* ext = tvm_tir_simplify_expr(tvm_tir_array_at(a->extents, 0), NULL);
      int64_t v = 0;
      CHECK_EQ_INT(tvm_tir_array_size(a->extents), 1);
      CHECK(ext && tvm_tir_as_const_int(ext, &v) && v == 6);
      tvm_ffi_release(ext);
    }
    SAME_RESULTS(g, h);
  }
  tvm_ffi_release(h);
  RELEASE(B, i, f, Tb, g);
}

int main(void) {
  RUN(lower_init_matmul);
  RUN(lower_init_reduction_domain_min);
  RUN(convert_blocks_matmul);
  RUN(convert_blocks_init_must_be_lowered);
  RUN(convert_blocks_match_buffer_with_offsets);
  RUN(convert_blocks_nested_match_of_a_match);
  RUN(convert_blocks_alloc_buffers_and_predicate);
  RUN(convert_blocks_data_dependent_iter_value);
  RUN(flatten_strides_and_elem_offset);
  RUN(flatten_axis_separators_and_scalar_buffers);
  RUN(flatten_broadcast_buffer_and_int64_shape);
  RUN(flatten_rejects_blocks);
  RUN(lower_matmul_module);
  RUN(lower_symbolic_shapes);
  RUN(lower_reports_the_failing_pass);
  RUN(bounds_check_guards_every_access);
  RUN(stale_error_is_set_aside);
  tir_release_temps();
  return test_summary();
}

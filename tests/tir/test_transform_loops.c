/*
 * test_transform_loops.c: the loop-level lowering passes (simplify, unroll_loops,
 * vectorize_loops), alone and through tvm_tir_lower. Every program runs in the interpreter
 * before and after on the same random inputs and must give the same bytes.
 */
#include "test_transform.h"

/* ---- Helpers ------------------------------------------------------------------------------- */
/* f with the loops over the Var named `name` (every loop when NULL) rebuilt with `kind`. */
typedef struct {
  tvm_tir_mutator m;
  const char* name;
  tvm_tir_for_kind kind;
} kind_setter;

static void* set_kind_post(tvm_tir_mutator* m, const void* node) {
  kind_setter* ks = (kind_setter*)m;
  const tvm_tir_for_obj* f = node;
  if (ks->name && strcmp(tvm_tir_var_name(f->loop_var), ks->name) != 0) {
    return tvm_tir_ref((void*)f);
  }
  return tvm_tir_for_new(f->loop_var, f->min, f->extent, ks->kind, f->body, NULL, f->annotations);
}

static void* with_loop_kind(void* f, const char* name, tvm_tir_for_kind kind) {
  if (!f) return NULL;
  kind_setter ks = {{{0}}, name, kind};
  ks.m.post[TVM_TIR_KIND_For] = set_kind_post;
  void* r = tvm_tir_mutate(&ks.m, f);
  tvm_ffi_release(f);
  return r;
}

/* Run passes in order on f (borrowed), each result checked well formed. */
static void* run_passes(const void* f, int n, void* (*const* passes)(const void*)) {
  void* cur = tvm_tir_ref((void*)f);
  for (int k = 0; cur && k < n; ++k) {
    void* next = PASS_OK(passes[k], cur);
    tvm_ffi_release(cur);
    cur = next;
  }
  return cur;
}
#define RUN_PASSES(f, ...)                                                                \
  run_passes((f), (int)(sizeof((void* (*[])(const void*)){__VA_ARGS__}) / sizeof(void*)), \
             (void* (*[])(const void*)){__VA_ARGS__})

/* C[i, j] = A[i, j] * 2 + Bias[j] over (4, 8) float32 buffers, j a loop of kind j_kind. */
static void* make_bias_add(tvm_tir_for_kind j_kind) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 4, 8);
  tvm_tir_buffer_obj* Bias = tvm_tir_buffer_decl("Bias", TVM_TIR_FLOAT32, 8);
  tvm_tir_buffer_obj* C = tvm_tir_buffer_decl("C", TVM_TIR_FLOAT32, 4, 8);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  void* store = tvm_tir_store_take(
      ref(C),
      tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i), ref(j)), tvm_tir_f32(2)),
                       tvm_tir_load_take(ref(Bias), ref(j))),
      ref(i), ref(j));
  void* loops =
      tvm_tir_serial_take(i, tvm_tir_int(0), tvm_tir_int(4),
                          tvm_tir_for_take(j, tvm_tir_int(0), tvm_tir_int(8), j_kind, store));
  return tvm_tir_func_take("bias_add", tvm_tir_list_take(A, Bias, C), loops);
}

/* ---- simplify ------------------------------------------------------------------------------ */
TEST(simplify_indices_and_conditions) {
  /* for i in 0..8: if i < 100: B[i * 1 + 0] = A[(i + 4) - 4] + 1 -> B[i] = A[i] + 1. */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 8);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_INT32, 8);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* store = tvm_tir_store_take(
      ref(B),
      tvm_tir_add_take(
          tvm_tir_load_take(
              ref(A), tvm_tir_sub_take(tvm_tir_add_take(ref(i), tvm_tir_int(4)), tvm_tir_int(4))),
          tvm_tir_int(1)),
      tvm_tir_add_take(tvm_tir_mul_take(ref(i), tvm_tir_int(1)), tvm_tir_int(0)));
  void* f = tvm_tir_func_take(
      "f", tvm_tir_list_take(ref(A), ref(B)),
      tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(8),
                          tvm_tir_if_take(tvm_tir_lt_take(ref(i), tvm_tir_int(100)), store, NULL)));
  void* g = PASS_OK(tvm_tir_transform_simplify, f);
  if (g) {
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_IfThenElse), 0);
    const tvm_tir_for_obj* loop = (const void*)((tvm_tir_prim_func_obj*)g)->body;
    const tvm_tir_buffer_store_obj* s = (const void*)loop->body;
    CHECK(tvm_tir_kind_of(s) == TVM_TIR_KIND_BufferStore);
    if (tvm_tir_kind_of(s) == TVM_TIR_KIND_BufferStore) {
      CHECK(tvm_tir_array_at(s->indices, 0) == (void*)i);
      const tvm_tir_buffer_load_obj* l = (const void*)((tvm_tir_binary_obj*)s->value)->a;
      CHECK(tvm_tir_array_at(l->indices, 0) == (void*)i);
    }
    SAME_RESULTS(f, g);
    /* Simplifying again changes nothing. */
    void* h = tvm_tir_transform_simplify(g);
    CHECK(h == g);
    tvm_ffi_release(h);
  }
  RELEASE(A, B, i, f, g);
}

TEST(simplify_flattened_large_func) {
  tvm_tir_prim_func_obj* f = tvm_tir_testing_make_large_func(16);
  void* g = RUN_PASSES(f, tvm_tir_transform_flatten_buffers, tvm_tir_transform_simplify);
  SAME_RESULTS(f, g);
  RELEASE(f, g);
}

/* ---- unroll_loops -------------------------------------------------------------------------- */
TEST(unroll_renames_inner_bindings) {
  /* for i unrolled 0..4: let t = A[i] * 2 in for j in 0..2: B[i * 2 + j] = t + j. */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 4);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_INT32, 8);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* t = tvm_tir_var("t", TVM_TIR_INT32);
  void* inner = tvm_tir_serial_take(
      ref(j), tvm_tir_int(0), tvm_tir_int(2),
      tvm_tir_store_take(ref(B), tvm_tir_add_take(ref(t), ref(j)),
                         tvm_tir_add_take(tvm_tir_mul_take(ref(i), tvm_tir_int(2)), ref(j))));
  void* let = tvm_tir_let_stmt_take(
      ref(t), tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i)), tvm_tir_int(2)), inner);
  void* f = tvm_tir_func_take(
      "f", tvm_tir_list_take(ref(A), ref(B)),
      tvm_tir_for_take(ref(i), tvm_tir_int(0), tvm_tir_int(4), TVM_TIR_FOR_UNROLLED, let));
  void* g = PASS_OK(tvm_tir_transform_unroll_loops, f);
  if (g) {
    CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_UNROLLED), 0);
    CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_SERIAL), 4);
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_LetStmt), 4);
    SAME_RESULTS(f, g);
  }
  RELEASE(A, B, i, j, t, f, g);
}

TEST(unroll_nested_and_symbolic) {
  /* for i unrolled 0..3: for j unrolled 0..2: B[i * 2 + j] = A[j] + i; then a loop with a
   * symbolic extent n marked unrolled becomes a serial loop. */
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 2);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_INT32, 6);
  tvm_tir_buffer_obj* D = tvm_tir_buffer_decl_takev("D", TVM_TIR_INT32, 1, (void*[]){ref(n)}, NULL);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  void* nest = tvm_tir_for_take(
      ref(i), tvm_tir_int(0), tvm_tir_int(3), TVM_TIR_FOR_UNROLLED,
      tvm_tir_for_take(
          ref(j), tvm_tir_int(0), tvm_tir_int(2), TVM_TIR_FOR_UNROLLED,
          tvm_tir_store_take(ref(B), tvm_tir_add_take(tvm_tir_load_take(ref(A), ref(j)), ref(i)),
                             tvm_tir_add_take(tvm_tir_mul_take(ref(i), tvm_tir_int(2)), ref(j)))));
  void* sym =
      tvm_tir_for_take(ref(k), tvm_tir_int(0), ref(n), TVM_TIR_FOR_UNROLLED,
                       tvm_tir_store_take(ref(D), tvm_tir_mul_take(ref(k), ref(k)), ref(k)));
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(A), ref(B), ref(D), ref(n)),
                              tvm_tir_seq_take(nest, sym));
  void* g = PASS_OK(tvm_tir_transform_unroll_loops, f);
  if (g) {
    CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_UNROLLED), 0);
    CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_SERIAL), 1);
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_BufferStore), 7);
    SAME_RESULTS(f, g, .sym = 5);
  }
  RELEASE(n, A, B, D, i, j, k, f, g);
}

TEST(unroll_rejects_huge_extents) {
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_INT32, 4);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* f = tvm_tir_func_take(
      "f", tvm_tir_list_take(ref(B)),
      tvm_tir_for_take(ref(i), tvm_tir_int(0), tvm_tir_int(100000), TVM_TIR_FOR_UNROLLED,
                       tvm_tir_store_take(ref(B), ref(i), tvm_tir_int(0))));
  EXPECT_ERROR("ValueError", tvm_tir_transform_unroll_loops(f), "unroll_loops",
               "extent 100000 of the unrolled loop", "exceeds 65536",
               "(i) at <root>.body.loop_var");
  RELEASE(B, i, f);
}

/* ---- vectorize_loops ----------------------------------------------------------------------- */
TEST(vectorize_elementwise_with_broadcasting) {
  void* f = make_bias_add(TVM_TIR_FOR_VECTORIZED);
  void* g = RUN_PASSES(f, tvm_tir_transform_flatten_buffers, tvm_tir_transform_simplify,
                       tvm_tir_transform_vectorize_loops);
  if (g) {
    CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_VECTORIZED), 0);
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_For), 1);
    CHECK(count_kind(g, TVM_TIR_KIND_Ramp) >= 3); /* the indices of A, Bias and C */
    CHECK(count_kind(g, TVM_TIR_KIND_Broadcast) >= 1);
    SAME_RESULTS(f, g);
    SAME_RESULTS(f, g, .seed = 5);
  }
  RELEASE(f, g);
}

TEST(vectorize_let_select_cast_and_math) {
  /* for j vectorized 0..8: let x = A[j] * 0.5 in B[j] = select(x > 0, exp(x), float(j)) + c,
   * with c a scalar parameter (broadcast). */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 8);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 8);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* c = tvm_tir_var("c", TVM_TIR_INT32);
  void* value =
      tvm_tir_add_take(tvm_tir_select_take(tvm_tir_gt_take(ref(x), tvm_tir_f32(0)),
                                           tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.exp", ref(x)),
                                           tvm_tir_cast_take(TVM_TIR_FLOAT32, ref(j))),
                       tvm_tir_cast_take(TVM_TIR_FLOAT32, ref(c)));
  void* body = tvm_tir_let_stmt_take(
      ref(x), tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(j)), tvm_tir_f32(0.5)),
      tvm_tir_store_take(ref(B), value, ref(j)));
  void* f = tvm_tir_func_take(
      "f", tvm_tir_list_take(ref(A), ref(B), ref(c)),
      tvm_tir_for_take(ref(j), tvm_tir_int(0), tvm_tir_int(8), TVM_TIR_FOR_VECTORIZED, body));
  void* g = PASS_OK(tvm_tir_transform_vectorize_loops, f);
  if (g) {
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_For), 0);
    CHECK(count_kind(g, TVM_TIR_KIND_Ramp) >= 1);
    const tvm_tir_let_stmt_obj* let = (const void*)((tvm_tir_prim_func_obj*)g)->body;
    CHECK(tvm_tir_kind_of(let) == TVM_TIR_KIND_LetStmt);
    if (tvm_tir_kind_of(let) == TVM_TIR_KIND_LetStmt) CHECK_EQ_INT(let->var->expr.dtype.lanes, 8);
    SAME_RESULTS(f, g, .sym = 3);
  }
  RELEASE(A, B, j, x, c, f, g);
}

TEST(vectorize_falls_back_to_serial) {
  /* The body branches on the loop var, stores to a fixed element, or holds a loop: each keeps a
   * (serial) loop with the same results. */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 8);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_INT32, 8);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  tvm_tir_var_obj* m = tvm_tir_var("m", TVM_TIR_INT32);
  void* branch = tvm_tir_for_take(
      ref(j), tvm_tir_int(0), tvm_tir_int(8), TVM_TIR_FOR_VECTORIZED,
      tvm_tir_if_take(tvm_tir_lt_take(ref(j), tvm_tir_int(3)),
                      tvm_tir_store_take(ref(B), tvm_tir_load_take(ref(A), ref(j)), ref(j)), NULL));
  void* fixed = tvm_tir_for_take(
      ref(k), tvm_tir_int(0), tvm_tir_int(8), TVM_TIR_FOR_VECTORIZED,
      tvm_tir_store_take(ref(B), tvm_tir_load_take(ref(A), ref(k)), tvm_tir_int(7)));
  tvm_tir_var_obj* q = tvm_tir_var("q", TVM_TIR_INT32);
  void* loop = tvm_tir_for_take(
      ref(m), tvm_tir_int(0), tvm_tir_int(4), TVM_TIR_FOR_VECTORIZED,
      tvm_tir_serial_take(ref(q), tvm_tir_int(0), tvm_tir_int(2),
                          tvm_tir_store_take(ref(B), ref(q), tvm_tir_add_take(ref(m), ref(q)))));
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(A), ref(B)),
                              tvm_tir_seq_take(branch, fixed, loop));
  void* g = PASS_OK(tvm_tir_transform_vectorize_loops, f);
  if (g) {
    CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_VECTORIZED), 0);
    CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_SERIAL), 4);
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_Ramp), 0);
    SAME_RESULTS(f, g);
  }
  RELEASE(A, B, j, k, m, q, f, g);
}

TEST(vectorize_extent_one_and_symbolic) {
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl_takev("A", TVM_TIR_INT32, 1, (void*[]){ref(n)}, NULL);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  void* one = tvm_tir_for_take(ref(j), tvm_tir_int(0), tvm_tir_int(1), TVM_TIR_FOR_VECTORIZED,
                               tvm_tir_store_take(ref(A), tvm_tir_int(5), ref(j)));
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(A), ref(n)), one);
  void* g = PASS_OK(tvm_tir_transform_vectorize_loops, f);
  if (g) {
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_For), 0);
    SAME_RESULTS(f, g, .sym = 3);
  }
  /* A symbolic extent (n) cannot be a vectorized For (S-FOR); a large constant one falls back. */
  tvm_tir_buffer_obj* W = tvm_tir_buffer_decl("W", TVM_TIR_INT32, 100);
  void* wide = tvm_tir_for_take(ref(k), tvm_tir_int(0), tvm_tir_int(100), TVM_TIR_FOR_VECTORIZED,
                                tvm_tir_store_take(ref(W), ref(k), ref(k)));
  void* h = tvm_tir_func_take("h", tvm_tir_list_take(ref(W)), wide);
  void* h2 = PASS_OK(tvm_tir_transform_vectorize_loops, h);
  if (h2) {
    CHECK_EQ_INT(count_loops(h2, TVM_TIR_FOR_SERIAL), 1);
    SAME_RESULTS(h, h2);
  }
  RELEASE(n, A, j, k, f, g, W, h, h2);
}

TEST(vectorize_int64_loop_var_and_empty_unroll) {
  /* for j: int64 vectorized 0..4: B[j] = A[j * 2] + j (float32, int64 indices); an unrolled loop
   * of extent 0 disappears. */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 8);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 4);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT64);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  void* vec = tvm_tir_for_take(
      ref(j), tvm_tir_i64(0), tvm_tir_i64(4), TVM_TIR_FOR_VECTORIZED,
      tvm_tir_store_take(
          ref(B),
          tvm_tir_add_take(tvm_tir_load_take(ref(A), tvm_tir_mul_take(ref(j), tvm_tir_i64(2))),
                           tvm_tir_cast_take(TVM_TIR_FLOAT32, ref(j))),
          ref(j)));
  void* empty = tvm_tir_for_take(ref(k), tvm_tir_int(0), tvm_tir_int(0), TVM_TIR_FOR_UNROLLED,
                                 tvm_tir_store_take(ref(B), tvm_tir_f32(1), ref(k)));
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(A), ref(B)), tvm_tir_seq_take(vec, empty));
  void* g = tvm_tir_lower(f, NULL);
  if (EXPECT_OK(g)) {
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_For), 0);
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_BufferStore), 1);
    CHECK(count_kind(g, TVM_TIR_KIND_Ramp) >= 2);
    SAME_RESULTS(f, g);
  }
  RELEASE(A, B, j, k, f, g);
}

/* ---- The pipeline on blocks with unrolled and vectorized loops ----------------------------- */
TEST(lower_matmul_unrolled_and_vectorized) {
  /* The matmul's j loop vectorized (the init's condition k == 0 does not depend on j) and its k
   * loop unrolled. */
  void* f = with_loop_kind(
      with_loop_kind(tvm_tir_testing_make_matmul("", 3, 8, 4), "j", TVM_TIR_FOR_VECTORIZED), "k",
      TVM_TIR_FOR_UNROLLED);
  void* g = tvm_tir_lower(f, &(tvm_tir_lower_options){.check = true});
  if (EXPECT_OK(g)) {
    CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_VECTORIZED), 0);
    CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_UNROLLED), 0);
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_For), 1);
    CHECK(count_kind(g, TVM_TIR_KIND_Ramp) > 0);
    CHECK(all_accesses_flat(g));
    SAME_RESULTS(f, g);
    SAME_RESULTS(f, g, .seed = 31);
  }
  RELEASE(f, g);
}

TEST(lower_matmul_every_loop_kind_combination) {
  /* Each of the matmul's loops i, j, k serial, unrolled or vectorized (27 programs): the
   * pipeline leaves no unrolled or vectorized loop and the results do not change. */
  static const tvm_tir_for_kind kinds[] = {TVM_TIR_FOR_SERIAL, TVM_TIR_FOR_UNROLLED,
                                           TVM_TIR_FOR_VECTORIZED};
  for (int c = 0; c < 27; ++c) {
    void* f = tvm_tir_testing_make_matmul("", 3, 4, 2);
    f = with_loop_kind(f, "i", kinds[c % 3]);
    f = with_loop_kind(f, "j", kinds[c / 3 % 3]);
    f = with_loop_kind(f, "k", kinds[c / 9]);
    void* g = tvm_tir_lower(f, NULL);
    if (!EXPECT_OK(g)) {
      fprintf(stderr, "  combination %d\n", c);
    } else {
      CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_UNROLLED) + count_loops(g, TVM_TIR_FOR_VECTORIZED),
                   0);
      SAME_RESULTS(f, g, .seed = (unsigned)(100 + c));
    }
    RELEASE(f, g);
  }
}

TEST(lower_large_func_all_vectorized) {
  /* Every loop of the generated large function vectorized: the loops whose body is guarded by
   * `if j < 4` (every fourth) stay serial, the others become vector code. */
  void* f = with_loop_kind(tvm_tir_testing_make_large_func(16), NULL, TVM_TIR_FOR_VECTORIZED);
  void* g = tvm_tir_lower(f, NULL);
  if (EXPECT_OK(g)) {
    CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_VECTORIZED), 0);
    CHECK_EQ_INT(count_loops(g, TVM_TIR_FOR_SERIAL), 4);
    CHECK(count_kind(g, TVM_TIR_KIND_Ramp) >= 12);
    SAME_RESULTS(f, g);
  }
  RELEASE(f, g);
}

TEST(lower_bias_add_unrolled) {
  void* f = with_loop_kind(make_bias_add(TVM_TIR_FOR_SERIAL), "i", TVM_TIR_FOR_UNROLLED);
  void* g = tvm_tir_lower(f, NULL);
  if (EXPECT_OK(g)) {
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_For), 4);
    SAME_RESULTS(f, g);
  }
  RELEASE(f, g);
}

TEST(lower_unrolled_allocation) {
  /* for i unrolled 0..3: block { alloc T[2]; T[1] = A[i] * 3; B[i] = T[0] + T[1] }: every copy
   * gets its own allocation Var (SSA), fresh zeroed memory included. */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 3);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_INT32, 3);
  tvm_tir_buffer_obj* Tb = tvm_tir_buffer_decl("T", TVM_TIR_INT32, 2);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_seq_take(
      tvm_tir_store_take(ref(Tb),
                         tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i)), tvm_tir_int(3)),
                         tvm_tir_int(1)),
      tvm_tir_store_take(ref(B),
                         tvm_tir_add_take(tvm_tir_load_take(ref(Tb), tvm_tir_int(0)),
                                          tvm_tir_load_take(ref(Tb), tvm_tir_int(1))),
                         ref(i)));
  void* block = tvm_tir_block_full_take("blk", NULL, NULL, NULL, NULL, NULL,
                                        tvm_tir_list_take(ref(Tb)), body);
  void* f = tvm_tir_func_take(
      "f", tvm_tir_list_take(ref(A), ref(B)),
      tvm_tir_for_take(ref(i), tvm_tir_int(0), tvm_tir_int(3), TVM_TIR_FOR_UNROLLED, block));
  void* g = tvm_tir_lower(f, &(tvm_tir_lower_options){.check = true});
  if (EXPECT_OK(g)) {
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_Allocate), 3);
    CHECK_EQ_INT(count_kind(g, TVM_TIR_KIND_For), 0);
    SAME_RESULTS(f, g);
  }
  RELEASE(A, B, Tb, i, f, g);
}

int main(void) {
  RUN(simplify_indices_and_conditions);
  RUN(simplify_flattened_large_func);
  RUN(unroll_renames_inner_bindings);
  RUN(unroll_nested_and_symbolic);
  RUN(unroll_rejects_huge_extents);
  RUN(vectorize_elementwise_with_broadcasting);
  RUN(vectorize_let_select_cast_and_math);
  RUN(vectorize_falls_back_to_serial);
  RUN(vectorize_extent_one_and_symbolic);
  RUN(vectorize_int64_loop_var_and_empty_unroll);
  RUN(lower_matmul_unrolled_and_vectorized);
  RUN(lower_matmul_every_loop_kind_combination);
  RUN(lower_large_func_all_vectorized);
  RUN(lower_bias_add_unrolled);
  RUN(lower_unrolled_allocation);
  tir_release_temps();
  return test_summary();
}

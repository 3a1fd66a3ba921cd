/*
 * test_wellformed.c: the well-formedness checker (tvm/tir/analysis.h). Well-formed programs
 * (the shared generators included) pass; one broken program per rule fails with the rule's
 * message and the access path of the offending node.
 */
#include <tvm/tir/analysis.h>

#include "tir_check.h"

#define R(o) tvm_tir_ref(o)

/* Set by with_field: the program under test was edited through reflection, so it may not be
 * checked with TVM_TIR_WF_CONSTRUCTED. Reset by each expectation. */
static bool g_edited;

/* The check with TVM_TIR_WF_CONSTRUCTED (for constructor-built programs) gives the same answer
 * as the full check: rc, and an error containing every part. */
static void expect_same_constructed_(int line, const void* f, int rc, const char* const* parts) {
  bool edited = g_edited;
  g_edited = false;
  if (edited) return;
  int rc_c = tvm_tir_verify_well_formed_ex(f, TVM_TIR_WF_CONSTRUCTED);
  void* e = rc_c != 0 ? tvm_ffi_error_take() : NULL;
  const char* msg = e ? tvm_ffi_error_message(e) : "";
  bool same = (rc_c != 0) == (rc != 0);
  for (int i = 0; same && parts && parts[i]; ++i) same = strstr(msg, parts[i]) != NULL;
  if (!same) {
    fprintf(stderr, "%s:%d: with TVM_TIR_WF_CONSTRUCTED: rc %d (full check %d), error: %s\n",
            __FILE__, line, rc_c, rc, msg);
    g_test_failed_checks++;
  }
  tvm_ffi_release(e);
}

/* verify(f) fails with a ValueError containing every part; consumes f. */
static void expect_ill_formed_(int line, void* f, const char* const* parts) {
  if (!f) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "%s:%d: building the program failed: %s\n", __FILE__, line,
            e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
    g_test_failed_checks++;
    return;
  }
  expect_same_constructed_(line, f, -1, parts);
  int rc = tvm_tir_verify_well_formed(f);
  tvm_ffi_release(f);
  if (rc == 0) {
    fprintf(stderr, "%s:%d: expected an ill-formed program, it passed\n", __FILE__, line);
    g_test_failed_checks++;
    return;
  }
  tir_expect_error_(line, NULL, "ValueError", parts);
}
#define EXPECT_ILL_FORMED(f, ...) \
  expect_ill_formed_(__LINE__, (f), (const char* const[]){__VA_ARGS__, NULL})

static void expect_well_formed_(int line, void* f) {
  if (!tir_expect_ok_(line, f)) return;
  expect_same_constructed_(line, f, 0, NULL);
  if (tvm_tir_verify_well_formed(f) != 0) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "%s:%d: expected well formed: %s\n", __FILE__, line,
            e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
    g_test_failed_checks++;
  }
  tvm_ffi_release(f);
}
#define EXPECT_WELL_FORMED(f) expect_well_formed_(__LINE__, (f))

/* Set a field of a fresh, unshared node (to build what the constructors reject, as a
 * deserialized program could be). */
static void* with_field(void* node, const char* name, void* value) {
  g_edited = true;
  const TVMFFIFieldInfo* f = tvm_ffi_type_find_field(tvm_ffi_type_index(node), name);
  TVMFFIAny v = tvm_ffi_any_obj(value);
  if (!f || tvm_ffi_field_set(node, f, &v) != 0) {
    tvm_ffi_release(node);
    node = NULL;
  }
  tvm_ffi_release(value);
  return node;
}

static tvm_tir_stmt_obj* store0(tvm_tir_buffer_obj* buf, void* index) {
  return tvm_tir_store_take(R(buf), tvm_tir_f32(0), index);
}

TEST(well_formed_programs) {
  EXPECT_WELL_FORMED(tvm_tir_testing_make_large_func(40));
  EXPECT_WELL_FORMED(tvm_tir_testing_make_matmul("", 16, 8, 4));
  EXPECT_WELL_FORMED(tvm_tir_module_take(tvm_tir_testing_make_matmul("", 4, 4, 4),
                                         tvm_tir_testing_make_large_func(3)));
  /* Symbolic shape n defined by the buffer_map, used in the body; Let, Allocate + DeclBuffer,
   * thread_extent, While, Assert. */
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl_takev("A", TVM_TIR_FLOAT32, 1, (void*[]){R(n)}, NULL);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* t = tvm_tir_var("t", TVM_TIR_INT32);
  tvm_tir_var_obj* tx = tvm_tir_var("tx", TVM_TIR_INT32);
  tvm_tir_var_obj* p = tvm_tir_ptr_var("p", TVM_TIR_FLOAT32, NULL);
  tvm_tir_buffer_fields bf = {0};
  bf.data = p;
  bf.dtype = TVM_TIR_FLOAT32;
  bf.shape = tvm_tir_list_take(tvm_tir_int(4));
  bf.name = "S";
  tvm_tir_buffer_obj* S = tvm_tir_buffer_new(&bf);
  tvm_ffi_release(bf.shape);
  void* body = tvm_tir_seq_take(
      tvm_tir_serial_take(R(i), tvm_tir_int(0), R(n),
                          tvm_tir_store_take(R(A), tvm_tir_f32(1),
                                             tvm_tir_let_take(R(t), R(i), tvm_tir_sub_take(R(t), tvm_tir_int(0))))),
      tvm_tir_allocate_takev(
          R(p), TVM_TIR_FLOAT32, 1, (void*[]){tvm_tir_int(4)},
          tvm_tir_decl_buffer_take(R(S), tvm_tir_attr_take(R(tx), "thread_extent", tvm_tir_int(4),
                                                           store0(S, R(tx))))),
      tvm_tir_assert_take(tvm_tir_gt_take(R(n), tvm_tir_int(0)), "n > 0",
                          tvm_tir_while_take(tvm_tir_lt_take(R(n), tvm_tir_int(0)),
                                             store0(A, tvm_tir_int(0)))));
  EXPECT_WELL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), body));
  /* A view of an Allocate without DeclBuffer; a parameter's buffer declared again. */
  tvm_tir_var_obj* q = tvm_tir_ptr_var("q", TVM_TIR_FLOAT32, NULL);
  bf.data = q;
  bf.shape = tvm_tir_list_take(R(n));
  bf.name = "Q";
  tvm_tir_buffer_obj* Q = tvm_tir_buffer_new(&bf);
  tvm_ffi_release(bf.shape);
  void* body2 = tvm_tir_seq_take(
      tvm_tir_allocate_takev(R(q), TVM_TIR_FLOAT32, 1, (void*[]){R(n)}, store0(Q, tvm_tir_int(0))),
      tvm_tir_decl_buffer_take(R(A), store0(A, tvm_tir_int(0))), store0(A, tvm_tir_int(1)));
  EXPECT_WELL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), body2));
  RELEASE(n, A, i, t, tx, p, S, q, Q);
}

/* for i in range(4): block with match_buffer M = A[i*4 : i*4 + 4] whose extent is written
 * (i*4 + 3) - i*4 + 1 (or extent_delta less). */
static tvm_tir_prim_func_obj* match_program(int extent_delta, int64_t m_shape) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 16);
  tvm_tir_buffer_obj* M = tvm_tir_buffer_decl("M", TVM_TIR_FLOAT32, m_shape);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* vi = tvm_tir_var("vi", TVM_TIR_INT32);
  void* extent = tvm_tir_sub_take(
      tvm_tir_add_take(tvm_tir_sub_take(tvm_tir_add_take(tvm_tir_mul_take(R(vi), tvm_tir_int(4)),
                                                         tvm_tir_int(3)),
                                        tvm_tir_mul_take(R(vi), tvm_tir_int(4))),
                       tvm_tir_int(1)),
      tvm_tir_int(extent_delta));
  void* source = tvm_tir_region_take(
      R(A), tvm_tir_range_take(tvm_tir_mul_take(R(vi), tvm_tir_int(4)), extent));
  void* mb = tvm_tir_match_buffer_region_new(M, source);
  tvm_ffi_release(source);
  tvm_tir_sblock_fields f = {0};
  f.iter_vars = tvm_tir_list_take(tvm_tir_iter_var_take(R(vi), tvm_tir_int(0), tvm_tir_int(4),
                                                        TVM_TIR_ITER_DATA_PAR));
  f.name_hint = "blk";
  f.match_buffers = tvm_tir_list_take(mb);
  f.body = store0(M, tvm_tir_int(0));
  tvm_tir_sblock_obj* blk = tvm_tir_sblock_new(&f);
  RELEASE(f.iter_vars, f.match_buffers, f.body);
  void* realize = blk ? tvm_tir_sblock_realize_new(tir_temp(tvm_tir_list_take(R(i))), NULL, blk) : NULL;
  tvm_ffi_release(blk);
  void* loop = tvm_tir_serial_take(R(i), tvm_tir_int(0), tvm_tir_int(4), realize);
  tvm_tir_prim_func_obj* fn = tvm_tir_func_take("match", tvm_tir_list_take(R(A)), loop);
  RELEASE(A, M, i, vi);
  return fn;
}

TEST(match_buffer_extents) {
  EXPECT_WELL_FORMED(match_program(0, 4));
  EXPECT_ILL_FORMED(match_program(1, 4), "well-formedness: match_buffer `M`",
                    "cannot prove that the extent of region[0] equals 4",
                    "rule O-MATCHBUFFER, spec O5 item 9",
                    "at <root>.body.body.block.match_buffers[0].source");
}

/* A match buffer of symbolic shape (m): m is defined by the match, in scope in the block only. */
static void* symbolic_match_program(bool use_after, bool bad_dom) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 16);
  tvm_tir_var_obj* m = tvm_tir_var("m", TVM_TIR_INT32);
  tvm_tir_var_obj* vi = tvm_tir_var("vi", TVM_TIR_INT32);
  tvm_tir_var_obj* w = tvm_tir_var("w", TVM_TIR_INT32);
  tvm_tir_buffer_obj* M = tvm_tir_buffer_decl_takev("M", TVM_TIR_FLOAT32, 1, (void*[]){R(m)}, NULL);
  void* source = tvm_tir_region_take(
      R(A), tvm_tir_range_take(tvm_tir_mul_take(R(vi), tvm_tir_int(4)), tvm_tir_int(4)));
  void* mb = tvm_tir_match_buffer_region_new(M, source);
  tvm_ffi_release(source);
  tvm_tir_sblock_fields f = {0};
  f.iter_vars = tvm_tir_list_take(tvm_tir_iter_var_take(
      R(vi), tvm_tir_int(0), bad_dom ? (void*)R(w) : (void*)tvm_tir_int(4), TVM_TIR_ITER_DATA_PAR));
  f.name_hint = "blk";
  f.match_buffers = tvm_tir_list_take(mb);
  f.body = store0(M, tvm_tir_sub_take(R(m), tvm_tir_int(1)));
  tvm_tir_sblock_obj* blk = tvm_tir_sblock_new(&f);
  RELEASE(f.iter_vars, f.match_buffers, f.body);
  void* realize =
      blk ? tvm_tir_sblock_realize_new(tir_temp(tvm_tir_list_take(tvm_tir_int(1))), NULL, blk) : NULL;
  tvm_ffi_release(blk);
  void* body = use_after ? tvm_tir_seq_take(realize, store0(A, R(m))) : realize;
  void* fn = tvm_tir_func_take("match", tvm_tir_list_take(R(A)), body);
  RELEASE(A, M, m, vi, w);
  return fn;
}

TEST(buffer_symbol_scopes) {
  EXPECT_WELL_FORMED(symbolic_match_program(false, false));
  EXPECT_ILL_FORMED(symbolic_match_program(true, false),
                    "variable `m` used outside its scope at <root>.body.seq[1].indices[0]");
  EXPECT_ILL_FORMED(symbolic_match_program(false, true),
                    "variable `w` used outside its scope at <root>.body.block.iter_vars[0].dom.extent");
}

TEST(ssa_double_binding) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 8);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_seq_take(tvm_tir_serial_take(R(i), tvm_tir_int(0), tvm_tir_int(8), store0(A, R(i))),
                                tvm_tir_serial_take(R(i), tvm_tir_int(0), tvm_tir_int(8), store0(A, R(i))));
  EXPECT_ILL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), body),
                    "well-formedness: variable `i` is bound more than once (SSA) at "
                    "<root>.body.seq[1].loop_var");
  /* A parameter rebound by a Let. */
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  void* let = tvm_tir_let_stmt_take(R(x), tvm_tir_int(1), store0(A, R(x)));
  EXPECT_ILL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A), R(x)), let),
                    "variable `x` is bound more than once (SSA) at <root>.body.var");
  RELEASE(A, i, x);
}

TEST(use_out_of_scope) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 8);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_seq_take(tvm_tir_serial_take(R(i), tvm_tir_int(0), tvm_tir_int(8), store0(A, R(i))),
                                tvm_tir_store_take(R(A), tvm_tir_f32(1), tvm_tir_add_take(R(i), tvm_tir_int(1))));
  EXPECT_ILL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), body),
                    "well-formedness: variable `i` used outside its scope at "
                    "<root>.body.seq[1].indices[0].a");
  /* A loop's own extent is outside its scope. */
  void* loop = tvm_tir_serial_take(R(i), tvm_tir_int(0), R(i), store0(A, tvm_tir_int(0)));
  EXPECT_ILL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), loop),
                    "variable `i` used outside its scope at <root>.body.extent");
  /* A free variable inside a Let value. */
  tvm_tir_var_obj* t = tvm_tir_var("t", TVM_TIR_INT32);
  tvm_tir_var_obj* z = tvm_tir_var("z", TVM_TIR_INT32);
  void* let = tvm_tir_let_stmt_take(R(t), tvm_tir_mul_take(R(z), tvm_tir_int(2)), store0(A, R(t)));
  EXPECT_ILL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), let),
                    "variable `z` used outside its scope at <root>.body.value.a");
  RELEASE(A, i, t, z);
}

/* f with attrs {key: value} (value borrowed). */
static void* with_attr(const tvm_tir_prim_func_obj* f, const char* key, void* value) {
  TVMFFIAny k = tvm_ffi_string(key), v = tvm_ffi_any_obj(value);
  void* attrs = tir_temp(tvm_ffi_map_new(&k, &v, 1));
  tvm_ffi_any_release(&k);
  return tvm_tir_prim_func_new(f->params, f->body, f->ret_type, f->buffer_map, attrs);
}

/* A function's attrs see its parameters and its buffer_map's variables, nothing of the body; a
 * module's attrs see no variable at all (tvm_tir_verify_closed). */
TEST(attrs_scope) {
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_var_obj* m = tvm_tir_var("m", TVM_TIR_INT32);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl_takev("A", TVM_TIR_FLOAT32, 1, (void*[]){R(m)}, NULL);
  void* loop = tvm_tir_serial_take(R(i), tvm_tir_int(0), R(m), store0(A, R(i)));
  tvm_tir_prim_func_obj* f = tir_temp(tvm_tir_func_take("f", tvm_tir_list_take(R(A), R(n)), loop));
  EXPECT_WELL_FORMED(with_attr(f, "k", ARR(n, tir_temp(tvm_tir_mul_take(R(m), tvm_tir_int(2))))));
  EXPECT_ILL_FORMED(with_attr(f, "k", ARR(n, i)),
                    "variable `i` used outside its scope at <root>.attrs[\"k\"][1]");
  /* An IndexMap's own variables are not the function's. */
  void* own = tir_temp(tvm_tir_index_map_new(ARR(i), ARR(i), NULL));
  EXPECT_WELL_FORMED(with_attr(f, "layout", own));
  CHECK_EQ_INT(tvm_tir_verify_closed(own), 0);
  CHECK_EQ_INT(tvm_tir_verify_closed(NULL), 0);
  /* Module attrs. */
  void* n1 = tir_temp(tvm_tir_add_take(R(n), tvm_tir_int(1)));
  TVMFFIAny k = tvm_ffi_string("k"), v = tvm_ffi_any_obj(ARR(n1));
  void* attrs = tir_temp(tvm_ffi_map_new(&k, &v, 1));
  CHECK_EQ_INT(tvm_tir_verify_closed(attrs), -1);
  CHECK_RAISED("ValueError", "variable `n` is bound nowhere at <root>[\"k\"][0].a");
  tvm_tir_ir_module_obj* mod = tir_temp(tvm_tir_module_take(R(f)));
  void* fns = mod->functions;
  EXPECT_ILL_FORMED(tvm_tir_ir_module_new(fns, attrs),
                    "in the module's attrs: well-formedness: variable `n` is bound nowhere");
  tvm_ffi_any_release(&k);
  RELEASE(n, m, i, A);
}

/* break / continue (T.evaluate(T.break_loop()) / T.continue_loop()) leave the innermost loop:
 * it must exist, be serial, unrolled or a while loop, and no block or thread launch may stand
 * between the two; the ops are statements, not values. */
static tvm_tir_stmt_obj* jump(const char* op) {
  return tvm_tir_evaluate_take(tvm_tir_call_takev(TVM_TIR_VOID, op, 0, NULL));
}

TEST(loop_jumps) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 8);
  tvm_tir_var_obj *i = tvm_tir_var("i", TVM_TIR_INT32), *j = tvm_tir_var("j", TVM_TIR_INT32);
  /* Well formed: in a serial loop, an unrolled one, a while loop, and a loop inside a block. */
  void* ok = tvm_tir_serial_take(
      R(i), tvm_tir_int(0), tvm_tir_int(8),
      tvm_tir_seq_take(
          tvm_tir_if_take(tvm_tir_lt_take(R(i), tvm_tir_int(3)), jump("tir.continue_loop"), NULL),
          tvm_tir_for_take(R(j), tvm_tir_int(0), tvm_tir_int(4), TVM_TIR_FOR_UNROLLED,
                           jump("tir.break_loop")),
          tvm_tir_while_take(tvm_tir_lt_take(R(i), tvm_tir_int(4)), jump("tir.break_loop")),
          store0(A, R(i))));
  EXPECT_WELL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), ok));
  /* Outside any loop. */
  EXPECT_ILL_FORMED(
      tvm_tir_func_take("f", tvm_tir_list_take(R(A)),
                        tvm_tir_seq_take(store0(A, tvm_tir_int(0)), jump("tir.break_loop"))),
      "well-formedness: `break` (tir.break_loop) outside a loop at <root>.body.seq[1]");
  /* In a parallel or vectorized loop. */
  static const struct {
    tvm_tir_for_kind kind;
    const char* what;
  } bad[] = {{TVM_TIR_FOR_PARALLEL, "in a parallel loop"},
             {TVM_TIR_FOR_VECTORIZED, "in a vectorized loop"}};
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); ++k) {
    void* loop = tvm_tir_for_take(R(i), tvm_tir_int(0), tvm_tir_int(8), bad[k].kind,
                                  tvm_tir_seq_take(jump("tir.continue_loop"), store0(A, R(i))));
    EXPECT_ILL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), loop),
                      "`continue` (tir.continue_loop)", bad[k].what, "at <root>.body.body.seq[0]");
  }
  /* Across a block: the loop is outside it. */
  void* across =
      tvm_tir_serial_take(R(i), tvm_tir_int(0), tvm_tir_int(8),
                          tvm_tir_block_take("b", NULL, NULL, NULL, NULL, jump("tir.break_loop")));
  EXPECT_ILL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), across),
                    "`break` (tir.break_loop) inside a block whose loop is outside it at "
                    "<root>.body.body.block.body");
  /* Across a thread launch. */
  tvm_tir_var_obj* tx = tvm_tir_var("tx", TVM_TIR_INT32);
  tvm_tir_iter_var_obj* iv =
      tvm_tir_iter_var_new(NULL, tx, TVM_TIR_ITER_THREAD_INDEX, "threadIdx.x");
  void* launch = tvm_tir_serial_take(
      R(i), tvm_tir_int(0), tvm_tir_int(8),
      tvm_tir_attr_take(R(iv), "thread_extent", tvm_tir_int(32), jump("tir.break_loop")));
  EXPECT_ILL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), launch),
                    "inside a GPU thread launch whose loop is outside it");
  /* Used as a value. */
  void* as_value =
      tvm_tir_serial_take(R(i), tvm_tir_int(0), tvm_tir_int(8),
                          tvm_tir_evaluate_take(tvm_tir_call_take(
                              TVM_TIR_INT32, "tir.tvm_tuple",
                              tvm_tir_call_takev(TVM_TIR_VOID, "tir.break_loop", 0, NULL))));
  EXPECT_ILL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), as_value),
                    "tir.break_loop used as a value");
  RELEASE(A, i, j, tx, iv);
}

TEST(undeclared_buffer) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 8);
  tvm_tir_buffer_obj* C = tvm_tir_buffer_decl("C", TVM_TIR_FLOAT32, 8);
  EXPECT_ILL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), store0(C, tvm_tir_int(0))),
                    "well-formedness: buffer `C` is not declared in this scope at <root>.body.buffer");
  void* load = tvm_tir_store_take(R(A), tvm_tir_load_take(R(C), tvm_tir_int(1)), tvm_tir_int(0));
  EXPECT_ILL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), load),
                    "buffer `C` is not declared in this scope at <root>.body.value.buffer");
  RELEASE(A, C);
}

TEST(region_arity) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 4, 4);
  tvm_tir_buffer_region_obj* full = tvm_tir_buffer_region_full(A);
  /* A region of one range on the 2-D buffer (the constructor refuses it). */
  void* bad = with_field(full, "region", tvm_tir_list_take(tvm_tir_range_take(tvm_tir_int(0), tvm_tir_int(4))));
  void* body = tvm_tir_store_take(R(A), tvm_tir_f32(0), tvm_tir_int(0), tvm_tir_int(0));
  void* blk = tvm_tir_block_take("b", NULL, NULL, tvm_tir_list_take(bad), NULL, body);
  EXPECT_ILL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), blk),
                    "well-formedness: region of buffer `A` has 1 ranges for 2 dimensions (rule "
                    "O-BUFFERREGION, spec O4) at <root>.body.block.reads[0].region");
  tvm_ffi_release(A);
}

TEST(block_realize_arity_and_dtype) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 4);
  tvm_tir_var_obj* vi = tvm_tir_var("vi", TVM_TIR_INT32);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT64);
  /* An int64 value bound to an int32 iter var. */
  void* blk = tvm_tir_block_take(
      "b", tvm_tir_list_take(tvm_tir_iter_var_take(R(vi), tvm_tir_int(0), tvm_tir_int(4), TVM_TIR_ITER_DATA_PAR)),
      tvm_tir_list_take(R(i)), NULL, NULL, store0(A, R(vi)));
  void* loop = tvm_tir_serial_take(R(i), tvm_tir_i64(0), tvm_tir_i64(4), blk);
  EXPECT_ILL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), loop),
                    "well-formedness: iter value of dtype int64 bound to iter var `vi` of dtype "
                    "int32 (rule S-BLOCKREALIZE) at <root>.body.body.iter_values[0]");
  /* Too few iter values (the constructor refuses it). */
  tvm_tir_var_obj* vj = tvm_tir_var("vj", TVM_TIR_INT32);
  void* realize = tvm_tir_block_take(
      "b", tvm_tir_list_take(tvm_tir_iter_var_take(R(vj), tvm_tir_int(0), tvm_tir_int(4), TVM_TIR_ITER_DATA_PAR)),
      tvm_tir_list_take(tvm_tir_int(0)), NULL, NULL, store0(A, R(vj)));
  realize = realize ? with_field(realize, "iter_values", tvm_tir_list_takev(0, NULL)) : NULL;
  EXPECT_ILL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), realize),
                    "well-formedness: 0 iter_values for block `b` with 1 iter_vars (rule "
                    "S-BLOCKREALIZE, spec S14) at <root>.body.iter_values");
  RELEASE(A, vi, i, vj);
}

TEST(reduction_init) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 4);
  tvm_tir_var_obj* vi = tvm_tir_var("vi", TVM_TIR_INT32);
  /* init in a block without a reduction iter var: well formed, as upstream's verifier has it
   * (the init then runs every time) */
  void* blk = tvm_tir_block_full_take(
      "b", tvm_tir_list_take(tvm_tir_iter_var_take(R(vi), tvm_tir_int(0), tvm_tir_int(4), TVM_TIR_ITER_DATA_PAR)),
      tvm_tir_list_take(tvm_tir_int(0)), NULL, NULL, store0(A, R(vi)), NULL, store0(A, R(vi)));
  EXPECT_WELL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), blk));
  /* init using the reduction iter var: well formed, as upstream accepts it (the init runs when
   * the var equals its minimum) */
  tvm_tir_var_obj* vk = tvm_tir_var("vk", TVM_TIR_INT32);
  void* red = tvm_tir_block_full_take(
      "r", tvm_tir_list_take(tvm_tir_iter_var_take(R(vk), tvm_tir_int(0), tvm_tir_int(4), TVM_TIR_ITER_COMM_REDUCE)),
      tvm_tir_list_take(tvm_tir_int(0)), NULL, NULL, store0(A, R(vk)), NULL,
      store0(A, tvm_tir_int(0)));
  EXPECT_WELL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), red));
  RELEASE(A, vi, vk);
}

TEST(malformed_structure) {
  /* What the constructors refuse but deserialized IR may hold: a missing field, an array
   * element of the wrong kind. */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 4);
  tvm_tir_var_obj* vi = tvm_tir_var("vi", TVM_TIR_INT32);
  void* realize = tvm_tir_block_take(
      "b", tvm_tir_list_take(tvm_tir_iter_var_take(R(vi), tvm_tir_int(0), tvm_tir_int(4), TVM_TIR_ITER_DATA_PAR)),
      tvm_tir_list_take(tvm_tir_int(0)), NULL, NULL, store0(A, R(vi)));
  realize = realize ? with_field(realize, "block", NULL) : NULL;
  EXPECT_ILL_FORMED(tvm_tir_func_take("f", tvm_tir_list_take(R(A)), realize),
                    "well-formedness: required field `block` of SBlockRealize is missing at "
                    "<root>.body.block");
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(R(A)), store0(A, tvm_tir_int(0)));
  f = f ? with_field(f, "params", tvm_tir_list_take(tvm_tir_int(3))) : NULL;
  EXPECT_ILL_FORMED(f, "well-formedness: params[0] of PrimFunc must be a Var, got ir.IntImm at "
                       "<root>.params[0]");
  RELEASE(A, vi);
}

/* tvm_tir_prim_func_is_pure, upstream's is_pure_function: stores only into the function's own
 * Allocates, no call of an UPDATE_STATE / OPAQUE operator. */
TEST(prim_func_purity) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 4);
  tvm_tir_var_obj* p = tvm_tir_ptr_var("p", TVM_TIR_FLOAT32, NULL);
  tvm_tir_buffer_fields bf = {0};
  bf.data = p;
  bf.dtype = TVM_TIR_FLOAT32;
  bf.shape = tvm_tir_list_take(tvm_tir_int(4));
  bf.name = "S";
  tvm_tir_buffer_obj* S = tvm_tir_buffer_new(&bf);
  tvm_ffi_release(bf.shape);
  /* nothing done; a pure call; a store into its own allocation: pure */
  tvm_tir_prim_func_obj* nop =
      tvm_tir_func_take("nop", tvm_tir_list_take(R(A)), tvm_tir_evaluate_take(tvm_tir_int(0)));
  tvm_tir_prim_func_obj* math = tvm_tir_func_take(
      "math", tvm_tir_list_take(R(A)),
      tvm_tir_evaluate_take(tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.exp", tvm_tir_f32(1))));
  tvm_tir_prim_func_obj* scratch = tvm_tir_func_take(
      "scratch", tvm_tir_list_take(R(A)),
      tvm_tir_allocate_takev(R(p), TVM_TIR_FLOAT32, 1, (void*[]){tvm_tir_int(4)},
                             tvm_tir_decl_buffer_take(R(S), store0(S, tvm_tir_int(0)))));
  CHECK(tvm_tir_prim_func_is_pure(nop));
  CHECK(tvm_tir_prim_func_is_pure(math));
  CHECK(tvm_tir_prim_func_is_pure(scratch));
  /* a store into a parameter's buffer; an extern call (OPAQUE): impure */
  tvm_tir_prim_func_obj* writes =
      tvm_tir_func_take("writes", tvm_tir_list_take(R(A)), store0(A, tvm_tir_int(1)));
  tvm_tir_prim_func_obj* ext = tvm_tir_func_take(
      "ext", tvm_tir_list_take(R(A)),
      tvm_tir_evaluate_take(tvm_tir_call_take(TVM_TIR_INT32, "tir.call_extern", tvm_tir_str("f"))));
  CHECK(!tvm_tir_prim_func_is_pure(writes));
  CHECK(!tvm_tir_prim_func_is_pure(ext));
  /* not a PrimFunc */
  CHECK(!tvm_tir_prim_func_is_pure(NULL));
  CHECK(!tvm_tir_prim_func_is_pure((const void*)A));
  CHECK(!tvm_ffi_error_pending());
  RELEASE(A, p, S, nop, math, scratch, writes, ext);
}

TEST(module_and_arguments) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 8);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* bad = tvm_tir_func_take("bad", tvm_tir_list_take(R(A)), store0(A, R(i)));
  EXPECT_ILL_FORMED(tvm_tir_module_take(tvm_tir_testing_make_large_func(2), bad),
                    "in function `bad`: well-formedness: variable `i` used outside its scope at "
                    "<root>.body.indices[0]");
  CHECK_EQ_INT(tvm_tir_verify_well_formed(A), -1);
  CHECK_RAISED("TypeError", "expected a PrimFunc or an IRModule");
  CHECK_EQ_INT(tvm_tir_verify_well_formed(NULL), -1);
  CHECK_RAISED("ValueError", "NULL");
  RELEASE(A, i);
}

int main(void) {
  RUN(well_formed_programs);
  RUN(match_buffer_extents);
  RUN(buffer_symbol_scopes);
  RUN(ssa_double_binding);
  RUN(use_out_of_scope);
  RUN(undeclared_buffer);
  RUN(region_arity);
  RUN(block_realize_arity_and_dtype);
  RUN(reduction_init);
  RUN(malformed_structure);
  RUN(loop_jumps);
  RUN(module_and_arguments);
  RUN(attrs_scope);
  RUN(prim_func_purity);
  tir_release_temps();
  return test_summary();
}

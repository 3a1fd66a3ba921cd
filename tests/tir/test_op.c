/* test_op.c: the ir.Op registry (builtins of ops.def, lookups, registration) and call arity. */
#include <pthread.h>

#include "tir_check.h"

static const struct {
  const char* name;
  tvm_tir_call_effect_kind effect;
  int32_t num_inputs;
} k_expected[] = {
    {"tir.ret", TVM_TIR_EFFECT_CONTROL_JUMP, 1},
    {"tir.break_loop", TVM_TIR_EFFECT_CONTROL_JUMP, 0},
    {"tir.continue_loop", TVM_TIR_EFFECT_CONTROL_JUMP, 0},
    {"tir.if_then_else", TVM_TIR_EFFECT_PURE, 3},
    {"tir.likely", TVM_TIR_EFFECT_EXPR_ANNOTATION, 1},
    {"tir.tvm_thread_invariant", TVM_TIR_EFFECT_PURE, 1},
    {"tir.call_extern", TVM_TIR_EFFECT_OPAQUE, -1},
    {"tir.tvm_call_packed", TVM_TIR_EFFECT_OPAQUE, -1},
    {"tir.call_pure_extern", TVM_TIR_EFFECT_PURE, -1},
    {"tir.reinterpret", TVM_TIR_EFFECT_PURE, 1},
    {"tir.shift_left", TVM_TIR_EFFECT_PURE, 2},
    {"tir.shift_right", TVM_TIR_EFFECT_PURE, 2},
    {"tir.bitwise_and", TVM_TIR_EFFECT_PURE, 2},
    {"tir.bitwise_or", TVM_TIR_EFFECT_PURE, 2},
    {"tir.bitwise_xor", TVM_TIR_EFFECT_PURE, 2},
    {"tir.bitwise_not", TVM_TIR_EFFECT_PURE, 1},
    {"tir.exp", TVM_TIR_EFFECT_PURE, 1},
    {"tir.exp2", TVM_TIR_EFFECT_PURE, 1},
    {"tir.exp10", TVM_TIR_EFFECT_PURE, 1},
    {"tir.log", TVM_TIR_EFFECT_PURE, 1},
    {"tir.log2", TVM_TIR_EFFECT_PURE, 1},
    {"tir.log10", TVM_TIR_EFFECT_PURE, 1},
    {"tir.log1p", TVM_TIR_EFFECT_PURE, 1},
    {"tir.sqrt", TVM_TIR_EFFECT_PURE, 1},
    {"tir.rsqrt", TVM_TIR_EFFECT_PURE, 1},
    {"tir.tanh", TVM_TIR_EFFECT_PURE, 1},
    {"tir.sigmoid", TVM_TIR_EFFECT_PURE, 1},
    {"tir.erf", TVM_TIR_EFFECT_PURE, 1},
    {"tir.pow", TVM_TIR_EFFECT_PURE, 2},
    {"tir.floor", TVM_TIR_EFFECT_PURE, 1},
    {"tir.ceil", TVM_TIR_EFFECT_PURE, 1},
    {"tir.round", TVM_TIR_EFFECT_PURE, 1},
    {"tir.nearbyint", TVM_TIR_EFFECT_PURE, 1},
    {"tir.trunc", TVM_TIR_EFFECT_PURE, 1},
    {"tir.fabs", TVM_TIR_EFFECT_PURE, 1},
    {"tir.fmod", TVM_TIR_EFFECT_PURE, 2},
    {"tir.sin", TVM_TIR_EFFECT_PURE, 1},
    {"tir.cos", TVM_TIR_EFFECT_PURE, 1},
    {"tir.tan", TVM_TIR_EFFECT_PURE, 1},
    {"tir.atan", TVM_TIR_EFFECT_PURE, 1},
    {"tir.isnan", TVM_TIR_EFFECT_PURE, 1},
    {"tir.isinf", TVM_TIR_EFFECT_PURE, 1},
    {"tir.isfinite", TVM_TIR_EFFECT_PURE, 1},
    {"tir.popcount", TVM_TIR_EFFECT_PURE, 1},
    {"tir.clz", TVM_TIR_EFFECT_PURE, 1},
    {"tir.address_of", TVM_TIR_EFFECT_PURE, 1},
    {"tir.tvm_access_ptr", TVM_TIR_EFFECT_SPECIAL_CALL_ARG, 5},
    {"tir.assume", TVM_TIR_EFFECT_EMBED_INFO, 1},
    {"tir.undef", TVM_TIR_EFFECT_READ_STATE, 0},
    {"tir.isnullptr", TVM_TIR_EFFECT_PURE, 1},
    {"tir.large_uint_imm", TVM_TIR_EFFECT_PURE, 2},
    {"tir.q_multiply_shift", TVM_TIR_EFFECT_PURE, 4},
    {"tir.tvm_struct_get", TVM_TIR_EFFECT_READ_STATE, 3},
    {"tir.tvm_struct_set", TVM_TIR_EFFECT_UPDATE_STATE, 4},
    {"tir.tvm_call_packed_lowered", TVM_TIR_EFFECT_OPAQUE, -1},
    {"tir.tvm_stack_alloca", TVM_TIR_EFFECT_OPAQUE, 2},
    {"tir.tvm_stack_make_shape", TVM_TIR_EFFECT_OPAQUE, -1},
    {"tir.tvm_stack_make_array", TVM_TIR_EFFECT_OPAQUE, 6},
    {"tir.tvm_throw_last_error", TVM_TIR_EFFECT_OPAQUE, 0},
    {"tir.call_llvm_intrin", TVM_TIR_EFFECT_OPAQUE, -1},
    {"tir.call_llvm_pure_intrin", TVM_TIR_EFFECT_PURE, -1},
    {"tir.vectorlow", TVM_TIR_EFFECT_PURE, 1},
    {"tir.vectorhigh", TVM_TIR_EFFECT_PURE, 1},
    {"tir.vectorcombine", TVM_TIR_EFFECT_PURE, 2},
};

TEST(builtins) {
  /* Upstream's CallEffectKind values. */
  CHECK_EQ_INT(TVM_TIR_EFFECT_EXPR_ANNOTATION, 0);
  CHECK_EQ_INT(TVM_TIR_EFFECT_PURE, 1);
  CHECK_EQ_INT(TVM_TIR_EFFECT_READ_STATE, 2);
  CHECK_EQ_INT(TVM_TIR_EFFECT_UPDATE_STATE, 3);
  CHECK_EQ_INT(TVM_TIR_EFFECT_OPAQUE, 3);
  CHECK_EQ_INT(TVM_TIR_EFFECT_SPECIAL_CALL_ARG, 4);
  CHECK_EQ_INT(TVM_TIR_EFFECT_EMBED_INFO, 5);
  CHECK_EQ_INT(TVM_TIR_EFFECT_CONTROL_JUMP, 6);
  for (size_t i = 0; i < sizeof(k_expected) / sizeof(k_expected[0]); ++i) {
    tvm_tir_op_obj* op = tvm_tir_op_get(k_expected[i].name);
    if (!EXPECT_OK(op)) continue;
    CHECK_STR_EQ(tvm_tir_op_name(op), k_expected[i].name);
    CHECK_EQ_INT(op->call_effect_kind, k_expected[i].effect);
    CHECK_EQ_INT(op->num_inputs, k_expected[i].num_inputs);
    CHECK(tvm_tir_kind_of(op) == TVM_TIR_KIND_Op);
    CHECK_STR_EQ(tvm_ffi_type_key(tvm_ffi_type_index(op)), "ir.Op");
    tvm_ffi_release(op);
  }
  /* Lookups return the registry's singleton. */
  tvm_tir_op_obj* a = tvm_tir_op_get("tir.exp");
  tvm_tir_op_obj* b = tvm_tir_builtin_op(TVM_TIR_BUILTIN_exp);
  CHECK(a && a == b);
  CHECK(tvm_tir_is_builtin(a, TVM_TIR_BUILTIN_exp));
  CHECK(!tvm_tir_is_builtin(a, TVM_TIR_BUILTIN_log));
  CHECK(!tvm_tir_is_builtin(NULL, TVM_TIR_BUILTIN_log));
  /* Every builtin's op knows its id; anything else has none. */
  for (int id = 0; id < TVM_TIR_BUILTIN_COUNT; ++id) {
    tvm_tir_op_obj* op = tvm_tir_builtin_op((tvm_tir_builtin)id);
    CHECK_EQ_INT(tvm_tir_builtin_of(op), id);
    tvm_ffi_release(op);
  }
  tvm_tir_op_obj* other = tvm_tir_op_register("test.not_a_builtin", 1, TVM_TIR_EFFECT_PURE);
  CHECK_EQ_INT(tvm_tir_builtin_of(other), -1);
  CHECK_EQ_INT(tvm_tir_builtin_of(NULL), -1);
  CHECK_EQ_INT(tvm_tir_builtin_of(a->name), -1);
  RELEASE(a, b, other);
  EXPECT_ERROR("KeyError", tvm_tir_op_get("tir.no_such_op"), "tir.no_such_op");
  EXPECT_ERROR("ValueError", tvm_tir_builtin_op((tvm_tir_builtin)-1), "invalid builtin id");
  void* names = tvm_tir_op_list_names();
  if (EXPECT_OK(names)) {
    CHECK(tvm_ffi_seq_size(names) >= TVM_TIR_BUILTIN_COUNT);
    for (int64_t i = 1; i < tvm_ffi_seq_size(names); ++i) {
      TVMFFIByteArray x, y;
      tvm_ffi_any_as_bytes(tvm_ffi_seq_at(names, i - 1), &x);
      tvm_ffi_any_as_bytes(tvm_ffi_seq_at(names, i), &y);
      CHECK(strncmp(x.data, y.data, x.size < y.size ? x.size : y.size) <= 0);
    }
  }
  RELEASE(names);
}

TEST(registration) {
  tvm_tir_op_obj* r = tvm_tir_op_register("test.my_op", 2, TVM_TIR_EFFECT_PURE);
  tvm_tir_op_obj* again = tvm_tir_op_register("test.my_op", 2, TVM_TIR_EFFECT_PURE);
  tvm_tir_op_obj* got = tvm_tir_op_get("test.my_op");
  CHECK(r && r == again && r == got);
  EXPECT_ERROR("ValueError", tvm_tir_op_register("test.my_op", 3, TVM_TIR_EFFECT_PURE),
               "already registered with num_inputs 2");
  EXPECT_ERROR("ValueError", tvm_tir_op_register("tir.exp", 1, TVM_TIR_EFFECT_OPAQUE), "tir.exp");
  EXPECT_ERROR("ValueError", tvm_tir_op_register("", 1, TVM_TIR_EFFECT_PURE), "empty op name");
  EXPECT_ERROR("ValueError", tvm_tir_op_register("test.bad", -2, TVM_TIR_EFFECT_PURE),
               "num_inputs -2");
  /* A registered op is callable with its arity checked. */
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_expr_obj* c =
      tvm_tir_call_take(TVM_TIR_INT32, "test.my_op", tvm_tir_ref(x), tvm_tir_ref(x));
  EXPECT_OK(c);
  EXPECT_ERROR("TypeError", tvm_tir_call_take(TVM_TIR_INT32, "test.my_op", tvm_tir_ref(x)),
               "rule T-CALL", "test.my_op takes 2 arguments but 1 was given");
  RELEASE(r, again, got, x, c);
}

static void* register_many(void* arg) {
  for (int i = 0; i < 200; ++i) {
    tvm_tir_op_obj* op = tvm_tir_op_register("test.concurrent", 1, TVM_TIR_EFFECT_PURE);
    tvm_tir_op_obj* got = tvm_tir_op_get("tir.sqrt");
    if (!op || !got) __atomic_fetch_add((int*)arg, 1, __ATOMIC_RELAXED);
    tvm_ffi_release(op);
    tvm_ffi_release(got);
  }
  return NULL;
}

TEST(concurrent_registry) {
  pthread_t threads[4];
  int failures = 0;
  for (int i = 0; i < 4; ++i) pthread_create(&threads[i], NULL, register_many, &failures);
  for (int i = 0; i < 4; ++i) pthread_join(threads[i], NULL);
  CHECK_EQ_INT(failures, 0);
}

TEST(call_arity) {
  tvm_tir_var_obj* f = tvm_tir_var("f", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* p = tvm_tir_var("p", TVM_TIR_HANDLE);
  tvm_tir_expr_obj* ok1 =
      tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.pow", tvm_tir_ref(f), tvm_tir_ref(f));
  tvm_tir_expr_obj* ok2 = tvm_tir_call_takev(TVM_TIR_INT32, "tir.tvm_throw_last_error", 0, NULL);
  tvm_tir_expr_obj* ok3 = tvm_tir_call_take(TVM_TIR_INT32, "tir.tvm_call_packed", tvm_tir_str("fn"),
                                            tvm_tir_ref(f), tvm_tir_ref(p), tvm_tir_int(1));
  tvm_tir_expr_obj* ok4 = tvm_tir_call_take(TVM_TIR_INT32, "tir.tvm_struct_get", tvm_tir_ref(p),
                                            tvm_tir_int(0), tvm_tir_int(1));
  CHECK(EXPECT_OK(ok1) && EXPECT_OK(ok2) && EXPECT_OK(ok3) && EXPECT_OK(ok4));
  if (ok3) CHECK_EQ_INT(tvm_ffi_seq_size(((tvm_tir_call_obj*)ok3)->args), 4);
  EXPECT_ERROR("TypeError", tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.pow", tvm_tir_ref(f)),
               "rule T-CALL", "tir.pow takes 2 arguments but 1 was given", "args = [f]");
  EXPECT_ERROR("TypeError",
               tvm_tir_call_take(TVM_TIR_INT32, "tir.tvm_throw_last_error", tvm_tir_ref(f)),
               "takes 0 arguments but 1 was given");
  EXPECT_ERROR("TypeError",
               tvm_tir_call_take(TVM_TIR_INT32, "tir.if_then_else", tvm_tir_ref(f), tvm_tir_ref(f)),
               "tir.if_then_else takes 3 arguments but 2 were given");
  EXPECT_ERROR("KeyError", tvm_tir_call_take(TVM_TIR_INT32, "tir.nope", tvm_tir_ref(f)),
               "tir.nope");
  /* Calls of GlobalVars (other PrimFuncs) are not arity-checked here (the function decides). */
  tvm_tir_global_var_obj* gv = tvm_tir_global_var_new("callee");
  tvm_tir_expr_obj* g =
      tvm_tir_call_global_takev(TVM_TIR_INT32, tvm_tir_ref(gv), 1, (void*[]){tvm_tir_ref(f)});
  EXPECT_OK(g);
  /* The builtin helper. */
  tvm_tir_expr_obj* fe = &f->expr;
  tvm_tir_expr_obj* e = tvm_tir_call_builtin(TVM_TIR_FLOAT32, TVM_TIR_BUILTIN_exp, &fe, 1);
  if (EXPECT_OK(e)) CHECK(tvm_tir_is_builtin(((tvm_tir_call_obj*)e)->op, TVM_TIR_BUILTIN_exp));
  RELEASE(f, p, ok1, ok2, ok3, ok4, gv, g, e);
}

int main(void) {
  RUN(builtins);
  RUN(registration);
  RUN(concurrent_registry);
  RUN(call_arity);
  tir_release_temps();
  return test_summary();
}

/*
 * test_codegen_args.c: the packed API's range checks of bound values, on the JIT and on an
 * exported library. A shape, stride or scalar argument is an int64; the variable it binds may
 * be narrower (int32 n), and a shape is a size. A value the variable cannot hold, or a negative
 * extent, is a ValueError worded as the interpreter's, never a truncated value that sends the
 * kernel before or past its buffers with return code 0.
 */
#include "codegen_testing.h"

/* examples/add.py's add_n: n (int32) bound by the shapes of A, B, C; an 8-lane vector body over
 * n // 8 blocks, then a scalar tail of n % 8 elements at n // 8 * 8. With n = -5 (a shape of
 * 2**32 - 5 truncated) the tail writes C[-8 .. -6]. */
static void* make_add_n(void) {
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_buffer_obj* buf[3];
  const char* names[3] = {"A", "B", "C"};
  for (int k = 0; k < 3; ++k)
    buf[k] = tvm_tir_buffer_decl_takev(names[k], TVM_TIR_FLOAT32, 1, (void*[]){ref(n)}, NULL);
  tvm_tir_var_obj* io = tvm_tir_var("io", TVM_TIR_INT32);
  tvm_tir_var_obj* ii = tvm_tir_var("ii", TVM_TIR_INT32);
  tvm_tir_var_obj* t = tvm_tir_var("t", TVM_TIR_INT32);
  void* j = tvm_tir_add_take(tvm_tir_mul_take(ref(io), tvm_tir_int(8)), ref(ii));
  void* body = tvm_tir_serial_take(
      ref(io), tvm_tir_int(0), tvm_tir_floordiv_take(ref(n), tvm_tir_int(8)),
      tvm_tir_for_take(ref(ii), tvm_tir_int(0), tvm_tir_int(8), TVM_TIR_FOR_VECTORIZED,
                       tvm_tir_store_take(ref(buf[2]),
                                          tvm_tir_add_take(tvm_tir_load_take(ref(buf[0]), ref(j)),
                                                           tvm_tir_load_take(ref(buf[1]), ref(j))),
                                          ref(j))));
  void* k = tvm_tir_add_take(
      tvm_tir_mul_take(tvm_tir_floordiv_take(ref(n), tvm_tir_int(8)), tvm_tir_int(8)), ref(t));
  void* tail = tvm_tir_serial_take(
      ref(t), tvm_tir_int(0), tvm_tir_floormod_take(ref(n), tvm_tir_int(8)),
      tvm_tir_store_take(ref(buf[2]),
                         tvm_tir_add_take(tvm_tir_load_take(ref(buf[0]), ref(k)),
                                          tvm_tir_load_take(ref(buf[1]), ref(k))),
                         ref(k)));
  void* f = tvm_tir_func_take("add_n", tvm_tir_list_take(ref(buf[0]), ref(buf[1]), ref(buf[2])),
                              tvm_tir_seq_take(body, tail));
  RELEASE(n, buf[0], buf[1], buf[2], io, ii, t, j, k);
  return f;
}

/* fill(m: int32, u: uint8, flag: bool, A: (m,) float32): A[i] = float32(u) for i < m when flag.
 * m is a scalar parameter and also A's extent (bound by the scalar, checked against the shape). */
static void* make_fill(void) {
  tvm_tir_var_obj* m = tvm_tir_var("m", TVM_TIR_INT32);
  tvm_tir_var_obj* u = tvm_tir_var("u", TVM_TIR_UINT8);
  tvm_tir_var_obj* flag = tvm_tir_var("flag", TVM_TIR_BOOL);
  tvm_tir_buffer_obj* A =
      tvm_tir_buffer_decl_takev("A", TVM_TIR_FLOAT32, 1, (void*[]){ref(m)}, NULL);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_if_take(
      ref(flag),
      tvm_tir_serial_take(
          ref(i), tvm_tir_int(0), ref(m),
          tvm_tir_store_take(ref(A), tvm_tir_cast_take(TVM_TIR_FLOAT32, ref(u)), ref(i))),
      NULL);
  void* f = tvm_tir_func_take("fill", tvm_tir_list_take(ref(m), ref(u), ref(flag), ref(A)), body);
  RELEASE(m, u, flag, A, i);
  return f;
}

/* strided(A: (4,) float32 with strides (s,), s an int32 Var): A[i] = i. */
static void* make_strided(void) {
  tvm_tir_var_obj* s = tvm_tir_var("s", TVM_TIR_INT32);
  tvm_tir_buffer_fields bf = {0};
  bf.data = tvm_tir_ptr_var("A", TVM_TIR_FLOAT32, NULL);
  bf.dtype = TVM_TIR_FLOAT32;
  bf.shape = tvm_tir_list_take(tvm_tir_int(4));
  bf.strides = tvm_tir_list_take(ref(s));
  bf.name = "A";
  tvm_tir_buffer_obj* A = tvm_tir_buffer_new(&bf);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_serial_take(
      ref(i), tvm_tir_int(0), tvm_tir_int(4),
      tvm_tir_store_take(ref(A), tvm_tir_cast_take(TVM_TIR_FLOAT32, ref(i)), ref(i)));
  void* f = tvm_tir_func_take("strided", tvm_tir_list_take(ref(A)), body);
  RELEASE(s, bf.data, bf.shape, bf.strides, A, i);
  return f;
}

enum { GUARD = 16, N = 19 };

/* Fresh A, B and a C with guard cells on both sides. */
typedef struct {
  float a[N], b[N], c[GUARD + N + GUARD];
} add_n_bufs;

static void add_n_fill(add_n_bufs* m) {
  for (int e = 0; e < N; ++e) {
    m->a[e] = (float)e;
    m->b[e] = 100.0f;
  }
  for (int e = 0; e < GUARD + N + GUARD; ++e) m->c[e] = -1.0f;
}

/* The number of C's guard cells written. */
static int guards_touched(const add_n_bufs* m) {
  int bad = 0;
  for (int e = 0; e < GUARD; ++e) bad += (m->c[e] != -1.0f) + (m->c[GUARD + N + e] != -1.0f);
  return bad;
}

static void check_add_n(void* fn) {
  add_n_bufs m;
  add_n_fill(&m);
  int64_t shape[1] = {N};
  DLTensor ta = dl(m.a, TVM_TIR_FLOAT32, 1, shape, NULL),
           tb = dl(m.b, TVM_TIR_FLOAT32, 1, shape, NULL),
           tc = dl(m.c + GUARD, TVM_TIR_FLOAT32, 1, shape, NULL);
  TVMFFIAny args[3] = {T(&ta), T(&tb), T(&tc)}, r;
  CHECK_OK(tvm_ffi_function_call(fn, args, 3, &r));
  bool ok = true;
  for (int e = 0; e < N; ++e) ok &= m.c[GUARD + e] == (float)e + 100.0f;
  CHECK(ok);
  CHECK_EQ_INT(guards_touched(&m), 0);
  /* 2**32 - 5 would be n = -5 in int32: the tail would write C[-8 .. -6]. */
  int64_t wide[1] = {((int64_t)1 << 32) - 5};
  ta.shape = tb.shape = tc.shape = wide;
  add_n_fill(&m);
  EXPECT_CALL_ERR(
      fn, args, 3, "ValueError",
      "add_n: argument A: shape[0]: 4294967291 does not fit variable 'n' of type int32");
  CHECK_EQ_INT(guards_touched(&m), 0);
  int64_t huge[1] = {(int64_t)1 << 40};
  ta.shape = tb.shape = tc.shape = huge;
  EXPECT_CALL_ERR(fn, args, 3, "ValueError",
                  "add_n: argument A: shape[0]: 1099511627776 does not fit variable 'n' of type "
                  "int32");
  /* A negative extent is refused even where the variable can hold it. */
  int64_t neg[1] = {-5};
  ta.shape = tb.shape = tc.shape = neg;
  EXPECT_CALL_ERR(fn, args, 3, "ValueError",
                  "add_n: argument A: shape[0]: expected a non-negative extent, got -5");
  CHECK_EQ_INT(guards_touched(&m), 0);
  /* Only C's shape is wrong: B and C are checked against n, and C's own sign is checked. */
  ta.shape = tb.shape = shape;
  tc.shape = neg;
  EXPECT_CALL_ERR(fn, args, 3, "ValueError",
                  "add_n: argument C: shape[0]: expected a non-negative extent, got -5");
  CHECK_EQ_INT(guards_touched(&m), 0);
}

static void check_fill(void* fn) {
  float a[8] = {0};
  int64_t shape[1] = {4};
  DLTensor ta = dl(a, TVM_TIR_FLOAT32, 1, shape, NULL);
  TVMFFIAny args[4] = {I(4), I(7), tvm_ffi_any_bool(true), T(&ta)}, r;
  CHECK_OK(tvm_ffi_function_call(fn, args, 4, &r));
  CHECK(a[0] == 7.0f && a[3] == 7.0f && a[4] == 0.0f);
  /* m = 2**32 + 4 would truncate to 4 and match the shape. */
  args[0] = I(((int64_t)1 << 32) + 4);
  EXPECT_CALL_ERR(fn, args, 4, "ValueError", "fill: argument 'm' = 4294967300 does not fit int32");
  args[0] = I((int64_t)1 << 40);
  EXPECT_CALL_ERR(fn, args, 4, "ValueError",
                  "fill: argument 'm' = 1099511627776 does not fit int32");
  /* m = -5 fits int32, but it is A's extent, and A's shape is then -5 too. */
  int64_t neg[1] = {-5};
  args[0] = I(-5);
  ta.shape = neg;
  EXPECT_CALL_ERR(fn, args, 4, "ValueError",
                  "fill: argument A: shape[0]: expected a non-negative extent, got -5");
  ta.shape = shape;
  args[0] = I(4);
  args[1] = I(256);
  EXPECT_CALL_ERR(fn, args, 4, "ValueError", "fill: argument 'u' = 256 does not fit uint8");
  args[1] = I(-1);
  EXPECT_CALL_ERR(fn, args, 4, "ValueError", "fill: argument 'u' = -1 does not fit uint8");
  args[1] = I(255);
  args[2] = I(2);
  EXPECT_CALL_ERR(fn, args, 4, "ValueError", "fill: argument 'flag' = 2 does not fit bool");
  args[2] = I(1);
  CHECK_OK(tvm_ffi_function_call(fn, args, 4, &r));
  CHECK(a[0] == 255.0f);
}

static void check_strided(void* fn) {
  float a[16] = {0};
  int64_t shape[1] = {4}, st[1] = {((int64_t)1 << 32) + 2};
  DLTensor ta = dl(a, TVM_TIR_FLOAT32, 1, shape, st);
  TVMFFIAny args[1] = {T(&ta)}, r;
  EXPECT_CALL_ERR(fn, args, 1, "ValueError",
                  "strided: argument A: strides[0]: 4294967298 does not fit variable 's' of type "
                  "int32");
  st[0] = 3;
  CHECK_OK(tvm_ffi_function_call(fn, args, 1, &r));
  CHECK(a[3] == 1.0f && a[9] == 3.0f && a[1] == 0.0f);
  /* A byte_offset of 2**64 - 4 is not a (negative) element offset. */
  st[0] = 1;
  ta.byte_offset = (uint64_t)0 - 4;
  EXPECT_CALL_ERR(fn, args, 1, "ValueError",
                  "strided: argument A: byte_offset: expected a non-negative offset, got -4");
}

TEST(bound_values_range_checked) {
  void* mod = tvm_tir_module_take(make_add_n(), make_fill(), make_strided());
  void* g = mod ? tvm_tir_lower(mod, NULL) : NULL;
  void* jit = g ? tvm_codegen_build(g, NULL, NULL) : NULL;
  CHECK(jit != NULL);
  char path[512];
  void* lib = g ? EXPORT_LOAD(g, "args", path) : NULL;
  void* mods[2] = {jit, lib};
  for (int k = 0; k < 2; ++k) {
    void* fn = mods[k] ? GET_FN(mods[k], "add_n") : NULL;
    if (fn) check_add_n(fn);
    tvm_ffi_release(fn);
    fn = mods[k] ? GET_FN(mods[k], "fill") : NULL;
    if (fn) check_fill(fn);
    tvm_ffi_release(fn);
    fn = mods[k] ? GET_FN(mods[k], "strided") : NULL;
    if (fn) check_strided(fn);
    tvm_ffi_release(fn);
  }
  /* The interpreter refuses the same scalar with the same words (a new reference). */
  void* fill = mod ? tvm_tir_ir_module_lookup(mod, "fill") : NULL;
  if (fill) {
    float a[4];
    int64_t shape[1] = {4};
    DLTensor ta = dl(a, TVM_TIR_FLOAT32, 1, shape, NULL);
    TVMFFIAny args[4] = {I((int64_t)1 << 40), I(7), I(1), T(&ta)}, r = tvm_ffi_any_none();
    CHECK_EQ_INT(tvm_tir_interp_run(fill, NULL, args, 4, &r), -1);
    CHECK_RAISED("ValueError", "fill: argument 'm' = 1099511627776 does not fit int32");
  }
  tvm_ffi_release(fill);
  RELEASE(jit, lib);
  if (g && !getenv("TVM_CODEGEN_KEEP")) unlink(path);
  RELEASE(mod, g);
}

int main(void) {
  RUN(bound_values_range_checked);
  return test_summary();
}

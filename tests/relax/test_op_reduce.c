/*
 * test_op_reduce.c: struct info of the reductions (sum ... std), argmax/argmin, bucketize,
 * multinomial_from_uniform, the scans (cumsum, cumprod) and collapse_sum_like / collapse_sum_to
 * on static, symbolic and unknown shapes, and their errors.
 */
#include "op_infer_testing.h"

static const char* const k_reductions[] = {"relax.sum",  "relax.mean",     "relax.max", "relax.min",
                                           "relax.prod", "relax.variance", "relax.std"};

TEST(reduce_static_axes) {
  for (size_t i = 0; i < sizeof(k_reductions) / sizeof(k_reductions[0]); ++i) {
    const char* op = k_reductions[i];
    CHECK_INFER("R.Tensor((2, 4), dtype=\"float32\")", op, oi_attrs(1, "axis", AL(1, 1)), 1,
                T("2, 3, 4", F32));
    CHECK_INFER("R.Tensor((2, 3, 1), dtype=\"float32\")", op,
                oi_attrs(2, "axis", AL(1, -1), "keepdims", AB(true)), 1, T("2, 3, 4", F32));
  }
  /* The dtype is the input's, integers included. */
  CHECK_INFER("R.Tensor((3,), dtype=\"int32\")", "relax.sum", oi_attrs(1, "axis", AL(2, 0, 2)), 1,
              T("2, 3, 4", I32));
  /* An int axis is a list of one. */
  CHECK_INFER("R.Tensor((2, 3), dtype=\"float32\")", "relax.max", oi_attrs(1, "axis", AI(2)), 1,
              T("2, 3, 4", F32));
}

TEST(reduce_all_axes) {
  CHECK_INFER("R.Tensor((), dtype=\"float32\")", "relax.sum", NULL, 1, T("2, 3, 4", F32));
  CHECK_INFER("R.Tensor((1, 1, 1), dtype=\"float32\")", "relax.mean",
              oi_attrs(1, "keepdims", AB(true)), 1, T("2, 3, 4", F32));
  /* An empty axis list reduces nothing. */
  CHECK_INFER("R.Tensor((2, 3), dtype=\"float32\")", "relax.sum", oi_attrs(1, "axis", AL(0)), 1,
              T("2, 3", F32));
}

TEST(reduce_symbolic_and_unknown) {
  CHECK_INFER("R.Tensor((3,), dtype=\"float32\")", "relax.sum", oi_attrs(1, "axis", AL(2, 0, -1)), 1,
              T("n, 3, m", F32));
  CHECK_INFER("R.Tensor((n, 1, m), dtype=\"float32\")", "relax.sum",
              oi_attrs(2, "axis", AL(1, 1), "keepdims", AB(true)), 1, T("n, 3, m", F32));
  /* Unknown shape of known rank: the rank follows. */
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=2)", "relax.sum", oi_attrs(1, "axis", AL(1, 1)), 1,
              T("?3", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=3)", "relax.sum",
              oi_attrs(2, "axis", AL(1, 1), "keepdims", AB(true)), 1, T("?3", F32));
  CHECK_INFER("R.Tensor((), dtype=\"float32\")", "relax.sum", NULL, 1, T("?3", F32));
  CHECK_INFER("R.Tensor((1, 1, 1), dtype=\"float32\")", "relax.sum",
              oi_attrs(1, "keepdims", AB(true)), 1, T("?3", F32));
  /* Unknown rank: only axis None without keepdims knows the result's rank. */
  CHECK_INFER("R.Tensor(dtype=\"float32\")", "relax.sum", oi_attrs(1, "axis", AL(1, 1)), 1,
              T("*", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\")", "relax.sum", oi_attrs(1, "keepdims", AB(true)), 1,
              T("*", F32));
  CHECK_INFER("R.Tensor((), dtype=\"float32\")", "relax.sum", NULL, 1, T("*", F32));
  CHECK_INFER("R.Tensor((), dtype=\"float16\")", "relax.std", NULL, 1, T("*", F16));
}

TEST(reduce_errors) {
  CHECK_INFER_FAILS("ValueError", "relax.sum: axis 3 is out of range for a tensor of ndim 3",
                    "relax.sum", oi_attrs(1, "axis", AL(1, 3)), 1, T("2, 3, 4", F32));
  CHECK_INFER_FAILS("ValueError", "axis -4 is out of range", "relax.mean",
                    oi_attrs(1, "axis", AL(1, -4)), 1, T("2, 3, 4", F32));
  CHECK_INFER_FAILS("ValueError", "names axis 1 more than once", "relax.sum",
                    oi_attrs(1, "axis", AL(2, 1, -2)), 1, T("2, 3, 4", F32));
  CHECK_INFER_FAILS("TypeError", "relax.sum: argument 'x' must be a tensor", "relax.sum", NULL, 1,
                    SH("2, 3"));
  CHECK_INFER_FAILS("TypeError", "attribute 'axis' must be a list of ints or None", "relax.sum",
                    oi_attrs(1, "axis", AS("x")), 1, T("2, 3", F32));
  CHECK_INFER_FAILS("TypeError", "unknown attribute 'axes'", "relax.sum",
                    oi_attrs(1, "axes", AL(1, 0)), 1, T("2, 3", F32));
}

TEST(arg_reduce) {
  CHECK_INFER("R.Tensor((2, 4), dtype=\"int64\")", "relax.argmax", oi_attrs(1, "axis", AI(1)), 1,
              T("2, 3, 4", F32));
  CHECK_INFER("R.Tensor((2, 3, 1), dtype=\"int64\")", "relax.argmin",
              oi_attrs(2, "axis", AI(-1), "keepdims", AB(true)), 1, T("2, 3, 4", F32));
  CHECK_INFER("R.Tensor((), dtype=\"int64\")", "relax.argmax", NULL, 1, T("2, 3, 4", F32));
  CHECK_INFER("R.Tensor((1, 1, 1), dtype=\"int64\")", "relax.argmax",
              oi_attrs(1, "keepdims", AB(true)), 1, T("2, 3, 4", F32));
  CHECK_INFER("R.Tensor((n,), dtype=\"int64\")", "relax.argmax", oi_attrs(1, "axis", AI(1)), 1,
              T("n, m", F32));
  CHECK_INFER("R.Tensor(dtype=\"int64\", ndim=2)", "relax.argmin", oi_attrs(1, "axis", AI(0)), 1,
              T("?3", F32));
  CHECK_INFER("R.Tensor(dtype=\"int64\")", "relax.argmin",
              oi_attrs(2, "axis", AI(0), "keepdims", AB(true)), 1, T("*", F32));
  CHECK_INFER("R.Tensor((), dtype=\"int64\")", "relax.argmin", NULL, 1, T("*", F32));
  CHECK_INFER_FAILS("ValueError", "relax.argmax: axis 3 is out of range", "relax.argmax",
                    oi_attrs(1, "axis", AI(3)), 1, T("2, 3, 4", F32));
  CHECK_INFER_FAILS("TypeError", "attribute 'axis' must be an int or None", "relax.argmax",
                    oi_attrs(1, "axis", AL(1, 0)), 1, T("2, 3, 4", F32));
}

/* bucketize: input_tensor's shape (or rank), int64 indices (int32 with out_int32); boundaries
 * 1-d, of any dtype (upstream checks none). */
TEST(bucketize) {
  const char* op = "relax.bucketize";
  CHECK_INFER("R.Tensor((2, 3), dtype=\"int64\")", op, NULL, 2, T("2, 3", F32), T("4", F32));
  CHECK_INFER("R.Tensor((2, 3), dtype=\"int32\")", op, oi_attrs(1, "out_int32", AB(true)), 2,
              T("2, 3", F32), T("4", F32));
  CHECK_INFER("R.Tensor((2, 3), dtype=\"int64\")", op, oi_attrs(1, "right", AB(true)), 2,
              T("2, 3", I64), T("4", I64));
  CHECK_INFER("R.Tensor((2, 3), dtype=\"int32\")", op,
              oi_attrs(2, "out_int32", AB(true), "right", AB(true)), 2, T("2, 3", I32),
              T("4", F32));
  /* a 0-d input, symbolic dims, an unknown shape or rank, unknown dtypes */
  CHECK_INFER("R.Tensor((), dtype=\"int64\")", op, NULL, 2, T("", F32), T("4", F32));
  CHECK_INFER("R.Tensor((n, 3), dtype=\"int64\")", op, NULL, 2, T("n, 3", F32), T("m", F32));
  CHECK_INFER("R.Tensor(dtype=\"int64\", ndim=3)", op, NULL, 2, T("?3", F32), T("4", F32));
  CHECK_INFER("R.Tensor(dtype=\"int64\")", op, NULL, 2, T("*", F32), T("4", F32));
  CHECK_INFER("R.Tensor((2,), dtype=\"int32\")", op, oi_attrs(1, "out_int32", AB(true)), 2,
              T("2", UNK), T("*", UNK));
  /* an input whose shape is a shape variable keeps it (its values when they are known) */
  void *sv = rt_var_take("s", SH("?2")), *sn = rt_var_take("s", SH("n, 3"));
  CHECK_INFER("R.Tensor(s, dtype=\"int64\", ndim=2)", op, NULL, 2,
              tvm_relax_tensor_sinfo_new(sv, F32, 2, NULL), T("4", F32));
  CHECK_INFER("R.Tensor((n, 3), dtype=\"int64\")", op, NULL, 2,
              tvm_relax_tensor_sinfo_new(sn, F32, 2, NULL), T("4", F32));
  tvm_ffi_release(sv), tvm_ffi_release(sn);
  /* errors */
  CHECK_INFER_FAILS("ValueError", "relax.bucketize: argument 'boundaries' must be a 1-d tensor, "
                    "got ndim 2", op, NULL, 2, T("2, 3", F32), T("2, 2", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'boundaries' must be a 1-d tensor, got ndim 0", op,
                    NULL, 2, T("2, 3", F32), T("", F32));
  CHECK_INFER_FAILS("TypeError", "relax.bucketize: argument 'input_tensor' must be a tensor", op,
                    NULL, 2, SH("2, 3"), T("4", F32));
  CHECK_INFER_FAILS("TypeError", "relax.bucketize: argument 'boundaries' must be a tensor", op,
                    NULL, 2, T("2, 3", F32), SH("4"));
  CHECK_INFER_FAILS("TypeError", "relax.bucketize: attribute 'out_int32' must be a bool", op,
                    oi_attrs(1, "out_int32", AS("yes")), 2, T("2, 3", F32), T("4", F32));
  CHECK_INFER_FAILS("TypeError", "relax.bucketize: attribute 'right' must be a bool", op,
                    oi_attrs(1, "right", AF(1.5)), 2, T("2, 3", F32), T("4", F32));
}

/* multinomial_from_uniform: (n, 1) indices of the attribute dtype (int64 by default) on prob's
 * vdevice, from prob (batch, vocab) and uniform_sample / sample_indices (n, 1). */
TEST(multinomial_from_uniform) {
  const char* op = "relax.multinomial_from_uniform";
#define MI64(n) "R.Tensor((" n ", 1), dtype=\"int64\")"
  CHECK_INFER(MI64("4"), op, NULL, 3, T("3, 5", F32), T("4, 1", F32), T("4, 1", I64));
  CHECK_INFER("R.Tensor((4, 1), dtype=\"int32\")", op, oi_attrs(1, "dtype", AS("int32")), 3,
              T("3, 5", F32), T("4, 1", F32), T("4, 1", I32));
  CHECK_INFER("R.Tensor((4, 1), dtype=\"uint8\")", op, oi_attrs(1, "dtype", AS("uint8")), 3,
              T("3, 5", F16), T("4, 1", F32), T("4, 1", I64));
  /* symbolic dims: n from uniform_sample (the batch and vocab do not matter) */
  CHECK_INFER(MI64("n"), op, NULL, 3, T("b, v", F32), T("n, 1", F32), T("n, 1", I64));
  CHECK_INFER(MI64("n + T.int64(1)"), op, NULL, 3, T("b, v", F32), T("n+1, 1", F32),
              T("n+1, 1", I32));
  /* a shape unknown anywhere (prob's too, as upstream) or a rank unknown: (?, ?) of ndim 2 */
  const char* u2 = "R.Tensor(dtype=\"int64\", ndim=2)";
  CHECK_INFER(u2, op, NULL, 3, T("?2", F32), T("4, 1", F32), T("4, 1", I64));
  CHECK_INFER(u2, op, NULL, 3, T("3, 5", F32), T("?2", F32), T("4, 1", I64));
  CHECK_INFER(u2, op, NULL, 3, T("3, 5", F32), T("4, 1", F32), T("*", I64));
  CHECK_INFER(u2, op, NULL, 3, T("*", F32), T("*", F32), T("*", I64));
  /* unknown dtypes pass */
  CHECK_INFER(MI64("4"), op, NULL, 3, T("3, 5", UNK), T("4, 1", UNK), T("4, 1", UNK));
  /* errors: dtypes */
  CHECK_INFER_FAILS("TypeError", "relax.multinomial_from_uniform: argument 'prob' must have a "
                    "float dtype, got int32", op, NULL, 3, T("3, 5", I32), T("4, 1", F32),
                    T("4, 1", I64));
  CHECK_INFER_FAILS("TypeError", "argument 'uniform_sample' must have a float dtype, got int64",
                    op, NULL, 3, T("3, 5", F32), T("4, 1", I64), T("4, 1", I64));
  CHECK_INFER_FAILS("TypeError", "argument 'sample_indices' must have a signed integer dtype, "
                    "got float32", op, NULL, 3, T("3, 5", F32), T("4, 1", F32), T("4, 1", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'sample_indices' must have a signed integer dtype, "
                    "got uint32", op, NULL, 3, T("3, 5", F32), T("4, 1", F32),
                    T("4, 1", tvm_tir_dtype_uint(32)));
  CHECK_INFER_FAILS("TypeError", "relax.multinomial_from_uniform: attribute 'dtype' must be an "
                    "integer dtype, got float32", op, oi_attrs(1, "dtype", AS("float32")), 3,
                    T("3, 5", F32), T("4, 1", F32), T("4, 1", I64));
  CHECK_INFER_FAILS("TypeError", "attribute 'dtype' must be an integer dtype, got bool", op,
                    oi_attrs(1, "dtype", AS("bool")), 3, T("3, 5", F32), T("4, 1", F32),
                    T("4, 1", I64));
  CHECK_INFER_FAILS("TypeError", "argument 'prob' must be a tensor", op, NULL, 3, SH("3, 5"),
                    T("4, 1", F32), T("4, 1", I64));
  /* ranks and shapes */
  CHECK_INFER_FAILS("ValueError", "relax.multinomial_from_uniform: argument 'prob' must be a 2-d "
                    "tensor, got ndim 1", op, NULL, 3, T("5", F32), T("4, 1", F32),
                    T("4, 1", I64));
  CHECK_INFER_FAILS("ValueError", "argument 'uniform_sample' must be a 2-d tensor, got ndim 1",
                    op, NULL, 3, T("3, 5", F32), T("?1", F32), T("4, 1", I64));
  CHECK_INFER_FAILS("ValueError", "argument 'sample_indices' must be a 2-d tensor, got ndim 3",
                    op, NULL, 3, T("*", F32), T("4, 1", F32), T("4, 1, 1", I64));
  CHECK_INFER_FAILS("ValueError", "argument 'uniform_sample' must have shape (n, 1), got a "
                    "second dim of 2", op, NULL, 3, T("3, 5", F32), T("4, 2", F32),
                    T("4, 1", I64));
  CHECK_INFER_FAILS("ValueError", "argument 'sample_indices' must have shape (n, 1), got a "
                    "second dim of m", op, NULL, 3, T("3, 5", F32), T("4, 1", F32),
                    T("4, m", I64));
  CHECK_INFER_FAILS("ValueError", "relax.multinomial_from_uniform: arguments 'uniform_sample' and "
                    "'sample_indices' must have the same number of samples, got 4 and 3", op, NULL,
                    3, T("3, 5", F32), T("4, 1", F32), T("3, 1", I64));
  /* two different symbolic counts are not provably equal (upstream asks for a match_cast) */
  CHECK_INFER_FAILS("ValueError", "the same number of samples, got n and m (not provably equal: "
                    "a match_cast can make them so)",
                    op, NULL, 3, T("3, 5", F32), T("n, 1", F32), T("m, 1", I64));
#undef MI64
}

TEST(scan) {
  /* axis None: over the flattened tensor. */
  CHECK_INFER("R.Tensor((6,), dtype=\"float32\")", "relax.cumsum", NULL, 1, T("2, 3", F32));
  CHECK_INFER("R.Tensor((n * T.int64(3),), dtype=\"float32\")", "relax.cumprod", NULL, 1, T("n, 3", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=1)", "relax.cumsum", NULL, 1, T("?3", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=1)", "relax.cumsum", NULL, 1, T("*", F32));
  /* An axis keeps the shape; dtype converts. */
  CHECK_INFER("R.Tensor((n, 3), dtype=\"float32\")", "relax.cumsum", oi_attrs(1, "axis", AI(-1)), 1,
              T("n, 3", F32));
  CHECK_INFER("R.Tensor((2, 3), dtype=\"int64\")", "relax.cumsum",
              oi_attrs(3, "axis", AI(0), "dtype", AS("int64"), "exclusive", AB(true)), 1,
              T("2, 3", I32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=2)", "relax.cumprod", oi_attrs(1, "axis", AI(1)), 1,
              T("?2", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\")", "relax.cumprod", oi_attrs(1, "axis", AI(5)), 1,
              T("*", F32));
  CHECK_INFER_FAILS("ValueError", "relax.cumsum: axis 2 is out of range", "relax.cumsum",
                    oi_attrs(1, "axis", AI(2)), 1, T("2, 3", F32));
  CHECK_INFER_FAILS("TypeError", "attribute 'exclusive' must be a bool", "relax.cumsum",
                    oi_attrs(1, "exclusive", AS("yes")), 1, T("2, 3", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'dtype'", "relax.cumsum",
                    oi_attrs(1, "dtype", AS("notatype")), 1, T("2, 3", F32));
}

/* collapse_sum_like / collapse_sum_to: the target's shape, data's dtype. */
TEST(collapse_sum) {
  CHECK_INFER("R.Tensor((3, 1), dtype=\"float32\")", "relax.collapse_sum_like", NULL, 2,
              T("2, 3, 4", F32), T("3, 1", F32));
  CHECK_INFER("R.Tensor((1, 4), dtype=\"int32\")", "relax.collapse_sum_to", NULL, 2,
              T("2, 3, 4", I32), SH("1, 4"));
  /* data's dtype, not the target's */
  CHECK_INFER("R.Tensor((4,), dtype=\"float16\")", "relax.collapse_sum_like", NULL, 2,
              T("2, 4", F16), T("4", F32));
  /* symbolic: equal dims match, a 1 sums, leading dims sum */
  CHECK_INFER("R.Tensor((1, m), dtype=\"float32\")", "relax.collapse_sum_like", NULL, 2,
              T("n, 3, m", F32), T("1, m", F32));
  CHECK_INFER("R.Tensor((3, m), dtype=\"float32\")", "relax.collapse_sum_to", NULL, 2,
              T("n, 3, m", F32), SH("3, m"));
  CHECK_INFER("R.Tensor((n + T.int64(1),), dtype=\"float32\")", "relax.collapse_sum_to", NULL, 2,
              T("2, n+1", F32), SH("n+1"));
  /* unknown shapes or ranks: nothing to check; the target's shape or rank */
  CHECK_INFER("R.Tensor((5, 1), dtype=\"float32\")", "relax.collapse_sum_to", NULL, 2,
              T("?3", F32), SH("5, 1"));
  CHECK_INFER("R.Tensor((7,), dtype=\"float32\")", "relax.collapse_sum_like", NULL, 2,
              T("*", F32), T("7", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=2)", "relax.collapse_sum_like", NULL, 2,
              T("2, 3, 4", F32), T("?2", F32));
  /* a shape variable of unknown values is the result's shape (upstream's) */
  CHECK_INFER("R.Tensor(a1, dtype=\"float32\", ndim=2)", "relax.collapse_sum_to", NULL, 2,
              T("2, 3, 4", F32), SH("?2"));
  CHECK_INFER("R.Tensor(dtype=\"float32\")", "relax.collapse_sum_like", NULL, 2,
              T("2, 3", F32), T("*", F32));
  CHECK_INFER("R.Tensor((), dtype=\"float32\")", "relax.collapse_sum_to", NULL, 2,
              T("2, 3", F32), SH(""));
}

TEST(collapse_sum_errors) {
  CHECK_INFER_FAILS("ValueError",
                    "relax.collapse_sum_like: argument 'collapse_target' dim 1 (2) must be 1 or "
                    "equal dim 2 of 'data' (4)",
                    "relax.collapse_sum_like", NULL, 2, T("2, 3, 4", F32), T("3, 2", F32));
  CHECK_INFER_FAILS("ValueError",
                    "relax.collapse_sum_to: argument 'shape' dim 0 (m) cannot be shown to equal "
                    "dim 1 of 'data' (n); match_cast them first",
                    "relax.collapse_sum_to", NULL, 2, T("2, n", F32), SH("m"));
  /* a constant target dim against a symbolic data dim is not provable either (upstream) */
  CHECK_INFER_FAILS("ValueError", "argument 'shape' dim 0 (3) cannot be shown to equal dim 0",
                    "relax.collapse_sum_to", NULL, 2, T("n", F32), SH("3"));
  CHECK_INFER_FAILS("ValueError",
                    "relax.collapse_sum_to: argument 'shape' must have ndim <= that of 'data' "
                    "(1), got 2",
                    "relax.collapse_sum_to", NULL, 2, T("?1", F32), SH("?2"));
  CHECK_INFER_FAILS("ValueError", "argument 'collapse_target' must have ndim <= that of 'data'",
                    "relax.collapse_sum_like", NULL, 2, T("3", F32), T("1, 3", F32));
  CHECK_INFER_FAILS("TypeError", "relax.collapse_sum_like: argument 'data' must be a tensor",
                    "relax.collapse_sum_like", NULL, 2, SH("3"), T("3", F32));
  CHECK_INFER_FAILS("TypeError",
                    "relax.collapse_sum_like: argument 'collapse_target' must be a tensor",
                    "relax.collapse_sum_like", NULL, 2, T("3", F32), SH("3"));
  CHECK_INFER_FAILS("TypeError", "relax.collapse_sum_to: argument 'data' must be a tensor",
                    "relax.collapse_sum_to", NULL, 2, SH("3"), SH("3"));
  CHECK_INFER_FAILS("TypeError",
                    "relax.collapse_sum_to: argument 'shape' must be a shape (R.Shape), got "
                    "R.Tensor((3,), dtype=\"float32\")",
                    "relax.collapse_sum_to", NULL, 2, T("3", F32), T("3", F32));
}

int main(void) {
  RUN(reduce_static_axes);
  RUN(reduce_all_axes);
  RUN(reduce_symbolic_and_unknown);
  RUN(reduce_errors);
  RUN(arg_reduce);
  RUN(bucketize);
  RUN(multinomial_from_uniform);
  RUN(scan);
  RUN(collapse_sum);
  RUN(collapse_sum_errors);
  oi_free_vars();
  return test_summary();
}

/*
 * test_op_grad.c: struct info of the gradient operators (grad.no_grad, grad.start_checkpoint,
 * grad.end_checkpoint, grad.nll_loss_backward, grad.max_pool2d_backward,
 * grad.avg_pool2d_backward, grad.take_backward), builtin.stop_lift_params and median, and their
 * errors on bad inputs.
 */
#include "op_infer_testing.h"

#define TS(dims, dt) "R.Tensor((" dims "), dtype=\"" dt "\")"
#define TS1(dims, dt) "R.Tensor((" dims ",), dtype=\"" dt "\")"
#define F "float32"
#define I64 tvm_tir_dtype_int(64)

TEST(markers) {
  CHECK_INFER(TS("2, n", F), "relax.grad.no_grad", NULL, 1, T("2, n", F32));
  CHECK_INFER(TS("2, n", F), "relax.grad.start_checkpoint", NULL, 1, T("2, n", F32));
  CHECK_INFER(TS1("3", "int32"), "relax.grad.end_checkpoint", NULL, 1, T("3", I32));
  CHECK_INFER("R.Shape([4])", "relax.builtin.stop_lift_params", NULL, 1, SH("4"));
  /* A checkpoint marks a variable: a constant is refused. */
  int64_t one = 1;
  void* c = tvm_ffi_tensor_empty(&one, 1, tvm_tir_dtype_float(32), (DLDevice){kDLCPU, 0});
  tvm_relax_expr_obj* k = tvm_relax_constant_new(c, NULL);
  void* args = tvm_ffi_array_of_objects((void*[]){k}, 1);
  tvm_relax_expr_obj* call =
      tvm_relax_call_new(tvm_relax_op(TVM_RELAX_OP_grad_start_checkpoint), args, NULL, NULL, NULL);
  CHECK(call == NULL);
  CHECK_RAISED("TypeError", "relax.grad.start_checkpoint: argument 'input' must be a variable");
  /* no_grad takes any value */
  call = tvm_relax_call_new(tvm_relax_op(TVM_RELAX_OP_grad_no_grad), args, NULL, NULL, NULL);
  CHECK(call != NULL);
  tvm_ffi_release(call);
  tvm_ffi_release(args);
  tvm_ffi_release(k);
  tvm_ffi_release(c);
  CHECK_INFER_FAILS("TypeError", "relax.grad.no_grad takes 1 arguments (input), got 2",
                    "relax.grad.no_grad", NULL, 2, T("2", F32), T("2", F32));
}

TEST(nll_loss_backward) {
  const char* op = "relax.grad.nll_loss_backward";
  /* mean (default): a scalar output gradient; the result is predictions' struct info. */
  CHECK_INFER(TS("4, 5", F), op, NULL, 4, T("", F32), T("4, 5", F32), T("4", I64), T("5", F32));
  CHECK_INFER(TS("n, 5, 3", F), op, oi_attrs(1, "reduction", AS("none")), 3, T("n, 3", F32),
              T("n, 5, 3", F32), T("n, 3", I64));
  CHECK_INFER(TS1("5", F), op, oi_attrs(1, "reduction", AS("sum")), 3, T("", F32), T("5", F32),
              T("", I64));
  /* mean / sum: an output gradient that broadcasts to targets' shape (upstream's kernel
   * broadcasts it): one per target, or of size 1 along a dim. */
  CHECK_INFER(TS("3, 5, 10, 10", F), op, NULL, 4, T("3, 10, 10", F32), T("3, 5, 10, 10", F32),
              T("3, 10, 10", I64), T("5", F32));
  CHECK_INFER(TS("3, 5, 10", F), op, oi_attrs(1, "reduction", AS("sum")), 3, T("1, 10", F32),
              T("3, 5, 10", F32), T("3, 10", I64));
  CHECK_INFER_FAILS("ValueError",
                    "argument 'output_grad' dim 0 is 4, which does not broadcast to 3 of "
                    "'targets'",
                    op, NULL, 3, T("4", F32), T("3, 5", F32), T("3", I64));
  CHECK_INFER_FAILS("ValueError",
                    "argument 'output_grad' must broadcast to the shape of 'targets' (ndim 1), "
                    "got ndim 2",
                    op, NULL, 3, T("1, 3", F32), T("3, 5", F32), T("3", I64));
  CHECK_INFER_FAILS("ValueError",
                    "relax.grad.nll_loss_backward: argument 'output_grad' must have ndim 1 (the "
                    "rank of nll_loss's result), got 0",
                    op, oi_attrs(1, "reduction", AS("none")), 3, T("", F32), T("4, 5", F32),
                    T("4", I64));
  CHECK_INFER_FAILS("ValueError", "argument 'output_grad' dim 0 is 3 but nll_loss's result has 4",
                    op, oi_attrs(1, "reduction", AS("none")), 3, T("3", F32), T("4, 5", F32),
                    T("4", I64));
  CHECK_INFER_FAILS("TypeError",
                    "relax.grad.nll_loss_backward: argument 'targets' must be an "
                    "integer tensor",
                    op, NULL, 3, T("", F32), T("4, 5", F32), T("4", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'weights' has 6 weights but 'predictions' has 5", op,
                    NULL, 4, T("", F32), T("4, 5", F32), T("4", I64), T("6", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'reduction' must be", op,
                    oi_attrs(1, "reduction", AS("max")), 3, T("", F32), T("4, 5", F32),
                    T("4", I64));
  CHECK_INFER_FAILS("TypeError", "argument 'output_grad' must have the dtype of 'predictions'", op,
                    NULL, 3, T("", F16), T("4, 5", F32), T("4", I64));
}

TEST(pool2d_backward) {
  const char* op = "relax.grad.max_pool2d_backward";
  CHECK_INFER(TS("1, 2, 6, 6", F), op,
              oi_attrs(2, "pool_size", AL(2, 2, 2), "strides", AL(2, 2, 2)), 2,
              T("1, 2, 3, 3", F32), T("1, 2, 6, 6", F32));
  CHECK_INFER(
      TS("1, 2, 5, 5", F), "relax.grad.avg_pool2d_backward",
      oi_attrs(3, "pool_size", AL(2, 3, 3), "padding", AL(1, 1), "count_include_pad", AB(true)), 2,
      T("1, 2, 5, 5", F32), T("1, 2, 5, 5", F32));
  /* Symbolic spatial dims: not provably unequal, accepted. */
  CHECK_INFER(TS("1, 2, h, w", F), op, NULL, 2, T("1, 2, a, b", F32), T("1, 2, h, w", F32));
  CHECK_INFER_FAILS("ValueError",
                    "relax.grad.max_pool2d_backward: argument 'output_grad' dim 2 is 4 but "
                    "max_pool2d's result has 3 there",
                    op, oi_attrs(2, "pool_size", AL(2, 2, 2), "strides", AL(1, 2)), 2,
                    T("1, 2, 4, 3", F32), T("1, 2, 6, 6", F32));
  CHECK_INFER_FAILS("ValueError", "relax.grad.max_pool2d_backward: argument 'data'", op, NULL, 2,
                    T("1, 2, 6", F32), T("1, 2, 6", F32));
  CHECK_INFER_FAILS("TypeError", "relax.grad.avg_pool2d_backward: argument 'data' must be a float",
                    "relax.grad.avg_pool2d_backward", NULL, 2, T("1, 1, 2, 2", I32),
                    T("1, 1, 2, 2", I32));
  CHECK_INFER_FAILS("TypeError", "argument 'output_grad' must be a tensor", op, NULL, 2, SH("1"),
                    T("1, 1, 2, 2", F32));
}

TEST(take_backward) {
  const char* op = "relax.grad.take_backward";
  CHECK_INFER(TS1("10", F), op, NULL, 3, T("4", F32), T("10", F32), T("4", I64));
  CHECK_INFER(TS("3, 10, 2", F), op, oi_attrs(1, "axis", AI(1)), 3, T("3, 4, 2", F32),
              T("3, 10, 2", F32), T("4", I32));
  CHECK_INFER(TS("3, 10", F), op, oi_attrs(1, "axis", AI(-1)), 3, T("3", F32), T("3, 10", F32),
              T("", I64));
  CHECK_INFER_FAILS("ValueError", "argument 'output_grad' dim 1 is 5 but take's result has 4", op,
                    oi_attrs(1, "axis", AI(1)), 3, T("3, 5", F32), T("3, 10", F32), T("4", I64));
  CHECK_INFER_FAILS("ValueError", "argument 'x' must be 1-d when attribute 'axis' is None", op,
                    NULL, 3, T("4", F32), T("3, 10", F32), T("4", I64));
  CHECK_INFER_FAILS("ValueError", "argument 'indices' must have ndim 0 or 1, got 2", op,
                    oi_attrs(1, "axis", AI(0)), 3, T("2, 2", F32), T("10", F32), T("2, 2", I64));
  CHECK_INFER_FAILS("TypeError", "argument 'indices' must be an integer tensor", op, NULL, 3,
                    T("4", F32), T("10", F32), T("4", F32));
  CHECK_INFER_FAILS("ValueError", "relax.grad.take_backward: axis 2 is out of range", op,
                    oi_attrs(1, "axis", AI(2)), 3, T("4", F32), T("3, 10", F32), T("4", I64));
}

TEST(median) {
  const char* op = "relax.median";
  /* axis None: the median of every element. */
  CHECK_INFER(TS("", F), op, NULL, 1, T("3, 4", F32));
  CHECK_INFER(TS("1, 1", F), op, oi_attrs(1, "keepdims", AB(true)), 1, T("3, 4", F32));
  /* One axis: values and their int64 indices. */
  CHECK_INFER("R.Tuple(" TS1("3", F) ", " TS1("3", "int64") ")", op, oi_attrs(1, "axis", AL(1, 1)),
              1, T("3, 4", F32));
  CHECK_INFER("R.Tuple(" TS("n, 1", F) ", " TS("n, 1", "int64") ")", op,
              oi_attrs(2, "axis", AL(1, -1), "keepdims", AB(true)), 1, T("n, 4", F32));
  /* Several axes: the values only. */
  CHECK_INFER(TS1("5", F), op, oi_attrs(1, "axis", AL(2, 0, 2)), 1, T("3, 5, 4", F32));
  CHECK_INFER_FAILS("ValueError", "relax.median: axis 2 is out of range", op,
                    oi_attrs(1, "axis", AL(1, 2)), 1, T("3, 4", F32));
  CHECK_INFER_FAILS("ValueError", "names axis 0 more than once", op,
                    oi_attrs(1, "axis", AL(2, 0, -2)), 1, T("3, 4", F32));
  CHECK_INFER_FAILS("TypeError", "relax.median: argument 'x' must be a tensor", op, NULL, 1,
                    SH("3"));
}

int main(void) {
  RUN(markers);
  RUN(nll_loss_backward);
  RUN(pool2d_backward);
  RUN(take_backward);
  RUN(median);
  oi_free_vars();
  return test_summary();
}

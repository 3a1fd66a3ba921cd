/*
 * serve.c: serving a model library from C with libvm + libtvmffi only.
 *
 *   ./serve model.so
 *
 * Loads the library (its kernels plus the VM executable in its __tvm_ffi__library_bin), creates a
 * VM on the CPU, calls main(x, w0, b0, w1, b1) on tensors it makes and prints the result. The
 * model is model.py's softmax(relu(x @ w0 + b0) @ w1 + b1), built by `tvmc build model.py`; the
 * result is also checked against the same formula in plain C, so that a wrong answer fails (exit
 * status 1).
 *
 * The program must export its tvm-ffi symbols to the library it loads: link with -rdynamic.
 */
#include <math.h>
#include <stdio.h>
#include <tvm/vm/vm.h>

enum { N = 3, K = 4, H = 8, M = 3 };

static int fail(const char* what) {
  void* err = tvm_ffi_error_take();
  fprintf(stderr, "serve: %s: %s: %s\n", what, err ? tvm_ffi_error_kind(err) : "error",
          err ? tvm_ffi_error_message(err) : "unknown");
  tvm_ffi_release(err);
  return 1;
}

/* A new CPU float32 tensor of the given shape filled with data. */
static void* tensor(int ndim, const int64_t* shape, const float* data) {
  void* t = tvm_ffi_tensor_empty(shape, ndim, (DLDataType){kDLFloat, 32, 1}, (DLDevice){kDLCPU, 0});
  if (!t) return NULL;
  float* p = tvm_ffi_tensor_dl(t)->data;
  for (int64_t i = 0; i < tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(t)); ++i) p[i] = data[i];
  return t;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s model.so\n", argv[0]);
    return 2;
  }
  float x[N * K], w0[K * H], b0[H], w1[H * M], b1[M];
  for (int i = 0; i < N * K; ++i) x[i] = (float)(i % 5) * 0.25f - 0.5f;
  for (int i = 0; i < K * H; ++i) w0[i] = (float)((i * 7) % 11) * 0.1f - 0.5f;
  for (int i = 0; i < H; ++i) b0[i] = 0.05f * (float)(i % 3);
  for (int i = 0; i < H * M; ++i) w1[i] = (float)((i * 5) % 9) * 0.1f - 0.4f;
  for (int i = 0; i < M; ++i) b1[i] = 0.1f * (float)i;

  tvm_vm_executable* exec = tvm_vm_executable_load_file(argv[1]);
  if (!exec) return fail("loading the model");
  tvm_vm* vm = tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1);
  tvm_vm_executable_release(exec); /* the VM holds it */
  if (!vm) return fail("creating the VM");

  int64_t sx[2] = {N, K}, sw0[2] = {K, H}, sb0[1] = {H}, sw1[2] = {H, M}, sb1[1] = {M};
  void* t[5] = {tensor(2, sx, x), tensor(2, sw0, w0), tensor(1, sb0, b0), tensor(2, sw1, w1),
                tensor(1, sb1, b1)};
  TVMFFIAny args[5];
  for (int i = 0; i < 5; ++i) {
    if (!t[i]) return fail("making the inputs");
    args[i] = tvm_ffi_any_obj(t[i]);
  }
  TVMFFIAny out = tvm_ffi_any_none();
  if (tvm_vm_invoke(vm, "main", args, 5, &out) != 0) return fail("calling main");
  const DLTensor* y = out.type_index == kTVMFFITensor ? tvm_ffi_tensor_dl(out.v_obj) : NULL;
  if (!y || y->ndim != 2 || y->shape[0] != N || y->shape[1] != M) {
    fprintf(stderr, "serve: main returned %s, not a (%d, %d) tensor\n",
            tvm_ffi_any_type_name(&out), N, M);
    return 1;
  }

  int bad = 0;
  printf("main(x, w0, b0, w1, b1) = softmax(relu(x @ w0 + b0) @ w1 + b1), shape (%lld, %lld):\n",
         (long long)y->shape[0], (long long)y->shape[1]);
  for (int i = 0; i < N; ++i) {
    double h[H], ref[M], mx = -INFINITY, sum = 0;
    for (int j = 0; j < H; ++j) {
      h[j] = b0[j];
      for (int k = 0; k < K; ++k) h[j] += (double)x[i * K + k] * w0[k * H + j];
      if (h[j] < 0) h[j] = 0;
    }
    for (int j = 0; j < M; ++j) {
      ref[j] = b1[j];
      for (int k = 0; k < H; ++k) ref[j] += h[k] * w1[k * M + j];
      if (ref[j] > mx) mx = ref[j];
    }
    for (int j = 0; j < M; ++j) sum += (ref[j] = exp(ref[j] - mx));
    for (int j = 0; j < M; ++j) {
      float got = ((const float*)y->data)[i * M + j];
      printf(" %.6f", got);
      if (fabs(got - ref[j] / sum) > 1e-5) ++bad;
    }
    printf("\n");
  }
  tvm_ffi_any_release(&out);
  for (int i = 0; i < 5; ++i) tvm_ffi_release(t[i]);
  tvm_vm_release(vm);
  if (bad) {
    fprintf(stderr, "serve: %d values differ from the C reference\n", bad);
    return 1;
  }
  printf("matches the C reference\n");
  return 0;
}

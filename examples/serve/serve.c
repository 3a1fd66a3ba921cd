/*
 * serve.c: serving a model library from C with libvm + libtvmffi only.
 *
 *   ./serve model.so
 *
 * Loads the library (its kernels plus the VM executable in its __tvm_ffi__library_bin), creates a
 * VM on the CPU, calls main(x, w, b) on tensors it makes and prints the result. The model is
 * make_model.c's softmax(x @ w + b); the result is also checked against the same formula in
 * plain C, so that a wrong answer fails (exit status 1).
 *
 * The program must export its tvm-ffi symbols to the library it loads: link with -rdynamic.
 */
#include <math.h>
#include <stdio.h>
#include <tvm/vm/vm.h>

enum { N = 3, K = 4, M = 3 };

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
  float x[N * K], w[K * M], b[M];
  for (int i = 0; i < N * K; ++i) x[i] = (float)(i % 5) * 0.25f - 0.5f;
  for (int i = 0; i < K * M; ++i) w[i] = (float)((i * 7) % 11) * 0.1f - 0.5f;
  for (int i = 0; i < M; ++i) b[i] = 0.1f * (float)i;

  tvm_vm_executable* exec = tvm_vm_executable_load_file(argv[1]);
  if (!exec) return fail("loading the model");
  tvm_vm* vm = tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1);
  tvm_vm_executable_release(exec); /* the VM holds it */
  if (!vm) return fail("creating the VM");

  int64_t sx[2] = {N, K}, sw[2] = {K, M}, sb[1] = {M};
  void* tx = tensor(2, sx, x);
  void* tw = tensor(2, sw, w);
  void* tb = tensor(1, sb, b);
  if (!tx || !tw || !tb) return fail("making the inputs");
  TVMFFIAny args[3] = {tvm_ffi_any_obj(tx), tvm_ffi_any_obj(tw), tvm_ffi_any_obj(tb)};
  TVMFFIAny out = tvm_ffi_any_none();
  if (tvm_vm_invoke(vm, "main", args, 3, &out) != 0) return fail("calling main");
  const DLTensor* y = out.type_index == kTVMFFITensor ? tvm_ffi_tensor_dl(out.v_obj) : NULL;
  if (!y || y->ndim != 2 || y->shape[0] != N || y->shape[1] != M) {
    fprintf(stderr, "serve: main returned %s, not a (%d, %d) tensor\n",
            tvm_ffi_any_type_name(&out), N, M);
    return 1;
  }

  int bad = 0;
  printf("main(x, w, b) = softmax(x @ w + b), shape (%lld, %lld):\n", (long long)y->shape[0],
         (long long)y->shape[1]);
  for (int i = 0; i < N; ++i) {
    double ref[M], mx = -INFINITY, sum = 0;
    for (int j = 0; j < M; ++j) {
      ref[j] = b[j];
      for (int k = 0; k < K; ++k) ref[j] += (double)x[i * K + k] * w[k * M + j];
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
  tvm_ffi_release(tx), tvm_ffi_release(tw), tvm_ffi_release(tb);
  tvm_vm_release(vm);
  if (bad) {
    fprintf(stderr, "serve: %d values differ from the C reference\n", bad);
    return 1;
  }
  printf("matches the C reference\n");
  return 0;
}

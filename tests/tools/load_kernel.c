/*
 * load_kernel.c: the C program a user of `tvmc build` writes. Loads LIB.so (built from
 * examples/add.py by test_tvmc.sh) through the FFI module loader and calls its kernels:
 *
 *   load_kernel LIB.so
 *
 * add_n on n = 1003 (8-lane body and a 3-element tail) must give exactly A + B; a call with a
 * wrong dtype must fail with the packed API's ValueError, and so must shapes that n (int32)
 * cannot hold or that are negative; main must be there too.
 */
#include <stdlib.h>
#include <tvm/ffi/ffi.h>

#include "test_util.h"

static const char* g_lib;

static DLTensor vec(void* data, int64_t* n, DLDataType dtype) {
  DLTensor t = {0};
  t.data = data;
  t.device = (DLDevice){kDLCPU, 0};
  t.ndim = 1;
  t.dtype = dtype;
  t.shape = n;
  return t;
}

TEST(add_n_adds) {
  void* mod = tvm_ffi_module_load_file(g_lib);
  CHECK(mod != NULL);
  if (!mod) return;
  void* fn = NULL;
  CHECK_EQ_INT(tvm_ffi_module_get_function(mod, "add_n", false, &fn), 0);
  CHECK(fn != NULL);
  void* main_fn = NULL;
  CHECK_EQ_INT(tvm_ffi_module_get_function(mod, "main", false, &main_fn), 0);
  CHECK(main_fn != NULL);
  if (fn) {
    enum { N = 1003 };
    int64_t n = N;
    float* a = calloc(N, sizeof(float));
    float* b = calloc(N, sizeof(float));
    float* c = calloc(N, sizeof(float));
    for (int i = 0; i < N; ++i) {
      a[i] = 0.5f * (float)i;
      b[i] = 1.0f - (float)i;
      c[i] = -7.0f;
    }
    DLDataType f32 = tvm_ffi_dtype(kDLFloat, 32, 1);
    DLTensor ta = vec(a, &n, f32), tb = vec(b, &n, f32), tc = vec(c, &n, f32);
    TVMFFIAny args[3] = {tvm_ffi_any_dltensor(&ta), tvm_ffi_any_dltensor(&tb),
                         tvm_ffi_any_dltensor(&tc)};
    TVMFFIAny ret;
    CHECK_EQ_INT(tvm_ffi_function_call(fn, args, 3, &ret), 0);
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += c[i] != a[i] + b[i];
    CHECK_EQ_INT(bad, 0);
    /* The entry point checks its arguments: int32 data for a float32 buffer is refused. */
    DLTensor wrong = vec(c, &n, tvm_ffi_dtype(kDLInt, 32, 1));
    args[2] = tvm_ffi_any_dltensor(&wrong);
    CHECK_EQ_INT(tvm_ffi_function_call(fn, args, 3, &ret), -1);
    CHECK_RAISED("ValueError", "float32");
    /* A shape that int32 n cannot hold (2**32 - 5 would be n = -5, and the tail loop would
     * write 3 floats before C) and a negative one are refused; C is left alone. */
    args[2] = tvm_ffi_any_dltensor(&tc);
    for (int i = 0; i < N; ++i) c[i] = -7.0f;
    int64_t wide = ((int64_t)1 << 32) - 5, neg = -5;
    ta.shape = tb.shape = tc.shape = &wide;
    tc.data = c + 8;
    CHECK_EQ_INT(tvm_ffi_function_call(fn, args, 3, &ret), -1);
    CHECK_RAISED("ValueError", "4294967291 does not fit variable 'n' of type int32");
    ta.shape = tb.shape = tc.shape = &neg;
    CHECK_EQ_INT(tvm_ffi_function_call(fn, args, 3, &ret), -1);
    CHECK_RAISED("ValueError", "expected a non-negative extent, got -5");
    int touched = 0;
    for (int i = 0; i < N; ++i) touched += c[i] != -7.0f;
    CHECK_EQ_INT(touched, 0);
    free(a);
    free(b);
    free(c);
  }
  tvm_ffi_release(fn);
  tvm_ffi_release(main_fn);
  tvm_ffi_release(mod);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: load_kernel LIB.so\n");
    return 2;
  }
  g_lib = argv[1];
  RUN(add_n_adds);
  return test_summary();
}

/*
 * gpu_modes.h: the three ways a GPU test binary runs, by its argv[1]:
 *   missing  no driver (TVM_VM_LIBCUDA names a file that does not exist)
 *   real     the machine's libcuda.so.1 (skipped, exit 77, where there is none)
 *   fake     (the default) tests/vm's fake driver named by TVM_VM_LIBCUDA, opened into g_fake so
 *            that the test can read what it recorded through FAKE(type, symbol)
 */
#ifndef TVM_TESTS_GPU_GPU_MODES_H_
#define TVM_TESTS_GPU_GPU_MODES_H_

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { GPU_MODE_FAKE, GPU_MODE_MISSING, GPU_MODE_REAL } gpu_mode;

static void* g_fake;
#define FAKE(type, name) ((type)dlsym(g_fake, name))

/* Set up argv[1]'s mode into *mode: 0 to run its tests, else the exit status (77: "real" without
 * a driver, a skip; 1: "fake" without the fake driver). */
static inline int gpu_mode_setup(int argc, char** argv, gpu_mode* mode) {
  const char* m = argc > 1 ? argv[1] : "fake";
  if (strcmp(m, "missing") == 0) {
    *mode = GPU_MODE_MISSING;
    setenv("TVM_VM_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    return 0;
  }
  if (strcmp(m, "real") == 0) {
    *mode = GPU_MODE_REAL;
    unsetenv("TVM_VM_LIBCUDA");
    void* cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cu) {
      printf("SKIP: no CUDA driver (libcuda.so.1): %s\n", dlerror());
      return 77;
    }
    dlclose(cu);
    return 0;
  }
  *mode = GPU_MODE_FAKE;
  g_fake = getenv("TVM_VM_LIBCUDA") ? dlopen(getenv("TVM_VM_LIBCUDA"), RTLD_NOW) : NULL;
  if (!g_fake) {
    fprintf(stderr, "TVM_VM_LIBCUDA must name the fake driver\n");
    return 1;
  }
  return 0;
}

#endif /* TVM_TESTS_GPU_GPU_MODES_H_ */

/*
 * script_print_bench.c: TVMScript printing throughput (MB of text per second) on a large
 * generated PrimFunc. Baseline, measured in the same run: copying the same number of bytes
 * through a tvm_ffi_strbuf in 64-byte appends (the floor of producing that much text).
 */
#include <string.h>
#include <tvm/script/printer.h>

#include "../tests/tir/tir_testing.h"
#include "bench_util.h"

int main(int argc, char** argv) {
  int64_t n = argc > 1 ? atoll(argv[1]) : 10000;
  void* f = tvm_tir_testing_make_large_func(n);
  if (!f) return 1;
  TVMFFIAny fa = tvm_ffi_any_obj(f);
  double best = 1e30;
  size_t bytes = 0;
  for (int r = 0; r < 3; ++r) {
    tvm_ffi_strbuf out = {0};
    double t0 = bench_now_ns();
    if (tvm_script_print_to(&fa, NULL, &out) != 0) {
      void* e = tvm_ffi_error_take();
      printf("!! print failed: %s\n", e ? tvm_ffi_error_message(e) : "?");
      return 1;
    }
    double t = bench_now_ns() - t0;
    if (t < best) best = t;
    bytes = out.size;
    tvm_ffi_strbuf_free(&out);
  }
  char chunk[64];
  memset(chunk, 'x', sizeof(chunk));
  tvm_ffi_strbuf copy = {0};
  double t0 = bench_now_ns();
  for (size_t done = 0; done < bytes; done += sizeof(chunk)) tvm_ffi_strbuf_append(&copy, chunk, sizeof(chunk));
  double t_copy = bench_now_ns() - t0;
  tvm_ffi_strbuf_free(&copy);
  printf("PrimFunc of %lld statements -> %.1f MB of TVMScript (best of 3)\n\n", (long long)n,
         (double)bytes / 1e6);
  printf("| %-36s | %10s | %10s |\n", "pass", "ms", "MB/s");
  printf("|--------------------------------------|------------|------------|\n");
  printf("| %-36s | %10.1f | %10.1f |\n", "baseline: strbuf appends, same bytes", t_copy / 1e6,
         (double)bytes / 1e6 / (t_copy / 1e9));
  printf("| %-36s | %10.1f | %10.1f |\n", "print (IR -> Doc -> text)", best / 1e6,
         (double)bytes / 1e6 / (best / 1e9));
  tvm_ffi_release(f);
  return 0;
}

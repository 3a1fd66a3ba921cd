/*
 * tir_bench.c: building and checking a large generated PrimFunc: nodes per second for
 * construction, structural hash, structural equality (against an independently built copy)
 * and the JSON round trip. The baseline column is a plain walk of the same graph through the
 * FFI containers' reflection (counting nodes), measured in the same run: the floor of any
 * whole-graph pass.
 */
#include <tvm/tir/tir.h>

#include "../tests/tir/tir_testing.h"
#include "bench_util.h"

/* Count the nodes reachable through reflected object fields and arrays (a baseline pass). */
static int64_t count_nodes(const TVMFFIAny* v, int depth) {
  if (v->type_index < kTVMFFIStaticObjectBegin || depth > 100000) return 0;
  void* o = v->v_obj;
  int32_t t = tvm_ffi_type_index(o);
  if (t == kTVMFFIArray || t == kTVMFFIList) {
    int64_t n = 1;
    for (int64_t i = 0; i < tvm_ffi_seq_size(o); ++i) n += count_nodes(tvm_ffi_seq_at(o, i), depth + 1);
    return n;
  }
  if (t == kTVMFFIMap || t == kTVMFFIDict) {
    int64_t n = 1;
    const TVMFFIAny *k, *val;
    for (int64_t pos = tvm_ffi_map_next(o, 0, &k, &val); pos >= 0;
         pos = tvm_ffi_map_next(o, pos, &k, &val)) {
      n += count_nodes(k, depth + 1) + count_nodes(val, depth + 1);
    }
    return n;
  }
  const TVMFFIFieldInfo* const* fields;
  int32_t nf = tvm_ffi_type_all_fields(t, &fields);
  int64_t n = 1;
  for (int32_t i = 0; i < nf; ++i) {
    TVMFFIAny fv;
    if (tvm_ffi_field_get(o, fields[i], &fv) != 0) {
      tvm_ffi_error_clear();
      continue;
    }
    n += count_nodes(&fv, depth + 1);
    tvm_ffi_any_release(&fv);
  }
  return n;
}

int main(int argc, char** argv) {
  int64_t n = argc > 1 ? atoll(argv[1]) : 20000;
  double t0 = bench_now_ns();
  void* f = tvm_tir_testing_make_large_func(n);
  double t_build = bench_now_ns() - t0;
  void* g = tvm_tir_testing_make_large_func(n);
  if (!f || !g) {
    void* e = tvm_ffi_error_take();
    printf("!! could not build the function: %s\n", e ? tvm_ffi_error_message(e) : "?");
    return 1;
  }
  TVMFFIAny fa = tvm_ffi_any_obj(f), ga = tvm_ffi_any_obj(g);

  t0 = bench_now_ns();
  int64_t nodes = count_nodes(&fa, 0);
  double t_walk = bench_now_ns() - t0;

  t0 = bench_now_ns();
  uint64_t h = tvm_ffi_structural_hash(&fa, false);
  double t_hash = bench_now_ns() - t0;

  t0 = bench_now_ns();
  int eq = tvm_ffi_structural_equal(&fa, &ga, false, NULL, NULL);
  double t_eq = bench_now_ns() - t0;

  tvm_ffi_strbuf json = {0};
  t0 = bench_now_ns();
  int saved = tvm_ffi_json_save(&fa, &json);
  double t_save = bench_now_ns() - t0;
  TVMFFIAny loaded = tvm_ffi_any_none();
  t0 = bench_now_ns();
  int loaded_ok = saved == 0 ? tvm_ffi_json_load(json.data, json.size, &loaded) : -1;
  double t_load = bench_now_ns() - t0;

  printf("PrimFunc of %lld statements, %lld nodes (hash %016llx, equal to its copy: %s)\n\n",
         (long long)n, (long long)nodes, (unsigned long long)h, eq == 1 ? "yes" : "NO");
  printf("| %-34s | %10s | %14s |\n", "pass", "ms", "Mnodes/s");
  printf("|------------------------------------|------------|----------------|\n");
#define ROW(name, ns) \
  printf("| %-34s | %10.1f | %14.2f |\n", name, (ns) / 1e6, (double)nodes / ((ns) / 1e9) / 1e6)
  ROW("baseline: reflective node walk", t_walk);
  ROW("construction (builder + typing)", t_build);
  ROW("structural hash", t_hash);
  ROW("structural equality", t_eq);
  if (saved == 0) ROW("JSON save", t_save);
  if (loaded_ok == 0) ROW("JSON load", t_load);
  printf("\nJSON size: %.1f MB\n", (double)json.size / 1e6);
  tvm_ffi_strbuf_free(&json);
  tvm_ffi_any_release(&loaded);
  tvm_ffi_error_clear();
  tvm_ffi_release(f);
  tvm_ffi_release(g);
  return 0;
}

/*
 * relax_bench.c: building Relax models with the BlockBuilder (every binding's struct info
 * inferred at construction), then hashing and comparing them structurally.
 *
 *   relax_bench [LAYERS]        (default 48: a transformer of about 50,000 bindings)
 *
 * The baseline is the same model at a quarter of the layers, built in the same run: the cost per
 * binding must not grow with the model (a pass or builder step quadratic in the program would
 * show as a ratio well above 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <tvm/relax/relax.h>

#include "bench_util.h"
#include "relax_models.h"

typedef struct {
  int layers;
  int64_t bindings;
  double build_ns, hash_ns, equal_ns;
  uint64_t hash;
} row;

static int measure(int layers, row* r) {
  const int heads = 128;
  r->layers = layers;
  r->bindings = relax_models_transformer_bindings(layers, heads);
  double t0 = bench_now_ns();
  tvm_tir_ir_module_obj* a = relax_models_transformer(layers, heads, 64, 1024);
  r->build_ns = bench_now_ns() - t0;
  tvm_tir_ir_module_obj* b = a ? relax_models_transformer(layers, heads, 64, 1024) : NULL;
  if (!a || !b) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "relax_bench: building failed: %s: %s\n", e ? tvm_ffi_error_kind(e) : "?",
            e ? tvm_ffi_error_message(e) : "");
    tvm_ffi_release(e);
    tvm_ffi_release(a);
    return -1;
  }
  TVMFFIAny va = tvm_ffi_any_obj(a), vb = tvm_ffi_any_obj(b);
  t0 = bench_now_ns();
  r->hash = tvm_ffi_structural_hash(&va, false);
  r->hash_ns = bench_now_ns() - t0;
  t0 = bench_now_ns();
  int eq = tvm_ffi_structural_equal(&va, &vb, false, NULL, NULL);
  r->equal_ns = bench_now_ns() - t0;
  int rc = eq == 1 && r->hash == tvm_ffi_structural_hash(&vb, false) ? 0 : -1;
  if (rc) fprintf(stderr, "relax_bench: two builds of one model differ (equal=%d)\n", eq);
  tvm_ffi_release(a);
  tvm_ffi_release(b);
  return rc;
}

int main(int argc, char** argv) {
  int layers = argc > 1 ? atoi(argv[1]) : 48;
  if (layers < 4) layers = 4;
  row base, big;
  if (measure(layers / 4, &base) != 0 || measure(layers, &big) != 0) return 1;
  printf("%-34s %10s %12s %14s %12s %12s\n", "model (transformer, 128 heads)", "bindings",
         "build ms", "bindings/s", "hash ms", "equal ms");
  const row* rows[2] = {&base, &big};
  for (int i = 0; i < 2; ++i) {
    const row* r = rows[i];
    char name[64];
    snprintf(name, sizeof(name), "%d layers%s", r->layers, i == 0 ? " (baseline)" : "");
    printf("%-34s %10lld %12.1f %14.0f %12.1f %12.1f\n", name, (long long)r->bindings,
           r->build_ns / 1e6, r->bindings / (r->build_ns / 1e9), r->hash_ns / 1e6,
           r->equal_ns / 1e6);
  }
  double per_base = base.build_ns / base.bindings, per_big = big.build_ns / big.bindings;
  printf("build cost per binding, %d vs %d layers: %.2fx (1.0 = linear)\n", big.layers,
         base.layers, per_big / per_base);
  /* (Operators, unique instances, hash by identity: the value differs between processes; two
   * builds in one process are checked to hash alike.) */
  printf("structural hash of the %d-layer model: %016llx (this process)\n", big.layers,
         (unsigned long long)big.hash);
  return 0;
}

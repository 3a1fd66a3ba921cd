/* fuzz_relax_pipeline.c: libFuzzer target for librelax's passes on every Relax module the
 * TVMScript parser accepts. For a module with public Relax functions:
 *   - the build pipeline (tvm_relax_build_pipeline) returns a module or raises an error, and in
 *     a debug build no pass's result may fail the well-formedness check;
 *   - each public function whose parameters are tensors of supported dtype with dims that are
 *     integers or symbolic variables (given 1..4, the same value wherever a variable appears),
 *     or integer PrimValues, is evaluated (tvm/relax/eval.h) on random arguments after
 *     LegalizeOps alone (the reference, as `tvmc run` checks a model) and after the whole
 *     pipeline: if the reference runs, the pipeline's module must run too and give the same
 *     values (floats within a relative 1e-4, NaN equal to NaN).
 * A violation traps (libFuzzer reports it with the input). Seeds: tests/corpus/relax
 * (run-fuzzers.sh passes it) and the dictionary tests/fuzz/tvmscript.dict. The replay test
 * (relax_pipeline_replay) runs it over the corpus in every build. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/relax/transform.h>
#include <tvm/script/parser.h>
#include <tvm/tir/tir.h>
#include <tvm/vm/vm.h>

/* Evaluation is skipped for functions that would take long in the TIR interpreter of a
 * sanitized debug build (libFuzzer's timeout, and CI's short runs): more than MAX_ELEMS
 * elements in one parameter, or more than MAX_WORK in the parameters and the top-level
 * bindings' tensors together (a proxy for the kernels' work). */
enum { MAX_PARAMS = 16, MAX_ELEMS = 1024, MAX_WORK = 2048 };
/* Functions evaluated per input: the libFuzzer build (FUZZ_MAX_EVALS, see CMakeLists.txt) takes
 * a few, chosen by the input's hash so that mutants of one module try different ones; the replay
 * over the corpus takes all. */
#ifndef FUZZ_MAX_EVALS
#define FUZZ_MAX_EVALS 1000000
#endif

static void fail(const char* what, const char* detail) {
  fprintf(stderr, "fuzz_relax_pipeline: %s\n%s\n", what, detail ? detail : "");
  __builtin_trap();
}

static uint64_t g_rng;
static uint64_t next_random(void) { /* splitmix64 */
  uint64_t z = (g_rng += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static bool supported(DLDataType t) {
  if (t.lanes != 1) return false;
  if (t.code == kDLFloat) return t.bits == 32 || t.bits == 64;
  if (t.code == kDLInt) return t.bits == 32 || t.bits == 64;
  return t.code == kDLUInt && t.bits == 1; /* bool */
}

/* A random tensor of dtype t and the given dims: floats k/16 in [-4, 4], integers in [0, 4)
 * (so that most index arguments are in range), bools 0/1. NULL when not supported. */
static void* random_tensor(DLDataType t, int ndim, const int64_t* dims) {
  int64_t n = 1;
  for (int i = 0; i < ndim; ++i) {
    if (dims[i] < 0 || dims[i] > MAX_ELEMS || (n *= dims[i]) > MAX_ELEMS) return NULL;
  }
  void* x = tvm_ffi_tensor_empty(dims, ndim, t, (DLDevice){kDLCPU, 0});
  if (!x) return NULL;
  char* p = (char*)tvm_ffi_tensor_dl(x)->data;
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = (int64_t)(next_random() % 129) - 64;
    if (t.code == kDLFloat && t.bits == 32) ((float*)p)[i] = (float)r / 16.0f;
    if (t.code == kDLFloat && t.bits == 64) ((double*)p)[i] = (double)r / 16.0;
    if (t.code == kDLInt && t.bits == 32) ((int32_t*)p)[i] = (int32_t)(r & 3);
    if (t.code == kDLInt && t.bits == 64) ((int64_t*)p)[i] = r & 3;
    if (t.code == kDLUInt) ((uint8_t*)p)[i] = (uint8_t)(r & 1);
  }
  return x;
}

/* Values of the symbolic variables met in the parameters' dims, in order of appearance. */
typedef struct {
  const void* var[16];
  int64_t value[16];
  int n;
} sym_values;

/* The value of dim d: an integer, or a variable given the next random value on first sight;
 * false for anything else. */
static bool dim_value(sym_values* sv, const void* d, int64_t* out) {
  if (tvm_tir_as_const_int(d, out)) return true;
  if (!tvm_tir_is_var(d)) return false;
  for (int i = 0; i < sv->n; ++i) {
    if (sv->var[i] == d) return (*out = sv->value[i]), true;
  }
  if (sv->n == 16) return false;
  sv->var[sv->n] = d;
  *out = sv->value[sv->n++] = 1 + (int64_t)(next_random() % 4);
  return true;
}

/* The elements of a tensor struct info whose dims are integers or variables of sv (what they
 * would be with those values), or -1. */
static int64_t sinfo_elems(sym_values* sv, const tvm_relax_sinfo_obj* s) {
  if (!s || tvm_relax_kind_of(s) != TVM_RELAX_KIND_TensorStructInfo) return 0;
  void* dims = tvm_relax_tensor_sinfo_dims(s);
  int64_t n = 1, d;
  for (int64_t k = 0; dims && k < tvm_ffi_seq_size(dims); ++k) {
    if (!dim_value(sv, tvm_ffi_seq_obj_at(dims, k), &d) || d < 0 || d > MAX_WORK) return -1;
    if ((n *= d) > MAX_WORK) return -1;
  }
  return dims ? n : -1;
}

/* Whether fn looks cheap enough to evaluate (MAX_WORK), given the parameters' values sv. */
static bool cheap(const tvm_relax_function_obj* fn, sym_values* sv) {
  int64_t work = 0;
  for (int64_t i = 0; i < tvm_ffi_seq_size(fn->params); ++i) {
    const void* var = tvm_ffi_seq_obj_at(fn->params, i);
    int64_t e = sinfo_elems(sv, ((const tvm_tir_relax_expr_obj*)var)->struct_info_);
    if (e < 0 || (work += e) > MAX_WORK) return false;
  }
  if (tvm_relax_kind_of(fn->body) != TVM_RELAX_KIND_SeqExpr) return false;
  const tvm_relax_seq_expr_obj* seq = (const void*)fn->body;
  for (int64_t b = 0; b < tvm_ffi_seq_size(seq->blocks); ++b) {
    const tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(seq->blocks, b);
    for (int64_t i = 0; i < tvm_ffi_seq_size(blk->bindings); ++i) {
      const tvm_relax_binding_obj* bd = tvm_ffi_seq_obj_at(blk->bindings, i);
      int64_t e = sinfo_elems(sv, ((const tvm_tir_relax_expr_obj*)bd->var)->struct_info_);
      if (e < 0 || (work += e) > MAX_WORK) return false;
    }
  }
  return true;
}

/* Random arguments for fn's parameters (owned by args), or -1 when a parameter is not a tensor
 * of supported dtype and dims (dim_value) or an integer PrimValue, or fn is not cheap. */
static int make_args(const tvm_relax_function_obj* fn, TVMFFIAny* args) {
  int64_t n = tvm_ffi_seq_size(fn->params);
  if (n > MAX_PARAMS) return -1;
  sym_values sv = {.n = 0};
  for (int64_t i = 0; i < n; ++i) {
    const void* var = tvm_ffi_seq_obj_at(fn->params, i);
    const tvm_relax_sinfo_obj* s = ((const tvm_tir_relax_expr_obj*)var)->struct_info_;
    args[i] = tvm_ffi_any_none();
    if (s && tvm_relax_kind_of(s) == TVM_RELAX_KIND_TensorStructInfo) {
      const tvm_relax_tensor_sinfo_obj* t = (const void*)s;
      void* dims = tvm_relax_tensor_sinfo_dims(s);
      int64_t d[8];
      bool ok = dims && supported(t->dtype) && tvm_ffi_seq_size(dims) <= 8;
      for (int64_t k = 0; ok && k < tvm_ffi_seq_size(dims); ++k) {
        ok = dim_value(&sv, tvm_ffi_seq_obj_at(dims, k), &d[k]);
      }
      void* x = ok ? random_tensor(t->dtype, (int)tvm_ffi_seq_size(dims), d) : NULL;
      if (x) args[i] = tvm_ffi_any_obj(x); /* (the reference passes to args) */
    } else if (s && tvm_relax_kind_of(s) == TVM_RELAX_KIND_PrimStructInfo) {
      const tvm_relax_prim_sinfo_obj* p = (const void*)s;
      int64_t v = 1 + (int64_t)(next_random() % 4);
      if (p->dtype.code == kDLInt && !p->value) args[i] = tvm_ffi_any_int(v);
    }
    if (args[i].type_index == kTVMFFINone) {
      for (int64_t k = 0; k < i; ++k) tvm_ffi_any_release(&args[k]);
      tvm_ffi_error_clear(); /* (a tensor that could not be made) */
      return -1;
    }
  }
  if (!cheap(fn, &sv)) {
    for (int64_t k = 0; k < n; ++k) tvm_ffi_any_release(&args[k]);
    return -1;
  }
  return (int)n;
}

/* The element types compared (element reads them). */
static bool comparable(DLDataType t) {
  if (t.lanes != 1) return false;
  if (t.code == kDLFloat) return t.bits == 32 || t.bits == 64;
  if (t.code == kDLInt) return t.bits == 8 || t.bits == 32 || t.bits == 64;
  return (t.code == kDLUInt && (t.bits == 1 || t.bits == 8)) || (t.code == kDLBool && t.bits == 8);
}

static double element(const DLTensor* t, int64_t i) {
  const char* p = (const char*)t->data;
  switch (t->dtype.code * 1000 + t->dtype.bits) {
    case kDLFloat * 1000 + 32: return ((const float*)p)[i];
    case kDLFloat * 1000 + 64: return ((const double*)p)[i];
    case kDLInt * 1000 + 8: return ((const int8_t*)p)[i];
    case kDLInt * 1000 + 32: return ((const int32_t*)p)[i];
    case kDLInt * 1000 + 64: return (double)((const int64_t*)p)[i];
    case kDLUInt * 1000 + 1:
    case kDLUInt * 1000 + 8:
    case kDLBool * 1000 + 8: return ((const uint8_t*)p)[i];
    default: return NAN;
  }
}

/* Whether a and b (the two runs' results) hold the same values; what differs goes to why. */
static bool same_value(const TVMFFIAny* a, const TVMFFIAny* b, char* why, size_t n) {
  if (a->type_index != b->type_index) {
    snprintf(why, n, "result kinds %d and %d", (int)a->type_index, (int)b->type_index);
    return false;
  }
  if (a->type_index == kTVMFFITensor) {
    const DLTensor *x = tvm_ffi_tensor_dl(a->v_obj), *y = tvm_ffi_tensor_dl(b->v_obj);
    if (x->ndim != y->ndim || !tvm_ffi_dtype_equal(x->dtype, y->dtype)) {
      snprintf(why, n, "tensor types differ (rank %d vs %d)", x->ndim, y->ndim);
      return false;
    }
    int64_t size = 1;
    for (int i = 0; i < x->ndim; ++i) {
      if (x->shape[i] != y->shape[i]) {
        snprintf(why, n, "dim %d: %lld vs %lld", i, (long long)x->shape[i],
                 (long long)y->shape[i]);
        return false;
      }
      size *= x->shape[i];
    }
    for (int64_t i = 0; comparable(x->dtype) && i < size; ++i) {
      double u = element(x, i), v = element(y, i);
      if (u == v || (isnan(u) && isnan(v)) || fabs(u - v) <= 1e-4 * (1 + fabs(u))) continue;
      snprintf(why, n, "element %lld: %.9g vs %.9g", (long long)i, u, v);
      return false;
    }
    return true;
  }
  if (a->type_index == kTVMFFIArray) {
    int64_t m = tvm_ffi_seq_size(a->v_obj);
    if (m != tvm_ffi_seq_size(b->v_obj)) {
      snprintf(why, n, "tuple sizes differ");
      return false;
    }
    for (int64_t i = 0; i < m; ++i) {
      if (!same_value(tvm_ffi_seq_at(a->v_obj, i), tvm_ffi_seq_at(b->v_obj, i), why, n)) {
        return false;
      }
    }
    return true;
  }
  if (a->type_index == kTVMFFIInt || a->type_index == kTVMFFIBool) {
    if (a->v_int64 == b->v_int64) return true;
    snprintf(why, n, "%lld vs %lld", (long long)a->v_int64, (long long)b->v_int64);
    return false;
  }
  if (a->type_index == kTVMFFIFloat) {
    double u = a->v_float64, v = b->v_float64;
    if (u == v || (isnan(u) && isnan(v)) || fabs(u - v) <= 1e-4 * (1 + fabs(u))) return true;
    snprintf(why, n, "%.9g vs %.9g", u, v);
    return false;
  }
  return true; /* (shapes, strings, objects: not compared) */
}

/* Function name (fn) on the reference and on the pipeline's module, compared. */
static void run_both(const tvm_tir_ir_module_obj* legal, const tvm_tir_ir_module_obj* built,
                     const char* name, const tvm_relax_function_obj* fn) {
  TVMFFIAny args[MAX_PARAMS];
  g_rng = 12345;
  int n = make_args(fn, args);
  if (n < 0) return;
  TVMFFIAny want = tvm_ffi_any_none(), got = tvm_ffi_any_none();
  char why[512] = "";
  if (tvm_relax_eval(legal, name, args, n, &want) != 0) {
    tvm_ffi_error_clear(); /* the reference refuses these inputs: nothing to compare */
  } else if (tvm_relax_eval(built, name, args, n, &got) != 0) {
    void* err = tvm_ffi_error_take();
    snprintf(why, sizeof(why), "%s: %s", name, err ? tvm_ffi_error_message(err) : "(no error)");
    fail("a function runs after LegalizeOps but not after the build pipeline", why);
  } else if (!same_value(&want, &got, why, sizeof(why))) {
    fprintf(stderr, "in %s\n", name);
    fail("a function gives other values after the build pipeline than after LegalizeOps", why);
  }
  tvm_ffi_any_release(&want);
  tvm_ffi_any_release(&got);
  for (int i = 0; i < n; ++i) tvm_ffi_any_release(&args[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  /* The pipeline's output calls libvm's builtins (vm.builtin.reshape, ...). */
  static int vm_ready = -1;
  if (vm_ready < 0) vm_ready = tvm_vm_init();
  if (vm_ready != 0) fail("tvm_vm_init failed", NULL);
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  opts.filename = "fuzz.py";
  void* ir = tvm_script_parse((const char*)data, size, &opts);
  if (!ir || !tvm_tir_is(ir, TVM_TIR_KIND_IRModule)) {
    tvm_ffi_error_clear();
    tvm_ffi_release(ir);
    return 0;
  }
  const tvm_tir_ir_module_obj* mod = ir;
  /* The public Relax functions (a private one is no entry point: the pipeline's
   * DeadCodeElimination may drop it). */
  const TVMFFIAny *k, *f;
  int public_fns = 0;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(mod->functions, pos, &k, &f)) >= 0;) {
    public_fns += tvm_relax_kind_of(f->v_obj) == TVM_RELAX_KIND_Function &&
                  tvm_tir_func_global_symbol(f->v_obj) != NULL;
  }
  if (public_fns == 0) {
    tvm_ffi_release(ir);
    return 0;
  }
  tvm_tir_ir_module_obj* built = tvm_relax_build_pipeline(mod);
  if (!built) {
    void* err = tvm_ffi_error_take();
    if (!err) fail("the build pipeline returned NULL with no error raised", NULL);
    /* A pass may refuse a program (an operator it cannot lower, ...), but in this debug build
     * a pass whose result is ill-formed is caught by tvm_relax_run_passes' check. */
    if (strstr(tvm_ffi_error_message(err), "is not well formed")) {
      fail("a pass of the build pipeline made ill-formed IR", tvm_ffi_error_message(err));
    }
    tvm_ffi_release(err);
  } else {
    if (tvm_ffi_error_pending()) fail("the build pipeline left an error raised", NULL);
    tvm_tir_ir_module_obj* legal = tvm_relax_transform_legalize_ops(mod);
    uint64_t h = UINT64_C(1469598103934665603); /* FNV-1a of the input */
    for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * UINT64_C(1099511628211);
    int first = public_fns > FUZZ_MAX_EVALS ? (int)(h % (uint64_t)public_fns) : 0, seen = 0;
    for (int64_t pos = 0; legal && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &f)) >= 0;) {
      if (tvm_relax_kind_of(f->v_obj) == TVM_RELAX_KIND_Function &&
          tvm_tir_func_global_symbol(f->v_obj) &&
          (seen++ - first + public_fns) % public_fns < FUZZ_MAX_EVALS) {
        const char* name = tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)k->v_obj)->name_hint);
        run_both(legal, built, name, (const tvm_relax_function_obj*)f->v_obj);
      }
    }
    tvm_ffi_error_clear();
    tvm_ffi_release(legal);
    tvm_ffi_release(built);
  }
  tvm_ffi_release(ir);
  return 0;
}

/*
 * model_run.c: `tvmc run` of a Relax model. The function's parameters get random values from
 * their struct info (symbolic dims bound with --shape, or a tensor's shape given with --input);
 * the model is compiled in-process with the Relax build (or loaded from a model library), run
 * in the Relax VM, and every output (tuples field by field) compared with the reference
 * evaluator (tvm/relax/eval.h) run on the module after LegalizeOps alone; then the VM calls are
 * timed. A library run without its model file has no reference: the outputs are printed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/vm/vm.h>

#include "model.h"
#include "run.h"
#include "tvmc.h"

enum { MAX_PARAMS = 256, MAX_PRINTED = 6 };

/* ---- Choosing the function ------------------------------------------------------------------ */
/* The Relax function of mod named `name` (NULL: main, or the only one), borrowed; NULL when
 * there is none (reported, listing the Relax functions; a usage error). */
static const tvm_relax_function_obj* select_function(const char* path, const void* mod,
                                                     const char* name, const char** out_name) {
  const TVMFFIAny *key, *val;
  const tvm_relax_function_obj* only = NULL;
  const char* only_name = NULL;
  int64_t count = 0;
  tvm_ffi_strbuf list = {0};
  const tvm_tir_ir_module_obj* m = mod;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(m->functions, pos, &key, &val)) >= 0;) {
    if (!tvm_ffi_any_is_object(val) || tvm_relax_kind_of(val->v_obj) != TVM_RELAX_KIND_Function)
      continue;
    const char* n = tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)key->v_obj)->name_hint);
    if (name ? strcmp(n, name) == 0 : strcmp(n, "main") == 0) {
      tvm_ffi_strbuf_free(&list);
      *out_name = n;
      return (const tvm_relax_function_obj*)val->v_obj;
    }
    tvm_ffi_strbuf_printf(&list, "%s%s", count ? ", " : "", n);
    only = (const tvm_relax_function_obj*)val->v_obj;
    only_name = n;
    ++count;
  }
  if (!name && count == 1) {
    tvm_ffi_strbuf_free(&list);
    *out_name = only_name;
    return only;
  }
  if (count == 0)
    fprintf(stderr, "tvmc run: '%s' defines no @R.function\n", path);
  else if (name)
    fprintf(stderr, "tvmc run: '%s' has no Relax function `%s` (it has: %s)\n", path, name,
            tvm_ffi_strbuf_cstr(&list));
  else
    fprintf(stderr, "tvmc run: '%s' defines several Relax functions and no `main`; choose one "
                    "with --func (%s)\n", path, tvm_ffi_strbuf_cstr(&list));
  tvm_ffi_strbuf_free(&list);
  return NULL;
}

/* ---- The parameters ------------------------------------------------------------------------- */
typedef struct {
  int n;
  const char* name[MAX_PARAMS];                /* borrowed */
  const tvm_relax_sinfo_obj* sinfo[MAX_PARAMS]; /* borrowed; NULL for a library alone */
  const char* input[MAX_PARAMS];               /* the --input SHAPE[:DTYPE] text, or NULL */
} params;

static const tvm_relax_sinfo_obj* var_sinfo(const void* var) {
  return ((const tvm_tir_relax_expr_obj*)var)->struct_info_;
}

/* Parse "4x16", "4,16", "()" or "" (a scalar), then an optional ":DTYPE". */
static bool parse_input(const char* param, const char* text, DLDataType dflt, int* ndim,
                        int64_t* dims, DLDataType* dtype) {
  const char* colon = strchr(text, ':');
  size_t shape_len = colon ? (size_t)(colon - text) : strlen(text);
  *dtype = dflt;
  if (colon && tvm_ffi_dtype_parse(colon + 1, strlen(colon + 1), dtype) != 0) {
    tvm_ffi_error_clear();
    tvmc_usage_error("run", "--input %s=%s: '%s' is not a dtype", param, text, colon + 1);
    return false;
  }
  *ndim = 0;
  if (shape_len == 0 || (shape_len == 2 && strncmp(text, "()", 2) == 0)) return true;
  const char* s = text;
  const char* end = text + shape_len;
  while (s < end) {
    char* stop;
    errno = 0;
    long long v = strtoll(s, &stop, 10);
    if (stop == s || stop > end || v < 0 || errno || *ndim == TVMC_MAX_NDIM ||
        (stop < end && *stop != 'x' && *stop != ',')) {
      tvmc_usage_error("run", "--input %s=%s: expected a shape such as 4x16 (or 4,16; () for a "
                       "scalar) and an optional :DTYPE", param, text);
      return false;
    }
    dims[(*ndim)++] = v;
    s = stop < end ? stop + 1 : stop;
  }
  return true;
}

/* Attach each --input item to its parameter. False when an item is malformed or names no
 * parameter (reported). */
static bool attach_inputs(const char* fname, params* p, const char** items, int n) {
  for (int i = 0; i < n; ++i) {
    const char* eq = strchr(items[i], '=');
    if (!eq || eq == items[i]) {
      tvmc_usage_error("run", "--input expects NAME=SHAPE[:DTYPE], got '%s'", items[i]);
      return false;
    }
    size_t len = (size_t)(eq - items[i]);
    int k = 0;
    while (k < p->n && (strlen(p->name[k]) != len || strncmp(p->name[k], items[i], len) != 0)) ++k;
    if (k == p->n) {
      tvm_ffi_strbuf list = {0};
      for (int j = 0; j < p->n; ++j)
        tvm_ffi_strbuf_printf(&list, "%s%s", j ? ", " : "", p->name[j]);
      tvmc_usage_error("run", "--input %s: `%s` has no parameter `%.*s` (it has: %s)", items[i],
                       fname, (int)len, items[i], p->n ? tvm_ffi_strbuf_cstr(&list) : "none");
      tvm_ffi_strbuf_free(&list);
      return false;
    }
    if (p->input[k]) {
      tvmc_usage_error("run", "--input %s: parameter `%s` is given twice", items[i], p->name[k]);
      return false;
    }
    p->input[k] = eq + 1;
  }
  /* The texts are checked here, before anything is built or allocated. */
  for (int k = 0; k < p->n; ++k) {
    int ndim;
    int64_t dims[TVMC_MAX_NDIM];
    DLDataType dtype;
    if (p->input[k] &&
        !parse_input(p->name[k], p->input[k], tvm_ffi_dtype(kDLFloat, 32, 1), &ndim, dims, &dtype))
      return false;
  }
  return true;
}

/* ---- Symbolic sizes ------------------------------------------------------------------------- */
/* The bindings (an ffi.Dict tir.Var -> int) of the symbolic variables of the parameters' struct
 * info from --shape items; every variable of a parameter without --input must be bound. NULL
 * with the problem reported (a usage error). */
static void* bind_shapes(const char* fname, const params* p, const char** items, int n) {
  void* all = tvm_ffi_list_new();   /* every variable of the signature */
  void* needed = tvm_ffi_list_new(); /* those of parameters that need them */
  void* dict = tvm_ffi_dict_new();
  bool ok = all && needed && dict;
  for (int k = 0; ok && k < p->n; ++k) {
    if (!p->sinfo[k]) continue;
    ok = tvm_relax_sinfo_tir_vars(p->sinfo[k], false, all) == 0 &&
         (p->input[k] || tvm_relax_sinfo_tir_vars(p->sinfo[k], false, needed) == 0);
  }
  if (!ok) {
    tvmc_report_error("run", "cannot collect the symbolic sizes");
    goto fail;
  }
  for (int i = 0; i < n; ++i) {
    const char* eq = strchr(items[i], '=');
    int64_t v;
    if (!eq || eq == items[i]) {
      tvmc_usage_error("run", "--shape expects NAME=VALUE, got '%s'", items[i]);
      goto fail;
    }
    if (!tvmc_parse_int("run", "--shape", eq + 1, &v)) goto fail;
    if (v <= 0) {
      tvmc_usage_error("run", "--shape %s: a size must be positive", items[i]);
      goto fail;
    }
    size_t len = (size_t)(eq - items[i]);
    bool found = false;
    for (int64_t j = 0; j < tvm_ffi_seq_size(all); ++j) {
      const tvm_tir_var_obj* var = (const void*)tvm_ffi_seq_at(all, j)->v_obj;
      const char* vn = tvm_ffi_str_cstr(var->name_hint);
      if (strlen(vn) != len || strncmp(vn, items[i], len) != 0) continue;
      TVMFFIAny key = tvm_ffi_any_obj(var);
      if (tvm_ffi_map_get(dict, &key)) {
        tvmc_usage_error("run", "--shape %s: `%.*s` is bound twice", items[i], (int)len, items[i]);
        goto fail;
      }
      TVMFFIAny val = tvm_ffi_any_int(v);
      if (tvm_ffi_dict_set(dict, &key, &val) != 0) goto fail;
      found = true;
    }
    if (!found) {
      tvm_ffi_strbuf list = {0};
      for (int64_t j = 0; j < tvm_ffi_seq_size(all); ++j) {
        const tvm_tir_var_obj* var = (const void*)tvm_ffi_seq_at(all, j)->v_obj;
        tvm_ffi_strbuf_printf(&list, "%s%s", j ? ", " : "", tvm_ffi_str_cstr(var->name_hint));
      }
      if (tvm_ffi_seq_size(all))
        tvmc_usage_error("run", "--shape %s: `%s` has no symbolic size named `%.*s` (it has: %s)",
                         items[i], fname, (int)len, items[i], tvm_ffi_strbuf_cstr(&list));
      else
        tvmc_usage_error("run", "--shape %s: `%s` has no symbolic sizes (its shapes are "
                         "constant)", items[i], fname);
      tvm_ffi_strbuf_free(&list);
      goto fail;
    }
  }
  /* Every needed variable bound: name the first missing one and a parameter that has it. */
  for (int64_t j = 0; j < tvm_ffi_seq_size(needed); ++j) {
    const TVMFFIAny* key = tvm_ffi_seq_at(needed, j);
    if (tvm_ffi_map_get(dict, key)) continue;
    const char* vn = tvm_ffi_str_cstr(((const tvm_tir_var_obj*)key->v_obj)->name_hint);
    const char* where = "?";
    for (int k = 0; k < p->n && where[0] == '?'; ++k) {
      void* one = p->sinfo[k] && !p->input[k] ? tvm_ffi_list_new() : NULL;
      if (one && tvm_relax_sinfo_tir_vars(p->sinfo[k], false, one) == 0)
        for (int64_t q = 0; q < tvm_ffi_seq_size(one); ++q)
          if (tvm_ffi_seq_at(one, q)->v_obj == key->v_obj) where = p->name[k];
      tvm_ffi_release(one);
    }
    tvm_ffi_error_clear();
    tvmc_usage_error("run", "`%s` has symbolic sizes; bind %s (in the shape of parameter `%s`) "
                     "with --shape %s=VALUE", fname, vn, where, vn);
    goto fail;
  }
  tvm_ffi_release(all);
  tvm_ffi_release(needed);
  return dict;
fail:
  tvm_ffi_release(all);
  tvm_ffi_release(needed);
  tvm_ffi_release(dict);
  return NULL;
}

/* ---- Random values -------------------------------------------------------------------------- */
typedef struct {
  uint64_t state;
  uint64_t bytes; /* of the tensors made so far */
  uint64_t limit; /* the most bytes they may take (tvmc_memory_limit / copies) */
  int fail;       /* the exit status of a failure: usage (what to give) or failure */
} rng;

static uint64_t next(rng* r) {
  r->state ^= r->state << 13, r->state ^= r->state >> 7, r->state ^= r->state << 17;
  return r->state;
}

static bool is_bool(DLDataType t) {
  return t.code == kDLBool || (t.code == kDLUInt && t.bits == 1);
}

/* The dtypes tvmc run makes and reads: float16/32/64, bfloat16, 8- to 64-bit integers, bool. */
static bool readable(DLDataType d) {
  bool int_bits = d.bits == 8 || d.bits == 16 || d.bits == 32 || d.bits == 64;
  bool float_bits = d.bits == 16 || d.bits == 32 || d.bits == 64;
  return d.lanes == 1 && (is_bool(d) || (d.code == kDLFloat && float_bits) ||
                          (d.code == kDLBfloat && d.bits == 16) ||
                          ((d.code == kDLInt || d.code == kDLUInt) && int_bits));
}

static bool is_float(DLDataType d) { return d.code == kDLFloat || d.code == kDLBfloat; }

/* Element i of a float tensor's data (a readable dtype) as a double, and v stored there (v
 * exact in the dtype: the random values are). */
static double float_at(const void* data, int64_t i, DLDataType d) {
  if (d.code == kDLBfloat) {
    uint32_t u = (uint32_t)((const uint16_t*)data)[i] << 16;
    float x;
    memcpy(&x, &u, 4);
    return x;
  }
  if (d.bits == 16) return (double)((const _Float16*)data)[i];
  return d.bits == 32 ? ((const float*)data)[i] : ((const double*)data)[i];
}
static void float_put(void* data, int64_t i, DLDataType d, double v) {
  if (d.code == kDLBfloat) {
    float x = (float)v;
    uint32_t u;
    memcpy(&u, &x, 4);
    ((uint16_t*)data)[i] = (uint16_t)(u >> 16);
  } else if (d.bits == 16) {
    ((_Float16*)data)[i] = (_Float16)v;
  } else if (d.bits == 32) {
    ((float*)data)[i] = (float)v;
  } else {
    ((double*)data)[i] = v;
  }
}

/* A random tensor: floats k/32 for k in [-32, 32] (exact in every float type), signed integers
 * in [-9, 9], unsigned in [0, 9], bools 0 or 1. NULL with the problem reported. */
static void* random_tensor(const char* param, int ndim, const int64_t* dims, DLDataType dtype,
                           rng* r) {
  bool boolean = is_bool(dtype);
  bool supported = readable(dtype);
  char name[64];
  tvm_ffi_dtype_format(dtype, name, sizeof(name));
  if (!supported) {
    fprintf(stderr, "tvmc run: parameter `%s`: tvmc run makes no random %s tensors (float16, "
                    "bfloat16, float32, float64, integers and bool)\n", param, name);
    r->fail = TVMC_FAILURE;
    return NULL;
  }
  uint64_t count = 1;
  for (int d = 0; d < ndim; ++d) {
    if (dims[d] < 0 || (dims[d] && count > UINT64_MAX / 8 / (uint64_t)dims[d])) {
      fprintf(stderr, "tvmc run: parameter `%s`: dimension %d is %lld\n", param, d,
              (long long)dims[d]);
      return NULL;
    }
    count *= (uint64_t)dims[d];
  }
  uint64_t bytes = count * (boolean ? 1 : dtype.bits / 8);
  if (bytes > r->limit || r->bytes + bytes > r->limit) {
    fprintf(stderr, "tvmc run: MemoryError: parameter `%s` (%llu bytes) passes the memory limit "
                    "with the other arguments (%llu bytes per copy; see TVMC_MEMORY_LIMIT)\n",
            param, (unsigned long long)bytes, (unsigned long long)r->limit);
    r->fail = TVMC_FAILURE;
    return NULL;
  }
  r->bytes += bytes;
  DLDataType storage = boolean ? tvm_ffi_dtype(kDLBool, 8, 1) : dtype;
  void* t = tvm_ffi_tensor_empty(dims, ndim, storage, (DLDevice){kDLCPU, 0});
  if (!t) {
    tvmc_report_error("run", "cannot allocate an input");
    r->fail = TVMC_FAILURE;
    return NULL;
  }
  DLTensor* dl = tvm_ffi_tensor_dl(t);
  dl->dtype = dtype; /* a bool declared uint1 keeps its one byte per element */
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t x = next(r) >> 11;
    if (boolean) {
      ((uint8_t*)dl->data)[i] = (uint8_t)(x & 1);
    } else if (is_float(dtype)) {
      float_put(dl->data, (int64_t)i, dtype, (double)((int64_t)(x % 65) - 32) / 32.0);
    } else {
      int64_t v = dtype.code == kDLInt ? (int64_t)(x % 19) - 9 : (int64_t)(x % 10);
      switch (dtype.bits) {
        case 8: ((int8_t*)dl->data)[i] = (int8_t)v; break;
        case 16: ((int16_t*)dl->data)[i] = (int16_t)v; break;
        case 32: ((int32_t*)dl->data)[i] = (int32_t)v; break;
        default: ((int64_t*)dl->data)[i] = v; break;
      }
    }
  }
  return t;
}

/* The value of an integer PrimExpr under bindings; false (reported) when it has no value. */
static bool eval_dim(const char* param, const void* expr, const void* bindings, int64_t* out) {
  if (tvmc_eval_int(expr, bindings, out)) return true;
  fprintf(stderr, "tvmc run: parameter `%s`: cannot compute a dimension from the bound sizes "
                  "(give its shape with --input %s=SHAPE)\n", param, param);
  return false;
}

/* A random value of struct info s for parameter `param` into *out. False, reported. */
static bool make_value(const char* param, const tvm_relax_sinfo_obj* s, const void* bindings,
                       rng* r, TVMFFIAny* out) {
  tvm_ffi_strbuf text = {0};
  tvm_relax_kind k = tvm_relax_kind_of(s);
  *out = tvm_ffi_any_none();
  if (k == TVM_RELAX_KIND_TensorStructInfo) {
    const tvm_relax_tensor_sinfo_obj* t = (const void*)s;
    void* dims = tvm_relax_tensor_sinfo_dims(s);
    if (dims && !tvm_relax_dtype_is_unknown(t->dtype)) {
      int64_t shape[TVMC_MAX_NDIM];
      int ndim = (int)tvm_ffi_seq_size(dims);
      if (ndim > TVMC_MAX_NDIM) {
        fprintf(stderr, "tvmc run: parameter `%s`: more than %d dimensions\n", param,
                TVMC_MAX_NDIM);
        return false;
      }
      for (int d = 0; d < ndim; ++d)
        if (!eval_dim(param, tvm_ffi_seq_at(dims, d)->v_obj, bindings, &shape[d])) return false;
      void* tensor = random_tensor(param, ndim, shape, t->dtype, r);
      if (!tensor) return false;
      *out = tvm_ffi_any_obj(tensor); /* owns it */
      return true;
    }
  } else if (k == TVM_RELAX_KIND_PrimStructInfo) {
    const tvm_relax_prim_sinfo_obj* p = (const void*)s;
    int64_t v = (int64_t)(next(r) >> 11) % 9 + 1;
    if (p->value && p->dtype.code != kDLFloat && !eval_dim(param, p->value, bindings, &v))
      return false;
    if (is_bool(p->dtype))
      *out = tvm_ffi_any_bool(v & 1);
    else if (p->dtype.code == kDLFloat)
      *out = tvm_ffi_any_float((double)v / 4.0);
    else
      *out = tvm_ffi_any_int(v);
    return true;
  } else if (k == TVM_RELAX_KIND_ShapeStructInfo) {
    void* values = ((const tvm_relax_shape_sinfo_obj*)s)->values;
    if (values) {
      int64_t shape[TVMC_MAX_NDIM];
      int ndim = (int)tvm_ffi_seq_size(values);
      if (ndim > TVMC_MAX_NDIM) return false;
      for (int d = 0; d < ndim; ++d)
        if (!eval_dim(param, tvm_ffi_seq_at(values, d)->v_obj, bindings, &shape[d])) return false;
      void* shp = tvm_ffi_shape_new(shape, ndim);
      if (!shp) return false;
      *out = tvm_ffi_any_obj(shp);
      return true;
    }
  } else if (k == TVM_RELAX_KIND_TupleStructInfo) {
    void* fields = ((const tvm_relax_tuple_sinfo_obj*)s)->fields;
    int64_t n = tvm_ffi_seq_size(fields);
    TVMFFIAny* items = calloc((size_t)n + 1, sizeof(TVMFFIAny));
    bool ok = items != NULL;
    int64_t made = 0;
    for (; ok && made < n; ++made)
      ok = make_value(param, (const void*)tvm_ffi_seq_at(fields, made)->v_obj, bindings, r,
                      &items[made]);
    void* arr = ok ? tvm_ffi_array_new_take(items, n) : NULL;
    for (int64_t i = 0; items && i < made; ++i) tvm_ffi_any_release(&items[i]);
    free(items);
    if (!arr) return false;
    *out = tvm_ffi_any_obj(arr);
    return true;
  }
  tvm_relax_sinfo_text(&text, s);
  fprintf(stderr, "tvmc run: parameter `%s`: tvmc run cannot make a value of %s (give a tensor's "
                  "shape and dtype with --input %s=SHAPE:DTYPE)\n",
          param, tvm_ffi_strbuf_cstr(&text), param);
  tvm_ffi_strbuf_free(&text);
  return false;
}

/* The arguments: one value per parameter. False, reported. */
static bool make_args(const params* p, const void* bindings, rng* r, TVMFFIAny* args) {
  for (int k = 0; k < p->n; ++k) args[k] = tvm_ffi_any_none();
  for (int k = 0; k < p->n; ++k) {
    bool ok;
    if (p->input[k]) {
      const tvm_relax_tensor_sinfo_obj* t =
          p->sinfo[k] && tvm_relax_kind_of(p->sinfo[k]) == TVM_RELAX_KIND_TensorStructInfo
              ? (const void*)p->sinfo[k]
              : NULL;
      DLDataType dflt = t && !tvm_relax_dtype_is_unknown(t->dtype) ? t->dtype
                                                                   : tvm_ffi_dtype(kDLFloat, 32, 1);
      int ndim;
      int64_t dims[TVMC_MAX_NDIM];
      DLDataType dtype;
      void* tensor = NULL;
      ok = parse_input(p->name[k], p->input[k], dflt, &ndim, dims, &dtype) &&
           (tensor = random_tensor(p->name[k], ndim, dims, dtype, r)) != NULL;
      if (tensor) args[k] = tvm_ffi_any_obj(tensor);
    } else {
      ok = make_value(p->name[k], p->sinfo[k], bindings, r, &args[k]);
    }
    if (!ok) {
      for (int j = 0; j < p->n; ++j) tvm_ffi_any_release(&args[j]);
      return false;
    }
  }
  return true;
}

/* ---- Values: printing and comparing --------------------------------------------------------- */
static double element(const DLTensor* t, int64_t i) {
  const char* base = (const char*)t->data + t->byte_offset;
  DLDataType d = t->dtype;
  if (is_bool(d)) return ((const uint8_t*)base)[i];
  if (is_float(d)) return float_at(base, i, d);
  bool u = d.code == kDLUInt;
  switch (d.bits) {
    case 8: return u ? (double)((const uint8_t*)base)[i] : (double)((const int8_t*)base)[i];
    case 16: return u ? (double)((const uint16_t*)base)[i] : (double)((const int16_t*)base)[i];
    case 32: return u ? (double)((const uint32_t*)base)[i] : (double)((const int32_t*)base)[i];
    default: return u ? (double)((const uint64_t*)base)[i] : (double)((const int64_t*)base)[i];
  }
}

static void format_tensor_type(const DLTensor* t, tvm_ffi_strbuf* out) {
  char dt[64];
  tvm_ffi_dtype_format(t->dtype, dt, sizeof(dt));
  tvm_ffi_strbuf_printf(out, "%s (", dt);
  for (int d = 0; d < t->ndim; ++d)
    tvm_ffi_strbuf_printf(out, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
  tvm_ffi_strbuf_puts(out, t->ndim == 1 ? ",)" : ")");
}

static void format_index(const DLTensor* t, int64_t flat, tvm_ffi_strbuf* out) {
  int64_t idx[TVMC_MAX_NDIM];
  for (int d = t->ndim - 1; d >= 0; --d) {
    idx[d] = t->shape[d] ? flat % t->shape[d] : 0;
    flat = t->shape[d] ? flat / t->shape[d] : 0;
  }
  tvm_ffi_strbuf_puts(out, "[");
  for (int d = 0; d < t->ndim; ++d)
    tvm_ffi_strbuf_printf(out, "%s%lld", d ? ", " : "", (long long)idx[d]);
  tvm_ffi_strbuf_puts(out, "]");
}

/* "output[1]: float32 (4, 8): 0.25 -0.5 ..." for each tensor of v. */
static void print_value(const TVMFFIAny* v, const char* path) {
  if (v->type_index == kTVMFFIArray) {
    for (int64_t i = 0; i < tvm_ffi_seq_size(v->v_obj); ++i) {
      char sub[256];
      snprintf(sub, sizeof(sub), "%s[%lld]", path, (long long)i);
      print_value(tvm_ffi_seq_at(v->v_obj, i), sub);
    }
    return;
  }
  tvm_ffi_strbuf line = {0};
  if (v->type_index == kTVMFFITensor) {
    const DLTensor* t = tvm_ffi_tensor_dl(v->v_obj);
    format_tensor_type(t, &line);
    int64_t n = tvm_ffi_dltensor_numel(t);
    if (readable(t->dtype) && t->device.device_type == kDLCPU) {
      tvm_ffi_strbuf_puts(&line, ":");
      for (int64_t i = 0; i < n && i < MAX_PRINTED; ++i)
        tvm_ffi_strbuf_printf(&line, " %.6g", element(t, i));
      if (n > MAX_PRINTED) tvm_ffi_strbuf_printf(&line, " ... (%lld elements)", (long long)n);
    }
  } else if (v->type_index == kTVMFFIShape) {
    tvm_ffi_strbuf_puts(&line, "shape (");
    for (int64_t d = 0; d < tvm_ffi_shape_ndim(v->v_obj); ++d)
      tvm_ffi_strbuf_printf(&line, "%s%lld", d ? ", " : "",
                            (long long)tvm_ffi_shape_data(v->v_obj)[d]);
    tvm_ffi_strbuf_puts(&line, tvm_ffi_shape_ndim(v->v_obj) == 1 ? ",)" : ")");
  } else if (v->type_index == kTVMFFIInt || v->type_index == kTVMFFIBool) {
    tvm_ffi_strbuf_printf(&line, "%lld", (long long)v->v_int64);
  } else if (v->type_index == kTVMFFIFloat) {
    tvm_ffi_strbuf_printf(&line, "%.9g", v->v_float64);
  } else {
    tvm_ffi_strbuf_printf(&line, "a value of type %s", tvm_ffi_any_type_name(v));
  }
  printf("%s: %s\n", path, tvm_ffi_strbuf_cstr(&line));
  tvm_ffi_strbuf_free(&line);
}

typedef struct {
  int64_t compared, mismatched, outputs;
  double max_abs;
} compare_stats;

/* The first difference is printed, the later ones counted. */
static void mismatch(compare_stats* st, const char* fmt, const char* path, const char* a,
                     const char* b) {
  if (st->mismatched++ == 0) printf(fmt, path, a, b);
}

static bool close_enough(double got, double want, DLDataType d) {
  if (isnan(got) || isnan(want)) return isnan(got) && isnan(want);
  if (isinf(want)) return got == want;
  if (!is_float(d)) return got == want;
  double tol = tvmc_tolerance(d, 1);
  return fabs(got - want) <= tol * (1 + fabs(want));
}

static void compare(const TVMFFIAny* got, const TVMFFIAny* want, const char* path,
                    compare_stats* st) {
  tvm_ffi_strbuf a = {0}, b = {0};
  if (got->type_index != want->type_index) {
    tvm_ffi_strbuf_puts(&a, tvm_ffi_any_type_name(got));
    tvm_ffi_strbuf_puts(&b, tvm_ffi_any_type_name(want));
    mismatch(st, "check FAILED: %s: compiled a %s, reference a %s\n", path, tvm_ffi_strbuf_cstr(&a),
             tvm_ffi_strbuf_cstr(&b));
  } else if (want->type_index == kTVMFFIArray) {
    int64_t n = tvm_ffi_seq_size(want->v_obj);
    if (tvm_ffi_seq_size(got->v_obj) != n) {
      tvm_ffi_strbuf_printf(&a, "%lld", (long long)tvm_ffi_seq_size(got->v_obj));
      tvm_ffi_strbuf_printf(&b, "%lld", (long long)n);
      mismatch(st, "check FAILED: %s: compiled a tuple of %s, reference of %s\n", path,
               tvm_ffi_strbuf_cstr(&a), tvm_ffi_strbuf_cstr(&b));
    }
    for (int64_t i = 0; i < n && i < tvm_ffi_seq_size(got->v_obj); ++i) {
      char sub[256];
      snprintf(sub, sizeof(sub), "%s[%lld]", path, (long long)i);
      compare(tvm_ffi_seq_at(got->v_obj, i), tvm_ffi_seq_at(want->v_obj, i), sub, st);
    }
  } else if (want->type_index == kTVMFFITensor) {
    const DLTensor* x = tvm_ffi_tensor_dl(got->v_obj);
    const DLTensor* y = tvm_ffi_tensor_dl(want->v_obj);
    format_tensor_type(x, &a);
    format_tensor_type(y, &b);
    st->outputs++;
    if (strcmp(tvm_ffi_strbuf_cstr(&a), tvm_ffi_strbuf_cstr(&b)) != 0) {
      mismatch(st, "check FAILED: %s: compiled %s, reference %s\n", path, tvm_ffi_strbuf_cstr(&a),
               tvm_ffi_strbuf_cstr(&b));
    } else if (!readable(y->dtype) || x->device.device_type != kDLCPU) {
      mismatch(st, "check FAILED: %s: cannot compare tensors of %s%s\n", path,
               tvm_ffi_strbuf_cstr(&b), "");
    } else {
      int64_t n = tvm_ffi_dltensor_numel(y);
      for (int64_t i = 0; i < n; ++i) {
        double g = element(x, i), w = element(y, i);
        st->compared++;
        if (fabs(g - w) > st->max_abs) st->max_abs = fabs(g - w);
        if (!close_enough(g, w, y->dtype)) {
          tvm_ffi_strbuf at = {0}, vals = {0};
          tvm_ffi_strbuf_puts(&at, path);
          format_index(y, i, &at);
          tvm_ffi_strbuf_printf(&vals, "%.9g, reference %.9g", g, w);
          mismatch(st, "check FAILED: %s: compiled %s%s\n", tvm_ffi_strbuf_cstr(&at),
                   tvm_ffi_strbuf_cstr(&vals), "");
          tvm_ffi_strbuf_free(&at);
          tvm_ffi_strbuf_free(&vals);
        }
      }
    }
  } else if (want->type_index == kTVMFFIShape) {
    int64_t n = tvm_ffi_shape_ndim(want->v_obj);
    bool same = tvm_ffi_shape_ndim(got->v_obj) == n;
    for (int64_t d = 0; same && d < n; ++d)
      same = tvm_ffi_shape_data(got->v_obj)[d] == tvm_ffi_shape_data(want->v_obj)[d];
    st->compared++;
    if (!same) mismatch(st, "check FAILED: %s: the shapes differ%s%s\n", path, "", "");
  } else if (want->type_index == kTVMFFIInt || want->type_index == kTVMFFIBool ||
             want->type_index == kTVMFFIFloat) {
    double g = want->type_index == kTVMFFIFloat ? got->v_float64 : (double)got->v_int64;
    double w = want->type_index == kTVMFFIFloat ? want->v_float64 : (double)want->v_int64;
    st->compared++;
    if (!close_enough(g, w, want->type_index == kTVMFFIFloat ? tvm_ffi_dtype(kDLFloat, 64, 1)
                                                             : tvm_ffi_dtype(kDLInt, 64, 1))) {
      tvm_ffi_strbuf_printf(&a, "%.9g", g);
      tvm_ffi_strbuf_printf(&b, "%.9g", w);
      mismatch(st, "check FAILED: %s: compiled %s, reference %s\n", path, tvm_ffi_strbuf_cstr(&a),
               tvm_ffi_strbuf_cstr(&b));
    }
  } else if (want->type_index != kTVMFFINone) {
    tvm_ffi_strbuf_puts(&a, tvm_ffi_any_type_name(want));
    mismatch(st, "check FAILED: %s: cannot compare a %s%s\n", path, tvm_ffi_strbuf_cstr(&a), "");
  }
  tvm_ffi_strbuf_free(&a);
  tvm_ffi_strbuf_free(&b);
}

/* ---- Running -------------------------------------------------------------------------------- */
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* An error from a run: the arguments or the program at fault (1), or the tool (3). */
/* ---- The reference's cost ------------------------------------------------------------------- */
/* The interpreter work of one reference run, estimated from the kernel calls of the function:
 * call_tir (and its inplace / with_grad forms) and direct calls of the module's PrimFuncs, each
 * counted at its kernel's constant sizes. A kernel with symbolic sizes or a call of another
 * Relax function is left out (partial). */
typedef struct {
  const tvm_tir_ir_module_obj* mod;
  double work;
  bool partial;
} ref_cost;

static int add_kernel_call(const void* node, void* ctx) {
  ref_cost* c = ctx;
  if (tvm_relax_kind_of(node) != TVM_RELAX_KIND_Call) return 0;
  const tvm_relax_call_obj* call = node;
  const void* callee = call->op;
  if ((tvm_relax_is_call_to(call, TVM_RELAX_OP_call_tir) ||
       tvm_relax_is_call_to(call, TVM_RELAX_OP_call_tir_inplace) ||
       tvm_relax_is_call_to(call, TVM_RELAX_OP_call_tir_with_grad)) &&
      tvm_ffi_seq_size(call->args) > 0) {
    callee = tvm_ffi_seq_obj_at(call->args, 0);
  }
  if (tvm_tir_kind_of(callee) != TVM_TIR_KIND_GlobalVar) return 0;
  const char* name = tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)callee)->name_hint);
  void* f = tvm_tir_ir_module_lookup(c->mod, name);
  if (f && tvm_tir_kind_of(f) == TVM_TIR_KIND_PrimFunc) {
    tvmc_counts n;
    if (tvmc_count_ops(f, NULL, &n) != 0) tvm_ffi_error_clear();
    else if (n.known) c->work += n.work;
    else c->partial = true;
  } else if (f) {
    c->partial = true;
  }
  tvm_ffi_release(f);
  return 0;
}

/* Tell the user when the reference run is expected to take long (stderr): the interpreter is
 * far slower than the compiled model, and a large model's check takes minutes. */
static void note_reference_cost(const tvm_tir_ir_module_obj* legal, const char* fname) {
  void* fn = tvm_tir_ir_module_lookup(legal, fname);
  ref_cost c = {legal, 0, false};
  if (fn && tvm_relax_post_order_visit(fn, add_kernel_call, &c) != 0) {
    tvm_ffi_error_clear(); /* (a walk cut short: what it counted is a lower bound) */
    c.partial = true;
  }
  tvm_ffi_release(fn);
  if (c.work <= tvmc_check_budget()) return;
  /* The interpreter evaluates 1e8 to 1.5e8 nodes a second in a Release build (cmd_run.c). */
  fprintf(stderr,
          "tvmc run: the reference evaluator interprets about %.2g IR nodes%s for the check, "
          "%.0f s or so (--no-check skips it)\n",
          c.work, c.partial ? " (or more)" : "", c.work / 1e8);
}

static int report_run_error(const char* what) {
  void* err = tvm_ffi_error_take();
  const char* kind = err ? tvm_ffi_error_kind(err) : "";
  bool program = strcmp(kind, "ValueError") == 0 || strcmp(kind, "TypeError") == 0 ||
                 strcmp(kind, "IndexError") == 0 || strcmp(kind, "AssertionError") == 0;
  fprintf(stderr, "tvmc run: %s: %s: %s\n", what, err ? kind : "Error",
          err ? tvm_ffi_error_message(err) : "unknown error");
  tvm_ffi_release(err);
  return program ? TVMC_PROGRAM_ERROR : TVMC_FAILURE;
}

/* The parameter names of fname in a library's executable (the library records no shapes). */
static bool library_params(tvm_vm_executable* exec, const char* fname, int64_t index, params* p,
                           char** names_out) {
  int64_t n = tvm_vm_executable_function_num_args(exec, index);
  void* names = tvm_ffi_list_new();
  void* fn = NULL;
  if (n > MAX_PARAMS || !names ||
      tvm_ffi_module_get_function(exec, "get_function_param_name", false, &fn) != 0 || !fn) {
    if (!tvm_ffi_error_pending()) tvm_ffi_raise("RuntimeError", "no get_function_param_name");
    tvm_ffi_release(names);
    return false;
  }
  bool ok = true;
  for (int64_t k = 0; ok && k < n; ++k) {
    TVMFFIAny a[2] = {tvm_ffi_string(fname), tvm_ffi_any_int(k)}, rv = tvm_ffi_any_none();
    ok = tvm_ffi_function_call(fn, a, 2, &rv) == 0 && tvm_ffi_list_push_take(names, &rv) == 0;
    tvm_ffi_any_release(&a[0]);
    tvm_ffi_any_release(&rv);
  }
  tvm_ffi_release(fn);
  if (!ok) {
    tvm_ffi_release(names);
    return false;
  }
  /* The names, NUL-terminated, one after another in one block. */
  size_t total = 1;
  for (int64_t k = 0; k < n; ++k) {
    TVMFFIByteArray b = {0};
    tvm_ffi_any_as_bytes(tvm_ffi_seq_at(names, k), &b);
    total += b.size + 1;
  }
  char* pool = malloc(total);
  if (!pool) {
    tvm_ffi_release(names);
    tvm_ffi_raise("MemoryError", "out of memory");
    return false;
  }
  p->n = (int)n;
  char* at = pool;
  for (int64_t k = 0; k < n; ++k) {
    TVMFFIByteArray b = {0};
    tvm_ffi_any_as_bytes(tvm_ffi_seq_at(names, k), &b);
    if (b.size) memcpy(at, b.data, b.size);
    at[b.size] = '\0';
    p->name[k] = at;
    p->sinfo[k] = NULL;
    at += b.size + 1;
  }
  tvm_ffi_release(names);
  *names_out = pool;
  return true;
}

/* Time `repeat` calls after a warm-up; prints the result line. */
/* After a failed CUDA build or load: whether it failed for want of a driver (then said, as a
 * skip, and the error taken), as `tvmc run --target cuda` of a kernel does. */
static bool no_cuda_driver(const char* what) {
  void* e = tvm_ffi_error_take();
  bool none = e && strstr(tvm_ffi_error_message(e), "no CUDA driver");
  if (none) {
    fprintf(stderr, "tvmc run: skipped: '%s' compiled for CUDA, but this machine cannot run it "
                    "(running a model on the GPU needs one): %s\n", what, tvm_ffi_error_message(e));
    tvm_ffi_release(e);
    return true;
  }
  if (e) TVMFFIErrorSetRaised(e); /* raised again for the report */
  tvm_ffi_release(e);
  return false;
}

/* *v (owned) with every tensor in it (tuples walked) copied to device (type, 0) through libvm's
 * vm.builtin.to_device (a CUDA -> CPU copy waits for the stream). 0, or -1 + error. */
static int move_value(TVMFFIAny* v, int type) {
  if (v->type_index == kTVMFFITensor) {
    if ((int)tvm_ffi_tensor_dl(v->v_obj)->device.device_type == type) return 0;
    TVMFFIAny a[3] = {*v, tvm_ffi_any_int(type), tvm_ffi_any_int(0)}, out = tvm_ffi_any_none();
    if (tvm_ffi_global_call("vm.builtin.to_device", a, 3, &out) != 0) return -1;
    tvm_ffi_any_release(v);
    *v = out;
    return 0;
  }
  if (v->type_index != kTVMFFIArray) return 0;
  int64_t n = tvm_ffi_seq_size(v->v_obj);
  TVMFFIAny* items = calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
  if (!items) return tvm_ffi_raise("MemoryError", "out of memory");
  int rc = 0;
  int64_t k = 0;
  for (; k < n && rc == 0; ++k) {
    items[k] = tvm_ffi_any_copy(tvm_ffi_seq_at(v->v_obj, k));
    rc = move_value(&items[k], type);
  }
  void* arr = rc == 0 ? tvm_ffi_array_new_take(items, n) : NULL;
  for (int64_t j = 0; j < k; ++j) tvm_ffi_any_release(&items[j]);
  free(items);
  if (!arr) return -1;
  tvm_ffi_any_release(v);
  *v = tvm_ffi_any_obj(arr);
  return 0;
}

static int time_calls(tvm_vm* vm, const char* fname, const TVMFFIAny* args, int n, int64_t repeat,
                      int device_type) {
  double* t = calloc((size_t)repeat, sizeof(double));
  if (!t) return TVMC_FAILURE;
  for (int64_t r = -1; r < repeat; ++r) {
    TVMFFIAny out = tvm_ffi_any_none();
    double start = now_s();
    /* on a GPU, the call ends when its output is back on the host */
    if (tvm_vm_invoke(vm, fname, args, n, &out) != 0 ||
        (device_type != kDLCPU && move_value(&out, kDLCPU) != 0)) {
      tvm_ffi_any_release(&out);
      free(t);
      return report_run_error("the compiled model failed");
    }
    double el = now_s() - start;
    tvm_ffi_any_release(&out);
    if (r >= 0) t[r] = el;
  }
  qsort(t, (size_t)repeat, sizeof(double), cmp_double);
  double median = repeat % 2 ? t[repeat / 2] : 0.5 * (t[repeat / 2 - 1] + t[repeat / 2]);
  printf("%s: median %.4g ms per call over %lld calls (min %.4g ms)\n", fname, median * 1e3,
         (long long)repeat, t[0] * 1e3);
  free(t);
  return TVMC_OK;
}

/* The arguments of one call, made twice from one seed when there is a reference (which gets
 * its own copy: a model may write into its inputs). */
static int make_both(const params* p, const void* bindings, rng* r1, rng* r2, bool check,
                     TVMFFIAny* args, int* made, TVMFFIAny* ref_args, int* ref_made) {
  if (!make_args(p, bindings, r1, args)) return r1->fail;
  *made = p->n;
  if (!check) return TVMC_OK;
  if (!make_args(p, bindings, r2, ref_args)) return TVMC_FAILURE;
  *ref_made = p->n;
  return TVMC_OK;
}

int tvmc_model_run(const void* mod, const tvmc_model_run_options* o) {
  const char* cmd = "run";
  const char* fname = o->func ? o->func : "main";
  params p = {0};
  char* lib_names = NULL;
  void* bindings = NULL;
  tvm_vm_executable* exec = NULL;
  tvm_vm* vm = NULL;
  TVMFFIAny args[MAX_PARAMS], ref_args[MAX_PARAMS];
  TVMFFIAny got = tvm_ffi_any_none(), want = tvm_ffi_any_none();
  int made = 0, ref_made = 0, status = TVMC_OK;
  tvm_codegen_target target;
  if (tvm_codegen_target_parse(o->codegen.target, &target) != 0) {
    tvmc_report_error(cmd, "bad target");
    return TVMC_USAGE_ERROR;
  }
  int device_type = target.kind == TVM_CODEGEN_TARGET_CUDA ? kDLCUDA : kDLCPU;
  bool ok_mem = true;
  uint64_t limit = tvmc_memory_limit(cmd, &ok_mem);
  if (!ok_mem) return TVMC_FAILURE;
  bool check = mod && !o->no_check;
  rng r1 = {0x9E3779B97F4A7C15ull ^ ((uint64_t)o->seed * 0x100000001B3ull), 0,
            limit / (check ? 2 : 1), TVMC_USAGE_ERROR};
  if (r1.state == 0) r1.state = 1; /* xorshift's one fixed point */
  rng r2 = r1;

  /* With the model's file, the arguments are made before anything is compiled. */
  if (mod) {
    const tvm_relax_function_obj* f = select_function(o->path, mod, o->func, &fname);
    if (!f) return TVMC_USAGE_ERROR;
    int64_t n = tvm_ffi_seq_size(f->params);
    if (n > MAX_PARAMS) {
      fprintf(stderr, "tvmc run: `%s` has %lld parameters; at most %d are supported\n", fname,
              (long long)n, MAX_PARAMS);
      return TVMC_USAGE_ERROR;
    }
    p.n = (int)n;
    for (int64_t k = 0; k < n; ++k) {
      const void* v = tvm_ffi_seq_at(f->params, k)->v_obj;
      p.name[k] = tvm_ffi_str_cstr(((const tvm_relax_var_obj*)v)->name_hint);
      p.sinfo[k] = var_sinfo(v);
    }
    if (!attach_inputs(fname, &p, o->inputs, o->num_inputs) ||
        !(bindings = bind_shapes(fname, &p, o->shapes, o->num_shapes)))
      return TVMC_USAGE_ERROR;
    status = make_both(&p, bindings, &r1, &r2, check, args, &made, ref_args, &ref_made);
    if (status != TVMC_OK) goto done;
  } else if (o->num_shapes > 0) {
    return tvmc_usage_error(cmd, "--shape needs the model's file (--ref MODEL.py); with a "
                            "library alone give shapes with --input");
  }

  /* The executable: compiled here, or the library's. */
  if (o->lib) {
    tvm_vm_init();
    exec = tvm_vm_executable_load_file(o->lib);
  } else {
    exec = tvm_codegen_relax_build(mod, &o->codegen);
  }
  if (!exec && device_type == kDLCUDA && no_cuda_driver(o->lib ? o->lib : o->path)) {
    status = TVMC_SKIPPED;
    goto done;
  }
  if (!exec) {
    char what[512];
    snprintf(what, sizeof(what), o->lib ? "cannot load the model library '%s'"
                                        : "building the model '%s' failed",
             o->lib ? o->lib : o->path);
    tvmc_report_error(cmd, what);
    status = TVMC_FAILURE;
    goto done;
  }
  int64_t index = tvm_vm_executable_find_function(exec, fname);
  if (index < 0) {
    tvm_ffi_strbuf list = {0};
    for (int64_t i = 0; i < tvm_vm_executable_num_functions(exec); ++i)
      if (tvm_vm_executable_function_kind(exec, i) != TVM_VM_FUNC_PACKED) /* not the builtins */
        tvm_ffi_strbuf_printf(&list, "%s%s", list.size ? ", " : "",
                              tvm_vm_executable_function_name(exec, i));
    fprintf(stderr, "tvmc run: %s '%s' has no function `%s` (it has: %s)\n",
            o->lib ? "the model library" : "the model compiled from", o->lib ? o->lib : o->path,
            fname, tvm_ffi_strbuf_cstr(&list));
    tvm_ffi_strbuf_free(&list);
    status = TVMC_USAGE_ERROR;
    goto done;
  }
  /* A library alone: the parameter names from the executable, every argument from --input. */
  if (!mod) {
    if (!library_params(exec, fname, index, &p, &lib_names)) {
      tvmc_report_error(cmd, "cannot read the function's parameters from the library");
      status = TVMC_FAILURE;
      goto done;
    }
    if (!attach_inputs(fname, &p, o->inputs, o->num_inputs)) {
      status = TVMC_USAGE_ERROR;
      goto done;
    }
    for (int k = 0; k < p.n; ++k) {
      if (p.input[k]) continue;
      tvm_ffi_strbuf list = {0};
      for (int j = 0; j < p.n; ++j)
        tvm_ffi_strbuf_printf(&list, "%s%s", j ? ", " : "", p.name[j]);
      tvmc_usage_error(cmd, "`%s` of '%s' takes %d arguments (%s); a model library records no "
                       "shapes: give each with --input NAME=SHAPE[:DTYPE], or the model's file "
                       "with --ref MODEL.py (missing: %s)", fname, o->lib, p.n,
                       tvm_ffi_strbuf_cstr(&list), p.name[k]);
      tvm_ffi_strbuf_free(&list);
      status = TVMC_USAGE_ERROR;
      goto done;
    }
    status = make_both(&p, NULL, &r1, &r2, false, args, &made, ref_args, &ref_made);
    if (status != TVMC_OK) goto done;
  }

  /* a CUDA build: the VM on GPU 0 (the host appended), the inputs copied there, the output
   * copied back for the comparison */
  if (status == TVMC_OK && !(vm = tvm_vm_create(exec, &(DLDevice){device_type, 0}, 1))) {
    tvmc_report_error(cmd, "cannot create the VM");
    status = TVMC_FAILURE;
  }
  for (int k = 0; status == TVMC_OK && device_type != kDLCPU && k < p.n; ++k) {
    if (move_value(&args[k], device_type) != 0) {
      tvmc_report_error(cmd, "cannot copy the inputs to the GPU");
      status = TVMC_FAILURE;
    }
  }
  if (status == TVMC_OK && (tvm_vm_invoke(vm, fname, args, p.n, &got) != 0 ||
                            (device_type != kDLCPU && move_value(&got, kDLCPU) != 0))) {
    char what[512];
    snprintf(what, sizeof(what), "calling `%s` of the compiled model failed", fname);
    status = report_run_error(what);
  }
  if (status == TVMC_OK && check) {
    tvm_tir_ir_module_obj* legal = tvm_relax_transform_legalize_ops(mod);
    if (legal) note_reference_cost(legal, fname);
    if (!legal) {
      tvmc_report_error(cmd, "LegalizeOps failed (for the reference)");
      status = TVMC_FAILURE;
    } else if (tvm_relax_eval(legal, fname, ref_args, p.n, &want) != 0) {
      status = report_run_error("the reference evaluator rejected the call");
    }
    tvm_ffi_release(legal);
  }
  if (status == TVMC_OK) {
    print_value(&got, "output");
    if (check) {
      compare_stats st = {0};
      compare(&got, &want, "output", &st);
      if (st.mismatched) {
        /* (a difference may be a value, or an output that cannot be compared at all) */
        printf("check FAILED: %lld difference(s) from the reference evaluator (%lld values "
               "compared)\n", (long long)st.mismatched, (long long)st.compared);
        status = TVMC_PROGRAM_ERROR;
      } else {
        printf("check: ok (%lld values in %lld output tensors match the reference evaluator; "
               "max abs error %.3g)\n",
               (long long)st.compared, (long long)st.outputs, st.max_abs);
      }
    } else if (!mod) {
      printf("check: none (a model library alone has no reference; give its file with --ref "
             "MODEL.py to compare)\n");
    }
  }
  if (status == TVMC_OK && o->repeat > 0) status = time_calls(vm, fname, args, p.n, o->repeat, device_type);
done:
  tvm_ffi_any_release(&got);
  tvm_ffi_any_release(&want);
  for (int k = 0; k < made; ++k) tvm_ffi_any_release(&args[k]);
  for (int k = 0; k < ref_made; ++k) tvm_ffi_any_release(&ref_args[k]);
  if (vm) tvm_vm_release(vm);
  tvm_ffi_release(bindings);
  free(lib_names);
  if (exec) tvm_vm_executable_release(exec);
  return status;
}

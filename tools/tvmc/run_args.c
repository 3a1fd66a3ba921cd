/*
 * run_args.c: binding symbolic sizes, random arguments for a PrimFunc's signature and the
 * comparison of results (run.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tvm/tir/tir.h>
#include <tvm/tir/visit.h>

#include "run.h"
#include "tvmc.h"

/* ---- Symbols of a signature ----------------------------------------------------------------- */
enum { MAX_SYMBOLS = 64 };
typedef struct {
  int n;
  const tvm_tir_var_obj* var[MAX_SYMBOLS];
  bool in_shape[MAX_SYMBOLS]; /* a buffer dimension uses it (so it must be positive) */
} symbols;

static void add_symbol(symbols* s, const tvm_tir_var_obj* var, bool in_shape) {
  for (int k = 0; k < s->n; ++k)
    if (s->var[k] == var) {
      s->in_shape[k] |= in_shape;
      return;
    }
  if (s->n < MAX_SYMBOLS) {
    s->var[s->n] = var;
    s->in_shape[s->n++] = in_shape;
  }
}

static int collect_var(tvm_tir_visitor* v, const void* node) {
  add_symbol(v->ctx, node, true);
  return TVM_TIR_VISIT_CONTINUE;
}

typedef struct {
  const tvm_tir_var_obj* data;
  const tvm_tir_buffer_obj* found;
} decl_search;

static int find_decl(tvm_tir_visitor* v, const void* node) {
  decl_search* d = v->ctx;
  const tvm_tir_buffer_obj* b = ((const tvm_tir_decl_buffer_obj*)node)->buffer;
  if (!d->found && (const void*)b->data == (const void*)d->data) d->found = b;
  return TVM_TIR_VISIT_CONTINUE;
}

/* The buffer T.decl_buffer declares over handle parameter p in f's body (the first), or NULL. */
static const tvm_tir_buffer_obj* declared_over(const tvm_tir_prim_func_obj* f,
                                               const tvm_tir_var_obj* p) {
  if (!tvm_tir_dtype_is_handle(tvm_tir_expr_dtype(p))) return NULL;
  decl_search d = {p, NULL};
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_DeclBuffer] = find_decl;
  v.ctx = &d;
  if (tvm_tir_visit(&v, f->body) != 0) tvm_ffi_error_clear();
  tvm_tir_visitor_free(&v);
  return d.found;
}

/* The buffer of parameter k: its buffer_map entry, or for a bare handle the buffer the body
 * declares over it (*raw set: the argument is the data pointer, not a tensor), or NULL. */
static const tvm_tir_buffer_obj* param_buffer_raw(const tvm_tir_prim_func_obj* f, int64_t k,
                                                  bool* raw) {
  const tvm_tir_var_obj* p = tvm_tir_array_at(f->params, k);
  TVMFFIAny key = tvm_ffi_any_obj(p);
  const TVMFFIAny* b = tvm_ffi_map_get(f->buffer_map, &key);
  const tvm_tir_buffer_obj* d = b ? NULL : declared_over(f, p);
  *raw = d != NULL;
  return b ? (const void*)b->v_obj : d;
}

static const tvm_tir_buffer_obj* param_buffer(const tvm_tir_prim_func_obj* f, int64_t k) {
  bool raw;
  return param_buffer_raw(f, k, &raw);
}

static bool is_int_dtype(DLDataType t) { return t.code == kDLInt || t.code == kDLUInt; }

/* The integer symbols of f's signature: Vars in buffer shapes, then integer scalar params. */
static int collect_symbols(const tvm_tir_prim_func_obj* f, symbols* s) {
  memset(s, 0, sizeof(*s));
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_Var] = v.pre[TVM_TIR_KIND_SizeVar] = collect_var;
  v.ctx = s;
  int rc = 0;
  int64_t n = tvm_tir_array_size(f->params);
  for (int64_t k = 0; k < n && rc == 0; ++k) {
    const tvm_tir_buffer_obj* b = param_buffer(f, k);
    if (b) rc = tvm_tir_visit(&v, b->shape);
  }
  tvm_tir_visitor_free(&v);
  for (int64_t k = 0; k < n; ++k) {
    const tvm_tir_var_obj* p = tvm_tir_array_at(f->params, k);
    if (!param_buffer(f, k) && is_int_dtype(tvm_tir_expr_dtype(p))) add_symbol(s, p, false);
  }
  return rc;
}

static const char* var_name(const tvm_tir_var_obj* v) { return tvm_ffi_str_cstr(v->name_hint); }

static const char* func_name(const tvm_tir_prim_func_obj* f) {
  const char* s = tvm_tir_func_global_symbol(f);
  return s ? s : "main";
}

void* tvmc_bind_shapes(const char* cmd, const tvm_tir_prim_func_obj* func, const char** items,
                       int num_items) {
  symbols s;
  if (collect_symbols(func, &s) != 0) {
    tvmc_report_error(cmd, "cannot read the function's signature");
    return NULL;
  }
  tvm_ffi_strbuf names = {0};
  for (int k = 0; k < s.n; ++k) tvm_ffi_strbuf_printf(&names, "%s%s", k ? ", " : "", var_name(s.var[k]));
  void* dict = tvm_ffi_dict_new();
  bool ok = dict != NULL;
  for (int i = 0; ok && i < num_items; ++i) {
    const char* eq = strchr(items[i], '=');
    int64_t value;
    if (!eq || eq == items[i]) {
      tvmc_usage_error(cmd, "--shape expects NAME=VALUE, got '%s'", items[i]);
      ok = false;
      break;
    }
    if (!tvmc_parse_int(cmd, "--shape", eq + 1, &value)) {
      ok = false;
      break;
    }
    size_t len = (size_t)(eq - items[i]);
    bool found = false;
    for (int k = 0; ok && k < s.n; ++k) {
      const char* nm = var_name(s.var[k]);
      if (strlen(nm) != len || memcmp(nm, items[i], len) != 0) continue;
      found = true;
      TVMFFIAny bound = tvm_ffi_any_obj(s.var[k]);
      if (tvm_ffi_map_get(dict, &bound)) { /* `--shape n=4 --shape n=5`: which one was meant? */
        tvmc_usage_error(cmd, "--shape %s: `%.*s` is bound twice", items[i], (int)len, items[i]);
        ok = false;
      } else if (s.in_shape[k] && value <= 0) {
        tvmc_usage_error(cmd, "--shape %s: a size must be positive", items[i]);
        ok = false;
      }
      TVMFFIAny key = tvm_ffi_any_obj(s.var[k]), val = tvm_ffi_any_int(value);
      if (ok && tvm_ffi_dict_set(dict, &key, &val) != 0) ok = false;
    }
    if (ok && !found) {
      if (s.n)
        tvmc_usage_error(cmd, "--shape %s: `%s` has no symbolic size named `%.*s` (it has: %s)",
                         items[i], func_name(func), (int)len, items[i],
                         tvm_ffi_strbuf_cstr(&names));
      else
        tvmc_usage_error(cmd, "--shape %s: `%s` has no symbolic sizes (its shapes are constant)",
                         items[i], func_name(func));
      ok = false;
    }
  }
  if (ok) {
    tvm_ffi_strbuf unbound = {0};
    for (int k = 0; k < s.n; ++k) {
      TVMFFIAny key = tvm_ffi_any_obj(s.var[k]);
      if (!tvm_ffi_map_get(dict, &key))
        tvm_ffi_strbuf_printf(&unbound, "%s%s", unbound.size ? ", " : "", var_name(s.var[k]));
    }
    if (unbound.size) {
      tvmc_usage_error(cmd, "`%s` has symbolic sizes; bind %s with --shape NAME=VALUE",
                       func_name(func), tvm_ffi_strbuf_cstr(&unbound));
      ok = false;
    }
    tvm_ffi_strbuf_free(&unbound);
  }
  tvm_ffi_strbuf_free(&names);
  if (!ok) {
    if (tvm_ffi_error_pending()) tvmc_report_error(cmd, "cannot bind the sizes");
    tvm_ffi_release(dict);
    return NULL;
  }
  return dict;
}

void* tvmc_bindings_halved(const void* bindings) {
  void* dict = tvm_ffi_dict_new();
  bool changed = false;
  const TVMFFIAny *key, *val;
  for (int64_t pos = 0; dict && (pos = tvm_ffi_map_next(bindings, pos, &key, &val)) >= 0;) {
    int64_t v = 0;
    tvm_ffi_any_as_int(val, &v);
    /* Keep v mod 64, so divisibility the kernel may rely on (n % 8 == 0) still holds. */
    int64_t r = v % 64, k = v / 64, smaller = r + 64 * (k / 2);
    if (v > 0 && smaller >= 1 && smaller < v) {
      v = smaller;
      changed = true;
    }
    TVMFFIAny nv = tvm_ffi_any_int(v);
    if (tvm_ffi_dict_set(dict, key, &nv) != 0) {
      tvm_ffi_release(dict);
      return NULL;
    }
  }
  if (!changed) {
    tvm_ffi_release(dict);
    return NULL;
  }
  return dict;
}

/* ---- Random arguments ----------------------------------------------------------------------- */
static uint64_t next_random(uint64_t* state) { /* splitmix64 */
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* A random non-zero integer in [-range, range] (in [1, range] when unsigned). */
static int64_t random_int(uint64_t* st, int64_t range, bool is_unsigned) {
  if (is_unsigned) return 1 + (int64_t)(next_random(st) % (uint64_t)range);
  int64_t r = (int64_t)(next_random(st) % (uint64_t)(2 * range)) - range;
  return r >= 0 ? r + 1 : r; /* skip 0: [-range, -1] u [1, range] */
}

/* A random element of the scalar type t at p. Floats are k/16 (exact in every float type, so
 * sums and products of a few of them are exact and results compare tightly). */
static void random_elem(DLDataType t, uint64_t* st, char* p) {
  if (t.code == kDLFloat || t.code == kDLBfloat) {
    float x = (float)random_int(st, 64, false) / 16.0f;
    if (t.code == kDLBfloat) {
      uint32_t u;
      memcpy(&u, &x, 4);
      uint16_t hi = (uint16_t)(u >> 16);
      memcpy(p, &hi, 2);
    } else if (t.bits == 16) {
      _Float16 h = (_Float16)x;
      memcpy(p, &h, 2);
    } else if (t.bits == 32) {
      memcpy(p, &x, 4);
    } else {
      double d = x;
      memcpy(p, &d, 8);
    }
    return;
  }
  int64_t v = t.bits == 1 ? (int64_t)(next_random(st) & 1) : random_int(st, 99, t.code == kDLUInt);
  switch (t.bits) {
    case 64: memcpy(p, &v, 8); break;
    case 32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    case 16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    default: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
  }
}

static DLDataType scalar_of(DLDataType t) {
  t.lanes = 1;
  return t;
}

static size_t elem_bytes(DLDataType t) {
  int64_t b = tvm_ffi_dtype_bytes(scalar_of(t));
  return b > 0 ? (size_t)b : 1;
}

/* Whether `copies` copies of out's buffers (sized, not allocated), on top of `held` bytes,
 * stay within tvmc's memory limit; if not, reported as a MemoryError naming the buffer that
 * passes it. */
static bool within_memory_limit(const char* cmd, const tvmc_args* out, int copies,
                                uint64_t held) {
  bool ok;
  uint64_t limit = tvmc_memory_limit(cmd, &ok);
  if (!ok) return false;
  uint64_t total = held;
  for (int k = 0; k < out->n; ++k) {
    uint64_t all;
    if (__builtin_mul_overflow((uint64_t)out->nbytes[k], (uint64_t)copies, &all) ||
        __builtin_add_overflow(total, all, &total) || total > limit) {
      fprintf(stderr,
              "tvmc %s: MemoryError: buffer `%s` (%zu bytes) would bring the memory tvmc %s "
              "holds to %llu bytes, over its limit of %llu bytes (%d cop%s of every buffer%s; "
              "TVMC_MEMORY_LIMIT sets the limit, by default half the physical memory)\n",
              cmd, out->name[k], out->nbytes[k], cmd,
              (unsigned long long)(total < all ? UINT64_MAX : total), (unsigned long long)limit,
              copies, copies == 1 ? "y" : "ies",
              copies > 1 ? ": the inputs, then the compiled run's, the reference run's and the "
                           "initial values' copies for the check" : "");
      return false;
    }
  }
  return true;
}

/* The strides of a buffer with explicit strides (each evaluated under the bindings; a Var that
 * is not bound takes the compact row-major value) into strides, and in *numel the elements its
 * layout reaches from its first one (0 when a dimension is 0). False with the problem reported. */
static bool buffer_strides(const char* cmd, const tvm_tir_buffer_obj* b, const void* bindings,
                           const char* name, const int64_t* shape, int64_t* strides,
                           int64_t* numel, bool* overflow) {
  int ndim = (int)tvm_tir_buffer_ndim(b);
  if (tvm_tir_array_size(b->strides) != ndim) {
    fprintf(stderr, "tvmc %s: buffer `%s` has %lld strides for %d dimensions\n", cmd, name,
            (long long)tvm_tir_array_size(b->strides), ndim);
    return false;
  }
  int64_t compact = 1, span = 1;
  bool empty = false;
  for (int d = ndim - 1; d >= 0; --d) {
    const void* e = tvm_tir_array_at(b->strides, d);
    int64_t v;
    if (!tvmc_eval_int(e, bindings, &v)) {
      tvm_tir_kind kind = tvm_tir_kind_of(e);
      if (kind != TVM_TIR_KIND_Var && kind != TVM_TIR_KIND_SizeVar) {
        fprintf(stderr, "tvmc %s: cannot compute stride %d of buffer `%s` from the bound sizes\n",
                cmd, d, name);
        return false;
      }
      v = compact;
    }
    if (v < 0) {
      fprintf(stderr, "tvmc %s: buffer `%s`: negative stride %lld (dimension %d) is not supported "
              "by tvmc run\n", cmd, name, (long long)v, d);
      return false;
    }
    strides[d] = v;
    empty |= shape[d] == 0;
    int64_t term = 0;
    *overflow |= __builtin_mul_overflow(shape[d] > 0 ? shape[d] - 1 : 0, v, &term) ||
                 __builtin_add_overflow(span, term, &span) ||
                 __builtin_mul_overflow(compact, shape[d], &compact);
  }
  *numel = empty ? 0 : span;
  return true;
}

bool tvmc_args_make(const char* cmd, const tvm_tir_prim_func_obj* func, const void* bindings,
                    unsigned seed, int copies, uint64_t held, tvmc_args* out) {
  memset(out, 0, sizeof(*out));
  uint64_t st = seed;
  int64_t n = tvm_tir_array_size(func->params);
  if (n > TVMC_MAX_PARAMS) {
    fprintf(stderr, "tvmc %s: `%s` has %lld parameters; at most %d are supported\n", cmd,
            func_name(func), (long long)n, TVMC_MAX_PARAMS);
    return false;
  }
  out->n = (int)n;
  for (int k = 0; k < out->n; ++k) {
    const tvm_tir_var_obj* p = tvm_tir_array_at(func->params, k);
    const tvm_tir_buffer_obj* b = param_buffer_raw(func, k, &out->raw[k]);
    out->name[k] = b ? tvm_tir_buffer_name(b) : var_name(p);
    if (!b) {
      DLDataType t = tvm_tir_expr_dtype(p);
      int64_t v;
      if (t.code == kDLFloat || t.code == kDLBfloat) {
        /* (its random value is drawn below, in parameter order with the buffers') */
      } else if (is_int_dtype(t) && tvmc_eval_int(p, bindings, &v)) {
        out->args[k] = tvm_ffi_any_int(v);
      } else {
        fprintf(stderr,
                "tvmc %s: parameter `%s` of `%s` is a handle without a buffer: tvmc run makes "
                "memory only for buffer parameters and handles the body declares a buffer over "
                "(declare it with T.match_buffer, as a T.Buffer parameter, or with "
                "T.decl_buffer(..., data=%s), or run a function that calls this one with a "
                "buffer's data)\n",
                cmd, var_name(p), func_name(func), var_name(p));
        tvmc_args_free(out);
        return false;
      }
      continue;
    }
    int ndim = (int)tvm_tir_buffer_ndim(b);
    if (ndim > TVMC_MAX_NDIM) {
      fprintf(stderr, "tvmc %s: buffer `%s`: more than 16 dimensions are not supported by tvmc run\n",
              cmd, out->name[k]);
      tvmc_args_free(out);
      return false;
    }
    int64_t numel = 1;
    bool overflow = false;
    for (int d = 0; d < ndim; ++d) {
      int64_t v;
      if (!tvmc_eval_int(tvm_tir_array_at(b->shape, d), bindings, &v) || v < 0) {
        fprintf(stderr, "tvmc %s: cannot compute dimension %d of buffer `%s` from the bound sizes\n",
                cmd, d, out->name[k]);
        tvmc_args_free(out);
        return false;
      }
      out->shape[k][d] = v;
      overflow |= __builtin_mul_overflow(numel, v, &numel);
    }
    bool strided = tvm_tir_array_size(b->strides) != 0;
    if (strided && !buffer_strides(cmd, b, bindings, out->name[k], out->shape[k], out->strides[k],
                                   &numel, &overflow)) {
      tvmc_args_free(out);
      return false;
    }
    int64_t offset = 0; /* a symbolic elem_offset is bound to 0 */
    if (!tvmc_eval_int(b->elem_offset, bindings, &offset) || offset < 0) offset = 0;
    size_t esize = elem_bytes(scalar_of(b->dtype));
    /* bytes = (offset + numel) * lanes * esize, which a declared shape can make overflow. */
    size_t elems = 0, bytes = 0;
    overflow |= __builtin_add_overflow((size_t)numel, (size_t)offset, &elems) ||
                __builtin_mul_overflow(elems, (size_t)b->dtype.lanes * esize, &bytes) ||
                bytes > SIZE_MAX - 63;
    if (overflow) {
      fprintf(stderr, "tvmc %s: MemoryError: buffer `%s` is too large to allocate (its size "
              "overflows 64 bits)\n", cmd, out->name[k]);
      tvmc_args_free(out);
      return false;
    }
    out->nbytes[k] = bytes;
    DLTensor* t = &out->t[k];
    t->device = (DLDevice){kDLCPU, 0};
    t->ndim = ndim;
    t->dtype = b->dtype;
    t->shape = out->shape[k];
    t->strides = strided ? out->strides[k] : NULL;
    t->byte_offset = (uint64_t)offset * b->dtype.lanes * esize;
  }
  if (!within_memory_limit(cmd, out, copies, held)) {
    tvmc_args_free(out);
    return false;
  }
  /* Only now, the total known to fit: the memory, filled in parameter order. */
  for (int k = 0; k < out->n; ++k) {
    const tvm_tir_buffer_obj* b = param_buffer(func, k);
    if (!b) {
      const tvm_tir_var_obj* p = tvm_tir_array_at(func->params, k);
      DLDataType t = tvm_tir_expr_dtype(p);
      if (t.code == kDLFloat || t.code == kDLBfloat)
        out->args[k] = tvm_ffi_any_float((double)random_int(&st, 64, false) / 16.0);
      continue;
    }
    size_t bytes = out->nbytes[k];
    if (posix_memalign(&out->data[k], 64, bytes ? (bytes + 63) / 64 * 64 : 64) != 0) {
      out->data[k] = NULL;
      fprintf(stderr, "tvmc %s: out of memory for buffer `%s` (%zu bytes)\n", cmd, out->name[k],
              bytes);
      tvmc_args_free(out);
      return false;
    }
    DLDataType et = scalar_of(b->dtype);
    size_t esize = elem_bytes(et);
    for (size_t e = 0; e < bytes / esize; ++e) random_elem(et, &st, (char*)out->data[k] + e * esize);
    out->t[k].data = out->data[k];
    out->args[k] = out->raw[k] ? tvm_ffi_any_ptr(out->data[k]) : tvm_ffi_any_dltensor(&out->t[k]);
  }
  return true;
}

bool tvmc_args_copy(const tvmc_args* src, tvmc_args* dst) {
  *dst = *src;
  for (int k = 0; k < src->n; ++k) dst->data[k] = NULL;
  for (int k = 0; k < src->n; ++k) {
    if (!src->data[k]) continue;
    size_t alloc = src->nbytes[k] ? (src->nbytes[k] + 63) / 64 * 64 : 64;
    if (posix_memalign(&dst->data[k], 64, alloc) != 0) {
      dst->data[k] = NULL;
      tvmc_args_free(dst);
      return false;
    }
    memcpy(dst->data[k], src->data[k], src->nbytes[k]);
    dst->t[k].data = dst->data[k];
    dst->t[k].shape = dst->shape[k];
    if (src->t[k].strides) dst->t[k].strides = dst->strides[k];
    dst->args[k] = dst->raw[k] ? tvm_ffi_any_ptr(dst->data[k]) : tvm_ffi_any_dltensor(&dst->t[k]);
  }
  return true;
}

void tvmc_args_free(tvmc_args* a) {
  for (int k = 0; k < a->n; ++k) {
    free(a->data[k]);
    a->data[k] = NULL;
  }
}

double tvmc_args_bytes(const tvmc_args* a) {
  double total = 0;
  for (int k = 0; k < a->n; ++k)
    if (a->data[k]) total += (double)(a->nbytes[k] - a->t[k].byte_offset);
  return total;
}

/* ---- Comparison ------------------------------------------------------------------------------ */
static double read_float(DLDataType t, const char* p) {
  if (t.code == kDLBfloat) {
    uint16_t hi;
    memcpy(&hi, p, 2);
    uint32_t u = (uint32_t)hi << 16;
    float x;
    memcpy(&x, &u, 4);
    return x;
  }
  if (t.bits == 16) {
    _Float16 h;
    memcpy(&h, p, 2);
    return (double)h;
  }
  if (t.bits == 32) {
    float x;
    memcpy(&x, p, 4);
    return x;
  }
  double d;
  memcpy(&d, p, 8);
  return d;
}

static int64_t read_int(DLDataType t, const char* p) {
  switch (t.bits) {
    case 64: { int64_t x; memcpy(&x, p, 8); return x; }
    case 32: { int32_t x; memcpy(&x, p, 4); return t.code == kDLUInt ? (int64_t)(uint32_t)x : x; }
    case 16: { int16_t x; memcpy(&x, p, 2); return t.code == kDLUInt ? (int64_t)(uint16_t)x : x; }
    default: { int8_t x; memcpy(&x, p, 1); return t.code == kDLUInt ? (int64_t)(uint8_t)x : x; }
  }
}

double tvmc_tolerance(DLDataType t, double reduction) {
  double base = t.code == kDLBfloat ? 2e-2 : t.bits == 16 ? 1e-2 : t.bits == 32 ? 1e-4 : 1e-9;
  /* unit roundoff: 2^-8 (bfloat16), 2^-11 (float16), 2^-24 (float32), 2^-53 (float64) */
  double u = t.code == kDLBfloat ? 0x1p-8 : t.bits == 16 ? 0x1p-11 : t.bits == 32 ? 0x1p-24 : 0x1p-53;
  double bound = 2.0 * reduction * u;
  return bound > base ? bound : base;
}

/* "[i, j]" of the flat scalar index e of tensor t. */
static void format_index(const DLTensor* t, size_t e, tvm_ffi_strbuf* out) {
  size_t elem = e / t->dtype.lanes;
  int64_t idx[TVMC_MAX_NDIM];
  for (int d = t->ndim - 1; d >= 0; --d) {
    int64_t n = t->shape[d] > 0 ? t->shape[d] : 1;
    idx[d] = (int64_t)(elem % (size_t)n);
    elem /= (size_t)n;
  }
  tvm_ffi_strbuf_putc(out, '[');
  for (int d = 0; d < t->ndim; ++d) tvm_ffi_strbuf_printf(out, "%s%lld", d ? ", " : "", (long long)idx[d]);
  tvm_ffi_strbuf_putc(out, ']');
  if (t->dtype.lanes > 1) tvm_ffi_strbuf_printf(out, " lane %zu", e % t->dtype.lanes);
}

int64_t tvmc_args_compare(const tvmc_args* got, const tvmc_args* want, const tvmc_args* init,
                          double reduction, int64_t* out_compared) {
  int64_t bad = 0;
  for (int k = 0; k < got->n; ++k) {
    if (!got->data[k]) continue;
    DLDataType t = scalar_of(got->t[k].dtype);
    size_t es = elem_bytes(t), off = got->t[k].byte_offset;
    size_t count = (got->nbytes[k] - off) / es;
    bool is_float = t.code == kDLFloat || t.code == kDLBfloat;
    int64_t bad_here = 0;
    for (size_t e = 0; e < count; ++e) {
      const char* x = (const char*)got->data[k] + off + e * es;
      const char* y = (const char*)want->data[k] + off + e * es;
      if (init && memcmp(y, (const char*)init->data[k] + off + e * es, es) == 0) continue;
      ++*out_compared;
      bool same;
      double u = 0, v = 0;
      if (is_float) {
        u = read_float(t, x);
        v = read_float(t, y);
        same = u == v || (isnan(u) && isnan(v)) ||
               fabs(u - v) <= tvmc_tolerance(t, reduction) * fmax(1.0, fmax(fabs(u), fabs(v)));
      } else {
        same = memcmp(x, y, es) == 0;
      }
      if (same) continue;
      if (bad + bad_here == 0) {
        tvm_ffi_strbuf where = {0};
        format_index(&got->t[k], e, &where);
        if (is_float)
          printf("check FAILED: %s%s: compiled %.9g, interpreter %.9g (relative tolerance %g)\n",
                 got->name[k], tvm_ffi_strbuf_cstr(&where), u, v, tvmc_tolerance(t, reduction));
        else
          printf("check FAILED: %s%s: compiled %lld, interpreter %lld\n", got->name[k],
                 tvm_ffi_strbuf_cstr(&where), (long long)read_int(t, x), (long long)read_int(t, y));
        tvm_ffi_strbuf_free(&where);
      }
      bad_here++;
    }
    if (bad_here)
      printf("  %s: %lld of %zu elements differ\n", got->name[k], (long long)bad_here, count);
    bad += bad_here;
  }
  return bad;
}

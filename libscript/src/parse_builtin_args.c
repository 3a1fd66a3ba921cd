/*
 * parse_builtin_args.c: what every `T.*` builtin shares: binding a call's arguments to a
 * Python-like signature, converting argument values (ints, floats, strings, dtypes, shapes,
 * regions), the lookup of a builtin by name over the expression and statement tables, and the
 * recognition of dtype spellings (`T.float32`, `T.int8x4`, ...).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_internal.h"

/* ---- Argument binding ---------------------------------------------------------------------- */
/* Signatures are short; a longer spec is a programming error reported as a RuntimeError. */
#define MAX_PARAMS 24

typedef struct {
  const char* name;
  uint32_t len;
  bool optional; /* trailing '=' */
  bool kw_only;  /* leading '*' */
} param_spec;

/* Split "a, b=, *c=" into params; the count, or -1 when the spec is malformed. */
static int parse_spec(const char* spec, param_spec* ps) {
  int n = 0;
  const char* s = spec;
  while (*s) {
    while (*s == ' ' || *s == ',') ++s;
    if (!*s) break;
    if (n == MAX_PARAMS) return -1;
    param_spec p = {NULL, 0, false, false};
    if (*s == '*') {
      p.kw_only = true;
      ++s;
    }
    p.name = s;
    while (*s && *s != ',' && *s != '=' && *s != ' ') ++s;
    p.len = (uint32_t)(s - p.name);
    if (*s == '=') {
      p.optional = true;
      ++s;
    }
    while (*s == ' ') ++s;
    if (p.len == 0 || (*s && *s != ',')) return -1;
    ps[n++] = p;
  }
  return n;
}

/* The parsed form of a spec. */
typedef struct {
  const char* spec;
  int n;
  int n_pos, n_required_pos; /* parameters that are not keyword-only; those of them required */
  uint32_t required;         /* bit i: parameter i is required */
  bool pos_prefix;           /* the positional places are parameters 0, 1, ... n_pos - 1 */
  uint8_t pos_param[MAX_PARAMS]; /* the parameter of each positional place */
  param_spec ps[MAX_PARAMS];
} spec_entry;

static void spec_parse(spec_entry* e, const char* spec) {
  e->n = parse_spec(spec, e->ps);
  e->spec = spec;
  e->n_pos = e->n_required_pos = 0;
  e->required = 0;
  for (int i = 0; i < e->n; ++i) {
    if (!e->ps[i].optional) e->required |= 1u << i;
    if (e->ps[i].kw_only) continue;
    e->pos_param[e->n_pos++] = (uint8_t)i;
    if (!e->ps[i].optional) ++e->n_required_pos;
  }
  e->pos_prefix = true;
  for (int a = 0; a < e->n_pos; ++a) e->pos_prefix = e->pos_prefix && e->pos_param[a] == a;
}

/* The parsed specs, process-wide, by the spec's address: specs are constant data (string
 * literals of the builtin tables, see tvm_script__bind_args), so each is split once per process.
 * (A per-thread direct-mapped cache of 64 entries re-split specs on every parse, as the few
 * hundred specs evicted each other.) Open addressing over
 * pointers: an entry is allocated, filled and then published by a compare-and-swap on an empty
 * slot (release; readers acquire), and is never changed or freed afterwards, so lookups take no
 * lock. A full table or a failed allocation splits into the caller's scratch entry instead. */
#define SPEC_SLOTS 1024 /* (a power of two, well above the number of specs) */
static const spec_entry* g_specs[SPEC_SLOTS];

static size_t spec_hash(const char* spec) {
  return (size_t)((((uintptr_t)spec >> 3) * UINT64_C(0x9E3779B97F4A7C15)) >> 54); /* 10 bits */
}

static __attribute__((noinline)) const spec_entry* spec_insert(const char* spec,
                                                               spec_entry* scratch) {
  spec_entry* e = malloc(sizeof(*e));
  if (!e) {
    spec_parse(scratch, spec);
    return scratch;
  }
  spec_parse(e, spec);
  size_t i = spec_hash(spec);
  for (size_t k = 0; k < SPEC_SLOTS; ++k, i = (i + 1) & (SPEC_SLOTS - 1)) {
    const spec_entry* seen = NULL;
    if (__atomic_compare_exchange_n(&g_specs[i], &seen, e, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
      return e;
    }
    if (seen->spec == spec) { /* another thread published it first */
      free(e);
      return seen;
    }
  }
  *scratch = *e; /* (the table is full) */
  free(e);
  return scratch;
}

/* (The hit inline, the insertion of a spec not seen yet out of line.) */
static inline const spec_entry* spec_of(const char* spec, spec_entry* scratch) {
  size_t i = spec_hash(spec);
  for (size_t k = 0; k < SPEC_SLOTS; ++k, i = (i + 1) & (SPEC_SLOTS - 1)) {
    const spec_entry* e = __atomic_load_n(&g_specs[i], __ATOMIC_ACQUIRE);
    if (!e) break;
    if (e->spec == spec) return e;
  }
  return spec_insert(spec, scratch);
}

static bool param_is(const param_spec* p, const char* name) {
  return strlen(name) == p->len && memcmp(name, p->name, p->len) == 0;
}

/* Whether the NUL-terminated kw is the parameter's name, without a strlen of kw and a memcmp
 * call per parameter: a name's bytes are never NUL, so the loop stops at kw's end (a shorter kw
 * differs there) and never reads past it. */
static inline bool kw_is(const param_spec* p, const char* kw) {
  const char* name = p->name;
  uint32_t j = 0;
  while (j < p->len && kw[j] == name[j]) ++j;
  return j == p->len && kw[j] == '\0';
}

/* MAX_PARAMS absent parameters (tvm_script_arg_given false), to copy from. */
static const TVMFFIAny kAbsentArgs[MAX_PARAMS] = {
    [0 ... MAX_PARAMS - 1] = {.type_index = TVM_SCRIPT_ARG_ABSENT},
};

int tvm_script__bind_args(tvm_script_call* call, const char* spec, TVMFFIAny* out, int n_out) {
  spec_entry scratch;
  const spec_entry* se = spec_of(spec, &scratch);
  const param_spec* ps = se->ps;
  int n = se->n;
  if (n < 0 || n != n_out) {
    return tvm_ffi_raise("RuntimeError", "%s(): bad argument spec \"%s\" for %d parameters",
                         call->name, spec, n_out);
  }
  /* Positional arguments fill the parameters that are not keyword-only, in order. */
  int n_pos = se->n_pos, n_required_pos = se->n_required_pos;
  if (call->num_args > n_pos) {
    call->error_arg = n_pos;
    if (n_pos == 0) {
      return tvm_ffi_raise("TypeError", "%s() takes no positional arguments (%d given)", call->name,
                           (int)call->num_args);
    }
    return tvm_ffi_raise("TypeError", "%s() takes %s %d argument%s (%d given)", call->name,
                         n_required_pos == n_pos ? "exactly" : "at most", n_pos,
                         n_pos == 1 ? "" : "s", (int)call->num_args);
  }
  uint32_t given = 0;
  if (se->pos_prefix) {
    /* (Most specs: the arguments are parameters 0 .. num_args - 1, the rest start absent.) */
    int a = 0;
    for (; a < call->num_args; ++a) out[a] = call->args[a];
    /* (One copy of the absent stamps rather than a loop of stores: T.Buffer & co. leave most
     * of their ten parameters absent.) */
    memcpy(out + a, kAbsentArgs, (size_t)(n - a) * sizeof(TVMFFIAny));
    given = (uint32_t)((UINT64_C(1) << a) - 1);
  } else {
    memcpy(out, kAbsentArgs, (size_t)n * sizeof(TVMFFIAny));
    for (int a = 0; a < call->num_args; ++a) {
      int i = se->pos_param[a];
      out[i] = call->args[a];
      given |= 1u << i;
    }
  }
  for (int k = 0; k < call->num_kwargs; ++k) {
    const char* kw = call->kw_names[k];
    int i = 0;
    while (i < n && !kw_is(&ps[i], kw)) ++i;
    if (i == n) {
      call->error_arg = call->num_args + k;
      return tvm_ffi_raise("TypeError", "%s() got an unexpected keyword argument '%s'", call->name,
                           kw);
    }
    if (given & (1u << i)) {
      call->error_arg = call->num_args + k;
      return tvm_ffi_raise("TypeError", "%s() got multiple values for argument '%s'", call->name,
                           kw);
    }
    out[i] = call->kwargs[k];
    given |= 1u << i;
  }
  /* The first required parameter not given (in the spec's order). */
  uint32_t missing = se->required & ~given;
  if (missing != 0) {
    int i = __builtin_ctz(missing);
    call->error_arg = -1;
    return tvm_ffi_raise("TypeError", "%s() missing required %sargument '%.*s'", call->name,
                         ps[i].kw_only ? "keyword-only " : "", (int)ps[i].len, ps[i].name);
  }
  return 0;
}

int32_t tvm_script__arg_index(const tvm_script_call* call, const char* spec, int param) {
  spec_entry scratch;
  const spec_entry* se = spec_of(spec, &scratch);
  const param_spec* ps = se->ps;
  int n = se->n;
  if (param < 0 || param >= n) return -1;
  if (!ps[param].kw_only) {
    int pos = 0;
    for (int i = 0; i < param; ++i) pos += !ps[i].kw_only;
    if (pos < call->num_args) return pos;
  }
  for (int k = 0; k < call->num_kwargs; ++k) {
    if (param_is(&ps[param], call->kw_names[k])) return call->num_args + k;
  }
  return -1;
}

int32_t tvm_script__arg_index_named(const tvm_script_call* call, const char* spec,
                                    const char* name, size_t len) {
  spec_entry scratch;
  const spec_entry* se = spec_of(spec, &scratch);
  for (int i = 0; i < se->n; ++i) {
    if (se->ps[i].len == len && memcmp(se->ps[i].name, name, len) == 0) {
      return tvm_script__arg_index(call, spec, i);
    }
  }
  for (int k = 0; k < call->num_kwargs; ++k) {
    const char* kw = call->kw_names[k];
    if (strlen(kw) == len && memcmp(kw, name, len) == 0) return call->num_args + k;
  }
  return -1;
}

const char* tvm_script__arg_what(const tvm_script_call* call, const char* spec, int param,
                                 char* buf, size_t size) {
  spec_entry scratch;
  const spec_entry* se = spec_of(spec, &scratch);
  const param_spec* ps = se->ps;
  int n = se->n;
  if (param >= 0 && param < n) {
    tvm_script__arg_label(buf, size, ps[param].name, ps[param].len, call->name);
  } else {
    snprintf(buf, size, "an argument of %s", call->name);
  }
  return buf;
}

/* Append s[0..n) to buf (cap bytes with its NUL), cut where it is full. */
static size_t label_append(char* buf, size_t cap, size_t at, const char* s, size_t n) {
  if (at + 1 >= cap) return at;
  if (n > cap - 1 - at) n = cap - 1 - at;
  memcpy(buf + at, s, n);
  return at + n;
}

const char* tvm_script__arg_label(char* buf, size_t size, const char* param, size_t param_len,
                                  const char* call_name) {
  if (size == 0) return buf;
  size_t at = label_append(buf, size, 0, "argument '", 10);
  at = label_append(buf, size, at, param, param_len);
  at = label_append(buf, size, at, "' of ", 5);
  at = label_append(buf, size, at, call_name, strlen(call_name));
  buf[at] = '\0';
  return buf;
}

/* ---- Conversions --------------------------------------------------------------------------- */
static int type_error(const TVMFFIAny* v, const char* what, const char* expected) {
  return tvm_ffi_raise("TypeError", "%s must be %s, got %s", what, expected,
                       tvm_ffi_any_type_name(v));
}

tvm_tir_expr_obj* tvm_script__value_to_expr_slow(const TVMFFIAny* v, const char* what) {
  switch (v->type_index) {
    case kTVMFFIInt: {
      bool fits = v->v_int64 >= INT32_MIN && v->v_int64 <= INT32_MAX;
      return tvm_tir_int_imm_new(fits ? TVM_TIR_INT32 : TVM_TIR_INT64, v->v_int64);
    }
    case kTVMFFIBool: return tvm_tir_int_imm_new(TVM_TIR_BOOL, v->v_int64 != 0);
    case kTVMFFIFloat: return tvm_tir_float_imm_new(TVM_TIR_FLOAT32, v->v_float64);
    default: break;
  }
  /* A string where an expression is expected is a StringImm (the argument of call_extern,
   * call_packed, ...), as upstream converts String to PrimExpr: all its bytes, NULs included. */
  TVMFFIByteArray text;
  if (tvm_script__is_str(v) && tvm_ffi_any_as_bytes(v, &text)) {
    return tvm_tir_string_imm_new(text.data, text.size);
  }
  if (tvm_ffi_any_is_object(v) && tvm_script__is_expr(v->v_obj)) {
    tvm_ffi_retain(v->v_obj);
    return (tvm_tir_expr_obj*)v->v_obj;
  }
  if (tvm_ffi_any_is_object(v) && tvm_tir_kind_of(v->v_obj) == TVM_TIR_KIND_BufferRegion) {
    return tvm_script__region_as_load((const tvm_tir_buffer_region_obj*)v->v_obj);
  }
  type_error(v, what, "a PrimExpr");
  return NULL;
}

/* The scalar dtypes most scripts spell as strings (T.Buffer((n,), "float32")), each as its
 * inline small string: its 8 bytes (the name NUL-padded) and length. */
typedef struct {
  char bytes[8];
  uint32_t len;
  DLDataType dtype;
} small_dtype;

#define SMALL_DTYPE(name, code, bits) \
  { name, sizeof(name) - 1, {(uint8_t)(code), (uint8_t)(bits), 1} }
static const small_dtype k_small_dtypes[] = {
    SMALL_DTYPE("float32", kDLFloat, 32), SMALL_DTYPE("int32", kDLInt, 32),
    SMALL_DTYPE("float16", kDLFloat, 16), SMALL_DTYPE("int64", kDLInt, 64),
    SMALL_DTYPE("int8", kDLInt, 8),       SMALL_DTYPE("uint8", kDLUInt, 8),
    SMALL_DTYPE("float64", kDLFloat, 64), SMALL_DTYPE("bool", kDLUInt, 1),
};
#undef SMALL_DTYPE

/* tvm_tir_dtype_parse of an inline small string that names one of k_small_dtypes (the same
 * dtype: test_parse_builtins.c compares them), without its general scan of the name. Bytes and
 * length must both match, so a name that only starts like one (or a longer one) is not taken. */
static inline bool small_dtype_of(const TVMFFIAny* v, DLDataType* out) {
  for (size_t i = 0; i < sizeof(k_small_dtypes) / sizeof(k_small_dtypes[0]); ++i) {
    const small_dtype* d = &k_small_dtypes[i];
    if (v->small_str_len == d->len && memcmp(v->v_bytes, d->bytes, 8) == 0) {
      *out = d->dtype;
      return true;
    }
  }
  return false;
}

int tvm_script__value_to_dtype(const TVMFFIAny* v, const char* what, DLDataType* out) {
  if (v->type_index == kTVMFFISmallStr && small_dtype_of(v, out)) return 0;
  if (v->type_index == kTVMFFIDataType) {
    *out = v->v_dtype;
    return 0;
  }
  if (tvm_ffi_any_is_object(v) && tvm_tir_kind_of(v->v_obj) == TVM_TIR_KIND_PrimType) {
    *out = ((const tvm_tir_prim_type_obj*)v->v_obj)->dtype;
    return 0;
  }
  TVMFFIByteArray s;
  if (!tvm_script__is_str(v) || !tvm_ffi_any_as_bytes(v, &s)) return type_error(v, what, "a dtype");
  if (tvm_tir_dtype_parse(s.data, s.size, out) != 0) {
    tvm_ffi_error_clear();
    return tvm_ffi_raise("ValueError", "%s: unknown dtype \"%.*s\"", what, (int)s.size, s.data);
  }
  return 0;
}

const char* tvm_script__value_to_cstr(const TVMFFIAny* v, const char* what) {
  switch (v->type_index) {
    case kTVMFFIRawStr: return v->v_c_str;
    /* Up to 7 bytes inline, NUL-padded: the pointer is into *v itself. */
    case kTVMFFISmallStr: return (const char*)v->v_bytes;
    case kTVMFFIStr: return tvm_ffi_str_cstr(v->v_obj);
    default: break;
  }
  if (tvm_ffi_any_is_object(v) && tvm_tir_kind_of(v->v_obj) == TVM_TIR_KIND_StringImm) {
    return tvm_ffi_str_cstr(((const tvm_tir_string_imm_obj*)v->v_obj)->value);
  }
  type_error(v, what, "a string");
  return NULL;
}

int tvm_script__value_to_int(const TVMFFIAny* v, const char* what, int64_t* out) {
  if (v->type_index == kTVMFFIInt || v->type_index == kTVMFFIBool) {
    *out = v->v_int64;
    return 0;
  }
  if (tvm_ffi_any_is_object(v) && tvm_tir_kind_of(v->v_obj) == TVM_TIR_KIND_IntImm) {
    *out = ((const tvm_tir_int_imm_obj*)v->v_obj)->value;
    return 0;
  }
  return type_error(v, what, "an int");
}

void* tvm_script__value_to_expr_array(const TVMFFIAny* v, const char* what) {
  const void* seq = tvm_ffi_any_as_object(v, kTVMFFIArray);
  if (!seq) seq = tvm_ffi_any_as_object(v, kTVMFFIList);
  if (!seq) {
    tvm_tir_expr_obj* e = tvm_script__value_to_expr_slow(v, what);
    if (!e) return NULL;
    TVMFFIAny item = tvm_ffi_any_obj(e);
    return tvm_ffi_array_new_take(&item, 1);
  }
  int64_t n = tvm_ffi_seq_size(seq);
  /* An Array that holds PrimExprs only is immutable and already the result: share it. */
  bool exprs = tvm_ffi_type_index(seq) == kTVMFFIArray;
  for (int64_t i = 0; exprs && i < n; ++i) {
    const TVMFFIAny* e = tvm_ffi_seq_at(seq, i);
    exprs = tvm_ffi_any_is_object(e) && tvm_script__is_expr(e->v_obj);
  }
  if (exprs) {
    tvm_ffi_retain((void*)seq);
    return (void*)seq;
  }
  tvm_script_items items; /* (a shape: on the stack) */
  if (!tvm_script_items_init(&items, n)) return NULL;
  void* result = NULL;
  int64_t done = 0;
  for (; done < n; ++done) {
    tvm_tir_expr_obj* e = tvm_script__value_to_expr(tvm_ffi_seq_at(seq, done), what);
    if (!e) break;
    tvm_script_items_push(&items, e);
  }
  if (done == n) result = tvm_script_items_to_array(&items);
  tvm_script_items_free(&items);
  return result;
}

/* The range an index of a BufferLoad covers: [i, i + 1), or for a Ramp of constant stride s
 * [base, base + (lanes - 1) * s + 1) (a vector access). */
static tvm_tir_range_obj* index_range(tvm_tir_expr_obj* index) {
  tvm_tir_expr_obj* min = index;
  int64_t extent_value = 1, stride;
  if (tvm_tir_kind_of(index) == TVM_TIR_KIND_Ramp) {
    const tvm_tir_ramp_obj* r = (const tvm_tir_ramp_obj*)index;
    if (tvm_tir_as_const_int(r->stride, &stride) && stride > 0) {
      min = r->base;
      extent_value = (int64_t)(r->lanes - 1) * stride + 1;
    }
  }
  tvm_tir_expr_obj* extent = tvm_tir_const_int(tvm_tir_expr_dtype(min), extent_value);
  tvm_tir_range_obj* range = extent ? tvm_tir_range_new(min, extent) : NULL;
  tvm_ffi_release(extent);
  return range;
}

tvm_tir_buffer_region_obj* tvm_script__load_region(tvm_tir_buffer_obj* buffer,
                                                   const TVMFFIAny* indices, int64_t n) {
  tvm_script_items ranges;
  if (!tvm_script_items_init(&ranges, n)) return NULL;
  bool ok = true;
  for (int64_t i = 0; ok && i < n; ++i) {
    tvm_tir_range_obj* r = index_range((tvm_tir_expr_obj*)indices[i].v_obj);
    if (r) tvm_script_items_push(&ranges, r);
    ok = r != NULL;
  }
  void* region = ok ? tvm_script_items_to_array(&ranges) : NULL;
  tvm_script_items_free(&ranges);
  tvm_tir_buffer_region_obj* result = region ? tvm_tir_buffer_region_new(buffer, region) : NULL;
  tvm_ffi_release(region);
  return result;
}

tvm_tir_buffer_region_obj* tvm_script__value_to_region(const TVMFFIAny* v, const char* what) {
  void* obj = tvm_ffi_any_is_object(v) ? v->v_obj : NULL;
  switch (tvm_tir_kind_of(obj)) {
    case TVM_TIR_KIND_BufferRegion: tvm_ffi_retain(obj); return obj;
    case TVM_TIR_KIND_Buffer: return tvm_tir_buffer_region_full(obj);
    case TVM_TIR_KIND_BufferLoad: {
      const tvm_tir_buffer_load_obj* load = obj;
      return tvm_script__load_region(load->buffer, tvm_ffi_seq_data(load->indices),
                                     tvm_ffi_seq_size(load->indices));
    }
    default: type_error(v, what, "a buffer region"); return NULL;
  }
}

tvm_tir_expr_obj* tvm_script__arg_to_expr(const tvm_script_call* call, const TVMFFIAny* v,
                                          int64_t nth) {
  /* Numbers, strings and PrimExprs convert without a message: `what` is never read for them. */
  bool converts = v->type_index == kTVMFFIInt || v->type_index == kTVMFFIBool ||
                  v->type_index == kTVMFFIFloat || tvm_script__is_str(v) ||
                  (tvm_ffi_any_is_object(v) && tvm_script__is_expr(v->v_obj));
  if (converts) return tvm_script__value_to_expr(v, "");
  char what[160];
  snprintf(what, sizeof(what), "argument %lld of %s", (long long)nth, call->name);
  return tvm_script__value_to_expr_slow(v, what);
}

tvm_tir_buffer_region_obj* tvm_script__arg_to_region(const tvm_script_call* call,
                                                     const TVMFFIAny* v, int64_t nth) {
  /* The kinds that convert never read `what`. */
  tvm_tir_kind k = tvm_ffi_any_is_object(v) ? tvm_tir_kind_of(v->v_obj) : TVM_TIR_KIND_NONE;
  if (k == TVM_TIR_KIND_BufferRegion || k == TVM_TIR_KIND_Buffer || k == TVM_TIR_KIND_BufferLoad) {
    return tvm_script__value_to_region(v, "");
  }
  char what[160];
  snprintf(what, sizeof(what), "argument %lld of %s", (long long)nth, call->name);
  return tvm_script__value_to_region(v, what);
}

/* ---- dtype spellings ----------------------------------------------------------------------- */
/* A cheap filter first: the lookup runs for every `T.<name>`, and a failed parse raises (and
 * captures a backtrace), so only names shaped like a dtype reach tvm_tir_dtype_parse. */
static bool dtype_shaped(const char* s, size_t n) {
  static const char* const k_bases[] = {"int", "uint", "float", "bfloat", "bool", "handle", "void"};
  for (size_t b = 0; b < sizeof(k_bases) / sizeof(k_bases[0]); ++b) {
    size_t len = strlen(k_bases[b]);
    if (n < len || memcmp(s, k_bases[b], len) != 0) continue;
    for (size_t i = len; i < n; ++i) {
      char c = s[i];
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '_')) return false;
    }
    return true;
  }
  return false;
}

bool tvm_script__tir_dtype_name(const char* name, size_t len, DLDataType* out_dtype) {
  if (!name || !dtype_shaped(name, len)) return false;
  DLDataType t;
  if (tvm_tir_dtype_parse(name, len, &t) != 0) {
    tvm_ffi_error_clear();
    return false;
  }
  if (out_dtype) *out_dtype = t;
  return true;
}

/* ---- Lookup -------------------------------------------------------------------------------- */
/* Both tables in one open-addressing hash table by name, built once (every first `T.x(...)` of
 * a name in a program is a lookup). Where both tables name a builtin, the expression table's
 * wins. The common dtype spellings are entries too, with their dtype read once when the table is
 * built (by tvm_script__tir_dtype_name, as a lookup would read it), so that `T.float32(...)` is
 * one probe rather than a miss, a shape test and a dtype parse; other spellings (`T.int8x4`)
 * still parse. A table entry's name always wins over the dtype reading, as before. */
typedef struct {
  const tvm_script_builtin* b; /* NULL = free */
  const char* name;
  uint32_t len;
  bool is_dtype; /* b is the dtype constructor, for `dtype` */
  DLDataType dtype;
} lookup_slot;
static lookup_slot* g_table; /* (g_mask + 1) slots */
static size_t g_mask;
static pthread_once_t g_table_once = PTHREAD_ONCE_INIT;
static bool g_table_built; /* set (release) at the end of build_table: skips pthread_once */

static void build_table(void);
static inline void ensure_table(void) {
  if (!__atomic_load_n(&g_table_built, __ATOMIC_ACQUIRE)) pthread_once(&g_table_once, build_table);
}

/* The dtype spellings of the table (constant data: the scalar types programs name). */
static const char* const k_dtype_names[] = {
    "bool",   "handle",  "void",    "int8",    "int16",   "int32",   "int64",    "uint8",
    "uint16", "uint32",  "uint64",  "float16", "float32", "float64", "bfloat16", "uint1",
    "int4",   "uint4",   "float8_e4m3fn", "float8_e5m2"};

/* A few characters and the length, rather than every byte: the names differ there (float16 /
 * float32 by the last, axis.S / axis.R by the last, ...), and a collision costs a probe. */
static uint64_t name_hash(const char* name, size_t len) {
  if (len == 0) return 0;
  const unsigned char* u = (const unsigned char*)name;
  uint64_t h = ((uint64_t)len << 32) | ((uint64_t)u[0] << 24) | ((uint64_t)u[len / 2] << 16) |
               ((uint64_t)u[len - 2 + (len < 2)] << 8) | u[len - 1];
  h *= 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

/* Whether a[0, n) and b[0, n) hold the same bytes: for the short names of the table, inline
 * 8-byte (or 4-byte) loads, the last one overlapping, instead of a call to memcmp. */
static inline bool same_name(const char* a, const char* b, size_t n) {
  uint64_t x, y;
  uint32_t u, v;
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) {
      memcpy(&x, a + i, 8);
      memcpy(&y, b + i, 8);
      if (x != y) return false;
    }
    memcpy(&x, a + n - 8, 8);
    memcpy(&y, b + n - 8, 8);
    return x == y;
  }
  if (n >= 4) {
    memcpy(&u, a, 4);
    memcpy(&v, b, 4);
    if (u != v) return false;
    memcpy(&u, a + n - 4, 4);
    memcpy(&v, b + n - 4, 4);
    return u == v;
  }
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

static inline lookup_slot* find_slot(const char* name, size_t len) {
  for (size_t i = name_hash(name, len) & g_mask;; i = (i + 1) & g_mask) {
    lookup_slot* s = &g_table[i];
    if (!s->b || (s->len == len && same_name(s->name, name, len))) return s;
  }
}

static void add_builtins(const tvm_script_builtin* table, int32_t n) {
  for (int32_t i = 0; i < n; ++i) {
    size_t len = strlen(table[i].name);
    lookup_slot* slot = find_slot(table[i].name, len);
    if (!slot->b) *slot = (lookup_slot){&table[i], table[i].name, (uint32_t)len, false, {0, 0, 0}};
  }
}

static void build_table(void) {
  size_t n_dtypes = sizeof(k_dtype_names) / sizeof(k_dtype_names[0]);
  size_t n = (size_t)tvm_script__tir_expr_builtin_count + tvm_script__tir_stmt_builtin_count +
             n_dtypes;
  size_t cap = 16;
  while (cap < 2 * n) cap *= 2;
  /* Allocated once for the life of the process (never freed, like the op registry). */
  g_table = tvm_ffi_calloc(cap, sizeof(*g_table));
  if (!g_table) {
    tvm_ffi_error_clear(); /* lookups then find only dtypes; nothing to report them to */
    return;
  }
  g_mask = cap - 1;
  add_builtins(tvm_script__tir_expr_builtins, tvm_script__tir_expr_builtin_count);
  add_builtins(tvm_script__tir_stmt_builtins, tvm_script__tir_stmt_builtin_count);
  for (size_t i = 0; i < n_dtypes; ++i) {
    const char* name = k_dtype_names[i];
    size_t len = strlen(name);
    DLDataType t;
    lookup_slot* slot = find_slot(name, len);
    if (slot->b || !tvm_script__tir_dtype_name(name, len, &t)) continue;
    *slot = (lookup_slot){&tvm_script__tir_dtype_builtin, name, (uint32_t)len, true, t};
  }
  __atomic_store_n(&g_table_built, true, __ATOMIC_RELEASE);
}

const tvm_script_builtin* tvm_script__tir_builtin_lookup_dtype(const char* name, size_t len,
                                                               DLDataType* dtype, bool* is_dtype) {
  ensure_table();
  *is_dtype = false;
  if (!name) return NULL;
  if (g_table) {
    const lookup_slot* s = find_slot(name, len);
    if (s->b) {
      if (s->is_dtype) {
        *dtype = s->dtype;
        *is_dtype = true;
      }
      return s->b;
    }
  }
  /* Every dtype spelling is a constructor: T.float32(1), T.int8x4(...), T.int64(). */
  if (tvm_script__tir_dtype_name(name, len, dtype)) {
    *is_dtype = true;
    return &tvm_script__tir_dtype_builtin;
  }
  return NULL;
}

const tvm_script_builtin* tvm_script__tir_builtin_lookup(const char* name, size_t len) {
  DLDataType t;
  bool is_dtype;
  return tvm_script__tir_builtin_lookup_dtype(name, len, &t, &is_dtype);
}

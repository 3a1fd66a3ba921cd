/*
 * op_table.c: the operator table built from ops.def: the rows, the ir.Op of each (registered at
 * initialisation), the lookup from an ir.Op to its row, attribute completion against the schema,
 * and the call of an operator's inference rule.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const tvm_relax_attr_field tvm_relax__attrs_none[] = {{NULL, TVM_RELAX_ATTR_ANY, NULL}};

#define PURITY_PURE true
#define PURITY_IMPURE false

static tvm_relax_op_info g_info[TVM_RELAX_OP_COUNT] = {
#define TVM_RELAX_OP(Id, name, args, attrs, infer, pattern, purity)                        \
  [TVM_RELAX_OP_##Id] = {TVM_RELAX_OP_##Id, name, args, 0, 0, tvm_relax__attrs_##attrs, 0, \
                         TVM_RELAX_PATTERN_##pattern, PURITY_##purity},
#include <tvm/relax/ops.def>
};

static const tvm_relax__infer_fn k_infer[TVM_RELAX_OP_COUNT] = {
#define TVM_RELAX_OP(Id, name, args, attrs, infer, pattern, purity) \
  [TVM_RELAX_OP_##Id] = tvm_relax__infer_##infer,
#include <tvm/relax/ops.def>
};

static tvm_tir_op_obj* g_ops[TVM_RELAX_OP_COUNT];

/* ir.Op pointer -> op id + 1, open addressing (the registry's ops live for the process). */
enum { OP_TABLE = 512 };
_Static_assert(TVM_RELAX_OP_COUNT * 2 < OP_TABLE, "op table load");
static struct {
  const void* op;
  int32_t id;
} g_by_ptr[OP_TABLE];

/* Op name ("relax.add") -> op id + 1 and the name's length, open addressing. */
static struct {
  int32_t id;
  uint32_t len;
} g_by_name[OP_TABLE];

static size_t name_slot(const char* name, size_t len) {
  return (size_t)(tvm_ffi_hash_bytes(name, len) >> 40) & (OP_TABLE - 1);
}

static size_t ptr_slot(const void* p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  return (size_t)(x >> 40) & (OP_TABLE - 1);
}

/* Count the arguments of an "a, b, c?, d..." list. */
static void count_args(const char* s, int32_t* min_args, int32_t* max_args) {
  int32_t required = 0, total = 0;
  bool variadic = false;
  while (*s) {
    while (*s == ' ' || *s == ',') ++s;
    if (!*s) break;
    const char* start = s;
    while (*s && *s != ',') ++s;
    const char* end = s;
    while (end > start && end[-1] == ' ') --end;
    ++total;
    if (end - start > 3 && memcmp(end - 3, "...", 3) == 0) {
      variadic = true;
      --total;
    } else if (end[-1] != '?') {
      required = total;
    }
  }
  *min_args = required;
  *max_args = variadic ? -1 : total;
}

int tvm_relax__init_ops(void) {
  for (int i = 0; i < TVM_RELAX_OP_COUNT; ++i) {
    tvm_relax_op_info* info = &g_info[i];
    count_args(info->arg_names, &info->min_args, &info->max_args);
    int32_t n = 0;
    while (info->attrs[n].name) ++n;
    info->num_attrs = n;
    tvm_tir_op_obj* op = tvm_tir_op_register(info->name, info->max_args,
                                             info->pure ? TVM_TIR_EFFECT_PURE
                                                        : TVM_TIR_EFFECT_UPDATE_STATE);
    if (!op) return -1;
    g_ops[i] = op;
    size_t h = ptr_slot(op);
    while (g_by_ptr[h].op) h = (h + 1) & (OP_TABLE - 1);
    g_by_ptr[h].op = op;
    g_by_ptr[h].id = i + 1;
    size_t len = strlen(info->name);
    h = name_slot(info->name, len);
    while (g_by_name[h].id) h = (h + 1) & (OP_TABLE - 1);
    g_by_name[h].id = i + 1;
    g_by_name[h].len = (uint32_t)len;
  }
  return 0;
}

const tvm_relax_op_info* tvm_relax_op_info_get(tvm_relax_op_id id) {
  tvm_relax__ensure_init();
  return id >= 0 && id < TVM_RELAX_OP_COUNT ? &g_info[id] : NULL;
}

const tvm_relax_op_info* tvm_relax_op_info_of(const void* op) {
  if (!op) return NULL;
  tvm_relax__ensure_init();
  for (size_t h = ptr_slot(op); g_by_ptr[h].op; h = (h + 1) & (OP_TABLE - 1)) {
    if (g_by_ptr[h].op == op) return &g_info[g_by_ptr[h].id - 1];
  }
  return NULL;
}

const tvm_relax_op_info* tvm_relax_op_info_find(const char* name, size_t len) {
  tvm_relax__ensure_init();
  for (size_t h = name_slot(name, len); g_by_name[h].id; h = (h + 1) & (OP_TABLE - 1)) {
    const tvm_relax_op_info* info = &g_info[g_by_name[h].id - 1];
    if (g_by_name[h].len == len && memcmp(info->name, name, len) == 0) return info;
  }
  return NULL;
}

tvm_tir_op_obj* tvm_relax_op(tvm_relax_op_id id) {
  tvm_relax__ensure_init();
  return id >= 0 && id < TVM_RELAX_OP_COUNT ? g_ops[id] : NULL;
}

bool tvm_relax_is_call_to(const void* expr, tvm_relax_op_id id) {
  return tvm_relax_kind_of(expr) == TVM_RELAX_KIND_Call &&
         ((const tvm_relax_call_obj*)expr)->op == (void*)tvm_relax_op(id);
}

int32_t tvm_relax_op_attr_index(const tvm_relax_op_info* info, const char* name) {
  for (int32_t i = 0; i < info->num_attrs; ++i) {
    if (strcmp(info->attrs[i].name, name) == 0) return i;
  }
  return -1;
}

const TVMFFIAny* tvm_relax_call_attr(const tvm_relax_call_obj* call, const char* name) {
  return call->attrs ? tvm_ffi_map_get_str(call->attrs, name) : NULL;
}

const char* tvm_relax__call_attr_str(const tvm_relax_call_obj* call, const char* name,
                                     const char* dflt) {
  const TVMFFIAny* a = tvm_relax_call_attr(call, name);
  TVMFFIByteArray b;
  if (!a || (a->type_index != kTVMFFIStr && a->type_index != kTVMFFISmallStr)) return dflt;
  return tvm_ffi_any_as_bytes(a, &b) ? b.data : dflt;
}

int64_t tvm_relax__call_attr_int(const tvm_relax_call_obj* call, const char* name, int64_t dflt) {
  const TVMFFIAny* a = tvm_relax_call_attr(call, name);
  int64_t r = dflt;
  if (a && !tvm_ffi_any_is_none(a)) tvm_ffi_any_as_int(a, &r);
  return r;
}

bool tvm_relax__call_attr_bool(const tvm_relax_call_obj* call, const char* name, bool dflt) {
  const TVMFFIAny* a = tvm_relax_call_attr(call, name);
  bool r = dflt;
  if (a && !tvm_ffi_any_is_none(a)) tvm_ffi_any_as_bool(a, &r);
  return r;
}

double tvm_relax__call_attr_float(const tvm_relax_call_obj* call, const char* name, double dflt) {
  const TVMFFIAny* a = tvm_relax_call_attr(call, name);
  double r = dflt;
  if (a && !tvm_ffi_any_is_none(a)) tvm_ffi_any_as_float(a, &r);
  return r;
}

/* ---- Attribute values ------------------------------------------------------------------------ */
static const char* kind_name(tvm_relax_attr_kind k) {
  switch (k) {
    case TVM_RELAX_ATTR_BOOL: return "a bool";
    case TVM_RELAX_ATTR_INT: return "an int";
    case TVM_RELAX_ATTR_FLOAT: return "a float";
    case TVM_RELAX_ATTR_STR: return "a string";
    case TVM_RELAX_ATTR_DTYPE: return "a dtype";
    case TVM_RELAX_ATTR_INTS: return "a list of ints";
    case TVM_RELAX_ATTR_FLOATS: return "a list of floats";
    case TVM_RELAX_ATTR_OPT_INT: return "an int or None";
    case TVM_RELAX_ATTR_OPT_INTS: return "a list of ints or None";
    case TVM_RELAX_ATTR_OPT_FLOAT: return "a float or None";
    case TVM_RELAX_ATTR_OPT_STR: return "a string or None";
    default: return "a value";
  }
}

static bool as_int(const TVMFFIAny* a, int64_t* out) {
  if (a->type_index == kTVMFFIInt) return tvm_ffi_any_as_int(a, out);
  void* obj = tvm_ffi_any_is_object(a) ? a->v_obj : NULL;
  return obj && tvm_tir_kind_of(obj) == TVM_TIR_KIND_IntImm && tvm_tir_as_const_int(obj, out);
}

/* One item of a list attribute: an int / IntImm, or with floats also a float / FloatImm (an
 * int then stored as a float; bools never), into *out. */
static bool as_item(const TVMFFIAny* a, bool floats, TVMFFIAny* out) {
  int64_t v;
  double d;
  if (as_int(a, &v)) {
    *out = floats ? tvm_ffi_any_float((double)v) : tvm_ffi_any_int(v);
    return true;
  }
  if (!floats) return false;
  if (a->type_index == kTVMFFIFloat) {
    tvm_ffi_any_as_float(a, &d);
  } else if (!(tvm_ffi_any_is_object(a) && tvm_tir_as_const_float(a->v_obj, &d))) {
    return false;
  }
  *out = tvm_ffi_any_float(d);
  return true;
}

/* ints: an Array of ints / IntImms, or one int; floats: an Array of numbers. *out a new Array of
 * ints or floats. */
static int as_list(const TVMFFIAny* a, bool floats, TVMFFIAny* out) {
  TVMFFIAny item;
  if (!floats && as_item(a, false, &item)) {
    void* arr = tvm_ffi_array_new(&item, 1);
    if (!arr) return -1;
    *out = tvm_ffi_any_obj(arr); /* *out owns the array */
    return 1;
  }
  if (a->type_index != kTVMFFIArray && a->type_index != kTVMFFIList) return 0;
  int64_t n = tvm_ffi_seq_size(a->v_obj);
  TVMFFIAny* items = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
  if (!items) return -1;
  for (int64_t i = 0; i < n; ++i) {
    if (!as_item(tvm_ffi_seq_at(a->v_obj, i), floats, &items[i])) {
      tvm_ffi_free(items);
      return 0;
    }
  }
  void* arr = tvm_ffi_array_new(items, n);
  tvm_ffi_free(items);
  if (!arr) return -1;
  *out = tvm_ffi_any_obj(arr); /* *out owns the array */
  return 1;
}

/* Convert a given value to the field's kind: 1 ok (*out owned), 0 wrong kind, -1 error. */
static int convert(tvm_relax_attr_kind kind, const TVMFFIAny* a, TVMFFIAny* out) {
  int64_t i;
  double d;
  bool none = tvm_ffi_any_is_none(a);
  switch (kind) {
    case TVM_RELAX_ATTR_OPT_INT:
      if (none) return *out = tvm_ffi_any_none(), 1;
      /* fall through */
    case TVM_RELAX_ATTR_INT:
      if (a->type_index == kTVMFFIBool || !as_int(a, &i)) return 0;
      return *out = tvm_ffi_any_int(i), 1;
    case TVM_RELAX_ATTR_BOOL: {
      bool b;
      if (a->type_index == kTVMFFIBool && tvm_ffi_any_as_bool(a, &b)) return *out = tvm_ffi_any_bool(b), 1;
      if (a->type_index == kTVMFFIInt && tvm_ffi_any_as_int(a, &i) && (i == 0 || i == 1)) {
        return *out = tvm_ffi_any_bool(i != 0), 1;
      }
      return 0;
    }
    case TVM_RELAX_ATTR_OPT_FLOAT:
      if (none) return *out = tvm_ffi_any_none(), 1;
      /* fall through */
    case TVM_RELAX_ATTR_FLOAT:
      if (a->type_index == kTVMFFIFloat || a->type_index == kTVMFFIInt) {
        tvm_ffi_any_as_float(a, &d);
        return *out = tvm_ffi_any_float(d), 1;
      }
      if (tvm_ffi_any_is_object(a) && tvm_tir_as_const_float(a->v_obj, &d)) {
        return *out = tvm_ffi_any_float(d), 1;
      }
      return 0;
    case TVM_RELAX_ATTR_OPT_STR:
      if (none) return *out = tvm_ffi_any_none(), 1;
      /* fall through */
    case TVM_RELAX_ATTR_STR: {
      /* A StringImm (R.str("...")) stands for its string, as upstream's printer writes some
       * (R.print(format=R.str("..."))). */
      TVMFFIAny inner;
      if (tvm_ffi_any_is_object(a) && tvm_relax_kind_of(a->v_obj) == TVM_RELAX_KIND_StringImm) {
        inner = tvm_ffi_any_obj(((const tvm_relax_string_imm_obj*)a->v_obj)->value);
        a = &inner;
      }
      TVMFFIByteArray bytes;
      if (a->type_index == kTVMFFIBytes || a->type_index == kTVMFFISmallBytes ||
          !tvm_ffi_any_as_bytes(a, &bytes)) {
        return 0;
      }
      *out = tvm_ffi_string_n(bytes.data, bytes.size);
      return out->type_index == kTVMFFINone ? -1 : 1;
    }
    case TVM_RELAX_ATTR_DTYPE: {
      if (a->type_index == kTVMFFIDataType) return *out = *a, 1;
      if (tvm_ffi_any_is_object(a) && tvm_relax_kind_of(a->v_obj) == TVM_RELAX_KIND_DataTypeImm) {
        return *out = tvm_ffi_any_dtype(((const tvm_relax_dtype_imm_obj*)a->v_obj)->value), 1;
      }
      TVMFFIByteArray bytes;
      if (!tvm_ffi_any_as_bytes(a, &bytes)) return 0;
      DLDataType t = TVM_RELAX_DTYPE_UNKNOWN;
      if (bytes.size && tvm_tir_dtype_parse(bytes.data, bytes.size, &t) != 0) return -1;
      return *out = tvm_ffi_any_dtype(t), 1;
    }
    case TVM_RELAX_ATTR_OPT_INTS:
      if (none) return *out = tvm_ffi_any_none(), 1;
      /* fall through */
    case TVM_RELAX_ATTR_INTS:
    case TVM_RELAX_ATTR_FLOATS:
      return as_list(a, kind == TVM_RELAX_ATTR_FLOATS, out);
    case TVM_RELAX_ATTR_ANY:
      *out = tvm_ffi_any_copy(a);
      return 1;
  }
  return 0;
}

int tvm_relax_op_attr_default(const tvm_relax_op_info* info, int32_t i, TVMFFIAny* out) {
  const tvm_relax_attr_field* f = &info->attrs[i];
  const char* t = f->default_text;
  if (!t) return tvm_ffi_raise("ValueError", "%s: attribute '%s' is required", info->name, f->name);
  if (strcmp(t, "None") == 0 &&
      (f->kind >= TVM_RELAX_ATTR_OPT_INT || f->kind == TVM_RELAX_ATTR_ANY)) {
    *out = tvm_ffi_any_none();
    return 0;
  }
  switch (f->kind) {
    case TVM_RELAX_ATTR_BOOL:
      *out = tvm_ffi_any_bool(strcmp(t, "true") == 0);
      return 0;
    case TVM_RELAX_ATTR_INT:
    case TVM_RELAX_ATTR_OPT_INT:
      *out = tvm_ffi_any_int(strtoll(t, NULL, 10));
      return 0;
    case TVM_RELAX_ATTR_FLOAT:
    case TVM_RELAX_ATTR_OPT_FLOAT:
      *out = tvm_ffi_any_float(tvm_ffi_strtod(t, NULL));
      return 0;
    case TVM_RELAX_ATTR_STR:
    case TVM_RELAX_ATTR_OPT_STR:
      *out = tvm_ffi_string(t);
      return out->type_index == kTVMFFINone ? -1 : 0;
    case TVM_RELAX_ATTR_DTYPE: {
      DLDataType d = TVM_RELAX_DTYPE_UNKNOWN;
      if (*t && tvm_tir_dtype_parse(t, strlen(t), &d) != 0) return -1;
      *out = tvm_ffi_any_dtype(d);
      return 0;
    }
    case TVM_RELAX_ATTR_INTS:
    case TVM_RELAX_ATTR_OPT_INTS:
    case TVM_RELAX_ATTR_FLOATS: {
      TVMFFIAny items[16];
      int64_t n = 0;
      for (const char* p = t; *p && n < 16;) {
        char* end;
        if (f->kind == TVM_RELAX_ATTR_FLOATS) {
          items[n] = tvm_ffi_any_float(tvm_ffi_strtod(p, &end));
        } else {
          items[n] = tvm_ffi_any_int(strtoll(p, &end, 10));
        }
        if (end == p) break;
        ++n;
        p = end;
        while (*p == ',' || *p == ' ') ++p;
      }
      void* arr = tvm_ffi_array_new(items, n);
      if (!arr) return -1;
      *out = tvm_ffi_any_obj(arr); /* *out owns the array */
      return 0;
    }
    default:
      *out = tvm_ffi_any_none();
      return 0;
  }
}

/* The number of values of an INTS default ("1, 1" -> 2). */
static int64_t default_count(const char* t) {
  int64_t n = 1;
  for (; *t; ++t) n += *t == ',';
  return n;
}

/* A list attribute whose default has k > 1 values (the spatial ones of the convolutions and
 * pools: strides, dilation, pool_size, output_padding of k dims, padding of k = 2 * dims; an
 * adaptive pool's output_size, one per spatial dim of its layout) given fewer, completed in *v
 * as upstream's wrappers and constructors store it: one value repeated k
 * times (`strides=2` -> [2, 2]), k / 2 values twice (a padding of one value per dim: [1, 2] ->
 * [1, 2, 1, 2], GetCompletePadding2D). Any other count is left to the inference rules' errors. */
static int complete_spatial(const tvm_relax_op_info* info, const tvm_relax_attr_field* f,
                            TVMFFIAny* v) {
  int64_t k = 0;
  if (f->kind == TVM_RELAX_ATTR_INTS && f->default_text) {
    k = default_count(f->default_text);
  } else if (f->kind == TVM_RELAX_ATTR_OPT_INTS && strcmp(f->name, "output_size") == 0 &&
             v->type_index == kTVMFFIArray) {
    /* an adaptive pool's output_size: one value per spatial dim of its layout ("NCHW": 2) */
    int32_t li = tvm_relax_op_attr_index(info, "layout");
    const char* layout = li >= 0 ? info->attrs[li].default_text : NULL;
    k = layout && strlen(layout) > 2 ? (int64_t)strlen(layout) - 2 : 0;
  }
  if (k <= 1 || k > 16) return 0;
  int64_t n = tvm_ffi_seq_size(v->v_obj);
  if (!(n == 1 || 2 * n == k)) return 0;
  TVMFFIAny items[16];
  for (int64_t i = 0; i < k; ++i) items[i] = *tvm_ffi_seq_at(v->v_obj, i % n); /* (ints) */
  void* arr = tvm_ffi_array_new(items, k);
  if (!arr) return -1;
  tvm_ffi_any_release(v);
  *v = tvm_ffi_any_obj(arr);
  return 0;
}

/* A given attribute's value converted to field f's kind into *out: 0, or -1 + error. */
static int convert_given(const tvm_relax_op_info* info, const tvm_relax_attr_field* f,
                         const TVMFFIAny* given, TVMFFIAny* out) {
  int c = convert(f->kind, given, out);
  if (c == 0) {
    return tvm_ffi_raise("TypeError", "%s: attribute '%s' must be %s, got %s", info->name,
                         f->name, kind_name(f->kind), tvm_ffi_any_type_name(given));
  }
  if (c > 0 && complete_spatial(info, f, out) != 0) return -1;
  return c < 0 ? tvm_ffi_raise_context("%s: attribute '%s'", info->name, f->name) : 0;
}

/* The TypeError for a key of attrs that is not in the schema (the caller found one). */
static int unknown_attr(const tvm_relax_op_info* info, const void* attrs) {
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(attrs, pos, &k, &v)) >= 0;) {
    TVMFFIByteArray name;
    if (!tvm_ffi_any_as_bytes(k, &name)) {
      return tvm_ffi_raise("TypeError", "%s: attribute names must be strings", info->name);
    }
    bool found = false;
    for (int32_t i = 0; i < info->num_attrs && !found; ++i) {
      found = strlen(info->attrs[i].name) == name.size &&
              memcmp(info->attrs[i].name, name.data, name.size) == 0;
    }
    if (!found) {
      if (info->num_attrs == 0) {
        return tvm_ffi_raise("TypeError", "%s: unknown attribute '%.*s' (the operator has none)",
                             info->name, (int)name.size, name.data);
      }
      return tvm_ffi_raise("TypeError", "%s: unknown attribute '%.*s'", info->name,
                           (int)name.size, name.data);
    }
  }
  return tvm_ffi_raise("TypeError", "%s: an attribute name is not in the schema", info->name);
}

/* The completed Map of attrs (NULL: none given) field by field, each field's default parsed from
 * its text: for an operator with a required field, and to build the shared defaults. */
static int complete_by_schema(const tvm_relax_op_info* info, void* attrs, void** out) {
  int32_t n = info->num_attrs;
  TVMFFIAny keys[32], values[32];
  if (n > 32) return tvm_ffi_raise("RuntimeError", "%s: too many attributes", info->name);
  int32_t i = 0, matched = 0;
  int rc = 0;
  for (; rc == 0 && i < n; ++i) {
    const tvm_relax_attr_field* f = &info->attrs[i];
    const TVMFFIAny* given = attrs ? tvm_ffi_map_get_str(attrs, f->name) : NULL;
    keys[i] = tvm_ffi_string(f->name);
    values[i] = tvm_ffi_any_none();
    if (given) {
      ++matched;
      rc = convert_given(info, f, given, &values[i]);
    } else {
      rc = tvm_relax_op_attr_default(info, i, &values[i]);
    }
  }
  if (rc == 0 && attrs && matched != tvm_ffi_map_size(attrs)) rc = unknown_attr(info, attrs);
  if (rc == 0) {
    *out = tvm_ffi_map_new(keys, values, n);
    if (!*out) rc = -1;
  }
  for (int32_t j = 0; j < i; ++j) {
    tvm_ffi_any_release(&keys[j]);
    tvm_ffi_any_release(&values[j]);
  }
  return rc;
}

/* Each operator's attributes completed from nothing (every field its default, in schema order),
 * built on the first call that needs them and kept for the process, as the ir.Ops are: a call
 * that gives no attribute shares this Map, and one that gives some takes the keys and the other
 * fields' values from it, so that defaults are parsed from their text once, not per call.
 * NO_DEFAULTS: the operator has a required field (its calls complete by the schema). */
static void* g_defaults[TVM_RELAX_OP_COUNT];
static char g_no_defaults;
#define NO_DEFAULTS ((void*)&g_no_defaults)

/* The operator's shared defaults (borrowed), NULL when a field is required; -1 + error when
 * they could not be built. */
static int defaults_of(const tvm_relax_op_info* info, void** out) {
  void** slot = &g_defaults[info->id];
  void* d = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (!d) {
    bool required = false;
    for (int32_t i = 0; i < info->num_attrs; ++i) required |= !info->attrs[i].default_text;
    void* built = NO_DEFAULTS;
    if (!required && complete_by_schema(info, NULL, &built) != 0) return -1;
    d = NULL;
    if (__atomic_compare_exchange_n(slot, &d, built, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      d = built;
    } else if (built != NO_DEFAULTS) {
      tvm_ffi_release(built); /* another thread's is the one kept */
    }
  }
  *out = d == NO_DEFAULTS ? NULL : d;
  return 0;
}

int tvm_relax__complete_attrs(const tvm_relax_op_info* info, void* attrs, void** out) {
  *out = NULL;
  int64_t given_n = attrs ? tvm_ffi_map_size(attrs) : 0;
  if (info->num_attrs == 0) return given_n > 0 ? unknown_attr(info, attrs) : 0;
  void* defaults;
  if (defaults_of(info, &defaults) != 0) return -1;
  if (!defaults) return complete_by_schema(info, attrs, out);
  if (given_n == 0) {
    tvm_ffi_retain(defaults);
    *out = defaults;
    return 0;
  }
  /* The defaults' entries are the schema's fields in order (insertion order). */
  int32_t n = info->num_attrs;
  TVMFFIAny keys[32], values[32];
  int32_t i = 0, matched = 0;
  int rc = 0;
  const TVMFFIAny *k, *dv;
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(defaults, pos, &k, &dv)) >= 0; ++i) {
    const TVMFFIAny* given = tvm_ffi_map_get(attrs, k);
    keys[i] = tvm_ffi_any_copy(k);
    if (given) {
      ++matched;
      values[i] = tvm_ffi_any_none();
      rc = convert_given(info, &info->attrs[i], given, &values[i]);
    } else {
      values[i] = tvm_ffi_any_copy(dv);
    }
  }
  if (rc == 0 && matched != given_n) rc = unknown_attr(info, attrs);
  if (rc == 0) {
    *out = tvm_ffi_map_new(keys, values, n);
    if (!*out) rc = -1;
  }
  for (int32_t j = 0; j < i; ++j) {
    tvm_ffi_any_release(&keys[j]);
    tvm_ffi_any_release(&values[j]);
  }
  return rc;
}

tvm_relax_sinfo_obj* tvm_relax__infer(const tvm_relax_op_info* info, void* args, void* attrs,
                                      void* sinfo_args) {
  int32_t n = (int32_t)tvm_ffi_seq_size(args);
  if (n < info->min_args || (info->max_args >= 0 && n > info->max_args)) {
    if (info->max_args < 0) {
      tvm_ffi_raise("TypeError", "%s takes at least %d arguments (%s), got %d", info->name,
                    info->min_args, info->arg_names, n);
    } else if (info->min_args == info->max_args) {
      tvm_ffi_raise("TypeError", "%s takes %d arguments (%s), got %d", info->name, info->min_args,
                    info->arg_names, n);
    } else {
      tvm_ffi_raise("TypeError", "%s takes %d to %d arguments (%s), got %d", info->name,
                    info->min_args, info->max_args, info->arg_names, n);
    }
    return NULL;
  }
  tvm_relax__infer_ctx ctx = {info, args, n, attrs, sinfo_args, NULL};
  if (tvm_relax__has_dist_rule(info->id)) {
    for (int32_t i = 0; i < n; ++i) {
      if (tvm_relax_kind_of(tvm_relax__arg_sinfo(&ctx, i)) == TVM_RELAX_KIND_DTensorStructInfo) {
        return tvm_relax__infer_dist(&ctx, k_infer[info->id]);
      }
    }
  }
  return k_infer[info->id](&ctx);
}

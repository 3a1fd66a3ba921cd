/*
 * json_legacy.c: reading the JSON graphs TVM wrote before tvm-ffi (node.SaveJSON of TVM <= 0.19
 * and of the releases moving to tvm-ffi), as in the metadata sections of the TVMScript they
 * printed. tvm_ffi_json_load comes here when the top-level object has a "root" member:
 *
 *   {"root": R, "nodes": [node, ...], "b64ndarrays": ["<base64>", ...], "attrs": {...}}
 *
 * ("b64ndarrays" and "attrs" are optional; "attrs", e.g. {"tvm_version": "0.17.dev0"}, is
 * ignored). A node is an object whose members are all optional:
 *   "type_key"              the type key; "" (node 0, always) is None
 *   "attrs"                 {field name: string}, every field as text: an object field holds the
 *                           decimal index of its node ("0", the null node, or "null": None), an
 *                           int field its decimal value, a bool field "0"/"1", a float field its
 *                           decimal text (17 digits) or inf/-inf/nan, a dtype field the dtype
 *                           string, and a tensor field, when the graph has b64ndarrays, the index
 *                           of its tensor there
 *   "keys"                  a Map whose keys are all strings: the keys, "data" holding the values
 *   "data"                  node indices: an Array's elements, or a Map's values (with "keys") or
 *                           its keys and values alternating
 *   "repr_str" / "repr_b64" the bytes of a type written by its repr (as text when printable, else
 *                           base64): a String's text (none: ""), an Op's name, a tensor's base64
 *                           record (the releases that wrote tensors as nodes, b64ndarrays empty)
 * The transitional releases also wrote primitive values as nodes ("int" with attrs {"v_int64"},
 * "float" {"v_float64"}, "bool", "DataType" {"v_type"}, "Device" {"v_device_type",
 * "v_device_id"}).
 *
 * Reading is directed by our type registry: a node's type key is mapped to ours where upstream
 * renamed it (Array -> ffi.Array, IntImm -> ir.IntImm, ...), the object is created as
 * json.c creates one, and each reflected field is converted from its text by the field's static
 * type. `_checked_type_` (not a field of ours) is ignored, as is `span` where a type of ours
 * has none; any other attribute that names no field is an error. A missing `span` or `vdevice`
 * (fields older releases lacked) is None; any other missing field takes its default, or is an
 * error. A tensor is made by ffi.Tensor's "__data_from_json__" type attribute from the base64
 * text (libtir's tensor_json.c: the same dmlc NDArray record, every size checked against the
 * data before anything is allocated), an Op by ir.Op's from its name; tensors are decoded once
 * and shared by the fields naming them. Only nodes reachable from the root are read, depth
 * first with an explicit stack, so a cycle is a reference to a node on the stack. Every error is
 * raised as "legacy JSON graph node N (type key): ..." (ValueError for bad text, indices and
 * cycles, TypeError for wrong JSON kinds and fields, KeyError for unknown type keys).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "json_internal.h"

typedef tvm_ffi__jval jval;

enum { NODE_NEW = 0, NODE_ACTIVE = 1, NODE_DONE = 2 };

/* One node: the JSON values of its members (-1 when absent) and its resolved type. */
typedef struct {
  int32_t json, type_key, attrs, keys, data, repr;
  int32_t type;     /* type index, once resolved */
  bool repr_b64;    /* repr is base64 (repr_b64) rather than text (repr_str) */
  bool uses_fields; /* an object read through its reflected fields */
  uint8_t state;
} lnode;

typedef struct {
  const tvm_ffi__jparser* p;
  int64_t n;
  lnode* nodes;
  TVMFFIAny* values;  /* decoded values (owned) */
  int32_t nb;         /* b64ndarrays */
  int32_t* b64;       /* the JSON string of each */
  TVMFFIAny* tensors; /* decoded b64ndarrays (owned), None until first used */
  const TVMFFITypeAttrColumn* from_json;
} legacy;

static const jval* V(const legacy* L, int32_t v) { return &L->p->vals[v]; }

static const char* jkind(const legacy* L, int32_t v) {
  return tvm_ffi__json_kind_names[V(L, v)->kind];
}

static int node_err(const legacy* L, const char* kind, int64_t i, const char* fmt, ...)
    TVM_FFI_PRINTF(4, 5) TVM_FFI_COLD;
static int node_err(const legacy* L, const char* kind, int64_t i, const char* fmt, ...) {
  tvm_ffi_strbuf b = {0};
  tvm_ffi_strbuf_printf(&b, "legacy JSON graph node %lld", (long long)i);
  int32_t tk = L->nodes[i].type_key;
  if (tk >= 0 && V(L, tk)->kind == J_STR && V(L, tk)->u.s.len > 0) {
    TVMFFIByteArray s = tvm_ffi__jstr(L->p, V(L, tk));
    tvm_ffi_strbuf_printf(&b, " (%.*s)", (int)(s.size > 200 ? 200 : s.size), s.data);
  }
  tvm_ffi_strbuf_puts(&b, ": ");
  va_list ap;
  va_start(ap, fmt);
  tvm_ffi_strbuf_vprintf(&b, fmt, ap);
  va_end(ap);
  tvm_ffi_raise(kind, "%s", tvm_ffi_strbuf_cstr(&b));
  tvm_ffi_strbuf_free(&b);
  return -1;
}

/* ---- Text of attributes ------------------------------------------------------------------- */
/* A decimal int64, the whole of s. */
static bool parse_int(TVMFFIByteArray s, int64_t* out) {
  size_t k = 0;
  bool neg = s.size > 0 && s.data[0] == '-';
  if (neg || (s.size > 0 && s.data[0] == '+')) k = 1;
  if (k == s.size) return false;
  uint64_t mag = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  for (; k < s.size; ++k) {
    char c = s.data[k];
    if (c < '0' || c > '9') return false;
    uint64_t d = (uint64_t)(c - '0');
    if (mag > (limit - d) / 10) return false;
    mag = mag * 10 + d;
  }
  *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
  return true;
}

static bool bytes_is(TVMFFIByteArray s, const char* lit) {
  return s.size == strlen(lit) && memcmp(s.data, lit, s.size) == 0;
}

/* A double as C++'s stream wrote it (or inf/-inf/nan), the whole of s. */
static bool parse_float(TVMFFIByteArray s, double* out) {
  if (bytes_is(s, "inf") || bytes_is(s, "+inf")) {
    *out = INFINITY;
    return true;
  }
  if (bytes_is(s, "-inf")) {
    *out = -INFINITY;
    return true;
  }
  if (bytes_is(s, "nan") || bytes_is(s, "-nan")) {
    *out = NAN;
    return true;
  }
  char buf[64];
  if (s.size == 0 || s.size >= sizeof(buf)) return false;
  for (size_t k = 0; k < s.size; ++k) {
    char c = s.data[k];
    /* digits, sign, point and exponent only: no hex floats, no whitespace */
    if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) {
      return false;
    }
  }
  memcpy(buf, s.data, s.size);
  buf[s.size] = '\0';
  char* end = NULL;
  *out = tvm_ffi_strtod(buf, &end);
  return end == buf + s.size;
}

/* ---- Nodes -------------------------------------------------------------------------------- */
/* Upstream's type keys that ours spell differently. */
static const char* const k_renamed[][2] = {
    {"Array", "ffi.Array"},           {"Map", "ffi.Map"},
    {"runtime.String", "ffi.String"}, {"runtime.NDArray", "ffi.Tensor"},
    {"ffi.NDArray", "ffi.Tensor"},    {"runtime.ShapeTuple", "ffi.Shape"},
    {"IntImm", "ir.IntImm"},          {"FloatImm", "ir.FloatImm"},
    {"GlobalVar", "ir.GlobalVar"},    {"Op", "ir.Op"},
    {"PrimType", "ir.PrimType"},      {"PointerType", "ir.PointerType"},
    {"TupleType", "ir.TupleType"},    {"Range", "ir.Range"},
    {"IRModule", "ir.IRModule"},      {"VDevice", "ir.VDevice"},
};

static bool primitive(int32_t t) {
  return t == kTVMFFINone || t == kTVMFFIBool || t == kTVMFFIInt || t == kTVMFFIFloat ||
         t == kTVMFFIDataType || t == kTVMFFIDevice;
}

static bool inline_field(int32_t t) {
  return t == kTVMFFINone || t == kTVMFFIBool || t == kTVMFFIInt || t == kTVMFFIFloat ||
         t == kTVMFFIDataType;
}

/* A tensor field holds an index into b64ndarrays (rather than a node index). */
static bool tensor_index_field(const legacy* L, const TVMFFIFieldInfo* f) {
  return f->field_static_type_index == kTVMFFITensor && L->nb > 0;
}

/* The field of type t named by string s, or NULL. */
static const TVMFFIFieldInfo* field_named(int32_t t, TVMFFIByteArray s) {
  const TVMFFIFieldInfo* const* fields;
  int32_t nf = tvm_ffi_type_all_fields(t, &fields);
  for (int32_t k = nf - 1; k >= 0; --k) {
    if (fields[k]->name.size == s.size && memcmp(fields[k]->name.data, s.data, s.size) == 0) {
      return fields[k];
    }
  }
  return NULL;
}

/* The value (a JSON string, checked by resolve_node) of attribute `name` of node i, or -1. */
static int32_t attr_of(const legacy* L, int64_t i, const char* name) {
  int32_t a = L->nodes[i].attrs;
  if (a < 0) return -1;
  for (int32_t k = V(L, a)->u.c.first; k >= 0; k = V(L, V(L, k)->next)->next) {
    if (tvm_ffi__jstr_is(L->p, V(L, k), name)) return V(L, k)->next;
  }
  return -1;
}

static int resolve_type(legacy* L, int64_t i) {
  lnode* nd = &L->nodes[i];
  TVMFFIByteArray key = {"", 0};
  if (nd->type_key >= 0) key = tvm_ffi__jstr(L->p, V(L, nd->type_key));
  if (key.size == 0) {
    nd->type = kTVMFFINone;
    return 0;
  }
  TVMFFIByteArray ours = key;
  for (size_t k = 0; k < sizeof(k_renamed) / sizeof(k_renamed[0]); ++k) {
    if (bytes_is(key, k_renamed[k][0])) {
      ours = (TVMFFIByteArray){k_renamed[k][1], strlen(k_renamed[k][1])};
      break;
    }
  }
  int32_t t;
  if (TVMFFITypeKeyToIndex(&ours, &t) != 0) {
    tvm_ffi_error_clear();
    return node_err(L, "KeyError", i, "unknown type key");
  }
  if (t < kTVMFFIStaticObjectBegin && !primitive(t)) {
    return node_err(L, "TypeError", i, "a %s cannot be loaded from JSON", tvm_ffi_type_key(t));
  }
  nd->type = t;
  return 0;
}

/* Check node i's form, resolve its type and check its attributes (on its first visit). */
static int resolve_node(legacy* L, int64_t i) {
  lnode* nd = &L->nodes[i];
  const jval* o = V(L, nd->json);
  if (o->kind != J_OBJ) {
    return node_err(L, "TypeError", i, "expected an object, got %s", jkind(L, nd->json));
  }
  static const char* const names[] = {"type_key", "attrs", "keys", "data", "repr_str", "repr_b64"};
  static const uint8_t kinds[] = {J_STR, J_OBJ, J_ARR, J_ARR, J_STR, J_STR};
  int32_t* slots[] = {&nd->type_key, &nd->attrs, &nd->keys, &nd->data, &nd->repr, &nd->repr};
  for (int32_t k = o->u.c.first; k >= 0; k = V(L, V(L, k)->next)->next) {
    int32_t val = V(L, k)->next;
    size_t m = 0;
    while (m < 6 && !tvm_ffi__jstr_is(L->p, V(L, k), names[m])) ++m;
    if (m == 6 || *slots[m] >= 0) {
      TVMFFIByteArray s = tvm_ffi__jstr(L->p, V(L, k));
      return node_err(L, "ValueError", i, "unexpected or repeated key \"%.*s\"",
                      (int)(s.size > 200 ? 200 : s.size), s.data);
    }
    if (V(L, val)->kind != kinds[m]) {
      return node_err(L, "TypeError", i, "\"%s\" must be %s, got %s", names[m],
                      tvm_ffi__json_kind_names[kinds[m]], jkind(L, val));
    }
    *slots[m] = val;
    if (m == 5) nd->repr_b64 = true;
  }
  if (resolve_type(L, i) != 0) return -1;
  int32_t t = nd->type;
  bool is_map = t == kTVMFFIMap, is_seq = t == kTVMFFIArray || is_map;
  if (!is_seq && (nd->keys >= 0 || nd->data >= 0)) {
    return node_err(L, "ValueError", i, "only an Array or a Map has \"keys\" or \"data\"");
  }
  if (nd->keys >= 0 && !is_map) return node_err(L, "ValueError", i, "an Array has no \"keys\"");
  int32_t nkeys = nd->keys >= 0 ? V(L, nd->keys)->u.c.count : 0;
  int32_t ndata = nd->data >= 0 ? V(L, nd->data)->u.c.count : 0;
  if (is_map && nd->keys >= 0 && nkeys != ndata) {
    return node_err(L, "ValueError", i, "a Map with %d keys and %d values", (int)nkeys, (int)ndata);
  }
  if (is_map && nd->keys < 0 && ndata % 2) {
    return node_err(L, "ValueError", i, "the data of a Map must have an even length");
  }
  for (int32_t e = nd->keys >= 0 ? V(L, nd->keys)->u.c.first : -1; e >= 0; e = V(L, e)->next) {
    if (V(L, e)->kind != J_STR) {
      return node_err(L, "TypeError", i, "Map keys must be strings, got %s", jkind(L, e));
    }
  }
  bool has_repr = nd->repr >= 0;
  if (has_repr && t != kTVMFFIStr && t != kTVMFFITensor &&
      !tvm_ffi__json_type_attr_function(L->from_json, t)) {
    return node_err(L, "TypeError", i, "a %s cannot be read from its repr bytes",
                    tvm_ffi_type_key(t));
  }
  /* A type with "__data_from_json__" (ir.Op, ffi.Tensor) is made by it from its repr: fields
   * set directly would bypass it (an Op is a unique instance). */
  bool hooked = t == kTVMFFITensor || tvm_ffi__json_type_attr_function(L->from_json, t);
  if (hooked && !has_repr) {
    return node_err(L, "TypeError", i, "a %s needs \"repr_str\" or \"repr_b64\"",
                    tvm_ffi_type_key(t));
  }
  nd->uses_fields = t >= kTVMFFIStaticObjectBegin && !is_seq && t != kTVMFFIStr && !hooked;
  if (nd->attrs >= 0 && (primitive(t) || nd->uses_fields)) {
    /* Every attribute is a string naming a field (primitive nodes: checked when decoded). */
    for (int32_t k = V(L, nd->attrs)->u.c.first; k >= 0; k = V(L, V(L, k)->next)->next) {
      int32_t val = V(L, k)->next;
      TVMFFIByteArray s = tvm_ffi__jstr(L->p, V(L, k));
      if (V(L, val)->kind != J_STR) {
        return node_err(L, "TypeError", i, "attribute `%.*s` must be a string, got %s",
                        (int)(s.size > 200 ? 200 : s.size), s.data, jkind(L, val));
      }
      if (primitive(t) || bytes_is(s, "_checked_type_")) continue;
      const TVMFFIFieldInfo* f = field_named(t, s);
      if (!f && bytes_is(s, "span")) continue;
      if (!f) {
        return node_err(L, "TypeError", i, "%s has no field `%.*s`", tvm_ffi_type_key(t),
                        (int)(s.size > 200 ? 200 : s.size), s.data);
      }
      if (attr_of(L, i, f->name.data) != val) {
        return node_err(L, "ValueError", i, "field `%s` is given twice", f->name.data);
      }
    }
  } else if (nd->attrs >= 0 && V(L, nd->attrs)->u.c.count > 0) {
    return node_err(L, "ValueError", i, "a %s takes no \"attrs\"", tvm_ffi_type_key(t));
  }
  return 0;
}

/* A node index in data (a JSON integer). */
static int data_ref(const legacy* L, int64_t i, int32_t v, int64_t* out) {
  if (V(L, v)->kind != J_INT) {
    return node_err(L, "TypeError", i, "expected a node index in \"data\", got %s", jkind(L, v));
  }
  int64_t x = V(L, v)->u.i;
  if (x < 0 || x >= L->n) {
    return node_err(L, "ValueError", i, "node index %lld out of range [0, %lld)", (long long)x,
                    (long long)L->n);
  }
  *out = x;
  return 0;
}

/* The node index an object field's text holds; -1 for "null". */
static int field_ref(const legacy* L, int64_t i, const TVMFFIFieldInfo* f, int32_t v,
                     int64_t* out) {
  TVMFFIByteArray s = tvm_ffi__jstr(L->p, V(L, v));
  if (bytes_is(s, "null")) {
    *out = -1;
    return 0;
  }
  int64_t x;
  if (!parse_int(s, &x)) {
    return node_err(L, "TypeError", i, "field `%s`: expected a node index, got \"%.*s\"",
                    f->name.data, (int)(s.size > 64 ? 64 : s.size), s.data);
  }
  if (x < 0 || x >= L->n) {
    return node_err(L, "ValueError", i, "field `%s`: node index %lld out of range [0, %lld)",
                    f->name.data, (long long)x, (long long)L->n);
  }
  *out = x;
  return 0;
}

/* The next child of node i after *cursor (-2 before the first). Returns 1 with *out set, 0
 * when there are no more, -1 on error. */
static int next_child(legacy* L, int64_t i, int32_t* cursor, int64_t* out) {
  lnode* nd = &L->nodes[i];
  if (nd->type == kTVMFFIArray || nd->type == kTVMFFIMap) {
    if (*cursor == -2) *cursor = nd->data >= 0 ? V(L, nd->data)->u.c.first : -1;
    if (*cursor < 0) return 0;
    int32_t v = *cursor;
    *cursor = V(L, v)->next;
    return data_ref(L, i, v, out) == 0 ? 1 : -1;
  }
  if (!nd->uses_fields) return 0;
  const TVMFFIFieldInfo* const* fields;
  int32_t nf = tvm_ffi_type_all_fields(nd->type, &fields);
  if (*cursor == -2) *cursor = 0;
  while (*cursor < nf) {
    const TVMFFIFieldInfo* f = fields[(*cursor)++];
    if (inline_field(f->field_static_type_index) || tensor_index_field(L, f)) continue;
    int32_t v = attr_of(L, i, f->name.data);
    if (v < 0) continue;
    int64_t ref;
    if (field_ref(L, i, f, v, &ref) != 0) return -1;
    if (ref < 0) continue;
    *out = ref;
    return 1;
  }
  return 0;
}

/* ---- Values ------------------------------------------------------------------------------- */
/* Call type t's "__data_from_json__" on the string s. */
static int from_repr(legacy* L, int32_t t, TVMFFIByteArray s, TVMFFIAny* out) {
  void* fn = tvm_ffi__json_type_attr_function(L->from_json, t);
  if (!fn) {
    return tvm_ffi_raise("RuntimeError",
                         "%s has no \"__data_from_json__\" (for a tensor: "
                         "tvm_tir_init registers it)",
                         tvm_ffi_type_key(t));
  }
  TVMFFIAny arg;
  if (TVMFFIStringFromByteArray(&s, &arg) != 0) return -1;
  int rc = tvm_ffi_function_call(fn, &arg, 1, out);
  tvm_ffi_any_release(&arg);
  return rc;
}

/* The tensor b64ndarrays[k], decoded on first use (borrowed view). */
static int b64_tensor(legacy* L, int64_t i, const TVMFFIFieldInfo* f, int32_t v, TVMFFIAny* out) {
  TVMFFIByteArray s = tvm_ffi__jstr(L->p, V(L, v));
  int64_t k;
  if (!parse_int(s, &k)) {
    return node_err(L, "TypeError", i,
                    "field `%s`: expected an index into b64ndarrays, got "
                    "\"%.*s\"",
                    f->name.data, (int)(s.size > 64 ? 64 : s.size), s.data);
  }
  if (k < 0 || k >= L->nb) {
    return node_err(L, "ValueError", i, "field `%s`: b64ndarrays index %lld out of range [0, %d)",
                    f->name.data, (long long)k, (int)L->nb);
  }
  if (L->tensors[k].type_index == kTVMFFINone) {
    int32_t b = L->b64[k];
    if (V(L, b)->kind != J_STR) {
      return tvm_ffi_raise("TypeError",
                           "legacy JSON graph: b64ndarrays[%lld] must be a string, "
                           "got %s",
                           (long long)k, jkind(L, b));
    }
    if (from_repr(L, kTVMFFITensor, tvm_ffi__jstr(L->p, V(L, b)), &L->tensors[k]) != 0) {
      return tvm_ffi_raise_context("legacy JSON graph node %lld field `%s`: b64ndarrays[%lld]",
                                   (long long)i, f->name.data, (long long)k);
    }
  }
  *out = L->tensors[k];
  return 0;
}

/* The value of field f of node i from its text v (a borrowed view, or owned in *owned). */
static int field_value(legacy* L, int64_t i, const TVMFFIFieldInfo* f, int32_t v, TVMFFIAny* out) {
  TVMFFIByteArray s = tvm_ffi__jstr(L->p, V(L, v));
  int32_t t = f->field_static_type_index;
  int64_t x;
  double d;
  DLDataType dt;
  if (!inline_field(t)) {
    if (tensor_index_field(L, f)) return b64_tensor(L, i, f, v, out);
    if (field_ref(L, i, f, v, &x) != 0) return -1;
    *out = x < 0 ? tvm_ffi_any_none() : L->values[x];
    if (!tvm_ffi__json_field_accepts(t, out)) {
      return node_err(L, "TypeError", i, "field `%s` expects %s, got %s (node %lld)", f->name.data,
                      tvm_ffi_type_key(t), tvm_ffi_any_type_name(out), (long long)x);
    }
    return 0;
  }
  if (bytes_is(s, "null")) { /* Optional<int64_t> / Optional<double> */
    *out = tvm_ffi_any_none();
    return 0;
  }
  const char* want = NULL;
  switch (t) {
    case kTVMFFIBool:
      if (bytes_is(s, "0") || bytes_is(s, "false"))
        *out = tvm_ffi_any_bool(false);
      else if (bytes_is(s, "1") || bytes_is(s, "true"))
        *out = tvm_ffi_any_bool(true);
      else
        want = "a bool (0 or 1)";
      break;
    case kTVMFFIInt: {
      if (!parse_int(s, &x)) {
        want = "an integer";
        break;
      }
      int bits = f->size >= 8 ? 64 : (int)f->size * 8;
      if (bits < 64 && (x < -(INT64_C(1) << (bits - 1)) || x >= (INT64_C(1) << (bits - 1)))) {
        return node_err(L, "ValueError", i, "field `%s`: %lld does not fit in int%d", f->name.data,
                        (long long)x, bits);
      }
      *out = tvm_ffi_any_int(x);
      break;
    }
    case kTVMFFIFloat:
      if (parse_float(s, &d))
        *out = tvm_ffi_any_float(d);
      else
        want = "a number";
      break;
    case kTVMFFIDataType:
      if (tvm_ffi_dtype_parse(s.data, s.size, &dt) != 0) {
        return tvm_ffi_raise_context("legacy JSON graph node %lld field `%s`", (long long)i,
                                     f->name.data);
      }
      *out = tvm_ffi_any_dtype(dt);
      break;
    default:
      want = "null";
      break;
  }
  if (want) {
    return node_err(L, "TypeError", i, "field `%s` must be %s, got \"%.*s\"", f->name.data, want,
                    (int)(s.size > 64 ? 64 : s.size), s.data);
  }
  return 0;
}

/* Fields older releases did not have (or wrote nothing for): absent, they are None. */
static bool absent_is_none(const TVMFFIFieldInfo* f) {
  return !inline_field(f->field_static_type_index) &&
         (bytes_is(f->name, "span") || bytes_is(f->name, "vdevice"));
}

/* An object through its fields (the attributes were checked by resolve_node). */
static int decode_object(legacy* L, int64_t i, int32_t t, TVMFFIAny* out) {
  void* obj = tvm_ffi__json_create_object(i, t);
  if (!obj) return tvm_ffi_raise_context("legacy JSON graph node %lld", (long long)i);
  const TVMFFIFieldInfo* const* fields;
  int32_t nf = tvm_ffi_type_all_fields(t, &fields);
  for (int32_t k = 0; k < nf; ++k) {
    const TVMFFIFieldInfo* f = fields[k];
    int32_t v = attr_of(L, i, f->name.data);
    TVMFFIAny val = tvm_ffi_any_none(), owned = tvm_ffi_any_none();
    if (v >= 0) {
      if (field_value(L, i, f, v, &val) != 0) {
        tvm_ffi_release(obj);
        return -1;
      }
    } else if (absent_is_none(f)) {
      val = tvm_ffi_any_none();
    } else if (f->flags & kTVMFFIFieldFlagBitMaskHasDefault) {
      if (f->flags & kTVMFFIFieldFlagBitMaskDefaultFromFactory) {
        if (tvm_ffi_function_call(f->default_value_or_factory.v_obj, NULL, 0, &owned) != 0) {
          tvm_ffi_release(obj);
          return tvm_ffi_raise_context("legacy JSON graph node %lld: default of field `%s`",
                                       (long long)i, f->name.data);
        }
        val = owned;
      } else {
        val = f->default_value_or_factory;
      }
    } else {
      tvm_ffi_release(obj);
      return node_err(L, "TypeError", i, "missing field `%s` of %s", f->name.data,
                      tvm_ffi_type_key(t));
    }
    int rc = tvm_ffi_field_set(obj, f, &val);
    tvm_ffi_any_release(&owned);
    if (rc != 0) {
      tvm_ffi_release(obj);
      return tvm_ffi_raise_context("legacy JSON graph node %lld field `%s`", (long long)i,
                                   f->name.data);
    }
  }
  *out = tvm_ffi_any_obj(obj);
  return 0;
}

/* A primitive node of the transitional releases: attribute `name` as text. */
static int prim_attr(legacy* L, int64_t i, const char* name, TVMFFIByteArray* out) {
  int32_t v = attr_of(L, i, name);
  if (v < 0) return node_err(L, "TypeError", i, "missing attribute `%s`", name);
  *out = tvm_ffi__jstr(L->p, V(L, v));
  return 0;
}

static int decode_primitive(legacy* L, int64_t i, int32_t t, TVMFFIAny* out) {
  TVMFFIByteArray s = {"", 0}, s2 = {"", 0};
  int64_t x, y;
  double d;
  DLDataType dt;
  switch (t) {
    case kTVMFFINone:
      return 0;
    case kTVMFFIBool:
    case kTVMFFIInt:
      if (prim_attr(L, i, "v_int64", &s) != 0) return -1;
      if (!parse_int(s, &x)) return node_err(L, "TypeError", i, "`v_int64` must be an integer");
      *out = t == kTVMFFIBool ? tvm_ffi_any_bool(x != 0) : tvm_ffi_any_int(x);
      return 0;
    case kTVMFFIFloat:
      if (prim_attr(L, i, "v_float64", &s) != 0) return -1;
      if (!parse_float(s, &d)) return node_err(L, "TypeError", i, "`v_float64` must be a number");
      *out = tvm_ffi_any_float(d);
      return 0;
    case kTVMFFIDataType:
      if (prim_attr(L, i, "v_type", &s) != 0) return -1;
      if (tvm_ffi_dtype_parse(s.data, s.size, &dt) != 0) {
        return tvm_ffi_raise_context("legacy JSON graph node %lld", (long long)i);
      }
      *out = tvm_ffi_any_dtype(dt);
      return 0;
    default: /* Device */
      if (prim_attr(L, i, "v_device_type", &s) != 0 || prim_attr(L, i, "v_device_id", &s2) != 0) {
        return -1;
      }
      if (!parse_int(s, &x) || !parse_int(s2, &y) || x < INT32_MIN || x > INT32_MAX ||
          y < INT32_MIN || y > INT32_MAX) {
        return node_err(L, "ValueError", i, "device fields must be int32 integers");
      }
      *out = tvm_ffi_any_device(TVMFFIDLDeviceFromIntPair((int32_t)x, (int32_t)y));
      return 0;
  }
}

static int decode_container(legacy* L, int64_t i, TVMFFIAny* out) {
  lnode* nd = &L->nodes[i];
  int64_t n = nd->data >= 0 ? V(L, nd->data)->u.c.count : 0, k = 0;
  /* Array: the elements; Map: keys then values (as tvm_ffi_map_new takes them). */
  bool str_keys = nd->keys >= 0;
  int64_t total = str_keys ? 2 * n : n;
  TVMFFIAny* items = (TVMFFIAny*)tvm_ffi_calloc((size_t)total + 1, sizeof(TVMFFIAny));
  if (!items) return -1;
  int rc = 0;
  if (str_keys) {
    for (int32_t e = V(L, nd->keys)->u.c.first; e >= 0 && k < n && rc == 0; e = V(L, e)->next) {
      TVMFFIByteArray s = tvm_ffi__jstr(L->p, V(L, e));
      rc = TVMFFIStringFromByteArray(&s, &items[k++]);
    }
  }
  int64_t m = 0, half = total / 2;
  for (int32_t e = nd->data >= 0 ? V(L, nd->data)->u.c.first : -1; e >= 0 && rc == 0;
       e = V(L, e)->next, ++m) {
    TVMFFIAny v = L->values[V(L, e)->u.i]; /* validated by next_child */
    if (nd->type == kTVMFFIArray)
      items[m] = v;
    else if (str_keys)
      items[n + m] = v;
    else
      items[(m % 2) * half + m / 2] = v;
  }
  void* res = NULL;
  if (rc == 0) {
    res = nd->type == kTVMFFIArray ? tvm_ffi_array_new(items, n)
                                   : tvm_ffi_map_new(items, items + half, half);
  }
  for (int64_t j = 0; j < k; ++j) tvm_ffi_any_release(&items[j]); /* the string keys */
  tvm_ffi_free(items);
  if (!res) return -1;
  *out = tvm_ffi_any_obj(res);
  return 0;
}

/* Decode node i; its children are decoded already. */
static int decode_node(legacy* L, int64_t i, TVMFFIAny* out) {
  lnode* nd = &L->nodes[i];
  int32_t t = nd->type;
  *out = tvm_ffi_any_none();
  if (primitive(t)) return decode_primitive(L, i, t, out);
  if (t == kTVMFFIArray || t == kTVMFFIMap) return decode_container(L, i, out);
  if (nd->uses_fields) return decode_object(L, i, t, out);
  /* By its repr bytes (none: an empty String) */
  if (nd->repr < 0) {
    if (t == kTVMFFIStr) return TVMFFIStringFromByteArray(&(TVMFFIByteArray){"", 0}, out);
    return node_err(L, "TypeError", i, "a %s needs \"repr_str\" or \"repr_b64\"",
                    tvm_ffi_type_key(t));
  }
  TVMFFIByteArray s = tvm_ffi__jstr(L->p, V(L, nd->repr));
  if (nd->repr_b64) {
    TVMFFIAny bytes;
    if (tvm_ffi__json_decode_base64(i, s, t == kTVMFFIStr, &bytes) != 0) return -1;
    if (t == kTVMFFIStr) {
      *out = bytes;
      return 0;
    }
    TVMFFIByteArray b;
    tvm_ffi_any_as_bytes(&bytes, &b);
    int rc = from_repr(L, t, b, out);
    tvm_ffi_any_release(&bytes);
    if (rc != 0) return tvm_ffi_raise_context("legacy JSON graph node %lld", (long long)i);
    return 0;
  }
  if (t == kTVMFFIStr) return TVMFFIStringFromByteArray(&s, out);
  if (from_repr(L, t, s, out) != 0) {
    return tvm_ffi_raise_context("legacy JSON graph node %lld", (long long)i);
  }
  return 0;
}

/* Decode the nodes reachable from root, children first (as json.c's load_graph). */
static int load_graph(legacy* L, int64_t root, TVMFFIAny* out) {
  typedef struct {
    int64_t node;
    int32_t cursor;
  } frame;
  frame* stack = (frame*)tvm_ffi_malloc((size_t)L->n * sizeof(frame));
  if (!stack) return -1;
  int64_t top = 0;
  int rc = resolve_node(L, root);
  if (rc == 0) {
    stack[top++] = (frame){root, -2};
    L->nodes[root].state = NODE_ACTIVE;
  }
  while (rc == 0 && top > 0) {
    frame* f = &stack[top - 1];
    int64_t child = -1;
    int r = next_child(L, f->node, &f->cursor, &child);
    if (r < 0) {
      rc = -1;
    } else if (r == 1) {
      uint8_t st = L->nodes[child].state;
      if (st == NODE_DONE) continue;
      if (st == NODE_ACTIVE) {
        rc = node_err(L, "ValueError", f->node, "reference to node %lld forms a cycle",
                      (long long)child);
      } else if (top > TVM_FFI_STRUCTURAL_MAX_DEPTH) {
        rc = node_err(L, "ValueError", f->node, "graph nested deeper than %d levels",
                      TVM_FFI_STRUCTURAL_MAX_DEPTH);
      } else if ((rc = resolve_node(L, child)) == 0) {
        stack[top++] = (frame){child, -2};
        L->nodes[child].state = NODE_ACTIVE;
      }
    } else {
      rc = decode_node(L, f->node, &L->values[f->node]);
      L->nodes[f->node].state = NODE_DONE;
      top--;
    }
  }
  tvm_ffi_free(stack);
  if (rc == 0) *out = tvm_ffi_any_copy(&L->values[root]);
  return rc;
}

int tvm_ffi__json_load_legacy(const tvm_ffi__jparser* p, int32_t doc, TVMFFIAny* out) {
  legacy L;
  memset(&L, 0, sizeof(L));
  L.p = p;
  L.from_json = TVMFFIGetTypeAttrColumn(&(TVMFFIByteArray){"__data_from_json__", 18});
  int32_t root_v = -1, nodes_v = -1, b64_v = -1, attrs_v = -1;
  int rc = 0;
  for (int32_t k = V(&L, doc)->u.c.first; k >= 0 && rc == 0; k = V(&L, V(&L, k)->next)->next) {
    const jval* key = V(&L, k);
    int32_t* slot = tvm_ffi__jstr_is(p, key, "root")          ? &root_v
                    : tvm_ffi__jstr_is(p, key, "nodes")       ? &nodes_v
                    : tvm_ffi__jstr_is(p, key, "b64ndarrays") ? &b64_v
                    : tvm_ffi__jstr_is(p, key, "attrs")       ? &attrs_v
                                                              : NULL;
    if (!slot || *slot >= 0) {
      TVMFFIByteArray s = tvm_ffi__jstr(p, key);
      rc = tvm_ffi_raise("ValueError", "legacy JSON graph: unexpected or repeated key \"%.*s\"",
                         (int)(s.size > 200 ? 200 : s.size), s.data);
    } else {
      *slot = key->next;
    }
  }
  if (rc == 0 && V(&L, root_v)->kind != J_INT) {
    rc = tvm_ffi_raise("ValueError", "legacy JSON graph: \"root\" must be an integer, got %s",
                       jkind(&L, root_v));
  }
  if (rc == 0 && (nodes_v < 0 || V(&L, nodes_v)->kind != J_ARR)) {
    rc = tvm_ffi_raise("ValueError", "legacy JSON graph: expected a \"nodes\" array");
  }
  if (rc == 0 && b64_v >= 0 && V(&L, b64_v)->kind != J_ARR) {
    rc = tvm_ffi_raise("ValueError", "legacy JSON graph: \"b64ndarrays\" must be an array, got %s",
                       jkind(&L, b64_v));
  }
  if (rc == 0 && attrs_v >= 0 && V(&L, attrs_v)->kind != J_OBJ) {
    rc = tvm_ffi_raise("ValueError", "legacy JSON graph: \"attrs\" must be an object, got %s",
                       jkind(&L, attrs_v));
  }
  int64_t root = rc == 0 ? V(&L, root_v)->u.i : 0;
  if (rc == 0) {
    L.n = V(&L, nodes_v)->u.c.count;
    L.nb = b64_v >= 0 ? V(&L, b64_v)->u.c.count : 0;
    if (root < 0 || root >= L.n) {
      rc = tvm_ffi_raise("ValueError", "legacy JSON graph: root %lld out of range [0, %lld)",
                         (long long)root, (long long)L.n);
    }
  }
  if (rc == 0) {
    L.nodes = (lnode*)tvm_ffi_malloc((size_t)L.n * sizeof(lnode));
    L.values = (TVMFFIAny*)tvm_ffi_calloc((size_t)L.n, sizeof(TVMFFIAny)); /* zero = None */
    L.b64 = (int32_t*)tvm_ffi_malloc((size_t)L.nb * sizeof(int32_t) + 1);
    L.tensors = (TVMFFIAny*)tvm_ffi_calloc((size_t)L.nb + 1, sizeof(TVMFFIAny));
    if (!L.nodes || !L.values || !L.b64 || !L.tensors) {
      rc = -1;
    } else {
      int64_t k = 0;
      for (int32_t e = V(&L, nodes_v)->u.c.first; e >= 0; e = V(&L, e)->next, ++k) {
        L.nodes[k] = (lnode){e, -1, -1, -1, -1, -1, kTVMFFINone, false, false, NODE_NEW};
      }
      k = 0;
      for (int32_t e = L.nb ? V(&L, b64_v)->u.c.first : -1; e >= 0; e = V(&L, e)->next) {
        L.b64[k++] = e;
      }
      rc = load_graph(&L, root, out);
    }
  }
  for (int64_t i = 0; L.values && i < L.n; ++i) tvm_ffi_any_release(&L.values[i]);
  for (int32_t i = 0; L.tensors && i < L.nb; ++i) tvm_ffi_any_release(&L.tensors[i]);
  tvm_ffi_free(L.nodes);
  tvm_ffi_free(L.values);
  tvm_ffi_free(L.b64);
  tvm_ffi_free(L.tensors);
  return rc;
}

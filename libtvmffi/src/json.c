/*
 * json.c: JSON serialization of value graphs, in the node-graph format of upstream's
 * ffi.ToJSONGraph:
 *
 *   {"root_index": R, "nodes": [node, ...]}          ("metadata": V when given; ignored on load)
 *
 * Each node is {"type": T} or {"type": T, "data": D}:
 *   "None"                      no data
 *   "bool" / "int"              a JSON bool / integer (the full int64 range, exactly)
 *   "float"                     a JSON number, the shortest of %.15g/%.16g/%.17g that reads back
 *                               to the same bits (always with a '.' or exponent); infinities
 *                               and NaN are the strings "inf", "-inf" and "nan"
 *   "DataType"                  the dtype string ("float32x4")
 *   "Device"                    [device_type, device_id]
 *   "ffi.String"                a JSON string; "ffi.Bytes": base64 (RFC 4648, padded)
 *   "ffi.Array" / "ffi.List"    [node index, ...]
 *   "ffi.Map" / "ffi.Dict"      [key index, value index, ...] flattened, in iteration order
 *   "ffi.Shape"                 [int, ...]
 *   any other registered type   {field name: value, ...} for every reflected field: fields whose
 *                               static type is None/bool/int/float/DataType inline their value,
 *                               all others hold a node index. A type with the type attribute
 *                               "__data_to_json__" (a Function value -> plain JSON value) writes
 *                               that function's result instead and is read back by its
 *                               "__data_from_json__" (plain JSON value -> value).
 *
 * Children precede their parents, and the root is the last node. Objects are deduplicated by
 * identity (a node shared in memory stays shared after loading), strings by content, POD values
 * by value. A type is serializable through its fields when its state is exactly its reflected
 * fields: it was registered with a size and the default destructor (tvm_ffi_type_register with
 * destroy == NULL), or it has a metadata creator. Functions, errors, modules, tensors and opaque
 * objects are not serializable.
 *
 * Strings are written with '"', '\\' and control characters escaped (\n, \t, ..., \u00XX) and
 * every other byte, UTF-8 included, passed through; the parser accepts all JSON escapes,
 * \uXXXX surrogate pairs included. Loading checks everything it reads and raises ValueError
 * (malformed text, with the byte offset; bad indices; cycles; nesting deeper than the limits),
 * TypeError (wrong JSON kinds, missing or unknown fields, naming the node and field), KeyError
 * (unknown type keys) or RuntimeError (types that cannot be created).
 *
 * A document whose top-level object has a "root" member is the format TVM's SaveJSON wrote
 * before tvm-ffi ({"root", "nodes", "b64ndarrays"}); json_legacy.c reads it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

/* Nesting of the JSON text itself. Graphs are flat (depth 4), so only custom data nests. */
#define JSON_MAX_NESTING 512

/* ---- Writing ----------------------------------------------------------------------------- */
static void write_string(tvm_ffi_strbuf* b, const char* s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  tvm_ffi_strbuf_putc(b, '"');
  size_t run = 0; /* bytes copied verbatim are appended in runs */
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    tvm_ffi_strbuf_append(b, s + run, i - run);
    run = i + 1;
    char esc[7] = {'\\', 0};
    size_t len = 2;
    switch (c) {
      case '"':
        esc[1] = '"';
        break;
      case '\\':
        esc[1] = '\\';
        break;
      case '\b':
        esc[1] = 'b';
        break;
      case '\f':
        esc[1] = 'f';
        break;
      case '\n':
        esc[1] = 'n';
        break;
      case '\r':
        esc[1] = 'r';
        break;
      case '\t':
        esc[1] = 't';
        break;
      default:
        memcpy(esc + 1, "u00", 3);
        esc[4] = hex[c >> 4];
        esc[5] = hex[c & 15];
        len = 6;
        break;
    }
    tvm_ffi_strbuf_append(b, esc, len);
  }
  tvm_ffi_strbuf_append(b, s + run, n - run);
  tvm_ffi_strbuf_putc(b, '"');
}

static void write_double(tvm_ffi_strbuf* b, double d) {
  if (isnan(d)) {
    tvm_ffi_strbuf_puts(b, "\"nan\"");
    return;
  }
  if (isinf(d)) {
    tvm_ffi_strbuf_puts(b, d > 0 ? "\"inf\"" : "\"-inf\"");
    return;
  }
  char buf[40];
  tvm_ffi_format_double(d, false, buf, sizeof(buf));
  tvm_ffi_strbuf_puts(b, buf);
  if (!strpbrk(buf, ".e")) tvm_ffi_strbuf_puts(b, ".0"); /* keep it a float for any reader */
}

static void write_base64(tvm_ffi_strbuf* b, const unsigned char* p, size_t n) {
  static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  tvm_ffi_strbuf_putc(b, '"');
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16;
    if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
    if (i + 2 < n) v |= p[i + 2];
    char q[4] = {tbl[(v >> 18) & 63], tbl[(v >> 12) & 63], i + 1 < n ? tbl[(v >> 6) & 63] : '=',
                 i + 2 < n ? tbl[v & 63] : '='};
    tvm_ffi_strbuf_append(b, q, 4);
  }
  tvm_ffi_strbuf_putc(b, '"');
}

static int write_dtype(tvm_ffi_strbuf* b, DLDataType t) {
  char buf[64];
  int n = tvm_ffi_dtype_format(t, buf, sizeof(buf));
  if (n < 0) return -1;
  write_string(b, buf, (size_t)n);
  return 0;
}

/* A value as plain JSON (custom type data, metadata): None, bool, int, float, string,
 * Array/List and Map/Dict with string keys. */
static int write_plain(tvm_ffi_strbuf* b, const TVMFFIAny* v, int depth) {
  TVMFFIByteArray s;
  if (depth > JSON_MAX_NESTING) {
    return tvm_ffi_raise("ValueError", "JSON value nested deeper than %d levels", JSON_MAX_NESTING);
  }
  switch (v->type_index) {
    case kTVMFFINone:
      tvm_ffi_strbuf_puts(b, "null");
      return 0;
    case kTVMFFIBool:
      tvm_ffi_strbuf_puts(b, v->v_int64 ? "true" : "false");
      return 0;
    case kTVMFFIInt:
      tvm_ffi_strbuf_printf(b, "%lld", (long long)v->v_int64);
      return 0;
    case kTVMFFIFloat:
      write_double(b, v->v_float64);
      return 0;
    case kTVMFFIArray:
    case kTVMFFIList: {
      tvm_ffi_strbuf_putc(b, '[');
      for (int64_t i = 0, n = tvm_ffi_seq_size(v->v_obj); i < n; ++i) {
        if (i) tvm_ffi_strbuf_putc(b, ',');
        if (write_plain(b, tvm_ffi_seq_at(v->v_obj, i), depth + 1) != 0) return -1;
      }
      tvm_ffi_strbuf_putc(b, ']');
      return 0;
    }
    case kTVMFFIMap:
    case kTVMFFIDict: {
      const TVMFFIAny *k, *val;
      bool first = true;
      tvm_ffi_strbuf_putc(b, '{');
      for (int64_t pos = 0; (pos = tvm_ffi_map_next(v->v_obj, pos, &k, &val)) >= 0;) {
        if (!tvm_ffi_any_as_bytes(k, &s) || k->type_index == kTVMFFISmallBytes ||
            k->type_index == kTVMFFIBytes) {
          return tvm_ffi_raise("TypeError", "JSON object keys must be strings, got %s",
                               tvm_ffi_any_type_name(k));
        }
        if (!first) tvm_ffi_strbuf_putc(b, ',');
        first = false;
        write_string(b, s.data, s.size);
        tvm_ffi_strbuf_putc(b, ':');
        if (write_plain(b, val, depth + 1) != 0) return -1;
      }
      tvm_ffi_strbuf_putc(b, '}');
      return 0;
    }
    default:
      if (tvm_ffi_any_as_bytes(v, &s) && v->type_index != kTVMFFISmallBytes &&
          v->type_index != kTVMFFIBytes && v->type_index != kTVMFFIByteArrayPtr) {
        write_string(b, s.data, s.size);
        return 0;
      }
      return tvm_ffi_raise("TypeError", "a %s cannot be written as a plain JSON value",
                           tvm_ffi_any_type_name(v));
  }
}

/* The column of a type attribute, or NULL when no type has it. Looked up once per save or
 * load (the lookup takes the registry lock). */
static const TVMFFITypeAttrColumn* attr_column(const char* attr) {
  TVMFFIByteArray name = {attr, strlen(attr)};
  return TVMFFIGetTypeAttrColumn(&name);
}

void* tvm_ffi__json_type_attr_function(const TVMFFITypeAttrColumn* col, int32_t type_index) {
  if (!col || type_index < col->begin_index || type_index - col->begin_index >= col->size) {
    return NULL;
  }
  const TVMFFIAny* v = &col->data[type_index - col->begin_index];
  return v->type_index == kTVMFFIFunction ? v->v_obj : NULL;
}

/* Whether objects of a type can be rebuilt from their reflected fields (see the header). */
static bool fields_describe_state(int32_t type_index) {
  tvm_ffi_type_entry* e = tvm_ffi__type_entry(type_index);
  if (!e || !e->info.metadata) return false;
  if (e->info.metadata->creator) return true;
  return e->info.metadata->total_size >= (int32_t)sizeof(TVMFFIObject) && e->destroy == NULL;
}

static bool inline_field(int32_t static_type) {
  return static_type == kTVMFFINone || static_type == kTVMFFIBool || static_type == kTVMFFIInt ||
         static_type == kTVMFFIFloat || static_type == kTVMFFIDataType;
}

/* ---- Saving ------------------------------------------------------------------------------ */
/* Deduplication: each distinct value seen gets one entry; `node` is its node index, or -1
 * while its children are being written (meeting it then means a cycle). */
typedef struct {
  TVMFFIAny key; /* owned */
  uint64_t hash;
  int64_t node;
} dedup_entry;

typedef struct {
  tvm_ffi_strbuf nodes; /* the node texts, comma separated */
  int64_t num_nodes;
  dedup_entry* entries;
  int64_t num_entries, cap_entries;
  int64_t* index; /* open addressing over entries: entry position + 1, 0 = empty */
  size_t index_mask;
  int64_t* kids; /* child node indices of the nodes being written, as a stack */
  int64_t num_kids, cap_kids;
  int32_t depth;
  const TVMFFITypeAttrColumn* to_json; /* "__data_to_json__" */
} save_ctx;

enum { KEY_STR = 1, KEY_BYTES = 2 };

static int key_class(int32_t t) {
  if (t == kTVMFFIStr || t == kTVMFFISmallStr || t == kTVMFFIRawStr) return KEY_STR;
  if (t == kTVMFFIBytes || t == kTVMFFISmallBytes || t == kTVMFFIByteArrayPtr) return KEY_BYTES;
  return 0;
}

/* POD payload in canonical form (DataType and Device do not use all 8 bytes). */
static uint64_t pod_bits(const TVMFFIAny* v) {
  switch (v->type_index) {
    case kTVMFFINone:
      return 0;
    case kTVMFFIDataType:
      return (uint64_t)v->v_dtype.code | ((uint64_t)v->v_dtype.bits << 8) |
             ((uint64_t)v->v_dtype.lanes << 16);
    case kTVMFFIDevice:
      return (uint64_t)(uint32_t)v->v_device.device_type |
             ((uint64_t)(uint32_t)v->v_device.device_id << 32);
    default:
      return v->v_uint64;
  }
}

static uint64_t dedup_hash(const TVMFFIAny* v) {
  int cls = key_class(v->type_index);
  if (cls) {
    TVMFFIByteArray s;
    tvm_ffi_any_as_bytes(v, &s);
    return tvm_ffi__hash_bytes(s.data, s.size) * 31u + (uint64_t)cls;
  }
  uint64_t x = pod_bits(v) ^ ((uint64_t)(uint32_t)v->type_index << 56);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

static bool dedup_same(const TVMFFIAny* a, const TVMFFIAny* b) {
  int ca = key_class(a->type_index), cb = key_class(b->type_index);
  if (ca || cb) {
    if (ca != cb) return false;
    TVMFFIByteArray x, y;
    tvm_ffi_any_as_bytes(a, &x);
    tvm_ffi_any_as_bytes(b, &y);
    return x.size == y.size && (x.size == 0 || memcmp(x.data, y.data, x.size) == 0);
  }
  return a->type_index == b->type_index && pod_bits(a) == pod_bits(b);
}

static dedup_entry* dedup_find(save_ctx* c, const TVMFFIAny* v, uint64_t h) {
  if (!c->index) return NULL;
  for (size_t i = h & c->index_mask;; i = (i + 1) & c->index_mask) {
    int64_t e = c->index[i];
    if (!e) return NULL;
    dedup_entry* d = &c->entries[e - 1];
    if (d->hash == h && dedup_same(&d->key, v)) return d;
  }
}

/* Add an entry for v (copied). Returns its position, or -1 on allocation failure. */
static int64_t dedup_add(save_ctx* c, const TVMFFIAny* v, uint64_t h, int64_t node) {
  if (c->num_entries == c->cap_entries) {
    int64_t cap = c->cap_entries ? c->cap_entries * 2 : 64;
    dedup_entry* e = (dedup_entry*)tvm_ffi_realloc(c->entries, (size_t)cap * sizeof(dedup_entry));
    if (!e) return -1;
    c->entries = e;
    c->cap_entries = cap;
  }
  if (!c->index || (size_t)(c->num_entries + 1) * 2 > c->index_mask + 1) {
    size_t cap = c->index ? (c->index_mask + 1) * 2 : 128;
    int64_t* idx = (int64_t*)tvm_ffi_calloc(cap, sizeof(int64_t));
    if (!idx) return -1;
    for (int64_t k = 0; k < c->num_entries; ++k) {
      size_t i = c->entries[k].hash & (cap - 1);
      while (idx[i]) i = (i + 1) & (cap - 1);
      idx[i] = k + 1;
    }
    tvm_ffi_free(c->index);
    c->index = idx;
    c->index_mask = cap - 1;
  }
  TVMFFIAny owned;
  if (tvm_ffi_any_to_owned(v, &owned) != 0) return -1;
  int64_t pos = c->num_entries++;
  c->entries[pos] = (dedup_entry){owned, h, node};
  size_t i = h & c->index_mask;
  while (c->index[i]) i = (i + 1) & c->index_mask;
  c->index[i] = pos + 1;
  return pos;
}

static int push_kid(save_ctx* c, int64_t node) {
  if (c->num_kids == c->cap_kids) {
    int64_t cap = c->cap_kids ? c->cap_kids * 2 : 64;
    int64_t* k = (int64_t*)tvm_ffi_realloc(c->kids, (size_t)cap * sizeof(int64_t));
    if (!k) return -1;
    c->kids = k;
    c->cap_kids = cap;
  }
  c->kids[c->num_kids++] = node;
  return 0;
}

/* Start the text of the next node: {"type":"<key>" */
static void begin_node(save_ctx* c, const char* type_key) {
  if (c->num_nodes) tvm_ffi_strbuf_putc(&c->nodes, ',');
  tvm_ffi_strbuf_puts(&c->nodes, "{\"type\":");
  write_string(&c->nodes, type_key, strlen(type_key));
}

static void write_index_list(save_ctx* c, int64_t base) {
  tvm_ffi_strbuf_putc(&c->nodes, '[');
  for (int64_t i = base; i < c->num_kids; ++i) {
    if (i > base) tvm_ffi_strbuf_putc(&c->nodes, ',');
    tvm_ffi_strbuf_printf(&c->nodes, "%lld", (long long)c->kids[i]);
  }
  tvm_ffi_strbuf_putc(&c->nodes, ']');
}

static int save_value(save_ctx* c, const TVMFFIAny* v, int64_t* out_node);

/* Inline the value of a field of static type None/bool/int/float/DataType. */
static int write_inline_field(save_ctx* c, const TVMFFIFieldInfo* f, const TVMFFIAny* v) {
  int32_t t = f->field_static_type_index;
  bool ok = v->type_index == t || (t == kTVMFFIFloat && v->type_index == kTVMFFIInt);
  if (!ok) {
    return tvm_ffi_raise("TypeError", "field `%s` (static type %s) read back a %s", f->name.data,
                         tvm_ffi_type_key(t), tvm_ffi_any_type_name(v));
  }
  switch (t) {
    case kTVMFFINone:
      tvm_ffi_strbuf_puts(&c->nodes, "null");
      return 0;
    case kTVMFFIBool:
      tvm_ffi_strbuf_puts(&c->nodes, v->v_int64 ? "true" : "false");
      return 0;
    case kTVMFFIInt:
      tvm_ffi_strbuf_printf(&c->nodes, "%lld", (long long)v->v_int64);
      return 0;
    case kTVMFFIFloat:
      write_double(&c->nodes, v->type_index == kTVMFFIInt ? (double)v->v_int64 : v->v_float64);
      return 0;
    default:
      return write_dtype(&c->nodes, v->v_dtype);
  }
}

/* An object through its reflected fields: children first, then the node. */
static int save_fields(save_ctx* c, const void* obj, int32_t t) {
  const TVMFFIFieldInfo* const* fields;
  int32_t nf = tvm_ffi_type_all_fields(t, &fields);
  int64_t base = c->num_kids;
  for (int32_t i = 0; i < nf; ++i) {
    if (inline_field(fields[i]->field_static_type_index)) continue;
    TVMFFIAny v;
    int64_t node;
    if (tvm_ffi_field_get(obj, fields[i], &v) != 0) return -1;
    int rc = save_value(c, &v, &node);
    tvm_ffi_any_release(&v);
    if (rc != 0)
      return tvm_ffi_raise_context("field `%s` of %s", fields[i]->name.data, tvm_ffi_type_key(t));
    if (push_kid(c, node) != 0) return -1;
  }
  begin_node(c, tvm_ffi_type_key(t));
  tvm_ffi_strbuf_puts(&c->nodes, ",\"data\":{");
  int64_t k = base;
  for (int32_t i = 0; i < nf; ++i) {
    const TVMFFIFieldInfo* f = fields[i];
    if (i) tvm_ffi_strbuf_putc(&c->nodes, ',');
    write_string(&c->nodes, f->name.data, f->name.size);
    tvm_ffi_strbuf_putc(&c->nodes, ':');
    if (!inline_field(f->field_static_type_index)) {
      tvm_ffi_strbuf_printf(&c->nodes, "%lld", (long long)c->kids[k++]);
      continue;
    }
    TVMFFIAny v;
    if (tvm_ffi_field_get(obj, f, &v) != 0) return -1;
    int rc = write_inline_field(c, f, &v);
    tvm_ffi_any_release(&v);
    if (rc != 0) return -1;
  }
  tvm_ffi_strbuf_puts(&c->nodes, "}}");
  c->num_kids = base;
  return 0;
}

/* Containers and objects: write the children, then the node. */
static int save_object(save_ctx* c, const TVMFFIAny* v) {
  int32_t t = v->type_index;
  void* obj = v->v_obj;
  int64_t base = c->num_kids, node;
  switch (t) {
    case kTVMFFIArray:
    case kTVMFFIList:
      for (int64_t i = 0, n = tvm_ffi_seq_size(obj); i < n; ++i) {
        if (save_value(c, tvm_ffi_seq_at(obj, i), &node) != 0 || push_kid(c, node) != 0) return -1;
      }
      break;
    case kTVMFFIMap:
    case kTVMFFIDict: {
      const TVMFFIAny *k, *val;
      for (int64_t pos = 0; (pos = tvm_ffi_map_next(obj, pos, &k, &val)) >= 0;) {
        if (save_value(c, k, &node) != 0 || push_kid(c, node) != 0) return -1;
        if (save_value(c, val, &node) != 0 || push_kid(c, node) != 0) return -1;
      }
      break;
    }
    case kTVMFFIShape: {
      begin_node(c, "ffi.Shape");
      tvm_ffi_strbuf_puts(&c->nodes, ",\"data\":[");
      const int64_t* d = tvm_ffi_shape_data(obj);
      for (int64_t i = 0, n = tvm_ffi_shape_ndim(obj); i < n; ++i) {
        tvm_ffi_strbuf_printf(&c->nodes, i ? ",%lld" : "%lld", (long long)d[i]);
      }
      tvm_ffi_strbuf_puts(&c->nodes, "]}");
      return 0;
    }
    default: {
      void* to_json = tvm_ffi__json_type_attr_function(c->to_json, t);
      if (to_json) {
        TVMFFIAny data;
        if (tvm_ffi_function_call(to_json, v, 1, &data) != 0) {
          return tvm_ffi_raise_context("__data_to_json__ of %s", tvm_ffi_type_key(t));
        }
        begin_node(c, tvm_ffi_type_key(t));
        tvm_ffi_strbuf_puts(&c->nodes, ",\"data\":");
        int rc = write_plain(&c->nodes, &data, 0);
        tvm_ffi_any_release(&data);
        if (rc != 0) return tvm_ffi_raise_context("__data_to_json__ of %s", tvm_ffi_type_key(t));
        tvm_ffi_strbuf_putc(&c->nodes, '}');
        return 0;
      }
      if (!fields_describe_state(t)) {
        return tvm_ffi_raise("TypeError",
                             "cannot serialize a %s to JSON: its state is not described by "
                             "reflected fields",
                             tvm_ffi_type_key(t));
      }
      return save_fields(c, obj, t);
    }
  }
  begin_node(c, tvm_ffi_type_key(t));
  tvm_ffi_strbuf_puts(&c->nodes, ",\"data\":");
  write_index_list(c, base);
  tvm_ffi_strbuf_putc(&c->nodes, '}');
  c->num_kids = base;
  return 0;
}

/* A leaf (POD, string, bytes). */
static int save_leaf(save_ctx* c, const TVMFFIAny* v) {
  TVMFFIByteArray s;
  switch (key_class(v->type_index)) {
    case KEY_STR:
      tvm_ffi_any_as_bytes(v, &s);
      begin_node(c, "ffi.String");
      tvm_ffi_strbuf_puts(&c->nodes, ",\"data\":");
      write_string(&c->nodes, s.data, s.size);
      tvm_ffi_strbuf_putc(&c->nodes, '}');
      return 0;
    case KEY_BYTES:
      tvm_ffi_any_as_bytes(v, &s);
      begin_node(c, "ffi.Bytes");
      tvm_ffi_strbuf_puts(&c->nodes, ",\"data\":");
      write_base64(&c->nodes, (const unsigned char*)s.data, s.size);
      tvm_ffi_strbuf_putc(&c->nodes, '}');
      return 0;
    default:
      break;
  }
  switch (v->type_index) {
    case kTVMFFINone:
      begin_node(c, "None");
      tvm_ffi_strbuf_putc(&c->nodes, '}');
      return 0;
    case kTVMFFIBool:
      begin_node(c, "bool");
      tvm_ffi_strbuf_puts(&c->nodes, v->v_int64 ? ",\"data\":true}" : ",\"data\":false}");
      return 0;
    case kTVMFFIInt:
      begin_node(c, "int");
      tvm_ffi_strbuf_printf(&c->nodes, ",\"data\":%lld}", (long long)v->v_int64);
      return 0;
    case kTVMFFIFloat:
      begin_node(c, "float");
      tvm_ffi_strbuf_puts(&c->nodes, ",\"data\":");
      write_double(&c->nodes, v->v_float64);
      tvm_ffi_strbuf_putc(&c->nodes, '}');
      return 0;
    case kTVMFFIDataType: {
      char buf[64];
      int n = tvm_ffi_dtype_format(v->v_dtype, buf, sizeof(buf));
      if (n < 0) return -1;
      begin_node(c, "DataType");
      tvm_ffi_strbuf_puts(&c->nodes, ",\"data\":");
      write_string(&c->nodes, buf, (size_t)n);
      tvm_ffi_strbuf_putc(&c->nodes, '}');
      return 0;
    }
    case kTVMFFIDevice:
      begin_node(c, "Device");
      tvm_ffi_strbuf_printf(&c->nodes, ",\"data\":[%d,%d]}", (int)v->v_device.device_type,
                            (int)v->v_device.device_id);
      return 0;
    default:
      return tvm_ffi_raise("TypeError", "cannot serialize a %s to JSON", tvm_ffi_any_type_name(v));
  }
}

static int save_value(save_ctx* c, const TVMFFIAny* v, int64_t* out_node) {
  TVMFFIAny tmp;
  if (v->type_index == kTVMFFIObjectRValueRef) {
    tmp = tvm_ffi_any_obj(*(void**)v->v_ptr);
    v = &tmp;
  }
  uint64_t h = dedup_hash(v);
  dedup_entry* d = dedup_find(c, v, h);
  if (d) {
    if (d->node < 0) {
      return tvm_ffi_raise("ValueError", "cannot serialize to JSON: a %s contains itself",
                           tvm_ffi_any_type_name(v));
    }
    *out_node = d->node;
    return 0;
  }
  bool is_object = v->type_index >= kTVMFFIStaticObjectBegin && !key_class(v->type_index);
  int rc;
  if (is_object) {
    int64_t pos = dedup_add(c, v, h, -1);
    if (pos < 0) return -1;
    if (++c->depth > TVM_FFI_STRUCTURAL_MAX_DEPTH) {
      return tvm_ffi_raise("RuntimeError",
                           "cannot serialize to JSON: value nested deeper than %d levels",
                           TVM_FFI_STRUCTURAL_MAX_DEPTH);
    }
    rc = save_object(c, v);
    c->depth--;
    if (rc != 0) return -1;
    c->entries[pos].node = c->num_nodes;
  } else {
    if (save_leaf(c, v) != 0) return -1;
    if (dedup_add(c, v, h, c->num_nodes) < 0) return -1;
  }
  *out_node = c->num_nodes++;
  return 0;
}

static int json_save(const TVMFFIAny* value, const TVMFFIAny* metadata, tvm_ffi_strbuf* out) {
  tvm_ffi_init();
  if (!value || !out) return tvm_ffi_raise("ValueError", "tvm_ffi_json_save: NULL argument");
  save_ctx c;
  memset(&c, 0, sizeof(c));
  c.to_json = attr_column("__data_to_json__");
  int64_t root = 0;
  int rc = save_value(&c, value, &root);
  if (rc == 0 && c.nodes.failed) rc = tvm_ffi_raise("MemoryError", "out of memory writing JSON");
  /* The root index is known only now, so the nodes are copied once into `out`, after it; on
   * failure `out` is restored to its previous length. */
  size_t out_size = out->size;
  if (rc == 0) {
    tvm_ffi_strbuf_printf(out, "{\"root_index\":%lld,\"nodes\":[", (long long)root);
    tvm_ffi_strbuf_append(out, c.nodes.data ? c.nodes.data : "", c.nodes.size);
    tvm_ffi_strbuf_putc(out, ']');
    if (metadata && metadata->type_index != kTVMFFINone) {
      tvm_ffi_strbuf_puts(out, ",\"metadata\":");
      rc = write_plain(out, metadata, 0);
    }
    tvm_ffi_strbuf_putc(out, '}');
    if (rc == 0 && out->failed) rc = tvm_ffi_raise("MemoryError", "out of memory writing JSON");
    if (rc != 0 && !out->failed) {
      out->size = out_size;
      if (out->data) out->data[out_size] = '\0';
    }
  }
  tvm_ffi_strbuf_free(&c.nodes);
  for (int64_t i = 0; i < c.num_entries; ++i) tvm_ffi_any_release(&c.entries[i].key);
  tvm_ffi_free(c.entries);
  tvm_ffi_free(c.index);
  tvm_ffi_free(c.kids);
  return rc;
}

int tvm_ffi_json_save(const TVMFFIAny* value, tvm_ffi_strbuf* out) {
  return json_save(value, NULL, out);
}

/* ---- Parsing ----------------------------------------------------------------------------- */
const char* const tvm_ffi__json_kind_names[] = {"null",    "false",    "true",     "an integer",
                                                "a float", "a string", "an array", "an object"};
typedef tvm_ffi__jval jval;
typedef tvm_ffi__jparser parser;

static int perr(parser* p, size_t off, const char* what) {
  return tvm_ffi_raise("ValueError", "invalid JSON at byte offset %zu: %s", off, what);
}

static int new_val(parser* p, uint8_t kind, size_t off, int32_t* out) {
  if (p->nvals == p->cap) {
    if (p->cap >= INT32_MAX / 2) return perr(p, off, "too many values");
    /* A first guess from the text size (one value per ~6 bytes in graphs) avoids regrowing. */
    int32_t cap =
        p->cap ? p->cap * 2 : (int32_t)(p->len / 6 < (1u << 24) ? p->len / 6 + 64 : 1u << 24);
    jval* v = (jval*)tvm_ffi_realloc(p->vals, (size_t)cap * sizeof(jval));
    if (!v) return -1;
    p->vals = v;
    p->cap = cap;
  }
  jval* v = &p->vals[p->nvals];
  memset(v, 0, sizeof(*v));
  v->kind = kind;
  v->next = -1;
  *out = p->nvals++;
  return 0;
}

static void skip_ws(parser* p) {
  while (p->pos < p->len) {
    char c = p->text[p->pos];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    p->pos++;
  }
}

static int hex4(parser* p, size_t at, uint32_t* out) {
  if (at + 4 > p->len) return perr(p, at, "truncated \\u escape");
  uint32_t v = 0;
  for (size_t i = at; i < at + 4; ++i) {
    char c = p->text[i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) return perr(p, i, "invalid hex digit in \\u escape");
    v = v * 16 + (uint32_t)d;
  }
  *out = v;
  return 0;
}

static void put_utf8(tvm_ffi_strbuf* b, uint32_t cp) {
  char u[4];
  size_t n;
  if (cp < 0x80) {
    u[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    u[0] = (char)(0xC0 | (cp >> 6));
    u[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    u[0] = (char)(0xE0 | (cp >> 12));
    u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    u[0] = (char)(0xF0 | (cp >> 18));
    u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  tvm_ffi_strbuf_append(b, u, n);
}

/* A string starting at the opening quote. Strings without escapes point into the text. */
static int parse_string(parser* p, int32_t* out) {
  size_t start = p->pos++;
  size_t i = p->pos;
  while (i < p->len && p->text[i] != '"' && p->text[i] != '\\' &&
         (unsigned char)p->text[i] >= 0x20) {
    ++i;
  }
  if (new_val(p, J_STR, start, out) != 0) return -1;
  if (i < p->len && p->text[i] == '"') {
    p->vals[*out].u.s.pos = (uint32_t)p->pos;
    p->vals[*out].u.s.len = (uint32_t)(i - p->pos);
    p->pos = i + 1;
    return 0;
  }
  /* Slow path: unescape into the arena. */
  tvm_ffi_strbuf* a = &p->arena;
  size_t apos = a->size;
  tvm_ffi_strbuf_append(a, p->text + p->pos, i - p->pos);
  for (;;) {
    if (i >= p->len) return perr(p, start, "unterminated string");
    unsigned char c = (unsigned char)p->text[i];
    if (c == '"') break;
    if (c < 0x20) return perr(p, i, "unescaped control character in string");
    if (c != '\\') {
      size_t j = i;
      while (j < p->len && p->text[j] != '"' && p->text[j] != '\\' &&
             (unsigned char)p->text[j] >= 0x20) {
        ++j;
      }
      tvm_ffi_strbuf_append(a, p->text + i, j - i);
      i = j;
      continue;
    }
    if (i + 1 >= p->len) return perr(p, i, "unterminated escape");
    char e = p->text[i + 1];
    const char* simple = strchr("\"\\/bfnrt", e);
    if (e && simple) {
      static const char repl[] = "\"\\/\b\f\n\r\t";
      tvm_ffi_strbuf_putc(a, repl[simple - "\"\\/bfnrt"]);
      i += 2;
      continue;
    }
    if (e != 'u') return perr(p, i, "invalid escape");
    uint32_t cp;
    if (hex4(p, i + 2, &cp) != 0) return -1;
    size_t esc_at = i;
    i += 6;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return perr(p, esc_at, "unpaired low surrogate");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      uint32_t lo;
      if (i + 1 >= p->len || p->text[i] != '\\' || p->text[i + 1] != 'u') {
        return perr(p, esc_at, "unpaired high surrogate");
      }
      if (hex4(p, i + 2, &lo) != 0) return -1;
      if (lo < 0xDC00 || lo > 0xDFFF) return perr(p, esc_at, "unpaired high surrogate");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      i += 6;
    }
    put_utf8(a, cp);
  }
  if (a->failed) return tvm_ffi_raise("MemoryError", "out of memory parsing JSON");
  jval* v = &p->vals[*out];
  v->in_arena = true;
  v->u.s.pos = (uint32_t)apos;
  v->u.s.len = (uint32_t)(a->size - apos);
  p->pos = i + 1;
  return 0;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static int parse_number(parser* p, int32_t* out) {
  size_t start = p->pos, i = p->pos;
  bool neg = false, integral = true;
  if (p->text[i] == '-') {
    neg = true;
    ++i;
  }
  if (i >= p->len || !is_digit(p->text[i])) return perr(p, start, "invalid number");
  if (p->text[i] == '0' && i + 1 < p->len && is_digit(p->text[i + 1])) {
    return perr(p, start, "leading zeros are not allowed");
  }
  while (i < p->len && is_digit(p->text[i])) ++i;
  if (i < p->len && p->text[i] == '.') {
    integral = false;
    ++i;
    if (i >= p->len || !is_digit(p->text[i])) return perr(p, start, "digits expected after '.'");
    while (i < p->len && is_digit(p->text[i])) ++i;
  }
  if (i < p->len && (p->text[i] == 'e' || p->text[i] == 'E')) {
    integral = false;
    ++i;
    if (i < p->len && (p->text[i] == '+' || p->text[i] == '-')) ++i;
    if (i >= p->len || !is_digit(p->text[i])) return perr(p, start, "digits expected in exponent");
    while (i < p->len && is_digit(p->text[i])) ++i;
  }
  p->pos = i;
  if (integral) {
    /* Exact int64, or a float when out of range. */
    uint64_t mag = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    bool fits = true;
    for (size_t k = start + (neg ? 1 : 0); k < i && fits; ++k) {
      uint64_t d = (uint64_t)(p->text[k] - '0');
      if (mag > (limit - d) / 10)
        fits = false;
      else
        mag = mag * 10 + d;
    }
    if (fits) {
      if (new_val(p, J_INT, start, out) != 0) return -1;
      p->vals[*out].u.i = neg ? (int64_t)(0 - mag) : (int64_t)mag;
      return 0;
    }
  }
  /* strtod needs a terminated copy (the text need not be NUL-terminated). */
  char small[64];
  size_t n = i - start;
  char* buf = n < sizeof(small) ? small : (char*)tvm_ffi_malloc(n + 1);
  if (!buf) return -1;
  memcpy(buf, p->text + start, n);
  buf[n] = '\0';
  double d = tvm_ffi_strtod(buf, NULL);
  if (buf != small) tvm_ffi_free(buf);
  if (new_val(p, J_FLOAT, start, out) != 0) return -1;
  p->vals[*out].u.f = d;
  return 0;
}

static int parse_value(parser* p, int32_t* out);

/* Elements (or members) of an array (object) starting at the opening bracket. */
static int parse_container(parser* p, bool is_object, int32_t* out) {
  size_t start = p->pos++;
  if (++p->depth > JSON_MAX_NESTING) return perr(p, start, "nesting too deep");
  if (new_val(p, is_object ? J_OBJ : J_ARR, start, out) != 0) return -1;
  char close = is_object ? '}' : ']';
  int32_t prev = -1, first = -1, count = 0;
  skip_ws(p);
  if (p->pos < p->len && p->text[p->pos] == close) {
    p->pos++;
  } else {
    for (;;) {
      int32_t item;
      skip_ws(p);
      if (is_object) {
        if (p->pos >= p->len || p->text[p->pos] != '"')
          return perr(p, p->pos, "expected a string key");
        if (parse_string(p, &item) != 0) return -1;
        if (prev >= 0)
          p->vals[prev].next = item;
        else
          first = item;
        prev = item;
        skip_ws(p);
        if (p->pos >= p->len || p->text[p->pos] != ':') return perr(p, p->pos, "expected ':'");
        p->pos++;
      }
      if (parse_value(p, &item) != 0) return -1;
      if (prev >= 0)
        p->vals[prev].next = item;
      else
        first = item;
      prev = item;
      if (count == INT32_MAX) return perr(p, p->pos, "too many elements");
      count++;
      skip_ws(p);
      if (p->pos >= p->len)
        return perr(p, p->pos, is_object ? "unterminated object" : "unterminated array");
      char c = p->text[p->pos++];
      if (c == close) break;
      if (c != ',')
        return perr(p, p->pos - 1, is_object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  }
  p->vals[*out].u.c.first = first;
  p->vals[*out].u.c.count = count;
  p->depth--;
  return 0;
}

static int parse_literal(parser* p, const char* word, uint8_t kind, int32_t* out) {
  size_t n = strlen(word);
  if (p->len - p->pos < n || memcmp(p->text + p->pos, word, n) != 0) {
    return perr(p, p->pos, "unexpected character");
  }
  if (new_val(p, kind, p->pos, out) != 0) return -1;
  p->pos += n;
  return 0;
}

static int parse_value(parser* p, int32_t* out) {
  skip_ws(p);
  if (p->pos >= p->len) return perr(p, p->pos, "unexpected end of input");
  char c = p->text[p->pos];
  switch (c) {
    case '{':
      return parse_container(p, true, out);
    case '[':
      return parse_container(p, false, out);
    case '"':
      return parse_string(p, out);
    case 't':
      return parse_literal(p, "true", J_TRUE, out);
    case 'f':
      return parse_literal(p, "false", J_FALSE, out);
    case 'n':
      return parse_literal(p, "null", J_NULL, out);
    default:
      if (c == '-' || is_digit(c)) return parse_number(p, out);
      return perr(p, p->pos, "unexpected character");
  }
}

static int parse_document(parser* p, const char* text, size_t len, int32_t* root) {
  memset(p, 0, sizeof(*p));
  p->text = text;
  p->len = len;
  if (len > UINT32_MAX) return tvm_ffi_raise("ValueError", "JSON text larger than 4 GiB");
  if (parse_value(p, root) != 0) return -1;
  skip_ws(p);
  if (p->pos != p->len) return perr(p, p->pos, "trailing characters after the JSON value");
  return 0;
}

static void parser_free(parser* p) {
  tvm_ffi_free(p->vals);
  tvm_ffi_strbuf_free(&p->arena);
}

/* A plain JSON value as an owned value: objects become Maps with string keys, arrays Arrays. */
static int plain_to_any(const parser* p, int32_t idx, TVMFFIAny* out) {
  const jval* v = &p->vals[idx];
  *out = tvm_ffi_any_none();
  switch (v->kind) {
    case J_NULL:
      return 0;
    case J_FALSE:
    case J_TRUE:
      *out = tvm_ffi_any_bool(v->kind == J_TRUE);
      return 0;
    case J_INT:
      *out = tvm_ffi_any_int(v->u.i);
      return 0;
    case J_FLOAT:
      *out = tvm_ffi_any_float(v->u.f);
      return 0;
    case J_STR: {
      TVMFFIByteArray s = tvm_ffi__jstr(p, v);
      return TVMFFIStringFromByteArray(&s, out);
    }
    default:
      break;
  }
  bool obj = v->kind == J_OBJ;
  int32_t n = v->u.c.count * (obj ? 2 : 1);
  TVMFFIAny* items = (TVMFFIAny*)tvm_ffi_calloc((size_t)n + 1, sizeof(TVMFFIAny));
  if (!items) return -1;
  int rc = 0;
  int32_t k = 0;
  for (int32_t e = v->u.c.first; e >= 0 && k < n && rc == 0; e = p->vals[e].next) {
    rc = plain_to_any(p, e, &items[k++]);
  }
  void* res = NULL;
  if (rc == 0) {
    if (!obj) {
      res = tvm_ffi_array_new_take(items, n);
    } else {
      /* keys and values alternate; split them for tvm_ffi_map_new */
      TVMFFIAny* kv = (TVMFFIAny*)tvm_ffi_malloc((size_t)n * sizeof(TVMFFIAny) + 1);
      if (kv) {
        for (int32_t i = 0; i < n / 2; ++i) {
          kv[i] = items[2 * i];
          kv[n / 2 + i] = items[2 * i + 1];
        }
        res = tvm_ffi_map_new(kv, kv + n / 2, n / 2);
        tvm_ffi_free(kv);
      }
    }
  }
  if (obj || rc != 0 || !res) {
    for (int32_t i = 0; i < k; ++i) tvm_ffi_any_release(&items[i]);
  }
  tvm_ffi_free(items);
  if (!res) return -1;
  *out = tvm_ffi_any_obj(res);
  return 0;
}

/* ---- Loading ----------------------------------------------------------------------------- */
enum { NODE_NEW = 0, NODE_ACTIVE = 1, NODE_DONE = 2 };

/* Type keys resolved so far, direct-mapped by hash (registry lookups take a lock and scan). */
#define TYPE_CACHE_SIZE 64
typedef struct {
  TVMFFIByteArray key; /* points into the parsed document */
  int32_t index;
} type_cache_entry;

typedef struct {
  parser p;
  type_cache_entry type_cache[TYPE_CACHE_SIZE];
  const TVMFFITypeAttrColumn* from_json; /* "__data_from_json__" */
  int64_t n;                             /* number of nodes */
  int32_t* node;                         /* jval of each node */
  int32_t* type;                         /* type index of each node, resolved on first visit */
  int32_t* data;                         /* jval of the node's "data", or -1 */
  uint8_t* state;
  TVMFFIAny* values; /* decoded values (owned) */
} loader;

static int node_err(const char* kind, int64_t i, const char* fmt, ...) TVM_FFI_PRINTF(3, 4)
    TVM_FFI_COLD;
static int node_err(const char* kind, int64_t i, const char* fmt, ...) {
  tvm_ffi_strbuf b = {0};
  tvm_ffi_strbuf_printf(&b, "JSON graph node %lld: ", (long long)i);
  va_list ap;
  va_start(ap, fmt);
  tvm_ffi_strbuf_vprintf(&b, fmt, ap);
  va_end(ap);
  tvm_ffi_raise(kind, "%s", tvm_ffi_strbuf_cstr(&b));
  tvm_ffi_strbuf_free(&b);
  return -1;
}

static const char* jkind(const loader* L, int32_t v) {
  return tvm_ffi__json_kind_names[L->p.vals[v].kind];
}

/* The field of type t named by JSON string v, or NULL. */
static const TVMFFIFieldInfo* field_named(const loader* L, int32_t t, int32_t v) {
  TVMFFIByteArray s = tvm_ffi__jstr(&L->p, &L->p.vals[v]);
  const TVMFFIFieldInfo* const* fields;
  int32_t nf = tvm_ffi_type_all_fields(t, &fields);
  for (int32_t i = nf - 1; i >= 0; --i) {
    if (fields[i]->name.size == s.size && memcmp(fields[i]->name.data, s.data, s.size) == 0) {
      return fields[i];
    }
  }
  return NULL;
}

/* Built-in types with their own data format; every other object type uses fields. */
static bool builtin_format(int32_t t) {
  switch (t) {
    case kTVMFFINone:
    case kTVMFFIBool:
    case kTVMFFIInt:
    case kTVMFFIFloat:
    case kTVMFFIDataType:
    case kTVMFFIDevice:
    case kTVMFFIStr:
    case kTVMFFIBytes:
    case kTVMFFIArray:
    case kTVMFFIList:
    case kTVMFFIMap:
    case kTVMFFIDict:
    case kTVMFFIShape:
      return true;
    default:
      return false;
  }
}

static bool uses_fields(const loader* L, int32_t t) {
  return !builtin_format(t) && !tvm_ffi__json_type_attr_function(L->from_json, t);
}

/* Check node i's form and resolve its type key (on its first visit). */
static int resolve_node(loader* L, int64_t i) {
  int32_t v = L->node[i];
  const jval* nv = &L->p.vals[v];
  if (nv->kind != J_OBJ) return node_err("TypeError", i, "expected an object, got %s", jkind(L, v));
  int32_t type_v = -1, data_v = -1;
  for (int32_t k = nv->u.c.first; k >= 0; k = L->p.vals[L->p.vals[k].next].next) {
    int32_t val = L->p.vals[k].next;
    if (tvm_ffi__jstr_is(&L->p, &L->p.vals[k], "type") && type_v < 0) {
      type_v = val;
    } else if (tvm_ffi__jstr_is(&L->p, &L->p.vals[k], "data") && data_v < 0) {
      data_v = val;
    } else {
      TVMFFIByteArray s = tvm_ffi__jstr(&L->p, &L->p.vals[k]);
      return node_err("ValueError", i, "unexpected or repeated key \"%.*s\"", (int)s.size, s.data);
    }
  }
  if (type_v < 0) return node_err("TypeError", i, "missing \"type\"");
  if (L->p.vals[type_v].kind != J_STR) {
    return node_err("TypeError", i, "\"type\" must be a string, got %s", jkind(L, type_v));
  }
  TVMFFIByteArray key = tvm_ffi__jstr(&L->p, &L->p.vals[type_v]);
  type_cache_entry* ce = &L->type_cache[tvm_ffi__hash_bytes(key.data, key.size) % TYPE_CACHE_SIZE];
  int32_t t;
  if (ce->key.data && ce->key.size == key.size && memcmp(ce->key.data, key.data, key.size) == 0) {
    t = ce->index;
  } else {
    if (TVMFFITypeKeyToIndex(&key, &t) != 0) {
      return tvm_ffi_raise_context("JSON graph node %lld", (long long)i);
    }
    ce->key = key;
    ce->index = t;
  }
  if (t < kTVMFFIStaticObjectBegin && !builtin_format(t)) {
    return node_err("TypeError", i, "a %s cannot be loaded from JSON", tvm_ffi_type_key(t));
  }
  if (t != kTVMFFINone && data_v < 0) {
    return node_err("TypeError", i, "missing \"data\" for a %s", tvm_ffi_type_key(t));
  }
  if (t == kTVMFFINone && data_v >= 0) return node_err("TypeError", i, "None takes no \"data\"");
  uint8_t want = J_NULL;
  if (t == kTVMFFIArray || t == kTVMFFIList || t == kTVMFFIMap || t == kTVMFFIDict)
    want = J_ARR;
  else if (t >= kTVMFFIStaticObjectBegin && uses_fields(L, t))
    want = J_OBJ;
  if (want != J_NULL && L->p.vals[data_v].kind != want) {
    return node_err("TypeError", i, "the data of a %s must be %s, got %s", tvm_ffi_type_key(t),
                    tvm_ffi__json_kind_names[want], jkind(L, data_v));
  }
  if ((t == kTVMFFIMap || t == kTVMFFIDict) && L->p.vals[data_v].u.c.count % 2) {
    return node_err("ValueError", i, "the data of a %s must have an even length",
                    tvm_ffi_type_key(t));
  }
  L->type[i] = t;
  L->data[i] = data_v;
  return 0;
}

/* A node reference: a JSON integer naming an existing node. */
static int node_ref(const loader* L, int64_t i, int32_t v, const char* field, int64_t* out) {
  const jval* x = &L->p.vals[v];
  if (x->kind != J_INT) {
    if (field) {
      return node_err("TypeError", i, "field `%s` must be a node index, got %s", field,
                      jkind(L, v));
    }
    return node_err("TypeError", i, "expected a node index, got %s", jkind(L, v));
  }
  if (x->u.i < 0 || x->u.i >= L->n) {
    return node_err("ValueError", i, "node index %lld out of range [0, %lld)", (long long)x->u.i,
                    (long long)L->n);
  }
  *out = x->u.i;
  return 0;
}

/* The next child of node i after *cursor (a jval index; -2 before the first). Returns 1 with
 * *out set, 0 when there are no more, -1 on error. */
static int next_child(loader* L, int64_t i, int32_t* cursor, int64_t* out) {
  int32_t t = L->type[i];
  bool seq = t == kTVMFFIArray || t == kTVMFFIList || t == kTVMFFIMap || t == kTVMFFIDict;
  bool obj = t >= kTVMFFIStaticObjectBegin && uses_fields(L, t);
  if (!seq && !obj) return 0;
  if (*cursor == -2) *cursor = L->p.vals[L->data[i]].u.c.first;
  while (*cursor >= 0) {
    int32_t v = *cursor;
    if (seq) {
      *cursor = L->p.vals[v].next;
      return node_ref(L, i, v, NULL, out) == 0 ? 1 : -1;
    }
    int32_t val = L->p.vals[v].next;
    *cursor = L->p.vals[val].next;
    const TVMFFIFieldInfo* f = field_named(L, t, v);
    if (!f) {
      TVMFFIByteArray s = tvm_ffi__jstr(&L->p, &L->p.vals[v]);
      return node_err("TypeError", i, "%s has no field `%.*s`", tvm_ffi_type_key(t), (int)s.size,
                      s.data);
    }
    if (inline_field(f->field_static_type_index)) continue;
    return node_ref(L, i, val, f->name.data, out) == 0 ? 1 : -1;
  }
  return 0;
}

static int int_array(const loader* L, int64_t i, int32_t data_v, int64_t* out, int64_t n) {
  int64_t k = 0;
  for (int32_t e = L->p.vals[data_v].u.c.first; e >= 0 && k < n; e = L->p.vals[e].next) {
    if (L->p.vals[e].kind != J_INT) {
      return node_err("TypeError", i, "expected integers in data, got %s", jkind(L, e));
    }
    out[k++] = L->p.vals[e].u.i;
  }
  return 0;
}

static int decode_float(const loader* L, int32_t v, double* out) {
  const jval* x = &L->p.vals[v];
  if (x->kind == J_FLOAT)
    *out = x->u.f;
  else if (x->kind == J_INT)
    *out = (double)x->u.i;
  else if (x->kind == J_STR && tvm_ffi__jstr_is(&L->p, x, "inf"))
    *out = INFINITY;
  else if (x->kind == J_STR && tvm_ffi__jstr_is(&L->p, x, "-inf"))
    *out = -INFINITY;
  else if (x->kind == J_STR && tvm_ffi__jstr_is(&L->p, x, "nan"))
    *out = NAN;
  else
    return -1;
  return 0;
}

int tvm_ffi__json_decode_base64(int64_t i, TVMFFIByteArray s, bool as_string, TVMFFIAny* out) {
  if (s.size % 4)
    return node_err("ValueError", i, "base64 length %zu is not a multiple of 4", s.size);
  unsigned char* buf = (unsigned char*)tvm_ffi_malloc(s.size / 4 * 3 + 1);
  if (!buf) return -1;
  size_t n = 0;
  for (size_t k = 0; k < s.size; k += 4) {
    uint32_t v = 0;
    int pad = 0;
    for (int j = 0; j < 4; ++j) {
      char c = s.data[k + j];
      int d = c >= 'A' && c <= 'Z'   ? c - 'A'
              : c >= 'a' && c <= 'z' ? c - 'a' + 26
              : c >= '0' && c <= '9' ? c - '0' + 52
              : c == '+'             ? 62
              : c == '/'             ? 63
                                     : -1;
      /* '=' only as the last one or two characters of the text */
      if (c == '=' && k + 4 == s.size && j >= 2 && (j == 3 || s.data[k + 3] == '=')) {
        d = 0;
        pad++;
      }
      if (d < 0 || (pad && c != '=')) {
        tvm_ffi_free(buf);
        return node_err("ValueError", i, "invalid base64 character at position %zu", k + (size_t)j);
      }
      v = v << 6 | (uint32_t)d;
    }
    buf[n++] = (unsigned char)(v >> 16);
    if (pad < 2) buf[n++] = (unsigned char)(v >> 8);
    if (pad < 1) buf[n++] = (unsigned char)v;
  }
  TVMFFIByteArray b = {(const char*)buf, n};
  int rc = as_string ? TVMFFIStringFromByteArray(&b, out) : TVMFFIBytesFromByteArray(&b, out);
  tvm_ffi_free(buf);
  return rc;
}

/* The value of field f from JSON value v (inline kinds) or the referenced node. */
static int field_value(const loader* L, int64_t i, const TVMFFIFieldInfo* f, int32_t v,
                       TVMFFIAny* out) {
  const jval* x = &L->p.vals[v];
  int32_t t = f->field_static_type_index;
  const char* want = NULL;
  switch (t) {
    case kTVMFFINone:
      if (x->kind == J_NULL)
        *out = tvm_ffi_any_none();
      else
        want = "null";
      break;
    case kTVMFFIBool:
      if (x->kind == J_TRUE || x->kind == J_FALSE)
        *out = tvm_ffi_any_bool(x->kind == J_TRUE);
      else
        want = "a bool";
      break;
    case kTVMFFIInt: {
      if (x->kind != J_INT) {
        want = "an integer";
        break;
      }
      /* Narrow int fields: reject what the setter would silently truncate. */
      int bits = f->size >= 8 ? 64 : (int)f->size * 8;
      if (bits < 64 &&
          (x->u.i < -(INT64_C(1) << (bits - 1)) || x->u.i >= (INT64_C(1) << (bits - 1)))) {
        return node_err("ValueError", i, "field `%s`: %lld does not fit in int%d", f->name.data,
                        (long long)x->u.i, bits);
      }
      *out = tvm_ffi_any_int(x->u.i);
      break;
    }
    case kTVMFFIFloat: {
      double d;
      if (decode_float(L, v, &d) == 0)
        *out = tvm_ffi_any_float(d);
      else
        want = "a number";
      break;
    }
    case kTVMFFIDataType: {
      if (x->kind != J_STR) {
        want = "a dtype string";
        break;
      }
      TVMFFIByteArray s = tvm_ffi__jstr(&L->p, x);
      DLDataType dt;
      if (tvm_ffi_dtype_parse(s.data, s.size, &dt) != 0) {
        return tvm_ffi_raise_context("JSON graph node %lld field `%s`", (long long)i, f->name.data);
      }
      *out = tvm_ffi_any_dtype(dt);
      break;
    }
    default: {
      int64_t ref;
      if (node_ref(L, i, v, f->name.data, &ref) != 0) return -1;
      *out = L->values[ref]; /* a borrowed view */
      if (!tvm_ffi__json_field_accepts(t, out)) {
        /* the form of the setter's own error for an object of another type */
        return tvm_ffi_raise("TypeError",
                             "JSON graph node %lld field `%s`: field `%s` expects %s, got %s",
                             (long long)i, f->name.data, f->name.data, tvm_ffi_type_key(t),
                             tvm_ffi_any_type_name(out));
      }
      break;
    }
  }
  if (want) {
    return node_err("TypeError", i, "field `%s` must be %s, got %s", f->name.data, want,
                    jkind(L, v));
  }
  return 0;
}

void* tvm_ffi__json_create_object(int64_t i, int32_t t) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(t);
  void* obj = NULL;
  if (info && info->metadata && info->metadata->creator) {
    if (info->metadata->creator(&obj) != 0) {
      tvm_ffi_raise_context("JSON graph node %lld: creating a %s", (long long)i,
                            tvm_ffi_type_key(t));
      return NULL;
    }
    if (!obj || tvm_ffi_type_index(obj) != t) {
      tvm_ffi_release(obj);
      node_err("RuntimeError", i, "the creator of %s returned another type", tvm_ffi_type_key(t));
      return NULL;
    }
    return obj;
  }
  if (!fields_describe_state(t)) {
    node_err("RuntimeError", i, "type %s cannot be created from JSON", tvm_ffi_type_key(t));
    return NULL;
  }
  return tvm_ffi_object_new(t, (size_t)info->metadata->total_size);
}

/* An object through its fields; every member of data names a field (checked by next_child). */
static int decode_object(loader* L, int64_t i, int32_t t, TVMFFIAny* out) {
  void* obj = tvm_ffi__json_create_object(i, t);
  if (!obj) return -1;
  const jval* data = &L->p.vals[L->data[i]];
  const TVMFFIFieldInfo* const* fields;
  int32_t nf = tvm_ffi_type_all_fields(t, &fields);
  for (int32_t k = 0; k < nf; ++k) {
    const TVMFFIFieldInfo* f = fields[k];
    int32_t found = -1;
    for (int32_t m = data->u.c.first; m >= 0; m = L->p.vals[L->p.vals[m].next].next) {
      TVMFFIByteArray s = tvm_ffi__jstr(&L->p, &L->p.vals[m]);
      if (s.size != f->name.size || memcmp(s.data, f->name.data, s.size) != 0) continue;
      if (found >= 0) {
        tvm_ffi_release(obj);
        return node_err("ValueError", i, "field `%s` is given twice", f->name.data);
      }
      found = L->p.vals[m].next;
    }
    TVMFFIAny v = tvm_ffi_any_none(), owned = tvm_ffi_any_none();
    if (found >= 0) {
      if (field_value(L, i, f, found, &v) != 0) {
        tvm_ffi_release(obj);
        return -1;
      }
    } else if (f->flags & kTVMFFIFieldFlagBitMaskHasDefault) {
      if (f->flags & kTVMFFIFieldFlagBitMaskDefaultFromFactory) {
        if (tvm_ffi_function_call(f->default_value_or_factory.v_obj, NULL, 0, &owned) != 0) {
          tvm_ffi_release(obj);
          return tvm_ffi_raise_context("JSON graph node %lld: default of field `%s`", (long long)i,
                                       f->name.data);
        }
        v = owned;
      } else {
        v = f->default_value_or_factory;
      }
    } else {
      tvm_ffi_release(obj);
      return node_err("TypeError", i, "missing field `%s` of %s", f->name.data,
                      tvm_ffi_type_key(t));
    }
    int rc = tvm_ffi_field_set(obj, f, &v);
    tvm_ffi_any_release(&owned);
    if (rc != 0) {
      tvm_ffi_release(obj);
      return tvm_ffi_raise_context("JSON graph node %lld field `%s`", (long long)i, f->name.data);
    }
  }
  *out = tvm_ffi_any_obj(obj);
  return 0;
}

/* Decode node i; its children are decoded already. */
static int decode_node(loader* L, int64_t i, TVMFFIAny* out) {
  int32_t t = L->type[i], dv = L->data[i];
  const jval* d = dv >= 0 ? &L->p.vals[dv] : NULL;
  *out = tvm_ffi_any_none();
  switch (t) {
    case kTVMFFINone:
      return 0;
    case kTVMFFIBool:
      if (d->kind != J_TRUE && d->kind != J_FALSE) break;
      *out = tvm_ffi_any_bool(d->kind == J_TRUE);
      return 0;
    case kTVMFFIInt:
      if (d->kind != J_INT) break;
      *out = tvm_ffi_any_int(d->u.i);
      return 0;
    case kTVMFFIFloat: {
      double x;
      if (decode_float(L, dv, &x) != 0) break;
      *out = tvm_ffi_any_float(x);
      return 0;
    }
    case kTVMFFIDataType: {
      if (d->kind != J_STR) break;
      TVMFFIByteArray s = tvm_ffi__jstr(&L->p, d);
      DLDataType dt;
      if (tvm_ffi_dtype_parse(s.data, s.size, &dt) != 0) {
        return tvm_ffi_raise_context("JSON graph node %lld", (long long)i);
      }
      *out = tvm_ffi_any_dtype(dt);
      return 0;
    }
    case kTVMFFIDevice: {
      int64_t dev[2];
      if (d->kind != J_ARR || d->u.c.count != 2) break;
      if (int_array(L, i, dv, dev, 2) != 0) return -1;
      if (dev[0] < INT32_MIN || dev[0] > INT32_MAX || dev[1] < INT32_MIN || dev[1] > INT32_MAX) {
        return node_err("ValueError", i, "device fields out of the int32 range");
      }
      *out = tvm_ffi_any_device(TVMFFIDLDeviceFromIntPair((int32_t)dev[0], (int32_t)dev[1]));
      return 0;
    }
    case kTVMFFIStr: {
      if (d->kind != J_STR) break;
      TVMFFIByteArray s = tvm_ffi__jstr(&L->p, d);
      return TVMFFIStringFromByteArray(&s, out);
    }
    case kTVMFFIBytes:
      if (d->kind != J_STR) break;
      return tvm_ffi__json_decode_base64(i, tvm_ffi__jstr(&L->p, d), false, out);
    case kTVMFFIShape: {
      if (d->kind != J_ARR) break;
      int64_t* dims = (int64_t*)tvm_ffi_malloc((size_t)d->u.c.count * sizeof(int64_t) + 1);
      if (!dims) return -1;
      void* s = NULL;
      if (int_array(L, i, dv, dims, d->u.c.count) == 0) s = tvm_ffi_shape_new(dims, d->u.c.count);
      tvm_ffi_free(dims);
      if (!s) return -1;
      *out = tvm_ffi_any_obj(s);
      return 0;
    }
    case kTVMFFIArray:
    case kTVMFFIList:
    case kTVMFFIMap:
    case kTVMFFIDict: {
      /* Views of the decoded children, in order (validated by next_child). */
      int64_t n = d->u.c.count, k = 0;
      TVMFFIAny* items = (TVMFFIAny*)tvm_ffi_malloc((size_t)n * sizeof(TVMFFIAny) + 1);
      if (!items) return -1;
      for (int32_t e = d->u.c.first; e >= 0 && k < n; e = L->p.vals[e].next) {
        items[k++] = L->values[L->p.vals[e].u.i];
      }
      void* res = NULL;
      if (t == kTVMFFIArray) {
        res = tvm_ffi_array_new(items, n);
      } else if (t == kTVMFFIList) {
        res = tvm_ffi_list_new();
        for (int64_t j = 0; res && j < n; ++j) {
          if (tvm_ffi_list_push(res, &items[j]) != 0) {
            tvm_ffi_release(res);
            res = NULL;
          }
        }
      } else {
        /* flat [k0, v0, k1, v1, ...]: gather keys then values for map_new */
        TVMFFIAny* kv = (TVMFFIAny*)tvm_ffi_malloc((size_t)n * sizeof(TVMFFIAny) + 1);
        if (kv) {
          for (int64_t j = 0; j < n / 2; ++j) {
            kv[j] = items[2 * j];
            kv[n / 2 + j] = items[2 * j + 1];
          }
          if (t == kTVMFFIMap) {
            res = tvm_ffi_map_new(kv, kv + n / 2, n / 2);
          } else {
            res = tvm_ffi_dict_new();
            for (int64_t j = 0; res && j < n / 2; ++j) {
              if (tvm_ffi_dict_set(res, &kv[j], &kv[n / 2 + j]) != 0) {
                tvm_ffi_release(res);
                res = NULL;
              }
            }
          }
          tvm_ffi_free(kv);
        }
      }
      tvm_ffi_free(items);
      if (!res) return -1;
      *out = tvm_ffi_any_obj(res);
      return 0;
    }
    default: {
      void* from_json = tvm_ffi__json_type_attr_function(L->from_json, t);
      if (!from_json) return decode_object(L, i, t, out);
      TVMFFIAny arg;
      if (plain_to_any(&L->p, dv, &arg) != 0) return -1;
      int rc = tvm_ffi_function_call(from_json, &arg, 1, out);
      tvm_ffi_any_release(&arg);
      if (rc != 0) {
        return tvm_ffi_raise_context("JSON graph node %lld: __data_from_json__ of %s", (long long)i,
                                     tvm_ffi_type_key(t));
      }
      return 0;
    }
  }
  return node_err("TypeError", i, "invalid data for a %s: %s", tvm_ffi_type_key(t), jkind(L, dv));
}

/* Decode the nodes reachable from root, children first, with an explicit stack (depth-first,
 * so cycles are found as references to a node still on the stack). */
static int load_graph(loader* L, int64_t root, TVMFFIAny* out) {
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
    L->state[root] = NODE_ACTIVE;
  }
  while (rc == 0 && top > 0) {
    frame* f = &stack[top - 1];
    int64_t child = -1;
    int r = next_child(L, f->node, &f->cursor, &child);
    if (r < 0) {
      rc = -1;
    } else if (r == 1) {
      if (L->state[child] == NODE_DONE) continue;
      if (L->state[child] == NODE_ACTIVE) {
        rc = node_err("ValueError", f->node, "reference to node %lld forms a cycle",
                      (long long)child);
      } else if (top > TVM_FFI_STRUCTURAL_MAX_DEPTH) {
        /* The limit counts objects and containers as saving does; the stack also holds the
         * leaf below them, hence '>'. */
        rc = node_err("ValueError", f->node, "graph nested deeper than %d levels",
                      TVM_FFI_STRUCTURAL_MAX_DEPTH);
      } else if ((rc = resolve_node(L, child)) == 0) {
        stack[top++] = (frame){child, -2};
        L->state[child] = NODE_ACTIVE;
      }
    } else {
      rc = decode_node(L, f->node, &L->values[f->node]);
      L->state[f->node] = NODE_DONE;
      top--;
    }
  }
  tvm_ffi_free(stack);
  if (rc == 0) *out = tvm_ffi_any_copy(&L->values[root]);
  return rc;
}

int tvm_ffi_json_load(const char* text, size_t len, TVMFFIAny* out) {
  tvm_ffi_init();
  if (!out) return tvm_ffi_raise("ValueError", "tvm_ffi_json_load: out is NULL");
  *out = tvm_ffi_any_none();
  if (!text && len) return tvm_ffi_raise("ValueError", "tvm_ffi_json_load: text is NULL");
  loader L;
  memset(&L, 0, sizeof(L));
  L.from_json = attr_column("__data_from_json__");
  int32_t doc;
  int rc = parse_document(&L.p, text ? text : "", len, &doc);
  int32_t root_v = -1, nodes_v = -1;
  if (rc == 0) {
    const jval* d = &L.p.vals[doc];
    if (d->kind != J_OBJ) {
      rc = tvm_ffi_raise("ValueError", "JSON graph: expected an object at the top level, got %s",
                         tvm_ffi__json_kind_names[d->kind]);
    }
    /* TVM's SaveJSON before tvm-ffi wrote {"root": R, "nodes": [...], "b64ndarrays": [...]} */
    for (int32_t k = rc == 0 ? d->u.c.first : -1; k >= 0; k = L.p.vals[L.p.vals[k].next].next) {
      if (tvm_ffi__jstr_is(&L.p, &L.p.vals[k], "root")) {
        rc = tvm_ffi__json_load_legacy(&L.p, doc, out);
        parser_free(&L.p);
        return rc;
      }
    }
    for (int32_t k = rc == 0 ? d->u.c.first : -1; k >= 0 && rc == 0;
         k = L.p.vals[L.p.vals[k].next].next) {
      const jval* key = &L.p.vals[k];
      if (tvm_ffi__jstr_is(&L.p, key, "root_index") && root_v < 0) {
        root_v = key->next;
      } else if (tvm_ffi__jstr_is(&L.p, key, "nodes") && nodes_v < 0) {
        nodes_v = key->next;
      } else if (!tvm_ffi__jstr_is(&L.p, key, "metadata")) {
        TVMFFIByteArray s = tvm_ffi__jstr(&L.p, key);
        rc = tvm_ffi_raise("ValueError", "JSON graph: unexpected or repeated key \"%.*s\"",
                           (int)s.size, s.data);
      }
    }
    if (rc == 0 && (root_v < 0 || L.p.vals[root_v].kind != J_INT)) {
      rc = tvm_ffi_raise("ValueError", "JSON graph: expected an integer \"root_index\"");
    }
    if (rc == 0 && (nodes_v < 0 || L.p.vals[nodes_v].kind != J_ARR)) {
      rc = tvm_ffi_raise("ValueError", "JSON graph: expected a \"nodes\" array");
    }
  }
  if (rc == 0) {
    L.n = L.p.vals[nodes_v].u.c.count;
    int64_t root = L.p.vals[root_v].u.i;
    if (root < 0 || root >= L.n) {
      rc = tvm_ffi_raise("ValueError", "JSON graph: root_index %lld out of range [0, %lld)",
                         (long long)root, (long long)L.n);
    } else {
      size_t n = (size_t)L.n;
      L.node = (int32_t*)tvm_ffi_malloc(n * sizeof(int32_t));
      L.type = (int32_t*)tvm_ffi_malloc(n * sizeof(int32_t));
      L.data = (int32_t*)tvm_ffi_malloc(n * sizeof(int32_t));
      L.state = (uint8_t*)tvm_ffi_calloc(n, 1);
      L.values = (TVMFFIAny*)tvm_ffi_calloc(n, sizeof(TVMFFIAny)); /* zero = None */
      if (!L.node || !L.type || !L.data || !L.state || !L.values) {
        rc = -1;
      } else {
        int64_t k = 0;
        for (int32_t e = L.p.vals[nodes_v].u.c.first; e >= 0; e = L.p.vals[e].next) L.node[k++] = e;
        rc = load_graph(&L, root, out);
      }
    }
  }
  for (int64_t i = 0; L.values && i < L.n; ++i) tvm_ffi_any_release(&L.values[i]);
  tvm_ffi_free(L.node);
  tvm_ffi_free(L.type);
  tvm_ffi_free(L.data);
  tvm_ffi_free(L.state);
  tvm_ffi_free(L.values);
  parser_free(&L.p);
  return rc;
}

/* ---- Globals ----------------------------------------------------------------------------- */
/* ffi.ToJSONGraphString(value, metadata=None) -> str */
static int g_to_json(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  if (n != 1 && n != 2) {
    return tvm_ffi_raise("TypeError", "ffi.ToJSONGraphString expects 1 or 2 arguments but got %d",
                         (int)n);
  }
  tvm_ffi_strbuf b = {0};
  int rc = json_save(&args[0], n == 2 ? &args[1] : NULL, &b);
  if (rc == 0) {
    *result = tvm_ffi_string_n(tvm_ffi_strbuf_cstr(&b), b.size);
    if (result->type_index == kTVMFFINone) rc = -1;
  }
  tvm_ffi_strbuf_free(&b);
  return rc;
}

/* ffi.FromJSONGraphString(str) -> value */
static int g_from_json(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  TVMFFIByteArray s;
  if (!tvm_ffi_check_num_args("ffi.FromJSONGraphString", n, 1) ||
      !tvm_ffi_arg_bytes("ffi.FromJSONGraphString", args, 0, &s)) {
    return -1;
  }
  return tvm_ffi_json_load(s.data, s.size, result);
}

void tvm_ffi__init_json(void) {
  tvm_ffi__register_global("ffi.ToJSONGraphString", g_to_json);
  tvm_ffi__register_global("ffi.FromJSONGraphString", g_from_json);
}

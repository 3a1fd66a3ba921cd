/*
 * access_path.c: AccessPath objects (a path of steps from a root value to a node inside it, as
 * reported by structural equality) and the reflection initialiser of libtvmffi.
 *
 * A path is a chain of immutable nodes, each holding one step and a reference to its parent:
 * extending a path shares its prefix. The type "ffi.reflection.AccessPath" reflects all of its
 * fields and uses the default destructor, so paths are compared, hashed and serialized by the
 * generic reflection algorithms like any other node.
 *
 * Text form: "<root>" then per step ".name" (attribute), "[3]" (array item), "[\"key\"]" or
 * "[3]" (map item, the key printed as a literal); a missing step (present on one side of a
 * comparison only) is followed by "<missing>", e.g. "<root>.args[2]<missing>".
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Initialisers of the other reflection files (structural.c, json.c); they are private to the
 * reflection sources, so they are declared here rather than in internal.h. */

static int32_t g_path_index = -1;

int32_t tvm_ffi_access_path_type_index(void) {
  tvm_ffi_init();
  return g_path_index;
}

static bool is_path(const void* p) { return p && tvm_ffi_type_index(p) == g_path_index; }

void* tvm_ffi_access_path_root(void) {
  tvm_ffi_init();
  tvm_ffi_access_path_obj* p =
      (tvm_ffi_access_path_obj*)tvm_ffi_object_new(g_path_index, sizeof(tvm_ffi_access_path_obj));
  if (!p) return NULL;
  p->kind = TVM_FFI_PATH_ROOT;
  p->key = tvm_ffi_any_none();
  return p;
}

void* tvm_ffi_access_path_extend(const void* parent, int64_t kind, const TVMFFIAny* key) {
  tvm_ffi_init();
  if (!is_path(parent)) {
    tvm_ffi_raise("TypeError", "tvm_ffi_access_path_extend: the parent is not an AccessPath");
    return NULL;
  }
  if (kind < TVM_FFI_PATH_ATTR || kind > TVM_FFI_PATH_MAP_ITEM_MISSING) {
    tvm_ffi_raise("ValueError", "tvm_ffi_access_path_extend: invalid step kind %lld",
                  (long long)kind);
    return NULL;
  }
  TVMFFIAny none = tvm_ffi_any_none();
  if (!key) key = &none;
  TVMFFIByteArray name;
  if ((kind == TVM_FFI_PATH_ATTR || kind == TVM_FFI_PATH_ATTR_MISSING) &&
      (!tvm_ffi_any_as_bytes(key, &name) || key->type_index == kTVMFFISmallBytes ||
       key->type_index == kTVMFFIBytes || key->type_index == kTVMFFIByteArrayPtr)) {
    tvm_ffi_raise("TypeError", "an attribute step needs a string key, got %s",
                  tvm_ffi_any_type_name(key));
    return NULL;
  }
  if ((kind == TVM_FFI_PATH_ARRAY_ITEM || kind == TVM_FFI_PATH_ARRAY_ITEM_MISSING) &&
      key->type_index != kTVMFFIInt) {
    tvm_ffi_raise("TypeError", "an array item step needs an int key, got %s",
                  tvm_ffi_any_type_name(key));
    return NULL;
  }
  TVMFFIAny owned;
  if (tvm_ffi_any_to_owned(key, &owned) != 0) return NULL;
  tvm_ffi_access_path_obj* p =
      (tvm_ffi_access_path_obj*)tvm_ffi_object_new(g_path_index, sizeof(tvm_ffi_access_path_obj));
  if (!p) {
    tvm_ffi_any_release(&owned);
    return NULL;
  }
  const tvm_ffi_access_path_obj* par = (const tvm_ffi_access_path_obj*)parent;
  tvm_ffi_retain((void*)par);
  p->parent = (tvm_ffi_access_path_obj*)par;
  p->kind = kind;
  p->key = owned;
  p->depth = par->depth + 1;
  return p;
}

void* tvm_ffi_access_path_attr(const void* parent, const char* name) {
  TVMFFIAny key = tvm_ffi_any_raw_str(name ? name : "");
  return tvm_ffi_access_path_extend(parent, TVM_FFI_PATH_ATTR, &key);
}

void* tvm_ffi_access_path_item(const void* parent, int64_t index) {
  TVMFFIAny key = tvm_ffi_any_int(index);
  return tvm_ffi_access_path_extend(parent, TVM_FFI_PATH_ARRAY_ITEM, &key);
}

/* A string key as a double-quoted literal: quote, backslash and control bytes escaped. */
static void format_quoted(tvm_ffi_strbuf* out, TVMFFIByteArray s) {
  tvm_ffi_strbuf_putc(out, '"');
  for (size_t i = 0; i < s.size; ++i) {
    unsigned char c = (unsigned char)s.data[i];
    if (c == '"' || c == '\\') {
      tvm_ffi_strbuf_putc(out, '\\');
      tvm_ffi_strbuf_putc(out, (char)c);
    } else if (c < 0x20 || c == 0x7f) {
      tvm_ffi_strbuf_printf(out, "\\x%02x", c);
    } else {
      tvm_ffi_strbuf_putc(out, (char)c);
    }
  }
  tvm_ffi_strbuf_putc(out, '"');
}

static void format_key(tvm_ffi_strbuf* out, const TVMFFIAny* key) {
  TVMFFIByteArray s;
  char buf[64];
  switch (key->type_index) {
    case kTVMFFINone:
      tvm_ffi_strbuf_puts(out, "None");
      return;
    case kTVMFFIInt:
      tvm_ffi_strbuf_printf(out, "%lld", (long long)key->v_int64);
      return;
    case kTVMFFIBool:
      tvm_ffi_strbuf_puts(out, key->v_int64 ? "True" : "False");
      return;
    case kTVMFFIFloat:
      tvm_ffi_strbuf_printf(out, "%.17g", key->v_float64);
      return;
    case kTVMFFIDataType:
      if (tvm_ffi_dtype_format(key->v_dtype, buf, sizeof(buf)) >= 0) {
        tvm_ffi_strbuf_puts(out, buf);
      } else {
        tvm_ffi_error_clear(); /* formatting must not leave an error behind */
        tvm_ffi_strbuf_puts(out, "<dtype>");
      }
      return;
    case kTVMFFIDevice:
      tvm_ffi_strbuf_printf(out, "device(%d, %d)", (int)key->v_device.device_type,
                            (int)key->v_device.device_id);
      return;
    default:
      break;
  }
  if (tvm_ffi_any_as_bytes(key, &s)) {
    bool bytes = key->type_index == kTVMFFISmallBytes || key->type_index == kTVMFFIBytes ||
                 key->type_index == kTVMFFIByteArrayPtr;
    if (bytes) tvm_ffi_strbuf_putc(out, 'b');
    format_quoted(out, s);
    return;
  }
  /* Other objects have no canonical literal; name their type. */
  tvm_ffi_strbuf_printf(out, "<%s>", tvm_ffi_any_type_name(key));
}

static void format_step(tvm_ffi_strbuf* out, const tvm_ffi_access_path_obj* p) {
  TVMFFIByteArray name;
  switch (p->kind) {
    case TVM_FFI_PATH_ROOT:
      tvm_ffi_strbuf_puts(out, "<root>");
      return;
    case TVM_FFI_PATH_ATTR:
    case TVM_FFI_PATH_ATTR_MISSING:
      tvm_ffi_strbuf_putc(out, '.');
      if (tvm_ffi_any_as_bytes(&p->key, &name)) tvm_ffi_strbuf_append(out, name.data, name.size);
      break;
    default:
      tvm_ffi_strbuf_putc(out, '[');
      format_key(out, &p->key);
      tvm_ffi_strbuf_putc(out, ']');
      break;
  }
  if (p->kind >= TVM_FFI_PATH_ATTR_MISSING) tvm_ffi_strbuf_puts(out, "<missing>");
}

void tvm_ffi_access_path_format(const void* path, tvm_ffi_strbuf* out) {
  if (!is_path(path)) {
    tvm_ffi_strbuf_puts(out, path ? "<not an AccessPath>" : "None");
    return;
  }
  const tvm_ffi_access_path_obj* p = (const tvm_ffi_access_path_obj*)path;
  /* Steps are linked leaf to root; print root first. Short paths use the stack. */
  const tvm_ffi_access_path_obj* small[64];
  const tvm_ffi_access_path_obj** steps = small;
  int64_t n = p->depth + 1;
  if (n > 64) {
    steps = (const tvm_ffi_access_path_obj**)tvm_ffi_malloc((size_t)n * sizeof(void*));
    if (!steps) {
      tvm_ffi_error_clear();
      out->failed = true;
      return;
    }
  }
  int64_t k = 0;
  for (; p && k < n; p = p->parent) steps[k++] = p;
  while (k > 0) format_step(out, steps[--k]);
  if (steps != small) tvm_ffi_free(steps);
}

static bool step_equal(const tvm_ffi_access_path_obj* a, const tvm_ffi_access_path_obj* b) {
  return a->kind == b->kind && tvm_ffi_any_equal(&a->key, &b->key);
}

bool tvm_ffi_access_path_is_prefix(const void* prefix, const void* path) {
  if (!is_path(prefix) || !is_path(path)) return false;
  const tvm_ffi_access_path_obj* a = (const tvm_ffi_access_path_obj*)prefix;
  const tvm_ffi_access_path_obj* b = (const tvm_ffi_access_path_obj*)path;
  if (a->depth > b->depth) return false;
  /* Null checks guard against paths with inconsistent depths (e.g. loaded from JSON). */
  while (b && b->depth > a->depth) b = b->parent;
  for (; a && b; a = a->parent, b = b->parent) {
    if (a == b) return true; /* shared prefix */
    if (!step_equal(a, b)) return false;
  }
  return a == NULL && b == NULL;
}

bool tvm_ffi_access_path_equal(const void* a, const void* b) {
  if (!is_path(a) || !is_path(b)) return false;
  return ((const tvm_ffi_access_path_obj*)a)->depth == ((const tvm_ffi_access_path_obj*)b)->depth &&
         tvm_ffi_access_path_is_prefix(a, b);
}

/* ---- Globals ----------------------------------------------------------------------------- */
static int g_root(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  if (!tvm_ffi_check_num_args("ffi.reflection.AccessPathRoot", n, 0)) return -1;
  return tvm_ffi__ret_obj(result, tvm_ffi_access_path_root());
}

static int g_to_string(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  static const char* fname = "ffi.reflection.AccessPathToString";
  if (!tvm_ffi_check_num_args(fname, n, 1)) return -1;
  void* path = tvm_ffi_arg_object(fname, args, 0, g_path_index);
  if (!path) return -1;
  tvm_ffi_strbuf b = {0};
  tvm_ffi_access_path_format(path, &b);
  if (b.failed) {
    tvm_ffi_strbuf_free(&b);
    return tvm_ffi_raise("MemoryError", "%s: out of memory", fname);
  }
  *result = tvm_ffi_string_n(tvm_ffi_strbuf_cstr(&b), b.size);
  tvm_ffi_strbuf_free(&b);
  return result->type_index == kTVMFFINone ? -1 : 0;
}

void tvm_ffi__init_reflection(void) {
  g_path_index =
      tvm_ffi_type_register("ffi.reflection.AccessPath", kTVMFFIObject, -1,
                            sizeof(tvm_ffi_access_path_obj), NULL, kTVMFFISEqHashKindTreeNode);
  if (g_path_index >= 0) {
    const tvm_ffi_field_def fields[] = {
        TVM_FFI_FIELD(tvm_ffi_access_path_obj, parent, g_path_index, 0),
        TVM_FFI_FIELD(tvm_ffi_access_path_obj, kind, kTVMFFIInt, 0),
        TVM_FFI_FIELD(tvm_ffi_access_path_obj, key, kTVMFFIAny, 0),
        TVM_FFI_FIELD(tvm_ffi_access_path_obj, depth, kTVMFFIInt, 0),
    };
    tvm_ffi_type_add_fields(g_path_index, fields, (int32_t)(sizeof(fields) / sizeof(fields[0])));
  }
  tvm_ffi__register_global("ffi.reflection.AccessPathRoot", g_root);
  tvm_ffi__register_global("ffi.reflection.AccessPathToString", g_to_string);
  tvm_ffi__init_structural();
  tvm_ffi__init_json();
}

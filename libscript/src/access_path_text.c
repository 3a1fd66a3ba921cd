/*
 * access_path_text.c: an access path written as text in an error message
 * (`<root>["main"].body.blocks[0].bindings[2].value`) read back as an access path object
 * relative to a printed object, for underlined diagnostics (tvm_script_access_path_parse,
 * printer.h). The steps are followed through the objects they name, so that a module's
 * `["name"]` (how well-formedness errors name a module's function) becomes the path the
 * printer marks, `.functions[<GlobalVar>]`.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/tir/tir.h>

#include "script_internal.h"

/* A quoted key at s[0] == '"' up to its closing quote (escapes \" \\ \n \t \r \xHH): its value
 * into key, and the length read, or 0 when it is not one. */
static size_t read_quoted(const char* s, size_t n, tvm_ffi_strbuf* key) {
  if (n == 0 || s[0] != '"') return 0;
  for (size_t i = 1; i < n; ++i) {
    char c = s[i];
    if (c == '"') return i + 1;
    if (c != '\\') {
      tvm_ffi_strbuf_putc(key, c);
      continue;
    }
    if (++i == n) return 0;
    switch (s[i]) {
      case 'n': tvm_ffi_strbuf_putc(key, '\n'); break;
      case 't': tvm_ffi_strbuf_putc(key, '\t'); break;
      case 'r': tvm_ffi_strbuf_putc(key, '\r'); break;
      case 'x': {
        if (i + 2 >= n || !isxdigit((unsigned char)s[i + 1]) || !isxdigit((unsigned char)s[i + 2]))
          return 0;
        char hex[3] = {s[i + 1], s[i + 2], 0};
        tvm_ffi_strbuf_putc(key, (char)strtol(hex, NULL, 16));
        i += 2;
        break;
      }
      default: tvm_ffi_strbuf_putc(key, s[i]);
    }
  }
  return 0;
}

/* One step: the child of *cur (an owned value) as named, moved into *cur, and path extended
 * (consumed, returned). NULL path: the step does not lead anywhere (nothing raised). */
static void* step_attr(void* path, TVMFFIAny* cur, const char* name) {
  if (!tvm_ffi_any_is_object(cur)) return NULL;
  const TVMFFIFieldInfo* f = tvm_ffi_type_find_field(cur->type_index, name);
  TVMFFIAny v;
  if (!f || tvm_ffi_field_get(cur->v_obj, f, &v) != 0) {
    tvm_ffi_error_clear();
    return NULL;
  }
  void* next = tvm_ffi_access_path_attr(path, name);
  if (!next) {
    tvm_ffi_any_release(&v);
    return NULL;
  }
  tvm_ffi_any_release(cur);
  *cur = v;
  return next;
}

static void* step_index(void* path, TVMFFIAny* cur, int64_t i) {
  if (cur->type_index != kTVMFFIArray && cur->type_index != kTVMFFIList) return NULL;
  if (i < 0 || i >= tvm_ffi_seq_size(cur->v_obj)) return NULL;
  TVMFFIAny v;
  void* next = tvm_ffi_access_path_item(path, i);
  if (!next || tvm_ffi_any_to_owned(tvm_ffi_seq_at(cur->v_obj, i), &v) != 0) {
    tvm_ffi_release(next);
    return NULL;
  }
  tvm_ffi_any_release(cur);
  *cur = v;
  return next;
}

static void* step_key(void* path, TVMFFIAny* cur, const char* key, size_t len) {
  if (!tvm_ffi_any_is_object(cur)) return NULL;
  void* next = NULL;
  const TVMFFIAny* v = NULL;
  TVMFFIAny k = tvm_ffi_any_none();
  if (tvm_tir_kind_of(cur->v_obj) == TVM_TIR_KIND_IRModule) {
    /* ["name"] on a module: its function of that name, at .functions[<GlobalVar>] */
    char name[256];
    if (len >= sizeof(name)) return NULL;
    memcpy(name, key, len);
    name[len] = '\0';
    const tvm_tir_ir_module_obj* mod = (const tvm_tir_ir_module_obj*)cur->v_obj;
    tvm_tir_global_var_obj* gv = tvm_tir_ir_module_get_global_var(mod, name);
    tvm_ffi_error_clear();
    if (!gv) return NULL;
    k = tvm_ffi_any_obj(gv);
    v = tvm_ffi_map_get(mod->functions, &k);
    void* fp = v ? tvm_ffi_access_path_attr(path, "functions") : NULL;
    next = fp ? tvm_ffi_access_path_extend(fp, TVM_FFI_PATH_MAP_ITEM, &k) : NULL;
    tvm_ffi_release(fp);
    tvm_ffi_release(gv);
  } else if (cur->type_index == kTVMFFIMap || cur->type_index == kTVMFFIDict) {
    void* s = tvm_ffi_str_obj(key, len);
    if (!s) return NULL;
    k = tvm_ffi_any_obj(s);
    v = tvm_ffi_map_get(cur->v_obj, &k);
    next = v ? tvm_ffi_access_path_extend(path, TVM_FFI_PATH_MAP_ITEM, &k) : NULL;
    tvm_ffi_release(s);
  }
  TVMFFIAny owned;
  if (!next || tvm_ffi_any_to_owned(v, &owned) != 0) {
    tvm_ffi_release(next);
    tvm_ffi_error_clear();
    return NULL;
  }
  tvm_ffi_any_release(cur);
  *cur = owned;
  return next;
}

void* tvm_script_access_path_parse(const TVMFFIAny* root, const char* text, size_t len,
                                   size_t* out_len) {
  if (!root || !text || len < 6 || memcmp(text, "<root>", 6) != 0) {
    tvm_ffi_raise("ValueError", "access path text must start with <root>");
    return NULL;
  }
  void* path = tvm_ffi_access_path_root();
  TVMFFIAny cur;
  if (!path || tvm_ffi_any_to_owned(root, &cur) != 0) {
    tvm_ffi_release(path);
    return NULL;
  }
  size_t i = 6;
  tvm_ffi_strbuf key = {0};
  while (i < len) {
    void* next = NULL;
    size_t used = 0;
    if (text[i] == '.') {
      size_t n = 1;
      while (i + n < len && (isalnum((unsigned char)text[i + n]) || text[i + n] == '_')) n++;
      char name[128];
      if (n > 1 && n - 1 < sizeof(name)) {
        memcpy(name, text + i + 1, n - 1);
        name[n - 1] = '\0';
        next = step_attr(path, &cur, name);
        used = n;
      }
    } else if (text[i] == '[' && i + 1 < len && isdigit((unsigned char)text[i + 1])) {
      size_t n = 1;
      int64_t index = 0;
      while (i + n < len && isdigit((unsigned char)text[i + n]) && index < INT64_MAX / 10) {
        index = index * 10 + (text[i + n] - '0');
        n++;
      }
      if (i + n < len && text[i + n] == ']') {
        next = step_index(path, &cur, index);
        used = n + 1;
      }
    } else if (text[i] == '[') {
      key.size = 0;
      size_t q = read_quoted(text + i + 1, len - i - 1, &key);
      if (q && i + 1 + q < len && text[i + 1 + q] == ']' && !key.failed) {
        next = step_key(path, &cur, key.data ? key.data : "", key.size);
        used = q + 2;
      }
    }
    if (!next) break; /* the deepest node the text reaches */
    tvm_ffi_release(path);
    path = next;
    i += used;
  }
  /* The rest of a step that did not resolve is not part of the path read. */
  tvm_ffi_strbuf_free(&key);
  tvm_ffi_any_release(&cur);
  if (out_len) {
    /* Skip over the remaining steps the text writes (they could not be followed). */
    while (i < len && (text[i] == '.' || text[i] == '[' || text[i] == ']' || text[i] == '_' ||
                       text[i] == '"' || isalnum((unsigned char)text[i]))) {
      i++;
    }
    *out_len = i;
  }
  return path;
}

/*
 * string.c: String and Bytes (small values inline in TVMFFIAny up to 7 bytes, objects beyond),
 * and tvm_ffi_strbuf, the growable text buffer every printer and message builder uses.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* { header, TVMFFIByteArray, bytes..., NUL } in one block. */
typedef struct {
  TVMFFIObject header;
  TVMFFIByteArray bytes;
} str_obj;
_Static_assert(sizeof(str_obj) == 40, "String/Bytes object layout");

/* memcpy(d, s, n): the usual identifier or literal (up to 32 bytes) as two overlapping
 * fixed-size moves that read nothing past s + n, not a memcpy call of a variable size. */
static inline void copy_short(char* d, const char* s, size_t n) {
  if (n > 32) {
    memcpy(d, s, n);
  } else if (n > 16) {
    memcpy(d, s, 16);
    memcpy(d + n - 16, s + n - 16, 16);
  } else if (n >= 8) {
    memcpy(d, s, 8);
    memcpy(d + n - 8, s + n - 8, 8);
  } else if (n >= 4) {
    memcpy(d, s, 4);
    memcpy(d + n - 4, s + n - 4, 4);
  } else if (n >= 2) {
    memcpy(d, s, 2);
    memcpy(d + n - 2, s + n - 2, 2);
  } else if (n) {
    d[0] = s[0];
  }
}

static void* bytes_obj_new(int32_t type_index, const char* data, size_t n) {
  /* Every byte read is written below (the block's padding past the NUL never is). */
  str_obj* s = (str_obj*)tvm_ffi__object_new_uninit(type_index, sizeof(str_obj) + n + 1);
  if (!s) return NULL;
  char* payload = (char*)(s + 1);
  copy_short(payload, data, n);
  payload[n] = '\0';
  s->bytes.data = payload;
  s->bytes.size = n;
  return s;
}

/* The empty String: strings are immutable values (compared, hashed and serialized by content),
 * so one object made once serves every request for "" (the storage scope of every global
 * buffer's pointer type, the thread tag of every plain IterVar, ...). */
static void* g_empty_str;
static pthread_once_t g_empty_str_once = PTHREAD_ONCE_INIT;

static void make_empty_str(void) {
  g_empty_str = bytes_obj_new(kTVMFFIStr, "", 0);
  if (!g_empty_str) tvm_ffi_error_clear(); /* each request then makes its own */
}

void* tvm_ffi_str_obj(const char* s, size_t n) {
  if (n == 0) {
    pthread_once(&g_empty_str_once, make_empty_str);
    if (g_empty_str) {
      tvm_ffi_retain(g_empty_str);
      return g_empty_str;
    }
  }
  return bytes_obj_new(kTVMFFIStr, s, n);
}

void* tvm_ffi_bytes_obj(const void* data, size_t n) {
  return bytes_obj_new(kTVMFFIBytes, (const char*)data, n);
}

void* tvm_ffi_str_obj_printf(const char* fmt, ...) {
  tvm_ffi_strbuf b = {0};
  va_list ap;
  va_start(ap, fmt);
  tvm_ffi_strbuf_vprintf(&b, fmt, ap);
  va_end(ap);
  void* r = b.failed ? NULL : tvm_ffi_str_obj(b.data ? b.data : "", b.size);
  tvm_ffi_strbuf_free(&b);
  return r;
}

static int small_or_obj(const char* data, size_t n, int32_t small_index, int32_t obj_index,
                        TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  if (n <= 7) {
    out->type_index = small_index;
    out->small_str_len = (uint32_t)n;
    copy_short(out->v_bytes, data, n);
    out->v_bytes[n] = '\0';
    return 0;
  }
  void* o = bytes_obj_new(obj_index, data, n);
  if (!o) return -1;
  *out = tvm_ffi_any_obj(o);
  return 0;
}

int TVMFFIStringFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out) {
  if (!input || !out) return tvm_ffi_raise("ValueError", "TVMFFIStringFromByteArray: NULL");
  return small_or_obj(input->data, input->size, kTVMFFISmallStr, kTVMFFIStr, out);
}

int TVMFFIBytesFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out) {
  if (!input || !out) return tvm_ffi_raise("ValueError", "TVMFFIBytesFromByteArray: NULL");
  return small_or_obj(input->data, input->size, kTVMFFISmallBytes, kTVMFFIBytes, out);
}

TVMFFIAny tvm_ffi_string_n(const char* s, size_t n) {
  TVMFFIAny r;
  if (small_or_obj(s, n, kTVMFFISmallStr, kTVMFFIStr, &r) != 0) return tvm_ffi_any_none();
  return r;
}

TVMFFIAny tvm_ffi_string(const char* s) { return tvm_ffi_string_n(s, strlen(s)); }

TVMFFIAny tvm_ffi_bytes_n(const void* data, size_t n) {
  TVMFFIAny r;
  if (small_or_obj((const char*)data, n, kTVMFFISmallBytes, kTVMFFIBytes, &r) != 0) {
    return tvm_ffi_any_none();
  }
  return r;
}

/* ---- strbuf ----------------------------------------------------------------------------- */
static bool reserve(tvm_ffi_strbuf* b, size_t extra) {
  if (b->failed) return false;
  size_t need = b->size + extra + 1;
  if (need <= b->capacity) return true;
  size_t cap = b->capacity ? b->capacity : 64;
  while (cap < need) cap *= 2;
  char* d = (char*)tvm_ffi_realloc(b->data, cap);
  if (!d) {
    b->failed = true;
    return false;
  }
  b->data = d;
  b->capacity = cap;
  return true;
}

void tvm_ffi_strbuf_append(tvm_ffi_strbuf* b, const char* s, size_t n) {
  if (!reserve(b, n)) return;
  if (n) memcpy(b->data + b->size, s, n);
  b->size += n;
  b->data[b->size] = '\0';
}

void tvm_ffi_strbuf_puts(tvm_ffi_strbuf* b, const char* s) { tvm_ffi_strbuf_append(b, s, strlen(s)); }

void tvm_ffi_strbuf_putc(tvm_ffi_strbuf* b, char c) { tvm_ffi_strbuf_append(b, &c, 1); }

void tvm_ffi_strbuf_vprintf(tvm_ffi_strbuf* b, const char* fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  char small[256];
  int n = vsnprintf(small, sizeof(small), fmt, ap);
  if (n < 0) {
    va_end(ap2);
    return;
  }
  if ((size_t)n < sizeof(small)) {
    tvm_ffi_strbuf_append(b, small, (size_t)n);
  } else if (reserve(b, (size_t)n)) {
    vsnprintf(b->data + b->size, (size_t)n + 1, fmt, ap2);
    b->size += (size_t)n;
  }
  va_end(ap2);
}

void tvm_ffi_strbuf_printf(tvm_ffi_strbuf* b, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tvm_ffi_strbuf_vprintf(b, fmt, ap);
  va_end(ap);
}

const char* tvm_ffi_strbuf_cstr(tvm_ffi_strbuf* b) { return b->data ? b->data : ""; }

void tvm_ffi_strbuf_free(tvm_ffi_strbuf* b) {
  tvm_ffi_free(b->data);
  b->data = NULL;
  b->size = b->capacity = 0;
  b->failed = false;
}

void tvm_ffi__init_strings(void) {
  tvm_ffi_type_register("ffi.String", kTVMFFIObject, kTVMFFIStr, sizeof(str_obj), NULL,
                        kTVMFFISEqHashKindConstTreeNode);
  tvm_ffi_type_register("ffi.Bytes", kTVMFFIObject, kTVMFFIBytes, sizeof(str_obj), NULL,
                        kTVMFFISEqHashKindConstTreeNode);
}

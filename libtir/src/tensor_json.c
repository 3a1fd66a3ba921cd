/*
 * tensor_json.c: JSON serialization of ffi.Tensor, so that IR holding tensors (a Relax Constant,
 * the printer's metadata section) goes through tvm_ffi_json_save / tvm_ffi_json_load. As
 * upstream's IR layer does, ffi.Tensor gets the type attributes "__data_to_json__" and
 * "__data_from_json__": a tensor's JSON node is
 *
 *   {"type": "ffi.Tensor", "data": "<base64 of the tensor record>"}
 *
 * where the record is dmlc's NDArray format (upstream's SaveDLTensor, little-endian):
 *   u64 magic 0xDD5E40F096B4A13F, u64 reserved 0, i32 device_type, i32 device_id (kDLCPU, 0),
 *   i32 ndim, DLDataType (u8 code, u8 bits, u16 lanes), i64 shape[ndim], i64 data size in
 *   bytes, the data (row-major, compact)
 * and base64 is RFC 4648's alphabet with '=' padding. Only compact CPU tensors are written; the
 * reader checks every field and the sizes, and makes a CPU tensor.
 */
#include <string.h>

#include "internal.h"

#define TENSOR_MAGIC UINT64_C(0xDD5E40F096B4A13F)
#define MAX_NDIM 64

static const char k_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The base64 of p[0, n) into out (4 * ceil(n / 3) bytes). */
static void put_b64(char* out, const unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; i += 3, out += 4) {
    uint32_t v = (uint32_t)p[i] << 16;
    if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
    if (i + 2 < n) v |= p[i + 2];
    out[0] = k_b64[(v >> 18) & 63];
    out[1] = k_b64[(v >> 12) & 63];
    out[2] = i + 1 < n ? k_b64[(v >> 6) & 63] : '=';
    out[3] = i + 2 < n ? k_b64[v & 63] : '=';
  }
}

static int b64_value(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/* Decode s into a new buffer (*out, *out_n); -1 + ValueError on bad text. */
static int decode_b64(TVMFFIByteArray s, unsigned char** out, size_t* out_n) {
  if (s.size % 4 != 0) {
    return tvm_ffi_raise("ValueError", "ffi.Tensor JSON: base64 length %zu is not a multiple of 4",
                         s.size);
  }
  size_t pad =
      s.size && s.data[s.size - 1] == '=' ? (s.size > 1 && s.data[s.size - 2] == '=' ? 2 : 1) : 0;
  size_t n = s.size / 4 * 3 - pad;
  unsigned char* buf = tvm_ffi_malloc(n + 1);
  if (!buf) return -1;
  size_t w = 0;
  for (size_t i = 0; i < s.size; i += 4) {
    uint32_t v = 0;
    for (int j = 0; j < 4; ++j) {
      unsigned char c = (unsigned char)s.data[i + (size_t)j];
      int d = c == '=' && i + 4 == s.size && j >= 4 - (int)pad ? 0 : b64_value(c);
      if (d < 0) {
        tvm_ffi_free(buf);
        return tvm_ffi_raise("ValueError", "ffi.Tensor JSON: invalid base64 character at %zu",
                             i + (size_t)j);
      }
      v = v << 6 | (uint32_t)d;
    }
    unsigned char b[3] = {(unsigned char)(v >> 16), (unsigned char)(v >> 8), (unsigned char)v};
    for (int j = 0; j < 3 && w < n; ++j) buf[w++] = b[j];
  }
  *out = buf;
  *out_n = n;
  return 0;
}

#define PUT(buf, v) tvm_ffi_strbuf_append((buf), (const char*)&(v), sizeof(v))

static int tensor_to_json(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  if (!tvm_ffi_check_num_args("ffi.Tensor.__data_to_json__", n, 1)) return -1;
  void* t = tvm_ffi_arg_object("ffi.Tensor.__data_to_json__", args, 0, kTVMFFITensor);
  if (!t) return -1;
  const DLTensor* dl = tvm_ffi_tensor_dl(t);
  if (dl->device.device_type != kDLCPU || !tvm_ffi_dltensor_is_contiguous(dl)) {
    return tvm_ffi_raise("ValueError",
                         "cannot serialize a tensor to JSON: only compact CPU "
                         "tensors are (device type %d)",
                         (int)dl->device.device_type);
  }
  int64_t nbytes = tvm_ffi_dltensor_nbytes(dl);
  if (nbytes < 0) return -1;
  tvm_ffi_strbuf rec = {0};
  uint64_t magic = TENSOR_MAGIC, reserved = 0;
  int32_t dev_type = kDLCPU, dev_id = 0, ndim = dl->ndim;
  PUT(&rec, magic);
  PUT(&rec, reserved);
  PUT(&rec, dev_type);
  PUT(&rec, dev_id);
  PUT(&rec, ndim);
  PUT(&rec, dl->dtype);
  if (ndim > 0) tvm_ffi_strbuf_append(&rec, (const char*)dl->shape, (size_t)ndim * sizeof(int64_t));
  PUT(&rec, nbytes);
  if (nbytes > 0)
    tvm_ffi_strbuf_append(&rec, (const char*)dl->data + dl->byte_offset, (size_t)nbytes);
  size_t n64 = (rec.size + 2) / 3 * 4;
  char* b64 = rec.failed ? NULL : tvm_ffi_malloc(n64 + 1);
  int rc = b64 ? 0 : tvm_ffi_raise("MemoryError", "ffi.Tensor JSON: out of memory");
  if (rc == 0) {
    put_b64(b64, (const unsigned char*)rec.data, rec.size);
    void* s = tvm_ffi_str_obj(b64, n64);
    if (!s)
      rc = -1;
    else
      *result = tvm_ffi_any_obj(s); /* the reference moves to the result */
  }
  tvm_ffi_strbuf_free(&rec);
  tvm_ffi_free(b64);
  return rc;
}

/* Read sizeof(*dst) bytes at *pos of (p, n). */
static bool take(const unsigned char* p, size_t n, size_t* pos, void* dst, size_t size) {
  if (n - *pos < size) return false;
  memcpy(dst, p + *pos, size);
  *pos += size;
  return true;
}

static int record_error(const char* what) {
  return tvm_ffi_raise("ValueError", "ffi.Tensor JSON: bad tensor record: %s", what);
}

static int tensor_from_json(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  TVMFFIByteArray text;
  if (!tvm_ffi_check_num_args("ffi.Tensor.__data_from_json__", n, 1) ||
      !tvm_ffi_arg_bytes("ffi.Tensor.__data_from_json__", args, 0, &text)) {
    return -1;
  }
  unsigned char* rec = NULL;
  size_t size = 0, pos = 0;
  if (decode_b64(text, &rec, &size) != 0) return -1;
  uint64_t magic, reserved;
  int32_t dev_type = 0, dev_id = 0, ndim = 0;
  DLDataType dtype;
  int64_t shape[MAX_NDIM], nbytes = 0;
  int rc = 0;
  if (!take(rec, size, &pos, &magic, 8) || !take(rec, size, &pos, &reserved, 8) ||
      !take(rec, size, &pos, &dev_type, 4) || !take(rec, size, &pos, &dev_id, 4) ||
      !take(rec, size, &pos, &ndim, 4) || !take(rec, size, &pos, &dtype, 4)) {
    rc = record_error("truncated header");
  } else if (magic != TENSOR_MAGIC) {
    rc = record_error("wrong magic number");
  } else if (dev_type != kDLCPU || dev_id != 0) {
    rc = record_error("not a CPU tensor (device 1, id 0)");
  } else if (ndim < 0 || ndim > MAX_NDIM) {
    rc = record_error("ndim out of range [0, 64]");
  } else if (dtype.bits == 0 || dtype.lanes == 0) {
    rc = record_error("dtype with zero bits or lanes");
  }
  for (int32_t d = 0; rc == 0 && d < ndim; ++d) {
    if (!take(rec, size, &pos, &shape[d], 8))
      rc = record_error("truncated shape");
    else if (shape[d] < 0)
      rc = record_error("negative dimension");
  }
  if (rc == 0 && !take(rec, size, &pos, &nbytes, 8)) rc = record_error("truncated data size");
  /* The sizes agree before anything is allocated: a shape claiming more than the record holds
   * is an error, not an allocation of its size. */
  if (rc == 0) {
    DLTensor proto = {.ndim = ndim, .dtype = dtype, .shape = shape};
    int64_t want = tvm_ffi_dltensor_nbytes(&proto);
    if (want < 0)
      rc = -1;
    else if (nbytes != want)
      rc = record_error("data size does not match the shape and dtype");
    else if ((uint64_t)(size - pos) != (uint64_t)nbytes)
      rc = record_error("data of the wrong length");
  }
  void* t = NULL;
  if (rc == 0) {
    t = tvm_ffi_tensor_empty(shape, ndim, dtype, (DLDevice){kDLCPU, 0});
    if (!t) rc = -1;
  }
  if (rc == 0 && nbytes > 0) {
    DLTensor* dl = tvm_ffi_tensor_dl(t);
    memcpy((char*)dl->data + dl->byte_offset, rec + pos, (size_t)nbytes);
  }
  tvm_ffi_free(rec);
  if (rc != 0) {
    tvm_ffi_release(t);
    return -1;
  }
  *result = tvm_ffi_any_obj(t); /* the reference moves to the result */
  return 0;
}

static int register_hook(const char* attr, TVMFFISafeCallType fn) {
  void* f = tvm_ffi_function_new(NULL, fn, NULL);
  if (!f) return -1;
  TVMFFIByteArray name = {attr, strlen(attr)};
  TVMFFIAny value = tvm_ffi_any_obj(f);
  int rc = TVMFFITypeRegisterAttr(kTVMFFITensor, &name, &value);
  tvm_ffi_release(f);
  return rc;
}

int tvm_tir__init_tensor_json(void) {
  if (register_hook("__data_to_json__", tensor_to_json) != 0) return -1;
  return register_hook("__data_from_json__", tensor_from_json);
}

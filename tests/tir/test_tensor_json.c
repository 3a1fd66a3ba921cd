/*
 * test_tensor_json.c: ffi.Tensor's JSON hooks (libtir/src/tensor_json.c): tensors of every
 * element type round-trip through tvm_ffi_json_save / tvm_ffi_json_load bit-exactly (random
 * bits, NaN payloads and negative zeros included), inside containers too; the node has
 * upstream's form; bad records are refused with a ValueError.
 */
#include <stdlib.h>
#include <tvm/tir/tir.h>

#include "test_util.h"

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}

/* A CPU tensor of shape/dtype filled with random bytes. */
static void* random_tensor(const int64_t* shape, int ndim, DLDataType dt) {
  void* t = tvm_ffi_tensor_empty(shape, ndim, dt, (DLDevice){kDLCPU, 0});
  if (!t) return NULL;
  DLTensor* dl = tvm_ffi_tensor_dl(t);
  unsigned char* p = (unsigned char*)dl->data + dl->byte_offset;
  for (int64_t i = 0; i < tvm_ffi_dltensor_nbytes(dl); ++i) p[i] = (unsigned char)next_u64();
  return t;
}

static bool same_tensor(const void* a, const void* b) {
  const DLTensor *x = tvm_ffi_tensor_dl(a), *y = tvm_ffi_tensor_dl(b);
  if (x->ndim != y->ndim || !tvm_ffi_dtype_equal(x->dtype, y->dtype)) return false;
  for (int k = 0; k < x->ndim; ++k) {
    if (x->shape[k] != y->shape[k]) return false;
  }
  int64_t n = tvm_ffi_dltensor_nbytes(x);
  return n == tvm_ffi_dltensor_nbytes(y) &&
         memcmp((char*)x->data + x->byte_offset, (char*)y->data + y->byte_offset, (size_t)n) == 0;
}

/* save then load; the loaded tensor (a new reference) or NULL. */
static void* round_trip(void* t, tvm_ffi_strbuf* json) {
  TVMFFIAny a = tvm_ffi_any_obj(t), back;
  json->size = 0;
  if (tvm_ffi_json_save(&a, json) != 0) return NULL;
  if (tvm_ffi_json_load(tvm_ffi_strbuf_cstr(json), json->size, &back) != 0) return NULL;
  if (back.type_index != kTVMFFITensor) {
    tvm_ffi_any_release(&back);
    return NULL;
  }
  return back.v_obj;
}

TEST(every_dtype_round_trips_bit_exactly) {
  tvm_tir_init();
  const DLDataType dtypes[] = {
      tvm_ffi_dtype(kDLFloat, 32, 1), tvm_ffi_dtype(kDLFloat, 64, 1), tvm_ffi_dtype(kDLFloat, 16, 1),
      tvm_ffi_dtype(kDLBfloat, 16, 1), tvm_ffi_dtype(kDLInt, 8, 1),  tvm_ffi_dtype(kDLInt, 64, 1),
      tvm_ffi_dtype(kDLUInt, 16, 1),  tvm_ffi_dtype(kDLUInt, 1, 1),  tvm_ffi_dtype(kDLFloat, 32, 4)};
  const int64_t shapes[][3] = {{3, 5, 7}, {1, 1, 1}, {4, 1, 9}};
  tvm_ffi_strbuf json = {0};
  for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); ++i) {
    for (int ndim = 0; ndim <= 3; ++ndim) {
      void* t = random_tensor(shapes[i % 3], ndim, dtypes[i]);
      void* back = round_trip(t, &json);
      CHECK(back && same_tensor(t, back));
      if (!back) fprintf(stderr, "  dtype %zu ndim %d failed\n", i, ndim);
      tvm_ffi_release(back);
      tvm_ffi_release(t);
    }
  }
  /* The node as upstream writes it: the base64 of the dmlc record of a float32 [1.0]. */
  int64_t one = 1;
  void* t = tvm_ffi_tensor_empty(&one, 1, tvm_ffi_dtype(kDLFloat, 32, 1), (DLDevice){kDLCPU, 0});
  *(float*)tvm_ffi_tensor_dl(t)->data = 1.0f;
  TVMFFIAny a = tvm_ffi_any_obj(t);
  json.size = 0;
  CHECK_OK(tvm_ffi_json_save(&a, &json));
  CHECK_STR_CONTAINS(tvm_ffi_strbuf_cstr(&json),
                     "{\"type\":\"ffi.Tensor\",\"data\":"
                     "\"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQABAAAAAAAAAAQAAAAAAAAAAACAPw==\"}");
  tvm_ffi_release(t);
  tvm_ffi_strbuf_free(&json);
}

TEST(shared_tensor_in_containers_stays_shared) {
  int64_t shape[2] = {2, 3};
  void* t = random_tensor(shape, 2, tvm_ffi_dtype(kDLFloat, 32, 1));
  TVMFFIAny items[2] = {tvm_ffi_any_obj(t), tvm_ffi_any_obj(t)};
  void* arr = tvm_ffi_array_new(items, 2);
  TVMFFIAny a = tvm_ffi_any_obj(arr), back;
  tvm_ffi_strbuf json = {0};
  CHECK_OK(tvm_ffi_json_save(&a, &json));
  CHECK_OK(tvm_ffi_json_load(tvm_ffi_strbuf_cstr(&json), json.size, &back));
  CHECK(back.type_index == kTVMFFIArray && tvm_ffi_seq_size(back.v_obj) == 2);
  if (back.type_index == kTVMFFIArray) {
    void* b0 = tvm_ffi_seq_obj_at(back.v_obj, 0);
    CHECK(b0 == tvm_ffi_seq_obj_at(back.v_obj, 1));
    CHECK(same_tensor(t, b0));
  }
  tvm_ffi_any_release(&back);
  tvm_ffi_strbuf_free(&json);
  tvm_ffi_release(arr);
  tvm_ffi_release(t);
}

static void expect_load_error(const char* data, const char* part) {
  char text[512];
  snprintf(text, sizeof(text), "{\"root_index\":0,\"nodes\":[{\"type\":\"ffi.Tensor\",\"data\":\"%s\"}]}",
           data);
  TVMFFIAny out;
  CHECK(tvm_ffi_json_load(text, strlen(text), &out) != 0);
  CHECK_RAISED("ValueError", part);
}

TEST(bad_records_are_refused) {
  /* not base64 */
  expect_load_error("abc", "multiple of 4");
  expect_load_error("ab!d", "invalid base64");
  /* a valid float32 [1.0] record with one byte changed at a time in its header fields */
  expect_load_error("AAAAAAAAAAAAAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQABAAAAAAAAAAQAAAAAAAAAAACAPw==",
                    "wrong magic");
  expect_load_error("P6G0lvBAXt0AAAAAAAAAAAIAAAAAAAAAAQAAAAIgAQABAAAAAAAAAAQAAAAAAAAAAACAPw==",
                    "not a CPU tensor");
  /* data size 5 for a 4-byte tensor */
  expect_load_error("P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQABAAAAAAAAAAUAAAAAAAAAAACAPw==",
                    "data size does not match");
  /* truncated data */
  expect_load_error("P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQABAAAAAAAAAAQAAAAAAAAAAACA",
                    "data of the wrong length");
  expect_load_error("P6G0lvBAXt0=", "truncated header");
  /* shapes claiming far more than the record holds are refused before anything is allocated
   * (2^56 float32 elements with a consistent data size, 4 bytes present; 2^80 elements) */
  expect_load_error("P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQAAAAAAAAAAAQAAAAAAAAAEAACAPw==",
                    "data of the wrong length");
  expect_load_error("P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQAAAAAAAAEAAAAAAAAAAQAABAAAAAAAAAAAAIA/",
                    "element count overflows");
}

int main(void) {
  RUN(every_dtype_round_trips_bit_exactly);
  RUN(shared_tensor_in_containers_stays_shared);
  RUN(bad_records_are_refused);
  return test_summary();
}

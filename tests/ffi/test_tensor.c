/* test_tensor.c: ffi.Tensor allocation, DLPack import/export, views, size queries, globals. */
#include <stdint.h>

#include "test_util.h"

static const DLDevice kCPU = {kDLCPU, 0};
static const DLDataType kF32 = {kDLFloat, 32, 1};

static DLTensor* dl(void* t) { return tvm_ffi_tensor_dl(t); }

/* ---- Producer-side managed tensors with deleter counters -------------------------------- */

static int g_legacy_deleted;
static int g_versioned_deleted;
static _Alignas(64) float g_buffer[64];
static int64_t g_shape[2] = {2, 3};
static int64_t g_strides_nc[2] = {1, 2}; /* column-major: not contiguous */

static void legacy_deleter(DLManagedTensor* self) {
  g_legacy_deleted++;
  tvm_ffi_free(self);
}

static void versioned_deleter(DLManagedTensorVersioned* self) {
  g_versioned_deleted++;
  tvm_ffi_free(self);
}

static DLManagedTensor* make_legacy(void* data, int64_t* strides) {
  DLManagedTensor* m = (DLManagedTensor*)tvm_ffi_calloc(1, sizeof(DLManagedTensor));
  m->dl_tensor.data = data;
  m->dl_tensor.device = kCPU;
  m->dl_tensor.ndim = 2;
  m->dl_tensor.dtype = kF32;
  m->dl_tensor.shape = g_shape;
  m->dl_tensor.strides = strides;
  m->deleter = legacy_deleter;
  return m;
}

static DLManagedTensorVersioned* make_versioned(void* data, int64_t* strides) {
  DLManagedTensorVersioned* m =
      (DLManagedTensorVersioned*)tvm_ffi_calloc(1, sizeof(DLManagedTensorVersioned));
  m->version.major = 1;
  m->version.minor = 1;
  m->dl_tensor.data = data;
  m->dl_tensor.device = kCPU;
  m->dl_tensor.ndim = 2;
  m->dl_tensor.dtype = kF32;
  m->dl_tensor.shape = g_shape;
  m->dl_tensor.strides = strides;
  m->deleter = versioned_deleter;
  return m;
}

/* ---- Allocation and size queries --------------------------------------------------------- */

TEST(empty_cpu) {
  int64_t shape[3] = {2, 3, 4};
  void* t = tvm_ffi_tensor_empty(shape, 3, kF32, kCPU);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_EQ_INT(tvm_ffi_type_index(t), kTVMFFITensor);
  CHECK_STR_EQ(tvm_ffi_type_key(kTVMFFITensor), "ffi.Tensor");
  CHECK((void*)dl(t) == (char*)t + 24);
  DLTensor* d = dl(t);
  CHECK_EQ_INT((uintptr_t)d->data % 64, 0);
  CHECK_EQ_INT(d->ndim, 3);
  CHECK_EQ_INT(d->shape[0], 2);
  CHECK_EQ_INT(d->shape[2], 4);
  CHECK(d->strides != NULL);
  CHECK_EQ_INT(d->strides[0], 12);
  CHECK_EQ_INT(d->strides[1], 4);
  CHECK_EQ_INT(d->strides[2], 1);
  CHECK_EQ_INT(d->byte_offset, 0);
  CHECK_EQ_INT(d->device.device_type, kDLCPU);
  CHECK(tvm_ffi_dtype_equal(d->dtype, kF32));
  CHECK_EQ_INT(tvm_ffi_dltensor_numel(d), 24);
  CHECK_EQ_INT(tvm_ffi_dltensor_nbytes(d), 96);
  CHECK(tvm_ffi_dltensor_is_contiguous(d));
  /* The whole buffer is writable (ASan checks the bounds). */
  float* f = (float*)d->data;
  for (int i = 0; i < 24; ++i) f[i] = (float)i;
  CHECK(f[23] == 23.0f);
  tvm_ffi_release(t);
}

TEST(empty_edge_shapes) {
  void* scalar = tvm_ffi_tensor_empty(NULL, 0, tvm_ffi_dtype(kDLInt, 64, 1), kCPU);
  CHECK(scalar != NULL);
  CHECK_EQ_INT(tvm_ffi_dltensor_numel(dl(scalar)), 1);
  CHECK_EQ_INT(tvm_ffi_dltensor_nbytes(dl(scalar)), 8);
  *(int64_t*)dl(scalar)->data = 7;
  tvm_ffi_release(scalar);

  int64_t zero[2] = {0, 5};
  void* z = tvm_ffi_tensor_empty(zero, 2, kF32, kCPU);
  CHECK(z != NULL);
  CHECK_EQ_INT(tvm_ffi_dltensor_numel(dl(z)), 0);
  CHECK_EQ_INT(tvm_ffi_dltensor_nbytes(dl(z)), 0);
  CHECK(dl(z)->data != NULL);
  CHECK_EQ_INT((uintptr_t)dl(z)->data % 64, 0);
  tvm_ffi_release(z);

  /* A zero dim makes huge neighbours harmless: no element, no overflowing stride. */
  int64_t hidden[3] = {INT64_C(1) << 40, 0, INT64_C(1) << 40};
  void* h = tvm_ffi_tensor_empty(hidden, 3, kF32, kCPU);
  CHECK(h != NULL);
  CHECK_EQ_INT(tvm_ffi_dltensor_nbytes(dl(h)), 0);
  CHECK_EQ_INT(dl(h)->strides[0], INT64_C(1) << 40);
  tvm_ffi_release(h);
  int64_t hidden_bad[3] = {0, INT64_C(1) << 40, INT64_C(1) << 40};
  CHECK(tvm_ffi_tensor_empty(hidden_bad, 3, kF32, kCPU) == NULL);
  CHECK_RAISED("ValueError", "strides overflow int64");

  /* Sub-byte types pack; uint1 keeps one element per byte, as upstream. */
  int64_t three[1] = {3};
  void* f4 = tvm_ffi_tensor_empty(three, 1, tvm_ffi_dtype(kDLFloat4_e2m1fn, 4, 1), kCPU);
  CHECK_EQ_INT(tvm_ffi_dltensor_nbytes(dl(f4)), 2);
  tvm_ffi_release(f4);
  int64_t ten[1] = {10};
  void* u1 = tvm_ffi_tensor_empty(ten, 1, tvm_ffi_dtype(kDLUInt, 1, 1), kCPU);
  CHECK_EQ_INT(tvm_ffi_dltensor_nbytes(dl(u1)), 10);
  tvm_ffi_release(u1);
  void* vec = tvm_ffi_tensor_empty(ten, 1, tvm_ffi_dtype(kDLFloat, 16, 4), kCPU);
  CHECK_EQ_INT(tvm_ffi_dltensor_nbytes(dl(vec)), 80);
  tvm_ffi_release(vec);
}

TEST(empty_bad_inputs) {
  int64_t shape[2] = {2, 3};
  CHECK(tvm_ffi_tensor_empty(shape, -1, kF32, kCPU) == NULL);
  CHECK_RAISED("ValueError", "ndim -1 is negative");
  CHECK(tvm_ffi_tensor_empty(NULL, 2, kF32, kCPU) == NULL);
  CHECK_RAISED("ValueError", "shape is NULL");
  int64_t neg[2] = {2, -3};
  CHECK(tvm_ffi_tensor_empty(neg, 2, kF32, kCPU) == NULL);
  CHECK_RAISED("ValueError", "dimension 1 has negative extent -3");
  CHECK(tvm_ffi_tensor_empty(shape, 2, tvm_ffi_dtype(kDLFloat, 0, 1), kCPU) == NULL);
  CHECK_RAISED("ValueError", "0 bits");
  CHECK(tvm_ffi_tensor_empty(shape, 2, tvm_ffi_dtype(kDLFloat, 32, 0), kCPU) == NULL);
  CHECK_RAISED("ValueError", "0 lanes");
  int64_t huge[2] = {INT64_C(1) << 62, INT64_C(1) << 62};
  CHECK(tvm_ffi_tensor_empty(huge, 2, kF32, kCPU) == NULL);
  CHECK_RAISED("ValueError", "overflow");
  int64_t big[1] = {INT64_C(1) << 62};
  CHECK(tvm_ffi_tensor_empty(big, 1, kF32, kCPU) == NULL);
  CHECK_RAISED("ValueError", "overflows int64");
  DLDevice cuda = {kDLCUDA, 0};
  CHECK(tvm_ffi_tensor_empty(shape, 2, kF32, cuda) == NULL);
  CHECK_RAISED("RuntimeError", "no allocator for device cuda:0");
}

TEST(contiguity_and_sizes) {
  int64_t shape[2] = {2, 3};
  int64_t row[2] = {3, 1};
  DLTensor t;
  memset(&t, 0, sizeof(t));
  t.ndim = 2;
  t.shape = shape;
  t.dtype = kF32;
  t.strides = NULL;
  CHECK(tvm_ffi_dltensor_is_contiguous(&t));
  t.strides = row;
  CHECK(tvm_ffi_dltensor_is_contiguous(&t));
  t.strides = g_strides_nc;
  CHECK(!tvm_ffi_dltensor_is_contiguous(&t));
  /* Size-1 dimensions ignore their strides. */
  int64_t shape1[3] = {1, 3, 1};
  int64_t odd[3] = {99, 1, 42};
  t.ndim = 3;
  t.shape = shape1;
  t.strides = odd;
  CHECK(tvm_ffi_dltensor_is_contiguous(&t));
  int64_t gap[3] = {99, 2, 42};
  t.strides = gap;
  CHECK(!tvm_ffi_dltensor_is_contiguous(&t));
  CHECK(!tvm_ffi_dltensor_is_contiguous(NULL));

  CHECK_EQ_INT(tvm_ffi_dltensor_numel(NULL), -1);
  CHECK_RAISED("ValueError", "NULL");
  CHECK_EQ_INT(tvm_ffi_dltensor_nbytes(NULL), -1);
  CHECK_RAISED("ValueError", "NULL");
  int64_t negs[1] = {-2};
  t.ndim = 1;
  t.shape = negs;
  CHECK_EQ_INT(tvm_ffi_dltensor_numel(&t), -1);
  CHECK_RAISED("ValueError", "negative extent");
  int64_t big[2] = {INT64_C(1) << 40, INT64_C(1) << 40};
  t.ndim = 2;
  t.shape = big;
  CHECK_EQ_INT(tvm_ffi_dltensor_numel(&t), -1);
  CHECK_RAISED("ValueError", "overflows int64");
  int64_t big1[1] = {INT64_C(1) << 61};
  t.ndim = 1;
  t.shape = big1;
  t.dtype = tvm_ffi_dtype(kDLFloat, 64, 1);
  CHECK_EQ_INT(tvm_ffi_dltensor_nbytes(&t), -1);
  CHECK_RAISED("ValueError", "overflows int64");
}

/* ---- DLPack ------------------------------------------------------------------------------ */

TEST(from_dlpack_legacy) {
  g_legacy_deleted = 0;
  DLManagedTensor* m = make_legacy(g_buffer, NULL);
  TVMFFIObjectHandle t = NULL;
  CHECK_OK(TVMFFITensorFromDLPack(m, 64, 1, &t));
  CHECK(t != NULL);
  if (!t) return;
  DLTensor* d = dl(t);
  CHECK(d->data == g_buffer);
  CHECK_EQ_INT(d->ndim, 2);
  CHECK(d->shape != g_shape); /* copied inline */
  CHECK_EQ_INT(d->shape[1], 3);
  CHECK(d->strides != NULL);  /* compact strides filled in */
  CHECK_EQ_INT(d->strides[0], 3);
  CHECK_EQ_INT(d->strides[1], 1);
  CHECK_EQ_INT(g_legacy_deleted, 0);
  CHECK_OK(TVMFFIObjectDecRef(t));
  CHECK_EQ_INT(g_legacy_deleted, 1);
}

TEST(from_dlpack_versioned) {
  g_versioned_deleted = 0;
  DLManagedTensorVersioned* m = make_versioned(g_buffer, g_strides_nc);
  TVMFFIObjectHandle t = NULL;
  CHECK_OK(TVMFFITensorFromDLPackVersioned(m, 0, 0, &t));
  if (!t) return;
  CHECK(dl(t)->strides != g_strides_nc);
  CHECK_EQ_INT(dl(t)->strides[0], 1);
  CHECK_EQ_INT(dl(t)->strides[1], 2);
  CHECK(!tvm_ffi_dltensor_is_contiguous(dl(t)));
  tvm_ffi_retain(t);
  tvm_ffi_release(t);
  CHECK_EQ_INT(g_versioned_deleted, 0);
  tvm_ffi_release(t);
  CHECK_EQ_INT(g_versioned_deleted, 1);
}

TEST(from_dlpack_failures_keep_ownership) {
  g_legacy_deleted = g_versioned_deleted = 0;
  TVMFFIObjectHandle t = (void*)1;
  /* Misaligned: data + byte_offset is 4 bytes past a 64-byte boundary. */
  DLManagedTensor* m = make_legacy((char*)g_buffer + 4, NULL);
  CHECK_EQ_INT(TVMFFITensorFromDLPack(m, 64, 0, &t), -1);
  CHECK_RAISED("ValueError", "not aligned to 64 bytes");
  CHECK(t == NULL);
  CHECK_OK(TVMFFITensorFromDLPack(m, 4, 0, &t)); /* 4-byte alignment holds */
  tvm_ffi_release(t);
  CHECK_EQ_INT(g_legacy_deleted, 1);
  /* byte_offset counts towards alignment. */
  m = make_legacy(g_buffer, NULL);
  m->dl_tensor.byte_offset = 8;
  CHECK_EQ_INT(TVMFFITensorFromDLPack(m, 16, 0, &t), -1);
  CHECK_RAISED("ValueError", "byte_offset 8");
  /* Non-contiguous with require_contiguous. */
  m->dl_tensor.byte_offset = 0;
  m->dl_tensor.strides = g_strides_nc;
  CHECK_EQ_INT(TVMFFITensorFromDLPack(m, 0, 1, &t), -1);
  CHECK_RAISED("ValueError", "not contiguous");
  /* Malformed layouts and arguments. */
  CHECK_EQ_INT(TVMFFITensorFromDLPack(m, -8, 0, &t), -1);
  CHECK_RAISED("ValueError", "require_alignment -8 is negative");
  m->dl_tensor.ndim = -1;
  CHECK_EQ_INT(TVMFFITensorFromDLPack(m, 0, 0, &t), -1);
  CHECK_RAISED("ValueError", "ndim -1");
  m->dl_tensor.ndim = 2;
  m->dl_tensor.shape = NULL;
  CHECK_EQ_INT(TVMFFITensorFromDLPack(m, 0, 0, &t), -1);
  CHECK_RAISED("ValueError", "shape is NULL");
  CHECK_EQ_INT(TVMFFITensorFromDLPack(m, 0, 0, NULL), -1);
  CHECK_RAISED("ValueError", "out is NULL");
  CHECK_EQ_INT(TVMFFITensorFromDLPack(NULL, 0, 0, &t), -1);
  CHECK_RAISED("ValueError", "managed tensor is NULL");
  CHECK_EQ_INT(g_legacy_deleted, 1); /* failures never called the deleter */
  m->deleter(m);
  CHECK_EQ_INT(g_legacy_deleted, 2);

  /* Non-direct-address devices only check byte_offset. */
  DLManagedTensorVersioned* v = make_versioned((char*)g_buffer + 4, NULL);
  v->dl_tensor.device.device_type = kDLOpenCL;
  CHECK_OK(TVMFFITensorFromDLPackVersioned(v, 64, 1, &t));
  tvm_ffi_release(t);
  CHECK_EQ_INT(g_versioned_deleted, 1);
  v = make_versioned(g_buffer, NULL);
  v->version.major = 2;
  CHECK_EQ_INT(TVMFFITensorFromDLPackVersioned(v, 0, 0, &t), -1);
  CHECK_RAISED("ValueError", "unsupported DLPack version 2.1");
  v->version.major = 1;
  v->flags = DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  CHECK_EQ_INT(TVMFFITensorFromDLPackVersioned(v, 0, 0, &t), -1);
  CHECK_RAISED("ValueError", "padded sub-byte");
  v->flags = 0;
  v->dl_tensor.strides = g_strides_nc;
  CHECK_EQ_INT(TVMFFITensorFromDLPackVersioned(v, 0, 1, &t), -1);
  CHECK_RAISED("ValueError", "not contiguous");
  CHECK_EQ_INT(TVMFFITensorFromDLPackVersioned(NULL, 0, 0, &t), -1);
  CHECK_RAISED("ValueError", "managed tensor is NULL");
  CHECK_EQ_INT(g_versioned_deleted, 1);
  v->deleter(v);
  CHECK_EQ_INT(g_versioned_deleted, 2);
}

TEST(to_dlpack_legacy) {
  int64_t shape[2] = {4, 5};
  void* t = tvm_ffi_tensor_empty(shape, 2, kF32, kCPU);
  DLManagedTensor* m = NULL;
  CHECK_OK(TVMFFITensorToDLPack(t, &m));
  if (!m) return;
  CHECK_EQ_INT(tvm_ffi_strong_count(t), 2);
  CHECK(m->dl_tensor.data == dl(t)->data);
  CHECK(m->dl_tensor.strides != NULL);
  CHECK_EQ_INT(m->dl_tensor.strides[0], 5);
  CHECK_EQ_INT(m->dl_tensor.shape[1], 5);
  /* The consumer may outlive our reference. */
  tvm_ffi_release(t);
  ((float*)m->dl_tensor.data)[19] = 1.5f;
  m->deleter(m);
}

TEST(to_dlpack_versioned_round_trip) {
  g_legacy_deleted = 0;
  /* An import without strides exports non-NULL strides. */
  TVMFFIObjectHandle src = NULL;
  CHECK_OK(TVMFFITensorFromDLPack(make_legacy(g_buffer, NULL), 0, 0, &src));
  DLManagedTensorVersioned* m = NULL;
  CHECK_OK(TVMFFITensorToDLPackVersioned(src, &m));
  if (!m) return;
  CHECK_EQ_INT(m->version.major, 1);
  CHECK(m->dl_tensor.strides != NULL);
  CHECK_EQ_INT(m->dl_tensor.strides[0], 3);
  CHECK_EQ_INT(m->flags, 0);
  /* Re-import: the new tensor owns the exported managed tensor, which owns src. */
  TVMFFIObjectHandle again = NULL;
  CHECK_OK(TVMFFITensorFromDLPackVersioned(m, 64, 1, &again));
  CHECK(dl(again)->data == g_buffer);
  tvm_ffi_release(src);
  CHECK_EQ_INT(g_legacy_deleted, 0);
  CHECK_EQ_INT(dl(again)->shape[0], 2);
  tvm_ffi_release(again);
  CHECK_EQ_INT(g_legacy_deleted, 1);
}

TEST(to_dlpack_bad_inputs) {
  DLManagedTensor* m = (DLManagedTensor*)1;
  DLManagedTensorVersioned* v = (DLManagedTensorVersioned*)1;
  CHECK_EQ_INT(TVMFFITensorToDLPack(NULL, &m), -1);
  CHECK_RAISED("ValueError", "NULL");
  CHECK(m == NULL);
  CHECK_EQ_INT(TVMFFITensorToDLPackVersioned(NULL, &v), -1);
  CHECK_RAISED("ValueError", "NULL");
  CHECK(v == NULL);
  void* s = tvm_ffi_str_obj("not a tensor at all", 19);
  CHECK_EQ_INT(TVMFFITensorToDLPack(s, &m), -1);
  CHECK_RAISED("TypeError", "expected ffi.Tensor but got ffi.String");
  CHECK_EQ_INT(TVMFFITensorToDLPackVersioned(s, &v), -1);
  CHECK_RAISED("TypeError", "expected ffi.Tensor");
  tvm_ffi_release(s);
  void* t = tvm_ffi_tensor_empty(NULL, 0, kF32, kCPU);
  CHECK_EQ_INT(TVMFFITensorToDLPack(t, NULL), -1);
  CHECK_RAISED("ValueError", "out is NULL");
  CHECK_EQ_INT(TVMFFITensorToDLPackVersioned(t, NULL), -1);
  CHECK_RAISED("ValueError", "out is NULL");
  tvm_ffi_release(t);
}

/* ---- Views ------------------------------------------------------------------------------- */

TEST(checked_views) {
  int64_t shape[2] = {4, 6};
  void* src = tvm_ffi_tensor_empty(shape, 2, kF32, kCPU);
  float* base = (float*)dl(src)->data;
  for (int i = 0; i < 24; ++i) base[i] = (float)i;

  int64_t rows[2] = {2, 6};
  void* v = tvm_ffi_tensor_view(src, rows, 2, NULL, 6, kF32);
  CHECK(v != NULL);
  CHECK(dl(v)->data == dl(src)->data);
  CHECK_EQ_INT(dl(v)->byte_offset, 24);
  CHECK_EQ_INT(dl(v)->strides[0], 6);
  CHECK_EQ_INT(tvm_ffi_strong_count(src), 2);
  /* The last row exactly fits; one element more does not. */
  void* last = tvm_ffi_tensor_view(src, rows, 2, NULL, 12, kF32);
  CHECK(last != NULL);
  tvm_ffi_release(last);
  CHECK(tvm_ffi_tensor_view(src, rows, 2, NULL, 13, kF32) == NULL);
  CHECK_RAISED("ValueError", "outside the source tensor's bytes [0, 96)");
  int64_t too_many[2] = {5, 6};
  CHECK(tvm_ffi_tensor_view(src, too_many, 2, NULL, 0, kF32) == NULL);
  CHECK_RAISED("ValueError", "outside");

  /* A strided column view and a reversed view. */
  int64_t col[1] = {4};
  int64_t col_stride[1] = {6};
  void* c = tvm_ffi_tensor_view(src, col, 1, col_stride, 5, kF32);
  CHECK(c != NULL);
  CHECK_EQ_INT(dl(c)->strides[0], 6);
  CHECK(!tvm_ffi_dltensor_is_contiguous(dl(c)));
  tvm_ffi_release(c);
  CHECK(tvm_ffi_tensor_view(src, col, 1, col_stride, 6, kF32) == NULL);
  CHECK_RAISED("ValueError", "outside");
  int64_t three[1] = {3};
  int64_t back[1] = {-1};
  void* r = tvm_ffi_tensor_view(src, three, 1, back, 2, kF32);
  CHECK(r != NULL);
  tvm_ffi_release(r);
  CHECK(tvm_ffi_tensor_view(src, three, 1, back, 1, kF32) == NULL);
  CHECK_RAISED("ValueError", "outside");

  /* Reinterpretation as bytes covers exactly 96 bytes. */
  int64_t nbytes[1] = {96};
  void* bytes = tvm_ffi_tensor_view(src, nbytes, 1, NULL, 0, tvm_ffi_dtype(kDLUInt, 8, 1));
  CHECK(bytes != NULL);
  tvm_ffi_release(bytes);
  nbytes[0] = 97;
  CHECK(tvm_ffi_tensor_view(src, nbytes, 1, NULL, 0, tvm_ffi_dtype(kDLUInt, 8, 1)) == NULL);
  CHECK_RAISED("ValueError", "outside");
  /* Empty views may sit at the end, not past it. */
  int64_t none[1] = {0};
  void* e = tvm_ffi_tensor_view(src, none, 1, NULL, 24, kF32);
  CHECK(e != NULL);
  tvm_ffi_release(e);
  CHECK(tvm_ffi_tensor_view(src, none, 1, NULL, 25, kF32) == NULL);
  CHECK_RAISED("ValueError", "outside");
  /* Sub-byte element offsets must land on a byte. */
  int64_t two[1] = {2};
  CHECK(tvm_ffi_tensor_view(src, two, 1, NULL, 1, tvm_ffi_dtype(kDLFloat4_e2m1fn, 4, 1)) == NULL);
  CHECK_RAISED("ValueError", "not byte aligned");
  void* f4 = tvm_ffi_tensor_view(src, two, 1, NULL, 2, tvm_ffi_dtype(kDLFloat4_e2m1fn, 4, 1));
  CHECK(f4 != NULL);
  CHECK_EQ_INT(dl(f4)->byte_offset, 1);
  tvm_ffi_release(f4);

  /* Bad arguments. */
  CHECK(tvm_ffi_tensor_view(src, rows, 2, NULL, -1, kF32) == NULL);
  CHECK_RAISED("ValueError", "element offset -1 is negative");
  CHECK(tvm_ffi_tensor_view(src, rows, -2, NULL, 0, kF32) == NULL);
  CHECK_RAISED("ValueError", "ndim -2");
  CHECK(tvm_ffi_tensor_view(src, NULL, 2, NULL, 0, kF32) == NULL);
  CHECK_RAISED("ValueError", "shape is NULL");
  CHECK(tvm_ffi_tensor_view(src, rows, 2, NULL, 0, tvm_ffi_dtype(kDLFloat, 0, 1)) == NULL);
  CHECK_RAISED("ValueError", "no size");
  int64_t huge[2] = {INT64_C(1) << 40, INT64_C(1) << 40};
  CHECK(tvm_ffi_tensor_view(src, huge, 2, NULL, 0, kF32) == NULL);
  CHECK_RAISED("ValueError", "overflow");
  CHECK(tvm_ffi_tensor_view(NULL, rows, 2, NULL, 0, kF32) == NULL);
  CHECK_RAISED("ValueError", "NULL");
  void* s = tvm_ffi_str_obj("a string, not a tensor", 22);
  CHECK(tvm_ffi_tensor_view(s, rows, 2, NULL, 0, kF32) == NULL);
  CHECK_RAISED("TypeError", "expected ffi.Tensor");
  tvm_ffi_release(s);

  /* Views of views reference the root; the root outlives its first reference. */
  int64_t one_row[1] = {6};
  void* vv = tvm_ffi_tensor_view(v, one_row, 1, NULL, 6, kF32);
  CHECK(vv != NULL);
  CHECK_EQ_INT(dl(vv)->byte_offset, 48);
  CHECK_EQ_INT(tvm_ffi_strong_count(src), 3);
  CHECK_EQ_INT(tvm_ffi_strong_count(v), 1);
  tvm_ffi_release(v);
  tvm_ffi_release(src);
  const float* row2 = (const float*)((char*)dl(vv)->data + dl(vv)->byte_offset);
  CHECK(row2[0] == 12.0f && row2[5] == 17.0f);
  /* A view of a view is bounded by the bytes of the view it was taken from. */
  CHECK(tvm_ffi_tensor_view(vv, one_row, 1, NULL, 1, kF32) == NULL);
  CHECK_RAISED("ValueError", "outside");
  tvm_ffi_release(vv);
}

TEST(unsafe_view_keeps_source_alive) {
  int64_t shape[1] = {16};
  void* src = tvm_ffi_tensor_empty(shape, 1, kF32, kCPU);
  float* base = (float*)dl(src)->data;
  for (int i = 0; i < 16; ++i) base[i] = (float)(i * 2);
  int64_t vshape[2] = {2, 2};
  int64_t vstrides[2] = {4, 1};
  DLTensor proto;
  memset(&proto, 0, sizeof(proto));
  proto.data = base + 4;
  proto.device = kCPU;
  proto.ndim = 2;
  proto.dtype = kF32;
  proto.shape = vshape;
  proto.strides = vstrides;
  proto.byte_offset = 4;
  TVMFFIObjectHandle view = NULL;
  CHECK_OK(TVMFFITensorCreateUnsafeView(src, &proto, &view));
  if (!view) return;
  vshape[0] = 99; /* the view copied the layout */
  CHECK_EQ_INT(dl(view)->shape[0], 2);
  CHECK_EQ_INT(dl(view)->strides[0], 4);
  CHECK_EQ_INT(dl(view)->byte_offset, 4);
  tvm_ffi_release(src); /* release the source first */
  const float* p = (const float*)((char*)dl(view)->data + dl(view)->byte_offset);
  CHECK(p[0] == 10.0f);
  CHECK(p[4 + 1] == 20.0f);
  /* Compact strides are filled in when the prototype has none. */
  proto.strides = NULL;
  proto.shape = vshape;
  vshape[0] = 3;
  TVMFFIObjectHandle view2 = NULL;
  CHECK_OK(TVMFFITensorCreateUnsafeView(view, &proto, &view2));
  CHECK_EQ_INT(dl(view2)->strides[0], 2);
  tvm_ffi_release(view);
  tvm_ffi_release(view2);

  CHECK_EQ_INT(TVMFFITensorCreateUnsafeView(NULL, &proto, &view), -1);
  CHECK_RAISED("ValueError", "NULL");
  void* s = tvm_ffi_str_obj("not a tensor", 12);
  CHECK_EQ_INT(TVMFFITensorCreateUnsafeView(s, &proto, &view), -1);
  CHECK_RAISED("TypeError", "expected ffi.Tensor");
  tvm_ffi_release(s);
  void* t = tvm_ffi_tensor_empty(NULL, 0, kF32, kCPU);
  CHECK_EQ_INT(TVMFFITensorCreateUnsafeView(t, NULL, &view), -1);
  CHECK_RAISED("ValueError", "prototype is NULL");
  proto.ndim = -1;
  CHECK_EQ_INT(TVMFFITensorCreateUnsafeView(t, &proto, &view), -1);
  CHECK_RAISED("ValueError", "ndim -1");
  CHECK_EQ_INT(TVMFFITensorCreateUnsafeView(t, &proto, NULL), -1);
  CHECK_RAISED("ValueError", "out is NULL");
  tvm_ffi_release(t);
}

/* ---- Global functions --------------------------------------------------------------------- */

TEST(globals) {
  TVMFFIAny args[4];
  TVMFFIAny r;
  args[0] = tvm_ffi_any_int(3);
  args[1] = tvm_ffi_any_int(5);
  args[2] = tvm_ffi_any_raw_str("float16");
  args[3] = tvm_ffi_any_device(kCPU);
  CHECK_OK(tvm_ffi_global_call("ffi.Tensor.empty", args, 4, &r));
  void* t = tvm_ffi_any_as_object(&r, kTVMFFITensor);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_EQ_INT(dl(t)->shape[1], 5);
  CHECK_EQ_INT(dl(t)->dtype.bits, 16);

  TVMFFIAny targ = tvm_ffi_any_obj(t);
  TVMFFIAny s;
  CHECK_OK(tvm_ffi_global_call("ffi.TensorShape", &targ, 1, &s));
  void* shape = tvm_ffi_any_as_object(&s, kTVMFFIShape);
  CHECK(shape != NULL);
  if (shape) {
    CHECK_EQ_INT(tvm_ffi_shape_ndim(shape), 2);
    CHECK_EQ_INT(tvm_ffi_shape_data(shape)[0], 3);
    CHECK_EQ_INT(tvm_ffi_shape_data(shape)[1], 5);
  }
  /* A Shape argument works as the shape. */
  TVMFFIAny from_shape[3] = {s, tvm_ffi_any_dtype(kF32), tvm_ffi_any_device(kCPU)};
  TVMFFIAny r2;
  CHECK_OK(tvm_ffi_global_call("ffi.Tensor.empty", from_shape, 3, &r2));
  CHECK_EQ_INT(tvm_ffi_dltensor_numel(dl(r2.v_obj)), 15);
  tvm_ffi_any_release(&r2);
  tvm_ffi_any_release(&s);

  CHECK_OK(tvm_ffi_global_call("ffi.TensorStrides", &targ, 1, &s));
  CHECK_EQ_INT(tvm_ffi_shape_data(s.v_obj)[0], 5);
  tvm_ffi_any_release(&s);
  CHECK_OK(tvm_ffi_global_call("ffi.TensorDType", &targ, 1, &s));
  CHECK_EQ_INT(s.type_index, kTVMFFIDataType);
  CHECK(tvm_ffi_dtype_equal(s.v_dtype, tvm_ffi_dtype(kDLFloat, 16, 1)));
  CHECK_OK(tvm_ffi_global_call("ffi.TensorDevice", &targ, 1, &s));
  CHECK_EQ_INT(s.type_index, kTVMFFIDevice);
  CHECK_EQ_INT(s.v_device.device_type, kDLCPU);
  CHECK_OK(tvm_ffi_global_call("ffi.TensorIsContiguous", &targ, 1, &s));
  CHECK_EQ_INT(s.type_index, kTVMFFIBool);
  CHECK_EQ_INT(s.v_int64, 1);

  /* A DLTensor pointer is accepted too, strides NULL or not. */
  int64_t shp[2] = {2, 3};
  DLTensor raw;
  memset(&raw, 0, sizeof(raw));
  raw.ndim = 2;
  raw.shape = shp;
  raw.strides = g_strides_nc;
  raw.dtype = kF32;
  TVMFFIAny rawarg = tvm_ffi_any_dltensor(&raw);
  CHECK_OK(tvm_ffi_global_call("ffi.TensorIsContiguous", &rawarg, 1, &s));
  CHECK_EQ_INT(s.v_int64, 0);
  raw.strides = NULL;
  CHECK_OK(tvm_ffi_global_call("ffi.TensorStrides", &rawarg, 1, &s));
  CHECK_EQ_INT(tvm_ffi_shape_data(s.v_obj)[0], 3);
  CHECK_EQ_INT(tvm_ffi_shape_data(s.v_obj)[1], 1);
  tvm_ffi_any_release(&s);

  /* Bad arguments. */
  TVMFFIAny i = tvm_ffi_any_int(1);
  CHECK_EQ_INT(tvm_ffi_global_call("ffi.TensorShape", &i, 1, &s), -1);
  CHECK_RAISED("TypeError", "expected ffi.Tensor");
  CHECK_EQ_INT(tvm_ffi_global_call("ffi.TensorDType", NULL, 0, &s), -1);
  CHECK_RAISED("TypeError", "expects 1 argument");
  args[2] = tvm_ffi_any_raw_str("float0");
  CHECK_EQ_INT(tvm_ffi_global_call("ffi.Tensor.empty", args, 4, &s), -1);
  CHECK_RAISED("ValueError", "`float0`");
  args[2] = tvm_ffi_any_dtype(kF32);
  args[3] = tvm_ffi_any_int(1);
  CHECK_EQ_INT(tvm_ffi_global_call("ffi.Tensor.empty", args, 4, &s), -1);
  CHECK_RAISED("TypeError", "expected Device");
  args[3] = tvm_ffi_any_device(kCPU);
  args[0] = tvm_ffi_any_float(2.5);
  CHECK_EQ_INT(tvm_ffi_global_call("ffi.Tensor.empty", args, 4, &s), -1);
  CHECK_RAISED("TypeError", "dimension 0 must be an int");
  args[0] = tvm_ffi_any_int(-1);
  CHECK_EQ_INT(tvm_ffi_global_call("ffi.Tensor.empty", args, 4, &s), -1);
  CHECK_RAISED("ValueError", "negative extent");
  TVMFFIAny obj_shape[3] = {tvm_ffi_any_obj(t), tvm_ffi_any_dtype(kF32), tvm_ffi_any_device(kCPU)};
  CHECK_EQ_INT(tvm_ffi_global_call("ffi.Tensor.empty", obj_shape, 3, &s), -1);
  CHECK_RAISED("TypeError", "shape must be an ffi.Shape, an Array of ints or ints, not ffi.Tensor");
  CHECK_EQ_INT(tvm_ffi_global_call("ffi.Tensor.empty", args, 1, &s), -1);
  CHECK_RAISED("TypeError", "expects (shape, dtype, device)");
  tvm_ffi_any_release(&r);
}

int main(void) {
  RUN(empty_cpu);
  RUN(empty_edge_shapes);
  RUN(empty_bad_inputs);
  RUN(contiguity_and_sizes);
  RUN(from_dlpack_legacy);
  RUN(from_dlpack_versioned);
  RUN(from_dlpack_failures_keep_ownership);
  RUN(to_dlpack_legacy);
  RUN(to_dlpack_versioned_round_trip);
  RUN(to_dlpack_bad_inputs);
  RUN(checked_views);
  RUN(unsafe_view_keeps_source_alive);
  RUN(globals);
  return test_summary();
}

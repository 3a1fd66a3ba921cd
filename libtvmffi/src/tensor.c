/*
 * tensor.c: ffi.Tensor (static index kTVMFFITensor), DLPack import/export, views.
 *
 * Layout (one allocation): { TVMFFIObject, DLTensor, kind, owner, shape[ndim], strides[ndim] }.
 * The DLTensor follows the header (the ABI's TVMFFITensorGetDLTensorPtr relies on it); its
 * shape and strides always point at the inline arrays, so every tensor has non-NULL strides
 * (compact row-major ones are filled in when the producer gave none) and stays valid whatever
 * the producer does with its own shape arrays afterwards.
 *
 * What the tensor owns (`kind`, `owner`):
 *   TENSOR_CPU          owner = the data block, from tvm_ffi_aligned_alloc (tvm_ffi_tensor_empty)
 *   TENSOR_DLPACK       owner = a DLManagedTensor; its deleter runs on destruction
 *   TENSOR_DLPACK_V1    owner = a DLManagedTensorVersioned (imports and env allocations)
 *   TENSOR_VIEW         owner = a strong reference to the tensor whose memory is viewed; views
 *                       of views reference the root owner directly, so chains stay flat
 *
 * Global functions registered here (arguments: t is an ffi.Tensor or a DLTensor pointer):
 *   ffi.Tensor.empty(shape, dtype, device) -> Tensor   shape: ffi.Shape, Array/List of ints,
 *                                                      or the dims as separate int arguments;
 *                                                      dtype: DataType or its string
 *   ffi.TensorShape(t) -> Shape      ffi.TensorStrides(t) -> Shape (compact ones if NULL)
 *   ffi.TensorDType(t) -> DataType   ffi.TensorDevice(t) -> Device
 *   ffi.TensorIsContiguous(t) -> bool
 *   ffi.DataTypeFromString(str) -> DataType   ffi.DataTypeToString(dtype) -> str
 */
#include <string.h>

#include "internal.h"

enum { TENSOR_CPU = 1, TENSOR_DLPACK = 2, TENSOR_DLPACK_V1 = 3, TENSOR_VIEW = 4 };

typedef struct {
  TVMFFIObject header;
  DLTensor dl_tensor;
  int32_t kind;
  void* owner;
  int64_t dims[]; /* shape[ndim], then strides[ndim] */
} tensor_obj;
_Static_assert(offsetof(tensor_obj, dl_tensor) == 24 && sizeof(TVMFFIObject) == 24,
               "the DLTensor of ffi.Tensor follows the 24-byte object header");
_Static_assert(offsetof(tensor_obj, dims) % sizeof(int64_t) == 0, "inline dims are aligned");

/* Alignment of CPU tensor data (DESIGN.md: tensors are 64-byte aligned). */
#define TENSOR_CPU_ALIGN 64

static void tensor_destroy(void* self) {
  tensor_obj* t = (tensor_obj*)self;
  switch (t->kind) {
    case TENSOR_CPU:
      tvm_ffi_free(t->owner);
      break;
    case TENSOR_DLPACK: {
      DLManagedTensor* m = (DLManagedTensor*)t->owner;
      if (m->deleter) m->deleter(m);
      break;
    }
    case TENSOR_DLPACK_V1: {
      DLManagedTensorVersioned* m = (DLManagedTensorVersioned*)t->owner;
      if (m->deleter) m->deleter(m);
      break;
    }
    case TENSOR_VIEW:
      tvm_ffi_release(t->owner);
      break;
    default:
      break; /* creation failed before anything was owned */
  }
}

/* ---- Layout helpers --------------------------------------------------------------------- */

/* ndim >= 0, shape present when ndim > 0, every dim >= 0. */
static int check_shape(const char* fname, int32_t ndim, const int64_t* shape) {
  if (ndim < 0) return tvm_ffi_raise("ValueError", "%s: ndim %d is negative", fname, (int)ndim);
  if (ndim > 0 && !shape) return tvm_ffi_raise("ValueError", "%s: shape is NULL", fname);
  for (int32_t i = 0; i < ndim; ++i) {
    if (shape[i] < 0) {
      return tvm_ffi_raise("ValueError", "%s: dimension %d has negative extent %lld", fname,
                           (int)i, (long long)shape[i]);
    }
  }
  return 0;
}

/* Row-major compact strides; ValueError when they overflow int64. */
static int fill_compact_strides(const char* fname, int32_t ndim, const int64_t* shape,
                                int64_t* strides) {
  int64_t s = 1;
  for (int32_t i = ndim - 1; i >= 0; --i) {
    strides[i] = s;
    if (i > 0 && __builtin_mul_overflow(s, shape[i] > 0 ? shape[i] : 1, &s)) {
      return tvm_ffi_raise("ValueError", "%s: shape is too large (strides overflow int64)", fname);
    }
  }
  return 0;
}

/* A tensor object with shape/strides copied inline (compact strides when strides is NULL);
 * everything else zero. The shape must have passed check_shape. */
static tensor_obj* tensor_new(const char* fname, int32_t ndim, const int64_t* shape,
                              const int64_t* strides) {
  tvm_ffi_init();
  size_t size = sizeof(tensor_obj) + 2 * (size_t)ndim * sizeof(int64_t);
  tensor_obj* t = (tensor_obj*)tvm_ffi_object_new(kTVMFFITensor, size);
  if (!t) return NULL;
  int64_t* sh = t->dims;
  int64_t* st = t->dims + ndim;
  if (ndim) memcpy(sh, shape, (size_t)ndim * sizeof(int64_t));
  if (strides) {
    if (ndim) memcpy(st, strides, (size_t)ndim * sizeof(int64_t));
  } else if (fill_compact_strides(fname, ndim, sh, st) != 0) {
    tvm_ffi_release(t);
    return NULL;
  }
  t->dl_tensor.ndim = ndim;
  t->dl_tensor.shape = sh;
  t->dl_tensor.strides = st;
  return t;
}

/* The tensor behind a handle: ValueError for NULL, TypeError for another object type. */
static tensor_obj* as_tensor(const char* fname, void* handle) {
  if (!handle) {
    tvm_ffi_raise("ValueError", "%s: tensor handle is NULL", fname);
    return NULL;
  }
  if (!tvm_ffi_instance_of(handle, kTVMFFITensor)) {
    tvm_ffi_raise("TypeError", "%s: expected ffi.Tensor but got %s", fname,
                  tvm_ffi_type_key(tvm_ffi_type_index(handle)));
    return NULL;
  }
  return (tensor_obj*)handle;
}

/* ---- Size queries ----------------------------------------------------------------------- */

int64_t tvm_ffi_dltensor_numel(const DLTensor* t) {
  if (!t) return tvm_ffi_raise("ValueError", "tvm_ffi_dltensor_numel: tensor is NULL");
  if (check_shape("tvm_ffi_dltensor_numel", t->ndim, t->shape) != 0) return -1;
  int64_t n = 1;
  for (int32_t i = 0; i < t->ndim; ++i) {
    if (t->shape[i] == 0) return 0;
  }
  for (int32_t i = 0; i < t->ndim; ++i) {
    if (__builtin_mul_overflow(n, t->shape[i], &n)) {
      return tvm_ffi_raise("ValueError", "tvm_ffi_dltensor_numel: element count overflows int64");
    }
  }
  return n;
}

/* Packed byte size of numel elements, as upstream's GetDataSize: sub-byte elements are packed,
 * except uint1 which is stored one per byte. -1 with ValueError on overflow. */
static int64_t data_bytes(const char* fname, int64_t numel, DLDataType dtype) {
  if (dtype.code == kDLUInt && dtype.bits == 1 && dtype.lanes == 1) return numel;
  int64_t bits;
  if (__builtin_mul_overflow(numel, (int64_t)dtype.bits * dtype.lanes, &bits) ||
      bits > INT64_MAX - 7) {
    return tvm_ffi_raise("ValueError", "%s: byte size overflows int64", fname);
  }
  return (bits + 7) / 8;
}

int64_t tvm_ffi_dltensor_nbytes(const DLTensor* t) {
  int64_t n = tvm_ffi_dltensor_numel(t);
  if (n < 0) return -1;
  return data_bytes("tvm_ffi_dltensor_nbytes", n, t->dtype);
}

bool tvm_ffi_dltensor_is_contiguous(const DLTensor* t) {
  if (!t) return false;
  if (!t->strides || t->ndim <= 0) return true;
  /* An empty tensor holds no element to misplace: contiguous whatever its strides (as
   * PyTorch's is_contiguous; fill_compact_strides gives a 0 dim's neighbours the strides of
   * a 1). */
  for (int32_t i = 0; i < t->ndim; ++i) {
    if (t->shape[i] == 0) return true;
  }
  int64_t expected = 1;
  for (int32_t i = t->ndim - 1; i >= 0; --i) {
    /* A size-1 dimension is contiguous whatever its stride (producers such as PyTorch
     * normalise those strides differently). */
    if (t->shape[i] == 1) continue;
    if (t->strides[i] != expected) return false;
    if (__builtin_mul_overflow(expected, t->shape[i], &expected)) return false;
  }
  return true;
}

/* ---- DLPack import ---------------------------------------------------------------------- */

/* Devices whose data pointer is a plain address, so alignment can be read from it; for the
 * others only byte_offset is checked (as upstream does). */
static bool is_direct_address(DLDevice d) {
  return d.device_type <= kDLCUDAHost || d.device_type == kDLCUDAManaged ||
         d.device_type == kDLROCM || d.device_type == kDLROCMHost;
}

/* Wrap `dl` owned by `owner` (kind TENSOR_DLPACK or _V1) after the requested checks. On failure
 * nothing is taken: the caller keeps the managed tensor. */
static int import_dltensor(const char* fname, const DLTensor* dl, int32_t kind, void* owner,
                           int32_t require_alignment, int32_t require_contiguous,
                           TVMFFIObjectHandle* out) {
  if (require_alignment < 0) {
    return tvm_ffi_raise("ValueError", "%s: require_alignment %d is negative", fname,
                         (int)require_alignment);
  }
  if (check_shape(fname, dl->ndim, dl->shape) != 0) return -1;
  if (require_alignment > 0) {
    uint64_t addr = is_direct_address(dl->device) ? (uint64_t)(uintptr_t)dl->data : 0;
    if ((addr + dl->byte_offset) % (uint64_t)require_alignment != 0) {
      return tvm_ffi_raise("ValueError",
                           "%s: data is not aligned to %d bytes (data %p, byte_offset %llu)",
                           fname, (int)require_alignment, dl->data,
                           (unsigned long long)dl->byte_offset);
    }
  }
  if (require_contiguous && !tvm_ffi_dltensor_is_contiguous(dl)) {
    return tvm_ffi_raise("ValueError", "%s: tensor is not contiguous", fname);
  }
  tensor_obj* t = tensor_new(fname, dl->ndim, dl->shape, dl->strides);
  if (!t) return -1;
  t->dl_tensor.data = dl->data;
  t->dl_tensor.device = dl->device;
  t->dl_tensor.dtype = dl->dtype;
  t->dl_tensor.byte_offset = dl->byte_offset;
  t->kind = kind;
  t->owner = owner;
  *out = t;
  return 0;
}

int TVMFFITensorFromDLPack(DLManagedTensor* from, int32_t require_alignment,
                           int32_t require_contiguous, TVMFFIObjectHandle* out) {
  static const char fname[] = "TVMFFITensorFromDLPack";
  if (!out) return tvm_ffi_raise("ValueError", "%s: out is NULL", fname);
  *out = NULL;
  if (!from) return tvm_ffi_raise("ValueError", "%s: managed tensor is NULL", fname);
  return import_dltensor(fname, &from->dl_tensor, TENSOR_DLPACK, from, require_alignment,
                         require_contiguous, out);
}

int TVMFFITensorFromDLPackVersioned(DLManagedTensorVersioned* from, int32_t require_alignment,
                                    int32_t require_contiguous, TVMFFIObjectHandle* out) {
  static const char fname[] = "TVMFFITensorFromDLPackVersioned";
  if (!out) return tvm_ffi_raise("ValueError", "%s: out is NULL", fname);
  *out = NULL;
  if (!from) return tvm_ffi_raise("ValueError", "%s: managed tensor is NULL", fname);
  if (from->version.major != DLPACK_MAJOR_VERSION) {
    /* A different major version may lay the struct out differently. */
    return tvm_ffi_raise("ValueError", "%s: unsupported DLPack version %u.%u (expected %d.x)",
                         fname, (unsigned)from->version.major, (unsigned)from->version.minor,
                         DLPACK_MAJOR_VERSION);
  }
  if (from->flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) {
    return tvm_ffi_raise("ValueError", "%s: padded sub-byte data types are not supported", fname);
  }
  return import_dltensor(fname, &from->dl_tensor, TENSOR_DLPACK_V1, from, require_alignment,
                         require_contiguous, out);
}

/* ---- DLPack export ---------------------------------------------------------------------- */
/* The exported managed tensor borrows our shape/strides and holds a strong reference to the
 * tensor (manager_ctx); its deleter drops the reference and frees the struct. */

static void export_deleter(DLManagedTensor* self) {
  tvm_ffi_release(self->manager_ctx);
  tvm_ffi_free(self);
}

static void export_deleter_versioned(DLManagedTensorVersioned* self) {
  tvm_ffi_release(self->manager_ctx);
  tvm_ffi_free(self);
}

int TVMFFITensorToDLPack(TVMFFIObjectHandle from, DLManagedTensor** out) {
  static const char fname[] = "TVMFFITensorToDLPack";
  if (!out) return tvm_ffi_raise("ValueError", "%s: out is NULL", fname);
  *out = NULL;
  tensor_obj* t = as_tensor(fname, from);
  if (!t) return -1;
  DLManagedTensor* m = (DLManagedTensor*)tvm_ffi_malloc(sizeof(DLManagedTensor));
  if (!m) return -1;
  m->dl_tensor = t->dl_tensor;
  m->manager_ctx = t;
  m->deleter = export_deleter;
  tvm_ffi_retain(t);
  *out = m;
  return 0;
}

int TVMFFITensorToDLPackVersioned(TVMFFIObjectHandle from, DLManagedTensorVersioned** out) {
  static const char fname[] = "TVMFFITensorToDLPackVersioned";
  if (!out) return tvm_ffi_raise("ValueError", "%s: out is NULL", fname);
  *out = NULL;
  tensor_obj* t = as_tensor(fname, from);
  if (!t) return -1;
  DLManagedTensorVersioned* m =
      (DLManagedTensorVersioned*)tvm_ffi_malloc(sizeof(DLManagedTensorVersioned));
  if (!m) return -1;
  m->version.major = DLPACK_MAJOR_VERSION;
  m->version.minor = DLPACK_MINOR_VERSION;
  m->manager_ctx = t;
  m->deleter = export_deleter_versioned;
  m->flags = 0;
  m->dl_tensor = t->dl_tensor;
  tvm_ffi_retain(t);
  *out = m;
  return 0;
}

/* ---- Views ------------------------------------------------------------------------------ */

/* A view of `source` with the given layout; references the root owner of the memory. */
static tensor_obj* view_new(const char* fname, tensor_obj* source, int32_t ndim,
                            const int64_t* shape, const int64_t* strides) {
  tensor_obj* t = tensor_new(fname, ndim, shape, strides);
  if (!t) return NULL;
  tensor_obj* root = source->kind == TENSOR_VIEW ? (tensor_obj*)source->owner : source;
  tvm_ffi_retain(root);
  t->kind = TENSOR_VIEW;
  t->owner = root;
  return t;
}

int TVMFFITensorCreateUnsafeView(TVMFFIObjectHandle source, const DLTensor* prototype,
                                 TVMFFIObjectHandle* out) {
  static const char fname[] = "TVMFFITensorCreateUnsafeView";
  if (!out) return tvm_ffi_raise("ValueError", "%s: out is NULL", fname);
  *out = NULL;
  tensor_obj* src = as_tensor(fname, source);
  if (!src) return -1;
  if (!prototype) return tvm_ffi_raise("ValueError", "%s: prototype is NULL", fname);
  if (check_shape(fname, prototype->ndim, prototype->shape) != 0) return -1;
  tensor_obj* t = view_new(fname, src, prototype->ndim, prototype->shape, prototype->strides);
  if (!t) return -1;
  t->dl_tensor.data = prototype->data;
  t->dl_tensor.device = prototype->device;
  t->dl_tensor.dtype = prototype->dtype;
  t->dl_tensor.byte_offset = prototype->byte_offset;
  *out = t;
  return 0;
}

/*
 * The elements a layout can reach, as [lo, hi) in element units relative to its first element
 * (lo <= 0 with negative strides). *empty is set when the layout has no element. -1 on overflow.
 */
static int reach(int32_t ndim, const int64_t* shape, const int64_t* strides, int64_t* lo,
                 int64_t* hi, bool* empty) {
  *lo = 0;
  *hi = 1;
  *empty = false;
  int64_t compact = 1;
  for (int32_t i = ndim - 1; i >= 0; --i) {
    if (shape[i] == 0) {
      *empty = true;
      return 0;
    }
  }
  for (int32_t i = ndim - 1; i >= 0; --i) {
    int64_t stride = strides ? strides[i] : compact;
    int64_t span;
    if (__builtin_mul_overflow(stride, shape[i] - 1, &span)) return -1;
    if (span < 0 ? __builtin_add_overflow(*lo, span, lo) : __builtin_add_overflow(*hi, span, hi)) {
      return -1;
    }
    if (!strides && __builtin_mul_overflow(compact, shape[i], &compact)) return -1;
  }
  return 0;
}

void* tvm_ffi_tensor_view(void* tensor, const int64_t* shape, int32_t ndim, const int64_t* strides,
                          int64_t elem_offset, DLDataType dtype) {
  static const char fname[] = "tvm_ffi_tensor_view";
  tensor_obj* src = as_tensor(fname, tensor);
  if (!src || check_shape(fname, ndim, shape) != 0) return NULL;
  if (elem_offset < 0) {
    tvm_ffi_raise("ValueError", "%s: element offset %lld is negative", fname,
                  (long long)elem_offset);
    return NULL;
  }
  if (dtype.bits == 0 || dtype.lanes == 0) {
    tvm_ffi_raise("ValueError", "%s: data type with %d bits and %d lanes has no size", fname,
                  (int)dtype.bits, (int)dtype.lanes);
    return NULL;
  }
  const DLTensor* s = &src->dl_tensor;
  int64_t vbits = (int64_t)dtype.bits * dtype.lanes;
  int64_t sbits = (int64_t)s->dtype.bits * s->dtype.lanes;
  int64_t vlo, vhi, slo, shi, off_bits;
  bool vempty, sempty;
  if (reach(ndim, shape, strides, &vlo, &vhi, &vempty) != 0 ||
      reach(s->ndim, s->shape, s->strides, &slo, &shi, &sempty) != 0 ||
      __builtin_mul_overflow(elem_offset, vbits, &off_bits) ||
      __builtin_add_overflow(vlo, elem_offset, &vlo) ||
      __builtin_add_overflow(vhi, elem_offset, &vhi) ||
      __builtin_mul_overflow(vlo, vbits, &vlo) || __builtin_mul_overflow(vhi, vbits, &vhi) ||
      __builtin_mul_overflow(slo, sbits, &slo) || __builtin_mul_overflow(shi, sbits, &shi)) {
    tvm_ffi_raise("ValueError", "%s: view extent overflows int64", fname);
    return NULL;
  }
  if (off_bits % 8 != 0) {
    tvm_ffi_raise("ValueError", "%s: element offset %lld of a %lld-bit type is not byte aligned",
                  fname, (long long)elem_offset, (long long)vbits);
    return NULL;
  }
  /* Bit ranges relative to the source's first element; an empty view only needs its offset
   * to lie within (or at the end of) the source. */
  if (sempty) slo = shi = 0;
  bool inside = vempty ? (off_bits >= slo && off_bits <= shi) : (vlo >= slo && vhi <= shi);
  if (!inside) {
    tvm_ffi_raise("ValueError",
                  "%s: view (element offset %lld) reaches bytes [%lld, %lld) outside the source "
                  "tensor's bytes [%lld, %lld)",
                  fname, (long long)elem_offset, (long long)(vlo / 8), (long long)((vhi + 7) / 8),
                  (long long)(slo / 8), (long long)((shi + 7) / 8));
    return NULL;
  }
  tensor_obj* t = view_new(fname, src, ndim, shape, strides);
  if (!t) return NULL;
  t->dl_tensor.data = s->data;
  t->dl_tensor.device = s->device;
  t->dl_tensor.dtype = dtype;
  t->dl_tensor.byte_offset = s->byte_offset + (uint64_t)(off_bits / 8);
  return t;
}

/* ---- Allocation ------------------------------------------------------------------------- */

void* tvm_ffi_tensor_empty(const int64_t* shape, int32_t ndim, DLDataType dtype, DLDevice device) {
  static const char fname[] = "tvm_ffi_tensor_empty";
  if (check_shape(fname, ndim, shape) != 0) return NULL;
  if (dtype.bits == 0 || dtype.lanes == 0) {
    tvm_ffi_raise("ValueError", "%s: data type with %d bits and %d lanes has no size", fname,
                  (int)dtype.bits, (int)dtype.lanes);
    return NULL;
  }
  if (device.device_type != kDLCPU) {
    /* Other devices belong to whoever installed an allocator for them. */
    DLTensor proto;
    memset(&proto, 0, sizeof(proto));
    proto.device = device;
    proto.ndim = ndim;
    proto.dtype = dtype;
    proto.shape = (int64_t*)shape;
    TVMFFIObjectHandle out = NULL;
    return TVMFFIEnvTensorAlloc(&proto, &out) == 0 ? out : NULL;
  }
  tensor_obj* t = tensor_new(fname, ndim, shape, NULL);
  if (!t) return NULL;
  int64_t numel = tvm_ffi_dltensor_numel(&t->dl_tensor);
  int64_t nbytes = numel < 0 ? -1 : data_bytes(fname, numel, dtype);
  void* data = nbytes < 0 ? NULL : tvm_ffi_aligned_alloc(TENSOR_CPU_ALIGN, (size_t)nbytes);
  if (!data) {
    tvm_ffi_release(t);
    return NULL;
  }
  t->dl_tensor.data = data;
  t->dl_tensor.device = device;
  t->dl_tensor.dtype = dtype;
  t->kind = TENSOR_CPU;
  t->owner = data;
  return t;
}

/* ---- Global functions ------------------------------------------------------------------- */

/* The DLTensor of argument i (an ffi.Tensor or a DLTensor pointer), or NULL + TypeError. */
static const DLTensor* arg_dltensor(const char* fname, const TVMFFIAny* args, int32_t i) {
  if (args[i].type_index == kTVMFFIDLTensorPtr && args[i].v_ptr) {
    return (const DLTensor*)args[i].v_ptr;
  }
  void* t = tvm_ffi_arg_object(fname, args, i, kTVMFFITensor);
  return t ? tvm_ffi_tensor_dl(t) : NULL;
}

/* A DataType argument, or a string naming one. */
static bool arg_dtype(const char* fname, const TVMFFIAny* args, int32_t i, DLDataType* out) {
  if (args[i].type_index == kTVMFFIDataType) {
    *out = args[i].v_dtype;
    return true;
  }
  int32_t ti = args[i].type_index;
  TVMFFIByteArray s;
  if ((ti == kTVMFFIStr || ti == kTVMFFISmallStr || ti == kTVMFFIRawStr) &&
      tvm_ffi_any_as_bytes(&args[i], &s)) {
    return tvm_ffi_dtype_parse(s.data, s.size, out) == 0;
  }
  tvm_ffi_raise("TypeError",
                "Mismatched type on argument #%d when calling `%s`: expected DataType but got %s",
                (int)i, fname, tvm_ffi_any_type_name(&args[i]));
  return false;
}

/* Return a new Shape of the n dims in result. */
static int ret_shape(TVMFFIAny* result, const int64_t* dims, int32_t n) {
  return tvm_ffi__ret_obj(result, tvm_ffi_shape_new(dims, n));
}

static int g_tensor_empty(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  static const char fname[] = "ffi.Tensor.empty";
  if (n < 2) {
    return tvm_ffi_raise("TypeError", "%s expects (shape, dtype, device) but got %d arguments",
                         fname, (int)n);
  }
  DLDataType dtype;
  if (!arg_dtype(fname, args, n - 2, &dtype)) return -1;
  if (args[n - 1].type_index != kTVMFFIDevice) {
    return tvm_ffi_raise("TypeError",
                         "Mismatched type on argument #%d when calling `%s`: expected Device but "
                         "got %s",
                         (int)(n - 1), fname, tvm_ffi_any_type_name(&args[n - 1]));
  }
  DLDevice device = args[n - 1].v_device;
  /* The dims: a Shape, an Array/List of ints, or the leading int arguments. */
  void* seq = n == 3 ? tvm_ffi_any_as_object(&args[0], kTVMFFIObject) : NULL;
  const TVMFFIAny* items = args;
  int64_t ndim = n - 2;
  if (seq && tvm_ffi_instance_of(seq, kTVMFFIShape)) {
    items = NULL;
    ndim = tvm_ffi_shape_ndim(seq);
  } else if (seq && (tvm_ffi_instance_of(seq, kTVMFFIArray) ||
                     tvm_ffi_instance_of(seq, kTVMFFIList))) {
    items = tvm_ffi_seq_data(seq);
    ndim = tvm_ffi_seq_size(seq);
  } else if (seq) {
    return tvm_ffi_raise("TypeError",
                         "%s: shape must be an ffi.Shape, an Array of ints or ints, not %s", fname,
                         tvm_ffi_type_key(tvm_ffi_type_index(seq)));
  }
  if (ndim > INT32_MAX) return tvm_ffi_raise("ValueError", "%s: too many dimensions", fname);
  if (!items) {
    return tvm_ffi__ret_obj(result, tvm_ffi_tensor_empty(tvm_ffi_shape_data(seq), (int32_t)ndim,
                                                         dtype, device));
  }
  int64_t small[8];
  int64_t* dims = ndim <= 8 ? small : (int64_t*)tvm_ffi_malloc((size_t)ndim * sizeof(int64_t));
  if (!dims) return -1;
  int rc = 0;
  for (int64_t i = 0; i < ndim && rc == 0; ++i) {
    if (items[i].type_index == kTVMFFIInt) {
      dims[i] = items[i].v_int64;
    } else {
      rc = tvm_ffi_raise("TypeError", "%s: dimension %lld must be an int, not %s", fname,
                         (long long)i, tvm_ffi_any_type_name(&items[i]));
    }
  }
  if (rc == 0) {
    rc = tvm_ffi__ret_obj(result, tvm_ffi_tensor_empty(dims, (int32_t)ndim, dtype, device));
  }
  if (dims != small) tvm_ffi_free(dims);
  return rc;
}

static int g_tensor_shape(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  static const char fname[] = "ffi.TensorShape";
  const DLTensor* t;
  if (!tvm_ffi_check_num_args(fname, n, 1) || !(t = arg_dltensor(fname, args, 0))) return -1;
  if (check_shape(fname, t->ndim, t->shape) != 0) return -1;
  return ret_shape(result, t->shape, t->ndim);
}

static int g_tensor_strides(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  static const char fname[] = "ffi.TensorStrides";
  const DLTensor* t;
  if (!tvm_ffi_check_num_args(fname, n, 1) || !(t = arg_dltensor(fname, args, 0))) return -1;
  if (check_shape(fname, t->ndim, t->shape) != 0) return -1;
  if (t->strides) return ret_shape(result, t->strides, t->ndim);
  int64_t small[8];
  int64_t* st = t->ndim <= 8 ? small : (int64_t*)tvm_ffi_malloc((size_t)t->ndim * sizeof(int64_t));
  if (!st) return -1;
  int rc = fill_compact_strides(fname, t->ndim, t->shape, st);
  if (rc == 0) rc = ret_shape(result, st, t->ndim);
  if (st != small) tvm_ffi_free(st);
  return rc;
}

static int g_tensor_dtype(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  static const char fname[] = "ffi.TensorDType";
  const DLTensor* t;
  if (!tvm_ffi_check_num_args(fname, n, 1) || !(t = arg_dltensor(fname, args, 0))) return -1;
  *result = tvm_ffi_any_dtype(t->dtype);
  return 0;
}

static int g_tensor_device(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  static const char fname[] = "ffi.TensorDevice";
  const DLTensor* t;
  if (!tvm_ffi_check_num_args(fname, n, 1) || !(t = arg_dltensor(fname, args, 0))) return -1;
  *result = tvm_ffi_any_device(t->device);
  return 0;
}

static int g_tensor_is_contiguous(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  static const char fname[] = "ffi.TensorIsContiguous";
  const DLTensor* t;
  if (!tvm_ffi_check_num_args(fname, n, 1) || !(t = arg_dltensor(fname, args, 0))) return -1;
  if (check_shape(fname, t->ndim, t->shape) != 0) return -1;
  *result = tvm_ffi_any_bool(tvm_ffi_dltensor_is_contiguous(t));
  return 0;
}

static int g_dtype_from_string(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  static const char fname[] = "ffi.DataTypeFromString";
  TVMFFIByteArray s;
  DLDataType dtype;
  if (!tvm_ffi_check_num_args(fname, n, 1) || !tvm_ffi_arg_bytes(fname, args, 0, &s) ||
      tvm_ffi_dtype_parse(s.data, s.size, &dtype) != 0) {
    return -1;
  }
  *result = tvm_ffi_any_dtype(dtype);
  return 0;
}

static int g_dtype_to_string(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  static const char fname[] = "ffi.DataTypeToString";
  if (!tvm_ffi_check_num_args(fname, n, 1)) return -1;
  if (args[0].type_index != kTVMFFIDataType) {
    return tvm_ffi_raise("TypeError",
                         "Mismatched type on argument #0 when calling `%s`: expected DataType "
                         "but got %s",
                         fname, tvm_ffi_any_type_name(&args[0]));
  }
  return TVMFFIDataTypeToString(&args[0].v_dtype, result);
}

void tvm_ffi__init_tensors(void) {
  tvm_ffi_type_register("ffi.Tensor", kTVMFFIObject, kTVMFFITensor, sizeof(tensor_obj),
                        tensor_destroy, kTVMFFISEqHashKindUniqueInstance);
  tvm_ffi__register_global("ffi.Tensor.empty", g_tensor_empty);
  tvm_ffi__register_global("ffi.TensorShape", g_tensor_shape);
  tvm_ffi__register_global("ffi.TensorStrides", g_tensor_strides);
  tvm_ffi__register_global("ffi.TensorDType", g_tensor_dtype);
  tvm_ffi__register_global("ffi.TensorDevice", g_tensor_device);
  tvm_ffi__register_global("ffi.TensorIsContiguous", g_tensor_is_contiguous);
  tvm_ffi__register_global("ffi.DataTypeFromString", g_dtype_from_string);
  tvm_ffi__register_global("ffi.DataTypeToString", g_dtype_to_string);
}

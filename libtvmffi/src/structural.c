/*
 * structural.c: structural equality and hashing of any value, driven by reflection.
 *
 * Values compare as follows (the hash is computed over exactly the same parts, so equal values
 * hash equal):
 *   - POD values by value and type (int 1 != bool true). Floats compare bitwise, except that
 *     every NaN equals every NaN: -0.0 != 0.0, and NaN == NaN so that equality is reflexive.
 *   - Strings and bytes by content, whatever their representation (small, object, view).
 *   - Array/List elementwise, Map/Dict by key (see eq_map), Shape by dims.
 *   - Tensors by shape, dtype, device and contents when the memory is host-readable;
 *     device-resident tensors are equal only when they view the same memory.
 *   - Other objects by the kind registered with their type (TVMFFITypeMetadata):
 *       TreeNode / ConstTreeNode: same type and all fields equal, except fields flagged
 *         SEqHashIgnore. Fields flagged SEqHashDefRecursive (old name SEqHashDef) are
 *         definition sites: free variables met anywhere under them are mapped to each other.
 *         Fields flagged SEqHashDefNonRecursive define only the variables they hold: the
 *         fields of objects under them (a variable's type annotation) are compared as they
 *         would be outside the field (def_region_enter).
 *       FreeVar: a variable. Its non-ignored fields (dtype, type annotation) must be equal,
 *         and the two must correspond: mapped to each other earlier, or both unmapped and
 *         either at a definition site, or map_free_vars is set, or the same object. The
 *         mapping is a bijection (lhs->rhs and rhs->lhs).
 *       DAGNode: like a tree node, but sharing must match: once lhs node X was found equal to
 *         rhs node Y, X must correspond to Y wherever it appears again.
 *       UniqueInstance, Unsupported (or no metadata): pointer identity. Unsupported is treated
 *         like UniqueInstance rather than raising, so that opaque handles embedded in IR do
 *         not make whole modules incomparable.
 * Variables hash by the order in which they are defined (a counter), not by address, so
 * alpha-equivalent values hash equal; a free variable outside a definition site, when free
 * variables are not mapped, hashes by address, as it is only equal to itself.
 *
 * Recursion is bounded by TVM_FFI_STRUCTURAL_MAX_DEPTH: deeper (or cyclic) values raise a
 * RuntimeError instead of exhausting the stack.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- Pointer maps ----------------------------------------------------------------------- */
/* Open addressing, linear probing, no deletion. Keys are objects the map holds a reference to
 * (so an address cannot be reused by a new object while the map lives); with owns_values the
 * values are object pointers it holds too. */
typedef struct {
  uintptr_t key;
  uint64_t value;
} pm_slot;

typedef struct {
  pm_slot* slots;
  size_t mask;
  size_t used;
  bool owns_values;
} ptrmap;

static inline size_t ptr_mix(uintptr_t p) {
  uint64_t x = (uint64_t)p;
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  return (size_t)x;
}

static pm_slot* pm_find(const ptrmap* m, const void* key) {
  if (!m->slots) return NULL;
  for (size_t i = ptr_mix((uintptr_t)key) & m->mask;; i = (i + 1) & m->mask) {
    if (m->slots[i].key == (uintptr_t)key) return &m->slots[i];
    if (!m->slots[i].key) return NULL;
  }
}

static int pm_grow(ptrmap* m) {
  size_t cap = m->slots ? (m->mask + 1) * 2 : 64;
  pm_slot* s = (pm_slot*)tvm_ffi_calloc(cap, sizeof(pm_slot));
  if (!s) return -1;
  for (size_t i = 0; m->slots && i <= m->mask; ++i) {
    if (!m->slots[i].key) continue;
    size_t j = ptr_mix(m->slots[i].key) & (cap - 1);
    while (s[j].key) j = (j + 1) & (cap - 1);
    s[j] = m->slots[i];
  }
  tvm_ffi_free(m->slots);
  m->slots = s;
  m->mask = cap - 1;
  return 0;
}

/* Insert or overwrite. -1 (MemoryError raised) on allocation failure. */
static int pm_put(ptrmap* m, const void* key, uint64_t value) {
  pm_slot* s = pm_find(m, key);
  if (!s) {
    if ((!m->slots || (m->used + 1) * 4 > (m->mask + 1) * 3) && pm_grow(m) != 0) return -1;
    size_t i = ptr_mix((uintptr_t)key) & m->mask;
    while (m->slots[i].key) i = (i + 1) & m->mask;
    s = &m->slots[i];
    s->key = (uintptr_t)key;
    tvm_ffi_retain((void*)key);
    m->used++;
  } else if (m->owns_values) {
    tvm_ffi_release((void*)(uintptr_t)s->value);
  }
  if (m->owns_values) tvm_ffi_retain((void*)(uintptr_t)value);
  s->value = value;
  return 0;
}

static void pm_free(ptrmap* m) {
  for (size_t i = 0; m->slots && i <= m->mask; ++i) {
    if (!m->slots[i].key) continue;
    tvm_ffi_release((void*)m->slots[i].key);
    if (m->owns_values) tvm_ffi_release((void*)(uintptr_t)m->slots[i].value);
  }
  tvm_ffi_free(m->slots);
  m->slots = NULL;
  m->mask = m->used = 0;
}

/* ---- Shared helpers --------------------------------------------------------------------- */
enum { CLASS_OTHER = 0, CLASS_STR = 1, CLASS_BYTES = 2 };

static int str_class(int32_t t) {
  if (t == kTVMFFIStr || t == kTVMFFISmallStr || t == kTVMFFIRawStr) return CLASS_STR;
  if (t == kTVMFFIBytes || t == kTVMFFISmallBytes || t == kTVMFFIByteArrayPtr) return CLASS_BYTES;
  return CLASS_OTHER;
}

/* An rvalue-reference view stands for the object it points at. */
static inline const TVMFFIAny* deref(const TVMFFIAny* a, TVMFFIAny* tmp) {
  if (a->type_index != kTVMFFIObjectRValueRef) return a;
  *tmp = tvm_ffi_any_obj(*(void**)a->v_ptr);
  return tmp;
}

static int seq_kind_of(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  return info && info->metadata ? (int)info->metadata->structural_eq_hash_kind
                                : kTVMFFISEqHashKindUnsupported;
}

static int too_deep(const char* what) {
  return tvm_ffi_raise("RuntimeError",
                       "%s: value nested deeper than %d levels (too deep, or cyclic)", what,
                       TVM_FFI_STRUCTURAL_MAX_DEPTH);
}

/* Host-readable device memory: tensor contents can be compared and hashed in place. */
static bool host_readable(DLDevice d) {
  return d.device_type == kDLCPU || d.device_type == kDLCUDAHost || d.device_type == kDLROCMHost ||
         d.device_type == kDLCUDAManaged;
}

/* Visit the elements of a host tensor in row-major order as byte ranges: one range for a
 * compact tensor, one per element otherwise. Returns what fn returns first when non-zero. */
typedef int (*tensor_bytes_fn)(void* ctx, const unsigned char* p, size_t n, int64_t offset);

static bool walkable(const DLTensor* t) {
  if (tvm_ffi_dltensor_is_contiguous(t)) return true;
  /* Sub-byte elements are packed, so strides cannot address them one by one. */
  return ((int64_t)t->dtype.bits * t->dtype.lanes) % 8 == 0;
}

static int tensor_walk(const DLTensor* t, tensor_bytes_fn fn, void* ctx) {
  const unsigned char* base = (const unsigned char*)t->data + t->byte_offset;
  if (tvm_ffi_dltensor_is_contiguous(t)) {
    int64_t nbytes = tvm_ffi_dltensor_nbytes(t);
    if (nbytes < 0) return -1;
    return nbytes ? fn(ctx, base, (size_t)nbytes, 0) : 0;
  }
  int64_t numel = tvm_ffi_dltensor_numel(t);
  if (numel < 0) return -1;
  size_t esize = (size_t)(((int64_t)t->dtype.bits * t->dtype.lanes) / 8);
  int64_t idx[64] = {0};
  int nd = t->ndim;
  if (nd > 64) return tvm_ffi_raise("ValueError", "tensor with %d dimensions", nd);
  for (int64_t k = 0; k < numel; ++k) {
    int64_t off = 0;
    for (int d = 0; d < nd; ++d) off += idx[d] * t->strides[d];
    int rc = fn(ctx, base + off * (int64_t)esize, esize, k * (int64_t)esize);
    if (rc) return rc;
    for (int d = nd - 1; d >= 0; --d) {
      if (++idx[d] < t->shape[d]) break;
      idx[d] = 0;
    }
  }
  return 0;
}

/* ---- Definition regions ----------------------------------------------------------------- */
/* Whether free variables are mapped (map_free_vars) follows the definition region: nonrec is
 * set inside a non-recursive region, whose objects' own fields see `outer` instead. */
typedef struct {
  bool map_free_vars;
  bool nonrec;
  bool outer;
} def_region;

/* The region for one field of an object visited in region *r; returns the one to restore. */
static inline def_region def_region_enter(def_region* r, int64_t flags) {
  def_region saved = *r;
  bool base = r->nonrec ? r->outer : r->map_free_vars;
  r->map_free_vars = base;
  r->nonrec = false;
  if (flags & kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive) {
    r->map_free_vars = true;
    r->nonrec = true;
    r->outer = base;
  } else if (flags & kTVMFFIFieldFlagBitMaskSEqHashDefRecursive) {
    r->map_free_vars = true;
  }
  return saved;
}

/* ---- Equality --------------------------------------------------------------------------- */
typedef struct {
  int64_t kind;
  TVMFFIAny key; /* owned */
} path_step;

typedef struct {
  def_region region;
  bool skip_tensor_content;
  bool trace; /* collect the access paths of the first mismatch */
  int32_t depth;
  ptrmap lhs2rhs, rhs2lhs; /* correspondences of variables and DAG nodes */
  ptrmap proven;           /* tree nodes already found equal: lhs -> rhs */
  /* Steps of the mismatch, deepest first (pushed while the recursion unwinds). */
  path_step* lsteps;
  path_step* rsteps;
  int64_t nsteps, capsteps;
} eq_ctx;

static int eq_any(eq_ctx* c, const TVMFFIAny* a, const TVMFFIAny* b);

/* Record one step on each side (the keys are copied). -1 on allocation failure. */
static int push_step(eq_ctx* c, int64_t lkind, const TVMFFIAny* lkey, int64_t rkind,
                     const TVMFFIAny* rkey) {
  if (c->nsteps == c->capsteps) {
    int64_t cap = c->capsteps ? c->capsteps * 2 : 16;
    path_step* l = (path_step*)tvm_ffi_realloc(c->lsteps, (size_t)cap * sizeof(path_step));
    if (!l) return -1;
    c->lsteps = l;
    path_step* r = (path_step*)tvm_ffi_realloc(c->rsteps, (size_t)cap * sizeof(path_step));
    if (!r) return -1;
    c->rsteps = r;
    c->capsteps = cap;
  }
  TVMFFIAny lk, rk;
  if (tvm_ffi_any_to_owned(lkey, &lk) != 0) return -1;
  if (tvm_ffi_any_to_owned(rkey, &rk) != 0) {
    tvm_ffi_any_release(&lk);
    return -1;
  }
  c->lsteps[c->nsteps] = (path_step){lkind, lk};
  c->rsteps[c->nsteps] = (path_step){rkind, rk};
  c->nsteps++;
  return 0;
}

/* On a mismatch (r == 0) while tracing, add the step that led to it; passes r through. */
static int on_mismatch(eq_ctx* c, int r, int64_t lkind, const TVMFFIAny* lkey, int64_t rkind,
                       const TVMFFIAny* rkey) {
  if (r != 0 || !c->trace) return r;
  return push_step(c, lkind, lkey, rkind, rkey) != 0 ? -1 : 0;
}

static int on_item_mismatch(eq_ctx* c, int r, int64_t lkind, int64_t rkind, int64_t index) {
  TVMFFIAny k = tvm_ffi_any_int(index);
  return on_mismatch(c, r, lkind, &k, rkind, &k);
}

static bool pod_equal(const TVMFFIAny* a, const TVMFFIAny* b) {
  switch (a->type_index) {
    case kTVMFFINone:
      return true;
    case kTVMFFIFloat:
      if (a->v_float64 != a->v_float64) return b->v_float64 != b->v_float64;
      return a->v_uint64 == b->v_uint64;
    case kTVMFFIDataType:
      return tvm_ffi_dtype_equal(a->v_dtype, b->v_dtype);
    case kTVMFFIDevice:
      return a->v_device.device_type == b->v_device.device_type &&
             a->v_device.device_id == b->v_device.device_id;
    default:
      return a->v_uint64 == b->v_uint64;
  }
}

static int eq_seq(eq_ctx* c, const void* a, const void* b) {
  int64_t na = tvm_ffi_seq_size(a), nb = tvm_ffi_seq_size(b);
  if (na != nb && !c->trace) return 0;
  int64_t n = na < nb ? na : nb;
  for (int64_t i = 0; i < n; ++i) {
    int r = eq_any(c, tvm_ffi_seq_at(a, i), tvm_ffi_seq_at(b, i));
    if (r != 1) return on_item_mismatch(c, r, TVM_FFI_PATH_ARRAY_ITEM, TVM_FFI_PATH_ARRAY_ITEM, i);
  }
  if (na == nb) return 1;
  if (na > nb) {
    return on_item_mismatch(c, 0, TVM_FFI_PATH_ARRAY_ITEM, TVM_FFI_PATH_ARRAY_ITEM_MISSING, nb);
  }
  return on_item_mismatch(c, 0, TVM_FFI_PATH_ARRAY_ITEM_MISSING, TVM_FFI_PATH_ARRAY_ITEM, na);
}

/* The key to look up on the other side: a mapped variable/DAG node is replaced by its
 * counterpart, anything else (strings, numbers, other objects) stands for itself. */
static TVMFFIAny map_key(const ptrmap* m, const TVMFFIAny* k) {
  if (k->type_index >= kTVMFFIStaticObjectBegin) {
    pm_slot* s = pm_find(m, k->v_obj);
    if (s) return tvm_ffi_any_obj((void*)(uintptr_t)s->value);
  }
  return *k;
}

/* Maps are equal when they have the same size and every lhs key, mapped to the rhs side,
 * is present in rhs with an equal value. A missing key is reported as <missing> on the side
 * that lacks it. */
static int eq_map(eq_ctx* c, const void* a, const void* b) {
  int64_t na = tvm_ffi_map_size(a), nb = tvm_ffi_map_size(b);
  if (na != nb && !c->trace) return 0;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(a, pos, &k, &v)) >= 0;) {
    TVMFFIAny rk = map_key(&c->lhs2rhs, k);
    const TVMFFIAny* rv = tvm_ffi_map_get(b, &rk);
    if (!rv) return on_mismatch(c, 0, TVM_FFI_PATH_MAP_ITEM, k, TVM_FFI_PATH_MAP_ITEM_MISSING, &rk);
    int r = eq_any(c, v, rv);
    if (r != 1) return on_mismatch(c, r, TVM_FFI_PATH_MAP_ITEM, k, TVM_FFI_PATH_MAP_ITEM, &rk);
  }
  if (na == nb) return 1;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(b, pos, &k, &v)) >= 0;) {
    TVMFFIAny lk = map_key(&c->rhs2lhs, k);
    if (!tvm_ffi_map_get(a, &lk)) {
      return on_mismatch(c, 0, TVM_FFI_PATH_MAP_ITEM_MISSING, &lk, TVM_FFI_PATH_MAP_ITEM, k);
    }
  }
  return 0; /* sizes differ although every key was found: cannot happen for proper maps */
}

static int eq_shape(eq_ctx* c, const void* a, const void* b) {
  int64_t na = tvm_ffi_shape_ndim(a), nb = tvm_ffi_shape_ndim(b);
  const int64_t *da = tvm_ffi_shape_data(a), *db = tvm_ffi_shape_data(b);
  int64_t n = na < nb ? na : nb;
  for (int64_t i = 0; i < n; ++i) {
    if (da[i] != db[i]) {
      return on_item_mismatch(c, 0, TVM_FFI_PATH_ARRAY_ITEM, TVM_FFI_PATH_ARRAY_ITEM, i);
    }
  }
  if (na == nb) return 1;
  if (na > nb) {
    return on_item_mismatch(c, 0, TVM_FFI_PATH_ARRAY_ITEM, TVM_FFI_PATH_ARRAY_ITEM_MISSING, nb);
  }
  return on_item_mismatch(c, 0, TVM_FFI_PATH_ARRAY_ITEM_MISSING, TVM_FFI_PATH_ARRAY_ITEM, na);
}

/* Compare rhs bytes at the same logical offsets as the lhs ranges the walk produces. The rhs
 * is compact (checked by the caller) or walked into a scratch copy. */
typedef struct {
  const unsigned char* rhs;
} tensor_cmp;

static int cmp_range(void* ctx, const unsigned char* p, size_t n, int64_t offset) {
  return memcmp(p, ((tensor_cmp*)ctx)->rhs + offset, n) != 0;
}

typedef struct {
  unsigned char* dst;
} tensor_copy;

static int copy_range(void* ctx, const unsigned char* p, size_t n, int64_t offset) {
  memcpy(((tensor_copy*)ctx)->dst + offset, p, n);
  return 0;
}

static bool same_memory(const DLTensor* x, const DLTensor* y) {
  if (x->data != y->data || x->byte_offset != y->byte_offset) return false;
  for (int i = 0; i < x->ndim; ++i) {
    int64_t sx = x->strides ? x->strides[i] : 0, sy = y->strides ? y->strides[i] : 0;
    if (sx != sy) return false;
  }
  return true;
}

static int eq_tensor(eq_ctx* c, const void* a, const void* b) {
  if (a == b) return 1;
  const DLTensor *x = tvm_ffi_tensor_dl(a), *y = tvm_ffi_tensor_dl(b);
  if (x->ndim != y->ndim || !tvm_ffi_dtype_equal(x->dtype, y->dtype) ||
      x->device.device_type != y->device.device_type ||
      x->device.device_id != y->device.device_id) {
    return 0;
  }
  for (int i = 0; i < x->ndim; ++i) {
    if (x->shape[i] != y->shape[i]) return 0;
  }
  if (c->skip_tensor_content) return 1;
  if (!host_readable(x->device) || !walkable(x) || !walkable(y)) return same_memory(x, y);
  unsigned char* scratch = NULL;
  tensor_cmp cmp = {(const unsigned char*)y->data + y->byte_offset};
  if (!tvm_ffi_dltensor_is_contiguous(y)) {
    int64_t nbytes = tvm_ffi_dltensor_nbytes(y);
    if (nbytes < 0) return -1;
    scratch = (unsigned char*)tvm_ffi_malloc((size_t)nbytes);
    if (!scratch) return -1;
    tensor_copy cp = {scratch};
    if (tensor_walk(y, copy_range, &cp) != 0) {
      tvm_ffi_free(scratch);
      return -1;
    }
    cmp.rhs = scratch;
  }
  int rc = tensor_walk(x, cmp_range, &cmp);
  tvm_ffi_free(scratch);
  if (rc < 0) return -1;
  return rc == 0;
}

static int eq_fields(eq_ctx* c, int32_t type_index, const void* a, const void* b) {
  const TVMFFIFieldInfo* const* fields;
  int32_t nf = tvm_ffi_type_all_fields(type_index, &fields);
  for (int32_t i = 0; i < nf; ++i) {
    const TVMFFIFieldInfo* f = fields[i];
    if (f->flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) continue;
    TVMFFIAny lv, rv;
    if (tvm_ffi_field_get(a, f, &lv) != 0) return -1;
    if (tvm_ffi_field_get(b, f, &rv) != 0) {
      tvm_ffi_any_release(&lv);
      return -1;
    }
    def_region saved = def_region_enter(&c->region, f->flags);
    int r = eq_any(c, &lv, &rv);
    c->region = saved;
    tvm_ffi_any_release(&lv);
    tvm_ffi_any_release(&rv);
    if (r != 1) {
      if (r == 0 && c->trace) {
        TVMFFIAny name = tvm_ffi_string_n(f->name.data, f->name.size);
        if (name.type_index == kTVMFFINone) return -1;
        r = on_mismatch(c, 0, TVM_FFI_PATH_ATTR, &name, TVM_FFI_PATH_ATTR, &name);
        tvm_ffi_any_release(&name);
      }
      return r;
    }
  }
  return 1;
}

static int record_pair(eq_ctx* c, const void* a, const void* b) {
  if (pm_put(&c->lhs2rhs, a, (uint64_t)(uintptr_t)b) != 0) return -1;
  if (pm_put(&c->rhs2lhs, b, (uint64_t)(uintptr_t)a) != 0) return -1;
  return 1;
}

/* Objects of the same type (not containers, strings or tensors). */
static int eq_object(eq_ctx* c, int32_t type_index, const void* a, const void* b) {
  int kind = seq_kind_of(type_index);
  switch (kind) {
    case kTVMFFISEqHashKindTreeNode:
    case kTVMFFISEqHashKindConstTreeNode: {
      /* A constant tree contains no variables, so identity implies equality. */
      if (kind == kTVMFFISEqHashKindConstTreeNode && a == b) return 1;
      /* Once proven equal, a pair stays equal: the mappings it established only grow. */
      pm_slot* s = pm_find(&c->proven, a);
      if (s && s->value == (uint64_t)(uintptr_t)b) return 1;
      int r = eq_fields(c, type_index, a, b);
      if (r == 1 && pm_put(&c->proven, a, (uint64_t)(uintptr_t)b) != 0) return -1;
      return r;
    }
    case kTVMFFISEqHashKindFreeVar:
    case kTVMFFISEqHashKindDAGNode: {
      pm_slot* s = pm_find(&c->lhs2rhs, a);
      if (s) return s->value == (uint64_t)(uintptr_t)b;
      if (pm_find(&c->rhs2lhs, b)) return 0; /* rhs already corresponds to another node */
      int r = eq_fields(c, type_index, a, b);
      if (r != 1) return r;
      if (kind == kTVMFFISEqHashKindFreeVar && a != b && !c->region.map_free_vars) return 0;
      return record_pair(c, a, b);
    }
    default: /* UniqueInstance, Unsupported */
      return a == b;
  }
}

static int eq_any(eq_ctx* c, const TVMFFIAny* a, const TVMFFIAny* b) {
  TVMFFIAny ta, tb;
  a = deref(a, &ta);
  b = deref(b, &tb);
  int ca = str_class(a->type_index), cb = str_class(b->type_index);
  if (ca || cb) {
    if (ca != cb) return 0;
    TVMFFIByteArray x, y;
    tvm_ffi_any_as_bytes(a, &x);
    tvm_ffi_any_as_bytes(b, &y);
    return x.size == y.size && (x.size == 0 || memcmp(x.data, y.data, x.size) == 0);
  }
  int32_t t = a->type_index;
  if (t != b->type_index) return 0;
  if (t < kTVMFFIStaticObjectBegin) return pod_equal(a, b);
  if (++c->depth > TVM_FFI_STRUCTURAL_MAX_DEPTH) return too_deep("structural equality");
  int r;
  switch (t) {
    case kTVMFFIArray:
    case kTVMFFIList:
      r = eq_seq(c, a->v_obj, b->v_obj);
      break;
    case kTVMFFIMap:
    case kTVMFFIDict:
      r = eq_map(c, a->v_obj, b->v_obj);
      break;
    case kTVMFFIShape:
      r = eq_shape(c, a->v_obj, b->v_obj);
      break;
    case kTVMFFITensor:
      r = eq_tensor(c, a->v_obj, b->v_obj);
      break;
    default:
      r = eq_object(c, t, a->v_obj, b->v_obj);
      break;
  }
  c->depth--;
  return r;
}

/* Build a path from the root through steps[n-1] .. steps[0]. */
static void* build_path(const path_step* steps, int64_t n) {
  void* p = tvm_ffi_access_path_root();
  for (int64_t i = n - 1; p && i >= 0; --i) {
    void* q = tvm_ffi_access_path_extend(p, steps[i].kind, &steps[i].key);
    tvm_ffi_release(p);
    p = q;
  }
  return p;
}

static int structural_equal(const TVMFFIAny* lhs, const TVMFFIAny* rhs, bool map_free_vars,
                            bool skip_tensor_content, void** out_lhs_path, void** out_rhs_path) {
  tvm_ffi_init();
  if (out_lhs_path) *out_lhs_path = NULL;
  if (out_rhs_path) *out_rhs_path = NULL;
  if (!lhs || !rhs) return tvm_ffi_raise("ValueError", "tvm_ffi_structural_equal: NULL value");
  /* An object is equal to itself under any mapping of free variables: no walk (nor the maps
   * the walk sets up) for the common question "is it still the same expression". */
  if (tvm_ffi_any_is_object(lhs) && lhs->type_index == rhs->type_index &&
      lhs->v_obj == rhs->v_obj) {
    return 1;
  }
  eq_ctx c;
  memset(&c, 0, sizeof(c));
  c.region.map_free_vars = map_free_vars;
  c.skip_tensor_content = skip_tensor_content;
  c.trace = out_lhs_path || out_rhs_path;
  c.proven.owns_values = true;
  c.lhs2rhs.owns_values = true;
  c.rhs2lhs.owns_values = true;
  int r = eq_any(&c, lhs, rhs);
  if (r == 0 && c.trace) {
    void* lp = build_path(c.lsteps, c.nsteps);
    void* rp = lp ? build_path(c.rsteps, c.nsteps) : NULL;
    if (!rp) {
      tvm_ffi_release(lp);
      r = -1;
    } else {
      if (out_lhs_path)
        *out_lhs_path = lp;
      else
        tvm_ffi_release(lp);
      if (out_rhs_path)
        *out_rhs_path = rp;
      else
        tvm_ffi_release(rp);
    }
  }
  for (int64_t i = 0; i < c.nsteps; ++i) {
    tvm_ffi_any_release(&c.lsteps[i].key);
    tvm_ffi_any_release(&c.rsteps[i].key);
  }
  tvm_ffi_free(c.lsteps);
  tvm_ffi_free(c.rsteps);
  pm_free(&c.lhs2rhs);
  pm_free(&c.rhs2lhs);
  pm_free(&c.proven);
  return r;
}

int tvm_ffi_structural_equal(const TVMFFIAny* lhs, const TVMFFIAny* rhs, bool map_free_vars,
                             void** out_lhs_path, void** out_rhs_path) {
  return structural_equal(lhs, rhs, map_free_vars, false, out_lhs_path, out_rhs_path);
}

/* ---- Hashing ---------------------------------------------------------------------------- */
typedef struct {
  def_region region;
  bool skip_tensor_content;
  int32_t depth;
  uint32_t free_var_counter; /* definition order of variables */
  uint32_t dag_counter;      /* first-visit order of DAG nodes */
  ptrmap memo;               /* object -> hash, for objects hashed by kind */
} hash_ctx;


static inline uint64_t hcombine(uint64_t h, uint64_t v) {
  return tvm_ffi__mix64(h * 0x9e3779b97f4a7c15ull + v + 0x632be59bd9b4e019ull);
}

/* Streaming byte hash: the result depends on the byte sequence only, not on how it is split
 * into updates (tensor contents arrive in one range or element by element). */
typedef struct {
  uint64_t h;
  uint64_t total;
  unsigned char carry[8];
  int ncarry;
} bytes_hasher;

static void bh_word(bytes_hasher* s, const unsigned char* p) {
  uint64_t w;
  memcpy(&w, p, 8);
  s->h = (s->h ^ w) * 0x100000001b3ull;
  s->h ^= s->h >> 29;
}

static int bh_update(void* ctx, const unsigned char* p, size_t n, int64_t offset) {
  bytes_hasher* s = (bytes_hasher*)ctx;
  (void)offset;
  s->total += n;
  while (n && s->ncarry) {
    s->carry[s->ncarry++] = *p++;
    n--;
    if (s->ncarry == 8) {
      bh_word(s, s->carry);
      s->ncarry = 0;
    }
  }
  for (; n >= 8; p += 8, n -= 8) bh_word(s, p);
  while (n--) s->carry[s->ncarry++] = *p++;
  return 0;
}

static uint64_t bh_final(bytes_hasher* s) {
  uint64_t w = 0;
  memcpy(&w, s->carry, (size_t)s->ncarry);
  return hcombine(s->h ^ w, s->total);
}

static uint64_t hash_bytes(const char* data, size_t n) {
  bytes_hasher s = {0xcbf29ce484222325ull, 0, {0}, 0};
  bh_update(&s, (const unsigned char*)data, n, 0);
  return bh_final(&s);
}

static uint64_t type_key_hash(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  return info ? info->type_key_hash : (uint64_t)(uint32_t)type_index;
}

/* Hash of a value that does not depend on the traversal (strings, POD). */
static uint64_t hash_leaf(const TVMFFIAny* a) {
  int cls = str_class(a->type_index);
  if (cls) {
    TVMFFIByteArray s;
    tvm_ffi_any_as_bytes(a, &s);
    return hcombine(cls == CLASS_STR ? kTVMFFIStr : kTVMFFIBytes, hash_bytes(s.data, s.size));
  }
  uint64_t v;
  switch (a->type_index) {
    case kTVMFFINone:
      v = 0;
      break;
    case kTVMFFIFloat: {
      double d = a->v_float64;
      if (d != d) {
        v = 0x7ff8000000000000ull; /* every NaN hashes like the canonical quiet NaN */
      } else {
        v = a->v_uint64;
      }
      break;
    }
    case kTVMFFIDataType:
      v = (uint64_t)a->v_dtype.code | ((uint64_t)a->v_dtype.bits << 8) |
          ((uint64_t)a->v_dtype.lanes << 16);
      break;
    case kTVMFFIDevice:
      v = (uint64_t)(uint32_t)a->v_device.device_type |
          ((uint64_t)(uint32_t)a->v_device.device_id << 32);
      break;
    default:
      v = a->v_uint64;
      break;
  }
  return hcombine((uint64_t)(uint32_t)a->type_index, v);
}

static int hash_any(hash_ctx* c, const TVMFFIAny* a, uint64_t* out);

static int hash_seq(hash_ctx* c, int32_t t, const void* seq, uint64_t* out) {
  int64_t n = tvm_ffi_seq_size(seq);
  uint64_t h = hcombine(type_key_hash(t), (uint64_t)n);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t e;
    if (hash_any(c, tvm_ffi_seq_at(seq, i), &e) != 0) return -1;
    h = hcombine(h, e);
  }
  *out = h;
  return 0;
}

typedef struct {
  uint64_t key_hash;
  const TVMFFIAny* value;
} map_item;

static int cmp_items(const void* x, const void* y) {
  uint64_t a = ((const map_item*)x)->key_hash, b = ((const map_item*)y)->key_hash;
  return a < b ? -1 : a > b;
}

/* A map's hash must not depend on insertion order, so items are hashed in the order of their
 * key hashes, which must themselves be independent of the traversal: strings and POD keys by
 * value, variables and DAG nodes by the hash they already got (they are matched through the
 * variable mapping by equality). Other object keys match by identity, which has no stable
 * hash; they, and keys whose hashes tie, contribute no key hash or value hash (only the
 * size), which keeps equal maps hashing equal. */
static int hash_map(hash_ctx* c, int32_t t, const void* map, uint64_t* out) {
  int64_t n = tvm_ffi_map_size(map);
  uint64_t h = hcombine(type_key_hash(t), (uint64_t)n);
  if (n == 0) {
    *out = h;
    return 0;
  }
  map_item* items = (map_item*)tvm_ffi_malloc((size_t)n * sizeof(map_item));
  if (!items) return -1;
  int64_t m = 0;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(map, pos, &k, &v)) >= 0 && m < n;) {
    if (k->type_index < kTVMFFIStaticObjectBegin || str_class(k->type_index)) {
      items[m++] = (map_item){hash_leaf(k), v};
      continue;
    }
    int kind = seq_kind_of(k->type_index);
    pm_slot* s = pm_find(&c->memo, k->v_obj);
    if (s && (kind == kTVMFFISEqHashKindFreeVar || kind == kTVMFFISEqHashKindDAGNode)) {
      items[m++] = (map_item){s->value, v};
    }
  }
  qsort(items, (size_t)m, sizeof(map_item), cmp_items);
  int rc = 0;
  for (int64_t i = 0; i < m && rc == 0;) {
    int64_t j = i + 1;
    while (j < m && items[j].key_hash == items[i].key_hash) ++j;
    h = hcombine(h, items[i].key_hash);
    if (j == i + 1) {
      uint64_t vh;
      rc = hash_any(c, items[i].value, &vh);
      h = hcombine(h, vh);
    }
    i = j;
  }
  tvm_ffi_free(items);
  *out = h;
  return rc;
}

static int hash_tensor(hash_ctx* c, const void* tensor, uint64_t* out) {
  const DLTensor* x = tvm_ffi_tensor_dl(tensor);
  uint64_t h = hcombine(type_key_hash(kTVMFFITensor), (uint64_t)x->ndim);
  for (int i = 0; i < x->ndim; ++i) h = hcombine(h, (uint64_t)x->shape[i]);
  TVMFFIAny dt = tvm_ffi_any_dtype(x->dtype), dev = tvm_ffi_any_device(x->device);
  h = hcombine(hcombine(h, hash_leaf(&dt)), hash_leaf(&dev));
  if (!c->skip_tensor_content) {
    if (!host_readable(x->device) || !walkable(x)) {
      /* Equal only to views of the same memory (see eq_tensor); the strides are not hashed,
       * which is consistent since equal views have equal strides anyway. */
      h = hcombine(h, (uint64_t)(uintptr_t)x->data + x->byte_offset);
    } else {
      bytes_hasher s = {0xcbf29ce484222325ull, 0, {0}, 0};
      if (tensor_walk(x, bh_update, &s) != 0) return -1;
      h = hcombine(h, bh_final(&s));
    }
  }
  *out = h;
  return 0;
}

static int hash_object(hash_ctx* c, int32_t t, const void* obj, uint64_t* out) {
  int kind = seq_kind_of(t);
  if (kind != kTVMFFISEqHashKindTreeNode && kind != kTVMFFISEqHashKindConstTreeNode &&
      kind != kTVMFFISEqHashKindFreeVar && kind != kTVMFFISEqHashKindDAGNode) {
    *out = hcombine(type_key_hash(t), (uint64_t)(uintptr_t)obj); /* identity */
    return 0;
  }
  pm_slot* s = pm_find(&c->memo, obj);
  if (s) {
    *out = s->value;
    return 0;
  }
  uint64_t h = type_key_hash(t);
  const TVMFFIFieldInfo* const* fields;
  int32_t nf = tvm_ffi_type_all_fields(t, &fields);
  for (int32_t i = 0; i < nf; ++i) {
    const TVMFFIFieldInfo* f = fields[i];
    if (f->flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) continue;
    TVMFFIAny v;
    if (tvm_ffi_field_get(obj, f, &v) != 0) return -1;
    def_region saved = def_region_enter(&c->region, f->flags);
    uint64_t fh;
    int rc = hash_any(c, &v, &fh);
    c->region = saved;
    tvm_ffi_any_release(&v);
    if (rc != 0) return -1;
    h = hcombine(h, fh);
  }
  if (kind == kTVMFFISEqHashKindFreeVar) {
    h = c->region.map_free_vars ? hcombine(h, c->free_var_counter++)
                         : hcombine(type_key_hash(t), (uint64_t)(uintptr_t)obj);
  } else if (kind == kTVMFFISEqHashKindDAGNode) {
    h = hcombine(h, c->dag_counter++);
  }
  if (pm_put(&c->memo, obj, h) != 0) return -1;
  *out = h;
  return 0;
}

static int hash_any(hash_ctx* c, const TVMFFIAny* a, uint64_t* out) {
  TVMFFIAny tmp;
  a = deref(a, &tmp);
  int32_t t = a->type_index;
  if (t < kTVMFFIStaticObjectBegin || str_class(t)) {
    *out = hash_leaf(a);
    return 0;
  }
  if (++c->depth > TVM_FFI_STRUCTURAL_MAX_DEPTH) return too_deep("structural hash");
  int rc;
  switch (t) {
    case kTVMFFIArray:
    case kTVMFFIList:
      rc = hash_seq(c, t, a->v_obj, out);
      break;
    case kTVMFFIMap:
    case kTVMFFIDict:
      rc = hash_map(c, t, a->v_obj, out);
      break;
    case kTVMFFIShape: {
      int64_t n = tvm_ffi_shape_ndim(a->v_obj);
      const int64_t* d = tvm_ffi_shape_data(a->v_obj);
      uint64_t h = hcombine(type_key_hash(t), (uint64_t)n);
      for (int64_t i = 0; i < n; ++i) h = hcombine(h, (uint64_t)d[i]);
      *out = h;
      rc = 0;
      break;
    }
    case kTVMFFITensor:
      rc = hash_tensor(c, a->v_obj, out);
      break;
    default:
      rc = hash_object(c, t, a->v_obj, out);
      break;
  }
  c->depth--;
  return rc;
}

static int structural_hash(const TVMFFIAny* value, bool map_free_vars, bool skip_tensor_content,
                           uint64_t* out_hash) {
  tvm_ffi_init();
  *out_hash = 0;
  if (!value) return tvm_ffi_raise("ValueError", "tvm_ffi_structural_hash: NULL value");
  hash_ctx c;
  memset(&c, 0, sizeof(c));
  c.region.map_free_vars = map_free_vars;
  c.skip_tensor_content = skip_tensor_content;
  int rc = hash_any(&c, value, out_hash);
  pm_free(&c.memo);
  if (rc != 0) *out_hash = 0;
  return rc;
}

int tvm_ffi_structural_hash_checked(const TVMFFIAny* value, bool map_free_vars,
                                    uint64_t* out_hash) {
  return structural_hash(value, map_free_vars, false, out_hash);
}

uint64_t tvm_ffi_structural_hash(const TVMFFIAny* value, bool map_free_vars) {
  uint64_t h;
  structural_hash(value, map_free_vars, false, &h);
  return h;
}

/* ---- Globals ----------------------------------------------------------------------------- */
/* Optional trailing bool arguments (map_free_vars, skip_tensor_content) from index `first`. */
static bool opt_flags(const char* fname, const TVMFFIAny* args, int32_t n, int32_t first,
                      bool* map_free_vars, bool* skip_tensor_content) {
  *map_free_vars = *skip_tensor_content = false;
  if (n < first || n > first + 2) {
    tvm_ffi_raise("TypeError", "%s expects %d to %d arguments but got %d", fname, (int)first,
                  (int)first + 2, (int)n);
    return false;
  }
  if (n > first && !tvm_ffi_arg_bool(fname, args, first, map_free_vars)) return false;
  if (n > first + 1 && !tvm_ffi_arg_bool(fname, args, first + 1, skip_tensor_content)) return false;
  return true;
}

/* ffi.StructuralEqual(lhs, rhs, map_free_vars=False, skip_tensor_content=False) -> bool */
static int g_equal(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  bool mfv, skip;
  if (!opt_flags("ffi.StructuralEqual", args, n, 2, &mfv, &skip)) return -1;
  int r = structural_equal(&args[0], &args[1], mfv, skip, NULL, NULL);
  if (r < 0) return -1;
  *result = tvm_ffi_any_bool(r == 1);
  return 0;
}

/* ffi.StructuralHash(value, map_free_vars=False, skip_tensor_content=False) -> int (the
 * 64-bit hash reinterpreted as signed) */
static int g_hash(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  bool mfv, skip;
  if (!opt_flags("ffi.StructuralHash", args, n, 1, &mfv, &skip)) return -1;
  uint64_t v;
  if (structural_hash(&args[0], mfv, skip, &v) != 0) return -1;
  *result = tvm_ffi_any_int((int64_t)v);
  return 0;
}

/* ffi.GetFirstStructuralMismatch(lhs, rhs, map_free_vars=False, skip_tensor_content=False)
 *   -> [lhs_path, rhs_path], or None when equal */
static int g_mismatch(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  bool mfv, skip;
  if (!opt_flags("ffi.GetFirstStructuralMismatch", args, n, 2, &mfv, &skip)) return -1;
  void *lp = NULL, *rp = NULL;
  int r = structural_equal(&args[0], &args[1], mfv, skip, &lp, &rp);
  if (r < 0) return -1;
  if (r == 1) return 0; /* result stays None */
  void* paths[2] = {lp, rp};
  void* arr = tvm_ffi_array_of_objects(paths, 2);
  tvm_ffi_release(lp);
  tvm_ffi_release(rp);
  return tvm_ffi__ret_obj(result, arr);
}

void tvm_ffi__init_structural(void) {
  tvm_ffi__register_global("ffi.StructuralEqual", g_equal);
  tvm_ffi__register_global("ffi.StructuralHash", g_hash);
  tvm_ffi__register_global("ffi.GetFirstStructuralMismatch", g_mismatch);
}

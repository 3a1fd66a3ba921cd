/*
 * struct_info.c: struct info constructors and queries, and the relations between struct infos
 * (base check, least common ancestor, erasure, substitution, call-site unification).
 */
#include <string.h>

#include "internal.h"

/* ---- Dims ------------------------------------------------------------------------------------ */
tvm_tir_expr_obj* tvm_relax__int64(int64_t v) { return tvm_tir_const_int(TVM_TIR_INT64, v); }

/* One dim as an int64 PrimExpr (new reference): an int, or an integer PrimExpr (cast to int64). */
static tvm_tir_expr_obj* dim_of(const TVMFFIAny* a, const char* what, int64_t i) {
  int64_t v;
  if (a->type_index == kTVMFFIInt || a->type_index == kTVMFFIBool) {
    tvm_ffi_any_as_int(a, &v);
    return tvm_relax__int64(v);
  }
  void* obj = tvm_ffi_any_is_object(a) ? a->v_obj : NULL;
  if (obj && tvm_tir_is_expr(obj)) {
    DLDataType t = tvm_tir_expr_dtype(obj);
    if ((t.code == kDLInt || t.code == kDLUInt) && t.lanes == 1) {
      if (t.code == kDLInt && t.bits == 64) {
        tvm_ffi_retain(obj);
        return obj;
      }
      return tvm_tir_cast(TVM_TIR_INT64, obj);
    }
  }
  tvm_ffi_raise("TypeError", "%s: dim %lld must be an integer or an integer PrimExpr, got %s", what,
                (long long)i, tvm_ffi_any_type_name(a));
  return NULL;
}

/* values (ffi.Array of ints / integer PrimExprs) as a new ffi.Array of int64 PrimExprs; the
 * array itself when it already is one. */
static void* dims_of(void* values, const char* what) {
  if (!values) return tvm_relax__empty_array();
  if (tvm_ffi_type_index(values) != kTVMFFIArray) {
    tvm_ffi_raise("TypeError", "%s: values must be an ffi.Array", what);
    return NULL;
  }
  int64_t n = tvm_ffi_seq_size(values);
  bool ready = true;
  for (int64_t i = 0; i < n && ready; ++i) {
    const TVMFFIAny* a = tvm_ffi_seq_at(values, i);
    void* obj = tvm_ffi_any_is_object(a) ? a->v_obj : NULL;
    ready = obj && tvm_tir_is_expr(obj) &&
            tvm_ffi_dtype_equal(tvm_tir_expr_dtype(obj), TVM_TIR_INT64);
  }
  if (ready) {
    tvm_ffi_retain(values);
    return values;
  }
  TVMFFIAny* items = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
  if (!items) return NULL;
  void* out = NULL;
  int64_t i = 0;
  for (; i < n; ++i) {
    tvm_tir_expr_obj* d = dim_of(tvm_ffi_seq_at(values, i), what, i);
    if (!d) break;
    items[i] = tvm_ffi_any_obj(d); /* owned: moved into the array */
  }
  if (i == n) out = tvm_ffi_array_new_take(items, n);
  if (!out) {
    for (int64_t j = 0; j < i; ++j) tvm_ffi_any_release(&items[j]);
  }
  tvm_ffi_free(items);
  return out;
}

/* ---- Constructors ---------------------------------------------------------------------------- */
#define NEW_SINFO(T, KIND) ((T*)tvm_relax__new(TVM_RELAX_KIND_##KIND, sizeof(T)))

tvm_relax_sinfo_obj* tvm_relax_object_sinfo_new(void) {
  return NEW_SINFO(tvm_relax_sinfo_obj, ObjectStructInfo);
}

tvm_relax_sinfo_obj* tvm_relax_prim_sinfo_new(DLDataType dtype, tvm_tir_expr_obj* value) {
  if (value) {
    if (!tvm_tir_is_expr(value)) {
      tvm_ffi_raise("TypeError", "R.Prim: value must be a PrimExpr");
      return NULL;
    }
    DLDataType vt = tvm_tir_expr_dtype(value);
    if (vt.lanes != 1) {
      tvm_ffi_raise("TypeError", "R.Prim: value must be a scalar");
      return NULL;
    }
    if (tvm_relax_dtype_is_unknown(dtype)) dtype = vt;
    if (!tvm_ffi_dtype_equal(vt, dtype)) {
      tvm_ffi_raise("TypeError", "R.Prim: value of dtype %s given for dtype %s",
                    tvm_tir_dtype_str(vt).s, tvm_tir_dtype_str(dtype).s);
      return NULL;
    }
  }
  tvm_relax_prim_sinfo_obj* s = NEW_SINFO(tvm_relax_prim_sinfo_obj, PrimStructInfo);
  if (!s) return NULL;
  s->dtype = dtype;
  if (value) tvm_ffi_retain(value);
  s->value = value;
  return &s->base;
}

tvm_relax_sinfo_obj* tvm_relax_shape_sinfo_new(void* values, int32_t ndim) {
  void* dims = NULL;
  if (values) {
    dims = dims_of(values, "R.Shape");
    if (!dims) return NULL;
    int64_t n = tvm_ffi_seq_size(dims);
    if (ndim != TVM_RELAX_UNKNOWN_NDIM && ndim != n) {
      tvm_ffi_release(dims);
      tvm_ffi_raise("ValueError", "R.Shape: ndim %d does not match the %lld values", ndim,
                    (long long)n);
      return NULL;
    }
    ndim = (int32_t)n;
  } else if (ndim < TVM_RELAX_UNKNOWN_NDIM) {
    tvm_ffi_raise("ValueError", "R.Shape: ndim must be -1 (unknown) or non-negative, got %d", ndim);
    return NULL;
  }
  tvm_relax_shape_sinfo_obj* s = NEW_SINFO(tvm_relax_shape_sinfo_obj, ShapeStructInfo);
  if (!s) {
    tvm_ffi_release(dims);
    return NULL;
  }
  s->values = dims;
  s->ndim = ndim;
  return &s->base;
}

tvm_relax_sinfo_obj* tvm_relax_tensor_sinfo_new(void* shape, DLDataType dtype, int32_t ndim,
                                                void* vdevice) {
  if (shape) {
    int32_t shape_ndim;
    tvm_relax_kind k = tvm_relax_kind_of(shape);
    if (k == TVM_RELAX_KIND_ShapeExpr) {
      shape_ndim = (int32_t)tvm_ffi_seq_size(((tvm_relax_shape_expr_obj*)shape)->values);
    } else if (tvm_relax_is_var(shape) &&
               tvm_relax_kind_of(tvm_relax_sinfo_of(shape)) == TVM_RELAX_KIND_ShapeStructInfo) {
      shape_ndim = ((tvm_relax_shape_sinfo_obj*)tvm_relax_sinfo_of(shape))->ndim;
    } else {
      tvm_ffi_raise("TypeError", "R.Tensor: shape must be a ShapeExpr or a Var of R.Shape");
      return NULL;
    }
    if (ndim != TVM_RELAX_UNKNOWN_NDIM && shape_ndim != TVM_RELAX_UNKNOWN_NDIM &&
        ndim != shape_ndim) {
      tvm_ffi_raise("ValueError", "R.Tensor: ndim %d does not match the shape's %d", ndim,
                    shape_ndim);
      return NULL;
    }
    if (shape_ndim != TVM_RELAX_UNKNOWN_NDIM) ndim = shape_ndim;
  }
  if (ndim < TVM_RELAX_UNKNOWN_NDIM) {
    tvm_ffi_raise("ValueError", "R.Tensor: ndim must be -1 (unknown) or non-negative, got %d", ndim);
    return NULL;
  }
  if (vdevice && !tvm_tir_is(vdevice, TVM_TIR_KIND_VDevice)) {
    tvm_ffi_raise("TypeError", "R.Tensor: vdevice must be an ir.VDevice");
    return NULL;
  }
  tvm_relax_tensor_sinfo_obj* s = NEW_SINFO(tvm_relax_tensor_sinfo_obj, TensorStructInfo);
  if (!s) return NULL;
  if (shape) tvm_ffi_retain(shape);
  if (vdevice) tvm_ffi_retain(vdevice);
  s->shape = shape;
  s->dtype = dtype;
  s->ndim = ndim;
  s->vdevice = vdevice;
  return &s->base;
}

tvm_relax_sinfo_obj* tvm_relax_tensor_sinfo_of_dims(void* dims, DLDataType dtype) {
  tvm_relax_expr_obj* shape = tvm_relax_shape_expr_new(dims);
  if (!shape) return NULL;
  tvm_relax_sinfo_obj* s = tvm_relax_tensor_sinfo_new(shape, dtype, TVM_RELAX_UNKNOWN_NDIM, NULL);
  tvm_ffi_release(shape);
  return s;
}

tvm_relax_sinfo_obj* tvm_relax_tensor_sinfo_of_ints(const int64_t* dims, int32_t ndim,
                                                    DLDataType dtype) {
  tvm_relax_expr_obj* shape = tvm_relax_shape_expr_of_ints(dims, ndim);
  if (!shape) return NULL;
  tvm_relax_sinfo_obj* s = tvm_relax_tensor_sinfo_new(shape, dtype, TVM_RELAX_UNKNOWN_NDIM, NULL);
  tvm_ffi_release(shape);
  return s;
}

static bool all_sinfo(void* arr) {
  int64_t n = tvm_ffi_seq_size(arr);
  for (int64_t i = 0; i < n; ++i) {
    if (!tvm_relax_is_sinfo(tvm_ffi_seq_obj_at(arr, i))) return false;
  }
  return true;
}

tvm_relax_sinfo_obj* tvm_relax_tuple_sinfo_new(void* fields) {
  if (fields && (tvm_ffi_type_index(fields) != kTVMFFIArray || !all_sinfo(fields))) {
    tvm_ffi_raise("TypeError", "R.Tuple: fields must be an ffi.Array of struct info");
    return NULL;
  }
  tvm_relax_tuple_sinfo_obj* s = NEW_SINFO(tvm_relax_tuple_sinfo_obj, TupleStructInfo);
  if (!s) return NULL;
  if (fields) tvm_ffi_retain(fields);
  s->fields = fields ? fields : tvm_relax__empty_array();
  return &s->base;
}

tvm_relax_sinfo_obj* tvm_relax_void_sinfo(void) { return tvm_relax_tuple_sinfo_new(NULL); }

tvm_relax_sinfo_obj* tvm_relax_func_sinfo_new(void* params, tvm_relax_sinfo_obj* ret, bool purity) {
  if (params && (tvm_ffi_type_index(params) != kTVMFFIArray || !all_sinfo(params))) {
    tvm_ffi_raise("TypeError", "R.Callable: params must be an ffi.Array of struct info");
    return NULL;
  }
  if (ret && !tvm_relax_is_sinfo(ret)) {
    tvm_ffi_raise("TypeError", "R.Callable: ret must be a struct info");
    return NULL;
  }
  tvm_relax_func_sinfo_obj* s = NEW_SINFO(tvm_relax_func_sinfo_obj, FuncStructInfo);
  if (!s) return NULL;
  if (params) tvm_ffi_retain(params);
  s->params = params;
  if (ret) {
    tvm_ffi_retain(ret);
    s->ret = ret;
  } else if (!(s->ret = tvm_relax_object_sinfo_new())) {
    tvm_ffi_release(s);
    return NULL;
  }
  s->purity = purity;
  return &s->base;
}

/* The derivation rules R.Callable(derive_func=...) may name: each computes a call's struct info
 * from its arguments, as upstream's EnvFunc of that name does. */
typedef struct {
  const char* name;
  tvm_relax_op_id op; /* the operator whose inference rule the call's arguments go through */
} derive_rule;
static const derive_rule kDeriveRules[] = {
    {"tvm.relax.type.infer_view_ty", TVM_RELAX_OP_memory_view},
    {"tvm.relax.struct_info.infer_view_sinfo", TVM_RELAX_OP_memory_view},
};

static const derive_rule* derive_rule_of(const char* name, size_t len) {
  for (size_t i = 0; i < sizeof(kDeriveRules) / sizeof(kDeriveRules[0]); ++i) {
    if (strlen(kDeriveRules[i].name) == len && memcmp(kDeriveRules[i].name, name, len) == 0) {
      return &kDeriveRules[i];
    }
  }
  return NULL;
}

tvm_relax_sinfo_obj* tvm_relax_func_sinfo_derived(const char* derive_func, bool purity) {
  if (!derive_func || !derive_rule_of(derive_func, strlen(derive_func))) {
    tvm_ffi_raise("ValueError",
                  "R.Callable: unknown derive_func \"%s\" (known: \"%s\", \"%s\")",
                  derive_func ? derive_func : "", kDeriveRules[0].name, kDeriveRules[1].name);
    return NULL;
  }
  void* name = tvm_relax__str(derive_func);
  tvm_relax_sinfo_obj* s = name ? tvm_relax_func_sinfo_new(NULL, NULL, purity) : NULL;
  if (s) {
    ((tvm_relax_func_sinfo_obj*)s)->derive_func = name;
  } else {
    tvm_ffi_release(name);
  }
  return s;
}

tvm_relax_sinfo_obj* tvm_relax__derive_call_sinfo(const tvm_relax_func_sinfo_obj* f, void* args) {
  TVMFFIByteArray name;
  TVMFFIAny any = tvm_ffi_any_obj(f->derive_func);
  const derive_rule* rule = tvm_ffi_any_as_bytes(&any, &name) ? derive_rule_of(name.data, name.size)
                                                                : NULL;
  if (!rule) {
    tvm_ffi_raise("ValueError", "a call's callee names an unknown derive_func");
    return NULL;
  }
  tvm_relax_expr_obj* call = tvm_relax_call_new(tvm_relax_op(rule->op), args, NULL, NULL, NULL);
  tvm_relax_sinfo_obj* s = call ? tvm_relax_sinfo_of(call) : NULL;
  if (s) tvm_ffi_retain(s);
  tvm_ffi_release(call);
  return s;
}

/* ---- Queries --------------------------------------------------------------------------------- */
void* tvm_relax_shape_sinfo_dims(const tvm_relax_sinfo_obj* sinfo) {
  if (tvm_relax_kind_of(sinfo) != TVM_RELAX_KIND_ShapeStructInfo) return NULL;
  return ((const tvm_relax_shape_sinfo_obj*)sinfo)->values;
}

void* tvm_relax_tensor_sinfo_dims(const tvm_relax_sinfo_obj* sinfo) {
  if (tvm_relax_kind_of(sinfo) != TVM_RELAX_KIND_TensorStructInfo) return NULL;
  const tvm_relax_expr_obj* shape = ((const tvm_relax_tensor_sinfo_obj*)sinfo)->shape;
  if (!shape) return NULL;
  if (tvm_relax_kind_of(shape) == TVM_RELAX_KIND_ShapeExpr) {
    return ((const tvm_relax_shape_expr_obj*)shape)->values;
  }
  return tvm_relax_shape_sinfo_dims(tvm_relax_sinfo_of(shape));
}

/* ---- Dim comparison -------------------------------------------------------------------------- */
/* Whether a is a leaf the prover knows nothing about: a plain tir.Var (not a SizeVar, which it
 * knows non-negative) or an integer constant. Two different such leaves, not both constants,
 * are neither provably equal nor provably unequal (the prover is asked without context), so
 * the dim comparisons below decide them without building and simplifying `a == b`. */
static bool opaque_leaf(const tvm_tir_expr_obj* a) {
  tvm_tir_kind k = tvm_tir_kind_of(a);
  return k == TVM_TIR_KIND_Var || k == TVM_TIR_KIND_IntImm;
}

static bool dim_same(const tvm_tir_expr_obj* a, const tvm_tir_expr_obj* b, int depth) {
  if (a == b) return true;
  tvm_tir_kind k = tvm_tir_kind_of(a);
  if (k != tvm_tir_kind_of(b) || !tvm_tir_dtype_equal(a->dtype, b->dtype)) return false;
  switch (k) {
    case TVM_TIR_KIND_IntImm:
      return ((const tvm_tir_int_imm_obj*)a)->value == ((const tvm_tir_int_imm_obj*)b)->value;
    case TVM_TIR_KIND_Var:
    case TVM_TIR_KIND_SizeVar:
      return false; /* (different free variables) */
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) case TVM_TIR_KIND_##Name:
#include <tvm/tir/nodes.def>
      if (depth < 64) {
        const tvm_tir_binary_obj *x = (const void*)a, *y = (const void*)b;
        return dim_same(x->a, y->a, depth + 1) && dim_same(x->b, y->b, depth + 1);
      }
      break;
    default:
      break;
  }
  TVMFFIAny la = tvm_ffi_any_obj((void*)a), lb = tvm_ffi_any_obj((void*)b);
  return tvm_ffi_structural_equal(&la, &lb, false, NULL, NULL) == 1;
}

bool tvm_relax__obj_equal(const void* a, const void* b) {
  if (a == b) return true;
  TVMFFIAny x = tvm_ffi_any_obj((void*)a), y = tvm_ffi_any_obj((void*)b);
  return tvm_ffi_structural_equal(&x, &y, false, NULL, NULL) == 1;
}

bool tvm_relax__dim_same(const tvm_tir_expr_obj* a, const tvm_tir_expr_obj* b) {
  return dim_same(a, b, 0);
}

bool tvm_relax__dim_equal(const tvm_tir_expr_obj* a, const tvm_tir_expr_obj* b) {
  if (a == b) return true;
  int64_t x, y;
  bool ca = tvm_tir_as_const_int(a, &x), cb = tvm_tir_as_const_int(b, &y);
  if (ca && cb) return x == y;
  if (opaque_leaf(a) && opaque_leaf(b)) return false; /* (different Vars, or a Var and a constant) */
  if (dim_same(a, b, 0)) return true;
  tvm_tir_expr_obj* eq = tvm_tir_eq((tvm_tir_expr_obj*)a, (tvm_tir_expr_obj*)b);
  if (!eq) {
    tvm_ffi_error_clear();
    return false;
  }
  int r = tvm_tir_prove(eq, NULL);
  tvm_ffi_release(eq);
  if (r < 0) tvm_ffi_error_clear();
  return r == 1;
}

bool tvm_relax__dim_unequal(const tvm_tir_expr_obj* a, const tvm_tir_expr_obj* b) {
  int64_t x, y;
  bool ca = tvm_tir_as_const_int(a, &x), cb = tvm_tir_as_const_int(b, &y);
  if (ca && cb) return x != y;
  if (a == b) return false;
  if (opaque_leaf(a) && opaque_leaf(b)) return false;
  tvm_tir_expr_obj* ne = tvm_tir_ne((tvm_tir_expr_obj*)a, (tvm_tir_expr_obj*)b);
  if (!ne) {
    tvm_ffi_error_clear();
    return false;
  }
  int r = tvm_tir_prove(ne, NULL);
  tvm_ffi_release(ne);
  if (r < 0) tvm_ffi_error_clear();
  return r == 1;
}

/* ---- Base check ------------------------------------------------------------------------------ */
typedef tvm_relax_base_check check_t;
#define MIN_CHECK(a, b) ((a) < (b) ? (a) : (b))

static check_t check_dtype(DLDataType base, DLDataType derived) {
  if (tvm_relax_dtype_is_unknown(base)) return TVM_RELAX_BASE_CHECK_PASS;
  if (tvm_relax_dtype_is_unknown(derived)) return TVM_RELAX_BASE_CHECK_STATIC;
  return tvm_ffi_dtype_equal(base, derived) ? TVM_RELAX_BASE_CHECK_PASS : TVM_RELAX_BASE_CHECK_FAIL;
}

static check_t check_ndim(int32_t base, int32_t derived) {
  if (base == TVM_RELAX_UNKNOWN_NDIM) return TVM_RELAX_BASE_CHECK_PASS;
  if (derived == TVM_RELAX_UNKNOWN_NDIM) return TVM_RELAX_BASE_CHECK_STATIC;
  return base == derived ? TVM_RELAX_BASE_CHECK_PASS : TVM_RELAX_BASE_CHECK_FAIL;
}

static check_t check_dims(void* base, void* derived) {
  if (!base) return TVM_RELAX_BASE_CHECK_PASS;
  if (!derived) return TVM_RELAX_BASE_CHECK_RUNTIME;
  int64_t n = tvm_ffi_seq_size(base);
  if (n != tvm_ffi_seq_size(derived)) return TVM_RELAX_BASE_CHECK_FAIL;
  check_t r = TVM_RELAX_BASE_CHECK_PASS;
  for (int64_t i = 0; i < n; ++i) {
    tvm_tir_expr_obj* a = tvm_ffi_seq_obj_at(base, i);
    tvm_tir_expr_obj* b = tvm_ffi_seq_obj_at(derived, i);
    if (a == b) continue;
    /* (structurally equal dims, `n * 2` written twice, first: no proof asked) */
    if (dim_same(a, b, 0)) continue;
    /* Equal first: the usual case (a correct annotation) then costs one proof, not two. */
    if (tvm_relax__dim_equal(a, b)) continue;
    if (tvm_relax__dim_unequal(a, b)) return TVM_RELAX_BASE_CHECK_FAIL;
    r = TVM_RELAX_BASE_CHECK_RUNTIME;
  }
  return r;
}

static check_t check_value(const tvm_tir_expr_obj* base, const tvm_tir_expr_obj* derived) {
  if (!base) return TVM_RELAX_BASE_CHECK_PASS;
  if (!derived) return TVM_RELAX_BASE_CHECK_RUNTIME;
  /* As check_dims: the same value (`n * 2` written twice) needs no proof. */
  if (dim_same(base, derived, 0)) return TVM_RELAX_BASE_CHECK_PASS;
  return tvm_relax__dim_unequal(base, derived) ? TVM_RELAX_BASE_CHECK_FAIL
                                               : TVM_RELAX_BASE_CHECK_RUNTIME;
}

check_t tvm_relax_sinfo_base_check(const tvm_relax_sinfo_obj* base,
                                   const tvm_relax_sinfo_obj* derived) {
  if (!base || !derived) return TVM_RELAX_BASE_CHECK_FAIL;
  if (base == derived) return TVM_RELAX_BASE_CHECK_PASS;
  tvm_relax_kind kb = tvm_relax_kind_of(base), kd = tvm_relax_kind_of(derived);
  if (kb == TVM_RELAX_KIND_ObjectStructInfo) return TVM_RELAX_BASE_CHECK_PASS;
  if (kd == TVM_RELAX_KIND_ObjectStructInfo) return TVM_RELAX_BASE_CHECK_STATIC;
  if (kb != kd) return TVM_RELAX_BASE_CHECK_FAIL;
  switch (kb) {
    case TVM_RELAX_KIND_PrimStructInfo: {
      const tvm_relax_prim_sinfo_obj *b = (const void*)base, *d = (const void*)derived;
      return MIN_CHECK(check_dtype(b->dtype, d->dtype), check_value(b->value, d->value));
    }
    case TVM_RELAX_KIND_ShapeStructInfo: {
      const tvm_relax_shape_sinfo_obj *b = (const void*)base, *d = (const void*)derived;
      return MIN_CHECK(check_ndim(b->ndim, d->ndim), check_dims(b->values, d->values));
    }
    case TVM_RELAX_KIND_TensorStructInfo: {
      const tvm_relax_tensor_sinfo_obj *b = (const void*)base, *d = (const void*)derived;
      check_t r = MIN_CHECK(check_dtype(b->dtype, d->dtype), check_ndim(b->ndim, d->ndim));
      if (b->vdevice && d->vdevice) {
        if (!tvm_relax__obj_equal(b->vdevice, d->vdevice)) return TVM_RELAX_BASE_CHECK_FAIL;
      } else if (b->vdevice) {
        r = MIN_CHECK(r, TVM_RELAX_BASE_CHECK_STATIC);
      }
      if (!b->shape || b->shape == d->shape) return r;
      return MIN_CHECK(r, check_dims(tvm_relax_tensor_sinfo_dims(base),
                                     tvm_relax_tensor_sinfo_dims(derived)));
    }
    case TVM_RELAX_KIND_DTensorStructInfo: {
      /* as upstream: the same mesh and placement, and the tensors' check */
      const tvm_relax_dtensor_sinfo_obj *b = (const void*)base, *d = (const void*)derived;
      if (!tvm_relax__obj_equal(b->device_mesh, d->device_mesh) ||
          !tvm_relax__obj_equal(b->placement, d->placement)) {
        return TVM_RELAX_BASE_CHECK_FAIL;
      }
      return tvm_relax_sinfo_base_check(b->tensor_sinfo, d->tensor_sinfo);
    }
    case TVM_RELAX_KIND_TupleStructInfo: {
      const tvm_relax_tuple_sinfo_obj *b = (const void*)base, *d = (const void*)derived;
      int64_t n = tvm_ffi_seq_size(b->fields);
      if (n != tvm_ffi_seq_size(d->fields)) return TVM_RELAX_BASE_CHECK_FAIL;
      check_t r = TVM_RELAX_BASE_CHECK_PASS;
      for (int64_t i = 0; i < n && r != TVM_RELAX_BASE_CHECK_FAIL; ++i) {
        r = MIN_CHECK(r, tvm_relax_sinfo_base_check(tvm_ffi_seq_obj_at(b->fields, i),
                                                    tvm_ffi_seq_obj_at(d->fields, i)));
      }
      return r;
    }
    case TVM_RELAX_KIND_FuncStructInfo: {
      const tvm_relax_func_sinfo_obj *b = (const void*)base, *d = (const void*)derived;
      if (b->purity && !d->purity) return TVM_RELAX_BASE_CHECK_FAIL;
      /* a derivation rule is part of the type: another rule (or none) is another function */
      if (b->derive_func && !(d->derive_func && tvm_relax__obj_equal(b->derive_func,
                                                                     d->derive_func))) {
        return TVM_RELAX_BASE_CHECK_FAIL;
      }
      check_t r = tvm_relax_sinfo_base_check(b->ret, d->ret);
      if (!b->params) return r;
      if (!d->params) return MIN_CHECK(r, TVM_RELAX_BASE_CHECK_STATIC);
      int64_t n = tvm_ffi_seq_size(b->params);
      if (n != tvm_ffi_seq_size(d->params)) return TVM_RELAX_BASE_CHECK_FAIL;
      for (int64_t i = 0; i < n && r != TVM_RELAX_BASE_CHECK_FAIL; ++i) {
        /* Parameters are contravariant: the derived function must accept the base's. */
        r = MIN_CHECK(r, tvm_relax_sinfo_base_check(tvm_ffi_seq_obj_at(d->params, i),
                                                    tvm_ffi_seq_obj_at(b->params, i)));
      }
      return r;
    }
    default:
      return TVM_RELAX_BASE_CHECK_FAIL;
  }
}

/* ---- LCA ------------------------------------------------------------------------------------- */
static bool dims_same(void* a, void* b) {
  if (a == b) return true;
  if (!a || !b || tvm_ffi_seq_size(a) != tvm_ffi_seq_size(b)) return false;
  for (int64_t i = 0; i < tvm_ffi_seq_size(a); ++i) {
    if (!tvm_relax__dim_equal(tvm_ffi_seq_obj_at(a, i), tvm_ffi_seq_obj_at(b, i))) return false;
  }
  return true;
}

tvm_relax_sinfo_obj* tvm_relax_sinfo_lca(const tvm_relax_sinfo_obj* a, const tvm_relax_sinfo_obj* b) {
  if (tvm_relax_sinfo_is_base_of(a, b)) return retained_sinfo(a);
  if (tvm_relax_sinfo_is_base_of(b, a)) return retained_sinfo(b);
  tvm_relax_kind ka = tvm_relax_kind_of(a);
  if (ka != tvm_relax_kind_of(b)) return tvm_relax_object_sinfo_new();
  switch (ka) {
    case TVM_RELAX_KIND_PrimStructInfo: {
      const tvm_relax_prim_sinfo_obj *x = (const void*)a, *y = (const void*)b;
      bool same = tvm_ffi_dtype_equal(x->dtype, y->dtype);
      return tvm_relax_prim_sinfo_new(same ? x->dtype : TVM_RELAX_DTYPE_UNKNOWN, NULL);
    }
    case TVM_RELAX_KIND_ShapeStructInfo: {
      const tvm_relax_shape_sinfo_obj *x = (const void*)a, *y = (const void*)b;
      return tvm_relax_shape_sinfo_new(NULL, x->ndim == y->ndim ? x->ndim : TVM_RELAX_UNKNOWN_NDIM);
    }
    case TVM_RELAX_KIND_TensorStructInfo: {
      const tvm_relax_tensor_sinfo_obj *x = (const void*)a, *y = (const void*)b;
      DLDataType t = tvm_ffi_dtype_equal(x->dtype, y->dtype) ? x->dtype : TVM_RELAX_DTYPE_UNKNOWN;
      int32_t ndim = x->ndim == y->ndim ? x->ndim : TVM_RELAX_UNKNOWN_NDIM;
      void* dims = tvm_relax_tensor_sinfo_dims(a);
      bool same = dims_same(dims, tvm_relax_tensor_sinfo_dims(b));
      void* vdev = x->vdevice == y->vdevice ? x->vdevice : NULL;
      return same ? tvm_relax__tensor_result(dims, t, ndim, vdev)
                  : tvm_relax_tensor_sinfo_new(NULL, t, ndim, vdev);
    }
    case TVM_RELAX_KIND_DTensorStructInfo: {
      /* the same layout: the tensors' LCA on it; else only an object is common */
      const tvm_relax_dtensor_sinfo_obj *x = (const void*)a, *y = (const void*)b;
      if (!tvm_relax__obj_equal(x->device_mesh, y->device_mesh) ||
          !tvm_relax__obj_equal(x->placement, y->placement)) {
        return tvm_relax_object_sinfo_new();
      }
      tvm_relax_sinfo_obj* t = tvm_relax_sinfo_lca(x->tensor_sinfo, y->tensor_sinfo);
      if (!t) return NULL;
      tvm_relax_sinfo_obj* s = tvm_relax_kind_of(t) == TVM_RELAX_KIND_TensorStructInfo
                                   ? tvm_relax_dtensor_sinfo_new(t, x->device_mesh, x->placement)
                                   : tvm_relax_object_sinfo_new();
      tvm_ffi_release(t);
      return s;
    }
    case TVM_RELAX_KIND_TupleStructInfo: {
      const tvm_relax_tuple_sinfo_obj *x = (const void*)a, *y = (const void*)b;
      int64_t n = tvm_ffi_seq_size(x->fields);
      if (n != tvm_ffi_seq_size(y->fields)) return tvm_relax_object_sinfo_new();
      void* list = tvm_ffi_list_new();
      if (!list) return NULL;
      for (int64_t i = 0; i < n; ++i) {
        tvm_relax_sinfo_obj* f =
            tvm_relax_sinfo_lca(tvm_ffi_seq_obj_at(x->fields, i), tvm_ffi_seq_obj_at(y->fields, i));
        TVMFFIAny item = tvm_ffi_any_obj(f);
        if (!f || tvm_ffi_list_push_take(list, &item) != 0) {
          tvm_ffi_release(f);
          tvm_ffi_release(list);
          return NULL;
        }
      }
      void* arr = tvm_ffi_list_to_array(list);
      tvm_ffi_release(list);
      if (!arr) return NULL;
      tvm_relax_sinfo_obj* s = tvm_relax_tuple_sinfo_new(arr);
      tvm_ffi_release(arr);
      return s;
    }
    case TVM_RELAX_KIND_FuncStructInfo: {
      const tvm_relax_func_sinfo_obj *x = (const void*)a, *y = (const void*)b;
      tvm_relax_sinfo_obj* ret = tvm_relax_sinfo_lca(x->ret, y->ret);
      if (!ret) return NULL;
      tvm_relax_sinfo_obj* s = tvm_relax_func_sinfo_new(NULL, ret, x->purity && y->purity);
      tvm_ffi_release(ret);
      /* the same rule on both sides stays */
      if (s && x->derive_func && y->derive_func && tvm_relax__obj_equal(x->derive_func,
                                                                        y->derive_func)) {
        tvm_ffi_retain(x->derive_func);
        ((tvm_relax_func_sinfo_obj*)s)->derive_func = x->derive_func;
      }
      return s;
    }
    default:
      return tvm_relax_object_sinfo_new();
  }
}

/*
 * parse_relax_builtins_sinfo.c: the struct info of TVMScript's Relax annotations, the inverse of
 * printer_relax.c's struct info converter, and the frame and statement builtins of `R.*`:
 *
 *   R.Tensor(shape=None, dtype=None, vdevice=None, ndim=-1)   (also R.Tensor("float32", ndim=2))
 *       shape: a tuple / list of dims (ints, PrimExprs such as `n` after `n = T.int64()`, or
 *       strings: "n" names the function's symbolic variable n, one tir.Var per name and function,
 *       tvm_script_relax_sym_var), a Relax shape value (R.shape(...), a Var of R.Shape), or None;
 *   R.Tuple(*fields) / R.Tuple([fields]), R.Shape(values=None, ndim=-1),
 *   R.Prim(dtype=None, value=None) (value an int, a PrimExpr or a symbolic name),
 *   R.Object, R.Any (both the top struct info: librelax has no separate Any),
 *   R.Callable(params=None, ret=None, purity=None, derive_func=None)  (params None: any
 *       arguments; purity None: pure with params, impure without, as upstream; derive_func: the
 *       name of a rule typing an opaque function's calls, tvm_relax_func_sinfo_derived);
 *   written without a call, R.Tensor / R.Shape / R.Tuple / R.Object / R.Any are the unknown forms;
 *   R.dataflow()  (a `with` item: the dataflow frame), R.output(*vars) (ends the block and
 *   evaluates to the ffi.Array of the Vars that replace the outputs after it: the statement
 *   handler rebinds their names to them), R.func_attr({...}).
 */
#include <stdio.h>
#include <string.h>

#include "script_relax_internal.h"

/* ---- Argument helpers ------------------------------------------------------------------------ */
static int bind(tvm_script_call* call, const char* spec, TVMFFIAny* out, int n) {
  return tvm_script__bind_args(call, spec, out, n);
}

static bool present(const TVMFFIAny* v) {
  return tvm_script_arg_given(v) && !tvm_ffi_any_is_none(v);
}

static const void* seq_of(const TVMFFIAny* v) {
  const void* s = tvm_ffi_any_as_object(v, kTVMFFIArray);
  return s ? s : tvm_ffi_any_as_object(v, kTVMFFIList);
}

/* Point error_arg at parameter i of spec and return -1 / NULL. */
static int fail_at(tvm_script_call* call, const char* spec, int i) {
  call->error_arg = tvm_script__arg_index(call, spec, i);
  return -1;
}

/* A symbolic variable of the call's builder (a fresh one without a builder). */
static tvm_tir_var_obj* sym_var(tvm_script_call* call, const char* name) {
  if (call->builder) return tvm_script_relax_sym_var(call->builder, name);
  return tvm_tir_var_new(name, tvm_tir_dtype_int(64));
}

/* Whether e is a TIR variable of another dtype than int64 (`m = T.int32()`): no dim of a Relax
 * shape, whose symbolic variables are int64 (a cast of it would define nothing). */
static bool narrow_var(const void* e) {
  if (!tvm_tir_is_var(e)) return false;
  DLDataType t = tvm_tir_expr_dtype(e);
  return !(t.code == kDLInt && t.bits == 64);
}

/* One dim: an int (int64), a PrimExpr of an integer dtype, or a symbolic name. */
static tvm_tir_expr_obj* dim_of(tvm_script_call* call, const TVMFFIAny* v, const char* what) {
  if (v->type_index == kTVMFFIInt) return tvm_tir_const_int(tvm_tir_dtype_int(64), v->v_int64);
  if (tvm_script__is_str(v)) {
    TVMFFIByteArray s;
    tvm_ffi_any_as_bytes(v, &s);
    bool ident = s.size > 0 && !(s.data[0] >= '0' && s.data[0] <= '9');
    for (size_t i = 0; ident && i < s.size; ++i) {
      char c = s.data[i];
      ident = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }
    if (!ident) {
      tvm_ffi_raise("ValueError", "%s: a symbolic dim written as a string must be a name, got "
                    "\"%.*s\"", what, (int)s.size, s.data);
      return NULL;
    }
    char name[128];
    if (s.size >= sizeof(name)) {
      tvm_ffi_raise("ValueError", "%s: the name \"%.20s...\" is too long", what, s.data);
      return NULL;
    }
    memcpy(name, s.data, s.size);
    name[s.size] = 0;
    return &sym_var(call, name)->expr;
  }
  if (tvm_ffi_any_is_object(v) && tvm_script__is_expr(v->v_obj)) {
    DLDataType t = tvm_tir_expr_dtype(v->v_obj);
    if (!tvm_tir_dtype_is_integer(t) || t.lanes != 1) {
      tvm_ffi_raise("TypeError", "%s: a dim must be an integer, got a PrimExpr of dtype %s", what,
                    tvm_tir_dtype_str(t).s);
      return NULL;
    }
    if (narrow_var(v->v_obj)) {
      const void* name = ((const tvm_tir_var_obj*)v->v_obj)->name_hint;
      tvm_ffi_raise("TypeError", "%s: the symbolic variable `%s` is %s; a Relax shape's "
                    "variables are int64 (declare it with T.int64())", what,
                    name ? tvm_ffi_str_cstr(name) : "?", tvm_tir_dtype_str(t).s);
      return NULL;
    }
    tvm_ffi_retain(v->v_obj);
    return (tvm_tir_expr_obj*)v->v_obj;
  }
  tvm_ffi_raise("TypeError", "%s: a dim must be an int, a PrimExpr or a symbolic name, got %s",
                what, tvm_ffi_any_type_name(v));
  return NULL;
}

/* The dims of a tuple / list value: a new ffi.Array of PrimExprs, or NULL + error. */
static void* dims_of(tvm_script_call* call, const TVMFFIAny* v, const char* what) {
  const void* seq = seq_of(v);
  if (!seq) {
    tvm_ffi_raise("TypeError", "%s must be a tuple or list of dims, got %s", what,
                  tvm_ffi_any_type_name(v));
    return NULL;
  }
  int64_t n = tvm_ffi_seq_size(seq);
  /* An Array of integer PrimExprs (the evaluator makes the ints of a written shape IntImms):
   * every dim as dim_of would return it, so the Array itself. */
  bool exprs = tvm_ffi_type_index(seq) == kTVMFFIArray;
  for (int64_t i = 0; exprs && i < n; ++i) {
    const TVMFFIAny* d = tvm_ffi_seq_at(seq, i);
    DLDataType t = {0, 0, 0};
    exprs = tvm_ffi_any_is_object(d) && tvm_script__is_expr(d->v_obj) &&
            (t = tvm_tir_expr_dtype(d->v_obj), tvm_tir_dtype_is_integer(t) && t.lanes == 1) &&
            !narrow_var(d->v_obj);
  }
  if (exprs) {
    tvm_ffi_retain((void*)seq);
    return (void*)seq;
  }
  tvm_script_items it;
  if (!tvm_script_items_init(&it, n)) return NULL;
  for (int64_t i = 0; i < n; ++i) {
    tvm_tir_expr_obj* d = dim_of(call, tvm_ffi_seq_at(seq, i), what);
    if (!d) {
      tvm_script_items_free(&it);
      return NULL;
    }
    tvm_script_items_push(&it, d);
  }
  void* arr = tvm_script_items_to_array(&it);
  tvm_script_items_free(&it);
  return arr;
}

static int ret(void* obj, TVMFFIAny* out) {
  if (!obj) return -1;
  *out = tvm_ffi_any_obj(obj);
  return 0;
}

tvm_relax_sinfo_obj* tvm_script__relax_sinfo_of(const TVMFFIAny* v, const char* what) {
  if (tvm_ffi_any_is_object(v) && tvm_relax_is_sinfo(v->v_obj)) {
    tvm_ffi_retain(v->v_obj);
    return (tvm_relax_sinfo_obj*)v->v_obj;
  }
  /* A dtype (`scale: T.float32`) is R.Prim of it, as upstream reads a PrimType annotation. */
  if (v->type_index == kTVMFFIDataType) return tvm_relax_prim_sinfo_new(v->v_dtype, NULL);
  tvm_ffi_raise("TypeError", "%s must be a struct info (R.Tensor, R.Tuple, R.Shape, R.Prim, "
                "R.Object, R.Callable), got %s", what, tvm_ffi_any_type_name(v));
  return NULL;
}

void* tvm_script__relax_sinfo_list(const TVMFFIAny* v, const char* what, bool tuple_of) {
  const void* seq = seq_of(v);
  if (!seq) {
    tvm_relax_sinfo_obj* s = tvm_script__relax_sinfo_of(v, what);
    if (!s) return NULL;
    TVMFFIAny item = tvm_ffi_any_obj(s);
    return tvm_ffi_array_new_take(&item, 1);
  }
  int64_t n = tvm_ffi_seq_size(seq);
  tvm_script_items it;
  if (!tvm_script_items_init(&it, n)) return NULL;
  for (int64_t i = 0; i < n; ++i) {
    tvm_relax_sinfo_obj* s = tvm_script__relax_sinfo_of(tvm_ffi_seq_at(seq, i), what);
    if (!s) {
      tvm_script_items_free(&it);
      return NULL;
    }
    tvm_script_items_push(&it, s);
  }
  void* arr = tvm_script_items_to_array(&it);
  tvm_script_items_free(&it);
  if (!arr || !tuple_of || n == 1) return arr; /* one in a list: that one (MakeCallTIR's rule) */
  tvm_relax_sinfo_obj* t = tvm_relax_tuple_sinfo_new(arr);
  tvm_ffi_release(arr);
  if (!t) return NULL;
  TVMFFIAny item = tvm_ffi_any_obj(t);
  return tvm_ffi_array_new_take(&item, 1);
}

/* ---- R.Tensor -------------------------------------------------------------------------------- */
/* vdevice="llvm" / "llvm:1" / "llvm:1:global" (as upstream prints it): the module's virtual
 * device of that target kind and index among that kind's (0 when omitted; a memory scope after
 * the index must be the device's). `what` names the argument in messages. A new reference, or
 * NULL + error. */
void* tvm_script__relax_vdevice_by_name(tvm_script_call* call, const TVMFFIAny* v, const char* what) {
  TVMFFIByteArray s;
  tvm_ffi_any_as_bytes(v, &s);
  const char* colon = memchr(s.data, ':', s.size);
  size_t kind_len = colon ? (size_t)(colon - s.data) : s.size;
  int64_t index = 0;
  bool ok = kind_len > 0;
  const char* scope = NULL;
  size_t scope_len = 0;
  if (ok && colon) {
    const char* q = colon + 1;
    const char* end = s.data + s.size;
    const char* c2 = memchr(q, ':', (size_t)(end - q));
    if (c2) scope = c2 + 1, scope_len = (size_t)(end - scope), end = c2;
    ok = q < end && end - q <= 9;
    for (index = 0; ok && q < end; ++q) {
      ok = *q >= '0' && *q <= '9';
      index = index * 10 + (*q - '0');
    }
  }
  if (!ok) {
    tvm_ffi_raise("ValueError", "%s: expected \"<target kind>\" or \"<target kind>:<index>\" (then "
                  "\":<memory scope>\" optionally), got \"%.*s\"", what, (int)s.size, s.data);
    return NULL;
  }
  if (!call->builder) {
    tvm_ffi_raise("ValueError", "%s: a device by name needs the module's I.module_global_infos", what);
    return NULL;
  }
  tvm_tir_vdevice_obj* vd = tvm_script_relax_lookup_vdevice(call->builder, s.data, kind_len, index);
  if (vd && scope) {
    TVMFFIAny ms = tvm_ffi_any_obj(vd->memory_scope);
    TVMFFIByteArray m = {"global", 6};
    if (vd->memory_scope) tvm_ffi_any_as_bytes(&ms, &m);
    if (m.size != scope_len || memcmp(m.data, scope, scope_len) != 0) {
      tvm_ffi_raise("ValueError", "%s: the virtual device \"%.*s\" has memory scope \"%.*s\"", what,
                    (int)(scope - 1 - s.data), s.data, (int)m.size, m.data);
      tvm_ffi_release(vd);
      return NULL;
    }
  }
  return vd;
}

static int b_tensor(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "shape=, dtype=, vdevice=, ndim=";
  TVMFFIAny a[4];
  if (bind(call, spec, a, 4) != 0) return -1;
  const TVMFFIAny* shape = &a[0];
  const TVMFFIAny* dtype_v = &a[1];
  int dtype_param = 1;
  /* R.Tensor("float32", ndim=2): a string first is the dtype. */
  if (present(shape) && tvm_script__is_str(shape) && !present(dtype_v)) {
    dtype_v = shape;
    dtype_param = 0;
    shape = NULL;
  }
  DLDataType dtype = TVM_RELAX_DTYPE_UNKNOWN;
  if (present(dtype_v)) {
    TVMFFIByteArray s;
    bool empty = tvm_script__is_str(dtype_v) && tvm_ffi_any_as_bytes(dtype_v, &s) && s.size == 0;
    if (!empty && tvm_script__value_to_dtype(dtype_v, "argument 'dtype' of R.Tensor", &dtype) != 0) {
      return fail_at(call, spec, dtype_param);
    }
  }
  int64_t ndim = -1;
  if (present(&a[3])) {
    if (a[3].type_index != kTVMFFIInt) {
      tvm_ffi_raise("TypeError", "argument 'ndim' of R.Tensor must be an int, got %s",
                    tvm_ffi_any_type_name(&a[3]));
      return fail_at(call, spec, 3);
    }
    ndim = a[3].v_int64;
    if (ndim < -1) {
      tvm_ffi_raise("ValueError", "argument 'ndim' of R.Tensor must be -1 (unknown) or at least "
                    "0, got %lld", (long long)ndim);
      return fail_at(call, spec, 3);
    }
  }
  void* vdevice = NULL;
  void* vdevice_ref = NULL; /* owned: a device found by name */
  if (present(&a[2])) {
    if (tvm_script__is_str(&a[2])) {
      vdevice_ref = tvm_script__relax_vdevice_by_name(call, &a[2], "argument 'vdevice' of R.Tensor");
      if (!vdevice_ref) return fail_at(call, spec, 2);
      vdevice = vdevice_ref;
    } else if (!tvm_ffi_any_is_object(&a[2])) {
      tvm_ffi_raise("TypeError", "argument 'vdevice' of R.Tensor must be a VDevice, got %s",
                    tvm_ffi_any_type_name(&a[2]));
      return fail_at(call, spec, 2);
    } else {
      vdevice = a[2].v_obj;
    }
  }
  void* shape_obj = NULL;
  if (shape && present(shape)) {
    if (tvm_ffi_any_is_object(shape) && tvm_relax_is_expr(shape->v_obj)) {
      tvm_ffi_retain(shape->v_obj);
      shape_obj = shape->v_obj;
    } else {
      void* dims = dims_of(call, shape, "argument 'shape' of R.Tensor");
      shape_obj = dims ? tvm_relax_shape_expr_new(dims) : NULL;
      tvm_ffi_release(dims);
      if (!shape_obj) {
        tvm_ffi_release(vdevice_ref);
        return fail_at(call, spec, 0);
      }
    }
  }
  tvm_relax_sinfo_obj* s = tvm_relax_tensor_sinfo_new(shape_obj, dtype, (int32_t)ndim, vdevice);
  tvm_ffi_release(shape_obj);
  tvm_ffi_release(vdevice_ref);
  return ret(s, out); /* (librelax's errors: a shape that is no shape, ndim disagreeing) */
}

/* ---- The distributed dialect: R.device_mesh, R.DTensor ----------------------------------------- */
tvm_relax_device_mesh_obj* tvm_script__relax_mesh_of(tvm_script_call* call, const TVMFFIAny* v,
                                                     const char* what) {
  if (tvm_ffi_any_is_object(v) && tvm_relax_kind_of(v->v_obj) == TVM_RELAX_KIND_DeviceMesh) {
    tvm_ffi_retain(v->v_obj);
    return (tvm_relax_device_mesh_obj*)v->v_obj;
  }
  if (!tvm_script__is_str(v)) {
    tvm_ffi_raise("TypeError", "%s must be an R.device_mesh or a name such as \"mesh[0]\", got %s",
                  what, tvm_ffi_any_type_name(v));
    return NULL;
  }
  TVMFFIByteArray s;
  tvm_ffi_any_as_bytes(v, &s);
  const char* open = memchr(s.data, '[', s.size);
  int64_t index = 0;
  bool ok = open && open > s.data && s.size >= 2 && s.data[s.size - 1] == ']' &&
            open + 1 < s.data + s.size - 1;
  for (const char* q = open ? open + 1 : NULL; ok && q < s.data + s.size - 1; ++q) {
    ok = *q >= '0' && *q <= '9' && index < 100000000;
    index = index * 10 + (*q - '0');
  }
  if (!ok) {
    tvm_ffi_raise("ValueError", "%s: expected a name such as \"mesh[0]\", got \"%.*s\"", what,
                  (int)s.size, s.data);
    return NULL;
  }
  if (!call->builder) {
    tvm_ffi_raise("ValueError", "%s: a device mesh by name needs the module's "
                  "I.module_global_infos", what);
    return NULL;
  }
  void* m = tvm_script_relax_lookup_global_info(call->builder, s.data, (size_t)(open - s.data), index);
  if (m && tvm_relax_kind_of(m) != TVM_RELAX_KIND_DeviceMesh) {
    tvm_ffi_raise("TypeError", "%s: \"%.*s\" is not an R.device_mesh", what, (int)s.size, s.data);
    tvm_ffi_release(m);
    return NULL;
  }
  if (!m) tvm_ffi_raise_context("%s", what);
  return m;
}

void* tvm_script__relax_placement_of(const TVMFFIAny* v, const char* what) {
  if (!tvm_script__is_str(v)) {
    tvm_ffi_raise("TypeError", "%s must be a placement string such as \"S[0], R\", got %s", what,
                  tvm_ffi_any_type_name(v));
    return NULL;
  }
  TVMFFIByteArray s;
  tvm_ffi_any_as_bytes(v, &s);
  void* p = tvm_relax_placement_parse(s.data, s.size);
  if (!p) tvm_ffi_raise_context("%s", what);
  return p;
}

/* R.device_mesh(shape, device_ids): device_ids a list of ids or an I.Range. */
static int b_device_mesh(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "shape, device_ids";
  TVMFFIAny a[2];
  if (bind(call, spec, a, 2) != 0) return -1;
  const void* shape = seq_of(&a[0]);
  if (!shape) {
    tvm_ffi_raise("TypeError", "argument 'shape' of R.device_mesh must be a tuple of ints, got %s",
                  tvm_ffi_any_type_name(&a[0]));
    return fail_at(call, spec, 0);
  }
  const void* ids = seq_of(&a[1]);
  void* range = !ids && tvm_ffi_any_is_object(&a[1]) && tvm_tir_is(a[1].v_obj, TVM_TIR_KIND_Range)
                    ? a[1].v_obj
                    : NULL;
  if (!ids && !range) {
    tvm_ffi_raise("TypeError", "argument 'device_ids' of R.device_mesh must be a list of ints or "
                  "an I.Range, got %s", tvm_ffi_any_type_name(&a[1]));
    return fail_at(call, spec, 1);
  }
  tvm_relax_device_mesh_obj* m = tvm_relax_device_mesh_new((void*)shape, (void*)ids, range);
  if (!m) return fail_at(call, spec, ids || range ? 1 : 0);
  return ret(m, out);
}

/* R.DTensor(shape=None, dtype=None, device_mesh, placement, ndim=-1) (upstream's parser): the
 * mesh an R.device_mesh or its name in the module ("mesh[0]"), the placement text. */
static int b_dtensor(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "shape=, dtype=, device_mesh=, placement=, ndim=";
  TVMFFIAny a[5];
  if (bind(call, spec, a, 5) != 0) return -1;
  if (!present(&a[2]) || !present(&a[3])) {
    int missing = present(&a[2]) ? 3 : 2;
    tvm_ffi_raise("TypeError", "R.DTensor needs a device_mesh and a placement");
    return fail_at(call, spec, missing);
  }
  tvm_relax_device_mesh_obj* mesh = tvm_script__relax_mesh_of(call, &a[2], "argument 'device_mesh' of R.DTensor");
  if (!mesh) return fail_at(call, spec, 2);
  void* placement = tvm_script__relax_placement_of(&a[3], "argument 'placement' of R.DTensor");
  if (!placement) {
    tvm_ffi_release(mesh);
    return fail_at(call, spec, 3);
  }
  /* the tensor part: R.Tensor's own arguments */
  tvm_script_call tc = *call;
  static const char* const kTensorKw[] = {"shape", "dtype", "ndim"};
  TVMFFIAny targs[2], tkw[3];
  const char* tkw_names[3];
  int32_t np = 0, nk = 0;
  for (int i = 0; i < 2; ++i) {
    if (!tvm_script_arg_given(&a[i])) continue;
    if (np == i) {
      targs[np++] = a[i];
    } else {
      tkw_names[nk] = kTensorKw[i], tkw[nk++] = a[i];
    }
  }
  if (tvm_script_arg_given(&a[4])) tkw_names[nk] = "ndim", tkw[nk++] = a[4];
  tc.args = targs;
  tc.num_args = np;
  tc.kw_names = tkw_names;
  tc.kwargs = tkw;
  tc.num_kwargs = nk;
  tc.error_arg = -1;
  TVMFFIAny t;
  int rc = b_tensor(&tc, &t);
  if (rc != 0) {
    /* the same parameter of R.DTensor: shape, dtype (0, 1) or ndim (4) */
    int param = -1;
    if (tc.error_arg >= 0 && tc.error_arg < np) {
      param = tc.error_arg; /* positional arguments come first, in order */
    } else if (tc.error_arg >= np && tc.error_arg < np + nk) {
      const char* kw = tkw_names[tc.error_arg - np];
      param = strcmp(kw, "ndim") == 0 ? 4 : strcmp(kw, "dtype") == 0 ? 1 : 0;
    }
    call->error_arg = param >= 0 ? tvm_script__arg_index(call, spec, param) : -1;
    tvm_ffi_release(mesh);
    tvm_ffi_release(placement);
    return -1;
  }
  tvm_relax_sinfo_obj* s = tvm_relax_dtensor_sinfo_new((tvm_relax_sinfo_obj*)t.v_obj, mesh, placement);
  tvm_ffi_any_release(&t);
  tvm_ffi_release(mesh);
  tvm_ffi_release(placement);
  if (!s) return fail_at(call, spec, 3);
  return ret(s, out);
}

/* ---- R.Shape / R.Prim / R.Tuple / R.Object / R.Callable -------------------------------------- */
static int b_shape_sinfo(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "values=, ndim=";
  TVMFFIAny a[2];
  if (bind(call, spec, a, 2) != 0) return -1;
  int64_t ndim = -1;
  if (present(&a[1])) {
    if (a[1].type_index != kTVMFFIInt || a[1].v_int64 < -1) {
      tvm_ffi_raise("TypeError", "argument 'ndim' of R.Shape must be an int >= -1, got %s",
                    tvm_ffi_any_type_name(&a[1]));
      return fail_at(call, spec, 1);
    }
    ndim = a[1].v_int64;
  }
  void* values = NULL;
  if (present(&a[0])) {
    values = dims_of(call, &a[0], "argument 'values' of R.Shape");
    if (!values) return fail_at(call, spec, 0);
    if (ndim != -1 && ndim != tvm_ffi_seq_size(values)) {
      tvm_ffi_release(values);
      tvm_ffi_raise("ValueError", "R.Shape: ndim %lld does not match the %lld values",
                    (long long)ndim, (long long)tvm_ffi_seq_size(values));
      return fail_at(call, spec, 1);
    }
    ndim = tvm_ffi_seq_size(values);
  }
  tvm_relax_sinfo_obj* s = tvm_relax_shape_sinfo_new(values, (int32_t)ndim);
  tvm_ffi_release(values);
  return ret(s, out);
}

static int b_prim_sinfo(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "dtype=, value=";
  TVMFFIAny a[2];
  if (bind(call, spec, a, 2) != 0) return -1;
  bool has_dtype = present(&a[0]);
  DLDataType dtype = TVM_RELAX_DTYPE_UNKNOWN;
  if (has_dtype && tvm_script__value_to_dtype(&a[0], "argument 'dtype' of R.Prim", &dtype) != 0) {
    return fail_at(call, spec, 0);
  }
  if (!present(&a[1])) {
    /* R.Prim(): a PrimValue of unknown dtype, as the printer writes the join of two different
     * dtypes (an if's branches returning int4 and int64; upstream's void). */
    return ret(tvm_relax_prim_sinfo_new(dtype, NULL), out);
  }
  tvm_tir_expr_obj* value = NULL;
  const TVMFFIAny* v = &a[1];
  if (tvm_script__is_str(v)) {
    if (has_dtype && !tvm_tir_dtype_equal(dtype, tvm_tir_dtype_int(64))) {
      tvm_ffi_raise("TypeError", "R.Prim: a symbolic value is an int64 variable, not %s",
                    tvm_tir_dtype_str(dtype).s);
      return fail_at(call, spec, 0);
    }
    value = dim_of(call, v, "argument 'value' of R.Prim");
  } else if (v->type_index == kTVMFFIInt || v->type_index == kTVMFFIBool) {
    DLDataType t = has_dtype ? dtype
                   : v->type_index == kTVMFFIBool ? tvm_tir_dtype_bool()
                                                  : tvm_tir_dtype_int(64);
    value = tvm_script__dtype_number(v, t);
  } else if (v->type_index == kTVMFFIFloat) {
    value = tvm_script__dtype_number(v, has_dtype ? dtype : tvm_tir_dtype_float(32));
  } else if (tvm_ffi_any_is_object(v) && tvm_script__is_expr(v->v_obj)) {
    tvm_ffi_retain(v->v_obj);
    value = (tvm_tir_expr_obj*)v->v_obj;
  } else {
    tvm_ffi_raise("TypeError", "argument 'value' of R.Prim must be a number, a PrimExpr or a "
                  "symbolic name, got %s", tvm_ffi_any_type_name(v));
  }
  if (!value) return fail_at(call, spec, 1);
  if (!has_dtype) dtype = tvm_tir_expr_dtype(value);
  tvm_relax_sinfo_obj* s = tvm_relax_prim_sinfo_new(dtype, value);
  tvm_ffi_release(value);
  if (!s) return fail_at(call, spec, 1);
  return ret(s, out);
}

static int b_tuple_sinfo(tvm_script_call* call, TVMFFIAny* out) {
  if (call->num_kwargs > 0) {
    call->error_arg = call->num_args;
    return tvm_ffi_raise("TypeError", "R.Tuple() takes no keyword arguments");
  }
  const TVMFFIAny* items = call->args;
  int64_t n = call->num_args;
  /* R.Tuple([a, b]) is R.Tuple(a, b). */
  const void* one = n == 1 ? seq_of(&call->args[0]) : NULL;
  if (one) {
    items = tvm_ffi_seq_at(one, 0);
    n = tvm_ffi_seq_size(one);
  }
  tvm_script_items it;
  if (!tvm_script_items_init(&it, n)) return -1;
  for (int64_t i = 0; i < n; ++i) {
    char what[64] = "";
    bool is_sinfo = tvm_ffi_any_is_object(&items[i]) && tvm_relax_is_sinfo(items[i].v_obj);
    if (!is_sinfo) snprintf(what, sizeof(what), "field %lld of R.Tuple", (long long)i);
    tvm_relax_sinfo_obj* s = tvm_script__relax_sinfo_of(&items[i], what);
    if (!s) {
      tvm_script_items_free(&it);
      call->error_arg = one ? 0 : (int32_t)i;
      return -1;
    }
    tvm_script_items_push(&it, s);
  }
  void* arr = tvm_script_items_to_array(&it);
  tvm_script_items_free(&it);
  tvm_relax_sinfo_obj* s = arr ? tvm_relax_tuple_sinfo_new(arr) : NULL;
  tvm_ffi_release(arr);
  return ret(s, out);
}

static int b_object_sinfo(tvm_script_call* call, TVMFFIAny* out) {
  TVMFFIAny a[1];
  if (bind(call, "", a, 0) != 0) return -1;
  return ret(tvm_relax_object_sinfo_new(), out);
}

static int b_callable(tvm_script_call* call, TVMFFIAny* out) {
  static const char* const spec = "params=, ret=, purity=, derive_func=";
  TVMFFIAny a[4];
  if (bind(call, spec, a, 4) != 0) return -1;
  /* Upstream's default (C++'s): a function of known params is pure, an opaque one impure. */
  bool purity = present(&a[0]);
  if (present(&a[2])) {
    if (a[2].type_index != kTVMFFIBool) {
      tvm_ffi_raise("TypeError", "argument 'purity' of R.Callable must be a bool, got %s",
                    tvm_ffi_any_type_name(&a[2]));
      return fail_at(call, spec, 2);
    }
    purity = a[2].v_int64 != 0;
  }
  if (present(&a[3])) { /* an opaque function whose calls a registered rule types */
    TVMFFIByteArray name;
    char buf[128];
    if (!tvm_ffi_any_as_bytes(&a[3], &name) || name.size >= sizeof(buf)) {
      tvm_ffi_raise("TypeError", "argument 'derive_func' of R.Callable must be the name of a "
                    "derivation rule, got %s", tvm_ffi_any_type_name(&a[3]));
      return fail_at(call, spec, 3);
    }
    if (present(&a[0]) || present(&a[1])) {
      tvm_ffi_raise("ValueError", "R.Callable: derive_func types the calls of an opaque "
                    "function: it takes no params and no ret");
      return fail_at(call, spec, present(&a[0]) ? 0 : 1);
    }
    memcpy(buf, name.data, name.size);
    buf[name.size] = '\0';
    tvm_relax_sinfo_obj* s = tvm_relax_func_sinfo_derived(buf, purity);
    return s ? ret(s, out) : fail_at(call, spec, 3);
  }
  void* params = NULL;
  if (present(&a[0])) {
    if (!seq_of(&a[0])) {
      tvm_ffi_raise("TypeError", "argument 'params' of R.Callable must be a list of struct info "
                    "or None, got %s", tvm_ffi_any_type_name(&a[0]));
      return fail_at(call, spec, 0);
    }
    params = tvm_script__relax_sinfo_list(&a[0], "a parameter of R.Callable", false);
    if (!params) return fail_at(call, spec, 0);
  }
  tvm_relax_sinfo_obj* r = present(&a[1]) ? tvm_script__relax_sinfo_of(&a[1], "argument 'ret' of R.Callable")
                                          : tvm_relax_object_sinfo_new();
  if (!r) {
    tvm_ffi_release(params);
    return fail_at(call, spec, 1);
  }
  tvm_relax_sinfo_obj* s = tvm_relax_func_sinfo_new(params, r, purity);
  tvm_ffi_release(params);
  tvm_ffi_release(r);
  return ret(s, out);
}

/* ---- Frames and statements ------------------------------------------------------------------- */
static int need_builder(tvm_script_call* call) {
  if (call->builder) return 0;
  return tvm_ffi_raise("ValueError", "%s() is only valid inside an R.function", call->name);
}

static int b_dataflow(tvm_script_call* call, TVMFFIAny* out) {
  TVMFFIAny a[1];
  if (bind(call, "", a, 0) != 0 || need_builder(call) != 0) return -1;
  if (call->ctx != TVM_SCRIPT_CTX_WITH) {
    return tvm_ffi_raise("ValueError", "R.dataflow() is only valid as `with R.dataflow():`");
  }
  if (tvm_script_relax_dataflow_enter(call->builder) != 0) return -1;
  *out = tvm_ffi_any_none();
  return 0;
}

static int b_output(tvm_script_call* call, TVMFFIAny* out) {
  if (need_builder(call) != 0) return -1;
  if (call->num_kwargs > 0) {
    call->error_arg = call->num_args;
    return tvm_ffi_raise("TypeError", "R.output() takes no keyword arguments");
  }
  for (int32_t i = 0; i < call->num_args; ++i) {
    const TVMFFIAny* v = &call->args[i];
    if (!tvm_ffi_any_is_object(v) || !tvm_relax_is_var(v->v_obj)) {
      call->error_arg = i;
      return tvm_ffi_raise("TypeError", "R.output: argument %d must be a variable of the "
                           "dataflow block, got %s", i + 1, tvm_ffi_any_type_name(v));
    }
  }
  void* vars = tvm_ffi_array_new(call->args, call->num_args);
  void* outs = vars ? tvm_script_relax_dataflow_output(call->builder, vars) : NULL;
  tvm_ffi_release(vars);
  return ret(outs, out);
}

static int b_func_attr(tvm_script_call* call, TVMFFIAny* out) {
  TVMFFIAny a[1];
  if (bind(call, "attrs", a, 1) != 0 || need_builder(call) != 0) return -1;
  if (!tvm_ffi_any_is_object(&a[0])) {
    call->error_arg = 0;
    return tvm_ffi_raise("TypeError", "R.func_attr expects a dict, got %s",
                         tvm_ffi_any_type_name(&a[0]));
  }
  if (tvm_script_relax_func_attrs(call->builder, a[0].v_obj) != 0) return -1;
  *out = tvm_ffi_any_none();
  return 0;
}

/* ---- Table ----------------------------------------------------------------------------------- */
const tvm_script_builtin tvm_script__relax_sinfo_builtins[] = {
    {"Any", b_object_sinfo, 0, false},    {"Callable", b_callable, 0, false},
    {"DTensor", b_dtensor, 0, false, true}, {"device_mesh", b_device_mesh, 0, false},
    /* (upstream's R namespace holds its dist module too: R.dist.DTensor, R.dist.device_mesh) */
    {"dist.DTensor", b_dtensor, 0, false, true}, {"dist.device_mesh", b_device_mesh, 0, false},
    {"Object", b_object_sinfo, 0, false}, {"Prim", b_prim_sinfo, 0, false, true},
    {"Shape", b_shape_sinfo, 0, false, true},   {"Tensor", b_tensor, 0, false, true},
    {"Tuple", b_tuple_sinfo, 0, false},   {"dataflow", b_dataflow, 0, false},
    {"func_attr", b_func_attr, 0, false}, {"output", b_output, 0, false},
};
_Static_assert(sizeof(tvm_script__relax_sinfo_builtins) /
                       sizeof(tvm_script__relax_sinfo_builtins[0]) <=
                   32,
               "tvm_script__relax_builtin_lookup's table keeps room for 32 of these rows");
const int32_t tvm_script__relax_sinfo_builtin_count =
    (int32_t)(sizeof(tvm_script__relax_sinfo_builtins) / sizeof(tvm_script__relax_sinfo_builtins[0]));

int tvm_script__relax_value_lookup(const char* name, size_t len, TVMFFIAny* out) {
#define IS(s) (len == sizeof(s) - 1 && memcmp(name, s, len) == 0)
  void* s = NULL;
  if (IS("Object") || IS("Any")) {
    s = tvm_relax_object_sinfo_new();
  } else if (IS("Tensor")) {
    s = tvm_relax_tensor_sinfo_new(NULL, TVM_RELAX_DTYPE_UNKNOWN, TVM_RELAX_UNKNOWN_NDIM, NULL);
  } else if (IS("Shape")) {
    s = tvm_relax_shape_sinfo_new(NULL, TVM_RELAX_UNKNOWN_NDIM);
  } else if (IS("Tuple")) {
    s = tvm_relax_tuple_sinfo_new(NULL);
  } else if (IS("Callable")) { /* R.Callable(): any arguments, an object, impure (as upstream) */
    s = tvm_relax_func_sinfo_new(NULL, NULL, false);
  } else {
    return 0;
  }
#undef IS
  if (!s) return -1;
  *out = tvm_ffi_any_obj(s);
  return 1;
}

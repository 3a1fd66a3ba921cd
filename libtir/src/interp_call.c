/*
 * interp_call.c: PrimFunc calls: binding arguments to parameters (spec PrimFunc item i-ii),
 * calls through GlobalVars (spec E11), and the entry point tvm_tir_interp_run.
 */
#include <stdio.h>
#include <string.h>

#include "interp_internal.h"

/* ---- PrimFunc calls ------------------------------------------------------------------------- */
/* The arguments of a call: external values (any) or values of a call in TIR (values). */
typedef struct {
  const TVMFFIAny* any;
  const tir_value* values;
  int64_t count;
} call_args;

static const tvm_tir_buffer_obj* param_buffer(const tvm_tir_prim_func_obj* f, const void* var) {
  TVMFFIAny key = tvm_ffi_any_obj(var);
  const TVMFFIAny* b = tvm_ffi_map_get(f->buffer_map, &key);
  return b ? (const tvm_tir_buffer_obj*)b->v_obj : NULL;
}

/* Whether param is a shape / stride / elem_offset variable of a buffer of the buffer map. */
static bool is_buffer_field_var(const tvm_tir_prim_func_obj* f, const void* param) {
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(f->buffer_map, pos, &k, &v)) >= 0;) {
    const tvm_tir_buffer_obj* b = (const tvm_tir_buffer_obj*)v->v_obj;
    if ((const void*)b->elem_offset == param) return true;
    for (int64_t i = 0; i < tvm_tir_array_size(b->shape); ++i) {
      if (tvm_tir_array_at(b->shape, i) == param) return true;
    }
    for (int64_t i = 0; i < tvm_tir_array_size(b->strides); ++i) {
      if (tvm_tir_array_at(b->strides, i) == param) return true;
    }
  }
  return false;
}

/* A scalar argument converted to the parameter's dtype. */
static int scalar_from_any(const TVMFFIAny* a, const tvm_tir_var_obj* var, const char* fname,
                           tir_value* out) {
  DLDataType t = var->expr.dtype;
  const char* pname = tvm_tir_var_name(var);
  out->dtype = t;
  if (tvm_tir_dtype_is_handle(t)) {
    /* As the packed API of compiled code (and upstream's): a DLTensor pointer is passed as
     * itself, the address of the DLTensor, not of its data; an ffi.Tensor as its DLTensor. */
    void* tensor = tvm_ffi_any_as_object(a, kTVMFFITensor);
    if (tensor) {
      out->lane[0].p = (void*)tvm_ffi_tensor_dl(tensor);
    } else if (a->type_index == kTVMFFIDLTensorPtr || a->type_index == kTVMFFIOpaquePtr ||
               a->type_index == kTVMFFINone) {
      out->lane[0].p = a->v_ptr;
    } else {
      return tvm_tir__raise_at("TypeError", NULL, "%s: argument '%s' must be a handle, got %s",
                               fname, pname, tvm_ffi_any_type_name(a));
    }
    return TIR_OK;
  }
  int64_t i;
  double d;
  if (tvm_tir_dtype_is_integer(t) && t.lanes == 1 && tvm_ffi_any_as_int(a, &i)) {
    tvm_tir__value_int(out, t, i);
    bool fits = t.code == kDLUInt && t.bits == 64 ? i >= 0 : out->lane[0].i == i;
    if (fits) return TIR_OK;
    return tvm_tir__raise_at("ValueError", NULL, "%s: argument '%s' = %lld does not fit %s", fname,
                             pname, (long long)i, tvm_tir_dtype_str(t).s);
  }
  if (tvm_tir_dtype_is_floating(t) && t.lanes == 1 && tvm_ffi_any_as_float(a, &d)) {
    out->lane[0].f = tvm_tir__round_float(t, d);
    return TIR_OK;
  }
  return tvm_tir__raise_at("TypeError", NULL, "%s: argument '%s' of type %s cannot be passed %s",
                           fname, pname, tvm_tir_dtype_str(t).s, tvm_ffi_any_type_name(a));
}

static bool dtype_matches(DLDataType buffer, DLDataType tensor) {
  if (tvm_tir_dtype_equal(buffer, tensor)) return true;
  /* A bool (uint1) buffer reads a DLPack bool tensor (one byte per element). */
  return tvm_tir_dtype_is_bool(buffer) && tensor.code == kDLBool && tensor.bits == 8 &&
         tensor.lanes == buffer.lanes;
}

/* Bind a buffer parameter to a tensor (spec PrimFunc item ii.d). With add_region, the tensor's
 * memory becomes a live region (external arguments). With define_only, only the fields that are
 * unbound Vars are bound (the first round over the buffers, so that `(n * 32,)` can be checked
 * against an n that a later buffer defines, as upstream's packed API does). */
static int bind_tensor(tir_interp* in, const tvm_tir_buffer_obj* b, const DLTensor* t,
                       const char* arg, bool add_region, bool define_only) {
  int (*field)(tir_interp*, const tvm_tir_expr_obj*, int64_t, const char*, const char*, int64_t) =
      define_only ? tvm_tir__define_field : tvm_tir__match_field;
  int64_t ndim = tvm_tir_buffer_ndim(b);
  const char* bname = tvm_tir_buffer_name(b);
  if (t->device.device_type != kDLCPU && t->device.device_type != kDLCUDAHost) {
    return tvm_tir__raise_at("ValueError", NULL,
                             "%s: tensor is on device type %d, not in host memory", arg,
                             (int)t->device.device_type);
  }
  if (!dtype_matches(b->dtype, t->dtype)) {
    char have[48];
    if (tvm_ffi_dtype_format(t->dtype, have, sizeof(have)) < 0) {
      tvm_ffi_error_clear();
      snprintf(have, sizeof(have), "dtype(code=%d, bits=%d)", t->dtype.code, t->dtype.bits);
    }
    return tvm_tir__raise_at("ValueError", NULL,
                             "%s: dtype %s does not match buffer %s of dtype %s", arg, have, bname,
                             tvm_tir_dtype_str(b->dtype).s);
  }
  TRY(tvm_tir__check_storable(b->dtype, bname));
  if (t->ndim != ndim || ndim > TIR_MAX_DIMS) {
    return tvm_tir__raise_at("ValueError", NULL,
                             "%s: ndim %d does not match buffer %s of ndim %lld", arg, (int)t->ndim,
                             bname, (long long)ndim);
  }
  if (ndim > 0 && !t->shape) {
    return tvm_tir__raise_at("ValueError", NULL, "%s: tensor of ndim %d has no shape", arg,
                             (int)t->ndim);
  }
  for (int64_t k = 0; k < ndim; ++k)
    TRY(field(in, tvm_tir_array_at(b->shape, k), t->shape[k], arg, "shape", k));
  int64_t compact[TIR_MAX_DIMS];
  TRY(tvm_tir__compact_strides(b, t->shape, ndim, compact));
  if (tvm_tir_array_size(b->strides) == 0) {
    if (t->strides && !tvm_ffi_dltensor_is_contiguous(t)) {
      return tvm_tir__raise_at("ValueError", NULL,
                               "%s: strided tensor for buffer %s, which is compact", arg, bname);
    }
  } else {
    if (tvm_tir_array_size(b->strides) != ndim) {
      return tvm_tir__raise_at("ValueError", NULL,
                               "%s: buffer %s has %lld strides for %lld dimensions", arg, bname,
                               (long long)tvm_tir_array_size(b->strides), (long long)ndim);
    }
    for (int64_t k = 0; k < ndim; ++k) {
      int64_t stride = t->strides ? t->strides[k] : compact[k];
      TRY(field(in, tvm_tir_array_at(b->strides, k), stride, arg, "strides", k));
    }
  }
  int64_t size = tvm_tir__elem_bytes(b->dtype);
  if (t->byte_offset % (uint64_t)size != 0) {
    return tvm_tir__raise_at("ValueError", NULL, "%s: byte_offset %llu is not a multiple of %lld",
                             arg, (unsigned long long)t->byte_offset, (long long)size);
  }
  if (b->elem_offset) {
    TRY(field(in, b->elem_offset, (int64_t)(t->byte_offset / (uint64_t)size), arg, "elem_offset",
              -1));
  }
  if (define_only) return TIR_OK;
  TRY(tvm_tir__bind_handle(in, b->data, t->data));
  if (!add_region) return TIR_OK;
  /* The bytes the tensor's layout reaches, from its first element. */
  int64_t lo = 0, hi = 1;
  bool overflow = false;
  for (int64_t k = 0; k < ndim; ++k) {
    int64_t stride = t->strides ? t->strides[k] : compact[k], span;
    if (t->shape[k] == 0) return TIR_OK; /* no element: nothing is reachable */
    overflow |= __builtin_mul_overflow(stride, t->shape[k] - 1, &span);
    overflow |=
        span < 0 ? __builtin_add_overflow(lo, span, &lo) : __builtin_add_overflow(hi, span, &hi);
  }
  if (overflow || __builtin_mul_overflow(lo, size, &lo) || __builtin_mul_overflow(hi, size, &hi)) {
    return tvm_tir__raise_at("ValueError", NULL, "%s: tensor extent overflows", arg);
  }
  if (!t->data) return tvm_tir__raise_at("ValueError", NULL, "%s: tensor data is NULL", arg);
  char* first = (char*)t->data + t->byte_offset;
  return tvm_tir__push_region(in, first + lo, hi - lo, false);
}

/* A buffer parameter of a call in TIR gets a handle: a compact tensor of the buffer's (constant)
 * shape at that address, inside the caller's live memory. */
static int bind_handle_as_tensor(tir_interp* in, const tvm_tir_buffer_obj* b, const tir_value* v,
                                 const char* arg) {
  int64_t shape[TIR_MAX_DIMS], ndim = tvm_tir_buffer_ndim(b);
  if (!tvm_tir_dtype_is_handle(v->dtype) || ndim > TIR_MAX_DIMS) {
    return tvm_tir__raise_at("TypeError", NULL, "%s: buffer %s needs a handle, got %s", arg,
                             tvm_tir_buffer_name(b), tvm_tir_dtype_str(v->dtype).s);
  }
  for (int64_t k = 0; k < ndim; ++k) {
    if (!tvm_tir_as_const_int(tvm_tir_array_at(b->shape, k), &shape[k])) {
      return tvm_tir__raise_at("NotImplementedError", NULL,
                               "%s: buffer %s has a symbolic shape, which a handle does not carry",
                               arg, tvm_tir_buffer_name(b));
    }
  }
  DLTensor t = {.data = v->lane[0].p,
                .device = {kDLCPU, 0},
                .ndim = (int32_t)ndim,
                .dtype = b->dtype,
                .shape = shape,
                .strides = NULL,
                .byte_offset = 0};
  return bind_tensor(in, b, &t, arg, false, false);
}

/* A DLTensor a caller passed for a handle parameter (not a buffer's): the DLTensor itself, its
 * shape and strides arrays and the bytes of data its layout reaches are live memory for the
 * call, so that T.tvm_struct_get reads its fields and buffers declared over them read those. */
static int dltensor_regions(tir_interp* in, const DLTensor* t) {
  TRY(tvm_tir__push_region(in, (char*)t, (int64_t)sizeof(DLTensor), false));
  if (t->ndim <= 0) return TIR_OK;
  if (t->ndim > TIR_MAX_DIMS) return TIR_OK; /* no layout read beyond the structure */
  int64_t nb = (int64_t)t->ndim * 8, lo = 0, hi = 1, elem = (t->dtype.bits * t->dtype.lanes + 7) / 8;
  if (t->shape) TRY(tvm_tir__push_region(in, (char*)t->shape, nb, false));
  if (t->strides) TRY(tvm_tir__push_region(in, (char*)t->strides, nb, false));
  if (!t->data || !t->shape) return TIR_OK;
  int64_t stride = 1;
  bool overflow = false;
  for (int64_t k = t->ndim - 1; k >= 0; --k) {
    int64_t st = t->strides ? t->strides[k] : stride, span;
    if (t->shape[k] <= 0) return TIR_OK;
    overflow |= __builtin_mul_overflow(st, t->shape[k] - 1, &span);
    overflow |=
        span < 0 ? __builtin_add_overflow(lo, span, &lo) : __builtin_add_overflow(hi, span, &hi);
    overflow |= __builtin_mul_overflow(stride, t->shape[k], &stride);
  }
  if (overflow || __builtin_mul_overflow(lo, elem, &lo) || __builtin_mul_overflow(hi, elem, &hi))
    return TIR_OK;
  return tvm_tir__push_region(in, (char*)t->data + t->byte_offset + lo, hi - lo, false);
}

static int bind_params(tir_interp* in, const tvm_tir_prim_func_obj* f, const char* fname,
                       const call_args* args) {
  int64_t np = tvm_tir_array_size(f->params), implicit = 0;
  for (int64_t i = 0; i < np; ++i)
    implicit += is_buffer_field_var(f, tvm_tir_array_at(f->params, i));
  bool skip_implicit = args->count != np && args->count == np - implicit;
  if (args->count != np && !skip_implicit) {
    return tvm_tir__raise_at("TypeError", NULL, "%s: expected %lld arguments, got %lld", fname,
                             (long long)np, (long long)args->count);
  }
  /* Scalars first (they enter the scope first), then the buffers bind the variables their
   * fields define, then they check the other fields and bind their data. */
  for (int pass = 0; pass < 3; ++pass) {
    int64_t a = 0;
    for (int64_t i = 0; i < np; ++i) {
      const tvm_tir_var_obj* p = tvm_tir_array_at(f->params, i);
      if (skip_implicit && is_buffer_field_var(f, p)) continue;
      int64_t k = a++;
      const tvm_tir_buffer_obj* b = param_buffer(f, p);
      if ((b != NULL) != (pass >= 1) || (pass == 1 && !args->any)) continue;
      char arg[128];
      snprintf(arg, sizeof(arg), "%s: argument %lld ('%s')", fname, (long long)k,
               tvm_tir_var_name(p));
      if (b && args->any) {
        const TVMFFIAny* x = &args->any[k];
        void* tensor = tvm_ffi_any_as_object(x, kTVMFFITensor);
        const DLTensor* t = x->type_index == kTVMFFIDLTensorPtr ? (const DLTensor*)x->v_ptr
                            : tensor                            ? tvm_ffi_tensor_dl(tensor)
                                                                : NULL;
        if (!t) {
          return tvm_tir__raise_at("TypeError", NULL, "%s: buffer %s needs a tensor, got %s", arg,
                                   tvm_tir_buffer_name(b), tvm_ffi_any_type_name(x));
        }
        TRY(bind_tensor(in, b, t, arg, pass == 2, pass == 1));
      } else if (b) {
        TRY(bind_handle_as_tensor(in, b, &args->values[k], arg));
      } else if (args->any) {
        tir_value v;
        TRY(scalar_from_any(&args->any[k], p, fname, &v));
        TRY(tvm_tir__bind(in, p, &v));
        if ((args->any[k].type_index == kTVMFFIDLTensorPtr ||
             tvm_ffi_any_as_object(&args->any[k], kTVMFFITensor)) && v.lane[0].p)
          TRY(dltensor_regions(in, v.lane[0].p));
      } else {
        if (!tvm_tir_dtype_equal(args->values[k].dtype, p->expr.dtype)) {
          return tvm_tir__raise_at("TypeError", NULL, "%s: expected %s, got %s", arg,
                                   tvm_tir_dtype_str(p->expr.dtype).s,
                                   tvm_tir_dtype_str(args->values[k].dtype).s);
        }
        TRY(tvm_tir__bind(in, p, &args->values[k]));
      }
    }
  }
  return TIR_OK;
}

/* Run f in a fresh frame; *out is the tir.ret value or void. */
static int call_func(tir_interp* in, const tvm_tir_prim_func_obj* f, const char* fname,
                     const call_args* args, tir_value* out) {
  if (in->depth >= TVM_TIR_INTERP_MAX_CALL_DEPTH) {
    return tvm_tir__raise_at("RuntimeError", NULL, "%s: maximum call depth %d exceeded", fname,
                             TVM_TIR_INTERP_MAX_CALL_DEPTH);
  }
  tir_frame frame = {0}, *caller = in->frame;
  int64_t regions = in->num_regions;
  in->frame = &frame;
  in->depth++;
  int rc = bind_params(in, f, fname, args);
  if (rc == TIR_OK) rc = tvm_tir__exec(in, f->body);
  if (rc == TIR_RETURNED) {
    *out = frame.ret;
    rc = TIR_OK;
  } else if (rc == TIR_BREAK || rc == TIR_CONTINUE) { /* (ill-formed IR: no loop to leave) */
    rc = tvm_tir__raise_at("RuntimeError", NULL, "%s: %s outside a loop", fname,
                           rc == TIR_BREAK ? "tir.break_loop" : "tir.continue_loop");
  } else if (rc == TIR_OK) {
    tvm_tir__value_void(out);
  }
  tvm_tir__pop_aliases(in, 0);
  tvm_tir__pop_regions(in, regions);
  tvm_ffi_free(frame.vars);
  tvm_ffi_free(frame.aliases);
  in->frame = caller;
  in->depth--;
  return rc;
}

/* The PrimFunc `name` callable from the code being run (a new reference), or NULL. */
static void* module_func(tir_interp* in, const char* name) {
  if (in->mod) return tvm_tir_ir_module_lookup(in->mod, name);
  const char* self = tvm_tir_func_global_symbol(in->root);
  if (!self || strcmp(self, name) != 0) return NULL;
  tvm_ffi_retain((void*)in->root);
  return (void*)in->root;
}

bool tvm_tir__has_module_func(tir_interp* in, const char* name) {
  void* f = module_func(in, name);
  bool yes = f && tvm_tir_kind_of(f) == TVM_TIR_KIND_PrimFunc;
  tvm_ffi_release(f);
  return yes;
}

int tvm_tir__call_global(tir_interp* in, const char* name, const tir_value* args, int64_t num_args,
                         tir_value* out) {
  void* f = module_func(in, name);
  int rc;
  if (!f) {
    rc = tvm_tir__raise_at(
        "RuntimeError", NULL, "call to '%s': no such function%s", name,
        in->mod ? " in the module" : " (a PrimFunc run alone can only call itself)");
  } else if (tvm_tir_kind_of(f) != TVM_TIR_KIND_PrimFunc) {
    rc = tvm_tir__raise_at("RuntimeError", NULL, "call to '%s': not a PrimFunc", name);
  } else {
    call_args ca = {NULL, args, num_args};
    rc = call_func(in, f, name, &ca, out);
  }
  tvm_ffi_release(f);
  return rc;
}

/* ---- Entry point ---------------------------------------------------------------------------- */
static int ret_to_any(const tir_value* v, const char* fname, TVMFFIAny* out) {
  DLDataType t = v->dtype;
  if (tvm_tir_dtype_is_void(t)) {
    *out = tvm_ffi_any_none();
  } else if (tir_lanes(v) != 1) {
    return tvm_tir__raise_at("NotImplementedError", NULL, "%s: returns a vector (%s)", fname,
                             tvm_tir_dtype_str(t).s);
  } else if (tvm_tir_dtype_is_bool(t)) {
    *out = tvm_ffi_any_bool(v->lane[0].i != 0);
  } else if (tvm_tir_dtype_is_integer(t)) {
    *out = tvm_ffi_any_int(v->lane[0].i);
  } else if (tvm_tir_dtype_is_floating(t)) {
    *out = tvm_ffi_any_float(v->lane[0].f);
  } else {
    *out = tvm_ffi_any_ptr(v->lane[0].p);
  }
  return TIR_OK;
}

int tvm_tir_interp_run(const void* func_or_module, const char* func_name, const TVMFFIAny* args,
                       int32_t num_args, TVMFFIAny* out_ret) {
  return tvm_tir_interp_run_with_memory(func_or_module, func_name, args, num_args, NULL, 0,
                                        out_ret);
}

int tvm_tir_interp_run_with_memory(const void* func_or_module, const char* func_name,
                                   const TVMFFIAny* args, int32_t num_args,
                                   const tvm_tir_interp_memory* memory, int32_t num_memory,
                                   TVMFFIAny* out_ret) {
  tvm_tir_init();
  if (out_ret) *out_ret = tvm_ffi_any_none();
  tir_interp in = {0};
  void* owned = NULL;
  const tvm_tir_prim_func_obj* f = NULL;
  const char* name = func_name;
  tvm_tir_kind kind = tvm_tir_kind_of(func_or_module);
  if (kind == TVM_TIR_KIND_PrimFunc) {
    f = func_or_module;
    if (!name) name = tvm_tir_func_global_symbol(f);
    if (!name) name = "PrimFunc";
  } else if (kind == TVM_TIR_KIND_IRModule) {
    in.mod = func_or_module;
    if (!name)
      return tvm_ffi_raise("ValueError", "tvm_tir_interp_run: a module needs a function name");
    owned = tvm_tir_ir_module_lookup(in.mod, name);
    if (!owned)
      return tvm_ffi_raise("ValueError", "tvm_tir_interp_run: no function '%s' in the module",
                           name);
    if (tvm_tir_kind_of(owned) != TVM_TIR_KIND_PrimFunc) {
      tvm_ffi_release(owned);
      return tvm_ffi_raise("TypeError", "tvm_tir_interp_run: '%s' is not a PrimFunc", name);
    }
    f = owned;
  } else {
    return tvm_ffi_raise(
        "TypeError", "tvm_tir_interp_run: expected a PrimFunc or an IRModule, got %s",
        func_or_module ? tvm_ffi_type_key(tvm_ffi_type_index(func_or_module)) : "NULL");
  }
  in.root = f;
  int rc;
  if (num_args < 0 || (num_args > 0 && !args)) {
    rc = tvm_ffi_raise("TypeError", "%s: invalid argument list", name);
  } else if (num_memory < 0 || (num_memory > 0 && !memory)) {
    rc = tvm_ffi_raise("TypeError", "%s: invalid memory list", name);
  } else {
    rc = TIR_OK;
    for (int32_t k = 0; k < num_memory && rc == TIR_OK; ++k) {
      if (!memory[k].data || memory[k].nbytes < 0)
        rc = tvm_ffi_raise("ValueError", "%s: memory %d: NULL data or a negative size", name, k);
      else
        rc = tvm_tir__push_region(&in, memory[k].data, memory[k].nbytes, false);
    }
  }
  if (rc == TIR_OK) {
    call_args ca = {args, NULL, num_args};
    tir_value ret;
    rc = call_func(&in, f, name, &ca, &ret);
    if (rc == TIR_OK && out_ret) rc = ret_to_any(&ret, name, out_ret);
  }
  tvm_tir__pop_regions(&in, 0);
  tvm_ffi_free(in.regions);
  tvm_tir__gpu_free(&in);
  tvm_ffi_release(owned);
  return rc == TIR_OK ? 0 : -1;
}

/*
 * op_memory_view.c: R.memory.view(x, shape, dtype, relative_byte_offset), a view of x's memory
 * (upstream's relax/op/memory/view.cc). Each of the last three is either "void" (an empty
 * tuple, R.tuple(): keep x's shape / dtype / offset) or the new value: an R.Shape, an R.dtype
 * (a DataTypeImm; another Object-typed value makes the dtype unknown), an int64 R.Prim.
 *
 * The result is x's tensor struct info with the shape and dtype replaced. A view that provably
 * reaches past x's bytes is a ValueError, decided as upstream on the forms it checks (here when
 * the sizes and offset are constants): the view's bytes plus the offset against x's bytes; or,
 * with only the dtype changed, the element size; or, with only the shape changed, the element
 * counts; or, with only the offset given, any positive offset.
 *
 * LowerRuntimeBuiltin turns the call into runtime.TVMTensorCreateView (libvm) with the voids
 * filled in from x, or into x itself when all three are void; the Relax evaluator computes the
 * same view directly.
 *
 * R.to_vdevice(data, dst_vdevice=<ir.VDevice>): a copy of data on that virtual device: data's
 * struct info with the vdevice replaced. LowerRuntimeBuiltin makes it vm.builtin.to_device(data,
 * device type, device index) (a CPU target: kDLCPU; cuda: kDLCUDA); the evaluator, which runs
 * on the CPU, copies for a CPU target and refuses others.
 *
 * R.hint_on_device(data, device): data (a hint); LowerRuntimeBuiltin and the evaluator drop it
 * for a CPU device and refuse others (this project has no RealizeVDevice to act on it).
 */
#include <string.h>
#include <tvm/tir/arith.h>
#include <tvm/tir/attr_value.h>

#include "internal.h"

bool tvm_relax__is_void(const tvm_relax_expr_obj* e) {
  tvm_relax_sinfo_obj* s = e ? tvm_relax_sinfo_of(e) : NULL;
  return tvm_relax_kind_of(s) == TVM_RELAX_KIND_TupleStructInfo &&
         tvm_ffi_seq_size(((tvm_relax_tuple_sinfo_obj*)s)->fields) == 0;
}

/* The product of constant dims, or -1 when some dim is not constant (dims NULL: -1). */
static int64_t const_numel(void* dims) {
  if (!dims) return -1;
  int64_t n = 1;
  for (int64_t i = 0; i < tvm_ffi_seq_size(dims); ++i) {
    int64_t v;
    if (!tvm_tir_as_const_int(tvm_ffi_seq_obj_at(dims, i), &v) || v < 0 ||
        __builtin_mul_overflow(n, v, &n)) {
      return -1;
    }
  }
  return n;
}

/* The product of dims (an int64 PrimExpr, folded), or NULL when dims is NULL or on error. */
static tvm_tir_expr_obj* numel_expr(void* dims) {
  if (!dims) return NULL;
  int64_t nd = tvm_ffi_seq_size(dims);
  tvm_tir_expr_obj* n = nd ? tvm_ffi_seq_obj_at(dims, 0) : NULL;
  if (n) tvm_ffi_retain(n);
  if (!nd) n = tvm_tir_const_int(tvm_tir_dtype_int(64), 1);
  for (int64_t i = 1; n && i < nd; ++i) {
    tvm_tir_expr_obj* m = tvm_tir_mul(n, tvm_ffi_seq_obj_at(dims, i));
    tvm_ffi_release(n);
    n = m;
  }
  if (!n) tvm_ffi_error_clear();
  return n;
}

/* The symbolic form of the checks below: whether need > have is provable (libtir's prover);
 * the amounts are described into *text then. Needs both. */
static bool provably_more(tvm_tir_expr_obj* need, tvm_tir_expr_obj* have, tvm_ffi_strbuf* text) {
  if (!need || !have) return false;
  tvm_tir_expr_obj* gt = tvm_tir_gt(need, have);
  int r = gt ? tvm_tir_prove(gt, NULL) : -1;
  tvm_ffi_release(gt);
  if (r < 0) tvm_ffi_error_clear();
  if (r != 1) return false;
  tvm_tir_expr_obj* parts[2] = {tvm_tir_simplify_expr(need, NULL), tvm_tir_simplify_expr(have, NULL)};
  for (int i = 0; i < 2; ++i) {
    if (i) tvm_ffi_strbuf_puts(text, " against ");
    if (!parts[i]) tvm_ffi_error_clear();
    tvm_tir_node_text(text, parts[i] ? parts[i] : (i ? have : need));
    tvm_ffi_release(parts[i]);
  }
  return true;
}

static int64_t elem_bytes(DLDataType t) {
  return tvm_relax_dtype_is_unknown(t) ? -1 : ((int64_t)t.bits * t.lanes + 7) / 8;
}

tvm_relax_sinfo_obj* tvm_relax__infer_memory_view(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  tvm_relax_expr_obj* a_shape = tvm_relax__arg(ctx, 1);
  tvm_relax_expr_obj* a_dtype = tvm_relax__arg(ctx, 2);
  tvm_relax_expr_obj* a_off = tvm_relax__arg(ctx, 3);
  /* shape */
  bool new_shape = !tvm_relax__is_void(a_shape);
  tvm_relax_sinfo_obj* ss = tvm_relax_sinfo_of(a_shape);
  if (new_shape && tvm_relax_kind_of(ss) != TVM_RELAX_KIND_ShapeStructInfo) {
    tvm_ffi_strbuf got = {0};
    tvm_relax_sinfo_text(&got, ss);
    tvm_relax__arg_error(ctx, 1, "TypeError", "must be a shape or R.tuple() (keep x's), got %s",
                         tvm_ffi_strbuf_cstr(&got));
    tvm_ffi_strbuf_free(&got);
    return NULL;
  }
  /* dtype */
  bool new_dtype = !tvm_relax__is_void(a_dtype);
  DLDataType dtype = x->dtype;
  if (new_dtype) {
    if (tvm_relax_kind_of(a_dtype) == TVM_RELAX_KIND_DataTypeImm) {
      dtype = ((tvm_relax_dtype_imm_obj*)a_dtype)->value;
      if (tvm_relax_dtype_is_unknown(dtype)) { /* R.dtype("void"): no element type to view as */
        return tvm_relax__arg_error(ctx, 2, "TypeError",
                                    "must be a dtype with a size, got \"void\" (write "
                                    "R.tuple() to keep x's)");
      }
    } else if (tvm_relax_kind_of(tvm_relax_sinfo_of(a_dtype)) == TVM_RELAX_KIND_ObjectStructInfo) {
      dtype = TVM_RELAX_DTYPE_UNKNOWN;
    } else {
      return tvm_relax__arg_error(ctx, 2, "TypeError", "must be a dtype (R.dtype) or R.tuple()");
    }
  }
  /* relative_byte_offset: 0 when void, the value of a PrimValue, else unknown (-1) */
  int64_t offset = 0;
  bool offset_known = true;
  if (!tvm_relax__is_void(a_off)) {
    tvm_relax_sinfo_obj* os = tvm_relax_sinfo_of(a_off);
    if (tvm_relax_kind_of(os) != TVM_RELAX_KIND_PrimStructInfo ||
        !tvm_ffi_dtype_equal(((tvm_relax_prim_sinfo_obj*)os)->dtype, tvm_tir_dtype_int(64))) {
      return tvm_relax__arg_error(ctx, 3, "TypeError",
                                  "must be an int64 R.prim_value or R.tuple()");
    }
    tvm_tir_expr_obj* v = ((tvm_relax_prim_sinfo_obj*)os)->value;
    offset_known = v && tvm_tir_as_const_int(v, &offset);
    if (offset_known && offset < 0) {
      return tvm_relax__arg_error(ctx, 3, "ValueError", "must not be negative, got %lld",
                                  (long long)offset);
    }
  }
  void* in_dims = tvm_relax_tensor_sinfo_dims(&x->base);
  void* out_dims = new_shape ? tvm_relax_shape_sinfo_dims(ss) : in_dims;
  int32_t out_ndim = new_shape ? ((tvm_relax_shape_sinfo_obj*)ss)->ndim : x->ndim;
  if (new_shape && out_dims) out_ndim = (int32_t)tvm_ffi_seq_size(out_dims);
  int64_t in_n = const_numel(in_dims), out_n = const_numel(out_dims);
  int64_t in_b = elem_bytes(x->dtype), out_b = elem_bytes(dtype);
  const char* why = NULL;
  int64_t need = 0, have = 0;
  if (in_n >= 0 && out_n >= 0 && in_b > 0 && out_b > 0) {
    need = out_n * out_b + (offset_known ? offset : 0), have = in_n * in_b;
    if (need > have) why = "bytes";
  } else if (in_b > 0 && out_b > 0 && !new_shape && out_b > in_b) {
    need = out_b, have = in_b, why = "bytes per element";
  } else if (in_n >= 0 && out_n >= 0 && !new_dtype && out_n > in_n) {
    need = out_n, have = in_n, why = "elements";
  } else if (!new_shape && !new_dtype && offset_known && offset > 0) {
    need = offset, have = 0, why = "bytes of offset (the view keeps x's size)";
  }
  if (why) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "the view would reach past 'x': it needs %lld %s but 'x' has %lld",
                               (long long)need, why, (long long)have);
  }
  /* The same checks on symbolic dims, where provable: the bytes, or with the dtype kept the
   * element counts (upstream's CanProve on the view's size). */
  if ((in_n < 0 || out_n < 0) && in_dims && out_dims) {
    tvm_tir_expr_obj *in_e = numel_expr(in_dims), *out_e = numel_expr(out_dims);
    tvm_tir_expr_obj *need_e = NULL, *have_e = NULL;
    const char* what = NULL;
    if (in_b > 0 && out_b > 0 && in_e && out_e) {
      tvm_tir_expr_obj* ob = tvm_tir_const_int(tvm_tir_dtype_int(64), out_b);
      tvm_tir_expr_obj* ib = tvm_tir_const_int(tvm_tir_dtype_int(64), in_b);
      tvm_tir_expr_obj* off = tvm_tir_const_int(tvm_tir_dtype_int(64), offset_known ? offset : 0);
      tvm_tir_expr_obj* vb = ob ? tvm_tir_mul(out_e, ob) : NULL;
      need_e = vb && off ? tvm_tir_add(vb, off) : NULL;
      have_e = ib ? tvm_tir_mul(in_e, ib) : NULL;
      what = "bytes";
      tvm_ffi_release(ob), tvm_ffi_release(ib), tvm_ffi_release(off), tvm_ffi_release(vb);
    } else if (!new_dtype && in_e && out_e) {
      tvm_ffi_retain(out_e), tvm_ffi_retain(in_e);
      need_e = out_e, have_e = in_e, what = "elements";
    }
    tvm_ffi_strbuf text = {0};
    bool past = provably_more(need_e, have_e, &text);
    tvm_ffi_release(in_e), tvm_ffi_release(out_e), tvm_ffi_release(need_e), tvm_ffi_release(have_e);
    if (!need_e || !have_e) tvm_ffi_error_clear();
    tvm_relax_sinfo_obj* err =
        past ? tvm_relax__op_error(ctx, "ValueError",
                                   "the view would reach past 'x': its %s (%s) provably exceed "
                                   "x's", what, tvm_ffi_strbuf_cstr(&text))
             : NULL;
    tvm_ffi_strbuf_free(&text);
    if (past) return err;
  }
  if (!new_shape) {
    return x->shape ? tvm_relax_tensor_sinfo_new(x->shape, dtype, x->ndim, x->vdevice)
                    : tvm_relax_tensor_sinfo_new(NULL, dtype, x->ndim, x->vdevice);
  }
  if (out_dims) return tvm_relax__tensor_result(out_dims, dtype, out_ndim, x->vdevice);
  return tvm_relax_tensor_sinfo_new(NULL, dtype, out_ndim, x->vdevice);
}

/* R.memory.ensure_zero_offset(x): x, or a view of its memory whose element offset is zero
 * (upstream's, for kernels that cannot take an offset); of x's struct info. */
tvm_relax_sinfo_obj* tvm_relax__infer_ensure_zero_offset(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  tvm_ffi_retain(x);
  return &x->base;
}

const tvm_relax_attr_field tvm_relax__attrs_to_vdevice[] = {
    {"dst_vdevice", TVM_RELAX_ATTR_ANY, NULL}, {NULL, 0, NULL}};

tvm_relax_sinfo_obj* tvm_relax__infer_to_vdevice(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  const TVMFFIAny* v = tvm_relax__attr(ctx, "dst_vdevice");
  if (!tvm_ffi_any_is_object(v) || !tvm_tir_is(v->v_obj, TVM_TIR_KIND_VDevice)) {
    return tvm_relax__op_error(ctx, "TypeError",
                               "attribute 'dst_vdevice' must be a VDevice, got %s",
                               tvm_ffi_any_type_name(v));
  }
  return tvm_relax_tensor_sinfo_new(x->shape, x->dtype, x->ndim, v->v_obj);
}

int32_t tvm_relax__vdevice_device_type(const void* vdevice) {
  const tvm_tir_vdevice_obj* vd = vdevice;
  TVMFFIAny k = tvm_ffi_any_obj(vd && vd->target ? vd->target->kind : NULL);
  TVMFFIByteArray b = {"", 0};
  if (!tvm_ffi_any_as_bytes(&k, &b)) return -1;
  if ((b.size == 4 && memcmp(b.data, "llvm", 4) == 0) || (b.size == 1 && b.data[0] == 'c'))
    return kDLCPU;
  if (b.size == 4 && memcmp(b.data, "cuda", 4) == 0) return kDLCUDA;
  return -1;
}

/* R.hint_on_device(data, R.device(dev_type, dev_id), memory_scope="global"): data itself, a
 * hint for upstream's RealizeVDevice (not in this project). The result is data's struct info. */
const tvm_relax_attr_field tvm_relax__attrs_hint_on_device[] = {
    {"device_type", TVM_RELAX_ATTR_INT, NULL},
    {"index", TVM_RELAX_ATTR_INT, "0"},
    {"memory_scope", TVM_RELAX_ATTR_STR, "global"},
    {NULL, 0, NULL}};

tvm_relax_sinfo_obj* tvm_relax__infer_hint_on_device(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  int64_t type = tvm_relax__attr_int(ctx, "device_type"), index = tvm_relax__attr_int(ctx, "index");
  if (type < 1 || index < 0) {
    return tvm_relax__op_error(ctx, "ValueError", "the device (%lld, %lld) is not a device",
                               (long long)type, (long long)index);
  }
  return retained_sinfo(&x->base);
}

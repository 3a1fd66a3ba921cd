/*
 * wellformed_call_tir.c: a call_tir / call_tir_inplace / call_tir_with_grad checked against the
 * PrimFunc of the module it calls (upstream's ValidateCallTIR): the number of parameters, and
 * each input's and output's tensor against the parameter's buffer (dtype, rank, and each dim
 * where provable). The buffer's shape variables are bound, in parameter order, by the first dim
 * that names one (the tir_vars bind the trailing scalar parameters first), so `n * m` in a later
 * buffer is compared as the call's dims make it. Only what is provably wrong is reported: an
 * unknown dim, dtype or rank, a parameter without a buffer, or an argument that is no tensor
 * (a DTensor, a PrimValue) is not checked.
 */
#include <string.h>

#include <tvm/tir/arith.h>
#include <tvm/tir/visit.h>

#include "internal.h"

typedef struct {
  tvm_tir_subst subst;  /* the shape variables bound so far (set up at the first) */
  bool bound;
  tvm_ffi_strbuf* why;  /* the mismatch, when found */
  const char* name;     /* the callee's name */
} call_check;

static int64_t size_of(const void* seq) { return seq ? tvm_ffi_seq_size(seq) : 0; }

/* Whether var is a shape variable not bound yet: it is bound to value then. -1 on error. */
static int bind_dim(call_check* k, const void* var, const void* value) {
  if (!tvm_tir_is(var, TVM_TIR_KIND_Var)) return 0;
  TVMFFIAny key = tvm_ffi_any_obj((void*)var);
  if (k->bound && tvm_ffi_map_get(k->subst.vars, &key)) return 0;
  if (!k->bound && tvm_tir_subst_init(&k->subst, false) != 0) return -1;
  k->bound = true;
  return tvm_tir_subst_set_var(&k->subst, var, value) == 0 ? 1 : -1;
}

/* The tensor `t` passed for parameter `param` (as input or output `index`): 0 when it fits,
 * 1 with k->why set when it provably does not, -1 on error. */
static int check_param(call_check* k, const tvm_tir_prim_func_obj* f, const void* param,
                       const tvm_relax_sinfo_obj* s, const char* kind, int64_t index) {
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_TensorStructInfo) return 0;
  const tvm_relax_tensor_sinfo_obj* t = (const tvm_relax_tensor_sinfo_obj*)s;
  TVMFFIAny key = tvm_ffi_any_obj((void*)param);
  const TVMFFIAny* b = f->buffer_map ? tvm_ffi_map_get(f->buffer_map, &key) : NULL;
  if (!b || !tvm_ffi_any_is_object(b)) return 0;
  const tvm_tir_buffer_obj* buf = (const tvm_tir_buffer_obj*)b->v_obj;
  const char* bname = tvm_ffi_str_cstr(buf->name);
  if (!tvm_relax_dtype_is_unknown(t->dtype) && !tvm_ffi_dtype_equal(t->dtype, buf->dtype)) {
    tvm_ffi_strbuf_printf(k->why, "%s %lld has dtype %s, but @%s's buffer %s has %s", kind,
                          (long long)index,
                          tvm_tir_dtype_str(t->dtype).s, k->name, bname,
                          tvm_tir_dtype_str(buf->dtype).s);
    return 1;
  }
  int64_t rank = size_of(buf->shape);
  if (t->ndim != TVM_RELAX_UNKNOWN_NDIM && t->ndim != rank) {
    tvm_ffi_strbuf_printf(k->why, "%s %lld has ndim %d, but @%s's buffer %s has %lld dims",
                          kind, (long long)index, t->ndim, k->name, bname, (long long)rank);
    return 1;
  }
  void* dims = tvm_relax_tensor_sinfo_dims(s);
  for (int64_t d = 0; dims && d < rank; ++d) {
    const void* bd = tvm_ffi_seq_obj_at(buf->shape, d);
    tvm_tir_expr_obj* td = tvm_ffi_seq_obj_at(dims, d);
    int bound = bind_dim(k, bd, td);
    if (bound != 0) {
      if (bound < 0) return -1;
      continue;
    }
    tvm_tir_expr_obj* want =
        k->bound ? tvm_tir_subst_apply(&k->subst, bd) : (tvm_ffi_retain((void*)bd), (void*)bd);
    if (!want) return -1;
    bool unequal = tvm_relax__dim_unequal(want, td);
    if (unequal) {
      tvm_tir_expr_obj* shown = tvm_tir_simplify_expr(want, NULL);
      tvm_ffi_error_clear(); /* (unsimplified then) */
      tvm_ffi_strbuf_printf(k->why, "%s %lld has ", kind, (long long)index);
      tvm_relax__dim_text(k->why, td);
      tvm_ffi_strbuf_printf(k->why, " at dim %lld, but @%s's buffer %s has ", (long long)d,
                            k->name, bname);
      tvm_relax__dim_text(k->why, shown ? shown : want);
      tvm_ffi_release(shown);
    }
    tvm_ffi_release(want);
    if (unequal) return 1;
  }
  return 0;
}

int tvm_relax__call_tir_mismatch(const tvm_tir_ir_module_obj* mod, const tvm_relax_call_obj* c,
                                 tvm_ffi_strbuf* why) {
  const tvm_relax_op_info* info = tvm_relax_op_info_of(c->op);
  if (!info || (info->id != TVM_RELAX_OP_call_tir && info->id != TVM_RELAX_OP_call_tir_inplace &&
                info->id != TVM_RELAX_OP_call_tir_with_grad)) {
    return 0;
  }
  int64_t nargs = size_of(c->args);
  const void* callee = nargs >= 2 ? tvm_ffi_seq_obj_at(c->args, 0) : NULL;
  const tvm_relax_sinfo_obj* in_s = callee ? tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(c->args, 1)) : NULL;
  const tvm_relax_sinfo_obj* out_s =
      size_of(c->sinfo_args) == 1 ? tvm_ffi_seq_obj_at(c->sinfo_args, 0) : NULL;
  if (!tvm_tir_is(callee, TVM_TIR_KIND_GlobalVar) || !out_s ||
      tvm_relax_kind_of(in_s) != TVM_RELAX_KIND_TupleStructInfo) {
    return 0; /* (the inference rule reports malformed calls) */
  }
  const tvm_tir_global_var_obj* gv = callee;
  tvm_tir_prim_func_obj* f = tvm_tir_ir_module_lookup(mod, tvm_ffi_str_cstr(gv->name_hint));
  if (f && tvm_relax_kind_of(f) == TVM_RELAX_KIND_Function) {
    tvm_ffi_strbuf_printf(why,
                          "@%s is a Relax function, not a PrimFunc (a Relax function is called "
                          "directly: cls.%s(...))",
                          tvm_ffi_str_cstr(gv->name_hint), tvm_ffi_str_cstr(gv->name_hint));
    tvm_ffi_release(f);
    return 1;
  }
  if (!tvm_tir_is(f, TVM_TIR_KIND_PrimFunc)) {
    tvm_ffi_release(f);
    tvm_ffi_error_clear(); /* (a name the module lacks: the module's check reports it) */
    return 0;
  }
  void* inputs = ((const tvm_relax_tuple_sinfo_obj*)in_s)->fields;
  bool out_tuple = tvm_relax_kind_of(out_s) == TVM_RELAX_KIND_TupleStructInfo;
  void* outputs = out_tuple ? ((const tvm_relax_tuple_sinfo_obj*)out_s)->fields : NULL;
  int64_t n_in = size_of(inputs), n_out = out_tuple ? size_of(outputs) : 1;
  /* call_tir_inplace: only the outputs not computed in place of an input are parameters. */
  const TVMFFIAny* idx = info->id == TVM_RELAX_OP_call_tir_inplace
                             ? tvm_relax_call_attr(c, "inplace_indices")
                             : NULL;
  void* inplace = idx && idx->type_index == kTVMFFIArray ? idx->v_obj : NULL;
  const void* tir_vars = nargs >= 3 ? tvm_ffi_seq_obj_at(c->args, 2) : NULL;
  void* var_values = tvm_relax_kind_of(tir_vars) == TVM_RELAX_KIND_ShapeExpr
                         ? ((const tvm_relax_shape_expr_obj*)tir_vars)->values
                         : NULL;
  int64_t n_new = 0;
  for (int64_t j = 0; j < n_out; ++j) {
    int64_t at = -1;
    if (j < size_of(inplace)) tvm_ffi_any_as_int(tvm_ffi_seq_at(inplace, j), &at);
    n_new += at == -1;
  }
  int64_t n_vars = size_of(var_values);
  int64_t nparams = size_of(f->params);
  call_check k = {.why = why, .name = tvm_ffi_str_cstr(gv->name_hint)};
  int rc = 0;
  if (nparams != n_in + n_new + n_vars) {
    tvm_ffi_strbuf_printf(why,
                          "@%s takes %lld parameters, but the call passes %lld input(s) and "
                          "%lld output(s)%s",
                          k.name, (long long)nparams, (long long)n_in, (long long)n_new,
                          n_vars ? " and the tir_vars" : "");
    rc = 1;
  } else {
    /* The tir_vars bind the trailing parameters, then inputs and outputs in order. */
    for (int64_t v = 0; rc == 0 && v < n_vars; ++v) {
      const void* param = tvm_ffi_seq_obj_at(f->params, n_in + n_new + v);
      if (bind_dim(&k, param, tvm_ffi_seq_obj_at(var_values, v)) < 0) rc = -1;
    }
    for (int64_t i = 0; rc == 0 && i < n_in; ++i) {
      rc = check_param(&k, f, tvm_ffi_seq_obj_at(f->params, i), tvm_ffi_seq_obj_at(inputs, i),
                       "input", i);
    }
    for (int64_t j = 0, p = n_in; rc == 0 && j < n_out; ++j) {
      int64_t at = -1;
      if (j < size_of(inplace)) tvm_ffi_any_as_int(tvm_ffi_seq_at(inplace, j), &at);
      if (at != -1) continue;
      rc = check_param(&k, f, tvm_ffi_seq_obj_at(f->params, p++),
                       out_tuple ? tvm_ffi_seq_obj_at(outputs, j) : out_s, "output", j);
    }
    if (k.bound) tvm_tir_subst_free(&k.subst);
  }
  tvm_ffi_release(f);
  return rc;
}

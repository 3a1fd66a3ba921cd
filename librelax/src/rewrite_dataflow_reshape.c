/*
 * rewrite_dataflow_reshape.c: RewriteDataflowReshape (tvm/relax/transform.h), upstream's pass of
 * that name: in a dataflow block, `lv = R.call_tir(k, (.., x, ..), out_sinfo)` whose kernel only
 * moves x's data, in the same order, into an output of another shape becomes
 * `lv = R.reshape(x, R.shape(out dims))`, which LowerRuntimeBuiltin turns into
 * vm.builtin.reshape: a view of x, no copy and no kernel.
 *
 * The kernel test (upstream's HasReshapePattern, here structural): k's parameters are one buffer
 * per tuple field and then the output; its body is a loop nest over the output's whole shape
 * (each loop from 0 to the output's dim, outermost first) around the one statement
 *   out[i0, ..., in-1] = A[idx]
 * where A is an input buffer and idx are the indices of A's shape whose row-major linear index
 * is that of (i0, ..., in-1) in out's shape (written as LegalizeOps' reshape, flatten, squeeze
 * and expand_dims kernels write them, or simplifying to the same expressions); both buffers
 * compact, of one dtype. The call is rewritten when, besides, x's and the output's element
 * counts are provably equal and their dtypes equal, and lv is a DataflowVar (as upstream: a
 * block's outputs are not made views).
 */
#include <tvm/relax/analysis.h>
#include <tvm/relax/transform.h>
#include <tvm/tir/builder.h>

#include "internal.h"

enum { MAX_DIMS = 16 };

static bool compact(const tvm_tir_buffer_obj* b) {
  int64_t off;
  return tvm_ffi_seq_size(b->strides) == 0 &&
         (!b->elem_offset || (tvm_tir_as_const_int(b->elem_offset, &off) && off == 0));
}

static bool expr_equal(const void* a, const void* b) {
  TVMFFIAny x = tvm_ffi_any_obj(a), y = tvm_ffi_any_obj(b);
  int eq = tvm_ffi_structural_equal(&x, &y, false, NULL, NULL);
  if (eq < 0) tvm_ffi_error_clear();
  if (eq == 1) return true;
  tvm_tir_expr_obj* sa = tvm_tir_simplify_expr(a, NULL);
  tvm_tir_expr_obj* sb = sa ? tvm_tir_simplify_expr(b, NULL) : NULL;
  bool same = false;
  if (sb) {
    TVMFFIAny u = tvm_ffi_any_obj(sa), v = tvm_ffi_any_obj(sb);
    same = tvm_ffi_structural_equal(&u, &v, false, NULL, NULL) == 1;
  }
  tvm_ffi_release(sa);
  tvm_ffi_release(sb);
  tvm_ffi_error_clear();
  return same;
}

static tvm_tir_buffer_obj* param_buffer(const tvm_tir_prim_func_obj* f, int64_t i) {
  TVMFFIAny k = tvm_ffi_any_obj(tvm_ffi_seq_obj_at(f->params, i));
  const TVMFFIAny* b = f->buffer_map ? tvm_ffi_map_get(f->buffer_map, &k) : NULL;
  return b && tvm_tir_is(b->v_obj, TVM_TIR_KIND_Buffer) ? (tvm_tir_buffer_obj*)b->v_obj : NULL;
}

/* The input (0..nin-1) whose data kernel f copies in order into its output, or -1. */
static int64_t reshape_input(const tvm_tir_prim_func_obj* f, int64_t nin) {
  if (tvm_ffi_seq_size(f->params) != nin + 1) return -1;
  tvm_tir_buffer_obj* out = param_buffer(f, nin);
  int64_t n = out ? tvm_ffi_seq_size(out->shape) : -1;
  if (!out || n > MAX_DIMS || !compact(out)) return -1;
  void* vars[MAX_DIMS];
  const void* s = f->body;
  for (int64_t d = 0; d < n; ++d) {
    if (!tvm_tir_is(s, TVM_TIR_KIND_For)) return -1;
    const tvm_tir_for_obj* loop = s;
    int64_t lo;
    if (loop->kind == TVM_TIR_FOR_THREAD_BINDING || !tvm_tir_as_const_int(loop->min, &lo) || lo != 0 ||
        !expr_equal(loop->extent, tvm_ffi_seq_obj_at(out->shape, d))) {
      return -1;
    }
    vars[d] = loop->loop_var;
    s = loop->body;
  }
  if (!tvm_tir_is(s, TVM_TIR_KIND_BufferStore)) return -1;
  const tvm_tir_buffer_store_obj* st = s;
  if (st->buffer != out || tvm_ffi_seq_size(st->indices) != n) return -1;
  for (int64_t d = 0; d < n; ++d) {
    if (tvm_ffi_seq_obj_at(st->indices, d) != vars[d]) return -1;
  }
  if (!tvm_tir_is(st->value, TVM_TIR_KIND_BufferLoad)) return -1;
  const tvm_tir_buffer_load_obj* ld = (const void*)st->value;
  int64_t k = -1;
  for (int64_t i = 0; i < nin && k < 0; ++i) {
    if (param_buffer(f, i) == ld->buffer) k = i;
  }
  tvm_tir_buffer_obj* in = ld->buffer;
  int64_t m = tvm_ffi_seq_size(in->shape);
  if (k < 0 || m > MAX_DIMS || tvm_ffi_seq_size(ld->indices) != m || !compact(in) ||
      !tvm_ffi_dtype_equal(in->dtype, out->dtype)) {
    return -1;
  }
  /* The indices of A at out's row-major position, built as the legalized kernels build them. */
  void* lin = tvm_relax__flat_index(out, vars);
  void* want[MAX_DIMS];
  tvm_relax__unflat_index(in, lin, want);
  tvm_ffi_release(lin);
  bool same = true;
  for (int64_t i = 0; i < m; ++i) {
    same = same && want[i] && expr_equal(tvm_ffi_seq_obj_at(ld->indices, i), want[i]);
  }
  tvm_relax__release_all(want, m);
  return same ? k : -1;
}

/* The product of dims (an ffi.Array of int64 PrimExprs), new reference. */
static tvm_tir_expr_obj* numel(void* dims) {
  tvm_tir_expr_obj* p = tvm_relax__int64(1);
  for (int64_t i = 0; p && i < tvm_ffi_seq_size(dims); ++i) {
    p = tvm_tir_mul_take(p, tvm_tir_ref(tvm_ffi_seq_obj_at(dims, i)));
  }
  return p;
}

/* R.reshape(x, R.shape(out dims)) for the call, or NULL (no error) when it is not a reshape. */
static tvm_relax_expr_obj* as_reshape(const tvm_tir_ir_module_obj* mod, const tvm_relax_call_obj* call) {
  if (tvm_relax__call_op_id(call) != TVM_RELAX_OP_call_tir || tvm_ffi_seq_size(call->args) != 2) return NULL;
  const tvm_tir_global_var_obj* gv = tvm_ffi_seq_obj_at(call->args, 0);
  const tvm_relax_tuple_obj* in = tvm_ffi_seq_obj_at(call->args, 1);
  const tvm_relax_sinfo_obj* os = tvm_relax_sinfo_of(call);
  void* out_dims = tvm_relax_tensor_sinfo_dims(os);
  if (!tvm_tir_is(gv, TVM_TIR_KIND_GlobalVar) || tvm_relax_kind_of(in) != TVM_RELAX_KIND_Tuple ||
      tvm_relax_kind_of(os) != TVM_RELAX_KIND_TensorStructInfo || !out_dims) {
    return NULL;
  }
  void* f = tvm_tir_ir_module_lookup(mod, tvm_ffi_str_cstr(gv->name_hint));
  int64_t k = tvm_tir_is(f, TVM_TIR_KIND_PrimFunc) ? reshape_input(f, tvm_ffi_seq_size(in->fields)) : -1;
  tvm_ffi_release(f);
  if (k < 0) return NULL;
  tvm_relax_expr_obj* x = tvm_ffi_seq_obj_at(in->fields, k);
  const tvm_relax_sinfo_obj* xs = tvm_relax_sinfo_of(x);
  void* in_dims = tvm_relax_tensor_sinfo_dims(xs);
  if (tvm_relax_kind_of(xs) != TVM_RELAX_KIND_TensorStructInfo || !in_dims ||
      !tvm_ffi_dtype_equal(((const tvm_relax_tensor_sinfo_obj*)xs)->dtype,
                           ((const tvm_relax_tensor_sinfo_obj*)os)->dtype)) {
    return NULL;
  }
  tvm_tir_expr_obj* a = numel(in_dims);
  tvm_tir_expr_obj* b = a ? numel(out_dims) : NULL;
  bool same = b && tvm_relax__dim_equal(a, b);
  tvm_ffi_release(a);
  tvm_ffi_release(b);
  if (!same) return NULL;
  tvm_relax_expr_obj* shape = tvm_relax_shape_expr_new(out_dims);
  tvm_relax_expr_obj* r = shape ? tvm_relax_call_op("relax.reshape", NULL, 2, x, shape) : NULL;
  tvm_ffi_release(shape);
  return r;
}

static void* post_binding(tvm_relax_mutator* m, const void* node) {
  const tvm_relax_binding_obj* b = node;
  const void* v = tvm_relax_binding_value(b);
  tvm_relax_expr_obj* r = NULL;
  if (tvm_relax_kind_of(b->var) == TVM_RELAX_KIND_DataflowVar && tvm_relax_kind_of(v) == TVM_RELAX_KIND_Call) {
    r = as_reshape(m->ctx, v);
    if (!r && tvm_ffi_error_pending()) return NULL;
  }
  if (!r) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  tvm_relax_binding_obj* out = tvm_relax_var_binding_new(b->var, r);
  tvm_ffi_release(r);
  return out;
}

static tvm_relax_function_obj* rewrite(tvm_relax_function_obj* f, void* ctx) {
  tvm_relax_mutator m = {0};
  m.ctx = ctx;
  m.post[TVM_RELAX_KIND_VarBinding] = post_binding;
  tvm_relax_function_obj* out = tvm_relax_mutate(&m, f);
  tvm_relax_mutator_free(&m);
  return out;
}

static tvm_tir_ir_module_obj* run_rewrite_dataflow_reshape(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__map_functions(mod, "RewriteDataflowReshape", rewrite, (void*)mod);
}

tvm_tir_ir_module_obj* tvm_relax_transform_rewrite_dataflow_reshape(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__pass_set_aside(run_rewrite_dataflow_reshape, mod);
}

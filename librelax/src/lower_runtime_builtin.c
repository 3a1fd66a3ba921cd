/*
 * lower_runtime_builtin.c: LowerRuntimeBuiltin (tvm/relax/transform.h), upstream's pass of that
 * name for the operators this project has: a call of an operator the VM implements as a builtin
 * becomes a call of that builtin's ExternFunc with the same arguments and the call's struct info
 * as its sinfo_args (so bindings keep their variables):
 *   R.reshape(x, shape)      -> vm.builtin.reshape(x, shape)     (a view: no copy)
 *   R.shape_of(x)            -> vm.builtin.shape_of(x)
 *   R.tensor_to_shape(t)     -> vm.builtin.tensor_to_shape(t)
 *   R.memory.ensure_zero_offset(x) -> vm.builtin.ensure_zero_offset(x) (x, or a view of it)
 *   R.memory.view(x, ...)    -> runtime.TVMTensorCreateView(x, shape, dtype, offset) (a view;
 *                               voids filled in from x; x itself when all are void)
 *   R.to_vdevice(x, d)       -> vm.builtin.to_device(x, device type, index) (a copy)
 *   R.hint_on_device(x, dev) -> x on the CPU (a ValueError for another device)
 * The memory operators (R.memory.alloc_storage / alloc_tensor / kill_*), which upstream turns
 * into R.vm.* operators here, have no R.vm.* counterparts in this project: VMCodeGen maps them
 * to vm.builtin.alloc_storage / alloc_tensor / null_value itself (docs/architecture.md).
 */
#include <tvm/relax/analysis.h>
#include <tvm/relax/transform.h>
#include <tvm/tir/attr_value.h>

#include "internal.h"

static const char* builtin_of(int32_t id) {
  switch (id) {
    case TVM_RELAX_OP_reshape: return "vm.builtin.reshape";
    case TVM_RELAX_OP_shape_of: return "vm.builtin.shape_of";
    case TVM_RELAX_OP_tensor_to_shape: return "vm.builtin.tensor_to_shape";
    case TVM_RELAX_OP_memory_ensure_zero_offset: return "vm.builtin.ensure_zero_offset";
    default: return NULL;
  }
}

/* R.memory.view(x, shape, dtype, offset) -> runtime.TVMTensorCreateView(x, shape, dtype,
 * offset) with the void arguments filled in from x (x itself when all three are void), as
 * upstream's LowerBuiltinView; the ExternFunc is typed by the view's rule, as upstream's. */
static const char kViewRule[] = "tvm.relax.type.infer_view_ty";
static void* lower_view(const tvm_relax_call_obj* call) {
  tvm_relax_expr_obj* x = tvm_ffi_seq_obj_at(call->args, 0);
  bool all_void = true;
  for (int i = 1; i < 4; ++i) all_void = all_void && tvm_relax__is_void(tvm_ffi_seq_obj_at(call->args, i));
  if (all_void) {
    tvm_ffi_retain(x);
    return x;
  }
  const tvm_relax_tensor_sinfo_obj* xs = (const void*)tvm_relax_sinfo_of(x);
  void* items[4] = {x, NULL, NULL, NULL};
  void* made[3] = {NULL, NULL, NULL};
  for (int i = 1; i < 4; ++i) {
    items[i] = tvm_ffi_seq_obj_at(call->args, i);
    if (!tvm_relax__is_void(items[i])) continue;
    if (i == 1) {
      void* dims = tvm_relax_tensor_sinfo_dims(&xs->base);
      if (!dims) {
        tvm_ffi_raise("ValueError", "LowerRuntimeBuiltin: relax.memory.view without a shape needs "
                      "the shape of 'x', which is unknown");
        break;
      }
      made[0] = tvm_relax_shape_expr_new(dims);
    } else if (i == 2) {
      if (tvm_relax_dtype_is_unknown(xs->dtype)) {
        tvm_ffi_raise("ValueError", "LowerRuntimeBuiltin: relax.memory.view without a dtype needs "
                      "the dtype of 'x', which is unknown");
        break;
      }
      made[1] = tvm_relax_dtype_imm_new(xs->dtype);
    } else {
      made[2] = tvm_relax_prim_value_int64(0);
    }
    if (!(items[i] = made[i - 1])) break;
  }
  void* out = NULL;
  void* args = items[1] && items[2] && items[3] ? tvm_ffi_array_of_objects(items, 4) : NULL;
  tvm_relax_sinfo_obj* fs = args ? tvm_relax_func_sinfo_derived(kViewRule, true) : NULL;
  tvm_relax_expr_obj* callee = fs ? tvm_relax_extern_func_new("runtime.TVMTensorCreateView", fs) : NULL;
  out = callee ? tvm_relax_call_new(callee, args, NULL, NULL, call->expr.span) : NULL;
  tvm_ffi_release(callee), tvm_ffi_release(fs), tvm_ffi_release(args);
  tvm_relax__release_all(made, 3);
  return out;
}

/* R.to_vdevice(x, dst_vdevice=d) -> vm.builtin.to_device(x, device type, d's index), as
 * upstream's; a target kind without a device type here is a ValueError. */
static void* lower_to_vdevice(const tvm_relax_call_obj* call) {
  const TVMFFIAny* v = tvm_relax_call_attr(call, "dst_vdevice");
  const tvm_tir_vdevice_obj* vd = v && tvm_ffi_any_is_object(v) ? (const void*)v->v_obj : NULL;
  int32_t type = vd ? tvm_relax__vdevice_device_type(vd) : -1;
  if (type < 0) {
    tvm_ffi_raise("ValueError", "LowerRuntimeBuiltin: relax.to_vdevice to a virtual device whose "
                  "target kind has no device here (llvm, c and cuda have)");
    return NULL;
  }
  void* items[3] = {tvm_ffi_seq_obj_at(call->args, 0), tvm_relax_prim_value_int64(type),
                    tvm_relax_prim_value_int64(vd->vdevice_id)};
  void* args = items[1] && items[2] ? tvm_ffi_array_of_objects(items, 3) : NULL;
  tvm_relax_sinfo_obj* fs = args ? tvm_relax_func_sinfo_new(NULL, NULL, true) : NULL;
  tvm_relax_expr_obj* callee = fs ? tvm_relax_extern_func_new("vm.builtin.to_device", fs) : NULL;
  void* out = tvm_relax__call_sinfo(callee, args, tvm_relax_sinfo_of(call), call->expr.span);
  tvm_ffi_release(callee), tvm_ffi_release(fs), tvm_ffi_release(args);
  tvm_ffi_release(items[1]), tvm_ffi_release(items[2]);
  return out;
}

static void* post_call(tvm_relax_mutator* m, const void* node) {
  (void)m;
  const tvm_relax_call_obj* call = node;
  if (tvm_relax__call_op_id(call) == TVM_RELAX_OP_memory_view) return lower_view(call);
  if (tvm_relax__call_op_id(call) == TVM_RELAX_OP_to_vdevice) return lower_to_vdevice(call);
  if (tvm_relax__call_op_id(call) == TVM_RELAX_OP_hint_on_device) {
    /* A hint that data lives on a device: data itself on the CPU; this project has no
     * RealizeVDevice to place data elsewhere. */
    const TVMFFIAny* t = tvm_relax_call_attr(call, "device_type");
    int64_t type = 0;
    if (t) tvm_ffi_any_as_int(t, &type);
    if (type != kDLCPU) {
      tvm_ffi_raise("ValueError", "LowerRuntimeBuiltin: relax.hint_on_device to device type %lld: "
                    "only the CPU (1) is supported (no RealizeVDevice)", (long long)type);
      return NULL;
    }
    void* x = tvm_ffi_seq_obj_at(call->args, 0);
    tvm_ffi_retain(x);
    return x;
  }
  const char* name = builtin_of(tvm_relax__call_op_id(call));
  if (!name) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  /* These builtins only read their arguments: a pure opaque function, so the calls may stay
   * where the operators were (dataflow blocks and nested functions included). */
  tvm_relax_sinfo_obj* fs = tvm_relax_func_sinfo_new(NULL, NULL, true);
  tvm_relax_expr_obj* callee = fs ? tvm_relax_extern_func_new(name, fs) : NULL;
  tvm_ffi_release(fs);
  tvm_relax_expr_obj* out =
      tvm_relax__call_sinfo(callee, call->args, tvm_relax_sinfo_of(call), call->expr.span);
  tvm_ffi_release(callee);
  return out;
}

static tvm_relax_function_obj* rewrite(tvm_relax_function_obj* f, void* ctx) {
  (void)ctx;
  tvm_relax_mutator m = {0};
  m.post[TVM_RELAX_KIND_Call] = post_call;
  tvm_relax_function_obj* out = tvm_relax_mutate(&m, f);
  tvm_relax_mutator_free(&m);
  return out;
}

static tvm_tir_ir_module_obj* run_lower_runtime_builtin(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__map_functions(mod, "LowerRuntimeBuiltin", rewrite, NULL);
}

tvm_tir_ir_module_obj* tvm_relax_transform_lower_runtime_builtin(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__pass_set_aside(run_lower_runtime_builtin, mod);
}

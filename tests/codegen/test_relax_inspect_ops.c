/*
 * test_relax_inspect_ops.c: the relax.inspect operators on tensors whose dtype and shape are
 * known only at run time, legalized to direct calls of host getters (`_get_tensor_<field>`)
 * and run compiled (tvm_codegen_relax_build, libvm), by the reference evaluator on the module
 * as built (the operators read directly) and on the legalized one (the getters in the TIR
 * interpreter); every result checked against values read here from the DLTensor passed:
 * float32 / int8 / uint8 / int16x2 tensors of rank 0, 1 and 3, a transposed view (explicit
 * strides), views with a byte offset, and a tensor whose strides pointer is NULL (compact);
 * a negative axis and an axis >= ndim are clean ValueErrors.
 */
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/relax/transform.h>
#include <tvm/vm/vm.h>

#include "relax_models.h"
#include "relax_testing.h"
#include "exec_mode_testing.h"

static tvm_relax_expr_obj* inspect(const char* op, int n, void* a, void* b) {
  return n == 1 ? tvm_relax_call_op(op, NULL, 1, a) : tvm_relax_call_op(op, NULL, 2, a, b);
}

static tvm_relax_var_obj* emit(tvm_relax_block_builder* bb, tvm_relax_expr_obj* e) {
  tvm_relax_var_obj* v = e ? tvm_relax_bb_emit(bb, e, NULL) : NULL;
  tvm_ffi_release(e);
  return v;
}

/* End the function returning the tuple of vals (released). */
static void end_tuple(tvm_relax_block_builder* bb, tvm_relax_var_obj** vals, int n) {
  void* items[8];
  for (int i = 0; i < n; ++i) items[i] = vals[i];
  void* arr = tvm_ffi_array_of_objects(items, n);
  tvm_relax_expr_obj* t = arr ? tvm_relax_tuple_new(arr) : NULL;
  tvm_tir_global_var_obj* g = t ? tvm_relax_bb_function_end(bb, t, NULL) : NULL;
  CHECK(g != NULL);
  tvm_ffi_release(g), tvm_ffi_release(t), tvm_ffi_release(arr);
  for (int i = 0; i < n; ++i) tvm_ffi_release(vals[i]);
}

static const char* const kFields[6] = {
    "relax.inspect.tensor_ndim",        "relax.inspect.tensor_dtype_code",
    "relax.inspect.tensor_dtype_bits",  "relax.inspect.tensor_dtype_lanes",
    "relax.inspect.tensor_byte_offset", "relax.inspect.tensor_elem_offset"};

/*
 * fields(A: R.Tensor) -> (ndim, code, bits, lanes, byte_offset, elem_offset)
 * dims(A: R.Tensor, ax: R.Prim("int64")) -> (shape_i(A, ax), stride_i(A, ax))
 * mat(B: R.Tensor(ndim=2)) -> (ndim (folded: 2), shape_i(B, 1), stride_i(B, 0))
 */
static tvm_tir_ir_module_obj* inspect_model(void) {
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  DLDataType any = TVM_RELAX_DTYPE_UNKNOWN;
  tvm_relax_var_obj* a = rt_var_take("A", tvm_relax_tensor_sinfo_new(NULL, any, -1, NULL));
  void* params = rt_array(1, a);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "fields", params, NULL, true));
  tvm_relax_var_obj* f[6];
  for (int i = 0; i < 6; ++i) f[i] = emit(bb, inspect(kFields[i], 1, a, NULL));
  end_tuple(bb, f, 6);
  tvm_ffi_release(params);

  tvm_relax_var_obj* a2 = rt_var_take("A", tvm_relax_tensor_sinfo_new(NULL, any, -1, NULL));
  tvm_relax_var_obj* ax = rt_var_take("ax", tvm_relax_prim_sinfo_new(I64, NULL));
  params = rt_array(2, a2, ax);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "dims", params, NULL, true));
  tvm_relax_var_obj* d[2] = {emit(bb, inspect("relax.inspect.tensor_shape_i", 2, a2, ax)),
                             emit(bb, inspect("relax.inspect.tensor_stride_i", 2, a2, ax))};
  end_tuple(bb, d, 2);
  tvm_ffi_release(params);

  tvm_relax_var_obj* b = rt_var_take("B", tvm_relax_tensor_sinfo_new(NULL, any, 2, NULL));
  params = rt_array(1, b);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "mat", params, NULL, true));
  tvm_tir_expr_obj *c1 = tvm_tir_i64(1), *c0 = tvm_tir_i64(0);
  tvm_relax_expr_obj *one = tvm_relax_prim_value_new(c1), *zero = tvm_relax_prim_value_new(c0);
  tvm_relax_var_obj* m[3] = {emit(bb, inspect("relax.inspect.tensor_ndim", 1, b, NULL)),
                             emit(bb, inspect("relax.inspect.tensor_shape_i", 2, b, one)),
                             emit(bb, inspect("relax.inspect.tensor_stride_i", 2, b, zero))};
  end_tuple(bb, m, 3);
  tvm_ffi_release(params);
  tvm_tir_ir_module_obj* mod = tvm_relax_bb_module(bb);
  void* objs[] = {one, zero, c1, c0, a, a2, ax, b};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  tvm_relax_bb_free(bb);
  return mod;
}

/* The expected values read from the DLTensor itself. */
static int64_t elem_bytes(const DLTensor* t) { return (t->dtype.bits * t->dtype.lanes + 7) / 8; }
static int64_t stride_of(const DLTensor* t, int64_t axis) {
  if (t->strides) return t->strides[axis];
  int64_t s = 1;
  for (int64_t k = axis + 1; k < t->ndim; ++k) s *= t->shape[k];
  return s;
}

static void check_ints(const TVMFFIAny* r, const int64_t* want, int n, const char* what) {
  CHECK(r->type_index == kTVMFFIArray && tvm_ffi_seq_size(r->v_obj) == n);
  if (r->type_index != kTVMFFIArray || tvm_ffi_seq_size(r->v_obj) != n) return;
  for (int i = 0; i < n; ++i) {
    const TVMFFIAny* v = tvm_ffi_seq_at(r->v_obj, i);
    if (v->type_index != kTVMFFIInt || v->v_int64 != want[i]) {
      fprintf(stderr, "%s: result %d: want %lld, got %s %lld\n", what, i, (long long)want[i],
              tvm_ffi_any_type_name(v), (long long)v->v_int64);
      g_test_failed_checks++;
    }
  }
}

typedef struct {
  const char* name;
  tvm_tir_ir_module_obj* mod; /* evaluated when vm is NULL */
  tvm_vm* vm;
} runner;

static int call(const runner* r, const char* func, const TVMFFIAny* args, int n, TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  return r->vm ? tvm_vm_invoke(r->vm, func, args, n, out)
               : tvm_relax_eval(r->mod, func, args, n, out);
}

/* Every field and every axis of t, through r, against the DLTensor. */
static void check_tensor(const runner* r, void* t) {
  const DLTensor* dl = tvm_ffi_tensor_dl(t);
  TVMFFIAny arg = tvm_ffi_any_obj(t), out;
  CHECK_OK(call(r, "fields", &arg, 1, &out));
  int64_t want[6] = {dl->ndim,        dl->dtype.code, dl->dtype.bits, dl->dtype.lanes,
                     (int64_t)dl->byte_offset, (int64_t)dl->byte_offset / elem_bytes(dl)};
  check_ints(&out, want, 6, r->name);
  tvm_ffi_any_release(&out);
  for (int64_t axis = 0; axis < dl->ndim; ++axis) {
    TVMFFIAny args[2] = {arg, tvm_ffi_any_int(axis)};
    CHECK_OK(call(r, "dims", args, 2, &out));
    int64_t dims[2] = {dl->shape[axis], stride_of(dl, axis)};
    check_ints(&out, dims, 2, r->name);
    tvm_ffi_any_release(&out);
  }
  if (dl->ndim == 2) {
    CHECK_OK(call(r, "mat", &arg, 1, &out));
    int64_t m[3] = {2, dl->shape[1], stride_of(dl, 0)};
    check_ints(&out, m, 3, r->name);
    tvm_ffi_any_release(&out);
  }
  /* A negative axis, an axis of ndim and a large one: clean ValueErrors. */
  const int64_t bad[3] = {-1, dl->ndim, 1000};
  for (int i = 0; i < 3; ++i) {
    TVMFFIAny args[2] = {arg, tvm_ffi_any_int(bad[i])};
    CHECK(call(r, "dims", args, 2, &out) != 0);
    CHECK_RAISED("ValueError", bad[i] < 0 ? "Specified axis may not be negative"
                                          : "Specified axis may not be larger than the tensor's "
                                            "dimensionality");
  }
}

static void* filled(const int64_t* shape, int ndim, DLDataType dtype) {
  void* t = tvm_ffi_tensor_empty(shape, ndim, dtype, (DLDevice){kDLCPU, 0});
  const DLTensor* dl = tvm_ffi_tensor_dl(t);
  memset(dl->data, 0, (size_t)tvm_ffi_dltensor_nbytes(dl));
  return t;
}

static void check_all(const runner* r) {
  const int64_t s3[3] = {2, 3, 4}, s1[1] = {7}, s2[2] = {3, 4}, s8[1] = {8};
  void* f3 = filled(s3, 3, F32);
  void* i1 = filled(s1, 1, (DLDataType){kDLInt, 8, 1});
  void* sc = filled(NULL, 0, F32);
  void* v2 = filled(s2, 2, (DLDataType){kDLInt, 16, 2});
  void* base = filled((int64_t[]){12}, 1, F32);
  /* the transpose of a (3, 4) matrix: shape (4, 3), strides (1, 4) */
  void* tr = tvm_ffi_tensor_view(base, (int64_t[]){4, 3}, 2, (int64_t[]){1, 4}, 0, F32);
  /* elements 3 .. 8 of base as a (2, 3) matrix: byte_offset 12, elem_offset 3 */
  void* off = tvm_ffi_tensor_view(base, (int64_t[]){2, 3}, 2, NULL, 3, F32);
  void* i8 = filled(s8, 1, (DLDataType){kDLInt, 8, 1});
  /* a strided, offset int8 view: elements 1, 3, 5 (byte_offset 1, elem_offset 1) */
  void* odd =
      tvm_ffi_tensor_view(i8, (int64_t[]){3}, 1, (int64_t[]){2}, 1, (DLDataType){kDLInt, 8, 1});
  /* ffi.Tensors carry explicit strides; a DLPack producer's compact tensor may have NULL
   * strides (the pointer is nulled here, the inline array stays owned by the tensor) */
  void* ns = filled(s3, 3, (DLDataType){kDLUInt, 8, 1});
  tvm_ffi_tensor_dl(ns)->strides = NULL;
  CHECK(tr && off && odd);
  CHECK(tr && tvm_ffi_tensor_dl(tr)->strides != NULL);
  CHECK(off && tvm_ffi_tensor_dl(off)->byte_offset == 12);
  void* all[] = {f3, i1, sc, v2, tr, off, odd, ns};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) {
    if (all[i]) check_tensor(r, all[i]);
  }
  void* objs[] = {f3, i1, sc, v2, base, tr, off, i8, odd, ns};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
}

TEST(inspect_evaluated_and_compiled) {
  tvm_tir_ir_module_obj* mod = inspect_model();
  CHECK(mod != NULL);
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  CHECK(legal != NULL);
  /* each operator became a direct call of its getter, one getter per kind */
  CHECK_EQ_INT(relax_models_count_calls(legal, "fields", "relax.inspect.tensor_ndim"), 0);
  CHECK_EQ_INT(relax_models_count_calls(legal, "dims", "relax.inspect.tensor_stride_i"), 0);
  void* g = legal ? tvm_tir_ir_module_lookup(legal, "_get_tensor_stride_i") : NULL;
  CHECK(tvm_tir_is(g, TVM_TIR_KIND_PrimFunc));
  tvm_ffi_release(g);
  g = legal ? tvm_tir_ir_module_lookup(legal, "_get_tensor_stride_i1") : NULL;
  CHECK(g == NULL);
  tvm_ffi_release(g);
  tvm_vm_executable* exec = mod ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
  CHECK(exec != NULL);
  if (!exec) CHECK_OK(-1); /* prints the error */
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  CHECK(!exec || vm != NULL);
  const runner runners[3] = {{"evaluator", mod, NULL},
                             {"evaluator after LegalizeOps", legal, NULL},
                             {"vm", NULL, vm}};
  for (int i = 0; i < 3; ++i) {
    if (runners[i].mod || runners[i].vm) check_all(&runners[i]);
  }
  if (vm) tvm_vm_release(vm);
  tvm_ffi_release(exec);
  tvm_ffi_release(legal);
  tvm_ffi_release(mod);
}

int main(void) {
  tvm_vm_init();
  RUN(inspect_evaluated_and_compiled);
  return test_summary();
}

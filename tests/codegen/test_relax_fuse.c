/*
 * test_relax_fuse.c: fused models compiled. Each model of the fusion tests (fuse_testing.h) and
 * the transformer and MLP of relax_models.c goes through the build pipeline (with FuseOps and
 * FuseTIR), is compiled with LLVM and run in libvm on random inputs (symbolic batch 1 and 3),
 * and must match the Relax reference evaluator on the unfused legalized module; the number of
 * kernel calls before and after fusion is checked for the whole models. A hand-written
 * TVMScript matmul with SBlocks is analysed and fused with its epilogue too.
 */
#include <tvm/codegen/relax_build.h>
#include <tvm/script/parser.h>
#include <tvm/vm/vm.h>

#include "fuse_testing.h"
#include "exec_mode_testing.h"

/* Compile legal (borrowed) with the build pipeline and compare the VM's results with the
 * evaluator's at batch 1 and 3; the elements that differ beyond tol relative. */
static int64_t compiled_diff(const tvm_tir_ir_module_obj* legal, double tol) {
  tvm_vm_executable* exec = legal ? test_mode(tvm_codegen_relax_build(legal, test_opts())) : NULL;
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  if (!vm) {
    CHECK_OK(-1);
    tvm_ffi_release(exec);
    return -1;
  }
  int64_t bad = 0;
  for (int64_t batch = 1; batch <= 3 && bad >= 0; batch += 2) {
    TVMFFIAny args[64], want, got;
    int n = fm_args(legal, batch, args, 64);
    if (n < 0 || tvm_relax_eval(legal, "main", args, n, &want) != 0) {
      CHECK_OK(-1);
      bad = -1;
    } else {
      if (tvm_vm_invoke(vm, "main", args, n, &got) == 0) {
        bad += rv_differ(&got, &want, tol);
        tvm_ffi_any_release(&got);
      } else {
        CHECK_OK(-1);
        bad = -1;
      }
      tvm_ffi_any_release(&want);
    }
    fm_args_free(args, n > 0 ? n : 0);
  }
  tvm_vm_release(vm);
  tvm_ffi_release(exec);
  return bad;
}

/* The number of call_tir in main after the build pipeline's passes up to and including FuseTIR
 * (the kernel launches of an inference). */
static int64_t fused_calls(const tvm_tir_ir_module_obj* legal) {
  const tvm_relax_pass* p;
  int64_t all = tvm_relax_build_pipeline_passes(&p), n = 0;
  while (n < all && strcmp(p[n].name, "FuseTIR") != 0) ++n;
  tvm_tir_ir_module_obj* out = n < all ? run_passes_roundtrip(legal, p, n + 1) : NULL;
  int64_t calls = relax_models_count_calls(out, "main", "relax.call_tir");
  tvm_ffi_release(out);
  return calls;
}

#define COMPILED_MATCHES(name, expected_calls)                                 \
  TEST(name) {                                                                 \
    tvm_tir_ir_module_obj* legal = fm_##name();                                \
    CHECK(legal != NULL);                                                      \
    CHECK_EQ_INT(fused_calls(legal), expected_calls);                          \
    CHECK_EQ_INT(compiled_diff(legal, 1e-5), 0);                               \
    tvm_ffi_release(legal);                                                    \
  }

COMPILED_MATCHES(elementwise_chain, 1)
COMPILED_MATCHES(broadcast_and_scalar, 1)
COMPILED_MATCHES(injective_chain, 1)
COMPILED_MATCHES(reduction_prologue, 2)
COMPILED_MATCHES(softmax_epilogue, 1)
COMPILED_MATCHES(matmul_bias_relu, 1)
COMPILED_MATCHES(block_output_in_a_chain, 3)
COMPILED_MATCHES(tuple_get_root, 2)
COMPILED_MATCHES(value_used_twice, 1)
COMPILED_MATCHES(split_tuple_get_item, 2)
COMPILED_MATCHES(tuple_get_item_of_outside_tuple, 3)
COMPILED_MATCHES(constant_operand, 1)
COMPILED_MATCHES(folded_constants, 1)
COMPILED_MATCHES(conv_bias_relu, 2)

TEST(mlp_model) {
  tvm_tir_ir_module_obj* mod = relax_models_mlp(4, -1, 16);
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  CHECK_EQ_INT(relax_models_count_calls(legal, "main", "relax.call_tir"), 8);
  CHECK_EQ_INT(fused_calls(legal), 4);
  CHECK_EQ_INT(compiled_diff(legal, 1e-5), 0);
  tvm_ffi_release(legal), tvm_ffi_release(mod);
}

TEST(transformer_model) {
  tvm_tir_ir_module_obj* mod = relax_models_transformer(2, 2, 8, 16);
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  CHECK_EQ_INT(relax_models_count_calls(legal, "main", "relax.call_tir"), 50);
  CHECK_EQ_INT(fused_calls(legal), 40);
  /* layer norm, softmax and GELU over two layers, with FMA contraction and LLVM's exp / erf
   * against libm's: 1e-4, as test_relax_build's transformer */
  CHECK_EQ_INT(compiled_diff(legal, 1e-4), 0);
  tvm_ffi_release(legal), tvm_ffi_release(mod);
}

/* A matmul written in TVMScript with an SBlock and T.init. */
static const char k_block_matmul[] =
    "from tvm.script import tirx as T\n"
    "@T.prim_func\n"
    "def mm(A: T.Buffer((4, 8), \"float32\"), B: T.Buffer((8, 6), \"float32\"), C: T.Buffer((4, 6), \"float32\")):\n"
    "    for i, j, k in T.grid(4, 6, 8):\n"
    "        with T.sblock(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            T.reads(A[vi, vk], B[vk, vj])\n"
    "            T.writes(C[vi, vj])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n"
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";

/* main(a, b) = tanh(R.call_tir(mm, (a, b)) + 1): the block kernel is kOutEWiseFusable and takes
 * its epilogue into one kernel. */
TEST(block_kernel_with_epilogue) {
  tvm_tir_prim_func_obj* mm = tvm_script_parse(k_block_matmul, sizeof(k_block_matmul) - 1, NULL);
  CHECK(mm != NULL);
  if (!mm) {
    CHECK_OK(-1);
    return;
  }
  CHECK_EQ_INT(tvm_relax_analyze_op_pattern(mm), TVM_RELAX_PATTERN_OUT_EWISE_FUSABLE);
  fm_model m;
  fm_init(&m);
  tvm_relax_var_obj* a = fm_param(&m, "a", 2, (int64_t[]){4, 8});
  tvm_relax_var_obj* b = fm_param(&m, "b", 2, (int64_t[]){8, 6});
  tvm_tir_global_var_obj* gv = fm_keep(&m, tvm_relax_bb_add_function(m.bb, mm, "mm"));
  fm_begin(&m);
  tvm_relax_expr_obj* args = fm_keep(&m, tvm_relax_tuple_new(fm_keep(&m, rt_array(2, a, b))));
  void* cargs = fm_keep(&m, rt_array(2, gv, args));
  void* out = fm_keep(&m, rt_array(1, fm_keep(&m, rt_tensor(F32, 2, (int64_t)4, (int64_t)6))));
  tvm_relax_var_obj* c = fm_emit(&m, false, tvm_relax_call_new(tvm_relax_op(TVM_RELAX_OP_call_tir), cargs, NULL, out, NULL));
  tvm_relax_var_obj* d = FM_OP(&m, "relax.add", c, fm_scalar(&m, 1.0));
  tvm_relax_var_obj* e = FM_OUT(&m, "relax.tanh", d);
  tvm_tir_ir_module_obj* legal = fm_end(&m, e, NULL);
  CHECK_EQ_INT(fused_calls(legal), 1);
  CHECK_EQ_INT(compiled_diff(legal, 1e-5), 0);
  tvm_ffi_release(legal), tvm_ffi_release(mm);
}

int main(void) {
  RUN(elementwise_chain);
  RUN(broadcast_and_scalar);
  RUN(injective_chain);
  RUN(reduction_prologue);
  RUN(softmax_epilogue);
  RUN(matmul_bias_relu);
  RUN(block_output_in_a_chain);
  RUN(tuple_get_root);
  RUN(value_used_twice);
  RUN(split_tuple_get_item);
  RUN(tuple_get_item_of_outside_tuple);
  RUN(constant_operand);
  RUN(folded_constants);
  RUN(conv_bias_relu);
  RUN(mlp_model);
  RUN(transformer_model);
  RUN(block_kernel_with_epilogue);
  return test_summary();
}

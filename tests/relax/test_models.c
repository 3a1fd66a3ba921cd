/*
 * test_models.c: whole models built with the BlockBuilder (tests/relax/relax_models.c): the
 * binding count, well-formedness, structural equality and hashing of two builds (alpha-equivalent
 * symbolic batch), a JSON round trip, and the TVMScript print.
 */
#include <tvm/script/printer.h>

#include "pass_roundtrip.h"
#include "relax_models.h"
#include "relax_testing.h"

TEST(transformer_builds_checks_and_round_trips) {
  tvm_tir_ir_module_obj* a = relax_models_transformer(2, 4, 8, 16);
  tvm_tir_ir_module_obj* b = relax_models_transformer(2, 4, 8, 16);
  CHECK(a && b);
  if (!a || !b) {
    CHECK_OK(-1);
    tvm_ffi_release(a);
    tvm_ffi_release(b);
    return;
  }
  CHECK_OK(tvm_relax_verify_well_formed(a));
  tvm_relax_function_obj* f = tvm_tir_ir_module_lookup(a, "main");
  /* the number of bindings the builder reports */
  int64_t n = 0;
  tvm_relax_seq_expr_obj* seq = (tvm_relax_seq_expr_obj*)f->body;
  for (int64_t i = 0; i < tvm_ffi_seq_size(seq->blocks); ++i) {
    n += tvm_ffi_seq_size(((tvm_relax_block_obj*)tvm_ffi_seq_obj_at(seq->blocks, i))->bindings);
  }
  CHECK_EQ_INT(n, relax_models_transformer_bindings(2, 4));
  CHECK_STR_EQ(rt_text(f->ret_struct_info), "R.Tensor((n, 8, 16), dtype=\"float32\")");
  tvm_ffi_release(f);
  TVMFFIAny va = tvm_ffi_any_obj(a), vb = tvm_ffi_any_obj(b);
  CHECK_EQ_INT(tvm_ffi_structural_equal(&va, &vb, false, NULL, NULL), 1);
  CHECK(tvm_ffi_structural_hash(&va, false) == tvm_ffi_structural_hash(&vb, false));
  tvm_ffi_strbuf json = {0};
  CHECK_OK(tvm_ffi_json_save(&va, &json));
  TVMFFIAny back = tvm_ffi_any_none();
  CHECK_OK(tvm_ffi_json_load(tvm_ffi_strbuf_cstr(&json), json.size, &back));
  CHECK_EQ_INT(tvm_ffi_structural_equal(&va, &back, false, NULL, NULL), 1);
  if (back.type_index != kTVMFFINone) CHECK_OK(tvm_relax_verify_well_formed(back.v_obj));
  tvm_ffi_any_release(&back);
  tvm_ffi_strbuf_free(&json);
  void* text = tvm_script_print_obj(a, NULL);
  CHECK(text != NULL);
  if (text) {
    CHECK_STR_CONTAINS(tvm_ffi_str_cstr(text), "R.nn.softmax(");
    CHECK_STR_CONTAINS(tvm_ffi_str_cstr(text), "R.concat(");
    CHECK_STR_CONTAINS(tvm_ffi_str_cstr(text), "with R.dataflow():");
  }
  tvm_ffi_release(text);
  tvm_ffi_release(a);
  tvm_ffi_release(b);
}

TEST(different_models_differ) {
  tvm_tir_ir_module_obj* a = relax_models_transformer(1, 2, 8, 16);
  tvm_tir_ir_module_obj* b = relax_models_transformer(1, 2, 8, 32);
  TVMFFIAny va = tvm_ffi_any_obj(a), vb = tvm_ffi_any_obj(b);
  CHECK_EQ_INT(tvm_ffi_structural_equal(&va, &vb, false, NULL, NULL), 0);
  CHECK(tvm_ffi_structural_hash(&va, false) != tvm_ffi_structural_hash(&vb, false));
  tvm_ffi_release(a);
  tvm_ffi_release(b);
}

/* Issue 17: the build pipeline on whole models, each pass's result well formed and round-tripping
 * through TVMScript (pass_roundtrip.h). */
static void pipeline_round_trips(tvm_tir_ir_module_obj* mod, const char* label) {
  int64_t before = g_pass_roundtrips;
  tvm_tir_ir_module_obj* out = mod ? build_pipeline_roundtrip(mod) : NULL;
  if (!out) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "  %s: %s: %s\n", label, e ? tvm_ffi_error_kind(e) : "?",
            e ? tvm_ffi_error_message(e) : "no module");
    tvm_ffi_release(e);
  }
  CHECK(out != NULL);
  const tvm_relax_pass* p;
  if (out) CHECK_EQ_INT(g_pass_roundtrips - before, tvm_relax_build_pipeline_passes(&p) + 1);
  tvm_ffi_release(out);
  tvm_ffi_release(mod);
}

TEST(pipeline_round_trips_after_every_pass) {
  pipeline_round_trips(relax_models_mlp(2, -1, 8), "mlp, symbolic batch");
  pipeline_round_trips(relax_models_mlp(3, 4, 16), "mlp, static batch");
  pipeline_round_trips(relax_models_transformer(1, 2, 8, 16), "transformer");
}

int main(void) {
  RUN(transformer_builds_checks_and_round_trips);
  RUN(different_models_differ);
  RUN(pipeline_round_trips_after_every_pass);
  return test_summary();
}

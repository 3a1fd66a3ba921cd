/* fuzz_parse_ir.c: libFuzzer target for the whole TVMScript parser (text -> checked IR). Any
 * bytes must give IR or raise exactly one error, never crash, hang or leak, and:
 *   - the error slot protocol holds: NULL comes with an error raised, IR without one;
 *   - a parsed PrimFunc, Relax function or IRModule that is well formed (TIR's and Relax's
 *     checks) keeps the roundtrip guarantee: it
 *     prints, the text parses back structurally equal, and printing that is a fixed point.
 *     (A decorator's check_well_formed=False lets ill-formed IR through the parse; the
 *     printer does not emit that flag, so such IR is only checked to print.)
 * A violation traps (libFuzzer reports it with the input). Seeds: tests/corpus
 * (run-fuzzers.sh passes it) and the dictionary tests/fuzz/tvmscript.dict. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tvm/relax/relax.h>
#include <tvm/script/parser.h>
#include <tvm/script/printer.h>
#include <tvm/tir/analysis.h>
#include <tvm/tir/tir.h>

static void fail(const char* what, const char* detail, const char* text) {
  fprintf(stderr, "fuzz_parse_ir: %s\n%s\n--- printed text:\n%s\n---\n", what,
          detail ? detail : "", text ? text : "");
  __builtin_trap();
}

/* The error taken from the slot (a new reference); traps when none is raised. */
static void* take_error(const char* after) {
  void* err = tvm_ffi_error_take();
  if (!err) fail(after, "returned NULL with no error raised", NULL);
  return err;
}

static void check_roundtrip(const void* ir, const tvm_script_parse_options* opts) {
  void* text = tvm_script_print_obj(ir, NULL);
  if (!text) {
    void* err = take_error("print");
    fail("a parsed function or module does not print", tvm_ffi_error_message(err), NULL);
  }
  const char* s = tvm_ffi_str_cstr(text);
  void* again = tvm_script_parse(s, strlen(s), opts);
  if (!again) {
    void* err = take_error("parse of the printed text");
    fail("the printed text does not parse", tvm_ffi_error_message(err), s);
  }
  if (tvm_ffi_error_pending()) fail("parse returned IR with an error left raised", NULL, s);
  TVMFFIAny a = tvm_ffi_any_obj((void*)ir), b = tvm_ffi_any_obj(again);
  tvm_ffi_strbuf report = {0};
  int eq = tvm_script_structural_equal_report(&a, &b, false, &report);
  if (eq != 1) fail("print -> parse is not structurally equal", tvm_ffi_strbuf_cstr(&report), s);
  tvm_ffi_strbuf_free(&report);
  void* text2 = tvm_script_print_obj(again, NULL);
  if (!text2 || strcmp(tvm_ffi_str_cstr(text2), s) != 0) {
    fail("printing is not a fixed point", text2 ? tvm_ffi_str_cstr(text2) : "(print failed)", s);
  }
  tvm_ffi_release(text2);
  tvm_ffi_release(again);
  tvm_ffi_release(text);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  opts.filename = "fuzz.py";
  void* ir = tvm_script_parse((const char*)data, size, &opts);
  if (!ir) {
    tvm_ffi_release(take_error("parse"));
    return 0;
  }
  if (tvm_ffi_error_pending()) fail("parse returned IR with an error left raised", NULL, NULL);
  bool relax_fn = tvm_relax_kind_of(ir) == TVM_RELAX_KIND_Function;
  if (relax_fn || tvm_tir_is(ir, TVM_TIR_KIND_PrimFunc) || tvm_tir_is(ir, TVM_TIR_KIND_IRModule)) {
    /* Relax functions (standalone or in a module) are checked by Relax's verifier as well. */
    bool has_relax = relax_fn;
    if (tvm_tir_is(ir, TVM_TIR_KIND_IRModule)) {
      const TVMFFIAny *k, *f;
      void* fns = ((const tvm_tir_ir_module_obj*)ir)->functions;
      for (int64_t pos = 0; !has_relax && (pos = tvm_ffi_map_next(fns, pos, &k, &f)) >= 0;) {
        has_relax = tvm_relax_kind_of(f->v_obj) == TVM_RELAX_KIND_Function;
      }
    }
    if ((relax_fn || tvm_tir_verify_well_formed(ir) == 0) &&
        (!has_relax || tvm_relax_verify_well_formed(ir) == 0)) {
      check_roundtrip(ir, &opts);
    } else {
      tvm_ffi_release(take_error("well-formedness check"));
      void* text = tvm_script_print_obj(ir, NULL);
      if (!text) {
        void* err = take_error("print");
        fail("an ill-formed parsed function does not print", tvm_ffi_error_message(err), NULL);
      }
      tvm_ffi_release(text);
    }
  }
  tvm_ffi_release(ir);
  return 0;
}

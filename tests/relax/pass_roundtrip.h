/*
 * pass_roundtrip.h: what issue 17 asks of test builds after every pass of the Relax pipeline
 * (header-only; the test links tvmscript). librelax cannot call libscript (it is the layer
 * above), so the check is a tvm_relax_pass_observer the tests hand to the pass runner:
 *
 *   1. well-formedness: tvm_relax_verify_well_formed on the module, which also runs libtir's
 *      tvm_tir_verify_well_formed on each of its PrimFuncs;
 *   2. print -> parse: the module printed as TVMScript (metadata section included) parses back;
 *   3. the parsed module is structurally equal to the pass's result;
 *   4. printing is a fixed point: the parsed module prints as the same text.
 *
 * A failure raises an error whose message names the stage and shows the relevant part of the
 * printed text (the parser's located diagnostic, the structural mismatch with the differing
 * nodes underlined, or the first differing lines of the two prints); the pass runner adds
 * "after <pass>".
 *
 *   tvm_tir_ir_module_obj* out = run_passes_roundtrip(mod, passes, n);   // tvm_relax_run_passes
 *   tvm_tir_ir_module_obj* out = build_pipeline_roundtrip(mod);          // the build pipeline
 *   opts.relax_after_pass = pass_roundtrip_observer;                      // libcodegen's build
 *
 * PASS_ROUNDTRIP_DUMP=1 in the environment prints every module checked to stderr.
 */
#ifndef TVM_TESTS_RELAX_PASS_ROUNDTRIP_H_
#define TVM_TESTS_RELAX_PASS_ROUNDTRIP_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/relax/analysis.h>
#include <tvm/relax/transform.h>
#include <tvm/script/parser.h>
#include <tvm/script/printer.h>

/* Modules checked by pass_roundtrip_observer in this test program (a test can assert > 0). */
static int64_t g_pass_roundtrips;

/* Lines [line - around, line + around] of text (1-based line numbers) appended to out, each
 * prefixed with its number. */
static inline void pass_roundtrip_excerpt(const char* text, int64_t line, int64_t around,
                                          tvm_ffi_strbuf* out) {
  int64_t no = 1;
  for (const char* p = text; *p; ++no) {
    const char* e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (no >= line - around && no <= line + around) {
      tvm_ffi_strbuf_printf(out, "%5lld %s %.*s\n", (long long)no, no == line ? ">" : "|", (int)n,
                            p);
    }
    if (!e || no > line + around) break;
    p = e + 1;
  }
}

/* The line (1-based) where texts a and b first differ. */
static inline int64_t pass_roundtrip_first_diff_line(const char* a, const char* b) {
  int64_t line = 1;
  for (; *a && *a == *b; ++a, ++b) {
    if (*a == '\n') ++line;
  }
  return line;
}

/* The structural-equality report cut down to its header and the lines around its carets, 80
 * lines at most (a whole model printed twice is thousands of lines). */
static inline void pass_roundtrip_cut_report(const char* rep, tvm_ffi_strbuf* out) {
  enum { AROUND = 4 };
  /* Pass 1: the numbers of the caret lines. */
  int64_t carets[64], ncarets = 0, no = 0;
  for (const char* p = rep; *p && ncarets < 64;) {
    const char* e = strchr(p, '\n');
    const char* q = p;
    while (*q == ' ') ++q;
    if (*q == '^') carets[ncarets++] = no;
    if (!e) break;
    p = e + 1, ++no;
  }
  no = 0;
  bool skipped = false;
  int64_t kept = 0;
  for (const char* p = rep; *p && kept < 80; ++no) {
    const char* e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    bool keep = no < 4; /* the header: the message and both access paths */
    for (int64_t i = 0; !keep && i < ncarets; ++i) {
      keep = no >= carets[i] - AROUND && no <= carets[i] + 1;
    }
    if (keep) {
      tvm_ffi_strbuf_printf(out, "%.*s\n", (int)n, p);
      if (++kept == 80) tvm_ffi_strbuf_puts(out, "    (... the rest of the report cut ...)\n");
      skipped = false;
    } else if (!skipped) {
      tvm_ffi_strbuf_puts(out, "    ...\n");
      skipped = true;
    }
    if (!e) break;
    p = e + 1;
  }
}

/* Raise a ValueError "TVMScript round trip: <what>" followed by detail. */
static inline int pass_roundtrip_fail(const char* what, tvm_ffi_strbuf* detail) {
  int rc = tvm_ffi_raise("ValueError", "TVMScript round trip: %s\n%s", what,
                         tvm_ffi_strbuf_cstr(detail));
  tvm_ffi_strbuf_free(detail);
  return rc;
}

/* The check of the header comment on mod (borrowed); ctx is unused. 0, or -1 + error. */
static inline int pass_roundtrip_observer(void* ctx, const char* pass,
                                          const tvm_tir_ir_module_obj* mod) {
  (void)ctx;
  if (tvm_relax_verify_well_formed(mod) != 0) {
    return tvm_ffi_raise_context("the module is not well formed");
  }
  void* t1 = tvm_script_print_obj(mod, NULL);
  if (!t1) return tvm_ffi_raise_context("TVMScript round trip: printing the module");
  const char* s1 = tvm_ffi_str_cstr(t1);
  if (getenv("PASS_ROUNDTRIP_DUMP")) fprintf(stderr, "---- after %s:\n%s\n", pass, s1);
  char filename[160];
  snprintf(filename, sizeof(filename), "<printed after %s>", pass ? pass : "?");
  tvm_script_parse_options po;
  tvm_script_parse_options_init(&po);
  po.filename = filename;
  void* m2 = tvm_script_parse(s1, strlen(s1), &po);
  if (!m2) {
    /* The parser's message shows the printed line and a caret under the construct. */
    tvm_ffi_release(t1);
    return tvm_ffi_raise_context("TVMScript round trip: parsing the printed module");
  }
  TVMFFIAny a = tvm_ffi_any_obj((void*)mod), b = tvm_ffi_any_obj(m2);
  tvm_ffi_strbuf rep = {0};
  int eq = tvm_script_structural_equal_report(&a, &b, false, &rep);
  int rc = 0;
  if (eq < 0) {
    rc = tvm_ffi_raise_context("TVMScript round trip: comparing the parsed module");
  } else if (eq == 0) {
    tvm_ffi_strbuf detail = {0};
    pass_roundtrip_cut_report(tvm_ffi_strbuf_cstr(&rep), &detail);
    rc = pass_roundtrip_fail("the parsed module is not structurally equal to the pass's result",
                             &detail);
  } else {
    void* t2 = tvm_script_print_obj(m2, NULL);
    if (!t2) {
      rc = tvm_ffi_raise_context("TVMScript round trip: printing the parsed module");
    } else if (strcmp(s1, tvm_ffi_str_cstr(t2)) != 0) {
      const char* s2 = tvm_ffi_str_cstr(t2);
      int64_t line = pass_roundtrip_first_diff_line(s1, s2);
      tvm_ffi_strbuf detail = {0};
      tvm_ffi_strbuf_printf(&detail, "first print, from line %lld:\n", (long long)line);
      pass_roundtrip_excerpt(s1, line, 3, &detail);
      tvm_ffi_strbuf_puts(&detail, "print of the parsed module:\n");
      pass_roundtrip_excerpt(s2, line, 3, &detail);
      rc = pass_roundtrip_fail("printing is not a fixed point", &detail);
    }
    tvm_ffi_release(t2);
  }
  tvm_ffi_strbuf_free(&rep);
  tvm_ffi_release(m2);
  tvm_ffi_release(t1);
  if (rc == 0) ++g_pass_roundtrips;
  return rc;
}

/* tvm_relax_run_passes with the check on the input and after every pass. */
static inline tvm_tir_ir_module_obj* run_passes_roundtrip(const tvm_tir_ir_module_obj* mod,
                                                          const tvm_relax_pass* passes, int64_t n) {
  if (mod && pass_roundtrip_observer(NULL, "(the input)", mod) != 0) {
    tvm_ffi_raise_context("before the first pass");
    return NULL;
  }
  return tvm_relax_run_passes_observed(mod, passes, n, pass_roundtrip_observer, NULL);
}

/* tvm_relax_build_pipeline with the check after every pass. */
static inline tvm_tir_ir_module_obj* build_pipeline_roundtrip(const tvm_tir_ir_module_obj* mod) {
  const tvm_relax_pass* p;
  int64_t n = tvm_relax_build_pipeline_passes(&p);
  return run_passes_roundtrip(mod, p, n);
}

/* libcodegen's Relax build with the check after every pass (defined when the test included
 * tvm/codegen/relax_build.h first). */
#ifdef TVM_CODEGEN_RELAX_BUILD_H_
static inline tvm_codegen_options relax_roundtrip_options(void) {
  tvm_codegen_options o = tvm_codegen_options_default();
  o.relax_after_pass = pass_roundtrip_observer;
  return o;
}

/* tvm_codegen_relax_build_passes(mod, passes, n, NULL) with the check. */
static inline tvm_vm_executable* relax_build_passes_roundtrip(const tvm_tir_ir_module_obj* mod,
                                                              const tvm_relax_pass* passes,
                                                              int64_t n) {
  if (mod && pass_roundtrip_observer(NULL, "(the input)", mod) != 0) {
    tvm_ffi_raise_context("before the first pass");
    return NULL;
  }
  tvm_codegen_options o = relax_roundtrip_options();
  return tvm_codegen_relax_build_passes(mod, passes, n, &o);
}

/* tvm_codegen_relax_build(mod, NULL) with the check. */
static inline tvm_vm_executable* relax_build_roundtrip(const tvm_tir_ir_module_obj* mod) {
  const tvm_relax_pass* p;
  int64_t n = tvm_relax_build_pipeline_passes(&p);
  return relax_build_passes_roundtrip(mod, p, n);
}
#endif

#endif /* TVM_TESTS_RELAX_PASS_ROUNDTRIP_H_ */

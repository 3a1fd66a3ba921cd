/*
 * test_parse_relax_fragments.c: Relax fragments (statements outside any definition, as the
 * printer prints a lone expression, binding, block or SeqExpr, its free variables declared
 * first) parse back to the node the printer printed: each text below is exactly the printer's
 * output, parses to a node of the kind named, prints back to the same text, and parsing twice
 * gives structurally equal nodes (free variables mapped). Errors are located.
 */
#include <stdlib.h>
#include <string.h>
#include <tvm/relax/relax.h>
#include <tvm/script/parser.h>
#include <tvm/script/printer.h>

#include "test_util.h"

static void* parse_text(const char* text) {
  tvm_script_parse_options o;
  tvm_script_parse_options_init(&o);
  o.filename = "frag.py";
  return tvm_script_parse(text, strlen(text), &o);
}

static char* print_text(const void* obj) {
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  opts.print_header = false;
  void* s = tvm_script_print_obj(obj, &opts);
  if (!s) return NULL;
  char* out = strdup(tvm_ffi_str_cstr(s));
  tvm_ffi_release(s);
  return out;
}

/* text parses to a node of kind want_kind (a TVM_RELAX_KIND_*, or -1: not a Relax node but
 * type key want_key), prints as text again, and a second parse is structurally equal. */
static bool round_trips(const char* text, int want_kind, const char* want_key) {
  void* a = parse_text(text);
  if (!a) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "parse failed: %s\n--- text:\n%s\n", e ? tvm_ffi_error_message(e) : "?", text);
    tvm_ffi_release(e);
    return false;
  }
  bool ok = true;
  if (want_kind >= 0 && tvm_relax_kind_of(a) != (tvm_relax_kind)want_kind) {
    fprintf(stderr, "parsed a %s\n", tvm_ffi_type_key(tvm_ffi_type_index(a)));
    ok = false;
  }
  if (want_key && strcmp(tvm_ffi_type_key(tvm_ffi_type_index(a)), want_key) != 0) {
    fprintf(stderr, "parsed a %s, want %s\n", tvm_ffi_type_key(tvm_ffi_type_index(a)), want_key);
    ok = false;
  }
  char* printed = print_text(a);
  size_t n = strlen(text);
  while (n && text[n - 1] == '\n') --n;
  if (!printed || strlen(printed) != n || memcmp(printed, text, n) != 0) {
    fprintf(stderr, "printed:\n%s\n--- want:\n%.*s\n", printed ? printed : "(null)", (int)n, text);
    ok = false;
  }
  void* b = printed ? parse_text(printed) : NULL;
  TVMFFIAny la = tvm_ffi_any_obj(a), lb = tvm_ffi_any_obj(b);
  if (!b || tvm_ffi_structural_equal(&la, &lb, true, NULL, NULL) != 1) {
    fprintf(stderr, "second parse differs\n");
    tvm_ffi_error_clear();
    ok = false;
  }
  free(printed);
  tvm_ffi_release(a);
  tvm_ffi_release(b);
  return ok;
}

TEST(expressions_and_declarations) {
  CHECK(round_trips("n = T.int64()\n"
                    "x: R.Tensor((n, 3), dtype=\"float32\")\n"
                    "y: R.Tensor((n, 3), dtype=\"float32\")\n"
                    "R.add(x, y)\n",
                    TVM_RELAX_KIND_Call, NULL));
  /* a lone variable: its declaration */
  CHECK(round_trips("n = T.int64()\nx: R.Tensor((n, 3), dtype=\"float32\")\n", -1, "relax.expr.Var"));
  /* a struct info, a shape */
  CHECK(round_trips("n = T.int64()\nR.Tensor((n, 3), dtype=\"float32\")\n", -1,
                    "relax.TensorStructInfo"));
  CHECK(round_trips("n = T.int64()\nR.shape([n * 2, 3])\n", TVM_RELAX_KIND_ShapeExpr, NULL));
  CHECK(round_trips("x: R.Tuple(R.Tensor((2,), dtype=\"float32\"), R.Prim(\"int64\"))\nx[1]\n",
                    TVM_RELAX_KIND_TupleGetItem, NULL));
}

TEST(bindings_and_blocks) {
  CHECK(round_trips("n = T.int64()\n"
                    "x: R.Tensor((n, 3), dtype=\"float32\")\n"
                    "y: R.Tensor((n, 3), dtype=\"float32\")\n"
                    "z: R.Tensor((n, 3), dtype=\"float32\") = R.add(x, y)\n",
                    TVM_RELAX_KIND_VarBinding, NULL));
  CHECK(round_trips("n = T.int64()\n"
                    "x: R.Tensor((n, 3), dtype=\"float32\")\n"
                    "m = T.int64()\n"
                    "w: R.Tensor((m, 3), dtype=\"float32\") = R.match_cast(x, R.Tensor((m, 3), "
                    "dtype=\"float32\"))\n",
                    TVM_RELAX_KIND_MatchCast, NULL));
  CHECK(round_trips("n = T.int64()\n"
                    "x: R.Tensor((n, 3), dtype=\"float32\")\n"
                    "with R.dataflow():\n"
                    "    lv: R.Tensor((n, 3), dtype=\"float32\") = R.exp(x)\n"
                    "    gv: R.Tensor((n, 3), dtype=\"float32\") = R.negative(lv)\n"
                    "    R.output(gv)\n",
                    TVM_RELAX_KIND_DataflowBlock, NULL));
  /* a plain block of two bindings */
  CHECK(round_trips("x: R.Tensor((2, 3), dtype=\"float32\")\n"
                    "a: R.Tensor((2, 3), dtype=\"float32\") = R.exp(x)\n"
                    "b: R.Tensor((2, 3), dtype=\"float32\") = R.exp(a)\n",
                    TVM_RELAX_KIND_BindingBlock, NULL));
  /* bindings and a final value: a SeqExpr */
  CHECK(round_trips("n = T.int64()\n"
                    "x: R.Tensor((n, 3), dtype=\"float32\")\n"
                    "y: R.Tensor((n, 3), dtype=\"float32\")\n"
                    "z: R.Tensor((n, 3), dtype=\"float32\") = R.add(x, y)\n"
                    "R.exp(z)\n",
                    TVM_RELAX_KIND_SeqExpr, NULL));
}

/* A fragment's free variable is declared only at its top; errors are located. */
static void check_error(const char* text, const char* kind, const char* where) {
  void* r = parse_text(text);
  CHECK(r == NULL);
  tvm_ffi_release(r);
  void* e = tvm_ffi_error_take();
  CHECK(e != NULL);
  if (!e) return;
  CHECK_STR_EQ(tvm_ffi_error_kind(e), kind);
  if (strncmp(tvm_ffi_error_message(e), where, strlen(where)) != 0) {
    fprintf(stderr, "message: %s\nwant it to start with: %s\n", tvm_ffi_error_message(e), where);
    CHECK(false);
  }
  tvm_ffi_release(e);
}

TEST(errors) {
  check_error("x: R.Tensor((2,), dtype=\"float32\")\n"
              "with R.dataflow():\n"
              "    y: R.Tensor((2,), dtype=\"float32\")\n"
              "    R.output()\n",
              "SyntaxError", "frag.py:3:5:");
  check_error("x: R.Tensor((2,), dtype=\"float32\")\n"
              "y: R.Tensor((2,), dtype=\"float32\") = R.exp(x)\n"
              "R.Tensor((2,), dtype=\"float32\")\n",
              "TypeError", "frag.py:3:1:");
  check_error("x: R.Tensor((2,), dtype=\"float32\")\n"
              "y: R.Tensor((3,), dtype=\"float32\") = R.exp(x)\n",
              "TypeError", "frag.py:2:1:");
}

int main(void) {
  RUN(expressions_and_declarations);
  RUN(bindings_and_blocks);
  RUN(errors);
  return test_summary();
}

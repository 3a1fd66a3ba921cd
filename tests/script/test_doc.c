/* test_doc.c: the Doc tree as FFI objects and the Python doc printer (precedence, statements,
 * comments). */
#include <tvm/script/doc.h>
#include <tvm/script/printer.h>

#include "test_util.h"

static tvm_script_doc_obj* id(const char* s) { return tvm_script_id_doc(s); }
static tvm_script_doc_obj* lit(int64_t v) { return tvm_script_literal_int(v); }
static tvm_script_doc_obj* op2(int32_t op, void* a, void* b) {
  return tvm_script_operation_doc_take(op, tvm_script_doc_array_take(a, b));
}
static tvm_script_doc_obj* op1(int32_t op, void* a) {
  return tvm_script_operation_doc_take(op, tvm_script_doc_array_take(a));
}

/* Print doc (consumed) and compare. */
static void expect_doc(void* doc, const char* expected, int line) {
  tvm_ffi_strbuf out = {0};
  if (!doc || tvm_script_doc_to_python(doc, NULL, &out) != 0) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "line %d: failed: %s\n", line, e ? tvm_ffi_error_message(e) : "NULL doc");
    tvm_ffi_release(e);
    g_test_failed_checks++;
  } else if (strcmp(tvm_ffi_strbuf_cstr(&out), expected) != 0) {
    fprintf(stderr, "line %d: got:\n%s\n--- expected:\n%s\n---\n", line, tvm_ffi_strbuf_cstr(&out),
            expected);
    g_test_failed_checks++;
  }
  tvm_ffi_strbuf_free(&out);
  tvm_ffi_release(doc);
}
#define EXPECT(doc, expected) expect_doc((doc), (expected), __LINE__)

TEST(doc_objects) {
  tvm_script_doc_obj* d = tvm_script_attr_doc_take(id("T"), "grid");
  CHECK(d != NULL);
  CHECK_STR_EQ(tvm_ffi_type_key(tvm_ffi_type_index(d)), "script.printer.AttrAccessDoc");
  CHECK_EQ_INT(tvm_script_doc_kind_of(d), TVM_SCRIPT_DOC_AttrAccessDoc);
  CHECK(tvm_script_is_expr_doc(d));
  CHECK(!tvm_script_is_stmt_doc(d));
  CHECK_EQ_INT(d->span.start_line, 0);
  CHECK_EQ_INT(d->span.start_byte, -1);
  /* Equality ignores source paths and spans. */
  tvm_script_doc_obj* e = tvm_script_attr_doc_take(id("T"), "grid");
  void* root = tvm_ffi_access_path_root();
  CHECK_OK(tvm_script_doc_add_path(e, root));
  e->span.start_line = 3;
  TVMFFIAny a = tvm_ffi_any_obj(d), b = tvm_ffi_any_obj(e);
  CHECK_EQ_INT(tvm_ffi_structural_equal(&a, &b, false, NULL, NULL), 1);
  CHECK_EQ_INT(tvm_ffi_seq_size(e->source_paths), 1);
  /* Reflection sees the fields by name (the parser fills spans through them too). */
  CHECK(tvm_ffi_type_find_field(tvm_ffi_type_index(d), "span_start_line") != NULL);
  CHECK(tvm_ffi_type_find_field(tvm_ffi_type_index(d), "name") != NULL);
  tvm_ffi_release(root);
  tvm_ffi_release(d);
  tvm_ffi_release(e);
}

TEST(constructor_errors) {
  CHECK(tvm_script_attr_doc_take(NULL, "x") == NULL);
  CHECK_RAISED("ValueError", "required argument");
  CHECK(tvm_script_operation_doc_take(TVM_SCRIPT_OP_Add, tvm_script_doc_array_take(id("a"))) == NULL);
  CHECK_RAISED("ValueError", "takes 2 operands");
  /* A failed argument fails the enclosing constructor, leaving the first error. */
  CHECK(tvm_script_doc_call_take(id("f"), tvm_script_attr_doc_take(NULL, "x"), lit(1)) == NULL);
  CHECK_RAISED("ValueError", "required argument");
  CHECK(tvm_script_call_doc_take(id("f"), NULL, NULL, tvm_script_doc_array_take(lit(1))) == NULL);
  CHECK_RAISED("ValueError", "0 keyword names for 1 keyword values");
  tvm_script_doc_obj* one = lit(1);
  CHECK(tvm_script_stmt_doc_set_comment(one, "x") != 0);
  CHECK_RAISED("TypeError", "not a StmtDoc");
  tvm_ffi_release(one);
}

TEST(expressions_and_precedence) {
  EXPECT(op2(TVM_SCRIPT_OP_Mult, op2(TVM_SCRIPT_OP_Add, id("a"), id("b")), id("c")), "(a + b) * c");
  EXPECT(op2(TVM_SCRIPT_OP_Add, id("a"), op2(TVM_SCRIPT_OP_Mult, id("b"), id("c"))), "a + b * c");
  EXPECT(op2(TVM_SCRIPT_OP_Sub, id("a"), op2(TVM_SCRIPT_OP_Sub, id("b"), id("c"))), "a - (b - c)");
  EXPECT(op2(TVM_SCRIPT_OP_Pow, id("a"), op2(TVM_SCRIPT_OP_Pow, id("b"), id("c"))), "a ** b ** c");
  EXPECT(op2(TVM_SCRIPT_OP_Pow, op2(TVM_SCRIPT_OP_Pow, id("a"), id("b")), id("c")), "(a ** b) ** c");
  EXPECT(op1(TVM_SCRIPT_OP_USub, op2(TVM_SCRIPT_OP_Add, id("a"), id("b"))), "-(a + b)");
  EXPECT(op1(TVM_SCRIPT_OP_USub, op2(TVM_SCRIPT_OP_Pow, id("a"), id("b"))), "-a ** b");
  EXPECT(op2(TVM_SCRIPT_OP_Pow, lit(-2), id("b")), "(-2) ** b");
  EXPECT(op1(TVM_SCRIPT_OP_Not, op2(TVM_SCRIPT_OP_And, id("a"), id("b"))), "not (a and b)");
  EXPECT(op2(TVM_SCRIPT_OP_Or, op2(TVM_SCRIPT_OP_And, id("a"), id("b")), id("c")), "a and b or c");
  EXPECT(op2(TVM_SCRIPT_OP_Lt, op2(TVM_SCRIPT_OP_Lt, id("a"), id("b")), id("c")), "(a < b) < c");
  EXPECT(op2(TVM_SCRIPT_OP_BitAnd, op2(TVM_SCRIPT_OP_LShift, id("a"), lit(2)), op1(TVM_SCRIPT_OP_Invert, id("b"))),
         "a << 2 & ~b");
  EXPECT(tvm_script_operation_doc_take(TVM_SCRIPT_OP_IfThenElse,
                                       tvm_script_doc_array_take(id("a"), id("c"), id("b"))),
         "a if c else b");
  EXPECT(tvm_script_attr_doc_take(op2(TVM_SCRIPT_OP_Add, id("a"), id("b")), "shape"), "(a + b).shape");
  EXPECT(tvm_script_lambda_doc_take(tvm_script_doc_array_take(id("x"), id("y")),
                                    op2(TVM_SCRIPT_OP_Add, id("x"), id("y"))),
         "lambda x, y: x + y");
  EXPECT(tvm_script_tuple_doc_take(tvm_script_doc_array_take(lit(1))), "(1,)");
  EXPECT(tvm_script_tuple_doc_take(NULL), "()");
  EXPECT(tvm_script_list_doc_take(tvm_script_doc_array_take(lit(1), tvm_script_literal_str("s"))),
         "[1, \"s\"]");
  EXPECT(tvm_script_dict_doc_take(tvm_script_doc_array_take(tvm_script_literal_str("k")),
                                  tvm_script_doc_array_take(tvm_script_literal_bool(false))),
         "{\"k\": False}");
  EXPECT(tvm_script_index_doc_take(
             id("A"), tvm_script_doc_array_take(
                          tvm_script_slice_doc_take(lit(0), lit(8), NULL),
                          tvm_script_slice_doc_take(NULL, NULL, lit(2)), id("i"))),
         "A[0:8, ::2, i]");
  EXPECT(tvm_script_call_doc_take(tvm_script_attr_doc_take(id("T"), "Buffer"),
                                  tvm_script_doc_array_take(lit(4)),
                                  tvm_script_doc_list_to_array_take(({
                                    void* l = tvm_ffi_list_new();
                                    TVMFFIAny k = tvm_ffi_string("dtype");
                                    tvm_ffi_list_push_take(l, &k);
                                    l;
                                  })),
                                  tvm_script_doc_array_take(tvm_script_literal_str("int8"))),
         "T.Buffer(4, dtype=\"int8\")");
  EXPECT(tvm_script_literal_float(0.5), "0.5");
  EXPECT(tvm_script_literal_float(1e20), "1e+20");
  EXPECT(tvm_script_literal_none(), "None");
}

/* *value among call arguments: the value is a whole expression, printed without parentheses. */
TEST(starred_doc) {
  tvm_script_doc_obj* star = tvm_script_starred_doc_take(id("xs"));
  CHECK(star != NULL);
  if (!star) return;
  CHECK_STR_EQ(tvm_ffi_type_key(tvm_ffi_type_index(star)), "script.printer.StarredDoc");
  CHECK_EQ_INT(tvm_script_doc_kind_of(star), TVM_SCRIPT_DOC_StarredDoc);
  CHECK_STR_EQ(tvm_script_doc_kind_name(TVM_SCRIPT_DOC_StarredDoc), "StarredDoc");
  CHECK(tvm_script_is_expr_doc(star));
  CHECK(tvm_ffi_type_find_field(tvm_ffi_type_index(star), "value") != NULL);
  EXPECT(tvm_script_doc_call_take(id("f"), id("a"), star, lit(1)), "f(a, *xs, 1)");
  EXPECT(tvm_script_doc_call_take(id("f"), tvm_script_starred_doc_take(op2(
                                               TVM_SCRIPT_OP_Add, id("a"), id("b")))),
         "f(*a + b)");
  EXPECT(tvm_script_call_doc_take(
             id("g"), tvm_script_doc_array_take(tvm_script_starred_doc_take(
                          tvm_script_doc_call_take(id("h"), id("x")))),
             tvm_script_doc_list_to_array_take(({
               void* l = tvm_ffi_list_new();
               TVMFFIAny k = tvm_ffi_string("k");
               tvm_ffi_list_push_take(l, &k);
               l;
             })),
             tvm_script_doc_array_take(lit(2))),
         "g(*h(x), k=2)");
  /* Equality compares the value. */
  tvm_script_doc_obj *s1 = tvm_script_starred_doc_take(id("a")),
                     *s2 = tvm_script_starred_doc_take(id("b"));
  TVMFFIAny a = tvm_ffi_any_obj(s1), b = tvm_ffi_any_obj(s2);
  CHECK_EQ_INT(tvm_ffi_structural_equal(&a, &b, false, NULL, NULL), 0);
  tvm_ffi_release(s1);
  tvm_ffi_release(s2);
  /* The value is required. */
  CHECK(tvm_script_starred_doc_take(NULL) == NULL);
  CHECK_RAISED("ValueError", "required argument");
}

TEST(statements) {
  void* body = tvm_script_doc_array_take(
      tvm_script_assign_doc_take(id("x"), lit(1), tvm_script_attr_doc_take(id("T"), "int32")),
      tvm_script_if_doc_take(
          op2(TVM_SCRIPT_OP_Gt, id("x"), lit(0)),
          tvm_script_doc_array_take(tvm_script_return_doc_take(id("x"))),
          tvm_script_doc_array_take(tvm_script_if_doc_take(
              op2(TVM_SCRIPT_OP_Eq, id("x"), lit(0)), NULL,
              tvm_script_doc_array_take(tvm_script_assert_doc_take(
                  tvm_script_literal_bool(false), tvm_script_literal_str("negative")))))),
      tvm_script_while_doc_take(tvm_script_literal_bool(true), NULL),
      tvm_script_for_doc_take(
          tvm_script_tuple_doc_take(tvm_script_doc_array_take(id("i"), id("j"))),
          tvm_script_doc_call_take(id("zip"), id("a"), id("b")),
          tvm_script_doc_array_take(tvm_script_expr_stmt_doc_take(id("i")))),
      tvm_script_scope_doc_take(id("f"), tvm_script_doc_call_take(id("open"), lit(0)),
                                tvm_script_doc_array_take(tvm_script_comment_doc("two\nlines"))),
      tvm_script_return_doc_take(NULL));
  void* arg = tvm_script_assign_doc_take(id("a"), lit(3), tvm_script_attr_doc_take(id("T"), "int32"));
  void* fn = tvm_script_function_doc_take(
      id("f"), tvm_script_doc_array_take(arg, tvm_script_assign_doc_take(id("b"), NULL, NULL)),
      tvm_script_doc_array_take(tvm_script_attr_doc_take(id("T"), "prim_func")),
      tvm_script_attr_doc_take(id("T"), "int32"), body);
  tvm_script_doc_obj* cls = tvm_script_class_doc_take(
      id("Module"), tvm_script_doc_array_take(tvm_script_attr_doc_take(id("I"), "ir_module")),
      tvm_script_doc_array_take(tvm_script_doc_string_doc("doc"), fn));
  tvm_script_doc_obj* tail = tvm_script_expr_stmt_doc_take(id("Module"));
  CHECK_OK(tvm_script_stmt_doc_set_comment(tail, "trailing"));
  EXPECT(tvm_script_stmt_block_doc_take(tvm_script_doc_array_take(cls, tail)),
         "@I.ir_module\n"
         "class Module:\n"
         "    \"\"\"doc\"\"\"\n"
         "    @T.prim_func\n"
         "    def f(a: T.int32 = 3, b) -> T.int32:\n"
         "        x: T.int32 = 1\n"
         "        if x > 0:\n"
         "            return x\n"
         "        elif x == 0:\n"
         "            pass\n"
         "        else:\n"
         "            assert False, \"negative\"\n"
         "        while True:\n"
         "            pass\n"
         "        for i, j in zip(a, b):\n"
         "            i\n"
         "        with open(0) as f:\n"
         "            # two\n"
         "            # lines\n"
         "        return\n"
         "\n"
         "Module  # trailing");
}

TEST(deep_and_bad_docs_are_errors) {
  tvm_script_doc_obj* e = id("x");
  for (int i = 0; e && i < 6000; ++i) e = op1(TVM_SCRIPT_OP_USub, e);
  CHECK(e != NULL);
  tvm_ffi_strbuf out = {0};
  CHECK(tvm_script_doc_to_python(e, NULL, &out) != 0);
  CHECK_RAISED("RuntimeError", "nested deeper");
  /* An abstract kind inside a tree. */
  tvm_script_doc_obj* call = tvm_script_doc_call_take(id("f"), tvm_script_tuple_doc_take(NULL));
  CHECK(tvm_script_doc_to_python(call, NULL, &out) == 0);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&out), "f(())");
  tvm_ffi_strbuf_free(&out);
  tvm_ffi_release(call);
  tvm_ffi_release(e);
}

int main(void) {
  RUN(doc_objects);
  RUN(constructor_errors);
  RUN(expressions_and_precedence);
  RUN(starred_doc);
  RUN(statements);
  RUN(deep_and_bad_docs_are_errors);
  return test_summary();
}

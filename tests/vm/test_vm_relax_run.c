/*
 * test_vm_relax_run.c: the runtime functions of Relax operators that libvm registers under
 * upstream's names: relax.run.shape_to_tensor, relax.run.print (its line on stdout, captured
 * here) and relax.run.assert_op (an AssertionError with the formatted message), called
 * directly, with their bad arguments.
 */
#include <tvm/vm/vm.h>

#include "stdout_capture.h"
#include "test_util.h"

static void* i64_tensor(int ndim, const int64_t* shape, const int64_t* vals) {
  void* t = tvm_ffi_tensor_empty(shape, ndim, tvm_ffi_dtype(kDLInt, 64, 1), (DLDevice){kDLCPU, 0});
  memcpy(tvm_ffi_tensor_dl(t)->data, vals, (size_t)tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(t)) * 8);
  return t;
}

static void* bool_scalar(bool v) {
  void* t = tvm_ffi_tensor_empty(NULL, 0, tvm_ffi_dtype(kDLBool, 8, 1), (DLDevice){kDLCPU, 0});
  *(uint8_t*)tvm_ffi_tensor_dl(t)->data = v;
  return t;
}

TEST(shape_to_tensor) {
  void* s = tvm_ffi_shape_new((int64_t[]){4, 0, 7}, 3);
  TVMFFIAny a = tvm_ffi_any_obj(s), r;
  CHECK_OK(tvm_ffi_global_call("relax.run.shape_to_tensor", &a, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFITensor);
  if (r.type_index == kTVMFFITensor) {
    const DLTensor* t = tvm_ffi_tensor_dl(r.v_obj);
    CHECK_EQ_INT(t->ndim, 1);
    CHECK_EQ_INT(t->shape[0], 3);
    CHECK(t->dtype.code == kDLInt && t->dtype.bits == 64);
    const int64_t* p = t->data;
    CHECK(p[0] == 4 && p[1] == 0 && p[2] == 7);
    /* and back through vm.builtin.tensor_to_shape */
    TVMFFIAny back;
    CHECK_OK(tvm_ffi_global_call("vm.builtin.tensor_to_shape", &r, 1, &back));
    CHECK(back.type_index == kTVMFFIShape && tvm_ffi_shape_ndim(back.v_obj) == 3 &&
          tvm_ffi_shape_data(back.v_obj)[2] == 7);
    tvm_ffi_any_release(&back);
  }
  tvm_ffi_any_release(&r);
  /* an empty shape gives a tensor of 0 elements */
  void* e = tvm_ffi_shape_new(NULL, 0);
  a = tvm_ffi_any_obj(e);
  CHECK_OK(tvm_ffi_global_call("relax.run.shape_to_tensor", &a, 1, &r));
  CHECK(r.type_index == kTVMFFITensor && tvm_ffi_tensor_dl(r.v_obj)->shape[0] == 0);
  tvm_ffi_any_release(&r);
  a = tvm_ffi_any_int(3);
  CHECK(tvm_ffi_global_call("relax.run.shape_to_tensor", &a, 1, &r) != 0);
  CHECK_RAISED("TypeError", "relax.run.shape_to_tensor: argument 0 must be a Shape");
  tvm_ffi_release(s), tvm_ffi_release(e);
}

TEST(print_formats) {
  void* t = i64_tensor(2, (int64_t[]){2, 3}, (int64_t[]){1, -2, 3, 4, 5, 6});
  float fv[3] = {0.5f, -1.25f, 3.0f};
  void* f = tvm_ffi_tensor_empty((int64_t[]){3}, 1, tvm_ffi_dtype(kDLFloat, 32, 1), (DLDevice){kDLCPU, 0});
  memcpy(tvm_ffi_tensor_dl(f)->data, fv, sizeof(fv));
  void* shape = tvm_ffi_shape_new((int64_t[]){5}, 1);
  void* b = bool_scalar(true);
  TVMFFIAny r;
  /* "{}" fields mixed with an index field */
  TVMFFIAny a1[5] = {tvm_ffi_string("x = {}, f = {} {{s={}}} {0}"), tvm_ffi_any_obj(t), tvm_ffi_any_obj(f),
                     tvm_ffi_any_obj(shape), tvm_ffi_any_obj(b)};
  capture_begin();
  int rc = tvm_ffi_global_call("relax.run.print", a1, 5, &r);
  const char* got = capture_end();
  /* as in Python, automatic then manual numbering is an error, and nothing is printed */
  CHECK(rc != 0);
  CHECK_STR_EQ(got, "");
  CHECK_RAISED("ValueError", "cannot switch from automatic field numbering to manual");
  tvm_ffi_any_release(&a1[0]);
  /* "{}" fields, escaped braces, a 2-d int tensor, a float tensor, a shape, a bool tensor */
  TVMFFIAny a2[5] = {tvm_ffi_string("x = {}, f = {} {{s={}}} b={}"), tvm_ffi_any_obj(t), tvm_ffi_any_obj(f),
                     tvm_ffi_any_obj(shape), tvm_ffi_any_obj(b)};
  capture_begin();
  CHECK_OK(tvm_ffi_global_call("relax.run.print", a2, 5, &r));
  got = capture_end();
  CHECK_STR_EQ(got, "x = [[1, -2, 3], [4, 5, 6]], f = [0.5, -1.25, 3.0] {s=(5,)} b=True\n");
  tvm_ffi_any_release(&a2[0]);
  /* an empty format joins the values with spaces; scalars, strings, None, tuples */
  void* items[2] = {shape, t};
  void* arr = tvm_ffi_array_of_objects(items, 2);
  TVMFFIAny a3[6] = {tvm_ffi_string(""), tvm_ffi_any_int(-7), tvm_ffi_any_float(2.5), tvm_ffi_string("hi"),
                     tvm_ffi_any_none(), tvm_ffi_any_obj(arr)};
  capture_begin();
  CHECK_OK(tvm_ffi_global_call("relax.run.print", a3, 6, &r));
  got = capture_end();
  CHECK_STR_EQ(got, "-7 2.5 hi None ((5,), [[1, -2, 3], [4, 5, 6]])\n");
  tvm_ffi_any_release(&a3[0]), tvm_ffi_any_release(&a3[3]);
  /* manual indices */
  TVMFFIAny a4[3] = {tvm_ffi_string("{1}-{0}-{1}"), tvm_ffi_any_int(1), tvm_ffi_any_int(2)};
  capture_begin();
  CHECK_OK(tvm_ffi_global_call("relax.run.print", a4, 3, &r));
  got = capture_end();
  CHECK_STR_EQ(got, "2-1-2\n");
  tvm_ffi_any_release(&a4[0]);
  tvm_ffi_release(arr), tvm_ffi_release(t), tvm_ffi_release(f), tvm_ffi_release(shape), tvm_ffi_release(b);
}

TEST(print_bad_formats) {
  static const struct {
    const char* fmt;
    const char* kind;
    const char* part;
  } cases[] = {
      {"{} {}", "IndexError", "Replacement index 1 out of range"},
      {"{:.2f}", "ValueError", "format field {:.2f} is not supported"},
      {"{name}", "ValueError", "format field {name} is not supported"},
      {"a } b", "ValueError", "Single '}' encountered"},
      {"a { b", "ValueError", "Single '{' encountered"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    TVMFFIAny a[2] = {tvm_ffi_string(cases[i].fmt), tvm_ffi_any_int(1)}, r;
    capture_begin();
    CHECK(tvm_ffi_global_call("relax.run.print", a, 2, &r) != 0);
    CHECK_STR_EQ(capture_end(), "");
    CHECK_RAISED(cases[i].kind, cases[i].part);
    tvm_ffi_any_release(&a[0]);
  }
  TVMFFIAny a = tvm_ffi_any_int(1), r;
  CHECK(tvm_ffi_global_call("relax.run.print", &a, 1, &r) != 0);
  CHECK_RAISED("TypeError", "relax.run.print: the format must be a string");
  CHECK(tvm_ffi_global_call("relax.run.print", NULL, 0, &r) != 0);
  CHECK_RAISED("TypeError", "relax.run.print expects a format string");
}

TEST(assert_op) {
  void* yes = bool_scalar(true);
  void* no = bool_scalar(false);
  void* t = i64_tensor(1, (int64_t[]){2}, (int64_t[]){3, 9});
  TVMFFIAny r;
  /* holds: nothing happens */
  TVMFFIAny a1[3] = {tvm_ffi_any_obj(yes), tvm_ffi_string("never {}"), tvm_ffi_any_obj(t)};
  CHECK_OK(tvm_ffi_global_call("relax.run.assert_op", a1, 3, &r));
  a1[0] = tvm_ffi_any_bool(true);
  CHECK_OK(tvm_ffi_global_call("relax.run.assert_op", a1, 3, &r));
  /* fails: the formatted message */
  a1[0] = tvm_ffi_any_obj(no);
  CHECK(tvm_ffi_global_call("relax.run.assert_op", a1, 3, &r) != 0);
  CHECK_RAISED("AssertionError", "never [3, 9]");
  tvm_ffi_any_release(&a1[1]);
  /* empty format: the values joined by ", "; none: "Assertion Failed" */
  TVMFFIAny a2[4] = {tvm_ffi_any_int(0), tvm_ffi_string(""), tvm_ffi_any_int(4), tvm_ffi_any_obj(t)};
  CHECK(tvm_ffi_global_call("relax.run.assert_op", a2, 4, &r) != 0);
  CHECK_RAISED("AssertionError", "4, [3, 9]");
  CHECK(tvm_ffi_global_call("relax.run.assert_op", a2, 2, &r) != 0);
  CHECK_RAISED("AssertionError", "Assertion Failed");
  /* a condition that is not a bool scalar, a format that is not a string */
  a2[0] = tvm_ffi_any_obj(t);
  CHECK(tvm_ffi_global_call("relax.run.assert_op", a2, 2, &r) != 0);
  CHECK_RAISED("ValueError", "the condition must be a bool scalar");
  TVMFFIAny a3[2] = {tvm_ffi_any_obj(no), tvm_ffi_any_int(1)};
  CHECK(tvm_ffi_global_call("relax.run.assert_op", a3, 2, &r) != 0);
  CHECK_RAISED("TypeError", "the format must be a string");
  CHECK(tvm_ffi_global_call("relax.run.assert_op", a3, 1, &r) != 0);
  CHECK_RAISED("TypeError", "expects a condition and a format string");
  tvm_ffi_release(yes), tvm_ffi_release(no), tvm_ffi_release(t);
}

int main(void) {
  tvm_vm_init();
  RUN(shape_to_tensor);
  RUN(print_formats);
  RUN(print_bad_formats);
  RUN(assert_op);
  return test_summary();
}

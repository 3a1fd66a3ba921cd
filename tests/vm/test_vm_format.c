/*
 * test_vm_format.c: the executable format, the loader's verifier and the builder's checks:
 * save -> load -> byte-identical re-save, constants of every kind (tensors with random data),
 * every truncation length, corruption of every byte and of each section's fields, hand-made
 * invalid files, text dumps.
 */
#include <stdlib.h>
#include <unistd.h>

#include "vm_bytes.h"
#include "vm_test_funcs.h"

static void check_raised_contains(const char* kind, const char* part) { CHECK_RAISED(kind, part); }

/* An executable with every section populated: two functions, a memory scope, constants of
 * each kind (including random tensors), and a few instructions. */
static void* g_tensor_f32;
static void* g_tensor_i8;

static void* random_tensor(const int64_t* shape, int32_t ndim, DLDataType dt, unsigned seed) {
  void* t = tvm_ffi_tensor_empty(shape, ndim, dt, (DLDevice){kDLCPU, 0});
  DLTensor* d = tvm_ffi_tensor_dl(t);
  unsigned char* p = (unsigned char*)d->data + d->byte_offset;
  srand(seed);
  for (int64_t i = 0; i < tvm_ffi_dltensor_nbytes(d); ++i) p[i] = (unsigned char)(rand() & 0xFF);
  return t;
}

static tvm_vm_executable* build_rich(void) {
  tvm_vm_builder* b = tvm_vm_builder_new();
  int64_t shape[] = {3, 4}, shape8[] = {5};
  g_tensor_f32 = random_tensor(shape, 2, tvm_ffi_dtype(kDLFloat, 32, 1), 7);
  g_tensor_i8 = random_tensor(shape8, 1, tvm_ffi_dtype(kDLInt, 8, 1), 11);
  CHECK_EQ_INT(tvm_vm_builder_const_tensor(b, g_tensor_f32), 0);
  CHECK_EQ_INT(tvm_vm_builder_const_shape(b, shape, 2), 1);
  CHECK_EQ_INT(tvm_vm_builder_const_str(b, "a string constant"), 2);
  CHECK_EQ_INT(tvm_vm_builder_const_int(b, -42), 3);
  CHECK_EQ_INT(tvm_vm_builder_const_float(b, 2.5), 4);
  CHECK_EQ_INT(tvm_vm_builder_const_dtype(b, tvm_ffi_dtype(kDLFloat, 16, 1)), 5);
  CHECK_EQ_INT(tvm_vm_builder_const_tensor(b, g_tensor_i8), 6);
  TVMFFIAny none = tvm_ffi_any_none(), yes = tvm_ffi_any_bool(true);
  CHECK_EQ_INT(tvm_vm_builder_const_object(b, &none), 7);
  CHECK_EQ_INT(tvm_vm_builder_const_object(b, &yes), 8);
  CHECK_OK(tvm_vm_builder_set_memory_scope(b, 0, "global"));
  tvm_vm_builder_declare_packed(b, "test.add");
  const char* params[] = {"x", "y"};
  CHECK(tvm_vm_builder_function_begin(b, "main", 2, 4, params) >= 0);
  int64_t a1[] = {tvm_vm_arg_reg(0), tvm_vm_arg_reg(1)};
  tvm_vm_builder_emit_call(b, "test.add", a1, 2, 2);
  int64_t a2[] = {tvm_vm_arg_reg(2), tvm_vm_arg_const(3)};
  tvm_vm_builder_emit_call(b, "helper", NULL, 0, TVM_VM_REG_VOID); /* unknown: fails */
  check_raised_contains("ValueError", "unknown function `helper`");
  tvm_vm_builder_declare_function(b, "helper", 2);
  tvm_vm_builder_emit_call(b, "helper", a2, 2, 3);
  tvm_vm_builder_emit_ret(b, 3);
  CHECK_OK(tvm_vm_builder_function_end(b));
  const char* hp[] = {"a", "b"};
  tvm_vm_builder_function_begin(b, "helper", 2, 3, hp);
  int64_t a3[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(-7)};
  tvm_vm_builder_emit_call(b, "test.add", a3, 2, 2);
  int64_t a4[] = {tvm_vm_arg_reg(2), tvm_vm_arg_reg(1)};
  tvm_vm_builder_emit_call(b, "test.add", a4, 2, 2);
  tvm_vm_builder_emit_ret(b, 2);
  CHECK_OK(tvm_vm_builder_function_end(b));
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  CHECK(e != NULL);
  tvm_vm_builder_free(b);
  return e;
}

static TVMFFIByteArray bytes_of(const TVMFFIAny* v) {
  TVMFFIByteArray b = {NULL, 0};
  CHECK(tvm_ffi_any_as_bytes(v, &b));
  return b;
}

TEST(save_load_resave_identical) {
  tvm_vm_executable* e = build_rich();
  TVMFFIAny s1, s2;
  CHECK_OK(tvm_vm_executable_save(e, &s1));
  TVMFFIByteArray b1 = bytes_of(&s1);
  tvm_vm_executable* e2 = tvm_vm_executable_load_bytes(b1.data, b1.size);
  CHECK(e2 != NULL);
  CHECK_OK(tvm_vm_executable_save(e2, &s2));
  TVMFFIByteArray b2 = bytes_of(&s2);
  CHECK_EQ_INT(b1.size, b2.size);
  CHECK(b1.size == b2.size && memcmp(b1.data, b2.data, b1.size) == 0);
  /* Constants after load. */
  CHECK_EQ_INT(tvm_vm_executable_num_constants(e2), 9);
  const TVMFFIAny* c0 = tvm_vm_executable_constant(e2, 0);
  CHECK(c0 && c0->type_index == kTVMFFITensor);
  const DLTensor* t = tvm_ffi_tensor_dl(c0->v_obj);
  const DLTensor* src = tvm_ffi_tensor_dl(g_tensor_f32);
  CHECK_EQ_INT(t->ndim, 2);
  CHECK_EQ_INT(t->shape[0], 3);
  CHECK_EQ_INT(t->shape[1], 4);
  CHECK(tvm_ffi_dtype_equal(t->dtype, tvm_ffi_dtype(kDLFloat, 32, 1)));
  CHECK(memcmp((char*)t->data + t->byte_offset, (char*)src->data + src->byte_offset, 48) == 0);
  const DLTensor* t8 = tvm_ffi_tensor_dl(tvm_vm_executable_constant(e2, 6)->v_obj);
  const DLTensor* s8 = tvm_ffi_tensor_dl(g_tensor_i8);
  CHECK(memcmp((char*)t8->data + t8->byte_offset, (char*)s8->data + s8->byte_offset, 5) == 0);
  const TVMFFIAny* c1 = tvm_vm_executable_constant(e2, 1);
  CHECK(c1->type_index == kTVMFFIShape && tvm_ffi_shape_ndim(c1->v_obj) == 2 &&
        tvm_ffi_shape_data(c1->v_obj)[1] == 4);
  TVMFFIByteArray str = bytes_of(tvm_vm_executable_constant(e2, 2));
  CHECK(str.size == 17 && memcmp(str.data, "a string constant", 17) == 0);
  CHECK_EQ_INT(tvm_vm_executable_constant(e2, 3)->v_int64, -42);
  CHECK(tvm_vm_executable_constant(e2, 4)->v_float64 == 2.5);
  CHECK(tvm_ffi_dtype_equal(tvm_vm_executable_constant(e2, 5)->v_dtype, tvm_ffi_dtype(kDLFloat, 16, 1)));
  CHECK_EQ_INT(tvm_vm_executable_constant(e2, 7)->type_index, kTVMFFINone);
  CHECK_EQ_INT(tvm_vm_executable_constant(e2, 8)->type_index, kTVMFFIBool);
  CHECK(tvm_vm_executable_constant(e2, 9) == NULL);
  /* Function table. */
  CHECK_EQ_INT(tvm_vm_executable_num_functions(e2), 3);
  CHECK_EQ_INT(tvm_vm_executable_find_function(e2, "helper"), 2);
  CHECK_EQ_INT(tvm_vm_executable_find_function(e2, "nope"), -1);
  CHECK_EQ_INT(tvm_vm_executable_function_kind(e2, 0), TVM_VM_FUNC_PACKED);
  CHECK_EQ_INT(tvm_vm_executable_function_num_args(e2, 1), 2);
  CHECK_STR_EQ(tvm_vm_executable_function_name(e2, 1), "main");
  /* It runs: main(x, y) = helper(x + y, -42) = x + y - 7 - 42. */
  register_test_funcs();
  tvm_vm* vm = cpu_vm(e2);
  CHECK(vm != NULL);
  TVMFFIAny args[] = {tvm_ffi_any_int(100), tvm_ffi_any_int(20)};
  CHECK_EQ_INT(call_int(vm, "main", args, 2), 71);
  tvm_vm_release(vm);
  tvm_ffi_any_release(&s1);
  tvm_ffi_any_release(&s2);
  tvm_vm_executable_release(e2);
  tvm_vm_executable_release(e);
  tvm_ffi_release(g_tensor_f32);
  tvm_ffi_release(g_tensor_i8);
}

TEST(file_roundtrip_and_module_api) {
  tvm_vm_executable* e = build_fib();
  char path[] = "/tmp/vm_format_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  CHECK_OK(tvm_vm_executable_save_file(e, path));
  tvm_vm_executable* e2 = tvm_vm_executable_load_file(path);
  CHECK(e2 != NULL);
  unlink(path);
  CHECK(tvm_vm_executable_load_file(path) == NULL);
  CHECK_RAISED("RuntimeError", "cannot open");
  /* The module interface: functions of the executable and the loader global. */
  void* f = NULL;
  CHECK_OK(tvm_ffi_module_get_function(e2, "as_text", false, &f));
  CHECK(f != NULL);
  TVMFFIAny text;
  CHECK_OK(tvm_ffi_function_call(f, NULL, 0, &text));
  TVMFFIByteArray tb = bytes_of(&text);
  CHECK(strstr(tb.data, "@fib:") != NULL);
  tvm_ffi_any_release(&text);
  tvm_ffi_release(f);
  CHECK_OK(tvm_ffi_module_get_function(e2, "get_function_param_name", false, &f));
  TVMFFIAny pargs[] = {tvm_ffi_any_raw_str("fib"), tvm_ffi_any_int(0)}, pname;
  CHECK_OK(tvm_ffi_function_call(f, pargs, 2, &pname));
  CHECK_STR_EQ(bytes_of(&pname).data, "n");
  tvm_ffi_any_release(&pname);
  pargs[1] = tvm_ffi_any_int(3);
  CHECK(tvm_ffi_function_call(f, pargs, 2, &pname) != 0);
  CHECK_RAISED("IndexError", "out of range");
  tvm_ffi_release(f);
  TVMFFIAny saved;
  CHECK_OK(tvm_vm_executable_save(e2, &saved));
  TVMFFIAny loaded;
  CHECK_OK(tvm_ffi_global_call("ffi.Module.load_from_bytes.relax.VMExecutable", &saved, 1, &loaded));
  CHECK(tvm_vm_is_executable(loaded.v_obj));
  tvm_vm_executable* e3 = tvm_vm_executable_load_from_module(loaded.v_obj);
  CHECK(e3 == (tvm_vm_executable*)loaded.v_obj);
  tvm_ffi_release(e3);
  /* vm_load_executable gives a VM that needs vm_initialization. */
  CHECK_OK(tvm_ffi_module_get_function(e2, "vm_load_executable", false, &f));
  TVMFFIAny vmv;
  CHECK_OK(tvm_ffi_function_call(f, NULL, 0, &vmv));
  tvm_ffi_release(f);
  CHECK(tvm_vm_is_vm(vmv.v_obj));
  register_test_funcs();
  TVMFFIAny x = tvm_ffi_any_int(10), r;
  CHECK(tvm_vm_invoke((tvm_vm*)vmv.v_obj, "fib", &x, 1, &r) != 0);
  CHECK_RAISED("RuntimeError", "not initialised");
  CHECK_OK(tvm_ffi_module_get_function(vmv.v_obj, "vm_initialization", false, &f));
  TVMFFIAny init_args[] = {tvm_ffi_any_int(kDLCPU), tvm_ffi_any_int(0), tvm_ffi_any_int(TVM_VM_ALLOC_POOLED)};
  CHECK_OK(tvm_ffi_function_call(f, init_args, 3, &r));
  CHECK(tvm_ffi_function_call(f, init_args, 3, &r) != 0);
  CHECK_RAISED("RuntimeError", "already initialised");
  tvm_ffi_release(f);
  CHECK_EQ_INT(call_int((tvm_vm*)vmv.v_obj, "fib", &x, 1), 55);
  tvm_vm_executable* e4 = tvm_vm_executable_load_from_module(vmv.v_obj); /* a VM is a module too */
  CHECK(e4 == e2);
  tvm_ffi_release(e4);
  tvm_ffi_any_release(&vmv);
  tvm_ffi_any_release(&loaded);
  tvm_ffi_any_release(&saved);
  tvm_vm_executable_release(e2);
  tvm_vm_executable_release(e);
}

TEST(every_truncation_rejected) {
  tvm_vm_executable* e = build_rich();
  TVMFFIAny s;
  CHECK_OK(tvm_vm_executable_save(e, &s));
  TVMFFIByteArray b = bytes_of(&s);
  int bad = 0;
  for (size_t len = 0; len < b.size; ++len) {
    /* A fresh heap copy of exactly len bytes, so ASan sees any read past the end. */
    char* copy = (char*)malloc(len ? len : 1);
    memcpy(copy, b.data, len);
    tvm_vm_executable* t = tvm_vm_executable_load_bytes(copy, len);
    free(copy);
    void* err = tvm_ffi_error_take();
    if (t || !err || strcmp(tvm_ffi_error_kind(err), "ValueError") != 0 ||
        !strstr(tvm_ffi_error_message(err), "section")) {
      if (bad++ < 5) {
        fprintf(stderr, "length %zu: %s\n", len, err ? tvm_ffi_error_message(err) : "accepted");
      }
    }
    tvm_ffi_release(err);
    tvm_ffi_release(t);
  }
  CHECK_EQ_INT(bad, 0);
  /* One extra byte is rejected too. */
  char* longer = (char*)malloc(b.size + 1);
  memcpy(longer, b.data, b.size);
  longer[b.size] = 0;
  CHECK(tvm_vm_executable_load_bytes(longer, b.size + 1) == NULL);
  CHECK_RAISED("ValueError", "trailing bytes");
  free(longer);
  tvm_ffi_any_release(&s);
  tvm_vm_executable_release(e);
  tvm_ffi_release(g_tensor_f32);
  tvm_ffi_release(g_tensor_i8);
}

TEST(every_byte_corrupted_never_crashes) {
  tvm_vm_executable* e = build_rich();
  TVMFFIAny s;
  CHECK_OK(tvm_vm_executable_save(e, &s));
  TVMFFIByteArray b = bytes_of(&s);
  int accepted = 0, rejected = 0;
  const unsigned char masks[] = {0xFF, 0x01, 0x80};
  for (size_t m = 0; m < sizeof(masks); ++m) {
    for (size_t i = 0; i < b.size; ++i) {
      char* copy = (char*)malloc(b.size);
      memcpy(copy, b.data, b.size);
      copy[i] ^= (char)masks[m];
      tvm_vm_executable* t = tvm_vm_executable_load_bytes(copy, b.size);
      free(copy);
      if (t) {
        /* Whatever the verifier accepts must print and save without trouble. */
        TVMFFIAny x;
        CHECK_OK(tvm_vm_executable_as_text(t, &x));
        tvm_ffi_any_release(&x);
        CHECK_OK(tvm_vm_executable_stats(t, &x));
        tvm_ffi_any_release(&x);
        accepted++;
        tvm_ffi_release(t);
      } else {
        void* err = tvm_ffi_error_take();
        CHECK(err != NULL);
        if (err) CHECK_STR_CONTAINS(tvm_ffi_error_message(err), "invalid executable");
        tvm_ffi_release(err);
        rejected++;
      }
    }
  }
  CHECK(rejected > 0);
  CHECK(accepted > 0); /* e.g. tensor payload bytes */
  tvm_ffi_any_release(&s);
  tvm_vm_executable_release(e);
  tvm_ffi_release(g_tensor_f32);
  tvm_ffi_release(g_tensor_i8);
}

/* ---- Hand-made files: one broken field per case --------------------------------------- */
/* A file with a function `main(x)` = ret %0 in its valid form; `variant` breaks one thing. */
static vmb make_file(int variant) {
  vmb b = {0};
  if (variant == 1) vmb_u64(&b, 0xD225DE2F4214151DULL); /* the old magic */
  else vmb_u64(&b, 0xD225DE2F4214151EULL);
  vmb_str(&b, variant == 2 ? "0.13" : "0.14");
  /* globals */
  vmb_u64(&b, variant == 12 ? 3 : 2);
  vmb_func(&b, variant == 3 ? 7 : 1, "main", 0, variant == 4 ? 9 : 2, 1,
           variant == 5 ? 0 : 4, 1, "x");
  vmb_func(&b, 0, variant == 6 ? "main" : "test.add", 0, 0, -2, 0, 0, NULL);
  if (variant == 12) vmb_func(&b, 1, "other", 1, 2, 0, 1, 0, NULL);
  /* memory scopes */
  vmb_u64(&b, 1);
  vmb_i64(&b, variant == 7 ? 5 : 0);
  vmb_str(&b, "global");
  /* constants */
  vmb_u64(&b, 1);
  vmb_i32(&b, variant == 8 ? 99 : 1);
  vmb_i64(&b, 123);
  /* code: call test.add(%0, c[0]) -> %1 ; ret %1 */
  int64_t call[] = {1, variant == 9 ? 4 : 1, variant == 10 ? 2 : 1, 2,
                    vmb_arg(0, 0), vmb_arg(2, variant == 11 ? 1 : 0)};
  int64_t ret[] = {variant == 13 ? 5 : 2, 1};
  int64_t offsets[] = {0, 6};
  vmb_i64s(&b, offsets, 2);
  vmb_u64(&b, 8);
  vmb_put(&b, call, sizeof(call));
  vmb_put(&b, ret, sizeof(ret));
  return b;
}

TEST(hand_made_files) {
  register_test_funcs();
  vmb ok = make_file(0);
  tvm_vm_executable* e = tvm_vm_executable_load_bytes(ok.data, ok.size);
  CHECK_OK(e ? 0 : -1);
  if (e) {
    tvm_vm* vm = cpu_vm(e);
    TVMFFIAny x = tvm_ffi_any_int(7);
    CHECK_EQ_INT(call_int(vm, "main", &x, 1), 130);
    tvm_vm_release(vm);
    tvm_vm_executable_release(e);
  }
  vmb_free(&ok);
  static const struct {
    int variant;
    const char* part;
  } cases[] = {
      {1, "header section: bad magic"},
      {2, "unsupported version \"0.13\""},
      {3, "unknown kind 7"},
      {4, "instruction range [0, 9)"},
      {5, "register_file_size 0 must be at least num_args 1"},
      {6, "are both named `main`"},
      {7, "memory scopes section: entry 0 names constant 5"},
      {8, "constant 0: unknown tag 99"},
      {9, "destination register 4 out of range"},
      {10, "call of function index 2, but there are 2 functions"},
      {11, "constant index 1 out of range"},
      {12, "overlap at instruction 1"},
      {13, "unknown opcode 5"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    vmb f = make_file(cases[i].variant);
    CHECK(tvm_vm_executable_load_bytes(f.data, f.size) == NULL);
    void* err = tvm_ffi_error_take();
    CHECK(err != NULL);
    if (err) {
      CHECK_STR_EQ(tvm_ffi_error_kind(err), "ValueError");
      if (!strstr(tvm_ffi_error_message(err), cases[i].part)) {
        fprintf(stderr, "variant %d: \"%s\" lacks \"%s\"\n", cases[i].variant,
                tvm_ffi_error_message(err), cases[i].part);
        CHECK(false);
      }
    }
    tvm_ffi_release(err);
    vmb_free(&f);
  }
}

/* A compiled (vm_tir) function whose code is not among the imports (a file saved without its
 * library): making a VM of it is a ValueError naming the missing symbol, also over an error a
 * caller left raised. */
TEST(vmtir_function_without_its_code) {
  vmb b = {0};
  vmb_header(&b);
  vmb_u64(&b, 1);
  vmb_func(&b, 2, "main", 0, 0, 1, 2, 1, "x");
  vmb_u64(&b, 0); /* memory scopes */
  vmb_u64(&b, 0); /* constants */
  vmb_i64s(&b, NULL, 0);
  vmb_u64(&b, 0);
  tvm_vm_executable* e = tvm_vm_executable_load_bytes(b.data, b.size);
  CHECK_OK(e ? 0 : -1);
  for (int stale = 0; e && stale < 2; ++stale) {
    if (stale) tvm_ffi_raise("StaleError", "left by an earlier call");
    CHECK(tvm_vm_create(e, &(DLDevice){kDLCPU, 0}, 1) == NULL);
    CHECK_RAISED("ValueError", "cannot find `__vmtir__main`");
  }
  tvm_vm_executable_release(e);
  vmb_free(&b);
}

/* Code-level violations that need their own layout. */
static vmb file_with_code(const int64_t* words, int64_t nwords, const int64_t* offsets,
                          int64_t ninstr, int64_t nargs, int64_t nregs) {
  vmb b = {0};
  vmb_header(&b);
  vmb_u64(&b, 2);
  vmb_func(&b, 1, "main", 0, ninstr, nargs, nregs, 0, NULL);
  vmb_func(&b, 0, "test.add", 0, 0, -2, 0, 0, NULL);
  vmb_u64(&b, 0);
  vmb_u64(&b, 0);
  vmb_i64s(&b, offsets, (size_t)ninstr);
  vmb_i64s(&b, words, (size_t)nwords);
  return b;
}

static void expect_code_error(const int64_t* words, int64_t nwords, const int64_t* offsets,
                              int64_t ninstr, int64_t nargs, int64_t nregs, const char* part) {
  vmb f = file_with_code(words, nwords, offsets, ninstr, nargs, nregs);
  tvm_vm_executable* e = tvm_vm_executable_load_bytes(f.data, f.size);
  CHECK(e == NULL);
  tvm_ffi_release(e);
  CHECK_RAISED("ValueError", part);
  vmb_free(&f);
}

TEST(code_verification) {
  /* jump outside the function */
  int64_t w1[] = {3, 5, 2, 0};
  int64_t o2[] = {0, 2};
  expect_code_error(w1, 4, o2, 2, 1, 1, "jump offset 5 leaves the function");
  /* If condition register out of range */
  int64_t w2[] = {4, 3, 1, 2, 0};
  int64_t o2b[] = {0, 3};
  expect_code_error(w2, 5, o2b, 2, 1, 1, "condition register 3 out of range");
  /* The last instruction falls through */
  int64_t w3[] = {1, 0, 1, 0};
  int64_t o1[] = {0};
  expect_code_error(w3, 4, o1, 1, 1, 1, "the last instruction must be ret or goto, not call");
  /* Argument register out of range, %vm as a destination */
  int64_t w4[] = {1, 0, 1, 1, vmb_arg(0, 9), 2, 0};
  expect_code_error(w4, 7, (int64_t[]){0, 5}, 2, 1, 1, "argument 0 reads register 9");
  int64_t w5[] = {1, (1LL << 54) + 1, 1, 0, 2, 0};
  expect_code_error(w5, 6, (int64_t[]){0, 4}, 2, 1, 1, "destination register");
  /* Unknown argument kind */
  int64_t w6[] = {1, 0, 1, 1, vmb_arg(7, 0), 2, 0};
  expect_code_error(w6, 7, (int64_t[]){0, 5}, 2, 1, 1, "argument 0 has unknown kind 7");
  /* Instructions not contiguous / words after the last instruction */
  int64_t w7[] = {2, 0, 2, 0};
  expect_code_error(w7, 4, (int64_t[]){0, 3}, 2, 1, 1, "must be contiguous");
  expect_code_error(w7, 4, (int64_t[]){0}, 1, 1, 1, "words follow the last instruction");
  /* A call running past the end of the words */
  int64_t w8[] = {1, 0, 1, 1000};
  expect_code_error(w8, 4, (int64_t[]){0}, 1, 1, 1, "runs past the end");
  /* Call of a VM function with the wrong number of arguments (main takes 1) */
  int64_t w9[] = {1, 0, 0, 2, vmb_arg(0, 0), vmb_arg(0, 0), 2, 0};
  expect_code_error(w9, 8, (int64_t[]){0, 6}, 2, 1, 1, "call of `main` with 2 arguments, but it takes 1");
  /* Ret of an out-of-range register */
  int64_t w10[] = {2, 3};
  expect_code_error(w10, 2, (int64_t[]){0}, 1, 1, 1, "returns register 3");
}

TEST(builder_checks) {
  tvm_vm_builder* b = tvm_vm_builder_new();
  CHECK(tvm_vm_builder_emit_ret(b, 0) < 0);
  CHECK_RAISED("ValueError", "outside a function");
  tvm_vm_builder_declare_packed(b, "test.add");
  CHECK(tvm_vm_builder_declare_function(b, "test.add", 1) < 0);
  CHECK_RAISED("ValueError", "already declared as a packed function");
  CHECK(tvm_vm_builder_function_begin(b, "f", 2, 1, NULL) < 0);
  CHECK_RAISED("ValueError", "num_registers 1 must be at least num_args 2");
  CHECK(tvm_vm_builder_function_begin(b, "f", 1, 2, NULL) >= 0);
  CHECK(tvm_vm_builder_function_begin(b, "g", 1, 2, NULL) < 0);
  CHECK_RAISED("ValueError", "inside function `f`");
  int64_t args[] = {tvm_vm_arg_reg(5)};
  CHECK(tvm_vm_builder_emit_call(b, "test.add", args, 1, 1) < 0);
  CHECK_RAISED("ValueError", "argument 0 of the call of `test.add` reads register 5 is beyond its 2 registers");
  CHECK(tvm_vm_builder_emit_call(b, "nope", NULL, 0, 1) < 0);
  CHECK_RAISED("ValueError", "call of unknown function `nope`");
  CHECK(tvm_vm_builder_emit_call(b, "test.add", NULL, 0, 2) < 0);
  CHECK_RAISED("ValueError", "destination register 2 is beyond");
  args[0] = tvm_vm_arg_const(0);
  CHECK(tvm_vm_builder_emit_call(b, "test.add", args, 1, 1) < 0);
  CHECK_RAISED("ValueError", "constant 0 does not exist");
  CHECK(tvm_vm_builder_emit_call(b, "f", NULL, 0, 1) < 0);
  CHECK_RAISED("ValueError", "call of `f` with 0 arguments, but it takes 1");
  CHECK(tvm_vm_builder_emit_if(b, 7, 1) < 0);
  CHECK_RAISED("ValueError", "condition register 7");
  CHECK(tvm_vm_builder_function_end(b) != 0); /* empty function */
  CHECK_RAISED("ValueError", "has no instructions");
  int64_t g = tvm_vm_builder_emit_goto(b, 0);
  CHECK(g >= 0);
  CHECK(tvm_vm_builder_function_end(b) != 0);
  CHECK_RAISED("ValueError", "has no target");
  CHECK(tvm_vm_builder_set_jump_target(b, g, g + 5) == 0);
  CHECK(tvm_vm_builder_function_end(b) != 0);
  CHECK_RAISED("ValueError", "leaves the function");
  tvm_vm_builder_emit_ret(b, 0);
  CHECK_OK(tvm_vm_builder_set_jump_target(b, g, g + 1));
  int64_t c = tvm_vm_builder_emit_call(b, "test.add", NULL, 0, 1);
  CHECK(c >= 0);
  CHECK(tvm_vm_builder_function_end(b) != 0);
  CHECK_RAISED("ValueError", "must end with ret or goto");
  tvm_vm_builder_emit_ret(b, 1);
  CHECK_OK(tvm_vm_builder_function_end(b));
  tvm_vm_builder_declare_function(b, "later", 0);
  CHECK(tvm_vm_builder_finish(b) == NULL);
  CHECK_RAISED("ValueError", "`later` is declared but never defined");
  tvm_vm_builder_free(b);

  b = tvm_vm_builder_new();
  tvm_vm_builder_function_begin(b, "open", 0, 1, NULL);
  tvm_vm_builder_emit_ret(b, TVM_VM_REG_VOID);
  CHECK(tvm_vm_builder_finish(b) == NULL);
  CHECK_RAISED("ValueError", "`open` is not ended");
  CHECK(tvm_vm_builder_set_memory_scope(b, 3, "global") != 0);
  CHECK_RAISED("ValueError", "memory scope for constant 3");
  TVMFFIAny ptr = tvm_ffi_any_ptr(b);
  CHECK(tvm_vm_builder_const_object(b, &ptr) < 0);
  CHECK_RAISED("ValueError", "cannot be a constant");
  tvm_vm_builder_free(b);
}

/* Sub-byte tensors are stored packed (the tvm-ffi sizing rule): int4[5] takes 3 bytes. A
 * record claiming one byte per element is rejected (found by fuzzing: it overflowed). */
TEST(sub_byte_tensor_constants) {
  int64_t five = 5;
  void* t = tvm_ffi_tensor_empty(&five, 1, tvm_ffi_dtype(kDLInt, 4, 1), (DLDevice){kDLCPU, 0});
  memcpy(tvm_ffi_tensor_dl(t)->data, "\x12\x34\x05", 3);
  tvm_vm_builder* b = tvm_vm_builder_new();
  CHECK_EQ_INT(tvm_vm_builder_const_tensor(b, t), 0);
  tvm_vm_builder_function_begin(b, "f", 0, 0, NULL);
  tvm_vm_builder_emit_ret(b, TVM_VM_REG_VOID);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  TVMFFIAny saved;
  CHECK_OK(tvm_vm_executable_save(e, &saved));
  TVMFFIByteArray bytes = bytes_of(&saved);
  tvm_vm_executable* e2 = tvm_vm_executable_load_bytes(bytes.data, bytes.size);
  CHECK(e2 != NULL);
  if (e2) {
    const DLTensor* d = tvm_ffi_tensor_dl(tvm_vm_executable_constant(e2, 0)->v_obj);
    CHECK(d->dtype.bits == 4 && d->shape[0] == 5 && memcmp(d->data, "\x12\x34\x05", 3) == 0);
  }
  /* Find the record's data size field (3, just before the 3 data bytes) and make it 5. */
  char* copy = (char*)malloc(bytes.size);
  memcpy(copy, bytes.data, bytes.size);
  size_t at = 0;
  for (size_t i = 0; i + 8 <= bytes.size; ++i) {
    int64_t v;
    memcpy(&v, copy + i, 8);
    if (v == 3 && memcmp(copy + i + 8, "\x12\x34\x05", 3) == 0) at = i;
  }
  CHECK(at != 0);
  int64_t wrong = 5;
  memcpy(copy + at, &wrong, 8);
  CHECK(tvm_vm_executable_load_bytes(copy, bytes.size) == NULL);
  CHECK_RAISED("ValueError", "tensor data size 5 does not match its shape and dtype (3 bytes)");
  free(copy);
  tvm_ffi_any_release(&saved);
  tvm_ffi_release(e2);
  tvm_vm_executable_release(e);
  tvm_ffi_release(t);
}

TEST(text_dumps) {
  tvm_vm_executable* e = build_fib();
  TVMFFIAny text, py, stats;
  CHECK_OK(tvm_vm_executable_as_text(e, &text));
  CHECK_OK(tvm_vm_executable_as_python(e, &py));
  CHECK_OK(tvm_vm_executable_stats(e, &stats));
  const char* t = bytes_of(&text).data;
  CHECK_STR_CONTAINS(t, "@test.lt packed_func;");
  CHECK_STR_CONTAINS(t, "@fib:\n  call  test.lt          in: %0, i2       dst: %1\n  If    %1, 2\n  ret   %0\n");
  CHECK_STR_CONTAINS(t, "  call  fib              in: %2           dst: %4\n");
  const char* p = bytes_of(&py).data;
  CHECK_STR_CONTAINS(p, "ib = rx.Builder()\nwith ib.function(\"fib\", num_inputs=1):\n");
  CHECK_STR_CONTAINS(p, "    ib.emit_call(\"test.lt\", args=[ib.r(0), ib.imm(2)], dst=ib.r(1))\n");
  CHECK_STR_CONTAINS(p, "    ib.emit_if(ib.r(1), 2)\n    ib.emit_ret(ib.r(0))\n");
  const char* s = bytes_of(&stats).data;
  CHECK_STR_CONTAINS(s, "Relax VM executable statistics:");
  CHECK_STR_CONTAINS(s, "Globals (#4): [test.lt, test.sub, test.add, fib]");
  CHECK_STR_CONTAINS(s, "Instructions: 9");
  tvm_ffi_any_release(&text);
  tvm_ffi_any_release(&py);
  tvm_ffi_any_release(&stats);
  tvm_vm_executable_release(e);
}

int main(void) {
  tvm_vm_init();
  RUN(save_load_resave_identical);
  RUN(file_roundtrip_and_module_api);
  RUN(every_truncation_rejected);
  RUN(every_byte_corrupted_never_crashes);
  RUN(hand_made_files);
  RUN(vmtir_function_without_its_code);
  RUN(code_verification);
  RUN(builder_checks);
  RUN(sub_byte_tensor_constants);
  RUN(text_dumps);
  return test_summary();
}

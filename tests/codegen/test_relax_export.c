/*
 * test_relax_export.c: a Relax model exported as one shared library (tvm_codegen_relax_export)
 * and served from it through libvm + libtvmffi only (tvm_vm_executable_load_file, tvm_vm_create,
 * tvm_vm_invoke), checked against the Relax reference evaluator on random inputs: matmul, a
 * broadcast add, softmax or sigmoid under an If, elementwise ops, a tuple result, a symbolic
 * batch. Bad calls are located errors; a library whose __tvm_ffi__library_bin is corrupted or
 * truncated is refused with an error.
 */
#include <dlfcn.h>
#include <math.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/relax.h>
#include <tvm/vm/vm.h>

#include "codegen_testing.h"
#include "relax_testing.h"
#include "values_testing.h"
#include "exec_mode_testing.h"

static void* bool_scalar(bool v) {
  void* c = tvm_ffi_tensor_empty(NULL, 0, tvm_tir_dtype_bool(), (DLDevice){kDLCPU, 0});
  *(uint8_t*)tvm_ffi_tensor_dl(c)->data = v;
  return c;
}

/* A branch of an If: a SeqExpr binding t = e and returning t. */
static tvm_relax_expr_obj* branch(const char* name, tvm_relax_expr_obj* e) {
  tvm_relax_var_obj* t = tvm_relax_var_new(name, tvm_relax_sinfo_of(e), false);
  tvm_relax_binding_obj* b = tvm_relax_var_binding_new(t, e);
  void* bs = rt_array(1, b);
  tvm_relax_block_obj* k = tvm_relax_block_new(bs, false);
  void* ks = rt_array(1, k);
  tvm_relax_expr_obj* s = tvm_relax_seq_expr_new(ks, (tvm_relax_expr_obj*)t);
  tvm_ffi_release(ks), tvm_ffi_release(k), tvm_ffi_release(bs), tvm_ffi_release(b);
  tvm_ffi_release(t), tvm_ffi_release(e);
  return s;
}

/* main(x: (n, 8), w: (8, 6), b: (6,), c: bool):
 *   a = matmul(x, w) + b
 *   r = softmax(a, axis=-1) if c else sigmoid(a)
 *   return (r * a, tanh(x) - exp(x)) */
static tvm_tir_ir_module_obj* model(void) {
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_expr_obj* eight = tvm_tir_const_int(I64, 8);
  void* d[2] = {n, eight};
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor_sym(F32, 2, d));
  tvm_relax_var_obj* w = rt_var_take("w", rt_tensor(F32, 2, (int64_t)8, (int64_t)6));
  tvm_relax_var_obj* b = rt_var_take("b", rt_tensor(F32, 1, (int64_t)6));
  tvm_relax_var_obj* c = rt_var_take("c", rt_tensor(tvm_tir_dtype_bool(), 0));
  void* params = rt_array(4, x, w, b, c);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", params, NULL, true));
  tvm_relax_expr_obj* mm = RT_CALL("relax.matmul", NULL, x, w);
  tvm_relax_var_obj* h = tvm_relax_bb_emit(bb, mm, "h");
  tvm_relax_expr_obj* add = RT_CALL("relax.add", NULL, h, b);
  tvm_relax_var_obj* a = tvm_relax_bb_emit(bb, add, "a");
  void* axis = rt_attrs(1, "axis", tvm_ffi_any_int(-1));
  tvm_relax_expr_obj* s1 = branch("sm", RT_CALL("relax.nn.softmax", axis, a));
  tvm_relax_expr_obj* s2 = branch("sg", RT_CALL("relax.sigmoid", NULL, a));
  tvm_relax_expr_obj* iff = tvm_relax_if_new((tvm_relax_expr_obj*)c, s1, s2);
  tvm_relax_var_obj* r = tvm_relax_bb_emit(bb, iff, "r");
  tvm_relax_expr_obj* mul = RT_CALL("relax.multiply", NULL, r, a);
  tvm_relax_var_obj* o1 = tvm_relax_bb_emit(bb, mul, "o1");
  tvm_relax_expr_obj* th = RT_CALL("relax.tanh", NULL, x);
  tvm_relax_var_obj* t = tvm_relax_bb_emit(bb, th, "t");
  tvm_relax_expr_obj* ex = RT_CALL("relax.exp", NULL, x);
  tvm_relax_var_obj* e = tvm_relax_bb_emit(bb, ex, "e");
  tvm_relax_expr_obj* sub = RT_CALL("relax.subtract", NULL, t, e);
  tvm_relax_var_obj* o2 = tvm_relax_bb_emit(bb, sub, "o2");
  void* fields = rt_array(2, o1, o2);
  tvm_relax_expr_obj* out = tvm_relax_tuple_new(fields);
  tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(bb, out, NULL);
  tvm_tir_ir_module_obj* mod = g ? tvm_relax_bb_module(bb) : NULL;
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  CHECK(legal != NULL);
  void* objs[] = {mod, g, out, fields, o2, sub, e, ex, t, th, o1, mul, r, iff, s2, s1,
                  axis, a, add, h, mm, params, c, b, w, x, eight, n};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  tvm_relax_bb_free(bb);
  return legal;
}

static void tmp_path(char* buf, size_t n, const char* tag) {
  snprintf(buf, n, "%s/relax_export_%s_%d.so", TVM_CODEGEN_TEST_TMPDIR, tag, (int)getpid());
}

/* Export the model to path; 0 on success. */
static int export_model(const char* path) {
  tvm_tir_ir_module_obj* mod = model();
  int rc = mod ? tvm_codegen_relax_export(mod, path, test_opts()) : -1;
  tvm_ffi_release(mod);
  return rc;
}

/* A call of main that must fail with an error of `kind` whose message contains `part`. */
static void expect_bad_call(tvm_vm* vm, TVMFFIAny* args, int n, const char* kind,
                            const char* part) {
  TVMFFIAny got = tvm_ffi_any_none();
  CHECK(tvm_vm_invoke(vm, "main", args, n, &got) != 0);
  CHECK_RAISED(kind, part);
}

TEST(exported_model_matches_evaluator) {
  char path[512];
  tmp_path(path, sizeof(path), "model");
  CHECK_OK(export_model(path));
  /* Kernels reference only the runtime (and libm); the library records its ABI and holds the
   * executable. */
  CHECK(cg_undefined_symbols(path, true) > 0);
  void* so = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
  CHECK(so != NULL);
  const uint32_t* abi = so ? (const uint32_t*)dlsym(so, TVM_FFI_SYMBOL_ABI_VERSION) : NULL;
  CHECK(abi != NULL && abi[0] == TVM_FFI_VERSION_MAJOR && abi[1] == TVM_FFI_VERSION_MINOR);
  CHECK(so && dlsym(so, "__tvm_ffi__library_bin") != NULL);
  if (so) dlclose(so);

  /* Upstream's layout: the library's root module is the executable, importing the kernels. */
  CHECK_OK(tvm_vm_init());
  void* root = tvm_ffi_module_load_file(path);
  CHECK(root != NULL && tvm_vm_is_executable(root));
  void* imports = root ? ((tvm_ffi_module_obj*)root)->imports : NULL;
  CHECK(imports && tvm_ffi_seq_size(imports) == 1);
  void* kernel = NULL;
  if (root) CHECK_OK(tvm_ffi_module_get_function(root, "matmul", true, &kernel));
  CHECK(kernel != NULL);
  tvm_ffi_release(kernel);
  tvm_ffi_release(root);

  /* A bare file name is the file in the working directory, as for any file. */
  char cwd[512];
  CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
  CHECK_OK(chdir(TVM_CODEGEN_TEST_TMPDIR));
  tvm_vm_executable* exec = tvm_vm_executable_load_file(strrchr(path, '/') + 1);
  CHECK_OK(chdir(cwd));
  CHECK(exec != NULL && tvm_vm_executable_find_function(exec, "main") >= 0);
  tvm_tir_ir_module_obj* mod = model();
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  CHECK(vm != NULL);
  int64_t sw[2] = {8, 6}, sb[1] = {6};
  void* w = rv_rand(2, sw);
  void* b = rv_rand(1, sb);
  for (int trial = 0; vm && mod && trial < 4; ++trial) {
    int64_t sx[2] = {1 + trial * 3, 8};
    void* x = rv_rand(2, sx);
    void* c = bool_scalar(trial & 1);
    TVMFFIAny args[4] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(w), tvm_ffi_any_obj(b),
                         tvm_ffi_any_obj(c)};
    TVMFFIAny want = tvm_ffi_any_none(), got = tvm_ffi_any_none();
    CHECK_OK(tvm_relax_eval(mod, "main", args, 4, &want));
    CHECK_OK(tvm_vm_invoke(vm, "main", args, 4, &got));
    CHECK(got.type_index == kTVMFFIArray);
    CHECK_EQ_INT(rv_differ(&got, &want, 1e-5), 0);
    tvm_ffi_any_release(&want);
    tvm_ffi_any_release(&got);
    tvm_ffi_release(x), tvm_ffi_release(c);
  }

  /* Bad calls: each error names the function and the argument. */
  if (vm) {
    int64_t sx[2] = {3, 8}, s1[1] = {8}, sw5[2] = {8, 5};
    void* x = rv_rand(2, sx);
    void* x1 = rv_rand(1, s1);
    void* x64 = rv_rand_dtype(tvm_tir_dtype_float(64), 2, sx);
    void* w5 = rv_rand(2, sw5);
    void* c = bool_scalar(true);
    TVMFFIAny args[4] = {tvm_ffi_any_obj(x1), tvm_ffi_any_obj(w), tvm_ffi_any_obj(b),
                         tvm_ffi_any_obj(c)};
    TVMFFIAny got = tvm_ffi_any_none();
    CHECK(tvm_vm_invoke(vm, "main", args, 4, &got) != 0);
    void* err = tvm_ffi_error_take();
    CHECK(err != NULL);
    if (err) {
      CHECK_STR_CONTAINS(tvm_ffi_error_message(err), "'x'");
      CHECK_STR_CONTAINS(tvm_ffi_error_message(err), "ndim");
      tvm_ffi_release(err);
    }
    args[0] = tvm_ffi_any_obj(x64);
    expect_bad_call(vm, args, 4, "ValueError", "float32");
    args[0] = tvm_ffi_any_obj(x), args[1] = tvm_ffi_any_obj(w5);
    expect_bad_call(vm, args, 4, "ValueError", "'w'");
    args[1] = tvm_ffi_any_obj(w);
    expect_bad_call(vm, args, 3, "TypeError", "main");
    tvm_ffi_release(x), tvm_ffi_release(x1), tvm_ffi_release(x64), tvm_ffi_release(w5);
    tvm_ffi_release(c);
  }
  tvm_ffi_release(w), tvm_ffi_release(b);
  tvm_vm_release(vm);
  tvm_ffi_release(exec);
  tvm_ffi_release(mod);
  unlink(path);
}

/* ---- Refused libraries ------------------------------------------------------------------- */
static uint64_t get_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

static void put_u64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

static void write_file(const char* path, const unsigned char* data, size_t n) {
  FILE* f = fopen(path, "wb");
  CHECK(f != NULL);
  if (!f) return;
  CHECK(fwrite(data, 1, n, f) == n);
  fclose(f);
}

/* A copy of the library with one change, loaded through tvm_vm_executable_load_file: refused
 * with an error of `kind` containing `part`. */
static void expect_refused(const unsigned char* lib, size_t n, size_t at, uint64_t value,
                           const char* tag, const char* kind, const char* part) {
  unsigned char* copy = malloc(n);
  if (!copy) return;
  memcpy(copy, lib, n);
  put_u64(copy + at, value);
  char path[512];
  tmp_path(path, sizeof(path), tag);
  write_file(path, copy, n);
  free(copy);
  CHECK(tvm_vm_executable_load_file(path) == NULL);
  void* err = tvm_ffi_error_take();
  CHECK(err != NULL);
  if (err) {
    CHECK_STR_EQ(tvm_ffi_error_kind(err), kind);
    CHECK_STR_CONTAINS(tvm_ffi_error_message(err), part);
    CHECK_STR_CONTAINS(tvm_ffi_error_message(err), path);
    tvm_ffi_release(err);
  }
  unlink(path);
}

TEST(corrupted_library_bin_is_refused) {
  char path[512];
  tmp_path(path, sizeof(path), "good");
  CHECK_OK(export_model(path));
  size_t n = 0;
  unsigned char* lib = (unsigned char*)test_read_file(path, &n);
  CHECK(lib != NULL);
  unlink(path);
  if (!lib) return;
  /* The blob: nbytes, indptr {3: 0 1 1}, child_indices {1: 1}, then module 0's kind
   * "relax.VMExecutable" (after its u64 length) and its payload (u64 length + bytes). */
  static const char kind[] = "relax.VMExecutable";
  size_t k = 0;
  for (size_t i = 64; i + sizeof(kind) < n && !k; ++i) {
    if (memcmp(lib + i, kind, sizeof(kind) - 1) == 0 && get_u64(lib + i - 8) == sizeof(kind) - 1)
      k = i;
  }
  CHECK(k != 0);
  if (!k) {
    free(lib);
    return;
  }
  size_t blob = k - 64, payload_len = k + sizeof(kind) - 1, payload = payload_len + 8;
  CHECK_EQ_INT(get_u64(lib + blob + 8), 3);
  CHECK_EQ_INT(get_u64(lib + payload), TVM_VM_BYTECODE_MAGIC);
  uint64_t plen = get_u64(lib + payload_len), nbytes = get_u64(lib + blob);
  /* The payload is not an executable. */
  expect_refused(lib, n, payload, 0x1234, "magic", "ValueError", "bad magic");
  /* The payload is cut short (the executable's bytes end early). */
  expect_refused(lib, n, payload_len, plen - 24, "cut", "ValueError",
                 TEST_EXEC_MODE == TVM_CODEGEN_EXEC_COMPILED
                     ? "invalid executable: constants section truncated" /* no code */
                     : "invalid executable: code section truncated");
  /* Lengths beyond the symbol: the payload's, the blob's. */
  expect_refused(lib, n, payload_len, plen + (1u << 20), "plen", "RuntimeError",
                 "corrupted __tvm_ffi__library_bin: the payload of module 0 claims");
  expect_refused(lib, n, blob, nbytes + (1u << 20), "nbytes", "RuntimeError",
                 "corrupted __tvm_ffi__library_bin: the length prefix says");
  /* An import cycle: module 0 imports itself (child_indices[0] = 0). */
  CHECK_EQ_INT(get_u64(lib + blob + 48), 1);
  expect_refused(lib, n, blob + 48, 0, "cycle", "RuntimeError",
                 "corrupted __tvm_ffi__library_bin: import cycle through module 0");
  free(lib);
}

TEST(kernel_library_is_not_a_model) {
  /* A kernel library without an executable is refused by name. */
  char path[512];
  tmp_path(path, sizeof(path), "kernels");
  void* add = make_binary("add", TVM_TIR_FLOAT32, 4, 8, TVM_TIR_KIND_Add, TVM_TIR_FOR_SERIAL);
  void* g = add ? tvm_tir_lower(add, NULL) : NULL;
  CHECK_OK(g ? tvm_codegen_export(g, path, NULL) : -1);
  CHECK(tvm_vm_executable_load_file(path) == NULL);
  CHECK_RAISED("ValueError", "holds no VM executable");
  unlink(path);
  tvm_ffi_release(g), tvm_ffi_release(add);
}

TEST(model_without_kernels) {
  /* main(x, y) = (y, x): no PrimFunc, so the library holds the executable and no kernel. */
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 1, (int64_t)4));
  tvm_relax_var_obj* y = rt_var_take("y", rt_tensor(F32, 2, (int64_t)2, (int64_t)2));
  void* params = rt_array(2, x, y);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", params, NULL, true));
  void* fields = rt_array(2, y, x);
  tvm_relax_expr_obj* out = tvm_relax_tuple_new(fields);
  tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(bb, out, NULL);
  tvm_tir_ir_module_obj* mod = g ? tvm_relax_bb_module(bb) : NULL;
  char path[512];
  tmp_path(path, sizeof(path), "nokernels");
  CHECK_OK(mod ? tvm_codegen_relax_export(mod, path, test_opts()) : -1);
  tvm_vm_executable* exec = tvm_vm_executable_load_file(path);
  CHECK(exec != NULL);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  CHECK(vm != NULL);
  int64_t s1[1] = {4}, s2[2] = {2, 2};
  void* tx = rv_rand(1, s1);
  void* ty = rv_rand(2, s2);
  TVMFFIAny args[2] = {tvm_ffi_any_obj(tx), tvm_ffi_any_obj(ty)}, got = tvm_ffi_any_none();
  if (vm) CHECK_OK(tvm_vm_invoke(vm, "main", args, 2, &got));
  CHECK(got.type_index == kTVMFFIArray && tvm_ffi_seq_size(got.v_obj) == 2 &&
        tvm_ffi_seq_at(got.v_obj, 0)->v_obj == ty && tvm_ffi_seq_at(got.v_obj, 1)->v_obj == tx);
  tvm_ffi_any_release(&got);
  tvm_ffi_release(tx), tvm_ffi_release(ty);
  tvm_vm_release(vm);
  tvm_ffi_release(exec);
  unlink(path);
  tvm_ffi_release(mod), tvm_ffi_release(g), tvm_ffi_release(out), tvm_ffi_release(fields);
  tvm_relax_bb_free(bb), tvm_ffi_release(params), tvm_ffi_release(x), tvm_ffi_release(y);
}

TEST(export_errors) {
  tvm_tir_ir_module_obj* mod = model();
  CHECK(tvm_codegen_relax_export(mod, NULL, NULL) != 0);
  CHECK_RAISED("ValueError", "the path is NULL");
  /* An operator call LegalizeOps leaves (a tensor of unknown shape has no kernel): VMCodeGen's
   * error, and no file written. */
  tvm_relax_var_obj* x = rt_var_take("x", tvm_relax_tensor_sinfo_new(NULL, F32, 1, NULL));
  void* params = rt_array(1, x);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", params, NULL, true));
  tvm_relax_expr_obj* e = RT_CALL("relax.cumsum", NULL, x);
  tvm_relax_var_obj* v = tvm_relax_bb_emit(bb, e, NULL);
  tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)v, NULL);
  tvm_tir_ir_module_obj* raw = tvm_relax_bb_module(bb);
  char path[512];
  tmp_path(path, sizeof(path), "raw");
  CHECK(tvm_codegen_relax_export(raw, path, test_opts()) != 0);
  CHECK_RAISED("ValueError", "operator call left in the module (legalize it first): relax.cumsum");
  CHECK(access(path, F_OK) != 0);
  tvm_ffi_release(raw), tvm_ffi_release(g), tvm_ffi_release(v), tvm_ffi_release(e);
  tvm_relax_bb_free(bb), tvm_ffi_release(params), tvm_ffi_release(x);
  tvm_ffi_release(mod);
}

int main(void) {
  RUN(exported_model_matches_evaluator);
  RUN(corrupted_library_bin_is_refused);
  RUN(kernel_library_is_not_a_model);
  RUN(model_without_kernels);
  RUN(export_errors);
  return test_summary();
}

/*
 * test_ir_builder.c: the TVMScript IR builder (tvm/script/ir_builder.h). Each function is built
 * with the builder the way the parser drives it, then checked against the same IR built with
 * tvm/tir/builder.h (structural equality), against its printed TVMScript, and with the
 * well-formedness checker. Bad uses raise the right error kind and leak nothing.
 */
#include <tvm/script/ir_builder.h>
#include <tvm/script/printer.h>
#include <tvm/tir/tir.h>

#include "test_util.h"
#include "tir_testing.h"

static void* ref(void* obj) { return tvm_tir_ref(obj); }

/* Report and clear an unexpected error; returns p. */
static void* ok_line(void* p, int line) {
  if (!p) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "line %d: unexpected failure: %s: %s\n", line, e ? tvm_ffi_error_kind(e) : "?",
            e ? tvm_ffi_error_message(e) : "(no error)");
    tvm_ffi_release(e);
    g_test_failed_checks++;
  }
  return p;
}
#define OK(p) ok_line((p), __LINE__)

/* got and expected (both consumed) are structurally equal. */
static void expect_equal(void* got, void* expected, int line) {
  if (!got || !expected) {
    fprintf(stderr, "line %d: missing IR\n", line);
    g_test_failed_checks++;
  } else {
    TVMFFIAny a = tvm_ffi_any_obj(got), b = tvm_ffi_any_obj(expected);
    void *pa = NULL, *pb = NULL;
    int eq = tvm_ffi_structural_equal(&a, &b, false, &pa, &pb);
    if (eq != 1) {
      tvm_ffi_strbuf s = {0};
      if (pa) tvm_ffi_access_path_format(pa, &s);
      fprintf(stderr, "line %d: not structurally equal (%d) at %s\n", line, eq,
              tvm_ffi_strbuf_cstr(&s));
      tvm_ffi_strbuf_free(&s);
      tvm_ffi_error_clear();
      g_test_failed_checks++;
    }
    tvm_ffi_release(pa);
    tvm_ffi_release(pb);
  }
  tvm_ffi_release(got);
  tvm_ffi_release(expected);
}
#define EXPECT_EQUAL(got, expected) expect_equal((got), (expected), __LINE__)

/* obj (borrowed) prints as expected (no header). */
static void expect_text(const void* obj, const char* expected, int line) {
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  opts.print_header = false;
  TVMFFIAny a = tvm_ffi_any_obj(obj);
  void* s = obj ? tvm_script_print(&a, &opts) : NULL;
  if (!s) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "line %d: print failed: %s\n", line, e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
    g_test_failed_checks++;
  } else if (strcmp(tvm_ffi_str_cstr(s), expected) != 0) {
    fprintf(stderr, "line %d: got:\n%s\n--- expected:\n%s\n---\n", line, tvm_ffi_str_cstr(s),
            expected);
    g_test_failed_checks++;
  }
  tvm_ffi_release(s);
}
#define EXPECT_TEXT(obj, expected) expect_text((obj), (expected), __LINE__)

static void expect_well_formed(const void* obj, int line) {
  if (obj && tvm_tir_verify_well_formed(obj) != 0) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "line %d: not well formed: %s\n", line, e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
    g_test_failed_checks++;
  }
}
#define EXPECT_WELL_FORMED(obj) expect_well_formed((obj), __LINE__)

/* T.Buffer(shape, dtype) as a parameter `name` of the open function (returns the Buffer). */
static tvm_tir_buffer_obj* buffer_param(tvm_script_builder* b, const char* name, DLDataType dtype,
                                        void* shape) {
  tvm_script_buffer_args ba;
  tvm_script_buffer_args_init(&ba);
  ba.shape = shape;
  ba.dtype = dtype;
  tvm_tir_buffer_obj* buf = tvm_script_tir_buffer(&ba); /* named "buffer": arg renames it */
  tvm_tir_buffer_obj* out = buf ? tvm_script_tir_arg(b, name, buf) : NULL;
  tvm_ffi_release(buf);
  tvm_ffi_release(shape);
  return out;
}

/* for name in range(extent) (extent an int32 literal). */
static void* loop(tvm_script_builder* b, const char* name, int64_t extent) {
  void* e = tvm_tir_int(extent);
  void* v = tvm_script_tir_for_enter(b, name, TVM_TIR_FOR_SERIAL, NULL, e, NULL, NULL);
  tvm_ffi_release(e);
  return v;
}

/* Exit n frames. */
static void exit_n(tvm_script_builder* b, int n) {
  for (int i = 0; i < n; ++i) CHECK_OK(tvm_script_builder_exit(b));
}

/* ---- Functions ----------------------------------------------------------------------------- */
TEST(elementwise) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  CHECK_OK(tvm_script_tir_func_name(b, "add_one"));
  tvm_tir_buffer_obj* A =
      OK(buffer_param(b, "A", TVM_TIR_FLOAT32, tvm_tir_list_take(tvm_tir_int(128))));
  tvm_tir_buffer_obj* B =
      OK(buffer_param(b, "B", TVM_TIR_FLOAT32, tvm_tir_list_take(tvm_tir_int(128))));
  CHECK_EQ_INT(tvm_script_builder_depth(b), 1);
  CHECK(tvm_script_builder_frame_kind(b, 0) == TVM_SCRIPT_FRAME_PRIM_FUNC);
  tvm_tir_var_obj* i = OK(loop(b, "i", 128));
  void* value = tvm_tir_add_take(
      tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i)), tvm_tir_f32(2)), tvm_tir_f32(1));
  void* idx = tvm_tir_list_take(ref(i));
  CHECK_OK(tvm_script_tir_buffer_store(b, B, value, idx));
  tvm_ffi_release(value);
  tvm_ffi_release(idx);
  CHECK(tvm_script_builder_frame_kind(b, 0) == TVM_SCRIPT_FRAME_FOR);
  exit_n(b, 2);
  void* fn = OK(tvm_script_builder_result(b));
  tvm_script_builder_free(b);
  EXPECT_WELL_FORMED(fn);
  CHECK_STR_EQ(tvm_tir_func_global_symbol(fn), "add_one");
  EXPECT_TEXT(fn,
              "@T.prim_func\n"
              "def add_one(A: T.Buffer((128,), \"float32\"), B: T.Buffer((128,), \"float32\")):\n"
              "    for i in range(128):\n"
              "        B[i] = A[i] * T.float32(2.0) + T.float32(1.0)");

  tvm_tir_buffer_obj* A2 = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 128);
  tvm_tir_buffer_obj* B2 = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 128);
  tvm_tir_var_obj* i2 = tvm_tir_var("i", TVM_TIR_INT32);
  void* store = tvm_tir_store_take(
      ref(B2),
      tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_load_take(ref(A2), ref(i2)), tvm_tir_f32(2)),
                       tvm_tir_f32(1)),
      ref(i2));
  void* loop = tvm_tir_serial_take(i2, tvm_tir_int(0), tvm_tir_int(128), store);
  EXPECT_EQUAL(fn, tvm_tir_func_take("add_one", tvm_tir_list_take(A2, B2), loop));
  tvm_ffi_release(A);
  tvm_ffi_release(B);
  tvm_ffi_release(i);
}

/* The matmul of tir_testing.c, built the way the parser reads its TVMScript. */
static void* build_matmul(bool root, bool regions) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  CHECK_OK(tvm_script_tir_func_name(b, "matmul"));
  if (root) CHECK_OK(tvm_script_tir_func_root_block(b));
  tvm_tir_buffer_obj* A =
      buffer_param(b, "A", TVM_TIR_FLOAT32, tvm_tir_list_take(tvm_tir_int(128), tvm_tir_int(64)));
  tvm_tir_buffer_obj* B =
      buffer_param(b, "B", TVM_TIR_FLOAT32, tvm_tir_list_take(tvm_tir_int(64), tvm_tir_int(128)));
  tvm_tir_buffer_obj* C =
      buffer_param(b, "C", TVM_TIR_FLOAT32, tvm_tir_list_take(tvm_tir_int(128), tvm_tir_int(128)));
  void* i = loop(b, "i", 128);
  void* j = loop(b, "j", 128);
  void* k = loop(b, "k", 64);
  CHECK_OK(tvm_script_tir_block_enter(b, "update", false));
  const char* names[] = {"vi", "vj", "vk"};
  void* loops = tvm_tir_list_take(ref(i), ref(j), ref(k));
  void* vars = OK(tvm_script_tir_axis_remap(b, "SSR", loops, names));
  tvm_ffi_release(loops);
  void *vi = vars ? tvm_ffi_seq_obj_at(vars, 0) : NULL,
       *vj = vars ? tvm_ffi_seq_obj_at(vars, 1) : NULL,
       *vk = vars ? tvm_ffi_seq_obj_at(vars, 2) : NULL;
  void* reads =
      tvm_tir_list_take(tvm_tir_region_take(ref(A), tvm_tir_range_take(ref(vi), tvm_tir_int(1)),
                                            tvm_tir_range_take(ref(vk), tvm_tir_int(1))),
                        tvm_tir_region_take(ref(B), tvm_tir_range_take(ref(vk), tvm_tir_int(1)),
                                            tvm_tir_range_take(ref(vj), tvm_tir_int(1))));
  void* writes =
      tvm_tir_list_take(tvm_tir_region_take(ref(C), tvm_tir_range_take(ref(vi), tvm_tir_int(1)),
                                            tvm_tir_range_take(ref(vj), tvm_tir_int(1))));
  if (regions) {
    CHECK_OK(tvm_script_tir_reads(b, reads));
    CHECK_OK(tvm_script_tir_writes(b, writes));
  }
  CHECK_OK(tvm_script_tir_block_init_enter(b));
  void* idx = tvm_tir_list_take(ref(vi), ref(vj));
  /* A Python literal 0: the builder gives it the buffer's dtype. */
  void* zero = tvm_tir_int(0);
  CHECK_OK(tvm_script_tir_buffer_store(b, C, zero, idx));
  CHECK_OK(tvm_script_builder_exit(b));
  void* update = tvm_tir_add_take(tvm_tir_load_take(ref(C), ref(vi), ref(vj)),
                                  tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(vi), ref(vk)),
                                                   tvm_tir_load_take(ref(B), ref(vk), ref(vj))));
  CHECK_OK(tvm_script_tir_buffer_store(b, C, update, idx));
  exit_n(b, 5);
  void* fn = OK(tvm_script_builder_result(b));
  tvm_script_builder_free(b);
  void* objs[] = {A, B, C, i, j, k, vars, reads, writes, idx, zero, update};
  for (size_t n = 0; n < sizeof(objs) / sizeof(objs[0]); ++n) tvm_ffi_release(objs[n]);
  return fn;
}

/* f with its body wrapped in the implicit root block. */
static void* with_root(tvm_tir_prim_func_obj* f) {
  if (!f) return NULL;
  void* body = tvm_tir_block_take("root", NULL, NULL, NULL, NULL, ref(f->body));
  void* out =
      body ? tvm_tir_prim_func_new(f->params, body, f->ret_type, f->buffer_map, f->func.attrs)
           : NULL;
  tvm_ffi_release(body);
  tvm_ffi_release(f);
  return out;
}

TEST(matmul_blocks_remap_init) {
  void* fn = build_matmul(false, true);
  EXPECT_WELL_FORMED(fn);
  /* Blocks alone do not make a root block (the printer shows one as a comment). */
  EXPECT_TEXT(
      fn,
      "@T.prim_func\n"
      "def matmul(A: T.Buffer((128, 64), \"float32\"), B: T.Buffer((64, 128), \"float32\"), "
      "C: T.Buffer((128, 128), \"float32\")):\n"
      "    for i, j, k in T.grid(128, 128, 64):\n"
      "        with T.sblock(\"update\"):\n"
      "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
      "            T.reads(A[vi, vk], B[vk, vj])\n"
      "            T.writes(C[vi, vj])\n"
      "            with T.init():\n"
      "                C[vi, vj] = T.float32(0.0)\n"
      "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]");
  EXPECT_EQUAL(fn, tvm_tir_testing_make_matmul("", 128, 128, 64));
  /* With the root requested (the parser saw `# with T.sblock("root"):`). */
  fn = build_matmul(true, true);
  EXPECT_WELL_FORMED(fn);
  EXPECT_EQUAL(fn, with_root(tvm_tir_testing_make_matmul("", 128, 128, 64)));
  /* Without T.reads / T.writes: inferred in order of first access, C read by the update. */
  fn = build_matmul(false, false);
  EXPECT_TEXT(
      fn,
      "@T.prim_func\n"
      "def matmul(A: T.Buffer((128, 64), \"float32\"), B: T.Buffer((64, 128), \"float32\"), "
      "C: T.Buffer((128, 128), \"float32\")):\n"
      "    for i, j, k in T.grid(128, 128, 64):\n"
      "        with T.sblock(\"update\"):\n"
      "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
      "            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])\n"
      "            T.writes(C[vi, vj])\n"
      "            with T.init():\n"
      "                C[vi, vj] = T.float32(0.0)\n"
      "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]");
  tvm_ffi_release(fn);
}

TEST(root_alloc_buffer_and_axis) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  CHECK_OK(tvm_script_tir_func_name(b, "copy"));
  tvm_tir_buffer_obj* A =
      OK(buffer_param(b, "A", TVM_TIR_FLOAT32, tvm_tir_list_take(tvm_tir_int(16))));
  tvm_script_buffer_args ba;
  tvm_script_buffer_args_init(&ba);
  ba.name = "C";
  ba.shape = tvm_tir_list_take(tvm_tir_int(16));
  tvm_tir_buffer_obj* C = OK(tvm_script_tir_alloc_buffer(b, &ba));
  tvm_ffi_release(ba.shape);
  void* i = OK(loop(b, "i", 16));
  CHECK_OK(tvm_script_tir_block_enter(b, "b", false));
  void* dom = tvm_tir_int(16);
  void* vi = OK(tvm_script_tir_axis(b, "vi", TVM_TIR_ITER_DATA_PAR, dom, i));
  void* r =
      tvm_tir_list_take(tvm_tir_region_take(ref(A), tvm_tir_range_take(ref(vi), tvm_tir_int(1))));
  void* w =
      tvm_tir_list_take(tvm_tir_region_take(ref(C), tvm_tir_range_take(ref(vi), tvm_tir_int(1))));
  CHECK_OK(tvm_script_tir_reads(b, r));
  CHECK_OK(tvm_script_tir_writes(b, w));
  void* idx = tvm_tir_list_take(ref(vi));
  void* v = tvm_tir_load_take(ref(A), ref(vi));
  CHECK_OK(tvm_script_tir_buffer_store(b, C, v, idx));
  exit_n(b, 3);
  void* fn = OK(tvm_script_builder_result(b));
  tvm_script_builder_free(b);
  EXPECT_WELL_FORMED(fn);
  EXPECT_TEXT(fn,
              "@T.prim_func\n"
              "def copy(A: T.Buffer((16,), \"float32\")):\n"
              "    # with T.sblock(\"root\"):\n"
              "    C = T.sblock_alloc_buffer((16,), \"float32\")\n"
              "    for i in range(16):\n"
              "        with T.sblock(\"b\"):\n"
              "            vi = T.axis.spatial(16, i)\n"
              "            T.reads(A[vi])\n"
              "            T.writes(C[vi])\n"
              "            C[vi] = A[vi]");
  if (fn) {
    const tvm_tir_prim_func_obj* f = fn;
    CHECK(tvm_tir_kind_of(f->body) == TVM_TIR_KIND_SBlockRealize);
    const tvm_tir_sblock_obj* root = ((const tvm_tir_sblock_realize_obj*)f->body)->block;
    CHECK_STR_EQ(tvm_ffi_str_cstr(root->name_hint), "root");
    CHECK_EQ_INT(tvm_ffi_seq_size(root->alloc_buffers), 1);
    CHECK(tvm_ffi_seq_obj_at(root->alloc_buffers, 0) == (void*)C);
  }
  void* objs[] = {fn, A, C, i, dom, vi, r, w, idx, v};
  for (size_t n = 0; n < sizeof(objs) / sizeof(objs[0]); ++n) tvm_ffi_release(objs[n]);
}

/* T.alloc_buffer inside a loop with no block around it: a DeclBuffer without data for the rest
 * of the loop body (upstream's statement-level allocation); data= there is a ValueError. */
TEST(alloc_buffer_in_loop_is_statement_level) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  CHECK_OK(tvm_script_tir_func_name(b, "f"));
  tvm_tir_buffer_obj* A =
      OK(buffer_param(b, "A", TVM_TIR_FLOAT32, tvm_tir_list_take(tvm_tir_int(4))));
  void* i = OK(loop(b, "i", 4));
  tvm_script_buffer_args ba;
  tvm_script_buffer_args_init(&ba);
  ba.name = "t";
  ba.shape = tvm_tir_list_take(tvm_tir_int(1));
  ba.data = A->data;
  CHECK(tvm_script_tir_alloc_buffer(b, &ba) == NULL);
  CHECK_RAISED("ValueError", "takes no data=");
  ba.data = NULL;
  tvm_tir_buffer_obj* t = OK(tvm_script_tir_alloc_buffer(b, &ba));
  tvm_ffi_release(ba.shape);
  CHECK(tvm_script_builder_frame_kind(b, 0) == TVM_SCRIPT_FRAME_DECL_BUFFER);
  void* idx0 = tvm_tir_list_take(tvm_tir_int(0));
  void* v = tvm_tir_load_take(ref(A), ref(i));
  CHECK_OK(tvm_script_tir_buffer_store(b, t, v, idx0));
  void* idx = tvm_tir_list_take(ref(i));
  void* v2 = tvm_tir_load_take(ref(t), tvm_tir_int(0));
  CHECK_OK(tvm_script_tir_buffer_store(b, A, v2, idx));
  exit_n(b, 2);
  void* fn = OK(tvm_script_builder_result(b));
  tvm_script_builder_free(b);
  EXPECT_WELL_FORMED(fn);
  EXPECT_TEXT(fn,
              "@T.prim_func\n"
              "def f(A: T.Buffer((4,), \"float32\")):\n"
              "    for i in range(4):\n"
              "        t = T.decl_buffer((1,), \"float32\")\n"
              "        t[0] = A[i]\n"
              "        A[i] = t[0]");
  void* objs[] = {fn, A, i, t, idx0, v, idx, v2};
  for (size_t n = 0; n < sizeof(objs) / sizeof(objs[0]); ++n) tvm_ffi_release(objs[n]);
}

TEST(match_buffer_on_handle_and_private) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_tir_prim_func_enter(b, true));
  CHECK_OK(tvm_script_tir_func_name(b, "fill"));
  tvm_tir_var_obj* a = tvm_tir_var("a", TVM_TIR_HANDLE);
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_ffi_release(OK(tvm_script_tir_arg(b, "a", a)));
  tvm_ffi_release(OK(tvm_script_tir_arg(b, "n", n)));
  tvm_script_buffer_args ba;
  tvm_script_buffer_args_init(&ba);
  ba.name = "A";
  ba.shape = tvm_tir_list_take(ref(n));
  tvm_tir_buffer_obj* A = OK(tvm_script_tir_match_buffer(b, a, &ba));
  /* A second match of the same parameter is an error. */
  CHECK(tvm_script_tir_match_buffer(b, a, &ba) == NULL);
  CHECK_RAISED("ValueError", "already matched");
  /* So is a handle that is not a parameter. */
  tvm_tir_var_obj* other = tvm_tir_var("h", TVM_TIR_HANDLE);
  CHECK(tvm_script_tir_match_buffer(b, other, &ba) == NULL);
  CHECK_RAISED("ValueError", "`h` is not a parameter");
  tvm_ffi_release(other);
  tvm_ffi_release(ba.shape);
  void* i = OK(tvm_script_tir_for_enter(b, "i", TVM_TIR_FOR_SERIAL, NULL, n, NULL, NULL));
  void* idx = tvm_tir_list_take(ref(i));
  void* zero = tvm_tir_int(0);
  CHECK_OK(tvm_script_tir_buffer_store(b, A, zero, idx));
  exit_n(b, 2);
  void* fn = OK(tvm_script_builder_result(b));
  tvm_script_builder_free(b);
  EXPECT_WELL_FORMED(fn);
  CHECK(fn && tvm_tir_func_global_symbol(fn) == NULL);
  /* Printed alone, a function without a global_symbol is named "main". */
  EXPECT_TEXT(fn,
              "@T.prim_func(private=True)\n"
              "def main(a: T.handle, n: T.int32):\n"
              "    A = T.match_buffer(a, (n,), \"float32\")\n"
              "    for i in range(n):\n"
              "        A[i] = T.float32(0.0)");
  void* objs[] = {fn, a, n, A, i, idx, zero};
  for (size_t k = 0; k < sizeof(objs) / sizeof(objs[0]); ++k) tvm_ffi_release(objs[k]);
}

/* if/else (nested), while, let and assert (rest of body), allocate + decl_buffer, and a thread
 * launch, against the same statements built by hand. */
TEST(control_flow_and_scoped_statements) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  CHECK_OK(tvm_script_tir_func_name(b, "ctrl"));
  tvm_tir_buffer_obj* A =
      OK(buffer_param(b, "A", TVM_TIR_INT32, tvm_tir_list_take(tvm_tir_int(16))));
  void* five = tvm_tir_int(5);
  tvm_tir_var_obj* x = OK(tvm_script_tir_let_enter(b, "x", five, NULL, true));
  void* cond = tvm_tir_gt_take(ref(x), tvm_tir_int(0));
  void* msg = tvm_tir_str("x must be positive");
  CHECK_OK(tvm_script_tir_assert_enter(b, cond, msg, true));
  CHECK_EQ_INT(tvm_script_builder_depth(b), 3);
  /* if x > 2: (if x > 3: A[0] = 1 else: A[0] = 2) else: A[1] = 3 */
  void* c2 = tvm_tir_gt_take(ref(x), tvm_tir_int(2));
  void* c3 = tvm_tir_gt_take(ref(x), tvm_tir_int(3));
  void *i0 = tvm_tir_list_take(tvm_tir_int(0)), *i1 = tvm_tir_list_take(tvm_tir_int(1));
  void *one = tvm_tir_int(1), *two = tvm_tir_int(2), *three = tvm_tir_int(3);
  CHECK_OK(tvm_script_tir_if_enter(b, c2));
  CHECK_OK(tvm_script_tir_then_enter(b));
  CHECK_OK(tvm_script_tir_if_enter(b, c3));
  CHECK_OK(tvm_script_tir_then_enter(b));
  CHECK_OK(tvm_script_tir_buffer_store(b, A, one, i0));
  CHECK_OK(tvm_script_builder_exit(b));
  CHECK_OK(tvm_script_tir_else_enter(b));
  CHECK_OK(tvm_script_tir_buffer_store(b, A, two, i0));
  exit_n(b, 3); /* else, inner if, then */
  CHECK_OK(tvm_script_tir_else_enter(b));
  CHECK_OK(tvm_script_tir_buffer_store(b, A, three, i1));
  exit_n(b, 2);
  /* while A[0] < 10: A[0] = A[0] + 1 */
  void* wc = tvm_tir_lt_take(tvm_tir_load_take(ref(A), tvm_tir_int(0)), tvm_tir_int(10));
  void* inc = tvm_tir_add_take(tvm_tir_load_take(ref(A), tvm_tir_int(0)), tvm_tir_int(1));
  CHECK_OK(tvm_script_tir_while_enter(b, wc));
  CHECK_OK(tvm_script_tir_buffer_store(b, A, inc, i0));
  CHECK_OK(tvm_script_builder_exit(b));
  /* buf = T.allocate([16], "float32", "global"); D = T.decl_buffer((16,), data=buf);
   * tx = T.launch_thread("threadIdx.x", 32); D[tx % 16] = 0 */
  void* ext = tvm_tir_list_take(tvm_tir_int(16));
  tvm_tir_var_obj* buf =
      OK(tvm_script_tir_allocate_enter(b, "buf", ext, TVM_TIR_FLOAT32, "global", NULL, NULL, true));
  tvm_script_buffer_args ba;
  tvm_script_buffer_args_init(&ba);
  ba.name = "D";
  ba.shape = ext;
  ba.data = buf;
  tvm_tir_buffer_obj* D = OK(tvm_script_tir_decl_buffer_enter(b, &ba, true));
  TVMFFIAny tag = tvm_ffi_any_raw_str("threadIdx.x");
  void* n32 = tvm_tir_int(32);
  tvm_tir_var_obj* tx = OK(tvm_script_tir_launch_thread_enter(b, "tx", &tag, n32, true));
  CHECK(tvm_script_builder_frame_kind(b, 0) == TVM_SCRIPT_FRAME_LAUNCH_THREAD);
  void* didx = tvm_tir_list_take(tvm_tir_floormod_take(ref(tx), tvm_tir_int(16)));
  void* zero = tvm_tir_f32(0);
  CHECK_OK(tvm_script_tir_buffer_store(b, D, zero, didx));
  CHECK_EQ_INT(tvm_script_builder_depth(b), 6);
  CHECK_OK(tvm_script_builder_exit(b)); /* closes the five rest-of-body frames, then the func */
  CHECK_EQ_INT(tvm_script_builder_depth(b), 0);
  void* fn = OK(tvm_script_builder_result(b));
  tvm_script_builder_free(b);
  EXPECT_WELL_FORMED(fn);

  /* The same by hand. */
  tvm_tir_buffer_obj* A2 = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 16);
  tvm_tir_var_obj* x2 = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* buf2 = tvm_tir_ptr_var("buf", TVM_TIR_FLOAT32, NULL);
  tvm_tir_var_obj* tx2 = tvm_tir_var("tx", TVM_TIR_INT32);
  tvm_tir_buffer_fields bf = {.data = buf2, .dtype = TVM_TIR_FLOAT32, .name = "D"};
  bf.shape = tvm_tir_list_take(tvm_tir_int(16));
  tvm_tir_buffer_obj* D2 = tvm_tir_buffer_new(&bf);
  tvm_ffi_release(bf.shape);
  tvm_tir_range_obj* dom = tvm_tir_range_take(tvm_tir_int(0), tvm_tir_int(32));
  tvm_tir_iter_var_obj* iv =
      tvm_tir_iter_var_new(dom, tx2, TVM_TIR_ITER_THREAD_INDEX, "threadIdx.x");
  tvm_ffi_release(dom);
  void* launch =
      tvm_tir_attr_take(iv, "thread_extent", tvm_tir_int(32),
                        tvm_tir_store_take(ref(D2), tvm_tir_f32(0),
                                           tvm_tir_floormod_take(ref(tx2), tvm_tir_int(16))));
  void* alloc = tvm_tir_allocate_takev(ref(buf2), TVM_TIR_FLOAT32, 1, (void*[]){tvm_tir_int(16)},
                                       tvm_tir_decl_buffer_take(ref(D2), launch));
  void* ifs =
      tvm_tir_if_take(tvm_tir_gt_take(ref(x2), tvm_tir_int(2)),
                      tvm_tir_if_take(tvm_tir_gt_take(ref(x2), tvm_tir_int(3)),
                                      tvm_tir_store_take(ref(A2), tvm_tir_int(1), tvm_tir_int(0)),
                                      tvm_tir_store_take(ref(A2), tvm_tir_int(2), tvm_tir_int(0))),
                      tvm_tir_store_take(ref(A2), tvm_tir_int(3), tvm_tir_int(1)));
  void* loop = tvm_tir_while_take(
      tvm_tir_lt_take(tvm_tir_load_take(ref(A2), tvm_tir_int(0)), tvm_tir_int(10)),
      tvm_tir_store_take(
          ref(A2), tvm_tir_add_take(tvm_tir_load_take(ref(A2), tvm_tir_int(0)), tvm_tir_int(1)),
          tvm_tir_int(0)));
  void* body = tvm_tir_let_stmt_take(
      ref(x2), tvm_tir_int(5),
      tvm_tir_assert_take(tvm_tir_gt_take(ref(x2), tvm_tir_int(0)), "x must be positive",
                          tvm_tir_seq_take(ifs, loop, alloc)));
  EXPECT_EQUAL(fn, tvm_tir_func_take("ctrl", tvm_tir_list_take(A2), body));
  void* objs[] = {A,   five, x,   cond, msg, c2, c3,   i0,   i1, one,  two, three, wc,
                  inc, ext,  buf, D,    n32, tx, didx, zero, x2, buf2, tx2, D2};
  for (size_t k = 0; k < sizeof(objs) / sizeof(objs[0]); ++k) tvm_ffi_release(objs[k]);
}

/* A module whose first function calls the second before it is defined. */
TEST(module_forward_reference) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_ir_module_enter(b));
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  CHECK_OK(tvm_script_tir_func_name(b, "caller"));
  tvm_tir_global_var_obj* gv = OK(tvm_script_ir_module_global_var(b, "callee"));
  void* call = tvm_tir_call_global_takev(TVM_TIR_INT32, ref(gv), 0, NULL);
  CHECK_OK(tvm_script_tir_evaluate(b, call));
  CHECK_OK(tvm_script_builder_exit(b));
  CHECK_OK(tvm_script_tir_prim_func_enter(b, true));
  CHECK_OK(tvm_script_tir_func_name(b, "callee"));
  void* z = tvm_tir_int(0);
  CHECK_OK(tvm_script_tir_evaluate(b, z));
  CHECK_OK(tvm_script_builder_exit(b));
  /* The module's GlobalVar is the one handed out before the definition. */
  tvm_tir_global_var_obj* again = OK(tvm_script_ir_module_global_var(b, "callee"));
  CHECK(again == gv);
  CHECK_OK(tvm_script_builder_exit(b));
  void* mod = OK(tvm_script_builder_result(b));
  tvm_script_builder_free(b);
  CHECK(tvm_tir_kind_of(mod) == TVM_TIR_KIND_IRModule);
  EXPECT_WELL_FORMED(mod);
  if (mod) {
    tvm_tir_global_var_obj* in_mod = tvm_tir_ir_module_get_global_var(mod, "callee");
    CHECK(in_mod == gv);
    tvm_ffi_release(in_mod);
    tvm_tir_prim_func_obj* caller = tvm_tir_ir_module_lookup(mod, "caller");
    CHECK(caller && tvm_tir_func_global_symbol(caller) &&
          strcmp(tvm_tir_func_global_symbol(caller), "caller") == 0);
    const tvm_tir_evaluate_obj* ev = caller ? (const void*)caller->body : NULL;
    CHECK(ev && ((const tvm_tir_call_obj*)ev->value)->op == (void*)gv);
    tvm_ffi_release(caller);
    tvm_tir_prim_func_obj* callee = tvm_tir_ir_module_lookup(mod, "callee");
    CHECK(callee && tvm_tir_func_global_symbol(callee) == NULL);
    tvm_ffi_release(callee);
  }
  void* objs[] = {mod, gv, call, z, again};
  for (size_t k = 0; k < sizeof(objs) / sizeof(objs[0]); ++k) tvm_ffi_release(objs[k]);
}

TEST(module_undefined_reference) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_ir_module_enter(b));
  tvm_ffi_release(OK(tvm_script_ir_module_global_var(b, "missing")));
  CHECK(tvm_script_builder_exit(b) != 0);
  CHECK_RAISED("ValueError", "`missing`");
  tvm_script_builder_free(b);
  /* Outside a module there is no GlobalVar to hand out. */
  b = tvm_script_builder_new();
  CHECK(tvm_script_ir_module_global_var(b, "f") == NULL);
  CHECK_RAISED("ValueError", "I.ir_module");
  tvm_script_builder_free(b);
}

/* A module defining one name twice, right after each other and after a forward reference:
 * the second definition is an error (the first GlobalVar keeps the first function). */
TEST(module_duplicate_function) {
  for (int forward = 0; forward < 2; ++forward) {
    tvm_script_builder* b = tvm_script_builder_new();
    CHECK_OK(tvm_script_ir_module_enter(b));
    if (forward) tvm_ffi_release(OK(tvm_script_ir_module_global_var(b, "a_long_function_name")));
    for (int k = 0; k < 2; ++k) {
      CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
      CHECK_OK(tvm_script_tir_func_name(b, "a_long_function_name"));
      void* z = tvm_tir_int(k);
      CHECK_OK(tvm_script_tir_evaluate(b, z));
      tvm_ffi_release(z);
      if (k == 0) {
        CHECK_OK(tvm_script_builder_exit(b));
      } else {
        CHECK(tvm_script_builder_exit(b) != 0);
        CHECK_RAISED("ValueError", "the module defines `a_long_function_name` twice");
      }
    }
    tvm_script_builder_free(b);
  }
}

/* func_attr, int64 loops, loop kinds, thread binding, and a fragment without a function. */
TEST(loops_and_attrs) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  CHECK_OK(tvm_script_tir_func_name(b, "loops"));
  tvm_tir_buffer_obj* A =
      OK(buffer_param(b, "A", TVM_TIR_FLOAT32, tvm_tir_list_take(tvm_tir_i64(64))));
  TVMFFIAny k[2] = {tvm_ffi_string("global_symbol"), tvm_ffi_string("tir.noalias")};
  TVMFFIAny v[2] = {tvm_ffi_string("loops_impl"), tvm_ffi_any_bool(true)};
  void* attrs = tvm_ffi_map_new(k, v, 2);
  CHECK_OK(tvm_script_tir_func_attrs(b, attrs));
  for (int n = 0; n < 2; ++n) tvm_ffi_any_release(&k[n]), tvm_ffi_any_release(&v[n]);
  tvm_ffi_release(attrs);
  void* e64 = tvm_tir_i64(64);
  void* e4 = tvm_tir_int(4);
  tvm_tir_var_obj* i =
      OK(tvm_script_tir_for_enter(b, "i", TVM_TIR_FOR_PARALLEL, NULL, e64, NULL, NULL));
  CHECK(i && tvm_ffi_dtype_equal(tvm_tir_expr_dtype(i), TVM_TIR_INT64));
  void* ii = tvm_tir_list_take(ref(i));
  void* ai = tvm_tir_load_take(ref(A), ref(i));
  CHECK_OK(tvm_script_tir_buffer_store(b, A, ai, ii));
  tvm_ffi_release(ii);
  tvm_ffi_release(ai);
  CHECK_OK(tvm_script_builder_exit(b));
  /* An int32 literal start with an int64 extent: the loop var is int64. */
  void* two = tvm_tir_int(2);
  tvm_tir_var_obj* j = OK(
      tvm_script_tir_for_enter(b, "j", TVM_TIR_FOR_THREAD_BINDING, two, e64, "threadIdx.x", NULL));
  CHECK(j && tvm_ffi_dtype_equal(tvm_tir_expr_dtype(j), TVM_TIR_INT64));
  tvm_tir_var_obj* u =
      OK(tvm_script_tir_for_enter(b, "u", TVM_TIR_FOR_UNROLLED, NULL, e4, NULL, NULL));
  void* idx = tvm_tir_list_take(tvm_tir_add_take(ref(j), tvm_tir_cast_take(TVM_TIR_INT64, ref(u))));
  void* one = tvm_tir_f32(1);
  CHECK_OK(tvm_script_tir_buffer_store(b, A, one, idx));
  exit_n(b, 3);
  void* fn = OK(tvm_script_builder_result(b));
  tvm_script_builder_free(b);
  EXPECT_WELL_FORMED(fn);
  /* Printed alone, a function is named by its global_symbol. */
  EXPECT_TEXT(fn,
              "@T.prim_func\n"
              "def loops_impl(A: T.Buffer((T.int64(64),), \"float32\")):\n"
              "    T.func_attr({\"tir.noalias\": True})\n"
              "    for i in T.parallel(T.int64(64)):\n"
              "        A[i] = A[i]\n"
              "    for j in T.thread_binding(T.int64(2), T.int64(66), thread=\"threadIdx.x\"):\n"
              "        for u in T.unroll(4):\n"
              "            A[j + T.Cast(\"int64\", u)] = T.float32(1.0)");
  void* objs[] = {fn, A, e64, e4, i, two, j, u, idx, one};
  for (size_t n = 0; n < sizeof(objs) / sizeof(objs[0]); ++n) tvm_ffi_release(objs[n]);
}

TEST(fragment_and_no_realize_block) {
  tvm_script_builder* b = tvm_script_builder_new();
  /* Top-level statements: the result is their SeqStmt; a top-level let closes with it. */
  void* five = tvm_tir_int(5);
  tvm_tir_var_obj* x = OK(tvm_script_tir_let_enter(b, "x", five, NULL, true));
  CHECK_OK(tvm_script_tir_block_enter(b, "opaque", true));
  void* dom = tvm_tir_int(8);
  tvm_tir_var_obj* vi = OK(tvm_script_tir_axis(b, "vi", TVM_TIR_ITER_OPAQUE, dom, NULL));
  CHECK_OK(tvm_script_tir_evaluate(b, x));
  CHECK_OK(tvm_script_builder_exit(b));
  void* stmt = OK(tvm_script_builder_result(b));
  tvm_script_builder_free(b);
  CHECK(tvm_tir_kind_of(stmt) == TVM_TIR_KIND_LetStmt);
  if (stmt) {
    const tvm_tir_sblock_obj* blk = (const void*)((const tvm_tir_let_stmt_obj*)stmt)->body;
    CHECK(tvm_tir_kind_of(blk) == TVM_TIR_KIND_SBlock);
    CHECK_EQ_INT(tvm_ffi_seq_size(blk->iter_vars), 1);
  }
  void* objs[] = {five, x, dom, vi, stmt};
  for (size_t n = 0; n < sizeof(objs) / sizeof(objs[0]); ++n) tvm_ffi_release(objs[n]);
}

/* A block without T.reads / T.writes gets them from its body: point accesses of the block's
 * axes, inner loops relaxed over their ranges, buffers it allocates left out, and two accesses
 * to A joined (simplified under vio in [0, 4)). */
TEST(inferred_regions) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  CHECK_OK(tvm_script_tir_func_name(b, "tiles"));
  tvm_tir_buffer_obj* A =
      OK(buffer_param(b, "A", TVM_TIR_FLOAT32, tvm_tir_list_take(tvm_tir_int(16))));
  tvm_tir_buffer_obj* B =
      OK(buffer_param(b, "B", TVM_TIR_FLOAT32, tvm_tir_list_take(tvm_tir_int(16))));
  void* io = loop(b, "io", 4);
  CHECK_OK(tvm_script_tir_block_enter(b, "tile", false));
  void* dom = tvm_tir_int(4);
  void* vio = OK(tvm_script_tir_axis(b, "vio", TVM_TIR_ITER_DATA_PAR, dom, io));
  tvm_script_buffer_args ba;
  tvm_script_buffer_args_init(&ba);
  ba.name = "T_loc";
  ba.shape = tvm_tir_list_take(tvm_tir_int(4));
  tvm_tir_buffer_obj* L = OK(tvm_script_tir_alloc_buffer(b, &ba));
  tvm_ffi_release(ba.shape);
  void* i = loop(b, "i", 4);
  /* T_loc[i] = A[vio * 4 + i] + A[i % 2]; B[vio * 4 + i] = T_loc[i] */
  void* idx_l = tvm_tir_list_take(ref(i));
  void* v1 = tvm_tir_add_take(
      tvm_tir_load_take(ref(A),
                        tvm_tir_add_take(tvm_tir_mul_take(ref(vio), tvm_tir_int(4)), ref(i))),
      tvm_tir_load_take(ref(A), tvm_tir_floormod_take(ref(i), tvm_tir_int(2))));
  CHECK_OK(tvm_script_tir_buffer_store(b, L, v1, idx_l));
  void* idx_b =
      tvm_tir_list_take(tvm_tir_add_take(tvm_tir_mul_take(ref(vio), tvm_tir_int(4)), ref(i)));
  void* v2 = tvm_tir_load_take(ref(L), ref(i));
  CHECK_OK(tvm_script_tir_buffer_store(b, B, v2, idx_b));
  exit_n(b, 4);
  void* fn = OK(tvm_script_builder_result(b));
  tvm_script_builder_free(b);
  EXPECT_WELL_FORMED(fn);
  EXPECT_TEXT(fn,
              "@T.prim_func\n"
              "def tiles(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
              "    for io in range(4):\n"
              "        with T.sblock(\"tile\"):\n"
              "            vio = T.axis.spatial(4, io)\n"
              "            T.reads(A[0:vio * 4 + 4])\n"
              "            T.writes(B[vio * 4:vio * 4 + 4])\n"
              "            T_loc = T.sblock_alloc_buffer((4,), \"float32\")\n"
              "            for i in range(4):\n"
              "                T_loc[i] = A[vio * 4 + i] + A[i % 2]\n"
              "                B[vio * 4 + i] = T_loc[i]");
  void* objs[] = {fn, A, B, io, dom, vio, L, i, idx_l, v1, idx_b, v2};
  for (size_t n = 0; n < sizeof(objs) / sizeof(objs[0]); ++n) tvm_ffi_release(objs[n]);
}

/* Inferred regions through a nested block and a matched region: accesses of the match buffer
 * count as accesses of its source, nested axes relax over their domains. */
TEST(inferred_regions_nested) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  CHECK_OK(tvm_script_tir_func_name(b, "nest"));
  tvm_tir_buffer_obj* A =
      OK(buffer_param(b, "A", TVM_TIR_FLOAT32, tvm_tir_list_take(tvm_tir_int(16))));
  tvm_tir_buffer_obj* B =
      OK(buffer_param(b, "B", TVM_TIR_FLOAT32, tvm_tir_list_take(tvm_tir_int(16))));
  void* io = loop(b, "io", 4);
  CHECK_OK(tvm_script_tir_block_enter(b, "outer", false));
  void* four = tvm_tir_int(4);
  void* vo = OK(tvm_script_tir_axis(b, "vo", TVM_TIR_ITER_DATA_PAR, four, io));
  void* jo = loop(b, "jo", 2);
  CHECK_OK(tvm_script_tir_block_enter(b, "inner", false));
  void* two = tvm_tir_int(2);
  void* vj = OK(tvm_script_tir_axis(b, "vj", TVM_TIR_ITER_DATA_PAR, two, jo));
  /* As = T.match_buffer(A[vo * 4 + vj * 2:vo * 4 + vj * 2 + 2], (2,)) */
  void* src = tvm_tir_region_take(
      ref(A), tvm_tir_range_take(tvm_tir_add_take(tvm_tir_mul_take(ref(vo), tvm_tir_int(4)),
                                                  tvm_tir_mul_take(ref(vj), tvm_tir_int(2))),
                                 tvm_tir_int(2)));
  tvm_script_buffer_args ba;
  tvm_script_buffer_args_init(&ba);
  ba.name = "As";
  ba.shape = tvm_tir_list_take(tvm_tir_int(2));
  tvm_tir_buffer_obj* As = OK(tvm_script_tir_match_buffer(b, src, &ba));
  tvm_ffi_release(ba.shape);
  void* i = loop(b, "i", 2);
  void* idx = tvm_tir_list_take(
      tvm_tir_add_take(tvm_tir_add_take(tvm_tir_mul_take(ref(vo), tvm_tir_int(4)),
                                        tvm_tir_mul_take(ref(vj), tvm_tir_int(2))),
                       ref(i)));
  void* v = tvm_tir_load_take(ref(As), ref(i));
  CHECK_OK(tvm_script_tir_buffer_store(b, B, v, idx));
  exit_n(b, 6);
  void* fn = OK(tvm_script_builder_result(b));
  tvm_script_builder_free(b);
  EXPECT_WELL_FORMED(fn);
  EXPECT_TEXT(fn,
              "@T.prim_func\n"
              "def nest(A: T.Buffer((16,), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"
              "    for io in range(4):\n"
              "        with T.sblock(\"outer\"):\n"
              "            vo = T.axis.spatial(4, io)\n"
              "            T.reads(A[vo * 4:vo * 4 + 4])\n"
              "            T.writes(B[vo * 4:vo * 4 + 4])\n"
              "            for jo in range(2):\n"
              "                with T.sblock(\"inner\"):\n"
              "                    vj = T.axis.spatial(2, jo)\n"
              "                    T.reads(A[vo * 4 + vj * 2:vo * 4 + vj * 2 + 2])\n"
              "                    T.writes(B[vo * 4 + vj * 2:vo * 4 + vj * 2 + 2])\n"
              "                    As = T.match_buffer(A[vo * 4 + vj * 2:vo * 4 + vj * 2 + 2], "
              "(2,), \"float32\")\n"
              "                    for i in range(2):\n"
              "                        B[vo * 4 + vj * 2 + i] = As[i]");
  void* objs[] = {fn, A, B, io, four, vo, jo, two, vj, src, As, i, idx, v};
  for (size_t n = 0; n < sizeof(objs) / sizeof(objs[0]); ++n) tvm_ffi_release(objs[n]);
}

/* ---- Bad uses ------------------------------------------------------------------------------ */
TEST(wrong_frame_errors) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK(tvm_script_builder_exit(b) != 0);
  CHECK_RAISED("ValueError", "no frame is open");
  CHECK(tvm_script_builder_result(b) == NULL);
  CHECK_RAISED("ValueError", "built nothing");
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  void* empty = tvm_tir_list_take(tvm_tir_int(0));
  tvm_ffi_release(empty);
  void* regions = tvm_ffi_array_new(NULL, 0);
  CHECK(tvm_script_tir_reads(b, regions) != 0);
  CHECK_RAISED("ValueError", "T.reads is only valid inside a T.sblock");
  void* t = tvm_tir_bool(true);
  CHECK(tvm_script_tir_where(b, t) != 0);
  CHECK_RAISED("ValueError", "T.where is only valid inside a T.sblock");
  CHECK(tvm_script_tir_block_init_enter(b) != 0);
  CHECK_RAISED("ValueError", "T.init");
  CHECK(tvm_script_tir_then_enter(b) != 0);
  CHECK_RAISED("ValueError", "T.Then");
  CHECK_OK(tvm_script_tir_block_enter(b, "blk", false));
  CHECK_OK(tvm_script_tir_reads(b, regions));
  CHECK(tvm_script_tir_reads(b, regions) != 0);
  CHECK_RAISED("ValueError", "T.reads is given twice");
  CHECK_OK(tvm_script_tir_where(b, t));
  CHECK(tvm_script_tir_where(b, t) != 0);
  CHECK_RAISED("ValueError", "T.where is given twice");
  /* remap of a variable no enclosing loop binds. */
  void* free_var = tvm_tir_var("q", TVM_TIR_INT32);
  void* bindings = tvm_tir_list_take(ref(free_var));
  CHECK(tvm_script_tir_axis_remap(b, "S", bindings, NULL) == NULL);
  CHECK_RAISED("ValueError", "not the variable of an enclosing loop");
  CHECK(tvm_script_tir_axis_remap(b, "SS", bindings, NULL) == NULL);
  CHECK_RAISED("ValueError", "2 kinds");
  /* Result with frames open; free with frames open leaks nothing. */
  CHECK(tvm_script_builder_result(b) == NULL);
  CHECK_RAISED("ValueError", "2 open frames");
  tvm_script_builder_free(b);
  void* objs[] = {regions, t, free_var, bindings};
  for (size_t n = 0; n < sizeof(objs) / sizeof(objs[0]); ++n) tvm_ffi_release(objs[n]);
}

TEST(constructor_type_errors) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  tvm_tir_buffer_obj* A =
      OK(buffer_param(b, "A", TVM_TIR_FLOAT32, tvm_tir_list_take(tvm_tir_int(4))));
  /* An int32 variable stored into a float32 buffer is cast to float32, as upstream's builder
   * does; a value of other lanes (float32x4 at one index): the BufferStore constructor's
   * TypeError. */
  void* n = tvm_tir_var("n", TVM_TIR_INT32);
  void* idx = tvm_tir_list_take(tvm_tir_int(0));
  CHECK_OK(tvm_script_tir_buffer_store(b, A, n, idx));
  void* v4 = tvm_tir_broadcast_take(tvm_tir_f32(1), 4);
  CHECK(tvm_script_tir_buffer_store(b, A, v4, idx) != 0);
  CHECK_RAISED("TypeError", "");
  tvm_ffi_release(v4);
  /* A float condition: the IfThenElse constructor's TypeError, raised when the if is entered
   * (the builder checks each scoped statement's rules around a placeholder body). */
  void* f = tvm_tir_f32(1);
  CHECK(tvm_script_tir_if_enter(b, f) != 0);
  CHECK_RAISED("TypeError", "S-IF");
  CHECK(tvm_script_tir_while_enter(b, f) != 0);
  CHECK_RAISED("TypeError", "S-WHILE");
  CHECK(tvm_script_tir_assert_enter(b, f, f, true) != 0);
  CHECK_RAISED("TypeError", "");
  /* A let whose annotation disagrees with its value. */
  void* i64 = tvm_tir_prim_type_new(TVM_TIR_INT64);
  CHECK(tvm_script_tir_let_enter(b, "x", n, i64, true) == NULL);
  CHECK_RAISED("TypeError", "");
  tvm_ffi_release(i64);
  CHECK_EQ_INT(tvm_script_builder_depth(b), 1);
  /* A handle of a non-handle parameter cannot be matched. */
  tvm_ffi_release(OK(tvm_script_tir_arg(b, "n", n)));
  tvm_script_buffer_args mb;
  tvm_script_buffer_args_init(&mb);
  mb.shape = idx;
  CHECK(tvm_script_tir_match_buffer(b, n, &mb) == NULL);
  CHECK_RAISED("TypeError", "not a handle");
  /* An if without a then branch. */
  void* t = tvm_tir_bool(true);
  CHECK_OK(tvm_script_tir_if_enter(b, t));
  CHECK(tvm_script_tir_evaluate(b, n) != 0);
  CHECK_RAISED("ValueError", "T.If");
  CHECK(tvm_script_builder_exit(b) != 0);
  CHECK_RAISED("ValueError", "no then branch");
  /* Not a statement / not an expression. */
  CHECK(tvm_script_tir_add_stmt(b, n) != 0);
  CHECK_RAISED("TypeError", "statement");
  CHECK(tvm_script_tir_evaluate(b, A) != 0);
  CHECK_RAISED("TypeError", "PrimExpr");
  /* A buffer without a shape, and a bad buffer_type. */
  tvm_script_buffer_args ba;
  tvm_script_buffer_args_init(&ba);
  CHECK(tvm_script_tir_buffer(&ba) == NULL);
  CHECK_RAISED("TypeError", "shape");
  ba.shape = idx;
  ba.buffer_type = "weird";
  CHECK(tvm_script_tir_buffer(&ba) == NULL);
  CHECK_RAISED("ValueError", "buffer_type");
  tvm_script_builder_free(b);
  void* objs[] = {A, n, idx, f, t};
  for (size_t k = 0; k < sizeof(objs) / sizeof(objs[0]); ++k) tvm_ffi_release(objs[k]);
}

int main(void) {
  RUN(elementwise);
  RUN(matmul_blocks_remap_init);
  RUN(root_alloc_buffer_and_axis);
  RUN(alloc_buffer_in_loop_is_statement_level);
  RUN(match_buffer_on_handle_and_private);
  RUN(control_flow_and_scoped_statements);
  RUN(module_forward_reference);
  RUN(module_undefined_reference);
  RUN(module_duplicate_function);
  RUN(loops_and_attrs);
  RUN(fragment_and_no_realize_block);
  RUN(inferred_regions);
  RUN(inferred_regions_nested);
  RUN(wrong_frame_errors);
  RUN(constructor_type_errors);
  return test_summary();
}

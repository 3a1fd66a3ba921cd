/*
 * test_codegen_script.c: TVMScript programs of tests/corpus/tir (what users write) parsed,
 * lowered, compiled with the JIT and run against the reference interpreter on the program as
 * parsed (the whole module, so that calls between its PrimFuncs are interpreted too): calls
 * between PrimFuncs of one module, buffers declared over other buffers' data, strided and
 * offset allocations, T.assume and the profiling intrinsics.
 */
#include <tvm/script/parser.h>
#include <tvm/tir/schedule.h>

#include "codegen_testing.h"
#include "script_testing.h"

#ifndef TVM_CORPUS_DIR
#error "TVM_CORPUS_DIR must name tests/corpus"
#endif

/* The PrimFunc `name` of ir (a module or a PrimFunc), a new reference. */
static void* func_of(const void* ir, const char* name) {
  if (tvm_tir_kind_of(ir) == TVM_TIR_KIND_PrimFunc) {
    tvm_ffi_retain((void*)ir);
    return (void*)ir;
  }
  return tvm_tir_ir_module_lookup(ir, name);
}

/* Parse file, lower and build it, and run function `name` compiled and interpreted on the same
 * random arguments (options o), comparing every buffer and the returned value. */
static void diff_script_(int line, const char* file, const char* name, const cg_opts* o) {
  void* ir = test_parse_file_(line, TVM_CORPUS_DIR "/tir", file);
  if (!ir) return;
  bool is_mod = tvm_tir_kind_of(ir) == TVM_TIR_KIND_IRModule;
  void* lowered = tvm_tir_lower(ir, NULL);
  void *m = NULL, *fn = NULL, *g = NULL;
  if (!lowered) {
    interp_fail_(line, "lowering failed");
  } else if (!(m = tvm_codegen_build(lowered, "llvm", NULL))) {
    interp_fail_(line, "codegen build failed");
  } else if (!(fn = GET_FN(m, name))) {
  } else if (!(g = func_of(lowered, name))) {
    interp_fail_(line, "no such function in the lowered module");
  } else {
    cg_args a, b;
    if (!cg_make_args(g, o, &a) || !cg_make_args(g, o, &b)) {
      fprintf(stderr, "line %d: too many parameters\n", line);
      g_test_failed_checks++;
    } else {
      TVMFFIAny ra = tvm_ffi_any_none(), rb = tvm_ffi_any_none();
      if (tvm_tir_interp_run(ir, is_mod ? name : NULL, a.args, a.n, &ra) != 0) {
        interp_fail_(line, "interpreter run failed");
      } else if (tvm_ffi_function_call(fn, b.args, b.n, &rb) != 0) {
        interp_fail_(line, "compiled run failed");
      } else {
        for (int k = 0; k < a.n; ++k)
          if (a.data[k] && cg_compare(line, &a, &b, k) != 0) {
            fprintf(stderr, "line %d: %s: parameter %d differs\n", line, file, k);
            g_test_failed_checks++;
          }
        if (ra.type_index != rb.type_index || ra.v_int64 != rb.v_int64) {
          fprintf(stderr, "line %d: %s: returned type %d value %lld (interpreter), %d %lld\n",
                  line, file, ra.type_index, (long long)ra.v_int64, rb.type_index,
                  (long long)rb.v_int64);
          g_test_failed_checks++;
        }
      }
      tvm_ffi_any_release(&ra);
      tvm_ffi_any_release(&rb);
      cg_args_free(&a);
      cg_args_free(&b);
    }
  }
  tvm_ffi_release(g);
  tvm_ffi_release(fn);
  tvm_ffi_release(m);
  tvm_ffi_release(lowered);
  tvm_ffi_release(ir);
}
#define DIFF_SCRIPT(file, name, ...) \
  diff_script_(__LINE__, (file), (name), &(cg_opts){__VA_ARGS__})

/* A buffer whose shape uses a variable only a later buffer defines ((n * 32,) before (n, 32),
 * Relax's reshape kernels): bound and checked in the packed API's order, compiled and
 * interpreted; a flat input of the wrong length is a ValueError in both. */
TEST(later_defined_dims) {
  DIFF_SCRIPT("later_defined_dims.py", "flat_to_rows");
  DIFF_SCRIPT("later_defined_dims.py", "flat_to_rows", .sym = 2, .seed = 5);
  void* ir = test_parse_file(TVM_CORPUS_DIR "/tir", "later_defined_dims.py");
  void* lowered = ir ? tvm_tir_lower(ir, NULL) : NULL;
  void* m = lowered ? tvm_codegen_build(lowered, "llvm", NULL) : NULL;
  CHECK(m != NULL);
  void* fn = m ? GET_FN(m, "flat_to_rows") : NULL;
  if (fn) {
    float a[3 * 32 + 1] = {0}, b[3 * 32] = {0};
    int64_t sa[1] = {3 * 32 + 1}, sb[2] = {3, 32};
    DLTensor ta = dl(a, TVM_TIR_FLOAT32, 1, sa, NULL), tb = dl(b, TVM_TIR_FLOAT32, 2, sb, NULL);
    TVMFFIAny args[2] = {tvm_ffi_any_dltensor(&ta), tvm_ffi_any_dltensor(&tb)};
    TVMFFIAny r;
    EXPECT_CALL_ERR(fn, args, 2, "ValueError", "shape[0]: expected 96, got 97");
    CHECK_EQ_INT(tvm_tir_interp_run(ir, NULL, args, 2, &r), -1);
    CHECK_RAISED("ValueError", "shape[0] is 97 but the buffer requires 96");
  }
  tvm_ffi_release(fn);
  tvm_ffi_release(m);
  tvm_ffi_release(lowered);
  tvm_ffi_release(ir);
}

/* Calls through GlobalVars: scalars in and out, buffers passed by their data, a handle
 * parameter under a declared buffer, a call in a loop, recursion, a private callee; and
 * T.call_extern of helpers of the module. */
TEST(calls_between_prim_funcs) {
  DIFF_SCRIPT("module_cross_ref.py", "main");
  DIFF_SCRIPT("module_calls.py", "main");
  DIFF_SCRIPT("module_calls.py", "main", .seed = 7);
  DIFF_SCRIPT("module_call_recursive.py", "main");
  DIFF_SCRIPT("module_call_parallel.py", "main");
  DIFF_SCRIPT("module_call_extern.py", "main");
  DIFF_SCRIPT("module_call_extern.py", "main", .seed = 3);
}

/* A callee's error comes back through the caller: the call returns -1 with the callee's error,
 * and the caller's heap allocation is released (the ASan build checks the leak). */
TEST(call_error_propagates) {
  void* ir = test_parse_file(TVM_CORPUS_DIR "/tir", "module_call_error.py");
  void* lowered = ir ? tvm_tir_lower(ir, NULL) : NULL;
  void* m = lowered ? tvm_codegen_build(lowered, "llvm", NULL) : NULL;
  CHECK(m != NULL);
  void* fn = m ? GET_FN(m, "main") : NULL;
  if (fn) {
    int32_t data[8] = {0};
    int64_t shape[1] = {8};
    DLTensor t = dl(data, TVM_TIR_INT32, 1, shape, NULL);
    TVMFFIAny args[2] = {tvm_ffi_any_dltensor(&t), tvm_ffi_any_int(3)};
    TVMFFIAny r;
    CHECK_EQ_INT(tvm_ffi_function_call(fn, args, 2, &r), 0);
    CHECK_EQ_INT(data[3], 9);
    args[1] = tvm_ffi_any_int(-2);
    EXPECT_CALL_ERR(fn, args, 2, "AssertionError", "negative input");
    /* the interpreter agrees */
    CHECK_EQ_INT(tvm_tir_interp_run(ir, "main", args, 2, &r), -1);
    CHECK_RAISED("AssertionError", "negative input");
  }
  tvm_ffi_release(fn);
  tvm_ffi_release(m);
  tvm_ffi_release(lowered);
  tvm_ffi_release(ir);
}

/* A call the code generator cannot make is a clear error at build time, not a crash. */
TEST(call_errors_at_build) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_global_var_obj* gv = tvm_tir_global_var_new("nowhere");
  void* call = tvm_tir_call_global_takev(TVM_TIR_INT32, gv, 1, (void*[]){ref(x)});
  void* f = ret_func_named_take("calls_nowhere", tvm_tir_list_take(ref(x)), call);
  void* g = f ? tvm_tir_lower(f, NULL) : NULL;
  CHECK(g != NULL);
  void* m = g ? tvm_codegen_build(g, "llvm", NULL) : NULL;
  CHECK(m == NULL);
  if (!m) CHECK_RAISED("ValueError", "call to 'nowhere': no such function");
  tvm_ffi_release(m);
  tvm_ffi_release(g);
  tvm_ffi_release(f);
  RELEASE(x);
}

/* break and continue (#19): in for and while loops, nested, under a border test that loop
 * partitioning must not split, in an unrolled loop (kept a loop), in serial loops inside a
 * parallel one, and in bodies holding stack and heap scratch buffers (released by the jump:
 * the ASan build checks the leak). */
TEST(loop_jumps) {
  static const char* fns[] = {"first_negative", "row_sums",      "count_while", "border_break",
                              "unrolled_break", "parallel_rows", "scratch"};
  for (size_t k = 0; k < sizeof(fns) / sizeof(fns[0]); ++k) {
    for (unsigned seed = 1; seed <= 4; ++seed)
      DIFF_SCRIPT("loop_break_continue.py", fns[k], .seed = seed);
  }
}

/* An AssertStmt with an error kind (`assert c, (kind, [parts])`) raises that kind with the parts
 * joined, compiled as interpreted; the plain form still raises AssertionError. */
TEST(assert_kinds) {
  static const char src[] =
      "from tvm.script import tir as T\n"
      "@T.prim_func\n"
      "def f(A: T.Buffer((4,), \"int32\"), x: T.int32):\n"
      "    assert x > 0, (\"ValueError\", [\"x must be \", \"positive\"])\n"
      "    assert x < 100, \"x too large\"\n"
      "    A[0] = x\n";
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  void* f = tvm_script_parse(src, sizeof(src) - 1, &opts);
  CHECK(f != NULL);
  void* lowered = f ? tvm_tir_lower(f, NULL) : NULL;
  void* m = lowered ? tvm_codegen_build(lowered, "llvm", NULL) : NULL;
  CHECK(m != NULL);
  void* fn = m ? GET_FN(m, "f") : NULL;
  if (fn) {
    int32_t data[4] = {0};
    int64_t shape[1] = {4};
    DLTensor t = dl(data, TVM_TIR_INT32, 1, shape, NULL);
    TVMFFIAny args[2] = {tvm_ffi_any_dltensor(&t), tvm_ffi_any_int(5)};
    TVMFFIAny r;
    CHECK_EQ_INT(tvm_ffi_function_call(fn, args, 2, &r), 0);
    CHECK_EQ_INT(data[0], 5);
    args[1] = tvm_ffi_any_int(-3);
    EXPECT_CALL_ERR(fn, args, 2, "ValueError", "x must be positive");
    CHECK_EQ_INT(tvm_tir_interp_run(f, NULL, args, 2, &r), -1);
    CHECK_RAISED("ValueError", "x must be positive");
    args[1] = tvm_ffi_any_int(300);
    EXPECT_CALL_ERR(fn, args, 2, "AssertionError", "x too large");
    CHECK_EQ_INT(tvm_tir_interp_run(f, NULL, args, 2, &r), -1);
    CHECK_RAISED("AssertionError", "x too large");
  }
  tvm_ffi_release(fn);
  tvm_ffi_release(m);
  tvm_ffi_release(lowered);
  tvm_ffi_release(f);
}

/* Buffers over other buffers' data and T.decl_buffer without data (an allocation), which used
 * to reach the code generator with "unbound buffer data". */
TEST(declared_buffers) {
  static const char* fns[] = {"alias_param",   "alias_2d",       "let_shape",
                              "alloc_no_data", "alloc_under_let", "alloc_in_loop",
                              "alias_of_alloc", "alloc_strided",  "block_alloc_alias"};
  for (size_t k = 0; k < sizeof(fns) / sizeof(fns[0]); ++k)
    DIFF_SCRIPT("decl_buffer_forms.py", fns[k]);
}

/* T.alloc_buffer outside any block: in a for body, a T.grid (local scope), an if branch (both
 * branches taken), under a let, in a while body: statement-level allocations. */
TEST(alloc_buffer_in_statements) {
  static const char* fns[] = {"in_for", "in_grid_local", "under_let", "in_while"};
  for (size_t k = 0; k < sizeof(fns) / sizeof(fns[0]); ++k)
    DIFF_SCRIPT("alloc_buffer_in_stmt.py", fns[k]);
  DIFF_SCRIPT("alloc_buffer_in_stmt.py", "in_if");
  DIFF_SCRIPT("alloc_buffer_in_stmt.py", "in_if", .sym = -3, .seed = 9);
}

/* Buffer indices of mixed bit widths (int64 next to int32), widened by the parser. */
TEST(mixed_index_widths) {
  DIFF_SCRIPT("mixed_index_widths.py", "grid_i64");
  DIFF_SCRIPT("mixed_index_widths.py", "grid_i64", .sym = 3, .seed = 5);
  DIFF_SCRIPT("mixed_index_widths.py", "loops_i64_i32");
  DIFF_SCRIPT("mixed_index_widths.py", "index_arith");
  DIFF_SCRIPT("mixed_index_widths.py", "block_axes");
}

/* Buffers viewing memory without a T.decl_buffer (a flat view of a parameter's data, a strided
 * view of an allocation) and Buffer.access_ptr: they passed `tvmc check` and must compile. */
TEST(buffer_views) {
  DIFF_SCRIPT("buffer_views.py", "flat_view");
  DIFF_SCRIPT("buffer_views.py", "flat_view", .seed = 4);
  DIFF_SCRIPT("buffer_views.py", "strided_view");
  DIFF_SCRIPT("buffer_views.py", "access_ptr_method");
}

/* Integer arithmetic of mixed widths (`i * 4 + j`, i int64): the narrower operand widened. */
TEST(mixed_width_arith) {
  DIFF_SCRIPT("mixed_width_arith.py", "flat_index");
  DIFF_SCRIPT("mixed_width_arith.py", "symbolic_rows", .sym = 5);
  DIFF_SCRIPT("mixed_width_arith.py", "symbolic_rows", .sym = 3, .seed = 7);
  DIFF_SCRIPT("mixed_width_arith.py", "widen_values");
}

/* T.Bind, T.Ptr[...] and a region match_buffer without shape or dtype (upstream's spellings). */
TEST(bind_ptr_region_match) {
  DIFF_SCRIPT("bind_ptr_region_match.py", "bind_offset", .sym = 21);
  DIFF_SCRIPT("bind_ptr_region_match.py", "bind_offset", .sym = 3, .seed = 2);
  DIFF_SCRIPT("bind_ptr_region_match.py", "ptr_view");
  DIFF_SCRIPT("bind_ptr_region_match.py", "region_match");
}

/* Reductions into a block's match_buffer view, through the default CPU schedule: passed
 * `tvmc check` and failed in codegen with "unbound variable" (the accumulator rule named the view
 * outside the loop that declares it). Compiled against the interpreter on the unscheduled code. */
TEST(scheduled_reduce_into_view) {
  void* ir = test_parse_file(TVM_CORPUS_DIR "/tir", "reduce_into_view.py");
  static const char* fns[] = {"row_sums", "col_max"};
  for (int k = 0; ir && k < 2; ++k) {
    void* f = tvm_tir_ir_module_lookup(ir, fns[k]);
    tvm_tir_schedule_target t = tvm_tir_schedule_target_default();
    t.parallel_grain = 0;
    void* g = f ? tvm_tir_schedule_default(f, &t) : NULL;
    void* low = g ? tvm_tir_lower(g, NULL) : NULL;
    void* m = NULL;
    void* fn = low ? build_fn_(__LINE__, low, tvm_tir_func_global_symbol(low), &m) : NULL;
    CHECK(fn != NULL);
    if (fn) diff_fn_(__LINE__, f, low, fn, &(cg_opts){.seed = 3});
    tvm_ffi_release(fn), tvm_ffi_release(m), tvm_ffi_release(low), tvm_ffi_release(g);
    tvm_ffi_release(f);
  }
  tvm_ffi_release(ir);
}

/* T.allocate_const: the constants reach both the interpreter and the compiled kernel (zero
 * inputs give the table itself), and the kernels agree on random inputs. */
TEST(allocate_const) {
  const char* fns[] = {"add_table", "weighted", "lut", "small_ints"};
  for (int k = 0; k < 4; ++k) {
    DIFF_SCRIPT("allocate_const.py", fns[k]);
    DIFF_SCRIPT("allocate_const.py", fns[k], .seed = 11);
  }
  void* ir = test_parse_file(TVM_CORPUS_DIR "/tir", "allocate_const.py");
  void* lowered = ir ? tvm_tir_lower(ir, NULL) : NULL;
  void* m = lowered ? tvm_codegen_build(lowered, "llvm", NULL) : NULL;
  void* fn = m ? GET_FN(m, "add_table") : NULL;
  void* g = ir ? tvm_tir_ir_module_lookup(ir, "add_table") : NULL;
  CHECK(fn && g);
  cg_opts o = {0};
  cg_args a, b;
  if (fn && g && cg_make_args(g, &o, &a) && cg_make_args(g, &o, &b)) {
    memset(a.data[0], 0, 4 * sizeof(int32_t));
    memset(b.data[0], 0, 4 * sizeof(int32_t));
    TVMFFIAny ra = tvm_ffi_any_none(), rb = tvm_ffi_any_none();
    CHECK_OK(tvm_tir_interp_run(ir, "add_table", a.args, a.n, &ra));
    CHECK_OK(tvm_ffi_function_call(fn, b.args, b.n, &rb));
    const int32_t want[4] = {1, -2, 3, 40000};
    for (int i = 0; i < 4; ++i) {
      CHECK_EQ_INT(((int32_t*)a.data[1])[i], want[i]);
      CHECK_EQ_INT(((int32_t*)b.data[1])[i], want[i]);
    }
    cg_args_free(&a);
    cg_args_free(&b);
  }
  tvm_ffi_release(g);
  tvm_ffi_release(fn);
  tvm_ffi_release(m);
  tvm_ffi_release(lowered);
  tvm_ffi_release(ir);
}

/* A slice used as a value is the vector load of its elements (upstream's reading). */
TEST(region_values) {
  const char* fns[] = {"add_halves", "row_ops", "copy_slice"};
  for (int k = 0; k < 3; ++k) {
    DIFF_SCRIPT("region_values.py", fns[k]);
    DIFF_SCRIPT("region_values.py", fns[k], .seed = 5);
  }
}

/* T.init() in blocks without a reduction iter var: the init runs every time. */
TEST(init_without_reduction) {
  DIFF_SCRIPT("init_without_reduction.py", "spatial_init");
  DIFF_SCRIPT("init_without_reduction.py", "opaque_init");
  DIFF_SCRIPT("init_without_reduction.py", "init_reads_reduce_var");
  DIFF_SCRIPT("init_without_reduction.py", "init_reads_reduce_var", .seed = 3);
}

/* Allocations with strides and an elem_offset (an alloc_buffer with them was a lowering error). */
TEST(strided_allocations) {
  DIFF_SCRIPT("alloc_strided.py", "allocate_strided");
  DIFF_SCRIPT("alloc_strided.py", "alloc_buffer_strided");
  DIFF_SCRIPT("alloc_strided.py", "alloc_buffer_column_major");
  DIFF_SCRIPT("alloc_strided.py", "alloc_buffer_column_major", .sym = 5);
}

/* T.assume and the profiling markers compile to nothing and run as the interpreter does. */
TEST(hints) {
  DIFF_SCRIPT("assume_profile.py", "assume");
  DIFF_SCRIPT("assume_profile.py", "profiled");
  DIFF_SCRIPT("assume_profile.py", "invariant");
}

/* A buffer shape computed from a scalar parameter listed after the buffer (the entry binds the
 * scalars first; it used to fail with "unbound variable n"); match_buffer forms in blocks. */
TEST(parameters_and_matches) {
  DIFF_SCRIPT("scalar_shape_params.py", "scaled");
  DIFF_SCRIPT("scalar_shape_params.py", "let_view", .sym = 3);
  DIFF_SCRIPT("match_buffer_forms.py", "tiles");
  DIFF_SCRIPT("match_buffer_forms.py", "row_sums");
  DIFF_SCRIPT("match_buffer_forms.py", "matched_extent");
  DIFF_SCRIPT("match_buffer_forms.py", "nested");
}

/* The spellings of real programs (#19): `import tvm` headers with the long decorators, and lets
 * annotated `T.let[<type>]` (a pointer-typed one under a declared buffer), 0-d buffers indexed
 * `A[()]`, layout=None, loop annotations, range() with a step (up, down, symbolic bounds,
 * empty), buffer attributes. */
TEST(real_program_forms) {
  DIFF_SCRIPT("import_tvm_module.py", "add_one");
  DIFF_SCRIPT("import_tvm_module.py", "scale");
  DIFF_SCRIPT("import_tvm_ir.py", "saxpy");
  DIFF_SCRIPT("import_tvm_ir.py", "saxpy", .sym = 3, .seed = 5);
  DIFF_SCRIPT("import_tvm_aliases.py", "relu");
  DIFF_SCRIPT("target_object.py", "scale");
  DIFF_SCRIPT("let_subscript.py", "norm2");
  DIFF_SCRIPT("let_subscript.py", "indexed");
  DIFF_SCRIPT("let_subscript.py", "pointer_let", .sym = 20);
  DIFF_SCRIPT("zero_dim_buffers.py", "sum_all");
  DIFF_SCRIPT("zero_dim_buffers.py", "scale_by");
  DIFF_SCRIPT("zero_dim_buffers.py", "block_reduce");
  DIFF_SCRIPT("zero_dim_buffers.py", "local_scalar");
  DIFF_SCRIPT("keyword_forms.py", "strided_copy");
  DIFF_SCRIPT("keyword_forms.py", "reversed_rows");
  DIFF_SCRIPT("keyword_forms.py", "symbolic_step", .sym = 17);
  DIFF_SCRIPT("keyword_forms.py", "symbolic_step", .sym = 1);
  DIFF_SCRIPT("keyword_forms.py", "buffer_attrs");
}

/* Call function `name` compiled (fn, a reference taken) and interpreted (in ir) on the same
 * arguments; both must succeed and return the same value, which is returned (type index in
 * *type). */
static int64_t same_call_(int line, void* ir, void* fn, const char* name, TVMFFIAny* args, int n,
                          int32_t* type) {
  TVMFFIAny rc = tvm_ffi_any_none(), ri = tvm_ffi_any_none();
  if (!fn || tvm_ffi_function_call(fn, args, n, &rc) != 0) interp_fail_(line, "compiled run failed");
  if (tvm_tir_interp_run(ir, name, args, n, &ri) != 0) interp_fail_(line, "interpreter run failed");
  if (rc.type_index != ri.type_index || rc.v_int64 != ri.v_int64) {
    fprintf(stderr, "line %d: %s: compiled returned %d/%lld, interpreter %d/%lld\n", line, name,
            rc.type_index, (long long)rc.v_int64, ri.type_index, (long long)ri.v_int64);
    g_test_failed_checks++;
  }
  *type = ri.type_index;
  tvm_ffi_release(fn);
  return ri.v_int64;
}
#define SAME_CALL(name, type, ...)                                                        \
  same_call_(__LINE__, ir, m ? GET_FN(m, name) : NULL, name, (TVMFFIAny[]){__VA_ARGS__}, \
             (int)(sizeof((TVMFFIAny[]){__VA_ARGS__}) / sizeof(TVMFFIAny)), (type))

/* T.tvm_struct_get / T.tvm_struct_set (upstream's field numbering) compiled and interpreted:
 * a DLTensor's ndim, shape, strides, dtype and data read through a handle, its device_id
 * written, int64 array elements written and read; bad field kinds and dtypes are errors in
 * both. */
TEST(struct_fields) {
  void* ir = test_parse_file(TVM_CORPUS_DIR "/tir", "struct_fields.py");
  void* lowered = ir ? tvm_tir_lower(ir, NULL) : NULL;
  void* m = lowered ? tvm_codegen_build(lowered, "llvm", NULL) : NULL;
  CHECK(m != NULL);
  if (!m) {
    RELEASE(ir, lowered);
    return;
  }
  float x[3 * 5 * 7];
  for (int i = 0; i < 3 * 5 * 7; ++i) x[i] = (float)(i % 11) - 4.5f;
  int64_t shape[3] = {3, 5, 7}, strides[3] = {100, 10, 1};
  DLTensor t = dl(x, TVM_TIR_FLOAT32, 3, shape, NULL);
  int32_t type;
  /* compact: the product of the later dims */
  CHECK_EQ_INT(SAME_CALL("elem_stride", &type, tvm_ffi_any_dltensor(&t), I(0)), 35);
  CHECK_EQ_INT(SAME_CALL("elem_stride", &type, tvm_ffi_any_dltensor(&t), I(1)), 7);
  CHECK_EQ_INT(SAME_CALL("elem_stride", &type, tvm_ffi_any_dltensor(&t), I(2)), 1);
  CHECK_EQ_INT(type, kTVMFFIInt);
  t.strides = strides;
  CHECK_EQ_INT(SAME_CALL("elem_stride", &type, tvm_ffi_any_dltensor(&t), I(0)), 100);
  CHECK_EQ_INT(SAME_CALL("elem_stride", &type, tvm_ffi_any_dltensor(&t), I(1)), 10);
  t.strides = NULL;
  CHECK_EQ_INT(SAME_CALL("dtype_code", &type, tvm_ffi_any_dltensor(&t)), 2 * 100000 + 32 * 100 + 1);
  /* data: the first element (float returned as a double: compare the bits of both runs) */
  SAME_CALL("first_element", &type, tvm_ffi_any_dltensor(&t));
  CHECK_EQ_INT(type, kTVMFFIFloat);
  /* device_id written into the caller's DLTensor, by each */
  void* set = GET_FN(m, "set_device_id");
  TVMFFIAny sargs[2] = {tvm_ffi_any_dltensor(&t), I(3)};
  TVMFFIAny r;
  CHECK(set && tvm_ffi_function_call(set, sargs, 2, &r) == 0 && t.device.device_id == 3);
  sargs[1] = I(5);
  CHECK(tvm_tir_interp_run(ir, "set_device_id", sargs, 2, &r) == 0 && t.device.device_id == 5);
  CHECK_EQ_INT(t.device.device_type, kDLCPU);
  tvm_ffi_release(set);
  /* int64 array elements: 3n + 5n */
  CHECK_EQ_INT(SAME_CALL("int64_elements", &type, I(7)), 56);
  RELEASE(ir, lowered, m);

  /* errors: a kind naming no field, a pointer read as an integer (upstream's test program
   * plan_update_buffer_allocation_location reads ndim as kind 5 and strides as kind 4) */
  static const struct {
    const char* body;
    const char* kind;
    const char* part;
  } bad[] = {
      {"    n: T.int32 = T.tvm_struct_get(t, 0, 11, \"int32\")\n", "ValueError", "no field kind 11"},
      {"    p: T.handle = T.tvm_struct_get(t, 0, 4, \"handle\")\n", "TypeError",
       "field ndim is an integer; it cannot be read as handle"},
      {"    n: T.int32 = T.tvm_struct_get(t, 0, 2, \"int32\")\n", "TypeError",
       "field shape is a pointer (handle); it cannot be read as int32"},
      {"    T.tvm_struct_set(t, 0, 0, t)\n", "TypeError", "field addr"},
  };
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); ++k) {
    char text[512];
    snprintf(text, sizeof(text),
             "from tvm.script import tirx as T\n@T.prim_func\ndef f(t: T.handle):\n%s"
             "    T.evaluate(0)\n",
             bad[k].body);
    tvm_script_parse_options po;
    tvm_script_parse_options_init(&po);
    void* f = tvm_script_parse(text, strlen(text), &po);
    CHECK(f != NULL);
    if (!f) continue;
    void* g = tvm_tir_lower(f, NULL);
    CHECK(g != NULL);
    CHECK(g && tvm_codegen_build(g, "llvm", NULL) == NULL);
    if (g) CHECK_RAISED(bad[k].kind, bad[k].part);
    TVMFFIAny ta = tvm_ffi_any_dltensor(&t);
    CHECK_EQ_INT(tvm_tir_interp_run(f, NULL, &ta, 1, &r), -1);
    CHECK_RAISED(bad[k].kind, bad[k].part);
    RELEASE(f, g);
  }
}

/* Handle parameters that are not buffers, compiled and interpreted alike: opaque pointers to
 * memory the caller declares to the interpreter (tvm_tir_interp_run_with_memory), which
 * without that declaration refuses the access; a DLTensor pointer passed as itself. */
TEST(handle_parameters) {
  void* ir = test_parse_file(TVM_CORPUS_DIR "/tir", "handle_params.py");
  void* lowered = ir ? tvm_tir_lower(ir, NULL) : NULL;
  void* m = lowered ? tvm_codegen_build(lowered, "llvm", NULL) : NULL;
  CHECK(m != NULL);
  void* axpy = m ? GET_FN(m, "axpy") : NULL;
  void* identity = m ? GET_FN(m, "identity") : NULL;
  if (axpy && identity) {
    float x[7], y_c[7], y_i[7];
    for (int i = 0; i < 7; ++i) x[i] = (float)(i * 3 - 7) / 4, y_c[i] = y_i[i] = (float)(5 - i);
    TVMFFIAny args[4] = {tvm_ffi_any_ptr(x), tvm_ffi_any_ptr(y_c), tvm_ffi_any_float(1.5),
                         tvm_ffi_any_int(7)};
    TVMFFIAny r;
    CHECK_EQ_INT(tvm_ffi_function_call(axpy, args, 4, &r), 0);
    args[1] = tvm_ffi_any_ptr(y_i);
    tvm_tir_interp_memory mem[2] = {{x, sizeof(x)}, {y_i, sizeof(y_i)}};
    CHECK_EQ_INT(tvm_tir_interp_run_with_memory(ir, "axpy", args, 4, mem, 2, &r), 0);
    for (int i = 0; i < 7; ++i) {
      CHECK(y_c[i] == y_i[i]);
      CHECK(y_i[i] == (float)(5 - i) + 1.5f * x[i]);
    }
    /* memory not declared, or declared too short: the access is refused */
    CHECK_EQ_INT(tvm_tir_interp_run(ir, "axpy", args, 4, &r), -1);
    CHECK_RAISED("IndexError", "outside every live allocation");
    mem[1].nbytes = 6 * sizeof(float);
    CHECK_EQ_INT(tvm_tir_interp_run_with_memory(ir, "axpy", args, 4, mem, 2, &r), -1);
    CHECK_RAISED("IndexError", "outside every live allocation");
    mem[1].data = NULL;
    CHECK_EQ_INT(tvm_tir_interp_run_with_memory(ir, "axpy", args, 4, mem, 2, &r), -1);
    CHECK_RAISED("ValueError", "memory 1: NULL data");
    /* a DLTensor pointer given to a handle parameter is the DLTensor's address in both */
    int64_t shape[1] = {7};
    DLTensor t = dl(x, TVM_TIR_FLOAT32, 1, shape, NULL);
    TVMFFIAny targ = tvm_ffi_any_dltensor(&t), rc = tvm_ffi_any_none(), ri = tvm_ffi_any_none();
    CHECK_EQ_INT(tvm_ffi_function_call(identity, &targ, 1, &rc), 0);
    CHECK_EQ_INT(tvm_tir_interp_run(ir, "identity", &targ, 1, &ri), 0);
    CHECK(rc.type_index == kTVMFFIOpaquePtr && rc.v_ptr == (void*)&t);
    CHECK(ri.type_index == kTVMFFIOpaquePtr && ri.v_ptr == (void*)&t);
  }
  tvm_ffi_release(identity);
  tvm_ffi_release(axpy);
  tvm_ffi_release(m);
  tvm_ffi_release(lowered);
  tvm_ffi_release(ir);
}

int main(void) {
  RUN(calls_between_prim_funcs);
  RUN(loop_jumps);
  RUN(assert_kinds);
  RUN(handle_parameters);
  RUN(struct_fields);
  RUN(declared_buffers);
  RUN(strided_allocations);
  RUN(alloc_buffer_in_statements);
  RUN(mixed_index_widths);
  RUN(init_without_reduction);
  RUN(allocate_const);
  RUN(region_values);
  RUN(buffer_views);
  RUN(mixed_width_arith);
  RUN(bind_ptr_region_match);
  RUN(scheduled_reduce_into_view);
  RUN(hints);
  RUN(parameters_and_matches);
  RUN(later_defined_dims);
  RUN(real_program_forms);
  RUN(call_error_propagates);
  RUN(call_errors_at_build);
  return test_summary();
}

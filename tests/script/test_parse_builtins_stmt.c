/*
 * test_parse_builtins_stmt.c: the statement and frame builtins of `T.*` (T.sblock, T.grid,
 * T.axis.*, T.reads, T.Buffer, ...), called with hand-filled tvm_script_call structs the way
 * the parser's statement handlers call them, driving a real IR builder. Results are compared
 * with IR built by hand; bad calls raise the right kind and point error_arg at the argument.
 */
#include <tvm/script/printer.h>
#include <tvm/tir/tir.h>

#include "../../libscript/src/parse_internal.h"
#include "test_util.h"
#include "tir_testing.h"

static void* ref(void* obj) { return tvm_tir_ref(obj); }

/* ---- Calling builtins ---------------------------------------------------------------------- */
typedef struct {
  tvm_script_call call;
  char name[64];
} test_call;

static tvm_script_call* mk(test_call* tc, tvm_script_builder* b, const char* name,
                           tvm_script_call_ctx ctx, const TVMFFIAny* args, int32_t nargs) {
  memset(tc, 0, sizeof(*tc));
  snprintf(tc->name, sizeof(tc->name), "T.%s", name);
  tc->call.builder = b;
  tc->call.name = tc->name;
  tc->call.ctx = ctx;
  tc->call.args = args;
  tc->call.num_args = nargs;
  tc->call.error_arg = -1;
  return &tc->call;
}

static void with_targets(tvm_script_call* c, int32_t n, const char* const* names) {
  c->num_targets = n;
  c->targets = names;
}

static void with_kwargs(tvm_script_call* c, int32_t n, const char* const* names,
                        const TVMFFIAny* values) {
  c->num_kwargs = n;
  c->kw_names = names;
  c->kwargs = values;
}

/* Run the call; 0 with *out owned (None for side-effect builtins), or -1 with the error. */
static int run(tvm_script_call* call, TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  const char* name = call->name + 2;
  const tvm_script_builtin* bi = tvm_script__tir_builtin_lookup(name, strlen(name));
  if (!bi) return tvm_ffi_raise("NameError", "no builtin %s", call->name);
  return bi->fn(call, out);
}

/* Run and expect success; returns the object result (owned) or NULL. */
static void* ok_line(tvm_script_call* call, int line) {
  TVMFFIAny out;
  if (run(call, &out) != 0) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "line %d: %s failed: %s: %s\n", line, call->name,
            e ? tvm_ffi_error_kind(e) : "?", e ? tvm_ffi_error_message(e) : "");
    tvm_ffi_release(e);
    g_test_failed_checks++;
    return NULL;
  }
  return tvm_ffi_any_is_object(&out) ? out.v_obj : NULL;
}
#define RUN_OK(call) ok_line((call), __LINE__)

/* Run and expect failure with error_arg == arg. */
static void fails_line(tvm_script_call* call, int32_t arg, int line) {
  TVMFFIAny out;
  if (run(call, &out) == 0) {
    fprintf(stderr, "line %d: %s unexpectedly succeeded\n", line, call->name);
    tvm_ffi_any_release(&out);
    g_test_failed_checks++;
  } else if (call->error_arg != arg) {
    fprintf(stderr, "line %d: %s: error_arg %d, expected %d\n", line, call->name,
            (int)call->error_arg, (int)arg);
    g_test_failed_checks++;
  }
}
#define FAILS(call, arg) fails_line((call), (arg), __LINE__)

static void expect_equal(void* got, void* expected, int line) {
  TVMFFIAny a = tvm_ffi_any_obj(got), b = tvm_ffi_any_obj(expected);
  void *pa = NULL, *pb = NULL;
  int eq = got && expected ? tvm_ffi_structural_equal(&a, &b, false, &pa, &pb) : -1;
  if (eq != 1) {
    tvm_ffi_strbuf s = {0};
    if (pa) tvm_ffi_access_path_format(pa, &s);
    fprintf(stderr, "line %d: not structurally equal at %s\n", line, tvm_ffi_strbuf_cstr(&s));
    tvm_ffi_strbuf_free(&s);
    tvm_ffi_error_clear();
    g_test_failed_checks++;
  }
  tvm_ffi_release(pa);
  tvm_ffi_release(pb);
  tvm_ffi_release(got);
  tvm_ffi_release(expected);
}
#define EXPECT_EQUAL(got, expected) expect_equal((got), (expected), __LINE__)

/* A function frame with float32 buffer parameters built through T.Buffer. */
static tvm_tir_buffer_obj* buffer_param(tvm_script_builder* b, const char* name, int64_t d0,
                                        int64_t d1) {
  TVMFFIAny dims[2] = {tvm_ffi_any_int(d0), tvm_ffi_any_int(d1)};
  void* shape = tvm_ffi_array_new(dims, d1 ? 2 : 1);
  TVMFFIAny args[2] = {tvm_ffi_any_obj(shape), tvm_ffi_any_raw_str("float32")};
  test_call tc;
  tvm_tir_buffer_obj* buf = RUN_OK(mk(&tc, b, "Buffer", TVM_SCRIPT_CTX_EXPR, args, 2));
  tvm_tir_buffer_obj* out = buf ? tvm_script_tir_arg(b, name, buf) : NULL;
  tvm_ffi_release(buf);
  tvm_ffi_release(shape);
  return out;
}

static void* load2(tvm_tir_buffer_obj* buf, void* i, void* j) {
  return tvm_tir_load_take(ref(buf), ref(i), ref(j));
}

/* ---- Tests --------------------------------------------------------------------------------- */
/* The matmul of tir_testing.c through T.Buffer, T.grid, T.sblock, T.axis.remap, T.reads (both
 * forms), T.writes and T.init. */
TEST(matmul_through_builtins) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  CHECK_OK(tvm_script_tir_func_name(b, "matmul"));
  tvm_tir_buffer_obj* A = buffer_param(b, "A", 128, 64);
  tvm_tir_buffer_obj* B = buffer_param(b, "B", 64, 128);
  tvm_tir_buffer_obj* C = buffer_param(b, "C", 128, 128);
  test_call tc;
  TVMFFIAny ext[3] = {tvm_ffi_any_int(128), tvm_ffi_any_int(128), tvm_ffi_any_int(64)};
  const char* loop_names[] = {"i", "j", "k"};
  tvm_script_call* c = mk(&tc, b, "grid", TVM_SCRIPT_CTX_FOR, ext, 3);
  with_targets(c, 3, loop_names);
  void* loops = RUN_OK(c);
  CHECK_EQ_INT(tvm_script_builder_depth(b), 4);
  TVMFFIAny name = tvm_ffi_any_raw_str("update");
  CHECK(RUN_OK(mk(&tc, b, "sblock", TVM_SCRIPT_CTX_WITH, &name, 1)) == NULL);
  TVMFFIAny remap_args[2] = {tvm_ffi_any_raw_str("SSR"), tvm_ffi_any_obj(loops)};
  const char* axis_names[] = {"vi", "vj", "vk"};
  c = mk(&tc, b, "axis.remap", TVM_SCRIPT_CTX_ASSIGN, remap_args, 2);
  with_targets(c, 3, axis_names);
  void* vars = RUN_OK(c);
  void *vi = vars ? tvm_ffi_seq_obj_at(vars, 0) : NULL,
       *vj = vars ? tvm_ffi_seq_obj_at(vars, 1) : NULL,
       *vk = vars ? tvm_ffi_seq_obj_at(vars, 2) : NULL;
  /* T.reads(A[vi, vk], B[vk, vj]): point loads become point regions. */
  void *la = load2(A, vi, vk), *lb = load2(B, vk, vj), *lc = load2(C, vi, vj);
  TVMFFIAny reads[2] = {tvm_ffi_any_obj(la), tvm_ffi_any_obj(lb)};
  RUN_OK(mk(&tc, b, "reads", TVM_SCRIPT_CTX_STMT, reads, 2));
  /* T.writes([C[vi, vj]]): the list form. */
  void* wl = tvm_ffi_array_of_objects(&lc, 1);
  TVMFFIAny writes = tvm_ffi_any_obj(wl);
  RUN_OK(mk(&tc, b, "writes", TVM_SCRIPT_CTX_STMT, &writes, 1));
  RUN_OK(mk(&tc, b, "init", TVM_SCRIPT_CTX_WITH, NULL, 0));
  CHECK(tvm_script_builder_frame_kind(b, 0) == TVM_SCRIPT_FRAME_BLOCK_INIT);
  void* idx = tvm_tir_list_take(ref(vi), ref(vj));
  void* zero = tvm_tir_f32(0);
  CHECK_OK(tvm_script_tir_buffer_store(b, C, zero, idx));
  CHECK_OK(tvm_script_builder_exit(b));
  void* update = tvm_tir_add_take(ref(lc), tvm_tir_mul_take(ref(la), ref(lb)));
  CHECK_OK(tvm_script_tir_buffer_store(b, C, update, idx));
  for (int n = 0; n < 5; ++n) CHECK_OK(tvm_script_builder_exit(b));
  void* fn = tvm_script_builder_result(b);
  CHECK(fn != NULL);
  tvm_script_builder_free(b);
  EXPECT_EQUAL(fn, tvm_tir_testing_make_matmul("", 128, 128, 64));
  void* objs[] = {A, B, C, loops, vars, la, lb, lc, wl, idx, zero, update};
  for (size_t n = 0; n < sizeof(objs) / sizeof(objs[0]); ++n) tvm_ffi_release(objs[n]);
}

TEST(loop_forms) {
  tvm_script_builder* b = tvm_script_builder_new();
  test_call tc;
  const char* iname[] = {"i"};
  /* T.serial(2, 10): min 2, extent 8. */
  TVMFFIAny range[2] = {tvm_ffi_any_int(2), tvm_ffi_any_int(10)};
  tvm_script_call* c = mk(&tc, b, "serial", TVM_SCRIPT_CTX_FOR, range, 2);
  with_targets(c, 1, iname);
  void* i = RUN_OK(c);
  CHECK(i && strcmp(tvm_tir_var_name(i), "i") == 0);
  /* T.thread_binding(32, "threadIdx.x"): the tag given as stop. */
  TVMFFIAny tb[2] = {tvm_ffi_any_int(32), tvm_ffi_any_raw_str("threadIdx.x")};
  void* tx = RUN_OK(mk(&tc, b, "thread_binding", TVM_SCRIPT_CTX_FOR, tb, 2));
  /* T.vectorized(4, annotations={"k": 1}) */
  TVMFFIAny key = tvm_ffi_any_raw_str("k"), one = tvm_ffi_any_int(1), k_owned;
  CHECK_OK(tvm_ffi_any_to_owned(&key, &k_owned));
  void* ann = tvm_ffi_map_new(&k_owned, &one, 1);
  TVMFFIAny four = tvm_ffi_any_int(4), ann_a = tvm_ffi_any_obj(ann);
  const char* kw[] = {"annotations"};
  c = mk(&tc, b, "vectorized", TVM_SCRIPT_CTX_FOR, &four, 1);
  with_kwargs(c, 1, kw, &ann_a);
  void* v = RUN_OK(c);
  TVMFFIAny ev = tvm_ffi_any_obj(v);
  RUN_OK(mk(&tc, b, "evaluate", TVM_SCRIPT_CTX_STMT, &ev, 1));
  for (int n = 0; n < 3; ++n) CHECK_OK(tvm_script_builder_exit(b));
  void* stmt = tvm_script_builder_result(b);
  tvm_script_builder_free(b);
  CHECK(tvm_tir_kind_of(stmt) == TVM_TIR_KIND_For);
  if (tvm_tir_kind_of(stmt) == TVM_TIR_KIND_For) {
    const tvm_tir_for_obj* f = stmt;
    int64_t mn = -1, ex = -1;
    CHECK(tvm_tir_as_const_int(f->min, &mn) && mn == 2);
    CHECK(tvm_tir_as_const_int(f->extent, &ex) && ex == 8);
    const tvm_tir_for_obj* g = (const void*)f->body;
    CHECK(g->kind == TVM_TIR_FOR_THREAD_BINDING && g->thread_binding &&
          strcmp(tvm_ffi_str_cstr(g->thread_binding->thread_tag), "threadIdx.x") == 0);
    const tvm_tir_for_obj* h = (const void*)g->body;
    CHECK(h->kind == TVM_TIR_FOR_VECTORIZED && tvm_ffi_map_size(h->annotations) == 1);
  }
  tvm_ffi_any_release(&k_owned);
  void* objs[] = {i, tx, ann, v, stmt};
  for (size_t n = 0; n < sizeof(objs) / sizeof(objs[0]); ++n) tvm_ffi_release(objs[n]);
}

TEST(buffer_keywords) {
  tvm_script_builder* b = tvm_script_builder_new();
  test_call tc;
  /* A = T.Buffer((4, 4), "float16", strides=("s0", 1), scope="shared", offset_factor=1) */
  TVMFFIAny dims[2] = {tvm_ffi_any_int(4), tvm_ffi_any_int(4)};
  void* shape = tvm_ffi_array_new(dims, 2);
  TVMFFIAny st[2] = {tvm_ffi_any_raw_str("s0"), tvm_ffi_any_int(1)}, st_owned[2];
  CHECK_OK(tvm_ffi_any_to_owned(&st[0], &st_owned[0]));
  st_owned[1] = st[1];
  void* strides = tvm_ffi_array_new(st_owned, 2);
  TVMFFIAny args[2] = {tvm_ffi_any_obj(shape), tvm_ffi_any_raw_str("float16")};
  const char* kw[] = {"strides", "scope", "offset_factor"};
  TVMFFIAny kv[3] = {tvm_ffi_any_obj(strides), tvm_ffi_any_raw_str("shared"), tvm_ffi_any_int(1)};
  const char* target[] = {"A"};
  tvm_script_call* c = mk(&tc, b, "Buffer", TVM_SCRIPT_CTX_ASSIGN, args, 2);
  with_kwargs(c, 3, kw, kv);
  with_targets(c, 1, target);
  tvm_tir_buffer_obj* A = RUN_OK(c);
  if (A) {
    CHECK_STR_EQ(tvm_tir_buffer_name(A), "A");
    CHECK_STR_EQ(tvm_tir_buffer_scope(A), "shared");
    CHECK(tvm_ffi_dtype_equal(A->dtype, TVM_TIR_FLOAT16));
    CHECK(tvm_tir_kind_of(tvm_ffi_seq_obj_at(A->strides, 0)) == TVM_TIR_KIND_Var);
    CHECK_STR_EQ(tvm_tir_var_name(tvm_ffi_seq_obj_at(A->strides, 0)), "s0");
    /* offset_factor without elem_offset: a fresh elem_offset variable (upstream). */
    CHECK(tvm_tir_kind_of(A->elem_offset) == TVM_TIR_KIND_Var);
  }
  /* A bad keyword value points at that keyword (num_args + k). */
  TVMFFIAny bad = tvm_ffi_any_raw_str("weird");
  const char* kw_bt[] = {"buffer_type"};
  c = mk(&tc, b, "Buffer", TVM_SCRIPT_CTX_EXPR, args, 2);
  with_kwargs(c, 1, kw_bt, &bad);
  FAILS(c, -1);
  CHECK_RAISED("ValueError", "buffer_type");
  TVMFFIAny not_int = tvm_ffi_any_raw_str("x");
  const char* kw_al[] = {"align"};
  c = mk(&tc, b, "Buffer", TVM_SCRIPT_CTX_EXPR, args, 2);
  with_kwargs(c, 1, kw_al, &not_int);
  FAILS(c, 2);
  CHECK_RAISED("TypeError", "align");
  tvm_script_builder_free(b);
  tvm_ffi_any_release(&st_owned[0]);
  void* objs[] = {shape, strides, A};
  for (size_t n = 0; n < sizeof(objs) / sizeof(objs[0]); ++n) tvm_ffi_release(objs[n]);
}

/* Inside a block, T.match_buffer(A[0:2, 0:2]) takes the region's shape; T.sblock_alloc_buffer
 * allocates in the block. */
TEST(block_buffers) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  tvm_tir_buffer_obj* A = buffer_param(b, "A", 4, 4);
  test_call tc;
  TVMFFIAny name = tvm_ffi_any_raw_str("blk");
  RUN_OK(mk(&tc, b, "block", TVM_SCRIPT_CTX_WITH, &name, 1)); /* the old spelling */
  void* region = tvm_tir_region_take(ref(A), tvm_tir_range_take(tvm_tir_int(0), tvm_tir_int(2)),
                                     tvm_tir_range_take(tvm_tir_int(2), tvm_tir_int(2)));
  TVMFFIAny ra = tvm_ffi_any_obj(region);
  const char* sname[] = {"S"};
  tvm_script_call* c = mk(&tc, b, "match_buffer", TVM_SCRIPT_CTX_ASSIGN, &ra, 1);
  with_targets(c, 1, sname);
  tvm_tir_buffer_obj* S = RUN_OK(c);
  CHECK(S && tvm_tir_buffer_ndim(S) == 2);
  TVMFFIAny dims = tvm_ffi_any_int(8);
  const char* tname[] = {"T_local"};
  c = mk(&tc, b, "sblock_alloc_buffer", TVM_SCRIPT_CTX_ASSIGN, &dims, 1);
  with_targets(c, 1, tname);
  tvm_tir_buffer_obj* L = RUN_OK(c);
  TVMFFIAny attrs_k = tvm_ffi_any_raw_str("meta"), attrs_v = tvm_ffi_any_int(3), ko;
  CHECK_OK(tvm_ffi_any_to_owned(&attrs_k, &ko));
  void* attrs = tvm_ffi_map_new(&ko, &attrs_v, 1);
  TVMFFIAny aa = tvm_ffi_any_obj(attrs);
  RUN_OK(mk(&tc, b, "block_attr", TVM_SCRIPT_CTX_STMT, &aa, 1));
  void* idx = tvm_tir_list_take(tvm_tir_int(0), tvm_tir_int(0));
  void* one = tvm_tir_f32(1);
  CHECK_OK(tvm_script_tir_buffer_store(b, S, one, idx));
  CHECK_OK(tvm_script_builder_exit(b));
  CHECK_OK(tvm_script_builder_exit(b));
  tvm_tir_prim_func_obj* fn = tvm_script_builder_result(b);
  tvm_script_builder_free(b);
  CHECK(fn != NULL);
  if (fn) {
    CHECK(tvm_tir_verify_well_formed(fn) == 0);
    /* No root allocations and no root requested: the block realize is the body. */
    const tvm_tir_sblock_obj* blk = ((const tvm_tir_sblock_realize_obj*)fn->body)->block;
    CHECK_STR_EQ(tvm_ffi_str_cstr(blk->name_hint), "blk");
    CHECK_EQ_INT(tvm_ffi_seq_size(blk->match_buffers), 1);
    CHECK(tvm_ffi_seq_size(blk->alloc_buffers) == 1 &&
          tvm_ffi_seq_obj_at(blk->alloc_buffers, 0) == (void*)L);
    CHECK_EQ_INT(tvm_ffi_map_size(blk->annotations), 1);
  }
  tvm_ffi_any_release(&ko);
  void* objs[] = {A, region, S, L, attrs, idx, one, fn};
  for (size_t n = 0; n < sizeof(objs) / sizeof(objs[0]); ++n) tvm_ffi_release(objs[n]);
}

/* Scoped statements in their statement forms, printed. */
TEST(scoped_statements) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  CHECK_OK(tvm_script_tir_func_name(b, "scoped"));
  tvm_tir_buffer_obj* A = buffer_param(b, "A", 16, 0);
  test_call tc;
  /* buf = T.allocate([16], "float32", "shared") */
  TVMFFIAny e16 = tvm_ffi_any_int(16);
  void* ext = tvm_ffi_array_new(&e16, 1);
  TVMFFIAny al[3] = {tvm_ffi_any_obj(ext), tvm_ffi_any_raw_str("float32"),
                     tvm_ffi_any_raw_str("shared")};
  const char* bname[] = {"buf"};
  tvm_script_call* c = mk(&tc, b, "allocate", TVM_SCRIPT_CTX_ASSIGN, al, 3);
  with_targets(c, 1, bname);
  void* buf = RUN_OK(c);
  CHECK(tvm_script_builder_frame_kind(b, 0) == TVM_SCRIPT_FRAME_ALLOCATE);
  /* tx = T.env_thread("threadIdx.x"); T.launch_thread(tx, 16) */
  TVMFFIAny tag = tvm_ffi_any_raw_str("threadIdx.x");
  const char* txname[] = {"tx"};
  c = mk(&tc, b, "env_thread", TVM_SCRIPT_CTX_ASSIGN, &tag, 1);
  with_targets(c, 1, txname);
  void* tx = RUN_OK(c);
  TVMFFIAny lt[2] = {tvm_ffi_any_obj(tx), tvm_ffi_any_int(16)};
  /* As an expression statement it gives None (a Var would become a T.evaluate). */
  void* tx2 = RUN_OK(mk(&tc, b, "launch_thread", TVM_SCRIPT_CTX_STMT, lt, 2));
  CHECK(tx2 == NULL);
  CHECK(tvm_script_builder_frame_kind(b, 0) == TVM_SCRIPT_FRAME_LAUNCH_THREAD);
  /* T.attr(buf, "storage_alignment", 128) as a statement */
  TVMFFIAny at[3] = {tvm_ffi_any_obj(buf), tvm_ffi_any_raw_str("storage_alignment"),
                     tvm_ffi_any_int(128)};
  RUN_OK(mk(&tc, b, "attr", TVM_SCRIPT_CTX_STMT, at, 3));
  /* with T.LetStmt(tx * 2) as y: with T.Assert(y < 32, "small"): with T.If(y > 4): ... */
  void* tx2e = tvm_tir_mul_take(ref(tx), tvm_tir_int(2));
  TVMFFIAny lv = tvm_ffi_any_obj(tx2e);
  const char* yname[] = {"y"};
  c = mk(&tc, b, "LetStmt", TVM_SCRIPT_CTX_WITH, &lv, 1);
  with_targets(c, 1, yname);
  void* y = RUN_OK(c);
  void* cond = tvm_tir_lt_take(ref(y), tvm_tir_int(32));
  TVMFFIAny as[2] = {tvm_ffi_any_obj(cond), tvm_ffi_any_raw_str("small")};
  RUN_OK(mk(&tc, b, "Assert", TVM_SCRIPT_CTX_WITH, as, 2));
  void* c4 = tvm_tir_gt_take(ref(y), tvm_tir_int(4));
  TVMFFIAny ca = tvm_ffi_any_obj(c4);
  RUN_OK(mk(&tc, b, "If", TVM_SCRIPT_CTX_WITH, &ca, 1));
  RUN_OK(mk(&tc, b, "Then", TVM_SCRIPT_CTX_WITH, NULL, 0));
  void* idx = tvm_tir_list_take(ref(tx));
  void* one = tvm_tir_f32(1);
  CHECK_OK(tvm_script_tir_buffer_store(b, A, one, idx));
  CHECK_OK(tvm_script_builder_exit(b));
  RUN_OK(mk(&tc, b, "Else", TVM_SCRIPT_CTX_WITH, NULL, 0));
  RUN_OK(mk(&tc, b, "While", TVM_SCRIPT_CTX_WITH, &ca, 1));
  CHECK_OK(tvm_script_tir_buffer_store(b, A, one, idx));
  for (int n = 0; n < 6; ++n) CHECK_OK(tvm_script_builder_exit(b)); /* while..function */
  void* fn = tvm_script_builder_result(b);
  tvm_script_builder_free(b);
  CHECK(fn != NULL);
  if (fn) {
    tvm_script_print_options opts;
    tvm_script_print_options_init(&opts);
    opts.print_header = false;
    TVMFFIAny fa = tvm_ffi_any_obj(fn);
    void* s = tvm_script_print(&fa, &opts);
    CHECK_STR_EQ(s ? tvm_ffi_str_cstr(s) : NULL,
                 "@T.prim_func\n"
                 "def scoped(A: T.Buffer((16,), \"float32\")):\n"
                 "    buf = T.allocate([16], \"float32\", \"shared\")\n"
                 "    tx = T.launch_thread(\"threadIdx.x\", 16)\n"
                 "    T.attr(buf, \"storage_alignment\", 128)\n"
                 "    y: T.int32 = tx * 2\n"
                 "    assert y < 32, \"small\"\n"
                 "    if y > 4:\n"
                 "        A[tx] = T.float32(1.0)\n"
                 "    else:\n"
                 "        while y > 4:\n"
                 "            A[tx] = T.float32(1.0)");
    tvm_ffi_release(s);
  }
  void* objs[] = {A, ext, buf, tx, tx2, tx2e, y, cond, c4, idx, one, fn};
  for (size_t n = 0; n < sizeof(objs) / sizeof(objs[0]); ++n) tvm_ffi_release(objs[n]);
}

/* T.realize(A[0:8], "global") and y = T.bind(x + 1) as rest-of-body statements. */
TEST(realize_and_bind) {
  tvm_script_builder* b = tvm_script_builder_new();
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  CHECK_OK(tvm_script_tir_func_name(b, "r"));
  tvm_tir_buffer_obj* A = buffer_param(b, "A", 8, 0);
  test_call tc;
  void* region = tvm_tir_region_take(ref(A), tvm_tir_range_take(tvm_tir_int(0), tvm_tir_int(8)));
  TVMFFIAny ra[2] = {tvm_ffi_any_obj(region), tvm_ffi_any_raw_str("global")};
  RUN_OK(mk(&tc, b, "realize", TVM_SCRIPT_CTX_STMT, ra, 2));
  CHECK(tvm_script_builder_frame_kind(b, 0) == TVM_SCRIPT_FRAME_REALIZE);
  /* A scope that is not the buffer's is a ValueError. */
  TVMFFIAny bad[2] = {tvm_ffi_any_obj(region), tvm_ffi_any_raw_str("shared")};
  FAILS(mk(&tc, b, "realize", TVM_SCRIPT_CTX_STMT, bad, 2), -1);
  CHECK_RAISED("ValueError", "scope");
  void* x = tvm_tir_add_take(tvm_tir_int(3), tvm_tir_var("n", TVM_TIR_INT32));
  const char* yname[] = {"y"};
  TVMFFIAny xa = tvm_ffi_any_obj(x);
  tvm_script_call* c = mk(&tc, b, "bind", TVM_SCRIPT_CTX_ASSIGN, &xa, 1);
  with_targets(c, 1, yname);
  void* y = RUN_OK(c);
  CHECK(y && strcmp(tvm_tir_var_name(y), "y") == 0);
  TVMFFIAny ya = tvm_ffi_any_obj(y);
  RUN_OK(mk(&tc, b, "evaluate", TVM_SCRIPT_CTX_STMT, &ya, 1));
  CHECK_OK(tvm_script_builder_exit(b));
  tvm_tir_prim_func_obj* fn = tvm_script_builder_result(b);
  tvm_script_builder_free(b);
  CHECK(fn && tvm_tir_kind_of(fn->body) == TVM_TIR_KIND_BufferRealize);
  if (fn) {
    const tvm_tir_buffer_realize_obj* r = (const void*)fn->body;
    CHECK(r->buffer == A);
    CHECK(tvm_tir_kind_of(r->body) == TVM_TIR_KIND_LetStmt);
  }
  void* objs[] = {A, region, x, y, fn};
  for (size_t n = 0; n < sizeof(objs) / sizeof(objs[0]); ++n) tvm_ffi_release(objs[n]);
}

TEST(bad_calls) {
  tvm_script_builder* b = tvm_script_builder_new();
  test_call tc;
  TVMFFIAny name = tvm_ffi_any_raw_str("b");
  /* Frame builtins outside their statement form. */
  FAILS(mk(&tc, b, "sblock", TVM_SCRIPT_CTX_STMT, &name, 1), -1);
  CHECK_RAISED("ValueError", "T.sblock(...) is only valid as a `with` item");
  TVMFFIAny n4 = tvm_ffi_any_int(4);
  FAILS(mk(&tc, b, "serial", TVM_SCRIPT_CTX_EXPR, &n4, 1), -1);
  CHECK_RAISED("ValueError", "`for` loop");
  FAILS(mk(&tc, b, "grid", TVM_SCRIPT_CTX_WITH, &n4, 1), -1);
  CHECK_RAISED("ValueError", "`for` loop");
  /* Wrong argument types point at the argument. */
  CHECK_OK(tvm_script_tir_prim_func_enter(b, false));
  FAILS(mk(&tc, b, "func_attr", TVM_SCRIPT_CTX_STMT, &n4, 1), 0);
  CHECK_RAISED("TypeError", "dict");
  TVMFFIAny two[2] = {tvm_ffi_any_raw_str("x"), tvm_ffi_any_int(4)};
  FAILS(mk(&tc, b, "serial", TVM_SCRIPT_CTX_FOR, two, 2), 0);
  CHECK_RAISED("TypeError", "");
  FAILS(mk(&tc, b, "reads", TVM_SCRIPT_CTX_STMT, &n4, 1), 0);
  CHECK_RAISED("TypeError", "");
  /* T.reads outside a block (the builder's error). */
  FAILS(mk(&tc, b, "reads", TVM_SCRIPT_CTX_STMT, NULL, 0), -1);
  CHECK_RAISED("ValueError", "T.reads is only valid inside a T.sblock");
  /* Too many arguments (the binder's TypeError). */
  TVMFFIAny three[3] = {tvm_ffi_any_int(1), tvm_ffi_any_int(2), tvm_ffi_any_int(3)};
  FAILS(mk(&tc, b, "where", TVM_SCRIPT_CTX_STMT, three, 3), 1);
  CHECK_RAISED("TypeError", "T.where()");
  /* remap: kinds and names disagree; a binding that is no loop var. */
  RUN_OK(mk(&tc, b, "sblock", TVM_SCRIPT_CTX_WITH, &name, 1));
  void* q = tvm_tir_var("q", TVM_TIR_INT32);
  void* qs = tvm_ffi_array_of_objects(&q, 1);
  TVMFFIAny rm[2] = {tvm_ffi_any_raw_str("S"), tvm_ffi_any_obj(qs)};
  const char* names2[] = {"a", "b"};
  tvm_script_call* c = mk(&tc, b, "axis.remap", TVM_SCRIPT_CTX_ASSIGN, rm, 2);
  with_targets(c, 2, names2);
  FAILS(c, -1);
  CHECK_RAISED("ValueError", "assigned to 2 names");
  c = mk(&tc, b, "axis.remap", TVM_SCRIPT_CTX_ASSIGN, rm, 2);
  with_targets(c, 1, names2);
  FAILS(c, 1);
  CHECK_RAISED("ValueError", "not the variable of an enclosing loop");
  /* T.axis.spatial without a binding in a realized block. */
  c = mk(&tc, b, "axis.spatial", TVM_SCRIPT_CTX_ASSIGN, &n4, 1);
  with_targets(c, 1, names2);
  FAILS(c, -1);
  CHECK_RAISED("ValueError", "needs a binding");
  tvm_script_builder_free(b);
  tvm_ffi_release(q);
  tvm_ffi_release(qs);
}

int main(void) {
  RUN(matmul_through_builtins);
  RUN(loop_forms);
  RUN(buffer_keywords);
  RUN(block_buffers);
  RUN(scoped_statements);
  RUN(realize_and_bind);
  RUN(bad_calls);
  return test_summary();
}

/*
 * test_distributed_ops.c: ordinary operators on DTensor arguments (librelax's
 * op_distributed_infer.c, upstream's dist.FInferStructInfo): the result's placement by each
 * kind of rule (elementwise, broadcast, matmul, permute_dims, reshape, reductions, softmax,
 * allreduce) on 1-d and 2-d meshes, the errors (a plain tensor among DTensors, two meshes, a
 * mesh-dim conflict, an operator without a rule, a mapping that needs an unknown shape), the
 * annotated bindings of a module, R.dist.const, and LegalizeOps refusing such calls.
 */
#include <string.h>
#include <tvm/relax/distributed.h>
#include <tvm/relax/relax.h>
#include <tvm/script/printer.h>

#include "relax_testing.h"
#include "script_testing.h"

#define I32 tvm_tir_dtype_int(32)

static tvm_relax_device_mesh_obj* mesh(int64_t d0, int64_t d1, int64_t first_id) {
  TVMFFIAny shape[2] = {tvm_ffi_any_int(d0), tvm_ffi_any_int(d1)}, ids[8];
  int64_t nd = d1 ? 2 : 1, count = d0 * (d1 ? d1 : 1);
  for (int64_t i = 0; i < count; ++i) ids[i] = tvm_ffi_any_int(first_id + i);
  void* s = tvm_ffi_array_new(shape, nd);
  void* l = tvm_ffi_array_new(ids, count);
  tvm_relax_device_mesh_obj* m = tvm_relax_device_mesh_new(s, l, NULL);
  tvm_ffi_release(s), tvm_ffi_release(l);
  return m;
}

/* A variable of struct info R.DTensor(dims, dtype, m, placement); dims NULL: unknown shape of
 * rank nd. */
static tvm_relax_var_obj* dvar(const int64_t* dims, int32_t nd, DLDataType dtype,
                               tvm_relax_device_mesh_obj* m, const char* placement) {
  tvm_relax_sinfo_obj* t = dims ? tvm_relax_tensor_sinfo_of_ints(dims, nd, dtype)
                                : tvm_relax_tensor_sinfo_new(NULL, dtype, nd, NULL);
  void* p = tvm_relax_placement_parse(placement, strlen(placement));
  tvm_relax_sinfo_obj* s = t && p ? tvm_relax_dtensor_sinfo_new(t, m, p) : NULL;
  tvm_relax_var_obj* v = s ? tvm_relax_var_new("v", s, false) : NULL;
  tvm_ffi_release(t), tvm_ffi_release(p), tvm_ffi_release(s);
  CHECK(v != NULL);
  return v;
}

static tvm_relax_var_obj* tvar(const int64_t* dims, int32_t nd) {
  tvm_relax_sinfo_obj* t = tvm_relax_tensor_sinfo_of_ints(dims, nd, F32);
  tvm_relax_var_obj* v = tvm_relax_var_new("t", t, false);
  tvm_ffi_release(t);
  return v;
}


/* An attribute map {k: v} (v consumed). */
static void* attr1(const char* k, TVMFFIAny v) {
  TVMFFIAny key = tvm_ffi_string(k);
  void* m = tvm_ffi_map_new(&key, &v, 1);
  tvm_ffi_any_release(&key), tvm_ffi_any_release(&v);
  return m;
}

static TVMFFIAny int_list(const int64_t* v, int64_t n) {
  TVMFFIAny items[8];
  for (int64_t i = 0; i < n; ++i) items[i] = tvm_ffi_any_int(v[i]);
  return tvm_ffi_any_obj(tvm_ffi_array_new(items, n));
}

#define DT(text) "R.DTensor(" text

TEST(matmul) {
  tvm_relax_device_mesh_obj* m = mesh(2, 0, 0);
  int64_t sq[] = {128, 128};
  tvm_relax_var_obj *r = dvar(sq, 2, F32, m, "R"), *s0 = dvar(sq, 2, F32, m, "S[0]");
  tvm_relax_var_obj* s1 = dvar(sq, 2, F32, m, "S[1]");
  /* N of x2 sharded: the result's columns; M of x1: its rows; K on both: replicated */
  rt_check_call(tvm_relax_call_op("relax.matmul", NULL, 2, r, s1),
             DT("(128, 128), dtype=\"float32\", mesh(2), \"S[1]\")"));
  rt_check_call(tvm_relax_call_op("relax.matmul", NULL, 2, s0, r),
             DT("(128, 128), dtype=\"float32\", mesh(2), \"S[0]\")"));
  rt_check_call(tvm_relax_call_op("relax.matmul", NULL, 2, s1, s0),
             DT("(128, 128), dtype=\"float32\", mesh(2), \"R\")"));
  /* M and N on one mesh dim: no device holds a block of the result */
  rt_check_call(tvm_relax_call_op("relax.matmul", NULL, 2, s0, s1),
             "<ValueError: relax.matmul: arguments 'x1' and 'x2' shard mesh dim 0 along axes that "
             "go to different axes of the result (0 and 1)");
  /* batch dims broadcast: x1 (4, 1, 16, 8) sharded on its batch axis 0, x2 (3, 8, 32) */
  int64_t b1[] = {4, 1, 16, 8}, b2[] = {3, 8, 32}, v1[] = {8};
  tvm_relax_var_obj* xb = dvar(b1, 4, F32, m, "S[0]");
  tvm_relax_var_obj* yb = dvar(b2, 3, F32, m, "S[0]");
  tvm_relax_var_obj* yn = dvar(b2, 3, F32, m, "S[2]");
  rt_check_call(tvm_relax_call_op("relax.matmul", NULL, 2, xb, yn),
             "<ValueError: relax.matmul: arguments 'x1' and 'x2' shard mesh dim 0 along axes that "
             "go to different axes of the result (0 and 3)");
  rt_check_call(tvm_relax_call_op("relax.matmul", NULL, 2, xb, yb),
             "<ValueError: relax.matmul: arguments 'x1' and 'x2' shard mesh dim 0 along axes that "
             "go to different axes of the result (0 and 1)");
  tvm_relax_var_obj* xr = dvar(b1, 4, F32, m, "R");
  rt_check_call(tvm_relax_call_op("relax.matmul", NULL, 2, xr, yb),
             DT("(4, 3, 16, 32), dtype=\"float32\", mesh(2), \"S[1]\")"));
  rt_check_call(tvm_relax_call_op("relax.matmul", NULL, 2, xr, yn),
             DT("(4, 3, 16, 32), dtype=\"float32\", mesh(2), \"S[3]\")"));
  /* a 1-d x2 (a column): x1's M is the last axis of the result */
  tvm_relax_var_obj* col = dvar(v1, 1, F32, m, "S[0]");
  rt_check_call(tvm_relax_call_op("relax.matmul", NULL, 2, xb, col),
             DT("(4, 1, 16), dtype=\"float32\", mesh(2), \"S[0]\")"));
  /* the ordinary rule's checks still apply */
  int64_t bad[] = {64, 32};
  tvm_relax_var_obj* kb = dvar(bad, 2, F32, m, "R");
  rt_check_call(tvm_relax_call_op("relax.matmul", NULL, 2, r, kb),
             "<ValueError: relax.matmul: the reduction dims differ");
  tvm_ffi_release(r), tvm_ffi_release(s0), tvm_ffi_release(s1), tvm_ffi_release(xb);
  tvm_ffi_release(yb), tvm_ffi_release(yn), tvm_ffi_release(xr), tvm_ffi_release(col);
  tvm_ffi_release(kb), tvm_ffi_release(m);
}

TEST(elementwise_and_broadcast) {
  tvm_relax_device_mesh_obj *m = mesh(2, 0, 0), *m2 = mesh(2, 2, 0);
  int64_t d48[] = {4, 8}, d8[] = {8}, d18[] = {1, 8}, d3[] = {2, 4, 8};
  tvm_relax_var_obj* a = dvar(d48, 2, F32, m, "S[1]");
  rt_check_call(tvm_relax_call_op("relax.nn.gelu", NULL, 1, a),
             DT("(4, 8), dtype=\"float32\", mesh(2), \"S[1]\")"));
  rt_check_call(tvm_relax_call_op("relax.isnan", NULL, 1, a),
             DT("(4, 8), dtype=\"bool\", mesh(2), \"S[1]\")"));
  /* a rank difference: axes aligned from the right */
  tvm_relax_var_obj* v = dvar(d8, 1, F32, m, "S[0]");
  rt_check_call(tvm_relax_call_op("relax.add", NULL, 2, a, v),
             DT("(4, 8), dtype=\"float32\", mesh(2), \"S[1]\")"));
  rt_check_call(tvm_relax_call_op("relax.less", NULL, 2, v, a),
             DT("(4, 8), dtype=\"bool\", mesh(2), \"S[1]\")"));
  tvm_relax_var_obj* a0 = dvar(d48, 2, F32, m, "S[0]");
  rt_check_call(tvm_relax_call_op("relax.subtract", NULL, 2, a0, v),
             "<ValueError: relax.subtract: arguments 'x1' and 'x2' shard mesh dim 0 along axes "
             "that go to different axes of the result (0 and 1)");
  tvm_relax_var_obj* t3 = dvar(d3, 3, F32, m, "S[0]");
  rt_check_call(tvm_relax_call_op("relax.multiply", NULL, 2, v, t3),
             "<ValueError: relax.multiply: arguments 'x1' and 'x2' shard mesh dim 0 along axes "
             "that go to different axes of the result (2 and 0)");
  /* an axis of extent 1 that the result broadcasts maps to nothing */
  tvm_relax_var_obj* one = dvar(d18, 2, F32, m, "S[0]");
  tvm_relax_var_obj* ar = dvar(d48, 2, F32, m, "R");
  rt_check_call(tvm_relax_call_op("relax.maximum", NULL, 2, one, ar),
             DT("(4, 8), dtype=\"float32\", mesh(2), \"R\")"));
  rt_check_call(tvm_relax_call_op("relax.maximum", NULL, 2, one, a0),
             DT("(4, 8), dtype=\"float32\", mesh(2), \"S[0]\")"));
  /* a 2-d mesh: each mesh dim on its own */
  tvm_relax_var_obj* p = dvar(d48, 2, F32, m2, "S[0], R");
  tvm_relax_var_obj* q = dvar(d8, 1, F32, m2, "R, S[0]");
  rt_check_call(tvm_relax_call_op("relax.divide", NULL, 2, p, q),
             DT("(4, 8), dtype=\"float32\", mesh(2, 2), \"S[0], S[1]\")"));
  tvm_relax_var_obj* pp = dvar(d48, 2, F32, m2, "S[0], S[0]");
  rt_check_call(tvm_relax_call_op("relax.add", NULL, 2, pp, pp),
             DT("(4, 8), dtype=\"float32\", mesh(2, 2), \"S[0], S[0]\")"));
  /* one result axis over different mesh dims by different arguments */
  tvm_relax_var_obj* r0 = dvar(d48, 2, F32, m2, "R, S[0]");
  rt_check_call(tvm_relax_call_op("relax.add", NULL, 2, p, r0),
             "<ValueError: relax.add: argument 'x1' shards the result's axis 0 over mesh dims [0], "
             "another argument over [1]");
  rt_check_call(tvm_relax_call_op("relax.add", NULL, 2, pp, p),
             "<ValueError: relax.add: argument 'x2' shards the result's axis 0 over mesh dims [0], "
             "another argument over [1]");
  /* a scalar R.Prim beside a DTensor */
  tvm_tir_expr_obj* two = tvm_tir_const_float(F32, 2.0);
  tvm_relax_expr_obj* pv = tvm_relax_prim_value_new(two);
  rt_check_call(tvm_relax_call_op("relax.power", NULL, 2, a, pv),
             DT("(4, 8), dtype=\"float32\", mesh(2), \"S[1]\")"));
  /* the ordinary rule's dtype checks */
  tvm_relax_var_obj* ia = dvar(d48, 2, I32, m, "S[1]");
  rt_check_call(tvm_relax_call_op("relax.sqrt", NULL, 1, ia),
             "<TypeError: relax.sqrt: argument 'x' must be a float tensor, got dtype int32");
  tvm_ffi_release(two), tvm_ffi_release(pv), tvm_ffi_release(ia), tvm_ffi_release(r0);
  tvm_ffi_release(a), tvm_ffi_release(v), tvm_ffi_release(a0), tvm_ffi_release(t3);
  tvm_ffi_release(one), tvm_ffi_release(ar), tvm_ffi_release(p), tvm_ffi_release(q);
  tvm_ffi_release(pp), tvm_ffi_release(m), tvm_ffi_release(m2);
}

TEST(manipulation) {
  tvm_relax_device_mesh_obj* m = mesh(2, 0, 0);
  int64_t d3[] = {2, 3, 4}, d816[] = {8, 16};
  tvm_relax_var_obj* x = dvar(d3, 3, F32, m, "S[0]");
  int64_t perm[] = {1, 2, 0}, back[] = {-1, 0, 1};
  void* a = attr1("axes", int_list(perm, 3));
  rt_check_call(tvm_relax_call_op("relax.permute_dims", a, 1, x),
             DT("(3, 4, 2), dtype=\"float32\", mesh(2), \"S[2]\")"));
  tvm_ffi_release(a);
  a = attr1("axes", int_list(back, 3));
  rt_check_call(tvm_relax_call_op("relax.permute_dims", a, 1, x),
             DT("(4, 2, 3), dtype=\"float32\", mesh(2), \"S[1]\")"));
  tvm_ffi_release(a);
  rt_check_call(tvm_relax_call_op("relax.permute_dims", NULL, 1, x),
             DT("(4, 3, 2), dtype=\"float32\", mesh(2), \"S[2]\")"));
  /* reshape: a split or merged group keeps the shard of its outer axis */
  tvm_relax_var_obj *y0 = dvar(d816, 2, F32, m, "S[0]"), *y1 = dvar(d816, 2, F32, m, "S[1]");
  int64_t split0[] = {2, 4, 16}, flat[] = {128}, split1[] = {8, 4, 4}, swap[] = {16, 8};
  tvm_relax_expr_obj* s = tvm_relax_shape_expr_of_ints(split0, 3);
  rt_check_call(tvm_relax_call_op("relax.reshape", NULL, 2, y0, s),
             DT("(2, 4, 16), dtype=\"float32\", mesh(2), \"S[0]\")"));
  tvm_ffi_release(s);
  s = tvm_relax_shape_expr_of_ints(flat, 1);
  rt_check_call(tvm_relax_call_op("relax.reshape", NULL, 2, y0, s),
             DT("(128,), dtype=\"float32\", mesh(2), \"S[0]\")"));
  rt_check_call(tvm_relax_call_op("relax.reshape", NULL, 2, y1, s),
             DT("(128,), dtype=\"float32\", mesh(2), \"R\")"));
  tvm_ffi_release(s);
  s = tvm_relax_shape_expr_of_ints(split1, 3);
  rt_check_call(tvm_relax_call_op("relax.reshape", NULL, 2, y1, s),
             DT("(8, 4, 4), dtype=\"float32\", mesh(2), \"S[1]\")"));
  tvm_ffi_release(s);
  s = tvm_relax_shape_expr_of_ints(swap, 2);
  rt_check_call(tvm_relax_call_op("relax.reshape", NULL, 2, y0, s),
             DT("(16, 8), dtype=\"float32\", mesh(2), \"S[0]\")"));
  rt_check_call(tvm_relax_call_op("relax.reshape", NULL, 2, y1, s),
             DT("(16, 8), dtype=\"float32\", mesh(2), \"R\")"));
  /* an unknown shape cannot tell where a shard goes */
  tvm_relax_var_obj* u = dvar(NULL, 2, F32, m, "S[1]");
  rt_check_call(tvm_relax_call_op("relax.reshape", NULL, 2, u, s),
             "<ValueError: relax.reshape: argument 'x' is sharded along axis 1 (mesh dim 0), and "
             "where that axis goes in the result needs the rank and shapes");
  tvm_relax_var_obj* ur = dvar(NULL, 2, F32, m, "R");
  rt_check_call(tvm_relax_call_op("relax.reshape", NULL, 2, ur, s),
             DT("(16, 8), dtype=\"float32\", mesh(2), \"R\")"));
  tvm_ffi_release(s);
  tvm_ffi_release(x), tvm_ffi_release(y0), tvm_ffi_release(y1), tvm_ffi_release(u);
  tvm_ffi_release(ur), tvm_ffi_release(m);
}

TEST(reductions) {
  tvm_relax_device_mesh_obj* m2 = mesh(2, 2, 0);
  int64_t d[] = {4, 8, 16}, ax1[] = {1}, ax2[] = {-1}, ax02[] = {0, 2};
  tvm_relax_var_obj* x = dvar(d, 3, F32, m2, "S[0], S[2]");
  void* a = attr1("axis", int_list(ax1, 1));
  rt_check_call(tvm_relax_call_op("relax.sum", a, 1, x),
             DT("(4, 16), dtype=\"float32\", mesh(2, 2), \"S[0], S[1]\")"));
  tvm_ffi_release(a);
  a = attr1("axis", int_list(ax2, 1));
  rt_check_call(tvm_relax_call_op("relax.mean", a, 1, x),
             DT("(4, 8), dtype=\"float32\", mesh(2, 2), \"S[0], R\")"));
  tvm_ffi_release(a);
  TVMFFIAny keys[2] = {tvm_ffi_string("axis"), tvm_ffi_string("keepdims")};
  TVMFFIAny vals[2] = {int_list(ax02, 2), tvm_ffi_any_bool(true)};
  a = tvm_ffi_map_new(keys, vals, 2);
  for (int i = 0; i < 2; ++i) tvm_ffi_any_release(&keys[i]), tvm_ffi_any_release(&vals[i]);
  rt_check_call(tvm_relax_call_op("relax.max", a, 1, x),
             DT("(1, 8, 1), dtype=\"float32\", mesh(2, 2), \"R, R\")"));
  tvm_ffi_release(a);
  rt_check_call(tvm_relax_call_op("relax.variance", NULL, 1, x),
             DT("(), dtype=\"float32\", mesh(2, 2), \"R, R\")"));
  /* softmax: its axis replicated, the others kept */
  rt_check_call(tvm_relax_call_op("relax.nn.softmax", NULL, 1, x),
             DT("(4, 8, 16), dtype=\"float32\", mesh(2, 2), \"S[0], R\")"));
  a = attr1("axis", tvm_ffi_any_int(1));
  rt_check_call(tvm_relax_call_op("relax.nn.softmax", a, 1, x),
             DT("(4, 8, 16), dtype=\"float32\", mesh(2, 2), \"S[0], S[2]\")"));
  tvm_ffi_release(a);
  /* allreduce: replicated everywhere */
  rt_check_call(tvm_relax_call_op("relax.ccl.allreduce", NULL, 1, x),
             DT("(4, 8, 16), dtype=\"float32\", mesh(2, 2), \"R, R\")"));
  tvm_ffi_release(x), tvm_ffi_release(m2);
}

TEST(argument_errors) {
  tvm_relax_device_mesh_obj *m = mesh(2, 0, 0), *other = mesh(2, 0, 4);
  int64_t d[] = {4, 8};
  tvm_relax_var_obj *x = dvar(d, 2, F32, m, "S[0]"), *t = tvar(d, 2);
  tvm_relax_var_obj* y = dvar(d, 2, F32, other, "R");
  rt_check_call(tvm_relax_call_op("relax.add", NULL, 2, x, t),
             "<TypeError: relax.add: argument 'x2' is a tensor (R.Tensor((4, 8), "
             "dtype=\"float32\")) but 'x1' is a DTensor: a distributed operator takes DTensors "
             "only");
  rt_check_call(tvm_relax_call_op("relax.matmul", NULL, 2, t, x),
             "<TypeError: relax.matmul: argument 'x1' is a tensor");
  rt_check_call(tvm_relax_call_op("relax.add", NULL, 2, x, y),
             "<ValueError: relax.add: arguments 'x1' and 'x2' are on different device meshes: "
             "R.device_mesh((2,), [0, 1]) and R.device_mesh((2,), [4, 5])");
  /* an operator without a distributed rule */
  rt_check_call(tvm_relax_call_op("relax.cumsum", NULL, 1, x),
             "<TypeError: relax.cumsum: argument 'data' is a DTensor (R.DTensor((4, 8), "
             "dtype=\"float32\", mesh(2), \"S[0]\")), and the operator has no distributed "
             "inference rule");
  rt_check_call(tvm_relax_call_op("relax.concat", NULL, 1, x), "<TypeError: relax.concat");
  /* the dist operators keep their own rules */
  rt_check_call(tvm_relax_call_op("relax.builtin.stop_lift_params", NULL, 1, x),
             DT("(4, 8), dtype=\"float32\", mesh(2), \"S[0]\")"));
  tvm_ffi_release(x), tvm_ffi_release(t), tvm_ffi_release(y), tvm_ffi_release(m);
  tvm_ffi_release(other);
}

static void* parse_text(const char* text) {
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  opts.filename = "dist.py";
  return tvm_script_parse(text, strlen(text), &opts);
}

static const char kHead[] =
    "from tvm.script import ir as I\n"
    "from tvm.script import relax as R\n"
    "@I.ir_module\n"
    "class M:\n"
    "    I.module_global_infos({\"mesh\": [R.device_mesh((2,), I.Range(0, 2)),"
    " R.device_mesh((2,), I.Range(2, 4))]})\n"
    "    @R.function\n";

static void expect_module_error(const char* body, const char* kind, const char* part) {
  char text[2048];
  snprintf(text, sizeof(text), "%s%s", kHead, body);
  void* mod = parse_text(text);
  CHECK(mod == NULL);
  tvm_ffi_release(mod);
  CHECK_RAISED(kind, part);
}

TEST(modules) {
  char text[2048];
  snprintf(text, sizeof(text), "%s%s", kHead,
           "    def f(x: R.DTensor((8, 8), \"float32\", \"mesh[0]\", \"R\"),\n"
           "          w: R.DTensor((8, 8), \"float32\", \"mesh[0]\", \"S[1]\")):\n"
           "        lv0: R.DTensor((8, 8), \"float32\", \"mesh[0]\", \"S[1]\") = "
           "R.matmul(x, w, out_dtype=\"void\")\n"
           "        lv1 = R.add(lv0, R.dist.const(2, R.DTensor((), \"float32\", \"mesh[0]\", "
           "\"R\")))\n"
           "        return lv1\n");
  void* mod = parse_text(text);
  CHECK(mod != NULL);
  CHECK_OK(tvm_relax_verify_well_formed(mod));
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; mod && (pos = tvm_ffi_map_next(((tvm_tir_ir_module_obj*)mod)->functions,
                                                       pos, &k, &v)) >= 0;) {
    tvm_ffi_strbuf b = {0};
    tvm_relax_sinfo_text(&b, tvm_relax_sinfo_of(v->v_obj));
    CHECK_STR_CONTAINS(tvm_ffi_strbuf_cstr(&b), "mesh(2), \"S[1]\")");
    tvm_ffi_strbuf_free(&b);
  }
  /* no distributed runtime: LegalizeOps refuses */
  CHECK(mod && tvm_relax_transform_legalize_ops(mod) == NULL);
  CHECK_RAISED("NotImplementedError", "parameter 'x': a DTensor parameter");
  tvm_ffi_release(mod);
  /* a DTensor reached by match_cast: the call on it is refused */
  snprintf(text, sizeof(text), "%s%s", kHead,
           "    def f(o: R.Object):\n"
           "        x = R.match_cast(o, R.DTensor((8, 8), \"float32\", \"mesh[0]\", \"S[0]\"))\n"
           "        y = R.nn.relu(x)\n"
           "        return y\n");
  mod = parse_text(text);
  CHECK(mod != NULL);
  CHECK(mod && tvm_relax_transform_legalize_ops(mod) == NULL);
  CHECK_RAISED("NotImplementedError", "binding 'y': a call on a DTensor");
  tvm_ffi_release(mod);
  /* an annotation the inference contradicts */
  expect_module_error(
      "    def f(x: R.DTensor((8, 8), \"float32\", \"mesh[0]\", \"R\"),\n"
      "          w: R.DTensor((8, 8), \"float32\", \"mesh[0]\", \"S[1]\")):\n"
      "        lv0: R.DTensor((8, 8), \"float32\", \"mesh[0]\", \"S[0]\") = R.matmul(x, w)\n"
      "        return lv0\n",
      "TypeError", "dist.py:9:");
  /* two meshes; a mix of tensors and DTensors; an operator without a rule */
  expect_module_error(
      "    def f(x: R.DTensor((8, 8), \"float32\", \"mesh[0]\", \"R\"),\n"
      "          w: R.DTensor((8, 8), \"float32\", \"mesh[1]\", \"R\")):\n"
      "        return R.add(x, w)\n",
      "ValueError",
      "dist.py:9:22: error: R.add: arguments 'x1' and 'x2' are on different device meshes: "
      "R.device_mesh((2,), [0, 1]) and R.device_mesh((2,), [2, 3])");
  expect_module_error(
      "    def f(x: R.DTensor((8, 8), \"float32\", \"mesh[0]\", \"R\"),\n"
      "          w: R.Tensor((8, 8), \"float32\")):\n"
      "        return R.matmul(x, w)\n",
      "TypeError", "dist.py:9:28: error: R.matmul: argument 'x2' is a tensor");
  expect_module_error(
      "    def f(x: R.DTensor((8, 8), \"float32\", \"mesh[0]\", \"R\")):\n"
      "        return R.nn.log_softmax(x)\n",
      "TypeError", "no distributed inference rule");
  /* R.dist.const: its struct info must be a DTensor that describes the value */
  expect_module_error(
      "    def f(x: R.DTensor((8, 8), \"float32\", \"mesh[0]\", \"R\")):\n"
      "        return R.add(x, R.dist.const(1, R.Tensor((), \"float32\")))\n",
      "TypeError", "must be an R.DTensor");
  expect_module_error(
      "    def f(x: R.DTensor((8, 8), \"float32\", \"mesh[0]\", \"R\")):\n"
      "        return R.add(x, R.dist.const(1, R.DTensor((2,), \"float32\", \"mesh[0]\", "
      "\"R\")))\n",
      "TypeError", "does not describe the data");
}

/* mod printed (constants inline up to max elements) and parsed back: structurally equal. */
static void check_roundtrip(void* mod, int64_t max, const char* contains) {
  tvm_script_print_options po;
  tvm_script_print_options_init(&po);
  po.inline_constant_max_elements = max;
  void* text = tvm_script_print_obj(mod, &po);
  CHECK(text != NULL);
  if (!text) return;
  const char* t = tvm_ffi_str_cstr(text);
  CHECK_STR_CONTAINS(t, contains);
  void* again = parse_text(t);
  CHECK(again != NULL);
  TVMFFIAny a = tvm_ffi_any_obj(mod), b = tvm_ffi_any_obj(again);
  CHECK(again && tvm_ffi_structural_equal(&a, &b, false, NULL, NULL) == 1);
  tvm_ffi_release(again);
  tvm_ffi_release(text);
}

TEST(dist_const_roundtrip) {
  char text[2048];
  snprintf(text, sizeof(text), "%s%s", kHead,
           "    def f(x: R.DTensor((4,), \"float32\", \"mesh[0]\", \"S[0]\")):\n"
           "        y = R.add(x, R.dist.const([1, 2, 3, 4], R.DTensor((4,), \"float32\", "
           "\"mesh[0]\", \"S[0]\")))\n"
           "        z = R.multiply(y, R.dist.const(2, R.DTensor((), \"float32\", \"mesh[0]\", "
           "\"R\")))\n"
           "        return z\n");
  void* mod = parse_text(text);
  CHECK(mod != NULL);
  if (!mod) return;
  check_roundtrip(mod, 16,
                  "R.dist.const([1.0, 2.0, 3.0, 4.0], R.DTensor((4,), \"float32\", \"mesh[0]\", "
                  "\"S[0]\"))");
  /* the vector in the metadata section, the scalar inline */
  check_roundtrip(mod, 0, "R.dist.const(2.0, R.DTensor((), \"float32\", \"mesh[0]\", \"R\"))");
  check_roundtrip(mod, 0, "metadata[\"relax.expr.Constant\"][0]");
  tvm_ffi_release(mod);
}

int main(void) {
  RUN(matmul);
  RUN(elementwise_and_broadcast);
  RUN(manipulation);
  RUN(reductions);
  RUN(argument_errors);
  RUN(modules);
  RUN(dist_const_roundtrip);
  return test_summary();
}

/*
 * test_distributed.c: the distributed Relax dialect (tvm/relax/distributed.h): placement text,
 * device meshes, DTensorStructInfo (equality, hash, base check, LCA), the R.dist / R.ccl
 * operators' inference and errors, well-formedness of meshes and placements in a module, and
 * LegalizeOps refusing distributed programs (this project has no distributed runtime).
 */
#include <string.h>
#include <tvm/relax/relax.h>

#include "relax_testing.h"
#include "script_testing.h"

#define I64 tvm_tir_dtype_int(64)
#define F32 tvm_tir_dtype_float(32)

static void* ints(const int64_t* v, int64_t n) {
  TVMFFIAny items[8];
  for (int64_t i = 0; i < n; ++i) items[i] = tvm_ffi_any_int(v[i]);
  return tvm_ffi_array_new(items, n);
}

static tvm_relax_device_mesh_obj* mesh_range(const int64_t* shape, int64_t n, int64_t lo,
                                             int64_t hi) {
  void* s = ints(shape, n);
  tvm_tir_expr_obj* a = tvm_tir_const_int(tvm_tir_dtype_int(32), lo);
  tvm_tir_expr_obj* e = tvm_tir_const_int(tvm_tir_dtype_int(32), hi - lo);
  tvm_tir_range_obj* r = tvm_tir_range_new(a, e);
  tvm_relax_device_mesh_obj* m = tvm_relax_device_mesh_new(s, NULL, r);
  tvm_ffi_release(s), tvm_ffi_release(a), tvm_ffi_release(e), tvm_ffi_release(r);
  return m;
}

static void* placement(const char* text) { return tvm_relax_placement_parse(text, strlen(text)); }

static void check_text(const void* p, const char* want) {
  tvm_ffi_strbuf b = {0};
  tvm_relax_placement_text(&b, p);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&b), want);
  tvm_ffi_strbuf_free(&b);
}

static tvm_relax_sinfo_obj* dtensor(const int64_t* dims, int32_t nd, tvm_relax_device_mesh_obj* m,
                                    const char* p) {
  tvm_relax_sinfo_obj* t = tvm_relax_tensor_sinfo_of_ints(dims, nd, F32);
  void* pl = placement(p);
  tvm_relax_sinfo_obj* s = t && pl ? tvm_relax_dtensor_sinfo_new(t, m, pl) : NULL;
  tvm_ffi_release(t);
  tvm_ffi_release(pl);
  return s;
}

TEST(placement_text) {
  void* p = placement(" S[1] ,R");
  CHECK(p && tvm_ffi_seq_size(p) == 2);
  check_text(p, "S[1], R");
  tvm_ffi_release(p);
  p = placement("R");
  check_text(p, "R");
  tvm_ffi_release(p);
  static const char* const kBad[] = {"", "X", "S[]", "S[1", "R,,R", "S[1]R", "R,"};
  for (size_t i = 0; i < sizeof(kBad) / sizeof(kBad[0]); ++i) {
    CHECK(placement(kBad[i]) == NULL);
    CHECK_RAISED("ValueError", "is not \"R\" or \"S[<axis>]\"");
  }
  CHECK(placement("R, Q[0]") == NULL);
  CHECK_RAISED("ValueError", "the item \"Q[0]\" at offset 3");
}

TEST(device_mesh) {
  int64_t shape[] = {2, 2};
  tvm_relax_device_mesh_obj* m = mesh_range(shape, 2, 4, 8);
  CHECK(m && tvm_relax_device_mesh_ndim(m) == 2 && tvm_ffi_seq_size(m->device_ids) == 4);
  CHECK(m && tvm_ffi_seq_at(m->device_ids, 3)->v_int64 == 7);
  /* the same devices by a list: a different spelling, a different node */
  int64_t ids[] = {4, 5, 6, 7};
  void *s = ints(shape, 2), *l = ints(ids, 4);
  tvm_relax_device_mesh_obj* m2 = tvm_relax_device_mesh_new(s, l, NULL);
  CHECK(m2 && !m2->device_range);
  tvm_ffi_release(m2);
  /* errors */
  CHECK(mesh_range(shape, 2, 0, 3) == NULL);
  CHECK_RAISED("ValueError", "the mesh has 4 devices but the range holds 3");
  int64_t three[] = {0, 1, 2};
  void* l3 = ints(three, 3);
  CHECK(tvm_relax_device_mesh_new(s, l3, NULL) == NULL);
  CHECK_RAISED("ValueError", "the mesh has 4 devices but 3 ids are given");
  int64_t neg[] = {0, 1, -2, 3};
  void* ln = ints(neg, 4);
  CHECK(tvm_relax_device_mesh_new(s, ln, NULL) == NULL);
  CHECK_RAISED("ValueError", "device_ids[2] must be an integer >= 0");
  int64_t zero[] = {0};
  void* z = ints(zero, 1);
  CHECK(tvm_relax_device_mesh_new(z, l, NULL) == NULL);
  CHECK_RAISED("ValueError", "shape[0] must be an integer >= 1");
  CHECK(tvm_relax_device_mesh_new(s, NULL, NULL) == NULL);
  CHECK_RAISED("TypeError", "needs the device ids");
  tvm_ffi_release(s), tvm_ffi_release(l), tvm_ffi_release(l3), tvm_ffi_release(ln);
  tvm_ffi_release(z), tvm_ffi_release(m);
}

TEST(dtensor_sinfo) {
  int64_t shape[] = {2}, dims[] = {128, 64};
  tvm_relax_device_mesh_obj* m = mesh_range(shape, 1, 0, 2);
  tvm_relax_device_mesh_obj* m_again = mesh_range(shape, 1, 0, 2);
  tvm_relax_sinfo_obj* a = dtensor(dims, 2, m, "S[1]");
  tvm_relax_sinfo_obj* b = dtensor(dims, 2, m_again, "S[1]");
  tvm_relax_sinfo_obj* r = dtensor(dims, 2, m, "R");
  CHECK(a && b && r);
  TVMFFIAny aa = tvm_ffi_any_obj(a), ba = tvm_ffi_any_obj(b), ra = tvm_ffi_any_obj(r);
  CHECK(tvm_ffi_structural_equal(&aa, &ba, false, NULL, NULL) == 1);
  CHECK(tvm_ffi_structural_hash(&aa, false) == tvm_ffi_structural_hash(&ba, false));
  CHECK(tvm_ffi_structural_equal(&aa, &ra, false, NULL, NULL) == 0);
  CHECK(tvm_ffi_structural_hash(&aa, false) != tvm_ffi_structural_hash(&ra, false));
  /* relations */
  CHECK(tvm_relax_sinfo_base_check(a, b) == TVM_RELAX_BASE_CHECK_PASS);
  CHECK(tvm_relax_sinfo_base_check(a, r) == TVM_RELAX_BASE_CHECK_FAIL);
  tvm_relax_sinfo_obj* obj = tvm_relax_object_sinfo_new();
  CHECK(tvm_relax_sinfo_base_check(obj, a) == TVM_RELAX_BASE_CHECK_PASS);
  tvm_relax_sinfo_obj* t = tvm_relax_tensor_sinfo_of_ints(dims, 2, F32);
  CHECK(tvm_relax_sinfo_base_check(t, a) == TVM_RELAX_BASE_CHECK_FAIL);
  tvm_relax_sinfo_obj* lca = tvm_relax_sinfo_lca(a, b);
  CHECK(lca && tvm_relax_kind_of(lca) == TVM_RELAX_KIND_DTensorStructInfo);
  tvm_relax_sinfo_obj* lca2 = tvm_relax_sinfo_lca(a, r);
  CHECK(lca2 && tvm_relax_kind_of(lca2) == TVM_RELAX_KIND_ObjectStructInfo);
  tvm_ffi_strbuf txt = {0};
  tvm_relax_sinfo_text(&txt, a);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&txt),
               "R.DTensor((128, 64), dtype=\"float32\", mesh(2), \"S[1]\")");
  tvm_ffi_strbuf_free(&txt);
  /* errors: a spec per mesh dim, a sharded axis within the rank, a tensor inside */
  CHECK(dtensor(dims, 2, m, "R, R") == NULL);
  CHECK_RAISED("ValueError", "placement \"R, R\" has 2 specs but the device mesh has 1 dims");
  CHECK(dtensor(dims, 2, m, "S[2]") == NULL);
  CHECK_RAISED("ValueError", "shards axis 2 but the tensor has 2 dims");
  void* pl = placement("R");
  CHECK(tvm_relax_dtensor_sinfo_new(obj, m, pl) == NULL);
  CHECK_RAISED("TypeError", "must be a TensorStructInfo");
  tvm_ffi_release(pl);
  tvm_ffi_release(lca), tvm_ffi_release(lca2), tvm_ffi_release(t), tvm_ffi_release(obj);
  tvm_ffi_release(a), tvm_ffi_release(b), tvm_ffi_release(r);
  tvm_ffi_release(m), tvm_ffi_release(m_again);
}


/* An attribute map of one or two entries; the values are consumed. */
static void* attrs2(const char* k1, TVMFFIAny v1, const char* k2, TVMFFIAny v2) {
  TVMFFIAny keys[2] = {tvm_ffi_string(k1), tvm_ffi_string(k2 ? k2 : "")}, vals[2] = {v1, v2};
  void* m = tvm_ffi_map_new(keys, vals, k2 ? 2 : 1);
  for (int i = 0; i < 2; ++i) tvm_ffi_any_release(&keys[i]), tvm_ffi_any_release(&vals[i]);
  return m;
}

static TVMFFIAny own(void* obj) {
  tvm_ffi_retain(obj);
  return tvm_ffi_any_obj(obj);
}

TEST(operators) {
  int64_t shape[] = {2}, dims[] = {8, 6};
  tvm_relax_device_mesh_obj* m = mesh_range(shape, 1, 0, 2);
  tvm_relax_var_obj* x =
      tvm_relax_var_new("x", tvm_relax_tensor_sinfo_of_ints(dims, 2, F32), false);
  tvm_ffi_release(tvm_relax_sinfo_of(x)); /* (the var holds it) */
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  void* nd = tvm_ffi_array_of_objects((void*[]){n, tvm_tir_const_int(I64, 6)}, 2);
  tvm_ffi_release(tvm_ffi_seq_obj_at(nd, 1));
  tvm_relax_sinfo_obj* ns = tvm_relax_tensor_sinfo_of_dims(nd, F32);
  tvm_relax_var_obj* y = tvm_relax_var_new("y", ns, false);
  tvm_ffi_release(ns);
  tvm_relax_sinfo_obj* ds = dtensor(dims, 2, m, "S[0]");
  tvm_relax_var_obj* d = tvm_relax_var_new("d", ds, false);
  tvm_ffi_release(ds);
  void* a;
  /* annotate_sharding: the input unchanged; redistribute: the DTensor anew */
  a = attrs2("device_mesh", own(m), "placement", tvm_ffi_string("S[1]"));
  rt_check_call(tvm_relax_call_op("relax.dist.annotate_sharding", a, 1, x),
             "R.Tensor((8, 6), dtype=\"float32\")");
  rt_check_call(tvm_relax_call_op("relax.dist.redistribute", a, 1, d),
             "R.DTensor((8, 6), dtype=\"float32\", mesh(2), \"S[1]\")");
  rt_check_call(tvm_relax_call_op("relax.dist.redistribute", a, 1, x),
             "<TypeError: relax.dist.redistribute: argument 'input' must be a DTensor");
  tvm_ffi_release(a);
  a = attrs2("device_mesh", own(m), "placement", tvm_ffi_string("S[2]"));
  rt_check_call(tvm_relax_call_op("relax.dist.annotate_sharding", a, 1, x),
             "<ValueError: relax.dist.annotate_sharding: attribute 'placement': placement \"S[2]\" "
             "shards axis 2");
  tvm_ffi_release(a);
  a = attrs2("device_mesh", tvm_ffi_string("mesh[0]"), "placement", tvm_ffi_string("R"));
  rt_check_call(
      tvm_relax_call_op("relax.dist.annotate_sharding", a, 1, x),
      "<TypeError: relax.dist.annotate_sharding: attribute 'device_mesh' must be a DeviceMesh");
  tvm_ffi_release(a);
  /* ccl */
  rt_check_call(tvm_relax_call_op("relax.ccl.allreduce", NULL, 1, x),
             "R.Tensor((8, 6), dtype=\"float32\")");
  rt_check_call(tvm_relax_call_op("relax.ccl.broadcast_from_worker0", NULL, 1, y),
             "R.Tensor((n, 6), dtype=\"float32\")");
  a = attrs2("op_type", tvm_ffi_string("mean"), NULL, tvm_ffi_any_none());
  rt_check_call(tvm_relax_call_op("relax.ccl.allreduce", a, 1, x),
             "<ValueError: relax.ccl.allreduce: attribute 'op_type' must be one of sum, prod, min, "
             "max, avg");
  tvm_ffi_release(a);
  a = attrs2("num_workers", tvm_ffi_any_int(4), NULL, tvm_ffi_any_none());
  rt_check_call(tvm_relax_call_op("relax.ccl.allgather", a, 1, x),
             "R.Tensor((32, 6), dtype=\"float32\")");
  rt_check_call(tvm_relax_call_op("relax.ccl.allgather", a, 1, y),
             "R.Tensor((n * T.int64(4), 6), dtype=\"float32\")");
  rt_check_call(tvm_relax_call_op("relax.ccl.scatter_from_worker0", a, 1, x),
             "R.Tensor((2, 6), dtype=\"float32\")");
  /* on a DTensor: upstream's distributed rule, replicated (op_distributed_infer.c) */
  rt_check_call(tvm_relax_call_op("relax.ccl.allreduce", NULL, 1, d),
             "R.DTensor((8, 6), dtype=\"float32\", mesh(2), \"R\")");
  rt_check_call(tvm_relax_call_op("relax.ccl.allgather", a, 1, d),
             "<TypeError: relax.ccl.allgather: argument 'x' is a DTensor");
  tvm_ffi_release(a);
  a = attrs2("num_workers", tvm_ffi_any_int(4), "axis", tvm_ffi_any_int(1));
  rt_check_call(tvm_relax_call_op("relax.ccl.scatter_from_worker0", a, 1, x),
             "<ValueError: relax.ccl.scatter_from_worker0: argument 'x' has 6 elements on axis 1, "
             "not divisible by num_workers 4");
  tvm_ffi_release(a);
  /* redistribute_replica_to_shard: a local tensor's slice; a replicated DTensor sharded on
   * the axis, on a 1-d mesh of num_workers devices */
  a = attrs2("num_workers", tvm_ffi_any_int(2), "axis", tvm_ffi_any_int(1));
  rt_check_call(tvm_relax_call_op("relax.dist.redistribute_replica_to_shard", a, 1, x),
             "R.Tensor((8, 3), dtype=\"float32\")");
  rt_check_call(tvm_relax_call_op("relax.dist.redistribute_replica_to_shard", a, 1, d),
             "<ValueError: relax.dist.redistribute_replica_to_shard: argument 'input' must be "
             "replicated");
  tvm_relax_sinfo_obj* rs = dtensor(dims, 2, m, "R");
  tvm_relax_var_obj* r = tvm_relax_var_new("r", rs, false);
  tvm_ffi_release(rs);
  rt_check_call(tvm_relax_call_op("relax.dist.redistribute_replica_to_shard", a, 1, r),
             "R.DTensor((8, 6), dtype=\"float32\", mesh(2), \"S[1]\")");
  tvm_ffi_release(a);
  a = attrs2("num_workers", tvm_ffi_any_int(4), "axis", tvm_ffi_any_int(0));
  rt_check_call(tvm_relax_call_op("relax.dist.redistribute_replica_to_shard", a, 1, r),
             "<ValueError: relax.dist.redistribute_replica_to_shard: argument 'input' must be on a "
             "1-d device mesh of num_workers (4) devices");
  rt_check_call(tvm_relax_call_op("relax.dist.redistribute_replica_to_shard", a, 1, y),
             "R.Tensor((n // T.int64(4), 6), dtype=\"float32\")");
  tvm_ffi_release(a);
  a = attrs2("num_workers", tvm_ffi_any_int(2), "axis", tvm_ffi_any_int(1));
  tvm_relax_sinfo_obj* os = dtensor((int64_t[]){8, 5}, 2, m, "R");
  tvm_relax_var_obj* odd = tvm_relax_var_new("odd", os, false);
  tvm_ffi_release(os);
  rt_check_call(tvm_relax_call_op("relax.dist.redistribute_replica_to_shard", a, 1, odd),
             "<ValueError: relax.dist.redistribute_replica_to_shard: argument 'input' has 5 "
             "elements on axis 1, not divisible by num_workers 2");
  tvm_ffi_release(a), tvm_ffi_release(r), tvm_ffi_release(odd);
  a = attrs2("num_workers", tvm_ffi_any_int(0), NULL, tvm_ffi_any_none());
  rt_check_call(tvm_relax_call_op("relax.ccl.allgather", a, 1, x),
             "<ValueError: relax.ccl.allgather: attribute 'num_workers' must be >= 1, got 0");
  tvm_ffi_release(a);
  rt_check_call(tvm_relax_call_op("relax.ccl.allgather", NULL, 1, x), "<");
  tvm_ffi_release(x), tvm_ffi_release(y), tvm_ffi_release(d), tvm_ffi_release(n);
  tvm_ffi_release(nd), tvm_ffi_release(m);
}

static void* parse(const char* text) {
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  opts.check_well_formed = false;
  return tvm_script_parse(text, strlen(text), &opts);
}

static const char kModule[] =
    "from tvm.script import ir as I\n"
    "from tvm.script import relax as R\n"
    "@I.ir_module\n"
    "class M:\n"
    "    I.module_global_infos({\"mesh\": [R.device_mesh((2,), I.Range(0, 2))]})\n"
    "    @R.function\n"
    "    def main(x: R.Tensor((4, 8), \"float32\"), d: R.DTensor((4, 8), \"float32\", %s, "
    "\"%s\")):\n"
    "        y = R.ccl.allreduce(x)\n"
    "        z = R.dist.annotate_sharding(y, \"mesh[0]\", \"S[1]\")\n"
    "        return (z, d)\n";

TEST(well_formed_and_legalize) {
  char text[1024];
  snprintf(text, sizeof(text), kModule, "\"mesh[0]\"", "S[0]");
  void* mod = parse(text);
  CHECK(mod);
  CHECK_OK(tvm_relax_verify_well_formed(mod));
  /* LegalizeOps refuses: no distributed runtime (a DTensor parameter, found first) */
  CHECK(tvm_relax_transform_legalize_ops(mod) == NULL);
  CHECK_RAISED("NotImplementedError",
               "function 'main', parameter 'd': a DTensor parameter: distributed execution is not "
               "supported");
  tvm_ffi_release(mod);
  /* a mesh that is not the module's */
  snprintf(text, sizeof(text), kModule, "R.device_mesh((2,), [5, 6])", "R");
  mod = parse(text);
  CHECK(mod);
  CHECK(tvm_relax_verify_well_formed(mod) != 0);
  CHECK_RAISED("ValueError",
               "<root>[\"main\"].params[1].struct_info_.device_mesh: the device mesh "
               "is not one of the module's");
  tvm_ffi_release(mod);
  /* the ccl binding (no DTensor parameter) */
  const char* plain =
      "from tvm.script import ir as I\n"
      "from tvm.script import relax as R\n"
      "@I.ir_module\n"
      "class M:\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((4, 8), \"float32\")):\n"
      "        y = R.add(x, x)\n"
      "        z = R.ccl.broadcast_from_worker0(y)\n"
      "        return z\n";
  mod = parse(plain);
  CHECK(mod);
  CHECK(mod && tvm_relax_transform_legalize_ops(mod) == NULL);
  CHECK_RAISED("NotImplementedError",
               "function 'main', binding 'z': relax.ccl.broadcast_from_worker0: "
               "distributed execution is not supported");
  tvm_ffi_release(mod);
}

int main(void) {
  RUN(placement_text);
  RUN(device_mesh);
  RUN(dtensor_sinfo);
  RUN(operators);
  RUN(well_formed_and_legalize);
  return test_summary();
}

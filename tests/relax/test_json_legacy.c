/*
 * test_json_legacy.c: tvm_ffi_json_load on the JSON graphs TVM wrote before tvm-ffi
 * ({"root", "nodes", "b64ndarrays"}, json_legacy.c), as in the metadata sections of programs
 * printed by TVM <= 0.19. A document built here (a Map holding a Relax Constant whose tensor is
 * a base64 NDArray record of random values, IntImm, FloatImm, Strings, Arrays, a Map with
 * object keys) loads to values equal to the ones built with the constructors, the tensor
 * bit-exact; the transitional form (tensors and primitives as nodes, Op by name) loads too; and
 * every kind of bad input raises its own error: truncated or invalid base64, a wrong magic, a
 * record whose sizes disagree, node and tensor indices out of range, unknown type keys and
 * fields, bad field text, cycles.
 */
#include <math.h>
#include <string.h>

#include "relax_testing.h"

/* ---- Building documents ---------------------------------------------------------------------- */
static void put_b64(tvm_ffi_strbuf* b, const unsigned char* p, size_t n) {
  static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16;
    if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
    if (i + 2 < n) v |= p[i + 2];
    char q[4] = {tbl[(v >> 18) & 63], tbl[(v >> 12) & 63], i + 1 < n ? tbl[(v >> 6) & 63] : '=',
                 i + 2 < n ? tbl[v & 63] : '='};
    tvm_ffi_strbuf_append(b, q, 4);
  }
}

#define ADD(b, v) tvm_ffi_strbuf_append((b), (const char*)&(v), sizeof(v))

/* The base64 of upstream's NDArray::Save record of a float32 tensor (data of n floats, the
 * record's data size field nbytes_field) into out; `magic` is normally 0xDD5E40F096B4A13F. */
static void record_b64(tvm_ffi_strbuf* out, uint64_t magic, int32_t ndim, const int64_t* shape,
                       const float* data, int64_t n, int64_t nbytes_field) {
  tvm_ffi_strbuf rec = {0};
  uint64_t reserved = 0;
  int32_t dev_type = 1, dev_id = 0;
  uint8_t code = 2, bits = 32;
  uint16_t lanes = 1;
  ADD(&rec, magic);
  ADD(&rec, reserved);
  ADD(&rec, dev_type);
  ADD(&rec, dev_id);
  ADD(&rec, ndim);
  ADD(&rec, code);
  ADD(&rec, bits);
  ADD(&rec, lanes);
  for (int32_t d = 0; d < ndim; ++d) ADD(&rec, shape[d]);
  ADD(&rec, nbytes_field);
  tvm_ffi_strbuf_append(&rec, (const char*)data, (size_t)n * sizeof(float));
  put_b64(out, (const unsigned char*)rec.data, rec.size);
  tvm_ffi_strbuf_free(&rec);
}

#define MAGIC UINT64_C(0xDD5E40F096B4A13F)

/* Random float32 values (an LCG: reproducible, never all zeros). */
static void rand_floats(float* out, int n, uint32_t seed) {
  for (int i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    out[i] = (float)((int32_t)(seed >> 8) % 20000) / 137.0f;
  }
}

/* The document of the test: the Map {"relax.expr.Constant": [c], "misc": [...]} as TVM 0.17
 * wrote it, with the tensor's base64 `b64`. Node 9 (a type we do not have) is reachable only
 * through _checked_type_. */
static void legacy_doc(tvm_ffi_strbuf* b, const char* b64) {
  tvm_ffi_strbuf_printf(
      b,
      "{\n  \"root\": 1,\n  \"nodes\": [\n"
      "    {\"type_key\": \"\"},\n"
      /* 1 */
      "    {\"type_key\": \"Map\", \"keys\": [\"relax.expr.Constant\", \"misc\"], "
      "\"data\": [2, 10]},\n"
      /* 2 */
      "    {\"type_key\": \"Array\", \"data\": [3]},\n"
      /* 3 */
      "    {\"type_key\": \"relax.expr.Constant\", \"attrs\": {\"_checked_type_\": \"9\", "
      "\"data\": \"0\", \"span\": \"0\", \"struct_info_\": \"4\"}},\n"
      /* 4 */
      "    {\"type_key\": \"relax.TensorStructInfo\", \"attrs\": {\"dtype\": \"float32\", "
      "\"ndim\": \"2\", \"shape\": \"5\", \"span\": \"0\", \"vdevice\": \"0\"}},\n"
      /* 5 */
      "    {\"type_key\": \"relax.expr.ShapeExpr\", \"attrs\": {\"_checked_type_\": \"0\", "
      "\"span\": \"0\", \"struct_info_\": \"8\", \"values\": \"6\"}},\n"
      /* 6 */
      "    {\"type_key\": \"Array\", \"data\": [7, 11]},\n"
      /* 7 */
      "    {\"type_key\": \"IntImm\", \"attrs\": {\"dtype\": \"int64\", \"span\": \"0\", "
      "\"value\": \"2\"}},\n"
      /* 8 */
      "    {\"type_key\": \"relax.ShapeStructInfo\", \"attrs\": {\"ndim\": \"2\", "
      "\"span\": \"0\", \"values\": \"6\"}},\n"
      /* 9 */
      "    {\"type_key\": \"relax.DynTensorType\", \"attrs\": {\"dtype\": \"float32\", "
      "\"ndim\": \"2\", \"span\": \"0\"}},\n"
      /* 10 */
      "    {\"type_key\": \"Array\", \"data\": [7, 12, 13, 14, 15, 16, 17]},\n"
      /* 11 */
      "    {\"type_key\": \"IntImm\", \"attrs\": {\"dtype\": \"int64\", \"span\": \"0\", "
      "\"value\": \"3\"}},\n"
      /* 12 */
      "    {\"type_key\": \"FloatImm\", \"attrs\": {\"dtype\": \"float32\", \"span\": "
      "\"0\", \"value\": \"1.5\"}},\n"
      /* 13 */
      "    {\"type_key\": \"runtime.String\", \"repr_str\": \"hello\"},\n"
      /* 14 */
      "    {\"type_key\": \"FloatImm\", \"attrs\": {\"dtype\": \"float64\", \"span\": "
      "\"0\", \"value\": \"-0.10000000000000001\"}},\n"
      /* 15 */
      "    {\"type_key\": \"Map\", \"data\": [7, 13, 11, 16]},\n"
      /* 16 */
      "    {\"type_key\": \"runtime.String\"},\n"
      /* 17 */
      "    {\"type_key\": \"runtime.String\", \"repr_b64\": \"AAE=\"}\n"
      "  ],\n  \"b64ndarrays\": [\"%s\"],\n  \"attrs\": {\"tvm_version\": \"0.17.dev0\"}\n}",
      b64);
}

static int load_text(const char* text, TVMFFIAny* out) {
  return tvm_ffi_json_load(text, strlen(text), out);
}

static bool equal(const void* a, const void* b) {
  TVMFFIAny x = tvm_ffi_any_obj((void*)a), y = tvm_ffi_any_obj((void*)b);
  return tvm_ffi_structural_equal(&x, &y, false, NULL, NULL) == 1;
}

static const TVMFFIAny* map_get(const void* map, const char* key) {
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(map, pos, &k, &v)) >= 0;) {
    TVMFFIByteArray s;
    if (tvm_ffi_any_as_bytes(k, &s) && s.size == strlen(key) && memcmp(s.data, key, s.size) == 0)
      return v;
  }
  return NULL;
}

/* ---- Loading ------------------------------------------------------------------------------- */
TEST(loads_the_legacy_format) {
  float vals[6];
  rand_floats(vals, 6, 17);
  int64_t shape[2] = {2, 3};
  tvm_ffi_strbuf b64 = {0}, doc = {0};
  record_b64(&b64, MAGIC, 2, shape, vals, 6, 24);
  legacy_doc(&doc, tvm_ffi_strbuf_cstr(&b64));
  TVMFFIAny v = tvm_ffi_any_none();
  CHECK_OK(load_text(tvm_ffi_strbuf_cstr(&doc), &v));
  CHECK_EQ_INT(v.type_index, kTVMFFIMap);
  if (v.type_index == kTVMFFIMap) {
    CHECK_EQ_INT(tvm_ffi_map_size(v.v_obj), 2);
    /* The constant: its tensor bit-exact, and equal to the one the constructor makes. */
    const TVMFFIAny* consts = map_get(v.v_obj, "relax.expr.Constant");
    CHECK(consts && consts->type_index == kTVMFFIArray && tvm_ffi_seq_size(consts->v_obj) == 1);
    if (consts && consts->type_index == kTVMFFIArray && tvm_ffi_seq_size(consts->v_obj) == 1) {
      const TVMFFIAny* c = tvm_ffi_seq_at(consts->v_obj, 0);
      CHECK_STR_EQ(tvm_ffi_any_type_name(c), "relax.expr.Constant");
      tvm_relax_constant_obj* k = (tvm_relax_constant_obj*)c->v_obj;
      const DLTensor* dl = tvm_ffi_tensor_dl(k->data);
      CHECK_EQ_INT(dl->ndim, 2);
      CHECK_EQ_INT(dl->shape[0], 2);
      CHECK_EQ_INT(dl->shape[1], 3);
      CHECK(dl->dtype.code == kDLFloat && dl->dtype.bits == 32 && dl->dtype.lanes == 1);
      CHECK(memcmp((const char*)dl->data + dl->byte_offset, vals, sizeof(vals)) == 0);
      void* t = tvm_ffi_tensor_empty(shape, 2, dl->dtype, (DLDevice){kDLCPU, 0});
      memcpy(tvm_ffi_tensor_dl(t)->data, vals, sizeof(vals));
      tvm_relax_expr_obj* want = tvm_relax_constant_new(t, NULL);
      CHECK(want && equal(c->v_obj, want));
      CHECK_STR_EQ(rt_text(k->expr.struct_info_), "R.Tensor((2, 3), dtype=\"float32\")");
      tvm_ffi_release(want);
      tvm_ffi_release(t);
    }
    /* misc: [IntImm 2, FloatImm 1.5, "hello", FloatImm -0.1, {2: "hello", 3: ""}, "", "\0\1"] */
    const TVMFFIAny* misc = map_get(v.v_obj, "misc");
    CHECK(misc && misc->type_index == kTVMFFIArray && tvm_ffi_seq_size(misc->v_obj) == 7);
    if (misc && misc->type_index == kTVMFFIArray && tvm_ffi_seq_size(misc->v_obj) == 7) {
      void* i2 = tvm_tir_int_imm_new(I64, 2);
      void* i3 = tvm_tir_int_imm_new(I64, 3);
      void* f15 = tvm_tir_float_imm_new(F32, 1.5);
      void* fm = tvm_tir_float_imm_new(tvm_tir_dtype_float(64), -0.1);
      CHECK(equal(tvm_ffi_seq_at(misc->v_obj, 0)->v_obj, i2));
      CHECK(equal(tvm_ffi_seq_at(misc->v_obj, 1)->v_obj, f15));
      CHECK(equal(tvm_ffi_seq_at(misc->v_obj, 3)->v_obj, fm));
      CHECK_EQ_INT(((tvm_tir_float_imm_obj*)tvm_ffi_seq_at(misc->v_obj, 3)->v_obj)->value == -0.1,
                   1);
      TVMFFIByteArray s;
      CHECK(tvm_ffi_any_as_bytes(tvm_ffi_seq_at(misc->v_obj, 2), &s) && s.size == 5 &&
            memcmp(s.data, "hello", 5) == 0);
      CHECK(tvm_ffi_any_as_bytes(tvm_ffi_seq_at(misc->v_obj, 5), &s) && s.size == 0);
      CHECK(tvm_ffi_any_as_bytes(tvm_ffi_seq_at(misc->v_obj, 6), &s) && s.size == 2 &&
            s.data[0] == 0 && s.data[1] == 1);
      /* The Map with object keys: the shared IntImm nodes are the same objects. */
      const TVMFFIAny* m = tvm_ffi_seq_at(misc->v_obj, 4);
      CHECK_EQ_INT(m->type_index, kTVMFFIMap);
      if (m->type_index == kTVMFFIMap) {
        CHECK_EQ_INT(tvm_ffi_map_size(m->v_obj), 2);
        const TVMFFIAny *k, *val;
        int seen = 0;
        for (int64_t pos = 0; (pos = tvm_ffi_map_next(m->v_obj, pos, &k, &val)) >= 0;) {
          if (k->v_obj == tvm_ffi_seq_at(misc->v_obj, 0)->v_obj) {
            CHECK(tvm_ffi_any_as_bytes(val, &s) && s.size == 5);
            seen |= 1;
          } else {
            CHECK(equal(k->v_obj, i3));
            CHECK(tvm_ffi_any_as_bytes(val, &s) && s.size == 0);
            seen |= 2;
          }
        }
        CHECK_EQ_INT(seen, 3);
      }
      tvm_ffi_release(i2);
      tvm_ffi_release(i3);
      tvm_ffi_release(f15);
      tvm_ffi_release(fm);
    }
  }
  tvm_ffi_any_release(&v);
  tvm_ffi_strbuf_free(&b64);
  tvm_ffi_strbuf_free(&doc);
}

/* The releases moving to tvm-ffi: "null" for None, a tensor as a node with its base64 as
 * repr_str (b64ndarrays empty), primitives as nodes, an Op by its name. */
TEST(loads_the_transitional_forms) {
  float vals[4];
  rand_floats(vals, 4, 99);
  int64_t shape[1] = {4};
  tvm_ffi_strbuf b64 = {0}, doc = {0};
  record_b64(&b64, MAGIC, 1, shape, vals, 4, 16);
  tvm_ffi_strbuf_printf(
      &doc,
      "{\"root\": 1, \"nodes\": [{\"type_key\": \"\"},"
      "{\"type_key\": \"Array\", \"data\": [2, 3, 4, 5, 6]},"
      "{\"type_key\": \"relax.expr.Constant\", \"attrs\": {\"data\": \"7\", \"span\": \"null\", "
      "\"struct_info_\": \"null\"}},"
      "{\"type_key\": \"int\", \"attrs\": {\"v_int64\": \"-42\"}},"
      "{\"type_key\": \"bool\", \"attrs\": {\"v_int64\": \"1\"}},"
      "{\"type_key\": \"Op\", \"repr_str\": \"relax.add\"},"
      "{\"type_key\": \"DataType\", \"attrs\": {\"v_type\": \"float16\"}},"
      "{\"type_key\": \"runtime.NDArray\", \"repr_str\": \"%s\"}],"
      "\"b64ndarrays\": []}",
      tvm_ffi_strbuf_cstr(&b64));
  TVMFFIAny v = tvm_ffi_any_none();
  CHECK_OK(load_text(tvm_ffi_strbuf_cstr(&doc), &v));
  CHECK(v.type_index == kTVMFFIArray && tvm_ffi_seq_size(v.v_obj) == 5);
  if (v.type_index == kTVMFFIArray && tvm_ffi_seq_size(v.v_obj) == 5) {
    const TVMFFIAny* c = tvm_ffi_seq_at(v.v_obj, 0);
    CHECK_STR_EQ(tvm_ffi_any_type_name(c), "relax.expr.Constant");
    const DLTensor* dl = tvm_ffi_tensor_dl(((tvm_relax_constant_obj*)c->v_obj)->data);
    CHECK(dl->ndim == 1 && dl->shape[0] == 4);
    CHECK(memcmp((const char*)dl->data + dl->byte_offset, vals, sizeof(vals)) == 0);
    CHECK(tvm_ffi_seq_at(v.v_obj, 1)->type_index == kTVMFFIInt &&
          tvm_ffi_seq_at(v.v_obj, 1)->v_int64 == -42);
    CHECK(tvm_ffi_seq_at(v.v_obj, 2)->type_index == kTVMFFIBool &&
          tvm_ffi_seq_at(v.v_obj, 2)->v_int64 == 1);
    void* add = tvm_tir_op_get("relax.add");
    CHECK(add && tvm_ffi_seq_at(v.v_obj, 3)->v_obj == add);
    tvm_ffi_release(add);
    const TVMFFIAny* dt = tvm_ffi_seq_at(v.v_obj, 4);
    CHECK(dt->type_index == kTVMFFIDataType && dt->v_dtype.code == kDLFloat &&
          dt->v_dtype.bits == 16);
  }
  tvm_ffi_any_release(&v);
  tvm_ffi_strbuf_free(&b64);
  tvm_ffi_strbuf_free(&doc);
}

/* ---- Bad input ----------------------------------------------------------------------------- */
static void check_bad(const char* text, const char* kind, const char* part) {
  TVMFFIAny v = tvm_ffi_any_none();
  int rc = load_text(text, &v);
  CHECK(rc != 0);
  if (rc != 0) {
    CHECK_RAISED(kind, part);
  } else {
    fprintf(stderr, "  loaded, expected %s \"%s\": %s\n", kind, part, text);
  }
  CHECK_EQ_INT(v.type_index, kTVMFFINone);
  tvm_ffi_any_release(&v);
}

/* The test document with its tensor record's base64 replaced by `b64`. */
static void check_bad_tensor(const char* b64, const char* kind, const char* part) {
  tvm_ffi_strbuf doc = {0};
  legacy_doc(&doc, b64);
  check_bad(tvm_ffi_strbuf_cstr(&doc), kind, part);
  tvm_ffi_strbuf_free(&doc);
}

TEST(bad_tensors) {
  float vals[6];
  rand_floats(vals, 6, 5);
  int64_t shape[2] = {2, 3};
  tvm_ffi_strbuf good = {0}, bad = {0};
  record_b64(&good, MAGIC, 2, shape, vals, 6, 24);
  const char* g = tvm_ffi_strbuf_cstr(&good);
  /* truncated base64: not a whole number of quads, then a whole quad short of the data */
  tvm_ffi_strbuf_append(&bad, g, good.size - 2);
  check_bad_tensor(tvm_ffi_strbuf_cstr(&bad), "ValueError", "base64 length");
  bad.size = 0;
  tvm_ffi_strbuf_append(&bad, g, good.size - 8);
  check_bad_tensor(tvm_ffi_strbuf_cstr(&bad), "ValueError", "data of the wrong length");
  check_bad_tensor("P6G0", "ValueError", "truncated header");
  check_bad_tensor("", "ValueError", "truncated header");
  /* invalid base64 character */
  bad.size = 0;
  tvm_ffi_strbuf_append(&bad, g, good.size);
  bad.data[5] = '*';
  check_bad_tensor(tvm_ffi_strbuf_cstr(&bad), "ValueError", "invalid base64 character");
  /* wrong magic */
  bad.size = 0;
  record_b64(&bad, MAGIC ^ 1, 2, shape, vals, 6, 24);
  check_bad_tensor(tvm_ffi_strbuf_cstr(&bad), "ValueError", "wrong magic number");
  /* the error names where the record came from */
  check_bad_tensor(tvm_ffi_strbuf_cstr(&bad), "ValueError",
                   "legacy JSON graph node 3 field `data`: b64ndarrays[0]");
  /* sizes that disagree: a shape claiming 2^60 elements with 24 bytes of data, and a data
   * size field larger than the data (nothing of either size is allocated) */
  int64_t huge[2] = {INT64_C(1) << 30, INT64_C(1) << 30};
  bad.size = 0;
  record_b64(&bad, MAGIC, 2, huge, vals, 6, 24);
  check_bad_tensor(tvm_ffi_strbuf_cstr(&bad), "ValueError", "b64ndarrays[0]");
  bad.size = 0;
  record_b64(&bad, MAGIC, 2, shape, vals, 6, INT64_C(1) << 40);
  check_bad_tensor(tvm_ffi_strbuf_cstr(&bad), "ValueError", "data size does not match");
  tvm_ffi_strbuf_free(&good);
  tvm_ffi_strbuf_free(&bad);
  /* a tensor index out of range, and not a number */
  check_bad(
      "{\"root\": 1, \"nodes\": [{\"type_key\": \"\"}, {\"type_key\": "
      "\"relax.expr.Constant\", \"attrs\": {\"data\": \"3\", \"span\": \"0\", "
      "\"struct_info_\": \"0\"}}], \"b64ndarrays\": [\"P6G0\"]}",
      "ValueError",
      "node 1 (relax.expr.Constant): field `data`: b64ndarrays index 3 out of range [0, 1)");
  check_bad(
      "{\"root\": 1, \"nodes\": [{\"type_key\": \"\"}, {\"type_key\": "
      "\"relax.expr.Constant\", \"attrs\": {\"data\": \"x\", \"span\": \"0\", "
      "\"struct_info_\": \"0\"}}], \"b64ndarrays\": [\"P6G0\"]}",
      "TypeError", "field `data`: expected an index into b64ndarrays");
  check_bad(
      "{\"root\": 1, \"nodes\": [{\"type_key\": \"\"}, {\"type_key\": "
      "\"relax.expr.Constant\", \"attrs\": {\"data\": \"0\", \"span\": \"0\", "
      "\"struct_info_\": \"0\"}}], \"b64ndarrays\": [7]}",
      "TypeError", "b64ndarrays[0] must be a string");
}

#define NULL_NODE "{\"type_key\": \"\"}"
#define INT_NODE(v) \
  "{\"type_key\": \"IntImm\", \"attrs\": {\"dtype\": \"int64\", \"value\": \"" v "\"}}"

TEST(bad_graphs) {
  /* indices out of range */
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE ", {\"type_key\": \"Array\", \"data\": [7]}]}",
            "ValueError", "node 1 (Array): node index 7 out of range [0, 2)");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE ", {\"type_key\": \"Array\", \"data\": [-1]}]}",
            "ValueError", "node index -1 out of range");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"IntImm\", \"attrs\": {\"dtype\": \"int64\", \"value\": \"1\", "
            "\"span\": \"99\"}}]}",
            "ValueError", "node 1 (IntImm): field `span`: node index 99 out of range [0, 2)");
  check_bad("{\"root\": 5, \"nodes\": [" NULL_NODE "]}", "ValueError",
            "root 5 out of range [0, 1)");
  /* unknown type keys, and a type we have only under _checked_type_ is never read */
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE ", {\"type_key\": \"relax.NoSuchNode\"}]}",
            "KeyError", "legacy JSON graph node 1 (relax.NoSuchNode): unknown type key");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"Array\", \"data\": [2]}, {\"type_key\": \"relax.DynTensorType\"}]}",
            "KeyError", "node 2 (relax.DynTensorType): unknown type key");
  /* cycles: a self-reference, and one through a field */
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE ", {\"type_key\": \"Array\", \"data\": [1]}]}",
            "ValueError", "node 1 (Array): reference to node 1 forms a cycle");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"relax.ShapeStructInfo\", \"attrs\": {\"ndim\": \"1\", \"span\": "
            "\"0\", \"values\": \"2\"}}, {\"type_key\": \"Array\", \"data\": [1]}]}",
            "ValueError", "node 2 (Array): reference to node 1 forms a cycle");
  /* fields: unknown, missing, bad text, wrong kind, too wide, twice */
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"IntImm\", \"attrs\": {\"dtype\": \"int64\", \"value\": \"1\", "
            "\"bogus\": \"1\"}}]}",
            "TypeError", "node 1 (IntImm): ir.IntImm has no field `bogus`");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"IntImm\", \"attrs\": {\"value\": \"1\"}}]}",
            "TypeError", "node 1 (IntImm): missing field `dtype` of ir.IntImm");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE ", " INT_NODE("12x") "]}", "TypeError",
            "field `value` must be an integer, got \"12x\"");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE ", " INT_NODE("99999999999999999999") "]}",
            "TypeError", "field `value` must be an integer");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"FloatImm\", \"attrs\": {\"dtype\": \"float32\", \"value\": "
            "\"0x1p3\"}}]}",
            "TypeError", "field `value` must be a number, got \"0x1p3\"");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"IntImm\", \"attrs\": {\"dtype\": \"int64x\", \"value\": \"1\"}}]}",
            "ValueError", "legacy JSON graph node 1 field `dtype`");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"IntImm\", \"attrs\": {\"dtype\": \"int64\", \"value\": 1}}]}",
            "TypeError", "attribute `value` must be a string, got an integer");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"IntImm\", \"attrs\": {\"dtype\": \"int64\", \"value\": \"1\", "
            "\"value\": \"2\"}}]}",
            "ValueError", "field `value` is given twice");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"relax.ShapeStructInfo\", \"attrs\": {\"ndim\": \"1\", "
            "\"values\": \"abc\"}}]}",
            "TypeError", "field `values`: expected a node index, got \"abc\"");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"relax.ShapeStructInfo\", \"attrs\": {\"ndim\": \"1\", "
            "\"values\": \"2\"}}, {\"type_key\": \"runtime.String\", \"repr_str\": \"x\"}]}",
            "TypeError", "field `values` expects ffi.Array, got ffi.String");
  /* containers */
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"Map\", \"keys\": [\"a\", \"b\"], \"data\": [0]}]}",
            "ValueError", "a Map with 2 keys and 1 values");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE ", {\"type_key\": \"Map\", \"data\": [0]}]}",
            "ValueError", "the data of a Map must have an even length");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"Map\", \"keys\": [1], \"data\": [0]}]}",
            "TypeError", "Map keys must be strings, got an integer");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"Array\", \"data\": [\"0\"]}]}",
            "TypeError", "expected a node index in \"data\", got a string");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE ", {\"type_key\": \"IntImm\", \"data\": [0]}]}",
            "ValueError", "only an Array or a Map has \"keys\" or \"data\"");
  /* repr bytes */
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"runtime.String\", \"repr_b64\": \"A*==\"}]}",
            "ValueError", "invalid base64 character");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"IntImm\", \"repr_str\": \"1\"}]}",
            "TypeError", "a ir.IntImm cannot be read from its repr bytes");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"Op\", \"repr_str\": \"relax.no_such_op\"}]}",
            "KeyError", "legacy JSON graph node 1");
  check_bad("{\"root\": 1, \"nodes\": [" NULL_NODE
            ", {\"type_key\": \"Op\", \"attrs\": {\"name\": \"0\"}}]}",
            "TypeError", "node 1 (Op): a ir.Op needs \"repr_str\" or \"repr_b64\"");
  /* the document and node forms */
  check_bad("{\"root\": 0, \"nodes\": [" NULL_NODE "], \"extra\": 1}", "ValueError",
            "legacy JSON graph: unexpected or repeated key \"extra\"");
  check_bad("{\"root\": \"0\", \"nodes\": [" NULL_NODE "]}", "ValueError",
            "\"root\" must be an integer, got a string");
  check_bad("{\"root\": 0}", "ValueError", "expected a \"nodes\" array");
  check_bad("{\"root\": 0, \"nodes\": [[]]}", "TypeError", "node 0: expected an object");
  check_bad("{\"root\": 0, \"nodes\": [{\"type_key\": \"\", \"foo\": 1}]}", "ValueError",
            "node 0: unexpected or repeated key \"foo\"");
  check_bad("{\"root\": 0, \"nodes\": [{\"type_key\": 3}]}", "TypeError",
            "\"type_key\" must be a string, got an integer");
  check_bad("{\"root\": 0, \"nodes\": [{\"type_key\": \"int\"}]}", "TypeError",
            "missing attribute `v_int64`");
  /* the root alone is read: a bad node nothing reaches is no error */
  TVMFFIAny v = tvm_ffi_any_none();
  CHECK_OK(load_text("{\"root\": 1, \"nodes\": [" NULL_NODE ", " INT_NODE("7") ", [1, 2]]}", &v));
  CHECK_STR_EQ(tvm_ffi_any_type_name(&v), "ir.IntImm");
  tvm_ffi_any_release(&v);
}

int main(void) {
  tvm_relax_init();
  RUN(loads_the_legacy_format);
  RUN(loads_the_transitional_forms);
  RUN(bad_tensors);
  RUN(bad_graphs);
  return test_summary();
}

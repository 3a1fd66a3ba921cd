/* tir_testing.c: IR generators shared by libtir's tests and the benchmarks (builder API). */
#include "tir_testing.h"

#include <stdio.h>
#include <string.h>

static void* ref(void* obj) { return tvm_tir_ref(obj); }

tvm_tir_prim_func_obj* tvm_tir_testing_make_large_func(int64_t n) {
  if (n < 1 || n > INT32_MAX) {
    tvm_ffi_raise("ValueError", "make_large_func: n must be in 1..INT32_MAX, got %lld",
                  (long long)n);
    return NULL;
  }
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, n);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, n);
  void* stmts = tvm_ffi_list_new();
  for (int64_t i = 0; A && B && stmts && i < n; ++i) {
    char name[32];
    snprintf(name, sizeof(name), "j%lld", (long long)i);
    tvm_tir_var_obj* j = tvm_tir_var(name, TVM_TIR_INT32);
    /* B[(i + j) % n] = A[(i * 7 + j) % n] * float(i) + 1 */
    void* load = tvm_tir_load_take(
        ref(A),
        tvm_tir_floormod_take(tvm_tir_add_take(tvm_tir_int((i * 7) % n), ref(j)), tvm_tir_int(n)));
    void* value = tvm_tir_add_take(tvm_tir_mul_take(load, tvm_tir_f32((double)i)), tvm_tir_f32(1));
    void* body = tvm_tir_store_take(
        ref(B), value,
        tvm_tir_floormod_take(tvm_tir_add_take(tvm_tir_int(i), ref(j)), tvm_tir_int(n)));
    if (i % 4 == 0) body = tvm_tir_if_take(tvm_tir_lt_take(ref(j), tvm_tir_int(4)), body, NULL);
    void* loop = tvm_tir_serial_take(j, tvm_tir_int(0), tvm_tir_int(8), body);
    if (i % 8 == 0) {
      snprintf(name, sizeof(name), "t%lld", (long long)i);
      tvm_tir_var_obj* t = tvm_tir_var(name, TVM_TIR_INT32);
      loop = tvm_tir_let_stmt_take(t, tvm_tir_int(i), loop);
    }
    if (!loop) break;
    TVMFFIAny item = tvm_ffi_any_obj(loop);
    int rc = tvm_ffi_list_push(stmts, &item);
    tvm_ffi_release(loop);
    if (rc != 0) break;
  }
  tvm_tir_prim_func_obj* f = NULL;
  if (!tvm_ffi_error_pending() && stmts) {
    void* seq = tvm_ffi_list_to_array(stmts);
    void* body = seq ? tvm_tir_seq_stmt_new(seq) : NULL;
    tvm_ffi_release(seq);
    f = tvm_tir_func_take("large_func", tvm_tir_list_take(ref(A), ref(B)), body);
  }
  tvm_ffi_release(stmts);
  tvm_ffi_release(A);
  tvm_ffi_release(B);
  return f;
}

tvm_tir_prim_func_obj* tvm_tir_testing_make_matmul(const char* tag, int64_t m, int64_t n,
                                                   int64_t k) {
  char name[64];
#define NAME(base) (snprintf(name, sizeof(name), "%s%s", base, tag), name)
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl(NAME("A"), TVM_TIR_FLOAT32, m, k);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl(NAME("B"), TVM_TIR_FLOAT32, k, n);
  tvm_tir_buffer_obj* C = tvm_tir_buffer_decl(NAME("C"), TVM_TIR_FLOAT32, m, n);
  tvm_tir_var_obj* i = tvm_tir_var(NAME("i"), TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var(NAME("j"), TVM_TIR_INT32);
  tvm_tir_var_obj* kk = tvm_tir_var(NAME("k"), TVM_TIR_INT32);
  tvm_tir_var_obj* vi = tvm_tir_var(NAME("vi"), TVM_TIR_INT32);
  tvm_tir_var_obj* vj = tvm_tir_var(NAME("vj"), TVM_TIR_INT32);
  tvm_tir_var_obj* vk = tvm_tir_var(NAME("vk"), TVM_TIR_INT32);
#undef NAME
  /* C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj], with init C[vi, vj] = 0 */
  void* update = tvm_tir_store_take(
      ref(C),
      tvm_tir_add_take(tvm_tir_load_take(ref(C), ref(vi), ref(vj)),
                       tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(vi), ref(vk)),
                                        tvm_tir_load_take(ref(B), ref(vk), ref(vj)))),
      ref(vi), ref(vj));
  void* init = tvm_tir_store_take(ref(C), tvm_tir_f32(0), ref(vi), ref(vj));
  void* reads =
      tvm_tir_list_take(tvm_tir_region_take(ref(A), tvm_tir_range_take(ref(vi), tvm_tir_int(1)),
                                            tvm_tir_range_take(ref(vk), tvm_tir_int(1))),
                        tvm_tir_region_take(ref(B), tvm_tir_range_take(ref(vk), tvm_tir_int(1)),
                                            tvm_tir_range_take(ref(vj), tvm_tir_int(1))));
  void* writes =
      tvm_tir_list_take(tvm_tir_region_take(ref(C), tvm_tir_range_take(ref(vi), tvm_tir_int(1)),
                                            tvm_tir_range_take(ref(vj), tvm_tir_int(1))));
  /* The IterVars take the last references to vi, vj, vk. */
  void* iters = tvm_tir_list_take(
      tvm_tir_iter_var_take(vi, tvm_tir_int(0), tvm_tir_int(m), TVM_TIR_ITER_DATA_PAR),
      tvm_tir_iter_var_take(vj, tvm_tir_int(0), tvm_tir_int(n), TVM_TIR_ITER_DATA_PAR),
      tvm_tir_iter_var_take(vk, tvm_tir_int(0), tvm_tir_int(k), TVM_TIR_ITER_COMM_REDUCE));
  void* block = tvm_tir_block_full_take("update", iters, tvm_tir_list_take(ref(i), ref(j), ref(kk)),
                                        reads, writes, init, NULL, update);
  void* loops = tvm_tir_serial_take(
      i, tvm_tir_int(0), tvm_tir_int(m),
      tvm_tir_serial_take(j, tvm_tir_int(0), tvm_tir_int(n),
                          tvm_tir_serial_take(kk, tvm_tir_int(0), tvm_tir_int(k), block)));
  return tvm_tir_func_take("matmul", tvm_tir_list_take(A, B, C), loops);
}

void* tvm_tir_testing_block_with_matches(void* match_buffers, void* body) {
  tvm_tir_sblock_fields fields = {0};
  fields.name_hint = "m";
  fields.body = body;
  fields.match_buffers = match_buffers;
  tvm_tir_sblock_obj* block = match_buffers && body ? tvm_tir_sblock_new(&fields) : NULL;
  void* realize = block ? tvm_tir_sblock_realize_new(NULL, NULL, block) : NULL;
  tvm_ffi_release(match_buffers);
  tvm_ffi_release(body);
  tvm_ffi_release(block);
  return realize;
}

/* MatchBufferRegion of `alias` over A[r0 : r0 + e0, r1 : r1 + e1] (a new reference). */
static void* match2(tvm_tir_buffer_obj* alias, tvm_tir_buffer_obj* A, int64_t r0, int64_t e0,
                    int64_t r1, int64_t e1) {
  tvm_tir_buffer_region_obj* region =
      tvm_tir_region_take(ref(A), tvm_tir_range_take(tvm_tir_int(r0), tvm_tir_int(e0)),
                          tvm_tir_range_take(tvm_tir_int(r1), tvm_tir_int(e1)));
  void* m = region ? tvm_tir_match_buffer_region_new(alias, region) : NULL;
  tvm_ffi_release(region);
  return m;
}

void tvm_tir_testing_aliases_release(tvm_tir_testing_aliases* a) {
  void* objs[] = {a->A, a->S, a->S2, a->S3, a->off, a->s0, a->s1, a->match_buffers};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  memset(a, 0, sizeof(*a));
}

int tvm_tir_testing_make_aliases(tvm_tir_testing_aliases* out) {
  memset(out, 0, sizeof(*out));
  out->A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 4, 6);
  out->S = tvm_tir_buffer_decl("S", TVM_TIR_INT32, 2, 3);
  out->S2 = tvm_tir_buffer_decl("S2", TVM_TIR_INT32, 3);
  out->off = tvm_tir_var("off", TVM_TIR_INT32);
  out->s0 = tvm_tir_var("s0", TVM_TIR_INT32);
  out->s1 = tvm_tir_var("s1", TVM_TIR_INT32);
  void* shape3 = tvm_tir_list_take(tvm_tir_int(1), tvm_tir_int(2));
  void* strides3 = tvm_tir_list_take(ref(out->s0), ref(out->s1));
  tvm_tir_var_obj* d3 = tvm_tir_ptr_var("S3", TVM_TIR_INT32, NULL);
  if (shape3 && strides3 && d3 && out->off) {
    out->S3 = tvm_tir_buffer_new(&(tvm_tir_buffer_fields){.data = d3,
                                                          .dtype = TVM_TIR_INT32,
                                                          .shape = shape3,
                                                          .strides = strides3,
                                                          .elem_offset = &out->off->expr,
                                                          .name = "S3"});
  }
  tvm_ffi_release(shape3);
  tvm_ffi_release(strides3);
  tvm_ffi_release(d3);
  if (out->A && out->S && out->S2 && out->S3) {
    out->match_buffers = tvm_tir_list_take(match2(out->S, out->A, 1, 2, 2, 3),
                                           match2(out->S2, out->A, 3, 1, 0, 3),
                                           match2(out->S3, out->A, 2, 1, 4, 2));
  }
  if (!out->match_buffers) {
    tvm_tir_testing_aliases_release(out);
    return -1;
  }
  return 0;
}

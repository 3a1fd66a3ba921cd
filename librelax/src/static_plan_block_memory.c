/*
 * static_plan_block_memory.c: StaticPlanBlockMemory (tvm/relax/transform.h). The tensors that
 * CallTIRRewrite allocated with R.builtin.alloc_tensor and constant shapes are given storages:
 * walking the top-level bindings in order, a storage whose tensor's last use is behind us goes
 * back to a free pool, and an allocation takes a free storage (upstream's TokenAllocator1D rule:
 * the smallest one at least its size, else the largest smaller one, grown; within a factor of 16)
 * or a new one. Sizes are final after the walk, so the storages are emitted (at the first
 * allocation using each) in a second walk that rewrites the allocations.
 */
#include <stdio.h>
#include <string.h>

#include <tvm/relax/transform.h>

#include "internal.h"

/* The byte size of a planned allocation (constant shape, known dtype, device 0, global scope),
 * else -1. */
static int64_t static_bytes(const tvm_relax_binding_obj* b) {
  if (tvm_relax_kind_of(b) != TVM_RELAX_KIND_VarBinding) return -1;
  const tvm_relax_expr_obj* v = tvm_relax_binding_value(b);
  if (tvm_relax__call_op_id(v) != TVM_RELAX_OP_builtin_alloc_tensor) return -1;
  const tvm_relax_call_obj* c = (const void*)v;
  const tvm_relax_expr_obj* shape = tvm_ffi_seq_obj_at(c->args, 0);
  const tvm_relax_expr_obj* dev = tvm_ffi_seq_obj_at(c->args, 2);
  if (tvm_relax_kind_of(shape) != TVM_RELAX_KIND_ShapeExpr) return -1;
  int64_t d;
  if (!tvm_tir_as_const_int(((const tvm_relax_prim_value_obj*)dev)->value, &d) || d != 0) return -1;
  if (tvm_ffi_seq_size(c->args) > 3) {
    const tvm_relax_string_imm_obj* s = tvm_ffi_seq_obj_at(c->args, 3);
    const char* scope = tvm_ffi_str_cstr(s->value);
    if (scope[0] && strcmp(scope, "global") != 0) return -1;
  }
  DLDataType dt = ((const tvm_relax_dtype_imm_obj*)tvm_ffi_seq_obj_at(c->args, 1))->value;
  if (tvm_relax_dtype_is_unknown(dt)) return -1;
  int64_t bytes = ((int64_t)dt.bits * dt.lanes + 7) / 8;
  void* dims = ((const tvm_relax_shape_expr_obj*)shape)->values;
  for (int64_t i = 0; i < tvm_ffi_seq_size(dims); ++i) {
    if (!tvm_tir_as_const_int(tvm_ffi_seq_obj_at(dims, i), &d) || d < 0) return -1;
    if (d != 0 && bytes > INT64_MAX / d) return -1;
    bytes *= d;
  }
  return bytes;
}

static bool is_root(const tvm_relax_binding_obj* b) { return static_bytes(b) >= 0; }

typedef struct {
  int64_t bytes;
  int64_t first;      /* token whose allocation emits the storage */
  int64_t busy_until; /* the last use of the tensors given it so far */
  bool free;
} storage;

/* The storage for a request of `bytes` among the free ones, or -1. */
static int64_t pick(const storage* s, int64_t n, int64_t bytes) {
  int64_t best_up = -1, best_down = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (!s[i].free) continue;
    if (s[i].bytes >= bytes) {
      if (s[i].bytes / 16 > bytes) continue;
      if (best_up < 0 || s[i].bytes < s[best_up].bytes) best_up = i;
    } else {
      if (s[i].bytes < bytes / 16) continue;
      if (best_down < 0 || s[i].bytes > s[best_down].bytes) best_down = i;
    }
  }
  return best_up >= 0 ? best_up : best_down;
}

static int push_binding(void* list, tvm_relax_var_obj* var, tvm_relax_expr_obj* value) {
  tvm_relax_binding_obj* b = var && value ? tvm_relax_var_binding_new(var, value) : NULL;
  TVMFFIAny item = tvm_ffi_any_obj(b);
  int rc = b ? tvm_ffi_list_push(list, &item) : -1;
  tvm_ffi_release(b);
  return rc;
}

/* storage = R.memory.alloc_storage(R.shape([bytes]), R.prim_value(0), R.str("global"),
 * R.dtype("uint8")): the new Var (the size is in bytes, so the dtype hint is a byte). */
static tvm_relax_var_obj* emit_storage(void* list, int64_t bytes, int64_t k) {
  tvm_relax_expr_obj* size = tvm_relax_shape_expr_of_ints(&bytes, 1);
  tvm_relax_expr_obj* dev = tvm_relax_prim_value_int64(0);
  tvm_relax_expr_obj* scope = tvm_relax_string_imm_new("global", 6);
  tvm_relax_expr_obj* dt = tvm_relax_dtype_imm_new(tvm_ffi_dtype(kDLUInt, 8, 1));
  tvm_relax_expr_obj* call = size && dev && scope && dt
                                 ? tvm_relax_call_op("relax.memory.alloc_storage", NULL, 4, size, dev, scope, dt)
                                 : NULL;
  char name[32];
  if (k == 0) snprintf(name, sizeof(name), "storage");
  else snprintf(name, sizeof(name), "storage%lld", (long long)k);
  tvm_relax_var_obj* var = call ? tvm_relax_var_new(name, tvm_relax_sinfo_of(call), false) : NULL;
  int rc = push_binding(list, var, call);
  tvm_ffi_release(call), tvm_ffi_release(dt), tvm_ffi_release(scope), tvm_ffi_release(dev),
      tvm_ffi_release(size);
  if (rc != 0) {
    tvm_ffi_release(var);
    return NULL;
  }
  return var;
}

/* alloc = R.memory.alloc_tensor(storage, R.prim_value(0), shape, dtype) for the builtin
 * allocation b (same Var: the struct info is the same). */
static int emit_tensor(void* list, const tvm_relax_binding_obj* b, tvm_relax_var_obj* storage_var) {
  const tvm_relax_call_obj* c = (const void*)tvm_relax_binding_value(b);
  tvm_relax_expr_obj* off = tvm_relax_prim_value_int64(0);
  tvm_relax_expr_obj* call =
      off ? tvm_relax_call_op("relax.memory.alloc_tensor", NULL, 4, storage_var, off,
                              tvm_ffi_seq_obj_at(c->args, 0), tvm_ffi_seq_obj_at(c->args, 1))
          : NULL;
  int rc = push_binding(list, b->var, call);
  tvm_ffi_release(call), tvm_ffi_release(off);
  return rc;
}

static tvm_relax_function_obj* rewrite(tvm_relax_function_obj* f, void* ctx) {
  tvm_relax__liveness l;
  if (tvm_relax__liveness_init(&l, ctx, f, is_root) != 0) {
    tvm_relax__liveness_free(&l);
    return NULL;
  }
  int64_t planned = 0;
  for (int64_t t = 0; t < l.n; ++t) planned += !l.escapes[t];
  if (planned == 0) {
    tvm_relax__liveness_free(&l);
    tvm_ffi_retain(f);
    return f;
  }
  /* Plan: token -> storage. Tokens are numbered in order of their allocation. */
  int64_t* assign = tvm_ffi_calloc((size_t)l.n, sizeof(int64_t));
  storage* st = tvm_ffi_calloc((size_t)l.n, sizeof(storage));
  tvm_relax_var_obj** svars = tvm_ffi_calloc((size_t)l.n, sizeof(void*));
  void* lists = tvm_ffi_list_new();
  int rc = assign && st && svars && lists ? 0 : -1;
  int64_t ns = 0;
  const tvm_relax_seq_expr_obj* seq = (const void*)f->body;
  /* The top-level bindings by position. */
  const tvm_relax_binding_obj** at = tvm_ffi_calloc((size_t)(l.count ? l.count : 1), sizeof(void*));
  if (!at) rc = -1;
  for (int64_t i = 0, pos = 0; rc == 0 && i < tvm_ffi_seq_size(seq->blocks); ++i) {
    const tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(seq->blocks, i);
    for (int64_t j = 0; j < tvm_ffi_seq_size(blk->bindings); ++j) at[pos++] = tvm_ffi_seq_obj_at(blk->bindings, j);
  }
  for (int64_t t = 0; rc == 0 && t < l.n; ++t) {
    assign[t] = -1;
    if (l.escapes[t]) continue;
    /* A storage whose tensors were all last used before this allocation is free again. */
    for (int64_t s = 0; s < ns; ++s) st[s].free = st[s].busy_until < l.def[t];
    int64_t bytes = static_bytes(at[l.def[t]]);
    int64_t s = pick(st, ns, bytes);
    if (s < 0) {
      s = ns++;
      st[s].bytes = bytes, st[s].first = t;
    } else if (st[s].bytes < bytes) {
      st[s].bytes = bytes;
    }
    if (st[s].busy_until < l.last[t]) st[s].busy_until = l.last[t];
    assign[t] = s;
  }
  tvm_ffi_free(at);
  /* Rewrite: each planned allocation from its storage, the storage made at its first one. */
  int64_t pos = 0;
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(seq->blocks); ++i) {
    const tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(seq->blocks, i);
    void* list = tvm_ffi_list_new();
    TVMFFIAny item = tvm_ffi_any_obj(list);
    rc = list && tvm_ffi_list_push(lists, &item) == 0 ? 0 : -1;
    tvm_ffi_release(list);
    for (int64_t j = 0; rc == 0 && j < tvm_ffi_seq_size(blk->bindings); ++j, ++pos) {
      const tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(blk->bindings, j);
      TVMFFIAny key = tvm_ffi_any_obj(b->var);
      const TVMFFIAny* tv = tvm_ffi_map_get(l.token_of, &key);
      int64_t t = -1;
      if (tv) tvm_ffi_any_as_int(tv, &t);
      if (t < 0 || l.def[t] != pos || assign[t] < 0) {
        rc = tvm_ffi_list_push(list, tvm_ffi_seq_at(blk->bindings, j));
        continue;
      }
      int64_t s = assign[t];
      if (st[s].first == t) {
        svars[s] = emit_storage(list, st[s].bytes, s);
        if (!svars[s]) rc = -1;
      }
      if (rc == 0) rc = emit_tensor(list, b, svars[s]);
    }
  }
  tvm_relax_function_obj* out = rc == 0 ? tvm_relax__function_with_blocks(f, lists) : NULL;
  for (int64_t s = 0; svars && s < ns; ++s) tvm_ffi_release(svars[s]);
  tvm_ffi_free(svars);
  tvm_ffi_free(st);
  tvm_ffi_free(assign);
  tvm_ffi_release(lists);
  tvm_relax__liveness_free(&l);
  return out;
}

static tvm_tir_ir_module_obj* run_static_plan_block_memory(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__map_functions(mod, "StaticPlanBlockMemory", rewrite, (void*)mod);
}

tvm_tir_ir_module_obj* tvm_relax_transform_static_plan_block_memory(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__pass_set_aside(run_static_plan_block_memory, mod);
}

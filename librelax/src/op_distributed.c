/*
 * op_distributed.c: the distributed dialect's operators and the collective communication ones
 * (upstream: relax/op/distributed/distributed.cc, relax/op/ccl/ccl.cc).
 *
 *   R.dist.annotate_sharding(input, device_mesh, placement): input itself, a sharding hint for
 *     upstream's PropagateSharding; the placement must fit the mesh and input's rank.
 *   R.dist.redistribute(input, device_mesh, placement): input (a DTensor) laid out anew.
 *   R.dist.redistribute_replica_to_shard(input, num_workers, axis=0): each worker keeps its
 *     slice of axis (which num_workers must divide): of a tensor, that axis divided; of a
 *     replicated DTensor on a 1-d mesh of num_workers devices, the same global tensor
 *     sharded on axis ("S[axis]").
 *   R.ccl.allreduce(x, op_type="sum", in_group=True), R.ccl.broadcast_from_worker0(x): x's struct
 *     info; op_type one of sum, prod, min, max, avg.
 *   R.ccl.allgather(x, num_workers, in_group=True): axis 0 multiplied by num_workers.
 *   R.ccl.scatter_from_worker0(x, num_workers, axis=0): that axis divided by num_workers (a
 *     ValueError when provably not divisible).
 * The attribute device_mesh is a DeviceMesh object, placement its canonical text ("S[1], R").
 * The ccl operators take local tensors (upstream lowers them to runtime.disco.* calls); this
 * project has no distributed runtime, so LegalizeOps refuses all of them (legalize.c).
 */
#include <stdio.h>
#include <string.h>
#include <tvm/relax/distributed.h>

#include "internal.h"

const tvm_relax_attr_field tvm_relax__attrs_distribution[] = {
    {"device_mesh", TVM_RELAX_ATTR_ANY, NULL},
    {"placement", TVM_RELAX_ATTR_STR, NULL},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_allreduce[] = {
    {"op_type", TVM_RELAX_ATTR_STR, "sum"},
    {"in_group", TVM_RELAX_ATTR_BOOL, "true"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_allgather[] = {
    {"num_workers", TVM_RELAX_ATTR_INT, NULL},
    {"in_group", TVM_RELAX_ATTR_BOOL, "true"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_scatter_collective[] = {
    {"num_workers", TVM_RELAX_ATTR_INT, NULL}, {"axis", TVM_RELAX_ATTR_INT, "0"}, {NULL, 0, NULL}};

/* The attributes' mesh and parsed placement, checked against a tensor of rank ndim; the mesh is
 * borrowed, *placement a new reference. 0 or -1 + error. */
static int distribution(const tvm_relax__infer_ctx* ctx, int32_t ndim,
                        tvm_relax_device_mesh_obj** mesh, void** placement) {
  const TVMFFIAny* m = tvm_relax__attr(ctx, "device_mesh");
  if (!tvm_ffi_any_is_object(m) || tvm_relax_kind_of(m->v_obj) != TVM_RELAX_KIND_DeviceMesh) {
    tvm_relax__op_error(ctx, "TypeError", "attribute 'device_mesh' must be a DeviceMesh, got %s",
                        tvm_ffi_any_type_name(m));
    return -1;
  }
  const char* text = tvm_relax__attr_str(ctx, "placement");
  void* p = tvm_relax_placement_parse(text, strlen(text));
  char what[160];
  snprintf(what, sizeof(what), "%s: attribute 'placement'", ctx->op->name);
  if (!p || tvm_relax_placement_check(p, (tvm_relax_device_mesh_obj*)m->v_obj, ndim, what) != 0) {
    if (!p) tvm_ffi_raise_context("%s: attribute 'placement'", ctx->op->name);
    tvm_ffi_release(p);
    return -1;
  }
  *mesh = (tvm_relax_device_mesh_obj*)m->v_obj;
  *placement = p;
  return 0;
}

tvm_relax_sinfo_obj* tvm_relax__infer_annotate_sharding(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, 0);
  int32_t ndim;
  if (tvm_relax_kind_of(s) == TVM_RELAX_KIND_TensorStructInfo) {
    ndim = ((tvm_relax_tensor_sinfo_obj*)s)->ndim;
  } else if (tvm_relax_kind_of(s) == TVM_RELAX_KIND_DTensorStructInfo) {
    ndim = ((tvm_relax_tensor_sinfo_obj*)((tvm_relax_dtensor_sinfo_obj*)s)->tensor_sinfo)->ndim;
  } else {
    return tvm_relax__arg_kind_error(ctx, 0, "a tensor or a DTensor");
  }
  tvm_relax_device_mesh_obj* mesh;
  void* placement;
  if (distribution(ctx, ndim, &mesh, &placement) != 0) return NULL;
  tvm_ffi_release(placement);
  return retained_sinfo(s);
}

tvm_relax_sinfo_obj* tvm_relax__infer_redistribute(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, 0);
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_DTensorStructInfo) {
    return tvm_relax__arg_kind_error(ctx, 0, "a DTensor");
  }
  tvm_relax_sinfo_obj* t = ((tvm_relax_dtensor_sinfo_obj*)s)->tensor_sinfo;
  tvm_relax_device_mesh_obj* mesh;
  void* placement;
  if (distribution(ctx, ((tvm_relax_tensor_sinfo_obj*)t)->ndim, &mesh, &placement) != 0) {
    return NULL;
  }
  tvm_relax_sinfo_obj* out = tvm_relax_dtensor_sinfo_new(t, mesh, placement);
  tvm_ffi_release(placement);
  return out;
}

tvm_relax_sinfo_obj* tvm_relax__infer_ccl_same(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  if (ctx->op->id == TVM_RELAX_OP_ccl_allreduce) {
    static const char* const kOps[] = {"sum", "prod", "min", "max", "avg"};
    const char* op = tvm_relax__attr_str(ctx, "op_type");
    bool ok = false;
    for (size_t i = 0; i < sizeof(kOps) / sizeof(kOps[0]); ++i) ok = ok || strcmp(op, kOps[i]) == 0;
    if (!ok) {
      return tvm_relax__op_error(ctx, "ValueError",
                                 "attribute 'op_type' must be one of sum, prod, min, max, avg, "
                                 "got \"%s\"",
                                 op);
    }
  }
  return retained_sinfo(&x->base);
}

static int64_t num_workers(const tvm_relax__infer_ctx* ctx) {
  int64_t n = tvm_relax__attr_int(ctx, "num_workers");
  if (n < 1) {
    tvm_relax__op_error(ctx, "ValueError", "attribute 'num_workers' must be >= 1, got %lld",
                        (long long)n);
  }
  return n;
}

/* x's struct info with dim `axis` replaced by dim. */
static tvm_relax_sinfo_obj* with_dim(const tvm_relax_tensor_sinfo_obj* x, int64_t axis,
                                     tvm_tir_expr_obj* dim) {
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  int64_t nd = tvm_ffi_seq_size(dims);
  void** items = tvm_ffi_malloc((size_t)nd * sizeof(void*));
  if (!items) return NULL;
  for (int64_t i = 0; i < nd; ++i) items[i] = i == axis ? dim : tvm_ffi_seq_obj_at(dims, i);
  void* arr = tvm_ffi_array_of_objects(items, nd);
  tvm_ffi_free(items);
  tvm_relax_sinfo_obj* out =
      arr ? tvm_relax__tensor_result(arr, x->dtype, x->ndim, x->vdevice) : NULL;
  tvm_ffi_release(arr);
  return out;
}

tvm_relax_sinfo_obj* tvm_relax__infer_allgather(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  int64_t n = num_workers(ctx);
  if (n < 1) return NULL;
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  if (x->ndim == 0) return tvm_relax__arg_error(ctx, 0, "ValueError", "must have at least one dim");
  if (!dims) return retained_sinfo(&x->base);
  tvm_tir_expr_obj* k = tvm_relax__int64(n);
  tvm_tir_expr_obj* p = k ? tvm_tir_mul(tvm_ffi_seq_obj_at(dims, 0), k) : NULL;
  tvm_tir_expr_obj* d = p ? tvm_tir_simplify_expr(p, NULL) : NULL;
  tvm_ffi_release(p);
  tvm_ffi_release(k);
  tvm_relax_sinfo_obj* out = d ? with_dim(x, 0, d) : NULL;
  tvm_ffi_release(d);
  return out;
}

/* The axis of x that num_workers splits (attribute "axis"), checked: x's shape known, the axis
 * in range, its extent divisible where constant. 0 or -1 + error. */
static int split_axis(const tvm_relax__infer_ctx* ctx, const tvm_relax_tensor_sinfo_obj* x,
                      int64_t n, int64_t* axis) {
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  if (!dims) {
    tvm_relax__arg_error(ctx, 0, "ValueError", "must have a known shape");
    return -1;
  }
  if (tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), x->ndim, axis) != 0) {
    return -1;
  }
  int64_t c;
  if (tvm_tir_as_const_int(tvm_ffi_seq_obj_at(dims, *axis), &c) && c % n != 0) {
    tvm_relax__arg_error(ctx, 0, "ValueError",
                         "has %lld elements on axis %lld, not divisible by num_workers %lld",
                         (long long)c, (long long)*axis, (long long)n);
    return -1;
  }
  return 0;
}

tvm_relax_sinfo_obj* tvm_relax__infer_scatter_from_worker0(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  int64_t n = num_workers(ctx), axis;
  if (n < 1 || split_axis(ctx, x, n, &axis) != 0) return NULL;
  tvm_tir_expr_obj* dim = tvm_ffi_seq_obj_at(tvm_relax_tensor_sinfo_dims(&x->base), axis);
  tvm_tir_expr_obj* k = tvm_relax__int64(n);
  tvm_tir_expr_obj* q = k ? tvm_tir_floordiv(dim, k) : NULL;
  tvm_tir_expr_obj* d = q ? tvm_tir_simplify_expr(q, NULL) : NULL;
  tvm_ffi_release(q);
  tvm_ffi_release(k);
  tvm_relax_sinfo_obj* out = d ? with_dim(x, axis, d) : NULL;
  tvm_ffi_release(d);
  return out;
}

tvm_relax_sinfo_obj* tvm_relax__infer_replica_to_shard(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, 0);
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_DTensorStructInfo) {
    return tvm_relax__infer_scatter_from_worker0(ctx); /* a local tensor: its slice */
  }
  const tvm_relax_dtensor_sinfo_obj* d = (const tvm_relax_dtensor_sinfo_obj*)s;
  int64_t n = num_workers(ctx), axis;
  if (n < 1 || split_axis(ctx, (tvm_relax_tensor_sinfo_obj*)d->tensor_sinfo, n, &axis) != 0) {
    return NULL;
  }
  void* mesh_shape = d->device_mesh->shape;
  int64_t devices = -1;
  if (tvm_ffi_seq_size(mesh_shape) == 1) devices = tvm_ffi_seq_at(mesh_shape, 0)->v_int64;
  if (devices != n) {
    return tvm_relax__arg_error(ctx, 0, "ValueError",
                                "must be on a 1-d device mesh of num_workers (%lld) devices",
                                (long long)n);
  }
  char want[32];
  snprintf(want, sizeof(want), "S[%lld]", (long long)axis);
  void* placement = tvm_relax_placement_parse(want, strlen(want));
  tvm_ffi_strbuf text = {0};
  tvm_relax_placement_text(&text, d->placement);
  bool replica = strcmp(tvm_ffi_strbuf_cstr(&text), "R") == 0;
  tvm_ffi_strbuf_free(&text);
  tvm_relax_sinfo_obj* out = NULL;
  if (!replica) {
    tvm_relax__arg_error(ctx, 0, "ValueError", "must be replicated (placement \"R\")");
  } else if (placement) {
    out = tvm_relax_dtensor_sinfo_new(d->tensor_sinfo, d->device_mesh, placement);
  }
  tvm_ffi_release(placement);
  return out;
}

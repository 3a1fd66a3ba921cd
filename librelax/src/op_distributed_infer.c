/*
 * op_distributed_infer.c: ordinary operators on DTensor arguments, upstream's
 * "dist.FInferStructInfo" (relax/op/distributed/{unary,binary,linear_algebra,manipulate,nn,
 * statistical,ccl}.cc and the axis mapping of relax/distributed/axis_group_graph.cc).
 *
 * A call of an operator of the table below with a DTensor argument (tvm_relax__infer in
 * op_table.c) is inferred here:
 *   - every tensor argument must be a DTensor (a TypeError for a plain tensor among them, as
 *     upstream requires), all on one device mesh (structurally equal; a ValueError otherwise);
 *   - the result's local struct info is the operator's ordinary rule run on the arguments'
 *     tensors (its checks and errors included), and must be a tensor;
 *   - its placement: for each mesh dim on which an argument is sharded along axis a, the result
 *     is sharded along the result axis that a maps to by the operator's kind of rule (below);
 *     an axis that maps to none (a reduced axis, matmul's K, a broadcast axis of extent 1) leaves
 *     the mesh dim replicated, as upstream's axis graph does. Two arguments that shard one mesh
 *     dim along axes mapping to different result axes, or one result axis over different mesh
 *     dims, conflict: a ValueError where upstream fails an internal check or keeps either one.
 *
 * The kinds of rule (which upstream operators have one, and how axes map):
 *   ELEMWISE   the unary elementwise operators, nn.relu / gelu / gelu_tanh / silu: axis a to a;
 *   BROADCAST  the binary arithmetic, comparison, min / max, logical and bitwise operators:
 *              axes aligned from the right; an axis of extent 1 that the result broadcasts maps
 *              to none;
 *   MATMUL     the batch axes broadcast as above, x1's M and x2's N to the result's last two
 *              (one when a 1-d operand's added dim is dropped), K to none;
 *   PERMUTE    permute_dims: axis axes[i] to i;
 *   RESHAPE    reshape: axis i to the innermost result axis j whose suffix product (the product
 *              of the dims from j on) provably equals that of i (a shard along the outer axis
 *              of a merged or split group keeps its contiguous block); an axis of extent 1 to
 *              none. Upstream's walk maps the same pairs except the group of axis 0, which it
 *              never reaches; here that group maps as well;
 *   REDUCE     the statistical reductions (sum, mean, max, min, prod, std, variance): a reduced
 *              axis to none, the others to their place (keepdims or not);
 *   SOFTMAX    nn.softmax: the softmax axis to none, the others to themselves;
 *   REPLICATE  ccl.allreduce: replicated on every mesh dim (upstream's rule, a sum of partial
 *              results being whole on every device).
 * An axis that needs the shape to map (reshape, a broadcast axis of extent 1) maps when the
 * shapes are known; a sharded axis whose mapping needs an unknown rank or shape is a ValueError.
 */
#include <tvm/relax/distributed.h>

#include "internal.h"

typedef enum {
  DIST_NONE = 0, /* no distributed rule: a DTensor argument is refused by the ordinary rule */
  DIST_ELEMWISE,
  DIST_BROADCAST,
  DIST_MATMUL,
  DIST_PERMUTE,
  DIST_RESHAPE,
  DIST_REDUCE,
  DIST_SOFTMAX,
  DIST_REPLICATE,
} dist_rule;

/* The operators upstream registers a dist.FInferStructInfo for, by kind. */
/* clang-format off */
static const uint8_t k_rule[TVM_RELAX_OP_COUNT] = {
#define R(op, kind) [TVM_RELAX_OP_##op] = DIST_##kind
    R(abs, ELEMWISE), R(acos, ELEMWISE), R(acosh, ELEMWISE), R(asin, ELEMWISE),
    R(asinh, ELEMWISE), R(atan, ELEMWISE), R(atanh, ELEMWISE), R(bitwise_not, ELEMWISE),
    R(ceil, ELEMWISE), R(cos, ELEMWISE), R(cosh, ELEMWISE), R(exp, ELEMWISE), R(floor, ELEMWISE),
    R(log, ELEMWISE), R(logical_not, ELEMWISE), R(negative, ELEMWISE), R(round, ELEMWISE),
    R(rsqrt, ELEMWISE), R(sigmoid, ELEMWISE), R(sign, ELEMWISE), R(sin, ELEMWISE),
    R(sinh, ELEMWISE), R(square, ELEMWISE), R(sqrt, ELEMWISE), R(tan, ELEMWISE),
    R(tanh, ELEMWISE), R(erf, ELEMWISE), R(isfinite, ELEMWISE), R(isinf, ELEMWISE),
    R(isnan, ELEMWISE), R(nn_relu, ELEMWISE), R(nn_gelu, ELEMWISE), R(nn_gelu_tanh, ELEMWISE),
    R(nn_silu, ELEMWISE),
    R(add, BROADCAST), R(subtract, BROADCAST), R(multiply, BROADCAST), R(divide, BROADCAST),
    R(floor_divide, BROADCAST), R(power, BROADCAST), R(maximum, BROADCAST),
    R(minimum, BROADCAST), R(equal, BROADCAST), R(not_equal, BROADCAST), R(less, BROADCAST),
    R(less_equal, BROADCAST), R(greater, BROADCAST), R(greater_equal, BROADCAST),
    R(logical_and, BROADCAST), R(logical_or, BROADCAST), R(logical_xor, BROADCAST),
    R(bitwise_and, BROADCAST), R(bitwise_or, BROADCAST), R(bitwise_xor, BROADCAST),
    R(matmul, MATMUL), R(permute_dims, PERMUTE), R(reshape, RESHAPE),
    R(sum, REDUCE), R(mean, REDUCE), R(max, REDUCE), R(min, REDUCE), R(prod, REDUCE),
    R(std, REDUCE), R(variance, REDUCE),
    R(nn_softmax, SOFTMAX), R(ccl_allreduce, REPLICATE),
#undef R
};
/* clang-format on */

bool tvm_relax__has_dist_rule(tvm_relax_op_id id) {
  return id >= 0 && id < TVM_RELAX_OP_COUNT && k_rule[id] != DIST_NONE;
}

/* What an argument's axis maps to: a result axis >= 0, or one of these (AXIS_ERROR: an error
 * was raised). */
enum { AXIS_NONE = -1, AXIS_UNKNOWN = -2, AXIS_ERROR = -3 };

typedef struct {
  const tvm_relax__infer_ctx* ctx;       /* with local_sinfo set */
  const tvm_relax_tensor_sinfo_obj* out; /* the local result */
  dist_rule rule;
} dist_map;

/* Argument i's local tensor, or NULL (not a tensor). */
static const tvm_relax_tensor_sinfo_obj* local_tensor(const dist_map* m, int32_t i) {
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(m->ctx, i);
  return tvm_relax_kind_of(s) == TVM_RELAX_KIND_TensorStructInfo ? (const void*)s : NULL;
}

/* Dim a of t, or NULL when t's shape is unknown. */
static tvm_tir_expr_obj* dim_at(const tvm_relax_tensor_sinfo_obj* t, int64_t a) {
  void* dims = tvm_relax_tensor_sinfo_dims(&t->base);
  return dims && a >= 0 && a < tvm_ffi_seq_size(dims) ? tvm_ffi_seq_obj_at(dims, a) : NULL;
}

static bool is_one(const tvm_tir_expr_obj* d) {
  int64_t c;
  return d && tvm_tir_as_const_int(d, &c) && c == 1;
}

/* Axis `axis` of x aligned from the right to result axis o: o, or none when x's dim there is 1
 * and the result's is not (a broadcast axis); unknown when that cannot be told. */
static int64_t aligned(const dist_map* m, const tvm_relax_tensor_sinfo_obj* x, int64_t axis,
                       int64_t o) {
  tvm_tir_expr_obj* d = dim_at(x, axis);
  if (!d) return o; /* (a dim 1 that is sharded is no placement a DTensor can have) */
  if (!is_one(d)) return o;
  tvm_tir_expr_obj* od = dim_at(m->out, o);
  if (!od) return AXIS_UNKNOWN;
  return is_one(od) ? o : AXIS_NONE;
}

static int64_t map_broadcast(const dist_map* m, const tvm_relax_tensor_sinfo_obj* x, int64_t axis) {
  if (x->ndim == TVM_RELAX_UNKNOWN_NDIM || m->out->ndim == TVM_RELAX_UNKNOWN_NDIM) {
    return AXIS_UNKNOWN;
  }
  return aligned(m, x, axis, axis + m->out->ndim - x->ndim);
}

/* matmul, as upstream's BuildAxisGraphMatmul: a 1-d x1 is a row (1, K), a 1-d x2 a column
 * (K, 1), the added dim dropped from the result. */
static int64_t map_matmul(const dist_map* m, int32_t arg, int64_t axis) {
  const tvm_relax_tensor_sinfo_obj* a = local_tensor(m, 0);
  const tvm_relax_tensor_sinfo_obj* b = local_tensor(m, 1);
  if (!a || !b || a->ndim == TVM_RELAX_UNKNOWN_NDIM || b->ndim == TVM_RELAX_UNKNOWN_NDIM) {
    return AXIS_UNKNOWN;
  }
  bool prepend = a->ndim == 1, append = b->ndim == 1;
  int64_t pa = prepend ? 0 : a->ndim - 2, pb = append ? 0 : b->ndim - 2;
  int64_t batch = pa > pb ? pa : pb;
  if (arg == 0) {
    if (axis < pa) return aligned(m, a, axis, axis + batch - pa);
    return axis == a->ndim - 1 ? AXIS_NONE : batch; /* K, or M */
  }
  if (axis < pb) return aligned(m, b, axis, axis + batch - pb);
  if (append || axis == b->ndim - 2) return AXIS_NONE; /* K */
  return batch + (prepend ? 0 : 1);                    /* N */
}

/* An axis of an attribute, normalised against ndim (the ordinary rule checked its range). */
static int64_t norm_axis(const TVMFFIAny* v, int64_t ndim) {
  int64_t a = 0;
  tvm_ffi_any_as_int(v, &a);
  return a < 0 ? a + ndim : a;
}

static int64_t map_permute(const dist_map* m, const tvm_relax_tensor_sinfo_obj* x, int64_t axis) {
  if (x->ndim == TVM_RELAX_UNKNOWN_NDIM) return AXIS_UNKNOWN;
  void* axes = tvm_relax__attr_ints(m->ctx, "axes");
  for (int64_t i = 0; i < x->ndim; ++i) {
    int64_t p = axes ? norm_axis(tvm_ffi_seq_at(axes, i), x->ndim) : x->ndim - 1 - i;
    if (p == axis) return i;
  }
  return AXIS_NONE;
}

/* The product of dims[from..) (new reference), or NULL + error. */
static tvm_tir_expr_obj* suffix_product(void* dims, int64_t from) {
  tvm_tir_expr_obj* p = tvm_relax__int64(1);
  for (int64_t i = from; p && i < tvm_ffi_seq_size(dims); ++i) {
    tvm_tir_expr_obj* q = tvm_tir_mul(p, tvm_ffi_seq_obj_at(dims, i));
    tvm_ffi_release(p);
    p = q;
  }
  if (!p || tvm_tir_kind_of(p) == TVM_TIR_KIND_IntImm) return p;
  tvm_tir_expr_obj* s = tvm_tir_simplify_expr(p, NULL);
  tvm_ffi_release(p);
  return s;
}

/* reshape (see the head comment). */
static int64_t map_reshape(const dist_map* m, const tvm_relax_tensor_sinfo_obj* x, int64_t axis) {
  void* old_dims = tvm_relax_tensor_sinfo_dims(&x->base);
  void* new_dims = tvm_relax_tensor_sinfo_dims(&m->out->base);
  if (!old_dims || !new_dims) return AXIS_UNKNOWN;
  if (is_one(tvm_ffi_seq_obj_at(old_dims, axis))) return AXIS_NONE;
  tvm_tir_expr_obj* want = suffix_product(old_dims, axis);
  if (!want) return AXIS_ERROR;
  int64_t found = AXIS_NONE;
  for (int64_t j = tvm_ffi_seq_size(new_dims) - 1; j >= 0 && found == AXIS_NONE; --j) {
    tvm_tir_expr_obj* p = suffix_product(new_dims, j);
    if (!p) {
      found = AXIS_ERROR;
    } else if (tvm_relax__dim_equal(p, want)) {
      found = j;
    }
    tvm_ffi_release(p);
  }
  tvm_ffi_release(want);
  return found;
}

static int64_t map_reduce(const dist_map* m, const tvm_relax_tensor_sinfo_obj* x, int64_t axis) {
  if (x->ndim == TVM_RELAX_UNKNOWN_NDIM) return AXIS_UNKNOWN;
  void* axes = tvm_relax__attr_ints(m->ctx, "axis");
  if (!axes) return AXIS_NONE; /* every axis reduced */
  bool keepdims = tvm_relax__attr_bool(m->ctx, "keepdims");
  int64_t before = 0; /* reduced axes before `axis` */
  for (int64_t i = 0; i < tvm_ffi_seq_size(axes); ++i) {
    int64_t a = norm_axis(tvm_ffi_seq_at(axes, i), x->ndim);
    if (a == axis) return AXIS_NONE;
    before += a < axis;
  }
  return keepdims ? axis : axis - before;
}

/* Where axis `axis` of argument arg goes in the result. */
static int64_t map_axis(const dist_map* m, int32_t arg, int64_t axis) {
  const tvm_relax_tensor_sinfo_obj* x = local_tensor(m, arg);
  if (!x) return AXIS_NONE;
  switch (m->rule) {
    case DIST_ELEMWISE:
      return axis;
    case DIST_BROADCAST:
      return map_broadcast(m, x, axis);
    case DIST_MATMUL:
      return map_matmul(m, arg, axis);
    case DIST_PERMUTE:
      return map_permute(m, x, axis);
    case DIST_RESHAPE:
      return arg == 0 ? map_reshape(m, x, axis) : AXIS_NONE;
    case DIST_REDUCE:
      return map_reduce(m, x, axis);
    case DIST_SOFTMAX:
      if (x->ndim == TVM_RELAX_UNKNOWN_NDIM) return AXIS_UNKNOWN;
      return axis == norm_axis(tvm_relax__attr(m->ctx, "axis"), x->ndim) ? AXIS_NONE : axis;
    default:
      return AXIS_NONE;
  }
}

/* The mesh dims of mask as "0, 1" into b. */
static const char* dims_text(tvm_ffi_strbuf* b, uint64_t mask) {
  for (int j = 0; j < 64; ++j) {
    if (mask >> j & 1) tvm_ffi_strbuf_printf(b, "%s%d", b->size ? ", " : "", j);
  }
  return tvm_ffi_strbuf_cstr(b);
}

enum { MAX_ARGS = 4, MAX_MESH_DIMS = 64 };

/* The result's placement specs into spec[0..mdim) from the DTensor arguments dt (NULL for an
 * argument that is none). 0, or -1 + error. */
static int place(const dist_map* m, const tvm_relax_dtensor_sinfo_obj* const* dt, int64_t mdim,
                 int64_t* spec) {
  const tvm_relax__infer_ctx* ctx = m->ctx;
  int32_t n = ctx->num_args, who[MAX_MESH_DIMS];
  /* tgt[i][j]: where argument i's shard along mesh dim j goes (AXIS_NONE: unsharded there) */
  int64_t tgt[MAX_ARGS][MAX_MESH_DIMS];
  for (int64_t j = 0; j < mdim; ++j) spec[j] = TVM_RELAX_PLACEMENT_REPLICA, who[j] = -1;
  for (int32_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < mdim; ++j) {
      int64_t a = dt[i] ? tvm_ffi_seq_at(dt[i]->placement, j)->v_int64 : -1;
      int64_t t = a >= 0 ? map_axis(m, i, a) : AXIS_NONE;
      tgt[i][j] = t;
      if (t == AXIS_ERROR) return -1;
      if (t == AXIS_UNKNOWN) {
        tvm_relax__arg_error(ctx, i, "ValueError",
                             "is sharded along axis %lld (mesh dim %lld), and where that axis "
                             "goes in the result needs the rank and shapes, which are not known",
                             (long long)a, (long long)j);
        return -1;
      }
      if (t < 0) continue;
      if (spec[j] >= 0 && spec[j] != t) {
        tvm_ffi_strbuf na = {0}, nb = {0};
        tvm_relax__arg_name(ctx, who[j], &na);
        tvm_relax__arg_name(ctx, i, &nb);
        tvm_relax__op_error(ctx, "ValueError",
                            "arguments '%s' and '%s' shard mesh dim %lld along axes that go to "
                            "different axes of the result (%lld and %lld)",
                            tvm_ffi_strbuf_cstr(&na), tvm_ffi_strbuf_cstr(&nb), (long long)j,
                            (long long)spec[j], (long long)t);
        tvm_ffi_strbuf_free(&na);
        tvm_ffi_strbuf_free(&nb);
        return -1;
      }
      spec[j] = t;
      who[j] = i;
    }
  }
  /* A result axis sharded over several mesh dims: each argument that shards it must shard it
   * over all of them (a device holds one block of it). */
  for (int64_t j = 0; j < mdim; ++j) {
    if (spec[j] < 0) continue;
    uint64_t all = 0;
    for (int64_t k = 0; k < mdim; ++k) all |= (uint64_t)(spec[k] == spec[j]) << k;
    for (int32_t i = 0; i < n; ++i) {
      uint64_t mine = 0;
      for (int64_t k = 0; k < mdim; ++k) mine |= (uint64_t)(tgt[i][k] == spec[j]) << k;
      if (mine == 0 || mine == all) continue;
      tvm_ffi_strbuf name = {0}, a = {0}, b = {0};
      tvm_relax__arg_name(ctx, i, &name);
      tvm_relax__op_error(ctx, "ValueError",
                          "argument '%s' shards the result's axis %lld over mesh dims [%s], "
                          "another argument over [%s]",
                          tvm_ffi_strbuf_cstr(&name), (long long)spec[j], dims_text(&a, mine),
                          dims_text(&b, all & ~mine));
      tvm_ffi_strbuf_free(&name);
      tvm_ffi_strbuf_free(&a);
      tvm_ffi_strbuf_free(&b);
      return -1;
    }
  }
  return 0;
}

/* A mesh as R.device_mesh((2, 2), [0, 1, 2, 3]) into b. */
static const char* mesh_text(tvm_ffi_strbuf* b, const tvm_relax_device_mesh_obj* mesh) {
  for (int pass = 0; pass < 2; ++pass) {
    void* seq = pass == 0 ? mesh->shape : mesh->device_ids;
    int64_t n = tvm_ffi_seq_size(seq);
    tvm_ffi_strbuf_puts(b, pass == 0 ? "R.device_mesh((" : ", [");
    for (int64_t i = 0; i < n; ++i) {
      tvm_ffi_strbuf_printf(b, "%s%lld", i ? ", " : "", (long long)tvm_ffi_seq_at(seq, i)->v_int64);
    }
    tvm_ffi_strbuf_puts(b, pass == 0 ? (n == 1 ? ",)" : ")") : "])");
  }
  return tvm_ffi_strbuf_cstr(b);
}

/* The arguments checked (DTensors on one mesh, no plain tensor among them) into dt and local;
 * the first DTensor's index, or -1 + error. */
static int32_t check_args(const tvm_relax__infer_ctx* ctx, const tvm_relax_dtensor_sinfo_obj** dt,
                          tvm_relax_sinfo_obj** local) {
  int32_t first = -1, plain = -1;
  for (int32_t i = 0; i < ctx->num_args; ++i) {
    tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, i);
    tvm_relax_kind k = tvm_relax_kind_of(s);
    dt[i] = NULL;
    local[i] = s;
    if (k == TVM_RELAX_KIND_TensorStructInfo && plain < 0) plain = i;
    if (k != TVM_RELAX_KIND_DTensorStructInfo) continue;
    dt[i] = (const tvm_relax_dtensor_sinfo_obj*)s;
    local[i] = dt[i]->tensor_sinfo;
    if (first < 0) {
      first = i;
    } else if (!tvm_relax__obj_equal(dt[first]->device_mesh, dt[i]->device_mesh)) {
      tvm_ffi_strbuf na = {0}, nb = {0}, sa = {0}, sb = {0};
      tvm_relax__arg_name(ctx, first, &na);
      tvm_relax__arg_name(ctx, i, &nb);
      tvm_relax__op_error(
          ctx, "ValueError", "arguments '%s' and '%s' are on different device meshes: %s and %s",
          tvm_ffi_strbuf_cstr(&na), tvm_ffi_strbuf_cstr(&nb),
          mesh_text(&sa, dt[first]->device_mesh), mesh_text(&sb, dt[i]->device_mesh));
      tvm_ffi_strbuf_free(&na), tvm_ffi_strbuf_free(&nb);
      tvm_ffi_strbuf_free(&sa), tvm_ffi_strbuf_free(&sb);
      return -1;
    }
  }
  if (plain >= 0) {
    tvm_ffi_strbuf np = {0}, nd = {0}, sp = {0};
    tvm_relax__arg_name(ctx, plain, &np);
    tvm_relax__arg_name(ctx, first, &nd);
    tvm_relax_sinfo_text(&sp, tvm_relax__arg_sinfo(ctx, plain));
    tvm_relax__op_error(ctx, "TypeError",
                        "argument '%s' is a tensor (%s) but '%s' is a DTensor: a distributed "
                        "operator takes DTensors only",
                        tvm_ffi_strbuf_cstr(&np), tvm_ffi_strbuf_cstr(&sp),
                        tvm_ffi_strbuf_cstr(&nd));
    tvm_ffi_strbuf_free(&np), tvm_ffi_strbuf_free(&nd), tvm_ffi_strbuf_free(&sp);
    return -1;
  }
  return first;
}

tvm_relax_sinfo_obj* tvm_relax__infer_dist(const tvm_relax__infer_ctx* ctx,
                                           tvm_relax__infer_fn rule) {
  if (ctx->num_args > MAX_ARGS) {
    return tvm_relax__op_error(ctx, "ValueError", "a distributed rule takes at most %d arguments",
                               MAX_ARGS);
  }
  const tvm_relax_dtensor_sinfo_obj* dt[MAX_ARGS];
  tvm_relax_sinfo_obj* local[MAX_ARGS];
  int32_t first = check_args(ctx, dt, local);
  if (first < 0) return NULL;
  tvm_relax_device_mesh_obj* mesh = dt[first]->device_mesh;
  int64_t mdim = tvm_relax_device_mesh_ndim(mesh);
  if (mdim > MAX_MESH_DIMS) {
    return tvm_relax__op_error(ctx, "ValueError", "a device mesh of %lld dims is too many",
                               (long long)mdim);
  }
  tvm_relax__infer_ctx sub = *ctx;
  sub.local_sinfo = local;
  tvm_relax_sinfo_obj* out = rule(&sub);
  if (!out) return NULL;
  if (tvm_relax_kind_of(out) != TVM_RELAX_KIND_TensorStructInfo) {
    tvm_ffi_strbuf b = {0};
    tvm_relax_sinfo_text(&b, out);
    tvm_relax__op_error(ctx, "TypeError", "the result on DTensors must be a tensor, got %s",
                        tvm_ffi_strbuf_cstr(&b));
    tvm_ffi_strbuf_free(&b);
    tvm_ffi_release(out);
    return NULL;
  }
  dist_map m = {&sub, (const tvm_relax_tensor_sinfo_obj*)out, (dist_rule)k_rule[ctx->op->id]};
  int64_t spec[MAX_MESH_DIMS];
  tvm_relax_sinfo_obj* result = NULL;
  if (place(&m, dt, mdim, spec) == 0) {
    TVMFFIAny items[MAX_MESH_DIMS];
    for (int64_t j = 0; j < mdim; ++j) items[j] = tvm_ffi_any_int(spec[j]);
    void* placement = tvm_ffi_array_new(items, mdim);
    if (placement) result = tvm_relax_dtensor_sinfo_new(out, mesh, placement);
    tvm_ffi_release(placement);
  }
  tvm_ffi_release(out);
  return result;
}

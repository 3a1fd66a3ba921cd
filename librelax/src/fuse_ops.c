/*
 * fuse_ops.c: FuseOps (tvm/relax/transform.h), upstream's relax.transform.FuseOps.
 *
 * Per DataflowBlock of each Relax function (functions with "Primitive" are skipped):
 *
 * 1. The graph: one node per binding. A call_tir of a PrimFunc with an "op_pattern" attribute
 *    (AnnotateTIROpPattern) has that pattern, provided the fused kernel can be built from it
 *    (tensor arguments given as Vars or Constants in a Tuple, known shapes and dtypes, one buffer
 *    parameter per argument and output); a TupleGetItem is kInjective; anything else kOpaque. An
 *    edge goes from each binding to each binding of the block that uses its variable, with the
 *    user's pattern. A binding whose variable is not a DataflowVar is used outside the block
 *    (extern_ref).
 * 2. The post-dominator tree, in reverse order: a node's parent is the least common ancestor of
 *    its users (extern_ref nodes and nodes without users are roots), and its pattern the maximum
 *    over the edges and tree nodes passed. The LCA walk is cut after a budget of steps (the
 *    node then gets no parent): every step passes a node that would join the group, so a walk
 *    longer than the fusion depth limit can never lead to a fusion, and the tree costs
 *    O(nodes * budget + edges) instead of O(nodes * depth).
 * 3. Upstream's GraphPartitioner over union-find groups, phase 0 then 1: a kOutEWiseFusable
 *    node (matmul, conv, softmax) takes its post-dominator when the path is elementwise and
 *    every node on it at most broadcast (epilogues); an elementwise/broadcast node fuses into an
 *    injective or reducing post-dominator through injective nodes (the sink may be anything up
 *    to kOutEWiseFusable); injective nodes fuse along injective paths in phase 1. Upstream's
 *    third phase fuses into tuple nodes, which Relax's graph never has (Tuple bindings are
 *    opaque), so it is not run. Groups are limited to kMaxFusedOps (256) bindings; the path
 *    walks (CountNodesUptoSink, CheckPath, CommitFuse) stop at that size, so each costs
 *    O(256) and the pass is linear in the block.
 * 4. Each group of two or more bindings becomes a Relax function `fused_<kernel>_<kernel>...`
 *    (attribute Primitive = 1, private) whose parameters are the values it uses from outside
 *    (Vars and lifted Constants, in order of first use, their symbolic variables renewed) and
 *    whose result is each of its variables used outside the group (one, or a tuple). The block
 *    then calls it: `v = fused(args)`, or `t = fused(args); v1 = t[0]; v2 = t[1]` (the group's
 *    variables keep their identity, so nothing downstream is remapped). Groups are emitted in a
 *    topological order of their dependencies that follows the original order where it can
 *    (upstream's TopoSortByGroupDep); a binding whose struct info names a symbolic variable a
 *    MatchCast of the block defines depends on that MatchCast (symbolic_edges). A TupleGetItem whose tuple comes from outside its group
 *    leaves the group (its field becomes a parameter). A group is left unfused when a result is
 *    a tuple, or when a symbolic variable of its bindings is not defined by its parameters
 *    (upstream would add a shape parameter).
 */
#include <stdio.h>
#include <string.h>

#include <tvm/relax/analysis.h>
#include <tvm/relax/transform.h>

#include "internal.h"

enum { MAX_FUSE_DEPTH = 256, LCA_BUDGET = 2 * MAX_FUSE_DEPTH, EDGE_BUDGET = 16 * MAX_FUSE_DEPTH, MAX_NAME = 96 };

enum {
  P_ELEMWISE = TVM_RELAX_PATTERN_ELEMWISE,
  P_BROADCAST = TVM_RELAX_PATTERN_BROADCAST,
  P_INJECTIVE = TVM_RELAX_PATTERN_INJECTIVE,
  P_REDUCE = TVM_RELAX_PATTERN_COMM_REDUCE,
  P_OUT_EWISE = TVM_RELAX_PATTERN_OUT_EWISE_FUSABLE,
  P_TUPLE = TVM_RELAX_PATTERN_TUPLE,
  P_OPAQUE = TVM_RELAX_PATTERN_OPAQUE,
};

typedef struct {
  int64_t src, dst;
  int8_t pattern;
} edge;

/* The graph of one block and the partition. Arrays indexed by node (binding). */
typedef struct {
  const tvm_tir_ir_module_obj* mod;
  const void* defined; /* ffi.Dict of the TIR variables defined before the block */
  void* bindings;      /* the block's ffi.Array of bindings */
  int64_t n;
  void* index; /* ffi.Dict Var -> node */
  int8_t* pattern;
  bool* extern_ref;
  edge* edges;
  int64_t nedges, cap;
  int64_t* out_start; /* CSR of the out edges: out_start[n + 1], out_dst, out_pat */
  int64_t* out_dst;
  int8_t* out_pat;
  /* post-dominator tree */
  int64_t* dom_parent;
  int64_t* dom_depth;
  int8_t* dom_pattern;
  /* groups (union-find) */
  int64_t* gparent;
  int64_t* gsize;
  int8_t* gpattern;
  bool* ganchor;
  /* DFS state: stamps and an explicit stack */
  int64_t* stamp;
  int64_t gen;
  int64_t* stack;
} graph;

static tvm_relax_binding_obj* binding_at(const graph* g, int64_t i) {
  return tvm_ffi_seq_obj_at(g->bindings, i);
}

static int add_edge(graph* g, int64_t src, int64_t dst, int8_t pattern) {
  if (g->nedges == g->cap) {
    int64_t cap = g->cap ? 2 * g->cap : 64;
    edge* e = tvm_ffi_realloc(g->edges, (size_t)cap * sizeof(edge));
    if (!e) return -1;
    g->edges = e;
    g->cap = cap;
  }
  g->edges[g->nedges++] = (edge){src, dst, pattern};
  return 0;
}

/* The node of a Var bound earlier in the block, else -1. */
static int64_t node_of(const graph* g, const void* var) {
  TVMFFIAny k = tvm_ffi_any_obj(var);
  const TVMFFIAny* v = tvm_ffi_map_get(g->index, &k);
  return v ? v->v_int64 : -1;
}

/* ---- Building the graph ----------------------------------------------------------------------- */
static bool known_tensor(const tvm_relax_sinfo_obj* s) {
  return tvm_relax_kind_of(s) == TVM_RELAX_KIND_TensorStructInfo && tvm_relax_tensor_sinfo_dims(s) &&
         !tvm_relax_dtype_is_unknown(((const tvm_relax_tensor_sinfo_obj*)s)->dtype);
}

/* The number of tensors of a call_tir output struct info that the fused kernel can write (a
 * known tensor, or a tuple of them), else -1. */
static int64_t output_count(const tvm_relax_sinfo_obj* s) {
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_TupleStructInfo) return known_tensor(s) ? 1 : -1;
  void* fields = ((const tvm_relax_tuple_sinfo_obj*)s)->fields;
  for (int64_t i = 0; i < tvm_ffi_seq_size(fields); ++i) {
    if (!known_tensor(tvm_ffi_seq_obj_at(fields, i))) return -1;
  }
  return tvm_ffi_seq_size(fields) > 0 ? tvm_ffi_seq_size(fields) : -1;
}

int32_t tvm_relax__fusible_call_tir(const tvm_tir_ir_module_obj* mod, const void* value) {
  if (tvm_relax__call_op_id(value) != TVM_RELAX_OP_call_tir) return -1;
  const tvm_relax_call_obj* call = value;
  if (tvm_ffi_seq_size(call->args) != 2 || tvm_ffi_seq_size(call->sinfo_args) != 1) return -1;
  void* gv = tvm_ffi_seq_obj_at(call->args, 0);
  tvm_relax_expr_obj* args = tvm_ffi_seq_obj_at(call->args, 1);
  if (tvm_tir_kind_of(gv) != TVM_TIR_KIND_GlobalVar || tvm_relax_kind_of(args) != TVM_RELAX_KIND_Tuple) {
    return -1;
  }
  TVMFFIAny key = tvm_ffi_any_obj(gv);
  const TVMFFIAny* fv = tvm_ffi_map_get(mod->functions, &key);
  if (!fv || !tvm_tir_is(fv->v_obj, TVM_TIR_KIND_PrimFunc)) return -1;
  const tvm_tir_prim_func_obj* f = (void*)fv->v_obj;
  const TVMFFIAny* pat = f->func.attrs ? tvm_ffi_map_get_str(f->func.attrs, "op_pattern") : NULL;
  int64_t kind = P_OPAQUE;
  if (pat && (!tvm_ffi_any_as_int(pat, &kind) || kind < 0 || kind > P_OPAQUE)) kind = P_OPAQUE;
  void* fields = ((tvm_relax_tuple_obj*)args)->fields;
  int64_t nin = tvm_ffi_seq_size(fields);
  for (int64_t i = 0; i < nin; ++i) {
    tvm_relax_expr_obj* a = tvm_ffi_seq_obj_at(fields, i);
    tvm_relax_kind k = tvm_relax_kind_of(a);
    if ((k != TVM_RELAX_KIND_Var && k != TVM_RELAX_KIND_DataflowVar && k != TVM_RELAX_KIND_Constant) ||
        !known_tensor(tvm_relax_sinfo_of(a))) {
      return -1;
    }
  }
  int64_t nout = output_count(tvm_ffi_seq_obj_at(call->sinfo_args, 0));
  if (nout < 0 || tvm_ffi_seq_size(f->params) != nin + nout) return -1;
  for (int64_t i = 0; i < nin + nout; ++i) {
    TVMFFIAny p = tvm_ffi_any_obj(tvm_ffi_seq_obj_at(f->params, i));
    if (!tvm_ffi_map_get(f->buffer_map, &p)) return -1;
  }
  return (int32_t)kind;
}

/* The Vars the value uses (borrowed), through fn. */
typedef int (*use_fn)(graph* g, int64_t user, const void* var, int8_t pattern);

static int use_leaf(graph* g, int64_t user, const void* e, int8_t pattern, use_fn fn) {
  tvm_relax_kind k = tvm_relax_kind_of(e);
  if (k == TVM_RELAX_KIND_Var || k == TVM_RELAX_KIND_DataflowVar) return fn(g, user, e, pattern);
  if (k == TVM_RELAX_KIND_Tuple) {
    void* fields = ((const tvm_relax_tuple_obj*)e)->fields;
    for (int64_t i = 0; i < tvm_ffi_seq_size(fields); ++i) {
      if (use_leaf(g, user, tvm_ffi_seq_obj_at(fields, i), pattern, fn) != 0) return -1;
    }
  }
  return 0;
}

static int uses(graph* g, int64_t user, const void* value, int8_t pattern, use_fn fn) {
  switch (tvm_relax_kind_of(value)) {
    case TVM_RELAX_KIND_Var:
    case TVM_RELAX_KIND_DataflowVar:
    case TVM_RELAX_KIND_Tuple:
      return use_leaf(g, user, value, pattern, fn);
    case TVM_RELAX_KIND_TupleGetItem:
      return use_leaf(g, user, ((const tvm_relax_tuple_get_item_obj*)value)->tuple_value, pattern, fn);
    case TVM_RELAX_KIND_Call: {
      const tvm_relax_call_obj* c = value;
      if (use_leaf(g, user, c->op, pattern, fn) != 0) return -1;
      for (int64_t i = 0; i < tvm_ffi_seq_size(c->args); ++i) {
        if (use_leaf(g, user, tvm_ffi_seq_obj_at(c->args, i), pattern, fn) != 0) return -1;
      }
      return 0;
    }
    default: {
      /* Anything else (a nested function, ...): every free variable. */
      void* vars = tvm_relax_free_vars(value);
      if (!vars) return -1;
      int rc = 0;
      for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(vars); ++i) {
        rc = fn(g, user, tvm_ffi_seq_obj_at(vars, i), pattern);
      }
      tvm_ffi_release(vars);
      return rc;
    }
  }
}

static int edge_from_use(graph* g, int64_t user, const void* var, int8_t pattern) {
  int64_t src = node_of(g, var);
  return src >= 0 ? add_edge(g, src, user, pattern) : 0;
}

/* Appends to `defs` (ffi.Dict tir.Var -> at) the variables struct info s defines that are not
 * in `defined` or defs yet. 0, or -1 + error. */
static int add_defs(const tvm_relax_sinfo_obj* s, const void* defined, void* defs, int64_t at) {
  void* vars = tvm_ffi_list_new();
  int rc = vars ? tvm_relax_sinfo_tir_vars(s, true, vars) : -1;
  for (int64_t k = 0; rc == 0 && k < tvm_ffi_seq_size(vars); ++k) {
    const TVMFFIAny* v = tvm_ffi_seq_at(vars, k);
    if ((defined && tvm_ffi_map_get(defined, v)) || tvm_ffi_map_get(defs, v)) continue;
    TVMFFIAny a = tvm_ffi_any_int(at);
    rc = tvm_ffi_dict_set(defs, v, &a);
  }
  tvm_ffi_release(vars);
  return rc;
}

/* The symbolic variables a MatchCast of the block defines order the bindings whose struct info
 * names them after it, as the use of a Var does (an opaque edge): without it, groups emitted in
 * dependency order could put a call whose struct info names `nnz` before the match_cast that
 * binds nnz (a data-dependent shape's legalization). sym_def: ffi.Dict tir.Var -> node. */
static int symbolic_edges(graph* g, int64_t i, void* sym_def) {
  tvm_relax_binding_obj* b = binding_at(g, i);
  void* vars = tvm_ffi_list_new();
  int rc = vars ? tvm_relax_sinfo_tir_vars(tvm_relax_sinfo_of(b->var), false, vars) : -1;
  for (int64_t k = 0; rc == 0 && k < tvm_ffi_seq_size(vars); ++k) {
    const TVMFFIAny* d = tvm_ffi_map_get(sym_def, tvm_ffi_seq_at(vars, k));
    if (d && d->v_int64 < i) rc = add_edge(g, d->v_int64, i, P_OPAQUE);
  }
  tvm_ffi_release(vars);
  if (rc == 0 && tvm_relax_kind_of(b) == TVM_RELAX_KIND_MatchCast) {
    rc = add_defs(((const tvm_relax_match_cast_obj*)b)->struct_info, g->defined, sym_def, i);
  }
  return rc;
}

/* The nodes (bindings) of the block: their patterns and the edges of their uses. */
static int build_nodes(graph* g, void* sym_def) {
  for (int64_t i = 0; i < g->n; ++i) {
    tvm_relax_binding_obj* b = binding_at(g, i);
    tvm_relax_expr_obj* value = tvm_relax_binding_value(b);
    int8_t p = P_OPAQUE;
    if (tvm_relax_kind_of(b) == TVM_RELAX_KIND_VarBinding) {
      int32_t k = tvm_relax__fusible_call_tir(g->mod, value);
      if (k >= 0) {
        p = (int8_t)k;
      } else if (tvm_relax_kind_of(value) == TVM_RELAX_KIND_TupleGetItem) {
        p = P_INJECTIVE;
      }
    }
    g->pattern[i] = p;
    g->extern_ref[i] = tvm_relax_kind_of(b->var) != TVM_RELAX_KIND_DataflowVar;
    /* call_tir's callee is no use; its argument tuple is. */
    const void* used = value;
    if (p != P_OPAQUE && tvm_relax_kind_of(value) == TVM_RELAX_KIND_Call) {
      used = tvm_ffi_seq_obj_at(((const tvm_relax_call_obj*)value)->args, 1);
    }
    if (uses(g, i, used, p, edge_from_use) != 0) return -1;
    if (sym_def && symbolic_edges(g, i, sym_def) != 0) return -1;
    TVMFFIAny k = tvm_ffi_any_obj(b->var), v = tvm_ffi_any_int(i);
    if (tvm_ffi_dict_set(g->index, &k, &v) != 0) return -1;
  }
  return 0;
}

static int build_graph(graph* g) {
  int64_t n = g->n;
  g->pattern = tvm_ffi_calloc((size_t)n + 1, sizeof(int8_t));
  g->extern_ref = tvm_ffi_calloc((size_t)n + 1, sizeof(bool));
  g->index = tvm_ffi_dict_new();
  if (!g->pattern || !g->extern_ref || !g->index) return -1;
  /* (a block without a MatchCast has no symbolic definition to order) */
  bool any_cast = false;
  for (int64_t i = 0; i < n && !any_cast; ++i) {
    any_cast = tvm_relax_kind_of(binding_at(g, i)) == TVM_RELAX_KIND_MatchCast;
  }
  void* sym_def = any_cast ? tvm_ffi_dict_new() : NULL;
  if (any_cast && !sym_def) return -1;
  int rc = build_nodes(g, sym_def);
  tvm_ffi_release(sym_def);
  if (rc != 0) return -1;
  /* Out edges as CSR. */
  g->out_start = tvm_ffi_calloc((size_t)n + 1, sizeof(int64_t));
  g->out_dst = tvm_ffi_malloc((size_t)(g->nedges + 1) * sizeof(int64_t));
  g->out_pat = tvm_ffi_malloc((size_t)(g->nedges + 1));
  if (!g->out_start || !g->out_dst || !g->out_pat) return -1;
  for (int64_t e = 0; e < g->nedges; ++e) g->out_start[g->edges[e].src + 1]++;
  for (int64_t i = 0; i < n; ++i) g->out_start[i + 1] += g->out_start[i];
  int64_t* fill = tvm_ffi_malloc((size_t)(n + 1) * sizeof(int64_t));
  if (!fill) return -1;
  memcpy(fill, g->out_start, (size_t)(n + 1) * sizeof(int64_t));
  for (int64_t e = 0; e < g->nedges; ++e) {
    int64_t at = fill[g->edges[e].src]++;
    g->out_dst[at] = g->edges[e].dst;
    g->out_pat[at] = g->edges[e].pattern;
  }
  tvm_ffi_free(fill);
  return 0;
}

/* ---- Post-dominator tree ---------------------------------------------------------------------- */
static int8_t combine(int8_t a, int8_t b) { return a > b ? a : b; }

/* LCA of two tree nodes (-1 = none) combining the patterns passed; -1 when the budget runs out. */
static int64_t lca(graph* g, int64_t a, int64_t b, int8_t* pattern, int64_t* budget) {
  while (a != b) {
    if (a < 0 || b < 0 || --*budget < 0) return -1;
    if (g->dom_depth[a] < g->dom_depth[b]) {
      *pattern = combine(*pattern, g->dom_pattern[b]);
      b = g->dom_parent[b];
    } else if (g->dom_depth[b] < g->dom_depth[a]) {
      *pattern = combine(*pattern, g->dom_pattern[a]);
      a = g->dom_parent[a];
    } else {
      *pattern = combine(*pattern, combine(g->dom_pattern[a], g->dom_pattern[b]));
      a = g->dom_parent[a];
      b = g->dom_parent[b];
    }
  }
  return a;
}

static void post_dominators(graph* g) {
  for (int64_t i = g->n - 1; i >= 0; --i) {
    int64_t parent = -1;
    int8_t pattern = P_ELEMWISE;
    if (g->extern_ref[i]) {
      pattern = P_OPAQUE;
    } else {
      int64_t budget = LCA_BUDGET;
      for (int64_t e = g->out_start[i]; e < g->out_start[i + 1]; ++e) {
        parent = e == g->out_start[i] ? g->out_dst[e] : lca(g, parent, g->out_dst[e], &pattern, &budget);
        pattern = combine(pattern, g->out_pat[e]);
        if (parent < 0) break;
      }
    }
    g->dom_parent[i] = parent;
    g->dom_depth[i] = parent >= 0 ? g->dom_depth[parent] + 1 : 1;
    g->dom_pattern[i] = pattern;
  }
}

/* ---- Groups ---------------------------------------------------------------------------------- */
static int64_t find_root(graph* g, int64_t i) {
  int64_t r = i;
  while (g->gparent[r] >= 0) r = g->gparent[r];
  while (g->gparent[i] >= 0) { /* path compression */
    int64_t next = g->gparent[i];
    g->gparent[i] = r;
    i = next;
  }
  return r;
}

static void merge_from_to(graph* g, int64_t child, int64_t parent) {
  child = find_root(g, child);
  parent = find_root(g, parent);
  if (child == parent) return;
  g->gsize[parent] += g->gsize[child];
  g->gparent[child] = parent;
  if (g->ganchor[child]) {
    g->ganchor[parent] = true;
    g->gpattern[parent] = combine(g->gpattern[child], g->gpattern[parent]);
  }
}

typedef bool (*fuse_cond)(int8_t kind, bool is_sink);

/* The nodes from src's users to sink (sink not expanded): calls visit on each; stops early (its
 * non-zero value) when visit says so, or (1) after EDGE_BUDGET edges, which only a region far
 * above the depth limit reaches. A fresh stamp generation marks the visited; the stack holds at
 * most one entry per edge. */
typedef int (*region_fn)(graph* g, int64_t node, void* ctx);
static int walk_region(graph* g, int64_t src, int64_t sink, region_fn visit, void* ctx) {
  int64_t gen = ++g->gen;
  int64_t top = 0, pushed = g->out_start[src + 1] - g->out_start[src];
  if (pushed > EDGE_BUDGET) return 1;
  for (int64_t e = g->out_start[src]; e < g->out_start[src + 1]; ++e) g->stack[top++] = g->out_dst[e];
  while (top > 0) {
    int64_t u = g->stack[--top];
    if (g->stamp[u] == gen) continue;
    g->stamp[u] = gen;
    int rc = visit(g, u, ctx);
    if (rc != 0) return rc;
    if (u == sink) continue;
    pushed += g->out_start[u + 1] - g->out_start[u];
    if (pushed > EDGE_BUDGET) return 1; /* a region far above the depth limit */
    for (int64_t e = g->out_start[u]; e < g->out_start[u + 1]; ++e) {
      if (g->stamp[g->out_dst[e]] != gen) g->stack[top++] = g->out_dst[e];
    }
  }
  return 0;
}

typedef struct {
  int64_t sink;
  int64_t count;
  fuse_cond cond;
  int64_t target;
} region_ctx;

static int count_visit(graph* g, int64_t u, void* ctx) {
  region_ctx* r = ctx;
  if (u == r->sink) return 0;
  r->count += g->gsize[u];
  return r->count > MAX_FUSE_DEPTH ? 1 : 0;
}

static int check_visit(graph* g, int64_t u, void* ctx) {
  region_ctx* r = ctx;
  return r->cond(g->gpattern[find_root(g, u)], u == r->sink) ? 0 : 1;
}

static int commit_visit(graph* g, int64_t u, void* ctx) {
  region_ctx* r = ctx;
  if (u != r->sink) merge_from_to(g, u, r->target);
  return 0;
}

static bool count_ok(graph* g, int64_t child, int64_t dom) {
  region_ctx r = {dom, g->gsize[find_root(g, dom)] + g->gsize[child], NULL, -1};
  if (r.count > MAX_FUSE_DEPTH) return false;
  return walk_region(g, child, dom, count_visit, &r) == 0;
}

static bool check_path(graph* g, int64_t src, int64_t sink, fuse_cond cond) {
  region_ctx r = {sink, 0, cond, -1};
  return walk_region(g, src, sink, check_visit, &r) == 0;
}

static void commit_fuse(graph* g, int64_t src, int64_t sink) {
  region_ctx r = {sink, 0, NULL, sink};
  merge_from_to(g, src, sink);
  walk_region(g, src, sink, commit_visit, &r);
}

static bool cond_out_ewise(int8_t kind, bool is_sink) {
  (void)is_sink;
  return kind <= P_BROADCAST;
}
static bool cond_broadcast(int8_t kind, bool is_sink) {
  if (!is_sink) return kind <= P_INJECTIVE;
  return kind <= P_BROADCAST || kind == P_REDUCE || kind == P_INJECTIVE || kind == P_OUT_EWISE;
}
static bool cond_injective(int8_t kind, bool is_sink) {
  (void)is_sink;
  return kind <= P_INJECTIVE;
}

static void run_fuse(graph* g, int phase) {
  for (int64_t i = 0; i < g->n; ++i) {
    int8_t gp = g->gpattern[i];
    int64_t dom = g->dom_parent[i];
    if (gp == P_OPAQUE || dom < 0) continue;
    if (!count_ok(g, i, dom)) continue;
    if (find_root(g, i) == find_root(g, dom)) continue;
    if (g->gpattern[dom] == P_TUPLE) continue;
    if (gp == P_OUT_EWISE) {
      if (phase != 0) continue;
      if (g->dom_pattern[i] == P_ELEMWISE && check_path(g, i, dom, cond_out_ewise)) commit_fuse(g, i, dom);
    } else if (gp <= P_BROADCAST) {
      int8_t dp = g->dom_pattern[i];
      if ((dp <= P_INJECTIVE || dp == P_REDUCE) && check_path(g, i, dom, cond_broadcast)) {
        commit_fuse(g, i, dom);
      }
    } else if (gp == P_INJECTIVE || gp == P_TUPLE) {
      if (phase != 1) continue;
      if (check_path(g, i, dom, cond_injective)) commit_fuse(g, i, dom);
    }
  }
}

static int partition(graph* g) {
  int64_t n = g->n;
  g->dom_parent = tvm_ffi_malloc((size_t)(n + 1) * sizeof(int64_t));
  g->dom_depth = tvm_ffi_malloc((size_t)(n + 1) * sizeof(int64_t));
  g->dom_pattern = tvm_ffi_malloc((size_t)(n + 1));
  g->gparent = tvm_ffi_malloc((size_t)(n + 1) * sizeof(int64_t));
  g->gsize = tvm_ffi_malloc((size_t)(n + 1) * sizeof(int64_t));
  g->gpattern = tvm_ffi_malloc((size_t)(n + 1));
  g->ganchor = tvm_ffi_calloc((size_t)n + 1, sizeof(bool));
  g->stamp = tvm_ffi_calloc((size_t)n + 1, sizeof(int64_t));
  g->stack = tvm_ffi_malloc((size_t)(g->nedges + 1) * sizeof(int64_t));
  if (!g->dom_parent || !g->dom_depth || !g->dom_pattern || !g->gparent || !g->gsize ||
      !g->gpattern || !g->ganchor || !g->stamp || !g->stack) {
    return -1;
  }
  post_dominators(g);
  for (int64_t i = 0; i < n; ++i) {
    g->gparent[i] = -1;
    g->gsize[i] = 1;
    g->gpattern[i] = g->pattern[i];
    g->ganchor[i] = g->pattern[i] == P_OUT_EWISE;
  }
  run_fuse(g, 0);
  run_fuse(g, 1);
  return 0;
}

static void graph_free(graph* g) {
  tvm_ffi_release(g->index);
  tvm_ffi_free(g->pattern), tvm_ffi_free(g->extern_ref), tvm_ffi_free(g->edges);
  tvm_ffi_free(g->out_start), tvm_ffi_free(g->out_dst), tvm_ffi_free(g->out_pat);
  tvm_ffi_free(g->dom_parent), tvm_ffi_free(g->dom_depth), tvm_ffi_free(g->dom_pattern);
  tvm_ffi_free(g->gparent), tvm_ffi_free(g->gsize), tvm_ffi_free(g->gpattern);
  tvm_ffi_free(g->ganchor), tvm_ffi_free(g->stamp), tvm_ffi_free(g->stack);
}

/* ---- Group functions -------------------------------------------------------------------------- */
typedef struct {
  void* funcs;  /* ffi.Dict GlobalVar -> function: the module being built */
  void* names;  /* ffi.Dict name -> next suffix (every function name of the module) */
  bool changed;
  const tvm_tir_ir_module_obj* mod;
  void* defined; /* ffi.Dict: the TIR variables the function defines before the block fused */
} pass_ctx;

/* A unique function name from base: base, base1, base2, ... (a counter per base, so naming many
 * groups of the same kernels is linear). */
static int unique_name(pass_ctx* c, const char* base, char* out, size_t size) {
  TVMFFIAny key = tvm_ffi_string(base);
  const TVMFFIAny* next = tvm_ffi_map_get(c->names, &key);
  int64_t k = 0;
  if (next) tvm_ffi_any_as_int(next, &k);
  for (;; ++k) {
    if (k == 0) snprintf(out, size, "%s", base);
    else snprintf(out, size, "%s%lld", base, (long long)k);
    TVMFFIAny name = tvm_ffi_string(out);
    bool taken = tvm_ffi_map_get(c->names, &name) != NULL;
    tvm_ffi_any_release(&name);
    if (!taken) break;
  }
  TVMFFIAny nk = tvm_ffi_any_int(k + 1), one = tvm_ffi_any_int(1);
  TVMFFIAny name = tvm_ffi_string(out);
  int rc = tvm_ffi_dict_set(c->names, &key, &nk);
  if (rc == 0 && k > 0) rc = tvm_ffi_dict_set(c->names, &name, &one);
  tvm_ffi_any_release(&key);
  tvm_ffi_any_release(&name);
  return rc;
}

/* What one group becomes. */
typedef struct {
  int64_t* members; /* node indices, in order */
  int64_t nmembers;
  void* params;  /* ffi.List of the new parameter Vars */
  void* args;    /* ffi.List of the caller's arguments (Vars, Constants) */
  void* ext;     /* ffi.Dict argument -> parameter */
  void* inner;   /* ffi.Dict group Var -> the function's Var */
  void* tir_map; /* ffi.Dict tir.Var -> renewed tir.Var */
  void* outputs; /* ffi.List of the group's Vars used outside it */
  tvm_tir_global_var_obj* gv;
  bool fused;
} group_fn;

static void group_fn_free(group_fn* f) {
  tvm_ffi_free(f->members);
  tvm_ffi_release(f->params), tvm_ffi_release(f->args), tvm_ffi_release(f->ext);
  tvm_ffi_release(f->inner), tvm_ffi_release(f->tir_map), tvm_ffi_release(f->outputs);
  tvm_ffi_release(f->gv);
}

static const TVMFFIAny* dict_get(void* d, const void* key) {
  TVMFFIAny k = tvm_ffi_any_obj(key);
  return tvm_ffi_map_get(d, &k);
}
static int dict_put(void* d, const void* key, const void* value) {
  TVMFFIAny k = tvm_ffi_any_obj(key), v = tvm_ffi_any_obj(value);
  return tvm_ffi_dict_set(d, &k, &v);
}

/* The TIR variables of sinfo renewed in f->tir_map (new ones made when `renew`); false when one
 * is missing and not renewed. */
static int renew_tir_vars(group_fn* f, const tvm_relax_sinfo_obj* sinfo, bool renew, bool* ok) {
  void* vars = tvm_ffi_list_new();
  if (!vars || tvm_relax_sinfo_tir_vars(sinfo, false, vars) != 0) {
    tvm_ffi_release(vars);
    return -1;
  }
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(vars); ++i) {
    tvm_tir_var_obj* v = tvm_ffi_seq_obj_at(vars, i);
    if (dict_get(f->tir_map, v)) continue;
    if (!renew) {
      *ok = false;
      continue;
    }
    tvm_tir_var_obj* nv = tvm_tir_var_new_str(v->name_hint, tvm_tir_expr_dtype(v));
    rc = nv ? dict_put(f->tir_map, v, nv) : -1;
    tvm_ffi_release(nv);
  }
  tvm_ffi_release(vars);
  return rc;
}

static tvm_relax_sinfo_obj* renewed(group_fn* f, const tvm_relax_sinfo_obj* s) {
  return tvm_relax_sinfo_substitute(s, f->tir_map);
}

/* Make e (a Var or Constant from outside the group) a parameter, once. */
static int add_param(group_fn* f, const tvm_relax_expr_obj* e, int64_t* nconst) {
  if (dict_get(f->inner, e) || dict_get(f->ext, e)) return 0;
  bool ok = true;
  if (renew_tir_vars(f, tvm_relax_sinfo_of(e), true, &ok) != 0) return -1;
  tvm_relax_sinfo_obj* s = renewed(f, tvm_relax_sinfo_of(e));
  if (!s) return -1;
  tvm_relax_var_obj* p;
  if (tvm_relax_kind_of(e) == TVM_RELAX_KIND_Constant) {
    char name[32];
    snprintf(name, sizeof(name), "param_%lld", (long long)(*nconst)++);
    p = tvm_relax_var_new(name, s, false);
  } else {
    p = tvm_relax_var_new_str(((const tvm_relax_var_obj*)e)->name_hint, s, false);
  }
  tvm_ffi_release(s);
  TVMFFIAny pv = tvm_ffi_any_obj(p), ev = tvm_ffi_any_obj(e);
  int rc = p && dict_put(f->ext, e, p) == 0 && tvm_ffi_list_push(f->params, &pv) == 0 &&
                   tvm_ffi_list_push(f->args, &ev) == 0
               ? 0
               : -1;
  tvm_ffi_release(p);
  return rc;
}

/* The inputs a member uses (Vars / Constants of the call_tir tuple, or the TupleGetItem's tuple). */
static void* member_inputs(const tvm_relax_expr_obj* value, int64_t* n) {
  if (tvm_relax_kind_of(value) == TVM_RELAX_KIND_TupleGetItem) {
    *n = 1;
    return NULL;
  }
  void* fields = ((tvm_relax_tuple_obj*)tvm_ffi_seq_obj_at(((const tvm_relax_call_obj*)value)->args, 1))->fields;
  *n = tvm_ffi_seq_size(fields);
  return fields;
}
static const tvm_relax_expr_obj* member_input(const tvm_relax_expr_obj* value, void* fields, int64_t i) {
  return fields ? tvm_ffi_seq_obj_at(fields, i)
                : ((const tvm_relax_tuple_get_item_obj*)value)->tuple_value;
}

static tvm_relax_expr_obj* mapped(group_fn* f, const tvm_relax_expr_obj* e) {
  const TVMFFIAny* v = dict_get(f->inner, e);
  if (!v) v = dict_get(f->ext, e);
  return v ? (void*)v->v_obj : NULL;
}

/*
 * Plan group f: parameters, outputs, the renewed symbolic variables. Sets *viable = false when the
 * group cannot be a function (a tuple result, a symbolic variable its parameters do not define).
 */
static int plan_group(graph* g, const int64_t* gid, group_fn* f, bool* viable) {
  *viable = true;
  int64_t nconst = 0;
  f->params = tvm_ffi_list_new(), f->args = tvm_ffi_list_new(), f->ext = tvm_ffi_dict_new();
  f->inner = tvm_ffi_dict_new(), f->tir_map = tvm_ffi_dict_new(), f->outputs = tvm_ffi_list_new();
  if (!f->params || !f->args || !f->ext || !f->inner || !f->tir_map || !f->outputs) return -1;
  for (int64_t m = 0; m < f->nmembers; ++m) {
    int64_t i = f->members[m];
    tvm_relax_binding_obj* b = binding_at(g, i);
    tvm_relax_expr_obj* value = tvm_relax_binding_value(b);
    int64_t nin;
    void* fields = member_inputs(value, &nin);
    for (int64_t a = 0; a < nin; ++a) {
      if (add_param(f, member_input(value, fields, a), &nconst) != 0) return -1;
    }
    /* Marked inner with itself for now: only membership matters until the function is built. */
    if (dict_put(f->inner, b->var, b->var) != 0) return -1;
    bool out = g->extern_ref[i];
    for (int64_t e = g->out_start[i]; e < g->out_start[i + 1] && !out; ++e) {
      out = gid[g->out_dst[e]] != gid[i];
    }
    if (out) {
      TVMFFIAny v = tvm_ffi_any_obj(b->var);
      if (tvm_ffi_list_push(f->outputs, &v) != 0) return -1;
      if (tvm_relax_kind_of(tvm_relax_sinfo_of(b->var)) != TVM_RELAX_KIND_TensorStructInfo) *viable = false;
    }
  }
  if (tvm_ffi_seq_size(f->outputs) == 0) *viable = false;
  /* Every renewed symbolic variable must be defined by a parameter (a bare dim) ... */
  void* defined = tvm_ffi_list_new();
  void* seen = tvm_ffi_dict_new();
  int rc = defined && seen ? 0 : -1;
  for (int64_t p = 0; rc == 0 && p < tvm_ffi_seq_size(f->params); ++p) {
    rc = tvm_relax_sinfo_tir_vars(tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(f->params, p)), true, defined);
  }
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(defined); ++i) {
    rc = dict_put(seen, tvm_ffi_seq_obj_at(defined, i), tvm_ffi_seq_obj_at(defined, i));
  }
  const TVMFFIAny *tk, *tv;
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(f->tir_map, pos, &tk, &tv)) >= 0;) {
    if (!tvm_ffi_map_get(seen, tv)) *viable = false;
  }
  tvm_ffi_release(seen);
  tvm_ffi_release(defined);
  /* ... and every one the bindings use must be one of the parameters'. */
  for (int64_t m = 0; rc == 0 && *viable && m < f->nmembers; ++m) {
    tvm_relax_binding_obj* b = binding_at(g, f->members[m]);
    rc = renew_tir_vars(f, tvm_relax_sinfo_of(b->var), false, viable);
    tvm_relax_expr_obj* value = tvm_relax_binding_value(b);
    if (rc == 0 && *viable && tvm_relax_kind_of(value) == TVM_RELAX_KIND_Call) {
      rc = renew_tir_vars(f, tvm_ffi_seq_obj_at(((tvm_relax_call_obj*)value)->sinfo_args, 0), false, viable);
    }
  }
  return rc;
}

/* Build the function of a planned group and add it to the module. */
static int build_group(pass_ctx* c, graph* g, group_fn* f) {
  char base[MAX_NAME + 16] = "fused";
  size_t len = strlen(base);
  tvm_ffi_dict_clear(f->inner);
  void* bindings = tvm_ffi_list_new();
  if (!bindings) return -1;
  int rc = 0;
  for (int64_t m = 0; rc == 0 && m < f->nmembers; ++m) {
    tvm_relax_binding_obj* b = binding_at(g, f->members[m]);
    tvm_relax_expr_obj* value = tvm_relax_binding_value(b);
    tvm_relax_expr_obj* nv = NULL;
    if (tvm_relax_kind_of(value) == TVM_RELAX_KIND_TupleGetItem) {
      const tvm_relax_tuple_get_item_obj* t = (const void*)value;
      nv = tvm_relax_tuple_get_item_new(mapped(f, t->tuple_value), t->index);
    } else {
      const tvm_relax_call_obj* call = (const void*)value;
      tvm_tir_global_var_obj* kgv = tvm_ffi_seq_obj_at(call->args, 0);
      const char* kname = tvm_ffi_str_cstr(kgv->name_hint);
      if (len + 1 + strlen(kname) <= MAX_NAME) {
        snprintf(base + len, sizeof(base) - len, "_%s", kname);
        len = strlen(base);
      }
      int64_t nin;
      void* fields = member_inputs(value, &nin);
      TVMFFIAny* items = tvm_ffi_calloc((size_t)nin + 1, sizeof(TVMFFIAny));
      if (!items) {
        rc = -1;
        break;
      }
      for (int64_t a = 0; a < nin; ++a) items[a] = tvm_ffi_any_obj(mapped(f, member_input(value, fields, a)));
      void* arr = tvm_ffi_array_new(items, nin);
      tvm_ffi_free(items);
      tvm_relax_expr_obj* tuple = arr ? tvm_relax_tuple_new(arr) : NULL;
      tvm_ffi_release(arr);
      tvm_relax_sinfo_obj* out = tuple ? renewed(f, tvm_ffi_seq_obj_at(call->sinfo_args, 0)) : NULL;
      TVMFFIAny cargs[2] = {tvm_ffi_any_obj(kgv), tvm_ffi_any_obj(tuple)};
      void* carr = out ? tvm_ffi_array_new(cargs, 2) : NULL;
      TVMFFIAny so = tvm_ffi_any_obj(out);
      void* sarr = carr ? tvm_ffi_array_new(&so, 1) : NULL;
      nv = sarr ? tvm_relax_call_new(call->op, carr, NULL, sarr, call->expr.span) : NULL;
      tvm_ffi_release(sarr), tvm_ffi_release(carr), tvm_ffi_release(out), tvm_ffi_release(tuple);
    }
    bool is_out = false;
    for (int64_t o = 0; o < tvm_ffi_seq_size(f->outputs) && !is_out; ++o) {
      is_out = tvm_ffi_seq_obj_at(f->outputs, o) == (void*)b->var;
    }
    tvm_relax_sinfo_obj* vs = nv ? renewed(f, tvm_relax_sinfo_of(b->var)) : NULL;
    tvm_relax_var_obj* var = vs ? tvm_relax_var_new_str(b->var->name_hint, vs, !is_out) : NULL;
    tvm_relax_binding_obj* nb = var ? tvm_relax_var_binding_new(var, nv) : NULL;
    TVMFFIAny bv = tvm_ffi_any_obj(nb);
    rc = nb && dict_put(f->inner, b->var, var) == 0 && tvm_ffi_list_push(bindings, &bv) == 0 ? 0 : -1;
    tvm_ffi_release(nb), tvm_ffi_release(var), tvm_ffi_release(vs), tvm_ffi_release(nv);
  }
  /* The result: the outputs' Vars, one or a tuple. */
  tvm_relax_expr_obj* result = NULL;
  int64_t nout = tvm_ffi_seq_size(f->outputs);
  if (rc == 0 && nout == 1) {
    result = mapped(f, tvm_ffi_seq_obj_at(f->outputs, 0));
    tvm_ffi_retain(result);
  } else if (rc == 0) {
    void* objs[64];
    void** items = nout <= 64 ? objs : tvm_ffi_malloc((size_t)nout * sizeof(void*));
    for (int64_t o = 0; items && o < nout; ++o) items[o] = mapped(f, tvm_ffi_seq_obj_at(f->outputs, o));
    void* arr = items ? tvm_ffi_array_of_objects(items, nout) : NULL;
    if (items != objs) tvm_ffi_free(items);
    result = arr ? tvm_relax_tuple_new(arr) : NULL;
    tvm_ffi_release(arr);
  }
  void* barr = result ? tvm_ffi_list_to_array(bindings) : NULL;
  tvm_relax_block_obj* block = barr ? tvm_relax_block_new(barr, true) : NULL;
  TVMFFIAny blk = tvm_ffi_any_obj(block);
  void* blocks = block ? tvm_ffi_array_new(&blk, 1) : NULL;
  tvm_relax_expr_obj* body = blocks ? tvm_relax_seq_expr_new(blocks, result) : NULL;
  void* params = body ? tvm_ffi_list_to_array(f->params) : NULL;
  TVMFFIAny key = tvm_ffi_string("Primitive"), one = tvm_ffi_any_int(1);
  void* attrs = params ? tvm_ffi_map_new(&key, &one, 1) : NULL;
  tvm_ffi_any_release(&key);
  tvm_relax_function_obj* func = attrs ? tvm_relax_function_new(params, body, NULL, true, attrs) : NULL;
  tvm_ffi_release(attrs), tvm_ffi_release(params), tvm_ffi_release(body), tvm_ffi_release(blocks);
  tvm_ffi_release(block), tvm_ffi_release(barr), tvm_ffi_release(result), tvm_ffi_release(bindings);
  if (!func) return -1;
  char name[MAX_NAME + 64];
  rc = unique_name(c, base, name, sizeof(name));
  f->gv = rc == 0 ? tvm_relax_global_var_new(name, tvm_relax_sinfo_of(func)) : NULL;
  rc = f->gv ? dict_put(c->funcs, f->gv, func) : -1;
  tvm_ffi_release(func);
  f->fused = rc == 0;
  return rc;
}

/* Emit the call of a fused group into `out` (ffi.List of bindings). */
static int emit_call(group_fn* f, void* out, bool dataflow) {
  void* args = tvm_ffi_list_to_array(f->args);
  tvm_relax_expr_obj* call = args ? tvm_relax_call_new(f->gv, args, NULL, NULL, NULL) : NULL;
  tvm_ffi_release(args);
  if (!call) return -1;
  int rc = 0;
  int64_t nout = tvm_ffi_seq_size(f->outputs);
  if (nout == 1) {
    tvm_relax_binding_obj* b = tvm_relax_var_binding_new(tvm_ffi_seq_obj_at(f->outputs, 0), call);
    TVMFFIAny bv = tvm_ffi_any_obj(b);
    rc = b && tvm_ffi_list_push(out, &bv) == 0 ? 0 : -1;
    tvm_ffi_release(b);
  } else {
    tvm_relax_var_obj* t = tvm_relax_var_new_str(f->gv->name_hint, tvm_relax_sinfo_of(call), dataflow);
    tvm_relax_binding_obj* b = t ? tvm_relax_var_binding_new(t, call) : NULL;
    TVMFFIAny bv = tvm_ffi_any_obj(b);
    rc = b && tvm_ffi_list_push(out, &bv) == 0 ? 0 : -1;
    tvm_ffi_release(b);
    for (int64_t o = 0; rc == 0 && o < nout; ++o) {
      tvm_relax_expr_obj* item = tvm_relax_tuple_get_item_new(&t->expr, o);
      tvm_relax_binding_obj* ib = item ? tvm_relax_var_binding_new(tvm_ffi_seq_obj_at(f->outputs, o), item) : NULL;
      TVMFFIAny iv = tvm_ffi_any_obj(ib);
      rc = ib && tvm_ffi_list_push(out, &iv) == 0 ? 0 : -1;
      tvm_ffi_release(ib), tvm_ffi_release(item);
    }
    tvm_ffi_release(t);
  }
  tvm_ffi_release(call);
  return rc;
}

/* ---- One dataflow block ------------------------------------------------------------------------ */
/* The block's new bindings appended to `out`; *changed set when a group was fused. */
static int fuse_block(pass_ctx* c, const tvm_relax_block_obj* blk, void* out, bool* changed) {
  graph g = {0};
  g.mod = c->mod;
  g.defined = c->defined;
  g.bindings = blk->bindings;
  g.n = tvm_ffi_seq_size(blk->bindings);
  int64_t n = g.n;
  int rc = build_graph(&g) == 0 && partition(&g) == 0 ? 0 : -1;
  /* Group ids: the union-find root; a TupleGetItem whose tuple is outside its group leaves it. */
  int64_t* gid = rc == 0 ? tvm_ffi_malloc((size_t)(n + 1) * sizeof(int64_t)) : NULL;
  int64_t* count = gid ? tvm_ffi_calloc((size_t)(2 * n + 1), sizeof(int64_t)) : NULL;
  if (!count) rc = -1;
  for (int64_t i = 0; rc == 0 && i < n; ++i) gid[i] = find_root(&g, i);
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    tvm_relax_expr_obj* v = tvm_relax_binding_value(binding_at(&g, i));
    if (tvm_relax_kind_of(v) != TVM_RELAX_KIND_TupleGetItem) continue;
    int64_t src = node_of(&g, ((tvm_relax_tuple_get_item_obj*)v)->tuple_value);
    if (src < 0 || gid[src] != gid[i]) gid[i] = n + i;
  }
  for (int64_t i = 0; rc == 0 && i < n; ++i) count[gid[i]]++;
  /* The groups of two or more bindings, planned; unviable ones are split back into bindings. */
  group_fn* groups = NULL;
  int64_t* group_of = NULL; /* gid -> index in groups, -1 */
  int64_t ngroups = 0;
  if (rc == 0) {
    groups = tvm_ffi_calloc((size_t)n + 1, sizeof(group_fn));
    group_of = tvm_ffi_malloc((size_t)(2 * n + 1) * sizeof(int64_t));
    if (!groups || !group_of) rc = -1;
  }
  for (int64_t i = 0; rc == 0 && i < 2 * n; ++i) group_of[i] = -1;
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    if (count[gid[i]] < 2) continue;
    int64_t k = group_of[gid[i]];
    if (k < 0) {
      k = group_of[gid[i]] = ngroups++;
      groups[k].members = tvm_ffi_malloc((size_t)count[gid[i]] * sizeof(int64_t));
      if (!groups[k].members) rc = -1;
    }
    if (rc == 0) groups[k].members[groups[k].nmembers++] = i;
  }
  for (int64_t k = 0; rc == 0 && k < ngroups; ++k) {
    bool viable;
    rc = plan_group(&g, gid, &groups[k], &viable);
    if (rc == 0 && !viable) {
      for (int64_t m = 0; m < groups[k].nmembers; ++m) {
        int64_t i = groups[k].members[m];
        gid[i] = n + i; /* each its own group again */
      }
    }
  }
  for (int64_t k = 0; rc == 0 && k < ngroups; ++k) {
    if (gid[groups[k].members[0]] >= n && groups[k].nmembers > 0) continue; /* split */
    rc = build_group(c, &g, &groups[k]);
    if (rc == 0) *changed = true;
  }
  /* Emission in a topological order of the group dependencies, following the original order:
   * a group is emitted after the groups it uses (an iterative DFS over group ids). */
  int64_t* dep_start = NULL, *deps = NULL, *state = NULL, *stack = NULL, *stack_pos = NULL;
  if (rc == 0) {
    dep_start = tvm_ffi_calloc((size_t)(2 * n + 2), sizeof(int64_t));
    deps = tvm_ffi_malloc((size_t)(g.nedges + 1) * sizeof(int64_t));
    state = tvm_ffi_calloc((size_t)(2 * n + 1), sizeof(int64_t));
    stack = tvm_ffi_malloc((size_t)(2 * n + 1) * sizeof(int64_t));
    stack_pos = tvm_ffi_malloc((size_t)(2 * n + 1) * sizeof(int64_t));
    if (!dep_start || !deps || !state || !stack || !stack_pos) rc = -1;
  }
  if (rc == 0) {
    for (int64_t e = 0; e < g.nedges; ++e) {
      if (gid[g.edges[e].src] != gid[g.edges[e].dst]) dep_start[gid[g.edges[e].dst] + 1]++;
    }
    for (int64_t i = 0; i < 2 * n; ++i) dep_start[i + 1] += dep_start[i];
    int64_t* fill = tvm_ffi_malloc((size_t)(2 * n + 1) * sizeof(int64_t));
    if (!fill) rc = -1;
    for (int64_t i = 0; fill && i < 2 * n; ++i) fill[i] = dep_start[i];
    for (int64_t e = 0; fill && e < g.nedges; ++e) {
      int64_t s = gid[g.edges[e].src], d = gid[g.edges[e].dst];
      if (s != d) deps[fill[d]++] = s;
    }
    tvm_ffi_free(fill);
  }
  /* The first binding of each group, to emit singletons. */
  int64_t* first = rc == 0 ? tvm_ffi_malloc((size_t)(2 * n + 1) * sizeof(int64_t)) : NULL;
  if (rc == 0 && !first) rc = -1;
  for (int64_t i = 0; rc == 0 && i < 2 * n; ++i) first[i] = -1;
  for (int64_t i = n - 1; rc == 0 && i >= 0; --i) first[gid[i]] = i;
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    if (state[gid[i]] != 0) continue;
    int64_t top = 0;
    stack[top] = gid[i], stack_pos[top] = dep_start[gid[i]], state[gid[i]] = 1, ++top;
    while (rc == 0 && top > 0) {
      int64_t u = stack[top - 1];
      if (stack_pos[top - 1] < dep_start[u + 1]) {
        int64_t d = deps[stack_pos[top - 1]++];
        if (state[d] == 0) {
          stack[top] = d, stack_pos[top] = dep_start[d], state[d] = 1, ++top;
        } else if (state[d] == 1) {
          rc = tvm_ffi_raise("RuntimeError", "FuseOps: a cyclic dependency between fused groups");
        }
        continue;
      }
      --top;
      state[u] = 2;
      int64_t k = u < n ? group_of[u] : -1;
      if (k >= 0 && groups[k].fused) {
        rc = emit_call(&groups[k], out, true);
      } else {
        TVMFFIAny bv = tvm_ffi_any_obj(binding_at(&g, first[u]));
        rc = tvm_ffi_list_push(out, &bv);
      }
    }
  }
  for (int64_t k = 0; groups && k < ngroups; ++k) group_fn_free(&groups[k]);
  tvm_ffi_free(groups), tvm_ffi_free(group_of), tvm_ffi_free(gid), tvm_ffi_free(count);
  tvm_ffi_free(dep_start), tvm_ffi_free(deps), tvm_ffi_free(state), tvm_ffi_free(stack);
  tvm_ffi_free(stack_pos), tvm_ffi_free(first);
  graph_free(&g);
  return rc;
}

/* ---- The pass -------------------------------------------------------------------------------- */
bool tvm_relax__is_primitive(const void* func) {
  if (tvm_relax_kind_of(func) != TVM_RELAX_KIND_Function) return false;
  const tvm_relax_function_obj* f = func;
  const TVMFFIAny* a = f->func.attrs ? tvm_ffi_map_get_str(f->func.attrs, "Primitive") : NULL;
  int64_t v = 0;
  return a && tvm_ffi_any_as_int(a, &v) && v != 0;
}

static tvm_relax_function_obj* fuse_function(pass_ctx* c, tvm_relax_function_obj* f) {
  const tvm_relax_seq_expr_obj* seq = (const void*)f->body;
  if (tvm_relax_kind_of(seq) != TVM_RELAX_KIND_SeqExpr || tvm_relax__is_primitive(f)) {
    tvm_ffi_retain(f);
    return f;
  }
  void* lists = tvm_ffi_list_new();
  bool changed = false;
  /* The symbolic variables defined before each block: the parameters', then those of the
   * blocks' MatchCasts (symbolic_edges). */
  void* defined = tvm_ffi_dict_new();
  int rc = lists && defined ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(f->params); ++i) {
    rc = add_defs(tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(f->params, i)), NULL, defined, 0);
  }
  c->defined = defined;
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(seq->blocks); ++i) {
    const tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(seq->blocks, i);
    void* list = tvm_ffi_list_new();
    if (!list) {
      rc = -1;
      break;
    }
    if (tvm_relax_kind_of(blk) == TVM_RELAX_KIND_DataflowBlock) {
      rc = fuse_block(c, blk, list, &changed);
    } else {
      for (int64_t j = 0; rc == 0 && j < tvm_ffi_seq_size(blk->bindings); ++j) {
        rc = tvm_ffi_list_push(list, tvm_ffi_seq_at(blk->bindings, j));
      }
    }
    TVMFFIAny lv = tvm_ffi_any_obj(list);
    if (rc == 0) rc = tvm_ffi_list_push(lists, &lv);
    tvm_ffi_release(list);
    for (int64_t j = 0; rc == 0 && j < tvm_ffi_seq_size(blk->bindings); ++j) {
      const tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(blk->bindings, j);
      if (tvm_relax_kind_of(b) != TVM_RELAX_KIND_MatchCast) continue;
      rc = add_defs(((const tvm_relax_match_cast_obj*)b)->struct_info, NULL, defined, 0);
    }
  }
  c->defined = NULL;
  tvm_ffi_release(defined);
  tvm_relax_function_obj* out = NULL;
  if (rc == 0 && !changed) {
    tvm_ffi_retain(f);
    out = f;
  } else if (rc == 0) {
    out = tvm_relax__function_with_blocks(f, lists);
  }
  tvm_ffi_release(lists);
  return out;
}

static tvm_tir_ir_module_obj* run_fuse_ops(const tvm_tir_ir_module_obj* mod) {
  tvm_relax__ensure_init();
  if (!tvm_tir_is(mod, TVM_TIR_KIND_IRModule)) {
    tvm_ffi_raise("TypeError", "FuseOps: an IRModule is required");
    return NULL;
  }
  pass_ctx c = {tvm_ffi_dict_new(), tvm_ffi_dict_new(), false, mod};
  int rc = c.funcs && c.names ? 0 : -1;
  const TVMFFIAny *k, *v;
  TVMFFIAny one = tvm_ffi_any_int(1);
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    TVMFFIAny name = tvm_ffi_any_obj(((tvm_tir_global_var_obj*)k->v_obj)->name_hint);
    rc = tvm_ffi_dict_set(c.funcs, k, v) == 0 && tvm_ffi_dict_set(c.names, &name, &one) == 0 ? 0 : -1;
  }
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    if (tvm_relax_kind_of(v->v_obj) != TVM_RELAX_KIND_Function) continue;
    tvm_relax_function_obj* nf = fuse_function(&c, (void*)v->v_obj);
    if (!nf) {
      tvm_ffi_raise_context("FuseOps: function %s",
                            tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)k->v_obj)->name_hint));
      rc = -1;
      break;
    }
    if ((void*)nf != v->v_obj) {
      c.changed = true;
      TVMFFIAny nv = tvm_ffi_any_obj(nf);
      rc = tvm_ffi_dict_set(c.funcs, k, &nv);
    }
    tvm_ffi_release(nf);
  }
  tvm_tir_ir_module_obj* out = rc == 0 ? tvm_relax__module_with(mod, c.funcs, c.changed) : NULL;
  tvm_ffi_release(c.funcs);
  tvm_ffi_release(c.names);
  return out;
}

tvm_tir_ir_module_obj* tvm_relax_transform_fuse_ops(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__pass_set_aside(run_fuse_ops, mod);
}

/* relax_models.c: see relax_models.h. */
#include "relax_models.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/tir/tir.h>

#define F32 tvm_tir_dtype_float(32)

typedef struct {
  tvm_relax_block_builder* bb;
  void* params; /* ffi.List of Vars */
  int failed;
} model;

static tvm_relax_var_obj* param(model* m, const char* name, int ndim, const int64_t* dims,
                                tvm_tir_var_obj* n) {
  void* items[4];
  for (int i = 0; i < ndim; ++i) items[i] = dims[i] < 0 ? (void*)n : tvm_tir_const_int(tvm_tir_dtype_int(64), dims[i]);
  void* arr = tvm_ffi_array_of_objects(items, ndim);
  for (int i = 0; i < ndim; ++i) {
    if (dims[i] >= 0) tvm_ffi_release(items[i]);
  }
  tvm_relax_sinfo_obj* s = arr ? tvm_relax_tensor_sinfo_of_dims(arr, F32) : NULL;
  tvm_ffi_release(arr);
  tvm_relax_var_obj* v = s ? tvm_relax_var_new(name, s, false) : NULL;
  tvm_ffi_release(s);
  TVMFFIAny item = tvm_ffi_any_obj(v);
  if (!v || tvm_ffi_list_push(m->params, &item) != 0) m->failed = 1;
  return v; /* the list holds a reference too */
}

/* Emit op(args) and return its variable (NULL after a failure). */
static tvm_relax_var_obj* emit(model* m, const char* op, void* attrs, int n, void* a, void* b) {
  if (m->failed) return NULL;
  tvm_relax_expr_obj* call = n == 1 ? tvm_relax_call_op(op, attrs, 1, a) : tvm_relax_call_op(op, attrs, 2, a, b);
  tvm_relax_var_obj* v = call ? tvm_relax_bb_emit(m->bb, call, NULL) : NULL;
  tvm_ffi_release(call);
  if (!v) m->failed = 1;
  return v;
}

static void drop(void* obj) { tvm_ffi_release(obj); }

static void* int_list_attr(const char* key, int n, const int64_t* v) {
  TVMFFIAny items[4];
  for (int i = 0; i < n; ++i) items[i] = tvm_ffi_any_int(v[i]);
  void* arr = tvm_ffi_array_new(items, n);
  TVMFFIAny k = tvm_ffi_string(key), val = tvm_ffi_any_obj(arr);
  void* map = arr ? tvm_ffi_map_new(&k, &val, 1) : NULL;
  tvm_ffi_any_release(&k);
  tvm_ffi_release(arr);
  return map;
}

int64_t relax_models_transformer_bindings(int layers, int heads) {
  return (int64_t)layers * (8 * heads + 9) + 1;
}

tvm_tir_ir_module_obj* relax_models_transformer(int layers, int heads, int64_t seq, int64_t hidden) {
  if (heads <= 0 || hidden % heads != 0) {
    tvm_ffi_raise("ValueError", "transformer: hidden %lld is not a multiple of heads %d",
                  (long long)hidden, heads);
    return NULL;
  }
  int64_t hd = hidden / heads;
  model m = {tvm_relax_bb_new(NULL), tvm_ffi_list_new(), 0};
  tvm_tir_var_obj* n = tvm_tir_var_new("n", tvm_tir_dtype_int(64));
  if (!m.bb || !m.params || !n) m.failed = 1;
  int64_t x_dims[3] = {-1, seq, hidden}, vec[1] = {hidden}, sq[2] = {hidden, hidden};
  int64_t hproj[2] = {hidden, hd}, mlp1[2] = {hidden, 4 * hidden}, mlp2[2] = {4 * hidden, hidden};
  tvm_relax_var_obj* x = m.failed ? NULL : param(&m, "x", 3, x_dims, n);
  tvm_relax_var_obj* g = param(&m, "ln_gamma", 1, vec, n);
  tvm_relax_var_obj* be = param(&m, "ln_beta", 1, vec, n);
  tvm_relax_var_obj* wo = param(&m, "w_out", 2, sq, n);
  tvm_relax_var_obj* w1 = param(&m, "w_mlp1", 2, mlp1, n);
  tvm_relax_var_obj* w2 = param(&m, "w_mlp2", 2, mlp2, n);
  tvm_relax_var_obj** wq = calloc((size_t)heads * 3, sizeof(*wq));
  for (int h = 0; h < heads * 3 && !m.failed; ++h) {
    char name[32];
    snprintf(name, sizeof(name), "w%c_%d", "qkv"[h % 3], h / 3);
    wq[h] = param(&m, name, 2, hproj, n);
  }
  void* params = m.failed ? NULL : tvm_ffi_list_to_array(m.params);
  if (!params || tvm_relax_bb_function_begin(m.bb, "main", params, NULL, true) != 0) m.failed = 1;
  if (!m.failed && tvm_relax_bb_dataflow_begin(m.bb) != 0) m.failed = 1;
  void* ln_attrs = int_list_attr("axes", 1, (int64_t[]){-1});
  void* t_attrs = int_list_attr("axes", 3, (int64_t[]){0, 2, 1});
  void* cat_attrs = NULL;
  {
    TVMFFIAny k = tvm_ffi_string("axis"), v = tvm_ffi_any_int(-1);
    cat_attrs = tvm_ffi_map_new(&k, &v, 1);
    tvm_ffi_any_release(&k);
  }
  tvm_relax_expr_obj* scale = NULL;
  {
    tvm_tir_expr_obj* s = tvm_tir_const_float(F32, 0.125);
    scale = s ? tvm_relax_prim_value_new(s) : NULL;
    tvm_ffi_release(s);
  }
  tvm_relax_var_obj* cur = x;
  if (cur) tvm_ffi_retain(cur);
  void* heads_out = tvm_ffi_list_new();
  for (int l = 0; l < layers && !m.failed; ++l) {
    /* layer norm */
    tvm_relax_expr_obj* ln_call = NULL;
    {
      void* args[3] = {cur, g, be};
      void* arr = tvm_ffi_array_of_objects(args, 3);
      ln_call = arr ? tvm_relax_call_new(tvm_relax_op(TVM_RELAX_OP_nn_layer_norm), arr, ln_attrs,
                                         NULL, NULL)
                    : NULL;
      tvm_ffi_release(arr);
    }
    tvm_relax_var_obj* ln = ln_call ? tvm_relax_bb_emit(m.bb, ln_call, NULL) : NULL;
    drop(ln_call);
    if (!ln) m.failed = 1;
    tvm_ffi_list_clear(heads_out);
    for (int h = 0; h < heads && !m.failed; ++h) {
      tvm_relax_var_obj* q = emit(&m, "relax.matmul", NULL, 2, ln, wq[3 * h]);
      tvm_relax_var_obj* k = emit(&m, "relax.matmul", NULL, 2, ln, wq[3 * h + 1]);
      tvm_relax_var_obj* v = emit(&m, "relax.matmul", NULL, 2, ln, wq[3 * h + 2]);
      tvm_relax_var_obj* kt = emit(&m, "relax.permute_dims", t_attrs, 1, k, NULL);
      tvm_relax_var_obj* s = emit(&m, "relax.matmul", NULL, 2, q, kt);
      tvm_relax_var_obj* ss = emit(&m, "relax.multiply", NULL, 2, s, scale);
      tvm_relax_var_obj* p = emit(&m, "relax.nn.softmax", NULL, 1, ss, NULL);
      tvm_relax_var_obj* o = emit(&m, "relax.matmul", NULL, 2, p, v);
      TVMFFIAny item = tvm_ffi_any_obj(o);
      if (o && tvm_ffi_list_push(heads_out, &item) != 0) m.failed = 1;
      drop(q), drop(k), drop(v), drop(kt), drop(s), drop(ss), drop(p), drop(o);
    }
    void* harr = m.failed ? NULL : tvm_ffi_list_to_array(heads_out);
    tvm_relax_expr_obj* tup = harr ? tvm_relax_tuple_new(harr) : NULL;
    tvm_ffi_release(harr);
    tvm_relax_var_obj* cat = tup ? emit(&m, "relax.concat", cat_attrs, 1, tup, NULL) : NULL;
    drop(tup);
    if (!cat) m.failed = 1;
    tvm_relax_var_obj* proj = emit(&m, "relax.matmul", NULL, 2, cat, wo);
    tvm_relax_var_obj* r1 = emit(&m, "relax.add", NULL, 2, cur, proj);
    tvm_relax_expr_obj* ln2c = NULL;
    {
      void* args[3] = {r1, g, be};
      void* arr = m.failed ? NULL : tvm_ffi_array_of_objects(args, 3);
      ln2c = arr ? tvm_relax_call_new(tvm_relax_op(TVM_RELAX_OP_nn_layer_norm), arr, ln_attrs,
                                      NULL, NULL)
                 : NULL;
      tvm_ffi_release(arr);
    }
    tvm_relax_var_obj* ln2 = ln2c ? tvm_relax_bb_emit(m.bb, ln2c, NULL) : NULL;
    drop(ln2c);
    if (!ln2) m.failed = 1;
    tvm_relax_var_obj* h1 = emit(&m, "relax.matmul", NULL, 2, ln2, w1);
    tvm_relax_var_obj* h2 = emit(&m, "relax.nn.gelu", NULL, 1, h1, NULL);
    tvm_relax_var_obj* h3 = emit(&m, "relax.matmul", NULL, 2, h2, w2);
    tvm_relax_var_obj* r2 = emit(&m, "relax.add", NULL, 2, r1, h3);
    drop(ln), drop(cat), drop(proj), drop(r1), drop(ln2), drop(h1), drop(h2), drop(h3);
    drop(cur);
    cur = r2;
  }
  tvm_relax_var_obj* out = m.failed ? NULL : tvm_relax_bb_emit_output(m.bb, (tvm_relax_expr_obj*)cur, "out");
  if (!out) m.failed = 1;
  if (!m.failed && tvm_relax_bb_block_end(m.bb) != 0) m.failed = 1;
  tvm_tir_global_var_obj* gv =
      m.failed ? NULL : tvm_relax_bb_function_end(m.bb, (tvm_relax_expr_obj*)out, NULL);
  tvm_tir_ir_module_obj* mod = gv ? tvm_relax_bb_module(m.bb) : NULL;
  drop(gv), drop(out), drop(cur), drop(heads_out), drop(scale);
  drop(ln_attrs), drop(t_attrs), drop(cat_attrs), drop(params);
  drop(x), drop(g), drop(be), drop(wo), drop(w1), drop(w2);
  for (int h = 0; wq && h < heads * 3; ++h) drop(wq[h]);
  free(wq);
  drop(n);
  drop(m.params);
  tvm_relax_bb_free(m.bb);
  return mod;
}

/* ---- MLP chain --------------------------------------------------------------------------------- */
tvm_tir_ir_module_obj* relax_models_mlp(int layers, int64_t batch, int64_t hidden) {
  model m = {tvm_relax_bb_new(NULL), tvm_ffi_list_new(), 0};
  tvm_tir_var_obj* n = batch < 0 ? tvm_tir_var_new("n", tvm_tir_dtype_int(64)) : NULL;
  if (!m.bb || !m.params || (batch < 0 && !n)) m.failed = 1;
  int64_t x_dims[2] = {batch, hidden}, w_dims[2] = {hidden, hidden};
  tvm_relax_var_obj* x = m.failed ? NULL : param(&m, "x", 2, x_dims, n);
  tvm_relax_var_obj* w = m.failed ? NULL : param(&m, "w", 2, w_dims, n);
  void* params = m.failed ? NULL : tvm_ffi_list_to_array(m.params);
  if (!params || tvm_relax_bb_function_begin(m.bb, "main", params, NULL, true) != 0) m.failed = 1;
  if (!m.failed && tvm_relax_bb_dataflow_begin(m.bb) != 0) m.failed = 1;
  tvm_relax_var_obj* h = x;
  tvm_ffi_retain(h);
  for (int l = 0; l < layers && !m.failed; ++l) {
    tvm_relax_var_obj* mm = emit(&m, "relax.matmul", NULL, 2, h, w);
    tvm_ffi_release(h);
    h = NULL;
    if (l + 1 < layers) {
      h = emit(&m, "relax.nn.relu", NULL, 1, mm, NULL);
    } else if (mm) {
      tvm_relax_expr_obj* call = tvm_relax_call_op("relax.nn.relu", NULL, 1, mm);
      h = call ? tvm_relax_bb_emit_output(m.bb, call, "out") : NULL;
      tvm_ffi_release(call);
      if (!h) m.failed = 1;
    }
    tvm_ffi_release(mm);
  }
  if (!m.failed && tvm_relax_bb_block_end(m.bb) != 0) m.failed = 1;
  tvm_tir_global_var_obj* g = m.failed ? NULL : tvm_relax_bb_function_end(m.bb, (tvm_relax_expr_obj*)h, NULL);
  tvm_tir_ir_module_obj* mod = g ? tvm_relax_bb_module(m.bb) : NULL;
  tvm_ffi_release(g), tvm_ffi_release(h), tvm_ffi_release(params);
  tvm_ffi_release(x), tvm_ffi_release(w), tvm_ffi_release(m.params), tvm_ffi_release(n);
  tvm_relax_bb_free(m.bb);
  return mod;
}

/* ---- Inspection -------------------------------------------------------------------------------- */
static void value_text(tvm_ffi_strbuf* b, const void* e) {
  switch (tvm_relax_kind_of(e)) {
    case TVM_RELAX_KIND_Var:
    case TVM_RELAX_KIND_DataflowVar:
      tvm_ffi_strbuf_puts(b, tvm_relax_var_name(e));
      return;
    case TVM_RELAX_KIND_Call: {
      const tvm_relax_call_obj* c = e;
      const tvm_relax_op_info* info = tvm_relax_op_info_of(c->op);
      if (info) tvm_ffi_strbuf_puts(b, info->name + strlen("relax."));
      else if (tvm_tir_is(c->op, TVM_TIR_KIND_GlobalVar)) tvm_ffi_strbuf_puts(b, tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)c->op)->name_hint));
      else value_text(b, c->op);
      tvm_ffi_strbuf_puts(b, "(");
      for (int64_t i = 0; i < tvm_ffi_seq_size(c->args); ++i) {
        if (i) tvm_ffi_strbuf_puts(b, ", ");
        value_text(b, tvm_ffi_seq_obj_at(c->args, i));
      }
      tvm_ffi_strbuf_puts(b, ")");
      return;
    }
    case TVM_RELAX_KIND_Tuple: {
      void* f = ((const tvm_relax_tuple_obj*)e)->fields;
      tvm_ffi_strbuf_puts(b, "(");
      for (int64_t i = 0; i < tvm_ffi_seq_size(f); ++i) {
        if (i) tvm_ffi_strbuf_puts(b, ", ");
        value_text(b, tvm_ffi_seq_obj_at(f, i));
      }
      tvm_ffi_strbuf_puts(b, ")");
      return;
    }
    case TVM_RELAX_KIND_TupleGetItem: {
      const tvm_relax_tuple_get_item_obj* t = e;
      value_text(b, t->tuple_value);
      tvm_ffi_strbuf_printf(b, "[%lld]", (long long)t->index);
      return;
    }
    case TVM_RELAX_KIND_ShapeExpr: {
      void* v = ((const tvm_relax_shape_expr_obj*)e)->values;
      tvm_ffi_strbuf_puts(b, "shape(");
      for (int64_t i = 0; i < tvm_ffi_seq_size(v); ++i) {
        int64_t k;
        if (i) tvm_ffi_strbuf_puts(b, ", ");
        if (tvm_tir_as_const_int(tvm_ffi_seq_obj_at(v, i), &k)) tvm_ffi_strbuf_printf(b, "%lld", (long long)k);
        else tvm_tir_node_text(b, tvm_ffi_seq_obj_at(v, i));
      }
      tvm_ffi_strbuf_puts(b, ")");
      return;
    }
    case TVM_RELAX_KIND_PrimValue: {
      int64_t k;
      if (tvm_tir_as_const_int(((const tvm_relax_prim_value_obj*)e)->value, &k)) tvm_ffi_strbuf_printf(b, "%lld", (long long)k);
      else tvm_ffi_strbuf_puts(b, "?");
      return;
    }
    case TVM_RELAX_KIND_DataTypeImm: {
      char dt[32];
      DLDataType d = ((const tvm_relax_dtype_imm_obj*)e)->value;
      snprintf(dt, sizeof(dt), "%s%d", d.code == kDLFloat ? "float" : d.code == kDLUInt ? "uint" : "int", d.bits);
      tvm_ffi_strbuf_puts(b, dt);
      return;
    }
    case TVM_RELAX_KIND_StringImm:
      tvm_ffi_strbuf_puts(b, tvm_ffi_str_cstr(((const tvm_relax_string_imm_obj*)e)->value));
      return;
    case TVM_RELAX_KIND_If:
      tvm_ffi_strbuf_puts(b, "if(...)");
      return;
    case TVM_RELAX_KIND_Constant:
      tvm_ffi_strbuf_puts(b, "const");
      return;
    case TVM_RELAX_KIND_ExternFunc:
      tvm_ffi_strbuf_puts(b, tvm_ffi_str_cstr(((const tvm_relax_extern_func_obj*)e)->global_symbol));
      return;
    default:
      if (tvm_tir_is(e, TVM_TIR_KIND_GlobalVar)) {
        tvm_ffi_strbuf_puts(b, tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)e)->name_hint));
      } else {
        tvm_ffi_strbuf_puts(b, "?");
      }
  }
}

static const tvm_relax_function_obj* find_function(const tvm_tir_ir_module_obj* mod, const char* name) {
  void* f = tvm_tir_ir_module_lookup(mod, name);
  tvm_ffi_release(f); /* the module keeps it */
  return tvm_relax_kind_of(f) == TVM_RELAX_KIND_Function ? f : NULL;
}

const char* relax_models_bindings_text(const tvm_tir_ir_module_obj* mod, const char* name, char* buf,
                                       size_t size) {
  const tvm_relax_function_obj* f = mod ? find_function(mod, name) : NULL;
  if (!f) {
    snprintf(buf, size, "(no function %s)", name);
    return buf;
  }
  tvm_ffi_strbuf b = {0};
  const tvm_relax_seq_expr_obj* seq = (const void*)f->body;
  for (int64_t i = 0; i < tvm_ffi_seq_size(seq->blocks); ++i) {
    const tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(seq->blocks, i);
    if (i) tvm_ffi_strbuf_puts(&b, " | ");
    if (tvm_relax_kind_of(blk) == TVM_RELAX_KIND_DataflowBlock) tvm_ffi_strbuf_puts(&b, "df: ");
    for (int64_t j = 0; j < tvm_ffi_seq_size(blk->bindings); ++j) {
      const tvm_relax_binding_obj* bd = tvm_ffi_seq_obj_at(blk->bindings, j);
      if (j) tvm_ffi_strbuf_puts(&b, "; ");
      tvm_ffi_strbuf_printf(&b, "%s = ", tvm_relax_var_name(bd->var));
      value_text(&b, tvm_relax_binding_value(bd));
    }
  }
  snprintf(buf, size, "%s", tvm_ffi_strbuf_cstr(&b));
  tvm_ffi_strbuf_free(&b);
  return buf;
}

int64_t relax_models_count_calls(const tvm_tir_ir_module_obj* mod, const char* name,
                                 const char* op_name) {
  const tvm_relax_function_obj* f = mod ? find_function(mod, name) : NULL;
  if (!f) return -1;
  int64_t count = 0;
  const tvm_relax_seq_expr_obj* seq = (const void*)f->body;
  for (int64_t i = 0; i < tvm_ffi_seq_size(seq->blocks); ++i) {
    const tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(seq->blocks, i);
    for (int64_t j = 0; j < tvm_ffi_seq_size(blk->bindings); ++j) {
      const tvm_relax_call_obj* c = (const void*)tvm_relax_binding_value(tvm_ffi_seq_obj_at(blk->bindings, j));
      if (tvm_relax_kind_of(c) != TVM_RELAX_KIND_Call) continue;
      const tvm_relax_op_info* info = tvm_relax_op_info_of(c->op);
      if (info && strcmp(info->name, op_name) == 0) ++count;
    }
  }
  return count;
}

/*
 * ir_builder_relax.c: the Relax frames of the IR builder (tvm/script/ir_builder_relax.h) on
 * librelax's BlockBuilder: function frames (parameters, return annotation, attributes, return,
 * local functions), dataflow blocks with R.output, if/else branches, bindings and match_casts,
 * the per-function table of symbolic variables, and module functions' GlobalVars.
 *
 * One BlockBuilder per IR builder (made by the first Relax frame): a function frame begins its
 * BlockBuilder function at its first body statement (parameters come first), a local function
 * begins one inside the enclosing one (the BlockBuilder sets it aside), an if branch is a binding
 * scope, a dataflow frame a dataflow block. Bindings keep the names written (upstream's IR builder
 * names Vars as the script does); only the bindings that normalisation adds get the
 * BlockBuilder's "lv" / "gv" names. The last assignment of an if branch is held back (pending):
 * its value is the branch's result when it is a leaf (the printer's `z = t1`), and it is bound
 * in the branch otherwise.
 */
#include <stdio.h>
#include <string.h>

#include "ir_builder_internal.h"
#include "script_relax_internal.h"

struct tvm_script__relax_frame {
  /* RELAX_FUNC */
  char* name;
  unsigned flags;
  bool begun;    /* its BlockBuilder function was begun */
  bool returned; /* tvm_script_relax_func_return ran */
  bool nested;   /* a local function */
  bool fragment; /* the frame of a fragment's statements (tvm_script_relax_fragment_enter) */
  void* last_free; /* (fragment) the last free variable declared */
  void* params;  /* ffi.List of Var */
  void* ret_sinfo;
  void* attrs;  /* ffi.Dict or NULL */
  void* syms;   /* ffi.Dict name -> tir.Var, or NULL */
  void* output; /* the returned expression */
  void* self_var; /* a recursive local function's Var (tvm_script__relax_func_self_var) */
  /* RELAX_DATAFLOW */
  bool closed;       /* R.output ended the block */
  size_t span_start; /* the size of the builder's span log when the block began */
  /* RELAX_IF */
  void* cond;
  void *then_seq, *else_seq;
  void *then_var, *else_var; /* each branch's last assignment's Var */
  bool then_ann, else_ann;   /* ... written with an annotation */
  /* RELAX_THEN / RELAX_ELSE: the last assignment, not emitted yet */
  void* pending; /* a VarBinding */
  bool pending_ann;
};
typedef struct tvm_script__relax_frame relax_frame;

#define REL(x)            \
  do {                    \
    tvm_ffi_release(x);   \
    (x) = NULL;           \
  } while (0)

void tvm_script__relax_frame_release(tvm_script__frame* f) {
  relax_frame* r = f->relax;
  if (!r) return;
  tvm_ffi_free(r->name);
  REL(r->params);
  REL(r->ret_sinfo);
  REL(r->attrs);
  REL(r->syms);
  REL(r->output);
  REL(r->self_var);
  REL(r->cond);
  REL(r->then_seq);
  REL(r->else_seq);
  REL(r->then_var);
  REL(r->else_var);
  REL(r->pending);
  REL(r->last_free);
  tvm_ffi_free(r);
  f->relax = NULL;
}

void tvm_script__relax_builder_release(tvm_script_builder* b) {
  for (size_t i = 0; i < b->relax_inferred_cap; ++i) tvm_ffi_release(b->relax_inferred[i]);
  tvm_ffi_free(b->relax_inferred);
  b->relax_inferred = NULL;
  b->relax_inferred_cap = b->relax_inferred_n = 0;
  tvm_relax_bb_free(b->relax_bb);
  b->relax_bb = NULL;
  REL(b->relax_syms);
  REL(b->relax_last);
}

static tvm_relax_block_builder* bb_of(tvm_script_builder* b) {
  return (tvm_relax_block_builder*)b->relax_bb;
}

static tvm_script__frame* top(tvm_script_builder* b) {
  return b->depth ? &b->frames[b->depth - 1] : NULL;
}

static tvm_script__frame* find_func(tvm_script_builder* b) {
  return tvm_script__find_frame(b, TVM_SCRIPT_FRAME_RELAX_FUNC);
}

static void set_last(tvm_script_builder* b, void* obj) {
  tvm_ffi_release(b->relax_last);
  tvm_ffi_retain(obj);
  b->relax_last = obj;
}

/* (Bindings, below.) */
static int place_binding(tvm_script_builder* b, tvm_script__frame* f, void* binding, bool ann);

static bool is_bool(DLDataType t) { return tvm_tir_dtype_is_bool(t) || t.code == kDLBool; }

static const char* type_name(const void* obj) {
  return obj ? tvm_ffi_type_key(tvm_ffi_type_index(obj)) : "None";
}

static void sinfo_text(tvm_ffi_strbuf* buf, const void* sinfo) {
  tvm_relax_sinfo_text(buf, (const tvm_relax_sinfo_obj*)sinfo);
}

/* ---- Frames ---------------------------------------------------------------------------------- */
static relax_frame* push(tvm_script_builder* b, tvm_script_frame_kind kind) {
  relax_frame* r = tvm_ffi_calloc(1, sizeof(*r));
  if (!r) return NULL;
  tvm_script__frame* f = tvm_script__push_frame(b, kind);
  if (!f) {
    tvm_ffi_free(r);
    return NULL;
  }
  f->relax = r;
  return r;
}

/* Begin the BlockBuilder function of function frame f (its parameters are final then). */
static int ensure_begun(tvm_script_builder* b, tvm_script__frame* f) {
  relax_frame* r = f->relax;
  if (r->begun) return 0;
  if (r->returned) {
    return tvm_ffi_raise("ValueError", "R.function `%s`: nothing may follow its return", r->name);
  }
  void* params = r->params ? tvm_ffi_list_to_array(r->params) : NULL;
  if (r->params && !params) return -1;
  /* Attributes and global_symbol are the frame's (added at the end), so the BlockBuilder's
   * function is private. */
  unsigned flags = TVM_RELAX_BB_PRIVATE | (r->flags & TVM_SCRIPT_RELAX_IMPURE ? TVM_RELAX_BB_IMPURE : 0);
  int rc = tvm_relax_bb_function_begin_ex(bb_of(b), r->name, params, NULL, flags);
  tvm_ffi_release(params);
  if (rc == 0) r->begun = true;
  return rc;
}

/* Emit the pending last assignment of branch frame f, if any. */
static int flush_pending(tvm_script_builder* b, tvm_script__frame* f) {
  if (!f || !f->relax || !f->relax->pending) return 0;
  relax_frame* r = f->relax;
  int rc = tvm_relax_bb_emit_binding(bb_of(b), r->pending);
  REL(r->pending);
  return rc;
}

/* The innermost frame as the place of a body statement (a binding, a block, an if, a local
 * function): a function, dataflow or branch frame whose function was begun and is not closed;
 * the branch's pending assignment emitted. what: the statement, for messages. */
static tvm_script__frame* body_frame(tvm_script_builder* b, const char* what, bool flush) {
  tvm_script__frame* f = top(b);
  tvm_script_frame_kind k = f ? f->kind : TVM_SCRIPT_FRAME_NONE;
  if (k != TVM_SCRIPT_FRAME_RELAX_FUNC && k != TVM_SCRIPT_FRAME_RELAX_DATAFLOW &&
      k != TVM_SCRIPT_FRAME_RELAX_THEN && k != TVM_SCRIPT_FRAME_RELAX_ELSE) {
    tvm_ffi_raise("ValueError", "%s is only valid inside an R.function%s%s", what,
                  f ? ", not directly inside " : " (no frame is open)",
                  k == TVM_SCRIPT_FRAME_RELAX_IF ? "a Relax if (use its branches)"
                  : f                            ? "a non-Relax frame"
                                                 : "");
    return NULL;
  }
  if (k == TVM_SCRIPT_FRAME_RELAX_FUNC && f->relax->returned) {
    tvm_ffi_raise("ValueError", "%s: nothing may follow the return of R.function `%s`", what,
                  f->relax->name);
    return NULL;
  }
  if (k == TVM_SCRIPT_FRAME_RELAX_DATAFLOW && f->relax->closed) {
    tvm_ffi_raise("ValueError",
                  "%s after R.output: R.output must be the last statement of a dataflow block",
                  what);
    return NULL;
  }
  if (ensure_begun(b, find_func(b)) != 0) return NULL;
  if (flush && flush_pending(b, f) != 0) return NULL;
  return f;
}

/* ---- Symbolic variables ---------------------------------------------------------------------- */
/* The symbol table of the innermost function frame (or the loose one), made when missing. */
static void* syms_table(tvm_script_builder* b, bool make) {
  tvm_script__frame* f = find_func(b);
  void** slot = f ? &f->relax->syms : &b->relax_syms;
  if (!*slot && make) *slot = tvm_ffi_dict_new();
  return *slot;
}

tvm_tir_var_obj* tvm_script_relax_sym_var(tvm_script_builder* b, const char* name) {
  if (!name || !*name) {
    tvm_ffi_raise("ValueError", "a symbolic variable needs a name");
    return NULL;
  }
  void* t = syms_table(b, true);
  if (!t) return NULL;
  const TVMFFIAny* v = tvm_ffi_map_get_str(t, name);
  if (v) {
    tvm_ffi_retain(v->v_obj);
    return (tvm_tir_var_obj*)v->v_obj;
  }
  tvm_tir_var_obj* var = tvm_tir_var_new(name, tvm_tir_dtype_int(64));
  TVMFFIAny key = tvm_ffi_string(name), val = tvm_ffi_any_obj(var);
  int rc = var ? tvm_ffi_dict_set(t, &key, &val) : -1;
  tvm_ffi_any_release(&key);
  if (rc != 0) {
    tvm_ffi_release(var);
    return NULL;
  }
  return var;
}

tvm_tir_var_obj* tvm_script_relax_bind_sym_var(tvm_script_builder* b, const char* name,
                                               const void* var) {
  if (!tvm_tir_is_var(var)) {
    tvm_ffi_raise("TypeError", "`%s = ...`: a symbolic variable must be a tir.Var, got %s", name,
                  type_name(var));
    return NULL;
  }
  void* t = syms_table(b, true);
  if (!t) return NULL;
  const TVMFFIAny* v = tvm_ffi_map_get_str(t, name);
  if (v) {
    DLDataType have = tvm_tir_expr_dtype(v->v_obj), want = tvm_tir_expr_dtype(var);
    if (!tvm_tir_dtype_equal(have, want)) {
      tvm_ffi_raise("TypeError", "`%s = T.%s()`: %s is already a symbolic variable of dtype %s",
                    name, tvm_tir_dtype_str(want).s, name, tvm_tir_dtype_str(have).s);
      return NULL;
    }
    tvm_ffi_retain(v->v_obj);
    return (tvm_tir_var_obj*)v->v_obj;
  }
  TVMFFIAny key = tvm_ffi_string(name), val = tvm_ffi_any_obj((void*)var);
  int rc = tvm_ffi_dict_set(t, &key, &val);
  tvm_ffi_any_release(&key);
  if (rc != 0) return NULL;
  tvm_ffi_retain((void*)var);
  return (tvm_tir_var_obj*)var;
}

void* tvm_script_relax_syms(tvm_script_builder* b) {
  void* t = syms_table(b, false);
  return t ? tvm_ffi_dict_to_map(t) : tvm_ffi_map_new(NULL, NULL, 0);
}

void tvm_script_relax_syms_reset(tvm_script_builder* b) { REL(b->relax_syms); }

/* ---- Calls made by inference ----------------------------------------------------------------- */
static size_t inferred_slot(const void* call, size_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)call * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 32) & (cap - 1);
}

void tvm_script__relax_note_inferred(tvm_script_builder* b, const void* call) {
  if (!b || !call || tvm_relax_kind_of(call) != TVM_RELAX_KIND_Call) return;
  if ((b->relax_inferred_n + 1) * 2 > b->relax_inferred_cap) {
    size_t cap = b->relax_inferred_cap ? b->relax_inferred_cap * 2 : 64;
    void** slots = tvm_ffi_calloc(cap, sizeof(void*));
    if (!slots) { /* (not noted: the check infers it again) */
      tvm_ffi_error_clear();
      return;
    }
    for (size_t i = 0; i < b->relax_inferred_cap; ++i) {
      void* c = b->relax_inferred[i];
      if (!c) continue;
      size_t j = inferred_slot(c, cap);
      while (slots[j]) j = (j + 1) & (cap - 1);
      slots[j] = c;
    }
    tvm_ffi_free(b->relax_inferred);
    b->relax_inferred = slots;
    b->relax_inferred_cap = cap;
  }
  size_t j = inferred_slot(call, b->relax_inferred_cap);
  while (b->relax_inferred[j]) {
    if (b->relax_inferred[j] == call) return;
    j = (j + 1) & (b->relax_inferred_cap - 1);
  }
  tvm_ffi_retain((void*)call); /* (kept alive: its address names no other object meanwhile) */
  b->relax_inferred[j] = (void*)call;
  ++b->relax_inferred_n;
}

bool tvm_script__relax_call_inferred(void* builder, const void* call) {
  tvm_script_builder* b = builder;
  if (!b || !b->relax_inferred_cap) return false;
  size_t j = inferred_slot(call, b->relax_inferred_cap);
  while (b->relax_inferred[j]) {
    if (b->relax_inferred[j] == call) return true;
    j = (j + 1) & (b->relax_inferred_cap - 1);
  }
  return false;
}

/* ---- Virtual devices ------------------------------------------------------------------------- */
tvm_tir_vdevice_obj* tvm_script_relax_lookup_vdevice(tvm_script_builder* b, const char* kind,
                                                     size_t kind_len, int64_t index) {
  tvm_script__frame* f = tvm_script__find_frame(b, TVM_SCRIPT_FRAME_MODULE);
  const TVMFFIAny* infos = f && f->attrs ? tvm_ffi_map_get_str(f->attrs, "global_infos") : NULL;
  const TVMFFIAny* list = infos && tvm_ffi_any_is_object(infos) &&
                                  tvm_ffi_instance_of(infos->v_obj, kTVMFFIMap)
                              ? tvm_ffi_map_get_str(infos->v_obj, "vdevice")
                              : NULL;
  const void* seq = list && tvm_ffi_any_is_object(list) &&
                            (tvm_ffi_instance_of(list->v_obj, kTVMFFIArray) ||
                             tvm_ffi_instance_of(list->v_obj, kTVMFFIList))
                        ? list->v_obj
                        : NULL;
  if (!seq) {
    tvm_ffi_raise("ValueError", "vdevice \"%.*s:%lld\": the virtual devices are not defined (a "
                  "module's I.module_global_infos({\"vdevice\": [I.vdevice(...), ...]}) defines "
                  "them)", (int)kind_len, kind, (long long)index);
    return NULL;
  }
  /* "vdevice:N" indexes the whole list; "KIND:N" the devices of that target kind */
  bool any_kind = kind_len == 7 && memcmp(kind, "vdevice", 7) == 0;
  int64_t n = tvm_ffi_seq_size(seq), count = 0;
  for (int64_t i = 0; i < n && index >= 0; ++i) {
    const TVMFFIAny* item = tvm_ffi_seq_at(seq, i); /* (the list may hold anything) */
    const void* v = tvm_ffi_any_is_object(item) ? item->v_obj : NULL;
    if (!tvm_tir_is(v, TVM_TIR_KIND_VDevice)) continue;
    const tvm_tir_vdevice_obj* vd = v;
    TVMFFIByteArray k = {"", 0};
    if (vd->target) {
      TVMFFIAny ka = tvm_ffi_any_obj(vd->target->kind);
      tvm_ffi_any_as_bytes(&ka, &k);
    }
    if (!any_kind && (k.size != kind_len || memcmp(k.data, kind, kind_len) != 0)) continue;
    if (count++ == index) {
      tvm_ffi_retain((void*)v);
      return (tvm_tir_vdevice_obj*)v;
    }
  }
  if (any_kind) {
    tvm_ffi_raise("ValueError", "vdevice \"vdevice:%lld\": the module's I.module_global_infos "
                  "has %lld virtual device(s)", (long long)index, (long long)count);
    return NULL;
  }
  tvm_ffi_raise("ValueError", "vdevice \"%.*s:%lld\": the module's I.module_global_infos has %lld "
                "virtual device(s) of target kind \"%.*s\"", (int)kind_len, kind,
                (long long)index, (long long)count, (int)kind_len, kind);
  return NULL;
}

void* tvm_script_relax_lookup_global_info(tvm_script_builder* b, const char* name, size_t len,
                                          int64_t index) {
  tvm_script__frame* f = tvm_script__find_frame(b, TVM_SCRIPT_FRAME_MODULE);
  const TVMFFIAny* infos = f && f->attrs ? tvm_ffi_map_get_str(f->attrs, "global_infos") : NULL;
  char key[128];
  size_t key_len = len < 120 ? len : 120;
  memcpy(key, name, key_len);
  key[key_len] = '\0';
  const TVMFFIAny* list = infos && tvm_ffi_any_is_object(infos) &&
                                  tvm_ffi_instance_of(infos->v_obj, kTVMFFIMap)
                              ? tvm_ffi_map_get_str(infos->v_obj, key)
                              : NULL;
  const void* seq = list && tvm_ffi_any_is_object(list) &&
                            (tvm_ffi_instance_of(list->v_obj, kTVMFFIArray) ||
                             tvm_ffi_instance_of(list->v_obj, kTVMFFIList))
                        ? list->v_obj
                        : NULL;
  if (!seq) {
    tvm_ffi_raise("ValueError", "\"%s[%lld]\": the module defines no \"%s\" (its "
                  "I.module_global_infos({\"%s\": [...]}) would)", key, (long long)index, key, key);
    return NULL;
  }
  int64_t n = tvm_ffi_seq_size(seq);
  if (index < 0 || index >= n || !tvm_ffi_any_is_object(tvm_ffi_seq_at(seq, index))) {
    tvm_ffi_raise("ValueError", "\"%s[%lld]\": the module's I.module_global_infos has %lld "
                  "\"%s\" item(s)", key, (long long)index, (long long)n, key);
    return NULL;
  }
  void* v = tvm_ffi_seq_obj_at(seq, index);
  tvm_ffi_retain(v);
  return v;
}

/* ---- Functions ------------------------------------------------------------------------------- */
int tvm_script_relax_function_enter(tvm_script_builder* b, const char* name, unsigned flags) {
  tvm_relax_init();
  if (!name || !*name) return tvm_ffi_raise("ValueError", "R.function: a function needs a name");
  tvm_script__frame* parent = top(b);
  bool nested = false;
  if (parent && parent->kind != TVM_SCRIPT_FRAME_MODULE) {
    if (!tvm_script__is_relax_frame(parent->kind)) {
      return tvm_ffi_raise("ValueError",
                           "R.function is only valid at the top level, in an I.ir_module or in "
                           "the body of a Relax function, not inside %s",
                           parent->kind == TVM_SCRIPT_FRAME_PRIM_FUNC ? "a T.prim_func"
                                                                      : "a TIR frame");
    }
    if (!body_frame(b, "a local R.function", true)) return -1;
    nested = true;
  }
  if (!b->relax_bb && !(b->relax_bb = tvm_relax_bb_new(NULL))) return -1;
  relax_frame* r = push(b, TVM_SCRIPT_FRAME_RELAX_FUNC);
  if (!r) return -1;
  r->name = tvm_ffi_strndup(name, strlen(name));
  r->params = tvm_ffi_list_new();
  r->flags = flags;
  r->nested = nested;
  if (!r->name || !r->params) return -1;
  if (parent && parent->kind == TVM_SCRIPT_FRAME_MODULE) parent->flag = true;
  return 0;
}

/* The innermost frame when it is a function frame (else ValueError naming what). */
static relax_frame* func_top(tvm_script_builder* b, const char* what) {
  tvm_script__frame* f =
      tvm_script__require_top(b, TVM_SCRIPT_FRAME_RELAX_FUNC, what, "R.function");
  return f ? f->relax : NULL;
}

tvm_relax_var_obj* tvm_script_relax_arg(tvm_script_builder* b, const char* name,
                                        const tvm_relax_sinfo_obj* sinfo) {
  relax_frame* r = func_top(b, "a Relax parameter");
  if (!r) return NULL;
  if (r->begun || r->returned) {
    tvm_ffi_raise("ValueError", "R.function `%s`: parameter `%s` after the body began", r->name,
                  name ? name : "");
    return NULL;
  }
  if (!name || !*name) {
    tvm_ffi_raise("ValueError", "R.function `%s`: a parameter needs a name", r->name);
    return NULL;
  }
  if (!tvm_relax_is_sinfo(sinfo)) {
    tvm_ffi_raise("TypeError", "R.function `%s`: parameter `%s` needs a struct info annotation "
                  "(R.Tensor, R.Tuple, ...), got %s", r->name, name, type_name(sinfo));
    return NULL;
  }
  tvm_relax_var_obj* v = tvm_relax_var_new(name, (tvm_relax_sinfo_obj*)sinfo, false);
  TVMFFIAny item = tvm_ffi_any_obj(v);
  if (!v || tvm_ffi_list_push(r->params, &item) != 0) {
    tvm_ffi_release(v);
    return NULL;
  }
  return v;
}

int tvm_script_relax_func_ret(tvm_script_builder* b, const tvm_relax_sinfo_obj* sinfo) {
  relax_frame* r = func_top(b, "a Relax return annotation");
  if (!r) return -1;
  if (!tvm_relax_is_sinfo(sinfo)) {
    return tvm_ffi_raise("TypeError", "R.function `%s`: the return annotation must be a struct "
                         "info (R.Tensor, R.Tuple, ...), got %s", r->name, type_name(sinfo));
  }
  tvm_ffi_release(r->ret_sinfo);
  tvm_ffi_retain((void*)sinfo);
  r->ret_sinfo = (void*)sinfo;
  return 0;
}

tvm_relax_var_obj* tvm_script__relax_func_self_var(tvm_script_builder* b) {
  relax_frame* r = func_top(b, "a recursive local function");
  if (!r) return NULL;
  if (!r->nested || !r->ret_sinfo || r->self_var) {
    tvm_ffi_raise("ValueError", "R.function `%s` calls itself: %s", r->name,
                  !r->nested      ? "only a local function is bound to a variable before its body"
                  : !r->ret_sinfo ? "a recursive local function needs a return annotation"
                                  : "its variable is made twice");
    return NULL;
  }
  int64_t n = tvm_ffi_seq_size(r->params);
  TVMFFIAny* items = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
  if (!items) return NULL;
  for (int64_t i = 0; i < n; ++i) {
    items[i] = tvm_ffi_any_obj(tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(r->params, i)));
  }
  void* params = tvm_ffi_array_new(items, n);
  tvm_ffi_free(items);
  tvm_relax_sinfo_obj* s = params ? tvm_relax_func_sinfo_new(params, r->ret_sinfo,
                                                             !(r->flags & TVM_SCRIPT_RELAX_IMPURE))
                                  : NULL;
  tvm_ffi_release(params);
  tvm_relax_var_obj* v = s ? tvm_relax_var_new(r->name, s, false) : NULL;
  tvm_ffi_release(s);
  if (v) {
    tvm_ffi_retain(v);
    r->self_var = v;
  }
  return v;
}

int tvm_script_relax_func_attrs(tvm_script_builder* b, const void* attrs) {
  relax_frame* r = func_top(b, "R.func_attr");
  if (!r) return -1;
  if (!r->attrs && !(r->attrs = tvm_ffi_dict_new())) return -1;
  return tvm_script__merge_attrs(r->attrs, attrs, "R.func_attr");
}

int tvm_script_relax_func_return(tvm_script_builder* b, const TVMFFIAny* value) {
  tvm_script__frame* f = top(b);
  if (!f || f->kind != TVM_SCRIPT_FRAME_RELAX_FUNC) {
    return tvm_ffi_raise("ValueError", "return is only valid at the end of an R.function's body%s",
                         f && tvm_script__is_relax_frame(f->kind)
                             ? ", not inside R.dataflow or an if branch"
                             : "");
  }
  relax_frame* r = f->relax;
  if (r->returned) {
    return tvm_ffi_raise("ValueError", "R.function `%s` returns twice", r->name);
  }
  if (ensure_begun(b, f) != 0) return -1;
  tvm_relax_expr_obj* e = tvm_script__relax_expr_of(value, "the returned value");
  if (!e) return -1;
  r->output = e;
  r->returned = true;
  return 0;
}

void* tvm_script_relax_function_end(tvm_script_builder* b) {
  if (!tvm_script__require_top(b, TVM_SCRIPT_FRAME_RELAX_FUNC, "the end of an R.function",
                               "R.function")) {
    return NULL;
  }
  REL(b->relax_last);
  if (tvm_script_builder_exit(b) != 0) return NULL;
  void* out = b->relax_last;
  b->relax_last = NULL;
  return out;
}

tvm_tir_global_var_obj* tvm_script_relax_decl_function(tvm_script_builder* b, const char* name,
                                                       const tvm_relax_sinfo_obj* sinfo) {
  tvm_relax_init();
  tvm_script__frame* mod = tvm_script__find_frame(b, TVM_SCRIPT_FRAME_MODULE);
  if (!mod) {
    tvm_ffi_raise("ValueError", "declaring `%s`: a module function is only valid inside an "
                  "I.ir_module", name);
    return NULL;
  }
  if (tvm_relax_kind_of(sinfo) != TVM_RELAX_KIND_FuncStructInfo) {
    tvm_ffi_raise("TypeError", "declaring `%s`: a FuncStructInfo was expected, got %s", name,
                  type_name(sinfo));
    return NULL;
  }
  if (tvm_ffi_map_get_str(mod->global_vars, name)) {
    tvm_ffi_raise("ValueError", "the module declares `%s` twice (or refers to it before it is "
                  "declared)", name);
    return NULL;
  }
  tvm_tir_global_var_obj* gv = tvm_relax_global_var_new(name, (tvm_relax_sinfo_obj*)sinfo);
  TVMFFIAny key = tvm_ffi_any_obj(gv ? gv->name_hint : NULL), val = tvm_ffi_any_obj(gv);
  if (!gv || tvm_ffi_dict_set(mod->global_vars, &key, &val) != 0) {
    tvm_ffi_release(gv);
    return NULL;
  }
  mod->flag = true;
  return gv;
}

/* gv's struct info becomes sinfo. GlobalVars are made by the module frame, which publishes them
 * only in its IRModule: until then the builder owns them and sets what upstream's
 * UpdateStructInfo sets, the struct info of the function defined under the name. */
static void set_gv_sinfo(tvm_tir_global_var_obj* gv, tvm_relax_sinfo_obj* sinfo) {
  if (gv->relax.struct_info_ == (void*)sinfo) return;
  tvm_ffi_retain(sinfo);
  tvm_ffi_release(gv->relax.struct_info_);
  gv->relax.struct_info_ = sinfo;
}

int tvm_script__relax_module_global_vars(tvm_script__frame* module) {
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(module->functions, pos, &k, &v)) >= 0;) {
    tvm_tir_global_var_obj* gv = (tvm_tir_global_var_obj*)k->v_obj;
    if (gv->relax.struct_info_) continue;
    tvm_relax_sinfo_obj* s = tvm_relax_expr_sinfo(v->v_obj);
    if (!s) return -1;
    set_gv_sinfo(gv, s);
    tvm_ffi_release(s);
  }
  return 0;
}

int tvm_script__relax_declare_prim_func(tvm_tir_global_var_obj* gv,
                                        const tvm_tir_type_obj* ret_type) {
  if (gv->relax.struct_info_) return 0;
  tvm_relax_sinfo_obj* s = tvm_relax_prim_func_type_sinfo(ret_type);
  if (!s) return -1;
  set_gv_sinfo(gv, s);
  tvm_ffi_release(s);
  return 0;
}

/* The attributes of the finished function of frame r: its R.func_attr ones, and global_symbol =
 * its name for a public module or top-level function (as upstream's parser adds). A new Map, or
 * NULL (none) with *ok. */
static void* final_attrs(relax_frame* r, bool* ok) {
  *ok = true;
  if ((r->flags & TVM_SCRIPT_RELAX_PRIVATE) && r->attrs &&
      tvm_ffi_map_get_str(r->attrs, "global_symbol")) { /* (upstream refuses it too) */
    tvm_ffi_raise("ValueError", "a private function may not have the attribute global_symbol "
                  "(drop private=True, or the attribute)");
    return *ok = false, NULL;
  }
  bool gs = !r->nested && !(r->flags & TVM_SCRIPT_RELAX_PRIVATE) &&
            !(r->attrs && tvm_ffi_map_get_str(r->attrs, "global_symbol"));
  if (!gs && (!r->attrs || tvm_ffi_map_size(r->attrs) == 0)) return NULL;
  if (gs) {
    TVMFFIAny key = tvm_ffi_string("global_symbol"), val = tvm_ffi_string(r->name);
    void* m = NULL;
    int rc = 0;
    if (!r->attrs) { /* (the usual case: no R.func_attr) */
      m = tvm_ffi_map_new(&key, &val, 1);
      rc = m ? 0 : -1;
    } else {
      rc = tvm_ffi_dict_set(r->attrs, &key, &val);
    }
    tvm_ffi_any_release(&key);
    tvm_ffi_any_release(&val);
    if (rc != 0) return *ok = false, NULL;
    if (m) return m;
  }
  void* m = tvm_ffi_dict_to_map(r->attrs);
  if (!m) *ok = false;
  return m;
}

/* The IR a fragment's statements built (blocks: the finished frame's), as the printer prints
 * fragments: with a final value, the SeqExpr of the blocks and it (the value itself when there
 * are none); else a lone dataflow block, a lone binding, a plain block, or for several blocks
 * their SeqExpr ending with the last bound variable. NULL (no error) when nothing was bound and
 * there is no value. */
static void* fragment_result(void* blocks, void* value) {
  int64_t n = tvm_ffi_seq_size(blocks);
  if (value) {
    if (n == 0) return tvm_ffi_retain(value), value;
    if (!tvm_relax_is_expr(value)) {
      tvm_ffi_raise("TypeError", "the value ending a fragment that binds variables must be a "
                    "Relax expression, got %s", type_name(value));
      return NULL;
    }
    return tvm_relax_seq_expr_new(blocks, value);
  }
  if (n == 0) return NULL;
  const tvm_relax_block_obj* last = tvm_ffi_seq_obj_at(blocks, n - 1);
  int64_t nb = tvm_ffi_seq_size(last->bindings);
  if (n == 1) {
    void* one = nb == 1 && tvm_relax_kind_of(last) == TVM_RELAX_KIND_BindingBlock
                    ? tvm_ffi_seq_obj_at(last->bindings, 0)
                    : (void*)last;
    return tvm_ffi_retain(one), one;
  }
  const tvm_relax_binding_obj* lb = tvm_ffi_seq_obj_at(last->bindings, nb - 1);
  return tvm_relax_seq_expr_new(blocks, (tvm_relax_expr_obj*)lb->var);
}

static int finish_fragment(tvm_script_builder* b, tvm_script__frame* f) {
  relax_frame* r = f->relax;
  if (ensure_begun(b, f) != 0) return -1;
  void* empty = tvm_ffi_array_new(NULL, 0);
  tvm_relax_expr_obj* unit = empty ? tvm_relax_tuple_new(empty) : NULL;
  tvm_ffi_release(empty);
  tvm_relax_function_obj* fn = unit ? tvm_relax_bb_function_finish(bb_of(b), unit, NULL) : NULL;
  tvm_ffi_release(unit);
  if (!fn) return -1;
  const tvm_relax_seq_expr_obj* body = (const void*)fn->body;
  void* result = tvm_ffi_seq_size(body->blocks) == 0 && !r->output && r->last_free
                     ? (tvm_ffi_retain(r->last_free), r->last_free)
                     : fragment_result(body->blocks, r->output);
  tvm_ffi_release(fn);
  if (!result && tvm_ffi_error_pending()) return -1;
  if (!result) {
    return tvm_ffi_raise("ValueError", "a Relax fragment binds nothing and has no value");
  }
  set_last(b, result);
  tvm_ffi_release(result);
  return 0;
}

int tvm_script_relax_fragment_enter(tvm_script_builder* b) {
  if (b->depth != 0) {
    return tvm_ffi_raise("ValueError", "a Relax fragment is only valid at the top level");
  }
  if (tvm_script_relax_function_enter(b, "fragment", TVM_SCRIPT_RELAX_IMPURE) != 0) return -1;
  top(b)->relax->fragment = true;
  return 0;
}

tvm_relax_var_obj* tvm_script_relax_fragment_var(tvm_script_builder* b, const char* name,
                                                 const tvm_relax_sinfo_obj* sinfo) {
  tvm_script__frame* f = find_func(b);
  if (!f || !f->relax->fragment || b->depth != 1) {
    tvm_ffi_raise("SyntaxError", "a Relax binding needs a value (`%s: <struct info>` alone "
                  "declares a free variable only at the top of a fragment)", name);
    return NULL;
  }
  tvm_relax_var_obj* v = tvm_relax_var_new(name, (tvm_relax_sinfo_obj*)sinfo, false);
  if (v) {
    REL(f->relax->last_free);
    tvm_ffi_retain(v);
    f->relax->last_free = v;
  }
  return v;
}

void* tvm_script_relax_fragment_end(tvm_script_builder* b, const TVMFFIAny* value) {
  tvm_script__frame* f =
      tvm_script__require_top(b, TVM_SCRIPT_FRAME_RELAX_FUNC, "the end of a fragment", "a fragment");
  if (!f) return NULL;
  relax_frame* r = f->relax;
  if (!r->fragment) {
    tvm_ffi_raise("ValueError", "the end of a fragment outside a fragment");
    return NULL;
  }
  if (value && tvm_ffi_any_is_object(value) && !tvm_relax_is_expr(value->v_obj)) {
    /* (a struct info, a PrimExpr: the fragment's value when nothing is bound) */
    REL(r->output);
    tvm_ffi_retain(value->v_obj);
    r->output = value->v_obj;
  } else if (value) {
    tvm_relax_expr_obj* e = tvm_script__relax_expr_of(value, "a fragment's value");
    if (!e) return NULL;
    REL(r->output);
    r->output = e;
  }
  REL(b->relax_last);
  if (tvm_script_builder_exit(b) != 0) return NULL;
  void* out = b->relax_last;
  b->relax_last = NULL;
  return out;
}

static int finish_function(tvm_script_builder* b, tvm_script__frame* f) {
  relax_frame* r = f->relax;
  if (r->fragment) return finish_fragment(b, f);
  if (!r->returned) {
    return tvm_ffi_raise("ValueError", "R.function `%s` has no return statement (a Relax "
                         "function ends with `return <value>`)", r->name);
  }
  /* The attributes are the BlockBuilder's before the function ends: it is built once. */
  bool ok;
  void* attrs = final_attrs(r, &ok);
  if (!ok) return -1;
  int set = attrs ? tvm_relax_bb_function_set_attrs(bb_of(b), attrs) : 0;
  tvm_ffi_release(attrs);
  tvm_relax_function_obj* fn =
      set == 0 ? tvm_relax_bb_function_finish(bb_of(b), r->output,
                                              (tvm_relax_sinfo_obj*)r->ret_sinfo)
               : NULL;
  if (!fn) return -1;
  if (b->span) tvm_script__span_record(b, fn, f->span);
  int rc = 0;
  if (r->nested && r->self_var) {
    /* recursive: bound to the Var its body calls */
    tvm_script__frame* body = body_frame(b, "a local R.function", true);
    tvm_relax_binding_obj* binding = body ? tvm_relax_var_binding_new(r->self_var, (void*)fn) : NULL;
    rc = binding ? place_binding(b, body, binding, false) : -1;
    tvm_ffi_release(binding);
    if (rc == 0) set_last(b, r->self_var);
  } else if (r->nested) {
    TVMFFIAny v = tvm_ffi_any_obj(fn);
    tvm_relax_var_obj* var = tvm_script_relax_emit(b, r->name, &v, NULL);
    if (var) set_last(b, var);
    rc = var ? 0 : -1;
    tvm_ffi_release(var);
  } else if (top(b) && top(b)->kind == TVM_SCRIPT_FRAME_MODULE) {
    rc = tvm_script__deliver_func(b, r->name, NULL, fn);
    tvm_tir_global_var_obj* gv = rc == 0 ? tvm_script_ir_module_global_var(b, r->name) : NULL;
    if (gv) {
      set_gv_sinfo(gv, tvm_relax_sinfo_of(fn));
      set_last(b, gv);
    }
    if (!gv) rc = -1;
    tvm_ffi_release(gv);
  } else {
    rc = tvm_script__deliver_func(b, r->name, NULL, fn);
    if (rc == 0) set_last(b, fn);
  }
  tvm_ffi_release(fn);
  return rc;
}

/* ---- Bindings -------------------------------------------------------------------------------- */
/* TypeError unless ann may describe a value of struct info have (base check not FAIL). */
static int check_annotation(const char* name, const tvm_relax_sinfo_obj* ann,
                            const tvm_relax_sinfo_obj* have, const char* of) {
  if (!tvm_relax_is_sinfo(ann)) {
    return tvm_ffi_raise("TypeError", "`%s`: the annotation must be a struct info (R.Tensor, "
                         "R.Tuple, ...), got %s", name ? name : "_", type_name(ann));
  }
  if (tvm_relax_sinfo_base_check(ann, have) != TVM_RELAX_BASE_CHECK_FAIL) return 0;
  tvm_ffi_strbuf a = {0}, h = {0};
  sinfo_text(&a, ann);
  sinfo_text(&h, have);
  tvm_ffi_raise("TypeError", "`%s`: the annotation %s does not match %s %s", name ? name : "_",
                tvm_ffi_strbuf_cstr(&a), of, tvm_ffi_strbuf_cstr(&h));
  tvm_ffi_strbuf_free(&a);
  tvm_ffi_strbuf_free(&h);
  return -1;
}

/* Bind `binding` in frame f: held back as the pending last assignment of a branch, else emitted. */
static int place_binding(tvm_script_builder* b, tvm_script__frame* f, void* binding, bool ann) {
  if (b->span && tvm_script__span_record(b, binding, b->span) != 0) return -1;
  if (f->kind == TVM_SCRIPT_FRAME_RELAX_THEN || f->kind == TVM_SCRIPT_FRAME_RELAX_ELSE) {
    tvm_ffi_retain(binding);
    f->relax->pending = binding;
    f->relax->pending_ann = ann;
    return 0;
  }
  return tvm_relax_bb_emit_binding(bb_of(b), binding);
}

/* The number of bindings in the BlockBuilder's open block. */
static int64_t open_count(tvm_script_builder* b) {
  const void* open = tvm_relax_bb_open_bindings(bb_of(b));
  return open ? tvm_ffi_seq_size(open) : 0;
}

/* Record, at the statement's span, the bindings the BlockBuilder emitted itself since the open
 * block held `before` of them: normalization's of nested calls, an unnamed value's own. */
static int record_emitted(tvm_script_builder* b, int64_t before) {
  const void* open = b->span ? tvm_relax_bb_open_bindings(bb_of(b)) : NULL;
  for (int64_t i = before; open && i < tvm_ffi_seq_size(open); ++i) {
    if (tvm_script__span_record(b, tvm_ffi_seq_obj_at(open, i), b->span) != 0) return -1;
  }
  return 0;
}

tvm_relax_var_obj* tvm_script_relax_emit(tvm_script_builder* b, const char* name,
                                         const TVMFFIAny* value, const tvm_relax_sinfo_obj* ann) {
  tvm_script__frame* f = body_frame(b, "a Relax binding", true);
  if (!f) return NULL;
  if (tvm_script__relax_match_cast_pair(value)) {
    const tvm_script_match_cast_pair* p = tvm_script__relax_match_cast_pair(value);
    TVMFFIAny v = tvm_ffi_any_obj(p->value);
    return tvm_script_relax_emit_match_cast(b, name, &v, p->struct_info, ann);
  }
  tvm_relax_expr_obj* e;
  if (tvm_ffi_any_is_object(value) && tvm_relax_is_expr(value->v_obj)) { /* (most values) */
    tvm_ffi_retain(value->v_obj);
    e = (tvm_relax_expr_obj*)value->v_obj;
  } else {
    char what[160]; /* (for the message of a value that does not convert) */
    snprintf(what, sizeof(what), "the value of `%s`", name ? name : "_");
    e = tvm_script__relax_expr_of(value, what);
  }
  if (!e) return NULL;
  tvm_relax_block_builder* bb = bb_of(b);
  int64_t before = open_count(b);
  if (!name && !ann) {
    tvm_relax_var_obj* v = tvm_relax_bb_emit(bb, e, NULL);
    tvm_ffi_release(e);
    if (v && record_emitted(b, before) != 0) REL(v);
    return v;
  }
  tvm_relax_expr_obj* norm = tvm_relax_bb_normalize(bb, e);
  tvm_ffi_release(e);
  if (norm && record_emitted(b, before) != 0) REL(norm);
  if (!norm) return NULL;
  tvm_relax_sinfo_obj* have = tvm_relax_sinfo_of(norm);
  if (ann && check_annotation(name, ann, have, "the value's struct info") != 0) {
    tvm_ffi_release(norm);
    return NULL;
  }
  tvm_relax_var_obj* var = tvm_relax_var_new(name ? name : "_", ann ? (void*)ann : have,
                                             tvm_relax_bb_in_dataflow(bb) == 1);
  tvm_relax_binding_obj* binding = var ? tvm_relax_var_binding_new(var, norm) : NULL;
  tvm_ffi_release(norm);
  int rc = binding ? place_binding(b, f, binding, ann != NULL) : -1;
  tvm_ffi_release(binding);
  if (rc != 0) {
    tvm_ffi_release(var);
    return NULL;
  }
  return var;
}

tvm_relax_var_obj* tvm_script_relax_emit_match_cast(tvm_script_builder* b, const char* name,
                                                    const TVMFFIAny* value,
                                                    const tvm_relax_sinfo_obj* sinfo,
                                                    const tvm_relax_sinfo_obj* ann) {
  tvm_script__frame* f = body_frame(b, "R.match_cast", true);
  if (!f) return NULL;
  if (!tvm_relax_is_sinfo(sinfo)) {
    tvm_ffi_raise("TypeError", "R.match_cast: the struct info must be R.Tensor, R.Shape, ..., "
                  "got %s", type_name(sinfo));
    return NULL;
  }
  if (ann && check_annotation(name, ann, sinfo, "the match_cast's struct info") != 0) return NULL;
  tvm_relax_expr_obj* e = tvm_script__relax_expr_of(value, "the value of R.match_cast");
  tvm_relax_block_builder* bb = bb_of(b);
  int64_t before = open_count(b);
  tvm_relax_expr_obj* norm = e ? tvm_relax_bb_normalize(bb, e) : NULL;
  tvm_ffi_release(e);
  if (!norm) return NULL;
  /* An operand must be a leaf (A-normal form): a call is bound first. */
  if (tvm_relax_kind_of(norm) == TVM_RELAX_KIND_Call || tvm_relax_kind_of(norm) == TVM_RELAX_KIND_If ||
      tvm_relax_kind_of(norm) == TVM_RELAX_KIND_TupleGetItem ||
      tvm_relax_kind_of(norm) == TVM_RELAX_KIND_Function) {
    tvm_relax_var_obj* t = tvm_relax_bb_emit(bb, norm, NULL);
    tvm_ffi_release(norm);
    norm = (tvm_relax_expr_obj*)t;
    if (!norm) return NULL;
  }
  if (record_emitted(b, before) != 0) REL(norm);
  if (!norm) return NULL;
  tvm_relax_var_obj* var = tvm_relax_var_new(name ? name : "_", (tvm_relax_sinfo_obj*)sinfo,
                                             tvm_relax_bb_in_dataflow(bb) == 1);
  tvm_relax_binding_obj* binding =
      var ? tvm_relax_match_cast_new(var, norm, (tvm_relax_sinfo_obj*)sinfo) : NULL;
  tvm_ffi_release(norm);
  int rc = binding ? place_binding(b, f, binding, true) : -1;
  tvm_ffi_release(binding);
  if (rc != 0) {
    tvm_ffi_release(var);
    return NULL;
  }
  return var;
}

/* ---- Dataflow blocks ------------------------------------------------------------------------- */
int tvm_script_relax_dataflow_enter(tvm_script_builder* b) {
  tvm_script__frame* f = body_frame(b, "R.dataflow", true);
  if (!f) return -1;
  if (f->kind == TVM_SCRIPT_FRAME_RELAX_DATAFLOW) {
    return tvm_ffi_raise("ValueError", "R.dataflow blocks do not nest");
  }
  if (tvm_relax_bb_dataflow_begin(bb_of(b)) != 0) return -1;
  relax_frame* r = push(b, TVM_SCRIPT_FRAME_RELAX_DATAFLOW);
  if (!r) return -1;
  r->span_start = b->spans.size;
  return 0;
}

/* The addresses of the open block's bindings (tvm_relax_bb_dataflow_end_outputs replaces those
 * that define or use an output), when the span log has entries to keep pointing at them; NULL
 * when it has none (or out of memory: only locations are lost then). */
static const void** logged_bindings(tvm_script_builder* b, int64_t* n) {
  const void* open = tvm_relax_bb_open_bindings(bb_of(b));
  *n = open ? tvm_ffi_seq_size(open) : 0;
  const void** old = *n > 0 && b->spans.size > 0 ? tvm_ffi_malloc((size_t)*n * sizeof(void*)) : NULL;
  for (int64_t i = 0; old && i < *n; ++i) old[i] = tvm_ffi_seq_obj_at(open, i);
  return old;
}

void* tvm_script_relax_dataflow_output(tvm_script_builder* b, const void* vars) {
  tvm_script__frame* f =
      tvm_script__require_top(b, TVM_SCRIPT_FRAME_RELAX_DATAFLOW, "R.output", "R.dataflow block");
  if (!f) return NULL;
  if (f->relax->closed) {
    tvm_ffi_raise("ValueError", "R.output is given twice in one dataflow block");
    return NULL;
  }
  if (vars && tvm_ffi_type_index(vars) != kTVMFFIArray) {
    tvm_ffi_raise("TypeError", "R.output: the outputs must be an ffi.Array of variables");
    return NULL;
  }
  for (int64_t i = 0; i < tvm_ffi_seq_size(vars); ++i) {
    const void* v = tvm_ffi_seq_obj_at(vars, i);
    if (tvm_relax_kind_of(v) != TVM_RELAX_KIND_DataflowVar) {
      if (tvm_relax_kind_of(v) == TVM_RELAX_KIND_Var) {
        tvm_ffi_raise("ValueError", "R.output: `%s` is not a variable of this dataflow block",
                      tvm_relax_var_name(v));
      } else {
        tvm_ffi_raise("TypeError", "R.output: output %lld must be a variable of the block, got %s",
                      (long long)i, type_name(v));
      }
      return NULL;
    }
  }
  void* out = NULL;
  int64_t n;
  const void** old = logged_bindings(b, &n);
  int rc = tvm_relax_bb_dataflow_end_outputs(bb_of(b), (void*)vars, &out);
  const tvm_relax_block_obj* blk = rc == 0 && old ? tvm_relax_bb_last_block(bb_of(b)) : NULL;
  if (blk && tvm_ffi_seq_size(blk->bindings) == n) {
    tvm_script__span_log_replace(&b->spans, f->relax->span_start, old, n, blk->bindings);
  }
  tvm_ffi_free(old);
  if (rc != 0) {
    /* The BlockBuilder's message, in the script's words. */
    void* e = tvm_ffi_error_take();
    const char* m = e ? tvm_ffi_error_message(e) : "";
    const char* p = strstr(m, "BlockBuilder: ");
    tvm_ffi_raise(e ? tvm_ffi_error_kind(e) : "ValueError", "R.output: %s", p ? p + 14 : m);
    tvm_ffi_release(e);
    return NULL;
  }
  f->relax->closed = true;
  return out;
}

static int finish_dataflow(tvm_script_builder* b, tvm_script__frame* f) {
  if (f->relax->closed) return 0;
  return tvm_relax_bb_block_end(bb_of(b));
}

/* ---- If / else ------------------------------------------------------------------------------- */
int tvm_script_relax_if_enter(tvm_script_builder* b, const TVMFFIAny* cond) {
  tvm_script__frame* f = body_frame(b, "a Relax if", true);
  if (!f) return -1;
  if (f->kind == TVM_SCRIPT_FRAME_RELAX_DATAFLOW || tvm_relax_bb_in_dataflow(bb_of(b)) == 1) {
    return tvm_ffi_raise("ValueError", "a Relax if is not allowed inside R.dataflow (end the "
                         "dataflow block first)");
  }
  tvm_relax_expr_obj* c = tvm_script__relax_expr_of(cond, "the if condition");
  if (!c) return -1;
  /* The condition's checks now, at the if (the If node is made at its end). */
  tvm_relax_sinfo_obj* cs = tvm_relax_sinfo_of(c);
  bool ok = cs != NULL;
  tvm_relax_kind ck = tvm_relax_kind_of(cs);
  if (ck == TVM_RELAX_KIND_TensorStructInfo) {
    const tvm_relax_tensor_sinfo_obj* t = (const void*)cs;
    ok = (t->ndim == 0 || t->ndim == TVM_RELAX_UNKNOWN_NDIM) &&
         (tvm_relax_dtype_is_unknown(t->dtype) || is_bool(t->dtype));
  } else if (ck == TVM_RELAX_KIND_PrimStructInfo) {
    DLDataType t = ((const tvm_relax_prim_sinfo_obj*)cs)->dtype;
    ok = tvm_relax_dtype_is_unknown(t) || is_bool(t);
  } else {
    ok = ck == TVM_RELAX_KIND_ObjectStructInfo;
  }
  if (!ok) {
    tvm_ffi_strbuf s = {0};
    if (cs) sinfo_text(&s, cs);
    tvm_ffi_raise("TypeError", "the condition of a Relax if must be a bool scalar (a 0-d bool "
                  "tensor or an R.Prim(\"bool\")), got %s", cs ? tvm_ffi_strbuf_cstr(&s) : "?");
    tvm_ffi_strbuf_free(&s);
    tvm_ffi_release(c);
    return -1;
  }
  relax_frame* r = push(b, TVM_SCRIPT_FRAME_RELAX_IF);
  if (!r) {
    tvm_ffi_release(c);
    return -1;
  }
  r->cond = c;
  return 0;
}

static int branch_enter(tvm_script_builder* b, bool is_else) {
  const char* what = is_else ? "else" : "the then branch";
  tvm_script__frame* f = tvm_script__require_top(b, TVM_SCRIPT_FRAME_RELAX_IF, what, "Relax if");
  if (!f) return -1;
  relax_frame* r = f->relax;
  if (!is_else && r->then_seq) return tvm_ffi_raise("ValueError", "a Relax if has one then branch");
  if (is_else && !r->then_seq) {
    return tvm_ffi_raise("ValueError", "the else branch of a Relax if comes after its then branch");
  }
  if (is_else && r->else_seq) return tvm_ffi_raise("ValueError", "a Relax if has one else branch");
  if (tvm_relax_bb_scope_begin(bb_of(b)) != 0) return -1;
  return push(b, is_else ? TVM_SCRIPT_FRAME_RELAX_ELSE : TVM_SCRIPT_FRAME_RELAX_THEN) ? 0 : -1;
}

int tvm_script_relax_then_enter(tvm_script_builder* b) { return branch_enter(b, false); }
int tvm_script_relax_else_enter(tvm_script_builder* b) { return branch_enter(b, true); }

/* Whether the BlockBuilder leaves e as a SeqExpr's body (a leaf or a tuple of leaves). */
static bool is_result_leaf(const void* e) {
  switch (tvm_relax_kind_of(e)) {
    case TVM_RELAX_KIND_Var:
    case TVM_RELAX_KIND_DataflowVar:
    case TVM_RELAX_KIND_Constant:
    case TVM_RELAX_KIND_ShapeExpr:
    case TVM_RELAX_KIND_PrimValue:
    case TVM_RELAX_KIND_StringImm:
    case TVM_RELAX_KIND_DataTypeImm:
    case TVM_RELAX_KIND_ExternFunc:
    case TVM_RELAX_KIND_Tuple:
      return true;
    default:
      return tvm_tir_is(e, TVM_TIR_KIND_GlobalVar);
  }
}

/* The Var of the last binding of the current scope when the scope ends with a dataflow block
 * (nothing bound after it), else NULL. */
static tvm_relax_var_obj* dataflow_tail(tvm_script_builder* b) {
  if (open_count(b) != 0) return NULL;
  const tvm_relax_block_obj* blk = tvm_relax_bb_last_block(bb_of(b));
  if (!blk || tvm_relax_kind_of(blk) != TVM_RELAX_KIND_DataflowBlock) return NULL;
  int64_t n = blk->bindings ? tvm_ffi_seq_size(blk->bindings) : 0;
  const tvm_relax_binding_obj* last = n > 0 ? tvm_ffi_seq_obj_at(blk->bindings, n - 1) : NULL;
  return last ? last->var : NULL;
}

/* The if frame ir's then or else branch: its SeqExpr (taken), the Var it results in (retained
 * here) and whether its binding was written with an annotation. */
static void set_branch(relax_frame* ir, bool is_else, tvm_relax_expr_obj* seq,
                       tvm_relax_var_obj* var, bool ann) {
  tvm_ffi_retain(var);
  if (is_else) {
    ir->else_seq = seq;
    ir->else_var = var;
    ir->else_ann = ann;
  } else {
    ir->then_seq = seq;
    ir->then_var = var;
    ir->then_ann = ann;
  }
}

/* The binding of a branch's last value when it is no leaf: last's value (and match_cast struct
 * info) bound to a new Var of last's struct info named for the branch, `x_then` / `x_else`. */
static tvm_relax_binding_obj* branch_result_binding(const tvm_relax_binding_obj* last,
                                                    bool is_else) {
  tvm_ffi_strbuf name = {0};
  tvm_ffi_strbuf_printf(&name, "%s%s", tvm_relax_var_name(last->var), is_else ? "_else" : "_then");
  if (name.failed) {
    tvm_ffi_strbuf_free(&name);
    tvm_ffi_raise("MemoryError", "out of memory");
    return NULL;
  }
  tvm_relax_sinfo_obj* s = tvm_relax_expr_sinfo(last->var);
  tvm_relax_var_obj* v = s ? tvm_relax_var_new(name.data, s, false) : NULL;
  tvm_ffi_strbuf_free(&name);
  tvm_relax_binding_obj* b = NULL;
  if (v && tvm_relax_kind_of(last) == TVM_RELAX_KIND_MatchCast) {
    const tvm_relax_match_cast_obj* m = (const tvm_relax_match_cast_obj*)last;
    b = tvm_relax_match_cast_new(v, m->value, m->struct_info);
  } else if (v) {
    b = tvm_relax_var_binding_new(v, tvm_relax_binding_value(last));
  }
  tvm_ffi_release(v);
  tvm_ffi_release(s);
  return b;
}

static int finish_branch(tvm_script_builder* b, tvm_script__frame* f, bool is_else) {
  relax_frame* r = f->relax;
  tvm_script__frame* iff = top(b); /* (the if frame: branches are entered only on it) */
  tvm_relax_block_builder* bb = bb_of(b);
  tvm_relax_var_obj* df_var = r->pending ? NULL : dataflow_tail(b);
  if (df_var && tvm_relax_kind_of(df_var) != TVM_RELAX_KIND_Var) {
    tvm_ffi_retain(df_var); /* (ending the scope frees its blocks) */
    tvm_ffi_release(tvm_relax_bb_scope_end(bb, (tvm_relax_expr_obj*)df_var));
    tvm_ffi_error_clear();
    tvm_ffi_raise("ValueError", "the %s branch of a Relax if ends with a dataflow block whose "
                  "last binding `%s` is not one of its outputs (R.output): the branch results "
                  "in that binding", is_else ? "else" : "then", tvm_relax_var_name(df_var));
    tvm_ffi_release(df_var);
    return -1;
  }
  if (df_var) {
    /* A branch ending with a dataflow block: its last binding, an output, is the result. */
    tvm_relax_expr_obj* seq = tvm_relax_bb_scope_end(bb, (tvm_relax_expr_obj*)df_var);
    if (!seq) return -1;
    set_branch(iff->relax, is_else, seq, df_var, false);
    return 0;
  }
  if (!r->pending) {
    /* The scope is still open in the BlockBuilder: close it, then report. */
    tvm_relax_expr_obj* unit = tvm_relax_tuple_new(NULL);
    tvm_ffi_release(unit ? tvm_relax_bb_scope_end(bb, unit) : NULL);
    tvm_ffi_release(unit);
    tvm_ffi_error_clear();
    return tvm_ffi_raise("ValueError", "the %s branch of a Relax if must end by assigning the "
                         "variable the if binds (`x = ...` in both branches)",
                         is_else ? "else" : "then");
  }
  tvm_relax_binding_obj* last = r->pending;
  tvm_relax_expr_obj* value = tvm_relax_binding_value(last);
  tvm_relax_expr_obj* result = value;
  tvm_relax_binding_obj* bound = NULL;
  if (!is_result_leaf(value) || tvm_relax_kind_of(last) == TVM_RELAX_KIND_MatchCast) {
    /* Bound in the branch, as upstream's builder does, to `x_then` / `x_else` (the if binds
     * x): the branch results in that Var. */
    bound = branch_result_binding(last, is_else);
    if (!bound || tvm_relax_bb_emit_binding(bb, bound) != 0) {
      tvm_ffi_release(bound);
      tvm_ffi_release(tvm_relax_bb_scope_end(bb, value));
      return -1;
    }
    result = (tvm_relax_expr_obj*)bound->var;
  }
  tvm_relax_expr_obj* seq = tvm_relax_bb_scope_end(bb, result);
  tvm_ffi_release(bound);
  if (!seq) return -1;
  set_branch(iff->relax, is_else, seq, last->var, r->pending_ann);
  return 0;
}

static int finish_if(tvm_script_builder* b, tvm_script__frame* f) {
  relax_frame* r = f->relax;
  if (!r->then_seq || !r->else_seq) {
    return tvm_ffi_raise("ValueError", "a Relax if needs %s branch (both branches assign the "
                         "variable it binds)", r->then_seq ? "an else" : "a then and an else");
  }
  const char* tn = tvm_relax_var_name(r->then_var);
  const char* en = tvm_relax_var_name(r->else_var);
  if (strcmp(tn, en) != 0) {
    return tvm_ffi_raise("ValueError", "both branches of a Relax if must end by assigning the "
                         "same variable: `%s` in the then branch, `%s` in the else branch", tn, en);
  }
  tvm_relax_expr_obj* node = tvm_relax_if_new(r->cond, r->then_seq, r->else_seq);
  if (!node) return -1;
  /* Both branches annotating the variable alike: that annotation is the variable's. */
  tvm_relax_sinfo_obj* ann = NULL;
  if (r->then_ann && r->else_ann) {
    TVMFFIAny a = tvm_ffi_any_obj(tvm_relax_sinfo_of(r->then_var));
    TVMFFIAny c = tvm_ffi_any_obj(tvm_relax_sinfo_of(r->else_var));
    if (tvm_ffi_structural_equal(&a, &c, false, NULL, NULL) == 1) ann = (tvm_relax_sinfo_obj*)a.v_obj;
    tvm_ffi_error_clear();
  }
  TVMFFIAny v = tvm_ffi_any_obj(node);
  tvm_relax_var_obj* var = tvm_script_relax_emit(b, tn, &v, ann);
  tvm_ffi_release(node);
  if (!var) return -1;
  set_last(b, var);
  tvm_ffi_release(var);
  return 0;
}

tvm_relax_var_obj* tvm_script_relax_if_end(tvm_script_builder* b) {
  if (!tvm_script__require_top(b, TVM_SCRIPT_FRAME_RELAX_IF, "the end of a Relax if", "Relax if")) {
    return NULL;
  }
  REL(b->relax_last);
  if (tvm_script_builder_exit(b) != 0) return NULL;
  void* out = b->relax_last;
  b->relax_last = NULL;
  return out;
}

int tvm_script__finish_relax_frame(tvm_script_builder* b, tvm_script__frame* f) {
  switch (f->kind) {
    case TVM_SCRIPT_FRAME_RELAX_FUNC: return finish_function(b, f);
    case TVM_SCRIPT_FRAME_RELAX_DATAFLOW: return finish_dataflow(b, f);
    case TVM_SCRIPT_FRAME_RELAX_IF: return finish_if(b, f);
    case TVM_SCRIPT_FRAME_RELAX_THEN: return finish_branch(b, f, false);
    case TVM_SCRIPT_FRAME_RELAX_ELSE: return finish_branch(b, f, true);
    default: return tvm_ffi_raise("RuntimeError", "not a Relax frame");
  }
}

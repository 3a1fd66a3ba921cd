/*
 * wellformed.c: Relax's well-formedness checker (tvm_relax_verify_well_formed, analysis.h).
 *
 * One scoped walk over a function in evaluation order: parameters, then each block's bindings
 * (value before variable), then the body. What the walk knows of each Relax Var and TIR variable
 * is in one table keyed by object identity; scopes (a function, an If branch, a dataflow block)
 * are left by undoing a log of what they put in scope, so the walk is linear in the size of the
 * IR. The first violation stops it with a ValueError whose message starts with the access path of
 * the offending node ("<root>.body.blocks[0].bindings[2].value: ...", the root being the checked
 * Function, or for a module `<root>["name"]` the function of that name). The path is recorded
 * only when needed: a first walk goes without it, and only if it meets a violation (or fails
 * otherwise) does a second walk, from scratch, record it to report the same violation there.
 *
 * The rules are upstream Relax's (relax/analysis/well_formed.cc), with these choices:
 *  - a Relax Var is bound once in a whole module (upstream allows rebinding one in the other
 *    branch of an If, or in another function for a non-parameter);
 *  - nested functions see (capture) the Relax Vars of enclosing scopes, but not the TIR
 *    variables: a nested function's symbolic variables are those its parameters or match_casts
 *    define, as upstream's;
 *  - a FuncStructInfo binds the variables its parameters define, for itself only, and a tensor
 *    shape given by a Relax Var inside it names one of its own parameters (not checked);
 *  - GlobalVars need no struct info (a PrimFunc's GlobalVar may have none); one they have must
 *    be a FuncStructInfo;
 *  - each binding's variable annotation, and each Call's struct info against the one its
 *    operator or callee infers again, may not be provably wrong (base check FAIL); a symbolic
 *    mismatch the prover cannot decide passes, as the constructors let it;
 *  - a function's attrs use only the symbolic variables its parameters define, and a module's
 *    attrs none (upstream checks neither; an unbound one would not survive a print and parse).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/relax/analysis.h>
#include <tvm/tir/analysis.h>
#include <tvm/tir/visit.h>

#include "internal.h"

/* ---- Facts about variables ------------------------------------------------------------------- */
enum {
  V_BOUND = 1,   /* a Relax Var bound so far (in function `func`) */
  V_SCOPE = 2,   /* a Relax Var in scope */
  V_RECUR = 4,   /* a Relax Var visible in its own value (a local function's recursion) */
  T_DEFINED = 8, /* a TIR variable defined, at function nesting level `level` */
};
#define STICKY V_BOUND /* flags that leaving a scope keeps */

typedef struct {
  const void* key; /* NULL: a free slot */
  uint32_t flags;
  int32_t func;  /* the top-level function (index in check order) that binds / defines it, -1 */
  int32_t level; /* function nesting level of the binding / definition */
} fact;

/* A log record: key's flags and level before a scope changed them. */
typedef struct {
  const void* key;
  uint32_t flags;
  int32_t level;
} undo;

typedef struct {
  tvm_tir_visitor path; /* only its path stack: the access path of the node being checked, when
                         * `paths` (else left empty) */
  bool paths;           /* record the path: the run after a first one found a violation */
  int64_t depth;        /* steps on the path, recorded or not */
  tvm_tir_visitor tirv; /* walks PrimExprs for their TIR variables */
  fact* slots;
  size_t mask, used;
  undo* log;
  size_t log_len, log_cap;
  const tvm_tir_ir_module_obj* mod; /* NULL when checking a Function alone */
  const char** func_names;          /* per top-level function, for messages */
  int32_t func;                     /* the top-level function being checked */
  int32_t level;                    /* nesting level of the innermost function */
  bool dataflow;                    /* inside a DataflowBlock of the innermost function */
  bool must_be_pure;                /* the innermost function is pure and not forced pure */
  int32_t in_func_sinfo;            /* FuncStructInfos being checked, around the current node */
  const tvm_relax_wf_options* opts; /* NULL: none */
} wf;

#define MAX_DEPTH TVM_FFI_STRUCTURAL_MAX_DEPTH

/* ---- Errors ---------------------------------------------------------------------------------- */
/* ValueError "<path>: message" at the current path. Returns -1. Without paths, a placeholder
 * ValueError: the entry clears it and runs the check again with paths, to the same violation. */
static int fail(wf* w, const char* fmt, ...) TVM_FFI_PRINTF(2, 3) TVM_FFI_COLD;
static int fail(wf* w, const char* fmt, ...) {
  if (!w->paths) return tvm_ffi_raise("ValueError", "well-formedness violation (unlocated)");
  tvm_ffi_strbuf msg = {0};
  tvm_tir_visitor_path_format(&w->path, &msg);
  tvm_ffi_strbuf_puts(&msg, ": ");
  va_list ap;
  va_start(ap, fmt);
  tvm_ffi_strbuf_vprintf(&msg, fmt, ap);
  va_end(ap);
  tvm_ffi_raise("ValueError", "%s", tvm_ffi_strbuf_cstr(&msg));
  tvm_ffi_strbuf_free(&msg);
  return -1;
}

/* The pending error re-raised as a ValueError at the current path, after `what`. */
static int fail_with_pending(wf* w, const char* what) {
  void* err = tvm_ffi_error_take();
  int rc = fail(w, "%s: %s: %s", what, err ? tvm_ffi_error_kind(err) : "error",
                err ? tvm_ffi_error_message(err) : "");
  tvm_ffi_release(err);
  return rc;
}

static const char* func_name(const wf* w, int32_t f) {
  return w->func_names && f >= 0 ? w->func_names[f] : "(the function)";
}

/* A name field's text ("?" when missing: deserialized IR may lack it). */
static const char* str_or(const void* s) {
  return s && tvm_ffi_type_index(s) == kTVMFFIStr ? tvm_ffi_str_cstr(s) : "?";
}
static const char* var_name(const void* v) {
  return str_or(((const tvm_relax_var_obj*)v)->name_hint);
}
static const char* gv_name(const void* gv) {
  return str_or(((const tvm_tir_global_var_obj*)gv)->name_hint);
}
static const char* tir_var_name(const void* v) {
  return str_or(((const tvm_tir_var_obj*)v)->name_hint);
}

/* Text of an expression for messages, appended to b (the caller frees it): names read here
 * with str_or, the rest by tvm_relax__text. */
static const char* text_of(tvm_ffi_strbuf* b, const void* obj) {
  if (tvm_relax_is_var(obj)) {
    tvm_ffi_strbuf_puts(b, var_name(obj));
  } else if (tvm_tir_is(obj, TVM_TIR_KIND_GlobalVar)) {
    tvm_ffi_strbuf_printf(b, "@%s", gv_name(obj));
  } else if (tvm_relax_kind_of(obj) == TVM_RELAX_KIND_Call) {
    const tvm_relax_call_obj* c = obj;
    const tvm_relax_op_info* info = tvm_relax_op_info_of(c->op);
    if (info) {
      tvm_ffi_strbuf_printf(b, "R.%s(...)", info->name + strlen("relax."));
    } else {
      if (c->op) text_of(b, c->op);
      tvm_ffi_strbuf_puts(b, "(...)");
    }
  } else {
    tvm_relax__text(b, obj);
  }
  return tvm_ffi_strbuf_cstr(b);
}

/* ---- Path steps ------------------------------------------------------------------------------ */
/* IR too deep to walk: the error gives the first steps of the path only. */
static int fail_too_deep(wf* w) {
  enum { SHOWN = 8 };
  if (!w->paths) return fail(w, "IR too deep");
  int64_t depth = w->path.depth;
  tvm_ffi_strbuf msg = {0};
  w->path.depth = depth < SHOWN ? depth : SHOWN;
  tvm_tir_visitor_path_format(&w->path, &msg);
  w->path.depth = depth;
  tvm_ffi_strbuf_printf(&msg, "...: IR nested deeper than %d levels", MAX_DEPTH);
  tvm_ffi_raise("ValueError", "%s", tvm_ffi_strbuf_cstr(&msg));
  tvm_ffi_strbuf_free(&msg);
  return -1;
}
/* A step recorded (with paths), or the depth limit reached: push_* in full. */
static int push_slow(wf* w, const char* attr, int64_t item) {
  if (w->depth >= MAX_DEPTH) return fail_too_deep(w);
  if (w->paths && (attr ? tvm_tir_visitor_push_attr(&w->path, attr)
                        : tvm_tir_visitor_push_item(&w->path, item)) != 0) {
    return -1;
  }
  w->depth++;
  return 0;
}
static inline int push_attr(wf* w, const char* name) {
  if (w->paths || w->depth >= MAX_DEPTH) return push_slow(w, name, 0);
  w->depth++;
  return 0;
}
static inline int push_item(wf* w, int64_t i) {
  if (w->paths || w->depth >= MAX_DEPTH) return push_slow(w, NULL, i);
  w->depth++;
  return 0;
}
static int push_key(wf* w, const TVMFFIAny* key) {
  if (w->paths && tvm_tir_visitor_push_key(&w->path, key) != 0) return -1;
  w->depth++;
  return 0;
}
static inline void pop(wf* w) {
  w->depth--;
  if (w->paths) tvm_tir_visitor_pop(&w->path);
}

/* ---- The fact table -------------------------------------------------------------------------- */
static size_t slot_of(const wf* w, const void* key) {
  uint64_t h = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 20) & w->mask;
}

static fact* find(const wf* w, const void* key) {
  for (size_t i = slot_of(w, key);; i = (i + 1) & w->mask) {
    if (w->slots[i].key == key) return &w->slots[i];
    if (!w->slots[i].key) return NULL;
  }
}

static int grow(wf* w) {
  size_t cap = (w->mask + 1) * 2;
  fact* old = w->slots;
  size_t old_cap = w->mask + 1;
  fact* slots = tvm_ffi_calloc(cap, sizeof(fact));
  if (!slots) return tvm_ffi_raise("MemoryError", "well-formedness check: out of memory");
  w->slots = slots;
  w->mask = cap - 1;
  for (size_t i = 0; i < old_cap; ++i) {
    if (!old[i].key) continue;
    size_t j = slot_of(w, old[i].key);
    while (slots[j].key) j = (j + 1) & w->mask;
    slots[j] = old[i];
  }
  tvm_ffi_free(old);
  return 0;
}

/* The facts of key, a fresh entry when it has none; NULL + MemoryError. Valid until the next
 * insertion. */
static fact* obtain(wf* w, const void* key) {
  fact* f = find(w, key);
  if (f) return f;
  if ((w->used + 1) * 4 > (w->mask + 1) * 3 && grow(w) != 0) return NULL;
  size_t i = slot_of(w, key);
  while (w->slots[i].key) i = (i + 1) & w->mask;
  w->used++;
  w->slots[i] = (fact){key, 0, -1, 0};
  return &w->slots[i];
}

/* Record f's scope state before a change, for leave(). */
static int log_push(wf* w, const fact* f) {
  if (w->log_len == w->log_cap) {
    size_t cap = w->log_cap ? w->log_cap * 2 : 256;
    undo* log = tvm_ffi_realloc(w->log, cap * sizeof(undo));
    if (!log) return tvm_ffi_raise("MemoryError", "well-formedness check: out of memory");
    w->log = log;
    w->log_cap = cap;
  }
  w->log[w->log_len++] = (undo){f->key, f->flags, f->level};
  return 0;
}

/* Leave the scopes opened since the log had `mark` records. */
static void leave(wf* w, size_t mark) {
  while (w->log_len > mark) {
    const undo* u = &w->log[--w->log_len];
    fact* f = find(w, u->key);
    f->flags = (f->flags & STICKY) | (u->flags & ~(uint32_t)STICKY);
    f->level = u->level;
  }
}

/* ---- TIR variables --------------------------------------------------------------------------- */
/* Define TIR variable v: by a parameter or match_cast of the current function, or (local) by a
 * FuncStructInfo's parameters. A variable already defined here keeps its definition (its first
 * occurrence defines it; later ones are uses that a runtime check matches). */
static int def_tir(wf* w, const void* v, bool local) {
  fact* f = obtain(w, v);
  if (!f) return -1;
  if ((f->flags & T_DEFINED) && f->level == w->level) return 0;
  if (!local && f->func >= 0 && f->func != w->func) {
    return fail(w, "symbolic variable %s is used in both function %s and function %s",
                tir_var_name(v), func_name(w, f->func), func_name(w, w->func));
  }
  if (log_push(w, f) != 0) return -1;
  f->flags |= T_DEFINED;
  f->level = w->level;
  if (!local) f->func = w->func;
  return 0;
}

static int use_tir_var(wf* w, const void* v) {
  const fact* f = find(w, v);
  if (f && (f->flags & T_DEFINED) && f->level == w->level) return 0;
  if (f && f->func >= 0 && f->func != w->func) {
    return fail(w, "symbolic variable %s of function %s is used in function %s", tir_var_name(v),
                func_name(w, f->func), func_name(w, w->func));
  }
  return fail(w,
              "symbolic variable %s is used before a parameter's struct info or a match_cast "
              "defines it",
              tir_var_name(v));
}

static int on_tir_var(tvm_tir_visitor* v, const void* node) {
  return use_tir_var(v->ctx, node) == 0 ? TVM_TIR_VISIT_SKIP : -1;
}

/* (a CommReducer's or an IndexMap's variables are its own) */
static int skip_tir(tvm_tir_visitor* v, const void* node) {
  (void)v;
  (void)node;
  return TVM_TIR_VISIT_SKIP;
}

/* Whether every TIR variable of e is defined here, through the forms dims are made of
 * (constants, variables, arithmetic, comparisons, logic, not, select, cast, calls): the common
 * answer without the visitor. false for any other form or a variable not defined, which the
 * visitor then checks, with the error's path (use_tir). */
static bool tir_vars_defined(const wf* w, const void* e, int depth) {
  if (!e || depth > 64) return false;
  switch (tvm_tir_kind_of(e)) {
    case TVM_TIR_KIND_IntImm:
    case TVM_TIR_KIND_FloatImm:
      return true;
    case TVM_TIR_KIND_Var:
    case TVM_TIR_KIND_SizeVar: {
      const fact* f = find(w, e);
      return f && (f->flags & T_DEFINED) && f->level == w->level;
    }
#define TVM_TIR_NODE(Name, type_key, Parent, c_struct, seq_kind, fields)
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) case TVM_TIR_KIND_##Name:
#include <tvm/tir/nodes.def>
      return tir_vars_defined(w, ((const tvm_tir_binary_obj*)e)->a, depth + 1) &&
             tir_vars_defined(w, ((const tvm_tir_binary_obj*)e)->b, depth + 1);
    case TVM_TIR_KIND_Not:
      return tir_vars_defined(w, ((const tvm_tir_not_obj*)e)->a, depth + 1);
    case TVM_TIR_KIND_Cast:
      return tir_vars_defined(w, ((const tvm_tir_cast_obj*)e)->value, depth + 1);
    case TVM_TIR_KIND_Select: {
      const tvm_tir_select_obj* x = e;
      return tir_vars_defined(w, x->condition, depth + 1) &&
             tir_vars_defined(w, x->true_value, depth + 1) &&
             tir_vars_defined(w, x->false_value, depth + 1);
    }
    case TVM_TIR_KIND_Call: {
      const tvm_tir_call_obj* x = e;
      if (!tvm_tir_is(x->op, TVM_TIR_KIND_Op) || !x->args ||
          tvm_ffi_type_index(x->args) != kTVMFFIArray) {
        return false;
      }
      for (int64_t i = 0, n = tvm_ffi_seq_size(x->args); i < n; ++i) {
        const TVMFFIAny* a = tvm_ffi_seq_at(x->args, i);
        if (!tvm_ffi_any_is_object(a) || !tir_vars_defined(w, a->v_obj, depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/* Every TIR variable of PrimExpr e (at the current path) must be defined. */
static int use_tir(wf* w, const void* e) {
  if (!e) return 0;
  tvm_tir_kind k = tvm_tir_kind_of(e);
  if (k == TVM_TIR_KIND_IntImm || k == TVM_TIR_KIND_FloatImm) return 0;
  if (tvm_tir_is_var(e)) return use_tir_var(w, e);
  if (!tvm_tir_is_expr(e))
    return fail(w, "expected a PrimExpr, got %s", tvm_ffi_type_key(tvm_ffi_type_index(e)));
  if (tir_vars_defined(w, e, 0)) return 0;
  return tvm_tir_visit(&w->tirv, e);
}

/* An optional array field's object elements (NULL: none); a non-array or a non-object element
 * is an error at the current path. */
static int check_array(wf* w, const void* arr, const char* field) {
  if (!arr) return 0;
  if (tvm_ffi_type_index(arr) != kTVMFFIArray)
    return fail(w, "field %s must be an ffi.Array", field);
  for (int64_t i = 0; i < tvm_ffi_seq_size(arr); ++i) {
    if (!tvm_ffi_any_is_object(tvm_ffi_seq_at(arr, i))) {
      return fail(w, "%s[%lld] must be an object", field, (long long)i);
    }
  }
  return 0;
}
static inline int64_t arr_size(const void* arr) { return arr ? tvm_ffi_seq_size(arr) : 0; }

/* Whether every dim of values is an integer constant or a variable defined here: such dims pass
 * use_dims, which need not build their access paths then. */
static bool plain_dims(const wf* w, const void* values) {
  if (!values || tvm_ffi_type_index(values) != kTVMFFIArray) return !values;
  for (int64_t i = 0; i < tvm_ffi_seq_size(values); ++i) {
    const TVMFFIAny* a = tvm_ffi_seq_at(values, i);
    if (!tvm_ffi_any_is_object(a)) return false;
    const void* d = a->v_obj;
    tvm_tir_kind k = tvm_tir_kind_of(d);
    if (k == TVM_TIR_KIND_IntImm) {
      uint8_t code = tvm_tir_expr_dtype(d).code;
      if (code != kDLInt && code != kDLUInt) return false;
    } else if (k == TVM_TIR_KIND_Var || k == TVM_TIR_KIND_SizeVar) {
      uint8_t code = tvm_tir_expr_dtype(d).code;
      const fact* f = find(w, d);
      if ((code != kDLInt && code != kDLUInt) || !f || !(f->flags & T_DEFINED) ||
          f->level != w->level) {
        return false;
      }
    } else {
      return false;
    }
  }
  return true;
}

/* The dims of a ShapeStructInfo or ShapeExpr (values): each a PrimExpr whose variables are
 * defined; integer ones for a ShapeExpr (shape_expr). */
static int use_dims(wf* w, const void* values, bool shape_expr) {
  if (plain_dims(w, values)) return 0;
  if (push_attr(w, "values") != 0) return -1;
  int rc = check_array(w, values, "values");
  for (int64_t i = 0; rc == 0 && i < arr_size(values); ++i) {
    const void* d = tvm_ffi_seq_obj_at(values, i);
    if ((rc = push_item(w, i)) != 0) break;
    if (!tvm_tir_is_expr(d)) {
      rc = fail(w, "a shape's dims must be PrimExprs");
    } else if (shape_expr && tvm_tir_expr_dtype(d).code != kDLInt &&
               tvm_tir_expr_dtype(d).code != kDLUInt) {
      rc = fail(w, "a ShapeExpr's values must be integers");
    } else {
      rc = use_tir(w, d);
    }
    pop(w);
  }
  pop(w);
  return rc;
}

/* ---- Struct info ----------------------------------------------------------------------------- */
/* Define the TIR variables that a parameter (or match_cast) of struct info s defines: its dims
 * and prim values that are bare variables. (local: a FuncStructInfo's parameters.) */
static int def_sinfo(wf* w, const tvm_relax_sinfo_obj* s, bool local) {
  void* dims = NULL;
  switch (tvm_relax_kind_of(s)) {
    case TVM_RELAX_KIND_PrimStructInfo: {
      const void* v = ((const tvm_relax_prim_sinfo_obj*)s)->value;
      return v && tvm_tir_is_var(v) ? def_tir(w, v, local) : 0;
    }
    case TVM_RELAX_KIND_ShapeStructInfo:
      dims = ((const tvm_relax_shape_sinfo_obj*)s)->values;
      break;
    case TVM_RELAX_KIND_TensorStructInfo: {
      const void* shape = ((const tvm_relax_tensor_sinfo_obj*)s)->shape;
      if (tvm_relax_kind_of(shape) == TVM_RELAX_KIND_ShapeExpr) {
        dims = ((const tvm_relax_shape_expr_obj*)shape)->values;
      }
      break;
    }
    case TVM_RELAX_KIND_DTensorStructInfo:
      return def_sinfo(w, ((const tvm_relax_dtensor_sinfo_obj*)s)->tensor_sinfo, local);
    case TVM_RELAX_KIND_TupleStructInfo: {
      void* fields = ((const tvm_relax_tuple_sinfo_obj*)s)->fields;
      if (!fields || tvm_ffi_type_index(fields) != kTVMFFIArray) return 0; /* use_sinfo reports */
      for (int64_t i = 0; i < tvm_ffi_seq_size(fields); ++i) {
        const TVMFFIAny* a = tvm_ffi_seq_at(fields, i);
        if (tvm_ffi_any_is_object(a) && def_sinfo(w, (const void*)a->v_obj, local) != 0) return -1;
      }
      return 0;
    }
    default: /* a FuncStructInfo binds its own variables; an object has none */
      return 0;
  }
  if (!dims || tvm_ffi_type_index(dims) != kTVMFFIArray) return 0;
  for (int64_t i = 0; i < tvm_ffi_seq_size(dims); ++i) {
    const TVMFFIAny* a = tvm_ffi_seq_at(dims, i);
    if (tvm_ffi_any_is_object(a) && tvm_tir_is_var(a->v_obj) && def_tir(w, a->v_obj, local) != 0) {
      return -1;
    }
  }
  return 0;
}

static int use_var(wf* w, const tvm_relax_var_obj* v);
static int use_sinfo(wf* w, const tvm_relax_sinfo_obj* s);

/* Whether mesh is one of the module's meshes (its attribute global_infos["mesh"]). */
static bool module_has_mesh(const tvm_tir_ir_module_obj* mod, const void* mesh) {
  const TVMFFIAny* infos = mod->attrs ? tvm_ffi_map_get_str(mod->attrs, "global_infos") : NULL;
  if (!infos || infos->type_index != kTVMFFIMap) return false;
  const TVMFFIAny* meshes = tvm_ffi_map_get_str(infos->v_obj, "mesh");
  if (!meshes || meshes->type_index != kTVMFFIArray) return false;
  /* The same object first (the parser's meshes are the module's), then an equal one. */
  int64_t n = tvm_ffi_seq_size(meshes->v_obj);
  for (int64_t i = 0; i < n; ++i) {
    const TVMFFIAny* m = tvm_ffi_seq_at(meshes->v_obj, i);
    if (tvm_ffi_any_is_object(m) && m->v_obj == mesh) return true;
  }
  for (int64_t i = 0; i < n; ++i) {
    const TVMFFIAny* m = tvm_ffi_seq_at(meshes->v_obj, i);
    if (tvm_ffi_any_is_object(m) && tvm_relax__obj_equal(m->v_obj, mesh)) return true;
  }
  return false;
}

/* A DTensor's tensor, its placement against its mesh and rank, and (in a module) its mesh among
 * the module's meshes. */
static int use_dtensor(wf* w, const tvm_relax_dtensor_sinfo_obj* s) {
  if (tvm_relax_kind_of(s->tensor_sinfo) != TVM_RELAX_KIND_TensorStructInfo) {
    return fail(w, "a DTensor's tensor_sinfo must be a TensorStructInfo");
  }
  if (push_attr(w, "tensor_sinfo") != 0) return -1;
  int rc = use_sinfo(w, s->tensor_sinfo);
  pop(w);
  if (rc != 0) return rc;
  if (tvm_relax_kind_of(s->device_mesh) != TVM_RELAX_KIND_DeviceMesh) {
    return fail(w, "a DTensor's device_mesh must be a DeviceMesh");
  }
  if (push_attr(w, "placement") != 0) return -1;
  int32_t ndim = ((const tvm_relax_tensor_sinfo_obj*)s->tensor_sinfo)->ndim;
  if (tvm_relax_placement_check(s->placement, s->device_mesh, ndim, "R.DTensor") != 0) {
    rc = fail_with_pending(w, "the placement does not fit");
  }
  pop(w);
  if (rc == 0 && w->mod && !module_has_mesh(w->mod, s->device_mesh)) {
    if (push_attr(w, "device_mesh") != 0) return -1;
    rc = fail(w,
              "the device mesh is not one of the module's (I.module_global_infos "
              "{\"mesh\": [...]})");
    pop(w);
  }
  return rc;
}

/* Struct info s (at the current path) uses only defined TIR variables and Relax Vars in scope. */
static int use_sinfo(wf* w, const tvm_relax_sinfo_obj* s) {
  if (!tvm_relax_is_sinfo(s)) {
    return fail(w, "expected a struct info, got %s",
                s ? tvm_ffi_type_key(tvm_ffi_type_index(s)) : "nothing");
  }
  int rc = 0;
  switch (tvm_relax_kind_of(s)) {
    case TVM_RELAX_KIND_PrimStructInfo:
      if ((rc = push_attr(w, "value")) == 0) {
        rc = use_tir(w, ((const tvm_relax_prim_sinfo_obj*)s)->value);
        pop(w);
      }
      return rc;
    case TVM_RELAX_KIND_ShapeStructInfo:
      return use_dims(w, ((const tvm_relax_shape_sinfo_obj*)s)->values, false);
    case TVM_RELAX_KIND_TensorStructInfo: {
      const void* shape = ((const tvm_relax_tensor_sinfo_obj*)s)->shape;
      if (!shape) return 0;
      if (push_attr(w, "shape") != 0) return -1;
      if (tvm_relax_kind_of(shape) == TVM_RELAX_KIND_ShapeExpr) {
        rc = use_dims(w, ((const tvm_relax_shape_expr_obj*)shape)->values, true);
      } else if (tvm_relax_is_var(shape)) {
        /* In a FuncStructInfo the shape names the signature's own parameter. */
        rc = w->in_func_sinfo > 0 ? 0 : use_var(w, shape);
      } else {
        rc = fail(w, "a tensor's shape must be a ShapeExpr or a Var");
      }
      pop(w);
      return rc;
    }
    case TVM_RELAX_KIND_DTensorStructInfo:
      return use_dtensor(w, (const tvm_relax_dtensor_sinfo_obj*)s);
    case TVM_RELAX_KIND_TupleStructInfo: {
      void* fields = ((const tvm_relax_tuple_sinfo_obj*)s)->fields;
      if (push_attr(w, "fields") != 0) return -1;
      rc = check_array(w, fields, "fields");
      for (int64_t i = 0; rc == 0 && i < arr_size(fields); ++i) {
        if ((rc = push_item(w, i)) != 0) break;
        rc = use_sinfo(w, tvm_ffi_seq_obj_at(fields, i));
        pop(w);
      }
      pop(w);
      return rc;
    }
    case TVM_RELAX_KIND_FuncStructInfo: {
      const tvm_relax_func_sinfo_obj* fs = (const void*)s;
      size_t mark = w->log_len;
      w->in_func_sinfo++;
      if (push_attr(w, "params") != 0) return -1;
      rc = check_array(w, fs->params, "params");
      for (int64_t i = 0; rc == 0 && i < arr_size(fs->params); ++i) {
        const void* p = tvm_ffi_seq_obj_at(fs->params, i);
        if (tvm_relax_is_sinfo(p)) rc = def_sinfo(w, p, true);
      }
      for (int64_t i = 0; rc == 0 && i < arr_size(fs->params); ++i) {
        if ((rc = push_item(w, i)) != 0) break;
        rc = use_sinfo(w, tvm_ffi_seq_obj_at(fs->params, i));
        pop(w);
      }
      pop(w);
      if (rc == 0 && fs->ret && (rc = push_attr(w, "ret")) == 0) {
        rc = use_sinfo(w, fs->ret);
        pop(w);
      }
      leave(w, mark);
      w->in_func_sinfo--;
      return rc;
    }
    default:
      return 0;
  }
}

/* Whether struct info s passes use_sinfo by the plain_dims rule alone (an object, a tensor of
 * unknown shape or of plain dims, a shape of plain dims, a tuple of such): then use_sinfo need
 * not build its access paths. */
static bool plain_sinfo(const wf* w, const tvm_relax_sinfo_obj* s, int depth) {
  switch (tvm_relax_kind_of(s)) {
    case TVM_RELAX_KIND_ObjectStructInfo:
      return true;
    case TVM_RELAX_KIND_TensorStructInfo: {
      const void* shape = ((const tvm_relax_tensor_sinfo_obj*)s)->shape;
      return !shape || (tvm_relax_kind_of(shape) == TVM_RELAX_KIND_ShapeExpr &&
                        plain_dims(w, ((const tvm_relax_shape_expr_obj*)shape)->values));
    }
    case TVM_RELAX_KIND_ShapeStructInfo:
      return plain_dims(w, ((const tvm_relax_shape_sinfo_obj*)s)->values);
    case TVM_RELAX_KIND_TupleStructInfo: {
      void* fields = ((const tvm_relax_tuple_sinfo_obj*)s)->fields;
      if (depth >= 8 || !fields || tvm_ffi_type_index(fields) != kTVMFFIArray) return false;
      for (int64_t i = 0; i < tvm_ffi_seq_size(fields); ++i) {
        const TVMFFIAny* a = tvm_ffi_seq_at(fields, i);
        if (!tvm_ffi_any_is_object(a) || !plain_sinfo(w, (const void*)a->v_obj, depth + 1)) {
          return false;
        }
      }
      return true;
    }
    default: /* (a prim value, a FuncStructInfo: the full walk) */
      return false;
  }
}

/* use_sinfo of s at the current path + field. */
static int use_sinfo_at(wf* w, const tvm_relax_sinfo_obj* s, const char* field) {
  if (plain_sinfo(w, s, 0)) return 0;
  if (push_attr(w, field) != 0) return -1;
  int rc = use_sinfo(w, s);
  pop(w);
  return rc;
}

/* The struct info of expression e (at the current path): present and well-scoped. */
static int check_expr_sinfo(wf* w, const void* e) {
  const tvm_relax_sinfo_obj* s = tvm_relax_sinfo_of(e);
  if (!s) {
    tvm_ffi_strbuf b = {0};
    int rc = fail(w, "%s has no struct info", text_of(&b, e));
    tvm_ffi_strbuf_free(&b);
    return rc;
  }
  return use_sinfo_at(w, s, "struct_info_");
}

/* Whether struct info s (present) is a bool scalar, as an If's condition must be. */
static bool is_bool_scalar(const tvm_relax_sinfo_obj* s) {
  DLDataType t;
  switch (tvm_relax_kind_of(s)) {
    case TVM_RELAX_KIND_ObjectStructInfo:
      return true;
    case TVM_RELAX_KIND_TensorStructInfo: {
      const tvm_relax_tensor_sinfo_obj* ts = (const void*)s;
      if (ts->ndim != 0 && ts->ndim != TVM_RELAX_UNKNOWN_NDIM) return false;
      t = ts->dtype;
      break;
    }
    case TVM_RELAX_KIND_PrimStructInfo:
      t = ((const tvm_relax_prim_sinfo_obj*)s)->dtype;
      break;
    default:
      return false;
  }
  return tvm_relax_dtype_is_unknown(t) || t.code == kDLBool || (t.code == kDLUInt && t.bits == 1);
}

/* ---- Relax variables ------------------------------------------------------------------------- */
static int use_var(wf* w, const tvm_relax_var_obj* v) {
  const fact* f = find(w, v);
  const char* name = var_name(v);
  if (tvm_relax_kind_of(v) == TVM_RELAX_KIND_DataflowVar) {
    if (w->dataflow && f && (f->flags & V_SCOPE) && f->level == w->level) return 0;
    if (!w->dataflow || (f && (f->flags & V_BOUND))) {
      return fail(w, "DataflowVar %s used outside its dataflow block", name);
    }
    return fail(w, "DataflowVar %s is used before its definition", name);
  }
  if (f && (f->flags & (V_SCOPE | V_RECUR))) {
    /* A Var captured by a nested function: its struct info must make sense there (the TIR
     * variables of the enclosing function are not in scope). */
    if (f->level < w->level && (f->flags & V_SCOPE))
      return use_sinfo_at(w, tvm_relax_sinfo_of(v), "struct_info_");
    return 0;
  }
  if (f && (f->flags & V_BOUND) && f->func != w->func) {
    return fail(w, "Var %s of function %s is used in function %s", name, func_name(w, f->func),
                func_name(w, w->func));
  }
  if (f && (f->flags & V_BOUND)) return fail(w, "Var %s is used outside its scope", name);
  return fail(w, "Var %s is used before its definition", name);
}

/* Bind v (at the current path): a parameter, or a binding's variable. */
/* sinfo_checked: the Var's struct info is the object just checked as its binding's value's, at
 * this very point (nothing defined since): not walked again. */
static int def_var(wf* w, const void* obj, bool param, bool sinfo_checked) {
  if (!tvm_relax_is_var(obj)) {
    return fail(w, "expected a Relax Var, got %s",
                obj ? tvm_ffi_type_key(tvm_ffi_type_index(obj)) : "nothing");
  }
  const tvm_relax_var_obj* v = obj;
  const char* name = var_name(v);
  if (tvm_relax_kind_of(v) == TVM_RELAX_KIND_DataflowVar) {
    if (param) return fail(w, "DataflowVar %s cannot be a function parameter", name);
    if (!w->dataflow) return fail(w, "DataflowVar %s is bound outside a dataflow block", name);
  }
  if (!sinfo_checked && check_expr_sinfo(w, v) != 0) return -1;
  fact* f = obtain(w, v);
  if (!f) return -1;
  if (f->flags & V_BOUND) {
    if (f->func == w->func) return fail(w, "Var %s is bound more than once", name);
    return fail(w, "Var %s is bound in both function %s and function %s", name,
                func_name(w, f->func), func_name(w, w->func));
  }
  if (log_push(w, f) != 0) return -1;
  f->flags |= V_BOUND | V_SCOPE;
  f->func = w->func;
  f->level = w->level;
  return 0;
}

/* ---- Expressions ----------------------------------------------------------------------------- */
static int visit_expr(wf* w, const void* e, bool leaf);
static int visit_seq(wf* w, const void* e);
static int visit_function(wf* w, const tvm_relax_function_obj* fn);

/* visit_expr of e at the current path + field (+ [index] when index >= 0). */
static int visit_at(wf* w, const void* e, const char* field, int64_t index, bool leaf) {
  if (push_attr(w, field) != 0) return -1;
  int rc = index >= 0 ? push_item(w, index) : 0;
  if (rc == 0) {
    rc = visit_expr(w, e, leaf);
    if (index >= 0) pop(w);
  }
  pop(w);
  return rc;
}

/* A GlobalVar use: with a module, one of its functions. */
static int visit_global_var(wf* w, const tvm_tir_global_var_obj* gv) {
  const char* name = gv_name(gv);
  if (w->mod) {
    const void* names = w->mod->global_var_map_;
    const TVMFFIAny* known =
        names && tvm_ffi_type_index(names) == kTVMFFIMap ? tvm_ffi_map_get_str(names, name) : NULL;
    if (!known || !tvm_ffi_any_is_object(known) || known->v_obj != (const void*)gv) {
      return fail(w, "GlobalVar @%s is not a function of this module", name);
    }
  }
  const tvm_relax_sinfo_obj* s = tvm_relax_sinfo_of(gv);
  if (!s) return 0;
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_FuncStructInfo) {
    return fail(w, "GlobalVar @%s must have a FuncStructInfo", name);
  }
  return use_sinfo_at(w, s, "struct_info_");
}

/* The purity of calling callee (not an Op): a PrimFunc of the module called through its
 * GlobalVar is pure when its body is (tvm_tir_prim_func_is_pure, as upstream's struct info of a
 * PrimFunc; whatever the GlobalVar was declared with before the body existed); else the
 * callee's FuncStructInfo's; with no struct info, the module's Relax function of that name
 * decides; other callees are impure (effects unknown). */
static bool callee_is_pure(const wf* w, const void* callee) {
  if (tvm_tir_is(callee, TVM_TIR_KIND_GlobalVar) && w->mod) {
    void* f = tvm_tir_ir_module_lookup(w->mod, gv_name(callee));
    bool prim = tvm_tir_is(f, TVM_TIR_KIND_PrimFunc);
    bool pure = prim ? tvm_tir_prim_func_is_pure(f)
                     : tvm_relax_kind_of(f) == TVM_RELAX_KIND_Function &&
                           ((tvm_relax_function_obj*)f)->is_pure;
    bool known = prim || !tvm_relax_sinfo_of(callee);
    tvm_ffi_release(f);
    if (known) return pure || !f; /* (a name the module lacks: the module's check reports it) */
  }
  const tvm_relax_sinfo_obj* s = tvm_relax_sinfo_of(callee);
  if (!s && tvm_tir_is(callee, TVM_TIR_KIND_GlobalVar)) {
    return true; /* nothing known without a module: the module's check decides */
  }
  return tvm_relax_kind_of(s) == TVM_RELAX_KIND_FuncStructInfo &&
         ((const tvm_relax_func_sinfo_obj*)s)->purity;
}

/* The Call's struct info inferred again: what it carries may not be provably wrong. */
static int check_call_inference(wf* w, const tvm_relax_call_obj* c) {
  if (w->opts && w->opts->call_inferred && w->opts->call_inferred(w->opts->ctx, c)) return 0;
  tvm_relax_expr_obj* again = tvm_relax_call_new(c->op, c->args, c->attrs, c->sinfo_args, NULL);
  if (!again) return fail_with_pending(w, "the call's struct info cannot be inferred");
  int rc = 0;
  const tvm_relax_sinfo_obj* have = tvm_relax_sinfo_of(c);
  const tvm_relax_sinfo_obj* want = tvm_relax_sinfo_of(again);
  if (have != want && tvm_relax_sinfo_base_check(have, want) == TVM_RELAX_BASE_CHECK_FAIL) {
    tvm_ffi_strbuf a = {0}, b = {0};
    tvm_relax_sinfo_text(&a, have);
    tvm_relax_sinfo_text(&b, want);
    rc = fail(w, "the call's struct info %s contradicts the inferred %s", tvm_ffi_strbuf_cstr(&a),
              tvm_ffi_strbuf_cstr(&b));
    tvm_ffi_strbuf_free(&a);
    tvm_ffi_strbuf_free(&b);
  }
  tvm_ffi_release(again);
  return rc;
}

static int visit_call(wf* w, const tvm_relax_call_obj* c) {
  if (!tvm_relax__is_leaf(c->op, true) || tvm_relax_kind_of(c->op) == TVM_RELAX_KIND_Tuple) {
    if (push_attr(w, "op") != 0) return -1;
    tvm_ffi_strbuf b = {0};
    int rc = fail(w, "the callee must be an operator, a GlobalVar, a Var or an ExternFunc, got %s",
                  c->op ? text_of(&b, c->op) : "nothing");
    tvm_ffi_strbuf_free(&b);
    pop(w);
    return rc;
  }
  if (visit_at(w, c->op, "op", -1, true) != 0) return -1;
  if (push_attr(w, "args") != 0) return -1;
  int rc = check_array(w, c->args, "args");
  pop(w);
  for (int64_t i = 0; rc == 0 && i < arr_size(c->args); ++i) {
    rc = visit_at(w, tvm_ffi_seq_obj_at(c->args, i), "args", i, true);
  }
  if (rc != 0) return rc;
  if (push_attr(w, "sinfo_args") != 0) return -1;
  rc = check_array(w, c->sinfo_args, "sinfo_args");
  for (int64_t i = 0; rc == 0 && i < arr_size(c->sinfo_args); ++i) {
    if ((rc = push_item(w, i)) != 0) break;
    rc = use_sinfo(w, tvm_ffi_seq_obj_at(c->sinfo_args, i));
    pop(w);
  }
  pop(w);
  if (rc != 0 || check_expr_sinfo(w, c) != 0) return -1;
  if (c->attrs && tvm_ffi_type_index(c->attrs) != kTVMFFIMap)
    return fail(w, "a call's attrs must be an ffi.Map");

  const tvm_relax_op_info* info = tvm_relax_op_info_of(c->op);
  if ((w->dataflow || w->must_be_pure) &&
      !(info ? info->pure : tvm_tir_is(c->op, TVM_TIR_KIND_Op) || callee_is_pure(w, c->op))) {
    tvm_ffi_strbuf b = {0};
    text_of(&b, c->op);
    rc = w->dataflow ? fail(w, "impure call to %s inside a dataflow block", tvm_ffi_strbuf_cstr(&b))
                     : fail(w,
                            "impure call to %s in a pure function (make the function impure, or "
                            "set its attribute relax.force_pure)",
                            tvm_ffi_strbuf_cstr(&b));
    tvm_ffi_strbuf_free(&b);
    return rc;
  }
  if (check_call_inference(w, c) != 0) return -1;
  if (!w->mod) return 0;
  tvm_ffi_strbuf why = {0};
  rc = tvm_relax__call_tir_mismatch(w->mod, c, &why);
  if (rc != 0) {
    rc = rc > 0 ? fail(w, "%s: %s", tvm_relax_op_info_of(c->op)->name, tvm_ffi_strbuf_cstr(&why))
                : fail_with_pending(w, "the call cannot be checked against its PrimFunc");
  }
  tvm_ffi_strbuf_free(&why);
  return rc;
}

static int visit_if(wf* w, const tvm_relax_if_obj* e) {
  if (w->dataflow) return fail(w, "an If may not appear in a dataflow block");
  if (visit_at(w, e->cond, "cond", -1, true) != 0) return -1;
  const tvm_relax_sinfo_obj* cs = tvm_relax_sinfo_of(e->cond);
  if (cs && !is_bool_scalar(cs)) {
    if (push_attr(w, "cond") != 0) return -1;
    tvm_ffi_strbuf b = {0};
    tvm_relax_sinfo_text(&b, cs);
    int rc =
        fail(w, "the condition of an If must be a bool scalar, got %s", tvm_ffi_strbuf_cstr(&b));
    tvm_ffi_strbuf_free(&b);
    pop(w);
    return rc;
  }
  /* Each branch is a scope of its own. */
  static const char* const names[2] = {"true_branch", "false_branch"};
  const void* branches[2] = {e->true_branch, e->false_branch};
  for (int i = 0; i < 2; ++i) {
    size_t mark = w->log_len;
    if (push_attr(w, names[i]) != 0) return -1;
    int rc = visit_seq(w, branches[i]);
    pop(w);
    leave(w, mark);
    if (rc != 0) return rc;
  }
  return check_expr_sinfo(w, e);
}

/* e at the current path; leaf: e is nested in another expression (A-normal form: a leaf or a
 * tuple), else the value of a binding. */
static int visit_expr(wf* w, const void* e, bool leaf) {
  if (!e) return fail(w, "missing expression");
  if (!tvm_relax_is_expr(e))
    return fail(w, "expected a Relax expression, got %s", tvm_ffi_type_key(tvm_ffi_type_index(e)));
  if (leaf && !tvm_relax__is_leaf(e, true)) {
    tvm_ffi_strbuf b = {0};
    int rc = fail(w, "not in A-normal form: %s must be bound to a variable first", text_of(&b, e));
    tvm_ffi_strbuf_free(&b);
    return rc;
  }
  tvm_relax_kind k = tvm_relax_kind_of(e);
  int rc = 0;
  switch (k) {
    case TVM_RELAX_KIND_Var:
    case TVM_RELAX_KIND_DataflowVar:
      return use_var(w, e);
    case TVM_RELAX_KIND_Constant:
    case TVM_RELAX_KIND_StringImm:
    case TVM_RELAX_KIND_DataTypeImm:
    case TVM_RELAX_KIND_ExternFunc:
      return check_expr_sinfo(w, e);
    case TVM_RELAX_KIND_PrimValue: {
      const tvm_relax_prim_value_obj* p = e;
      if (!tvm_tir_is_expr(p->value)) return fail(w, "a PrimValue's value must be a PrimExpr");
      if (push_attr(w, "value") != 0) return -1;
      rc = use_tir(w, p->value);
      pop(w);
      return rc != 0 ? rc : check_expr_sinfo(w, e);
    }
    case TVM_RELAX_KIND_ShapeExpr:
      if (use_dims(w, ((const tvm_relax_shape_expr_obj*)e)->values, true) != 0) return -1;
      return check_expr_sinfo(w, e);
    case TVM_RELAX_KIND_Tuple: {
      void* fields = ((const tvm_relax_tuple_obj*)e)->fields;
      if (push_attr(w, "fields") != 0) return -1;
      rc = check_array(w, fields, "fields");
      pop(w);
      for (int64_t i = 0; rc == 0 && i < arr_size(fields); ++i) {
        rc = visit_at(w, tvm_ffi_seq_obj_at(fields, i), "fields", i, true);
      }
      return rc != 0 ? rc : check_expr_sinfo(w, e);
    }
    case TVM_RELAX_KIND_TupleGetItem:
      if (visit_at(w, ((const tvm_relax_tuple_get_item_obj*)e)->tuple_value, "tuple_value", -1,
                   true) != 0) {
        return -1;
      }
      return check_expr_sinfo(w, e);
    case TVM_RELAX_KIND_Call:
      return visit_call(w, e);
    case TVM_RELAX_KIND_If:
      return visit_if(w, e);
    case TVM_RELAX_KIND_SeqExpr:
      return fail(w, "a SeqExpr may only be a function's body or a branch of an If");
    case TVM_RELAX_KIND_Function:
      return visit_function(w, e);
    case TVM_RELAX_KIND_NONE:
      break;
    /* Not expressions (tvm_relax_is_expr excludes them). */
    case TVM_RELAX_KIND_StructInfo:
    case TVM_RELAX_KIND_ObjectStructInfo:
    case TVM_RELAX_KIND_PrimStructInfo:
    case TVM_RELAX_KIND_ShapeStructInfo:
    case TVM_RELAX_KIND_TensorStructInfo:
    case TVM_RELAX_KIND_TupleStructInfo:
    case TVM_RELAX_KIND_FuncStructInfo:
    case TVM_RELAX_KIND_DTensorStructInfo:
    case TVM_RELAX_KIND_DeviceMesh:
    case TVM_RELAX_KIND_Binding:
    case TVM_RELAX_KIND_VarBinding:
    case TVM_RELAX_KIND_MatchCast:
    case TVM_RELAX_KIND_BindingBlock:
    case TVM_RELAX_KIND_DataflowBlock:
    case TVM_RELAX_KIND_COUNT:
      return fail(w, "expected a Relax expression, got %s", tvm_relax_kind_name(k));
  }
  /* libtir's kinds of Relax expressions. */
  if (tvm_tir_is(e, TVM_TIR_KIND_GlobalVar)) return visit_global_var(w, e);
  if (tvm_tir_is(e, TVM_TIR_KIND_Op)) return 0;
  if (tvm_tir_is(e, TVM_TIR_KIND_PrimFunc)) {
    return fail(w,
                "a PrimFunc may not appear inline in Relax: add it to the module and refer to it "
                "by its GlobalVar");
  }
  return fail(w, "unexpected expression %s", tvm_ffi_type_key(tvm_ffi_type_index(e)));
}

/* ---- Bindings, blocks, sequences ------------------------------------------------------------- */
/* Whether the variable's annotation and the value's struct info can agree. */
static int check_annotation(wf* w, const tvm_relax_var_obj* var, const tvm_relax_sinfo_obj* value,
                            const char* what) {
  const tvm_relax_sinfo_obj* ann = tvm_relax_sinfo_of(var);
  if (!value) return fail(w, "the bound value has no struct info");
  if (ann == value || tvm_relax_sinfo_base_check(ann, value) != TVM_RELAX_BASE_CHECK_FAIL) return 0;
  tvm_ffi_strbuf a = {0}, b = {0};
  tvm_relax_sinfo_text(&a, value);
  tvm_relax_sinfo_text(&b, ann);
  int rc = fail(w, "%s %s is not an instance of the annotation %s of %s", what,
                tvm_ffi_strbuf_cstr(&a), tvm_ffi_strbuf_cstr(&b), var_name(var));
  tvm_ffi_strbuf_free(&a);
  tvm_ffi_strbuf_free(&b);
  return rc;
}

static int def_var_at(wf* w, const void* var, bool sinfo_checked) {
  if (push_attr(w, "var") != 0) return -1;
  int rc = def_var(w, var, false, sinfo_checked);
  pop(w);
  return rc;
}

static int visit_binding(wf* w, const void* b) {
  tvm_relax_kind k = tvm_relax_kind_of(b);
  if (k != TVM_RELAX_KIND_VarBinding && k != TVM_RELAX_KIND_MatchCast) {
    return fail(w, "expected a VarBinding or a MatchCast, got %s",
                b ? tvm_ffi_type_key(tvm_ffi_type_index(b)) : "nothing");
  }
  const tvm_relax_binding_obj* bind = b;
  const void* value = tvm_relax_binding_value(bind);
  if (k == TVM_RELAX_KIND_VarBinding) {
    /* A local function may call itself through the variable it is bound to. */
    fact* f = NULL;
    bool recur = tvm_relax_kind_of(value) == TVM_RELAX_KIND_Function && tvm_relax_is_var(bind->var);
    if (recur) {
      if (!(f = obtain(w, bind->var))) return -1;
      f->flags |= V_RECUR;
    }
    int rc = visit_at(w, value, "value", -1, false);
    if (recur) find(w, bind->var)->flags &= ~(uint32_t)V_RECUR;
    /* The value's struct info was checked last, here, unless the value is a variable (checked
     * where it was defined: maybe another function) or a function (checked inside itself). An
     * unannotated binding's Var shares that struct info object: not walked twice. */
    tvm_relax_kind vk = tvm_relax_kind_of(value);
    bool value_checked = vk != TVM_RELAX_KIND_Var && vk != TVM_RELAX_KIND_DataflowVar &&
                         vk != TVM_RELAX_KIND_Function && vk != TVM_RELAX_KIND_NONE &&
                         tvm_relax_is_expr(value); /* (NONE: a GlobalVar, an Op) */
    const tvm_relax_sinfo_obj* vs = value_checked ? tvm_relax_sinfo_of(value) : NULL;
    bool same = vs && tvm_relax_is_var(bind->var) && tvm_relax_sinfo_of(bind->var) == vs;
    if (rc != 0 || def_var_at(w, bind->var, same) != 0) return -1;
    return check_annotation(w, bind->var, tvm_relax_sinfo_of(value), "the value's struct info");
  }
  const tvm_relax_match_cast_obj* mc = b;
  if (visit_at(w, value, "value", -1, false) != 0) return -1;
  if (push_attr(w, "struct_info") != 0) return -1;
  int rc = tvm_relax_is_sinfo(mc->struct_info) ? def_sinfo(w, mc->struct_info, false) : 0;
  if (rc == 0) rc = use_sinfo(w, mc->struct_info);
  if (rc == 0 && !tvm_relax_sinfo_of(value)) rc = fail(w, "the cast value has no struct info");
  if (rc == 0 && tvm_relax_sinfo_base_check(mc->struct_info, tvm_relax_sinfo_of(value)) ==
                     TVM_RELAX_BASE_CHECK_FAIL) {
    tvm_ffi_strbuf a = {0}, c = {0};
    tvm_relax_sinfo_text(&a, tvm_relax_sinfo_of(value));
    tvm_relax_sinfo_text(&c, mc->struct_info);
    rc = fail(w, "the value's struct info %s can never match %s", tvm_ffi_strbuf_cstr(&a),
              tvm_ffi_strbuf_cstr(&c));
    tvm_ffi_strbuf_free(&a);
    tvm_ffi_strbuf_free(&c);
  }
  pop(w);
  if (rc != 0 || def_var_at(w, bind->var, false) != 0) return -1;
  return check_annotation(w, bind->var, mc->struct_info, "the match_cast's struct info");
}

static int visit_block(wf* w, const void* blk) {
  if (!tvm_relax_is(blk, TVM_RELAX_KIND_BindingBlock)) {
    return fail(w, "expected a binding block, got %s",
                blk ? tvm_ffi_type_key(tvm_ffi_type_index(blk)) : "nothing");
  }
  const tvm_relax_block_obj* block = blk;
  bool df = tvm_relax_kind_of(blk) == TVM_RELAX_KIND_DataflowBlock;
  bool outer = w->dataflow;
  size_t mark = w->log_len;
  w->dataflow = df;
  if (push_attr(w, "bindings") != 0) return -1;
  int rc = check_array(w, block->bindings, "bindings");
  for (int64_t i = 0; rc == 0 && i < arr_size(block->bindings); ++i) {
    if ((rc = push_item(w, i)) != 0) break;
    rc = visit_binding(w, tvm_ffi_seq_obj_at(block->bindings, i));
    pop(w);
  }
  pop(w);
  w->dataflow = outer;
  /* The block's DataflowVars go out of scope; its other bindings stay. */
  for (size_t i = mark; df && i < w->log_len; ++i) {
    if (tvm_relax_kind_of(w->log[i].key) == TVM_RELAX_KIND_DataflowVar) {
      find(w, w->log[i].key)->flags &= ~(uint32_t)V_SCOPE;
    }
  }
  return rc;
}

/* A function's body or an If's branch (at the current path): a SeqExpr. */
static int visit_seq(wf* w, const void* e) {
  if (tvm_relax_kind_of(e) != TVM_RELAX_KIND_SeqExpr) {
    tvm_ffi_strbuf b = {0};
    int rc = fail(w, "must be a SeqExpr, got %s", e ? text_of(&b, e) : "nothing");
    tvm_ffi_strbuf_free(&b);
    return rc;
  }
  const tvm_relax_seq_expr_obj* s = e;
  if (push_attr(w, "blocks") != 0) return -1;
  int rc = check_array(w, s->blocks, "blocks");
  for (int64_t i = 0; rc == 0 && i < arr_size(s->blocks); ++i) {
    if ((rc = push_item(w, i)) != 0) break;
    rc = visit_block(w, tvm_ffi_seq_obj_at(s->blocks, i));
    pop(w);
  }
  pop(w);
  if (rc != 0 || visit_at(w, s->body, "body", -1, true) != 0) return -1;
  return check_expr_sinfo(w, s);
}

/* ---- Functions ------------------------------------------------------------------------------- */
static bool attr_true(const void* attrs, const char* key) {
  if (!attrs || tvm_ffi_type_index(attrs) != kTVMFFIMap) return false;
  const TVMFFIAny* v = tvm_ffi_map_get_str(attrs, key);
  return v && (v->type_index == kTVMFFIBool || v->type_index == kTVMFFIInt) && v->v_int64 != 0;
}

/* Whether fn's FuncStructInfo is made of its parameters' struct info objects and its
 * ret_struct_info, as the constructor makes it: then its check is implied by theirs inside the
 * function (with only the signature's definitions in scope there, and Relax Vars as shapes
 * checked). */
static bool sinfo_from_signature(const tvm_relax_function_obj* fn) {
  const tvm_relax_func_sinfo_obj* fs = (const void*)tvm_relax_sinfo_of(fn);
  if (fs->ret != fn->ret_struct_info || !fs->params || !fn->params ||
      tvm_ffi_type_index(fs->params) != kTVMFFIArray ||
      tvm_ffi_type_index(fn->params) != kTVMFFIArray ||
      tvm_ffi_seq_size(fs->params) != tvm_ffi_seq_size(fn->params)) {
    return false;
  }
  for (int64_t i = 0; i < tvm_ffi_seq_size(fn->params); ++i) {
    const TVMFFIAny* a = tvm_ffi_seq_at(fn->params, i);
    const TVMFFIAny* b = tvm_ffi_seq_at(fs->params, i);
    if (!tvm_ffi_any_is_object(a) || !tvm_ffi_any_is_object(b) || !tvm_relax_is_var(a->v_obj) ||
        tvm_relax_sinfo_of(a->v_obj) != (const void*)b->v_obj) {
      return false;
    }
  }
  return true;
}

/* A function's attrs may use the symbolic variables its parameters define (upstream's
 * "relax.rewrite_cuda_graph.capture_symbolic_vars"), no others. */
static int use_attrs(wf* w, const void* attrs) {
  if (!attrs || tvm_ffi_type_index(attrs) != kTVMFFIMap || tvm_ffi_map_size(attrs) == 0) return 0;
  int rc = push_attr(w, "attrs");
  if (rc != 0) return rc;
  const TVMFFIAny *key, *val;
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(attrs, pos, &key, &val)) >= 0;) {
    if (!tvm_ffi_any_is_object(val)) continue;
    if ((rc = push_key(w, key)) != 0) break;
    rc = tvm_tir_visit(&w->tirv, val->v_obj) < 0 ? -1 : 0;
    pop(w);
  }
  pop(w);
  return rc;
}

/* fn at the current path: a module's function (level 0) or a local one nested in another. */
static int visit_function(wf* w, const tvm_relax_function_obj* fn) {
  bool force_pure = attr_true(fn->func.attrs, "relax.force_pure");
  if (force_pure && !fn->is_pure) {
    return fail(w,
                "the function has relax.force_pure but is_pure false (force_pure requires a "
                "pure function)");
  }
  if (!tvm_relax_sinfo_of(fn)) return fail(w, "the function has no struct info");
  if (tvm_relax_kind_of(tvm_relax_sinfo_of(fn)) != TVM_RELAX_KIND_FuncStructInfo) {
    return fail(w, "a function's struct info must be a FuncStructInfo");
  }
  bool outer_dataflow = w->dataflow, outer_pure = w->must_be_pure;
  size_t mark = w->log_len;
  w->level++;
  w->dataflow = false;
  w->must_be_pure = fn->is_pure && !force_pure;
  int rc = push_attr(w, "params");
  if (rc == 0) {
    rc = check_array(w, fn->params, "params");
    /* The parameters' struct infos define the symbolic variables first (one may use another's),
     * then each parameter is bound in order. */
    for (int64_t i = 0; rc == 0 && i < arr_size(fn->params); ++i) {
      const void* p = tvm_ffi_seq_obj_at(fn->params, i);
      if (!tvm_relax_is_var(p) || !tvm_relax_sinfo_of(p)) continue; /* def_var reports */
      if ((rc = push_item(w, i)) != 0) break;
      rc = def_sinfo(w, tvm_relax_sinfo_of(p), false);
      pop(w);
    }
    for (int64_t i = 0; rc == 0 && i < arr_size(fn->params); ++i) {
      if ((rc = push_item(w, i)) != 0) break;
      rc = def_var(w, tvm_ffi_seq_obj_at(fn->params, i), true, false);
      pop(w);
    }
    pop(w);
  }
  if (rc == 0) rc = use_attrs(w, fn->func.attrs);
  if (rc == 0 && !fn->ret_struct_info) rc = fail(w, "the function has no ret_struct_info");
  if (rc == 0) rc = use_sinfo_at(w, fn->ret_struct_info, "ret_struct_info");
  if (rc == 0 && (rc = push_attr(w, "body")) == 0) {
    rc = visit_seq(w, fn->body);
    if (rc == 0 && tvm_relax_sinfo_base_check(fn->ret_struct_info, tvm_relax_sinfo_of(fn->body)) ==
                       TVM_RELAX_BASE_CHECK_FAIL) {
      tvm_ffi_strbuf a = {0}, b = {0};
      tvm_relax_sinfo_text(&a, tvm_relax_sinfo_of(fn->body));
      tvm_relax_sinfo_text(&b, fn->ret_struct_info);
      rc = fail(w, "the body's struct info %s is not an instance of the return annotation %s",
                tvm_ffi_strbuf_cstr(&a), tvm_ffi_strbuf_cstr(&b));
      tvm_ffi_strbuf_free(&a);
      tvm_ffi_strbuf_free(&b);
    }
    pop(w);
  }
  leave(w, mark);
  w->level--;
  w->dataflow = outer_dataflow;
  w->must_be_pure = outer_pure;
  /* Its own FuncStructInfo, in the enclosing scope (last: errors inside the function are
   * reported where they are, not through the signature). */
  if (rc != 0 || sinfo_from_signature(fn)) return rc;
  return use_sinfo_at(w, tvm_relax_sinfo_of(fn), "struct_info_");
}

/* ---- Entry ----------------------------------------------------------------------------------- */
typedef struct {
  const char* name;
  const tvm_tir_global_var_obj* gv;
  const void* func;
} mod_entry;

static int by_name(const void* a, const void* b) {
  return strcmp(((const mod_entry*)a)->name, ((const mod_entry*)b)->name);
}

/* A module's functions in name order: Relax functions by this checker, PrimFuncs by libtir's. */
static int verify_module(wf* w, const tvm_tir_ir_module_obj* mod) {
  if (tvm_tir_verify_closed(mod->attrs) != 0) {
    return tvm_ffi_raise_context("in the module's attrs");
  }
  int64_t n = tvm_ffi_map_size(mod->functions);
  mod_entry* entries = tvm_ffi_calloc((size_t)(n > 0 ? n : 1), sizeof(mod_entry));
  const char** names = tvm_ffi_calloc((size_t)(n > 0 ? n : 1), sizeof(char*));
  if (!entries || !names) {
    tvm_ffi_free(entries);
    tvm_ffi_free(names);
    return tvm_ffi_raise("MemoryError", "well-formedness check: out of memory");
  }
  int64_t count = 0;
  const TVMFFIAny *key, *val;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(mod->functions, pos, &key, &val)) >= 0;) {
    if (!tvm_ffi_any_is_object(key) || !tvm_tir_is(key->v_obj, TVM_TIR_KIND_GlobalVar)) continue;
    const tvm_tir_global_var_obj* gv = (const void*)key->v_obj;
    entries[count++] = (mod_entry){gv_name(gv), gv, tvm_ffi_any_is_object(val) ? val->v_obj : NULL};
  }
  qsort(entries, (size_t)count, sizeof(mod_entry), by_name);
  for (int64_t i = 0; i < count; ++i) names[i] = entries[i].name;
  w->mod = mod;
  w->func_names = names;
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < count; ++i) {
    const mod_entry* e = &entries[i];
    TVMFFIAny name = {0}; /* (only a recorded path needs it) */
    if (w->paths) name = tvm_ffi_string(e->name);
    int64_t depth = w->depth;
    rc = push_key(w, &name);
    if (rc == 0 && tvm_relax_kind_of(e->func) == TVM_RELAX_KIND_Function) {
      const char* symbol = tvm_tir_func_global_symbol(e->func);
      if (symbol && strcmp(symbol, e->name) != 0) {
        rc = fail(w, "the function's global_symbol \"%s\" differs from its name", symbol);
      } else {
        w->func = (int32_t)i;
        w->level = -1; /* visit_function enters level 0 */
        size_t mark = w->log_len;
        rc = visit_function(w, e->func);
        leave(w, mark);
      }
    } else if (rc == 0 && tvm_tir_is(e->func, TVM_TIR_KIND_PrimFunc) &&
               !(w->opts && w->opts->prim_func_checked &&
                 w->opts->prim_func_checked(w->opts->ctx, e->func))) {
      if (tvm_tir_verify_well_formed(e->func) != 0) {
        tvm_ffi_strbuf path = {0};
        tvm_tir_visitor_path_format(&w->path, &path);
        rc = tvm_ffi_raise_context("%s", tvm_ffi_strbuf_cstr(&path));
        tvm_ffi_strbuf_free(&path);
      }
    }
    if (w->depth > depth) pop(w);
    tvm_ffi_any_release(&name);
  }
  w->func_names = NULL;
  tvm_ffi_free(entries);
  tvm_ffi_free(names);
  return rc;
}

/* One run of the check over a Function or an IRModule (is_mod), recording paths or not. */
static int check(const void* func_or_module, bool is_mod, const tvm_relax_wf_options* opts,
                 bool paths) {
  wf w;
  memset(&w, 0, sizeof(w));
  w.paths = paths;
  w.tirv.pre[TVM_TIR_KIND_Var] = on_tir_var;
  w.tirv.pre[TVM_TIR_KIND_SizeVar] = on_tir_var;
  w.tirv.pre[TVM_TIR_KIND_CommReducer] = w.tirv.pre[TVM_TIR_KIND_IndexMap] = skip_tir;
  w.tirv.ctx = &w;
  w.opts = opts;
  w.mask = 63; /* (grown as facts come: a small function's fit) */
  w.slots = tvm_ffi_calloc(w.mask + 1, sizeof(fact));
  if (!w.slots) return tvm_ffi_raise("MemoryError", "well-formedness check: out of memory");
  int rc;
  if (is_mod) {
    rc = verify_module(&w, func_or_module);
  } else {
    w.level = -1;
    rc = visit_function(&w, func_or_module);
  }
  tvm_tir_visitor_free(&w.path);
  tvm_tir_visitor_free(&w.tirv);
  tvm_ffi_free(w.slots);
  tvm_ffi_free(w.log);
  return rc == 0 ? 0 : -1;
}

int tvm_relax_verify_well_formed(const void* func_or_module) {
  return tvm_relax_verify_well_formed_ex(func_or_module, NULL);
}

int tvm_relax_verify_well_formed_ex(const void* func_or_module, const tvm_relax_wf_options* opts) {
  tvm_relax__ensure_init();
  bool is_mod = tvm_tir_is(func_or_module, TVM_TIR_KIND_IRModule);
  if (!is_mod && tvm_relax_kind_of(func_or_module) != TVM_RELAX_KIND_Function) {
    return tvm_ffi_raise(
        "TypeError",
        "tvm_relax_verify_well_formed: expected a Relax Function or "
        "an IRModule, got %s",
        func_or_module ? tvm_ffi_type_key(tvm_ffi_type_index(func_or_module)) : "NULL");
  }
  /* Access paths serve only to locate a violation: a first run goes without them, and only
   * when it finds one (or fails otherwise) does a second run, from scratch, walk again with
   * them to the same violation, so that no state needs rolling back. */
  if (check(func_or_module, is_mod, opts, false) == 0) return 0;
  tvm_ffi_error_clear();
  return check(func_or_module, is_mod, opts, true);
}

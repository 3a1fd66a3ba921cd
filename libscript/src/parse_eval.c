/*
 * parse_eval.c: the TVMScript evaluator: values, names, operators, calls and the dispatch over
 * expression kinds (the variable table is in parse_vartable.c, subscripts in parse_subscript.c).
 *
 * Values are owned TVMFFIAny (parse_internal.h "Values"); Python numbers compute with Python's
 * semantics (int // and % floor, / true division), PrimExprs through libtir's operator helpers
 * (tvm/tir/op.h) with Python's operator mapping. A name resolves through the variable table
 * (which holds the file's module-level constants in its outermost scope), then the file's
 * import aliases, then the caller's extra_vars, then Python builtins (`range`, `True`), then
 * (for a file without imports, such as a printed fragment) the default aliases T / I / R.
 */
#include "ir_builder_internal.h"
#include "parse_eval.h"
#include "parse_lambda.h"
#include "parse_tir_builtins_attr.h"
#include "script_relax_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <tvm/script/printer.h>

/* ---- Special values ----------------------------------------------------------------------- */
static const script_special kModTir = {SCRIPT_SPECIAL_MODULE, "tirx"};
static const script_special kModIr = {SCRIPT_SPECIAL_MODULE, "ir"};
static const script_special kModRelax = {SCRIPT_SPECIAL_MODULE, "relax"};
/* `import tvm`: the package, whose script modules dotted names reach (tvm_script__dotted). */
static const script_special kModTvm = {SCRIPT_SPECIAL_MODULE, "tvm"};
/* tvm.cpu, tvm.cuda, tvm.device, ...: the runtime's device constructors (call_tvm_device),
 * reached only as the whole dotted name. */
static const script_special kTvmDevice = {SCRIPT_SPECIAL_MODULE, "tvm"};
static const script_special kCls = {SCRIPT_SPECIAL_CLS, "cls"};
static const script_special kRange = {SCRIPT_SPECIAL_RANGE, "range"};
static const script_special kFloat = {SCRIPT_SPECIAL_FLOAT, "float"};

const script_special* tvm_script__special_of(const TVMFFIAny* v) {
  if (v->type_index != kTVMFFIOpaquePtr) return NULL;
  const void* q = v->v_ptr;
  if (q == &kModTir || q == &kModIr || q == &kModRelax || q == &kModTvm || q == &kCls ||
      q == &kRange || q == &kFloat) {
    return q;
  }
  return NULL;
}

static TVMFFIAny special_value(const script_special* s) { return tvm_ffi_any_ptr((void*)s); }

TVMFFIAny tvm_script__cls_value(void) { return special_value(&kCls); }

/* ---- Errors -------------------------------------------------------------------------------- */
static const tvm_script_span kNoSpan = {0, 0, 0, 0, -1, -1};

int tvm_script__error_at(script_parser* p, const tvm_script_span* span, const char* kind,
                         const char* fmt, ...) {
  tvm_ffi_strbuf msg = {0};
  va_list ap;
  va_start(ap, fmt);
  tvm_ffi_strbuf_vprintf(&msg, fmt, ap);
  va_end(ap);
  tvm_script_diag_raise(kind, p->src, p->len, p->filename, span ? *span : kNoSpan, "%s",
                        tvm_ffi_strbuf_cstr(&msg));
  tvm_ffi_strbuf_free(&msg);
  return -1;
}

int tvm_script__relocate(script_parser* p, const tvm_script_span* span) {
  void* err = tvm_ffi_error_take();
  if (!err) {
    return tvm_script__error_at(p, span, "RuntimeError", "internal error: failure without an error");
  }
  tvm_script_diag_raise(tvm_ffi_error_kind(err), p->src, p->len, p->filename,
                        span ? *span : kNoSpan, "%s", tvm_ffi_error_message(err));
  tvm_ffi_release(err);
  return -1;
}

/* ---- The variable table ------------------------------------------------------------------ */
void tvm_script__vt_init(script_var_table* vt) {
  vt->binds = vt->binds_inline;
  vt->nbinds = 0;
  vt->cap_binds = SCRIPT_VT_INLINE;
  vt->scopes = vt->scopes_inline;
  vt->scopes[0] = 0;
  vt->nscopes = 1;
  vt->cap_scopes = SCRIPT_VT_SCOPES;
}

void tvm_script__vt_free(script_var_table* vt) {
  for (int32_t i = 0; i < vt->nbinds; ++i) tvm_ffi_any_release(&vt->binds[i].value);
  if (vt->binds != vt->binds_inline) tvm_ffi_free(vt->binds);
  if (vt->scopes != vt->scopes_inline) tvm_ffi_free(vt->scopes);
}

/* Twice the room of *items (n used of *cap elements of elem_size bytes); the first storage is
 * the table's own (inline_items), copied out, never reallocated. 0 or -1. */
static int grow_array(void** items, int32_t* cap, int32_t n, size_t elem_size,
                      const void* inline_items) {
  size_t bytes = (size_t)*cap * 2 * elem_size;
  void* grown = *items == inline_items ? tvm_ffi_malloc(bytes) : tvm_ffi_realloc(*items, bytes);
  if (!grown) return -1;
  if (*items == inline_items) memcpy(grown, *items, (size_t)n * elem_size);
  *items = grown;
  *cap *= 2;
  return 0;
}

int tvm_script__vt_push_scope(script_var_table* vt) {
  if (vt->nscopes == vt->cap_scopes &&
      grow_array((void**)&vt->scopes, &vt->cap_scopes, vt->nscopes, sizeof(int32_t),
                 vt->scopes_inline) != 0) {
    return -1;
  }
  vt->scopes[vt->nscopes++] = vt->nbinds;
  return 0;
}

void tvm_script__vt_pop_scope(script_var_table* vt) {
  if (vt->nscopes == 0) return;
  int32_t mark = vt->scopes[--vt->nscopes];
  while (vt->nbinds > mark) {
    script_binding* bd = &vt->binds[--vt->nbinds];
    bd->name->binding = bd->prev;
    tvm_ffi_any_release(&bd->value);
  }
}

int tvm_script__vt_bind(script_var_table* vt, script_name* name, TVMFFIAny* value) {
  if (vt->nbinds == vt->cap_binds &&
      grow_array((void**)&vt->binds, &vt->cap_binds, vt->nbinds, sizeof(script_binding),
                 vt->binds_inline) != 0) {
    return -1;
  }
  script_binding* bd = &vt->binds[vt->nbinds];
  bd->value = *value;
  bd->name = name;
  bd->prev = name->binding;
  name->binding = vt->nbinds++;
  *value = tvm_ffi_any_none();
  return 0;
}

bool tvm_script__vt_holds(const script_var_table* vt, const void* obj) {
  for (int32_t i = vt->nbinds - 1; i >= 0; --i) {
    const script_binding* bd = &vt->binds[i];
    if (tvm_ffi_any_is_object(&bd->value) && bd->value.v_obj == obj && bd->name->binding == i) {
      return true;
    }
  }
  return false;
}

tvm_tir_expr_obj* tvm_script__tir_negate(tvm_tir_expr_obj* x) {
  DLDataType t = x->dtype;
  if (!(t.code == kDLInt || tvm_tir_dtype_is_floating(t)) || tvm_tir_dtype_is_bool(t)) {
    return tvm_tir_neg(x);
  }
  tvm_tir_expr_obj* minus_one = tvm_tir_const_int(t, -1);
  tvm_tir_expr_obj* r = minus_one ? tvm_tir_mul(x, minus_one) : NULL;
  tvm_ffi_release(minus_one);
  return r;
}

/* ---- Names --------------------------------------------------------------------------------- */
static bool name_is(const script_name* n, const char* lit) {
  return strlen(lit) == n->size && memcmp(n->text, lit, n->size) == 0;
}

static const script_special* module_marker(const char* module, size_t n) {
  /* (s_tir: upstream's module of the schedulable TIR's builders, a subset of tirx's) */
  if ((n == 4 && memcmp(module, "tirx", 4) == 0) || (n == 3 && memcmp(module, "tir", 3) == 0) ||
      (n == 5 && memcmp(module, "s_tir", 5) == 0)) {
    return &kModTir;
  }
  if (n == 2 && memcmp(module, "ir", 2) == 0) return &kModIr;
  if (n == 5 && memcmp(module, "relax", 5) == 0) return &kModRelax;
  if (n == 3 && memcmp(module, "tvm", 3) == 0) return &kModTvm;
  return NULL;
}

int tvm_script__bind_imports(script_parser* p) {
  ast_module* m = p->module;
  p->has_imports = m->num_imports != 0;
  for (size_t i = 0; i < m->num_imports; ++i) {
    const tvm_script__import* e = &m->imports[i];
    const script_special* sp = module_marker(p->src + e->mod, e->mod_n);
    script_name* alias = tvm_script__intern(&m->names, p->src + e->alias, e->alias_n, e->alias_n);
    TVMFFIAny v = special_value(sp);
    /* (the front end takes only TVMScript modules: sp is one) */
    if (!alias || !sp || tvm_script__vt_bind(&p->vt, alias, &v) != 0) return -1;
  }
  return 0;
}

/* A name without a binding: caller-supplied extra_vars, then Python's names, then (for a file
 * without imports, such as a printed fragment) the default aliases. False when undefined. */
static bool resolve_unbound(script_parser* p, const script_name* n, TVMFFIAny* out) {
  const TVMFFIAny* v;
  if (p->extra_vars && (v = tvm_ffi_map_get_str(p->extra_vars, n->text))) {
    *out = tvm_ffi_any_copy(v);
    return true;
  }
  if (name_is(n, "range")) {
    *out = special_value(&kRange);
    return true;
  }
  if (name_is(n, "float")) {
    *out = special_value(&kFloat);
    return true;
  }
  if (name_is(n, "tvm")) { /* the package, in upstream's default globals */
    *out = special_value(&kModTvm);
    return true;
  }
  if (!p->has_imports) {
    const script_special* sp = name_is(n, "T")   ? &kModTir
                               : name_is(n, "I") ? &kModIr
                               : name_is(n, "R") ? &kModRelax
                                                 : NULL;
    if (sp) {
      *out = special_value(sp);
      return true;
    }
  }
  return false;
}

/* Resolve a name into *out (owned copy); false when undefined. */
static bool resolve_name(script_parser* p, const script_name* n, TVMFFIAny* out) {
  const TVMFFIAny* v = script__vt_lookup(&p->vt, n);
  if (v) {
    *out = tvm_ffi_any_copy(v);
    return true;
  }
  return resolve_unbound(p, n, out);
}

/* The module a dotted name's root resolves to, or NULL. */
static const script_special* root_module(script_parser* p, const script_name* n) {
  const TVMFFIAny* v = script__vt_lookup(&p->vt, n);
  const script_special* sp = NULL;
  if (v) {
    sp = tvm_script__special_of(v); /* (borrowed: only its kind is read) */
  } else {
    TVMFFIAny root;
    if (!resolve_unbound(p, n, &root)) return NULL;
    sp = tvm_script__special_of(&root);
    tvm_ffi_any_release(&root);
  }
  return sp && sp->kind == SCRIPT_SPECIAL_MODULE ? sp : NULL;
}

bool tvm_script__is_relax_alias(script_parser* p, const script_name* n) {
  return root_module(p, n) == &kModRelax;
}

/* The DLPack device type of a device's name as tvm.device() reads it (a target's first word,
 * e.g. "cuda" of "cuda -arch=sm_80"), or of a device constructor's name (tvm.cpu, tvm.cuda, ...;
 * `constructor`: "device" itself, the generic one, is 0); -1 for none. */
static int tvm_device_type_of(const char* s, size_t n, bool constructor) {
  static const struct {
    const char* name;
    int8_t type;
    bool constructor; /* tvm.<name>(dev_id=0) exists */
  } kDevices[] = {
      {"cpu", kDLCPU, true},          {"llvm", kDLCPU, false},      {"c", kDLCPU, false},
      {"stackvm", kDLCPU, false},     {"cuda", kDLCUDA, true},      {"gpu", kDLCUDA, true},
      {"nvptx", kDLCUDA, false},      {"opencl", kDLOpenCL, true},  {"cl", kDLOpenCL, true},
      {"vulkan", kDLVulkan, true},    {"metal", kDLMetal, true},    {"vpi", kDLVPI, true},
      {"rocm", kDLROCM, true},        {"ext_dev", kDLExtDev, true}, {"hexagon", kDLHexagon, true},
      {"webgpu", kDLWebGPU, true},    {"device", 0, true},
  };
  for (size_t i = 0; i < sizeof(kDevices) / sizeof(kDevices[0]); ++i) {
    if (strlen(kDevices[i].name) == n && memcmp(kDevices[i].name, s, n) == 0 &&
        (!constructor || kDevices[i].constructor) && (constructor || kDevices[i].type)) {
      return kDevices[i].type;
    }
  }
  return -1;
}

const script_special* tvm_script__dotted(script_parser* p, const ast_expr* e, char* buf,
                                         size_t bufsize, size_t* out_len) {
  /* Collect the attribute names from the outside in, then write them in order. */
  const script_name* names[16];
  int n = 0;
  while (e->kind == AST_ATTR) {
    if (n == 16) return NULL;
    names[n++] = e->u.attr.name;
    e = e->u.attr.value;
  }
  if (n == 0 || e->kind != AST_NAME) return NULL;
  const script_special* sp = root_module(p, e->u.name);
  if (!sp) return NULL;
  if (sp == &kModTvm && n == 2 && name_is(names[1], "target") && name_is(names[0], "Target")) {
    /* tvm.target.Target(target, host=None) -> T.target (the same signature), as upstream's
     * programs write it in T.func_attr({"target": ...}). */
    if (bufsize < 7) return NULL;
    memcpy(buf, "target", 7);
    *out_len = 6;
    return &kModTir;
  }
  if (sp == &kModTvm && n == 1 && tvm_device_type_of(names[0]->text, names[0]->size, true) >= 0) {
    if (bufsize < (size_t)names[0]->size + 1) return NULL;
    memcpy(buf, names[0]->text, names[0]->size + 1);
    *out_len = names[0]->size;
    return &kTvmDevice;
  }
  if (sp == &kModTvm) {
    /* tvm.script.tir.X, tvm.script.tirx.X, tvm.tir.X -> T.X; tvm.script.ir.X -> I.X;
     * tvm.script.relax.X -> R.X; tvm.script.ir_module -> I.ir_module. */
    bool script = name_is(names[n - 1], "script");
    if (script) --n;
    if (n == 0) return NULL;
    const script_special* sub = module_marker(names[n - 1]->text, names[n - 1]->size);
    if (sub && sub != &kModTvm && (script || sub == &kModTir)) {
      sp = sub;
      --n;
    } else if (!script && sub == &kModRelax && n >= 2 && name_is(names[n - 2], "op")) {
      sp = sub; /* tvm.relax.op.X: the operator R.X */
      n -= 2;
    } else if (script && n == 1 && name_is(names[0], "ir_module")) {
      sp = &kModIr;
    } else {
      return NULL;
    }
    if (n == 0) return NULL;
  } else if (sp == &kModRelax && n >= 2 && name_is(names[n - 1], "op")) {
    --n; /* relax.op.X (`from tvm import relax`): the operator R.X */
  }
  size_t len = 0;
  for (int i = n - 1; i >= 0; --i) {
    if (len + names[i]->size + 2 > bufsize) return NULL;
    if (i != n - 1) buf[len++] = '.';
    memcpy(buf + len, names[i]->text, names[i]->size);
    len += names[i]->size;
  }
  buf[len] = '\0';
  *out_len = len;
  return sp;
}

bool tvm_script__is_relax_call(script_parser* p, const ast_expr* e, const char* want) {
  if (!e || e->kind != AST_CALL) return false;
  char name[64];
  size_t len;
  const script_special* mod = tvm_script__dotted(p, e->u.call.func, name, sizeof(name), &len);
  return mod && strcmp(mod->name, "relax") == 0 && strcmp(name, want) == 0;
}

bool tvm_script__is_tir_attr(script_parser* p, const ast_expr* e, const char* name) {
  char buf[64];
  size_t n;
  const script_special* sp = tvm_script__dotted(p, e, buf, sizeof(buf), &n);
  return sp == &kModTir && n == strlen(name) && memcmp(buf, name, n) == 0;
}

bool tvm_script__is_let_annotation(script_parser* p, const ast_expr* ann) {
  return tvm_script__is_tir_attr(p, ann, "let");
}

/* ---- Value helpers ------------------------------------------------------------------------- */
static bool is_py_number(const TVMFFIAny* v) {
  return v->type_index == kTVMFFIInt || v->type_index == kTVMFFIBool ||
         v->type_index == kTVMFFIFloat;
}

static void* obj_of(const TVMFFIAny* v) { return tvm_ffi_any_is_object(v) ? v->v_obj : NULL; }

static bool is_prim_expr(const TVMFFIAny* v) {
  void* o = obj_of(v);
  return o && tvm_script__is_expr(o);
}

static bool is_kind(const TVMFFIAny* v, tvm_tir_kind k) {
  void* o = obj_of(v);
  return o && tvm_tir_kind_of(o) == k;
}

static bool is_seq(const TVMFFIAny* v) {
  return v->type_index == kTVMFFIArray || v->type_index == kTVMFFIList;
}

bool tvm_script__truthy(const TVMFFIAny* v) {
  int64_t i;
  double f;
  TVMFFIByteArray s;
  switch (v->type_index) {
    case kTVMFFINone:
      return false;
    case kTVMFFIBool:
    case kTVMFFIInt:
      return v->v_int64 != 0;
    case kTVMFFIFloat:
      return v->v_float64 != 0;
    default:
      break;
  }
  if (tvm_ffi_any_as_bytes(v, &s)) return s.size != 0;
  if (is_seq(v)) return tvm_ffi_seq_size(v->v_obj) != 0;
  if (v->type_index == kTVMFFIMap || v->type_index == kTVMFFIDict) {
    return tvm_ffi_map_size(v->v_obj) != 0;
  }
  void* o = obj_of(v);
  if (o && tvm_tir_as_const_int(o, &i)) return i != 0;
  if (o && tvm_tir_as_const_float(o, &f)) return f != 0;
  return true;
}

bool tvm_script__as_dtype(const TVMFFIAny* v, DLDataType* out) {
  if (v->type_index == kTVMFFIDataType) {
    *out = v->v_dtype;
    return true;
  }
  TVMFFIByteArray s;
  if (tvm_ffi_any_as_bytes(v, &s) && v->type_index != kTVMFFIBytes) {
    if (tvm_tir_dtype_parse(s.data, s.size, out) == 0) return true;
    tvm_ffi_error_clear();
  }
  return false;
}

tvm_tir_expr_obj* tvm_script__to_expr_slow(const TVMFFIAny* v, const DLDataType* like) {
  void* o = obj_of(v);
  if (o && tvm_script__is_expr(o)) { /* (callers of script__to_expr tested this already) */
    tvm_ffi_retain(o);
    return o;
  }
  if (like && !tvm_tir_dtype_is_handle_code(*like)) {
    tvm_tir_expr_obj* r = NULL;
    DLDataType t = *like;
    if (v->type_index == kTVMFFIInt) {
      if (tvm_tir_dtype_is_integer(t) && !tvm_tir_dtype_is_bool(t)) {
        r = tvm_tir_const_int(t, v->v_int64);
      } else if (tvm_tir_dtype_is_floating(t)) {
        r = tvm_tir_const_float(t, tvm_script__float_value_in(t, (double)v->v_int64));
      }
    } else if (v->type_index == kTVMFFIFloat && tvm_tir_dtype_is_floating(t)) {
      r = tvm_tir_const_float(t, tvm_script__float_value_in(t, v->v_float64));
    }
    if (r) return r;
    tvm_ffi_error_clear(); /* does not fit: let the operator report it with its rule */
  }
  return tvm_script__value_to_expr_slow(v, "operand");
}

/* ---- Python arithmetic --------------------------------------------------------------------- */
static int py_int_op(script_parser* p, const tvm_script_span* d, int op, int64_t a, int64_t b,
                     TVMFFIAny* out) {
  int64_t r = 0;
  bool ovf = false;
  switch (op) {
    case TVM_SCRIPT_OP_Add:
      ovf = __builtin_add_overflow(a, b, &r);
      break;
    case TVM_SCRIPT_OP_Sub:
      ovf = __builtin_sub_overflow(a, b, &r);
      break;
    case TVM_SCRIPT_OP_Mult:
      ovf = __builtin_mul_overflow(a, b, &r);
      break;
    case TVM_SCRIPT_OP_Div:
      if (b == 0) return tvm_script__error_at(p, d, "ZeroDivisionError", "division by zero");
      *out = tvm_ffi_any_float((double)a / (double)b);
      return 0;
    case TVM_SCRIPT_OP_FloorDiv:
    case TVM_SCRIPT_OP_Mod: {
      if (b == 0) {
        return tvm_script__error_at(p, d, "ZeroDivisionError",
                                    "integer division or modulo by zero");
      }
      if (a == INT64_MIN && b == -1) {
        ovf = op == TVM_SCRIPT_OP_FloorDiv;
        r = 0;
        break;
      }
      int64_t q = a / b, m = a % b;
      if (m != 0 && ((m < 0) != (b < 0))) {
        --q;
        m += b;
      }
      r = op == TVM_SCRIPT_OP_FloorDiv ? q : m;
      break;
    }
    case TVM_SCRIPT_OP_Pow: {
      if (b < 0) {
        *out = tvm_ffi_any_float(pow((double)a, (double)b));
        return 0;
      }
      r = 1;
      for (int64_t base = a, e = b; e > 0 && !ovf; e >>= 1) {
        if (e & 1) ovf = __builtin_mul_overflow(r, base, &r);
        if (e > 1 && !ovf) ovf = __builtin_mul_overflow(base, base, &base);
      }
      break;
    }
    case TVM_SCRIPT_OP_LShift:
      if (b < 0) return tvm_script__error_at(p, d, "ValueError", "negative shift count");
      if (b >= 63 || (a != 0 && (a > (INT64_MAX >> b) || a < (INT64_MIN >> b)))) {
        ovf = a != 0;
      } else {
        r = (int64_t)((uint64_t)a << b);
      }
      break;
    case TVM_SCRIPT_OP_RShift:
      if (b < 0) return tvm_script__error_at(p, d, "ValueError", "negative shift count");
      r = b >= 63 ? (a < 0 ? -1 : 0) : a >> b;
      break;
    case TVM_SCRIPT_OP_BitAnd:
      r = a & b;
      break;
    case TVM_SCRIPT_OP_BitOr:
      r = a | b;
      break;
    case TVM_SCRIPT_OP_BitXor:
      r = a ^ b;
      break;
    case TVM_SCRIPT_OP_Lt:
      *out = tvm_ffi_any_bool(a < b);
      return 0;
    case TVM_SCRIPT_OP_LtE:
      *out = tvm_ffi_any_bool(a <= b);
      return 0;
    case TVM_SCRIPT_OP_Gt:
      *out = tvm_ffi_any_bool(a > b);
      return 0;
    case TVM_SCRIPT_OP_GtE:
      *out = tvm_ffi_any_bool(a >= b);
      return 0;
    case TVM_SCRIPT_OP_Eq:
      *out = tvm_ffi_any_bool(a == b);
      return 0;
    case TVM_SCRIPT_OP_NotEq:
      *out = tvm_ffi_any_bool(a != b);
      return 0;
    default:
      return tvm_script__error_at(p, d, "TypeError", "unsupported operator on int");
  }
  if (ovf) {
    return tvm_script__error_at(p, d, "OverflowError", "integer result does not fit in 64 bits");
  }
  *out = tvm_ffi_any_int(r);
  return 0;
}

static int py_float_op(script_parser* p, const tvm_script_span* d, int op, double a, double b,
                       TVMFFIAny* out) {
  double r;
  switch (op) {
    case TVM_SCRIPT_OP_Add:
      r = a + b;
      break;
    case TVM_SCRIPT_OP_Sub:
      r = a - b;
      break;
    case TVM_SCRIPT_OP_Mult:
      r = a * b;
      break;
    case TVM_SCRIPT_OP_Div:
    case TVM_SCRIPT_OP_FloorDiv:
    case TVM_SCRIPT_OP_Mod:
      if (b == 0) return tvm_script__error_at(p, d, "ZeroDivisionError", "float division by zero");
      if (op == TVM_SCRIPT_OP_Div) {
        r = a / b;
      } else if (op == TVM_SCRIPT_OP_FloorDiv) {
        r = floor(a / b);
      } else {
        r = fmod(a, b); /* Python's sign convention: the result has b's sign */
        if (r != 0 && ((r < 0) != (b < 0))) r += b;
      }
      break;
    case TVM_SCRIPT_OP_Pow:
      r = pow(a, b);
      break;
    case TVM_SCRIPT_OP_Lt:
      *out = tvm_ffi_any_bool(a < b);
      return 0;
    case TVM_SCRIPT_OP_LtE:
      *out = tvm_ffi_any_bool(a <= b);
      return 0;
    case TVM_SCRIPT_OP_Gt:
      *out = tvm_ffi_any_bool(a > b);
      return 0;
    case TVM_SCRIPT_OP_GtE:
      *out = tvm_ffi_any_bool(a >= b);
      return 0;
    case TVM_SCRIPT_OP_Eq:
      *out = tvm_ffi_any_bool(a == b);
      return 0;
    case TVM_SCRIPT_OP_NotEq:
      *out = tvm_ffi_any_bool(a != b);
      return 0;
    default:
      return tvm_script__error_at(p, d, "TypeError", "unsupported operand type(s) for %s: 'float'",
                                  tvm_script_op_text(op));
  }
  *out = tvm_ffi_any_float(r);
  return 0;
}

/* ---- PrimExpr operators -------------------------------------------------------------------- */
static tvm_tir_expr_obj* bit_call(tvm_tir_builtin id, tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  DLDataType ta = a->dtype, tb = b->dtype;
  if (!tvm_tir_dtype_is_integer(ta) || !tvm_tir_dtype_equal(ta, tb)) {
    tvm_ffi_raise("TypeError",
                  "bitwise operators need operands of one integer dtype, got %s and %s",
                  tvm_tir_dtype_str(ta).s, tvm_tir_dtype_str(tb).s);
    return NULL;
  }
  tvm_tir_expr_obj* args[2] = {a, b};
  return tvm_tir_call_builtin(ta, id, args, 2);
}

static tvm_tir_expr_obj* expr_binop(int op, tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  switch (op) {
    case TVM_SCRIPT_OP_Add:
      return tvm_tir_add(a, b);
    case TVM_SCRIPT_OP_Sub:
      return tvm_tir_sub(a, b);
    case TVM_SCRIPT_OP_Mult:
      return tvm_tir_mul(a, b);
    case TVM_SCRIPT_OP_Div:
      return tvm_tir_div(a, b);
    case TVM_SCRIPT_OP_FloorDiv:
      return tvm_tir_floordiv(a, b);
    case TVM_SCRIPT_OP_Mod:
      return tvm_tir_floormod(a, b);
    case TVM_SCRIPT_OP_Lt:
      return tvm_tir_lt(a, b);
    case TVM_SCRIPT_OP_LtE:
      return tvm_tir_le(a, b);
    case TVM_SCRIPT_OP_Gt:
      return tvm_tir_gt(a, b);
    case TVM_SCRIPT_OP_GtE:
      return tvm_tir_ge(a, b);
    case TVM_SCRIPT_OP_Eq:
      return tvm_tir_eq(a, b);
    case TVM_SCRIPT_OP_NotEq:
      return tvm_tir_ne(a, b);
    case TVM_SCRIPT_OP_And:
      return tvm_tir_and(a, b);
    case TVM_SCRIPT_OP_Or:
      return tvm_tir_or(a, b);
    case TVM_SCRIPT_OP_BitAnd:
      return bit_call(TVM_TIR_BUILTIN_bitwise_and, a, b);
    case TVM_SCRIPT_OP_BitOr:
      return bit_call(TVM_TIR_BUILTIN_bitwise_or, a, b);
    case TVM_SCRIPT_OP_BitXor:
      return bit_call(TVM_TIR_BUILTIN_bitwise_xor, a, b);
    case TVM_SCRIPT_OP_LShift:
      return bit_call(TVM_TIR_BUILTIN_shift_left, a, b);
    case TVM_SCRIPT_OP_RShift:
      return bit_call(TVM_TIR_BUILTIN_shift_right, a, b);
    case TVM_SCRIPT_OP_Pow: {
      tvm_tir_op_obj* pw = tvm_tir_op_get("tir.pow");
      if (!pw) return NULL;
      void* args = tvm_tir_list_take(tvm_tir_ref(a), tvm_tir_ref(b));
      tvm_tir_expr_obj* r = args ? tvm_tir_call_new(a->dtype, pw, args) : NULL;
      tvm_ffi_release(args);
      tvm_ffi_release(pw);
      return r;
    }
    default:
      tvm_ffi_raise("TypeError", "unsupported operator '%s' on PrimExpr", tvm_script_op_text(op));
      return NULL;
  }
}

/* A binary operation on two evaluated values (borrowed). */
static bool is_relax_expr(const TVMFFIAny* v) {
  return tvm_ffi_any_is_object(v) && tvm_relax_is_expr(v->v_obj);
}
static int relax_op_call(script_parser* p, const tvm_script_span* d, const char* name,
                         const TVMFFIAny* args, int32_t n, TVMFFIAny* out);

/* a op b with a Relax operand: the operator upstream's Expr.__add__ etc. call (`x + y` is
 * R.add(x, y), `x < y` R.less(x, y)); others are unsupported on Relax values. */
static int relax_binop(script_parser* p, const tvm_script_span* d, int op, const TVMFFIAny* a,
                       const TVMFFIAny* b, TVMFFIAny* out) {
  const char* name = op == TVM_SCRIPT_OP_Add        ? "add"
                     : op == TVM_SCRIPT_OP_Sub      ? "subtract"
                     : op == TVM_SCRIPT_OP_Mult     ? "multiply"
                     : op == TVM_SCRIPT_OP_Div      ? "divide"
                     : op == TVM_SCRIPT_OP_FloorDiv ? "floor_divide"
                     : op == TVM_SCRIPT_OP_Pow      ? "power"
                     : op == TVM_SCRIPT_OP_Lt       ? "less"
                     : op == TVM_SCRIPT_OP_LtE      ? "less_equal"
                     : op == TVM_SCRIPT_OP_Gt       ? "greater"
                     : op == TVM_SCRIPT_OP_GtE      ? "greater_equal"
                                                    : NULL;
  TVMFFIAny args[2] = {*a, *b};
  return relax_op_call(p, d, name, args, 2, out);
}

/* R.<name>(args...) for an operator written as a Python operator (name NULL: none). */
static int relax_op_call(script_parser* p, const tvm_script_span* d, const char* name,
                         const TVMFFIAny* args, int32_t n, TVMFFIAny* out) {
  const tvm_script_builtin* fn = name ? tvm_script__relax_builtin_lookup(name, strlen(name)) : NULL;
  if (!fn) {
    return tvm_script__error_at(p, d, "TypeError",
                                "this operator is not supported on Relax values (write the R.* "
                                "operator)");
  }
  char full[32];
  snprintf(full, sizeof(full), "R.%s", name);
  tvm_script_call call = {.builder = p->b, .name = full, .ctx = TVM_SCRIPT_CTX_EXPR,
                          .num_args = n, .args = args, .error_arg = -1};
  if (fn->fn(&call, out) != 0) {
    *out = tvm_ffi_any_none();
    return tvm_script__relocate(p, d);
  }
  return 0;
}

static int apply_binop(script_parser* p, const tvm_script_span* d, int op, const TVMFFIAny* a,
                       const TVMFFIAny* b, TVMFFIAny* out) {
  if (is_relax_expr(a) || is_relax_expr(b)) return relax_binop(p, d, op, a, b, out);
  if (is_prim_expr(a) || is_prim_expr(b)) {
    if ((!is_prim_expr(a) && !is_py_number(a)) || (!is_prim_expr(b) && !is_py_number(b))) {
      goto unsupported;
    }
    const DLDataType* like_a = is_prim_expr(b) ? &((tvm_tir_expr_obj*)b->v_obj)->dtype : NULL;
    const DLDataType* like_b = is_prim_expr(a) ? &((tvm_tir_expr_obj*)a->v_obj)->dtype : NULL;
    tvm_tir_expr_obj* ea = script__to_expr(a, like_a);
    tvm_tir_expr_obj* eb = ea ? script__to_expr(b, like_b) : NULL;
    tvm_tir_expr_obj* r = eb ? expr_binop(op, ea, eb) : NULL;
    tvm_ffi_release(ea);
    tvm_ffi_release(eb);
    if (!r) return tvm_script__relocate(p, d);
    *out = tvm_ffi_any_obj(r);
    return 0;
  }
  if (is_py_number(a) && is_py_number(b)) {
    if (a->type_index == kTVMFFIFloat || b->type_index == kTVMFFIFloat) {
      double x, y;
      tvm_ffi_any_as_float(a, &x);
      tvm_ffi_any_as_float(b, &y);
      return py_float_op(p, d, op, x, y, out);
    }
    return py_int_op(p, d, op, a->v_int64, b->v_int64, out);
  }
  TVMFFIByteArray sa, sb;
  bool strs = tvm_ffi_any_as_bytes(a, &sa) && tvm_ffi_any_as_bytes(b, &sb);
  if (strs && op == TVM_SCRIPT_OP_Add) {
    tvm_ffi_strbuf buf = {0};
    tvm_ffi_strbuf_append(&buf, sa.data, sa.size);
    tvm_ffi_strbuf_append(&buf, sb.data, sb.size);
    *out = tvm_ffi_string_n(buf.data ? buf.data : "", buf.size);
    tvm_ffi_strbuf_free(&buf);
    return 0;
  }
  if (op == TVM_SCRIPT_OP_Eq || op == TVM_SCRIPT_OP_NotEq) {
    bool eq;
    DLDataType ta, tb;
    if (a->type_index == kTVMFFIDataType || b->type_index == kTVMFFIDataType) {
      /* `A.dtype == "float32"`: a dtype compares with its spelling, as upstream's str dtype. */
      eq = tvm_script__as_dtype(a, &ta) && tvm_script__as_dtype(b, &tb) &&
           tvm_tir_dtype_equal(ta, tb);
    } else {
      eq = strs ? sa.size == sb.size && memcmp(sa.data, sb.data, sa.size) == 0
                : tvm_ffi_any_equal(a, b);
    }
    *out = tvm_ffi_any_bool(eq == (op == TVM_SCRIPT_OP_Eq));
    return 0;
  }
unsupported:
  return tvm_script__error_at(
      p, d, "TypeError", "unsupported operand type(s) for %s: '%s' and '%s'",
      tvm_script_op_text(op), tvm_ffi_any_type_name(a), tvm_ffi_any_type_name(b));
}

/* ---- Expressions --------------------------------------------------------------------------- */
/* An operand that is a BufferRegion (`A[0:4] + B[0:4]`) becomes the vector load of its
 * elements, as upstream's parser reads it (tvm_script__region_as_load); *v is replaced. */
static int region_operand(script_parser* p, const tvm_script_span* at, TVMFFIAny* v) {
  if (!tvm_ffi_any_is_object(v) || tvm_tir_kind_of(v->v_obj) != TVM_TIR_KIND_BufferRegion) {
    return 0;
  }
  tvm_tir_expr_obj* load = tvm_script__region_as_load((const tvm_tir_buffer_region_obj*)v->v_obj);
  if (!load) return tvm_script__relocate(p, at);
  tvm_ffi_any_release(v);
  *v = tvm_ffi_any_obj(load);
  return 0;
}

static int eval_operation(script_parser* p, const ast_expr* e, TVMFFIAny* out) {
  int op = e->u.op.op;
  const tvm_script_span* at = &e->span;
  ast_expr* const* args = e->u.op.args;
  int n = tvm_script_op_arity(op);
  TVMFFIAny a = tvm_ffi_any_none(), b = tvm_ffi_any_none();
  int rc = -1;
  if (op == TVM_SCRIPT_OP_IfThenElse) {
    /* `x if c else y`: a Python condition picks one side (the other is not evaluated); a
     * PrimExpr condition gives tir.if_then_else. */
    TVMFFIAny c = tvm_ffi_any_none();
    if (tvm_script__eval(p, args[1], &c) != 0) return -1;
    if (!is_prim_expr(&c)) {
      bool t = tvm_script__truthy(&c);
      tvm_ffi_any_release(&c);
      return tvm_script__eval(p, args[t ? 0 : 2], out);
    }
    if (tvm_script__eval(p, args[0], &a) == 0 && tvm_script__eval(p, args[2], &b) == 0) {
      if ((!is_prim_expr(&a) && !is_py_number(&a)) || (!is_prim_expr(&b) && !is_py_number(&b))) {
        tvm_script__error_at(p, at, "TypeError",
                             "the branches of a conditional on a PrimExpr must be "
                             "PrimExprs or numbers");
      } else {
        const DLDataType* la = is_prim_expr(&b) ? &((tvm_tir_expr_obj*)b.v_obj)->dtype : NULL;
        const DLDataType* lb = is_prim_expr(&a) ? &((tvm_tir_expr_obj*)a.v_obj)->dtype : NULL;
        tvm_tir_expr_obj* ea = script__to_expr(&a, la);
        tvm_tir_expr_obj* eb = ea ? script__to_expr(&b, lb) : NULL;
        tvm_tir_expr_obj* r = eb ? tvm_tir_if_then_else((void*)c.v_obj, ea, eb) : NULL;
        tvm_ffi_release(ea);
        tvm_ffi_release(eb);
        if (r) {
          *out = tvm_ffi_any_obj(r);
          rc = 0;
        } else {
          tvm_script__relocate(p, at);
        }
      }
    }
    tvm_ffi_any_release(&c);
    goto done;
  }
  if (tvm_script__eval(p, args[0], &a) != 0) return -1;
  if (region_operand(p, at, &a) != 0) goto done;
  if (n == 1) {
    if (is_relax_expr(&a)) { /* -x is R.negative(x); `not x` / `~x` have no Relax meaning */
      rc = relax_op_call(p, at, op == TVM_SCRIPT_OP_USub ? "negative" : NULL, &a, 1, out);
    } else if (is_prim_expr(&a)) {
      tvm_tir_expr_obj* x = (void*)a.v_obj;
      tvm_tir_expr_obj* r =
          op == TVM_SCRIPT_OP_USub ? tvm_script__tir_negate(x)
          : op == TVM_SCRIPT_OP_Not
              ? tvm_tir_not(x)
              : tvm_tir_call_builtin(x->dtype, TVM_TIR_BUILTIN_bitwise_not, &x, 1);
      if (!r) {
        tvm_script__relocate(p, at);
      } else {
        *out = tvm_ffi_any_obj(r);
        rc = 0;
      }
    } else if (op == TVM_SCRIPT_OP_Not) {
      *out = tvm_ffi_any_bool(!tvm_script__truthy(&a));
      rc = 0;
    } else if (a.type_index == kTVMFFIFloat && op == TVM_SCRIPT_OP_USub) {
      *out = tvm_ffi_any_float(-a.v_float64);
      rc = 0;
    } else if (a.type_index == kTVMFFIInt || a.type_index == kTVMFFIBool) {
      if (op == TVM_SCRIPT_OP_USub && a.v_int64 == INT64_MIN) {
        tvm_script__error_at(p, at, "OverflowError", "integer result does not fit in 64 bits");
      } else {
        *out = tvm_ffi_any_int(op == TVM_SCRIPT_OP_USub ? -a.v_int64 : ~a.v_int64);
        rc = 0;
      }
    } else {
      tvm_script__error_at(p, at, "TypeError", "bad operand type for unary %s: '%s'",
                           tvm_script_op_text(op), tvm_ffi_any_type_name(&a));
    }
    goto done;
  }
  if ((op == TVM_SCRIPT_OP_And || op == TVM_SCRIPT_OP_Or) && !is_prim_expr(&a)) {
    /* Python short-circuit: the result is one of the operands. */
    bool t = tvm_script__truthy(&a);
    if (t == (op == TVM_SCRIPT_OP_Or)) {
      *out = a;
      return 0;
    }
    tvm_ffi_any_release(&a);
    return tvm_script__eval(p, args[1], out);
  }
  if (tvm_script__eval(p, args[1], &b) == 0 && region_operand(p, at, &b) == 0) {
    rc = apply_binop(p, at, op, &a, &b, out);
  }
done:
  tvm_ffi_any_release(&a);
  tvm_ffi_any_release(&b);
  return rc;
}

/* A string literal's value. */
static int eval_str(script_parser* p, const ast_expr* e, TVMFFIAny* out) {
  *out = tvm_ffi_string_n(e->u.str.data, e->u.str.size);
  if (out->type_index != kTVMFFINone) return 0;
  return tvm_script__relocate(p, &e->span);
}

/* Evaluate e as a value that may be stored (in a tuple, list or dict, or passed to a builtin):
 * the parser's own markers (`T`, `I`, `cls`, `range`) are not values and must not reach IR. */
static int eval_storable(script_parser* p, const ast_expr* e, TVMFFIAny* out) {
  if (tvm_script__eval(p, e, out) != 0) return -1;
  const script_special* sp = tvm_script__special_of(out);
  if (!sp) return 0;
  *out = tvm_ffi_any_none();
  return tvm_script__error_at(p, &e->span, "TypeError", "`%s` cannot be used as a value here",
                              sp->kind == SCRIPT_SPECIAL_MODULE ? "module" : sp->name);
}

/* Evaluate a sequence's elements into an ffi.Array. */
static int eval_seq(script_parser* p, ast_exprs elts, TVMFFIAny* out) {
  tvm_script_items items;
  if (!tvm_script_items_init(&items, elts.n)) return -1;
  int rc = 0;
  for (int32_t i = 0; rc == 0 && i < elts.n; ++i) {
    rc = eval_storable(p, elts.items[i], &items.items[i]);
    if (rc == 0) items.n = i + 1;
  }
  void* arr = rc == 0 ? tvm_script_items_to_array(&items) : NULL;
  tvm_script_items_free(&items);
  if (rc != 0) return -1;
  if (!arr) return tvm_ffi_raise("MemoryError", "out of memory building a sequence");
  *out = tvm_ffi_any_obj(arr);
  return 0;
}

static int eval_dict(script_parser* p, const ast_expr* e, TVMFFIAny* out) {
  int32_t n = e->u.dict.keys.n;
  /* The Map made at once from the evaluated entries (later duplicates replacing earlier values
   * in place, as a dict's sets would). Evaluating cannot make an entry the map rejects, so
   * errors are the evaluation's, in its order. */
  TVMFFIAny small[16] = {{0}};
  TVMFFIAny* kv = n <= 8 ? small : tvm_ffi_calloc(2 * (size_t)n, sizeof(TVMFFIAny));
  if (!kv) return tvm_script__relocate(p, &e->span);
  int32_t done = 0;
  int rc = 0;
  for (; rc == 0 && done < n; ++done) {
    kv[done] = kv[n + done] = tvm_ffi_any_none();
    rc = eval_storable(p, e->u.dict.keys.items[done], &kv[done]);
    if (rc == 0) rc = eval_storable(p, e->u.dict.values.items[done], &kv[n + done]);
  }
  void* map = rc == 0 ? tvm_ffi_map_new(kv, kv + n, n) : NULL;
  for (int32_t i = 0; i < done; ++i) {
    tvm_ffi_any_release(&kv[i]);
    tvm_ffi_any_release(&kv[n + i]);
  }
  if (kv != small) tvm_ffi_free(kv);
  if (rc != 0) return -1;
  if (!map) return tvm_script__relocate(p, &e->span);
  *out = tvm_ffi_any_obj(map);
  return 0;
}

/* The relax.inspect call op(x[, axis]) for the node e, consuming *x. */
static int inspect_call(script_parser* p, const ast_expr* e, const char* op, TVMFFIAny* x,
                        TVMFFIAny* out) {
  tvm_relax_expr_obj* c = tvm_script__relax_inspect(op, x, NULL);
  tvm_ffi_any_release(x);
  if (!c) return tvm_script__relocate(p, &e->span);
  *out = tvm_ffi_any_obj(c);
  return 0;
}

/* value.name: module attributes (T.float32 is a dtype), `cls.f`, fields of IR objects
 * (`A.data`, `A.shape`, `A.strides`, `A.elem_offset`, `A.dtype`, ...) by reflection, and the
 * DLTensor fields of a Relax tensor (`x.ndim`, `x.dtype.bits`, ...: tvm_script__relax_inspect). */
static int eval_attr(script_parser* p, const ast_expr* e, TVMFFIAny* out) {
  char buf[128];
  size_t n;
  const tvm_script_span* at = &e->span;
  const script_special* mod = tvm_script__dotted(p, e, buf, sizeof(buf), &n);
  if (mod) {
    if (mod == &kModTir) {
      DLDataType t;
      if (tvm_script__tir_dtype_name(buf, n, &t)) {
        *out = tvm_ffi_any_dtype(t);
        return 0;
      }
      if (tvm_script__tir_builtin_lookup(buf, n)) {
        return tvm_script__error_at(p, at, "TypeError", "T.%s is a function: call it", buf);
      }
      /* `T.axis` of `T.axis.spatial` is only reached through the whole dotted name. */
      return tvm_script__error_at(p, at, "AttributeError",
                                  "module 'tvm.script.tirx' has no attribute '%s'", buf);
    }
    if (mod == &kModRelax) { /* R.Tensor, R.Object, ... written without a call */
      int found = tvm_script__relax_value_lookup(buf, n, out);
      if (found > 0) return 0;
      if (found < 0) return tvm_script__relocate(p, at);
      if (tvm_script__relax_builtin_lookup(buf, n)) {
        return tvm_script__error_at(p, at, "TypeError", "R.%s is a function: call it", buf);
      }
      return tvm_script__error_at(p, at, "AttributeError",
                                  "module 'tvm.script.relax' has no attribute '%s'", buf);
    }
    if (mod == &kTvmDevice) {
      return tvm_script__error_at(p, at, "TypeError", "tvm.%s is a function: call it", buf);
    }
    return tvm_script__error_at(p, at, "AttributeError",
                                "module 'tvm.script.ir' has no attribute '%s'", buf);
  }
  const ast_expr* base = e->u.attr.value;
  const char* op = tvm_script__relax_inspect_op(e->u.attr.name->text, true);
  TVMFFIAny v = tvm_ffi_any_none();
  if (op && base->kind == AST_ATTR && name_is(base->u.attr.name, "dtype")) {
    /* `x.dtype.bits` of a Relax tensor x (x.dtype alone is no value) */
    if (tvm_script__eval(p, base->u.attr.value, &v) != 0) return -1;
    if (tvm_script__is_relax_value(&v)) return inspect_call(p, e, op, &v, out);
    TVMFFIAny dtype = tvm_ffi_any_none();
    if (tvm_script__attr_of(p, base, &v, &dtype) != 0) return -1;
    return tvm_script__attr_of(p, e, &dtype, out);
  }
  if (tvm_script__eval(p, base, &v) != 0) return -1;
  return tvm_script__attr_of(p, e, &v, out);
}

int tvm_script__attr_of(script_parser* p, const ast_expr* e, TVMFFIAny* value, TVMFFIAny* out) {
  TVMFFIAny v = *value;
  *value = tvm_ffi_any_none();
  const tvm_script_span* at = &e->span;
  const char* name = e->u.attr.name->text;
  if (tvm_script__is_relax_value(&v)) {
    const char* op = tvm_script__relax_inspect_op(name, false);
    if (op && strcmp(name, "shape") != 0 && strcmp(name, "strides") != 0) {
      return inspect_call(p, e, op, &v, out);
    }
    if (op || strcmp(name, "dtype") == 0) { /* x.shape, x.strides, x.dtype: no values */
      const char* use = !op                         ? ".dtype.type_code, .dtype.bits or .dtype.lanes"
                        : strcmp(name, "shape") == 0 ? ".shape[i] (the rank: .ndim)"
                                                     : ".strides[i] (the rank: .ndim)";
      tvm_ffi_any_release(&v);
      return tvm_script__error_at(p, at, "TypeError",
                                  "`.%s` of a Relax value is no value: read the tensor's fields "
                                  "as %s",
                                  name, use);
    }
  }
  const script_special* sp = tvm_script__special_of(&v);
  int rc = -1;
  if (sp && sp->kind == SCRIPT_SPECIAL_CLS) {
    /* Once the module's functions are declared (module_defs set), a name none of them has is
     * an error here, where it is written, not when the module ends. */
    if (p->module_defs && !tvm_script__ir_module_declares(p->b, name)) {
      return tvm_script__error_at(p, at, "AttributeError", "the module defines no function `%s`",
                                  name);
    }
    tvm_tir_global_var_obj* gv = tvm_script_ir_module_global_var(p->b, name);
    if (gv) {
      *out = tvm_ffi_any_obj(gv);
      rc = 0;
    } else {
      tvm_script__relocate(p, at);
    }
  } else if (tvm_ffi_any_is_object(&v)) {
    const TVMFFIFieldInfo* f = tvm_ffi_type_find_field(v.type_index, name);
    if (f) {
      rc = tvm_ffi_field_get(v.v_obj, f, out) == 0 ? 0 : tvm_script__relocate(p, at);
      /* A Buffer's scope lives on its data pointer's type. */
    } else if (is_kind(&v, TVM_TIR_KIND_Buffer) && strcmp(name, "scope") == 0) {
      *out = tvm_ffi_string(tvm_tir_buffer_scope((void*)v.v_obj));
      rc = 0;
      /* `x.struct_info` of a Relax value (`sinfo_args=[x.struct_info]`), also by upstream's
       * newer name `x.ty` (`ty_args=[x.ty]`) */
    } else if (tvm_relax_is_expr(v.v_obj) &&
               (strcmp(name, "struct_info") == 0 || strcmp(name, "ty") == 0) &&
               tvm_relax_sinfo_of(v.v_obj)) {
      tvm_relax_sinfo_obj* si = tvm_relax_sinfo_of(v.v_obj);
      tvm_ffi_retain(si);
      *out = tvm_ffi_any_obj(si);
      rc = 0;
    } else {
      tvm_script__error_at(p, at, "AttributeError", "'%s' object has no attribute '%s'",
                           tvm_ffi_any_type_name(&v), name);
    }
  } else if (sp && sp->kind == SCRIPT_SPECIAL_MODULE) {
    tvm_script__error_at(p, at, "AttributeError",
                         "module '%s' has no attribute '%s' (TVMScript reaches tvm.script.tir, "
                         "tvm.script.ir, tvm.script.relax, tvm.script.ir_module, tvm.tir and "
                         "tvm.target.Target)",
                         sp->name, name);
  } else {
    tvm_script__error_at(p, at, "AttributeError", "'%s' object has no attribute '%s'",
                         tvm_ffi_any_type_name(&v), name);
  }
  tvm_ffi_any_release(&v);
  return rc;
}

/* ---- Calls --------------------------------------------------------------------------------- */
/* The evaluated arguments of a call: positional ones (`*xs` expanded), then keyword values,
 * each with the node it came from (for messages). */
typedef struct {
  TVMFFIAny* args;
  const ast_expr** nodes;
  int32_t n, cap;
  TVMFFIAny stack_args[8];
  const ast_expr* stack_nodes[8];
  /* The lambda arguments (parse_lambda.h): [0] positional ones, [1] keyword values. */
  script_lambda* lambdas[2];
} arg_list;

static void arg_list_init(arg_list* l) {
  l->args = l->stack_args;
  l->nodes = l->stack_nodes;
  l->n = 0;
  l->cap = 8;
  l->lambdas[0] = l->lambdas[1] = NULL;
}

/* Double the room of l (past its 8 places on the stack). */
static __attribute__((noinline)) int arg_grow(arg_list* l) {
  int32_t cap = l->cap * 2;
  TVMFFIAny* a = tvm_ffi_calloc((size_t)cap, sizeof(TVMFFIAny));
  const ast_expr** ns = tvm_ffi_calloc((size_t)cap, sizeof(void*));
  if (!a || !ns) {
    tvm_ffi_free(a);
    tvm_ffi_free(ns);
    return -1;
  }
  memcpy(a, l->args, (size_t)l->n * sizeof(TVMFFIAny));
  memcpy(ns, l->nodes, (size_t)l->n * sizeof(void*));
  if (l->args != l->stack_args) tvm_ffi_free(l->args);
  if (l->nodes != l->stack_nodes) tvm_ffi_free((void*)l->nodes);
  l->args = a;
  l->nodes = ns;
  l->cap = cap;
  return 0;
}

/* Append v (moved; None afterwards), from node e. */
static int arg_push(script_parser* p, arg_list* l, TVMFFIAny* v, const ast_expr* e) {
  if (l->n == l->cap && arg_grow(l) != 0) {
    tvm_ffi_any_release(v);
    return tvm_script__relocate(p, &e->span);
  }
  l->args[l->n] = *v;
  l->nodes[l->n++] = e;
  *v = tvm_ffi_any_none();
  return 0;
}

static void arg_list_free(arg_list* l) {
  if (l->lambdas[0]) tvm_script__lambdas_end(&l->lambdas[0], false);
  if (l->lambdas[1]) tvm_script__lambdas_end(&l->lambdas[1], false);
  for (int32_t i = 0; i < l->n; ++i) tvm_ffi_any_release(&l->args[i]);
  if (l->args != l->stack_args) tvm_ffi_free(l->args);
  if (l->nodes != l->stack_nodes) tvm_ffi_free((void*)l->nodes);
}

/* A tuple / list argument in a builtin's shape place (tvm_script_builtin.shape_arg): the
 * elements evaluated as eval_seq does, then, when every one is a Python number or a PrimExpr,
 * each converted by tvm_script__value_to_expr as the builtin's tvm_script__value_to_expr_array
 * would (they all convert), so that the builtin shares this Array. Otherwise (a string, a
 * nested tuple, ...) the elements are left for the builtin to convert or reject. */
static int eval_shape_seq(script_parser* p, const ast_expr* e, TVMFFIAny* out) {
  ast_exprs elts = e->u.elts;
  tvm_script_items items;
  if (!tvm_script_items_init(&items, elts.n)) return tvm_script__relocate(p, &e->span);
  bool exprs = true;
  int rc = 0;
  for (int32_t i = 0; rc == 0 && i < elts.n; ++i) {
    TVMFFIAny* v = &items.items[i];
    rc = eval_storable(p, elts.items[i], v);
    if (rc != 0) break;
    items.n = i + 1;
    exprs = exprs && (is_py_number(v) || is_prim_expr(v));
  }
  for (int32_t i = 0; rc == 0 && exprs && i < elts.n; ++i) {
    TVMFFIAny* v = &items.items[i];
    if (!is_py_number(v)) continue;
    tvm_tir_expr_obj* x = tvm_script__value_to_expr(v, "");
    if (!x) rc = tvm_script__relocate(p, &elts.items[i]->span); /* (out of memory) */
    if (x) *v = tvm_ffi_any_obj(x); /* (a number: nothing to release) */
  }
  void* arr = rc == 0 ? tvm_script_items_to_array(&items) : NULL;
  if (rc == 0 && !arr) rc = tvm_script__relocate(p, &e->span);
  tvm_script_items_free(&items);
  if (arr) *out = tvm_ffi_any_obj(arr);
  return rc;
}

/* The dims of R.Tensor / R.Shape written as a tuple or list (tvm_script_builtin.relax_dims):
 * evaluated as eval_seq does, except that a string which is not a name is an expression over
 * the function's symbolic variables ("n * 2"), evaluated to its PrimExpr, and a Python int is
 * the int64 IntImm the builtin makes of it: a shape of ints and PrimExprs (most) is then the
 * Array the builtin shares, not one it converts into a second. */
static int eval_relax_dims(script_parser* p, const ast_expr* e, TVMFFIAny* out) {
  ast_exprs elts = e->u.elts;
  tvm_script_items items;
  if (!tvm_script_items_init(&items, elts.n)) return tvm_script__relocate(p, &e->span);
  int rc = 0;
  for (int32_t i = 0; rc == 0 && i < elts.n; ++i) {
    const ast_expr* x = elts.items[i];
    TVMFFIAny* v = &items.items[i];
    rc = x->kind == AST_STR && !tvm_script__relax_dim_is_name(x->u.str.data, x->u.str.size)
             ? tvm_script__relax_dim_expr(p, x, v)
             : eval_storable(p, x, v);
    if (rc == 0) items.n = i + 1;
    if (rc == 0 && v->type_index == kTVMFFIInt) {
      tvm_tir_expr_obj* d = tvm_tir_const_int(tvm_tir_dtype_int(64), v->v_int64);
      if (!d) rc = tvm_script__relocate(p, &x->span); /* (out of memory) */
      if (d) *v = tvm_ffi_any_obj(d);
    }
  }
  void* arr = rc == 0 ? tvm_script_items_to_array(&items) : NULL;
  if (rc == 0 && !arr) rc = tvm_script__relocate(p, &e->span);
  tvm_script_items_free(&items);
  if (arr) *out = tvm_ffi_any_obj(arr);
  return rc;
}

static bool is_dims_seq(const ast_expr* a) { return a->kind == AST_TUPLE || a->kind == AST_LIST; }

/* Evaluate positional arguments (expanding `*xs`) and then keyword values into one list (the
 * positional ones first: *num_pos of them). */
static int eval_args(script_parser* p, const ast_expr* c, int shape_arg, bool region_args,
                     bool relax_dims, arg_list* pos, int32_t* num_pos) {
  ast_exprs args = c->u.call.args;
  for (int32_t i = 0; i < args.n; ++i) {
    const ast_expr* a = args.items[i];
    TVMFFIAny v = tvm_ffi_any_none();
    int region_rc = 1;
    if (relax_dims && i == 0 && is_dims_seq(a)) {
      if (eval_relax_dims(p, a, &v) != 0) return -1;
    } else if (i == shape_arg - 1 && pos->n == i && (a->kind == AST_TUPLE || a->kind == AST_LIST)) {
      /* (no starred argument before it: then its place would not be i) One level, as
       * tvm_script__eval counts it (which reports a tuple nested too deeply). */
      if (p->eval_depth >= SCRIPT_MAX_EVAL_DEPTH) return tvm_script__eval(p, a, &v);
      ++p->eval_depth;
      int rc = eval_shape_seq(p, a, &v);
      --p->eval_depth;
      if (rc != 0) return -1;
    } else if (a->kind == AST_STARRED) { /* f(*xs): the items of xs */
      if (tvm_script__eval(p, a->u.starred, &v) != 0) return -1;
      if (!is_seq(&v)) {
        tvm_ffi_any_release(&v);
        return tvm_script__error_at(p, &a->span, "TypeError",
                                    "argument after * must be a tuple or list");
      }
      int rc = 0;
      for (int64_t j = 0; rc == 0 && j < tvm_ffi_seq_size(v.v_obj); ++j) {
        TVMFFIAny item = tvm_ffi_any_copy(tvm_ffi_seq_at(v.v_obj, j));
        rc = arg_push(p, pos, &item, a);
      }
      tvm_ffi_any_release(&v);
      if (rc != 0) return -1;
      continue;
    } else if (a->kind == AST_LAMBDA) {
      if (tvm_script__lambda_new(p, a, &pos->lambdas[0], &v) != 0) return -1;
    } else if (region_args && (region_rc = tvm_script__eval_region(p, a, &v)) < 0) {
      return -1;
    } else if (region_rc != 0 && eval_storable(p, a, &v) != 0) {
      return -1;
    }
    if (arg_push(p, pos, &v, a) != 0) return -1;
  }
  *num_pos = pos->n;
  ast_exprs kw = c->u.call.kw_values;
  for (int32_t i = 0; i < kw.n; ++i) {
    const ast_expr* a = kw.items[i];
    TVMFFIAny v = tvm_ffi_any_none();
    const char* kw_name = c->u.call.kw_names[i]->text;
    if (relax_dims && is_dims_seq(a) &&
        (strcmp(kw_name, "shape") == 0 || strcmp(kw_name, "values") == 0)) {
      if (eval_relax_dims(p, a, &v) != 0) return -1;
    } else if (relax_dims && a->kind == AST_STR && strcmp(kw_name, "value") == 0 &&
               !tvm_script__relax_dim_is_name(a->u.str.data, a->u.str.size)) {
      /* R.Prim(value="n * 2 + 1"), as a signature prints a composite value */
      if (tvm_script__relax_dim_expr(p, a, &v) != 0) return -1;
    } else if (a->kind == AST_LAMBDA) {
      if (tvm_script__lambda_new(p, a, &pos->lambdas[1], &v) != 0) return -1;
    } else if (eval_storable(p, a, &v) != 0) {
      return -1;
    }
    if (arg_push(p, pos, &v, a) != 0) return -1;
  }
  return 0;
}

/* The dtype a call of the module's function `name` returns: its `-> T.int32` annotation, else
 * void (as upstream's call_tir without a checked type). */
static int callee_dtype(script_parser* p, const tvm_tir_global_var_obj* gv, DLDataType* out) {
  *out = TVM_TIR_VOID;
  const ast_stmts* defs = p->module_defs;
  const char* name = tvm_ffi_str_cstr(gv->name_hint);
  for (int32_t i = 0; defs && i < defs->n; ++i) {
    const ast_stmt* f = defs->items[i];
    if (f->kind != AST_DEF || !f->u.def.returns ||
        strcmp(f->u.def.name->u.name->text, name) != 0) {
      continue;
    }
    TVMFFIAny t;
    if (tvm_script__eval(p, f->u.def.returns, &t) != 0) return -1;
    if (!tvm_script__as_dtype(&t, out) && tvm_ffi_any_is_object(&t) &&
        tvm_tir_kind_of(t.v_obj) == TVM_TIR_KIND_PrimType) {
      *out = ((const tvm_tir_prim_type_obj*)(void*)t.v_obj)->dtype;
    }
    tvm_ffi_any_release(&t);
    break;
  }
  return 0;
}

/* A call of a GlobalVar (`cls.f(x)`): a tir.Call of the callee's return dtype. */
static int call_global(script_parser* p, const ast_expr* c, const TVMFFIAny* gv,
                       const arg_list* pos, TVMFFIAny* out) {
  DLDataType dtype;
  if (callee_dtype(p, (const void*)gv->v_obj, &dtype) != 0) return -1;
  tvm_script_items items;
  if (!tvm_script_items_init(&items, pos->n)) return tvm_script__relocate(p, &c->span);
  for (int32_t i = 0; i < pos->n; ++i) {
    tvm_tir_expr_obj* e = script__to_expr(&pos->args[i], NULL);
    if (!e) {
      tvm_script_items_free(&items);
      return tvm_script__relocate(p, &pos->nodes[i]->span);
    }
    tvm_script_items_push(&items, e);
  }
  void* arr = tvm_script_items_to_array(&items);
  tvm_script_items_free(&items);
  tvm_tir_expr_obj* r = arr ? tvm_tir_call_new(dtype, gv->v_obj, arr) : NULL;
  tvm_ffi_release(arr);
  if (!r) return tvm_script__relocate(p, &c->span);
  *out = tvm_ffi_any_obj(r);
  return 0;
}

/* x when end is `begin + x` with the same begin (the same object, or an equal constant of the
 * same dtype), else NULL. */
static const tvm_tir_expr_obj* range_extent_of_end(const tvm_tir_expr_obj* begin,
                                                   const tvm_tir_expr_obj* end) {
  if (tvm_tir_kind_of(end) != TVM_TIR_KIND_Add) return NULL;
  const tvm_tir_binary_obj* add = (const void*)end;
  int64_t x, y;
  bool same = add->a == begin ||
              (tvm_tir_as_const_int(add->a, &x) && tvm_tir_as_const_int(begin, &y) && x == y &&
               tvm_tir_dtype_equal(add->a->dtype, begin->dtype));
  return same ? add->b : NULL;
}

/* I.Range(begin, end): [begin, end) as Range(begin, end - begin) (folded, as upstream);
 * I.Range(begin): a Range without extent, as the printer writes one. A Python int takes the
 * other bound's dtype. */
static int call_ir_range(script_parser* p, const ast_expr* c, TVMFFIAny* out) {
  int32_t n = c->u.call.args.n;
  if (n < 1 || n > 2 || c->u.call.kw_values.n != 0) {
    return tvm_script__error_at(p, &c->span, "TypeError",
                                "I.Range() takes 1 or 2 positional arguments");
  }
  TVMFFIAny v[2] = {tvm_ffi_any_none(), tvm_ffi_any_none()};
  tvm_tir_expr_obj* e[2] = {NULL, NULL};
  int rc = 0;
  for (int32_t i = 0; rc == 0 && i < n; ++i) rc = tvm_script__eval(p, c->u.call.args.items[i], &v[i]);
  /* Convert a PrimExpr bound first, so that a literal next to it takes its dtype. */
  int first = n == 2 && tvm_ffi_any_is_object(&v[1]) && !tvm_ffi_any_is_object(&v[0]) ? 1 : 0;
  for (int k = 0; rc == 0 && k < n; ++k) {
    int i = k == 0 ? first : 1 - first;
    DLDataType like = k ? tvm_tir_expr_dtype(e[first]) : TVM_TIR_INT32;
    e[i] = script__to_expr(&v[i], k ? &like : NULL);
    if (!e[i]) rc = tvm_script__relocate(p, &c->u.call.args.items[i]->span);
  }
  tvm_tir_range_obj* r = NULL;
  if (rc == 0 && n == 2 && !tvm_tir_dtype_equal(e[0]->dtype, e[1]->dtype)) {
    /* Mixed bounds would print back as a different expression: require one dtype. */
    rc = tvm_script__error_at(p, &c->span, "TypeError",
                              "I.Range: the bounds have different dtypes, %s and %s",
                              tvm_tir_dtype_str(e[0]->dtype).s, tvm_tir_dtype_str(e[1]->dtype).s);
  }
  if (rc == 0) {
    int64_t lo = -1;
    bool from_zero = tvm_tir_as_const_int(e[0], &lo) && lo == 0;
    /* The printer writes Range(min, extent) as I.Range(min, min + extent): take extent back
     * from that sum rather than building (min + extent) - min. */
    const tvm_tir_expr_obj* summand = n == 2 ? range_extent_of_end(e[0], e[1]) : NULL;
    tvm_tir_expr_obj* extent = n == 1      ? NULL
                               : from_zero ? tvm_tir_ref(e[1])
                               : summand   ? tvm_tir_ref((void*)summand)
                                           : tvm_tir_sub(e[1], e[0]);
    r = n == 1 || extent ? tvm_tir_range_new(e[0], extent) : NULL;
    tvm_ffi_release(extent);
    if (!r) rc = tvm_script__relocate(p, &c->span);
  }
  for (int i = 0; i < 2; ++i) {
    tvm_ffi_any_release(&v[i]);
    tvm_ffi_release(e[i]);
  }
  if (rc == 0) *out = tvm_ffi_any_obj(r);
  return rc;
}

/* The `I.*` calls an expression may hold, as the printer writes them: I.GlobalVar("f") (a
 * function outside its module), I.Op("name") (another dialect's op) and I.Range. */
static int call_ir(script_parser* p, const ast_expr* c, const char* name, TVMFFIAny* out) {
  if (strcmp(name, "Range") == 0) return call_ir_range(p, c, out);
  bool gv = strcmp(name, "GlobalVar") == 0, op = strcmp(name, "Op") == 0;
  if (!gv && !op) {
    return tvm_script__error_at(p, &c->u.call.func->span, "AttributeError",
                                "module 'tvm.script.ir' has no attribute '%s' usable here", name);
  }
  if (c->u.call.args.n != 1 || c->u.call.kw_values.n != 0) {
    return tvm_script__error_at(p, &c->span, "TypeError",
                                "I.%s() takes exactly one argument (a name)", name);
  }
  const ast_expr* a = c->u.call.args.items[0];
  TVMFFIAny v;
  if (tvm_script__eval(p, a, &v) != 0) return -1;
  const char* s = tvm_script__value_to_cstr(
      &v, gv ? "argument 'name' of I.GlobalVar" : "argument 'name' of I.Op");
  void* r = !s ? NULL : gv ? (void*)tvm_tir_global_var_new(s) : (void*)tvm_tir_op_get(s);
  tvm_ffi_any_release(&v);
  if (!r) return tvm_script__relocate(p, &a->span);
  *out = tvm_ffi_any_obj(r);
  return 0;
}

/* Python's float() of text: surrounding whitespace, an optional sign, then "inf", "infinity"
 * or "nan" in any case, or a decimal number (no underscores, no hexadecimal). False when the
 * text is none of these, as float() raises ValueError. */
static bool py_float_of_text(const char* s, size_t n, double* out) {
  while (n && isspace((unsigned char)*s)) ++s, --n;
  while (n && isspace((unsigned char)s[n - 1])) --n;
  char buf[64];
  if (n == 0 || n >= sizeof(buf)) return false;
  memcpy(buf, s, n);
  buf[n] = '\0';
  const char* t = buf + (buf[0] == '+' || buf[0] == '-');
  double sign = buf[0] == '-' ? -1.0 : 1.0;
  if (strcasecmp(t, "inf") == 0 || strcasecmp(t, "infinity") == 0) {
    *out = sign * INFINITY;
    return true;
  }
  if (strcasecmp(t, "nan") == 0) {
    *out = sign * NAN;
    return true;
  }
  bool digits = false;
  for (const char* q = t; *q; ++q) {
    if (isdigit((unsigned char)*q)) {
      digits = true;
    } else if (!strchr(".eE+-", *q)) {
      return false;
    }
  }
  char* end;
  *out = tvm_ffi_strtod(buf, &end);
  return digits && *end == '\0';
}

/* `float(x)`: Python's float of one number or numeric text, a Python float (the printer writes
 * `float("inf")`, `-float("inf")` and `float("nan")` for the values no literal spells). */
static int call_float(script_parser* p, const ast_expr* c, TVMFFIAny* out) {
  if (c->u.call.args.n != 1 || c->u.call.kw_values.n != 0) {
    return tvm_script__error_at(p, &c->span, "TypeError", "float() takes exactly one argument");
  }
  const ast_expr* a0 = c->u.call.args.items[0];
  TVMFFIAny v;
  if (tvm_script__eval(p, a0, &v) != 0) return -1;
  double d = 0;
  TVMFFIByteArray text;
  int rc = 0;
  if (v.type_index == kTVMFFIFloat) {
    d = v.v_float64;
  } else if (v.type_index == kTVMFFIInt || v.type_index == kTVMFFIBool) {
    d = (double)v.v_int64;
  } else if (tvm_ffi_any_as_bytes(&v, &text)) {
    if (!py_float_of_text(text.data, text.size, &d)) {
      rc = tvm_script__error_at(p, &a0->span, "ValueError",
                                "could not convert string to float: '%.*s'",
                                (int)(text.size < 64 ? text.size : 64), text.data);
    }
  } else {
    const script_special* sp = tvm_script__special_of(&v);
    rc = tvm_script__error_at(p, &a0->span, "TypeError",
                              "float() argument must be a string or a number, not %s",
                              !sp                                 ? tvm_ffi_any_type_name(&v)
                              : sp->kind == SCRIPT_SPECIAL_MODULE ? "module"
                                                                  : sp->name);
  }
  tvm_ffi_any_release(&v);
  if (rc == 0) *out = tvm_ffi_any_float(d);
  return rc;
}

/* `A.access_ptr(access_mask, ptr_type="handle", content_lanes=1, offset=0, extent=None)`:
 * upstream's Buffer.access_ptr, `T.tvm_access_ptr(T.type_annotation(dtype), A.data,
 * elem_offset + offset, extent, mask)` with mask "r" 1, "w" 2, "rw" 3 (or an int) and extent,
 * when not given, the buffer's size (strides[0] * shape[0] when strided) less the offset. */
static int buffer_access_ptr(script_parser* p, const ast_expr* c, const tvm_tir_buffer_obj* b,
                             TVMFFIAny* out) {
  static const char* const kNames[] = {"access_mask", "ptr_type", "content_lanes", "offset",
                                       "extent"};
  const ast_expr* argv[5] = {NULL};
  if (c->u.call.args.n > 5) {
    return tvm_script__error_at(p, &c->span, "TypeError",
                                "Buffer.access_ptr() takes at most 5 arguments");
  }
  for (int32_t i = 0; i < c->u.call.args.n; ++i) argv[i] = c->u.call.args.items[i];
  for (int32_t i = 0; i < c->u.call.kw_values.n; ++i) {
    int k = 0;
    while (k < 5 && strcmp(c->u.call.kw_names[i]->text, kNames[k]) != 0) ++k;
    if (k == 5 || argv[k]) {
      return tvm_script__error_at(p, &c->u.call.kw_values.items[i]->span, "TypeError",
                                  k == 5 ? "Buffer.access_ptr() got an unexpected keyword "
                                           "argument '%s'"
                                         : "Buffer.access_ptr() got multiple values for "
                                           "argument '%s'",
                                  c->u.call.kw_names[i]->text);
    }
    argv[k] = c->u.call.kw_values.items[i];
  }
  if (!argv[0]) {
    return tvm_script__error_at(p, &c->span, "TypeError",
                                "Buffer.access_ptr() missing required argument 'access_mask'");
  }
  int64_t mask = 0, lanes = 1;
  DLDataType ptr_type = TVM_TIR_HANDLE;
  TVMFFIAny v;
  if (tvm_script__eval(p, argv[0], &v) != 0) return -1;
  TVMFFIByteArray text;
  int rc = 0;
  if (tvm_ffi_any_as_bytes(&v, &text)) {
    for (size_t i = 0; rc == 0 && i < text.size; ++i) {
      if (text.data[i] == 'r') {
        mask |= 1;
      } else if (text.data[i] == 'w') {
        mask |= 2;
      } else {
        rc = tvm_script__error_at(p, &argv[0]->span, "ValueError",
                                  "Buffer.access_ptr(): access_mask is made of 'r' and 'w'");
      }
    }
  } else if (v.type_index == kTVMFFIInt) {
    mask = v.v_int64;
  } else {
    rc = tvm_script__error_at(p, &argv[0]->span, "TypeError",
                              "Buffer.access_ptr(): access_mask must be a string or an int");
  }
  tvm_ffi_any_release(&v);
  if (rc == 0 && argv[1]) {
    if (tvm_script__eval(p, argv[1], &v) != 0) return -1;
    if (!tvm_script__as_dtype(&v, &ptr_type)) {
      rc = tvm_script__error_at(p, &argv[1]->span, "TypeError",
                                "Buffer.access_ptr(): ptr_type must name a dtype");
    }
    tvm_ffi_any_release(&v);
  }
  if (rc == 0 && argv[2]) {
    if (tvm_script__eval(p, argv[2], &v) != 0) return -1;
    if (v.type_index != kTVMFFIInt || v.v_int64 < 1) {
      rc = tvm_script__error_at(p, &argv[2]->span, "TypeError",
                                "Buffer.access_ptr(): content_lanes must be a positive int");
    }
    lanes = v.v_int64;
    tvm_ffi_any_release(&v);
  }
  if (rc != 0) return -1;
  DLDataType idx = b->elem_offset->dtype;
  tvm_tir_expr_obj* offset = argv[3] ? tvm_script__eval_expr(p, argv[3]) : tvm_tir_const_int(idx, 0);
  if (!offset) return -1;
  tvm_tir_expr_obj* extent = NULL;
  int64_t ndim = tvm_ffi_seq_size(b->shape);
  if (argv[4]) {
    extent = tvm_script__eval_expr(p, argv[4]);
  } else {
    tvm_tir_expr_obj* size = NULL;
    if (ndim == 0) {
      size = tvm_tir_const_int(idx, 1);
    } else if (tvm_ffi_seq_size(b->strides) == ndim) {
      size = tvm_tir_mul(tvm_ffi_seq_obj_at(b->strides, 0), tvm_ffi_seq_obj_at(b->shape, 0));
    } else {
      size = (tvm_tir_expr_obj*)tvm_ffi_seq_obj_at(b->shape, 0);
      tvm_ffi_retain(size);
      for (int64_t i = 1; size && i < ndim; ++i) {
        tvm_tir_expr_obj* next = tvm_tir_mul(size, tvm_ffi_seq_obj_at(b->shape, i));
        tvm_ffi_release(size);
        size = next;
      }
    }
    extent = size ? tvm_tir_sub(size, offset) : NULL;
    tvm_ffi_release(size);
  }
  tvm_tir_expr_obj* elem = extent ? tvm_tir_add(b->elem_offset, offset) : NULL;
  tvm_ffi_release(offset);
  DLDataType et = b->dtype;
  if (elem && lanes > 1) {
    et.lanes = (uint16_t)lanes;
    tvm_tir_expr_obj* l = tvm_tir_const_int(idx, lanes);
    tvm_tir_expr_obj* e2 = l ? tvm_tir_div(b->elem_offset, l) : NULL;
    tvm_ffi_release(elem);
    elem = e2;
    if (!argv[4] && l && elem) {
      tvm_tir_expr_obj* x2 = tvm_tir_div(extent, l);
      tvm_ffi_release(extent);
      extent = x2;
    }
    tvm_ffi_release(l);
  }
  tvm_tir_expr_obj* r = NULL;
  if (elem && extent) {
    tvm_ffi_retain(b->data);
    r = tvm_tir_call_take(ptr_type, "tir.tvm_access_ptr",
                          tvm_tir_call_takev(et, "tir.type_annotation", 0, NULL), b->data, elem,
                          extent,
                          tvm_tir_const_int(TVM_TIR_INT32, mask));
    elem = extent = NULL;
  }
  tvm_ffi_release(elem);
  tvm_ffi_release(extent);
  if (!r) return tvm_script__relocate(p, &c->span);
  *out = tvm_ffi_any_obj(r);
  return 0;
}

/* `A.vload(begin, dtype=None)`: upstream's Buffer.vload, a load at the indices begin (a list, or
 * one index) of dtype, by default A's; a dtype of k times A's lanes loads a vector, the last
 * index becoming Ramp(index, 1, k). */
static int buffer_vload(script_parser* p, const ast_expr* c, tvm_tir_buffer_obj* b,
                        TVMFFIAny* out) {
  int32_t nargs = c->u.call.args.n, nkw = c->u.call.kw_values.n;
  const ast_expr* arg[2] = {nargs > 0 ? c->u.call.args.items[0] : NULL,
                            nargs > 1 ? c->u.call.args.items[1] : NULL};
  for (int32_t k = 0; k < nkw; ++k) {
    const script_name* key = c->u.call.kw_names[k];
    int slot = name_is(key, "begin") ? 0 : name_is(key, "dtype") ? 1 : -1;
    if (slot < 0 || arg[slot]) {
      return tvm_script__error_at(p, &c->u.call.kw_values.items[k]->span, "TypeError",
                                  slot < 0 ? "Buffer.vload() takes begin and dtype"
                                           : "Buffer.vload() got multiple values for '%s'",
                                  key->text);
    }
    arg[slot] = c->u.call.kw_values.items[k];
  }
  if (nargs > 2 || !arg[0]) {
    return tvm_script__error_at(p, &c->span, "TypeError", "Buffer.vload() takes begin and dtype");
  }
  DLDataType t = b->dtype;
  TVMFFIAny v;
  if (arg[1]) {
    if (tvm_script__eval(p, arg[1], &v) != 0) return -1;
    int rc = tvm_ffi_any_is_none(&v) ? 0 : tvm_script__value_to_dtype(&v, "the dtype", &t);
    tvm_ffi_any_release(&v);
    if (rc != 0) return tvm_script__relocate(p, &arg[1]->span);
  }
  if (t.code != b->dtype.code || t.bits != b->dtype.bits || t.lanes % b->dtype.lanes != 0) {
    return tvm_script__error_at(p, &c->span, "TypeError",
                                "Buffer.vload(): cannot load %s from a buffer of %s",
                                tvm_tir_dtype_str(t).s, tvm_tir_dtype_str(b->dtype).s);
  }
  if (tvm_script__eval(p, arg[0], &v) != 0) return -1;
  void* idx = tvm_script__value_to_expr_array(&v, "an index of Buffer.vload()");
  tvm_ffi_any_release(&v);
  if (!idx) return tvm_script__relocate(p, &arg[0]->span);
  int32_t factor = t.lanes / b->dtype.lanes;
  int64_t n = tvm_ffi_seq_size(idx);
  tvm_tir_expr_obj* last = n ? tvm_ffi_seq_obj_at(idx, n - 1) : NULL;
  if (factor > 1 && last && last->dtype.lanes == 1 && n <= 64) {
    tvm_tir_expr_obj* one = tvm_tir_const_int(last->dtype, 1);
    tvm_tir_expr_obj* ramp = one ? tvm_tir_ramp_new(last, one, factor) : NULL;
    tvm_ffi_release(one);
    TVMFFIAny items[64];
    for (int64_t i = 0; i + 1 < n; ++i) items[i] = *tvm_ffi_seq_at(idx, i);
    items[n - 1] = tvm_ffi_any_obj(ramp);
    void* with_ramp = ramp ? tvm_ffi_array_new(items, n) : NULL;
    tvm_ffi_release(ramp);
    tvm_ffi_release(idx);
    idx = with_ramp;
    if (!idx) return tvm_script__relocate(p, &c->span);
  }
  tvm_tir_expr_obj* load = tvm_tir_buffer_load_new(b, idx);
  tvm_ffi_release(idx);
  if (!load) return tvm_script__relocate(p, &c->span);
  *out = tvm_ffi_any_obj(load);
  return 0;
}

/* `A.scope()` of a Buffer named A: its storage scope ("global" for the default), and
 * `A.access_ptr(...)` / `A.vload(...)` (above). 1 when c is no such call (the receiver, a name,
 * is only looked up: nothing is evaluated twice). */
static int buffer_method(script_parser* p, const ast_expr* c, TVMFFIAny* out) {
  const ast_expr* func = c->u.call.func;
  if (func->kind != AST_ATTR || func->u.attr.value->kind != AST_NAME) return 1;
  const TVMFFIAny* v = script__vt_lookup(&p->vt, func->u.attr.value->u.name);
  if (!v || !is_kind(v, TVM_TIR_KIND_Buffer)) return 1;
  if (name_is(func->u.attr.name, "access_ptr")) {
    return buffer_access_ptr(p, c, (const tvm_tir_buffer_obj*)v->v_obj, out);
  }
  if (name_is(func->u.attr.name, "vload")) {
    return buffer_vload(p, c, (tvm_tir_buffer_obj*)v->v_obj, out);
  }
  if (!name_is(func->u.attr.name, "scope")) return 1;
  if (c->u.call.args.n || c->u.call.kw_values.n) {
    return tvm_script__error_at(p, &c->span, "TypeError", "Buffer.scope() takes no arguments");
  }
  const char* scope = tvm_tir_buffer_scope((void*)v->v_obj);
  *out = tvm_ffi_string(scope && *scope ? scope : "global");
  return 0;
}

/* `x.astype(dtype)`, the method upstream's expressions have: of a Relax value in a Relax body
 * R.astype(x, dtype), of a PrimExpr its cast (T.Cast, folded for a constant). 1 when c is not
 * that call. */
static int astype_method(script_parser* p, const ast_expr* c, TVMFFIAny* out) {
  const ast_expr* func = c->u.call.func;
  if (func->kind != AST_ATTR || !name_is(func->u.attr.name, "astype")) return 1;
  TVMFFIAny self;
  if (tvm_script__eval(p, func->u.attr.value, &self) != 0) return -1;
  bool relax = p->token == SCRIPT_TOKEN_RELAX && tvm_script__is_relax_value(&self);
  if (!relax && !(tvm_ffi_any_is_object(&self) && tvm_script__is_expr(self.v_obj))) {
    tvm_ffi_any_release(&self);
    return 1;
  }
  int32_t nkw = c->u.call.kw_values.n;
  bool kw_ok = nkw == 0 || (nkw == 1 && name_is(c->u.call.kw_names[0], "dtype"));
  if (c->u.call.args.n + nkw != 1 || !kw_ok) {
    tvm_ffi_any_release(&self);
    return tvm_script__error_at(p, &c->span, "TypeError", "astype() takes one argument, dtype");
  }
  const ast_expr* arg = nkw ? c->u.call.kw_values.items[0] : c->u.call.args.items[0];
  TVMFFIAny dv;
  DLDataType t;
  int rc = tvm_script__eval(p, arg, &dv);
  if (rc == 0) {
    rc = tvm_script__value_to_dtype(&dv, "argument 'dtype' of astype", &t);
    tvm_ffi_any_release(&dv);
    if (rc != 0) rc = tvm_script__relocate(p, &arg->span);
  }
  if (rc == 0 && !relax) {
    tvm_tir_expr_obj* e = tvm_tir_cast(t, (tvm_tir_expr_obj*)self.v_obj);
    rc = e ? (*out = tvm_ffi_any_obj(e), 0) : tvm_script__relocate(p, &c->span);
  } else if (rc == 0) {
    TVMFFIAny k = tvm_ffi_string("dtype"), v = {.type_index = kTVMFFIDataType, .v_dtype = t};
    void* attrs = tvm_ffi_map_new(&k, &v, 1);
    tvm_ffi_any_release(&k);
    tvm_relax_expr_obj* e = attrs ? tvm_relax_call_op("relax.astype", attrs, 1, self.v_obj) : NULL;
    tvm_ffi_release(attrs);
    rc = e ? (*out = tvm_ffi_any_obj(e), 0) : tvm_script__relocate(p, &c->span);
  }
  tvm_ffi_any_release(&self);
  return rc;
}

/* `tvm.ir.load_json("""...""")`: the metadata section the printer writes before the module
 * (tvm/script/printer.h), read into the ffi.Map of type key to array that
 * `metadata["relax.expr.Constant"][i]` then indexes. 1 when c is not that call. */
static int metadata_load(script_parser* p, const ast_expr* c, TVMFFIAny* out) {
  const ast_expr* f = c->u.call.func;
  if (f->kind != AST_ATTR || !name_is(f->u.attr.name, "load_json")) return 1;
  const ast_expr* ir = f->u.attr.value;
  if (ir->kind != AST_ATTR || !name_is(ir->u.attr.name, "ir") ||
      ir->u.attr.value->kind != AST_NAME || root_module(p, ir->u.attr.value->u.name) != &kModTvm) {
    return 1;
  }
  if (c->u.call.args.n != 1 || c->u.call.kw_values.n != 0) {
    return tvm_script__error_at(p, &c->span, "TypeError",
                                "tvm.ir.load_json() takes one argument, the JSON text");
  }
  const ast_expr* arg = c->u.call.args.items[0];
  TVMFFIAny v;
  if (tvm_script__eval(p, arg, &v) != 0) return -1;
  TVMFFIByteArray text;
  int rc = 0;
  if (!tvm_ffi_any_as_bytes(&v, &text)) {
    rc = tvm_script__error_at(p, &arg->span, "TypeError",
                              "tvm.ir.load_json() takes a string, got %s", tvm_ffi_any_type_name(&v));
  } else {
    void* m = tvm_script_metadata_from_json(text.data, text.size);
    if (m) {
      *out = tvm_ffi_any_obj(m);
    } else {
      rc = tvm_script__relocate(p, &arg->span);
    }
  }
  tvm_ffi_any_release(&v);
  return rc;
}

/* A call of a Relax function value inside a Relax body: `cls.f(x)` (a GlobalVar), a local
 * function's Var, `R.ExternFunc(...)(x)`. Positional arguments, and `sinfo_args=(...)`, as the
 * printer writes a call that carries them (ComputePrimValue's calls of its PrimFuncs). */
static int call_relax_value(script_parser* p, const ast_expr* c, const TVMFFIAny* callee,
                            TVMFFIAny* out) {
  int32_t nkw = c->u.call.kw_values.n;
  if (nkw > 1 || (nkw == 1 && strcmp(c->u.call.kw_names[0]->text, "sinfo_args") != 0)) {
    const ast_expr* bad = c->u.call.kw_values.items[nkw > 1 && strcmp(c->u.call.kw_names[0]->text,
                                                                      "sinfo_args") == 0];
    return tvm_script__error_at(p, &bad->span, "TypeError",
                                "a call of a Relax function takes no keyword arguments but "
                                "sinfo_args");
  }
  arg_list args;
  arg_list_init(&args);
  int32_t npos = 0;
  int rc = eval_args(p, c, 0, false, false, &args, &npos);
  void* sinfo_args = NULL;
  if (rc == 0 && nkw == 1 && !tvm_ffi_any_is_none(&args.args[npos]) &&
      !(sinfo_args = tvm_script__relax_sinfo_list(&args.args[npos],
                                                  "argument 'sinfo_args' of a call", false))) {
    rc = tvm_script__relocate(p, &c->u.call.kw_values.items[0]->span);
  }
  if (rc == 0) {
    tvm_relax_expr_obj* r =
        tvm_script__relax_call_value(callee->v_obj, args.args, npos, sinfo_args, NULL);
    tvm_script__relax_note_inferred(p->b, r); /* (made by the inferring constructor) */
    if (r) {
      *out = tvm_ffi_any_obj(r);
    } else {
      rc = tvm_script__relocate(p, &c->span);
    }
  }
  tvm_ffi_release(sinfo_args);
  arg_list_free(&args);
  return rc;
}

/* The builtin `T.<name>` of a one-level callee (name interned), remembered on the name for the
 * rest of the parse (ast.h: script_name.builtin); NULL when the module has none of that name. */
static const tvm_script_builtin* tir_builtin(script_name* name, DLDataType* dtype,
                                            bool* has_dtype) {
  if (name->builtin_module != &kModTir) {
    name->builtin = tvm_script__tir_builtin_lookup_dtype(name->text, name->size,
                                                         &name->builtin_dtype,
                                                         &name->builtin_has_dtype);
    name->builtin_module = &kModTir;
  }
  *dtype = name->builtin_dtype;
  *has_dtype = name->builtin_has_dtype;
  return name->builtin;
}

/* tvm.cpu(dev_id=0), tvm.cuda(...), ...; tvm.device(dev_type, dev_id=0) with a device name
 * ("cuda", "cuda -arch=sm_80": the first word) or a DLPack device type: a DLDevice value, as
 * R.device makes (R.hint_on_device's device). `which` is the constructor's name. */
static int call_tvm_device(script_parser* p, const ast_expr* c, const char* which,
                           TVMFFIAny* out) {
  bool generic = strcmp(which, "device") == 0;
  const char* const params[2] = {generic ? "dev_type" : "dev_id", "dev_id"};
  int32_t nparams = generic ? 2 : 1, npos = c->u.call.args.n, nkw = c->u.call.kw_values.n;
  const ast_expr* given[2] = {NULL, NULL};
  if (npos > nparams) {
    return tvm_script__error_at(p, &c->span, "TypeError",
                                "tvm.%s() takes at most %d positional argument%s", which, nparams,
                                nparams == 1 ? "" : "s");
  }
  for (int32_t i = 0; i < npos; ++i) given[i] = c->u.call.args.items[i];
  for (int32_t k = 0; k < nkw; ++k) {
    const script_name* kw = c->u.call.kw_names[k];
    int32_t i = 0;
    while (i < nparams && !name_is(kw, params[i])) ++i;
    if (i == nparams || given[i]) {
      return tvm_script__error_at(p, &c->u.call.kw_values.items[k]->span, "TypeError",
                                  i == nparams ? "tvm.%s() got an unexpected keyword argument '%s'"
                                               : "tvm.%s() got multiple values for argument '%s'",
                                  which, kw->text);
    }
    given[i] = c->u.call.kw_values.items[k];
  }
  int64_t type = tvm_device_type_of(which, strlen(which), true), id = 0;
  const ast_expr* at = NULL;
  TVMFFIAny v = tvm_ffi_any_none();
  if (generic) {
    if (!given[0]) {
      return tvm_script__error_at(p, &c->span, "TypeError",
                                  "tvm.device() missing required argument 'dev_type'");
    }
    if (tvm_script__eval(p, given[0], &v) != 0) return -1;
    TVMFFIByteArray text;
    if (tvm_ffi_any_as_bytes(&v, &text)) {
      size_t word = 0;
      while (word < text.size && text.data[word] != ' ') ++word;
      type = tvm_device_type_of(text.data, word, false);
    } else if (!tvm_ffi_any_as_int(&v, &type) || type < 1 || type > INT32_MAX) {
      type = -1;
    }
    tvm_ffi_any_release(&v);
    if (type < 0) {
      return tvm_script__error_at(p, &given[0]->span, "ValueError",
                                  "tvm.device: unknown device type (a device name such as "
                                  "\"cpu\" or \"cuda\", or a DLPack device type >= 1)");
    }
  }
  if ((at = given[nparams - 1]) != NULL) {
    if (tvm_script__eval(p, at, &v) != 0) return -1;
    bool ok = tvm_ffi_any_as_int(&v, &id) && id >= 0 && id <= INT32_MAX;
    tvm_ffi_any_release(&v);
    if (!ok) {
      return tvm_script__error_at(p, &at->span, "TypeError",
                                  "tvm.%s: argument 'dev_id' must be a non-negative int", which);
    }
  }
  *out = tvm_ffi_any_device((DLDevice){(DLDeviceType)type, (int32_t)id});
  return 0;
}

int tvm_script__eval_call(script_parser* p, const ast_expr* c, tvm_script_call_ctx ctx,
                          const char* const* targets, int32_t num_targets, TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  const ast_expr* func = c->u.call.func;
  /* "T.<name>" (call->name): the dotted name is written after the prefix. */
  char full[130];
  char* name = full + 2;
  size_t n = 0;
  const script_special* mod = tvm_script__dotted(p, func, name, 128, &n);
  const tvm_script_builtin* fn = NULL;
  TVMFFIAny callee = tvm_ffi_any_none();
  DLDataType dtype = {0, 0, 0};
  bool has_dtype = false; /* `T.float32(...)`: the lookup read the dtype already */
  if (mod == &kModTir) {
    fn = func->u.attr.value->kind == AST_NAME
             ? tir_builtin(func->u.attr.name, &dtype, &has_dtype)
             : tvm_script__tir_builtin_lookup_dtype(name, n, &dtype, &has_dtype);
    if (!fn) {
      return tvm_script__error_at(p, &func->span, "AttributeError",
                                  "module 'tvm.script.tirx' has no attribute '%s'", name);
    }
  } else if (mod == &kModRelax) {
    /* `R.add`: looked up once per name and parse, remembered on the name as T.* builtins are. */
    script_name* one = func->u.attr.value->kind == AST_NAME ? func->u.attr.name : NULL;
    if (one && one->builtin_module != &kModRelax) {
      one->builtin = tvm_script__relax_builtin_lookup(one->text, one->size);
      one->builtin_module = &kModRelax;
    }
    fn = one ? one->builtin : tvm_script__relax_builtin_lookup(name, n);
    if (!fn) {
      return tvm_script__error_at(p, &func->span, "AttributeError",
                                  "module 'tvm.script.relax' has no attribute '%s'", name);
    }
  } else if (mod == &kModIr && (fn = tvm_script__ir_builtin_lookup(name, n)) != NULL) {
    /* I.vdevice, I.meta_var: builtins called like the T.* ones. */
  } else if (mod == &kTvmDevice) {
    return call_tvm_device(p, c, name, out);
  } else if (mod) {
    return call_ir(p, c, name, out);
  } else {
    int r = buffer_method(p, c, out);
    if (r <= 0) return r;
    if ((r = astype_method(p, c, out)) <= 0) return r;
    if ((r = metadata_load(p, c, out)) <= 0) return r;
    if (tvm_script__eval(p, func, &callee) != 0) return -1;
    if (p->token == SCRIPT_TOKEN_RELAX && tvm_ffi_any_is_object(&callee) &&
        (is_kind(&callee, TVM_TIR_KIND_GlobalVar) || tvm_relax_is_expr(callee.v_obj))) {
      int rc = call_relax_value(p, c, &callee, out);
      tvm_ffi_any_release(&callee);
      return rc;
    }
    if (!is_kind(&callee, TVM_TIR_KIND_GlobalVar)) {
      const script_special* sp = tvm_script__special_of(&callee);
      tvm_ffi_any_release(&callee);
      if (sp && sp->kind == SCRIPT_SPECIAL_FLOAT) return call_float(p, c, out);
      if (sp && sp->kind == SCRIPT_SPECIAL_RANGE) {
        return tvm_script__error_at(p, &c->span, "TypeError",
                                    "range() is only supported as a for loop's iterable");
      }
      return tvm_script__error_at(p, &func->span, "TypeError", "this object is not callable");
    }
  }
  if (fn == &tvm_script__tir_dtype_builtin && has_dtype && c->u.call.args.n == 1 &&
      p->eval_depth < SCRIPT_MAX_EVAL_DEPTH &&
      c->u.call.kw_values.n == 0 && c->u.call.args.items[0]->kind == AST_CONST &&
      is_py_number(&c->u.call.args.items[0]->u.value)) {
    /* `T.float32(1)`, `T.int64(4)`: a dtype constructor of one literal number, most of them.
     * The constructor would bind it as `expr` and, a number, make tvm_script__dtype_number of
     * it, an error of which it leaves unlocated for the call (error_arg -1), as here. */
    tvm_tir_expr_obj* e = tvm_script__dtype_number(&c->u.call.args.items[0]->u.value, dtype);
    if (!e) return tvm_script__relocate(p, &c->span);
    *out = tvm_ffi_any_obj(e);
    return 0;
  }
  arg_list args; /* positional arguments, then keyword values */
  arg_list_init(&args);
  int32_t npos = 0;
  int rc = eval_args(p, c, fn ? fn->shape_arg : 0, fn && fn->region_args,
                     fn && fn->relax_dims, &args, &npos);
  int32_t nkw = args.n - npos;
  if (rc == 0 && !fn) {
    rc = nkw ? tvm_script__error_at(p, &c->span, "TypeError",
                                    "a function call takes no keyword arguments")
             : call_global(p, c, &callee, &args, out);
  } else if (rc == 0) {
    const char* kw_names_stack[8];
    const char** kw_names =
        nkw <= 8 ? kw_names_stack : tvm_ffi_calloc((size_t)nkw, sizeof(char*));
    full[0] = mod == &kModIr ? 'I' : mod == &kModRelax ? 'R' : 'T';
    full[1] = '.';
    for (int32_t i = 0; kw_names && i < nkw; ++i) kw_names[i] = c->u.call.kw_names[i]->text;
    tvm_script_call call_info = {p->b,     full, ctx,      num_targets,      targets,   npos,
                                 args.args, nkw, kw_names, args.args + npos, -1,        has_dtype,
                                 dtype};
    if (!kw_names) {
      rc = tvm_script__relocate(p, &c->span);
    } else if (fn->fn(&call_info, out) != 0) {
      int32_t e = call_info.error_arg;
      const tvm_script_span* at = e >= 0 && e < args.n ? &args.nodes[e]->span : &c->span;
      *out = tvm_ffi_any_none();
      /* A lambda argument whose body failed raised a located error of its own. */
      bool located = tvm_script__lambdas_end(&args.lambdas[0], true) ||
                     tvm_script__lambdas_end(&args.lambdas[1], true);
      rc = located ? -1 : tvm_script__relocate(p, at);
    } else if ((args.lambdas[0] || args.lambdas[1]) &&
               (tvm_script__lambda_escaped(args.lambdas[0]) ||
                tvm_script__lambda_escaped(args.lambdas[1]))) {
      /* A builtin kept a lambda (T.attr's node, T.meta_var): it would outlive the parse. */
      tvm_ffi_any_release(out);
      *out = tvm_ffi_any_none();
      rc = tvm_script__error_at(p, &c->span, "NotImplementedError",
                                "%s() cannot keep a lambda; a lambda is only supported as an "
                                "argument that the builtin calls (T.comm_reducer, T.index_map)",
                                full);
    }
    if (kw_names != kw_names_stack) tvm_ffi_free(kw_names);
  }
  arg_list_free(&args);
  tvm_ffi_any_release(&callee);
  return rc;
}

/* What the NameError for n adds: why a name that looks defined is not visible here. */
static const char* undefined_name_hint(script_parser* p, const script_name* n, char* buf,
                                       size_t size) {
  if (n->relax_df_local) {
    return " (a dataflow variable is visible after its block only when R.output names it)";
  }
  if (name_is(n, "metadata")) {
    return " (the text has no metadata section, `metadata = tvm.ir.load_json(...)`: print it "
           "with show_meta)";
  }
  if (tvm_script__ir_module_declares(p->b, n->text)) {
    snprintf(buf, size, " (the module's function is reached as `cls.%s` or through the class "
             "name)", n->text);
    return buf;
  }
  return "";
}

/* NameError at the name e, with its hint. */
static __attribute__((noinline)) TVM_FFI_COLD int name_error(script_parser* p,
                                                             const ast_expr* e) {
  char buf[256];
  const script_name* n = e->u.name;
  return tvm_script__error_at(p, &e->span, "NameError", "name '%s' is not defined%s", n->text,
                              undefined_name_hint(p, n, buf, sizeof(buf)));
}

/* ---- The dispatch over expression kinds ----------------------------------------------------- */
static int eval_kind(script_parser* p, const ast_expr* e, TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  const tvm_script_span* at = &e->span;
  switch (e->kind) {
    case AST_CONST:
      *out = e->u.value;
      return 0;
    case AST_STR:
      return eval_str(p, e, out);
    case AST_NAME:
      if (resolve_name(p, e->u.name, out)) return 0;
      return name_error(p, e);
    case AST_ATTR:
      return eval_attr(p, e, out);
    case AST_SUBSCRIPT:
      return tvm_script__eval_index(p, e, out);
    case AST_CALL:
      return tvm_script__eval_call(p, e, TVM_SCRIPT_CTX_EXPR, NULL, 0, out);
    case AST_OP:
      return eval_operation(p, e, out);
    case AST_TUPLE:
    case AST_LIST:
      return eval_seq(p, e->u.elts, out);
    case AST_DICT:
      return eval_dict(p, e, out);
    case AST_LAMBDA:
      return tvm_script__error_at(p, at, "NotImplementedError",
                                  "a lambda is only supported as an argument of a T.* call "
                                  "(T.comm_reducer)");
    case AST_SLICE:
      return tvm_script__error_at(p, at, "SyntaxError", "a slice is only valid in a subscript");
    case AST_STARRED:
      return tvm_script__error_at(p, at, "SyntaxError",
                                  "a starred expression is only valid as a call argument");
    default:
      return tvm_script__error_at(p, at, "RuntimeError",
                                  "internal error: an expression node of kind %d", e->kind);
  }
}

int tvm_script__eval(script_parser* p, const ast_expr* e, TVMFFIAny* out) {
  /* The leaves first: a literal and a bound name (most evaluations) recurse no further (below
   * the depth bound; at it, they are reported as anything else). */
  if (__builtin_expect(p->eval_depth < SCRIPT_MAX_EVAL_DEPTH, 1)) {
    if (e->kind == AST_CONST) {
      *out = e->u.value;
      return 0;
    }
    if (e->kind == AST_NAME && e->u.name->binding >= 0) {
      *out = tvm_ffi_any_copy(&p->vt.binds[e->u.name->binding].value);
      return 0;
    }
  }
  /* The front end bounds its recursion, not the depth of the tree it builds: `a + a + ... + a`
   * is a left-deep chain as long as the line. Bound the evaluation (and so the depth of the IR
   * built, which every later recursive pass walks) instead of overflowing the stack. */
  if (p->eval_depth >= SCRIPT_MAX_EVAL_DEPTH) {
    *out = tvm_ffi_any_none();
    return tvm_script__error_at(p, &e->span, "SyntaxError",
                                "expression nested too deeply (more than %d levels)",
                                SCRIPT_MAX_EVAL_DEPTH);
  }
  ++p->eval_depth;
  int rc = eval_kind(p, e, out);
  --p->eval_depth;
  return rc;
}

tvm_tir_expr_obj* tvm_script__eval_expr(script_parser* p, const ast_expr* e) {
  TVMFFIAny v;
  if (tvm_script__eval(p, e, &v) != 0) return NULL;
  tvm_tir_expr_obj* x = script__to_expr(&v, NULL);
  tvm_ffi_any_release(&v);
  if (!x) tvm_script__relocate(p, &e->span);
  return x;
}

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
#include "thread_exit.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>

/* ---- Doc kinds ----------------------------------------------------------------------------- */
int32_t tvm_script__doc_type_index[TVM_SCRIPT_DOC_COUNT];
int32_t tvm_script__doc_kind_base;
int16_t tvm_script__doc_kind_by_index[SCRIPT_DOC_KIND_SPAN];
bool tvm_script__doc_kind_table_ok;

void tvm_script__init_doc_kinds(void) {
  /* -1 (registration failed: the front end then fails every parse first) matches no object. */
  int32_t lo = INT32_MAX;
  for (int k = 0; k < TVM_SCRIPT_DOC_COUNT; ++k) {
    int32_t t = tvm_script_doc_type_index((tvm_script_doc_kind)k);
    tvm_script__doc_type_index[k] = t;
    if (t >= 0 && t < lo) lo = t;
  }
  for (int i = 0; i < SCRIPT_DOC_KIND_SPAN; ++i) tvm_script__doc_kind_by_index[i] = TVM_SCRIPT_DOC_NONE;
  tvm_script__doc_kind_base = lo;
  bool ok = true;
  for (int k = 0; k < TVM_SCRIPT_DOC_COUNT; ++k) {
    int32_t t = tvm_script__doc_type_index[k];
    /* The kinds are registered together, so their indices are close; otherwise (or when the
     * registration failed) script__kind_of asks the registry. */
    if (t >= 0 && t - lo < SCRIPT_DOC_KIND_SPAN) {
      tvm_script__doc_kind_by_index[t - lo] = (int16_t)k;
    } else {
      ok = false;
    }
  }
  tvm_script__doc_kind_table_ok = ok;
}

/* ---- Special values ----------------------------------------------------------------------- */
static const script_special kModTir = {SCRIPT_SPECIAL_MODULE, "tirx"};
static const script_special kModIr = {SCRIPT_SPECIAL_MODULE, "ir"};
static const script_special kModRelax = {SCRIPT_SPECIAL_MODULE, "relax"};
static const script_special kCls = {SCRIPT_SPECIAL_CLS, "cls"};
static const script_special kRange = {SCRIPT_SPECIAL_RANGE, "range"};
static const script_special kFloat = {SCRIPT_SPECIAL_FLOAT, "float"};

const script_special* tvm_script__special_of(const TVMFFIAny* v) {
  if (v->type_index != kTVMFFIOpaquePtr) return NULL;
  const void* q = v->v_ptr;
  if (q == &kModTir || q == &kModIr || q == &kModRelax || q == &kCls || q == &kRange || q == &kFloat) return q;
  return NULL;
}

static TVMFFIAny special_value(const script_special* s) { return tvm_ffi_any_ptr((void*)s); }

TVMFFIAny tvm_script__cls_value(void) { return special_value(&kCls); }

/* ---- Errors -------------------------------------------------------------------------------- */
static tvm_script_span span_of(const void* doc) {
  tvm_script_span s = {0, 0, 0, 0, -1, -1};
  return doc ? ((const tvm_script_doc_obj*)doc)->span : s;
}

int tvm_script__error_at(script_parser* p, const void* doc, const char* kind, const char* fmt, ...) {
  tvm_ffi_strbuf msg = {0};
  va_list ap;
  va_start(ap, fmt);
  tvm_ffi_strbuf_vprintf(&msg, fmt, ap);
  va_end(ap);
  tvm_script_diag_raise(kind, p->src, p->len, p->filename, span_of(doc), "%s",
                        tvm_ffi_strbuf_cstr(&msg));
  tvm_ffi_strbuf_free(&msg);
  return -1;
}

int tvm_script__relocate(script_parser* p, const void* doc) {
  void* err = tvm_ffi_error_take();
  if (!err) {
    return tvm_script__error_at(p, doc, "RuntimeError", "internal error: failure without an error");
  }
  tvm_script_diag_raise(tvm_ffi_error_kind(err), p->src, p->len, p->filename, span_of(doc), "%s",
                        tvm_ffi_error_message(err));
  tvm_ffi_release(err);
  return -1;
}

/* ---- Names --------------------------------------------------------------------------------- */
static bool name_is(const char* s, uint32_t n, const char* lit) {
  return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static const script_special* module_marker(const char* module, size_t n) {
  if ((n == 4 && memcmp(module, "tirx", 4) == 0) || (n == 3 && memcmp(module, "tir", 3) == 0)) {
    return &kModTir;
  }
  if (n == 2 && memcmp(module, "ir", 2) == 0) return &kModIr;
  if (n == 5 && memcmp(module, "relax", 5) == 0) return &kModRelax;
  return NULL;
}

static bool resolve_unbound(script_parser* p, TVMFFIByteArray s, TVMFFIAny* out);

/* Resolve a name into *out (owned copy); false when undefined. */
static bool resolve_name(script_parser* p, const void* name_str, TVMFFIAny* out) {
  TVMFFIByteArray s = tvm_ffi_str_view(name_str);
  const TVMFFIAny* v = script__vt_lookup(&p->vt, s.data, (uint32_t)s.size);
  if (v) {
    *out = tvm_ffi_any_copy(v);
    return true;
  }
  return resolve_unbound(p, s, out);
}

static const script_special* root_module_slow(script_parser* p, const void* name_str, size_t c);

/* The builtins of `T.<name>(...)` calls by the name's string object, per thread and across
 * parses: the front end takes identifier Strings from a per-thread table that outlives a parse
 * (parse.c), so a later parse meets the same objects. What a name resolves to in the tir
 * builtin table depends only on its text (constant data), and each entry holds a reference to
 * its key so that the address cannot be reused by another String while it keys an entry
 * (Strings are immutable: an entry's text never changes). Whether the root is `T` is still
 * decided per parse (root_module). Direct-mapped; a miss looks the name up and replaces the
 * slot. The references are dropped at thread exit (thread_exit.h). */
typedef struct {
  struct {
    void* name;     /* ffi.String of the attribute name (a reference), NULL = empty */
    const void* fn; /* const tvm_script_builtin* */
    DLDataType dtype;
    bool has_dtype;
  } e[512]; /* (64 made the ~100 names of the corpus evict each other: 4 misses a parse) */
  bool registered; /* the thread-exit release is armed */
} builtin_cache;
static __thread builtin_cache t_builtins;

static void builtin_cache_free(void* arg) {
  builtin_cache* c = arg;
  c->registered = false;
  for (size_t i = 0; i < sizeof(c->e) / sizeof(c->e[0]); ++i) {
    void* name = c->e[i].name;
    c->e[i].name = NULL;
    tvm_ffi_release(name);
  }
}
/* Arms the thread-exit release; false if it cannot be (then nothing is cached). */
static __attribute__((noinline)) bool builtin_cache_register(builtin_cache* c) {
  return c->registered = tvm_script__at_thread_exit(builtin_cache_free, c);
}

/* The module a dotted name's root (an IdDoc's name) resolves to, or NULL. */
static inline const script_special* root_module(script_parser* p, const void* name_str) {
  const script_var_table* vt = &p->vt;
  size_t c = ((uintptr_t)name_str >> 4) & 3;
  if (p->root_cache[c].name == name_str && p->root_cache[c].cap == vt->cap &&
      !vt->slots[p->root_cache[c].slot].name) {
    return p->root_cache[c].module; /* still unbound: resolves as it did */
  }
  return root_module_slow(p, name_str, c);
}

/* Whether name s is the alias a (a short identifier, "T": compared inline, not by memcmp). */
static inline bool alias_is(const script_alias* a, TVMFFIByteArray s) {
  if (a->size != s.size) return false;
  for (size_t i = 0; i < s.size; ++i) {
    if (a->name[i] != s.data[i]) return false;
  }
  return true;
}

static __attribute__((noinline)) const script_special* root_module_slow(script_parser* p,
                                                                        const void* name_str,
                                                                        size_t c) {
  const script_var_table* vt = &p->vt;
  TVMFFIByteArray s = tvm_ffi_str_view(name_str);
  uint32_t empty;
  const TVMFFIAny* v = tvm_script__vt_lookup_slot(vt, s.data, (uint32_t)s.size, &empty);
  const script_special* sp = NULL;
  if (v) {
    sp = tvm_script__special_of(v); /* (borrowed: only its kind is read) */
  } else {
    /* An import alias (most roots: `T`, `I`) is what resolve_unbound finds first; the rest
     * through it. */
    bool found = false;
    for (int i = 0; i < p->num_aliases; ++i) {
      if (alias_is(&p->aliases[i], s)) {
        sp = p->aliases[i].module;
        found = true;
        break;
      }
    }
    if (!found) {
      TVMFFIAny root;
      if (!resolve_unbound(p, s, &root)) return NULL;
      sp = tvm_script__special_of(&root);
      tvm_ffi_any_release(&root);
    }
  }
  if (!sp || sp->kind != SCRIPT_SPECIAL_MODULE) return NULL;
  if (!v && empty != UINT32_MAX) {
    p->root_cache[c].name = name_str;
    p->root_cache[c].slot = empty;
    p->root_cache[c].cap = vt->cap;
    p->root_cache[c].module = sp;
  }
  return sp;
}

/* resolve_name for a name without a variable binding: the imports, extra_vars and Python's
 * names, all fixed for the parse. */
static bool resolve_unbound(script_parser* p, TVMFFIByteArray s, TVMFFIAny* out) {
  const TVMFFIAny* v;
  if (p->num_aliases >= 0) {
    /* The imports naming a module, listed once (tvm_script__init_aliases); an import of anything
     * else resolves to nothing here, as below. */
    for (int i = 0; i < p->num_aliases; ++i) {
      const script_alias* a = &p->aliases[i];
      if (alias_is(a, s)) {
        *out = special_value(a->module);
        return true;
      }
    }
  } else if (p->imports && (v = tvm_ffi_map_get_str(p->imports, s.data))) {
    TVMFFIByteArray m;
    const script_special* sp = tvm_ffi_any_as_bytes(v, &m) ? module_marker(m.data, m.size) : NULL;
    if (sp) {
      *out = special_value(sp);
      return true;
    }
  }
  if (p->extra_vars && (v = tvm_ffi_map_get_str(p->extra_vars, s.data))) {
    *out = tvm_ffi_any_copy(v);
    return true;
  }
  uint32_t n = (uint32_t)s.size;
  if (name_is(s.data, n, "range")) {
    *out = special_value(&kRange);
    return true;
  }
  if (name_is(s.data, n, "float")) {
    *out = special_value(&kFloat);
    return true;
  }
  if (name_is(s.data, n, "True") || name_is(s.data, n, "False")) {
    *out = tvm_ffi_any_bool(s.data[0] == 'T');
    return true;
  }
  if (name_is(s.data, n, "None")) {
    *out = tvm_ffi_any_none();
    return true;
  }
  /* Without an import header (a printed fragment), the printer's default prefixes. */
  if (!p->has_imports) {
    const script_special* sp = name_is(s.data, n, "T")   ? &kModTir
                               : name_is(s.data, n, "I") ? &kModIr
                               : name_is(s.data, n, "R") ? &kModRelax
                                                         : NULL;
    if (sp) {
      *out = special_value(sp);
      return true;
    }
  }
  return false;
}

void tvm_script__init_aliases(script_parser* p, const tvm_script__import* list, size_t n) {
  p->num_aliases = 0;
  if (!p->imports) {
    /* The header's list (n <= SCRIPT_MAX_ALIASES): a repeated alias takes the last module in
     * the place of its first use, as the map of them would. */
    p->has_imports = n != 0;
    for (size_t i = 0; i < n; ++i) {
      const char* name = p->src + list[i].alias;
      uint32_t size = list[i].alias_n;
      const script_special* sp = module_marker(p->src + list[i].mod, list[i].mod_n);
      int j = 0;
      while (j < p->num_aliases &&
             !(p->aliases[j].size == size && memcmp(p->aliases[j].name, name, size) == 0)) {
        ++j;
      }
      if (j < p->num_aliases) {
        if (sp) {
          p->aliases[j].module = sp;
        } else { /* (the front end takes only TVMScript modules; kept exact anyway) */
          memmove(&p->aliases[j], &p->aliases[j + 1],
                  (size_t)(p->num_aliases - j - 1) * sizeof(p->aliases[0]));
          --p->num_aliases;
        }
      } else if (sp) {
        p->aliases[p->num_aliases++] = (script_alias){name, size, sp};
      }
    }
    return;
  }
  p->has_imports = tvm_ffi_map_size(p->imports) != 0;
  if (!p->has_imports) return;
  const TVMFFIAny *k, *v;
  for (int64_t pos = tvm_ffi_map_next(p->imports, 0, &k, &v); pos >= 0;
       pos = tvm_ffi_map_next(p->imports, pos, &k, &v)) {
    TVMFFIByteArray key, m;
    const script_special* sp = tvm_ffi_any_as_bytes(v, &m) ? module_marker(m.data, m.size) : NULL;
    /* Only string keys without a NUL could equal a name (the map was asked by C string). */
    bool str_key = k->type_index != kTVMFFIBytes && k->type_index != kTVMFFISmallBytes &&
                   tvm_ffi_any_as_bytes(k, &key);
    for (size_t i = 0; str_key && i < key.size; ++i) str_key = key.data[i] != 0; /* (short) */
    if (!sp || !str_key) continue;
    if (p->num_aliases == SCRIPT_MAX_ALIASES) {
      p->num_aliases = -1;
      return;
    }
    p->aliases[p->num_aliases++] = (script_alias){key.data, (uint32_t)key.size, sp};
  }
}

const script_special* tvm_script__dotted(script_parser* p, const script_doc* d, char* buf,
                                     size_t bufsize, size_t* out_len) {
  if (script__is_kind(d, TVM_SCRIPT_DOC_AttrAccessDoc) &&
      script__is_kind(((const tvm_script_attr_doc_obj*)d)->value, TVM_SCRIPT_DOC_IdDoc)) {
    /* One level (`T.float32`, most names): what the walk below does for it. */
    const tvm_script_attr_doc_obj* a = (const void*)d;
    const script_special* sp = root_module(p, ((const tvm_script_id_doc_obj*)a->value)->name);
    TVMFFIByteArray s = tvm_ffi_str_view(a->name);
    if (!sp || s.size + 2 > bufsize) return NULL;
    memcpy(buf, s.data, s.size);
    buf[s.size] = '\0';
    *out_len = s.size;
    return sp;
  }
  /* Collect the attribute names from the outside in, then write them in order. */
  const void* names[16];
  int n = 0;
  while (script__is_kind(d, TVM_SCRIPT_DOC_AttrAccessDoc)) {
    if (n == 16) return NULL;
    const tvm_script_attr_doc_obj* a = (const void*)d;
    names[n++] = a->name;
    d = a->value;
  }
  if (n == 0 || !script__is_kind(d, TVM_SCRIPT_DOC_IdDoc)) return NULL;
  const script_special* sp = root_module(p, ((const tvm_script_id_doc_obj*)d)->name);
  if (!sp) return NULL;
  size_t len = 0;
  for (int i = n - 1; i >= 0; --i) {
    TVMFFIByteArray s = tvm_ffi_str_view(names[i]);
    if (len + s.size + 2 > bufsize) return NULL;
    if (i != n - 1) buf[len++] = '.';
    memcpy(buf + len, s.data, s.size);
    len += s.size;
  }
  buf[len] = '\0';
  *out_len = len;
  return sp;
}

bool tvm_script__is_let_annotation(script_parser* p, const script_doc* ann) {
  char buf[64];
  size_t n;
  const script_special* sp = tvm_script__dotted(p, ann, buf, sizeof(buf), &n);
  return sp == &kModTir && n == 3 && memcmp(buf, "let", 3) == 0;
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
        r = tvm_script__const_int(t, v->v_int64);
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
static int py_int_op(script_parser* p, const void* d, int op, int64_t a, int64_t b,
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
        return tvm_script__error_at(p, d, "ZeroDivisionError", "integer division or modulo by zero");
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

static int py_float_op(script_parser* p, const void* d, int op, double a, double b,
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
static int apply_binop(script_parser* p, const void* d, int op, const TVMFFIAny* a,
                       const TVMFFIAny* b, TVMFFIAny* out) {
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
      eq = tvm_script__as_dtype(a, &ta) && tvm_script__as_dtype(b, &tb) && tvm_tir_dtype_equal(ta, tb);
    } else {
      eq = strs ? sa.size == sb.size && memcmp(sa.data, sb.data, sa.size) == 0
                : tvm_ffi_any_equal(a, b);
    }
    *out = tvm_ffi_any_bool(eq == (op == TVM_SCRIPT_OP_Eq));
    return 0;
  }
unsupported:
  return tvm_script__error_at(p, d, "TypeError", "unsupported operand type(s) for %s: '%s' and '%s'",
                          tvm_script_op_text(op), tvm_ffi_any_type_name(a),
                          tvm_ffi_any_type_name(b));
}

/* ---- Expressions --------------------------------------------------------------------------- */
static int eval_operation(script_parser* p, const tvm_script_operation_doc_obj* d, TVMFFIAny* out) {
  const void* ops = d->operands;
  int64_t n = tvm_ffi_seq_size(ops);
  int op = d->op;
  if (tvm_script_op_arity(op) != n) {
    return tvm_script__error_at(p, d, "SyntaxError", "malformed operation");
  }
  const script_doc* o0 = tvm_ffi_seq_obj_at(ops, 0);
  TVMFFIAny a = tvm_ffi_any_none(), b = tvm_ffi_any_none();
  int rc = -1;
  if (op == TVM_SCRIPT_OP_IfThenElse) {
    /* `x if c else y`: a Python condition picks one side (the other is not evaluated); a
     * PrimExpr condition gives tir.if_then_else. */
    TVMFFIAny c = tvm_ffi_any_none();
    if (tvm_script__eval(p, tvm_ffi_seq_obj_at(ops, 1), &c) != 0) return -1;
    if (!is_prim_expr(&c)) {
      bool t = tvm_script__truthy(&c);
      tvm_ffi_any_release(&c);
      return tvm_script__eval(p, tvm_ffi_seq_obj_at(ops, t ? 0 : 2), out);
    }
    if (tvm_script__eval(p, o0, &a) == 0 && tvm_script__eval(p, tvm_ffi_seq_obj_at(ops, 2), &b) == 0) {
      if ((!is_prim_expr(&a) && !is_py_number(&a)) || (!is_prim_expr(&b) && !is_py_number(&b))) {
        tvm_script__error_at(p, d, "TypeError",
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
          tvm_script__relocate(p, d);
        }
      }
    }
    tvm_ffi_any_release(&c);
    goto done;
  }
  if (tvm_script__eval(p, o0, &a) != 0) return -1;
  if (n == 1) {
    if (is_prim_expr(&a)) {
      tvm_tir_expr_obj* e = (void*)a.v_obj;
      tvm_tir_expr_obj* r =
          op == TVM_SCRIPT_OP_USub ? tvm_tir_neg(e)
          : op == TVM_SCRIPT_OP_Not
              ? tvm_tir_not(e)
              : tvm_tir_call_builtin(e->dtype, TVM_TIR_BUILTIN_bitwise_not, &e, 1);
      if (!r) {
        tvm_script__relocate(p, d);
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
        tvm_script__error_at(p, d, "OverflowError", "integer result does not fit in 64 bits");
      } else {
        *out = tvm_ffi_any_int(op == TVM_SCRIPT_OP_USub ? -a.v_int64 : ~a.v_int64);
        rc = 0;
      }
    } else {
      tvm_script__error_at(p, d, "TypeError", "bad operand type for unary %s: '%s'",
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
    return tvm_script__eval(p, tvm_ffi_seq_obj_at(ops, 1), out);
  }
  if (tvm_script__eval(p, tvm_ffi_seq_obj_at(ops, 1), &b) == 0) rc = apply_binop(p, d, op, &a, &b, out);
done:
  tvm_ffi_any_release(&a);
  tvm_ffi_any_release(&b);
  return rc;
}

/* Evaluate d as a value that may be stored (in a tuple, list or dict, or passed to a builtin):
 * the parser's own markers (`T`, `I`, `cls`, `range`) are not values and must not reach IR. */
static __attribute__((noinline)) int eval_storable_slow(script_parser* p, const void* d,
                                                        TVMFFIAny* out);

static int eval_storable(script_parser* p, const void* d, TVMFFIAny* out) {
  /* A literal (most elements and arguments) inline: its value is what tvm_script__eval gives below
   * the depth bound (a number, string, bool or None, never a marker). The rest is a tail call,
   * so that this path needs no stack frame (as in tvm_script__eval). */
  if (__builtin_expect(p->eval_depth < SCRIPT_MAX_EVAL_DEPTH, 1) && d &&
      tvm_ffi_type_index(d) == tvm_script__doc_type_index[TVM_SCRIPT_DOC_LiteralDoc]) {
    const TVMFFIAny* v = &((const tvm_script_literal_doc_obj*)d)->value;
    if (v->type_index != kTVMFFIOpaquePtr) { /* (never one: checked as below) */
      *out = tvm_ffi_any_copy(v);
      return 0;
    }
  }
  return eval_storable_slow(p, d, out);
}

static int eval_storable_slow(script_parser* p, const void* d, TVMFFIAny* out) {
  if (tvm_script__eval(p, d, out) != 0) return -1;
  if (out->type_index != kTVMFFIOpaquePtr) return 0; /* markers are opaque pointers */
  const script_special* sp = tvm_script__special_of(out);
  if (!sp) return 0;
  *out = tvm_ffi_any_none();
  return tvm_script__error_at(p, d, "TypeError", "`%s` cannot be used as a value here",
                          sp->kind == SCRIPT_SPECIAL_MODULE ? "module" : sp->name);
}

/* Evaluate the elements of a sequence doc into an ffi.Array. */
static int eval_seq(script_parser* p, const void* elements, TVMFFIAny* out) {
  int64_t n = elements ? tvm_ffi_seq_size(elements) : 0;
  TVMFFIAny stack_items[8];
  TVMFFIAny* items = n <= 8 ? stack_items : tvm_ffi_calloc((size_t)n, sizeof(TVMFFIAny));
  if (!items) return -1;
  int64_t done = 0;
  int rc = 0;
  for (; done < n; ++done) {
    if (eval_storable(p, tvm_ffi_seq_obj_at(elements, done), &items[done]) != 0) {
      rc = -1;
      break;
    }
  }
  void* arr = NULL;
  if (rc == 0) {
    arr = tvm_ffi_array_new_take(items, n);
    if (!arr) rc = -1;
  }
  for (int64_t i = 0; i < done; ++i) tvm_ffi_any_release(&items[i]);
  if (items != stack_items) tvm_ffi_free(items);
  if (arr) *out = tvm_ffi_any_obj(arr);
  return rc;
}

static int eval_dict(script_parser* p, const tvm_script_dict_doc_obj* d, TVMFFIAny* out) {
  int64_t n = tvm_ffi_seq_size(d->keys);
  if (n <= 8) {
    /* The Map made at once from the evaluated entries (later duplicates replacing earlier
     * values in place, as the Dict's sets did), without a Dict to fill and copy. Evaluating
     * cannot make an entry the map rejects, so errors are the evaluation's, in its order. */
    TVMFFIAny keys[8] = {{0}}, values[8] = {{0}}; /* (None: what map_new may be given) */
    int64_t done = 0;
    int rc = 0;
    for (; done < n; ++done) {
      rc = eval_storable(p, tvm_ffi_seq_obj_at(d->keys, done), &keys[done]);
      if (rc == 0) rc = eval_storable(p, tvm_ffi_seq_obj_at(d->values, done), &values[done]);
      if (rc != 0) {
        ++done; /* (release this entry's key too) */
        break;
      }
    }
    void* map = rc == 0 ? tvm_ffi_map_new(keys, values, n) : NULL;
    for (int64_t i = 0; i < done; ++i) {
      tvm_ffi_any_release(&keys[i]);
      tvm_ffi_any_release(&values[i]);
    }
    if (rc != 0) return -1;
    if (!map) return tvm_script__relocate(p, d);
    *out = tvm_ffi_any_obj(map);
    return 0;
  }
  void* dict = tvm_ffi_dict_new();
  if (!dict) return tvm_script__relocate(p, d);
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny k = tvm_ffi_any_none(), v = tvm_ffi_any_none();
    int rc = eval_storable(p, tvm_ffi_seq_obj_at(d->keys, i), &k);
    if (rc == 0) rc = eval_storable(p, tvm_ffi_seq_obj_at(d->values, i), &v);
    if (rc == 0 && tvm_ffi_dict_set(dict, &k, &v) != 0) rc = tvm_script__relocate(p, d);
    tvm_ffi_any_release(&k);
    tvm_ffi_any_release(&v);
    if (rc != 0) {
      tvm_ffi_release(dict);
      return -1;
    }
  }
  void* map = tvm_ffi_dict_to_map(dict);
  tvm_ffi_release(dict);
  if (!map) return tvm_script__relocate(p, d);
  *out = tvm_ffi_any_obj(map);
  return 0;
}

/* value.name: module attributes (T.float32 is a dtype), `cls.f`, and fields of IR objects
 * (`A.data`, `A.shape`, `A.strides`, `A.elem_offset`, `A.dtype`, ...) by reflection. */
static int eval_attr(script_parser* p, const tvm_script_attr_doc_obj* d, TVMFFIAny* out) {
  char buf[128];
  size_t n;
  const script_special* mod = tvm_script__dotted(p, (const script_doc*)d, buf, sizeof(buf), &n);
  if (mod) {
    if (mod == &kModTir) {
      DLDataType t;
      if (tvm_script__tir_dtype_name(buf, n, &t)) {
        *out = tvm_ffi_any_dtype(t);
        return 0;
      }
      if (tvm_script__tir_builtin_lookup(buf, n)) {
        return tvm_script__error_at(p, d, "TypeError", "T.%s is a function: call it", buf);
      }
      /* `T.axis` of `T.axis.spatial` is only reached through the whole dotted name. */
      return tvm_script__error_at(p, d, "AttributeError",
                              "module 'tvm.script.tirx' has no attribute '%s'", buf);
    }
    if (mod == &kModRelax) {
      return tvm_script__error_at(p, d, "NotImplementedError",
                              "Relax (R.%s) is not supported by this parser yet", buf);
    }
    return tvm_script__error_at(p, d, "AttributeError", "module 'tvm.script.ir' has no attribute '%s'",
                            buf);
  }
  TVMFFIAny v = tvm_ffi_any_none();
  if (tvm_script__eval(p, d->value, &v) != 0) return -1;
  TVMFFIByteArray name = tvm_ffi_str_view(d->name);
  const script_special* sp = tvm_script__special_of(&v);
  int rc = -1;
  if (sp && sp->kind == SCRIPT_SPECIAL_CLS) {
    tvm_tir_global_var_obj* gv = tvm_script_ir_module_global_var(p->b, name.data);
    if (gv) {
      *out = tvm_ffi_any_obj(gv);
      rc = 0;
    } else {
      tvm_script__relocate(p, d);
    }
  } else if (tvm_ffi_any_is_object(&v)) {
    const TVMFFIFieldInfo* f = tvm_ffi_type_find_field(v.type_index, name.data);
    if (f) {
      rc = tvm_ffi_field_get(v.v_obj, f, out) == 0 ? 0 : tvm_script__relocate(p, d);
      /* A Buffer's scope lives on its data pointer's type. */
    } else if (is_kind(&v, TVM_TIR_KIND_Buffer) && strcmp(name.data, "scope") == 0) {
      *out = tvm_ffi_string(tvm_tir_buffer_scope((void*)v.v_obj));
      rc = 0;
    } else {
      tvm_script__error_at(p, d, "AttributeError", "'%s' object has no attribute '%s'",
                       tvm_ffi_any_type_name(&v), name.data);
    }
  } else {
    tvm_script__error_at(p, d, "AttributeError", "'%s' object has no attribute '%s'",
                     tvm_ffi_any_type_name(&v), name.data);
  }
  tvm_ffi_any_release(&v);
  return rc;
}

/* ---- Calls --------------------------------------------------------------------------------- */
typedef struct {
  TVMFFIAny* args;
  const script_doc** arg_docs; /* the doc each positional arg came from */
  int32_t n, cap;
  TVMFFIAny stack_args[8];
  const script_doc* stack_docs[8];
  /* The lambda arguments (parse_lambda.h): [0] positional ones, [1] keyword values. */
  script_lambda* lambdas[2];
} arg_list;

/* Double the room of l (past its 8 places on the stack). */
static __attribute__((noinline)) int arg_grow(arg_list* l) {
  int32_t cap = l->cap * 2;
  TVMFFIAny* a = tvm_ffi_calloc((size_t)cap, sizeof(TVMFFIAny));
  const script_doc** ds = tvm_ffi_calloc((size_t)cap, sizeof(void*));
  if (!a || !ds) {
    tvm_ffi_free(a);
    tvm_ffi_free(ds);
    return -1;
  }
  memcpy(a, l->args, (size_t)l->n * sizeof(TVMFFIAny));
  memcpy(ds, l->arg_docs, (size_t)l->n * sizeof(void*));
  if (l->args != l->stack_args) tvm_ffi_free(l->args);
  if (l->arg_docs != l->stack_docs) tvm_ffi_free((void*)l->arg_docs);
  l->args = a;
  l->arg_docs = ds;
  l->cap = cap;
  return 0;
}

static inline int arg_push(arg_list* l, TVMFFIAny* v, const script_doc* d) {
  if (__builtin_expect(l->n == l->cap, 0) && arg_grow(l) != 0) return -1;
  l->args[l->n] = *v;
  l->arg_docs[l->n++] = d;
  *v = tvm_ffi_any_none();
  return 0;
}

static void arg_list_free(arg_list* l) {
  /* (most calls have none) */
  if (l->lambdas[0]) tvm_script__lambdas_end(&l->lambdas[0], false);
  if (l->lambdas[1]) tvm_script__lambdas_end(&l->lambdas[1], false);
  for (int32_t i = 0; i < l->n; ++i) tvm_ffi_any_release(&l->args[i]);
  if (l->args != l->stack_args) tvm_ffi_free(l->args);
  if (l->arg_docs != l->stack_docs) tvm_ffi_free((void*)l->arg_docs);
}

/* A tuple / list argument in a builtin's shape place (tvm_script_builtin.shape_arg): the
 * elements evaluated as eval_seq does, then, when every one is a Python number or a PrimExpr,
 * each converted by tvm_script__value_to_expr_slow as the builtin's tvm_script__value_to_expr_array
 * would (they all convert), so that the builtin shares this Array. Otherwise (a string, a
 * nested tuple, ...) the elements are left for the builtin to convert or reject. */
static int eval_shape_seq(script_parser* p, const script_doc* d, TVMFFIAny* out) {
  const void* elements = ((const tvm_script_seq_doc_obj*)d)->elements;
  int64_t n = elements ? tvm_ffi_seq_size(elements) : 0;
  if (n > 8) return eval_seq(p, elements, out);
  TVMFFIAny items[8];
  int64_t done = 0;
  bool exprs = true;
  for (; done < n; ++done) {
    if (eval_storable(p, tvm_ffi_seq_obj_at(elements, done), &items[done]) != 0) break;
    exprs = exprs && (is_py_number(&items[done]) || is_prim_expr(&items[done]));
  }
  int rc = done == n ? 0 : -1;
  for (int64_t i = 0; rc == 0 && exprs && i < n; ++i) {
    if (!is_py_number(&items[i])) continue;
    tvm_tir_expr_obj* e = tvm_script__value_to_expr(&items[i], "");
    if (!e) rc = tvm_script__relocate(p, tvm_ffi_seq_obj_at(elements, i)); /* (out of memory) */
    if (e) items[i] = tvm_ffi_any_obj(e); /* (a number: nothing to release) */
  }
  void* arr = rc == 0 ? tvm_ffi_array_new_take(items, n) : NULL;
  if (rc == 0 && !arr) rc = tvm_script__relocate(p, d);
  for (int64_t i = 0; i < done; ++i) tvm_ffi_any_release(&items[i]);
  if (arr) *out = tvm_ffi_any_obj(arr);
  return rc;
}

/* Evaluate positional arguments (expanding `*xs`) and then keyword values into one list (the
 * positional ones first: *num_pos of them). */
static int eval_args(script_parser* p, const tvm_script_call_doc_obj* c, int shape_arg,
                     bool region_args, arg_list* pos, int32_t* num_pos) {
  int64_t n = c->args ? tvm_ffi_seq_size(c->args) : 0;
  /* A literal argument (most of them) is its value, pushed at once: it is none of the kinds
   * tested below (a region of region_args is an IndexDoc), and eval_storable takes it inline
   * below the depth bound. */
  int32_t literal_t = p->eval_depth < SCRIPT_MAX_EVAL_DEPTH
                          ? tvm_script__doc_type_index[TVM_SCRIPT_DOC_LiteralDoc]
                          : INT32_MIN; /* (at the bound: the general path reports it) */
  for (int64_t i = 0; i < n; ++i) {
    const script_doc* a = tvm_ffi_seq_obj_at(c->args, i);
    TVMFFIAny v;
    if (a && tvm_ffi_type_index(a) == literal_t &&
        ((const tvm_script_literal_doc_obj*)a)->value.type_index != kTVMFFIOpaquePtr) {
      v = tvm_ffi_any_copy(&((const tvm_script_literal_doc_obj*)a)->value);
      if (arg_push(pos, &v, a) != 0) {
        tvm_ffi_any_release(&v);
        return tvm_script__relocate(p, a);
      }
      continue;
    }
    v = tvm_ffi_any_none();
    if (i == shape_arg - 1 && (script__is_kind(a, TVM_SCRIPT_DOC_TupleDoc) ||
                               script__is_kind(a, TVM_SCRIPT_DOC_ListDoc))) {
      /* (no starred argument before it: then its place would not be i) */
      if (pos->n != i) goto general;
      /* One level, as tvm_script__eval counts it (which reports a tuple nested too deeply). */
      if (p->eval_depth >= SCRIPT_MAX_EVAL_DEPTH) return tvm_script__eval(p, a, &v);
      ++p->eval_depth;
      int rc = eval_shape_seq(p, a, &v);
      --p->eval_depth;
      if (rc != 0) return -1;
      if (arg_push(pos, &v, a) != 0) {
        tvm_ffi_any_release(&v);
        return tvm_script__relocate(p, a);
      }
      continue;
    }
  general:
    if (script__is_kind(a, TVM_SCRIPT_DOC_StarredDoc)) { /* f(*xs): the items of xs */
      if (tvm_script__eval(p, ((const tvm_script_starred_doc_obj*)a)->value, &v) != 0) return -1;
      if (!is_seq(&v)) {
        tvm_ffi_any_release(&v);
        return tvm_script__error_at(p, a, "TypeError", "argument after * must be a tuple or list");
      }
      for (int64_t j = 0; j < tvm_ffi_seq_size(v.v_obj); ++j) {
        TVMFFIAny e = tvm_ffi_any_copy(tvm_ffi_seq_at(v.v_obj, j));
        if (arg_push(pos, &e, a) != 0) {
          tvm_ffi_any_release(&e);
          tvm_ffi_any_release(&v);
          return tvm_script__relocate(p, a);
        }
      }
      tvm_ffi_any_release(&v);
      continue;
    }
    int region_rc = 1;
    if (script__is_kind(a, TVM_SCRIPT_DOC_LambdaDoc)) {
      if (tvm_script__lambda_new(p, a, &pos->lambdas[0], &v) != 0) return -1;
    } else if (region_args && (region_rc = tvm_script__eval_region(p, a, &v)) < 0) {
      return -1;
    } else if (region_rc != 0 && eval_storable(p, a, &v) != 0) {
      return -1;
    }
    if (arg_push(pos, &v, a) != 0) {
      tvm_ffi_any_release(&v);
      return tvm_script__relocate(p, a);
    }
  }
  *num_pos = pos->n;
  int64_t nk = c->kwargs_values ? tvm_ffi_seq_size(c->kwargs_values) : 0;
  for (int64_t i = 0; i < nk; ++i) {
    const script_doc* a = tvm_ffi_seq_obj_at(c->kwargs_values, i);
    TVMFFIAny v = tvm_ffi_any_none();
    if (script__is_kind(a, TVM_SCRIPT_DOC_LambdaDoc)) {
      if (tvm_script__lambda_new(p, a, &pos->lambdas[1], &v) != 0) return -1;
    } else if (eval_storable(p, a, &v) != 0) {
      return -1;
    }
    if (arg_push(pos, &v, a) != 0) {
      tvm_ffi_any_release(&v);
      return tvm_script__relocate(p, a);
    }
  }
  return 0;
}

static void arg_list_init(arg_list* l) {
  l->args = l->stack_args;
  l->arg_docs = l->stack_docs;
  l->n = 0;
  l->cap = 8;
  l->lambdas[0] = l->lambdas[1] = NULL;
}

/* The dtype a call of the module's function `name` returns: its `-> T.int32` annotation, else
 * void (as upstream's call_tir without a checked type). */
static int callee_dtype(script_parser* p, const tvm_tir_global_var_obj* gv, DLDataType* out) {
  *out = TVM_TIR_VOID;
  const void* defs = p->module_defs;
  const char* name = tvm_ffi_str_cstr(gv->name_hint);
  for (int64_t i = 0; defs && i < tvm_ffi_seq_size(defs); ++i) {
    const tvm_script_function_doc_obj* f = tvm_ffi_seq_obj_at(defs, i);
    if (!script__is_kind(f, TVM_SCRIPT_DOC_FunctionDoc) || !f->return_type ||
        strcmp(tvm_ffi_str_cstr(((const tvm_script_id_doc_obj*)f->name)->name), name) != 0) {
      continue;
    }
    TVMFFIAny t;
    if (tvm_script__eval(p, f->return_type, &t) != 0) return -1;
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
static int call_global(script_parser* p, const tvm_script_call_doc_obj* c, const TVMFFIAny* gv,
                       const arg_list* pos, TVMFFIAny* out) {
  DLDataType dtype;
  if (callee_dtype(p, (const void*)gv->v_obj, &dtype) != 0) return -1;
  void* list = tvm_ffi_list_new();
  int rc = list ? 0 : -1;
  for (int32_t i = 0; rc == 0 && i < pos->n; ++i) {
    tvm_tir_expr_obj* e = script__to_expr(&pos->args[i], NULL);
    if (!e) return tvm_ffi_release(list), tvm_script__relocate(p, pos->arg_docs[i]);
    TVMFFIAny ea = tvm_ffi_any_obj(e);
    rc = tvm_ffi_list_push(list, &ea);
    tvm_ffi_release(e);
  }
  void* arr = rc == 0 ? tvm_ffi_list_to_array(list) : NULL;
  tvm_ffi_release(list);
  tvm_tir_expr_obj* r = arr ? tvm_tir_call_new(dtype, gv->v_obj, arr) : NULL;
  tvm_ffi_release(arr);
  if (!r) return tvm_script__relocate(p, c);
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
static int call_ir_range(script_parser* p, const tvm_script_call_doc_obj* c, TVMFFIAny* out) {
  int64_t n = c->args ? tvm_ffi_seq_size(c->args) : 0;
  if (n < 1 || n > 2 || tvm_ffi_seq_size(c->kwargs_keys) != 0) {
    return tvm_script__error_at(p, c, "TypeError", "I.Range() takes 1 or 2 positional arguments");
  }
  TVMFFIAny v[2] = {tvm_ffi_any_none(), tvm_ffi_any_none()};
  tvm_tir_expr_obj* e[2] = {NULL, NULL};
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    rc = tvm_script__eval(p, tvm_ffi_seq_obj_at(c->args, i), &v[i]);
  }
  /* Convert a PrimExpr bound first, so that a literal next to it takes its dtype. */
  int first = n == 2 && tvm_ffi_any_is_object(&v[1]) && !tvm_ffi_any_is_object(&v[0]) ? 1 : 0;
  for (int k = 0; rc == 0 && k < n; ++k) {
    int i = k == 0 ? first : 1 - first;
    DLDataType like = k ? tvm_tir_expr_dtype(e[first]) : TVM_TIR_INT32;
    e[i] = script__to_expr(&v[i], k ? &like : NULL);
    if (!e[i]) rc = tvm_script__relocate(p, tvm_ffi_seq_obj_at(c->args, i));
  }
  tvm_tir_range_obj* r = NULL;
  if (rc == 0 && n == 2 && !tvm_tir_dtype_equal(e[0]->dtype, e[1]->dtype)) {
    /* Mixed bounds would print back as a different expression: require one dtype. */
    rc = tvm_script__error_at(p, c, "TypeError", "I.Range: the bounds have different dtypes, %s and %s",
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
    if (!r) rc = tvm_script__relocate(p, c);
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
static int call_ir(script_parser* p, const tvm_script_call_doc_obj* c, const char* name,
                   TVMFFIAny* out) {
  if (strcmp(name, "Range") == 0) return call_ir_range(p, c, out);
  bool gv = strcmp(name, "GlobalVar") == 0, op = strcmp(name, "Op") == 0;
  if (!gv && !op) {
    return tvm_script__error_at(p, c->callee, "AttributeError",
                            "module 'tvm.script.ir' has no attribute '%s' usable here", name);
  }
  if (!c->args || tvm_ffi_seq_size(c->args) != 1 || tvm_ffi_seq_size(c->kwargs_keys) != 0) {
    return tvm_script__error_at(p, c, "TypeError", "I.%s() takes exactly one argument (a name)", name);
  }
  const script_doc* ad = tvm_ffi_seq_obj_at(c->args, 0);
  TVMFFIAny v;
  if (tvm_script__eval(p, ad, &v) != 0) return -1;
  const char* s = tvm_script__value_to_cstr(
      &v, gv ? "argument 'name' of I.GlobalVar" : "argument 'name' of I.Op");
  void* r = !s ? NULL : gv ? (void*)tvm_tir_global_var_new(s) : (void*)tvm_tir_op_get(s);
  tvm_ffi_any_release(&v);
  if (!r) return tvm_script__relocate(p, ad);
  *out = tvm_ffi_any_obj(r);
  return 0;
}

/* dst[0, n) = src[0, n) and dst[n] = '\0' (n + 1 <= 128 bytes of dst): a builtin's name is
 * short, so two overlapping 8-byte (or 4-byte) moves inline rather than a call to memcpy. */
static inline void copy_name(char* dst, const char* src, size_t n) {
  uint64_t x, y;
  uint32_t u, v;
  if (n >= 8 && n <= 16) {
    memcpy(&x, src, 8);
    memcpy(&y, src + n - 8, 8);
    memcpy(dst, &x, 8);
    memcpy(dst + n - 8, &y, 8);
  } else if (n >= 4 && n < 8) {
    memcpy(&u, src, 4);
    memcpy(&v, src + n - 4, 4);
    memcpy(dst, &u, 4);
    memcpy(dst + n - 4, &v, 4);
  } else {
    memcpy(dst, src, n);
  }
  dst[n] = '\0';
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
static int call_float(script_parser* p, const script_doc* call, TVMFFIAny* out) {
  const tvm_script_call_doc_obj* c = (const void*)call;
  if (!c->args || tvm_ffi_seq_size(c->args) != 1 ||
      (c->kwargs_keys && tvm_ffi_seq_size(c->kwargs_keys) != 0)) {
    return tvm_script__error_at(p, call, "TypeError", "float() takes exactly one argument");
  }
  const script_doc* a0 = tvm_ffi_seq_obj_at(c->args, 0);
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
      rc = tvm_script__error_at(p, a0, "ValueError", "could not convert string to float: '%.*s'",
                            (int)(text.size < 64 ? text.size : 64), text.data);
    }
  } else {
    const script_special* sp = tvm_script__special_of(&v);
    rc = tvm_script__error_at(p, a0, "TypeError",
                          "float() argument must be a string or a number, not %s",
                          !sp ? tvm_ffi_any_type_name(&v)
                          : sp->kind == SCRIPT_SPECIAL_MODULE ? "module"
                                                              : sp->name);
  }
  tvm_ffi_any_release(&v);
  if (rc == 0) *out = tvm_ffi_any_float(d);
  return rc;
}

int tvm_script__eval_call(script_parser* p, const script_doc* call, tvm_script_call_ctx ctx,
                      const char* const* targets, int32_t num_targets, TVMFFIAny* out) {
  const tvm_script_call_doc_obj* c = (const void*)call;
  *out = tvm_ffi_any_none();
  /* "T.<name>" (call->name): the dotted name is written after the prefix. */
  char full[130];
  char* name = full + 2;
  size_t n = 0;
  const script_special* mod = NULL;
  const tvm_script_builtin* fn = NULL;
  TVMFFIAny callee = tvm_ffi_any_none();
  DLDataType dtype = {0, 0, 0};
  bool has_dtype = false; /* `T.float32(...)`: the lookup read the dtype already */
  /* `T.<name>` with one level: the name's string object keys the per-parse cache. */
  const tvm_script_attr_doc_obj* attr =
      script__is_kind(c->callee, TVM_SCRIPT_DOC_AttrAccessDoc) ? (const void*)c->callee : NULL;
  const void* key = attr && script__is_kind(attr->value, TVM_SCRIPT_DOC_IdDoc) ? attr->name : NULL;
  size_t slot = (size_t)(((uintptr_t)key * UINT64_C(0x9E3779B97F4A7C15)) >> 55); /* (512 slots) */
  builtin_cache* bc = &t_builtins;
  if (key) {
    /* `<root>.<name>`: what tvm_script__dotted finds for it, without its general walk. */
    mod = root_module(p, ((const tvm_script_id_doc_obj*)attr->value)->name);
    TVMFFIByteArray s = tvm_ffi_str_view(key);
    if (s.size + 2 > 128) mod = NULL; /* (too long for the buffer, as tvm_script__dotted says) */
    if (mod) {
      copy_name(name, s.data, s.size);
      n = s.size;
    }
    if (mod == &kModTir && bc->e[slot].name == key) {
      fn = bc->e[slot].fn;
      dtype = bc->e[slot].dtype;
      has_dtype = bc->e[slot].has_dtype;
    }
  } else {
    mod = tvm_script__dotted(p, c->callee, name, 128, &n);
  }
  if (fn) {
    /* (a cached builtin) */
  } else if (mod == &kModTir) {
    fn = tvm_script__tir_builtin_lookup_dtype(name, n, &dtype, &has_dtype);
    if (fn && key && (bc->registered || builtin_cache_register(bc))) {
      void* old = bc->e[slot].name;
      tvm_ffi_retain((void*)key);
      bc->e[slot].name = (void*)key;
      bc->e[slot].fn = fn;
      bc->e[slot].dtype = dtype;
      bc->e[slot].has_dtype = has_dtype;
      tvm_ffi_release(old); /* (a String: its release runs no other code) */
    }
    if (!fn) {
      return tvm_script__error_at(p, c->callee, "AttributeError",
                              "module 'tvm.script.tirx' has no attribute '%s'", name);
    }
  } else if (mod == &kModRelax) {
    return tvm_script__error_at(p, c->callee, "NotImplementedError",
                            "Relax (R.%s) is not supported by this parser yet", name);
  } else if (mod == &kModIr && (fn = tvm_script__ir_builtin_lookup(name, n)) != NULL) {
    /* I.vdevice, I.meta_var: builtins called like the T.* ones. */
  } else if (mod) {
    return call_ir(p, c, name, out);
  } else {
    if (tvm_script__eval(p, c->callee, &callee) != 0) return -1;
    if (!is_kind(&callee, TVM_TIR_KIND_GlobalVar)) {
      const script_special* sp = tvm_script__special_of(&callee);
      tvm_ffi_any_release(&callee);
      if (sp && sp->kind == SCRIPT_SPECIAL_FLOAT) return call_float(p, call, out);
      if (sp && sp->kind == SCRIPT_SPECIAL_RANGE) {
        return tvm_script__error_at(p, call, "TypeError",
                                "range() is only supported as a for loop's "
                                "iterable");
      }
      return tvm_script__error_at(p, c->callee, "TypeError", "this object is not callable");
    }
  }
  if (fn == &tvm_script__tir_dtype_builtin && has_dtype && c->args &&
      tvm_ffi_seq_size(c->args) == 1 &&
      (!c->kwargs_keys || tvm_ffi_seq_size(c->kwargs_keys) == 0) &&
      p->eval_depth < SCRIPT_MAX_EVAL_DEPTH) {
    /* `T.float32(1)`, `T.int64(4)`: a dtype constructor of one literal number, most of them.
     * The argument's evaluation is the literal's value (tvm_script__eval, within the depth bound);
     * the constructor binds it as `expr` and, a number, makes tvm_script__dtype_number of it,
     * an error of which it leaves unlocated for the call (error_arg -1), as here. */
    const script_doc* a0 = tvm_ffi_seq_obj_at(c->args, 0);
    const TVMFFIAny* v = script__is_kind(a0, TVM_SCRIPT_DOC_LiteralDoc)
                             ? &((const tvm_script_literal_doc_obj*)a0)->value
                             : NULL;
    if (v && is_py_number(v)) {
      tvm_tir_expr_obj* e = tvm_script__dtype_number(v, dtype);
      if (!e) return tvm_script__relocate(p, call);
      *out = tvm_ffi_any_obj(e);
      return 0;
    }
  }
  arg_list args; /* positional arguments, then keyword values */
  arg_list_init(&args);
  int32_t npos = 0;
  int rc = eval_args(p, c, fn ? fn->shape_arg : 0, fn && fn->region_args, &args, &npos);
  int32_t nkw = args.n - npos;
  if (rc == 0 && !fn) {
    rc = nkw ? tvm_script__error_at(p, call, "TypeError", "a function call takes no keyword arguments")
             : call_global(p, c, &callee, &args, out);
  } else if (rc == 0) {
    const char* kw_names_stack[8];
    const char** kw_names =
        nkw <= 8 ? kw_names_stack : tvm_ffi_calloc((size_t)nkw, sizeof(char*));
    full[0] = mod == &kModIr ? 'I' : 'T';
    full[1] = '.';
    for (int32_t i = 0; kw_names && i < nkw; ++i) {
      kw_names[i] = tvm_ffi_str_cstr(tvm_ffi_seq_obj_at(c->kwargs_keys, i));
    }
    tvm_script_call call_info = {p->b,     full, ctx,      num_targets,      targets,   npos,
                                 args.args, nkw, kw_names, args.args + npos, -1,        has_dtype,
                                 dtype};
    if (!kw_names) {
      rc = tvm_script__relocate(p, call);
    } else if (fn->fn(&call_info, out) != 0) {
      int32_t e = call_info.error_arg;
      const void* at = e >= 0 && e < args.n ? (const void*)args.arg_docs[e] : (const void*)call;
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
      rc = tvm_script__error_at(p, call, "NotImplementedError",
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

/* ---- The dispatch over expression kinds ----------------------------------------------------- */
static int eval_kind(script_parser* p, const script_doc* d, TVMFFIAny* out);
static __attribute__((noinline)) int eval_nested(script_parser* p, const script_doc* d,
                                                 TVMFFIAny* out);
static __attribute__((noinline)) int eval_id(script_parser* p, const script_doc* d,
                                             TVMFFIAny* out);

int tvm_script__eval(script_parser* p, const script_doc* d, TVMFFIAny* out) {
  /* The leaves first, in a frame of their own: a literal, and a name bound in the variable
   * table, are most evaluations and recurse no further, so they need neither the depth count
   * nor eval_kind's frame. What they do is eval_kind's (IdDoc: resolve_name's table lookup);
   * at the depth bound, and for everything else, the general path. */
  if (__builtin_expect(p->eval_depth < SCRIPT_MAX_EVAL_DEPTH, 1) && d) {
    int32_t t = tvm_ffi_type_index(d);
    if (t == tvm_script__doc_type_index[TVM_SCRIPT_DOC_LiteralDoc]) {
      *out = tvm_ffi_any_copy(&((const tvm_script_literal_doc_obj*)d)->value);
      return 0;
    }
    if (t == tvm_script__doc_type_index[TVM_SCRIPT_DOC_IdDoc]) {
      /* script__vt_lookup's hint test inline; its hashed lookup in eval_id, out of line: a call
       * here that returns would make every evaluation (literals included) save and restore
       * registers in a frame, where these paths now need none (the others are tail calls). */
      uint32_t size;
      const char* name = script__id_name(d, &size);
      script_var_table* vt = &p->vt;
      uint32_t hint = vt->hints[((uintptr_t)name * UINT64_C(0x9E3779B97F4A7C15)) >> 58];
      const script_vt_slot* s = &vt->slots[hint];
      if (!name || s->name != name || s->size != size) return eval_id(p, d, out);
      if (s->top >= 0) {
        *out = tvm_ffi_any_copy(&vt->binds[s->top].value);
        return 0;
      }
    }
  }
  return eval_nested(p, d, out);
}

/* An IdDoc whose name's hint missed (tvm_script__eval): the hashed lookup, else the general path. */
static int eval_id(script_parser* p, const script_doc* d, TVMFFIAny* out) {
  uint32_t size;
  const char* name = script__id_name(d, &size);
  const TVMFFIAny* v = tvm_script__vt_lookup_hashed(&p->vt, name, size);
  if (v) {
    *out = tvm_ffi_any_copy(v);
    return 0;
  }
  return eval_nested(p, d, out);
}

static int eval_nested(script_parser* p, const script_doc* d, TVMFFIAny* out) {
  /* The front end bounds its recursion, not the depth of the tree it builds: `a + a + ... + a`
   * is a left-deep chain as long as the line. Bound the evaluation (and so the depth of the IR
   * built, which every later recursive pass walks) instead of overflowing the stack. */
  if (p->eval_depth >= SCRIPT_MAX_EVAL_DEPTH) {
    *out = tvm_ffi_any_none();
    return tvm_script__error_at(p, d, "SyntaxError",
                            "expression nested too deeply (more than %d "
                            "levels)",
                            SCRIPT_MAX_EVAL_DEPTH);
  }
  ++p->eval_depth;
  int rc = eval_kind(p, d, out);
  --p->eval_depth;
  return rc;
}

static int eval_kind(script_parser* p, const script_doc* d, TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  switch (script__kind_of(d)) {
    case TVM_SCRIPT_DOC_LiteralDoc:
      *out = tvm_ffi_any_copy(&((const tvm_script_literal_doc_obj*)d)->value);
      return 0;
    case TVM_SCRIPT_DOC_IdDoc: {
      const tvm_script_id_doc_obj* id = (const void*)d;
      if (resolve_name(p, id->name, out)) return 0;
      return tvm_script__error_at(p, d, "NameError", "name '%s' is not defined",
                              tvm_ffi_str_cstr(id->name));
    }
    case TVM_SCRIPT_DOC_AttrAccessDoc:
      return eval_attr(p, (const void*)d, out);
    case TVM_SCRIPT_DOC_IndexDoc:
      return tvm_script__eval_index(p, (const void*)d, out);
    case TVM_SCRIPT_DOC_CallDoc:
      return tvm_script__eval_call(p, d, TVM_SCRIPT_CTX_EXPR, NULL, 0, out);
    case TVM_SCRIPT_DOC_OperationDoc:
      return eval_operation(p, (const void*)d, out);
    case TVM_SCRIPT_DOC_TupleDoc:
    case TVM_SCRIPT_DOC_ListDoc:
      return eval_seq(p, ((const tvm_script_seq_doc_obj*)d)->elements, out);
    case TVM_SCRIPT_DOC_DictDoc:
      return eval_dict(p, (const void*)d, out);
    case TVM_SCRIPT_DOC_LambdaDoc:
      return tvm_script__error_at(p, d, "NotImplementedError",
                              "a lambda is only supported as an argument of a T.* call "
                              "(T.comm_reducer)");
    case TVM_SCRIPT_DOC_SliceDoc:
      return tvm_script__error_at(p, d, "SyntaxError", "a slice is only valid in a subscript");
    case TVM_SCRIPT_DOC_StarredDoc:
      return tvm_script__error_at(p, d, "SyntaxError",
                              "a starred expression is only valid as a "
                              "call argument");
    default:
      return tvm_script__error_at(p, d, "SyntaxError", "%s is not an expression",
                              tvm_script_doc_kind_name(tvm_script_doc_kind_of(d)));
  }
}

tvm_tir_expr_obj* tvm_script__eval_expr(script_parser* p, const script_doc* d) {
  TVMFFIAny v;
  if (tvm_script__eval(p, d, &v) != 0) return NULL;
  tvm_tir_expr_obj* e = script__to_expr(&v, NULL);
  tvm_ffi_any_release(&v);
  if (!e) tvm_script__relocate(p, d);
  return e;
}

/*
 * text.c: the short text of nodes used in error messages, and the TypeError of a typing rule.
 *
 * This is not the TVMScript printer (libscript has that): it writes one line in TVMScript-like
 * forms ("x + 1", "A[i, j]", "T.exp(x)"), is limited in depth and length, and never fails.
 */
#include <stdarg.h>
#include <string.h>

#include "internal.h"

/* ---- Rules --------------------------------------------------------------------------------- */
static const struct {
  const char* name;
  const char* spec_ref;
} k_rules[TVM_TIR_RULE_COUNT] = {
#define TVM_TIR_RULE(Id, name, spec_ref) [TVM_TIR_RULE_##Id] = {name, spec_ref},
#include <tvm/tir/rules.def>
};

const char* tvm_tir_rule_name(tvm_tir_rule rule) {
  return rule >= 0 && rule < TVM_TIR_RULE_COUNT ? k_rules[rule].name : "<rule>";
}

const char* tvm_tir_rule_spec_ref(tvm_tir_rule rule) {
  return rule >= 0 && rule < TVM_TIR_RULE_COUNT ? k_rules[rule].spec_ref : "";
}

/* ---- Node text ----------------------------------------------------------------------------- */
enum { MAX_DEPTH = 6, MAX_ITEMS = 8, MAX_CHARS = 240 };

typedef void (*text_fn)(tvm_ffi_strbuf* out, const void* obj, int depth);
static void text(tvm_ffi_strbuf* out, const void* obj, int depth);

static void put_str(tvm_ffi_strbuf* out, const void* str_obj) {
  if (str_obj) tvm_ffi_strbuf_puts(out, tvm_ffi_str_cstr(str_obj));
}

static void put_dtype(tvm_ffi_strbuf* out, DLDataType t) {
  tvm_ffi_strbuf_puts(out, tvm_tir_dtype_str(t).s);
}

/* Elements of an ffi.Array separated by ", " (at most MAX_ITEMS). */
static void put_list(tvm_ffi_strbuf* out, const void* arr, int depth) {
  int64_t n = arr ? tvm_ffi_seq_size(arr) : 0;
  for (int64_t i = 0; i < n; ++i) {
    if (i) tvm_ffi_strbuf_puts(out, ", ");
    if (i == MAX_ITEMS) {
      tvm_ffi_strbuf_printf(out, "... (%lld more)", (long long)(n - i));
      break;
    }
    const TVMFFIAny* item = tvm_ffi_seq_at(arr, i);
    if (tvm_ffi_any_is_object(item)) {
      text(out, item->v_obj, depth + 1);
    } else {
      tvm_ffi_strbuf_puts(out, tvm_ffi_any_type_name(item));
    }
  }
}

static void t_var(tvm_ffi_strbuf* out, const void* o, int d) {
  put_str(out, ((const tvm_tir_var_obj*)o)->name_hint);
}

static void t_int_imm(tvm_ffi_strbuf* out, const void* o, int d) {
  const tvm_tir_int_imm_obj* e = (const tvm_tir_int_imm_obj*)o;
  DLDataType t = e->expr.dtype;
  if (tvm_tir_dtype_is_bool(t)) {
    tvm_ffi_strbuf_puts(out, e->value ? "True" : "False");
  } else if (tvm_tir_dtype_equal(t, TVM_TIR_INT32)) {
    tvm_ffi_strbuf_printf(out, "%lld", (long long)e->value);
  } else {
    tvm_ffi_strbuf_printf(out, "T.%s(%lld)", tvm_tir_dtype_str(t).s, (long long)e->value);
  }
}

static void t_float_imm(tvm_ffi_strbuf* out, const void* o, int d) {
  const tvm_tir_float_imm_obj* e = (const tvm_tir_float_imm_obj*)o;
  tvm_ffi_strbuf_printf(out, "T.%s(%.17g)", tvm_tir_dtype_str(e->expr.dtype).s, e->value);
}

/* All the value's bytes, quotes, backslashes and control bytes (NUL included) escaped. */
static void t_string_imm(tvm_ffi_strbuf* out, const void* o, int d) {
  TVMFFIByteArray v = tvm_ffi_str_view(((const tvm_tir_string_imm_obj*)o)->value);
  tvm_ffi_strbuf_putc(out, '"');
  for (size_t i = 0; i < v.size; ++i) {
    unsigned char c = (unsigned char)v.data[i];
    if (c == '"' || c == '\\') {
      tvm_ffi_strbuf_putc(out, '\\');
      tvm_ffi_strbuf_putc(out, (char)c);
    } else if (c < 0x20 || c == 0x7f) {
      tvm_ffi_strbuf_printf(out, "\\x%02x", c);
    } else {
      tvm_ffi_strbuf_putc(out, (char)c);
    }
  }
  tvm_ffi_strbuf_putc(out, '"');
}

static void t_cast(tvm_ffi_strbuf* out, const void* o, int d) {
  const tvm_tir_cast_obj* e = (const tvm_tir_cast_obj*)o;
  tvm_ffi_strbuf_printf(out, "T.Cast(\"%s\", ", tvm_tir_dtype_str(e->expr.dtype).s);
  text(out, e->value, d + 1);
  tvm_ffi_strbuf_putc(out, ')');
}

/* Binary operators: infix symbol, or "T.f" printed as a call (from nodes.def). */
static const char* const k_binop_symbol[TVM_TIR_KIND_COUNT] = {
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) [TVM_TIR_KIND_##Name] = symbol,
#include <tvm/tir/nodes.def>
};

/* An operand of an infix operator: parenthesised when it is infix itself. */
static void t_operand(tvm_ffi_strbuf* out, const void* e, int d) {
  tvm_tir_kind k = tvm_tir_kind_of(e);
  bool paren = k >= 0 && k_binop_symbol[k] && k_binop_symbol[k][0] != 'T';
  if (paren) tvm_ffi_strbuf_putc(out, '(');
  text(out, e, d + 1);
  if (paren) tvm_ffi_strbuf_putc(out, ')');
}

static void t_binary(tvm_ffi_strbuf* out, const void* o, int d) {
  const tvm_tir_binary_obj* e = (const tvm_tir_binary_obj*)o;
  const char* sym = k_binop_symbol[tvm_tir_kind_of(o)];
  if (sym[0] == 'T') {
    tvm_ffi_strbuf_printf(out, "%s(", sym);
    text(out, e->a, d + 1);
    tvm_ffi_strbuf_puts(out, ", ");
    text(out, e->b, d + 1);
    tvm_ffi_strbuf_putc(out, ')');
    return;
  }
  t_operand(out, e->a, d);
  tvm_ffi_strbuf_printf(out, " %s ", sym);
  t_operand(out, e->b, d);
}

static void t_not(tvm_ffi_strbuf* out, const void* o, int d) {
  tvm_ffi_strbuf_puts(out, "not ");
  t_operand(out, ((const tvm_tir_not_obj*)o)->a, d);
}

/* "T.name(a, b, ...)" for nodes printed as calls with PrimExpr children. */
static void call_form(tvm_ffi_strbuf* out, const char* name, const void* const* args, int n,
                      int d) {
  tvm_ffi_strbuf_printf(out, "%s(", name);
  for (int i = 0; i < n; ++i) {
    if (i) tvm_ffi_strbuf_puts(out, ", ");
    text(out, args[i], d + 1);
  }
  tvm_ffi_strbuf_putc(out, ')');
}

static void t_select(tvm_ffi_strbuf* out, const void* o, int d) {
  const tvm_tir_select_obj* e = (const tvm_tir_select_obj*)o;
  const void* args[] = {e->condition, e->true_value, e->false_value};
  call_form(out, "T.Select", args, 3, d);
}

static void t_buffer_load(tvm_ffi_strbuf* out, const void* o, int d) {
  const tvm_tir_buffer_load_obj* e = (const tvm_tir_buffer_load_obj*)o;
  put_str(out, e->buffer ? e->buffer->name : NULL);
  tvm_ffi_strbuf_putc(out, '[');
  put_list(out, e->indices, d);
  tvm_ffi_strbuf_putc(out, ']');
}

static void t_ramp(tvm_ffi_strbuf* out, const void* o, int d) {
  const tvm_tir_ramp_obj* e = (const tvm_tir_ramp_obj*)o;
  tvm_ffi_strbuf_puts(out, "T.Ramp(");
  text(out, e->base, d + 1);
  tvm_ffi_strbuf_puts(out, ", ");
  text(out, e->stride, d + 1);
  tvm_ffi_strbuf_printf(out, ", %d)", (int)e->lanes);
}

static void t_broadcast(tvm_ffi_strbuf* out, const void* o, int d) {
  const tvm_tir_broadcast_obj* e = (const tvm_tir_broadcast_obj*)o;
  tvm_ffi_strbuf_puts(out, "T.Broadcast(");
  text(out, e->value, d + 1);
  tvm_ffi_strbuf_printf(out, ", %d)", (int)e->lanes);
}

static void t_let(tvm_ffi_strbuf* out, const void* o, int d) {
  const tvm_tir_let_obj* e = (const tvm_tir_let_obj*)o;
  const void* args[] = {e->var, e->value, e->body};
  call_form(out, "T.Let", args, 3, d);
}

static void t_call(tvm_ffi_strbuf* out, const void* o, int d) {
  const tvm_tir_call_obj* e = (const tvm_tir_call_obj*)o;
  if (TIR_IS(e->op, Op)) {
    const char* name = tvm_tir_op_name((const tvm_tir_op_obj*)e->op);
    if (strncmp(name, "tir.", 4) == 0) name += 4;
    tvm_ffi_strbuf_printf(out, "T.%s(", name);
  } else if (TIR_IS(e->op, GlobalVar)) {
    put_str(out, ((const tvm_tir_global_var_obj*)e->op)->name_hint);
    tvm_ffi_strbuf_putc(out, '(');
  } else {
    tvm_ffi_strbuf_puts(out, "<call>(");
  }
  put_list(out, e->args, d);
  tvm_ffi_strbuf_putc(out, ')');
}

static void t_shuffle(tvm_ffi_strbuf* out, const void* o, int d) {
  const tvm_tir_shuffle_obj* e = (const tvm_tir_shuffle_obj*)o;
  tvm_ffi_strbuf_puts(out, "T.Shuffle([");
  put_list(out, e->vectors, d);
  tvm_ffi_strbuf_puts(out, "], [");
  put_list(out, e->indices, d);
  tvm_ffi_strbuf_puts(out, "])");
}

static void t_global_var(tvm_ffi_strbuf* out, const void* o, int d) {
  tvm_ffi_strbuf_puts(out, "@");
  put_str(out, ((const tvm_tir_global_var_obj*)o)->name_hint);
}

static void t_op(tvm_ffi_strbuf* out, const void* o, int d) {
  tvm_ffi_strbuf_printf(out, "Op(%s)", tvm_tir_op_name((const tvm_tir_op_obj*)o));
}

static void t_prim_type(tvm_ffi_strbuf* out, const void* o, int d) {
  put_dtype(out, ((const tvm_tir_prim_type_obj*)o)->dtype);
}

static void t_pointer_type(tvm_ffi_strbuf* out, const void* o, int d) {
  const tvm_tir_pointer_type_obj* t = (const tvm_tir_pointer_type_obj*)o;
  tvm_ffi_strbuf_puts(out, "T.handle(");
  text(out, t->element_type, d + 1);
  if (t->storage_scope && tvm_ffi_str_view(t->storage_scope).size) {
    tvm_ffi_strbuf_puts(out, ", \"");
    put_str(out, t->storage_scope);
    tvm_ffi_strbuf_putc(out, '"');
  }
  tvm_ffi_strbuf_putc(out, ')');
}

static void t_tuple_type(tvm_ffi_strbuf* out, const void* o, int d) {
  tvm_ffi_strbuf_putc(out, '(');
  put_list(out, ((const tvm_tir_tuple_type_obj*)o)->fields, d);
  tvm_ffi_strbuf_putc(out, ')');
}

static void t_range(tvm_ffi_strbuf* out, const void* o, int d) {
  const tvm_tir_range_obj* r = (const tvm_tir_range_obj*)o;
  const void* args[] = {r->min, r->extent};
  call_form(out, "T.Range", args, r->extent ? 2 : 1, d);
}

static void t_iter_var(tvm_ffi_strbuf* out, const void* o, int d) {
  const tvm_tir_iter_var_obj* iv = (const tvm_tir_iter_var_obj*)o;
  tvm_ffi_strbuf_puts(out, "T.iter_var(");
  text(out, iv->var, d + 1);
  tvm_ffi_strbuf_puts(out, ", ");
  text(out, iv->dom, d + 1);
  tvm_ffi_strbuf_putc(out, ')');
}

static void t_buffer(tvm_ffi_strbuf* out, const void* o, int d) {
  const tvm_tir_buffer_obj* b = (const tvm_tir_buffer_obj*)o;
  tvm_ffi_strbuf_puts(out, "T.Buffer(");
  put_str(out, b->name);
  tvm_ffi_strbuf_puts(out, ", (");
  put_list(out, b->shape, d);
  tvm_ffi_strbuf_printf(out, "%s), \"%s\")", b->shape && tvm_ffi_seq_size(b->shape) == 1 ? "," : "",
                        tvm_tir_dtype_str(b->dtype).s);
}

static void t_buffer_region(tvm_ffi_strbuf* out, const void* o, int d) {
  const tvm_tir_buffer_region_obj* r = (const tvm_tir_buffer_region_obj*)o;
  put_str(out, r->buffer ? r->buffer->name : NULL);
  tvm_ffi_strbuf_putc(out, '[');
  put_list(out, r->region, d);
  tvm_ffi_strbuf_putc(out, ']');
}

static const text_fn k_text[TVM_TIR_KIND_COUNT] = {
    [TVM_TIR_KIND_Var] = t_var,
    [TVM_TIR_KIND_SizeVar] = t_var,
    [TVM_TIR_KIND_IntImm] = t_int_imm,
    [TVM_TIR_KIND_FloatImm] = t_float_imm,
    [TVM_TIR_KIND_StringImm] = t_string_imm,
    [TVM_TIR_KIND_Cast] = t_cast,
#define TVM_TIR_BINOP(Name, type_key, klass, symbol) [TVM_TIR_KIND_##Name] = t_binary,
#include <tvm/tir/nodes.def>
    [TVM_TIR_KIND_Not] = t_not,
    [TVM_TIR_KIND_Select] = t_select,
    [TVM_TIR_KIND_BufferLoad] = t_buffer_load,
    [TVM_TIR_KIND_Ramp] = t_ramp,
    [TVM_TIR_KIND_Broadcast] = t_broadcast,
    [TVM_TIR_KIND_Let] = t_let,
    [TVM_TIR_KIND_Call] = t_call,
    [TVM_TIR_KIND_Shuffle] = t_shuffle,
    [TVM_TIR_KIND_GlobalVar] = t_global_var,
    [TVM_TIR_KIND_Op] = t_op,
    [TVM_TIR_KIND_PrimType] = t_prim_type,
    [TVM_TIR_KIND_PointerType] = t_pointer_type,
    [TVM_TIR_KIND_TupleType] = t_tuple_type,
    [TVM_TIR_KIND_Range] = t_range,
    [TVM_TIR_KIND_IterVar] = t_iter_var,
    [TVM_TIR_KIND_Buffer] = t_buffer,
    [TVM_TIR_KIND_BufferRegion] = t_buffer_region,
};

static void text(tvm_ffi_strbuf* out, const void* obj, int depth) {
  if (!obj) {
    tvm_ffi_strbuf_puts(out, "None");
    return;
  }
  if (depth > MAX_DEPTH || out->size > MAX_CHARS) {
    tvm_ffi_strbuf_puts(out, "...");
    return;
  }
  tvm_tir_kind k = tvm_tir_kind_of(obj);
  if (k >= 0 && k_text[k]) {
    k_text[k](out, obj, depth);
  } else if (tvm_ffi_type_index(obj) == kTVMFFIArray) {
    tvm_ffi_strbuf_putc(out, '[');
    put_list(out, obj, depth);
    tvm_ffi_strbuf_putc(out, ']');
  } else {
    /* Statements and foreign objects: their type key. */
    tvm_ffi_strbuf_printf(out, "<%s>", tvm_ffi_type_key(((const TVMFFIObject*)obj)->type_index));
  }
}

/* Append the text of obj to out, at most MAX_CHARS (+ "..."). */
void tvm_tir__text(tvm_ffi_strbuf* out, const void* obj) {
  tvm_ffi_strbuf tmp = {0};
  text(&tmp, obj, 0);
  const char* s = tvm_ffi_strbuf_cstr(&tmp);
  if (tmp.size > MAX_CHARS) {
    tvm_ffi_strbuf_append(out, s, MAX_CHARS);
    tvm_ffi_strbuf_puts(out, "...");
  } else {
    tvm_ffi_strbuf_append(out, s, tmp.size);
  }
  tvm_ffi_strbuf_free(&tmp);
}

/* ---- TypeError ----------------------------------------------------------------------------- */
void* tvm_tir__type_error(tvm_tir_rule rule, const char* node, const char* what, ...) {
  tvm_ffi_strbuf msg = {0};
  tvm_ffi_strbuf_printf(&msg, "%s: %s (rule %s, spec %s)", node, what, tvm_tir_rule_name(rule),
                        tvm_tir_rule_spec_ref(rule));
  va_list ap;
  va_start(ap, what);
  const char* sep = ": ";
  for (const char* name = va_arg(ap, const char*); name; name = va_arg(ap, const char*)) {
    const void* obj = va_arg(ap, const void*);
    tvm_ffi_strbuf_printf(&msg, "%s%s = ", sep, name);
    sep = ", ";
    tvm_tir__text(&msg, obj);
    if (tvm_tir_is_expr(obj)) {
      tvm_ffi_strbuf_printf(&msg, " (%s)", tvm_tir_dtype_str(tvm_tir_expr_dtype(obj)).s);
    }
  }
  va_end(ap);
  tvm_ffi_raise("TypeError", "%s", tvm_ffi_strbuf_cstr(&msg));
  tvm_ffi_strbuf_free(&msg);
  return NULL;
}

void tvm_tir_node_text(tvm_ffi_strbuf* out, const void* obj) { tvm_tir__text(out, obj); }

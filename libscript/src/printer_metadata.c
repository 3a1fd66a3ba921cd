/*
 * printer_metadata.c: the metadata section of printed TVMScript (printer.h), written as
 * upstream's printer writes it with show_meta, and read back:
 *
 *   metadata = tvm.ir.load_json("""{
 *     "root_index": 5,
 *     "nodes": [
 *       {
 *         "type": "ffi.String",
 *         "data": "relax.expr.Constant"
 *       },
 *       ...
 *     ]
 *   }""")
 *
 * The JSON is tvm_ffi_json_save's node graph of an ffi.Map {type key: ffi.Array of objects},
 * re-indented as upstream's json::Stringify(..., 2) writes it (objects one member a line,
 * arrays of plain values on one line), inside a Python triple-quoted string: backslashes are
 * doubled and a third quote in a row is escaped, so the string's value is the JSON again.
 */
#include <string.h>
#include <tvm/relax/relax.h>
#include <tvm/tir/visit.h>

#include "script_internal.h"

/* ---- Writing --------------------------------------------------------------------------------- */
static void indent_to(tvm_ffi_strbuf* out, int level) {
  tvm_ffi_strbuf_putc(out, '\n');
  for (int i = 0; i < level; ++i) tvm_ffi_strbuf_puts(out, "  ");
}

/* The end of the JSON string starting at s[i] == '"' (the index after its closing quote). */
static size_t string_end(const char* s, size_t n, size_t i) {
  for (++i; i < n && s[i] != '"'; ++i) {
    if (s[i] == '\\') ++i;
  }
  return i < n ? i + 1 : n;
}

/* Whether the array starting at s[i] == '[' holds only plain values (no object or array). */
static bool flat_array(const char* s, size_t n, size_t i) {
  for (++i; i < n && s[i] != ']'; ++i) {
    if (s[i] == '"')
      i = string_end(s, n, i) - 1;
    else if (s[i] == '[' || s[i] == '{')
      return false;
  }
  return true;
}

/* Compact JSON (no whitespace outside strings, as tvm_ffi_json_save writes it) re-indented. */
static void json_indent(const char* s, size_t n, tvm_ffi_strbuf* out) {
  enum { MAX_NEST = 64 };
  bool flat[MAX_NEST]; /* per open bracket: printed on one line */
  int level = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[i];
    if (c == '"') {
      size_t e = string_end(s, n, i);
      tvm_ffi_strbuf_append(out, s + i, e - i);
      i = e - 1;
      continue;
    }
    bool in_flat = level > 0 && level <= MAX_NEST && flat[level - 1];
    switch (c) {
      case '{':
      case '[': {
        bool empty = i + 1 < n && (s[i + 1] == '}' || s[i + 1] == ']');
        bool f = in_flat || empty || (c == '[' && flat_array(s, n, i));
        tvm_ffi_strbuf_putc(out, c);
        if (level < MAX_NEST) flat[level] = f;
        ++level;
        if (!f) indent_to(out, level);
        break;
      }
      case '}':
      case ']':
        if (level > 0) --level;
        if (!(level < MAX_NEST ? flat[level] : true)) indent_to(out, level);
        tvm_ffi_strbuf_putc(out, c);
        break;
      case ',':
        tvm_ffi_strbuf_putc(out, ',');
        if (in_flat)
          tvm_ffi_strbuf_putc(out, ' ');
        else
          indent_to(out, level);
        break;
      case ':': tvm_ffi_strbuf_puts(out, ": "); break;
      default: tvm_ffi_strbuf_putc(out, c);
    }
  }
}

/* text as the body of a Python """...""" string whose value is text (plain bytes are copied
 * in runs). */
static void triple_quoted_body(const char* s, size_t n, tvm_ffi_strbuf* out) {
  int quotes = 0; /* unescaped quotes just written */
  size_t run = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[i];
    if (c != '\\' && c != '"') {
      quotes = 0;
      continue;
    }
    tvm_ffi_strbuf_append(out, s + run, i - run);
    run = i + 1;
    if (c == '\\') {
      tvm_ffi_strbuf_puts(out, "\\\\");
      quotes = 0;
    } else if (quotes == 2 || i + 1 == n) {
      /* never three quotes in a row, nor one just before the closing quotes */
      tvm_ffi_strbuf_puts(out, "\\\"");
      quotes = 0;
    } else {
      tvm_ffi_strbuf_putc(out, '"');
      ++quotes;
    }
  }
  tvm_ffi_strbuf_append(out, s + run, n - run);
}

tvm_script_doc_obj* tvm_script__metadata_stmt(const void* metadata) {
  TVMFFIAny m = tvm_ffi_any_obj(metadata);
  tvm_ffi_strbuf json = {0}, pretty = {0};
  tvm_script_doc_obj* doc = NULL;
  if (tvm_ffi_json_save(&m, &json) == 0) {
    tvm_ffi_strbuf indented = {0};
    json_indent(json.data ? json.data : "", json.size, &indented);
    tvm_ffi_strbuf_puts(&pretty, "\"\"\"");
    triple_quoted_body(indented.data ? indented.data : "", indented.size, &pretty);
    tvm_ffi_strbuf_puts(&pretty, "\"\"\"");
    if (indented.failed || pretty.failed) {
      tvm_ffi_raise("MemoryError", "printer: out of memory writing the metadata section");
    } else {
      /* The string is written as an IdDoc: the doc printer writes its text as it is. */
      tvm_script_doc_obj* call = tvm_script_doc_call_take(
          tvm_script_doc_attr_take(tvm_script_doc_attr_take(tvm_script_id_doc("tvm"), "ir"),
                                   "load_json"),
          tvm_script_id_doc_n(pretty.data, pretty.size));
      doc = call ? tvm_script_assign_doc_take(tvm_script_id_doc("metadata"), call, NULL) : NULL;
    }
    tvm_ffi_strbuf_free(&indented);
  } else {
    tvm_ffi_raise_context("printer: the metadata section");
  }
  tvm_ffi_strbuf_free(&json);
  tvm_ffi_strbuf_free(&pretty);
  return doc;
}

/* ---- Reading --------------------------------------------------------------------------------- */
/*
 * The JSON reader builds objects field by field, not through their constructors, so a constant
 * the constructors refuse (an int65 IntImm, a float32 beyond its range) would reach the parsed
 * IR and print as text that does not parse. Each IntImm and FloatImm of the metadata is made
 * again by its constructor (the error is its error), each Relax Constant's struct info is
 * compared with its tensor's; every object is visited once (the graph may share nodes: no walk
 * as a tree).
 */
typedef struct {
  void* seen; /* ffi.Dict of the objects visited (objects hash by identity) */
} imm_check;

static int visit_once(tvm_tir_visitor* v, const void* node) {
  imm_check* c = v->ctx;
  TVMFFIAny key = tvm_ffi_any_obj((void*)node), none = tvm_ffi_any_none();
  if (tvm_ffi_map_get(c->seen, &key)) return TVM_TIR_VISIT_SKIP;
  return tvm_ffi_dict_set(c->seen, &key, &none) == 0 ? TVM_TIR_VISIT_CONTINUE : -1;
}

static int check_imm(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_expr_obj* e = node;
  tvm_tir_expr_obj* again =
      tvm_tir_kind_of(node) == TVM_TIR_KIND_IntImm
          ? tvm_tir_int_imm_new(e->dtype, ((const tvm_tir_int_imm_obj*)node)->value)
          : tvm_tir_float_imm_new(e->dtype, ((const tvm_tir_float_imm_obj*)node)->value);
  if (!again) return -1;
  tvm_ffi_release(again);
  return visit_once(v, node);
}

/* A Relax Constant's struct info is the one its tensor gives (its dtype and dims; a vdevice may
 * be named), or a DTensor of that one (R.dist.const): the printer writes a small constant inline
 * as R.const / R.dist.const, which reads back with that one, and the loader sets the field as
 * the JSON has it (a ShapeStructInfo whose ndim disagrees with its values, say). */
static int check_relax_constant(const tvm_relax_constant_obj* c) {
  const tvm_relax_sinfo_obj* have = tvm_relax_sinfo_of(c);
  if (tvm_relax_kind_of(have) == TVM_RELAX_KIND_DTensorStructInfo) {
    have = ((const tvm_relax_dtensor_sinfo_obj*)have)->tensor_sinfo;
  }
  tvm_relax_expr_obj* exact = tvm_relax_constant_new(c->data, NULL);
  if (!exact) return -1;
  const tvm_relax_tensor_sinfo_obj* t = (const void*)tvm_relax_sinfo_of(exact);
  void* vdevice = tvm_relax_kind_of(have) == TVM_RELAX_KIND_TensorStructInfo
                      ? ((const tvm_relax_tensor_sinfo_obj*)have)->vdevice
                      : NULL;
  tvm_relax_sinfo_obj* want = tvm_relax_tensor_sinfo_new(t->shape, t->dtype, t->ndim, vdevice);
  int rc = want ? 0 : -1;
  TVMFFIAny a = tvm_ffi_any_obj((void*)have), b = tvm_ffi_any_obj(want);
  if (want && (!have || tvm_ffi_structural_equal(&a, &b, false, NULL, NULL) != 1)) {
    tvm_ffi_strbuf x = {0}, y = {0};
    if (have) tvm_relax_sinfo_text(&x, have);
    tvm_relax_sinfo_text(&y, want);
    bool same_text = strcmp(tvm_ffi_strbuf_cstr(&x), tvm_ffi_strbuf_cstr(&y)) == 0;
    rc = tvm_ffi_raise("TypeError", "a relax.expr.Constant's struct info %s is not its tensor's %s%s",
                       have ? tvm_ffi_strbuf_cstr(&x) : "(none)", tvm_ffi_strbuf_cstr(&y),
                       same_text ? " (they differ in a field the text does not show: the ndim of "
                                   "the shape's struct info, say)"
                                 : "");
    tvm_ffi_strbuf_free(&x);
    tvm_ffi_strbuf_free(&y);
  }
  tvm_ffi_release(want);
  tvm_ffi_release(exact);
  return rc;
}

static int visit_default(tvm_tir_visitor* v, const void* node) {
  int r = visit_once(v, node); /* (a shared Constant is checked once) */
  if (r == TVM_TIR_VISIT_CONTINUE && tvm_relax_kind_of(node) == TVM_RELAX_KIND_Constant &&
      check_relax_constant(node) != 0) {
    return -1;
  }
  return r;
}

static int check_constants(const void* metadata) {
  imm_check c = {tvm_ffi_dict_new()};
  if (!c.seen) return -1;
  tvm_tir_visitor v = {0};
  for (int k = 0; k < TVM_TIR_KIND_COUNT; ++k) v.pre[k] = visit_once;
  v.pre[TVM_TIR_KIND_IntImm] = v.pre[TVM_TIR_KIND_FloatImm] = check_imm;
  v.pre_default = visit_default;
  v.ctx = &c;
  int rc = tvm_tir_visit(&v, metadata);
  tvm_tir_visitor_free(&v);
  tvm_ffi_release(c.seen);
  return rc;
}

void* tvm_script_metadata_from_json(const char* json, size_t len) {
  if (!json) {
    tvm_ffi_raise("ValueError", "metadata: NULL text");
    return NULL;
  }
  TVMFFIAny v;
  if (tvm_ffi_json_load(json, len, &v) != 0) {
    tvm_ffi_raise_context("metadata: the JSON of the metadata section");
    return NULL;
  }
  if (v.type_index != kTVMFFIMap) {
    tvm_ffi_raise("TypeError", "metadata: the JSON must hold a map of type key to array, got %s",
                  tvm_ffi_any_type_name(&v));
    tvm_ffi_any_release(&v);
    return NULL;
  }
  const TVMFFIAny *k, *e;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(v.v_obj, pos, &k, &e)) >= 0;) {
    TVMFFIByteArray name;
    if (!tvm_ffi_any_as_bytes(k, &name) || e->type_index != kTVMFFIArray) {
      tvm_ffi_raise("TypeError",
                    "metadata: the JSON must hold a map of type key (a string) to "
                    "array, got a %s key to a %s",
                    tvm_ffi_any_type_name(k), tvm_ffi_any_type_name(e));
      tvm_ffi_any_release(&v);
      return NULL;
    }
  }
  if (check_constants(v.v_obj) != 0) {
    tvm_ffi_raise_context("metadata: a constant of the metadata section");
    tvm_ffi_any_release(&v);
    return NULL;
  }
  return v.v_obj;
}

/* The value of the Python string literal body s[0, n) (no quotes) into out. */
static void python_unescape(const char* s, size_t n, tvm_ffi_strbuf* out) {
  size_t run = 0;
  for (size_t i = 0; i < n; ++i) {
    if (s[i] != '\\' || i + 1 == n) continue;
    tvm_ffi_strbuf_append(out, s + run, i - run);
    char c = s[++i];
    run = i + 1;
    switch (c) {
      case 'n': tvm_ffi_strbuf_putc(out, '\n'); break;
      case 't': tvm_ffi_strbuf_putc(out, '\t'); break;
      case 'r': tvm_ffi_strbuf_putc(out, '\r'); break;
      case '\n': break; /* a line continuation */
      case '\\':
      case '"':
      case '\'': tvm_ffi_strbuf_putc(out, c); break;
      default: /* not an escape: both characters stay, as in Python */
        tvm_ffi_strbuf_putc(out, '\\');
        tvm_ffi_strbuf_putc(out, c);
    }
  }
  tvm_ffi_strbuf_append(out, s + run, n - run);
}

void* tvm_script_metadata_from_script(const char* text, size_t len) {
  static const char k_head[] = "metadata = tvm.ir.load_json(\"\"\"";
  const size_t head_n = sizeof(k_head) - 1;
  if (!text) return NULL;
  for (size_t i = 0; i + head_n <= len; ++i) {
    if ((i > 0 && text[i - 1] != '\n') || memcmp(text + i, k_head, head_n) != 0) continue;
    size_t b = i + head_n, e = b;
    while (e + 3 <= len && memcmp(text + e, "\"\"\"", 3) != 0) e += text[e] == '\\' ? 2 : 1;
    if (e + 3 > len) {
      tvm_ffi_raise("ValueError", "metadata: the string of the metadata section is not closed");
      return NULL;
    }
    tvm_ffi_strbuf json = {0};
    python_unescape(text + b, e - b, &json);
    void* m =
        json.failed ? NULL : tvm_script_metadata_from_json(json.data ? json.data : "", json.size);
    if (json.failed) tvm_ffi_raise("MemoryError", "metadata: out of memory");
    tvm_ffi_strbuf_free(&json);
    return m;
  }
  return NULL;
}

const void* tvm_script_metadata_item(const void* metadata, const char* type_key, int64_t index) {
  if (!metadata || !type_key || !tvm_ffi_instance_of(metadata, kTVMFFIMap)) {
    tvm_ffi_raise("TypeError", "metadata: not a metadata map");
    return NULL;
  }
  const TVMFFIAny* arr = tvm_ffi_map_get_str(metadata, type_key);
  if (!arr || arr->type_index != kTVMFFIArray) {
    tvm_ffi_raise("KeyError", "metadata has no \"%s\" entries", type_key);
    return NULL;
  }
  int64_t n = tvm_ffi_seq_size(arr->v_obj);
  if (index < 0 || index >= n) {
    tvm_ffi_raise("IndexError", "metadata[\"%s\"][%lld] is out of range (%lld entries)", type_key,
                  (long long)index, (long long)n);
    return NULL;
  }
  const TVMFFIAny* item = tvm_ffi_seq_at(arr->v_obj, index);
  if (!tvm_ffi_any_is_object(item)) {
    tvm_ffi_raise("TypeError", "metadata[\"%s\"][%lld] is not an object", type_key,
                  (long long)index);
    return NULL;
  }
  return item->v_obj;
}

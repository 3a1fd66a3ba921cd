/* json_internal.h: the parsed JSON document shared by json.c (the current node-graph format)
 * and json_legacy.c (the format of TVM's SaveJSON before tvm-ffi). Not installed. */
#ifndef TVM_FFI_SRC_JSON_INTERNAL_H_
#define TVM_FFI_SRC_JSON_INTERNAL_H_

#include <string.h>

#include "internal.h"

enum { J_NULL, J_FALSE, J_TRUE, J_INT, J_FLOAT, J_STR, J_ARR, J_OBJ };
/* "null", "false", ..., "an object", indexed by kind (for messages). */
extern const char* const tvm_ffi__json_kind_names[];

/* One JSON value (16 bytes: the document is held whole while a graph loads). Array elements
 * and object members (key, value, key, value, ...) are linked through `next`. Offsets are 32
 * bits, so texts are limited to 4 GiB. */
typedef struct {
  uint8_t kind;
  bool in_arena; /* string bytes live in the parser's arena, not in the text */
  int32_t next;  /* next sibling or -1 */
  union {
    int64_t i;
    double f;
    struct {
      uint32_t pos, len;
    } s;
    struct {
      int32_t first, count; /* count: elements, or members of an object */
    } c;
  } u;
} tvm_ffi__jval;
_Static_assert(sizeof(tvm_ffi__jval) == 16, "compact JSON values");

typedef struct {
  const char* text;
  size_t len, pos;
  tvm_ffi__jval* vals;
  int32_t nvals, cap;
  tvm_ffi_strbuf arena; /* unescaped strings */
  int depth;
} tvm_ffi__jparser;

/* The bytes of string value v (in the text or the arena). */
static inline TVMFFIByteArray tvm_ffi__jstr(const tvm_ffi__jparser* p, const tvm_ffi__jval* v) {
  TVMFFIByteArray s = {(v->in_arena ? p->arena.data : p->text) + v->u.s.pos, (size_t)v->u.s.len};
  return s;
}

static inline bool tvm_ffi__jstr_is(const tvm_ffi__jparser* p, const tvm_ffi__jval* v,
                                    const char* lit) {
  TVMFFIByteArray s = tvm_ffi__jstr(p, v);
  return s.size == strlen(lit) && memcmp(s.data, lit, s.size) == 0;
}

/* The Function type attribute column `col` holds for type_index, or NULL (borrowed). */
void* tvm_ffi__json_type_attr_function(const TVMFFITypeAttrColumn* col, int32_t type_index);

/* Whether value v (a node's) may be stored in an object field of static type t: None, or an
 * instance of t (tvm_ffi_field_set checks objects only, so a string or POD value would pass it). */
static inline bool tvm_ffi__json_field_accepts(int32_t t, const TVMFFIAny* v) {
  if (t < kTVMFFIStaticObjectBegin || t == kTVMFFIObject || v->type_index == kTVMFFINone)
    return true;
  bool is_str = v->type_index == kTVMFFIStr || v->type_index == kTVMFFISmallStr;
  bool is_bytes = v->type_index == kTVMFFIBytes || v->type_index == kTVMFFISmallBytes;
  if (t == kTVMFFIStr) return is_str;
  if (t == kTVMFFIBytes) return is_bytes;
  return v->type_index >= kTVMFFIStaticObjectBegin && !is_str && !is_bytes &&
         tvm_ffi_instance_of(v->v_obj, t);
}

/* A new object of type t whose fields the caller sets, for graph node i (errors name it). */
void* tvm_ffi__json_create_object(int64_t i, int32_t t);

/* The padded base64 s decoded as an ffi.Bytes (or, with as_string, an ffi.String); ValueError
 * naming graph node i on bad text. */
int tvm_ffi__json_decode_base64(int64_t i, TVMFFIByteArray s, bool as_string, TVMFFIAny* out);

/* Load the legacy graph (json_legacy.c) whose top-level object is value `doc` of p. */
int tvm_ffi__json_load_legacy(const tvm_ffi__jparser* p, int32_t doc, TVMFFIAny* out);

#endif /* TVM_FFI_SRC_JSON_INTERNAL_H_ */

/*
 * tvm/relax/op.h: Relax operators (tvm/relax/ops.def): their ids, their table rows (name,
 * arguments, attribute schema, op pattern, purity) and attribute access.
 *
 * Each operator is an ir.Op of libtir's registry named as in the table ("relax.add"), registered
 * at initialisation. Calls are made with tvm_relax_call_new / tvm_relax_call_op (expr.h), which
 * check the attributes against the schema, fill in defaults and infer the struct info.
 *
 * Attributes of a call are an ffi.Map<String, Any> holding every field of the schema, in schema
 * order. Values by kind: BOOL a bool, INT an int, FLOAT a float, STR an ffi.String, DTYPE a
 * DLDataType (void = unspecified), INTS an ffi.Array of ints, OPT_* None or the value, ANY any
 * value (an ffi object: an IndexMap, an Array of PrimExprs, ...).
 */
#ifndef TVM_RELAX_OP_H_
#define TVM_RELAX_OP_H_

#include <tvm/relax/expr.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

typedef enum {
#define TVM_RELAX_OP(Id, name, args, attrs, infer, pattern, purity) TVM_RELAX_OP_##Id,
#include <tvm/relax/ops.def>
  TVM_RELAX_OP_COUNT
} tvm_relax_op_id;

/* Upstream's TOpPattern values. */
typedef enum {
  TVM_RELAX_PATTERN_ELEMWISE = 0,
  TVM_RELAX_PATTERN_BROADCAST = 1,
  TVM_RELAX_PATTERN_INJECTIVE = 2,
  TVM_RELAX_PATTERN_COMM_REDUCE = 3,
  TVM_RELAX_PATTERN_OUT_EWISE_FUSABLE = 4,
  TVM_RELAX_PATTERN_TUPLE = 7,
  TVM_RELAX_PATTERN_OPAQUE = 8,
} tvm_relax_op_pattern;

typedef enum {
  TVM_RELAX_ATTR_BOOL,
  TVM_RELAX_ATTR_INT,
  TVM_RELAX_ATTR_FLOAT,
  TVM_RELAX_ATTR_STR,
  TVM_RELAX_ATTR_DTYPE,
  TVM_RELAX_ATTR_INTS,
  TVM_RELAX_ATTR_FLOATS,
  TVM_RELAX_ATTR_OPT_INT,
  TVM_RELAX_ATTR_OPT_INTS,
  TVM_RELAX_ATTR_OPT_FLOAT,
  TVM_RELAX_ATTR_OPT_STR,
  TVM_RELAX_ATTR_ANY,
} tvm_relax_attr_kind;

/* One attribute of a schema. default_text is the default written as text ("0", "1e-05",
 * "true", "NCHW", "float32", "1, 1" for INTS or FLOATS, "None" for an OPT_ kind or ANY; "" for a
 * DTYPE means unspecified); NULL makes the attribute required. */
typedef struct {
  const char* name;
  tvm_relax_attr_kind kind;
  const char* default_text;
} tvm_relax_attr_field;

typedef struct {
  tvm_relax_op_id id;
  const char* name;      /* "relax.nn.conv2d" */
  const char* arg_names; /* "data, weight" as in ops.def */
  int32_t min_args;      /* arguments that must be given */
  int32_t max_args;      /* -1: variadic */
  const tvm_relax_attr_field* attrs;
  int32_t num_attrs;
  tvm_relax_op_pattern pattern;
  bool pure;
} tvm_relax_op_info;

/* The row of an operator; NULL for an id out of range. */
const tvm_relax_op_info* tvm_relax_op_info_get(tvm_relax_op_id id);
/* The row of an ir.Op that is a Relax operator, else NULL. Constant time. */
const tvm_relax_op_info* tvm_relax_op_info_of(const void* op);
/* The row named `name` ("relax.add"), else NULL. */
const tvm_relax_op_info* tvm_relax_op_info_find(const char* name, size_t len);
/* The ir.Op of an operator (borrowed: registry singletons live for the process). */
tvm_tir_op_obj* tvm_relax_op(tvm_relax_op_id id);
/* Whether expr is a Call of operator id. */
bool tvm_relax_is_call_to(const void* expr, tvm_relax_op_id id);

/* The index of attribute `name` in the row's schema, or -1. */
int32_t tvm_relax_op_attr_index(const tvm_relax_op_info* info, const char* name);
/* An attribute of a call's completed attrs (borrowed), or NULL when there is none of that name. */
const TVMFFIAny* tvm_relax_call_attr(const tvm_relax_call_obj* call, const char* name);
/* The default of schema field i as a value (a new reference), or -1 + error. */
int tvm_relax_op_attr_default(const tvm_relax_op_info* info, int32_t i, TVMFFIAny* out);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* TVM_RELAX_OP_H_ */

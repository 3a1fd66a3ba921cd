/*
 * registry.c: registration of every kind of nodes.def as an FFI type with reflected fields, the
 * kind <-> type index table, and librelax's one-time initialisation (types, then operators).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

int32_t tvm_relax__index[TVM_RELAX_KIND_COUNT];
static int g_initialized;
static char g_init_error[512];

/* ---- Field tables ---------------------------------------------------------------------------- */
typedef struct {
  const char* name;
  size_t offset;
  int32_t size;
  int32_t type; /* an ffi static type index, or RLX(kind) / TIRK(kind) */
  int64_t flags;
} relax_field;

#define RLX(KIND) (-2 - TVM_RELAX_KIND_##KIND)
#define TIRK(KIND) (-10000 - TVM_TIR_KIND_##KIND)
#define FLD(S, m, type, flags) \
  { #m, offsetof(S, m), (int32_t)sizeof(((S*)0)->m), (type), (flags) }
#define END \
  { NULL, 0, 0, 0, 0 }
/* BaseFunc's attrs, the last field of each function type (libtir's registry says why). */
#define FUNC_ATTRS(S) \
  { "attrs", offsetof(S, func.attrs), (int32_t)sizeof(void*), kTVMFFIMap, 0 }
#define IGNORE kTVMFFIFieldFlagBitMaskSEqHashIgnore
#define DEF kTVMFFIFieldFlagBitMaskSEqHashDef
#define STR kTVMFFIStr
#define ARR kTVMFFIArray
#define MAP kTVMFFIMap
#define EXPR TIRK(RelaxExpr)
#define SINFO RLX(StructInfo)

static const relax_field k_fields_none[] = {END};
static const relax_field k_fields_sinfo_base[] = {
    FLD(tvm_relax_sinfo_obj, span, kTVMFFIObject, IGNORE), END};
static const relax_field k_fields_prim_sinfo[] = {
    FLD(tvm_relax_prim_sinfo_obj, value, TIRK(PrimExpr), 0),
    FLD(tvm_relax_prim_sinfo_obj, dtype, kTVMFFIDataType, 0), END};
static const relax_field k_fields_shape_sinfo[] = {
    FLD(tvm_relax_shape_sinfo_obj, values, ARR, 0),
    FLD(tvm_relax_shape_sinfo_obj, ndim, kTVMFFIInt, 0), END};
static const relax_field k_fields_tensor_sinfo[] = {
    FLD(tvm_relax_tensor_sinfo_obj, shape, EXPR, 0),
    FLD(tvm_relax_tensor_sinfo_obj, dtype, kTVMFFIDataType, 0),
    FLD(tvm_relax_tensor_sinfo_obj, ndim, kTVMFFIInt, 0),
    FLD(tvm_relax_tensor_sinfo_obj, vdevice, TIRK(VDevice), 0), END};
static const relax_field k_fields_tuple_sinfo[] = {
    FLD(tvm_relax_tuple_sinfo_obj, fields, ARR, 0), END};
/* A function's parameter struct infos define the TIR variables they name (as upstream's). */
static const relax_field k_fields_func_sinfo[] = {
    FLD(tvm_relax_func_sinfo_obj, params, ARR, DEF),
    FLD(tvm_relax_func_sinfo_obj, ret, SINFO, 0),
    FLD(tvm_relax_func_sinfo_obj, derive_func, STR, 0),
    FLD(tvm_relax_func_sinfo_obj, purity, kTVMFFIBool, 0), END};

static const relax_field k_fields_dtensor_sinfo[] = {
    FLD(tvm_relax_dtensor_sinfo_obj, tensor_sinfo, SINFO, 0),
    FLD(tvm_relax_dtensor_sinfo_obj, device_mesh, RLX(DeviceMesh), 0),
    FLD(tvm_relax_dtensor_sinfo_obj, placement, ARR, 0), END};
static const relax_field k_fields_device_mesh[] = {
    FLD(tvm_relax_device_mesh_obj, shape, ARR, 0),
    FLD(tvm_relax_device_mesh_obj, device_ids, ARR, 0),
    FLD(tvm_relax_device_mesh_obj, device_range, TIRK(Range), 0), END};

static const relax_field k_fields_call[] = {
    FLD(tvm_relax_call_obj, op, EXPR, 0), FLD(tvm_relax_call_obj, args, ARR, 0),
    FLD(tvm_relax_call_obj, attrs, MAP, 0), FLD(tvm_relax_call_obj, sinfo_args, ARR, 0), END};
static const relax_field k_fields_tuple[] = {FLD(tvm_relax_tuple_obj, fields, ARR, 0), END};
static const relax_field k_fields_tuple_get_item[] = {
    FLD(tvm_relax_tuple_get_item_obj, tuple_value, EXPR, 0),
    FLD(tvm_relax_tuple_get_item_obj, index, kTVMFFIInt, 0), END};
static const relax_field k_fields_shape_expr[] = {
    FLD(tvm_relax_shape_expr_obj, values, ARR, 0), END};
static const relax_field k_fields_var[] = {FLD(tvm_relax_var_obj, name_hint, STR, IGNORE), END};
static const relax_field k_fields_constant[] = {
    FLD(tvm_relax_constant_obj, data, kTVMFFITensor, 0), END};
static const relax_field k_fields_prim_value[] = {
    FLD(tvm_relax_prim_value_obj, value, TIRK(PrimExpr), 0), END};
static const relax_field k_fields_string_imm[] = {
    FLD(tvm_relax_string_imm_obj, value, STR, 0), END};
static const relax_field k_fields_dtype_imm[] = {
    FLD(tvm_relax_dtype_imm_obj, value, kTVMFFIDataType, 0), END};
static const relax_field k_fields_if_expr[] = {
    FLD(tvm_relax_if_obj, cond, EXPR, 0), FLD(tvm_relax_if_obj, true_branch, EXPR, 0),
    FLD(tvm_relax_if_obj, false_branch, EXPR, 0), END};
static const relax_field k_fields_seq_expr[] = {
    FLD(tvm_relax_seq_expr_obj, blocks, ARR, 0), FLD(tvm_relax_seq_expr_obj, body, EXPR, 0),
    END};
static const relax_field k_fields_function[] = {
    FLD(tvm_relax_function_obj, params, ARR, DEF), FLD(tvm_relax_function_obj, body, EXPR, 0),
    FLD(tvm_relax_function_obj, ret_struct_info, SINFO, 0),
    FLD(tvm_relax_function_obj, is_pure, kTVMFFIBool, 0), FUNC_ATTRS(tvm_relax_function_obj),
    END};
static const relax_field k_fields_extern_func[] = {
    FLD(tvm_relax_extern_func_obj, global_symbol, STR, 0), FUNC_ATTRS(tvm_relax_extern_func_obj),
    END};
static const relax_field k_fields_binding[] = {
    FLD(tvm_relax_binding_obj, span, kTVMFFIObject, IGNORE),
    FLD(tvm_relax_binding_obj, var, RLX(Var), DEF), END};
static const relax_field k_fields_var_binding[] = {
    FLD(tvm_relax_var_binding_obj, value, EXPR, 0), END};
static const relax_field k_fields_match_cast[] = {
    FLD(tvm_relax_match_cast_obj, value, EXPR, 0),
    FLD(tvm_relax_match_cast_obj, struct_info, SINFO, DEF), END};
static const relax_field k_fields_block[] = {
    FLD(tvm_relax_block_obj, span, kTVMFFIObject, IGNORE),
    FLD(tvm_relax_block_obj, bindings, ARR, 0), END};

/* Layout invariants the code relies on. */
_Static_assert(offsetof(tvm_relax_var_binding_obj, value) ==
                   offsetof(tvm_relax_match_cast_obj, value),
               "a binding's value is at one offset (tvm_relax_binding_value)");
_Static_assert(offsetof(tvm_relax_function_obj, func) == 0, "Function starts with BaseFunc");
_Static_assert(offsetof(tvm_relax_call_obj, expr) == 0, "expressions start with RelaxExpr");

/* ---- The kind table -------------------------------------------------------------------------- */
#define TVM_RELAX_NODE(Name, type_key, Parent, c_struct, seq_kind, fields)                  \
  static int create_##Name(TVMFFIObjectHandle* out) {                                       \
    *out = tvm_ffi_object_new(tvm_relax__index[TVM_RELAX_KIND_##Name], sizeof(c_struct)); \
    return *out ? 0 : -1;                                                                   \
  }
#include <tvm/relax/nodes.def>

/* Parents outside this list: libtir's bases, encoded below -1. */
#define PARENT_Object (-1)
#define PARENT_RelaxExpr (-100 - TVM_TIR_KIND_RelaxExpr)
#define PARENT_BaseFunc (-100 - TVM_TIR_KIND_BaseFunc)
#define PARENT_StructInfo TVM_RELAX_KIND_StructInfo
#define PARENT_Var TVM_RELAX_KIND_Var
#define PARENT_Binding TVM_RELAX_KIND_Binding
#define PARENT_BindingBlock TVM_RELAX_KIND_BindingBlock

typedef struct {
  const char* name;
  const char* type_key;
  int parent;
  size_t size;
  TVMFFISEqHashKind seq_kind;
  const relax_field* fields;
  TVMFFIObjectCreator creator;
} kind_info;

static const kind_info k_kinds[TVM_RELAX_KIND_COUNT] = {
#define TVM_RELAX_NODE(Name, type_key, Parent, c_struct, seq_kind, fields)                    \
  [TVM_RELAX_KIND_##Name] = {#Name,        type_key,          PARENT_##Parent, sizeof(c_struct), \
                             kTVMFFISEqHashKind##seq_kind, k_fields_##fields, create_##Name},
#include <tvm/relax/nodes.def>
};

/* Kind by type index (0: none), each kind's ancestors as bits, and the kinds of expressions. */
uint8_t tvm_relax__kind_by_index[TVM_RELAX_KIND_TABLE];
uint64_t tvm_relax__ancestry[TVM_RELAX_KIND_COUNT];
uint64_t tvm_relax__expr_kinds;
static void* g_empty_array;
static void* g_empty_map;

static void init_failed(const char* what) {
  void* err = tvm_ffi_error_take();
  snprintf(g_init_error, sizeof(g_init_error), "%s: %s: %s", what,
           err ? tvm_ffi_error_kind(err) : "MemoryError", err ? tvm_ffi_error_message(err) : "");
  tvm_ffi_release(err);
}

static int32_t parent_index(int parent) {
  if (parent == PARENT_Object) return kTVMFFIObject;
  if (parent <= -100) return tvm_tir_type_index((tvm_tir_kind)(-100 - parent));
  return tvm_relax__index[parent];
}

static int register_type(tvm_relax_kind k) {
  const kind_info* info = &k_kinds[k];
  int32_t idx = tvm_ffi_type_register(info->type_key, parent_index(info->parent), -1, info->size,
                                      NULL, info->seq_kind);
  if (idx < 0) return -1;
  tvm_relax__index[k] = idx;
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.creator = info->creator;
  md.total_size = (int32_t)info->size;
  md.structural_eq_hash_kind = info->seq_kind;
  return TVMFFITypeRegisterMetadata(idx, &md);
}

static int32_t field_type(int32_t t) {
  if (t <= -10000) return tvm_tir_type_index((tvm_tir_kind)(-10000 - t));
  if (t <= -2) return tvm_relax__index[-2 - t];
  return t;
}

static int register_fields(tvm_relax_kind k) {
  const kind_info* info = &k_kinds[k];
  tvm_ffi_field_def defs[16];
  int32_t n = 0;
  for (const relax_field* f = info->fields; f->name; ++f, ++n) {
    defs[n].name = f->name;
    defs[n].offset = f->offset;
    defs[n].size = f->size;
    defs[n].static_type_index = field_type(f->type);
    defs[n].flags = f->flags;
  }
  return n ? tvm_ffi_type_add_fields(tvm_relax__index[k], defs, n) : 0;
}

static void init_all(void) {
  tvm_tir_init();
  for (int k = 0; k < TVM_RELAX_KIND_COUNT; ++k) {
    if (register_type((tvm_relax_kind)k) != 0) return init_failed(k_kinds[k].type_key);
  }
  for (int k = 0; k < TVM_RELAX_KIND_COUNT; ++k) {
    if (register_fields((tvm_relax_kind)k) != 0) return init_failed(k_kinds[k].type_key);
    if ((uint32_t)tvm_relax__index[k] >= TVM_RELAX_KIND_TABLE) {
      tvm_ffi_raise("RuntimeError", "type index %d beyond the kind table", tvm_relax__index[k]);
      return init_failed(k_kinds[k].type_key);
    }
  }
  const TVMFFITypeInfo* expr = TVMFFIGetTypeInfo(tvm_tir_type_index(TVM_TIR_KIND_RelaxExpr));
  for (int k = 0; k < TVM_RELAX_KIND_COUNT; ++k) {
    for (int a = k; a >= 0; a = k_kinds[a].parent) tvm_relax__ancestry[k] |= UINT64_C(1) << a;
    tvm_relax__kind_by_index[tvm_relax__index[k]] = (uint8_t)(k + 1);
    /* An expression kind derives from ir.RelaxExpr (directly, or through ir.BaseFunc). */
    const TVMFFITypeInfo* t = TVMFFIGetTypeInfo(tvm_relax__index[k]);
    if (expr && t && t->type_depth > expr->type_depth &&
        t->type_ancestors[expr->type_depth] == expr) {
      tvm_relax__expr_kinds |= UINT64_C(1) << k;
    }
  }
  g_empty_array = tvm_ffi_array_new(NULL, 0);
  g_empty_map = tvm_ffi_map_new(NULL, NULL, 0);
  if (!g_empty_array || !g_empty_map) return init_failed("tables");
  if (tvm_relax__init_ops() != 0) return init_failed("operators");
  __atomic_store_n(&g_initialized, 1, __ATOMIC_RELEASE);
}

static pthread_once_t g_once = PTHREAD_ONCE_INIT;

void tvm_relax_init(void) {
  if (__atomic_load_n(&g_initialized, __ATOMIC_ACQUIRE)) return;
  pthread_once(&g_once, init_all);
}

__attribute__((constructor)) static void init_at_load(void) { tvm_relax_init(); }

void tvm_relax__ensure_init(void) { tvm_relax_init(); }

void* tvm_relax__new(tvm_relax_kind kind, size_t size) {
  tvm_relax_init();
  if (!__atomic_load_n(&g_initialized, __ATOMIC_ACQUIRE)) {
    tvm_ffi_raise("RuntimeError", "librelax failed to initialise: %s", g_init_error);
    return NULL;
  }
  return tvm_ffi_object_new(tvm_relax__index[kind], size);
}

void* tvm_relax__empty_array(void) {
  tvm_ffi_retain(g_empty_array);
  return g_empty_array;
}

void* tvm_relax__empty_map(void) {
  tvm_ffi_retain(g_empty_map);
  return g_empty_map;
}

void* tvm_relax__str(const char* s) { return tvm_ffi_str_obj(s ? s : "", s ? strlen(s) : 0); }

/* ---- Public kind queries --------------------------------------------------------------------- */
int32_t tvm_relax_type_index(tvm_relax_kind kind) {
  tvm_relax_init();
  return kind >= 0 && kind < TVM_RELAX_KIND_COUNT ? tvm_relax__index[kind] : -1;
}

tvm_relax_kind(tvm_relax_kind_of)(const void* obj) { return relax_kind_of(obj); }

const char* tvm_relax_kind_name(tvm_relax_kind kind) {
  return kind >= 0 && kind < TVM_RELAX_KIND_COUNT ? k_kinds[kind].name : "<none>";
}

const char* tvm_relax_kind_type_key(tvm_relax_kind kind) {
  return kind >= 0 && kind < TVM_RELAX_KIND_COUNT ? k_kinds[kind].type_key : "<none>";
}

bool(tvm_relax_is)(const void* obj, tvm_relax_kind kind) {
  return kind >= 0 && kind < TVM_RELAX_KIND_COUNT && relax_is(obj, kind);
}

bool(tvm_relax_is_expr)(const void* obj) { return relax_is_expr(obj); }

/*
 * registry.c: registration of every node kind of nodes.def as an FFI type with reflection
 * (fields and their flags, structural-equality kind, object creator for deserialization), the
 * kind <-> type index tables, and libtir's one-time initialisation.
 *
 * The field tables below are the only place a node's fields are listed for reflection; the
 * generic algorithms of libtvmffi (destruction, structural equality/hash, JSON) work from them.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

int32_t tvm_tir__index[TVM_TIR_KIND_COUNT];
int tvm_tir__initialized;
_Thread_local bool tvm_tir__in_init;

/* ---- Field tables ---------------------------------------------------------------------------- */
/* A field whose type is a libtir kind is written TIR(Kind); its type index is resolved at
 * registration. Tables end with an empty entry. */
typedef struct {
  const char* name;
  size_t offset;
  int32_t size;
  int32_t type; /* an ffi static type index, or TIR(kind) */
  int64_t flags;
} tir_field;

#define TIR(KIND) (-2 - TVM_TIR_KIND_##KIND)
#define FLD(S, m, type, flags) \
  { #m, offsetof(S, m), (int32_t)sizeof(((S*)0)->m), (type), (flags) }
#define END \
  { NULL, 0, 0, 0, 0 }
#define FUNC_ATTRS(S) \
  { "attrs", offsetof(S, func.attrs), (int32_t)sizeof(void*), kTVMFFIMap, 0 }
#define IGNORE kTVMFFIFieldFlagBitMaskSEqHashIgnore
#define DEF kTVMFFIFieldFlagBitMaskSEqHashDef
#define STR kTVMFFIStr
#define ARR kTVMFFIArray
#define MAP kTVMFFIMap

static const tir_field k_fields_none[] = {END};
static const tir_field k_fields_base_expr[] = {
    FLD(tvm_tir_base_expr_obj, span, kTVMFFIObject, IGNORE), END};
static const tir_field k_fields_prim_expr[] = {FLD(tvm_tir_expr_obj, dtype, kTVMFFIDataType, 0),
                                               END};
/* struct_info_ is compared: a Relax Var's annotation is part of its definition (the TIR
 * variables it names are mapped at the definition site), as upstream compares it. */
static const tir_field k_fields_relax_expr[] = {
    FLD(tvm_tir_relax_expr_obj, struct_info_, kTVMFFIObject, 0), END};
/* A function's attrs are each concrete function type's last field (BaseFunc declares none):
 * structural equality and hashing visit fields in order, and the attrs may use the variables
 * the parameters define (upstream's SEqualReduce compared them last too). */
static const tir_field k_fields_base_func[] = {END};
static const tir_field k_fields_type_base[] = {FLD(tvm_tir_type_obj, span, kTVMFFIObject, IGNORE),
                                               END};
static const tir_field k_fields_stmt_base[] = {FLD(tvm_tir_stmt_obj, span, kTVMFFIObject, IGNORE),
                                               END};

static const tir_field k_fields_prim_type[] = {
    FLD(tvm_tir_prim_type_obj, dtype, kTVMFFIDataType, 0), END};
static const tir_field k_fields_pointer_type[] = {
    FLD(tvm_tir_pointer_type_obj, element_type, TIR(Type), 0),
    FLD(tvm_tir_pointer_type_obj, storage_scope, STR, 0), END};
static const tir_field k_fields_tuple_type[] = {FLD(tvm_tir_tuple_type_obj, fields, ARR, 0), END};

static const tir_field k_fields_var[] = {FLD(tvm_tir_var_obj, name_hint, STR, IGNORE),
                                         FLD(tvm_tir_var_obj, type_annotation, TIR(Type), 0), END};
static const tir_field k_fields_int_imm[] = {FLD(tvm_tir_int_imm_obj, value, kTVMFFIInt, 0), END};
static const tir_field k_fields_float_imm[] = {FLD(tvm_tir_float_imm_obj, value, kTVMFFIFloat, 0),
                                               END};
static const tir_field k_fields_string_imm[] = {FLD(tvm_tir_string_imm_obj, value, STR, 0), END};
static const tir_field k_fields_cast[] = {FLD(tvm_tir_cast_obj, value, TIR(PrimExpr), 0), END};
static const tir_field k_fields_binary[] = {FLD(tvm_tir_binary_obj, a, TIR(PrimExpr), 0),
                                            FLD(tvm_tir_binary_obj, b, TIR(PrimExpr), 0), END};
static const tir_field k_fields_not_expr[] = {FLD(tvm_tir_not_obj, a, TIR(PrimExpr), 0), END};
static const tir_field k_fields_select[] = {FLD(tvm_tir_select_obj, condition, TIR(PrimExpr), 0),
                                            FLD(tvm_tir_select_obj, true_value, TIR(PrimExpr), 0),
                                            FLD(tvm_tir_select_obj, false_value, TIR(PrimExpr), 0),
                                            END};
static const tir_field k_fields_buffer_load[] = {
    FLD(tvm_tir_buffer_load_obj, buffer, TIR(Buffer), 0),
    FLD(tvm_tir_buffer_load_obj, indices, ARR, 0), END};
static const tir_field k_fields_ramp[] = {FLD(tvm_tir_ramp_obj, base, TIR(PrimExpr), 0),
                                          FLD(tvm_tir_ramp_obj, stride, TIR(PrimExpr), 0),
                                          FLD(tvm_tir_ramp_obj, lanes, kTVMFFIInt, 0), END};
static const tir_field k_fields_broadcast[] = {FLD(tvm_tir_broadcast_obj, value, TIR(PrimExpr), 0),
                                               FLD(tvm_tir_broadcast_obj, lanes, kTVMFFIInt, 0),
                                               END};
static const tir_field k_fields_let[] = {FLD(tvm_tir_let_obj, var, TIR(Var), DEF),
                                         FLD(tvm_tir_let_obj, value, TIR(PrimExpr), 0),
                                         FLD(tvm_tir_let_obj, body, TIR(PrimExpr), 0), END};
static const tir_field k_fields_call[] = {FLD(tvm_tir_call_obj, op, TIR(RelaxExpr), 0),
                                          FLD(tvm_tir_call_obj, args, ARR, 0), END};
static const tir_field k_fields_shuffle[] = {FLD(tvm_tir_shuffle_obj, vectors, ARR, 0),
                                             FLD(tvm_tir_shuffle_obj, indices, ARR, 0), END};

static const tir_field k_fields_global_var[] = {FLD(tvm_tir_global_var_obj, name_hint, STR, 0),
                                                END};
static const tir_field k_fields_op[] = {FLD(tvm_tir_op_obj, name, STR, 0),
                                        FLD(tvm_tir_op_obj, num_inputs, kTVMFFIInt, 0),
                                        FLD(tvm_tir_op_obj, call_effect_kind, kTVMFFIInt, 0), END};

static const tir_field k_fields_let_stmt[] = {FLD(tvm_tir_let_stmt_obj, var, TIR(Var), DEF),
                                              FLD(tvm_tir_let_stmt_obj, value, TIR(PrimExpr), 0),
                                              FLD(tvm_tir_let_stmt_obj, body, TIR(Stmt), 0), END};
static const tir_field k_fields_attr_stmt[] = {FLD(tvm_tir_attr_stmt_obj, node, kTVMFFIAny, 0),
                                               FLD(tvm_tir_attr_stmt_obj, attr_key, STR, 0),
                                               FLD(tvm_tir_attr_stmt_obj, value, TIR(PrimExpr), 0),
                                               FLD(tvm_tir_attr_stmt_obj, body, TIR(Stmt), 0), END};
static const tir_field k_fields_assert_stmt[] = {
    FLD(tvm_tir_assert_stmt_obj, condition, TIR(PrimExpr), 0),
    FLD(tvm_tir_assert_stmt_obj, message, TIR(PrimExpr), 0),
    FLD(tvm_tir_assert_stmt_obj, body, TIR(Stmt), 0),
    FLD(tvm_tir_assert_stmt_obj, kind, TIR(StringImm), 0), END};
static const tir_field k_fields_buffer_store[] = {
    FLD(tvm_tir_buffer_store_obj, buffer, TIR(Buffer), 0),
    FLD(tvm_tir_buffer_store_obj, value, TIR(PrimExpr), 0),
    FLD(tvm_tir_buffer_store_obj, indices, ARR, 0), END};
static const tir_field k_fields_buffer_realize[] = {
    FLD(tvm_tir_buffer_realize_obj, buffer, TIR(Buffer), 0),
    FLD(tvm_tir_buffer_realize_obj, bounds, ARR, 0),
    FLD(tvm_tir_buffer_realize_obj, condition, TIR(PrimExpr), 0),
    FLD(tvm_tir_buffer_realize_obj, body, TIR(Stmt), 0), END};
static const tir_field k_fields_allocate[] = {
    FLD(tvm_tir_allocate_obj, buffer_var, TIR(Var), DEF),
    FLD(tvm_tir_allocate_obj, dtype, kTVMFFIDataType, 0),
    FLD(tvm_tir_allocate_obj, extents, ARR, 0),
    FLD(tvm_tir_allocate_obj, condition, TIR(PrimExpr), 0),
    FLD(tvm_tir_allocate_obj, body, TIR(Stmt), 0),
    FLD(tvm_tir_allocate_obj, annotations, MAP, 0),
    END};
static const tir_field k_fields_decl_buffer[] = {
    FLD(tvm_tir_decl_buffer_obj, buffer, TIR(Buffer), 0),
    FLD(tvm_tir_decl_buffer_obj, body, TIR(Stmt), 0), END};
static const tir_field k_fields_seq_stmt[] = {FLD(tvm_tir_seq_stmt_obj, seq, ARR, 0), END};
static const tir_field k_fields_if_then_else[] = {
    FLD(tvm_tir_if_then_else_obj, condition, TIR(PrimExpr), 0),
    FLD(tvm_tir_if_then_else_obj, then_case, TIR(Stmt), 0),
    FLD(tvm_tir_if_then_else_obj, else_case, TIR(Stmt), 0), END};
static const tir_field k_fields_evaluate[] = {FLD(tvm_tir_evaluate_obj, value, TIR(PrimExpr), 0),
                                              END};
static const tir_field k_fields_for_stmt[] = {FLD(tvm_tir_for_obj, loop_var, TIR(Var), DEF),
                                              FLD(tvm_tir_for_obj, min, TIR(PrimExpr), 0),
                                              FLD(tvm_tir_for_obj, extent, TIR(PrimExpr), 0),
                                              FLD(tvm_tir_for_obj, kind, kTVMFFIInt, 0),
                                              FLD(tvm_tir_for_obj, body, TIR(Stmt), 0),
                                              FLD(tvm_tir_for_obj, thread_binding, TIR(IterVar), 0),
                                              FLD(tvm_tir_for_obj, annotations, MAP, 0),
                                              END};
static const tir_field k_fields_while_stmt[] = {FLD(tvm_tir_while_obj, condition, TIR(PrimExpr), 0),
                                                FLD(tvm_tir_while_obj, body, TIR(Stmt), 0), END};
static const tir_field k_fields_sblock[] = {
    FLD(tvm_tir_sblock_obj, iter_vars, ARR, DEF),   FLD(tvm_tir_sblock_obj, reads, ARR, 0),
    FLD(tvm_tir_sblock_obj, writes, ARR, 0),        FLD(tvm_tir_sblock_obj, name_hint, STR, IGNORE),
    FLD(tvm_tir_sblock_obj, alloc_buffers, ARR, 0), FLD(tvm_tir_sblock_obj, match_buffers, ARR, 0),
    FLD(tvm_tir_sblock_obj, annotations, MAP, 0),   FLD(tvm_tir_sblock_obj, init, TIR(Stmt), 0),
    FLD(tvm_tir_sblock_obj, body, TIR(Stmt), 0),    END};
static const tir_field k_fields_sblock_realize[] = {
    FLD(tvm_tir_sblock_realize_obj, iter_values, ARR, 0),
    FLD(tvm_tir_sblock_realize_obj, predicate, TIR(PrimExpr), 0),
    FLD(tvm_tir_sblock_realize_obj, block, TIR(SBlock), 0), END};

static const tir_field k_fields_range[] = {FLD(tvm_tir_range_obj, min, TIR(PrimExpr), 0),
                                           FLD(tvm_tir_range_obj, extent, TIR(PrimExpr), 0), END};
static const tir_field k_fields_iter_var[] = {FLD(tvm_tir_iter_var_obj, dom, TIR(Range), 0),
                                              FLD(tvm_tir_iter_var_obj, var, TIR(Var), DEF),
                                              FLD(tvm_tir_iter_var_obj, iter_type, kTVMFFIInt, 0),
                                              FLD(tvm_tir_iter_var_obj, thread_tag, STR, 0), END};
static const tir_field k_fields_buffer[] = {
    FLD(tvm_tir_buffer_obj, data, TIR(Var), DEF),
    FLD(tvm_tir_buffer_obj, dtype, kTVMFFIDataType, 0),
    FLD(tvm_tir_buffer_obj, shape, ARR, DEF),
    FLD(tvm_tir_buffer_obj, strides, ARR, DEF),
    FLD(tvm_tir_buffer_obj, axis_separators, ARR, DEF),
    FLD(tvm_tir_buffer_obj, elem_offset, TIR(PrimExpr), DEF),
    FLD(tvm_tir_buffer_obj, name, STR, IGNORE),
    FLD(tvm_tir_buffer_obj, data_alignment, kTVMFFIInt, 0),
    FLD(tvm_tir_buffer_obj, offset_factor, kTVMFFIInt, 0),
    FLD(tvm_tir_buffer_obj, buffer_type, kTVMFFIInt, 0),
    END};
static const tir_field k_fields_buffer_region[] = {
    FLD(tvm_tir_buffer_region_obj, buffer, TIR(Buffer), 0),
    FLD(tvm_tir_buffer_region_obj, region, ARR, 0), END};
static const tir_field k_fields_match_buffer_region[] = {
    FLD(tvm_tir_match_buffer_region_obj, buffer, TIR(Buffer), 0),
    FLD(tvm_tir_match_buffer_region_obj, source, TIR(BufferRegion), 0), END};
static const tir_field k_fields_prim_func[] = {FLD(tvm_tir_prim_func_obj, params, ARR, DEF),
                                               FLD(tvm_tir_prim_func_obj, ret_type, TIR(Type), 0),
                                               FLD(tvm_tir_prim_func_obj, buffer_map, MAP, DEF),
                                               FLD(tvm_tir_prim_func_obj, body, TIR(Stmt), 0),
                                               FUNC_ATTRS(tvm_tir_prim_func_obj), END};
static const tir_field k_fields_ir_module[] = {
    FLD(tvm_tir_ir_module_obj, global_var_map_, MAP, DEF),
    FLD(tvm_tir_ir_module_obj, functions, MAP, 0), FLD(tvm_tir_ir_module_obj, attrs, MAP, 0), END};
static const tir_field k_fields_comm_reducer[] = {
    FLD(tvm_tir_comm_reducer_obj, lhs, ARR, DEF), FLD(tvm_tir_comm_reducer_obj, rhs, ARR, DEF),
    FLD(tvm_tir_comm_reducer_obj, result, ARR, 0),
    FLD(tvm_tir_comm_reducer_obj, identity_element, ARR, 0), END};
static const tir_field k_fields_target[] = {FLD(tvm_tir_target_obj, kind, STR, 0),
                                            FLD(tvm_tir_target_obj, attrs, MAP, 0), END};
static const tir_field k_fields_index_map[] = {
    FLD(tvm_tir_index_map_obj, initial_indices, ARR, DEF),
    FLD(tvm_tir_index_map_obj, final_indices, ARR, 0),
    FLD(tvm_tir_index_map_obj, inverse_index_map, kTVMFFIAny, 0), END};
static const tir_field k_fields_vdevice[] = {FLD(tvm_tir_vdevice_obj, target, TIR(Target), 0),
                                             FLD(tvm_tir_vdevice_obj, vdevice_id, kTVMFFIInt, 0),
                                             FLD(tvm_tir_vdevice_obj, memory_scope, STR, 0), END};

/* ---- The kind table (from nodes.def) ------------------------------------------------------- */
/* Object creators for deserialization: a zeroed object of the kind. */
#define TVM_TIR_NODE(Name, type_key, Parent, c_struct, seq_kind, fields)              \
  static int create_##Name(TVMFFIObjectHandle* out) {                                 \
    *out = tvm_ffi_object_new(tvm_tir__index[TVM_TIR_KIND_##Name], sizeof(c_struct)); \
    return *out ? 0 : -1;                                                             \
  }
#include <tvm/tir/nodes.def>

typedef struct {
  const char* name;
  const char* type_key;
  int parent; /* a kind, or -1 for ffi.Object */
  size_t size;
  TVMFFISEqHashKind seq_kind;
  const tir_field* fields;
  TVMFFIObjectCreator creator;
} kind_info;

#define TVM_TIR_KIND_Object (-1)
static const kind_info k_kinds[TVM_TIR_KIND_COUNT] = {
#define TVM_TIR_NODE(Name, type_key, Parent, c_struct, seq_kind, fields) \
  [TVM_TIR_KIND_##Name] = {#Name,                                        \
                           type_key,                                     \
                           TVM_TIR_KIND_##Parent,                        \
                           sizeof(c_struct),                             \
                           kTVMFFISEqHashKind##seq_kind,                 \
                           k_fields_##fields,                            \
                           create_##Name},
#include <tvm/tir/nodes.def>
};
#undef TVM_TIR_KIND_Object

/* Layout invariants the reflection tables rely on: every derived struct starts with its base. */
_Static_assert(offsetof(tvm_tir_expr_obj, span) == offsetof(tvm_tir_base_expr_obj, span), "span");
_Static_assert(offsetof(tvm_tir_relax_expr_obj, span) == offsetof(tvm_tir_base_expr_obj, span),
               "span");
_Static_assert(offsetof(tvm_tir_var_obj, expr) == 0, "Var starts with PrimExpr");
_Static_assert(offsetof(tvm_tir_prim_func_obj, func) == 0, "PrimFunc starts with BaseFunc");
_Static_assert(offsetof(tvm_tir_base_func_obj, relax) == 0, "BaseFunc starts with RelaxExpr");
_Static_assert(offsetof(tvm_tir_sblock_obj, stmt) == 0, "SBlock starts with Stmt");

uint8_t tvm_tir__kind_by_index[TVM_TIR_KIND_TABLE];
uint64_t tvm_tir__ancestry[TVM_TIR_KIND_COUNT][2];
void* tvm_tir__g_empty_array; /* internal.h */
void* tvm_tir__g_empty_map;
#define g_empty_array tvm_tir__g_empty_array
#define g_empty_map tvm_tir__g_empty_map
/* The empty String, shared like the empty Array and Map: the storage scope of most pointer
 * types and the thread tag of most IterVars are "", a few per function, each of which used to
 * be a String of its own to make and free (strings are immutable and compared by content). */
static void* g_empty_str;
/* Why initialisation failed ("" when it succeeded or has not run). */
static char g_init_error[512];

static void init_failed(const char* what) {
  void* err = tvm_ffi_error_take();
  snprintf(g_init_error, sizeof(g_init_error), "%s: %s: %s", what,
           err ? tvm_ffi_error_kind(err) : "MemoryError", err ? tvm_ffi_error_message(err) : "");
  tvm_ffi_release(err);
}

/* Registration runs in two passes, types then fields, as fields may name kinds listed later. */
static int register_type(tvm_tir_kind k) {
  const kind_info* info = &k_kinds[k];
  int32_t parent = info->parent < 0 ? kTVMFFIObject : tvm_tir__index[info->parent];
  int32_t idx = tvm_ffi_type_register(info->type_key, parent, -1, info->size, NULL, info->seq_kind);
  if (idx < 0) return -1;
  tvm_tir__index[k] = idx;
  TVMFFITypeMetadata md;
  memset(&md, 0, sizeof(md));
  md.creator = info->creator;
  md.total_size = (int32_t)info->size;
  md.structural_eq_hash_kind = info->seq_kind;
  return TVMFFITypeRegisterMetadata(idx, &md);
}

static int register_fields(tvm_tir_kind k) {
  const kind_info* info = &k_kinds[k];
  tvm_ffi_field_def defs[16];
  int32_t n = 0;
  for (const tir_field* f = info->fields; f->name; ++f, ++n) {
    if (n == (int32_t)(sizeof(defs) / sizeof(defs[0]))) {
      return tvm_ffi_raise("RuntimeError", "%s: too many fields", info->type_key);
    }
    defs[n].name = f->name;
    defs[n].offset = f->offset;
    defs[n].size = f->size;
    defs[n].static_type_index = f->type <= -2 ? tvm_tir__index[-2 - f->type] : f->type;
    defs[n].flags = f->flags;
  }
  return n ? tvm_ffi_type_add_fields(tvm_tir__index[k], defs, n) : 0;
}

static void init_all(void) {
  tvm_ffi_init();
  for (int k = 0; k < TVM_TIR_KIND_COUNT; ++k) tvm_tir__index[k] = -1;
  for (int k = 0; k < TVM_TIR_KIND_COUNT; ++k) {
    if (register_type((tvm_tir_kind)k) != 0) {
      init_failed(k_kinds[k].type_key);
      return;
    }
  }
  for (int k = 0; k < TVM_TIR_KIND_COUNT; ++k) {
    if (register_fields((tvm_tir_kind)k) != 0) {
      init_failed(k_kinds[k].type_key);
      return;
    }
  }
  for (int k = 0; k < TVM_TIR_KIND_COUNT; ++k) {
    if ((uint32_t)tvm_tir__index[k] >= TVM_TIR_KIND_TABLE) { /* (libtvmffi allows fewer) */
      tvm_ffi_raise("RuntimeError", "type index %d beyond the kind table", tvm_tir__index[k]);
      init_failed(k_kinds[k].type_key);
      return;
    }
  }
  g_empty_array = tvm_ffi_array_new(NULL, 0);
  g_empty_map = tvm_ffi_map_new(NULL, NULL, 0);
  if (!g_empty_array || !g_empty_map) {
    init_failed("tables");
    return;
  }
  void* empty_str = tvm_ffi_str_obj("", 0);
  if (!empty_str) {
    init_failed("tables");
    return;
  }
  __atomic_store_n(&g_empty_str, empty_str, __ATOMIC_RELEASE);
  /* The registered parent of each kind is the parent of nodes.def, so a kind's ancestry there
   * is its ancestry as an ffi type: tvm_tir_is answers from it without the type registry. */
  for (int k = 0; k < TVM_TIR_KIND_COUNT; ++k) {
    for (int a = k; a >= 0; a = k_kinds[a].parent) {
      tvm_tir__ancestry[k][a >> 6] |= UINT64_C(1) << (a & 63);
    }
  }
  for (int k = 0; k < TVM_TIR_KIND_COUNT; ++k) {
    __atomic_store_n(&tvm_tir__kind_by_index[tvm_tir__index[k]], (uint8_t)(k + 1),
                     __ATOMIC_RELEASE);
  }
  tvm_tir__in_init = true;
  int rc = tvm_tir__init_ops();
  if (rc == 0) rc = tvm_tir__init_tensor_json();
  tvm_tir__in_init = false;
  if (rc != 0) {
    init_failed("ir.Op registry");
    return;
  }
  __atomic_store_n(&tvm_tir__initialized, 1, __ATOMIC_RELEASE);
}

static pthread_once_t g_once = PTHREAD_ONCE_INIT;

void tvm_tir_init(void) {
  if (__atomic_load_n(&tvm_tir__initialized, __ATOMIC_ACQUIRE)) return;
  pthread_once(&g_once, init_all);
}

__attribute__((constructor)) static void init_at_load(void) { tvm_tir_init(); }

void* tvm_tir__new_slow(tvm_tir_kind kind, size_t size) {
  tvm_tir__ensure_init();
  if (g_init_error[0]) {
    tvm_ffi_raise("RuntimeError", "libtir failed to initialise: %s", g_init_error);
    return NULL;
  }
  return tvm_ffi_object_new(tvm_tir__index[kind], size);
}


void* tvm_tir__shared_publish(void** slot, void* obj) {
  void* seen = NULL;
  if (!obj ||
      __atomic_compare_exchange_n(slot, &seen, obj, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    tvm_ffi_retain(obj); /* the slot keeps the first reference; this one is the caller's */
    return obj;
  }
  tvm_ffi_release(obj); /* another thread published its own first */
  tvm_ffi_retain(seen);
  return seen;
}

void* tvm_tir__str(const char* s) {
  if (!s || !*s) {
    void* e = __atomic_load_n(&g_empty_str, __ATOMIC_ACQUIRE);
    if (e) {
      tvm_ffi_retain(e);
      return e;
    }
    s = ""; /* (before initialisation) */
  }
  return tvm_ffi_str_obj(s, strlen(s));
}

/* ---- Public kind queries ------------------------------------------------------------------- */
int32_t tvm_tir_type_index(tvm_tir_kind kind) {
  tvm_tir__ensure_init();
  return kind >= 0 && kind < TVM_TIR_KIND_COUNT ? tvm_tir__index[kind] : -1;
}

tvm_tir_kind (tvm_tir_kind_of)(const void* obj) { return tir_kind_of(obj); }

const char* tvm_tir_kind_name(tvm_tir_kind kind) {
  return kind >= 0 && kind < TVM_TIR_KIND_COUNT ? k_kinds[kind].name : "<none>";
}

const char* tvm_tir_kind_type_key(tvm_tir_kind kind) {
  return kind >= 0 && kind < TVM_TIR_KIND_COUNT ? k_kinds[kind].type_key : "<none>";
}

bool tvm_tir__is_other(const void* obj, tvm_tir_kind kind) {
  tvm_tir__ensure_init();
  return tvm_ffi_instance_of(obj, tvm_tir__index[kind]);
}

bool (tvm_tir_is)(const void* obj, tvm_tir_kind kind) {
  if (!obj || kind < 0 || kind >= TVM_TIR_KIND_COUNT) return false;
  return tir_is(obj, kind);
}

/* ---- Object-field tables ------------------------------------------------------------------- */
/* The current tables; replaced ones stay allocated (a walk on another thread may be reading one)
 * on the list through prev. */
static tvm_tir__children* g_children;

/* The reflected field list of the probe type; see tvm_tir__children_get. */
static const TVMFFIFieldInfo* const* probe_fields(void) {
  const TVMFFIFieldInfo* const* fields;
  tvm_ffi_type_all_fields(tvm_tir__index[TVM_TIR_KIND_PrimFunc], &fields);
  return fields;
}

static bool is_object_typed(const TVMFFIFieldInfo* f) {
  return f->field_static_type_index == kTVMFFIAny ||
         f->field_static_type_index >= kTVMFFIStaticObjectBegin;
}

static tvm_tir__children* build_children(const TVMFFIFieldInfo* const* probe) {
  int32_t total = 0;
  for (int k = 0; k < TVM_TIR_KIND_COUNT; ++k) {
    const TVMFFIFieldInfo* const* fields;
    int32_t n = tvm_ffi_type_all_fields(tvm_tir__index[k], &fields);
    for (int32_t i = 0; i < n; ++i) total += is_object_typed(fields[i]);
  }
  tvm_tir__children* c =
      tvm_ffi_malloc(sizeof(tvm_tir__children) + (size_t)total * sizeof(tvm_tir__child_field));
  if (!c) return NULL;
  c->probe = probe;
  int32_t m = 0;
  for (int k = 0; k < TVM_TIR_KIND_COUNT; ++k) {
    const TVMFFIFieldInfo* const* fields;
    int32_t n = tvm_ffi_type_all_fields(tvm_tir__index[k], &fields);
    c->start[k] = m;
    for (int32_t i = 0; i < n && m < total; ++i) {
      if (!is_object_typed(fields[i])) continue;
      c->f[m++] = (tvm_tir__child_field){fields[i]->offset, fields[i]->field_static_type_index,
                                         fields[i]->name.data, fields[i]};
    }
  }
  c->start[TVM_TIR_KIND_COUNT] = m;
  return c;
}

const tvm_tir__children* tvm_tir__children_get(void) {
  tvm_tir__ensure_init();
  /* Any field registration (anywhere) bumps libtvmffi's field version, after which the next
   * tvm_ffi_type_all_fields of a type returns a newly allocated list (the old one stays
   * allocated, so the address cannot come back). The same probe list therefore means no field
   * was registered since the tables were built from tvm_ffi_type_all_fields: they are exactly
   * the reflected object fields, in reflection order. PrimFunc has fields, so its list is never
   * the NULL of a field-less type. */
  for (;;) {
    const TVMFFIFieldInfo* const* probe = probe_fields();
    tvm_tir__children* cur = __atomic_load_n(&g_children, __ATOMIC_ACQUIRE);
    if (cur && cur->probe == probe) return cur;
    tvm_tir__children* c = build_children(probe);
    if (!c) return NULL;
    c->prev = cur;
    if (__atomic_compare_exchange_n(&g_children, &c->prev, c, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
      return c;
    }
    tvm_ffi_free(c); /* another thread published first: look again */
  }
}

/*
 * tvm/tir/buffer.h: Range, IterVar, Buffer, BufferRegion and MatchBufferRegion (spec: grammar
 * and "Typing Rules for Other Language Constructs").
 *
 * All arguments are borrowed; results are new references (NULL + error on failure).
 */
#ifndef TVM_TIR_BUFFER_H_
#define TVM_TIR_BUFFER_H_

#include <tvm/tir/expr.h>
#include <tvm/tir/node.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* ---- Range --------------------------------------------------------------------------------- */
/* ir.Range: [min, min + extent). extent is optional (NULL) as in the spec's grammar. */
struct tvm_tir_range_obj {
  TVMFFIObject header;
  tvm_tir_expr_obj* min;
  tvm_tir_expr_obj* extent;
};
tvm_tir_range_obj* tvm_tir_range_new(tvm_tir_expr_obj* min, tvm_tir_expr_obj* extent);

/* ---- IterVar ------------------------------------------------------------------------------- */
/* Upstream's IterVarType values. */
typedef enum {
  TVM_TIR_ITER_DATA_PAR = 0,
  TVM_TIR_ITER_THREAD_INDEX = 1,
  TVM_TIR_ITER_COMM_REDUCE = 2,
  TVM_TIR_ITER_ORDERED = 3,
  TVM_TIR_ITER_OPAQUE = 4,
  TVM_TIR_ITER_UNROLLED = 5,
  TVM_TIR_ITER_VECTORIZED = 6,
  TVM_TIR_ITER_PARALLELIZED = 7,
  TVM_TIR_ITER_TENSORIZED = 8
} tvm_tir_iter_var_type;

/* tir.IterVar: var (a definition site) iterating over dom (optional). */
struct tvm_tir_iter_var_obj {
  TVMFFIObject header;
  tvm_tir_range_obj* dom;
  tvm_tir_var_obj* var;
  int32_t iter_type; /* tvm_tir_iter_var_type */
  void* thread_tag;  /* ffi.String, "" when none */
};
/* O-ITERVAR: a defined dom->extent must have an Int datatype equal to var's. thread_tag NULL
 * means "". */
tvm_tir_iter_var_obj* tvm_tir_iter_var_new(tvm_tir_range_obj* dom, tvm_tir_var_obj* var,
                                           tvm_tir_iter_var_type iter_type, const char* thread_tag);

/* ---- Buffer -------------------------------------------------------------------------------- */
/* Upstream's BufferType values. */
typedef enum { TVM_TIR_BUFFER_DEFAULT = 1, TVM_TIR_BUFFER_AUTO_BROADCAST = 2 } tvm_tir_buffer_type;

/* Default data_alignment in bytes (upstream's kAllocAlignment). */
#define TVM_TIR_DEFAULT_ALIGNMENT 64

/* tir.Buffer: a multi-dimensional view of memory. data, shape, strides, axis_separators and
 * elem_offset are definition sites for structural equality (their fresh variables are bound by
 * the first occurrence of the buffer); name is ignored by it. */
struct tvm_tir_buffer_obj {
  TVMFFIObject header;
  tvm_tir_var_obj* data; /* handle Var annotated PointerType(PrimType(...), scope) */
  DLDataType dtype;
  void* shape;                   /* ffi.Array of PrimExpr; empty for a scalar buffer */
  void* strides;                 /* ffi.Array of PrimExpr; empty when compact row-major */
  void* axis_separators;         /* ffi.Array of IntImm */
  tvm_tir_expr_obj* elem_offset; /* in elements; IntImm 0 unless given */
  void* name;                    /* ffi.String */
  int32_t data_alignment;
  int32_t offset_factor;
  int32_t buffer_type; /* tvm_tir_buffer_type */
};

/* Arguments of tvm_tir_buffer_new; zero-initialise and set what you need. */
typedef struct {
  tvm_tir_var_obj* data; /* required */
  DLDataType dtype;
  void* shape;                     /* ffi.Array of PrimExpr, NULL = () */
  void* strides;                   /* ffi.Array of PrimExpr, NULL = compact */
  void* axis_separators;           /* ffi.Array of IntImm, NULL = none */
  tvm_tir_expr_obj* elem_offset;   /* NULL = IntImm(index dtype, 0) */
  const char* name;                /* NULL = "buffer" */
  int32_t data_alignment;          /* <= 0: TVM_TIR_DEFAULT_ALIGNMENT */
  int32_t offset_factor;           /* 0: 1 */
  tvm_tir_buffer_type buffer_type; /* 0: TVM_TIR_BUFFER_DEFAULT */
} tvm_tir_buffer_fields;

/* O-BUFFER. The index dtype (of the default elem_offset) is the dtype of shape[0], or int32.
 * With TVM_TIR_BUFFER_AUTO_BROADCAST, no strides and a non-empty shape, strides become fresh
 * Vars "<name>_s<i>" of the shape's dtypes (spec O3 item 5). */
tvm_tir_buffer_obj* tvm_tir_buffer_new(const tvm_tir_buffer_fields* fields);
/* A compact buffer with a fresh data Var "<name>" of PointerType(PrimType(dtype), scope).
 * shape: ffi.Array of PrimExpr (NULL = ()); scope NULL = "" (global). */
tvm_tir_buffer_obj* tvm_tir_buffer_decl_new(const char* name, DLDataType dtype, void* shape,
                                            const char* scope);
static inline const char* tvm_tir_buffer_name(const tvm_tir_buffer_obj* b) {
  return tvm_ffi_str_cstr(b->name);
}
static inline int64_t tvm_tir_buffer_ndim(const tvm_tir_buffer_obj* b) {
  return tvm_ffi_seq_size(b->shape);
}
/* The storage scope of the buffer's data pointer ("" = global). */
const char* tvm_tir_buffer_scope(const tvm_tir_buffer_obj* b);

/* ---- Regions ------------------------------------------------------------------------------- */
/* tir.BufferRegion: region is an ffi.Array of Range, one per dimension. */
struct tvm_tir_buffer_region_obj {
  TVMFFIObject header;
  tvm_tir_buffer_obj* buffer;
  void* region;
};
/* O-BUFFERREGION: len(region) == ndim. */
tvm_tir_buffer_region_obj* tvm_tir_buffer_region_new(tvm_tir_buffer_obj* buffer, void* region);
/* The whole buffer: Range(0, shape[i]) per dimension. */
tvm_tir_buffer_region_obj* tvm_tir_buffer_region_full(tvm_tir_buffer_obj* buffer);

/* tir.MatchBufferRegion: buffer is an alias of the source region. */
struct tvm_tir_match_buffer_region_obj {
  TVMFFIObject header;
  tvm_tir_buffer_obj* buffer;
  tvm_tir_buffer_region_obj* source;
};
/* O-MATCHBUFFER (see docs/tir-decisions.md for what is checked statically). */
tvm_tir_match_buffer_region_obj* tvm_tir_match_buffer_region_new(tvm_tir_buffer_obj* buffer,
                                                                 tvm_tir_buffer_region_obj* source);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_TIR_BUFFER_H_ */

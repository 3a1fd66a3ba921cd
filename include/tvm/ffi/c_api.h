/*
 * tvm/ffi/c_api.h: the tvm-ffi stable C ABI.
 *
 * Binary compatible with apache/tvm-ffi's C ABI (version below): the same struct layouts,
 * type-index values, flag values and function signatures, so that a program written against
 * upstream's c_api.h compiles against this header and runs against libtvmffi, and a kernel
 * library built against either loads in the other. Layouts are pinned by static asserts in
 * libtvmffi/src/abi_layout.c. The convenience API for C programs is in tvm/ffi/ffi.h.
 *
 * Conventions of every function here: 0 is success; non-zero is failure with an error left in
 * the thread-local slot (TVMFFIErrorMoveFromRaised). Arguments are borrowed; handles written to
 * `out` parameters are new references the caller releases with TVMFFIObjectDecRef.
 */
#ifndef TVM_FFI_C_API_H_
#define TVM_FFI_C_API_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>
#include <tvm/ffi/dlpack_compat.h>

#ifdef _MSC_VER
#define TVM_FFI_WEAK __declspec(selectany)
#else
#define TVM_FFI_WEAK __attribute__((weak))
#endif

#ifndef TVM_FFI_DLL
#define TVM_FFI_DLL __attribute__((visibility("default")))
#define TVM_FFI_DLL_EXPORT __attribute__((visibility("default")))
#endif

/* Marks a function without side effects whose result depends only on its arguments and memory. */
#ifndef TVM_FFI_ATTRIBUTE_PURE
#if defined(__GNUC__) || defined(__clang__)
#define TVM_FFI_ATTRIBUTE_PURE __attribute__((pure))
#else
#define TVM_FFI_ATTRIBUTE_PURE
#endif
#endif

#define TVM_FFI_VERSION_MAJOR 0
#define TVM_FFI_VERSION_MINOR 1
#define TVM_FFI_VERSION_PATCH 14

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* Version of the ABI implemented by the library that answers TVMFFIGetVersion. */
typedef struct {
  uint32_t major;
  uint32_t minor;
  uint32_t patch;
} TVMFFIVersion;

/*
 * Type indices. [0, 64): values stored inline in TVMFFIAny. [64, 128): built-in object types.
 * [128, ...): types allocated at run time by TVMFFITypeGetOrAllocIndex.
 */
#ifdef __cplusplus
enum TVMFFITypeIndex : int32_t {
#else
typedef enum {
#endif
  kTVMFFIAny = -1,              /* "any value": only in reflection metadata, never in a value */
  kTVMFFINone = 0,              /* null */
  kTVMFFIInt = 1,               /* v_int64 */
  kTVMFFIBool = 2,              /* v_int64, 0 or 1 */
  kTVMFFIFloat = 3,             /* v_float64 */
  kTVMFFIOpaquePtr = 4,         /* v_ptr, not owned */
  kTVMFFIDataType = 5,          /* v_dtype */
  kTVMFFIDevice = 6,            /* v_device */
  kTVMFFIDLTensorPtr = 7,       /* v_ptr to a DLTensor, not owned */
  kTVMFFIRawStr = 8,            /* v_c_str, NUL-terminated, not owned (argument views only) */
  kTVMFFIByteArrayPtr = 9,      /* v_ptr to a TVMFFIByteArray, not owned */
  kTVMFFIObjectRValueRef = 10,  /* v_ptr to a slot holding an object handle to be moved */
  kTVMFFISmallStr = 11,         /* up to 7 bytes inline in v_bytes, length in small_str_len */
  kTVMFFISmallBytes = 12,       /* same, for bytes */
  kTVMFFIStaticObjectBegin = 64,
  kTVMFFIObject = 64,           /* root of all objects */
  kTVMFFIStr = 65,              /* { TVMFFIObject, TVMFFIByteArray } */
  kTVMFFIBytes = 66,            /* { TVMFFIObject, TVMFFIByteArray } */
  kTVMFFIError = 67,            /* { TVMFFIObject, TVMFFIErrorCell } */
  kTVMFFIFunction = 68,         /* { TVMFFIObject, TVMFFIFunctionCell } */
  kTVMFFIShape = 69,            /* { TVMFFIObject, TVMFFIShapeCell } */
  kTVMFFITensor = 70,           /* { TVMFFIObject, DLTensor } */
  kTVMFFIArray = 71,            /* { TVMFFIObject, TVMFFISeqCell }, immutable */
  kTVMFFIMap = 72,              /* immutable hash map */
  kTVMFFIModule = 73,           /* a loaded or compiled module */
  kTVMFFIOpaquePyObject = 74,   /* { TVMFFIObject, TVMFFIOpaqueObjectCell } */
  kTVMFFIList = 75,             /* { TVMFFIObject, TVMFFISeqCell }, mutable */
  kTVMFFIDict = 76,             /* mutable hash map */
  kTVMFFIVisitInterrupt = 77,   /* marker object that stops a structural visit */
  kTVMFFIStaticObjectEnd,
  kTVMFFIDynObjectBegin = 128
#ifdef __cplusplus
};
#else
} TVMFFITypeIndex;
#endif

typedef void* TVMFFIObjectHandle;

/* Flags passed to an object's deleter: destroy the contents (strong), free the block (weak). */
#ifdef __cplusplus
enum TVMFFIObjectDeleterFlagBitMask : int32_t {
#else
typedef enum {
#endif
  kTVMFFIObjectDeleterFlagBitMaskStrong = 1 << 0,
  kTVMFFIObjectDeleterFlagBitMaskWeak = 1 << 1,
  kTVMFFIObjectDeleterFlagBitMaskBoth =
      (kTVMFFIObjectDeleterFlagBitMaskStrong | kTVMFFIObjectDeleterFlagBitMaskWeak),
#ifdef __cplusplus
};
#else
} TVMFFIObjectDeleterFlagBitMask;
#endif

/*
 * Header of every heap object. combined_ref_count holds the strong count in its low 32 bits and
 * the weak count in its high 32 bits; all strong references together hold one weak reference,
 * so a new object starts at 0x100000001.
 */
typedef struct {
  uint64_t combined_ref_count;
  int32_t type_index;
  uint32_t __padding;
  union {
    void (*deleter)(void* self, int flags);
    int64_t __ensure_align;
  };
} TVMFFIObject;

/* A value: a type index and 8 bytes of payload (16 bytes in all). */
typedef struct {
  int32_t type_index;
  union {
    uint32_t zero_padding; /* zero except for small strings/bytes */
    uint32_t small_str_len;
  };
  union {
    int64_t v_int64;
    double v_float64;
    void* v_ptr;
    const char* v_c_str;
    TVMFFIObject* v_obj;
    DLDataType v_dtype;
    DLDevice v_device;
    char v_bytes[8];
    uint64_t v_uint64;
  };
} TVMFFIAny;

/* A (pointer, length) view of bytes; the payload of String and Bytes objects. */
typedef struct {
  const char* data;
  size_t size;
} TVMFFIByteArray;

/* Payload of Shape objects. */
typedef struct {
  const int64_t* data;
  size_t size;
} TVMFFIShapeCell;

/*
 * Payload of Array and List objects: `size` TVMFFIAny elements at `data`. When data_deleter is
 * non-NULL the buffer was allocated separately and is freed with it; otherwise it lives inside
 * the object's own allocation.
 */
typedef struct TVMFFISeqCell {
  void* data;
  int64_t size;
  int64_t capacity;
  void (*data_deleter)(void*);
} TVMFFISeqCell;

#ifdef __cplusplus
enum TVMFFIBacktraceUpdateMode : int32_t {
#else
typedef enum {
#endif
  kTVMFFIBacktraceUpdateModeReplace = 0,
  kTVMFFIBacktraceUpdateModeAppend = 1,
#ifdef __cplusplus
};
#else
} TVMFFIBacktraceUpdateMode;
#endif

/*
 * Payload of Error objects. The backtrace lists the most recent frame first. cause_chain and
 * extra_context are optional object handles owned by the error.
 */
typedef struct {
  TVMFFIByteArray kind;
  TVMFFIByteArray message;
  TVMFFIByteArray backtrace;
  void (*update_backtrace)(TVMFFIObjectHandle self, const TVMFFIByteArray* backtrace,
                           int32_t update_mode);
  TVMFFIObjectHandle cause_chain;
  TVMFFIObjectHandle extra_context;
} TVMFFIErrorCell;

/*
 * The calling convention of every function: `handle` identifies the callee, `args` are borrowed
 * views, `result` is initialised by the caller to None and receives an owned value. Returns 0,
 * or -1 with an error raised (TVMFFIErrorMoveFromRaised).
 */
typedef int (*TVMFFISafeCallType)(void* handle, const TVMFFIAny* args, int32_t num_args,
                                  TVMFFIAny* result);

/* Payload of Function objects. cpp_call is for C++ runtimes and is NULL for C functions. */
typedef struct {
  TVMFFISafeCallType safe_call;
  void* cpp_call;
} TVMFFIFunctionCell;

/* Payload of opaque objects wrapping a foreign handle. */
typedef struct {
  void* handle;
} TVMFFIOpaqueObjectCell;

/*
 * Every object allocation is preceded by this header; delete_space(body) frees the block whose
 * object body starts at `body` (the TVMFFIObject address).
 */
typedef struct {
  void (*delete_space)(void* ptr);
} TVMFFIObjectAllocHeader;

/*
 * The allocator objects are created with: allocate returns the object body, preceded by an
 * initialised TVMFFIObjectAllocHeader, or NULL on failure.
 */
typedef struct {
  void* (*allocate)(size_t size, size_t alignment, int32_t type_index, void* context);
  void* context;
} TVMFFICustomAllocator;

/* ---- Version ---- */
TVM_FFI_DLL void TVMFFIGetVersion(TVMFFIVersion* out_version);

/* ---- Object allocation ---- */
/* The allocator in use (the built-in one unless set); never NULL. */
TVM_FFI_DLL TVMFFICustomAllocator* TVMFFIGetCustomAllocator(void);
/* Use `allocator` for new objects (NULL restores the built-in one). The struct must outlive it. */
TVM_FFI_DLL int TVMFFISetCustomAllocator(TVMFFICustomAllocator* allocator);

/* ---- Objects ---- */
TVM_FFI_DLL int TVMFFIObjectIncRef(TVMFFIObjectHandle obj);
TVM_FFI_DLL int TVMFFIObjectDecRef(TVMFFIObjectHandle obj);
TVM_FFI_DLL int TVMFFIObjectCreateOpaque(void* handle, int32_t type_index,
                                         void (*deleter)(void* handle), TVMFFIObjectHandle* out);
TVM_FFI_DLL int TVMFFITypeKeyToIndex(const TVMFFIByteArray* type_key, int32_t* out_tindex);

/* ---- Functions ---- */
/*
 * Wrap a C callback. With self == NULL, safe_call is stored as the cell's safe_call and is
 * called with the function object itself as handle; otherwise it is called with `self`, and
 * deleter(self) runs when the function object dies.
 */
TVM_FFI_DLL int TVMFFIFunctionCreate(void* self, TVMFFISafeCallType safe_call,
                                     void (*deleter)(void* self), TVMFFIObjectHandle* out);
/* Look up a global function; a missing name is success with *out == NULL. */
TVM_FFI_DLL int TVMFFIFunctionGetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle* out);
/* Copy a view into an owned value (raw strings and byte arrays become String/Bytes). */
TVM_FFI_DLL int TVMFFIAnyViewToOwnedAny(const TVMFFIAny* any_view, TVMFFIAny* out);
TVM_FFI_DLL int TVMFFIFunctionCall(TVMFFIObjectHandle func, TVMFFIAny* args, int32_t num_args,
                                   TVMFFIAny* result);

/* ---- Errors ---- */
/* Take the raised error (a new reference) and clear the slot; *result is NULL if none. */
TVM_FFI_DLL void TVMFFIErrorMoveFromRaised(TVMFFIObjectHandle* result);
/* Raise `error` (the slot takes a new reference). */
TVM_FFI_DLL void TVMFFIErrorSetRaised(TVMFFIObjectHandle error);
TVM_FFI_DLL void TVMFFIErrorSetRaisedFromCStr(const char* kind, const char* message);
/* Raise an error whose message is the concatenation of the non-NULL parts. */
TVM_FFI_DLL void TVMFFIErrorSetRaisedFromCStrParts(const char* kind, const char** message_parts,
                                                   int32_t num_parts);
/* Create an error object; on failure returns non-zero without raising (out of memory). */
TVM_FFI_DLL int TVMFFIErrorCreate(const TVMFFIByteArray* kind, const TVMFFIByteArray* message,
                                  const TVMFFIByteArray* backtrace, TVMFFIObjectHandle* out);
TVM_FFI_DLL int TVMFFIErrorCreateWithCauseAndExtraContext(
    const TVMFFIByteArray* kind, const TVMFFIByteArray* message, const TVMFFIByteArray* backtrace,
    TVMFFIObjectHandle cause_chain, TVMFFIObjectHandle extra_context, TVMFFIObjectHandle* out);

/* ---- DLPack ---- */
TVM_FFI_DLL int TVMFFITensorFromDLPack(DLManagedTensor* from, int32_t require_alignment,
                                       int32_t require_contiguous, TVMFFIObjectHandle* out);
TVM_FFI_DLL int TVMFFITensorToDLPack(TVMFFIObjectHandle from, DLManagedTensor** out);
TVM_FFI_DLL int TVMFFITensorFromDLPackVersioned(DLManagedTensorVersioned* from,
                                                int32_t require_alignment,
                                                int32_t require_contiguous,
                                                TVMFFIObjectHandle* out);
TVM_FFI_DLL int TVMFFITensorToDLPackVersioned(TVMFFIObjectHandle from,
                                              DLManagedTensorVersioned** out);
/* A tensor sharing `source`'s memory with prototype's data/shape/strides/dtype (unchecked). */
TVM_FFI_DLL int TVMFFITensorCreateUnsafeView(TVMFFIObjectHandle source, const DLTensor* prototype,
                                             TVMFFIObjectHandle* out);

/* ---- Strings, bytes, data types ---- */
TVM_FFI_DLL int TVMFFIStringFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out);
TVM_FFI_DLL int TVMFFIBytesFromByteArray(const TVMFFIByteArray* input, TVMFFIAny* out);
TVM_FFI_DLL int TVMFFIDataTypeFromString(const TVMFFIByteArray* str, DLDataType* out);
TVM_FFI_DLL int TVMFFIDataTypeToString(const DLDataType* dtype, TVMFFIAny* out);

/* ---- Reflection ---- */
typedef int (*TVMFFIFieldGetter)(void* field, TVMFFIAny* result);
typedef int (*TVMFFIFieldSetter)(void* field, const TVMFFIAny* value);
typedef int (*TVMFFIObjectCreator)(TVMFFIObjectHandle* result);

#ifdef __cplusplus
enum TVMFFIFieldFlagBitMask : int32_t {
#else
typedef enum {
#endif
  kTVMFFIFieldFlagBitMaskWritable = 1 << 0,
  kTVMFFIFieldFlagBitMaskHasDefault = 1 << 1,
  kTVMFFIFieldFlagBitMaskIsStaticMethod = 1 << 2,
  kTVMFFIFieldFlagBitMaskSEqHashIgnore = 1 << 3, /* skipped by structural equality and hash */
  /*
   * The field is a recursive definition region: free variables met anywhere under it,
   * including inside a defined variable's own fields (its type annotation's shape variables),
   * are defined there. kTVMFFIFieldFlagBitMaskSEqHashDef is its name before upstream 0.1.11.
   */
  kTVMFFIFieldFlagBitMaskSEqHashDefRecursive = 1 << 4,
  kTVMFFIFieldFlagBitMaskSEqHashDef = kTVMFFIFieldFlagBitMaskSEqHashDefRecursive,
  kTVMFFIFieldFlagBitMaskDefaultFromFactory = 1 << 5,
  kTVMFFIFieldFlagBitMaskReprOff = 1 << 6,
  kTVMFFIFieldFlagBitMaskCompareOff = 1 << 7,
  kTVMFFIFieldFlagBitMaskHashOff = 1 << 8,
  kTVMFFIFieldFlagBitMaskInitOff = 1 << 9,
  kTVMFFIFieldFlagBitMaskKwOnly = 1 << 10,
  kTVMFFIFieldFlagBitSetterIsFunctionObj = 1 << 11,
  /*
   * The field is a non-recursive definition region (a let-style binding): the free variables
   * the field holds are defined there, but the fields of those variables (and of any other
   * object under it) are uses that must resolve to definitions outside.
   */
  kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive = 1 << 12,
#ifdef __cplusplus
};
#else
} TVMFFIFieldFlagBitMask;
#endif

/* The definition region a structural visit is in (set by the SEqHashDef* field flags). */
#ifdef __cplusplus
enum TVMFFIDefRegionKind : int32_t {
#else
typedef enum {
#endif
  kTVMFFIDefRegionKindNone = 0,         /* not in a definition region: variables are uses */
  kTVMFFIDefRegionKindRecursive = 1,    /* kTVMFFIFieldFlagBitMaskSEqHashDefRecursive */
  kTVMFFIDefRegionKindNonRecursive = 2, /* kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive */
#ifdef __cplusplus
};
#else
} TVMFFIDefRegionKind;
#endif

/* How structural equality and hashing treat instances of a type. */
#ifdef __cplusplus
enum TVMFFISEqHashKind : int32_t {
#else
typedef enum {
#endif
  kTVMFFISEqHashKindUnsupported = 0,
  kTVMFFISEqHashKindTreeNode = 1,       /* compare fields recursively */
  kTVMFFISEqHashKindFreeVar = 2,        /* a variable: equal to the one it is mapped to */
  kTVMFFISEqHashKindDAGNode = 3,        /* like a tree node, but sharing must match too */
  kTVMFFISEqHashKindConstTreeNode = 4,  /* a tree node that contains no variables */
  kTVMFFISEqHashKindUniqueInstance = 5, /* pointer identity */
#ifdef __cplusplus
};
#else
} TVMFFISEqHashKind;
#endif

typedef struct {
  TVMFFIByteArray name;
  TVMFFIByteArray doc;
  TVMFFIByteArray metadata; /* JSON text */
  int64_t flags;
  int64_t size;
  int64_t alignment;
  int64_t offset;
  TVMFFIFieldGetter getter;
  void* setter; /* a TVMFFIFieldSetter, or a Function handle with SetterIsFunctionObj */
  TVMFFIAny default_value_or_factory;
  int32_t field_static_type_index;
} TVMFFIFieldInfo;

typedef struct {
  TVMFFIByteArray name;
  TVMFFIByteArray doc;
  TVMFFIByteArray metadata;
  int64_t flags;
  TVMFFIAny method; /* a Function; instance methods take self first */
} TVMFFIMethodInfo;

typedef struct {
  TVMFFIByteArray doc;
  TVMFFIObjectCreator creator;
  int32_t total_size;
  TVMFFISEqHashKind structural_eq_hash_kind;
} TVMFFITypeMetadata;

/* One attribute over all types: entry for type t is data[t - begin_index] when in range. */
typedef struct {
  const TVMFFIAny* data;
  int32_t size;
  int32_t begin_index;
} TVMFFITypeAttrColumn;

typedef struct TVMFFITypeInfo {
  int32_t type_index;
  int32_t type_depth;
  TVMFFIByteArray type_key;
  const struct TVMFFITypeInfo** type_ancestors; /* type_ancestors[d]: ancestor at depth d */
  uint64_t type_key_hash;
  int32_t num_fields;
  int32_t num_methods;
  const TVMFFIFieldInfo* fields;
  const TVMFFIMethodInfo* methods;
  const TVMFFITypeMetadata* metadata;
} TVMFFITypeInfo;

/* Register a global function; without allow_override an existing name is a RuntimeError. */
TVM_FFI_DLL int TVMFFIFunctionSetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle f,
                                        int allow_override);
TVM_FFI_DLL int TVMFFIFunctionSetGlobalFromMethodInfo(const TVMFFIMethodInfo* method_info,
                                                      int allow_override);
TVM_FFI_DLL int TVMFFITypeRegisterField(int32_t type_index, const TVMFFIFieldInfo* info);
TVM_FFI_DLL int TVMFFITypeRegisterMethod(int32_t type_index, const TVMFFIMethodInfo* info);
TVM_FFI_DLL int TVMFFITypeRegisterMetadata(int32_t type_index, const TVMFFITypeMetadata* metadata);
TVM_FFI_DLL int TVMFFITypeRegisterAttr(int32_t type_index, const TVMFFIByteArray* attr_name,
                                       const TVMFFIAny* attr_value);
/* NULL when no type has the attribute. */
TVM_FFI_DLL const TVMFFITypeAttrColumn* TVMFFIGetTypeAttrColumn(const TVMFFIByteArray* attr_name);

/* ---- Runtime internals used by generated code and bindings ---- */
/* The current backtrace, most recent frame first; valid until the next call on this thread. */
TVM_FFI_DLL const TVMFFIByteArray* TVMFFIBacktrace(const char* filename, int lineno,
                                                   const char* func, int cross_ffi_boundary);
/*
 * Return the index of `type_key`, registering it on first use: with static_type_index >= 0
 * that index is used, otherwise one is allocated from kTVMFFIDynObjectBegin. Returns -1 (with
 * an error raised) when the registration conflicts with an earlier one.
 */
TVM_FFI_DLL int32_t TVMFFITypeGetOrAllocIndex(const TVMFFIByteArray* type_key,
                                              int32_t static_type_index, int32_t type_depth,
                                              int32_t num_child_slots,
                                              int32_t child_slots_can_overflow,
                                              int32_t parent_type_index);
/* NULL for an index that names no registered type. */
TVM_FFI_DLL TVM_FFI_ATTRIBUTE_PURE const TVMFFITypeInfo* TVMFFIGetTypeInfo(int32_t type_index);

/* Thread-safe one-time initialisation / tear-down of a handle stored at *handle_addr. */
TVM_FFI_DLL int TVMFFIHandleInitOnce(void** handle_addr, int (*init_func)(void** result));
TVM_FFI_DLL int TVMFFIHandleDeinitOnce(void** handle_addr, int (*deinit_func)(void* handle));

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

/* Cell accessors: pure address arithmetic, valid for the matching object types. */
#ifdef __cplusplus
#define TVM_FFI_CELL_(T, obj) (reinterpret_cast<T*>(reinterpret_cast<char*>(obj) + sizeof(TVMFFIObject)))
#else
#define TVM_FFI_CELL_(T, obj) ((T*)((char*)(obj) + sizeof(TVMFFIObject)))
#endif
static inline int32_t TVMFFIObjectGetTypeIndex(TVMFFIObjectHandle obj) {
  return ((TVMFFIObject*)obj)->type_index;
}
static inline TVMFFIByteArray TVMFFISmallBytesGetContentByteArray(const TVMFFIAny* value) {
  TVMFFIByteArray r;
  r.data = value->v_bytes;
  r.size = (size_t)value->small_str_len;
  return r;
}
static inline TVMFFIByteArray* TVMFFIBytesGetByteArrayPtr(TVMFFIObjectHandle obj) {
  return TVM_FFI_CELL_(TVMFFIByteArray, obj);
}
static inline TVMFFIErrorCell* TVMFFIErrorGetCellPtr(TVMFFIObjectHandle obj) {
  return TVM_FFI_CELL_(TVMFFIErrorCell, obj);
}
static inline TVMFFIFunctionCell* TVMFFIFunctionGetCellPtr(TVMFFIObjectHandle obj) {
  return TVM_FFI_CELL_(TVMFFIFunctionCell, obj);
}
static inline TVMFFIOpaqueObjectCell* TVMFFIOpaqueObjectGetCellPtr(TVMFFIObjectHandle obj) {
  return TVM_FFI_CELL_(TVMFFIOpaqueObjectCell, obj);
}
static inline TVMFFIShapeCell* TVMFFIShapeGetCellPtr(TVMFFIObjectHandle obj) {
  return TVM_FFI_CELL_(TVMFFIShapeCell, obj);
}
static inline TVMFFISeqCell* TVMFFISeqGetCellPtr(TVMFFIObjectHandle obj) {
  return TVM_FFI_CELL_(TVMFFISeqCell, obj);
}
static inline DLTensor* TVMFFITensorGetDLTensorPtr(TVMFFIObjectHandle obj) {
  return TVM_FFI_CELL_(DLTensor, obj);
}
static inline DLDevice TVMFFIDLDeviceFromIntPair(int32_t device_type, int32_t device_id) {
  DLDevice d;
  d.device_type = (DLDeviceType)device_type;
  d.device_id = device_id;
  return d;
}

#endif /* TVM_FFI_C_API_H_ */

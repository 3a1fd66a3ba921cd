/*
 * tvm/ffi/ffi.h: the C convenience API over the tvm-ffi ABI, used by every library of the suite.
 *
 * Conventions (docs/architecture.md):
 * - A function returning an object returns a new reference; arguments are borrowed. `_take`
 *   in a name means the function takes ownership of that argument.
 * - Failure is NULL or a non-zero int with an error raised in the thread-local slot.
 * - Objects are allocated with tvm_ffi_object_new and described by a registered type whose
 *   reflected fields drive destruction, structural equality/hash and JSON serialization.
 */
#ifndef TVM_FFI_FFI_H_
#define TVM_FFI_FFI_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

#if defined(__GNUC__)
#define TVM_FFI_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))
/* A function that raises an error: calls of it are unlikely, and the compiler moves the code
 * that leads to them out of the way of the code that does not. */
#define TVM_FFI_COLD __attribute__((cold))
#else
#define TVM_FFI_PRINTF(fmt_idx, arg_idx)
#define TVM_FFI_COLD
#endif

/* "MAJOR.MINOR.PATCH" of libtvmffi itself (libtvmffi/VERSION); the ABI version is in c_api.h. */
const char* tvm_ffi_version(void);

/* Registers the built-in types and global functions. Idempotent and thread-safe; every entry
 * point that needs the registries calls it, so callers rarely have to. */
void tvm_ffi_init(void);

/* ------------------------------------------------------------------------------------------ */
/* Memory: one allocator interface (jemalloc's mallocx family when available, else libc).     */
/* ------------------------------------------------------------------------------------------ */
void* tvm_ffi_malloc(size_t size);            /* NULL + MemoryError raised on failure */
void* tvm_ffi_calloc(size_t count, size_t size);
void* tvm_ffi_realloc(void* ptr, size_t size);
void tvm_ffi_free(void* ptr);                 /* NULL-safe */
void* tvm_ffi_aligned_alloc(size_t alignment, size_t size); /* free with tvm_ffi_free */
char* tvm_ffi_strndup(const char* s, size_t n);             /* NUL-terminated copy */
/* Name of the backend in use: "jemalloc" or "libc". */
const char* tvm_ffi_allocator_name(void);

/* ------------------------------------------------------------------------------------------ */
/* Objects                                                                                    */
/* ------------------------------------------------------------------------------------------ */
typedef TVMFFIObject tvm_ffi_object;

static inline void tvm_ffi_retain(void* obj) {
  if (obj) __atomic_fetch_add(&((TVMFFIObject*)obj)->combined_ref_count, 1, __ATOMIC_RELAXED);
}
void tvm_ffi_release(void* obj); /* NULL-safe */
/* The rest of tvm_ffi_release after its decrement found the last strong reference (old: the
 * count before it): destroy, and free unless weak references remain. Public only because the
 * inline form below calls it from the caller's own code; call tvm_ffi_release instead. */
void tvm_ffi_release_last(void* obj, uint64_t old);
/* tvm_ffi_release inline: dropping a reference that is not the last (most drops) costs no
 * call. A call names the function only through the macro; its address (a callback) is still
 * the exported function, which does the same. */
static inline void tvm_ffi_release_inline(void* obj) {
  if (!obj) return;
  uint64_t old =
      __atomic_fetch_sub(&((TVMFFIObject*)obj)->combined_ref_count, 1, __ATOMIC_RELEASE);
  if ((old & 0xFFFFFFFFu) == 1) tvm_ffi_release_last(obj, old);
}
#define tvm_ffi_release(obj) tvm_ffi_release_inline(obj)
static inline int32_t tvm_ffi_type_index(const void* obj) {
  return ((const TVMFFIObject*)obj)->type_index;
}
static inline uint32_t tvm_ffi_strong_count(const void* obj) {
  return (uint32_t)(__atomic_load_n(&((const TVMFFIObject*)obj)->combined_ref_count,
                                    __ATOMIC_RELAXED) & 0xFFFFFFFFu);
}
static inline uint32_t tvm_ffi_weak_count(const void* obj) {
  return (uint32_t)(__atomic_load_n(&((const TVMFFIObject*)obj)->combined_ref_count,
                                    __ATOMIC_RELAXED) >> 32);
}
/* Weak references: keep the memory, not the contents. lock returns a strong ref or NULL. */
void tvm_ffi_weak_retain(void* obj);
void tvm_ffi_weak_release(void* obj);
void* tvm_ffi_weak_lock(void* obj);

/* A zeroed object of a registered type, count 1 strong + 1 weak; destroyed through the type's
 * destructor (tvm_ffi_type_register). `size` includes the header. NULL + error on failure. */
void* tvm_ffi_object_new(int32_t type_index, size_t size);
/* True when obj's type is type_index or derives from it (constant time). */
bool tvm_ffi_instance_of(const void* obj, int32_t type_index);
/* The registered key of a type ("ffi.Array", "int", ...), or "<unknown>". */
const char* tvm_ffi_type_key(int32_t type_index);

/* ------------------------------------------------------------------------------------------ */
/* Types and reflection                                                                       */
/* ------------------------------------------------------------------------------------------ */
/* Releases what an object owns (not its memory). NULL means: release its reflected fields. */
typedef void (*tvm_ffi_destroy_fn)(void* self);

/*
 * Register (or find, if already registered identically) an object type. parent_index is
 * kTVMFFIObject for a direct child of Object. static_index is -1 for a dynamic index.
 * Returns the index, or -1 with an error.
 */
int32_t tvm_ffi_type_register(const char* type_key, int32_t parent_index, int32_t static_index,
                              size_t size, tvm_ffi_destroy_fn destroy, TVMFFISEqHashKind seq_kind);
/* Index of a registered key, or -1 without raising. */
int32_t tvm_ffi_type_find(const char* type_key);

/*
 * A reflected field, stored at `offset` in the object. static_type_index and size tell how it
 * is stored: kTVMFFIAny (a TVMFFIAny, 16 bytes), an object index >= 64 (an object pointer,
 * 8 bytes, nullable), kTVMFFIInt (int64/int32/int8 by size), kTVMFFIBool (1 byte),
 * kTVMFFIFloat (double or float by size), kTVMFFIDataType (DLDataType), kTVMFFIDevice.
 */
typedef struct {
  const char* name;
  size_t offset;
  int32_t static_type_index;
  int32_t size;
  int64_t flags; /* kTVMFFIFieldFlagBitMask* */
} tvm_ffi_field_def;

#define TVM_FFI_FIELD(T, member, static_tindex, flags) \
  { #member, offsetof(T, member), (static_tindex), (int32_t)sizeof(((T*)0)->member), (flags) }

int tvm_ffi_type_add_fields(int32_t type_index, const tvm_ffi_field_def* defs, int32_t count);
/* Fields of a type including its ancestors', outermost ancestor first (borrowed, stable). */
int32_t tvm_ffi_type_all_fields(int32_t type_index, const TVMFFIFieldInfo* const** out_fields);
/* Read a field as an owned value / write a value into it (type checked, TypeError). */
int tvm_ffi_field_get(const void* obj, const TVMFFIFieldInfo* field, TVMFFIAny* out);
int tvm_ffi_field_set(void* obj, const TVMFFIFieldInfo* field, const TVMFFIAny* value);
/* Find a field by name (searching ancestors too), or NULL. */
const TVMFFIFieldInfo* tvm_ffi_type_find_field(int32_t type_index, const char* name);

/* ------------------------------------------------------------------------------------------ */
/* Any values                                                                                 */
/* ------------------------------------------------------------------------------------------ */
typedef TVMFFIAny tvm_ffi_any;

static inline TVMFFIAny tvm_ffi_any_none(void) {
  TVMFFIAny a;
  a.type_index = kTVMFFINone;
  a.zero_padding = 0;
  a.v_int64 = 0;
  return a;
}
static inline TVMFFIAny tvm_ffi_any_int(int64_t v) {
  TVMFFIAny a = tvm_ffi_any_none();
  a.type_index = kTVMFFIInt;
  a.v_int64 = v;
  return a;
}
static inline TVMFFIAny tvm_ffi_any_bool(bool v) {
  TVMFFIAny a = tvm_ffi_any_none();
  a.type_index = kTVMFFIBool;
  a.v_int64 = v ? 1 : 0;
  return a;
}
static inline TVMFFIAny tvm_ffi_any_float(double v) {
  TVMFFIAny a = tvm_ffi_any_none();
  a.type_index = kTVMFFIFloat;
  a.v_float64 = v;
  return a;
}
static inline TVMFFIAny tvm_ffi_any_ptr(void* v) {
  TVMFFIAny a = tvm_ffi_any_none();
  a.type_index = v ? kTVMFFIOpaquePtr : kTVMFFINone;
  a.v_ptr = v;
  return a;
}
static inline TVMFFIAny tvm_ffi_any_dtype(DLDataType v) {
  TVMFFIAny a = tvm_ffi_any_none();
  a.type_index = kTVMFFIDataType;
  a.v_dtype = v;
  return a;
}
static inline TVMFFIAny tvm_ffi_any_device(DLDevice v) {
  TVMFFIAny a = tvm_ffi_any_none();
  a.type_index = kTVMFFIDevice;
  a.v_device = v;
  return a;
}
static inline TVMFFIAny tvm_ffi_any_dltensor(DLTensor* v) {
  TVMFFIAny a = tvm_ffi_any_none();
  a.type_index = kTVMFFIDLTensorPtr;
  a.v_ptr = v;
  return a;
}
static inline TVMFFIAny tvm_ffi_any_raw_str(const char* v) {
  TVMFFIAny a = tvm_ffi_any_none();
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = v;
  return a;
}
/* A view of an object (no reference taken); NULL gives None. */
static inline TVMFFIAny tvm_ffi_any_obj(const void* obj) {
  TVMFFIAny a = tvm_ffi_any_none();
  if (obj) {
    a.type_index = ((const TVMFFIObject*)obj)->type_index;
    a.v_obj = (TVMFFIObject*)obj;
  }
  return a;
}
static inline bool tvm_ffi_any_is_object(const TVMFFIAny* a) {
  return a->type_index >= kTVMFFIStaticObjectBegin;
}
static inline bool tvm_ffi_any_is_none(const TVMFFIAny* a) { return a->type_index == kTVMFFINone; }
/* Release an owned value and reset it to None. */
static inline void tvm_ffi_any_release(TVMFFIAny* a) {
  if (a->type_index >= kTVMFFIStaticObjectBegin) tvm_ffi_release(a->v_obj);
  *a = tvm_ffi_any_none();
}
/* An owned copy of an owned value (retains an object). */
static inline TVMFFIAny tvm_ffi_any_copy(const TVMFFIAny* a) {
  if (a->type_index >= kTVMFFIStaticObjectBegin) tvm_ffi_retain(a->v_obj);
  return *a;
}
/* An owned value from a view (raw strings, byte arrays become String/Bytes); -1 on OOM. */
int tvm_ffi_any_to_owned(const TVMFFIAny* view, TVMFFIAny* out);

/* Typed reads without raising: false when the value is not of (or convertible to) the type.
 * Ints accept Int and Bool; floats accept Float, Int and Bool. */
bool tvm_ffi_any_as_int(const TVMFFIAny* a, int64_t* out);
bool tvm_ffi_any_as_float(const TVMFFIAny* a, double* out);
bool tvm_ffi_any_as_bool(const TVMFFIAny* a, bool* out);
/* The bytes of a string or bytes value (small, object, raw C string, byte array pointer). */
bool tvm_ffi_any_as_bytes(const TVMFFIAny* a, TVMFFIByteArray* out);
/* The object of the value if it is an instance of type_index, else NULL (borrowed). */
void* tvm_ffi_any_as_object(const TVMFFIAny* a, int32_t type_index);
/* Name of the value's type for messages: "int", "ffi.String", "None", ... */
const char* tvm_ffi_any_type_name(const TVMFFIAny* a);
/* Value equality for keys: POD by value, strings/bytes by content, objects by identity. */
bool tvm_ffi_any_equal(const TVMFFIAny* a, const TVMFFIAny* b);
uint64_t tvm_ffi_any_hash(const TVMFFIAny* a);
/* A 64-bit hash of n bytes (data may be NULL when n is 0): the one string keys of a Map use,
 * for callers' own tables of names. Equal bytes hash equal within a process; the values are
 * not stable across versions. */
uint64_t tvm_ffi_hash_bytes(const void* data, size_t n);

/* ------------------------------------------------------------------------------------------ */
/* Strings and bytes                                                                          */
/* ------------------------------------------------------------------------------------------ */
/* An owned string value: small (<= 7 bytes) inline, else an ffi.String object. None on OOM. */
TVMFFIAny tvm_ffi_string(const char* s);
TVMFFIAny tvm_ffi_string_n(const char* s, size_t n);
TVMFFIAny tvm_ffi_bytes_n(const void* data, size_t n);
/* Always an ffi.String object (for object-typed fields), NUL-terminated. NULL on OOM. */
void* tvm_ffi_str_obj(const char* s, size_t n);
void* tvm_ffi_str_obj_printf(const char* fmt, ...) TVM_FFI_PRINTF(1, 2);
/* Always an ffi.Bytes object, whatever the length. NULL on OOM. */
void* tvm_ffi_bytes_obj(const void* data, size_t n);
/* Content of an ffi.String / ffi.Bytes object (NUL-terminated for strings). */
static inline TVMFFIByteArray tvm_ffi_str_view(const void* str_obj) {
  return *TVMFFIBytesGetByteArrayPtr((void*)str_obj);
}
static inline const char* tvm_ffi_str_cstr(const void* str_obj) {
  return TVMFFIBytesGetByteArrayPtr((void*)str_obj)->data;
}

/* Locale-independent number text ('.' as the decimal point whatever LC_NUMERIC says). */
double tvm_ffi_strtod(const char* s, char** end);
/* The shortest "%.Ng" text (N <= 17) that reads back as exactly v (as the same float32 value
 * when as_float32); returns the length written to buf (use at least 32 bytes). */
int tvm_ffi_format_double(double v, bool as_float32, char* buf, size_t size);

/* A growable byte buffer for building text (error messages, printers, JSON). */
typedef struct {
  char* data;
  size_t size;
  size_t capacity;
  bool failed; /* an allocation failed; contents are truncated */
} tvm_ffi_strbuf;
void tvm_ffi_strbuf_append(tvm_ffi_strbuf* b, const char* s, size_t n);
void tvm_ffi_strbuf_puts(tvm_ffi_strbuf* b, const char* s);
void tvm_ffi_strbuf_putc(tvm_ffi_strbuf* b, char c);
void tvm_ffi_strbuf_printf(tvm_ffi_strbuf* b, const char* fmt, ...) TVM_FFI_PRINTF(2, 3);
void tvm_ffi_strbuf_vprintf(tvm_ffi_strbuf* b, const char* fmt, va_list ap);
/* NUL-terminated contents (valid until the next append); "" when empty. */
const char* tvm_ffi_strbuf_cstr(tvm_ffi_strbuf* b);
void tvm_ffi_strbuf_free(tvm_ffi_strbuf* b);

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                     */
/* ------------------------------------------------------------------------------------------ */
/* Raise an error of `kind` ("TypeError", "ValueError", ...) with a formatted message.
 * Always returns -1, so `return tvm_ffi_raise(...);` reads naturally. */
int tvm_ffi_raise(const char* kind, const char* fmt, ...) TVM_FFI_PRINTF(2, 3) TVM_FFI_COLD;
int tvm_ffi_vraise(const char* kind, const char* fmt, va_list ap);
/* Re-raise the pending error with `context: ` prepended to its message; the original error
 * becomes the cause. Returns -1. If nothing is raised, raises a RuntimeError with context. */
int tvm_ffi_raise_context(const char* fmt, ...) TVM_FFI_PRINTF(1, 2) TVM_FFI_COLD;
/* New error object (a new reference) / the cell fields of one. */
void* tvm_ffi_error_new(const char* kind, const char* message);
static inline const char* tvm_ffi_error_kind(const void* err) {
  return TVMFFIErrorGetCellPtr((void*)err)->kind.data;
}
static inline const char* tvm_ffi_error_message(const void* err) {
  return TVMFFIErrorGetCellPtr((void*)err)->message.data;
}
/* Take the raised error (a new reference), or NULL.
 * A raised error stays raised until taken or cleared. A caller that handles a failure without
 * taking its error should clear it: the libraries read a raised error as a failure of their own
 * step (a NULL that means "none" from one that means "failed"; the TIR builder chains calls on
 * it). The top-level operations (tvm_script_parse, tvm_script_print, tvm_relax_call_new,
 * tvm_relax_run_passes and each tvm_relax_transform_* pass, tvm_tir_lower and each TIR pass,
 * tvm_tir_simplify_expr, the tvm_codegen builds) set a stale one aside for their duration, with
 * tvm_ffi_error_give_back; the TIR builder does not. libtvmffi's own functions (the ffi.*
 * globals among them) never read an older raised error as theirs (tvm_ffi_error_mark). */
void* tvm_ffi_error_take(void);
/* End of an operation that began with `stale = tvm_ffi_error_take()`: stale (may be NULL) is
 * raised again unless the operation raised an error of its own, which stays; the reference to
 * stale is released. A caller's stale error thus survives an operation that succeeds, as it
 * would if the operation never looked at the slot. */
void tvm_ffi_error_give_back(void* stale);
/* True if an error is raised on this thread (it stays raised). */
bool tvm_ffi_error_pending(void);
/* Telling a callee's failure from an error raised before it, for a callee whose result means
 * both "failed" and "none" (NULL, false): `uint64_t m = tvm_ffi_error_mark();` before the call,
 * then tvm_ffi_error_raised_since(m): whether the error raised on this thread now was raised
 * after the mark (false when none is, or when the raised one is older, e.g. a caller's stale
 * error, or one set aside and given back). */
uint64_t tvm_ffi_error_mark(void);
bool tvm_ffi_error_raised_since(uint64_t mark);
/* Drop the raised error, if any. */
void tvm_ffi_error_clear(void);
/* Whether new errors capture a backtrace (default: TVM_FFI_BACKTRACE=1 in the environment). */
void tvm_ffi_error_set_capture_backtrace(bool enabled);

/* ------------------------------------------------------------------------------------------ */
/* Functions and the global registry                                                          */
/* ------------------------------------------------------------------------------------------ */
/* A function calling fn(self, ...); deleter(self) runs when the function dies. */
void* tvm_ffi_function_new(void* self, TVMFFISafeCallType fn, void (*deleter)(void* self));
/* Call with result initialised to None here. */
static inline int tvm_ffi_function_call(void* func, const TVMFFIAny* args, int32_t num_args,
                                        TVMFFIAny* result) {
  *result = tvm_ffi_any_none();
  return TVMFFIFunctionGetCellPtr(func)->safe_call(func, args, num_args, result);
}
/* Register fn (called with the function object as handle) under a global name. */
int tvm_ffi_global_register(const char* name, TVMFFISafeCallType fn, bool allow_override);
/* A new reference to a global function, or NULL (no error raised) when missing. */
void* tvm_ffi_global_get(const char* name);
/* Call a global by name; a missing name is a ValueError. */
int tvm_ffi_global_call(const char* name, const TVMFFIAny* args, int32_t num_args,
                        TVMFFIAny* result);
/* Remove a global; returns whether it existed. */
bool tvm_ffi_global_remove(const char* name);
/* A new Array of the names of all globals, sorted. */
void* tvm_ffi_global_names(void);

/* Argument checking for C implementations of functions; each raises a TypeError naming the
 * function and the argument, and returns false, when the argument does not fit. */
bool tvm_ffi_check_num_args(const char* fname, int32_t num_args, int32_t expected);
bool tvm_ffi_arg_int(const char* fname, const TVMFFIAny* args, int32_t i, int64_t* out);
bool tvm_ffi_arg_float(const char* fname, const TVMFFIAny* args, int32_t i, double* out);
bool tvm_ffi_arg_bool(const char* fname, const TVMFFIAny* args, int32_t i, bool* out);
bool tvm_ffi_arg_bytes(const char* fname, const TVMFFIAny* args, int32_t i, TVMFFIByteArray* out);
/* An object argument of (a subtype of) type_index; borrowed. */
void* tvm_ffi_arg_object(const char* fname, const TVMFFIAny* args, int32_t i, int32_t type_index);

/* ------------------------------------------------------------------------------------------ */
/* Containers                                                                                 */
/* ------------------------------------------------------------------------------------------ */
/* Array (immutable) and List (mutable) share TVMFFISeqCell with TVMFFIAny elements. */
void* tvm_ffi_array_new(const TVMFFIAny* items, int64_t count);  /* copies (retains) items */
void* tvm_ffi_array_new_take(TVMFFIAny* items, int64_t count);   /* moves items; they become None */
void* tvm_ffi_array_of_objects(void* const* objs, int64_t count); /* retains each */
static inline int64_t tvm_ffi_seq_size(const void* seq) {
  return TVMFFISeqGetCellPtr((void*)seq)->size;
}
static inline const TVMFFIAny* tvm_ffi_seq_data(const void* seq) {
  return (const TVMFFIAny*)TVMFFISeqGetCellPtr((void*)seq)->data;
}
/* Borrowed element (no bounds check beyond an assert). */
static inline const TVMFFIAny* tvm_ffi_seq_at(const void* seq, int64_t i) {
  return tvm_ffi_seq_data(seq) + i;
}
static inline void* tvm_ffi_seq_obj_at(const void* seq, int64_t i) {
  return tvm_ffi_seq_data(seq)[i].v_obj;
}
void* tvm_ffi_list_new(void);
int tvm_ffi_list_push(void* list, const TVMFFIAny* item);  /* copies */
int tvm_ffi_list_push_take(void* list, TVMFFIAny* item);   /* moves; item becomes None */
int tvm_ffi_list_set(void* list, int64_t i, const TVMFFIAny* item);
int tvm_ffi_list_pop(void* list, TVMFFIAny* out);          /* moves the last item out */
void tvm_ffi_list_clear(void* list);
void* tvm_ffi_list_to_array(const void* list);             /* a new Array with the same items */

/* Map (immutable) and Dict (mutable): hash maps keyed by value (see tvm_ffi_any_equal),
 * iterated in insertion order. */
void* tvm_ffi_map_new(const TVMFFIAny* keys, const TVMFFIAny* values, int64_t count);
void* tvm_ffi_dict_new(void);
int64_t tvm_ffi_map_size(const void* map);                  /* Map or Dict */
const TVMFFIAny* tvm_ffi_map_get(const void* map, const TVMFFIAny* key); /* borrowed or NULL */
const TVMFFIAny* tvm_ffi_map_get_str(const void* map, const char* key);
/* Iterate: pos starts at 0; returns the next pos, or -1 at the end. */
int64_t tvm_ffi_map_next(const void* map, int64_t pos, const TVMFFIAny** out_key,
                         const TVMFFIAny** out_value);
int tvm_ffi_dict_set(void* dict, const TVMFFIAny* key, const TVMFFIAny* value); /* copies */
bool tvm_ffi_dict_erase(void* dict, const TVMFFIAny* key);
void tvm_ffi_dict_clear(void* dict);
void* tvm_ffi_dict_to_map(const void* dict);

/* Shape: an immutable int64 tuple. */
void* tvm_ffi_shape_new(const int64_t* dims, int64_t ndim);
static inline int64_t tvm_ffi_shape_ndim(const void* shape) {
  return (int64_t)TVMFFIShapeGetCellPtr((void*)shape)->size;
}
static inline const int64_t* tvm_ffi_shape_data(const void* shape) {
  return TVMFFIShapeGetCellPtr((void*)shape)->data;
}

/* ------------------------------------------------------------------------------------------ */
/* Data types and tensors                                                                     */
/* ------------------------------------------------------------------------------------------ */
/* Parse "float32", "int8x4", "bool", "handle", "bfloat16", "float8_e4m3fn", ... (ValueError). */
int tvm_ffi_dtype_parse(const char* s, size_t n, DLDataType* out);
/* Format into buf (at least 32 bytes); returns the length, or -1 (ValueError) for unknown. */
int tvm_ffi_dtype_format(DLDataType dtype, char* buf, size_t buf_size);
static inline DLDataType tvm_ffi_dtype(uint8_t code, uint8_t bits, uint16_t lanes) {
  DLDataType t;
  t.code = code;
  t.bits = bits;
  t.lanes = lanes;
  return t;
}
static inline bool tvm_ffi_dtype_equal(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}
/* Bytes of one element (lanes included, sub-byte types rounded up). */
int64_t tvm_ffi_dtype_bytes(DLDataType dtype);

/* Element count / packed byte size of the compact layout (sub-byte types packed, uint1 one per
 * byte); -1 with a ValueError for NULL, a negative dim or int64 overflow. */
int64_t tvm_ffi_dltensor_numel(const DLTensor* t);
int64_t tvm_ffi_dltensor_nbytes(const DLTensor* t);
bool tvm_ffi_dltensor_is_contiguous(const DLTensor* t); /* row-major compact (strides may be NULL) */

/* An uninitialised tensor with compact strides. CPU data is 64-byte aligned and allocated
 * directly; other devices go through TVMFFIEnvTensorAlloc (the environment's allocator, which
 * by default raises a RuntimeError for them). */
void* tvm_ffi_tensor_empty(const int64_t* shape, int32_t ndim, DLDataType dtype, DLDevice device);
static inline DLTensor* tvm_ffi_tensor_dl(const void* tensor) {
  return TVMFFITensorGetDLTensorPtr((void*)tensor);
}
/* A view sharing tensor's memory (checked to stay inside it; ValueError otherwise). strides may
 * be NULL for compact. */
void* tvm_ffi_tensor_view(void* tensor, const int64_t* shape, int32_t ndim,
                          const int64_t* strides, int64_t elem_offset, DLDataType dtype);

/* ------------------------------------------------------------------------------------------ */
/* Modules                                                                                    */
/* ------------------------------------------------------------------------------------------ */
/* Property bits returned by ffi.ModuleGetPropertyMask. */
enum {
  TVM_FFI_MODULE_BINARY_SERIALIZABLE = 1,
  TVM_FFI_MODULE_RUNNABLE = 2,
  TVM_FFI_MODULE_COMPILATION_EXPORTABLE = 4
};

/* The behaviour of a module kind. Only get_function is required. */
typedef struct tvm_ffi_module_vtable {
  const char* kind; /* "library", "static_library", "vm", ... */
  int32_t property_mask;
  /* *out = a new Function reference, or NULL when the module has no such function. */
  int (*get_function)(void* mod, const char* name, void** out);
  /* Append the names of the module's own functions to `list` (an ffi.List). */
  int (*list_functions)(void* mod, void* list);
  /* *out = the source in `format` ("" for the default), as an owned string value. */
  int (*inspect_source)(void* mod, const char* format, TVMFFIAny* out);
  /* Serialize for embedding in __tvm_ffi__library_bin (owned Bytes value). */
  int (*save_to_bytes)(void* mod, TVMFFIAny* out);
  /* Write to a file in `format`. */
  int (*write_to_file)(void* mod, const char* path, const char* format);
  /* Release what the module owns beyond tvm_ffi_module_obj. */
  void (*destroy)(void* mod);
  /* Optional: *out = the metadata (JSON) / documentation of function `name` as an owned
   * string value, or None when the module has none for it. */
  int (*get_function_metadata)(void* mod, const char* name, TVMFFIAny* out);
  int (*get_function_doc)(void* mod, const char* name, TVMFFIAny* out);
  /* Optional: NULL-terminated list of the formats write_to_file accepts. */
  const char* const* write_formats;
} tvm_ffi_module_vtable;

/* Every module starts with this; subclasses append their state (size passed to _new). */
typedef struct {
  TVMFFIObject header;
  const tvm_ffi_module_vtable* vtable;
  void* imports;   /* ffi.List of modules (reflected as "imports_") */
  /* ffi.Dict private to module.c. String name -> weak reference (an opaque pointer) to a
   * Function of this module, so that functions may hold their module without a cycle;
   * Bytes name -> Function (strong) found by TVMFFIEnvModLookupFromImports. */
  void* cache;
} tvm_ffi_module_obj;

/* A new module of a kind; `size` >= sizeof(tvm_ffi_module_obj) includes the subclass state
 * (zeroed). vtable must outlive the module. Destruction runs vtable->destroy first. */
void* tvm_ffi_module_new(const tvm_ffi_module_vtable* vtable, size_t size);
/* Function `name` of the module (or, with query_imports, of its imports, depth first): a new
 * reference, or NULL with no error raised when missing. Results are cached in the module
 * (weakly: the same Function comes back while someone holds it). */
int tvm_ffi_module_get_function(void* mod, const char* name, bool query_imports, void** out);
int tvm_ffi_module_import(void* mod, void* other); /* RuntimeError on a cycle */
/*
 * The ABI version record of a kernel library (this project's extension; upstream's loader does
 * not read it): a data symbol of three uint32_t, the major, minor and patch of the tvm-ffi ABI
 * the library was built against (laid out as a TVMFFIVersion). libcodegen's export writes it.
 */
#define TVM_FFI_SYMBOL_ABI_VERSION "__tvm_ffi__abi_version"
/* Whether this runtime serves code built for ABI major.minor: the same major and, while the
 * major is 0 (where a minor may break the ABI), the same minor; from 1 on, a minor up to ours. */
bool tvm_ffi_abi_version_serves(uint32_t major, uint32_t minor);
/* Load a shared library exported with the __tvm_ffi_<name> convention (dlopen; the root is
 * built from its __tvm_ffi__library_bin when it has one). A library whose
 * TVM_FFI_SYMBOL_ABI_VERSION record names an ABI this runtime does not serve is refused
 * (RuntimeError naming both versions) before any of its symbols is written or called; a
 * library without the record (built by upstream or by hand) loads as before. */
void* tvm_ffi_module_load_file(const char* path);
/* The module of the statically linked kernels registered with
 * TVMFFIEnvModRegisterSystemLibSymbol, one per prefix for the process ("" = no prefix). */
void* tvm_ffi_system_lib(const char* prefix);
/* Rebuild the module tree of a __tvm_ffi__library_bin blob (`size` bytes readable at `data`,
 * starting with the u64 payload length) without a library: a "_lib" entry is an error. */
void* tvm_ffi_module_from_library_bin(const void* data, size_t size);
/* Serialize the import tree under `root` into the __tvm_ffi__library_bin layout (appended to
 * `out`): library and system_lib modules are written as "_lib", other modules with their
 * save_to_bytes (RuntimeError for a kind without one). Shared imports are written once. */
int tvm_ffi_module_pack_library_bin(void* root, tvm_ffi_strbuf* out);

/* ------------------------------------------------------------------------------------------ */
/* Access paths, structural equality and hashing, JSON                                        */
/* ------------------------------------------------------------------------------------------ */
/* One step of an access path from a root object to a node inside it. */
enum {
  TVM_FFI_PATH_ROOT = 0,
  TVM_FFI_PATH_ATTR = 1,       /* key: field name (string) */
  TVM_FFI_PATH_ARRAY_ITEM = 2, /* key: index (int) */
  TVM_FFI_PATH_MAP_ITEM = 3,   /* key: the map key */
  TVM_FFI_PATH_ATTR_MISSING = 4,
  TVM_FFI_PATH_ARRAY_ITEM_MISSING = 5,
  TVM_FFI_PATH_MAP_ITEM_MISSING = 6
};
typedef struct tvm_ffi_access_path_obj {
  TVMFFIObject header;
  struct tvm_ffi_access_path_obj* parent; /* NULL at the root */
  int64_t kind;
  TVMFFIAny key;
  int64_t depth;
} tvm_ffi_access_path_obj;
int32_t tvm_ffi_access_path_type_index(void);
void* tvm_ffi_access_path_root(void);
void* tvm_ffi_access_path_extend(const void* parent, int64_t kind, const TVMFFIAny* key);
void* tvm_ffi_access_path_attr(const void* parent, const char* name);
void* tvm_ffi_access_path_item(const void* parent, int64_t index);
/* Append the text form, e.g. "<root>.body[2].value", `["key"]` for map items and a
 * "<missing>" suffix for missing steps, to out. */
void tvm_ffi_access_path_format(const void* path, tvm_ffi_strbuf* out);
/* Whether `prefix` is a prefix of (or equal to) `path`, compared step by step. */
bool tvm_ffi_access_path_is_prefix(const void* prefix, const void* path);
bool tvm_ffi_access_path_equal(const void* a, const void* b);

/*
 * Structural equality of two values (reflection driven). Variables (kTVMFFISEqHashKindFreeVar)
 * are equal when bound at corresponding definition sites, or, with map_free_vars, when free
 * and first seen at the same place. Returns 1 (equal), 0 (not equal) or -1 (error raised).
 * When out_lhs_path/out_rhs_path are non-NULL and the values differ, they receive new
 * references to the access paths of the first mismatch.
 */
int tvm_ffi_structural_equal(const TVMFFIAny* lhs, const TVMFFIAny* rhs, bool map_free_vars,
                             void** out_lhs_path, void** out_rhs_path);
/* A hash consistent with structural equality. On failure (a value nested deeper than
 * TVM_FFI_STRUCTURAL_MAX_DEPTH, or cyclic) it returns 0 with an error raised; use
 * tvm_ffi_structural_hash_checked to tell that apart from a hash of 0. */
uint64_t tvm_ffi_structural_hash(const TVMFFIAny* value, bool map_free_vars);
/* The same hash with an error channel: 0 and *out_hash, or -1 with an error raised. */
int tvm_ffi_structural_hash_checked(const TVMFFIAny* value, bool map_free_vars,
                                    uint64_t* out_hash);
/* Nesting limit (objects and containers) of structural equality, hashing and JSON; deeper or
 * cyclic values raise a RuntimeError (JSON text: a ValueError) instead of overflowing the stack. */
#define TVM_FFI_STRUCTURAL_MAX_DEPTH 10000

/* Serialize any registered object graph to JSON text, appended to *out (shared nodes stay
 * shared; the format is upstream's ToJSONGraph node graph, described in json.c). */
int tvm_ffi_json_save(const TVMFFIAny* value, tvm_ffi_strbuf* out);
/* Parse JSON text produced by tvm_ffi_json_save back into an owned value. Malformed or
 * hostile input raises (ValueError/TypeError/KeyError/RuntimeError naming the byte offset or
 * the node and field). */
int tvm_ffi_json_load(const char* text, size_t len, TVMFFIAny* out);

/* ------------------------------------------------------------------------------------------ */
/* Environment: host C API registry, parallel launch                                          */
/* ------------------------------------------------------------------------------------------ */
/* The symbol last registered under `name` with TVMFFIEnvRegisterCAPI, or NULL. */
void* tvm_ffi_env_capi_lookup(const char* name);

/* Body of a parallel loop: process task_id of num_tasks (static chunking by the caller). */
typedef int (*tvm_ffi_parallel_fn)(int task_id, int num_tasks, void* closure);
/* Run fn for task ids 0..num_tasks-1 (0 = the pool size) on the pool and wait; the caller runs
 * task 0. Returns 0, or the code of the lowest failed task id with its error raised on the
 * caller's thread. A launch from inside a task runs serially on that thread. */
int tvm_ffi_parallel_launch(tvm_ffi_parallel_fn fn, void* closure, int num_tasks);
/* Threads in the pool: TVM_NUM_THREADS or the number of cores. */
int tvm_ffi_parallel_num_threads(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_FFI_FFI_H_ */

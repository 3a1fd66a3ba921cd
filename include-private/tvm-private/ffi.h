/*
 * tvm-private/ffi.h: libtvmffi's internals that the other libraries of this project call.
 *
 * Not installed (include-private/ is on the include path of the suite's libraries and tests
 * only): a downstream program sees the public API of include/tvm/ffi/ and nothing here. The
 * object and map functions trust a promise of their caller that the public functions check;
 * debug builds (without NDEBUG) assert it. The renderer at the end checks its input.
 */
#ifndef TVM_PRIVATE_FFI_H_
#define TVM_PRIVATE_FFI_H_

#include <tvm/ffi/ffi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* tvm_ffi_object_new without zeroing the body past the header, for a constructor that writes
 * every byte of the object that is ever read. Promise: type_index is registered and size at
 * least its header. */
void* tvm_ffi__object_new_uninit(int32_t type_index, size_t size);

/* Whether map (an ffi.Map or ffi.Dict, not checked) has only String keys (kTVMFFIStr or
 * kTVMFFISmallStr), read from its entries in one loop; false when in doubt (any other key), for
 * the caller's general check to decide. Promise: map is an ffi.Map or ffi.Dict. */
bool tvm_ffi__map_keys_are_str(const void* map);
/* The entries of map, an ffi.Map or ffi.Dict (not checked), for a loop without a
 * tvm_ffi_map_next call per entry: *count entries of TVM_FFI__MAP_ENTRY_SIZE bytes from the
 * address returned, each its key (a TVMFFIAny) and then its value (a TVMFFIAny), in
 * tvm_ffi_map_next's order; an entry whose key's type_index is TVM_FFI__MAP_DEAD was erased
 * (tvm_ffi_map_next skips it). Valid while the map is unchanged. Promise: map is an ffi.Map or
 * ffi.Dict. */
enum { TVM_FFI__MAP_ENTRY_SIZE = 40, TVM_FFI__MAP_DEAD = -2 };
const char* tvm_ffi__map_entries(const void* map, int64_t* count);

/* Append the text a person reads for value (render.c: Python's str() of the value's upstream
 * counterpart; a CPU tensor's elements nested by dims, "[[1, 2], [3, 4]]"). Never fails. */
void tvm_ffi__render_value(const TVMFFIAny* value, tvm_ffi_strbuf* out);
/* Append Python's fmt.format(*args) with each argument rendered as tvm_ffi__render_value does:
 * "{}" (automatic numbering), "{<index>}" (manual), "{{" and "}}"; an empty fmt with empty_sep
 * given appends the rendered args joined by empty_sep instead (Relax's print joins with " ",
 * assert_op with ", "). 0, or -1 + ValueError on a malformed format or a field with a format
 * spec or name, IndexError on an index past the arguments (Python's messages). */
int tvm_ffi__format_values(TVMFFIByteArray fmt, const TVMFFIAny* args, int32_t n,
                           const char* empty_sep, tvm_ffi_strbuf* out);

#ifdef __cplusplus
}
#endif
#endif /* TVM_PRIVATE_FFI_H_ */

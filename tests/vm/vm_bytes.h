/*
 * vm_bytes.h: writes VM executable files byte by byte, following the format documented in
 * include/tvm/vm/vm.h, independently of libvm's own writer. Tests use it to feed the loader
 * hand-made (valid and deliberately broken) files.
 *
 *   vmb b = {0};
 *   vmb_header(&b);
 *   vmb_u64(&b, 1);                                       // globals: 1 function
 *   vmb_func(&b, 1, "main", 0, 2, 1, 2, 1, "x");           // kind, name, start, end, args, regs, params
 *   vmb_u64(&b, 0);                                       // memory scopes
 *   vmb_u64(&b, 0);                                       // constants
 *   int64_t offs[] = {0, 5}; ...                          // code: vmb_i64s(&b, offs, n) twice
 */
#ifndef TVM_TESTS_VM_VM_BYTES_H_
#define TVM_TESTS_VM_VM_BYTES_H_

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  unsigned char* data;
  size_t size, cap;
} vmb;

static void vmb_put(vmb* b, const void* p, size_t n) {
  if (b->size + n > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->size + n) cap *= 2;
    b->data = (unsigned char*)realloc(b->data, cap);
    b->cap = cap;
  }
  if (n) memcpy(b->data + b->size, p, n);
  b->size += n;
}
static void vmb_u64(vmb* b, uint64_t v) { vmb_put(b, &v, 8); }
static void vmb_i64(vmb* b, int64_t v) { vmb_put(b, &v, 8); }
static void vmb_i32(vmb* b, int32_t v) { vmb_put(b, &v, 4); }
static void vmb_str(vmb* b, const char* s) {
  vmb_u64(b, strlen(s));
  vmb_put(b, s, strlen(s));
}
static void vmb_i64s(vmb* b, const int64_t* v, size_t n) {
  vmb_u64(b, n);
  vmb_put(b, v, n * 8);
}
static void vmb_header(vmb* b) {
  vmb_u64(b, 0xD225DE2F4214151EULL);
  vmb_str(b, "0.14");
}
/* One function table entry with up to one parameter name (param may be NULL). */
static void vmb_func(vmb* b, int32_t kind, const char* name, int64_t start, int64_t end,
                     int64_t num_args, int64_t regs, int n_params, const char* param) {
  vmb_i32(b, kind);
  vmb_str(b, name);
  vmb_i64(b, start);
  vmb_i64(b, end);
  vmb_i64(b, num_args);
  vmb_i64(b, regs);
  vmb_u64(b, (uint64_t)n_params);
  for (int i = 0; i < n_params; ++i) vmb_str(b, param ? param : "p");
}
static int64_t vmb_arg(int kind, int64_t v) {
  return (int64_t)(((uint64_t)kind << 56) | ((uint64_t)v & ((1ULL << 56) - 1)));
}
static void vmb_free(vmb* b) {
  free(b->data);
  memset(b, 0, sizeof(*b));
}

#endif /* TVM_TESTS_VM_VM_BYTES_H_ */

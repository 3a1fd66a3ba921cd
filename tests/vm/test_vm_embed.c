/*
 * test_vm_embed.c: what a serving stack does, using only the C embedding API (tvm/vm/vm.h)
 * and tvm-ffi, linked against libtvmvm and libtvmffi alone. The executable file is written
 * byte by byte from the documented format (vm_bytes.h), not by libvm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <tvm/vm/vm.h>

#include "test_util.h"
#include "vm_bytes.h"

static int embed_mul(void* h, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  int64_t x, y;
  if (!tvm_ffi_check_num_args("embed.mul", n, 2) || !tvm_ffi_arg_int("embed.mul", a, 0, &x) ||
      !tvm_ffi_arg_int("embed.mul", a, 1, &y)) {
    return -1;
  }
  *r = tvm_ffi_any_int(x * y);
  return 0;
}

static int embed_add(void* h, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  int64_t x, y;
  if (!tvm_ffi_check_num_args("embed.add", n, 2) || !tvm_ffi_arg_int("embed.add", a, 0, &x) ||
      !tvm_ffi_arg_int("embed.add", a, 1, &y)) {
    return -1;
  }
  *r = tvm_ffi_any_int(x + y);
  return 0;
}

/* main(a, b) = embed.add(embed.mul(a, b), 1000) */
static vmb make_executable(void) {
  vmb b = {0};
  vmb_header(&b);
  vmb_u64(&b, 3);
  vmb_i32(&b, 1);
  vmb_str(&b, "main");
  vmb_i64(&b, 0);
  vmb_i64(&b, 3);
  vmb_i64(&b, 2);
  vmb_i64(&b, 4);
  vmb_u64(&b, 2);
  vmb_str(&b, "a");
  vmb_str(&b, "b");
  vmb_func(&b, 0, "embed.mul", 0, 0, -2, 0, 0, NULL);
  vmb_func(&b, 0, "embed.add", 0, 0, -2, 0, 0, NULL);
  vmb_u64(&b, 0); /* memory scopes */
  vmb_u64(&b, 1); /* constants: Int 1000 */
  vmb_i32(&b, 1);
  vmb_i64(&b, 1000);
  int64_t offsets[] = {0, 6, 12};
  int64_t words[] = {1, 2, 1, 2, vmb_arg(0, 0), vmb_arg(0, 1),
                     1, 3, 2, 2, vmb_arg(0, 2), vmb_arg(2, 0),
                     2, 3};
  vmb_i64s(&b, offsets, 3);
  vmb_i64s(&b, words, 14);
  return b;
}

TEST(serve) {
  tvm_ffi_global_register("embed.mul", embed_mul, true);
  tvm_ffi_global_register("embed.add", embed_add, true);
  vmb file = make_executable();
  char path[] = "/tmp/vm_embed_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  CHECK(write(fd, file.data, file.size) == (ssize_t)file.size);
  close(fd);

  tvm_vm_executable* exec = tvm_vm_executable_load_file(path);
  unlink(path);
  CHECK(exec != NULL);
  if (!exec) return;
  DLDevice cpu = {kDLCPU, 0};
  tvm_vm* vm = tvm_vm_create(exec, &cpu, 1);
  CHECK(vm != NULL);
  CHECK_EQ_INT(tvm_vm_num_devices(vm), 1);

  TVMFFIAny args[] = {tvm_ffi_any_int(6), tvm_ffi_any_int(7)}, out;
  CHECK_OK(tvm_vm_invoke(vm, "main", args, 2, &out));
  CHECK_EQ_INT(out.v_int64, 1042);

  void* main_fn = tvm_vm_get_function(vm, "main");
  CHECK(main_fn != NULL);
  args[0] = tvm_ffi_any_int(-1);
  CHECK_OK(tvm_ffi_function_call(main_fn, args, 2, &out));
  CHECK_EQ_INT(out.v_int64, 993);
  tvm_ffi_release(main_fn);

  CHECK_OK(tvm_vm_set_input(vm, "main", args, 2));
  CHECK_OK(tvm_vm_invoke_stateful(vm, "main"));
  CHECK_OK(tvm_vm_get_output(vm, "main", NULL, 0, &out));
  CHECK_EQ_INT(out.v_int64, 993);

  /* Errors come back as codes with the error raised. */
  args[1] = tvm_ffi_any_raw_str("seven");
  CHECK(tvm_vm_invoke(vm, "main", args, 2, &out) != 0);
  CHECK_RAISED("TypeError", "when calling `embed.mul`");
  CHECK(tvm_vm_executable_load_bytes(file.data, file.size - 3) == NULL);
  CHECK_RAISED("ValueError", "code section truncated");

  /* Saving reproduces the file byte for byte. */
  TVMFFIAny saved;
  CHECK_OK(tvm_vm_executable_save(exec, &saved));
  TVMFFIByteArray sb;
  CHECK(tvm_ffi_any_as_bytes(&saved, &sb));
  CHECK(sb.size == file.size && memcmp(sb.data, file.data, sb.size) == 0);
  tvm_ffi_any_release(&saved);

  tvm_vm_free(vm);
  tvm_vm_executable_release(exec);
  vmb_free(&file);
}

int main(void) {
  RUN(serve);
  return test_summary();
}

/* consumer.c: uses the installed libtvmffi through the ABI only, as a downstream DSL would. */
#include <stdio.h>
#include <string.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

static int twice(void* handle, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  if (n != 1 || args[0].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "twice expects one int");
    return -1;
  }
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = 2 * args[0].v_int64;
  return 0;
}

int main(void) {
  TVMFFIVersion v;
  TVMFFIGetVersion(&v);
  void* f = NULL;
  if (TVMFFIFunctionCreate(NULL, twice, NULL, &f) != 0) return 1;
  TVMFFIByteArray name = {"downstream.twice", strlen("downstream.twice")};
  if (TVMFFIFunctionSetGlobal(&name, f, 0) != 0) return 1;
  TVMFFIObjectDecRef(f);
  void* g = NULL;
  if (TVMFFIFunctionGetGlobal(&name, &g) != 0 || !g) return 1;
  TVMFFIAny arg = {kTVMFFIInt, {0}, {.v_int64 = 21}};
  TVMFFIAny res = {kTVMFFINone, {0}, {.v_int64 = 0}};
  if (TVMFFIFunctionCall(g, &arg, 1, &res) != 0 || res.v_int64 != 42) return 1;
  arg.type_index = kTVMFFIFloat;
  if (TVMFFIFunctionCall(g, &arg, 1, &res) == 0) return 1;
  void* err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  if (!err) return 1;
  TVMFFIObjectDecRef(err);
  TVMFFIObjectDecRef(g);
  printf("downstream consumer OK (tvm-ffi ABI %u.%u.%u)\n", v.major, v.minor, v.patch);
  return 0;
}

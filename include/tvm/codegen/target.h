/*
 * tvm/codegen/target.h: compilation targets, parsed from their text in one place.
 *
 *   "llvm"                    the host CPU (its features; TVM_CODEGEN_CPU names another CPU)
 *   "llvm -mcpu=<cpu>"        an LLVM CPU name ("haswell", "skylake-avx512", ...)
 *   "cuda"                    NVIDIA GPUs through LLVM's NVPTX backend: PTX for the compute
 *                             capability of CUDA device 0 when a driver is there, else sm_75
 *   "cuda -arch=sm_<XY>"      PTX for that compute capability ("sm_90"; "-mcpu=sm_90" is the
 *                             same); LLVM 19 knows sm_30 ... sm_90 and sm_90a
 *   "nvptx"                   another name of "cuda"
 *
 * Options are "-key=value" (or "--key=value") tokens separated by spaces. An unknown kind, an
 * unknown option for the kind, a malformed or unsupported value, or an option given twice is a
 * ValueError naming the target text and what is wrong.
 */
#ifndef TVM_CODEGEN_TARGET_H_
#define TVM_CODEGEN_TARGET_H_

#include <stdbool.h>
#include <tvm/ffi/ffi.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

typedef enum { TVM_CODEGEN_TARGET_LLVM = 0, TVM_CODEGEN_TARGET_CUDA = 1 } tvm_codegen_target_kind;

typedef struct {
  tvm_codegen_target_kind kind;
  char mcpu[64]; /* llvm: -mcpu ("" = the host CPU); cuda: "sm_XY" ("" = not given) */
  int sm;        /* cuda: the compute capability as major * 10 + minor (90), 0 = not given */
  bool sm_arch_specific; /* cuda: an "a" suffix (sm_90a) */
} tvm_codegen_target;

/* Parse target text (NULL or "" = "llvm") into *out. 0, or -1 with a ValueError. */
int tvm_codegen_target_parse(const char* text, tvm_codegen_target* out);

/* The canonical text of a target ("llvm", "llvm -mcpu=haswell", "cuda -arch=sm_90") into buf
 * (at least 96 bytes). */
void tvm_codegen_target_str(const tvm_codegen_target* t, char* buf, size_t size);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_CODEGEN_TARGET_H_ */

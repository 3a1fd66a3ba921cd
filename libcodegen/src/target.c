/* target.c: target text -> tvm_codegen_target (tvm/codegen/target.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The compute capabilities LLVM 19's NVPTX backend knows (llc -march=nvptx64 -mcpu=help). */
static const int kSm[] = {30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90};

static int bad(const char* text, const char* fmt, const char* a, const char* b) {
  char what[256];
  snprintf(what, sizeof(what), fmt, a, b);
  return tvm_ffi_raise("ValueError", "target \"%s\": %s", text, what);
}

/* "sm_XY" / "sm_XYa" / "sm_XYZ" -> major * 10 + minor. */
static int parse_sm(const char* text, const char* v, tvm_codegen_target* out) {
  size_t n = strlen(v);
  bool arch = n > 0 && v[n - 1] == 'a';
  if (strncmp(v, "sm_", 3) != 0 || n - arch < 5 || n - arch > 6)
    return bad(text, "-arch expects sm_<major><minor> such as sm_90, got \"%s\"%s", v, "");
  int sm = 0;
  for (size_t k = 3; k < n - arch; ++k) {
    if (!isdigit((unsigned char)v[k]))
      return bad(text, "-arch expects sm_<major><minor> such as sm_90, got \"%s\"%s", v, "");
    sm = sm * 10 + (v[k] - '0');
  }
  bool known = false;
  for (size_t k = 0; k < sizeof(kSm) / sizeof(kSm[0]); ++k) known |= kSm[k] == sm;
  if (!known || (arch && sm != 90))
    return bad(text,
               "%s is not a compute capability LLVM 19's NVPTX backend knows (sm_30 ... sm_90, "
               "sm_90a)%s",
               v, "");
  out->sm = sm;
  out->sm_arch_specific = arch;
  snprintf(out->mcpu, sizeof(out->mcpu), "%s", v);
  return 0;
}

int tvm_codegen_target_parse(const char* text, tvm_codegen_target* out) {
  memset(out, 0, sizeof(*out));
  if (!text) text = "";
  char buf[512];
  if (strlen(text) >= sizeof(buf))
    return tvm_ffi_raise("ValueError", "target text of %zu bytes is too long", strlen(text));
  snprintf(buf, sizeof(buf), "%s", text);
  char* save = NULL;
  char* tok = strtok_r(buf, " \t\n", &save);
  if (!tok || strcmp(tok, "llvm") == 0) {
    out->kind = TVM_CODEGEN_TARGET_LLVM;
  } else if (strcmp(tok, "cuda") == 0 || strcmp(tok, "nvptx") == 0) {
    out->kind = TVM_CODEGEN_TARGET_CUDA;
  } else {
    return bad(text, "unknown target kind \"%s\" (known: llvm, cuda)%s", tok, "");
  }
  const char* kind = out->kind == TVM_CODEGEN_TARGET_LLVM ? "llvm" : "cuda";
  bool seen = false;
  while (tok && (tok = strtok_r(NULL, " \t\n", &save))) {
    const char* opt = tok;
    if (opt[0] != '-') return bad(text, "expected an option -key=value, got \"%s\"%s", opt, "");
    opt += opt[1] == '-' ? 2 : 1;
    char* eq = strchr(tok, '=');
    if (!eq || eq[1] == '\0') return bad(text, "option \"%s\" has no value (-key=value)%s", tok, "");
    *eq = '\0';
    const char* value = eq + 1;
    bool cpu = strcmp(opt, "mcpu") == 0, arch = strcmp(opt, "arch") == 0;
    if (out->kind == TVM_CODEGEN_TARGET_LLVM && cpu) {
      if (strlen(value) >= sizeof(out->mcpu)) return bad(text, "-mcpu=%s is too long%s", value, "");
      if (seen) return bad(text, "the CPU is given twice%s%s", "", "");
      snprintf(out->mcpu, sizeof(out->mcpu), "%s", value);
      seen = true;
    } else if (out->kind == TVM_CODEGEN_TARGET_CUDA && (cpu || arch)) {
      if (seen) return bad(text, "the architecture is given twice%s%s", "", "");
      if (parse_sm(text, value, out) != 0) return -1;
      seen = true;
    } else {
      char known[64];
      snprintf(known, sizeof(known), "%s", out->kind == TVM_CODEGEN_TARGET_LLVM ? "-mcpu" : "-arch");
      char what[160];
      snprintf(what, sizeof(what), "-%s for target kind %s", opt, kind);
      return bad(text, "unknown option %s (known: %s)", what, known);
    }
  }
  return 0;
}

void tvm_codegen_target_str(const tvm_codegen_target* t, char* buf, size_t size) {
  if (t->kind == TVM_CODEGEN_TARGET_CUDA) {
    if (t->mcpu[0])
      snprintf(buf, size, "cuda -arch=%s", t->mcpu);
    else
      snprintf(buf, size, "cuda");
  } else if (t->mcpu[0]) {
    snprintf(buf, size, "llvm -mcpu=%s", t->mcpu);
  } else {
    snprintf(buf, size, "llvm");
  }
}

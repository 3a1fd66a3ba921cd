/* thread_tag.c: the GPU thread tags of T.thread_binding / T.launch_thread (tvm-private/tir.h). */
#include <string.h>

#include <tvm-private/tir.h>
#include <tvm/tir/op.h>

int tvm_tir__thread_tag_axis(const char* tag) {
  if (!tag) return TVM_TIR_THREAD_TAG_NONE;
  int base = -1;
  const char* rest = NULL;
  if (strncmp(tag, "blockIdx.", 9) == 0) {
    base = TVM_TIR_THREAD_TAG_BLOCK_X;
    rest = tag + 9;
  } else if (strncmp(tag, "threadIdx.", 10) == 0) {
    base = TVM_TIR_THREAD_TAG_THREAD_X;
    rest = tag + 10;
  } else if (strcmp(tag, "vthread") == 0 || strncmp(tag, "vthread.", 8) == 0 ||
             strcmp(tag, "cthread") == 0) {
    return TVM_TIR_THREAD_TAG_VTHREAD;
  } else {
    return TVM_TIR_THREAD_TAG_NONE;
  }
  if (rest[0] >= 'x' && rest[0] <= 'z' && rest[1] == '\0') return base + (rest[0] - 'x');
  return TVM_TIR_THREAD_TAG_NONE;
}

const char* tvm_tir__thread_tag_name(int axis) {
  static const char* const names[] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                      "threadIdx.x", "threadIdx.y", "threadIdx.z"};
  if (axis >= 0 && axis < 6) return names[axis];
  return axis == TVM_TIR_THREAD_TAG_VTHREAD ? "vthread" : "";
}

const char* tvm_tir__launch_tag(const void* stmt, const tvm_tir_var_obj** out_var) {
  const void* iv = NULL;
  if (out_var) *out_var = NULL;
  if (tvm_tir_kind_of(stmt) == TVM_TIR_KIND_AttrStmt) {
    const tvm_tir_attr_stmt_obj* a = stmt;
    const char* key = tvm_ffi_str_cstr(a->attr_key);
    if (strcmp(key, "thread_extent") != 0 && strcmp(key, "virtual_thread") != 0) return NULL;
    const void* node = tvm_ffi_any_is_object(&a->node) ? a->node.v_obj : NULL;
    if (tvm_tir_kind_of(node) == TVM_TIR_KIND_IterVar) {
      iv = node;
    } else {
      if (out_var && tvm_tir_is_var(node)) *out_var = node;
      return "";
    }
  } else if (tvm_tir_kind_of(stmt) == TVM_TIR_KIND_For) {
    const tvm_tir_for_obj* f = stmt;
    if (f->kind != TVM_TIR_FOR_THREAD_BINDING) return NULL;
    if (out_var) *out_var = f->loop_var;
    if (!f->thread_binding) return "";
    const char* tag = f->thread_binding->thread_tag ? tvm_ffi_str_cstr(f->thread_binding->thread_tag) : "";
    return tag;
  } else {
    return NULL;
  }
  const tvm_tir_iter_var_obj* it = iv;
  if (out_var) *out_var = it->var;
  return it->thread_tag ? tvm_ffi_str_cstr(it->thread_tag) : "";
}

bool tvm_tir__stmt_is_barrier(const void* stmt) {
  if (tvm_tir_kind_of(stmt) != TVM_TIR_KIND_Evaluate) return false;
  const void* v = ((const tvm_tir_evaluate_obj*)stmt)->value;
  return tvm_tir_kind_of(v) == TVM_TIR_KIND_Call &&
         tvm_tir_is_builtin(((const tvm_tir_call_obj*)v)->op, TVM_TIR_BUILTIN_tvm_storage_sync);
}

/*
 * exec_print.c: human-readable listings of an executable, in the formats of upstream's
 * Executable::AsText, AsPython and Stats.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static void put_reg(tvm_ffi_strbuf* b, int64_t reg) {
  if (reg == TVM_VM_REG_VOID) tvm_ffi_strbuf_puts(b, "%void");
  else if (reg == TVM_VM_REG_VM) tvm_ffi_strbuf_puts(b, "%vm");
  else tvm_ffi_strbuf_printf(b, "%%%" PRId64, reg);
}

static const char* func_name(const tvm_vm_executable* e, int64_t i) {
  return i >= 0 && i < e->num_funcs ? e->funcs[i].name.data : "<unknown>";
}

static void put_arg(tvm_ffi_strbuf* b, const tvm_vm_executable* e, int64_t word) {
  int64_t v = tvm_vm_arg_value(word);
  switch (tvm_vm_arg_kind_of(word)) {
    case TVM_VM_ARG_REGISTER:
      put_reg(b, v);
      break;
    case TVM_VM_ARG_IMMEDIATE:
      tvm_ffi_strbuf_printf(b, "i%" PRId64, v);
      break;
    case TVM_VM_ARG_CONST_IDX:
      tvm_ffi_strbuf_printf(b, "c[%" PRId64 "]", v);
      break;
    default:
      tvm_ffi_strbuf_printf(b, "f[%s]", func_name(e, v));
      break;
  }
}

static void put_args(tvm_ffi_strbuf* b, const tvm_vm_executable* e, const int64_t* w) {
  for (int64_t a = 0; a < w[3]; ++a) {
    if (a) tvm_ffi_strbuf_puts(b, ", ");
    put_arg(b, e, w[4 + a]);
  }
}

/* Pad the text appended since `start` to `width` columns. */
static void pad_from(tvm_ffi_strbuf* b, size_t start, size_t width) {
  while (b->size - start < width && !b->failed) tvm_ffi_strbuf_putc(b, ' ');
}

static void put_instr(tvm_ffi_strbuf* b, const tvm_vm_executable* e, int64_t i, bool aligned) {
  const int64_t* w = &e->instr_data[e->instr_offset[i]];
  size_t start = b->size;
  switch (w[0]) {
    case TVM_VM_OP_Call:
      tvm_ffi_strbuf_puts(b, "call");
      pad_from(b, start, aligned ? 6 : 5);
      start = b->size;
      tvm_ffi_strbuf_puts(b, func_name(e, w[2]));
      if (aligned) pad_from(b, start, 16);
      tvm_ffi_strbuf_puts(b, " in: ");
      start = b->size;
      put_args(b, e, w);
      if (aligned) pad_from(b, start, 12);
      tvm_ffi_strbuf_puts(b, " dst: ");
      put_reg(b, w[1]);
      break;
    case TVM_VM_OP_Ret:
      tvm_ffi_strbuf_puts(b, aligned ? "ret   " : "ret ");
      put_reg(b, w[1]);
      break;
    case TVM_VM_OP_Goto:
      tvm_ffi_strbuf_printf(b, aligned ? "goto  %" PRId64 : "goto %" PRId64, w[1]);
      break;
    case TVM_VM_OP_If:
      tvm_ffi_strbuf_puts(b, aligned ? "If    " : "If ");
      put_reg(b, w[1]);
      tvm_ffi_strbuf_printf(b, ", %" PRId64, w[2]);
      break;
  }
}

void tvm_vm__format_instr(const tvm_vm_executable* e, int64_t i, tvm_ffi_strbuf* out) {
  put_instr(out, e, i, false);
}

static int finish(tvm_ffi_strbuf* b, TVMFFIAny* out) {
  int rc = 0;
  if (b->failed) rc = tvm_ffi_raise("MemoryError", "out of memory printing an executable");
  else *out = tvm_ffi_string_n(b->data ? b->data : "", b->size);
  tvm_ffi_strbuf_free(b);
  if (rc == 0 && out->type_index == kTVMFFINone) rc = -1;
  return rc;
}

int tvm_vm_executable_as_text(const tvm_vm_executable* e, TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  if (!tvm_vm_is_executable(e)) return tvm_ffi_raise("TypeError", "not a VM executable");
  tvm_ffi_strbuf b = {0};
  for (int64_t fi = 0; fi < e->num_funcs; ++fi) {
    const tvm_vm_func_info* f = &e->funcs[fi];
    if (f->kind == TVM_VM_FUNC_PACKED) {
      tvm_ffi_strbuf_printf(&b, "@%s packed_func;\n\n", f->name.data);
      continue;
    }
    if (f->kind == TVM_VM_FUNC_VMTIR) {
      tvm_ffi_strbuf_printf(&b, "@%s num_inputs=%" PRId64 " vm_tir_func;\n\n", f->name.data,
                            f->num_args);
      continue;
    }
    tvm_ffi_strbuf_printf(&b, "@%s:\n", f->name.data);
    for (int64_t i = f->start_instr; i < f->end_instr; ++i) {
      tvm_ffi_strbuf_puts(&b, "  ");
      put_instr(&b, e, i, true);
      tvm_ffi_strbuf_putc(&b, '\n');
    }
    tvm_ffi_strbuf_putc(&b, '\n');
  }
  return finish(&b, out);
}

static void put_py_arg(tvm_ffi_strbuf* b, const tvm_vm_executable* e, int64_t word) {
  int64_t v = tvm_vm_arg_value(word);
  switch (tvm_vm_arg_kind_of(word)) {
    case TVM_VM_ARG_REGISTER:
      if (v == TVM_VM_REG_VM) tvm_ffi_strbuf_puts(b, "ib.r(vm)");
      else if (v == TVM_VM_REG_VOID) tvm_ffi_strbuf_puts(b, "ib.r(void)");
      else tvm_ffi_strbuf_printf(b, "ib.r(%" PRId64 ")", v);
      break;
    case TVM_VM_ARG_IMMEDIATE:
      tvm_ffi_strbuf_printf(b, "ib.imm(%" PRId64 ")", v);
      break;
    case TVM_VM_ARG_CONST_IDX:
      tvm_ffi_strbuf_printf(b, "ib.c(%" PRId64 ")", v);
      break;
    default:
      tvm_ffi_strbuf_printf(b, "ib.f(\"%s\")", func_name(e, v));
      break;
  }
}

int tvm_vm_executable_as_python(const tvm_vm_executable* e, TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  if (!tvm_vm_is_executable(e)) return tvm_ffi_raise("TypeError", "not a VM executable");
  tvm_ffi_strbuf b = {0};
  tvm_ffi_strbuf_puts(&b, "ib = rx.Builder()\n");
  for (int64_t fi = 0; fi < e->num_funcs; ++fi) {
    const tvm_vm_func_info* f = &e->funcs[fi];
    if (f->kind != TVM_VM_FUNC_VM) continue;
    tvm_ffi_strbuf_printf(&b, "with ib.function(\"%s\", num_inputs=%" PRId64 "):\n", f->name.data,
                          f->num_args);
    for (int64_t i = f->start_instr; i < f->end_instr; ++i) {
      const int64_t* w = &e->instr_data[e->instr_offset[i]];
      switch (w[0]) {
        case TVM_VM_OP_Call:
          tvm_ffi_strbuf_printf(&b, "    ib.emit_call(\"%s\", args=[", func_name(e, w[2]));
          for (int64_t a = 0; a < w[3]; ++a) {
            if (a) tvm_ffi_strbuf_puts(&b, ", ");
            put_py_arg(&b, e, w[4 + a]);
          }
          tvm_ffi_strbuf_puts(&b, "]");
          if (w[1] != TVM_VM_REG_VOID) tvm_ffi_strbuf_printf(&b, ", dst=ib.r(%" PRId64 ")", w[1]);
          tvm_ffi_strbuf_puts(&b, ")\n");
          break;
        case TVM_VM_OP_Ret:
          if (w[1] == TVM_VM_REG_VOID) tvm_ffi_strbuf_puts(&b, "    ib.emit_ret(ib.r(void))\n");
          else tvm_ffi_strbuf_printf(&b, "    ib.emit_ret(ib.r(%" PRId64 "))\n", w[1]);
          break;
        case TVM_VM_OP_Goto:
          tvm_ffi_strbuf_printf(&b, "    ib.emit_goto(%" PRId64 ")\n", w[1]);
          break;
        case TVM_VM_OP_If:
          tvm_ffi_strbuf_printf(&b, "    ib.emit_if(ib.r(%" PRId64 "), %" PRId64 ")\n", w[1], w[2]);
          break;
      }
    }
  }
  return finish(&b, out);
}

void tvm_vm__format_value(const TVMFFIAny* v, tvm_ffi_strbuf* b) {
  TVMFFIByteArray bytes;
  char dtype[64];
  switch (v->type_index) {
    case kTVMFFINone:
      tvm_ffi_strbuf_puts(b, "None");
      return;
    case kTVMFFIBool:
      tvm_ffi_strbuf_puts(b, v->v_int64 ? "True" : "False");
      return;
    case kTVMFFIInt:
      tvm_ffi_strbuf_printf(b, "%" PRId64, v->v_int64);
      return;
    case kTVMFFIFloat:
      tvm_ffi_strbuf_printf(b, "%.17g", v->v_float64);
      return;
    case kTVMFFIDataType:
      if (tvm_ffi_dtype_format(v->v_dtype, dtype, sizeof(dtype)) < 0) {
        tvm_ffi_error_clear();
        snprintf(dtype, sizeof(dtype), "dtype(%d, %d, %d)", v->v_dtype.code, v->v_dtype.bits,
                 v->v_dtype.lanes);
      }
      tvm_ffi_strbuf_puts(b, dtype);
      return;
    case kTVMFFISmallStr:
    case kTVMFFIStr:
      tvm_ffi_any_as_bytes(v, &bytes);
      tvm_ffi_strbuf_putc(b, '"');
      tvm_ffi_strbuf_append(b, bytes.data, bytes.size);
      tvm_ffi_strbuf_putc(b, '"');
      return;
    case kTVMFFIShape: {
      tvm_ffi_strbuf_puts(b, "shapetuple[");
      for (int64_t i = 0; i < tvm_ffi_shape_ndim(v->v_obj); ++i) {
        tvm_ffi_strbuf_printf(b, i ? ", %" PRId64 : "%" PRId64, tvm_ffi_shape_data(v->v_obj)[i]);
      }
      tvm_ffi_strbuf_putc(b, ']');
      return;
    }
    case kTVMFFITensor: {
      const DLTensor* t = tvm_ffi_tensor_dl(v->v_obj);
      if (t->ndim == 0) {
        tvm_ffi_strbuf_puts(b, "scalar");
        return;
      }
      tvm_ffi_strbuf_putc(b, '[');
      for (int32_t i = 0; i < t->ndim; ++i) {
        tvm_ffi_strbuf_printf(b, i ? ", %" PRId64 : "%" PRId64, t->shape[i]);
      }
      tvm_ffi_strbuf_putc(b, ']');
      return;
    }
    default:
      tvm_ffi_strbuf_puts(b, tvm_ffi_any_type_name(v));
      return;
  }
}

int tvm_vm_executable_stats(const tvm_vm_executable* e, TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  if (!tvm_vm_is_executable(e)) return tvm_ffi_raise("TypeError", "not a VM executable");
  tvm_ffi_strbuf b = {0};
  tvm_ffi_strbuf_puts(&b, "Relax VM executable statistics:\n");
  tvm_ffi_strbuf_printf(&b, "  Constant pool (# %" PRId64 "): [", e->num_consts);
  for (int64_t i = 0; i < e->num_consts; ++i) {
    if (i) tvm_ffi_strbuf_puts(&b, ", ");
    tvm_vm__format_value(&e->consts[i], &b);
  }
  tvm_ffi_strbuf_puts(&b, "]\n");
  tvm_ffi_strbuf_printf(&b, "  Globals (#%" PRId64 "): [", e->num_funcs);
  for (int64_t i = 0; i < e->num_funcs; ++i) {
    tvm_ffi_strbuf_printf(&b, i ? ", %s" : "%s", e->funcs[i].name.data);
  }
  tvm_ffi_strbuf_puts(&b, "]\n");
  tvm_ffi_strbuf_printf(&b, "  Memory scopes (#%" PRId64 "): [", e->num_scopes);
  for (int64_t i = 0; i < e->num_scopes; ++i) {
    tvm_ffi_strbuf_printf(&b, i ? ", c[%" PRId64 "]: %s" : "c[%" PRId64 "]: %s",
                          e->scopes[i].const_idx, e->scopes[i].scope.data);
  }
  tvm_ffi_strbuf_puts(&b, "]\n");
  tvm_ffi_strbuf_printf(&b, "  Instructions: %" PRId64 " (%" PRId64 " words)\n", e->num_instrs,
                        e->num_words);
  return finish(&b, out);
}

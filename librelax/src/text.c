/*
 * text.c: one-line TVMScript-like text of struct info and expressions for error messages
 * ("R.Tensor((n, 4), "float32")"). The TVMScript printer is libscript's; this never fails.
 */
#include <string.h>

#include "internal.h"

static void put_dtype(tvm_ffi_strbuf* out, DLDataType t) {
  tvm_ffi_strbuf_printf(out, "\"%s\"", tvm_tir_dtype_str(t).s);
}

/* A dim: int64 constants as plain numbers, as TVMScript writes shapes. */
static void put_dim(tvm_ffi_strbuf* out, const void* d) {
  int64_t v;
  if (tvm_tir_kind_of(d) == TVM_TIR_KIND_IntImm && tvm_tir_as_const_int(d, &v)) {
    tvm_ffi_strbuf_printf(out, "%lld", (long long)v);
  } else {
    tvm_tir_node_text(out, d);
  }
}

static void put_dims(tvm_ffi_strbuf* out, void* dims) {
  int64_t n = tvm_ffi_seq_size(dims);
  tvm_ffi_strbuf_putc(out, '(');
  for (int64_t i = 0; i < n; ++i) {
    if (i) tvm_ffi_strbuf_puts(out, ", ");
    put_dim(out, tvm_ffi_seq_obj_at(dims, i));
  }
  if (n == 1) tvm_ffi_strbuf_putc(out, ',');
  tvm_ffi_strbuf_putc(out, ')');
}

void tvm_relax_sinfo_text(tvm_ffi_strbuf* out, const tvm_relax_sinfo_obj* s) {
  switch (tvm_relax_kind_of(s)) {
    case TVM_RELAX_KIND_ObjectStructInfo:
      tvm_ffi_strbuf_puts(out, "R.Object");
      return;
    case TVM_RELAX_KIND_PrimStructInfo: {
      const tvm_relax_prim_sinfo_obj* p = (const void*)s;
      tvm_ffi_strbuf_puts(out, "R.Prim(");
      if (p->value) {
        tvm_ffi_strbuf_puts(out, "value=");
        tvm_tir_node_text(out, p->value);
      } else if (!tvm_relax_dtype_is_unknown(p->dtype)) {
        put_dtype(out, p->dtype);
      }
      tvm_ffi_strbuf_putc(out, ')');
      return;
    }
    case TVM_RELAX_KIND_ShapeStructInfo: {
      const tvm_relax_shape_sinfo_obj* p = (const void*)s;
      tvm_ffi_strbuf_puts(out, "R.Shape(");
      if (p->values) {
        tvm_ffi_strbuf_putc(out, '[');
        for (int64_t i = 0; i < tvm_ffi_seq_size(p->values); ++i) {
          if (i) tvm_ffi_strbuf_puts(out, ", ");
          put_dim(out, tvm_ffi_seq_obj_at(p->values, i));
        }
        tvm_ffi_strbuf_putc(out, ']');
      } else if (p->ndim != TVM_RELAX_UNKNOWN_NDIM) {
        tvm_ffi_strbuf_printf(out, "ndim=%d", p->ndim);
      }
      tvm_ffi_strbuf_putc(out, ')');
      return;
    }
    case TVM_RELAX_KIND_TensorStructInfo: {
      const tvm_relax_tensor_sinfo_obj* p = (const void*)s;
      void* dims = tvm_relax_tensor_sinfo_dims(s);
      tvm_ffi_strbuf_puts(out, "R.Tensor(");
      bool any = false;
      if (dims) {
        put_dims(out, dims);
        any = true;
      } else if (p->shape && tvm_relax_is_var(p->shape)) {
        tvm_ffi_strbuf_puts(out, tvm_relax_var_name((const tvm_relax_var_obj*)p->shape));
        any = true;
      }
      if (!tvm_relax_dtype_is_unknown(p->dtype)) {
        if (any) tvm_ffi_strbuf_puts(out, ", ");
        tvm_ffi_strbuf_puts(out, "dtype=");
        put_dtype(out, p->dtype);
        any = true;
      }
      if (!dims && p->ndim != TVM_RELAX_UNKNOWN_NDIM) {
        if (any) tvm_ffi_strbuf_puts(out, ", ");
        tvm_ffi_strbuf_printf(out, "ndim=%d", p->ndim);
      }
      tvm_ffi_strbuf_putc(out, ')');
      return;
    }
    case TVM_RELAX_KIND_DTensorStructInfo: {
      /* R.DTensor((128, 128), dtype="float32", "mesh(2,)", "S[0]") in short */
      const tvm_relax_dtensor_sinfo_obj* p = (const void*)s;
      tvm_ffi_strbuf_puts(out, "R.DTensor(");
      tvm_ffi_strbuf t = {0};
      tvm_relax_sinfo_text(&t, p->tensor_sinfo);
      const char* ts = tvm_ffi_strbuf_cstr(&t);
      size_t n = strlen(ts);
      if (n > 10) tvm_ffi_strbuf_append(out, ts + 9, n - 10); /* between "R.Tensor(" and ")" */
      tvm_ffi_strbuf_free(&t);
      tvm_ffi_strbuf_puts(out, n > 10 ? ", mesh(" : "mesh(");
      void* shape = p->device_mesh ? p->device_mesh->shape : NULL;
      for (int64_t i = 0; i < tvm_ffi_seq_size(shape); ++i) {
        tvm_ffi_strbuf_printf(out, "%s%lld", i ? ", " : "",
                              (long long)tvm_ffi_seq_at(shape, i)->v_int64);
      }
      tvm_ffi_strbuf_puts(out, "), \"");
      tvm_relax_placement_text(out, p->placement);
      tvm_ffi_strbuf_puts(out, "\")");
      return;
    }
    case TVM_RELAX_KIND_TupleStructInfo: {
      void* f = ((const tvm_relax_tuple_sinfo_obj*)s)->fields;
      tvm_ffi_strbuf_puts(out, "R.Tuple(");
      for (int64_t i = 0; i < tvm_ffi_seq_size(f); ++i) {
        if (i) tvm_ffi_strbuf_puts(out, ", ");
        if (i == 8) {
          tvm_ffi_strbuf_puts(out, "...");
          break;
        }
        tvm_relax_sinfo_text(out, tvm_ffi_seq_obj_at(f, i));
      }
      tvm_ffi_strbuf_putc(out, ')');
      return;
    }
    case TVM_RELAX_KIND_FuncStructInfo: {
      const tvm_relax_func_sinfo_obj* p = (const void*)s;
      tvm_ffi_strbuf_puts(out, "R.Callable(");
      if (p->params) {
        tvm_ffi_strbuf_putc(out, '(');
        for (int64_t i = 0; i < tvm_ffi_seq_size(p->params); ++i) {
          if (i) tvm_ffi_strbuf_puts(out, ", ");
          tvm_relax_sinfo_text(out, tvm_ffi_seq_obj_at(p->params, i));
        }
        tvm_ffi_strbuf_puts(out, "), ");
      }
      TVMFFIByteArray rule;
      TVMFFIAny any = tvm_ffi_any_obj(p->derive_func);
      if (p->derive_func && tvm_ffi_any_as_bytes(&any, &rule)) {
        tvm_ffi_strbuf_printf(out, "derive_func=\"%.*s\"", (int)rule.size, rule.data);
      } else {
        tvm_relax_sinfo_text(out, p->ret);
      }
      tvm_ffi_strbuf_puts(out, p->purity ? ")" : ", purity=False)");
      return;
    }
    default:
      tvm_ffi_strbuf_puts(out, s ? "<not a struct info>" : "<no struct info>");
  }
}

void tvm_relax__text(tvm_ffi_strbuf* out, const void* obj) {
  if (tvm_relax_is_sinfo(obj)) return tvm_relax_sinfo_text(out, obj);
  switch (tvm_relax_kind_of(obj)) {
    case TVM_RELAX_KIND_Var:
    case TVM_RELAX_KIND_DataflowVar:
      tvm_ffi_strbuf_puts(out, tvm_relax_var_name(obj));
      return;
    case TVM_RELAX_KIND_Call: {
      const tvm_relax_call_obj* c = obj;
      const tvm_relax_op_info* info = tvm_relax_op_info_of(c->op);
      if (info) {
        tvm_ffi_strbuf_printf(out, "R.%s(...)", info->name + 6);
      } else {
        tvm_relax__text(out, c->op);
        tvm_ffi_strbuf_puts(out, "(...)");
      }
      return;
    }
    default:
      break;
  }
  if (tvm_tir_is(obj, TVM_TIR_KIND_GlobalVar)) {
    const void* name = ((const tvm_tir_global_var_obj*)obj)->name_hint;
    tvm_ffi_strbuf_printf(out, "@%s", name ? tvm_ffi_str_cstr(name) : "");
  } else if (tvm_tir_is(obj, TVM_TIR_KIND_Op)) {
    tvm_ffi_strbuf_puts(out, tvm_tir_op_name(obj));
  } else if (obj) {
    tvm_ffi_strbuf_puts(out, tvm_relax_kind_name(tvm_relax_kind_of(obj)));
  }
}

/*
 * render.c: values as text for people (tvm-private/ffi.h), and Python's str.format over them:
 * what Relax's print and assert_op show, the same in the VM (libvm's relax.run.print /
 * relax.run.assert_op) and in the reference evaluator (librelax).
 *
 * A value renders as Python's str() of its upstream counterpart where there is one: None,
 * True/False, integers, floats (the shortest text that reads back), strings as they are, a Shape
 * as a Python tuple "(2, 3)" / "(2,)", an Array as "(a, b)" (upstream's render_object). A CPU
 * tensor renders its elements nested by dims, "[[1, 2], [3, 4]]" (a 0-d tensor as its element);
 * a tensor of more than 1000 elements, off the CPU or of a dtype without a text form renders as
 * "Tensor(shape=(...), dtype=..., device=...)".
 */
#include <string.h>

#include <tvm-private/ffi.h>

enum { RENDER_MAX_ELEMS = 1000, RENDER_MAX_DEPTH = 32 };

static void put_tuple(tvm_ffi_strbuf* out, const int64_t* v, int64_t n) {
  tvm_ffi_strbuf_putc(out, '(');
  for (int64_t i = 0; i < n; ++i) tvm_ffi_strbuf_printf(out, i ? ", %lld" : "%lld", (long long)v[i]);
  tvm_ffi_strbuf_puts(out, n == 1 ? ",)" : ")");
}

static void put_dtype(tvm_ffi_strbuf* out, DLDataType t) {
  char dt[64];
  if (tvm_ffi_dtype_format(t, dt, sizeof(dt)) >= 0) {
    tvm_ffi_strbuf_puts(out, dt);
  } else {
    tvm_ffi_error_clear(); /* a code without a name: its numbers */
    tvm_ffi_strbuf_printf(out, "dtype(%d, %d, %d)", (int)t.code, (int)t.bits, (int)t.lanes);
  }
}

static void put_double(tvm_ffi_strbuf* out, double v, bool f32) {
  char buf[64];
  if (v != v) {
    tvm_ffi_strbuf_puts(out, "nan");
  } else if (v == __builtin_inf() || v == -__builtin_inf()) {
    tvm_ffi_strbuf_puts(out, v > 0 ? "inf" : "-inf");
  } else if (tvm_ffi_format_double(v, f32, buf, sizeof(buf)) > 0) {
    tvm_ffi_strbuf_puts(out, buf);
    /* Python writes a float with a point or exponent: 1.0, not 1. */
    if (!strpbrk(buf, ".e")) tvm_ffi_strbuf_puts(out, ".0");
  }
}

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else { /* subnormal: normalise */
    int e = -1;
    do {
      ++e;
      man <<= 1;
    } while (!(man & 0x400));
    bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ff) << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

/* Whether elements of dtype t have a text form here. */
static bool elem_supported(DLDataType t) {
  if (t.lanes != 1) return false;
  switch (t.code) {
    case kDLInt: return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLUInt: return t.bits == 1 || t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLBool: return t.bits == 8 || t.bits == 1;
    case kDLFloat: return t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLBfloat: return t.bits == 16;
    default: return false;
  }
}

static void put_elem(tvm_ffi_strbuf* out, DLDataType t, const char* p) {
  if (t.code == kDLBool || (t.code == kDLUInt && t.bits == 1)) {
    tvm_ffi_strbuf_puts(out, *(const uint8_t*)p ? "True" : "False");
  } else if (t.code == kDLInt) {
    int64_t v = 0;
    switch (t.bits) {
      case 8: { int8_t x; memcpy(&x, p, 1); v = x; break; }
      case 16: { int16_t x; memcpy(&x, p, 2); v = x; break; }
      case 32: { int32_t x; memcpy(&x, p, 4); v = x; break; }
      default: memcpy(&v, p, 8); break;
    }
    tvm_ffi_strbuf_printf(out, "%lld", (long long)v);
  } else if (t.code == kDLUInt) {
    uint64_t v = 0;
    switch (t.bits) {
      case 8: { uint8_t x; memcpy(&x, p, 1); v = x; break; }
      case 16: { uint16_t x; memcpy(&x, p, 2); v = x; break; }
      case 32: { uint32_t x; memcpy(&x, p, 4); v = x; break; }
      default: memcpy(&v, p, 8); break;
    }
    tvm_ffi_strbuf_printf(out, "%llu", (unsigned long long)v);
  } else if (t.code == kDLBfloat) {
    uint16_t h;
    memcpy(&h, p, 2);
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    put_double(out, f, true);
  } else if (t.bits == 16) {
    uint16_t h;
    memcpy(&h, p, 2);
    put_double(out, half_to_float(h), true);
  } else if (t.bits == 32) {
    float f;
    memcpy(&f, p, 4);
    put_double(out, f, true);
  } else {
    double d;
    memcpy(&d, p, 8);
    put_double(out, d, false);
  }
}

static void put_tensor_elems(tvm_ffi_strbuf* out, const DLTensor* t, int32_t axis, const char* base,
                             int64_t elem_size) {
  if (axis == t->ndim) {
    put_elem(out, t->dtype, base);
    return;
  }
  int64_t stride = 1;
  if (t->strides) {
    stride = t->strides[axis];
  } else {
    for (int32_t i = axis + 1; i < t->ndim; ++i) stride *= t->shape[i];
  }
  tvm_ffi_strbuf_putc(out, '[');
  for (int64_t i = 0; i < t->shape[axis]; ++i) {
    if (i) tvm_ffi_strbuf_puts(out, ", ");
    put_tensor_elems(out, t, axis + 1, base + i * stride * elem_size, elem_size);
  }
  tvm_ffi_strbuf_putc(out, ']');
}

static void put_tensor(tvm_ffi_strbuf* out, const DLTensor* t) {
  int64_t n = tvm_ffi_dltensor_numel(t);
  if (t->device.device_type == kDLCPU && elem_supported(t->dtype) && n <= RENDER_MAX_ELEMS &&
      (t->data || n == 0)) {
    int64_t size = t->dtype.bits < 8 ? 1 : t->dtype.bits / 8;
    put_tensor_elems(out, t, 0, (const char*)t->data + t->byte_offset, size);
    return;
  }
  tvm_ffi_strbuf_puts(out, "Tensor(shape=");
  put_tuple(out, t->shape, t->ndim);
  tvm_ffi_strbuf_puts(out, ", dtype=");
  put_dtype(out, t->dtype);
  int dev = (int)t->device.device_type;
  tvm_ffi_strbuf_printf(out, ", device=%s:%d)", dev == kDLCPU ? "cpu" : dev == kDLCUDA ? "cuda" : "device",
                        (int)t->device.device_id);
}

static void render(const TVMFFIAny* v, tvm_ffi_strbuf* out, int depth) {
  TVMFFIByteArray bytes;
  switch (v->type_index) {
    case kTVMFFINone: tvm_ffi_strbuf_puts(out, "None"); return;
    case kTVMFFIBool: tvm_ffi_strbuf_puts(out, v->v_int64 ? "True" : "False"); return;
    case kTVMFFIInt: tvm_ffi_strbuf_printf(out, "%lld", (long long)v->v_int64); return;
    case kTVMFFIFloat: put_double(out, v->v_float64, false); return;
    case kTVMFFIDataType: put_dtype(out, v->v_dtype); return;
    case kTVMFFIDLTensorPtr: put_tensor(out, (const DLTensor*)v->v_ptr); return;
    case kTVMFFITensor: put_tensor(out, tvm_ffi_tensor_dl(v->v_obj)); return;
    case kTVMFFIShape: put_tuple(out, tvm_ffi_shape_data(v->v_obj), tvm_ffi_shape_ndim(v->v_obj)); return;
    case kTVMFFIArray: {
      if (depth >= RENDER_MAX_DEPTH) {
        tvm_ffi_strbuf_puts(out, "(...)");
        return;
      }
      tvm_ffi_strbuf_putc(out, '(');
      for (int64_t i = 0; i < tvm_ffi_seq_size(v->v_obj); ++i) {
        if (i) tvm_ffi_strbuf_puts(out, ", ");
        render(tvm_ffi_seq_at(v->v_obj, i), out, depth + 1);
      }
      tvm_ffi_strbuf_putc(out, ')');
      return;
    }
    default:
      if (tvm_ffi_any_as_bytes(v, &bytes)) {
        tvm_ffi_strbuf_append(out, bytes.data, bytes.size);
      } else {
        tvm_ffi_strbuf_printf(out, "<%s>", tvm_ffi_any_type_name(v));
      }
      return;
  }
}

void tvm_ffi__render_value(const TVMFFIAny* value, tvm_ffi_strbuf* out) { render(value, out, 0); }

int tvm_ffi__format_values(TVMFFIByteArray fmt, const TVMFFIAny* args, int32_t n,
                           const char* empty_sep, tvm_ffi_strbuf* out) {
  if (fmt.size == 0 && empty_sep) {
    for (int32_t i = 0; i < n; ++i) {
      if (i) tvm_ffi_strbuf_puts(out, empty_sep);
      render(&args[i], out, 0);
    }
    return 0;
  }
  int64_t next = 0;
  int numbering = 0; /* 1 automatic, 2 manual */
  for (size_t i = 0; i < fmt.size; ++i) {
    char c = fmt.data[i];
    if (c == '}') {
      if (i + 1 < fmt.size && fmt.data[i + 1] == '}') {
        tvm_ffi_strbuf_putc(out, '}');
        ++i;
        continue;
      }
      return tvm_ffi_raise("ValueError", "Single '}' encountered in format string");
    }
    if (c != '{') {
      tvm_ffi_strbuf_putc(out, c);
      continue;
    }
    if (i + 1 < fmt.size && fmt.data[i + 1] == '{') {
      tvm_ffi_strbuf_putc(out, '{');
      ++i;
      continue;
    }
    size_t end = i + 1;
    while (end < fmt.size && fmt.data[end] != '}') ++end;
    if (end == fmt.size) return tvm_ffi_raise("ValueError", "Single '{' encountered in format string");
    const char* field = fmt.data + i + 1;
    size_t len = end - i - 1;
    int64_t index = 0;
    if (len == 0) {
      if (numbering == 2) {
        return tvm_ffi_raise("ValueError", "cannot switch from manual field specification to automatic field numbering");
      }
      numbering = 1;
      index = next++;
    } else {
      for (size_t k = 0; k < len; ++k) {
        if (field[k] < '0' || field[k] > '9' || index > (int64_t)1 << 40) {
          return tvm_ffi_raise("ValueError",
                               "format field {%.*s} is not supported (only {} and {<index>})",
                               (int)len, field);
        }
        index = index * 10 + (field[k] - '0');
      }
      if (numbering == 1) {
        return tvm_ffi_raise("ValueError", "cannot switch from automatic field numbering to manual field specification");
      }
      numbering = 2;
    }
    if (index >= n) {
      return tvm_ffi_raise("IndexError", "Replacement index %lld out of range for positional args tuple",
                           (long long)index);
    }
    render(&args[index], out, 0);
    i = end;
  }
  return 0;
}

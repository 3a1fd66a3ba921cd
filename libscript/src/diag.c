/* diag.c: source diagnostics with the offending span underlined (shared by parser and checker). */
#include <string.h>
#include <tvm/script/lexer.h>

/* Start of the 1-based line `line` in source (the end of the text if it has fewer lines). */
static size_t line_start(const char* src, size_t len, int32_t line) {
  size_t p = len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0; /* as the lexer: no BOM */
  for (int32_t l = 1; l < line && p < len; ++p) {
    if (src[p] == '\n') {
      ++l;
    } else if (src[p] == '\r') {
      if (p + 1 < len && src[p + 1] == '\n') ++p;
      ++l;
    }
  }
  return p;
}

/* Characters shown for bytes [from, to) of the line: a tab stays a tab, a UTF-8 sequence counts
 * once, anything else is one column. */
static void pad(tvm_ffi_strbuf* out, const char* src, size_t from, size_t to, char fill) {
  for (size_t i = from; i < to; ++i) {
    unsigned char c = (unsigned char)src[i];
    if ((c & 0xC0) == 0x80) continue; /* continuation byte */
    tvm_ffi_strbuf_putc(out, c == '\t' && fill == ' ' ? '\t' : fill);
  }
}

void tvm_script_diag_render(const char* source, size_t len, const char* filename,
                            tvm_script_span span, const char* kind, const char* message,
                            tvm_ffi_strbuf* out) {
  tvm_ffi_strbuf_printf(out, "%s:%d:%d: %s: %s\n", filename ? filename : "<string>",
                        span.start_line, span.start_col, kind, message);
  if (!source || span.start_line < 1) return;
  size_t start = line_start(source, len, span.start_line);
  size_t end = start;
  while (end < len && source[end] != '\n' && source[end] != '\r') ++end;
  tvm_ffi_strbuf_append(out, source + start, end - start);
  tvm_ffi_strbuf_putc(out, '\n');
  size_t col = start + (size_t)(span.start_col > 0 ? span.start_col - 1 : 0);
  if (col > end) col = end;
  size_t stop = span.end_line != span.start_line ? end
                : span.end_col > 0 ? start + (size_t)(span.end_col - 1) : col;
  if (stop > end) stop = end;
  pad(out, source, start, col, ' ');
  if (stop <= col) {
    tvm_ffi_strbuf_putc(out, '^');
  } else {
    pad(out, source, col, stop, '^');
  }
  tvm_ffi_strbuf_putc(out, '\n');
}

int tvm_script_diag_raise(const char* error_kind, const char* source, size_t len,
                          const char* filename, tvm_script_span span, const char* fmt, ...) {
  tvm_ffi_strbuf msg = {0}, out = {0};
  va_list ap;
  va_start(ap, fmt);
  tvm_ffi_strbuf_vprintf(&msg, fmt, ap);
  va_end(ap);
  tvm_script_diag_render(source, len, filename, span, "error", tvm_ffi_strbuf_cstr(&msg), &out);
  /* The rendered text ends with a newline; the message itself does not. */
  if (out.size && out.data[out.size - 1] == '\n') out.data[--out.size] = '\0';
  tvm_ffi_raise(error_kind, "%s", tvm_ffi_strbuf_cstr(&out));
  tvm_ffi_strbuf_free(&msg);
  tvm_ffi_strbuf_free(&out);
  return -1;
}

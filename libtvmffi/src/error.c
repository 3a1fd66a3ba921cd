/*
 * error.c: Error objects and the thread-local raised-error slot.
 *
 * An Error is one block: { header, TVMFFIErrorCell, kind\0, message\0 }; the backtrace lives in
 * its own buffer so update_backtrace can grow it. Capturing a backtrace costs microseconds, so
 * new errors capture one only when enabled (TVM_FFI_BACKTRACE=1, or
 * tvm_ffi_error_set_capture_backtrace); TVMFFIBacktrace always captures.
 */
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct {
  TVMFFIObject header;
  TVMFFIErrorCell cell;
  char* backtrace_buf; /* owned; NULL when the backtrace is empty */
} error_obj;
_Static_assert(offsetof(error_obj, cell) == sizeof(TVMFFIObject), "error cell follows header");

static __thread TVMFFIObject* t_raised;
/* t_raised's place in the order of this thread's raises (t_raises counts them), 0 for an error
 * given back (tvm_ffi_error_give_back), which predates every mark taken while it was aside. */
static __thread uint64_t t_raises, t_raised_seq;
static int g_capture = -1; /* -1: read TVM_FFI_BACKTRACE on first use */

void tvm_ffi_error_set_capture_backtrace(bool enabled) {
  __atomic_store_n(&g_capture, enabled ? 1 : 0, __ATOMIC_RELAXED);
}

static bool capture_enabled(void) {
  int c = __atomic_load_n(&g_capture, __ATOMIC_RELAXED);
  if (c < 0) {
    const char* env = getenv("TVM_FFI_BACKTRACE");
    c = env && env[0] && strcmp(env, "0") != 0;
    __atomic_store_n(&g_capture, c, __ATOMIC_RELAXED);
  }
  return c != 0;
}

char* tvm_ffi__capture_backtrace(int skip) {
  void* frames[64];
  int n = backtrace(frames, 64);
  char** names = backtrace_symbols(frames, n);
  tvm_ffi_strbuf b = {0};
  for (int i = skip; i < n; ++i) {
    tvm_ffi_strbuf_printf(&b, "  %s\n", names ? names[i] : "?");
  }
  free(names); /* backtrace_symbols allocates with libc malloc */
  if (b.failed || b.size == 0) {
    tvm_ffi_strbuf_free(&b);
    return NULL;
  }
  return b.data;
}

const TVMFFIByteArray* TVMFFIBacktrace(const char* filename, int lineno, const char* func,
                                       int cross_ffi_boundary) {
  (void)cross_ffi_boundary;
  static __thread char* t_buf;
  static __thread TVMFFIByteArray t_view;
  tvm_ffi_free(t_buf);
  char* bt = tvm_ffi__capture_backtrace(1);
  tvm_ffi_strbuf b = {0};
  if (filename) tvm_ffi_strbuf_printf(&b, "  File \"%s\", line %d, in %s\n", filename, lineno,
                                      func ? func : "<unknown>");
  if (bt) tvm_ffi_strbuf_puts(&b, bt);
  tvm_ffi_free(bt);
  t_buf = b.data;
  t_view.data = b.data ? b.data : "";
  t_view.size = b.size;
  return &t_view;
}

static void update_backtrace(TVMFFIObjectHandle self, const TVMFFIByteArray* backtrace,
                             int32_t update_mode) {
  error_obj* e = (error_obj*)self;
  size_t keep = update_mode == kTVMFFIBacktraceUpdateModeAppend ? e->cell.backtrace.size : 0;
  size_t add = backtrace ? backtrace->size : 0;
  char* buf = (char*)tvm_ffi_malloc(keep + add + 1);
  if (!buf) return; /* keep the old backtrace */
  if (keep) memcpy(buf, e->cell.backtrace.data, keep);
  if (add) memcpy(buf + keep, backtrace->data, add);
  buf[keep + add] = '\0';
  tvm_ffi_free(e->backtrace_buf);
  e->backtrace_buf = buf;
  e->cell.backtrace.data = buf;
  e->cell.backtrace.size = keep + add;
}

static void error_destroy(void* self) {
  error_obj* e = (error_obj*)self;
  tvm_ffi_free(e->backtrace_buf);
  tvm_ffi_release(e->cell.cause_chain);
  tvm_ffi_release(e->cell.extra_context);
}

static void* error_alloc(const char* kind, size_t kind_n, const char* msg, size_t msg_n,
                         const char* bt, size_t bt_n, void* cause, void* extra) {
  error_obj* e = (error_obj*)tvm_ffi_object_new(kTVMFFIError, sizeof(error_obj) + kind_n + msg_n + 2);
  if (!e) return NULL;
  char* p = (char*)(e + 1);
  memcpy(p, kind, kind_n);
  p[kind_n] = '\0';
  e->cell.kind.data = p;
  e->cell.kind.size = kind_n;
  p += kind_n + 1;
  if (msg_n) memcpy(p, msg, msg_n);
  p[msg_n] = '\0';
  e->cell.message.data = p;
  e->cell.message.size = msg_n;
  e->cell.backtrace.data = "";
  e->cell.update_backtrace = update_backtrace;
  if (bt_n) {
    TVMFFIByteArray b = {bt, bt_n};
    update_backtrace(e, &b, kTVMFFIBacktraceUpdateModeReplace);
  }
  tvm_ffi_retain(cause);
  tvm_ffi_retain(extra);
  e->cell.cause_chain = cause;
  e->cell.extra_context = extra;
  return e;
}

int TVMFFIErrorCreateWithCauseAndExtraContext(const TVMFFIByteArray* kind,
                                              const TVMFFIByteArray* message,
                                              const TVMFFIByteArray* backtrace,
                                              TVMFFIObjectHandle cause_chain,
                                              TVMFFIObjectHandle extra_context,
                                              TVMFFIObjectHandle* out) {
  if (!out) return -1;
  *out = NULL;
  static const TVMFFIByteArray empty = {"", 0};
  if (!kind) kind = &empty;
  if (!message) message = &empty;
  if (!backtrace) backtrace = &empty;
  void* e = error_alloc(kind->data, kind->size, message->data, message->size, backtrace->data,
                        backtrace->size, cause_chain, extra_context);
  if (!e) {
    tvm_ffi_error_clear(); /* this function must not leave an error raised */
    return -1;
  }
  *out = e;
  return 0;
}

int TVMFFIErrorCreate(const TVMFFIByteArray* kind, const TVMFFIByteArray* message,
                      const TVMFFIByteArray* backtrace, TVMFFIObjectHandle* out) {
  return TVMFFIErrorCreateWithCauseAndExtraContext(kind, message, backtrace, NULL, NULL, out);
}

void TVMFFIErrorMoveFromRaised(TVMFFIObjectHandle* result) {
  if (!result) return;
  *result = t_raised;
  t_raised = NULL;
}

/* The raised error becomes e (owned), the newest raise. */
static void set_raised(TVMFFIObject* e) {
  TVMFFIObject* old = t_raised;
  t_raised = e;
  t_raised_seq = ++t_raises;
  tvm_ffi_release(old);
}

void TVMFFIErrorSetRaised(TVMFFIObjectHandle error) {
  tvm_ffi_retain(error);
  set_raised((TVMFFIObject*)error);
}

/* Raise a new error taking ownership; falls back to a static-free minimal path on OOM. */
static void raise_new(const char* kind, size_t kind_n, const char* msg, size_t msg_n,
                      void* cause) {
  char* bt = capture_enabled() ? tvm_ffi__capture_backtrace(2) : NULL;
  void* e = error_alloc(kind, kind_n, msg, msg_n, bt, bt ? strlen(bt) : 0, cause, NULL);
  tvm_ffi_free(bt);
  if (!e) return; /* out of memory: nothing better can be done */
  set_raised((TVMFFIObject*)e);
}

void TVMFFIErrorSetRaisedFromCStr(const char* kind, const char* message) {
  if (!kind) kind = "RuntimeError";
  if (!message) message = "";
  raise_new(kind, strlen(kind), message, strlen(message), NULL);
}

void TVMFFIErrorSetRaisedFromCStrParts(const char* kind, const char** message_parts,
                                       int32_t num_parts) {
  tvm_ffi_strbuf b = {0};
  for (int32_t i = 0; message_parts && i < num_parts; ++i) {
    if (message_parts[i]) tvm_ffi_strbuf_puts(&b, message_parts[i]);
  }
  if (!kind) kind = "RuntimeError";
  raise_new(kind, strlen(kind), tvm_ffi_strbuf_cstr(&b), b.size, NULL);
  tvm_ffi_strbuf_free(&b);
}

int tvm_ffi_vraise(const char* kind, const char* fmt, va_list ap) {
  char small[512];
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(small, sizeof(small), fmt, ap);
  if (n >= 0 && (size_t)n < sizeof(small)) {
    raise_new(kind, strlen(kind), small, (size_t)n, NULL);
  } else if (n >= 0) {
    char* big = (char*)tvm_ffi_malloc((size_t)n + 1);
    if (big) {
      vsnprintf(big, (size_t)n + 1, fmt, ap2);
      raise_new(kind, strlen(kind), big, (size_t)n, NULL);
      tvm_ffi_free(big);
    }
  }
  va_end(ap2);
  return -1;
}

int tvm_ffi_raise(const char* kind, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tvm_ffi_vraise(kind, fmt, ap);
  va_end(ap);
  return -1;
}

int tvm_ffi_raise_context(const char* fmt, ...) {
  tvm_ffi_strbuf b = {0};
  va_list ap;
  va_start(ap, fmt);
  tvm_ffi_strbuf_vprintf(&b, fmt, ap);
  va_end(ap);
  TVMFFIObject* cause = t_raised;
  t_raised = NULL;
  const char* kind = "RuntimeError";
  if (cause) {
    TVMFFIErrorCell* c = TVMFFIErrorGetCellPtr(cause);
    kind = c->kind.data;
    tvm_ffi_strbuf_puts(&b, ": ");
    tvm_ffi_strbuf_append(&b, c->message.data, c->message.size);
  }
  raise_new(kind, strlen(kind), tvm_ffi_strbuf_cstr(&b), b.size, cause);
  tvm_ffi_release(cause);
  tvm_ffi_strbuf_free(&b);
  return -1;
}

void* tvm_ffi_error_new(const char* kind, const char* message) {
  return error_alloc(kind, strlen(kind), message, strlen(message), NULL, 0, NULL, NULL);
}

void* tvm_ffi_error_take(void) {
  void* e = t_raised;
  t_raised = NULL;
  return e;
}

bool tvm_ffi_error_pending(void) { return t_raised != NULL; }

uint64_t tvm_ffi_error_mark(void) { return t_raises; }

bool tvm_ffi_error_raised_since(uint64_t mark) { return t_raised && t_raised_seq > mark; }

void tvm_ffi_error_give_back(void* stale) {
  if (stale && !t_raised) {
    t_raised = (TVMFFIObject*)stale; /* (the reference passes back to the slot) */
    t_raised_seq = 0;
    return;
  }
  tvm_ffi_release(stale);
}

void tvm_ffi_error_clear(void) {
  TVMFFIObject* e = t_raised;
  t_raised = NULL;
  tvm_ffi_release(e);
}

void tvm_ffi__init_errors(void) {
  tvm_ffi_type_register("ffi.Error", kTVMFFIObject, kTVMFFIError, sizeof(error_obj),
                        error_destroy, kTVMFFISEqHashKindUniqueInstance);
}

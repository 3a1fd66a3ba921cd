/*
 * vm_module.c: the VM as an ffi.Module (kind "relax.VirtualMachine") and the C embedding API
 * of tvm/vm/vm.h: creation, calls by name, the stateful interface, saved functions,
 * instrumentation, the time evaluator; and libvm's one-time initialisation.
 *
 * The module object is a thin shell owning the VM state. Functions handed out (by the module
 * or tvm_vm_get_function) hold the state, never the shell, so a module cache holding them makes
 * no reference cycle, and such a function stays callable after the module is released.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "internal.h"

int tvm_vm__register_closure_type(void);
int tvm_vm__register_memory_types(void);
int tvm_vm__register_state_type(void);
int tvm_vm__register_cuda_module(void);
tvm_vm_state* tvm_vm__state_new(tvm_vm_executable* exec);
int tvm_vm__allocator_usage(tvm_vm_allocator* a, size_t* allocated, size_t* cached);

/* ---- One-time initialisation ------------------------------------------------------------- */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_init_rc;
static char g_init_error[512];

static int load_executable_from_bytes(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  TVMFFIByteArray b;
  if (!tvm_ffi_check_num_args("ffi.Module.load_from_bytes.relax.VMExecutable", n, 1) ||
      !tvm_ffi_arg_bytes("ffi.Module.load_from_bytes.relax.VMExecutable", args, 0, &b)) {
    return -1;
  }
  tvm_vm_executable* e = tvm_vm_executable_load_bytes(b.data, b.size);
  if (!e) return -1;
  *rv = tvm_ffi_any_obj(e);
  return 0;
}

static int load_executable_from_file(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  TVMFFIByteArray b;
  if (!tvm_ffi_arg_bytes("vm.LoadExecutableFromFile", args, 0, &b) || n < 1) return -1;
  char* path = tvm_vm__bytes_dup(b.data, b.size);
  if (!path) return -1;
  tvm_vm_executable* e = tvm_vm_executable_load_file(path);
  tvm_ffi_free(path);
  if (!e) return -1;
  *rv = tvm_ffi_any_obj(e);
  return 0;
}

static void init_once(void) {
  tvm_ffi_init();
  int rc = tvm_vm__register_closure_type();
  if (rc == 0) rc = tvm_vm__register_memory_types();
  if (rc == 0) rc = tvm_vm__register_state_type();
  if (rc == 0) rc = tvm_vm__register_builtins();
  if (rc == 0) {
    rc = tvm_ffi_global_register("ffi.Module.load_from_bytes.relax.VMExecutable",
                                 load_executable_from_bytes, true);
  }
  if (rc == 0) rc = tvm_ffi_global_register("vm.LoadExecutableFromFile", load_executable_from_file, true);
  if (rc == 0) rc = tvm_vm__register_cuda_module(); /* ffi.Module.load_from_bytes.cuda */
  if (rc != 0) {
    void* e = tvm_ffi_error_take();
    snprintf(g_init_error, sizeof(g_init_error), "%s", e ? tvm_ffi_error_message(e) : "unknown");
    tvm_ffi_release(e);
  }
  g_init_rc = rc;
}

int tvm_vm_init(void) {
  pthread_once(&g_once, init_once);
  if (g_init_rc == 0) return 0;
  return tvm_ffi_raise("RuntimeError", "libvm failed to initialise: %s", g_init_error);
}

/* ---- Module shell ------------------------------------------------------------------------ */
static void vm_destroy(void* mod) { tvm_ffi_release(((tvm_vm*)mod)->state); }

static int vm_get_function(void* mod, const char* name, void** out);
static int vm_list_functions(void* mod, void* list);

static const tvm_ffi_module_vtable k_vm_vtable = {
    .kind = "relax.VirtualMachine",
    .property_mask = TVM_FFI_MODULE_RUNNABLE,
    .get_function = vm_get_function,
    .list_functions = vm_list_functions,
    .destroy = vm_destroy,
};

bool tvm_vm_is_vm(const void* obj) {
  return obj && tvm_ffi_instance_of(obj, kTVMFFIModule) &&
         ((const tvm_ffi_module_obj*)obj)->vtable == &k_vm_vtable;
}

tvm_vm* tvm_vm__new(tvm_vm_executable* exec) {
  tvm_vm* vm = (tvm_vm*)tvm_ffi_module_new(&k_vm_vtable, sizeof(struct tvm_vm_obj));
  if (!vm) return NULL;
  vm->state = tvm_vm__state_new(exec);
  if (!vm->state) {
    tvm_ffi_release(vm);
    return NULL;
  }
  return vm;
}

static tvm_vm_state* state_of(const tvm_vm* vm) {
  if (tvm_vm_is_vm(vm)) return vm->state;
  tvm_ffi_raise("TypeError", "not a relax.VirtualMachine");
  return NULL;
}

static tvm_vm_state* ready_state(const tvm_vm* vm) {
  tvm_vm_state* s = state_of(vm);
  return s && tvm_vm__check_initialized(s) == 0 ? s : NULL;
}

tvm_vm* tvm_vm_create_ex(tvm_vm_executable* exec, const DLDevice* devices,
                         const int32_t* allocator_types, int32_t num_devices) {
  if (tvm_vm_init() != 0) return NULL;
  if (!tvm_vm_is_executable(exec)) {
    tvm_ffi_raise("TypeError", "tvm_vm_create: not a VM executable");
    return NULL;
  }
  tvm_vm* vm = tvm_vm__new(exec);
  if (vm && tvm_vm__init(vm->state, devices, allocator_types, num_devices) != 0) {
    tvm_ffi_release(vm);
    return NULL;
  }
  return vm;
}

tvm_vm* tvm_vm_create(tvm_vm_executable* exec, const DLDevice* devices, int32_t num_devices) {
  return tvm_vm_create_ex(exec, devices, NULL, num_devices);
}

tvm_vm_executable* tvm_vm_get_executable(const tvm_vm* vm) {
  tvm_vm_state* s = state_of(vm);
  return s ? s->exec : NULL;
}

int32_t tvm_vm_num_devices(const tvm_vm* vm) {
  tvm_vm_state* s = state_of(vm);
  return s ? s->num_devices : 0;
}

DLDevice tvm_vm_device(const tvm_vm* vm, int32_t index) {
  tvm_vm_state* s = state_of(vm);
  if (!s || index < 0 || index >= s->num_devices) return TVMFFIDLDeviceFromIntPair(0, 0);
  return s->devices[index];
}

int tvm_vm_memory_usage(const tvm_vm* vm, int32_t i, size_t* out_allocated, size_t* out_cached) {
  tvm_vm_state* s = ready_state(vm);
  if (!s) return -1;
  if (i < 0 || i >= s->num_devices) {
    return tvm_ffi_raise("IndexError", "device index %d out of range (%d devices)", (int)i,
                         (int)s->num_devices);
  }
  return tvm_vm__allocator_usage(s->allocators[i], out_allocated, out_cached);
}

int tvm_vm_set_max_call_depth(tvm_vm* vm, int64_t max_depth) {
  tvm_vm_state* s = state_of(vm);
  if (!s) return -1;
  if (max_depth < 1 || max_depth > (INT64_C(1) << 30) || max_depth < s->depth) {
    return tvm_ffi_raise("ValueError", "max call depth %lld out of range [max(1, current depth), 2^30]",
                         (long long)max_depth);
  }
  if (!s->initialized) {
    s->max_depth = max_depth; /* the frames are allocated at initialisation */
    return 0;
  }
  return tvm_vm__resize_frames(s, max_depth);
}

int tvm_vm_set_max_native_nesting(tvm_vm* vm, int32_t max_nesting) {
  tvm_vm_state* s = state_of(vm);
  if (!s) return -1;
  if (max_nesting < 1 || max_nesting < s->nest) {
    return tvm_ffi_raise("ValueError", "max native nesting %d out of range", (int)max_nesting);
  }
  s->max_nest = max_nesting;
  return 0;
}

/* ---- Calls by name ----------------------------------------------------------------------- */
/* Call `name`: a saved function or a function of the executable. */
static int invoke_name(tvm_vm_state* s, const char* name, const TVMFFIAny* args, int32_t n,
                       TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  if (tvm_vm__check_initialized(s) != 0) return -1;
  if (s->saved && tvm_ffi_map_get_str(s->saved, name)) {
    tvm_vm_closure_obj* clo = tvm_vm__get_closure(s, name, false);
    if (!clo) return -1;
    TVMFFIAny c = tvm_ffi_any_obj(clo);
    int rc = tvm_vm__invoke_closure(s, &c, args, n, out);
    tvm_ffi_release(clo);
    return rc;
  }
  int64_t idx = tvm_vm_executable_find_function(s->exec, name);
  if (idx < 0) return tvm_ffi_raise("ValueError", "unknown function `%s`", name);
  return tvm_vm__invoke_index(s, idx, args, n, out);
}

int tvm_vm_invoke(tvm_vm* vm, const char* name, const TVMFFIAny* args, int32_t num_args,
                  TVMFFIAny* out) {
  if (out) *out = tvm_ffi_any_none();
  tvm_vm_state* s = state_of(vm);
  if (!s) return -1;
  if (!name || !out || (num_args && !args)) return tvm_ffi_raise("ValueError", "tvm_vm_invoke: NULL argument");
  return invoke_name(s, name, args, num_args, out);
}

/* A function bound to the state: a function index, or a (saved) closure. */
typedef struct {
  tvm_vm_state* state;
  int64_t fidx;       /* >= 0: function table entry */
  tvm_vm_closure_obj* closure; /* otherwise */
} named_fn;

static void named_fn_delete(void* self) {
  named_fn* f = (named_fn*)self;
  tvm_ffi_release(f->closure);
  tvm_ffi_release(f->state);
  tvm_ffi_free(f);
}

static int named_fn_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  named_fn* f = (named_fn*)self;
  if (f->fidx >= 0) return tvm_vm__invoke_index(f->state, f->fidx, args, n, rv);
  TVMFFIAny c = tvm_ffi_any_obj(f->closure);
  return tvm_vm__invoke_closure(f->state, &c, args, n, rv);
}

/* The function `name` of the VM, or NULL + error (a ValueError for a name it does not have). */
static void* lookup_function(tvm_vm_state* s, const char* name) {
  named_fn* f = (named_fn*)tvm_ffi_calloc(1, sizeof(named_fn));
  if (!f) return NULL;
  f->fidx = -1;
  if (s->saved && tvm_ffi_map_get_str(s->saved, name)) {
    f->closure = tvm_vm__get_closure(s, name, false);
  } else {
    f->fidx = tvm_vm_executable_find_function(s->exec, name);
    if (f->fidx < 0) tvm_ffi_raise("ValueError", "unknown function `%s`", name);
  }
  if (f->fidx < 0 && !f->closure) {
    tvm_ffi_free(f);
    return NULL;
  }
  tvm_ffi_retain(s);
  f->state = s;
  void* fn = tvm_ffi_function_new(f, named_fn_call, named_fn_delete);
  if (!fn) named_fn_delete(f);
  return fn;
}

void* tvm_vm_get_function(tvm_vm* vm, const char* name) {
  tvm_vm_state* s = state_of(vm);
  if (!s) return NULL;
  if (!name) {
    tvm_ffi_raise("ValueError", "tvm_vm_get_function: NULL name");
    return NULL;
  }
  return lookup_function(s, name);
}

/* ---- Stateful interface ------------------------------------------------------------------ */
static int64_t func_index(tvm_vm_state* s, const char* name) {
  int64_t idx = tvm_vm_executable_find_function(s->exec, name);
  if (idx < 0) tvm_ffi_raise("ValueError", "unknown function `%s`", name);
  return idx;
}

static int set_input(tvm_vm_state* s, const char* name, const TVMFFIAny* args, int32_t n) {
  if (tvm_vm__check_initialized(s) != 0) return -1;
  int64_t idx = func_index(s, name);
  if (idx < 0) return -1;
  const tvm_vm_func_info* f = &s->exec->funcs[idx];
  if (f->kind != TVM_VM_FUNC_PACKED && n != f->num_args) {
    return tvm_ffi_raise("ValueError", "set_input: `%s` takes %lld arguments but %d were given",
                         name, (long long)f->num_args, (int)n);
  }
  TVMFFIAny* items = (TVMFFIAny*)tvm_ffi_calloc((size_t)n + 1, sizeof(TVMFFIAny));
  if (!items) return -1;
  int rc = 0;
  for (int32_t i = 0; i < n && rc == 0; ++i) {
    rc = tvm_vm__to_vm_device(s, &args[i], &items[i]);
    if (rc != 0) tvm_ffi_raise_context("set_input: argument %d of `%s`", (int)i, name);
  }
  void* arr = rc == 0 ? tvm_ffi_array_new_take(items, n) : NULL;
  for (int32_t i = 0; i < n; ++i) tvm_ffi_any_release(&items[i]);
  tvm_ffi_free(items);
  if (!arr) return -1;
  tvm_ffi_any_release(&s->inputs[idx]);
  s->inputs[idx] = tvm_ffi_any_obj(arr);
  return 0;
}

static int invoke_stateful(tvm_vm_state* s, const char* name) {
  if (tvm_vm__check_initialized(s) != 0) return -1;
  int64_t idx = func_index(s, name);
  if (idx < 0) return -1;
  if (s->inputs[idx].type_index != kTVMFFIArray) {
    return tvm_ffi_raise("ValueError", "no inputs set for the stateful call of `%s`; use set_input "
                         "first", name);
  }
  void* in = s->inputs[idx].v_obj;
  tvm_ffi_retain(in); /* set_input from inside the call must not free our arguments */
  TVMFFIAny out;
  int rc = tvm_vm__invoke_index(s, idx, tvm_ffi_seq_data(in), (int32_t)tvm_ffi_seq_size(in), &out);
  tvm_ffi_release(in);
  if (rc != 0) return -1;
  tvm_ffi_any_release(&s->outputs[idx]);
  s->outputs[idx] = out;
  return 0;
}

/* The saved output of `name` indexed into nested tuples. */
static const TVMFFIAny* indexed_output(tvm_vm_state* s, const char* name, const int64_t* index,
                                       int32_t depth) {
  int64_t idx = func_index(s, name);
  if (idx < 0) return NULL;
  const TVMFFIAny* v = &s->outputs[idx];
  if (v->type_index == kTVMFFINone) {
    tvm_ffi_raise("ValueError", "no output saved for `%s`; call invoke_stateful first", name);
    return NULL;
  }
  for (int32_t d = 0; d < depth; ++d) {
    if (v->type_index != kTVMFFIArray) {
      tvm_ffi_raise("ValueError", "get_output: index %d of `%s` indexes into a %s, not a tuple",
                    (int)d, name, tvm_ffi_any_type_name(v));
      return NULL;
    }
    int64_t size = tvm_ffi_seq_size(v->v_obj);
    if (index[d] < 0 || index[d] >= size) {
      tvm_ffi_raise("IndexError", "get_output: index %lld out of range (%lld items) for `%s`",
                    (long long)index[d], (long long)size, name);
      return NULL;
    }
    v = tvm_ffi_seq_at(v->v_obj, index[d]);
  }
  return v;
}

static int get_output(tvm_vm_state* s, const char* name, const int64_t* index, int32_t depth,
                      TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  if (tvm_vm__check_initialized(s) != 0) return -1;
  const TVMFFIAny* v = indexed_output(s, name, index, depth);
  if (!v) return -1;
  if (v->type_index == kTVMFFIArray) {
    return tvm_ffi_raise("ValueError", "get_output cannot return a tuple (for RPC compatibility); "
                         "give another index");
  }
  *out = tvm_ffi_any_copy(v);
  return 0;
}

static int get_output_arity(tvm_vm_state* s, const char* name, const int64_t* index,
                            int32_t depth, int64_t* out_arity) {
  if (tvm_vm__check_initialized(s) != 0) return -1;
  const TVMFFIAny* v = indexed_output(s, name, index, depth);
  if (!v) return -1;
  *out_arity = v->type_index == kTVMFFIArray ? tvm_ffi_seq_size(v->v_obj) : -1;
  return 0;
}

/* ---- Saved functions, instrumentation ---------------------------------------------------- */
static int discard_result(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  int rc = tvm_ffi_function_call(self, args, n, rv);
  tvm_ffi_any_release(rv);
  return rc;
}

static int save_function(tvm_vm_state* s, const char* func_name, const char* saved_name,
                         bool include_return, const TVMFFIAny* args, int32_t n) {
  if (tvm_vm__check_initialized(s) != 0) return -1;
  tvm_vm_closure_obj* clo = tvm_vm__get_closure(s, func_name, false);
  if (!clo) return -1;
  TVMFFIAny* conv = (TVMFFIAny*)tvm_ffi_calloc((size_t)n + 1, sizeof(TVMFFIAny));
  int rc = conv ? 0 : -1;
  for (int32_t i = 0; i < n && rc == 0; ++i) rc = tvm_vm__to_vm_device(s, &args[i], &conv[i]);
  void* impl = rc == 0 ? tvm_vm__bind_last_args(clo->impl, conv, n) : NULL;
  for (int32_t i = 0; conv && i < n; ++i) tvm_ffi_any_release(&conv[i]);
  tvm_ffi_free(conv);
  tvm_ffi_release(clo);
  if (impl && !include_return) {
    void* wrapped = tvm_ffi_function_new(impl, discard_result, tvm_ffi_release);
    if (!wrapped) tvm_ffi_release(impl);
    impl = wrapped;
  }
  if (!impl) return -1;
  tvm_vm_closure_obj* saved = tvm_vm__closure_new(saved_name, strlen(saved_name), impl);
  tvm_ffi_release(impl);
  if (!saved) return -1;
  if (!s->saved && !(s->saved = tvm_ffi_dict_new())) rc = -1;
  TVMFFIAny key = tvm_ffi_string(saved_name), value = tvm_ffi_any_obj(saved);
  if (rc == 0) rc = tvm_ffi_dict_set(s->saved, &key, &value);
  tvm_ffi_any_release(&key);
  tvm_ffi_release(saved);
  return rc;
}

static int set_instrument(tvm_vm_state* s, void* func) {
  if (func && !tvm_ffi_instance_of(func, kTVMFFIFunction)) {
    return tvm_ffi_raise("TypeError", "set_instrument expects a Function or None");
  }
  void* previous = s->instrument;
  tvm_ffi_retain(func);
  s->instrument = func;
  if ((previous != NULL) != (func != NULL)) tvm_vm__set_call_handlers(s);
  tvm_ffi_release(previous);
  return 0;
}

/* ---- The C API over the state-level functions above ------------------------------------- */
int tvm_vm_set_input(tvm_vm* vm, const char* name, const TVMFFIAny* args, int32_t num_args) {
  tvm_vm_state* s = state_of(vm);
  return s ? set_input(s, name, args, num_args) : -1;
}
int tvm_vm_invoke_stateful(tvm_vm* vm, const char* name) {
  tvm_vm_state* s = state_of(vm);
  return s ? invoke_stateful(s, name) : -1;
}
int tvm_vm_get_output(tvm_vm* vm, const char* name, const int64_t* index, int32_t depth,
                      TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  tvm_vm_state* s = state_of(vm);
  return s ? get_output(s, name, index, depth, out) : -1;
}
int tvm_vm_get_output_arity(tvm_vm* vm, const char* name, const int64_t* index, int32_t depth,
                            int64_t* out_arity) {
  tvm_vm_state* s = state_of(vm);
  return s ? get_output_arity(s, name, index, depth, out_arity) : -1;
}
int tvm_vm_save_function(tvm_vm* vm, const char* func_name, const char* saved_name,
                         bool include_return, const TVMFFIAny* args, int32_t num_args) {
  tvm_vm_state* s = state_of(vm);
  return s ? save_function(s, func_name, saved_name, include_return, args, num_args) : -1;
}
int tvm_vm_set_instrument(tvm_vm* vm, void* func) {
  tvm_vm_state* s = state_of(vm);
  return s ? set_instrument(s, func) : -1;
}

/* ---- Time evaluator ---------------------------------------------------------------------- */
static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int sync_devices(tvm_vm_state* s) {
  for (int32_t i = 0; i < s->num_devices; ++i) {
    if (s->allocators[i]->api->sync(s->devices[i]) != 0) return -1;
  }
  return 0;
}

static int time_calls(tvm_vm_state* s, void* fn, const TVMFFIAny* args, int32_t n, int64_t number,
                      double* out_seconds) {
  if (sync_devices(s) != 0) return -1;
  double t0 = now_seconds();
  for (int64_t i = 0; i < number; ++i) {
    TVMFFIAny r;
    if (tvm_ffi_function_call(fn, args, n, &r) != 0) return -1;
    tvm_ffi_any_release(&r);
  }
  if (sync_devices(s) != 0) return -1;
  *out_seconds = now_seconds() - t0;
  return 0;
}

static int time_function(tvm_vm_state* s, void* fn, const TVMFFIAny* args, int32_t n,
                         int32_t number, int32_t repeat, int32_t min_repeat_ms, double* out) {
  if (number < 1 || repeat < 1 || min_repeat_ms < 0) {
    return tvm_ffi_raise("ValueError",
                         "time_evaluator: number (%d) and repeat (%d) must be >= 1 and "
                         "min_repeat_ms (%d) >= 0",
                         (int)number, (int)repeat, (int)min_repeat_ms);
  }
  double elapsed;
  if (time_calls(s, fn, args, n, 1, &elapsed) != 0) return -1; /* warm-up */
  int64_t num = number;
  for (int32_t r = 0; r < repeat; ++r) {
    for (;;) {
      if (time_calls(s, fn, args, n, num, &elapsed) != 0) return -1;
      if (elapsed * 1e3 >= min_repeat_ms || num >= (INT64_C(1) << 40)) break;
      /* Too short: grow number (as upstream: by the missing ratio, at least x1.618). */
      double want = elapsed > 0 ? (double)min_repeat_ms * 1e-3 / (elapsed / (double)num) + 1
                                : (double)num * 2;
      int64_t next = (int64_t)(want > (double)num * 1.618 ? want : (double)num * 1.618) + 1;
      num = next > (INT64_C(1) << 40) ? (INT64_C(1) << 40) : next;
    }
    out[r] = elapsed / (double)num;
  }
  return 0;
}

int tvm_vm_time_evaluator(tvm_vm* vm, const char* name, const TVMFFIAny* args, int32_t num_args,
                          int32_t number, int32_t repeat, int32_t min_repeat_ms,
                          double* out_seconds) {
  tvm_vm_state* s = ready_state(vm);
  if (!s) return -1;
  void* fn = lookup_function(s, name);
  if (!fn) return -1;
  int rc = time_function(s, fn, args, num_args, number, repeat, min_repeat_ms, out_seconds);
  tvm_ffi_release(fn);
  return rc;
}

typedef struct {
  tvm_vm_state* state;
  void* fn;
  int32_t number, repeat, min_repeat_ms;
} timer_fn;

static void timer_fn_delete(void* self) {
  timer_fn* t = (timer_fn*)self;
  tvm_ffi_release(t->fn);
  tvm_ffi_release(t->state);
  tvm_ffi_free(t);
}

static int timer_fn_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  timer_fn* t = (timer_fn*)self;
  double* secs = (double*)tvm_ffi_calloc((size_t)t->repeat, sizeof(double));
  TVMFFIAny* items = (TVMFFIAny*)tvm_ffi_calloc((size_t)t->repeat, sizeof(TVMFFIAny));
  int rc = secs && items ? time_function(t->state, t->fn, args, n, t->number, t->repeat,
                                         t->min_repeat_ms, secs)
                         : -1;
  void* arr = NULL;
  if (rc == 0) {
    for (int32_t i = 0; i < t->repeat; ++i) items[i] = tvm_ffi_any_float(secs[i]);
    arr = tvm_ffi_array_new(items, t->repeat);
    if (!arr) rc = -1;
  }
  tvm_ffi_free(secs);
  tvm_ffi_free(items);
  if (rc == 0) *rv = tvm_ffi_any_obj(arr);
  return rc;
}

/* ---- Module functions -------------------------------------------------------------------- */
typedef int (*vm_method)(tvm_vm_state* s, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv);

static char* arg_name(const char* fname, const TVMFFIAny* args, int32_t n, int32_t i) {
  TVMFFIByteArray b;
  if (i >= n) {
    tvm_ffi_raise("TypeError", "%s: missing argument %d (a function name)", fname, (int)i);
    return NULL;
  }
  if (!tvm_ffi_arg_bytes(fname, args, i, &b)) return NULL;
  return tvm_vm__bytes_dup(b.data, b.size);
}

/* Integer indices args[from..n) into a fresh array (for get_output and friends). */
static int64_t* arg_indices(const char* fname, const TVMFFIAny* args, int32_t n, int32_t from) {
  int64_t* idx = (int64_t*)tvm_ffi_malloc((size_t)(n > from ? n - from : 1) * 8);
  for (int32_t i = from; idx && i < n; ++i) {
    if (!tvm_ffi_arg_int(fname, args, i, &idx[i - from])) {
      tvm_ffi_free(idx);
      return NULL;
    }
  }
  return idx;
}

static int m_init(tvm_vm_state* s, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm_initialization";
  if (n < 3 || n % 3 != 0) {
    return tvm_ffi_raise("TypeError", "%s expects (device_type, device_id, allocator_type) triples",
                         fname);
  }
  int32_t nd = n / 3;
  DLDevice* devs = (DLDevice*)tvm_ffi_calloc((size_t)nd, sizeof(DLDevice));
  int32_t* types = (int32_t*)tvm_ffi_calloc((size_t)nd, sizeof(int32_t));
  int rc = devs && types ? 0 : -1;
  for (int32_t i = 0; i < nd && rc == 0; ++i) {
    int64_t t, id, a;
    if (!tvm_ffi_arg_int(fname, args, 3 * i, &t) || !tvm_ffi_arg_int(fname, args, 3 * i + 1, &id) ||
        !tvm_ffi_arg_int(fname, args, 3 * i + 2, &a)) {
      rc = -1;
    } else {
      devs[i] = TVMFFIDLDeviceFromIntPair((int32_t)t, (int32_t)id);
      types[i] = (int32_t)a;
    }
  }
  if (rc == 0) rc = tvm_vm__init(s, devs, types, nd);
  tvm_ffi_free(devs);
  tvm_ffi_free(types);
  return rc;
}

static int m_set_input(tvm_vm_state* s, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  char* name = arg_name("set_input", args, n, 0);
  int rc = name ? set_input(s, name, args + 1, n - 1) : -1;
  tvm_ffi_free(name);
  return rc;
}

static int m_invoke_stateful(tvm_vm_state* s, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  if (!tvm_ffi_check_num_args("invoke_stateful", n, 1)) return -1;
  char* name = arg_name("invoke_stateful", args, n, 0);
  if (!name) return -1;
  int rc = invoke_stateful(s, name);
  tvm_ffi_free(name);
  return rc;
}

static int m_get_output(tvm_vm_state* s, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  char* name = arg_name("get_output", args, n, 0);
  int64_t* idx = name ? arg_indices("get_output", args, n, 1) : NULL;
  int rc = idx ? get_output(s, name, idx, n - 1, rv) : -1;
  tvm_ffi_free(idx);
  tvm_ffi_free(name);
  return rc;
}

static int m_get_output_arity(tvm_vm_state* s, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  char* name = arg_name("get_output_arity", args, n, 0);
  int64_t* idx = name ? arg_indices("get_output_arity", args, n, 1) : NULL;
  int64_t arity = 0;
  int rc = idx ? get_output_arity(s, name, idx, n - 1, &arity) : -1;
  tvm_ffi_free(idx);
  tvm_ffi_free(name);
  if (rc == 0) *rv = tvm_ffi_any_int(arity);
  return rc;
}

static int m_save_function(tvm_vm_state* s, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "save_function";
  bool include_return;
  if (n < 3) return tvm_ffi_raise("TypeError", "%s expects (func_name, saved_name, include_return, args...)", fname);
  char* name = arg_name(fname, args, n, 0);
  char* saved = name ? arg_name(fname, args, n, 1) : NULL;
  int rc = saved && tvm_ffi_arg_bool(fname, args, 2, &include_return)
               ? save_function(s, name, saved, include_return, args + 3, n - 3)
               : -1;
  tvm_ffi_free(saved);
  tvm_ffi_free(name);
  return rc;
}

static int m_invoke_closure(tvm_vm_state* s, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  if (n < 1) return tvm_ffi_raise("TypeError", "invoke_closure expects a closure");
  if (tvm_vm__check_initialized(s) != 0) return -1;
  return tvm_vm__invoke_closure(s, &args[0], args + 1, n - 1, rv);
}

static int m_set_instrument(tvm_vm_state* s, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  if (n < 1) return tvm_ffi_raise("TypeError", "set_instrument expects a Function, None or a name");
  if (args[0].type_index == kTVMFFINone) return set_instrument(s, NULL);
  if (args[0].type_index == kTVMFFIFunction) return set_instrument(s, args[0].v_obj);
  /* A global factory name and its arguments (upstream's convention). */
  char* name = arg_name("set_instrument", args, n, 0);
  if (!name) return -1;
  TVMFFIAny made;
  int rc = tvm_ffi_global_call(name, args + 1, n - 1, &made);
  tvm_ffi_free(name);
  if (rc != 0) return -1;
  rc = made.type_index == kTVMFFIFunction
           ? set_instrument(s, made.v_obj)
           : tvm_ffi_raise("TypeError", "set_instrument: the factory returned %s, not a Function",
                           tvm_ffi_any_type_name(&made));
  tvm_ffi_any_release(&made);
  return rc;
}

static int m_arity(tvm_vm_state* s, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  if (!tvm_ffi_check_num_args("get_function_arity", n, 1)) return -1;
  char* name = arg_name("get_function_arity", args, n, 0);
  int64_t idx = name ? func_index(s, name) : -1;
  tvm_ffi_free(name);
  if (idx < 0) return -1;
  *rv = tvm_ffi_any_int(s->exec->funcs[idx].num_params);
  return 0;
}

static int m_param_name(tvm_vm_state* s, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  int64_t i;
  if (!tvm_ffi_check_num_args("get_function_param_name", n, 2) ||
      !tvm_ffi_arg_int("get_function_param_name", args, 1, &i)) {
    return -1;
  }
  char* name = arg_name("get_function_param_name", args, n, 0);
  int64_t idx = name ? func_index(s, name) : -1;
  int rc = idx < 0 ? -1 : 0;
  if (rc == 0) {
    const tvm_vm_func_info* f = &s->exec->funcs[idx];
    if (i < 0 || i >= f->num_params) {
      rc = tvm_ffi_raise("IndexError", "get_function_param_name: index %lld out of range for `%s` "
                         "(%lld parameters)", (long long)i, name, (long long)f->num_params);
    } else {
      *rv = tvm_ffi_string_n(f->param_names[i].data, f->param_names[i].size);
    }
  }
  tvm_ffi_free(name);
  return rc;
}

static int m_time_evaluator(tvm_vm_state* s, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "time_evaluator";
  int64_t number, repeat, min_ms;
  if (!tvm_ffi_check_num_args(fname, n, 4) || !tvm_ffi_arg_int(fname, args, 1, &number) ||
      !tvm_ffi_arg_int(fname, args, 2, &repeat) || !tvm_ffi_arg_int(fname, args, 3, &min_ms)) {
    return -1;
  }
  if (number < 1 || number > INT32_MAX || repeat < 1 || repeat > 1000000 || min_ms < 0 ||
      min_ms > INT32_MAX) {
    return tvm_ffi_raise("ValueError", "%s: number and repeat must be >= 1 and min_repeat_ms >= 0", fname);
  }
  if (tvm_vm__check_initialized(s) != 0) return -1;
  char* name = arg_name(fname, args, n, 0);
  void* fn = name ? lookup_function(s, name) : NULL;
  tvm_ffi_free(name);
  if (!fn) return -1;
  timer_fn* t = (timer_fn*)tvm_ffi_calloc(1, sizeof(timer_fn));
  if (!t) {
    tvm_ffi_release(fn);
    return -1;
  }
  tvm_ffi_retain(s);
  t->state = s;
  t->fn = fn;
  t->number = (int32_t)number;
  t->repeat = (int32_t)repeat;
  t->min_repeat_ms = (int32_t)min_ms;
  void* f = tvm_ffi_function_new(t, timer_fn_call, timer_fn_delete);
  if (!f) {
    timer_fn_delete(t);
    return -1;
  }
  *rv = tvm_ffi_any_obj(f);
  return 0;
}

static const struct {
  const char* name;
  vm_method method;
} k_vm_methods[] = {
    {"vm_initialization", m_init},
    {"set_input", m_set_input},
    {"invoke_stateful", m_invoke_stateful},
    {"get_output", m_get_output},
    {"get_output_arity", m_get_output_arity},
    {"save_function", m_save_function},
    {"invoke_closure", m_invoke_closure},
    {"set_instrument", m_set_instrument},
    {"get_function_arity", m_arity},
    {"get_function_param_name", m_param_name},
    {"time_evaluator", m_time_evaluator},
};
#define NUM_VM_METHODS ((int)(sizeof(k_vm_methods) / sizeof(k_vm_methods[0])))

typedef struct {
  tvm_vm_state* state;
  vm_method method;
} method_fn;

static void method_fn_delete(void* self) {
  method_fn* m = (method_fn*)self;
  tvm_ffi_release(m->state);
  tvm_ffi_free(m);
}

static int method_fn_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  method_fn* m = (method_fn*)self;
  return m->method(m->state, args, n, rv);
}

static int vm_get_function(void* mod, const char* name, void** out) {
  tvm_vm_state* s = ((tvm_vm*)mod)->state;
  *out = NULL;
  for (int i = 0; i < NUM_VM_METHODS; ++i) {
    if (strcmp(name, k_vm_methods[i].name) != 0) continue;
    method_fn* m = (method_fn*)tvm_ffi_malloc(sizeof(method_fn));
    if (!m) return -1;
    tvm_ffi_retain(s);
    m->state = s;
    m->method = k_vm_methods[i].method;
    *out = tvm_ffi_function_new(m, method_fn_call, method_fn_delete);
    if (!*out) {
      method_fn_delete(m);
      return -1;
    }
    return 0;
  }
  /* A name the VM does not have is "not found" (0 and NULL), told apart from a failed lookup
   * without reading the error slot: an error the caller left raised there is not this one's. */
  if (!(s->saved && tvm_ffi_map_get_str(s->saved, name)) &&
      tvm_vm_executable_find_function(s->exec, name) < 0) {
    return 0;
  }
  *out = lookup_function(s, name);
  return *out ? 0 : -1;
}

static int vm_list_functions(void* mod, void* list) {
  tvm_vm_state* s = ((tvm_vm*)mod)->state;
  for (int i = 0; i < NUM_VM_METHODS; ++i) {
    TVMFFIAny v = tvm_ffi_string(k_vm_methods[i].name);
    if (tvm_ffi_list_push_take(list, &v) != 0) return -1;
  }
  for (int64_t i = 0; i < s->exec->num_funcs; ++i) {
    if (s->exec->funcs[i].kind == TVM_VM_FUNC_PACKED) continue;
    TVMFFIAny v = tvm_ffi_string_n(s->exec->funcs[i].name.data, s->exec->funcs[i].name.size);
    if (tvm_ffi_list_push_take(list, &v) != 0) return -1;
  }
  return 0;
}

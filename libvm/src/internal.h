/* internal.h: declarations shared by libvm's source files (not installed). */
#ifndef TVM_VM_SRC_INTERNAL_H_
#define TVM_VM_SRC_INTERNAL_H_

#include <pthread.h>
#include <tvm/ffi/ffi.h>
#include <tvm/vm/builder.h>
#include <tvm/vm/bytecode.h>
#include <tvm/vm/vm.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "libvm reads and writes the executable format in host byte order: little-endian only"
#endif

#define TVM_VM_LIKELY(x) __builtin_expect(!!(x), 1)
#define TVM_VM_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Rarely run: kept out of line, away from the interpreter's hot code. */
#define TVM_VM_COLD __attribute__((cold, noinline))

/* Sanity limits the verifier enforces (far beyond what any compiler emits). */
#define TVM_VM_MAX_REGISTERS (INT64_C(1) << 24)  /* per function */
#define TVM_VM_MAX_CALL_ARGS (INT64_C(1) << 16)  /* per Call instruction */
#define TVM_VM_MAX_TENSOR_NDIM 64
#define TVM_VM_DEFAULT_MAX_DEPTH 10000
#define TVM_VM_DEFAULT_MAX_NESTING 256

/* ------------------------------------------------------------------------------------------ */
/* Executable (executable.c: format + verifier; exec_print.c: text; builder.c: construction)  */
/* ------------------------------------------------------------------------------------------ */
typedef struct {
  int32_t kind; /* tvm_vm_func_kind */
  TVMFFIByteArray name; /* owned, NUL-terminated */
  int64_t start_instr;
  int64_t end_instr;
  int64_t num_args;
  int64_t register_file_size;
  int64_t num_params;
  TVMFFIByteArray* param_names; /* owned, each NUL-terminated */
  /* Computed by the verifier for bytecode functions: some register may be read before it is
   * written on some path, so a new register file must start as None (see vm.c). */
  bool needs_init;
} tvm_vm_func_info;

typedef struct {
  int64_t const_idx;
  TVMFFIByteArray scope; /* owned, NUL-terminated */
} tvm_vm_mem_scope;

struct tvm_vm_executable_obj {
  tvm_ffi_module_obj base;
  int64_t num_funcs;
  tvm_vm_func_info* funcs;
  int64_t num_consts;
  TVMFFIAny* consts; /* owned values; tensors live on the CPU */
  int64_t num_scopes;
  tvm_vm_mem_scope* scopes;
  int64_t num_instrs;
  int64_t* instr_offset; /* num_instrs + 1 entries: the last one is num_words */
  int64_t num_words;
  int64_t* instr_data;
  /* Filled by the verifier. */
  int64_t max_call_args;
  int64_t name_cap;    /* power of two */
  int64_t* name_slots; /* function index + 1, 0 = empty */
  uint64_t* fresh_dst;  /* bit i: the Call at instruction i writes a never written register */
};

/* A new, empty executable module (NULL + error on OOM). */
tvm_vm_executable* tvm_vm__executable_new(void);
/* Check every invariant the interpreter relies on; builds the name index and runs the
 * register analysis (needs_init, fresh_dst). */
int tvm_vm__executable_verify(tvm_vm_executable* exec);
/* The register analysis of verified bytecode function fi (exec_analysis.c): sets its
 * needs_init and the fresh_dst bits of its Calls. -1 on OOM. */
int tvm_vm__analyze_registers(tvm_vm_executable* exec, int64_t fi);
/* Whether the Call at instruction i writes a register no path to it has written. */
static inline bool tvm_vm__fresh_dst(const tvm_vm_executable* exec, int64_t i) {
  return (exec->fresh_dst[i >> 6] >> (i & 63)) & 1;
}
/* Append the binary format of exec to out. */
int tvm_vm__executable_serialize(const tvm_vm_executable* exec, tvm_ffi_strbuf* out);
/* Name of a function kind ("packed", "vm", "vm_tir"). */
const char* tvm_vm__func_kind_name(int32_t kind);
/* Number of words of the instruction at word offset `off` (valid after verification). */
static inline int64_t tvm_vm__instr_words(const int64_t* data, int64_t off) {
  return data[off] == TVM_VM_OP_Call ? 4 + data[off + 3] : data[off] == TVM_VM_OP_If ? 3 : 2;
}
/* Index of the function named s[0..n) (after verification), or -1. */
int64_t tvm_vm__find_name(const tvm_vm_executable* exec, const char* s, size_t n);
/* Instruction index containing word offset `word` (binary search). */
int64_t tvm_vm__instr_at_word(const tvm_vm_executable* exec, int64_t word);
/* One-line text of instruction i ("call test.add in: %0, i1 dst: %2"). */
void tvm_vm__format_instr(const tvm_vm_executable* exec, int64_t i, tvm_ffi_strbuf* out);
/* Append a short description of a value for listings ("[2, 3]", "\"abc\"", "float32"). */
void tvm_vm__format_value(const TVMFFIAny* v, tvm_ffi_strbuf* out);

/* Convert a tensor constant for storage in an executable: an owned CPU, compact copy. */
void* tvm_vm__tensor_copy_to_cpu(const DLTensor* t);

/* ------------------------------------------------------------------------------------------ */
/* Devices and memory (memory.c, device_cuda.c)                                              */
/* ------------------------------------------------------------------------------------------ */
typedef struct tvm_vm_device_api {
  const char* name;
  /* Check the device exists and can be used (for CUDA: load the driver). */
  int (*init)(DLDevice dev);
  int (*alloc)(DLDevice dev, size_t nbytes, size_t alignment, void** out);
  void (*free)(DLDevice dev, void* ptr);
  /* Copy nbytes between two locations, at least one of them on this API's device type.
   * Either side may be a CPU pointer. Ordered on the current stream of the device. */
  int (*copy)(const void* from, DLDevice from_dev, void* to, DLDevice to_dev, size_t nbytes);
  int (*sync)(DLDevice dev);
} tvm_vm_device_api;

/* The API for a device type; NULL + ValueError for unsupported types. */
const tvm_vm_device_api* tvm_vm__device_api(DLDevice dev);
extern const tvm_vm_device_api tvm_vm__cpu_api;
extern const tvm_vm_device_api tvm_vm__cuda_api;
const char* tvm_vm__device_name(DLDevice dev);

typedef struct {
  void** items;
  size_t size;
  size_t cap;
} tvm_vm_block_list;

#define TVM_VM_NUM_SIZE_CLASSES 256

typedef struct tvm_vm_allocator {
  TVMFFIObject header;
  int32_t type; /* tvm_vm_allocator_type */
  DLDevice device;
  const tvm_vm_device_api* api;
  pthread_mutex_t lock;
  size_t allocated; /* bytes in live storages */
  size_t cached;    /* bytes in the pool */
  tvm_vm_block_list pool[TVM_VM_NUM_SIZE_CLASSES];
} tvm_vm_allocator;

typedef struct {
  TVMFFIObject header;
  void* data;
  size_t size;       /* bytes requested: tensors must fit in these */
  size_t block_size; /* bytes allocated (the size class for pooled blocks) */
  DLDevice device;
  tvm_vm_allocator* alloc; /* owned reference */
} tvm_vm_storage_obj;

#define TVM_VM_ALLOC_ALIGNMENT 64

/* Bytes of a compact tensor (the tvm-ffi sizing rule), or -1 with a ValueError naming `what`
 * for a bad shape or dtype. */
int64_t tvm_vm__nbytes(const int64_t* shape, int32_t ndim, DLDataType dtype, const char* what);
/* A new allocator (an object) for a device; initialises the device API. */
tvm_vm_allocator* tvm_vm__allocator_new(DLDevice dev, int32_t type);
/* The process-wide naive allocator of a device (borrowed), for copies outside a VM. */
tvm_vm_allocator* tvm_vm__default_allocator(DLDevice dev);
/* A storage object of at least nbytes. */
tvm_vm_storage_obj* tvm_vm__storage_new(tvm_vm_allocator* alloc, size_t nbytes);
/* A compact tensor viewing storage at byte `offset` (bounds checked). */
void* tvm_vm__storage_tensor(tvm_vm_storage_obj* s, int64_t offset, const int64_t* shape,
                             int32_t ndim, DLDataType dtype);
/* A new compact tensor from the allocator. */
void* tvm_vm__alloc_tensor(tvm_vm_allocator* alloc, const int64_t* shape, int32_t ndim,
                           DLDataType dtype);
/* A compact copy of src on `dev` allocated from alloc (or the device's default allocator). */
void* tvm_vm__tensor_to_device(const DLTensor* src, DLDevice dev, tvm_vm_allocator* alloc);
/* Copy between two compact tensors of equal size (any supported devices). */
int tvm_vm__tensor_copy(const DLTensor* from, const DLTensor* to);
int32_t tvm_vm__storage_type_index(void);
int32_t tvm_vm__allocator_type_index(void);

/* ------------------------------------------------------------------------------------------ */
/* Closures (closure.c)                                                                       */
/* ------------------------------------------------------------------------------------------ */
typedef struct {
  TVMFFIObject header;
  void* func_name; /* ffi.String */
  void* impl;      /* ffi.Function taking the VM context first */
} tvm_vm_closure_obj;

int32_t tvm_vm__closure_type_index(void);
/* New closure (takes new references to name and impl). */
tvm_vm_closure_obj* tvm_vm__closure_new(const char* name, size_t name_len, void* impl);
/* A function calling func(args..., bound...) (func is a Function). */
void* tvm_vm__bind_last_args(void* func, const TVMFFIAny* bound, int32_t num_bound);

/* ------------------------------------------------------------------------------------------ */
/* The virtual machine (vm.c: state, frames, dispatch; vm_module.c: module and C API glue)    */
/* ------------------------------------------------------------------------------------------ */
enum {
  TVM_VM_CALLEE_PACKED = 0,   /* call safe_call(handle, args) */
  TVM_VM_CALLEE_BYTECODE = 1, /* push a frame in the same loop */
  TVM_VM_CALLEE_CLOSURE = 2   /* call safe_call(handle, [vm, args...]) */
};

typedef struct {
  int32_t kind;
  int32_t nregs; /* bytecode: register_file_size */
  bool needs_init; /* bytecode: registers num_args.. must start as None */
  int64_t num_args;
  const int64_t* code; /* bytecode: its first instruction in the prepared code */
  int64_t index;      /* in the function table */
  TVMFFISafeCallType safe_call;
  void* handle;
} tvm_vm_callee;

/* Flags of a frame. */
enum {
  TVM_VM_FRAME_NEW_CHUNK = 1,   /* its registers start a new register stack chunk */
  TVM_VM_FRAME_CALLER_OWNS = 2  /* the caller's registers may hold objects (see run_loop) */
};

/* A call in progress; frames[depth - 1] is the innermost. The register stack top is the end
 * of the innermost frame's registers. */
typedef struct {
  const int64_t* ret_ip; /* where the caller goes on (prepared code), after its Call; NULL for
                          * entries */
  TVMFFIAny* regs;
  const tvm_vm_callee* func;
  TVMFFIAny* dst; /* receives the result: the caller's destination register, the entry's
                   * output, or NULL for %void */
  uint64_t flags;
} tvm_vm_frame;

typedef struct {
  TVMFFIAny* base;
  size_t cap;
} tvm_vm_reg_chunk;

#define TVM_VM_STATE_MAGIC UINT64_C(0x564d5354415445aa)

typedef struct tvm_vm_state {
  TVMFFIObject header;
  uint64_t magic;
  tvm_vm_executable* exec; /* owned */
  bool initialized;
  int32_t num_devices;
  DLDevice* devices;
  tvm_vm_allocator** allocators; /* owned */
  TVMFFIAny* consts;             /* owned, exec->num_consts */
  TVMFFIAny* func_pool;          /* owned, exec->num_funcs: Function or vm.Closure */
  tvm_vm_callee* callees;
  int64_t* code; /* prepared copy of instr_data (see vm.c) */
  TVMFFIAny* imms;
  TVMFFIAny self_any; /* the VM context as an opaque pointer */
  /* Execution state. */
  tvm_vm_frame* frames;
  int64_t depth;
  int64_t frames_alloc; /* >= max_depth; the array never moves while the VM runs */
  int64_t max_depth;
  tvm_vm_frame* frames_end; /* frames + max_depth */
  tvm_vm_reg_chunk* chunks;
  int32_t num_chunks;
  int32_t cur_chunk;
  TVMFFIAny* limit; /* end of the current chunk */
  int32_t nest;
  int32_t max_nest;
  TVMFFIAny** scratch; /* per nesting level, max_call_args + 4 each, allocated on first use */
  int32_t scratch_levels;
  void* instrument; /* Function or NULL */
  /* Stateful interface, per function index. */
  TVMFFIAny* inputs;  /* Array of the inputs, or None */
  TVMFFIAny* outputs; /* result, or None when never invoked */
  void* saved;        /* Dict: name -> vm.Closure, or NULL */
} tvm_vm_state;

struct tvm_vm_obj {
  tvm_ffi_module_obj base;
  tvm_vm_state* state; /* owned */
};

/* Re-select the handler of every Call after the instrument changed (all calls go through the
 * generic handler while one is set). */
void tvm_vm__set_call_handlers(tvm_vm_state* vm);
/* A VM module for exec, not yet initialised (vm_load_executable). */
tvm_vm* tvm_vm__new(tvm_vm_executable* exec);
/* Set up devices, allocators, constants, the function pool and the prepared code. */
int tvm_vm__init(tvm_vm_state* vm, const DLDevice* devices, const int32_t* alloc_types,
                 int32_t num_devices);
/* The VM state behind an opaque context pointer argument (TypeError if not a VM). */
tvm_vm_state* tvm_vm__state_from_arg(const char* fname, const TVMFFIAny* arg);
int tvm_vm__check_initialized(tvm_vm_state* vm);
/* Call function table entry fidx with args (views); *out receives the owned result. */
int tvm_vm__invoke_index(tvm_vm_state* vm, int64_t fidx, const TVMFFIAny* args, int32_t n,
                         TVMFFIAny* out);
/* Call a Function or a vm.Closure (with the VM context prepended). */
int tvm_vm__invoke_closure(tvm_vm_state* vm, const TVMFFIAny* callee, const TVMFFIAny* args,
                           int32_t n, TVMFFIAny* out);
/* A closure of a function (saved functions first), new reference; NULL + ValueError if absent,
 * or NULL without an error when allow_missing. */
tvm_vm_closure_obj* tvm_vm__get_closure(tvm_vm_state* vm, const char* name, bool allow_missing);
/* Copy tensors (inside tuples too) to device 0 of the VM (others returned as they are). */
int tvm_vm__to_vm_device(tvm_vm_state* vm, const TVMFFIAny* in, TVMFFIAny* out);
int32_t tvm_vm__state_type_index(void);
/* Set the call depth limit (growing the frame array only while no call runs). */
int tvm_vm__resize_frames(tvm_vm_state* vm, int64_t max_depth);

/* ------------------------------------------------------------------------------------------ */
/* Builtins (builtins.c, builtin_list.h) and one-time initialisation (vm_module.c)            */
/* ------------------------------------------------------------------------------------------ */
int tvm_vm__register_builtins(void);
int tvm_vm__register_types(void);

/* Little helpers. */
static inline TVMFFIAny tvm_vm__any_obj_take(void* obj) { return tvm_ffi_any_obj(obj); }
char* tvm_vm__bytes_dup(const char* s, size_t n); /* NUL-terminated copy, NULL + error on OOM */

#endif /* TVM_VM_SRC_INTERNAL_H_ */

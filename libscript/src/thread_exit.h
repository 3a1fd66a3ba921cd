/* thread_exit.h: one thread-exit hook for libscript's per-thread tables (the builder's block
 * cache, the identifier Strings and the builtin cache), instead of a pthread key each. */
#ifndef TVM_SCRIPT_THREAD_EXIT_H_
#define TVM_SCRIPT_THREAD_EXIT_H_

#include <stdbool.h>

/* Arms fn(arg) to run when the calling thread exits (the hooks of a thread run newest first).
 * False when it cannot be armed (no pthread key, or the thread's few places are taken): the
 * caller then keeps nothing that would need releasing. The main thread's hooks do not run at
 * process exit; what they would release stays reachable from its thread-local storage. */
bool tvm_script__at_thread_exit(void (*fn)(void* arg), void* arg);

#endif /* TVM_SCRIPT_THREAD_EXIT_H_ */

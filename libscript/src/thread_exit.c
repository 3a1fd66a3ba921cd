/* thread_exit.c: see thread_exit.h. */
#include "thread_exit.h"

#include <pthread.h>

enum { THREAD_EXIT_HOOKS = 8 };
typedef struct {
  void (*fn[THREAD_EXIT_HOOKS])(void*);
  void* arg[THREAD_EXIT_HOOKS];
  int n;
} exit_hooks;

static __thread exit_hooks t_hooks;
static pthread_key_t g_key;
static bool g_key_ok;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* The key's destructor (its value is the thread's t_hooks, still alive while it runs). A hook
 * that arms another one sets the key again, so pthread calls this once more. */
static void run_hooks(void* p) {
  exit_hooks* h = p;
  while (h->n > 0) {
    --h->n;
    h->fn[h->n](h->arg[h->n]);
  }
}
static void make_key(void) { g_key_ok = pthread_key_create(&g_key, run_hooks) == 0; }

bool tvm_script__at_thread_exit(void (*fn)(void* arg), void* arg) {
  pthread_once(&g_once, make_key);
  exit_hooks* h = &t_hooks;
  if (!g_key_ok || h->n == THREAD_EXIT_HOOKS) return false;
  if (h->n == 0 && pthread_setspecific(g_key, h) != 0) return false;
  h->fn[h->n] = fn;
  h->arg[h->n] = arg;
  ++h->n;
  return true;
}

/*
 * parse_lambda.c: lambdas as call arguments (parse_lambda.h).
 */
#include "parse_lambda.h"

#include <tvm/ffi/c_api.h>

struct script_lambda {
  script_parser* p; /* NULL once the call it was an argument of returned */
  const ast_expr* node; /* the LAMBDA */
  void* error;              /* the located error its body raised, until the call ends */
  script_lambda* next;      /* in the chain of its call's arguments */
  script_lambda* live_next; /* in t_live */
  const void* fn;           /* its function (borrowed; alive while in a chain) */
  bool in_chain;            /* the chain still points at it (freed by tvm_script__lambdas_end) */
  bool dead;                /* its function died */
};

/* Every lambda in a chain on this thread, for tvm_script__lambda_params to recognise its own. */
static _Thread_local script_lambda* t_live;

static void lambda_free(script_lambda* l) {
  tvm_ffi_release(l->error);
  tvm_ffi_free(l);
}

/* The function's deleter: the chain may still hold the record until the call ends. */
static void lambda_deleter(void* self) {
  script_lambda* l = self;
  if (l->in_chain) {
    l->dead = true;
  } else {
    lambda_free(l);
  }
}

static int lambda_call(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  script_lambda* l = self;
  script_parser* p = l->p;
  if (!p) {
    return tvm_ffi_raise("RuntimeError",
                         "a lambda of TVMScript can only be called during the call it is an "
                         "argument of");
  }
  ast_exprs params = l->node->u.lambda.params;
  int64_t n = params.n;
  if (num_args != n) {
    return tvm_ffi_raise("TypeError", "<lambda>() takes %lld positional argument%s but %d %s given",
                         (long long)n, n == 1 ? "" : "s", (int)num_args,
                         num_args == 1 ? "was" : "were");
  }
  if (tvm_script__vt_push_scope(&p->vt) != 0) return tvm_ffi_raise("MemoryError", "out of memory");
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    TVMFFIAny v = tvm_ffi_any_copy(&args[i]);
    rc = tvm_script__vt_bind(&p->vt, params.items[i]->u.name, &v);
    tvm_ffi_any_release(&v);
  }
  if (rc == 0 && tvm_script__eval(p, l->node->u.lambda.body, result) != 0) {
    /* Located already: keep it for the evaluator, and fail the builtin with a plain error. */
    tvm_ffi_release(l->error);
    l->error = tvm_ffi_error_take();
    rc = tvm_ffi_raise("ValueError", "the lambda's body failed");
  }
  tvm_script__vt_pop_scope(&p->vt);
  return rc;
}

int tvm_script__lambda_new(script_parser* p, const ast_expr* e, script_lambda** chain,
                           TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  script_lambda* l = tvm_ffi_calloc(1, sizeof(*l));
  if (!l) return tvm_script__relocate(p, &e->span);
  l->p = p;
  l->node = e;
  void* fn = tvm_ffi_function_new(l, lambda_call, lambda_deleter);
  if (!fn) {
    tvm_ffi_free(l);
    return tvm_script__relocate(p, &e->span);
  }
  l->fn = fn;
  l->in_chain = true;
  l->next = *chain;
  *chain = l;
  l->live_next = t_live;
  t_live = l;
  *out = tvm_ffi_any_obj(fn);
  return 0;
}

bool tvm_script__lambda_escaped(const script_lambda* chain) {
  for (const script_lambda* l = chain; l; l = l->next) {
    if (!l->dead && l->fn && tvm_ffi_strong_count(l->fn) > 1) return true;
  }
  return false;
}

bool tvm_script__lambdas_end(script_lambda** chain, bool failed) {
  bool reraised = false;
  for (script_lambda* l = *chain; l;) {
    script_lambda* next = l->next;
    if (failed && !reraised && l->error) {
      TVMFFIErrorSetRaised(l->error);
      reraised = true;
    }
    script_lambda** at = &t_live;
    while (*at && *at != l) at = &(*at)->live_next;
    if (*at) *at = l->live_next;
    l->p = NULL;
    l->fn = NULL;
    l->in_chain = false;
    l->next = NULL;
    tvm_ffi_release(l->error);
    l->error = NULL;
    if (l->dead) lambda_free(l);
    l = next;
  }
  *chain = NULL;
  return reraised;
}

void* tvm_script__lambda_params(const TVMFFIAny* fn, const char* what) {
  const void* f = tvm_ffi_any_as_object(fn, kTVMFFIFunction);
  script_lambda* l = t_live;
  while (f && l && l->fn != f) l = l->live_next;
  if (!f || !l) {
    tvm_ffi_raise("TypeError", "%s must be a lambda, got %s", what, tvm_ffi_any_type_name(fn));
    return NULL;
  }
  ast_exprs params = l->node->u.lambda.params;
  int64_t n = params.n;
  void** names = tvm_ffi_calloc(n ? (size_t)n : 1, sizeof(void*));
  if (!names) return NULL;
  bool ok = true;
  for (int64_t i = 0; ok && i < n; ++i) {
    ok = (names[i] = tvm_script__name_string(params.items[i]->u.name)) != NULL;
  }
  void* arr = ok ? tvm_ffi_array_of_objects(names, n) : NULL;
  tvm_ffi_free(names);
  return arr;
}

/*
 * parse_vartable.c: the parser's variable table (parse_eval.h): names -> owned values, with
 * scopes whose bindings are undone when they are popped (so shadowing restores the outer
 * value). Names are open-addressed slots (hashed once per lookup; the names point into the Doc
 * tree, which outlives the parse); bindings form an undo log, each remembering the binding it
 * shadows.
 */
#include <string.h>

#include "parse_eval.h"

static uint32_t hash_name(const char* s, uint32_t n) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < n; ++i) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h;
}

int tvm_script__vt_init(script_var_table* vt, script_vt_storage* store, bool clean) {
  memset(vt, 0, sizeof(*vt));
  vt->store = store;
  vt->cap = SCRIPT_VT_SLOTS; /* a small file names a few dozen things; grows past half full */
  vt->slots = store->slots;
  if (!clean) {
    memset(vt->slots, 0, sizeof(store->slots));
    store->num_named = 0;
  }
  vt->binds = store->binds;
  vt->cap_binds = SCRIPT_VT_BINDS;
  vt->scopes = store->scopes;
  vt->cap_scopes = SCRIPT_VT_SCOPES;
  return tvm_script__vt_push_scope(vt);
}

void tvm_script__vt_free(script_var_table* vt) {
  for (int32_t i = 0; i < vt->nbinds; ++i) tvm_ffi_any_release(&vt->binds[i].value);
  script_vt_storage* st = vt->store;
  /* Empty the slots named in the first storage (those of a table that moved are left there
   * too), so that it is clean for the next table. */
  for (int32_t i = 0; st && i < st->num_named; ++i) st->slots[st->named[i]].name = NULL;
  if (st) st->num_named = 0;
  if (!st || vt->slots != st->slots) tvm_ffi_free(vt->slots);
  if (!st || vt->binds != st->binds) tvm_ffi_free(vt->binds);
  if (!st || vt->scopes != st->scopes) tvm_ffi_free(vt->scopes);
  /* (Not cleared: a freed table is never used again, only initialised anew.) */
}

/* Grow *items (n used of *cap elements of elem_size bytes) to twice its capacity; storage in
 * the owner's inline store (inline_items) is copied out, never reallocated. 0 or -1. */
static int grow_array(void** items, int32_t* cap, int32_t n, size_t elem_size,
                      const void* inline_items) {
  size_t bytes = (size_t)*cap * 2 * elem_size;
  void* grown = *items == inline_items ? tvm_ffi_malloc(bytes) : tvm_ffi_realloc(*items, bytes);
  if (!grown) return -1;
  if (*items == inline_items) memcpy(grown, *items, (size_t)n * elem_size);
  *items = grown;
  *cap *= 2;
  return 0;
}

int tvm_script__vt_push_scope(script_var_table* vt) {
  if (vt->nscopes == vt->cap_scopes &&
      grow_array((void**)&vt->scopes, &vt->cap_scopes, vt->nscopes, sizeof(int32_t),
                 vt->store->scopes) != 0) {
    return -1;
  }
  vt->scopes[vt->nscopes++] = vt->nbinds;
  return 0;
}

void tvm_script__vt_pop_scope(script_var_table* vt) {
  if (vt->nscopes == 0) return;
  int32_t mark = vt->scopes[--vt->nscopes];
  while (vt->nbinds > mark) {
    script_vt_binding* bd = &vt->binds[--vt->nbinds];
    vt->slots[bd->slot].top = bd->prev;
    tvm_ffi_any_release(&bd->value);
  }
}

/* The slot of a name: its index, or the empty slot where it would go. */
static uint32_t find_slot(const script_var_table* vt, const char* name, uint32_t size,
                          uint32_t hash) {
  uint32_t mask = vt->cap - 1, i = hash & mask;
  for (;;) {
    const script_vt_slot* s = &vt->slots[i];
    if (!s->name) return i;
    /* The front end interns identifiers, so a name usually comes back as the same pointer. */
    if (s->hash == hash && s->size == size &&
        (s->name == name || memcmp(s->name, name, size) == 0)) {
      return i;
    }
    i = (i + 1) & mask;
  }
}

static int grow_slots(script_var_table* vt) {
  uint32_t old_cap = vt->cap;
  script_vt_slot* old = vt->slots;
  script_vt_slot* slots = tvm_ffi_calloc(old_cap * 2, sizeof(script_vt_slot));
  if (!slots) return -1;
  vt->slots = slots;
  vt->cap = old_cap * 2;
  /* Bindings refer to slots by index: remap them. */
  int32_t* remap = tvm_ffi_malloc(old_cap * sizeof(int32_t));
  if (!remap) {
    vt->slots = old;
    vt->cap = old_cap;
    tvm_ffi_free(slots);
    return -1;
  }
  for (uint32_t i = 0; i < old_cap; ++i) {
    if (!old[i].name) continue;
    uint32_t j = find_slot(vt, old[i].name, old[i].size, old[i].hash);
    slots[j] = old[i];
    remap[i] = (int32_t)j;
  }
  for (int32_t k = 0; k < vt->nbinds; ++k) vt->binds[k].slot = remap[vt->binds[k].slot];
  tvm_ffi_free(remap);
  if (old != vt->store->slots) tvm_ffi_free(old);
  return 0;
}

int tvm_script__vt_bind(script_var_table* vt, const char* name, uint32_t size, TVMFFIAny* value) {
  if ((vt->used + 1) * 2 > vt->cap && grow_slots(vt) != 0) return -1;
  if (vt->nbinds == vt->cap_binds &&
      grow_array((void**)&vt->binds, &vt->cap_binds, vt->nbinds, sizeof(script_vt_binding),
                 vt->store->binds) != 0) {
    return -1;
  }
  /* The lookup's hint first (script__vt_lookup): a name bound again (a loop variable of each
   * block) is usually where it was found or bound last. */
  uint32_t* hint = name ? &vt->hints[((uintptr_t)name * UINT64_C(0x9E3779B97F4A7C15)) >> 58] : NULL;
  uint32_t i = hint ? *hint : 0;
  script_vt_slot* s = &vt->slots[i];
  if (!hint || s->name != name || s->size != size) {
    uint32_t h = hash_name(name, size);
    i = find_slot(vt, name, size, h);
    s = &vt->slots[i];
    if (!s->name) {
      s->name = name;
      s->size = size;
      s->hash = h;
      s->top = -1;
      ++vt->used;
      /* (At most cap / 2 slots are named before the table moves: the test above.) */
      script_vt_storage* st = vt->store;
      if (vt->slots == st->slots) st->named[st->num_named++] = (uint8_t)i;
    }
    if (hint && s->name == name) *hint = i;
  }
  script_vt_binding* bd = &vt->binds[vt->nbinds];
  bd->value = *value;
  bd->slot = (int32_t)i;
  bd->prev = s->top;
  s->top = vt->nbinds++;
  *value = tvm_ffi_any_none();
  return 0;
}

const TVMFFIAny* tvm_script__vt_lookup_slot(const script_var_table* vt, const char* name,
                                        uint32_t size, uint32_t* empty_slot) {
  uint32_t i = find_slot(vt, name, size, hash_name(name, size));
  const script_vt_slot* s = &vt->slots[i];
  *empty_slot = s->name ? UINT32_MAX : i;
  return s->name && s->top >= 0 ? &vt->binds[s->top].value : NULL;
}

/* script__vt_lookup past its hint: hash the name, and remember its slot. */
const TVMFFIAny* tvm_script__vt_lookup_hashed(script_var_table* vt, const char* name, uint32_t size) {
  uint32_t i = find_slot(vt, name, size, hash_name(name, size));
  const script_vt_slot* s = &vt->slots[i];
  if (s->name == name) vt->hints[((uintptr_t)name * UINT64_C(0x9E3779B97F4A7C15)) >> 58] = i;
  return s->name && s->top >= 0 ? &vt->binds[s->top].value : NULL;
}

bool tvm_script__vt_holds(const script_var_table* vt, const void* obj) {
  for (int32_t i = vt->nbinds - 1; i >= 0; --i) {
    const script_vt_binding* bd = &vt->binds[i];
    if (tvm_ffi_any_is_object(&bd->value) && bd->value.v_obj == obj &&
        vt->slots[bd->slot].top == i) {
      return true;
    }
  }
  return false;
}

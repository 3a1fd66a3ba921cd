/*
 * layout.c: data layouts as upstream's Layout spells them (include/tvm/tir/data_layout.h): the
 * primal axes, upper case, in any order, plus packed sub-axes, a factor then the lower case of a
 * primal axis ("NCHW16c": C split into C / 16 outer channels and 16 inner ones). The inference
 * rules and the kernels of the pooling and resize operators read them through this one parser,
 * so both sides agree on which dim is which.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* err = fmt with the axis letter c (fmt has one %c, or none); -1. */
static int fail(char* err, size_t n, const char* fmt, char c) {
  snprintf(err, n, fmt, c);
  return -1;
}

int tvm_relax__layout_parse(const char* layout, const char* canon, const char* unsplit,
                            tvm_relax__layout* out, char* err, size_t errn) {
  memset(out, 0, sizeof(*out));
  if (!layout) return fail(err, errn, "it is None", 0);
  int32_t nc = (int32_t)strlen(canon);
  int32_t at[TVM_RELAX_LAYOUT_MAX]; /* layout index of canon[k] / of canon[k]'s sub-axis */
  int32_t sub_at[TVM_RELAX_LAYOUT_MAX];
  int64_t sub_factor[TVM_RELAX_LAYOUT_MAX];
  for (int32_t k = 0; k < nc; ++k) at[k] = sub_at[k] = -1;
  int32_t rank = 0;
  for (const char* p = layout; *p;) {
    int64_t factor = 0;
    bool digits = false;
    while (isdigit((unsigned char)*p)) {
      /* (capped: a factor past 2^31 is no shape anyone packs to) */
      if (factor < ((int64_t)1 << 31)) factor = factor * 10 + (*p - '0');
      digits = true;
      ++p;
    }
    char c = *p;
    if (!c) return fail(err, errn, "it ends in a factor without its sub-axis", 0);
    ++p;
    if (rank == TVM_RELAX_LAYOUT_MAX) return fail(err, errn, "it has too many axes", 0);
    const char* hit = strchr(canon, toupper((unsigned char)c));
    if (!isalpha((unsigned char)c) || !hit) {
      snprintf(err, errn, "%c is not an axis of %s", c, canon);
      return -1;
    }
    int32_t k = (int32_t)(hit - canon);
    if (isupper((unsigned char)c)) {
      if (digits) {
        return fail(err, errn, "a factor comes before the primal axis %c (a sub-axis is lower "
                    "case)", c);
      }
      if (at[k] >= 0) return fail(err, errn, "it has the axis %c twice", c);
      at[k] = rank++;
      continue;
    }
    if (!digits || factor <= 0) {
      return fail(err, errn, "the sub-axis %c has no positive factor", c);
    }
    if (unsplit && strchr(unsplit, canon[k])) {
      snprintf(err, errn, "it splits the spatial axis %c (only the others may be packed)",
               canon[k]);
      return -1;
    }
    if (sub_at[k] >= 0) return fail(err, errn, "it splits the axis %c twice", canon[k]);
    sub_at[k] = rank++;
    sub_factor[k] = factor;
  }
  for (int32_t k = 0; k < nc; ++k) {
    if (at[k] < 0 && sub_at[k] >= 0) {
      snprintf(err, errn, "it has the sub-axis %c but not the axis %c",
               tolower((unsigned char)canon[k]), canon[k]);
      return -1;
    }
    if (at[k] < 0) {
      snprintf(err, errn, "it lacks the axis %c", canon[k]);
      return -1;
    }
  }
  /* the logical order: canon's axes, then the sub-axes in canon's order */
  out->rank = rank;
  out->nprimal = nc;
  for (int32_t k = 0; k < nc; ++k) out->pos[k] = at[k], out->letter[k] = canon[k];
  int32_t l = nc;
  for (int32_t k = 0; k < nc; ++k) {
    if (sub_at[k] < 0) continue;
    out->pos[l] = sub_at[k];
    out->factor[l] = sub_factor[k];
    out->letter[l++] = (char)tolower((unsigned char)canon[k]);
  }
  return 0;
}

bool tvm_relax__layout_same_axes(const tvm_relax__layout* a, const tvm_relax__layout* b) {
  if (a->rank != b->rank || a->nprimal != b->nprimal) return false;
  for (int32_t k = a->nprimal; k < a->rank; ++k) {
    if (a->letter[k] != b->letter[k] || a->factor[k] != b->factor[k]) return false;
  }
  return true;
}

int32_t tvm_relax__layout_primal_count(const char* layout) {
  int32_t n = 0;
  for (const char* p = layout ? layout : ""; *p; ++p) n += isupper((unsigned char)*p) != 0;
  return n;
}

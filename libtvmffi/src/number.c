/*
 * number.c: locale-independent conversions between doubles and text.
 *
 * printf and strtod follow LC_NUMERIC, so an application that sets a comma decimal locale would
 * change how we print and read numbers (JSON, TVMScript). These helpers run the conversion in
 * the "C" locale, thread-locally (uselocale), and restore the caller's locale.
 */
#define _GNU_SOURCE /* newlocale / uselocale */
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static locale_t g_c_locale;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static void make_c_locale(void) { g_c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

static locale_t enter_c_locale(void) {
  pthread_once(&g_once, make_c_locale);
  return g_c_locale ? uselocale(g_c_locale) : (locale_t)0;
}

static void leave_c_locale(locale_t old) {
  if (old) uselocale(old);
}

double tvm_ffi_strtod(const char* s, char** end) {
  locale_t old = enter_c_locale();
  double d = strtod(s, end);
  leave_c_locale(old);
  return d;
}

static bool reads_back(const char* buf, double v, bool as_float32) {
  double r = strtod(buf, NULL);
  return as_float32 ? (float)r == (float)v : memcmp(&r, &v, sizeof(r)) == 0;
}

int tvm_ffi_format_double(double v, bool as_float32, char* buf, size_t size) {
  locale_t old = enter_c_locale();
  /* Round-tripping is monotonic in the number of significant digits: bisect 1..17. */
  int lo = 1, hi = 17;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    snprintf(buf, size, "%.*g", mid, v);
    if (reads_back(buf, v, as_float32)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  int n = snprintf(buf, size, "%.*g", lo, v);
  leave_c_locale(old);
  return n;
}

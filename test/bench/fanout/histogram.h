// Latencies in whole milliseconds, counted per millisecond, for the native receiver (receiver.c): as Histogram in
// test/bench/stats.ts, whose JSON form ([[ms, count], …]) hist_json writes.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  long long *counts;
  long cap;
  long long n;
} Hist;

static void hist_add(Hist *h, double ms) {
  long k = lround(ms);
  if (k < 0) k = 0;
  if (k >= h->cap) {
    long cap = h->cap ? h->cap : 1024;
    while (cap <= k) cap *= 2;
    h->counts = realloc(h->counts, cap * sizeof *h->counts);
    memset(h->counts + h->cap, 0, (cap - h->cap) * sizeof *h->counts);
    h->cap = cap;
  }
  h->counts[k]++;
  h->n++;
}

static void hist_reset(Hist *h) {
  if (h->counts) memset(h->counts, 0, h->cap * sizeof *h->counts);
  h->n = 0;
}

/** As Histogram.toJSON in stats.ts: [[ms, count], …]. */
static void hist_json(FILE *f, const Hist *h) {
  fputc('[', f);
  int first = 1;
  for (long k = 0; k < h->cap; k++)
    if (h->counts[k]) {
      fprintf(f, "%s[%ld,%lld]", first ? "" : ",", k, h->counts[k]);
      first = 0;
    }
  fputc(']', f);
}

static double hist_quantile(const Hist *h, double q) {
  if (!h->n) return 0;
  long long rank = (long long)ceil(q * h->n), seen = 0;
  if (rank < 1) rank = 1;
  for (long k = 0; k < h->cap; k++)
    if ((seen += h->counts[k]) >= rank) return (double)k;
  return 0;
}

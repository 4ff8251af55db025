// The load generator's native receiver: it takes over the students' sockets once they have joined (loadgen.ts
// hands them over as file descriptors 3, 4, …) and reads their minutes in C. In JavaScript a generator spent
// 26–44 µs of CPU per message, as much as the server it measures, on two cores it shares with that server; this
// takes 6–7 µs, most of it the kernel's.
//
// What it does with each socket is what loadgen.ts did: answer engine.io's pings, read each student minute's
// round, minute and sending time where the servers write them, track order and gaps, count latency from due,
// now and then send one of the student's prepared control changes, and count refused changes.
//
// stdin, at start:  config <sockets> <changeProbability> <seed> <opsroom|baseline>
//                   sock <index> <k>   then k lines, each a change's packet without its "42<id>" head
//                   go
// stdin, later:     measure | report
// stdout:           check <round> <minute> <sentAt> <packet>   (every 4,096th minute and any it cannot read:
//                                                              loadgen.ts parses the packet and must agree)
//                   {"event":"receiver-report",…}              (once, on report; then it exits)
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "histogram.h"

#define PERIOD_MS 1000.0
#define STALL_MS 3000.0
#define READ_BYTES 65536

typedef struct {
  int fd;
  int open;
  /** Order and gaps of its minutes, as Track in loadgen.ts. */
  long long round, minute;
  double start, lastAt;
  /** A frame not yet whole at the end of a read. */
  unsigned char *carry;
  size_t carryLen, carryCap;
  char **changes;
  int changeCount;
  long long nextAck;
} Sock;

static Sock *socks;
static int sockCount;
static double changeProbability;
static const char *minuteKey;
static uint64_t rng;
static int measuring;
static long long missed, outOfOrder, repeated, changesSent, changeErrors, framesIn, bytesIn, studentBytes;
static long long minutesRead;
static double maxGapMs;
static Hist latency, sinceTick, busy;

static double ms_of(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
/** Wall-clock time, as the servers' sentAt (Date.now()), and a clock for durations. */
#define now_ms() ms_of(CLOCK_REALTIME)
#define mono_ms() ms_of(CLOCK_MONOTONIC)

/** xorshift64*: uniform in [0, 1). */
static double uniform(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (double)((rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static void die(const char *what) {
  fprintf(stderr, "receiver: %s: %s\n", what, strerror(errno));
  exit(1);
}

/** One text frame from the client, masked as RFC 6455 asks (with a zero key: the payload goes as it is). */
static void send_text(Sock *s, const char *head, const char *body) {
  size_t hl = strlen(head), bl = body ? strlen(body) : 0, len = hl + bl, at = 0;
  unsigned char frame[16 + 4096];
  if (len > 4096) return;
  frame[at++] = 0x81;
  if (len < 126) frame[at++] = 0x80 | len;
  else {
    frame[at++] = 0x80 | 126;
    frame[at++] = len >> 8;
    frame[at++] = len & 0xff;
  }
  memset(frame + at, 0, 4);
  at += 4;
  memcpy(frame + at, head, hl);
  if (bl) memcpy(frame + at + hl, body, bl);
  at += len;
  for (size_t done = 0; done < at;) {
    ssize_t n = write(s->fd, frame + done, at - done);
    if (n > 0) done += n;
    else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      struct pollfd p = {s->fd, POLLOUT, 0};
      poll(&p, 1, 1000);
    } else if (n < 0 && errno == EINTR) continue;
    else return;
  }
}

/** The non-negative integer written right after key, or -1 (numberAfter in loadgen.ts). */
static long long number_after(const char *p, size_t len, const char *key) {
  size_t kl = strlen(key);
  const char *at = memmem(p, len, key, kl);
  if (!at) return -1;
  const char *i = at + kl, *end = p + len;
  long long n = 0;
  int digits = 0;
  for (; i < end && *i >= '0' && *i <= '9'; i++, digits++) n = n * 10 + (*i - '0');
  return digits ? n : -1;
}

/** Order and gaps of one socket's minutes; returns the receipt's lateness after the minute was due (track()). */
static double track(Sock *t, long long round, long long minute, double sentAt, double now) {
  if (measuring && t->lastAt > 0 && now - t->lastAt > maxGapMs) maxGapMs = now - t->lastAt;
  if (measuring) t->lastAt = now;
  if (round > t->round) {
    missed += minute;
    t->start = INFINITY;
  } else if (round == t->round) {
    if (minute == t->minute) repeated++;
    else if (minute < t->minute) outOfOrder++;
    else missed += minute - t->minute - 1;
  } else {
    outOfOrder++;
    return now - sentAt;
  }
  t->round = round;
  t->minute = minute;
  if (sentAt - minute * PERIOD_MS < t->start) t->start = sentAt - minute * PERIOD_MS;
  return now - (t->start + minute * PERIOD_MS);
}

static void check_line(long long r, long long m, long long sent, const char *p, size_t len) {
  printf("check %lld %lld %lld %.*s\n", r, m, sent, (int)len, p);
  fflush(stdout);
}

static void minute_received(Sock *s, const char *p, size_t len) {
  long long r = number_after(p, len, "\"roundId\":"), m = number_after(p, len, minuteKey),
            sent = number_after(p, len, "\"sentAt\":");
  if ((minutesRead++ & 4095) == 0 || r < 0 || m < 0 || sent < 0) check_line(r, m, sent, p, len);
  if (r < 0 || m < 0 || sent < 0) return;
  double now = now_ms();
  double late = track(s, r, m, (double)sent, now);
  if (measuring) {
    hist_add(&latency, late);
    hist_add(&sinceTick, now - (double)sent);
    studentBytes += len;
  }
  if (uniform() >= changeProbability || !s->changeCount) return;
  const char *change = s->changes[(int)(uniform() * s->changeCount)];
  char head[32];
  snprintf(head, sizeof head, "42%lld", s->nextAck++);
  changesSent++;
  send_text(s, head, change);
}

/** An acknowledgement "43<id>[…]": a refused change counts unless its round was over or paused. */
static void ack_received(const char *p, size_t len) {
  if (!memmem(p, len, "\"ok\":false", 10)) return;
  const char *c = memmem(p, len, "\"code\":\"", 8);
  size_t cl = 0;
  if (c) {
    c += 8;
    while (c + cl < p + len && c[cl] != '"') cl++;
    if ((cl == 14 && !memcmp(c, "ROUND_FINISHED", 14)) || (cl == 9 && !memcmp(c, "BAD_STATE", 9))) return;
  }
  if (++changeErrors <= 3) fprintf(stderr, "change refused: %.*s\n", (int)(len > 300 ? 300 : len), p);
}

static void text_frame(Sock *s, const char *p, size_t len) {
  framesIn++;
  bytesIn += len;
  if (len == 1 && p[0] == '2') send_text(s, "3", NULL); // engine.io ping
  else if (len > 11 && !memcmp(p, "42[\"minute\",", 12)) minute_received(s, p, len);
  else if (len > 2 && p[0] == '4' && p[1] == '3') ack_received(p, len);
}

static void close_sock(int epfd, Sock *s) {
  if (!s->open) return;
  s->open = 0;
  epoll_ctl(epfd, EPOLL_CTL_DEL, s->fd, NULL);
}

/** Handles the whole frames in buf; returns how many bytes it used. */
static size_t frames(int epfd, Sock *s, unsigned char *buf, size_t len) {
  size_t at = 0;
  while (len - at >= 2) {
    unsigned char op = buf[at] & 0x0f;
    uint64_t pl = buf[at + 1] & 0x7f;
    size_t head = 2;
    if (pl == 126) {
      if (len - at < 4) break;
      pl = ((uint64_t)buf[at + 2] << 8) | buf[at + 3];
      head = 4;
    } else if (pl == 127) {
      if (len - at < 10) break;
      pl = 0;
      for (int i = 0; i < 8; i++) pl = (pl << 8) | buf[at + 2 + i];
      head = 10;
    }
    if (len - at - head < pl) break;
    char *p = (char *)buf + at + head;
    if (op == 0x1) text_frame(s, p, pl);
    else if (op == 0x8) close_sock(epfd, s);
    else if (op == 0x9) { // a WebSocket ping: pong with its payload (if the write fails, the close comes next)
      size_t n = pl < 125 ? pl : 125;
      unsigned char frame[6 + 125] = {0x8a, 0x80 | n, 0, 0, 0, 0};
      memcpy(frame + 6, p, n);
      ssize_t ignored = write(s->fd, frame, 6 + n);
      (void)ignored;
    }
    at += head + pl;
  }
  return at;
}

static void readable(int epfd, Sock *s, unsigned char *buf) {
  for (;;) {
    ssize_t n = read(s->fd, buf, READ_BYTES);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) return close_sock(epfd, s);
    if (s->carryLen) {
      if (s->carryLen + n > s->carryCap) {
        s->carryCap = (s->carryLen + n) * 2;
        s->carry = realloc(s->carry, s->carryCap);
      }
      memcpy(s->carry + s->carryLen, buf, n);
      s->carryLen += n;
      size_t used = frames(epfd, s, s->carry, s->carryLen);
      memmove(s->carry, s->carry + used, s->carryLen - used);
      s->carryLen -= used;
    } else {
      size_t used = frames(epfd, s, buf, n);
      if (used < (size_t)n) {
        size_t rest = n - used;
        if (rest > s->carryCap) {
          s->carryCap = rest * 2;
          s->carry = realloc(s->carry, s->carryCap);
        }
        memcpy(s->carry, buf + used, rest);
        s->carryLen = rest;
      }
    }
    if (n < READ_BYTES) return; // the socket is drained (as libuv reads)
  }
}

static void report(double t0) {
  double now = now_ms();
  long long stalled = 0;
  for (int i = 0; i < sockCount; i++)
    if (socks[i].lastAt < now - STALL_MS) stalled++;
  printf("{\"event\":\"receiver-report\",\"seconds\":%.3f,\"student\":", (now - t0) / 1e3);
  hist_json(stdout, &latency);
  printf(",\"studentSinceTick\":");
  hist_json(stdout, &sinceTick);
  printf(",\"studentBytes\":%lld,\"wireFrames\":%lld,\"wireBytes\":%lld,\"missed\":%lld,\"outOfOrder\":%lld,"
         "\"repeated\":%lld,\"stalled\":%lld,\"changesSent\":%lld,\"changeErrors\":%lld,\"maxGapMs\":%.1f,"
         "\"busyMs\":{\"p99\":%.0f,\"max\":%.0f}}\n",
         studentBytes, framesIn, bytesIn, missed, outOfOrder, repeated, stalled, changesSent, changeErrors, maxGapMs,
         hist_quantile(&busy, 0.99), busy.n ? hist_quantile(&busy, 1.0) : 0.0);
  fflush(stdout);
}

/** One line of stdin, without its newline (NULL at the end of input). */
static char *line_in(FILE *in) {
  static char *line = NULL;
  static size_t cap = 0;
  ssize_t n = getline(&line, &cap, in);
  if (n < 0) return NULL;
  if (n && line[n - 1] == '\n') line[n - 1] = 0;
  return line;
}

int main(void) {
  FILE *in = stdin;
  char mode[16];
  unsigned long long seed;
  char *l = line_in(in);
  if (!l || sscanf(l, "config %d %lf %llu %15s", &sockCount, &changeProbability, &seed, mode) != 4) {
    fprintf(stderr, "receiver: expected a config line first\n");
    return 2;
  }
  minuteKey = strcmp(mode, "baseline") ? "\"snapshot\":{\"minute\":" : "\"minute\":";
  rng = seed * 0x9E3779B97F4A7C15ULL + 1;
  socks = calloc(sockCount, sizeof *socks);
  int epfd = epoll_create1(0);
  if (epfd < 0) die("epoll_create1");
  for (int i = 0; i < sockCount; i++) {
    Sock *s = &socks[i];
    s->fd = 3 + i;
    s->open = 1;
    s->minute = -1;
    s->start = INFINITY;
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = s};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, s->fd, &ev) < 0) die("epoll_ctl (was each socket handed over?)");
  }
  for (l = line_in(in); l && strcmp(l, "go"); l = line_in(in)) {
    int index, k;
    if (sscanf(l, "sock %d %d", &index, &k) != 2 || index < 0 || index >= sockCount) {
      fprintf(stderr, "receiver: bad line: %s\n", l);
      return 2;
    }
    Sock *s = &socks[index];
    s->changes = calloc(k, sizeof *s->changes);
    for (int j = 0; j < k; j++) {
      char *c = line_in(in);
      if (!c) return 2;
      s->changes[s->changeCount++] = strdup(c);
    }
  }
  if (!l) return 2;
  // Commands arrive on stdin from here on: read it with the sockets, a line at a time.
  struct epoll_event cmd = {.events = EPOLLIN, .data.ptr = NULL};
  if (epoll_ctl(epfd, EPOLL_CTL_ADD, 0, &cmd) < 0) die("epoll_ctl stdin");
  printf("{\"event\":\"receiving\"}\n");
  fflush(stdout);

  unsigned char *buf = malloc(READ_BYTES);
  struct epoll_event events[256];
  char cmdBuf[256];
  size_t cmdLen = 0;
  double t0 = now_ms();
  for (;;) {
    int n = epoll_wait(epfd, events, 256, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("epoll_wait");
    double began = mono_ms();
    for (int i = 0; i < n; i++) {
      Sock *s = events[i].data.ptr;
      if (s) {
        if (s->open) readable(epfd, s, buf);
        continue;
      }
      ssize_t got = read(0, cmdBuf + cmdLen, sizeof cmdBuf - 1 - cmdLen);
      if (got <= 0) return 0; // the generator is gone
      cmdLen += got;
      cmdBuf[cmdLen] = 0;
      char *nl;
      while ((nl = strchr(cmdBuf, '\n'))) {
        *nl = 0;
        if (!strcmp(cmdBuf, "measure")) {
          missed = outOfOrder = repeated = changesSent = changeErrors = framesIn = bytesIn = studentBytes = 0;
          maxGapMs = 0;
          for (int j = 0; j < sockCount; j++) socks[j].lastAt = 0;
          hist_reset(&latency);
          hist_reset(&sinceTick);
          hist_reset(&busy);
          measuring = 1;
          t0 = now_ms();
          printf("{\"event\":\"measuring\"}\n");
          fflush(stdout);
        } else if (!strcmp(cmdBuf, "report")) {
          measuring = 0;
          report(t0);
          return 0;
        }
        size_t used = nl + 1 - cmdBuf;
        memmove(cmdBuf, nl + 1, cmdLen - used + 1);
        cmdLen -= used;
      }
    }
    if (measuring) hist_add(&busy, mono_ms() - began);
  }
}

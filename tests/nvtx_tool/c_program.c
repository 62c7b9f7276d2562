/* A C program that knows nothing of warmup: NVTX's header only. check_nvtx_tool.py runs it
 * under the tool and checks every range's calls in the report. argv[1] picks what it does. */
#include <nvtx3/nvToolsExt.h>
#include <dlfcn.h>

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

static nvtxRangeId_t ids[5];

static void* end_them(void* arg) {
  (void)arg;
  for (int i = 0; i < 5; ++i) nvtxRangeEnd(ids[i]); /* started on the main thread */
  return NULL;
}

static pthread_t left_open_thread;

static void* leave_open(void* arg) {
  (void)arg;
  left_open_thread = pthread_self();
  nvtxRangePushA("thread.left_open"); /* the thread ends inside it */
  return NULL;
}

/* Started after leave_open's thread ended: glibc gives it that thread's memory (its stack, its
 * thread pointer), and it must not get its ranges. */
static void* pop_in_its_place(void* arg) {
  *(int*)arg = pthread_equal(pthread_self(), left_open_thread);
  nvtxRangePop(); /* a pop with no push on this thread */
  return NULL;
}

/* Threads made and ended one after another, then several at once: each range counted once. */
static void* churn(void* arg) {
  for (long i = 0; i < (long)(intptr_t)arg; ++i) {
    nvtxRangePushA("thread.churn");
    nvtxRangePop();
  }
  return NULL;
}

static nvtxEventAttributes_t attributes(void) {
  nvtxEventAttributes_t a;
  memset(&a, 0, sizeof a);
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  return a;
}

static int ranges(void) {
  nvtxDomainHandle_t nccl = nvtxDomainCreateA("NCCL");
  nvtxDomainHandle_t wide = nvtxDomainCreateW(L"wide\u00e9");
  nvtxStringHandle_t step = nvtxDomainRegisterStringA(nccl, "AllReduce");
  nvtxNameCategoryA(1, "io");
  nvtxDomainNameCategoryA(nccl, 2, "collective");
  nvtxDomainNameCategoryW(nccl, 3, L"wide collective\u00e9");
  /* A resource named in a domain, and destroyed: passed on to a next tool with its own handles. */
  nvtxResourceAttributes_t res = {0};
  res.version = NVTX_VERSION;
  res.size = NVTX_RESOURCE_ATTRIB_STRUCT_SIZE;
  res.identifierType = NVTX_RESOURCE_TYPE_GENERIC_POINTER;
  res.identifier.pValue = &res;
  res.messageType = NVTX_MESSAGE_TYPE_ASCII;
  res.message.ascii = "communicator";
  nvtxDomainResourceDestroy(nvtxDomainResourceCreate(nccl, &res));
  for (int i = 0; i < 3; ++i) {
    nvtxRangePushA("c.outer");            /* ASCII, default domain */
    nvtxRangePushW(L"c.wide\u00e9");      /* wide */
    nvtxEventAttributes_t a = attributes();
    a.category = 1;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "c.ex";
    nvtxRangePushEx(&a);                  /* attributes, with a category */
    nvtxRangePop();
    nvtxRangePop();
    nvtxRangePop();
  }
  for (int i = 0; i < 4; ++i) {
    nvtxEventAttributes_t a = attributes();
    a.category = 2;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = step;
    nvtxDomainRangePushEx(nccl, &a);      /* registered string in a domain */
    nvtxDomainRangePop(nccl);
  }
  {
    nvtxEventAttributes_t a = attributes();
    a.messageType = NVTX_MESSAGE_TYPE_UNICODE;
    a.message.unicode = L"w.range";
    nvtxDomainRangePushEx(wide, &a);
    nvtxDomainRangePop(wide);
  }
  /* Two domains interleaved: NVTX keeps a stack per domain. The depths push and pop return
   * (in its domain) are printed for the check. */
  for (int i = 0; i < 2; ++i) {
    const int outer = nvtxRangePushA("c.interleaved");
    nvtxEventAttributes_t a = attributes();
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "Send";
    const int inner = nvtxDomainRangePushEx(nccl, &a);
    const int popped_outer = nvtxRangePop(); /* ends c.interleaved, not Send */
    const int popped_inner = nvtxDomainRangePop(nccl);
    printf("depths %d %d %d %d\n", outer, inner, popped_outer, popped_inner);
  }
  {
    const int a = nvtxRangePushA("c.depth0");
    const int b = nvtxRangePushA("c.depth1");
    nvtxEventAttributes_t s = attributes();
    s.messageType = NVTX_MESSAGE_TYPE_ASCII;
    s.message.ascii = "Recv";
    nvtxDomainRangePushEx(nccl, &s);         /* on top, in the other domain */
    const int c = nvtxRangePop();            /* ends c.depth1 (depth 1), not Recv */
    const int d = nvtxRangePop();            /* ends c.depth0 */
    const int e = nvtxDomainRangePop(nccl);  /* ends Recv */
    printf("depths %d %d %d %d %d\n", a, b, c, d, e);
  }
  /* One buffer, two names in turn: the same address is not the same name. */
  for (int i = 0; i < 4; ++i) {
    char buffer[32];
    strcpy(buffer, i % 2 ? "c.buffer.odd" : "c.buffer.even");
    nvtxRangePushA(buffer);
    nvtxRangePop();
  }
  /* PyTorch's emit_nvtx names: a sequence number per call, shapes kept. */
  for (int i = 0; i < 6; ++i) {
    char name[200];
    snprintf(name, sizeof name, "aten::addmm, seq = %d, op_id = %d, sizes = [[%d, 64], [64, 64]], input_op_ids = [(%d, 0), (%d, 1)]",
             100 + i, 7 + i, i < 4 ? 32 : 16, i, i + 1);
    nvtxRangePushA(name);
    nvtxRangePop();
  }
  /* Start/end, ended on another thread. */
  for (int i = 0; i < 5; ++i) ids[i] = nvtxRangeStartA("c.async");
  pthread_t t;
  pthread_create(&t, NULL, end_them, NULL);
  pthread_join(t, NULL);
  nvtxMarkA("c.mark");                     /* a mark is no range */
  for (int i = 0; i < 40; ++i) {            /* 40 x 3, each thread ended before the next */
    pthread_create(&t, NULL, churn, (void*)(intptr_t)3);
    pthread_join(t, NULL);
  }
  pthread_t at_once[8];                    /* 8 x 100 */
  for (int i = 0; i < 8; ++i) pthread_create(&at_once[i], NULL, churn, (void*)(intptr_t)100);
  for (int i = 0; i < 8; ++i) pthread_join(at_once[i], NULL);
  return 0;
}

static int misbehave(void) {
  nvtxRangePop();                          /* a pop with no push */
  nvtxRangeEnd(123456789);                 /* an end of no range */
  pthread_t t;
  pthread_create(&t, NULL, leave_open, NULL);
  pthread_join(t, NULL);
  int same = 0;
  pthread_create(&t, NULL, pop_in_its_place, &same);
  pthread_join(t, NULL);
  printf("misbehave: the second thread had the ended thread's memory: %s\n", same ? "yes" : "no");
  size_t big = 1u << 20;
  char* huge = malloc(big + 1);
  memset(huge, 'x', big);
  huge[big] = 0;
  nvtxRangePushA(huge);                    /* 1 MB */
  nvtxRangePop();
  nvtxRangePushA("bad\xff\xfe utf8");      /* invalid UTF-8 */
  nvtxRangePop();
  nvtxRangePushA(NULL);                    /* no message */
  nvtxRangePop();
  nvtxEventAttributes_t a = attributes();
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = (nvtxStringHandle_t)huge; /* a handle NVTX never gave */
  nvtxRangePushEx(&a);
  nvtxRangePop();
  nvtxDomainRangePop((nvtxDomainHandle_t)huge);   /* a domain NVTX never gave */
  free(huge);
  /* Handles that point nowhere: found to be none, never read through. */
  a.message.registered = (nvtxStringHandle_t)(uintptr_t)0xdead0;
  nvtxDomainRangePushEx((nvtxDomainHandle_t)(uintptr_t)0x10, &a);
  nvtxDomainRangePop((nvtxDomainHandle_t)(uintptr_t)0x10);
  nvtxDomainRangePop((nvtxDomainHandle_t)(uintptr_t)0x7);
  nvtxRangePushA("never.popped");          /* open at exit */
  nvtxRangeStartA("never.ended");
  nvtxRangePushA("fine");
  nvtxRangePop();
  return 0;
}

static int deep(long n) {
  for (long i = 0; i < n; ++i) nvtxRangePushA("deep"); /* never popped */
  for (long i = 0; i < 10; ++i) nvtxRangePop();       /* the last ten pushes, not kept: no call */
  return 0;
}

/* Pushes never popped on a thread that then ends: counted when it ends, those past the depth
 * kept too. */
static void* deep_then_end(void* arg) {
  for (long i = 0; i < (long)(intptr_t)arg; ++i) nvtxRangePushA("deep.thread");
  return NULL;
}

static int deep_thread(long n) {
  pthread_t t;
  pthread_create(&t, NULL, deep_then_end, (void*)(intptr_t)n);
  pthread_join(t, NULL);
  return 0;
}

static int unended(long n) {
  for (long i = 0; i < n; ++i) nvtxRangeStartA("unended"); /* never ended */
  return 0;
}

static void exit_on_term(int sig) {
  (void)sig;
  exit(3); /* a handler that calls exit: the report is still written, the range said left open */
}

static int signal_exit(void) {
  nvtxRangePushA("signal.done");
  nvtxRangePop();
  signal(SIGTERM, exit_on_term);
  nvtxRangePushA("signal.open");
  raise(SIGTERM);
  return 0; /* not reached */
}

static int blocked(void) {
  /* A first call that waits in poll and nanosleep while the CPU sampler may run: neither is cut
   * short (both return their full time, poll 0 and nanosleep 0, never EINTR). */
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  nvtxRangePushA("blocked.poll");
  const int polled = poll(NULL, 0, 200);
  nvtxRangePop();
  nvtxRangePushA("blocked.sleep");
  struct timespec d = {0, 200000000};
  const int slept = nanosleep(&d, NULL);
  nvtxRangePop();
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
  printf("poll %d sleep %d elapsed %s\n", polled, slept, ms >= 400 ? "full" : "cut");
  return 0;
}

static int many(long n) {
  char name[64];
  for (long i = 0; i < n; ++i) {
    snprintf(name, sizeof name, "distinct.%ld", i);
    nvtxRangePushA(name);
    nvtxRangePop();
  }
  return 0;
}

/* Whether the calling thread's ranges are behind the tool's static TLS slot: the slot library
 * loaded by the tool (never by this program: RTLD_NOLOAD), its slot read at its offset. */
static const char* slot_state(void) {
#if defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer)
  void* h = dlopen("libwarmup_nvtx_thread.so", RTLD_NOW | RTLD_NOLOAD);
  if (h == NULL) return "none";
  long (*offset)(void) = (long (*)(void))dlsym(h, "warmup_nvtx_thread_offset");
  void* slot = offset == NULL ? NULL : *(void**)((char*)__builtin_thread_pointer() + offset());
  dlclose(h);
  return slot != NULL ? "set" : "empty";
#endif
#endif
  return "unknown";
}

static void* slot_thread(void* arg) {
  (void)arg;
  nvtxRangePushA("slot.range");
  printf("slot thread %s\n", slot_state());
  nvtxRangePop();
  return NULL;
}

/* A thread started before the tool loaded, so before its slot library: glibc gives the
 * library's static TLS to threads that exist at the dlopen too. It waits for main's range. */
static pthread_mutex_t early_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t early_go = PTHREAD_COND_INITIALIZER;
static int early_may = 0;
static void* slot_early(void* arg) {
  (void)arg;
  pthread_mutex_lock(&early_lock);
  while (!early_may) pthread_cond_wait(&early_go, &early_lock);
  pthread_mutex_unlock(&early_lock);
  nvtxRangePushA("slot.range");
  printf("slot early %s\n", slot_state());
  nvtxRangePop();
  return NULL;
}

static int slot(void) {
  pthread_t early;
  if (pthread_create(&early, NULL, slot_early, NULL) != 0) return 1;
  printf("slot before %s\n", slot_state());
  nvtxRangePushA("slot.range");
  printf("slot main %s\n", slot_state());
  nvtxRangePop();
  fflush(stdout);
  pthread_t t;
  if (pthread_create(&t, NULL, slot_thread, NULL) != 0) return 1;
  pthread_join(t, NULL);
  fflush(stdout);
  pthread_mutex_lock(&early_lock);
  early_may = 1;
  pthread_cond_signal(&early_go);
  pthread_mutex_unlock(&early_lock);
  pthread_join(early, NULL);
  return 0;
}

/* One range, for the checks of a setting's spellings. */
static int one(void) {
  nvtxRangePushA("one.range");
  nvtxRangePop();
  return 0;
}

/* A string registered in one domain and pushed in another, and in NVTX's default domain: each
 * range is the domain's it was pushed in. */
static int cross(void) {
  nvtxDomainHandle_t nccl = nvtxDomainCreateA("NCCL");
  nvtxDomainHandle_t other = nvtxDomainCreateA("other");
  nvtxStringHandle_t shared = nvtxDomainRegisterStringA(nccl, "Shared");
  nvtxEventAttributes_t a = attributes();
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = shared;
  for (int i = 0; i < 2; ++i) {
    nvtxDomainRangePushEx(nccl, &a);
    nvtxDomainRangePop(nccl);
    nvtxDomainRangePushEx(other, &a);
    nvtxDomainRangePop(other);
    nvtxRangePushEx(&a);
    nvtxRangePop();
  }
  return 0;
}

/* Every NVTX entry point that opens a range, each with its own kind of name, twice: narrow (A),
 * wide (W), and Ex with each message type (ASCII, Unicode, a string registered narrow or wide),
 * in NVTX's default domain and in one of the program's. Each range's name says how it was given,
 * so a handler that reads one kind as another (a wide name read as char*) names another site. */
static nvtxEventAttributes_t message_of(int type, const void* m) {
  nvtxEventAttributes_t a = attributes();
  a.messageType = type;
  if (type == NVTX_MESSAGE_TYPE_ASCII) a.message.ascii = (const char*)m;
  else if (type == NVTX_MESSAGE_TYPE_UNICODE) a.message.unicode = (const wchar_t*)m;
  else a.message.registered = (nvtxStringHandle_t)m;
  return a;
}

static int entry_points(void) {
  nvtxDomainHandle_t d = nvtxDomainCreateA("entry");
  nvtxStringHandle_t reg_default = nvtxDomainRegisterStringA(NULL, "e.push.ex.registered");
  nvtxStringHandle_t reg_default_start = nvtxDomainRegisterStringW(NULL, L"e.start.ex.registered\u00e9");
  nvtxStringHandle_t reg_a = nvtxDomainRegisterStringA(d, "d.push.registered_a");
  nvtxStringHandle_t reg_w = nvtxDomainRegisterStringW(d, L"d.push.registered_w\u00e9");
  nvtxStringHandle_t reg_start = nvtxDomainRegisterStringA(d, "d.start.registered");
  for (int i = 0; i < 2; ++i) {
    nvtxRangePushA("e.push.a");
    nvtxRangePop();
    nvtxRangePushW(L"e.push.w\u00e9");
    nvtxRangePop();
    nvtxEventAttributes_t a = message_of(NVTX_MESSAGE_TYPE_ASCII, "e.push.ex.ascii");
    nvtxRangePushEx(&a);
    nvtxRangePop();
    a = message_of(NVTX_MESSAGE_TYPE_UNICODE, L"e.push.ex.unicode\u00e9");
    nvtxRangePushEx(&a);
    nvtxRangePop();
    a = message_of(NVTX_MESSAGE_TYPE_REGISTERED, reg_default);
    nvtxRangePushEx(&a);
    nvtxRangePop();

    nvtxRangeEnd(nvtxRangeStartA("e.start.a"));
    nvtxRangeEnd(nvtxRangeStartW(L"e.start.w\u00e9"));
    a = message_of(NVTX_MESSAGE_TYPE_ASCII, "e.start.ex.ascii");
    nvtxRangeEnd(nvtxRangeStartEx(&a));
    a = message_of(NVTX_MESSAGE_TYPE_UNICODE, L"e.start.ex.unicode\u00e9");
    nvtxRangeEnd(nvtxRangeStartEx(&a));
    a = message_of(NVTX_MESSAGE_TYPE_REGISTERED, reg_default_start);
    nvtxRangeEnd(nvtxRangeStartEx(&a));

    a = message_of(NVTX_MESSAGE_TYPE_ASCII, "d.push.ascii");
    nvtxDomainRangePushEx(d, &a);
    nvtxDomainRangePop(d);
    a = message_of(NVTX_MESSAGE_TYPE_UNICODE, L"d.push.unicode\u00e9");
    nvtxDomainRangePushEx(d, &a);
    nvtxDomainRangePop(d);
    a = message_of(NVTX_MESSAGE_TYPE_REGISTERED, reg_a);
    nvtxDomainRangePushEx(d, &a);
    nvtxDomainRangePop(d);
    a = message_of(NVTX_MESSAGE_TYPE_REGISTERED, reg_w);
    nvtxDomainRangePushEx(d, &a);
    nvtxDomainRangePop(d);

    a = message_of(NVTX_MESSAGE_TYPE_ASCII, "d.start.ascii");
    nvtxDomainRangeEnd(d, nvtxDomainRangeStartEx(d, &a));
    a = message_of(NVTX_MESSAGE_TYPE_UNICODE, L"d.start.unicode\u00e9");
    nvtxDomainRangeEnd(d, nvtxDomainRangeStartEx(d, &a));
    a = message_of(NVTX_MESSAGE_TYPE_REGISTERED, reg_start);
    nvtxDomainRangeEnd(d, nvtxDomainRangeStartEx(d, &a));
  }
  return 0;
}

/* Ranges, then exec: this process image ends without its exit handlers, so without a report. */
static int exec_after_ranges(void) {
  nvtxRangePushA("exec.range");
  nvtxRangePop();
  fflush(stdout);
  execl("/bin/true", "true", (char*)NULL);
  return 1;
}

/* NVTX_INJECTION64_PATH replaced before the first NVTX call: NVTX loads no tool of warmup's. */
static int replace_injection(void) {
  setenv("NVTX_INJECTION64_PATH", "/nonexistent/another_tool.so", 1);
  nvtxRangePushA("replaced.range");
  nvtxRangePop();
  return 0;
}

/* Two ranges, then a fork: the child makes one range and exits, writing its own report (its
 * ranges only: under WARMUP_NVTX_DOMAINS naming no domain used, one range left out, not three). */
static int fork_then_exit(void) {
  for (int i = 0; i < 2; ++i) {
    nvtxRangePushA("fork.parent");
    nvtxRangePop();
  }
  fflush(NULL);
  const pid_t pid = fork();
  if (pid == 0) {
    nvtxRangePushA("fork.child");
    nvtxRangePop();
    exit(0);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return 1;
  printf("child %ld\n", (long)pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* The tool's entry point called as NVTX never calls it: with no export table, and with a table
 * that has no callbacks. Each declined (0), nothing read through it. */
static const void* NVTX_API no_callbacks(uint32_t id) {
  (void)id;
  return NULL;
}
static int null_table(void) {
  const char* path = getenv("NVTX_INJECTION64_PATH");
  void* h = path != NULL ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
  void* f = h != NULL ? dlsym(h, "InitializeInjectionNvtx2") : NULL;
  if (f == NULL) return 1;
  int (*init)(NvtxGetExportTableFunc_t) = (int (*)(NvtxGetExportTableFunc_t))f;
  const int none = init(NULL);
  printf("no table %d, no callbacks %d\n", none, init(no_callbacks));
  return 0;
}

/* Waits inside a range for a signal (the launcher's forwarding is checked): SIGTERM ends it with
 * exit status 5 through its handler, after "ready" on stdout. */
static volatile sig_atomic_t got_term = 0;
static void note_term(int sig) {
  (void)sig;
  got_term = 1;
}
static int wait_for_term(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = note_term;
  sigaction(SIGTERM, &sa, NULL);
  sigset_t term, before;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  sigprocmask(SIG_BLOCK, &term, &before); /* taken only inside sigsuspend: none lost before it */
  nvtxRangePushA("wait.range");
  printf("ready\n");
  fflush(stdout);
  while (!got_term) sigsuspend(&before);
  nvtxRangePop();
  return 5;
}

int main(int argc, char** argv) {
  const char* what = argc > 1 ? argv[1] : "ranges";
  if (strcmp(what, "ranges") == 0) return ranges();
  if (strcmp(what, "misbehave") == 0) return misbehave();
  if (strcmp(what, "many") == 0) return many(argc > 2 ? atol(argv[2]) : 1000000);
  if (strcmp(what, "deep") == 0) return deep(argc > 2 ? atol(argv[2]) : 1000000);
  if (strcmp(what, "deep_thread") == 0) return deep_thread(argc > 2 ? atol(argv[2]) : 70000);
  if (strcmp(what, "unended") == 0) return unended(argc > 2 ? atol(argv[2]) : 100000);
  if (strcmp(what, "signal") == 0) return signal_exit();
  if (strcmp(what, "blocked") == 0) return blocked();
  if (strcmp(what, "slot") == 0) return slot();
  if (strcmp(what, "one") == 0) return one();
  if (strcmp(what, "cross") == 0) return cross();
  if (strcmp(what, "entry_points") == 0) return entry_points();
  if (strcmp(what, "exec") == 0) return exec_after_ranges();
  if (strcmp(what, "replace") == 0) return replace_injection();
  if (strcmp(what, "wait") == 0) return wait_for_term();
  if (strcmp(what, "fork") == 0) return fork_then_exit();
  if (strcmp(what, "null_table") == 0) return null_table();
  if (strcmp(what, "exit") == 0) { /* a range, then exit(N) */
    one();
    exit(argc > 2 ? atoi(argv[2]) : 0);
  }
  if (strcmp(what, "kill") == 0) { /* inside a range, killed by SIGTERM: no report */
    nvtxRangePushA("kill.range");
    signal(SIGTERM, SIG_DFL);
    raise(SIGTERM);
    return 1;
  }
  fprintf(stderr, "usage: %s ranges|misbehave|many|deep|deep_thread|unended|signal|blocked|slot|one|cross|entry_points|exec|replace|wait|fork|null_table|exit|kill [N]\n",
          argv[0]);
  return 2;
}

/* A second NVTX tool, for WARMUP_NVTX_NEXT: it logs the ranges it is handed, one line each, to
 * the file NVTX_CAPTURE_FILE names, as it gets them ("push DOMAIN|NAME", "pop DOMAIN",
 * "start NAME", "end", "mark NAME", "category DOMAIN|NAME"), and whether the program's CUDA
 * module was found through the table it attached to ("module CUDA|found"). Its domains and
 * registered strings are its own handles: were warmup's tool to hand over its handles instead,
 * the names would come out wrong. With NVTX_CAPTURE_DECLINE set, it declines to attach. */
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE* out;

struct handle {
  unsigned magic;
  char text[256];
};
static struct handle* make(const char* s) {
  struct handle* h = calloc(1, sizeof *h);
  h->magic = 0xC0FFEE;
  snprintf(h->text, sizeof h->text, "%s", s ? s : "");
  return h;
}
static const char* text_of(const void* p) {
  const struct handle* h = p;
  if (h == NULL) return "";
  return h->magic == 0xC0FFEE ? h->text : "<not my handle>";
}
static void put(const char* kind, const char* domain, const char* name) {
  pthread_mutex_lock(&lock);
  if (out) fprintf(out, "%s %s|%s\n", kind, domain, name), fflush(out);
  pthread_mutex_unlock(&lock);
}
static const char* message(const nvtxEventAttributes_t* a) {
  if (a->messageType == NVTX_MESSAGE_TYPE_ASCII) return a->message.ascii;
  if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED) return text_of(a->message.registered);
  return "<other>";
}

static int NVTX_API push_a(const char* s) { put("push", "", s); return 0; }
static int NVTX_API push_ex(const nvtxEventAttributes_t* a) { put("push", "", message(a)); return 0; }
static int NVTX_API pop(void) { put("pop", "", ""); return 0; }
static nvtxRangeId_t NVTX_API start_a(const char* s) { put("start", "", s); return 42; }
static void NVTX_API end(nvtxRangeId_t id) { put("end", "", id == 42 ? "42" : "<not my id>"); }
static void NVTX_API mark_a(const char* s) { put("mark", "", s); }
/* A wide name as ASCII, '?' for any other character. */
static const char* narrow(const wchar_t* w, char* out, size_t cap) {
  size_t n = 0;
  for (; w != NULL && *w != 0 && n + 1 < cap; ++w) out[n++] = *w > 0 && *w < 0x80 ? (char)*w : '?';
  out[n] = '\0';
  return out;
}
static nvtxRangeId_t NVTX_API start_w(const wchar_t* s) {
  char text[256];
  put("start", "", narrow(s, text, sizeof text));
  return 42;
}
static nvtxDomainHandle_t NVTX_API domain_create(const char* s) { return (nvtxDomainHandle_t)make(s); }
static nvtxStringHandle_t NVTX_API register_a(nvtxDomainHandle_t d, const char* s) { (void)d; return (nvtxStringHandle_t)make(s); }
static int NVTX_API domain_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  put("push", text_of(d), message(a));
  return 0;
}
static int NVTX_API domain_pop(nvtxDomainHandle_t d) { put("pop", text_of(d), ""); return 0; }
static nvtxResourceHandle_t NVTX_API resource_create(nvtxDomainHandle_t d, nvtxResourceAttributes_t* a) {
  put("resource", text_of(d), a != NULL && a->messageType == NVTX_MESSAGE_TYPE_ASCII ? a->message.ascii : "?");
  return (nvtxResourceHandle_t)make("its resource");
}
static void NVTX_API resource_destroy(nvtxResourceHandle_t r) { put("resource_destroy", "", text_of(r)); }
static void NVTX_API domain_category_w(nvtxDomainHandle_t d, uint32_t id, const wchar_t* s) {
  char text[256];
  (void)id;
  put("category", text_of(d), narrow(s, text, sizeof text));
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get) {
  const char* path = getenv("NVTX_CAPTURE_FILE");
  if (path && !out) out = fopen(path, "a");
  const NvtxExportTableCallbacks* cb = get(NVTX_ETID_CALLBACKS);
  NvtxFunctionTable t = NULL;
  unsigned n = 0;
  if (getenv("NVTX_CAPTURE_DECLINE") != NULL) return 0;
  /* A tool writes only the slots a table says it has. */
  if (!cb || !cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n) || n < NVTX_CBID_CORE_SIZE) return 0;
  *t[NVTX_CBID_CORE_RangePushA] = (NvtxFunctionPointer)push_a;
  *t[NVTX_CBID_CORE_RangePushEx] = (NvtxFunctionPointer)push_ex;
  *t[NVTX_CBID_CORE_RangePop] = (NvtxFunctionPointer)pop;
  *t[NVTX_CBID_CORE_RangeStartA] = (NvtxFunctionPointer)start_a;
  *t[NVTX_CBID_CORE_RangeEnd] = (NvtxFunctionPointer)end;
  *t[NVTX_CBID_CORE_MarkA] = (NvtxFunctionPointer)mark_a;
  *t[NVTX_CBID_CORE_RangeStartW] = (NvtxFunctionPointer)start_w;
  n = 0;
  if (!cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n) || n < NVTX_CBID_CORE2_SIZE) return 0;
  *t[NVTX_CBID_CORE2_DomainCreateA] = (NvtxFunctionPointer)domain_create;
  *t[NVTX_CBID_CORE2_DomainRegisterStringA] = (NvtxFunctionPointer)register_a;
  *t[NVTX_CBID_CORE2_DomainRangePushEx] = (NvtxFunctionPointer)domain_push;
  *t[NVTX_CBID_CORE2_DomainRangePop] = (NvtxFunctionPointer)domain_pop;
  *t[NVTX_CBID_CORE2_DomainNameCategoryW] = (NvtxFunctionPointer)domain_category_w;
  *t[NVTX_CBID_CORE2_DomainResourceCreate] = (NvtxFunctionPointer)resource_create;
  *t[NVTX_CBID_CORE2_DomainResourceDestroy] = (NvtxFunctionPointer)resource_destroy;
  /* A module warmup's tool does not handle (CUDA's names): the program's own table. */
  NvtxFunctionTable cuda = NULL;
  unsigned cuda_size = 0;
  const int has_cuda = cb->GetModuleFunctionTable(NVTX_CB_MODULE_CUDA, &cuda, &cuda_size);
  put("module", "CUDA", has_cuda && cuda != NULL && cuda_size > 0 ? "found" : "none");
  put("attached", "", "");
  return 1;
}

// NVTX looks, at its first call, for a strong definition of InitializeInjectionNvtx2_fnptr in
// the process (nvtx3/nvtxDetail/nvtxInit.h) and, if set, calls it to attach a tool. The NVTX
// headers define a weak one in every file that includes them, so the strong one lives here,
// in a file that includes no NVTX header.
#include <cstdint>

extern "C" {
using nvtx_export_table_fn = const void* (*)(std::uint32_t);
int nvtx_capture_initialize(nvtx_export_table_fn get_table);
using nvtx_init_fn = int (*)(nvtx_export_table_fn);
extern nvtx_init_fn InitializeInjectionNvtx2_fnptr;
nvtx_init_fn InitializeInjectionNvtx2_fnptr = &nvtx_capture_initialize;
}

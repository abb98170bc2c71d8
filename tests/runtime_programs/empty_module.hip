// A code object of a source without kernels (this file, written by `hipmlir --genco`, as hipcc
// writes one for such a source): hipModuleLoad takes it, every lookup in it finds nothing.
#include "test_common.h"

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CODE_OBJECT\n", argv[0]);
    return 2;
  }
  hipModule_t module = nullptr;
  HIP_CHECK(hipModuleLoad(&module, argv[1]));
  hipFunction_t f = nullptr;
  EXPECT_ERROR(hipModuleGetFunction(&f, module, "anything"), hipErrorNotFound);
  void* global = nullptr;
  size_t bytes = 0;
  EXPECT_ERROR(hipModuleGetGlobal(&global, &bytes, module, "anything"), hipErrorNotFound);
  HIP_CHECK(hipModuleUnload(module));

  // The same bytes through hipModuleLoadData.
  FILE* file = std::fopen(argv[1], "rb");
  if (!file) return 1;
  std::vector<char> image(1 << 20);
  image.resize(std::fread(image.data(), 1, image.size(), file));
  std::fclose(file);
  HIP_CHECK(hipModuleLoadData(&module, image.data()));
  EXPECT_ERROR(hipModuleGetFunction(&f, module, "anything"), hipErrorNotFound);
  HIP_CHECK(hipModuleUnload(module));
  std::printf("empty_module PASSED\n");
  return 0;
}

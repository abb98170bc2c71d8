/* hipGetProcAddress from C: every function the library exports, named on stdin one a line,
   resolves to the library's own function; memory calls made through the pointers give the
   right bytes; the version, flag and argument checks answer as documented. Prints
   "proc_address PASSED <count>". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int hipError_t;
enum { hipSuccess = 0, hipErrorInvalidValue = 1 };
enum { SUCCESS = 0, SYMBOL_NOT_FOUND = 1, VERSION_NOT_SUFFICIENT = 2 };

extern hipError_t hipGetProcAddress(const char* symbol, void** pfn, int hipVersion, uint64_t flags,
                                    int* symbolStatus);

typedef hipError_t (*count_fn)(int*);
typedef hipError_t (*malloc_fn)(void**, size_t);
typedef hipError_t (*memset32_fn)(void*, int, size_t);
typedef hipError_t (*memcpy_fn)(void*, const void*, size_t, int);
typedef hipError_t (*free_fn)(void*);

static int failures = 0;
#define EXPECT(cond, ...)                                       \
  do {                                                          \
    if (!(cond)) {                                              \
      fprintf(stderr, "line %d: ", __LINE__);                   \
      fprintf(stderr, __VA_ARGS__);                             \
      fprintf(stderr, "\n");                                    \
      failures++;                                               \
    }                                                           \
  } while (0)

static void* resolve(const char* name) {
  void* p = NULL;
  int status = -1;
  hipError_t e = hipGetProcAddress(name, &p, 602, 0, &status);
  EXPECT(e == hipSuccess && status == SUCCESS && p, "%s: error %d status %d", name, e, status);
  return p;
}

int main(void) {
  char line[512];
  int count = 0;
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\r\n")] = 0;
    if (!line[0]) continue;
    void* p = resolve(line);
    EXPECT(p == dlsym(RTLD_DEFAULT, line), "%s: not the library's own function", line);
    count++;
  }
  /* Calls through the pointers. */
  int devices = 0;
  EXPECT(((count_fn)resolve("hipGetDeviceCount"))(&devices) == hipSuccess && devices > 0,
         "hipGetDeviceCount through its pointer");
  enum { N = 4099 };
  void* d = NULL;
  EXPECT(((malloc_fn)resolve("hipMalloc"))(&d, N * 4) == hipSuccess && d, "hipMalloc");
  EXPECT(((memset32_fn)resolve("hipMemsetD32"))(d, 0x12345678, N) == hipSuccess, "hipMemsetD32");
  uint32_t* h = malloc(N * 4);
  EXPECT(((memcpy_fn)resolve("hipMemcpy"))(h, d, N * 4, 2) == hipSuccess, "hipMemcpy");
  for (int i = 0; i < N; i++) EXPECT(h[i] == 0x12345678u, "element %d is %#x", i, h[i]);
  EXPECT(((free_fn)resolve("hipFree"))(d) == hipSuccess, "hipFree");
  free(h);
  /* The flags for the legacy and per-thread default streams name the same functions here. */
  void *p0 = NULL, *p1 = NULL, *p2 = NULL;
  int status = -1;
  EXPECT(hipGetProcAddress("hipMemcpyAsync", &p0, 602, 0, &status) == hipSuccess, "flags 0");
  EXPECT(hipGetProcAddress("hipMemcpyAsync", &p1, 602, 1, &status) == hipSuccess, "flags 1");
  EXPECT(hipGetProcAddress("hipMemcpyAsync", &p2, 602, 2, &status) == hipSuccess, "flags 2");
  EXPECT(p0 && p0 == p1 && p1 == p2, "the stream flags give other functions");
  /* A function newer than the version asked for. */
  void* p = (void*)1;
  EXPECT(hipGetProcAddress("hipStreamBeginCaptureToGraph", &p, 600, 0, &status) ==
                 hipErrorInvalidValue &&
             status == VERSION_NOT_SUFFICIENT && p == NULL,
         "version not sufficient: status %d", status);
  EXPECT(hipGetProcAddress("hipGetProcAddress", &p, 601, 0, &status) == hipSuccess && p,
         "hipGetProcAddress came with 6.1");
  EXPECT(hipGetProcAddress("hipGetProcAddress", &p, 600, 0, &status) == hipErrorInvalidValue &&
             status == VERSION_NOT_SUFFICIENT,
         "hipGetProcAddress is not 6.0's");
  /* HIP 5's property layout is not provided. */
  EXPECT(hipGetProcAddress("hipGetDeviceProperties", &p, 500, 0, &status) == hipErrorInvalidValue &&
             status == SYMBOL_NOT_FOUND,
         "R0000 properties: status %d", status);
  /* Not a function of the library (malloc is in a library it depends on). */
  EXPECT(hipGetProcAddress("malloc", &p, 602, 0, &status) == hipErrorInvalidValue &&
             status == SYMBOL_NOT_FOUND && p == NULL,
         "malloc: status %d", status);
  EXPECT(hipGetProcAddress("hipNoSuchFunction", &p, 602, 0, NULL) == hipErrorInvalidValue,
         "a null status pointer is allowed");
  /* Bad arguments. */
  EXPECT(hipGetProcAddress(NULL, &p, 602, 0, &status) == hipErrorInvalidValue, "null name");
  EXPECT(hipGetProcAddress("", &p, 602, 0, &status) == hipErrorInvalidValue, "empty name");
  EXPECT(hipGetProcAddress("hipMalloc", NULL, 602, 0, &status) == hipErrorInvalidValue, "null pfn");
  EXPECT(hipGetProcAddress("hipMalloc", &p, 602, 3, &status) == hipErrorInvalidValue, "flags 3");
  EXPECT(hipGetProcAddress("hipMalloc", &p, 0, 0, &status) == hipErrorInvalidValue, "version 0");
  if (failures) {
    printf("proc_address FAILED (%d)\n", failures);
    return 1;
  }
  printf("proc_address PASSED %d\n", count);
  return 0;
}

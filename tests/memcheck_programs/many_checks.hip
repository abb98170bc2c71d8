// Kernels whose shapes once kept Intel's OpenCL CPU compiler from building the checked program
// (-fsanitize=address). `journal`: hundreds of accesses through pointers read from memory, each
// checked by a call of the checker's slow path (with the slow path inlined at every call the
// build took many minutes: its time grew faster than the number of calls). `chain`: a kernel
// that returns early unless it is thread 0 of block 0 (blockIdx tested first), then walks a
// linked list and writes notes (with the slow path not inlined and the work-item ids read
// beside each call, the compiler crashed in simplifycfg). Every result is compared with a host reference.
#include "../programs/test_common.h"

constexpr int kThreads = 64;
constexpr int kSlots = 96;
constexpr int kNotes = 80;
constexpr int kLinks = 48;

// A thread's journal, in device memory: its slots pointer is read from memory at each note.
struct Journal {
  int* slots;
  int used;
  int limit;
};

__host__ __device__ void note(Journal& j, int value) {
  if (j.used < j.limit) j.slots[j.used] = value;
  ++j.used;
}

// kNotes notes, each written out (no loop the checker could check once before it).
template <int N>
__host__ __device__ void note_many(Journal& j, int seed) {
  note(j, seed * 7 + N * (seed % 5 + 1));
  note_many<N - 1>(j, seed);
}

template <>
__host__ __device__ void note_many<0>(Journal&, int) {}

__global__ void journal(Journal* journals, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  note_many<kNotes>(journals[i], i);
}

struct Link {
  int value;
  Link* next;
};

// One thread builds the list: each link appended at the tail, found by walking from the head,
// then writes kChainNotes notes (enough calls of the slow path that the kernel calls the copy
// the device compiler does not inline, as in the crash).
constexpr int kChainNotes = 24;

__global__ void chain(Link* links, int n, Journal* log) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  note_many<kChainNotes>(*log, n);
  links[0].value = 0;
  links[0].next = nullptr;
  for (int i = 1; i < n; ++i) {
    Link* tail = &links[0];
    while (tail->next != nullptr) tail = tail->next;
    links[i].value = tail->value + i;
    links[i].next = nullptr;
    tail->next = &links[i];
  }
}

int main() {
  int bad = 0;

  int* d_slots = to_device(std::vector<int>(kThreads * kSlots, -1));
  std::vector<Journal> journals(kThreads), want_journals(kThreads);
  std::vector<int> want_slots(kThreads * kSlots, -1);
  for (int i = 0; i < kThreads; ++i) {
    journals[i] = {d_slots + i * kSlots, 0, kSlots};
    want_journals[i] = {want_slots.data() + i * kSlots, 0, kSlots};
    note_many<kNotes>(want_journals[i], i);
  }
  Journal* d_journals = to_device(journals);
  journal<<<kThreads / 32, 32>>>(d_journals, kThreads);
  HIP_CHECK(hipGetLastError());
  std::vector<int> used(kThreads), want_used(kThreads);
  std::vector<Journal> got_journals = from_device(d_journals, kThreads);
  for (int i = 0; i < kThreads; ++i) {
    used[i] = got_journals[i].used;
    want_used[i] = want_journals[i].used;
  }
  bad += count_mismatches("journal used", used, want_used);
  bad += count_mismatches("journal slots", from_device(d_slots, kThreads * kSlots), want_slots);

  Link* d_links = nullptr;
  HIP_CHECK(hipMalloc(&d_links, kLinks * sizeof(Link)));
  int* d_chain_slots = to_device(std::vector<int>(kSlots, -1));
  std::vector<int> want_chain_slots(kSlots, -1);
  Journal chain_log = {d_chain_slots, 0, kSlots}, want_chain_log = {want_chain_slots.data(), 0, kSlots};
  note_many<kChainNotes>(want_chain_log, kLinks);
  Journal* d_chain_log = to_device(std::vector<Journal>{chain_log});
  chain<<<2, 32>>>(d_links, kLinks, d_chain_log);
  HIP_CHECK(hipGetLastError());
  bad += count_mismatches("chain notes", from_device(d_chain_slots, kSlots), want_chain_slots);
  std::vector<Link> links(kLinks);
  HIP_CHECK(hipMemcpy(links.data(), d_links, kLinks * sizeof(Link), hipMemcpyDeviceToHost));
  // Each link's value and the index its next pointer names (-1: none).
  std::vector<long long> got_chain, want_chain;
  for (int i = 0; i < kLinks; ++i) {
    got_chain.push_back(links[i].value);
    got_chain.push_back(links[i].next ? links[i].next - d_links : -1);
    want_chain.push_back(i * (i + 1) / 2);
    want_chain.push_back(i + 1 < kLinks ? i + 1 : -1);
  }
  bad += count_mismatches("chain", got_chain, want_chain);

  HIP_CHECK(hipFree(d_slots));
  HIP_CHECK(hipFree(d_journals));
  HIP_CHECK(hipFree(d_links));
  HIP_CHECK(hipFree(d_chain_slots));
  HIP_CHECK(hipFree(d_chain_log));
  return report("many_checks", bad);
}

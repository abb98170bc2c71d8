// Records that point to records of their own kind in device code: a singly linked list (a
// stack, pushed and popped by each thread in memory of its own), a binary search tree built by a
// kernel and searched by another, and two classes that point to each other. The nodes live in
// device memory; links are set and followed on the device, and every result is compared with
// the same walk on the host.
#include "test_common.h"

struct StackNode {
  int value;
  StackNode* next = nullptr;
};

// A stack over a pool of nodes: push takes the next free node.
struct Stack {
  StackNode* top = nullptr;
  StackNode* pool;
  unsigned used = 0;

  __device__ void push(int v) {
    StackNode* n = &pool[used++];
    n->value = v;
    n->next = top;
    top = n;
  }
  __device__ int pop() {
    int v = top->value;
    top = top->next;
    return v;
  }
  __device__ bool empty() const { return top == nullptr; }
};

// Each thread pushes its own values, then pops them: the popped order, folded into one number.
__global__ void stack_round_trip(StackNode* pools, int per_thread, long long* out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  Stack s;
  s.pool = pools + t * per_thread;
  for (int i = 0; i < per_thread; ++i) s.push(t * 100 + i * i);
  long long folded = 0;
  while (!s.empty()) folded = folded * 31 + s.pop();
  out[t] = folded;
}

struct TreeNode {
  int key;
  TreeNode* child[2];
  TreeNode* parent;
};

// Inserts keys[0..n) one after the other into a tree over `nodes` (one thread: the shape depends
// on the order).
__global__ void build_tree(TreeNode* nodes, const int* keys, int n) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  for (int i = 0; i < n; ++i) {
    TreeNode* node = &nodes[i];
    node->key = keys[i];
    node->child[0] = node->child[1] = nullptr;
    node->parent = nullptr;
    if (i == 0) continue;
    TreeNode* at = &nodes[0];
    for (;;) {
      int side = keys[i] > at->key;
      if (at->child[side] == nullptr) {
        at->child[side] = node;
        node->parent = at;
        break;
      }
      at = at->child[side];
    }
  }
}

// For each query: its depth in the tree (-1 if absent), and the sum of the keys on the way back
// up to the root through the parent links.
__global__ void search_tree(const TreeNode* root, const int* queries, int* depths,
                            long long* path_sums, int n) {
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= n) return;
  const TreeNode* at = root;
  int depth = 0;
  while (at != nullptr && at->key != queries[q]) {
    at = at->child[queries[q] > at->key];
    ++depth;
  }
  depths[q] = at ? depth : -1;
  long long sum = 0;
  for (const TreeNode* up = at; up != nullptr; up = up->parent) sum += up->key;
  path_sums[q] = sum;
}

// Two classes that point to each other.
struct Team;
struct Player {
  int score;
  Team* team;
};
struct Team {
  int bonus;
  Player* captain;
};

__global__ void team_scores(Player* players, Team* teams, int* out, int n, int n_teams) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < n_teams) teams[p].captain = &players[p * 3];
  if (p >= n) return;
  players[p].team = &teams[p % n_teams];
  __syncthreads();
  // Through the team back to its captain: captain's score plus the team's bonus.
  out[p] = players[p].score + players[p].team->bonus + players[p].team->captain->score;
}

int main() {
  int bad = 0;

  // The stacks.
  const int threads = 256, per_thread = 12;
  StackNode* pools = nullptr;
  long long* folded_d = nullptr;
  HIP_CHECK(hipMalloc(&pools, threads * per_thread * sizeof(StackNode)));
  HIP_CHECK(hipMalloc(&folded_d, threads * sizeof(long long)));
  stack_round_trip<<<threads / 64, 64>>>(pools, per_thread, folded_d, threads);
  HIP_CHECK(hipGetLastError());
  std::vector<long long> want_folded(threads);
  for (int t = 0; t < threads; ++t) {
    long long folded = 0;
    for (int i = per_thread - 1; i >= 0; --i) folded = folded * 31 + (t * 100 + i * i);
    want_folded[t] = folded;
  }
  bad += count_mismatches("stacks", from_device(folded_d, threads), want_folded);

  // The tree.
  const int keys_n = 500, queries_n = 700;
  std::vector<int> keys(keys_n), queries(queries_n);
  for (int i = 0; i < keys_n; ++i) keys[i] = (i * 7919) % 1009;  // distinct: 1009 is prime
  for (int q = 0; q < queries_n; ++q) queries[q] = (q * 37) % 1100;
  TreeNode* nodes = nullptr;
  HIP_CHECK(hipMalloc(&nodes, keys_n * sizeof(TreeNode)));
  int* keys_d = to_device(keys);
  int* queries_d = to_device(queries);
  int* depths_d = nullptr;
  long long* sums_d = nullptr;
  HIP_CHECK(hipMalloc(&depths_d, queries_n * sizeof(int)));
  HIP_CHECK(hipMalloc(&sums_d, queries_n * sizeof(long long)));
  build_tree<<<1, 1>>>(nodes, keys_d, keys_n);
  search_tree<<<(queries_n + 127) / 128, 128>>>(nodes, queries_d, depths_d, sums_d, queries_n);
  HIP_CHECK(hipGetLastError());
  // The host builds the same tree by index and walks it the same way.
  std::vector<int> left(keys_n, -1), right(keys_n, -1), parent(keys_n, -1);
  for (int i = 1; i < keys_n; ++i) {
    int at = 0;
    for (;;) {
      int& next = keys[i] > keys[at] ? right[at] : left[at];
      if (next < 0) {
        next = i;
        parent[i] = at;
        break;
      }
      at = next;
    }
  }
  std::vector<int> want_depths(queries_n);
  std::vector<long long> want_sums(queries_n);
  for (int q = 0; q < queries_n; ++q) {
    int at = 0, depth = 0;
    while (at >= 0 && keys[at] != queries[q]) {
      at = queries[q] > keys[at] ? right[at] : left[at];
      ++depth;
    }
    want_depths[q] = at >= 0 ? depth : -1;
    long long sum = 0;
    for (int up = at; up >= 0; up = parent[up]) sum += keys[up];
    want_sums[q] = sum;
  }
  bad += count_mismatches("tree depths", from_device(depths_d, queries_n), want_depths);
  bad += count_mismatches("tree path sums", from_device(sums_d, queries_n), want_sums);

  // The teams.
  const int players_n = 96, teams_n = 8;
  std::vector<Player> players(players_n);
  std::vector<Team> teams(teams_n);
  for (int p = 0; p < players_n; ++p) players[p] = {p * 5 - 40, nullptr};
  for (int t = 0; t < teams_n; ++t) teams[t] = {1000 * (t + 1), nullptr};
  Player* players_d = to_device(players);
  Team* teams_d = to_device(teams);
  int* scores_d = nullptr;
  HIP_CHECK(hipMalloc(&scores_d, players_n * sizeof(int)));
  team_scores<<<1, players_n>>>(players_d, teams_d, scores_d, players_n, teams_n);
  HIP_CHECK(hipGetLastError());
  std::vector<int> want_scores(players_n);
  for (int p = 0; p < players_n; ++p) {
    int t = p % teams_n;
    want_scores[p] = players[p].score + teams[t].bonus + players[t * 3].score;
  }
  bad += count_mismatches("team scores", from_device(scores_d, players_n), want_scores);

  for (void* p : {(void*)pools, (void*)folded_d, (void*)nodes, (void*)keys_d, (void*)queries_d,
                  (void*)depths_d, (void*)sums_d, (void*)players_d, (void*)teams_d,
                  (void*)scores_d}) {
    HIP_CHECK(hipFree(p));
  }
  return report("linked_structures", bad);
}

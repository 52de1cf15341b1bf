// A pointer-chasing loop (p = p->next) once sent the base resolution of memory accesses into an
// endless recursion (issue 14). The load of p->next has a data-dependent base: global memory
// through a loaded pointer.
// RUN: %expect-exit 0 -- %cudaperf-analyze %cuda-builtin-args --format=json %s > %t.json
// RUN: %python %S/Inputs/bases.py %t.json | FileCheck %s

struct Node { Node *next; };

__global__ void chase(Node *data, unsigned n) {
  Node *p = data;
  for (unsigned i = 0; i < n; ++i) p = p->next;
  if (p == nullptr) data->next = p;
}
// CHECK: chase 11:43 load global 8 base=pointer loaded from memory
// CHECK: chase 12:32 store global 8 base=parameter data

// Two lists walked in turns: the bases form a cycle through two phis and two loads.
__global__ void chaseTwo(Node *a, Node *b, unsigned n, Node **out) {
  Node *p = a, *q = b;
  for (unsigned i = 0; i < n; ++i) {
    Node *t = p->next;
    p = q->next;
    q = t;
  }
  out[threadIdx.x] = p == q ? p : q;
}
// CHECK: chaseTwo 25:20 store global 8 base=parameter out
// CHECK: chaseTwo 21:18 load global 8 base=pointer loaded from memory
// CHECK: chaseTwo 22:12 load global 8 base=pointer loaded from memory

// What nvcc accepts parses with the built-in headers too (the toolkit's: nvcc-constructs-sdk.test).
// RUN: %expect-exit 0 -- %cudaperf-analyze %cuda-builtin-args --format=json %S/Inputs/nvcc-constructs.cu -- -std=c++17 -rdc=true -Xcompiler -fopenmp > %t.json
// RUN: %python %S/Inputs/kernel_facts.py < %t.json | FileCheck %s --check-prefixes=CHECK,BUILTIN
// CHECK: hints assumed accesses=global:store:4:coalesced,global:load:4:coalesced,global:store:4:strided,global:load:4:strided,global:store:16:coalesced,global:load:16:coalesced,global:store:4:strided,global:load:4:strided,global:load:4:strided,global:load:4:strided
// CHECK: atomics assumed accesses=global:load:4:broadcast,global:atomic:4:broadcast,global:atomic:4:coalesced,global:atomic:4:broadcast
// BUILTIN: surfaces assumed accesses=texture:load:4:not-modelled,surface:store:4:not-modelled,surface:store:4:not-modelled,surface:store:4:not-modelled,global:store:4:coalesced,surface:load:4:not-modelled
// SDK: surfaces assumed accesses=texture:load:16:not-modelled,surface:store:4:not-modelled,surface:store:4:not-modelled,surface:store:4:not-modelled,global:store:4:coalesced,surface:load:4:not-modelled
// CHECK: aligned assumed accesses=shared:store:4:conflict-free,global:load:4:coalesced,global:store:4:coalesced,shared:load:4:conflict-free barriers=1
// CHECK: inlinePtx assumed accesses=global:store:8:coalesced barriers=0
// CHECK: mul24 assumed accesses=global:store:4:coalesced,global:load:4:coalesced,global:store:4:coalesced
// The texture fetch is the 4-byte texel with the built-in headers, the 16-byte register result of
// the tex.1d.v4 instruction with the toolkit's (clang's texture intrinsics).
// CHECK: child launch-site accesses=global:store:4:coalesced
// CHECK: parent assumed accesses=global:load:4:coalesced,global:store:4:coalesced

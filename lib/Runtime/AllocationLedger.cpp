#include "cudaperf/Runtime/AllocationLedger.h"

#include <algorithm>

namespace cudaperf::runtime {

const char *memoryKindName(MemoryKind k) {
  switch (k) {
  case MemoryKind::Device: return "device";
  case MemoryKind::Pitched: return "pitched";
  case MemoryKind::Array: return "array";
  case MemoryKind::Managed: return "managed";
  case MemoryKind::Async: return "async";
  case MemoryKind::Physical: return "physical";
  case MemoryKind::PinnedHost: return "pinned_host";
  case MemoryKind::RegisteredHost: return "registered_host";
  }
  return "?";
}

bool isHostMemory(MemoryKind k) { return k == MemoryKind::PinnedHost || k == MemoryKind::RegisteredHost; }

void AllocationLedger::allocated(uint64_t handle, uint64_t bytes, MemoryKind kind, Owner owner, uint64_t pool) {
  std::lock_guard<std::mutex> lock(mu_);
  live_[handle] = {bytes, kind, owner, kind == MemoryKind::Async ? pool : 0};
  ++countsOf(owner).allocations;
}

std::optional<Owner> AllocationLedger::ownerOf(uint64_t handle) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = live_.find(handle); it != live_.end())
    return it->second.owner;
  if (auto it = physical_.find(handle); it != physical_.end())
    return it->second.owner;
  if (auto it = pools_.find(handle); it != pools_.end())
    return it->second;
  return std::nullopt;
}

bool AllocationLedger::freed(uint64_t handle, Owner by) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(handle);
  if (it == live_.end()) {
    ++countsOf(by).untrackedFrees;
    return false;
  }
  ++countsOf(it->second.owner).frees;
  live_.erase(it);
  return true;
}

void AllocationLedger::failedAllocation(uint64_t bytes, Owner owner) {
  std::lock_guard<std::mutex> lock(mu_);
  ++countsOf(owner).failed;
  countsOf(owner).failedBytes += bytes;
}

void AllocationLedger::invalidFree(Owner by) {
  std::lock_guard<std::mutex> lock(mu_);
  ++countsOf(by).invalidFrees;
}

void AllocationLedger::refusedFree(uint64_t) {
  std::lock_guard<std::mutex> lock(mu_);
  ++countsOf(Owner::Candidate).refusedFrees;
}

void AllocationLedger::physicalCreated(uint64_t handle, uint64_t bytes, Owner owner) {
  std::lock_guard<std::mutex> lock(mu_);
  physical_[handle] = {bytes, owner};
  ++countsOf(owner).allocations;
}

bool AllocationLedger::physicalReleased(uint64_t handle) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = physical_.find(handle);
  if (it == physical_.end())
    return false;
  ++countsOf(it->second.owner).frees;
  if (it->second.mappings > 0)
    it->second.released = true; // freed by the driver once its last mapping goes
  else
    physical_.erase(it);
  return true;
}

void AllocationLedger::mapped(uint64_t address, uint64_t size, uint64_t handle) {
  std::lock_guard<std::mutex> lock(mu_);
  mappings_[address] = {size, handle};
  if (auto it = physical_.find(handle); it != physical_.end())
    ++it->second.mappings;
}

void AllocationLedger::unmapped(uint64_t address, uint64_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = mappings_.lower_bound(address); it != mappings_.end() && it->first < address + size;) {
    auto ph = physical_.find(it->second.second);
    if (ph != physical_.end() && --ph->second.mappings <= 0 && ph->second.released)
      physical_.erase(ph);
    it = mappings_.erase(it);
  }
}

void AllocationLedger::poolCreated(uint64_t pool, Owner owner) {
  std::lock_guard<std::mutex> lock(mu_);
  pools_[pool] = owner;
}

void AllocationLedger::poolDestroyed(uint64_t pool) {
  std::lock_guard<std::mutex> lock(mu_);
  pools_.erase(pool);
}

std::vector<uint64_t> AllocationLedger::pools(Owner owner) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<uint64_t> out;
  for (const auto &[pool, o] : pools_)
    if (o == owner)
      out.push_back(pool);
  return out;
}

MemorySummary AllocationLedger::summary(Owner owner, const std::map<uint64_t, uint64_t> &reservedByPool,
                                        uint64_t extraDeviceBytes) const {
  std::lock_guard<std::mutex> lock(mu_);
  MemorySummary s;
  std::map<uint64_t, uint64_t> asyncByPool;
  for (const auto &[handle, a] : live_) {
    if (a.owner != owner)
      continue;
    ++s.liveAllocations;
    s.bytesByKind[a.kind] += a.bytes;
    if (a.kind == MemoryKind::Async)
      asyncByPool[a.pool] += a.bytes;
    else if (isHostMemory(a.kind))
      s.hostBytes += a.bytes;
    else
      s.deviceBytes += a.bytes;
  }
  for (const auto &[handle, p] : physical_)
    if (p.owner == owner) {
      ++s.liveAllocations;
      s.bytesByKind[MemoryKind::Physical] += p.bytes;
      s.deviceBytes += p.bytes;
    }
  // A pool's memory counts for whoever created it; pools nobody created here are the candidate's.
  auto poolOwner = [&](uint64_t pool) {
    auto it = pools_.find(pool);
    return it == pools_.end() ? Owner::Candidate : it->second;
  };
  std::map<uint64_t, uint64_t> poolBytes = asyncByPool;
  for (const auto &[pool, reserved] : reservedByPool)
    if (poolOwner(pool) == owner)
      poolBytes[pool] = std::max(poolBytes[pool], reserved);
  for (const auto &[pool, bytes] : poolBytes) {
    if (poolOwner(pool) != owner)
      continue;
    s.deviceBytes += bytes;
    if (auto it = reservedByPool.find(pool); it != reservedByPool.end())
      s.poolReservedBytes += it->second;
  }
  for (const auto &[pool, o] : pools_)
    if (o == owner)
      ++s.pools;
  if (owner == Owner::Candidate) {
    s.deviceBytes += extraDeviceBytes;
    s.poolReservedBytes += extraDeviceBytes;
  }
  const Counts &c = countsOf(owner);
  s.allocations = c.allocations;
  s.frees = c.frees;
  s.failedAllocations = c.failed;
  s.failedBytes = c.failedBytes;
  s.invalidFrees = c.invalidFrees;
  s.untrackedFrees = c.untrackedFrees;
  s.refusedFrees = c.refusedFrees;
  return s;
}

} // namespace cudaperf::runtime

#include "BpeModel.h"

#include "TokenizerByteLevel.h"
#include "TokenizerUtf8.h"
#include "cudaperf/Learn/Tokenizer.h"

#include <atomic>
#include <algorithm>
#include <functional>

namespace cudaperf::learn {

namespace {
// As Hugging Face's BPE cache: at most this many pre-tokens, each shorter than kCachedLength bytes.
constexpr size_t kCacheEntries = 10000;
constexpr size_t kCachedLength = 256;

std::atomic<uint64_t> nextCacheOwner{1};

struct ThreadCache {
  uint64_t owner = 0;
  std::unordered_map<std::string, std::vector<int32_t>> entries;
};
// One per thread, for the model used last on it (a thread rarely switches between tokenizers).
ThreadCache &threadCache(uint64_t owner) {
  thread_local ThreadCache cache;
  if (cache.owner != owner) {
    cache.owner = owner;
    cache.entries.clear();
  }
  return cache;
}

std::string quoted(const std::string &s) { return "\"" + s + "\""; }
} // namespace

BpeModel::BpeModel(std::unordered_map<std::string, int32_t> vocab,
                   const std::vector<std::pair<std::string, std::string>> &merges, BpeOptions options)
    : vocab_(std::move(vocab)), options_(std::move(options)), cacheOwner_(nextCacheOwner++) {
  int32_t maxId = -1;
  for (const auto &[token, id] : vocab_) {
    if (id < 0)
      throw TokenizerError("model.vocab: token " + quoted(token) + " has a negative id " + std::to_string(id));
    maxId = std::max(maxId, id);
  }
  idToToken_.assign(static_cast<size_t>(maxId + 1), nullptr);
  for (const auto &entry : vocab_)
    idToToken_[static_cast<size_t>(entry.second)] = &entry.first;

  size_t capacity = 16;
  while (capacity < 2 * merges.size())
    capacity *= 2;
  mergeTable_.assign(capacity, MergeSlot{});
  mergeMask_ = capacity - 1;
  mergeShift_ = 64 - __builtin_ctzll(capacity);
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto &[a, b] = merges[rank];
    const auto where = [&](const std::string &token) {
      return "model.merges[" + std::to_string(rank) + "]: " + quoted(token) + " is not in the vocabulary";
    };
    const auto idA = tokenToId(a), idB = tokenToId(b), merged = tokenToId(a + b);
    if (!idA)
      throw TokenizerError(where(a));
    if (!idB)
      throw TokenizerError(where(b));
    if (!merged)
      throw TokenizerError(where(a + b));
    insertMerge(pairKey(*idA, *idB), Merge{static_cast<uint32_t>(rank), *merged});
  }

  if (options_.unkToken) {
    unkId_ = tokenToId(*options_.unkToken);
    if (!unkId_)
      throw TokenizerError("model.unk_token: " + quoted(*options_.unkToken) + " is not in the vocabulary");
  }
  if (options_.byteLevelInput) {
    for (unsigned b = 0; b < 256; ++b)
      byteIds_[b] = tokenToId(bytelevel::symbols()[b]).value_or(-1);
    if (options_.ignoreMerges)
      for (const auto &[token, id] : vocab_)
        if (auto raw = bytelevel::decode(token))
          rawVocab_.emplace(std::move(*raw), id);
  }
}

void BpeModel::insertMerge(uint64_t key, Merge merge) {
  for (size_t slot = slotOf(key);; slot = (slot + 1) & mergeMask_) {
    if (mergeTable_[slot].key == kEmptyKey || mergeTable_[slot].key == key) { // a later rank replaces
      mergeTable_[slot] = {key, merge};
      return;
    }
  }
}

const BpeModel::Merge *BpeModel::findMerge(int32_t a, int32_t b) const {
  const uint64_t key = pairKey(a, b);
  for (size_t slot = slotOf(key);; slot = (slot + 1) & mergeMask_) {
    if (mergeTable_[slot].key == key)
      return &mergeTable_[slot].merge;
    if (mergeTable_[slot].key == kEmptyKey)
      return nullptr;
  }
}

std::optional<int32_t> BpeModel::tokenToId(std::string_view token) const {
  auto it = vocab_.find(std::string(token));
  if (it == vocab_.end())
    return std::nullopt;
  return it->second;
}

const std::string *BpeModel::idToToken(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= idToToken_.size())
    return nullptr;
  return idToToken_[static_cast<size_t>(id)];
}

// Hugging Face's merge_word: each character is a symbol; characters missing from the vocabulary
// become the unk token (consecutive ones fused into one if fuse_unk) or, without one, vanish.
void BpeModel::initialSymbols(std::string_view preToken, std::vector<int32_t> &symbols) const {
  symbols.clear();
  std::optional<int32_t> pendingUnk;
  const auto addSymbol = [&](int32_t id) {
    if (id >= 0) {
      if (pendingUnk)
        symbols.push_back(*pendingUnk);
      pendingUnk.reset();
      symbols.push_back(id);
      return;
    }
    if (!unkId_)
      return;
    if (pendingUnk && !options_.fuseUnk)
      symbols.push_back(*pendingUnk);
    pendingUnk = unkId_;
  };
  if (options_.byteLevelInput) {
    for (unsigned char byte : preToken)
      addSymbol(byteIds_[byte]);
  } else {
    for (size_t pos = 0; pos < preToken.size();) {
      const size_t length = utf8::sequenceLength(static_cast<unsigned char>(preToken[pos]));
      auto it = vocab_.find(std::string(preToken.substr(pos, length)));
      addSymbol(it == vocab_.end() ? -1 : it->second);
      pos += length;
    }
  }
  if (pendingUnk)
    symbols.push_back(*pendingUnk);
}

void BpeModel::mergeAll(std::vector<int32_t> &symbols) const {
  const int n = static_cast<int>(symbols.size());
  if (n < 2)
    return;
  // A doubly linked list over the symbols; merged-away ones are marked dead.
  thread_local std::vector<int> next, previous;
  thread_local std::vector<char> alive;
  next.resize(n);
  previous.resize(n);
  alive.assign(n, 1);
  for (int i = 0; i < n; ++i) {
    next[i] = i + 1 < n ? i + 1 : -1;
    previous[i] = i - 1;
  }
  struct Candidate {
    uint32_t rank;
    int position;
    int32_t newId;
    bool operator>(const Candidate &o) const {
      return rank != o.rank ? rank > o.rank : position > o.position;
    }
  };
  // A min-heap on (rank, position), kept in a per-thread vector to spare allocations.
  thread_local std::vector<Candidate> heap;
  heap.clear();
  const auto byPriority = std::greater<Candidate>();
  const auto consider = [&](int left) {
    const int right = next[left];
    if (right < 0)
      return;
    const Merge *merge = findMerge(symbols[left], symbols[right]);
    if (!merge)
      return;
    heap.push_back({merge->rank, left, merge->newId});
    std::push_heap(heap.begin(), heap.end(), byPriority);
  };
  for (int i = 0; i + 1 < n; ++i)
    consider(i);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), byPriority);
    const Candidate top = heap.back();
    heap.pop_back();
    const int left = top.position;
    if (!alive[left] || next[left] < 0)
      continue;
    const int right = next[left];
    // Stale if the pair at this position has changed since it was queued.
    const Merge *merge = findMerge(symbols[left], symbols[right]);
    if (!merge || merge->newId != top.newId)
      continue;
    symbols[left] = top.newId;
    alive[right] = 0;
    next[left] = next[right];
    if (next[right] >= 0)
      previous[next[right]] = left;
    if (previous[left] >= 0)
      consider(previous[left]);
    consider(left);
  }
  int kept = 0;
  for (int i = 0; i < n; ++i)
    if (alive[i])
      symbols[kept++] = symbols[i];
  symbols.resize(kept);
}

void BpeModel::tokenize(std::string_view preToken, std::vector<int32_t> &out) const {
  if (preToken.empty())
    return;
  if (options_.ignoreMerges) {
    const auto &whole = options_.byteLevelInput ? rawVocab_ : vocab_;
    auto it = whole.find(std::string(preToken));
    if (it != whole.end()) {
      out.push_back(it->second);
      return;
    }
  }
  ThreadCache &cache = threadCache(cacheOwner_);
  const bool cacheable = preToken.size() < kCachedLength;
  std::string key;
  if (cacheable) {
    key.assign(preToken);
    auto hit = cache.entries.find(key);
    if (hit != cache.entries.end()) {
      out.insert(out.end(), hit->second.begin(), hit->second.end());
      return;
    }
  }
  thread_local std::vector<int32_t> symbols;
  initialSymbols(preToken, symbols);
  mergeAll(symbols);
  out.insert(out.end(), symbols.begin(), symbols.end());
  if (cacheable && cache.entries.size() < kCacheEntries)
    cache.entries.emplace(std::move(key), symbols);
}

} // namespace cudaperf::learn

#include "cudaperf/Runtime/Scheduler.h"

#include <algorithm>

namespace cudaperf::runtime {

Scheduler::Scheduler(int buildThreads, int devices, size_t queueLimit) : queueLimit_(std::max<size_t>(1, queueLimit)) {
  stats_.runsPerDevice.assign(size_t(std::max(0, devices)), 0);
  for (int i = 0; i < std::max(1, buildThreads); ++i)
    threads_.emplace_back([this] { buildLoop(); });
  for (int d = 0; d < devices; ++d)
    threads_.emplace_back([this, d] { runLoop(d); });
}

Scheduler::~Scheduler() {
  close(true);
  wait();
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  changed_.notify_all();
  for (auto &t : threads_)
    t.join();
}

Scheduler::Submit Scheduler::submit(const std::string &id, std::shared_ptr<ScheduledJob> job, bool block) {
  std::unique_lock<std::mutex> lock(mu_);
  if (closed_)
    return Submit::Closed;
  if (live_.count(id))
    return Submit::Duplicate;
  if (stats_.waiting >= queueLimit_) {
    if (!block)
      return Submit::Full;
    changed_.wait(lock, [&] { return closed_ || stats_.waiting < queueLimit_; });
    if (closed_)
      return Submit::Closed;
    if (live_.count(id))
      return Submit::Duplicate;
  }
  auto e = std::make_shared<Entry>();
  e->id = id;
  e->job = std::move(job);
  live_[id] = e;
  toBuild_.push_back(e);
  ++stats_.submitted;
  ++stats_.waiting;
  changed_.notify_all();
  return Submit::Accepted;
}

void Scheduler::finishLocked(std::unique_lock<std::mutex> &lock, const std::shared_ptr<Entry> &e, bool cancelled) {
  live_.erase(e->id); // the id may be used again as soon as its result is out
  if (cancelled)
    ++stats_.cancelled;
  ++finishing_;
  lock.unlock();
  e->job->finish(cancelled);
  lock.lock();
  --finishing_;
  ++stats_.finished;
  changed_.notify_all();
}

Scheduler::Cancel Scheduler::cancel(const std::string &id) {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = live_.find(id);
  if (it == live_.end())
    return Cancel::Unknown;
  std::shared_ptr<Entry> e = it->second;
  if (e->runningNow)
    return Cancel::Running;
  e->cancelRequested = true;
  if (e->buildingNow)
    return Cancel::Cancelled; // finished by its build thread
  auto drop = [&](std::deque<std::shared_ptr<Entry>> &q) {
    auto pos = std::find(q.begin(), q.end(), e);
    if (pos == q.end())
      return false;
    q.erase(pos);
    return true;
  };
  if (drop(toBuild_) || drop(toRun_)) {
    --stats_.waiting;
    finishLocked(lock, e, true);
  }
  return Cancel::Cancelled;
}

void Scheduler::close(bool drain) {
  std::unique_lock<std::mutex> lock(mu_);
  closed_ = true;
  changed_.notify_all();
  if (drain)
    return;
  std::vector<std::shared_ptr<Entry>> dropped(toBuild_.begin(), toBuild_.end());
  dropped.insert(dropped.end(), toRun_.begin(), toRun_.end());
  toBuild_.clear();
  toRun_.clear();
  for (auto &e : live_)
    if (e.second->buildingNow)
      e.second->cancelRequested = true;
  for (auto &e : dropped) {
    --stats_.waiting;
    finishLocked(lock, e, true);
  }
}

void Scheduler::wait() {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] { return live_.empty() && finishing_ == 0; });
}

SchedulerStats Scheduler::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void Scheduler::buildLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    changed_.wait(lock, [&] { return !toBuild_.empty() || (closed_ && live_.empty() && finishing_ == 0); });
    if (toBuild_.empty())
      return;
    std::shared_ptr<Entry> e = toBuild_.front();
    toBuild_.pop_front();
    e->buildingNow = true;
    ++stats_.building;
    lock.unlock();
    bool needsRun = e->job->build();
    lock.lock();
    e->buildingNow = false;
    --stats_.building;
    ++stats_.built;
    if (needsRun && !e->cancelRequested && stats_.runsPerDevice.size() > 0) {
      toRun_.push_back(e);
      changed_.notify_all();
      continue;
    }
    --stats_.waiting;
    finishLocked(lock, e, e->cancelRequested);
  }
}

void Scheduler::runLoop(int device) {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    changed_.wait(lock, [&] { return !toRun_.empty() || (closed_ && live_.empty() && finishing_ == 0); });
    if (toRun_.empty())
      return;
    std::shared_ptr<Entry> e = toRun_.front();
    toRun_.pop_front();
    e->runningNow = true;
    --stats_.waiting;
    ++stats_.running;
    changed_.notify_all(); // a queue slot is free
    lock.unlock();
    e->job->run(device);
    lock.lock();
    --stats_.running;
    ++stats_.ran;
    ++stats_.runsPerDevice[size_t(device)];
    finishLocked(lock, e, false);
  }
}

} // namespace cudaperf::runtime

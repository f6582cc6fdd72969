// card_sampler (card_sampler.h): the thread, the summary, the terminal words.
#include "watch/card_sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "card/card_fields.h"

namespace gs {

card_sampler::card_sampler(card_sample_source* src, std::chrono::milliseconds period)
    : st_(std::make_shared<state>()), period_(period) {
  st_->src = src;
  st_->period = period;
}

card_sampler::~card_sampler() { stop(); }

void card_sampler::state::take() {
  card_sample s;
  s.t_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!src->read(s.card)) return;
  std::lock_guard<std::mutex> g(mu);
  samples.push_back(std::move(s));
}

void card_sampler::start() {
  if (!st_->src || started_) return;
  started_ = true;
  st_->t0 = std::chrono::steady_clock::now();
  // The thread owns a reference to the state: it may outlive this object if a read hangs.
  thread_ = std::thread([st = st_] {
    st->take();
    std::unique_lock<std::mutex> lk(st->mu);
    while (!st->cv.wait_for(lk, st->period, [&] { return st->stopping; })) {
      lk.unlock();
      st->take();
      lk.lock();
    }
    lk.unlock();
    st->take();  // the reading after the step's end (after the kill, for a hang)
    lk.lock();
    st->finished = true;
    st->cv.notify_all();
  });
}

void card_sampler::stop() {
  if (!thread_.joinable()) return;
  std::unique_lock<std::mutex> lk(st_->mu);
  st_->stopping = true;
  st_->cv.notify_all();
  // Two seconds: an NVML read takes about a millisecond; one that takes seconds is a hung driver.
  bool done = st_->cv.wait_for(lk, std::chrono::seconds(2), [&] { return st_->finished; });
  lk.unlock();
  if (done) {
    thread_.join();
  } else {
    stuck_ = true;
    thread_.detach();
  }
}

std::vector<card_sample> card_sampler::samples() const {
  std::lock_guard<std::mutex> g(st_->mu);
  return st_->samples;
}

namespace {

using nlohmann::json;

double round1(double v) { return std::round(v * 10) / 10; }

/// The figures the sampler reads (card_source.h): the card_fields keys it fills.
constexpr const char* kMoving[] = {"clock_sm_mhz", "clock_mem_mhz", "power_w", "temp_c", "busy_percent"};

const card_number_field& field(const char* key) {
  for (const card_number_field& f : card_number_fields())
    if (std::string_view(f.key) == key) return f;
  return card_number_fields().front();  // unreachable: kMoving names table keys
}

json reading_json(const card_sample& s) {
  json j = {{"t_s", round1(s.t_s)}};
  for (const char* k : kMoving)
    if (auto v = card_number(s.card, field(k))) j[k] = round1(*v);
  if (s.card.throttle_reasons) j["throttle_reasons"] = *s.card.throttle_reasons;
  return j;
}

}  // namespace

json card_samples_json(const std::vector<card_sample>& samples, const std::string& source,
                       std::chrono::milliseconds period) {
  if (samples.empty()) return nullptr;
  json j = {{"source", source}, {"samples", samples.size()}, {"period_ms", period.count()}};
  for (const char* k : kMoving) {
    double lo = 0, hi = 0, sum = 0;
    size_t n = 0;
    for (const card_sample& s : samples) {
      auto v = card_number(s.card, field(k));
      if (!v) continue;
      lo = n ? std::min(lo, *v) : *v;
      hi = n ? std::max(hi, *v) : *v;
      sum += *v;
      ++n;
    }
    if (n) j[k] = {{"min", round1(lo)}, {"mean", round1(sum / double(n))}, {"max", round1(hi)}};
  }
  // Each reason's share of the readings that had reasons: 0.9 sw_power_cap means the cap held
  // the clocks for nine tenths of the step.
  std::map<std::string, size_t> seen;
  size_t with_reasons = 0;
  for (const card_sample& s : samples) {
    if (!s.card.throttle_reasons) continue;
    ++with_reasons;
    for (const std::string& r : *s.card.throttle_reasons) ++seen[r];
  }
  if (with_reasons) {
    json t = json::object();
    for (auto& [r, n] : seen) t[r] = std::round(double(n) / double(with_reasons) * 100) / 100;
    j["throttle_reasons"] = std::move(t);
  }
  j["last"] = reading_json(samples.back());
  return j;
}

void attach_card_samples(probe_result& r, const std::vector<card_sample>& samples, const std::string& source,
                         std::chrono::milliseconds period, bool stuck) {
  json j = card_samples_json(samples, source, period);
  if (stuck) {
    if (j.is_null()) j = {{"source", source}, {"samples", 0}, {"period_ms", period.count()}};
    j["stuck"] = true;
  }
  if (j.is_null() || !(r.data.is_object() || r.data.is_null())) return;
  if (r.outcome == status::hang || r.outcome == status::crash) j["at_kill"] = j["last"];
  r.data["card"] = std::move(j);
}


}  // namespace gs

// The card's state while a step runs (issue 18): a thread of THIS process, the parent, reads the
// probed card about ten times a second from the moment the step starts until its result is in.
// It never runs in the watched child: a child that hangs in the driver must not take the only
// witness with it, and a sampler thread in the child would share its fate at the kill.
// The step's data gets min/mean/max of each figure (`data.card`), and a step that hung or
// crashed the last reading before its result came back (`data.card.at_kill`: still busy?
// clocks?). The runner (probe_runner.cpp) is the one place that starts and reads it.
#pragma once
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "card/card_source.h"
#include "core/probe_result.h"

namespace gs {

struct card_sample {
  double t_s = 0;  ///< seconds since the sampler started
  card_state card;
};

class card_sampler {
 public:
  /// 100 ms: ten readings a second show a clock that drops for a few hundred ms (power-cap
  /// oscillation) yet cost well under 1% of a CPU (an NVML read is about 0.1 ms per figure).
  explicit card_sampler(card_sample_source* src, std::chrono::milliseconds period = std::chrono::milliseconds(100));
  ~card_sampler();
  card_sampler(const card_sampler&) = delete;
  card_sampler& operator=(const card_sampler&) = delete;

  /// One reading at once (on the thread), then one every period until stop(). Idempotent.
  void start();
  /// Stop, then one last reading (the one after a kill), so even a short step has two. A read
  /// that does not return within 2 s (NVML hung in the driver) is left to its thread, which is
  /// detached: the run goes on, and stuck() says so.
  void stop();
  std::vector<card_sample> samples() const;
  std::chrono::milliseconds period() const { return period_; }
  /// The card stopped answering: a reading never returned.
  bool stuck() const { return stuck_; }

 private:
  // Shared with the thread, so a thread left in a hung read never touches a destroyed sampler.
  struct state {
    card_sample_source* src;
    std::chrono::milliseconds period;
    std::chrono::steady_clock::time_point t0;
    std::mutex mu;
    std::condition_variable cv;
    bool stopping = false, last_wanted = false, finished = false;
    std::vector<card_sample> samples;
    void take();
  };
  std::shared_ptr<state> st_;
  std::chrono::milliseconds period_;
  bool started_ = false, stuck_ = false;
  std::thread thread_;
};

/// data.card of a step: {"source", "samples", "period_ms", per figure {"min","mean","max"},
/// "throttle_reasons": {reason: share of readings}, "last": the last reading}; null with no readings.
nlohmann::json card_samples_json(const std::vector<card_sample>& samples, const std::string& source,
                                 std::chrono::milliseconds period);

/// Put card_samples_json into r.data["card"]; for a hang or crash the last reading also goes to
/// data.card.at_kill, with busy_percent (a card still busy after the kill is wedged). `stuck`:
/// a reading never came back (data.card.stuck: the card stopped answering its library).
void attach_card_samples(probe_result& r, const std::vector<card_sample>& samples, const std::string& source,
                         std::chrono::milliseconds period, bool stuck = false);

}  // namespace gs

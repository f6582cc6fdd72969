// The probe sampler (watch/card_sampler.h) with a scripted card: readings about every period in
// the parent while a step runs, min/mean/max and throttle shares in data.card, the last reading
// at the kill of a hung step, the terminal words, and no sampling for steps that use no GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "card/samples_line.h"
#include "watch/card_sampler.h"
#include "watch/probe_display.h"
#include "watch/probe_runner.h"
#include "watch/watch_test_util.h"

namespace gs {
namespace {

/// A card whose SM clock steps 1000, 1100, ... per reading, at 300 W + 10 W per reading, 60 C,
/// busy, its power cap holding the clocks every other reading. Counts readings and the thread
/// that took them.
class scripted_card final : public card_sample_source {
 public:
  bool read(card_state& c) override {
    int n = reads++;
    if (std::this_thread::get_id() != creator) ++off_thread;
    reader_pid = ::getpid();
    c.clock_sm_mhz = 1000 + 100 * n;
    c.power_w = 300 + 10 * n;
    c.temp_c = 60;
    c.busy_percent = 100;
    c.throttle_reasons = n % 2 ? std::vector<std::string>{"sw_power_cap"} : std::vector<std::string>{};
    return true;
  }
  std::string name() const override { return "scripted 0000:00:06.0"; }
  std::atomic<int> reads{0};
  std::atomic<int> off_thread{0};  ///< readings taken by a thread other than the test's
  std::thread::id creator = std::this_thread::get_id();
  pid_t reader_pid = 0;
};

TEST(CardSampler, ReadsAboutEveryPeriodUntilStopped) {
  scripted_card card;
  card_sampler s(&card, std::chrono::milliseconds(20));
  s.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(210));
  s.stop();
  std::vector<card_sample> v = s.samples();
  // One at start, ~10 in 210 ms, one at stop; a loaded CI machine may lose a few.
  EXPECT_GE(v.size(), 6u);
  EXPECT_LE(v.size(), 14u);
  EXPECT_GE(card.off_thread, 4);  // a thread of its own (start and stop read on the caller's)
  for (size_t i = 1; i < v.size(); ++i) EXPECT_GE(v[i].t_s, v[i - 1].t_s);
  int after = card.reads;
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_EQ(card.reads, after);  // stopped means stopped
}

TEST(CardSampler, SummaryHasMinMeanMaxAndThrottleShares) {
  std::vector<card_sample> v(4);
  for (int i = 0; i < 4; ++i) {
    v[i].t_s = 0.1 * i;
    v[i].card.clock_sm_mhz = 1000 + 100 * i;  // 1000..1300, mean 1150
    v[i].card.temp_c = 50;
    v[i].card.throttle_reasons = i < 3 ? std::vector<std::string>{"sw_power_cap"} : std::vector<std::string>{};
  }
  nlohmann::json j = card_samples_json(v, "scripted", std::chrono::milliseconds(100));
  EXPECT_EQ(j["samples"], 4);
  EXPECT_EQ(j["source"], "scripted");
  EXPECT_EQ(j["clock_sm_mhz"]["min"], 1000.0);
  EXPECT_EQ(j["clock_sm_mhz"]["mean"], 1150.0);
  EXPECT_EQ(j["clock_sm_mhz"]["max"], 1300.0);
  EXPECT_EQ(j["temp_c"]["min"], 50.0);
  EXPECT_FALSE(j.contains("power_w"));  // never read: absent, not zero
  EXPECT_EQ(j["throttle_reasons"]["sw_power_cap"], 0.75);
  EXPECT_EQ(j["last"]["clock_sm_mhz"], 1300.0);
  EXPECT_TRUE(card_samples_json({}, "x", std::chrono::milliseconds(100)).is_null());
}

TEST(CardSampler, RunnerSamplesGpuStepsInTheParent) {
  scripted_card card;
  runner_options o;
  o.limits = testing::fast_limits(5);
  o.card = &card;
  static const probe_spec gpu_step{"test.gpu_busy", "works 300 ms", {}, true, true, [](const probe_context& c) {
                                     c.phase("run");
                                     ::usleep(300000);
                                     return make_result("test.gpu_busy", status::pass, "fine");
                                   }};
  static const probe_spec cpu_step{"test.cpu_only", "no gpu", {}, true, false, [](const probe_context&) {
                                     return make_result("test.cpu_only", status::pass, "fine");
                                   }};
  run_summary s = run_probes({&gpu_step, &cpu_step}, o);
  ASSERT_EQ(s.results.size(), 2u);
  const nlohmann::json& d = s.results[0].data;
  ASSERT_TRUE(d.contains("card")) << d.dump();
  EXPECT_EQ(card.reader_pid, ::getpid());  // read in this process, while the step ran in a child
  EXPECT_GE(d["card"]["samples"].get<int>(), 3);  // 300 ms at 10 Hz, with slack for a slow fork
  EXPECT_EQ(d["card"]["period_ms"], 100);
  EXPECT_EQ(d["card"]["clock_sm_mhz"]["min"], 1000.0);
  EXPECT_GT(d["card"]["clock_sm_mhz"]["max"].get<double>(), 1100.0);
  EXPECT_FALSE(d["card"].contains("at_kill"));
  EXPECT_FALSE(s.results[1].data.contains("card"));  // no GPU, no sampling
  std::string line = progress_final_line(0, 2, s.results[0]);
  EXPECT_NE(line.find("[SM 1000-"), std::string::npos) << line;
  EXPECT_NE(line.find("held by sw_power_cap"), std::string::npos) << line;
}

TEST(CardSampler, AHungStepCarriesTheLastReadingAtTheKill) {
  scripted_card card;
  runner_options o;
  o.limits = testing::fast_limits(0.5);
  o.card = &card;
  static const probe_spec hang{"test.gpu_hang", "hangs in sync", {}, true, true, [](const probe_context& c) -> probe_result {
                                 c.phase("sync");
                                 for (;;) ::pause();
                               }};
  run_summary s = run_probes({&hang}, o);
  ASSERT_EQ(s.results[0].outcome, status::hang);
  const nlohmann::json& c = s.results[0].data["card"];
  ASSERT_TRUE(c.contains("at_kill")) << s.results[0].data.dump();
  EXPECT_EQ(c["at_kill"]["busy_percent"], 100.0);
  EXPECT_EQ(c["at_kill"], c["last"]);
  std::string line = progress_final_line(0, 1, s.results[0]);
  EXPECT_NE(line.find("at the kill: 100% busy SM"), std::string::npos) << line;
}

/// A card whose fourth reading never returns (NVML hung in the driver): leaked on purpose, since
/// the sampler leaves the stuck thread behind and it wakes after the test.
class hanging_card final : public card_sample_source {
 public:
  bool read(card_state& c) override {
    if (reads++ >= 3) std::this_thread::sleep_for(std::chrono::seconds(6));
    c.clock_sm_mhz = 1500;
    return true;
  }
  std::string name() const override { return "hanging"; }
  std::atomic<int> reads{0};
};

TEST(CardSampler, AHungReadDoesNotHangTheRun) {
  auto* card = new hanging_card;
  card_sampler s(card, std::chrono::milliseconds(20));
  s.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  auto t0 = std::chrono::steady_clock::now();
  s.stop();
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(waited, 3.0);
  EXPECT_TRUE(s.stuck());
  EXPECT_EQ(s.samples().size(), 3u);
  probe_result r = make_result("test.x", status::pass, "");
  attach_card_samples(r, s.samples(), card->name(), s.period(), s.stuck());
  EXPECT_EQ(r.data["card"]["stuck"], true);
  EXPECT_NE(progress_final_line(0, 1, r).find("the card stopped answering"), std::string::npos);
}

}  // namespace
}  // namespace gs

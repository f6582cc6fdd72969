// The watchdog pipe format: every split of the byte stream parses the same, payloads carry
// any bytes, and garbage from a half-dead child is skipped instead of derailing the reader.
#include <gtest/gtest.h>
#include <unistd.h>

#include "watch/pipe_protocol.h"

namespace gs {
namespace {

std::vector<child_message> parse(std::string_view bytes, size_t chunk, size_t* garbage = nullptr) {
  message_reader r;
  std::vector<child_message> out;
  for (size_t i = 0; i < bytes.size(); i += chunk) r.feed(bytes.substr(i, chunk), out);
  if (garbage) *garbage = r.garbage();
  return out;
}

TEST(PipeProtocol, EverySplitGivesTheSameMessages) {
  std::string stream = "phase load\nbeat\nphase compile\nresult 12\nab\ncd\nresultphase verify\n";
  for (size_t chunk : {1u, 2u, 3u, 7u, 100u}) {
    auto m = parse(stream, chunk);
    ASSERT_EQ(m.size(), 5u) << "chunk " << chunk;
    EXPECT_EQ(m[0].kind, child_message::phase);
    EXPECT_EQ(m[0].text, "load");
    EXPECT_EQ(m[1].kind, child_message::beat);
    EXPECT_EQ(m[2].text, "compile");
    EXPECT_EQ(m[3].kind, child_message::result);
    EXPECT_EQ(m[3].text, "ab\ncd\nresult");  // newlines and keywords inside a payload are data
    EXPECT_EQ(m[4].text, "verify");
  }
}

TEST(PipeProtocol, EmptyPayload) {
  auto m = parse("result 0\nbeat\n", 4);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].kind, child_message::result);
  EXPECT_EQ(m[0].text, "");
}

TEST(PipeProtocol, GarbageIsSkipped) {
  size_t garbage = 0;
  std::string longline(1000, 'x');
  auto m = parse("hello\nphase \nphase has space\nresult -3\nresult 99999999999\nresult 1x\n" +
                     longline + "\nphase sync\n",
                 5, &garbage);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].text, "sync");
  EXPECT_EQ(garbage, 7u);
}

TEST(PipeProtocol, OverlongPhaseNameIsGarbage) {
  size_t garbage = 0;
  auto m = parse("phase " + std::string(message_reader::kMaxPhase + 1, 'p') + "\n", 64, &garbage);
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(garbage, 1u);
}

TEST(PipeProtocol, TruncatedPayloadNeverCompletes) {
  auto m = parse("result 10\nabc", 2);
  EXPECT_TRUE(m.empty());
}

TEST(PipeProtocol, ReporterWritesWhatTheReaderReads) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    pipe_reporter rep(fds[1]);
    rep.phase("launch");
    rep.phase("we ird\nname");  // sanitised into one token
    rep.heartbeat();
    rep.heartbeat();  // within 100 ms of the first: dropped
    rep.result("{\"a\":1}\n");
  }
  ::close(fds[1]);
  std::string bytes;
  char buf[256];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) bytes.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  auto m = parse(bytes, 3);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].text, "launch");
  EXPECT_EQ(m[1].text, "we_ird_name");
  EXPECT_EQ(m[2].kind, child_message::beat);
  EXPECT_EQ(m[3].text, "{\"a\":1}\n");
}

}  // namespace
}  // namespace gs

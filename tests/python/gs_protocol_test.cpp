// The `@gs` line protocol (src/python/gs_line_protocol.h): every line kind, every split of the
// byte stream, garbled and over-long lines, CRLF, a missing final newline, and the log tail's
// clean-up of what a dying process prints.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "python/gs_line_protocol.h"

namespace gs {
namespace {

std::vector<gs_line_event> parse_all(std::string_view bytes, size_t chunk) {
  gs_line_parser p;
  std::vector<gs_line_event> out;
  for (size_t i = 0; i < bytes.size(); i += chunk) p.feed(bytes.substr(i, chunk), out);
  p.finish(out);
  return out;
}

TEST(GsProtocol, ParsesEachLineKind) {
  EXPECT_EQ(parse_gs_line("@gs phase import").kind, gs_line_event::phase);
  EXPECT_EQ(parse_gs_line("@gs phase import").text, "import");
  EXPECT_EQ(parse_gs_line("@gs heartbeat").kind, gs_line_event::heartbeat);
  gs_line_event r = parse_gs_line("@gs result {\"status\":\"pass\",\"detail\":\"ok\"}");
  EXPECT_EQ(r.kind, gs_line_event::result);
  EXPECT_EQ(nlohmann::json::parse(r.text)["status"], "pass");
  EXPECT_EQ(parse_gs_line("Loading checkpoint shards: 100%").kind, gs_line_event::log);
}

TEST(GsProtocol, MalformedProtocolLinesAreLogNotCommands) {
  for (const char* l : {"@gs phase", "@gs phase ", "@gs phase Import", "@gs phase a b", "@gs phase x;rm",
                        "@gs phase aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" /* 33 */, "@gs heartbeat now", "@gs result",
                        "@gs result [1,2]", "@gs results {}", "@gsphase load", " @gs phase load", "@GS phase load",
                        "@gs"}) {
    SCOPED_TRACE(l);
    gs_line_event e = parse_gs_line(l);
    EXPECT_EQ(e.kind, gs_line_event::log);
    EXPECT_EQ(e.text, l);
  }
}

TEST(GsProtocol, CrlfAndTrailingSpaceAreTolerated) {
  EXPECT_EQ(parse_gs_line("@gs phase verify\r").text, "verify");
  EXPECT_EQ(parse_gs_line("@gs heartbeat \r").kind, gs_line_event::heartbeat);
  EXPECT_EQ(parse_gs_line("@gs result {\"a\":1}  ").text, "{\"a\":1}");
}

TEST(GsProtocol, EverySplitOfTheStreamGivesTheSameEvents) {
  const std::string stream =
      "warming up\n\n@gs phase import\n@gs heartbeat\nUserWarning: something\n@gs phase launch\r\n"
      "@gs result {\"status\":\"pass\",\"detail\":\"x\",\"data\":{\"v\":[1,2,3]}}\nlast words without newline";
  std::vector<gs_line_event> whole = parse_all(stream, stream.size());
  ASSERT_EQ(whole.size(), 8u);
  EXPECT_EQ(whole[2].kind, gs_line_event::phase);
  EXPECT_EQ(whole[5].text, "launch");
  EXPECT_EQ(whole[6].kind, gs_line_event::result);
  EXPECT_EQ(whole[7].text, "last words without newline");
  for (size_t chunk = 1; chunk < stream.size(); ++chunk) {
    std::vector<gs_line_event> got = parse_all(stream, chunk);
    ASSERT_EQ(got.size(), whole.size()) << "chunk " << chunk;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].kind, whole[i].kind) << "chunk " << chunk << " event " << i;
      EXPECT_EQ(got[i].text, whole[i].text) << "chunk " << chunk << " event " << i;
    }
  }
}

TEST(GsProtocol, AProtocolLineGluedToALibrarysHalfLineIsLog) {
  // A library printed "50%" without a newline, then our line followed: the script side always
  // starts with "\n" to prevent exactly this, and without it the parser must not misread.
  std::vector<gs_line_event> ev = parse_all("50%@gs phase load\n", 4);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, gs_line_event::log);
}

TEST(GsProtocol, OverlongLinesAreDroppedWholeAndTheStreamRecovers) {
  std::string huge(gs_line_parser::kMaxLine + 10, 'x');
  std::string stream = "@gs phase load\n" + huge + "\n@gs phase verify\n";
  gs_line_parser p;
  std::vector<gs_line_event> out;
  for (size_t i = 0; i < stream.size(); i += 1 << 20) p.feed(std::string_view(stream).substr(i, 1 << 20), out);
  p.finish(out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].text, "load");
  EXPECT_EQ(out[1].text, "verify");
  EXPECT_EQ(p.dropped(), 1u);
}

TEST(GsProtocol, GarbageBytesNeverThrowAndStayLog) {
  std::string junk;
  for (int i = 0; i < 4096; ++i) junk += static_cast<char>((i * 7919) & 0xff);
  std::vector<gs_line_event> ev;
  EXPECT_NO_THROW(ev = parse_all(junk, 13));
  for (const gs_line_event& e : ev) EXPECT_NE(e.kind, gs_line_event::result);
}

TEST(GsLogTail, KeepsTheLastLinesAndMakesThemSafeForJson) {
  log_tail t(3, 20);
  t.add("one");
  t.add("   ");
  t.add("two\r");
  t.add("three\x01\x1b[31m");
  t.add("four \xff\xfe bad utf8 and a very long tail that goes on");
  ASSERT_EQ(t.lines().size(), 3u);
  EXPECT_EQ(t.lines()[0], "two");
  EXPECT_EQ(t.lines()[1], "three??[31m");
  EXPECT_EQ(t.lines()[2].substr(0, 6), "four ?");
  EXPECT_NE(t.lines()[2].find("[...]"), std::string::npos);
  nlohmann::json j = t.lines();
  EXPECT_NO_THROW((void)j.dump());  // strict UTF-8: would throw on the raw bytes
}

TEST(GsLogTail, KeepsValidMultibyteTextAndRejectsOverlongForms) {
  log_tail t;
  t.add("torch \xe2\x9c\x93 ok \xf0\x9f\x9a\xa8");  // a check mark and bitsandbytes' siren emoji
  t.add("overlong \xc0\xaf surrogate \xed\xa0\x80");
  EXPECT_EQ(t.lines()[0], "torch \xe2\x9c\x93 ok \xf0\x9f\x9a\xa8");
  EXPECT_EQ(t.lines()[1], "overlong ?? surrogate ???");
  EXPECT_NO_THROW((void)nlohmann::json(t.lines()).dump());
}

}  // namespace
}  // namespace gs

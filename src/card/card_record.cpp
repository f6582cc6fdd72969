// Card record (card_record.h): the field table of card_fields.h written and read as TOML.
#include "card/card_record.h"

#include <sstream>
#include <toml++/toml.h>

#include "card/amd_lib_card.h"
#include "card/card_fields.h"
#include "card/nvml_card.h"
#include "sys/forked_call.h"

namespace gs {

namespace {

/// Where the library readers file their issues: these travel in the record, so a replay says
/// what the captured machine's NVML said, and the forked read hands them back.
bool library_issue(const detection_issue& i) {
  return i.source == "NVML" || i.source == "libdrm_amdgpu" || i.source == "rocm-smi";
}

/// The library reads themselves, in the forked child.
void read_card_libraries(machine_facts& facts) {
  detect_nvml_cards(facts);
  detect_amd_lib_cards(facts);
}

}  // namespace

std::string card_record_text(const machine_facts& facts, bool identifiers) {
  toml::array gpus;
  for (const gpu_info& g : facts.gpus) {
    const card_state& c = g.card;
    // Only what a library said: sysfs figures replay from the tree's own files.
    if (c.source.find("nvml") == std::string::npos && c.source.find("libdrm") == std::string::npos &&
        c.source.find("rocm-smi") == std::string::npos)
      continue;
    toml::table t{{"pci_address", g.pci_address}};
    for (const card_text_field& f : card_text_fields())
      if (!(c.*f.member).empty()) t.insert_or_assign(f.key, c.*f.member);
    for (const card_number_field& f : card_number_fields())
      if (auto v = card_number(c, f)) t.insert_or_assign(f.key, *v);
    for (const card_flag_field& f : card_flag_fields())
      if (auto v = c.*f.member) t.insert_or_assign(f.key, *v);
    if (c.throttle_reasons) {
      toml::array r;
      for (const std::string& s : *c.throttle_reasons) r.push_back(s);
      t.insert_or_assign("throttle_reasons", r);
    }
    if (identifiers && !c.processes.empty()) {
      toml::array ps;
      for (const card_process& p : c.processes)
        ps.push_back(toml::table{{"pid", int64_t(p.pid)}, {"used_bytes", double(p.used_bytes)}, {"name", p.name}});
      t.insert_or_assign("process", ps);
    }
    if (!c.firmware.empty()) {
      toml::array fw;
      for (const card_firmware& f : c.firmware)
        fw.push_back(toml::table{{"name", f.name}, {"version", int64_t(f.version)}, {"feature", int64_t(f.feature)}});
      t.insert_or_assign("firmware", fw);
    }
    gpus.push_back(std::move(t));
  }
  toml::array issues;
  for (const detection_issue& i : facts.issues)
    if (library_issue(i)) issues.push_back(toml::table{{"source", i.source}, {"message", i.message}});
  if (gpus.empty() && issues.empty()) return {};
  toml::table doc;
  if (!gpus.empty()) doc.insert_or_assign("gpu", gpus);
  if (!issues.empty()) doc.insert_or_assign("issue", issues);
  std::ostringstream out;
  out << "# gpustack card record: what NVML / libdrm_amdgpu said about each GPU when the snapshot\n"
      << "# was taken (docs/snapshot.md). `check --sysroot` reads it instead of the libraries.\n\n"
      << doc << "\n";
  return out.str();
}

bool apply_card_record(std::string_view text, machine_facts& facts, std::string* err) {
  toml::table doc;
  try {
    doc = toml::parse(text, std::string(kCardRecordPath));
  } catch (const toml::parse_error& e) {
    std::ostringstream m;
    m << e.description() << " (line " << e.source().begin.line << ", column " << e.source().begin.column << ")";
    *err = m.str();
    return false;
  }
  if (const toml::array* issues = doc["issue"].as_array())
    for (const toml::node& n : *issues)
      if (const toml::table* t = n.as_table())
        facts.issues.push_back({(*t)["source"].value_or(std::string()), (*t)["message"].value_or(std::string())});
  const toml::array* gpus = doc["gpu"].as_array();
  if (!gpus) return true;
  for (const toml::node& n : *gpus) {
    const toml::table* t = n.as_table();
    if (!t) continue;
    std::string addr = (*t)["pci_address"].value_or(std::string());
    for (gpu_info& g : facts.gpus) {
      if (g.pci_address != addr || addr.empty()) continue;
      card_state& c = g.card;
      for (const card_text_field& f : card_text_fields())
        if (auto v = (*t)[f.key].value<std::string>()) c.*f.member = *v;
      for (const card_number_field& f : card_number_fields())
        if (auto v = (*t)[f.key].value<double>()) set_card_number(c, f, *v);
      for (const card_flag_field& f : card_flag_fields())
        if (auto v = (*t)[f.key].value<bool>()) c.*f.member = *v;
      if (const toml::array* r = (*t)["throttle_reasons"].as_array()) {
        c.throttle_reasons.emplace();
        for (const toml::node& s : *r)
          if (auto v = s.value<std::string>()) c.throttle_reasons->push_back(*v);
      }
      if (const toml::array* ps = (*t)["process"].as_array())
        for (const toml::node& p : *ps)
          if (const toml::table* pt = p.as_table())
            c.processes.push_back({uint32_t((*pt)["pid"].value_or(int64_t(0))),
                                   uint64_t((*pt)["used_bytes"].value_or(0.0)), (*pt)["name"].value_or(std::string())});
      if (const toml::array* fw = (*t)["firmware"].as_array())
        for (const toml::node& f : *fw)
          if (const toml::table* ft = f.as_table())
            c.firmware.push_back({(*ft)["name"].value_or(std::string()), uint32_t((*ft)["version"].value_or(int64_t(0))),
                                  uint32_t((*ft)["feature"].value_or(int64_t(0)))});
    }
  }
  return true;
}

void detect_card_state(const sysroot& sys, machine_facts& facts) {
  if (sys.is_live()) {
    bool any = false;  // no child at all on a machine without such a GPU
    for (const gpu_info& g : facts.gpus) any = any || g.vendor == "nvidia" || (g.vendor == "amd" && g.render_minor >= 0);
    if (!any) return;
    // The reads run in a child with a deadline (sys/forked_call.h): NVML can hang on a broken
    // driver, and `check` must answer anyway. The child hands back a card record, identifiers
    // included (the report leaves them out unless asked), and its issues.
    forked_result r = run_forked(
        [&] {
          machine_facts copy = facts;
          copy.issues.clear();
          read_card_libraries(copy);
          return card_record_text(copy, true);
        },
        kCardReadDeadlineS);
    std::string err;
    if (!r.ok) facts.issues.push_back({"card state", "the vendor-library reads (NVML, libdrm_amdgpu) gave nothing: " + r.error});
    else if (!apply_card_record(r.text, facts, &err)) facts.issues.push_back({"card state", err});
    return;
  }
  auto text = sys.read_text(kCardRecordPath);
  if (!text) return;  // a tree captured before issue 18, or a machine with nothing to record
  std::string err;
  if (!apply_card_record(*text, facts, &err)) facts.issues.push_back({std::string(kCardRecordPath), err});
}

}  // namespace gs

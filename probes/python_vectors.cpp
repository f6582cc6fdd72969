// Golden vectors from the Python steps (python_vectors.h): the quant module's comparer
// (src/quant/golden.h) recomputes every case with the CPU references in kernels/ref/ from the
// same inputs (NF4: quantize_4bit's packed bytes and absmax bit for bit, with the one tolerance
// the CUDA fast-math reciprocal needs; int8: CA, SCA, outlier columns, the int32 product, the
// fp16 dequant). A mismatch fails the step even when the script's own checks passed.
#include "probes/python_vectors.h"

#include <fstream>

#include "quant/golden.h"

namespace gs {
namespace {

/// "py.bnb.nf4" -> "py-bnb-nf4-vectors.json"
std::string file_name_for(const std::string& id) {
  std::string n = id;
  for (char& c : n)
    if (c == '.') c = '-';
  return n + "-vectors.json";
}

/// "nf4 bs64 [64, 128] packed_u8: 8190 of 8192 match, first at 17" for the first bad field.
std::string first_problem(const golden_report& rep) {
  if (rep.malformed()) return "the vectors are malformed: " + rep.errors.front().describe();
  for (const golden_case_result& c : rep.cases)
    for (const golden_field_result& f : c.fields)
      if (!f.ok())
        return c.label + " " + f.field + ": " + std::to_string(f.matching + f.tolerated) + " of " +
               std::to_string(f.elements) + " match, first mismatch at element " + std::to_string(f.first_mismatch);
  return {};
}

}  // namespace

void handle_golden_vectors(const probe_context& ctx, probe_result& r) {
  nlohmann::json golden = std::move(r.data["golden"]);
  r.data.erase("golden");
  if (!golden.is_object() || !golden.contains("cases") || !golden["cases"].is_array()) {
    r.data["reference_check"] = {{"status", "error"}, {"why", "the script's golden vectors are not {meta, cases}"}};
    if (r.outcome == status::pass) r.outcome = status::error;
    return;
  }
  std::string text = golden.dump();
  if (auto it = ctx.options.find("vectors_dir"); it != ctx.options.end() && !it->second.empty()) {
    std::string path = it->second + "/" + file_name_for(r.id);
    std::ofstream out(path, std::ios::binary);
    out << text << "\n";
    if (out) r.data["vectors_file"] = path;
    else r.data["vectors_file_error"] = "cannot write " + path;
  }
  golden_report rep = compare_golden(text);
  nlohmann::json summary = rep.to_json();
  summary.erase("meta");  // the source line is already in data.versions
  summary["status"] = rep.malformed() ? "malformed" : rep.all_match() ? "match" : "mismatch";
  summary["reference"] = "gpustack kernels/ref (src/quant/golden.h)";
  r.data["reference_check"] = summary;
  if (rep.all_match() && !rep.malformed()) {
    if (r.outcome == status::pass) r.detail += "; bit-exact with gpustack's reference on " + std::to_string(rep.cases.size()) + " case(s)";
    return;
  }
  std::string why = first_problem(rep);
  if (r.outcome == status::pass || r.outcome == status::warn) {
    r.outcome = rep.malformed() ? status::error : status::fail;
    r.detail = (rep.malformed() ? "cannot compare with gpustack's reference: " : "bitsandbytes disagrees with gpustack's reference: ") +
               why + " (the script's own checks passed: " + r.detail + ")";
  } else {
    r.detail += "; also against gpustack's reference: " + why;
  }
}

}  // namespace gs

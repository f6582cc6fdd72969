// `gpustack fix triton-stages`: cap the num_stages of every Triton launch in one Python
// environment, in a way that survives reinstalling Triton or flash-linear-attention. Two files go
// into that interpreter's purelib (its site-packages, asked from the interpreter itself):
//   gpustack_triton_stages.py    the embedded probes/python/gpustack_triton_stages.py (a lazy
//                                import hook that wraps JITFunction.run when triton is imported)
//   gpustack_triton_stages.pth   `import gpustack_triton_stages ...; activate(N)`, which site.py
//                                runs at every interpreter start
// Both begin with kStagesMarker; --remove deletes a file only when it does, and refuses files
// at those paths that gpustack did not write. Why and how: docs/fix.md.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

inline constexpr std::string_view kStagesMarker = "# gpustack-managed: triton-stages";
inline constexpr std::string_view kStagesModule = "gpustack_triton_stages.py";
inline constexpr std::string_view kStagesPth = "gpustack_triton_stages.pth";

struct fix_file {
  std::string path;
  std::string content;
};

/// What one interpreter says about itself (python_site_of).
struct python_site {
  std::string interpreter;
  std::string version;       ///< "3.12.3"
  std::string purelib;       ///< where the files go
  bool on_sys_path = false;  ///< purelib is a site dir this interpreter processes .pth files in
};

/// Runs `interpreter -I -c ...` (isolated: no PYTHONPATH, no user site; 20 s limit) and reads
/// its purelib and whether site.py processes it (site.py must run: it selects the venv).
std::optional<python_site> python_site_of(const std::string& interpreter, std::string* error);

/// The two files for a cap of `max_stages` (>= 1) in `site_dir`.
std::vector<fix_file> triton_stages_files(const std::string& site_dir, int max_stages);

/// Whether a file exists at `path`, and whether it starts with kStagesMarker.
struct file_state {
  bool exists = false;
  bool ours = false;
};
file_state managed_state(const std::string& path);

/// Writes the files (each through a temp file and rename). A file at one of the paths that
/// gpustack did not write stops everything before anything is written; the error says which.
bool write_fix_files(const std::vector<fix_file>& files, std::string* error);

/// What --remove finds in `site_dir`: ours (to delete, including Python's own bytecode of the
/// module under __pycache__), foreign (refused) files.
struct removal_plan {
  std::vector<std::string> remove;
  std::vector<std::string> refused;
};
removal_plan plan_removal(const std::string& site_dir);
/// Deletes plan.remove; false (with the first error) when one could not be deleted.
bool remove_files(const removal_plan& plan, std::string* error);

}  // namespace gs

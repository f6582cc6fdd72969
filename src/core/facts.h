// What detection found about a machine: the single model that detectors fill, rules read and
// the report serialises. Plain data; every field has a "not known" value (empty / 0 / nullopt)
// because on a broken machine any read can fail. Notes on how a value was obtained go in
// `detection_issue`s, never in exceptions.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gs {

/// Something detection could not read or parse: becomes a finding-like note, never a crash.
struct detection_issue {
  std::string source;   ///< the file or library concerned ("/sys/class/kfd/kfd/topology/nodes/1/properties")
  std::string message;  ///< what went wrong ("EPERM: hidden by the container's device cgroup")
};

struct host_info {
  std::string os_id;           ///< os-release ID ("debian", "ubuntu")
  std::string os_version;      ///< os-release VERSION_ID ("24.04")
  std::string os_pretty;       ///< os-release PRETTY_NAME
  std::string kernel;          ///< /proc/sys/kernel/osrelease
  std::string machine;         ///< "x86_64"
  std::string cpu_model;       ///< /proc/cpuinfo "model name"
  int cpu_logical = 0;         ///< processors in /proc/cpuinfo
  int cpu_physical_cores = 0;  ///< distinct (physical id, core id) pairs, 0 when unknown
  uint64_t ram_total_bytes = 0, ram_available_bytes = 0;
  uint64_t swap_total_bytes = 0, swap_free_bytes = 0;
  uint64_t zram_bytes = 0;     ///< size of zram devices among /proc/swaps
  bool in_container = false;
  std::string container_kind;  ///< "docker", "podman", "lxc", "kubernetes", "wsl", ""
  // Identity (report/identity.cpp): only ever used to redact, never printed unless --include-identifiers.
  std::string hostname;        ///< /proc/sys/kernel/hostname or /etc/hostname
  std::string user;            ///< USER / LOGNAME / the passwd entry of this uid
  std::string home;            ///< HOME / the passwd entry's home directory
};

/// One process holding memory on a GPU (NVML's running compute processes). The pid and name
/// identify the user's work, so the report carries them only with --include-identifiers.
struct card_process {
  uint32_t pid = 0;
  uint64_t used_bytes = 0;  ///< 0 when the driver does not say (MIG without privileges)
  std::string name;         ///< executable path from NVML, "" when unknown
};

/// A firmware block's loaded version (AMD: libdrm_amdgpu's amdgpu_query_firmware_version).
struct card_firmware {
  std::string name;      ///< "mes", "smc", "psp_sos", "rlc", ...
  uint32_t version = 0;  ///< as the kernel reports it (packed; formats differ per block)
  uint32_t feature = 0;  ///< the feature version beside it
};

/// The card's own state when `check` ran (issue 18): clocks, power, temperature, throttling,
/// memory held, errors, firmware. NVIDIA from NVML (card/nvml_card.cpp), AMD from the amdgpu
/// sysfs files (detect/amd_card.cpp) and libdrm_amdgpu. Every value is optional: a library that
/// is missing, a call the card does not support or a file the container hides leaves it unset.
struct card_state {
  std::string source;  ///< "nvml", "sysfs", "sysfs+libdrm", "" when nothing was read
  std::optional<double> clock_sm_mhz, clock_sm_max_mhz;    ///< shader / graphics clock (AMD sclk)
  std::optional<double> clock_mem_mhz, clock_mem_max_mhz;  ///< memory clock (AMD mclk)
  std::optional<double> power_w;                  ///< board power draw now
  std::optional<double> power_limit_w;            ///< the cap in force
  std::optional<double> power_default_limit_w;    ///< the cap the card ships with
  std::optional<double> temp_c;                   ///< GPU (edge/die) temperature
  std::optional<int> pstate;                      ///< NVIDIA performance state: 0 = P0 (fastest) .. 15
  std::string perf_level;                         ///< AMD power_dpm_force_performance_level ("auto", "low", ...)
  std::optional<double> busy_percent;             ///< utilisation now (NVML gpu %, amdgpu gpu_busy_percent)
  std::optional<std::vector<std::string>> throttle_reasons;  ///< decoded clock-event reasons; empty = none
  std::optional<int> pcie_gen, pcie_max_gen;      ///< the GPU's own link as the driver sees it
  std::optional<int> pcie_lanes, pcie_max_lanes;
  std::optional<double> vram_used_bytes, vram_total_bytes;
  std::optional<int> compute_processes;           ///< processes holding a compute context on it
  std::vector<card_process> processes;            ///< their pids and names (report: identifiers only)
  std::optional<bool> ecc_enabled;
  std::optional<double> ecc_uncorrected;          ///< volatile (since boot) uncorrected ECC errors
  std::optional<bool> mig_enabled;                ///< NVIDIA MIG mode in force
  std::optional<bool> persistence_mode;           ///< NVIDIA persistence mode on (nvidia-smi's Persistence-M)
  std::string compute_mode;                       ///< NVIDIA compute mode: Default, Exclusive_Process, Prohibited
  std::string compute_partition;                  ///< AMD current_compute_partition ("SPX", "CPX")
  std::string vbios;                              ///< VBIOS version ("113-D7090100-100", "96.00.A5.00.01")
  std::vector<card_firmware> firmware;
};

/// A GPU as the kernel sees it. AMD: KFD topology + DRM + PCI. NVIDIA: /proc/driver/nvidia + PCI.
struct gpu_info {
  std::string vendor;           ///< "amd" | "nvidia"
  std::string arch;             ///< "gfx1201" (from KFD gfx_target_version, immune to overrides) | "sm_90"
  std::string name;             ///< product name ("Radeon AI PRO R9700", "NVIDIA H200")
  std::string pci_id;           ///< "1002:7551"
  std::string pci_revision;     ///< "c0"
  std::string pci_address;      ///< "0000:03:00.0"
  uint64_t vram_bytes = 0;
  int wave_size = 0;            ///< 32 on RDNA and NVIDIA, 64 on CDNA
  int compute_units = 0;        ///< CUs (AMD) or SMs (NVIDIA), 0 when unknown
  std::string source;           ///< how it was found: "kfd", "proc-nvidia", "pci"
  // AMD only
  uint32_t gfx_target_version = 0;  ///< KFD decimal MMmmss (120001)
  int kfd_node = -1;                ///< KFD topology node index (CPU nodes counted)
  int render_minor = -1;            ///< /dev/dri/renderD<minor>
  std::string family;               ///< "rdna4", "rdna3", "cdna3", ...
  // The PCIe path from the root complex to the GPU (detect/pci_bus.h read_pcie_path): the
  // narrowest link on it as trained now, and the narrowest any link on it could train at. Width is
  // fixed once trained, so x4 of x16 means a slot, riser or seating problem; speed drops at idle
  // (link power management) and says little without load. 0 = unknown (no sysfs link files).
  int pcie_width = 0, pcie_max_width = 0;
  double pcie_gts = 0, pcie_max_gts = 0;  ///< GT/s per lane: 2.5, 5, 8, 16, 32, 64
  std::string pcie_narrowest;             ///< the device whose link is narrowest ("0000:01:00.0")
  // Where the GPU sits among the others (detect/gpu_topology.h; issue 20): the host bridge its
  // PCIe tree hangs off ("pci0000:00"), the bridges from there down to it (root port first), its
  // NUMA node (-1 unknown or none), its IOMMU group's type ("identity": passthrough; "DMA",
  // "DMA-FQ": translated; "" no group, so no IOMMU) and its AMD XGMI hive ("" none).
  std::string pcie_root;
  std::vector<std::string> pcie_bridges;
  int numa_node = -1;
  std::string iommu_group_type;
  std::string xgmi_hive;
  card_state card;                  ///< clocks, power, throttling, memory held, errors, firmware
  // NVIDIA only
  std::string compute_capability;   ///< "9.0"
  // Identifiers: redacted (stable hash) unless --include-identifiers.
  std::string serial;               ///< NVIDIA UUID, AMD unique_id
};

/// Can the current process open a device node the GPU runtime needs.
struct device_access {
  std::string path;      ///< "/dev/kfd", "/dev/dri/renderD128", "/dev/nvidia0"
  bool exists = false;
  bool ok = false;       ///< opened read-write
  std::string error;     ///< "EACCES", "EPERM", "ENOENT", ""
  std::string group;     ///< owning group name ("render") or gid as text
  bool user_in_group = false;
};

struct library_info {
  std::string name;      ///< "libamdhip64", "libcuda", "libnvrtc", ...
  std::string path;      ///< real path of the file found
  std::string soname;    ///< ELF DT_SONAME when readable
  std::string version;   ///< from the file name or a version file, "" when unknown
  std::string origin;    ///< "rocm", "system", "torch", "pip-nvidia", "ld_library_path"
};

struct rocm_install {
  std::string path;      ///< "/opt/rocm-7.2.0"
  std::string version;   ///< "7.2.0"
  bool active = false;   ///< the one /opt/rocm or ROCM_PATH points to
};

struct stack_info {
  // AMD kernel driver
  bool amdgpu_loaded = false;
  std::string amdgpu_initstate;     ///< "live"
  std::string amdgpu_version;       ///< DKMS module version, "" for the in-kernel driver
  // NVIDIA kernel driver
  std::string nvidia_driver;        ///< "580.159.04"
  bool nvidia_open_module = false;
  // ROCm user space
  std::vector<rocm_install> rocm_installs;
  std::string rocm_version;         ///< the active install's version
  std::string hip_runtime_source;   ///< path of the libamdhip64 Python/torch would load
  // CUDA
  std::string cuda_toolkit_version; ///< "13.0.88" from version.json / nvcc
  std::string cuda_toolkit_path;
  std::string cuda_driver_api;      ///< "13.0" (from the driver's libcuda when known)
  std::vector<library_info> libraries;
};

struct python_package {
  std::string name;       ///< as in METADATA ("flash-linear-attention")
  std::string version;    ///< "0.5.0", "2.11.0+rocm7.2"
  std::string location;   ///< site-packages directory
  std::string installer;  ///< "pip", "uv", "conda", ""
  bool editable = false;
};

struct python_info {
  bool found = false;
  std::string interpreter;        ///< path of python
  std::string version;            ///< "3.12.3"
  std::string env_kind;           ///< "venv", "uv", "conda", "system"
  std::string prefix;             ///< the environment's root
  std::string how_found;          ///< "--python", "--venv", "VIRTUAL_ENV", "./.venv", "PATH"
  std::vector<std::string> site_packages;
  std::map<std::string, python_package> packages;  ///< key: PEP 503 normalised name ("flash-linear-attention")
  std::string torch_cuda;         ///< torch/version.py cuda ("13.0"), "" when None
  std::string torch_hip;          ///< torch/version.py hip ("7.2.26015"), "" when None
  /// Pasted facts only: whether the text said what torch was built for ("+cu124", "+cpu",
  /// collect_env's "CUDA used to build PyTorch"); without it torch.build is unknown, not "cpu".
  bool torch_build_known = false;
};

/// Device code one library carries (src/inspect): its code units (a fatbin container or an
/// offload bundle, i.e. roughly one translation unit) grouped by the set of targets each holds.
struct device_code_unit {
  std::vector<std::string> codes;  ///< "sm_90", "sm_90a", "compute_90", "gfx90a:xnack+", "gfx12-generic"
  int count = 0;                   ///< units with exactly this set
};
struct device_code_library {
  std::string path;                ///< the library file
  std::string package;             ///< the distribution it belongs to ("torch"), "" when none
  std::vector<device_code_unit> units;  ///< empty: no GPU code
  std::string error;               ///< unreadable or corrupt ("" when it parsed)
};

/// What a container spec says about the container it makes (`gpustack check --container`): read
/// from a Dockerfile, a compose file, a `docker run`/`podman run` line or a Kubernetes manifest by
/// src/container/, and read by rules as `container.*` facts beside the host's. The image's own
/// stack (its ROCm, CUDA, torch) also fills the stack and Python facts of the container's facts, so
/// every rule about those versions applies to the image as it would to a machine.
struct container_info {
  std::string kind;          ///< "dockerfile", "compose", "run", "kubernetes"
  std::string name;          ///< service, container or workload name; "" when the spec gives none
  std::string engine;        ///< run lines: "docker", "podman", "nerdctl"; "" otherwise
  int line = 0;              ///< 1-based line of the spec where this container starts
  std::string image;         ///< the image it runs (a Dockerfile: its last stage's FROM)
  std::string image_rocm;    ///< ROCm of the image, from its tag or its ENV ("6.2.4"), "" unknown
  std::string image_cuda;    ///< CUDA of the image ("12.4.1"), "" unknown
  std::string image_python;  ///< Python of the image ("3.10"), "" unknown
  std::string image_torch;   ///< torch the image ships ("2.3.0"), "" unknown
  std::string image_os, image_os_version;  ///< the image's distribution from its name ("ubuntu", "22.04"), "" unknown
  std::string vendor;        ///< "amd", "nvidia": what the image, devices, GPU requests and env say; "" unknown
  /// Whether the spec says how the container runs (devices, groups, IPC, GPUs): false for a bare
  /// Dockerfile, whose runtime settings live in the `docker run` line or compose file that uses it.
  bool runtime_known = false;
  std::vector<std::string> devices;  ///< host device paths passed in ("/dev/kfd", "/dev/dri/renderD128")
  std::vector<std::string> groups;   ///< --group-add / group_add / supplementalGroups, as written
  std::string user;                  ///< USER / --user / runAsUser as written; "" = the image's default
  bool privileged = false;
  bool ipc_host = false;             ///< --ipc=host, ipc: host, hostIPC: true
  std::optional<double> shm_bytes;   ///< --shm-size, shm_size, a memory emptyDir on /dev/shm (bytes)
  std::string seccomp;               ///< "unconfined", a profile, "" = the runtime's default
  std::string gpu_request;           ///< how NVIDIA GPUs are requested, as written ("--gpus all"); "" none
  std::string runtime;               ///< --runtime / runtime: / runtimeClassName
  std::string k8s_gpu_resource;      ///< "nvidia.com/gpu", "amd.com/gpu" (limits or requests)
  std::map<std::string, std::string> env;   ///< ENV, environment:, -e, env: (the image's own ENV is not known)
  std::map<std::string, std::string> pip;   ///< packages `RUN pip install` names: name -> pinned version ("" unpinned)
  std::string torch_index;           ///< where those lines install torch from: "rocm6.2", "cu121", "cpu", "pypi"; "" none
  std::vector<std::string> pip_requirements;  ///< requirement files those lines install (-r FILE): their pins are not seen
  bool pip_constrained = false;      ///< a constraints file (-c, PIP_CONSTRAINT) holds what they may change
  std::vector<std::string> typos;    ///< keys and device paths that look misspelt ("device: (devices?)", "/dev/fdk (/dev/kfd?)")
  std::vector<std::string> notes;    ///< what the spec leaves unread ("env_file .env not read")
};

/// How two GPUs reach each other, in nvidia-smi topo -m's words (detect/gpu_topology.h).
struct gpu_pair_link {
  int a = 0, b = 0;  ///< indexes into machine_facts::gpus
  std::string kind;  ///< "XGMI", "PIX", "PXB", "PHB", "NODE", "SYS"
};

/// The machine's GPUs as a multi-GPU job sees them; empty with fewer than two GPUs.
struct topology_info {
  std::vector<gpu_pair_link> pairs;
  std::string worst;                      ///< the slowest kind over the pairs
  int numa_nodes = 0;                     ///< distinct NUMA nodes the GPUs are on (0 unknown)
  /// The GPUs' IOMMU from their groups: "translated" (any group translates DMA), "passthrough"
  /// (every group is identity), "off" (no GPU has a group), "" undecided.
  std::string iommu;
  std::vector<std::string> acs_redirect;  ///< bridges above a GPU whose ACS redirects peer traffic
  bool acs_read = false;                  ///< their extended config space was readable (root only)
};

/// How complete the facts are. Live detection and a --sysroot capture look at the whole machine,
/// so a fact they did not find is absent. Facts read from pasted text (`gpustack explain`) are
/// partial: what the paste does not mention is unknown, not absent, except for the kinds of
/// fact the paste shows in full (a whole `env` dump, a whole `pip list`).
struct facts_coverage {
  bool partial = false;
  bool env_complete = false;       ///< the paste holds a whole environment dump
  bool packages_complete = false;  ///< the paste holds a whole package list
  bool gpus_complete = false;      ///< the paste holds a tool's list of the GPUs (rocminfo, nvidia-smi)
  bool devices_listed = false;     ///< the paste holds `ls -l` of the GPU device nodes
};

/// Everything `check` knows. Detectors fill it; rules and reports only read it.
struct machine_facts {
  facts_coverage coverage;
  host_info host;
  std::vector<gpu_info> gpus;
  std::vector<device_access> access;
  stack_info stack;
  python_info python;
  std::map<std::string, std::string> env;  ///< relevant environment variables, raw values (redaction happens at output)
  /// Applications outside the Python env, by name, with the version they print about themselves:
  /// "ollama" -> "0.5.7", "llama.cpp" -> "4404" (its build number), "comfyui" -> "0.3.10",
  /// "adrenalin" -> "24.12.1" (AMD's Windows driver). Only explain fills it, from pastes.
  std::map<std::string, std::string> apps;
  /// A component the reporter says works at one version and fails at another (explain only,
  /// from prose): "kernel", "nvidia-driver", "amd-driver", "rocm", "cuda", "torch", "llama.cpp",
  /// "ollama", "vllm", "mesa", "koboldcpp"; the versions as written ("6.8", "b1292").
  struct regression_told {
    std::string component, good, bad;
  } regression;
  std::vector<detection_issue> issues;
  std::vector<device_code_library> device_code;  ///< GPU libraries of the Python env (filled by check)
  topology_info topology;
  /// Set only while `check --container` evaluates the rules for one container of a spec.
  std::optional<container_info> container;
};

}  // namespace gs

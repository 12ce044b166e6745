#include "probes/inventory.h"

#include <dlfcn.h>
#include <infiniband/verbs.h>
#include <mpi.h>
#include <sys/utsname.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/text.h"
#include "probes/dynlib.h"
#include "probes/gpu/gpu_health.h"
#include "probes/gpu/nvml.h"
#include "probes/ib/ports.h"
#include "probes/pci.h"
#include "probes/topology.h"

extern char** environ;

namespace ibgpu {

namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0)
      if (auto colon = line.find(':'); colon != std::string::npos)
        return std::string(trim(std::string_view(line).substr(colon + 1)));
  return "";
}

// rdma-core names its library after itself: libibverbs.so.1.14.44.0 is rdma-core 44.0.
void add_rdma_core_version(std::map<std::string, std::string>& versions) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&ibv_get_device_list), &info) == 0 || !info.dli_fname) return;
  std::error_code ec;
  const auto real = std::filesystem::canonical(info.dli_fname, ec);
  if (ec) return;
  const std::string file = real.filename().string();
  const auto so = file.find(".so.");
  if (so == std::string::npos) return;
  const std::string lib_version = file.substr(so + 4);
  versions["libibverbs"] = lib_version;
  // 1.14.44.0 -> 44.0
  if (auto dot = lib_version.find('.', lib_version.find('.') + 1); dot != std::string::npos)
    versions["rdma_core"] = lib_version.substr(dot + 1);
}

void add_mpi_version(std::map<std::string, std::string>& versions) {
  std::array<char, MPI_MAX_LIBRARY_VERSION_STRING> text{};
  int len = 0;
  if (MPI_Get_library_version(text.data(), &len) != MPI_SUCCESS) return;
  std::string s(text.data(), static_cast<std::size_t>(len));
  if (auto comma = s.find(','); comma != std::string::npos) s.resize(comma);
  versions["mpi"] = trim(s);
}

void add_nccl_version(std::map<std::string, std::string>& versions) {
  std::vector<std::string> candidates{"libnccl.so.2"};
  for (const char* var : {"NCCL_HOME", "CUDA_HOME"})
    if (const char* dir = std::getenv(var)) {
      candidates.push_back(std::string(dir) + "/lib/libnccl.so.2");
      candidates.push_back(std::string(dir) + "/lib64/libnccl.so.2");
    }
  candidates.push_back("/usr/local/cuda/lib64/libnccl.so.2");
  DynLib nccl(candidates);
  if (!nccl.ok()) return;
  using GetVersion = int (*)(int*);
  if (auto get = nccl.symbol<GetVersion>("ncclGetVersion")) {
    int code = 0;
    if (get(&code) == 0) versions["nccl"] = decode_nccl_version(code);
  }
}

}  // namespace

std::optional<RdmaPorts> list_rdma_ports(const Sysfs& sysfs) {
  std::optional<RdmaPorts> out;
  for (const Sysfs& root : {sysfs, Sysfs("/sys")}) {
    if (!root.exists("class/infiniband")) continue;
    if (!out) out.emplace();
    for (const Hca& hca : read_hcas(root)) {
      std::vector<int>& ports = (*out)[hca.name];
      for (const IbPort& port : hca.ports)
        if (std::find(ports.begin(), ports.end(), port.port) == ports.end()) ports.push_back(port.port);
      std::sort(ports.begin(), ports.end());
    }
  }
  return out;
}

std::string missing_hca(const std::vector<std::string>& specs, const RdmaPorts& ports, const std::string& host) {
  for (const auto& spec : specs) {
    const auto colon = spec.rfind(':');
    const std::string device = spec.substr(0, colon);
    const auto it = ports.find(device);
    if (it == ports.end()) {
      std::vector<std::string> names;
      for (const auto& [name, _] : ports) names.push_back(name);
      std::sort(names.begin(), names.end(), natural_less);
      const std::string has = join(names, ", ");
      return "--hca " + spec + ": no such RDMA device on host " + host + " (it has " + (has.empty() ? "none" : has) +
             ")";
    }
    // A port that is not a number is parse_device_spec's to refuse, with its own words.
    int port = 1;
    if (colon != std::string::npos) {
      const std::string text = spec.substr(colon + 1);
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
      if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) continue;
    }
    if (!it->second.empty() && std::find(it->second.begin(), it->second.end(), port) == it->second.end()) {
      std::string has;
      for (int p : it->second) has += (has.empty() ? "" : ", ") + std::to_string(p);
      return "--hca " + spec + ": " + device + " on host " + host + " has no port " + std::to_string(port) +
             " (it has " + (it->second.size() == 1 ? "port " : "ports ") + has + ")";
    }
  }
  return "";
}

std::string hca_preflight(const std::vector<std::string>& specs, const Sysfs& sysfs, const std::string& host) {
  if (specs.empty()) return "";
  const auto ports = list_rdma_ports(sysfs);
  return ports ? missing_hca(specs, *ports, host) : "";
}

int count_cpu_list(const std::string& list) {
  auto number = [](const std::string& text) -> std::optional<int> {
    int v = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc{} || ptr != end || text.empty() || v < 0) return std::nullopt;
    return v;
  };
  // The kernel writes parts "N" or "N-M" with N <= M. Anything else is not a cpulist, and a
  // partial count ("0-3x" as 4, "3-1" as -1) would be a wrong number rather than no number.
  int count = 0;
  std::stringstream in(list);
  for (std::string part; std::getline(in, part, ',');) {
    part = std::string(trim(part));
    if (part.empty()) continue;
    const auto dash = part.find('-');
    const auto first = number(part.substr(0, dash));
    const auto last = dash == std::string::npos ? first : number(part.substr(dash + 1));
    if (!first || !last || *last < *first) return 0;
    // No machine has 2^20 CPUs: a larger count (0-2147483647 would overflow) is not a cpulist.
    constexpr int kMaxCpus = 1 << 20;
    if (*last - *first >= kMaxCpus - count) return 0;
    count += *last - *first + 1;
  }
  return count;
}

CpuInfo read_cpu_info(const Sysfs& sysfs) {
  CpuInfo cpu;
  if (auto online = sysfs.read("devices/system/cpu/online")) cpu.logical_cpus = count_cpu_list(*online);
  if (auto nodes = sysfs.read("devices/system/node/online")) cpu.numa_nodes = count_cpu_list(*nodes);
  return cpu;
}

std::map<std::string, std::string> behaviour_env(const char* const* environ_block) {
  std::map<std::string, std::string> kept;
  for (auto p = environ_block; p && *p; ++p) {
    const std::string entry(*p);
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = entry.substr(0, eq);
    auto starts = [&](const char* prefix) { return key.rfind(prefix, 0) == 0; };
    // mpirun passes its own bookkeeping (job ids, daemon URIs) as OMPI_MCA_orte_*, _ess*,
    // _pmix*: launcher internals, not settings anyone chose.
    if (starts("OMPI_MCA_orte_") || starts("OMPI_MCA_ess") || starts("OMPI_MCA_pmix") ||
        starts("OMPI_MCA_initial_wdir"))
      continue;
    if (starts("NCCL_") || starts("UCX_") || starts("OMPI_MCA_")) kept[key] = entry.substr(eq + 1);
  }
  return kept;
}

std::string decode_nccl_version(int code) {
  // Since NCCL 2.9 the code is major*10000 + minor*100 + patch; before, major*1000 + minor*100 + patch.
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? (code % 10000) / 100 : (code % 1000) / 100;
  const int patch = code % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

namespace {

// GPU-HCA affinity and the rail plan. Without NVML's list the PCI bus's GPUs
// stand in, in bus order (NVML's order too), so rails follow the GPUs on a
// node whose driver is missing or broken.
// Which HCAs are rails: those near NVML's GPUs or the bus's (the bus still
// shows a GPU NVML lost, and its HCA is still a rail).
void plan_rails(const Sysfs& sysfs, HostInventory& host, int local_ranks, const char* cuda_visible_devices) {
  const auto on_the_bus = gpu_hca_affinity(sysfs, gpus_on_the_bus(host.pci_gpus), host.hcas);
  if (host.topology.empty()) host.topology = on_the_bus;
  mark_rails(host.hcas, {host.topology, on_the_bus});
  host.rails = rail_plan(host.topology, host.hcas, local_ranks, cuda_visible_devices);
}

}  // namespace

InventoryOutcome collect_inventory(const Sysfs& sysfs, const std::string& host_name, int local_ranks,
                                   const char* cuda_visible_devices) {
  InventoryOutcome out;
  HostInventory& host = out.host;
  host.name = host_name;
  host.cpu = read_cpu_info(sysfs);
  host.cpu.model = cpu_model();
  host.env = behaviour_env(environ);
  if (utsname u{}; uname(&u) == 0) host.versions["kernel"] = u.release;
  add_rdma_core_version(host.versions);
  add_mpi_version(host.versions);
  add_nccl_version(host.versions);

  const Scope scope{{host_name}, {}, {}};

  host.hcas = read_hcas(sysfs);
  if (host.hcas.empty()) {
    out.probes.push_back(skipped(kInventoryRdmaProbe, scope, no_rdma_device_text(sysfs)));
  } else {
    ProbeResult rdma;
    rdma.id = kInventoryRdmaProbe;
    rdma.scope = scope;
    int ports = 0, active = 0;
    for (const auto& hca : host.hcas) {
      rdma.scope.devices.push_back(hca.name);
      for (const auto& port : hca.ports) {
        ++ports;
        active += port.active() ? 1 : 0;
      }
    }
    rdma.metrics[metrics::hca_count] = Metric::of(static_cast<double>(host.hcas.size()));
    rdma.metrics[metrics::port_count] = Metric::of(ports);
    rdma.metrics[metrics::active_port_count] = Metric::of(active);
    out.probes.push_back(std::move(rdma));
  }

  host.pci_gpus = read_pci_gpus(sysfs);
  Nvml nvml;
  if (!nvml.ok()) {
    out.probes.push_back(skipped(kInventoryGpuProbe, scope, nvml.why_not()));
    plan_rails(sysfs, host, local_ranks, cuda_visible_devices);
    return out;
  }
  ProbeResult gpu;
  gpu.id = kInventoryGpuProbe;
  gpu.scope = scope;
  try {
    GpuSystem sys = nvml.query();
    host.gpus = std::move(sys.gpus);
    if (!sys.driver_version.empty()) host.versions["nvidia_driver"] = sys.driver_version;
    if (sys.cuda_driver_version)
      host.versions["cuda_driver"] = std::to_string(*sys.cuda_driver_version / 1000) + "." +
                                     std::to_string((*sys.cuda_driver_version % 1000) / 10);
    for (const auto& g : host.gpus)
      gpu.scope.devices.push_back(g.pci_bus_id.empty() ? gpu_name(g.index) : g.pci_bus_id);
    // A GPU NVML counts but cannot describe stays listed (its health result says more).
    for (const auto& [index, failure] : sys.failures)
      gpu.params["gpu_errors"][gpu_name(index)] = failure.call + ": " + failure.text;
    host.topology = gpu_hca_affinity(sysfs, host.gpus, host.hcas);
    gpu.metrics[metrics::gpu_count] = Metric::of(static_cast<double>(host.gpus.size()));
  } catch (const std::exception& e) {
    gpu.status = ProbeStatus::error;
    gpu.error = e.what();
  }
  out.probes.push_back(std::move(gpu));
  plan_rails(sysfs, host, local_ranks, cuda_visible_devices);
  return out;
}

}  // namespace ibgpu

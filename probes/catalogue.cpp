#include "probes/catalogue.h"

#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "probes/collective/nccl_allreduce.h"
#include "probes/gpu/cuda_probes.h"
#include "probes/gpu/nvml.h"
#include "probes/ib/ports.h"
#include "probes/kernel_log.h"

namespace ibgpu {

namespace {

std::optional<std::string> unless_empty(std::string why) {
  return why.empty() ? std::nullopt : std::optional<std::string>(std::move(why));
}

std::optional<std::string> why_no_rdma(const Sysfs& sysfs, bool need_active) {
  const auto hcas = read_hcas(sysfs);
  if (hcas.empty()) return no_rdma_device_text(sysfs);
  if (!need_active) return std::nullopt;
  for (const auto& hca : hcas)
    for (const auto& port : hca.ports)
      if (port.active()) return std::nullopt;
  return "no active RDMA port under " + sysfs.path("class/infiniband").string();
}

std::optional<std::string> why_no_kernel_log() {
  const int fd = ::open(kKmsgPath, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::string("cannot read ") + kKmsgPath + ": " + std::strerror(errno);
  ::close(fd);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> why_not_here(const ProbeKind& kind, const Sysfs& sysfs) {
  switch (kind.transport) {
    case Transport::none:
    case Transport::mpi:
      return std::nullopt;
    case Transport::sysfs:
      return why_no_rdma(sysfs, false);
    case Transport::verbs:
      return why_no_rdma(sysfs, true);
    case Transport::nvml: {
      const Nvml nvml;
      return nvml.ok() ? std::nullopt : std::optional<std::string>(nvml.why_not());
    }
    case Transport::cuda:
      return unless_empty(why_no_cuda_probes());
    case Transport::nccl:
      return unless_empty(NcclAllReduce(nullptr, 0, 1, 0, Seconds(1)).unavailable_reason());
    case Transport::kernel_log:
      return why_no_kernel_log();
  }
  return std::nullopt;
}

}  // namespace ibgpu

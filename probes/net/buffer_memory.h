#pragma once
// Where a verbs endpoint's buffers live (--mem): host memory; GPU memory registered with the HCA
// (GPUDirect RDMA); or `automatic` ("auto"), GPU memory where that works, else host memory.
#include <optional>
#include <string>

namespace ibgpu {

enum class BufferMemory { host, gpu, automatic };

inline const char* to_string(BufferMemory memory) {  // "host", "gpu", "auto": the option's own words
  switch (memory) {
    case BufferMemory::host:
      return "host";
    case BufferMemory::gpu:
      return "gpu";
    case BufferMemory::automatic:
      return "auto";
  }
  return "?";
}

inline std::optional<BufferMemory> buffer_memory_from_string(const std::string& text) {
  for (BufferMemory m : {BufferMemory::host, BufferMemory::gpu, BufferMemory::automatic})
    if (text == to_string(m)) return m;
  return std::nullopt;
}

}  // namespace ibgpu

#pragma once
// One move-only owner per verbs handle. An owner that holds several must
// declare them in dependency order (device list, context, PD, memory, MR, CQ,
// QP) so destruction runs in reverse: a QP goes before its CQ, an MR before
// its PD and before the memory it pins. Destructors never throw: a failed
// destroy leaves nothing the process could do about it.
#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace ibgpu::verbs {

template <class T, auto Release>
class Owned {
 public:
  Owned() = default;
  explicit Owned(T* handle) : handle_(handle) {}
  ~Owned() { reset(); }
  Owned(Owned&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Owned& operator=(Owned&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;

  T* get() const { return handle_; }
  T* operator->() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }
  void reset() noexcept {
    if (handle_) static_cast<void>(Release(handle_));
    handle_ = nullptr;
  }

 private:
  T* handle_ = nullptr;
};

using Context = Owned<ibv_context, &ibv_close_device>;
using ProtectionDomain = Owned<ibv_pd, &ibv_dealloc_pd>;
using MemoryRegion = Owned<ibv_mr, &ibv_dereg_mr>;
using CompletionQueue = Owned<ibv_cq, &ibv_destroy_cq>;
using QueuePair = Owned<ibv_qp, &ibv_destroy_qp>;

// ibv_get_device_list's array. Opened contexts stay valid after it is freed
// (rdma-core keeps its own reference), but keeping it costs nothing.
class DeviceList {
 public:
  DeviceList() = default;
  static DeviceList get();                                // throws CallError when the verbs stack itself is missing
  static DeviceList adopt(ibv_device** list, int count);  // from ibv_get_device_list
  ~DeviceList() { reset(); }
  DeviceList(DeviceList&& other) noexcept
      : list_(std::exchange(other.list_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceList& operator=(DeviceList&& other) noexcept;
  DeviceList(const DeviceList&) = delete;
  DeviceList& operator=(const DeviceList&) = delete;

  int size() const { return count_; }
  ibv_device* at(int i) const { return list_[i]; }
  ibv_device* find(const std::string& name) const;  // nullptr if absent
  void reset() noexcept;

 private:
  ibv_device** list_ = nullptr;
  int count_ = 0;
};

// Page-aligned, zero-filled host memory for registration (the HCA maps whole pages).
class HostMemory {
 public:
  HostMemory() = default;
  explicit HostMemory(std::size_t bytes);
  ~HostMemory();
  HostMemory(HostMemory&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  HostMemory& operator=(HostMemory&& other) noexcept;
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;

  std::uint8_t* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  std::uint8_t* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Checked constructors, one per verbs create call (NULL-and-errno convention).
Context open_device(ibv_device* device);
ProtectionDomain alloc_pd(ibv_context* context);
MemoryRegion reg_mr(ibv_pd* pd, void* address, std::size_t bytes, int access);
CompletionQueue create_cq(ibv_context* context, int entries);

std::size_t page_size();
std::size_t round_up(std::size_t bytes, std::size_t multiple);

}  // namespace ibgpu::verbs

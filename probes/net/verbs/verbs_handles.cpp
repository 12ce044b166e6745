#include "probes/net/verbs/verbs_handles.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "probes/net/verbs/verbs_check.h"

namespace ibgpu::verbs {

DeviceList DeviceList::get() {
  DeviceList list;
  int count = 0;
  errno = 0;
  list.list_ = check_ptr(ibv_get_device_list(&count), "ibv_get_device_list");
  list.count_ = count;
  return list;
}

DeviceList DeviceList::adopt(ibv_device** list, int count) {
  DeviceList out;
  out.list_ = list;
  out.count_ = list ? count : 0;
  return out;
}

DeviceList& DeviceList::operator=(DeviceList&& other) noexcept {
  if (this != &other) {
    reset();
    list_ = std::exchange(other.list_, nullptr);
    count_ = std::exchange(other.count_, 0);
  }
  return *this;
}

ibv_device* DeviceList::find(const std::string& name) const {
  for (int i = 0; i < count_; ++i)
    if (name == ibv_get_device_name(list_[i])) return list_[i];
  return nullptr;
}

void DeviceList::reset() noexcept {
  if (list_) ibv_free_device_list(list_);
  list_ = nullptr;
  count_ = 0;
}

HostMemory::HostMemory(std::size_t bytes) {
  const std::size_t rounded = round_up(bytes == 0 ? 1 : bytes, page_size());
  data_ = static_cast<std::uint8_t*>(std::aligned_alloc(page_size(), rounded));
  if (!data_) throw std::bad_alloc();
  std::memset(data_, 0, rounded);
  bytes_ = rounded;
}

HostMemory::~HostMemory() { std::free(data_); }

HostMemory& HostMemory::operator=(HostMemory&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

Context open_device(ibv_device* device) { return Context(check_ptr(ibv_open_device(device), "ibv_open_device")); }

ProtectionDomain alloc_pd(ibv_context* context) {
  return ProtectionDomain(check_ptr(ibv_alloc_pd(context), "ibv_alloc_pd"));
}

MemoryRegion reg_mr(ibv_pd* pd, void* address, std::size_t bytes, int access) {
  return MemoryRegion(check_ptr(ibv_reg_mr(pd, address, bytes, access), "ibv_reg_mr"));
}

CompletionQueue create_cq(ibv_context* context, int entries) {
  return CompletionQueue(check_ptr(ibv_create_cq(context, entries, nullptr, nullptr, 0), "ibv_create_cq"));
}

std::size_t page_size() {
  const long size = sysconf(_SC_PAGESIZE);
  return size > 0 ? static_cast<std::size_t>(size) : 4096;
}

std::size_t round_up(std::size_t bytes, std::size_t multiple) {
  return multiple == 0 ? bytes : (bytes + multiple - 1) / multiple * multiple;
}

}  // namespace ibgpu::verbs

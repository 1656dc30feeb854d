#include "tensorflow_ipu/device/ipu_devices.h"

#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace device {
namespace {

std::vector<poplar_sim::Device> ModelDevices(int count) {
  std::vector<poplar_sim::Device> devices;
  for (int k = 0; k < count; ++k) {
    poplar_sim::IPUModel model;
    model.tilesPerIPU = 4;
    absl::StatusOr<poplar_sim::Device> d = model.createDevice();
    EXPECT_TRUE(d.ok()) << d.status();
    devices.push_back(*d);
  }
  return devices;
}

TEST(IpuDevicesTest, NothingAttachedIsAFailedPrecondition) {
  IpuDevices::Global().Detach();
  absl::StatusOr<IpuDeviceHandle> d = IpuDevices::Global().Get(0);
  EXPECT_EQ(d.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(d.status().message().find("configure_ipu_system"),
            std::string::npos)
      << d.status();
}

TEST(IpuDevicesTest, OrdinalsOutOfRangeNameTheOrdinalAndTheCount) {
  IpuDevices::Global().Attach(std::nullopt, ModelDevices(2));
  absl::StatusOr<IpuDeviceHandle> d = IpuDevices::Global().Get(2);
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(d.status().message().find("/device:IPU:2 does not exist"),
            std::string::npos)
      << d.status();
  EXPECT_NE(d.status().message().find("2 IPU device(s)"), std::string::npos)
      << d.status();
  EXPECT_EQ(IpuDevices::Global().Get(-1).status().code(),
            absl::StatusCode::kInvalidArgument);
  IpuDevices::Global().Detach();
}

TEST(IpuDevicesTest, EveryAttachAndDetachStartsANewGeneration) {
  IpuDevices& devices = IpuDevices::Global();
  const uint64_t before = devices.generation();
  devices.Attach(std::nullopt, ModelDevices(1));
  absl::StatusOr<IpuDeviceHandle> first = devices.Get(0);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_GT(first->generation(), before);
  EXPECT_EQ(first->generation(), devices.generation());

  devices.Attach(std::nullopt, ModelDevices(1));
  absl::StatusOr<IpuDeviceHandle> second = devices.Get(0);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_GT(second->generation(), first->generation());
  // The handle of the earlier configuration stays usable (its own lock).
  EXPECT_NE(first->mutex(), second->mutex());
  EXPECT_EQ(first->ordinal(), 0);

  devices.Detach();
  EXPECT_FALSE(devices.attached());
  EXPECT_GT(devices.generation(), second->generation());
}

TEST(IpuDevicesTest, EachDeviceHasItsOwnLock) {
  IpuDevices::Global().Attach(std::nullopt, ModelDevices(2));
  absl::StatusOr<IpuDeviceHandle> a = IpuDevices::Global().Get(0);
  absl::StatusOr<IpuDeviceHandle> b = IpuDevices::Global().Get(1);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_NE(a->mutex(), b->mutex());
  {
    // Holding one device's lock does not keep another device busy.
    absl::MutexLock hold_a(a->mutex());
    EXPECT_TRUE(b->mutex()->TryLock());
    b->mutex()->Unlock();
  }
  // Detaching takes every device's lock: it waits for runs in flight.
  IpuDevices::Global().Detach();
}

}  // namespace
}  // namespace device
}  // namespace tensorflow_ipu

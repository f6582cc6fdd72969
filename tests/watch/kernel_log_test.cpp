// Kernel-log capture: kmsg record parsing, "new lines" for the dmesg fallback, and the GPU
// event patterns against recorded lines (amdgpu/KFD, NVIDIA Xid) and ordinary noise.
#include <gtest/gtest.h>

#include "watch/kernel_log.h"

namespace gs {
namespace {

TEST(KernelLog, FormatsKmsgRecords) {
  EXPECT_EQ(format_kmsg_record("6,1234,5678901,-;amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n"),
            "[    5.678901] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!");
  // Continuation (dictionary) lines after the message are dropped.
  EXPECT_EQ(format_kmsg_record("3,77,1000000123,-,caller=T12;NVRM: Xid (PCI:0000:18:00): 79\n"
                               " SUBSYSTEM=pci\n DEVICE=+pci:0000:18:00.0\n"),
            "[ 1000.000123] NVRM: Xid (PCI:0000:18:00): 79");
  EXPECT_FALSE(format_kmsg_record("no semicolon"));
  EXPECT_FALSE(format_kmsg_record("6,12;text"));
  EXPECT_FALSE(format_kmsg_record("6,12,notanumber,-;text"));
}

TEST(KernelLog, GpuEventLinesFire) {
  const char* lines[] = {
      "[ 1234.5] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!",
      "[ 1234.6] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=5, emitted seq=7",
      "[ 1234.7] amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:1 pasid:32769)",
      "[ 1234.8] amdgpu 0000:03:00.0: amdgpu:   GCVM_L2_PROTECTION_FAULT_STATUS:0x00000000",
      "[ 1234.9] amdgpu 0000:03:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE",
      "[ 1235.0] amdgpu: HWS hang detected, resetting the device",
      "[ 1235.1] amdgpu 0000:03:00.0: amdgpu: GPU recovery disabled.",
      "[ 1235.2] NVRM: Xid (PCI:0000:18:00): 79, pid=1234, name=python3, GPU has fallen off the bus.",
      "[ 1235.3] NVRM: Xid (PCI:0000:18:00): 13, pid=99, Graphics SM Warp Exception",
      "[ 1235.4] kfd kfd: amdgpu: Failed to evict queues of pasid 0x8001",
      "[ 1235.5] amdgpu 0000:03:00.0: amdgpu: ring sdma0 timeout",
  };
  for (const char* l : lines) EXPECT_TRUE(is_gpu_event_line(l)) << l;
}

TEST(KernelLog, OrdinaryLinesDoNotFire) {
  const char* lines[] = {
      "[    2.1] [drm] Initialized amdgpu 3.59.0 20150101 for 0000:03:00.0 on minor 1",
      "[    2.2] amdgpu 0000:03:00.0: amdgpu: SMU is initialized successfully!",
      "[    2.3] amdgpu 0000:03:00.0: amdgpu: MES FW version must be >= 0x82",
      "[    2.4] usb 1-1: reset high-speed USB device number 2 using xhci_hcd",
      "[    2.5] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.159.04",
      "[    2.6] EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode",
      "[    2.7] kfd kfd: amdgpu: added device 1002:7551",
  };
  for (const char* l : lines) EXPECT_FALSE(is_gpu_event_line(l)) << l;
}

TEST(KernelLog, LinesAfter) {
  std::vector<std::string> before = {"a", "b", "c"};
  EXPECT_EQ(lines_after(before, {"a", "b", "c", "d", "e"}), (std::vector<std::string>{"d", "e"}));
  EXPECT_TRUE(lines_after(before, {"a", "b", "c"}).empty());
  // The ring buffer wrapped: "c" is gone, so everything left is newer.
  EXPECT_EQ(lines_after(before, {"x", "y"}), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(lines_after({}, {"x"}), (std::vector<std::string>{"x"}));
  // A line that repeats: the last copy marks the end of what was seen.
  EXPECT_EQ(lines_after({"a", "c"}, {"c", "a", "c", "n"}), (std::vector<std::string>{"n"}));
}

TEST(KernelLog, LiveSourceAnswersEitherWay) {
  // Readable or not depends on the host (dmesg_restrict, containers); both must be clean.
  auto src = open_kernel_log();
  kernel_log_read r = src->read_new();
  if (!r.readable) {
    EXPECT_FALSE(r.why.empty());
  }
  kernel_log_read again = src->read_new();
  EXPECT_EQ(again.readable, r.readable);
}

}  // namespace
}  // namespace gs

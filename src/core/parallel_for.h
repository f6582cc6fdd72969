// parallel_for(n, f): f(i) for every i in [0, n), spread over the host's cores. Items are taken in
// order from one atomic counter, so uneven items balance themselves; at most n threads start, and
// with one core (or one item) f runs inline. f must be safe to run concurrently for different i.
// Used where a probe's host side is a pile of independent work: the sampled rows of a BLAS check,
// the chunks of a large seeded input (probes/blas_run.cpp, probes/gemm_inputs.cpp).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace gs {

template <class F>
void parallel_for(size_t n, F&& f) {
  const size_t threads = std::min<size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < n;) f(i);
  };
  std::vector<std::jthread> pool(threads);
  for (std::jthread& th : pool) th = std::jthread(work);
}

}  // namespace gs

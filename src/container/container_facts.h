// The facts the rules see for one container of a spec: the host's GPUs, kernel driver and kernel
// (a container shares them) with the container's environment, image stack and packages in place
// of the host's. Partial, as a paste's are: what the spec does not say (the base image's own ENV
// and packages, how a bare Dockerfile is run) is unknown, so no rule fires on a guess.
#pragma once
#include <string>
#include <vector>

#include "core/facts.h"
#include "core/finding.h"
#include "rules/knowledge_base.h"

namespace gs {

machine_facts container_facts(const machine_facts& host, const container_info& c);

/// What the image and the spec's pip lines say about the software stack (ROCm, CUDA toolkit,
/// Python, packages, torch and its build), written into `f` only where `f` does not know it yet:
/// for container_facts that is everything; for a paste (`gpustack explain` on a report with a
/// `docker run` line) what the reporter's own output shows wins. Returns the keys it filled
/// ("rocm.version", "cuda.toolkit", "pkg.torch", ...) with their values.
std::vector<std::pair<std::string, std::string>> fill_image_stack(machine_facts& f, const container_info& c);

/// The findings about one container: the rules on container_facts, less those that fire on the
/// host's share alone (the same facts with no container, no environment and no image stack),
/// which are the host's business (`gpustack check` without --container reports them).
std::vector<finding> container_findings(const machine_facts& host, const container_info& c, const knowledge_base& kb);

}  // namespace gs

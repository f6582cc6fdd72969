// `gpustack check --container FILE`: a container spec (a Dockerfile, a docker-compose file, a
// `docker run`/`podman run` line, a Kubernetes manifest) read into one container_info per
// container it makes, and the facts the knowledge base evaluates for each: the host's GPUs and
// driver (the container shares them) with the container's own environment, image stack and
// runtime settings in place of the host's (container_facts.h).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/facts.h"

namespace gs {

struct container_spec {
  std::string kind;                       ///< "dockerfile", "compose", "run", "kubernetes"
  std::vector<container_info> containers; ///< one per service / run line / pod container; a Dockerfile: one
  std::string error;                      ///< why the spec could not be read ("" when it was)
};

/// The kind of spec `text` is: by file name first (Dockerfile*, Containerfile, *.dockerfile,
/// compose*.y*ml, docker-compose*.y*ml), then by content ("services:", "apiVersion:" + "kind:",
/// a `docker run` line, FROM). "" when it is none of them.
std::string container_spec_kind(std::string_view file_name, std::string_view text);

/// Reads a spec of `kind` (container_spec_kind's answer, or the user's --container-kind).
container_spec read_container_spec(std::string_view text, const std::string& kind);

}  // namespace gs

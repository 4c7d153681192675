// trainer-container-init: the container init alone (core/executor/container_init.hpp), installed
// as <prefix>/libexec/trainer-operator/trainer-container-init and run by the local executor as each
// container's PID 1 (core/executor/container_init_binary.hpp finds it). The same code as the
// operator's hidden `__container-init` entry (core/cli/main.cpp), which stays the fallback, in a
// binary that links only what the init calls: exec'ing the operator's binary spent ~4 ms of CPU
// per container loading and relocating libraries the init never uses.
#include "core/executor/container_init.hpp"

int main(int argc, char** argv) { return trainer::core::executor::containerInitMain(argc, argv); }

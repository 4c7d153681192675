#include "core/cli/cli.hpp"
#include "core/executor/container_init.hpp"
#include "core/plugin/crash_context.hpp"

#include <iostream>

int main(int argc, char** argv) {
    // The local executor re-runs this binary as a container's init (never a user command).
    if (argc > 1 && argv[1] == trainer::core::executor::kContainerInitArg)
        return trainer::core::executor::containerInitMain(argc, argv);
    // Every command: a fatal signal in a plugin is reported with its plugin, hook and TrainJob.
    trainer::core::installCrashHandler();
    trainer::core::cli::Io io{std::cout, std::cerr};
    return trainer::core::cli::run(argc, argv, io);
}

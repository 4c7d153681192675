#include "core/cli/cli.hpp"

#include <iostream>

int main(int argc, char** argv) {
    trainer::core::cli::Io io{std::cout, std::cerr};
    return trainer::core::cli::run(argc, argv, io);
}

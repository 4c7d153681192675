// The machine's check for scripts/bench.sh: the wall time of one fixed loop pinned to each CPU in
// turn, in milliseconds, on one line ("cpu0 240 cpu1 243"). A shared virtual machine's CPUs can
// run at different speeds for minutes (its host gives one of them less), and a benchmark whose
// server runs on one thread (P5's webhook, core/server/io_pool.hpp) then measures the CPU it
// landed on; bench.sh prints this before and after the suite so a reader can tell.
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace {

double loopMillis() {
    volatile unsigned long sink = 0;
    const auto start = std::chrono::steady_clock::now();
    for (unsigned long i = 0; i < 400000000UL; ++i) sink = sink + i;
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main() {
    const unsigned cpus = std::thread::hardware_concurrency();
    for (unsigned cpu = 0; cpu < cpus; ++cpu) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0) {
            std::printf("%scpu%u -", cpu ? " " : "", cpu);
            continue;
        }
        std::printf("%scpu%u %.0f", cpu ? " " : "", cpu, loopMillis());
    }
    std::printf("\n");
    return 0;
}

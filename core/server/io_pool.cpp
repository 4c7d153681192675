#include "core/server/io_pool.hpp"

#include <algorithm>

namespace trainer::core::server {

IoPool::IoPool(std::size_t threads) {
    threads = std::max<std::size_t>(threads, 1);
    for (std::size_t i = 0; i < threads; ++i) contexts_.push_back(std::make_unique<Context>());
    for (auto& c : contexts_) threads_.emplace_back([&io = c->io] { io.run(); });
}

IoPool::~IoPool() {
    stop();
    join();
}

boost::asio::io_context& IoPool::next() { return contexts_[turn_.fetch_add(1) % contexts_.size()]->io; }

void IoPool::release() {
    for (auto& c : contexts_) c->guard.reset();
}

void IoPool::stop() {
    for (auto& c : contexts_) c->io.stop();
}

void IoPool::join() {
    for (auto& t : threads_)
        if (t.joinable()) t.join();
}

std::size_t IoPool::defaultThreads() { return std::clamp<std::size_t>(std::thread::hardware_concurrency() / 2, 1, 4); }

}  // namespace trainer::core::server

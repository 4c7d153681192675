// One write(2) a log line (core/log/fd_line_stream.hpp), observed through a SOCK_SEQPACKET socket:
// it keeps every write a message of its own, so each message read back is exactly one write.
#include <boost/test/unit_test.hpp>

#include "core/log/fd_line_stream.hpp"
#include "core/log/log.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace lg = trainer::core::log;

namespace {

struct Packets {
    int fds[2] = {-1, -1};
    Packets() { BOOST_REQUIRE(::socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds) == 0); }
    ~Packets() {
        for (int fd : fds)
            if (fd >= 0) ::close(fd);
    }
    int writer() const { return fds[0]; }
    // Every message waiting, one string each.
    std::vector<std::string> messages() const {
        std::vector<std::string> out;
        char buf[65536];
        for (;;) {
            ssize_t n = ::recv(fds[1], buf, sizeof buf, MSG_DONTWAIT);
            if (n <= 0) return out;
            out.emplace_back(buf, static_cast<size_t>(n));
        }
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_record_written_in_pieces_reaches_the_descriptor_in_one_write) {
    Packets p;
    lg::FdLineStream out(p.writer());
    out << "{\"msg\":" << 42 << ",\"x\":\"" << std::string(3000, 'y') << "\"}" << '\n';
    BOOST_TEST(p.messages().empty());  // nothing before the flush
    out.flush();
    out << "second" << '\n' << std::flush;
    auto got = p.messages();
    BOOST_REQUIRE(got.size() == 2u);
    BOOST_TEST(got[0] == "{\"msg\":42,\"x\":\"" + std::string(3000, 'y') + "\"}\n");
    BOOST_TEST(got[1] == "second\n");
}

// The log's default sink (no stream given: standard error), with descriptor 2 the socket.
BOOST_AUTO_TEST_CASE(each_log_line_on_standard_error_is_one_write) {
    Packets p;
    const int savedStderr = ::dup(STDERR_FILENO);
    BOOST_REQUIRE(savedStderr >= 0);
    BOOST_REQUIRE(::dup2(p.writer(), STDERR_FILENO) == STDERR_FILENO);
    lg::init(lg::Options{lg::Level::Info, lg::Encoder::Json, nullptr});
    lg::Logger log("test");
    log.info("Applied object", {{"object", "JobSet default/a"}, {"outcome", "created"}});
    log.info("Reconciled", {{"result", "success"}});
    ::dup2(savedStderr, STDERR_FILENO);
    ::close(savedStderr);
    auto got = p.messages();
    BOOST_REQUIRE(got.size() == 2u);
    for (auto const& m : got) {
        BOOST_TEST(m.front() == '{');
        BOOST_TEST(m.substr(m.size() - 2) == "}\n");
        BOOST_TEST(m.find('\n') == m.size() - 1);
    }
    BOOST_TEST(got[0].find("\"msg\":\"Applied object\"") != std::string::npos);
    BOOST_TEST(got[1].find("\"msg\":\"Reconciled\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_write_that_fails_is_counted_and_dropped) {
    const int readOnly = ::open("/dev/null", O_RDONLY);  // a write to it fails (EBADF)
    BOOST_REQUIRE(readOnly >= 0);
    {
        lg::FdLineStream out(readOnly);
        out << "lost" << std::endl;
        BOOST_TEST(out.buffer().failedWrites() == 1);
        BOOST_TEST(out.good());
        out << "lost again" << std::endl;
        BOOST_TEST(out.buffer().failedWrites() == 2);
    }
    ::close(readOnly);
}
